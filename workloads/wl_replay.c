/*
 * wl_replay — a recorded kmem trace replayed through the models; see
 * wl_replay.h.
 *
 * Design notes.  The run walks the events once, in file order; the live
 * pages and objects are keymaps from the recorded pfn or pointer to the
 * model's handle (and, for pages, the order of the allocation).  A call's
 * cycles are the CPU's clock after it minus before it (lock waits
 * included, idle time before it excluded).  Its path is read off cheap
 * counters around the call: the zones' lock acquisitions (mm_lock_stats)
 * and, when a lock was taken or the call failed, the zone and node events
 * pcp_refill and slowpath (mm_path_counts); for SLUB the stat items of the
 * call's cache on its CPU (slub_stat; counted whatever CONFIG_SLUB_STATS).
 */
#include "workloads/wl_replay.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "analysis/store.h"
#include "base/progress.h"
#include "cost/cache.h"
#include "cost/cpu.h"
#include "models/page_alloc.h"
#include "models/slub.h"
#include "workloads/keymap.h"

#define WL_RP_NAME(id, name) name,
static const char *const pa_names[] = {WL_REPLAY_PAGE_ALLOC_PATHS(WL_RP_NAME)};
static const char *const pf_names[] = {WL_REPLAY_PAGE_FREE_PATHS(WL_RP_NAME)};
static const char *const sa_names[] = {WL_REPLAY_SLAB_ALLOC_PATHS(WL_RP_NAME)};
static const char *const sf_names[] = {WL_REPLAY_SLAB_FREE_PATHS(WL_RP_NAME)};
#undef WL_RP_NAME

const char *wl_replay_pa_name(enum wl_replay_pa p)
{
	return (unsigned)p < WL_RP_NR_PA ? pa_names[p] : "?";
}

const char *wl_replay_pf_name(enum wl_replay_pf p)
{
	return (unsigned)p < WL_RP_NR_PF ? pf_names[p] : "?";
}

const char *wl_replay_sa_name(enum wl_replay_sa p)
{
	return (unsigned)p < WL_RP_NR_SA ? sa_names[p] : "?";
}

const char *wl_replay_sf_name(enum wl_replay_sf p)
{
	return (unsigned)p < WL_RP_NR_SF ? sf_names[p] : "?";
}

/* --- the scenario section ------------------------------------------------- */

enum { R_TYPE, R_TRACE, R_TIMING, R_SKIP_BAD, NR_R };

static const struct ytree_field replay_fields[NR_R] = {
	[R_TYPE] = {"type", 1},
	[R_TRACE] = {"trace", 1},
	[R_TIMING] = {"timing", 0},
	[R_SKIP_BAD] = {"skip_bad", 0},
};

/* dir(scenario) + "/" + ref unless ref is absolute or that does not exist
 * and ref does (as machine files are found). */
static char *resolve(const char *scenario, const char *ref)
{
	const char *slash = strrchr(scenario, '/');
	struct stat st;
	if (ref[0] == '/' || !strcmp(ref, "-") || !slash)
		return strdup(ref);
	size_t dl = (size_t)(slash - scenario) + 1, rl = strlen(ref);
	char *p = malloc(dl + rl + 1);
	if (!p)
		return NULL;
	memcpy(p, scenario, dl);
	memcpy(p + dl, ref, rl + 1);
	if (stat(p, &st) != 0 && stat(ref, &st) == 0) {
		free(p);
		return strdup(ref);
	}
	return p;
}

static void replay_params_free(void *params)
{
	struct scn_replay *p = params;
	if (!p)
		return;
	ktrace_free(&p->t);
	free(p->trace_path);
	free(p);
}

