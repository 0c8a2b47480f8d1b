/*
 * scenario — scenario files (docs/reference/scenario-format.md): which machine, which
 * kernel variant knobs, which workload with which parameters, how many
 * repetitions and which seed, loaded strictly like machine files and
 * expanded into a run plan.
 *
 * What it models: the experiment, not the kernel.  A scenario names a
 * machine file (relative to the scenario file), the kernel knobs of the
 * page allocator model (models/page_alloc.h struct mm_config: the
 * zonelist-iterator variant pre-682a3385 / 682a3385, zonelist order,
 * min_free_kbytes, ...) and of the SLUB model
 * (models/slub.h: slab_free_layout pre-c270cf30 / c270cf30, slub_stats,
 * compiler_layout), and a workload: `pagealloc`, the mmtests page
 * allocator microbenchmark (workloads/wl_pagealloc.h),
 * `messaging`, perf bench sched messaging (workloads/wl_messaging.h), or `parallel` (workloads/wl_parallel.h).
 *
 * Policy (`policy:`): the task's cpuset (none / all / node list: the
 * cpusets_enabled() static key and mems_allowed), its mempolicy (default,
 * local, bind, preferred, interleave with nodes) and the CPUs its tasks
 * run on, resolved into each point's mm_config and placement.
 *
 * Noise (`noise:`): the seeded noise sources of cost/noise.h
 * (page_placement, ticks, pollution and their figures), per point, all
 * off when absent; they are params of a run only when given.
 *
 * Sweeps.  An axis is a dotted key with a list of values: a list under
 * `kernel:` or `overrides:`, an entry of `sweep:` (any scalar of the file:
 * machine, kernel.*, workload.*, policy.*, overrides.*), or --sweep.  The
 * plan's points are the cartesian product of the axes, the first axis
 * varying slowest, so point 0 takes every axis's first value: the
 * baseline of comparisons.  A point's label names the axis values,
 * "zonelist_iter=682a3385" or "zonelist_iter=682a3385,policy.cpuset=all";
 * without axes the label is "zonelist_iter=V" (the model's variant).
 * `overrides:` change values of the machine file (dotted paths); every
 * point has its own resolved world (machine, workload parameters, policy,
 * placement), machines memoised per distinct (file, override values).
 * Runs are points x repetitions, repetition-major (every point's
 * repetition 0, then repetition 1, ...); repetition r of every point uses
 * seed + r, so the variants of one repetition see the same random streams
 * (common random numbers).
 *
 * Invariants (scenario_check): 1 <= nr_points <= SCN_MAX_POINTS and
 * nr_points is the product of the axis lengths; every point has a resolved
 * mm_config, label, machine from the memo and at least one placement CPU
 * of its machine; every axis has at least one value; every point has its
 * workload's parameter block, which the workload's check walks (pagealloc:
 * the task's CPU is the placement, orders < SCN_MAX_ORDER, batches > 0,
 * drop < outer; workloads/wl_NAME.c).  The scenario language knows the
 * workloads only through workloads/workload.h's table (wl).
 *
 * Error policy: every problem in the scenario file is NS_EINPUT with the
 * offending node's file:line:col in the diag; a bad machine file reports
 * the machine file's own position (an overridden value: the override's).
 * Command-line values (--set, --sweep, --machine) are reported as
 * "PROG: error: --set KEY=VALUE: message" without a position.  On failure nothing is returned and
 * nothing stays allocated.  scenario_check returns NS_EINTERNAL on a
 * broken in-memory scenario.
 */
#ifndef NUMASIM_SCENARIO_H
#define NUMASIM_SCENARIO_H

#include <stddef.h>
#include <stdint.h>

#include "base/diag.h"
#include "cost/noise.h"
#include "machine/machine.h"
#include "models/page_alloc.h"
#include "base/sha256.h"
#include "models/slub.h"
#include "scenarios/kchange.h"
#include "workloads/workload.h"

#define SCN_MAX_POINTS 4096       /* points of one plan */
#define SCN_MAX_AXIS_VALUES 256   /* values of one axis */
#define SCN_MAX_REPETITIONS 10000
#define SCN_LIMIT_RUNS 50000        /* plan_limits.runs by default */
#define SCN_LIMIT_MEMORY_MIB 4096   /* plan_limits.memory_mib by default */
#define SCN_LABEL_MAX 512
#define SCN_MAX_OVERRIDES 64      /* machine overrides of one point */

