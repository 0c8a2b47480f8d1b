/*
 * mm_copy — the page allocator model's fast copies, for sampled
 * accounting (cost.accounting sampled, cost/cpu.h "Sampled accounting";
 * the mechanism, its rules and why: cost/copy.h).
 *
 * This translation unit is the model's hot files (the kernel functions),
 * compiled twice more by models/meson.build with COPY_MODE 1 (the copy
 * for cost.sample_warm caches and stores: cpu_fast_mem() skips the loads
 * under stores) and 2 (for none, with no memory access at all).  There
 * the charging helpers of mm_internal.h are those of a fast call
 * (MM_CHARGE with COPY_CHARGE), the functions one hot file calls in
 * another are static (COPY_PRIVATE in mm_internal.h), and only the
 * entries are renamed: mm_alloc_pages_fast / mm_free_pages_fast (copy 1)
 * and mm_alloc_pages_fastn / mm_free_pages_fastn (copy 2), which the
 * ordinary mm_alloc_pages() and mm_free_pages() run when
 * cpu_fast_entry() says their top-level call will be fast (fast_entry(),
 * COPY_CALL).  Reclaim (vmscan.c) and the cold files (mm_init.c,
 * mm_info.c) are not copied: a copy calls their ordinary functions.
 *
 * The copy's results are the ordinary code's, bit for bit: it performs
 * the same steps a fast call performs there (test_page_alloc runs the
 * same workload with the copies on and off and compares every count).
 */
#if !defined(COPY_MODE)
#error "models/mm_copy.c is built only as a fast copy (COPY_MODE 1 or 2: models/meson.build)"
#endif

#include "models/page_alloc.c"
#include "models/mmzone.c"
#include "models/mempolicy.c"
#include "models/vmstat.c"
#include "models/cpuset.c"
