/*
 * pagealloc — the Linux v4.6/v4.7 page allocator around commit 682a3385
 * ("mm, page_alloc: inline the fast path of the zonelist iterator"):
 * zones, buddy free lists, per-cpu page lists, watermarks, the fair zone
 * allocation policy, the zonelist iterator in both forms, and the order-0
 * fast paths of alloc_pages() and __free_pages(), charged to the cycle-cost
 * model (cost/cpu.h) at the numbered sites A01..A52, F01..F14 (their
 * functions, conditions and lines: docs/reference/sites.md).
 *
 * Variants (data, design §4.2): PRE = v4.6 + series patches 1-4 (the
 * seed's parent, benchmark label statinline-v1r20); POST = PRE + 682a3385
 * (optiter-v1r20).  The model is one code path with the diff's switches.
 *
 * This header is the contract between the model and its callers (the
 * workloads in scenarios/, the run command, tests); the variant, policy
 * and counting-rule enums are in mmzone.h, mempolicy.h and vmstat.h,
 * included here.  Internals live in page_alloc.c and the files named in
 * its header comment (mm_init.c, mmzone.c, mempolicy.c, cpuset.c,
 * vmstat.c), which share models/mm_internal.h.
 *
 * Error policy: set-up returns NS_ERANGE / NS_EINPUT (with a diag message)
 * for configurations the model cannot represent, NS_ENOMEM on allocation
 * failure.  Allocation failure of the simulated kernel is not an error: the
 * page pointer is NULL (and counted).  mm_check() returns NS_EINTERNAL
 * when an invariant is broken (a model bug).
 */
#ifndef NUMASIM_PAGEALLOC_H
#define NUMASIM_PAGEALLOC_H

#include <stdint.h>

#include "cost/cost.h"
#include "cost/cpu.h"
#include "base/diag.h"
#include "machine/machine.h"
#include "models/zonelist.h"
#include "models/mmzone.h"
#include "models/mempolicy.h"
#include "models/vmstat.h"
#include "models/vmscan.h"
#include "models/kcommit.h"

/* GFP bits (v4.6 include/linux/gfp.h values). */
#define __GFP_DMA 0x01u
#define __GFP_HIGHMEM 0x02u
#define __GFP_DMA32 0x04u
#define __GFP_MOVABLE 0x08u
#define __GFP_RECLAIMABLE 0x10u
#define __GFP_HIGH 0x20u
#define __GFP_IO 0x40u
#define __GFP_FS 0x80u
#define __GFP_COLD 0x100u
#define __GFP_NOWARN 0x200u
#define __GFP_REPEAT 0x400u
#define __GFP_NOFAIL 0x800u
#define __GFP_NORETRY 0x1000u
#define __GFP_MEMALLOC 0x2000u
#define __GFP_COMP 0x4000u
#define __GFP_ZERO 0x8000u
#define __GFP_NOMEMALLOC 0x10000u
#define __GFP_HARDWALL 0x20000u
#define __GFP_THISNODE 0x40000u
#define __GFP_ATOMIC 0x80000u
#define __GFP_DIRECT_RECLAIM 0x400000u
#define __GFP_OTHER_NODE 0x800000u
#define __GFP_WRITE 0x1000000u
#define __GFP_KSWAPD_RECLAIM 0x2000000u
#define GFP_KERNEL (__GFP_DIRECT_RECLAIM | __GFP_KSWAPD_RECLAIM | __GFP_IO | __GFP_FS)
#define GFP_USER (GFP_KERNEL | __GFP_HARDWALL)
#define GFP_ATOMIC (__GFP_HIGH | __GFP_ATOMIC | __GFP_KSWAPD_RECLAIM) /* GFP_ATOMIC */
#define GFP_HIGHUSER_MOVABLE (GFP_USER | __GFP_HIGHMEM | __GFP_MOVABLE)

/* Parse "GFP_KERNEL", "GFP_KERNEL|__GFP_NOWARN", "GFP_ATOMIC", ... */
int gfp_parse(const char *s, uint32_t *gfp);

/*
 * The code layout of the straight-line work (MM_WORK in mm_internal.h,
 * `cost.code`; docs/design/compiled-counts.md): the counts estimated from the v4.6
 * source, or those of the compiled v4.6.2 objects.  MM_CODE_DEFAULT
 * resolves when the world is created: compiled under cost.model ooo,
 * estimate under inorder (whose results every release keeps).
 */
enum mm_code { MM_CODE_DEFAULT, MM_CODE_ESTIMATE, MM_CODE_COMPILED };
const char *mm_code_name(enum mm_code c);     /* "default", "estimate", "compiled" */
int mm_code_parse(const char *s);             /* ESTIMATE or COMPILED; -1 if unknown */

