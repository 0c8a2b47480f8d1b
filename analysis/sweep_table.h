/*
 * sweep_table — the per-point summary `numasim run` prints for a pagealloc
 * sweep with many points: one row per sweep point (in plan order) naming
 * the point's axis values, and one column per allocation series with its
 * minimum over the point's runs (mmtests' Min row of the seed's table,
 * cycles per page).  The seed's own wide layout (one column per point,
 * analysis/table.h) is unreadable past a handful of points: a 60-point
 * machine x cpuset x variant sweep would be 60 columns wide.
 *
 * Axis values are read back from the runs' params, so the table shows
 * what was stored; the `machine` axis shows `machine.name` (the path is in
 * the params).  Series are the `alloc-odrO-N.min` metrics present in the
 * runs, sorted by order and batch.
 *
 * Error policy: NS_EDB with the SQLite message (origin "results
 * database"), NS_EINPUT when the runs have no allocation series,
 * NS_ENOMEM; nothing is written to f unless the whole table is built.
 */
#ifndef NUMASIM_POINTTAB_H
#define NUMASIM_POINTTAB_H

#include <stdint.h>
#include <stdio.h>

#include <sqlite3.h>

#include "base/diag.h"

int sweep_table_print(sqlite3 *db, const int64_t *run_ids, int nr_runs,
		   const char *const *axes, int nr_axes, FILE *f, struct diag *d);

#endif
