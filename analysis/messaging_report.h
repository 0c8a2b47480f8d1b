/*
 * messaging_report — the report of `perf bench sched messaging` runs
 * (workloads/wl_messaging.h) built from a results database
 * (docs/reference/schema.md), for the second seed's comparison
 * (ten runs per kernel and Welch's t-test; docs/design/slub-model.md
 * §11):
 *
 *  1. per run, perf bench's line "Total time: 0.123 [sec]";
 *  2. the seed-format summary over repetitions, one column per sweep point
 *     (point order, the first is the baseline): max., min., avg., stdev.
 *     (sample standard deviation) of the metric total_time_s;
 *     A point of one run shows its value as max., min. and avg. (no
 *     stdev);
 *  3. Welch's t-test (analysis/stats.h) of every point against the
 *     baseline, and, when every run is of the seed's scenario
 *     (MESSAGING_REPORT_SEED_SCENARIO), the same test of the seed's
 *     published numbers;
 *  4. per point, the SLUB stats of skbuff_head_cache and kmalloc-512 of
 *     the point's first stored run as /sys/kernel/slab/<cache>/<stat>
 *     shows them with CONFIG_SLUB_STATS: the total, then, with
 *     MESSAGING_REPORT_PER_CPU, C<cpu>=<count> for every CPU with a
 *     non-zero count;
 *  4b. when a run selected kernel.slub_cpu_partial other than v5.9, per
 *     point (its first run) the statistics tables `slabinfo -r` prints for
 *     skbuff_head_cache and kmalloc-512 (analysis/slabinfo.h);
 *  5. the per-site branch table of __slab_free (S0..S10, PRE6a, PRE6b,
 *     PRE7, POST6, POST7): executed, taken and mispredicted per point,
 *     summed over the point's runs, and branches per slow-path free.
 *
 * top > 0 limits the long sections to top rows: the SLUB stats of each
 * cache (the top stat items by total, largest first) and the branch-site
 * table (the top sites by executions summed over every point, in the
 * reference's order; the "all" and "/slow" rows still sum every site).
 * Each cut section says how many rows it left out.  top <= 0 prints
 * everything (what `numasim run` prints).
 *
 * Error policy: NS_ENOENT when the runs have no total_time_s metric
 * (not messaging runs), NS_EDB on an SQLite error, NS_ENOMEM; the message
 * goes to d.  Output is written to f only when the whole report has been
 * built.
 */
#ifndef NUMASIM_MSGREPORT_H
#define NUMASIM_MSGREPORT_H

#include <stdint.h>
#include <stdio.h>

#include <sqlite3.h>

#include "base/diag.h"

/* The seed's published figures (10 runs each, seconds). */
#define MESSAGING_REPORT_SEED_N 10
#define MESSAGING_REPORT_SEED_PRE_AVG 189.154
#define MESSAGING_REPORT_SEED_PRE_SD 1.37
#define MESSAGING_REPORT_SEED_POST_AVG 188.086
#define MESSAGING_REPORT_SEED_POST_SD 0.99

/* The scenario whose runs the seed's published numbers belong to: the
 * Welch line of those numbers is printed only when every run is of it. */
#define MESSAGING_REPORT_SEED_SCENARIO "seed-slub"

/* flags: the per-CPU counts C<cpu>=<count> after each SLUB stat's total
 * (run and report --per-cpu; without it the totals only). */
#define MESSAGING_REPORT_PER_CPU 1u

int messaging_report_print(sqlite3 *db, const int64_t *run_ids, int nr_runs, long long top,
			   unsigned flags, FILE *f, struct diag *d);

#endif
