/*
 * mm_tables — the page allocator model's X-macro tables, single-sourced
 * here (part of models/mm_internal.h, which includes it; nothing else
 * may): the kernel's constants the model uses (orders, migratetypes,
 * alloc_flags), MM_STATS, MM_EVENTS and MM_NEVENTS (counters), MM_FUNCS
 * and MM_INLINE_FUNCS (the model's functions in the cost tables),
 * MM_SITES (branch sites; their order is their id, and the branch
 * predictor indexes by id, so new sites are appended), MM_WORK
 * (straight-line work per code layout), the reclaim tables (VM_FUNCS,
 * VM_SITES, VM_WORK) and MM_BLOCKS (the code blocks).  Arrays made from
 * them are defined once, in the file that uses them (names and layout in
 * mm_info.c, counter names in mm_info.c); mm_stat_idx() is an inline
 * function of its table so each call folds to a constant, and
 * mm_work_layout() gives a work layout's column of MM_WORK, which the
 * world costs once into its blocks (w->code).
 *
 * Branch sites are named by the reference's numbers (A01..A52, F01..F14,
 * with letter suffixes where one number covers several conditionals) or
 * by "function:what" for the slow parts.  Straight-line work between
 * sites is charged per segment from MM_WORK in the world's code layout
 * (cost.code: the estimate, identical for PRE and POST, or the counts of
 * the compiled v4.6.2 objects, per variant; docs/design/compiled-counts.md).
 */
#ifndef NUMASIM_MM_TABLES_H
#define NUMASIM_MM_TABLES_H

#ifndef NUMASIM_MM_INTERNAL_H
#error "include models/mm_internal.h, which includes this header"
#endif

#include "cost/cost.h"
#include "models/page_alloc.h"

#include <stdint.h>

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
/* The v4.6 enum position of a stat (its address in vm_stat[] and
 * vm_stat_diff[]): a function of the constant so that every file folds it. */
static inline unsigned mm_stat_idx(enum mm_stat i)
{
	switch (i) {
#define MM_STAT_IDX(id, idx, name) case id: return idx;
	MM_STATS(MM_STAT_IDX)
#undef MM_STAT_IDX
	case MM_NR_STAT:
		break;
	}
	return 0;
}

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
	X(inc_zone_page_state)                                                 \
	/* appended so that no older function id moves */                     \
	X(zone_local)

/*
 * The calls a code-change file can put behind a static key (`call:
 * CALLER -> CALLEE`, `function: CALLEE` with `static-key: on|off`;
 * scenarios/kchange.h, docs/reference/changes.md).  A callee is accepted
 * when nothing the model runs after it reads what it changed, so that a
 * call the key leaves out changes the cost only: X(callee, what it keeps,
 * and who reads that).  Refused, because the allocator reads what they
 * change: __mod_zone_page_state and mod_zone_page_state (NR_FREE_PAGES,
 * read by the watermark checks; NR_ALLOC_BATCH, read by the fair zone
 * policy), __dec_zone_state (NR_ALLOC_BATCH), every function of the
 * buddy, pcp, zonelist, policy and cpuset code.
 */
#define MM_KEY_CALLEES(X)                                                      \
	X(zone_statistics, "the NUMA event counters (numa_hit, numa_miss, numa_foreign, " \
	  "local_node, other_node), read only by /proc/vmstat and numastat")  \
	X(__inc_zone_state, "a NUMA event counter (per-cpu delta, folded into the zone's " \
	  "and the global count), read only by /proc/vmstat and numastat")    \
	X(inc_zone_page_state, "interleave_hit, read only by /proc/vmstat and numastat") \
	X(check_new_page, "nothing: a debug check whose verdict is always 'good' in the " \
	  "model (no bad page is modelled)")                                  \
	X(free_pages_check, "nothing: a debug check whose verdict is always 'good' in the " \
	  "model (no bad page is modelled)")
/* Every call of those callees in the model, X(caller, callee): the
 * caller is the function whose frame is below the callee's (inlined
 * functions have frames too).  v3 27 and v3 28 add the checks at the
 * pcp drain and refill and under zone->lock. */
#define MM_KEY_CALLS(X)                                                        \
	X(buffered_rmqueue, zone_statistics)                                   \
	X(zone_statistics, __inc_zone_state)                                   \
	X(alloc_page_interleave, inc_zone_page_state)                          \
	X(prep_new_page, check_new_page)                                       \
	X(buffered_rmqueue, check_new_page)                                    \
	X(rmqueue_bulk, check_new_page)                                        \
	X(free_pages_prepare, free_pages_check)                                \
	X(free_pcppages_bulk, free_pages_check)

/* Inlined in the `estimate` code layout (a 2016 gcc build as the source
 * reads, both variants), except next_zones_zonelist which the layout
 * decides per variant.  The `compiled` layout follows `nm -S` of the gcc
 * 11.3 objects instead: mm_layout() (page_alloc.c) moves the helpers gcc
 * kept out of line, and __alloc_pages_slowpath which it inlined. */
