/*
 * shuffle — page_alloc.shuffle=1: the randomised initial free lists of
 * mm/shuffle.c (v5.2, commit e900a918b098 "mm: shuffle initial free
 * memory to improve memory-side-cache utilization";
 * CONFIG_SHUFFLE_PAGE_ALLOCATOR), the model of the noise source
 * `noise.page_placement` (cost/noise.h, docs/design/statistics.md).
 *
 * What it models: shuffle_free_memory() as boot calls it once every page
 * is free: for each zone, __shuffle_zone() walks the zone's pfns in steps
 * of 2^SHUFFLE_ORDER pages (SHUFFLE_ORDER = MAX_ORDER - 1 = 10 in v5.2);
 * for each pfn i whose page is free at that order (shuffle_valid_page():
 * PageBuddy and page_order == SHUFFLE_ORDER) it draws a random
 * order-aligned pfn j of the zone's span, retrying up to SHUFFLE_RETRY
 * (10) times while j is not such a page or is i itself, and, when both
 * pageblocks have the same migratetype, swaps the two pages' places on
 * the free list (list_swap()).  The random words come from the run's
 * seed (NOISE_STREAM_SHUFFLE) instead of get_random_long().
 *
 * Left out: add_to_free_area_random() (v5.2's "mm: maintain randomization
 * of page free lists": a freed page of order >= SHUFFLE_ORDER goes to the
 * head or the tail of its list at random), which would add a draw to the
 * free path's hot code; the model keeps only the boot-time order.  v4.6,
 * the modelled kernel, has neither: the source is what a later kernel, or
 * a machine that has run for a while, does to the order pages are handed
 * out in.  The shuffle is not charged (boot time).
 *
 * Invariants: the free lists hold the same pages before and after, each
 * on the list of its order and migratetype (mm_check()).
 *
 * Error policy: NS_ENOMEM when the rng stream cannot be allocated (the
 * lists are then untouched); NS_EINTERNAL for a world without a memmap
 * (mm_world_validate's).
 */
#ifndef NUMASIM_SHUFFLE_H
#define NUMASIM_SHUFFLE_H

#include <stdint.h>

struct mm_world;

#define SHUFFLE_RETRY 10

/* Shuffle every zone's order-(MAX_ORDER-1) free list of w with the run
 * seed's stream NOISE_STREAM_SHUFFLE; *swaps (may be NULL) gets the
 * number of swaps made. */
int shuffle_free_memory(struct mm_world *w, uint64_t run_seed, uint64_t *swaps);

#endif
