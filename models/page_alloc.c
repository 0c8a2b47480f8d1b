/*
 * pagealloc — the Linux v4.6 page allocator (PRE = v4.6 + series patches
 * 1-4, POST = PRE + 682a3385), see pagealloc.h and docs/pagealloc-model.md.
 *
 * Design notes.
 *
 * Memory representation.  pfns are laid out node by node, zone by zone in
 * ascending type order, every zone starting on a MAX_ORDER block boundary
 * (1024 pages).  Metadata exists per MAX_ORDER block (struct pfn_block, ~80
 * bytes, 20 MiB for 1 TiB): the block's two pageblock migratetypes and an
 * embedded struct page for its first pfn, which is all a block needs while
 * it is a whole free order-10 block or an allocated order-10 page.  The
 * first time a block is split (expand() from order 10) it gets a detail
 * array of 1024 struct pages, taken from a pool; when __free_one_page()
 * merges it back to order 10 the detail returns to the pool.  After
 * warm-up nothing is allocated per simulated allocation or free.  The last
 * block of a zone whose size is not a multiple of 1024 pages keeps its
 * detail for ever (its pages can never merge to order 10).
 *
 * The kernel's lists (free_area[o].free_list[mt], pcp->lists[mt]) are
 * intrusive circular lists of struct page with sentinel heads, as in
 * <linux/list.h>; list order is the kernel's.
 *
 * Costs.  Every modelled struct (struct page in a per-node vmemmap, struct
 * zone, per-cpu pagesets, zonelists, the task's mems_allowed, the pageblock
 * bitmap, per-cpu vmstat areas) has a synthetic address from cache_as, and
 * the code charges loads and stores where the kernel does them, each with
 * its kind (dependent load, independent load, store: cpu.h's out-of-order
 * rule; docs/pagealloc-model.md §4.1 lists the rule at every site).  Branch
 * sites are named by the reference's numbers (A01..A52, F01..F14, with
 * letter suffixes where one number covers several conditionals) or by
 * "function:what" for the slow parts.  Straight-line work between sites is
 * charged per function from the table MM_WORK (instructions at an assumed
 * 2 instructions per cycle), identical for PRE and POST.
 *
 * Mempolicies (docs/policies.md).  alloc_pages_current() follows v4.6:
 * the task's policy (mm_config.mpol; &default_policy = MPOL_PREFERRED |
 * MPOL_F_LOCAL in interrupt or with __GFP_THISNODE), then
 * alloc_page_interleave(interleave_nodes()) or __alloc_pages_nodemask()
 * with policy_zonelist() and policy_nodemask().  The model keeps one task
 * per simulated CPU (struct mm_cpu: its struct mempolicy address and
 * il_next); the policy's node set is one world-wide mask (w->mpol_mask),
 * already cut to the cpuset's mems as mpol_set_nodemask() does.
 * zone_statistics() counts with series patch 3's rule unless mm_config.
 * zone_stats selects plain v4.6's.
 *
 * Variants.  The only differences between PRE and POST are those of the
 * diff: the iterator (out-of-line next_zones_zonelist vs inline wrapper +
 * __next_zones_zonelist), __alloc_pages_nodemask's flags and nodemask
 * (ALLOC_CPUSET and ac.nodemask = &mems_allowed only with cpusets in POST;
 * PRE passes mems_allowed to the preferred-zone lookup), and the slowpath's
 * PRE-only preferred-zone recomputation.
 */
#include "models/page_alloc.h"

#include <assert.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BLOCK_ORDER (MAX_ORDER - 1)
#define BLOCK_PAGES (1u << BLOCK_ORDER)
#define PAGEBLOCK_ORDER 9
#define PAGEBLOCK_PAGES (1u << PAGEBLOCK_ORDER)
#define STRUCT_PAGE_SIZE 64u
#define ZONEREF_SIZE 16u

enum {
	MT_UNMOVABLE, MT_MOVABLE, MT_RECLAIMABLE, MT_HIGHATOMIC, MT_CMA, MT_ISOLATE,
	MT_TYPES
};
#define MT_PCPTYPES 3

/* mm/internal.h alloc_flags */
#define ALLOC_WMARK_MIN 0x00
#define ALLOC_WMARK_LOW 0x01
#define ALLOC_WMARK_HIGH 0x02
#define ALLOC_WMARK_MASK 0x03
#define ALLOC_NO_WATERMARKS 0x04
#define ALLOC_HARDER 0x10
#define ALLOC_HIGH 0x20
#define ALLOC_CPUSET 0x40
#define ALLOC_CMA 0x80
#define ALLOC_FAIR 0x100

/* zone_stat_item subset; MM_STAT_IDX is the v4.6 enum position (address). */
#define MM_STATS(X)                                                            \
	X(NR_FREE_PAGES, 0, "nr_free_pages")                                   \
	X(NR_ALLOC_BATCH, 1, "nr_alloc_batch")                                 \
	X(NR_PAGES_SCANNED, 21, "nr_pages_scanned")                            \
	X(NR_FREE_CMA_PAGES, 31, "nr_free_cma")                                \
	X(NUMA_HIT, 32, "numa_hit")                                            \
	X(NUMA_MISS, 33, "numa_miss")                                          \
	X(NUMA_FOREIGN, 34, "numa_foreign")                                    \
	X(NUMA_INTERLEAVE_HIT, 35, "interleave_hit")                           \
	X(NUMA_LOCAL, 36, "local_node")                                        \
	X(NUMA_OTHER, 37, "other_node")
enum mm_stat {
#define MM_STAT_ENUM(id, idx, name) id,
	MM_STATS(MM_STAT_ENUM)
#undef MM_STAT_ENUM
	MM_NR_STAT
};
static const uint8_t mm_stat_idx[] = {
#define MM_STAT_IDX(id, idx, name) idx,
	MM_STATS(MM_STAT_IDX)
#undef MM_STAT_IDX
};
static const char *const mm_stat_name[] = {
#define MM_STAT_NAME(id, idx, name) name,
	MM_STATS(MM_STAT_NAME)
#undef MM_STAT_NAME
};

/* Model events per zone (scope "zone"). */
#define MM_EVENTS(X)                                                           \
	X(pgalloc, "pages allocated from the zone (PGALLOC)")                  \
	X(pgfree, "pages freed to the zone (PGFREE)")                          \
	X(pcp_refill, "rmqueue_bulk calls")                                    \
	X(pcp_refill_pages, "pages moved buddy -> pcp")                        \
	X(pcp_drain, "free_pcppages_bulk calls")                               \
	X(pcp_drain_pages, "pages moved pcp -> buddy")                         \
	X(zone_fair_depleted, "ZONE_FAIR_DEPLETED set")                        \
	X(fair_skip, "zone skipped by the fair pass")                          \
	X(fair_reset, "reset_alloc_batches with this preferred zone")          \
	X(wmark_fail, "zone_watermark_ok false in get_page_from_freelist")     \
	X(fallback, "__rmqueue_fallback successes")                            \
	X(steal_pageblock, "pageblocks retyped by fallback stealing")          \
	X(block_split, "MAX_ORDER blocks given per-page metadata")             \
	X(block_merge, "MAX_ORDER blocks merged back")
enum mm_event {
#define MM_EVENT_ENUM(id, desc) EV_##id,
	MM_EVENTS(MM_EVENT_ENUM)
#undef MM_EVENT_ENUM
	MM_NR_EVENT
};
static const char *const mm_event_name[] = {
#define MM_EVENT_NAME(id, desc) #id,
	MM_EVENTS(MM_EVENT_NAME)
#undef MM_EVENT_NAME
};

/* Node-scope model events. */
#define MM_NEVENTS(X)                                                          \
	X(slowpath, "__alloc_pages_slowpath entries")                          \
	X(kswapd_wake, "wake_all_kswapds calls (counted, no reclaim modelled)") \
	X(alloc_fail, "allocations that returned NULL")                        \
	X(rescan, "get_page_from_freelist zonelist rescans")
enum mm_nevent {
#define MM_NEVENT_ENUM(id, desc) NEV_##id,
	MM_NEVENTS(MM_NEVENT_ENUM)
#undef MM_NEVENT_ENUM
	MM_NR_NEVENT
};
static const char *const mm_nevent_name[] = {
#define MM_NEVENT_NAME(id, desc) #id,
	MM_NEVENTS(MM_NEVENT_NAME)
#undef MM_NEVENT_NAME
};

/* --- cost tables ------------------------------------------------------- */

#define MM_FUNCS(X)                                                            \
	X(alloc_pages_current)                                                 \
	X(get_task_policy)                                                     \
	X(policy_zonelist)                                                     \
	X(policy_nodemask)                                                     \
	X(__alloc_pages_nodemask)                                              \
	X(_cond_resched)                                                       \
	X(first_zones_zonelist)                                                \
	X(next_zones_zonelist)                                                 \
	X(__next_zones_zonelist)                                               \
	X(get_page_from_freelist)                                              \
	X(cpuset_zone_allowed)                                                 \
	X(__cpuset_node_allowed)                                               \
	X(zone_watermark_ok)                                                   \
	X(__zone_watermark_ok)                                                 \
	X(buffered_rmqueue)                                                    \
	X(rmqueue_bulk)                                                        \
	X(__rmqueue)                                                           \
	X(__rmqueue_smallest)                                                  \
	X(expand)                                                              \
	X(__rmqueue_fallback)                                                  \
	X(find_suitable_fallback)                                              \
	X(steal_suitable_fallback)                                             \
	X(move_freepages_block)                                                \
	X(__mod_zone_page_state)                                               \
	X(__inc_zone_state)                                                    \
	X(mod_zone_page_state)                                                 \
	X(zone_statistics)                                                     \
	X(prep_new_page)                                                       \
	X(check_new_page)                                                      \
	X(reset_alloc_batches)                                                 \
	X(__alloc_pages_slowpath)                                              \
	X(wake_all_kswapds)                                                    \
	X(__free_pages)                                                        \
	X(free_hot_cold_page)                                                  \
	X(free_pages_prepare)                                                  \
	X(free_pages_check)                                                    \
	X(get_pfnblock_flags_mask)                                             \
	X(free_pcppages_bulk)                                                  \
	X(__free_one_page)                                                     \
	X(__free_pages_ok)                                                     \
	X(free_one_page)                                                       \
	X(alloc_page_interleave)                                               \
	X(interleave_nodes)                                                    \
	X(find_next_bit)                                                       \
	X(inc_zone_page_state)

/* Inlined in a 2016 gcc build (both variants), except next_zones_zonelist
 * which the layout decides per variant. */
#define MM_INLINE_FUNCS(X)                                                     \
	X(get_task_policy) X(policy_zonelist) X(policy_nodemask)               \
	X(interleave_nodes)                                                    \
	X(first_zones_zonelist) X(cpuset_zone_allowed) X(__zone_watermark_ok)  \
	X(buffered_rmqueue) X(__rmqueue_smallest) X(expand)                    \
	X(__rmqueue_fallback) X(find_suitable_fallback) X(zone_statistics)     \
	X(prep_new_page) X(check_new_page) X(reset_alloc_batches)              \
	X(free_pages_prepare) X(free_pages_check) X(__free_one_page)           \
	X(free_one_page)

/*
 * Sites: X(id, description, hint, fall-through).  hint N/L/U; fall-through
 * T = the condition true falls through (then-block follows the test), F =
 * false falls through (the body is a jump: goto/continue/break/return, or
 * the loop-continue test of a rotated loop), H = the hinted outcome.
 */
