/*
 * mm_fast — the page allocator model's fast copy, for sampled accounting
 * (cost.accounting sampled, sim/hw/cpu.h "Sampled accounting").
 *
 * A fast call (one top-level call not sampled) charges no cost of its
 * own: it counts its branches and calls and sums its path signature,
 * and performs its memory accesses on the caches only under
 * cost.sample_warm caches.  Run through the ordinary model code, every
 * primitive still tests the accounting mode, and the model still computes
 * the primitives' arguments (addresses, home nodes, work rows) before the
 * test.  So page_alloc.c, mmzone.c, mempolicy.c, vmstat.c and cpuset.c
 * are compiled a second time with MM_FAST_COPY defined (models/meson.build):
 * there the charging helpers of mm_internal.h are those of a fast call
 * (MM_FAST is 1), the compiler drops the work and, under `none`, the
 * memory accesses together with their arguments, and every function this
 * copy defines is renamed by the list below to mm_fast_NAME, so the copy
 * calls its own functions.  The entries mm_alloc_pages() and
 * mm_free_pages() run the copy when cpu_fast_entry() says their
 * top-level call will be fast (MM_FAST_ENTRY); the copy's first call()
 * starts the fast call as any other (cpu_memo_begin()).
 *
 * The copy's results are the ordinary code's, bit for bit: it performs
 * the same steps a fast call performs there (test_page_alloc runs the
 * same workload with the copy on and off and compares every count).
 *
 * The list: every external symbol of those five files.  One left out is
 * defined twice and the link fails; a new function in those files needs
 * its line here.
 */
#ifndef NUMASIM_MM_FAST_H
#define NUMASIM_MM_FAST_H

#define __alloc_pages_nodemask     mm_fast___alloc_pages_nodemask
#define __cpuset_node_allowed      mm_fast___cpuset_node_allowed
#define __mod_zone_page_state      mm_fast___mod_zone_page_state
#define alloc_pages_current        mm_fast_alloc_pages_current
#define compute_min_free           mm_fast_compute_min_free
#define drain_all_pages            mm_fast_drain_all_pages
#define first_zones_zonelist       mm_fast_first_zones_zonelist
#define free_hot_cold_page_ext     mm_fast_free_hot_cold_page_ext
#define get_page_from_freelist_ext mm_fast_get_page_from_freelist_ext
#define gfp_parse                  mm_fast_gfp_parse
#define inc_zone_page_state        mm_fast_inc_zone_page_state
#define mm_alloc_pages             mm_fast_mm_alloc_pages
#define mm_check                   mm_fast_mm_check
#define mm_counters                mm_fast_mm_counters
#define mm_drain_local_pages       mm_fast_mm_drain_local_pages
#define mm_free_pages              mm_fast_mm_free_pages
#define mm_layout                  mm_fast_mm_layout
#define mm_layout_is_compiled      mm_fast_mm_layout_is_compiled
#define mm_lock_stats              mm_fast_mm_lock_stats
#define mm_min_free_kbytes         mm_fast_mm_min_free_kbytes
#define mm_page_node               mm_fast_mm_page_node
#define mm_page_pfn                mm_fast_mm_page_pfn
#define mm_page_vaddr              mm_fast_mm_page_vaddr
#define mm_register                mm_fast_mm_register
#define mm_set_trace_hook          mm_fast_mm_set_trace_hook
#define mm_zone_get_info           mm_fast_mm_zone_get_info
#define mm_zonelist_walk           mm_fast_mm_zonelist_walk
#define mmzone_iter_name           mm_fast_mmzone_iter_name
#define mmzone_iter_parse          mm_fast_mmzone_iter_parse
#define mod_zone_page_state        mm_fast_mod_zone_page_state
#define mpol_name                  mm_fast_mpol_name
#define mpol_parse                 mm_fast_mpol_parse
#define next_zones_zonelist        mm_fast_next_zones_zonelist
#define setup_mempolicy            mm_fast_setup_mempolicy
#define setup_nodemask             mm_fast_setup_nodemask
#define setup_pcp_sizes            mm_fast_setup_pcp_sizes
#define stat_threshold             mm_fast_stat_threshold
#define vmstat_numa_rule_name      mm_fast_vmstat_numa_rule_name
#define vmstat_numa_rule_parse     mm_fast_vmstat_numa_rule_parse
#define zone_statistics            mm_fast_zone_statistics
#define zone_watermark_ok_ext      mm_fast_zone_watermark_ok_ext

#endif
