/*
 * vmscan — mm/vmscan.c of Linux v4.6 (zone-based LRU) and the LRU helpers
 * of mm/swap.c it needs; see vmscan.h and docs/design/reclaim-model.md.
 *
 * Design notes.  The LRU lists are the kernel's: intrusive circular lists
 * of struct page (page->lru, the same links the buddy and pcp lists use,
 * free while a page is allocated), new pages at the head, reclaim taking
 * from the tail (lru_to_page).  The counts are exact zone fields, not
 * per-cpu-batched vmstat items (the kernel's NR_INACTIVE_FILE etc. lag by
 * up to stat_threshold per CPU; reclaim only compares them with each
 * other and with the watermarks, so the lag is left out).  A scan_control
 * lives on the C stack of the call, as in the kernel.  kswapd is a
 * state machine per node (kswapd_woken, kswapd_running, kswapd_priority):
 * the caller runs one iteration of balance_pgdat's priority loop per
 * event on a CPU of the node, so kswapd and the allocating tasks
 * interleave in simulated time.
 *
 * Where the model stops (all documented in docs/design/reclaim-model.md §2):
 * order-0 only (no compaction, no lumpy/high-order handling beyond the
 * kernel's order-0 paths); no memcg (the root lruvec of each zone); no
 * slab shrinkers (shrink_slab: no slab cache is reclaimable, so
 * NR_SLAB_RECLAIMABLE is 0 and kswapd_inodesteal stays 0); pagevecs are
 * not modelled (lru_cache_add puts the page on its list at once); write-
 * back completes synchronously inside pageout() (charged
 * reclaim.writeback_cycles), so PG_writeback is never seen and no
 * congestion waits happen; no flusher threads (dirty pages are cleaned
 * only by reclaim's pageout); throttle_direct_reclaim, too_many_isolated
 * and wait_iff_congested never wait; VM_EXEC and VM_LOCKED mappings are
 * not modelled; one mapping per page (page_referenced finds at most one
 * young PTE).
 *
 * This file holds the kernel's functions (the LRU, shrink_*, direct
 * reclaim, kswapd, zone_reclaim, mm/swap.c's side); the cold half (the
 * cost tables' names and registration, set-up and the reclaim sysctls,
 * introspection, counters, vmscan_check()) is models/vmscan_setup.c.
 */
#include "models/mm_internal.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#define DEF_PRIORITY 12
#define SWAP_CLUSTER_MAX 32u
#define ZONE_RECLAIM_PRIORITY 4
#define KSWAPD_ZONE_BALANCE_GAP_RATIO 100
#define PAGE_ALLOC_COSTLY_ORDER 3

/* --- small helpers (is_file_lru .. page_mapped: models/mm_internal.h) --- */

/* list_move with its memory traffic (the page and both neighbours) */
static void lru_del(struct cpu *c, const struct mm_world *w, struct page *p, int node)
{
	mem_node(c, w, p->prev, node, CPU_STORE);
	mem_node(c, w, p->next, node, CPU_STORE);
	list_del(p);
}

static void lru_add(struct cpu *c, const struct mm_world *w, struct page *p, struct page *h,
		    int node, bool tail)
{
	mem_node(c, w, h, node, CPU_LOAD);
	mem_page(c, w, p, CPU_STORE);
	if (tail)
		list_add_tail(p, h);
	else
		list_add(p, h);
}

/* add_page_to_lru_list / del_page_from_lru_list (mm_inline.h) */
static void add_page_to_lru_list(struct cpu *c, const struct mm_world *w, struct zone *z,
				 struct page *p, int lru)
{
	lru_add(c, w, p, &z->lruvec.lists[lru], z->node, false);
	z->lruvec.nr[lru]++;
}

static void del_page_from_lru_list(struct cpu *c, const struct mm_world *w, struct zone *z,
				   struct page *p, int lru)
{
	lru_del(c, w, p, z->node);
	z->lruvec.nr[lru]--;
}

/* zone_reclaimable_pages / zone_reclaimable (v4.6) */
static uint64_t zone_reclaimable_pages(const struct mm_world *w, const struct zone *z)
{
	const struct lruvec *lv = &z->lruvec;
	uint64_t nr = lv->nr[MM_LRU_INACTIVE_FILE] + lv->nr[MM_LRU_ACTIVE_FILE];
	if (w->cfg.reclaim.swap_pages > w->nr_swap_used)    /* get_nr_swap_pages() > 0 */
		nr += lv->nr[MM_LRU_INACTIVE_ANON] + lv->nr[MM_LRU_ACTIVE_ANON];
	return nr;
}

static bool zone_reclaimable(struct cpu *c, struct mm_world *w, struct zone *z)
{
	vcall(c, w, VF_zone_reclaimable);
	vwork(c, VW_zone_reclaimable);
	mem(c, w, zaddr_stat(z, NR_PAGES_SCANNED), z->node, CPU_LOAD_DEP);
	mem(c, w, z->addr + ZOFF_RECLAIM_STAT, z->node, CPU_LOAD);
	bool r = zone_stat_snapshot(w, z, NR_PAGES_SCANNED) <
		 (int64_t)(zone_reclaimable_pages(w, z) * 6);
	ret(c);
	return r;
}

/* zone_balanced (v4.6): the high watermark + gap, order 0 */
static bool zone_balanced(struct cpu *c, struct mm_world *w, struct zone *z, int order,
			  uint64_t balance_gap, int classzone_idx)
{
	vcall(c, w, VF_zone_balanced);
	vwork(c, VW_zone_balanced);
	int64_t mark = z->watermark[2] + (int64_t)balance_gap;
	/* zone_watermark_ok_safe: the snapshot of NR_FREE_PAGES when the
	 * atomic is below percpu_drift_mark; the model uses the snapshot
	 * whenever the atomic is within the drift of the mark, as the
	 * kernel does. */
	bool ok = zone_watermark_ok_ext(c, w, z, order, mark, classzone_idx, 0);
	bool r = !vbr(c, w, VS_zb_wmark, !ok);
	ret(c);
	return r;
}

struct scan_control {
	uint64_t nr_to_reclaim;
	uint32_t gfp_mask;
	int order;
	const uint64_t *nodemask;
	int priority;
	int may_writepage, may_unmap, may_swap;
	int kswapd;                        /* current_is_kswapd() */
	uint64_t nr_scanned, nr_reclaimed;
};

/* inactive_list_is_low (v4.6): inactive_file_is_low / inactive_anon_is_low */
static bool inactive_list_is_low(struct cpu *c, struct mm_world *w, struct zone *z, int lru)
{
	vcall(c, w, VF_inactive_list_is_low);
	vwork(c, VW_inactive_low);
	const struct lruvec *lv = &z->lruvec;
	bool low;
	mem(c, w, z->addr + ZOFF_RECLAIM_STAT, z->node, CPU_LOAD_DEP);
	if (vbr(c, w, VS_ilil_file, is_file_lru(lru))) {
		low = lv->nr[MM_LRU_ACTIVE_FILE] > lv->nr[MM_LRU_INACTIVE_FILE];
	} else if (vbr(c, w, VS_ilil_swap, w->cfg.reclaim.swap_pages == 0)) {
		low = false;            /* !total_swap_pages */
	} else {
		low = lv->nr[MM_LRU_INACTIVE_ANON] * lv->inactive_ratio <
		      lv->nr[MM_LRU_ACTIVE_ANON];
	}
	vbr(c, w, VS_ilil_low, low);
	ret(c);
	return low;
}

