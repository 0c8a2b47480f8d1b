/*
 * wl_pagealloc — the mmtests pagealloc harness; see wl_pagealloc.h.
 *
 * Design notes.  The only state is the result and the pages[] array of the
 * largest batch, both allocated before the first timed block, so the hot
 * loops (tens of millions of alloc/free pairs) do no allocation and no
 * string work: per page one model call and, once per cache line of
 * pages[], one simulated memory access.  The accumulators are uint64_t like
 * the script's `unsigned long` on x86_64, and the divisions are C integer
 * divisions in the script's order, so the samples are exactly what the
 * script would print for the simulated cycle counts.
 */
#include "workloads/wl_pagealloc.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/diag.h"
#include "base/progress.h"
#include "analysis/store.h"

int scn_pagealloc_batches(const struct scn_pagealloc *p, unsigned order,
			  uint32_t *out)
{
	if (p->nr_batches > 0) {
		memcpy(out, p->batches, (size_t)p->nr_batches * sizeof *out);
		return p->nr_batches;
	}
	/* pagealloc-bench: "double while batch < (128 MiB / 4096) >> order" */
	int n = 0;
	uint32_t limit = SCN_PA_BATCH_LIMIT_PAGES >> order;
	for (uint32_t b = 1; b < limit && n < SCN_MAX_BATCHES; b *= 2)
		out[n++] = b;
	if (n == 0)
		out[n++] = 1;
	return n;
}

/*
 * One series.  nz is the run's noise (NULL: none): its ticks are polled
 * between two top-level calls and its pollution runs between two samples.
 * The loop is instantiated twice (run_series_quiet and run_series_noisy),
 * so that a run without noise executes no poll at all.
 */
static inline __attribute__((always_inline)) void
run_series_impl(struct mm_world *w, struct cpu *c, const struct scn_pagealloc *p,
		unsigned order, struct page **pages, uint32_t slots_per_line,
		const volatile sig_atomic_t *stop, struct progress_work *work,
		long long *iters, struct wl_pagealloc_series *sr,
		struct wl_pagealloc_result *r, int *stopped, struct noise *nz)
{
	const uint32_t n = sr->batch, n1 = n + 1;
	uint64_t cycles_alloc = 0, cycles_free = 0;

	for (uint32_t o = 0; o < p->outer; o++) {
		for (uint32_t it = 0; it < p->inner; it++) {
			if (stop && *stop) {
				*stopped = 1;
				return;
			}
			/* the work is the allocations: an iteration of batch
			 * 16384 costs 8000 of batch 1 */
			*iters += n1;
			progress_work_set(work, *iters);
			/* cond_resched(): outside the timed blocks */
			uint64_t t0 = cpu_tsc(c);
			for (uint32_t i = 0; i < n1; i++) {
				pages[i] = mm_alloc_pages(w, c, p->gfp, order);
				if (nz)
					noise_poll(nz);
				if (i % slots_per_line == 0)
					cpu_mem(c, WL_PAGEALLOC_ARRAY_ADDR +
						(uint64_t)i * sizeof(void *),
						sizeof(void *), c->node, CPU_STORE);
				r->alloc_failed += pages[i] == NULL;
			}
			uint64_t t1 = cpu_tsc(c);
			cycles_alloc += t1 - t0 + p->timing_overhead;
			for (uint32_t i = 0; i < n1; i++) {
				if (i % slots_per_line == 0)
					cpu_mem(c, WL_PAGEALLOC_ARRAY_ADDR +
						(uint64_t)i * sizeof(void *),
						sizeof(void *), c->node, CPU_LOAD_DEP);
				if (pages[i]) {
					mm_free_pages(w, c, pages[i], order);
					if (nz)
						noise_poll(nz);
				}
			}
			uint64_t t2 = cpu_tsc(c);
			cycles_free += t2 - t1 + p->timing_overhead;
			r->timed_cycles += t2 - t0;
			r->allocs += n1;
			r->frees += n1;
		}
		cycles_alloc = cycles_alloc / p->inner / n;
		cycles_free = cycles_free / p->inner / n;
		sr->alloc[o] = cycles_alloc;
		sr->free[o] = cycles_free;
		/* between two samples: the other tasks' cache pollution */
		if (nz)
			noise_pollute(nz);
	}
}

static void run_series_quiet(struct mm_world *w, struct cpu *c, const struct scn_pagealloc *p,
			     unsigned order, struct page **pages, uint32_t slots_per_line,
			     const volatile sig_atomic_t *stop, struct progress_work *work,
			     long long *iters, struct wl_pagealloc_series *sr,
			     struct wl_pagealloc_result *r, int *stopped)
{
	run_series_impl(w, c, p, order, pages, slots_per_line, stop, work, iters, sr, r,
			stopped, NULL);
}

