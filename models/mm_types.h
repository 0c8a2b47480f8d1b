/*
 * mm_types — the page allocator model's data structures (part of
 * models/mm_internal.h, which includes it; nothing else may): struct
 * page and the memmap's blocks, the free areas, the per-cpu pagesets,
 * struct zone with its reclaim lruvec, pglist_data, the per-CPU task
 * state, struct mm_world and alloc_context; and the synthetic addresses
 * of the kernel's structures the code charges (the v4.6 x86_64 layouts,
 * derived from mirror structs with offsetof and pinned by
 * _Static_assert).  Invariants: see page_alloc.c's and vmscan.c's notes
 * (mm_check(), vmscan_check()).
 *
 * The kernel's lists (free_area[o].free_list[mt], pcp->lists[mt]) are
 * intrusive circular lists of struct page with sentinel heads, as in
 * <linux/list.h>; list order is the kernel's.
 */
#ifndef NUMASIM_MM_TYPES_H
#define NUMASIM_MM_TYPES_H

#ifndef NUMASIM_MM_INTERNAL_H
#error "include models/mm_internal.h, which includes this header"
#endif

#include "cost/charge.h"
#include "models/mm_tables.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* --- data structures --------------------------------------------------- */

enum page_state { PS_NONE, PS_BUDDY, PS_PCP, PS_ALLOC, PS_HEAD_SENTINEL };

struct page {
	struct page *next, *prev;   /* page->lru */
	uint64_t addr;                 /* synthetic address of the struct page */
	uint32_t block;                /* index in w->blocks (UINT32_MAX: list head) */
	uint16_t off;                  /* pfn offset in the block */
	uint8_t order;                 /* page_private() while PageBuddy */
	uint8_t state;                 /* enum page_state (PageBuddy = PS_BUDDY) */
	uint8_t mt;                    /* get/set_pcppage_migratetype */
	uint8_t pgflags;               /* PG_* bits reclaim reads (below) */
	int16_t pcp_cpu;               /* PS_PCP: owning CPU index */
	int32_t count;                 /* page->_count */
	int32_t alloc_order;           /* PS_ALLOC: order it was allocated with */
	uint32_t owner;                /* on an LRU: the owner's token */
};
/* page->flags bits of the reclaim model (models/vmscan.c); 0 for every
 * page that is not on an LRU. */
#define PGF_LRU 0x01u          /* PG_lru */
#define PGF_ACTIVE 0x02u       /* PG_active */
#define PGF_REFERENCED 0x04u   /* PG_referenced */
#define PGF_YOUNG 0x08u        /* the PTE accessed bit of a mapped page */
#define PGF_MAPPED 0x10u       /* page_mapped() */
#define PGF_SWAPBACKED 0x20u   /* PG_swapbacked: anonymous */
#define PGF_DIRTY 0x40u        /* PG_dirty */
#define PGF_RECLAIM 0x80u      /* PG_reclaim (dirty page seen by reclaim) */

struct pfn_block {
	struct page head;           /* struct page of pfn offset 0 while no detail */
	struct page *detail;        /* [BLOCK_PAGES] once split */
	uint64_t pfn;
	uint64_t addr;                 /* synthetic address of its first struct page */
	uint32_t zone;
	uint16_t npages;               /* pages of the zone in this block */
	uint8_t pb_mt[BLOCK_PAGES / PAGEBLOCK_PAGES];
};

struct free_area {
	struct page list[MT_TYPES];
	uint64_t nr_free;
};

struct per_cpu_pages {
	int count, high, batch;
	struct page lists[MT_PCPTYPES];
	int32_t diff[MM_NR_STAT];      /* vm_stat_diff (s8 in the kernel) */
	int stat_threshold;
	uint64_t addr;                 /* synthetic struct per_cpu_pageset */
};

