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
 * Design notes.  The three benchmarks share one option loop over a table
 * of options (a number in a range through cli_parse_long, a file name, or
 * a choice parsed by a setter).  `bench pagealloc` also accepts
 * --name=value; slub and messaging take the value from the next argument
 * only (a table flag), as they always did.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
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
	"[--variant pre|post] [--seed S] [--repeat R] "                         \
	"[--accounting exact|memo|sampled] [--sample-period N] "                \
	"[--sample-warm caches|stores|none] [--sample-window N] [--format text|json|csv]"

/* A benchmark's command: name in messages, usage line, option syntax. */
#define BENCH_MAX_OPTS 20      /* options of one benchmark, for "did you mean" */

struct bench_cli {
	const char *cmd;       /* "bench pagealloc" */
	const char *usage;
	bool allow_eq;         /* --name=value as well as --name value */
};

static const struct bench_cli pagealloc_cli = {"bench pagealloc", PAGEALLOC_USAGE, true};
static const struct bench_cli slub_cli = {"bench slub", SLUB_USAGE, false};
static const struct bench_cli msg_cli = {"bench messaging", MSG_USAGE, false};

enum bench_opt_kind {
	BENCH_OPT_NUM,         /* whole number in [min, max] into long long *dst */
	BENCH_OPT_FILE,        /* non-empty file name into const char **dst */
	BENCH_OPT_CHOICE,      /* set(dst, value); expected names the choices */
};

struct bench_opt {
	const char *name;
	enum bench_opt_kind kind;
	void *dst;
	long long min, max;
	int (*set)(void *dst, const char *val);   /* NS_OK or NS_EUSAGE */
	const char *expected;
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

/* Give opt the value val; NS_OK, or NS_EUSAGE after printing the error. */
static int bench_opt_set(const struct bench_cli *c, const struct bench_opt *opt,
			 const char *val)
{
	int rc = NS_OK;
	switch (opt->kind) {
	case BENCH_OPT_NUM:
		rc = cli_parse_long(c->cmd, opt->name, val, opt->min, opt->max, opt->dst);
		break;
	case BENCH_OPT_FILE:
		if (!*val) {
			cli_usage_error(c->cmd, c->usage, "%s needs a file name", opt->name);
			rc = NS_EUSAGE;
		} else {
			*(const char **)opt->dst = val;
		}
		break;
	case BENCH_OPT_CHOICE:
		if (opt->set(opt->dst, val) != NS_OK) {
			cli_usage_error(c->cmd, c->usage, "%s '%s': expected %s", opt->name, val,
					opt->expected);
			rc = NS_EUSAGE;
		}
		break;
	}
	return rc;
}

/*
 * Parse argv[1..argc) against opts[0..nr): "--name value" (and
 * "--name=value" when c->allow_eq).  -h/--help stops the parse with *help
 * set.  Returns NS_OK, or NS_EUSAGE after printing the error.
 */
static int bench_parse(const struct bench_cli *c, const struct bench_opt *opts, size_t nr,
		       int argc, char **argv, bool *help)
{
	*help = false;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *val;
		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			*help = true;
			return NS_OK;
		}
		const char *eq = c->allow_eq ? strchr(a, '=') : NULL;
		size_t klen = eq ? (size_t)(eq - a) : strlen(a);
		if (strncmp(a, "--", 2)) {
			cli_usage_error(c->cmd, c->usage, "unexpected argument '%s'", a);
			return NS_EUSAGE;
		}
		size_t k;
		for (k = 0; k < nr; k++)
			if (strlen(opts[k].name) == klen && !strncmp(a, opts[k].name, klen))
				break;
		if (k == nr) {
			const char *known[BENCH_MAX_OPTS + 2] = {"--help", "-h"};
			for (size_t j = 0; j < nr && j < BENCH_MAX_OPTS; j++)
				known[2 + j] = opts[j].name;
			cli_unknown_option(c->cmd, a, known, 2 + (nr < BENCH_MAX_OPTS ? nr
								   : BENCH_MAX_OPTS));
			return NS_EUSAGE;
		}
		if (eq) {
			val = eq + 1;
		} else if (i + 1 < argc) {
			val = argv[++i];
		} else {
			cli_usage_error(c->cmd, c->usage, "%s needs a value", a);
			return NS_EUSAGE;
		}
		if (bench_opt_set(c, &opts[k], val) != NS_OK)
			return NS_EUSAGE;
	}
	return NS_OK;
}