#define MM_INLINE_FUNCS(X)                                                     \
	X(get_task_policy) X(policy_zonelist) X(policy_nodemask)               \
	X(interleave_nodes)                                                    \
	X(first_zones_zonelist) X(cpuset_zone_allowed) X(__zone_watermark_ok)  \
	X(buffered_rmqueue) X(__rmqueue_smallest) X(expand)                    \
	X(__rmqueue_fallback) X(find_suitable_fallback) X(zone_statistics)     \
	X(prep_new_page) X(check_new_page) X(reset_alloc_batches)              \
	X(free_pages_prepare) X(free_pages_check) X(__free_one_page)           \
	X(free_one_page) X(zone_local)

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

/*
 * The 2016 series' sites and functions (models/kcommit.h,
 * docs/design/series-2016.md): registered by mm_series_register() after every
 * other model's tables, so that no older function or site id moves (the
 * branch predictors hash global site ids); charged through w->sch
 * (sbr(), scall()).  The blocks that end at one of these sites are
 * MM_SERIES_BLOCKS, costed with the series' site base.
 */
#define MM_SERIES_FUNCS(X) X(__dec_zone_state)
#define MM_SERIES_SITES(X)                                             \
	X(F05p, "before v3 01 free_pages_prepare: PageCompound: PageHead(page)", N, F) \
	X(F05q, "before v3 01 free_pages_prepare: PageCompound: PageTail (compound_head & 1)", N, T) \
	X(F05r, "before v3 02 PageAnon: compound_head(): unlikely(head & 1)", U, H) \
	X(A39c, "v3 06 __dec_zone_state: unlikely(v < -t)", U, H) \
	X(A11s, "v3 15 __alloc_pages_slowpath: might_sleep_if(DIRECT_RECLAIM)", N, T) \
	X(A48p, "v3 18 __alloc_pages_nodemask: likely(page) -> out", L, H) \
	X(A25f, "v3 19 get_page_from_freelist: if (apply_fair)", N, T) \
	X(A27f, "v3 19 get_page_from_freelist: test_bit(ZONE_FAIR_DEPLETED) first", N, F) \
	X(A26f, "v3 19 get_page_from_freelist: !zone_local(preferred, zone)", N, T) \
	X(A26s, "v3 19 get_page_from_freelist: if (fair_skipped) goto reset_fair", N, F) \
	X(gpfl_fair_skipped_19, "v3 19 get_page_from_freelist: after loop: if (fair_skipped)", N, T) \
	X(A30f, "v3 20 zone_watermark_fast: !(alloc_flags & ALLOC_CMA)", N, T) \
	X(A30g, "v3 20 zone_watermark_fast: !order && ...", N, T) \
	X(A30h, "v3 20 zone_watermark_fast: ... free - cma > mark + lowmem_reserve", N, F) \
	X(A45s, "v3 23 check_new_page: page_expected_state: unlikely(_mapcount != -1)", U, H) \
	X(A45t, "v3 23 check_new_page: page_expected_state: unlikely(fields | flags)", U, H) \
	X(F05s, "v3 23 free_pages_check: page_expected_state: unlikely(_mapcount != -1)", U, H) \
	X(F05t, "v3 23 free_pages_check: page_expected_state: unlikely(fields | flags)", U, H) \
	X(pcpbulk_bad, "v3 27 free_pcppages_bulk: bulkfree_pcp_prepare(page) -> continue", U, H) \
	X(rmqueue_bulk_bad, "v3 28 rmqueue_bulk: unlikely(check_pcp_refill(page)) -> continue", U, H) \
	X(check_new_pages_loop, "v3 28 check_new_pages: for (i < 1 << order)", N, F)

#define MM_FN_ENUM(name) FN_##name,
#define MM_SITE_ENUM(id, desc, hint, ft) S_##id,
enum mm_fn { MM_FUNCS(MM_FN_ENUM) MM_NR_FN };
enum mm_site { MM_SITES(MM_SITE_ENUM) MM_NR_SITE };
#define MM_SFN_ENUM(name) SF_##name,
#define MM_SSITE_ENUM(id, desc, hint, ft) SS_##id,
enum mm_sfn { MM_SERIES_FUNCS(MM_SFN_ENUM) MM_NR_SFN };
enum mm_ssite { MM_SERIES_SITES(MM_SSITE_ENUM) MM_NR_SSITE };

