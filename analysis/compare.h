/*
 * compare — mmtests-style comparison of groups of runs from one or more
 * results databases (docs/reference/schema.md), with the difference over runs
 * (exact, or Welch's t-test): the engine of `numasim compare` and of the
 * tables in `numasim report`; docs/design/statistics.md is the design note.
 *
 * Groups.  Without a key (opts.by NULL), by what differs: the variant and
 * every parameter that differs between runs of one variant (a --set value
 * of one invocation), labelled "VARIANT,KEY=VALUE"; parameters the same
 * in every run are left out.  With a key, every run with status 'ok'
 * (passing the --where filters) belongs to the group named by its value
 * of the grouping key: a column
 * of `runs` (variant, kernel_model, machine, workload, scenario, point,
 * repetition, seed, host, tool_version, invocation, machine_sha256,
 * scenario_sha256) or a `params` key (policy.mempolicy,
 * workload.inner_iterations, kernel.zonelist_iter, ...; a run without the
 * key is in group "~").  Groups are ordered by first appearance (database
 * order, then sweep point, then run id), the first is the baseline unless
 * one is named.  Runs of several databases with the same value pool.
 *
 * Observations.  For a metric name that has rows in `samples` (a series
 * such as pagealloc's alloc-odr0-1, 13 kept samples per run), the group's
 * observations are all its samples of that series over its runs (mmtests
 * pools iterations the same way); for any other metric, one observation
 * per run: the `metrics` value (NULLs skipped).  A series' unit is its
 * metric's unit.  Inference takes one value per run (a series: the mean
 * of the run's samples), never a run's samples.
 *
 * Table (mmtests Compare.pm layout, analysis/table.h widths): two header
 * lines (for --by variant the kernel model and the short variant as in
 * the seed's table; otherwise the key and the value), the baseline's
 * column first, then rows Min, Amean, Hmean (harmonic mean, positive
 * observations only), Stddev (n - 1), CoeffVar (Stddev / Amean in
 * percent), Max and BAmean-50/95/99 (the mean of the best floor(n * NN /
 * 100) observations, at least one: the lowest for time-like units, the
 * highest otherwise) per metric, each value followed by the change
 * against the baseline column in percent with mmtests' sign convention:
 * for time-like units (cycles, cycles/op, ns, ns/op, s, ms, us)
 * (base - x) / base, so positive means better (fewer cycles); for every
 * other unit (x - base) / base.  The statistic column is as wide as the
 * longest row name printed.  Metrics are sorted by name with digit runs
 * compared as numbers (alloc-odr0-2 before alloc-odr0-16).  Then the
 * block "Difference against BASE over runs", rows "Diff": per metric and
 * non-baseline column, over one value per run, "exact D" when every run
 * of both groups gave the same value (deterministic: no p-value), "1 run
 * D" when a group has one run, otherwise the two-sided Welch p-value of
 * mean(column) = mean(baseline) ("p<0.0001" below that), marked '*' below
 * alpha, and the (1 - alpha) confidence interval of mean(column) -
 * mean(baseline) (analysis/stats.h, GSL), as two aligned columns.  For a
 * 2x2 what-if (compare_internal.h, compare_find_2x2) the block
 * "Interaction of A and B over runs", rows "Inter": the difference of
 * differences, exact, one run or a Welch-Satterthwaite test.
 * Same plan twice (opts.pool 0): compare_load refuses (NS_EINPUT) runs
 * of the same scenario hash, machine hash, tool version, point and
 * repetition stored by more than one invocation (a plan run twice into
 * one database without --resume), or held by two databases loaded:
 * pooled, one measurement would count twice, and a test over runs would
 * see twice the runs there are.  opts.pool 1 pools them with a line
 * saying so.
 * Pooling (opts.warn, with a key): compare_load notes every group whose runs differ
 * in a parameter other than the key, or in invocation, machine, workload
 * or scenario; compare_print writes those warnings to opts.warn.
 * Seed style (seed_style = 1): the layout of the second seed's commit
 * message and of analysis/messaging_report.h, per metric "# NAME [UNIT] over
 * N observations (seed format)", the rows max., min., avg., stdev. and n
 * with one column per group, then per non-baseline group the line
 * "BASE - GROUP: diff D, Welch t = T, df = DF, p = P (two-sided):
 * [not ]significant at A" over one value per run (D = mean(baseline) -
 * mean(group), as the seed subtracts the patched kernel's average from
 * the old one's), or "diff D exactly: deterministic, identical across
 * seeds, no t-test", or "diff D, one run in a group: no t-test".
 *
 * Error policy: NS_EINPUT with "numasim compare: error: ..." style
 * messages (origin given by the caller) for an unknown key, a metric glob
 * matching nothing, no runs, an unknown baseline; NS_EDB for SQLite
 * errors (origin: the database path); NS_ENOMEM.  compare_print writes
 * only complete output.
 */
