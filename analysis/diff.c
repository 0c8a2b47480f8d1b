/*
 * diff — perf diff of groups of runs; see diff.h.
 *
 * Design notes.  Groups are lists of members (database index, run id).
 * Loading reads, per member run, its operation count, its profile and
 * branch rows and its metric observations into flat arrays of raw rows
 * (name, group, values), checking each cell's type; diff_compute sorts
 * those arrays by (name, group) and folds them into items with one value
 * per group, so the cost is O(n log n) in the rows whatever the file
 * holds.  The three writers (text, records, HTML) share the table
 * builders below: a table is a grid of cells, built once and then laid
 * out as aligned text or escaped HTML, so the columns of `numasim diff`
 * and of the report's section cannot drift apart.
 */
#include "analysis/diff.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/compare.h"
#include "analysis/latency_hist.h"
#include "analysis/markup.h"
#include "base/records.h"

enum { FN_SELF, FN_TOTAL, FN_CALLS, FN_NR };
enum { BR_EXECUTED, BR_MISPREDICTED, BR_NR };

struct member {
	int db;
	int64_t run;
};

struct group {
	char *label;
	struct member *m;
	int nr, cap;
	double ops;            /* sum of the runs' operation counts */
	int ops_missing;       /* runs without a count */
};

/* A raw row: one run's figures of one function, site or observation. */
struct raw {
	char *name;
	char *extra;           /* a site's function, a metric's unit; may be NULL */
	int group;
	int flag;              /* inlined (functions) */
	double v[FN_NR];
};

struct raws {
	struct raw *r;
	size_t n, cap;
};

/* A function, site or metric with its value per group. */
struct item {
	char *name;
	char *extra;
	double *v;             /* [nr_groups * width] */
	int *flag;             /* [nr_groups]: -1 absent, else max of the runs' flags */
	long *n;               /* metrics: observations per group */
	double key[2];         /* sort keys: largest |delta| of columns 0 and 1 */
};

struct items {
	struct item *it;
	size_t n;
	int width;
};

struct diff {
	struct diff_opts o;
	const char *origin;
	struct diag *d;
	struct group *g;
	int nr_groups, cap_groups;
	struct raws fn_raw, br_raw, m_raw;
	struct items fns, brs, mets;   /* mets: width 2 (min, mean) */
	int per_run;                   /* some run has no operation count */
	int computed;
};

static int oom(struct diff *df)
{
	return diag_set(df->d, NS_ENOMEM, df->origin, 0, 0, "out of memory");
}

static int db_err(struct diff *df, sqlite3 *db, const char *dbname)
{
	return diag_set(df->d, NS_EDB, dbname, 0, 0, "%s", sqlite3_errmsg(db));
}

const char *diff_ops_metric(const char *workload)
{
	static const char *const t[][2] = {
		{"pagealloc", "allocs"}, {"fill", "allocs"},
		{"messaging", "messages"}, {"parallel", "ops"},
	};
	for (size_t i = 0; workload && i < sizeof t / sizeof t[0]; i++)
		if (!strcmp(workload, t[i][0]))
			return t[i][1];
	return NULL;
}

int diff_new(const struct diff_opts *o, const char *origin, struct diag *d,
	     struct diff **out)
{
	struct diff *df = calloc(1, sizeof *df);
	*out = NULL;
	if (!df)
		return diag_set(d, NS_ENOMEM, origin, 0, 0, "out of memory");
	df->o = *o;
	if (!df->o.by)
		df->o.by = "variant";
	df->origin = origin;
	df->d = d;
	df->fns.width = FN_NR;
	df->brs.width = BR_NR;
	df->mets.width = 2;
	*out = df;
	return NS_OK;
}

static void raws_free(struct raws *r)
{
	for (size_t i = 0; i < r->n; i++) {
		free(r->r[i].name);
		free(r->r[i].extra);
	}
	free(r->r);
	memset(r, 0, sizeof *r);
}

static void items_free(struct items *s)
{
	for (size_t i = 0; i < s->n; i++) {
		free(s->it[i].name);
		free(s->it[i].extra);
		free(s->it[i].v);
		free(s->it[i].flag);
		free(s->it[i].n);
	}
	free(s->it);
	s->it = NULL;
	s->n = 0;
}

void diff_free(struct diff *df)
{
	if (!df)
		return;
	for (int i = 0; i < df->nr_groups; i++) {
		free(df->g[i].label);
		free(df->g[i].m);
	}
	free(df->g);
	raws_free(&df->fn_raw);
	raws_free(&df->br_raw);
	raws_free(&df->m_raw);
	items_free(&df->fns);
	items_free(&df->brs);
	items_free(&df->mets);
	free(df);
}

/* ---- groups ------------------------------------------------------------------ */

static int find_label(const struct diff *df, const char *label)
{
	for (int i = 0; i < df->nr_groups; i++)
		if (!strcmp(df->g[i].label, label))
			return i;
	return -1;
}

/* The group labelled label, created when new; -1 when out of memory. */
static int group_of(struct diff *df, const char *label)
{
	int i = find_label(df, label);
	if (i >= 0)
		return i;
	if (df->nr_groups == df->cap_groups) {
		int cap = df->cap_groups ? 2 * df->cap_groups : 4;
		struct group *g = realloc(df->g, (size_t)cap * sizeof *g);
		if (!g)
			return -1;
		df->g = g;
		df->cap_groups = cap;
	}
	struct group *g = &df->g[df->nr_groups];
	memset(g, 0, sizeof *g);
	if (!(g->label = strdup(label)))
		return -1;
	return df->nr_groups++;
}

static int add_member(struct diff *df, int gi, int db, int64_t run)
{
	struct group *g = &df->g[gi];
	if (g->nr == g->cap) {
		int cap = g->cap ? 2 * g->cap : 4;
		struct member *m = realloc(g->m, (size_t)cap * sizeof *m);
		if (!m)
			return oom(df);
		g->m = m;
		g->cap = cap;
	}
	g->m[g->nr++] = (struct member){db, run};
	return NS_OK;
}

