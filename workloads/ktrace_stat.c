/*
 * ktrace_stat — perf kmem stat's summary of a recorded trace; see
 * ktrace_stat.h.
 */
#include "workloads/ktrace_stat.h"

#include <stdlib.h>
#include <string.h>

#include "workloads/keymap.h"

/* The maps hold, per live pointer or pfn, the index of its allocation
 * event in the trace: its CPU, call site and bytes are read back from it. */

static int is_slab_alloc(int k)
{
	return k == KT_KMEM_CACHE_ALLOC || k == KT_KMEM_CACHE_ALLOC_NODE || k == KT_KMALLOC ||
	       k == KT_KMALLOC_NODE;
}

struct acc {
	const struct ktrace *t;
	struct ktrace_stat *s;
	size_t *site_of;                /* string index -> row + 1 */
	size_t cap_site, cap_gfp;
	size_t *gfp_of;                 /* string index -> gfp row + 1 */
};

static int site_row(struct acc *a, uint32_t cs, size_t *row)
{
	struct ktrace_stat *s = a->s;
	if (cs < a->t->nr_str && a->site_of[cs]) {
		*row = a->site_of[cs] - 1;
		return NS_OK;
	}
	if (s->nr_site == a->cap_site) {
		size_t cap = a->cap_site ? 2 * a->cap_site : 32;
		struct ktrace_site_row *n = realloc(s->site, cap * sizeof *n);
		if (!n)
			return NS_ENOMEM;
		s->site = n;
		a->cap_site = cap;
	}
	memset(&s->site[s->nr_site], 0, sizeof s->site[0]);
	s->site[s->nr_site].call_site = cs;
	*row = s->nr_site++;
	if (cs < a->t->nr_str)
		a->site_of[cs] = *row + 1;
	return NS_OK;
}

static int gfp_row(struct acc *a, uint32_t g, size_t *row)
{
	struct ktrace_stat *s = a->s;
	if (g < a->t->nr_str && a->gfp_of[g]) {
		*row = a->gfp_of[g] - 1;
		return NS_OK;
	}
	if (s->nr_gfp == a->cap_gfp) {
		size_t cap = a->cap_gfp ? 2 * a->cap_gfp : 16;
		uint32_t *gi = realloc(s->gfp, cap * sizeof *gi);
		if (gi)
			s->gfp = gi;
		uint64_t *r = gi ? realloc(s->gfp_requests, cap * sizeof *r) : NULL;
		if (r)
			s->gfp_requests = r;
		uint64_t *pg = r ? realloc(s->gfp_pages, cap * sizeof *pg) : NULL;
		if (!pg)
			return NS_ENOMEM;
		s->gfp_pages = pg;
		a->cap_gfp = cap;
	}
	s->gfp[s->nr_gfp] = g;
	s->gfp_requests[s->nr_gfp] = s->gfp_pages[s->nr_gfp] = 0;
	*row = s->nr_gfp++;
	if (g < a->t->nr_str)
		a->gfp_of[g] = *row + 1;
	return NS_OK;
}

struct sortable {
	struct ktrace_site_row r;
	const char *text;
};

static int cmp_site(const void *x, const void *y)
{
	const struct sortable *a = x, *b = y;
	if (a->r.bytes_alloc != b->r.bytes_alloc)
		return a->r.bytes_alloc > b->r.bytes_alloc ? -1 : 1;
	if (a->r.allocs != b->r.allocs)
		return a->r.allocs > b->r.allocs ? -1 : 1;
	return strcmp(a->text, b->text);
}

/* The rows by bytes allocated, allocations, call-site text. */
static int sort_sites(struct ktrace_stat *s, const struct ktrace *t)
{
	if (s->nr_site < 2)
		return NS_OK;
	struct sortable *v = malloc(s->nr_site * sizeof *v);
	if (!v)
		return NS_ENOMEM;
	for (size_t i = 0; i < s->nr_site; i++) {
		v[i].r = s->site[i];
		v[i].text = ktrace_str(t, s->site[i].call_site);
	}
	qsort(v, s->nr_site, sizeof *v, cmp_site);
	for (size_t i = 0; i < s->nr_site; i++)
		s->site[i] = v[i].r;
	free(v);
	return NS_OK;
}

/* The GFP rows by requests, then text (a permutation in *order). */
static int cmp_gfp_rows(const struct ktrace_stat *s, const struct ktrace *t, size_t i, size_t j)
{
	if (s->gfp_requests[i] != s->gfp_requests[j])
		return s->gfp_requests[i] > s->gfp_requests[j] ? -1 : 1;
	return strcmp(ktrace_str(t, s->gfp[i]), ktrace_str(t, s->gfp[j]));
}

