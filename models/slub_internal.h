/*
 * slub_internal — what the files of the SLUB model share (in the manner of
 * SQLite's btreeInt.h and the page allocator's mm_internal.h): the Linux
 * v5.9 SLUB of models/slub.h, split as
 *   models/slub.c          the kernel's allocation and free paths
 *                          (slab_alloc_node .. ___slab_alloc, slab_free ..
 *                          __slab_free, put_cpu_partial, unfreeze_partials,
 *                          deactivate_slab, get_partial*, new_slab*), the
 *                          only file the fast copies compile again;
 *   models/slub_setup.c    names, the cost tables, kmem_cache_create's
 *                          geometry, the world's set-up and teardown;
 *   models/slub_inspect.c  introspection, counters, slub_check(), and the
 *                          trace's recording behind models/slub_hook.h
 *                          (__slab_free's instrumentation, which only
 *                          slub.c includes).
 * Only those files include it; everything else uses models/slub.h.
 *
 * It holds the X-macro tables, single-sourced here: SLUB_FUNCS and
 * SLUB_INLINE_FUNCS (the model's functions in the cost tables), SLUB_SITES
 * (branch sites: their order is their id), SLUB_WORK (straight-line work)
 * and SLUB_BLOCKS (the code blocks); the arrays made from them are defined
 * once, in slub_setup.c.  Then the layouts of the kernel structures the
 * model charges accesses to (their offsets derived with offsetof), the
 * model's state, small accessors (static inline: they run at every step),
 * and the functions one file calls in another.
 *
 * Invariants and error policy: those of models/slub.h.
 */
#ifndef NUMASIM_SLUB_INTERNAL_H
#define NUMASIM_SLUB_INTERNAL_H

#include "cost/charge.h"
#include "cost/copy.h"
#include "models/slub.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define NIL16 0xFFFFu
#define NIL32 UINT32_MAX
#define MAX_OBJS_PER_PAGE 32767u
#define SLUB_MAX_CACHES 64
#define SLUB_NAME_MAX 32
#define SLUB_MIN_PARTIAL 5
#define SLUB_MAX_PARTIAL 10
#define SLUB_REMOTE_DEFRAG_RATIO 1000u  /* 100 * 10 */

/* --- the kernel structures' layouts (x86-64, v5.9) ---------------------------- */

/*
 * The fields of the simulated kernel's structures that the model charges
 * accesses to, at the kernel's offsets (pahole of a v5.9 x86-64 build,
 * CONFIG_SLUB_CPU_PARTIAL, CONFIG_SLUB_STATS, CONFIG_SLUB_DEBUG); the
 * offsets the code uses are offsetof() these, pinned below.  Fields the
 * model never touches are padding.
 */

/* struct page as a slab page uses it (include/linux/mm_types.h). */
struct slub_page_layout {
	uint64_t flags;
	uint64_t slab_list;            /* slab_list.next / next (per-cpu partial) */
	int32_t pages, pobjects;       /* slab_list.prev / pages, pobjects */
	uint64_t slab_cache;
	uint64_t freelist;             /* freelist + counters: cmpxchg_double */
	uint64_t counters;             /* inuse:16, objects:15, frozen:1 */
	uint64_t refcount_memcg[2];    /* _refcount, mem_cgroup */
};
#define STRUCT_PAGE_SIZE ((unsigned)sizeof(struct slub_page_layout))
#define PAGE_OFF_LRU ((unsigned)offsetof(struct slub_page_layout, slab_list))
#define PAGE_OFF_NEXT_PAGES ((unsigned)offsetof(struct slub_page_layout, pages))
#define PAGE_OFF_SLAB_CACHE ((unsigned)offsetof(struct slub_page_layout, slab_cache))
#define PAGE_OFF_FREELIST ((unsigned)offsetof(struct slub_page_layout, freelist))
_Static_assert(sizeof(struct slub_page_layout) == 64, "struct page is 64 bytes");
_Static_assert(offsetof(struct slub_page_layout, slab_list) == 8 &&
	       offsetof(struct slub_page_layout, pages) == 16 &&
	       offsetof(struct slub_page_layout, slab_cache) == 24 &&
	       offsetof(struct slub_page_layout, freelist) == 32,
	       "struct page's slab fields at v5.9's offsets");

/* struct kmem_cache_cpu (include/linux/slub_def.h); the model gives each
 * KCPU_SIZE bytes (the per-cpu allocation's room). */
