/*
 * scenario — scenario files (docs/scenario-format.md): which machine, which
 * kernel variant knobs, which workload with which parameters, how many
 * repetitions and which seed, loaded strictly like machine files and
 * expanded into a run plan.
 *
 * What it models: the experiment, not the kernel.  A scenario names a
 * machine file (relative to the scenario file), the kernel knobs of the
 * page allocator model (models/pagealloc.h struct pa_config: the
 * zonelist-iterator variant pre-682a3385 / 682a3385, cpusets, the task's
 * mems_allowed, zonelist order, min_free_kbytes, ...) and of the SLUB model
 * (models/slub.h: slab_free_layout pre-c270cf30 / c270cf30, slub_stats,
 * compiler_layout), and a workload: `pagealloc`, the mmtests page
 * allocator microbenchmark of shared/reference/pagealloc-bench.md, or
 * `messaging`, perf bench sched messaging (shared/reference/
 * sched-messaging.md).
 *
 * Sweeps.  Any value under `kernel:` may be a list instead of a scalar;
 * each list is an axis and the plan's points are the cartesian product of
 * the axes, the first-listed axis varying slowest, so point 0 takes every
 * axis's first value: the baseline of comparisons.  A point's label names
 * the axis values, "zonelist_iter=682a3385" or
 * "zonelist_iter=682a3385,cpusets=on"; without axes the label is
 * "zonelist_iter=V" (the model's variant).  Runs are points x repetitions,
 * repetition-major (every point's repetition 0, then repetition 1, ...);
 * repetition r of every point uses seed + r, so the variants of one
 * repetition see the same random streams (common random numbers).
 *
 * Invariants (scenario_check): 1 <= nr_points <= SCN_MAX_POINTS and
 * nr_points is the product of the axis lengths; every point has a resolved
 * pa_config and label; every axis has at least one value (a one-element
 * list is an axis of one value); the workload's CPU belongs to a node of
 * the machine; orders < SCN_MAX_ORDER, batches > 0; drop < outer.
 *
 * Error policy: every problem in the scenario file is NS_EINPUT with the
 * offending node's file:line:col in the diag; a bad machine file reports
 * the machine file's own position.  On failure nothing is returned and
 * nothing stays allocated.  scenario_check returns NS_EINTERNAL on a
 * broken in-memory scenario.
 */
#ifndef NUMASIM_SCENARIO_H
#define NUMASIM_SCENARIO_H

#include <stddef.h>
#include <stdint.h>

#include "diag.h"
#include "machine.h"
#include "pagealloc.h"
#include "sha256.h"
#include "slub.h"

#define SCN_MAX_POINTS 4096       /* points of one plan */
#define SCN_MAX_AXIS_VALUES 256   /* values of one axis */
#define SCN_MAX_ORDER 11          /* MAX_ORDER of x86_64 v4.6: orders 0..10 */
#define SCN_MAX_BATCHES 64
#define SCN_MAX_BATCH (1u << 24)  /* pages of one batch */
#define SCN_MAX_REPETITIONS 10000
#define SCN_LABEL_MAX 512

/* mmtests pagealloc defaults (pagealloc-bench.md §2) */
#define SCN_PA_INNER_DEFAULT 10000
#define SCN_PA_OUTER_DEFAULT 15
#define SCN_PA_DROP_DEFAULT 2
#define SCN_PA_GFP_DEFAULT "GFP_KERNEL|__GFP_NOWARN"
/* Batch sizes double while batch < (128 MiB / 4096) >> order. */
#define SCN_PA_BATCH_LIMIT_PAGES ((128u << 20) / 4096u)
/*
 * The fixed cost of one timed block (two rdtsc and the loop set-up) in TSC
 * ticks.  Estimate, see docs/scenario-format.md "timing_overhead_cycles":
 * one rdtsc's execution lies inside every timed interval (Agner Fog's
 * instruction tables: RDTSC ~24-25 cycles reciprocal throughput on
 * Haswell/Broadwell), plus ~1 cycle of loop set-up; the fit of the published
 * N = 1, 2 points gives 18..32 (pagealloc-bench.md §3.1).
 */
#define SCN_PA_TIMING_OVERHEAD_DEFAULT 25

/* Kernel knobs: X(key, kind) with kind 's' (text) or 'i' (integer). */
#define SCN_KNOB_MAP(X)                                                        \
	X(zonelist_iter, 's')                                                  \
	X(cpusets, 's')                                                        \
	X(mems_allowed, 's')                                                   \
	X(zonelist_order, 's')                                                 \
	X(zonelist_cpus_at_build, 's')                                         \
	X(memoryless, 's')                                                     \
	X(min_free_kbytes, 'i')                                                \
	X(watermark_scale_factor, 'i')                                         \
	X(thp_min_free, 's')                                                   \
	X(percpu_pagelist_fraction, 'i')                                      \
	X(slab_free_layout, 's')                                               \
	X(slub_stats, 's')                                                     \
	X(compiler_layout, 's')

