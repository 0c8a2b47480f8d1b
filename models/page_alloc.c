/*
 * page_alloc — mm/page_alloc.c of Linux v4.6-rc2 through the 2016 series
 * "Optimise page alloc/free fast paths" (v3 01-28, v4.7-rc1), around
 * commit 682a3385 ("mm, page_alloc: inline the fast path of the zonelist
 * iterator", v3 05): PRE = v4.6 + series patches 1-4, POST = PRE +
 * 682a3385.  See page_alloc.h (the public contract),
 * docs/design/pagealloc-model.md and docs/design/series-2016.md.
 *
 * What it models: the buddy allocator under zone->lock (expand,
 * __rmqueue_smallest, __rmqueue_fallback with find_suitable_fallback,
 * steal_suitable_fallback and move_freepages_block, __rmqueue,
 * page_is_buddy, __free_one_page), the per-cpu lists (rmqueue_bulk,
 * free_pcppages_bulk), the allocation path (buffered_rmqueue,
 * check_new_page, prep_new_page, reset_alloc_batches, zone_watermark_ok,
 * get_page_from_freelist, a documented __alloc_pages_slowpath,
 * __alloc_pages_nodemask), the free path (__free_pages,
 * free_hot_cold_page, free_pages_prepare, free_pages_check, free_one_page,
 * __free_pages_ok, drain_local_pages), get_pfnblock_flags_mask and the
 * entries mm_alloc_pages()/mm_free_pages().  This is the hot half, the
 * kernel functions only; the cold half (the registration in the cost
 * tables and the code layouts, introspection, the gfp parser and the
 * invariant check) is mm_info.c, and the set-up sizes (zone_batchsize,
 * init_per_zone_wmark_min, __setup_per_zone_wmarks,
 * setup_per_zone_lowmem_reserve; set_recommended_min_free_kbytes of
 * mm/huge_memory.c) are in mm_init.c.  The rest of the model is in files
 * named after the kernel's: mmzone.c (zonelist iterator), mempolicy.c
 * (alloc_pages_current), cpuset.c, vmstat.c (counters, zone_statistics);
 * mm_internal.h is what they share.  The hot files are also compiled as
 * the fast copies of sampled accounting (models/mm_copy.c, cost/copy.h).
 * The one instrumentation, numasim trace, is a hook in the entries
 * (trace_page()), outside the kernel functions.
 *
 * Kernels.  The world's kernel is a commit of the 2016 series
 * (mm_config.commit, models/kcommit.h): v4.6-rc2 plus the v3 patches up to
 * it.  Each spot a patch changes tests mm_applied(w, KC_v3_NN), one test
 * per changed spot, before and after side by side (docs/design/series-2016.md).
 * The oldest such switch, 682a3385 (v3 05), is also the zonelist_iter
 * variant (PRE = v3 04, POST = v3 05).
 *
 * Variants.  The only differences between PRE and POST are those of the
 * diff: the iterator (out-of-line next_zones_zonelist vs inline wrapper +
 * __next_zones_zonelist), __alloc_pages_nodemask's flags and nodemask
 * (ALLOC_CPUSET and ac.nodemask = &mems_allowed only with cpusets in POST;
 * PRE passes mems_allowed to the preferred-zone lookup), and the slowpath's
 * PRE-only preferred-zone recomputation.
 *
 * Invariants (mm_check): per zone, free pages in the buddy + pages on pcp
 * lists + allocated pages = managed pages; free lists well-formed, no two
 * free buddies of one order left unmerged; pcp counts match their lists;
 * NR_FREE_PAGES matches the buddy; every block with per-page metadata is
 * in use or pooled.  Error policy: a failing simulated allocation is not
 * an error (NULL, counted as alloc_fail); mm_check returns NS_EINTERNAL
 * with a diag message when an invariant is broken (a model bug).
 */
#include "models/mm_internal.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* --- list operations with their memory traffic ------------------------ */

/*
 * list_add / list_add_tail / list_del (<linux/list.h>, !DEBUG_LIST) with
 * their memory traffic (head_node: home of the head).  list_add(new, head)
 * loads head->next (head->prev for the tail) and stores next->prev,
 * new->next, new->prev, head->next; list_del(entry) loads entry->prev and
 * entry->next, stores next->prev and prev->next, and poisons entry's two
 * pointers.  The loads feed only store addresses, and stores never stall
 * (cpu.h), so they are CPU_LOAD: their latency is off the critical path
 * unless they miss.  A caller that then tests the node's fields charges
 * that load itself.
 */
static void c_list_add(struct cpu *c, const struct mm_world *w, struct page *n,
		       struct page *h, int head_node, bool tail)
{
	struct page *nb = tail ? h->prev : h->next;
	mem_node(c, w, h, head_node, CPU_LOAD);
	if (nb != h)
		mem_node(c, w, nb, head_node, CPU_STORE);
	mem_node(c, w, n, head_node, CPU_STORE);
	mem_node(c, w, h, head_node, CPU_STORE);
	if (tail)
		list_add_tail(n, h);
	else
		list_add(n, h);
}

static void c_list_del(struct cpu *c, const struct mm_world *w, struct page *p,
		       int head_node)
{
	mem_node(c, w, p, head_node, CPU_LOAD);
	mem_node(c, w, p->next, head_node, CPU_STORE);
	if (p->prev != p->next)
		mem_node(c, w, p->prev, head_node, CPU_STORE);
	mem_node(c, w, p, head_node, CPU_STORE);
	list_del(p);
}

/* the page checks (below), used by the pcp refill and drain from v3 27/28 */
static int check_new_page(struct cpu *c, struct mm_world *w, const struct pfn_block *b,
			  unsigned off);
static bool free_pages_check(struct cpu *c, struct mm_world *w, const struct pfn_block *b,
			     unsigned off);

/* --- pageblock migratetypes -------------------------------------------- */

static inline int pb_get(const struct mm_world *w, const struct page *p)
{
	return w->blocks[p->block].pb_mt[p->off >> PAGEBLOCK_ORDER];
}

static inline void pb_set(struct mm_world *w, const struct page *p, int mt)
{
	w->blocks[p->block].pb_mt[p->off >> PAGEBLOCK_ORDER] = (uint8_t)mt;
}

/* get_pfnblock_flags_mask(): out of line in v4.6; reads one word of the
 * zone's usemap (4 bits per pageblock). */
static int get_pfnblock_migratetype(struct cpu *c, const struct mm_world *w,
				    const struct page *p)
{
	const struct zone *z = page_zone(w, p);
	uint64_t pb = (page_pfn(w, p) - z->start_pfn) >> PAGEBLOCK_ORDER;
	call(c, w, FN_get_pfnblock_flags_mask);
	run_block(c, w, B_pfnblock);
	bmem(c, w, z->usemap + (pb * 4 / 64) * 8, z->node, CPU_LOAD_DEP);
	ret(c);
	return pb_get(w, p);
}

/* --- buddy allocator (zone->lock held) ---------------------------------- */

/* expand(): hand the upper halves back, at the head of the lists. */
static void expand(struct cpu *c, struct mm_world *w, struct zone *z, struct page *page,
		   int low, int high, int mt)
{
	struct pfn_block *b = page_block(w, page);
	call(c, w, FN_expand);
	unsigned size = 1u << high;
	while (br(c, w, S_expand_loop, high > low)) {
		run_block(c, w, B_expand_step);
		high--;
		size >>= 1;
		struct page *half = &b->detail[page->off + size];
		c_list_add(c, w, half, &z->free_area[high].list[mt], z->node, false);
		bmem(c, w, zaddr_nr_free(z, high), z->node, CPU_STORE);
		z->free_area[high].nr_free++;
		set_page_order(half, high);
	}
	ret(c);
}

/* Unlink the head block of a free list at order o: returns its page, with
 * the block split into per-page metadata when a smaller order is wanted. */
static struct page *take_free_block(struct cpu *c, struct mm_world *w, struct zone *z,
				       struct page *head, int o, int order, bool declared)
{
	struct page *page = head->next;
	c_list_del(c, w, page, z->node);
	rmv_page_order(page);
	/* declared: the nr_free store of block smallest_take */
	charge_mem(c, &w->ch, zaddr_nr_free(z, o), 8, z->node, CPU_STORE, declared, MM_CHARGE);
	z->free_area[o].nr_free--;
	if (o == BLOCK_ORDER && order < BLOCK_ORDER && !page_block(w, page)->detail)
		page = block_split(w, page_block(w, page));
	return page;
}

