/*
 * plot — line and bar charts as SVG or gnuplot scripts; see plot.h.
 *
 * Design notes.  The loaders turn one SQL result (group, x or category,
 * value) into series held in memory: a line point accumulates count, sum,
 * min and max of its observations; a bar is the mean over the group's
 * runs (the SQL averages).  The SVG writer maps data to pixels with one
 * affine (or log2) transform per axis; tick values are "nice" numbers (1,
 * 2, 5 x 10^k) on linear axes and powers of two on log axes, so a batch
 * axis 1..16384 reads like mmtests' graphs.  Numbers are printed with a
 * fixed number of decimals, so output is byte-for-byte reproducible.
 */
#include "analysis/plot.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/compare.h"

#define ML 90   /* margins: left, right (legend), top, bottom */
#define MR 200
#define MT 50
#define MB 70

static const char *const palette[] = {
	"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2",
	"#7f7f7f", "#bcbd22", "#17becf",
};
#define NR_COLORS (sizeof palette / sizeof palette[0])

void plot_init(struct plot *p, enum plot_kind kind)
{
	memset(p, 0, sizeof *p);
	p->kind = kind;
	p->logx = -1;
}

void plot_free(struct plot *p)
{
	for (int i = 0; i < p->nr_series; i++) {
		struct plot_series *s = &p->series[i];
		free(s->name);
		free(s->x);
		free(s->y);
		free(s->lo);
		free(s->hi);
		free(s->nobs);
	}
	free(p->series);
	for (int i = 0; i < p->nr_cats; i++)
		free(p->cats[i]);
	free(p->cats);
	memset(p, 0, sizeof *p);
}

static struct plot_series *series_of(struct plot *p, const char *name)
{
	for (int i = 0; i < p->nr_series; i++)
		if (!strcmp(p->series[i].name, name))
			return &p->series[i];
	struct plot_series *ns = realloc(p->series, (size_t)(p->nr_series + 1) * sizeof *ns);
	if (!ns)
		return NULL;
	p->series = ns;
	struct plot_series *s = &ns[p->nr_series];
	memset(s, 0, sizeof *s);
	if (!(s->name = strdup(name)))
		return NULL;
	p->nr_series++;
	return s;
}

/* Point at x of s (found or appended); its index, -1 when out of memory. */
static int point_of(struct plot_series *s, double x)
{
	for (int i = 0; i < s->n; i++)
		if (s->x[i] == x)
			return i;
	if (s->n == s->cap) {
		int cap = s->cap ? 2 * s->cap : 16;
		double **a[5] = {&s->x, &s->y, &s->lo, &s->hi, &s->nobs};
		for (int k = 0; k < 5; k++) {
			double *n = realloc(*a[k], (size_t)cap * sizeof *n);
			if (!n)
				return -1;
			*a[k] = n;
		}
		s->cap = cap;
	}
	s->x[s->n] = x;
	s->y[s->n] = 0;
	s->lo[s->n] = INFINITY;
	s->hi[s->n] = -INFINITY;
	s->nobs[s->n] = 0;
	return s->n++;
}

/* The number after the last '-' of a metric name; NAN if none. */
static double name_x(const char *name)
{
	const char *d = strrchr(name, '-');
	char *end;
	if (!d || !isdigit((unsigned char)d[1]))
		return NAN;
	double v = strtod(d + 1, &end);
	return *end ? NAN : v;
}

static int oomd(struct diag *d)
{
	return diag_set(d, NS_ENOMEM, "numasim plot", 0, 0, "out of memory");
}

/* Sort a series' points by x (insertion sort: a few dozen points). */
static void sort_points(struct plot_series *s)
{
	for (int i = 1; i < s->n; i++)
		for (int j = i; j > 0 && s->x[j - 1] > s->x[j]; j--) {
			double *a[5] = {s->x, s->y, s->lo, s->hi, s->nobs};
			for (int k = 0; k < 5; k++) {
				double t = a[k][j];
				a[k][j] = a[k][j - 1];
				a[k][j - 1] = t;
			}
		}
}

