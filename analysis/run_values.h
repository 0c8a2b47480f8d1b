/*
 * run_values — what `numasim run` prints when its plan is a single run
 * (one point, one repetition): the run's metrics once, one line each, in
 * natural name order, instead of a comparison table of one column whose
 * Min, Amean and Max rows repeat the same numbers with a 0.00 %
 * "difference" to themselves.  A metric NAME with a NAME.min companion
 * (the pagealloc series: the mean of the kept samples and their minimum)
 * is one line with both.
 *
 *     Run 12: adhoc, point 0 (682a3385), repetition 0
 *     metric                         value           min  unit
 *     cycles_per_op                 287.89                cycles/op
 *     alloc-odr0-16                 365.54        365.00  cycles/op
 *
 * Error policy: NS_EDB with the SQLite message (origin "results
 * database"), NS_EINPUT when the run has no metrics, NS_ENOMEM; nothing
 * is written to f unless the whole list is built.
 */
#ifndef NUMASIM_RUN_VALUES_H
#define NUMASIM_RUN_VALUES_H

#include <stdint.h>
#include <stdio.h>

#include <sqlite3.h>

#include "base/diag.h"

int run_values_print(sqlite3 *db, int64_t run_id, FILE *f, struct diag *d);

#endif