struct slub_kmem_cache_cpu_layout {
	uint64_t freelist;
	uint64_t tid;
	uint64_t page;
	uint64_t partial;
	uint32_t stat[SLUB_NR_STATS];
};
#define KCPU_SIZE 192u
#define KCPU_OFF_FREELIST ((unsigned)offsetof(struct slub_kmem_cache_cpu_layout, freelist))
#define KCPU_OFF_TID ((unsigned)offsetof(struct slub_kmem_cache_cpu_layout, tid))
#define KCPU_OFF_PAGE ((unsigned)offsetof(struct slub_kmem_cache_cpu_layout, page))
#define KCPU_OFF_PARTIAL ((unsigned)offsetof(struct slub_kmem_cache_cpu_layout, partial))
#define KCPU_OFF_STAT ((unsigned)offsetof(struct slub_kmem_cache_cpu_layout, stat))
#define KCPU_STAT_SIZE ((unsigned)sizeof(((struct slub_kmem_cache_cpu_layout *)0)->stat[0]))
_Static_assert(sizeof(struct slub_kmem_cache_cpu_layout) <= KCPU_SIZE,
	       "struct kmem_cache_cpu fits its room");
_Static_assert(offsetof(struct slub_kmem_cache_cpu_layout, freelist) == 0 &&
	       offsetof(struct slub_kmem_cache_cpu_layout, tid) == 8 &&
	       offsetof(struct slub_kmem_cache_cpu_layout, page) == 16 &&
	       offsetof(struct slub_kmem_cache_cpu_layout, partial) == 24 &&
	       offsetof(struct slub_kmem_cache_cpu_layout, stat) == 32,
	       "struct kmem_cache_cpu at v5.9's offsets");

/* struct kmem_cache_node (mm/slab.h). */
struct slub_kmem_cache_node_layout {
	uint32_t list_lock;
	uint64_t nr_partial;
	uint64_t partial[2];           /* struct list_head */
	uint64_t nr_slabs;             /* atomic_long_t */
	uint64_t total_objects;        /* atomic_long_t */
	uint64_t full[2];
};
#define KNODE_SIZE ((unsigned)sizeof(struct slub_kmem_cache_node_layout))
#define KNODE_OFF_NR_PARTIAL ((unsigned)offsetof(struct slub_kmem_cache_node_layout, nr_partial))
#define KNODE_OFF_PARTIAL ((unsigned)offsetof(struct slub_kmem_cache_node_layout, partial))
#define KNODE_OFF_NR_SLABS ((unsigned)offsetof(struct slub_kmem_cache_node_layout, nr_slabs))
#define KNODE_OFF_TOTAL_OBJECTS                                                \
	((unsigned)offsetof(struct slub_kmem_cache_node_layout, total_objects))
_Static_assert(sizeof(struct slub_kmem_cache_node_layout) == 64 &&
	       offsetof(struct slub_kmem_cache_node_layout, nr_partial) == 8 &&
	       offsetof(struct slub_kmem_cache_node_layout, partial) == 16 &&
	       offsetof(struct slub_kmem_cache_node_layout, nr_slabs) == 32 &&
	       offsetof(struct slub_kmem_cache_node_layout, total_objects) == 40,
	       "struct kmem_cache_node at v5.9's offsets");

/* struct kmem_cache (include/linux/slub_def.h): the fields up to oo at
 * their offsets; node[] is placed at 256 (the fields between, allocflags
 * to usersize with the sysfs kobject, take about 200 bytes), with room
 * for 32 nodes' pointers. */
struct slub_kmem_cache_layout {
	uint64_t cpu_slab;
	uint32_t flags;
	uint64_t min_partial;
	uint32_t size, object_size, offset;
	uint32_t cpu_partial;
	uint32_t oo, max, min;
	uint8_t unmodelled[204];       /* allocflags .. usersize */
	uint64_t node[32];
};
#define KCACHE_SIZE ((unsigned)sizeof(struct slub_kmem_cache_layout))
#define KCACHE_OFF_FLAGS ((unsigned)offsetof(struct slub_kmem_cache_layout, flags))
#define KCACHE_OFF_MIN_PARTIAL ((unsigned)offsetof(struct slub_kmem_cache_layout, min_partial))
#define KCACHE_OFF_CPU_PARTIAL ((unsigned)offsetof(struct slub_kmem_cache_layout, cpu_partial))
#define KCACHE_OFF_NODE ((unsigned)offsetof(struct slub_kmem_cache_layout, node))
_Static_assert(sizeof(struct slub_kmem_cache_layout) == 512 &&
	       offsetof(struct slub_kmem_cache_layout, flags) == 8 &&
	       offsetof(struct slub_kmem_cache_layout, min_partial) == 16 &&
	       offsetof(struct slub_kmem_cache_layout, cpu_partial) == 36 &&
	       offsetof(struct slub_kmem_cache_layout, oo) == 40 &&
	       offsetof(struct slub_kmem_cache_layout, node) == 256,
	       "struct kmem_cache at the model's offsets");

/* --- cost tables ------------------------------------------------------------- */

/* --- cost tables ----------------------------------------------------------- */

