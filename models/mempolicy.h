/*
 * mempolicy — the task mempolicies the model runs, see models/mempolicy.c.
 * Included by models/page_alloc.h.
 */
#ifndef NUMASIM_MEMPOLICY_H
#define NUMASIM_MEMPOLICY_H

/*
 * The task's mempolicy (mm/mempolicy.c v4.6, set_mempolicy(2) / numactl):
 * DEFAULT = no task policy (p->mempolicy NULL: the default policy,
 * preferred_node_policy[numa_node_id()], allocates on the local node);
 * LOCAL = MPOL_PREFERRED with MPOL_F_LOCAL (numactl --localalloc); BIND,
 * PREFERRED and INTERLEAVE with mm_config.mpol_nodes (numactl --membind,
 * --preferred, --interleave).
 */
enum mpol_mode {
	MPOL_DEFAULT,
	MPOL_LOCAL,
	MPOL_BIND,
	MPOL_PREFERRED,
	MPOL_INTERLEAVE,
};
const char *mpol_name(enum mpol_mode m);  /* "default", "local", ... */
int mpol_parse(const char *s);          /* -1 if unknown */

#endif