static struct page *__rmqueue_smallest(struct cpu *c, struct mm_world *w, struct zone *z,
					  int order, int mt)
{
	call(c, w, FN___rmqueue_smallest);
	struct page *page = NULL;
	for (int o = order; br(c, w, S_smallest_loop, o < MAX_ORDER); o++) {
		run_block(c, w, B_smallest_probe);
		struct page *head = &z->free_area[o].list[mt];
		bmem(c, w, head->addr, z->node, CPU_LOAD_DEP);
		if (br(c, w, S_smallest_empty, list_empty(head)))
			continue;
		run_block(c, w, B_smallest_take);
		page = take_free_block(c, w, z, head, o, order, true);
		expand(c, w, z, page, order, o, mt);
		page->mt = (uint8_t)mt;
		break;
	}
	ret(c);
	return page;
}

/* move_freepages_block(): every free block starting in page's pageblock
 * goes to mt's lists; returns the pages moved. */
static int move_freepages_block(struct cpu *c, struct mm_world *w, struct zone *z,
				struct page *page, int mt)
{
	struct pfn_block *b = page_block(w, page);
	call(c, w, FN_move_freepages_block);
	unsigned start = page->off & ~(PAGEBLOCK_PAGES - 1);
	unsigned end = start + PAGEBLOCK_PAGES;
	int moved = 0;
	if (end > b->npages) {         /* !zone_spans_pfn(zone, end_pfn) */
		ret(c);
		return 0;
	}
	for (unsigned off = start; br(c, w, S_move_freepages_loop, off < end);) {
		run_block(c, w, B_move_freepages_page);
		struct page *p = block_page(b, b->detail ? off : 0);
		bmem_page(c, w, p, CPU_LOAD_DEP);
		if (br(c, w, S_move_freepages_buddy, p->state != PS_BUDDY)) {
			off++;
			if (!b->detail)
				break;     /* no detail: only the head exists */
			continue;
		}
		int o = p->order;
		c_list_del(c, w, p, z->node);
		c_list_add(c, w, p, &z->free_area[o].list[mt], z->node, false);
		off += 1u << o;
		moved += 1 << o;
	}
	ret(c);
	return moved;
}

static bool can_steal_fallback(struct cpu *c, const struct mm_world *w, int order, int start_mt)
{
	if (br(c, w, S_suitable_steal_pb, order >= PAGEBLOCK_ORDER))
		return true;
	return br(c, w, S_suitable_steal_rest,
		  order >= PAGEBLOCK_ORDER / 2 || start_mt == MT_RECLAIMABLE ||
			  start_mt == MT_UNMOVABLE || w->mobility_disabled);
}

static const int fallbacks[MT_PCPTYPES][2] = {
	[MT_UNMOVABLE] = {MT_RECLAIMABLE, MT_MOVABLE},
	[MT_MOVABLE] = {MT_RECLAIMABLE, MT_UNMOVABLE},
	[MT_RECLAIMABLE] = {MT_UNMOVABLE, MT_MOVABLE},
};

static int find_suitable_fallback(struct cpu *c, const struct mm_world *w, struct zone *z,
				  int o, int mt, bool *can_steal)
{
	call(c, w, FN_find_suitable_fallback);
	int fallback_mt = -1;
	mem(c, w, zaddr_nr_free(z, o), z->node, CPU_LOAD_DEP);
	if (br(c, w, S_suitable_nr_free, z->free_area[o].nr_free == 0))
		goto out;
	*can_steal = false;
	for (int i = 0;; i++) {
		if (br(c, w, S_suitable_end, mt >= MT_PCPTYPES || i == 2))
			break;
		int f = fallbacks[mt][i];
		mem(c, w, zaddr_free_list(z, o, f), z->node, CPU_LOAD_DEP);
		if (br(c, w, S_suitable_empty, list_empty(&z->free_area[o].list[f])))
			continue;
		if (can_steal_fallback(c, w, o, mt))
			*can_steal = true;
		br(c, w, S_suitable_only_stealable, true);
		fallback_mt = f;
		break;
	}
out:
	ret(c);
	return fallback_mt;
}

static void steal_suitable_fallback(struct cpu *c, struct mm_world *w, struct zone *z,
				    struct page *page, int start_mt)
{
	call(c, w, FN_steal_suitable_fallback);
	run_block(c, w, B_steal);
	int o = page->order;
	if (br(c, w, S_steal_order_pb, o >= PAGEBLOCK_ORDER)) {
		/* change_pageblock_range() */
		struct pfn_block *b = page_block(w, page);
		for (unsigned pb = 0; pb < (1u << (o - PAGEBLOCK_ORDER)); pb++) {
			unsigned idx = (page->off >> PAGEBLOCK_ORDER) + pb;
			uint64_t pbn = (b->pfn + ((uint64_t)idx << PAGEBLOCK_ORDER) - z->start_pfn) >>
				       PAGEBLOCK_ORDER;
			mem(c, w, z->usemap + (pbn * 4 / 64) * 8, z->node, CPU_STORE);
			b->pb_mt[idx] = (uint8_t)start_mt;
			z->ev[EV_steal_pageblock]++;
		}
		ret(c);
		return;
	}
	int pages = move_freepages_block(c, w, z, page, start_mt);
	if (br(c, w, S_steal_pages, pages >= (1 << (PAGEBLOCK_ORDER - 1)) || w->mobility_disabled)) {
		pb_set(w, page, start_mt);
		z->ev[EV_steal_pageblock]++;
	}
	ret(c);
}

/* __rmqueue_fallback: the largest block of a fallback type, stolen. */
static struct page *__rmqueue_fallback(struct cpu *c, struct mm_world *w, struct zone *z,
					  int order, int start_mt)
{
	call(c, w, FN___rmqueue_fallback);
	struct page *page = NULL;
	for (int o = MAX_ORDER - 1; br(c, w, S_fallback_loop, o >= order); o--) {
		bool can_steal = false;
		run_block(c, w, B_fallback_probe);
		int f = find_suitable_fallback(c, w, z, o, start_mt, &can_steal);
		if (br(c, w, S_fallback_none, f == -1))
			continue;
		struct page *head = &z->free_area[o].list[f];
		/* the kernel takes list_first_entry() before stealing and
		 * list_del()s that page wherever move_freepages_block() put
		 * it: its predecessor now links to it */
		struct page *first = head->next;
		if (br(c, w, S_fallback_can_steal, can_steal))
			steal_suitable_fallback(c, w, z, first, start_mt);
		page = take_free_block(c, w, z, first->prev, o, order, false);
		expand(c, w, z, page, order, o, start_mt);
		page->mt = (uint8_t)start_mt;
		z->ev[EV_fallback]++;
		break;
	}
	ret(c);
	return page;
}

static struct page *__rmqueue(struct cpu *c, struct mm_world *w, struct zone *z,
				 int order, int mt)
{
	call(c, w, FN___rmqueue);
	run_block(c, w, B_rmqueue);
	struct page *page = __rmqueue_smallest(c, w, z, order, mt);
	if (br(c, w, S_rmqueue_nopage, page == NULL)) {
		/* CONFIG_CMA: __rmqueue_cma_fallback, an empty CMA list here */
		if (br(c, w, S_rmqueue_movable, mt == MT_MOVABLE))
			page = __rmqueue_smallest(c, w, z, order, MT_CMA);
		if (br(c, w, S_rmqueue_fallback, page == NULL))
			page = __rmqueue_fallback(c, w, z, order, mt);
	}
	ret(c);
	return page;
}

/* page_is_buddy(page, buddy, order) with the buddy at block offset boff
 * (beyond the zone: not a buddy, pfn_valid_within/page_zone_id). */
static bool page_is_buddy(struct cpu *c, const struct mm_world *w, struct pfn_block *b,
			  unsigned boff, int order, struct page **out)
{
	if (boff >= b->npages) {
		br(c, w, S_page_is_buddy_flag, false);
		return false;
	}
	struct page *buddy = block_page(b, boff);
	mem_page(c, w, buddy, CPU_LOAD_DEP);
	*out = buddy;
	if (br(c, w, S_page_is_buddy_flag, buddy->state == PS_BUDDY) &&
	    br(c, w, S_page_is_buddy_order, buddy->order == order)) {
		br(c, w, S_page_is_buddy_zone, false);
		return true;
	}
	return false;
}

