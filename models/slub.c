/*
 * slub — Linux v5.9 SLUB (PRE) and v5.9 + c270cf30 (POST), see slub.h and
 * docs/slub-model.md.
 *
 * Design notes.
 *
 * Representation.  Each cache owns a pool of slab descriptors (struct
 * slub_slab, the slab fields of struct page) and, per pool entry, the
 * "free pointer" of every object (next[], an object index or NIL16) and a
 * model-side allocated bit per object (for slub_check and to refuse bad
 * frees).  Objects are indices within their slab; every chain the kernel
 * keeps in the objects themselves (page->freelist, c->freelist, detached
 * bulk-free chains, the stage-1 walk of deactivate_slab) is a chain of
 * indices through next[] in exactly the kernel's order.  Pool entries are
 * reused LIFO after discard_slab; the pool grows geometrically (host
 * realloc) only when more slabs are alive than ever before, so nothing is
 * allocated per event in steady state.  Because the pool can move, code
 * refers to slabs by index and re-derives pointers after anything that can
 * allocate a slab (new_slab, the race hook).
 *
 * Lists.  Node partial lists are doubly linked through pool indices
 * (lprev/lnext) with head/tail in the node; the per-cpu partial chain is
 * singly linked (pnext) with pages/pobjects valid in the head, as in the
 * kernel's union.  A slab's location is derived (frozen + on_list + the
 * CPU structures), not stored, except the on_list bit that list_add/del
 * maintain.
 *
 * Costs.  struct kmem_cache, each kmem_cache_cpu (on its CPU's node) and
 * each kmem_cache_node (on its node) get synthetic addresses from the
 * shared cache_as; struct page lives in a per-node vmemmap region allocated
 * at world creation (64 bytes per pfn); objects live in the direct map of
 * their slab's pages, the same addresses the page allocator uses when it
 * clears a page.  Every memory access goes through slub_mem(), one
 * wrapper over cpu_mem, or bmem() for an access a code block declared.
 * Straight-line work between sites comes from the world's column of
 * SLUB_WORK (the estimate, identical for PRE and POST, or the compiled
 * counts per variant, `cost.code`) and is charged through the code
 * blocks of SLUB_BLOCKS (w->code, costed from that column at set-up), as
 * the page allocator's MM_BLOCKS.
 *
 * Variants.  The !n block of __slab_free is the only code that differs;
 * which of its tests exist, and in which order, depends on
 * CONFIG_SLUB_STATS (stat() compiles to nothing without it: PRE's
 * `if (was_frozen)` has an empty body and goes, and both variants reduce
 * to one compound test whose order the compiler chooses, see
 * free_unlocked()).  When the block runs it charges w->block[outcome]:
 * under the estimate the callee-saved register work that §4.2 of the
 * reference observed per variant/compiler/stats (slub_spill[]), under the
 * compiled layout the block's counted work (the registers are saved in the
 * compiled prologue, part of slab_free_entry).
 *
 * Fast copies.  Under sampled accounting this file is compiled twice more
 * (models/slub_fast.h, models/meson.build), with the charging helpers
 * br(), call(), run_block(), slub_mem() and bmem() reduced to a fast
 * call's steps; slub_alloc() and slub_free() run a copy when their
 * top-level call will be fast (fast_entry()).  The copies' results are
 * this code's, bit for bit (test_slub's test_fast_copy).
 */
/* The fast copy (models/slub_fast.h): its renames come before any
 * declaration, and SLUB_FAST selects the charging helpers below. */
#if defined(SLUB_FAST_COPY)
#include "models/slub_fast.h"
#define SLUB_FAST 1
#define SLUB_FAST_NOMEM (SLUB_FAST_COPY == 2)
#else
#define SLUB_FAST 0
#define SLUB_FAST_NOMEM 0
#endif

#include "models/slub.h"

#include <assert.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The fast copy's steps that are nothing in a fast call (cpu.c charges
 * none of them there): straight-line work, a return, an irq save or
 * restore, a this_cpu cmpxchg.  The copy's entry ends the top-level call
 * (fast_entry() below). */
#if defined(SLUB_FAST_COPY)
#define cpu_insns(c, n) ((void)(c), (void)(n))
#define cpu_ret(c) ((void)(c))
#define cpu_irq_save(c) ((void)(c))
#define cpu_irq_restore(c) ((void)(c))
#define cpu_this_cpu_cmpxchg(c) ((void)(c))
#endif

#define NIL16 0xFFFFu
#define NIL32 UINT32_MAX
#define MAX_OBJS_PER_PAGE 32767u
#define SLUB_MAX_CACHES 64
#define SLUB_NAME_MAX 32
#define SLUB_MIN_PARTIAL 5
#define SLUB_MAX_PARTIAL 10
#define SLUB_REMOTE_DEFRAG_RATIO 1000u  /* 100 * 10 */
#define STRUCT_PAGE_SIZE 64u
#define PAGE_OFF_LRU 8u                 /* slab_list / next */
#define PAGE_OFF_NEXT_PAGES 16u         /* pages, pobjects */
#define PAGE_OFF_SLAB_CACHE 24u
#define PAGE_OFF_FREELIST 32u           /* freelist + counters: cmpxchg_double */
#define KCPU_SIZE 192u
#define KCPU_OFF_FREELIST 0u
#define KCPU_OFF_TID 8u
#define KCPU_OFF_PAGE 16u
#define KCPU_OFF_PARTIAL 24u
#define KCPU_OFF_STAT 32u
#define KNODE_SIZE 64u
#define KNODE_OFF_NR_PARTIAL 8u
#define KNODE_OFF_PARTIAL 16u
#define KNODE_OFF_NR_SLABS 32u
#define KCACHE_SIZE 512u
#define KCACHE_OFF_FLAGS 8u
#define KCACHE_OFF_MIN_PARTIAL 16u
#define KCACHE_OFF_CPU_PARTIAL 36u
#define KCACHE_OFF_OO 40u
#define KCACHE_OFF_NODE 256u

/* --- stat names ----------------------------------------------------------- */

static const char *const slub_stat_names[] = {
#define SLUB_STAT_NAME(id, name, desc) name,
	SLUB_STAT_ITEMS(SLUB_STAT_NAME)
#undef SLUB_STAT_NAME
};
static const char *const slub_stat_descs[] = {
#define SLUB_STAT_DESC(id, name, desc) desc,
	SLUB_STAT_ITEMS(SLUB_STAT_DESC)
#undef SLUB_STAT_DESC
};

const char *slub_stat_name(enum slub_stat s)
{
	return (unsigned)s < SLUB_NR_STATS ? slub_stat_names[s] : "?";
}

const char *slub_stat_desc(enum slub_stat s)
{
	return (unsigned)s < SLUB_NR_STATS ? slub_stat_descs[s] : "?";
}

static const char *const variant_names[] = {"v5.9", "c270cf30"};
static const char *const compiler_names[] = {"gcc", "clang"};
static const char *const loc_names[] = {"cpu_slab", "cpu_partial", "node_partial", "full"};

const char *slub_variant_name(enum slub_variant v)
{
	return (unsigned)v < 2 ? variant_names[v] : "?";
}

int slub_variant_parse(const char *s)
{
	if (!strcmp(s, "v5.9") || !strcmp(s, "pre"))
		return SLUB_PRE;
	if (!strcmp(s, "c270cf30") || !strcmp(s, "post"))
		return SLUB_POST;
	return -1;
}

const char *slub_compiler_name(enum slub_compiler c)
{
	return (unsigned)c < 2 ? compiler_names[c] : "?";
}

int slub_compiler_parse(const char *s)
{
	for (int i = 0; i < 2; i++)
		if (!strcmp(s, compiler_names[i]))
			return i;
	return -1;
}

const char *slub_loc_name(enum slub_loc l)
{
	return (unsigned)l < 4 ? loc_names[l] : "?";
}

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
	X(fc_page, "__flush_cpu_slab: c->page", N, T, T)

#define SLUB_FN_ENUM(name) FN_##name,
#define SLUB_SITE_ENUM(id, desc, hint, gcc, clang) S_##id,
#define SLUB_SITE_DEF(id, desc, hint, gcc, clang) {#id, desc},
enum slub_fn { SLUB_FUNCS(SLUB_FN_ENUM) SLUB_NR_FN };
enum slub_site { SLUB_SITES(SLUB_SITE_ENUM) SLUB_NR_SITE };
static const char *const slub_fn_names[] = {SLUB_FUNCS(COST_FN_NAME)};
static const struct cost_site_def slub_site_defs[] = {SLUB_SITES(SLUB_SITE_DEF)};

static const struct {
	uint8_t hint;
	int8_t ft[2];
} slub_site_layout[] = {
#define SLUB_SITE_LAYOUT(id, desc, hint, gcc, clang) {COST_HINT_##hint, {COST_FT_##gcc, COST_FT_##clang}},
	SLUB_SITES(SLUB_SITE_LAYOUT)
#undef SLUB_SITE_LAYOUT
};

/*
 * Callee-saved registers pushed and popped because of the !n block
 * (slub-free.md §4.2, a skeleton compiled with GCC 12 / clang 14): for the
 * FREE_FROZEN path (hot) and the other two outcomes (cold), indexed
 * [variant][compiler][stats].  One register = push + pop = 2 instructions
 * = 1 cycle at SLUB_IPC.
 */
static const uint8_t slub_spill[2][2][2][2] = {
	/* PRE:  gcc {off, on}, clang {off, on}; each {hot, cold} */
	{{{0, 0}, {1, 1}}, {{0, 0}, {3, 3}}},
	/* POST */
	{{{0, 0}, {0, 1}}, {{0, 0}, {1, 1}}},
};

/*
 * Straight-line work between sites, in instructions / fused-domain uops,
 * in two code layouts (slub_config.code, `cost.code`, as MM_WORK of
 * models/mm_internal.h):
 *   est   read off the v5.9 source (argument set-up, counter arithmetic,
 *         hooks compiled out in a distribution config), identical in both
 *         variants, docs/slub-model.md explains each row: the layout of
 *         every release before cost.code, kept bit for bit;
 *   pre, post  counted in the disassembly of v5.9's mm/slub.o (PRE) and of
 *         v5.9 + c270cf30 (POST) built by gcc 11.3 with CONFIG_SLUB_STATS=y
 *         (docs/compiled-counts.md §6: config, commands, addresses): the
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
	X(bulk_object, 6, 6, 6) /* =est */

enum slub_work {
#define SLUB_WORK_ENUM(id, est, pre, post) W_##id,
	SLUB_WORK(SLUB_WORK_ENUM)
#undef SLUB_WORK_ENUM
	SLUB_NR_WORK
};
/* Instructions per row; cpu_insns() charges them at SLUB_IPC in-order. */
_Static_assert(SLUB_IPC == CPU_INORDER_IPC, "cpu_insns charges the in-order model at SLUB_IPC");
static const uint32_t slub_work_rows[][3] = {
#define SLUB_WORK_ROW(id, est, pre, post) {est, pre, post},
	SLUB_WORK(SLUB_WORK_ROW)
#undef SLUB_WORK_ROW
};

/*
 * The code blocks of SLUB (docs/cost-model.md §1, "Blocks";
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
	X(bulk_lookahead, bulk_object, "D", -1)          /* the next object */

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
static const uint8_t slub_block_compiled[2][SLUB_NR_BLOCK] = {
	{3, 6, 1},      /* PRE: 8, 12, 6 instructions; 10, 15, 6 uops */
	{3, 8, 1},      /* POST: 6, 13, 6 instructions; 8, 16, 6 uops */
};

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
	unsigned cpu_partial;
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
};

struct slub_world {
	const struct machine *m;
	struct slub_config cfg;             /* cfg.code resolved (not DEFAULT) */
	uint32_t block[SLUB_NR_BLOCK];      /* the `!n` block's work per outcome */
	struct cpu_block code[SLUB_NR_CODE]; /* SLUB_BLOCKS costed for s (slub_blocks_init()) */
	struct cpu_sys *s;
	struct mm_world *pa;
	int fn_base, site_base;
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
	struct trace_bufs *trb;        /* trbuf's arrays (the first trace_begin
					  allocates it), kept between records */
};

/* --- small helpers ---------------------------------------------------------- */

/*
 * The one place that charges memory: a word at addr, its home node from the
 * synthetic address (cost/cpu.h's access kinds); bmem() below for an
 * access a code block declared.
 */
static inline void slub_mem(struct cpu *c, uint64_t addr, enum cpu_access kind)
{
	if (SLUB_FAST_NOMEM)
		return;                /* a fast call without warming: no access */
	if (SLUB_FAST)
		cpu_fast_mem(c, addr, 8, kind);   /* the fast copy for warming */
	else
		cpu_mem(c, addr, 8, cache_as_node(addr), kind);
}

/*
 * A word access the open block declared (SLUB_BLOCKS): cpu_block() charged
 * it as an L1 hit, and it goes through the caches only (cpu_mem_pre());
 * where the block precharged nothing (a logged or fast call, cost.model
 * ooo: cpu_block_take() is false) it is slub_mem().  Always inline, as the
 * page allocator's: left to GCC, bmem() and run_block() were out-of-line
 * calls and `bench slub` took 1.6 % more host instructions.
 */