/* The unit of the first metric matching glob ("" if none). */
static void line_unit(sqlite3 *db, const char *glob, char *buf, size_t len)
{
	sqlite3_stmt *st;
	buf[0] = '\0';
	if (sqlite3_prepare_v2(db, "SELECT unit FROM metrics WHERE name GLOB ?1 AND unit "
			       "IS NOT NULL ORDER BY name LIMIT 1", -1, &st, NULL) != SQLITE_OK)
		return;
	sqlite3_bind_text(st, 1, glob, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0))
		snprintf(buf, len, "%s", (const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
}

int plot_load_line(struct plot *p, sqlite3 *db, const char *dbname, const char *glob,
		   const char *xkey, const char *by, struct diag *d)
{
	int by_name = !xkey || !strcmp(xkey, "name");
	char *g = NULL, *x = NULL, *sql = NULL;
	sqlite3_stmt *st = NULL;
	int rc = NS_OK, s, rows = 0;
	char unit[64];

	if (!by)
		by = "variant";
	if ((rc = compare_key_check(db, dbname, by, d)) ||
	    (!by_name && (rc = compare_key_check(db, dbname, xkey, d))))
		return rc;
	g = compare_key_sql(by, 2);
	x = by_name ? sqlite3_mprintf("NULL") : compare_key_sql(xkey, 3);
	if (g && x)
		sql = sqlite3_mprintf(
			"SELECT %s, s.metric, %s, s.value FROM samples s JOIN runs r USING "
			"(run_id) WHERE r.status = 'ok' AND s.metric GLOB ?1 UNION ALL "
			"SELECT %s, m.name, %s, m.value FROM metrics m JOIN runs r USING "
			"(run_id) WHERE r.status = 'ok' AND m.name GLOB ?1 AND m.value IS NOT "
			"NULL AND NOT EXISTS (SELECT 1 FROM samples s2 WHERE s2.metric = m.name)",
			g, x, g, x);
	if (!sql) {
		rc = oomd(d);
		goto out;
	}
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
		rc = diag_set(d, NS_EDB, dbname, 0, 0, "%s", sqlite3_errmsg(db));
		goto out;
	}
	sqlite3_bind_text(st, 1, glob, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, by, -1, SQLITE_STATIC);
	if (!by_name)
		sqlite3_bind_text(st, 3, xkey, -1, SQLITE_STATIC);
	while ((s = sqlite3_step(st)) == SQLITE_ROW) {
		const char *gv = (const char *)sqlite3_column_text(st, 0);
		const char *name = (const char *)sqlite3_column_text(st, 1);
		const char *xs = (const char *)sqlite3_column_text(st, 2);
		double xv = by_name ? name_x(name ? name : "") : NAN, v = sqlite3_column_double(st, 3);
		char *end = NULL;
		if (!by_name && xs)
			xv = strtod(xs, &end);
		if (by_name && !isfinite(xv))
			continue; /* alloc-odr0-1.min: not a point of the curve */
		if (!by_name && (!xs || *end || !isfinite(xv))) {
			rc = diag_set(d, NS_EINPUT, dbname, 0, 0, "x key '%s' has the "
				      "non-numeric value '%s'", xkey, xs ? xs : "~");
			goto out;
		}
		struct plot_series *se = series_of(p, gv ? gv : "~");
		int i = se ? point_of(se, xv) : -1;
		if (i < 0) {
			rc = oomd(d);
			goto out;
		}
		se->y[i] += v;
		se->nobs[i]++;
		se->lo[i] = fmin(se->lo[i], v);
		se->hi[i] = fmax(se->hi[i], v);
		rows++;
	}
	if (s != SQLITE_DONE) {
		rc = diag_set(d, NS_EDB, dbname, 0, 0, "%s", sqlite3_errmsg(db));
		goto out;
	}
	if (rows == 0) {
		rc = diag_set(d, NS_EINPUT, dbname, 0, 0, "no metric matches '%s' in runs "
			      "with status 'ok'%s", glob, by_name ? " (with a number after "
			      "its last '-'; --x KEY plots against a parameter)" : "");
		goto out;
	}
	for (int k = 0; k < p->nr_series; k++) {
		struct plot_series *se = &p->series[k];
		for (int i = 0; i < se->n; i++)
			se->y[i] /= (double)se->nobs[i];
		sort_points(se);
	}
	snprintf(p->xlabel, sizeof p->xlabel, "%s", by_name ? "batch size (from the metric name)" : xkey);
	line_unit(db, glob, unit, sizeof unit);
	snprintf(p->ylabel, sizeof p->ylabel, "%s%s%s%s (mean, min-max bars)", glob,
		 unit[0] ? " [" : "", unit, unit[0] ? "]" : "");
	snprintf(p->title, sizeof p->title, "%s by %s", glob, by);
out:
	sqlite3_finalize(st);
	sqlite3_free(sql);
	sqlite3_free(g);
	sqlite3_free(x);
	return rc;
}


