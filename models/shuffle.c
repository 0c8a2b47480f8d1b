/*
 * shuffle — mm/shuffle.c's boot-time shuffle of the free lists; see
 * shuffle.h.
 */
#include "models/shuffle.h"

#include "cost/noise.h"
#include "models/mm_internal.h"
#include "sim/rng.h"

#define SHUFFLE_ORDER (MAX_ORDER - 1)

/* The struct page of block bi when it is free at SHUFFLE_ORDER, else NULL
 * (every block of a zone is in its memmap and present: only the buddy
 * state and the order are asked). */
static struct page *shuffle_valid_page(struct mm_world *w, uint32_t bi, int order)
{
	struct pfn_block *b = &w->blocks[bi];
	if (b->detail || b->head.state != PS_BUDDY)
		return NULL;
	if (b->head.order != order)
		return NULL;
	return &b->head;
}

/* include/linux/list.h list_swap(): entry1 takes entry2's place and
 * entry2 entry1's. */
static void list_swap(struct page *entry1, struct page *entry2)
{
	struct page *pos = entry2->prev;
	list_del(entry2);
	/* list_replace(entry1, entry2) */
	entry2->next = entry1->next;
	entry2->next->prev = entry2;
	entry2->prev = entry1->prev;
	entry2->prev->next = entry2;
	if (pos == entry1)
		pos = entry2;
	list_add(entry1, pos);
}

static uint64_t __shuffle_zone(struct mm_world *w, struct zone *z, struct rng *r)
{
	const int order = SHUFFLE_ORDER;
	uint64_t swaps = 0;
	/* the zone's span in MAX_ORDER blocks: its pfns start block-aligned */
	for (uint32_t i = 0; i < z->nr_blocks; i++) {
		struct page *page_i = shuffle_valid_page(w, z->first_block + i, order), *page_j;
		uint32_t j = 0;
		int retry;
		if (!page_i)
			continue;
		for (retry = 0; retry < SHUFFLE_RETRY; retry++) {
			/* get_random_long() % spanned_pages, order-aligned */
			j = rng_uniform_int(r, z->nr_blocks);
			page_j = shuffle_valid_page(w, z->first_block + j, order);
			if (page_j && page_j != page_i)
				break;
		}
		if (retry >= SHUFFLE_RETRY)
			continue;
		/* get_pageblock_migratetype() of both must match */
		if (w->blocks[z->first_block + i].pb_mt[0] != w->blocks[z->first_block + j].pb_mt[0])
			continue;
		list_swap(page_i, page_j);
		swaps++;
	}
	return swaps;
}

int shuffle_free_memory(struct mm_world *w, uint64_t run_seed, uint64_t *swaps)
{
	struct rng r;
	uint64_t n = 0;
	int rc;
	if (!w->blocks)
		return NS_EINTERNAL;
	if ((rc = rng_init(&r, run_seed, NOISE_STREAM_SHUFFLE)))
		return rc;
	/* __shuffle_free_memory(): every zone of every node */
	for (int z = 0; z < w->nr_zones; z++)
		n += __shuffle_zone(w, &w->zones[z], &r);
	rng_fini(&r);
	if (swaps)
		*swaps = n;
	return NS_OK;
}
