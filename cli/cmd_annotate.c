/*
 * annotate — `numasim annotate DB [--run N] FUNCTION`: like `perf
 * annotate`, the modelled function's branch sites in source order with
 * executed / taken / mispredicted and the cycles charged per site in one
 * run, and the kernel source of each (analysis/annotate.h).  --run may be
 * left out when the database holds one run.  The database is opened
 * read-only; an unknown run or function exits 2 (with the nearest
 * function name), and nothing is printed before the whole annotation is
 * composed.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/options.h"
#include "analysis/annotate.h"
#include "analysis/flame.h"
#include "analysis/store.h"
#include "base/diag.h"
#include "models/page_alloc.h"
#include "models/slub.h"
#include "cost/cost.h"

static const char usage_line[] = "numasim annotate DB [--run N] FUNCTION";

struct annotate_args {
	const char *path, *fn;
	long long run;
};

static int annotate_operand(void *args, const char *arg)
{
	struct annotate_args *a = args;
	if (!a->path)
		a->path = arg;
	else if (!a->fn)
		a->fn = arg;
	else
		return cli_usage_error("annotate", usage_line, "unexpected argument '%s'", arg);
	return 0;
}

static void print_help(const struct cli_spec *spec);

static const struct cli_option annotate_options[] = {
	{.name = "--run", .arg = "N", .kind = CLI_OPT_NUM,
	 .off = offsetof(struct annotate_args, run), .min = 1, .max = INT64_MAX,
	 .help = "the run (may be left out for a one-run database)"},
};

const struct cli_spec cmd_annotate_spec = {
	.cmd = "annotate", .usage = usage_line,
	.opts = annotate_options, .nr_opts = CLI_NR_OPTS(annotate_options),
	.flags = CLI_HELP_FIRST, .help_col = 14,
	.operand = annotate_operand, .help = print_help,
};

static void print_help(const struct cli_spec *spec)
{
	printf("usage: %s\n\n"
	       "Like perf annotate for a modelled kernel function: its branch sites in\n"
	       "source order (the model's site table, which follows the reference\n"
	       "pages' numbering along the code path) with, for run N, executed,\n"
	       "taken and mispredicted counts, the cycles the cost model charged for\n"
	       "them (the branch, taken and mispredict figures of the run's machine)\n"
	       "and per call; the function's calls and self/total cycles; and each\n"
	       "site's kernel source file and condition as written.  Sites the run\n"
	       "never executed show zeros.  The database is opened read-only.\n\n"
	       "options:\n", spec->usage);
	cli_print_options(stdout, spec, NULL);
	printf("\nexit status: 0 ok, 1 database error, 2 bad usage, missing or foreign\n"
	       "database, unknown run or function\n");
}

int cmd_annotate(int argc, char **argv)
{
	struct store *st = NULL;
	struct cost_tables t;
	struct diag d;
	char *buf = NULL;
	size_t len = 0;
	int rc, status, fb, sb;

	struct annotate_args a = {0};
	int prc = cli_parse(&cmd_annotate_spec, &a, argc, argv);
	if (prc)
		return prc == CLI_HELP_SHOWN ? 0 : prc;
	const char *path = a.path, *fn = a.fn;
	long long run = a.run;
	if (!path || !fn)
		return cli_usage_error("annotate", usage_line, path ? "no function name"
								     : "no database file");
	diag_init(&d);
	cost_tables_init(&t);
	if (mm_register(&t, &fb, &sb) || slub_register(&t, &fb, &sb) ||
	    mm_series_register(&t, &fb, &sb)) {
		rc = diag_set(&d, NS_ENOMEM, "numasim annotate", 0, 0,
			      "cannot build the site tables");
		goto fail;
	}
	if (cost_fn_lookup(&t, fn) < 0) {
		status = cli_unknown("numasim annotate", "function", fn, t.fn_names,
				     (size_t)t.nr_fns, "numasim report DB --runs");
		goto out;
	}
	if ((rc = store_open(path, STORE_RDONLY, &st, &d)))
		goto fail;
	int64_t id = run;
	if (!id && (rc = flame_only_run(store_sqlite(st), path, &id, &d)))
		goto fail;
	FILE *f = open_memstream(&buf, &len);
	if (!f) {
		rc = diag_set(&d, NS_ENOMEM, "numasim annotate", 0, 0, "out of memory");
		goto fail;
	}
	rc = annotate_write(store_sqlite(st), path, &t, id, fn, f, &d);
	fclose(f);
	if (rc)
		goto fail;
	fwrite(buf, 1, len, stdout);
	status = fflush(stdout) ? 1 : 0;
	goto out;
fail:
	diag_print(&d, stderr);
	status = ns_status_exit(rc);
out:
	free(buf);
	store_close(st);
	cost_tables_free(&t);
	return status;
}
