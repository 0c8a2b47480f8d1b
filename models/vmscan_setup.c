/*
 * vmscan_setup — the cold half of the reclaim model (models/vmscan.h;
 * mm/vmscan.c of Linux v4.6): the names of its functions, sites and
 * events and their registration in the cost tables and the code layout,
 * the reclaim configuration's defaults, a zone's LRU set-up
 * (calculate_zone_inactive_ratio), vmscan_attach() (setup_min_unmapped_ratio,
 * setup_min_slab_ratio), the zone_reclaim_mode sysctl and the swap slots,
 * introspection, counters and vmscan_check().  The kernel's reclaim paths
 * are in models/vmscan.c; nothing here runs on them.
 */
#include "models/mm_internal.h"
#include "models/kcode.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

static const char *const vm_fn_names[] = {
#define VM_FN_NAME(name) #name,
	VM_FUNCS(VM_FN_NAME)
#undef VM_FN_NAME
};

static const struct cost_site_def vm_site_defs[] = {
#define VM_SITE_DEF(id, desc, hint, ft) {#id, desc},
	VM_SITES(VM_SITE_DEF)
#undef VM_SITE_DEF
};

static const struct {
	uint8_t hint;
	int8_t ft;
} vm_site_layout[] = {
#define VM_SITE_LAYOUT(id, desc, hint, ft) {COST_HINT_##hint, COST_FT_##ft},
	VM_SITES(VM_SITE_LAYOUT)
#undef VM_SITE_LAYOUT
};

static const struct kcode_site vm_kcode_sites[] = {
#define VM_KSITE(id, desc, hint, ft) {#id, desc, COST_HINT_##hint, COST_FT_##ft},
	VM_SITES(VM_KSITE)
#undef VM_KSITE
};
static const uint8_t vm_kcode_inline[VM_NR_FN] = {0};

void vmscan_kcode(struct kcode_model *out)
{
	/* reclaim's straight-line work is charged by rows (vwork()), not blocks */
	*out = (struct kcode_model){
		.name = "vmscan", .kernel = "v4.6 mm/vmscan.c, mm/swap.c (workload fill)",
		.nr_fns = VM_NR_FN, .fns = vm_fn_names, .fn_inline = vm_kcode_inline,
		.nr_sites = VM_NR_SITE, .sites = vm_kcode_sites,
	};
}

static const char *const vm_zev_name[] = {
#define VM_ZEV_NAME(id, suffix, desc) #id,
	VM_ZEVENTS(VM_ZEV_NAME)
#undef VM_ZEV_NAME
};
static const int vm_zev_suffix[] = {
#define VM_ZEV_SUFFIX(id, suffix, desc) suffix,
	VM_ZEVENTS(VM_ZEV_SUFFIX)
#undef VM_ZEV_SUFFIX
};
static const char *const vm_nev_name[] = {
#define VM_NEV_NAME(id, desc) #id,
	VM_NEVENTS(VM_NEV_NAME)
#undef VM_NEV_NAME
};
static const char *const lru_name[MM_NR_LRU_LISTS] = {
	"nr_inactive_anon", "nr_active_anon", "nr_inactive_file", "nr_active_file"};

/* --- set-up ------------------------------------------------------------- */

void mm_reclaim_config_default(struct mm_reclaim_config *c)
{
	c->enabled = 0;
	c->swap_pages = 0;
	c->swappiness = 60;              /* mm/vmscan.c vm_swappiness */
	c->min_unmapped_ratio = 1;       /* mm/page_alloc.c sysctl_min_unmapped_ratio */
	c->min_slab_ratio = 5;           /* mm/page_alloc.c sysctl_min_slab_ratio */
	c->writeback_cycles = 0;
}

uint32_t vmscan_pre316_default_mode(const int *distance, int nr)
{
	/* v3.15 build_zonelists / find_next_best_node: "If another node is
	 * sufficiently far away then it is better to reclaim pages in a zone
	 * before going off node." */
	for (int i = 0; i < nr; i++)
		for (int j = 0; j < nr; j++)
			if (distance[i * nr + j] > RECLAIM_DISTANCE)
				return RECLAIM_ZONE;
	return 0;
}

/* int_sqrt (lib/int_sqrt.c): floor of the square root */
static uint64_t int_sqrt(uint64_t x)
{
	uint64_t r = 0;
	while ((r + 1) * (r + 1) <= x)
		r++;
	return r;
}

void vmscan_init_zone(struct zone *z)
{
	struct lruvec *lv = &z->lruvec;
	for (int l = 0; l < MM_NR_LRU_LISTS; l++)
		list_init(&lv->lists[l], z->addr + ZOFF_LRUVEC + sizeof(struct klist_head) * (unsigned)l);
	/* calculate_zone_inactive_ratio (mm/page_alloc.c, v4.6) */
	uint64_t gb = z->managed >> (30 - 12);
	lv->inactive_ratio = gb ? int_sqrt(10 * gb) : 1;
}

