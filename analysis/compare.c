/*
 * compare — mmtests-style tables with Welch's t-test; see compare.h.
 *
 * Design notes.  Loading is three queries per database: the selected runs
 * with their group value (the key resolved to a `runs` column from a fixed
 * list or to a correlated `params` lookup bound as a parameter, so no user
 * text is pasted into SQL), the names of the sample series, and the values
 * (metrics rows for metrics without samples, sample rows otherwise).  Run
 * ids are only meaningful inside one database, so the run -> group map is
 * rebuilt per database.  Observations are kept per (metric, group) in
 * growing arrays; the statistics are computed at print time into a
 * memory stream, so a failure prints nothing.
 */
#include "analysis/compare.h"

#include <assert.h>
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/compare_internal.h"
#include "analysis/latency_hist.h"
#include "analysis/stats.h"
#include "analysis/table.h"
#include "base/records.h"

static const char *const run_columns[] = {
	"variant", "kernel_model", "machine", "workload", "scenario", "point",
	"repetition", "seed", "host", "tool_version", "invocation",
	"machine_sha256", "scenario_sha256", "machine_file", "scenario_file",
};
#define NR_RUN_COLUMNS (sizeof run_columns / sizeof run_columns[0])

int compare_key_is_column(const char *key)
{
	for (size_t i = 0; i < NR_RUN_COLUMNS; i++)
		if (!strcmp(key, run_columns[i]))
			return 1;
	return 0;
}

const char *compare_report_metrics(const char *workload)
{
	if (workload && !strcmp(workload, "pagealloc"))
		return "alloc-odr*,free-odr*,total-odr*,!*.min";
	if (workload && !strcmp(workload, "messaging"))
		return "total_time_s";
	return NULL;
}

const char *compare_unit_label(const char *unit, char *buf, size_t len)
{
	size_t o = 0;
	for (const char *p = unit ? unit : ""; *p && o + 1 < len; p++) {
		if (!strncmp(p, "tsc", 3) && (p == unit || p[-1] == '/' || p[-1] == '_') &&
		    o + 3 < len) {
			memcpy(buf + o, "TSC", 3);
			o += 3;
			p += 2;
			continue;
		}
		buf[o++] = *p == '_' ? ' ' : *p;
	}
	buf[o] = '\0';
	return buf;
}

int compare_lower_is_better(const char *unit)
{
	static const char *const t[] = {"cycles", "cycles/op", "ns", "ns/op", "s",
					"ms", "us", "sec", "seconds", "core_cycles",
					"core_cycles/op", "tsc_ticks", "tsc_ticks/op"};
	for (size_t i = 0; unit && i < sizeof t / sizeof t[0]; i++)
		if (!strcmp(unit, t[i]))
			return 1;
	return 0;
}

int compare_natural(const char *a, const char *b)
{
	while (*a && *b) {
		if (isdigit((unsigned char)*a) && isdigit((unsigned char)*b)) {
			while (*a == '0' && isdigit((unsigned char)a[1]))
				a++;
			while (*b == '0' && isdigit((unsigned char)b[1]))
				b++;
			size_t la = 0, lb = 0;
			while (isdigit((unsigned char)a[la]))
				la++;
			while (isdigit((unsigned char)b[lb]))
				lb++;
			if (la != lb)
				return la < lb ? -1 : 1;
			int c = strncmp(a, b, la);
			if (c)
				return c;
			a += la;
			b += lb;
			continue;
		}
		if (*a != *b)
			return (unsigned char)*a < (unsigned char)*b ? -1 : 1;
		a++;
		b++;
	}
	return *a ? 1 : *b ? -1 : 0;
}

int compare_metric_selected(const char *globs, const char *name)
{
	if (!globs || !*globs)
		return 1;
	int any_include = 0, included = 0;
	const char *p = globs;
	while (*p) {
		const char *e = strchr(p, ',');
		size_t len = e ? (size_t)(e - p) : strlen(p);
		char g[256];
		int neg = len > 0 && *p == '!';
		snprintf(g, sizeof g, "%.*s", (int)(len - (size_t)neg), p + neg);
		if (g[0]) {
			int m = sqlite3_strglob(g, name) == 0;
			if (neg && m)
				return 0;
			if (!neg) {
				any_include = 1;
				included |= m;
			}
		}
		p = e ? e + 1 : p + len;
	}
	return any_include ? included : 1;
}

int compare_oom(struct compare *c)
{
	return diag_set(c->d, NS_ENOMEM, c->origin, 0, 0, "out of memory");
}

static int db_err(struct compare *c, sqlite3 *db, const char *dbname)
{
	return diag_set(c->d, NS_EDB, dbname, 0, 0, "%s", sqlite3_errmsg(db));
}

int compare_new(const struct compare_opts *o, const char *origin, struct diag *d,
		struct compare **out)
{
	struct compare *c = calloc(1, sizeof *c);
	*out = NULL;
	if (!c)
		return diag_set(d, NS_ENOMEM, origin, 0, 0, "out of memory");
	c->o = *o;
	c->differs = !c->o.by;
	if (!c->o.by)
		c->o.by = "variant";
	if (!(c->o.alpha > 0))
		c->o.alpha = 0.05;
	if (!c->o.rows)
		c->o.rows = COMPARE_ROW_ALL;
	c->origin = origin;
	c->d = d;
	if (c->o.alpha >= 1) {
		compare_free(c);
		return diag_set(d, NS_EINPUT, origin, 0, 0, "alpha must be in (0, 1)");
	}
	int rc = compare_where_valid(o->where, o->nr_where, origin, d);
	if (rc) {
		compare_free(c);
		return rc;
	}
	*out = c;
	return NS_OK;
}

void compare_free(struct compare *c)
{
	if (!c)
		return;
	for (int i = 0; i < c->nr_groups; i++) {
		free(c->groups[i].value);
		free(c->groups[i].model);
		free(c->groups[i].kv);
		free(c->groups[i].suffix);
	}
	for (size_t i = 0; i < c->nr_idents; i++)
		free(c->idents[i].ident);
	free(c->idents);
	for (int m = 0; m < c->nr_metrics; m++) {
		for (int g = 0; g < c->cap_groups; g++) {
			free(c->metrics[m].obs[g].v);
			free(c->metrics[m].obs[g].rv);
		}
		free(c->metrics[m].obs);
		free(c->metrics[m].name);
		free(c->metrics[m].unit);
	}
	free(c->groups);
	free(c->metrics);
	free(c->run_ids);
	free(c->run_group);
	if (c->warn_f)
		fclose(c->warn_f);
	free(c->warn);
	free(c);
}

int compare_pool_refused(const struct compare *c)
{
	return c && c->refused;
}

int compare_nr_groups(const struct compare *c)
{
	return c->nr_groups;
}

int compare_nr_metrics(const struct compare *c)
{
	return c->nr_metrics;
}

/* Grow every metric's obs array when groups are added. */
static int grow_groups(struct compare *c)
{
	int cap = c->cap_groups ? 2 * c->cap_groups : 8;
	struct group *ng = realloc(c->groups, (size_t)cap * sizeof *ng);
	if (!ng)
		return NS_ENOMEM;
	c->groups = ng;
	for (int m = 0; m < c->nr_metrics; m++) {
		struct obs *no = realloc(c->metrics[m].obs, (size_t)cap * sizeof *no);
		if (!no)
			return NS_ENOMEM;
		memset(no + c->cap_groups, 0, (size_t)(cap - c->cap_groups) * sizeof *no);
		c->metrics[m].obs = no;
	}
	c->cap_groups = cap;
	return NS_OK;
}