#define SLUB_FUNCS(X)                                                          \
	X(kmem_cache_alloc)                                                    \
	X(slab_alloc_node)                                                     \
	X(__slab_alloc)                                                        \
	X(___slab_alloc)                                                       \
	X(get_freelist)                                                        \
	X(new_slab_objects)                                                    \
	X(get_partial)                                                         \
	X(get_partial_node)                                                    \
	X(get_any_partial)                                                     \
	X(acquire_slab)                                                        \
	X(new_slab)                                                            \
	X(allocate_slab)                                                       \
	X(flush_slab)                                                          \
	X(deactivate_slab)                                                     \
	X(kmem_cache_free)                                                     \
	X(kfree)                                                               \
	X(kmem_cache_free_bulk)                                                \
	X(slab_free)                                                           \
	X(do_slab_free)                                                        \
	X(__slab_free)                                                         \
	X(put_cpu_partial)                                                     \
	X(unfreeze_partials)                                                   \
	X(discard_slab)                                                        \
	X(__free_slab)                                                         \
	X(add_partial)                                                         \
	X(remove_partial)                                                      \
	X(remove_full)

/* Inlined in a distribution build (static inline / single caller); the
 * rest are out-of-line symbols that show up in perf profiles of 5.9. */
#define SLUB_INLINE_FUNCS(X)                                                   \
	X(slab_alloc_node) X(__slab_alloc) X(get_freelist) X(new_slab_objects) \
	X(get_partial) X(get_any_partial) X(acquire_slab) X(new_slab)          \
	X(flush_slab) X(slab_free) X(do_slab_free) X(discard_slab)             \
	X(add_partial) X(remove_partial) X(remove_full)

/*
 * Sites: X(id, description, hint, fall-through with gcc, with clang).
 * hint N/L/U; fall-through T = the condition true falls through (the
 * then-block follows the test), F = false falls through (the body is a
 * jump: goto/break/return, or a rotated loop's continue test), H = the
 * hinted outcome.  PRE6b is the only site whose layout differs between
 * the compilers (slub-free.md §4.2: for the FREE_FROZEN case GCC falls
 * through all of PRE's tests, clang takes a branch on was_frozen).
 */
