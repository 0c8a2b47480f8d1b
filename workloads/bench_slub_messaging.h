/*
 * bench_slub_messaging — the drivers of `numasim bench slub` and `numasim
 * bench messaging`: run the SLUB model (models/slub.h) and the
 * sched-messaging workload (workloads/wl_messaging.h) with the full cost
 * model and print a report of the simulator's speed.  The command line
 * (options, --help, usage lines) is in cli/cmd_bench_models.c.
 *
 * bench slub: simulated kmalloc-512 alloc+free pairs per host second on
 * two CPUs of different nodes when the machine has two (allocate a batch on
 * the first, free it on the second: the remote-free pattern of messaging),
 * plus simulated cycles per pair.  bench messaging: simulated messages
 * per host second of perf bench sched messaging over every CPU of the
 * machine, with the simulated Total time.
 *
 * Error policy: the run functions return an NS_ status and, on failure,
 * fill d with a printable diagnostic (diag_print) and write nothing to
 * out: a machine file that does not load is the loader's file:line:col
 * diagnostic and status; out of memory, a model or workload failure, a
 * --repeat run that simulated something else than the first, and
 * slub_check or mm_check failures come back with their status (exit 1
 * through ns_status_exit).  The report is written only after every run
 * succeeded and both checks passed.
 */
#ifndef NUMASIM_MSG_BENCH_H
#define NUMASIM_MSG_BENCH_H

#include <stdbool.h>
#include <stdio.h>

#include "base/diag.h"
#include "base/progress.h"
#include "models/slub.h"

/* Ranges of the numeric options; the run functions expect them. */
#define BENCH_SLUB_MAX_PAIRS 1000000000000LL
#define BENCH_SLUB_MAX_BATCH (1 << 20)
#define BENCH_SLUB_MAX_REPEAT 1000
#define BENCH_MESSAGING_MAX_GROUPS 1000
#define BENCH_MESSAGING_MAX_LOOPS 1000000000LL
#define BENCH_MESSAGING_MAX_REPEAT 1000
#define BENCH_SLUB_MAX_SAMPLE_PERIOD 1000000000LL  /* slub and messaging */

struct rec_doc;

struct bench_slub_opts {
	const char *machine;     /* machine file */
	long long pairs;         /* alloc+free pairs per run, 1..MAX_PAIRS */
	long long batch;         /* objects per round, 1..MAX_BATCH */
	long long repeat;        /* runs, each on a fresh world, 1..MAX_REPEAT */
	bool local_free;         /* free on the allocating CPU (--free local) */
	enum slub_variant variant;
	int accounting;          /* enum cpu_accounting (default exact) */
	long long sample_period; /* sampled: 1 call in N exact, 1..MAX_SAMPLE_PERIOD */
	enum cpu_warm sample_warm; /* sampled: what the others warm */
	long long sample_window; /* sampled: the calls before a sample that warm all */
	struct progress_plan *progress;  /* runs and pairs done, or NULL */
	struct rec_doc *doc;     /* --format json|csv: records, not text */
};

struct bench_messaging_opts {
	const char *machine;     /* machine file */
	long long groups;        /* -g, 1..MAX_GROUPS */
	long long loops;         /* -l, 1..MAX_LOOPS */
	long long seed;          /* run seed, >= 0 */
	long long repeat;        /* runs, each on a fresh world, 1..MAX_REPEAT */
	enum slub_variant variant;
	bool placement_v59;      /* --placement v5.9 (numasim run's default for
				  * messaging); false: none, the bench's own
				  * fixed configuration */
	int accounting;          /* enum cpu_accounting (default exact) */
	long long sample_period; /* sampled: 1 call in N exact, 1..MAX_SAMPLE_PERIOD */
	enum cpu_warm sample_warm; /* sampled: what the others warm */
	long long sample_window; /* sampled: the calls before a sample that warm all */
	struct progress_plan *progress;  /* runs and messages done, or NULL */
	struct rec_doc *doc;     /* --format json|csv: records, not text */
};

/* configs/skylake-2s.yaml, 5000000 pairs, batch 64, 1 run, remote frees,
 * variant pre, exact accounting (sampled: cpu_params_default's period and
 * warming). */
void bench_slub_opts_default(struct bench_slub_opts *o);
/* configs/skylake-2s.yaml, 20 groups, 50 loops, seed 1, 1 run, variant pre,
 * placement none, exact accounting (sampled: cpu_params_default's period
 * and warming).  Placement stays none although numasim run's messaging
 * default is v5.9 since 2026-12-07: the bench's simulated figures (Total
 * time, events, context switches) and the speed figures of
 * docs/design/slub-model.md §12 are of this configuration, and it is
 * compared across builds; --placement v5.9 measures what run runs. */
void bench_messaging_opts_default(struct bench_messaging_opts *o);

/* Run the benchmark and write its report to out (see above); d is
 * initialised by the caller (diag_init). */
int bench_slub_run(const struct bench_slub_opts *o, FILE *out, struct diag *d);
int bench_messaging_run(const struct bench_messaging_opts *o, FILE *out, struct diag *d);

#endif