int vmscan_register(struct cost_tables *t, int *fn_base, int *site_base)
{
	int rc = cost_register_fns(t, vm_fn_names, VM_NR_FN, fn_base);
	if (rc != NS_OK)
		return rc;
	return cost_register_sites(t, vm_site_defs, VM_NR_SITE, site_base);
}

int vmscan_layout(struct cost_layout *l, const struct cost_tables *t, int fn_base,
		  int site_base)
{
	if (fn_base < 0 || site_base < 0 || fn_base + VM_NR_FN > t->nr_fns ||
	    site_base + VM_NR_SITE > t->nr_sites)
		return NS_EINTERNAL;
	static const int inl[] = {
#define VM_INL(name) VF_##name,
		VM_INLINE_FUNCS(VM_INL)
#undef VM_INL
	};
	int rc = cost_layout_set_model_fns(l, fn_base, VM_NR_FN, inl, sizeof inl / sizeof inl[0]);
	for (int s = 0; rc == NS_OK && s < VM_NR_SITE; s++)
		rc = cost_layout_set_site(l, site_base + s, (enum cost_hint)vm_site_layout[s].hint,
					  vm_site_layout[s].ft);
	return rc;
}

int vmscan_attach(struct mm_world *w, int fn_base, int site_base)
{
	if (!w->cfg.reclaim.enabled || w->reclaim || fn_base < 0 || site_base < 0 ||
	    fn_base + VM_NR_FN > w->s->tables->nr_fns ||
	    site_base + VM_NR_SITE > w->s->tables->nr_sites)
		return NS_EINTERNAL;
	struct diag d;
	diag_init(&d);
	int node0 = w->m->nodes[0].id;
	/* synthetic addresses after every other allocation of the world, so
	 * the worlds without reclaim keep theirs */
	int rc = mm_alloc_addr(w, node0, 64, 64, &w->mapping_addr[0], &d);
	if (rc == NS_OK)
		rc = mm_alloc_addr(w, node0, 64, 64, &w->mapping_addr[1], &d);
	if (rc == NS_OK)
		rc = mm_alloc_addr(w, node0, 64, 64, &w->swap_info_addr, &d);
	for (int n = 0; rc == NS_OK && n < w->nr_nodes; n++)
		rc = mm_alloc_addr(w, w->nodes[n].id, 64, 64, &w->nodes[n].pgdat_addr, &d);
	if (rc != NS_OK)
		return rc;
	for (int i = 0; i < w->nr_zones; i++) {
		struct zone *z = &w->zones[i];
		/* setup_min_unmapped_ratio / setup_min_slab_ratio */
		z->lruvec.min_unmapped_pages = z->managed * w->cfg.reclaim.min_unmapped_ratio / 100;
		z->lruvec.min_slab_pages = z->managed * w->cfg.reclaim.min_slab_ratio / 100;
	}
	w->vm_ch.fn_base = fn_base;
	w->vm_ch.site_base = site_base;
	w->vm_ch.memo = w->ch.memo;
	w->reclaim = 1;
	return NS_OK;
}

int mm_reclaim_enabled(const struct mm_world *w) { return w->reclaim; }

int mm_sysctl_zone_reclaim_mode(struct mm_world *w, uint32_t mode)
{
	if (mode > (RECLAIM_ZONE | RECLAIM_WRITE | RECLAIM_UNMAP) ||
	    (mode && !w->cfg.reclaim.enabled))
		return NS_EINPUT;
	w->cfg.zone_reclaim_mode = mode;
	return NS_OK;
}

uint32_t mm_zone_reclaim_mode(const struct mm_world *w) { return w->cfg.zone_reclaim_mode; }

void mm_set_reclaim_hook(struct mm_world *w, mm_reclaim_fn fn, void *arg)
{
	w->reclaim_hook = fn;
	w->reclaim_arg = arg;
}

uint64_t mm_swap_used(const struct mm_world *w) { return w->nr_swap_used; }

void mm_swap_slot_free(struct mm_world *w)
{
	if (w->nr_swap_used)
		w->nr_swap_used--;
}

/* --- introspection, counters, check ------------------------------------ */

int mm_zone_lru_info(const struct mm_world *w, int node, int zone_type,
		     struct mm_lru_info *out)
{
	for (int i = 0; i < w->nr_zones; i++) {
		const struct zone *z = &w->zones[i];
		if (z->node != node || (int)z->type != zone_type)
			continue;
		memset(out, 0, sizeof *out);
		memcpy(out->nr, z->lruvec.nr, sizeof out->nr);
		out->nr_dirty = z->lruvec.nr_dirty_file;
		out->nr_mapped = z->lruvec.nr_mapped_file;
		out->inactive_ratio = z->lruvec.inactive_ratio;
		return NS_OK;
	}
	return NS_ENOENT;
}

