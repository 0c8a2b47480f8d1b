/*
 * ktrace_stat — the summary of a recorded kmem trace in the manner of
 * `perf kmem stat --slab --page` (tools/perf/builtin-kmem.c): events read
 * by kind, slab allocations by call site, page allocations by order and
 * migrate type and by GFP flags, and the totals, with frees matched to
 * the allocations of the same pointer or pfn and a free on another CPU
 * than the allocation's counted as "pingpong" (perf kmem's Ping-pong).
 *
 * What it models: perf kmem's bookkeeping, not the kernel.  Differences,
 * kept on purpose: call sites are the trace's text (symbol+offset, or the
 * address of 4.x formats; perf resolves addresses itself); page events
 * have no call site in the formats, so pages are summarised by order,
 * migrate type and GFP flags only; a free whose allocation the trace
 * does not hold is "free-only" (perf: the same); internal page events
 * (mm_page_alloc_zone_locked, mm_page_pcpu_drain) are counted as the
 * recorded kernel's own path (refills and buddy removals, drains).
 *
 * Invariants (ktrace_stat_check()): rows sorted by bytes allocated, then
 * allocations, then call-site text; per row and in total allocs =
 * alloc_freed + alloc_only + failed; pingpong <= alloc_freed.
 *
 * Error policy: NS_ENOMEM; nothing else fails.
 */
#ifndef NUMASIM_KTRACE_STAT_H
#define NUMASIM_KTRACE_STAT_H

#include <stdint.h>
#include <stdio.h>

#include "workloads/ktrace.h"

struct ktrace_site_row {
	uint32_t call_site;             /* string index */
	uint64_t allocs, failed, frees; /* frees: matched to its allocations */
	uint64_t bytes_req, bytes_alloc;
	uint64_t pingpong;              /* matched frees on another CPU */
};

#define KT_STAT_MT 6                  /* migrate types 0..5; 6: other/-1 */
struct ktrace_stat {
	/* slab */
	struct ktrace_site_row *site;
	size_t nr_site;
	uint64_t slab_allocs, slab_failed, slab_frees, slab_free_only;
	uint64_t slab_alloc_freed, slab_alloc_only, slab_pingpong;
	uint64_t bytes_req, bytes_alloc, bytes_freed;
	/* page */
	uint64_t page_allocs, page_failed, page_frees, page_free_only;
	uint64_t page_alloc_freed, page_alloc_only, page_pingpong;
	uint64_t slab_pages, slab_page_frees;   /* KT_F_SLAB_PAGE events */
	uint64_t by_order_mt[KT_MAX_ORDER][KT_STAT_MT + 1];  /* requests */
	uint32_t *gfp;                  /* string index of each GFP row */
	uint64_t *gfp_requests, *gfp_pages;
	size_t nr_gfp;
	uint64_t zone_locked, zone_locked_refill, pcpu_drain;
};

int ktrace_stat_compute(const struct ktrace *t, struct ktrace_stat *s);
void ktrace_stat_free(struct ktrace_stat *s);
/* The counts by kind and the summary; top: call-site rows shown (0: all). */
void ktrace_stat_print(const struct ktrace *t, const struct ktrace_stat *s, size_t top,
		       FILE *f);
int ktrace_stat_check(const struct ktrace_stat *s, struct diag *d);

#endif
