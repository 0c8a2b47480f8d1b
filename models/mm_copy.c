/*
 * mm_fast — the page allocator model's fast copy, for sampled accounting
 * (cost.accounting sampled, cost/cpu.h "Sampled accounting").
 *
 * A fast call (one top-level call not sampled) charges no cost of its
 * own: it counts its branches and calls and sums its path signature,
 * and performs its memory accesses on the caches only under
 * cost.sample_warm caches (its stores and locked ops only under stores).  Run through the ordinary model code, every
 * primitive still tests the accounting mode, and the model still computes
 * the primitives' arguments (addresses, home nodes, work rows) before the
 * test.  So page_alloc.c, mmzone.c, mempolicy.c, vmstat.c and cpuset.c
 * are compiled twice more (models/meson.build), with MM_FAST_COPY 1 (for
 * warming) and 2 (for none): there the charging helpers of mm_internal.h
 * are those of a fast call (MM_FAST is 1), the compiler drops the work
 * and, in copy 2, the memory accesses together with their arguments, and
 * every function a copy defines is renamed by the list below to
 * mm_fast_NAME or mm_fastn_NAME, so each copy calls its own functions.
 * The entries mm_alloc_pages() and mm_free_pages() run a copy when
 * cpu_fast_entry() says their top-level call will be fast, which starts
 * the fast call there (mm_internal.h's fast_entry() and MM_FAST_CALL);
 * the entry ends it when the copy returns (cpu_fast_end()).  So inside
 * a copy every call() is a fast call's (cpu_copy_call(): no depth is
 * kept) and a return, an irq save or restore and a this_cpu cmpxchg are
 * nothing, as they are in any fast call.
 *
 * The copy's results are the ordinary code's, bit for bit: it performs
 * the same steps a fast call performs there (test_page_alloc runs the
 * same workload with the copy on and off and compares every count).
 *
 * The list: every external symbol of those five files.  One left out is
 * defined three times and the link fails; a new function in those files
 * needs its line here.
 */
#ifndef NUMASIM_MM_FAST_H
#define NUMASIM_MM_FAST_H

/* MM_FAST_COPY 1: the copy for cost.sample_warm caches and stores
 * (mm_fast_NAME; cpu_fast_mem() skips the loads under stores);
 * 2: for none, with no memory access at all (mm_fastn_NAME).  A name in
 * its own replacement is not replaced again (C11 6.10.3.4), so each line
 * below pastes the prefix to the name itself. */
#if MM_FAST_COPY == 2
#define MM_FAST_PREFIX mm_fastn_
#else
#define MM_FAST_PREFIX mm_fast_
#endif
#define MM_FAST_CAT_(a, b) a##b
#define MM_FAST_CAT(a, b) MM_FAST_CAT_(a, b)
#define MM_FAST_NAME(name) MM_FAST_CAT(MM_FAST_PREFIX, name)

#define __alloc_pages_nodemask     MM_FAST_NAME(__alloc_pages_nodemask)
#define __cpuset_node_allowed      MM_FAST_NAME(__cpuset_node_allowed)
#define __mod_zone_page_state      MM_FAST_NAME(__mod_zone_page_state)
#define alloc_pages_current        MM_FAST_NAME(alloc_pages_current)
#define drain_all_pages            MM_FAST_NAME(drain_all_pages)
#define drain_local_pages          MM_FAST_NAME(drain_local_pages)
#define first_zones_zonelist       MM_FAST_NAME(first_zones_zonelist)
#define free_hot_cold_page_ext     MM_FAST_NAME(free_hot_cold_page_ext)
#define get_page_from_freelist_ext MM_FAST_NAME(get_page_from_freelist_ext)
#define inc_zone_page_state        MM_FAST_NAME(inc_zone_page_state)
#define mm_alloc_pages             MM_FAST_NAME(mm_alloc_pages)
#define mm_free_pages              MM_FAST_NAME(mm_free_pages)
#define mod_zone_page_state        MM_FAST_NAME(mod_zone_page_state)
#define next_zones_zonelist        MM_FAST_NAME(next_zones_zonelist)
#define stat_threshold             MM_FAST_NAME(stat_threshold)
#define zone_statistics            MM_FAST_NAME(zone_statistics)
#define zone_watermark_ok_ext      MM_FAST_NAME(zone_watermark_ok_ext)

#endif