static CPU_INLINE void bmem(struct cpu *c, uint64_t addr, enum cpu_access kind)
{
	if (!SLUB_FAST && cpu_block_take(c, kind))
		cpu_mem_pre(c, addr, 8, cache_as_node(addr), kind);
	else
		slub_mem(c, addr, kind);
}

struct trace_bufs {
	struct slub_trace_slab *chain;
	enum slub_stat *stats;
	struct slub_trace_site *sites;
	unsigned cap_chain, cap_stats, cap_sites;
};
static void trace_site(struct slub_free_trace *t, struct trace_bufs *b, enum slub_site s,
		       bool cond);
static void trace_stat(struct slub_free_trace *t, struct trace_bufs *b, enum slub_stat si);

/*
 * The charging helpers.  In the fast copy (SLUB_FAST, models/slub_fast.h)
 * they are a fast call's steps (cpu.h): a branch counted and signed, a
 * call counted and signed (cpu_copy_call()), a block nothing.  The copy
 * runs inside a fast call its entry started (fast_entry() below) and
 * never while a trace may record (so w->tr is NULL there).
 */
static CPU_INLINE bool br(struct cpu *c, const struct slub_world *w, enum slub_site s,
			  bool cond)
{
	if (SLUB_FAST)
		return cpu_fast_branch(c, w->site_base + (int)s, cond);
	if (w->tr)   /* only while numasim trace records a __slab_free */
		trace_site(w->tr, w->trb, s, cond);
	return cpu_branch(c, w->site_base + (int)s, cond);
}

static CPU_INLINE void call(struct cpu *c, const struct slub_world *w, enum slub_fn f)
{
	if (SLUB_FAST)
		cpu_copy_call(c, w->fn_base + (int)f);
	else
		cpu_call(c, w->fn_base + (int)f);
}

/* A block of SLUB_BLOCKS: its work row and declared accesses in one step
 * (cpu_block(); the steps in turn under ooo and in logged or fast calls);
 * in the fast copy nothing (a fast call charges its path when it ends). */
static CPU_INLINE void run_block(struct cpu *c, const struct slub_world *w, enum slub_code b)
{
	if (!SLUB_FAST)
		cpu_block(c, &w->code[b]);
}

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

static void stat_inc(struct cpu *c, struct slub_cache *s, enum slub_stat si)
{
	struct slub_kcpu *k = kcpu(s, c);
	k->stat[si]++;
	if (!SLUB_FAST && s->w->tr)   /* only while numasim trace records a __slab_free */
		trace_stat(s->w->tr, s->w->trb, si);
	if (s->w->cfg.stats)   /* raw_cpu_inc(s->cpu_slab->stat[si]) */
		slub_mem(c, k->addr + KCPU_OFF_STAT + 4u * (unsigned)si, CPU_STORE);
}

static inline uint64_t next_tid(uint64_t tid)
{
	return tid + 1;   /* TID_STEP without CONFIG_PREEMPTION */
}

static void lock_node(struct cpu *c, struct slub_knode *n)
{
	if (cpu_lock(c, &n->lock) != NS_OK)
		n->lock.holder = -2; /* poisoned: reported by slub_check */
}

static void unlock_node(struct cpu *c, struct slub_knode *n)
{
	if (cpu_unlock(c, &n->lock) != NS_OK)
		n->lock.holder = -2;
}

/* Does the cmpxchg_double on (freelist, counters) still see the snapshot? */
struct snap {
	uint16_t freelist, inuse;
	uint8_t frozen;
};

static inline struct snap snap_of(const struct slub_slab *sl)
{
	struct snap x = {sl->freelist, sl->inuse, sl->frozen};
	return x;
}

static inline bool snap_same(const struct slub_slab *sl, struct snap x)
{
	return sl->freelist == x.freelist && sl->inuse == x.inuse && sl->frozen == x.frozen;
}

/* --- lists ------------------------------------------------------------------ */

static void add_partial(struct cpu *c, struct slub_cache *s, struct slub_knode *n,
			uint32_t id, bool tail)
{
	struct slub_world *w = s->w;
	struct slub_slab *sl = &s->slab[id];
	call(c, w, FN_add_partial);
	run_block(c, w, B_add_partial);
	n->nr_partial++;
	bmem(c, n->addr + KNODE_OFF_NR_PARTIAL, CPU_STORE);
	bmem(c, n->addr + KNODE_OFF_PARTIAL, CPU_LOAD_DEP);
	bmem(c, sl->meta + PAGE_OFF_LRU, CPU_STORE);
	sl->on_list = 1;
	/* the neighbour's link: only when the list was not empty (a plain
	 * step); the head's word below on every path */
	if (tail) {
		sl->lnext = NIL32;
		sl->lprev = n->tail;
		if (n->tail != NIL32) {
			slub_mem(c, s->slab[n->tail].meta + PAGE_OFF_LRU, CPU_STORE);
			s->slab[n->tail].lnext = id;
		} else {
			n->head = id;
		}
		n->tail = id;
	} else {
		sl->lprev = NIL32;
		sl->lnext = n->head;
		if (n->head != NIL32) {
			slub_mem(c, s->slab[n->head].meta + PAGE_OFF_LRU, CPU_STORE);
			s->slab[n->head].lprev = id;
		} else {
			n->tail = id;
		}
		n->head = id;
	}
	bmem(c, n->addr + KNODE_OFF_PARTIAL, CPU_STORE);
	cpu_ret(c);
}

static void remove_partial(struct cpu *c, struct slub_cache *s, struct slub_knode *n,
			   uint32_t id)
{
	struct slub_world *w = s->w;
	struct slub_slab *sl = &s->slab[id];
	call(c, w, FN_remove_partial);
	run_block(c, w, B_remove_partial);
	bmem(c, sl->meta + PAGE_OFF_LRU, CPU_LOAD_DEP);
	/* __list_del(): each side's link is a neighbour's slab_list or, at an
	 * end, the list head's word: one store on every path */
	if (sl->lprev != NIL32) {
		bmem(c, s->slab[sl->lprev].meta + PAGE_OFF_LRU, CPU_STORE);
		s->slab[sl->lprev].lnext = sl->lnext;
	} else {
		bmem(c, n->addr + KNODE_OFF_PARTIAL, CPU_STORE);
		n->head = sl->lnext;
	}
	if (sl->lnext != NIL32) {
		bmem(c, s->slab[sl->lnext].meta + PAGE_OFF_LRU, CPU_STORE);
		s->slab[sl->lnext].lprev = sl->lprev;
	} else {
		bmem(c, n->addr + KNODE_OFF_PARTIAL, CPU_STORE);
		n->tail = sl->lprev;
	}
	sl->lprev = sl->lnext = NIL32;
	sl->on_list = 0;
	n->nr_partial--;
	bmem(c, n->addr + KNODE_OFF_NR_PARTIAL, CPU_STORE);
	cpu_ret(c);
}

/* remove_full: list work only for SLAB_STORE_USER caches (not modelled). */
static void remove_full(struct cpu *c, struct slub_cache *s)
{
	call(c, s->w, FN_remove_full);
	slub_mem(c, s->addr + KCACHE_OFF_FLAGS, CPU_LOAD_DEP);
	cpu_ret(c);
}

/* --- slab pool, new_slab, discard_slab -------------------------------------- */

static int pool_grow(struct slub_cache *s)
{
	uint32_t cap = s->cap_slab ? s->cap_slab * 2 : 16;
	struct slub_slab *sl = realloc(s->slab, cap * sizeof *sl);
	if (!sl)
		return NS_ENOMEM;
	s->slab = sl;
	uint16_t *nx = realloc(s->next, (size_t)cap * s->per * sizeof *nx);
	if (!nx)
		return NS_ENOMEM;
	s->next = nx;
	uint8_t *al = realloc(s->alloc, (size_t)cap * s->per);
	if (!al)
		return NS_ENOMEM;
	s->alloc = al;
	uint32_t *fi = realloc(s->free_ids, cap * sizeof *fi);
	if (!fi)
		return NS_ENOMEM;
	s->free_ids = fi;
	for (uint32_t i = cap; i-- > s->cap_slab;) {
		memset(&s->slab[i], 0, sizeof s->slab[i]);
		s->free_ids[s->nr_free_ids++] = i;
	}
	s->cap_slab = cap;
	return NS_OK;
}

static inline uint64_t direct_map(const struct slub_world *w, int node, uint64_t pfn)
{
	/* the page allocator's direct-map convention (clear_highpage) */
	return ((uint64_t)(node + 1) << CACHE_AS_SHIFT) + (1ull << 39) +
	       ((pfn << w->page_shift) & ((1ull << 39) - 1));
}

/*
 * allocate_slab(s, flags, node): pages from the page allocator on CPU c
 * (the default mempolicy: the CPU's node first), order oo with NORETRY,
 * else s->min (ORDER_FALLBACK); the free chain in index order
 * (no CONFIG_SLAB_FREELIST_RANDOM); inuse = objects, frozen = 1.
 * Returns the pool index or NIL32.
 */
static uint32_t allocate_slab(struct cpu *c, struct slub_cache *s)
{
	struct slub_world *w = s->w;
	call(c, w, FN_new_slab);
	call(c, w, FN_allocate_slab);
	run_block(c, w, B_allocate_slab);
	uint32_t gfp = (s->gfp | __GFP_NOWARN | __GFP_NORETRY) & ~__GFP_NOFAIL;
	unsigned order = s->oo_order, objects = s->oo_objects;
	if (br(c, w, S_as_reclaim, (gfp & __GFP_DIRECT_RECLAIM) && order > s->min_order))
		gfp = (gfp | __GFP_NOMEMALLOC) & ~(__GFP_DIRECT_RECLAIM | __GFP_KSWAPD_RECLAIM);
	struct page *pg = mm_alloc_pages(w->pa, c, gfp, order);
	if (br(c, w, S_as_fail, pg == NULL)) {
		order = s->min_order;
		objects = s->min_objects;
		pg = mm_alloc_pages(w->pa, c, s->gfp, order);
		if (pg)
			stat_inc(c, s, SLUB_ORDER_FALLBACK);
	}
	uint32_t id = NIL32;
	if (!pg || (!s->nr_free_ids && pool_grow(s) != NS_OK)) {
		if (pg)
			mm_free_pages(w->pa, c, pg, order);
		s->pages_failed++;
		goto out;
	}
	id = s->free_ids[--s->nr_free_ids];
	struct slub_slab *sl = &s->slab[id];
	memset(sl, 0, sizeof *sl);
	sl->page = pg;
	sl->node = (int16_t)mm_page_node(w->pa, pg);
	sl->pfn = mm_page_pfn(w->pa, pg);
	int pos = w->m->node_index[sl->node];
	sl->meta = w->vmemmap[pos] + (sl->pfn - w->node_start_pfn[pos]) * STRUCT_PAGE_SIZE;
	sl->base = direct_map(w, sl->node, sl->pfn);
	sl->order = (uint8_t)order;
	sl->objects = (uint16_t)objects;
	sl->lprev = sl->lnext = sl->pnext = NIL32;
	slub_mem(c, sl->meta + PAGE_OFF_SLAB_CACHE, CPU_STORE); /* objects, slab_cache, flags */
	/* build the free chain: set_freepointer on every object */
	uint16_t *nx = nextp(s, id);
	for (unsigned i = 0; i < objects; i++) {
		nx[i] = (uint16_t)(i + 1 < objects ? i + 1 : NIL16);
		s->alloc[(size_t)id * s->per + i] = 0;
		run_block(c, w, B_slab_object_init);
		bmem(c, fp_addr(s, sl, i), CPU_STORE);
	}
	sl->freelist = 0;
	sl->inuse = (uint16_t)objects;
	sl->frozen = 1;
	slub_mem(c, sl->meta + PAGE_OFF_FREELIST, CPU_STORE);
	/* inc_slabs_node: atomics on the node's counters */
	struct slub_knode *n = get_node(s, sl->node);
	n->nr_slabs++;
	n->total_objects += objects;
	cpu_atomic(c, n->addr + KNODE_OFF_NR_SLABS, sl->node);
	cpu_atomic(c, n->addr + KNODE_OFF_NR_SLABS + 8, sl->node);
out:
	cpu_ret(c);
	cpu_ret(c);
	return id;
}

/* discard_slab: dec_slabs_node, free_slab -> __free_slab -> __free_pages. */
static void discard_slab(struct cpu *c, struct slub_cache *s, uint32_t id)
{
	struct slub_world *w = s->w;
	struct slub_slab *sl = &s->slab[id];
	call(c, w, FN_discard_slab);
	struct slub_knode *n = get_node(s, sl->node);
	n->nr_slabs--;
	n->total_objects -= sl->objects;
	cpu_atomic(c, n->addr + KNODE_OFF_NR_SLABS, sl->node);
	cpu_atomic(c, n->addr + KNODE_OFF_NR_SLABS + 8, sl->node);
	call(c, w, FN___free_slab);
	run_block(c, w, B_discard_slab);
	bmem(c, sl->meta, CPU_STORE);       /* __ClearPageSlab, page->mapping */
	struct page *pg = sl->page;
	unsigned order = sl->order;
	sl->page = NULL;
	s->free_ids[s->nr_free_ids++] = id;
	mm_free_pages(w->pa, c, pg, order);
	cpu_ret(c);
	cpu_ret(c);
}

