/*
 * cpuset — the cpuset side of page allocation, Linux v4.6 kernel/cpuset.c
 * and include/linux/cpuset.h: __cpuset_node_allowed (behind
 * cpuset_zone_allowed when nr_cpusets() > 1) and the task's mems_allowed
 * as set-up (setup_nodemask; cpuset_current_mems_allowed).  The model's
 * only hierarchy is the root cpuset (the nearest hardwall ancestor has
 * every node) with the task's mems_allowed a subset of it; callback_lock
 * is one lock of the world.  cpusets_enabled() is the static key
 * cpusets_enabled_key: an inline of mm_internal.h reading
 * mm_config.cpusets_enabled at the sites that test it (A04, A10a, A15,
 * A24a).
 *
 * Invariants: w->nodemask holds only nodes with memory; without cpusets
 * (or without a mems_allowed list) it holds all of them.  Error policy:
 * setup_nodemask() returns NS_ERANGE / NS_EINPUT with a diag message for
 * a bad mems_allowed list; __cpuset_node_allowed() cannot fail.
 *
 * Hot file (compiled into the fast copies, models/mm_copy.c): the set-up
 * (setup_nodemask) is in mm_init.c.
 */
#include "models/mm_internal.h"

#include <string.h>

/* __cpuset_node_allowed (kernel/cpuset.c); the nearest hardwall ancestor
 * is the root cpuset (all nodes), the model's only hierarchy. */
bool __cpuset_node_allowed(struct cpu *c, struct mm_world *w, int node, uint32_t gfp)
{
	call(c, w, FN___cpuset_node_allowed);
	run_block(c, w, B_cpuset_node_allowed);
	bool allowed = true;
	const struct mm_cpu *ci = &w->cpus[c->idx];
	if (br(c, w, S_cpuset_in_interrupt, false))
		goto out;
	mem(c, w, ci->task + TASK_MEMS_ALLOWED + (uint64_t)(node >> 6) * 8, ci->numa_node,
	    CPU_LOAD_DEP);
	if (br(c, w, S_cpuset_isset, node_isset(w->nodemask, node)))
		goto out;
	mem(c, w, ci->task + TASK_FLAGS, ci->numa_node, CPU_LOAD_DEP);
	if (br(c, w, S_cpuset_memdie, false))
		goto out;
	if (br(c, w, S_cpuset_hardwall, gfp & __GFP_HARDWALL)) {
		allowed = false;
		goto out;
	}
	if (br(c, w, S_cpuset_exiting, false))
		goto out;
	irq_save(c);
	cpu_lock(c, &w->callback_lock);
	mem(c, w, w->callback_lock_addr, w->m->nodes[0].id, CPU_LOAD_DEP);
	cpu_unlock(c, &w->callback_lock);
	irq_restore(c);
out:
	ret(c);
	return allowed;
}