/* The group of a run (value, and kv under what-differs grouping),
 * counting the run and its seed. */
static int group_of(struct compare *c, const char *value, const char *model, const char *kv,
		    long long seed)
{
	struct group *g;
	for (int i = 0; i < c->nr_groups; i++) {
		g = &c->groups[i];
		if (!strcmp(g->value, value) && (!kv || !strcmp(g->kv, kv))) {
			if (strcmp(g->model, model))
				g->model[0] = '\0';
			g->seeds_differ |= seed != g->seed0;
			g->nr_runs++;
			return i;
		}
	}
	if (c->nr_groups == c->cap_groups && grow_groups(c) != NS_OK)
		return -1;
	g = &c->groups[c->nr_groups];
	memset(g, 0, sizeof *g);
	g->value = strdup(value);
	g->model = strdup(model);
	g->kv = kv ? strdup(kv) : NULL;
	if (!g->value || !g->model || (kv && !g->kv)) {
		free(g->value);
		free(g->model);
		free(g->kv);
		return -1;
	}
	g->nr_runs = 1;
	g->seed0 = seed;
	return c->nr_groups++;
}

static struct metric *metric_of(struct compare *c, const char *name)
{
	for (int m = 0; m < c->nr_metrics; m++)
		if (!strcmp(c->metrics[m].name, name))
			return &c->metrics[m];
	if (c->nr_metrics == c->cap_metrics) {
		int cap = c->cap_metrics ? 2 * c->cap_metrics : 32;
		struct metric *nm = realloc(c->metrics, (size_t)cap * sizeof *nm);
		if (!nm)
			return NULL;
		c->metrics = nm;
		c->cap_metrics = cap;
	}
	struct metric *m = &c->metrics[c->nr_metrics];
	memset(m, 0, sizeof *m);
	m->name = strdup(name);
	m->obs = calloc((size_t)(c->cap_groups ? c->cap_groups : 1), sizeof *m->obs);
	if (!m->name || !m->obs) {
		free(m->name);
		free(m->obs);
		return NULL;
	}
	c->nr_metrics++;
	return m;
}

char *compare_key_sql(const char *key, int param)
{
	if (compare_key_is_column(key))
		return sqlite3_mprintf("coalesce(CAST(r.%s AS TEXT), '~')", key);
	return sqlite3_mprintf("coalesce((SELECT CAST(p.value AS TEXT) FROM params p "
			       "WHERE p.run_id = r.run_id AND p.key = ?%d), '~')", param);
}

int compare_key_check(sqlite3 *db, const char *dbname, const char *key, struct diag *d)
{
	sqlite3_stmt *st;
	if (compare_key_is_column(key))
		return NS_OK;
	if (sqlite3_prepare_v2(db, "SELECT 1 FROM params WHERE key = ?1 LIMIT 1", -1, &st,
			       NULL) != SQLITE_OK)
		return diag_set(d, NS_EDB, dbname, 0, 0, "%s", sqlite3_errmsg(db));
	sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
	int s = sqlite3_step(st);
	sqlite3_finalize(st);
	if (s == SQLITE_ROW)
		return NS_OK;
	if (s != SQLITE_DONE)
		return diag_set(d, NS_EDB, dbname, 0, 0, "%s", sqlite3_errmsg(db));
	return diag_set(d, NS_EINPUT, dbname, 0, 0, "unknown key '%s': not a runs "
			"column (variant, kernel_model, machine, workload, scenario, "
			"point, ...) nor a parameter of any run (list them with `numasim "
			"query %s \"SELECT DISTINCT key FROM params\"`)", key, dbname);
}

int compare_where_valid(const char *const *where, int n, const char *origin, struct diag *d)
{
	for (int i = 0; i < n; i++)
		if (!strchr(where[i], '=') || where[i][0] == '=')
			return diag_set(d, NS_EINPUT, origin, 0, 0,
					"--where takes KEY=VALUE, not '%s'", where[i]);
	return NS_OK;
}

/* The key of a KEY=VALUE filter, cut to fit buf (keys are short names). */
static void where_key(const char *w, char *buf, size_t len)
{
	snprintf(buf, len, "%.*s", (int)(strchr(w, '=') - w), w);
}

int compare_where_check(sqlite3 *db, const char *dbname, const char *const *where, int n,
			struct diag *d)
{
	int rc = NS_OK;
	for (int i = 0; rc == NS_OK && i < n; i++) {
		char key[256];
		where_key(where[i], key, sizeof key);
		rc = compare_key_check(db, dbname, key, d);
	}
	return rc;
}

char *compare_where_sql(const char *const *where, int n, int first)
{
	char *sql = sqlite3_mprintf("%s", "");
	for (int i = 0; sql && i < n; i++) {
		char key[256];
		where_key(where[i], key, sizeof key);
		char *e = compare_key_sql(key, first + 2 * i);
		char *s = e ? sqlite3_mprintf("%s AND %s = ?%d", sql, e, first + 2 * i + 1) : NULL;
		sqlite3_free(e);
		sqlite3_free(sql);
		sql = s;
	}
	return sql;
}

void compare_where_bind(sqlite3_stmt *st, const char *const *where, int n, int first)
{
	for (int i = 0; i < n; i++) {
		const char *w = where[i], *eq = strchr(w, '=');
		sqlite3_bind_text(st, first + 2 * i, w, (int)(eq - w), SQLITE_TRANSIENT);
		sqlite3_bind_text(st, first + 2 * i + 1, eq + 1, -1, SQLITE_STATIC);
	}
}

/*
 * The parameters that say what a run is, for what-differs grouping: all
 * but its identity within a plan (seed, repetitions), the plan's name and
 * file, values derived from others (gfp_mask from gfp) and same_as_point
 * (a twin run: scenarios/run.c).
 */
#define KV_SQL "(SELECT group_concat(k || '=' || v, char(31)) FROM (SELECT p.key AS k, " \
	"CAST(p.value AS TEXT) AS v FROM params p WHERE p.run_id = r.run_id AND p.key NOT IN " \
	"('seed', 'repetitions', 'name', 'machine', 'workload.gfp_mask', 'same_as_point') ORDER BY p.key))"

/* The SELECT of the runs: run_id, group value, kernel_model, seed, kv. */
static char *runs_sql(struct compare *c)
{
	char *sql = NULL, *g = compare_key_sql(c->o.by, 1);
	if (!g)
		return NULL;
	char *w = compare_where_sql(c->o.where, c->o.nr_where, 2);
	if (w)
		sql = sqlite3_mprintf("SELECT r.run_id AS run_id, %s AS grp, r.kernel_model "
				      "AS model, r.seed AS seed, %s AS kv, r.scenario_sha256 || ' ' "
				      "|| r.machine_sha256 || ' ' || r.tool_version || ' ' || r.point "
				      "|| ' ' || r.repetition AS ident FROM runs r WHERE "
				      "r.status = 'ok'%s ORDER BY r.point, r.run_id", g,
				      c->differs ? KV_SQL : "NULL", w);
	sqlite3_free(g);
	sqlite3_free(w);
	return sql;
}

