/*
 * mm_info — the cold half of the page allocator model: what runs outside
 * the modelled kernel paths.  The kernel functions themselves (the hot
 * half) are in page_alloc.c, mmzone.c, mempolicy.c, vmstat.c and
 * cpuset.c, the files the fast copies compile (models/mm_copy.c); the
 * world's set-up is in mm_init.c.  Here, of mm/page_alloc.c: the
 * registration of the cost tables and the code layouts; introspection
 * (page frame numbers, nodes and addresses, lock statistics, the trace
 * hook, drain_local_pages' entry, the zonelist walk of mm/mmzone.c, the
 * counters and zone information of mm/vmstat.c); the names and parsers
 * of the configuration (gfp flags, mempolicy modes, the iterator variant,
 * the NUMA counting rule); and the invariant check mm_check() (see
 * page_alloc.h).  Error policy: the parsers return NS_EINPUT, mm_check
 * NS_EINTERNAL with a diag message for a broken invariant (a model bug).
 */
#include "models/mm_internal.h"
#include "models/kcode.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* --- registration and layout -------------------------------------------- */

#define MM_SITE_DEF(id, desc, hint, ft) {#id, desc},
static const char *const mm_fn_names[] = {MM_FUNCS(COST_FN_NAME)};
static const struct cost_site_def mm_site_defs[] = {MM_SITES(MM_SITE_DEF)};

static const struct {
	uint8_t hint;
	int8_t ft;
} mm_site_layout[] = {
#define MM_SITE_LAYOUT(id, desc, hint, ft) {COST_HINT_##hint, COST_FT_##ft},
	MM_SITES(MM_SITE_LAYOUT)
#undef MM_SITE_LAYOUT
};

static const struct {
	const char *name, *kinds;
	int row, exit;
} mm_block_defs[] = {
#define MM_BLOCK_DESC(name, r, k, e) {#name, k, W_##r, e},
	MM_BLOCKS(MM_BLOCK_DESC)
#undef MM_BLOCK_DESC
};

int mm_block_describe(int i, enum mm_code code, enum mmzone_iter iter,
		      struct mm_block_desc *out)
{
	if (i < 0 || i >= MM_NR_BLOCK)
		return MM_NR_BLOCK;
	uint32_t work[MM_NR_WORK];
	mm_work_layout(code, iter, work);
	out->name = mm_block_defs[i].name;
	out->kinds = mm_block_defs[i].kinds;
	out->exit_site = mm_block_defs[i].exit >= 0 ? mm_site_defs[mm_block_defs[i].exit].name
						      : NULL;
	out->uops = work[mm_block_defs[i].row];
	return 0;
}

/* The blocks' names as units of work (cost_register_units()), in
 * enum mm_block order: mm_blocks_init() numbers the blocks from the
 * first one's id. */
static const char *const mm_unit_names[MM_NR_BLOCK] = {
#define MM_UNIT_NAME(name, r, k, e) [B_##name] = #name,
	MM_BLOCKS(MM_UNIT_NAME)
#undef MM_UNIT_NAME
};
static const char *const mm_sunit_names[MM_NR_SBLOCK] = {
#define MM_SUNIT_NAME(name, r, k, e) [SB_##name] = #name,
	MM_SERIES_BLOCKS(MM_SUNIT_NAME)
#undef MM_SUNIT_NAME
};

const char *const *mm_block_names(void) { return mm_unit_names; }
const char *const *mm_series_block_names(void) { return mm_sunit_names; }

int mm_register(struct cost_tables *t, int *fn_base, int *site_base)
{
	int unit_base;
	int rc = cost_register_fns(t, mm_fn_names, MM_NR_FN, fn_base);
	if (rc == NS_OK)
		rc = cost_register_units(t, mm_unit_names, MM_NR_BLOCK, &unit_base);
	if (rc != NS_OK)
		return rc;
	return cost_register_sites(t, mm_site_defs, MM_NR_SITE, site_base);
}

/* The series' tables (mm_tables.h MM_SERIES_*), after every other model's. */
static const char *const mm_sfn_names[] = {MM_SERIES_FUNCS(COST_FN_NAME)};
static const struct cost_site_def mm_ssite_defs[] = {MM_SERIES_SITES(MM_SITE_DEF)};
static const struct {
	uint8_t hint;
	int8_t ft;
} mm_ssite_layout[] = {
#define MM_SITE_LAYOUT(id, desc, hint, ft) {COST_HINT_##hint, COST_FT_##ft},
	MM_SERIES_SITES(MM_SITE_LAYOUT)
#undef MM_SITE_LAYOUT
};

