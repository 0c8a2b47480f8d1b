/*
 * progress — see progress.h.
 *
 * Design notes.  The line has a fixed layout (bar, counts, share, rate,
 * ETA) padded to PROGRESS_WIDTH so a shorter redraw overwrites a longer
 * one without terminal escapes; progress_finish blanks it the same way.
 * The ETA divides the remaining work by the rate measured since start
 * (whole runs plus the finished share of the runs in flight), which is
 * what a sweep of similar runs needs and what makes one long run's ETA
 * meaningful; before any work is done it is unknown ("--:--").  The rate
 * reads "12.4 runs/s" when runs are quick and "48.2 s/run" when they are
 * slow: "0.02 runs/s" says nothing at a glance.
 */
#include "base/progress.h"

#include <string.h>
#include <time.h>

#include "base/diag.h"

#define BAR_CELLS 24

void progress_init(struct progress *p, FILE *f, long long total,
		   long long base, double now)
{
	memset(p, 0, sizeof *p);
	p->f = f;
	p->total = total < 0 ? 0 : total;
	p->base = base < 0 ? 0 : base > p->total ? p->total : base;
	p->done = p->base;
	p->shown = (double)p->base;
	p->t0 = now;
	p->last_draw = -1;
}

/* "1:02:03" or "2:03" (seconds, rounded up so 0 is shown only at the end). */
static void format_duration(double s, char *buf, size_t len)
{
	long long t = (long long)(s + 0.999);
	if (t >= 3600)
		snprintf(buf, len, "%lld:%02lld:%02lld", t / 3600, t / 60 % 60, t % 60);
	else
		snprintf(buf, len, "%lld:%02lld", t / 60, t % 60);
}

/* "12.4 runs/s", "3.25 runs/s", "48.2 s/run"; "-- s/run" before any work. */
static void format_rate(double rate, char *buf, size_t len)
{
	if (rate >= 1)
		snprintf(buf, len, "%.*f runs/s", rate < 10 ? 2 : 1, rate);
	else if (rate > 0)
		snprintf(buf, len, "%.1f s/run", 1 / rate);
	else
		snprintf(buf, len, "-- s/run");
}

void progress_format(const struct progress *p, double now, char *buf,
		     size_t len)
{
	char bar[BAR_CELLS + 1], eta[32], rate_s[32];
	double elapsed = now - p->t0;
	double amount = p->shown;
	double fresh = amount - (double)p->base;
	double rate = elapsed > 0 && fresh > 0 ? fresh / elapsed : 0;
	int cells = p->total > 0 ? (int)(amount * BAR_CELLS / (double)p->total) : BAR_CELLS;
	int pct = p->total > 0 ? (int)(amount * 100 / (double)p->total) : 100;

	for (int i = 0; i < BAR_CELLS; i++)
		bar[i] = i < cells ? '=' : i == cells ? '>' : ' ';
	bar[BAR_CELLS] = '\0';
	if (rate > 0)
		format_duration(((double)p->total - amount) / rate, eta, sizeof eta);
	else
		snprintf(eta, sizeof eta, "--:--");
	format_rate(rate, rate_s, sizeof rate_s);
	snprintf(buf, len, "[%s] %lld/%lld runs  %3d%%  %s  ETA %s", bar, p->done,
		 p->total, pct, rate_s, eta);
}

static void draw(struct progress *p, double now)
{
	char line[PROGRESS_WIDTH + 64];
	progress_format(p, now, line, sizeof line);
	fprintf(p->f, "\r%-*s", PROGRESS_WIDTH, line);
	fflush(p->f);
	p->drawn = 1;
	p->last_draw = now;
}

void progress_update_part(struct progress *p, long long done, double part,
			  double now)
{
	p->done = done < p->base ? p->base : done > p->total ? p->total : done;
	double room = (double)(p->total - p->done);
	p->part = part < 0 ? 0 : part > room ? room : part;
	if ((double)p->done + p->part > p->shown)
		p->shown = (double)p->done + p->part;
	if (p->shown > (double)p->total)
		p->shown = (double)p->total;
	if (!p->f)
		return;
	if (p->last_draw >= 0 && now - p->last_draw < PROGRESS_MIN_INTERVAL_S &&
	    p->done < p->total)
		return;
	draw(p, now);
}

