/*
 * mm_internal — what the files of the page allocator model share (its
 * mm/internal.h, in the manner of SQLite's btreeInt.h): the Linux v4.6
 * model around commit 682a3385 in models/page_alloc.c, mmzone.c,
 * mempolicy.c, cpuset.c and vmstat.c (the hot files: the kernel
 * functions), mm_init.c and mm_info.c (the cold ones: set-up, tables,
 * introspection, the check), and reclaim in vmscan.c (its cold half in
 * vmscan_setup.c).  Only those files
 * include it; everything else uses the public models/page_alloc.h (which
 * this header includes).
 *
 * In three parts: models/mm_tables.h (the X-macro tables), models/mm_types.h
 * (the data structures and the kernel's struct layouts), and here the
 * charging helpers (br, call, ret, run_block, mem, bmem, mem_bytes,
 * atomic_rmw, irq_save, irq_restore, memo_reset: cost/charge.h's over this
 * model's enums and context), the accessors and <linux/list.h>, all
 * static inline: they run at every modelled step and must inline in
 * every file; then the model functions one file calls in another, with
 * kernel names (internal to models/, so no mm_ prefix).  In a fast copy
 * of sampled accounting (COPY_MODE defined: models/mm_copy.c,
 * cost/copy.h) the helpers are a fast call's steps instead (MM_CHARGE),
 * and the entries mm_alloc_pages()/mm_free_pages() dispatch to those
 * copies (fast_entry(), COPY_CALL).
 *
 * Costs.  Every modelled struct (struct page in a per-node vmemmap, struct
 * zone, per-cpu pagesets, zonelists, the task's mems_allowed, the pageblock
 * bitmap, per-cpu vmstat areas) has a synthetic address from cache_as, and
 * the code charges loads and stores where the kernel does them, each with
 * its kind (dependent load, independent load, store: cpu.h's out-of-order
 * rule; docs/design/pagealloc-model.md §4.1 lists the rule at every site).
 */
#ifndef NUMASIM_MM_INTERNAL_H
#define NUMASIM_MM_INTERNAL_H

#include "cost/charge.h"
#include "cost/copy.h"
#include "models/page_alloc.h"
#include "models/mm_tables.h"
#include "models/mm_types.h"

#include <assert.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

/* --- small helpers ----------------------------------------------------- */

static inline int fn_id(const struct mm_world *w, enum mm_fn f) { return w->ch.fn_base + (int)f; }

/*
 * The charging helpers (cost/charge.h) over the page allocator's enums:
 * its context w->ch (ids from fn_base and site_base, the same-line memo
 * w->ch.memo) and the constant MM_CHARGE.  In the fast copy (MM_FAST,
 * models/mm_copy.c) they are a fast call's steps: a branch is counted
 * and signed, a call counted and signed (cpu_copy_call()), work, a
 * return and an irq step cost nothing.  The copy runs inside a fast call
 * its entry started (fast_entry()), so every call() is a fast call's;
 * and only in a world whose cost tables begin with the page allocator's
 * (fn_base and site_base 0: every caller registers it first,
 * mm_register()), so that its ids are the enums' values
 * (CHARGE_IDS_FIXED), constants the compiler folds into each step's
 * address.  The page allocator keeps the same-line shortcut's contract
 * (cost/charge.h): every entry resets the memo (memo_reset()), and so
 * does atomic_rmw().
 */
#define MM_CHARGE (COPY_CHARGE | CHARGE_IDS_FIXED | CHARGE_SAME_LINE)
/* reclaim's tables are registered after every other model's: no fixed ids */
#define VM_CHARGE (COPY_CHARGE | CHARGE_SAME_LINE)
/* in a fast copy (cost/copy.h) */
#define MM_FAST (COPY_CHARGE != 0)

static CPU_INLINE bool br(struct cpu *c, const struct mm_world *w, enum mm_site s, bool cond)
{
	return charge_br(c, &w->ch, (int)s, cond, MM_CHARGE);
}

static CPU_INLINE void call(struct cpu *c, const struct mm_world *w, enum mm_fn f)
{
	charge_call(c, &w->ch, (int)f, MM_CHARGE);
}

static CPU_INLINE void ret(struct cpu *c)
{
	charge_ret(c, MM_CHARGE);
}

/* A block of MM_BLOCKS: its static cost in one step (cpu_block()); in the
 * fast copy nothing (a fast call charges its path when it returns). */
