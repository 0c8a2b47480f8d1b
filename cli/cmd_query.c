/*
 * query — `numasim query DB SQL [--format table|csv|json] [-o FILE]`: one SQL
 * statement on a results database opened read-only (SQLITE_OPEN_READONLY
 * and PRAGMA query_only, analysis/store.h), printed by analysis/resultset.h.
 * A statement that would write is refused before it runs, so the file
 * stays byte-for-byte unchanged; the v_* views of docs/schema.md exist on
 * every connection.  Output is printed only when the whole result is
 * known.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "base/diag.h"
#include "analysis/resultset.h"
#include "analysis/store.h"

static const char usage_line[] = "numasim query DB SQL [--format table|csv|json] [-o FILE] "
				 "[--timeout SECONDS] [--csv-raw]";

static void print_help(void)
{
	printf("usage: %s\n\n"
	       "Runs one SQL statement on a results database and prints its rows.  The\n"
	       "database is opened read-only: statements that write (INSERT, DELETE,\n"
	       "UPDATE, CREATE, DROP, ...) are refused and the file is never changed.\n"
	       "Views for the common joins: v_runs, v_params, v_metrics, v_samples,\n"
	       "v_counters, v_profile, v_branches (docs/schema.md lists every table,\n"
	       "view, column and unit, with example queries).\n\n"
	       "options:\n"
	       "  --format F   table (default: aligned columns and a row count), csv\n"
	       "               (RFC 4180, with a header) or json (an array of objects)\n"
	       "  -o FILE      write FILE atomically (a temporary file renamed into\n"
	       "               place, only when the whole result is known) instead\n"
	       "               of standard output\n"
	       "  --csv-raw    csv: text cells as they are; by default a text cell\n"
	       "               starting with =, +, -, @, tab or CR gets a leading '\n"
	       "               (spreadsheet formula guard; numbers stay numbers)\n"
	       "  --timeout S  stop a statement still running after S seconds\n"
	       "               (default %g; 0: no limit): exit 1, naming the limit.\n"
	       "               SQLite may also hold at most %lld MiB of memory\n"
	       "  -h, --help   show this help\n\n"
	       "example:\n"
	       "  numasim query results.db \"SELECT variant, avg(value) FROM v_metrics\n"
	       "                           WHERE name = 'total_time_s' GROUP BY variant\"\n\n"
	       "Only reading is allowed: SELECT, SQLite's functions that compute a\n"
	       "value, and the pragmas that report one (PRAGMA journal_mode,\n"
	       "PRAGMA table_info(runs), ...); anything else is refused.\n\n"
	       "exit status: 0 ok, 1 database error, 2 bad usage, bad SQL, a refused\n"
	       "statement, missing, foreign or damaged database (docs/exit-status.md)\n",
	       usage_line, STORE_READ_TIMEOUT_S, (long long)(STORE_READ_HEAP_LIMIT >> 20));
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
	long long timeout = -1;
	int csv_raw = 0;

	diag_init(&d);
	for (int i = 1; i < argc; i++) {
		const char *o = argv[i];
		if (!strcmp(o, "-h") || !strcmp(o, "--help")) {
			print_help();
			return 0;
		}
		if (!strcmp(o, "-o") || !strcmp(o, "--output")) {
			if (i + 1 >= argc || !argv[i + 1][0])
				return cli_usage_error("query", usage_line,
						       "option '%s' needs a file name", o);
			out = argv[++i];
		} else if (!strcmp(o, "--csv-raw")) {
			csv_raw = 1;
		} else if (!strcmp(o, "--timeout")) {
			if (i + 1 >= argc)
				return cli_usage_error("query", usage_line,
						       "option '--timeout' needs a value");
			if (cli_parse_long("query", "--timeout", argv[++i], 0, 86400 * 365,
					   &timeout))
				return 2;
		} else if (!strcmp(o, "--format")) {
			if (i + 1 >= argc)
				return cli_usage_error("query", usage_line,
						       "option '--format' needs a value");
			if (resultset_parse_format(argv[++i], &fmt))
				return cli_usage_error("query", usage_line, "unknown format "
						       "'%s' (table, csv or json)", argv[i]);
		} else if (o[0] == '-' && o[1] != '\0' && (!path || sql)) {
		{
			static const char *const known[] = {"--format", "-o", "--output",
							    "--timeout", "--csv-raw", "--help", "-h"};
			return cli_unknown_option("query", o, known, CLI_NR(known));
		}
		} else if (!path) {
			path = o;
		} else if (!sql) {
			sql = o;
		} else {
			return cli_usage_error("query", usage_line, "unexpected argument '%s' "
					       "(quote the SQL as one argument)", o);
		}
	}
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
