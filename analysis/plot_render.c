/*
 * plot_render — the writers of analysis/plot.h: the layout, the SVG, the
 * gnuplot script and the CSV of a loaded plot.
 *
 * Design notes.  The layout is computed before anything is written: the
 * axes' data ranges and tick values first (they do not depend on pixels),
 * then the estimated width of every piece of text, then the margins that
 * hold them, and from those the canvas.  Where the user fixed the canvas,
 * the plot area is what the margins leave; when that is too small the
 * layout fails with the size needed instead of drawing text off the
 * canvas.  Widths are estimated per character with advances no smaller
 * than DejaVu Sans' (what fontconfig gives for sans-serif on Debian, and
 * wider than Arial, Helvetica or Liberation Sans), so an estimate is an
 * upper bound and a box sized from it holds the rendered text.
 *
 * The SVG writer maps data to pixels with one affine (or log2) transform
 * per axis; tick values are "nice" numbers (1, 2, 5 x 10^k) on linear
 * axes and powers of two on log axes, so a batch axis 1..16384 reads like
 * mmtests' graphs, and only values inside the axis range get a tick or a
 * grid line.  Numbers are printed with a fixed number of decimals, so the
 * output is byte-for-byte reproducible.
 */
#include "analysis/plot.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/markup.h"
#include "analysis/resultset.h"

/* Font sizes in pixels; a line's ascent and descent as fractions of its
 * size (DejaVu Sans: 0.928 and 0.236, rounded up). */
#define FS_TITLE 15
#define FS_LABEL 13
#define FS_TICK 11
#define FS_LEGEND 12
#define ASCENT 0.95
#define DESCENT 0.25
#define GAP 8            /* between neighbouring pieces of text */
#define TOP 50           /* the title band above the plot area */
#define TITLE_BASE 28
#define YTICK_GAP 6      /* y tick label to the y axis */
#define XTICK_BASE 16    /* x tick label baseline below the x axis */
#define CAT_DROP 12      /* rotated category label's end below the x axis */
#define CAT_ANGLE 45     /* degrees, counterclockwise */
#define CAT_RAD (CAT_ANGLE * 3.14159265358979323846 / 180)
#define CAT_SPACING 20   /* between categories: a line of 11-pixel text (13.2
			  * with ascent and descent) at 45 degrees needs
			  * 13.2 / sin 45 = 18.7 not to touch its neighbour */
#define LEGEND_GAP 15    /* plot area to the legend box */
#define LEGEND_IN 8      /* legend box padding */
#define LEGEND_ROW 20
#define SWATCH 12
#define MAX_TICKS 64

static const char *const palette[] = {
	"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2",
	"#7f7f7f", "#bcbd22", "#17becf",
};
#define NR_COLORS (sizeof palette / sizeof palette[0])

/* Advance of an ASCII character in em, an upper bound of DejaVu Sans'
 * advance for the characters of each class. */
static double char_em(unsigned char c)
{
	if (c >= 0x80)
		return 1.0; /* the lead byte of a UTF-8 sequence: a wide glyph */
	if (strchr("mwMW@%", c))
		return 1.0;
	if (strchr("=+<>~#^&", c))
		return 0.84;
	if (isupper(c))
		return 0.8;
	if (strchr("il.,:;'!|`", c))
		return 0.42;
	if (strchr("fjrt ()[]-/\\\"", c))
		return 0.52;
	return 0.64;
}

/* Estimated width in pixels of s at font size px (an upper bound). */
static double text_w(const char *s, double px)
{
	double em = 0;
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if ((c & 0xc0) != 0x80) /* count characters, not UTF-8 bytes */
			em += char_em(c);
	}
	return em * px;
}

struct axes {
	double x0, x1, y0, y1; /* axis ranges */
	double ystep;          /* y tick step; y0 and y1 are multiples of it */
	int logx;
	double left, top, pw, ph; /* the plot area, once laid out */
};