/* --- put_cpu_partial / unfreeze_partials ------------------------------------ */

static void unfreeze_partials(struct cpu *c, struct slub_cache *s)
{
	struct slub_world *w = s->w;
	struct slub_kcpu *k = kcpu(s, c);
	call(c, w, FN_unfreeze_partials);
	run_block(c, w, B_unfreeze_entry);
	struct slub_knode *n = NULL;
	uint32_t discard = NIL32;
	for (;;) {
		slub_mem(c, k->addr + KCPU_OFF_PARTIAL, CPU_LOAD_DEP);
		if (!br(c, w, S_uf_loop, k->partial != NIL32))
			break;
		uint32_t id = k->partial;
		struct slub_slab *sl = &s->slab[id];
		run_block(c, w, B_unfreeze_page);
		bmem(c, sl->meta + PAGE_OFF_LRU, CPU_LOAD_DEP);
		k->partial = sl->pnext;
		bmem(c, k->addr + KCPU_OFF_PARTIAL, CPU_STORE);
		struct slub_knode *n2 = get_node(s, sl->node);
		if (br(c, w, S_uf_node, n != n2)) {
			if (n)
				unlock_node(c, n);
			n = n2;
			lock_node(c, n);
		}
		/* do { new.frozen = 0 } while (!__cmpxchg_double_slab()) */
		slub_mem(c, sl->meta + PAGE_OFF_FREELIST, CPU_LOAD_DEP);
		cpu_atomic(c, sl->meta + PAGE_OFF_FREELIST, sl->node);
		sl->frozen = 0;
		sl->pnext = NIL32;
		slub_mem(c, n->addr + KNODE_OFF_NR_PARTIAL, CPU_LOAD_DEP);
		if (br(c, w, S_U1, !sl->inuse && n->nr_partial >= s->min_partial)) {
			sl->pnext = discard;
			discard = id;
		} else {
			add_partial(c, s, n, id, true);
			stat_inc(c, s, SLUB_FREE_ADD_PARTIAL);
		}
	}
	if (n)
		unlock_node(c, n);
	while (br(c, w, S_uf_discard, discard != NIL32)) {
		uint32_t id = discard;
		discard = s->slab[id].pnext;
		s->slab[id].pnext = NIL32;
		stat_inc(c, s, SLUB_DEACTIVATE_EMPTY);
		discard_slab(c, s, id);
		stat_inc(c, s, SLUB_FREE_SLAB);
	}
	cpu_ret(c);
}

static void put_cpu_partial(struct cpu *c, struct slub_cache *s, uint32_t id, bool drain)
{
	struct slub_world *w = s->w;
	struct slub_kcpu *k = kcpu(s, c);
	call(c, w, FN_put_cpu_partial);
	run_block(c, w, B_put_cpu_partial);
	int pages = 0, pobjects = 0;
	bmem(c, k->addr + KCPU_OFF_PARTIAL, CPU_LOAD_DEP);
	uint32_t old = k->partial;
	if (br(c, w, S_P1, old != NIL32)) {
		slub_mem(c, s->slab[old].meta + PAGE_OFF_NEXT_PAGES, CPU_LOAD_DEP);
		pobjects = s->slab[old].pobjects;
		pages = s->slab[old].pages;
		if (br(c, w, S_P2a, drain) &&
		    br(c, w, S_P2b, pobjects > (int)s->cpu_partial)) {
			cpu_irq_save(c);
			unfreeze_partials(c, s);
			cpu_irq_restore(c);
			old = NIL32;
			pobjects = 0;
			pages = 0;
			stat_inc(c, s, SLUB_CPU_PARTIAL_DRAIN);
		}
	}
	struct slub_slab *sl = &s->slab[id];
	pages++;
	pobjects += sl->objects - sl->inuse;
	sl->pages = pages;
	sl->pobjects = pobjects;
	sl->pnext = old;
	slub_mem(c, sl->meta + PAGE_OFF_LRU, CPU_STORE);
	slub_mem(c, sl->meta + PAGE_OFF_NEXT_PAGES, CPU_STORE);
	cpu_this_cpu_cmpxchg(c);   /* this_cpu_cmpxchg(c->partial, old, page) */
	k->partial = id;
	slub_mem(c, s->addr + KCACHE_OFF_CPU_PARTIAL, CPU_LOAD_DEP);
	if (br(c, w, S_P3, s->cpu_partial == 0)) {
		cpu_irq_save(c);
		unfreeze_partials(c, s);
		cpu_irq_restore(c);
	}
	cpu_ret(c);
}

/* --- tracing (numasim trace) ----------------------------------------------- */

/*
 * Room for entry n of a trace array (doubling; cap in entries).  The
 * arrays live in the world and are reused by every record; only a traced
 * call reaches here, so untraced runs never allocate.
 */
static void *trace_room(void **arr, unsigned *cap, size_t size, unsigned n)
{
	if (n < *cap)
		return *arr;
	unsigned ncap = *cap ? *cap * 2 : 64;
	void *p = ncap > n ? realloc(*arr, (size_t)ncap * size) : NULL;
	if (!p)
		return NULL;
	*arr = p;
	*cap = ncap;
	return p;
}

static void trace_site(struct slub_free_trace *t, struct trace_bufs *b, enum slub_site s,
		       bool cond)
{
	if (!b || !trace_room((void **)&b->sites, &b->cap_sites, sizeof *b->sites, t->nr_sites)) {
		t->incomplete = 1;
		return;
	}
	t->sites = b->sites;
	t->sites[t->nr_sites].name = slub_site_defs[s].name;
	t->sites[t->nr_sites].outcome = cond;
	t->nr_sites++;
}

static void trace_stat(struct slub_free_trace *t, struct trace_bufs *b, enum slub_stat si)
{
	if (!b || !trace_room((void **)&b->stats, &b->cap_stats, sizeof *b->stats, t->nr_stats)) {
		t->incomplete = 1;
		return;
	}
	t->stats = b->stats;
	t->stats[t->nr_stats++] = si;
}

/* The state before the call: the slab, its node and the CPU's chain. */
static struct slub_free_trace *trace_begin(struct cpu *c, struct slub_cache *s, uint32_t id,
					   unsigned cnt)
{
	struct slub_world *w = s->w;
	struct slub_free_trace *t = &w->trbuf;
	const struct slub_slab *sl = &s->slab[id];
	const struct slub_kcpu *k = kcpu(s, c);
	memset(t, 0, sizeof *t);
	t->cache = s->name;
	t->cpu = c->id;
	t->variant = w->cfg.variant;
	t->has_cpu_partial = s->has_cpu_partial;
	t->frozen = sl->frozen;
	t->inuse = sl->inuse;
	t->objects = sl->objects;
	t->freelist_empty = sl->freelist == NIL16;
	t->cnt = cnt;
	t->node = sl->node;
	t->nr_partial = get_node(s, sl->node)->nr_partial;
	t->min_partial = s->min_partial;
	t->cpu_partial_limit = s->cpu_partial;
	if (k->partial != NIL32) {
		t->cpu_partial_pages = s->slab[k->partial].pages;
		t->cpu_partial_pobjects = s->slab[k->partial].pobjects;
	}
	if (!w->trb)
		w->trb = calloc(1, sizeof *w->trb);
	struct trace_bufs *b = w->trb;
	t->incomplete = b == NULL;
	if (b) {
		t->chain = b->chain;
		t->stats = b->stats;
		t->sites = b->sites;
	}
	for (uint32_t p = k->partial; p != NIL32; p = s->slab[p].pnext) {
		if (!b || !trace_room((void **)&b->chain, &b->cap_chain, sizeof *b->chain,
				t->nr_chain)) {
			t->incomplete = 1;
			break;
		}
		t->chain = b->chain;
		struct slub_trace_slab *e = &t->chain[t->nr_chain++];
		e->objects = s->slab[p].objects;
		e->inuse = s->slab[p].inuse;
		e->node = s->slab[p].node;
	}
	t->path = "unlocked";
	w->tr = t;
	return t;
}

void slub_set_trace_hook(struct slub_world *w, slub_trace_fn fn, void *arg)
{
	w->trace = fn;
	w->trace_arg = arg;
}

/* --- __slab_free ------------------------------------------------------------- */

/*
 * The !n block (slub-free.md §4) over (was_frozen, new_frozen).  With
 * CONFIG_SLUB_STATS the source's tests run in source order (PRE7 exists
 * only then).  Without it stat() is empty and both variants reduce to
 * `if (new.frozen && !was_frozen) put_cpu_partial()`: the compiler picks
 * the order of the two tests (§4.2: GCC tests new.frozen first and emits
 * the same sequence for PRE and POST; clang tests was_frozen first), the
 * variant's hint still deciding the fall-through of the was_frozen test.
 * Stats and put_cpu_partial are identical in every case.
 */
static bool test_new_frozen(struct cpu *c, struct slub_world *w, bool new_frozen)
{
	return br(c, w, w->cfg.variant == SLUB_PRE ? S_PRE6a : S_POST7, new_frozen);
}

/* Returns !was_frozen, evaluated at the variant's was_frozen site. */
static bool test_not_frozen(struct cpu *c, struct slub_world *w, bool was_frozen)
{
	if (w->cfg.variant == SLUB_PRE)
		return br(c, w, S_PRE6b, !was_frozen);
	return !br(c, w, S_POST6, was_frozen);
}

static void free_unlocked(struct cpu *c, struct slub_cache *s, uint32_t id, bool was_frozen,
			  bool new_frozen)
{
	struct slub_world *w = s->w;
	const struct slub_config *cfg = &w->cfg;
	bool put;
	/* the estimate's spill (push + pop per register) or the compiled block */
	cpu_insns(c, w->block[was_frozen ? SLUB_BLOCK_FROZEN
			      : new_frozen ? SLUB_BLOCK_PUT : SLUB_BLOCK_NONE]);
	if (!cfg->stats) {
		if (cfg->compiler == SLUB_GCC)
			put = test_new_frozen(c, w, new_frozen) && test_not_frozen(c, w, was_frozen);
		else
			put = test_not_frozen(c, w, was_frozen) && test_new_frozen(c, w, new_frozen);
		if (put) {
			put_cpu_partial(c, s, id, true);
			stat_inc(c, s, SLUB_CPU_PARTIAL_FREE);
		}
		if (was_frozen)
			stat_inc(c, s, SLUB_FREE_FROZEN);   /* counted, no code */
		return;
	}
	if (cfg->variant == SLUB_PRE) {
		if (br(c, w, S_PRE6a, new_frozen) && br(c, w, S_PRE6b, !was_frozen)) {
			put_cpu_partial(c, s, id, true);
			stat_inc(c, s, SLUB_CPU_PARTIAL_FREE);
		}
		if (br(c, w, S_PRE7, was_frozen))
			stat_inc(c, s, SLUB_FREE_FROZEN);
		return;
	}
	if (br(c, w, S_POST6, was_frozen)) {
		stat_inc(c, s, SLUB_FREE_FROZEN);
	} else if (br(c, w, S_POST7, new_frozen)) {
		put_cpu_partial(c, s, id, true);
		stat_inc(c, s, SLUB_CPU_PARTIAL_FREE);
	}
}

/* The !n block's sites: the only code that differs between the variants. */
static const enum slub_site block_sites[] = {S_PRE6a, S_PRE6b, S_PRE7, S_POST6, S_POST7};

static void block_sum(struct cpu *c, const struct slub_world *w, uint64_t v[3])
{
	cpu_counts_measured(c);        /* the site counts up to here */
	v[0] = v[1] = v[2] = 0;
	for (size_t i = 0; i < sizeof block_sites / sizeof block_sites[0]; i++) {
		const struct cpu_site_stat *st = &c->site[w->site_base + (int)block_sites[i]];
		v[0] += st->executed;
		v[1] += st->taken;
		v[2] += st->mispredicted;
	}
}

/*
 * free_unlocked for a frozen slab, counting the block's branches and the
 * call's cycles (up to the return: cpu_ret's cost is the same for every
 * path and left out) into the cache's free_frozen_* counters.  t0 and f0
 * are the clock and the fence-wait counter at the call's entry.
 */
static void free_frozen_counted(struct cpu *c, struct slub_cache *s, uint32_t id,
				bool new_frozen, uint64_t t0, uint64_t f0)
{
	uint64_t a[3], b[3];
	block_sum(c, s->w, a);
	free_unlocked(c, s, id, true, new_frozen);
	block_sum(c, s->w, b);
	s->ff_branches += b[0] - a[0];
	s->ff_taken += b[1] - a[1];
	s->ff_mispredicts += b[2] - a[2];
	s->ff_cycles += cpu_now_measured(c) - t0;
	s->ff_fence += cpu_fence_waited(c) - f0;
	s->ff_measured++;
}

