/*
 * slub — Linux v5.9 SLUB (PRE) and v5.9 + c270cf30 (POST), see slub.h and
 * docs/design/slub-model.md: the kernel's allocation and free paths, under the
 * kernel's names (slab_alloc_node, __slab_alloc, ___slab_alloc,
 * new_slab_objects, get_partial*, new_slab, deactivate_slab, slab_free,
 * do_slab_free, __slab_free, put_cpu_partial, unfreeze_partials,
 * discard_slab), each charging the cost model where the kernel's code
 * would cost.  Set-up, names and cost tables are in models/slub_setup.c;
 * introspection, counters, slub_check() and the instrumentation behind
 * models/slub_hook.h in models/slub_inspect.c; what they share in
 * models/slub_internal.h.
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
 * clears a page.  The offsets of the fields are those of the kernel's
 * structures (slub_internal.h).  Every memory access goes through
 * slub_mem(), one wrapper over cpu_mem, or bmem() for an access a code
 * block declared.  Straight-line work between sites comes from the
 * world's column of SLUB_WORK (the estimate, identical for PRE and POST,
 * or the compiled counts per variant, `cost.code`) and is charged through
 * the code blocks of SLUB_BLOCKS (w->code, costed from that column at
 * set-up), as the page allocator's MM_BLOCKS.
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
 * Instrumentation.  numasim trace's record of a __slab_free, the seed
 * metric (the FREE_FROZEN calls' figures) and the race hook are not in
 * __slab_free: it calls one hook at each of three points (entry, before
 * the cmpxchg_double, exit), models/slub_hook.h.  A site's record for the
 * trace is in br(), a stat item's in stat_inc(), one predictable branch
 * each while no trace is taken.
 *
 * Fast copies.  Under sampled accounting this file, and only this file, is
 * compiled twice more (models/slub_copy.c, cost/copy.h), with the
 * charging helpers reduced to a fast call's steps; slub_alloc() and
 * slub_free() run a copy when their top-level call will be fast
 * (fast_entry()).  So its public functions are the entries, named
 * COPY_ENTRY(name); the kernel functions a cold file calls are declared
 * COPY_PRIVATE in slub_internal.h.  The copies' results are this code's,
 * bit for bit (test_slub's test_fast_copy).
 */
#include "cost/charge.h"
#include "cost/copy.h"
#include "models/slub.h"
#include "models/slub_hook.h"
#include "models/slub_internal.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* --- the charging helpers ----------------------------------------------------- */

/*
 * The charging helpers (cost/charge.h) over SLUB's enums: the world's
 * context w->ch (its ids from fn_base and site_base, no same-line memo:
 * SLUB's accesses interleave with its locks and with the page
 * allocator's, and the trace hook, set only while numasim trace records a
 * __slab_free: slub_trace_begin()) and the constant SLUB_CHARGE.  In a
 * fast copy (COPY_CHARGE, models/slub_copy.c) they are a fast call's steps:
 * a branch counted and signed, a call counted and signed
 * (cpu_copy_call()), a block, work, a return, an irq save or restore and
 * a this_cpu cmpxchg nothing, an access cpu_fast_mem() (copy 1) or
 * nothing (copy 2).  The copy runs inside a fast call its entry started
 * (fast_entry() below) and never while a trace may record.  SLUB's ids
 * follow the page allocator's in the tables, so they are not constants
 * (no CHARGE_IDS_FIXED).  Locks and the clock as noise stay the ordinary
 * cpu.c calls, which handle a fast call themselves.
 */
#define SLUB_CHARGE (COPY_CHARGE | CHARGE_TRACE)
#define SLUB_FAST (COPY_CHARGE != 0)     /* this is a fast copy */

static CPU_INLINE bool br(struct cpu *c, const struct slub_world *w, enum slub_site s,
			  bool cond)
{
	return charge_br(c, &w->ch, (int)s, cond, SLUB_CHARGE);
}

static CPU_INLINE void call(struct cpu *c, const struct slub_world *w, enum slub_fn f)
{
	charge_call(c, &w->ch, (int)f, SLUB_CHARGE);
}

static CPU_INLINE void ret(struct cpu *c)
{
	charge_ret(c, SLUB_CHARGE);
}

/* A block of SLUB_BLOCKS: its work row and declared accesses in one step
 * (cpu_block(); the steps in turn under ooo and in logged or fast calls). */
static CPU_INLINE void run_block(struct cpu *c, const struct slub_world *w, enum slub_code b)
{
	charge_block(c, &w->code[b], SLUB_CHARGE);
}

/* Straight-line work outside the blocks (the `!n` block's, free_unlocked()):
 * its instructions, as cpu_insns() charges them, booked to its unit. */
static CPU_INLINE void insns(struct cpu *c, const struct slub_world *w, enum slub_block b)
{
	if (!(SLUB_CHARGE & CHARGE_COPY)) {
		cpu_work_unit(c, w->block_unit < 0 ? -1 : w->block_unit + (int32_t)b);
		cpu_insns(c, w->block[b]);
	}
}

/* A word at addr, its home node from the synthetic address (cost/cpu.h's
 * access kinds). */
static CPU_INLINE void mem(struct cpu *c, const struct slub_world *w, uint64_t addr,
			   enum cpu_access kind)
{
	charge_mem(c, &w->ch, addr, 8, cache_as_node(addr), kind, false, SLUB_CHARGE);
}

/*
 * A word access the open block declared (SLUB_BLOCKS): cpu_block() charged
 * it as an L1 hit, and it goes through the caches only (cpu_mem_pre());
 * where the block precharged nothing (a logged or fast call, cost.model
 * ooo: cpu_block_take() is false) it is mem().  Always inline, as the
 * page allocator's: left to GCC, bmem() and run_block() were out-of-line
 * calls and `bench slub` took 1.6 % more host instructions.
 */
