/*
 * sweep_table — per-point summary of a pagealloc sweep (sweep_table.h).
 *
 * Built in memory first (an open_memstream buffer), written to f only when
 * complete.  Cost: two queries per point plus one for the series names;
 * a 4096-point plan reads 8k small result sets, well under a second.
 */
#include "analysis/sweep_table.h"

#include <stdlib.h>
#include <string.h>

#include "analysis/compare.h"

#define PT_ORIGIN "results database"
#define PT_COL_MIN 12

static int db_err(sqlite3 *db, struct diag *d)
{
	return diag_set(d, NS_EDB, PT_ORIGIN, 0, 0, "%s", sqlite3_errmsg(db));
}

static int name_cmp(const void *a, const void *b)
{
	return compare_natural(*(char *const *)a, *(char *const *)b);
}

static char *in_list(const int64_t *ids, int n)
{
	char *s = sqlite3_mprintf("(");
	for (int i = 0; s && i < n; i++) {
		char *t = sqlite3_mprintf("%s%s%lld", s, i ? "," : "", (long long)ids[i]);
		sqlite3_free(s);
		s = t;
	}
	char *t = s ? sqlite3_mprintf("%s)", s) : NULL;
	sqlite3_free(s);
	return t;
}

/* The distinct alloc-odrO-N.min metric names of the runs, sorted. */
static int load_series(sqlite3 *db, const char *in, char ***out, int *nr, struct diag *d)
{
	char *sql = sqlite3_mprintf("SELECT DISTINCT name FROM metrics WHERE run_id IN %s "
				    "AND name GLOB 'alloc-odr*-*.min'", in);
	sqlite3_stmt *st = NULL;
	char **v = NULL;
	int n = 0, rc = NS_OK;
	if (!sql)
		return diag_set(d, NS_ENOMEM, PT_ORIGIN, 0, 0, "out of memory");
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
		rc = db_err(db, d);
		goto out;
	}
	int s;
	while ((s = sqlite3_step(st)) == SQLITE_ROW) {
		char **nv = realloc(v, (size_t)(n + 1) * sizeof *nv);
		char *name = nv ? strdup((const char *)sqlite3_column_text(st, 0)) : NULL;
		if (nv)
			v = nv;
		if (!name) {
			rc = diag_set(d, NS_ENOMEM, PT_ORIGIN, 0, 0, "out of memory");
			goto out;
		}
		v[n++] = name;
	}
	if (s != SQLITE_DONE)
		rc = db_err(db, d);
	else if (n == 0)
		rc = diag_set(d, NS_EINPUT, PT_ORIGIN, 0, 0,
			      "the runs have no allocation series (alloc-odrO-N)");
out:
	sqlite3_finalize(st);
	sqlite3_free(sql);
	if (rc == NS_OK) {
		qsort(v, (size_t)n, sizeof *v, name_cmp);
		*out = v;
		*nr = n;
	} else {
		for (int i = 0; i < n; i++)
			free(v[i]);
		free(v);
	}
	return rc;
}

/*
 * The text of axis a at the point of run `run`: its stored param (a
 * scalar axis; `machine` shows machine.name), else its part of the run's
 * variant label "KEY1=V1,KEY2=V2,..." (an axis of mappings such as
 * `policy: {mempolicy: bind, nodes: "1"}` is stored as policy.* params,
 * and its label "bind:1" is what tells the points apart), else "-".
 */
static int axis_value(sqlite3_stmt *par, sqlite3_stmt *var, int64_t run,
		      const char *const *axes, int nr_axes, int a, char *buf, size_t len)
{
	const char *key = strcmp(axes[a], "machine") ? axes[a] : "machine.name";
	snprintf(buf, len, "-");
	sqlite3_reset(par);
	sqlite3_bind_int64(par, 1, run);
	sqlite3_bind_text(par, 2, key, -1, SQLITE_STATIC);
	int s = sqlite3_step(par);
	if (s == SQLITE_ROW) {
		snprintf(buf, len, "%s", (const char *)sqlite3_column_text(par, 0));
		return NS_OK;
	}
	if (s != SQLITE_DONE)
		return NS_EDB;
	sqlite3_reset(var);
	sqlite3_bind_int64(var, 1, run);
	if ((s = sqlite3_step(var)) != SQLITE_ROW)
		return s == SQLITE_DONE ? NS_OK : NS_EDB;
	const char *label = (const char *)sqlite3_column_text(var, 0);
	size_t kl = strlen(axes[a]);
	for (const char *p = label; p && *p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL) {
		if (strncmp(p, axes[a], kl) || p[kl] != '=')
			continue;
		const char *v = p + kl + 1, *e = v + strlen(v);
		/* the value ends where the next axis' "KEY=" starts */
		if (a + 1 < nr_axes) {
			char next[256];
			snprintf(next, sizeof next, ",%s=", axes[a + 1]);
			const char *n = strstr(v, next);
			e = n ? n : e;
		}
		snprintf(buf, len, "%.*s", (int)(e - v), v);
		break;
	}
	return NS_OK;
}

#define PT_VALUE_MAX 256