/* Kernel knobs: X(key, kind) with kind 's' (text) or 'i' (integer). */
#define SCN_KNOB_MAP(X)                                                        \
	X(zonelist_iter, 's')                                                  \
	X(zonelist_order, 's')                                                 \
	X(zonelist_cpus_at_build, 's')                                         \
	X(memoryless, 's')                                                     \
	X(min_free_kbytes, 'i')                                                \
	X(watermark_scale_factor, 'i')                                         \
	X(thp_min_free, 's')                                                   \
	X(percpu_pagelist_fraction, 'i')                                      \
	X(slab_free_layout, 's')                                               \
	X(slub_stats, 's')                                                     \
	X(compiler_layout, 's')                                                \
	X(zone_reclaim_mode, 's')                                              \
	X(swap, 's')                                                           \
	X(swappiness, 'i')                                                     \
	X(min_unmapped_ratio, 'i')                                             \
	X(min_slab_ratio, 'i')                                                 \
	X(writeback_cycles, 'i')                                               \
	X(commit, 's')                                                         \
	X(slub_cpu_partial, 's')                                               \
	X(change, 's')

enum scn_knob {
#define SCN_KNOB_ENUM(key, kind) SCN_KNOB_##key,
	SCN_KNOB_MAP(SCN_KNOB_ENUM)
#undef SCN_KNOB_ENUM
	SCN_NR_KNOBS
};
const char *scn_knob_name(enum scn_knob k);

/* The SLUB knobs (slab_free_layout, slub_stats, compiler_layout,
 * slub_cpu_partial: v5.9 | b47291ef02b0 | 23e98ad1ce89) apply to
 * the messaging workload only. */
int scn_knob_is_slub(enum scn_knob k);
/* The reclaim knobs (zone_reclaim_mode, swap, swappiness,
 * min_unmapped_ratio, min_slab_ratio, writeback_cycles) apply to the fill
 * workload only, the one that runs the reclaim model. */
int scn_knob_is_reclaim(enum scn_knob k);

/* The workloads of workloads/workload.h's table, by index. */
#define SCN_WL_ENUM(name, NAME) SCN_WL_##NAME,
enum scn_workload_type { WORKLOAD_TABLE(SCN_WL_ENUM) SCN_NR_WORKLOADS };
#undef SCN_WL_ENUM
const char *scn_workload_name(enum scn_workload_type t);

/* One kernel knob's resolved value at a point. */
struct scn_value {
	const char *text;               /* text knobs: canonical or as written */
	long long num;                  /* integer knobs */
	int set;                        /* given in the file (else default) */
};

/*
 * A sweep axis: a dotted key ("kernel.zonelist_iter", "workload.inner_iterations",
 * "policy.mempolicy", "machine", "overrides.costs.mispredict_cycles") and its
 * values.  knob is the kernel knob for "kernel.*" keys, else -1.
 */
struct scn_axis {
	int knob;                       /* enum scn_knob, or -1 */
	int nr;                         /* values */
	char *key;                      /* dotted key (owned by the scenario) */
	const char *name;               /* in labels: knob name or dotted key */
};

/*
 * One distinct machine of a plan: a machine file plus the `overrides:`
 * applied to it, loaded once however many points use it.  text is the
 * effective machine file (the file's bytes with the override values
 * written in), the one loaded and hashed and stored as runs.machine_text.
 */
struct scn_machine {
	char *ref;                      /* `machine:` as written */
	char *path;                     /* resolved against the scenario's dir */
	char *key;                      /* memo key: path + overrides */
	char *text;                     /* effective machine file */
	size_t text_len;
	char sha256[SHA256_HEX_LEN + 1];
	struct machine *machine;
};

/* The `policy:` section of a point as written (defaults filled in):
 * cpuset "none", mempolicy "default", nodes "" and cpus "" when absent. */
struct scn_policy {
	const char *cpuset, *mempolicy, *nodes, *cpus;
};

/* The `cost:` section of a point: the timing model, the branch
 * predictor, the work layout and the accounting (cost/cpu.h, bpred.h).
 * model scn_default_model()'s (ooo where the machine has the core
 * figures, inorder otherwise), bpred "gshare" and accounting
 * scn_default_accounting()'s when absent;
 * under ooo the predictor defaults to "tage"; sample_period 100,
 * sample_warm "caches" and sample_window 0 (cpu_params_default's) when
 * absent.  model_set / bpred_set / code_set / accounting_set /
 * sample_period_set / sample_warm_set / sample_window_set: given in the
 * file or on the command line (only then
 * are they params of the run, so runs without a cost section keep their
 * params). */