int mm_series_register(struct cost_tables *t, int *fn_base, int *site_base)
{
	int unit_base;
	int rc = cost_register_fns(t, mm_sfn_names, MM_NR_SFN, fn_base);
	if (rc == NS_OK)
		rc = cost_register_units(t, mm_sunit_names, MM_NR_SBLOCK, &unit_base);
	if (rc != NS_OK)
		return rc;
	return cost_register_sites(t, mm_ssite_defs, MM_NR_SSITE, site_base);
}

int mm_series_layout(struct cost_layout *l, const struct cost_tables *t, int fn_base,
		     int site_base)
{
	if (fn_base < 0 || site_base < 0 || fn_base + MM_NR_SFN > t->nr_fns ||
	    site_base + MM_NR_SSITE > t->nr_sites)
		return NS_EINTERNAL;
	/* __dec_zone_state: out of line (mm/vmstat.c), as __inc_zone_state */
	int rc = cost_layout_set_model_fns(l, fn_base, MM_NR_SFN, NULL, 0);
	for (int i = 0; rc == NS_OK && i < MM_NR_SSITE; i++)
		rc = cost_layout_set_site(l, site_base + i, (enum cost_hint)mm_ssite_layout[i].hint,
					  mm_ssite_layout[i].ft);
	return rc;
}

/* --- the names of the code (models/kcode.h) ------------------------------ */

static const struct kcode_site mm_kcode_sites[] = {
#define MM_KSITE(id, desc, hint, ft) {#id, desc, COST_HINT_##hint, COST_FT_##ft},
	MM_SITES(MM_KSITE)
};
static const struct kcode_site mm_kcode_ssites[] = {MM_SERIES_SITES(MM_KSITE)};
#undef MM_KSITE
#define MM_KBLOCK(name, row, kinds, exit) {#name, #row, kinds, #exit},
static const struct kcode_block mm_kcode_blocks[] = {MM_BLOCKS(MM_KBLOCK)};
static const struct kcode_block mm_kcode_sblocks[] = {MM_SERIES_BLOCKS(MM_KBLOCK)};
#undef MM_KBLOCK
static const uint8_t mm_kcode_inline[MM_NR_FN] = {
#define MM_KINL(name) [FN_##name] = 1,
	MM_INLINE_FUNCS(MM_KINL)
#undef MM_KINL
};
static const uint8_t mm_kcode_sinline[MM_NR_SFN] = {0};

static const struct kcode_callee mm_kcode_key_callees[] = {
#define MM_KCALLEE(name, keeps) {#name, keeps},
	MM_KEY_CALLEES(MM_KCALLEE)
#undef MM_KCALLEE
};
static const struct kcode_call mm_kcode_key_calls[] = {
#define MM_KCALL(caller, callee) {#caller, #callee},
	MM_KEY_CALLS(MM_KCALL)
#undef MM_KCALL
};

void mm_kcode(struct kcode_model *out)
{
	*out = (struct kcode_model){
		.name = "mm", .kernel = "v4.6 mm/page_alloc.c, mm/mmzone.c, mm/mempolicy.c, "
					"mm/vmstat.c, kernel/cpuset.c",
		.nr_fns = MM_NR_FN, .fns = mm_fn_names, .fn_inline = mm_kcode_inline,
		.nr_sites = MM_NR_SITE, .sites = mm_kcode_sites,
		.nr_blocks = MM_NR_BLOCK, .blocks = mm_kcode_blocks,
		.nr_key_callees = (int)(sizeof mm_kcode_key_callees / sizeof mm_kcode_key_callees[0]),
		.key_callees = mm_kcode_key_callees,
		.nr_key_calls = (int)(sizeof mm_kcode_key_calls / sizeof mm_kcode_key_calls[0]),
		.key_calls = mm_kcode_key_calls,
	};
}