static int replay_parse(const struct wl_reader *r, const struct ynode *n, struct wl_point *pt)
{
	struct scn_replay *p = calloc(1, sizeof *p);
	const struct ynode *v[NR_R];
	int rc, skip_bad = 0;
	if (!p)
		return wl_nomem(r);
	ktrace_init(&p->t);
	pt->params = p;
	if ((rc = r->fields(r->ctx, n, "workload 'replay'", replay_fields, NR_R, v)))
		return rc;
	if ((rc = ytree_string(wl_tree(r, v[R_TRACE]), v[R_TRACE], "trace", 1, &p->trace_text,
			       r->d)))
		return rc;
	p->timing = WL_REPLAY_RECORDED;
	if (v[R_TIMING]) {
		const char *s;
		if ((rc = ytree_string(wl_tree(r, v[R_TIMING]), v[R_TIMING], "timing", 1, &s,
				       r->d)))
			return rc;
		if (!strcmp(s, "asap"))
			p->timing = WL_REPLAY_ASAP;
		else if (strcmp(s, "recorded"))
			return wl_err(r, v[R_TIMING], "timing is 'recorded' or 'asap', not '%s'",
				      s);
	}
	if (v[R_SKIP_BAD]) {
		uint32_t b;
		if ((rc = wl_get_u32(r, v[R_SKIP_BAD], "skip_bad (0 or 1)", 0, 1, &b)))
			return rc;
		skip_bad = (int)b;
	}
	if (!(p->trace_path = resolve(wl_tree(r, v[R_TRACE])->name, p->trace_text)))
		return wl_nomem(r);
	if ((rc = ktrace_read_file(&p->t, p->trace_path, skip_bad, r->d)))
		return rc;
	if (!p->t.nr)
		return wl_err(r, v[R_TRACE], "trace '%s' holds no kmem event to replay",
			      p->trace_text);
	if (!*pt->nr_cpus)
		return wl_all_cpus(r, pt);
	return NS_OK;
}

static int replay_check(const void *params, const struct machine *m, int nr_cpus,
			const int *cpus, const char *path, struct diag *d)
{
	const struct scn_replay *p = params;
	WL_CHECK(nr_cpus >= 1, "replay placement: no CPU");
	for (int i = 0; i < nr_cpus; i++)
		WL_CHECK(cpus[i] >= 0 && cpus[i] <= m->max_cpu && m->cpu_node[cpus[i]] >= 0,
			 "replay placement: CPU %d", cpus[i]);
	WL_CHECK(p->timing == WL_REPLAY_RECORDED || p->timing == WL_REPLAY_ASAP, "timing %d",
		 (int)p->timing);
	return ktrace_check(&p->t, d);
}

static int replay_params(const void *params, wl_param_fn fn, void *arg)
{
	const struct scn_replay *p = params;
	int rc;
	if ((rc = fn(arg, "workload.trace", p->trace_text, 0)) ||
	    (rc = fn(arg, "workload.timing",
		     p->timing == WL_REPLAY_ASAP ? "asap" : "recorded", 0)))
		return rc;
	return fn(arg, "workload.trace_events", NULL, (long long)p->t.nr);
}

static const char *replay_kernel_model(int iter_post, int slub_post)
{
	static const char *const names[2][2] = {
		{"v4.6+patches1-4 / v5.9", "v4.6+patches1-4 / v5.9+c270cf30"},
		{"v4.6+patches1-4+682a3385 / v5.9", "v4.6+patches1-4+682a3385 / v5.9+c270cf30"},
	};
	return names[iter_post != 0][slub_post != 0];
}

/* --- the run -------------------------------------------------------------- */

struct rpw {
	const struct wl_run *r;
	const struct scn_replay *p;
	const struct machine *m;
	struct wl_replay_result *res;
	struct cpu **cpu;               /* by recorded CPU % nr */
	int *cpu_id;                    /* machine id of the same */
	int nr_cpus;
	uint32_t *gfp;                  /* by string index */
	uint8_t *gfp_done;
	struct keymap page, page_order, obj, large, large_order;
	uint64_t refill, slowpath;      /* the counters' last reading */
	struct wl_replay_class *site;   /* by string index */
	struct keymap cache_slot;       /* slub_cache -> slot */
	struct slow_snap *snap;         /* [slot * nr_cpus + CPU] */
	size_t nr_slots;
};

struct ctr_sum {
	uint64_t refill, slowpath;
};

/* SLUB's slow-path stat items: they move only in slow-path calls (a fast
 * allocation or free moves ALLOC_FASTPATH or FREE_FASTPATH alone), and
 * only in calls on their own CPU, so one reading per (cache, CPU), taken
 * after its last slow-path call, is the reading before the next one. */
static const enum slub_stat slow_items[] = {
	SLUB_ALLOC_SLAB, SLUB_ALLOC_FROM_PARTIAL, SLUB_CPU_PARTIAL_ALLOC, SLUB_ALLOC_REFILL,
	SLUB_FREE_FROZEN, SLUB_CPU_PARTIAL_FREE, SLUB_FREE_ADD_PARTIAL, SLUB_FREE_SLAB,
};
enum { S_SLAB, S_FROM_PARTIAL, S_CPU_PARTIAL_ALLOC, S_REFILL, S_FROZEN, S_CPU_PARTIAL_FREE,
       S_ADD_PARTIAL, S_FREE_SLAB, NR_SLOW };