#define SCN_MAX_SAMPLE_PERIOD 1000000000ll  /* cost.sample_period: 1..; sample_window 0.. */
struct scn_cost {
	int model;                      /* enum cpu_model */
	int bpred;                      /* enum bpred_mode */
	int code;                       /* enum mm_code (MM_CODE_DEFAULT: by model) */
	int accounting;                 /* enum cpu_accounting */
	uint32_t sample_period;         /* cost.sample_period (sampled accounting) */
	int sample_warm;                /* cost.sample_warm: enum cpu_warm */
	uint32_t sample_window;         /* cost.sample_window: 0.. (0: none) */
	int model_set, bpred_set, code_set, accounting_set;
	int sample_period_set, sample_warm_set, sample_window_set;
	/* cost.model absent and the machine without core figures: in-order
	 * (numasim run's summary line says so) */
	int model_fallback;
};

/* cost.model when absent: ooo (the out-of-order interval model,
 * docs/design/cost-model.md §2) when the machine's costs have every core figure
 * it needs (cpu_ooo_missing() finds none), inorder otherwise. */
int scn_default_model(const struct machine *m);

/* cost.accounting when absent: memo (the same results as exact, less
 * host time) for the workload pagealloc, exact for the others. */
int scn_default_accounting(int workload);

#define SCN_MAX_AXES 32

/*
 * One point of the plan: everything a run of it needs, resolved.  The
 * pointers point into the scenario (its machine memo, its tree) and live as
 * long as the scenario.
 */
struct scn_point {
	struct mm_config cfg;           /* kernel knobs + policy (cpuset, mempolicy) */
	struct slub_config slub;        /* variant, compiler, stats (as: unset) */
	struct scn_value knob[SCN_NR_KNOBS];
	int axis_value[SCN_MAX_AXES];   /* value index per axis */
	char label[SCN_LABEL_MAX];      /* "zonelist_iter=682a3385" */
	char column[SCN_LABEL_MAX];     /* table header: "682a3385" */
	const char *kernel_model;       /* "v4.6+patches1-4", ... */
	char kernel_model_buf[SCN_LABEL_MAX]; /* kernel_model when composed */
	char commit_text[48];           /* kernel.commit as given, canonical:
					 * "ID" or "MMID+SLUBID" */

	/* the point's world */
	const struct scn_machine *mach; /* machine file + overrides (memoised) */
	const struct machine *machine;  /* == mach->machine */
	const char *machine_ref;        /* == mach->ref, mach->path, ... */
	const char *machine_path;
	const char *machine_text;
	size_t machine_text_len;
	const char *machine_sha256;
	void *params;                   /* the workload's parameter block
					 * (workloads/wl_NAME.h) */
	enum scn_placement {            /* sched.placement */
		SCN_PLACEMENT_NONE = 0, /* tasks stay where forked */
		SCN_PLACEMENT_V59,      /* select_task_rq_fair, load balancing
					 * (the default) */
	} sched_placement;
	struct scn_policy policy;       /* policy texts (params) */
	struct scn_cost cost;           /* cost.model, .bpred, .code, .accounting, .sample_* */
	/* noise: the seeded noise sources (cost/noise.h), all off when the
	 * section is absent; noise_set: a noise key was given (only then are
	 * they params of the run, so runs without one keep their params) */
	struct noise_params noise;
	int noise_set;
	/* Task placement (policy.cpus, machine CPU ids, at least one):
	 * pagealloc: { pa.cpu }; messaging: policy.cpus or every CPU of the
	 * machine; parallel: policy.cpus or every CPU (task i on cpus[i % n]). */
	int nr_cpus;
	int *cpus;
	/* kernel.change: the code-change files (scenarios/kchange.h) applied
	 * in order on top of the commit, and their block edits, which
	 * cfg.block_changes and slub.block_changes point to; change_text
	 * is the knob's value ("NAME@SHA12+..."), a run parameter only when
	 * set */
	int nr_changes;
	struct kchange **changes;
	int nr_block_changes;
	struct cpu_block_change *block_changes;
	char change_text[SCN_LABEL_MAX];
};