void progress_update(struct progress *p, long long done, double now)
{
	progress_update_part(p, done, 0, now);
}

void progress_finish(struct progress *p)
{
	if (!p->f || !p->drawn)
		return;
	fprintf(p->f, "\r%*s\r", PROGRESS_WIDTH, "");
	fflush(p->f);
	p->drawn = 0;
}

int progress_check(const struct progress *p)
{
	return p->base >= 0 && p->base <= p->done && p->done <= p->total &&
	       p->part >= 0 && p->part <= (double)(p->total - p->done)
		? NS_OK : NS_EINTERNAL;
}

double progress_clock(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* ---- one run's work ------------------------------------------------------ */

void progress_work_init(struct progress_work *w)
{
	atomic_init(&w->done, 0);
	atomic_init(&w->total, 0);
}

void progress_work_start(struct progress_work *w, long long total)
{
	if (!w)
		return;
	atomic_store_explicit(&w->done, 0, memory_order_relaxed);
	atomic_store_explicit(&w->total, total, memory_order_relaxed);
}

double progress_work_fraction(struct progress_work *w)
{
	long long t = atomic_load_explicit(&w->total, memory_order_relaxed);
	long long d = atomic_load_explicit(&w->done, memory_order_relaxed);
	if (t <= 0 || d <= 0)
		return 0;
	return d >= t ? 1 : (double)d / (double)t;
}

void progress_plan_init(struct progress_plan *pp)
{
	atomic_init(&pp->runs_done, 0);
	progress_work_init(&pp->work);
}

void progress_plan_run_done(struct progress_plan *pp)
{
	if (!pp)
		return;
	progress_work_start(&pp->work, 0);
	atomic_fetch_add_explicit(&pp->runs_done, 1, memory_order_relaxed);
}

void progress_plan_poll(void *arg, long long *done, double *part)
{
	struct progress_plan *pp = arg;
	*done = atomic_load_explicit(&pp->runs_done, memory_order_relaxed);
	*part = progress_work_fraction(&pp->work);
}

/* ---- the ticker ---------------------------------------------------------- */

static void tick(struct progress_ticker *t, int final)
{
	long long done = 0;
	double part = 0, now = progress_clock();
	t->poll(t->arg, &done, &part);
	if (final)
		t->p->last_draw = -1;       /* the end is always drawn */
	progress_update_part(t->p, done, part, now);
}

static void *ticker_main(void *arg)
{
	struct progress_ticker *t = arg;
	pthread_mutex_lock(&t->mu);
	while (!t->stop) {
		struct timespec ts;
		clock_gettime(CLOCK_REALTIME, &ts);
		long ns = ts.tv_nsec + (long)(PROGRESS_MIN_INTERVAL_S * 1e9);
		ts.tv_sec += ns / 1000000000L;
		ts.tv_nsec = ns % 1000000000L;
		pthread_cond_timedwait(&t->cv, &t->mu, &ts);
		if (!t->stop)
			tick(t, 0);
	}
	pthread_mutex_unlock(&t->mu);
	return NULL;
}

int progress_ticker_start(struct progress_ticker *t, struct progress *p,
			  progress_poll_fn poll, void *arg)
{
	memset(t, 0, sizeof *t);
	if (!p || !p->f)
		return NS_OK;
	t->p = p;
	t->poll = poll;
	t->arg = arg;
	pthread_mutex_init(&t->mu, NULL);
	pthread_cond_init(&t->cv, NULL);
	if (pthread_create(&t->th, NULL, ticker_main, t)) {
		pthread_cond_destroy(&t->cv);
		pthread_mutex_destroy(&t->mu);
		return NS_ENOMEM;
	}
	t->running = 1;
	return NS_OK;
}

void progress_ticker_stop(struct progress_ticker *t)
{
	if (!t->running)
		return;
	pthread_mutex_lock(&t->mu);
	t->stop = 1;
	pthread_cond_signal(&t->cv);
	pthread_mutex_unlock(&t->mu);
	pthread_join(t->th, NULL);
	pthread_cond_destroy(&t->cv);
	pthread_mutex_destroy(&t->mu);
	t->running = 0;
	tick(t, 1);
}