static double px(const struct axes *a, double x)
{
	double t = a->logx ? (log2(x) - log2(a->x0)) / (log2(a->x1) - log2(a->x0))
			   : (x - a->x0) / (a->x1 - a->x0);
	return a->left + t * a->pw;
}

static double py(const struct axes *a, double y)
{
	return a->top + a->ph - (y - a->y0) / (a->y1 - a->y0) * a->ph;
}

/* A nice step (1, 2, 5 x 10^k) for about n ticks over range. */
static double nice_step(double range, int n)
{
	double raw = range / n, mag = pow(10, floor(log10(raw)));
	double f = raw / mag;
	return (f < 1.5 ? 1 : f < 3 ? 2 : f < 7 ? 5 : 10) * mag;
}

static void make_axes(const struct plot *p, struct axes *a)
{
	memset(a, 0, sizeof *a);
	/* bars grow from 0; a line plot's y axis spans its data (as mmtests'
	 * graphs), so a 5 % difference stays visible */
	a->x0 = INFINITY, a->x1 = -INFINITY, a->y1 = -INFINITY;
	a->y0 = p->kind == PLOT_BAR ? 0 : INFINITY;
	for (int k = 0; k < p->nr_series; k++)
		for (int i = 0; i < p->series[k].n; i++) {
			const struct plot_series *s = &p->series[k];
			a->x0 = fmin(a->x0, s->x[i]);
			a->x1 = fmax(a->x1, s->x[i]);
			a->y0 = fmin(a->y0, s->lo[i]);
			a->y1 = fmax(a->y1, s->hi[i]);
		}
	if (p->kind == PLOT_BAR) {
		a->x0 = -0.5;
		a->x1 = p->nr_cats - 0.5;
	}
	a->logx = p->kind == PLOT_LINE &&
		  (p->logx == 1 || (p->logx == -1 && a->x0 > 0 && a->x1 >= 100 * a->x0));
	if (a->logx && !(a->x0 > 0))
		a->logx = 0;
	if (!(a->x1 > a->x0)) {
		a->x0 -= a->logx ? a->x0 / 2 : 1;
		a->x1 += a->logx ? a->x1 : 1;
	}
	if (!(a->y1 > a->y0))
		a->y1 = a->y0 + (a->y0 != 0 ? fabs(a->y0) / 10 : 1);
	/* The step is fixed here and the range rounded out to it; the ticks
	 * use this step, not one recomputed from the rounded range, which
	 * could overshoot the top of the axis (an 800 tick on a 300..750
	 * axis, drawn in the title band). */
	a->ystep = nice_step(a->y1 - a->y0, 6);
	a->y1 = ceil(a->y1 / a->ystep) * a->ystep;
	a->y0 = floor(a->y0 / a->ystep) * a->ystep;
}

/* The y tick values, all within [y0, y1]; their number. */
static int yticks(const struct axes *a, double *v)
{
	int n = 0;
	for (int i = 0; n < MAX_TICKS; i++) {
		double y = a->y0 + i * a->ystep;
		if (y > a->y1 + a->ystep * 1e-9)
			break;
		v[n++] = fmin(y, a->y1);
	}
	return n;
}

/* The x tick values of a line plot, all within [x0, x1]; their number. */
static int xticks(const struct axes *a, double *v)
{
	int n = 0;
	if (a->logx) {
		int k0 = (int)ceil(log2(a->x0) - 1e-9), k1 = (int)floor(log2(a->x1) + 1e-9);
		int every = (k1 - k0) / 8 + 1;
		for (int k = k0; k <= k1 && n < MAX_TICKS; k += every)
			v[n++] = fmin(fmax(pow(2, k), a->x0), a->x1);
		return n;
	}
	double xs = nice_step(a->x1 - a->x0, 8), c0 = ceil(a->x0 / xs - 1e-9);
	for (int i = 0; n < MAX_TICKS; i++) {
		double x = (c0 + i) * xs;
		if (x > a->x1 + xs * 1e-9)
			break;
		v[n++] = fmin(fmax(x, a->x0), a->x1);
	}
	return n;
}