/* Category index of name, appended when new; -1 when out of memory. */
static int cat_of(struct plot *p, const char *name)
{
	for (int i = 0; i < p->nr_cats; i++)
		if (!strcmp(p->cats[i], name))
			return i;
	char **nc = realloc(p->cats, (size_t)(p->nr_cats + 1) * sizeof *nc);
	if (!nc)
		return -1;
	p->cats = nc;
	if (!(nc[p->nr_cats] = strdup(name)))
		return -1;
	return p->nr_cats++;
}

int plot_load_bars(struct plot *p, sqlite3 *db, const char *dbname, const char *what,
		   const char *by, int top, struct diag *d)
{
	static const char *const branch_cols[] = {"executed", "taken", "mispredicted"};
	int profile = !strcmp(what, "profile"), rc = NS_OK, s;
	const char *col = profile ? "self_cycles" : NULL;
	char *g = NULL, *sql = NULL;
	sqlite3_stmt *st = NULL;

	for (size_t i = 0; !profile && i < 3; i++)
		if (!strcmp(what, branch_cols[i]))
			col = branch_cols[i];
	if (!col)
		return diag_set(d, NS_EINPUT, "numasim plot", 0, 0, "unknown bar chart '%s' "
				"(profile, executed, taken or mispredicted)", what);
	if (!by)
		by = "variant";
	if ((rc = compare_key_check(db, dbname, by, d)))
		return rc;
	if (!(g = compare_key_sql(by, 1)))
		return oomd(d);
	/* Per group and category the mean over the group's runs (a run
	 * without the category counts as 0); categories ranked by the sum. */
	sql = sqlite3_mprintf(
		"WITH rr AS (SELECT r.run_id, %s AS g FROM runs r WHERE r.status = 'ok'), "
		"n AS (SELECT g, count(*) AS runs FROM rr GROUP BY g), "
		"v AS (SELECT rr.g, t.%s AS cat, sum(t.%s) AS total FROM %s t "
		"JOIN rr USING (run_id) GROUP BY rr.g, cat), "
		"rank AS (SELECT cat, sum(total) AS score FROM v GROUP BY cat "
		"ORDER BY score DESC, cat LIMIT ?2) "
		"SELECT v.g, v.cat, CAST(v.total AS REAL) / n.runs FROM v JOIN n USING (g) "
		"JOIN rank USING (cat) ORDER BY rank.score DESC, v.cat, "
		"(SELECT min(run_id) FROM rr WHERE rr.g = v.g)",
		g, profile ? "function" : "site", col, profile ? "profile" : "branches");
	if (!sql) {
		rc = oomd(d);
		goto out;
	}
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
		rc = diag_set(d, NS_EDB, dbname, 0, 0, "%s", sqlite3_errmsg(db));
		goto out;
	}
	sqlite3_bind_text(st, 1, by, -1, SQLITE_STATIC);
	sqlite3_bind_int(st, 2, top > 0 ? top : -1);
	while ((s = sqlite3_step(st)) == SQLITE_ROW) {
		const char *gv = (const char *)sqlite3_column_text(st, 0);
		const char *cat = (const char *)sqlite3_column_text(st, 1);
		int c = cat_of(p, cat ? cat : "?");
		struct plot_series *se = c >= 0 ? series_of(p, gv ? gv : "~") : NULL;
		int i = se ? point_of(se, c) : -1;
		if (i < 0) {
			rc = oomd(d);
			goto out;
		}
		se->y[i] = se->lo[i] = se->hi[i] = sqlite3_column_double(st, 2);
		se->nobs[i] = 1;
	}
	if (s != SQLITE_DONE) {
		rc = diag_set(d, NS_EDB, dbname, 0, 0, "%s", sqlite3_errmsg(db));
		goto out;
	}
	if (p->nr_cats == 0) {
		rc = diag_set(d, NS_EINPUT, dbname, 0, 0, "no %s rows in runs with status 'ok'",
			      profile ? "profile" : "branch");
		goto out;
	}
	/* Every series gets every category (0 where a group has none). */
	for (int k = 0; k < p->nr_series; k++) {
		struct plot_series *se = &p->series[k];
		for (int c = 0; c < p->nr_cats; c++) {
			int i = point_of(se, c);
			if (i < 0) {
				rc = oomd(d);
				goto out;
			}
			if (se->nobs[i] == 0)
				se->y[i] = se->lo[i] = se->hi[i] = 0;
			se->nobs[i] = 1;
		}
		sort_points(se);
	}
	snprintf(p->xlabel, sizeof p->xlabel, "%s", profile ? "function" : "branch site");
	snprintf(p->ylabel, sizeof p->ylabel, "%s per run", profile ? "self cycles" : col);
	snprintf(p->title, sizeof p->title, "%s by %s (top %d)",
		 profile ? "profile: self cycles" : col, by, p->nr_cats);