#define SLUB_SITES(X)                                                          \
	X(S0, "__slab_free: kmem_cache_debug(s) (static key)", U, H, H)        \
	X(S1, "__slab_free: unlikely(n) -> spin_unlock_irqrestore (retry)", U, H, H) \
	X(S2a, "__slab_free: !new.inuse", N, T, T)                             \
	X(S2b, "__slab_free: !prior", N, T, T)                                 \
	X(S2c, "__slab_free: !was_frozen", N, T, T)                            \
	X(S3a, "__slab_free: kmem_cache_has_cpu_partial(s)", N, T, T)          \
	X(S3b, "__slab_free: !prior (freeze the full slab)", N, T, T)          \
	X(S4, "__slab_free: !cmpxchg_double_slab() -> retry", N, F, F)         \
	X(S5, "__slab_free: likely(!n)", L, H, H)                              \
	X(PRE6a, "PRE __slab_free: new.frozen", N, T, T)                       \
	X(PRE6b, "PRE __slab_free: !was_frozen", N, F, T)                      \
	X(PRE7, "PRE __slab_free: was_frozen (stat FREE_FROZEN)", N, T, T)     \
	X(POST6, "POST __slab_free: likely(was_frozen)", L, H, H)              \
	X(POST7, "POST __slab_free: new.frozen", N, T, T)                      \
	X(S8a, "__slab_free: unlikely(!new.inuse && ...)", U, H, H)            \
	X(S8b, "__slab_free: unlikely(... && n->nr_partial >= s->min_partial)", U, H, H) \
	X(S9a, "__slab_free: !kmem_cache_has_cpu_partial(s)", N, T, T)         \
	X(S9b, "__slab_free: unlikely(!prior)", U, H, H)                       \
	X(S10, "__slab_free slab_empty: prior", N, T, T)                       \
	X(P1, "put_cpu_partial: oldpage", N, T, T)                             \
	X(P2a, "put_cpu_partial: drain", N, T, T)                              \
	X(P2b, "put_cpu_partial: pobjects > s->cpu_partial", N, T, T)          \
	X(P3, "put_cpu_partial: unlikely(!slub_cpu_partial(s))", U, H, H)      \
	X(U1, "unfreeze_partials: unlikely(!new.inuse && n->nr_partial >= s->min_partial)", U, H, H) \
	X(uf_loop, "unfreeze_partials: (page = slub_percpu_partial(c))", N, T, T) \
	X(uf_node, "unfreeze_partials: n != n2", N, T, T)                      \
	X(uf_discard, "unfreeze_partials: while (discard_page)", N, T, T)      \
	X(free_fast, "do_slab_free: likely(page == c->page)", L, H, H)         \
	X(alloc_slow, "slab_alloc_node: unlikely(!object || !node_match(page, node))", U, H, H) \
	X(sa_nopage, "___slab_alloc: !page -> new_slab", N, F, F)              \
	X(sa_node_mismatch, "___slab_alloc: unlikely(!node_match(page, node))", U, H, H) \
	X(sa_pfmemalloc, "___slab_alloc: unlikely(!pfmemalloc_match(page, gfpflags))", U, H, H) \
	X(sa_freelist, "___slab_alloc: freelist = c->freelist -> load", N, F, F) \
	X(sa_empty, "___slab_alloc: !freelist after get_freelist -> new_slab", N, F, F) \
	X(sa_cpu_partial, "___slab_alloc: slub_percpu_partial(c)", N, T, T)    \
	X(sa_no_objects, "___slab_alloc: unlikely(!freelist) after new_slab_objects", U, H, H) \
	X(sa_nodebug, "___slab_alloc: likely(!kmem_cache_debug(s) && pfmemalloc_match())", L, H, H) \
	X(nso_partial, "new_slab_objects: freelist from get_partial -> return", N, F, F) \
	X(nso_page, "new_slab_objects: page", N, T, T)                         \
	X(nso_flush, "new_slab_objects: c->page -> flush_slab", N, T, T)       \
	X(gp_any, "get_partial: object || node != NUMA_NO_NODE -> return", N, F, F) \
	X(gpn_empty, "get_partial_node: !n || !n->nr_partial -> return NULL", N, F, F) \
	X(gpn_next, "get_partial_node: list_for_each_entry_safe", N, T, T)     \
	X(gpn_acq_fail, "get_partial_node: !t -> break", N, F, F)              \
	X(gpn_first, "get_partial_node: !object", N, T, T)                     \
	X(gpn_enough, "get_partial_node: !has_cpu_partial || available > cpu_partial / 2", N, F, F) \
	X(gap_ratio, "get_any_partial: !ratio || get_cycles() % 1024 > ratio", N, F, F) \
	X(gap_node, "get_any_partial: n && cpuset && n->nr_partial > s->min_partial", N, T, T) \
	X(as_reclaim, "allocate_slab: direct reclaim && oo_order(oo) > oo_order(s->min)", N, T, T) \
	X(as_fail, "allocate_slab: unlikely(!page)", U, H, H)                  \
	X(ds_remote, "deactivate_slab: page->freelist", N, T, T)               \
	X(ds_stage1, "deactivate_slab: freelist && (nextfree = get_freepointer())", N, T, T) \
	X(ds_free, "deactivate_slab: !new.inuse && n->nr_partial >= s->min_partial", N, T, T) \
	X(ds_partial, "deactivate_slab: new.freelist", N, T, T)                \
	X(ds_move, "deactivate_slab: l != m", N, T, T)                         \
	X(ds_retry, "deactivate_slab: !__cmpxchg_double_slab() -> redo", N, F, F) \
	X(fc_page, "__flush_cpu_slab: c->page", N, T, T)                       \
	/* b47291ef02b0's sites (kernel.slub_cpu_partial), after the v5.9 ones \
	 * so that the v5.9 sites keep their places in the layout */          \
	X(P2c, "put_cpu_partial (b47291ef02b0): oldpage->pages >= s->cpu_partial_pages", N, T, T) \
	X(gpn_enough_pages, "get_partial_node (b47291ef02b0): !has_cpu_partial || partial_pages > cpu_partial_pages / 2", N, F, F)


#define SLUB_FN_ENUM(name) FN_##name,
#define SLUB_SITE_ENUM(id, desc, hint, gcc, clang) S_##id,
enum slub_fn { SLUB_FUNCS(SLUB_FN_ENUM) SLUB_NR_FN };
enum slub_site { SLUB_SITES(SLUB_SITE_ENUM) SLUB_NR_SITE };
#undef SLUB_FN_ENUM
#undef SLUB_SITE_ENUM
/* The sites' names and descriptions, by enum slub_site (slub_setup.c). */
extern const struct cost_site_def slub_site_defs[SLUB_NR_SITE];