struct slow_snap {
	uint64_t v[NR_SLOW];
	int valid;
};

static struct ctr_sum read_counters(const struct rpw *w)
{
	struct mm_path_counts c;
	mm_path_counts(w->r->w, &c);
	return (struct ctr_sum){c.pcp_refill, c.slowpath};
}

static uint64_t zone_locks(const struct rpw *w)
{
	struct mm_lock_stats ls;
	mm_lock_stats(w->r->w, &ls);
	return ls.zone_acquisitions;
}

/* One flag name, or a mask; 0 with *ok 0 when unknown. */
static uint32_t gfp_token(const char *s, size_t n, int *ok)
{
	/* the masks and flags of include/linux/gfp.h the v4.6 set of
	 * gfp_parse lacks (the THP masks as v4.8 and later define them);
	 * flags the models do not look at count as known */
	const uint32_t reclaim = __GFP_DIRECT_RECLAIM | __GFP_KSWAPD_RECLAIM;
	const uint32_t thp = (GFP_HIGHUSER_MOVABLE | __GFP_COMP | __GFP_NOMEMALLOC |
			      __GFP_NOWARN) & ~reclaim;
	const struct {
		const char *name;
		uint32_t gfp;
	} alias[] = {
		{"GFP_NOIO", reclaim},
		{"GFP_NOFS", reclaim | __GFP_IO},
		{"GFP_TEMPORARY", reclaim | __GFP_IO | __GFP_FS | __GFP_RECLAIMABLE},
		{"GFP_HIGHUSER", GFP_USER | __GFP_HIGHMEM},
		{"GFP_KERNEL_ACCOUNT", GFP_KERNEL},
		{"GFP_TRANSHUGE_LIGHT", thp},
		{"GFP_TRANSHUGE", thp | __GFP_DIRECT_RECLAIM},
		{"__GFP_RECLAIM", reclaim},
		{"__GFP_ACCOUNT", 0},
		{"__GFP_NOTRACK", 0},
		{"__GFP_NOLOCKDEP", 0},
		{"__GFP_NOACCOUNT", 0},
		{"none", 0},
	};
	char buf[64];
	uint32_t g;
	*ok = 1;
	for (size_t i = 0; i < sizeof alias / sizeof alias[0]; i++)
		if (strlen(alias[i].name) == n && !memcmp(alias[i].name, s, n))
			return alias[i].gfp;
	if (n < sizeof buf) {
		memcpy(buf, s, n);
		buf[n] = '\0';
		if (gfp_parse(buf, &g) == NS_OK)
			return g;
	}
	*ok = 0;
	return 0;
}

/* The event's gfp mask (parsed once per string). */
static uint32_t event_gfp(struct rpw *w, uint32_t si)
{
	if (si >= w->p->t.nr_str)
		return GFP_KERNEL;
	if (w->gfp_done[si])
		return w->gfp[si];
	const char *s = ktrace_str(&w->p->t, si);
	uint32_t g = 0;
	while (*s) {
		const char *e = strchr(s, '|');
		size_t n = e ? (size_t)(e - s) : strlen(s);
		int ok;
		g |= gfp_token(s, n, &ok);
		w->res->gfp_dropped += !ok;
		s += n + (e != NULL);
	}
	w->gfp[si] = g;
	w->gfp_done[si] = 1;
	return g;
}

static void account(struct wl_replay_class *k, uint64_t cycles)
{
	k->calls++;
	k->cycles += cycles;
}

static void account_site(struct rpw *w, uint32_t si, uint64_t cycles)
{
	if (si < w->p->t.nr_str)
		account(&w->site[si], cycles);
}

static void remote(struct rpw *w, int k, int node, int is_page)
{
	int local = node == w->m->cpu_node[w->cpu_id[k]];
	if (is_page)
		*(local ? &w->res->page_local : &w->res->page_remote) += 1;
	else
		*(local ? &w->res->obj_local : &w->res->obj_remote) += 1;
}

static unsigned order_of(uint64_t bytes)
{
	unsigned o = 0;
	while (o + 1 < KT_MAX_ORDER && (4096ull << o) < bytes)
		o++;
	return o;
}

