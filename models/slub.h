/*
 * slub — the Linux v5.9 SLUB allocator (mm/slub.c) around commit c270cf30
 * ("mm/slub.c: branch optimization in free slowpath", v5.10-rc1): cache
 * geometry (calculate_sizes / calculate_order), the per-cpu active slab with
 * its lockless freelist and transaction id, per-cpu partial chains, per-node
 * partial lists, the allocation fast and slow paths (slab_alloc_node,
 * ___slab_alloc, get_partial_node, acquire_slab, new_slab, deactivate_slab)
 * and the free paths (do_slab_free, __slab_free with its cmpxchg_double
 * retry loop, put_cpu_partial, unfreeze_partials, discard_slab), charged
 * to the cycle-cost model (cost/cpu.h) at the numbered sites of the
 * reference (S0..S10, PRE6a, PRE6b, PRE7, POST6, POST7, P1..P3, U1;
 * docs/design/slub-model.md §4) and at "function:what" sites elsewhere.
 * docs/design/slub-model.md is the long description; the model's code is in
 * models/slub.c (the allocation and free paths), slub_setup.c and
 * slub_inspect.c.
 *
 * Variants (data, design §4.2): PRE = v5.9, POST = PRE + c270cf30.  The
 * only behavioural code difference is the `!n` block of __slab_free; the
 * layout of its sites (which outcome falls through) comes from
 * slub_layout() per variant, compiler (gcc/clang: the fall-through of
 * unhinted sites) and CONFIG_SLUB_STATS (whether stat() increments and
 * PRE's separate `if (was_frozen)` test exist at all).
 *
 * Slabs take their pages from the page allocator model (mm_alloc_pages on
 * the allocating CPU, mm_free_pages on discard); both models must share one
 * synthetic address space (slub_config.as) so their cache lines agree.
 *
 * Objects are handles (slub_obj_t, 0 = NULL): a cache, a slab of that
 * cache's pool and an index in the slab.  Their synthetic addresses
 * (slub_obj_addr) lie in the direct map of the slab's pages.
 *
 * Invariants (slub_check()): per cache, objects allocated - freed = Σ over
 * slabs of inuse - Σ over CPUs of the length of their lockless freelists;
 * every object is exactly once on a freelist or handed out; freelists are
 * acyclic chains within their slab; page->freelist == NULL ⇔ inuse ==
 * objects for every slab (outside a cmpxchg window); frozen slabs are
 * exactly the CPU slabs and the per-cpu partial slabs; node partial lists
 * are well-formed, hold unfrozen slabs of their node only and match
 * nr_partial; node slab/object counts match the pool.
 *
 * Code layout (cost.code, docs/design/compiled-counts.md §6): the straight-line
 * work between sites comes from the estimate read off the source or from
 * the counts of gcc 11.3 objects of v5.9 / v5.9 + c270cf30 built with
 * CONFIG_SLUB_STATS; only the work differs, never a branch, outcome or
 * access.  Compiled counts exist for compiler_layout gcc with stats on
 * only: the default resolves to estimate elsewhere, and asking for
 * compiled there is NS_EINPUT.
 *
 * Error policy: set-up returns NS_ERANGE (a size or flag the model cannot
 * represent, too many caches), NS_EINPUT (cost.code compiled for a build
 * that was not counted), NS_EINPUT (duplicate cache name) with a diag
 * message where one is given, NS_ENOMEM on host allocation failure.  An
 * allocation the simulated kernel cannot satisfy returns 0 (counted).
 * Freeing a handle that is not an allocated object of the cache is a caller
 * bug: NS_EINTERNAL, nothing changes.  slub_check() returns NS_EINTERNAL
 * when an invariant is broken (a model bug).
 */
#ifndef NUMASIM_SLUB_H
#define NUMASIM_SLUB_H

#include <stdint.h>

#include "cost/cache.h"
#include "cost/cost.h"
#include "cost/cpu.h"
#include "base/diag.h"
#include "machine/machine.h"
#include "models/page_alloc.h"

/*
 * enum stat_item of include/linux/slub_def.h (value = index), with the
 * sysfs file name (/sys/kernel/slab/<cache>/<name>) and a description.
 */
