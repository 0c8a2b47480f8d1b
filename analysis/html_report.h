/*
 * html_report — `numasim report DB --format html`: one self-contained
 * HTML page about a results database, in the spirit of mmtests'
 * compare-kernels HTML (compare tables with their graphs under them).
 *
 * Sections, each a <section> with an id and data-check (the page's
 * layout check, below): the runs with their provenance (scenario, point,
 * repetition, seed, machine and input hashes, variant, kernel model,
 * status, tool version, host, started, duration, command); per workload
 * the compare table (analysis/html_compare.h: a <table> with a column per
 * variant, the baseline first, Min, Amean and Welch rows; the text of
 * `numasim compare` folded below it) with the line plots of
 * analysis/plot.h under it, two to a row (pagealloc: alloc, free and total cycles
 * per page against the batch size; messaging: the profile's top functions
 * as bars); the simulated profile's top functions (mean per run of each
 * variant, with the kernel file of annotate_kernel_file()); a
 * differential flame graph (analysis/flame.h) of the means of the first
 * two variants over their runs, interactive (flame_script runs in the
 * page); per workload with two or more variants the perf diff tables of
 * analysis/diff.h (metrics, top functions and branch sites by |delta| per
 * operation, the first variant the baseline); the branch sites with their
 * function, kernel file
 * and condition; for messaging runs the SLUB stats per cache and the
 * seed-format summary of analysis/messaging_report.h and a scheduler
 * summary (the system-scope counters, mean per run of each variant); and
 * for sweeps (a pagealloc scenario with more than two points: two are an
 * A/B pair, drawn in the compare plots) a grid of small multiples, one
 * plot per point.
 *
 * Self-contained: the SVGs are inline, the style sheet and the one script
 * (the page's and flame_script) are in the page, no URL is fetched (the
 * only "http" strings are the SVG namespace names).  Every section opens
 * through one helper that also records it for the navigation bar, so the
 * bar links exactly the sections the page has (the body is composed in
 * memory before the head).  Tables scroll sideways inside their box
 * (.scroll) rather than widen the page.  The script makes the tables sortable (click a
 * header; numbers sort numerically) and, on load, checks that every
 * section and every plot has a non-zero size, recording the result in
 * <body data-layout="ok"> or "missing: ids" (what the headless-browser
 * test reads).  Deterministic: same database, same bytes (no clock).
 *
 * Error policy: NS_EINPUT for a database without runs; NS_EDB, NS_ENOMEM
 * with the message in d; the page goes to f only as it is built, so the
 * caller composes it in memory and writes it when this returns NS_OK.
 */
#ifndef NUMASIM_HTML_REPORT_H
#define NUMASIM_HTML_REPORT_H

#include <stdio.h>

#include <sqlite3.h>

#include "base/diag.h"
#include "cost/cost.h"

/* t: the models' site tables (conditions of the branch sites); pool: the
 * compare tables pool the same run of one plan stored by several
 * invocations (compare_opts.pool; otherwise each such table is a note
 * saying why it is left out and that --pool pools them). */
int html_report_write(sqlite3 *db, const char *dbname, const struct cost_tables *t,
		      int pool, FILE *f, struct diag *d);

#endif
