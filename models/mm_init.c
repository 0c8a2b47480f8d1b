/*
 * mm_init — building a page allocator world and the model's memmap, for
 * the Linux v4.6 model of page_alloc.c (both variants of 682a3385 build
 * the same world).  What boot does in the kernel: free_area_init_core and
 * memmap_init_zone (zones, struct pages, every pageblock MOVABLE),
 * build_all_zonelists (the lists come from models/zonelist.c; here they
 * become zonerefs of the world's zones), setup_zone_pageset and
 * pageset_set_high_and_batch (sizes from page_alloc.c), free_all_bootmem
 * (mm/nobootmem.c: all memory freed to the buddy), the per-cpu areas and
 * each CPU's task, then cpuset.c's mems_allowed, mempolicy.c's policy and
 * page_alloc.c's watermarks.  Named after mm/mm_init.c, which in v4.6
 * holds the init-time checks (mminit_verify_zonelist) and in mainline
 * since v6.4 also the memmap and zone initialisation taken out of
 * mm/page_alloc.c.
 *
 * Memory representation.  pfns are laid out node by node, zone by zone in
 * ascending type order, every zone starting on a MAX_ORDER block boundary
 * (1024 pages).  Metadata exists per MAX_ORDER block (struct pfn_block, ~80
 * bytes, 20 MiB for 1 TiB): the block's two pageblock migratetypes and an
 * embedded struct page for its first pfn, which is all a block needs while
 * it is a whole free order-10 block or an allocated order-10 page.  The
 * first time a block is split (expand() from order 10) it gets a detail
 * array of 1024 struct pages, taken from a pool; when __free_one_page()
 * merges it back to order 10 the detail returns to the pool.  After
 * warm-up nothing is allocated per simulated allocation or free.  The last
 * block of a zone whose size is not a multiple of 1024 pages keeps its
 * detail for ever (its pages can never merge to order 10).
 *
 *
 * block_split() and block_unsplit() are the memmap's lazy part, called
 * from the buddy allocator in page_alloc.c; detail_get() is their pool.
 *
 * Invariants: after mm_world_create() every page of a zone is free in the
 * buddy (whole MAX_ORDER-1 blocks on the MOVABLE lists, a partial last
 * block in aligned pieces) except the node's pages in use from the start
 * (machine key `free:`, boot_used() below), every pcp list is empty, every zoneref names
 * a populated zone and each zonelist ends in a NULL sentinel.
 *
 * Error policy: set-up returns NS_ERANGE / NS_EINPUT with a diag message
 * for configurations the model cannot represent, NS_ENOMEM (with a diag
 * message) on host allocation failure; the half-built world is destroyed
 * and *out stays NULL.  block_split() aborts when the host has no memory
 * for page metadata: inside the simulated critical section nothing
 * sensible can continue.
 *
 * Since the hot/cold split it also holds the set-up of the other files:
 * page_alloc.c's sizes (zone_batchsize, the watermarks, lowmem reserves,
 * min_free_kbytes), setup_mempolicy (mempolicy.c) and setup_nodemask
 * (cpuset.c).
 */
#include "models/mm_internal.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* --- detail pool -------------------------------------------------------- */

static struct page *detail_get(struct mm_world *w)
{
	struct page_detail_pool *p = &w->pool;
	if (p->nr)
		return p->free[--p->nr];
	if (p->nr_all == p->cap_all) {
		size_t cap = p->cap_all ? 2 * p->cap_all : 64;
		struct page **a = realloc(p->all, cap * sizeof *a);
		struct page **f = realloc(p->free, cap * sizeof *f);
		if (a)
			p->all = a;
		if (f)
			p->free = f;
		if (!a || !f)
			return NULL;
		p->cap_all = p->cap = cap;
	}
	struct page *d = malloc(BLOCK_PAGES * sizeof *d);
	if (!d)
		return NULL;
	p->all[p->nr_all++] = d;
	p->total++;
	return d;
}

static void detail_put(struct mm_world *w, struct page *d)
{
	w->pool.free[w->pool.nr++] = d;   /* cap == cap_all >= every detail */
}

/* Give block b per-page metadata; its head page (not on any list) moves to
 * detail[0].  Returns detail[0]. */
struct page *block_split(struct mm_world *w, struct pfn_block *b)
{
	struct page *d = detail_get(w);
	if (!d) {
		/* Host out of memory in the middle of the simulated kernel's
		 * critical section: nothing sensible can continue. */
		fprintf(stderr, "numasim: out of memory for page metadata\n");
		abort();
	}
	uint32_t bi = (uint32_t)(b - w->blocks);
	for (unsigned i = 0; i < BLOCK_PAGES; i++) {
		struct page *p = &d[i];
		memset(p, 0, sizeof *p);
		p->addr = b->addr + (uint64_t)i * STRUCT_PAGE_SIZE;
		p->block = bi;
		p->off = (uint16_t)i;
		p->pcp_cpu = -1;
	}
	d[0].order = b->head.order;
	d[0].state = b->head.state;
	d[0].mt = b->head.mt;
	d[0].count = b->head.count;
	b->head.state = PS_NONE;
	b->detail = d;
	w->zones[b->zone].ev[EV_block_split]++;
	return d;
}