static CPU_INLINE void run_block(struct cpu *c, const struct mm_world *w, enum mm_block b)
{
	charge_block(c, &w->code[b], MM_CHARGE);
}

static CPU_INLINE void irq_save(struct cpu *c)
{
	charge_irq_save(c, MM_CHARGE);
}

static CPU_INLINE void irq_restore(struct cpu *c)
{
	charge_irq_restore(c, MM_CHARGE);
}

static CPU_INLINE void this_cpu_cmpxchg(struct cpu *c)
{
	charge_this_cpu_cmpxchg(c, MM_CHARGE);
}

/*
 * The series' tables (MM_SERIES_*: registered after every other model's,
 * so no fixed ids and no trace hook, which records the page allocator's
 * own site ids): a branch, a call, a block.
 */
#define MM_SERIES_CHARGE (COPY_CHARGE | CHARGE_SAME_LINE)

static CPU_INLINE bool sbr(struct cpu *c, const struct mm_world *w, enum mm_ssite s, bool cond)
{
	return charge_br(c, &w->sch, (int)s, cond, MM_SERIES_CHARGE);
}

static CPU_INLINE void scall(struct cpu *c, const struct mm_world *w, enum mm_sfn f)
{
	charge_call(c, &w->sch, (int)f, MM_SERIES_CHARGE);
}

static CPU_INLINE void run_sblock(struct cpu *c, const struct mm_world *w, enum mm_sblock b)
{
	charge_block(c, &w->scode[b], MM_SERIES_CHARGE);
}

/* the reclaim tables' charging helpers */
static inline bool vbr(struct cpu *c, const struct mm_world *w, enum vm_site s, bool cond)
{
	return charge_br(c, &w->vm_ch, (int)s, cond, VM_CHARGE);
}

static inline void vcall(struct cpu *c, const struct mm_world *w, enum vm_fn f)
{
	charge_call(c, &w->vm_ch, (int)f, VM_CHARGE);
}

static inline void vwork(struct cpu *c, enum vm_work k)
{
	charge_work(c, vm_work_cycles(k), VM_CHARGE);
}

/*
 * A load or store of `bytes` at addr, of a kind (cpu.h: CPU_LOAD_DEP when
 * the code needs the value at once, CPU_LOAD when nothing waits for it,
 * CPU_STORE; docs/design/pagealloc-model.md "Access kinds" gives the rules used
 * at every site), with the same-line shortcut (cost/charge.h).
 */
static CPU_INLINE void mem_bytes(struct cpu *c, const struct mm_world *w, uint64_t addr,
			     uint32_t bytes, int node, enum cpu_access kind)
{
	charge_mem(c, &w->ch, addr, bytes, node, kind, false, MM_CHARGE);
}

static CPU_INLINE void mem(struct cpu *c, const struct mm_world *w, uint64_t addr, int node,
		       enum cpu_access kind)
{
	charge_mem(c, &w->ch, addr, 8, node, kind, false, MM_CHARGE);
}

/* A word access the open block declared (MM_BLOCKS). */
static CPU_INLINE void bmem(struct cpu *c, const struct mm_world *w, uint64_t addr, int node,
			enum cpu_access kind)
{
	charge_mem(c, &w->ch, addr, 8, node, kind, true, MM_CHARGE);
}

static inline void atomic_rmw(struct cpu *c, const struct mm_world *w, uint64_t addr, int node)
{
	charge_atomic(c, &w->ch, addr, node, MM_CHARGE);
}

static inline void memo_reset(const struct mm_world *w, struct cpu *c)
{
	charge_memo_reset(c, &w->ch, MM_CHARGE);
}


static inline bool node_isset(const uint64_t *mask, int node)
{
	return (mask[node >> 6] >> (node & 63)) & 1;
}

static inline struct pfn_block *page_block(const struct mm_world *w, const struct page *p)
{
	return &w->blocks[p->block];
}

static inline struct zone *page_zone(const struct mm_world *w, const struct page *p)
{
	return &w->zones[w->blocks[p->block].zone];
}

static inline uint64_t page_pfn(const struct mm_world *w, const struct page *p)
{
	return w->blocks[p->block].pfn + p->off;
}

static inline int page_node(const struct mm_world *w, const struct page *p)
{
	return w->zones[w->blocks[p->block].zone].node;
}

/* The struct page at offset off of block b (off 0 when the block has no
 * detail: only its first page exists as an object). */