out:
	sqlite3_finalize(st);
	sqlite3_free(sql);
	sqlite3_free(g);
	return rc;
}

int plot_check(const struct plot *p)
{
	for (int k = 0; k < p->nr_series; k++) {
		const struct plot_series *s = &p->series[k];
		if (s->n > s->cap || (p->kind == PLOT_BAR && s->n != p->nr_cats))
			return NS_EINTERNAL;
		for (int i = 0; i < s->n; i++) {
			if (!isfinite(s->x[i]) || !isfinite(s->y[i]) || !(s->lo[i] <= s->y[i]) ||
			    !(s->y[i] <= s->hi[i]) || s->nobs[i] < 1)
				return NS_EINTERNAL;
			if (i && !(s->x[i - 1] < s->x[i]))
				return NS_EINTERNAL;
		}
	}
	return NS_OK;
}

static void xml_text(FILE *f, const char *s)
{
	for (; *s; s++)
		switch (*s) {
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '&': fputs("&amp;", f); break;
		case '"': fputs("&quot;", f); break;
		default:
			if ((unsigned char)*s >= 0x20)
				fputc(*s, f);
		}
}

struct axes {
	double x0, x1, y0, y1; /* data range */
	int logx;
	double pw, ph;         /* plot area */
};

static double px(const struct axes *a, double x)
{
	double t = a->logx ? (log2(x) - log2(a->x0)) / (log2(a->x1) - log2(a->x0))
			   : (x - a->x0) / (a->x1 - a->x0);
	return ML + t * a->pw;
}

static double py(const struct axes *a, double y)
{
	return MT + a->ph - (y - a->y0) / (a->y1 - a->y0) * a->ph;
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
	double step = nice_step(a->y1 - a->y0, 6);
	a->y1 = ceil(a->y1 / step) * step;
	a->y0 = floor(a->y0 / step) * step;
	a->pw = PLOT_WIDTH - ML - MR;
	a->ph = PLOT_HEIGHT - MT - MB;
}

static void fmt_num(char *buf, size_t len, double v)
{
	if (fabs(v) >= 1e6 || (v != 0 && fabs(v) < 1e-3))
		snprintf(buf, len, "%.3g", v);
	else
		snprintf(buf, len, "%.10g", round(v * 1e6) / 1e6);
}