static void __free_one_page(struct cpu *c, struct mm_world *w, struct page *page,
			    struct zone *z, int order, int mt)
{
	struct pfn_block *b = page_block(w, page);
	call(c, w, FN___free_one_page);
	run_block(c, w, B_free_one_entry);
	int max_order = MAX_ORDER < PAGEBLOCK_ORDER + 1 ? MAX_ORDER : PAGEBLOCK_ORDER + 1;
	if (br(c, w, S_free_one_isolate, mt != MT_ISOLATE))
		__mod_zone_page_state(c, w, z, NR_FREE_PAGES, 1 << order);
	unsigned idx = page->off;     /* pfn & (MAX_ORDER_NR_PAGES - 1) */
	unsigned bidx = idx;
	struct page *buddy = NULL;
	for (;;) {
		bool done = false;
		while (br(c, w, S_free_one_merge, order < max_order - 1)) {
			run_block(c, w, B_free_one_merge);
			bidx = idx ^ (1u << order);
			if (br(c, w, S_free_one_not_buddy,
			       !page_is_buddy(c, w, b, bidx, order, &buddy))) {
				done = true;
				break;
			}
			c_list_del(c, w, buddy, z->node);
			mem(c, w, zaddr_nr_free(z, order), z->node, CPU_STORE);
			z->free_area[order].nr_free--;
			rmv_page_order(buddy);
			idx &= bidx;
			page = &b->detail[idx];
			order++;
		}
		if (done || !br(c, w, S_free_one_max_order, max_order < MAX_ORDER))
			break;
		br(c, w, S_free_one_has_isolate, z->has_isolate_pageblock);
		max_order++;
	}
	run_block(c, w, B_free_one_done);
	if (order == BLOCK_ORDER && b->detail)
		page = block_unsplit(w, b);
	bmem_page(c, w, page, CPU_STORE);
	set_page_order(page, order);
	page->mt = (uint8_t)mt;
	bool tail = false;
	if (br(c, w, S_free_one_tail_order, order < MAX_ORDER - 2) && b->detail) {
		unsigned combined = bidx & idx;
		unsigned hbuddy = combined ^ (1u << (order + 1));
		struct page *hb = NULL;
		tail = br(c, w, S_free_one_tail_buddy,
			  page_is_buddy(c, w, b, hbuddy, order + 1, &hb));
	}
	c_list_add(c, w, page, &z->free_area[order].list[mt], z->node, tail);
	mem(c, w, zaddr_nr_free(z, order), z->node, CPU_STORE);
	z->free_area[order].nr_free++;
	ret(c);
}

/* --- per-cpu lists ------------------------------------------------------ */

static int rmqueue_bulk(struct cpu *c, struct mm_world *w, struct zone *z, int order,
			int count, struct page *list, int mt, bool cold)
{
	call(c, w, FN_rmqueue_bulk);
	run_block(c, w, B_rmqueue_bulk);
	cpu_lock(c, &z->lock);
	int i;
	struct page *pos = list;
	for (i = 0; br(c, w, S_rmqueue_bulk_loop, i < count); ++i) {
		run_block(c, w, B_rmqueue_bulk_page);
		struct page *page = __rmqueue(c, w, z, order, mt);
		if (br(c, w, S_rmqueue_bulk_null, page == NULL))
			break;
		/* v3 28: check_pcp_refill(page) = check_new_page(page) */
		if (mm_applied(w, KC_v3_28) &&
		    sbr(c, w, SS_rmqueue_bulk_bad,
		       check_new_page(c, w, page_block(w, page), page->off) != 0))
			continue;
		c_list_add(c, w, page, pos, c->node, !br(c, w, S_rmqueue_bulk_cold, !cold));
		pos = page;
		page->state = PS_PCP;
		page->pcp_cpu = (int16_t)c->idx;
		br(c, w, S_rmqueue_bulk_cma, page->mt == MT_CMA);
	}
	__mod_zone_page_state(c, w, z, NR_FREE_PAGES, -(int64_t)(i << order));
	cpu_unlock(c, &z->lock);
	z->ev[EV_pcp_refill]++;
	z->ev[EV_pcp_refill_pages] += (uint64_t)i;
	ret(c);
	return i;
}

static void free_pcppages_bulk(struct cpu *c, struct mm_world *w, struct zone *z, int count,
			       struct per_cpu_pages *pcp)
{
	call(c, w, FN_free_pcppages_bulk);
	run_block(c, w, B_pcpbulk);
	int mt = 0, batch_free = 0, to_free = count;
	cpu_lock(c, &z->lock);
	mem(c, w, zaddr_stat(z, NR_PAGES_SCANNED), z->node, CPU_LOAD_DEP);
	int64_t scanned = zone_page_state(z, NR_PAGES_SCANNED);
	if (br(c, w, S_pcpbulk_nr_scanned, scanned != 0))
		__mod_zone_page_state(c, w, z, NR_PAGES_SCANNED, -scanned);
	while (br(c, w, S_pcpbulk_to_free, to_free != 0)) {
		struct page *list;
		do {
			run_block(c, w, B_pcpbulk_search);
			batch_free++;
			if (br(c, w, S_pcpbulk_wrap, ++mt == MT_PCPTYPES))
				mt = 0;
			list = &pcp->lists[mt];
			mem(c, w, list->addr, c->node, CPU_LOAD_DEP);
		} while (br(c, w, S_pcpbulk_empty, list_empty(list)));
		if (br(c, w, S_pcpbulk_only_one, batch_free == MT_PCPTYPES))
			batch_free = to_free;
		for (;;) {
			run_block(c, w, B_pcpbulk_page);
			struct page *page = list->prev;
			c_list_del(c, w, page, c->node);
			/* mt = get_pcppage_migratetype(page) selects the free list */
			bmem_page(c, w, page, CPU_LOAD_DEP);
			page->state = PS_NONE;
			page->pcp_cpu = -1;
			int pmt = page->mt;
			if (br(c, w, S_pcpbulk_isolate, z->has_isolate_pageblock))
				pmt = pb_get(w, page);
			/* v3 27: bulkfree_pcp_prepare(page) = free_pages_check(page);
			 * a bad page stays out of the buddy lists */
			if (!mm_applied(w, KC_v3_27) ||
			    !sbr(c, w, SS_pcpbulk_bad,
				free_pages_check(c, w, page_block(w, page), page->off)))
				__free_one_page(c, w, page, z, 0, pmt);
			else
				page->state = PS_NONE;
			if (!br(c, w, S_pcpbulk_more_count, --to_free != 0) ||
			    !br(c, w, S_pcpbulk_more_batch, --batch_free != 0) ||
			    !br(c, w, S_pcpbulk_more_list, !list_empty(list)))
				break;
		}
	}
	cpu_unlock(c, &z->lock);
	z->ev[EV_pcp_drain]++;
	z->ev[EV_pcp_drain_pages] += (uint64_t)count;
	ret(c);
}

/* --- allocation --------------------------------------------------------- */

static struct page *buffered_rmqueue(struct cpu *c, struct mm_world *w, struct zone *pref,
					struct zone *z, int order, uint32_t gfp,
					int alloc_flags, int mt)
{
	call(c, w, FN_buffered_rmqueue);
	bool cold = (gfp & __GFP_COLD) != 0;
	struct page *page = NULL;
	if (br(c, w, S_A34, order == 0)) {
		run_block(c, w, B_buffered_pcp);
		irq_save(c);
		struct per_cpu_pages *pcp = this_pcp(c, z);
		/* this_cpu_ptr(zone->pageset) -> lists[mt].next (tested) -> page */
		bmem(c, w, z->addr + ZOFF_PAGESET, z->node, CPU_LOAD_DEP);
		struct page *list = &pcp->lists[mt];
		bmem(c, w, list->addr, c->node, CPU_LOAD_DEP);
		if (br(c, w, S_A36a, list_empty(list))) {
			mem(c, w, pcp->addr, c->node, CPU_LOAD_DEP);    /* pcp->batch */
			pcp->count += rmqueue_bulk(c, w, z, 0, pcp->batch, list, mt, cold);
			if (br(c, w, S_A36b, list_empty(list)))
				goto failed;
		}
		page = br(c, w, S_A37, cold) ? list->prev : list->next;
		/* v3 06: the order-0 branch decrements NR_ALLOC_BATCH itself */
		if (mm_applied(w, KC_v3_06))
			__dec_zone_state(c, w, z, NR_ALLOC_BATCH);
		c_list_del(c, w, page, c->node);
		mem(c, w, pcp->addr, c->node, CPU_STORE);        /* pcp->count--, unread */
		pcp->count--;
		page->pcp_cpu = -1;
	} else {
		run_block(c, w, B_buffered_buddy);
		irq_save(c);
		cpu_lock(c, &z->lock);
		if (br(c, w, S_buffered_rmqueue_harder, alloc_flags & ALLOC_HARDER))
			page = __rmqueue_smallest(c, w, z, order, MT_HIGHATOMIC);
		if (!page)
			page = __rmqueue(c, w, z, order, mt);
		/* v3 28: check_new_pages(page, order) under zone->lock (no bad
		 * page is modelled, so the kernel's retry loop runs once) */
		if (mm_applied(w, KC_v3_28) && page) {
			struct pfn_block *pb = page_block(w, page);
			for (unsigned i = 0; sbr(c, w, SS_check_new_pages_loop, i < (1u << order)); i++)
				if (check_new_page(c, w, pb, page->off + i))
					break;
		}
		cpu_unlock(c, &z->lock);
		if (br(c, w, S_buffered_rmqueue_nopage, page == NULL))
			goto failed;
		/* v3 06: the high-order branch keeps __mod_zone_page_state */
		if (mm_applied(w, KC_v3_06))
			__mod_zone_page_state(c, w, z, NR_ALLOC_BATCH, -(int64_t)(1 << order));
		__mod_zone_page_state(c, w, z, NR_FREE_PAGES, -(int64_t)(1 << order));
	}
	if (!mm_applied(w, KC_v3_06))
		__mod_zone_page_state(c, w, z, NR_ALLOC_BATCH, -(int64_t)(1 << order));
	mem(c, w, zaddr_stat(z, NR_ALLOC_BATCH), z->node, CPU_LOAD_DEP);
	if (br(c, w, S_A40a, z->vm_stat[NR_ALLOC_BATCH] <= 0)) {
		mem(c, w, z->addr + ZOFF_FLAGS, z->node, CPU_LOAD_DEP);
		if (br(c, w, S_A40b, !z->fair_depleted)) {
			atomic_rmw(c, w, z->addr + ZOFF_FLAGS, z->node);   /* set_bit */
			z->fair_depleted = 1;
			z->ev[EV_zone_fair_depleted]++;
		}
	}
	count_vm_event(c, w, 1 + (int)z->type);               /* PGALLOC_<zone> */
	z->ev[EV_pgalloc] += 1u << order;
	zone_statistics(c, w, pref, z, gfp);
	irq_restore(c);
	page->state = PS_ALLOC;
	page->alloc_order = order;
	z->allocated += 1u << order;
	ret(c);
	return page;
failed:
	irq_restore(c);
	ret(c);
	return NULL;
}