/*
 * Straight-line work between the modelled sites: X(name, estimate, pre,
 * post), the instructions (uops) of the row's segment that the model does
 * not charge as a branch, load, store, call, return, atomic or irq
 * sequence, in two code layouts (mm_config.code, `cost.code`):
 *   estimate  read from the v4.6 source (docs/design/pagealloc-model.md has the
 *             reasoning per row), the same for PRE and POST: the layout of
 *             every release before cost.code, kept bit for bit;
 *   compiled  counted in the disassembly of v4.6.2 objects built by gcc
 *             11.3 (docs/design/compiled-counts.md: config, commands, addresses):
 *             the segment's fused-domain uops on the executed path (per
 *             instruction form, Agner Fog's Broadwell table) minus what
 *             the model charges in it (its branches, loads, stores, and
 *             every call and return: the compiled layout keeps out of line
 *             what gcc did, mm_layout), per variant (pre-682a3385,
 *             682a3385).  Only the rows of the order-0 per-cpu fast path
 *             (alloc and free), of the pcp refill (rmqueue_bulk,
 *             __rmqueue) and of the pcp drain (free_pcppages_bulk with
 *             __free_one_page) were counted; every other row keeps its
 *             estimate in the compiled columns (marked "=est" below).
 *             The series' rows (after "the 2016 series") were counted the
 *             same way, in the v4.6.2 object (free_pages_compound) and in
 *             v4.7.4 objects (dec_zone_state, gpfl_after_19,
 *             watermark_fast, page_expected_state): docs/design/compiled-counts.md
 *             section 7; alloc_nodemask_16 is derived from a counted row.
 * Charged through the blocks of MM_BLOCKS (below), as cpu_insns() charges
 * them: in-order at MM_IPC per cycle, out of order as that many uops
 * through dispatch.  mm_world_create() costs the blocks from the column
 * of the world's layout once (mm_blocks_init()); the hot path reads only
 * the blocks.
 */
#define MM_IPC 2
#define MM_WORK(X)                                                             \
	X(alloc_pages_current, 12, 76, 76)                                     \
	X(interleave_nodes, 6, 6, 6) /* =est */                                \
	X(find_next_bit, 10, 10, 10) /* =est */                                \
	X(alloc_page_interleave, 8, 8, 8) /* =est */                           \
	X(policy_nodemask, 4, 4, 4) /* =est */                                 \
	X(alloc_nodemask, 34, 77, 77)                                          \
	X(cond_resched, 4, 3, 3)                                               \
	X(gpfl_entry, 6, 33, 34)                                               \
	X(gpfl_zone, 16, 25, 25)                                               \
	X(gpfl_after, 4, 4, 4) /* =est */                                      \
	X(nzl_body, 3, 7, 7)                                                   \
	X(nzl_step, 3, 3, 3) /* =est */                                        \
	X(nzl_inline, 2, 0, 0)                                                 \
	X(cpuset_node_allowed, 14, 14, 14) /* =est */                          \
	X(watermark, 16, 31, 31)                                               \
	X(watermark_order, 6, 6, 6) /* =est */                                 \
	X(buffered_pcp, 24, 43, 43)                                            \
	X(buffered_buddy, 16, 16, 16) /* =est */                               \
	X(mod_zone_page_state, 10, 13, 13)                                     \
	X(inc_zone_state, 9, 12, 12)                                           \
	X(zone_statistics, 6, 7, 7)                                            \
	X(prep_new_page, 8, 52, 52)                                            \
	X(rmqueue_bulk, 10, 36, 36)                                            \
	X(rmqueue_bulk_page, 8, 10, 10)                                        \
	X(rmqueue, 4, 29, 29)                                                  \
	X(smallest_probe, 5, 12, 12)                                           \
	X(smallest_take, 10, 29, 29)                                           \
	X(expand_step, 8, 17, 17)                                              \
	X(fallback_probe, 8, 8, 8) /* =est */                                  \
	X(steal, 12, 12, 12) /* =est */                                        \
	X(move_freepages_page, 4, 4, 4) /* =est */                             \
	X(free_pages, 4, 5, 5)                                                 \
	X(free_hot_cold_page, 20, 58, 58)                                      \
	X(free_pages_prepare, 10, 27, 27)                                      \
	X(pfnblock, 18, 29, 29)                                                \
	X(pcpbulk, 8, 29, 29)                                                  \
	X(pcpbulk_search, 4, 9, 9)                                             \
	X(pcpbulk_page, 10, 23, 23)                                            \
	X(free_one_entry, 10, 10, 10)                                          \
	X(free_one_merge, 12, 25, 25)                                          \
	X(free_one_done, 10, 41, 41)                                           \
	X(free_pages_ok, 14, 14, 14) /* =est */                                \
	X(reset_batch_zone, 10, 10, 10) /* =est */                             \
	X(slowpath, 30, 30, 30) /* =est */                                     \
	/* the 2016 series (models/kcommit.h; docs/design/series-2016.md) */         \
	X(free_pages_compound, 3, 7, 7) /* before v3 01: v4.6.2 object */      \
	X(dec_zone_state, 9, 15, 15) /* v3 06: v4.7.4 vmstat.o */              \
	X(alloc_nodemask_16, 33, 76, 76) /* v3 16: alloc_nodemask less the OR */ \
	X(gpfl_after_19, 2, 1, 1) /* v3 19: v4.7.4 object */                   \
	X(watermark_fast, 6, 12, 12) /* v3 20: v4.7.4 object */                \
	X(page_expected_state, 5, 7, 7) /* v3 23: v4.7.4 object */             \
	/* the rows a series commit takes work out of: the counted row less   \
	 * the instructions of the code the commit removes (v4.6.2 object;   \
	 * the estimate column keeps the estimate) */                         \
	X(prep_new_page_23, 8, 46, 46) /* v3 23: less check_new_page's tests */ \
	X(prep_new_page_28, 8, 28, 28) /* v3 28: less the check loop */        \
	X(free_pages_prepare_23, 10, 20, 20) /* v3 23: less free_pages_check's tests, + the and of the flag clear */