#define SLUB_STAT_ITEMS(X)                                                     \
	X(ALLOC_FASTPATH, "alloc_fastpath", "allocation from the cpu freelist") \
	X(ALLOC_SLOWPATH, "alloc_slowpath", "allocation through ___slab_alloc") \
	X(FREE_FASTPATH, "free_fastpath", "free to the cpu freelist")          \
	X(FREE_SLOWPATH, "free_slowpath", "free through __slab_free")          \
	X(FREE_FROZEN, "free_frozen", "free to a frozen slab")                 \
	X(FREE_ADD_PARTIAL, "free_add_partial", "slab put on a node partial list") \
	X(FREE_REMOVE_PARTIAL, "free_remove_partial", "empty slab taken off a partial list") \
	X(ALLOC_FROM_PARTIAL, "alloc_from_partial", "cpu slab taken from a node partial list") \
	X(ALLOC_SLAB, "alloc_slab", "cpu slab newly allocated")                \
	X(ALLOC_REFILL, "alloc_refill", "cpu freelist refilled from the cpu slab") \
	X(ALLOC_NODE_MISMATCH, "alloc_node_mismatch", "cpu slab on the wrong node") \
	X(FREE_SLAB, "free_slab", "slab returned to the page allocator")       \
	X(CPUSLAB_FLUSH, "cpuslab_flush", "cpu slab flushed")                  \
	X(DEACTIVATE_FULL, "deactivate_full", "cpu slab deactivated full")     \
	X(DEACTIVATE_EMPTY, "deactivate_empty", "slab deactivated empty and freed") \
	X(DEACTIVATE_TO_HEAD, "deactivate_to_head", "deactivated to partial list head") \
	X(DEACTIVATE_TO_TAIL, "deactivate_to_tail", "deactivated to partial list tail") \
	X(DEACTIVATE_REMOTE_FREES, "deactivate_remote_frees", "deactivated slab had remote frees") \
	X(DEACTIVATE_BYPASS, "deactivate_bypass", "exhausted cpu slab dropped without list work") \
	X(ORDER_FALLBACK, "order_fallback", "slab allocated at the minimum order") \
	X(CMPXCHG_DOUBLE_CPU_FAIL, "cmpxchg_double_cpu_fail", "per-cpu cmpxchg_double retries") \
	X(CMPXCHG_DOUBLE_FAIL, "cmpxchg_double_fail", "slab cmpxchg_double retries") \
	X(CPU_PARTIAL_ALLOC, "cpu_partial_alloc", "cpu slab taken from the per-cpu partial chain") \
	X(CPU_PARTIAL_FREE, "cpu_partial_free", "full slab frozen onto the per-cpu chain by a free") \
	X(CPU_PARTIAL_NODE, "cpu_partial_node", "node partial slab moved to the per-cpu chain") \
	X(CPU_PARTIAL_DRAIN, "cpu_partial_drain", "per-cpu partial chain drained")

enum slub_stat {
#define SLUB_STAT_ENUM(id, name, desc) SLUB_##id,
	SLUB_STAT_ITEMS(SLUB_STAT_ENUM)
#undef SLUB_STAT_ENUM
	SLUB_NR_STATS
};
const char *slub_stat_name(enum slub_stat s);   /* "free_frozen" */
const char *slub_stat_desc(enum slub_stat s);

/*
 * Where the slab of a __slab_free call is at the call's entry: the
 * model's own counters (scope "cache", names "where_*"; the kernel has no
 * such statistic), one per call, so they sum to FREE_SLOWPATH.  "alloc
 * CPU" is the CPU whose cpu slab (c->page) the slab last was: the CPU
 * its objects were allocated on.  The frozen cases count what FREE_FROZEN
 * counts (a cmpxchg retry aside); CPU_PARTIAL_FREE comes from WHERE_FULL.
 */
