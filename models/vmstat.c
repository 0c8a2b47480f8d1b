/*
 * vmstat — the zone counters of Linux v4.6 mm/vmstat.c (the same in both
 * variants of 682a3385): __mod_zone_page_state, __inc_zone_state,
 * mod_zone_page_state and inc_zone_page_state (x86: mod_state with
 * this_cpu_cmpxchg), zone_statistics (CONFIG_NUMA, with the counting rule
 * mm_config.zone_stats names: vmstat_numa_rule_name, _parse), the per-cpu
 * threshold (calculate_normal_threshold), and the read side: the counter
 * names with mm_counters (/proc/vmstat, numastat) and mm_zone_get_info
 * (/proc/zoneinfo, buddyinfo, pagetypeinfo).  count_vm_event,
 * zone_page_state and zone_stat_snapshot are inlines of mm_internal.h, as
 * in include/linux/vmstat.h.
 *
 * Invariants: a per-cpu delta stays within [-threshold - 1, threshold]
 * (beyond it the delta is folded into the zone's and the global atomic);
 * a zone's value is its atomic plus the per-cpu deltas.  Error policy: the
 * updates cannot fail; mm_zone_get_info() returns NS_ENOENT for a zone or
 * CPU the world does not model; mm_counters() stops at and returns the
 * callback's first status other than NS_OK.
 */
#include "models/mm_internal.h"

#include <stdio.h>
#include <string.h>

/* calculate_normal_threshold() */
int stat_threshold(const struct mm_world *w, const struct zone *z)
{
	int page_shift = fls64(w->m->page_size) - 1;
	uint64_t mem = z->managed >> (27 - page_shift);
	int t = 2 * fls64((uint64_t)w->m->nr_cpus) * (1 + fls64(mem));
	return t < 125 ? t : 125;
}

static void zone_page_state_add(struct cpu *c, struct mm_world *w, struct zone *z,
				enum mm_stat i, int64_t x)
{
	atomic_rmw(c, w, zaddr_stat(z, i), z->node);
	atomic_rmw(c, w, w->vm_stat_addr + 8u * mm_stat_idx(i), w->m->nodes[0].id);
	z->vm_stat[i] += x;
}

void __mod_zone_page_state(struct cpu *c, struct mm_world *w, struct zone *z,
			   enum mm_stat i, int64_t delta)
{
	struct per_cpu_pages *pcp = this_pcp(c, z);
	call(c, w, FN___mod_zone_page_state);
	run_block(c, w, B_mod_zone_page_state);
	bmem(c, w, z->addr + ZOFF_PAGESET, z->node, CPU_LOAD_DEP);
	bmem(c, w, pcp->addr + PCPOFF_DIFF + mm_stat_idx(i), c->node, CPU_LOAD_DEP);
	bmem(c, w, pcp->addr + PCPOFF_DIFF + mm_stat_idx(i), c->node, CPU_STORE);
	int64_t x = delta + pcp->diff[i];
	int64_t t = pcp->stat_threshold;
	if (br(c, w, S_A39a, x > t) || br(c, w, S_A39b, x < -t)) {
		zone_page_state_add(c, w, z, i, x);
		x = 0;
	}
	pcp->diff[i] = (int32_t)x;
	ret(c);
}

static void __inc_zone_state(struct cpu *c, struct mm_world *w, struct zone *z,
			     enum mm_stat i)
{
	struct per_cpu_pages *pcp = this_pcp(c, z);
	call(c, w, FN___inc_zone_state);
	run_block(c, w, B_inc_zone_state);
	bmem(c, w, z->addr + ZOFF_PAGESET, z->node, CPU_LOAD_DEP);
	/* __this_cpu_inc_return: the new value is tested at once */
	bmem(c, w, pcp->addr + PCPOFF_DIFF + mm_stat_idx(i), c->node, CPU_LOAD_DEP);
	bmem(c, w, pcp->addr + PCPOFF_DIFF + mm_stat_idx(i), c->node, CPU_STORE);
	int64_t v = ++pcp->diff[i];
	int64_t t = pcp->stat_threshold;
	if (br(c, w, S_A42c, v > t)) {
		int64_t overstep = t >> 1;
		zone_page_state_add(c, w, z, i, v + overstep);
		pcp->diff[i] = (int32_t)-overstep;
	}
	ret(c);
}

