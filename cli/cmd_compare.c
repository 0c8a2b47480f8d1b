/*
 * compare — `numasim compare DB [DB...] [--by KEY[,WITHIN]] [--baseline VALUE]
 * [--metric GLOBS] [--where KEY=VALUE]... [--alpha A]`: the mmtests-style
 * table of analysis/compare.h over the runs of one or more results
 * databases, opened read-only.  Output is printed only when complete;
 * bad paths, files that are not numasim databases, unknown keys, metrics
 * or baselines exit 2 with a message and nothing on standard output.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/options.h"
#include "analysis/compare.h"
#include "analysis/markup.h"
#include "base/diag.h"
#include "analysis/store.h"
#include "base/records.h"

static const char usage_line[] =
	"numasim compare DB [DB...] [--by KEY[,WITHIN]] [--baseline VALUE] [--metric GLOBS] "
	"[--where KEY=VALUE]... [--alpha A] [--style mmtests|seed]\n"
	"       [--pool] [--format text|json|csv]";

struct copts {
	struct compare_opts o;
	enum rec_format format;
	struct rec_doc *doc;    /* json/csv: the document being built */
	const char **dbs;
	int nr_dbs;
	const char **where;
	int one_group;          /* the table (without WITHIN) has one column */
};

/*
 * Colour (improvements green, regressions red) only for a text table on a
 * terminal, and not when NO_COLOR is set to anything non-empty
 * (no-color.org) or TERM is dumb.
 */
static int want_colour(void)
{
	const char *nc = getenv("NO_COLOR"), *term = getenv("TERM");
	return isatty(STDOUT_FILENO) && !(nc && nc[0]) && !(term && !strcmp(term, "dumb"));
}

/*
 * The table with its spans coloured.  Standard output on a terminal
 * shows control bytes instead of acting on them (cli/term.h), so the
 * colours go to the terminal's descriptor directly, and the text through
 * the same escaping (markup_terminal_write).
 */
static int write_coloured(const char *buf, size_t len, const struct compare_spans *sp)
{
	int fd = fflush(stdout) == 0 ? dup(STDOUT_FILENO) : -1;
	FILE *t = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (!t) {
		if (fd >= 0)
			close(fd);
		return cli_write_file_atomic("-", buf, len);
	}
	size_t at = 0;
	for (size_t i = 0; i < sp->nr; i++) {
		size_t off = (size_t)sp->v[i].off, n = (size_t)sp->v[i].len;
		if (off < at || off + n > len)
			continue;
		markup_terminal_write(t, buf + at, off - at);
		fputs(sp->v[i].sign > 0 ? "\033[32m" : "\033[31m", t);
		markup_terminal_write(t, buf + off, n);
		fputs("\033[0m", t);
		at = off + n;
	}
	markup_terminal_write(t, buf + at, len - at);
	int bad = ferror(t);
	if (fclose(t) != 0 || bad) {
		fprintf(stderr, "numasim: error: writing standard output: %s\n", strerror(errno));
		return NS_EIO;
	}
	return NS_OK;
}

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

static int set_where(void *dst, const struct cli_option *o, const char *typed,
		     const char *v)
{
	struct copts *c = dst;
	(void)o;
	(void)typed;
	c->where[c->o.nr_where++] = v;
	return 0;
}

static int set_alpha(void *dst, const struct cli_option *o, const char *typed,
		     const char *v)
{
	(void)o;
	(void)typed;
	return parse_alpha(v, dst);
}

static int set_style(void *dst, const struct cli_option *o, const char *typed,
		     const char *v)
{
	(void)o;
	(void)typed;
	if (strcmp(v, "mmtests") && strcmp(v, "seed"))
		return cli_usage_error("compare", usage_line, "unknown style '%s' "
				       "(mmtests or seed)", v);
	*(int *)dst = !strcmp(v, "seed");
	return 0;
}

static int compare_operand(void *args, const char *arg)
{
	struct copts *c = args;
	c->dbs[c->nr_dbs++] = arg;
	return 0;
}

#define COMPARE_ARG(field) offsetof(struct copts, field)

static void print_help(const struct cli_spec *spec);