int vmscan_counters(const struct mm_world *w, mm_counter_fn fn, void *arg)
{
	char id[64], name[64];
	int rc;
	for (int i = 0; i < w->nr_zones; i++) {
		const struct zone *z = &w->zones[i];
		snprintf(id, sizeof id, "%d/%s", z->node, zone_type_name(z->type));
		for (int l = 0; l < MM_NR_LRU_LISTS; l++)
			if ((rc = fn(arg, "zone", id, lru_name[l], (int64_t)z->lruvec.nr[l])) != NS_OK)
				return rc;
		if ((rc = fn(arg, "zone", id, "nr_mapped", (int64_t)z->lruvec.nr_mapped_file)) ||
		    (rc = fn(arg, "zone", id, "nr_dirty", (int64_t)z->lruvec.nr_dirty_file)))
			return rc;
		for (int e = 0; e < VM_NR_ZEVENT; e++) {
			if (vm_zev_suffix[e]) {
				snprintf(name, sizeof name, "%s_%s", vm_zev_name[e],
					 zone_type_name(z->type));
				for (char *p = name; *p; p++)
					if (*p >= 'A' && *p <= 'Z')
						*p = (char)(*p - 'A' + 'a');
			} else {
				snprintf(name, sizeof name, "%s", vm_zev_name[e]);
			}
			if ((rc = fn(arg, "zone", id, name, (int64_t)z->lruvec.ev[e])) != NS_OK)
				return rc;
		}
	}
	for (int n = 0; n < w->nr_nodes; n++) {
		snprintf(id, sizeof id, "%d", w->nodes[n].id);
		for (int e = 0; e < VM_NR_NEVENT; e++)
			if ((rc = fn(arg, "node", id, vm_nev_name[e],
				     (int64_t)w->nodes[n].vm_ev[e])) != NS_OK)
				return rc;
	}
	if ((rc = fn(arg, "system", "0", "swap_used", (int64_t)w->nr_swap_used)) != NS_OK)
		return rc;
	return NS_OK;
}

#define VCHECK(cond, ...)                                                      \
	do {                                                                   \
		if (!(cond))                                                   \
			return diag_set(d, NS_EINTERNAL, NULL, 0, 0, __VA_ARGS__); \
	} while (0)

int vmscan_check(const struct mm_world *w, const struct zone *z, uint64_t free_pages,
		 uint64_t pcp_pages, struct diag *d)
{
	const struct lruvec *lv = &z->lruvec;
	uint64_t lru_pages = 0, mapped = 0, dirty = 0;
	for (int l = 0; l < MM_NR_LRU_LISTS; l++) {
		const struct page *h = &lv->lists[l];
		uint64_t n = 0;
		const struct page *p = h;
		do {
			VCHECK(p->next && p->next->prev == p, "vmscan: zone %d/%s LRU list %d broken",
			       z->node, zone_type_name(z->type), l);
			p = p->next;
			if (p == h)
				break;
			n++;
			VCHECK(p->state == PS_ALLOC && page_zone(w, p) == z &&
				       (p->pgflags & PGF_LRU) && page_lru(p) == l,
			       "vmscan: zone %d/%s: pfn %" PRIu64 " on %s is not an LRU page of it",
			       z->node, zone_type_name(z->type), page_pfn(w, p), lru_name[l]);
			mapped += page_is_file_cache(p) && page_mapped(p);
			dirty += page_is_file_cache(p) && (p->pgflags & PGF_DIRTY);
		} while (n <= z->managed);
		VCHECK(n == lv->nr[l], "vmscan: zone %d/%s %s %" PRIu64 " != list length %" PRIu64,
		       z->node, zone_type_name(z->type), lru_name[l], lv->nr[l], n);
		lru_pages += n;
	}
	VCHECK(lv->nr_isolated[0] == 0 && lv->nr_isolated[1] == 0 && !lv->reclaim_locked,
	       "vmscan: zone %d/%s has pages isolated between calls", z->node,
	       zone_type_name(z->type));
	VCHECK(mapped == lv->nr_mapped_file && dirty == lv->nr_dirty_file,
	       "vmscan: zone %d/%s NR_FILE_MAPPED/NR_FILE_DIRTY do not match the pages",
	       z->node, zone_type_name(z->type));
	VCHECK(lru_pages <= z->allocated, "vmscan: zone %d/%s: more LRU pages than allocated",
	       z->node, zone_type_name(z->type));
	/* pages in use from the start (machine `free:`) count as the kernel's */
	uint64_t kernel = z->allocated - lru_pages + z->boot_used;
	VCHECK(free_pages + pcp_pages + lru_pages + kernel == z->managed,
	       "vmscan: zone %d/%s: free %" PRIu64 " + pcp %" PRIu64 " + LRU %" PRIu64
	       " + kernel %" PRIu64 " != managed %" PRIu64,
	       z->node, zone_type_name(z->type), free_pages, pcp_pages, lru_pages, kernel,
	       z->managed);
	VCHECK(w->nr_swap_used <= w->cfg.reclaim.swap_pages, "vmscan: swap slots over the size");
	VCHECK(!w->cfg.reclaim.enabled || w->reclaim,
	       "vmscan: reclaim enabled but not attached (vmscan_attach)");
	return NS_OK;
}