static int bind_runs(struct compare *c, sqlite3_stmt *st)
{
	sqlite3_bind_text(st, 1, c->o.by, -1, SQLITE_STATIC);
	compare_where_bind(st, c->o.where, c->o.nr_where, 2);
	return NS_OK;
}

static int map_add(struct compare *c, long long id, int g, size_t *cap)
{
	if (c->nr_map == *cap) {
		size_t nc = *cap ? 2 * *cap : 64;
		long long *ni = realloc(c->run_ids, nc * sizeof *ni);
		if (ni)
			c->run_ids = ni;
		int *ng = realloc(c->run_group, nc * sizeof *ng);
		if (ng)
			c->run_group = ng;
		if (!ni || !ng)
			return NS_ENOMEM;
		*cap = nc;
	}
	c->run_ids[c->nr_map] = id;
	c->run_group[c->nr_map++] = g;
	return NS_OK;
}

/* Group of a run id of the database being loaded (ids ascend per point,
 * so a linear search is fine for the few hundred runs of a database). */
static int run_group(const struct compare *c, long long id)
{
	for (size_t i = 0; i < c->nr_map; i++)
		if (c->run_ids[i] == id)
			return c->run_group[i];
	return -1;
}

/*
 * Across databases: a run whose plan, point and repetition (ident) a
 * database loaded before holds too is the same run stored twice (the plan
 * run into two files, or one file given twice).  Refused unless pooled,
 * as check_duplicates does within one database.
 */
static int check_ident(struct compare *c, const char *ident, long long id,
		       const char *dbname)
{
	for (size_t i = 0; i < c->nr_idents; i++)
		if (c->idents[i].db != c->nr_dbs && !strcmp(c->idents[i].ident, ident)) {
			if (c->o.pool) {
				c->pooled = 1;
				return NS_OK;
			}
			c->refused = 1;
			return diag_set(c->d, NS_EINPUT, dbname, 0, 0, "run %lld is the same run "
					"of one plan as run %lld of %s (scenario hash %.12s, the "
					"same point and repetition): pooled, one measurement would "
					"count twice; compare one of the databases, or pass --pool "
					"to pool them anyway", id, c->idents[i].run_id,
					c->idents[i].dbname, ident);
		}
	if (c->nr_idents == c->cap_idents) {
		size_t cap = c->cap_idents ? 2 * c->cap_idents : 64;
		struct run_ident *n = realloc(c->idents, cap * sizeof *n);
		if (!n)
			return compare_oom(c);
		c->idents = n;
		c->cap_idents = cap;
	}
	struct run_ident *r = &c->idents[c->nr_idents];
	if (!(r->ident = strdup(ident)))
		return compare_oom(c);
	r->run_id = id;
	r->db = c->nr_dbs;
	r->dbname = dbname;
	c->nr_idents++;
	return NS_OK;
}

static int load_runs(struct compare *c, sqlite3 *db, const char *dbname)
{
	sqlite3_stmt *st = NULL;
	size_t cap = 0;
	int rc = NS_OK, s;
	char *sql = runs_sql(c);

	c->nr_map = 0;
	if (!sql)
		return compare_oom(c);
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
		rc = db_err(c, db, dbname);
		goto out;
	}
	bind_runs(c, st);
	while ((s = sqlite3_step(st)) == SQLITE_ROW) {
		const char *v = (const char *)sqlite3_column_text(st, 1);
		const char *m = (const char *)sqlite3_column_text(st, 2);
		const char *kv = (const char *)sqlite3_column_text(st, 4);
		int g = group_of(c, v ? v : "~", m ? m : "", c->differs ? (kv ? kv : "") : NULL,
				 sqlite3_column_int64(st, 3));
		if (g < 0 || map_add(c, sqlite3_column_int64(st, 0), g, &cap) != NS_OK) {
			rc = compare_oom(c);
			goto out;
		}
		const char *ident = (const char *)sqlite3_column_text(st, 5);
		if ((rc = check_ident(c, ident ? ident : "~", sqlite3_column_int64(st, 0), dbname)))
			goto out;
		c->nr_runs++;
	}
	if (s != SQLITE_DONE)
		rc = db_err(c, db, dbname);
	c->nr_dbs++;
out:
	sqlite3_finalize(st);
	sqlite3_free(sql);
	return rc;
}

/* Add rows (run_id, name, value, unit) of sql, ordered by run and name,
 * to the observations; each (run, name)'s mean is the run's value. */
static int load_values(struct compare *c, sqlite3 *db, const char *dbname, const char *sql)
{
	sqlite3_stmt *st = NULL;
	int rc = NS_OK, s;
	struct obs *cur = NULL;        /* the (run, metric) being summed */
	long long cur_run = -1;
	double sum = 0;
	size_t cnt = 0;
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return db_err(c, db, dbname);
	while ((s = sqlite3_step(st)) == SQLITE_ROW) {
		const char *name = (const char *)sqlite3_column_text(st, 1);
		long long run = sqlite3_column_int64(st, 0);
		int g = run_group(c, run);
		if (g < 0 || !name || !compare_metric_selected(c->o.metrics, name))
			continue;
		struct metric *m = metric_of(c, name);
		if (!m || compare_obs_add(&m->obs[g], sqlite3_column_double(st, 2)) != NS_OK) {
			rc = compare_oom(c);
			break;
		}
		if (cur && (cur != &m->obs[g] || cur_run != run)) {
			if (compare_obs_run_add(cur, sum / (double)cnt) != NS_OK) {
				rc = compare_oom(c);
				break;
			}
			cnt = 0;
			sum = 0;
		}
		cur = &m->obs[g];
		cur_run = run;
		sum += sqlite3_column_double(st, 2);
		cnt++;
		const char *unit = (const char *)sqlite3_column_text(st, 3);
		if (!m->unit && unit && !(m->unit = strdup(unit))) {
			rc = compare_oom(c);
			break;
		}
	}
	if (rc == NS_OK && cur && compare_obs_run_add(cur, sum / (double)cnt) != NS_OK)
		rc = compare_oom(c);
	if (rc == NS_OK && s != SQLITE_DONE)
		rc = db_err(c, db, dbname);
	sqlite3_finalize(st);
	return rc;
}

/*
 * Warn when a group pools runs that differ in a parameter or in their
 * invocation, machine, workload or scenario: the table would then mix
 * what it does not show (mmtests compares like with like).  One line per
 * (group, key), into c->warn for compare_print.
 */
static int check_pooling(struct compare *c, sqlite3 *db, const char *dbname)
{
	char *runs = runs_sql(c), *sql = NULL;
	sqlite3_stmt *st = NULL;
	int rc = NS_OK, s;
	if (runs)
		sql = sqlite3_mprintf(
			"WITH sel AS (%s), kv AS (SELECT run_id, key, CAST(value AS TEXT) "
			"AS value FROM params WHERE key NOT IN ('machine', 'workload', "
			"'scenario', 'invocation') UNION ALL SELECT run_id, 'invocation', "
			"invocation FROM runs UNION ALL SELECT run_id, 'machine', machine "
			"FROM runs UNION ALL SELECT run_id, 'workload', workload FROM runs "
			"UNION ALL SELECT run_id, 'scenario', scenario FROM runs) "
			"SELECT sel.grp, kv.key, count(DISTINCT kv.value), "
			"group_concat(DISTINCT kv.value) FROM sel JOIN kv USING (run_id) "
			"WHERE kv.key <> ?1 AND kv.key NOT IN ('machine.name', 'name') "
			"GROUP BY sel.grp, kv.key HAVING count(DISTINCT kv.value) > 1 "
			"ORDER BY min(sel.run_id), kv.key", runs);
	sqlite3_free(runs);
	if (!sql)
		return compare_oom(c);
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
		rc = db_err(c, db, dbname);
		goto out;
	}
	bind_runs(c, st);
	if (!c->warn_f && !(c->warn_f = open_memstream(&c->warn, &c->warn_len))) {
		rc = compare_oom(c);
		goto out;
	}
	while ((s = sqlite3_step(st)) == SQLITE_ROW)
		fprintf(c->warn_f, "%s: warning: group '%s' pools runs with %d different "
			"values of %s (%.120s): compare --by %s,%s compares within each, "
			"--where %s=VALUE picks one\n", dbname, sqlite3_column_text(st, 0),
			sqlite3_column_int(st, 2), sqlite3_column_text(st, 1),
			sqlite3_column_text(st, 3), c->o.by, sqlite3_column_text(st, 1),
			sqlite3_column_text(st, 1));
	if (s != SQLITE_DONE)
		rc = db_err(c, db, dbname);