void mm_series_kcode(struct kcode_model *out)
{
	*out = (struct kcode_model){
		.name = "mm-series", .kernel = "the 2016 series (v4.7) mm/page_alloc.c, mm/vmstat.c: "
					       "runs of kernel.commit other than v3 04 and 05",
		.nr_fns = MM_NR_SFN, .fns = mm_sfn_names, .fn_inline = mm_kcode_sinline,
		.nr_sites = MM_NR_SSITE, .sites = mm_kcode_ssites,
		.nr_blocks = MM_NR_SBLOCK, .blocks = mm_kcode_sblocks,
	};
}

/*
 * The compiled layout's inlining (docs/design/compiled-counts.md §1): `nm -S` of
 * the gcc 11.3 objects of v4.6.2 (PRE and POST alike) has these static
 * helpers as functions of their own although the estimate layout inlines
 * them (they are `static`, not `inline`: gcc's size heuristics kept them),
 * and has no __alloc_pages_slowpath (inlined into __alloc_pages_nodemask).
 * Their calls, returns, redirects and RSB entries are real; the compiled
 * work rows exclude those calls and returns (scripts/compiled-counts.py).
 */
static const int mm_compiled_ool[] = {
	FN_get_task_policy, FN_policy_zonelist, FN_policy_nodemask, FN_interleave_nodes,
	FN_zone_local, FN___zone_watermark_ok, FN_find_suitable_fallback, FN_prep_new_page,
	FN_reset_alloc_batches, FN_free_pages_prepare, FN_free_one_page,
};
static const int mm_compiled_inl[] = {FN___alloc_pages_slowpath};

static int mm_layout_compiled(struct cost_layout *l, int fn_base)
{
	int rc = NS_OK;
	for (size_t i = 0; rc == NS_OK && i < sizeof mm_compiled_ool / sizeof mm_compiled_ool[0];
	     i++)
		rc = cost_layout_set_fn(l, fn_base + mm_compiled_ool[i], false);
	for (size_t i = 0; rc == NS_OK && i < sizeof mm_compiled_inl / sizeof mm_compiled_inl[0];
	     i++)
		rc = cost_layout_set_fn(l, fn_base + mm_compiled_inl[i], true);
	return rc;
}

bool mm_layout_is_compiled(const struct cost_layout *l, int fn_base)
{
	/* zone_local is out of line in the compiled layout only */
	return fn_base >= 0 && fn_base + FN_zone_local < l->nr_fns &&
	       !l->fn_inline[fn_base + FN_zone_local];
}

int mm_layout(struct cost_layout *l, const struct cost_tables *t, int fn_base, int site_base,
	      enum mmzone_iter v, enum mm_code code)
{
	struct mm_config c;
	mm_config_default(&c);
	c.iter = v;
	return mm_layout_config(l, t, fn_base, site_base, &c, code);
}

int mm_layout_config(struct cost_layout *l, const struct cost_tables *t, int fn_base,
		     int site_base, const struct mm_config *cfg, enum mm_code code)
{
	enum kcommit k = mm_config_commit(cfg);
	enum mmzone_iter v = mm_commit_iter(k);
	if (fn_base < 0 || site_base < 0 || fn_base + MM_NR_FN > t->nr_fns ||
	    site_base + MM_NR_SITE > t->nr_sites || l->nr_fns != t->nr_fns ||
	    l->nr_sites != t->nr_sites ||
	    (code != MM_CODE_ESTIMATE && code != MM_CODE_COMPILED))
		return NS_EINTERNAL;
	static const int inl[] = {
#define MM_INL(name) FN_##name,
		MM_INLINE_FUNCS(MM_INL)
#undef MM_INL
	};
	int rc0 = cost_layout_set_model_fns(l, fn_base, MM_NR_FN, inl,
						 sizeof inl / sizeof inl[0]);
	if (rc0 != NS_OK)
		return rc0;
	if (code == MM_CODE_COMPILED && (rc0 = mm_layout_compiled(l, fn_base)) != NS_OK)
		return rc0;
	/* the diff: next_zones_zonelist becomes an __always_inline wrapper */
	int rc = cost_layout_set_fn(l, fn_base + FN_next_zones_zonelist, v == MMZONE_ITER_POST);
	/* v3 04: zone_statistics moves from vmstat.c into page_alloc.c as a
	 * static inline (before it, an out-of-line call in both layouts) */
	if (rc == NS_OK && k < KC_v3_04)
		rc = cost_layout_set_fn(l, fn_base + FN_zone_statistics, false);
	/* v3 25: get_pfnblock_migratetype inline in page_alloc.c (the
	 * always-inline __get_pfnblock_flags_mask) */
	if (rc == NS_OK && k >= KC_v3_25)
		rc = cost_layout_set_fn(l, fn_base + FN_get_pfnblock_flags_mask, true);
	if (rc != NS_OK)
		return rc;
	for (int s = 0; s < MM_NR_SITE; s++) {
		int ft = mm_site_layout[s].ft;
		rc = cost_layout_set_site(l, site_base + s, (enum cost_hint)mm_site_layout[s].hint,
					  ft);
		if (rc != NS_OK)
			return rc;
	}
	return NS_OK;
}