/* The ok runs passing the filters, with their key value (or label). */
static int add_runs(struct diff *df, int db_index, sqlite3 *db, const char *dbname,
		    const char *label)
{
	int rc = compare_key_check(db, dbname, df->o.by, df->d);
	if (rc == NS_OK)
		rc = compare_where_check(db, dbname, df->o.where, df->o.nr_where, df->d);
	if (rc)
		return rc;
	char *key = compare_key_sql(df->o.by, 1);
	char *w = compare_where_sql(df->o.where, df->o.nr_where, 2);
	char *sql = key && w ? sqlite3_mprintf("SELECT r.run_id, %s FROM runs r WHERE "
					       "r.status = 'ok'%s ORDER BY r.point, r.run_id",
					       key, w) : NULL;
	sqlite3_free(key);
	sqlite3_free(w);
	if (!sql)
		return oom(df);
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
		sqlite3_free(sql);
		return db_err(df, db, dbname);
	}
	sqlite3_free(sql);
	sqlite3_bind_text(st, 1, df->o.by, -1, SQLITE_STATIC);
	compare_where_bind(st, df->o.where, df->o.nr_where, 2);
	int s;
	while (rc == NS_OK && (s = sqlite3_step(st)) == SQLITE_ROW) {
		const char *v = (const char *)sqlite3_column_text(st, 1);
		if (sqlite3_column_type(st, 0) != SQLITE_INTEGER || !v) {
			rc = diag_set(df->d, NS_EINPUT, dbname, 0, 0, "a run of table runs has "
				      "no integer run_id or no %s", df->o.by);
			break;
		}
		int gi = group_of(df, label ? label : v);
		rc = gi < 0 ? oom(df) : add_member(df, gi, db_index, sqlite3_column_int64(st, 0));
	}
	if (rc == NS_OK && s != SQLITE_DONE)
		rc = db_err(df, db, dbname);
	sqlite3_finalize(st);
	return rc;
}

int diff_add_key(struct diff *df, int db_index, sqlite3 *db, const char *dbname)
{
	return add_runs(df, db_index, db, dbname, NULL);
}

int diff_add_all(struct diff *df, int db_index, sqlite3 *db, const char *dbname,
		 const char *label)
{
	int before = df->nr_groups, rc = add_runs(df, db_index, db, dbname, label);
	if (rc == NS_OK && df->nr_groups == before && find_label(df, label) < 0)
		rc = diag_set(df->d, NS_EINPUT, dbname, 0, 0, "no runs with status 'ok'%s",
			      df->o.nr_where ? " match the --where filters" : "");
	return rc;
}

int diff_add_run(struct diff *df, int db_index, sqlite3 *db, const char *dbname,
		 int64_t run, int with_db)
{
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(db, "SELECT 1 FROM runs WHERE run_id = ?1", -1, &st, NULL) !=
	    SQLITE_OK)
		return db_err(df, db, dbname);
	sqlite3_bind_int64(st, 1, run);
	int s = sqlite3_step(st);
	sqlite3_finalize(st);
	if (s == SQLITE_DONE) {
		int64_t lo = 0, hi = 0, n = 0;
		if (sqlite3_prepare_v2(db, "SELECT min(run_id), max(run_id), count(*) FROM runs",
				       -1, &st, NULL) != SQLITE_OK)
			return db_err(df, db, dbname);
		if (sqlite3_step(st) == SQLITE_ROW) {
			lo = sqlite3_column_int64(st, 0);
			hi = sqlite3_column_int64(st, 1);
			n = sqlite3_column_int64(st, 2);
		}
		sqlite3_finalize(st);
		return diag_set(df->d, NS_EINPUT, dbname, 0, 0, "no run %" PRId64 " (%s%" PRId64
				"%s%.0" PRId64 "; `numasim report %s --runs` lists them)", run,
				n ? "the run ids are " : "no runs", lo, n > 1 ? " to " : "",
				n > 1 ? hi : 0, dbname);
	}
	if (s != SQLITE_ROW)
		return db_err(df, db, dbname);
	char label[600];
	snprintf(label, sizeof label, "%s%srun %" PRId64, with_db ? dbname : "",
		 with_db ? ": " : "", run);
	int gi = group_of(df, label);
	return gi < 0 ? oom(df) : add_member(df, gi, db_index, run);
}

int diff_nr_groups(const struct diff *df)
{
	return df->nr_groups;
}

const char *diff_group_label(const struct diff *df, int g)
{
	return g >= 0 && g < df->nr_groups ? df->g[g].label : NULL;
}

int diff_group_find(const struct diff *df, const char *name)
{
	int i = find_label(df, name);
	if (i >= 0)
		return i;
	/* a variant's short name: the value after the last '=', when it is
	 * one selection (no comma) */
	for (int g = 0; g < df->nr_groups; g++) {
		const char *l = df->g[g].label, *eq = strrchr(l, '=');
		if (eq && !strchr(l, ',') && !strcmp(eq + 1, name))
			return g;
	}
	return -1;
}

int diff_select(struct diff *df, const char *const *names, int n)
{
	struct group *g = calloc((size_t)(n > 0 ? n : 1), sizeof *g);
	char *used = calloc((size_t)df->nr_groups + 1, 1);
	int rc = g && used ? NS_OK : oom(df);
	for (int i = 0; i < n && rc == NS_OK; i++) {
		int k = diff_group_find(df, names[i]);
		if (k < 0)
			rc = diag_set(df->d, NS_EINPUT, df->origin, 0, 0, "unknown group '%s'",
				      names[i]);
		else if (used[k])
			rc = diag_set(df->d, NS_EINPUT, df->origin, 0, 0, "group '%s' named "
				      "twice", df->g[k].label);
		else {
			used[k] = 1;
			g[i] = df->g[k];
		}
	}
	if (rc == NS_OK) {
		for (int k = 0; k < df->nr_groups; k++)
			if (!used[k]) {
				free(df->g[k].label);
				free(df->g[k].m);
			}
		free(df->g);
		df->g = g;
		df->nr_groups = df->cap_groups = n;
		g = NULL;
	}
	free(g);
	free(used);
	return rc;
}

