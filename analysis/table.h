/*
 * table — mmtests-style comparison tables built from a results database
 * (docs/reference/schema.md), the format of the seed's commit message
 * (docs/results/seed-zonelist.md, mmtests bin/lib/MMTests/Compare.pm):
 *
 *                                          v4.6+patches1-4   v4.6+patches1-4+682a3385
 *                                             pre-682a3385                   682a3385
 *     Min      alloc-odr0-1               412.00 (  0.00%)           382.00 (  7.28%)
 *
 * Layout as Compare.pm prints it: the statistic left-aligned in 8 columns,
 * a space, the operation left-aligned to the longest operation name, then
 * per column the value as %17.2f and the comparison as " (%6.2f%%)"; the
 * two header lines are right-aligned over the columns (the kernel model,
 * then the variant).  Columns are the sweep points of the given runs in
 * point order (the first is the baseline); repetitions of a point are
 * pooled.  The comparison is mmtests' pndiff for time data: (base - x) /
 * base * 100, so positive means fewer cycles than the baseline.  A table
 * of one column (one point) has no comparison: its values only.
 *
 * The values come from the `samples` table (series named OP-odrORDER-BATCH
 * with OP alloc, free or total): Min is the minimum over the kept samples,
 * Amean their arithmetic mean.  Rows: per statistic, alloc, then free,
 * then total, each by order and batch size.
 *
 * Error policy: NS_ENOENT when the runs have no such series (nothing to
 * print), NS_EDB on an SQLite error, NS_ENOMEM; the message goes to d as
 * "DB: error: ...".  Output is written to f only when the whole table has
 * been computed.
 */
#ifndef NUMASIM_TABLE_H
#define NUMASIM_TABLE_H

#include <stdint.h>
#include <stdio.h>

#include <sqlite3.h>

#include "base/diag.h"

enum table_stat {
	TABLE_MIN = 1,
	TABLE_AMEAN = 2,
};

/* Widths from mmtests Compare.pm for the pagealloc report. */
#define TABLE_STAT_WIDTH 8
#define TABLE_FIELD_WIDTH 17
/* The unit the table's header names (compare_unit_label of the series'
 * stored unit, tsc_ticks/op). */
#define TABLE_UNIT_LABEL "TSC ticks/op"
#define TABLE_COMPARE_WIDTH 6

/*
 * Second header line of variant columns: when every variant is
 * "k=v[,k=v...]" with the same keys, heads[i] is the values joined by ","
 * (zonelist_iter=682a3385 -> 682a3385); otherwise the whole variant.
 * Heads are cut at TABLE_HEAD_MAX - 1 characters.
 */
#define TABLE_HEAD_MAX 256
void table_variant_heads(const char *const *variants, int n,
			 char (*heads)[TABLE_HEAD_MAX]);

int table_pagealloc(sqlite3 *db, const int64_t *run_ids, int nr_runs,
		    unsigned stats, FILE *f, struct diag *d);
/* The same with at most top series per statistic (0: all) and a line
 * saying how many were left out (numasim report --top). */
int table_pagealloc_top(sqlite3 *db, const int64_t *run_ids, int nr_runs,
			unsigned stats, int top, FILE *f, struct diag *d);

#endif
