/*
 * export — `numasim export DB --format csv|json [--table NAME | --query
 * SQL] [-o FILE]` and `numasim export DB --format folded [--run N | --diff
 * A B] [--metric cycles|calls|mispredicts] [-o FILE]`.
 *
 * --format folded writes the call paths of one run's simulated profile
 * as Brendan Gregg's folded stacks (analysis/flame.h), or with --diff the
 * three-column form of his difffolded.pl ("stack A B"); --run may be
 * left out when the database holds one run.
 *
 * Otherwise: a table, a view or a query's result of a results
 * database (opened read-only) as RFC 4180 CSV or a JSON array of objects
 * (analysis/resultset.h), to standard output or atomically to FILE
 * (cli_write_file_atomic: a temporary file renamed into place, so a
 * failed export leaves no partial file).  NAME must be a table or view of
 * the database (docs/schema.md); an unknown one exits 2.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "base/diag.h"
#include "analysis/flame.h"
#include "analysis/resultset.h"
#include "analysis/store.h"

static const char usage_line[] =
	"numasim export DB --format csv|json [--table NAME | --query SQL] [--csv-raw] [-o FILE]\n"
	"       numasim export DB --format folded [--run N | --diff A B] "
	"[--metric cycles|calls|mispredicts] [-o FILE]";

static void print_help(void)
{
	printf("usage: %s\n\n"
	       "Writes a table or view (default: v_metrics) or the result of one\n"
	       "read-only SQL query of a results database as CSV (RFC 4180: header\n"
	       "record, CRLF, quoted fields) or JSON (an array of objects keyed by\n"
	       "column name).  The database is opened read-only.\n\n"
	       "--format folded writes the call paths of a run's simulated profile\n"
	       "as folded stacks (Brendan Gregg's format, read by flamegraph.pl,\n"
	       "speedscope and the Firefox Profiler): one line per path, functions\n"
	       "root first joined by ';', then the path's self cycles (or calls,\n"
	       "or mispredicts); the lines sum to the run's profile self cycles.\n"
	       "With --diff A B, difffolded.pl's form: 'stack A B'.\n\n"
	       "options:\n"
	       "  --format F    csv, json or folded (required)\n"
	       "  --table NAME  a table or view: runs, params, metrics, samples,\n"
	       "                counters, profile, profile_paths, branches, v_runs,\n"
	       "                v_metrics, ...\n"
	       "  --query SQL   one SELECT statement instead of a table\n"
	       "  --csv-raw     csv: text cells as they are; by default a text cell\n"
	       "                starting with =, +, -, @, tab or CR gets a leading '\n"
	       "                (spreadsheet formula guard; numbers stay numbers)\n"
	       "  --run N       folded: the run (may be left out for a one-run database)\n"
	       "  --diff A B    folded: both runs' values per stack\n"
	       "  --metric M    folded: cycles (default), calls or mispredicts\n"
	       "  -o FILE       write FILE atomically instead of standard output\n"
	       "  -h, --help    show this help\n\n"
	       "exit status: 0 ok, 1 database or write error, 2 bad usage, unknown\n"
	       "table, bad SQL, missing or foreign database\n", usage_line);
}

struct eopts {
	const char *path, *table, *query, *out, *format, *metric;
	long long run, diff_a, diff_b;
	int csv_raw;
};

static int parse(int argc, char **argv, struct eopts *e)
{
	for (int i = 1; i < argc; i++) {
		const char *o = argv[i];
		const char **slot = !strcmp(o, "--format") ? &e->format
				    : !strcmp(o, "--table") ? &e->table
				    : !strcmp(o, "--query") ? &e->query
				    : !strcmp(o, "-o") || !strcmp(o, "--output") ? &e->out : NULL;
		if (!strcmp(o, "--metric"))
			slot = &e->metric;
		if (slot) {
			if (i + 1 >= argc)
				return cli_usage_error("export", usage_line,
						       "option '%s' needs a value", o);
			*slot = argv[++i];
		} else if (!strcmp(o, "--csv-raw")) {
			e->csv_raw = 1;
		} else if (!strcmp(o, "--run")) {
			if (i + 1 >= argc)
				return cli_usage_error("export", usage_line,
						       "option '%s' needs a value", o);
			if (cli_parse_long("export", o, argv[++i], 1, INT64_MAX, &e->run))
				return 2;
		} else if (!strcmp(o, "--diff")) {
			if (i + 2 >= argc)
				return cli_usage_error("export", usage_line,
						       "option '--diff' needs two run ids");
			if (cli_parse_long("export", o, argv[i + 1], 1, INT64_MAX, &e->diff_a) ||
			    cli_parse_long("export", o, argv[i + 2], 1, INT64_MAX, &e->diff_b))
				return 2;
			i += 2;
		} else if (o[0] == '-' && o[1] != '\0') {
		{
			static const char *const known[] = {"--format", "--table", "--query",
							    "--run", "--diff", "--metric", "--csv-raw",
							    "-o", "--output", "--help", "-h"};
			return cli_unknown_option("export", o, known, CLI_NR(known));
		}
		} else if (e->path) {
			return cli_usage_error("export", usage_line,
					       "more than one database ('%s', '%s')", e->path, o);
		} else {
			e->path = o;
		}
	}
	if (!e->path)
		return cli_usage_error("export", usage_line, "no database file");
	if (!e->format)
		return cli_usage_error("export", usage_line,
				       "--format csv|json|folded is required");
	int folded = !strcmp(e->format, "folded");
	if (folded && (e->table || e->query))
		return cli_usage_error("export", usage_line, "--format folded writes "
				       "call paths; --table and --query are for csv|json");
	if (!folded && (e->run || e->diff_a || e->metric))
		return cli_usage_error("export", usage_line, "--run, --diff and --metric "
				       "are options of --format folded");
	if (e->run && e->diff_a)
		return cli_usage_error("export", usage_line,
				       "give either --run or --diff, not both");
	if (e->metric && flame_metric_parse(e->metric) < 0)
		return cli_unknown("numasim export", "metric", e->metric,
				   flame_metric_names, CLI_NR(flame_metric_names),
				   "numasim export --help");
	if (e->table && e->query)
		return cli_usage_error("export", usage_line,
				       "give either --table or --query, not both");
	return 0;
}

/* Whether name is a table or view of the database (main or temp). */
static int table_exists(sqlite3 *db, const char *name, int *exists)
{
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(db, "SELECT 1 FROM (SELECT name, type FROM sqlite_schema "
			       "UNION ALL SELECT name, type FROM sqlite_temp_schema) "
			       "WHERE type IN ('table', 'view') AND name = ?1 AND "
			       "name NOT LIKE 'sqlite_%'", -1, &st, NULL) != SQLITE_OK)
		return NS_EDB;
	sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
	int s = sqlite3_step(st);
	*exists = s == SQLITE_ROW;
	sqlite3_finalize(st);
	return s == SQLITE_ROW || s == SQLITE_DONE ? NS_OK : NS_EDB;
}