/*
 * __slab_free(s, page, head, tail, cnt): the chain head..tail (linked
 * through next[]) of cnt objects of slab id goes in front of
 * page->freelist.
 */
static void slab_free_slow(struct cpu *c, struct slub_cache *s, uint32_t id, uint16_t head,
			   uint16_t tail, unsigned cnt)
{
	struct slub_world *w = s->w;
	struct slub_free_trace *t = NULL;
	if (w->trace && !w->tr)
		t = trace_begin(c, s, id, cnt);
	/* the counters from here on are this call's own (no fold of other
	 * calls' counts lands between f0 and its reader).  A fast call
	 * (sampled accounting) has no clock or site counts to measure with:
	 * it measures nothing, and the FREE_FROZEN figures are the means of
	 * the calls accounted exactly (ff_measured). */
	const bool measure = !cpu_in_fast_call(c);
	uint64_t t0 = 0, f0 = 0;
	if (measure) {
		t0 = cpu_now_measured(c);      /* also brings the counts up to here */
		f0 = cpu_fence_waited(c);
	}
	call(c, w, FN___slab_free);
	run_block(c, w, B_slab_free_entry);
	stat_inc(c, s, SLUB_FREE_SLOWPATH);
	bmem(c, s->addr + KCACHE_OFF_FLAGS, CPU_LOAD_DEP);
	br(c, w, S_S0, false);   /* kmem_cache_debug(s): no debug caches modelled */
	struct slub_knode *n = NULL;
	bool was_frozen, new_frozen;
	uint16_t prior;
	unsigned new_inuse;
	for (int attempt = 0;; attempt++) {
		if (br(c, w, S_S1, n != NULL)) {
			unlock_node(c, n);
			n = NULL;
		}
		run_block(c, w, B_slab_free_try);
		struct slub_slab *sl = &s->slab[id];
		bmem(c, sl->meta + PAGE_OFF_FREELIST, CPU_LOAD_DEP);
		struct snap snap = snap_of(sl);
		prior = sl->freelist;
		nextp(s, id)[tail] = prior;                  /* set_freepointer(tail, prior) */
		bmem(c, fp_addr(s, sl, tail), CPU_STORE);
		was_frozen = sl->frozen;
		new_frozen = was_frozen;
		new_inuse = sl->inuse - cnt;
		if ((br(c, w, S_S2a, new_inuse == 0) || br(c, w, S_S2b, prior == NIL16)) &&
		    br(c, w, S_S2c, !was_frozen)) {
			slub_mem(c, s->addr + KCACHE_OFF_FLAGS, CPU_LOAD);
			if (br(c, w, S_S3a, s->has_cpu_partial) && br(c, w, S_S3b, prior == NIL16)) {
				new_frozen = true;
			} else {
				n = get_node(s, sl->node);
				cpu_irq_save(c);
				lock_node(c, n);
			}
		}
		if (w->race) {
			struct slub_free_trace *saved = w->tr;
			w->tr = NULL;   /* the racing free is a call of its own */
			w->race(w->race_arg, w, c, make_obj(s, id, head), attempt);
			w->tr = saved;
			sl = &s->slab[id];
		}
		cpu_atomic(c, sl->meta + PAGE_OFF_FREELIST, sl->node);
		bool ok = snap_same(sl, snap);
		if (!br(c, w, S_S4, !ok)) {
			sl->freelist = head;
			sl->inuse = (uint16_t)new_inuse;
			sl->frozen = new_frozen;
			break;
		}
		run_block(c, w, B_cpu_relax);
		stat_inc(c, s, SLUB_CMPXCHG_DOUBLE_FAIL);
	}
	if (br(c, w, S_S5, n == NULL)) {
		if (was_frozen && measure)
			free_frozen_counted(c, s, id, new_frozen, t0, f0);
		else
			free_unlocked(c, s, id, was_frozen, new_frozen);
		if (t)
			t->path = was_frozen ? "free_frozen"
				: new_frozen ? "cpu_partial_free" : "unlocked";
		goto out;
	}
	if (t)
		t->path = "locked";
	/* list_lock of the slab's node held, slab not frozen */
	slub_mem(c, n->addr + KNODE_OFF_NR_PARTIAL, CPU_LOAD_DEP);
	slub_mem(c, s->addr + KCACHE_OFF_MIN_PARTIAL, CPU_LOAD);
	if (br(c, w, S_S8a, new_inuse == 0) && br(c, w, S_S8b, n->nr_partial >= s->min_partial))
		goto slab_empty;
	if (br(c, w, S_S9a, !s->has_cpu_partial) && br(c, w, S_S9b, prior == NIL16)) {
		remove_full(c, s);
		add_partial(c, s, n, id, true);
		stat_inc(c, s, SLUB_FREE_ADD_PARTIAL);
		if (t)
			t->path = "add_partial";
	}
	run_block(c, w, B_slab_free_tail);
	unlock_node(c, n);
	cpu_irq_restore(c);
	goto out;
slab_empty:
	if (t)
		t->path = "discard";
	if (br(c, w, S_S10, prior != NIL16)) {
		remove_partial(c, s, n, id);
		stat_inc(c, s, SLUB_FREE_REMOVE_PARTIAL);
	} else {
		remove_full(c, s);
	}
	unlock_node(c, n);
	cpu_irq_restore(c);
	stat_inc(c, s, SLUB_FREE_SLAB);
	discard_slab(c, s, id);
out:
	cpu_ret(c);
	if (t) {
		w->tr = NULL;
		w->trace(w->trace_arg, t);
	}
}

/* do_slab_free: the fast path when the slab is this CPU's active slab. */
static void do_slab_free(struct cpu *c, struct slub_cache *s, uint32_t id, uint16_t head,
			 uint16_t tail, unsigned cnt)
{
	struct slub_world *w = s->w;
	struct slub_kcpu *k = kcpu(s, c);
	call(c, w, FN_slab_free);
	call(c, w, FN_do_slab_free);
	slub_mem(c, k->addr + KCPU_OFF_TID, CPU_LOAD_DEP);
	slub_mem(c, k->addr + KCPU_OFF_PAGE, CPU_LOAD_DEP);
	if (br(c, w, S_free_fast, k->page == id)) {
		run_block(c, w, B_free_fast);
		bmem(c, k->addr + KCPU_OFF_FREELIST, CPU_LOAD);
		nextp(s, id)[tail] = k->freelist;        /* set_freepointer(tail_obj, freelist) */
		bmem(c, fp_addr(s, &s->slab[id], tail), CPU_STORE);
		cpu_this_cpu_cmpxchg(c);                  /* this_cpu_cmpxchg_double */
		k->freelist = head;
		k->tid = next_tid(k->tid);
		stat_inc(c, s, SLUB_FREE_FASTPATH);
	} else {
		slab_free_slow(c, s, id, head, tail, cnt);
	}
	cpu_ret(c);
	cpu_ret(c);
}

/* --- deactivate_slab / flush ------------------------------------------------ */

enum slab_modes { M_NONE, M_PARTIAL, M_FULL, M_FREE };

/* deactivate_slab(s, page, freelist, c): unfreeze c's active slab. */
static void deactivate_slab(struct cpu *c, struct slub_cache *s, uint32_t id, uint16_t freelist)
{
	struct slub_world *w = s->w;
	struct slub_kcpu *k = kcpu(s, c);
	call(c, w, FN_deactivate_slab);
	run_block(c, w, B_deactivate_entry);
	struct slub_slab *sl = &s->slab[id];
	struct slub_knode *n = get_node(s, sl->node);
	uint16_t *nx = nextp(s, id);
	bool tail = false;
	bmem(c, sl->meta + PAGE_OFF_FREELIST, CPU_LOAD_DEP);
	if (br(c, w, S_ds_remote, sl->freelist != NIL16)) {
		stat_inc(c, s, SLUB_DEACTIVATE_REMOTE_FREES);
		tail = true;
	}
	/* stage 1: all but the last object of the cpu freelist, one by one */
	for (;;) {
		uint16_t nextfree = NIL16;
		if (freelist != NIL16) {
			slub_mem(c, fp_addr(s, sl, freelist), CPU_LOAD_DEP);
			nextfree = nx[freelist];
		}
		if (!br(c, w, S_ds_stage1, freelist != NIL16 && nextfree != NIL16))
			break;
		run_block(c, w, B_deactivate_object);
		bmem(c, sl->meta + PAGE_OFF_FREELIST, CPU_LOAD_DEP);
		nx[freelist] = sl->freelist;
		bmem(c, fp_addr(s, sl, freelist), CPU_STORE);
		cpu_atomic(c, sl->meta + PAGE_OFF_FREELIST, sl->node);
		sl->freelist = freelist;
		sl->inuse--;
		freelist = nextfree;
	}
	/* stage 2: the last object and the unfreeze, with list placement */
	run_block(c, w, B_deactivate_tail);
	unsigned new_inuse = sl->inuse;
	uint16_t new_freelist = sl->freelist;
	if (freelist != NIL16) {
		new_inuse--;
		nx[freelist] = sl->freelist;
		slub_mem(c, fp_addr(s, sl, freelist), CPU_STORE);
		new_freelist = freelist;
	}
	enum slab_modes m, l = M_NONE;
	bool locked = false;
	bmem(c, n->addr + KNODE_OFF_NR_PARTIAL, CPU_LOAD_DEP);
	if (br(c, w, S_ds_free, new_inuse == 0 && n->nr_partial >= s->min_partial)) {
		m = M_FREE;
	} else if (br(c, w, S_ds_partial, new_freelist != NIL16)) {
		m = M_PARTIAL;
		locked = true;
		lock_node(c, n);
	} else {
		m = M_FULL;   /* the list_lock only for debug caches */
	}
	if (br(c, w, S_ds_move, l != m)) {
		if (m == M_PARTIAL)
			add_partial(c, s, n, id, tail);
	}
	cpu_atomic(c, sl->meta + PAGE_OFF_FREELIST, sl->node);
	br(c, w, S_ds_retry, false);
	sl->freelist = new_freelist;
	sl->inuse = (uint16_t)new_inuse;
	sl->frozen = 0;
	if (locked)
		unlock_node(c, n);
	if (m == M_PARTIAL) {
		stat_inc(c, s, tail ? SLUB_DEACTIVATE_TO_TAIL : SLUB_DEACTIVATE_TO_HEAD);
	} else if (m == M_FULL) {
		stat_inc(c, s, SLUB_DEACTIVATE_FULL);
	} else {
		stat_inc(c, s, SLUB_DEACTIVATE_EMPTY);
		discard_slab(c, s, id);
		stat_inc(c, s, SLUB_FREE_SLAB);
	}
	k->page = NIL32;
	k->freelist = NIL16;
	slub_mem(c, k->addr + KCPU_OFF_PAGE, CPU_STORE);
	slub_mem(c, k->addr + KCPU_OFF_FREELIST, CPU_STORE);
	cpu_ret(c);
}

static void flush_slab(struct cpu *c, struct slub_cache *s)
{
	struct slub_kcpu *k = kcpu(s, c);
	call(c, s->w, FN_flush_slab);
	stat_inc(c, s, SLUB_CPUSLAB_FLUSH);
	deactivate_slab(c, s, k->page, k->freelist);
	k->tid = next_tid(k->tid);
	slub_mem(c, k->addr + KCPU_OFF_TID, CPU_STORE);
	cpu_ret(c);
}

void slub_flush_cpu(struct slub_world *w, struct cpu *c, struct slub_cache *s)
{
	struct slub_kcpu *k = kcpu(s, c);
	cpu_irq_save(c);
	slub_mem(c, k->addr + KCPU_OFF_PAGE, CPU_LOAD_DEP);
	if (br(c, w, S_fc_page, k->page != NIL32))
		flush_slab(c, s);
	unfreeze_partials(c, s);
	cpu_irq_restore(c);
}

/* --- allocation slow path ------------------------------------------------------ */

/* get_freelist: take page->freelist; unfreeze when it was empty. */
static uint16_t get_freelist(struct cpu *c, struct slub_cache *s, uint32_t id)
{
	struct slub_slab *sl = &s->slab[id];
	call(c, s->w, FN_get_freelist);
	run_block(c, s->w, B_get_freelist);
	bmem(c, sl->meta + PAGE_OFF_FREELIST, CPU_LOAD_DEP);
	uint16_t freelist = sl->freelist;
	cpu_atomic(c, sl->meta + PAGE_OFF_FREELIST, sl->node);
	sl->freelist = NIL16;
	sl->inuse = sl->objects;
	sl->frozen = freelist != NIL16;
	cpu_ret(c);
	return freelist;
}

/* acquire_slab: freeze a node partial slab, remove it from the list. */
static uint16_t acquire_slab(struct cpu *c, struct slub_cache *s, struct slub_knode *n,
			     uint32_t id, bool mode, int *objects)
{
	struct slub_slab *sl = &s->slab[id];
	call(c, s->w, FN_acquire_slab);
	run_block(c, s->w, B_acquire_slab);
	bmem(c, sl->meta + PAGE_OFF_FREELIST, CPU_LOAD_DEP);
	uint16_t freelist = sl->freelist;
	*objects = sl->objects - sl->inuse;
	cpu_atomic(c, sl->meta + PAGE_OFF_FREELIST, sl->node);
	if (mode) {
		sl->inuse = sl->objects;
		sl->freelist = NIL16;
	}
	sl->frozen = 1;
	remove_partial(c, s, n, id);
	cpu_ret(c);
	return freelist;
}

