/* run_values — one run's metrics, once (run_values.h). */
#include "analysis/run_values.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/compare.h"
#include "analysis/latency_hist.h"

#define RV_ORIGIN "results database"

struct rv_metric {
	char *name, *unit;
	double value, min;
	int has_value, has_min;
};

static int rv_cmp(const void *a, const void *b)
{
	return compare_natural(((const struct rv_metric *)a)->name,
			       ((const struct rv_metric *)b)->name);
}

static int db_err(sqlite3 *db, struct diag *d)
{
	return diag_set(d, NS_EDB, RV_ORIGIN, 0, 0, "%s", sqlite3_errmsg(db));
}

/* The run's metrics with each NAME.min folded into NAME's entry. */
static int load(sqlite3 *db, int64_t run_id, struct rv_metric **out, int *nr,
		struct diag *d)
{
	sqlite3_stmt *st = NULL;
	struct rv_metric *v = NULL;
	int n = 0, rc = NS_OK, s;
	if (sqlite3_prepare_v2(db, "SELECT a.name, a.value, a.unit, b.value, b.name IS NOT NULL "
			       "FROM metrics a LEFT JOIN metrics b ON b.run_id = a.run_id "
			       "AND b.name = a.name || '.min' WHERE a.run_id = ?1 AND a.name NOT "
			       "GLOB '" LATENCY_HIST_GLOB "' AND NOT "
			       "(a.name GLOB '*.min' AND EXISTS (SELECT 1 FROM metrics c "
			       "WHERE c.run_id = a.run_id AND c.name || '.min' = a.name))",
			       -1, &st, NULL) != SQLITE_OK)
		return db_err(db, d);
	sqlite3_bind_int64(st, 1, run_id);
	while ((s = sqlite3_step(st)) == SQLITE_ROW) {
		struct rv_metric *nv = realloc(v, (size_t)(n + 1) * sizeof *nv);
		if (!nv) {
			rc = diag_set(d, NS_ENOMEM, RV_ORIGIN, 0, 0, "out of memory");
			break;
		}
		v = nv;
		struct rv_metric *m = &v[n];
		memset(m, 0, sizeof *m);
		m->name = strdup((const char *)sqlite3_column_text(st, 0));
		m->unit = strdup((const char *)sqlite3_column_text(st, 2));
		n++;
		if (!m->name || !m->unit) {
			rc = diag_set(d, NS_ENOMEM, RV_ORIGIN, 0, 0, "out of memory");
			break;
		}
		m->has_value = sqlite3_column_type(st, 1) != SQLITE_NULL;
		m->value = sqlite3_column_double(st, 1);
		m->has_min = sqlite3_column_int(st, 4) && sqlite3_column_type(st, 3) != SQLITE_NULL;
		m->min = sqlite3_column_double(st, 3);
	}
	if (rc == NS_OK && s != SQLITE_DONE)
		rc = db_err(db, d);
	if (rc == NS_OK && n == 0)
		rc = diag_set(d, NS_EINPUT, RV_ORIGIN, 0, 0, "run %lld has no metrics",
			      (long long)run_id);
	sqlite3_finalize(st);
	*out = v;
	*nr = n;
	return rc;
}

static int header(sqlite3 *db, int64_t run_id, FILE *f, struct diag *d)
{
	sqlite3_stmt *st = NULL;
	if (sqlite3_prepare_v2(db, "SELECT scenario, point, variant, repetition FROM runs "
			       "WHERE run_id = ?1", -1, &st, NULL) != SQLITE_OK)
		return db_err(db, d);
	sqlite3_bind_int64(st, 1, run_id);
	int s = sqlite3_step(st), rc = NS_OK;
	if (s == SQLITE_ROW)
		fprintf(f, "Run %lld: %s, point %lld (%s), repetition %lld\n",
			(long long)run_id, (const char *)sqlite3_column_text(st, 0),
			(long long)sqlite3_column_int64(st, 1),
			(const char *)sqlite3_column_text(st, 2),
			(long long)sqlite3_column_int64(st, 3));
	else
		rc = s == SQLITE_DONE ? diag_set(d, NS_EINPUT, RV_ORIGIN, 0, 0, "no run %lld",
						 (long long)run_id) : db_err(db, d);
	sqlite3_finalize(st);
	return rc;
}

/* Counts and cycle totals are whole numbers: no ".00" after them (a
 * column of one unit keeps its decimal points aligned). */
static int decimals(const char *unit, double v)
{
	int whole = !strcmp(unit, "count") || !strcmp(unit, "cycles") ||
		    !strcmp(unit, "core_cycles") || !strcmp(unit, "tsc_ticks");
	return whole && v == floor(v) && fabs(v) < 1e15 ? 0 : 2;
}

int run_values_print(sqlite3 *db, int64_t run_id, FILE *f, struct diag *d)
{
	struct rv_metric *v = NULL;
	char *buf = NULL;
	size_t len = 0;
	int n = 0, w = (int)strlen("metric");
	FILE *m = open_memstream(&buf, &len);
	int rc = m ? load(db, run_id, &v, &n, d)
		   : diag_set(d, NS_ENOMEM, RV_ORIGIN, 0, 0, "out of memory");
	if (rc == NS_OK)
		rc = header(db, run_id, m, d);
	if (rc == NS_OK) {
		qsort(v, (size_t)n, sizeof *v, rv_cmp);
		for (int i = 0; i < n; i++)
			if ((int)strlen(v[i].name) > w)
				w = (int)strlen(v[i].name);
		fprintf(m, "%-*s  %16s  %16s  %s\n", w, "metric", "value", "min", "unit");
		for (int i = 0; i < n; i++) {
			fprintf(m, "%-*s  ", w, v[i].name);
			if (v[i].has_value)
				fprintf(m, "%16.*f  ", decimals(v[i].unit, v[i].value), v[i].value);
			else
				fprintf(m, "%16s  ", "-");
			char ul[64];
			compare_unit_label(v[i].unit, ul, sizeof ul);
			if (v[i].has_min)
				fprintf(m, "%16.*f  %s\n", decimals(v[i].unit, v[i].min), v[i].min,
					ul);
			else
				fprintf(m, "%16s  %s\n", "", ul);
		}
	}
	if (m && fclose(m) && rc == NS_OK)
		rc = diag_set(d, NS_ENOMEM, RV_ORIGIN, 0, 0, "out of memory");
	if (rc == NS_OK)
		fwrite(buf, 1, len, f);
	free(buf);
	for (int i = 0; i < n; i++) {
		free(v[i].name);
		free(v[i].unit);
	}
	free(v);
	return rc;
}