static void svg_axes(const struct plot *p, const struct axes *a, FILE *f)
{
	char b[64];
	double step = nice_step(a->y1 - a->y0, 6);
	fprintf(f, "<g class=\"axes\" stroke=\"#000\" stroke-width=\"1\">\n"
		"<line x1=\"%d\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n"
		"<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%.1f\"/>\n</g>\n",
		ML, MT + a->ph, ML + a->pw, MT + a->ph, ML, MT, ML, MT + a->ph);
	fprintf(f, "<g class=\"yticks\" font-size=\"11\" text-anchor=\"end\">\n");
	for (double y = a->y0; y <= a->y1 + step / 2; y += step) {
		fmt_num(b, sizeof b, y);
		fprintf(f, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/>"
			"<text x=\"%d\" y=\"%.1f\">%s</text>\n", ML, py(a, y), ML + a->pw, py(a, y),
			ML - 6, py(a, y) + 4, b);
	}
	fprintf(f, "</g>\n<g class=\"xticks\" font-size=\"11\" text-anchor=\"middle\">\n");
	if (p->kind == PLOT_BAR) {
		for (int c = 0; c < p->nr_cats; c++) {
			double x = px(a, c);
			fprintf(f, "<text transform=\"translate(%.1f,%.1f) rotate(-30)\" "
				"text-anchor=\"end\">", x, MT + a->ph + 14);
			xml_text(f, p->cats[c]);
			fputs("</text>\n", f);
		}
	} else if (a->logx) {
		int k0 = (int)ceil(log2(a->x0) - 1e-9), k1 = (int)floor(log2(a->x1) + 1e-9);
		int every = (k1 - k0) / 8 + 1;
		for (int k = k0; k <= k1; k += every) {
			fmt_num(b, sizeof b, pow(2, k));
			fprintf(f, "<text x=\"%.1f\" y=\"%.1f\">%s</text>\n", px(a, pow(2, k)),
				MT + a->ph + 16, b);
		}
	} else {
		double xs = nice_step(a->x1 - a->x0, 8);
		for (double x = ceil(a->x0 / xs) * xs; x <= a->x1 + xs / 1e6; x += xs) {
			fmt_num(b, sizeof b, x);
			fprintf(f, "<text x=\"%.1f\" y=\"%.1f\">%s</text>\n", px(a, x),
				MT + a->ph + 16, b);
		}
	}
	fputs("</g>\n", f);
	fprintf(f, "<text class=\"xlabel\" x=\"%.1f\" y=\"%d\" font-size=\"13\" "
		"text-anchor=\"middle\">", ML + a->pw / 2, PLOT_HEIGHT - 10);
	xml_text(f, p->xlabel);
	fprintf(f, "%s</text>\n<text class=\"ylabel\" transform=\"translate(18,%.1f) "
		"rotate(-90)\" font-size=\"13\" text-anchor=\"middle\">",
		a->logx ? " (log scale)" : "", MT + a->ph / 2);
	xml_text(f, p->ylabel);
	fputs("</text>\n", f);
}

static void svg_series(const struct plot *p, const struct axes *a, int k, FILE *f)
{
	const struct plot_series *s = &p->series[k];
	const char *col = palette[(size_t)k % NR_COLORS];
	fputs("<g class=\"series\" data-name=\"", f);
	xml_text(f, s->name);
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
	double ly = MT + 10 + 20 * k, lx = PLOT_WIDTH - MR + 15;
	fprintf(f, "<rect class=\"legend\" x=\"%.1f\" y=\"%.1f\" width=\"12\" height=\"12\"/>"
		"<text x=\"%.1f\" y=\"%.1f\" font-size=\"12\" stroke=\"none\" fill=\"#000\">",
		lx, ly - 10, lx + 18, ly);
	xml_text(f, s->name);
	fputs("</text>\n</g>\n", f);
}

int plot_svg(const struct plot *p, FILE *f)
{
	struct axes a;
	if (p->nr_series == 0)
		return NS_EINTERNAL;
	make_axes(p, &a);
	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
		"viewBox=\"0 0 %d %d\" font-family=\"sans-serif\">\n"
		"<rect width=\"100%%\" height=\"100%%\" fill=\"#fff\"/>\n"
		"<text class=\"title\" x=\"%d\" y=\"28\" font-size=\"15\" "
		"text-anchor=\"middle\">", PLOT_WIDTH, PLOT_HEIGHT, PLOT_WIDTH, PLOT_HEIGHT,
		(PLOT_WIDTH - MR + ML) / 2);
	xml_text(f, p->title);
	fputs("</text>\n", f);
	svg_axes(p, &a, f);
	for (int k = 0; k < p->nr_series; k++)
		svg_series(p, &a, k, f);
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
	if (p->nr_series == 0)
		return NS_EINTERNAL;
	make_axes(p, &a);
	fprintf(f, "set terminal pngcairo noenhanced size %d,%d\nset output ", PLOT_WIDTH,
		PLOT_HEIGHT);
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