/*
 * Straight-line work between sites, in instructions / fused-domain uops,
 * in two code layouts (slub_config.code, `cost.code`, as MM_WORK of
 * models/mm_internal.h):
 *   est   read off the v5.9 source (argument set-up, counter arithmetic,
 *         hooks compiled out in a distribution config), identical in both
 *         variants, docs/design/slub-model.md explains each row: the layout of
 *         every release before cost.code, kept bit for bit;
 *   pre, post  counted in the disassembly of v5.9's mm/slub.o (PRE) and of
 *         v5.9 + c270cf30 (POST) built by gcc 11.3 with CONFIG_SLUB_STATS=y
 *         (docs/design/compiled-counts.md §6: config, commands, addresses): the
 *         segment's fused-domain uops on the paths the seed-slub run takes
 *         (per instruction form from Agner Fog's Broadwell table, as the
 *         page allocator's: scripts/kpath.py uops(); calls, returns, irq
 *         sequences, cmpxchg and locked instructions excluded: the model
 *         charges them whole), minus what the model charges in it, computed by
 *         scripts/compiled-counts-slub.py.  Rows the seed's run executes
 *         rarely were not counted and keep their estimate in the compiled
 *         columns (marked "=est").
 * Charged through the code blocks of SLUB_BLOCKS (below), which charge
 * them as cpu_insns() does: in-order at SLUB_IPC per cycle, out of order
 * as that many uops through dispatch.  slub_world_create() costs the
 * blocks from the world's column once (slub_blocks_init()).
 * put_cpu_partial_pages is put_cpu_partial's row under b47291ef02b0
 * (kernel.slub_cpu_partial): no v5.16 object was counted, so it is the
 * v5.9 row less the statement the diff deletes (`pobjects +=
 * page->objects - page->inuse` and the `page->pobjects` store: the load
 * of the counters word, the subtraction and addition, the store: 3
 * instructions, 3 uops), in every column.
 */
#define SLUB_IPC 2
#define SLUB_WORK(X)                                                           \
	X(alloc_entry, 14, 53, 53)                                             \
	X(alloc_fast, 8, 11, 11)                                               \
	X(alloc_slow_entry, 12, 69, 68)                                        \
	X(alloc_load, 6, 10, 10)                                               \
	X(get_freelist, 8, 19, 19)                                             \
	X(partial_node_entry, 6, 21, 21)                                       \
	X(partial_node_page, 8, 22, 22)                                        \
	X(acquire_slab, 10, 21, 21)                                            \
	X(any_partial_entry, 10, 10, 10) /* =est */                            \
	X(any_partial_node, 6, 6, 6) /* =est */                                \
	X(allocate_slab, 40, 40, 40) /* =est */                                \
	X(slab_object_init, 3, 3, 3) /* =est */                                \
	X(deactivate_entry, 10, 10, 10) /* =est */                             \
	X(deactivate_object, 8, 8, 8) /* =est */                               \
	X(deactivate_tail, 16, 16, 16) /* =est */                              \
	X(free_entry, 14, 34, 34)                                              \
	X(free_fast, 8, 9, 9)                                                  \
	X(slab_free_entry, 8, 24, 24)                                          \
	X(slab_free_try, 12, 18, 19)                                           \
	X(slab_free_tail, 4, 4, 4) /* =est */                                  \
	X(cpu_relax, 2, 2, 2) /* =est */                                       \
	X(put_cpu_partial, 14, 26, 26)                                         \
	X(unfreeze_entry, 6, 24, 24)                                           \
	X(unfreeze_page, 12, 20, 20)                                           \
	X(discard_slab, 14, 14, 14) /* =est */                                 \
	X(list_op, 4, 5, 5)                                                    \
	X(bulk_object, 6, 6, 6) /* =est */                                     \
	X(put_cpu_partial_pages, 11, 23, 23) /* b47291ef02b0: derived, below */

enum slub_work {
#define SLUB_WORK_ENUM(id, est, pre, post) W_##id,
	SLUB_WORK(SLUB_WORK_ENUM)
#undef SLUB_WORK_ENUM
	SLUB_NR_WORK
};
/* Instructions per row; cpu_insns() charges them at SLUB_IPC in-order. */
_Static_assert(SLUB_IPC == CPU_INORDER_IPC, "cpu_insns charges the in-order model at SLUB_IPC");

/*
 * The code blocks of SLUB (docs/design/cost-model.md §1, "Blocks";
 * cost/cpu.h): X(name, work row, accesses, exit), one per stretch of
 * straight-line code that starts with a work row; every work row is
 * charged through one, and a row used at two places with different
 * accesses or exits starts two blocks (list_op: add_partial and
 * remove_partial; bulk_object: the first object of a detached freelist
 * and the ones looked ahead).  Its uops are the row's (in the world's
 * code layout), its accesses the word loads and stores it makes
 * unconditionally after the row and before its exit, in program order,
 * with the kinds at the call sites ("D" a load the next step waits for,
 * "L" an independent load, "S" a store); its exit the site of the branch
 * that ends it, or -1 when a call, a return, a lock, a read of the clock
 * (get_any_partial's get_cycles()) or the next block does.
 * slub_world_create() costs each once (slub_blocks_init(),
 * cpu_block_init()); the code charges it with run_block() and makes the
 * declared accesses with bmem().  Accesses made only on some paths (the
 * list neighbour's store of add_partial, deactivate_slab's last free
 * pointer, alloc_entry's page_to_nid for a node-bound allocation), in a
 * loop's condition (unfreeze_partials' c->partial, deactivate_slab's
 * get_freepointer), inside a helper several blocks call (stat_inc()'s
 * store, only with slub_stats) and every access outside a block stay
 * plain slub_mem() steps, charged one by one, with the same results.
 * The !n block of __slab_free (enum slub_block, w->block[], the seed's
 * term) is not one of these: it is charged as cpu_insns() in
 * free_unlocked().  Debug builds check every description against the
 * code at run time (cpu_block_exit()).
 */