/* alloc_pages of the event (a page event, or kmalloc_large). */
static int page_alloc(struct rpw *w, int k, uint64_t key, uint32_t gfp, unsigned order,
		      struct keymap *map, struct keymap *orders, enum wl_replay_pa *path,
		      uint64_t *cycles)
{
	struct cpu *c = w->cpu[k];
	uint64_t locks = zone_locks(w), t0 = c->now;
	struct page *pg = mm_alloc_pages(w->r->w, c, gfp, order);
	*cycles = c->now - t0;
	int locked = zone_locks(w) != locks;
	*path = WL_PA_PCP;
	if (locked || !pg) {
		struct ctr_sum s = read_counters(w);
		*path = !pg ? WL_PA_FAILED : s.slowpath != w->slowpath ? WL_PA_SLOW
			: s.refill != w->refill ? WL_PA_REFILL : WL_PA_BUDDY;
		w->refill = s.refill;
		w->slowpath = s.slowpath;
	}
	if (!pg)
		return NS_OK;
	remote(w, k, mm_page_node(w->r->w, pg), 1);
	uint64_t old;
	if (keymap_get(map, key, &old)) {
		/* the trace allocated this pfn again without a free in between
		 * (a lost event): the older page is freed, unmeasured */
		uint64_t oo = 0;
		keymap_get(orders, key, &oo);
		mm_free_pages(w->r->w, c, (struct page *)(uintptr_t)old, (unsigned)oo);
		w->res->leftover++;
	}
	if (keymap_put(map, key, (uint64_t)(uintptr_t)pg) || keymap_put(orders, key, order))
		return NS_ENOMEM;
	return NS_OK;
}

/* __free_pages of the page the trace allocated at key; 0 if none. */
static int page_free(struct rpw *w, int k, uint64_t key, struct keymap *map,
		     struct keymap *orders, unsigned *order, enum wl_replay_pf *path,
		     uint64_t *cycles)
{
	uint64_t pg, o = 0;
	if (!keymap_del(map, key, &pg))
		return 0;
	keymap_del(orders, key, &o);
	struct cpu *c = w->cpu[k];
	uint64_t locks = zone_locks(w), t0 = c->now;
	mm_free_pages(w->r->w, c, (struct page *)(uintptr_t)pg, (unsigned)o);
	*cycles = c->now - t0;
	*order = (unsigned)o;
	*path = o ? WL_PF_BUDDY : zone_locks(w) != locks ? WL_PF_DRAIN : WL_PF_PCP;
	return 1;
}

static uint64_t sstat(const struct rpw *w, const struct slub_cache *s, int k, enum slub_stat i)
{
	return slub_stat_at(w->r->sw, s, k, i); /* k indexes r->sys, the SLUB world's cpu_sys */
}

/* The reading of cache s on CPU k before a call (taken now when there is
 * none); NULL when out of memory. */
static struct slow_snap *snap_of(struct rpw *w, const struct slub_cache *s, int k)
{
	uint64_t slot;
	if (!keymap_get(&w->cache_slot, (uint64_t)(uintptr_t)s, &slot)) {
		size_t n = (size_t)w->nr_cpus;
		struct slow_snap *ns = realloc(w->snap, (w->nr_slots + 1) * n * sizeof *ns);
		if (!ns)
			return NULL;
		w->snap = ns;
		memset(ns + w->nr_slots * n, 0, n * sizeof *ns);
		slot = w->nr_slots++;
		if (keymap_put(&w->cache_slot, (uint64_t)(uintptr_t)s, slot))
			return NULL;
	}
	struct slow_snap *p = &w->snap[slot * (size_t)w->nr_cpus + (size_t)k];
	if (!p->valid) {
		for (int i = 0; i < NR_SLOW; i++)
			p->v[i] = sstat(w, s, k, slow_items[i]);
		p->valid = 1;
	}
	return p;
}

/* After a slow-path call: which items moved (bits), the reading renewed. */
static unsigned snap_moved(struct rpw *w, const struct slub_cache *s, int k,
			   struct slow_snap *p)
{
	unsigned moved = 0;
	for (int i = 0; i < NR_SLOW; i++) {
		uint64_t v = sstat(w, s, k, slow_items[i]);
		moved |= (v != p->v[i]) << i;
		p->v[i] = v;
	}
	return moved;
}

