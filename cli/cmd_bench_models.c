/*
 * cmd_bench_models — the command line of the model benchmarks of `numasim
 * bench` (pagealloc, slub, messaging): their options, --help texts and
 * usage lines.  The benchmarks themselves are the drivers in
 * workloads/bench_pagealloc.h and workloads/bench_slub_messaging.h; each
 * function here parses argv into the driver's options, runs it with the
 * report on stdout and prints its failure.
 *
 * Error policy (cli.h): a bad option is a usage error (exit 2, nothing on
 * stdout); an option the machine cannot honour comes back from the driver
 * as NS_EUSAGE and is printed as a usage error too; every other failure is
 * the driver's diagnostic, printed with diag_print, exit status from
 * ns_status_exit.
 *
 * Design notes.  Each benchmark's options are one table of the command
 * line's option mechanism (cli/options.h): a number in a range, a file
 * name, or a choice parsed by a setter, stored by offset into the
 * benchmark's args (its driver's options and --format); the accounting
 * rows are one macro shared by the three.  `bench pagealloc` also accepts
 * --name=value (CLI_ALL_EQ); slub and messaging take the value from the
 * next argument only, as they always did.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/options.h"
#include "cli/file_kind.h"
#include "base/diag.h"
#include "base/progress.h"
#include "base/records.h"
#include "cost/cpu.h"
#include "machine/machine.h"
#include "workloads/bench_pagealloc.h"
#include "workloads/bench_slub_messaging.h"

#define PAGEALLOC_USAGE                                                        \
	"numasim bench pagealloc [--machine FILE] [--pairs N] [--variant pre|post] " \
	"[--batch N] [--cpu C] [--order O] [--repeat R] [--profile N] [--bpred bimodal|gshare|tage] " \
	"[--cost-model inorder|ooo] [--cost-code estimate|compiled] " \
	"[--accounting exact|memo|sampled] [--sample-period N] [--sample-warm caches|stores|none] " \
	"[--sample-window N] " \
	"[--format text|json|csv]"
#define SLUB_USAGE                                                             \
	"numasim bench slub [--machine FILE] [--pairs N] [--batch N] "          \
	"[--free remote|local] [--variant pre|post] [--repeat R] "              \
	"[--accounting exact|memo|sampled] [--sample-period N] "                \
	"[--sample-warm caches|stores|none] [--sample-window N] [--format text|json|csv]"
#define MSG_USAGE                                                              \
	"numasim bench messaging [--machine FILE] [--groups G] [--loops L] "    \
	"[--variant pre|post] [--placement none|v5.9] [--seed S] [--repeat R] " \
	"[--accounting exact|memo|sampled] [--sample-period N] "                \
	"[--sample-warm caches|stores|none] [--sample-window N] [--format text|json|csv]"

/* The options of a benchmark: its driver's and --format (cli/options.h). */
struct pagealloc_args {
	struct bench_pagealloc_opts o;
	enum rec_format fmt;
};

struct slub_args {
	struct bench_slub_opts o;
	enum rec_format fmt;
};

struct messaging_args {
	struct bench_messaging_opts o;
	enum rec_format fmt;
};

static int set_bpred(void *dst, const char *val)
{
	enum bpred_mode *m = dst;
	int rc = NS_OK;
	int v = bpred_mode_parse(val);
	if (v < 0)
		rc = NS_EUSAGE;
	else
		*m = (enum bpred_mode)v;
	return rc;
}

static int set_cost_model(void *dst, const char *val)
{
	int *m = dst;
	int v = cpu_model_parse(val);
	if (v < 0)
		return NS_EUSAGE;
	*m = v;
	return NS_OK;
}

static int set_cost_code(void *dst, const char *val)
{
	int *m = dst;
	int v = mm_code_parse(val);
	if (v < 0)
		return NS_EUSAGE;
	*m = v;
	return NS_OK;
}