/* mod_zone_page_state (x86: this_cpu_cmpxchg based mod_state, overstep 0). */
void mod_zone_page_state(struct cpu *c, struct mm_world *w, struct zone *z,
			 enum mm_stat i, int64_t delta)
{
	struct per_cpu_pages *pcp = this_pcp(c, z);
	call(c, w, FN_mod_zone_page_state);
	run_block(c, w, B_mod_zone_page_state_irq);
	bmem(c, w, pcp->addr + PCPOFF_DIFF + mm_stat_idx(i), c->node, CPU_LOAD_DEP);
	this_cpu_cmpxchg(c);
	bmem(c, w, pcp->addr + PCPOFF_DIFF + mm_stat_idx(i), c->node, CPU_STORE);
	int64_t n = delta + pcp->diff[i];
	int64_t t = pcp->stat_threshold;
	if (br(c, w, S_mod_state_fold, n > t || n < -t)) {
		zone_page_state_add(c, w, z, i, n);
		n = 0;
	}
	pcp->diff[i] = (int32_t)n;
	ret(c);
}

/*
 * inc_zone_page_state(page, item) (mm/vmstat.c, x86: mod_state with
 * this_cpu_cmpxchg, overstep mode 1): out of line, irq-safe.
 */
void inc_zone_page_state(struct cpu *c, struct mm_world *w, struct zone *z,
			 enum mm_stat i)
{
	struct per_cpu_pages *pcp = this_pcp(c, z);
	call(c, w, FN_inc_zone_page_state);
	run_block(c, w, B_inc_zone_page_state);
	bmem(c, w, z->addr + ZOFF_PAGESET, z->node, CPU_LOAD_DEP);
	bmem(c, w, pcp->addr + PCPOFF_DIFF + mm_stat_idx(i), c->node, CPU_LOAD_DEP);
	this_cpu_cmpxchg(c);
	bmem(c, w, pcp->addr + PCPOFF_DIFF + mm_stat_idx(i), c->node, CPU_STORE);
	int64_t n = 1 + pcp->diff[i];
	int64_t t = pcp->stat_threshold;
	if (br(c, w, S_mod_state_fold, n > t || n < -t)) {
		int64_t os = t >> 1;
		zone_page_state_add(c, w, z, i, n + os);
		n = -os;
	}
	pcp->diff[i] = (int32_t)n;
	ret(c);
}

void zone_statistics(struct cpu *c, struct mm_world *w, struct zone *pref,
		     struct zone *z, uint32_t gfp)
{
	call(c, w, FN_zone_statistics);
	bool v46 = w->cfg.zone_stats == VMSTAT_NUMA_V46;
	run_block(c, w, v46 ? B_zone_statistics_v46 : B_zone_statistics);
	int local_nid = w->cpus[c->idx].numa_node;
	enum mm_stat local_stat = NUMA_LOCAL;
	if (v46) {
		/* v4.6: hit/miss against the preferred zone's node, then
		 * local/other against numa_node_id() (or the preferred node
		 * with __GFP_OTHER_NODE) */
		bmem(c, w, pref->addr + ZOFF_NODE, pref->node, CPU_LOAD);
		bmem(c, w, z->addr + ZOFF_NODE, z->node, CPU_LOAD_DEP);
		if (br(c, w, S_A42d, z->node == pref->node)) {
			__inc_zone_state(c, w, z, NUMA_HIT);
		} else {
			__inc_zone_state(c, w, z, NUMA_MISS);
			__inc_zone_state(c, w, pref, NUMA_FOREIGN);
		}
		if (br(c, w, S_A42a, gfp & __GFP_OTHER_NODE))
			local_nid = pref->node;
		if (br(c, w, S_A42e, z->node == local_nid))
			__inc_zone_state(c, w, z, NUMA_LOCAL);
		else
			__inc_zone_state(c, w, z, NUMA_OTHER);
		ret(c);
		return;
	}
	if (br(c, w, S_A42a, gfp & __GFP_OTHER_NODE)) {
		local_stat = NUMA_OTHER;
		mem(c, w, pref->addr + ZOFF_NODE, pref->node, CPU_LOAD);
		local_nid = pref->node;
	}
	mem(c, w, z->addr + ZOFF_NODE, z->node, CPU_LOAD_DEP);
	if (br(c, w, S_A42b, z->node == local_nid)) {
		__inc_zone_state(c, w, z, NUMA_HIT);
		__inc_zone_state(c, w, z, local_stat);
	} else {
		__inc_zone_state(c, w, z, NUMA_MISS);
		__inc_zone_state(c, w, pref, NUMA_FOREIGN);
	}
	ret(c);
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