int diff_set_baseline(struct diff *df, const char *name)
{
	int k = diff_group_find(df, name);
	if (k < 0)
		return diag_set(df->d, NS_EINPUT, df->origin, 0, 0, "unknown baseline '%s'",
				name);
	struct group b = df->g[k];
	memmove(df->g + 1, df->g, (size_t)k * sizeof *df->g);
	df->g[0] = b;
	return NS_OK;
}

/* ---- loading ------------------------------------------------------------------ */

static int raw_push(struct diff *df, struct raws *r, const char *name, const char *extra,
		    int group, int flag, const double *v, int nv)
{
	if (r->n == r->cap) {
		size_t cap = r->cap ? 2 * r->cap : 64;
		struct raw *p = realloc(r->r, cap * sizeof *p);
		if (!p)
			return oom(df);
		r->r = p;
		r->cap = cap;
	}
	struct raw *x = &r->r[r->n];
	memset(x, 0, sizeof *x);
	x->name = strdup(name);
	x->extra = extra ? strdup(extra) : NULL;
	if (!x->name || (extra && !x->extra)) {
		free(x->name);
		free(x->extra);
		return oom(df);
	}
	x->group = group;
	x->flag = flag;
	for (int i = 0; i < nv; i++)
		x->v[i] = v[i];
	r->n++;
	return NS_OK;
}

/* A row's cell check: NS_OK, or NS_EINPUT naming table, run, row and column. */
static int bad_cell(struct diff *df, const char *dbname, const char *table, int64_t run,
		    const char *row, const char *col, const char *what)
{
	return diag_set(df->d, NS_EINPUT, dbname, 0, 0, "run %" PRId64 ": %s row '%s': %s %s "
			"(the file was edited outside numasim)", run, table, row ? row : "?",
			col, what);
}

static int int_cell(struct diff *df, sqlite3_stmt *st, int i, const char *dbname,
		    const char *table, int64_t run, const char *row, double *out)
{
	int ty = sqlite3_column_type(st, i);
	const char *col = sqlite3_column_name(st, i);
	if (ty == SQLITE_NULL)
		return bad_cell(df, dbname, table, run, row, col, "is NULL");
	if (ty != SQLITE_INTEGER)
		return bad_cell(df, dbname, table, run, row, col, "is not an integer");
	int64_t v = sqlite3_column_int64(st, i);
	if (v < 0)
		return bad_cell(df, dbname, table, run, row, col, "is negative");
	*out = (double)v;
	return NS_OK;
}

/* A TEXT cell (NULL allowed when nullable); *out NULL for NULL. */
static int text_cell(struct diff *df, sqlite3_stmt *st, int i, const char *dbname,
		     const char *table, int64_t run, const char *row, int nullable,
		     const char **out)
{
	int ty = sqlite3_column_type(st, i);
	const char *col = sqlite3_column_name(st, i);
	*out = NULL;
	if (ty == SQLITE_NULL && nullable)
		return NS_OK;
	if (ty == SQLITE_NULL)
		return bad_cell(df, dbname, table, run, row, col, "is NULL");
	if (ty != SQLITE_TEXT)
		return bad_cell(df, dbname, table, run, row, col, "is not text");
	*out = (const char *)sqlite3_column_text(st, i);
	if (!*out)
		return oom(df);
	if (!**out && !nullable)
		return bad_cell(df, dbname, table, run, row, col, "is empty");
	return NS_OK;
}

enum { Q_RUN, Q_OPS, Q_PROFILE, Q_BRANCHES, Q_METRICS, Q_NR };

static const char *const load_sql[Q_NR] = {
	[Q_RUN] = "SELECT workload FROM runs WHERE run_id = ?1",
	[Q_OPS] = "SELECT value FROM metrics WHERE run_id = ?1 AND name = ?2",
	[Q_PROFILE] = "SELECT function, inlined, self_cycles, total_cycles, calls "
		      "FROM profile WHERE run_id = ?1 ORDER BY function",
	[Q_BRANCHES] = "SELECT site, function, executed, mispredicted "
		       "FROM branches WHERE run_id = ?1 ORDER BY site",
	/* compare_load's observations: samples of a series, else the metric's
	 * value; NAME.min of a series is its Min already */
	[Q_METRICS] = "SELECT m.name, m.unit, m.value FROM metrics m "
		      "WHERE m.run_id = ?1 AND m.value IS NOT NULL AND m.name NOT GLOB '"
		      LATENCY_HIST_GLOB "' AND NOT EXISTS "
		      "(SELECT 1 FROM samples s WHERE s.run_id = m.run_id AND s.metric = m.name) "
		      "AND NOT (m.name GLOB '*.min' AND EXISTS (SELECT 1 FROM samples s "
		      "WHERE s.run_id = m.run_id AND s.metric = substr(m.name, 1, length(m.name) - 4))) "
		      "UNION ALL SELECT s.metric, m.unit, s.value FROM samples s "
		      "LEFT JOIN metrics m ON m.run_id = s.run_id AND m.name = s.metric "
		      "WHERE s.run_id = ?1",
};