static int print_rows(sqlite3 *db, const char *in, const char *const *axes, int nr_axes,
		      char **series, int nr_series, int *width, FILE *f,
		      struct diag *d)
{
	char *sql = sqlite3_mprintf("SELECT point, min(run_id) FROM runs WHERE run_id IN %s "
				    "GROUP BY point ORDER BY point", in);
	sqlite3_stmt *pts = NULL, *par = NULL, *met = NULL, *var = NULL;
	char val[PT_VALUE_MAX];
	int rc = NS_OK, s;
	if (!sql)
		return diag_set(d, NS_ENOMEM, PT_ORIGIN, 0, 0, "out of memory");
	char *msql = sqlite3_mprintf("SELECT min(m.value) FROM metrics m JOIN runs r USING "
				     "(run_id) WHERE r.run_id IN %s AND r.point = ?1 AND "
				     "m.name = ?2", in);
	if (!msql ||
	    sqlite3_prepare_v2(db, sql, -1, &pts, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(db, "SELECT value FROM params WHERE run_id = ?1 AND key = ?2",
			       -1, &par, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(db, "SELECT variant FROM runs WHERE run_id = ?1",
			       -1, &var, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(db, msql, -1, &met, NULL) != SQLITE_OK) {
		rc = msql ? db_err(db, d) : diag_set(d, NS_ENOMEM, PT_ORIGIN, 0, 0, "out of memory");
		goto out;
	}
	/* pass 1: axis columns as wide as their widest value */
	for (int a = 0; a < nr_axes; a++)
		width[a] = (int)strlen(axes[a]);
	while (rc == NS_OK && (s = sqlite3_step(pts)) == SQLITE_ROW)
		for (int a = 0; rc == NS_OK && a < nr_axes; a++) {
			rc = axis_value(par, var, sqlite3_column_int64(pts, 1), axes, nr_axes,
					a, val, sizeof val);
			if ((int)strlen(val) > width[a])
				width[a] = (int)strlen(val);
		}
	if (rc == NS_EDB || (rc == NS_OK && s != SQLITE_DONE)) {
		rc = db_err(db, d);
		goto out;
	}
	sqlite3_reset(pts);
	fprintf(f, "Min TSC ticks per page allocation over each point's runs "
		"(alloc-odrO-N, mmtests' Min)\n%5s", "point");
	for (int a = 0; a < nr_axes; a++)
		fprintf(f, "  %-*s", width[a], axes[a]);
	for (int i = 0; i < nr_series; i++) {
		int w = (int)strlen(series[i]) - 4;     /* without ".min" */
		width[nr_axes + i] = w < PT_COL_MIN ? PT_COL_MIN : w;
		fprintf(f, "  %*.*s", width[nr_axes + i], w, series[i]);
	}
	fputc('\n', f);
	while (rc == NS_OK && (s = sqlite3_step(pts)) == SQLITE_ROW) {
		int64_t point = sqlite3_column_int64(pts, 0), run = sqlite3_column_int64(pts, 1);
		fprintf(f, "%5lld", (long long)point);
		for (int a = 0; rc == NS_OK && a < nr_axes; a++) {
			rc = axis_value(par, var, run, axes, nr_axes, a, val, sizeof val);
			fprintf(f, "  %-*s", width[a], val);
		}
		for (int i = 0; rc == NS_OK && i < nr_series; i++) {
			sqlite3_reset(met);
			sqlite3_bind_int64(met, 1, point);
			sqlite3_bind_text(met, 2, series[i], -1, SQLITE_STATIC);
			if ((s = sqlite3_step(met)) != SQLITE_ROW) {
				rc = NS_EDB;
				break;
			}
			int w = width[nr_axes + i];
			if (sqlite3_column_type(met, 0) == SQLITE_NULL)
				fprintf(f, "  %*s", w, "-");
			else
				fprintf(f, "  %*.0f", w, sqlite3_column_double(met, 0));
		}
		fputc('\n', f);
	}
	if (rc == NS_EDB || (rc == NS_OK && s != SQLITE_DONE))
		rc = db_err(db, d);
out:
	sqlite3_finalize(pts);
	sqlite3_finalize(par);
	sqlite3_finalize(var);
	sqlite3_finalize(met);
	sqlite3_free(sql);
	sqlite3_free(msql);
	return rc;
}

int sweep_table_print(sqlite3 *db, const int64_t *run_ids, int nr_runs,
		   const char *const *axes, int nr_axes, FILE *f, struct diag *d)
{
	char *in = in_list(run_ids, nr_runs), **series = NULL, *buf = NULL;
	int nr_series = 0, *width = NULL, rc;
	size_t len = 0;
	FILE *m = NULL;
	if (!in)
		return diag_set(d, NS_ENOMEM, PT_ORIGIN, 0, 0, "out of memory");
	if ((rc = load_series(db, in, &series, &nr_series, d)))
		goto out;
	width = calloc((size_t)(nr_axes + nr_series), sizeof *width);
	m = width ? open_memstream(&buf, &len) : NULL;
	if (!m) {
		rc = diag_set(d, NS_ENOMEM, PT_ORIGIN, 0, 0, "out of memory");
		goto out;
	}
	rc = print_rows(db, in, axes, nr_axes, series, nr_series, width, m, d);
out:
	if (m)
		fclose(m);
	if (rc == NS_OK)
		fwrite(buf, 1, len, f);
	free(buf);
	free(width);
	for (int i = 0; i < nr_series; i++)
		free(series[i]);
	free(series);
	sqlite3_free(in);
	return rc;
}