static int set_accounting(void *dst, const char *val)
{
	int *a = dst;
	int v = cpu_accounting_parse(val);
	if (v < 0)
		return NS_EUSAGE;
	*a = v;
	return NS_OK;
}

/* --sample-warm caches|stores|none into enum cpu_warm sample_warm. */
static int set_sample_warm(void *dst, const char *val)
{
	int w = cpu_warm_parse(val);
	if (w < 0)
		return NS_EUSAGE;
	*(enum cpu_warm *)dst = (enum cpu_warm)w;
	return NS_OK;
}

static int set_mmzone_iter(void *dst, const char *val)
{
	int v = mmzone_iter_parse(val);
	if (v < 0)
		return NS_EUSAGE;
	*(enum mmzone_iter *)dst = (enum mmzone_iter)v;
	return NS_OK;
}

static int set_slub_variant(void *dst, const char *val)
{
	int v = slub_variant_parse(val);
	if (v < 0)
		return NS_EUSAGE;
	*(enum slub_variant *)dst = (enum slub_variant)v;
	return NS_OK;
}

/* --free remote|local into bool local_free. */
static int set_free(void *dst, const char *val)
{
	if (strcmp(val, "remote") && strcmp(val, "local"))
		return NS_EUSAGE;
	*(bool *)dst = !strcmp(val, "local");
	return NS_OK;
}

/* --placement none|v5.9 into bool placement_v59. */
static int set_placement(void *dst, const char *val)
{
	if (strcmp(val, "none") && strcmp(val, "v5.9"))
		return NS_EUSAGE;
	*(bool *)dst = !strcmp(val, "v5.9");
	return NS_OK;
}

/* --format text|json|csv into enum rec_format. */
static int set_format(void *dst, const char *val)
{
	return rec_parse_format(val, dst);
}

/* A --format json|csv document for the benchmark (NULL for text); false
 * when out of memory (printed). */
static bool doc_begin(enum rec_format fmt, struct rec_doc **doc)
{
	*doc = fmt == REC_TEXT ? NULL : rec_doc_new("bench");
	if (fmt != REC_TEXT && !*doc)
		fprintf(stderr, "numasim bench: error: %s\n", ns_status_msg(NS_ENOMEM));
	return fmt == REC_TEXT || *doc;
}

/* After the driver's run rc: write the document to out, free it. */
static int doc_end(struct rec_doc *doc, enum rec_format fmt, FILE *out, int rc,
		   struct diag *d)
{
	if (rc == NS_OK && doc && (rc = rec_write(doc, fmt, out)))
		diag_set(d, rc, "numasim bench", 0, 0, "%s", ns_status_msg(rc));
	rec_doc_free(doc);
	return rc;
}

/*
 * The machine option's file (default or --machine: a path, or a shipped
 * machine's name from any directory) into *path, which the caller frees
 * and the options point at; NS_OK, or the exit status after printing.
 */
static int bench_machine(const struct cli_spec *c, const char **machine,
			 char **path)
{
	struct diag d;
	char prog[64];
	diag_init(&d);
	snprintf(prog, sizeof prog, "numasim %s --machine", c->cmd);
	int rc = cli_find_file(prog, DATAFILE_MACHINE, *machine, path, &d);
	if (rc != NS_OK) {
		diag_print(&d, stderr);
		return ns_status_exit(rc);
	}
	*machine = *path;
	return NS_OK;
}

/* The exit status of a driver's run rc; prints its failure from d. */
static int bench_finish(const struct cli_spec *c, int rc, const struct diag *d)
{
	if (rc == NS_EUSAGE)
		return cli_usage_error(c->cmd, c->usage, "%s", d->msg);
	if (rc != NS_OK)
		diag_print(d, stderr);
	return ns_status_exit(rc);
}

/*
 * The option tables.  Each benchmark's args struct is its driver's
 * options (o) and --format; the rows below store into it by offset.  The
 * accounting options are the same rows in the three tables.
 */