/*
 * The reclaim tables (models/vmscan.c and the reclaim half of
 * page_alloc.c's slow path), registered by vmscan_register() after every
 * other model so that no older function or site id moves.
 */
#define VM_FUNCS(X)                                                            \
	X(wakeup_kswapd) X(kswapd) X(balance_pgdat) X(kswapd_shrink_zone)      \
	X(zone_balanced) X(pgdat_balanced) X(age_active_anon)                  \
	X(try_to_free_pages) X(do_try_to_free_pages) X(shrink_zones)           \
	X(shrink_zone) X(shrink_lruvec) X(get_scan_count) X(shrink_list)       \
	X(shrink_inactive_list) X(shrink_active_list) X(isolate_lru_pages)     \
	X(__isolate_lru_page) X(shrink_page_list) X(page_check_references)     \
	X(page_referenced) X(add_to_swap) X(try_to_unmap) X(pageout)           \
	X(__remove_mapping) X(putback_inactive_pages)                          \
	X(move_active_pages_to_lru) X(free_hot_cold_page_list)                 \
	X(inactive_list_is_low) X(zone_reclaimable) X(zone_reclaim)            \
	X(__zone_reclaim) X(zone_pagecache_reclaimable)                        \
	X(__alloc_pages_direct_reclaim) X(__perform_reclaim)                   \
	X(__alloc_pages_may_oom) X(out_of_memory) X(drain_all_pages)           \
	X(lru_cache_add) X(mark_page_accessed) X(activate_page)
/* static helpers gcc -O2 inlines into their single caller */
#define VM_INLINE_FUNCS(X)                                                     \
	X(kswapd_shrink_zone) X(zone_balanced) X(age_active_anon)              \
	X(get_scan_count) X(shrink_list) X(page_check_references)              \
	X(putback_inactive_pages) X(move_active_pages_to_lru)                  \
	X(inactive_list_is_low) X(zone_pagecache_reclaimable)                  \
	X(__perform_reclaim) X(__zone_reclaim)
