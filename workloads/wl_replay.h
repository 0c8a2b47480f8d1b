/*
 * wl_replay — the `replay` workload: a recorded kmem trace (perf script or
 * ftrace text, or the compact file of `numasim import trace`; ktrace.h)
 * driven through the page allocator and SLUB models, call for call.
 *
 * What it models: the recorded allocation and free calls, not the code
 * that made them.  Each event runs on machine CPU cpus[recorded CPU %
 * nr_cpus] (the placement: policy.cpus, else every CPU of the machine),
 * in file order; with `timing: recorded` (the default) a CPU idles until
 * the event's recorded time (measured from the trace's first event) when
 * it is not already past it, with `timing: asap` each CPU runs its calls
 * back to back.  The calls:
 *   - mm_page_alloc: alloc_pages(gfp, order) (mm_alloc_pages), gfp from
 *     the printed flags (the v4.6 names and masks; GFP_KERNEL_ACCOUNT
 *     read as GFP_KERNEL, the THP masks as v4.8+ define them, the
 *     accounting and debugging flags as nothing, other unknown names
 *     dropped and counted);
 *   - mm_page_free, mm_page_free_batched: __free_pages of the page the
 *     trace allocated at that pfn, at the order of its allocation;
 *   - kmem_cache_alloc*, kmalloc*: slab_alloc_node on the kmalloc cache
 *     of the event's bytes_alloc (the model has no named caches; a cache
 *     of the same size class stands in), the node printed when it is a
 *     node of the machine, without the event's gfp (the SLUB model's
 *     entry takes none: its new slabs use the cache's own flags); above
 *     the largest kmalloc cache (kmalloc_large) an alloc_pages of the
 *     size's order with the event's gfp and __GFP_COMP;
 *   - kmem_cache_free, kfree: the free of the object the trace allocated
 *     at that pointer (kfree(NULL) is counted, not run).
 * Page events that belong to slab allocations (KT_F_SLAB_PAGE) are left
 * to the SLUB model, which allocates its own slabs; the allocator's
 * internal events (mm_page_alloc_zone_locked, mm_page_pcpu_drain) are
 * counted, not run; recorded failures are counted, not run.  A free of a
 * pfn or pointer the trace never allocated is counted and skipped.
 *
 * Each call is classified by what it did in the model: page allocations
 * as pcp (no zone->lock taken), refill (rmqueue_bulk ran), buddy
 * (zone->lock taken: order > 0, or the pcp path's fallback), slow
 * (__alloc_pages_slowpath entered) or failed; page frees as pcp, drain
 * (free_pcppages_bulk) or buddy; SLUB allocations by their stat items
 * (fast, refill, cpu_partial, node_partial, new_slab, large) and frees
 * (fast, frozen, cpu_partial, add_partial, discard, slow).  The refill
 * and slow-path counters are read when a call took a zone->lock or
 * failed, so a slow-path entry that took no lock is counted with the
 * next call that did (docs/reference/trace-format.md, "The replay workload's keys").
 *
 * Invariants: the run's live maps hold exactly the pages and objects the
 * model handed out and did not free; at the end everything still live
 * is freed on the placement's first CPU (not measured), so the run
 * leaves none of the trace's allocations behind.
 *
 * Error policy: the trace is read at parse time (file:line:col of the
 * trace, NS_EINPUT; NS_ENOMEM); the run returns NS_ENOMEM or the
 * models' NS_EINTERNAL; WL_STOPPED when *stop became non-zero.
 */
#ifndef NUMASIM_WL_REPLAY_H
#define NUMASIM_WL_REPLAY_H

#include <stdint.h>

#include "analysis/latency_hist.h"
#include "workloads/ktrace.h"
#include "workloads/workload.h"

enum wl_replay_timing { WL_REPLAY_RECORDED, WL_REPLAY_ASAP };