/*
 * isolate_lru_pages + __isolate_lru_page (v4.6): up to nr_to_scan pages
 * from the tail of lru onto dst; pages the mode refuses (-EBUSY) go back
 * to the head.  *nr_scanned counts both.  Called under zone->lru_lock.
 */
#define ISOLATE_CLEAN 0x1
#define ISOLATE_UNMAPPED 0x2
static uint64_t isolate_lru_pages(struct cpu *c, struct mm_world *w, struct zone *z,
				  uint64_t nr_to_scan, struct page *dst, uint64_t *nr_scanned,
				  int mode, int lru)
{
	vcall(c, w, VF_isolate_lru_pages);
	struct page *src = &z->lruvec.lists[lru];
	uint64_t nr_taken = 0, scan;
	for (scan = 0; vbr(c, w, VS_iso_loop, scan < nr_to_scan && nr_taken < nr_to_scan &&
						      !list_empty(src));
	     scan++) {
		vwork(c, VW_isolate_page);
		struct page *p = src->prev;              /* lru_to_page */
		mem_page(c, w, p, CPU_LOAD_DEP);          /* PageLRU, flags */
		vcall(c, w, VF___isolate_lru_page);
		bool busy = vbr(c, w, VS_iso_clean, (mode & ISOLATE_CLEAN) &&
							    (p->pgflags & PGF_DIRTY)) ||
			    vbr(c, w, VS_iso_unmapped, (mode & ISOLATE_UNMAPPED) && page_mapped(p));
		if (!busy) {
			atomic_rmw(c, w, p->addr, page_node(w, p)); /* get_page_unless_zero */
			p->pgflags &= (uint8_t)~PGF_LRU;
		}
		ret(c);
		lru_del(c, w, p, z->node);
		if (vbr(c, w, VS_iso_busy, busy)) {
			lru_add(c, w, p, src, z->node, false);
			continue;
		}
		lru_add(c, w, p, dst, c->node, false);
		z->lruvec.nr[lru]--;
		nr_taken++;
	}
	*nr_scanned = scan;
	ret(c);
	return nr_taken;
}

/* page_referenced (mm/rmap.c, v4.6): the young PTEs of a mapped page
 * (one mapping per page in the model), cleared as they are counted */
static int page_referenced(struct cpu *c, struct mm_world *w, struct page *p)
{
	vcall(c, w, VF_page_referenced);
	int n = 0;
	if (!vbr(c, w, VS_pr_mapped, !page_mapped(p))) {
		vwork(c, VW_page_referenced);
		/* page_check_address: the PTE of the mapping, on the node of
		 * the page table (the owner's node: the page's own node here) */
		uint64_t pte = ((uint64_t)(page_node(w, p) + 1) << CACHE_AS_SHIFT) + (3ull << 38) +
			       page_pfn(w, p) * 8;
		mem(c, w, pte, page_node(w, p), CPU_LOAD_DEP);
		if (vbr(c, w, VS_pr_young, p->pgflags & PGF_YOUNG)) {
			mem(c, w, pte, page_node(w, p), CPU_STORE);
			p->pgflags &= (uint8_t)~PGF_YOUNG;
			n = 1;
		}
	}
	ret(c);
	return n;
}

enum page_references { PAGEREF_RECLAIM, PAGEREF_RECLAIM_CLEAN, PAGEREF_KEEP, PAGEREF_ACTIVATE };

/* page_check_references (v4.6) */
static enum page_references page_check_references(struct cpu *c, struct mm_world *w,
						  struct page *p)
{
	vcall(c, w, VF_page_check_references);
	enum page_references r;
	int referenced_ptes = page_referenced(c, w, p);
	bool referenced_page = p->pgflags & PGF_REFERENCED;   /* TestClearPageReferenced */
	p->pgflags &= (uint8_t)~PGF_REFERENCED;
	if (vbr(c, w, VS_pcr_ptes, referenced_ptes != 0)) {
		if (vbr(c, w, VS_pcr_swapbacked, p->pgflags & PGF_SWAPBACKED)) {
			r = PAGEREF_ACTIVATE;
			goto out;
		}
		/* All mapped pages start out with page table references from
		 * the instantiating fault, so activate only on a second one. */
		p->pgflags |= PGF_REFERENCED;
		r = vbr(c, w, VS_pcr_twice, referenced_page || referenced_ptes > 1)
			    ? PAGEREF_ACTIVATE : PAGEREF_KEEP;
		goto out;
	}
	r = vbr(c, w, VS_pcr_clean, referenced_page && !(p->pgflags & PGF_SWAPBACKED))
		    ? PAGEREF_RECLAIM_CLEAN : PAGEREF_RECLAIM;
out:
	ret(c);
	return r;
}

/* free_hot_cold_page_list(list, cold = true) (mm/page_alloc.c) */
static void free_hot_cold_page_list(struct cpu *c, struct mm_world *w, struct page *list)
{
	vcall(c, w, VF_free_hot_cold_page_list);
	while (vbr(c, w, VS_fhcpl_loop, !list_empty(list))) {
		struct page *p = list->next;
		list_del(p);
		free_hot_cold_page_ext(c, w, p, true);
	}
	ret(c);
}

struct spl_stat {
	uint64_t nr_dirty, nr_unqueued_dirty;
};

/*
 * shrink_page_list (v4.6) for the pages of page_list (isolated from zone
 * z): reclaim what page_check_references allows, put the rest back on
 * page_list (PG_active set for those to activate).  Freed pages go to the
 * allocator through free_hot_cold_page_list (cold).
 */