/*
 * The kernel's structures as the code charges them: the v4.6 x86_64
 * layouts (CONFIG_NUMA, CONFIG_SMP, 64-byte lines), mirrored field by field
 * as far as the model addresses them, the cache-line padding of the
 * kernel (ZONE_PADDING, ____cacheline_aligned_in_smp) as _Alignas(64).
 * They are never instantiated: a synthetic address is the structure's
 * address plus offsetof() of the field (the *OFF_ names below), and
 * _Static_assert pins the figures every count so far was made with, so a
 * field moved by mistake fails the build instead of moving a count.
 * (The per-CPU area and the task are the model's own excerpts: where it
 * keeps current_task, vm_event_states and the task fields it reads.)
 */
struct klist_head { uint64_t next, prev; };
struct kfree_area {                      /* struct free_area */
	struct klist_head free_list[MT_TYPES];
	uint64_t nr_free;
};
struct klruvec {                         /* struct lruvec, evictable lists */
	struct klist_head lists[MM_NR_LRU_LISTS];
	struct {
		uint64_t recent_rotated[2], recent_scanned[2];
	} reclaim_stat;                  /* struct zone_reclaim_stat */
	uint64_t inactive_age, zone;
};
#define KZONE_STAT_ITEMS 38              /* vm_stat[]: up to NUMA_OTHER (37) */
struct kzone {                           /* struct zone */
	uint64_t watermark[3];
	uint64_t nr_reserved_highatomic;
	int64_t lowmem_reserve[5];       /* MAX_NR_ZONES */
	int32_t node;
	uint32_t inactive_ratio;
	uint64_t zone_pgdat;
	uint64_t pageset;
	/* pageblock_flags, zone_start_pfn, the page counts, name, wait tables */
	_Alignas(64) uint32_t lock;      /* ZONE_PADDING(_pad1_) */
	struct kfree_area free_area[MAX_ORDER];
	uint64_t flags;
	_Alignas(64) struct klruvec lruvec; /* ZONE_PADDING(_pad2_) */
	uint32_t lru_lock;
	_Alignas(64) int64_t vm_stat[KZONE_STAT_ITEMS]; /* ZONE_PADDING(_pad3_) */
};
struct kper_cpu_pageset {                /* struct per_cpu_pageset */
	int32_t count, high, batch;      /* struct per_cpu_pages pcp */
	struct klist_head lists[MT_PCPTYPES];
	_Alignas(64) int8_t expire;
	int8_t stat_threshold;
	int8_t vm_stat_diff[KZONE_STAT_ITEMS];
};
struct kmempolicy {                      /* struct mempolicy */
	int32_t refcnt;
	uint16_t mode, flags;
	uint64_t v;                      /* preferred_node or nodes */
};
struct kpercpu {                         /* this CPU's per-cpu area */
	uint64_t current_task;
	_Alignas(64) uint64_t vm_event_states[1];
};
struct ktask {                           /* task_struct, the fields read */
	uint64_t mempolicy;
	uint64_t flags;
	uint64_t il_next;
	_Alignas(64) uint64_t mems_allowed[MACHINE_MAX_NODES / 64];
};

#define ZOFF_WATERMARK offsetof(struct kzone, watermark)
#define ZOFF_HIGHATOMIC offsetof(struct kzone, nr_reserved_highatomic)
#define ZOFF_LOWMEM offsetof(struct kzone, lowmem_reserve)
#define ZOFF_NODE offsetof(struct kzone, node)
#define ZOFF_PAGESET offsetof(struct kzone, pageset)
#define ZOFF_LOCK offsetof(struct kzone, lock)
#define ZOFF_FREE_AREA offsetof(struct kzone, free_area)
#define ZOFF_FREE_AREA_SIZE sizeof(struct kfree_area)
#define FAOFF_NR_FREE offsetof(struct kfree_area, nr_free)
#define ZOFF_FLAGS offsetof(struct kzone, flags)
#define ZOFF_VMSTAT offsetof(struct kzone, vm_stat)
#define ZONE_STRUCT_SIZE sizeof(struct kzone)
#define PCPOFF_LISTS offsetof(struct kper_cpu_pageset, lists)
#define PCPOFF_THRESHOLD offsetof(struct kper_cpu_pageset, stat_threshold)
#define PCPOFF_DIFF offsetof(struct kper_cpu_pageset, vm_stat_diff)
#define PCP_STRUCT_SIZE sizeof(struct kper_cpu_pageset)
#define ZOFF_LRUVEC offsetof(struct kzone, lruvec)
#define ZOFF_RECLAIM_STAT (ZOFF_LRUVEC + offsetof(struct klruvec, reclaim_stat))
#define ZOFF_LRU_LOCK offsetof(struct kzone, lru_lock)
#define MPOL_OFF_MODE offsetof(struct kmempolicy, mode)
#define MPOL_OFF_FLAGS offsetof(struct kmempolicy, flags)
#define MPOL_OFF_V offsetof(struct kmempolicy, v)
#define PERCPU_CURRENT offsetof(struct kpercpu, current_task)
#define PERCPU_EVENTS offsetof(struct kpercpu, vm_event_states)
#define TASK_MEMPOLICY offsetof(struct ktask, mempolicy)
#define TASK_FLAGS offsetof(struct ktask, flags)
#define TASK_IL_NEXT offsetof(struct ktask, il_next)
#define TASK_MEMS_ALLOWED offsetof(struct ktask, mems_allowed)