static inline struct page *block_page(struct pfn_block *b, unsigned off)
{
	assert(b->detail || off == 0);
	return b->detail ? &b->detail[off] : &b->head;
}

/* Charge an access to a struct page (flags, _count, lru, private share
 * its first line). */
static inline void mem_page(struct cpu *c, const struct mm_world *w, const struct page *p,
			    enum cpu_access kind)
{
	mem(c, w, p->addr, page_node(w, p), kind);
}

/* mem_page() of an access the open block declared. */
static inline void bmem_page(struct cpu *c, const struct mm_world *w, const struct page *p,
			     enum cpu_access kind)
{
	bmem(c, w, p->addr, page_node(w, p), kind);
}

/* A list node: a struct page or a list head inside a zone / pageset. */
static inline void mem_node(struct cpu *c, const struct mm_world *w, const struct page *p,
			    int head_node, enum cpu_access kind)
{
	mem(c, w, p->addr, p->block == UINT32_MAX ? head_node : page_node(w, p), kind);
}

static inline void list_init(struct page *h, uint64_t addr)
{
	memset(h, 0, sizeof *h);
	h->next = h->prev = h;
	h->addr = addr;
	h->block = UINT32_MAX;
	h->state = PS_HEAD_SENTINEL;
}

static inline bool list_empty(const struct page *h) { return h->next == h; }

static inline void list_add(struct page *n, struct page *h)
{
	n->next = h->next;
	n->prev = h;
	h->next->prev = n;
	h->next = n;
}

static inline void list_add_tail(struct page *n, struct page *h)
{
	n->prev = h->prev;
	n->next = h;
	h->prev->next = n;
	h->prev = n;
}

static inline void list_del(struct page *p)
{
	p->next->prev = p->prev;
	p->prev->next = p->next;
	p->next = p->prev = NULL;
}

/* --- struct zone addresses and counters (include/linux/vmstat.h) ------ */

static inline uint64_t zaddr_free_list(const struct zone *z, int o, int mt)
{
	return z->addr + ZOFF_FREE_AREA + (uint64_t)o * ZOFF_FREE_AREA_SIZE +
	       (uint64_t)mt * sizeof(struct klist_head);
}

static inline uint64_t zaddr_nr_free(const struct zone *z, int o)
{
	return z->addr + ZOFF_FREE_AREA + (uint64_t)o * ZOFF_FREE_AREA_SIZE + FAOFF_NR_FREE;
}

static inline uint64_t zaddr_stat(const struct zone *z, enum mm_stat i)
{
	return z->addr + ZOFF_VMSTAT + 8u * mm_stat_idx(i);
}

/* zone_page_state(): the atomic, negative clamps to 0 (SMP). */
static inline int64_t zone_page_state(const struct zone *z, enum mm_stat i)
{
	return z->vm_stat[i] < 0 ? 0 : z->vm_stat[i];
}

/* zone_page_state_snapshot(): the atomic plus every CPU's delta. */
static inline int64_t zone_stat_snapshot(const struct mm_world *w, const struct zone *z,
					 enum mm_stat i)
{
	int64_t v = z->vm_stat[i];
	for (int k = 0; k < w->s->nr_cpus; k++)
		v += z->pcp[k].diff[i];
	return v;
}

static inline struct per_cpu_pages *this_pcp(const struct cpu *c, struct zone *z)
{
	return &z->pcp[c->idx];
}

/* __count_zone_vm_events / __count_vm_event: a per-cpu counter. */
static inline void count_vm_event(struct cpu *c, const struct mm_world *w, int slot)
{
	const struct mm_cpu *ci = &w->cpus[c->idx];
	mem(c, w, ci->percpu + PERCPU_EVENTS + 8u * (unsigned)slot, c->node, CPU_STORE);
}

/* --- zonelists, gfp, cpusets, bit helpers, page order ----------------- */

/* One zoneref of node n's zonelist kind (include/linux/mmzone.h struct
 * zoneref, 16 bytes), loaded by the iterator and its callers. */
static inline void mem_zoneref(struct cpu *c, const struct mm_world *w, const struct pglist_data *n,
			       int kind, int i)
{
	mem_bytes(c, w, n->zl_addr[kind] + (uint64_t)i * ZONEREF_SIZE, ZONEREF_SIZE, n->id,
		  CPU_LOAD_DEP);
}

