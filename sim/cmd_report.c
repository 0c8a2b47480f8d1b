/*
 * report — `numasim report DB [--run ID] [--top N]`: what a results
 * database holds, run by run, like `perf report` plus mmtests' compare:
 * the run's identity, its simulated profile (top functions by self
 * cycles), its branch sites (top by executions), and for pagealloc runs
 * the comparison table of each invocation's runs (analysis/table.h), for
 * messaging runs the seed-format summary, t-tests, SLUB stats and
 * __slab_free branch table of each invocation's runs (analysis/msgreport.h).
 *
 * The database is opened read-only (docs/schema.md): a missing file, a file
 * that is not a numasim database, or an unknown --run id exits 2 with a
 * message and nothing on standard output.  The report is composed in
 * memory and written only when complete.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "diag.h"
#include "msgreport.h"
#include "store.h"
#include "table.h"

#define REPORT_DEFAULT_TOP 20

static const char usage_line[] = "numasim report DB [--run ID] [--top N]";

static void print_help(void)
{
	printf("usage: %s\n\n"
	       "Prints, for every run of a results database (or the one given with\n"
	       "--run): its scenario, variant, seed and status; the simulated\n"
	       "profile like perf report (function, calls, self cycles, self %%,\n"
	       "total cycles, cycles per call), top N by self cycles; the branch\n"
	       "sites (executed, taken, mispredicted and their rates), top N by\n"
	       "executions; and for pagealloc runs the mmtests-style table (Min and\n"
	       "Amean per series, base column first) of each `numasim run`\n"
	       "invocation.  The database is opened read-only.\n\n"
	       "options:\n"
	       "  --run ID   only this run (and its table)\n"
	       "  --top N    rows of the profile and branch tables (default %d,\n"
	       "             0 = all)\n"
	       "  -h, --help show this help\n\n"
	       "exit status: 0 ok, 1 database error, 2 bad usage, missing file,\n"
	       "not a numasim database or unknown run\n",
	       usage_line, REPORT_DEFAULT_TOP);
}

struct rep {
	sqlite3 *db;
	const char *path;
	FILE *f;
	long long top;
	struct diag *d;
};

static int db_err(struct rep *r)
{
	return diag_set(r->d, NS_EDB, r->path, 0, 0, "%s", sqlite3_errmsg(r->db));
}

static const char *col_text(sqlite3_stmt *st, int i)
{
	const unsigned char *s = sqlite3_column_text(st, i);
	return s ? (const char *)s : "";
}

static int print_profile(struct rep *r, int64_t run)
{
	sqlite3_stmt *st;
	int rc = NS_OK, s;
	if (sqlite3_prepare_v2(r->db,
			       "SELECT function, inlined, calls, self_cycles, total_cycles, "
			       "self_pct, cycles_per_call FROM profile_report WHERE run_id = ?1 "
			       "ORDER BY self_cycles DESC, total_cycles DESC, function "
			       "LIMIT ?2", -1, &st, NULL) != SQLITE_OK)
		return db_err(r);
	sqlite3_bind_int64(st, 1, run);
	sqlite3_bind_int64(st, 2, r->top > 0 ? r->top : -1);
	fprintf(r->f, "\n  Profile (simulated, by self cycles)\n"
		"  %7s %14s %14s %12s %11s  %s\n", "Self%", "Self", "Total", "Calls",
		"Cyc/call", "Function");
	int n = 0;
	while ((s = sqlite3_step(st)) == SQLITE_ROW) {
		fprintf(r->f, "  %6.2f%% %14lld %14lld %12lld"
			" %11.1f  %s%s\n", sqlite3_column_double(st, 5),
			sqlite3_column_int64(st, 3), sqlite3_column_int64(st, 4),
			sqlite3_column_int64(st, 2), sqlite3_column_double(st, 6),
			col_text(st, 0), sqlite3_column_int(st, 1) ? " [inlined]" : "");
		n++;
	}
	if (s != SQLITE_DONE)
		rc = db_err(r);
	else if (n == 0)
		fprintf(r->f, "  (no profile rows)\n");
	sqlite3_finalize(st);
	return rc;
}

/* Width of the site column: the longest site name of the run (>= 4). */
static int site_width(struct rep *r, int64_t run)
{
	sqlite3_stmt *st;
	int w = 4;
	if (sqlite3_prepare_v2(r->db, "SELECT max(length(site)) FROM branches "
			       "WHERE run_id = ?1", -1, &st, NULL) != SQLITE_OK)
		return w;
	sqlite3_bind_int64(st, 1, run);
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_int(st, 0) > w)
		w = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	return w > 64 ? 64 : w;
}