static const struct cli_option compare_options[] = {
	{.name = "--by", .arg = "KEY", .kind = CLI_OPT_TEXT, .off = COMPARE_ARG(o.by),
	 .help = "group by a runs column (variant [default],\n"
		 "kernel_model, machine, workload, scenario, point,\n"
		 "seed, ...) or a parameter (policy.mempolicy,\n"
		 "workload.inner_iterations, ...)"},
	{.name = "--by", .arg = "KEY,WITHIN", .kind = CLI_OPT_DOC,
	 .help = "KEY against KEY within each value of WITHIN: one\n"
		 "table per value (e.g. --by variant,policy.cpuset)"},
	{.name = "--baseline", .arg = "VALUE", .kind = CLI_OPT_TEXT,
	 .off = COMPARE_ARG(o.baseline),
	 .help = "the baseline group, printed first (default: the\n"
		 "first in sweep point order); a variant's short\n"
		 "name works too"},
	{.name = "--metric", .arg = "GLOBS", .kind = CLI_OPT_TEXT, .off = COMPARE_ARG(o.metrics),
	 .help = "comma-separated globs of metric names; !GLOB\n"
		 "excludes (e.g. 'alloc-odr0-*,!*.min')"},
	{.name = "--where", .arg = "KEY=VALUE", .kind = CLI_OPT_CALL, .call = set_where,
	 .help = "only runs whose KEY (column or parameter) has\n"
		 "VALUE; repeatable, all must hold"},
	{.name = "--alpha", .arg = "A", .kind = CLI_OPT_CALL, .off = COMPARE_ARG(o.alpha),
	 .call = set_alpha, .help = "significance level (default 0.05)"},
	{.name = "--style", .arg = "S", .kind = CLI_OPT_CALL, .off = COMPARE_ARG(o.seed_style),
	 .call = set_style,
	 .help = "mmtests (default) or seed: the second seed's\n"
		 "max./min./avg./stdev. rows per group and one\n"
		 "Welch line per group (perf bench style)"},
	{.name = "--pool", .kind = CLI_OPT_FLAG, .off = COMPARE_ARG(o.pool),
	 .help = "pool the same runs of one plan stored by several\n"
		 "invocations (a plan run twice without --resume);\n"
		 "refused otherwise: each would count twice"},
	{.name = "--format", .arg = "F", .kind = CLI_OPT_FORMAT, .off = COMPARE_ARG(format),
	 .help = "text (default), json (one document: tables\n"
		 "groups, stats, welch; docs/reference/output-formats.md)\n"
		 "or csv (the same rows, one table column)"},
};

const struct cli_spec cmd_compare_spec = {
	.cmd = "compare", .usage = usage_line,
	.opts = compare_options, .nr_opts = CLI_NR_OPTS(compare_options),
	.flags = CLI_HELP_FIRST, .help_col = 20,
	.operand = compare_operand, .help = print_help,
};

static void print_help(const struct cli_spec *spec)
{
	printf("usage: %s\n\n"
	       "Compares groups of runs like mmtests' compare-kernels: for every metric\n"
	       "the rows Min, Amean, Hmean, Stddev, CoeffVar, Max and BAmean-50/95/99\n"
	       "(the mean of the best 50/95/99%% of the samples), one column per group, each\n"
	       "with the change against the baseline column in percent (positive =\n"
	       "better for time-like units: cycles, cycles/op, ns, s; otherwise\n"
	       "positive = higher), then the difference of every column against the\n"
	       "baseline over runs (one value per run; a series such as pagealloc's\n"
	       "alloc-odr0-1 gives the mean of its samples): 'exact' when every run of\n"
	       "both groups gave the same value (deterministic: no p-value), '1 run'\n"
	       "when a group has one run, otherwise Welch's t-test (* below alpha) with\n"
	       "the confidence interval.  For a 2x2 what-if (two parameters of two\n"
	       "values each) the interaction, the difference of differences, follows.\n"
	       "Without --by the columns are the variant and every parameter that\n"
	       "differs between its runs (--set values).  Several databases pool their\n"
	       "runs by group; with --by, a group that pools runs differing in another\n"
	       "parameter, invocation, machine, workload or scenario gets a warning on\n"
	       "standard error (docs/design/statistics.md).\n\n"
	       "options:\n", spec->usage);
	cli_print_options(stdout, spec, NULL);
	printf("\nexit status: 0 ok, 1 database error, 2 bad usage, missing or foreign\n"
	       "database, unknown key, metric or baseline, no runs\n");
}