uint64_t mm_page_vaddr(const struct mm_world *w, const struct page *p)
{
	/* the direct-map address prep_new_page's clear_highpage uses */
	uint64_t va = page_pfn(w, p) << 12;
	return ((uint64_t)(page_node(w, p) + 1) << CACHE_AS_SHIFT) + (1ull << 39) +
	       (va & ((1ull << 39) - 1));
}

void mm_lock_stats(const struct mm_world *w, struct mm_lock_stats *out)
{
	memset(out, 0, sizeof *out);
	for (int i = 0; i < w->nr_zones; i++) {
		const struct cpu_lock *l = &w->zones[i].lock;
		out->zone_acquisitions += l->acquisitions;
		out->zone_contended += l->contended;
		out->zone_wait_cycles += l->wait_cycles;
	}
	out->other_acquisitions = w->callback_lock.acquisitions;
	out->other_contended = w->callback_lock.contended;
	out->other_wait_cycles = w->callback_lock.wait_cycles;
}

static const struct {
	const char *name;
	uint32_t val;
} gfp_names[] = {
	{"GFP_KERNEL", GFP_KERNEL},
	{"GFP_USER", GFP_USER},
	{"GFP_ATOMIC", GFP_ATOMIC},
	{"GFP_HIGHUSER_MOVABLE", GFP_HIGHUSER_MOVABLE},
	{"GFP_NOWAIT", __GFP_KSWAPD_RECLAIM},
	{"GFP_DMA", __GFP_DMA},
	{"GFP_DMA32", __GFP_DMA32},
	{"__GFP_DMA", __GFP_DMA},
	{"__GFP_HIGHMEM", __GFP_HIGHMEM},
	{"__GFP_DMA32", __GFP_DMA32},
	{"__GFP_MOVABLE", __GFP_MOVABLE},
	{"__GFP_RECLAIMABLE", __GFP_RECLAIMABLE},
	{"__GFP_HIGH", __GFP_HIGH},
	{"__GFP_IO", __GFP_IO},
	{"__GFP_FS", __GFP_FS},
	{"__GFP_COLD", __GFP_COLD},
	{"__GFP_NOWARN", __GFP_NOWARN},
	{"__GFP_REPEAT", __GFP_REPEAT},
	{"__GFP_NOFAIL", __GFP_NOFAIL},
	{"__GFP_NORETRY", __GFP_NORETRY},
	{"__GFP_MEMALLOC", __GFP_MEMALLOC},
	{"__GFP_COMP", __GFP_COMP},
	{"__GFP_ZERO", __GFP_ZERO},
	{"__GFP_NOMEMALLOC", __GFP_NOMEMALLOC},
	{"__GFP_HARDWALL", __GFP_HARDWALL},
	{"__GFP_THISNODE", __GFP_THISNODE},
	{"__GFP_ATOMIC", __GFP_ATOMIC},
	{"__GFP_DIRECT_RECLAIM", __GFP_DIRECT_RECLAIM},
	{"__GFP_OTHER_NODE", __GFP_OTHER_NODE},
	{"__GFP_WRITE", __GFP_WRITE},
	{"__GFP_KSWAPD_RECLAIM", __GFP_KSWAPD_RECLAIM},
};