_Static_assert(ZOFF_HIGHATOMIC == 24 && ZOFF_LOWMEM == 32 && ZOFF_NODE == 72 &&
	       ZOFF_PAGESET == 88 && ZOFF_LOCK == 128 && ZOFF_FREE_AREA == 136 &&
	       ZOFF_FREE_AREA_SIZE == 104 && FAOFF_NR_FREE == 96 && ZOFF_FLAGS == 1280 &&
	       ZOFF_LRUVEC == 1344 && ZOFF_RECLAIM_STAT == 1408 && ZOFF_LRU_LOCK == 1456 &&
	       ZOFF_VMSTAT == 1472 && ZONE_STRUCT_SIZE == 1792,
	       "struct zone: the v4.6 x86_64 offsets");
_Static_assert(PCPOFF_LISTS == 16 && PCPOFF_THRESHOLD == 65 && PCPOFF_DIFF == 66 &&
	       PCP_STRUCT_SIZE == 128, "struct per_cpu_pageset: pcp in line 0, the stat diffs in line 1");
_Static_assert(MPOL_OFF_MODE == 4 && MPOL_OFF_FLAGS == 6 && MPOL_OFF_V == 8,
	       "struct mempolicy (v4.6)");
_Static_assert(PERCPU_CURRENT == 0 && PERCPU_EVENTS == 64 && TASK_MEMPOLICY == 0 &&
	       TASK_FLAGS == 8 && TASK_IL_NEXT == 16 && TASK_MEMS_ALLOWED == 64,
	       "the per-cpu area and the task's fields");

/*
 * Reclaim per zone (v4.6 struct lruvec inside struct zone, its
 * zone_reclaim_stat, the zone flags reclaim uses, and the vmstat items and
 * events of reclaim).  Used only when the world has reclaim.
 */
/* reclaim events per zone, vmstat names (with the zone type appended
 * where the kernel's name has it: pgscan_kswapd_normal) */
#define VM_ZEVENTS(X)                                                          \
	X(pgscan_kswapd, 1, "pages scanned by kswapd (PGSCAN_KSWAPD)")         \
	X(pgscan_direct, 1, "pages scanned by direct reclaim (PGSCAN_DIRECT)") \
	X(pgsteal_kswapd, 1, "pages reclaimed by kswapd (PGSTEAL_KSWAPD)")     \
	X(pgsteal_direct, 1, "pages reclaimed by direct reclaim (PGSTEAL_DIRECT)") \
	X(pgrefill, 1, "active pages scanned (PGREFILL)")                      \
	X(pgactivate, 0, "pages activated (PGACTIVATE)")                       \
	X(pgdeactivate, 0, "pages deactivated (PGDEACTIVATE)")                 \
	X(nr_vmscan_write, 0, "pages written by reclaim (NR_VMSCAN_WRITE)")    \
	X(nr_vmscan_immediate_reclaim, 0, "dirty pages marked PG_reclaim (NR_VMSCAN_IMMEDIATE)") \
	X(zone_reclaim_failed, 0, "zone_reclaim calls that freed too little (PGSCAN_ZONE_RECLAIM_FAILED)") \
	X(zone_reclaim, 0, "zone_reclaim calls that scanned (__zone_reclaim)") \
	X(pswpout, 0, "anonymous pages written to swap (PSWPOUT)")