/* _count of the page at offset off of block b: pages of a block without
 * per-page metadata are free tails (count 0). */
static inline int32_t block_page_count(const struct pfn_block *b, unsigned off)
{
	return b->detail ? b->detail[off].count : off == 0 ? b->head.count : 0;
}

/*
 * page_expected_state (v3 23, 7bfec6f47bb0; static inline): an unlikely
 * test of _mapcount, then one of mapping | _count | mem_cgroup | (flags &
 * check_flags); the fields are in the page's first line, which the
 * caller loaded.  The model's pages differ only in _count.
 */
static bool page_expected_state(struct cpu *c, struct mm_world *w, enum mm_sblock blk,
				enum mm_ssite mapcount_site, enum mm_ssite fields_site, int32_t count)
{
	run_sblock(c, w, blk);
	if (sbr(c, w, mapcount_site, false))           /* _mapcount != -1 */
		return false;
	return !sbr(c, w, fields_site, count != 0);
}

/* check_new_page: six unlikely tests on the page (CONFIG_MEMCG). */
static int check_new_page(struct cpu *c, struct mm_world *w, const struct pfn_block *b,
			  unsigned off)
{
	call(c, w, FN_check_new_page);
	mem(c, w, b->addr + (uint64_t)off * STRUCT_PAGE_SIZE, w->zones[b->zone].node, CPU_LOAD_DEP);
	if (mm_applied(w, KC_v3_23)) {
		/* v3 23: page_expected_state(page, PREP flags | HWPOISON) */
		bool bad23 = !page_expected_state(c, w, SB_expected_state_new, SS_A45s, SS_A45t,
						  block_page_count(b, off));
		ret(c);
		return bad23;
	}
	bool bad = false;
	bad |= br(c, w, S_A45a, false);                 /* _mapcount == -1 */
	bad |= br(c, w, S_A45b, false);                 /* mapping */
	bad |= br(c, w, S_A45c, block_page_count(b, off) != 0);
	bad |= br(c, w, S_A45d, false);                 /* HWPOISON */
	bad |= br(c, w, S_A45e, false);                 /* CHECK_AT_PREP */
	bad |= br(c, w, S_A45f, false);                 /* mem_cgroup */
	bad = br(c, w, S_A45g, bad);
	ret(c);
	return bad;
}

static int prep_new_page(struct cpu *c, struct mm_world *w, struct page *page, int order,
			 uint32_t gfp, int alloc_flags)
{
	call(c, w, FN_prep_new_page);
	struct pfn_block *b = page_block(w, page);
	/* v3 28: the checks moved to the pcp refill and the buddy removal;
	 * the loop left (page_is_poisoned) is empty without PAGE_POISONING */
	for (unsigned i = 0; !mm_applied(w, KC_v3_28) && br(c, w, S_A45h, i < (1u << order)); i++) {
		if (check_new_page(c, w, b, page->off + i)) {
			ret(c);
			return 1;
		}
	}
	/* the work less the checks' instructions: v3 23's single-branch test
	 * (its own block), v3 28's no check here at all */
	run_block(c, w, mm_applied(w, KC_v3_28)   ? B_prep_new_page_28
			: mm_applied(w, KC_v3_23) ? B_prep_new_page_23
						  : B_prep_new_page);
	bmem_page(c, w, page, CPU_STORE);               /* private, _count */
	page->count = 1;
	if (br(c, w, S_A45i, gfp & __GFP_ZERO)) {
		/* clear_highpage per page: 64 lines each, bandwidth-bound */
		for (unsigned i = 0; i < (1u << order); i++) {
			uint64_t va = (page_pfn(w, page) + i) << 12;
			for (unsigned l = 0; l < 4096 / 64; l++)
				mem_bytes(c, w, ((uint64_t)(page_node(w, page) + 1) << CACHE_AS_SHIFT) +
						   (1ull << 39) + ((va + l * 64) & ((1ull << 39) - 1)),
					64, page_node(w, page), CPU_STORE_BULK);
		}
	}
	if (br(c, w, S_A45j, order != 0))
		br(c, w, S_A45k, gfp & __GFP_COMP);
	br(c, w, S_A45l, alloc_flags & ALLOC_NO_WATERMARKS);
	ret(c);
	return 0;
}

static void reset_alloc_batches(struct cpu *c, struct mm_world *w, struct zone *pref)
{
	call(c, w, FN_reset_alloc_batches);
	struct pglist_data *n = &w->nodes[pref->node_pos];
	for (int t = 0;; t++) {
		struct zone *z = n->zones[t];
		run_block(c, w, B_reset_batch_zone);
		if (z) {
			mem(c, w, z->addr + ZOFF_WATERMARK, z->node, CPU_LOAD);
			mem(c, w, zaddr_stat(z, NR_ALLOC_BATCH), z->node, CPU_LOAD_DEP);
			mod_zone_page_state(c, w, z, NR_ALLOC_BATCH,
					    z->watermark[2] - z->watermark[1] -
						    z->vm_stat[NR_ALLOC_BATCH]);
			atomic_rmw(c, w, z->addr + ZOFF_FLAGS, z->node);   /* clear_bit */
			z->fair_depleted = 0;
		}
		if (!br(c, w, S_reset_batches_loop, z != pref))
			break;
	}
	pref->ev[EV_fair_reset]++;
	ret(c);
}

static bool zone_watermark_ok(struct cpu *c, struct mm_world *w, struct zone *z, int order,
			      int64_t mark, int classzone_idx, int alloc_flags)
{
	call(c, w, FN_zone_watermark_ok);
	call(c, w, FN___zone_watermark_ok);
	run_block(c, w, B_watermark);
	bool ok = false;
	/* free pages, highatomic, CMA free, lowmem_reserve and the mark (loaded
	 * by the caller) are independent loads feeding one compare (A30d): they
	 * overlap, the last one waits */
	bmem(c, w, zaddr_stat(z, NR_FREE_PAGES), z->node, CPU_LOAD);
	int64_t free_pages = zone_page_state(z, NR_FREE_PAGES);
	int64_t min = mark;
	bool harder = alloc_flags & ALLOC_HARDER;
	free_pages -= (1 << order) - 1;
	if (br(c, w, S_A30a, alloc_flags & ALLOC_HIGH))
		min -= min / 2;
	if (br(c, w, S_A30b, !harder)) {
		mem(c, w, z->addr + ZOFF_HIGHATOMIC, z->node, CPU_LOAD);
		free_pages -= z->nr_reserved_highatomic;
	} else {
		min -= min / 4;
	}
	if (br(c, w, S_A30c, !(alloc_flags & ALLOC_CMA))) {
		mem(c, w, zaddr_stat(z, NR_FREE_CMA_PAGES), z->node, CPU_LOAD);
		free_pages -= zone_page_state(z, NR_FREE_CMA_PAGES);
	}
	mem(c, w, z->addr + ZOFF_LOWMEM + 8u * (unsigned)classzone_idx, z->node, CPU_LOAD_DEP);
	if (br(c, w, S_A30d, free_pages <= min + z->lowmem_reserve[classzone_idx]))
		goto out;
	if (br(c, w, S_A30e, order == 0)) {
		ok = true;
		goto out;
	}
	for (int o = order; br(c, w, S_wmark_order_loop, o < MAX_ORDER); o++) {
		run_block(c, w, B_watermark_order);
		bmem(c, w, zaddr_nr_free(z, o), z->node, CPU_LOAD_DEP);
		if (br(c, w, S_wmark_nr_free, z->free_area[o].nr_free == 0))
			continue;
		if (br(c, w, S_wmark_harder, harder)) {
			ok = true;
			goto out;
		}
		for (int mt = 0; mt < MT_PCPTYPES; mt++) {
			mem(c, w, zaddr_free_list(z, o, mt), z->node, CPU_LOAD_DEP);
			if (br(c, w, S_wmark_list, !list_empty(&z->free_area[o].list[mt]))) {
				ok = true;
				goto out;
			}
		}
		if (br(c, w, S_wmark_cma, (alloc_flags & ALLOC_CMA) &&
						  !list_empty(&z->free_area[o].list[MT_CMA]))) {
			ok = true;
			goto out;
		}
	}
out:
	ret(c);
	ret(c);
	return ok;
}