#define SLUB_BLOCKS(X)                                                         \
	/* kmem_cache_alloc: the fast path and ___slab_alloc */                \
	X(alloc_entry, alloc_entry, "DDL", S_alloc_slow)                       \
	X(alloc_fast, alloc_fast, "D", -1)               /* its return */      \
	X(alloc_slow_entry, alloc_slow_entry, "D", S_sa_nopage)                \
	X(alloc_load, alloc_load, "DSS", -1)             /* its return */      \
	X(get_freelist, get_freelist, "D", -1)           /* its return */      \
	X(partial_node_entry, partial_node_entry, "D", S_gpn_empty)            \
	X(partial_node_page, partial_node_page, "D", -1) /* acquire_slab */    \
	X(acquire_slab, acquire_slab, "D", -1)           /* remove_partial */  \
	X(any_partial_entry, any_partial_entry, "", -1)  /* get_cycles() */    \
	X(any_partial_node, any_partial_node, "DD", S_gap_node)                \
	X(allocate_slab, allocate_slab, "", S_as_reclaim)                      \
	X(slab_object_init, slab_object_init, "S", -1)   /* the next object */ \
	X(deactivate_entry, deactivate_entry, "D", S_ds_remote)                \
	X(deactivate_object, deactivate_object, "DS", S_ds_stage1)             \
	X(deactivate_tail, deactivate_tail, "D", S_ds_free)                    \
	/* kfree, kmem_cache_free(_bulk): do_slab_free, __slab_free, the cpu   \
	 * partial list, discard_slab and the node partial lists */            \
	X(free_entry, free_entry, "DD", -1)              /* do_slab_free */    \
	X(free_fast, free_fast, "LS", -1)                /* its return */      \
	X(slab_free_entry, slab_free_entry, "D", S_S0)                         \
	X(slab_free_try, slab_free_try, "DS", S_S2a)                           \
	X(cpu_relax, cpu_relax, "", S_S1)                                      \
	X(slab_free_tail, slab_free_tail, "", -1)        /* spin_unlock */     \
	X(put_cpu_partial, put_cpu_partial, "D", S_P1)                         \
	X(unfreeze_entry, unfreeze_entry, "", S_uf_loop)                       \
	X(unfreeze_page, unfreeze_page, "DS", S_uf_node)                       \
	X(discard_slab, discard_slab, "S", -1)           /* __free_pages */    \
	X(add_partial, list_op, "SDSS", -1)              /* its return */      \
	X(remove_partial, list_op, "DSSS", -1)           /* its return */      \
	X(bulk_first, bulk_object, "DS", -1)             /* the next object */ \
	X(bulk_lookahead, bulk_object, "D", -1)          /* the next object */ \
	X(put_cpu_partial_pages, put_cpu_partial_pages, "D", S_P1)

/* A code block of SLUB_BLOCKS (B_*; not the !n block, enum slub_block). */
enum slub_code {
#define SLUB_CODE_ENUM(name, row, kinds, exit) B_##name,
	SLUB_BLOCKS(SLUB_CODE_ENUM)
#undef SLUB_CODE_ENUM
	SLUB_NR_CODE
};

/*
 * The `!n` block of __slab_free per outcome (enum slub_block): under the
 * estimate, the callee-saved register work of slub_spill (push + pop per
 * register, 2 instructions); in the compiled layout, the block's own
 * uops (S5's test, the variant's tests, the stat, put_cpu_partial's
 * argument set-up) minus the model's branches and stat store, counted
 * like the rows above.  The register pushes and pops are in the compiled
 * prologue and epilogue (slab_free_entry): gcc saves all six
 * callee-saved registers on every path of both variants.  [variant][block]
 */
enum slub_block { SLUB_BLOCK_FROZEN, SLUB_BLOCK_PUT, SLUB_BLOCK_NONE, SLUB_NR_BLOCK };
/* The `!n` block's compiled work, [variant][block] (slub_setup.c). */
extern const uint8_t slub_block_compiled[2][SLUB_NR_BLOCK];

/* --- state ------------------------------------------------------------------ */