int gfp_parse(const char *s, uint32_t *gfp)
{
	uint32_t v = 0;
	if (!s || !*s)
		return NS_EINPUT;
	while (*s) {
		while (*s == ' ')
			s++;
		size_t len = strcspn(s, "| ");
		size_t i;
		for (i = 0; i < sizeof gfp_names / sizeof gfp_names[0]; i++)
			if (strlen(gfp_names[i].name) == len &&
			    !strncmp(gfp_names[i].name, s, len))
				break;
		if (len == 0 || i == sizeof gfp_names / sizeof gfp_names[0])
			return NS_EINPUT;
		v |= gfp_names[i].val;
		s += len;
		while (*s == ' ')
			s++;
		if (*s == '|') {
			s++;
			while (*s == ' ')
				s++;
			if (!*s)
				return NS_EINPUT;
		} else if (*s) {
			return NS_EINPUT;
		}
	}
	*gfp = v;
	return NS_OK;
}

/* --- introspection ------------------------------------------------------ */

void mm_set_trace_hook(struct mm_world *w, mm_trace_fn fn, void *arg)
{
	w->trace = fn;
	w->trace_arg = arg;
}

uint64_t mm_page_pfn(const struct mm_world *w, const struct page *p)
{
	return page_pfn(w, p);
}

int mm_page_node(const struct mm_world *w, const struct page *p)
{
	return page_node(w, p);
}

void mm_drain_local_pages(struct mm_world *w, struct cpu *c)
{
	memo_reset(w, c);
	drain_local_pages(c, w);
}

int mm_zonelist_walk(struct mm_world *w, struct cpu *c, int node, enum zonelist_kind kind,
		     enum zone_type high, int use_mems_allowed, int *nodes,
		     enum zone_type *types, int max)
{
	if (node < 0 || node >= MACHINE_MAX_NODES || w->m->node_index[node] < 0 ||
	    (unsigned)kind >= MAX_ZONELISTS)
		return -1;
	const struct pglist_data *pn = &w->nodes[w->m->node_index[node]];
	if (!pn->zonerefs[kind])
		return -1;
	const uint64_t *mask = use_mems_allowed ? w->nodemask : NULL;
	struct zone *zone;
	memo_reset(w, c);
	int n = 0;
	int i = first_zones_zonelist(c, w, pn, (int)kind, (int)high, mask, &zone);
	while (br(c, w, S_A23, zone != NULL)) {
		if (n < max) {
			nodes[n] = zone->node;
			types[n] = zone->type;
		}
		n++;
		i = next_zones_zonelist(c, w, pn, (int)kind, i + 1, (int)high, mask);
		zone = pn->zonerefs[kind][i].zone;
	}
	return n;
}

const char *mmzone_iter_name(enum mmzone_iter v)
{
	return v == MMZONE_ITER_PRE ? "pre-682a3385" : v == MMZONE_ITER_POST ? "682a3385" : "unknown";
}

int mmzone_iter_parse(const char *s)
{
	if (!s)
		return -1;
	if (!strcmp(s, "pre-682a3385") || !strcmp(s, "pre"))
		return MMZONE_ITER_PRE;
	if (!strcmp(s, "682a3385") || !strcmp(s, "post"))
		return MMZONE_ITER_POST;
	return -1;
}

static const char *const mm_stat_name[] = {
#define MM_STAT_NAME(id, idx, name) name,
	MM_STATS(MM_STAT_NAME)
#undef MM_STAT_NAME
};

static const char *const mm_event_name[] = {
#define MM_EVENT_NAME(id, desc) #id,
	MM_EVENTS(MM_EVENT_NAME)
#undef MM_EVENT_NAME
};

static const char *const mm_nevent_name[] = {
#define MM_NEVENT_NAME(id, desc) #id,
	MM_NEVENTS(MM_NEVENT_NAME)
#undef MM_NEVENT_NAME
};

const char *vmstat_numa_rule_name(enum vmstat_numa_rule z)
{
	return z == VMSTAT_NUMA_SERIES ? "b9f00e147f27" : z == VMSTAT_NUMA_V46 ? "v4.6" : "unknown";
}

int vmstat_numa_rule_parse(const char *s)
{
	if (s && !strcmp(s, "b9f00e147f27"))
		return VMSTAT_NUMA_SERIES;
	if (s && !strcmp(s, "v4.6"))
		return VMSTAT_NUMA_V46;
	return -1;
}

