/*
 * diff — `numasim diff DB [DB...] [--run N]... [--by KEY] [--group VALUE]...
 * [--baseline VALUE] [--where KEY=VALUE]... [--metric GLOBS] [--limit N]
 * [--format text|json|csv]`: perf diff of two runs, of the variants of
 * one database, of two databases, or of every value of a key against a
 * baseline (analysis/diff.h).  The databases are opened read-only; the
 * output is printed only when complete; an unknown run, group or key, a
 * missing or foreign database or a row of the wrong type exits 2 with a
 * message (the nearest group name for a typo) and nothing on standard
 * output.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/options.h"
#include "analysis/diff.h"
#include "analysis/compare.h"
#include "analysis/store.h"
#include "base/diag.h"
#include "base/records.h"

static const char usage_line[] =
	"numasim diff DB [DB...] [--run N]... [--by KEY] [--group VALUE]... "
	"[--baseline VALUE]\n"
	"       [--where KEY=VALUE]... [--metric GLOBS] [--limit N] [--format text|json|csv]";

struct dargs {
	struct diff_opts o;
	const char *baseline;
	enum rec_format format;
	long long limit;
	const char **dbs;
	int nr_dbs;
	const char **where;
	const char **groups;
	int nr_groups;
	int64_t *runs;
	int nr_runs;
};

static int diff_operand(void *args, const char *arg)
{
	struct dargs *a = args;
	a->dbs[a->nr_dbs++] = arg;
	return 0;
}

static int set_where(void *dst, const struct cli_option *o, const char *typed,
		     const char *v)
{
	struct dargs *a = dst;
	(void)o;
	(void)typed;
	a->where[a->o.nr_where++] = v;
	return 0;
}

static int set_group(void *dst, const struct cli_option *o, const char *typed,
		     const char *v)
{
	struct dargs *a = dst;
	(void)o;
	(void)typed;
	a->groups[a->nr_groups++] = v;
	return 0;
}

static int set_run(void *dst, const struct cli_option *o, const char *typed,
		   const char *v)
{
	struct dargs *a = dst;
	long long id;
	(void)o;
	if (cli_parse_long("diff", typed, v, 1, INT64_MAX, &id))
		return 2;
	a->runs[a->nr_runs++] = id;
	return 0;
}

#define DIFF_ARG(field) offsetof(struct dargs, field)

static void print_help(const struct cli_spec *spec);

static const struct cli_option diff_options[] = {
	{.name = "--run", .arg = "N", .kind = CLI_OPT_CALL, .call = set_run,
	 .help = "a run to compare (repeatable): with one database\n"
		 "each --run is a group, with several the i-th run\n"
		 "is of the i-th database"},
	{.name = "--by", .arg = "KEY", .kind = CLI_OPT_TEXT, .off = DIFF_ARG(o.by),
	 .help = "group the runs by a runs column (variant\n"
		 "[default for one database], kernel_model, machine,\n"
		 "...) or a parameter (policy.mempolicy, ...);\n"
		 "several databases without --by: one group each"},
	{.name = "--group", .arg = "VALUE", .kind = CLI_OPT_CALL, .call = set_group,
	 .help = "compare only these groups, in this order, the\n"
		 "first the baseline (repeatable; a variant's short\n"
		 "name works too: 682a3385)"},
	{.name = "--baseline", .arg = "VALUE", .kind = CLI_OPT_TEXT, .off = DIFF_ARG(baseline),
	 .help = "the baseline group (default: the first in sweep\n"
		 "point order)"},
	{.name = "--where", .arg = "KEY=VALUE", .kind = CLI_OPT_CALL, .call = set_where,
	 .help = "only runs whose KEY (column or parameter) has\n"
		 "VALUE; repeatable, all must hold"},
	{.name = "--metric", .arg = "GLOBS", .kind = CLI_OPT_TEXT, .off = DIFF_ARG(o.metrics),
	 .help = "the metrics at the top (comma-separated globs,\n"
		 "!GLOB excludes; default: those numasim report\n"
		 "compares for the workload)"},
	{.name = "--limit", .arg = "N", .kind = CLI_OPT_NUM, .off = DIFF_ARG(limit),
	 .min = 0, .max = 1000000,
	 .help = "functions and branch sites printed (default 0:\n"
		 "all)"},
	{.name = "--format", .arg = "F", .kind = CLI_OPT_FORMAT, .off = DIFF_ARG(format),
	 .help = "text (default), json (one document: tables\n"
		 "groups, metrics, functions, branches;\n"
		 "docs/reference/output-formats.md) or csv (the same rows)"},
};

const struct cli_spec cmd_diff_spec = {
	.cmd = "diff", .usage = usage_line,
	.opts = diff_options, .nr_opts = CLI_NR_OPTS(diff_options),
	.flags = CLI_HELP_FIRST, .help_col = 22,
	.operand = diff_operand, .help = print_help,
};

static void print_help(const struct cli_spec *spec)
{
	printf("usage: %s\n\n"
	       "Like perf diff for simulated profiles: per modelled kernel function its\n"
	       "self cycles, total cycles and calls, per branch site its executions\n"
	       "and mispredictions, per operation of the workload (an allocation, a\n"
	       "message), for a baseline [0] and the delta and delta%% of every other\n"
	       "group [1], [2], ... against it, sorted by |delta|; above them the\n"
	       "workload's metrics (Min and Amean).  Groups: two runs (--run N --run\n"
	       "M), the variants of one database (the default; --by KEY for another\n"
	       "key, every value against the baseline as in mmtests' compare-kernels),\n"
	       "or one group per database.  The databases are opened read-only.\n\n"
	       "options:\n", spec->usage);
	cli_print_options(stdout, spec, NULL);
	printf("\nexit status: 0 ok, 1 database error, 2 bad usage, missing or foreign\n"
	       "database, unknown run, group or key, a row of the wrong type\n");
}

/*
 * "unknown variant 'X' (did you mean 'Y'?)": the nearest label (cli_nearest
 * compares the text before an '=' only, so a typed "KEY=VALUE" is matched
 * by its value against the labels' values, and the whole label offered).
 */
