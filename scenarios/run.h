/*
 * run — executing a scenario's run plan and storing every run
 * (`numasim run`, design §2): for each (point, repetition) of the plan a
 * fresh world — the page allocator model's cost tables and code layout for
 * the point's kernel variant, simulated CPUs for the CPUs the workload
 * uses, the allocator over the scenario's machine — then the workload, the
 * model's invariant walk (mm_check, cpu_sys_check), and one store
 * transaction with the run's provenance, params, metrics, samples,
 * counters, profile and branch statistics (docs/reference/schema.md).
 *
 * Order and determinism: runs are simulated in plan order (scenario.h:
 * repetition-major); with jobs > 1 several runs are simulated at once, one
 * world per thread, and still written in plan order, so run ids, rows and
 * printed output do not depend on the number of jobs.
 *
 * Resuming (opts.resume): a (point, repetition) of the plan that already
 * has a run with status 'ok' in the database, with the same scenario hash
 * (runs.scenario_sha256: the effective hash, scenario.h) and the point's
 * machine hash, is not run again; its newest such run stands for it in
 * run_ids, so the table covers the whole plan.  Runs that failed or were
 * never committed are run again.  The list of pending runs keeps plan order and
 * seeds (a run's seed depends on its plan index only), so a resumed plan
 * ends with the same rows as an uninterrupted one.
 *
 * Distribution (opts.mpi, run_mpi.h): every rank calls run_scenario with
 * the same scenario; rank 0 passes the database, the others NULL.
 * Position j of the list of pending runs is simulated by rank j % size; rank 0
 * writes every run in pending-list order, so the rows equal a serial run's
 * (except host and timestamps).  Only rank 0 fills *out's ids.
 *
 * Durability: each run is one transaction (store.h), or, with group
 * commit (opts.commit_runs > 1), one savepoint in its group's transaction,
 * so an interrupt, even SIGKILL or a power loss, leaves only whole runs:
 * committed ones with status 'ok' or 'failed', never one with status
 * 'running'.  A crash loses the open group, whole runs that --resume runs
 * again; Ctrl-C, a failed run and the plan's end commit it.  A group is
 * committed when its time (commit_ms) is up even while the main thread
 * waits for a worker's simulation (jobs > 1); with one job the main
 * thread simulates inline and commits before a run that would take the
 * group past its time if it lasted as long as the run before (a run much
 * longer than its predecessor can hold the group up to its own length:
 * the price of no thread hand-off per run).  Under MPI the runs
 * of other ranks are imported in their own transactions (each first
 * commits the open group).
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
 * The parallel workload (workloads/wl_parallel.h; SLUB over the page
 * allocator as for messaging, tasks on the point's placement CPUs) stores
 * ops, cycles_per_op (cycles/op), end_cycles, page_allocs, page_frees,
 * obj_allocs, obj_frees, remote_frees, alloc_failed, zone_lock_contended,
 * zone_lock_wait_cycles, list_lock_contended, list_lock_wait_cycles and
 * events (docs/design/policies.md §5), and both models' counters.
 */
#ifndef NUMASIM_RUN_H
#define NUMASIM_RUN_H

#include <signal.h>
#include <stdint.h>
#include <stdio.h>

#include "base/diag.h"
#include "scenarios/scenario.h"
#include "analysis/store.h"

#define RUN_STOPPED 1
#define RUN_MAX_JOBS 64

struct progress;
struct run_mpi;

