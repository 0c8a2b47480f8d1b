/*
 * vmscan — page reclaim of Linux v4.6 (mm/vmscan.c, the reclaim half of
 * mm/page_alloc.c's slow path, and the LRU helpers of mm/swap.c) over the
 * page allocator model of models/page_alloc.c; see models/vmscan.c (its
 * cold half: models/vmscan_setup.c) and docs/design/reclaim-model.md.  Included
 * by models/page_alloc.h.
 *
 * What it models: v4.6's zone-based LRU (one struct lruvec per zone with
 * the lists inactive_anon, active_anon, inactive_file, active_file;
 * node-based LRU only came with v4.8), pages with an owner the model knows
 * (kernel-owned pages are never on an LRU; anonymous and file pages are),
 * PG_referenced, the PTE young bit of mapped pages, dirty file pages and
 * swap; kswapd per node (wakeup_kswapd, balance_pgdat, kswapd_shrink_zone)
 * run by the caller as a simulated task on a CPU of its node; direct
 * reclaim (try_to_free_pages, do_try_to_free_pages with its priority
 * loop, shrink_zones, shrink_zone, shrink_lruvec, get_scan_count,
 * shrink_list, shrink_inactive_list, shrink_active_list,
 * isolate_lru_pages, shrink_page_list, page_check_references,
 * inactive_list_is_low); zone_reclaim with zone_reclaim_mode bits 1, 2, 4,
 * min_unmapped_ratio and min_slab_ratio; v4.6's retry and OOM decision in
 * __alloc_pages_slowpath (counted, nothing is killed).
 *
 * Reclaim is part of a world only when mm_config.reclaim.enabled is set
 * and vmscan_attach() has given it its cost-table ids; otherwise the slow
 * path is the one of the fast-path model (one attempt at the min
 * watermark), bit for bit.  The reclaim functions and sites are registered
 * by vmscan_register() after every other model so that no older id moves.
 *
 * Invariants (vmscan_check, called by mm_check): per zone the LRU lists
 * are well-formed, their lengths equal the lruvec counts, every page on
 * one is an allocated page of that zone with PG_lru and the flags of its
 * list, nothing is isolated between calls, and free + pcp + LRU +
 * kernel-owned pages = managed pages; swap slots in use <= swap size.
 *
 * Error policy: set-up errors are NS_EINPUT / NS_EINTERNAL with a diag
 * message; a reclaim that frees nothing is not an error (counted).
 */
#ifndef NUMASIM_VMSCAN_H
#define NUMASIM_VMSCAN_H

#include <stdint.h>

struct cost_tables;
struct cost_layout;
struct mm_world;
struct page;
struct cpu;

/* enum lru_list (include/linux/mmzone.h, v4.6), evictable lists only */
enum mm_lru_list {
	MM_LRU_INACTIVE_ANON,
	MM_LRU_ACTIVE_ANON,
	MM_LRU_INACTIVE_FILE,
	MM_LRU_ACTIVE_FILE,
	MM_NR_LRU_LISTS
};

/* Who owns a page a workload puts on an LRU. */
enum mm_page_kind {
	MM_PAGE_ANON,          /* anonymous, mapped (do_anonymous_page) */
	MM_PAGE_FILE,          /* unmapped page cache (read()/write()) */
	MM_PAGE_FILE_MAPPED,   /* page cache mapped by a process (mmap) */
};

/* zone_reclaim_mode bits (mm/vmscan.c, v4.6) */
#define RECLAIM_ZONE 1u
#define RECLAIM_WRITE 2u
#define RECLAIM_UNMAP 4u
/* include/linux/topology.h (v4.6) */
#define RECLAIM_DISTANCE 30

struct mm_reclaim_config {
	int enabled;                    /* model reclaim (else the old slow path) */
	uint64_t swap_pages;            /* total_swap_pages (0: swap none) */
	uint32_t swappiness;            /* vm.swappiness, default 60 */
	uint32_t min_unmapped_ratio;    /* vm.min_unmapped_ratio, default 1 (%) */
	uint32_t min_slab_ratio;        /* vm.min_slab_ratio, default 5 (%) */
	uint64_t writeback_cycles;      /* CPU cycles of one ->writepage / swap
					 * write beyond the modelled code (the
					 * device's submission cost; default 0) */
};
void mm_reclaim_config_default(struct mm_reclaim_config *c);