/*
 * zone_local(local_zone, zone): local_zone->node == zone->node, two
 * independent loads and one compare whose result the caller's A26 tests.
 * A function of its own: gcc 11 keeps it out of line (a 0x14-byte static
 * function in page_alloc.o), inlined in the estimate layout.
 */
static bool zone_local(struct cpu *c, struct mm_world *w, const struct zone *local_zone,
		       const struct zone *zone)
{
	call(c, w, FN_zone_local);
	mem(c, w, zone->addr + ZOFF_NODE, zone->node, CPU_LOAD);
	mem(c, w, local_zone->addr + ZOFF_NODE, local_zone->node, CPU_LOAD_DEP);
	ret(c);
	return local_zone->node == zone->node;
}

/*
 * ac->preferred_zone, or from v3 21 ac->preferred_zoneref->zone: one
 * dependent load of the zoneref per use.
 */
static struct zone *ac_preferred_zone(struct cpu *c, const struct mm_world *w,
				      const struct alloc_context *ac)
{
	if (mm_applied(w, KC_v3_21))
		mem_zoneref(c, w, ac->zl_node, ac->zl_kind, ac->preferred_zoneref);
	return ac->preferred_zone;
}

/* ac->classzone_idx, or from v3 22 ac_classzone_idx(ac): the zone index
 * read from ac->preferred_zoneref, a dependent load. */
static int ac_classzone_idx(struct cpu *c, const struct mm_world *w,
			    const struct alloc_context *ac)
{
	if (mm_applied(w, KC_v3_22))
		mem_zoneref(c, w, ac->zl_node, ac->zl_kind, ac->preferred_zoneref);
	return ac->classzone_idx;
}

/*
 * zone_watermark_fast (v3 20, 48ee5f3696f6; static inline in
 * page_alloc.c): NR_FREE_PAGES, the CMA pages unless ALLOC_CMA, and for
 * order 0 one compare with mark + lowmem_reserve; otherwise the full
 * check.  The model charges that fallback as v4.6's out-of-line
 * zone_watermark_ok (which reloads NR_FREE_PAGES): a path the order-0
 * benchmark takes only when the shortcut fails.
 */
static bool zone_watermark_fast(struct cpu *c, struct mm_world *w, struct zone *z, int order,
				int64_t mark, int classzone_idx, int alloc_flags)
{
	run_sblock(c, w, SB_watermark_fast);
	bmem(c, w, zaddr_stat(z, NR_FREE_PAGES), z->node, CPU_LOAD);
	int64_t free_pages = zone_page_state(z, NR_FREE_PAGES);
	int64_t cma_pages = 0;
	if (sbr(c, w, SS_A30f, !(alloc_flags & ALLOC_CMA))) {
		mem(c, w, zaddr_stat(z, NR_FREE_CMA_PAGES), z->node, CPU_LOAD);
		cma_pages = zone_page_state(z, NR_FREE_CMA_PAGES);
	}
	if (sbr(c, w, SS_A30g, order == 0)) {
		mem(c, w, z->addr + ZOFF_LOWMEM + 8u * (unsigned)classzone_idx, z->node,
		    CPU_LOAD_DEP);
		if (sbr(c, w, SS_A30h, free_pages - cma_pages >
					     mark + z->lowmem_reserve[classzone_idx]))
			return true;
	}
	return zone_watermark_ok(c, w, z, order, mark, classzone_idx, alloc_flags);
}

static struct page *get_page_from_freelist(struct cpu *c, struct mm_world *w, uint32_t gfp,
					      int order, int alloc_flags, const struct alloc_context *ac)
{
	call(c, w, FN_get_page_from_freelist);
	bool v3_19 = mm_applied(w, KC_v3_19), v3_21 = mm_applied(w, KC_v3_21);
	run_block(c, w, v3_21 ? B_gpfl_entry_21 : B_gpfl_entry);
	const struct pglist_data *zn = ac->zl_node;
	const struct mm_zoneref *zr = zn->zonerefs[ac->zl_kind];
	struct page *page = NULL;
	int nr_fair_skipped = 0;
	bool rescan;
	/* v3 19: the fair pass in two local bools */
	bool fair_skipped = false, apply_fair = (alloc_flags & ALLOC_FAIR) != 0;
	/* v3 21: the cursor starts at ac->preferred_zoneref */
	int i = ac->preferred_zoneref;
	struct zone *zone;
zonelist_scan:
	rescan = false;
	if (v3_21) {
		/* for_next_zone_zonelist_nodemask: zone = zonelist_zone(z); as
		 * posted (and in v4.7-rc1) a fair-pass restart continues from
		 * the cursor (0d0bd89435d1 of v4.7-rc2 resets it) */
		mem_zoneref(c, w, zn, ac->zl_kind, i);
		zone = zr[i].zone;
	} else {
		i = first_zones_zonelist(c, w, zn, ac->zl_kind, ac->high_zoneidx, ac->nodemask,
					 &zone);
	}
	for (; br(c, w, S_A23, zone != NULL);
	     i = next_zones_zonelist(c, w, zn, ac->zl_kind, i + 1, ac->high_zoneidx, ac->nodemask),
	     zone = zr[i].zone) {
		run_block(c, w, B_gpfl_zone);
		if (br(c, w, S_A24a, cpusets_enabled(w)) &&
		    br(c, w, S_A24b, alloc_flags & ALLOC_CPUSET)) {
			call(c, w, FN_cpuset_zone_allowed);
			bool allowed = true;
			/* v3 26: __cpuset_zone_allowed, without nr_cpusets() <= 1 */
			if (mm_applied(w, KC_v3_26) || !br(c, w, S_A24c, false)) {
				mem(c, w, zone->addr + ZOFF_NODE, zone->node, CPU_LOAD_DEP);
				allowed = __cpuset_node_allowed(c, w, zone->node, gfp);
			}
			ret(c);
			if (br(c, w, S_A24d, !allowed))
				continue;
		}
		if (v3_19) {
			/* v3 19: the depleted bit first; a remote zone ends the
			 * fair pass (or resets it if a local zone was skipped) */
			if (sbr(c, w, SS_A25f, apply_fair)) {
				mem(c, w, zone->addr + ZOFF_FLAGS, zone->node, CPU_LOAD_DEP);
				if (sbr(c, w, SS_A27f, zone->fair_depleted)) {
					fair_skipped = true;
					zone->ev[EV_fair_skip]++;
					continue;
				}
				if (sbr(c, w, SS_A26f,
				       !zone_local(c, w, ac_preferred_zone(c, w, ac), zone))) {
					if (sbr(c, w, SS_A26s, fair_skipped))
						goto reset_fair;
					apply_fair = false;
				}
			}
		} else if (br(c, w, S_A25, alloc_flags & ALLOC_FAIR)) {
			if (br(c, w, S_A26, !zone_local(c, w, ac_preferred_zone(c, w, ac), zone)))
				break;
			mem(c, w, zone->addr + ZOFF_FLAGS, zone->node, CPU_LOAD_DEP);
			if (br(c, w, S_A27, zone->fair_depleted)) {
				nr_fair_skipped++;
				zone->ev[EV_fair_skip]++;
				continue;
			}
		}
		if (br(c, w, S_A28, ac->spread_dirty_pages != 0))
			continue;        /* zone_dirty_ok() not modelled: no dirty pages */
		mem(c, w, zone->addr + ZOFF_WATERMARK + 8u * (unsigned)(alloc_flags & ALLOC_WMARK_MASK),
		    zone->node, CPU_LOAD);          /* the mark: one of A30d's operands */
		int64_t mark = zone->watermark[alloc_flags & ALLOC_WMARK_MASK];
		int classzone_idx = ac_classzone_idx(c, w, ac);
		bool wmark_ok = mm_applied(w, KC_v3_20)
			? zone_watermark_fast(c, w, zone, order, mark, classzone_idx, alloc_flags)
			: zone_watermark_ok(c, w, zone, order, mark, classzone_idx, alloc_flags);
		if (br(c, w, S_A31, !wmark_ok)) {
			zone->ev[EV_wmark_fail]++;
			if (br(c, w, S_A31b, alloc_flags & ALLOC_NO_WATERMARKS))
				goto try_this_zone;
			if (br(c, w, S_A31c, w->cfg.zone_reclaim_mode == 0))
				continue;
			/* zone_reclaim_mode != 0 needs the reclaim model
			 * (mm_world_create refuses it otherwise) */
			if (vbr(c, w, VS_gpfl_allows,
				!zone_allows_reclaim(w, ac->preferred_zone, zone)))
				continue;
			int ret = zone_reclaim(c, w, zone, gfp, order);
			if (vbr(c, w, VS_gpfl_zr_scan, ret == ZONE_RECLAIM_NOSCAN ||
							       ret == ZONE_RECLAIM_FULL))
				continue;
			if (vbr(c, w, VS_gpfl_zr_wmark,
				zone_watermark_ok(c, w, zone, order, mark,
						  ac_classzone_idx(c, w, ac), alloc_flags))) {
				w->nodes[ac->preferred_zone->node_pos].vm_ev[VN_zone_reclaim_success]++;
				goto try_this_zone;
			}
			continue;
		}
try_this_zone:
		page = buffered_rmqueue(c, w, ac_preferred_zone(c, w, ac), zone, order, gfp,
					alloc_flags, ac->migratetype);
		if (br(c, w, S_A44, page != NULL)) {
			/* v3 28: prep_new_page checks nothing, so cannot fail */
			if (mm_applied(w, KC_v3_28))
				prep_new_page(c, w, page, order, gfp, alloc_flags);
			else if (br(c, w, S_A45m,
				    prep_new_page(c, w, page, order, gfp, alloc_flags) != 0))
				goto try_this_zone;
			if (br(c, w, S_A46a, order != 0) &&
			    br(c, w, S_A46b, alloc_flags & ALLOC_HARDER)) {
				/* reserve_highatomic_pageblock: not modelled (documented) */
			}
			goto out;
		}
	}
	if (v3_19) {
		run_sblock(c, w, SB_gpfl_after_19);
		if (sbr(c, w, SS_gpfl_fair_skipped_19, fair_skipped)) {
reset_fair:
			apply_fair = false;
			fair_skipped = false;
			reset_alloc_batches(c, w, ac_preferred_zone(c, w, ac));
			w->nodes[ac->preferred_zone->node_pos].ev[NEV_rescan]++;
			goto zonelist_scan;
		}
		page = NULL;
		goto out;
	}
	run_block(c, w, B_gpfl_after);
	if (br(c, w, S_gpfl_fair, alloc_flags & ALLOC_FAIR)) {
		alloc_flags &= ~ALLOC_FAIR;
		if (br(c, w, S_gpfl_fair_skipped, nr_fair_skipped != 0)) {
			rescan = true;
			reset_alloc_batches(c, w, ac->preferred_zone);
		}
		if (br(c, w, S_gpfl_online_nodes, w->nr_online_nodes > 1))
			rescan = true;
	}
	if (br(c, w, S_gpfl_rescan, rescan)) {
		w->nodes[ac->preferred_zone->node_pos].ev[NEV_rescan]++;
		goto zonelist_scan;
	}
	page = NULL;
out:
	ret(c);
	return page;
}

