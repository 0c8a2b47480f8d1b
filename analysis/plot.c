/*
 * plot — loading line and bar charts from a results database; see
 * plot.h (the writers are in analysis/plot_render.c).
 *
 * Design notes.  The loaders turn one SQL result (group, x or category,
 * value) into series held in memory: a line point accumulates count, sum,
 * min and max of its observations; a bar is the mean over the group's
 * runs (the SQL averages).  The --where filters are analysis/compare.h's,
 * bound as parameters after the loader's own, so no user text is pasted
 * into SQL.
 */
#include "analysis/plot.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/compare.h"

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
	char *g = NULL, *x = NULL, *w = NULL, *sql = NULL;
	sqlite3_stmt *st = NULL;
	int rc = NS_OK, s, rows = 0;
	char unit[64];

	const char *by_given = by;
	if (!by)
		by = "variant";
	if ((rc = compare_where_valid(p->where, p->nr_where, "numasim plot", d)) ||
	    (rc = compare_key_check(db, dbname, by, d)) ||
	    (!by_name && (rc = compare_key_check(db, dbname, xkey, d))) ||
	    (rc = compare_where_check(db, dbname, p->where, p->nr_where, d)))
		return rc;
	/* no --by: the legend says what differs (compare_label_sql) */
	if (by_given)
		g = compare_key_sql(by, 2);
	else if ((rc = compare_label_sql(db, dbname, p->where, p->nr_where, &g, d)))
		return rc;
	x = by_name ? sqlite3_mprintf("NULL") : compare_key_sql(xkey, 3);
	w = compare_where_sql(p->where, p->nr_where, 4);
	if (g && x && w)
		sql = sqlite3_mprintf(
			"SELECT %s, s.metric, %s, s.value FROM samples s JOIN runs r USING "
			"(run_id) WHERE r.status = 'ok' AND s.metric GLOB ?1%s UNION ALL "
			"SELECT %s, m.name, %s, m.value FROM metrics m JOIN runs r USING "
			"(run_id) WHERE r.status = 'ok' AND m.name GLOB ?1 AND m.value IS NOT "
			"NULL AND NOT EXISTS (SELECT 1 FROM samples s2 WHERE s2.metric = m.name)%s",
			g, x, w, g, x, w);
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
	compare_where_bind(st, p->where, p->nr_where, 4);
	while ((s = sqlite3_step(st)) == SQLITE_ROW) {
		const char *gv = (const char *)sqlite3_column_text(st, 0);
		const char *name = (const char *)sqlite3_column_text(st, 1);
		const char *xs = (const char *)sqlite3_column_text(st, 2);
		double xv = by_name ? name_x(name ? name : "") : NAN, v = sqlite3_column_double(st, 3);
		int vt = sqlite3_column_type(st, 3);
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
		/* A value the store would never write (text, a blob, an
		 * infinity) is a damaged or edited database: bad input. */
		if ((vt != SQLITE_INTEGER && vt != SQLITE_FLOAT) || !isfinite(v)) {
			rc = diag_set(d, NS_EINPUT, dbname, 0, 0, "metric '%s' has the "
				      "non-numeric value '%s' (a damaged or edited database)",
				      name ? name : "~", vt == SQLITE_NULL ? "NULL" :
				      vt == SQLITE_BLOB ? "(blob)" :
				      (const char *)sqlite3_column_text(st, 3));
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
			      "with status 'ok'%s%s", glob, p->nr_where ? " that pass the "
			      "--where filters" : "", by_name ? " (with a number after "
			      "its last '-'; --x KEY plots against a parameter)" : "");
		goto out;
	}
	for (int k = 0; k < p->nr_series; k++) {
		struct plot_series *se = &p->series[k];
		/* The mean of n equal values can round an ulp outside them
		 * (0.1 + 0.1 + 0.1 = 0.30000000000000004, / 3 > 0.1): clamped
		 * into [min, max], where it is mathematically. */
		for (int i = 0; i < se->n; i++)
			se->y[i] = fmin(fmax(se->y[i] / (double)se->nobs[i], se->lo[i]),
					se->hi[i]);
		sort_points(se);
	}
	snprintf(p->xlabel, sizeof p->xlabel, "%s", by_name ? "batch size (from the metric name)" : xkey);
	line_unit(db, glob, unit, sizeof unit);
	char ul[64];
	compare_unit_label(unit, ul, sizeof ul);
	snprintf(p->ylabel, sizeof p->ylabel, "%s%s%s%s (mean, min-max bars)", glob,
		 ul[0] ? " [" : "", ul, ul[0] ? "]" : "");
	snprintf(p->title, sizeof p->title, "%s by %s", glob, by);
