/*
 * numastat — numastat(8)'s table of one run (see numastat.h).
 *
 * Design notes.  One query: the run's node rows of the six names, or,
 * when it stored none, its zone rows summed per node (the part of
 * scope_id before '/').  Nodes come back in ascending order and are
 * collected into a small array; the printers only format it.
 */
#include "analysis/numastat.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define NUMASTAT_NAME(n) #n,
const char *const numastat_row_names[NUMASTAT_NR_ROWS] = {NUMASTAT_ROWS(NUMASTAT_NAME)};
#undef NUMASTAT_NAME

static int db_err(sqlite3 *db, const char *dbname, struct diag *d)
{
	return diag_set(d, NS_EDB, dbname, 0, 0, "%s", sqlite3_errmsg(db));
}

static int row_of(const char *name)
{
	for (int i = 0; i < NUMASTAT_NR_ROWS; i++)
		if (!strcmp(numastat_row_names[i], name))
			return i;
	return -1;
}

static int run_exists(sqlite3 *db, const char *dbname, int64_t run, struct diag *d)
{
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(db, "SELECT 1 FROM runs WHERE run_id = ?1", -1, &st, NULL) !=
	    SQLITE_OK)
		return db_err(db, dbname, d);
	sqlite3_bind_int64(st, 1, run);
	int s = sqlite3_step(st);
	sqlite3_finalize(st);
	if (s == SQLITE_ROW)
		return NS_OK;
	if (s == SQLITE_DONE)
		return diag_set(d, NS_EINPUT, dbname, 0, 0, "no run %" PRId64 " in this database",
				run);
	return db_err(db, dbname, d);
}

void numastat_free(struct numastat *ns)
{
	free(ns->node);
	free(ns->v);
	memset(ns, 0, sizeof *ns);
}

int numastat_read(sqlite3 *db, const char *dbname, int64_t run, struct numastat *ns,
		  struct diag *d)
{
	static const char sql[] =
		"WITH n AS (SELECT scope_id AS node, name, value FROM counters "
		"  WHERE run_id = ?1 AND scope = 'node' AND typeof(scope_id) = 'integer' "
		"  AND name IN ('numa_hit', 'numa_miss', 'numa_foreign', 'interleave_hit', "
		"  'local_node', 'other_node')), "
		"z AS (SELECT CAST(substr(scope_id, 1, instr(scope_id, '/') - 1) AS INTEGER) "
		"  AS node, name, value FROM counters WHERE run_id = ?1 AND scope = 'zone' "
		"  AND name IN ('numa_hit', 'numa_miss', 'numa_foreign', 'interleave_hit', "
		"  'local_node', 'other_node') AND NOT EXISTS (SELECT 1 FROM n)) "
		"SELECT node, name, sum(value) FROM (SELECT * FROM n UNION ALL SELECT * FROM z) "
		"GROUP BY node, name ORDER BY node";
	memset(ns, 0, sizeof *ns);
	int rc = run_exists(db, dbname, run, d);
	if (rc)
		return rc;
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return db_err(db, dbname, d);
	sqlite3_bind_int64(st, 1, run);
	int s, cap = 0;
	while ((s = sqlite3_step(st)) == SQLITE_ROW) {
		int node = sqlite3_column_int(st, 0);
		int row = row_of((const char *)sqlite3_column_text(st, 1));
		if (row < 0)
			continue;
		if (!ns->nr_nodes || ns->node[ns->nr_nodes - 1] != node) {
			if (ns->nr_nodes == cap) {
				cap = cap ? 2 * cap : 8;
				int *nn = realloc(ns->node, (size_t)cap * sizeof *nn);
				if (nn)
					ns->node = nn;
				int64_t (*nv)[NUMASTAT_NR_ROWS] = realloc(ns->v, (size_t)cap *
									   sizeof *nv);
				if (nv)
					ns->v = nv;
				if (!nn || !nv) {
					rc = diag_set(d, NS_ENOMEM, dbname, 0, 0, "out of memory");
					break;
				}
			}
			ns->node[ns->nr_nodes] = node;
			memset(ns->v[ns->nr_nodes], 0, sizeof ns->v[0]);
			ns->nr_nodes++;
		}
		ns->v[ns->nr_nodes - 1][row] = sqlite3_column_int64(st, 2);
	}
	if (rc == NS_OK && s != SQLITE_DONE)
		rc = db_err(db, dbname, d);
	sqlite3_finalize(st);
	if (rc == NS_OK && !ns->nr_nodes)
		rc = NS_ENOENT;
	if (rc)
		numastat_free(ns);
	return rc;
}

void numastat_print(const struct numastat *ns, FILE *f)
{
	char h[32];
	fprintf(f, "%-16s", "");
	for (int i = 0; i < ns->nr_nodes; i++) {
		snprintf(h, sizeof h, "node%d", ns->node[i]);
		fprintf(f, "%16s", h);
	}
	fputc('\n', f);
	for (int r = 0; r < NUMASTAT_NR_ROWS; r++) {
		fprintf(f, "%-16s", numastat_row_names[r]);
		for (int i = 0; i < ns->nr_nodes; i++)
			fprintf(f, "%16" PRId64, ns->v[i][r]);
		fputc('\n', f);
	}
}

void numastat_html(const struct numastat *ns, FILE *f)
{
	fprintf(f, "<table class=\"numastat\"><thead><tr><th></th>");
	for (int i = 0; i < ns->nr_nodes; i++)
		fprintf(f, "<th class=\"n\">node%d</th>", ns->node[i]);
	fprintf(f, "</tr></thead><tbody>\n");
	for (int r = 0; r < NUMASTAT_NR_ROWS; r++) {
		fprintf(f, "<tr><th>%s</th>", numastat_row_names[r]);
		for (int i = 0; i < ns->nr_nodes; i++)
			fprintf(f, "<td class=\"n\">%" PRId64 "</td>", ns->v[i][r]);
		fprintf(f, "</tr>\n");
	}
	fprintf(f, "</tbody></table>\n");
}