/* The block merged back to one order-10 block: drop its detail. */
struct page *block_unsplit(struct mm_world *w, struct pfn_block *b)
{
	struct page *d = b->detail;
	b->head.order = d[0].order;
	b->head.state = d[0].state;
	b->head.mt = d[0].mt;
	b->head.count = d[0].count;
	b->head.next = b->head.prev = NULL;
	b->detail = NULL;
	detail_put(w, d);
	w->zones[b->zone].ev[EV_block_merge]++;
	return &b->head;
}

/* --- set-up: world ------------------------------------------------------ */

static int alloc_addr(struct mm_world *w, int node, uint64_t bytes, uint64_t align,
		      uint64_t *addr, struct diag *d)
{
	int rc = cache_as_alloc(w->as, node, bytes, align, addr);
	if (rc != NS_OK)
		diag_set(d, rc, NULL, 0, 0, "pagealloc: synthetic address space of node %d is full",
			 node);
	return rc;
}

int mm_alloc_addr(struct mm_world *w, int node, uint64_t bytes, uint64_t align,
		  uint64_t *out, struct diag *d)
{
	return alloc_addr(w, node, bytes, align, out, d);
}

/* Give block b per-page metadata (all pages in no state yet); NULL when
 * the detail pool is exhausted. */
static struct page *block_detail_init(struct mm_world *w, struct pfn_block *b)
{
	struct page *d = detail_get(w);
	if (!d)
		return NULL;
	uint32_t bi = (uint32_t)(b - w->blocks);
	for (unsigned i = 0; i < BLOCK_PAGES; i++) {
		memset(&d[i], 0, sizeof d[i]);
		d[i].addr = b->addr + (uint64_t)i * STRUCT_PAGE_SIZE;
		d[i].block = bi;
		d[i].off = (uint16_t)i;
		d[i].pcp_cpu = -1;
	}
	b->detail = d;
	b->head.state = PS_NONE;
	return d;
}

/* Pages [off, npages) of a detailed block onto the MOVABLE free lists in
 * aligned pieces, largest first. */
static void block_free_from(struct zone *z, struct pfn_block *b, unsigned off)
{
	struct page *d = b->detail;
	while (off < b->npages) {
		int o = PAGEBLOCK_ORDER;
		while (o > 0 && ((off & ((1u << o) - 1)) || off + (1u << o) > b->npages))
			o--;
		set_page_order(&d[off], o);
		d[off].mt = MT_MOVABLE;
		list_add(&d[off], &z->free_area[o].list[MT_MOVABLE]);
		z->free_area[o].nr_free++;
		off += 1u << o;
	}
}

/* Free lists as after boot: whole MAX_ORDER blocks on the MOVABLE lists,
 * highest pfn at the head (free_all_bootmem frees in ascending order and
 * __free_one_page adds at the head); a partial last block in aligned
 * pieces. */
static int init_free_lists(struct mm_world *w, struct zone *z)
{
	for (uint32_t k = 0; k < z->nr_blocks; k++) {
		struct pfn_block *b = &w->blocks[z->first_block + k];
		b->pb_mt[0] = b->pb_mt[1] = MT_MOVABLE;
		if (b->npages == BLOCK_PAGES) {
			b->head.state = PS_BUDDY;
			b->head.order = BLOCK_ORDER;
			b->head.mt = MT_MOVABLE;
			list_add(&b->head, &z->free_area[BLOCK_ORDER].list[MT_MOVABLE]);
			z->free_area[BLOCK_ORDER].nr_free++;
			continue;
		}
		if (!block_detail_init(w, b))
			return NS_ENOMEM;
		block_free_from(z, b, 0);
	}
	return NS_OK;
}

/* Lay block b out as pages [0, used) in use (aligned pieces, largest
 * first) and [used, npages) free in aligned pieces on the MOVABLE lists,
 * taking the block's free pieces off the lists first.  A whole block in use
 * stays without detail: one order-10 page. */
static int boot_used_block(struct mm_world *w, struct zone *z, struct pfn_block *b,
			   unsigned used)
{
	if (!b->detail) {                       /* a whole free order-10 block */
		list_del(&b->head);
		z->free_area[BLOCK_ORDER].nr_free--;
		rmv_page_order(&b->head);
		if (used == BLOCK_PAGES) {
			b->head.state = PS_ALLOC;
			b->head.alloc_order = BLOCK_ORDER;
			b->head.count = 1;
			return NS_OK;
		}
		if (!block_detail_init(w, b))
			return NS_ENOMEM;
	} else {                                /* a zone's partial last block */
		for (unsigned off = 0; off < b->npages; off++)
			if (b->detail[off].state == PS_BUDDY) {
				list_del(&b->detail[off]);
				z->free_area[b->detail[off].order].nr_free--;
				rmv_page_order(&b->detail[off]);
			}
	}
	struct page *d = b->detail;
	unsigned off = 0;
	for (int o = PAGEBLOCK_ORDER; o >= 0; o--)
		if (used & (1u << o)) {
			d[off].state = PS_ALLOC;
			d[off].alloc_order = o;
			d[off].count = 1;
			d[off].mt = MT_MOVABLE;
			off += 1u << o;
		}
	block_free_from(z, b, off);
	return NS_OK;
}

