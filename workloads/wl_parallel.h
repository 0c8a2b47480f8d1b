/*
 * wl_parallel — the `parallel` workload: K tasks on chosen CPUs allocating
 * and freeing pages (alloc_pages / __free_pages through the page allocator
 * model, with the point's mempolicy and cpuset) and slab objects (kmalloc /
 * kfree through the SLUB model) at the same time, so that zone->lock and
 * the per-node list_lock are contended in simulated time and remote memory
 * shows up in the cycle counts.
 *
 * What it models: no particular benchmark; a synthetic mix in the spirit of
 * mmtests' page-fault and slab stress tests.  Task i runs on cpus[i %
 * nr_cpus] (several tasks on one CPU take turns: the CPU's clock is shared).
 * Each task does `ops` operations; an operation is, with probability
 * page_share, a page allocation of an order drawn uniformly from orders[],
 * else a kmalloc of a size drawn uniformly from object_sizes[].  Every
 * allocated page or object lives for a number of the owner's later
 * operations drawn from an exponential distribution of mean `lifetime`
 * (at least 1) and is then freed, by the owner or - with probability
 * remote_free - by another task chosen uniformly (the free is charged to
 * that task's CPU at the time it would have happened).  Between two
 * operations a task works for think_cycles cycles on average
 * (exponential); everything still alive at the end is freed by its owner.
 *
 * Invariants: every allocation is freed exactly once (objects and pages
 * allocated == freed at the end, checked by wl_parallel_run before it
 * returns NS_OK); task order on one CPU and all random draws come from the
 * run seed only, so results do not depend on the host.
 *
 * Error policy: NS_EINPUT for parameters the machine cannot satisfy (a CPU
 * that does not exist, an object size no kmalloc cache serves), NS_ENOMEM,
 * RUN_STOPPED-style early return (NS_OK with r->stopped = 1) when *stop
 * becomes non-zero; allocation failures of the simulated kernel are
 * counted, not errors.
 */
#ifndef NUMASIM_WL_PARALLEL_H
#define NUMASIM_WL_PARALLEL_H

#include <signal.h>
#include <stdint.h>

#include "base/diag.h"
#include "workloads/workload.h"

#define WL_PAR_MAX_TASKS 4096
#define WL_PAR_MAX_CPUS 8192
#define WL_PAR_MAX_ORDERS 11
#define WL_PAR_MAX_SIZES 16

struct wl_par_params {
	uint32_t tasks;                   /* K, 1..WL_PAR_MAX_TASKS */
	int nr_cpus;                      /* placement: task i on */
	int cpus[WL_PAR_MAX_CPUS];        /* cpus[i % nr_cpus] (machine ids) */
	uint64_t ops;                     /* operations per task */
	double page_share;                /* 0..1: pages vs objects */
	int nr_orders;
	unsigned orders[WL_PAR_MAX_ORDERS];   /* page orders, uniform */
	int nr_sizes;
	uint32_t object_sizes[WL_PAR_MAX_SIZES]; /* kmalloc sizes, uniform */
	double lifetime;                  /* mean lifetime in owner ops, >= 1 */
	double remote_free;               /* 0..1: share freed by another task */
	double think_cycles;              /* mean work between ops, >= 0 */
	uint32_t gfp;                     /* page allocations' gfp mask */
};
/* Defaults: tasks = nr_cpus (tasks 0 means one task per placement CPU),
 * ops 20000, page_share 0.5, orders {0}, object_sizes {64, 512}, lifetime
 * 16, remote_free 0, think 200 cycles, GFP_KERNEL.  cpus must be filled by
 * the caller.  wl_parallel.c's design notes define an operation and its
 * cost (cycles_per_op) exactly. */
void wl_par_params_default(struct wl_par_params *p);

/* The scenario's parameter block of a parallel point: the parameters and
 * the gfp mask as written (points into the scenario). */
#define SCN_PAR_MAX_OPS 1000000000ll
#define SCN_PAR_MAX_OBJECT 8192   /* KMALLOC_MAX_CACHE_SIZE (2 pages) */
struct wl_par_point {
	struct wl_par_params par;
	const char *gfp_text;
};

struct wl_par_result {
	uint64_t ops, page_allocs, page_frees, obj_allocs, obj_frees;
	uint64_t remote_frees;            /* frees by a task other than the owner */
	uint64_t alloc_failed;
	uint64_t end_cycles;              /* largest CPU clock after the last
					   * operation (before the drain) */
	double cycles_per_op;             /* sum of task cycles / ops */
	uint64_t zone_lock_contended;     /* acquisitions that waited */
	uint64_t zone_lock_wait_cycles;
	uint64_t list_lock_contended;
	uint64_t list_lock_wait_cycles;
	uint64_t events;                  /* engine events */
	int stopped;                      /* *stop was seen */
};

struct mm_world;
struct slub_world;
struct cpu_sys;
struct progress_work;             /* base/progress.h: ops done of tasks x ops */

/*
 * Run the workload on s (built over the CPUs in p->cpus), with the page
 * allocator pa and the SLUB world sw (whose kmalloc caches serve
 * object_sizes); seed selects the random streams.
 */
int wl_parallel_run(struct mm_world *pa, struct slub_world *sw, struct cpu_sys *s,
		    const struct wl_par_params *p, uint64_t seed,
		    const volatile sig_atomic_t *stop, struct progress_work *work,
		    struct wl_par_result *r, struct diag *d);

#endif