#define VM_SITES(X)                                                            \
	X(wk_populated, "wakeup_kswapd: !populated_zone(zone)", N, F)          \
	X(wk_cpuset, "wakeup_kswapd: !cpuset_zone_allowed()", N, F)            \
	X(wk_waitqueue, "wakeup_kswapd: !waitqueue_active(&pgdat->kswapd_wait)", N, F) \
	X(wk_balanced, "wakeup_kswapd: zone_balanced(zone, order, true, 0, 0)", N, F) \
	X(zb_wmark, "zone_balanced: !zone_watermark_ok_safe(zone, order, high + gap)", N, F) \
	X(bp_zone_down, "balance_pgdat: for (i = nr_zones - 1; i >= 0; i--)", N, F) \
	X(bp_unreclaimable, "balance_pgdat: priority != DEF_PRIORITY && !zone_reclaimable", N, F) \
	X(bp_unbalanced, "balance_pgdat: !zone_balanced() -> end_zone = i", N, F) \
	X(bp_all_balanced, "balance_pgdat: i < 0 -> out", N, F)                \
	X(bp_writepage, "balance_pgdat: sc.priority < DEF_PRIORITY - 2", N, T) \
	X(bp_zone_up, "balance_pgdat: for (i = 0; i <= end_zone; i++)", N, F)  \
	X(bp_raise, "balance_pgdat: raise_priority || !sc.nr_reclaimed", N, T) \
	X(bp_loop, "balance_pgdat: while (priority >= 1 && !pgdat_balanced)", N, F) \
	X(ksz_balanced, "kswapd_shrink_zone: zone_balanced(zone, order, false, balance_gap)", N, F) \
	X(ksz_scanned, "kswapd_shrink_zone: sc->nr_scanned >= sc->nr_to_reclaim", N, T) \
	X(pb_zone, "pgdat_balanced: for (i = 0; i <= classzone_idx; i++)", N, F) \
	X(pb_reclaimable, "pgdat_balanced: !zone_reclaimable(zone) -> continue", N, F) \
	X(pb_balanced, "pgdat_balanced: zone_balanced() / !order -> return false", N, T) \
	X(aaa_swap, "age_active_anon: !total_swap_pages -> return", N, F)      \
	X(dt_allocstall, "do_try_to_free_pages: global_reclaim(sc) (ALLOCSTALL)", N, T) \
	X(dt_enough, "do_try_to_free_pages: sc->nr_reclaimed >= sc->nr_to_reclaim", N, F) \
	X(dt_writepage, "do_try_to_free_pages: sc->priority < DEF_PRIORITY - 2", N, T) \
	X(dt_flusher, "do_try_to_free_pages: total_scanned > writeback_threshold", N, T) \
	X(dt_loop, "do_try_to_free_pages: while (--sc->priority >= 0)", N, F)  \
	X(dt_reclaimed, "do_try_to_free_pages: if (sc->nr_reclaimed) return", N, F) \
	X(dt_zones_reclaimable, "do_try_to_free_pages: if (zones_reclaimable) return 1", N, F) \
	X(sz_cpuset, "shrink_zones: !cpuset_zone_allowed(zone, GFP_KERNEL|__GFP_HARDWALL)", N, F) \
	X(sz_unreclaimable, "shrink_zones: priority != DEF_PRIORITY && !zone_reclaimable", N, F) \
	X(sz_reclaimable, "shrink_zones: shrink_zone() || zone_reclaimable()", N, T) \
	X(szn_progress, "shrink_zone: sc->nr_reclaimed - nr_reclaimed", N, T)  \
	X(gsc_noswap, "get_scan_count: !sc->may_swap || get_nr_swap_pages() <= 0", N, F) \
	X(gsc_equal, "get_scan_count: !sc->priority && swappiness", N, F)      \
	X(gsc_cache_trap, "get_scan_count: unlikely(zonefile + zonefree <= high_wmark)", U, H) \
	X(gsc_file_enough, "get_scan_count: !inactive_file_is_low && inactive >> priority", N, F) \
	X(gsc_halve, "get_scan_count: unlikely(recent_scanned > lru / 4)", U, H) \
	X(gsc_pass, "get_scan_count: for (pass = 0; !some_scanned && pass < 2)", N, F) \
	X(gsc_force, "get_scan_count: !scan && pass && force_scan", N, F)      \
	X(sl_loop, "shrink_lruvec: while (nr[INACTIVE_ANON] || nr[ACTIVE_FILE] || nr[INACTIVE_FILE])", N, F) \
	X(sl_nr, "shrink_lruvec: for_each_evictable_lru: if (nr[lru])", N, T)  \
	X(sl_continue, "shrink_lruvec: nr_reclaimed < nr_to_reclaim || scan_adjusted", N, F) \
	X(sl_one_empty, "shrink_lruvec: !nr_file || !nr_anon -> break", N, F)  \
	X(sl_anon_low, "shrink_lruvec: inactive_anon_is_low(lruvec)", N, T)    \
	X(shl_active, "shrink_list: is_active_lru(lru)", N, T)                 \
	X(shl_low, "shrink_list: inactive_list_is_low(lruvec, lru)", N, T)     \
	X(ilil_file, "inactive_list_is_low: is_file_lru(lru)", N, T)           \
	X(ilil_swap, "inactive_anon_is_low: !total_swap_pages", N, F)          \
	X(ilil_low, "inactive_list_is_low: inactive * ratio < active", N, T)   \
	X(sil_taken, "shrink_inactive_list: nr_taken == 0 -> return 0", N, F)  \
	X(sil_kswapd, "shrink_inactive_list: current_is_kswapd()", N, T)       \
	X(sil_zone_dirty, "shrink_inactive_list: nr_unqueued_dirty == nr_taken", N, T) \
	X(iso_loop, "isolate_lru_pages: scan < nr_to_scan && nr_taken < nr && !list_empty", N, F) \
	X(iso_clean, "__isolate_lru_page: (mode & ISOLATE_CLEAN) && PageDirty", N, F) \
	X(iso_unmapped, "__isolate_lru_page: (mode & ISOLATE_UNMAPPED) && page_mapped", N, F) \
	X(iso_busy, "isolate_lru_pages: case -EBUSY: list_move(page, src)", N, F) \
	X(spl_loop, "shrink_page_list: while (!list_empty(page_list))", N, F)  \
	X(spl_may_unmap, "shrink_page_list: !sc->may_unmap && page_mapped(page)", N, F) \
	X(spl_mapped, "shrink_page_list: page_mapped(page) || PageSwapCache(page)", N, T) \
	X(spl_dirty, "page_check_dirty_writeback: dirty && !writeback", N, T)  \
	X(spl_ref_activate, "shrink_page_list: case PAGEREF_ACTIVATE", N, F)   \
	X(spl_ref_keep, "shrink_page_list: case PAGEREF_KEEP", N, F)           \
	X(spl_anon, "shrink_page_list: PageAnon(page) && !PageSwapCache(page)", N, T) \
	X(spl_swap_full, "shrink_page_list: !add_to_swap() -> activate_locked", N, F) \
	X(spl_unmap, "shrink_page_list: page_mapped(page) && mapping -> try_to_unmap", N, T) \
	X(spl_pgdirty, "shrink_page_list: PageDirty(page)", N, T)              \
	X(spl_file_dirty, "shrink_page_list: page_is_file_cache && (!kswapd || !ZONE_DIRTY)", N, F) \
	X(spl_ref_clean, "shrink_page_list: references == PAGEREF_RECLAIM_CLEAN", N, F) \
	X(spl_writepage, "shrink_page_list: !may_enter_fs || !sc->may_writepage", N, F) \
	X(pcr_ptes, "page_check_references: if (referenced_ptes)", N, T)       \
	X(pcr_swapbacked, "page_check_references: PageSwapBacked(page) -> ACTIVATE", N, F) \
	X(pcr_twice, "page_check_references: referenced_page || referenced_ptes > 1", N, F) \
	X(pcr_clean, "page_check_references: referenced_page && !PageSwapBacked", N, F) \
	X(pr_mapped, "page_referenced: !page_mapped(page) -> return 0", N, F)  \
	X(pr_young, "page_referenced_one: ptep_clear_flush_young_notify()", N, T) \
	X(atsw_slot, "add_to_swap: !entry.val (get_swap_page) -> return 0", N, F) \
	X(sal_loop, "shrink_active_list: while (!list_empty(&l_hold))", N, F)  \
	X(sal_referenced, "shrink_active_list: page_referenced()", N, T)       \
	X(pip_loop, "putback_inactive_pages: while (!list_empty(page_list))", N, F) \
	X(pip_active, "putback_inactive_pages: is_active_lru(lru)", N, T)      \
	X(mapl_loop, "move_active_pages_to_lru: while (!list_empty(list))", N, F) \
	X(fhcpl_loop, "free_hot_cold_page_list: list_for_each_entry_safe", N, F) \
	X(zr_full, "zone_reclaim: pagecache <= min_unmapped && slab <= min_slab", N, F) \
	X(zr_unreclaimable, "zone_reclaim: !zone_reclaimable(zone)", N, F)     \
	X(zr_noblock, "zone_reclaim: !gfpflags_allow_blocking || PF_MEMALLOC", N, F) \
	X(zr_remote, "zone_reclaim: node_state(N_CPU) && node_id != numa_node_id()", N, F) \
	X(zr_locked, "zone_reclaim: test_and_set_bit(ZONE_RECLAIM_LOCKED)", N, F) \
	X(zr_failed, "zone_reclaim: !ret (PGSCAN_ZONE_RECLAIM_FAILED)", N, T)  \
	X(zr_pagecache, "__zone_reclaim: zone_pagecache_reclaimable > min_unmapped_pages", N, T) \
	X(zr_loop, "__zone_reclaim: while (nr_reclaimed < nr_pages && --priority >= 0)", N, F) \
	X(zpr_unmap, "zone_pagecache_reclaimable: zone_reclaim_mode & RECLAIM_UNMAP", N, T) \
	X(zpr_write, "zone_pagecache_reclaimable: !(zone_reclaim_mode & RECLAIM_WRITE)", N, T) \
	X(gpfl_allows, "get_page_from_freelist: !zone_allows_reclaim(preferred, zone)", N, F) \
	X(gpfl_zr_scan, "get_page_from_freelist: case ZONE_RECLAIM_NOSCAN / FULL", N, F) \
	X(gpfl_zr_wmark, "get_page_from_freelist: zone_watermark_ok() after zone_reclaim", N, T) \
	X(sp_can_reclaim, "__alloc_pages_slowpath: !can_direct_reclaim -> nopage", N, F) \
	X(sp_memalloc, "__alloc_pages_slowpath: current->flags & PF_MEMALLOC", N, F) \
	X(sp_page, "__alloc_pages_slowpath: direct reclaim page -> got_pg", N, F) \
	X(sp_noretry, "__alloc_pages_slowpath: gfp_mask & __GFP_NORETRY", N, F) \
	X(sp_retry, "__alloc_pages_slowpath: did_some_progress && order <= COSTLY", N, T) \
	X(sp_oom_page, "__alloc_pages_slowpath: may_oom page -> got_pg", N, F) \
	X(sp_oom_progress, "__alloc_pages_slowpath: did_some_progress -> retry", N, F) \
	X(dr_progress, "__alloc_pages_direct_reclaim: unlikely(!(*did_some_progress))", U, H) \
	X(dr_drained, "__alloc_pages_direct_reclaim: !page && !drained", N, T) \
	X(oom_page, "__alloc_pages_may_oom: get_page_from_freelist(WMARK_HIGH)", N, F) \
	X(oom_costly, "__alloc_pages_may_oom: order > PAGE_ALLOC_COSTLY_ORDER", N, F) \
	X(oom_lowmem, "__alloc_pages_may_oom: ac->high_zoneidx < ZONE_NORMAL", N, F) \
	X(oom_nofs, "__alloc_pages_may_oom: !(gfp_mask & __GFP_FS)", N, F)     \
	X(oom_thisnode, "__alloc_pages_may_oom: gfp_mask & __GFP_THISNODE", N, F) \
	X(mpa_activate, "mark_page_accessed: !PageActive && PageReferenced && PageLRU", N, F)