struct scenario {
	char *path;                     /* as given ("-" = stdin) */
	char *name, *description;
	char *text;                     /* the file's bytes + "\n# --set K=V" per
					 * option (NUL-terminated); sha256 is its hash */
	size_t text_len;
	char sha256[SHA256_HEX_LEN + 1];
	/* Point 0's machine and workload parameters (for printing; runs use
	 * the point's own): pointers into the machine memo. */
	const char *machine_ref;
	const char *machine_path;
	const char *machine_text;
	size_t machine_text_len;
	const char *machine_sha256;
	struct machine *machine;
	enum scn_workload_type workload;  /* one per plan (not sweepable) */
	const struct workload_ops *wl;    /* == workload_table[workload] */
	long long repetitions;
	uint64_t seed;
	/* plan_limits: a plan of more runs, or whose memory is estimated at
	 * more MiB, is only started with `run --yes` (cli/cmd_run.c) */
	long long limit_runs, limit_memory_mib;
	int nr_axes;
	struct scn_axis axes[SCN_MAX_AXES];
	int nr_machines;                /* distinct machines of the plan */
	struct scn_machine *machines;   /* [nr_machines] */
	int nr_points;
	struct scn_point *points;       /* [nr_points] */
	struct ytree *tree;             /* the parsed file; texts point into it */
	int nr_cli_args;                /* "--set K=V", "--sweep K=V1,V2", */
	char **cli_args;                /* "--machine M": in sha256 and errors */
	int nr_cli;                     /* their values parsed as YAML */
	struct ytree **cli_trees;
};

/*
 * Command-line settings (numasim run/validate/trace --set, --sweep,
 * --machine): text is "KEY=VALUE", "KEY=V1,V2,..." or the machine path.
 * prog prefixes errors about them: "numasim run: error: --set K=V: ...".
 */
enum scn_arg_kind { SCN_ARG_SET, SCN_ARG_SWEEP, SCN_ARG_MACHINE };
struct scn_arg {
	enum scn_arg_kind kind;
	const char *text;
};
struct scn_opts {
	const char *prog;
	int nr_args;
	struct scn_arg *args;
};

/* Load, check and expand a scenario file (and its machine); "-" = stdin. */
int scenario_load_file(const char *path, struct scenario **out, struct diag *d);
/* The same from a buffer; name is used in messages and for relative paths. */
int scenario_load_buf(const char *name, const char *buf, size_t len,
		      struct scenario **out, struct diag *d);
/*
 * With command-line settings (o may be NULL): --set values replace the
 * file's value or axis of their key, --sweep values make (or replace) an
 * axis.  The scenario's sha256 is then that of the file's bytes followed,
 * per option in order, by "\n--set KEY=VALUE" ("\n--sweep ...").
 */
int scenario_load_file_opts(const char *path, const struct scn_opts *o,
			    struct scenario **out, struct diag *d);
/* path is used for relative machine paths, its display name in messages. */
int scenario_load(const char *path, const char *buf, size_t len,
		  const struct scn_opts *o, struct scenario **out, struct diag *d);
/* The scenario "adhoc" of `--machine M --workload W` (docs/reference/scenario-format.md). */
int scenario_load_adhoc(const char *machine, const char *workload,
			const struct scn_opts *o, struct scenario **out,
			struct diag *d);
void scenario_free(struct scenario *s);
int scenario_check(const struct scenario *s, struct diag *d);

/* Override the inner iteration count (numasim run --inner). */
void scenario_set_inner(struct scenario *s, uint32_t inner);

/*
 * The lowest point whose runs are this point's runs: every sweep axis has
 * the same value but kernel.commit, whose two commits behave as one
 * (kcommit_effective(), per tree: the commits between them change nothing
 * the model executes).  Points differ only by their axis values, so such
 * points build the same world and give the same rows for the same seed.
 * p itself when no earlier point is its twin.
 */
int scenario_point_twin(const struct scenario *s, int p);

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

/*
 * The keys a scenario file, --set and --sweep accept, from the loader's
 * own field tables (so shell completion and `numasim list keys` cannot
 * drift from what the loader takes): name, description, machine, seed,
 * repetitions, kernel.<knob>, policy.<key>, then workload.<param> of every
 * workload (each key once, first the pagealloc workload's).  overrides.PATH
 * is a machine-file path and not listed.  The keys are written into buf
 * (cap bytes, each NUL-terminated) and keys[i] (i < max) points at key i;
 * returns the number of keys when buf holds them all (~700 bytes; a
 * smaller buf gives at least the keys it held): more than max means call
 * again with more room.
 */
int scenario_keys(char *buf, size_t cap, const char **keys, int max);

/* Is the YAML tree root of a file a scenario (has a `workload` key)? */
struct ynode;
int scenario_is_scenario_root(const struct ynode *root);

#endif