/*
 * The memory a booted system already uses (machine key `free:`, struct
 * machine_node used_pages): taken out of the node's zones at set-up, from
 * the highest zone down and in each zone from the highest pfn down, whole
 * MAX_ORDER blocks while at least one is left to take, then the rest (under
 * 1024 pages) from the next block as aligned pieces, largest first, whose
 * buddies stay free.  Those pages are allocated (PS_ALLOC, _count 1) and
 * never freed: they count in the zone's boot_used, not in allocated, and
 * leave NR_FREE_PAGES; managed (and so the watermarks and batch sizes) is
 * unchanged, as on a booted kernel, whose managed pages include the pages
 * in use.  Only the touched blocks cost anything: a whole block in use
 * keeps no per-page detail.
 */
static int boot_used(struct mm_world *w, struct pglist_data *pn, uint64_t used)
{
	for (int t = NR_ZONE_TYPES - 1; t >= 0 && used; t--) {
		struct zone *z = pn->zones[t];
		if (!z)
			continue;
		for (uint32_t k = z->nr_blocks; k-- > 0 && used;) {
			struct pfn_block *b = &w->blocks[z->first_block + k];
			unsigned take = used < b->npages ? (unsigned)used : b->npages;
			int rc = boot_used_block(w, z, b, take);
			if (rc != NS_OK)
				return rc;
			z->boot_used += take;
			z->vm_stat[NR_FREE_PAGES] -= (int64_t)take;
			used -= take;
		}
	}
	return NS_OK;
}

static int build_zonerefs(struct mm_world *w, struct diag *d)
{
	for (int n = 0; n < w->nr_nodes; n++) {
		struct pglist_data *pn = &w->nodes[n];
		for (int k = 0; k < MAX_ZONELISTS; k++) {
			const struct zonelist *zl = zonelist_get(w->zl, pn->id, (enum zonelist_kind)k);
			if (!zl)
				continue;
			pn->online = 1;
			pn->nr_zonerefs[k] = zl->nr;
			pn->zonerefs[k] = calloc((size_t)zl->nr + 1, sizeof *pn->zonerefs[k]);
			if (!pn->zonerefs[k])
				return NS_ENOMEM;
			for (int i = 0; i < zl->nr; i++) {
				int pos = w->m->node_index[zl->zonerefs[i].node];
				pn->zonerefs[k][i].zone = w->nodes[pos].zones[zl->zonerefs[i].zone_idx];
				pn->zonerefs[k][i].zone_idx = (int)zl->zonerefs[i].zone_idx;
				if (!pn->zonerefs[k][i].zone)
					return diag_set(d, NS_EINTERNAL, NULL, 0, 0,
							"pagealloc: zonelist names an empty zone");
			}
			int rc = alloc_addr(w, pn->id, (uint64_t)(zl->nr + 1) * ZONEREF_SIZE, 64,
					    &pn->zl_addr[k], d);
			if (rc != NS_OK)
				return rc;
		}
	}
	return NS_OK;
}

/* The static costs of MM_BLOCKS under the world's layout and core (the
 * MM_WORK column of cfg.code, costs of w->s), once: cpu_block_init(). */
static int mm_blocks_init(struct mm_world *w)
{
	uint32_t work[MM_NR_WORK];
	mm_work_layout(w->cfg.code, w->cfg.iter, work);
	static const struct cpu_block_def defs[MM_NR_BLOCK] = {
#define MM_BLOCK_DEF(name, r, k, e) [B_##name] = {W_##r, k, e},
		MM_BLOCKS(MM_BLOCK_DEF)
#undef MM_BLOCK_DEF
	};
	const char *const *names = mm_block_names();
	const char *const *snames = mm_series_block_names();
	const struct mm_config *c = &w->cfg;
	int rc = cpu_blocks_init(w->code, defs, MM_NR_BLOCK, work, w->ch.site_base, &w->s->k);
	/* the units mm_register() named, for a run that books work per unit */
	cpu_blocks_units(w->code, MM_NR_BLOCK, cost_unit_lookup(w->s->tables, names[0]));
	if (rc == NS_OK)
		rc = cpu_blocks_change(w->code, names, MM_NR_BLOCK, c->block_changes,
				       c->nr_block_changes);
	if (rc != NS_OK || w->sch.site_base < 0)
		return rc;
	static const struct cpu_block_def sdefs[MM_NR_SBLOCK] = {
#define MM_SBLOCK_DEF(name, r, k, e) [SB_##name] = {W_##r, k, e},
		MM_SERIES_BLOCKS(MM_SBLOCK_DEF)
#undef MM_SBLOCK_DEF
	};
	rc = cpu_blocks_init(w->scode, sdefs, MM_NR_SBLOCK, work, w->sch.site_base, &w->s->k);
	cpu_blocks_units(w->scode, MM_NR_SBLOCK, cost_unit_lookup(w->s->tables, snames[0]));
	if (rc == NS_OK)
		rc = cpu_blocks_change(w->scode, snames, MM_NR_SBLOCK, c->block_changes,
				       c->nr_block_changes);
	return rc;
}

/* memmap false: everything but the per-block metadata and the free lists
 * (mm_world_validate()). */