#define MM_SITES(X)                                                            \
	X(A02a, "alloc_pages_current: !in_interrupt()", N, T)                  \
	X(A02b, "alloc_pages_current: !(gfp & __GFP_THISNODE)", N, T)          \
	X(A03a, "get_task_policy: pol = p->mempolicy; if (pol) return", N, F)  \
	X(A03b, "get_task_policy: node != NUMA_NO_NODE", N, T)                 \
	X(A03c, "get_task_policy: preferred_node_policy[node].mode", N, F)     \
	X(A04, "read_mems_allowed_begin: cpusets_enabled() (static key)", U, H) \
	X(A05, "alloc_pages_current: pol->mode == MPOL_INTERLEAVE", N, F)      \
	X(A06a, "policy_zonelist: switch case MPOL_PREFERRED", N, T)           \
	X(A06b, "policy_zonelist: !(policy->flags & MPOL_F_LOCAL)", N, T)      \
	X(A06c, "gfp_zonelist: unlikely(flags & __GFP_THISNODE)", U, H)        \
	X(A07, "policy_nodemask: unlikely(policy->mode == MPOL_BIND)", U, H)   \
	X(A09, "gfpflags_to_migratetype: unlikely(page_group_by_mobility_disabled)", U, H) \
	X(A10a, "POST __alloc_pages_nodemask: cpusets_enabled() (static key)", U, H) \
	X(A10b, "POST __alloc_pages_nodemask: !ac.nodemask", N, T)             \
	X(A11, "might_sleep_if: gfp_mask & __GFP_DIRECT_RECLAIM", N, T)        \
	X(A11b, "_cond_resched: should_resched(0)", U, H)                      \
	X(A13, "__alloc_pages_nodemask: unlikely(!zonelist->_zonerefs->zone)", U, H) \
	X(A14, "__alloc_pages_nodemask: CONFIG_CMA && migratetype == MIGRATE_MOVABLE", N, T) \
	X(A15, "retry_cpuset: read_mems_allowed_begin: cpusets_enabled()", U, H) \
	X(A19, "__alloc_pages_nodemask: !ac.preferred_zone -> out", N, F)      \
	X(A23, "for_each_zone_zonelist_nodemask: zone != NULL", N, T)          \
	X(A24a, "get_page_from_freelist: cpusets_enabled() (static key)", U, H) \
	X(A24b, "get_page_from_freelist: alloc_flags & ALLOC_CPUSET", N, T)    \
	X(A24c, "cpuset_zone_allowed: nr_cpusets() <= 1", N, T)                \
	X(A24d, "get_page_from_freelist: !cpuset_zone_allowed() -> continue", N, F) \
	X(A25, "get_page_from_freelist: alloc_flags & ALLOC_FAIR", N, T)       \
	X(A26, "get_page_from_freelist: !zone_local(preferred_zone, zone) -> break", N, F) \
	X(A27, "get_page_from_freelist: test_bit(ZONE_FAIR_DEPLETED)", N, T)   \
	X(A28, "get_page_from_freelist: ac->spread_dirty_pages && ...", N, F)  \
	X(A30a, "__zone_watermark_ok: alloc_flags & ALLOC_HIGH", N, T)         \
	X(A30b, "__zone_watermark_ok: likely(!alloc_harder)", L, H)            \
	X(A30c, "__zone_watermark_ok: !(alloc_flags & ALLOC_CMA)", N, T)       \
	X(A30d, "__zone_watermark_ok: free_pages <= min + lowmem_reserve[classzone]", N, F) \
	X(A30e, "__zone_watermark_ok: !order -> return true", N, F)            \
	X(A31, "get_page_from_freelist: !zone_watermark_ok()", N, T)           \
	X(A31b, "get_page_from_freelist: alloc_flags & ALLOC_NO_WATERMARKS", N, F) \
	X(A31c, "get_page_from_freelist: zone_reclaim_mode == 0 -> continue", N, F) \
	X(A34, "buffered_rmqueue: likely(order == 0)", L, H)                   \
	X(A36a, "buffered_rmqueue: list_empty(&pcp->lists[migratetype])", N, T) \
	X(A36b, "buffered_rmqueue: unlikely(list_empty(list)) after refill", U, H) \
	X(A37, "buffered_rmqueue: cold ? list->prev : list->next", N, T)       \
	X(A39a, "__mod_zone_page_state: unlikely(x > t || ...)", U, H)         \
	X(A39b, "__mod_zone_page_state: unlikely(... || x < -t)", U, H)        \
	X(A40a, "buffered_rmqueue: vm_stat[NR_ALLOC_BATCH] <= 0", N, T)        \
	X(A40b, "buffered_rmqueue: !test_bit(ZONE_FAIR_DEPLETED)", N, T)       \
	X(A42a, "zone_statistics: unlikely(flags & __GFP_OTHER_NODE)", U, H)   \
	X(A42b, "zone_statistics: z->node == local_nid", N, T)                 \
	X(A42c, "__inc_zone_state: unlikely(v > t)", U, H)                     \
	X(A44, "get_page_from_freelist: if (page)", N, T)                      \
	X(A45a, "check_new_page: unlikely(page_mapcount(page))", U, H)         \
	X(A45b, "check_new_page: unlikely(page->mapping != NULL)", U, H)       \
	X(A45c, "check_new_page: unlikely(page->_count != 0)", U, H)           \
	X(A45d, "check_new_page: unlikely(flags & __PG_HWPOISON)", U, H)       \
	X(A45e, "check_new_page: unlikely(flags & PAGE_FLAGS_CHECK_AT_PREP)", U, H) \
	X(A45f, "check_new_page: unlikely(page->mem_cgroup)", U, H)            \
	X(A45g, "check_new_page: unlikely(bad_reason)", U, H)                  \
	X(A45h, "prep_new_page: for (i < 1 << order) check loop", N, F)        \
	X(A45i, "prep_new_page: gfp_flags & __GFP_ZERO", N, T)                 \
	X(A45j, "prep_new_page: order && ...", N, T)                           \
	X(A45k, "prep_new_page: ... (gfp_flags & __GFP_COMP)", N, T)           \
	X(A45l, "prep_new_page: alloc_flags & ALLOC_NO_WATERMARKS", N, T)      \
	X(A45m, "get_page_from_freelist: prep_new_page() -> try_this_zone", N, F) \
	X(A46a, "get_page_from_freelist: unlikely(order && ...)", U, H)        \
	X(A46b, "get_page_from_freelist: ... (alloc_flags & ALLOC_HARDER)", U, H) \
	X(A48, "__alloc_pages_nodemask: unlikely(!page) -> slowpath", U, H)    \
	X(A50, "trace_mm_page_alloc (static key)", U, H)                       \
	X(A51, "__alloc_pages_nodemask: unlikely(!page && ...)", U, H)         \
	X(A51b, "__alloc_pages_nodemask: read_mems_allowed_retry: cpusets_enabled()", U, H) \
	X(A52, "alloc_pages_current: unlikely(!page && ...)", U, H)            \
	X(A52b, "alloc_pages_current: read_mems_allowed_retry: cpusets_enabled()", U, H) \
	X(F02, "put_page_testzero: atomic_dec_and_test(&page->_count)", N, T)  \
	X(F03, "__free_pages: order == 0", N, T)                               \
	X(F05a, "free_pages_prepare: trace_mm_page_free (static key)", U, H)   \
	X(F05b, "free_pages_prepare: unlikely(order) (patch 1)", U, H)         \
	X(F05c, "free_pages_prepare: if (compound) free_tail_pages_check", N, T) \
	X(F05d, "free_pages_prepare: tail loop i < 1 << order", N, F)          \
	X(F05e, "free_pages_prepare: PageAnonHead(page) (patch 2)", N, T)      \
	X(F05f, "free_pages_check: unlikely(_mapcount != -1)", U, H)           \
	X(F05g, "free_pages_check: unlikely(page->mapping != NULL)", U, H)     \
	X(F05h, "free_pages_check: unlikely(page->_count != 0)", U, H)         \
	X(F05i, "free_pages_check: unlikely(flags & PAGE_FLAGS_CHECK_AT_FREE)", U, H) \
	X(F05j, "free_pages_check: unlikely(page->mem_cgroup)", U, H)          \
	X(F05k, "free_pages_check: unlikely(bad_reason)", U, H)                \
	X(F05l, "free_pages_check: flags & PAGE_FLAGS_CHECK_AT_PREP", N, T)    \
	X(F05m, "free_pages_prepare: if (bad) return false", N, F)             \
	X(F05n, "free_pages_prepare: !PageHighMem(page)", N, T)                \
	X(F05o, "free_hot_cold_page: !free_pages_prepare() -> return", N, F)   \
	X(F09a, "free_hot_cold_page: migratetype >= MIGRATE_PCPTYPES", N, T)   \
	X(F09b, "free_hot_cold_page: unlikely(is_migrate_isolate(mt))", U, H)  \
	X(F11, "free_hot_cold_page: !cold", N, T)                              \
	X(F13, "free_hot_cold_page: pcp->count >= pcp->high", N, T)            \
	X(nzl_nodes_null, "next_zones_zonelist (mmzone.c): likely(nodes == NULL)", L, H) \
	X(nzl_idx, "next_zones_zonelist (mmzone.c): while zone_idx > highest", N, F) \
	X(nzl_mask_idx, "next_zones_zonelist (mmzone.c): while (zone_idx > highest ||", N, F) \
	X(nzl_mask_zone, "next_zones_zonelist (mmzone.c): ... (z->zone &&", N, T) \
	X(nzl_mask_isset, "next_zones_zonelist (mmzone.c): ... !zref_in_nodemask(z, nodes)))", N, F) \
	X(nzl_inline_nodes, "POST inline next_zones_zonelist: likely(!nodes && ...)", L, H) \
	X(nzl_inline_idx, "POST inline next_zones_zonelist: likely(... zone_idx <= highest)", L, H) \
	X(cpuset_in_interrupt, "__cpuset_node_allowed: in_interrupt()", U, H)  \
	X(cpuset_isset, "__cpuset_node_allowed: node_isset(node, mems_allowed)", N, F) \
	X(cpuset_memdie, "__cpuset_node_allowed: unlikely(TIF_MEMDIE)", U, H)  \
	X(cpuset_hardwall, "__cpuset_node_allowed: gfp_mask & __GFP_HARDWALL", N, F) \
	X(cpuset_exiting, "__cpuset_node_allowed: unlikely(PF_EXITING)", U, H) \
	X(gpfl_fair, "get_page_from_freelist: after loop: alloc_flags & ALLOC_FAIR", N, T) \
	X(gpfl_fair_skipped, "get_page_from_freelist: nr_fair_skipped", N, T)  \
	X(gpfl_online_nodes, "get_page_from_freelist: nr_online_nodes > 1", N, T) \
	X(gpfl_rescan, "get_page_from_freelist: zonelist_rescan -> zonelist_scan", N, F) \
	X(wmark_order_loop, "__zone_watermark_ok: for (o = order; o < MAX_ORDER)", N, F) \
	X(wmark_nr_free, "__zone_watermark_ok: !area->nr_free -> continue", N, F) \
	X(wmark_harder, "__zone_watermark_ok: alloc_harder -> return true", N, F) \
	X(wmark_list, "__zone_watermark_ok: !list_empty(free_list[mt]) -> true", N, F) \
	X(wmark_cma, "__zone_watermark_ok: (ALLOC_CMA) && !list_empty(CMA)", N, F) \
	X(rmqueue_bulk_loop, "rmqueue_bulk: for (i < count)", N, F)            \
	X(rmqueue_bulk_null, "rmqueue_bulk: unlikely(page == NULL) -> break", U, H) \
	X(rmqueue_bulk_cold, "rmqueue_bulk: likely(!cold)", L, H)              \
	X(rmqueue_bulk_cma, "rmqueue_bulk: is_migrate_cma(get_pcppage_migratetype())", N, T) \
	X(buffered_rmqueue_harder, "buffered_rmqueue: alloc_flags & ALLOC_HARDER", N, T) \
	X(buffered_rmqueue_nopage, "buffered_rmqueue: !page -> failed", N, F)  \
	X(rmqueue_nopage, "__rmqueue: unlikely(!page)", U, H)                  \
	X(rmqueue_movable, "__rmqueue: migratetype == MIGRATE_MOVABLE (CMA fallback)", N, T) \
	X(rmqueue_fallback, "__rmqueue: !page -> __rmqueue_fallback", N, T)    \
	X(smallest_loop, "__rmqueue_smallest: current_order < MAX_ORDER", N, F) \
	X(smallest_empty, "__rmqueue_smallest: list_empty(free_list[mt]) -> continue", N, F) \
	X(expand_loop, "expand: while (high > low)", N, F)                     \
	X(fallback_loop, "__rmqueue_fallback: current_order >= order", N, F)   \
	X(fallback_none, "__rmqueue_fallback: fallback_mt == -1 -> continue", N, F) \
	X(fallback_can_steal, "__rmqueue_fallback: can_steal", N, T)           \
	X(suitable_nr_free, "find_suitable_fallback: area->nr_free == 0", N, F) \
	X(suitable_end, "find_suitable_fallback: fallback_mt == MIGRATE_TYPES", N, F) \
	X(suitable_empty, "find_suitable_fallback: list_empty -> continue", N, F) \
	X(suitable_steal_pb, "can_steal_fallback: order >= pageblock_order", N, F) \
	X(suitable_steal_rest, "can_steal_fallback: order >= pb/2 || UNMOVABLE || RECLAIMABLE", N, F) \
	X(suitable_only_stealable, "find_suitable_fallback: !only_stealable", N, F) \
	X(steal_order_pb, "steal_suitable_fallback: current_order >= pageblock_order", N, T) \
	X(steal_pages, "steal_suitable_fallback: pages >= 1 << (pageblock_order-1)", N, T) \
	X(move_freepages_loop, "move_freepages: page <= end_page", N, F)       \
	X(move_freepages_buddy, "move_freepages: !PageBuddy(page) -> next", N, F) \
	X(pcpbulk_nr_scanned, "free_pcppages_bulk: if (nr_scanned)", N, T)     \
	X(pcpbulk_to_free, "free_pcppages_bulk: while (to_free)", N, F)        \
	X(pcpbulk_wrap, "free_pcppages_bulk: ++migratetype == MIGRATE_PCPTYPES", N, T) \
	X(pcpbulk_empty, "free_pcppages_bulk: while (list_empty(list))", N, F) \
	X(pcpbulk_only_one, "free_pcppages_bulk: batch_free == MIGRATE_PCPTYPES", N, T) \
	X(pcpbulk_isolate, "free_pcppages_bulk: unlikely(has_isolate_pageblock(zone))", U, H) \
	X(pcpbulk_more_count, "free_pcppages_bulk: while (--to_free && ...", N, F) \
	X(pcpbulk_more_batch, "free_pcppages_bulk: ... --batch_free && ...", N, F) \
	X(pcpbulk_more_list, "free_pcppages_bulk: ... !list_empty(list))", N, F) \
	X(free_one_isolate, "__free_one_page: likely(!is_migrate_isolate(mt))", L, H) \
	X(free_one_merge, "__free_one_page: while (order < max_order - 1)", N, F) \
	X(page_is_buddy_flag, "page_is_buddy: PageBuddy(buddy) && ...", N, T)  \
	X(page_is_buddy_order, "page_is_buddy: ... page_order(buddy) == order", N, T) \
	X(page_is_buddy_zone, "page_is_buddy: page_zone_id(page) != page_zone_id(buddy)", N, F) \
	X(free_one_not_buddy, "__free_one_page: !page_is_buddy() -> done_merging", N, F) \
	X(free_one_max_order, "__free_one_page: max_order < MAX_ORDER", N, T)  \
	X(free_one_has_isolate, "__free_one_page: unlikely(has_isolate_pageblock)", U, H) \
	X(free_one_tail_order, "__free_one_page: order < MAX_ORDER-2", N, T)   \
	X(free_one_tail_buddy, "__free_one_page: page_is_buddy(higher_page, higher_buddy)", N, T) \
	X(free_one_page_scanned, "free_one_page: if (nr_scanned)", N, T)       \
	X(free_one_page_isolate, "free_one_page: unlikely(has_isolate_pageblock || isolate)", U, H) \
	X(free_pages_ok_prepare, "__free_pages_ok: !free_pages_prepare() -> return", N, F) \
	X(mod_state_fold, "mod_state: n > t || n < -t", N, T)                  \
	X(reset_batches_loop, "reset_alloc_batches: while (zone++ != preferred_zone)", N, F) \
	X(slowpath_order, "__alloc_pages_slowpath: order >= MAX_ORDER", U, H)  \
	X(slowpath_kswapd, "__alloc_pages_slowpath: gfp_mask & __GFP_KSWAPD_RECLAIM", N, T) \
	X(slowpath_atomic, "gfp_to_alloc_flags: atomic (!DIRECT_RECLAIM)", N, T) \
	X(slowpath_nomemalloc, "gfp_to_alloc_flags: !(gfp_mask & __GFP_NOMEMALLOC)", N, T) \
	X(slowpath_cpuset_nodemask, "PRE __alloc_pages_slowpath: !(ALLOC_CPUSET) && !ac->nodemask", N, T) \
	X(slowpath_page, "__alloc_pages_slowpath: page -> got_pg", N, F)       \
	/* mempolicy sites, appended so that the older sites keep their ids \
	 * (the branch predictor indexes by site id) */                     \
	X(A05a, "interleave_nodes: next >= MAX_NUMNODES (wrap to first_node)", N, F) \
	X(A05b, "interleave_nodes: next < MAX_NUMNODES", N, T)                 \
	X(A05c, "alloc_page_interleave: page && page_zone(page) == zonelist_zone(_zonerefs)", N, T) \
	X(A06d, "policy_zonelist: case MPOL_BIND: unlikely(gfp & __GFP_THISNODE)", U, H) \
	X(A07b, "apply_policy_zone: zone >= dynamic_policy_zone", N, T)        \
	X(A07c, "cpuset_nodemask_valid_mems_allowed: nodes_intersects()", N, T) \
	X(A42d, "v4.6 zone_statistics: z->zone_pgdat == preferred_zone->zone_pgdat", N, T) \
	X(A42e, "v4.6 zone_statistics: z->node == (OTHER_NODE ? preferred : numa_node_id())", N, T)

#define MM_FN_ENUM(name) FN_##name,
#define MM_SITE_ENUM(id, desc, hint, ft) S_##id,
#define MM_SITE_DEF(id, desc, hint, ft) {#id, desc},
enum mm_fn { MM_FUNCS(MM_FN_ENUM) MM_NR_FN };
enum mm_site { MM_SITES(MM_SITE_ENUM) MM_NR_SITE };
static const char *const mm_fn_names[] = {MM_FUNCS(COST_FN_NAME)};
static const struct cost_site_def mm_site_defs[] = {MM_SITES(MM_SITE_DEF)};

static const struct {
	uint8_t hint;
	int8_t ft;
} mm_site_layout[] = {
#define MM_SITE_LAYOUT(id, desc, hint, ft) {COST_HINT_##hint, COST_FT_##ft},
	MM_SITES(MM_SITE_LAYOUT)
#undef MM_SITE_LAYOUT
};

/*
 * Straight-line work between the modelled sites, in instructions, read
 * from v4.6 (docs/pagealloc-model.md has the reasoning per row).  Charged
 * at MM_IPC instructions per cycle.
 */
#define MM_IPC 2
#define MM_WORK(X)                                                             \
	X(alloc_pages_current, 12)                                             \
	X(interleave_nodes, 6)                                                 \
	X(find_next_bit, 10)                                                   \
	X(alloc_page_interleave, 8)                                            \
	X(policy_nodemask, 4)                                                  \
	X(alloc_nodemask, 34)                                                  \
	X(cond_resched, 4)                                                     \
	X(gpfl_entry, 6)                                                       \
	X(gpfl_zone, 16)                                                       \
	X(gpfl_after, 4)                                                       \
	X(nzl_body, 3)                                                         \
	X(nzl_step, 3)                                                         \
	X(nzl_inline, 2)                                                       \
	X(cpuset_node_allowed, 14)                                             \
	X(watermark, 16)                                                       \
	X(watermark_order, 6)                                                  \
	X(buffered_pcp, 24)                                                    \
	X(buffered_buddy, 16)                                                  \
	X(mod_zone_page_state, 10)                                             \
	X(inc_zone_state, 9)                                                   \
	X(zone_statistics, 6)                                                  \
	X(prep_new_page, 8)                                                    \
	X(rmqueue_bulk, 10)                                                    \
	X(rmqueue_bulk_page, 8)                                                \
	X(rmqueue, 4)                                                          \
	X(smallest_probe, 5)                                                   \
	X(smallest_take, 10)                                                   \
	X(expand_step, 8)                                                      \
	X(fallback_probe, 8)                                                   \
	X(steal, 12)                                                           \
	X(move_freepages_page, 4)                                              \
	X(free_pages, 4)                                                       \
	X(free_hot_cold_page, 20)                                              \
	X(free_pages_prepare, 10)                                              \
	X(pfnblock, 18)                                                        \
	X(pcpbulk, 8)                                                          \
	X(pcpbulk_search, 4)                                                   \
	X(pcpbulk_page, 10)                                                    \
	X(free_one_entry, 10)                                                  \
	X(free_one_merge, 12)                                                  \
	X(free_one_done, 10)                                                   \
	X(free_pages_ok, 14)                                                   \
	X(reset_batch_zone, 10)                                                \
	X(slowpath, 30)
enum mm_work {
#define MM_WORK_ENUM(name, insns) W_##name,
	MM_WORK(MM_WORK_ENUM)
#undef MM_WORK_ENUM
	MM_NR_WORK
};
static const uint32_t mm_work_cycles[] = {
#define MM_WORK_CYC(name, insns) (insns + MM_IPC - 1) / MM_IPC,
	MM_WORK(MM_WORK_CYC)
#undef MM_WORK_CYC
};

/* --- data structures --------------------------------------------------- */

enum page_state { PS_NONE, PS_BUDDY, PS_PCP, PS_ALLOC, PS_HEAD_SENTINEL };

struct page {
	struct page *next, *prev;   /* page->lru */
	uint64_t addr;                 /* synthetic address of the struct page */
	uint32_t block;                /* index in w->blocks (UINT32_MAX: list head) */
	uint16_t off;                  /* pfn offset in the block */
	uint8_t order;                 /* page_private() while PageBuddy */
	uint8_t state;                 /* enum page_state (PageBuddy = PS_BUDDY) */
	uint8_t mt;                    /* get/set_pcppage_migratetype */
	uint8_t pad;
	int16_t pcp_cpu;               /* PS_PCP: owning CPU index */
	int32_t count;                 /* page->_count */
	int32_t alloc_order;           /* PS_ALLOC: order it was allocated with */
};

struct pfn_block {
	struct page head;           /* struct page of pfn offset 0 while no detail */
	struct page *detail;        /* [BLOCK_PAGES] once split */
	uint64_t pfn;
	uint64_t addr;                 /* synthetic address of its first struct page */
	uint32_t zone;
	uint16_t npages;               /* pages of the zone in this block */
	uint8_t pb_mt[BLOCK_PAGES / PAGEBLOCK_PAGES];
};

struct free_area {
	struct page list[MT_TYPES];
	uint64_t nr_free;
};

struct per_cpu_pages {
	int count, high, batch;
	struct page lists[MT_PCPTYPES];
	int32_t diff[MM_NR_STAT];      /* vm_stat_diff (s8 in the kernel) */
	int stat_threshold;
	uint64_t addr;                 /* synthetic struct per_cpu_pageset */
};

/* struct zone field offsets for synthetic addresses (v4.6 layout, x86_64). */
#define ZOFF_WATERMARK 0
#define ZOFF_HIGHATOMIC 24
#define ZOFF_LOWMEM 32
#define ZOFF_NODE 72
#define ZOFF_PAGESET 88
#define ZOFF_LOCK 128
#define ZOFF_FREE_AREA 136
#define ZOFF_FREE_AREA_SIZE 104          /* 6 list_heads + nr_free */
#define ZOFF_FLAGS (ZOFF_FREE_AREA + MAX_ORDER * ZOFF_FREE_AREA_SIZE) /* 1280 */
#define ZOFF_VMSTAT 1472
#define ZONE_STRUCT_SIZE 1792
/* per_cpu_pageset: pcp {count, high, batch, lists[3]} in line 0;
 * expire, stat_threshold, vm_stat_diff[] in line 1. */
#define PCPOFF_LISTS 16
#define PCPOFF_THRESHOLD 65
#define PCPOFF_DIFF 66
#define PCP_STRUCT_SIZE 128