enum vm_zevent {
#define VM_ZEV_ENUM(id, suffix, desc) VZ_##id,
	VM_ZEVENTS(VM_ZEV_ENUM)
#undef VM_ZEV_ENUM
	VM_NR_ZEVENT
};
/* reclaim events per node (scope "node") */
#define VM_NEVENTS(X)                                                          \
	X(allocstall, "direct reclaim entries (ALLOCSTALL, do_try_to_free_pages)") \
	X(oom, "out_of_memory decisions (counted; nothing is killed)")         \
	X(kswapd_wakeup, "wakeup_kswapd calls that woke kswapd")               \
	X(pageoutrun, "balance_pgdat runs (PAGEOUTRUN)")                       \
	X(kswapd_steps, "balance_pgdat priority-loop iterations")              \
	X(slowpath_retry, "__alloc_pages_slowpath retries after progress")     \
	X(slowpath_retry_cap, "slow paths the model stopped at 1000 retries")  \
	X(zone_reclaim_success, "allocations served after zone_reclaim")
enum vm_nevent {
#define VM_NEV_ENUM(id, desc) VN_##id,
	VM_NEVENTS(VM_NEV_ENUM)
#undef VM_NEV_ENUM
	VM_NR_NEVENT
};

struct lruvec {
	struct page lists[MM_NR_LRU_LISTS];
	uint64_t nr[MM_NR_LRU_LISTS];       /* NR_LRU_BASE + lru (exact) */
	uint64_t recent_rotated[2], recent_scanned[2]; /* [0] anon, [1] file */
	uint64_t nr_isolated[2];            /* NR_ISOLATED_ANON/FILE */
	uint64_t nr_mapped_file;            /* NR_FILE_MAPPED */
	uint64_t nr_dirty_file;             /* NR_FILE_DIRTY */
	uint64_t inactive_ratio;            /* calculate_zone_inactive_ratio */
	uint64_t min_unmapped_pages, min_slab_pages;
	int zone_dirty;                     /* ZONE_DIRTY */
	int reclaim_locked;                 /* ZONE_RECLAIM_LOCKED */
	uint64_t ev[VM_NR_ZEVENT];
};

struct zone {
	int node, node_pos;
	enum zone_type type;
	int id;
	uint64_t start_pfn, managed;
	uint32_t first_block, nr_blocks;
	int64_t watermark[3];
	int64_t nr_reserved_highatomic;
	int64_t lowmem_reserve[NR_ZONE_TYPES];
	int64_t vm_stat[MM_NR_STAT];   /* zone atomics */
	int fair_depleted;
	int has_isolate_pageblock;
	uint64_t allocated;
	uint64_t boot_used;            /* in use from the start (machine `free:`),
					* never freed: mm_init.c boot_used() */
	uint64_t ev[MM_NR_EVENT];
	struct free_area free_area[MAX_ORDER];
	struct cpu_lock lock;
	struct per_cpu_pages *pcp;            /* [nr_cpus of the cpu_sys] */
	uint64_t addr;                 /* struct zone */
	uint64_t usemap;               /* pageblock_flags bitmap */
	uint64_t vmemmap;              /* struct page of start_pfn */
	struct lruvec lruvec;          /* reclaim (models/vmscan.c) */
	struct cpu_lock lru_lock;      /* zone->lru_lock */
};

struct mm_zoneref {
	struct zone *zone;          /* NULL: sentinel */
	int zone_idx;
};