#ifndef NUMASIM_COMPARE_H
#define NUMASIM_COMPARE_H

#include <stdio.h>

#include <sqlite3.h>

#include "base/diag.h"

struct compare_opts {
	const char *by;         /* grouping key; NULL: "variant" */
	const char *baseline;   /* group value (or its short head); NULL: first */
	const char *metrics;    /* comma-separated globs, "!glob" excludes; NULL: all */
	const char *const *where; /* KEY=VALUE filters, all must hold */
	int nr_where;
	double alpha;           /* significance level; 0: 0.05 */
	unsigned rows;          /* COMPARE_ROW_* mask; 0: all five */
	int seed_style;         /* 1: the seed's max./min./avg./stdev. layout */
	int max_metrics;        /* print the first N metrics only (with a
				   line saying how many more); 0: all */
	int pool;               /* 1: pool the same run of one plan stored by
				   several invocations (refused otherwise) */
	FILE *warn;             /* where compare_print writes the warnings
				   about groups that pool runs differing in
				   other keys; NULL: not checked */
	struct compare_spans *spans; /* compare_print records the changes a
				   terminal may colour; NULL: none */
};

/*
 * The spans of compare_print's text that say a change against the
 * baseline: the "(  6.64%)" of a cell, better (sign 1) or worse (-1);
 * offsets into what compare_print wrote to its stream (ftell).  The
 * caller colours them (numasim compare on a terminal without NO_COLOR)
 * and frees v.  An allocation failure only drops spans.
 */
struct compare_span {
	long off;
	int len, sign;
};
struct compare_spans {
	struct compare_span *v;
	size_t nr, cap;
};

enum {
	COMPARE_ROW_MIN = 1,
	COMPARE_ROW_AMEAN = 2,
	COMPARE_ROW_STDDEV = 4,
	COMPARE_ROW_COEFFVAR = 8,
	COMPARE_ROW_MAX = 16,
	COMPARE_ROW_HMEAN = 32,
	COMPARE_ROW_BAMEAN = 64,  /* BAmean-50, -95, -99 */
	COMPARE_ROW_ALL = 127,
};

struct compare;

int compare_new(const struct compare_opts *o, const char *origin, struct diag *d,
		struct compare **out);
void compare_free(struct compare *c);
/* Add the runs of one database (dbname for messages). */
int compare_load(struct compare *c, sqlite3 *db, const char *dbname);
/* Check, sort and print the table and the t-test block. */
int compare_print(struct compare *c, FILE *f);
/*
 * The same results as records (base/records.h, --format json|csv): table
 * "groups" (key, value, head, kernel_model, baseline), "stats" per metric
 * and group (metric, unit, lower_is_better, group, n, min, amean, hmean,
 * stddev, coeffvar, max, bamean_50/95/99 and each one's change against
 * the baseline as NAME_pct, null where undefined) and "welch" per metric
 * and non-baseline group (metric, group, baseline, alpha, diff = mean -
 * baseline mean, exact, t, df, p, ci_low, ci_high, significant); every
 * row starts with label_key: label_value when label_key is not NULL
 * (compare --by KEY,WITHIN, report's workload).  Seed style and rows
 * select nothing here: every statistic is given.  max_metrics applies.
 */
struct rec_doc;
int compare_records(struct compare *c, struct rec_doc *d, const char *label_key,
		    const char *label_value);