/* straight-line work of the reclaim code, instructions (docs/design/reclaim-model.md) */
#define VM_WORK(X)                                                             \
	X(wakeup_kswapd, 20) X(balance_iter, 30) X(balance_zone, 12)           \
	X(kswapd_shrink_zone, 24) X(zone_balanced, 6) X(try_to_free_pages, 30) \
	X(dtffp_iter, 12) X(shrink_zones_zone, 14) X(shrink_zone, 20)          \
	X(get_scan_count, 60) X(shrink_lruvec_iter, 16) X(shrink_list_call, 8) \
	X(shrink_inactive_list, 40) X(shrink_active_list, 40)                  \
	X(isolate_page, 14) X(spl_page, 30) X(page_referenced, 40)             \
	X(try_to_unmap, 60) X(add_to_swap, 80) X(pageout, 60)                  \
	X(remove_mapping, 50) X(putback_page, 12) X(move_active_page, 12)      \
	X(deactivate_page, 10) X(lru_cache_add, 30) X(mark_page_accessed, 8)   \
	X(zone_reclaim, 30) X(direct_reclaim, 20) X(may_oom, 30)               \
	X(inactive_low, 8) X(zone_reclaimable, 10)
#define VM_FN_ENUM(name) VF_##name,
#define VM_SITE_ENUM(id, desc, hint, ft) VS_##id,
enum vm_fn { VM_FUNCS(VM_FN_ENUM) VM_NR_FN };
enum vm_site { VM_SITES(VM_SITE_ENUM) VM_NR_SITE };
enum vm_work {
#define VM_WORK_ENUM(name, insns) VW_##name,
	VM_WORK(VM_WORK_ENUM)
#undef VM_WORK_ENUM
	VM_NR_WORK
};
static inline uint32_t vm_work_cycles(enum vm_work k)
{
	switch (k) {
#define VM_WORK_CYC(name, insns) case VW_##name: return (insns + MM_IPC - 1) / MM_IPC;
	VM_WORK(VM_WORK_CYC)
#undef VM_WORK_CYC
	case VM_NR_WORK:
		break;
	}
	return 0;
}

