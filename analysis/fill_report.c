/*
 * fill_report — the fill workload's per-run summary (see fill_report.h).
 *
 * Design notes.  One query per run reads the run's machine, its
 * zone_reclaim_mode parameter and the ten metrics as columns; rows are
 * formatted into a memory stream, column widths from the widest cell.
 */
#include "analysis/fill_report.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define FILL_COLS 10
#define FILL_CELL 48

static const struct {
	const char *metric, *head, *unit;
	int pct;                        /* a fraction printed as a percentage */
} cols[FILL_COLS] = {
	{"alloc_latency_p50", "alloc p50", "core cycles", 0},
	{"alloc_latency_p99", "alloc p99", "core cycles", 0},
	{"alloc_latency_max", "alloc max", "core cycles", 0},
	{"alloc_latency_mean", "alloc mean", "core cycles", 0},
	{"remote_share", "remote", "% of pages", 1},
	{"reclaim_cycles_per_alloc", "reclaim/alloc", "core cycles", 0},
	{"reclaimed_prefill", "reclaimed", "pages", 0},
	{"kswapd_steps", "kswapd", "steps", 0},
	{"access_cycles_local", "read local", "core cycles", 0},
	{"access_cycles_remote", "read remote", "core cycles", 0},
};

#define FILL_HEAD 3                     /* run, machine, zone_reclaim_mode */

int fill_report_print(sqlite3 *db, const char *dbname, const int64_t *run_ids, int nr_runs,
		      FILE *f, struct diag *d)
{
	static const char sql[] =
		"SELECT r.machine, coalesce((SELECT CAST(value AS TEXT) FROM params p WHERE "
		"p.run_id = r.run_id AND p.key = 'kernel.zone_reclaim_mode'), '-'), "
		"(SELECT value FROM metrics m WHERE m.run_id = r.run_id AND m.name = ?2) "
		"FROM runs r WHERE r.run_id = ?1";
	int n = nr_runs, w[FILL_HEAD + FILL_COLS];
	char (*cell)[FILL_HEAD + FILL_COLS][FILL_CELL] = calloc((size_t)(n ? n : 1),
								 sizeof *cell);
	if (!cell)
		return diag_set(d, NS_ENOMEM, dbname, 0, 0, "out of memory");
	static const char *const head[FILL_HEAD] = {"run", "machine", "zone_reclaim_mode"};
	for (int c = 0; c < FILL_HEAD; c++)
		w[c] = (int)strlen(head[c]);
	for (int c = 0; c < FILL_COLS; c++) {
		int a = (int)strlen(cols[c].head), b = (int)strlen(cols[c].unit);
		w[FILL_HEAD + c] = a > b ? a : b;
	}
	sqlite3_stmt *st;
	int rc = NS_OK;
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
		free(cell);
		return diag_set(d, NS_EDB, dbname, 0, 0, "%s", sqlite3_errmsg(db));
	}
	for (int i = 0; i < n && rc == NS_OK; i++) {
		snprintf(cell[i][0], FILL_CELL, "%" PRId64, run_ids[i]);
		for (int c = 0; c < FILL_COLS && rc == NS_OK; c++) {
			sqlite3_reset(st);
			sqlite3_bind_int64(st, 1, run_ids[i]);
			sqlite3_bind_text(st, 2, cols[c].metric, -1, SQLITE_STATIC);
			int s = sqlite3_step(st);
			if (s != SQLITE_ROW) {
				rc = s == SQLITE_DONE ? NS_OK : diag_set(d, NS_EDB, dbname, 0, 0,
									"%s", sqlite3_errmsg(db));
				break;
			}
			const unsigned char *m = sqlite3_column_text(st, 0);
			const unsigned char *z = sqlite3_column_text(st, 1);
			snprintf(cell[i][1], FILL_CELL, "%s", m ? (const char *)m : "?");
			snprintf(cell[i][2], FILL_CELL, "%s", z ? (const char *)z : "-");
			char *out = cell[i][FILL_HEAD + c];
			if (sqlite3_column_type(st, 2) == SQLITE_NULL)
				snprintf(out, FILL_CELL, "-");
			else if (cols[c].pct)
				snprintf(out, FILL_CELL, "%.1f %%", 100 * sqlite3_column_double(st, 2));
			else
				snprintf(out, FILL_CELL, "%.0f", round(sqlite3_column_double(st, 2)));
		}
		for (int c = 0; c < FILL_HEAD + FILL_COLS; c++) {
			int l = (int)strlen(cell[i][c]);
			w[c] = l > w[c] ? l : w[c];
		}
	}
	sqlite3_finalize(st);
	if (rc == NS_OK) {
		fprintf(f, "%-*s  %-*s  %*s", w[0], head[0], w[1], head[1], w[2], head[2]);
		for (int c = 0; c < FILL_COLS; c++)
			fprintf(f, "  %*s", w[FILL_HEAD + c], cols[c].head);
		fprintf(f, "\n%-*s  %-*s  %*s", w[0], "", w[1], "", w[2], "");
		for (int c = 0; c < FILL_COLS; c++)
			fprintf(f, "  %*s", w[FILL_HEAD + c], cols[c].unit);
		fputc('\n', f);
		for (int i = 0; i < n; i++) {
			fprintf(f, "%-*s  %-*s  %*s", w[0], cell[i][0], w[1], cell[i][1], w[2],
				cell[i][2]);
			for (int c = 0; c < FILL_COLS; c++)
				fprintf(f, "  %*s", w[FILL_HEAD + c], cell[i][FILL_HEAD + c]);
			fputc('\n', f);
		}
		fprintf(f, "\nalloc p50 .. mean: one alloc_pages on the task's CPU; every metric: "
			"numasim compare %s --by variant\n", dbname);
	}
	free(cell);
	return rc;
}
