/*
 * progress — the progress bar of long commands (`numasim run`): runs
 * done of the total, the rate in runs per second, the estimated time to
 * completion, redrawn in place with a carriage return at most
 * PROGRESS_MIN_INTERVAL_S apart, like the bars of rsync or apt.
 *
 * The caller decides whether a bar is wanted (stderr and stdout are
 * terminals and the user did not ask for --quiet) and passes the clock
 * (monotonic seconds), so the formatting and the throttling are testable
 * and deterministic.  The rate counts only the work done since
 * progress_init (runs skipped by --resume do not inflate it).
 *
 * Invariants (progress_check): 0 <= base <= done <= total.  Error policy:
 * output errors on the terminal are ignored (a bar is a courtesy).
 */
#ifndef NUMASIM_PROGRESS_H
#define NUMASIM_PROGRESS_H

#include <stddef.h>
#include <stdio.h>

#define PROGRESS_MIN_INTERVAL_S 0.1
#define PROGRESS_WIDTH 78          /* characters of a drawn line */

struct progress {
	FILE *f;              /* the terminal, or NULL: draw nothing */
	long long total;      /* units of the whole plan */
	long long base;       /* units already done at start (skipped) */
	long long done;
	double t0;            /* clock at progress_init */
	double last_draw;     /* clock of the last drawing, < 0: never */
	int drawn;            /* a line is on the terminal */
};

void progress_init(struct progress *p, FILE *f, long long total,
		   long long base, double now);
/* done units now; redraws unless drawn less than the interval ago. */
void progress_update(struct progress *p, long long done, double now);
/* Erase the bar (the caller prints its summary line afterwards). */
void progress_finish(struct progress *p);
/* The bar's text at time now, without the carriage return. */
void progress_format(const struct progress *p, double now, char *buf,
		     size_t len);
/* NS_OK, or NS_EINTERNAL when an invariant is broken. */
int progress_check(const struct progress *p);

#endif