/*
 * __alloc_pages_slowpath.  Without the reclaim model (mm_config.reclaim
 * off) a documented, counted simplification: the order check,
 * wake_all_kswapds (counted; no kswapd), gfp_to_alloc_flags (WMARK_MIN,
 * HIGH, HARDER and no CPUSET for atomic requests), PRE's preferred-zone
 * recomputation (deleted by the diff) and one get_page_from_freelist
 * attempt.  With it (models/vmscan.c) the v4.6 slow path continues as the
 * kernel does: wakeup_kswapd per zone, direct reclaim, the retry while
 * did_some_progress (order <= PAGE_ALLOC_COSTLY_ORDER) and
 * __alloc_pages_may_oom, whose out_of_memory is counted and kills nothing
 * (so the allocation fails).  Compaction (order > 0) and
 * ALLOC_NO_WATERMARKS (PF_MEMALLOC, TIF_MEMDIE) are not modelled.  The
 * model stops a slow path after 1000 retries (counted
 * slowpath_retry_cap); v4.6 itself could loop there.
 */
/* might_sleep_if(cond): with CONFIG_PREEMPT_VOLUNTARY, when the caller's
 * test of __GFP_DIRECT_RECLAIM (its site is where the world's kernel has
 * it: v3 15) holds, _cond_resched() (should_resched(0) false: no
 * preemption is modelled). */
static void might_sleep_if(struct cpu *c, struct mm_world *w, bool cond)
{
	if (cond) {
		call(c, w, FN__cond_resched);
		run_block(c, w, B_cond_resched);
		br(c, w, S_A11b, false);
		ret(c);
	}
}

static struct page *alloc_pages_slowpath(struct cpu *c, struct mm_world *w, uint32_t gfp,
					    int order, struct alloc_context *ac)
{
	call(c, w, FN___alloc_pages_slowpath);
	/* v3 15 (not merged): might_sleep_if at the top of the slow path */
	if (mm_applied(w, KC_v3_15))
		might_sleep_if(c, w, sbr(c, w, SS_A11s, gfp & __GFP_DIRECT_RECLAIM));
	run_block(c, w, B_slowpath);
	struct page *page = NULL;
	struct pglist_data *pn = &w->nodes[ac->preferred_zone->node_pos];
	pn->ev[NEV_slowpath]++;
	int retries = 0;
	if (br(c, w, S_slowpath_order, order >= MAX_ORDER))
		goto out;
retry:
	if (br(c, w, S_slowpath_kswapd, gfp & __GFP_KSWAPD_RECLAIM)) {
		call(c, w, FN_wake_all_kswapds);
		pn->ev[NEV_kswapd_wake]++;
		if (w->reclaim)
			wake_all_kswapds(c, w, order, ac);
		ret(c);
	}
	int alloc_flags = ALLOC_WMARK_MIN | ALLOC_CPUSET;
	alloc_flags |= (int)(gfp & __GFP_HIGH);        /* ALLOC_HIGH == __GFP_HIGH */
	bool atomic = !(gfp & (__GFP_DIRECT_RECLAIM | __GFP_NOMEMALLOC));
	if (br(c, w, S_slowpath_atomic, atomic)) {
		if (br(c, w, S_slowpath_nomemalloc, !(gfp & __GFP_NOMEMALLOC)))
			alloc_flags |= ALLOC_HARDER;
		alloc_flags &= ~ALLOC_CPUSET;
	}
	if (ac->migratetype == MT_MOVABLE)
		alloc_flags |= ALLOC_CMA;
	if (w->cfg.iter == MMZONE_ITER_PRE &&
	    br(c, w, S_slowpath_cpuset_nodemask, !(alloc_flags & ALLOC_CPUSET) && !ac->nodemask)) {
		struct zone *pz;
		int zi = first_zones_zonelist(c, w, ac->zl_node, ac->zl_kind, ac->high_zoneidx,
					      NULL, &pz);
		ac->preferred_zone = pz;
		ac->preferred_zoneref = zi;
		ac->classzone_idx = ac->zl_node->zonerefs[ac->zl_kind][zi].zone_idx;
		if (!pz)
			goto out;
	}
	page = get_page_from_freelist(c, w, gfp, order, alloc_flags & ~ALLOC_NO_WATERMARKS, ac);
	br(c, w, S_slowpath_page, page != NULL);
	if (!page && w->reclaim) {
		bool again;
		page = alloc_pages_reclaim_tail(c, w, gfp, order, alloc_flags, ac, &again);
		if (again) {
			if (++retries < 1000) {
				w->nodes[ac->preferred_zone->node_pos].vm_ev[VN_slowpath_retry]++;
				goto retry;
			}
			w->nodes[ac->preferred_zone->node_pos].vm_ev[VN_slowpath_retry_cap]++;
		}
	}
out:
	if (!page)
		pn->ev[NEV_alloc_fail]++;
	ret(c);
	return page;
}