static uint64_t shrink_page_list(struct cpu *c, struct mm_world *w, struct zone *z,
				 struct page *page_list, struct scan_control *sc,
				 struct spl_stat *st)
{
	vcall(c, w, VF_shrink_page_list);
	struct page ret_pages, free_pages;
	list_init(&ret_pages, 0);
	list_init(&free_pages, 0);
	uint64_t nr_reclaimed = 0, pgactivate = 0;
	while (vbr(c, w, VS_spl_loop, !list_empty(page_list))) {
		vwork(c, VW_spl_page);
		struct page *p = page_list->prev;         /* lru_to_page */
		list_del(p);
		atomic_rmw(c, w, p->addr, page_node(w, p));  /* trylock_page */
		sc->nr_scanned++;
		bool swapped = false;
		if (vbr(c, w, VS_spl_may_unmap, !sc->may_unmap && page_mapped(p)))
			goto keep_locked;
		/* double the slab pressure for mapped and swapcache pages */
		if (vbr(c, w, VS_spl_mapped, page_mapped(p)))
			sc->nr_scanned++;
		bool file = page_is_file_cache(p);
		bool may_enter_fs = (sc->gfp_mask & __GFP_FS) != 0;
		if (vbr(c, w, VS_spl_dirty, file && (p->pgflags & PGF_DIRTY))) {
			st->nr_dirty++;
			st->nr_unqueued_dirty++;
		}
		enum page_references refs = page_check_references(c, w, p);
		if (vbr(c, w, VS_spl_ref_activate, refs == PAGEREF_ACTIVATE))
			goto activate_locked;
		if (vbr(c, w, VS_spl_ref_keep, refs == PAGEREF_KEEP))
			goto keep_locked;
		if (vbr(c, w, VS_spl_anon, !file)) {
			if (!(sc->gfp_mask & __GFP_IO))
				goto keep_locked;
			/* add_to_swap: get_swap_page, add_to_swap_cache, then
			 * set_page_dirty (swap_set_page_dirty) */
			vcall(c, w, VF_add_to_swap);
			bool slot = w->cfg.reclaim.swap_pages > w->nr_swap_used;
			if (!vbr(c, w, VS_atsw_slot, !slot)) {
				vwork(c, VW_add_to_swap);
				atomic_rmw(c, w, w->swap_info_addr, w->m->nodes[0].id); /* swap_lock */
				atomic_rmw(c, w, w->mapping_addr[0], w->m->nodes[0].id); /* tree_lock */
				w->nr_swap_used++;
				p->pgflags |= PGF_DIRTY;
			}
			ret(c);
			if (vbr(c, w, VS_spl_swap_full, !slot))
				goto activate_locked;
			may_enter_fs = (sc->gfp_mask & __GFP_IO) != 0;
			swapped = true;
		}
		if (vbr(c, w, VS_spl_unmap, page_mapped(p))) {
			/* try_to_unmap (TTU_UNMAP | TTU_BATCH_FLUSH): the PTE
			 * cleared, the TLB flush batched to the end */
			vcall(c, w, VF_try_to_unmap);
			vwork(c, VW_try_to_unmap);
			uint64_t pte = ((uint64_t)(page_node(w, p) + 1) << CACHE_AS_SHIFT) +
				       (3ull << 38) + page_pfn(w, p) * 8;
			mem(c, w, pte, page_node(w, p), CPU_LOAD_DEP);
			mem(c, w, pte, page_node(w, p), CPU_STORE);
			atomic_rmw(c, w, p->addr, page_node(w, p));      /* _mapcount */
			p->pgflags &= (uint8_t)~(PGF_MAPPED | PGF_YOUNG);
			if (file)
				z->lruvec.nr_mapped_file--;
			ret(c);
		}
		if (vbr(c, w, VS_spl_pgdirty, p->pgflags & PGF_DIRTY)) {
			if (vbr(c, w, VS_spl_file_dirty, file && (!sc->kswapd || !z->lruvec.zone_dirty))) {
				z->lruvec.ev[VZ_nr_vmscan_immediate_reclaim]++;
				p->pgflags |= PGF_RECLAIM;
				goto keep_locked;
			}
			if (vbr(c, w, VS_spl_ref_clean, refs == PAGEREF_RECLAIM_CLEAN))
				goto keep_locked;
			if (vbr(c, w, VS_spl_writepage, !may_enter_fs || !sc->may_writepage))
				goto keep_locked;
			/* pageout(): clear_page_dirty_for_io, ->writepage; the
			 * write completes at once in the model (no PG_writeback) */
			vcall(c, w, VF_pageout);
			vwork(c, VW_pageout);
			cpu_work(c, w->cfg.reclaim.writeback_cycles > UINT32_MAX
					    ? UINT32_MAX : (uint32_t)w->cfg.reclaim.writeback_cycles);
			p->pgflags &= (uint8_t)~(PGF_DIRTY | PGF_RECLAIM);
			if (file)
				z->lruvec.nr_dirty_file--;
			else
				z->lruvec.ev[VZ_pswpout]++;
			z->lruvec.ev[VZ_nr_vmscan_write]++;
			ret(c);
		}
		/* __remove_mapping: tree_lock, page_ref_freeze(page, 2), the
		 * radix tree entry deleted (page cache or swap cache) */
		vcall(c, w, VF___remove_mapping);
		vwork(c, VW_remove_mapping);
		atomic_rmw(c, w, w->mapping_addr[file ? 1 : 0], w->m->nodes[0].id);
		atomic_rmw(c, w, p->addr, page_node(w, p));
		ret(c);
		if (w->reclaim_hook)
			w->reclaim_hook(w->reclaim_arg, p->owner, swapped);
		p->pgflags = 0;
		p->owner = 0;
		p->count = 0;
		nr_reclaimed++;
		list_add(p, &free_pages);
		continue;
activate_locked:
		p->pgflags |= PGF_ACTIVE;
		pgactivate++;
keep_locked:
		mem_page(c, w, p, CPU_STORE);                 /* unlock_page */
		list_add(p, &ret_pages);
	}
	free_hot_cold_page_list(c, w, &free_pages);
	/* list_splice(&ret_pages, page_list) */
	while (!list_empty(&ret_pages)) {
		struct page *p = ret_pages.prev;
		list_del(p);
		list_add(p, page_list);
	}
	z->lruvec.ev[VZ_pgactivate] += pgactivate;
	ret(c);
	return nr_reclaimed;
}

/* putback_inactive_pages (v4.6): every page back on its list's head */
static void putback_inactive_pages(struct cpu *c, struct mm_world *w, struct zone *z,
				   struct page *page_list)
{
	vcall(c, w, VF_putback_inactive_pages);
	while (vbr(c, w, VS_pip_loop, !list_empty(page_list))) {
		vwork(c, VW_putback_page);
		struct page *p = page_list->prev;
		list_del(p);
		p->pgflags |= PGF_LRU;
		int lru = page_lru(p);
		add_page_to_lru_list(c, w, z, p, lru);
		if (vbr(c, w, VS_pip_active, is_active_lru(lru)))
			z->lruvec.recent_rotated[is_file_lru(lru)]++;
	}
	ret(c);
}

/* shrink_inactive_list (v4.6) */
static uint64_t shrink_inactive_list(struct cpu *c, struct mm_world *w, struct zone *z,
				     uint64_t nr_to_scan, struct scan_control *sc, int lru)
{
	vcall(c, w, VF_shrink_inactive_list);
	vwork(c, VW_shrink_inactive_list);
	struct page page_list;
	list_init(&page_list, 0);
	int file = is_file_lru(lru);
	int mode = (!sc->may_unmap ? ISOLATE_UNMAPPED : 0) | (!sc->may_writepage ? ISOLATE_CLEAN : 0);
	uint64_t nr_scanned, nr_reclaimed = 0;
	irq_save(c);
	cpu_lock(c, &z->lru_lock);
	uint64_t nr_taken = isolate_lru_pages(c, w, z, nr_to_scan, &page_list, &nr_scanned, mode,
					      lru);
	z->lruvec.nr_isolated[file] += nr_taken;
	/* global reclaim */
	__mod_zone_page_state(c, w, z, NR_PAGES_SCANNED, (int64_t)nr_scanned);
	if (vbr(c, w, VS_sil_kswapd, sc->kswapd))
		z->lruvec.ev[VZ_pgscan_kswapd] += nr_scanned;
	else
		z->lruvec.ev[VZ_pgscan_direct] += nr_scanned;
	cpu_unlock(c, &z->lru_lock);
	irq_restore(c);
	if (vbr(c, w, VS_sil_taken, nr_taken == 0))
		goto out;
	struct spl_stat st = {0, 0};
	nr_reclaimed = shrink_page_list(c, w, z, &page_list, sc, &st);
	irq_save(c);
	cpu_lock(c, &z->lru_lock);
	z->lruvec.recent_scanned[file] += nr_taken;
	if (sc->kswapd)
		z->lruvec.ev[VZ_pgsteal_kswapd] += nr_reclaimed;
	else
		z->lruvec.ev[VZ_pgsteal_direct] += nr_reclaimed;
	putback_inactive_pages(c, w, z, &page_list);
	z->lruvec.nr_isolated[file] -= nr_taken;
	cpu_unlock(c, &z->lru_lock);
	irq_restore(c);
	/* sane_reclaim: flushers not keeping up -> kswapd writes pages */
	if (vbr(c, w, VS_sil_zone_dirty, st.nr_unqueued_dirty == nr_taken))
		z->lruvec.zone_dirty = 1;
out:
	ret(c);
	return nr_reclaimed;
}

