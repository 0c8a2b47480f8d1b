/*
 * mempolicy — the NUMA memory policy in front of the page allocator,
 * Linux v4.6 mm/mempolicy.c (unchanged by 682a3385): alloc_pages_current,
 * get_task_policy, policy_zonelist, policy_nodemask, interleave_nodes,
 * alloc_page_interleave, find_next_bit over a nodemask (lib/find_bit.c);
 * set_mempolicy(2)'s checks as set-up (setup_mempolicy: mpol_new,
 * mpol_set_nodemask); the policy names (mpol_name, mpol_parse).
 *
 * Mempolicies (docs/design/policies.md).  alloc_pages_current() follows v4.6:
 * the task's policy (mm_config.mpol; &default_policy = MPOL_PREFERRED |
 * MPOL_F_LOCAL in interrupt or with __GFP_THISNODE), then
 * alloc_page_interleave(interleave_nodes()) or __alloc_pages_nodemask()
 * with policy_zonelist() and policy_nodemask().  The model keeps one task
 * per simulated CPU (struct mm_cpu: its struct mempolicy address and
 * il_next); the policy's node set is one world-wide mask (w->mpol_mask),
 * already cut to the cpuset's mems as mpol_set_nodemask() does.
 * zone_statistics() counts with series patch 3's rule unless mm_config.
 * zone_stats selects plain v4.6's.
 *
 *
 * Invariants: for BIND, PREFERRED and INTERLEAVE the policy's node set is
 * non-empty, has memory and lies in current->mems_allowed; each CPU's
 * il_next is a node of it (mm_check).  Error policy: setup_mempolicy()
 * returns NS_EINPUT / NS_ERANGE with a diag message for a policy that
 * set_mempolicy(2) refuses; the run-time functions cannot fail (a NULL
 * page is the simulated kernel's failure).
 *
 * Hot file (compiled into the fast copies, models/mm_copy.c): the set-up
 * (setup_mempolicy) is in mm_init.c, the policy names in mm_info.c.
 */
#include "models/mm_internal.h"

#include <string.h>

/* Words of a nodemask that the machine's node ids reach (MAX_NUMNODES of
 * the modelled kernel: NODES_SHIFT 6 gives one word for up to 64 nodes). */
static int node_words(const struct mm_world *w)
{
	return (w->m->nodes[w->m->nr_nodes - 1].id >> 6) + 1;
}

/* find_next_bit / find_first_bit over a nodemask (lib/find_bit.c, out of
 * line): the next set bit after n (n = -1: the first), MACHINE_MAX_NODES
 * if none.  Charges one load per word scanned. */
static int find_next_node(struct cpu *c, const struct mm_world *w, const uint64_t *mask,
			  uint64_t mask_addr, int n)
{
	call(c, w, FN_find_next_bit);
	run_block(c, w, B_find_next_bit);
	const struct mm_cpu *ci = &w->cpus[c->idx];
	int found = MACHINE_MAX_NODES;
	for (int k = (n + 1) >> 6; n + 1 < MACHINE_MAX_NODES && k < node_words(w); k++) {
		mem(c, w, mask_addr + (uint64_t)k * 8, ci->numa_node, CPU_LOAD_DEP);
		uint64_t word = mask[k];
		if (k == (n + 1) >> 6)
			word &= ~0ull << ((n + 1) & 63);
		if (word) {
			int b = 0;
			while (!(word & 1)) {
				word >>= 1;
				b++;
			}
			found = k * 64 + b;
			break;
		}
	}
	ret(c);
	return found;
}

/* interleave_nodes(pol): returns current->il_next and advances it to the
 * next node of the set, wrapping to first_node(). */