static void fmt_num(char *buf, size_t len, double v)
{
	if (fabs(v) >= 1e6 || (v != 0 && fabs(v) < 1e-3))
		snprintf(buf, len, "%.3g", v);
	else
		snprintf(buf, len, "%.10g", round(v * 1e6) / 1e6);
}

/* The x axis label as drawn. */
static void xlabel_text(const struct plot *p, const struct axes *a, char *buf, size_t len)
{
	snprintf(buf, len, "%s%s", p->xlabel, a->logx ? " (log scale)" : "");
}

/* Widest formatted tick value. */
static double ticks_w(const double *v, int n)
{
	double w = 0;
	char b[64];
	for (int i = 0; i < n; i++) {
		fmt_num(b, sizeof b, v[i]);
		w = fmax(w, text_w(b, FS_TICK));
	}
	return w;
}

/* How far a rotated category label reaches left of and below its anchor. */
static double cat_left(const char *s)
{
	return text_w(s, FS_TICK) * cos(CAT_RAD) + FS_TICK * ASCENT * sin(CAT_RAD);
}

static double cat_down(const char *s)
{
	return text_w(s, FS_TICK) * sin(CAT_RAD) + FS_TICK * DESCENT * cos(CAT_RAD);
}

/*
 * The left margin that keeps every rotated category label on the canvas:
 * category c sits at left + pw * t_c (t_c = (c + 0.5) / n) and reaches
 * cat_left to its left.  With the plot area's width fixed (fixed_pw > 0)
 * the bound is direct; with the canvas' width fixed, pw = rest - left, so
 * left >= (reach + pad - rest * t_c) / (1 - t_c).
 */
static double cats_left(const struct plot *p, double fixed_pw, double rest)
{
	double need = 0;
	for (int c = 0; p->kind == PLOT_BAR && c < p->nr_cats; c++) {
		double t = (c + 0.5) / p->nr_cats, reach = cat_left(p->cats[c]) + PLOT_PAD;
		need = fmax(need, fixed_pw > 0 ? reach - fixed_pw * t : (reach - rest * t) / (1 - t));
	}
	return need;
}

/* What the margins need, from the text alone. */
struct margins {
	double left_y;   /* left: y axis label and tick labels */
	double right;    /* legend box (and the last x tick label) */
	double bottom;   /* x tick or category labels and the x axis label */
	double title_w, xlabel_w, ylabel_w;
};

static void margins(const struct plot *p, const struct axes *a, struct plot_layout *l,
		    struct margins *m)
{
	double v[MAX_TICKS], lw = 0;
	char xl[sizeof p->xlabel + 16];
	int n = yticks(a, v);

	m->left_y = PLOT_PAD + FS_LABEL * (ASCENT + DESCENT) + GAP + ticks_w(v, n) + YTICK_GAP;
	for (int k = 0; k < p->nr_series; k++)
		lw = fmax(lw, text_w(p->series[k].name, FS_LEGEND));
	l->legend_w = 2 * LEGEND_IN + SWATCH + 6 + lw;
	l->legend_h = 2 * LEGEND_IN + 2 + LEGEND_ROW * (p->nr_series - 1) + SWATCH + 1;
	m->right = LEGEND_GAP + l->legend_w + PLOT_PAD;
	double below = XTICK_BASE + FS_TICK * DESCENT;
	if (p->kind == PLOT_BAR) {
		below = 0;
		for (int c = 0; c < p->nr_cats; c++)
			below = fmax(below, CAT_DROP + cat_down(p->cats[c]));
	} else {
		n = xticks(a, v);
		char b[64];
		fmt_num(b, sizeof b, n ? v[n - 1] : 0);
		m->right = fmax(m->right, text_w(b, FS_TICK) / 2 + PLOT_PAD);
	}
	m->bottom = below + GAP + FS_LABEL * (ASCENT + DESCENT) + PLOT_PAD;
	xlabel_text(p, a, xl, sizeof xl);
	m->title_w = text_w(p->title, FS_TITLE);
	m->xlabel_w = text_w(xl, FS_LABEL);
	m->ylabel_w = text_w(p->ylabel, FS_LABEL);
}