static int unknown_group(const struct diff *df, const char *by, const char *name)
{
	int n = diff_nr_groups(df);
	const char **known = calloc((size_t)(2 * n + 1), sizeof *known);
	const char **label_of = calloc((size_t)(2 * n + 1), sizeof *label_of);
	char what[300];
	int st = 2, k = 0;
	if (!known || !label_of) {
		fprintf(stderr, "numasim diff: error: out of memory\n");
		st = 1;
		goto out;
	}
	const char *typed_eq = strrchr(name, '=');
	for (int g = 0; g < n; g++) {
		const char *l = diff_group_label(df, g), *eq = strrchr(l, '=');
		if (!typed_eq && !strchr(l, '=')) {
			label_of[k] = l;
			known[k++] = l;
		}
		if (eq && !strchr(l, ',')) {
			label_of[k] = typed_eq ? l : eq + 1;
			known[k++] = eq + 1;
		}
	}
	if (!strcmp(by, "variant"))
		snprintf(what, sizeof what, "variant");
	else
		snprintf(what, sizeof what, "group (value of %s)", by);
	const char *near = cli_nearest(typed_eq ? typed_eq + 1 : name, known, (size_t)k);
	for (int i = 0; near && i < k; i++)
		if (known[i] == near) {
			near = label_of[i];
			break;
		}
	if (near)
		fprintf(stderr, "numasim diff: error: unknown %s '%s' (did you mean '%s'?)\n",
			what, name, near);
	else
		fprintf(stderr, "numasim diff: error: unknown %s '%s' (see 'numasim report DB "
			"--runs')\n", what, name);
out:
	free(known);
	free(label_of);
	return st;
}

/* The groups of a: runs, keys or databases. */
static int add_groups(struct dargs *a, struct store **st, struct diff *df, struct diag *d)
{
	int rc = NS_OK;
	if (a->nr_runs) {
		for (int i = 0; i < a->nr_runs && rc == NS_OK; i++) {
			int db = a->nr_dbs == 1 ? 0 : i;
			rc = store_read_status(st[db], diff_add_run(df, db, store_sqlite(st[db]),
								    a->dbs[db], a->runs[i],
								    a->nr_dbs > 1));
		}
		return rc;
	}
	for (int i = 0; i < a->nr_dbs && rc == NS_OK; i++) {
		sqlite3 *db = store_sqlite(st[i]);
		rc = a->nr_dbs > 1 && !a->o.by ? diff_add_all(df, i, db, a->dbs[i], a->dbs[i])
					       : diff_add_key(df, i, db, a->dbs[i]);
		rc = store_read_status(st[i], rc);
	}
	(void)d;
	return rc;
}

static int parse(int argc, char **argv, struct dargs *a)
{
	int rc = cli_parse(&cmd_diff_spec, a, argc, argv);
	if (rc)
		return rc;
	if (a->nr_dbs == 0)
		return cli_usage_error("diff", usage_line, "no database file");
	if (a->o.by && !a->o.by[0])
		return cli_usage_error("diff", usage_line, "--by needs a key");
	if (a->nr_runs && (a->o.by || a->nr_groups || a->o.nr_where))
		return cli_usage_error("diff", usage_line, "--run names the runs itself: it "
				       "takes no --by, --group or --where");
	if (a->nr_runs && a->nr_dbs > 1 && a->nr_runs != a->nr_dbs)
		return cli_usage_error("diff", usage_line, "with %d databases give %d --run "
				       "(the i-th run is of the i-th database), not %d",
				       a->nr_dbs, a->nr_dbs, a->nr_runs);
	a->o.where = a->where;
	a->o.limit = (int)a->limit;
	return 0;
}