/* The slab fields of struct page. */
struct slub_slab {
	struct page *page;          /* NULL: pool entry unused */
	uint64_t meta;                 /* address of the struct page */
	uint64_t base;                 /* address of object 0 */
	uint64_t pfn;
	uint32_t lprev, lnext;         /* slab_list on the node partial list */
	uint32_t pnext;                /* next in a per-cpu partial chain / discard chain */
	int32_t pages, pobjects;       /* valid in a chain head */
	uint16_t freelist;             /* page->freelist */
	uint16_t inuse, objects;       /* counters */
	uint8_t frozen;
	uint8_t on_list;               /* on its node's partial list */
	uint8_t order;
	int16_t node;                  /* node id of the pages */
	int16_t alloc_cpu;             /* cpu idx whose c->page it last was (the CPU
					 * its objects were allocated on), -1 never:
					 * the model's, for the free-path where
					 * counters (slub_where_*) */
	int16_t chain_cpu;             /* cpu idx whose partial chain holds it, -1
					 * none: a host index (slub_where() without
					 * walking chains), kept by the chain's push
					 * and pops, checked by slub_check() */
};

/* struct kmem_cache_cpu */
struct slub_kcpu {
	uint64_t addr;
	uint64_t tid;
	uint32_t page;                 /* pool index or NIL32 */
	uint32_t partial;              /* chain head or NIL32 */
	uint16_t freelist;             /* object index in page, NIL16 */
	uint64_t stat[SLUB_NR_STATS];
};

/* struct kmem_cache_node */
struct slub_knode {
	uint64_t addr;
	struct cpu_lock lock;
	uint32_t head, tail;           /* partial list */
	unsigned long nr_partial, nr_slabs, total_objects;
};

struct slub_cache {
	struct slub_world *w;
	int idx;
	char name[SLUB_NAME_MAX];
	unsigned object_size, size, align, offset, flags;
	unsigned oo_order, oo_objects, min_order, min_objects, max_order, max_objects;
	unsigned long min_partial;
	unsigned cpu_partial;          /* objects (the sysfs value) */
	unsigned cpu_partial_pages;    /* b47291ef02b0: the limit in slabs (0 before) */
	int has_cpu_partial;
	uint32_t gfp;                  /* allocflags | configured gfp */
	uint64_t addr;                 /* struct kmem_cache */
	struct slub_kcpu *cpu;         /* [nr_cpus] by cpu idx */
	struct slub_knode *node;       /* [nr_nodes] by machine position */
	/* slab pool */
	struct slub_slab *slab;
	uint16_t *next;                /* [cap * per] free pointers */
	uint8_t *alloc;                /* [cap * per] handed out */
	uint32_t nr_slab, cap_slab, per; /* per = max objects of a slab */
	uint32_t *free_ids;            /* unused pool entries (LIFO) */
	uint32_t nr_free_ids;
	uint64_t allocated, freed, pages_failed;
	/* the FREE_FROZEN calls of __slab_free: the `!n` block's sites
	 * (the code the variants differ in) and the call's cycles, summed;
	 * ff_fence: of those cycles, the ones the cmpxchg_double waited for
	 * older ops still in flight (cost.model ooo; 0 in-order);
	 * ff_measured: the calls summed (every FREE_FROZEN one, except
	 * the fast calls of sampled accounting, which measure nothing) */
	uint64_t ff_branches, ff_taken, ff_mispredicts, ff_cycles, ff_fence, ff_measured;
	/* where the slab of each __slab_free call was at its entry
	 * (SLUB_WHERE_ITEMS; model counters, not kernel stat items) */
	uint64_t where[SLUB_NR_WHERE];
};

struct slub_world {
	const struct machine *m;
	struct slub_config cfg;             /* cfg.code resolved (not DEFAULT) */
	uint32_t block[SLUB_NR_BLOCK];      /* the `!n` block's work per outcome */
	int32_t block_unit;                 /* its units (cost_register_units()):
					     * block_unit + enum slub_block, -1 none */
	struct cpu_block code[SLUB_NR_CODE]; /* SLUB_BLOCKS costed for s (slub_blocks_init()) */
	struct cpu_sys *s;
	struct mm_world *pa;
	struct charge_ctx ch;              /* ids, trace hook (cost/charge.h) */
	unsigned page_shift, page_size;
	unsigned nr_cpu_ids;
	unsigned line_size;
	uint64_t *vmemmap;             /* [nr_nodes]: base of struct pages */
	uint64_t *node_start_pfn;      /* [nr_nodes] */
	int *node_order;               /* [nr_nodes * nr_nodes]: zonelist node order */
	int nr_caches;
	struct slub_cache *caches[SLUB_MAX_CACHES];
	slub_race_fn race;
	void *race_arg;
	slub_trace_fn trace;
	void *trace_arg;
	struct slub_free_trace *tr;    /* the traced __slab_free, else NULL */
	struct slub_free_trace trbuf;
	struct slub_trace_bufs *trb;   /* trbuf's arrays (the first
					  slub_trace_begin() allocates it),
					  kept between records */
	uint32_t tr_stats;             /* the stat items the traced call
					  counted (1 << item): its path */
};