#define BENCH_NUM(args, opt, metavar, field, lo, hi, text)                     \
	{.name = opt, .arg = metavar, .kind = CLI_OPT_NUM,                     \
	 .off = offsetof(args, o.field), .min = lo, .max = hi, .help = text}
#define BENCH_CHOICE(args, opt, metavar, field, fn, exp, text)                 \
	{.name = opt, .arg = metavar, .kind = CLI_OPT_CHOICE,                  \
	 .off = offsetof(args, field), .choice = fn, .expected = exp, .help = text}
#define BENCH_MACHINE(args)                                                    \
	{.name = "--machine", .arg = "FILE", .kind = CLI_OPT_FILE,             \
	 .off = offsetof(args, o.machine),                                     \
	 .help = "machine file or shipped name (default %D)"}
#define BENCH_ACCOUNTING(args, max_period)                                     \
	BENCH_CHOICE(args, "--accounting", "A", o.accounting, set_accounting,  \
		     "exact, memo or sampled",                                 \
		     "cost accounting: exact (default: every cost primitive\n" \
		     "run as it is called), memo (memoized paths: a\n"         \
		     "top-level call whose path was seen before adds its\n"    \
		     "recorded cost; the same results, faster on allocator\n"  \
		     "runs; docs/design/cost-model.md §9) or sampled (approximate:\n" \
		     "one top-level call in --sample-period is accounted\n"    \
		     "exactly, the others are charged a sample of their\n"     \
		     "path; docs/design/cost-model.md §10)"),                         \
	BENCH_NUM(args, "--sample-period", "N", sample_period, 1, max_period,  \
		  "sampled: one top-level call in N accounted exactly\n"       \
		  "(default %D, 1..1000000000)"),                              \
	BENCH_CHOICE(args, "--sample-warm", "W", o.sample_warm, set_sample_warm, \
		     "caches, stores or none",                                 \
		     "sampled: caches (default: the calls not sampled still\n" \
		     "perform their cache accesses), stores (only their\n"     \
		     "stores and locked ops) or none"),                        \
	BENCH_NUM(args, "--sample-window", "N", sample_window, 0, max_period,  \
		  "sampled: the last N calls before each sample perform\n"     \
		  "all their cache accesses, whatever --sample-warm says\n"    \
		  "(default 0, 0..1000000000)")
#define BENCH_FORMAT(args)                                                     \
	BENCH_CHOICE(args, "--format", "F", fmt, set_format, "text, json or csv", \
		     "text (default), json or csv: one document of the\n"      \
		     "runs and results (docs/reference/output-formats.md)")

static void pagealloc_help(const struct cli_spec *spec);
static void slub_help(const struct cli_spec *spec);
static void msg_help(const struct cli_spec *spec);