static int print_branches(struct rep *r, int64_t run)
{
	sqlite3_stmt *st;
	int rc = NS_OK, s, w = site_width(r, run);
	if (sqlite3_prepare_v2(r->db,
			       "SELECT site, executed, taken, taken_pct, mispredicted, "
			       "mispredict_pct, fallthrough FROM branch_stats WHERE run_id = ?1 "
			       "ORDER BY executed DESC, site LIMIT ?2", -1, &st, NULL) != SQLITE_OK)
		return db_err(r);
	sqlite3_bind_int64(st, 1, run);
	sqlite3_bind_int64(st, 2, r->top > 0 ? r->top : -1);
	fprintf(r->f, "\n  Branch sites (by executions)\n"
		"  %-*s %14s %14s %8s %12s %8s  %s\n", w, "Site", "Executed", "Taken",
		"Taken%", "Mispredicted", "Miss%", "Fall-through");
	int n = 0;
	while ((s = sqlite3_step(st)) == SQLITE_ROW) {
		const char *ft = sqlite3_column_type(st, 6) == SQLITE_NULL ? "?"
				 : sqlite3_column_int(st, 6) ? "true" : "false";
		fprintf(r->f, "  %-*s %14lld %14lld %7.2f%% %12lld"
			" %7.2f%%  %s\n", w, col_text(st, 0), sqlite3_column_int64(st, 1),
			sqlite3_column_int64(st, 2), sqlite3_column_double(st, 3),
			sqlite3_column_int64(st, 4), sqlite3_column_double(st, 5), ft);
		n++;
	}
	if (s != SQLITE_DONE)
		rc = db_err(r);
	else if (n == 0)
		fprintf(r->f, "  (no branch rows)\n");
	sqlite3_finalize(st);
	return rc;
}

