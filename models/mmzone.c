/*
 * mmzone — the zonelist iterator of Linux v4.6/v4.7 (mm/mmzone.c,
 * include/linux/mmzone.h) in both variants of commit 682a3385 ("mm,
 * page_alloc: inline the fast path of the zonelist iterator"):
 * zref_in_nodemask; next_zones_zonelist, out of line in PRE (mm/mmzone.c)
 * and in POST the __always_inline wrapper of include/linux/mmzone.h whose
 * fast path (!nodes && zone_idx <= highest) returns the cursor, else the
 * out-of-line __next_zones_zonelist with PRE's body; first_zones_zonelist
 * (inline in both); for_each_zone_zonelist_nodemask as mm_zonelist_walk;
 * the variant names (mmzone_iter_name, mmzone_iter_parse).
 *
 * One code path serves both variants: the call, the branch sites nzl_*
 * and the work charged differ, and mm_layout() (page_alloc.c) marks
 * next_zones_zonelist inlined for POST only.
 *
 * Invariants: every zonelist ends in a sentinel zoneref (zone NULL,
 * zone_idx 0), so each walk stops on it; the functions return zoneref
 * indices into the list they were given.  Error policy: the iterator
 * cannot fail; mm_zonelist_walk() returns -1 for a node or zonelist kind
 * the world does not have.
 *
 * Hot file (compiled into the fast copies, models/mm_copy.c): the walk
 * mm_zonelist_walk and the variant names live in the cold half, mm_info.c.
 */
#include "models/mm_internal.h"

#include <string.h>

/* zref_in_nodemask(): z->zone->node (a load from the zone) + a bit test
 * of the nodemask (a load from it, e.g. current->mems_allowed). */
static bool zref_in_nodemask(struct cpu *c, const struct mm_world *w, const struct mm_zoneref *z,
			     const uint64_t *nodes)
{
	/* z->zone (in the zoneref just loaded) -> zone->node -> the mask word
	 * it indexes -> the branch: one chain */
	mem(c, w, z->zone->addr + ZOFF_NODE, z->zone->node, CPU_LOAD_DEP);
	int node = z->zone->node;
	const struct mm_cpu *ci = &w->cpus[c->idx];
	uint64_t mask_addr = (nodes == w->mpol_mask ? ci->mpol + MPOL_OFF_V
						    : ci->task + TASK_MEMS_ALLOWED) +
			     (uint64_t)(node >> 6) * 8;
	mem(c, w, mask_addr, ci->numa_node, CPU_LOAD_DEP);
	return node_isset(nodes, node);
}

/* The out-of-line body: next_zones_zonelist in PRE, __next_zones_zonelist
 * in POST (the diff renamed it, the body is unchanged). */
static int next_zones_zonelist_body(struct cpu *c, const struct mm_world *w,
				    const struct pglist_data *n, int kind, int i, int high,
				    const uint64_t *nodes)
{
	const struct mm_zoneref *zr = n->zonerefs[kind];
	run_block(c, w, B_nzl_body);
	if (br(c, w, S_nzl_nodes_null, nodes == NULL)) {
		for (;;) {
			mem_zoneref(c, w, n, kind, i);
			if (!br(c, w, S_nzl_idx, zr[i].zone_idx > high))
				break;
			run_block(c, w, B_nzl_step);
			i++;
		}
	} else {
		for (;;) {
			mem_zoneref(c, w, n, kind, i);
			if (br(c, w, S_nzl_mask_idx, zr[i].zone_idx > high) ||
			    (br(c, w, S_nzl_mask_zone, zr[i].zone != NULL) &&
			     br(c, w, S_nzl_mask_isset, !zref_in_nodemask(c, w, &zr[i], nodes)))) {
				run_block(c, w, B_nzl_mask_step);
				i++;
				continue;
			}
			break;
		}
	}
	return i;
}

/* next_zones_zonelist(z, highest_zoneidx, nodes) as the variant has it;
 * returns the zoneref index. */
int next_zones_zonelist(struct cpu *c, const struct mm_world *w,
			const struct pglist_data *n, int kind, int i, int high,
			const uint64_t *nodes)
{
	if (w->cfg.iter == MMZONE_ITER_PRE) {
		call(c, w, FN_next_zones_zonelist);
		i = next_zones_zonelist_body(c, w, n, kind, i, high, nodes);
		ret(c);
		return i;
	}
	/* POST: __always_inline wrapper */
	call(c, w, FN_next_zones_zonelist);
	run_block(c, w, B_nzl_inline);
	bool fast = br(c, w, S_nzl_inline_nodes, nodes == NULL);
	if (fast) {
		mem_zoneref(c, w, n, kind, i);
		fast = br(c, w, S_nzl_inline_idx, n->zonerefs[kind][i].zone_idx <= high);
	}
	if (!fast) {
		call(c, w, FN___next_zones_zonelist);
		i = next_zones_zonelist_body(c, w, n, kind, i, high, nodes);
		ret(c);
	}
	ret(c);
	return i;
}

/* first_zones_zonelist(zl, high, nodes, &zone): inline in both. */
int first_zones_zonelist(struct cpu *c, const struct mm_world *w,
			 const struct pglist_data *n, int kind, int high,
			 const uint64_t *nodes, struct zone **zone)
{
	call(c, w, FN_first_zones_zonelist);
	int i = next_zones_zonelist(c, w, n, kind, 0, high, nodes);
	*zone = n->zonerefs[kind][i].zone;
	ret(c);
	return i;
}
