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
 *
 * Hot file (compiled into the fast copies, models/mm_copy.c): the names,
 * mm_counters and mm_zone_get_info live in the cold half, mm_info.c.
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

/*
 * __dec_zone_state (v3 06, 754078eb45df, calls it for NR_ALLOC_BATCH on
 * the order-0 path): __this_cpu_dec_return of the s8 delta, one test
 * against -t, and on overflow the fold of v - t/2 with the delta set to
 * +t/2 (the mirror of __inc_zone_state).
 */
void __dec_zone_state(struct cpu *c, struct mm_world *w, struct zone *z, enum mm_stat i)
{
	struct per_cpu_pages *pcp = this_pcp(c, z);
	scall(c, w, SF___dec_zone_state);
	run_sblock(c, w, SB_dec_zone_state);
	bmem(c, w, z->addr + ZOFF_PAGESET, z->node, CPU_LOAD_DEP);
	bmem(c, w, pcp->addr + PCPOFF_DIFF + mm_stat_idx(i), c->node, CPU_LOAD_DEP);
	bmem(c, w, pcp->addr + PCPOFF_DIFF + mm_stat_idx(i), c->node, CPU_STORE);
	int64_t v = --pcp->diff[i];
	int64_t t = pcp->stat_threshold;
	if (sbr(c, w, SS_A39c, v < -t)) {
		int64_t overstep = t >> 1;
		zone_page_state_add(c, w, z, i, v - overstep);
		pcp->diff[i] = (int32_t)overstep;
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