/*
 * The page allocator's code blocks (MM_BLOCKS of mm_tables.h) as a run
 * with layout code (resolved: ESTIMATE or COMPILED) and zonelist iterator
 * iter charged them, for `numasim annotate`: the block's name, its
 * straight-line uops (its work row's count in that layout), its declared
 * accesses ("D", "L", "S", ...; cost/cpu.h cpu_block_init) and the name
 * of the site that ends it (NULL: a call, a return or the next block;
 * each execution of the block is followed by one of that site).  Returns
 * MM_NR_BLOCK's count when i is out of range with out untouched, else 0.
 */
struct mm_block_desc {
	const char *name, *kinds, *exit_site;
	uint32_t uops;
};
int mm_block_describe(int i, enum mm_code code, enum mmzone_iter iter,
		      struct mm_block_desc *out);

struct mm_config {
	enum mmzone_iter iter;
	/* the last series commit applied (models/kcommit.h, tree "mm"); every
	 * commit before it in series order is applied too.  KCOMMIT_UNSET
	 * (the default): v3 04 or v3 05 (682a3385) as iter says.  When set it
	 * decides alone and iter is derived from it (mm_config_commit). */
	enum kcommit commit;
	/* the series' first ids in the cost tables (mm_series_register);
	 * -1 (the default): the tables have none */
	int series_fn_base, series_site_base;
	enum mm_code code;              /* work layout (MM_CODE_DEFAULT: by cost model) */
	struct zonelist_opts zl;        /* how the zonelists are built */
	int cpusets_enabled;            /* a non-root cpuset exists (static key on) */
	int nr_mems_allowed;            /* current->mems_allowed: node ids; */
	int mems_allowed[MACHINE_MAX_NODES]; /* 0 entries = all memory nodes */
	uint32_t min_free_kbytes;       /* 0 = computed as init_per_zone_wmark_min */
	uint32_t watermark_scale_factor;/* default 10 */
	int thp_min_free;               /* apply set_recommended_min_free_kbytes */
	uint32_t percpu_pagelist_fraction; /* 0 = zone_batchsize() */
	uint32_t zone_reclaim_mode;     /* vm.zone_reclaim_mode (bits RECLAIM_*);
					 * non-zero needs reclaim.enabled */
	struct mm_reclaim_config reclaim; /* models/vmscan.h */
	enum mpol_mode mpol;              /* the task's mempolicy (default: none) */
	int nr_mpol_nodes;              /* its nodes (BIND, PREFERRED: 1, */
	int mpol_nodes[MACHINE_MAX_NODES]; /* INTERLEAVE), ascending node ids */
	enum vmstat_numa_rule zone_stats;  /* numastat counting rule (SERIES) */
	/* a code-change file's edits of the blocks (kernel.change,
	 * scenarios/kchange.h), in order; NULL / 0: none.  Edits of blocks
	 * that are not the page allocator's are skipped. */
	const struct cpu_block_change *block_changes;
	int nr_block_changes;
	/* synthetic address space shared with other models of the same
	 * world (NULL: the page allocator uses a private one) */
	struct cache_as *as;
	/* per-pagealloc cost parameters (documented estimates, identical for
	 * both variants) are internal to the model; see docs/design/pagealloc-model.md */
};
void mm_config_default(struct mm_config *c);
/* The commit a configuration runs: cfg->commit, or when unset KC_v3_05
 * (iter 682a3385) / KC_v3_04 (pre-682a3385); and the iterator variant it
 * implies (682a3385 is v3 05). */
enum kcommit mm_config_commit(const struct mm_config *c);
enum mmzone_iter mm_commit_iter(enum kcommit k);

struct mm_world;
struct page;                     /* opaque handle of a struct page */

/*
 * Register the model's functions and sites in t (once per table set), and
 * fill a layout for the variant and the code layout (code resolved:
 * ESTIMATE or COMPILED, see mm_code_resolve): which functions are inlined
 * (next_zones_zonelist per variant; under COMPILED the helpers gcc 11 kept
 * out of line, docs/design/compiled-counts.md §1), the likely/unlikely hints of
 * the sites.  mm_world_create() refuses (NS_EINTERNAL) a world whose code
 * layout is not the one its cost layout was filled for.
 */
int mm_register(struct cost_tables *t, int *fn_base, int *site_base);
int mm_layout(struct cost_layout *l, const struct cost_tables *t,
	      int fn_base, int site_base, enum mmzone_iter v, enum mm_code code);
/* The same for a configuration's commit (mm_config_commit): what the
 * series moves in or out of line (zone_statistics before v3 04,
 * next_zones_zonelist from v3 05, get_pfnblock_flags_mask from v3 25). */
