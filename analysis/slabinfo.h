/*
 * slabinfo — `slabinfo -r CACHE`'s statistics tables (tools/vm/slabinfo.c,
 * slab_stats(): "Slab Perf Counter" with Alloc, Free, %Al and %Fr;
 * "Slab Deactivation"; "Cmpxchg_double Looping") for every stored run of a
 * results database, from the SLUB counters of scope "cache" (the 26
 * CONFIG_SLUB_STATS items under their sysfs names, docs/reference/schema.md), in
 * run order, each run headed by its id, point and variant.  The
 * arithmetic is slabinfo's: integer percentages truncated, %Al against
 * alloc_fastpath + alloc_slowpath, %Fr against free_fastpath +
 * free_slowpath, the deactivation shares against the five deactivation
 * items.  Like slabinfo, the perf table is left out when the cache
 * allocated no slab.  After slabinfo's tables, the model's own where_*
 * counters (models/slub.h SLUB_WHERE_ITEMS: where each slow-path free
 * found its slab), marked as the model's, when the run stored them.
 * `numasim run` of a messaging scenario prints the same tables per point
 * for skbuff_head_cache and kmalloc-512 when the scenario selects a
 * kernel.slub_cpu_partial other than v5.9 (analysis/messaging_report.h).
 *
 * Error policy: NS_ENOENT (message in d) when no run of the database has
 * counters of that cache, naming the caches that have some; NS_EDB on an
 * SQLite error; NS_ENOMEM.  The output goes to f only when the whole
 * report has been built.
 */
#ifndef NUMASIM_SLABINFO_H
#define NUMASIM_SLABINFO_H

#include <stdint.h>
#include <stdio.h>

#include <sqlite3.h>

#include "base/diag.h"

int slabinfo_report(sqlite3 *db, const char *path, const char *cache, FILE *f,
		    struct diag *d);

/* The tables of one run (no heading; nothing when the run stored no
 * counters of the cache): what slabinfo_report prints under each run's
 * heading, for the messaging report's section. */
int slabinfo_print_run(sqlite3 *db, const char *path, int64_t run_id, const char *cache,
		       FILE *f, struct diag *d);

/* Whether a messaging report should print the slabinfo section: some run
 * of run_ids[0..n) was made with kernel.slub_cpu_partial other than v5.9
 * (*out 1), else *out 0. */
int slabinfo_wanted(sqlite3 *db, const int64_t *run_ids, int n, int *out, struct diag *d);

#endif
