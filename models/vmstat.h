/*
 * vmstat — the NUMA counting rules of zone_statistics(), see
 * models/vmstat.c.  Included by models/page_alloc.h.
 */
#ifndef NUMASIM_VMSTAT_H
#define NUMASIM_VMSTAT_H

/*
 * Which counting rule zone_statistics() follows.  SERIES (the default) is
 * the code of both modelled variants: series patch 3 (mainline
 * b9f00e147f27) counts NUMA_HIT + NUMA_LOCAL when the page's node is the
 * CPU's node (numa_node_id()), else NUMA_MISS on the page's zone and
 * NUMA_FOREIGN on the preferred zone, and no LOCAL/OTHER.  V46 is plain
 * v4.6 (and mainline again since the fix of b9f00e147f27): NUMA_HIT when
 * the page's node is the preferred zone's node, else NUMA_MISS on the zone
 * and NUMA_FOREIGN on the preferred zone; independently NUMA_LOCAL or
 * NUMA_OTHER against numa_node_id().  The two differ only when the
 * preferred zone is not on the CPU's node (bind/preferred/interleave to a
 * remote node) or on fallback.  docs/design/policies.md.
 */
enum vmstat_numa_rule { VMSTAT_NUMA_SERIES, VMSTAT_NUMA_V46 };
const char *vmstat_numa_rule_name(enum vmstat_numa_rule z); /* "b9f00e147f27", "v4.6" */
int vmstat_numa_rule_parse(const char *s);               /* -1 if unknown */

#endif