/* gfp_zone() (include/linux/gfp.h) */
static inline int gfp_zone(uint32_t gfp)
{
	/* GFP_ZONE_TABLE on x86_64 (no HIGHMEM): HIGHMEM -> Normal */
	uint32_t z = gfp & (__GFP_DMA | __GFP_HIGHMEM | __GFP_DMA32 | __GFP_MOVABLE);
	if (z & __GFP_DMA)
		return ZONE_DMA;
	if (z & __GFP_DMA32)
		return ZONE_DMA32;
	if ((z & (__GFP_MOVABLE | __GFP_HIGHMEM)) == (__GFP_MOVABLE | __GFP_HIGHMEM))
		return ZONE_MOVABLE;
	return ZONE_NORMAL;
}

/*
 * cpusets_enabled() (include/linux/cpuset.h): the static key
 * cpusets_enabled_key, on while a cpuset other than the root exists; the
 * model's is mm_config.cpusets_enabled.  See models/cpuset.c.
 */
static inline bool cpusets_enabled(const struct mm_world *w)
{
	return w->cfg.cpusets_enabled != 0;
}

/*
 * Whether the world's kernel contains series commit k (models/kcommit.h):
 * every changed spot of the series tests this, one switch per spot, as
 * the diff changes it.  mm_world_create() resolved w->cfg.commit.
 */
static inline bool mm_applied(const struct mm_world *w, enum kcommit k)
{
	return w->cfg.commit >= k;
}

/* fls64() (include/asm-generic/bitops/fls64.h) */
static inline int fls64(uint64_t x)
{
	int n = 0;
	while (x) {
		n++;
		x >>= 1;
	}
	return n;
}

/* set_page_order() / rmv_page_order() (mm/page_alloc.c): PageBuddy and
 * page_private(), set by the buddy allocator and the boot free lists. */
static inline void set_page_order(struct page *p, int order)
{
	p->order = (uint8_t)order;
	p->state = PS_BUDDY;
}

static inline void rmv_page_order(struct page *p)
{
	p->state = PS_NONE;
	p->order = 0;
}

/* --- model functions called across files ----------------------------- */

/*
 * The hot files (the kernel functions: page_alloc.c, mmzone.c,
 * mempolicy.c, vmstat.c, cpuset.c) are also compiled as the fast copies,
 * one translation unit each (models/mm_copy.c, cost/copy.h): what one
 * hot file calls in another is declared COPY_PRIVATE here, static inside
 * a copy.  The cold files' functions are plain declarations: a copy calls
 * the ordinary ones.
 */

/* models/page_alloc.c */
COPY_PRIVATE struct page *__alloc_pages_nodemask(struct cpu *c, struct mm_world *w,
						 uint32_t gfp, unsigned order,
						 struct pglist_data *zl_node, int zl_kind,
						 const uint64_t *nodemask);
/* ... for reclaim (models/vmscan.c) and the cold half (mm_info.c) */
COPY_PRIVATE struct page *get_page_from_freelist_ext(struct cpu *c, struct mm_world *w,
						     uint32_t gfp, int order, int alloc_flags,
						     const struct alloc_context *ac);
COPY_PRIVATE void free_hot_cold_page_ext(struct cpu *c, struct mm_world *w, struct page *page,
					 bool cold);
COPY_PRIVATE bool zone_watermark_ok_ext(struct cpu *c, struct mm_world *w, struct zone *z,
					int order, int64_t mark, int classzone_idx,
					int alloc_flags);
COPY_PRIVATE void drain_all_pages(struct cpu *c, struct mm_world *w);
COPY_PRIVATE void drain_local_pages(struct cpu *c, struct mm_world *w);

/* models/mmzone.c */
COPY_PRIVATE int next_zones_zonelist(struct cpu *c, const struct mm_world *w,
				     const struct pglist_data *n, int kind, int i, int high,
				     const uint64_t *nodes);
COPY_PRIVATE int first_zones_zonelist(struct cpu *c, const struct mm_world *w,
				      const struct pglist_data *n, int kind, int high,
				      const uint64_t *nodes, struct zone **zone);

/* models/mempolicy.c */
COPY_PRIVATE struct page *alloc_pages_current(struct mm_world *w, struct cpu *c, uint32_t gfp,
					      unsigned int order);

/* models/cpuset.c */
COPY_PRIVATE bool __cpuset_node_allowed(struct cpu *c, struct mm_world *w, int node,
					uint32_t gfp);

/* models/vmstat.c */
COPY_PRIVATE int stat_threshold(const struct mm_world *w, const struct zone *z);
COPY_PRIVATE void __mod_zone_page_state(struct cpu *c, struct mm_world *w, struct zone *z,
					enum mm_stat i, int64_t delta);