static void run_series_noisy(struct mm_world *w, struct cpu *c, const struct scn_pagealloc *p,
			     unsigned order, struct page **pages, uint32_t slots_per_line,
			     const volatile sig_atomic_t *stop, struct progress_work *work,
			     long long *iters, struct wl_pagealloc_series *sr,
			     struct wl_pagealloc_result *r, int *stopped, struct noise *nz)
{
	run_series_impl(w, c, p, order, pages, slots_per_line, stop, work, iters, sr, r,
			stopped, nz);
}

int wl_pagealloc_run(struct mm_world *w, struct cpu *c,
		     const struct scn_pagealloc *p,
		     const volatile sig_atomic_t *stop, struct progress_work *work,
		     struct noise *nz, struct wl_pagealloc_result *r)
{
	long long iters = 0;
	uint32_t batches[SCN_MAX_ORDER][SCN_MAX_BATCHES];
	int nb[SCN_MAX_ORDER];
	uint32_t max_batch = 0;
	struct page **pages = NULL;
	int nr = 0, stopped = 0, rc = NS_OK;
	uint32_t line = (uint32_t)c->sys->m->costs.line_size.value;
	uint32_t slots_per_line = line >= sizeof(void *) ? line / sizeof(void *) : 1;

	memset(r, 0, sizeof *r);
	r->outer = p->outer;
	r->drop = p->drop;
	for (int o = 0; o < p->nr_orders; o++) {
		nb[o] = scn_pagealloc_batches(p, p->orders[o], batches[o]);
		nr += nb[o];
		for (int b = 0; b < nb[o]; b++)
			if (batches[o][b] > max_batch)
				max_batch = batches[o][b];
	}
	r->series = calloc((size_t)nr, sizeof *r->series);
	r->values = calloc((size_t)nr * 2 * p->outer, sizeof *r->values);
	pages = calloc((size_t)max_batch + 1, sizeof *pages);
	if (!r->series || !r->values || !pages) {
		rc = NS_ENOMEM;
		goto out;
	}
	for (int o = 0, s = 0; o < p->nr_orders; o++)
		for (int b = 0; b < nb[o]; b++, s++) {
			struct wl_pagealloc_series *sr = &r->series[s];
			sr->order = p->orders[o];
			sr->batch = batches[o][b];
			sr->alloc = r->values + (size_t)s * 2 * p->outer;
			sr->free = sr->alloc + p->outer;
		}
	long long total = 0;
	for (int s = 0; s < nr; s++)
		total += ((long long)r->series[s].batch + 1) * p->outer * p->inner;
	progress_work_start(work, total);
	for (int s = 0; s < nr && !stopped; s++) {
		if (nz)
			run_series_noisy(w, c, p, r->series[s].order, pages, slots_per_line,
					 stop, work, &iters, &r->series[s], r, &stopped, nz);
		else
			run_series_quiet(w, c, p, r->series[s].order, pages, slots_per_line,
					 stop, work, &iters, &r->series[s], r, &stopped);
		if (!stopped)
			r->nr_series = s + 1;
	}
	if (stopped)
		rc = WL_STOPPED;
	if (nz) {
		r->noise = 1;
		r->ticks = nz->ticks;
		r->polluted_lines = nz->polluted_lines;
	}
out:
	free(pages);
	if (rc == NS_ENOMEM)
		wl_pagealloc_result_free(r);
	return rc;
}

void wl_pagealloc_result_free(struct wl_pagealloc_result *r)
{
	free(r->series);
	free(r->values);
	memset(r, 0, sizeof *r);
}

/* ---- the scenario section `workload: {type: pagealloc}` and the run ---- */

static int parse_batches(const struct wl_reader *r, const struct ynode *n,
			 struct scn_pagealloc *p)
{
	int rc;
	if ((rc = ytree_expect_seq(wl_tree(r, n), n, "'batches'", r->d)))
		return rc;
	if (n->nr == 0)
		return wl_err(r, n, "'batches' must list at least one batch size "
			   "(leave it out for mmtests' default 1, 2, 4, ...)");
	if (n->nr > SCN_MAX_BATCHES)
		return wl_err(r, n, "'batches' lists %zu sizes; at most %d are allowed",
			   n->nr, SCN_MAX_BATCHES);
	p->nr_batches = 0;
	for (size_t i = 0; i < n->nr; i++) {
		uint32_t b;
		if ((rc = wl_get_u32(r, n->items[i], "batch size", 1, SCN_MAX_BATCH, &b)))
			return rc;
		for (int j = 0; j < p->nr_batches; j++)
			if (p->batches[j] == b)
				return wl_err(r, n->items[i], "batch size %u is listed twice", b);
		p->batches[p->nr_batches++] = b;
	}
	return NS_OK;
}