/* move_active_pages_to_lru (v4.6) */
static void move_active_pages_to_lru(struct cpu *c, struct mm_world *w, struct zone *z,
				     struct page *list, int lru)
{
	vcall(c, w, VF_move_active_pages_to_lru);
	uint64_t moved = 0;
	while (vbr(c, w, VS_mapl_loop, !list_empty(list))) {
		vwork(c, VW_move_active_page);
		struct page *p = list->prev;
		list_del(p);
		p->pgflags |= PGF_LRU;
		add_page_to_lru_list(c, w, z, p, lru);
		moved++;
	}
	if (!is_active_lru(lru))
		z->lruvec.ev[VZ_pgdeactivate] += moved;
	ret(c);
}

/* shrink_active_list (v4.6) */
static void shrink_active_list(struct cpu *c, struct mm_world *w, struct zone *z,
			       uint64_t nr_to_scan, struct scan_control *sc, int lru)
{
	vcall(c, w, VF_shrink_active_list);
	vwork(c, VW_shrink_active_list);
	struct page l_hold, l_active, l_inactive;
	list_init(&l_hold, 0);
	list_init(&l_active, 0);
	list_init(&l_inactive, 0);
	int file = is_file_lru(lru);
	int mode = (!sc->may_unmap ? ISOLATE_UNMAPPED : 0) | (!sc->may_writepage ? ISOLATE_CLEAN : 0);
	uint64_t nr_scanned, nr_rotated = 0;
	irq_save(c);
	cpu_lock(c, &z->lru_lock);
	uint64_t nr_taken = isolate_lru_pages(c, w, z, nr_to_scan, &l_hold, &nr_scanned, mode, lru);
	__mod_zone_page_state(c, w, z, NR_PAGES_SCANNED, (int64_t)nr_scanned);
	z->lruvec.recent_scanned[file] += nr_taken;
	z->lruvec.ev[VZ_pgrefill] += nr_scanned;
	z->lruvec.nr_isolated[file] += nr_taken;
	cpu_unlock(c, &z->lru_lock);
	irq_restore(c);
	while (vbr(c, w, VS_sal_loop, !list_empty(&l_hold))) {
		vwork(c, VW_deactivate_page);
		struct page *p = l_hold.prev;
		list_del(p);
		if (vbr(c, w, VS_sal_referenced, page_referenced(c, w, p) != 0))
			nr_rotated++;   /* VM_EXEC file pages would stay active: not modelled */
		p->pgflags &= (uint8_t)~PGF_ACTIVE;
		list_add(p, &l_inactive);
	}
	irq_save(c);
	cpu_lock(c, &z->lru_lock);
	z->lruvec.recent_rotated[file] += nr_rotated;
	move_active_pages_to_lru(c, w, z, &l_active, lru);
	move_active_pages_to_lru(c, w, z, &l_inactive, lru - 1);
	z->lruvec.nr_isolated[file] -= nr_taken;
	cpu_unlock(c, &z->lru_lock);
	irq_restore(c);
	ret(c);
}

/* shrink_list (v4.6) */
static uint64_t shrink_list(struct cpu *c, struct mm_world *w, struct zone *z, int lru,
			    uint64_t nr_to_scan, struct scan_control *sc)
{
	vcall(c, w, VF_shrink_list);
	vwork(c, VW_shrink_list_call);
	uint64_t r = 0;
	if (vbr(c, w, VS_shl_active, is_active_lru(lru))) {
		if (vbr(c, w, VS_shl_low, inactive_list_is_low(c, w, z, lru)))
			shrink_active_list(c, w, z, nr_to_scan, sc, lru);
	} else {
		r = shrink_inactive_list(c, w, z, nr_to_scan, sc, lru);
	}
	ret(c);
	return r;
}

enum scan_balance { SCAN_EQUAL, SCAN_FRACT, SCAN_ANON, SCAN_FILE };

/* get_scan_count (v4.6), root memcg */
static void get_scan_count(struct cpu *c, struct mm_world *w, struct zone *z,
			   struct scan_control *sc, uint64_t nr[MM_NR_LRU_LISTS])
{
	vcall(c, w, VF_get_scan_count);
	vwork(c, VW_get_scan_count);
	struct lruvec *lv = &z->lruvec;
	uint64_t fraction[2] = {0, 0}, denominator = 1;
	uint32_t swappiness = w->cfg.reclaim.swappiness;
	enum scan_balance balance;
	bool force_scan = sc->kswapd && !zone_reclaimable(c, w, z);
	mem(c, w, z->addr + ZOFF_RECLAIM_STAT, z->node, CPU_LOAD_DEP);
	if (vbr(c, w, VS_gsc_noswap, !sc->may_swap || w->cfg.reclaim.swap_pages <= w->nr_swap_used)) {
		balance = SCAN_FILE;
		goto out;
	}
	if (vbr(c, w, VS_gsc_equal, sc->priority == 0 && swappiness)) {
		balance = SCAN_EQUAL;
		goto out;
	}
	mem(c, w, zaddr_stat(z, NR_FREE_PAGES), z->node, CPU_LOAD_DEP);
	uint64_t zonefree = (uint64_t)zone_page_state(z, NR_FREE_PAGES);
	uint64_t zonefile = lv->nr[MM_LRU_ACTIVE_FILE] + lv->nr[MM_LRU_INACTIVE_FILE];
	if (vbr(c, w, VS_gsc_cache_trap, zonefile + zonefree <= (uint64_t)z->watermark[2])) {
		balance = SCAN_ANON;
		goto out;
	}
	if (vbr(c, w, VS_gsc_file_enough, !inactive_list_is_low(c, w, z, MM_LRU_INACTIVE_FILE) &&
						 (lv->nr[MM_LRU_INACTIVE_FILE] >> sc->priority))) {
		balance = SCAN_FILE;
		goto out;
	}
	balance = SCAN_FRACT;
	uint64_t anon_prio = swappiness, file_prio = 200 - swappiness;
	uint64_t anon = lv->nr[MM_LRU_ACTIVE_ANON] + lv->nr[MM_LRU_INACTIVE_ANON];
	uint64_t file = zonefile;
	irq_save(c);
	cpu_lock(c, &z->lru_lock);
	if (vbr(c, w, VS_gsc_halve, lv->recent_scanned[0] > anon / 4)) {
		lv->recent_scanned[0] /= 2;
		lv->recent_rotated[0] /= 2;
	}
	if (vbr(c, w, VS_gsc_halve, lv->recent_scanned[1] > file / 4)) {
		lv->recent_scanned[1] /= 2;
		lv->recent_rotated[1] /= 2;
	}
	uint64_t ap = anon_prio * (lv->recent_scanned[0] + 1) / (lv->recent_rotated[0] + 1);
	uint64_t fp = file_prio * (lv->recent_scanned[1] + 1) / (lv->recent_rotated[1] + 1);
	cpu_unlock(c, &z->lru_lock);
	irq_restore(c);
	fraction[0] = ap;
	fraction[1] = fp;
	denominator = ap + fp + 1;
out:;
	bool some_scanned = false;
	for (int pass = 0; vbr(c, w, VS_gsc_pass, !some_scanned && pass < 2); pass++) {
		for (int lru = 0; lru < MM_NR_LRU_LISTS; lru++) {
			int file_lru = is_file_lru(lru);
			uint64_t size = lv->nr[lru];
			uint64_t scan = size >> sc->priority;
			if (vbr(c, w, VS_gsc_force, !scan && pass && force_scan))
				scan = size < SWAP_CLUSTER_MAX ? size : SWAP_CLUSTER_MAX;
			switch (balance) {
			case SCAN_EQUAL:
				break;
			case SCAN_FRACT:
				scan = scan * fraction[file_lru] / denominator;
				break;
			case SCAN_FILE:
			case SCAN_ANON:
				if ((balance == SCAN_FILE) != (file_lru != 0))
					scan = 0;
				break;
			}
			nr[lru] = scan;
			some_scanned |= scan != 0;
		}
	}
	ret(c);
}