struct page *__alloc_pages_nodemask(struct cpu *c, struct mm_world *w, uint32_t gfp,
				    unsigned order, struct pglist_data *zl_node,
				    int zl_kind, const uint64_t *nodemask)
{
	call(c, w, FN___alloc_pages_nodemask);
	/* v3 16: no OR of __GFP_HARDWALL on the way to the first attempt */
	bool v3_16 = mm_applied(w, KC_v3_16);
	run_block(c, w, v3_16 ? B_alloc_nodemask_16 : B_alloc_nodemask);
	const struct mm_cpu *ci = &w->cpus[c->idx];
	struct page *page = NULL;
	bool post = w->cfg.iter == MMZONE_ITER_POST;
	int alloc_flags = post ? ALLOC_WMARK_LOW | ALLOC_FAIR
			       : ALLOC_WMARK_LOW | ALLOC_CPUSET | ALLOC_FAIR;
	/* v3 16: alloc_mask = gfp_mask at declaration, | __GFP_HARDWALL only
	 * with cpusets (below); before it, gfp_mask | __GFP_HARDWALL at
	 * retry_cpuset */
	uint32_t alloc_mask = v3_16 ? gfp : gfp | __GFP_HARDWALL;
	struct alloc_context ac = {
		.zl_node = zl_node,
		.zl_kind = zl_kind,
		.nodemask = nodemask,
		.high_zoneidx = gfp_zone(gfp),
		.migratetype = MT_UNMOVABLE,
	};
	if (!br(c, w, S_A09, w->mobility_disabled))
		ac.migratetype = (int)((gfp & (__GFP_RECLAIMABLE | __GFP_MOVABLE)) >> 3);
	if (post && br(c, w, S_A10a, cpusets_enabled(w))) {
		if (v3_16)
			alloc_mask |= __GFP_HARDWALL;
		alloc_flags |= ALLOC_CPUSET;
		if (br(c, w, S_A10b, !ac.nodemask))
			ac.nodemask = w->nodemask;
	}
	/* v3 15 (not merged): might_sleep_if moves to the slow path */
	if (!mm_applied(w, KC_v3_15))
		might_sleep_if(c, w, br(c, w, S_A11, gfp & __GFP_DIRECT_RECLAIM));
	/* v3 13 (not merged): no early test of an empty zonelist */
	if (!mm_applied(w, KC_v3_13)) {
		mem_zoneref(c, w, zl_node, zl_kind, 0);
		if (br(c, w, S_A13, zl_node->zonerefs[zl_kind][0].zone == NULL))
			goto out_ret;
	}
	if (br(c, w, S_A14, ac.migratetype == MT_MOVABLE))
		alloc_flags |= ALLOC_CMA;
retry_cpuset:
	br(c, w, S_A15, cpusets_enabled(w));      /* read_mems_allowed_begin */
	ac.spread_dirty_pages = (gfp & __GFP_WRITE) != 0;
	const uint64_t *pref_mask = ac.nodemask;
	if (!post && !pref_mask) {
		/* PRE: ac.nodemask ?: &cpuset_current_mems_allowed */
		/* current (per-cpu) -> current->mems_allowed word in
		 * zref_in_nodemask: a chain */
		mem(c, w, ci->percpu + PERCPU_CURRENT, ci->numa_node, CPU_LOAD_DEP);
		pref_mask = w->nodemask;
	}
	int zi = first_zones_zonelist(c, w, zl_node, zl_kind, ac.high_zoneidx, pref_mask,
				      &ac.preferred_zone);
	if (!mm_applied(w, KC_v3_13)) {
		if (br(c, w, S_A19, ac.preferred_zone == NULL))
			goto out;
	} else if (ac.preferred_zone == NULL) {
		/* v3 13 leaves an empty zonelist to get_page_from_freelist,
		 * which finds no zone; the model returns at once (uncharged:
		 * no modelled machine has an empty zonelist) */
		goto out_ret;
	}
	ac.preferred_zoneref = zi;
	ac.classzone_idx = zl_node->zonerefs[zl_kind][zi].zone_idx;
	page = get_page_from_freelist(c, w, alloc_mask, (int)order, alloc_flags, &ac);
	if (mm_applied(w, KC_v3_18)) {
		/* v3 18: the fast path's success jumps over the slow path and
		 * its cpuset retry test */
		if (sbr(c, w, SS_A48p, page != NULL))
			goto out_18;
		ac.spread_dirty_pages = 0;
		page = alloc_pages_slowpath(c, w, gfp, (int)order, &ac);
		if (br(c, w, S_A51, page == NULL) && br(c, w, S_A51b, false)) {
			alloc_mask = gfp;
			goto retry_cpuset;
		}
out_18:
		br(c, w, S_A50, false);               /* trace_mm_page_alloc */
		goto out_ret;
	}
	if (br(c, w, S_A48, page == NULL)) {
		ac.spread_dirty_pages = 0;
		page = alloc_pages_slowpath(c, w, gfp, (int)order, &ac);
	}
	br(c, w, S_A50, false);                       /* trace_mm_page_alloc */
out:
	if (br(c, w, S_A51, page == NULL) && br(c, w, S_A51b, false)) {
		if (v3_16)
			alloc_mask = gfp;
		goto retry_cpuset;
	}
out_ret:
	ret(c);
	return page;
}

/* --- free --------------------------------------------------------------- */

static bool free_pages_check(struct cpu *c, struct mm_world *w, const struct pfn_block *b,
			     unsigned off)
{
	call(c, w, FN_free_pages_check);
	mem(c, w, b->addr + (uint64_t)off * STRUCT_PAGE_SIZE, w->zones[b->zone].node, CPU_LOAD_DEP);
	if (mm_applied(w, KC_v3_23)) {
		/* v3 23: page_expected_state(page, PAGE_FLAGS_CHECK_AT_FREE);
		 * the good path clears the PREP flags with a plain store */
		bool ok = page_expected_state(c, w, SB_expected_state_free, SS_F05s, SS_F05t,
					      block_page_count(b, off));
		if (ok)
			mem(c, w, b->addr + (uint64_t)off * STRUCT_PAGE_SIZE,
			    w->zones[b->zone].node, CPU_STORE);
		ret(c);
		return !ok;
	}
	bool bad = false;
	bad |= br(c, w, S_F05f, false);                /* _mapcount */
	bad |= br(c, w, S_F05g, false);                /* mapping */
	bad |= br(c, w, S_F05h, block_page_count(b, off) != 0);
	bad |= br(c, w, S_F05i, false);                /* CHECK_AT_FREE */
	bad |= br(c, w, S_F05j, false);                /* mem_cgroup */
	bad = br(c, w, S_F05k, bad);
	if (!bad)
		br(c, w, S_F05l, false);               /* CHECK_AT_PREP flags */
	ret(c);
	return bad;
}

/*
 * free_pages_prepare(page, order); with pcp (from v3 27, the order-0 free
 * into the pcp lists) free_pcp_prepare(page), which leaves the page check
 * to bulkfree_pcp_prepare() at the drain (free_pcppages_bulk).
 */
static bool free_pages_prepare(struct cpu *c, struct mm_world *w, struct page *page,
			       int order, bool pcp)
{
	call(c, w, FN_free_pages_prepare);
	int bad = 0;
	const struct pfn_block *b = page_block(w, page);
	bool v3_01 = mm_applied(w, KC_v3_01);
	if (!v3_01) {
		/* v4.6: compound = PageCompound(page) for every order: PG_head
		 * in page->flags, else compound_head's low bit (PageTail) */
		run_sblock(c, w, SB_free_pages_compound);
		bmem_page(c, w, page, CPU_LOAD_DEP);
		if (!sbr(c, w, SS_F05p, false)) {        /* no __GFP_COMP pages modelled */
			mem_page(c, w, page, CPU_LOAD_DEP);
			sbr(c, w, SS_F05q, false);
		}
	}
	/* v3 23: free_pages_check's tests leave the work (page_expected_state
	 * has its own block); v3 27's pcp free does not check at all */
	run_block(c, w, mm_applied(w, KC_v3_23) ? B_free_pages_prepare_23 : B_free_pages_prepare);
	br(c, w, S_F05a, false);                       /* trace_mm_page_free */
	/* v3 01: the tails (checked before the head) only for order > 0 */
	if (v3_01 && br(c, w, S_F05b, order != 0)) {
		for (unsigned i = 1; br(c, w, S_F05d, i < (1u << order)); i++) {
			br(c, w, S_F05c, false);       /* no __GFP_COMP pages modelled */
			bad += free_pages_check(c, w, b, page->off + i);
		}
	}
	if (!mm_applied(w, KC_v3_02)) {
		/* v4.6 PageAnon(): compound_head(page) first */
		mem_page(c, w, page, CPU_LOAD_DEP);
		sbr(c, w, SS_F05r, false);
	}
	br(c, w, S_F05e, false);                       /* PageAnonHead / PageAnon */
	if (!pcp) {
		bad += free_pages_check(c, w, b, page->off);
	} else {
		/* v3 27 free_pcp_prepare (!DEBUG_VM): no free_pages_check; the
		 * cpupid reset (empty) and the PREP-flag clear (a store) stay */
		mem_page(c, w, page, CPU_STORE);
		br(c, w, S_F05n, true);                /* !PageHighMem: debug no-ops */
		ret(c);
		return true;
	}
	if (!v3_01) {
		/* v4.6: the tail loop after the head, its bound tested at order 0 too */
		for (unsigned i = 1; br(c, w, S_F05d, i < (1u << order)); i++) {
			br(c, w, S_F05c, false);
			bad += free_pages_check(c, w, b, page->off + i);
		}
	}
	bool ok = !br(c, w, S_F05m, bad != 0);
	if (ok)
		br(c, w, S_F05n, true);                /* !PageHighMem: debug no-ops */
	ret(c);
	return ok;
}