static int load_ops(struct diff *df, sqlite3_stmt **q, const char *dbname, int64_t run,
		    struct group *g)
{
	sqlite3_bind_int64(q[Q_RUN], 1, run);
	int s = sqlite3_step(q[Q_RUN]), rc = NS_OK;
	const char *wl = NULL;
	if (s == SQLITE_ROW)
		rc = text_cell(df, q[Q_RUN], 0, dbname, "runs", run, "runs", 0, &wl);
	const char *m = rc == NS_OK ? diff_ops_metric(wl) : NULL;
	if (m) {
		sqlite3_bind_int64(q[Q_OPS], 1, run);
		sqlite3_bind_text(q[Q_OPS], 2, m, -1, SQLITE_STATIC);
		s = sqlite3_step(q[Q_OPS]);
		int ty = s == SQLITE_ROW ? sqlite3_column_type(q[Q_OPS], 0) : SQLITE_NULL;
		if (s == SQLITE_ROW && ty != SQLITE_NULL && ty != SQLITE_INTEGER &&
		    ty != SQLITE_FLOAT)
			rc = bad_cell(df, dbname, "metrics", run, m, "value", "is not a number");
		double v = sqlite3_column_double(q[Q_OPS], 0);
		if (rc == NS_OK && ty != SQLITE_NULL && v > 0 && isfinite(v))
			g->ops += v;
		else
			m = NULL;
		sqlite3_reset(q[Q_OPS]);
	}
	if (!m)
		g->ops_missing++;
	sqlite3_reset(q[Q_RUN]);
	return rc;
}

static int load_profile(struct diff *df, sqlite3_stmt *st, const char *dbname, int64_t run,
			int gi)
{
	int s, rc = NS_OK;
	sqlite3_bind_int64(st, 1, run);
	while (rc == NS_OK && (s = sqlite3_step(st)) == SQLITE_ROW) {
		const char *fn;
		double v[FN_NR], inl;
		if ((rc = text_cell(df, st, 0, dbname, "profile", run, NULL, 0, &fn)) ||
		    (rc = int_cell(df, st, 1, dbname, "profile", run, fn, &inl)) ||
		    (rc = int_cell(df, st, 2, dbname, "profile", run, fn, &v[FN_SELF])) ||
		    (rc = int_cell(df, st, 3, dbname, "profile", run, fn, &v[FN_TOTAL])) ||
		    (rc = int_cell(df, st, 4, dbname, "profile", run, fn, &v[FN_CALLS])))
			break;
		rc = raw_push(df, &df->fn_raw, fn, NULL, gi, inl != 0, v, FN_NR);
	}
	if (rc == NS_OK && s != SQLITE_DONE)
		rc = NS_EDB;
	sqlite3_reset(st);
	return rc;
}

static int load_branches(struct diff *df, sqlite3_stmt *st, const char *dbname,
			 int64_t run, int gi)
{
	int s, rc = NS_OK;
	sqlite3_bind_int64(st, 1, run);
	while (rc == NS_OK && (s = sqlite3_step(st)) == SQLITE_ROW) {
		const char *site, *fn;
		double v[BR_NR];
		if ((rc = text_cell(df, st, 0, dbname, "branches", run, NULL, 0, &site)) ||
		    (rc = text_cell(df, st, 1, dbname, "branches", run, site, 1, &fn)) ||
		    (rc = int_cell(df, st, 2, dbname, "branches", run, site, &v[BR_EXECUTED])) ||
		    (rc = int_cell(df, st, 3, dbname, "branches", run, site,
				   &v[BR_MISPREDICTED])))
			break;
		rc = raw_push(df, &df->br_raw, site, fn, gi, 0, v, BR_NR);
	}
	if (rc == NS_OK && s != SQLITE_DONE)
		rc = NS_EDB;
	sqlite3_reset(st);
	return rc;
}

static int load_metrics(struct diff *df, sqlite3_stmt *st, const char *dbname,
			int64_t run, int gi, const char *globs)
{
	int s, rc = NS_OK;
	sqlite3_bind_int64(st, 1, run);
	while (rc == NS_OK && (s = sqlite3_step(st)) == SQLITE_ROW) {
		const char *name, *unit;
		if ((rc = text_cell(df, st, 0, dbname, "metrics", run, NULL, 0, &name)) ||
		    (rc = text_cell(df, st, 1, dbname, "metrics", run, name, 1, &unit)))
			break;
		int ty = sqlite3_column_type(st, 2);
		if (ty != SQLITE_INTEGER && ty != SQLITE_FLOAT) {
			rc = bad_cell(df, dbname, "metrics or samples", run, name, "value",
				      ty == SQLITE_NULL ? "is NULL" : "is not a number");
			break;
		}
		double v = sqlite3_column_double(st, 2);
		if (!isfinite(v) || !compare_metric_selected(globs, name))
			continue;
		rc = raw_push(df, &df->m_raw, name, unit ? unit : "", gi, 0, &v, 1);
	}
	if (rc == NS_OK && s != SQLITE_DONE)
		rc = NS_EDB;
	sqlite3_reset(st);
	return rc;
}

int diff_load(struct diff *df, int db_index, sqlite3 *db, const char *dbname)
{
	sqlite3_stmt *q[Q_NR] = {0};
	int rc = NS_OK;
	for (int i = 0; i < Q_NR && rc == NS_OK; i++)
		if (sqlite3_prepare_v2(db, load_sql[i], -1, &q[i], NULL) != SQLITE_OK)
			rc = db_err(df, db, dbname);
	for (int gi = 0; gi < df->nr_groups && rc == NS_OK; gi++) {
		struct group *g = &df->g[gi];
		for (int k = 0; k < g->nr && rc == NS_OK; k++) {
			int64_t run = g->m[k].run;
			if (g->m[k].db != db_index)
				continue;
			const char *wl = NULL;
			sqlite3_bind_int64(q[Q_RUN], 1, run);
			if (sqlite3_step(q[Q_RUN]) == SQLITE_ROW &&
			    sqlite3_column_type(q[Q_RUN], 0) == SQLITE_TEXT)
				wl = (const char *)sqlite3_column_text(q[Q_RUN], 0);
			const char *globs = df->o.metrics ? df->o.metrics
				: compare_report_metrics(wl ? wl : "");
			sqlite3_reset(q[Q_RUN]);
			if ((rc = load_ops(df, q, dbname, run, g)) ||
			    (rc = load_profile(df, q[Q_PROFILE], dbname, run, gi)) ||
			    (rc = load_branches(df, q[Q_BRANCHES], dbname, run, gi)))
				break;
			rc = load_metrics(df, q[Q_METRICS], dbname, run, gi, globs);
		}
	}
	if (rc == NS_EDB)
		rc = db_err(df, db, dbname);
	for (int i = 0; i < Q_NR; i++)
		sqlite3_finalize(q[i]);
	return rc;
}