struct zone {
	int node, node_pos;
	enum zone_type type;
	int id;
	uint64_t start_pfn, managed;
	uint32_t first_block, nr_blocks;
	int64_t watermark[3];
	int64_t nr_reserved_highatomic;
	int64_t lowmem_reserve[NR_ZONE_TYPES];
	int64_t vm_stat[MM_NR_STAT];   /* zone atomics */
	int fair_depleted;
	int has_isolate_pageblock;
	uint64_t allocated;
	uint64_t ev[MM_NR_EVENT];
	struct free_area free_area[MAX_ORDER];
	struct cpu_lock lock;
	struct per_cpu_pages *pcp;            /* [nr_cpus of the cpu_sys] */
	uint64_t addr;                 /* struct zone */
	uint64_t usemap;               /* pageblock_flags bitmap */
	uint64_t vmemmap;              /* struct page of start_pfn */
};

struct mm_zoneref {
	struct zone *zone;          /* NULL: sentinel */
	int zone_idx;
};

struct pglist_data {
	int id;
	int online;
	struct zone *zones[NR_ZONE_TYPES];  /* node_zones[], NULL if empty */
	int nr_zonerefs[MAX_ZONELISTS];
	struct mm_zoneref *zonerefs[MAX_ZONELISTS];
	uint64_t zl_addr[MAX_ZONELISTS];
	uint64_t ev[MM_NR_NEVENT];
	uint64_t policy_addr;          /* preferred_node_policy[node] */
};

/* Per simulated CPU: the running task and the per-cpu areas. */
struct mm_cpu {
	uint64_t last_line;            /* line of this CPU's previous access */
	bool last_write;               /* ... and whether it was a store */
	int numa_node;                 /* numa_node_id() (after x86 remapping) */
	int node_pos;
	uint64_t percpu;               /* current_task, vm_event_states */
	uint64_t task;                 /* task_struct: mempolicy, mems_allowed */
	uint64_t mpol;                 /* the task's struct mempolicy */
	int il_next;                   /* current->il_next (interleave cursor) */
};
/* struct mempolicy (v4.6): refcnt, mode, flags, v (preferred_node or
 * nodes), w (cpuset_mems_allowed) */
#define MPOL_OFF_MODE 4
#define MPOL_OFF_FLAGS 6
#define MPOL_OFF_V 8
#define PERCPU_CURRENT 0
#define PERCPU_EVENTS 64
#define TASK_MEMPOLICY 0
#define TASK_FLAGS 8
#define TASK_MEMS_ALLOWED 64

struct page_detail_pool {
	struct page **free;
	size_t nr, cap;
	size_t total;                  /* details ever allocated */
	struct page **all;          /* every detail, for destruction */
	size_t nr_all, cap_all;
};

struct mm_world {
	const struct machine *m;
	struct mm_config cfg;
	struct cpu_sys *s;
	int fn_base, site_base;
	struct zonelists *zl;
	struct cache_as own_as;
	struct cache_as *as;
	int nr_zones;
	struct zone *zones;
	int nr_nodes;
	struct pglist_data *nodes;         /* by machine position */
	uint64_t nr_blocks;
	struct pfn_block *blocks;
	struct mm_cpu *cpus;       /* [s->nr_cpus] */
	struct page_detail_pool pool;
	uint64_t nodemask[MACHINE_MAX_NODES / 64]; /* current->mems_allowed */
	uint64_t mpol_mask[MACHINE_MAX_NODES / 64]; /* pol->v.nodes (BIND, INTERLEAVE) */
	int mpol_first;                /* first_node(pol->v.nodes) / preferred_node */
	int mpol_apply_zone;           /* BIND: dynamic_policy_zone */
	int nr_online_nodes;
	int mobility_disabled;         /* page_group_by_mobility_disabled */
	uint32_t min_free_kbytes;
	uint64_t vm_stat_addr;         /* global vm_stat[] */
	uint64_t callback_lock_addr;
	struct cpu_lock callback_lock;
	mm_trace_fn trace;             /* numasim trace, else NULL */
	void *trace_arg;
};

/* alloc_context */
struct alloc_context {
	struct pglist_data *zl_node;       /* owner of the zonelist */
	int zl_kind;
	const uint64_t *nodemask;      /* NULL or w->nodemask */
	struct zone *preferred_zone;
	int classzone_idx;
	int migratetype;
	int high_zoneidx;
	int spread_dirty_pages;
};

/* --- small helpers ----------------------------------------------------- */

static inline int fn_id(const struct mm_world *w, enum mm_fn f) { return w->fn_base + (int)f; }

static inline bool br(struct cpu *c, const struct mm_world *w, enum mm_site s, bool cond)
{
	return cpu_branch(c, w->site_base + (int)s, cond);
}

static inline void call(struct cpu *c, const struct mm_world *w, enum mm_fn f)
{
	cpu_call(c, w->fn_base + (int)f);
}

static inline void work(struct cpu *c, enum mm_work k)
{
	cpu_work(c, mm_work_cycles[k]);
}

/*
 * A load or store of one word, of a kind (cpu.h: CPU_LOAD_DEP when the
 * code needs the value at once, CPU_LOAD when nothing waits for it,
 * CPU_STORE; docs/pagealloc-model.md "Access kinds" gives the rules used
 * at every site).  Within one call into the model only this CPU runs, so
 * an access to the line of this CPU's previous access (with no other cache
 * access in between) is an L1 hit on the most recent way, exactly what the
 * cache model would return and with no state change (for a store: when the
 * previous access was a store too, so the coherence directory already
 * names this CPU as the writer): it is charged as such without the
 * host-side lookup.  Every other cache access (cpu_atomic) and every entry
 * into the model resets the memo.
 */
static inline void mem_bytes(struct cpu *c, const struct mm_world *w, uint64_t addr,
			     uint32_t bytes, int node, enum cpu_access kind)
{
	struct mm_cpu *ci = &w->cpus[c->idx];
	uint64_t line = addr >> c->sys->cache.line_shift;
	bool write = kind >= CPU_STORE;
	if (line == ci->last_line && (!write || ci->last_write)) {
		cpu_mem_l1_again(c, kind);
		return;
	}
	cpu_mem(c, addr, bytes, node, kind);
	ci->last_line = (addr + bytes - 1) >> c->sys->cache.line_shift == line ? line : UINT64_MAX;
	ci->last_write = write;
}

static inline void mem(struct cpu *c, const struct mm_world *w, uint64_t addr, int node,
		       enum cpu_access kind)
{
	mem_bytes(c, w, addr, 8, node, kind);
}

static inline void atomic_rmw(struct cpu *c, const struct mm_world *w, uint64_t addr, int node)
{
	w->cpus[c->idx].last_line = UINT64_MAX;
	cpu_atomic(c, addr, node);
}

static inline void memo_reset(const struct mm_world *w, const struct cpu *c)
{
	w->cpus[c->idx].last_line = UINT64_MAX;
}


static inline bool node_isset(const uint64_t *mask, int node)
{
	return (mask[node >> 6] >> (node & 63)) & 1;
}

static inline struct pfn_block *page_block(const struct mm_world *w, const struct page *p)
{
	return &w->blocks[p->block];
}

static inline struct zone *page_zone(const struct mm_world *w, const struct page *p)
{
	return &w->zones[w->blocks[p->block].zone];
}

static inline uint64_t page_pfn(const struct mm_world *w, const struct page *p)
{
	return w->blocks[p->block].pfn + p->off;
}

static inline int page_node(const struct mm_world *w, const struct page *p)
{
	return w->zones[w->blocks[p->block].zone].node;
}

/* The struct page at offset off of block b (off 0 when the block has no
 * detail: only its first page exists as an object). */
static inline struct page *block_page(struct pfn_block *b, unsigned off)
{
	assert(b->detail || off == 0);
	return b->detail ? &b->detail[off] : &b->head;
}

/* Charge an access to a struct page (flags, _count, lru, private share
 * its first line). */
static inline void mem_page(struct cpu *c, const struct mm_world *w, const struct page *p,
			    enum cpu_access kind)
{
	mem(c, w, p->addr, page_node(w, p), kind);
}

/* A list node: a struct page or a list head inside a zone / pageset. */
static inline void mem_node(struct cpu *c, const struct mm_world *w, const struct page *p,
			    int head_node, enum cpu_access kind)
{
	mem(c, w, p->addr, p->block == UINT32_MAX ? head_node : page_node(w, p), kind);
}

static inline void list_init(struct page *h, uint64_t addr)
{
	memset(h, 0, sizeof *h);
	h->next = h->prev = h;
	h->addr = addr;
	h->block = UINT32_MAX;
	h->state = PS_HEAD_SENTINEL;
}

static inline bool list_empty(const struct page *h) { return h->next == h; }

static inline void list_add(struct page *n, struct page *h)
{
	n->next = h->next;
	n->prev = h;
	h->next->prev = n;
	h->next = n;
}

static inline void list_add_tail(struct page *n, struct page *h)
{
	n->prev = h->prev;
	n->next = h;
	h->prev->next = n;
	h->prev = n;
}

static inline void list_del(struct page *p)
{
	p->next->prev = p->prev;
	p->prev->next = p->next;
	p->next = p->prev = NULL;
}

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

static inline uint64_t zaddr_free_list(const struct zone *z, int o, int mt)
{
	return z->addr + ZOFF_FREE_AREA + (uint64_t)o * ZOFF_FREE_AREA_SIZE + (uint64_t)mt * 16;
}

static inline uint64_t zaddr_nr_free(const struct zone *z, int o)
{
	return z->addr + ZOFF_FREE_AREA + (uint64_t)o * ZOFF_FREE_AREA_SIZE + 96;
}

static inline uint64_t zaddr_stat(const struct zone *z, enum mm_stat i)
{
	return z->addr + ZOFF_VMSTAT + 8u * mm_stat_idx[i];
}

/* zone_page_state(): the atomic, negative clamps to 0 (SMP). */
static inline int64_t zone_page_state(const struct zone *z, enum mm_stat i)
{
	return z->vm_stat[i] < 0 ? 0 : z->vm_stat[i];
}

static int64_t zone_stat_snapshot(const struct mm_world *w, const struct zone *z,
				  enum mm_stat i)
{
	int64_t v = z->vm_stat[i];
	for (int k = 0; k < w->s->nr_cpus; k++)
		v += z->pcp[k].diff[i];
	return v;
}

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
	work(c, W_pfnblock);
	mem(c, w, z->usemap + (pb * 4 / 64) * 8, z->node, CPU_LOAD_DEP);
	cpu_ret(c);
	return pb_get(w, p);
}

/* --- detail pool -------------------------------------------------------- */

static struct page *detail_get(struct mm_world *w)
{
	struct page_detail_pool *p = &w->pool;
	if (p->nr)
		return p->free[--p->nr];
	if (p->nr_all == p->cap_all) {
		size_t cap = p->cap_all ? 2 * p->cap_all : 64;
		struct page **a = realloc(p->all, cap * sizeof *a);
		struct page **f = realloc(p->free, cap * sizeof *f);
		if (a)
			p->all = a;
		if (f)
			p->free = f;
		if (!a || !f)
			return NULL;
		p->cap_all = p->cap = cap;
	}
	struct page *d = malloc(BLOCK_PAGES * sizeof *d);
	if (!d)
		return NULL;
	p->all[p->nr_all++] = d;
	p->total++;
	return d;
}

static void detail_put(struct mm_world *w, struct page *d)
{
	w->pool.free[w->pool.nr++] = d;   /* cap == cap_all >= every detail */
}

/* Give block b per-page metadata; its head page (not on any list) moves to
 * detail[0].  Returns detail[0]. */
static struct page *block_split(struct mm_world *w, struct pfn_block *b)
{
	struct page *d = detail_get(w);
	if (!d) {
		/* Host out of memory in the middle of the simulated kernel's
		 * critical section: nothing sensible can continue. */
		fprintf(stderr, "numasim: out of memory for page metadata\n");
		abort();
	}
	uint32_t bi = (uint32_t)(b - w->blocks);
	for (unsigned i = 0; i < BLOCK_PAGES; i++) {
		struct page *p = &d[i];
		memset(p, 0, sizeof *p);
		p->addr = b->addr + (uint64_t)i * STRUCT_PAGE_SIZE;
		p->block = bi;
		p->off = (uint16_t)i;
		p->pcp_cpu = -1;
	}
	d[0].order = b->head.order;
	d[0].state = b->head.state;
	d[0].mt = b->head.mt;
	d[0].count = b->head.count;
	b->head.state = PS_NONE;
	b->detail = d;
	w->zones[b->zone].ev[EV_block_split]++;
	return d;
}

/* The block merged back to one order-10 block: drop its detail. */
static struct page *block_unsplit(struct mm_world *w, struct pfn_block *b)
{
	struct page *d = b->detail;
	b->head.order = d[0].order;
	b->head.state = d[0].state;
	b->head.mt = d[0].mt;
	b->head.count = d[0].count;
	b->head.next = b->head.prev = NULL;
	b->detail = NULL;
	detail_put(w, d);
	w->zones[b->zone].ev[EV_block_merge]++;
	return &b->head;
}

/* --- vmstat (mm/vmstat.c) ----------------------------------------------- */

static void zone_page_state_add(struct cpu *c, struct mm_world *w, struct zone *z,
				enum mm_stat i, int64_t x)
{
	atomic_rmw(c, w, zaddr_stat(z, i), z->node);
	atomic_rmw(c, w, w->vm_stat_addr + 8u * mm_stat_idx[i], w->m->nodes[0].id);
	z->vm_stat[i] += x;
}

static inline struct per_cpu_pages *this_pcp(const struct cpu *c, struct zone *z)
{
	return &z->pcp[c->idx];
}

static void __mod_zone_page_state(struct cpu *c, struct mm_world *w, struct zone *z,
				  enum mm_stat i, int64_t delta)
{
	struct per_cpu_pages *pcp = this_pcp(c, z);
	call(c, w, FN___mod_zone_page_state);
	work(c, W_mod_zone_page_state);
	mem(c, w, z->addr + ZOFF_PAGESET, z->node, CPU_LOAD_DEP);
	mem(c, w, pcp->addr + PCPOFF_DIFF + mm_stat_idx[i], c->node, CPU_LOAD_DEP);
	mem(c, w, pcp->addr + PCPOFF_DIFF + mm_stat_idx[i], c->node, CPU_STORE);
	int64_t x = delta + pcp->diff[i];
	int64_t t = pcp->stat_threshold;
	if (br(c, w, S_A39a, x > t) || br(c, w, S_A39b, x < -t)) {
		zone_page_state_add(c, w, z, i, x);
		x = 0;
	}
	pcp->diff[i] = (int32_t)x;
	cpu_ret(c);
}

static void __inc_zone_state(struct cpu *c, struct mm_world *w, struct zone *z,
			     enum mm_stat i)
{
	struct per_cpu_pages *pcp = this_pcp(c, z);
	call(c, w, FN___inc_zone_state);
	work(c, W_inc_zone_state);
	mem(c, w, z->addr + ZOFF_PAGESET, z->node, CPU_LOAD_DEP);
	/* __this_cpu_inc_return: the new value is tested at once */
	mem(c, w, pcp->addr + PCPOFF_DIFF + mm_stat_idx[i], c->node, CPU_LOAD_DEP);
	mem(c, w, pcp->addr + PCPOFF_DIFF + mm_stat_idx[i], c->node, CPU_STORE);
	int64_t v = ++pcp->diff[i];
	int64_t t = pcp->stat_threshold;
	if (br(c, w, S_A42c, v > t)) {
		int64_t overstep = t >> 1;
		zone_page_state_add(c, w, z, i, v + overstep);
		pcp->diff[i] = (int32_t)-overstep;
	}
	cpu_ret(c);
}

/* mod_zone_page_state (x86: this_cpu_cmpxchg based mod_state, overstep 0). */
static void mod_zone_page_state(struct cpu *c, struct mm_world *w, struct zone *z,
				enum mm_stat i, int64_t delta)
{
	struct per_cpu_pages *pcp = this_pcp(c, z);
	call(c, w, FN_mod_zone_page_state);
	work(c, W_mod_zone_page_state);
	mem(c, w, pcp->addr + PCPOFF_DIFF + mm_stat_idx[i], c->node, CPU_LOAD_DEP);
	cpu_this_cpu_cmpxchg(c);
	mem(c, w, pcp->addr + PCPOFF_DIFF + mm_stat_idx[i], c->node, CPU_STORE);
	int64_t n = delta + pcp->diff[i];
	int64_t t = pcp->stat_threshold;
	if (br(c, w, S_mod_state_fold, n > t || n < -t)) {
		zone_page_state_add(c, w, z, i, n);
		n = 0;
	}
	pcp->diff[i] = (int32_t)n;
	cpu_ret(c);
}

/* __count_zone_vm_events / __count_vm_event: a per-cpu counter. */
static inline void count_vm_event(struct cpu *c, const struct mm_world *w, int slot)
{
	const struct mm_cpu *ci = &w->cpus[c->idx];
	mem(c, w, ci->percpu + PERCPU_EVENTS + 8u * (unsigned)slot, c->node, CPU_STORE);
}

/* --- the zonelist iterator (mm/mmzone.c, include/linux/mmzone.h) -------- */

static inline void mem_zoneref(struct cpu *c, const struct mm_world *w, const struct pglist_data *n,
			       int kind, int i)
{
	mem_bytes(c, w, n->zl_addr[kind] + (uint64_t)i * ZONEREF_SIZE, ZONEREF_SIZE, n->id,
		  CPU_LOAD_DEP);
}

/* zref_in_nodemask(): z->zone->node (a load from the zone) + a bit test
 * of the nodemask (a load from it, e.g. current->mems_allowed). */
static bool zref_in_nodemask(struct cpu *c, const struct mm_world *w, const struct mm_zoneref *z,
			     const uint64_t *nodes)
{
	/* z->zone (in the zoneref just loaded) -> zone->node -> the mask word
	 * it indexes -> the branch: one chain */
	mem(c, w, z->zone->addr + ZOFF_NODE, z->zone->node, CPU_LOAD_DEP);
	int node = z->zone->node;
	const struct mm_cpu *ci = &w->cpus[c->idx];
	uint64_t mask_addr = (nodes == w->mpol_mask ? ci->mpol + MPOL_OFF_V
						    : ci->task + TASK_MEMS_ALLOWED) +
			     (uint64_t)(node >> 6) * 8;
	mem(c, w, mask_addr, ci->numa_node, CPU_LOAD_DEP);
	return node_isset(nodes, node);
}