struct pglist_data {
	int id;
	int online;
	struct zone *zones[NR_ZONE_TYPES];  /* node_zones[], NULL if empty */
	int nr_zonerefs[MAX_ZONELISTS];
	struct mm_zoneref *zonerefs[MAX_ZONELISTS];
	uint64_t zl_addr[MAX_ZONELISTS];
	uint64_t ev[MM_NR_NEVENT];
	uint64_t policy_addr;          /* preferred_node_policy[node] */
	/* kswapd (models/vmscan.c): woken, its balance_pgdat state */
	int kswapd_woken;              /* wake_up_interruptible(&kswapd_wait) */
	int kswapd_running;            /* inside balance_pgdat */
	int kswapd_max_order, classzone_idx;
	int kswapd_priority;           /* sc.priority of the running balance_pgdat */
	uint64_t kswapd_nr_attempted;
	uint64_t vm_ev[VM_NR_NEVENT];
	uint64_t pgdat_addr;           /* kswapd_wait and the node's fields */
};

/* Per simulated CPU: the running task and the per-cpu areas. */
struct mm_cpu {
	int numa_node;                 /* numa_node_id() (after x86 remapping) */
	int node_pos;
	uint64_t percpu;               /* current_task, vm_event_states */
	uint64_t task;                 /* task_struct: mempolicy, mems_allowed */
	uint64_t mpol;                 /* the task's struct mempolicy */
	int il_next;                   /* current->il_next (interleave cursor) */
};

struct page_detail_pool {
	struct page **free;
	size_t nr, cap;
	size_t total;                  /* details ever allocated */
	struct page **all;          /* every detail, for destruction */
	size_t nr_all, cap_all;
};

struct mm_world {
	const struct machine *m;
	struct mm_config cfg;
	struct cpu_block code[MM_NR_BLOCK]; /* MM_BLOCKS costed for w->s (mm_init.c) */
	/* the series' ids (fn_base, site_base: mm_config.series; -1 when the
	 * world's tables have none; the memo is ch's) and MM_SERIES_BLOCKS */
	struct charge_ctx sch;
	struct cpu_block scode[MM_NR_SBLOCK];
	struct cpu_sys *s;
	struct charge_ctx ch;          /* ids, same-line memo (cost/charge.h) */
	struct zonelists *zl;
	struct cache_as own_as;
	struct cache_as *as;
	int nr_zones;
	struct zone *zones;
	int nr_nodes;
	struct pglist_data *nodes;         /* by machine position */
	uint64_t nr_blocks;
	struct pfn_block *blocks;
	struct mm_cpu *cpus;       /* [s->nr_cpus] */
	struct page_detail_pool pool;
	uint64_t nodemask[MACHINE_MAX_NODES / 64]; /* current->mems_allowed */
	uint64_t mpol_mask[MACHINE_MAX_NODES / 64]; /* pol->v.nodes (BIND, INTERLEAVE) */
	int mpol_first;                /* first_node(pol->v.nodes) / preferred_node */
	int mpol_apply_zone;           /* BIND: dynamic_policy_zone */
	int nr_online_nodes;
	int mobility_disabled;         /* page_group_by_mobility_disabled */
	uint32_t min_free_kbytes;
	uint64_t vm_stat_addr;         /* global vm_stat[] */
	uint64_t callback_lock_addr;
	struct cpu_lock callback_lock;
	mm_trace_fn trace;             /* numasim trace, else NULL */
	void *trace_arg;
	/* reclaim (models/vmscan.c): on when cfg.reclaim.enabled and attached */
	int reclaim;
	struct charge_ctx vm_ch;       /* reclaim's ids; the memo is ch's */
	uint64_t nr_swap_used;          /* swap slots in use */
	uint64_t mapping_addr[2];       /* anon_vma / address_space of the owners */
	uint64_t swap_info_addr;        /* swap_info_struct (swap_lock, map) */
	mm_reclaim_fn reclaim_hook;
	void *reclaim_arg;
	int kswapd_wake_seq;            /* woken nodes, in order (see vmscan.c) */
};

/* alloc_context */
struct alloc_context {
	struct pglist_data *zl_node;       /* owner of the zonelist */
	int zl_kind;
	const uint64_t *nodemask;      /* NULL or w->nodemask */
	struct zone *preferred_zone;
	int preferred_zoneref;         /* its index in the zonelist (v3 21) */
	int classzone_idx;
	int migratetype;
	int high_zoneidx;
	int spread_dirty_pages;
};

#endif