static const struct cli_option pagealloc_options[] = {
	BENCH_MACHINE(struct pagealloc_args),
	BENCH_NUM(struct pagealloc_args, "--pairs", "N", pairs, 1, BENCH_PAGEALLOC_MAX_PAIRS,
		  "alloc+free pairs per run (default 10000000)"),
	BENCH_CHOICE(struct pagealloc_args, "--variant", "V", o.variant, set_mmzone_iter,
		     "pre or post", "pre | post (pre-682a3385 | 682a3385; default post)"),
	BENCH_NUM(struct pagealloc_args, "--batch", "N", batch, 1, BENCH_PAGEALLOC_MAX_BATCH,
		  "allocations per round (default 128)"),
	BENCH_NUM(struct pagealloc_args, "--cpu", "C", cpu, 0, MACHINE_MAX_CPUS - 1,
		  "machine CPU number to run on (default: first CPU)"),
	BENCH_NUM(struct pagealloc_args, "--order", "O", order, 0, BENCH_PAGEALLOC_MAX_ORDER,
		  "allocation order 0..4 (default 0)"),
	BENCH_NUM(struct pagealloc_args, "--repeat", "R", repeat, 1, BENCH_PAGEALLOC_MAX_REPEAT,
		  "runs (default 1); rates are reported per run"),
	BENCH_NUM(struct pagealloc_args, "--profile", "N", profile, 0,
		  BENCH_PAGEALLOC_MAX_PROFILE,
		  "print the N functions with most self cycles (default 8)"),
	BENCH_CHOICE(struct pagealloc_args, "--bpred", "M", o.bpred, set_bpred,
		     "bimodal, gshare or tage",
		     "branch predictor model: gshare (default), bimodal or tage"),
	BENCH_CHOICE(struct pagealloc_args, "--cost-model", "M", o.cost_model, set_cost_model,
		     "inorder or ooo",
		     "timing model: ooo (the default, as numasim run's\n"
		     "cost.model) or inorder; the header names it"),
	BENCH_CHOICE(struct pagealloc_args, "--cost-code", "L", o.code, set_cost_code,
		     "estimate or compiled",
		     "work layout: estimate (inorder's default) or compiled\n"
		     "(ooo's default; docs/design/compiled-counts.md)"),
	BENCH_ACCOUNTING(struct pagealloc_args, BENCH_PAGEALLOC_MAX_SAMPLE_PERIOD),
	BENCH_FORMAT(struct pagealloc_args),
};

static const struct cli_option slub_options[] = {
	BENCH_MACHINE(struct slub_args),
	BENCH_NUM(struct slub_args, "--pairs", "N", pairs, 1, BENCH_SLUB_MAX_PAIRS,
		  "alloc+free pairs (default 5000000)"),
	BENCH_NUM(struct slub_args, "--batch", "N", batch, 1, BENCH_SLUB_MAX_BATCH,
		  "objects per round (default 64)"),
	BENCH_CHOICE(struct slub_args, "--free", "WHERE", o.local_free, set_free,
		     "remote or local", "remote | local (default remote)"),
	BENCH_CHOICE(struct slub_args, "--variant", "V", o.variant, set_slub_variant,
		     "pre or post", "pre | post (v5.9 | c270cf30; default pre)"),
	BENCH_NUM(struct slub_args, "--repeat", "R", repeat, 1, BENCH_SLUB_MAX_REPEAT,
		  "runs, each on a fresh world; reports min/median/max\n"
		  "(default 1)"),
	BENCH_ACCOUNTING(struct slub_args, BENCH_SLUB_MAX_SAMPLE_PERIOD),
	BENCH_FORMAT(struct slub_args),
};

static const struct cli_option messaging_options[] = {
	BENCH_MACHINE(struct messaging_args),
	BENCH_NUM(struct messaging_args, "--groups", "G", groups, 1, BENCH_MESSAGING_MAX_GROUPS,
		  "-g (default 20)"),
	BENCH_NUM(struct messaging_args, "--loops", "L", loops, 1, BENCH_MESSAGING_MAX_LOOPS,
		  "-l (default 50)"),
	BENCH_CHOICE(struct messaging_args, "--variant", "V", o.variant, set_slub_variant,
		     "pre or post", "pre | post (default pre)"),
	BENCH_CHOICE(struct messaging_args, "--placement", "P", o.placement_v59, set_placement,
		     "none or v5.9",
		     "task placement: none (default: the bench's fixed\n"
		     "configuration, so its figures compare across\n"
		     "builds) or v5.9 (numasim run's messaging default,\n"
		     "sched.placement)"),
	BENCH_NUM(struct messaging_args, "--seed", "S", seed, 0, INT64_MAX,
		  "run seed (default 1)"),
	BENCH_NUM(struct messaging_args, "--repeat", "R", repeat, 1, BENCH_MESSAGING_MAX_REPEAT,
		  "runs, each on a fresh world; reports min/median/max\n"
		  "(default 1)"),
	BENCH_ACCOUNTING(struct messaging_args, BENCH_SLUB_MAX_SAMPLE_PERIOD),
	BENCH_FORMAT(struct messaging_args),
};