/* The arrays of a trace record (struct slub_free_trace), grown while
 * tracing only and kept between records (slub_inspect.c). */
_Static_assert(SLUB_NR_STATS <= 32, "a trace's stat items fit slub_world.tr_stats");
struct slub_trace_bufs {
	struct slub_trace_slab *chain;
	enum slub_stat *stats;
	struct slub_trace_site *sites;
	unsigned cap_chain, cap_stats, cap_sites;
};

/* --- accessors ------------------------------------------------------------- */

static inline struct slub_kcpu *kcpu(struct slub_cache *s, const struct cpu *c)
{
	return &s->cpu[c->idx];
}

static inline struct slub_knode *get_node(struct slub_cache *s, int node_id)
{
	return &s->node[s->w->m->node_index[node_id]];
}

static inline uint64_t obj_addr(const struct slub_cache *s, const struct slub_slab *sl,
				unsigned idx)
{
	return sl->base + (uint64_t)idx * s->size;
}

/* The free pointer of object idx: get_freepointer / set_freepointer. */
static inline uint64_t fp_addr(const struct slub_cache *s, const struct slub_slab *sl,
			       unsigned idx)
{
	return obj_addr(s, sl, idx) + s->offset;
}

static inline uint16_t *nextp(struct slub_cache *s, uint32_t slab)
{
	return &s->next[(size_t)slab * s->per];
}

static inline slub_obj_t make_obj(const struct slub_cache *s, uint32_t slab, unsigned idx)
{
	return ((uint64_t)(s->idx + 1) << 48) | ((uint64_t)slab << 16) | idx;
}

/* Decode a handle; NS_EINTERNAL unless it names an object of a live slab. */
static inline int decode(const struct slub_world *w, slub_obj_t x, struct slub_cache **sp,
			 uint32_t *id, uint16_t *idx)
{
	uint64_t ci = x >> 48;
	if (ci == 0 || ci > (uint64_t)w->nr_caches)
		return NS_EINTERNAL;
	struct slub_cache *s = w->caches[ci - 1];
	uint32_t slab = (uint32_t)(x >> 16);
	unsigned i = (unsigned)(x & 0xFFFF);
	if (slab >= s->cap_slab || !s->slab[slab].page || i >= s->slab[slab].objects)
		return NS_EINTERNAL;
	*sp = s;
	*id = slab;
	*idx = (uint16_t)i;
	return NS_OK;
}

/* --- across the files ------------------------------------------------------ */

/*
 * The kernel functions of the hot file (slub.c) that a cold file calls:
 * COPY_PRIVATE, so static (and unused) in the fast copies
 * (models/slub_copy.c, cost/copy.h), where the cold files call the
 * ordinary ones.
 */
/* flush_cpu_slab: __flush_cpu_slab for CPU c with irqs off. */
COPY_PRIVATE void flush_cpu_slab(struct cpu *c, struct slub_cache *s);
/* kmem_cache_free_bulk of n entries of p (0 entries skipped), which
 * slub_free_bulk() has validated and marked free. */
COPY_PRIVATE void kmem_cache_free_bulk(struct cpu *c, struct slub_world *w, size_t n,
				       slub_obj_t *p);

/* kfree / kmem_cache_free (named) of object idx of slab id of cache s,
 * which slub_free() has validated: an entry of the fast copies
 * (COPY_ENTRY in slub.c, COPY_CALL in slub_free()), so that a fast free
 * validates its object once. */
void slub_free_valid(struct slub_world *w, struct cpu *c, bool named, struct slub_cache *s,
		     uint32_t id, uint16_t idx);
COPY_DECLARE(slub_free_valid);

/* Room for one more slab in the pool of s (host realloc, doubling):
 * NS_ENOMEM when the host has none (slub_setup.c). */
int slub_pool_grow(struct slub_cache *s);

/* numasim trace's recording (slub_inspect.c; models/slub_hook.h calls
 * them): the state before a __slab_free, each site and stat item of the
 * traced call, and the record handed to the trace hook at its end. */
struct slub_free_trace *slub_trace_begin(struct cpu *c, struct slub_cache *s, uint32_t id,
					 unsigned cnt);
void slub_trace_branch(void *arg, int site, bool cond);   /* charge_trace_fn; arg: world */
void slub_trace_stat(struct slub_world *w, enum slub_stat si);
void slub_trace_end(struct cpu *c, struct slub_world *w, struct slub_free_trace *t,
		    bool locked, bool was_frozen);

/* Record into t from here on (NULL: stop): the record stat_inc() and the
 * charging context's trace hook (each branch) add to. */
static inline void slub_trace_recording(struct slub_world *w, struct slub_free_trace *t)
{
	w->tr = t;
	w->ch.trace = t ? slub_trace_branch : NULL;
	w->ch.trace_arg = w;
}

#endif