static int interleave_nodes(struct cpu *c, struct mm_world *w)
{
	struct mm_cpu *ci = &w->cpus[c->idx];
	call(c, w, FN_interleave_nodes);
	run_block(c, w, B_interleave_nodes);
	bmem(c, w, ci->task + TASK_IL_NEXT, ci->numa_node, CPU_LOAD_DEP);  /* il_next */
	int nid = ci->il_next;
	int next = find_next_node(c, w, w->mpol_mask, ci->mpol + MPOL_OFF_V, nid);
	if (br(c, w, S_A05a, next >= MACHINE_MAX_NODES))
		next = find_next_node(c, w, w->mpol_mask, ci->mpol + MPOL_OFF_V, -1);
	if (br(c, w, S_A05b, next < MACHINE_MAX_NODES)) {
		mem(c, w, ci->task + TASK_IL_NEXT, ci->numa_node, CPU_STORE);
		ci->il_next = next;
	}
	ret(c);
	return nid;
}

static struct pglist_data *node_of(const struct mm_world *w, int nid)
{
	return &w->nodes[w->m->node_index[nid]];
}

/* alloc_page_interleave(gfp, order, nid): node nid's zonelist, no
 * nodemask; NUMA_INTERLEAVE_HIT when the page came from the list's first
 * zone. */
static struct page *alloc_page_interleave(struct cpu *c, struct mm_world *w, uint32_t gfp,
					     unsigned order, int nid)
{
	call(c, w, FN_alloc_page_interleave);
	run_block(c, w, B_alloc_page_interleave);
	struct pglist_data *pn = node_of(w, nid);
	int kind = br(c, w, S_A06c, gfp & __GFP_THISNODE) ? ZONELIST_NOFALLBACK
							    : ZONELIST_FALLBACK;
	struct page *page = __alloc_pages_nodemask(c, w, gfp, order, pn, kind, NULL);
	struct zone *first = pn->zonerefs[kind][0].zone;
	if (page) {
		mem_page(c, w, page, CPU_LOAD);
		mem_zoneref(c, w, pn, kind, 0);
	}
	if (br(c, w, S_A05c, page && page_zone(w, page) == first))
		inc_zone_page_state(c, w, first, NUMA_INTERLEAVE_HIT);
	ret(c);
	return page;
}

/*
 * get_task_policy(current): the task's mempolicy when it has one, else
 * preferred_node_policy[numa_node_id()] (MPOL_PREFERRED of the local
 * node).  Charges the loads of current, p->mempolicy and the policy's mode.
 */
static void get_task_policy(struct cpu *c, struct mm_world *w)
{
	const struct mm_cpu *ci = &w->cpus[c->idx];
	call(c, w, FN_get_task_policy);
	/* current -> p->mempolicy (tested) -> ...mode (tested): a chain */
	mem(c, w, ci->percpu + PERCPU_CURRENT, ci->numa_node, CPU_LOAD_DEP);
	mem(c, w, ci->task + TASK_MEMPOLICY, ci->numa_node, CPU_LOAD_DEP);
	if (!br(c, w, S_A03a, w->cfg.mpol != MPOL_DEFAULT) && br(c, w, S_A03b, true)) {
		const struct pglist_data *pn = &w->nodes[ci->node_pos];
		mem(c, w, pn->policy_addr, w->m->nodes[0].id, CPU_LOAD_DEP);
		br(c, w, S_A03c, true);
	}
	ret(c);
}

/* policy_zonelist(gfp, pol, nd): which node's zonelist (and kind). */
static struct pglist_data *policy_zonelist(struct cpu *c, struct mm_world *w, uint32_t gfp,
				       enum mpol_mode mode, int *kind)
{
	const struct mm_cpu *ci = &w->cpus[c->idx];
	int nd = ci->numa_node;
	call(c, w, FN_policy_zonelist);
	/* pol->flags and pol->v share the line of pol->mode, loaded by the
	 * caller: charged once there */
	if (br(c, w, S_A06a, mode != MPOL_BIND)) {
		/* MPOL_PREFERRED (default, local, preferred) */
		if (br(c, w, S_A06b, mode != MPOL_LOCAL) && mode == MPOL_PREFERRED)
			nd = w->mpol_first;
	} else if (br(c, w, S_A06d, gfp & __GFP_THISNODE) && !node_isset(w->mpol_mask, nd)) {
		/* unreachable from alloc_pages_current (THISNODE takes the
		 * default policy); kept for the shape of the switch */
		nd = w->mpol_first;
	}
	*kind = br(c, w, S_A06c, gfp & __GFP_THISNODE) ? ZONELIST_NOFALLBACK : ZONELIST_FALLBACK;
	ret(c);
	return node_of(w, nd);
}

