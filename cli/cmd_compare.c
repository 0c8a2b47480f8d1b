/*
 * compare — `numasim compare DB [DB...] [--by KEY] [--baseline VALUE]
 * [--metric GLOBS] [--where KEY=VALUE]... [--alpha A]`: the mmtests-style
 * table of analysis/compare.h over the runs of one or more results
 * databases, opened read-only.  Output is printed only when complete;
 * bad paths, files that are not numasim databases, unknown keys, metrics
 * or baselines exit 2 with a message and nothing on standard output.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "analysis/compare.h"
#include "base/diag.h"
#include "analysis/store.h"

static const char usage_line[] =
	"numasim compare DB [DB...] [--by KEY] [--baseline VALUE] [--metric GLOBS] "
	"[--where KEY=VALUE]... [--alpha A] [--style mmtests|seed]";

static void print_help(void)
{
	printf("usage: %s\n\n"
	       "Compares groups of runs like mmtests' compare-kernels: for every metric\n"
	       "the rows Min, Amean, Stddev, CoeffVar and Max, one column per group, each\n"
	       "with the change against the baseline column in percent (positive =\n"
	       "better for time-like units: cycles, cycles/op, ns, s; otherwise\n"
	       "positive = higher), then Welch's t-test of every column against the\n"
	       "baseline: the two-sided p-value (* below alpha) and the confidence\n"
	       "interval of the difference of the means.  A metric with per-sample rows\n"
	       "(pagealloc's alloc-odr0-1, ...) is compared over its samples, any other\n"
	       "over one value per run.  Several databases pool their runs by group.\n\n"
	       "options:\n"
	       "  --by KEY          group by a runs column (variant [default],\n"
	       "                    kernel_model, machine, workload, scenario, point,\n"
	       "                    seed, ...) or a parameter (policy.mempolicy,\n"
	       "                    workload.inner_iterations, ...)\n"
	       "  --baseline VALUE  the baseline group (default: the first, in sweep\n"
	       "                    point order); a variant's short name works too\n"
	       "  --metric GLOBS    comma-separated globs of metric names; !GLOB\n"
	       "                    excludes (e.g. 'alloc-odr0-*,!*.min')\n"
	       "  --where KEY=VALUE only runs whose KEY (column or parameter) has\n"
	       "                    VALUE; repeatable, all must hold\n"
	       "  --alpha A         significance level (default 0.05)\n"
	       "  --style S         mmtests (default) or seed: the second seed's\n"
	       "                    max./min./avg./stdev. rows per group and one\n"
	       "                    Welch line per group (perf bench style)\n"
	       "  -h, --help        show this help\n\n"
	       "exit status: 0 ok, 1 database error, 2 bad usage, missing or foreign\n"
	       "database, unknown key, metric or baseline, no runs\n", usage_line);
}

struct copts {
	struct compare_opts o;
	const char **dbs;
	int nr_dbs;
	const char **where;
};

static int parse_alpha(const char *s, double *out)
{
	char *end;
	double v = strtod(s, &end);
	if (end == s || *end || !(v > 0 && v < 1))
		return cli_usage_error("compare", usage_line,
				       "--alpha takes a number between 0 and 1, not '%s'", s);
	*out = v;
	return 0;
}

static int parse(int argc, char **argv, struct copts *c)
{
	for (int i = 1; i < argc; i++) {
		const char *o = argv[i];
		const char **slot = !strcmp(o, "--by") ? &c->o.by
				    : !strcmp(o, "--baseline") ? &c->o.baseline
				    : !strcmp(o, "--metric") ? &c->o.metrics : NULL;
		int is_where = !strcmp(o, "--where"), is_alpha = !strcmp(o, "--alpha");
		int is_style = !strcmp(o, "--style");
		if (slot || is_where || is_alpha || is_style) {
			if (i + 1 >= argc)
				return cli_usage_error("compare", usage_line,
						       "option '%s' needs a value", o);
			if (slot)
				*slot = argv[++i];
			else if (is_where)
				c->where[c->o.nr_where++] = argv[++i];
			else if (is_style && strcmp(argv[++i], "mmtests") && strcmp(argv[i], "seed"))
				return cli_usage_error("compare", usage_line, "unknown style '%s' "
						       "(mmtests or seed)", argv[i]);
			else if (is_style)
				c->o.seed_style = !strcmp(argv[i], "seed");
			else if (parse_alpha(argv[++i], &c->o.alpha))
				return 2;
		} else if (o[0] == '-' && o[1] != '\0') {
		{
			static const char *const known[] = {"--by", "--baseline", "--metric",
							    "--where", "--alpha", "--style",
							    "--help", "-h"};
			return cli_unknown_option("compare", o, known, CLI_NR(known));
		}
		} else {
			c->dbs[c->nr_dbs++] = o;
		}
	}
	if (c->nr_dbs == 0)
		return cli_usage_error("compare", usage_line, "no database file");
	if (c->o.by && !c->o.by[0])
		return cli_usage_error("compare", usage_line, "--by needs a key");
	c->o.where = c->where;
	return 0;
}

int cmd_compare(int argc, char **argv)
{
	struct copts c = {.o = {0}};
	struct compare *cmp = NULL;
	struct diag d;
	int rc = NS_OK, status;

	diag_init(&d);
	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			print_help();
			return 0;
		}
	c.dbs = calloc((size_t)argc, sizeof *c.dbs);
	c.where = calloc((size_t)argc, sizeof *c.where);
	if (!c.dbs || !c.where) {
		rc = diag_set(&d, NS_ENOMEM, "numasim compare", 0, 0, "out of memory");
		goto fail;
	}
	if ((status = parse(argc, argv, &c)))
		goto out;
	if ((rc = compare_new(&c.o, "numasim compare", &d, &cmp)))
		goto fail;
	for (int i = 0; i < c.nr_dbs && rc == NS_OK; i++) {
		struct store *st = NULL;
		rc = store_open(c.dbs[i], STORE_RDONLY, &st, &d);
		if (rc == NS_OK)
			rc = compare_load(cmp, store_sqlite(st), c.dbs[i]);
		store_close(st);
	}
	if (rc == NS_OK)
		rc = compare_print(cmp, stdout);
	if (rc)
		goto fail;
	status = 0;
	goto out;
fail:
	diag_print(&d, stderr);
	status = ns_status_exit(rc);
out:
	compare_free(cmp);
	free(c.dbs);
	free(c.where);
	return status;
}