static int setup_zones(struct mm_world *w, bool memmap, struct diag *d)
{
	const struct machine *m = w->m;
	int nz = 0;
	uint64_t nblocks = 0;
	for (int n = 0; n < m->nr_nodes; n++)
		for (int k = 0; k < m->nodes[n].nr_zones; k++) {
			nz++;
			nblocks += (m->nodes[n].zones[k].pages + BLOCK_PAGES - 1) / BLOCK_PAGES;
		}
	if (nblocks >= UINT32_MAX)
		return diag_set(d, NS_ERANGE, NULL, 0, 0,
				"pagealloc: %" PRIu64 " MAX_ORDER blocks is more than the model holds",
				nblocks);
	w->nr_zones = nz;
	w->zones = calloc((size_t)nz, sizeof *w->zones);
	w->nr_blocks = memmap ? nblocks : 0;
	w->blocks = memmap ? calloc((size_t)nblocks, sizeof *w->blocks) : NULL;
	if (!w->zones || (memmap && !w->blocks))
		return NS_ENOMEM;
	uint64_t pfn = 0;
	uint32_t bi = 0;
	int zi = 0;
	int nr_cpus = w->s->nr_cpus;
	for (int n = 0; n < m->nr_nodes; n++) {
		const struct machine_node *mn = &m->nodes[n];
		struct pglist_data *pn = &w->nodes[n];
		for (int k = 0; k < mn->nr_zones; k++) {
			struct zone *z = &w->zones[zi];
			z->id = zi++;
			z->node = mn->id;
			z->node_pos = n;
			z->type = mn->zones[k].type;
			z->managed = mn->zones[k].pages;
			z->start_pfn = pfn;
			z->first_block = bi;
			z->nr_blocks = (uint32_t)((z->managed + BLOCK_PAGES - 1) / BLOCK_PAGES);
			pn->zones[z->type] = z;
			cpu_lock_init_class(&z->lock, "&zone->lock");
			cpu_lock_init_class(&z->lru_lock, "&zone->lru_lock");
			int rc = alloc_addr(w, z->node, ZONE_STRUCT_SIZE, 64, &z->addr, d);
			if (rc == NS_OK)
				rc = alloc_addr(w, z->node, (uint64_t)z->nr_blocks * BLOCK_PAGES *
							    STRUCT_PAGE_SIZE, 4096, &z->vmemmap, d);
			if (rc == NS_OK)
				rc = alloc_addr(w, z->node, (uint64_t)z->nr_blocks * 2 * 4 / 8 + 8, 64,
						&z->usemap, d);
			if (rc != NS_OK)
				return rc;
			for (int o = 0; o < MAX_ORDER; o++)
				for (int mt = 0; mt < MT_TYPES; mt++)
					list_init(&z->free_area[o].list[mt], zaddr_free_list(z, o, mt));
			for (uint32_t b = 0; memmap && b < z->nr_blocks; b++) {
				struct pfn_block *blk = &w->blocks[bi + b];
				blk->pfn = pfn + (uint64_t)b * BLOCK_PAGES;
				blk->addr = z->vmemmap + (uint64_t)b * BLOCK_PAGES * STRUCT_PAGE_SIZE;
				blk->zone = (uint32_t)z->id;
				uint64_t left = z->managed - (uint64_t)b * BLOCK_PAGES;
				blk->npages = (uint16_t)(left < BLOCK_PAGES ? left : BLOCK_PAGES);
				blk->head.addr = blk->addr;
				blk->head.block = bi + b;
				blk->head.pcp_cpu = -1;
			}
			bi += z->nr_blocks;
			pfn += (uint64_t)z->nr_blocks * BLOCK_PAGES;
			z->vm_stat[NR_FREE_PAGES] = (int64_t)z->managed;
			vmscan_init_zone(z);
			rc = memmap ? init_free_lists(w, z) : NS_OK;
			if (rc != NS_OK)
				return rc;
			z->pcp = calloc((size_t)nr_cpus, sizeof *z->pcp);
			if (!z->pcp)
				return NS_ENOMEM;
		}
		int rc = memmap ? boot_used(w, pn, mn->used_pages) : NS_OK;
		if (rc != NS_OK)
			return rc;
	}
	return NS_OK;
}

static int setup_pagesets(struct mm_world *w, struct diag *d)
{
	for (int i = 0; i < w->nr_zones; i++) {
		struct zone *z = &w->zones[i];
		int high, batch;
		setup_pcp_sizes(w, z, &high, &batch);
		int t = stat_threshold(w, z);
		for (int k = 0; k < w->s->nr_cpus; k++) {
			struct per_cpu_pages *p = &z->pcp[k];
			int rc = alloc_addr(w, w->s->cpu[k].node, PCP_STRUCT_SIZE, 64, &p->addr, d);
			if (rc != NS_OK)
				return rc;
			p->high = high;
			p->batch = batch;
			p->stat_threshold = t;
			for (int mt = 0; mt < MT_PCPTYPES; mt++)
				list_init(&p->lists[mt], p->addr + PCPOFF_LISTS + sizeof(struct klist_head) * (unsigned)mt);
		}
	}
	return NS_OK;
}

