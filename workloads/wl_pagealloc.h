/*
 * wl_pagealloc — the mmtests "pagealloc" microbenchmark as a workload
 * (stap-scripts/pagealloc-micro.stp
 * and ExtractPagealloc.pm of mmtests 35eb2d39, April 2016).
 *
 * For every order and every batch size N, in that order, on one CPU of one
 * world (allocator state carries over from one batch size to the next, as
 * it does on a real kernel between the script's module loads):
 *
 *     cycles_alloc = cycles_free = 0
 *     repeat outer times:
 *         repeat inner times:
 *             cond_resched()                  (not timed, not modelled)
 *             t = rdtsc; N+1 x alloc_pages(gfp, order) into pages[];
 *             cycles_alloc += rdtsc - t
 *             t = rdtsc; N+1 x if (pages[i]) __free_pages(pages[i], order);
 *             cycles_free += rdtsc - t
 *         cycles_alloc = cycles_alloc / inner / N     (integer divisions,
 *         cycles_free  = cycles_free  / inner / N      NOT reset afterwards)
 *         sample: alloc = cycles_alloc, free = cycles_free
 *
 * "rdtsc - t" of a timed block is the simulated cycles the block took on
 * the CPU plus timing_overhead_cycles (the two rdtsc and the loop set-up,
 * which the model does not execute).  Time unit: the TSC ticks at the
 * nominal clock and the machine's clock_ghz is the nominal clock, so
 * simulated cycles are TSC ticks.  The pages[] array (vmalloc'ed in the
 * script) is a simulated object on the CPU's node: the loops touch it one
 * cache line at a time (its first slot), so its footprint competes with
 * struct pages in the simulated caches.
 *
 * Results: per (order, batch) the outer samples of alloc and free per page
 * (total = alloc + free is derived by the caller); the first `drop` are
 * kept here too and marked by result.drop.
 *
 * Error policy: NS_ENOMEM when the result arrays cannot be allocated;
 * WL_STOPPED when *stop became non-zero (checked once per inner
 * iteration); allocation failures of the simulated kernel are counted, not
 * errors.  Nothing is printed.
 */
#ifndef NUMASIM_WL_PAGEALLOC_H
#define NUMASIM_WL_PAGEALLOC_H

#include <signal.h>
#include <stdint.h>

#include "cost/cpu.h"
#include "cost/noise.h"
#include "models/page_alloc.h"
#include "workloads/workload.h"

#define SCN_MAX_BATCHES 64
#define SCN_MAX_BATCH (1u << 24)  /* pages of one batch */

/* mmtests pagealloc defaults (pagealloc-bench.md §2) */
#define SCN_PA_INNER_DEFAULT 10000
#define SCN_PA_OUTER_DEFAULT 15
#define SCN_PA_DROP_DEFAULT 2
#define SCN_PA_GFP_DEFAULT "GFP_KERNEL|__GFP_NOWARN"
/* Batch sizes double while batch < (128 MiB / 4096) >> order. */
#define SCN_PA_BATCH_LIMIT_PAGES ((128u << 20) / 4096u)
/*
 * The fixed cost of one timed block (two rdtsc and the loop set-up) in TSC
 * ticks.  Estimate, see docs/reference/scenario-format.md "timing_overhead_cycles":
 * one rdtsc's execution lies inside every timed interval (Agner Fog's
 * instruction tables: RDTSC ~24-25 cycles reciprocal throughput on
 * Haswell/Broadwell), plus ~1 cycle of loop set-up; the fit of the published
 * N = 1, 2 points gives 18..32 (pagealloc-bench.md §3.1).
 */
#define SCN_PA_TIMING_OVERHEAD_DEFAULT 25

/* The pagealloc workload's parameters (pagealloc-bench.md §2). */
struct scn_pagealloc {
	int nr_orders;
	unsigned orders[SCN_MAX_ORDER];
	int nr_batches;                 /* 0: mmtests' default per order */
	uint32_t batches[SCN_MAX_BATCHES];
	uint32_t inner;                 /* PARAM_ITERATIONS_INNER */
	uint32_t outer;                 /* PARAM_ITERATIONS_OUTER */
	uint32_t drop;                  /* samples dropped by ExtractPagealloc */
	uint32_t gfp;
	const char *gfp_text;           /* as written (points into the scenario) */
	int cpu;                        /* machine CPU the task runs on */
	uint32_t timing_overhead;       /* cycles added to every timed block */
};

/*
 * The batch sizes used for order o: the listed ones, or mmtests' default
 * 1, 2, 4, ... while batch < SCN_PA_BATCH_LIMIT_PAGES >> o.  Returns the
 * count written to out (at most SCN_MAX_BATCHES).
 */
int scn_pagealloc_batches(const struct scn_pagealloc *p, unsigned order,
			  uint32_t *out);

/* x86_64 v4.6 VMALLOC_START: where the simulated pages[] array lives. */
#define WL_PAGEALLOC_ARRAY_ADDR 0xffffc90000000000ull

struct wl_pagealloc_series {
	unsigned order;
	uint32_t batch;
	uint64_t *alloc, *free;           /* [outer] cycles per page, as printed */
};

struct wl_pagealloc_result {
	uint32_t outer, drop;
	int nr_series;
	struct wl_pagealloc_series *series;
	uint64_t *values;                 /* backing store of the sample arrays */
	uint64_t alloc_failed;            /* alloc_pages returned NULL */
	uint64_t allocs, frees;           /* calls made */
	uint64_t timed_cycles;            /* simulated cycles inside timed blocks */
	int noise;                        /* run with ticks or pollution */
	uint64_t ticks, polluted_lines;   /* what they did (cost/noise.h) */
};

/* Run the benchmark of p on CPU c of world w.  work (NULL: none) gets
 * the allocations done of all series' (base/progress.h), updated once
 * per inner iteration.  nz (NULL: none) is the noise of the run, set up
 * on c (cost/noise.h): its ticks are polled after every alloc_pages and
 * __free_pages call, its pollution runs after every sample. */
struct progress_work;
int wl_pagealloc_run(struct mm_world *w, struct cpu *c,
		     const struct scn_pagealloc *p,
		     const volatile sig_atomic_t *stop, struct progress_work *work,
		     struct noise *nz, struct wl_pagealloc_result *r);
void wl_pagealloc_result_free(struct wl_pagealloc_result *r);

#endif