int mm_layout_config(struct cost_layout *l, const struct cost_tables *t, int fn_base,
		     int site_base, const struct mm_config *cfg, enum mm_code code);
/*
 * The 2016 series' own functions and branch sites (docs/design/series-2016.md),
 * registered after every other model's tables so that no older id moves:
 * mm_series_register() then mm_series_layout(), and the bases go into
 * mm_config.series_fn_base / series_site_base before mm_world_create().
 * A world without them runs only v3 04 and v3 05 (the default kernels);
 * mm_world_create() refuses another commit.
 */
int mm_series_register(struct cost_tables *t, int *fn_base, int *site_base);
int mm_series_layout(struct cost_layout *l, const struct cost_tables *t, int fn_base,
		     int site_base);
/* The code layout a cost layout was filled for (true: COMPILED). */
bool mm_layout_is_compiled(const struct cost_layout *l, int fn_base);
/* MM_CODE_DEFAULT resolved for a timing model: compiled under ooo,
 * estimate under inorder; any other value unchanged. */
enum mm_code mm_code_resolve(enum mm_code c, enum cpu_model m);

/*
 * A page allocator over machine m for CPUs of s (built over tables that
 * mm_register() filled).  m and s must outlive the world.
 */
int mm_world_create(const struct machine *m, const struct mm_config *cfg,
		    struct cpu_sys *s, int fn_base, int site_base,
		    struct mm_world **out, struct diag *d);
/*
 * The same set-up without the memmap (the per-MAX_ORDER-block metadata
 * and the free lists: ~80 bytes a block, 10 MiB and ~1 ms for 512 GiB):
 * the world is only for checking that the configuration can be built
 * (numasim run's and validate's preflight) and must not allocate or
 * free a page; only mm_world_destroy() may follow.  Every refusal of
 * mm_world_create() but host memory for the memmap is decided here too:
 * the memmap depends on the machine alone, its loop refuses nothing.
 */
int mm_world_validate(const struct machine *m, const struct mm_config *cfg,
		      struct cpu_sys *s, int fn_base, int site_base,
		      struct mm_world **out, struct diag *d);
void mm_world_destroy(struct mm_world *w);

/* alloc_pages(gfp, order) on CPU c (alloc_pages_current) with the task's
 * mempolicy mm_config.mpol.  The model keeps one task per simulated CPU:
 * its interleave cursor (il_next) starts at the first interleave node.
 * Returns NULL when the simulated kernel fails. */
struct page *mm_alloc_pages(struct mm_world *w, struct cpu *c, uint32_t gfp,
			       unsigned int order);
/* __free_pages(page, order) on CPU c. */
void mm_free_pages(struct mm_world *w, struct cpu *c, struct page *page,
		   unsigned int order);

/*
 * Trace hook (numasim trace, kmem:mm_page_alloc / mm_page_free): called
 * when every successful mm_alloc_pages and every mm_free_pages returns.
 * The timestamp is the CPU's clock where the kernel's tracepoint fires:
 * the end of the allocation (trace_mm_page_alloc() closes
 * __alloc_pages_nodemask), the start of the free (free_pages_prepare()
 * opens it); cycles are the whole call's.  The clock is read outside the
 * call's accounting (cpu_now_noise()): under sampled accounting a call
 * nested in another model's fast call reads the fast call's start (0
 * cycles), and tracing changes no result.  NULL (the default) removes it.
 */
struct mm_trace_event {
	int alloc;                      /* 1 mm_page_alloc, 0 mm_page_free */
	uint64_t pfn;
	unsigned order;
	uint32_t gfp;                   /* 0 for frees */
	int node, cpu;                  /* page's node, machine CPU id */
	uint64_t ts_ns;                 /* the CPU's clock at the tracepoint, ns */
	uint64_t cycles;                /* the call's core cycles */
	const char *comm;               /* the task (cpu_set_task()), NULL: unknown */
	int pid;
};
typedef void (*mm_trace_fn)(void *arg, const struct mm_trace_event *e);
void mm_set_trace_hook(struct mm_world *w, mm_trace_fn fn, void *arg);

/* drain_local_pages(NULL) on CPU c: every zone's pcp lists of this CPU
 * go back to the buddy lists (free_pcppages_bulk under zone->lock). */
void mm_drain_local_pages(struct mm_world *w, struct cpu *c);

/*
 * for_each_zone_zonelist_nodemask() over node's zonelist (kind) with
 * high_zoneidx, as the variant's iterator does it on CPU c (costs charged):
 * nodemask NULL or current->mems_allowed (use_mems_allowed).  Writes up to
 * max zones as (node id, zone type) and returns how many the walk visited.
 */
