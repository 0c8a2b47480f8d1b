/*
 * plot — charts of results databases (docs/guide/plots.md): line plots of a
 * metric against a number (the batch size in a pagealloc series name, or
 * a numeric parameter / runs column) with one line per group and min–max
 * error bars, and grouped bar charts (the profile's top functions by self
 * cycles, branch sites by executions or mispredicts).  Rendered as SVG by
 * this module (no external program) or handed to gnuplot for PNG.
 *
 * Loading (plot_load_*) reads runs with status 'ok' of one database that
 * pass the --where filters (p->where: KEY=VALUE, as analysis/compare.h's)
 * and groups them by a key as analysis/compare.h does (a runs column or a
 * params key); without a key, by what differs: the variant and every
 * parameter that differs between its runs (compare_label_sql), so the
 * legend of two invocations with different --set values names them.  Line plots: the observations of every
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
 * Layout (plot_layout): the canvas is p->width x p->height pixels, or,
 * where those are 0, sized from the text around a PLOT_AREA_W x
 * PLOT_AREA_H plot area: text widths are estimated from the font size and
 * the characters, with per-character advances no narrower than DejaVu
 * Sans' (Debian's sans-serif, wider than Arial or Liberation Sans), so
 * that every label fits where it is put.  The margins hold the title, the
 * y tick labels and axis label, the x tick labels (bar charts: rotated
 * category names, whose reach to the left widens the left margin) and
 * axis label, and on the right the legend box.  A bar chart's plot area
 * is at least 20 pixels per category, so that the rotated names do not
 * overlap.  Invariant: everything
 * drawn lies inside the canvas less a PLOT_PAD border, ticks and grid
 * lines inside the plot area.
 *
 * SVG: a title, axis labels (class "xlabel", "ylabel"), the plot area
 * (<rect class="plotarea">), ticks, one <g class="series"> per group with
 * a legend entry, the legend box (<rect class="legend-box">); a
 * logarithmic x axis (base 2 ticks) when asked or when all x are positive
 * and span a factor of 100 or more.  CSV (plot_csv): the plotted points,
 * for gnuplot or pandas.  Deterministic: same data, same bytes.
 *
 * Invariants (plot_check): every series has nr_points points (bar charts:
 * one per category) with lo <= y <= hi, finite values, x ascending in a
 * line series.
 *
 * Error policy: NS_EINPUT for an unknown key, a malformed --where filter,
 * a glob or kind that matches nothing, non-numeric x values, a canvas too
 * small for its text (the message says the size needed); NS_EDB on SQLite
 * errors; NS_ENOMEM; messages to d.  The renderers only write to the
 * given stream.
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

/* The plot area of a canvas sized from its text; the smallest one a
 * given canvas may leave; the free border inside the canvas. */
#define PLOT_AREA_W 570
#define PLOT_AREA_H 380
#define PLOT_MIN_W 120
#define PLOT_MIN_H 100
#define PLOT_PAD 10
#define PLOT_MAX_SIZE 20000

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
	int width, height;       /* canvas in pixels; 0: sized from the text */
	const char *const *where; /* KEY=VALUE run filters (not owned) */
	int nr_where;
};

/* Where plot_svg puts things, in pixels from the canvas' top left. */
struct plot_layout {
	int width, height;                    /* the canvas */
	double left, top, pw, ph;             /* the plot area */
	double legend_x, legend_y, legend_w, legend_h; /* the legend box */
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

/* The layout of a loaded plot; NS_EINPUT when p->width or p->height is
 * too small for its text. */
int plot_layout(const struct plot *p, struct plot_layout *l, struct diag *d);
/* The chart; the errors of plot_layout (message dropped), NS_EINTERNAL
 * for a plot without series. */
int plot_svg(const struct plot *p, FILE *f);
/* A gnuplot script (data inline) that writes the chart as PNG to out, at
 * the canvas size of plot_layout. */
int plot_gnuplot(const struct plot *p, const char *out, FILE *f);
/* The plotted points as CSV (a header line, LF line ends, RFC 4180
 * quoting): line plots "series,x,mean,min,max,n" (n observations), bar
 * charts "series,category,mean"; numbers with 17 significant digits. */
int plot_csv(const struct plot *p, FILE *f);

int plot_check(const struct plot *p);

#endif