/* A call the replay made outside the measured ones (the free of an
 * object whose pointer the trace allocated again): read anew. */
static void snap_forget(struct rpw *w, const struct slub_cache *s, int k)
{
	uint64_t slot;
	if (keymap_get(&w->cache_slot, (uint64_t)(uintptr_t)s, &slot))
		w->snap[slot * (size_t)w->nr_cpus + (size_t)k].valid = 0;
}

static int slab_alloc(struct rpw *w, int k, const struct ktrace_event *e)
{
	struct wl_replay_result *res = w->res;
	struct slub_cache *s = slub_kmalloc_cache(w->r->sw, e->bytes_alloc ? e->bytes_alloc : 1);
	uint64_t cycles;
	if (!s) {               /* kmalloc_large: pages of the size's order */
		enum wl_replay_pa pa;
		int rc = page_alloc(w, k, e->key, event_gfp(w, e->gfp) | __GFP_COMP,
				    order_of(e->bytes_alloc), &w->large, &w->large_order, &pa,
				    &cycles);
		account(&res->slab_alloc[pa == WL_PA_FAILED ? WL_SA_FAILED : WL_SA_LARGE], cycles);
		account_site(w, e->call_site, cycles);
		res->calls++;
		latency_hist_add(&res->alloc_hist, cycles);
		res->cycles += cycles;
		return rc;
	}
	struct slow_snap *snap = snap_of(w, s, k);
	if (!snap)
		return NS_ENOMEM;
	uint64_t fast = sstat(w, s, k, SLUB_ALLOC_FASTPATH);
	int node = e->node >= 0 && w->m->node_index[e->node] >= 0
		? e->node : SLUB_NUMA_NO_NODE;
	struct cpu *c = w->cpu[k];
	uint64_t t0 = c->now;
	slub_obj_t x = slub_alloc(w->r->sw, c, s, node);
	cycles = c->now - t0;
	enum wl_replay_sa path = WL_SA_FAST;
	if (sstat(w, s, k, SLUB_ALLOC_FASTPATH) == fast) {
		unsigned m = snap_moved(w, s, k, snap);
		path = !x ? WL_SA_FAILED : m & 1u << S_SLAB ? WL_SA_NEW_SLAB
			: m & 1u << S_FROM_PARTIAL ? WL_SA_NODE_PARTIAL
			: m & 1u << S_CPU_PARTIAL_ALLOC ? WL_SA_CPU_PARTIAL : WL_SA_REFILL;
	}
	if (x)
		remote(w, k, cache_as_node(slub_obj_addr(w->r->sw, x)), 0);
	account(&res->slab_alloc[path], cycles);
	account_site(w, e->call_site, cycles);
	res->calls++;
	latency_hist_add(&res->alloc_hist, cycles);
	res->cycles += cycles;
	if (!x)
		return NS_OK;
	uint64_t old;
	if (keymap_get(&w->obj, e->key, &old)) {
		/* the trace allocated this pointer again without a free in
		 * between (a lost event): the older object is freed, unmeasured */
		const struct slub_cache *os = slub_obj_cache(w->r->sw, (slub_obj_t)old);
		int rc = slub_free(w->r->sw, c, NULL, (slub_obj_t)old);
		if (rc)
			return rc;
		snap_forget(w, os, k);
		res->leftover++;
	}
	return keymap_put(&w->obj, e->key, x) ? NS_ENOMEM : NS_OK;
}