out:
	sqlite3_finalize(st);
	sqlite3_free(sql);
	return rc;
}

/*
 * Refuse (NS_EINPUT) to pool the same run of the same plan stored by two
 * invocations (a plan run twice into one database without --resume):
 * same scenario hash (the effective one, --set included), machine hash,
 * tool version, point and repetition, hence the same seed.  Pooled, the
 * copy counts one measurement twice: a deterministic model repeats it
 * exactly, and any test over runs would see more runs than there are.
 */
static int check_duplicates(struct compare *c, sqlite3 *db, const char *dbname)
{
	char *runs = runs_sql(c), *sql = NULL;
	sqlite3_stmt *st = NULL;
	int rc = NS_OK, s;
	if (runs)
		sql = sqlite3_mprintf(
			"WITH sel AS (%s) SELECT min(r.run_id), max(r.run_id), "
			"substr(r.scenario_sha256, 1, 12), r.point, r.repetition, "
			"count(DISTINCT r.invocation), group_concat(DISTINCT r.invocation) "
			"FROM runs r JOIN sel USING (run_id) GROUP BY r.scenario_sha256, "
			"r.machine_sha256, r.tool_version, r.point, r.repetition "
			"HAVING count(DISTINCT r.invocation) > 1 ORDER BY min(r.run_id) LIMIT 1",
			runs);
	sqlite3_free(runs);
	if (!sql)
		return compare_oom(c);
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
		rc = db_err(c, db, dbname);
		goto out;
	}
	bind_runs(c, st);
	s = sqlite3_step(st);
	c->refused = s == SQLITE_ROW && !c->o.pool;
	c->pooled |= s == SQLITE_ROW && c->o.pool;
	if (c->refused)
		rc = diag_set(c->d, NS_EINPUT, dbname, 0, 0, "runs %lld and %lld are the same "
			      "run of one plan (scenario hash %s, point %lld, repetition %lld) "
			      "stored by %d invocations (%.200s): pooled, one measurement would "
			      "count twice; pick one with --where invocation=ID, or pass --pool "
			      "to pool them anyway", sqlite3_column_int64(st, 0),
			      sqlite3_column_int64(st, 1), sqlite3_column_text(st, 2),
			      sqlite3_column_int64(st, 3), sqlite3_column_int64(st, 4),
			      sqlite3_column_int(st, 5), sqlite3_column_text(st, 6));
	else if (s != SQLITE_DONE && s != SQLITE_ROW)
		rc = db_err(c, db, dbname);
out:
	sqlite3_finalize(st);
	sqlite3_free(sql);
	return rc;
}

int compare_key_values(sqlite3 *db, const char *dbname, const char *key, char ***vals,
		       int *n, struct diag *d)
{
	char *g = compare_key_sql(key, 1), *sql = NULL;
	sqlite3_stmt *st = NULL;
	int rc = NS_OK, s;
	if (g)
		sql = sqlite3_mprintf("SELECT %s AS v FROM runs r WHERE r.status = 'ok' "
				      "GROUP BY v ORDER BY min(r.point), min(r.run_id)", g);
	sqlite3_free(g);
	if (!sql)
		return diag_set(d, NS_ENOMEM, dbname, 0, 0, "out of memory");
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
		rc = diag_set(d, NS_EDB, dbname, 0, 0, "%s", sqlite3_errmsg(db));
		goto out;
	}
	sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
	while ((s = sqlite3_step(st)) == SQLITE_ROW) {
		const char *v = (const char *)sqlite3_column_text(st, 0);
		int have = 0;
		for (int i = 0; i < *n && !have; i++)
			have = !strcmp((*vals)[i], v ? v : "~");
		if (have)
			continue;
		char **nv = realloc(*vals, (size_t)(*n + 1) * sizeof *nv);
		if (nv)
			*vals = nv;
		if (!nv || !((*vals)[*n] = strdup(v ? v : "~"))) {
			rc = diag_set(d, NS_ENOMEM, dbname, 0, 0, "out of memory");
			goto out;
		}
		(*n)++;
	}
	if (s != SQLITE_DONE)
		rc = diag_set(d, NS_EDB, dbname, 0, 0, "%s", sqlite3_errmsg(db));
out:
	sqlite3_finalize(st);
	sqlite3_free(sql);
	return rc;
}

int compare_load(struct compare *c, sqlite3 *db, const char *dbname)
{
	static const char metrics_sql[] =
		"SELECT m.run_id, m.name, m.value, m.unit FROM metrics m "
		"WHERE m.value IS NOT NULL AND m.name NOT GLOB '" LATENCY_HIST_GLOB "' "
		"AND NOT EXISTS (SELECT 1 FROM samples s "
		"WHERE s.run_id = m.run_id AND s.metric = m.name) "
		/* NAME.min of a series is its Min row already */
		"AND NOT (m.name GLOB '*.min' AND EXISTS (SELECT 1 FROM samples s "
		"WHERE s.run_id = m.run_id AND s.metric = substr(m.name, 1, length(m.name) - 4))) "
		"ORDER BY m.run_id, m.name";
	static const char samples_sql[] =
		"SELECT s.run_id, s.metric, s.value, m.unit FROM samples s "
		"LEFT JOIN metrics m ON m.run_id = s.run_id AND m.name = s.metric "
		"ORDER BY s.run_id, s.metric, s.idx";
	int rc = compare_key_check(db, dbname, c->o.by, c->d);
	if (rc == NS_OK)
		rc = compare_where_check(db, dbname, c->o.where, c->o.nr_where, c->d);
	if (rc == NS_OK)
		rc = load_runs(c, db, dbname);
	if (rc == NS_OK)
		rc = check_duplicates(c, db, dbname);
	if (rc == NS_OK && c->o.warn && !c->differs)
		rc = check_pooling(c, db, dbname);
	if (rc == NS_OK)
		rc = load_values(c, db, dbname, metrics_sql);
	if (rc == NS_OK)
		rc = load_values(c, db, dbname, samples_sql);
	return rc;
}

/* The BAmean-NN rows: percentages of the best samples (mmtests). */
static const int bamean_pct[] = {50, 95, 99};
#define NR_BAMEAN 3

/* Per (metric, group) statistics, NaN where undefined. */
struct st5 {
	size_t n;
	double min, mean, sd, cv, max;
	double hmean;               /* harmonic mean; NaN unless all > 0 */
	double bamean[NR_BAMEAN];   /* mean of the best NN % */
};