/* `bench pagealloc` also takes --name=value (CLI_ALL_EQ); slub and
 * messaging take the value from the next argument only, as they always
 * did. */
const struct cli_spec cmd_bench_pagealloc_spec = {
	.cmd = "bench pagealloc", .usage = PAGEALLOC_USAGE,
	.opts = pagealloc_options, .nr_opts = CLI_NR_OPTS(pagealloc_options),
	.flags = CLI_DASHDASH | CLI_ALL_EQ, .help_col = 18,
	.needs_value = "%s needs a value", .help = pagealloc_help,
};

const struct cli_spec cmd_bench_slub_spec = {
	.cmd = "bench slub", .usage = SLUB_USAGE,
	.opts = slub_options, .nr_opts = CLI_NR_OPTS(slub_options),
	.flags = CLI_DASHDASH, .help_col = 18,
	.needs_value = "%s needs a value", .help = slub_help,
};

const struct cli_spec cmd_bench_messaging_spec = {
	.cmd = "bench messaging", .usage = MSG_USAGE,
	.opts = messaging_options, .nr_opts = CLI_NR_OPTS(messaging_options),
	.flags = CLI_DASHDASH, .help_col = 18,
	.needs_value = "%s needs a value", .help = msg_help,
};

static void pagealloc_help(const struct cli_spec *spec)
{
	struct pagealloc_args def = {.fmt = REC_TEXT};
	bench_pagealloc_opts_default(&def.o);
	printf("usage: %s\n\n"
	       "Simulated alloc_pages(GFP_KERNEL|__GFP_NOWARN, O) + __free_pages pairs per\n"
	       "host second on one CPU, with the full cost model (caches, predictor,\n"
	       "profile).  Each round allocates --batch pages, then frees them.\n"
	       "Reports pairs/s, simulated cycles per allocation and per free, the\n"
	       "simulated profile's top functions and the peak RSS of the process.\n\n"
	       "options:\n", spec->usage);
	cli_print_options(stdout, spec, &def);
}

static void slub_help(const struct cli_spec *spec)
{
	struct slub_args def = {.fmt = REC_TEXT};
	bench_slub_opts_default(&def.o);
	printf("usage: %s\n\n"
	       "Simulated kmalloc(448) + kfree pairs per host second with the full cost\n"
	       "model: each round allocates --batch objects on the first CPU of node 0\n"
	       "and frees them on the first CPU of the next node (the remote frees of\n"
	       "sched messaging, through __slab_free; the same CPU on a one-node\n"
	       "machine), or with --free local on the allocating CPU (the fast path of\n"
	       "a kmalloc/kfree loop).\n\n"
	       "options:\n", spec->usage);
	cli_print_options(stdout, spec, &def);
}

static void msg_help(const struct cli_spec *spec)
{
	struct messaging_args def = {.fmt = REC_TEXT};
	bench_messaging_opts_default(&def.o);
	printf("usage: %s\n\n"
	       "Simulated messages per host second of perf bench sched messaging\n"
	       "(socket mode) over every CPU of the machine, full cost model; also\n"
	       "prints the simulated Total time.\n\n"
	       "options:\n", spec->usage);
	cli_print_options(stdout, spec, &def);
}

/*
 * The progress bar of a benchmark (runs of --repeat and the work of the
 * current one), drawn when stdout and stderr are terminals.  The report
 * then goes to memory and is printed once the bar is erased, so the two
 * never share a line.
 */
struct bench_bar {
	struct progress bar;
	struct progress_plan pp;
	struct progress_ticker tk;
	FILE *mem;
	char *buf;
	size_t len;
};