/* ---- merging ------------------------------------------------------------------ */

static int raw_cmp(const void *a, const void *b)
{
	const struct raw *x = a, *y = b;
	int c = strcmp(x->name, y->name);
	return c ? c : (x->group > y->group) - (x->group < y->group);
}

static int raw_natural_cmp(const void *a, const void *b)
{
	const struct raw *x = a, *y = b;
	int c = compare_natural(x->name, y->name);
	if (!c)
		c = strcmp(x->name, y->name);
	return c ? c : (x->group > y->group) - (x->group < y->group);
}

/* Fold sorted raw rows into items: sums per group (metrics: min, sum, n). */
static int fold(struct diff *df, struct raws *r, struct items *s, int metrics)
{
	int ng = df->nr_groups, w = s->width;
	s->it = calloc(r->n ? r->n : 1, sizeof *s->it);
	if (!s->it)
		return oom(df);
	for (size_t i = 0; i < r->n;) {
		struct item *it = &s->it[s->n++];
		it->name = r->r[i].name;
		it->extra = r->r[i].extra;
		r->r[i].name = r->r[i].extra = NULL;
		it->v = calloc((size_t)(ng * w), sizeof *it->v);
		it->flag = malloc((size_t)ng * sizeof *it->flag);
		it->n = calloc((size_t)ng, sizeof *it->n);
		if (!it->v || !it->flag || !it->n)
			return oom(df);
		for (int g = 0; g < ng; g++)
			it->flag[g] = -1;
		size_t j = i;
		for (; j < r->n && (j == i || !strcmp(r->r[j].name, it->name)); j++) {
			const struct raw *x = &r->r[j];
			double *v = &it->v[x->group * w];
			if (!it->extra && x->extra) {
				it->extra = x->extra;
				r->r[j].extra = NULL;
			}
			if (metrics) {
				v[0] = it->n[x->group] ? fmin(v[0], x->v[0]) : x->v[0];
				v[1] += x->v[0];
			} else {
				for (int k = 0; k < w; k++)
					v[k] += x->v[k];
			}
			it->n[x->group]++;
			if (x->flag > it->flag[x->group])
				it->flag[x->group] = x->flag;
		}
		i = j;
	}
	raws_free(r);
	return NS_OK;
}

/* The largest |delta| of column k over the non-baseline groups. */
static double max_delta(const struct item *it, int ng, int w, int k)
{
	double m = 0;
	for (int g = 1; g < ng; g++)
		m = fmax(m, fabs(it->v[g * w + k] - it->v[k]));
	return m;
}