static void sort_gfp(struct ktrace_stat *s, const struct ktrace *t)
{
	for (size_t i = 1; i < s->nr_gfp; i++)
		for (size_t j = i; j > 0 && cmp_gfp_rows(s, t, j, j - 1) < 0; j--) {
			uint32_t g = s->gfp[j];
			uint64_t r = s->gfp_requests[j], p = s->gfp_pages[j];
			s->gfp[j] = s->gfp[j - 1];
			s->gfp_requests[j] = s->gfp_requests[j - 1];
			s->gfp_pages[j] = s->gfp_pages[j - 1];
			s->gfp[j - 1] = g;
			s->gfp_requests[j - 1] = r;
			s->gfp_pages[j - 1] = p;
		}
}

static int slab_event(struct acc *a, struct keymap *objs, size_t i)
{
	const struct ktrace_event *e = &a->t->ev[i];
	struct ktrace_stat *s = a->s;
	uint64_t v;
	size_t row;
	int rc;
	if (is_slab_alloc(e->kind)) {
		if ((rc = site_row(a, e->call_site, &row)))
			return rc;
		struct ktrace_site_row *r = &s->site[row];
		r->allocs++;
		s->slab_allocs++;
		if (e->flags & KT_F_FAILED) {
			r->failed++;
			s->slab_failed++;
			return NS_OK;
		}
		r->bytes_req += e->bytes_req;
		r->bytes_alloc += e->bytes_alloc;
		s->bytes_req += e->bytes_req;
		s->bytes_alloc += e->bytes_alloc;
		if (keymap_get(objs, e->key, &v))
			s->slab_alloc_only++;      /* never freed before its reuse */
		return keymap_put(objs, e->key, i) ? NS_ENOMEM : NS_OK;
	}
	s->slab_frees++;
	if (!e->key)
		return NS_OK;                      /* kfree(NULL) */
	if (!keymap_del(objs, e->key, &v)) {
		s->slab_free_only++;
		return NS_OK;
	}
	const struct ktrace_event *al = &a->t->ev[v];
	struct ktrace_site_row *r = &s->site[a->site_of[al->call_site] - 1];
	r->frees++;
	s->slab_alloc_freed++;
	s->bytes_freed += al->bytes_alloc;
	if (al->cpu != e->cpu) {
		r->pingpong++;
		s->slab_pingpong++;
	}
	return NS_OK;
}

static int page_event(struct acc *a, struct keymap *pages, size_t i)
{
	const struct ktrace_event *e = &a->t->ev[i];
	struct ktrace_stat *s = a->s;
	uint64_t v;
	size_t row;
	int rc;
	if (e->flags & KT_F_SLAB_PAGE) {
		if (e->kind == KT_MM_PAGE_ALLOC)
			s->slab_pages++;
		else
			s->slab_page_frees++;
	}
	switch (e->kind) {
	case KT_MM_PAGE_ALLOC:
		s->page_allocs++;
		s->by_order_mt[e->order][e->migratetype >= 0 && e->migratetype < KT_STAT_MT
					   ? e->migratetype : KT_STAT_MT]++;
		if ((rc = gfp_row(a, e->gfp, &row)))
			return rc;
		s->gfp_requests[row]++;
		s->gfp_pages[row] += 1ull << e->order;
		if (e->flags & KT_F_FAILED) {
			s->page_failed++;
			return NS_OK;
		}
		if (keymap_get(pages, e->key, &v))
			s->page_alloc_only++;
		return keymap_put(pages, e->key, i) ? NS_ENOMEM : NS_OK;
	case KT_MM_PAGE_FREE:
	case KT_MM_PAGE_FREE_BATCHED:
		s->page_frees++;
		if (!keymap_del(pages, e->key, &v)) {
			s->page_free_only++;
			return NS_OK;
		}
		s->page_alloc_freed++;
		if (a->t->ev[v].cpu != e->cpu)
			s->page_pingpong++;
		return NS_OK;
	case KT_MM_PAGE_ALLOC_ZONE_LOCKED:
		s->zone_locked++;
		if (e->flags & KT_F_PERCPU_REFILL)
			s->zone_locked_refill++;
		return NS_OK;
	case KT_MM_PAGE_PCPU_DRAIN:
		s->pcpu_drain++;
		return NS_OK;
	}
	return NS_OK;
}