int mm_zone_get_info(const struct mm_world *w, int node, enum zone_type t, int cpu_id,
		     struct mm_zone_info *out)
{
	if (node < 0 || node >= MACHINE_MAX_NODES || w->m->node_index[node] < 0 ||
	    (unsigned)t >= NR_ZONE_TYPES)
		return NS_ENOENT;
	const struct zone *z = w->nodes[w->m->node_index[node]].zones[t];
	if (!z)
		return NS_ENOENT;
	int k = 0;
	if (cpu_id >= 0) {
		for (k = 0; k < w->s->nr_cpus && w->s->cpu[k].id != cpu_id; k++)
			;
		if (k == w->s->nr_cpus)
			return NS_ENOENT;
	}
	memset(out, 0, sizeof *out);
	out->start_pfn = z->start_pfn;
	out->managed = z->managed;
	for (int i = 0; i < 3; i++)
		out->watermark[i] = z->watermark[i];
	for (int i = 0; i < NR_ZONE_TYPES; i++)
		out->lowmem_reserve[i] = z->lowmem_reserve[i];
	out->nr_free_pages = zone_stat_snapshot(w, z, NR_FREE_PAGES);
	out->nr_free_pages_atomic = z->vm_stat[NR_FREE_PAGES];
	out->alloc_batch = zone_stat_snapshot(w, z, NR_ALLOC_BATCH);
	out->fair_depleted = z->fair_depleted;
	for (int o = 0; o < MAX_ORDER; o++) {
		out->nr_free[o] = z->free_area[o].nr_free;
		for (int mt = 0; mt < MT_TYPES; mt++) {
			const struct page *h = &z->free_area[o].list[mt];
			for (const struct page *p = h->next; p != h; p = p->next)
				out->nr_free_mt[o][mt]++;
		}
	}
	out->allocated = z->allocated;
	out->boot_used = z->boot_used;
	if (w->s->nr_cpus > 0) {
		const struct per_cpu_pages *p = &z->pcp[k];
		out->pcp_count = p->count;
		out->pcp_high = p->high;
		out->pcp_batch = p->batch;
		for (int mt = 0; mt < MT_PCPTYPES; mt++) {
			const struct page *h = &p->lists[mt];
			for (const struct page *q = h->next; q != h; q = q->next)
				out->pcp_list[mt]++;
		}
		out->stat_threshold = p->stat_threshold;
	}
	return NS_OK;
}

int mm_counters(const struct mm_world *w, mm_counter_fn fn, void *arg)
{
	char id[64];
	int rc;
	for (int i = 0; i < w->nr_zones; i++) {
		const struct zone *z = &w->zones[i];
		snprintf(id, sizeof id, "%d/%s", z->node, zone_type_name(z->type));
		char name[48];
		snprintf(name, sizeof name, "pgalloc_%s", zone_type_name(z->type));
		for (char *p = name; *p; p++)
			if (*p >= 'A' && *p <= 'Z')
				*p = (char)(*p - 'A' + 'a');
		if ((rc = fn(arg, "zone", id, name, (int64_t)z->ev[EV_pgalloc])) != NS_OK)
			return rc;
		for (int e = 0; e < MM_NR_EVENT; e++) {
			if (e == EV_pgalloc)
				continue;
			if ((rc = fn(arg, "zone", id, mm_event_name[e], (int64_t)z->ev[e])) != NS_OK)
				return rc;
		}
		for (int s = 0; s < MM_NR_STAT; s++)
			if ((rc = fn(arg, "zone", id, mm_stat_name[s],
				     zone_stat_snapshot(w, z, (enum mm_stat)s))) != NS_OK)
				return rc;
		if ((rc = fn(arg, "zone", id, "nr_allocated", (int64_t)z->allocated)) != NS_OK)
			return rc;
	}
	for (int n = 0; n < w->nr_nodes; n++) {
		const struct pglist_data *pn = &w->nodes[n];
		snprintf(id, sizeof id, "%d", pn->id);
		static const enum mm_stat numastat[] = {NUMA_HIT, NUMA_MISS, NUMA_FOREIGN,
							NUMA_INTERLEAVE_HIT, NUMA_LOCAL, NUMA_OTHER};
		for (size_t s = 0; s < sizeof numastat / sizeof numastat[0]; s++) {
			int64_t v = 0;
			for (int t = 0; t < NR_ZONE_TYPES; t++)
				if (pn->zones[t])
					v += zone_stat_snapshot(w, pn->zones[t], numastat[s]);
			if ((rc = fn(arg, "node", id, mm_stat_name[numastat[s]], v)) != NS_OK)
				return rc;
		}
		for (int e = 0; e < MM_NR_NEVENT; e++)
			if ((rc = fn(arg, "node", id, mm_nevent_name[e], (int64_t)pn->ev[e])) != NS_OK)
				return rc;
	}
	/* the reclaim model's counters only in worlds that have it, so the
	 * others keep their counter rows */
	return w->reclaim ? vmscan_counters(w, fn, arg) : NS_OK;
}

