/*
 * slub_copy — the SLUB model's fast copies, for sampled accounting
 * (cost.accounting sampled, cost/cpu.h "Sampled accounting"; the
 * mechanism, its rules and why: cost/copy.h; the page allocator's are
 * models/mm_copy.c, and these follow them).
 *
 * This translation unit is SLUB's hot file, models/slub.c (the kernel's
 * allocation and free paths), compiled twice more by models/meson.build
 * with COPY_MODE 1 (the copy for cost.sample_warm caches and stores) and
 * 2 (for none).  There the charging helpers of slub.c are a fast call's
 * (SLUB_CHARGE with COPY_CHARGE: a branch counted and signed, a call
 * counted and signed, a block, work, a return, an irq save or restore
 * and a this_cpu cmpxchg nothing, an access and a locked op through the
 * caches only in copy 1 and nothing in copy 2), the kernel functions a
 * cold file calls are static (COPY_PRIVATE in slub_internal.h), and only
 * the entries are renamed: slub_alloc_fast, slub_free_valid_fast (copy 1)
 * and slub_alloc_fastn, slub_free_valid_fastn (copy 2), which the
 * ordinary slub_alloc() and slub_free() run when cpu_fast_entry() says
 * their top-level call will be fast (fast_entry(), COPY_CALL); slub_free
 * itself is an entry too, and its copies are never called.  Locks and the
 * clock as noise stay the ordinary cpu.c calls, which handle a fast call
 * themselves.  Set-up, introspection and the trace's recording
 * (slub_setup.c, slub_inspect.c) are not copied: a copy calls the
 * ordinary ones.  A copy never runs while numasim trace may record a
 * __slab_free (the trace's hooks are in the ordinary code only), and
 * SLUB's ids are not constants (its tables follow the page allocator's),
 * so each step adds the world's base.
 *
 * The copy's results are the ordinary code's, bit for bit (test_slub's
 * test_fast_copy runs the same workload with the copy on and off and
 * compares every count).
 */
#if !defined(COPY_MODE)
#error "models/slub_copy.c is built only as a fast copy (COPY_MODE 1 or 2: models/meson.build)"
#endif

#include "models/slub.c"
