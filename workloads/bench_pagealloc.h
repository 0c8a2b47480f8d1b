/*
 * bench_pagealloc — the driver of `numasim bench pagealloc`: runs the page
 * allocator model (models/page_alloc.h) with full cost accounting and
 * prints a perf-bench-like report of the simulator's speed.  The command
 * line (options, --help, usage line) is in cli/cmd_bench_models.c.
 *
 * Error policy: bench_pagealloc_run() returns an NS_ status and, on
 * failure, fills d and writes nothing to out.  An option the machine
 * cannot honour (--cpu of a CPU it lacks) is NS_EUSAGE with the text in
 * d->msg (the caller prints it as a usage error); a machine file that does
 * not load is NS_EINPUT with the loader's file:line:col diagnostic in d,
 * whatever the loader's own status was (exit status 2, as documented for
 * the command); out of memory, a --repeat run that simulated something
 * else than the first, and mm_check() failures come back with their
 * status and a printable diagnostic (diag_print).  The report is written
 * only after every run succeeded and mm_check() passed.
 *
 * What it measures: simulated order-0 alloc+free pairs per host second on
 * one CPU of a machine file, in rounds of `batch` allocations followed by
 * `batch` frees (the shape of mmtests' pagealloc-micro loop), plus the
 * simulated cycles per allocation and per free, the top of the simulated
 * profile, and the host's peak resident set size (getrusage), which is how
 * the memory representation of large machines is checked.
 */
#ifndef NUMASIM_PAGEALLOC_BENCH_H
#define NUMASIM_PAGEALLOC_BENCH_H

#include <stdbool.h>
#include <stdio.h>

#include "base/diag.h"
#include "base/progress.h"
#include "cost/bpred.h"
#include "models/page_alloc.h"

/* Ranges of the numeric options; bench_pagealloc_run() expects them. */
#define BENCH_PAGEALLOC_MAX_PAIRS 1000000000000LL
#define BENCH_PAGEALLOC_MAX_BATCH (1 << 24)
#define BENCH_PAGEALLOC_MAX_ORDER 4
#define BENCH_PAGEALLOC_MAX_REPEAT 1000
#define BENCH_PAGEALLOC_MAX_PROFILE 1000
#define BENCH_PAGEALLOC_MAX_SAMPLE_PERIOD 1000000000LL

struct rec_doc;

struct bench_pagealloc_opts {
	const char *machine;     /* machine file */
	long long pairs;         /* alloc+free pairs per run, 1..MAX_PAIRS */
	long long batch;         /* allocations per round, 1..MAX_BATCH */
	long long cpu;           /* machine CPU number; -1: the first CPU */
	long long order;         /* allocation order, 0..MAX_ORDER */
	long long repeat;        /* runs, 1..MAX_REPEAT */
	long long profile;       /* profile rows printed, 0..MAX_PROFILE */
	enum mmzone_iter variant;
	enum bpred_mode bpred;
	int cost_model;          /* enum cpu_model (default ooo, as numasim run) */
	int accounting;          /* enum cpu_accounting (default exact) */
	long long sample_period; /* sampled: 1 call in N exact, 1..MAX_SAMPLE_PERIOD */
	enum cpu_warm sample_warm; /* sampled: what the others warm */
	long long sample_window; /* sampled: the calls before a sample that warm all,
				    0..MAX_SAMPLE_PERIOD */
	int code;                /* enum mm_code (default: by the cost model) */
	struct progress_plan *progress;  /* runs and pairs done, or NULL */
	struct rec_doc *doc;     /* --format json|csv: the report as records
				    (docs/reference/output-formats.md), not text */
};

/* configs/seed-2016-2s.yaml, 10000000 pairs, batch 128, first CPU,
 * order 0, 1 run, 8 profile rows, variant post, gshare predictor,
 * the ooo timing model (numasim run's default), the layout by the model, exact accounting (sampled:
 * cpu_params_default's period and warming). */
void bench_pagealloc_opts_default(struct bench_pagealloc_opts *o);

/* Run the benchmark and write its report to out (see above); d is
 * initialised by the caller (diag_init). */
int bench_pagealloc_run(const struct bench_pagealloc_opts *o, FILE *out, struct diag *d);

#endif