/* The paths a call is classified by: X(id, "name"). */
#define WL_REPLAY_PAGE_ALLOC_PATHS(X)                                          \
	X(PCP, "pcp") X(REFILL, "refill") X(BUDDY, "buddy") X(SLOW, "slow")    \
	X(FAILED, "failed")
#define WL_REPLAY_PAGE_FREE_PATHS(X) X(PCP, "pcp") X(DRAIN, "drain") X(BUDDY, "buddy")
#define WL_REPLAY_SLAB_ALLOC_PATHS(X)                                          \
	X(FAST, "fast") X(REFILL, "refill") X(CPU_PARTIAL, "cpu_partial")      \
	X(NODE_PARTIAL, "node_partial") X(NEW_SLAB, "new_slab")                \
	X(LARGE, "large") X(FAILED, "failed")
#define WL_REPLAY_SLAB_FREE_PATHS(X)                                           \
	X(FAST, "fast") X(FROZEN, "frozen") X(CPU_PARTIAL, "cpu_partial")      \
	X(ADD_PARTIAL, "add_partial") X(DISCARD, "discard") X(SLOW, "slow")    \
	X(LARGE, "large")

#define WL_PA_ENUM(id, name) WL_PA_##id,
#define WL_PF_ENUM(id, name) WL_PF_##id,
#define WL_SA_ENUM(id, name) WL_SA_##id,
#define WL_SF_ENUM(id, name) WL_SF_##id,
enum wl_replay_pa { WL_REPLAY_PAGE_ALLOC_PATHS(WL_PA_ENUM) WL_RP_NR_PA };
enum wl_replay_pf { WL_REPLAY_PAGE_FREE_PATHS(WL_PF_ENUM) WL_RP_NR_PF };
enum wl_replay_sa { WL_REPLAY_SLAB_ALLOC_PATHS(WL_SA_ENUM) WL_RP_NR_SA };
enum wl_replay_sf { WL_REPLAY_SLAB_FREE_PATHS(WL_SF_ENUM) WL_RP_NR_SF };
#undef WL_PA_ENUM
#undef WL_PF_ENUM
#undef WL_SA_ENUM
#undef WL_SF_ENUM

struct scn_replay {
	const char *trace_text;         /* workload.trace as written */
	char *trace_path;               /* as opened */
	enum wl_replay_timing timing;
	struct ktrace t;
};

struct wl_replay_class {
	uint64_t calls, cycles;
};

#define WL_REPLAY_TOP_SITES 32
struct wl_replay_site {
	uint32_t call_site;             /* string index */
	char name[128];                 /* its text, cut at 127 bytes */
	struct wl_replay_class c;
};

struct wl_replay_result {
	uint64_t events, calls, cycles;  /* calls run, their cycles */
	uint64_t free_unknown;           /* frees of what the trace never allocated */
	uint64_t free_null;              /* kfree(NULL) */
	uint64_t slab_pages;             /* page events left to SLUB */
	uint64_t internal;               /* zone_locked, pcpu_drain */
	uint64_t recorded_failed;        /* failures in the trace */
	uint64_t gfp_dropped;            /* unknown gfp flag names dropped */
	uint64_t page_local, page_remote, obj_local, obj_remote;
	uint64_t leftover;               /* live at the end, freed unmeasured */
	struct wl_replay_class page_alloc[KT_MAX_ORDER][WL_RP_NR_PA];
	struct wl_replay_class page_free[KT_MAX_ORDER][WL_RP_NR_PF];
	struct wl_replay_class slab_alloc[WL_RP_NR_SA], slab_free[WL_RP_NR_SF];
	struct wl_replay_site site[WL_REPLAY_TOP_SITES];   /* by calls */
	int nr_site;
	struct latency_hist alloc_hist, free_hist;  /* cycles per call, log2 buckets */
};

const char *wl_replay_pa_name(enum wl_replay_pa p);
const char *wl_replay_pf_name(enum wl_replay_pf p);
const char *wl_replay_sa_name(enum wl_replay_sa p);
const char *wl_replay_sf_name(enum wl_replay_sf p);

#endif