static int dbl_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/*
 * Hmean: n / sum(1 / x), defined for positive samples only.  BAmean-NN:
 * the mean of the best NN % of the samples, at least one (mmtests'
 * BAmean): the lowest for time-like units, the highest otherwise.
 */
static void summarize_means(const struct obs *o, int lower_better, struct st5 *s)
{
	double inv = 0;
	int positive = o->n > 0;
	s->hmean = NAN;
	for (int k = 0; k < NR_BAMEAN; k++)
		s->bamean[k] = NAN;
	if (o->n == 0)
		return;
	for (size_t i = 0; i < o->n; i++) {
		positive &= o->v[i] > 0;
		inv += positive ? 1.0 / o->v[i] : 0;
	}
	if (positive)
		s->hmean = (double)o->n / inv;
	double *v = malloc(o->n * sizeof *v);
	if (!v)
		return;
	memcpy(v, o->v, o->n * sizeof *v);
	qsort(v, o->n, sizeof *v, dbl_cmp);
	for (int k = 0; k < NR_BAMEAN; k++) {
		size_t take = o->n * (size_t)bamean_pct[k] / 100;
		double sum = 0;
		take = take ? take : 1;
		for (size_t i = 0; i < take; i++)
			sum += lower_better ? v[i] : v[o->n - 1 - i];
		s->bamean[k] = sum / (double)take;
	}
	free(v);
}

static struct st5 summarize(const struct obs *o, int lower_better)
{
	struct st5 s = {.n = o->n, .min = NAN, .mean = NAN, .sd = NAN, .cv = NAN, .max = NAN};
	struct stats_summary sm;
	summarize_means(o, lower_better, &s);
	if (o->n == 1)
		s.min = s.mean = s.max = o->v[0];
	if (o->n >= 2 && stats_summary(o->v, o->n, &sm) == NS_OK) {
		s.min = sm.min;
		s.mean = sm.mean;
		s.max = sm.max;
		s.sd = sm.stdev;
		s.cv = sm.mean != 0 ? 100.0 * sm.stdev / fabs(sm.mean) : NAN;
	}
	return s;
}

static int metric_cmp(const void *a, const void *b)
{
	return compare_natural(((const struct metric *)a)->name,
			       ((const struct metric *)b)->name);
}

static int find_baseline(struct compare *c, int *base)
{
	*base = 0;
	if (!c->o.baseline)
		return NS_OK;
	for (int g = 0; g < c->nr_groups; g++)
		if (!strcmp(c->groups[g].value, c->o.baseline) ||
		    !strcmp(c->groups[g].head, c->o.baseline)) {
			*base = g;
			return NS_OK;
		}
	char list[512] = "";
	size_t off = 0;
	for (int g = 0; g < c->nr_groups && off < sizeof list; g++)
		off += (size_t)snprintf(list + off, sizeof list - off, "%s'%s'", g ? ", " : "",
					c->groups[g].value);
	return diag_set(c->d, NS_EINPUT, c->origin, 0, 0, "unknown baseline '%s' for "
			"--by %s (groups: %s)", c->o.baseline, c->o.by, list);
}

/* The baseline's column comes first, as in mmtests: shift groups
 * 0..g-1 right by one, with every metric's observations. */
static void move_first(struct compare *c, int g)
{
	if (g <= 0)
		return;
	struct group keep = c->groups[g];
	memmove(&c->groups[1], &c->groups[0], (size_t)g * sizeof keep);
	c->groups[0] = keep;
	for (int m = 0; m < c->nr_metrics; m++) {
		struct obs o = c->metrics[m].obs[g];
		memmove(&c->metrics[m].obs[1], &c->metrics[m].obs[0], (size_t)g * sizeof o);
		c->metrics[m].obs[0] = o;
	}
}

/* Decimals for a metric: 2 from 100 up, more for small values (~5 digits). */
static int metric_decimals(const struct st5 *s, int ng)
{
	double vmax = 0;
	for (int g = 0; g < ng; g++)
		if (isfinite(s[g].max))
			vmax = fmax(vmax, fmax(fabs(s[g].max), fabs(s[g].min)));
	int dec = vmax > 0 ? 3 - (int)floor(log10(vmax)) : 2;
	return dec < 2 ? 2 : dec > 9 ? 9 : dec;
}

static double pct(double base, double x, int lower_better)
{
	if (!isfinite(base) || !isfinite(x) || base == 0)
		return NAN;
	return (lower_better ? base - x : x - base) * 100.0 / fabs(base);
}

struct layout {
	int statw;   /* TABLE_STAT_WIDTH, or wider for the rows printed
			("BAmean-50"): the table and the Welch block line up */
	int opw, colw, fieldw;
};

/* The unit of every compared metric as its label, "" when they differ
 * (each then names its own in --format csv and json). */
static const char *common_unit(const struct compare *c, char *buf, size_t len)
{
	const char *u = c->nr_metrics ? c->metrics[0].unit : NULL;
	for (int m = 1; u && m < c->nr_metrics; m++)
		if (!c->metrics[m].unit || strcmp(c->metrics[m].unit, u))
			u = NULL;
	buf[0] = '\0';
	return u ? compare_unit_label(u, buf, len) : buf;
}

static void print_heads(const struct compare *c, const struct layout *l, FILE *f)
{
	int is_variant = !strcmp(c->o.by, "variant");
	char unit[64];
	fprintf(f, "%*s", l->statw + 1 + l->opw, "");
	for (int g = 0; g < c->nr_groups; g++)
		fprintf(f, "%*s", l->colw, is_variant ? c->groups[g].model : c->o.by);
	/* the unit, where mmtests leaves the corner blank */
	fprintf(f, "\n%-*s", l->statw + 1 + l->opw, common_unit(c, unit, sizeof unit));
	for (int g = 0; g < c->nr_groups; g++)
		fprintf(f, "%*s", l->colw, c->groups[g].head);
	fputc('\n', f);
}

/* A change worth a colour: one that prints as non-zero. */
static void add_span(struct compare_spans *sp, long off, int len, double p)
{
	if (!sp || off < 0 || fabs(p) < 0.005)
		return;
	if (sp->nr == sp->cap) {
		size_t cap = sp->cap ? 2 * sp->cap : 64;
		struct compare_span *v = realloc(sp->v, cap * sizeof *v);
		if (!v)
			return;
		sp->v = v;
		sp->cap = cap;
	}
	sp->v[sp->nr++] = (struct compare_span){off, len, p > 0 ? 1 : -1};
}

static void print_cell(FILE *f, const struct layout *l, double v, double p, int dec,
		       struct compare_spans *sp)
{
	if (!isfinite(v)) {
		fprintf(f, "%*s (%*s)", l->fieldw, "-", TABLE_COMPARE_WIDTH + 1, "n/a");
		return;
	}
	fprintf(f, "%*.*f ", l->fieldw, dec, v);
	if (isfinite(p)) {
		long off = sp ? ftell(f) : -1;
		int n = fprintf(f, "(%*.2f%%)", TABLE_COMPARE_WIDTH, p);
		add_span(sp, off, n, p);
	} else
		fprintf(f, "(%*s)", TABLE_COMPARE_WIDTH + 1, "n/a");
}

