/*
 * wl_fill — the `fill` workload: tasks on chosen CPUs allocate and touch
 * more memory than their node has free, as anonymous and page-cache pages
 * on the v4.6 LRU lists (models/vmscan.h), and then access it; optionally a
 * node is first pre-filled with clean page cache, as on a machine that has
 * been up for a while.  It asks "local node full: spill to the remote node
 * or reclaim locally?" of the page allocator with the reclaim model.
 *
 * What it models: no particular benchmark; the allocation side of a task
 * faulting in its memory (alloc_pages(GFP_HIGHUSER_MOVABLE) per page, then
 * lru_cache_add as do_anonymous_page or add_to_page_cache_lru do, then the
 * first write to the page) and a later pass of reads over what it kept.
 * Task i runs on cpus[i]; kswapd of each node runs on that node's kswapd
 * CPU (the caller adds one CPU per memory node after the task CPUs).
 *
 * Invariants: every page the workload allocated is released by the end
 * (by its task, or reclaimed by the model); the event order and all draws
 * come from the run seed only.
 *
 * Error policy: NS_EINPUT for a prefill node that is not a memory node of
 * the machine or a task CPU that is not simulated, NS_ENOMEM; NS_OK with
 * r->stopped = 1 when *stop becomes non-zero.  Allocation failures of the
 * simulated kernel (OOM) are counted, not errors.
 */
#ifndef NUMASIM_WL_FILL_H
#define NUMASIM_WL_FILL_H

#include <signal.h>
#include <stdint.h>

#include "analysis/latency_hist.h"
#include "base/diag.h"
#include "workloads/workload.h"

#define WL_FILL_MAX_TASKS 256
#define WL_FILL_MAX_SAMPLES 200

struct wl_fill_params {
	int nr_cpus;                  /* tasks: task i on cpus[i] */
	int cpus[WL_FILL_MAX_TASKS];
	double pages;                 /* allocations per task, as a multiple of
				       * its node's free pages after the prefill */
	double anon;                  /* share of anonymous pages, 0..1 */
	double dirty;                 /* share of the page-cache pages written */
	uint64_t lifetime;            /* a page is released after this many of
				       * its task's later allocations (0: kept) */
	uint32_t passes;              /* read passes over the kept pages */
	int prefill_node;             /* node id, -1: no prefill */
	double prefill_file;          /* share of its managed pages, 0..1 */
	uint32_t gfp;
};
/* Defaults: pages 1.5, anon 1, dirty 0, lifetime 0, passes 1, no
 * prefill, GFP_HIGHUSER_MOVABLE. */
void wl_fill_params_default(struct wl_fill_params *p);

/* The scenario's parameter block of a fill point: the parameters and the
 * gfp mask as written (points into the scenario). */
struct wl_fill_point {
	struct wl_fill_params fill;
	const char *gfp_text;
};

struct wl_fill_result {
	uint64_t allocs, alloc_failed, remote_pages, released;
	uint64_t reclaimed_owned;     /* the tasks' pages reclaimed by the kernel */
	uint64_t reclaimed_prefill;   /* prefill page cache reclaimed */
	uint64_t prefill_pages;
	uint64_t lat_p50, lat_p99, lat_max; /* cycles of one alloc_pages */
	double lat_mean;
	struct latency_hist lat_hist;     /* the same, log2 buckets */
	uint64_t direct_reclaim_cycles;   /* in try_to_free_pages, task CPUs */
	uint64_t zone_reclaim_cycles;     /* in zone_reclaim, task CPUs */
	double reclaim_cycles_per_alloc;  /* (direct + zone) / allocs */
	uint64_t kswapd_cycles, kswapd_steps;
	uint64_t local_accesses, remote_accesses, refaults;
	double access_cycles_local, access_cycles_remote; /* per access */
	uint64_t end_cycles, events;
	/* LRU sizes of the first task's node over simulated time */
	int nr_samples;
	double sample_cycles[WL_FILL_MAX_SAMPLES];
	double sample_lru[4][WL_FILL_MAX_SAMPLES];   /* enum mm_lru_list */
	double sample_free[WL_FILL_MAX_SAMPLES];
	/* the same per zone of that node ("0/Normal") */
	int nr_sample_zones;
	char sample_zone[4][24];
	double sample_zone_lru[4][4][WL_FILL_MAX_SAMPLES];
	int stopped;
};

struct mm_world;
struct cpu_sys;
struct progress_work;

int wl_fill_run(struct mm_world *w, struct cpu_sys *s, const struct wl_fill_params *p,
		uint64_t seed, const volatile sig_atomic_t *stop, struct progress_work *work,
		struct wl_fill_result *r, struct diag *d);

#endif