void mm_path_counts(const struct mm_world *w, struct mm_path_counts *out)
{
	out->pcp_refill = 0;
	out->slowpath = 0;
	for (int i = 0; i < w->nr_zones; i++)
		out->pcp_refill += w->zones[i].ev[EV_pcp_refill];
	for (int n = 0; n < w->nr_nodes; n++)
		out->slowpath += w->nodes[n].ev[NEV_slowpath];
}

/* --- names and parsers ---------------------------------------------------- */

static const char *const mpol_names[] = {
	[MPOL_DEFAULT] = "default", [MPOL_LOCAL] = "local", [MPOL_BIND] = "bind",
	[MPOL_PREFERRED] = "preferred", [MPOL_INTERLEAVE] = "interleave",
};

const char *mpol_name(enum mpol_mode m)
{
	return (unsigned)m <= MPOL_INTERLEAVE ? mpol_names[m] : "unknown";
}

int mpol_parse(const char *s)
{
	for (int i = 0; s && i <= MPOL_INTERLEAVE; i++)
		if (!strcmp(s, mpol_names[i]))
			return i;
	return -1;
}

/* --- checks ------------------------------------------------------------- */

#define CHECK(cond, ...)                                                       \
	do {                                                                   \
		if (!(cond))                                                   \
			return diag_set(d, NS_EINTERNAL, NULL, 0, 0, __VA_ARGS__); \
	} while (0)

static int check_list(const struct page *h, uint64_t *len)
{
	uint64_t n = 0;
	const struct page *p = h;
	do {
		if (!p->next || p->next->prev != p)
			return -1;
		p = p->next;
		n++;
	} while (p != h);
	*len = n - 1;
	return 0;
}