/* 0 parsed, else the status (CLI_HELP_SHOWN: --help printed). */
static int parse(int argc, char **argv, struct copts *c)
{
	int rc = cli_parse(&cmd_compare_spec, c, argc, argv);
	if (rc)
		return rc;
	if (c->nr_dbs == 0)
		return cli_usage_error("compare", usage_line, "no database file");
	if (c->o.by && !c->o.by[0])
		return cli_usage_error("compare", usage_line, "--by needs a key");
	c->o.where = c->where;
	return 0;
}

/* One table: the runs of every database, with the filters of o; as
 * text to out, or as records of c->doc labelled within = wval. */
static int compare_once(struct copts *c, const struct compare_opts *o, FILE *out,
			const char *wval, int *empty, struct diag *d)
{
	struct compare *cmp = NULL;
	int rc = compare_new(o, "numasim compare", d, &cmp);
	for (int i = 0; i < c->nr_dbs && rc == NS_OK; i++) {
		struct store *st = NULL;
		rc = store_open(c->dbs[i], STORE_RDONLY, &st, d);
		if (rc == NS_OK)
			rc = store_read_status(st, compare_load(cmp, store_sqlite(st), c->dbs[i]));
		store_close(st);
	}
	*empty = rc == NS_OK && compare_nr_groups(cmp) == 0;
	if (rc == NS_OK && !wval)
		c->one_group = compare_nr_groups(cmp) == 1;
	if (rc == NS_OK && !*empty)
		rc = c->doc ? compare_records(cmp, c->doc, wval ? "within" : NULL, wval)
			    : compare_print(cmp, out);
	compare_free(cmp);
	return rc;
}

/* The values of the WITHIN key over every database. */
static int within_values(const struct copts *c, const char *key, char ***vals, int *n,
			 struct diag *d)
{
	int rc = NS_OK;
	for (int i = 0; i < c->nr_dbs && rc == NS_OK; i++) {
		struct store *st = NULL;
		rc = store_open(c->dbs[i], STORE_RDONLY, &st, d);
		if (rc == NS_OK)
			rc = compare_key_check(store_sqlite(st), c->dbs[i], key, d);
		if (rc == NS_OK)
			rc = compare_key_values(store_sqlite(st), c->dbs[i], key, vals, n, d);
		rc = store_read_status(st, rc);
		store_close(st);
	}
	return rc;
}

/*
 * --by KEY,WITHIN: "KEY vs KEY within each WITHIN": one table per value
 * of WITHIN (a --where WITHIN=VALUE added to the filters), headed
 * "## WITHIN = VALUE"; values with no matching run are left out.
 */
static int compare_within(struct copts *c, const char *within, FILE *out, struct diag *d)
{
	char **vals = NULL, *w = NULL;
	int n = 0, printed = 0, empty = 0;
	int rc = within_values(c, within, &vals, &n, d);
	for (int i = 0; i < n && rc == NS_OK; i++) {
		struct compare_opts o = c->o;
		w = malloc(strlen(within) + strlen(vals[i]) + 2);
		if (!w) {
			rc = diag_set(d, NS_ENOMEM, "numasim compare", 0, 0, "out of memory");
			break;
		}
		sprintf(w, "%s=%s", within, vals[i]);
		c->where[o.nr_where++] = w;
		o.where = c->where;
		char *b = NULL;
		size_t len = 0;
		FILE *g = open_memstream(&b, &len);
		if (!g)
			rc = diag_set(d, NS_ENOMEM, "numasim compare", 0, 0, "out of memory");
		else
			rc = compare_once(c, &o, g, vals[i], &empty, d);
		if (g)
			fclose(g);
		if (rc == NS_OK && !empty && !c->doc) {
			fprintf(out, "%s## %s = %s\n", printed ? "\n" : "", within, vals[i]);
			fwrite(b, 1, len, out);
		}
		printed += rc == NS_OK && !empty;
		free(b);
		free(w);
		w = NULL;
	}
	if (rc == NS_OK && !printed)
		rc = diag_set(d, NS_EINPUT, "numasim compare", 0, 0, "no runs with status "
			      "'ok'%s to compare", c->o.nr_where ? " match the --where filters" : "");
	for (int i = 0; i < n; i++)
		free(vals[i]);
	free(vals);
	return rc;
}

