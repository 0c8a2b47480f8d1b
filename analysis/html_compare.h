/*
 * html_compare — the compare table of the HTML report as a real <table>,
 * in the layout of mmtests' compare-kernels HTML: one column per group
 * (variant), the baseline's first and marked, one row per metric and
 * statistic (Min, Amean), numbers right-aligned, each non-baseline value
 * followed by its change against the baseline in percent with mmtests'
 * sign convention (positive = better: fewer cycles for time-like units),
 * and the cell tinted green (better) or red (worse) when the change is at
 * least HTML_COMPARE_TINT_PCT percent, stronger from HTML_COMPARE_STRONG_PCT;
 * then a row per metric with Welch's verdict as compare_records gives it
 * ("exact D" for groups that do not vary, else the p-value, '*' below
 * alpha).  The figures are analysis/compare.h's records (the same numbers
 * as `numasim compare --format csv`), read back from their CSV form, so
 * the table and the command cannot disagree.
 *
 * The table sits in a <div class="scroll"> (overflow-x: auto): a report of
 * 29 variants scrolls inside the page instead of widening it.  Every text
 * (metric, unit, group names) goes through analysis/markup.h.
 *
 * Error policy: NS_EINPUT / NS_ENOENT from compare (nothing to compare for
 * this workload: the caller writes a note); NS_EDB, NS_ENOMEM with the
 * message in d.  Output goes to f only when the table is complete.
 */
#ifndef NUMASIM_HTML_COMPARE_H
#define NUMASIM_HTML_COMPARE_H

#include <stdio.h>

#include <sqlite3.h>

#include "base/diag.h"

#define HTML_COMPARE_TINT_PCT 1.0
#define HTML_COMPARE_STRONG_PCT 5.0

/* The table of the runs of one workload (metrics: compare_opts.metrics;
 * pool: compare_opts.pool), with id "compare-WORKLOAD" (and data-check for
 * the page's layout check). */
int html_compare_table(sqlite3 *db, const char *dbname, const char *workload,
		       const char *metrics, int pool, FILE *f, struct diag *d);

#endif