/* get_partial_node: the first slab becomes the cpu slab, more go to the chain. */
static uint16_t get_partial_node(struct cpu *c, struct slub_cache *s, struct slub_knode *n)
{
	struct slub_world *w = s->w;
	struct slub_kcpu *k = kcpu(s, c);
	call(c, w, FN_get_partial_node);
	run_block(c, w, B_partial_node_entry);
	uint16_t object = NIL16;
	bmem(c, n->addr + KNODE_OFF_NR_PARTIAL, CPU_LOAD_DEP);
	if (br(c, w, S_gpn_empty, n->nr_partial == 0))
		goto out;
	lock_node(c, n);
	int available = 0;
	slub_mem(c, n->addr + KNODE_OFF_PARTIAL, CPU_LOAD_DEP);
	for (uint32_t id = n->head, next; br(c, w, S_gpn_next, id != NIL32); id = next) {
		run_block(c, w, B_partial_node_page);
		bmem(c, s->slab[id].meta + PAGE_OFF_LRU, CPU_LOAD_DEP);
		next = s->slab[id].lnext;
		int objects;
		uint16_t t = acquire_slab(c, s, n, id, object == NIL16, &objects);
		if (br(c, w, S_gpn_acq_fail, t == NIL16))
			break;
		available += objects;
		if (br(c, w, S_gpn_first, object == NIL16)) {
			k->page = id;
			slub_mem(c, k->addr + KCPU_OFF_PAGE, CPU_STORE);
			stat_inc(c, s, SLUB_ALLOC_FROM_PARTIAL);
			object = t;
		} else {
			put_cpu_partial(c, s, id, false);
			stat_inc(c, s, SLUB_CPU_PARTIAL_NODE);
		}
		if (br(c, w, S_gpn_enough,
		       !s->has_cpu_partial || available > (int)(s->cpu_partial / 2)))
			break;
	}
	unlock_node(c, n);
out:
	cpu_ret(c);
	return object;
}

/*
 * get_any_partial: the remote_node_defrag_ratio lottery on the CPU's cycle
 * counter, then the nodes in zonelist order of the CPU's node (distance
 * order) holding more than min_partial partial slabs.
 */
static uint16_t get_any_partial(struct cpu *c, struct slub_cache *s)
{
	struct slub_world *w = s->w;
	call(c, w, FN_get_any_partial);
	run_block(c, w, B_any_partial_entry);   /* ends at get_cycles(): a clock read */
	uint16_t object = NIL16;
	if (br(c, w, S_gap_ratio, (cpu_now_noise(c) % 1024) > SLUB_REMOTE_DEFRAG_RATIO))
		goto out;
	int nn = w->m->nr_nodes;
	const int *order = &w->node_order[w->m->node_index[c->node] * nn];
	for (int i = 0; i < nn; i++) {
		int id = order[i];
		if (w->m->nodes[w->m->node_index[id]].mem_pages == 0)
			continue;
		struct slub_knode *n = get_node(s, id);
		run_block(c, w, B_any_partial_node);
		bmem(c, s->addr + KCACHE_OFF_NODE + 8u * (unsigned)w->m->node_index[id],
		     CPU_LOAD_DEP);
		bmem(c, n->addr + KNODE_OFF_NR_PARTIAL, CPU_LOAD_DEP);
		if (br(c, w, S_gap_node, n->nr_partial > s->min_partial)) {
			object = get_partial_node(c, s, n);
			if (object != NIL16)
				break;
		}
	}
out:
	cpu_ret(c);
	return object;
}

static uint16_t get_partial(struct cpu *c, struct slub_cache *s, int node)
{
	struct slub_world *w = s->w;
	call(c, w, FN_get_partial);
	int search = node == SLUB_NUMA_NO_NODE ? c->node : node;
	slub_mem(c, s->addr + KCACHE_OFF_NODE + 8u * (unsigned)w->m->node_index[search],
		 CPU_LOAD_DEP);
	uint16_t object = get_partial_node(c, s, get_node(s, search));
	if (!br(c, w, S_gp_any, object != NIL16 || node != SLUB_NUMA_NO_NODE))
		object = get_any_partial(c, s);
	cpu_ret(c);
	return object;
}

/* new_slab_objects: partial slabs first, else a new slab as the cpu slab. */
static uint16_t new_slab_objects(struct cpu *c, struct slub_cache *s, int node)
{
	struct slub_world *w = s->w;
	struct slub_kcpu *k = kcpu(s, c);
	call(c, w, FN_new_slab_objects);
	uint16_t freelist = get_partial(c, s, node);
	if (br(c, w, S_nso_partial, freelist != NIL16))
		goto out;
	uint32_t id = allocate_slab(c, s);
	if (br(c, w, S_nso_page, id != NIL32)) {
		slub_mem(c, k->addr + KCPU_OFF_PAGE, CPU_LOAD_DEP);
		if (br(c, w, S_nso_flush, k->page != NIL32))
			flush_slab(c, s);
		struct slub_slab *sl = &s->slab[id];
		freelist = sl->freelist;
		sl->freelist = NIL16;
		slub_mem(c, sl->meta + PAGE_OFF_FREELIST, CPU_STORE);
		stat_inc(c, s, SLUB_ALLOC_SLAB);
		k->page = id;
		slub_mem(c, k->addr + KCPU_OFF_PAGE, CPU_STORE);
	}
out:
	cpu_ret(c);
	return freelist;
}

static bool node_match(const struct slub_cache *s, uint32_t id, int node)
{
	return node == SLUB_NUMA_NO_NODE || s->slab[id].node == node;
}

/* ___slab_alloc (irqs off): returns the object index in c->page or NIL16. */
static uint16_t slab_alloc_slow(struct cpu *c, struct slub_cache *s, int node)
{
	struct slub_world *w = s->w;
	struct slub_kcpu *k = kcpu(s, c);
	call(c, w, FN___slab_alloc);
	cpu_irq_save(c);
	call(c, w, FN____slab_alloc);
	run_block(c, w, B_alloc_slow_entry);
	uint16_t freelist;
	bmem(c, k->addr + KCPU_OFF_PAGE, CPU_LOAD_DEP);
	if (br(c, w, S_sa_nopage, k->page == NIL32))
		goto new_slab;
redo:
	slub_mem(c, s->slab[k->page].meta, CPU_LOAD_DEP);   /* page_to_nid */
	if (br(c, w, S_sa_node_mismatch, !node_match(s, k->page, node))) {
		stat_inc(c, s, SLUB_ALLOC_NODE_MISMATCH);
		deactivate_slab(c, s, k->page, k->freelist);
		goto new_slab;
	}
	br(c, w, S_sa_pfmemalloc, false);   /* no pfmemalloc reserves modelled */
	slub_mem(c, k->addr + KCPU_OFF_FREELIST, CPU_LOAD_DEP);
	freelist = k->freelist;
	if (br(c, w, S_sa_freelist, freelist != NIL16))
		goto load;
	freelist = get_freelist(c, s, k->page);
	if (br(c, w, S_sa_empty, freelist == NIL16)) {
		k->page = NIL32;
		slub_mem(c, k->addr + KCPU_OFF_PAGE, CPU_STORE);
		stat_inc(c, s, SLUB_DEACTIVATE_BYPASS);
		goto new_slab;
	}
	stat_inc(c, s, SLUB_ALLOC_REFILL);
load:
	run_block(c, w, B_alloc_load);
	bmem(c, fp_addr(s, &s->slab[k->page], freelist), CPU_LOAD_DEP);
	k->freelist = nextp(s, k->page)[freelist];
	k->tid = next_tid(k->tid);
	bmem(c, k->addr + KCPU_OFF_FREELIST, CPU_STORE);
	bmem(c, k->addr + KCPU_OFF_TID, CPU_STORE);
	goto out;
new_slab:
	slub_mem(c, k->addr + KCPU_OFF_PARTIAL, CPU_LOAD_DEP);
	if (br(c, w, S_sa_cpu_partial, k->partial != NIL32)) {
		uint32_t id = k->partial;
		slub_mem(c, s->slab[id].meta + PAGE_OFF_LRU, CPU_LOAD_DEP);
		k->page = id;
		k->partial = s->slab[id].pnext;
		s->slab[id].pnext = NIL32;
		slub_mem(c, k->addr + KCPU_OFF_PAGE, CPU_STORE);
		slub_mem(c, k->addr + KCPU_OFF_PARTIAL, CPU_STORE);
		stat_inc(c, s, SLUB_CPU_PARTIAL_ALLOC);
		goto redo;
	}
	freelist = new_slab_objects(c, s, node);
	if (br(c, w, S_sa_no_objects, freelist == NIL16))
		goto out;
	if (br(c, w, S_sa_nodebug, true))
		goto load;
out:
	cpu_ret(c);
	cpu_irq_restore(c);
	cpu_ret(c);
	return freelist;
}

/* --- entry points --------------------------------------------------------- */

/*
 * The entries that run the fast copies (models/slub_fast.h): when
 * fast_entry() says the top-level call of f will be fast (and has started
 * it), the entry runs SLUB_FAST_CALL(c, NAME, args), its copy's
 * slub_fast_NAME(args) (warming) or slub_fastn_NAME(args) (none), then
 * ends the call with cpu_fast_end().  Never in a copy, and never while a
 * trace hook is set (its records come from the ordinary code).  An entry
 * validates its arguments first, so that a refused call starts nothing.
 * slub_free_bulk() has no copy: it clears the objects' bits as it
 * validates them, and no scenario calls it.
 */
static inline bool fast_entry(struct cpu *c, const struct slub_world *w, enum slub_fn f)
{
	return !SLUB_FAST && c->fcopy && !w->trace && cpu_fast_entry(c, w->fn_base + (int)f);
}
/* kfree / kmem_cache_free (named) of object idx of slab id of cache s,
 * which slub_free() has validated: the copies' entry for a free (external
 * so that the ordinary slub_free() can call a copy's; not part of
 * slub.h), so that a fast free validates its object once. */
void slub_free_valid(struct slub_world *w, struct cpu *c, bool named, struct slub_cache *s,
		     uint32_t id, uint16_t idx);
