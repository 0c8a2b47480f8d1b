/*
 * query — `numasim query DB SQL [--format table|csv|json] [-o FILE]`: one SQL
 * statement on a results database opened read-only (SQLITE_OPEN_READONLY
 * and PRAGMA query_only, analysis/store.h), printed by analysis/resultset.h.
 * A statement that would write is refused before it runs, so the file
 * stays byte-for-byte unchanged; the v_* views of docs/reference/schema.md exist on
 * every connection.  Output is printed only when the whole result is
 * known.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/options.h"
#include "base/diag.h"
#include "analysis/resultset.h"
#include "analysis/store.h"

static const char usage_line[] = "numasim query DB SQL [--format table|csv|json] [-o FILE] "
				 "[--timeout SECONDS] [--csv-raw]";

struct query_args {
	const char *path, *sql, *out;
	enum resultset_format fmt;
	long long timeout;     /* seconds; -1: the store's default */
	int csv_raw;
};

/* the help text names the store's reader limits */
_Static_assert((long long)STORE_READ_HEAP_LIMIT >> 20 == 1024,
	       "query --help: the reader's heap limit is 1024 MiB");

static int set_output(void *dst, const struct cli_option *o, const char *typed,
		      const char *v)
{
	(void)o;
	if (!v || !v[0])
		return cli_usage_error("query", usage_line, "option '%s' needs a file name",
				       typed);
	*(const char **)dst = v;
	return 0;
}

static int set_format(void *dst, const struct cli_option *o, const char *typed,
		      const char *v)
{
	(void)o;
	(void)typed;
	if (resultset_parse_format(v, dst))
		return cli_usage_error("query", usage_line, "unknown format "
				       "'%s' (table, csv or json)", v);
	return 0;
}

/* After the database and before the SQL, "-..." is the SQL. */
static int query_takes_dash(const void *args, const char *arg)
{
	const struct query_args *a = args;
	(void)arg;
	return a->path && !a->sql;
}

static int query_operand(void *args, const char *arg)
{
	struct query_args *a = args;
	if (!a->path)
		a->path = arg;
	else if (!a->sql)
		a->sql = arg;
	else
		return cli_usage_error("query", usage_line, "unexpected argument '%s' "
				       "(quote the SQL as one argument)", arg);
	return 0;
}

static void print_help(const struct cli_spec *spec);

static const struct cli_option query_options[] = {
	{.name = "--format", .arg = "F", .kind = CLI_OPT_CALL,
	 .off = offsetof(struct query_args, fmt), .call = set_format,
	 .help = "table (default: aligned columns and a row count), csv\n"
		 "(RFC 4180, with a header) or json (an array of objects)"},
	{.name = "--output", .alias = "-o", .arg = "FILE", .kind = CLI_OPT_CALL,
	 .flags = CLI_OPT_OWN_MISSING, .off = offsetof(struct query_args, out),
	 .call = set_output,
	 .help = "write FILE atomically (a temporary file renamed into\n"
		 "place, only when the whole result is known) instead\n"
		 "of standard output"},
	{.name = "--csv-raw", .kind = CLI_OPT_FLAG, .off = offsetof(struct query_args, csv_raw),
	 .help = "csv: text cells as they are; by default a text cell\n"
		 "starting with =, +, -, @, tab or CR gets a leading '\n"
		 "(spreadsheet formula guard; numbers stay numbers)"},
	{.name = "--timeout", .arg = "S", .kind = CLI_OPT_NUM,
	 .off = offsetof(struct query_args, timeout), .min = 0, .max = 86400 * 365,
	 .help = "stop a statement still running after S seconds\n"
		 "(default %D; 0: no limit): exit 1, naming the limit.\n"
		 "SQLite may also hold at most 1024 MiB of memory"},
};

const struct cli_spec cmd_query_spec = {
	.cmd = "query", .usage = usage_line,
	.opts = query_options, .nr_opts = CLI_NR_OPTS(query_options), .help_col = 15,
	.needs_value = "option '%s' needs a value", .takes_dash = query_takes_dash,
	.operand = query_operand, .help = print_help,
};

static void print_help(const struct cli_spec *spec)
{
	printf("usage: %s\n\n"
	       "Runs one SQL statement on a results database and prints its rows.  The\n"
	       "database is opened read-only: statements that write (INSERT, DELETE,\n"
	       "UPDATE, CREATE, DROP, ...) are refused and the file is never changed.\n"
	       "Views for the common joins: v_runs, v_params, v_metrics, v_samples,\n"
	       "v_counters, v_profile, v_branches (docs/reference/schema.md lists every table,\n"
	       "view, column and unit, with example queries).\n\n"
	       "options:\n", spec->usage);
	const struct query_args defaults = {.timeout = (long long)STORE_READ_TIMEOUT_S};
	cli_print_options(stdout, spec, &defaults);
	printf("\nexample:\n"
	       "  numasim query results.db \"SELECT variant, avg(value) FROM v_metrics\n"
	       "                           WHERE name = 'total_time_s' GROUP BY variant\"\n\n"
	       "Only reading is allowed: SELECT, SQLite's functions that compute a\n"
	       "value, and the pragmas that report one (PRAGMA journal_mode,\n"
	       "PRAGMA table_info(runs), ...); anything else is refused.\n\n"
	       "exit status: 0 ok, 1 database error, 2 bad usage, bad SQL, a refused\n"
	       "statement, missing, foreign or damaged database (docs/reference/exit-status.md)\n");
}

int cmd_query(int argc, char **argv)
{
	const char *path = NULL, *sql = NULL, *out = "-";
	enum resultset_format fmt = RESULTSET_TABLE;
	struct store *st = NULL;
	struct diag d;
	char *buf = NULL;
	size_t len = 0;
	int rc, status;

	diag_init(&d);
	struct query_args a = {.out = "-", .fmt = RESULTSET_TABLE, .timeout = -1};
	int prc = cli_parse(&cmd_query_spec, &a, argc, argv);
	if (prc)
		return prc == CLI_HELP_SHOWN ? 0 : prc;
	path = a.path;
	sql = a.sql;
	out = a.out;
	fmt = a.fmt;
	long long timeout = a.timeout;
	int csv_raw = a.csv_raw;
	if (!path || !sql)
		return cli_usage_error("query", usage_line, path ? "no SQL statement"
							   : "no database file");
	if (fmt == RESULTSET_CSV && csv_raw)
		fmt = RESULTSET_CSV_RAW;
	if ((rc = store_open(path, STORE_RDONLY, &st, &d)))
		goto fail;
	store_user_sql(st);
	if (timeout >= 0)
		store_set_timeout(st, (double)timeout);
	FILE *f = open_memstream(&buf, &len);
	if (!f) {
		rc = diag_set(&d, NS_ENOMEM, "numasim query", 0, 0, "out of memory");
		goto fail;
	}
	rc = resultset_sql(store_sqlite(st), sql, fmt, f, NULL, "numasim query", &d);
	fclose(f);
	if (rc)
		goto fail;
	if ((rc = cli_write_file_atomic(out, buf, len)))
		goto fail_quiet;
	status = 0;
	goto out;
fail:
	/* SQLite says "not authorized"; say what was refused. */
	rc = store_user_sql_refused(st, &d, rc, "numasim query",
				    "queries only read; see numasim query --help");
	rc = store_read_status(st, rc);
	diag_print(&d, stderr);
fail_quiet:
	status = ns_status_exit(rc);
out:
	free(buf);
	store_close(st);
	return status;
}
