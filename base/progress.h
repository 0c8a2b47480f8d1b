/*
 * progress — the progress bar of long commands (`numasim run`, `trace`,
 * `bench`): units (runs) done of the total, the share of the work done,
 * the rate (runs per second, or seconds per run when runs are slow), the
 * estimated time to completion, redrawn in place with a carriage return
 * at most PROGRESS_MIN_INTERVAL_S apart, like the bars of rsync or apt.
 *
 * Progress within a run: the thread simulating a run publishes its work
 * done in a struct progress_work (a relaxed atomic store per inner
 * iteration or per few thousand events: no locking, no ordering, nothing
 * the hot loops would notice); a progress_ticker thread polls the
 * caller's counters every PROGRESS_MIN_INTERVAL_S and redraws, so a plan
 * of one long run shows its share done and an ETA instead of a blank
 * terminal.
 *
 * The caller decides whether a bar is wanted (the terminal tests and
 * --quiet are the commands'); progress_update/format take the clock
 * (monotonic seconds), so the formatting and the throttling are testable
 * and deterministic; only the ticker reads the clock itself.  The rate
 * counts only the work done since progress_init (runs skipped by --resume
 * do not inflate it).
 *
 * Invariants (progress_check): 0 <= base <= done <= total, 0 <= part <=
 * total - done.  The displayed amount never goes backwards.  Error policy:
 * output errors on the terminal are ignored (a bar is a courtesy); a
 * ticker that cannot start its thread draws nothing (NS_ENOMEM).
 */
#ifndef NUMASIM_PROGRESS_H
#define NUMASIM_PROGRESS_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>

#define PROGRESS_MIN_INTERVAL_S 0.1
#define PROGRESS_WIDTH 78          /* characters of a drawn line */

struct progress {
	FILE *f;              /* the terminal, or NULL: draw nothing */
	long long total;      /* units of the whole plan */
	long long base;       /* units already done at start (skipped) */
	long long done;       /* whole units finished */
	double part;          /* units in flight, done in part (0..total-done) */
	double shown;         /* done + part last drawn (never goes back) */
	double t0;            /* clock at progress_init */
	double last_draw;     /* clock of the last drawing, < 0: never */
	int drawn;            /* a line is on the terminal */
};

void progress_init(struct progress *p, FILE *f, long long total,
		   long long base, double now);
/* done units now; redraws unless drawn less than the interval ago. */
void progress_update(struct progress *p, long long done, double now);
/* The same with `part` units of the runs in flight done as well. */
void progress_update_part(struct progress *p, long long done, double part,
			  double now);
/* Erase the bar (the caller prints its summary line afterwards). */
void progress_finish(struct progress *p);
/* The bar's text at time now, without the carriage return. */
void progress_format(const struct progress *p, double now, char *buf,
		     size_t len);
/* NS_OK, or NS_EINTERNAL when an invariant is broken. */
int progress_check(const struct progress *p);
/* Monotonic seconds (the ticker's clock). */
double progress_clock(void);

/*
 * One run's work, written by the thread simulating it, read by the
 * ticker.  total 0: nothing known (the run counts as not started).
 */
struct progress_work {
	atomic_llong done, total;
};
void progress_work_init(struct progress_work *w);
/* A run starts: total units of work (0 clears), none done. */
void progress_work_start(struct progress_work *w, long long total);
/* done units of the run so far; w may be NULL (nobody watches). */
static inline void progress_work_set(struct progress_work *w, long long done)
{
	if (w)
		atomic_store_explicit(&w->done, done, memory_order_relaxed);
}
/* The run's share done, 0..1. */
double progress_work_fraction(struct progress_work *w);

/*
 * A plan simulated one run at a time (numasim trace, bench): runs
 * finished and the work of the current one.  progress_plan_poll is its
 * progress_poll_fn (arg: the plan).
 */
struct progress_plan {
	atomic_llong runs_done;
	struct progress_work work;
};
void progress_plan_init(struct progress_plan *pp);
/* The current run finished (its work no longer counts in flight). */
void progress_plan_run_done(struct progress_plan *pp);
void progress_plan_poll(void *arg, long long *done, double *part);

/*
 * The ticker: every PROGRESS_MIN_INTERVAL_S, poll(arg, &done, &part) and
 * redraw p.  Between start and stop the ticker alone draws p; stop joins
 * it and draws the final state once (the caller then progress_finish-es).
 */
typedef void (*progress_poll_fn)(void *arg, long long *done, double *part);
struct progress_ticker {
	struct progress *p;
	progress_poll_fn poll;
	void *arg;
	pthread_t th;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int running, stop;
};
/* Does nothing (NS_OK) when p->f is NULL. */
int progress_ticker_start(struct progress_ticker *t, struct progress *p,
			  progress_poll_fn poll, void *arg);
void progress_ticker_stop(struct progress_ticker *t);

#endif