static int slab_free(struct rpw *w, int k, const struct ktrace_event *e)
{
	struct wl_replay_result *res = w->res;
	uint64_t x, cycles;
	if (!e->key) {
		res->free_null++;
		return NS_OK;
	}
	if (!keymap_del(&w->obj, e->key, &x)) {
		unsigned order;
		enum wl_replay_pf pf;
		if (!page_free(w, k, e->key, &w->large, &w->large_order, &order, &pf, &cycles)) {
			res->free_unknown++;
			return NS_OK;
		}
		account(&res->slab_free[WL_SF_LARGE], cycles);
		account_site(w, e->call_site, cycles);
		res->calls++;
		latency_hist_add(&res->free_hist, cycles);
		res->cycles += cycles;
		return NS_OK;
	}
	struct slub_cache *s = slub_obj_cache(w->r->sw, (slub_obj_t)x);
	struct slow_snap *snap = snap_of(w, s, k);
	if (!snap)
		return NS_ENOMEM;
	uint64_t fast = sstat(w, s, k, SLUB_FREE_FASTPATH);
	struct cpu *c = w->cpu[k];
	uint64_t t0 = c->now;
	int rc = slub_free(w->r->sw, c, NULL, (slub_obj_t)x);
	if (rc)
		return rc;
	cycles = c->now - t0;
	enum wl_replay_sf path = WL_SF_FAST;
	if (sstat(w, s, k, SLUB_FREE_FASTPATH) == fast) {
		unsigned m = snap_moved(w, s, k, snap);
		path = m & 1u << S_FROZEN ? WL_SF_FROZEN
			: m & 1u << S_CPU_PARTIAL_FREE ? WL_SF_CPU_PARTIAL
			: m & 1u << S_FREE_SLAB ? WL_SF_DISCARD
			: m & 1u << S_ADD_PARTIAL ? WL_SF_ADD_PARTIAL : WL_SF_SLOW;
	}
	account(&res->slab_free[path], cycles);
	account_site(w, e->call_site, cycles);
	res->calls++;
	latency_hist_add(&res->free_hist, cycles);
	res->cycles += cycles;
	return NS_OK;
}

static int event(struct rpw *w, const struct ktrace_event *e)
{
	struct wl_replay_result *res = w->res;
	int k = e->cpu % w->nr_cpus;
	uint64_t cycles;
	unsigned order;
	switch ((enum ktrace_kind)e->kind) {
	case KT_MM_PAGE_ALLOC: {
		enum wl_replay_pa pa;
		int rc = page_alloc(w, k, e->key, event_gfp(w, e->gfp), e->order, &w->page,
				    &w->page_order, &pa, &cycles);
		account(&res->page_alloc[e->order][pa], cycles);
		res->calls++;
		latency_hist_add(&res->alloc_hist, cycles);
		res->cycles += cycles;
		return rc;
	}
	case KT_MM_PAGE_FREE:
	case KT_MM_PAGE_FREE_BATCHED: {
		enum wl_replay_pf pf;
		if (!page_free(w, k, e->key, &w->page, &w->page_order, &order, &pf, &cycles)) {
			res->free_unknown++;
			return NS_OK;
		}
		account(&res->page_free[order][pf], cycles);
		res->calls++;
		latency_hist_add(&res->free_hist, cycles);
		res->cycles += cycles;
		return NS_OK;
	}
	case KT_KMEM_CACHE_ALLOC:
	case KT_KMEM_CACHE_ALLOC_NODE:
	case KT_KMALLOC:
	case KT_KMALLOC_NODE:
		return slab_alloc(w, k, e);
	case KT_KMEM_CACHE_FREE:
	case KT_KFREE:
		return slab_free(w, k, e);
	case KT_MM_PAGE_ALLOC_ZONE_LOCKED:
	case KT_MM_PAGE_PCPU_DRAIN:
	case KT_NR_KINDS:
		break;
	}
	res->internal++;
	return NS_OK;
}

/* Free what is still live, unmeasured, on the first CPU (keymap order is
 * the table's, itself a function of the keys only: deterministic). */
static int drain(struct rpw *w)
{
	struct cpu *c = w->cpu[0];
	int rc = NS_OK;
	for (size_t i = 0; i < w->obj.cap && rc == NS_OK; i++)
		if (w->obj.key[i] != KEYMAP_EMPTY) {
			rc = slub_free(w->r->sw, c, NULL, (slub_obj_t)w->obj.val[i]);
			w->res->leftover++;
		}
	struct keymap *maps[2][2] = {{&w->page, &w->page_order}, {&w->large, &w->large_order}};
	for (int m = 0; m < 2; m++)
		for (size_t i = 0; i < maps[m][0]->cap; i++)
			if (maps[m][0]->key[i] != KEYMAP_EMPTY) {
				uint64_t o = 0;
				keymap_get(maps[m][1], maps[m][0]->key[i], &o);
				mm_free_pages(w->r->w, c, (struct page *)(uintptr_t)maps[m][0]->val[i],
					      (unsigned)o);
				w->res->leftover++;
			}
	return rc;
}

static int cmp_site(const void *a, const void *b)
{
	const struct wl_replay_site *x = a, *y = b;
	if (x->c.calls != y->c.calls)
		return x->c.calls > y->c.calls ? -1 : 1;
	return x->call_site < y->call_site ? -1 : x->call_site > y->call_site;
}