enum scn_knob {
#define SCN_KNOB_ENUM(key, kind) SCN_KNOB_##key,
	SCN_KNOB_MAP(SCN_KNOB_ENUM)
#undef SCN_KNOB_ENUM
	SCN_NR_KNOBS
};
const char *scn_knob_name(enum scn_knob k);

/* The SLUB knobs (slab_free_layout, slub_stats, compiler_layout) apply to
 * the messaging workload only. */
int scn_knob_is_slub(enum scn_knob k);

enum scn_workload_type { SCN_WL_PAGEALLOC, SCN_WL_MESSAGING };
const char *scn_workload_name(enum scn_workload_type t);

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

/*
 * The messaging workload's parameters (perf bench sched messaging, socket
 * mode: scenarios/wl_messaging.h).  The cost estimates not listed here
 * keep wl_msg_params_default()'s values.
 */
#define SCN_MSG_MAX_GROUPS 1000
#define SCN_MSG_MAX_LOOPS 1000000000ll
struct scn_messaging {
	uint32_t groups;                /* -g */
	uint64_t loops;                 /* -l */
	uint32_t inflight_limit;        /* messages per connection (278) */
	uint32_t send_cycles, recv_cycles, ctx_switch_cycles;
};

/* One kernel knob's resolved value at a point. */
struct scn_value {
	const char *text;               /* text knobs: canonical or as written */
	long long num;                  /* integer knobs */
	int set;                        /* given in the file (else default) */
};

struct scn_axis {
	enum scn_knob knob;
	int nr;                         /* values */
};

struct scn_point {
	struct pa_config cfg;
	struct slub_config slub;        /* variant, compiler, stats (as: unset) */
	struct scn_value knob[SCN_NR_KNOBS];
	int axis_value[SCN_NR_KNOBS];   /* value index per axis */
	char label[SCN_LABEL_MAX];      /* "zonelist_iter=682a3385" */
	char column[SCN_LABEL_MAX];     /* table header: "682a3385" */
	const char *kernel_model;       /* "v4.6+patches1-4", ... */
};

struct scenario {
	char *path;                     /* as given ("-" = stdin) */
	char *name, *description;
	char *text;                     /* the file's bytes, NUL-terminated */
	size_t text_len;
	char sha256[SHA256_HEX_LEN + 1];
	char *machine_ref;              /* `machine:` as written */
	char *machine_path;             /* resolved against the scenario's dir */
	char *machine_text;
	size_t machine_text_len;
	char machine_sha256[SHA256_HEX_LEN + 1];
	struct machine *machine;
	enum scn_workload_type workload;
	struct scn_pagealloc pa;
	struct scn_messaging msg;
	long long repetitions;
	uint64_t seed;
	int nr_axes;
	struct scn_axis axes[SCN_NR_KNOBS];
	int nr_points;
	struct scn_point *points;       /* [nr_points] */
	struct ytree *tree;             /* the parsed file; texts point into it */
};

/* Load, check and expand a scenario file (and its machine); "-" = stdin. */
int scenario_load_file(const char *path, struct scenario **out, struct diag *d);
/* The same from a buffer; name is used in messages and for relative paths. */
int scenario_load_buf(const char *name, const char *buf, size_t len,
		      struct scenario **out, struct diag *d);
void scenario_free(struct scenario *s);
int scenario_check(const struct scenario *s, struct diag *d);

/* Override the inner iteration count (numasim run --inner). */
void scenario_set_inner(struct scenario *s, uint32_t inner);

/* Runs of the plan, and the (point, repetition, seed) of run i. */
long long scenario_nr_runs(const struct scenario *s);
void scenario_run_at(const struct scenario *s, long long i, int *point,
		     long long *repetition, uint64_t *seed);

/*
 * The flattened parameters of a point (every scenario value, defaults
 * filled in): name, machine, machine.name, kernel.<knob>,
 * workload.<param>, repetitions, seed.  fn gets either text (num ignored)
 * or, when text is NULL, the integer num; a non-zero return stops.
 */
typedef int (*scn_param_fn)(void *arg, const char *key, const char *text,
			    long long num);
int scenario_params(const struct scenario *s, int point, scn_param_fn fn,
		    void *arg);

/* Is the YAML tree root of a file a scenario (has a `workload` key)? */
struct ynode;
int scenario_is_scenario_root(const struct ynode *root);

#endif