static int setup_cpus(struct mm_world *w, struct diag *d)
{
	w->cpus = calloc((size_t)w->s->nr_cpus, sizeof *w->cpus);
	w->ch.memo = calloc((size_t)w->s->nr_cpus, sizeof *w->ch.memo);
	w->sch.memo = w->ch.memo;
	if (!w->cpus || !w->ch.memo)
		return NS_ENOMEM;
	/* forgotten when a call behind a static key returns (cost/cpu.h) */
	int rc = cpu_sys_add_memo(w->s, w->ch.memo);
	if (rc)
		return rc;
	for (int k = 0; k < w->s->nr_cpus; k++) {
		const struct cpu *c = &w->s->cpu[k];
		struct mm_cpu *ci = &w->cpus[k];
		int nid = c->id <= w->m->max_cpu ? w->zl->cpu_to_node[c->id] : -1;
		if (nid < 0)
			nid = c->node;
		ci->numa_node = nid;
		w->ch.memo[k].last_line = UINT64_MAX;
		ci->node_pos = w->m->node_index[nid];
		if (!w->nodes[ci->node_pos].online)
			return diag_set(d, NS_EINPUT, NULL, 0, 0,
					"pagealloc: CPU %d maps to node %d, which has no zonelist",
					c->id, nid);
		int rc = alloc_addr(w, c->node, 256, 64, &ci->percpu, d);
		if (rc == NS_OK)
			rc = alloc_addr(w, c->node, 256, 64, &ci->task, d);
		if (rc == NS_OK)
			rc = alloc_addr(w, c->node, 64, 64, &ci->mpol, d);
		if (rc != NS_OK)
			return rc;
	}
	return NS_OK;
}

static int create(const struct machine *m, const struct mm_config *cfg, struct cpu_sys *s,
		  int fn_base, int site_base, bool memmap, struct mm_world **out,
		  struct diag *d)
{
	*out = NULL;
	if (fn_base < 0 || site_base < 0 || fn_base + MM_NR_FN > s->tables->nr_fns ||
	    site_base + MM_NR_SITE > s->tables->nr_sites)
		return diag_set(d, NS_EINTERNAL, NULL, 0, 0,
				"pagealloc: functions/sites not registered in the CPU tables");
	if (cfg->zone_reclaim_mode != 0 && !cfg->reclaim.enabled)
		return diag_set(d, NS_EINPUT, NULL, 0, 0,
				"pagealloc: zone_reclaim_mode %u needs the reclaim model "
				"(reclaim.enabled)", cfg->zone_reclaim_mode);
	if (cfg->zone_reclaim_mode > (RECLAIM_ZONE | RECLAIM_WRITE | RECLAIM_UNMAP))
		return diag_set(d, NS_EINPUT, NULL, 0, 0,
				"pagealloc: zone_reclaim_mode %u has bits other than 1, 2 and 4",
				cfg->zone_reclaim_mode);
	if (cfg->commit != KCOMMIT_UNSET &&
	    (!kcommit_tree(cfg->commit) || strcmp(kcommit_tree(cfg->commit), "mm")))
		return diag_set(d, NS_EINPUT, NULL, 0, 0,
				"pagealloc: commit %d is not a page allocator commit", (int)cfg->commit);
	if (cfg->commit != KCOMMIT_UNSET && !kcommit_selectable(cfg->commit))
		return diag_set(d, NS_EINPUT, NULL, 0, 0,
				"pagealloc: commit %s is not modelled yet", kcommit_id(cfg->commit));
	enum kcommit kc = mm_config_commit(cfg);
	bool series = cfg->series_fn_base >= 0 && cfg->series_site_base >= 0;
	if (!series && kc != KC_v3_04 && kc != KC_v3_05)
		return diag_set(d, NS_EINTERNAL, NULL, 0, 0,
				"pagealloc: commit %s needs the series' cost tables "
				"(mm_series_register)", kcommit_id(kc));
	if (series && (cfg->series_fn_base + MM_NR_SFN > s->tables->nr_fns ||
		       cfg->series_site_base + MM_NR_SSITE > s->tables->nr_sites))
		return diag_set(d, NS_EINTERNAL, NULL, 0, 0,
				"pagealloc: the series' ids are outside the cost tables");
	if (m->page_size < 4096)
		return diag_set(d, NS_ERANGE, NULL, 0, 0,
				"pagealloc: page size %u is below the model's 4 KiB minimum",
				m->page_size);
	/* the work layout: by the timing model unless the scenario chose one
	 * (docs/design/compiled-counts.md).  The work rows of the compiled layout
	 * exclude the calls and returns of the helpers its cost layout keeps
	 * out of line (the estimate's rows hold none): the two must agree */
	enum mm_code code = mm_code_resolve(cfg->code, s->model);
	if ((code == MM_CODE_COMPILED) != mm_layout_is_compiled(s->layout, fn_base))
		return diag_set(d, NS_EINTERNAL, NULL, 0, 0,
				"pagealloc: the cost layout was not filled for the %s code layout",
				mm_code_name(code));
	struct mm_world *w = calloc(1, sizeof *w);
	if (!w)
		return NS_ENOMEM;
	w->m = m;
	w->cfg = *cfg;
	w->cfg.code = code;
	/* the commit decides; the iterator variant follows from it */
	w->cfg.commit = mm_config_commit(cfg);
	w->cfg.iter = mm_commit_iter(w->cfg.commit);
	/* before v3 03 zone_statistics is v4.6's (its counting rule too) */
	if (w->cfg.commit < KC_v3_03)
		w->cfg.zone_stats = VMSTAT_NUMA_V46;
	w->s = s;
	w->ch.fn_base = fn_base;
	w->ch.site_base = site_base;
	w->sch.fn_base = cfg->series_fn_base;
	w->sch.site_base = cfg->series_site_base;
	int rc = mm_blocks_init(w);
	if (rc != NS_OK) {
		free(w);
		return diag_set(d, rc, NULL, 0, 0, "pagealloc: a code block's description is invalid");
	}
	cache_as_init(&w->own_as);
	w->as = cfg->as ? cfg->as : &w->own_as;
	cpu_lock_init_class(&w->callback_lock, "callback_lock");
	rc = zonelist_build(m, &cfg->zl, &w->zl, d);
	if (rc != NS_OK)
		goto fail;
	w->nr_online_nodes = w->zl->nr_online_nodes;
	w->nr_nodes = m->nr_nodes;
	w->nodes = calloc((size_t)m->nr_nodes, sizeof *w->nodes);
	if (!w->nodes) {
		rc = NS_ENOMEM;
		goto fail;
	}
	for (int n = 0; n < m->nr_nodes; n++) {
		w->nodes[n].id = m->nodes[n].id;
		rc = alloc_addr(w, m->nodes[0].id, 64, 64, &w->nodes[n].policy_addr, d);
		if (rc != NS_OK)
			goto fail;
	}
	rc = alloc_addr(w, m->nodes[0].id, 512, 64, &w->vm_stat_addr, d);
	if (rc == NS_OK)
		rc = alloc_addr(w, m->nodes[0].id, 64, 64, &w->callback_lock_addr, d);
	if (rc == NS_OK)
		rc = setup_zones(w, memmap, d);
	if (rc == NS_OK)
		rc = build_zonerefs(w, d);
	if (rc == NS_OK)
		rc = setup_pagesets(w, d);
	if (rc == NS_OK)
		rc = setup_cpus(w, d);
	if (rc == NS_OK)
		rc = setup_nodemask(w, d);
	if (rc == NS_OK)
		rc = setup_mempolicy(w, d);
	if (rc != NS_OK)
		goto fail;
	/* build_all_zonelists: mobility grouping off on tiny machines */
	w->mobility_disabled = machine_mem_pages(m) < (uint64_t)PAGEBLOCK_PAGES * MT_TYPES;
	compute_min_free(w);
	*out = w;
	return NS_OK;
fail:
	if (rc == NS_ENOMEM)
		diag_set(d, rc, NULL, 0, 0, "pagealloc: out of memory");
	mm_world_destroy(w);
	return rc;
}