struct run_opts {
	int jobs;                         /* worlds simulated at once, >= 1 */
	const char *command;              /* command line, for provenance */
	const char *invocation;           /* runs.invocation; NULL: the store's
					     (under MPI: rank 0's host:pid) */
	const volatile sig_atomic_t *stop; /* set asynchronously to stop */
	struct progress *bar;             /* progress bar (its f set), or NULL;
					     run_scenario inits and erases it;
					     a ticker thread draws it, with the
					     share done of the runs in flight */
	int resume;                       /* skip runs the database holds */
	int simulate_all;                 /* simulate a point that is another's
					     twin too (scenario_point_twin();
					     default: its runs are written
					     from the twin's simulation) */
	int charges;                      /* store profile_charges (cpu_params
					     charge_kinds; memo runs exact) */
	struct run_mpi *mpi;              /* spread over MPI ranks, or NULL */
	int commit_runs;                  /* group commit (store_set_group): up
					     to this many runs per transaction;
					     <= 1: one transaction per run */
	int commit_ms;                    /* ... and commit a group this long
					     after its first run finished, even
					     while the next run is simulated;
					     0: no time bound */
};

struct run_outcome {
	long long planned;                /* runs in the plan */
	long long nr_skipped;             /* already in the database (--resume) */
	int nr_stored;                    /* runs written (ok or failed) */
	int nr_failed;
	int nr_twins;                     /* of nr_stored: written from an
					     earlier point's simulation */
	int64_t first_stored, last_stored; /* run ids of the first/last written */
	int64_t *run_ids;                 /* [nr_ids] the plan's runs in plan
					     order: kept (--resume) and written */
	int nr_ids;
	double wall_s;                    /* host seconds for the whole plan */
	double sim_s;                     /* host seconds simulating (rank 0) */
};

/*
 * Build (and destroy) the world of every point without running anything:
 * what the model refuses to set up is reported before a database is
 * touched (numasim run, numasim validate).  The page allocator is built
 * without its memmap (mm_world_validate: the same refusals but host
 * memory), so a point costs ~0.1 ms, not a world.
 */
int run_preflight(const struct scenario *s, struct diag *d);

/*
 * The size of a plan before it starts (numasim run asks for --yes above
 * the scenario's plan_limits): run_plan_bytes is the bookkeeping
 * run_scenario allocates up front for `planned` runs; run_world_bytes
 * builds the world of the point with the most simulated CPUs, as a run
 * builds it (memmap included, before its workload touches any page), and
 * gives the heap it took (glibc's mallinfo2: every arena and mmapped
 * block).  A world grows while its workload runs (struct pages are
 * allocated as the workload touches memory), so this is a lower bound of
 * what each job holds.
 */
size_t run_plan_bytes(long long planned);
int run_world_bytes(const struct scenario *s, size_t *bytes, struct diag *d);
/*
 * The same for the points p with p % size == rank (an MPI rank's share;
 * rank 0, size 1: all) on `jobs` threads; the error reported is the one
 * of the lowest failing point, as in run_preflight.  numasim run spreads
 * this over its jobs and ranks.
 */
int run_preflight_share(const struct scenario *s, int jobs, int rank, int size,
			struct diag *d);

int run_scenario(const struct scenario *s, struct store *st,
		 const struct run_opts *o, struct run_outcome *out,
		 struct diag *d);
void run_outcome_free(struct run_outcome *out);

/*
 * numasim trace: simulate every run of the plan in plan order, one at a
 * time, without a database; fn is called on each built world before its
 * workload (to set hooks) and its non-zero status stops the plan.  *stop
 * is polled by the workloads: RUN_CUT ends the current run there (it is
 * dropped without its invariant walk: the tracer has what it wanted;
 * fn resets *stop for the next run), any other non-zero value stops the
 * plan.  Returns NS_OK, RUN_STOPPED, the first setup/workload error or
 * NS_EINTERNAL for broken invariants (message in d).  bar (its f set, or
 * NULL) shows the runs done and the current run's share, drawn by a
 * ticker thread; run_each inits and erases it.
 */
#define RUN_CUT 2
struct mm_world;
struct slub_world;
typedef int (*run_world_fn)(void *arg, const char *point, long long rep,
			    struct mm_world *pa, struct slub_world *sw);
int run_each(const struct scenario *s, const volatile sig_atomic_t *stop,
	     run_world_fn fn, void *arg, struct progress *bar, struct diag *d);

#endif