static int print_runs(struct rep *r, int64_t only, int *found)
{
	sqlite3_stmt *st;
	int rc = NS_OK, s;
	if (sqlite3_prepare_v2(r->db,
			       "SELECT run_id, scenario, point, repetition, seed, machine, "
			       "workload, variant, kernel_model, status, duration_s, started, "
			       "message FROM runs WHERE ?1 = 0 OR run_id = ?1 ORDER BY run_id",
			       -1, &st, NULL) != SQLITE_OK)
		return db_err(r);
	sqlite3_bind_int64(st, 1, only);
	while ((s = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t id = sqlite3_column_int64(st, 0);
		(*found)++;
		fprintf(r->f, "%srun %" PRId64 ": scenario %s, point %lld (%s), "
			"repetition %lld, seed %lld\n"
			"  machine %s, workload %s, kernel model %s\n"
			"  status %s, started %s, %.3f s%s%s\n",
			*found > 1 ? "\n" : "", id, col_text(st, 1),
			sqlite3_column_int64(st, 2), col_text(st, 7),
			sqlite3_column_int64(st, 3), sqlite3_column_int64(st, 4),
			col_text(st, 5), col_text(st, 6), col_text(st, 8), col_text(st, 9),
			col_text(st, 11), sqlite3_column_double(st, 10),
			sqlite3_column_type(st, 12) == SQLITE_NULL ? "" : ": ",
			col_text(st, 12));
		if ((rc = print_profile(r, id)) || (rc = print_branches(r, id)))
			break;
	}
	if (rc == NS_OK && s != SQLITE_DONE)
		rc = db_err(r);
	sqlite3_finalize(st);
	return rc;
}

/* The table of each invocation's runs of a workload (pagealloc or
 * messaging), or of the one run. */
static int print_tables(struct rep *r, int64_t only, const char *workload)
{
	int messaging = !strcmp(workload, "messaging");
	sqlite3_stmt *inv = NULL, *ids = NULL;
	int64_t *run = NULL;
	int rc = NS_OK, s;

	if (sqlite3_prepare_v2(r->db,
			       "SELECT invocation, scenario FROM runs WHERE workload = "
			       "?2 AND status = 'ok' AND (?1 = 0 OR run_id = ?1) "
			       "GROUP BY invocation, scenario ORDER BY min(run_id)", -1, &inv,
			       NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(r->db,
			       "SELECT run_id FROM runs WHERE invocation = ?1 AND scenario = ?2 "
			       "AND workload = ?4 AND status = 'ok' AND "
			       "(?3 = 0 OR run_id = ?3) ORDER BY run_id", -1, &ids,
			       NULL) != SQLITE_OK) {
		rc = db_err(r);
		goto out;
	}
	sqlite3_bind_int64(inv, 1, only);
	sqlite3_bind_text(inv, 2, workload, -1, SQLITE_STATIC);
	while ((s = sqlite3_step(inv)) == SQLITE_ROW) {
		int n = 0, cap = 16;
		free(run);
		run = malloc((size_t)cap * sizeof *run);
		if (!run) {
			rc = diag_set(r->d, NS_ENOMEM, r->path, 0, 0, "out of memory");
			goto out;
		}
		sqlite3_reset(ids);
		sqlite3_bind_text(ids, 1, col_text(inv, 0), -1, SQLITE_TRANSIENT);
		sqlite3_bind_text(ids, 2, col_text(inv, 1), -1, SQLITE_TRANSIENT);
		sqlite3_bind_int64(ids, 3, only);
		sqlite3_bind_text(ids, 4, workload, -1, SQLITE_STATIC);
		int si;
		while ((si = sqlite3_step(ids)) == SQLITE_ROW) {
			if (n == cap) {
				int64_t *nr = realloc(run, (size_t)(cap *= 2) * sizeof *run);
				if (!nr) {
					rc = diag_set(r->d, NS_ENOMEM, r->path, 0, 0, "out of memory");
					goto out;
				}
				run = nr;
			}
			run[n++] = sqlite3_column_int64(ids, 0);
		}
		if (si != SQLITE_DONE) {
			rc = db_err(r);
			goto out;
		}
		fprintf(r->f, "\n%s: scenario %s, runs %" PRId64 "..%" PRId64
			" (invocation %s)\n\n", workload, col_text(inv, 1), run[0], run[n - 1],
			col_text(inv, 0));
		rc = messaging ? msgreport_print(r->db, run, n, r->f, r->d)
			       : table_pagealloc(r->db, run, n, TABLE_MIN | TABLE_AMEAN, r->f,
						 r->d);
		if (rc == NS_ENOENT) {
			fprintf(r->f, "%s\n", messaging ? "(no messaging results)"
							: "(no pagealloc samples)");
			rc = NS_OK;
			diag_init(r->d);
		}
		if (rc)
			goto out;
	}
	if (s != SQLITE_DONE)
		rc = db_err(r);
out:
	free(run);
	sqlite3_finalize(inv);
	sqlite3_finalize(ids);
	return rc;
}

int cmd_report(int argc, char **argv)
{
	const char *path = NULL;
	long long only = 0, top = REPORT_DEFAULT_TOP;
	struct store *st = NULL;
	struct diag d;
	char *buf = NULL;
	size_t len = 0;
	int rc, found = 0, status;

	diag_init(&d);
	for (int i = 1; i < argc; i++) {
		const char *o = argv[i];
		if (!strcmp(o, "-h") || !strcmp(o, "--help")) {
			print_help();
			return 0;
		}
		if (!strcmp(o, "--run") || !strcmp(o, "--top")) {
			if (i + 1 >= argc)
				return cli_usage_error("report", usage_line,
						       "option '%s' needs a value", o);
			if (!strcmp(o, "--run") ?
			    cli_parse_long("report", "--run", argv[++i], 1, INT64_MAX, &only) :
			    cli_parse_long("report", "--top", argv[++i], 0, 1000000, &top))
				return 2;
		} else if (o[0] == '-' && o[1] != '\0') {
			return cli_usage_error("report", usage_line, "unknown option '%s'", o);
		} else if (path) {
			return cli_usage_error("report", usage_line,
					       "more than one database ('%s', '%s')", path, o);
		} else {
			path = o;
		}
	}
	if (!path)
		return cli_usage_error("report", usage_line, "no database file");
	if ((rc = store_open(path, STORE_RDONLY, &st, &d)))
		goto fail;
	FILE *f = open_memstream(&buf, &len);
	if (!f) {
		rc = diag_set(&d, NS_ENOMEM, path, 0, 0, "out of memory");
		goto fail;
	}
	struct rep r = {.db = store_sqlite(st), .path = path, .f = f, .top = top, .d = &d};
	rc = print_runs(&r, only, &found);
	if (rc == NS_OK && only && !found)
		rc = diag_set(&d, NS_ENOENT, path, 0, 0, "no run %lld in this database",
			      only);
	if (rc == NS_OK && !found)
		fprintf(f, "%s: no runs\n", path);
	if (rc == NS_OK)
		rc = print_tables(&r, only, "pagealloc");
	if (rc == NS_OK)
		rc = print_tables(&r, only, "messaging");
	fclose(f);
	if (rc)
		goto fail;
	fwrite(buf, 1, len, stdout);
	status = 0;
	goto out;
fail:
	fflush(stdout);
	diag_print(&d, stderr);
	status = ns_status_exit(rc);
out:
	free(buf);
	store_close(st);
	return status;
}