int mm_zonelist_walk(struct mm_world *w, struct cpu *c, int node, enum zonelist_kind kind,
		     enum zone_type high, int use_mems_allowed, int *nodes,
		     enum zone_type *types, int max);

/* The page's pfn and node (for workloads and traces). */
uint64_t mm_page_pfn(const struct mm_world *w, const struct page *p);
int mm_page_node(const struct mm_world *w, const struct page *p);
/* The synthetic address of the page's first data byte in the direct map
 * (the address clear_highpage uses): for workloads touching their pages. */
uint64_t mm_page_vaddr(const struct mm_world *w, const struct page *p);

/*
 * Spinlock statistics summed over every zone->lock of the world (and,
 * separately, cpuset's callback_lock): acquisitions, acquisitions that
 * waited, cycles waited (cost/cpu.h struct cpu_lock).
 */
struct mm_lock_stats {
	uint64_t zone_acquisitions, zone_contended, zone_wait_cycles;
	uint64_t other_acquisitions, other_contended, other_wait_cycles;
};
void mm_lock_stats(const struct mm_world *w, struct mm_lock_stats *out);

/*
 * Invariants: per zone, free pages in the buddy + pages on pcp lists +
 * allocated pages + pages in use from the start (boot_used) = managed pages; free lists well-formed (each block
 * aligned, of its order, buddy-free flags consistent, no two free buddies
 * of the same order left unmerged); pcp counts match list lengths;
 * NR_FREE_PAGES matches the buddy.
 */
int mm_check(const struct mm_world *w, struct diag *d);

/*
 * Introspection for tests, reports and workloads: one zone's state (node
 * id, zone type) as seen by CPU cpu_id's per-cpu pageset (cpu_id < 0: the
 * first simulated CPU).  NS_ENOENT if the zone or CPU is not modelled.
 * Walks the zone's free lists (O(free blocks)).
 */
#define MAX_ORDER 11
#define MIGRATE_TYPES 6    /* UNMOVABLE MOVABLE RECLAIMABLE HIGHATOMIC CMA ISOLATE */
struct mm_zone_info {
	uint64_t start_pfn, managed;
	int64_t watermark[3];           /* MIN, LOW, HIGH */
	int64_t lowmem_reserve[NR_ZONE_TYPES];
	int64_t nr_free_pages;          /* NR_FREE_PAGES: atomic + per-cpu deltas */
	int64_t nr_free_pages_atomic;   /* zone_page_state(): what the allocator reads */
	int64_t alloc_batch;            /* NR_ALLOC_BATCH: atomic + per-cpu deltas */
	int fair_depleted;              /* ZONE_FAIR_DEPLETED */
	uint64_t nr_free[MAX_ORDER]; /* free_area[o].nr_free */
	uint64_t nr_free_mt[MAX_ORDER][MIGRATE_TYPES]; /* list lengths */
	uint64_t allocated;             /* pages handed out and not freed */
	uint64_t boot_used;             /* in use from the start (machine `free:`) */
	int pcp_count, pcp_high, pcp_batch; /* this CPU's pageset */
	int pcp_list[3];                /* per pcp migratetype */
	int stat_threshold;
};
int mm_zone_get_info(const struct mm_world *w, int node, enum zone_type t, int cpu_id,
		     struct mm_zone_info *out);
/* min_free_kbytes the world computed (or was given). */
uint32_t mm_min_free_kbytes(const struct mm_world *w);

/*
 * Counters with kernel names (vmstat: pgalloc_dma, pgalloc_dma32,
 * pgalloc_normal, pgalloc_movable, pgfree, nr_free_pages, ...; numastat:
 * numa_hit, numa_miss, numa_foreign, local_node, other_node; model
 * events: pcp_refill, pcp_drain, zone_fair_depleted, ...).  The callback is
 * called once per (scope, scope id, name, value); scope is "zone" with id
 * "NODE/ZONE" (e.g. "0/Normal") or "node" with the node id.
 */
typedef int (*mm_counter_fn)(void *arg, const char *scope, const char *scope_id,
			     const char *name, int64_t value);
int mm_counters(const struct mm_world *w, mm_counter_fn fn, void *arg);

/*
 * Two of those counters summed over the machine without the walk: the
 * zones' pcp_refill (rmqueue_bulk calls) and the nodes' slowpath
 * (__alloc_pages_slowpath entries).  For callers that read them around
 * every call (the replay workload's path of each allocation).
 */
struct mm_path_counts {
	uint64_t pcp_refill, slowpath;
};
void mm_path_counts(const struct mm_world *w, struct mm_path_counts *out);

#endif
