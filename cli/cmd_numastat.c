/*
 * numastat — `numasim numastat DB [--run N]`: one run's NUMA allocation
 * counters per node in numastat(8)'s layout (analysis/numastat.h).
 * --run may be left out when the database holds one run.  The database
 * is opened read-only; an unknown run, or a run that stored no numastat
 * counters, exits 2; nothing is printed before the table is
 * composed.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "cli/cli.h"
#include "cli/options.h"
#include "analysis/flame.h"
#include "analysis/numastat.h"
#include "analysis/store.h"
#include "base/diag.h"

static const char usage_line[] = "numasim numastat DB [--run N]";

struct numastat_args {
	const char *path;
	long long run;
};

static int numastat_operand(void *args, const char *arg)
{
	struct numastat_args *a = args;
	if (a->path)
		return cli_usage_error("numastat", usage_line, "unexpected argument '%s'", arg);
	a->path = arg;
	return 0;
}

static void print_help(const struct cli_spec *spec);

static const struct cli_option numastat_options[] = {
	{.name = "--run", .arg = "N", .kind = CLI_OPT_NUM,
	 .off = offsetof(struct numastat_args, run), .min = 1, .max = INT64_MAX,
	 .help = "the run (may be left out for a one-run database)"},
};

const struct cli_spec cmd_numastat_spec = {
	.cmd = "numastat", .usage = usage_line,
	.opts = numastat_options, .nr_opts = CLI_NR_OPTS(numastat_options),
	.flags = CLI_HELP_FIRST, .help_col = 14,
	.operand = numastat_operand, .help = print_help,
};

static void print_help(const struct cli_spec *spec)
{
	printf("usage: %s\n\n"
	       "Like numastat(8) without options: run N's NUMA allocation counters with\n"
	       "a column per node and the rows numa_hit, numa_miss, numa_foreign,\n"
	       "interleave_hit, local_node and other_node, as the kernel's\n"
	       "/sys/devices/system/node/nodeN/numastat counts them (the sum over the\n"
	       "node's zones), from the counters the run stored.  The database is\n"
	       "opened read-only.\n\n"
	       "options:\n", spec->usage);
	cli_print_options(stdout, spec, NULL);
	printf("\nexit status: 0 ok, 1 database error, 2 bad usage, missing or foreign\n"
	       "database, unknown run or a run without numastat counters\n");
}

int cmd_numastat(int argc, char **argv)
{
	struct store *st = NULL;
	struct numastat ns = {0};
	struct diag d;
	char *buf = NULL;
	size_t len = 0;
	int rc, status;

	struct numastat_args a = {0};
	int prc = cli_parse(&cmd_numastat_spec, &a, argc, argv);
	if (prc)
		return prc == CLI_HELP_SHOWN ? 0 : prc;
	if (!a.path)
		return cli_usage_error("numastat", usage_line, "no database file");
	diag_init(&d);
	if ((rc = store_open(a.path, STORE_RDONLY, &st, &d)))
		goto fail;
	int64_t id = a.run;
	if (!id && (rc = flame_only_run(store_sqlite(st), a.path, &id, &d)))
		goto fail;
	rc = numastat_read(store_sqlite(st), a.path, id, &ns, &d);
	if (rc == NS_ENOENT) {
		rc = diag_set(&d, NS_EINPUT, a.path, 0, 0, "run %lld stored no numastat "
			      "counters (numa_hit ... other_node, scope node or zone)",
			      (long long)id);
	}
	if (rc)
		goto fail;
	FILE *f = open_memstream(&buf, &len);
	if (!f) {
		rc = diag_set(&d, NS_ENOMEM, a.path, 0, 0, "out of memory");
		goto fail;
	}
	numastat_print(&ns, f);
	fclose(f);
	fwrite(buf, 1, len, stdout);
	status = fflush(stdout) ? 1 : 0;
	goto out;
fail:
	diag_print(&d, stderr);
	status = ns_status_exit(rc);
out:
	free(buf);
	numastat_free(&ns);
	store_close(st);
	return status;
}