static CPU_INLINE void bmem(struct cpu *c, const struct slub_world *w, uint64_t addr,
			    enum cpu_access kind)
{
	charge_mem(c, &w->ch, addr, 8, cache_as_node(addr), kind, true, SLUB_CHARGE);
}

/* A locked read-modify-write (cmpxchg_double, the node counters' atomics). */
static inline void atomic(struct cpu *c, const struct slub_world *w, uint64_t addr, int node)
{
	charge_atomic(c, &w->ch, addr, node, SLUB_CHARGE);
}

static CPU_INLINE void irq_save(struct cpu *c)
{
	charge_irq_save(c, SLUB_CHARGE);
}

static CPU_INLINE void irq_restore(struct cpu *c)
{
	charge_irq_restore(c, SLUB_CHARGE);
}

static CPU_INLINE void this_cpu_cmpxchg(struct cpu *c)
{
	charge_this_cpu_cmpxchg(c, SLUB_CHARGE);
}

/* stat(s, si): the counter, and its store with CONFIG_SLUB_STATS. */
static void stat_inc(struct cpu *c, struct slub_cache *s, enum slub_stat si)
{
	struct slub_world *w = s->w;
	struct slub_kcpu *k = kcpu(s, c);
	k->stat[si]++;
	if (!SLUB_FAST && w->tr)   /* only while numasim trace records a __slab_free */
		slub_trace_stat(w, si);
	if (w->cfg.stats)   /* raw_cpu_inc(s->cpu_slab->stat[si]) */
		mem(c, w, k->addr + KCPU_OFF_STAT + KCPU_STAT_SIZE * (unsigned)si, CPU_STORE);
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

/* --- lists ------------------------------------------------------------------ */

static void add_partial(struct cpu *c, struct slub_cache *s, struct slub_knode *n,
			uint32_t id, bool tail)
{
	struct slub_world *w = s->w;
	struct slub_slab *sl = &s->slab[id];
	call(c, w, FN_add_partial);
	run_block(c, w, B_add_partial);
	n->nr_partial++;
	bmem(c, w, n->addr + KNODE_OFF_NR_PARTIAL, CPU_STORE);
	bmem(c, w, n->addr + KNODE_OFF_PARTIAL, CPU_LOAD_DEP);
	bmem(c, w, sl->meta + PAGE_OFF_LRU, CPU_STORE);
	sl->on_list = 1;
	/* the neighbour's link: only when the list was not empty (a plain
	 * step); the head's word below on every path */
	if (tail) {
		sl->lnext = NIL32;
		sl->lprev = n->tail;
		if (n->tail != NIL32) {
			mem(c, w, s->slab[n->tail].meta + PAGE_OFF_LRU, CPU_STORE);
			s->slab[n->tail].lnext = id;
		} else {
			n->head = id;
		}
		n->tail = id;
	} else {
		sl->lprev = NIL32;
		sl->lnext = n->head;
		if (n->head != NIL32) {
			mem(c, w, s->slab[n->head].meta + PAGE_OFF_LRU, CPU_STORE);
			s->slab[n->head].lprev = id;
		} else {
			n->tail = id;
		}
		n->head = id;
	}
	bmem(c, w, n->addr + KNODE_OFF_PARTIAL, CPU_STORE);
	ret(c);
}

static void remove_partial(struct cpu *c, struct slub_cache *s, struct slub_knode *n,
			   uint32_t id)
{
	struct slub_world *w = s->w;
	struct slub_slab *sl = &s->slab[id];
	call(c, w, FN_remove_partial);
	run_block(c, w, B_remove_partial);
	bmem(c, w, sl->meta + PAGE_OFF_LRU, CPU_LOAD_DEP);
	/* __list_del(): each side's link is a neighbour's slab_list or, at an
	 * end, the list head's word: one store on every path */
	if (sl->lprev != NIL32) {
		bmem(c, w, s->slab[sl->lprev].meta + PAGE_OFF_LRU, CPU_STORE);
		s->slab[sl->lprev].lnext = sl->lnext;
	} else {
		bmem(c, w, n->addr + KNODE_OFF_PARTIAL, CPU_STORE);
		n->head = sl->lnext;
	}
	if (sl->lnext != NIL32) {
		bmem(c, w, s->slab[sl->lnext].meta + PAGE_OFF_LRU, CPU_STORE);
		s->slab[sl->lnext].lprev = sl->lprev;
	} else {
		bmem(c, w, n->addr + KNODE_OFF_PARTIAL, CPU_STORE);
		n->tail = sl->lprev;
	}
	sl->lprev = sl->lnext = NIL32;
	sl->on_list = 0;
	n->nr_partial--;
	bmem(c, w, n->addr + KNODE_OFF_NR_PARTIAL, CPU_STORE);
	ret(c);
}

/* remove_full: list work only for SLAB_STORE_USER caches (not modelled). */
static void remove_full(struct cpu *c, struct slub_cache *s)
{
	const struct slub_world *w = s->w;
	call(c, w, FN_remove_full);
	mem(c, w, s->addr + KCACHE_OFF_FLAGS, CPU_LOAD_DEP);
	ret(c);
}


/* --- new_slab, discard_slab ---------------------------------------------------- */

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
	if (!pg || (!s->nr_free_ids && slub_pool_grow(s) != NS_OK)) {
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
	sl->alloc_cpu = -1;
	sl->chain_cpu = -1;
	mem(c, w, sl->meta + PAGE_OFF_SLAB_CACHE, CPU_STORE); /* objects, slab_cache, flags */
	/* build the free chain: set_freepointer on every object */
	uint16_t *nx = nextp(s, id);
	for (unsigned i = 0; i < objects; i++) {
		nx[i] = (uint16_t)(i + 1 < objects ? i + 1 : NIL16);
		s->alloc[(size_t)id * s->per + i] = 0;
		run_block(c, w, B_slab_object_init);
		bmem(c, w, fp_addr(s, sl, i), CPU_STORE);
	}
	sl->freelist = 0;
	sl->inuse = (uint16_t)objects;
	sl->frozen = 1;
	mem(c, w, sl->meta + PAGE_OFF_FREELIST, CPU_STORE);
	/* inc_slabs_node: atomics on the node's counters */
	struct slub_knode *n = get_node(s, sl->node);
	n->nr_slabs++;
	n->total_objects += objects;
	atomic(c, w, n->addr + KNODE_OFF_NR_SLABS, sl->node);
	atomic(c, w, n->addr + KNODE_OFF_TOTAL_OBJECTS, sl->node);
out:
	ret(c);
	return id;
}

/* new_slab(s, flags, node): allocate_slab with the reclaim and constraint
 * flags of the allocation (no GFP_SLAB_BUG_MASK flags modelled). */
static uint32_t new_slab(struct cpu *c, struct slub_cache *s)
{
	call(c, s->w, FN_new_slab);
	uint32_t id = allocate_slab(c, s);
	ret(c);
	return id;
}

/* __free_slab(s, page) (free_slab without SLAB_TYPESAFE_BY_RCU's deferral
 * is inlined into discard_slab): __ClearPageSlab, __free_pages. */
static void __free_slab(struct cpu *c, struct slub_cache *s, uint32_t id)
{
	struct slub_world *w = s->w;
	struct slub_slab *sl = &s->slab[id];
	call(c, w, FN___free_slab);
	run_block(c, w, B_discard_slab);
	bmem(c, w, sl->meta, CPU_STORE);       /* __ClearPageSlab, page->mapping */
	struct page *pg = sl->page;
	unsigned order = sl->order;
	sl->page = NULL;
	s->free_ids[s->nr_free_ids++] = id;
	mm_free_pages(w->pa, c, pg, order);
	ret(c);
}

/* discard_slab: dec_slabs_node, free_slab. */
static void discard_slab(struct cpu *c, struct slub_cache *s, uint32_t id)
{
	const struct slub_world *w = s->w;
	struct slub_slab *sl = &s->slab[id];
	call(c, w, FN_discard_slab);
	struct slub_knode *n = get_node(s, sl->node);
	n->nr_slabs--;
	n->total_objects -= sl->objects;
	atomic(c, w, n->addr + KNODE_OFF_NR_SLABS, sl->node);
	atomic(c, w, n->addr + KNODE_OFF_TOTAL_OBJECTS, sl->node);
	__free_slab(c, s, id);
	ret(c);
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
		mem(c, w, k->addr + KCPU_OFF_PARTIAL, CPU_LOAD_DEP);
		if (!br(c, w, S_uf_loop, k->partial != NIL32))
			break;
		uint32_t id = k->partial;
		struct slub_slab *sl = &s->slab[id];
		run_block(c, w, B_unfreeze_page);
		bmem(c, w, sl->meta + PAGE_OFF_LRU, CPU_LOAD_DEP);
		k->partial = sl->pnext;
		sl->chain_cpu = -1;
		bmem(c, w, k->addr + KCPU_OFF_PARTIAL, CPU_STORE);
		struct slub_knode *n2 = get_node(s, sl->node);
		if (br(c, w, S_uf_node, n != n2)) {
			if (n)
				unlock_node(c, n);
			n = n2;
			lock_node(c, n);
		}
		/* do { new.frozen = 0 } while (!__cmpxchg_double_slab()) */
		mem(c, w, sl->meta + PAGE_OFF_FREELIST, CPU_LOAD_DEP);
		atomic(c, w, sl->meta + PAGE_OFF_FREELIST, sl->node);
		sl->frozen = 0;
		sl->pnext = NIL32;
		mem(c, w, n->addr + KNODE_OFF_NR_PARTIAL, CPU_LOAD_DEP);
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
	ret(c);
}

static void put_cpu_partial(struct cpu *c, struct slub_cache *s, uint32_t id, bool drain)
{
	struct slub_world *w = s->w;
	struct slub_kcpu *k = kcpu(s, c);
	/* b47291ef02b0: the limit in slabs, no pobjects kept */
	bool in_pages = slub_applied(&w->cfg, KC_slub_01);
	call(c, w, FN_put_cpu_partial);
	run_block(c, w, in_pages ? B_put_cpu_partial_pages : B_put_cpu_partial);
	int pages = 0, pobjects = 0;
	bmem(c, w, k->addr + KCPU_OFF_PARTIAL, CPU_LOAD_DEP);
	uint32_t old = k->partial;
	if (br(c, w, S_P1, old != NIL32)) {
		mem(c, w, s->slab[old].meta + PAGE_OFF_NEXT_PAGES, CPU_LOAD_DEP);
		pobjects = s->slab[old].pobjects;
		pages = s->slab[old].pages;
		if (br(c, w, S_P2a, drain) &&
		    (in_pages ? br(c, w, S_P2c, pages >= (int)s->cpu_partial_pages)
			      : br(c, w, S_P2b, pobjects > (int)s->cpu_partial))) {
			irq_save(c);
			unfreeze_partials(c, s);
			irq_restore(c);
			old = NIL32;
			pobjects = 0;
			pages = 0;
			stat_inc(c, s, SLUB_CPU_PARTIAL_DRAIN);
		}
	}
	struct slub_slab *sl = &s->slab[id];
	pages++;
	if (!in_pages)
		pobjects += sl->objects - sl->inuse;
	sl->pages = pages;
	sl->pobjects = in_pages ? 0 : pobjects;
	sl->pnext = old;
	sl->chain_cpu = (int16_t)c->idx;
	mem(c, w, sl->meta + PAGE_OFF_LRU, CPU_STORE);
	mem(c, w, sl->meta + PAGE_OFF_NEXT_PAGES, CPU_STORE);
	this_cpu_cmpxchg(c);   /* this_cpu_cmpxchg(c->partial, old, page) */
	k->partial = id;
	mem(c, w, s->addr + KCACHE_OFF_CPU_PARTIAL, CPU_LOAD_DEP);
	if (br(c, w, S_P3, s->cpu_partial == 0)) {
		irq_save(c);
		unfreeze_partials(c, s);
		irq_restore(c);
	}
	ret(c);
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
	enum slub_block nb = was_frozen ? SLUB_BLOCK_FROZEN
			     : new_frozen ? SLUB_BLOCK_PUT : SLUB_BLOCK_NONE;
	insns(c, w, nb);
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


/* page->freelist and page->counters (inuse, frozen; objects never
 * changes), the pair cmpxchg_double_slab() compares and swaps. */
struct freelist_counters {
	uint16_t freelist, inuse;
	uint8_t frozen;
};

static inline struct freelist_counters freelist_counters(const struct slub_slab *sl)
{
	struct freelist_counters x = {sl->freelist, sl->inuse, sl->frozen};
	return x;
}

/*
 * cmpxchg_double_slab(s, page, prior, counters, head, new.counters, ...):
 * __slab_free is its only caller, so the model's carries __slab_free's
 * retry test (S4, the `while (!...)`); on failure cpu_relax() and
 * stat(CMPXCHG_DOUBLE_FAIL), as the kernel's.  Slab id is looked up
 * again: the race hook may have grown the pool.
 */
static bool cmpxchg_double_slab(struct cpu *c, struct slub_cache *s, uint32_t id,
				struct freelist_counters old, struct freelist_counters new)
{
	struct slub_world *w = s->w;
	struct slub_slab *sl = &s->slab[id];
	atomic(c, w, sl->meta + PAGE_OFF_FREELIST, sl->node);
	bool same = sl->freelist == old.freelist && sl->inuse == old.inuse &&
		    sl->frozen == old.frozen;
	if (br(c, w, S_S4, !same)) {
		run_block(c, w, B_cpu_relax);
		stat_inc(c, s, SLUB_CMPXCHG_DOUBLE_FAIL);
		return false;
	}
	sl->freelist = new.freelist;
	sl->inuse = new.inuse;
	sl->frozen = new.frozen;
	return true;
}

/*
 * __slab_free(s, page, head, tail, cnt): the chain head..tail (linked
 * through next[]) of cnt objects of slab id goes in front of
 * page->freelist.  Its instrumentation is at the three hooks of
 * models/slub_hook.h.
 */
static void __slab_free(struct cpu *c, struct slub_cache *s, uint32_t id, uint16_t head,
			uint16_t tail, unsigned cnt)
{
	struct slub_world *w = s->w;
	struct slab_free_hook hook;
	uint16_t prior;
	bool was_frozen = false;
	struct freelist_counters old, new;
	struct slub_knode *n = NULL;

	slub_hook_free_enter(c, s, id, cnt, &hook);
	call(c, w, FN___slab_free);
	run_block(c, w, B_slab_free_entry);
	stat_inc(c, s, SLUB_FREE_SLOWPATH);
	bmem(c, w, s->addr + KCACHE_OFF_FLAGS, CPU_LOAD_DEP);
	br(c, w, S_S0, false);   /* kmem_cache_debug(s): no debug caches modelled */
	do {
		if (br(c, w, S_S1, n != NULL)) {
			unlock_node(c, n);   /* spin_unlock_irqrestore: the unlock charged */
			n = NULL;
		}
		run_block(c, w, B_slab_free_try);
		struct slub_slab *sl = &s->slab[id];
		bmem(c, w, sl->meta + PAGE_OFF_FREELIST, CPU_LOAD_DEP);
		old = freelist_counters(sl);
		prior = old.freelist;
		nextp(s, id)[tail] = prior;                  /* set_freepointer(tail, prior) */
		bmem(c, w, fp_addr(s, sl, tail), CPU_STORE);
		new = old;
		new.freelist = head;
		was_frozen = new.frozen;
		new.inuse = (uint16_t)(new.inuse - cnt);
		if ((br(c, w, S_S2a, new.inuse == 0) || br(c, w, S_S2b, prior == NIL16)) &&
		    br(c, w, S_S2c, !was_frozen)) {
			mem(c, w, s->addr + KCACHE_OFF_FLAGS, CPU_LOAD);
			if (br(c, w, S_S3a, s->has_cpu_partial) && br(c, w, S_S3b, prior == NIL16)) {
				new.frozen = 1;
			} else {
				n = get_node(s, sl->node);
				irq_save(c);
				lock_node(c, n);
			}
		}
		slub_hook_free_race(c, s, id, head, &hook);
	} while (!cmpxchg_double_slab(c, s, id, old, new));

	if (br(c, w, S_S5, n == NULL)) {
		free_unlocked(c, s, id, was_frozen, new.frozen);
		goto out;
	}
	/* list_lock of the slab's node held, slab not frozen */
	mem(c, w, n->addr + KNODE_OFF_NR_PARTIAL, CPU_LOAD_DEP);
	mem(c, w, s->addr + KCACHE_OFF_MIN_PARTIAL, CPU_LOAD);
	if (br(c, w, S_S8a, new.inuse == 0) && br(c, w, S_S8b, n->nr_partial >= s->min_partial))
		goto slab_empty;
	if (br(c, w, S_S9a, !s->has_cpu_partial) && br(c, w, S_S9b, prior == NIL16)) {
		remove_full(c, s);
		add_partial(c, s, n, id, true);
		stat_inc(c, s, SLUB_FREE_ADD_PARTIAL);
	}
	run_block(c, w, B_slab_free_tail);
	unlock_node(c, n);
	irq_restore(c);
	goto out;
slab_empty:
	if (br(c, w, S_S10, prior != NIL16)) {
		remove_partial(c, s, n, id);
		stat_inc(c, s, SLUB_FREE_REMOVE_PARTIAL);
	} else {
		remove_full(c, s);
	}
	unlock_node(c, n);
	irq_restore(c);
	stat_inc(c, s, SLUB_FREE_SLAB);
	discard_slab(c, s, id);
out:
	slub_hook_free_exit(c, s, n != NULL, was_frozen, &hook);
	ret(c);
}

/* do_slab_free: the fast path when the slab is this CPU's active slab. */
static void do_slab_free(struct cpu *c, struct slub_cache *s, uint32_t id, uint16_t head,
			 uint16_t tail, unsigned cnt)
{
	struct slub_world *w = s->w;
	struct slub_kcpu *k = kcpu(s, c);
	call(c, w, FN_do_slab_free);
	mem(c, w, k->addr + KCPU_OFF_TID, CPU_LOAD_DEP);
	mem(c, w, k->addr + KCPU_OFF_PAGE, CPU_LOAD_DEP);
	if (br(c, w, S_free_fast, k->page == id)) {
		run_block(c, w, B_free_fast);
		bmem(c, w, k->addr + KCPU_OFF_FREELIST, CPU_LOAD);
		nextp(s, id)[tail] = k->freelist;        /* set_freepointer(tail_obj, freelist) */
		bmem(c, w, fp_addr(s, &s->slab[id], tail), CPU_STORE);
		this_cpu_cmpxchg(c);                  /* this_cpu_cmpxchg_double */
		k->freelist = head;
		k->tid = next_tid(k->tid);
		stat_inc(c, s, SLUB_FREE_FASTPATH);
	} else {
		__slab_free(c, s, id, head, tail, cnt);
	}
	ret(c);
}

/* slab_free: no free hooks modelled (slab_free_freelist_hook is true). */
static void slab_free(struct cpu *c, struct slub_cache *s, uint32_t id, uint16_t head,
		      uint16_t tail, unsigned cnt)
{
	call(c, s->w, FN_slab_free);
	do_slab_free(c, s, id, head, tail, cnt);
	ret(c);
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
	bmem(c, w, sl->meta + PAGE_OFF_FREELIST, CPU_LOAD_DEP);
	if (br(c, w, S_ds_remote, sl->freelist != NIL16)) {
		stat_inc(c, s, SLUB_DEACTIVATE_REMOTE_FREES);
		tail = true;
	}
	/* stage 1: all but the last object of the cpu freelist, one by one */
	for (;;) {
		uint16_t nextfree = NIL16;
		if (freelist != NIL16) {
			mem(c, w, fp_addr(s, sl, freelist), CPU_LOAD_DEP);
			nextfree = nx[freelist];
		}
		if (!br(c, w, S_ds_stage1, freelist != NIL16 && nextfree != NIL16))
			break;
		run_block(c, w, B_deactivate_object);
		bmem(c, w, sl->meta + PAGE_OFF_FREELIST, CPU_LOAD_DEP);
		nx[freelist] = sl->freelist;
		bmem(c, w, fp_addr(s, sl, freelist), CPU_STORE);
		atomic(c, w, sl->meta + PAGE_OFF_FREELIST, sl->node);
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
		mem(c, w, fp_addr(s, sl, freelist), CPU_STORE);
		new_freelist = freelist;
	}
	enum slab_modes m, l = M_NONE;
	bool locked = false;
	bmem(c, w, n->addr + KNODE_OFF_NR_PARTIAL, CPU_LOAD_DEP);
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
	atomic(c, w, sl->meta + PAGE_OFF_FREELIST, sl->node);
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
	mem(c, w, k->addr + KCPU_OFF_PAGE, CPU_STORE);
	mem(c, w, k->addr + KCPU_OFF_FREELIST, CPU_STORE);
	ret(c);
}

static void flush_slab(struct cpu *c, struct slub_cache *s)
{
	const struct slub_world *w = s->w;
	struct slub_kcpu *k = kcpu(s, c);
	call(c, w, FN_flush_slab);
	stat_inc(c, s, SLUB_CPUSLAB_FLUSH);
	deactivate_slab(c, s, k->page, k->freelist);
	k->tid = next_tid(k->tid);
	mem(c, w, k->addr + KCPU_OFF_TID, CPU_STORE);
	ret(c);
}


/* __flush_cpu_slab(s, cpu) for CPU c. */
static void __flush_cpu_slab(struct cpu *c, struct slub_cache *s)
{
	const struct slub_world *w = s->w;
	struct slub_kcpu *k = kcpu(s, c);
	mem(c, w, k->addr + KCPU_OFF_PAGE, CPU_LOAD_DEP);
	if (br(c, w, S_fc_page, k->page != NIL32))
		flush_slab(c, s);
	unfreeze_partials(c, s);
}

/* flush_cpu_slab on CPU c (on_each_cpu runs it with irqs off); the
 * entry slub_flush_cpu() is in slub_setup.c. */
void flush_cpu_slab(struct cpu *c, struct slub_cache *s)
{
	irq_save(c);
	__flush_cpu_slab(c, s);
	irq_restore(c);
}

/* --- allocation slow path ------------------------------------------------------ */

/* get_freelist: take page->freelist; unfreeze when it was empty. */
static uint16_t get_freelist(struct cpu *c, struct slub_cache *s, uint32_t id)
{
	const struct slub_world *w = s->w;
	struct slub_slab *sl = &s->slab[id];
	call(c, w, FN_get_freelist);
	run_block(c, w, B_get_freelist);
	bmem(c, w, sl->meta + PAGE_OFF_FREELIST, CPU_LOAD_DEP);
	uint16_t freelist = sl->freelist;
	atomic(c, w, sl->meta + PAGE_OFF_FREELIST, sl->node);
	sl->freelist = NIL16;
	sl->inuse = sl->objects;
	sl->frozen = freelist != NIL16;
	ret(c);
	return freelist;
}

/* acquire_slab: freeze a node partial slab, remove it from the list. */
static uint16_t acquire_slab(struct cpu *c, struct slub_cache *s, struct slub_knode *n,
			     uint32_t id, bool mode, int *objects)
{
	const struct slub_world *w = s->w;
	struct slub_slab *sl = &s->slab[id];
	call(c, w, FN_acquire_slab);
	run_block(c, w, B_acquire_slab);
	bmem(c, w, sl->meta + PAGE_OFF_FREELIST, CPU_LOAD_DEP);
	uint16_t freelist = sl->freelist;
	*objects = sl->objects - sl->inuse;
	atomic(c, w, sl->meta + PAGE_OFF_FREELIST, sl->node);
	if (mode) {
		sl->inuse = sl->objects;
		sl->freelist = NIL16;
	}
	sl->frozen = 1;
	remove_partial(c, s, n, id);
	ret(c);
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
	bmem(c, w, n->addr + KNODE_OFF_NR_PARTIAL, CPU_LOAD_DEP);
	if (br(c, w, S_gpn_empty, n->nr_partial == 0))
		goto out;
	lock_node(c, n);
	int available = 0, partial_pages = 0;
	bool in_pages = slub_applied(&w->cfg, KC_slub_01);   /* b47291ef02b0 */
	mem(c, w, n->addr + KNODE_OFF_PARTIAL, CPU_LOAD_DEP);
	for (uint32_t id = n->head, next; br(c, w, S_gpn_next, id != NIL32); id = next) {
		run_block(c, w, B_partial_node_page);
		bmem(c, w, s->slab[id].meta + PAGE_OFF_LRU, CPU_LOAD_DEP);
		next = s->slab[id].lnext;
		int objects;
		uint16_t t = acquire_slab(c, s, n, id, object == NIL16, &objects);
		if (br(c, w, S_gpn_acq_fail, t == NIL16))
			break;
		available += objects;
		if (br(c, w, S_gpn_first, object == NIL16)) {
			k->page = id;
			s->slab[id].alloc_cpu = (int16_t)c->idx;
			mem(c, w, k->addr + KCPU_OFF_PAGE, CPU_STORE);
			stat_inc(c, s, SLUB_ALLOC_FROM_PARTIAL);
			object = t;
		} else {
			put_cpu_partial(c, s, id, false);
			stat_inc(c, s, SLUB_CPU_PARTIAL_NODE);
			partial_pages++;
		}
		if (in_pages ? br(c, w, S_gpn_enough_pages,
				  !s->has_cpu_partial ||
				  partial_pages > (int)(s->cpu_partial_pages / 2))
			     : br(c, w, S_gpn_enough,
				  !s->has_cpu_partial || available > (int)(s->cpu_partial / 2)))
			break;
	}
	unlock_node(c, n);
out:
	ret(c);
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
		bmem(c, w, s->addr + KCACHE_OFF_NODE + 8u * (unsigned)w->m->node_index[id],
		     CPU_LOAD_DEP);
		bmem(c, w, n->addr + KNODE_OFF_NR_PARTIAL, CPU_LOAD_DEP);
		if (br(c, w, S_gap_node, n->nr_partial > s->min_partial)) {
			object = get_partial_node(c, s, n);
			if (object != NIL16)
				break;
		}
	}
out:
	ret(c);
	return object;
}

static uint16_t get_partial(struct cpu *c, struct slub_cache *s, int node)
{
	struct slub_world *w = s->w;
	call(c, w, FN_get_partial);
	int search = node == SLUB_NUMA_NO_NODE ? c->node : node;
	mem(c, w, s->addr + KCACHE_OFF_NODE + 8u * (unsigned)w->m->node_index[search],
		 CPU_LOAD_DEP);
	uint16_t object = get_partial_node(c, s, get_node(s, search));
	if (!br(c, w, S_gp_any, object != NIL16 || node != SLUB_NUMA_NO_NODE))
		object = get_any_partial(c, s);
	ret(c);
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
	uint32_t id = new_slab(c, s);
	if (br(c, w, S_nso_page, id != NIL32)) {
		mem(c, w, k->addr + KCPU_OFF_PAGE, CPU_LOAD_DEP);
		if (br(c, w, S_nso_flush, k->page != NIL32))
			flush_slab(c, s);
		struct slub_slab *sl = &s->slab[id];
		freelist = sl->freelist;
		sl->freelist = NIL16;
		mem(c, w, sl->meta + PAGE_OFF_FREELIST, CPU_STORE);
		stat_inc(c, s, SLUB_ALLOC_SLAB);
		k->page = id;
		s->slab[id].alloc_cpu = (int16_t)c->idx;
		mem(c, w, k->addr + KCPU_OFF_PAGE, CPU_STORE);
	}
out:
	ret(c);
	return freelist;
}

static bool node_match(const struct slub_cache *s, uint32_t id, int node)
{
	return node == SLUB_NUMA_NO_NODE || s->slab[id].node == node;
}


/* ___slab_alloc (irqs off): returns the object index in c->page or NIL16. */
static uint16_t ___slab_alloc(struct cpu *c, struct slub_cache *s, int node)
{
	struct slub_world *w = s->w;
	struct slub_kcpu *k = kcpu(s, c);
	call(c, w, FN____slab_alloc);
	run_block(c, w, B_alloc_slow_entry);
	uint16_t freelist;
	bmem(c, w, k->addr + KCPU_OFF_PAGE, CPU_LOAD_DEP);
	if (br(c, w, S_sa_nopage, k->page == NIL32))
		goto new_slab;
redo:
	mem(c, w, s->slab[k->page].meta, CPU_LOAD_DEP);   /* page_to_nid */
	if (br(c, w, S_sa_node_mismatch, !node_match(s, k->page, node))) {
		stat_inc(c, s, SLUB_ALLOC_NODE_MISMATCH);
		deactivate_slab(c, s, k->page, k->freelist);
		goto new_slab;
	}
	br(c, w, S_sa_pfmemalloc, false);   /* no pfmemalloc reserves modelled */
	mem(c, w, k->addr + KCPU_OFF_FREELIST, CPU_LOAD_DEP);
	freelist = k->freelist;
	if (br(c, w, S_sa_freelist, freelist != NIL16))
		goto load_freelist;
	freelist = get_freelist(c, s, k->page);
	if (br(c, w, S_sa_empty, freelist == NIL16)) {
		k->page = NIL32;
		mem(c, w, k->addr + KCPU_OFF_PAGE, CPU_STORE);
		stat_inc(c, s, SLUB_DEACTIVATE_BYPASS);
		goto new_slab;
	}
	stat_inc(c, s, SLUB_ALLOC_REFILL);
load_freelist:
	run_block(c, w, B_alloc_load);
	bmem(c, w, fp_addr(s, &s->slab[k->page], freelist), CPU_LOAD_DEP);
	k->freelist = nextp(s, k->page)[freelist];
	k->tid = next_tid(k->tid);
	bmem(c, w, k->addr + KCPU_OFF_FREELIST, CPU_STORE);
	bmem(c, w, k->addr + KCPU_OFF_TID, CPU_STORE);
	goto out;
new_slab:
	mem(c, w, k->addr + KCPU_OFF_PARTIAL, CPU_LOAD_DEP);
	if (br(c, w, S_sa_cpu_partial, k->partial != NIL32)) {
		uint32_t id = k->partial;
		mem(c, w, s->slab[id].meta + PAGE_OFF_LRU, CPU_LOAD_DEP);
		k->page = id;
		s->slab[id].alloc_cpu = (int16_t)c->idx;
		k->partial = s->slab[id].pnext;
		s->slab[id].pnext = NIL32;
		s->slab[id].chain_cpu = -1;
		mem(c, w, k->addr + KCPU_OFF_PAGE, CPU_STORE);
		mem(c, w, k->addr + KCPU_OFF_PARTIAL, CPU_STORE);
		stat_inc(c, s, SLUB_CPU_PARTIAL_ALLOC);
		goto redo;
	}
	freelist = new_slab_objects(c, s, node);
	if (br(c, w, S_sa_no_objects, freelist == NIL16))
		goto out;
	if (br(c, w, S_sa_nodebug, true))
		goto load_freelist;
out:
	ret(c);
	return freelist;
}

/* __slab_alloc: ___slab_alloc with irqs off. */
static uint16_t __slab_alloc(struct cpu *c, struct slub_cache *s, int node)
{
	call(c, s->w, FN___slab_alloc);
	irq_save(c);
	uint16_t freelist = ___slab_alloc(c, s, node);
	irq_restore(c);
	ret(c);
	return freelist;
}

/*
 * slab_alloc_node(s, gfpflags, node, addr): the lockless fast path on the
 * cpu freelist, else __slab_alloc; the handle of the object (0: none),
 * marked allocated where the kernel runs slab_post_alloc_hook.
 */
static slub_obj_t slab_alloc_node(struct cpu *c, struct slub_cache *s, int node)
{
	struct slub_world *w = s->w;
	struct slub_kcpu *k = kcpu(s, c);
	call(c, w, FN_slab_alloc_node);
	run_block(c, w, B_alloc_entry);
	bmem(c, w, k->addr + KCPU_OFF_TID, CPU_LOAD_DEP);
	bmem(c, w, k->addr + KCPU_OFF_FREELIST, CPU_LOAD_DEP);
	bmem(c, w, k->addr + KCPU_OFF_PAGE, CPU_LOAD);
	if (node != SLUB_NUMA_NO_NODE && k->page != NIL32)
		mem(c, w, s->slab[k->page].meta, CPU_LOAD_DEP);
	uint16_t object = k->freelist;
	uint32_t id = k->page;
	slub_obj_t x = 0;
	if (br(c, w, S_alloc_slow, object == NIL16 || !node_match(s, id, node))) {
		object = __slab_alloc(c, s, node);
		id = k->page;
		stat_inc(c, s, SLUB_ALLOC_SLOWPATH);
	} else {
		run_block(c, w, B_alloc_fast);
		bmem(c, w, fp_addr(s, &s->slab[id], object), CPU_LOAD_DEP);     /* get_freepointer_safe */
		this_cpu_cmpxchg(c);
		k->freelist = nextp(s, id)[object];
		k->tid = next_tid(k->tid);
		stat_inc(c, s, SLUB_ALLOC_FASTPATH);
	}
	if (object != NIL16) {
		s->alloc[(size_t)id * s->per + object] = 1;
		s->allocated++;
		x = make_obj(s, id, object);
	}
	ret(c);
	return x;
}

/* --- entry points --------------------------------------------------------- */

/*
 * The entries that run the fast copies (models/slub_copy.c): when
 * fast_entry() says the top-level call of f will be fast (and has started
 * it), the entry runs COPY_CALL(c, NAME, args), its copy's NAME_fast(args)
 * (warming) or NAME_fastn(args) (none), then ends the call with
 * cpu_fast_end().  Never in a copy, and never while a trace hook is set
 * (its records come from the ordinary code).  An entry validates its
 * arguments first, so that a refused call starts nothing.
 * kmem_cache_free_bulk() has no copy: slub_free_bulk() clears the
 * objects' bits as it validates them, and no scenario calls it.
 */
static inline bool fast_entry(struct cpu *c, const struct slub_world *w, enum slub_fn f)
{
	return !SLUB_FAST && c->fcopy && !w->trace && cpu_fast_entry(c, w->ch.fn_base + (int)f);
}
COPY_DECLARE(slub_alloc);

/* kmem_cache_alloc_node(s, gfp, node) */
slub_obj_t COPY_ENTRY(slub_alloc)(struct slub_world *w, struct cpu *c, struct slub_cache *s,
				 int node)
{
	if (node != SLUB_NUMA_NO_NODE &&
	    (node < 0 || node >= MACHINE_MAX_NODES || w->m->node_index[node] < 0))
		return 0;   /* not a node of the machine: a caller bug, nothing charged */
	if (fast_entry(c, w, FN_kmem_cache_alloc)) {
		slub_obj_t x = COPY_CALL(c, slub_alloc, w, c, s, node);
		cpu_fast_end(c);
		return x;
	}
	call(c, w, FN_kmem_cache_alloc);
	slub_obj_t x = slab_alloc_node(c, s, node);
	ret(c);
	return x;
}

/* kmem_cache_free(s, x) / kfree(x) */
int COPY_ENTRY(slub_free)(struct slub_world *w, struct cpu *c, struct slub_cache *s,
			  slub_obj_t x)
{
	struct slub_cache *os;
	uint32_t id;
	uint16_t idx;
	if (decode(w, x, &os, &id, &idx) != NS_OK || (s && s != os) ||
	    !os->alloc[(size_t)id * os->per + idx])
		return NS_EINTERNAL;
	if (fast_entry(c, w, s ? FN_kmem_cache_free : FN_kfree)) {
		COPY_CALL(c, slub_free_valid, w, c, s != NULL, os, id, idx);
		cpu_fast_end(c);
		return NS_OK;
	}
	slub_free_valid(w, c, s != NULL, os, id, idx);
	return NS_OK;
}

void COPY_ENTRY(slub_free_valid)(struct slub_world *w, struct cpu *c, bool named,
				  struct slub_cache *s, uint32_t id, uint16_t idx)
{
	call(c, w, named ? FN_kmem_cache_free : FN_kfree);
	run_block(c, w, B_free_entry);
	bmem(c, w, s->slab[id].meta, CPU_LOAD_DEP);       /* virt_to_head_page, PageSlab */
	bmem(c, w, s->slab[id].meta + PAGE_OFF_SLAB_CACHE, CPU_LOAD_DEP);
	s->alloc[(size_t)id * s->per + idx] = 0;
	s->freed++;
	slab_free(c, s, id, idx, idx, 1);
	ret(c);
}

/* A chain of objects of one slab, for one slab_free(). */
struct detached_freelist {
	struct slub_cache *s;
	uint32_t page;                 /* the slab, NIL32: none */
	uint16_t freelist, tail;       /* the chain, linked through next[] */
	unsigned cnt;
};

/*
 * build_detached_freelist(s, size, p, df): the last object of p[0..size)
 * and those of its slab among the next ones (looking ahead past at most
 * three of other slabs), taken out of p; returns the size to go on with.
 */
static size_t build_detached_freelist(struct cpu *c, const struct slub_world *w, size_t size,
				      slub_obj_t *p, struct detached_freelist *df)
{
	size_t first_skipped_index = 0;
	int lookahead = 3;
	slub_obj_t object;
	uint16_t idx = 0;
	df->s = NULL;
	df->page = NIL32;
	do
		object = p[--size];
	while (!object && size);
	if (!object)
		return 0;
	decode(w, object, &df->s, &df->page, &idx);
	struct slub_cache *s = df->s;
	uint16_t *nx = nextp(s, df->page);
	run_block(c, w, B_bulk_first);
	bmem(c, w, s->slab[df->page].meta, CPU_LOAD_DEP);       /* virt_to_head_page */
	nx[idx] = NIL16;                                         /* set_freepointer(object, NULL) */
	bmem(c, w, fp_addr(s, &s->slab[df->page], idx), CPU_STORE);
	df->tail = df->freelist = idx;
	p[size] = 0;
	df->cnt = 1;
	while (size) {
		object = p[--size];
		if (!object)
			continue;
		struct slub_cache *os = NULL;
		uint32_t oid = 0;
		uint16_t oidx = 0;
		decode(w, object, &os, &oid, &oidx);
		run_block(c, w, B_bulk_lookahead);
		bmem(c, w, os->slab[oid].meta, CPU_LOAD_DEP);    /* virt_to_head_page */
		if (os == s && oid == df->page) {
			nx[oidx] = df->freelist;
			mem(c, w, fp_addr(s, &s->slab[df->page], oidx), CPU_STORE);
			df->freelist = oidx;
			df->cnt++;
			p[size] = 0;
			continue;
		}
		if (!--lookahead)
			break;
		if (!first_skipped_index)
			first_skipped_index = size + 1;
	}
	return first_skipped_index;
}

/* kmem_cache_free_bulk(s, size, p) of the objects slub_free_bulk()
 * (slub_setup.c) has validated. */
void kmem_cache_free_bulk(struct cpu *c, struct slub_world *w, size_t n, slub_obj_t *p)
{
	call(c, w, FN_kmem_cache_free_bulk);
	size_t size = n;
	while (size) {
		struct detached_freelist df;
		size = build_detached_freelist(c, w, size, p, &df);
		if (df.page == NIL32)
			continue;
		df.s->freed += df.cnt;
		slab_free(c, df.s, df.page, df.freelist, df.tail, df.cnt);
	}
	ret(c);
}