static int item_cmp(const void *a, const void *b)
{
	const struct item *x = a, *y = b;
	for (int k = 0; k < 2; k++)
		if (x->key[k] != y->key[k])
			return x->key[k] > y->key[k] ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* Drop the items zero in every group, then sort by |delta|. */
static void sort_items(struct items *s, int ng)
{
	size_t k = 0;
	for (size_t i = 0; i < s->n; i++) {
		int any = 0;
		for (int j = 0; j < ng * s->width; j++)
			any |= s->it[i].v[j] != 0;
		if (any)
			s->it[k++] = s->it[i];
		else {
			free(s->it[i].name);
			free(s->it[i].extra);
			free(s->it[i].v);
			free(s->it[i].flag);
			free(s->it[i].n);
		}
	}
	s->n = k;
	for (size_t i = 0; i < s->n; i++)
		for (int c = 0; c < 2; c++)
			s->it[i].key[c] = max_delta(&s->it[i], ng, s->width, c);
	if (s->n)
		qsort(s->it, s->n, sizeof *s->it, item_cmp);
}

int diff_compute(struct diff *df)
{
	int ng = df->nr_groups, rc;
	if (ng < 2)
		return diag_set(df->d, NS_EINPUT, df->origin, 0, 0, "%s to compare (%d group%s "
				"of runs with status 'ok'%s); name two runs, two databases "
				"or a key with several values (--by)", ng ? "only one group"
				: "nothing", ng, ng == 1 ? "" : "s",
				df->o.nr_where ? " matching the --where filters" : "");
	df->per_run = 0;
	for (int g = 0; g < ng; g++)
		df->per_run |= df->g[g].ops_missing > 0;
	/* (an empty list has no array: qsort's pointer must not be NULL) */
	if (df->fn_raw.n)
		qsort(df->fn_raw.r, df->fn_raw.n, sizeof *df->fn_raw.r, raw_cmp);
	if (df->br_raw.n)
		qsort(df->br_raw.r, df->br_raw.n, sizeof *df->br_raw.r, raw_cmp);
	if (df->m_raw.n)
		qsort(df->m_raw.r, df->m_raw.n, sizeof *df->m_raw.r, raw_natural_cmp);
	if ((rc = fold(df, &df->fn_raw, &df->fns, 0)) ||
	    (rc = fold(df, &df->br_raw, &df->brs, 0)) ||
	    (rc = fold(df, &df->m_raw, &df->mets, 1)))
		return rc;
	struct items *per_op[2] = {&df->fns, &df->brs};
	for (int t = 0; t < 2; t++)
		for (size_t i = 0; i < per_op[t]->n; i++)
			for (int g = 0; g < ng; g++) {
				double div = df->per_run ? df->g[g].nr : df->g[g].ops;
				for (int k = 0; k < per_op[t]->width; k++)
					per_op[t]->it[i].v[g * per_op[t]->width + k] /= div;
			}
	for (size_t i = 0; i < df->mets.n; i++)
		for (int g = 0; g < ng; g++)
			if (df->mets.it[i].n[g])
				df->mets.it[i].v[2 * g + 1] /= (double)df->mets.it[i].n[g];
	sort_items(&df->fns, ng);
	sort_items(&df->brs, ng);
	df->computed = 1;
	return diff_check(df);
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

int diff_check(const struct diff *df)
{
	for (int g = 0; g < df->nr_groups; g++) {
		if (!df->g[g].label || df->g[g].nr < 1)
			return NS_EINTERNAL;
		for (int h = 0; h < g; h++)
			if (!strcmp(df->g[g].label, df->g[h].label))
				return NS_EINTERNAL;
	}
	if (!df->computed)
		return NS_OK;
	const struct items *s[3] = {&df->fns, &df->brs, &df->mets};
	for (int t = 0; t < 3; t++) {
		const char **names = malloc((s[t]->n ? s[t]->n : 1) * sizeof *names);
		if (!names)
			return NS_ENOMEM;
		int rc = NS_OK;
		for (size_t i = 0; i < s[t]->n && rc == NS_OK; i++) {
			names[i] = s[t]->it[i].name;
			if (!names[i] || !s[t]->it[i].v)
				rc = NS_EINTERNAL;
			else if (t < 2 && i && item_cmp(&s[t]->it[i - 1], &s[t]->it[i]) > 0)
				rc = NS_EINTERNAL;
		}
		/* unique names: sorted, no two neighbours equal (O(n log n)) */
		if (rc == NS_OK && s[t]->n)
			qsort(names, s[t]->n, sizeof *names, name_cmp);
		for (size_t i = 1; i < s[t]->n && rc == NS_OK; i++)
			if (!strcmp(names[i - 1], names[i]))
				rc = NS_EINTERNAL;
		free(names);
		if (rc)
			return rc;
	}
	return NS_OK;
}

/* ---- tables --------------------------------------------------------------------- */

/* A grid of cells: row 0 the header; a column is numeric (right-aligned). */
struct grid {
	int nc, nr, cap;
	char **cell;           /* [cap * nc] */
	char *numeric;         /* [nc] */
	int more;              /* rows left out by the limit */
};

static int grid_init(struct grid *t, int nc)
{
	t->nc = nc;
	t->numeric = calloc((size_t)nc, 1);
	return t->numeric ? NS_OK : NS_ENOMEM;
}

static void grid_free(struct grid *t)
{
	for (int i = 0; i < t->nr * t->nc; i++)
		free(t->cell[i]);
	free(t->cell);
	free(t->numeric);
}

/* Start a row; NS_ENOMEM. */
static int grid_row(struct grid *t)
{
	if (t->nr == t->cap) {
		int cap = t->cap ? 2 * t->cap : 32;
		char **c = realloc(t->cell, (size_t)cap * (size_t)t->nc * sizeof *c);
		if (!c)
			return NS_ENOMEM;
		t->cell = c;
		t->cap = cap;
	}
	for (int i = 0; i < t->nc; i++)
		t->cell[t->nr * t->nc + i] = NULL;
	t->nr++;
	return NS_OK;
}

static int grid_set(struct grid *t, int col, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int grid_set(struct grid *t, int col, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *s = sqlite3_vmprintf(fmt, ap);
	va_end(ap);
	char *c = s ? strdup(s) : NULL;
	sqlite3_free(s);
	if (!c)
		return NS_ENOMEM;
	free(t->cell[(t->nr - 1) * t->nc + col]);
	t->cell[(t->nr - 1) * t->nc + col] = c;
	return NS_OK;
}

/* base, then delta and delta% of every other group, from column col. */
static int grid_values(struct grid *t, int col, const double *v, int ng, int w, int k,
		       int dec)
{
	int rc = grid_set(t, col, "%.*f", dec, v[k]);
	for (int g = 1; g < ng && rc == NS_OK; g++) {
		double x = v[g * w + k], dl = x - v[k];
		rc = grid_set(t, col + 2 * g - 1, "%+.*f", dec, dl);
		if (rc == NS_OK)
			rc = v[k] != 0 ? grid_set(t, col + 2 * g, "%+.2f%%", dl / v[k] * 100)
			     : grid_set(t, col + 2 * g, "%s", dl != 0 ? "new" : "-");
	}
	return rc;
}

static int grid_head(struct grid *t, int col, const char *name, int ng)
{
	int rc = grid_set(t, col, "%s[0]", name);
	t->numeric[col] = 1;
	for (int g = 1; g < ng && rc == NS_OK; g++) {
		t->numeric[col + 2 * g - 1] = t->numeric[col + 2 * g] = 1;
		rc = grid_set(t, col + 2 * g - 1, "delta[%d]", g);
		if (rc == NS_OK)
			rc = grid_set(t, col + 2 * g, "delta%%[%d]", g);
	}
	return rc;
}

/* The layout of a function per group: o out of line, i inlined, . absent. */
static void layout_of(const int *flag, int ng, char *out)
{
	for (int g = 0; g < ng && g < 31; g++)
		out[g] = flag[g] < 0 ? '.' : flag[g] ? 'i' : 'o';
	out[ng < 31 ? ng : 31] = '\0';
}

static int build_metrics(const struct diff *df, struct grid *t)
{
	int ng = df->nr_groups;
	int rc = grid_init(t, 3 + 2 * ng - 1);
	if (rc == NS_OK)
		rc = grid_row(t);
	if (rc == NS_OK && !(rc = grid_set(t, 0, "metric")) && !(rc = grid_set(t, 1, "unit")) &&
	    !(rc = grid_set(t, 2, "stat")))
		rc = grid_head(t, 3, "value", ng);
	static const char *const stat[2] = {"Min", "Amean"};
	for (int s = 0; s < 2 && rc == NS_OK; s++)
		for (size_t i = 0; i < df->mets.n && rc == NS_OK; i++) {
			const struct item *it = &df->mets.it[i];
			if ((rc = grid_row(t)) || (rc = grid_set(t, 0, "%s", it->name)) ||
			    (rc = grid_set(t, 1, "%s", it->extra ? it->extra : "")) ||
			    (rc = grid_set(t, 2, "%s", stat[s])))
				break;
			rc = grid_values(t, 3, it->v, ng, 2, s, 2);
		}
	return rc;
}

static int build_functions(const struct diff *df, struct grid *t, int limit)
{
	int ng = df->nr_groups, blk = 2 * ng - 1;
	static const char *const name[FN_NR] = {"self", "total", "calls"};
	static const int dec[FN_NR] = {2, 2, 3};
	int rc = grid_init(t, 2 + FN_NR * blk);
	if (rc == NS_OK)
		rc = grid_row(t);
	if (rc == NS_OK && !(rc = grid_set(t, 0, "function")))
		rc = grid_set(t, 1, "layout");
	for (int k = 0; k < FN_NR && rc == NS_OK; k++)
		rc = grid_head(t, 2 + k * blk, name[k], ng);
	for (size_t i = 0; i < df->fns.n && rc == NS_OK; i++) {
		if (limit > 0 && (int)i >= limit) {
			t->more = (int)(df->fns.n - i);
			break;
		}
		const struct item *it = &df->fns.it[i];
		char lay[32];
		layout_of(it->flag, ng, lay);
		if ((rc = grid_row(t)) || (rc = grid_set(t, 0, "%s", it->name)) ||
		    (rc = grid_set(t, 1, "%s", lay)))
			break;
		for (int k = 0; k < FN_NR && rc == NS_OK; k++)
			rc = grid_values(t, 2 + k * blk, it->v, ng, FN_NR, k, dec[k]);
	}
	return rc;
}

static int build_branches(const struct diff *df, struct grid *t, int limit)
{
	int ng = df->nr_groups, blk = 2 * ng - 1;
	int rc = grid_init(t, 2 + BR_NR * blk);
	if (rc == NS_OK)
		rc = grid_row(t);
	if (rc == NS_OK && !(rc = grid_set(t, 0, "site")) && !(rc = grid_set(t, 1, "function")) &&
	    !(rc = grid_head(t, 2, "executed", ng)))
		rc = grid_head(t, 2 + blk, "mispredicted", ng);
	for (size_t i = 0; i < df->brs.n && rc == NS_OK; i++) {
		if (limit > 0 && (int)i >= limit) {
			t->more = (int)(df->brs.n - i);
			break;
		}
		const struct item *it = &df->brs.it[i];
		if ((rc = grid_row(t)) || (rc = grid_set(t, 0, "%s", it->name)) ||
		    (rc = grid_set(t, 1, "%s", it->extra ? it->extra : "")) ||
		    (rc = grid_values(t, 2, it->v, ng, BR_NR, BR_EXECUTED, 3)))
			break;
		rc = grid_values(t, 2 + blk, it->v, ng, BR_NR, BR_MISPREDICTED, 4);
	}
	return rc;
}

/* Aligned text: text columns left, numbers right, two spaces apart. */
static int grid_text(const struct grid *t, FILE *f)
{
	int *w = calloc((size_t)t->nc, sizeof *w);
	if (!w)
		return NS_ENOMEM;
	for (int r = 0; r < t->nr; r++)
		for (int c = 0; c < t->nc; c++) {
			const char *s = t->cell[r * t->nc + c];
			int len = s ? (int)strlen(s) : 0;
			w[c] = len > w[c] ? len : w[c];
		}
	for (int r = 0; r < t->nr; r++) {
		for (int c = 0; c < t->nc; c++) {
			const char *s = t->cell[r * t->nc + c];
			int last = c == t->nc - 1;
			if (t->numeric[c])
				fprintf(f, "%*s%s", w[c], s ? s : "", last ? "" : "  ");
			else if (last)
				fputs(s ? s : "", f);
			else
				fprintf(f, "%-*s  ", w[c], s ? s : "");
		}
		fputc('\n', f);
	}
	free(w);
	return NS_OK;
}

static void grid_html(const struct grid *t, FILE *f, const char *id)
{
	fprintf(f, "<div class=\"scroll\"><table class=\"sortable\" id=\"%s\"><thead><tr>", id);
	for (int c = 0; c < t->nc; c++) {
		fputs("<th>", f);
		markup_puts(f, t->cell[c]);
		fputs("</th>", f);
	}
	fputs("</tr></thead><tbody>\n", f);
	for (int r = 1; r < t->nr; r++) {
		fputs("<tr>", f);
		for (int c = 0; c < t->nc; c++) {
			fputs(t->numeric[c] ? "<td class=\"n\">" : "<td>", f);
			markup_puts(f, t->cell[r * t->nc + c]);
			fputs("</td>", f);
		}
		fputs("</tr>\n", f);
	}
	fputs("</tbody></table></div>\n", f);
}

/* "per allocation (metric allocs)" or "per run". */
static void per_what(const struct diff *df, char *out, size_t size)
{
	if (df->per_run) {
		snprintf(out, size, "per run (a run has no count of operations)");
		return;
	}
	snprintf(out, size, "per operation (the workload's count of operations)");
}

static void group_lines(const struct diff *df, FILE *f, const char *prefix)
{
	for (int g = 0; g < df->nr_groups; g++) {
		const struct group *gr = &df->g[g];
		fprintf(f, "%s[%d] %s  (%s%d run%s", prefix, g, gr->label, g ? "" : "baseline; ", gr->nr,
			gr->nr == 1 ? "" : "s");
		if (!df->per_run)
			fprintf(f, ", %.0f operations", gr->ops);
		fputs(")\n", f);
	}
}

int diff_print(const struct diff *df, FILE *f)
{
	struct grid t[3] = {{0}};
	char per[96];
	int rc = build_metrics(df, &t[0]);
	if (rc == NS_OK)
		rc = build_functions(df, &t[1], df->o.limit);
	if (rc == NS_OK)
		rc = build_branches(df, &t[2], df->o.limit);
	if (rc == NS_OK) {
		per_what(df, per, sizeof per);
		fputs("# numasim diff: delta[i] = [i] - [0], delta%[i] = delta[i] / [0] x 100\n", f);
		group_lines(df, f, "# ");
		if (df->mets.n) {
			fputs("\n# Metrics: Min and Amean of the observations\n", f);
			rc = grid_text(&t[0], f);
		}
		static const char *const what[2] = {"Functions", "Branch sites"};
		static const char *const how[2] = {
			"self and total cycles and calls, sorted by |delta| of self cycles; "
			"layout: o out of line, i inlined, . absent, per group",
			"executions and mispredictions, sorted by |delta| of executions"};
		for (int k = 1; k < 3 && rc == NS_OK; k++) {
			fprintf(f, "\n# %s %s: %s\n", what[k - 1], per, how[k - 1]);
			if (t[k].nr > 1)
				rc = grid_text(&t[k], f);
			else
				fputs("(none)\n", f);
			if (t[k].more)
				fprintf(f, "(%d more; --limit 0 prints all)\n", t[k].more);
		}
	}
	for (int i = 0; i < 3; i++)
		grid_free(&t[i]);
	if (rc == NS_ENOMEM)
		return diag_set(df->d, rc, df->origin, 0, 0, "out of memory");
	return ferror(f) ? NS_EIO : rc;
}

int diff_html(const struct diff *df, FILE *f, int limit)
{
	struct grid t[3] = {{0}};
	char per[96];
	int rc = build_metrics(df, &t[0]);
	if (rc == NS_OK)
		rc = build_functions(df, &t[1], limit);
	if (rc == NS_OK)
		rc = build_branches(df, &t[2], limit);
	if (rc == NS_OK) {
		per_what(df, per, sizeof per);
		fputs("<ul class=\"groups\">", f);
		for (int g = 0; g < df->nr_groups; g++) {
			fprintf(f, "<li>[%d] <code>", g);
			markup_puts(f, df->g[g].label);
			fprintf(f, "</code> (%s%d run%s)</li>", g ? "" : "baseline; ", df->g[g].nr,
				df->g[g].nr == 1 ? "" : "s");
		}
		fputs("</ul>\n", f);
		if (df->mets.n) {
			fputs("<h3>Metrics: Min and Amean</h3>\n", f);
			grid_html(&t[0], f, "diff-metrics");
		}
		fprintf(f, "<h3>Functions %s, sorted by |delta| of self cycles</h3>\n", per);
		grid_html(&t[1], f, "diff-functions");
		if (t[1].more)
			fprintf(f, "<p class=\"note\">(%d more functions)</p>\n", t[1].more);
		fprintf(f, "<h3>Branch sites %s, sorted by |delta| of executions</h3>\n", per);
		grid_html(&t[2], f, "diff-branches");
		if (t[2].more)
			fprintf(f, "<p class=\"note\">(%d more sites)</p>\n", t[2].more);
	}
	for (int i = 0; i < 3; i++)
		grid_free(&t[i]);
	if (rc == NS_ENOMEM)
		return diag_set(df->d, rc, df->origin, 0, 0, "out of memory");
	return ferror(f) ? NS_EIO : rc;
}

/* NAME_baseline, NAME, NAME_delta, NAME_delta_pct of column k, group g. */
static void rec_values(struct rec_doc *d, const char *name, const double *v, int w, int g,
		       int k)
{
	char key[64];
	double b = v[k], x = v[g * w + k];
	snprintf(key, sizeof key, "%s_baseline", name);
	rec_num(d, key, b);
	rec_num(d, name, x);
	snprintf(key, sizeof key, "%s_delta", name);
	rec_num(d, key, x - b);
	snprintf(key, sizeof key, "%s_delta_pct", name);
	if (b != 0)
		rec_num(d, key, (x - b) / b * 100);
	else
		rec_null(d, key);
}

int diff_records(const struct diff *df, struct rec_doc *d)
{
	int ng = df->nr_groups;
	rec_meta_str(d, "per", df->per_run ? "run" : "operation");
	for (int g = 0; g < ng; g++) {
		rec_table(d, "groups");
		rec_row(d);
		rec_int(d, "index", g);
		rec_str(d, "label", df->g[g].label);
		rec_bool(d, "baseline", g == 0);
		rec_int(d, "runs", df->g[g].nr);
		if (df->per_run)
			rec_null(d, "operations");
		else
			rec_num(d, "operations", df->g[g].ops);
	}
	static const char *const stat[2] = {"Min", "Amean"};
	rec_table(d, "stats");
	for (int s = 0; s < 2; s++)
		for (size_t i = 0; i < df->mets.n; i++)
			for (int g = 1; g < ng; g++) {
				const struct item *it = &df->mets.it[i];
				rec_row(d);
				rec_str(d, "metric", it->name);
				rec_str(d, "unit", it->extra ? it->extra : "");
				rec_str(d, "stat", stat[s]);
				rec_str(d, "group", df->g[g].label);
				rec_values(d, "value", it->v, 2, g, s);
			}
	static const char *const fname[FN_NR] = {"self", "total", "calls"};
	rec_table(d, "functions");
	for (size_t i = 0; i < df->fns.n; i++)
		for (int g = 1; g < ng; g++) {
			const struct item *it = &df->fns.it[i];
			rec_row(d);
			rec_str(d, "function", it->name);
			rec_str(d, "group", df->g[g].label);
			rec_str(d, "layout_baseline", it->flag[0] < 0 ? "absent" : it->flag[0] ?
				"inlined" : "out of line");
			rec_str(d, "layout", it->flag[g] < 0 ? "absent" : it->flag[g] ? "inlined"
				: "out of line");
			for (int k = 0; k < FN_NR; k++)
				rec_values(d, fname[k], it->v, FN_NR, g, k);
		}
	static const char *const bname[BR_NR] = {"executed", "mispredicted"};
	rec_table(d, "branches");
	for (size_t i = 0; i < df->brs.n; i++)
		for (int g = 1; g < ng; g++) {
			const struct item *it = &df->brs.it[i];
			rec_row(d);
			rec_str(d, "site", it->name);
			rec_str(d, "function", it->extra);
			rec_str(d, "group", df->g[g].label);
			for (int k = 0; k < BR_NR; k++)
				rec_values(d, bname[k], it->v, BR_NR, g, k);
		}
	return NS_OK;
}
