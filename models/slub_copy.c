/*
 * slub_fast — SLUB's fast copy, for sampled accounting (cost.accounting
 * sampled, cost/cpu.h "Sampled accounting"); the page allocator's is
 * models/mm_fast.h, and this one follows it.
 *
 * A fast call (one top-level call not sampled) charges no cost of its
 * own: it counts its branches and calls, sums its path signature and,
 * under cost.sample_warm caches or stores, performs its memory accesses
 * (or only its stores and locked ops) on the caches.  Run through the
 * ordinary code, every step of slub.c still tests the accounting mode
 * out of line (br() and call() through cpu_branch() and cpu_call(), each
 * block through cpu_block(), each return, irq save and this_cpu cmpxchg
 * through cpu.c) and computes its arguments first.  So slub.c, SLUB's
 * hot file, is compiled twice more (models/meson.build), with
 * SLUB_FAST_COPY 1 (for warming) and 2 (for none), which make its
 * charging helpers a fast call's (cost/charge.h's CHARGE_COPY_WARM and
 * CHARGE_COPY_NOMEM): there br() is cpu_fast_branch(), call() is
 * cpu_copy_call(), a block, straight-line work, a return, an irq save or
 * restore and a this_cpu cmpxchg are nothing, and an access is
 * cpu_fast_mem() (copy 1) or nothing (copy 2, where the compiler drops
 * the access with its address); a locked op is cpu_atomic() (copy 1)
 * or nothing (copy 2).  Locks and the clock as noise stay the ordinary
 * cpu.c calls, which handle a fast call themselves.  Every function the copy defines is renamed by the list
 * below to slub_fast_NAME or slub_fastn_NAME.
 *
 * The entries slub_alloc() and slub_free() run a copy (slub_alloc(),
 * slub_free_valid(): the free of an object slub_free() has validated)
 * when cpu_fast_entry() says their top-level call will be fast, which
 * starts the fast call there (slub.c's fast_entry() and SLUB_FAST_CALL);
 * the entry ends it with cpu_fast_end() when the copy returns.  Unlike
 * the page allocator's copy, SLUB's ids are not constants (its tables
 * follow the page allocator's), so each step adds the world's base.
 * Never while numasim trace may record a __slab_free (w->trace): the
 * trace's hooks are in the ordinary code only.
 *
 * The copy's results are the ordinary code's, bit for bit
 * (test_slub's test_fast_copy runs the same workload with the copy on
 * and off and compares every count).
 *
 * The list: every external symbol of slub.c, the hot file, which is the
 * only file the copies compile (set-up, introspection and the trace's
 * recording, in slub_setup.c and slub_inspect.c, are shared by the
 * ordinary code and both copies).  One left out is defined three times
 * and the link fails; a new entry there needs its line.
 */
#ifndef NUMASIM_SLUB_FAST_H
#define NUMASIM_SLUB_FAST_H

/* SLUB_FAST_COPY 1: the copy for cost.sample_warm caches and stores
 * (slub_fast_NAME); 2: for none (slub_fastn_NAME).  As in mm_fast.h,
 * each line pastes the prefix to the name itself. */
#if SLUB_FAST_COPY == 2
#define SLUB_FAST_PREFIX slub_fastn_
#else
#define SLUB_FAST_PREFIX slub_fast_
#endif
#define SLUB_FAST_CAT_(a, b) a##b
#define SLUB_FAST_CAT(a, b) SLUB_FAST_CAT_(a, b)
#define SLUB_FAST_NAME(name) SLUB_FAST_CAT(SLUB_FAST_PREFIX, name)

#define slub_alloc           SLUB_FAST_NAME(alloc)
#define slub_flush_cpu       SLUB_FAST_NAME(flush_cpu)
#define slub_free            SLUB_FAST_NAME(free)
#define slub_free_bulk       SLUB_FAST_NAME(free_bulk)
#define slub_free_valid      SLUB_FAST_NAME(free_valid)

#endif