#define SLUB_WHERE_ITEMS(X)                                                    \
	X(BY_ALLOC_CPU, "where_by_alloc_cpu",                                 \
	  "(overlapping) freed on the slab's alloc CPU")                        \
	X(CPU_SLAB, "where_cpu_slab", "frozen: another CPU's cpu slab")        \
	X(OWN_CPU_PARTIAL, "where_own_cpu_partial",                           \
	  "frozen: on the freeing CPU's partial chain")                         \
	X(ALLOC_CPU_PARTIAL, "where_alloc_cpu_partial",                       \
	  "frozen: on the alloc CPU's partial chain (not the freeing CPU)")     \
	X(OTHER_CPU_PARTIAL, "where_other_cpu_partial",                       \
	  "frozen: on the chain of a CPU neither freeing nor alloc CPU")        \
	X(NODE_PARTIAL, "where_node_partial", "not frozen: on a node partial list") \
	X(FULL, "where_full", "not frozen: full, on no list")

enum slub_where {
#define SLUB_WHERE_ENUM(id, name, desc) SLUB_WHERE_##id,
	SLUB_WHERE_ITEMS(SLUB_WHERE_ENUM)
#undef SLUB_WHERE_ENUM
	SLUB_NR_WHERE
};
const char *slub_where_name(enum slub_where x);  /* "where_cpu_slab" */
const char *slub_where_desc(enum slub_where x);

/* Cache flags (kernel values, include/linux/slab.h). */
#define SLUB_HWCACHE_ALIGN 0x00002000u     /* SLAB_HWCACHE_ALIGN */
#define SLUB_PANIC 0x00040000u             /* SLAB_PANIC (no effect here) */
#define SLUB_TYPESAFE_BY_RCU 0x00080000u   /* free pointer appended */
#define SLUB_KMALLOC 0x00100000u           /* SLAB_KMALLOC */
#define SLUB_FLAGS_KNOWN (SLUB_HWCACHE_ALIGN | SLUB_PANIC | SLUB_TYPESAFE_BY_RCU | SLUB_KMALLOC)

#define SLUB_NUMA_NO_NODE (-1)

enum slub_variant {
	SLUB_PRE,      /* "v5.9": two unhinted tests in the !n block */
	SLUB_POST,     /* "c270cf30": likely(was_frozen) / else if (new.frozen) */
};
const char *slub_variant_name(enum slub_variant v);
int slub_variant_parse(const char *s);          /* -1 if unknown */
/* Block i of SLUB_BLOCKS (models/slub_internal.h) as `numasim annotate`
 * prints it (models/page_alloc.h struct mm_block_desc): its name, declared
 * accesses, exit site (NULL: a call, return or the next block ends it) and
 * uops in layout code (resolved: not MM_CODE_DEFAULT) for variant v.
 * Returns 0, or the number of blocks when i is out of range. */
int slub_block_describe(int i, enum mm_code code, enum slub_variant v,
			struct mm_block_desc *out);

/*
 * The SLUB model's position in tree "slub" of models/kcommit.h
 * (kernel.commit, or its alias kernel.slub_cpu_partial), each commit
 * including the ones before it:
 *   KC_v5_9     v5.9: put_cpu_partial() drains when the head's pobjects
 *               (free objects sampled at insertion) exceed s->cpu_partial;
 *               get_partial_node() stops when the free objects taken
 *               exceed cpu_partial / 2;
 *   KC_slub_01  b47291ef02b0 ("mm, slub: change percpu partial accounting
 *               from objects to pages", v5.16): the limit in slabs,
 *               s->cpu_partial_pages = DIV_ROUND_UP(cpu_partial * 2,
 *               oo_objects(s->oo)) (slub_set_cpu_partial);
 *               put_cpu_partial() drains when the head's pages >=
 *               cpu_partial_pages and keeps no pobjects;
 *               get_partial_node() stops when the slabs put on the
 *               per-cpu list exceed cpu_partial_pages / 2;
 *   KC_slub_02  23e98ad1ce89 ("mm/slub: increase default cpu partial
 *               list sizes", v5.16): set_cpu_partial()'s objects
 *               6 / 24 / 52 / 120 instead of 2 / 6 / 13 / 30.
 * Only the accounting and limits are ported onto v5.9's structure (the
 * 5.15 local_lock rework is not modelled).
 */
/* Whether the configuration's SLUB tree includes commit k (tree "slub"). */
#define slub_applied(cfg, k) ((cfg)->commit >= (k))

