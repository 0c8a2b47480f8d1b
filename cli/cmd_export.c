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
 * the database (docs/reference/schema.md); an unknown one exits 2.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/options.h"
#include "base/diag.h"
#include "analysis/flame.h"
#include "analysis/resultset.h"
#include "analysis/store.h"

static const char usage_line[] =
	"numasim export DB --format csv|json [--table NAME | --query SQL] [--csv-raw] [-o FILE]\n"
	"       numasim export DB --format folded [--run N | --diff A B] "
	"[--metric cycles|calls|mispredicts] [-o FILE]";

struct eopts {
	const char *path, *table, *query, *out, *format, *metric;
	long long run, diff[2];
	int csv_raw;
};

static int export_operand(void *args, const char *arg)
{
	struct eopts *e = args;
	if (e->path)
		return cli_usage_error("export", usage_line,
				       "more than one database ('%s', '%s')", e->path, arg);
	e->path = arg;
	return 0;
}

#define EXPORT_ARG(field) offsetof(struct eopts, field)

static void print_help(const struct cli_spec *spec);

static const struct cli_option export_options[] = {
	{.name = "--format", .arg = "F", .kind = CLI_OPT_TEXT, .off = EXPORT_ARG(format),
	 .help = "csv, json or folded (required)"},
	{.name = "--table", .arg = "NAME", .kind = CLI_OPT_TEXT, .off = EXPORT_ARG(table),
	 .help = "a table or view: runs, params, metrics, samples,\n"
		 "counters, profile, profile_paths, branches, v_runs,\n"
		 "v_metrics, ..."},
	{.name = "--query", .arg = "SQL", .kind = CLI_OPT_TEXT, .off = EXPORT_ARG(query),
	 .help = "one SELECT statement instead of a table"},
	{.name = "--csv-raw", .kind = CLI_OPT_FLAG, .off = EXPORT_ARG(csv_raw),
	 .help = "csv: text cells as they are; by default a text cell\n"
		 "starting with =, +, -, @, tab or CR gets a leading '\n"
		 "(spreadsheet formula guard; numbers stay numbers)"},
	{.name = "--run", .arg = "N", .kind = CLI_OPT_NUM, .off = EXPORT_ARG(run),
	 .min = 1, .max = INT64_MAX,
	 .help = "folded: the run (may be left out for a one-run database)"},
	{.name = "--diff", .arg = "A B", .kind = CLI_OPT_NUM_PAIR, .off = EXPORT_ARG(diff),
	 .min = 1, .max = INT64_MAX, .expected = "two run ids",
	 .help = "folded: both runs' values per stack"},
	{.name = "--metric", .arg = "M", .kind = CLI_OPT_TEXT, .off = EXPORT_ARG(metric),
	 .help = "folded: cycles (default), calls or mispredicts"},
	{.name = "--output", .alias = "-o", .arg = "FILE", .kind = CLI_OPT_TEXT,
	 .off = EXPORT_ARG(out), .help = "write FILE atomically instead of standard output"},
};

const struct cli_spec cmd_export_spec = {
	.cmd = "export", .usage = usage_line,
	.opts = export_options, .nr_opts = CLI_NR_OPTS(export_options),
	.flags = CLI_HELP_FIRST, .help_col = 16,
	.operand = export_operand, .help = print_help,
};

static void print_help(const struct cli_spec *spec)
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
	       "options:\n", spec->usage);
	cli_print_options(stdout, spec, NULL);
	printf("\nexit status: 0 ok, 1 database or write error, 2 bad usage, unknown\n"
	       "table, bad SQL, missing or foreign database\n");
}


static int parse(int argc, char **argv, struct eopts *e)
{
	int rc = cli_parse(&cmd_export_spec, e, argc, argv);
	if (rc)
		return rc;
	if (!e->path)
		return cli_usage_error("export", usage_line, "no database file");
	if (!e->format)
		return cli_usage_error("export", usage_line,
				       "--format csv|json|folded is required");
	int folded = !strcmp(e->format, "folded");
	if (folded && (e->table || e->query))
		return cli_usage_error("export", usage_line, "--format folded writes "
				       "call paths; --table and --query are for csv|json");
	if (!folded && (e->run || e->diff[0] || e->metric))
		return cli_usage_error("export", usage_line, "--run, --diff and --metric "
				       "are options of --format folded");
	if (e->run && e->diff[0])
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
	int64_t a = e->diff[0] ? e->diff[0] : e->run, b = e->diff[1];
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
	if ((status = parse(argc, argv, &e)))
		return status == CLI_HELP_SHOWN ? 0 : status;
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
				      "(docs/reference/schema.md lists them)", t);
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