enum mm_work {
#define MM_WORK_ENUM(name, est, pre, post) W_##name,
	MM_WORK(MM_WORK_ENUM)
#undef MM_WORK_ENUM
	MM_NR_WORK
};

_Static_assert(MM_IPC == CPU_INORDER_IPC, "cpu_insns charges the in-order model at MM_IPC");

/*
 * The code blocks of the page allocator (docs/design/cost-model.md §1,
 * "Blocks"; cost/cpu.h): X(name, work row, accesses, exit), one per
 * stretch of straight-line code that starts with a work row; every work
 * row is charged through one (a row can start several blocks).  Its uops
 * are the row's (in the world's code layout), its accesses the word
 * loads and stores it makes unconditionally before its exit, in program
 * order ("D" a load the next step waits for, "L" an independent load,
 * "S" a store: the kinds at the call sites), its exit the site of the
 * branch that ends it, or -1 when a call, a return or the next block
 * does.  mm_world_create() costs each once (cpu_block_init()); the code
 * charges it with run_block() and makes the declared accesses with
 * bmem()/bmem_page().  Accesses a block makes only on some paths or
 * from a shared helper (the list helpers, zonerefs, the loops over
 * nodemask words) and accesses outside blocks stay plain mem() steps,
 * charged one by one, with the same results.  The reclaim rows
 * (VM_WORK, vwork()) are not blocks.
 * The order of a block's accesses is stated once, here, and the code is
 * checked against it: in debug builds cpu_block_take() asserts that each
 * bmem() of the open block has the declared kind, in order, and
 * cpu_block_exit() that none is missing and that the block ends at its
 * declared exit (exact in-order accounting precharges every block, so the
 * tests' debug builds run every description).  The table is not split
 * beside the functions because the world costs every block once at set-up
 * (mm_init.c) from it; a second statement beside the code could drift
 * where the run-time check cannot.
 */