/* shrink_lruvec (v4.6) */
static void shrink_lruvec(struct cpu *c, struct mm_world *w, struct zone *z,
			  struct scan_control *sc)
{
	vcall(c, w, VF_shrink_lruvec);
	uint64_t nr[MM_NR_LRU_LISTS], targets[MM_NR_LRU_LISTS];
	uint64_t nr_reclaimed = 0, nr_to_reclaim = sc->nr_to_reclaim;
	get_scan_count(c, w, z, sc, nr);
	memcpy(targets, nr, sizeof nr);
	bool scan_adjusted = !sc->kswapd && sc->priority == DEF_PRIORITY;
	while (vbr(c, w, VS_sl_loop, nr[MM_LRU_INACTIVE_ANON] || nr[MM_LRU_ACTIVE_FILE] ||
					     nr[MM_LRU_INACTIVE_FILE])) {
		vwork(c, VW_shrink_lruvec_iter);
		for (int lru = 0; lru < MM_NR_LRU_LISTS; lru++) {
			if (vbr(c, w, VS_sl_nr, nr[lru] != 0)) {
				uint64_t n = nr[lru] < SWAP_CLUSTER_MAX ? nr[lru] : SWAP_CLUSTER_MAX;
				nr[lru] -= n;
				nr_reclaimed += shrink_list(c, w, z, lru, n, sc);
			}
		}
		if (vbr(c, w, VS_sl_continue, nr_reclaimed < nr_to_reclaim || scan_adjusted))
			continue;
		uint64_t nr_file = nr[MM_LRU_INACTIVE_FILE] + nr[MM_LRU_ACTIVE_FILE];
		uint64_t nr_anon = nr[MM_LRU_INACTIVE_ANON] + nr[MM_LRU_ACTIVE_ANON];
		if (vbr(c, w, VS_sl_one_empty, !nr_file || !nr_anon))
			break;
		int lru;
		uint64_t percentage;
		if (nr_file > nr_anon) {
			uint64_t target = targets[MM_LRU_INACTIVE_ANON] + targets[MM_LRU_ACTIVE_ANON] + 1;
			lru = MM_LRU_INACTIVE_ANON;
			percentage = nr_anon * 100 / target;
		} else {
			uint64_t target = targets[MM_LRU_INACTIVE_FILE] + targets[MM_LRU_ACTIVE_FILE] + 1;
			lru = MM_LRU_INACTIVE_FILE;
			percentage = nr_file * 100 / target;
		}
		nr[lru] = 0;
		nr[lru + 1] = 0;
		lru = lru == MM_LRU_INACTIVE_FILE ? MM_LRU_INACTIVE_ANON : MM_LRU_INACTIVE_FILE;
		for (int k = 0; k < 2; k++, lru++) {
			uint64_t scanned = targets[lru] - nr[lru];
			nr[lru] = targets[lru] * (100 - percentage) / 100;
			nr[lru] -= nr[lru] < scanned ? nr[lru] : scanned;
		}
		scan_adjusted = true;
	}
	sc->nr_reclaimed += nr_reclaimed;
	if (vbr(c, w, VS_sl_anon_low, inactive_list_is_low(c, w, z, MM_LRU_INACTIVE_ANON)))
		shrink_active_list(c, w, z, SWAP_CLUSTER_MAX, sc, MM_LRU_ACTIVE_ANON);
	ret(c);
}

/* shrink_zone (v4.6): root memcg only; should_continue_reclaim is false
 * for order 0, so one pass */
static bool shrink_zone(struct cpu *c, struct mm_world *w, struct zone *z,
			struct scan_control *sc)
{
	vcall(c, w, VF_shrink_zone);
	vwork(c, VW_shrink_zone);
	uint64_t before = sc->nr_reclaimed;
	shrink_lruvec(c, w, z, sc);
	/* shrink_slab: no reclaimable slab in the model */
	bool reclaimable = vbr(c, w, VS_szn_progress, sc->nr_reclaimed != before);
	ret(c);
	return reclaimable;
}

/* --- direct reclaim --------------------------------------------------- */

/* shrink_zones (v4.6) over the allocation's zonelist */
static bool shrink_zones(struct cpu *c, struct mm_world *w, const struct alloc_context *ac,
			 struct scan_control *sc)
{
	vcall(c, w, VF_shrink_zones);
	bool reclaimable = false;
	const struct mm_zoneref *zr = ac->zl_node->zonerefs[ac->zl_kind];
	struct zone *zone;
	int i = first_zones_zonelist(c, w, ac->zl_node, ac->zl_kind, gfp_zone(sc->gfp_mask),
				     sc->nodemask, &zone);
	for (; zone; i = next_zones_zonelist(c, w, ac->zl_node, ac->zl_kind, i + 1,
					     gfp_zone(sc->gfp_mask), sc->nodemask),
		     zone = zr[i].zone) {
		vwork(c, VW_shrink_zones_zone);
		bool allowed = true;
		if (cpusets_enabled(w))
			allowed = __cpuset_node_allowed(c, w, zone->node, GFP_KERNEL | __GFP_HARDWALL);
		if (vbr(c, w, VS_sz_cpuset, !allowed))
			continue;
		if (vbr(c, w, VS_sz_unreclaimable, sc->priority != DEF_PRIORITY &&
							   !zone_reclaimable(c, w, zone)))
			continue;
		bool r = shrink_zone(c, w, zone, sc);
		if (vbr(c, w, VS_sz_reclaimable, r || zone_reclaimable(c, w, zone)))
			reclaimable = true;
	}
	ret(c);
	return reclaimable;
}

/* do_try_to_free_pages (v4.6) */
static uint64_t do_try_to_free_pages(struct cpu *c, struct mm_world *w,
				     const struct alloc_context *ac, struct scan_control *sc)
{
	vcall(c, w, VF_do_try_to_free_pages);
	uint64_t total_scanned = 0, progress;
	bool zones_reclaimable = false;
	if (vbr(c, w, VS_dt_allocstall, true))                 /* global_reclaim */
		w->nodes[ac->preferred_zone->node_pos].vm_ev[VN_allocstall]++;
	do {
		vwork(c, VW_dtffp_iter);
		sc->nr_scanned = 0;
		zones_reclaimable = shrink_zones(c, w, ac, sc);
		total_scanned += sc->nr_scanned;
		if (vbr(c, w, VS_dt_enough, sc->nr_reclaimed >= sc->nr_to_reclaim))
			break;
		if (vbr(c, w, VS_dt_writepage, sc->priority < DEF_PRIORITY - 2))
			sc->may_writepage = 1;
		/* wakeup_flusher_threads: no flushers in the model */
		if (vbr(c, w, VS_dt_flusher,
			total_scanned > sc->nr_to_reclaim + sc->nr_to_reclaim / 2))
			sc->may_writepage = 1;
	} while (vbr(c, w, VS_dt_loop, --sc->priority >= 0));
	if (vbr(c, w, VS_dt_reclaimed, sc->nr_reclaimed != 0))
		progress = sc->nr_reclaimed;
	else
		progress = vbr(c, w, VS_dt_zones_reclaimable, zones_reclaimable) ? 1 : 0;
	ret(c);
	return progress;
}

/* try_to_free_pages (v4.6); throttle_direct_reclaim never throttles in
 * the model (documented) */