/* Row r of the table (COMPARE_ROW_* bit order) and its value. */
static const char *const row_names[] = {"Min", "Amean", "Stddev", "CoeffVar", "Max",
					"Hmean", "BAmean-50", "BAmean-95", "BAmean-99"};
#define NR_ROWS 9
/* Printed order: mmtests' (Min, Amean, Hmean, Stddev, CoeffVar, Max,
 * BAmean-NN). */
static const int row_order[NR_ROWS] = {0, 1, 5, 2, 3, 4, 6, 7, 8};

static double row_value(const struct st5 *x, int row)
{
	switch (row) {
	case 0: return x->min;
	case 1: return x->mean;
	case 2: return x->sd;
	case 3: return x->cv;
	case 4: return x->max;
	case 5: return x->hmean;
	default: return x->bamean[row - 6];
	}
}

static unsigned row_bit(int row)
{
	return row < 6 ? 1u << row : COMPARE_ROW_BAMEAN;
}

static void print_rows(const struct compare *c, const struct layout *l, struct st5 *const *s,
		       const int *dec, int base, FILE *f)
{
	for (int i = 0; i < NR_ROWS; i++) {
		int row = row_order[i];
		for (int m = 0; m < c->nr_metrics && (c->o.rows & row_bit(row)); m++) {
			const struct metric *me = &c->metrics[m];
			int lb = compare_lower_is_better(me->unit);
			fprintf(f, "%-*s %-*s", l->statw, row_names[row], l->opw, me->name);
			for (int g = 0; g < c->nr_groups; g++) {
				double v = row_value(&s[m][g], row), bv = row_value(&s[m][base], row);
				print_cell(f, l, v, pct(bv, v, lb), row == 3 ? 2 : dec[m], c->o.spans);
			}
			fputc('\n', f);
		}
	}
}

/*
 * One cell in two parts, printed as aligned columns: the p-value
 * ("p=0.0123*", "p<0.0001*", "p=0.5428 ") and the confidence interval
 * ("[-1.20, +3.40]"), or "exact" / "1 run" and the difference.
 */
static enum diff_kind diff_field(const struct compare *c, struct runs_diff r, int dec,
				 char *pbuf, size_t plen, char *ci, size_t cilen)
{
	switch (r.kind) {
	case DIFF_TEST:
		snprintf(pbuf, plen, "p%s%.4f%c", r.w.p < 1e-4 ? "<" : "=",
			 r.w.p < 1e-4 ? 1e-4 : r.w.p, r.w.p < c->o.alpha ? '*' : ' ');
		snprintf(ci, cilen, "[%+.*f, %+.*f]", dec, r.lo, dec, r.hi);
		break;
	case DIFF_EXACT:
	case DIFF_ONE_RUN:
		snprintf(pbuf, plen, "%s", r.kind == DIFF_EXACT ? "exact" : "1 run");
		snprintf(ci, cilen, "%+.*f", dec, r.diff);
		break;
	default:
		snprintf(pbuf, plen, "n/a");
		snprintf(ci, cilen, "(no runs)");
	}
	return r.kind;
}

static enum diff_kind welch_field(const struct compare *c, const struct metric *m, int g,
				  int base, int dec, char *pbuf, size_t plen, char *ci,
				  size_t cilen)
{
	return diff_field(c, compare_runs_diff(c, m, g, base), dec, pbuf, plen, ci, cilen);
}

#define WELCH_PW 9 /* "p<0.0001*" */

/* Whether every run of the groups compared has the same seed. */
int compare_one_seed(const struct compare *c)
{
	for (int g = 0; g < c->nr_groups; g++)
		if (c->groups[g].seeds_differ)
			return 0;
	return 1;
}

/* What "exact" and "1 run" mean, once per block that printed them. */
static void print_kinds(const struct compare *c, int kinds, FILE *f)
{
	if (kinds & (1 << DIFF_EXACT))
		fprintf(f, "exact, deterministic: identical across %s (every run of a group "
			"gave the same value): the difference is exact, no p-value\n",
			compare_one_seed(c) ? "repetitions (one seed)" : "seeds");
	if (kinds & (1 << DIFF_ONE_RUN))
		fprintf(f, "1 run: a group has one run, so there is no run-to-run variance to "
			"test: the difference of the runs' values, no p-value (--set "
			"repetitions=N runs more; a deterministic workload repeats exactly: "
			"docs/design/statistics.md)\n");
}

static void print_welch(const struct compare *c, const struct layout *l, const int *dec,
			int base, FILE *f)
{
	char pb[32], ci[96];
	int ciw = 0, w, kinds = 0;
	for (int m = 0; m < c->nr_metrics; m++)
		for (int g = 0; g < c->nr_groups; g++)
			if (g != base) {
				kinds |= 1 << welch_field(c, &c->metrics[m], g, base, dec[m], pb,
							  sizeof pb, ci, sizeof ci);
				ciw = (int)strlen(ci) > ciw ? (int)strlen(ci) : ciw;
			}
	w = WELCH_PW + 1 + ciw;
	for (int g = 0; g < c->nr_groups; g++)
		w = (int)strlen(c->groups[g].head) > w ? (int)strlen(c->groups[g].head) : w;
	fprintf(f, "\nDifference against %s over runs (one value per run: a series' mean "
		"of its samples)", c->groups[base].head);
	if (kinds & (1 << DIFF_TEST))
		fprintf(f, "; Welch t-test, two-sided, * p < %g, [%g%% confidence interval "
			"of mean - baseline mean]", c->o.alpha, 100 * (1 - c->o.alpha));
	fprintf(f, "\n%*s", l->statw + 1 + l->opw, "");
	for (int g = 0; g < c->nr_groups; g++)
		if (g != base)
			fprintf(f, "  %*s", w, c->groups[g].head);
	fputc('\n', f);
	for (int m = 0; m < c->nr_metrics; m++) {
		fprintf(f, "%-*s %-*s", l->statw, "Diff", l->opw, c->metrics[m].name);
		for (int g = 0; g < c->nr_groups; g++)
			if (g != base) {
				welch_field(c, &c->metrics[m], g, base, dec[m], pb, sizeof pb,
					    ci, sizeof ci);
				/* p left-aligned, interval right-aligned: the
				 * columns line up whatever the digits */
				fprintf(f, "  %*s%-*s %*s", w - WELCH_PW - 1 - ciw, "", WELCH_PW,
					pb, ciw, ci);
			}
		fputc('\n', f);
	}
	print_kinds(c, kinds, f);
}

/*
 * A 2x2 what-if (compare_find_2x2): the interaction, the change factor A
 * makes at B's other level minus the change it makes at B's baseline
 * level, per metric over runs.
 */