/* The out-of-line body: next_zones_zonelist in PRE, __next_zones_zonelist
 * in POST (the diff renamed it, the body is unchanged). */
static int next_zones_zonelist_body(struct cpu *c, const struct mm_world *w,
				    const struct pglist_data *n, int kind, int i, int high,
				    const uint64_t *nodes)
{
	const struct mm_zoneref *zr = n->zonerefs[kind];
	work(c, W_nzl_body);
	if (br(c, w, S_nzl_nodes_null, nodes == NULL)) {
		for (;;) {
			mem_zoneref(c, w, n, kind, i);
			if (!br(c, w, S_nzl_idx, zr[i].zone_idx > high))
				break;
			work(c, W_nzl_step);
			i++;
		}
	} else {
		for (;;) {
			mem_zoneref(c, w, n, kind, i);
			if (br(c, w, S_nzl_mask_idx, zr[i].zone_idx > high) ||
			    (br(c, w, S_nzl_mask_zone, zr[i].zone != NULL) &&
			     br(c, w, S_nzl_mask_isset, !zref_in_nodemask(c, w, &zr[i], nodes)))) {
				work(c, W_nzl_step);
				i++;
				continue;
			}
			break;
		}
	}
	return i;
}

/* next_zones_zonelist(z, highest_zoneidx, nodes) as the variant has it;
 * returns the zoneref index. */
static int next_zones_zonelist(struct cpu *c, const struct mm_world *w,
			       const struct pglist_data *n, int kind, int i, int high,
			       const uint64_t *nodes)
{
	if (w->cfg.iter == MMZONE_ITER_PRE) {
		call(c, w, FN_next_zones_zonelist);
		i = next_zones_zonelist_body(c, w, n, kind, i, high, nodes);
		cpu_ret(c);
		return i;
	}
	/* POST: __always_inline wrapper */
	call(c, w, FN_next_zones_zonelist);
	work(c, W_nzl_inline);
	bool fast = br(c, w, S_nzl_inline_nodes, nodes == NULL);
	if (fast) {
		mem_zoneref(c, w, n, kind, i);
		fast = br(c, w, S_nzl_inline_idx, n->zonerefs[kind][i].zone_idx <= high);
	}
	if (!fast) {
		call(c, w, FN___next_zones_zonelist);
		i = next_zones_zonelist_body(c, w, n, kind, i, high, nodes);
		cpu_ret(c);
	}
	cpu_ret(c);
	return i;
}

/* first_zones_zonelist(zl, high, nodes, &zone): inline in both. */
static int first_zones_zonelist(struct cpu *c, const struct mm_world *w,
				const struct pglist_data *n, int kind, int high,
				const uint64_t *nodes, struct zone **zone)
{
	call(c, w, FN_first_zones_zonelist);
	int i = next_zones_zonelist(c, w, n, kind, 0, high, nodes);
	*zone = n->zonerefs[kind][i].zone;
	cpu_ret(c);
	return i;
}

/* --- buddy allocator (zone->lock held) ---------------------------------- */

static inline void set_page_order(struct page *p, int order)
{
	p->order = (uint8_t)order;
	p->state = PS_BUDDY;
}

static inline void rmv_page_order(struct page *p)
{
	p->state = PS_NONE;
	p->order = 0;
}

/* expand(): hand the upper halves back, at the head of the lists. */
static void expand(struct cpu *c, struct mm_world *w, struct zone *z, struct page *page,
		   int low, int high, int mt)
{
	struct pfn_block *b = page_block(w, page);
	call(c, w, FN_expand);
	unsigned size = 1u << high;
	while (br(c, w, S_expand_loop, high > low)) {
		work(c, W_expand_step);
		high--;
		size >>= 1;
		struct page *half = &b->detail[page->off + size];
		c_list_add(c, w, half, &z->free_area[high].list[mt], z->node, false);
		mem(c, w, zaddr_nr_free(z, high), z->node, CPU_STORE);
		z->free_area[high].nr_free++;
		set_page_order(half, high);
	}
	cpu_ret(c);
}

/* Unlink the head block of a free list at order o: returns its page, with
 * the block split into per-page metadata when a smaller order is wanted. */
static struct page *take_free_block(struct cpu *c, struct mm_world *w, struct zone *z,
				       struct page *head, int o, int order)
{
	struct page *page = head->next;
	c_list_del(c, w, page, z->node);
	rmv_page_order(page);
	mem(c, w, zaddr_nr_free(z, o), z->node, CPU_STORE);
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
		work(c, W_smallest_probe);
		struct page *head = &z->free_area[o].list[mt];
		mem(c, w, head->addr, z->node, CPU_LOAD_DEP);
		if (br(c, w, S_smallest_empty, list_empty(head)))
			continue;
		work(c, W_smallest_take);
		page = take_free_block(c, w, z, head, o, order);
		expand(c, w, z, page, order, o, mt);
		page->mt = (uint8_t)mt;
		break;
	}
	cpu_ret(c);
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
		cpu_ret(c);
		return 0;
	}
	for (unsigned off = start; br(c, w, S_move_freepages_loop, off < end);) {
		work(c, W_move_freepages_page);
		struct page *p = block_page(b, b->detail ? off : 0);
		mem_page(c, w, p, CPU_LOAD_DEP);
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
	cpu_ret(c);
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
	int ret = -1;
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
		ret = f;
		break;
	}
out:
	cpu_ret(c);
	return ret;
}

static void steal_suitable_fallback(struct cpu *c, struct mm_world *w, struct zone *z,
				    struct page *page, int start_mt)
{
	call(c, w, FN_steal_suitable_fallback);
	work(c, W_steal);
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
		cpu_ret(c);
		return;
	}
	int pages = move_freepages_block(c, w, z, page, start_mt);
	if (br(c, w, S_steal_pages, pages >= (1 << (PAGEBLOCK_ORDER - 1)) || w->mobility_disabled)) {
		pb_set(w, page, start_mt);
		z->ev[EV_steal_pageblock]++;
	}
	cpu_ret(c);
}

/* __rmqueue_fallback: the largest block of a fallback type, stolen. */
static struct page *__rmqueue_fallback(struct cpu *c, struct mm_world *w, struct zone *z,
					  int order, int start_mt)
{
	call(c, w, FN___rmqueue_fallback);
	struct page *page = NULL;
	for (int o = MAX_ORDER - 1; br(c, w, S_fallback_loop, o >= order); o--) {
		bool can_steal = false;
		work(c, W_fallback_probe);
		int f = find_suitable_fallback(c, w, z, o, start_mt, &can_steal);
		if (br(c, w, S_fallback_none, f == -1))
			continue;
		struct page *head = &z->free_area[o].list[f];
		if (br(c, w, S_fallback_can_steal, can_steal))
			steal_suitable_fallback(c, w, z, head->next, start_mt);
		page = take_free_block(c, w, z, head, o, order);
		expand(c, w, z, page, order, o, start_mt);
		page->mt = (uint8_t)start_mt;
		z->ev[EV_fallback]++;
		break;
	}
	cpu_ret(c);
	return page;
}