#define MM_BLOCKS(X)                                                           \
	X(alloc_pages_current, alloc_pages_current, "", S_A02a) /* mempolicy.c */ \
	X(alloc_nodemask, alloc_nodemask, "", S_A09)                           \
	X(gpfl_entry, gpfl_entry, "", -1)       /* first_zones_zonelist */     \
	X(gpfl_zone, gpfl_zone, "", S_A24a)                                    \
	X(nzl_inline, nzl_inline, "", S_nzl_inline_nodes) /* mmzone.c */       \
	X(nzl_body, nzl_body, "", S_nzl_nodes_null)                            \
	X(nzl_step, nzl_step, "", S_nzl_idx)                                   \
	X(nzl_mask_step, nzl_step, "", S_nzl_mask_idx)                         \
	X(watermark, watermark, "L", S_A30a)                                   \
	X(buffered_pcp, buffered_pcp, "DD", S_A36a)                            \
	X(mod_zone_page_state, mod_zone_page_state, "DDS", S_A39a) /* vmstat.c */ \
	X(zone_statistics_v46, zone_statistics, "LD", S_A42d)                  \
	X(zone_statistics, zone_statistics, "", S_A42a)                        \
	X(inc_zone_state, inc_zone_state, "DDS", S_A42c)                       \
	X(prep_new_page, prep_new_page, "S", S_A45i)                           \
	X(free_pages, free_pages, "", S_F02)                                   \
	X(free_hot_cold_page, free_hot_cold_page, "", -1) /* free_pages_prepare */ \
	X(free_pages_prepare, free_pages_prepare, "", S_F05a)                  \
	X(pfnblock, pfnblock, "D", -1)          /* its return */             \
	/* the pcp refill and drain (the buddy allocator under zone->lock) */ \
	X(rmqueue_bulk, rmqueue_bulk, "", -1)   /* cpu_lock */                 \
	X(rmqueue_bulk_page, rmqueue_bulk_page, "", -1) /* __rmqueue */       \
	X(rmqueue, rmqueue, "", -1)             /* __rmqueue_smallest */       \
	X(smallest_probe, smallest_probe, "D", S_smallest_empty)               \
	X(smallest_take, smallest_take, "S", -1) /* expand */                  \
	X(expand_step, expand_step, "S", S_expand_loop)                        \
	X(pcpbulk, pcpbulk, "", -1)             /* cpu_lock */                 \
	X(pcpbulk_search, pcpbulk_search, "", S_pcpbulk_wrap)                  \
	X(pcpbulk_page, pcpbulk_page, "D", S_pcpbulk_isolate)                  \
	X(free_one_entry, free_one_entry, "", S_free_one_isolate)              \
	X(free_one_merge, free_one_merge, "", S_page_is_buddy_flag)            \
	X(free_one_done, free_one_done, "S", S_free_one_tail_order)            \
	/* every other work row of the page allocator */                      \
	X(buffered_buddy, buffered_buddy, "", -1) /* cpu_lock */               \
	X(move_freepages_page, move_freepages_page, "D", S_move_freepages_buddy) \
	X(steal, steal, "", S_steal_order_pb)                                  \
	X(fallback_probe, fallback_probe, "", -1)                              \
	X(watermark_order, watermark_order, "D", S_wmark_nr_free)              \
	X(reset_batch_zone, reset_batch_zone, "", -1)                          \
	X(gpfl_after, gpfl_after, "", S_gpfl_fair)                             \
	X(slowpath, slowpath, "", S_slowpath_order)                            \
	X(cond_resched, cond_resched, "", S_A11b)                              \
	X(free_pages_ok, free_pages_ok, "", -1)  /* free_pages_prepare */      \
	X(mod_zone_page_state_irq, mod_zone_page_state, "DS", S_mod_state_fold) /* vmstat.c */ \
	X(inc_zone_page_state, mod_zone_page_state, "DDS", S_mod_state_fold)  \
	X(cpuset_node_allowed, cpuset_node_allowed, "", S_cpuset_in_interrupt) /* cpuset.c */ \
	X(find_next_bit, find_next_bit, "", -1)  /* mempolicy.c */             \
	X(interleave_nodes, interleave_nodes, "D", -1) /* find_next_node */    \
	X(alloc_page_interleave, alloc_page_interleave, "", S_A06c)            \
	X(policy_nodemask, policy_nodemask, "", S_A07c)                        \
	/* the 2016 series */                                                 \
	X(alloc_nodemask_16, alloc_nodemask_16, "", S_A09) /* from v3 16 */   \
	X(gpfl_entry_21, gpfl_entry, "", S_A23) /* v3 21: no first_zones_zonelist */ \
	X(prep_new_page_23, prep_new_page_23, "S", S_A45i) /* v3 23 .. 27 */  \
	X(prep_new_page_28, prep_new_page_28, "S", S_A45i) /* from v3 28 */   \
	X(free_pages_prepare_23, free_pages_prepare_23, "", S_F05a) /* from v3 23 */

enum mm_block {
#define MM_BLOCK_ENUM(name, row, kinds, exit) B_##name,
	MM_BLOCKS(MM_BLOCK_ENUM)
#undef MM_BLOCK_ENUM
	MM_NR_BLOCK
};

/* The blocks of the series' code that end at a series site (exits in
 * MM_SERIES_SITES' numbering; costed by mm_series_attach()). */
#define MM_SERIES_BLOCKS(X)                                                    \
	X(free_pages_compound, free_pages_compound, "D", SS_F05p) \
	X(dec_zone_state, dec_zone_state, "DDS", SS_A39c) \
	X(gpfl_after_19, gpfl_after_19, "", SS_gpfl_fair_skipped_19) \
	X(watermark_fast, watermark_fast, "L", SS_A30f) \
	X(expected_state_new, page_expected_state, "", SS_A45s) \
	X(expected_state_free, page_expected_state, "", SS_F05s)
enum mm_sblock {
#define MM_SBLOCK_ENUM(name, row, kinds, exit) SB_##name,
	MM_SERIES_BLOCKS(MM_SBLOCK_ENUM)
#undef MM_SBLOCK_ENUM
	MM_NR_SBLOCK
};

/* The work rows of a layout (enum mm_code, resolved: not MM_CODE_DEFAULT)
 * for variant v, into work[MM_NR_WORK]. */
static inline void mm_work_layout(enum mm_code code, enum mmzone_iter v, uint32_t *work)
{
	static const uint32_t rows[][3] = {
#define MM_WORK_ROW(name, e, pre, post) {e, pre, post},
		MM_WORK(MM_WORK_ROW)
#undef MM_WORK_ROW
	};
	cost_work_column(rows, MM_NR_WORK, code != MM_CODE_COMPILED ? COST_WORK_EST
					   : v == MMZONE_ITER_PRE ? COST_WORK_PRE : COST_WORK_POST,
			 work);
}

#endif