static void print_interaction(const struct compare *c, const struct layout *l,
			      const int *dec, FILE *f)
{
	struct compare_2x2 x;
	char pb[32], ci[96];
	int ciw = 0, kinds = 0;
	if (!compare_find_2x2(c, &x))
		return;
	for (int m = 0; m < c->nr_metrics; m++) {
		kinds |= 1 << diff_field(c, compare_interaction(c, &c->metrics[m], &x), dec[m],
					 pb, sizeof pb, ci, sizeof ci);
		ciw = (int)strlen(ci) > ciw ? (int)strlen(ci) : ciw;
	}
	const struct group *g = c->groups;
	fprintf(f, "\nInteraction of %s (%s -> %s) and %s (%s -> %s) over runs: "
		"(%s - %s) - (%s - %s), the difference of differences",
		x.factor[0], x.level[0][0], x.level[0][1], x.factor[1], x.level[1][0],
		x.level[1][1], g[x.cell[1][1]].head, g[x.cell[0][1]].head, g[x.cell[1][0]].head,
		g[x.cell[0][0]].head);
	if (kinds & (1 << DIFF_TEST))
		fprintf(f, "; Welch-Satterthwaite t-test of the contrast, two-sided, * p < %g, "
			"[%g%% confidence interval]", c->o.alpha, 100 * (1 - c->o.alpha));
	fputc('\n', f);
	for (int m = 0; m < c->nr_metrics; m++) {
		diff_field(c, compare_interaction(c, &c->metrics[m], &x), dec[m], pb, sizeof pb,
			   ci, sizeof ci);
		fprintf(f, "%-*s %-*s  %-*s %*s\n", l->statw, "Inter", l->opw,
			c->metrics[m].name, WELCH_PW, pb, ciw, ci);
	}
	print_kinds(c, kinds, f);
}

/* The seed's layout: max./min./avg./stdev./n per group, Welch lines. */
static void print_seed(const struct compare *c, struct st5 *const *s, const int *dec,
		       int base, FILE *f)
{
	static const char *const names[] = {"max.", "min.", "avg.", "stdev."};
	int w = 14;
	for (int g = 0; g < c->nr_groups; g++)
		w = (int)strlen(c->groups[g].value) > w ? (int)strlen(c->groups[g].value) : w;
	for (int m = 0; m < c->nr_metrics; m++) {
		const struct metric *me = &c->metrics[m];
		int d = dec[m] + 2;
		char ul[64];
		fprintf(f, "%s# %s [%s] (seed format)\n%-8s", m ? "\n" : "", me->name,
			me->unit ? compare_unit_label(me->unit, ul, sizeof ul) : "?", "");
		for (int g = 0; g < c->nr_groups; g++)
			fprintf(f, " %*s", w, c->groups[g].value);
		fputc('\n', f);
		for (int row = 0; row < 4; row++) {
			fprintf(f, "%-8s", names[row]);
			for (int g = 0; g < c->nr_groups; g++) {
				const struct st5 *x = &s[m][g];
				double v = row == 0 ? x->max : row == 1 ? x->min : row == 2 ? x->mean
											 : x->sd;
				if (isfinite(v))
					fprintf(f, " %*.*f", w, d, v);
				else
					fprintf(f, " %*s", w, "-");
			}
			fputc('\n', f);
		}
		fprintf(f, "%-8s", "n");
		for (int g = 0; g < c->nr_groups; g++)
			fprintf(f, " %*zu", w, s[m][g].n);
		fputc('\n', f);
		for (int g = 0; g < c->nr_groups; g++) {
			if (g == base)
				continue;
			/* the seed subtracts the group's mean from the baseline's */
			struct runs_diff r = compare_runs_diff(c, me, g, base);
			fprintf(f, "%s - %s: ", c->groups[base].value, c->groups[g].value);
			if (r.kind == DIFF_NONE)
				fprintf(f, "no runs to compare\n");
			else if (r.kind == DIFF_ONE_RUN)
				fprintf(f, "diff %+.6g, one run in a group: no t-test (one value "
					"per run)\n", -r.diff);
			else if (r.kind == DIFF_EXACT)
				fprintf(f, "diff %+.6g exactly: deterministic, identical across "
					"%s, no t-test\n", -r.diff, compare_one_seed(c) ? "repetitions"
					: "seeds");
			else
				fprintf(f, "diff %+.6g, Welch t = %.3f, df = %.1f, p = %.4f "
					"(two-sided): %ssignificant at %g%%\n",
					-r.diff, -r.w.t, r.w.df, r.w.p,
					r.w.p < c->o.alpha ? "" : "not ", 100 * c->o.alpha);
		}
	}
}

static struct layout make_layout(const struct compare *c)
{
	struct layout l = {.statw = TABLE_STAT_WIDTH, .opw = 0,
			   .colw = TABLE_FIELD_WIDTH + TABLE_COMPARE_WIDTH + 4};
	for (int r = 0; r < NR_ROWS; r++)
		if ((c->o.rows & row_bit(r)) && (int)strlen(row_names[r]) > l.statw)
			l.statw = (int)strlen(row_names[r]);
	int is_variant = !strcmp(c->o.by, "variant");
	for (int m = 0; m < c->nr_metrics; m++) {
		int n = (int)strlen(c->metrics[m].name);
		l.opw = n > l.opw ? n : l.opw;
	}
	for (int g = 0; g < c->nr_groups; g++) {
		int n1 = (int)strlen(is_variant ? c->groups[g].model : c->o.by) + 1;
		int n2 = (int)strlen(c->groups[g].head) + 1;
		l.colw = n1 > l.colw ? n1 : l.colw;
		l.colw = n2 > l.colw ? n2 : l.colw;
	}
	l.fieldw = l.colw - TABLE_COMPARE_WIDTH - 4;
	return l;
}

/* Per (metric, group) statistics and decimals, freed by free_stats. */
static void free_stats(struct compare *c, struct st5 **s, int *dec)
{
	for (int m = 0; s && m < c->nr_metrics; m++)
		free(s[m]);
	free(s);
	free(dec);
}

/*
 * What both outputs need: the checks, metrics in natural order, heads,
 * the baseline moved first, and the statistics of every metric and group.
 */
static int prepare(struct compare *c, struct st5 ***sp, int **decp)
{
	struct st5 **s = NULL;
	int *dec = NULL, base = 0, rc;
	*sp = NULL;
	*decp = NULL;
	if (c->nr_runs == 0)
		return diag_set(c->d, NS_EINPUT, c->origin, 0, 0, "no runs with status 'ok'%s "
				"to compare", c->o.nr_where ? " match the --where filters" : "");
	if (c->nr_metrics == 0)
		return diag_set(c->d, NS_EINPUT, c->origin, 0, 0, "no metric %s%s",
				c->o.metrics ? "matches " : "in the runs",
				c->o.metrics ? c->o.metrics : "");
	assert(compare_check(c) == NS_OK);
	qsort(c->metrics, (size_t)c->nr_metrics, sizeof *c->metrics, metric_cmp);
	if ((rc = compare_group_by_differences(c)))
		return rc;
	compare_make_heads(c);
	if ((rc = find_baseline(c, &base)))
		return rc;
	move_first(c, base);
	s = calloc((size_t)c->nr_metrics, sizeof *s);
	dec = calloc((size_t)c->nr_metrics, sizeof *dec);
	if (!s || !dec) {
		free_stats(c, s, dec);
		return compare_oom(c);
	}
	for (int m = 0; m < c->nr_metrics; m++) {
		if (!(s[m] = calloc((size_t)c->nr_groups, sizeof **s))) {
			free_stats(c, s, dec);
			return compare_oom(c);
		}
		for (int k = 0; k < c->nr_groups; k++)
			s[m][k] = summarize(&c->metrics[m].obs[k],
					    compare_lower_is_better(c->metrics[m].unit));
		dec[m] = metric_decimals(s[m], c->nr_groups);
	}
	*sp = s;
	*decp = dec;
	return NS_OK;
}

static void print_warnings(struct compare *c)
{
	if (c->warn_f && c->o.warn) {
		fflush(c->warn_f);
		fwrite(c->warn, 1, c->warn_len, c->o.warn);
	}
}

