/*
 * fill_report — what `numasim run` prints for the fill workload
 * (workloads/wl_fill.h; scenarios/zone-reclaim.yaml): one row per run of
 * the figures the what-if is about, instead of numasim compare's every
 * metric (about 425 lines, the LRU samples of every zone included):
 *
 *     run  machine     zone_reclaim_mode  p50  p99  max  mean  remote  ...
 *
 * the allocation latency of one alloc_pages (p50, p99, max, mean: the
 * metrics alloc_latency_*, core cycles), the share of pages placed on
 * another node (remote_share), the reclaim cycles per allocation on the
 * task's CPU (reclaim_cycles_per_alloc), the page-cache pages reclaimed
 * (reclaimed_prefill), kswapd's steps (kswapd_steps) and the core cycles
 * of a later read of a local and of a remote page (access_cycles_local,
 * access_cycles_remote): the table docs/results/zone-reclaim.md shows.
 * The column after machine is the run's kernel.zone_reclaim_mode.  A
 * closing line names the command that prints every metric.
 *
 * Error policy: NS_EDB with the SQLite message, NS_ENOMEM; nothing is
 * written to f unless the whole table is built.
 */
#ifndef NUMASIM_FILL_REPORT_H
#define NUMASIM_FILL_REPORT_H

#include <stdint.h>
#include <stdio.h>

#include <sqlite3.h>

#include "base/diag.h"

int fill_report_print(sqlite3 *db, const char *dbname, const int64_t *run_ids, int nr_runs,
		      FILE *f, struct diag *d);

#endif
