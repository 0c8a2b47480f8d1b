/*
 * plot — charts of results databases (docs/plots.md): line plots of a
 * metric against a number (the batch size in a pagealloc series name, or
 * a numeric parameter / runs column) with one line per group and min–max
 * error bars, and grouped bar charts (the profile's top functions by self
 * cycles, branch sites by executions or mispredicts).  Rendered as SVG by
 * this module (no external program) or handed to gnuplot for PNG.
 *
 * Loading (plot_load_*) reads runs with status 'ok' of one database and
 * groups them by a key as analysis/compare.h does (a runs column or a
 * params key, default variant).  Line plots: the observations of every
 * metric matching the glob (samples where the series has them, else one
 * metrics value per run) at x = the number after the last '-' of the
 * metric name (x key "name": alloc-odr0-16384 -> 16384; names without
 * such a number, alloc-odr0-1.min, are skipped) or the run's
 * numeric value of the x key; a point is the mean of its observations,
 * its error bar spans their min and max.  Bar charts: per group the mean
 * over its runs of a profile column (self_cycles) or a branches column
 * (executed, taken, mispredicted), for the top N categories by the sum
 * over groups.
 *
 * SVG: 860 x 500 pixels, a title, axis labels (class "xlabel", "ylabel"),
 * ticks, one <g class="series"> per group with a legend entry; a
 * logarithmic x axis (base 2 ticks) when asked or when all x are positive
 * and span a factor of 100 or more.  Deterministic: same data, same bytes.
 *
 * Invariants (plot_check): every series has nr_points points (bar charts:
 * one per category) with lo <= y <= hi, finite values, x ascending in a
 * line series.
 *
 * Error policy: NS_EINPUT for an unknown key, a glob or kind that matches
 * nothing, non-numeric x values; NS_EDB on SQLite errors; NS_ENOMEM;
 * messages to d.  The renderers only write to the given stream.
 */
#ifndef NUMASIM_PLOT_H
#define NUMASIM_PLOT_H

#include <stdio.h>

#include <sqlite3.h>

#include "base/diag.h"

enum plot_kind {
	PLOT_LINE,
	PLOT_BAR,
};

#define PLOT_WIDTH 860
#define PLOT_HEIGHT 500

struct plot_series {
	char *name;
	int n, cap;
	double *x, *y, *lo, *hi; /* bar charts: x is the category index */
	double *nobs;            /* observations behind each point */
};

struct plot {
	enum plot_kind kind;
	char title[256], xlabel[128], ylabel[128];
	int logx;                /* -1 auto, 0 linear, 1 log */
	int nr_series;
	struct plot_series *series;
	int nr_cats;             /* bar charts */
	char **cats;
};

void plot_init(struct plot *p, enum plot_kind kind);
void plot_free(struct plot *p);

/* Line plot of metrics matching glob against xkey ("name" or a key). */
int plot_load_line(struct plot *p, sqlite3 *db, const char *dbname, const char *glob,
		   const char *xkey, const char *by, struct diag *d);
/* Bar chart: what is "profile" (self_cycles) or "executed", "taken",
 * "mispredicted" (branch sites); top categories. */
int plot_load_bars(struct plot *p, sqlite3 *db, const char *dbname, const char *what,
		   const char *by, int top, struct diag *d);

int plot_svg(const struct plot *p, FILE *f);
/* A gnuplot script (data inline) that writes the chart as PNG to out. */
int plot_gnuplot(const struct plot *p, const char *out, FILE *f);

int plot_check(const struct plot *p);

#endif
