/*
 * run — executing a scenario's run plan and storing every run
 * (`numasim run`, design §2): for each (point, repetition) of the plan a
 * fresh world — the page allocator model's cost tables and code layout for
 * the point's kernel variant, simulated CPUs for the CPUs the workload
 * uses, the allocator over the scenario's machine — then the workload, the
 * model's invariant walk (pa_check, cpu_sys_check), and one store
 * transaction with the run's provenance, params, metrics, samples,
 * counters, profile and branch statistics (docs/schema.md).
 *
 * Order and determinism: runs are simulated in plan order (scenario.h:
 * repetition-major); with jobs > 1 several runs are simulated at once, one
 * world per thread, and still written in plan order, so run ids, rows and
 * printed output do not depend on the number of jobs.
 *
 * Failure policy.  A run whose model invariants are broken after the
 * workload (a model bug) is written with status 'failed' and the checker's
 * message, keeping its rows for diagnosis; the remaining runs are not
 * started and run_scenario returns NS_EINTERNAL (exit 1).  When *stop
 * becomes non-zero (Ctrl-C), the runs being simulated are discarded,
 * nothing more is written and RUN_STOPPED is returned; committed runs stay.
 * A database error rolls the current run back (store.h) and is returned.
 *
 * Metric names per (order O, batch N) of the pagealloc workload: the kept
 * samples of alloc-odrO-N, free-odrO-N, total-odrO-N (cycles per page;
 * total = alloc + free of the same sample) in `samples`; in `metrics` their
 * arithmetic mean under the series name and the minimum as NAME.min (unit
 * cycles/op), plus allocs, frees, alloc_failed (count) and timed_cycles
 * (cycles).  The messaging workload (every CPU of the machine, SLUB over
 * the page allocator sharing one address space) stores total_time_s (s),
 * messages, end_cycles, ctx_switches, preemptions, sender_blocks,
 * receiver_blocks, wakeups, events and alloc_failed in `metrics`, and
 * SLUB's counters (slub_counters) besides the page allocator's; a run
 * whose slub_check fails is stored as failed like any invariant break.
 */
#ifndef NUMASIM_RUN_H
#define NUMASIM_RUN_H

#include <signal.h>
#include <stdint.h>
#include <stdio.h>

#include "diag.h"
#include "scenario.h"
#include "store.h"

#define RUN_STOPPED 1
#define RUN_MAX_JOBS 64

struct run_opts {
	int jobs;                         /* worlds simulated at once, >= 1 */
	const char *command;              /* command line, for provenance */
	const volatile sig_atomic_t *stop; /* set asynchronously to stop */
	FILE *progress;                   /* one line per run, or NULL */
};

struct run_outcome {
	long long planned;                /* runs in the plan */
	int nr_stored;                    /* runs written (ok or failed) */
	int nr_failed;
	int64_t *run_ids;                 /* [nr_stored] in plan order */
	double wall_s;                    /* host seconds for the whole plan */
	double sim_s;                     /* host seconds spent simulating */
};

/*
 * Build (and destroy) the world of every point without running anything:
 * what the model refuses to set up is reported before a database is
 * touched (numasim run, numasim validate).
 */
int run_preflight(const struct scenario *s, struct diag *d);

int run_scenario(const struct scenario *s, struct store *st,
		 const struct run_opts *o, struct run_outcome *out,
		 struct diag *d);
void run_outcome_free(struct run_outcome *out);

/*
 * numasim trace: simulate every run of the plan in plan order, one at a
 * time, without a database; fn is called on each built world before its
 * workload (to set hooks) and its non-zero status stops the plan.
 * Returns NS_OK, RUN_STOPPED, the first setup/workload error or
 * NS_EINTERNAL for broken invariants (message in d).
 */
struct pa_world;
struct slub_world;
typedef int (*run_world_fn)(void *arg, const char *point, long long rep,
			    struct pa_world *pa, struct slub_world *sw);
int run_each(const struct scenario *s, const volatile sig_atomic_t *stop,
	     run_world_fn fn, void *arg, struct diag *d);

#endif