/*
 * The machine option's file (default or --machine: a path, or a shipped
 * machine's name from any directory) into *path, which the caller frees
 * and the options point at; NS_OK, or the exit status after printing.
 */
static int bench_machine(const struct bench_cli *c, const char **machine,
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
static int bench_finish(const struct bench_cli *c, int rc, const struct diag *d)
{
	if (rc == NS_EUSAGE)
		return cli_usage_error(c->cmd, c->usage, "%s", d->msg);
	if (rc != NS_OK)
		diag_print(d, stderr);
	return ns_status_exit(rc);
}

/* The accounting flags' help, the same for the three benches (its %lld
 * is the default sample period). */
#define ACCOUNTING_HELP \
	"  --accounting A  cost accounting: exact (default: every cost primitive\n" \
	"                  run as it is called), memo (memoized paths: a\n" \
	"                  top-level call whose path was seen before adds its\n" \
	"                  recorded cost; the same results, faster on allocator\n" \
	"                  runs; docs/cost-model.md §9) or sampled (approximate:\n" \
	"                  one top-level call in --sample-period is accounted\n" \
	"                  exactly, the others are charged a sample of their\n" \
	"                  path; docs/cost-model.md §10)\n" \
	"  --sample-period N\n" \
	"                  sampled: one top-level call in N accounted exactly\n" \
	"                  (default %lld, 1..1000000000)\n" \
	"  --sample-warm W sampled: caches (default: the calls not sampled still\n" \
	"                  perform their cache accesses), stores (only their\n" \
	"                  stores and locked ops) or none\n" \
	"  --sample-window N\n" \
	"                  sampled: the last N calls before each sample perform\n" \
	"                  all their cache accesses, whatever --sample-warm says\n" \
	"                  (default 0, 0..1000000000)\n"

static void pagealloc_help(const void *p)
{
	const struct bench_pagealloc_opts *def = p;
	printf("usage: %s\n\n"
	       "Simulated alloc_pages(GFP_KERNEL|__GFP_NOWARN, O) + __free_pages pairs per\n"
	       "host second on one CPU, with the full cost model (caches, predictor,\n"
	       "profile).  Each round allocates --batch pages, then frees them.\n"
	       "Reports pairs/s, simulated cycles per allocation and per free, the\n"
	       "simulated profile's top functions and the peak RSS of the process.\n\n"
	       "options:\n"
	       "  --machine FILE  machine file or shipped name (default %s)\n"
	       "  --pairs N       alloc+free pairs per run (default 10000000)\n"
	       "  --variant V     pre | post (pre-682a3385 | 682a3385; default post)\n"
	       "  --batch N       allocations per round (default 128)\n"
	       "  --cpu C         machine CPU number to run on (default: first CPU)\n"
	       "  --order O       allocation order 0..4 (default 0)\n"
	       "  --repeat R      runs (default 1); rates are reported per run\n"
	       "  --profile N     print the N functions with most self cycles (default 8)\n"
	       "  --bpred M       branch predictor model: gshare (default), bimodal or tage\n"
	       "  --cost-model M  timing model: inorder (the default here, so that rates\n"
	       "                  compare across releases) or ooo (numasim run's default)\n"
	       "  --cost-code L   work layout: estimate (inorder's default) or compiled\n"
	       "                  (ooo's default; docs/compiled-counts.md)\n"
	       ACCOUNTING_HELP
	       "  --format F      text (default), json or csv: one document of the\n"
	       "                  runs and results (docs/output-formats.md)\n",
	       PAGEALLOC_USAGE, def->machine, def->sample_period);
}

static void slub_help(const void *p)
{
	const struct bench_slub_opts *def = p;
	printf("usage: %s\n\n"
	       "Simulated kmalloc(448) + kfree pairs per host second with the full cost\n"
	       "model: each round allocates --batch objects on the first CPU of node 0\n"
	       "and frees them on the first CPU of the next node (the remote frees of\n"
	       "sched messaging, through __slab_free; the same CPU on a one-node\n"
	       "machine), or with --free local on the allocating CPU (the fast path of\n"
	       "a kmalloc/kfree loop).\n\n"
	       "options:\n"
	       "  --machine FILE  machine file or shipped name (default %s)\n"
	       "  --pairs N       alloc+free pairs (default 5000000)\n"
	       "  --batch N       objects per round (default 64)\n"
	       "  --free WHERE    remote | local (default remote)\n"
	       "  --variant V     pre | post (v5.9 | c270cf30; default pre)\n"
	       "  --repeat R      runs, each on a fresh world; reports min/median/max\n"
	       "                  (default 1)\n"
	       ACCOUNTING_HELP
	       "  --format F      text (default), json or csv: one document of the\n"
	       "                  runs and results (docs/output-formats.md)\n",
	       SLUB_USAGE, def->machine, def->sample_period);
}

static void msg_help(const void *p)
{
	const struct bench_messaging_opts *def = p;
	printf("usage: %s\n\n"
	       "Simulated messages per host second of perf bench sched messaging\n"
	       "(socket mode) over every CPU of the machine, full cost model; also\n"
	       "prints the simulated Total time.\n\n"
	       "options:\n"
	       "  --machine FILE  machine file or shipped name (default %s)\n"
	       "  --groups G      -g (default 20)\n"
	       "  --loops L       -l (default 50)\n"
	       "  --variant V     pre | post (default pre)\n"
	       "  --seed S        run seed (default 1)\n"
	       "  --repeat R      runs, each on a fresh world; reports min/median/max\n"
	       "                  (default 1)\n"
	       ACCOUNTING_HELP
	       "  --format F      text (default), json or csv: one document of the\n"
	       "                  runs and results (docs/output-formats.md)\n",
	       MSG_USAGE, def->machine, def->sample_period);
}

#define NR(a) (sizeof(a) / sizeof((a)[0]))
#define OPT_NUM(n, p, lo, hi) {.name = n, .kind = BENCH_OPT_NUM, .dst = p, .min = lo, .max = hi}
#define OPT_FILE(n, p) {.name = n, .kind = BENCH_OPT_FILE, .dst = p}
#define OPT_CHOICE(n, p, fn, exp) {.name = n, .kind = BENCH_OPT_CHOICE, .dst = p, .set = fn, .expected = exp}

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
 * A benchmark command: its option table and --help (with the defaults),
 * the fields of its options struct that every driver has (machine file,
 * --repeat, progress plan, --format document) and the driver itself behind
 * a trampoline (the drivers take their own options struct).
 */
struct bench_job {
	const struct bench_opt *opts;
	size_t nr;
	void (*help)(const void *def);
	const void *def;
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
static int bench_main(const struct bench_cli *c, const struct bench_job *job, int argc,
		      char **argv)
{
	bool help;
	if (bench_parse(c, job->opts, job->nr, argc, argv, &help) != NS_OK)
		return 2;
	if (help) {
		job->help(job->def);
		return 0;
	}
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
		int rc = job->run(job->o, out, &d);
		rc = bar_end(&b, doc_end(*job->doc, *job->fmt, out, rc, &d));
		st = bench_finish(c, rc, &d);
	}
	free(path);
	return st;
}

int cmd_bench_pagealloc(int argc, char **argv)
{
	struct bench_pagealloc_opts o, def;
	enum rec_format fmt = REC_TEXT;
	bench_pagealloc_opts_default(&o);
	def = o;
	const struct bench_opt opts[] = {
		OPT_FILE("--machine", &o.machine),
		OPT_CHOICE("--bpred", &o.bpred, set_bpred, "bimodal, gshare or tage"),
		OPT_CHOICE("--cost-model", &o.cost_model, set_cost_model, "inorder or ooo"),
		OPT_CHOICE("--cost-code", &o.code, set_cost_code, "estimate or compiled"),
		OPT_CHOICE("--accounting", &o.accounting, set_accounting, "exact, memo or sampled"),
		OPT_CHOICE("--sample-warm", &o.sample_warm, set_sample_warm, "caches, stores or none"),
		OPT_CHOICE("--variant", &o.variant, set_mmzone_iter, "pre or post"),
		OPT_NUM("--pairs", &o.pairs, 1, BENCH_PAGEALLOC_MAX_PAIRS),
		OPT_NUM("--batch", &o.batch, 1, BENCH_PAGEALLOC_MAX_BATCH),
		OPT_NUM("--cpu", &o.cpu, 0, MACHINE_MAX_CPUS - 1),
		OPT_NUM("--order", &o.order, 0, BENCH_PAGEALLOC_MAX_ORDER),
		OPT_NUM("--repeat", &o.repeat, 1, BENCH_PAGEALLOC_MAX_REPEAT),
		OPT_NUM("--profile", &o.profile, 0, BENCH_PAGEALLOC_MAX_PROFILE),
		OPT_NUM("--sample-period", &o.sample_period, 1, BENCH_PAGEALLOC_MAX_SAMPLE_PERIOD),
		OPT_NUM("--sample-window", &o.sample_window, 0, BENCH_PAGEALLOC_MAX_SAMPLE_PERIOD),
		OPT_CHOICE("--format", &fmt, set_format, "text, json or csv"),
	};
	const struct bench_job job = {
		.opts = opts, .nr = NR(opts), .help = pagealloc_help, .def = &def,
		.machine = &o.machine, .repeat = &o.repeat, .progress = &o.progress,
		.doc = &o.doc, .fmt = &fmt, .run = run_pagealloc, .o = &o,
	};
	return bench_main(&pagealloc_cli, &job, argc, argv);
}

int cmd_bench_slub(int argc, char **argv)
{
	struct bench_slub_opts o, def;
	enum rec_format fmt = REC_TEXT;
	bench_slub_opts_default(&o);
	def = o;
	const struct bench_opt opts[] = {
		OPT_FILE("--machine", &o.machine),
		OPT_CHOICE("--free", &o.local_free, set_free, "remote or local"),
		OPT_CHOICE("--variant", &o.variant, set_slub_variant, "pre or post"),
		OPT_CHOICE("--accounting", &o.accounting, set_accounting, "exact, memo or sampled"),
		OPT_CHOICE("--sample-warm", &o.sample_warm, set_sample_warm, "caches, stores or none"),
		OPT_NUM("--pairs", &o.pairs, 1, BENCH_SLUB_MAX_PAIRS),
		OPT_NUM("--batch", &o.batch, 1, BENCH_SLUB_MAX_BATCH),
		OPT_NUM("--repeat", &o.repeat, 1, BENCH_SLUB_MAX_REPEAT),
		OPT_NUM("--sample-period", &o.sample_period, 1, BENCH_SLUB_MAX_SAMPLE_PERIOD),
		OPT_NUM("--sample-window", &o.sample_window, 0, BENCH_SLUB_MAX_SAMPLE_PERIOD),
		OPT_CHOICE("--format", &fmt, set_format, "text, json or csv"),
	};
	const struct bench_job job = {
		.opts = opts, .nr = NR(opts), .help = slub_help, .def = &def,
		.machine = &o.machine, .repeat = &o.repeat, .progress = &o.progress,
		.doc = &o.doc, .fmt = &fmt, .run = run_slub, .o = &o,
	};
	return bench_main(&slub_cli, &job, argc, argv);
}

int cmd_bench_messaging(int argc, char **argv)
{
	struct bench_messaging_opts o, def;
	enum rec_format fmt = REC_TEXT;
	bench_messaging_opts_default(&o);
	def = o;
	const struct bench_opt opts[] = {
		OPT_FILE("--machine", &o.machine),
		OPT_CHOICE("--variant", &o.variant, set_slub_variant, "pre or post"),
		OPT_CHOICE("--accounting", &o.accounting, set_accounting, "exact, memo or sampled"),
		OPT_CHOICE("--sample-warm", &o.sample_warm, set_sample_warm, "caches, stores or none"),
		OPT_NUM("--groups", &o.groups, 1, BENCH_MESSAGING_MAX_GROUPS),
		OPT_NUM("--loops", &o.loops, 1, BENCH_MESSAGING_MAX_LOOPS),
		OPT_NUM("--seed", &o.seed, 0, INT64_MAX),
		OPT_NUM("--repeat", &o.repeat, 1, BENCH_MESSAGING_MAX_REPEAT),
		OPT_NUM("--sample-period", &o.sample_period, 1, BENCH_SLUB_MAX_SAMPLE_PERIOD),
		OPT_NUM("--sample-window", &o.sample_window, 0, BENCH_SLUB_MAX_SAMPLE_PERIOD),
		OPT_CHOICE("--format", &fmt, set_format, "text, json or csv"),
	};
	const struct bench_job job = {
		.opts = opts, .nr = NR(opts), .help = msg_help, .def = &def,
		.machine = &o.machine, .repeat = &o.repeat, .progress = &o.progress,
		.doc = &o.doc, .fmt = &fmt, .run = run_messaging, .o = &o,
	};
	return bench_main(&msg_cli, &job, argc, argv);
}