static uint64_t try_to_free_pages(struct cpu *c, struct mm_world *w,
				  const struct alloc_context *ac, int order, uint32_t gfp)
{
	vcall(c, w, VF_try_to_free_pages);
	vwork(c, VW_try_to_free_pages);
	struct scan_control sc = {
		.nr_to_reclaim = SWAP_CLUSTER_MAX,
		.gfp_mask = gfp,
		.order = order,
		.nodemask = ac->nodemask,
		.priority = DEF_PRIORITY,
		.may_writepage = 1,              /* !laptop_mode */
		.may_unmap = 1,
		.may_swap = 1,
	};
	uint64_t r = do_try_to_free_pages(c, w, ac, &sc);
	ret(c);
	return r;
}

/*
 * The reclaim half of __alloc_pages_slowpath (mm/page_alloc.c, v4.6),
 * after its first get_page_from_freelist failed: direct compaction
 * (returns at once for order 0), __alloc_pages_direct_reclaim, the retry
 * decision and __alloc_pages_may_oom.  *retry: goto retry (wake kswapd
 * again, recompute the flags, try the freelists).
 */
static struct page *__alloc_pages_direct_reclaim(struct cpu *c, struct mm_world *w,
						 uint32_t gfp, int order, int alloc_flags,
						 struct alloc_context *ac,
						 uint64_t *did_some_progress)
{
	vcall(c, w, VF___alloc_pages_direct_reclaim);
	vwork(c, VW_direct_reclaim);
	struct page *page = NULL;
	/* __perform_reclaim: cond_resched, PF_MEMALLOC set around it */
	vcall(c, w, VF___perform_reclaim);
	struct mm_cpu *ci = &w->cpus[c->idx];
	mem(c, w, ci->task + TASK_FLAGS, c->node, CPU_STORE);
	*did_some_progress = try_to_free_pages(c, w, ac, order, gfp);
	mem(c, w, ci->task + TASK_FLAGS, c->node, CPU_STORE);
	ret(c);
	if (vbr(c, w, VS_dr_progress, *did_some_progress == 0))
		goto out;
	bool drained = false;
retry:
	page = get_page_from_freelist_ext(c, w, gfp, order, alloc_flags & ~ALLOC_NO_WATERMARKS, ac);
	if (vbr(c, w, VS_dr_drained, !page && !drained)) {
		/* unreserve_highatomic_pageblock: no reserves in the model */
		drain_all_pages(c, w);
		drained = true;
		goto retry;
	}
out:
	ret(c);
	return page;
}

static struct page *__alloc_pages_may_oom(struct cpu *c, struct mm_world *w, uint32_t gfp,
					  int order, struct alloc_context *ac,
					  uint64_t *did_some_progress)
{
	vcall(c, w, VF___alloc_pages_may_oom);
	vwork(c, VW_may_oom);
	*did_some_progress = 0;
	/* oom_lock: one allocating task at a time in the model, never held */
	struct page *page = get_page_from_freelist_ext(c, w, gfp | __GFP_HARDWALL, order,
						       ALLOC_WMARK_HIGH | ALLOC_CPUSET, ac);
	if (vbr(c, w, VS_oom_page, page != NULL))
		goto out;
	if (!(gfp & __GFP_NOFAIL)) {
		if (vbr(c, w, VS_oom_costly, order > PAGE_ALLOC_COSTLY_ORDER))
			goto out;
		if (vbr(c, w, VS_oom_lowmem, ac->high_zoneidx < ZONE_NORMAL))
			goto out;
		if (vbr(c, w, VS_oom_nofs, !(gfp & __GFP_FS))) {
			*did_some_progress = 1;
			goto out;
		}
		if (vbr(c, w, VS_oom_thisnode, gfp & __GFP_THISNODE))
			goto out;
	}
	/* out_of_memory(): the decision is counted, nothing is killed, so
	 * it reports no progress and the allocation fails */
	vcall(c, w, VF_out_of_memory);
	w->nodes[ac->preferred_zone->node_pos].vm_ev[VN_oom]++;
	ret(c);
out:
	ret(c);
	return page;
}

struct page *alloc_pages_reclaim_tail(struct cpu *c, struct mm_world *w, uint32_t gfp,
				      int order, int alloc_flags, struct alloc_context *ac,
				      bool *retry)
{
	struct page *page = NULL;
	uint64_t progress = 0;
	*retry = false;
	if (vbr(c, w, VS_sp_can_reclaim, !(gfp & __GFP_DIRECT_RECLAIM)))
		return NULL;
	/* PF_MEMALLOC: the model's reclaimers never allocate */
	if (vbr(c, w, VS_sp_memalloc, false))
		return NULL;
	/* __alloc_pages_direct_compact: !order -> NULL */
	page = __alloc_pages_direct_reclaim(c, w, gfp, order, alloc_flags, ac, &progress);
	if (vbr(c, w, VS_sp_page, page != NULL))
		return page;
	if (vbr(c, w, VS_sp_noretry, gfp & __GFP_NORETRY))
		return NULL;
	if (vbr(c, w, VS_sp_retry, (progress && order <= PAGE_ALLOC_COSTLY_ORDER) ||
					   ((gfp & __GFP_REPEAT) && progress < (1u << order)))) {
		/* wait_iff_congested: no congestion in the model */
		*retry = true;
		return NULL;
	}
	page = __alloc_pages_may_oom(c, w, gfp, order, ac, &progress);
	if (vbr(c, w, VS_sp_oom_page, page != NULL))
		return page;
	if (vbr(c, w, VS_sp_oom_progress, progress != 0))
		*retry = true;
	return NULL;
}

/* --- kswapd ------------------------------------------------------------ */

/* wakeup_kswapd (v4.6) */
static void wakeup_kswapd(struct cpu *c, struct mm_world *w, struct zone *z, int order,
			  int classzone_idx)
{
	vcall(c, w, VF_wakeup_kswapd);
	vwork(c, VW_wakeup_kswapd);
	struct pglist_data *pn = &w->nodes[z->node_pos];
	if (vbr(c, w, VS_wk_populated, z->managed == 0))
		goto out;
	bool allowed = true;
	if (cpusets_enabled(w))
		allowed = __cpuset_node_allowed(c, w, z->node, GFP_KERNEL | __GFP_HARDWALL);
	if (vbr(c, w, VS_wk_cpuset, !allowed))
		goto out;
	mem(c, w, pn->pgdat_addr, z->node, CPU_LOAD_DEP);
	if (pn->kswapd_max_order < order)
		pn->kswapd_max_order = order;
	if (!pn->kswapd_woken && !pn->kswapd_running)
		pn->classzone_idx = classzone_idx;
	else if (classzone_idx < pn->classzone_idx)
		pn->classzone_idx = classzone_idx;
	/* waitqueue_active: kswapd is asleep (not running, not yet woken) */
	if (vbr(c, w, VS_wk_waitqueue, pn->kswapd_woken || pn->kswapd_running))
		goto out;
	if (vbr(c, w, VS_wk_balanced, zone_balanced(c, w, z, order, 0, 0)))
		goto out;
	pn->kswapd_woken = ++w->kswapd_wake_seq;
	pn->vm_ev[VN_kswapd_wakeup]++;
out:
	ret(c);
}