COPY_PRIVATE void mod_zone_page_state(struct cpu *c, struct mm_world *w, struct zone *z,
				      enum mm_stat i, int64_t delta);
COPY_PRIVATE void inc_zone_page_state(struct cpu *c, struct mm_world *w, struct zone *z,
				      enum mm_stat i);
COPY_PRIVATE void __dec_zone_state(struct cpu *c, struct mm_world *w, struct zone *z,
				   enum mm_stat i);
COPY_PRIVATE void zone_statistics(struct cpu *c, struct mm_world *w, struct zone *pref,
				  struct zone *z, uint32_t gfp);

/*
 * The entries that run the fast copies (mm_alloc_pages, mm_free_pages,
 * defined as COPY_ENTRY(name)): when fast_entry() says the top-level call
 * of f will be fast (and has started it), the entry runs COPY_CALL(c,
 * NAME, args), its copy's NAME_fast(args) (warming) or NAME_fastn(args)
 * (none), then ends the call with cpu_fast_end().  Never in a copy itself.
 */
static inline bool fast_entry(struct cpu *c, const struct mm_world *w, enum mm_fn f)
{
	return !MM_FAST && c->fcopy && !(w->ch.fn_base | w->ch.site_base) &&
	       cpu_fast_entry(c, fn_id(w, f));
}
COPY_DECLARE(mm_alloc_pages);
COPY_DECLARE(mm_free_pages);

/* --- the cold files ------------------------------------------------------ */

/* models/mm_info.c: the names of MM_BLOCKS and MM_SERIES_BLOCKS in enum
 * order (the units mm_register() registers, the names change files use) */
const char *const *mm_block_names(void);
const char *const *mm_series_block_names(void);

/* models/mm_init.c: set-up */
void setup_pcp_sizes(struct mm_world *w, struct zone *z, int *high, int *batch);
void compute_min_free(struct mm_world *w);
int setup_mempolicy(struct mm_world *w, struct diag *d);
int setup_nodemask(struct mm_world *w, struct diag *d);

/* models/mm_init.c: a synthetic address on node */
int mm_alloc_addr(struct mm_world *w, int node, uint64_t bytes, uint64_t align,
		  uint64_t *out, struct diag *d);

/* models/mm_init.c: the memmap's per-page metadata */
struct page *block_split(struct mm_world *w, struct pfn_block *b);
struct page *block_unsplit(struct mm_world *w, struct pfn_block *b);

/* The LRU helpers of include/linux/mm_inline.h and mm.h that both
 * models/vmscan.c and vmscan_setup.c use */
static inline bool is_file_lru(int lru) { return lru >= MM_LRU_INACTIVE_FILE; }
static inline bool is_active_lru(int lru) { return lru & 1; }
/* page_lru(): the list a page of these flags belongs on */
static inline int page_lru(const struct page *p)
{
	return ((p->pgflags & PGF_SWAPBACKED) ? 0 : 2) + ((p->pgflags & PGF_ACTIVE) ? 1 : 0);
}
static inline bool page_is_file_cache(const struct page *p)
{
	return !(p->pgflags & PGF_SWAPBACKED);
}
static inline bool page_mapped(const struct page *p) { return p->pgflags & PGF_MAPPED; }

/* models/vmscan.c */
enum { ZONE_RECLAIM_NOSCAN = -2, ZONE_RECLAIM_FULL = -1, ZONE_RECLAIM_SOME = 0,
       ZONE_RECLAIM_SUCCESS = 1 };
int zone_reclaim(struct cpu *c, struct mm_world *w, struct zone *zone, uint32_t gfp,
		 int order);
bool zone_allows_reclaim(const struct mm_world *w, const struct zone *local,
			 const struct zone *zone);
void wake_all_kswapds(struct cpu *c, struct mm_world *w, int order,
		      const struct alloc_context *ac);
struct page *alloc_pages_reclaim_tail(struct cpu *c, struct mm_world *w, uint32_t gfp,
				      int order, int alloc_flags, struct alloc_context *ac,
				      bool *retry);
/* models/vmscan_setup.c */
int vmscan_check(const struct mm_world *w, const struct zone *z, uint64_t free_pages,
		 uint64_t pcp_pages, struct diag *d);
int vmscan_counters(const struct mm_world *w, mm_counter_fn fn, void *arg);
void vmscan_init_zone(struct zone *z);

#endif