int mm_world_create(const struct machine *m, const struct mm_config *cfg, struct cpu_sys *s,
		    int fn_base, int site_base, struct mm_world **out, struct diag *d)
{
	return create(m, cfg, s, fn_base, site_base, true, out, d);
}

int mm_world_validate(const struct machine *m, const struct mm_config *cfg,
		      struct cpu_sys *s, int fn_base, int site_base,
		      struct mm_world **out, struct diag *d)
{
	return create(m, cfg, s, fn_base, site_base, false, out, d);
}

void mm_world_destroy(struct mm_world *w)
{
	if (!w)
		return;
	for (size_t i = 0; i < w->pool.nr_all; i++)
		free(w->pool.all[i]);
	free(w->pool.all);
	free(w->pool.free);
	if (w->zones)
		for (int i = 0; i < w->nr_zones; i++)
			free(w->zones[i].pcp);
	if (w->nodes)
		for (int n = 0; n < w->nr_nodes; n++)
			for (int k = 0; k < MAX_ZONELISTS; k++)
				free(w->nodes[n].zonerefs[k]);
	free(w->zones);
	free(w->nodes);
	free(w->blocks);
	free(w->cpus);
	if (w->ch.memo)
		cpu_sys_remove_memo(w->s, w->ch.memo);
	free(w->ch.memo);
	zonelist_free(w->zl);
	free(w);
}

enum mm_code mm_code_resolve(enum mm_code c, enum cpu_model m)
{
	if (c != MM_CODE_DEFAULT)
		return c;
	return m == CPU_MODEL_OOO ? MM_CODE_COMPILED : MM_CODE_ESTIMATE;
}

const char *mm_code_name(enum mm_code c)
{
	return c == MM_CODE_ESTIMATE ? "estimate" : c == MM_CODE_COMPILED ? "compiled" : "default";
}

int mm_code_parse(const char *s)
{
	if (s && !strcmp(s, "estimate"))
		return MM_CODE_ESTIMATE;
	if (s && !strcmp(s, "compiled"))
		return MM_CODE_COMPILED;
	return -1;
}

enum kcommit mm_config_commit(const struct mm_config *c)
{
	if (c->commit != KCOMMIT_UNSET)
		return c->commit;
	return c->iter == MMZONE_ITER_PRE ? KC_v3_04 : KC_v3_05;
}

enum mmzone_iter mm_commit_iter(enum kcommit k)
{
	return k >= KC_v3_05 ? MMZONE_ITER_POST : MMZONE_ITER_PRE;
}

void mm_config_default(struct mm_config *c)
{
	memset(c, 0, sizeof *c);
	c->series_fn_base = c->series_site_base = -1;
	c->iter = MMZONE_ITER_POST;
	c->zl = ZONELIST_OPTS_DEFAULT;
	c->watermark_scale_factor = 10;
	mm_reclaim_config_default(&c->reclaim);
}

/* --- set-up: sizes (mm/page_alloc.c, mm/huge_memory.c) ----------------- */

static uint64_t int_sqrt(uint64_t x)
{
	uint64_t r = 0, b = 1ull << 62;
	while (b > x)
		b >>= 2;
	while (b) {
		if (x >= r + b) {
			x -= r + b;
			r = (r >> 1) + b;
		} else {
			r >>= 1;
		}
		b >>= 2;
	}
	return r;
}

static uint64_t rounddown_pow_of_two(uint64_t x)
{
	return x ? 1ull << (fls64(x) - 1) : 0;
}