void wake_all_kswapds(struct cpu *c, struct mm_world *w, int order,
		      const struct alloc_context *ac)
{
	const struct mm_zoneref *zr = ac->zl_node->zonerefs[ac->zl_kind];
	struct zone *zone;
	int i = first_zones_zonelist(c, w, ac->zl_node, ac->zl_kind, ac->high_zoneidx,
				     ac->nodemask, &zone);
	for (; zone; i = next_zones_zonelist(c, w, ac->zl_node, ac->zl_kind, i + 1,
					     ac->high_zoneidx, ac->nodemask),
		     zone = zr[i].zone)
		wakeup_kswapd(c, w, zone, order, ac->preferred_zone->type);
}

int mm_kswapd_woken(const struct mm_world *w)
{
	int best = -1;
	for (int n = 0; n < w->nr_nodes; n++)
		if (w->nodes[n].kswapd_woken &&
		    (best < 0 || w->nodes[n].kswapd_woken < w->nodes[best].kswapd_woken))
			best = n;
	return best;
}

int mm_kswapd_cpu(const struct mm_world *w, int node_pos)
{
	int best = -1;
	for (int k = 0; k < w->s->nr_cpus; k++)
		if (w->cpus[k].node_pos == node_pos)
			best = k;
	return best;
}

/* pgdat_balanced (v4.6), order 0 */
static bool pgdat_balanced(struct cpu *c, struct mm_world *w, struct pglist_data *pn,
			   int classzone_idx)
{
	vcall(c, w, VF_pgdat_balanced);
	bool r = true;
	for (int i = 0; vbr(c, w, VS_pb_zone, i <= classzone_idx); i++) {
		struct zone *z = pn->zones[i];
		if (!z)
			continue;
		if (vbr(c, w, VS_pb_reclaimable, !zone_reclaimable(c, w, z)))
			continue;
		if (!vbr(c, w, VS_pb_balanced, zone_balanced(c, w, z, 0, 0, i))) {
			r = false;
			break;
		}
	}
	ret(c);
	return r;
}

/* kswapd_shrink_zone (v4.6) */
static bool kswapd_shrink_zone(struct cpu *c, struct mm_world *w, struct zone *z,
			       int classzone_idx, struct scan_control *sc)
{
	vcall(c, w, VF_kswapd_shrink_zone);
	vwork(c, VW_kswapd_shrink_zone);
	bool r;
	uint64_t high = (uint64_t)z->watermark[2];
	sc->nr_to_reclaim = high > SWAP_CLUSTER_MAX ? high : SWAP_CLUSTER_MAX;
	uint64_t gap = (z->managed + KSWAPD_ZONE_BALANCE_GAP_RATIO - 1) /
		       KSWAPD_ZONE_BALANCE_GAP_RATIO;
	if ((uint64_t)z->watermark[1] < gap)
		gap = (uint64_t)z->watermark[1];
	if (vbr(c, w, VS_ksz_balanced, zone_balanced(c, w, z, 0, gap, classzone_idx))) {
		r = true;
		goto out;
	}
	shrink_zone(c, w, z, sc);
	if (zone_reclaimable(c, w, z) && zone_balanced(c, w, z, 0, 0, classzone_idx))
		z->lruvec.zone_dirty = 0;
	r = vbr(c, w, VS_ksz_scanned, sc->nr_scanned >= sc->nr_to_reclaim);
out:
	ret(c);
	return r;
}

/* age_active_anon (v4.6) */
static void age_active_anon(struct cpu *c, struct mm_world *w, struct zone *z,
			    struct scan_control *sc)
{
	vcall(c, w, VF_age_active_anon);
	if (!vbr(c, w, VS_aaa_swap, w->cfg.reclaim.swap_pages == 0) &&
	    inactive_list_is_low(c, w, z, MM_LRU_INACTIVE_ANON))
		shrink_active_list(c, w, z, SWAP_CLUSTER_MAX, sc, MM_LRU_ACTIVE_ANON);
	ret(c);
}

/*
 * One iteration of balance_pgdat's do { } while (sc.priority >= 1 &&
 * !pgdat_balanced()) loop (v4.6), order 0.  Returns 1 while kswapd
 * continues, 0 when balance_pgdat returns and kswapd sleeps again
 * (kswapd_try_to_sleep: it was woken at most once more meanwhile, which
 * the kernel's prepare_to_wait / kswapd_max_order re-check would see).
 */
int mm_kswapd_run(struct mm_world *w, struct cpu *c, int node_pos)
{
	struct pglist_data *pn = &w->nodes[node_pos];
	memo_reset(w, c);
	if (!pn->kswapd_running) {
		if (!pn->kswapd_woken)
			return 0;
		pn->kswapd_woken = 0;
		pn->kswapd_running = 1;
		pn->kswapd_priority = DEF_PRIORITY;
		pn->kswapd_max_order = 0;
		pn->vm_ev[VN_pageoutrun]++;
	}
	vcall(c, w, VF_kswapd);
	vcall(c, w, VF_balance_pgdat);
	vwork(c, VW_balance_iter);
	pn->vm_ev[VN_kswapd_steps]++;
	int classzone_idx = pn->classzone_idx;
	struct scan_control sc = {
		.gfp_mask = GFP_KERNEL,
		.order = 0,
		.priority = pn->kswapd_priority,
		.may_writepage = 1,
		.may_unmap = 1,
		.may_swap = 1,
		.kswapd = 1,
	};
	bool raise_priority = true, more = true;
	int end_zone = -1;
	for (int i = NR_ZONE_TYPES - 1; vbr(c, w, VS_bp_zone_down, i >= 0); i--) {
		struct zone *z = pn->zones[i];
		if (!z)
			continue;
		vwork(c, VW_balance_zone);
		if (vbr(c, w, VS_bp_unreclaimable, sc.priority != DEF_PRIORITY &&
							   !zone_reclaimable(c, w, z)))
			continue;
		age_active_anon(c, w, z, &sc);
		if (vbr(c, w, VS_bp_unbalanced, !zone_balanced(c, w, z, 0, 0, 0))) {
			end_zone = i;
			break;
		}
		z->lruvec.zone_dirty = 0;
	}
	if (vbr(c, w, VS_bp_all_balanced, end_zone < 0)) {
		more = false;
		goto out;
	}
	if (vbr(c, w, VS_bp_writepage, sc.priority < DEF_PRIORITY - 2))
		sc.may_writepage = 1;
	for (int i = 0; vbr(c, w, VS_bp_zone_up, i <= end_zone); i++) {
		struct zone *z = pn->zones[i];
		if (!z)
			continue;
		vwork(c, VW_balance_zone);
		if (sc.priority != DEF_PRIORITY && !zone_reclaimable(c, w, z))
			continue;
		sc.nr_scanned = 0;
		if (kswapd_shrink_zone(c, w, z, end_zone, &sc))
			raise_priority = false;
	}
	if (vbr(c, w, VS_bp_raise, raise_priority || !sc.nr_reclaimed))
		pn->kswapd_priority--;
	more = vbr(c, w, VS_bp_loop, pn->kswapd_priority >= 1 &&
					     !pgdat_balanced(c, w, pn, classzone_idx));
out:
	ret(c);
	ret(c);
	if (!more) {
		pn->kswapd_running = 0;
		pn->kswapd_woken = 0;
	}
	return more;
}

/* --- the owner's side (mm/swap.c) -------------------------------------- */