out:
	sqlite3_finalize(st);
	sqlite3_free(sql);
	sqlite3_free(g);
	sqlite3_free(x);
	sqlite3_free(w);
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
	char *g = NULL, *w = NULL, *sql = NULL;
	sqlite3_stmt *st = NULL;

	for (size_t i = 0; !profile && i < 3; i++)
		if (!strcmp(what, branch_cols[i]))
			col = branch_cols[i];
	if (!col)
		return diag_set(d, NS_EINPUT, "numasim plot", 0, 0, "unknown bar chart '%s' "
				"(profile, executed, taken or mispredicted)", what);
	const char *by_given = by;
	if (!by)
		by = "variant";
	if ((rc = compare_where_valid(p->where, p->nr_where, "numasim plot", d)) ||
	    (rc = compare_key_check(db, dbname, by, d)) ||
	    (rc = compare_where_check(db, dbname, p->where, p->nr_where, d)))
		return rc;
	if (by_given)
		g = compare_key_sql(by, 1);
	else if ((rc = compare_label_sql(db, dbname, p->where, p->nr_where, &g, d)))
		return rc;
	w = compare_where_sql(p->where, p->nr_where, 3);
	/* Per group and category the mean over the group's runs (a run
	 * without the category counts as 0); categories ranked by the sum. */
	if (g && w)
		sql = sqlite3_mprintf(
			"WITH rr AS (SELECT r.run_id, %s AS g FROM runs r WHERE r.status = 'ok'%s), "
			"n AS (SELECT g, count(*) AS runs FROM rr GROUP BY g), "
			"v AS (SELECT rr.g, t.%s AS cat, sum(t.%s) AS total FROM %s t "
			"JOIN rr USING (run_id) GROUP BY rr.g, cat), "
			"rank AS (SELECT cat, sum(total) AS score FROM v GROUP BY cat "
			"ORDER BY score DESC, cat LIMIT ?2) "
			"SELECT v.g, v.cat, CAST(v.total AS REAL) / n.runs FROM v JOIN n USING (g) "
			"JOIN rank USING (cat) ORDER BY rank.score DESC, v.cat, "
			"(SELECT min(run_id) FROM rr WHERE rr.g = v.g)",
			g, w, profile ? "function" : "site", col, profile ? "profile" : "branches");
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
	compare_where_bind(st, p->where, p->nr_where, 3);
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
		if (!isfinite(se->y[i])) {
			rc = diag_set(d, NS_EINPUT, dbname, 0, 0, "%s '%s' has a non-numeric "
				      "or infinite value (a damaged or edited database)",
				      profile ? "function" : "site", cat ? cat : "~");
			goto out;
		}
	}
	if (s != SQLITE_DONE) {
		rc = diag_set(d, NS_EDB, dbname, 0, 0, "%s", sqlite3_errmsg(db));
		goto out;
	}
	if (p->nr_cats == 0) {
		rc = diag_set(d, NS_EINPUT, dbname, 0, 0, "no %s rows in runs with status "
			      "'ok'%s", profile ? "profile" : "branch",
			      p->nr_where ? " that pass the --where filters" : "");
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
	snprintf(p->ylabel, sizeof p->ylabel, "%s per run", profile ? "self core cycles" : col);
	snprintf(p->title, sizeof p->title, "%s by %s (top %d)",
		 profile ? "profile: self core cycles" : col, by, p->nr_cats);
out:
	sqlite3_finalize(st);
	sqlite3_free(sql);
	sqlite3_free(g);
	sqlite3_free(w);
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