int compare_print(struct compare *c, FILE *f)
{
	struct st5 **s = NULL;
	int *dec = NULL, base = 0, rc;
	char *buf = NULL;
	size_t len = 0;
	FILE *g = NULL;

	if ((rc = prepare(c, &s, &dec)))
		return rc;
	if (!(g = open_memstream(&buf, &len))) {
		rc = compare_oom(c);
		goto out;
	}
	/* --top: the printers see the first max_metrics metrics only */
	int all = c->nr_metrics;
	if (c->o.max_metrics > 0 && c->o.max_metrics < all)
		c->nr_metrics = c->o.max_metrics;
	struct layout l = make_layout(c);
	if (c->o.seed_style) {
		print_seed(c, s, dec, base, g);
	} else {
		print_heads(c, &l, g);
		print_rows(c, &l, s, dec, base, g);
		if (c->nr_groups > 1)
			print_welch(c, &l, dec, base, g);
		print_interaction(c, &l, dec, g);
	}
	if (c->nr_groups == 1)
		fprintf(g, "\nNothing to compare: every selected run (%lld) is in one group, "
			"%s; compare needs two groups (another --by, or more runs: "
			"docs/design/statistics.md)\n", c->groups[0].nr_runs, c->groups[0].value);
	if (c->pooled)
		fprintf(g, "pooled (--pool): some runs are the same run of one plan stored more "
			"than once (by several invocations or in several databases), each "
			"copy counted as a run\n");
	if (c->nr_metrics < all)
		fprintf(g, "(%d of %d metrics; --top 0 prints all)\n", c->nr_metrics, all);
	c->nr_metrics = all;
	fclose(g);
	g = NULL;
	fwrite(buf, 1, len, f);
	print_warnings(c);
out:
	if (g)
		fclose(g);
	free(buf);
	free_stats(c, s, dec);
	return rc;
}

/* The row keys of the statistics, in row_names order (JSON/CSV keys). */
static const char *const row_keys[NR_ROWS] = {"min", "amean", "stddev", "coeffvar",
					      "max", "hmean", "bamean_50", "bamean_95",
					      "bamean_99"};

static void label(struct rec_doc *d, const char *key, const char *value)
{
	if (key)
		rec_str(d, key, value);
}

/* Group g against the baseline (group 0) of metric m, over runs. */
static void diff_record(const struct compare *c, struct runs_diff r, struct rec_doc *d)
{
	static const char *const kinds[] = {"none", "welch", "exact", "one-run"};
	int test = r.kind == DIFF_TEST, exact = r.kind == DIFF_EXACT;
	rec_int(d, "runs", (long long)r.n);
	rec_int(d, "runs_baseline", (long long)r.n_base);
	rec_str(d, "test", kinds[r.kind]);
	rec_num(d, "diff", r.diff);
	rec_bool(d, "exact", exact);
	rec_num(d, "t", test ? r.w.t : NAN);
	rec_num(d, "df", test ? r.w.df : NAN);
	rec_num(d, "p", test ? r.w.p : NAN);
	rec_num(d, "ci_low", test ? r.lo : exact ? r.diff : NAN);
	rec_num(d, "ci_high", test ? r.hi : exact ? r.diff : NAN);
	if (test)
		rec_bool(d, "significant", r.w.p < c->o.alpha);
	else
		rec_null(d, "significant");
}

int compare_records(struct compare *c, struct rec_doc *d, const char *label_key,
		    const char *label_value)
{
	struct st5 **s = NULL;
	int *dec = NULL;
	int rc = prepare(c, &s, &dec);
	if (rc)
		return rc;
	int nm = c->nr_metrics;
	if (c->o.max_metrics > 0 && c->o.max_metrics < nm)
		nm = c->o.max_metrics;
	rec_table(d, "groups");
	for (int g = 0; g < c->nr_groups; g++) {
		rec_row(d);
		label(d, label_key, label_value);
		rec_str(d, "key", c->o.by);
		rec_str(d, "value", c->groups[g].value);
		rec_str(d, "head", c->groups[g].head);
		rec_str(d, "kernel_model", c->groups[g].model);
		rec_bool(d, "baseline", g == 0);
	}
	rec_table(d, "stats");
	for (int m = 0; m < nm; m++) {
		const struct metric *me = &c->metrics[m];
		int lb = compare_lower_is_better(me->unit);
		for (int g = 0; g < c->nr_groups; g++) {
			char pk[32];
			rec_row(d);
			label(d, label_key, label_value);
			rec_str(d, "metric", me->name);
			rec_str(d, "unit", me->unit);
			rec_bool(d, "lower_is_better", lb);
			rec_str(d, "group", c->groups[g].value);
			rec_int(d, "n", (long long)s[m][g].n);
			for (int i = 0; i < NR_ROWS; i++)
				rec_num(d, row_keys[row_order[i]], row_value(&s[m][g], row_order[i]));
			for (int i = 0; i < NR_ROWS; i++) {
				int row = row_order[i];
				snprintf(pk, sizeof pk, "%s_pct", row_keys[row]);
				rec_num(d, pk, pct(row_value(&s[m][0], row), row_value(&s[m][g], row),
						   lb));
			}
		}
	}
	rec_table(d, "welch");
	for (int m = 0; m < nm; m++)
		for (int g = 1; g < c->nr_groups; g++) {
			rec_row(d);
			label(d, label_key, label_value);
			rec_str(d, "metric", c->metrics[m].name);
			rec_str(d, "group", c->groups[g].value);
			rec_str(d, "baseline", c->groups[0].value);
			rec_num(d, "alpha", c->o.alpha);
			diff_record(c, compare_runs_diff(c, &c->metrics[m], g, 0), d);
		}
	struct compare_2x2 x;
	if (compare_find_2x2(c, &x)) {
		rec_table(d, "interaction");
		for (int m = 0; m < nm; m++) {
			rec_row(d);
			label(d, label_key, label_value);
			rec_str(d, "metric", c->metrics[m].name);
			rec_str(d, "factor_a", x.factor[0]);
			rec_str(d, "a_from", x.level[0][0]);
			rec_str(d, "a_to", x.level[0][1]);
			rec_str(d, "factor_b", x.factor[1]);
			rec_str(d, "b_from", x.level[1][0]);
			rec_str(d, "b_to", x.level[1][1]);
			rec_num(d, "alpha", c->o.alpha);
			diff_record(c, compare_interaction(c, &c->metrics[m], &x), d);
		}
	}
	print_warnings(c);
	free_stats(c, s, dec);
	return NS_OK;
}

int compare_check(const struct compare *c)
{
	if (c->nr_groups > c->cap_groups || c->nr_metrics > c->cap_metrics)
		return NS_EINTERNAL;
	for (int g = 0; g < c->nr_groups; g++)
		for (int k = g + 1; k < c->nr_groups; k++)
			if (!strcmp(c->groups[g].value, c->groups[k].value) &&
			    (c->differs != 1 || !strcmp(c->groups[g].kv, c->groups[k].kv)))
				return NS_EINTERNAL;
	for (int m = 0; m < c->nr_metrics; m++)
		for (int g = 0; g < c->cap_groups; g++) {
			const struct obs *o = &c->metrics[m].obs[g];
			if (o->n > o->cap || o->nr > o->rcap || o->nr > o->n ||
			    (g >= c->nr_groups && (o->n || o->nr)))
				return NS_EINTERNAL;
		}
	return NS_OK;
}