enum { W_TYPE, W_ORDERS, W_BATCHES, W_INNER, W_OUTER, W_DROP, W_GFP, W_CPU,
       W_OVERHEAD, NR_W };

static const struct ytree_field pagealloc_fields[NR_W] = {
	[W_TYPE] = {"type", 1},
	[W_ORDERS] = {"orders", 0},
	[W_BATCHES] = {"batches", 0},
	[W_INNER] = {"inner_iterations", 0},
	[W_OUTER] = {"outer_samples", 0},
	[W_DROP] = {"drop_samples", 0},
	[W_GFP] = {"gfp", 0},
	[W_CPU] = {"cpu", 0},
	[W_OVERHEAD] = {"timing_overhead_cycles", 0},
};

static int pagealloc_parse(const struct wl_reader *r, const struct ynode *n,
			   struct wl_point *pt)
{
	const struct ytree_field *const fields = pagealloc_fields;
	struct scn_pagealloc *p = calloc(1, sizeof *p);
	const struct machine *m = pt->machine;
	const struct ynode *v[NR_W];
	long long cpu;
	int rc;

	if (!p)
		return wl_nomem(r);
	pt->params = p;
	if ((rc = r->fields(r->ctx, n, "workload 'pagealloc'", fields,
				 NR_W, v)))
		return rc;
	p->nr_orders = 1;
	p->orders[0] = 0;
	p->inner = SCN_PA_INNER_DEFAULT;
	p->outer = SCN_PA_OUTER_DEFAULT;
	p->drop = SCN_PA_DROP_DEFAULT;
	p->gfp_text = SCN_PA_GFP_DEFAULT;
	p->timing_overhead = SCN_PA_TIMING_OVERHEAD_DEFAULT;
	if (v[W_ORDERS] && (rc = wl_get_orders(r, v[W_ORDERS], SCN_MAX_ORDER, p->orders, &p->nr_orders)))
		return rc;
	if (v[W_BATCHES] && (rc = parse_batches(r, v[W_BATCHES], p)))
		return rc;
	if (v[W_INNER] && (rc = wl_get_u32(r, v[W_INNER], "inner_iterations", 1,
					100000000, &p->inner)))
		return rc;
	if (v[W_OUTER] && (rc = wl_get_u32(r, v[W_OUTER], "outer_samples", 1, 100000,
					&p->outer)))
		return rc;
	if (v[W_DROP] && (rc = wl_get_u32(r, v[W_DROP], "drop_samples", 0, 100000,
				       &p->drop)))
		return rc;
	if (p->drop >= p->outer)
		return wl_err(r, v[W_DROP] ? v[W_DROP] : n,
			   "drop_samples (%u) must be less than outer_samples (%u): "
			   "no sample would be kept", p->drop, p->outer);
	if ((rc = wl_get_gfp(r, v[W_GFP], n, &p->gfp_text, &p->gfp)))
		return rc;
	if (v[W_CPU] && *pt->nr_cpus)
		return wl_err(r, v[W_CPU], "give the task's CPU either as workload.cpu or "
			   "as policy.cpus, not both");
	if (v[W_CPU]) {
		if ((rc = ytree_int(wl_tree(r, v[W_CPU]), v[W_CPU], "cpu", 0,
				    MACHINE_MAX_CPUS - 1, &cpu, r->d)))
			return rc;
		if (cpu > m->max_cpu || m->cpu_node[cpu] < 0)
			return wl_err(r, v[W_CPU], "CPU %lld is not a CPU of machine '%s' "
				   "(%d CPUs)", cpu, m->name, m->nr_cpus);
		p->cpu = (int)cpu;
	} else if (*pt->nr_cpus) {
		p->cpu = (*pt->cpus)[0];
	} else {
		p->cpu = -1;
		for (int c = 0; c <= m->max_cpu && p->cpu < 0; c++)
			if (m->cpu_node[c] >= 0)
				p->cpu = c;
		if (p->cpu < 0)
			return wl_err(r, n, "machine '%s' has no CPU to run the workload on",
				   m->name);
	}
	if (v[W_OVERHEAD] && (rc = wl_get_u32(r, v[W_OVERHEAD], "timing_overhead_cycles",
					   0, 1000000, &p->timing_overhead)))
		return rc;
	if (*pt->nr_cpus) {        /* policy.cpus: the task runs on the first */
		*pt->nr_cpus = 1;
	} else {                    /* placement: the one task's CPU */
		(*pt->cpus) = malloc(sizeof *(*pt->cpus));
		if (!(*pt->cpus))
			return wl_nomem(r);
		(*pt->cpus)[0] = p->cpu;
		*pt->nr_cpus = 1;
	}
	return NS_OK;
}