/* The narrowest plot area: PLOT_MIN_W, and room between the categories
 * for their rotated labels. */
static double min_pw(const struct plot *p)
{
	return fmax(PLOT_MIN_W, p->kind == PLOT_BAR ? p->nr_cats * CAT_SPACING : 0);
}

static int too_small(struct diag *d, const char *opt, int given, double need)
{
	return diag_set(d, NS_EINPUT, "numasim plot", 0, 0, "%s %d is too small for this "
			"chart's labels and legend: it needs at least %d", opt, given,
			(int)ceil(need));
}

/* Canvas width, plot area left and width: from the text or p->width. */
static int layout_x(const struct plot *p, const struct margins *m, struct plot_layout *l,
		    struct diag *d)
{
	double text = fmax(m->title_w, m->xlabel_w) + 2 * PLOT_PAD;
	if (!p->width) {
		double pw = fmax(PLOT_AREA_W, min_pw(p));
		l->left = fmax(m->left_y, cats_left(p, pw, 0));
		double w = fmax(l->left + pw + m->right, text);
		l->width = (int)ceil(w);
		l->pw = l->width - l->left - m->right;
		return NS_OK;
	}
	double rest = p->width - m->right;
	l->width = p->width;
	l->left = fmax(m->left_y, cats_left(p, 0, rest));
	l->pw = rest - l->left;
	if (l->pw < min_pw(p) || text > p->width) {
		double left = fmax(m->left_y, cats_left(p, min_pw(p), 0));
		return too_small(d, "--width", p->width,
				 fmax(left + min_pw(p) + m->right, text));
	}
	return NS_OK;
}

/* Canvas height, plot area top and height: from the text or p->height. */
static int layout_y(const struct plot *p, const struct margins *m, struct plot_layout *l,
		    struct diag *d)
{
	l->top = TOP;
	if (!p->height) {
		double ph = fmax(PLOT_AREA_H, l->legend_h);
		double h = fmax(TOP + ph + m->bottom, m->ylabel_w + 2 * PLOT_PAD);
		l->height = (int)ceil(h);
		l->ph = l->height - TOP - m->bottom;
		return NS_OK;
	}
	l->height = p->height;
	l->ph = p->height - TOP - m->bottom;
	if (l->ph < PLOT_MIN_H || TOP + l->legend_h + PLOT_PAD > p->height ||
	    m->ylabel_w + 2 * PLOT_PAD > p->height)
		return too_small(d, "--height", p->height,
				 fmax(fmax(TOP + PLOT_MIN_H + m->bottom, TOP + l->legend_h + PLOT_PAD),
				      m->ylabel_w + 2 * PLOT_PAD));
	return NS_OK;
}

/* Lay out p on the axes a (whose plot area it sets). */
static int layout(const struct plot *p, struct axes *a, struct plot_layout *l,
		  struct diag *d)
{
	struct margins m;
	int rc;
	memset(l, 0, sizeof *l);
	if (p->nr_series == 0)
		return diag_set(d, NS_EINTERNAL, "numasim plot", 0, 0, "nothing to plot");
	if (p->width && (p->width < 1 || p->width > PLOT_MAX_SIZE))
		return diag_set(d, NS_EINPUT, "numasim plot", 0, 0, "bad width %d", p->width);
	if (p->height && (p->height < 1 || p->height > PLOT_MAX_SIZE))
		return diag_set(d, NS_EINPUT, "numasim plot", 0, 0, "bad height %d", p->height);
	make_axes(p, a);
	margins(p, a, l, &m);
	if ((rc = layout_x(p, &m, l, d)) || (rc = layout_y(p, &m, l, d)))
		return rc;
	l->legend_x = l->left + l->pw + LEGEND_GAP;
	l->legend_y = l->top;
	a->left = l->left;
	a->top = l->top;
	a->pw = l->pw;
	a->ph = l->ph;
	return NS_OK;
}