__typeof__(slub_alloc) slub_fast_alloc, slub_fastn_alloc;
__typeof__(slub_free_valid) slub_fast_free_valid, slub_fastn_free_valid;
#define SLUB_FAST_CALL(c, name, ...)                                           \
	((c)->fwarm ? slub_fast_##name(__VA_ARGS__) : slub_fastn_##name(__VA_ARGS__))

slub_obj_t slub_alloc(struct slub_world *w, struct cpu *c, struct slub_cache *s, int node)
{
	struct slub_kcpu *k = kcpu(s, c);
	if (node != SLUB_NUMA_NO_NODE &&
	    (node < 0 || node >= MACHINE_MAX_NODES || w->m->node_index[node] < 0))
		return 0;   /* not a node of the machine: a caller bug, nothing charged */
	if (fast_entry(c, w, FN_kmem_cache_alloc)) {
		slub_obj_t x = SLUB_FAST_CALL(c, alloc, w, c, s, node);
		cpu_fast_end(c);
		return x;
	}
	call(c, w, FN_kmem_cache_alloc);
	call(c, w, FN_slab_alloc_node);
	run_block(c, s->w, B_alloc_entry);
	bmem(c, k->addr + KCPU_OFF_TID, CPU_LOAD_DEP);
	bmem(c, k->addr + KCPU_OFF_FREELIST, CPU_LOAD_DEP);
	bmem(c, k->addr + KCPU_OFF_PAGE, CPU_LOAD);
	if (node != SLUB_NUMA_NO_NODE && k->page != NIL32)
		slub_mem(c, s->slab[k->page].meta, CPU_LOAD_DEP);
	uint16_t object = k->freelist;
	uint32_t id = k->page;
	slub_obj_t x = 0;
	if (br(c, w, S_alloc_slow, object == NIL16 || !node_match(s, id, node))) {
		object = slab_alloc_slow(c, s, node);
		id = k->page;
		stat_inc(c, s, SLUB_ALLOC_SLOWPATH);
	} else {
		run_block(c, s->w, B_alloc_fast);
		bmem(c, fp_addr(s, &s->slab[id], object), CPU_LOAD_DEP);     /* get_freepointer_safe */
		cpu_this_cpu_cmpxchg(c);
		k->freelist = nextp(s, id)[object];
		k->tid = next_tid(k->tid);
		stat_inc(c, s, SLUB_ALLOC_FASTPATH);
	}
	if (object != NIL16) {
		s->alloc[(size_t)id * s->per + object] = 1;
		s->allocated++;
		x = make_obj(s, id, object);
	}
	cpu_ret(c);
	cpu_ret(c);
	return x;
}

/* Decode a handle; NS_EINTERNAL unless it names an object of a live slab. */
static int decode(const struct slub_world *w, slub_obj_t x, struct slub_cache **sp,
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

int slub_free(struct slub_world *w, struct cpu *c, struct slub_cache *s, slub_obj_t x)
{
	struct slub_cache *os;
	uint32_t id;
	uint16_t idx;
	if (decode(w, x, &os, &id, &idx) != NS_OK || (s && s != os) ||
	    !os->alloc[(size_t)id * os->per + idx])
		return NS_EINTERNAL;
	if (fast_entry(c, w, s ? FN_kmem_cache_free : FN_kfree)) {
		SLUB_FAST_CALL(c, free_valid, w, c, s != NULL, os, id, idx);
		cpu_fast_end(c);
		return NS_OK;
	}
	slub_free_valid(w, c, s != NULL, os, id, idx);
	return NS_OK;
}

void slub_free_valid(struct slub_world *w, struct cpu *c, bool named, struct slub_cache *s,
		     uint32_t id, uint16_t idx)
{
	call(c, w, named ? FN_kmem_cache_free : FN_kfree);
	run_block(c, s->w, B_free_entry);
	bmem(c, s->slab[id].meta, CPU_LOAD_DEP);       /* virt_to_head_page, PageSlab */
	bmem(c, s->slab[id].meta + PAGE_OFF_SLAB_CACHE, CPU_LOAD_DEP);
	s->alloc[(size_t)id * s->per + idx] = 0;
	s->freed++;
	do_slab_free(c, s, id, idx, idx, 1);
	cpu_ret(c);
}

static uint8_t *alloc_bit(const struct slub_world *w, slub_obj_t x)
{
	struct slub_cache *s;
	uint32_t id;
	uint16_t idx;
	if (decode(w, x, &s, &id, &idx) != NS_OK)
		return NULL;
	return &s->alloc[(size_t)id * s->per + idx];
}

int slub_free_bulk(struct slub_world *w, struct cpu *c, struct slub_cache *s, size_t n,
		   slub_obj_t *p)
{
	/* validate in O(n): clear each allocated bit, a second sight of an
	 * object finds it clear; on failure restore the bits cleared so far */
	for (size_t i = 0; i < n; i++) {
		if (!p[i])
			continue;
		uint8_t *bit = alloc_bit(w, p[i]);
		if (!bit || !*bit || (s && slub_obj_cache(w, p[i]) != s)) {
			for (size_t j = 0; j < i; j++)
				if (p[j])
					*alloc_bit(w, p[j]) = 1;
			return NS_EINTERNAL;
		}
		*bit = 0;
	}
	call(c, w, FN_kmem_cache_free_bulk);
	size_t size = n;
	while (size) {
		/* build_detached_freelist */
		slub_obj_t object = 0;
		do
			object = p[--size];
		while (!object && size);
		if (!object)
			break;
		struct slub_cache *cs = NULL;
		uint32_t id = 0;
		uint16_t idx = 0;
		decode(w, object, &cs, &id, &idx);
		uint16_t *nx = nextp(cs, id);
		run_block(c, w, B_bulk_first);
		bmem(c, cs->slab[id].meta, CPU_LOAD_DEP);
		nx[idx] = NIL16;
		bmem(c, fp_addr(cs, &cs->slab[id], idx), CPU_STORE);
		uint16_t head = idx, tail = idx;
		unsigned cnt = 1;
		p[size] = 0;
		int lookahead = 3;
		size_t first_skipped = 0;
		while (size) {
			object = p[--size];
			if (!object)
				continue;
			struct slub_cache *os = NULL;
			uint32_t oid = 0;
			uint16_t oidx = 0;
			decode(w, object, &os, &oid, &oidx);
			run_block(c, w, B_bulk_lookahead);
			bmem(c, os->slab[oid].meta, CPU_LOAD_DEP);
			if (os == cs && oid == id) {
				nx[oidx] = head;
				slub_mem(c, fp_addr(cs, &cs->slab[id], oidx), CPU_STORE);
				head = oidx;
				cnt++;
				p[size] = 0;
				continue;
			}
			if (!--lookahead)
				break;
			if (!first_skipped)
				first_skipped = size + 1;
		}
		cs->freed += cnt;
		do_slab_free(c, cs, id, head, tail, cnt);
		size = first_skipped;   /* build_detached_freelist's return value */
	}
	cpu_ret(c);
	return NS_OK;
}

int slub_set_cpu_partial(struct slub_cache *s, unsigned objects)
{
	if (objects && !s->has_cpu_partial)
		return NS_ERANGE;   /* sysfs: -EINVAL */
	s->cpu_partial = objects;
	return NS_OK;
}

void slub_set_race_hook(struct slub_world *w, slub_race_fn fn, void *arg)
{
	w->race = fn;
	w->race_arg = arg;
}

/* --- registration and layout ---------------------------------------------- */

int slub_register(struct cost_tables *t, int *fn_base, int *site_base)
{
	int rc = cost_register_fns(t, slub_fn_names, SLUB_NR_FN, fn_base);
	if (rc != NS_OK)
		return rc;
	return cost_register_sites(t, slub_site_defs, SLUB_NR_SITE, site_base);
}

int slub_layout(struct cost_layout *l, const struct cost_tables *t, int fn_base,
		int site_base, const struct slub_config *cfg)
{
	if (fn_base < 0 || site_base < 0 || fn_base + SLUB_NR_FN > t->nr_fns ||
	    site_base + SLUB_NR_SITE > t->nr_sites || l->nr_fns != t->nr_fns ||
	    l->nr_sites != t->nr_sites || (unsigned)cfg->compiler > SLUB_CLANG)
		return NS_EINTERNAL;
	static const int inl[] = {
#define SLUB_INL(name) FN_##name,
		SLUB_INLINE_FUNCS(SLUB_INL)
#undef SLUB_INL
	};
	int rc0 = cost_layout_set_model_fns(l, fn_base, SLUB_NR_FN, inl,
						 sizeof inl / sizeof inl[0]);
	if (rc0 != NS_OK)
		return rc0;
	for (int s = 0; s < SLUB_NR_SITE; s++) {
		int rc = cost_layout_set_site(l, site_base + s,
					      (enum cost_hint)slub_site_layout[s].hint,
					      slub_site_layout[s].ft[cfg->compiler]);
		if (rc != NS_OK)
			return rc;
	}
	return NS_OK;
}

/* --- set-up ------------------------------------------------------------------ */

/* The work rows (into work[SLUB_NR_WORK]) and the `!n` block's work of the
 * world's (resolved) layout. */
static void slub_work_layout(struct slub_world *w, uint32_t *work)
{
	const struct slub_config *cfg = &w->cfg;
	if (cfg->code == MM_CODE_COMPILED) {
		cost_work_column(slub_work_rows, SLUB_NR_WORK,
				 cfg->variant == SLUB_PRE ? COST_WORK_PRE : COST_WORK_POST, work);
		for (int b = 0; b < SLUB_NR_BLOCK; b++)
			w->block[b] = slub_block_compiled[cfg->variant][b];
		return;
	}
	cost_work_column(slub_work_rows, SLUB_NR_WORK, COST_WORK_EST, work);
	/* a spill is cycles at SLUB_IPC: push + pop per register */
	const uint8_t *sp = slub_spill[cfg->variant][cfg->compiler][cfg->stats ? 1 : 0];
	w->block[SLUB_BLOCK_FROZEN] = SLUB_IPC * sp[0];
	w->block[SLUB_BLOCK_PUT] = w->block[SLUB_BLOCK_NONE] = SLUB_IPC * sp[1];
}

/* The static costs of SLUB_BLOCKS under the world's layout and core (its
 * work rows, costs of w->s), once: cpu_block_init(). */
static int slub_blocks_init(struct slub_world *w, const uint32_t *work)
{
	static const struct cpu_block_def defs[SLUB_NR_CODE] = {
#define SLUB_CODE_DEF(name, r, k, e) [B_##name] = {W_##r, k, e},
		SLUB_BLOCKS(SLUB_CODE_DEF)
#undef SLUB_CODE_DEF
	};
	return cpu_blocks_init(w->code, defs, SLUB_NR_CODE, work, w->site_base, &w->s->k);
}

void slub_config_default(struct slub_config *c)
{
	memset(c, 0, sizeof *c);
	c->variant = SLUB_PRE;
	c->compiler = SLUB_GCC;
	c->stats = 1;
	c->cpu_partial = 1;
	c->slub_max_order = 3;
	c->gfp = GFP_KERNEL;
}

static unsigned fls_u(unsigned x)
{
	unsigned r = 0;
	while (x) {
		r++;
		x >>= 1;
	}
	return r;
}

static unsigned ilog2_u(unsigned x)
{
	return x ? fls_u(x) - 1 : 0;
}

/* get_order(size) */
static unsigned get_order(const struct slub_world *w, unsigned long size)
{
	unsigned order = 0;
	while (((unsigned long)w->page_size << order) < size)
		order++;
	return order;
}

static unsigned order_objects(const struct slub_world *w, unsigned order, unsigned size)
{
	return (unsigned)(((unsigned long)w->page_size << order) / size);
}

/* slab_order(size, min_objects, max_order, fract_leftover) */
static unsigned slab_order(const struct slub_world *w, unsigned size, unsigned min_objects,
			   unsigned max_order, unsigned fract_leftover)
{
	unsigned min_order = w->cfg.slub_min_order;
	if (order_objects(w, min_order, size) > MAX_OBJS_PER_PAGE)
		return get_order(w, (unsigned long)size * MAX_OBJS_PER_PAGE) - 1;
	unsigned order = get_order(w, (unsigned long)min_objects * size);
	if (order < min_order)
		order = min_order;
	for (; order <= max_order; order++) {
		unsigned long slab_size = (unsigned long)w->page_size << order;
		if (slab_size % size <= slab_size / fract_leftover)
			break;
	}
	return order;
}

/* calculate_order(size); -1 when nothing fits below MAX_ORDER. */
static int calculate_order(const struct slub_world *w, unsigned size)
{
	unsigned max_order = w->cfg.slub_max_order;
	unsigned min_objects = w->cfg.slub_min_objects;
	if (!min_objects)
		min_objects = 4 * (fls_u(w->nr_cpu_ids) + 1);
	unsigned max_objects = order_objects(w, max_order, size);
	if (min_objects > max_objects)
		min_objects = max_objects;
	while (min_objects > 1) {
		for (unsigned fraction = 16; fraction >= 4; fraction /= 2) {
			unsigned order = slab_order(w, size, min_objects, max_order, fraction);
			if (order <= max_order)
				return (int)order;
		}
		min_objects--;
	}
	unsigned order = slab_order(w, size, 1, max_order, 1);
	if (order <= max_order)
		return (int)order;
	order = slab_order(w, size, 1, MAX_ORDER, 1);
	return order < MAX_ORDER ? (int)order : -1;
}

static unsigned align_up(unsigned x, unsigned a)
{
	return (x + a - 1) / a * a;
}

static void cache_release(struct slub_cache *s)
{
	if (!s)
		return;
	free(s->cpu);
	free(s->node);
	free(s->slab);
	free(s->next);
	free(s->alloc);
	free(s->free_ids);
	free(s);
}

int slub_cache_create(struct slub_world *w, const char *name, unsigned size,
		      unsigned align, unsigned flags, struct slub_cache **out,
		      struct diag *d)
{
	*out = NULL;
	if (!name || !*name || strlen(name) >= SLUB_NAME_MAX || strchr(name, '/'))
		return diag_set(d, NS_ERANGE, "slub", 0, 0, "slub: bad cache name");
	if (slub_cache_find(w, name))
		return diag_set(d, NS_EINPUT, "slub", 0, 0, "slub: cache %s exists", name);
	if (w->nr_caches == SLUB_MAX_CACHES)
		return diag_set(d, NS_ERANGE, "slub", 0, 0, "slub: more than %d caches",
				SLUB_MAX_CACHES);
	if (size == 0 || size > (2u * w->page_size) || (flags & ~SLUB_FLAGS_KNOWN) ||
	    (align & (align - 1)) || align > w->page_size)
		return diag_set(d, NS_ERANGE, "slub", 0, 0,
				"slub: cache %s: size %u, align %u or flags %#x not modelled",
				name, size, align, flags);
	struct slub_cache *s = calloc(1, sizeof *s);
	if (!s)
		return NS_ENOMEM;
	int rc = NS_ENOMEM;
	s->w = w;
	s->idx = w->nr_caches;
	snprintf(s->name, sizeof s->name, "%s", name);
	s->flags = flags;
	s->object_size = size;
	/* calculate_alignment */
	if (flags & SLUB_HWCACHE_ALIGN) {
		unsigned ralign = w->line_size;
		while (size <= ralign / 2)
			ralign /= 2;
		if (align < ralign)
			align = ralign;
	}
	if (align < 8)
		align = 8;   /* ARCH_SLAB_MINALIGN rounded to a word */
	s->align = align_up(align, 8);
	/* calculate_sizes (no debug) */
	unsigned sz = align_up(size, 8);
	if (flags & SLUB_TYPESAFE_BY_RCU) {
		s->offset = sz;
		sz += 8;
	} else if (sz > 8) {
		/* v5.9: ALIGN(freepointer_area / 2, sizeof(void *)), the area being
		 * the word-aligned size (5.10 changed it to ALIGN_DOWN(object_size / 2)) */
		s->offset = align_up(sz / 2, 8);
	}
	sz = align_up(sz, s->align);
	s->size = sz;
	int order = calculate_order(w, sz);
	if (order < 0) {
		rc = diag_set(d, NS_ERANGE, "slub", 0, 0, "slub: cache %s: no slab order", name);
		goto err;
	}
	s->oo_order = (unsigned)order;
	s->oo_objects = order_objects(w, s->oo_order, sz);
	s->min_order = get_order(w, sz);
	s->min_objects = order_objects(w, s->min_order, sz);
	s->max_order = s->oo_order > s->min_order ? s->oo_order : s->min_order;
	s->max_objects = s->oo_objects > s->min_objects ? s->oo_objects : s->min_objects;
	s->gfp = w->cfg.gfp | (s->oo_order ? __GFP_COMP : 0);
	/* set_min_partial(s, ilog2(s->size) / 2) */
	unsigned long mp = ilog2_u(sz) / 2;
	s->min_partial = mp < SLUB_MIN_PARTIAL ? SLUB_MIN_PARTIAL
			 : mp > SLUB_MAX_PARTIAL ? SLUB_MAX_PARTIAL : mp;
	/* set_cpu_partial */
	s->has_cpu_partial = w->cfg.cpu_partial != 0;
	if (!s->has_cpu_partial)
		s->cpu_partial = 0;
	else if (sz >= w->page_size)
		s->cpu_partial = 2;
	else if (sz >= 1024)
		s->cpu_partial = 6;
	else if (sz >= 256)
		s->cpu_partial = 13;
	else
		s->cpu_partial = 30;
	s->per = s->max_objects;
	struct cpu_sys *cs = w->s;
	s->cpu = calloc((size_t)cs->nr_cpus, sizeof *s->cpu);
	s->node = calloc((size_t)w->m->nr_nodes, sizeof *s->node);
	if (!s->cpu || !s->node)
		goto err;
	struct cache_as *as = w->cfg.as;
	int home = w->m->nodes[0].id;
	if ((rc = cache_as_alloc(as, home, KCACHE_SIZE, 64, &s->addr)) != NS_OK)
		goto err;
	for (int i = 0; i < cs->nr_cpus; i++) {
		struct slub_kcpu *k = &s->cpu[i];
		if ((rc = cache_as_alloc(as, cs->cpu[i].node, KCPU_SIZE, 64, &k->addr)) != NS_OK)
			goto err;
		k->tid = (uint64_t)cs->cpu[i].id;   /* init_tid(cpu) */
		k->page = k->partial = NIL32;
		k->freelist = NIL16;
	}
	for (int i = 0; i < w->m->nr_nodes; i++) {
		struct slub_knode *n = &s->node[i];
		if ((rc = cache_as_alloc(as, w->m->nodes[i].id, KNODE_SIZE, 64, &n->addr)) != NS_OK)
			goto err;
		cpu_lock_init_class(&n->lock, "&n->list_lock");
		n->head = n->tail = NIL32;
	}
	w->caches[w->nr_caches++] = s;
	*out = s;
	return NS_OK;
err:
	cache_release(s);
	return rc;
}

int slub_kmalloc_create(struct slub_world *w, struct diag *d)
{
	for (unsigned sz = 8; sz <= 2 * w->page_size; sz *= 2) {
		unsigned sizes[2] = {sz, sz == 128 ? 96 : sz == 256 ? 192 : 0};
		for (int j = 1; j >= 0; j--) {
			if (!sizes[j])
				continue;
			char name[SLUB_NAME_MAX];
			snprintf(name, sizeof name, "kmalloc-%u", sizes[j]);
			if (sizes[j] >= 1024 && sizes[j] % 1024 == 0)
				snprintf(name, sizeof name, "kmalloc-%uk", sizes[j] / 1024);
			/* create_boot_cache: natural alignment for powers of two */
			unsigned align = (sizes[j] & (sizes[j] - 1)) ? 8 : sizes[j];
			if (align > w->page_size)
				align = w->page_size;
			struct slub_cache *s;
			int rc = slub_cache_create(w, name, sizes[j], align, SLUB_KMALLOC, &s, d);
			if (rc != NS_OK)
				return rc;
		}
	}
	return NS_OK;
}

struct slub_cache *slub_kmalloc_cache(const struct slub_world *w, size_t size)
{
	if (size == 0 || size > 2 * (size_t)w->page_size)
		return NULL;
	/* kmalloc_index: 65..96 -> 96, 129..192 -> 192, else the next power of two */
	unsigned target;
	if (size > 64 && size <= 96)
		target = 96;
	else if (size > 128 && size <= 192)
		target = 192;
	else
		for (target = 8; target < size; target *= 2)
			;
	for (int i = 0; i < w->nr_caches; i++) {
		struct slub_cache *s = w->caches[i];
		if ((s->flags & SLUB_KMALLOC) && s->object_size == target)
			return s;
	}
	return NULL;
}

struct slub_cache *slub_cache_find(const struct slub_world *w, const char *name)
{
	for (int i = 0; i < w->nr_caches; i++)
		if (!strcmp(w->caches[i]->name, name))
			return w->caches[i];
	return NULL;
}

/* Node order of each node's zonelist: ascending distance, then id. */
static void build_node_order(struct slub_world *w)
{
	const struct machine *m = w->m;
	int nn = m->nr_nodes;
	for (int p = 0; p < nn; p++) {
		int *o = &w->node_order[p * nn];
		for (int i = 0; i < nn; i++)
			o[i] = m->nodes[i].id;
		for (int i = 1; i < nn; i++) {
			int v = o[i], j = i;
			int dv = m->distance[p * nn + m->node_index[v]];
			while (j > 0 && m->distance[p * nn + m->node_index[o[j - 1]]] > dv) {
				o[j] = o[j - 1];
				j--;
			}
			o[j] = v;
		}
	}
}

int slub_world_create(const struct machine *m, const struct slub_config *cfg,
		      struct cpu_sys *s, struct mm_world *pa, int fn_base, int site_base,
		      struct slub_world **out, struct diag *d)
{
	*out = NULL;
	if (fn_base < 0 || site_base < 0 || fn_base + SLUB_NR_FN > s->tables->nr_fns ||
	    site_base + SLUB_NR_SITE > s->tables->nr_sites)
		return diag_set(d, NS_EINTERNAL, "slub", 0, 0, "slub: tables not registered");
	if (!cfg->as)
		return diag_set(d, NS_ERANGE, "slub", 0, 0,
				"slub: needs the page allocator's address space");
	if ((unsigned)cfg->variant > SLUB_POST || (unsigned)cfg->compiler > SLUB_CLANG ||
	    cfg->slub_max_order >= MAX_ORDER || cfg->slub_min_order > cfg->slub_max_order)
		return diag_set(d, NS_ERANGE, "slub", 0, 0, "slub: bad configuration");
	enum mm_code code = cfg->code;
	int counted = cfg->compiler == SLUB_GCC && cfg->stats;
	if (code == MM_CODE_DEFAULT)
		code = s->model == CPU_MODEL_OOO && counted ? MM_CODE_COMPILED : MM_CODE_ESTIMATE;
	if (code == MM_CODE_COMPILED && !counted)
		return diag_set(d, NS_EINPUT, "slub", 0, 0,
				"slub: cost.code compiled has counts for compiler_layout gcc with "
				"slub_stats on only (docs/compiled-counts.md §6)");
	struct slub_world *w = calloc(1, sizeof *w);
	if (!w)
		return NS_ENOMEM;
	int rc = NS_ENOMEM;
	w->m = m;
	w->cfg = *cfg;
	w->cfg.code = code;
	uint32_t work[SLUB_NR_WORK];
	slub_work_layout(w, work);
	w->s = s;
	w->pa = pa;
	w->fn_base = fn_base;
	w->site_base = site_base;
	if ((rc = slub_blocks_init(w, work)) != NS_OK) {
		diag_set(d, rc, "slub", 0, 0, "slub: a code block's description is invalid");
		goto err;
	}
	w->page_size = m->page_size ? m->page_size : 4096;
	w->page_shift = ilog2_u(w->page_size);
	w->line_size = (unsigned)m->costs.line_size.value;
	if (!w->line_size)
		w->line_size = 64;
	w->nr_cpu_ids = cfg->nr_cpu_ids > 0 ? (unsigned)cfg->nr_cpu_ids : (unsigned)(m->max_cpu + 1);
	int nn = m->nr_nodes;
	w->vmemmap = calloc((size_t)nn, sizeof *w->vmemmap);
	w->node_start_pfn = calloc((size_t)nn, sizeof *w->node_start_pfn);
	w->node_order = calloc((size_t)nn * (size_t)nn, sizeof *w->node_order);
	if (!w->vmemmap || !w->node_start_pfn || !w->node_order)
		goto err;
	for (int i = 0; i < nn; i++) {
		const struct machine_node *mn = &m->nodes[i];
		uint64_t lo = UINT64_MAX, hi = 0;
		for (int z = 0; z < mn->nr_zones; z++) {
			struct mm_zone_info zi;
			if (mm_zone_get_info(pa, mn->id, mn->zones[z].type, -1, &zi) != NS_OK)
				continue;
			if (zi.start_pfn < lo)
				lo = zi.start_pfn;
			/* zones start on MAX_ORDER boundaries: leave room for the rounding */
			uint64_t end = zi.start_pfn + mn->zones[z].pages + (1u << (MAX_ORDER - 1));
			if (end > hi)
				hi = end;
		}
		if (lo == UINT64_MAX)
			continue;
		w->node_start_pfn[i] = lo;
		if ((rc = cache_as_alloc(cfg->as, mn->id, (hi - lo) * STRUCT_PAGE_SIZE, 64,
					 &w->vmemmap[i])) != NS_OK) {
			diag_set(d, rc, "slub", 0, 0, "slub: no room for node %d's struct pages",
				 mn->id);
			goto err;
		}
	}
	build_node_order(w);
	*out = w;
	return NS_OK;
err:
	free(w->vmemmap);
	free(w->node_start_pfn);
	free(w->node_order);
	free(w);
	return rc;
}

void slub_world_destroy(struct slub_world *w)
{
	if (!w)
		return;
	for (int i = 0; i < w->nr_caches; i++)
		cache_release(w->caches[i]);
	if (w->trb) {
		free(w->trb->chain);
		free(w->trb->stats);
		free(w->trb->sites);
		free(w->trb);
	}
	free(w->vmemmap);
	free(w->node_start_pfn);
	free(w->node_order);
	free(w);
}

/* --- introspection -------------------------------------------------------- */

const char *slub_cache_name(const struct slub_cache *s)
{
	return s->name;
}

uint64_t slub_obj_addr(const struct slub_world *w, slub_obj_t x)
{
	struct slub_cache *s;
	uint32_t id;
	uint16_t idx;
	if (decode(w, x, &s, &id, &idx) != NS_OK)
		return 0;
	return obj_addr(s, &s->slab[id], idx);
}

struct slub_cache *slub_obj_cache(const struct slub_world *w, slub_obj_t x)
{
	struct slub_cache *s;
	uint32_t id;
	uint16_t idx;
	return decode(w, x, &s, &id, &idx) == NS_OK ? s : NULL;
}

int slub_cache_info(const struct slub_cache *s, struct slub_cache_info *o)
{
	memset(o, 0, sizeof *o);
	o->object_size = s->object_size;
	o->size = s->size;
	o->align = s->align;
	o->offset = s->offset;
	o->flags = s->flags;
	o->order = s->oo_order;
	o->objects = s->oo_objects;
	o->min_order = s->min_order;
	o->min_objects = s->min_objects;
	o->max_order = s->max_order;
	o->max_objects = s->max_objects;
	o->min_partial = s->min_partial;
	o->cpu_partial = s->cpu_partial;
	o->has_cpu_partial = s->has_cpu_partial;
	o->allocated = s->allocated;
	o->freed = s->freed;
	o->slabs = s->cap_slab - s->nr_free_ids;
	o->pages_failed = s->pages_failed;
	return NS_OK;
}

static unsigned chain_len(const struct slub_cache *s, uint32_t id, uint16_t head)
{
	unsigned n = 0;
	const uint16_t *nx = &s->next[(size_t)id * s->per];
	for (uint16_t i = head; i != NIL16 && n <= s->slab[id].objects; i = nx[i])
		n++;
	return n;
}

int slub_slab_info(const struct slub_world *w, slub_obj_t x, struct slub_slab_info *o)
{
	struct slub_cache *s;
	uint32_t id;
	uint16_t idx;
	if (decode(w, x, &s, &id, &idx) != NS_OK)
		return NS_ENOENT;
	const struct slub_slab *sl = &s->slab[id];
	memset(o, 0, sizeof *o);
	o->cpu = -1;
	o->node = sl->node;
	o->inuse = sl->inuse;
	o->objects = sl->objects;
	o->frozen = sl->frozen;
	o->pfn = sl->pfn;
	o->page_free = chain_len(s, id, sl->freelist);
	o->loc = sl->on_list ? SLUB_LOC_NODE_PARTIAL : SLUB_LOC_FULL;
	for (int i = 0; i < w->s->nr_cpus; i++) {
		const struct slub_kcpu *k = &s->cpu[i];
		if (k->page == id) {
			o->loc = SLUB_LOC_CPU_SLAB;
			o->cpu = w->s->cpu[i].id;
		}
		for (uint32_t p = k->partial; p != NIL32; p = s->slab[p].pnext)
			if (p == id) {
				o->loc = SLUB_LOC_CPU_PARTIAL;
				o->cpu = w->s->cpu[i].id;
			}
	}
	return NS_OK;
}

int slub_cpu_info(const struct slub_world *w, const struct slub_cache *s, int cpu_id,
		  struct slub_cpu_info *o)
{
	struct cpu *c = cpu_sys_cpu(w->s, cpu_id);
	if (!c)
		return NS_ENOENT;
	const struct slub_kcpu *k = &s->cpu[c->idx];
	memset(o, 0, sizeof *o);
	o->has_page = k->page != NIL32;
	if (o->has_page) {
		o->page_obj = make_obj(s, k->page, 0);
		o->freelist = chain_len(s, k->page, k->freelist);
	}
	for (uint32_t p = k->partial; p != NIL32; p = s->slab[p].pnext)
		o->partial_slabs++;
	if (k->partial != NIL32) {
		o->pages = s->slab[k->partial].pages;
		o->pobjects = s->slab[k->partial].pobjects;
	}
	o->tid = k->tid;
	return NS_OK;
}

int slub_node_info(const struct slub_world *w, const struct slub_cache *s, int node_id,
		   struct slub_node_info *o)
{
	if (node_id < 0 || node_id >= MACHINE_MAX_NODES || w->m->node_index[node_id] < 0)
		return NS_ENOENT;
	const struct slub_knode *n = &s->node[w->m->node_index[node_id]];
	memset(o, 0, sizeof *o);
	o->nr_partial = n->nr_partial;
	o->nr_slabs = n->nr_slabs;
	o->total_objects = n->total_objects;
	for (uint32_t p = n->head; p != NIL32; p = s->slab[p].lnext)
		o->partial_empty += s->slab[p].inuse == 0;
	return NS_OK;
}

uint64_t slub_stat(const struct slub_world *w, const struct slub_cache *s, int cpu_id,
		   enum slub_stat item)
{
	if ((unsigned)item >= SLUB_NR_STATS)
		return 0;
	uint64_t v = 0;
	for (int i = 0; i < w->s->nr_cpus; i++)
		if (cpu_id < 0 || w->s->cpu[i].id == cpu_id)
			v += s->cpu[i].stat[item];
	return v;
}

int slub_counters(const struct slub_world *w, slub_counter_fn fn, void *arg)
{
	char id[64];
	int rc;
	for (int ci = 0; ci < w->nr_caches; ci++) {
		const struct slub_cache *s = w->caches[ci];
		for (int i = 0; i < SLUB_NR_STATS; i++)
			if ((rc = fn(arg, "cache", s->name, slub_stat_names[i],
				     (int64_t)slub_stat(w, s, -1, (enum slub_stat)i))) != NS_OK)
				return rc;
		struct slub_cache_info info;
		slub_cache_info(s, &info);
		const struct {
			const char *name;
			uint64_t v;
		} extra[] = {
			{"objects", info.allocated - info.freed},
			{"objects_allocated", info.allocated},
			{"objects_freed", info.freed},
			{"slabs", info.slabs},
			{"alloc_failed", info.pages_failed},
			{"free_frozen_branches", s->ff_branches},
			{"free_frozen_branches_taken", s->ff_taken},
			{"free_frozen_mispredicts", s->ff_mispredicts},
			{"free_frozen_cycles", s->ff_cycles},
			{"free_frozen_fence_wait_cycles", s->ff_fence},
			{"free_frozen_measured", s->ff_measured},
		};
		for (size_t i = 0; i < sizeof extra / sizeof extra[0]; i++)
			if ((rc = fn(arg, "cache", s->name, extra[i].name, (int64_t)extra[i].v)) != NS_OK)
				return rc;
		for (int c = 0; c < w->s->nr_cpus; c++) {
			snprintf(id, sizeof id, "%s/%d", s->name, w->s->cpu[c].id);
			for (int i = 0; i < SLUB_NR_STATS; i++)
				if ((rc = fn(arg, "cache_cpu", id, slub_stat_names[i],
					     (int64_t)s->cpu[c].stat[i])) != NS_OK)
					return rc;
		}
		for (int n = 0; n < w->m->nr_nodes; n++) {
			const struct slub_knode *kn = &s->node[n];
			snprintf(id, sizeof id, "%s/%d", s->name, w->m->nodes[n].id);
			if ((rc = fn(arg, "cache_node", id, "nr_partial", (int64_t)kn->nr_partial)) != NS_OK ||
			    (rc = fn(arg, "cache_node", id, "nr_slabs", (int64_t)kn->nr_slabs)) != NS_OK ||
			    (rc = fn(arg, "cache_node", id, "total_objects",
				     (int64_t)kn->total_objects)) != NS_OK)
				return rc;
		}
	}
	return NS_OK;
}

/* --- invariants ------------------------------------------------------------- */

#define FAIL(...) diag_set(d, NS_EINTERNAL, "slub", 0, 0, __VA_ARGS__)

/* Walk a chain of slab id: marks each object in seen (1 = on a freelist). */
static int walk_chain(const struct slub_cache *s, uint32_t id, uint16_t head, uint8_t *seen,
		      unsigned *len, struct diag *d)
{
	const struct slub_slab *sl = &s->slab[id];
	const uint16_t *nx = &s->next[(size_t)id * s->per];
	*len = 0;
	for (uint16_t i = head; i != NIL16; i = nx[i]) {
		if (i >= sl->objects)
			return FAIL("%s: slab %u: free pointer %u out of range", s->name, id, i);
		if (seen[i])
			return FAIL("%s: slab %u: object %u twice on freelists", s->name, id, i);
		if (s->alloc[(size_t)id * s->per + i])
			return FAIL("%s: slab %u: allocated object %u on a freelist", s->name, id, i);
		seen[i] = 1;
		++*len;
	}
	return NS_OK;
}

static int check_cache(const struct slub_world *w, const struct slub_cache *s, struct diag *d)
{
	int nc = w->s->nr_cpus, nn = w->m->nr_nodes;
	uint8_t *seen = malloc(s->per ? s->per : 1);
	uint8_t *where = calloc(s->cap_slab ? s->cap_slab : 1, 1); /* 1 cpu slab, 2 cpu partial */
	int rc = NS_ENOMEM;
	if (!seen || !where)
		goto out;
	rc = NS_OK;
	for (int i = 0; i < nc && rc == NS_OK; i++) {
		const struct slub_kcpu *k = &s->cpu[i];
		if (k->page != NIL32) {
			if (k->page >= s->cap_slab || !s->slab[k->page].page || where[k->page])
				rc = FAIL("%s: cpu %d: bad cpu slab", s->name, w->s->cpu[i].id);
			else
				where[k->page] = 1;
		} else if (k->freelist != NIL16) {
			rc = FAIL("%s: cpu %d: freelist without a slab", s->name, w->s->cpu[i].id);
		}
		unsigned len = 0;
		for (uint32_t p = k->partial; p != NIL32 && rc == NS_OK; p = s->slab[p].pnext) {
			if (p >= s->cap_slab || !s->slab[p].page || where[p])
				rc = FAIL("%s: cpu %d: bad partial chain", s->name, w->s->cpu[i].id);
			else
				where[p] = 2;
			if (++len > s->cap_slab)
				rc = FAIL("%s: cpu %d: partial chain cycles", s->name, w->s->cpu[i].id);
		}
		if (rc == NS_OK && k->partial != NIL32 && s->slab[k->partial].pages != (int)len)
			rc = FAIL("%s: cpu %d: chain head pages %d, chain has %u", s->name,
				  w->s->cpu[i].id, s->slab[k->partial].pages, len);
	}
	for (int i = 0; i < nn && rc == NS_OK; i++) {
		const struct slub_knode *n = &s->node[i];
		unsigned long cnt = 0;
		uint32_t prev = NIL32;
		if (n->lock.holder != -1)
			rc = FAIL("%s: node %d: list_lock held or misused", s->name, w->m->nodes[i].id);
		for (uint32_t p = n->head; p != NIL32 && rc == NS_OK; p = s->slab[p].lnext) {
			const struct slub_slab *sl = &s->slab[p];
			if (p >= s->cap_slab || !sl->page || !sl->on_list || sl->frozen ||
			    sl->lprev != prev || w->m->node_index[sl->node] != i || where[p] == 3)
				rc = FAIL("%s: node %d: bad partial list entry %u", s->name,
					  w->m->nodes[i].id, p);
			where[p] = 3;
			prev = p;
			if (++cnt > s->cap_slab)
				rc = FAIL("%s: node %d: partial list cycles", s->name, w->m->nodes[i].id);
		}
		if (rc == NS_OK && (n->tail != prev || cnt != n->nr_partial))
			rc = FAIL("%s: node %d: nr_partial %lu, list has %lu", s->name,
				  w->m->nodes[i].id, n->nr_partial, cnt);
	}
	uint64_t inuse_sum = 0, cpu_free = 0;
	unsigned long *slabs = calloc((size_t)nn, sizeof *slabs), *objs = calloc((size_t)nn, sizeof *objs);
	if (!slabs || !objs) {
		free(slabs);
		free(objs);
		rc = rc == NS_OK ? NS_ENOMEM : rc;
		goto out;
	}
	for (uint32_t id = 0; id < s->cap_slab && rc == NS_OK; id++) {
		const struct slub_slab *sl = &s->slab[id];
		if (!sl->page) {
			if (where[id])
				rc = FAIL("%s: slab %u: unused entry on a list", s->name, id);
			continue;
		}
		int pos = w->m->node_index[sl->node];
		slabs[pos]++;
		objs[pos] += sl->objects;
		bool is_cpu = where[id] == 1 || where[id] == 2;
		if (sl->frozen != is_cpu)
			rc = FAIL("%s: slab %u: frozen %u but %s a cpu slab", s->name, id, sl->frozen,
				  is_cpu ? "is" : "not");
		if (rc == NS_OK && sl->on_list != (where[id] == 3))
			rc = FAIL("%s: slab %u: on_list flag wrong", s->name, id);
		if (rc == NS_OK && (sl->freelist == NIL16) != (sl->inuse == sl->objects))
			rc = FAIL("%s: slab %u: freelist %s but inuse %u of %u", s->name, id,
				  sl->freelist == NIL16 ? "empty" : "non-empty", sl->inuse, sl->objects);
		if (rc != NS_OK)
			break;
		memset(seen, 0, s->per);
		unsigned pl, cl = 0;
		rc = walk_chain(s, id, sl->freelist, seen, &pl, d);
		for (int i = 0; i < nc && rc == NS_OK; i++)
			if (s->cpu[i].page == id)
				rc = walk_chain(s, id, s->cpu[i].freelist, seen, &cl, d);
		if (rc != NS_OK)
			break;
		if (pl != (unsigned)(sl->objects - sl->inuse))
			rc = FAIL("%s: slab %u: page freelist %u long, inuse %u of %u", s->name, id, pl,
				  sl->inuse, sl->objects);
		unsigned handed = 0;
		for (unsigned i = 0; i < sl->objects; i++)
			handed += s->alloc[(size_t)id * s->per + i];
		if (rc == NS_OK && handed + pl + cl != sl->objects)
			rc = FAIL("%s: slab %u: %u handed out + %u + %u free != %u objects", s->name,
				  id, handed, pl, cl, sl->objects);
		inuse_sum += sl->inuse;
		cpu_free += cl;
	}
	for (int i = 0; i < nn && rc == NS_OK; i++)
		if (slabs[i] != s->node[i].nr_slabs || objs[i] != s->node[i].total_objects)
			rc = FAIL("%s: node %d: nr_slabs/total_objects %lu/%lu, pool has %lu/%lu",
				  s->name, w->m->nodes[i].id, s->node[i].nr_slabs,
				  s->node[i].total_objects, slabs[i], objs[i]);
	if (rc == NS_OK && s->allocated - s->freed != inuse_sum - cpu_free)
		rc = FAIL("%s: %" PRIu64 " allocated - %" PRIu64 " freed != Σinuse %" PRIu64
			  " - cpu freelists %" PRIu64, s->name, s->allocated, s->freed, inuse_sum,
			  cpu_free);
	free(slabs);
	free(objs);
out:
	free(seen);
	free(where);
	return rc;
}

int slub_check(const struct slub_world *w, struct diag *d)
{
	for (int i = 0; i < w->nr_caches; i++) {
		int rc = check_cache(w, w->caches[i], d);
		if (rc != NS_OK)
			return rc;
	}
	return NS_OK;
}