static int check_zone(const struct mm_world *w, const struct zone *z, struct diag *d)
{
	uint64_t free_pages = 0;
	for (int o = 0; o < MAX_ORDER; o++) {
		uint64_t total = 0;
		for (int mt = 0; mt < MT_TYPES; mt++) {
			const struct page *h = &z->free_area[o].list[mt];
			uint64_t len;
			CHECK(check_list(h, &len) == 0, "pagealloc: zone %d/%s free list %d/%d broken",
			      z->node, zone_type_name(z->type), o, mt);
			total += len;
			for (const struct page *p = h->next; p != h; p = p->next) {
				const struct pfn_block *b = page_block(w, p);
				CHECK(p->state == PS_BUDDY && p->order == o,
				      "pagealloc: zone %d/%s: pfn %" PRIu64 " on order-%d list is not a free order-%d block",
				      z->node, zone_type_name(z->type), page_pfn(w, p), o, o);
				CHECK(b->zone == (uint32_t)z->id, "pagealloc: free block in a foreign zone");
				CHECK((p->off & ((1u << o) - 1)) == 0 && p->off + (1u << o) <= b->npages,
				      "pagealloc: free block pfn %" PRIu64 " order %d misaligned or beyond the zone",
				      page_pfn(w, p), o);
				CHECK(o == BLOCK_ORDER ? (!b->detail && p == &b->head) : b->detail != NULL,
				      "pagealloc: block metadata does not match order %d", o);
				if (o < BLOCK_ORDER) {
					unsigned bo = p->off ^ (1u << o);
					CHECK(bo >= b->npages || b->detail[bo].state != PS_BUDDY ||
						      b->detail[bo].order != o,
					      "pagealloc: pfn %" PRIu64 " and its buddy are both free at order %d",
					      page_pfn(w, p), o);
				}
				free_pages += 1ull << o;
			}
		}
		CHECK(total == z->free_area[o].nr_free, "pagealloc: zone %d/%s nr_free[%d] %" PRIu64
		      " != list total %" PRIu64, z->node, zone_type_name(z->type), o,
		      z->free_area[o].nr_free, total);
	}
	uint64_t pcp_pages = 0;
	for (int k = 0; k < w->s->nr_cpus; k++) {
		const struct per_cpu_pages *pcp = &z->pcp[k];
		uint64_t sum = 0;
		for (int mt = 0; mt < MT_PCPTYPES; mt++) {
			uint64_t len;
			CHECK(check_list(&pcp->lists[mt], &len) == 0, "pagealloc: pcp list broken");
			for (const struct page *p = pcp->lists[mt].next; p != &pcp->lists[mt];
			     p = p->next)
				CHECK(p->state == PS_PCP && p->pcp_cpu == k &&
					      page_zone(w, p) == z,
				      "pagealloc: page on pcp list of CPU %d is not a pcp page", k);
			sum += len;
		}
		CHECK(sum == (uint64_t)pcp->count, "pagealloc: zone %d/%s CPU %d pcp count %d != %" PRIu64,
		      z->node, zone_type_name(z->type), w->s->cpu[k].id, pcp->count, sum);
		CHECK(pcp->count <= pcp->high || pcp->count <= pcp->batch,
		      "pagealloc: zone %d/%s CPU %d pcp count %d above high %d",
		      z->node, zone_type_name(z->type), w->s->cpu[k].id, pcp->count, pcp->high);
		pcp_pages += sum;
	}
	CHECK(free_pages + pcp_pages + z->allocated + z->boot_used == z->managed,
	      "pagealloc: zone %d/%s: free %" PRIu64 " + pcp %" PRIu64 " + allocated %" PRIu64
	      " + in use from the start %" PRIu64 " != managed %" PRIu64, z->node,
	      zone_type_name(z->type), free_pages, pcp_pages, z->allocated, z->boot_used,
	      z->managed);
	if (w->cfg.reclaim.enabled) {
		int rc = vmscan_check(w, z, free_pages, pcp_pages, d);
		if (rc != NS_OK)
			return rc;
	}
	CHECK(zone_stat_snapshot(w, z, NR_FREE_PAGES) == (int64_t)free_pages,
	      "pagealloc: zone %d/%s NR_FREE_PAGES %" PRId64 " != buddy %" PRIu64, z->node,
	      zone_type_name(z->type), zone_stat_snapshot(w, z, NR_FREE_PAGES), free_pages);
	for (int k = 0; k < w->s->nr_cpus; k++)
		for (int i = 0; i < MM_NR_STAT; i++)
			CHECK(z->pcp[k].diff[i] >= -z->pcp[k].stat_threshold - 1 &&
				      z->pcp[k].diff[i] <= z->pcp[k].stat_threshold,
			      "pagealloc: per-cpu delta beyond the threshold");
	return NS_OK;
}

int mm_check(const struct mm_world *w, struct diag *d)
{
	CHECK(w->pool.nr <= w->pool.nr_all, "pagealloc: detail pool count");
	uint64_t in_use = 0;
	for (uint64_t i = 0; i < w->nr_blocks; i++)
		in_use += w->blocks[i].detail != NULL;
	CHECK(in_use + w->pool.nr == w->pool.nr_all,
	      "pagealloc: %" PRIu64 " blocks with detail + %zu pooled != %zu allocated", in_use,
	      w->pool.nr, w->pool.nr_all);
	for (int i = 0; i < w->nr_zones; i++) {
		int rc = check_zone(w, &w->zones[i], d);
		if (rc != NS_OK)
			return rc;
	}
	for (int k = 0; k < w->s->nr_cpus; k++)
		CHECK(w->cfg.mpol != MPOL_INTERLEAVE ||
			      (w->cpus[k].il_next >= 0 && w->cpus[k].il_next < MACHINE_MAX_NODES &&
			       node_isset(w->mpol_mask, w->cpus[k].il_next)),
		      "pagealloc: CPU %d's il_next %d is not an interleave node", w->s->cpu[k].id,
		      w->cpus[k].il_next);
	for (int k = 0; k < w->s->nr_cpus; k++) {
		int rc = cpu_check(&w->s->cpu[k]);
		if (rc != NS_OK)
			return diag_set(d, rc, NULL, 0, 0, "pagealloc: CPU %d cost state broken",
					w->s->cpu[k].id);
	}
	return NS_OK;
}
