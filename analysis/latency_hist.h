/*
 * latency_hist — a log2-bucketed histogram of per-call latency in core
 * cycles, kept by the fill workload (one alloc_pages per allocation) and
 * the replay workload (each replayed allocation and free), stored per run
 * in the metrics table and printed as bcc's funclatency and perf's
 * histograms print theirs (power-of-two buckets, a bar of '*' per bucket
 * scaled to the fullest one).
 *
 * Buckets: bucket k (1 <= k < LATENCY_HIST_NR) counts the calls that
 * took 2^(k-1) to 2^k - 1 core cycles; bucket 1 also counts calls of 0
 * cycles (funclatency's "0 -> 1" row), the last bucket every call of
 * 2^(LATENCY_HIST_NR-2) cycles or more.  Bucket 0 is never used (bcc's
 * slot numbering: k = floor(log2(cycles)) + 1).
 *
 * Stored form (docs/reference/schema.md "metrics"): one metric
 * NAME.lt_2^k (unit `count`) per non-empty bucket, e.g.
 * alloc_latency_hist.lt_1024 = calls of 512..1023 cycles; the counts are
 * not cumulative and sum to the calls measured.  Names of the form
 * `*_hist.lt_*` are left out of the generic metric tables (run, compare,
 * diff, single-run values): LATENCY_HIST_GLOB.
 *
 * Invariants (latency_hist_check): bucket 0 is 0; total = the sum of the
 * buckets.  Error policy: latency_hist_read returns NS_ENOENT (no
 * message) when the run stored no bucket of NAME, NS_EDB with a message;
 * printing never fails (output errors are the caller's).
 */
#ifndef NUMASIM_LATENCY_HIST_H
#define NUMASIM_LATENCY_HIST_H

#include <stdint.h>
#include <stdio.h>

#include <sqlite3.h>

#include "analysis/store.h"
#include "base/diag.h"

#define LATENCY_HIST_NR 64
/* GLOB of the stored bucket metrics, for the tables that leave them out */
#define LATENCY_HIST_GLOB "*_hist.lt_*"

struct latency_hist {
	uint64_t bucket[LATENCY_HIST_NR];
};

/* The histograms the workloads store: metric-name prefix and what a call
 * is (fill: alloc_pages; replay: a page or slab allocation, a free). */
#define LATENCY_HIST_NAMES(X)                    \
	X(alloc_latency_hist, "allocations")     \
	X(free_latency_hist, "frees")

unsigned latency_hist_bucket(uint64_t cycles);
static inline void latency_hist_add(struct latency_hist *h, uint64_t cycles)
{
	h->bucket[latency_hist_bucket(cycles)]++;
}
uint64_t latency_hist_total(const struct latency_hist *h);
int latency_hist_check(const struct latency_hist *h);

/* NAME.lt_2^k = count for each non-empty bucket. */
int latency_hist_store(struct store *st, int64_t run, const char *name,
		       const struct latency_hist *h);
/* The buckets run stored under NAME (zeros elsewhere). */
int latency_hist_read(sqlite3 *db, const char *dbname, int64_t run, const char *name,
		      struct latency_hist *h, struct diag *d);

/* funclatency's table: "     core cycles         : count     distribution",
 * then "LOW -> HIGH : COUNT |****   |" from the first non-empty bucket to
 * the last (40 columns of bar, 20 with 20-digit bounds). */
void latency_hist_print(const struct latency_hist *h, FILE *f);
/* The same rows as an HTML <table>, the bar as a CSS bar. */
void latency_hist_html(const struct latency_hist *h, FILE *f);

#endif