void mm_lru_add(struct mm_world *w, struct cpu *c, struct page *p, enum mm_page_kind kind,
		int dirty, uint32_t owner)
{
	memo_reset(w, c);
	struct zone *z = page_zone(w, p);
	assert(p->state == PS_ALLOC && !(p->pgflags & PGF_LRU));
	vcall(c, w, VF_lru_cache_add);
	vwork(c, VW_lru_cache_add);
	p->owner = owner;
	p->pgflags = PGF_LRU;
	if (kind == MM_PAGE_ANON)
		p->pgflags |= PGF_SWAPBACKED | PGF_MAPPED | PGF_ACTIVE | PGF_YOUNG;
	if (kind == MM_PAGE_FILE_MAPPED) {
		p->pgflags |= PGF_MAPPED | PGF_YOUNG;
		z->lruvec.nr_mapped_file++;
	}
	if (kind != MM_PAGE_ANON && dirty) {
		p->pgflags |= PGF_DIRTY;
		z->lruvec.nr_dirty_file++;
	}
	irq_save(c);
	cpu_lock(c, &z->lru_lock);
	add_page_to_lru_list(c, w, z, p, page_lru(p));
	cpu_unlock(c, &z->lru_lock);
	irq_restore(c);
	ret(c);
}

void mm_page_touch(struct mm_world *w, struct cpu *c, struct page *p)
{
	memo_reset(w, c);
	if (page_mapped(p)) {
		/* the hardware sets the PTE accessed bit: no kernel code */
		p->pgflags |= PGF_YOUNG;
		return;
	}
	vcall(c, w, VF_mark_page_accessed);
	vwork(c, VW_mark_page_accessed);
	mem_page(c, w, p, CPU_LOAD_DEP);
	if (vbr(c, w, VS_mpa_activate, !(p->pgflags & PGF_ACTIVE) &&
					       (p->pgflags & PGF_REFERENCED) &&
					       (p->pgflags & PGF_LRU))) {
		/* activate_page -> __activate_page under zone->lru_lock */
		struct zone *z = page_zone(w, p);
		vcall(c, w, VF_activate_page);
		irq_save(c);
		cpu_lock(c, &z->lru_lock);
		del_page_from_lru_list(c, w, z, p, page_lru(p));
		p->pgflags |= PGF_ACTIVE;
		add_page_to_lru_list(c, w, z, p, page_lru(p));
		z->lruvec.ev[VZ_pgactivate]++;
		cpu_unlock(c, &z->lru_lock);
		irq_restore(c);
		ret(c);
		p->pgflags &= (uint8_t)~PGF_REFERENCED;
	} else if (!(p->pgflags & PGF_REFERENCED)) {
		p->pgflags |= PGF_REFERENCED;
		mem_page(c, w, p, CPU_STORE);
	}
	ret(c);
}

void mm_lru_release(struct mm_world *w, struct cpu *c, struct page *p)
{
	memo_reset(w, c);
	struct zone *z = page_zone(w, p);
	assert(p->pgflags & PGF_LRU);
	/* __page_cache_release: off the LRU under lru_lock, then freed */
	irq_save(c);
	cpu_lock(c, &z->lru_lock);
	del_page_from_lru_list(c, w, z, p, page_lru(p));
	cpu_unlock(c, &z->lru_lock);
	irq_restore(c);
	if ((p->pgflags & PGF_MAPPED) && !(p->pgflags & PGF_SWAPBACKED))
		z->lruvec.nr_mapped_file--;
	if ((p->pgflags & PGF_DIRTY) && !(p->pgflags & PGF_SWAPBACKED))
		z->lruvec.nr_dirty_file--;
	p->pgflags = 0;
	p->owner = 0;
	mm_free_pages(w, c, p, 0);
}

/* --- zone_reclaim (v4.6) ------------------------------------------------ */

bool zone_allows_reclaim(const struct mm_world *w, const struct zone *local,
			 const struct zone *zone)
{
	return machine_distance(w->m, local->node, zone->node) < RECLAIM_DISTANCE;
}

static uint64_t zone_pagecache_reclaimable(struct cpu *c, struct mm_world *w, struct zone *z)
{
	vcall(c, w, VF_zone_pagecache_reclaimable);
	const struct lruvec *lv = &z->lruvec;
	uint64_t file = lv->nr[MM_LRU_INACTIVE_FILE] + lv->nr[MM_LRU_ACTIVE_FILE];
	uint64_t nr, delta = 0;
	mem(c, w, z->addr + ZOFF_RECLAIM_STAT, z->node, CPU_LOAD_DEP);
	if (vbr(c, w, VS_zpr_unmap, w->cfg.zone_reclaim_mode & RECLAIM_UNMAP))
		nr = file;                             /* NR_FILE_PAGES */
	else
		nr = file > lv->nr_mapped_file ? file - lv->nr_mapped_file : 0;
	if (vbr(c, w, VS_zpr_write, !(w->cfg.zone_reclaim_mode & RECLAIM_WRITE)))
		delta += lv->nr_dirty_file;
	if (delta > nr)
		delta = nr;
	ret(c);
	return nr - delta;
}

int zone_reclaim(struct cpu *c, struct mm_world *w, struct zone *z, uint32_t gfp, int order)
{
	vcall(c, w, VF_zone_reclaim);
	vwork(c, VW_zone_reclaim);
	int status;
	struct lruvec *lv = &z->lruvec;
	uint64_t nr_slab_reclaimable = 0;     /* NR_SLAB_RECLAIMABLE: no slab model */
	if (vbr(c, w, VS_zr_full, zone_pagecache_reclaimable(c, w, z) <= lv->min_unmapped_pages &&
					  nr_slab_reclaimable <= lv->min_slab_pages)) {
		status = ZONE_RECLAIM_FULL;
		goto out;
	}
	if (vbr(c, w, VS_zr_unreclaimable, !zone_reclaimable(c, w, z))) {
		status = ZONE_RECLAIM_FULL;
		goto out;
	}
	if (vbr(c, w, VS_zr_noblock, !(gfp & __GFP_DIRECT_RECLAIM))) {
		status = ZONE_RECLAIM_NOSCAN;
		goto out;
	}
	if (vbr(c, w, VS_zr_remote, z->node != w->cpus[c->idx].numa_node)) {
		status = ZONE_RECLAIM_NOSCAN;
		goto out;
	}
	if (vbr(c, w, VS_zr_locked, lv->reclaim_locked)) {
		status = ZONE_RECLAIM_NOSCAN;
		goto out;
	}
	lv->reclaim_locked = 1;
	atomic_rmw(c, w, z->addr + ZOFF_FLAGS, z->node);
	/* __zone_reclaim */
	vcall(c, w, VF___zone_reclaim);
	lv->ev[VZ_zone_reclaim]++;
	uint64_t nr_pages = 1u << order;
	struct scan_control sc = {
		.nr_to_reclaim = nr_pages > SWAP_CLUSTER_MAX ? nr_pages : SWAP_CLUSTER_MAX,
		.gfp_mask = gfp,
		.order = order,
		.priority = ZONE_RECLAIM_PRIORITY,
		.may_writepage = (w->cfg.zone_reclaim_mode & RECLAIM_WRITE) != 0,
		.may_unmap = (w->cfg.zone_reclaim_mode & RECLAIM_UNMAP) != 0,
		.may_swap = 1,
	};
	if (vbr(c, w, VS_zr_pagecache, zone_pagecache_reclaimable(c, w, z) > lv->min_unmapped_pages)) {
		do {
			shrink_zone(c, w, z, &sc);
		} while (vbr(c, w, VS_zr_loop, sc.nr_reclaimed < nr_pages && --sc.priority >= 0));
	}
	ret(c);
	status = sc.nr_reclaimed >= nr_pages;
	lv->reclaim_locked = 0;
	atomic_rmw(c, w, z->addr + ZOFF_FLAGS, z->node);
	if (vbr(c, w, VS_zr_failed, !status))
		lv->ev[VZ_zone_reclaim_failed]++;
out:
	ret(c);
	return status;
}