enum slub_compiler {
	SLUB_GCC,      /* fall-through of unhinted sites as GCC lays them out */
	SLUB_CLANG,
};
const char *slub_compiler_name(enum slub_compiler c);
int slub_compiler_parse(const char *s);         /* -1 if unknown */

struct slub_config {
	enum slub_variant variant;
	enum slub_compiler compiler;    /* compiler_layout gcc|clang */
	int stats;                      /* CONFIG_SLUB_STATS (slub_stats on|off) */
	enum mm_code code;              /* work layout of SLUB_WORK (`cost.code`):
					 * DEFAULT resolves to compiled under
					 * cost.model ooo for the counted build
					 * (gcc, stats on), else estimate */
	int cpu_partial;                /* CONFIG_SLUB_CPU_PARTIAL */
	enum kcommit commit;            /* tree "slub" (KC_v5_9 .. KC_slub_02):
					 * kernel.commit, kernel.slub_cpu_partial */
	int nr_cpu_ids;                 /* 0: the machine's (highest CPU + 1) */
	unsigned slub_min_objects;      /* boot parameters; 0 = computed */
	unsigned slub_min_order;        /* default 0 */
	unsigned slub_max_order;        /* default PAGE_ALLOC_COSTLY_ORDER = 3 */
	uint32_t gfp;                   /* gfp of slab page allocations (GFP_KERNEL) */
	struct cache_as *as;            /* required: the page allocator's address space */
	/* a code-change file's edits of the blocks (kernel.change), in
	 * order; SLUB's are applied, the others skipped; NULL / 0: none */
	const struct cpu_block_change *block_changes;
	int nr_block_changes;
};
void slub_config_default(struct slub_config *c);

typedef uint64_t slub_obj_t;    /* 0 = NULL */
struct slub_world;
struct slub_cache;

/* Register functions and sites (once per table set); fill a layout. */
int slub_register(struct cost_tables *t, int *fn_base, int *site_base);
int slub_layout(struct cost_layout *l, const struct cost_tables *t, int fn_base,
		int site_base, const struct slub_config *cfg);

/* A SLUB over machine m, CPUs of s and page allocator pa (all must
 * outlive the world).  The layout in s must come from slub_layout() with
 * the same variant/compiler/stats. */
int slub_world_create(const struct machine *m, const struct slub_config *cfg,
		      struct cpu_sys *s, struct mm_world *pa, int fn_base, int site_base,
		      struct slub_world **out, struct diag *d);
/* Frees the model's host memory.  Slab pages are not given back to the
 * page allocator (destroy that world afterwards, as a whole). */
void slub_world_destroy(struct slub_world *w);

/* kmem_cache_create(name, size, align, flags, NULL): no merging, no ctor. */
int slub_cache_create(struct slub_world *w, const char *name, unsigned size,
		      unsigned align, unsigned flags, struct slub_cache **out,
		      struct diag *d);
/* create_kmalloc_caches(0): kmalloc-8 .. kmalloc-(2 * PAGE_SIZE), -96, -192. */
int slub_kmalloc_create(struct slub_world *w, struct diag *d);
/* kmalloc_slab(size): NULL for 0 or sizes above the largest kmalloc cache. */
struct slub_cache *slub_kmalloc_cache(const struct slub_world *w, size_t size);
struct slub_cache *slub_cache_find(const struct slub_world *w, const char *name);

/* kmem_cache_alloc_node(s, gfp, node) on CPU c (node: SLUB_NUMA_NO_NODE or a
 * node id of the machine).  0 when no slab page could be had (or node is
 * not a node of the machine).  New slabs always come from the CPU's
 * default-policy page allocation (see docs/design/slub-model.md). */
slub_obj_t slub_alloc(struct slub_world *w, struct cpu *c, struct slub_cache *s, int node);
/* kmem_cache_free(s, x) on CPU c (s NULL: kfree, cache from the object). */
int slub_free(struct slub_world *w, struct cpu *c, struct slub_cache *s, slub_obj_t x);
/* kmem_cache_free_bulk(s, n, p): build_detached_freelist groups (look-ahead
 * 3) freed with one slab_free each; entries of p are set to 0 as the
 * kernel does.  Validates every entry first (NS_EINTERNAL, nothing freed). */