/* zone_batchsize() */
static int zone_batchsize(uint64_t managed, uint32_t page_size)
{
	uint64_t batch = managed / 1024;
	if (batch * page_size > 512 * 1024)
		batch = (512 * 1024) / page_size;
	batch /= 4;
	if (batch < 1)
		batch = 1;
	batch = rounddown_pow_of_two(batch + batch / 2) - 1;
	return (int)batch;
}

void setup_pcp_sizes(struct mm_world *w, struct zone *z, int *high, int *batch)
{
	if (w->cfg.percpu_pagelist_fraction) {
		uint64_t h = z->managed / w->cfg.percpu_pagelist_fraction;
		uint64_t b = h / 4 > 1 ? h / 4 : 1;
		if (b > (uint64_t)12 * 8)      /* PAGE_SHIFT * 8 */
			b = 12 * 8;
		*high = (int)h;
		*batch = (int)b;
		return;
	}
	int b = zone_batchsize(z->managed, w->m->page_size);
	*high = 6 * b;
	*batch = b > 1 ? b : 1;
}

/* nr_free_buffer_pages(): zones <= Normal of the boot node's fallback list. */
static uint64_t nr_free_buffer_pages(const struct mm_world *w)
{
	uint64_t sum = 0;
	for (int i = 0; i < w->nr_zones; i++) {
		const struct zone *z = &w->zones[i];
		if (z->type <= ZONE_NORMAL) {
			int64_t v = (int64_t)z->managed - z->watermark[2];
			sum += v > 0 ? (uint64_t)v : 0;
		}
	}
	return sum;
}

static void setup_per_zone_wmarks(struct mm_world *w)
{
	uint64_t pages_min = w->min_free_kbytes >> (fls64(w->m->page_size) - 1 - 10);
	uint64_t lowmem = 0;
	for (int i = 0; i < w->nr_zones; i++)
		if (w->zones[i].type != ZONE_HIGHMEM)
			lowmem += w->zones[i].managed;
	for (int i = 0; i < w->nr_zones; i++) {
		struct zone *z = &w->zones[i];
		uint64_t tmp = lowmem ? pages_min * z->managed / lowmem : 0;
		if (z->type == ZONE_HIGHMEM) {
			uint64_t mp = z->managed / 1024;
			mp = mp < 32 ? 32 : mp > 128 ? 128 : mp;
			z->watermark[0] = (int64_t)mp;
		} else {
			z->watermark[0] = (int64_t)tmp;
		}
		uint64_t gap = tmp >> 2;
		uint64_t sf = z->managed * w->cfg.watermark_scale_factor / 10000;
		if (sf > gap)
			gap = sf;
		z->watermark[1] = z->watermark[0] + (int64_t)gap;
		z->watermark[2] = z->watermark[0] + 2 * (int64_t)gap;
		z->vm_stat[NR_ALLOC_BATCH] = z->watermark[2] - z->watermark[1];
		z->fair_depleted = 0;
	}
}

static void setup_lowmem_reserve(struct mm_world *w)
{
	static const uint64_t ratio[NR_ZONE_TYPES] = {256, 256, 32, 32, 32};
	for (int n = 0; n < w->nr_nodes; n++) {
		struct pglist_data *pn = &w->nodes[n];
		for (int j = 0; j < NR_ZONE_TYPES; j++) {
			uint64_t managed = pn->zones[j] ? pn->zones[j]->managed : 0;
			if (pn->zones[j])
				pn->zones[j]->lowmem_reserve[j] = 0;
			for (int idx = j - 1; idx >= 0; idx--) {
				struct zone *lz = pn->zones[idx];
				if (lz)
					lz->lowmem_reserve[j] = (int64_t)(managed / ratio[idx]);
				managed += lz ? lz->managed : 0;
			}
		}
	}
}

void compute_min_free(struct mm_world *w)
{
	int kb_shift = fls64(w->m->page_size) - 1 - 10;
	if (w->cfg.min_free_kbytes) {
		w->min_free_kbytes = w->cfg.min_free_kbytes;
	} else {
		uint64_t lowmem_kb = nr_free_buffer_pages(w) << kb_shift;
		uint64_t v = int_sqrt(lowmem_kb * 16);
		w->min_free_kbytes = (uint32_t)(v < 128 ? 128 : v > 65536 ? 65536 : v);
	}
	setup_per_zone_wmarks(w);
	if (w->cfg.thp_min_free) {
		/* set_recommended_min_free_kbytes() */
		uint64_t nr_zones = (uint64_t)w->nr_zones;
		uint64_t rec = PAGEBLOCK_PAGES * nr_zones * 2 +
			       PAGEBLOCK_PAGES * nr_zones * MT_PCPTYPES * MT_PCPTYPES;
		uint64_t cap = nr_free_buffer_pages(w) / 20;
		if (rec > cap)
			rec = cap;
		rec <<= kb_shift;
		if (rec > w->min_free_kbytes) {
			w->min_free_kbytes = (uint32_t)rec;
			setup_per_zone_wmarks(w);
		}
	}
	setup_lowmem_reserve(w);
}

uint32_t mm_min_free_kbytes(const struct mm_world *w)
{
	return w->min_free_kbytes;
}

/* --- set-up: the task's mempolicy (mm/mempolicy.c) and cpuset (kernel/cpuset.c) --- */