static FILE *bar_begin(struct bench_bar *b, long long repeat, struct progress_plan **pp)
{
	memset(b, 0, sizeof *b);
	progress_plan_init(&b->pp);
	*pp = NULL;
	if (!isatty(STDOUT_FILENO) || !isatty(STDERR_FILENO))
		return stdout;
	b->mem = open_memstream(&b->buf, &b->len);
	if (!b->mem)
		return stdout;
	progress_init(&b->bar, stderr, repeat, 0, progress_clock());
	progress_ticker_start(&b->tk, &b->bar, progress_plan_poll, &b->pp);
	*pp = &b->pp;
	return b->mem;
}

static int bar_end(struct bench_bar *b, int rc)
{
	if (!b->mem)
		return rc;
	progress_ticker_stop(&b->tk);
	progress_finish(&b->bar);
	if (fclose(b->mem) == 0 && rc == NS_OK)
		fwrite(b->buf, 1, b->len, stdout);
	free(b->buf);
	return rc;
}

/*
 * A benchmark command: its option table, the fields of its options struct
 * that every driver has (machine file, --repeat, progress plan, --format
 * document) and the driver itself behind a trampoline (the drivers take
 * their own options struct).
 */
struct bench_job {
	const struct cli_spec *spec;
	void *args;
	const char **machine;
	const long long *repeat;
	struct progress_plan **progress;
	struct rec_doc **doc;
	const enum rec_format *fmt;
	int (*run)(const void *o, FILE *out, struct diag *d);
	const void *o;
};

static int run_pagealloc(const void *o, FILE *out, struct diag *d)
{
	return bench_pagealloc_run(o, out, d);
}

static int run_slub(const void *o, FILE *out, struct diag *d)
{
	return bench_slub_run(o, out, d);
}

static int run_messaging(const void *o, FILE *out, struct diag *d)
{
	return bench_messaging_run(o, out, d);
}

/*
 * Parse argv into the job's options (or print --help), find the machine,
 * run the driver under the progress bar with the report (text, or the
 * --format document) on stdout; the exit status.
 */
static int bench_main(const struct bench_job *job, int argc, char **argv)
{
	const struct cli_spec *c = job->spec;
	int rc = cli_parse(c, job->args, argc, argv);
	if (rc)
		return rc == CLI_HELP_SHOWN ? 0 : 2;
	char *path = NULL;
	int st = bench_machine(c, job->machine, &path);
	if (st == NS_OK) {
		struct diag d;
		struct bench_bar b;
		diag_init(&d);
		if (!doc_begin(*job->fmt, job->doc)) {
			free(path);
			return 1;
		}
		FILE *out = bar_begin(&b, *job->repeat, job->progress);
		rc = job->run(job->o, out, &d);
		rc = bar_end(&b, doc_end(*job->doc, *job->fmt, out, rc, &d));
		st = bench_finish(c, rc, &d);
	}
	free(path);
	return st;
}

#define BENCH_JOB(spec_, a)                                                    \
	{.spec = &spec_, .args = &a, .machine = &a.o.machine, .repeat = &a.o.repeat, \
	 .progress = &a.o.progress, .doc = &a.o.doc, .fmt = &a.fmt, .o = &a.o}

int cmd_bench_pagealloc(int argc, char **argv)
{
	struct pagealloc_args a = {.fmt = REC_TEXT};
	bench_pagealloc_opts_default(&a.o);
	struct bench_job job = BENCH_JOB(cmd_bench_pagealloc_spec, a);
	job.run = run_pagealloc;
	return bench_main(&job, argc, argv);
}

int cmd_bench_slub(int argc, char **argv)
{
	struct slub_args a = {.fmt = REC_TEXT};
	bench_slub_opts_default(&a.o);
	struct bench_job job = BENCH_JOB(cmd_bench_slub_spec, a);
	job.run = run_slub;
	return bench_main(&job, argc, argv);
}

int cmd_bench_messaging(int argc, char **argv)
{
	struct messaging_args a = {.fmt = REC_TEXT};
	bench_messaging_opts_default(&a.o);
	struct bench_job job = BENCH_JOB(cmd_bench_messaging_spec, a);
	job.run = run_messaging;
	return bench_main(&job, argc, argv);
}