/* policy_nodemask(gfp, pol): the BIND nodes when the allocation's zone is
 * at least the dynamic policy zone and they intersect mems_allowed. */
static const uint64_t *policy_nodemask(struct cpu *c, struct mm_world *w, uint32_t gfp,
				       enum mpol_mode mode)
{
	const struct mm_cpu *ci = &w->cpus[c->idx];
	const uint64_t *mask = NULL;
	call(c, w, FN_policy_nodemask);
	if (br(c, w, S_A07, mode == MPOL_BIND) &&
	    br(c, w, S_A07b, gfp_zone(gfp) >= w->mpol_apply_zone)) {
		/* nodes_intersects(pol->v.nodes, current->mems_allowed):
		 * bitmap_intersects over the machine's node words */
		run_block(c, w, B_policy_nodemask);
		bool meet = false;
		for (int k = 0; k < node_words(w); k++) {
			mem(c, w, ci->mpol + MPOL_OFF_V + 8u * (unsigned)k, ci->numa_node, CPU_LOAD);
			mem(c, w, ci->task + TASK_MEMS_ALLOWED + 8u * (unsigned)k, ci->numa_node,
			    CPU_LOAD_DEP);
			meet |= (w->mpol_mask[k] & w->nodemask[k]) != 0;
		}
		if (br(c, w, S_A07c, meet))
			mask = w->mpol_mask;
	}
	ret(c);
	return mask;
}

/*
 * alloc_pages_current (mm/mempolicy.c v4.6): the task's policy (default_
 * policy in interrupt or with __GFP_THISNODE), then either
 * alloc_page_interleave(interleave_nodes()) or __alloc_pages_nodemask
 * with policy_zonelist() and policy_nodemask(), inside the cpuset
 * seqcount retry.
 */
struct page *alloc_pages_current(struct mm_world *w, struct cpu *c, uint32_t gfp,
				 unsigned int order)
{
	if (order >= MAX_ORDER)
		return NULL;
	memo_reset(w, c);
	call(c, w, FN_alloc_pages_current);
	run_block(c, w, B_alloc_pages_current);
	struct page *page;
	/* pol = &default_policy: MPOL_PREFERRED with MPOL_F_LOCAL, i.e. what
	 * the model calls LOCAL; get_task_policy() gives the task's policy or
	 * preferred_node_policy[nid] (DEFAULT: MPOL_PREFERRED, not F_LOCAL) */
	enum mpol_mode mode = MPOL_LOCAL;
	/* pol = &default_policy; if (!in_interrupt() && !THISNODE) get_task_policy */
	if (br(c, w, S_A02a, true) && br(c, w, S_A02b, !(gfp & __GFP_THISNODE))) {
		get_task_policy(c, w);
		mode = w->cfg.mpol;
		if (mode != MPOL_DEFAULT)           /* pol->mode of the task's policy */
			mem(c, w, w->cpus[c->idx].mpol + MPOL_OFF_MODE, c->node, CPU_LOAD_DEP);
	}
retry_cpuset:
	br(c, w, S_A04, cpusets_enabled(w));     /* read_mems_allowed_begin */
	if (br(c, w, S_A05, mode == MPOL_INTERLEAVE)) {
		page = alloc_page_interleave(c, w, gfp, order, interleave_nodes(c, w));
	} else {
		int kind;
		struct pglist_data *zl = policy_zonelist(c, w, gfp, mode, &kind);
		const uint64_t *mask = policy_nodemask(c, w, gfp, mode);
		page = __alloc_pages_nodemask(c, w, gfp, order, zl, kind, mask);
	}
	/* mems_allowed never changes during a run: the retry is not taken */
	if (br(c, w, S_A52, page == NULL) && br(c, w, S_A52b, false))
		goto retry_cpuset;
	ret(c);
	return page;
}