int plot_layout(const struct plot *p, struct plot_layout *l, struct diag *d)
{
	struct axes a;
	return layout(p, &a, l, d);
}

/* The centre of a text of width w near c, moved to lie within [lo, hi]. */
static double place(double c, double w, double lo, double hi)
{
	return fmax(lo + w / 2, fmin(c, hi - w / 2));
}

static void svg_yaxis(const struct plot *p, const struct axes *a, const struct plot_layout *l,
		      FILE *f)
{
	double v[MAX_TICKS];
	char b[64];
	int n = yticks(a, v);
	fprintf(f, "<g class=\"yticks\" font-size=\"%d\" text-anchor=\"end\">\n", FS_TICK);
	for (int i = 0; i < n; i++) {
		fmt_num(b, sizeof b, v[i]);
		fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/>"
			"<text x=\"%.1f\" y=\"%.1f\">%s</text>\n", a->left, py(a, v[i]),
			a->left + a->pw, py(a, v[i]), a->left - YTICK_GAP, py(a, v[i]) + 4, b);
	}
	fputs("</g>\n", f);
	double w = text_w(p->ylabel, FS_LABEL);
	fprintf(f, "<text class=\"ylabel\" transform=\"translate(%.1f,%.1f) rotate(-90)\" "
		"font-size=\"%d\" text-anchor=\"middle\">", PLOT_PAD + FS_LABEL * ASCENT,
		place(a->top + a->ph / 2, w, PLOT_PAD, l->height - PLOT_PAD), FS_LABEL);
	markup_puts(f, p->ylabel);
	fputs("</text>\n", f);
}

static void svg_xaxis(const struct plot *p, const struct axes *a, const struct plot_layout *l,
		      FILE *f)
{
	double v[MAX_TICKS];
	char b[64], xl[sizeof p->xlabel + 16];
	double bottom = a->top + a->ph;
	fprintf(f, "<g class=\"xticks\" font-size=\"%d\" text-anchor=\"middle\">\n", FS_TICK);
	if (p->kind == PLOT_BAR) {
		for (int c = 0; c < p->nr_cats; c++) {
			fprintf(f, "<text transform=\"translate(%.1f,%.1f) rotate(-%d)\" "
				"text-anchor=\"end\">", px(a, c), bottom + CAT_DROP, CAT_ANGLE);
			markup_puts(f, p->cats[c]);
			fputs("</text>\n", f);
		}
	} else {
		int n = xticks(a, v);
		for (int i = 0; i < n; i++) {
			fmt_num(b, sizeof b, v[i]);
			fprintf(f, "<text x=\"%.1f\" y=\"%.1f\">%s</text>\n", px(a, v[i]),
				bottom + XTICK_BASE, b);
		}
	}
	fputs("</g>\n", f);
	xlabel_text(p, a, xl, sizeof xl);
	fprintf(f, "<text class=\"xlabel\" x=\"%.1f\" y=\"%.1f\" font-size=\"%d\" "
		"text-anchor=\"middle\">", place(a->left + a->pw / 2, text_w(xl, FS_LABEL),
						 PLOT_PAD, l->width - PLOT_PAD),
		l->height - PLOT_PAD - FS_LABEL * DESCENT, FS_LABEL);
	markup_puts(f, xl);
	fputs("</text>\n", f);
}