/* 1 when compare_load refused to pool the same run of one plan stored by
 * several invocations (opts.pool 0; the message is in the diag). */
int compare_pool_refused(const struct compare *c);
/* Groups and metrics loaded so far (after compare_load). */
int compare_nr_groups(const struct compare *c);
int compare_nr_metrics(const struct compare *c);

/* The metrics `numasim report` compares for a workload (pagealloc:
 * "alloc-odr*,free-odr*,total-odr*,!*.min"; messaging: "total_time_s"),
 * as globs for compare_metric_selected; NULL (all) for any other. */
const char *compare_report_metrics(const char *workload);
/* 1 when the unit is time-like (lower is better). */
int compare_lower_is_better(const char *unit);
/*
 * The unit as column headers print it (docs/reference/schema.md
 * "Units"): the stored name with '_' as ' ' and "tsc" as "TSC", so
 * "tsc_ticks/op" (the TSC as rdtsc reads it: the pagealloc benchmark's
 * figures) is "TSC ticks/op" and "core_cycles" (the simulated core's
 * clock: the profile, latencies) is "core cycles".  Written to buf
 * (len > 0, truncated to fit); returns buf.
 */
const char *compare_unit_label(const char *unit, char *buf, size_t len);
/* strcmp with digit runs compared as numbers. */
int compare_natural(const char *a, const char *b);
/* Whether name passes a comma-separated glob list ("!" excludes). */
int compare_metric_selected(const char *globs, const char *name);
/* The runs column a key names (1) or a params key (0); for SQL. */
int compare_key_is_column(const char *key);

/*
 * SQL for a run's value of key as text ('~' when missing), over `runs r`:
 * the column, or a params lookup whose key is bound to parameter ?param.
 * sqlite3_mprintf'ed (sqlite3_free it); NULL when out of memory.
 */
char *compare_key_sql(const char *key, int param);

/*
 * The label of a run from what differs (the default grouping of plots,
 * as of compare without --by): SQL over `runs r` giving the variant, then
 * ",LAST=VALUE" for every parameter whose value differs between the 'ok'
 * runs of one variant that pass the where filters (LAST: the key's last
 * dotted component; "~" for a run without it).  Keys are pasted as SQL
 * string literals (sqlite3_mprintf %Q), nothing is bound.  *out is
 * sqlite3_mprintf'ed; NS_EDB, NS_ENOMEM in d.
 */
int compare_label_sql(sqlite3 *db, const char *dbname, const char *const *where, int n,
		      char **out, struct diag *d);

/* NS_OK when key is a runs column or a params key of some run of db;
 * NS_EINPUT with "DB: error: unknown key ..." otherwise. */
int compare_key_check(sqlite3 *db, const char *dbname, const char *key, struct diag *d);

/*
 * The distinct values of key over the 'ok' runs of db, in point and run
 * order, appended to *vals (*n of them; strdup'ed, skipping values
 * already there): the tables of `compare --by KEY,WITHIN`.
 */
int compare_key_values(sqlite3 *db, const char *dbname, const char *key, char ***vals,
		       int *n, struct diag *d);

/*
 * --where filters, KEY=VALUE strings (a runs column or a params key, as
 * for grouping), shared with analysis/plot.h.  compare_where_valid:
 * NS_EINPUT unless each has '=' after a non-empty KEY.  compare_where_check:
 * compare_key_check of each KEY.  compare_where_sql: " AND <value of KEY>
 * = ?V" per filter over `runs r` ("" for none), filter i's key bound to
 * parameter first + 2i and its value to first + 2i + 1 by
 * compare_where_bind (sqlite3_free the text; NULL when out of memory).
 */
int compare_where_valid(const char *const *where, int n, const char *origin, struct diag *d);
int compare_where_check(sqlite3 *db, const char *dbname, const char *const *where, int n,
			struct diag *d);
char *compare_where_sql(const char *const *where, int n, int first);
void compare_where_bind(sqlite3_stmt *st, const char *const *where, int n, int first);

/* Checks internal consistency (tests and debug builds). */
int compare_check(const struct compare *c);

#endif
