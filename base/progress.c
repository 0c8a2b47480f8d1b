/*
 * progress — see progress.h.
 *
 * Design notes.  The line has a fixed layout (bar, counts, rate, ETA)
 * padded to PROGRESS_WIDTH so a shorter redraw overwrites a longer one
 * without terminal escapes; progress_finish blanks it the same way.  The
 * ETA divides the remaining units by the rate measured since start, which
 * is what a sweep of similar runs needs; before the first unit it is
 * unknown ("--:--").
 */
#include "base/progress.h"

#include <string.h>

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

void progress_format(const struct progress *p, double now, char *buf,
		     size_t len)
{
	char bar[BAR_CELLS + 1], eta[32];
	double elapsed = now - p->t0;
	long long fresh = p->done - p->base;
	double rate = elapsed > 0 && fresh > 0 ? (double)fresh / elapsed : 0;
	int cells = p->total > 0 ? (int)(p->done * BAR_CELLS / p->total) : BAR_CELLS;

	for (int i = 0; i < BAR_CELLS; i++)
		bar[i] = i < cells ? '=' : i == cells ? '>' : ' ';
	bar[BAR_CELLS] = '\0';
	if (rate > 0)
		format_duration((double)(p->total - p->done) / rate, eta, sizeof eta);
	else
		snprintf(eta, sizeof eta, "--:--");
	snprintf(buf, len, "[%s] %lld/%lld runs  %.*f runs/s  ETA %s", bar, p->done,
		 p->total, rate < 10 ? 2 : 1, rate, eta);
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

void progress_update(struct progress *p, long long done, double now)
{
	p->done = done < p->base ? p->base : done > p->total ? p->total : done;
	if (!p->f)
		return;
	if (p->last_draw >= 0 && now - p->last_draw < PROGRESS_MIN_INTERVAL_S &&
	    p->done < p->total)
		return;
	draw(p, now);
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
	return p->base >= 0 && p->base <= p->done && p->done <= p->total
		? NS_OK : NS_EINTERNAL;
}