static struct page *__rmqueue(struct cpu *c, struct mm_world *w, struct zone *z,
				 int order, int mt)
{
	call(c, w, FN___rmqueue);
	work(c, W_rmqueue);
	struct page *page = __rmqueue_smallest(c, w, z, order, mt);
	if (br(c, w, S_rmqueue_nopage, page == NULL)) {
		/* CONFIG_CMA: __rmqueue_cma_fallback, an empty CMA list here */
		if (br(c, w, S_rmqueue_movable, mt == MT_MOVABLE))
			page = __rmqueue_smallest(c, w, z, order, MT_CMA);
		if (br(c, w, S_rmqueue_fallback, page == NULL))
			page = __rmqueue_fallback(c, w, z, order, mt);
	}
	cpu_ret(c);
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
	work(c, W_free_one_entry);
	int max_order = MAX_ORDER < PAGEBLOCK_ORDER + 1 ? MAX_ORDER : PAGEBLOCK_ORDER + 1;
	if (br(c, w, S_free_one_isolate, mt != MT_ISOLATE))
		__mod_zone_page_state(c, w, z, NR_FREE_PAGES, 1 << order);
	unsigned idx = page->off;     /* pfn & (MAX_ORDER_NR_PAGES - 1) */
	unsigned bidx = idx;
	struct page *buddy = NULL;
	for (;;) {
		bool done = false;
		while (br(c, w, S_free_one_merge, order < max_order - 1)) {
			work(c, W_free_one_merge);
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
	work(c, W_free_one_done);
	if (order == BLOCK_ORDER && b->detail)
		page = block_unsplit(w, b);
	mem_page(c, w, page, CPU_STORE);
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
	cpu_ret(c);
}

/* --- per-cpu lists ------------------------------------------------------ */

static int rmqueue_bulk(struct cpu *c, struct mm_world *w, struct zone *z, int order,
			int count, struct page *list, int mt, bool cold)
{
	call(c, w, FN_rmqueue_bulk);
	work(c, W_rmqueue_bulk);
	cpu_lock(c, &z->lock);
	int i;
	struct page *pos = list;
	for (i = 0; br(c, w, S_rmqueue_bulk_loop, i < count); ++i) {
		work(c, W_rmqueue_bulk_page);
		struct page *page = __rmqueue(c, w, z, order, mt);
		if (br(c, w, S_rmqueue_bulk_null, page == NULL))
			break;
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
	cpu_ret(c);
	return i;
}

static void free_pcppages_bulk(struct cpu *c, struct mm_world *w, struct zone *z, int count,
			       struct per_cpu_pages *pcp)
{
	call(c, w, FN_free_pcppages_bulk);
	work(c, W_pcpbulk);
	int mt = 0, batch_free = 0, to_free = count;
	cpu_lock(c, &z->lock);
	mem(c, w, zaddr_stat(z, NR_PAGES_SCANNED), z->node, CPU_LOAD_DEP);
	int64_t scanned = zone_page_state(z, NR_PAGES_SCANNED);
	if (br(c, w, S_pcpbulk_nr_scanned, scanned != 0))
		__mod_zone_page_state(c, w, z, NR_PAGES_SCANNED, -scanned);
	while (br(c, w, S_pcpbulk_to_free, to_free != 0)) {
		struct page *list;
		do {
			work(c, W_pcpbulk_search);
			batch_free++;
			if (br(c, w, S_pcpbulk_wrap, ++mt == MT_PCPTYPES))
				mt = 0;
			list = &pcp->lists[mt];
			mem(c, w, list->addr, c->node, CPU_LOAD_DEP);
		} while (br(c, w, S_pcpbulk_empty, list_empty(list)));
		if (br(c, w, S_pcpbulk_only_one, batch_free == MT_PCPTYPES))
			batch_free = to_free;
		for (;;) {
			work(c, W_pcpbulk_page);
			struct page *page = list->prev;
			c_list_del(c, w, page, c->node);
			/* mt = get_pcppage_migratetype(page) selects the free list */
			mem_page(c, w, page, CPU_LOAD_DEP);
			page->state = PS_NONE;
			page->pcp_cpu = -1;
			int pmt = page->mt;
			if (br(c, w, S_pcpbulk_isolate, z->has_isolate_pageblock))
				pmt = pb_get(w, page);
			__free_one_page(c, w, page, z, 0, pmt);
			if (!br(c, w, S_pcpbulk_more_count, --to_free != 0) ||
			    !br(c, w, S_pcpbulk_more_batch, --batch_free != 0) ||
			    !br(c, w, S_pcpbulk_more_list, !list_empty(list)))
				break;
		}
	}
	cpu_unlock(c, &z->lock);
	z->ev[EV_pcp_drain]++;
	z->ev[EV_pcp_drain_pages] += (uint64_t)count;
	cpu_ret(c);
}

/* --- allocation --------------------------------------------------------- */

static void zone_statistics(struct cpu *c, struct mm_world *w, struct zone *pref,
			    struct zone *z, uint32_t gfp)
{
	call(c, w, FN_zone_statistics);
	work(c, W_zone_statistics);
	int local_nid = w->cpus[c->idx].numa_node;
	enum mm_stat local_stat = NUMA_LOCAL;
	if (w->cfg.zone_stats == VMSTAT_NUMA_V46) {
		/* v4.6: hit/miss against the preferred zone's node, then
		 * local/other against numa_node_id() (or the preferred node
		 * with __GFP_OTHER_NODE) */
		mem(c, w, pref->addr + ZOFF_NODE, pref->node, CPU_LOAD);
		mem(c, w, z->addr + ZOFF_NODE, z->node, CPU_LOAD_DEP);
		if (br(c, w, S_A42d, z->node == pref->node)) {
			__inc_zone_state(c, w, z, NUMA_HIT);
		} else {
			__inc_zone_state(c, w, z, NUMA_MISS);
			__inc_zone_state(c, w, pref, NUMA_FOREIGN);
		}
		if (br(c, w, S_A42a, gfp & __GFP_OTHER_NODE))
			local_nid = pref->node;
		if (br(c, w, S_A42e, z->node == local_nid))
			__inc_zone_state(c, w, z, NUMA_LOCAL);
		else
			__inc_zone_state(c, w, z, NUMA_OTHER);
		cpu_ret(c);
		return;
	}
	if (br(c, w, S_A42a, gfp & __GFP_OTHER_NODE)) {
		local_stat = NUMA_OTHER;
		mem(c, w, pref->addr + ZOFF_NODE, pref->node, CPU_LOAD);
		local_nid = pref->node;
	}
	mem(c, w, z->addr + ZOFF_NODE, z->node, CPU_LOAD_DEP);
	if (br(c, w, S_A42b, z->node == local_nid)) {
		__inc_zone_state(c, w, z, NUMA_HIT);
		__inc_zone_state(c, w, z, local_stat);
	} else {
		__inc_zone_state(c, w, z, NUMA_MISS);
		__inc_zone_state(c, w, pref, NUMA_FOREIGN);
	}
	cpu_ret(c);
}

static struct page *buffered_rmqueue(struct cpu *c, struct mm_world *w, struct zone *pref,
					struct zone *z, int order, uint32_t gfp,
					int alloc_flags, int mt)
{
	call(c, w, FN_buffered_rmqueue);
	bool cold = (gfp & __GFP_COLD) != 0;
	struct page *page = NULL;
	if (br(c, w, S_A34, order == 0)) {
		work(c, W_buffered_pcp);
		cpu_irq_save(c);
		struct per_cpu_pages *pcp = this_pcp(c, z);
		/* this_cpu_ptr(zone->pageset) -> lists[mt].next (tested) -> page */
		mem(c, w, z->addr + ZOFF_PAGESET, z->node, CPU_LOAD_DEP);
		struct page *list = &pcp->lists[mt];
		mem(c, w, list->addr, c->node, CPU_LOAD_DEP);
		if (br(c, w, S_A36a, list_empty(list))) {
			mem(c, w, pcp->addr, c->node, CPU_LOAD_DEP);    /* pcp->batch */
			pcp->count += rmqueue_bulk(c, w, z, 0, pcp->batch, list, mt, cold);
			if (br(c, w, S_A36b, list_empty(list)))
				goto failed;
		}
		page = br(c, w, S_A37, cold) ? list->prev : list->next;
		c_list_del(c, w, page, c->node);
		mem(c, w, pcp->addr, c->node, CPU_STORE);        /* pcp->count--, unread */
		pcp->count--;
		page->pcp_cpu = -1;
	} else {
		work(c, W_buffered_buddy);
		cpu_irq_save(c);
		cpu_lock(c, &z->lock);
		if (br(c, w, S_buffered_rmqueue_harder, alloc_flags & ALLOC_HARDER))
			page = __rmqueue_smallest(c, w, z, order, MT_HIGHATOMIC);
		if (!page)
			page = __rmqueue(c, w, z, order, mt);
		cpu_unlock(c, &z->lock);
		if (br(c, w, S_buffered_rmqueue_nopage, page == NULL))
			goto failed;
		__mod_zone_page_state(c, w, z, NR_FREE_PAGES, -(int64_t)(1 << order));
	}
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
	cpu_irq_restore(c);
	page->state = PS_ALLOC;
	page->alloc_order = order;
	z->allocated += 1u << order;
	cpu_ret(c);
	return page;
failed:
	cpu_irq_restore(c);
	cpu_ret(c);
	return NULL;
}

/* _count of the page at offset off of block b: pages of a block without
 * per-page metadata are free tails (count 0). */
static inline int32_t block_page_count(const struct pfn_block *b, unsigned off)
{
	return b->detail ? b->detail[off].count : off == 0 ? b->head.count : 0;
}

/* check_new_page: six unlikely tests on the page (CONFIG_MEMCG). */
static int check_new_page(struct cpu *c, struct mm_world *w, const struct pfn_block *b,
			  unsigned off)
{
	call(c, w, FN_check_new_page);
	mem(c, w, b->addr + (uint64_t)off * STRUCT_PAGE_SIZE, w->zones[b->zone].node, CPU_LOAD_DEP);
	bool bad = false;
	bad |= br(c, w, S_A45a, false);                 /* _mapcount == -1 */
	bad |= br(c, w, S_A45b, false);                 /* mapping */
	bad |= br(c, w, S_A45c, block_page_count(b, off) != 0);
	bad |= br(c, w, S_A45d, false);                 /* HWPOISON */
	bad |= br(c, w, S_A45e, false);                 /* CHECK_AT_PREP */
	bad |= br(c, w, S_A45f, false);                 /* mem_cgroup */
	bad = br(c, w, S_A45g, bad);
	cpu_ret(c);
	return bad;
}

static int prep_new_page(struct cpu *c, struct mm_world *w, struct page *page, int order,
			 uint32_t gfp, int alloc_flags)
{
	call(c, w, FN_prep_new_page);
	struct pfn_block *b = page_block(w, page);
	for (unsigned i = 0; br(c, w, S_A45h, i < (1u << order)); i++) {
		if (check_new_page(c, w, b, page->off + i)) {
			cpu_ret(c);
			return 1;
		}
	}
	work(c, W_prep_new_page);
	mem_page(c, w, page, CPU_STORE);                /* private, _count */
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
	cpu_ret(c);
	return 0;
}

static void reset_alloc_batches(struct cpu *c, struct mm_world *w, struct zone *pref)
{
	call(c, w, FN_reset_alloc_batches);
	struct pglist_data *n = &w->nodes[pref->node_pos];
	for (int t = 0;; t++) {
		struct zone *z = n->zones[t];
		work(c, W_reset_batch_zone);
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
	cpu_ret(c);
}

/* __cpuset_node_allowed (kernel/cpuset.c); the nearest hardwall ancestor
 * is the root cpuset (all nodes), the model's only hierarchy. */
static bool __cpuset_node_allowed(struct cpu *c, struct mm_world *w, int node, uint32_t gfp)
{
	call(c, w, FN___cpuset_node_allowed);
	work(c, W_cpuset_node_allowed);
	bool allowed = true;
	const struct mm_cpu *ci = &w->cpus[c->idx];
	if (br(c, w, S_cpuset_in_interrupt, false))
		goto out;
	mem(c, w, ci->task + TASK_MEMS_ALLOWED + (uint64_t)(node >> 6) * 8, ci->numa_node,
	    CPU_LOAD_DEP);
	if (br(c, w, S_cpuset_isset, node_isset(w->nodemask, node)))
		goto out;
	mem(c, w, ci->task + TASK_FLAGS, ci->numa_node, CPU_LOAD_DEP);
	if (br(c, w, S_cpuset_memdie, false))
		goto out;
	if (br(c, w, S_cpuset_hardwall, gfp & __GFP_HARDWALL)) {
		allowed = false;
		goto out;
	}
	if (br(c, w, S_cpuset_exiting, false))
		goto out;
	cpu_irq_save(c);
	cpu_lock(c, &w->callback_lock);
	mem(c, w, w->callback_lock_addr, w->m->nodes[0].id, CPU_LOAD_DEP);
	cpu_unlock(c, &w->callback_lock);
	cpu_irq_restore(c);
out:
	cpu_ret(c);
	return allowed;
}

static bool zone_watermark_ok(struct cpu *c, struct mm_world *w, struct zone *z, int order,
			      int64_t mark, int classzone_idx, int alloc_flags)
{
	call(c, w, FN_zone_watermark_ok);
	call(c, w, FN___zone_watermark_ok);
	work(c, W_watermark);
	bool ok = false;
	/* free pages, highatomic, CMA free, lowmem_reserve and the mark (loaded
	 * by the caller) are independent loads feeding one compare (A30d): they
	 * overlap, the last one waits */
	mem(c, w, zaddr_stat(z, NR_FREE_PAGES), z->node, CPU_LOAD);
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
		work(c, W_watermark_order);
		mem(c, w, zaddr_nr_free(z, o), z->node, CPU_LOAD_DEP);
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
	cpu_ret(c);
	cpu_ret(c);
	return ok;
}

static struct page *get_page_from_freelist(struct cpu *c, struct mm_world *w, uint32_t gfp,
					      int order, int alloc_flags, const struct alloc_context *ac)
{
	call(c, w, FN_get_page_from_freelist);
	work(c, W_gpfl_entry);
	const struct pglist_data *zn = ac->zl_node;
	const struct mm_zoneref *zr = zn->zonerefs[ac->zl_kind];
	struct page *page = NULL;
	int nr_fair_skipped = 0;
	bool rescan;
zonelist_scan:
	rescan = false;
	struct zone *zone;
	int i = first_zones_zonelist(c, w, zn, ac->zl_kind, ac->high_zoneidx, ac->nodemask, &zone);
	for (; br(c, w, S_A23, zone != NULL);
	     i = next_zones_zonelist(c, w, zn, ac->zl_kind, i + 1, ac->high_zoneidx, ac->nodemask),
	     zone = zr[i].zone) {
		work(c, W_gpfl_zone);
		if (br(c, w, S_A24a, w->cfg.cpusets_enabled) &&
		    br(c, w, S_A24b, alloc_flags & ALLOC_CPUSET)) {
			call(c, w, FN_cpuset_zone_allowed);
			bool allowed = true;
			if (!br(c, w, S_A24c, false)) {           /* nr_cpusets() > 1 */
				mem(c, w, zone->addr + ZOFF_NODE, zone->node, CPU_LOAD_DEP);
				allowed = __cpuset_node_allowed(c, w, zone->node, gfp);
			}
			cpu_ret(c);
			if (br(c, w, S_A24d, !allowed))
				continue;
		}
		if (br(c, w, S_A25, alloc_flags & ALLOC_FAIR)) {
			/* zone_local(): two independent loads, one compare */
			mem(c, w, zone->addr + ZOFF_NODE, zone->node, CPU_LOAD);
			mem(c, w, ac->preferred_zone->addr + ZOFF_NODE, ac->preferred_zone->node,
			    CPU_LOAD_DEP);
			if (br(c, w, S_A26, zone->node != ac->preferred_zone->node))
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
		if (br(c, w, S_A31, !zone_watermark_ok(c, w, zone, order, mark, ac->classzone_idx,
						       alloc_flags))) {
			zone->ev[EV_wmark_fail]++;
			if (br(c, w, S_A31b, alloc_flags & ALLOC_NO_WATERMARKS))
				goto try_this_zone;
			/* zone_reclaim_mode == 0: the only mode modelled */
			if (br(c, w, S_A31c, w->cfg.zone_reclaim_mode == 0))
				continue;
			continue;
		}
try_this_zone:
		page = buffered_rmqueue(c, w, ac->preferred_zone, zone, order, gfp, alloc_flags,
					ac->migratetype);
		if (br(c, w, S_A44, page != NULL)) {
			if (br(c, w, S_A45m, prep_new_page(c, w, page, order, gfp, alloc_flags) != 0))
				goto try_this_zone;
			if (br(c, w, S_A46a, order != 0) &&
			    br(c, w, S_A46b, alloc_flags & ALLOC_HARDER)) {
				/* reserve_highatomic_pageblock: not modelled (documented) */
			}
			goto out;
		}
	}
	work(c, W_gpfl_after);
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
	cpu_ret(c);
	return page;
}

/*
 * __alloc_pages_slowpath: a documented, counted simplification.  Kept: the
 * order check, wake_all_kswapds (counted; no kswapd is simulated),
 * gfp_to_alloc_flags (WMARK_MIN, HIGH, HARDER and no CPUSET for atomic
 * requests), PRE's preferred-zone recomputation (deleted by the diff) and
 * one get_page_from_freelist attempt.  Not modelled: reclaim, compaction,
 * OOM, retries, ALLOC_NO_WATERMARKS (PF_MEMALLOC).  Failure is counted.
 */
static struct page *alloc_pages_slowpath(struct cpu *c, struct mm_world *w, uint32_t gfp,
					    int order, struct alloc_context *ac)
{
	call(c, w, FN___alloc_pages_slowpath);
	work(c, W_slowpath);
	struct page *page = NULL;
	struct pglist_data *pn = &w->nodes[ac->preferred_zone->node_pos];
	pn->ev[NEV_slowpath]++;
	if (br(c, w, S_slowpath_order, order >= MAX_ORDER))
		goto out;
	if (br(c, w, S_slowpath_kswapd, gfp & __GFP_KSWAPD_RECLAIM)) {
		call(c, w, FN_wake_all_kswapds);
		pn->ev[NEV_kswapd_wake]++;
		cpu_ret(c);
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
		ac->classzone_idx = ac->zl_node->zonerefs[ac->zl_kind][zi].zone_idx;
		if (!pz)
			goto out;
	}
	page = get_page_from_freelist(c, w, gfp, order, alloc_flags & ~ALLOC_NO_WATERMARKS, ac);
	br(c, w, S_slowpath_page, page != NULL);
out:
	if (!page)
		pn->ev[NEV_alloc_fail]++;
	cpu_ret(c);
	return page;
}

static int gfp_zone(uint32_t gfp)
{
	/* GFP_ZONE_TABLE on x86_64 (no HIGHMEM): HIGHMEM -> Normal */
	uint32_t z = gfp & (__GFP_DMA | __GFP_HIGHMEM | __GFP_DMA32 | __GFP_MOVABLE);
	if (z & __GFP_DMA)
		return ZONE_DMA;
	if (z & __GFP_DMA32)
		return ZONE_DMA32;
	if ((z & (__GFP_MOVABLE | __GFP_HIGHMEM)) == (__GFP_MOVABLE | __GFP_HIGHMEM))
		return ZONE_MOVABLE;
	return ZONE_NORMAL;
}

static struct page *__alloc_pages_nodemask(struct cpu *c, struct mm_world *w, uint32_t gfp,
					      unsigned order, struct pglist_data *zl_node,
					      int zl_kind, const uint64_t *nodemask)
{
	call(c, w, FN___alloc_pages_nodemask);
	work(c, W_alloc_nodemask);
	const struct mm_cpu *ci = &w->cpus[c->idx];
	struct page *page = NULL;
	bool post = w->cfg.iter == MMZONE_ITER_POST;
	int alloc_flags = post ? ALLOC_WMARK_LOW | ALLOC_FAIR
			       : ALLOC_WMARK_LOW | ALLOC_CPUSET | ALLOC_FAIR;
	struct alloc_context ac = {
		.zl_node = zl_node,
		.zl_kind = zl_kind,
		.nodemask = nodemask,
		.high_zoneidx = gfp_zone(gfp),
		.migratetype = MT_UNMOVABLE,
	};
	if (!br(c, w, S_A09, w->mobility_disabled))
		ac.migratetype = (int)((gfp & (__GFP_RECLAIMABLE | __GFP_MOVABLE)) >> 3);
	if (post && br(c, w, S_A10a, w->cfg.cpusets_enabled)) {
		alloc_flags |= ALLOC_CPUSET;
		if (br(c, w, S_A10b, !ac.nodemask))
			ac.nodemask = w->nodemask;
	}
	if (br(c, w, S_A11, gfp & __GFP_DIRECT_RECLAIM)) {
		/* might_sleep() with CONFIG_PREEMPT_VOLUNTARY */
		call(c, w, FN__cond_resched);
		work(c, W_cond_resched);
		br(c, w, S_A11b, false);
		cpu_ret(c);
	}
	mem_zoneref(c, w, zl_node, zl_kind, 0);
	if (br(c, w, S_A13, zl_node->zonerefs[zl_kind][0].zone == NULL))
		goto out_ret;
	if (br(c, w, S_A14, ac.migratetype == MT_MOVABLE))
		alloc_flags |= ALLOC_CMA;
retry_cpuset:
	br(c, w, S_A15, w->cfg.cpusets_enabled);      /* read_mems_allowed_begin */
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
	if (br(c, w, S_A19, ac.preferred_zone == NULL))
		goto out;
	ac.classzone_idx = zl_node->zonerefs[zl_kind][zi].zone_idx;
	page = get_page_from_freelist(c, w, gfp | __GFP_HARDWALL, (int)order, alloc_flags, &ac);
	if (br(c, w, S_A48, page == NULL)) {
		ac.spread_dirty_pages = 0;
		page = alloc_pages_slowpath(c, w, gfp, (int)order, &ac);
	}
	br(c, w, S_A50, false);                       /* trace_mm_page_alloc */
out:
	if (br(c, w, S_A51, page == NULL) && br(c, w, S_A51b, false))
		goto retry_cpuset;
out_ret:
	cpu_ret(c);
	return page;
}

/*
 * inc_zone_page_state(page, item) (mm/vmstat.c, x86: mod_state with
 * this_cpu_cmpxchg, overstep mode 1): out of line, irq-safe.
 */
static void inc_zone_page_state(struct cpu *c, struct mm_world *w, struct zone *z,
				enum mm_stat i)
{
	struct per_cpu_pages *pcp = this_pcp(c, z);
	call(c, w, FN_inc_zone_page_state);
	work(c, W_mod_zone_page_state);
	mem(c, w, z->addr + ZOFF_PAGESET, z->node, CPU_LOAD_DEP);
	mem(c, w, pcp->addr + PCPOFF_DIFF + mm_stat_idx[i], c->node, CPU_LOAD_DEP);
	cpu_this_cpu_cmpxchg(c);
	mem(c, w, pcp->addr + PCPOFF_DIFF + mm_stat_idx[i], c->node, CPU_STORE);
	int64_t n = 1 + pcp->diff[i];
	int64_t t = pcp->stat_threshold;
	if (br(c, w, S_mod_state_fold, n > t || n < -t)) {
		int64_t os = t >> 1;
		zone_page_state_add(c, w, z, i, n + os);
		n = -os;
	}
	pcp->diff[i] = (int32_t)n;
	cpu_ret(c);
}

/* Words of a nodemask that the machine's node ids reach (MAX_NUMNODES of
 * the modelled kernel: NODES_SHIFT 6 gives one word for up to 64 nodes). */
static int node_words(const struct mm_world *w)
{
	return (w->m->nodes[w->m->nr_nodes - 1].id >> 6) + 1;
}

/* find_next_bit / find_first_bit over a nodemask (lib/find_bit.c, out of
 * line): the next set bit after n (n = -1: the first), MACHINE_MAX_NODES
 * if none.  Charges one load per word scanned. */
static int find_next_node(struct cpu *c, const struct mm_world *w, const uint64_t *mask,
			  uint64_t mask_addr, int n)
{
	call(c, w, FN_find_next_bit);
	work(c, W_find_next_bit);
	const struct mm_cpu *ci = &w->cpus[c->idx];
	int found = MACHINE_MAX_NODES;
	for (int k = (n + 1) >> 6; n + 1 < MACHINE_MAX_NODES && k < node_words(w); k++) {
		mem(c, w, mask_addr + (uint64_t)k * 8, ci->numa_node, CPU_LOAD_DEP);
		uint64_t word = mask[k];
		if (k == (n + 1) >> 6)
			word &= ~0ull << ((n + 1) & 63);
		if (word) {
			int b = 0;
			while (!(word & 1)) {
				word >>= 1;
				b++;
			}
			found = k * 64 + b;
			break;
		}
	}
	cpu_ret(c);
	return found;
}

/* interleave_nodes(pol): returns current->il_next and advances it to the
 * next node of the set, wrapping to first_node(). */
static int interleave_nodes(struct cpu *c, struct mm_world *w)
{
	struct mm_cpu *ci = &w->cpus[c->idx];
	call(c, w, FN_interleave_nodes);
	work(c, W_interleave_nodes);
	mem(c, w, ci->task + TASK_FLAGS + 8, ci->numa_node, CPU_LOAD_DEP);   /* il_next */
	int nid = ci->il_next;
	int next = find_next_node(c, w, w->mpol_mask, ci->mpol + MPOL_OFF_V, nid);
	if (br(c, w, S_A05a, next >= MACHINE_MAX_NODES))
		next = find_next_node(c, w, w->mpol_mask, ci->mpol + MPOL_OFF_V, -1);
	if (br(c, w, S_A05b, next < MACHINE_MAX_NODES)) {
		mem(c, w, ci->task + TASK_FLAGS + 8, ci->numa_node, CPU_STORE);
		ci->il_next = next;
	}
	cpu_ret(c);
	return nid;
}

static struct pglist_data *node_of(const struct mm_world *w, int nid)
{
	return &w->nodes[w->m->node_index[nid]];
}

/* alloc_page_interleave(gfp, order, nid): node nid's zonelist, no
 * nodemask; NUMA_INTERLEAVE_HIT when the page came from the list's first
 * zone. */
static struct page *alloc_page_interleave(struct cpu *c, struct mm_world *w, uint32_t gfp,
					     unsigned order, int nid)
{
	call(c, w, FN_alloc_page_interleave);
	work(c, W_alloc_page_interleave);
	struct pglist_data *pn = node_of(w, nid);
	int kind = br(c, w, S_A06c, gfp & __GFP_THISNODE) ? ZONELIST_NOFALLBACK
							    : ZONELIST_FALLBACK;
	struct page *page = __alloc_pages_nodemask(c, w, gfp, order, pn, kind, NULL);
	struct zone *first = pn->zonerefs[kind][0].zone;
	if (page) {
		mem_page(c, w, page, CPU_LOAD);
		mem_zoneref(c, w, pn, kind, 0);
	}
	if (br(c, w, S_A05c, page && page_zone(w, page) == first))
		inc_zone_page_state(c, w, first, NUMA_INTERLEAVE_HIT);
	cpu_ret(c);
	return page;
}

/*
 * get_task_policy(current): the task's mempolicy when it has one, else
 * preferred_node_policy[numa_node_id()] (MPOL_PREFERRED of the local
 * node).  Charges the loads of current, p->mempolicy and the policy's mode.
 */
static void get_task_policy(struct cpu *c, struct mm_world *w)
{
	const struct mm_cpu *ci = &w->cpus[c->idx];
	call(c, w, FN_get_task_policy);
	/* current -> p->mempolicy (tested) -> ...mode (tested): a chain */
	mem(c, w, ci->percpu + PERCPU_CURRENT, ci->numa_node, CPU_LOAD_DEP);
	mem(c, w, ci->task + TASK_MEMPOLICY, ci->numa_node, CPU_LOAD_DEP);
	if (!br(c, w, S_A03a, w->cfg.mpol != MPOL_DEFAULT) && br(c, w, S_A03b, true)) {
		const struct pglist_data *pn = &w->nodes[ci->node_pos];
		mem(c, w, pn->policy_addr, w->m->nodes[0].id, CPU_LOAD_DEP);
		br(c, w, S_A03c, true);
	}
	cpu_ret(c);
}

/* policy_zonelist(gfp, pol, nd): which node's zonelist (and kind). */
static struct pglist_data *policy_zonelist(struct cpu *c, struct mm_world *w, uint32_t gfp,
				       enum mpol_mode mode, int *kind)
{
	const struct mm_cpu *ci = &w->cpus[c->idx];
	int nd = ci->numa_node;
	call(c, w, FN_policy_zonelist);
	/* pol->flags and pol->v share the line of pol->mode, loaded by the
	 * caller: charged once there */
	if (br(c, w, S_A06a, mode != MPOL_BIND)) {
		/* MPOL_PREFERRED (default, local, preferred) */
		if (br(c, w, S_A06b, mode != MPOL_LOCAL) && mode == MPOL_PREFERRED)
			nd = w->mpol_first;
	} else if (br(c, w, S_A06d, gfp & __GFP_THISNODE) && !node_isset(w->mpol_mask, nd)) {
		/* unreachable from alloc_pages_current (THISNODE takes the
		 * default policy); kept for the shape of the switch */
		nd = w->mpol_first;
	}
	*kind = br(c, w, S_A06c, gfp & __GFP_THISNODE) ? ZONELIST_NOFALLBACK : ZONELIST_FALLBACK;
	cpu_ret(c);
	return node_of(w, nd);
}

/* policy_nodemask(gfp, pol): the BIND nodes when the allocation's zone is
 * at least the dynamic policy zone and they intersect mems_allowed. */
static const uint64_t *policy_nodemask(struct cpu *c, struct mm_world *w, uint32_t gfp,
				       enum mpol_mode mode)
{
	const struct mm_cpu *ci = &w->cpus[c->idx];
	const uint64_t *mask = NULL;
	call(c, w, FN_policy_nodemask);
	if (br(c, w, S_A07, mode == MPOL_BIND) &&
	    br(c, w, S_A07b, gfp_zone(gfp) >= w->mpol_apply_zone)) {
		/* nodes_intersects(pol->v.nodes, current->mems_allowed):
		 * bitmap_intersects over the machine's node words */
		work(c, W_policy_nodemask);
		bool meet = false;
		for (int k = 0; k < node_words(w); k++) {
			mem(c, w, ci->mpol + MPOL_OFF_V + 8u * (unsigned)k, ci->numa_node, CPU_LOAD);
			mem(c, w, ci->task + TASK_MEMS_ALLOWED + 8u * (unsigned)k, ci->numa_node,
			    CPU_LOAD_DEP);
			meet |= (w->mpol_mask[k] & w->nodemask[k]) != 0;
		}
		if (br(c, w, S_A07c, meet))
			mask = w->mpol_mask;
	}
	cpu_ret(c);
	return mask;
}

/*
 * alloc_pages_current (mm/mempolicy.c v4.6): the task's policy (default_
 * policy in interrupt or with __GFP_THISNODE), then either
 * alloc_page_interleave(interleave_nodes()) or __alloc_pages_nodemask
 * with policy_zonelist() and policy_nodemask(), inside the cpuset
 * seqcount retry.
 */
static struct page *alloc_pages_current(struct mm_world *w, struct cpu *c, uint32_t gfp,
					  unsigned int order)
{
	if (order >= MAX_ORDER)
		return NULL;
	memo_reset(w, c);
	call(c, w, FN_alloc_pages_current);
	work(c, W_alloc_pages_current);
	struct page *page;
	/* pol = &default_policy: MPOL_PREFERRED with MPOL_F_LOCAL, i.e. what
	 * the model calls LOCAL; get_task_policy() gives the task's policy or
	 * preferred_node_policy[nid] (DEFAULT: MPOL_PREFERRED, not F_LOCAL) */
	enum mpol_mode mode = MPOL_LOCAL;
	/* pol = &default_policy; if (!in_interrupt() && !THISNODE) get_task_policy */
	if (br(c, w, S_A02a, true) && br(c, w, S_A02b, !(gfp & __GFP_THISNODE))) {
		get_task_policy(c, w);
		mode = w->cfg.mpol;
		if (mode != MPOL_DEFAULT)           /* pol->mode of the task's policy */
			mem(c, w, w->cpus[c->idx].mpol + MPOL_OFF_MODE, c->node, CPU_LOAD_DEP);
	}
retry_cpuset:
	br(c, w, S_A04, w->cfg.cpusets_enabled);     /* read_mems_allowed_begin */
	if (br(c, w, S_A05, mode == MPOL_INTERLEAVE)) {
		page = alloc_page_interleave(c, w, gfp, order, interleave_nodes(c, w));
	} else {
		int kind;
		struct pglist_data *zl = policy_zonelist(c, w, gfp, mode, &kind);
		const uint64_t *mask = policy_nodemask(c, w, gfp, mode);
		page = __alloc_pages_nodemask(c, w, gfp, order, zl, kind, mask);
	}
	/* mems_allowed never changes during a run: the retry is not taken */
	if (br(c, w, S_A52, page == NULL) && br(c, w, S_A52b, false))
		goto retry_cpuset;
	cpu_ret(c);
	return page;
}

/* --- free --------------------------------------------------------------- */

static bool free_pages_check(struct cpu *c, struct mm_world *w, const struct pfn_block *b,
			     unsigned off)
{
	call(c, w, FN_free_pages_check);
	mem(c, w, b->addr + (uint64_t)off * STRUCT_PAGE_SIZE, w->zones[b->zone].node, CPU_LOAD_DEP);
	bool bad = false;
	bad |= br(c, w, S_F05f, false);                /* _mapcount */
	bad |= br(c, w, S_F05g, false);                /* mapping */
	bad |= br(c, w, S_F05h, block_page_count(b, off) != 0);
	bad |= br(c, w, S_F05i, false);                /* CHECK_AT_FREE */
	bad |= br(c, w, S_F05j, false);                /* mem_cgroup */
	bad = br(c, w, S_F05k, bad);
	if (!bad)
		br(c, w, S_F05l, false);               /* CHECK_AT_PREP flags */
	cpu_ret(c);
	return bad;
}

static bool free_pages_prepare(struct cpu *c, struct mm_world *w, struct page *page,
			       int order)
{
	call(c, w, FN_free_pages_prepare);
	work(c, W_free_pages_prepare);
	int bad = 0;
	const struct pfn_block *b = page_block(w, page);
	br(c, w, S_F05a, false);                       /* trace_mm_page_free */
	if (br(c, w, S_F05b, order != 0)) {
		for (unsigned i = 1; br(c, w, S_F05d, i < (1u << order)); i++) {
			br(c, w, S_F05c, false);       /* no __GFP_COMP pages modelled */
			bad += free_pages_check(c, w, b, page->off + i);
		}
	}
	br(c, w, S_F05e, false);                       /* PageAnonHead */
	bad += free_pages_check(c, w, b, page->off);
	bool ok = !br(c, w, S_F05m, bad != 0);
	if (ok)
		br(c, w, S_F05n, true);                /* !PageHighMem: debug no-ops */
	cpu_ret(c);
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
	cpu_ret(c);
}

static void free_hot_cold_page(struct cpu *c, struct mm_world *w, struct page *page, bool cold)
{
	call(c, w, FN_free_hot_cold_page);
	work(c, W_free_hot_cold_page);
	struct zone *z = page_zone(w, page);
	if (br(c, w, S_F05o, !free_pages_prepare(c, w, page, 0)))
		goto out;
	int mt = get_pfnblock_migratetype(c, w, page);
	mem_page(c, w, page, CPU_STORE);                /* set_pcppage_migratetype */
	page->mt = (uint8_t)mt;
	cpu_irq_save(c);
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
	cpu_irq_restore(c);
out:
	cpu_ret(c);
}

static void __free_pages_ok(struct cpu *c, struct mm_world *w, struct page *page, int order)
{
	call(c, w, FN___free_pages_ok);
	work(c, W_free_pages_ok);
	struct zone *z = page_zone(w, page);
	if (br(c, w, S_free_pages_ok_prepare, !free_pages_prepare(c, w, page, order)))
		goto out;
	int mt = get_pfnblock_migratetype(c, w, page);
	cpu_irq_save(c);
	count_vm_event(c, w, 0);
	z->ev[EV_pgfree] += 1u << order;
	z->allocated -= 1u << order;
	page->state = PS_NONE;
	free_one_page(c, w, z, page, order, mt);
	cpu_irq_restore(c);
out:
	cpu_ret(c);
}

void mm_set_trace_hook(struct mm_world *w, mm_trace_fn fn, void *arg)
{
	w->trace = fn;
	w->trace_arg = arg;
}

static void trace_page(struct mm_world *w, const struct cpu *c, const struct page *page,
		       unsigned order, uint32_t gfp, int alloc)
{
	struct mm_trace_event e = {
		.alloc = alloc, .pfn = mm_page_pfn(w, page), .order = order, .gfp = gfp,
		.node = mm_page_node(w, page), .cpu = c->id,
	};
	w->trace(w->trace_arg, &e);
}

struct page *mm_alloc_pages(struct mm_world *w, struct cpu *c, uint32_t gfp,
			       unsigned int order)
{
	struct page *page = alloc_pages_current(w, c, gfp, order);
	if (w->trace && page)
		trace_page(w, c, page, order, gfp, 1);
	return page;
}

void mm_free_pages(struct mm_world *w, struct cpu *c, struct page *page, unsigned int order)
{
	if (w->trace)
		trace_page(w, c, page, order, 0, 0);
	memo_reset(w, c);
	call(c, w, FN___free_pages);
	work(c, W_free_pages);
	atomic_rmw(c, w, page->addr, page_node(w, page));  /* put_page_testzero */
	page->count--;
	if (br(c, w, S_F02, page->count == 0)) {
		if (br(c, w, S_F03, order == 0))
			free_hot_cold_page(c, w, page, false);
		else
			__free_pages_ok(c, w, page, (int)order);
	}
	cpu_ret(c);
}

void mm_drain_local_pages(struct mm_world *w, struct cpu *c)
{
	memo_reset(w, c);
	for (int i = 0; i < w->nr_zones; i++) {
		struct zone *z = &w->zones[i];
		struct per_cpu_pages *pcp = this_pcp(c, z);
		cpu_irq_save(c);
		if (pcp->count) {
			free_pcppages_bulk(c, w, z, pcp->count, pcp);
			pcp->count = 0;
		}
		cpu_irq_restore(c);
	}
}

int mm_zonelist_walk(struct mm_world *w, struct cpu *c, int node, enum zonelist_kind kind,
		     enum zone_type high, int use_mems_allowed, int *nodes,
		     enum zone_type *types, int max)
{
	if (node < 0 || node >= MACHINE_MAX_NODES || w->m->node_index[node] < 0 ||
	    (unsigned)kind >= MAX_ZONELISTS)
		return -1;
	const struct pglist_data *pn = &w->nodes[w->m->node_index[node]];
	if (!pn->zonerefs[kind])
		return -1;
	const uint64_t *mask = use_mems_allowed ? w->nodemask : NULL;
	struct zone *zone;
	memo_reset(w, c);
	int n = 0;
	int i = first_zones_zonelist(c, w, pn, (int)kind, (int)high, mask, &zone);
	while (br(c, w, S_A23, zone != NULL)) {
		if (n < max) {
			nodes[n] = zone->node;
			types[n] = zone->type;
		}
		n++;
		i = next_zones_zonelist(c, w, pn, (int)kind, i + 1, (int)high, mask);
		zone = pn->zonerefs[kind][i].zone;
	}
	return n;
}

uint64_t mm_page_pfn(const struct mm_world *w, const struct page *p)
{
	return page_pfn(w, p);
}

int mm_page_node(const struct mm_world *w, const struct page *p)
{
	return page_node(w, p);
}

/* --- registration and layout -------------------------------------------- */

int mm_register(struct cost_tables *t, int *fn_base, int *site_base)
{
	int rc = cost_register_fns(t, mm_fn_names, MM_NR_FN, fn_base);
	if (rc != NS_OK)
		return rc;
	return cost_register_sites(t, mm_site_defs, MM_NR_SITE, site_base);
}

int mm_layout(struct cost_layout *l, const struct cost_tables *t, int fn_base, int site_base,
	      enum mmzone_iter v)
{
	if (fn_base < 0 || site_base < 0 || fn_base + MM_NR_FN > t->nr_fns ||
	    site_base + MM_NR_SITE > t->nr_sites || l->nr_fns != t->nr_fns ||
	    l->nr_sites != t->nr_sites)
		return NS_EINTERNAL;
	static const int inl[] = {
#define MM_INL(name) FN_##name,
		MM_INLINE_FUNCS(MM_INL)
#undef MM_INL
	};
	int rc0 = cost_layout_set_model_fns(l, fn_base, MM_NR_FN, inl,
						 sizeof inl / sizeof inl[0]);
	if (rc0 != NS_OK)
		return rc0;
	/* the diff: next_zones_zonelist becomes an __always_inline wrapper */
	int rc = cost_layout_set_fn(l, fn_base + FN_next_zones_zonelist, v == MMZONE_ITER_POST);
	if (rc != NS_OK)
		return rc;
	for (int s = 0; s < MM_NR_SITE; s++) {
		int ft = mm_site_layout[s].ft;
		rc = cost_layout_set_site(l, site_base + s, (enum cost_hint)mm_site_layout[s].hint,
					  ft);
		if (rc != NS_OK)
			return rc;
	}
	return NS_OK;
}

static const char *const mpol_names[] = {
	[MPOL_DEFAULT] = "default", [MPOL_LOCAL] = "local", [MPOL_BIND] = "bind",
	[MPOL_PREFERRED] = "preferred", [MPOL_INTERLEAVE] = "interleave",
};

const char *mpol_name(enum mpol_mode m)
{
	return (unsigned)m <= MPOL_INTERLEAVE ? mpol_names[m] : "unknown";
}

int mpol_parse(const char *s)
{
	for (int i = 0; s && i <= MPOL_INTERLEAVE; i++)
		if (!strcmp(s, mpol_names[i]))
			return i;
	return -1;
}

const char *vmstat_numa_rule_name(enum vmstat_numa_rule z)
{
	return z == VMSTAT_NUMA_SERIES ? "b9f00e147f27" : z == VMSTAT_NUMA_V46 ? "v4.6" : "unknown";
}

int vmstat_numa_rule_parse(const char *s)
{
	if (s && !strcmp(s, "b9f00e147f27"))
		return VMSTAT_NUMA_SERIES;
	if (s && !strcmp(s, "v4.6"))
		return VMSTAT_NUMA_V46;
	return -1;
}

uint64_t mm_page_vaddr(const struct mm_world *w, const struct page *p)
{
	/* the direct-map address prep_new_page's clear_highpage uses */
	uint64_t va = page_pfn(w, p) << 12;
	return ((uint64_t)(page_node(w, p) + 1) << CACHE_AS_SHIFT) + (1ull << 39) +
	       (va & ((1ull << 39) - 1));
}

void mm_lock_stats(const struct mm_world *w, struct mm_lock_stats *out)
{
	memset(out, 0, sizeof *out);
	for (int i = 0; i < w->nr_zones; i++) {
		const struct cpu_lock *l = &w->zones[i].lock;
		out->zone_acquisitions += l->acquisitions;
		out->zone_contended += l->contended;
		out->zone_wait_cycles += l->wait_cycles;
	}
	out->other_acquisitions = w->callback_lock.acquisitions;
	out->other_contended = w->callback_lock.contended;
	out->other_wait_cycles = w->callback_lock.wait_cycles;
}

const char *mmzone_iter_name(enum mmzone_iter v)
{
	return v == MMZONE_ITER_PRE ? "pre-682a3385" : v == MMZONE_ITER_POST ? "682a3385" : "unknown";
}

int mmzone_iter_parse(const char *s)
{
	if (!s)
		return -1;
	if (!strcmp(s, "pre-682a3385") || !strcmp(s, "pre"))
		return MMZONE_ITER_PRE;
	if (!strcmp(s, "682a3385") || !strcmp(s, "post"))
		return MMZONE_ITER_POST;
	return -1;
}

static const struct {
	const char *name;
	uint32_t val;
} gfp_names[] = {
	{"GFP_KERNEL", GFP_KERNEL},
	{"GFP_USER", GFP_USER},
	{"GFP_ATOMIC", GFP_ATOMIC},
	{"GFP_HIGHUSER_MOVABLE", GFP_HIGHUSER_MOVABLE},
	{"GFP_NOWAIT", __GFP_KSWAPD_RECLAIM},
	{"GFP_DMA", __GFP_DMA},
	{"GFP_DMA32", __GFP_DMA32},
	{"__GFP_DMA", __GFP_DMA},
	{"__GFP_HIGHMEM", __GFP_HIGHMEM},
	{"__GFP_DMA32", __GFP_DMA32},
	{"__GFP_MOVABLE", __GFP_MOVABLE},
	{"__GFP_RECLAIMABLE", __GFP_RECLAIMABLE},
	{"__GFP_HIGH", __GFP_HIGH},
	{"__GFP_IO", __GFP_IO},
	{"__GFP_FS", __GFP_FS},
	{"__GFP_COLD", __GFP_COLD},
	{"__GFP_NOWARN", __GFP_NOWARN},
	{"__GFP_REPEAT", __GFP_REPEAT},
	{"__GFP_NOFAIL", __GFP_NOFAIL},
	{"__GFP_NORETRY", __GFP_NORETRY},
	{"__GFP_MEMALLOC", __GFP_MEMALLOC},
	{"__GFP_COMP", __GFP_COMP},
	{"__GFP_ZERO", __GFP_ZERO},
	{"__GFP_NOMEMALLOC", __GFP_NOMEMALLOC},
	{"__GFP_HARDWALL", __GFP_HARDWALL},
	{"__GFP_THISNODE", __GFP_THISNODE},
	{"__GFP_ATOMIC", __GFP_ATOMIC},
	{"__GFP_DIRECT_RECLAIM", __GFP_DIRECT_RECLAIM},
	{"__GFP_OTHER_NODE", __GFP_OTHER_NODE},
	{"__GFP_WRITE", __GFP_WRITE},
	{"__GFP_KSWAPD_RECLAIM", __GFP_KSWAPD_RECLAIM},
};

int gfp_parse(const char *s, uint32_t *gfp)
{
	uint32_t v = 0;
	if (!s || !*s)
		return NS_EINPUT;
	while (*s) {
		while (*s == ' ')
			s++;
		size_t len = strcspn(s, "| ");
		size_t i;
		for (i = 0; i < sizeof gfp_names / sizeof gfp_names[0]; i++)
			if (strlen(gfp_names[i].name) == len &&
			    !strncmp(gfp_names[i].name, s, len))
				break;
		if (len == 0 || i == sizeof gfp_names / sizeof gfp_names[0])
			return NS_EINPUT;
		v |= gfp_names[i].val;
		s += len;
		while (*s == ' ')
			s++;
		if (*s == '|') {
			s++;
			while (*s == ' ')
				s++;
			if (!*s)
				return NS_EINPUT;
		} else if (*s) {
			return NS_EINPUT;
		}
	}
	*gfp = v;
	return NS_OK;
}

void mm_config_default(struct mm_config *c)
{
	memset(c, 0, sizeof *c);
	c->iter = MMZONE_ITER_POST;
	c->zl = ZONELIST_OPTS_DEFAULT;
	c->watermark_scale_factor = 10;
}

/* --- set-up: sizes (mm/page_alloc.c, mm/vmstat.c, mm/huge_memory.c) ----- */

static uint64_t int_sqrt(uint64_t x)
{
	uint64_t r = 0, b = 1ull << 62;
	while (b > x)
		b >>= 2;
	while (b) {
		if (x >= r + b) {
			x -= r + b;
			r = (r >> 1) + b;
		} else {
			r >>= 1;
		}
		b >>= 2;
	}
	return r;
}

static int fls64(uint64_t x)
{
	int n = 0;
	while (x) {
		n++;
		x >>= 1;
	}
	return n;
}

static uint64_t rounddown_pow_of_two(uint64_t x)
{
	return x ? 1ull << (fls64(x) - 1) : 0;
}

/* zone_batchsize() */
static int zone_batchsize(uint64_t managed, uint32_t page_size)
{
	uint64_t batch = managed / 1024;
	if (batch * page_size > 512 * 1024)
		batch = (512 * 1024) / page_size;
	batch /= 4;
	if (batch < 1)
		batch = 1;
	batch = rounddown_pow_of_two(batch + batch / 2) - 1;
	return (int)batch;
}

static void setup_pcp_sizes(struct mm_world *w, struct zone *z, int *high, int *batch)
{
	if (w->cfg.percpu_pagelist_fraction) {
		uint64_t h = z->managed / w->cfg.percpu_pagelist_fraction;
		uint64_t b = h / 4 > 1 ? h / 4 : 1;
		if (b > (uint64_t)12 * 8)      /* PAGE_SHIFT * 8 */
			b = 12 * 8;
		*high = (int)h;
		*batch = (int)b;
		return;
	}
	int b = zone_batchsize(z->managed, w->m->page_size);
	*high = 6 * b;
	*batch = b > 1 ? b : 1;
}

/* calculate_normal_threshold() */
static int stat_threshold(const struct mm_world *w, const struct zone *z)
{
	int page_shift = fls64(w->m->page_size) - 1;
	uint64_t mem = z->managed >> (27 - page_shift);
	int t = 2 * fls64((uint64_t)w->m->nr_cpus) * (1 + fls64(mem));
	return t < 125 ? t : 125;
}

/* nr_free_buffer_pages(): zones <= Normal of the boot node's fallback list. */
static uint64_t nr_free_buffer_pages(const struct mm_world *w)
{
	uint64_t sum = 0;
	for (int i = 0; i < w->nr_zones; i++) {
		const struct zone *z = &w->zones[i];
		if (z->type <= ZONE_NORMAL) {
			int64_t v = (int64_t)z->managed - z->watermark[2];
			sum += v > 0 ? (uint64_t)v : 0;
		}
	}
	return sum;
}

static void setup_per_zone_wmarks(struct mm_world *w)
{
	uint64_t pages_min = w->min_free_kbytes >> (fls64(w->m->page_size) - 1 - 10);
	uint64_t lowmem = 0;
	for (int i = 0; i < w->nr_zones; i++)
		if (w->zones[i].type != ZONE_HIGHMEM)
			lowmem += w->zones[i].managed;
	for (int i = 0; i < w->nr_zones; i++) {
		struct zone *z = &w->zones[i];
		uint64_t tmp = lowmem ? pages_min * z->managed / lowmem : 0;
		if (z->type == ZONE_HIGHMEM) {
			uint64_t mp = z->managed / 1024;
			mp = mp < 32 ? 32 : mp > 128 ? 128 : mp;
			z->watermark[0] = (int64_t)mp;
		} else {
			z->watermark[0] = (int64_t)tmp;
		}
		uint64_t gap = tmp >> 2;
		uint64_t sf = z->managed * w->cfg.watermark_scale_factor / 10000;
		if (sf > gap)
			gap = sf;
		z->watermark[1] = z->watermark[0] + (int64_t)gap;
		z->watermark[2] = z->watermark[0] + 2 * (int64_t)gap;
		z->vm_stat[NR_ALLOC_BATCH] = z->watermark[2] - z->watermark[1];
		z->fair_depleted = 0;
	}
}

static void setup_lowmem_reserve(struct mm_world *w)
{
	static const uint64_t ratio[NR_ZONE_TYPES] = {256, 256, 32, 32, 32};
	for (int n = 0; n < w->nr_nodes; n++) {
		struct pglist_data *pn = &w->nodes[n];
		for (int j = 0; j < NR_ZONE_TYPES; j++) {
			uint64_t managed = pn->zones[j] ? pn->zones[j]->managed : 0;
			if (pn->zones[j])
				pn->zones[j]->lowmem_reserve[j] = 0;
			for (int idx = j - 1; idx >= 0; idx--) {
				struct zone *lz = pn->zones[idx];
				if (lz)
					lz->lowmem_reserve[j] = (int64_t)(managed / ratio[idx]);
				managed += lz ? lz->managed : 0;
			}
		}
	}
}

static void compute_min_free(struct mm_world *w)
{
	int kb_shift = fls64(w->m->page_size) - 1 - 10;
	if (w->cfg.min_free_kbytes) {
		w->min_free_kbytes = w->cfg.min_free_kbytes;
	} else {
		uint64_t lowmem_kb = nr_free_buffer_pages(w) << kb_shift;
		uint64_t v = int_sqrt(lowmem_kb * 16);
		w->min_free_kbytes = (uint32_t)(v < 128 ? 128 : v > 65536 ? 65536 : v);
	}
	setup_per_zone_wmarks(w);
	if (w->cfg.thp_min_free) {
		/* set_recommended_min_free_kbytes() */
		uint64_t nr_zones = (uint64_t)w->nr_zones;
		uint64_t rec = PAGEBLOCK_PAGES * nr_zones * 2 +
			       PAGEBLOCK_PAGES * nr_zones * MT_PCPTYPES * MT_PCPTYPES;
		uint64_t cap = nr_free_buffer_pages(w) / 20;
		if (rec > cap)
			rec = cap;
		rec <<= kb_shift;
		if (rec > w->min_free_kbytes) {
			w->min_free_kbytes = (uint32_t)rec;
			setup_per_zone_wmarks(w);
		}
	}
	setup_lowmem_reserve(w);
}

/* --- set-up: world ------------------------------------------------------ */

static int alloc_addr(struct mm_world *w, int node, uint64_t bytes, uint64_t align,
		      uint64_t *addr, struct diag *d)
{
	int rc = cache_as_alloc(w->as, node, bytes, align, addr);
	if (rc != NS_OK)
		diag_set(d, rc, NULL, 0, 0, "pagealloc: synthetic address space of node %d is full",
			 node);
	return rc;
}

/* Free lists as after boot: whole MAX_ORDER blocks on the MOVABLE lists,
 * highest pfn at the head (free_all_bootmem frees in ascending order and
 * __free_one_page adds at the head); a partial last block in aligned
 * pieces. */
static int init_free_lists(struct mm_world *w, struct zone *z)
{
	for (uint32_t k = 0; k < z->nr_blocks; k++) {
		uint32_t bi = z->first_block + k;
		struct pfn_block *b = &w->blocks[bi];
		b->pb_mt[0] = b->pb_mt[1] = MT_MOVABLE;
		if (b->npages == BLOCK_PAGES) {
			b->head.state = PS_BUDDY;
			b->head.order = BLOCK_ORDER;
			b->head.mt = MT_MOVABLE;
			list_add(&b->head, &z->free_area[BLOCK_ORDER].list[MT_MOVABLE]);
			z->free_area[BLOCK_ORDER].nr_free++;
			continue;
		}
		struct page *d = detail_get(w);
		if (!d)
			return NS_ENOMEM;
		for (unsigned i = 0; i < BLOCK_PAGES; i++) {
			memset(&d[i], 0, sizeof d[i]);
			d[i].addr = b->addr + (uint64_t)i * STRUCT_PAGE_SIZE;
			d[i].block = bi;
			d[i].off = (uint16_t)i;
			d[i].pcp_cpu = -1;
		}
		b->detail = d;
		b->head.state = PS_NONE;
		unsigned off = 0;
		while (off < b->npages) {
			int o = PAGEBLOCK_ORDER;
			while (o > 0 && ((off & ((1u << o) - 1)) || off + (1u << o) > b->npages))
				o--;
			set_page_order(&d[off], o);
			d[off].mt = MT_MOVABLE;
			list_add(&d[off], &z->free_area[o].list[MT_MOVABLE]);
			z->free_area[o].nr_free++;
			off += 1u << o;
		}
	}
	return NS_OK;
}

static int build_zonerefs(struct mm_world *w, struct diag *d)
{
	for (int n = 0; n < w->nr_nodes; n++) {
		struct pglist_data *pn = &w->nodes[n];
		for (int k = 0; k < MAX_ZONELISTS; k++) {
			const struct zonelist *zl = zonelist_get(w->zl, pn->id, (enum zonelist_kind)k);
			if (!zl)
				continue;
			pn->online = 1;
			pn->nr_zonerefs[k] = zl->nr;
			pn->zonerefs[k] = calloc((size_t)zl->nr + 1, sizeof *pn->zonerefs[k]);
			if (!pn->zonerefs[k])
				return NS_ENOMEM;
			for (int i = 0; i < zl->nr; i++) {
				int pos = w->m->node_index[zl->zonerefs[i].node];
				pn->zonerefs[k][i].zone = w->nodes[pos].zones[zl->zonerefs[i].zone_idx];
				pn->zonerefs[k][i].zone_idx = (int)zl->zonerefs[i].zone_idx;
				if (!pn->zonerefs[k][i].zone)
					return diag_set(d, NS_EINTERNAL, NULL, 0, 0,
							"pagealloc: zonelist names an empty zone");
			}
			int rc = alloc_addr(w, pn->id, (uint64_t)(zl->nr + 1) * ZONEREF_SIZE, 64,
					    &pn->zl_addr[k], d);
			if (rc != NS_OK)
				return rc;
		}
	}
	return NS_OK;
}

static int setup_zones(struct mm_world *w, struct diag *d)
{
	const struct machine *m = w->m;
	int nz = 0;
	uint64_t nblocks = 0;
	for (int n = 0; n < m->nr_nodes; n++)
		for (int k = 0; k < m->nodes[n].nr_zones; k++) {
			nz++;
			nblocks += (m->nodes[n].zones[k].pages + BLOCK_PAGES - 1) / BLOCK_PAGES;
		}
	if (nblocks >= UINT32_MAX)
		return diag_set(d, NS_ERANGE, NULL, 0, 0,
				"pagealloc: %" PRIu64 " MAX_ORDER blocks is more than the model holds",
				nblocks);
	w->nr_zones = nz;
	w->zones = calloc((size_t)nz, sizeof *w->zones);
	w->nr_blocks = nblocks;
	w->blocks = calloc((size_t)nblocks, sizeof *w->blocks);
	if (!w->zones || !w->blocks)
		return NS_ENOMEM;
	uint64_t pfn = 0;
	uint32_t bi = 0;
	int zi = 0;
	int nr_cpus = w->s->nr_cpus;
	for (int n = 0; n < m->nr_nodes; n++) {
		const struct machine_node *mn = &m->nodes[n];
		struct pglist_data *pn = &w->nodes[n];
		for (int k = 0; k < mn->nr_zones; k++) {
			struct zone *z = &w->zones[zi];
			z->id = zi++;
			z->node = mn->id;
			z->node_pos = n;
			z->type = mn->zones[k].type;
			z->managed = mn->zones[k].pages;
			z->start_pfn = pfn;
			z->first_block = bi;
			z->nr_blocks = (uint32_t)((z->managed + BLOCK_PAGES - 1) / BLOCK_PAGES);
			pn->zones[z->type] = z;
			cpu_lock_init(&z->lock);
			int rc = alloc_addr(w, z->node, ZONE_STRUCT_SIZE, 64, &z->addr, d);
			if (rc == NS_OK)
				rc = alloc_addr(w, z->node, (uint64_t)z->nr_blocks * BLOCK_PAGES *
							    STRUCT_PAGE_SIZE, 4096, &z->vmemmap, d);
			if (rc == NS_OK)
				rc = alloc_addr(w, z->node, (uint64_t)z->nr_blocks * 2 * 4 / 8 + 8, 64,
						&z->usemap, d);
			if (rc != NS_OK)
				return rc;
			for (int o = 0; o < MAX_ORDER; o++)
				for (int mt = 0; mt < MT_TYPES; mt++)
					list_init(&z->free_area[o].list[mt], zaddr_free_list(z, o, mt));
			for (uint32_t b = 0; b < z->nr_blocks; b++) {
				struct pfn_block *blk = &w->blocks[bi + b];
				blk->pfn = pfn + (uint64_t)b * BLOCK_PAGES;
				blk->addr = z->vmemmap + (uint64_t)b * BLOCK_PAGES * STRUCT_PAGE_SIZE;
				blk->zone = (uint32_t)z->id;
				uint64_t left = z->managed - (uint64_t)b * BLOCK_PAGES;
				blk->npages = (uint16_t)(left < BLOCK_PAGES ? left : BLOCK_PAGES);
				blk->head.addr = blk->addr;
				blk->head.block = bi + b;
				blk->head.pcp_cpu = -1;
			}
			bi += z->nr_blocks;
			pfn += (uint64_t)z->nr_blocks * BLOCK_PAGES;
			z->vm_stat[NR_FREE_PAGES] = (int64_t)z->managed;
			rc = init_free_lists(w, z);
			if (rc != NS_OK)
				return rc;
			z->pcp = calloc((size_t)nr_cpus, sizeof *z->pcp);
			if (!z->pcp)
				return NS_ENOMEM;
		}
	}
	return NS_OK;
}

static int setup_pagesets(struct mm_world *w, struct diag *d)
{
	for (int i = 0; i < w->nr_zones; i++) {
		struct zone *z = &w->zones[i];
		int high, batch;
		setup_pcp_sizes(w, z, &high, &batch);
		int t = stat_threshold(w, z);
		for (int k = 0; k < w->s->nr_cpus; k++) {
			struct per_cpu_pages *p = &z->pcp[k];
			int rc = alloc_addr(w, w->s->cpu[k].node, PCP_STRUCT_SIZE, 64, &p->addr, d);
			if (rc != NS_OK)
				return rc;
			p->high = high;
			p->batch = batch;
			p->stat_threshold = t;
			for (int mt = 0; mt < MT_PCPTYPES; mt++)
				list_init(&p->lists[mt], p->addr + PCPOFF_LISTS + 16u * (unsigned)mt);
		}
	}
	return NS_OK;
}

static int setup_cpus(struct mm_world *w, struct diag *d)
{
	w->cpus = calloc((size_t)w->s->nr_cpus, sizeof *w->cpus);
	if (!w->cpus)
		return NS_ENOMEM;
	for (int k = 0; k < w->s->nr_cpus; k++) {
		const struct cpu *c = &w->s->cpu[k];
		struct mm_cpu *ci = &w->cpus[k];
		int nid = c->id <= w->m->max_cpu ? w->zl->cpu_to_node[c->id] : -1;
		if (nid < 0)
			nid = c->node;
		ci->numa_node = nid;
		ci->last_line = UINT64_MAX;
		ci->node_pos = w->m->node_index[nid];
		if (!w->nodes[ci->node_pos].online)
			return diag_set(d, NS_EINPUT, NULL, 0, 0,
					"pagealloc: CPU %d maps to node %d, which has no zonelist",
					c->id, nid);
		int rc = alloc_addr(w, c->node, 256, 64, &ci->percpu, d);
		if (rc == NS_OK)
			rc = alloc_addr(w, c->node, 256, 64, &ci->task, d);
		if (rc == NS_OK)
			rc = alloc_addr(w, c->node, 64, 64, &ci->mpol, d);
		if (rc != NS_OK)
			return rc;
	}
	return NS_OK;
}

static int setup_nodemask(struct mm_world *w, struct diag *d)
{
	memset(w->nodemask, 0, sizeof w->nodemask);
	/* without a cpuset every task may use every memory node */
	if (w->cfg.nr_mems_allowed == 0 || !w->cfg.cpusets_enabled) {
		for (int n = 0; n < w->nr_nodes; n++)
			if (w->m->nodes[n].mem_pages)
				w->nodemask[w->nodes[n].id >> 6] |= 1ull << (w->nodes[n].id & 63);
		return NS_OK;
	}
	if (w->cfg.nr_mems_allowed < 0 || w->cfg.nr_mems_allowed > MACHINE_MAX_NODES)
		return diag_set(d, NS_ERANGE, NULL, 0, 0, "pagealloc: bad mems_allowed count %d",
				w->cfg.nr_mems_allowed);
	for (int i = 0; i < w->cfg.nr_mems_allowed; i++) {
		int id = w->cfg.mems_allowed[i];
		if (id < 0 || id >= MACHINE_MAX_NODES || w->m->node_index[id] < 0 ||
		    !w->m->nodes[w->m->node_index[id]].mem_pages)
			return diag_set(d, NS_EINPUT, NULL, 0, 0,
					"pagealloc: mems_allowed node %d has no memory", id);
		w->nodemask[id >> 6] |= 1ull << (id & 63);
	}
	return NS_OK;
}

static bool node_has_memory(const struct mm_world *w, int id)
{
	return id >= 0 && id < MACHINE_MAX_NODES && w->m->node_index[id] >= 0 &&
	       w->m->nodes[w->m->node_index[id]].mem_pages != 0;
}

/*
 * set_mempolicy(2) as numactl issues it (mm/mempolicy.c v4.6 mpol_new,
 * mpol_set_nodemask): the nodes must have memory; BIND and INTERLEAVE
 * take a non-empty set, PREFERRED exactly one node, DEFAULT and LOCAL
 * none.  The set is intersected with cpuset_current_mems_allowed, and an
 * empty intersection fails (EINVAL in the kernel, NS_EINPUT here).
 * current->il_next starts at the first node of the set.
 */
static int setup_mempolicy(struct mm_world *w, struct diag *d)
{
	const struct mm_config *c = &w->cfg;
	memset(w->mpol_mask, 0, sizeof w->mpol_mask);
	w->mpol_first = -1;
	w->mpol_apply_zone = w->zl->policy_zone;
	if ((unsigned)c->mpol > MPOL_INTERLEAVE)
		return diag_set(d, NS_EINPUT, NULL, 0, 0, "pagealloc: unknown mempolicy %d",
				(int)c->mpol);
	if (c->nr_mpol_nodes < 0 || c->nr_mpol_nodes > MACHINE_MAX_NODES)
		return diag_set(d, NS_ERANGE, NULL, 0, 0, "pagealloc: bad mempolicy node count %d",
				c->nr_mpol_nodes);
	bool takes = c->mpol == MPOL_BIND || c->mpol == MPOL_PREFERRED ||
		     c->mpol == MPOL_INTERLEAVE;
	if (!takes && c->nr_mpol_nodes)
		return diag_set(d, NS_EINPUT, NULL, 0, 0, "pagealloc: mempolicy %s takes no nodes",
				mpol_name(c->mpol));
	if (takes && !c->nr_mpol_nodes)
		return diag_set(d, NS_EINPUT, NULL, 0, 0, "pagealloc: mempolicy %s needs nodes",
				mpol_name(c->mpol));
	if (c->mpol == MPOL_PREFERRED && c->nr_mpol_nodes != 1)
		return diag_set(d, NS_EINPUT, NULL, 0, 0,
				"pagealloc: mempolicy preferred takes exactly one node, not %d",
				c->nr_mpol_nodes);
	if (!takes)
		return NS_OK;
	for (int i = 0; i < c->nr_mpol_nodes; i++) {
		int id = c->mpol_nodes[i];
		if (!node_has_memory(w, id))
			return diag_set(d, NS_EINPUT, NULL, 0, 0,
					"pagealloc: mempolicy node %d has no memory", id);
		w->mpol_mask[id >> 6] |= 1ull << (id & 63);
	}
	bool any = false, high = false;
	for (int k = 0; k < MACHINE_MAX_NODES / 64; k++) {
		w->mpol_mask[k] &= w->nodemask[k];
		any |= w->mpol_mask[k] != 0;
	}
	if (!any)
		return diag_set(d, NS_EINPUT, NULL, 0, 0,
				"pagealloc: the %s nodes lie outside the cpuset's mems "
				"(set_mempolicy fails with EINVAL)", mpol_name(c->mpol));
	for (int id = 0; id < MACHINE_MAX_NODES; id++) {
		if (!node_isset(w->mpol_mask, id))
			continue;
		if (w->mpol_first < 0)
			w->mpol_first = id;
		const struct machine_node *mn = &w->m->nodes[w->m->node_index[id]];
		for (int k = 0; k < mn->nr_zones; k++)
			high |= mn->zones[k].type < ZONE_MOVABLE && mn->zones[k].pages;
	}
	/* apply_policy_zone(): Movable when no policy node has N_HIGH_MEMORY */
	if (!high)
		w->mpol_apply_zone = ZONE_MOVABLE;
	for (int k = 0; k < w->s->nr_cpus; k++)
		w->cpus[k].il_next = w->mpol_first;
	return NS_OK;
}

int mm_world_create(const struct machine *m, const struct mm_config *cfg, struct cpu_sys *s,
		    int fn_base, int site_base, struct mm_world **out, struct diag *d)
{
	*out = NULL;
	if (fn_base < 0 || site_base < 0 || fn_base + MM_NR_FN > s->tables->nr_fns ||
	    site_base + MM_NR_SITE > s->tables->nr_sites)
		return diag_set(d, NS_EINTERNAL, NULL, 0, 0,
				"pagealloc: functions/sites not registered in the CPU tables");
	if (cfg->zone_reclaim_mode != 0)
		return diag_set(d, NS_EINPUT, NULL, 0, 0,
				"pagealloc: zone_reclaim_mode %u is not modelled (only 0)",
				cfg->zone_reclaim_mode);
	if (m->page_size < 4096)
		return diag_set(d, NS_ERANGE, NULL, 0, 0,
				"pagealloc: page size %u is below the model's 4 KiB minimum",
				m->page_size);
	struct mm_world *w = calloc(1, sizeof *w);
	if (!w)
		return NS_ENOMEM;
	w->m = m;
	w->cfg = *cfg;
	w->s = s;
	w->fn_base = fn_base;
	w->site_base = site_base;
	cache_as_init(&w->own_as);
	w->as = cfg->as ? cfg->as : &w->own_as;
	cpu_lock_init(&w->callback_lock);
	int rc = zonelist_build(m, &cfg->zl, &w->zl, d);
	if (rc != NS_OK)
		goto fail;
	w->nr_online_nodes = w->zl->nr_online_nodes;
	w->nr_nodes = m->nr_nodes;
	w->nodes = calloc((size_t)m->nr_nodes, sizeof *w->nodes);
	if (!w->nodes) {
		rc = NS_ENOMEM;
		goto fail;
	}
	for (int n = 0; n < m->nr_nodes; n++) {
		w->nodes[n].id = m->nodes[n].id;
		rc = alloc_addr(w, m->nodes[0].id, 64, 64, &w->nodes[n].policy_addr, d);
		if (rc != NS_OK)
			goto fail;
	}
	rc = alloc_addr(w, m->nodes[0].id, 512, 64, &w->vm_stat_addr, d);
	if (rc == NS_OK)
		rc = alloc_addr(w, m->nodes[0].id, 64, 64, &w->callback_lock_addr, d);
	if (rc == NS_OK)
		rc = setup_zones(w, d);
	if (rc == NS_OK)
		rc = build_zonerefs(w, d);
	if (rc == NS_OK)
		rc = setup_pagesets(w, d);
	if (rc == NS_OK)
		rc = setup_cpus(w, d);
	if (rc == NS_OK)
		rc = setup_nodemask(w, d);
	if (rc == NS_OK)
		rc = setup_mempolicy(w, d);
	if (rc != NS_OK)
		goto fail;
	/* build_all_zonelists: mobility grouping off on tiny machines */
	w->mobility_disabled = machine_mem_pages(m) < (uint64_t)PAGEBLOCK_PAGES * MT_TYPES;
	compute_min_free(w);
	*out = w;
	return NS_OK;
fail:
	if (rc == NS_ENOMEM)
		diag_set(d, rc, NULL, 0, 0, "pagealloc: out of memory");
	mm_world_destroy(w);
	return rc;
}

void mm_world_destroy(struct mm_world *w)
{
	if (!w)
		return;
	for (size_t i = 0; i < w->pool.nr_all; i++)
		free(w->pool.all[i]);
	free(w->pool.all);
	free(w->pool.free);
	if (w->zones)
		for (int i = 0; i < w->nr_zones; i++)
			free(w->zones[i].pcp);
	if (w->nodes)
		for (int n = 0; n < w->nr_nodes; n++)
			for (int k = 0; k < MAX_ZONELISTS; k++)
				free(w->nodes[n].zonerefs[k]);
	free(w->zones);
	free(w->nodes);
	free(w->blocks);
	free(w->cpus);
	zonelist_free(w->zl);
	free(w);
}

uint32_t mm_min_free_kbytes(const struct mm_world *w)
{
	return w->min_free_kbytes;
}

/* --- checks ------------------------------------------------------------- */

#define CHECK(cond, ...)                                                       \
	do {                                                                   \
		if (!(cond))                                                   \
			return diag_set(d, NS_EINTERNAL, NULL, 0, 0, __VA_ARGS__); \
	} while (0)

static int check_list(const struct page *h, uint64_t *len)
{
	uint64_t n = 0;
	const struct page *p = h;
	do {
		if (!p->next || p->next->prev != p)
			return -1;
		p = p->next;
		n++;
	} while (p != h);
	*len = n - 1;
	return 0;
}

static int check_zone(const struct mm_world *w, const struct zone *z, struct diag *d)
{
	uint64_t free_pages = 0;
	for (int o = 0; o < MAX_ORDER; o++) {
		uint64_t total = 0;
		for (int mt = 0; mt < MT_TYPES; mt++) {
			const struct page *h = &z->free_area[o].list[mt];
			uint64_t len;
			CHECK(check_list(h, &len) == 0, "pagealloc: zone %d/%s free list %d/%d broken",
			      z->node, zone_type_name(z->type), o, mt);
			total += len;
			for (const struct page *p = h->next; p != h; p = p->next) {
				const struct pfn_block *b = page_block(w, p);
				CHECK(p->state == PS_BUDDY && p->order == o,
				      "pagealloc: zone %d/%s: pfn %" PRIu64 " on order-%d list is not a free order-%d block",
				      z->node, zone_type_name(z->type), page_pfn(w, p), o, o);
				CHECK(b->zone == (uint32_t)z->id, "pagealloc: free block in a foreign zone");
				CHECK((p->off & ((1u << o) - 1)) == 0 && p->off + (1u << o) <= b->npages,
				      "pagealloc: free block pfn %" PRIu64 " order %d misaligned or beyond the zone",
				      page_pfn(w, p), o);
				CHECK(o == BLOCK_ORDER ? (!b->detail && p == &b->head) : b->detail != NULL,
				      "pagealloc: block metadata does not match order %d", o);
				if (o < BLOCK_ORDER) {
					unsigned bo = p->off ^ (1u << o);
					CHECK(bo >= b->npages || b->detail[bo].state != PS_BUDDY ||
						      b->detail[bo].order != o,
					      "pagealloc: pfn %" PRIu64 " and its buddy are both free at order %d",
					      page_pfn(w, p), o);
				}
				free_pages += 1ull << o;
			}
		}
		CHECK(total == z->free_area[o].nr_free, "pagealloc: zone %d/%s nr_free[%d] %" PRIu64
		      " != list total %" PRIu64, z->node, zone_type_name(z->type), o,
		      z->free_area[o].nr_free, total);
	}
	uint64_t pcp_pages = 0;
	for (int k = 0; k < w->s->nr_cpus; k++) {
		const struct per_cpu_pages *pcp = &z->pcp[k];
		uint64_t sum = 0;
		for (int mt = 0; mt < MT_PCPTYPES; mt++) {
			uint64_t len;
			CHECK(check_list(&pcp->lists[mt], &len) == 0, "pagealloc: pcp list broken");
			for (const struct page *p = pcp->lists[mt].next; p != &pcp->lists[mt];
			     p = p->next)
				CHECK(p->state == PS_PCP && p->pcp_cpu == k &&
					      page_zone(w, p) == z,
				      "pagealloc: page on pcp list of CPU %d is not a pcp page", k);
			sum += len;
		}
		CHECK(sum == (uint64_t)pcp->count, "pagealloc: zone %d/%s CPU %d pcp count %d != %" PRIu64,
		      z->node, zone_type_name(z->type), w->s->cpu[k].id, pcp->count, sum);
		CHECK(pcp->count <= pcp->high || pcp->count <= pcp->batch,
		      "pagealloc: zone %d/%s CPU %d pcp count %d above high %d",
		      z->node, zone_type_name(z->type), w->s->cpu[k].id, pcp->count, pcp->high);
		pcp_pages += sum;
	}
	CHECK(free_pages + pcp_pages + z->allocated == z->managed,
	      "pagealloc: zone %d/%s: free %" PRIu64 " + pcp %" PRIu64 " + allocated %" PRIu64
	      " != managed %" PRIu64, z->node, zone_type_name(z->type), free_pages, pcp_pages,
	      z->allocated, z->managed);
	CHECK(zone_stat_snapshot(w, z, NR_FREE_PAGES) == (int64_t)free_pages,
	      "pagealloc: zone %d/%s NR_FREE_PAGES %" PRId64 " != buddy %" PRIu64, z->node,
	      zone_type_name(z->type), zone_stat_snapshot(w, z, NR_FREE_PAGES), free_pages);
	for (int k = 0; k < w->s->nr_cpus; k++)
		for (int i = 0; i < MM_NR_STAT; i++)
			CHECK(z->pcp[k].diff[i] >= -z->pcp[k].stat_threshold - 1 &&
				      z->pcp[k].diff[i] <= z->pcp[k].stat_threshold,
			      "pagealloc: per-cpu delta beyond the threshold");
	return NS_OK;
}

int mm_check(const struct mm_world *w, struct diag *d)
{
	CHECK(w->pool.nr <= w->pool.nr_all, "pagealloc: detail pool count");
	uint64_t in_use = 0;
	for (uint64_t i = 0; i < w->nr_blocks; i++)
		in_use += w->blocks[i].detail != NULL;
	CHECK(in_use + w->pool.nr == w->pool.nr_all,
	      "pagealloc: %" PRIu64 " blocks with detail + %zu pooled != %zu allocated", in_use,
	      w->pool.nr, w->pool.nr_all);
	for (int i = 0; i < w->nr_zones; i++) {
		int rc = check_zone(w, &w->zones[i], d);
		if (rc != NS_OK)
			return rc;
	}
	for (int k = 0; k < w->s->nr_cpus; k++)
		CHECK(w->cfg.mpol != MPOL_INTERLEAVE ||
			      (w->cpus[k].il_next >= 0 && w->cpus[k].il_next < MACHINE_MAX_NODES &&
			       node_isset(w->mpol_mask, w->cpus[k].il_next)),
		      "pagealloc: CPU %d's il_next %d is not an interleave node", w->s->cpu[k].id,
		      w->cpus[k].il_next);
	for (int k = 0; k < w->s->nr_cpus; k++) {
		int rc = cpu_check(&w->s->cpu[k]);
		if (rc != NS_OK)
			return diag_set(d, rc, NULL, 0, 0, "pagealloc: CPU %d cost state broken",
					w->s->cpu[k].id);
	}
	return NS_OK;
}

/* --- introspection and counters ----------------------------------------- */

int mm_zone_get_info(const struct mm_world *w, int node, enum zone_type t, int cpu_id,
		     struct mm_zone_info *out)
{
	if (node < 0 || node >= MACHINE_MAX_NODES || w->m->node_index[node] < 0 ||
	    (unsigned)t >= NR_ZONE_TYPES)
		return NS_ENOENT;
	const struct zone *z = w->nodes[w->m->node_index[node]].zones[t];
	if (!z)
		return NS_ENOENT;
	int k = 0;
	if (cpu_id >= 0) {
		for (k = 0; k < w->s->nr_cpus && w->s->cpu[k].id != cpu_id; k++)
			;
		if (k == w->s->nr_cpus)
			return NS_ENOENT;
	}
	memset(out, 0, sizeof *out);
	out->start_pfn = z->start_pfn;
	out->managed = z->managed;
	for (int i = 0; i < 3; i++)
		out->watermark[i] = z->watermark[i];
	for (int i = 0; i < NR_ZONE_TYPES; i++)
		out->lowmem_reserve[i] = z->lowmem_reserve[i];
	out->nr_free_pages = zone_stat_snapshot(w, z, NR_FREE_PAGES);
	out->nr_free_pages_atomic = z->vm_stat[NR_FREE_PAGES];
	out->alloc_batch = zone_stat_snapshot(w, z, NR_ALLOC_BATCH);
	out->fair_depleted = z->fair_depleted;
	for (int o = 0; o < MAX_ORDER; o++) {
		out->nr_free[o] = z->free_area[o].nr_free;
		for (int mt = 0; mt < MT_TYPES; mt++) {
			const struct page *h = &z->free_area[o].list[mt];
			for (const struct page *p = h->next; p != h; p = p->next)
				out->nr_free_mt[o][mt]++;
		}
	}
	out->allocated = z->allocated;
	if (w->s->nr_cpus > 0) {
		const struct per_cpu_pages *p = &z->pcp[k];
		out->pcp_count = p->count;
		out->pcp_high = p->high;
		out->pcp_batch = p->batch;
		for (int mt = 0; mt < MT_PCPTYPES; mt++) {
			const struct page *h = &p->lists[mt];
			for (const struct page *q = h->next; q != h; q = q->next)
				out->pcp_list[mt]++;
		}
		out->stat_threshold = p->stat_threshold;
	}
	return NS_OK;
}

int mm_counters(const struct mm_world *w, mm_counter_fn fn, void *arg)
{
	char id[64];
	int rc;
	for (int i = 0; i < w->nr_zones; i++) {
		const struct zone *z = &w->zones[i];
		snprintf(id, sizeof id, "%d/%s", z->node, zone_type_name(z->type));
		char name[48];
		snprintf(name, sizeof name, "pgalloc_%s", zone_type_name(z->type));
		for (char *p = name; *p; p++)
			if (*p >= 'A' && *p <= 'Z')
				*p = (char)(*p - 'A' + 'a');
		if ((rc = fn(arg, "zone", id, name, (int64_t)z->ev[EV_pgalloc])) != NS_OK)
			return rc;
		for (int e = 0; e < MM_NR_EVENT; e++) {
			if (e == EV_pgalloc)
				continue;
			if ((rc = fn(arg, "zone", id, mm_event_name[e], (int64_t)z->ev[e])) != NS_OK)
				return rc;
		}
		for (int s = 0; s < MM_NR_STAT; s++)
			if ((rc = fn(arg, "zone", id, mm_stat_name[s],
				     zone_stat_snapshot(w, z, (enum mm_stat)s))) != NS_OK)
				return rc;
		if ((rc = fn(arg, "zone", id, "nr_allocated", (int64_t)z->allocated)) != NS_OK)
			return rc;
	}
	for (int n = 0; n < w->nr_nodes; n++) {
		const struct pglist_data *pn = &w->nodes[n];
		snprintf(id, sizeof id, "%d", pn->id);
		static const enum mm_stat numastat[] = {NUMA_HIT, NUMA_MISS, NUMA_FOREIGN,
							NUMA_INTERLEAVE_HIT, NUMA_LOCAL, NUMA_OTHER};
		for (size_t s = 0; s < sizeof numastat / sizeof numastat[0]; s++) {
			int64_t v = 0;
			for (int t = 0; t < NR_ZONE_TYPES; t++)
				if (pn->zones[t])
					v += zone_stat_snapshot(w, pn->zones[t], numastat[s]);
			if ((rc = fn(arg, "node", id, mm_stat_name[numastat[s]], v)) != NS_OK)
				return rc;
		}
		for (int e = 0; e < MM_NR_NEVENT; e++)
			if ((rc = fn(arg, "node", id, mm_nevent_name[e], (int64_t)pn->ev[e])) != NS_OK)
				return rc;
	}
	return NS_OK;
}