int cmd_compare(int argc, char **argv)
{
	struct copts c = {.o = {0}};
	struct diag d;
	char *by = NULL, *buf = NULL;
	size_t len = 0;
	FILE *out = NULL;
	int rc = NS_OK, status, empty = 0;

	diag_init(&d);
	c.dbs = calloc((size_t)argc, sizeof *c.dbs);
	c.where = calloc((size_t)argc + 1, sizeof *c.where);
	if (!c.dbs || !c.where) {
		rc = diag_set(&d, NS_ENOMEM, "numasim compare", 0, 0, "out of memory");
		goto fail;
	}
	if ((status = parse(argc, argv, &c))) {
		status = status == CLI_HELP_SHOWN ? 0 : status;
		goto out;
	}
	c.o.warn = stderr;
	const char *within = NULL;
	if (c.o.by && strchr(c.o.by, ',')) {
		if (!(by = strdup(c.o.by))) {
			rc = diag_set(&d, NS_ENOMEM, "numasim compare", 0, 0, "out of memory");
			goto fail;
		}
		char *comma = strchr(by, ',');
		*comma = '\0';
		within = comma + 1;
		if (!by[0] || !within[0] || strchr(within, ',')) {
			status = cli_usage_error("compare", usage_line, "--by takes KEY or "
						 "KEY,WITHIN, not '%s'", c.o.by);
			goto out;
		}
		c.o.by = by;
	}
	if (!(out = open_memstream(&buf, &len))) {
		rc = diag_set(&d, NS_ENOMEM, "numasim compare", 0, 0, "out of memory");
		goto fail;
	}
	if (c.format != REC_TEXT && !(c.doc = rec_doc_new("compare"))) {
		rc = diag_set(&d, NS_ENOMEM, "numasim compare", 0, 0, "out of memory");
		goto fail;
	}
	if (c.doc) {
		rec_meta_str(c.doc, "by", c.o.by ? c.o.by : "variant");
		rec_meta_str(c.doc, "within", within);
		rec_meta_num(c.doc, "alpha", c.o.alpha > 0 ? c.o.alpha : 0.05);
		rec_meta_str(c.doc, "metrics", c.o.metrics);
		for (int i = 0; i < c.nr_dbs; i++) {
			rec_table(c.doc, "databases");
			rec_row(c.doc);
			rec_str(c.doc, "path", c.dbs[i]);
		}
	}
	struct compare_spans spans = {0};
	if (!c.doc && !within && want_colour())
		c.o.spans = &spans;
	rc = within ? compare_within(&c, within, out, &d)
		    : compare_once(&c, &c.o, out, NULL, &empty, &d);
	if (rc == NS_OK && empty)
		rc = diag_set(&d, NS_EINPUT, "numasim compare", 0, 0, "no runs with status "
			      "'ok'%s to compare", c.o.nr_where ? " match the --where filters" : "");
	if (rc == NS_OK && c.doc && (rc = rec_write(c.doc, c.format, out)))
		diag_set(&d, rc, "numasim compare", 0, 0, "out of memory");
	fclose(out);
	out = NULL;
	if (rc)
		goto fail;
	rc = c.o.spans ? write_coloured(buf, len, &spans) : cli_write_file_atomic("-", buf, len);
	free(spans.v);
	if (rc)
		goto fail_quiet;
	if (c.one_group)
		fprintf(stderr, "numasim compare: note: the runs form one group (by %s): "
			"nothing to compare, the table shows its values alone; compare "
			"needs runs that differ (a sweep, a second database, --by KEY)\n",
			c.o.by ? c.o.by : "variant");
	status = 0;
	goto out;
fail:
	diag_print(&d, stderr);
fail_quiet:
	status = ns_status_exit(rc);
out:
	rec_doc_free(c.doc);
	if (out)
		fclose(out);
	free(buf);
	free(by);
	free(c.dbs);
	free(c.where);
	return status;
}