int slub_free_bulk(struct slub_world *w, struct cpu *c, struct slub_cache *s, size_t n,
		   slub_obj_t *p);
/* __flush_cpu_slab(s, cpu) for CPU c: flush_slab + unfreeze_partials. */
void slub_flush_cpu(struct slub_world *w, struct cpu *c, struct slub_cache *s);
/* The sysfs cpu_partial value (no flush: call slub_flush_cpu as flush_all
 * would); from b47291ef02b0 on also cpu_partial_pages, as the kernel's
 * slub_set_cpu_partial(). */
int slub_set_cpu_partial(struct slub_cache *s, unsigned objects);

/*
 * Concurrency hook: called inside every __slab_free attempt after the
 * snapshot of page->freelist/counters (and after the speculative list_lock)
 * and before the cmpxchg_double, with the CPU doing the free, the object
 * and the attempt number (0 first).  The hook may change the slab (e.g.
 * slub_free of another object of it on another CPU); the cmpxchg then
 * fails (CMPXCHG_DOUBLE_FAIL), S1 drops the lock and the loop retries.
 * The hook must not need the node list_lock that the interrupted free may
 * hold (a sequential model cannot interleave the spin).  NULL removes it.
 */
typedef void (*slub_race_fn)(void *arg, struct slub_world *w, struct cpu *c, slub_obj_t x,
			     int attempt);
void slub_set_race_hook(struct slub_world *w, slub_race_fn fn, void *arg);

/*
 * Trace hook (numasim trace): called once per __slab_free call, after it
 * returned, with the state before the call and what it did.  Sites and
 * stats are recorded only while a hook is set (one predictable branch per
 * site otherwise).  The record is valid during the call only.  NULL
 * removes it.
 *
 * A record is complete: chain[], stats[] and sites[] hold every slab,
 * stat item and site of the call, however long (a drain through
 * unfreeze_partials visits the whole per-cpu chain, a cmpxchg retried
 * under a race hook repeats its sites); the world grows their buffers as
 * needed, while tracing only.  When that growth fails the record says so
 * (incomplete != 0) instead of being silently short.
 */
struct slub_trace_slab {
	unsigned objects, inuse;
	int node;
};
struct slub_trace_site {
	const char *name;               /* "S5", "PRE6b", "P1", ... */
	int outcome;
};
struct slub_free_trace {
	const char *cache;
	int cpu;                        /* machine CPU id of the freeing CPU */
	enum slub_variant variant;
	int has_cpu_partial, frozen, freelist_empty;
	unsigned inuse, objects, cnt;   /* inuse before the call */
	int node;                       /* the slab's node */
	unsigned long nr_partial, min_partial; /* nr_partial of node, before */
	unsigned cpu_partial_limit;     /* s->cpu_partial */
	unsigned nr_chain;              /* slabs on the CPU's partial chain */
	struct slub_trace_slab *chain;  /* [nr_chain] */
	int cpu_partial_pages, cpu_partial_pobjects; /* head's counters, 0 if none */
	unsigned nr_stats, nr_sites;
	enum slub_stat *stats;          /* [nr_stats], in order */
	struct slub_trace_site *sites;  /* [nr_sites], in order */
	int incomplete;                 /* out of memory while recording */
	const char *path;               /* "free_frozen", "cpu_partial_free",
					 * "unlocked" (no list work), "locked"
					 * (list_lock, no list change),
					 * "add_partial" or "discard" */
	uint64_t start;                 /* the CPU's clock at the call, cycles */
	uint64_t ts_ns;                 /* the same in ns (cpu_cycles_to_ns()) */
	uint64_t cycles;                /* the __slab_free call's core cycles */
	uint64_t page;                  /* the slab's struct page (synthetic address) */
	const char *comm;               /* the task (cpu_set_task()), NULL: unknown */
	int pid;
};
typedef void (*slub_trace_fn)(void *arg, const struct slub_free_trace *t);
void slub_set_trace_hook(struct slub_world *w, slub_trace_fn fn, void *arg);