int cmd_diff(int argc, char **argv)
{
	struct dargs a = {.o = {0}};
	struct diag d;
	struct diff *df = NULL;
	struct store **st = NULL;
	struct rec_doc *doc = NULL;
	char *buf = NULL;
	size_t len = 0;
	FILE *out = NULL;
	int rc = NS_OK, status;

	diag_init(&d);
	a.dbs = calloc((size_t)argc + 1, sizeof *a.dbs);
	a.where = calloc((size_t)argc + 1, sizeof *a.where);
	a.groups = calloc((size_t)argc + 1, sizeof *a.groups);
	a.runs = calloc((size_t)argc + 1, sizeof *a.runs);
	st = calloc((size_t)argc + 1, sizeof *st);
	if (!a.dbs || !a.where || !a.groups || !a.runs || !st) {
		rc = diag_set(&d, NS_ENOMEM, "numasim diff", 0, 0, "out of memory");
		goto fail;
	}
	if ((status = parse(argc, argv, &a))) {
		status = status == CLI_HELP_SHOWN ? 0 : status;
		goto out;
	}
	if ((rc = compare_where_valid(a.o.where, a.o.nr_where, "numasim diff", &d)))
		goto fail;
	if ((rc = diff_new(&a.o, "numasim diff", &d, &df)))
		goto fail;
	for (int i = 0; i < a.nr_dbs; i++)
		if ((rc = store_open(a.dbs[i], STORE_RDONLY, &st[i], &d)))
			goto fail;
	if ((rc = add_groups(&a, st, df, &d)))
		goto fail;
	const char *by = a.o.by ? a.o.by : "variant";
	for (int i = 0; i < a.nr_groups; i++)
		if (diff_group_find(df, a.groups[i]) < 0) {
			status = unknown_group(df, by, a.groups[i]);
			goto out;
		}
	if (a.baseline && diff_group_find(df, a.baseline) < 0) {
		status = unknown_group(df, by, a.baseline);
		goto out;
	}
	if (a.nr_groups && (rc = diff_select(df, (const char *const *)a.groups, a.nr_groups)))
		goto fail;
	if (a.baseline && (rc = diff_set_baseline(df, a.baseline)))
		goto fail;
	for (int i = 0; i < a.nr_dbs && rc == NS_OK; i++)
		rc = store_read_status(st[i], diff_load(df, i, store_sqlite(st[i]), a.dbs[i]));
	if (rc || (rc = diff_compute(df)))
		goto fail;
	if (!(out = open_memstream(&buf, &len))) {
		rc = diag_set(&d, NS_ENOMEM, "numasim diff", 0, 0, "out of memory");
		goto fail;
	}
	if (a.format == REC_TEXT) {
		rc = diff_print(df, out);
	} else if (!(doc = rec_doc_new("diff"))) {
		rc = diag_set(&d, NS_ENOMEM, "numasim diff", 0, 0, "out of memory");
	} else {
		rec_meta_str(doc, "by", a.nr_runs ? "run" : a.o.by ? a.o.by
			     : a.nr_dbs > 1 ? "database" : "variant");
		rec_meta_str(doc, "metrics", a.o.metrics);
		for (int i = 0; i < a.nr_dbs; i++) {
			rec_table(doc, "databases");
			rec_row(doc);
			rec_str(doc, "path", a.dbs[i]);
		}
		rc = diff_records(df, doc);
		if (rc == NS_OK && (rc = rec_write(doc, a.format, out)))
			diag_set(&d, rc, "numasim diff", 0, 0, "out of memory");
	}
	fclose(out);
	out = NULL;
	if (rc)
		goto fail;
	if ((rc = cli_write_file_atomic("-", buf, len)))
		goto fail_quiet;
	status = 0;
	goto out;
fail:
	diag_print(&d, stderr);
fail_quiet:
	status = ns_status_exit(rc);
out:
	rec_doc_free(doc);
	if (out)
		fclose(out);
	free(buf);
	diff_free(df);
	for (int i = 0; st && i < a.nr_dbs; i++)
		store_close(st[i]);
	free(st);
	free(a.dbs);
	free(a.where);
	free(a.groups);
	free(a.runs);
	return status;
}