static void svg_axes(const struct plot *p, const struct axes *a, const struct plot_layout *l,
		     FILE *f)
{
	fprintf(f, "<rect class=\"plotarea\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
		"height=\"%.1f\" fill=\"none\" stroke=\"none\"/>\n", a->left, a->top, a->pw, a->ph);
	fprintf(f, "<g class=\"axes\" stroke=\"#000\" stroke-width=\"1\">\n"
		"<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n"
		"<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n</g>\n",
		a->left, a->top + a->ph, a->left + a->pw, a->top + a->ph, a->left, a->top,
		a->left, a->top + a->ph);
	svg_yaxis(p, a, l, f);
	svg_xaxis(p, a, l, f);
}

static void svg_series(const struct plot *p, const struct axes *a, const struct plot_layout *l,
		       int k, FILE *f)
{
	const struct plot_series *s = &p->series[k];
	const char *col = palette[(size_t)k % NR_COLORS];
	fputs("<g class=\"series\" data-name=\"", f);
	markup_puts(f, s->name);
	fprintf(f, "\" stroke=\"%s\" fill=\"%s\">\n", col, col);
	if (p->kind == PLOT_BAR) {
		double slot = a->pw / p->nr_cats * 0.8 / p->nr_series;
		for (int i = 0; i < s->n; i++) {
			double x = px(a, s->x[i]) - slot * p->nr_series / 2 + slot * k;
			double y = py(a, s->y[i]), y0 = py(a, 0);
			fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
				"stroke=\"none\"><title>%.6g</title></rect>\n", x, fmin(y, y0), slot,
				fabs(y0 - y), s->y[i]);
		}
	} else {
		fputs("<polyline fill=\"none\" stroke-width=\"1.5\" points=\"", f);
		for (int i = 0; i < s->n; i++)
			fprintf(f, "%s%.1f,%.1f", i ? " " : "", px(a, s->x[i]), py(a, s->y[i]));
		fputs("\"/>\n", f);
		for (int i = 0; i < s->n; i++) {
			double x = px(a, s->x[i]);
			fprintf(f, "<line class=\"errorbar\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
				"y2=\"%.1f\"/><circle cx=\"%.1f\" cy=\"%.1f\" r=\"2.5\"><title>%.6g: "
				"%.6g [%.6g, %.6g]</title></circle>\n", x, py(a, s->lo[i]), x,
				py(a, s->hi[i]), x, py(a, s->y[i]), s->x[i], s->y[i], s->lo[i],
				s->hi[i]);
		}
	}
	double sx = l->legend_x + LEGEND_IN, sy = l->legend_y + LEGEND_IN + 2 + LEGEND_ROW * k;
	fprintf(f, "<rect class=\"legend\" x=\"%.1f\" y=\"%.1f\" width=\"%d\" height=\"%d\"/>"
		"<text x=\"%.1f\" y=\"%.1f\" font-size=\"%d\" stroke=\"none\" fill=\"#000\">",
		sx, sy, SWATCH, SWATCH, sx + SWATCH + 6, sy + 10, FS_LEGEND);
	markup_puts(f, s->name);
	fputs("</text>\n</g>\n", f);
}

int plot_svg(const struct plot *p, FILE *f)
{
	struct axes a;
	struct plot_layout l;
	struct diag d;
	int rc;
	diag_init(&d);
	if ((rc = layout(p, &a, &l, &d)))
		return rc;
	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
		"viewBox=\"0 0 %d %d\" font-family=\"sans-serif\">\n"
		"<rect width=\"100%%\" height=\"100%%\" fill=\"#fff\"/>\n"
		"<text class=\"title\" x=\"%.1f\" y=\"%d\" font-size=\"%d\" "
		"text-anchor=\"middle\">", l.width, l.height, l.width, l.height,
		place(a.left + a.pw / 2, text_w(p->title, FS_TITLE), PLOT_PAD, l.width - PLOT_PAD),
		TITLE_BASE, FS_TITLE);
	markup_puts(f, p->title);
	fputs("</text>\n", f);
	svg_axes(p, &a, &l, f);
	fprintf(f, "<rect class=\"legend-box\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
		"height=\"%.1f\" fill=\"none\" stroke=\"#ccc\"/>\n", l.legend_x, l.legend_y,
		l.legend_w, l.legend_h);
	for (int k = 0; k < p->nr_series; k++)
		svg_series(p, &a, &l, k, f);
	fputs("</svg>\n", f);
	return NS_OK;
}