static int pagealloc_check(const void *params, const struct machine *m, int nr_cpus,
			   const int *cpus, const char *path, struct diag *d)
{
	const struct scn_pagealloc *pa = params;
	WL_CHECK(pa->cpu >= 0 && pa->cpu <= m->max_cpu && m->cpu_node[pa->cpu] >= 0,
	      "workload CPU %d not in the machine", pa->cpu);
	WL_CHECK(nr_cpus == 1 && cpus[0] == pa->cpu, "pagealloc placement");
	WL_CHECK(pa->nr_orders >= 1 && pa->nr_orders <= SCN_MAX_ORDER, "%d orders",
	      pa->nr_orders);
	for (int i = 0; i < pa->nr_orders; i++)
		WL_CHECK(pa->orders[i] < SCN_MAX_ORDER, "order %u", pa->orders[i]);
	WL_CHECK(pa->nr_batches >= 0 && pa->nr_batches <= SCN_MAX_BATCHES,
	      "%d batches", pa->nr_batches);
	for (int i = 0; i < pa->nr_batches; i++)
		WL_CHECK(pa->batches[i] >= 1 && pa->batches[i] <= SCN_MAX_BATCH,
		      "batch %u", pa->batches[i]);
	WL_CHECK(pa->inner >= 1 && pa->outer >= 1 && pa->drop < pa->outer,
	      "inner %u outer %u drop %u", pa->inner, pa->outer, pa->drop);
	return NS_OK;
}

#define P_TEXT(k, t) do { if ((rc = fn(arg, (k), (t), 0))) return rc; } while (0)
#define P_NUM(k, n) do { if ((rc = fn(arg, (k), NULL, (long long)(n)))) return rc; } while (0)

static int pagealloc_params(const void *params, wl_param_fn fn, void *arg)
{
	const struct scn_pagealloc *pa = params;
	char buf[1024];
	int rc;
	wl_list_text(pa->orders, NULL, pa->nr_orders, buf, sizeof buf);
	P_TEXT("workload.orders", buf);
	if (pa->nr_batches) {
		wl_list_text(NULL, pa->batches, pa->nr_batches, buf, sizeof buf);
		P_TEXT("workload.batches", buf);
	} else {
		P_TEXT("workload.batches", "mmtests");
	}
	P_NUM("workload.inner_iterations", pa->inner);
	P_NUM("workload.outer_samples", pa->outer);
	P_NUM("workload.drop_samples", pa->drop);
	P_TEXT("workload.gfp", pa->gfp_text);
	P_NUM("workload.gfp_mask", pa->gfp);
	P_NUM("workload.cpu", pa->cpu);
	P_NUM("workload.timing_overhead_cycles", pa->timing_overhead);
	return NS_OK;
}
#undef P_TEXT
#undef P_NUM

static void pagealloc_set_inner(void *params, uint32_t inner)
{
	((struct scn_pagealloc *)params)->inner = inner;
}

static const char *pagealloc_kernel_model(int post, int slub_post)
{
	(void)slub_post;
	return post ? "v4.6+patches1-4+682a3385" : "v4.6+patches1-4";
}

static int pagealloc_run(const struct wl_run *r, void **result)
{
	const struct scn_pagealloc *pa = r->params;
	struct wl_pagealloc_result *res = wl_result_alloc(r, sizeof *res, result);
	struct cpu *c = cpu_sys_cpu(r->sys, pa->cpu);
	struct noise nz;
	int rc;
	if (!res)
		return NS_ENOMEM;
	if (!r->noise || (!r->noise->ticks && !r->noise->pollution))
		return wl_pagealloc_run(r->w, c, pa, r->stop, r->work, NULL, res);
	if ((rc = noise_init(&nz, r->noise, c, r->seed)))
		return diag_set(r->d, rc, r->path, 0, 0, "point %s: cannot set up the noise "
				"sources: %s", r->label, ns_status_msg(rc));
	rc = wl_pagealloc_run(r->w, c, pa, r->stop, r->work, &nz, res);
	if (rc == NS_OK && noise_check(&nz))
		rc = diag_set(r->d, NS_EINTERNAL, r->path, 0, 0, "point %s: the noise "
			      "sources' invariants are broken after the run", r->label);
	noise_fini(&nz);
	return rc;
}