/* The WL_REPLAY_TOP_SITES sites with the most calls. */
static void top_sites(struct rpw *w)
{
	struct wl_replay_result *res = w->res;
	for (uint32_t i = 0; i < w->p->t.nr_str; i++) {
		if (!w->site[i].calls)
			continue;
		struct wl_replay_site s = {.call_site = i, .c = w->site[i]};
		if (res->nr_site < WL_REPLAY_TOP_SITES) {
			res->site[res->nr_site++] = s;
		} else if (cmp_site(&s, &res->site[WL_REPLAY_TOP_SITES - 1]) < 0) {
			res->site[WL_REPLAY_TOP_SITES - 1] = s;
		} else {
			continue;
		}
		qsort(res->site, (size_t)res->nr_site, sizeof res->site[0], cmp_site);
	}
	for (int i = 0; i < res->nr_site; i++)
		snprintf(res->site[i].name, sizeof res->site[i].name, "%s",
			 ktrace_str(&w->p->t, res->site[i].call_site));
}

static void rpw_free(struct rpw *w)
{
	free(w->cpu);
	free(w->cpu_id);
	free(w->gfp);
	free(w->gfp_done);
	free(w->site);
	keymap_free(&w->page);
	keymap_free(&w->page_order);
	keymap_free(&w->obj);
	keymap_free(&w->large);
	keymap_free(&w->large_order);
	keymap_free(&w->cache_slot);
	free(w->snap);
}

static int replay_run(const struct wl_run *r, void **result)
{
	const struct scn_replay *p = r->params;
	const struct ktrace *t = &p->t;
	struct wl_replay_result *res = wl_result_alloc(r, sizeof *res, result);
	struct rpw w = {.r = r, .p = p, .m = r->sys->m, .res = res};
	int rc = NS_OK, stopped = 0;
	if (!res)
		return NS_ENOMEM;
	keymap_init(&w.page);
	keymap_init(&w.page_order);
	keymap_init(&w.obj);
	keymap_init(&w.large);
	keymap_init(&w.large_order);
	keymap_init(&w.cache_slot);
	w.nr_cpus = r->sys->nr_cpus;
	w.cpu = calloc((size_t)w.nr_cpus, sizeof *w.cpu);
	w.cpu_id = calloc((size_t)w.nr_cpus, sizeof *w.cpu_id);
	w.gfp = calloc((size_t)t->nr_str + 1, sizeof *w.gfp);
	w.gfp_done = calloc((size_t)t->nr_str + 1, 1);
	w.site = calloc((size_t)t->nr_str + 1, sizeof *w.site);
	if (!w.cpu || !w.cpu_id || !w.gfp || !w.gfp_done || !w.site) {
		rpw_free(&w);
		return wl_run_status(r, NS_ENOMEM, 0);
	}
	uint64_t start = 0;
	for (int i = 0; i < w.nr_cpus; i++) {
		w.cpu[i] = &r->sys->cpu[i];
		w.cpu_id[i] = r->sys->cpu[i].id;
		start = w.cpu[i]->now > start ? w.cpu[i]->now : start;
	}
	struct ctr_sum s0 = read_counters(&w);
	w.refill = s0.refill;
	w.slowpath = s0.slowpath;
	double per_ns = r->sys->k.clock_ghz;
	uint64_t ts0 = t->nr ? t->ev[0].ts_ns : 0;
	progress_work_start(r->work, (long long)t->nr);
	for (size_t i = 0; i < t->nr && rc == NS_OK; i++) {
		const struct ktrace_event *e = &t->ev[i];
		res->events++;
		if ((i & 1023) == 0) {
			if (r->stop && *r->stop) {
				stopped = 1;
				break;
			}
			progress_work_set(r->work, (long long)i);
		}
		if (e->kind == KT_MM_PAGE_ALLOC_ZONE_LOCKED || e->kind == KT_MM_PAGE_PCPU_DRAIN) {
			res->internal++;
			continue;
		}
		if (e->flags & KT_F_SLAB_PAGE) {
			res->slab_pages++;
			continue;
		}
		if (e->flags & KT_F_FAILED) {
			res->recorded_failed++;
			continue;
		}
		if (p->timing == WL_REPLAY_RECORDED && e->ts_ns >= ts0)
			cpu_advance_to(w.cpu[e->cpu % w.nr_cpus],
				       start + (uint64_t)((double)(e->ts_ns - ts0) * per_ns));
		rc = event(&w, e);
	}
	if (rc == NS_OK)
		rc = drain(&w);
	if (rc == NS_OK)
		top_sites(&w);
	rpw_free(&w);
	return wl_run_status(r, rc, stopped);
}