int ktrace_stat_compute(const struct ktrace *t, struct ktrace_stat *s)
{
	struct keymap objs, pages;
	struct acc a = {.t = t, .s = s};
	int rc = NS_OK;
	memset(s, 0, sizeof *s);
	keymap_init(&objs);
	keymap_init(&pages);
	a.site_of = calloc((size_t)t->nr_str + 1, sizeof *a.site_of);
	a.gfp_of = calloc((size_t)t->nr_str + 1, sizeof *a.gfp_of);
	if (!a.site_of || !a.gfp_of)
		rc = NS_ENOMEM;
	for (size_t i = 0; rc == NS_OK && i < t->nr; i++) {
		if (t->ev[i].kind >= KT_KMEM_CACHE_ALLOC)
			rc = slab_event(&a, &objs, i);
		else
			rc = page_event(&a, &pages, i);
	}
	if (rc == NS_OK) {
		s->slab_alloc_only += objs.nr;
		s->page_alloc_only += pages.nr;
		rc = sort_sites(s, t);
		sort_gfp(s, t);
	}
	free(a.site_of);
	free(a.gfp_of);
	keymap_free(&objs);
	keymap_free(&pages);
	if (rc != NS_OK)
		ktrace_stat_free(s);
	return rc;
}

void ktrace_stat_free(struct ktrace_stat *s)
{
	free(s->site);
	free(s->gfp);
	free(s->gfp_requests);
	free(s->gfp_pages);
	memset(s, 0, sizeof *s);
}

static double pct(uint64_t a, uint64_t b)
{
	return b ? 100.0 * (double)a / (double)b : 0.0;
}

static const char *const mt_names[KT_STAT_MT + 1] = {
	"Unmovable", "Movable", "Reclaimable", "HighAtomic", "CMA", "Isolate", "other",
};