/* --format folded: the folded stacks of a run, or of two for --diff. */
static int export_folded(const struct eopts *e, struct store *st, struct diag *d,
			 char **buf, size_t *len)
{
	sqlite3 *db = store_sqlite(st);
	int64_t a = e->diff_a ? e->diff_a : e->run, b = e->diff_b;
	struct flame fl;
	int rc = NS_OK;
	flame_init(&fl);
	if (!a)
		rc = flame_only_run(db, e->path, &a, d);
	if (rc == NS_OK)
		rc = flame_load(&fl, db, e->path, a, b,
				e->metric ? (enum flame_metric)flame_metric_parse(e->metric)
					  : FLAME_CYCLES, d);
	FILE *f = rc == NS_OK ? open_memstream(buf, len) : NULL;
	if (rc == NS_OK && !f)
		rc = diag_set(d, NS_ENOMEM, "numasim export", 0, 0, "out of memory");
	if (f) {
		rc = flame_folded(&fl, f);
		fclose(f);
	}
	flame_free(&fl);
	return rc;
}

int cmd_export(int argc, char **argv)
{
	struct eopts e = {0};
	enum resultset_format fmt;
	struct store *st = NULL;
	struct diag d;
	char *buf = NULL, *sql = NULL;
	size_t len = 0;
	int rc, status, exists = 0;

	diag_init(&d);
	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			print_help();
			return 0;
		}
	if ((status = parse(argc, argv, &e)))
		return status;
	int folded = !strcmp(e.format, "folded");
	if (!folded && (resultset_parse_format(e.format, &fmt) || fmt == RESULTSET_TABLE))
		return cli_usage_error("export", usage_line,
				       "unknown format '%s' (csv, json or folded)", e.format);
	if (!folded && fmt == RESULTSET_CSV && e.csv_raw)
		fmt = RESULTSET_CSV_RAW;
	if ((rc = store_open(e.path, STORE_RDONLY, &st, &d)))
		goto fail;
	if (folded) {
		if ((rc = export_folded(&e, st, &d, &buf, &len)))
			goto fail;
		if ((rc = cli_write_file_atomic(e.out ? e.out : "-", buf, len)))
			goto fail_quiet;
		status = 0;
		goto out;
	}
	sqlite3 *db = store_sqlite(st);
	if (!e.query) {
		const char *t = e.table ? e.table : "v_metrics";
		if (table_exists(db, t, &exists)) {
			rc = diag_set(&d, NS_EDB, e.path, 0, 0, "%s", sqlite3_errmsg(db));
			goto fail;
		}
		if (!exists) {
			rc = diag_set(&d, NS_EINPUT, e.path, 0, 0, "no table or view '%s' "
				      "(docs/schema.md lists them)", t);
			goto fail;
		}
		sql = sqlite3_mprintf("SELECT * FROM \"%w\"", t);
		if (!sql) {
			rc = diag_set(&d, NS_ENOMEM, "numasim export", 0, 0, "out of memory");
			goto fail;
		}
	}
	FILE *f = open_memstream(&buf, &len);
	if (!f) {
		rc = diag_set(&d, NS_ENOMEM, "numasim export", 0, 0, "out of memory");
		goto fail;
	}
	store_user_sql(st);
	rc = resultset_sql(db, e.query ? e.query : sql, fmt, f, NULL, "numasim export", &d);
	fclose(f);
	if (rc)
		goto fail;
	if ((rc = cli_write_file_atomic(e.out ? e.out : "-", buf, len)))
		goto fail_quiet;
	status = 0;
	goto out;
fail:
	rc = store_user_sql_refused(st, &d, rc, "numasim export", "--query only reads");
	rc = store_read_status(st, rc);
	diag_print(&d, stderr);
fail_quiet:
	status = ns_status_exit(rc);
out:
	sqlite3_free(sql);
	free(buf);
	store_close(st);
	return status;
}