static void pagealloc_result_free(void *result)
{
	wl_pagealloc_result_free(result);
	free(result);
}

/* One (op, order, batch) series: samples, mean and min per op. */
static int put_series(struct store *st, int64_t id, const char *op, unsigned order,
		      uint32_t batch, const double *v, size_t n)
{
	char name[64], mname[80];
	double sum = 0, min = v[0];
	int rc;
	for (size_t i = 0; i < n; i++) {
		min = v[i] < min ? v[i] : min;
		sum += v[i];
	}
	snprintf(name, sizeof name, "%s-odr%u-%" PRIu32, op, order, batch);
	snprintf(mname, sizeof mname, "%s.min", name);
	if ((rc = store_samples(st, id, name, v, n)) ||
	    (rc = store_metric(st, id, name, sum / (double)n, "tsc_ticks/op")))
		return rc;
	return store_metric(st, id, mname, min, "tsc_ticks/op");
}

static int pagealloc_results(const void *result, const struct wl_run *r,
			     struct store *st, int64_t id)
{
	const struct wl_pagealloc_result *res = result;
	size_t kept = res->outer - res->drop;
	double *a = malloc(3 * kept * sizeof *a);
	int rc = NS_OK;
	(void)r;
	if (!a)
		return NS_ENOMEM;
	for (int s = 0; s < res->nr_series && rc == NS_OK; s++) {
		const struct wl_pagealloc_series *sr = &res->series[s];
		double *fr = a + kept, *to = a + 2 * kept;
		for (size_t i = 0; i < kept; i++) {
			a[i] = (double)sr->alloc[res->drop + i];
			fr[i] = (double)sr->free[res->drop + i];
			to[i] = a[i] + fr[i];
		}
		if ((rc = put_series(st, id, "alloc", sr->order, sr->batch, a, kept)) ||
		    (rc = put_series(st, id, "free", sr->order, sr->batch, fr, kept)))
			break;
		rc = put_series(st, id, "total", sr->order, sr->batch, to, kept);
	}
	free(a);
	if (rc)
		return rc;
	if ((rc = store_metric(st, id, "allocs", (double)res->allocs, "count")) ||
	    (rc = store_metric(st, id, "frees", (double)res->frees, "count")) ||
	    (rc = store_metric(st, id, "alloc_failed", (double)res->alloc_failed,
			       "count")))
		return rc;
	if ((rc = store_metric(st, id, "timed_cycles", (double)res->timed_cycles, "tsc_ticks")))
		return rc;
	if (!res->noise)
		return NS_OK;
	if ((rc = store_metric(st, id, "noise_ticks", (double)res->ticks, "count")))
		return rc;
	return store_metric(st, id, "noise_polluted_lines", (double)res->polluted_lines,
			    "count");
}

const struct workload_ops wl_pagealloc_ops = {
	.name = "pagealloc",
	.fields = pagealloc_fields,
	.nr_fields = NR_W,
	.adhoc = ("  type: pagealloc\n  orders: [0]\n  batches: [1, 8, 64, 512]\n"
		  "  inner_iterations: 20\n"),
	/* memo gives exact's results bit for bit; it pays where the top-level
	 * calls repeat their paths (the page allocator's: 16-27 % less CPU
	 * time on the shipped pagealloc scenarios) and costs more where the
	 * models read the clock inside calls (SLUB and the scheduler: 22 %
	 * more on seed-slub; reclaim: 4 % more on zone-reclaim), measured on
	 * 2026-12-02 (docs/design/cost-model.md §9); the others keep exact */
	.accounting = CPU_ACCOUNTING_MEMO,
	.noise = 1,
	.label_knob = "zonelist_iter",
	.report = WL_REPORT_TABLE,
	.events = WL_EV_PAGE_ALLOC | WL_EV_PAGE_FREE,
	.kernel_model = pagealloc_kernel_model,
	.parse = pagealloc_parse,
	.check = pagealloc_check,
	.params = pagealloc_params,
	.set_inner = pagealloc_set_inner, .inner_default = SCN_PA_INNER_DEFAULT,
	.run = pagealloc_run,
	.results = pagealloc_results,
	.result_free = pagealloc_result_free,
};