static bool node_has_memory(const struct mm_world *w, int id)
{
	return id >= 0 && id < MACHINE_MAX_NODES && w->m->node_index[id] >= 0 &&
	       w->m->nodes[w->m->node_index[id]].mem_pages != 0;
}

/*
 * set_mempolicy(2) as numactl issues it (mm/mempolicy.c v4.6 mpol_new,
 * mpol_set_nodemask): the nodes must have memory; BIND and INTERLEAVE
 * take a non-empty set, PREFERRED exactly one node, DEFAULT and LOCAL
 * none.  The set is intersected with cpuset_current_mems_allowed, and an
 * empty intersection fails (EINVAL in the kernel, NS_EINPUT here).
 * current->il_next starts at the first node of the set.
 */
int setup_mempolicy(struct mm_world *w, struct diag *d)
{
	const struct mm_config *c = &w->cfg;
	memset(w->mpol_mask, 0, sizeof w->mpol_mask);
	w->mpol_first = -1;
	w->mpol_apply_zone = w->zl->policy_zone;
	if ((unsigned)c->mpol > MPOL_INTERLEAVE)
		return diag_set(d, NS_EINPUT, NULL, 0, 0, "pagealloc: unknown mempolicy %d",
				(int)c->mpol);
	if (c->nr_mpol_nodes < 0 || c->nr_mpol_nodes > MACHINE_MAX_NODES)
		return diag_set(d, NS_ERANGE, NULL, 0, 0, "pagealloc: bad mempolicy node count %d",
				c->nr_mpol_nodes);
	bool takes = c->mpol == MPOL_BIND || c->mpol == MPOL_PREFERRED ||
		     c->mpol == MPOL_INTERLEAVE;
	if (!takes && c->nr_mpol_nodes)
		return diag_set(d, NS_EINPUT, NULL, 0, 0, "pagealloc: mempolicy %s takes no nodes",
				mpol_name(c->mpol));
	if (takes && !c->nr_mpol_nodes)
		return diag_set(d, NS_EINPUT, NULL, 0, 0, "pagealloc: mempolicy %s needs nodes",
				mpol_name(c->mpol));
	if (c->mpol == MPOL_PREFERRED && c->nr_mpol_nodes != 1)
		return diag_set(d, NS_EINPUT, NULL, 0, 0,
				"pagealloc: mempolicy preferred takes exactly one node, not %d",
				c->nr_mpol_nodes);
	if (!takes)
		return NS_OK;
	for (int i = 0; i < c->nr_mpol_nodes; i++) {
		int id = c->mpol_nodes[i];
		if (!node_has_memory(w, id))
			return diag_set(d, NS_EINPUT, NULL, 0, 0,
					"pagealloc: mempolicy node %d has no memory", id);
		w->mpol_mask[id >> 6] |= 1ull << (id & 63);
	}
	bool any = false, high = false;
	for (int k = 0; k < MACHINE_MAX_NODES / 64; k++) {
		w->mpol_mask[k] &= w->nodemask[k];
		any |= w->mpol_mask[k] != 0;
	}
	if (!any)
		return diag_set(d, NS_EINPUT, NULL, 0, 0,
				"pagealloc: the %s nodes lie outside the cpuset's mems "
				"(set_mempolicy fails with EINVAL)", mpol_name(c->mpol));
	for (int id = 0; id < MACHINE_MAX_NODES; id++) {
		if (!node_isset(w->mpol_mask, id))
			continue;
		if (w->mpol_first < 0)
			w->mpol_first = id;
		const struct machine_node *mn = &w->m->nodes[w->m->node_index[id]];
		for (int k = 0; k < mn->nr_zones; k++)
			high |= mn->zones[k].type < ZONE_MOVABLE && mn->zones[k].pages;
	}
	/* apply_policy_zone(): Movable when no policy node has N_HIGH_MEMORY */
	if (!high)
		w->mpol_apply_zone = ZONE_MOVABLE;
	for (int k = 0; k < w->s->nr_cpus; k++)
		w->cpus[k].il_next = w->mpol_first;
	return NS_OK;
}

int setup_nodemask(struct mm_world *w, struct diag *d)
{
	memset(w->nodemask, 0, sizeof w->nodemask);
	/* without a cpuset every task may use every memory node */
	if (w->cfg.nr_mems_allowed == 0 || !cpusets_enabled(w)) {
		for (int n = 0; n < w->nr_nodes; n++)
			if (w->m->nodes[n].mem_pages)
				w->nodemask[w->nodes[n].id >> 6] |= 1ull << (w->nodes[n].id & 63);
		return NS_OK;
	}
	if (w->cfg.nr_mems_allowed < 0 || w->cfg.nr_mems_allowed > MACHINE_MAX_NODES)
		return diag_set(d, NS_ERANGE, NULL, 0, 0, "pagealloc: bad mems_allowed count %d",
				w->cfg.nr_mems_allowed);
	for (int i = 0; i < w->cfg.nr_mems_allowed; i++) {
		int id = w->cfg.mems_allowed[i];
		if (id < 0 || id >= MACHINE_MAX_NODES || w->m->node_index[id] < 0 ||
		    !w->m->nodes[w->m->node_index[id]].mem_pages)
			return diag_set(d, NS_EINPUT, NULL, 0, 0,
					"pagealloc: mems_allowed node %d has no memory", id);
		w->nodemask[id >> 6] |= 1ull << (id & 63);
	}
	return NS_OK;
}