static void free_one_page(struct cpu *c, struct mm_world *w, struct zone *z,
			  struct page *page, int order, int mt)
{
	call(c, w, FN_free_one_page);
	cpu_lock(c, &z->lock);
	mem(c, w, zaddr_stat(z, NR_PAGES_SCANNED), z->node, CPU_LOAD_DEP);
	int64_t scanned = zone_page_state(z, NR_PAGES_SCANNED);
	if (br(c, w, S_free_one_page_scanned, scanned != 0))
		__mod_zone_page_state(c, w, z, NR_PAGES_SCANNED, -scanned);
	if (br(c, w, S_free_one_page_isolate, z->has_isolate_pageblock || mt == MT_ISOLATE))
		mt = get_pfnblock_migratetype(c, w, page);
	__free_one_page(c, w, page, z, order, mt);
	cpu_unlock(c, &z->lock);
	ret(c);
}

static void free_hot_cold_page(struct cpu *c, struct mm_world *w, struct page *page, bool cold)
{
	call(c, w, FN_free_hot_cold_page);
	run_block(c, w, B_free_hot_cold_page);
	struct zone *z = page_zone(w, page);
	/* v3 27: free_pcp_prepare() returns true without checking the page
	 * (inline: the test is gone) */
	if (mm_applied(w, KC_v3_27))
		free_pages_prepare(c, w, page, 0, true);
	else if (br(c, w, S_F05o, !free_pages_prepare(c, w, page, 0, false)))
		goto out;
	int mt = get_pfnblock_migratetype(c, w, page);
	mem_page(c, w, page, CPU_STORE);                /* set_pcppage_migratetype */
	page->mt = (uint8_t)mt;
	irq_save(c);
	count_vm_event(c, w, 0);                        /* PGFREE */
	z->ev[EV_pgfree]++;
	z->allocated--;
	page->state = PS_NONE;
	if (br(c, w, S_F09a, mt >= MT_PCPTYPES)) {
		if (br(c, w, S_F09b, mt == MT_ISOLATE)) {
			free_one_page(c, w, z, page, 0, mt);
			goto out_irq;
		}
		mt = MT_MOVABLE;
	}
	struct per_cpu_pages *pcp = this_pcp(c, z);
	mem(c, w, z->addr + ZOFF_PAGESET, z->node, CPU_LOAD_DEP);
	c_list_add(c, w, page, &pcp->lists[mt], c->node, !br(c, w, S_F11, !cold));
	page->state = PS_PCP;
	page->pcp_cpu = (int16_t)c->idx;
	/* pcp->count++ then tested against pcp->high (F13) */
	mem(c, w, pcp->addr, c->node, CPU_LOAD_DEP);
	mem(c, w, pcp->addr, c->node, CPU_STORE);
	pcp->count++;
	if (br(c, w, S_F13, pcp->count >= pcp->high)) {
		int batch = pcp->batch;
		free_pcppages_bulk(c, w, z, batch, pcp);
		pcp->count -= batch;
	}
out_irq:
	irq_restore(c);
out:
	ret(c);
}

static void __free_pages_ok(struct cpu *c, struct mm_world *w, struct page *page, int order)
{
	call(c, w, FN___free_pages_ok);
	run_block(c, w, B_free_pages_ok);
	struct zone *z = page_zone(w, page);
	if (br(c, w, S_free_pages_ok_prepare, !free_pages_prepare(c, w, page, order, false)))
		goto out;
	int mt = get_pfnblock_migratetype(c, w, page);
	irq_save(c);
	count_vm_event(c, w, 0);
	z->ev[EV_pgfree] += 1u << order;
	z->allocated -= 1u << order;
	page->state = PS_NONE;
	free_one_page(c, w, z, page, order, mt);
	irq_restore(c);
out:
	ret(c);
}

static void trace_page(struct mm_world *w, struct cpu *c, const struct page *page,
		       unsigned order, uint32_t gfp, int alloc, uint64_t start)
{
	uint64_t end = cpu_now_noise(c);
	struct mm_trace_event e = {
		.alloc = alloc, .pfn = mm_page_pfn(w, page), .order = order, .gfp = gfp,
		.node = mm_page_node(w, page), .cpu = c->id,
		.ts_ns = cpu_cycles_to_ns(c, alloc ? end : start), .cycles = end - start,
	};
	e.comm = cpu_task(c, &e.pid);
	w->trace(w->trace_arg, &e);
}

/* The trace's clock before a call (the hook runs in the entry that is not
 * a fast copy: a fast call's cycles are charged by cpu_fast_end()). */
static inline uint64_t trace_start(struct cpu *c, const struct mm_world *w)
{
	return !MM_FAST && w->trace ? cpu_now_noise(c) : 0;
}

struct page *COPY_ENTRY(mm_alloc_pages)(struct mm_world *w, struct cpu *c, uint32_t gfp,
					 unsigned int order)
{
	uint64_t start = trace_start(c, w);
	struct page *page;
	if (fast_entry(c, w, FN_alloc_pages_current)) {
		page = COPY_CALL(c, mm_alloc_pages, w, c, gfp, order);
		cpu_fast_end(c);
	} else {
		page = alloc_pages_current(w, c, gfp, order);
	}
	if (!MM_FAST && w->trace && page)   /* hook: numasim trace */
		trace_page(w, c, page, order, gfp, 1, start);
	return page;
}

static void __free_pages(struct mm_world *w, struct cpu *c, struct page *page,
			 unsigned int order)
{
	memo_reset(w, c);
	call(c, w, FN___free_pages);
	run_block(c, w, B_free_pages);
	atomic_rmw(c, w, page->addr, page_node(w, page));  /* put_page_testzero */
	page->count--;
	if (br(c, w, S_F02, page->count == 0)) {
		if (br(c, w, S_F03, order == 0))
			free_hot_cold_page(c, w, page, false);
		else
			__free_pages_ok(c, w, page, (int)order);
	}
	ret(c);
}

void COPY_ENTRY(mm_free_pages)(struct mm_world *w, struct cpu *c, struct page *page,
				unsigned int order)
{
	uint64_t start = trace_start(c, w);
	if (fast_entry(c, w, FN___free_pages)) {
		COPY_CALL(c, mm_free_pages, w, c, page, order);
		cpu_fast_end(c);
	} else {
		__free_pages(w, c, page, order);
	}
	if (!MM_FAST && w->trace)   /* hook: numasim trace */
		trace_page(w, c, page, order, 0, 0, start);
}

/* drain_local_pages(NULL) (v4.6): this CPU's pcp pages of every zone
 * back to the buddy (drain_pages, drain_pages_zone); the entry
 * mm_drain_local_pages() (mm_info.c) resets the memo first. */
void drain_local_pages(struct cpu *c, struct mm_world *w)
{
	for (int i = 0; i < w->nr_zones; i++) {
		struct zone *z = &w->zones[i];
		struct per_cpu_pages *pcp = this_pcp(c, z);
		irq_save(c);
		if (pcp->count) {
			free_pcppages_bulk(c, w, z, pcp->count, pcp);
			pcp->count = 0;
		}
		irq_restore(c);
	}
}

/* --- entry points for the reclaim model (models/vmscan.c) --------------- */

struct page *get_page_from_freelist_ext(struct cpu *c, struct mm_world *w, uint32_t gfp,
					int order, int alloc_flags, const struct alloc_context *ac)
{
	return get_page_from_freelist(c, w, gfp, order, alloc_flags, ac);
}

void free_hot_cold_page_ext(struct cpu *c, struct mm_world *w, struct page *page, bool cold)
{
	free_hot_cold_page(c, w, page, cold);
}

bool zone_watermark_ok_ext(struct cpu *c, struct mm_world *w, struct zone *z, int order,
			   int64_t mark, int classzone_idx, int alloc_flags)
{
	return zone_watermark_ok(c, w, z, order, mark, classzone_idx, alloc_flags);
}

/* drain_all_pages(NULL) (v4.6): every CPU's pcp pages of every zone back
 * to the buddy.  The kernel queues drain_local_pages on each CPU with
 * pages (schedule_work_on, then flush_work); the model drains them from
 * CPU c and charges c, which waits for the work in the kernel too. */
void drain_all_pages(struct cpu *c, struct mm_world *w)
{
	vcall(c, w, VF_drain_all_pages);
	for (int k = 0; k < w->s->nr_cpus; k++)
		for (int i = 0; i < w->nr_zones; i++) {
			struct zone *z = &w->zones[i];
			struct per_cpu_pages *pcp = &z->pcp[k];
			mem(c, w, pcp->addr, w->s->cpu[k].node, CPU_LOAD_DEP);
			if (pcp->count) {
				irq_save(c);
				free_pcppages_bulk(c, w, z, pcp->count, pcp);
				pcp->count = 0;
				irq_restore(c);
			}
		}
	ret(c);
}