/*
 * zone_reclaim_mode as v3.15's boot code chose it (build_zonelists: 1 when
 * some node_distance > RECLAIM_DISTANCE).  v4.6 no longer does this
 * (4f9b16a6, v3.16: the default is 0); offered for the "what did older
 * kernels do" question.  distance: row-major nr x nr SLIT.
 */
uint32_t vmscan_pre316_default_mode(const int *distance, int nr);

/* A write to /proc/sys/vm/zone_reclaim_mode (bits RECLAIM_*; the world
 * must have reclaim enabled for a non-zero mode): NS_EINPUT otherwise. */
int mm_sysctl_zone_reclaim_mode(struct mm_world *w, uint32_t mode);
uint32_t mm_zone_reclaim_mode(const struct mm_world *w);

/* Register the reclaim functions and sites; lay them out. */
int vmscan_register(struct cost_tables *t, int *fn_base, int *site_base);
int vmscan_layout(struct cost_layout *l, const struct cost_tables *t, int fn_base,
		  int site_base);
/* Give a world created with reclaim.enabled its ids (NS_EINTERNAL when
 * the world does not have reclaim enabled or the ids are not in its
 * tables). */
int vmscan_attach(struct mm_world *w, int fn_base, int site_base);
int mm_reclaim_enabled(const struct mm_world *w);

/*
 * The owner's side.  lru_cache_add (mm/swap.c) of a freshly allocated
 * order-0 page as kind, with an owner token the reclaim hook reports:
 * anonymous pages go to active_anon (lru_cache_add_active_or_unevictable
 * of do_anonymous_page), file pages to inactive_file (add_to_page_cache_lru).
 * dirty marks a file page dirty (written, not yet cleaned).
 */
void mm_lru_add(struct mm_world *w, struct cpu *c, struct page *p, enum mm_page_kind kind,
		int dirty, uint32_t owner);
/* An access by the owner: the PTE young bit of a mapped page, or
 * mark_page_accessed() for unmapped page cache. */
void mm_page_touch(struct mm_world *w, struct cpu *c, struct page *p);
/* The owner drops the page (munmap / truncate): off the LRU and freed. */
void mm_lru_release(struct mm_world *w, struct cpu *c, struct page *p);
/* The owner frees data reclaim had swapped out (swap_free of its slot). */
void mm_swap_slot_free(struct mm_world *w);
/* Called once per page reclaim frees, before the free (owner token, 1 if
 * its data went to swap). */
typedef void (*mm_reclaim_fn)(void *arg, uint32_t owner, int swapped);
void mm_set_reclaim_hook(struct mm_world *w, mm_reclaim_fn fn, void *arg);

/*
 * kswapd.  mm_kswapd_woken() is the node position of a node whose kswapd
 * was woken and has not run since (-1: none); mm_kswapd_run() runs one
 * iteration of balance_pgdat's priority loop for that node on CPU c and
 * returns 1 while kswapd has more to do (the caller schedules it again on
 * that CPU), 0 when it goes back to sleep (balanced or priority exhausted).
 */
int mm_kswapd_woken(const struct mm_world *w);
int mm_kswapd_run(struct mm_world *w, struct cpu *c, int node_pos);
/* The machine node id of node position n, and a simulated CPU of it for
 * kswapd (the CPU with the highest index on that node: -1 if none). */
int mm_kswapd_cpu(const struct mm_world *w, int node_pos);

/* One zone's LRU sizes (for samples and tests); NS_ENOENT if no zone. */
struct mm_lru_info {
	uint64_t nr[MM_NR_LRU_LISTS];
	uint64_t nr_dirty, nr_mapped;
	uint64_t inactive_ratio;
};
int mm_zone_lru_info(const struct mm_world *w, int node, int zone_type,
		     struct mm_lru_info *out);
/* Swap slots in use. */
uint64_t mm_swap_used(const struct mm_world *w);

#endif