void ktrace_stat_print(const struct ktrace *t, const struct ktrace_stat *s, size_t top,
		       FILE *f)
{
	const struct ktrace_counts *n = &t->n;
	fprintf(f, "events read: %zu of %llu lines\n", t->nr, (unsigned long long)n->lines);
	for (int k = 0; k < KT_NR_KINDS; k++)
		if (n->by_kind[k])
			fprintf(f, "  %-28s %12llu\n", ktrace_kind_name((enum ktrace_kind)k),
				(unsigned long long)n->by_kind[k]);
	fprintf(f, "  %-28s %12llu\n", "other events (not replayed)",
		(unsigned long long)n->other_events);
	fprintf(f, "  %-28s %12llu\n", "lines skipped (headers)",
		(unsigned long long)n->skipped_lines);
	fprintf(f, "  %-28s %12llu (%llu events lost)\n", "lost-events lines",
		(unsigned long long)n->lost_lines, (unsigned long long)n->lost_events);
	fprintf(f, "  %-28s %12llu\n", "bad lines skipped", (unsigned long long)n->bad_lines);

	fprintf(f, "\nSLAB allocations by call site (as perf kmem stat --slab)\n");
	fprintf(f, "%-40s %10s %10s %12s %12s %6s %9s\n", "call site", "allocs", "frees",
		"bytes_alloc", "bytes_req", "frag%", "pingpong");
	size_t shown = top && top < s->nr_site ? top : s->nr_site;
	for (size_t i = 0; i < shown; i++) {
		const struct ktrace_site_row *r = &s->site[i];
		fprintf(f, "%-40.40s %10llu %10llu %12llu %12llu %6.2f %9llu\n",
			ktrace_str(t, r->call_site), (unsigned long long)r->allocs,
			(unsigned long long)r->frees, (unsigned long long)r->bytes_alloc,
			(unsigned long long)r->bytes_req,
			pct(r->bytes_alloc - r->bytes_req, r->bytes_alloc),
			(unsigned long long)r->pingpong);
	}
	if (shown < s->nr_site)
		fprintf(f, "... %zu more call sites\n", s->nr_site - shown);
	fprintf(f, "\nSUMMARY (SLAB allocator)\n");
	fprintf(f, "  Total allocations           : %llu (%llu failed)\n",
		(unsigned long long)s->slab_allocs, (unsigned long long)s->slab_failed);
	fprintf(f, "  Total frees                 : %llu (%llu free-only)\n",
		(unsigned long long)s->slab_frees, (unsigned long long)s->slab_free_only);
	fprintf(f, "  Total bytes requested       : %llu\n", (unsigned long long)s->bytes_req);
	fprintf(f, "  Total bytes allocated       : %llu\n", (unsigned long long)s->bytes_alloc);
	fprintf(f, "  Total bytes freed           : %llu\n", (unsigned long long)s->bytes_freed);
	fprintf(f, "  Internal fragmentation      : %.2f%%\n",
		pct(s->bytes_alloc - s->bytes_req, s->bytes_alloc));
	fprintf(f, "  Alloc+freed / alloc-only    : %llu / %llu\n",
		(unsigned long long)s->slab_alloc_freed, (unsigned long long)s->slab_alloc_only);
	fprintf(f, "  Cross-CPU frees (pingpong)  : %llu/%llu\n",
		(unsigned long long)s->slab_pingpong, (unsigned long long)s->slab_alloc_freed);

	fprintf(f, "\nPAGE allocations by order and migrate type (requests)\n");
	fprintf(f, "%-6s", "order");
	for (int m = 0; m <= KT_STAT_MT; m++)
		fprintf(f, " %11s", mt_names[m]);
	fprintf(f, "\n");
	for (int o = 0; o < KT_MAX_ORDER; o++) {
		uint64_t any = 0;
		for (int m = 0; m <= KT_STAT_MT; m++)
			any += s->by_order_mt[o][m];
		if (!any)
			continue;
		fprintf(f, "%-6d", o);
		for (int m = 0; m <= KT_STAT_MT; m++)
			fprintf(f, " %11llu", (unsigned long long)s->by_order_mt[o][m]);
		fprintf(f, "\n");
	}
	fprintf(f, "\nPAGE allocations by GFP flags\n");
	fprintf(f, "%-56s %10s %10s\n", "gfp_flags", "requests", "pages");
	for (size_t i = 0; i < s->nr_gfp; i++)
		fprintf(f, "%-56.56s %10llu %10llu\n", ktrace_str(t, s->gfp[i]),
			(unsigned long long)s->gfp_requests[i],
			(unsigned long long)s->gfp_pages[i]);
	fprintf(f, "\nSUMMARY (page allocator)\n");
	fprintf(f, "  Total allocation requests   : %llu\n", (unsigned long long)s->page_allocs);
	fprintf(f, "  Total free requests         : %llu\n", (unsigned long long)s->page_frees);
	fprintf(f, "  Total alloc+freed requests  : %llu\n",
		(unsigned long long)s->page_alloc_freed);
	fprintf(f, "  Total alloc-only requests   : %llu\n", (unsigned long long)s->page_alloc_only);
	fprintf(f, "  Total free-only requests    : %llu\n", (unsigned long long)s->page_free_only);
	fprintf(f, "  Total allocation failures   : %llu\n", (unsigned long long)s->page_failed);
	fprintf(f, "  Slab pages (alloc / free)   : %llu / %llu\n",
		(unsigned long long)s->slab_pages, (unsigned long long)s->slab_page_frees);
	fprintf(f, "  Cross-CPU frees (pingpong)  : %llu/%llu\n",
		(unsigned long long)s->page_pingpong, (unsigned long long)s->page_alloc_freed);
	fprintf(f, "  Zone-locked allocations     : %llu (%llu percpu_refill)\n",
		(unsigned long long)s->zone_locked, (unsigned long long)s->zone_locked_refill);
	fprintf(f, "  Per-cpu drains (pages)      : %llu\n", (unsigned long long)s->pcpu_drain);
}

int ktrace_stat_check(const struct ktrace_stat *s, struct diag *d)
{
	for (size_t i = 0; i < s->nr_site; i++) {
		const struct ktrace_site_row *r = &s->site[i];
		if (r->frees + r->failed > r->allocs || r->pingpong > r->frees)
			return diag_set(d, NS_EINTERNAL, NULL, 0, 0, "ktrace_stat: row %zu "
					"counts do not add up", i);
		if (i && (r->bytes_alloc > s->site[i - 1].bytes_alloc))
			return diag_set(d, NS_EINTERNAL, NULL, 0, 0, "ktrace_stat: rows not "
					"sorted at %zu", i);
	}
	if (s->slab_allocs != s->slab_alloc_freed + s->slab_alloc_only + s->slab_failed ||
	    s->page_allocs != s->page_alloc_freed + s->page_alloc_only + s->page_failed ||
	    s->slab_pingpong > s->slab_alloc_freed || s->page_pingpong > s->page_alloc_freed)
		return diag_set(d, NS_EINTERNAL, NULL, 0, 0, "ktrace_stat: totals do not add up");
	return NS_OK;
}
