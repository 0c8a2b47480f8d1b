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

#include <stdlib.h>
#include <string.h>

#include "base/diag.h"
#include "base/progress.h"

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

static void run_series(struct mm_world *w, struct cpu *c,
		       const struct scn_pagealloc *p, unsigned order,
		       struct page **pages, uint32_t slots_per_line,
		       const volatile sig_atomic_t *stop,
		       struct progress_work *work, long long *iters,
		       struct wl_pagealloc_series *sr,
		       struct wl_pagealloc_result *r, int *stopped)
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
				if (pages[i])
					mm_free_pages(w, c, pages[i], order);
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
	}
}

int wl_pagealloc_run(struct mm_world *w, struct cpu *c,
		     const struct scn_pagealloc *p,
		     const volatile sig_atomic_t *stop, struct progress_work *work,
		     struct wl_pagealloc_result *r)
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
		run_series(w, c, p, r->series[s].order, pages, slots_per_line, stop,
			   work, &iters, &r->series[s], r, &stopped);
		if (!stopped)
			r->nr_series = s + 1;
	}
	if (stopped)
		rc = WL_STOPPED;
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