/* Introspection. */
const char *slub_cache_name(const struct slub_cache *s);
uint64_t slub_obj_addr(const struct slub_world *w, slub_obj_t x);
struct slub_cache *slub_obj_cache(const struct slub_world *w, slub_obj_t x);

struct slub_cache_info {
	unsigned object_size, size, align, offset, flags;
	unsigned order, objects;        /* s->oo */
	unsigned min_order, min_objects;/* s->min */
	unsigned max_order, max_objects;/* s->max */
	unsigned long min_partial;
	unsigned cpu_partial;
	unsigned cpu_partial_pages;     /* b47291ef02b0 on; 0 before */
	int has_cpu_partial;
	uint64_t allocated, freed;      /* objects handed out / returned */
	uint64_t where[SLUB_NR_WHERE];  /* the where_* counters */
	uint64_t slabs, pages_failed;   /* slabs alive; slab allocations that failed */
};
int slub_cache_info(const struct slub_cache *s, struct slub_cache_info *out);

enum slub_loc {
	SLUB_LOC_CPU_SLAB,      /* c->page of some CPU (frozen) */
	SLUB_LOC_CPU_PARTIAL,   /* on a CPU's partial chain (frozen) */
	SLUB_LOC_NODE_PARTIAL,  /* on its node's partial list */
	SLUB_LOC_FULL,          /* unfrozen, on no list */
};
const char *slub_loc_name(enum slub_loc l);
struct slub_slab_info {
	enum slub_loc loc;
	int cpu;                        /* owner for CPU_SLAB / CPU_PARTIAL, else -1 */
	int node;                       /* node of the slab's pages */
	unsigned inuse, objects, frozen;
	unsigned page_free;             /* length of page->freelist */
	uint64_t pfn;
};
/* The slab holding object x (which may be allocated or free). */
int slub_slab_info(const struct slub_world *w, slub_obj_t x, struct slub_slab_info *out);

struct slub_cpu_info {
	int has_page;                   /* c->page != NULL */
	slub_obj_t page_obj;            /* first object of c->page (for slub_slab_info) */
	unsigned freelist;              /* length of c->freelist */
	unsigned partial_slabs;         /* length of the partial chain */
	int pages, pobjects;            /* the chain head's counters (0 if empty) */
	uint64_t tid;
};
int slub_cpu_info(const struct slub_world *w, const struct slub_cache *s, int cpu_id,
		  struct slub_cpu_info *out);
struct slub_node_info {
	unsigned long nr_partial, nr_slabs, total_objects;
	unsigned partial_empty;         /* slabs on the partial list with inuse 0 */
};
int slub_node_info(const struct slub_world *w, const struct slub_cache *s, int node_id,
		   struct slub_node_info *out);

/* A stat item of a cache for one machine CPU, or summed (cpu_id < 0). */
uint64_t slub_stat(const struct slub_world *w, const struct slub_cache *s, int cpu_id,
		   enum slub_stat item);
/* The same for the CPU at index idx of the world's cpu_sys (no search; 0
 * for an index or item out of range): for callers that read an item
 * around every call. */
uint64_t slub_stat_at(const struct slub_world *w, const struct slub_cache *s, int idx,
		      enum slub_stat item);

/*
 * Counters: scope "cache" (id = cache name; the 26 stat items summed over
 * CPUs, objects, objects_allocated, objects_freed, slabs, alloc_failed,
 * and the model's FREE_FROZEN path figures free_frozen_branches,
 * free_frozen_branches_taken, free_frozen_mispredicts (the `!n` block's
 * sites, the only code the variants differ in), free_frozen_cycles (the
 * whole call), free_frozen_fence_wait_cycles and free_frozen_measured (the
 * calls those sums cover: every FREE_FROZEN one, except the fast calls of
 * sampled accounting)),
 * "cache_cpu" (id "CACHE/CPU": the stat items) and "cache_node" (id
 * "CACHE/NODE": nr_partial, nr_slabs, total_objects), docs/reference/schema.md.
 */
typedef int (*slub_counter_fn)(void *arg, const char *scope, const char *scope_id,
			       const char *name, int64_t value);
int slub_counters(const struct slub_world *w, slub_counter_fn fn, void *arg);

int slub_check(const struct slub_world *w, struct diag *d);

#endif