/* --- results ------------------------------------------------------------ */

static int put_class(struct store *st, int64_t id, const char *name,
		     const struct wl_replay_class *k)
{
	char n[200];
	int rc;
	if (!k->calls)
		return NS_OK;
	snprintf(n, sizeof n, "%s.calls", name);
	if ((rc = store_metric(st, id, name, (double)k->cycles / (double)k->calls, "core_cycles/call")))
		return rc;
	return store_metric(st, id, n, (double)k->calls, "count");
}

static double share(uint64_t a, uint64_t b)
{
	return a + b ? (double)a / (double)(a + b) : 0.0;
}

static int replay_results(const void *result, const struct wl_run *r, struct store *st,
			  int64_t id)
{
	const struct wl_replay_result *res = result;
	char name[160];
	int rc = NS_OK;
	(void)r;
	const struct wl_metric rows[] = {
		{"events", "count", (double)res->events},
		{"calls", "count", (double)res->calls},
		{"cycles_per_call", "core_cycles/call",
		 res->calls ? (double)res->cycles / (double)res->calls : 0.0},
		{"free_unknown", "count", (double)res->free_unknown},
		{"free_null", "count", (double)res->free_null},
		{"slab_pages_skipped", "count", (double)res->slab_pages},
		{"internal_events", "count", (double)res->internal},
		{"recorded_failures", "count", (double)res->recorded_failed},
		{"gfp_flags_dropped", "count", (double)res->gfp_dropped},
		{"live_at_end", "count", (double)res->leftover},
		{"remote_share.pages", "fraction", share(res->page_remote, res->page_local)},
		{"remote_share.objects", "fraction", share(res->obj_remote, res->obj_local)},
	};
	if ((rc = wl_store_metrics(st, id, rows, WL_NR(rows))) ||
	    (rc = latency_hist_store(st, id, "alloc_latency_hist", &res->alloc_hist)) ||
	    (rc = latency_hist_store(st, id, "free_latency_hist", &res->free_hist)))
		return rc;
	for (int o = 0; o < KT_MAX_ORDER && rc == NS_OK; o++) {
		for (int pa = 0; pa < WL_RP_NR_PA && rc == NS_OK; pa++) {
			snprintf(name, sizeof name, "alloc_pages.odr%d.%s", o, pa_names[pa]);
			rc = put_class(st, id, name, &res->page_alloc[o][pa]);
		}
		for (int pf = 0; pf < WL_RP_NR_PF && rc == NS_OK; pf++) {
			snprintf(name, sizeof name, "free_pages.odr%d.%s", o, pf_names[pf]);
			rc = put_class(st, id, name, &res->page_free[o][pf]);
		}
	}
	for (int sa = 0; sa < WL_RP_NR_SA && rc == NS_OK; sa++) {
		snprintf(name, sizeof name, "slab_alloc.%s", sa_names[sa]);
		rc = put_class(st, id, name, &res->slab_alloc[sa]);
	}
	for (int sf = 0; sf < WL_RP_NR_SF && rc == NS_OK; sf++) {
		snprintf(name, sizeof name, "slab_free.%s", sf_names[sf]);
		rc = put_class(st, id, name, &res->slab_free[sf]);
	}
	for (int i = 0; i < res->nr_site && rc == NS_OK; i++) {
		snprintf(name, sizeof name, "site.%s", res->site[i].name);
		rc = put_class(st, id, name, &res->site[i].c);
	}
	return rc;
}

const struct workload_ops wl_replay_ops = {
	.name = "replay",
	.fields = replay_fields,
	.nr_fields = NR_R,
	.adhoc = "  type: replay\n",
	.slub = 1,
	.accounting = CPU_ACCOUNTING_EXACT,
	.label_knob = "zonelist_iter",
	.report = WL_REPORT_COMPARE,
	.events = WL_EV_ALL,
	.kernel_model = replay_kernel_model,
	.parse = replay_parse,
	.check = replay_check,
	.params = replay_params,
	.params_free = replay_params_free,
	.run = replay_run,
	.results = replay_results,
};
