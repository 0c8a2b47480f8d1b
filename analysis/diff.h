/*
 * diff — `perf diff` of results: two or more groups of runs (two runs,
 * two variants of one database, two databases, or every value of a key)
 * compared function by function and branch site by branch site, the
 * engine of `numasim diff` and of the HTML report's "Diff" section
 * (docs/guide/plots.md "numasim diff").
 *
 * What it compares.  perf diff sets the symbols of a baseline profile
 * beside another's: per symbol the baseline's overhead, the delta and the
 * ratio.  Here a profile is the simulated one of the tables profile and
 * branches (docs/reference/schema.md): per modelled kernel function its self cycles,
 * total cycles (self plus callees) and calls, per branch site its
 * executions and mispredictions, each summed over the group's runs and
 * divided by the group's operations (the sum over its runs of the
 * workload's count of operations: pagealloc and fill `allocs`, messaging
 * `messages`, parallel `ops`; diff_ops_metric()).  When a run has no such
 * count every figure is per run instead (the sums divided by the number
 * of runs), and the output says so.  Above them the workload's report
 * metrics (those of `numasim report`: pagealloc's alloc-odr*, free-odr*,
 * total-odr*; messaging's total_time_s; any other workload all metrics;
 * or the --metric globs) with Min and Amean of their observations, as
 * analysis/compare.h takes them (a metric with sample rows: its samples;
 * otherwise one value per run; NAME.min of a series left out).
 *
 * Columns.  The first group is the baseline [0]; for every other group
 * [i]: delta = x[i] - x[0] and delta% = delta / x[0] * 100 (positive:
 * more than the baseline, as perf diff prints it; undefined, "new" in
 * text and null in JSON, where the baseline is 0).  With more than two
 * groups (--by KEY over several values) each other group gets its delta
 * and delta% columns against the same baseline, as mmtests'
 * compare-kernels sets every kernel against the first.  Functions are
 * sorted by the largest |delta| of self cycles per operation over the
 * other groups, then by the largest |delta| of total cycles, then by
 * name; branch sites by |delta| of executions, then of mispredictions,
 * then by name; a function or site that is zero in every group is left
 * out.  A function inlined in a group's code layout keeps its profile row
 * with no self cycles (its cycles are its caller's): next_zones_zonelist,
 * out of line before 682a3385 and inlined after it, shows its self cycles
 * gone and its callers' grown.  Metrics keep compare's natural order.
 *
 * Groups.  diff_add_key: the 'ok' runs of a database passing the --where
 * filters, grouped by their value of a key (a runs column or a params
 * key, compare_key_sql(); runs of several databases with one value pool);
 * diff_add_all: those runs of a database as one group (labelled as the
 * caller says: the path); diff_add_run: one run of a database (any
 * status), labelled "run N" or, with_db, "DB: run N".  Groups are in order of first
 * appearance (database order, then sweep point, then run id).
 * diff_select keeps the named groups in the order given (the first the
 * baseline); a name is a group's label or, for variants, the part after
 * the last '=' of a one-selection variant ("682a3385").
 *
 * Untrusted input.  Every row read is checked for the type the schema
 * gives its column: a NULL or a value of the wrong type (a file edited
 * outside numasim, read with its schema check off) is NS_EINPUT naming
 * the table, the run and the row ("DB: error: run 2: profile row
 * 'get_page_from_freelist': calls is not an integer"); negative counts
 * too.  Rows are merged by sorting, so a file with many rows costs
 * O(n log n), never quadratic time.
 *
 * Invariants (diff_check): groups have distinct labels and at least one
 * run each; after diff_compute the items are sorted and unique by name,
 * each with one value per group; the baseline is group 0.
 *
 * Error policy: NS_EINPUT with "ORIGIN: error: ..." or "DB: error: ..."
 * for an unknown key, run or group, fewer than two groups, a bad row;
 * NS_EDB on SQLite errors (origin: the database path); NS_ENOMEM.  The
 * writers write to the given stream only.  No globals.
 */
#ifndef NUMASIM_DIFF_H
#define NUMASIM_DIFF_H

#include <stdint.h>
#include <stdio.h>

#include <sqlite3.h>

#include "base/diag.h"

struct diff_opts {
	const char *by;            /* grouping key of diff_add_key; NULL: "variant" */
	const char *const *where;  /* KEY=VALUE filters (compare.h), all must hold */
	int nr_where;
	const char *metrics;       /* globs (compare_metric_selected); NULL: the
				      workload's report metrics */
	int limit;                 /* functions and sites printed; 0: all */
};

struct diff;

int diff_new(const struct diff_opts *o, const char *origin, struct diag *d,
	     struct diff **out);
void diff_free(struct diff *df);

/* Groups (before diff_load).  db_index numbers the caller's databases
 * (the same db_index must be passed to diff_load with that database). */
int diff_add_key(struct diff *df, int db_index, sqlite3 *db, const char *dbname);
int diff_add_all(struct diff *df, int db_index, sqlite3 *db, const char *dbname,
		 const char *label);
int diff_add_run(struct diff *df, int db_index, sqlite3 *db, const char *dbname,
		 int64_t run, int with_db);

/* The groups' labels (valid until the next call changing the groups). */
int diff_nr_groups(const struct diff *df);
const char *diff_group_label(const struct diff *df, int g);
/* The group a name selects (its label, or a variant's short name); -1. */
int diff_group_find(const struct diff *df, const char *name);
/* Keep the groups named (all must be found), in this order. */
int diff_select(struct diff *df, const char *const *names, int n);
/* Make the named group the baseline (moved first). */
int diff_set_baseline(struct diff *df, const char *name);

/* Read the figures of the groups' runs in database db_index. */
int diff_load(struct diff *df, int db_index, sqlite3 *db, const char *dbname);
/* Merge, divide and sort; NS_EINPUT when fewer than two groups. */
int diff_compute(struct diff *df);

/* The text tables. */
int diff_print(const struct diff *df, FILE *f);
/*
 * The same as records (base/records.h): meta "per" ("operation" or
 * "run"); tables "groups" (index, label, baseline, runs, operations),
 * "stats" per statistic, metric and other group (metric, unit, stat,
 * group, value_baseline, value, value_delta, value_delta_pct),
 * "functions" per function and other group in sorted order (function,
 * group, layout_baseline, layout: "out of line", "inlined" or "absent",
 * then for self, total and calls: NAME_baseline, NAME, NAME_delta,
 * NAME_delta_pct), "branches" the same for sites (site, function, group,
 * executed_*, mispredicted_*); delta_pct null where the baseline is 0.
 */
struct rec_doc;
int diff_records(const struct diff *df, struct rec_doc *d);
/* HTML tables (cells escaped by analysis/markup.h; class "sortable"),
 * limited to the first `limit` rows (0: all). */
int diff_html(const struct diff *df, FILE *f, int limit);

/* The metric counting a workload's operations ("allocs"); NULL: none. */
const char *diff_ops_metric(const char *workload);

int diff_check(const struct diff *df);

#endif