/* A gnuplot string literal (single quotes; '' escapes a quote). */
static void gp_string(FILE *f, const char *s)
{
	fputc('\'', f);
	for (; *s; s++) {
		if (*s == '\'')
			fputc('\'', f);
		if ((unsigned char)*s >= 0x20)
			fputc(*s, f);
	}
	fputc('\'', f);
}

int plot_gnuplot(const struct plot *p, const char *out, FILE *f)
{
	struct axes a;
	struct plot_layout l;
	struct diag d;
	int rc;
	diag_init(&d);
	if ((rc = layout(p, &a, &l, &d)))
		return rc;
	fprintf(f, "set terminal pngcairo noenhanced size %d,%d\nset output ", l.width,
		l.height);
	gp_string(f, out);
	fputs("\nset title ", f);
	gp_string(f, p->title);
	fputs("\nset xlabel ", f);
	gp_string(f, p->xlabel);
	fputs("\nset ylabel ", f);
	gp_string(f, p->ylabel);
	fputs("\nset key outside right\nset grid ytics\n", f);
	if (a.logx)
		fputs("set logscale x 2\n", f);
	for (int k = 0; k < p->nr_series; k++) {
		const struct plot_series *s = &p->series[k];
		fprintf(f, "$d%d << EOD\n", k);
		for (int i = 0; i < s->n; i++)
			fprintf(f, "%.17g %.17g %.17g %.17g\n", s->x[i], s->y[i], s->lo[i], s->hi[i]);
		fputs("EOD\n", f);
	}
	if (p->kind == PLOT_BAR) {
		fprintf(f, "set style data histograms\nset style histogram clustered\n"
			"set style fill solid\nset xtics rotate by -30\nset yrange [0:*]\n");
		fputs("set xtics (", f);
		for (int c = 0; c < p->nr_cats; c++) {
			fputs(c ? ", " : "", f);
			gp_string(f, p->cats[c]);
			fprintf(f, " %d", c);
		}
		fputs(")\n", f);
	}
	fputs("plot ", f);
	for (int k = 0; k < p->nr_series; k++) {
		fprintf(f, "%s$d%d using %s title ", k ? ", " : "", k,
			p->kind == PLOT_BAR ? "2" : "1:2:3:4 with yerrorlines");
		gp_string(f, p->series[k].name);
	}
	fputs("\n", f);
	return NS_OK;
}

int plot_csv(const struct plot *p, FILE *f)
{
	if (p->nr_series == 0)
		return NS_EINTERNAL;
	fputs(p->kind == PLOT_BAR ? "series,category,mean\n" : "series,x,mean,min,max,n\n", f);
	for (int k = 0; k < p->nr_series; k++) {
		const struct plot_series *s = &p->series[k];
		for (int i = 0; i < s->n; i++) {
			resultset_csv_field(f, s->name, strlen(s->name));
			if (p->kind == PLOT_BAR) {
				const char *c = p->cats[(int)s->x[i]];
				fputc(',', f);
				resultset_csv_field(f, c, strlen(c));
				fprintf(f, ",%.17g\n", s->y[i]);
			} else {
				fprintf(f, ",%.17g,%.17g,%.17g,%.17g,%.17g\n", s->x[i], s->y[i],
					s->lo[i], s->hi[i], s->nobs[i]);
			}
		}
	}
	return NS_OK;
}
