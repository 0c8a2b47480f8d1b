/*
 * zonelist — the per-node allocation fallback lists of Linux v4.6/v4.7:
 * mm/page_alloc.c __build_all_zonelists(), build_zonelists(),
 * find_next_best_node(), build_zonelists_node(),
 * build_zonelists_in_zone_order() and build_thisnode_zonelists() (identical
 * in v4.6 and v4.7; mm/page_alloc.c of v4.6,
 * docs/design/pagealloc-model.md), plus the x86 boot facts that decide which nodes are online
 * and which CPUs belong to which node at build time
 * (arch/x86/mm/numa.c numa_register_memblks(), init_cpu_to_node(),
 * find_near_online_node()).
 *
 * Every online node gets two zonelists: ZONELIST_FALLBACK (all memory
 * nodes, in the order find_next_best_node() picks them) and
 * ZONELIST_NOFALLBACK (the node's own zones, used for __GFP_THISNODE).
 * A zoneref names a zone by (node id, zone type); the zone type is the
 * model's zone ordinal (enum zone_type), which orders zones exactly as the
 * kernel's zone_idx does, so "zone_idx <= high_zoneidx" filters give the
 * kernel's result.  Each list ends in a sentinel {node -1, zone_idx 0}: the
 * kernel's {zone NULL, zone_idx 0}, which is what stops the unfiltered
 * iterator scan.
 *
 * Invariants (checked by zonelist_check()):
 *   - every online node's fallback list holds every populated zone of every
 *     N_MEMORY node exactly once and nothing else, then the sentinel;
 *   - node order: a node's zones are contiguous, highest type first, nodes
 *     in node_order; zone order: zone types never increase along the list,
 *     nodes of one type in node_order;
 *   - node_order starts with the local node and is a permutation of
 *     {local} + N_MEMORY;
 *   - the nofallback list is the local node's populated zones, highest type
 *     first (empty for a memoryless node);
 *   - offline nodes have no lists; every CPU maps to an online node;
 *   - 0 <= node_load[n] < nr_online_nodes.
 *
 * Error policy: zonelist_build() returns NS_EINPUT (with a message in the
 * diag) when the options leave no node online (an x86 kernel would not
 * boot), NS_ENOMEM on allocation failure; it never asserts on the machine
 * beyond machine_check()'s invariants.  zonelist_check() returns
 * NS_EINTERNAL on a broken structure.
 */
#ifndef NUMASIM_ZONELIST_H
#define NUMASIM_ZONELIST_H

#include <stdbool.h>
#include <stdint.h>

#include "base/diag.h"
#include "machine/machine.h"

#define NUMA_NO_NODE (-1)
/* include/linux/topology.h; not overridden on x86. */
#define PENALTY_FOR_NODE_WITH_CPUS 1
/* arch/x86/include/asm/numa.h: smallest node x86 brings online, in bytes. */
#define NODE_MIN_SIZE (4u << 20)
/*
 * MAX_NUMNODES of the modelled kernel: node ids up to 1023 need
 * NODES_SHIFT=10 (MAXSMP).  Its value never changes an order (the load term
 * is below nr_online_nodes), it only scales the scores shown to users.
 */
#define ZONELIST_MAX_NUMNODES MACHINE_MAX_NODES

enum zonelist_kind {
	ZONELIST_FALLBACK,     /* node_zonelists[0]: all nodes */
	ZONELIST_NOFALLBACK,   /* node_zonelists[1]: __GFP_THISNODE */
	MAX_ZONELISTS
};

/* vm.numa_zonelist_order; "default" is node order on 64-bit kernels. */
enum zonelist_order {
	ZONELIST_ORDER_NODE,
	ZONELIST_ORDER_ZONE,
};

/* Are cpumask_of_node() masks filled when the zonelists are built? */
enum zonelist_cpus_at_build {
	ZONELIST_CPUS_GIVEN,   /* rebuild after boot (hotplug, sysctl) */
	ZONELIST_CPUS_NONE,    /* x86 boot build: masks still empty (ref 3.4) */
};

/* What happens to nodes without (enough) memory. */
enum zonelist_memoryless {
	ZONELIST_MEMORYLESS_ONLINE,      /* every listed node is online */
	ZONELIST_MEMORYLESS_OFFLINE_X86, /* < NODE_MIN_SIZE: offline, CPUs moved */
};

struct zonelist_opts {
	enum zonelist_order order;
	enum zonelist_cpus_at_build cpus_at_build;
	enum zonelist_memoryless memoryless;
};

/* The defaults: node order, CPUs given, memoryless nodes online. */
#define ZONELIST_OPTS_DEFAULT                                                  \
	((struct zonelist_opts){ZONELIST_ORDER_NODE, ZONELIST_CPUS_GIVEN,      \
				ZONELIST_MEMORYLESS_ONLINE})

/* Option names as the CLI and JSON spell them; parsers return -1 if unknown. */
const char *zonelist_order_name(enum zonelist_order o);
const char *zonelist_cpus_at_build_name(enum zonelist_cpus_at_build c);
const char *zonelist_memoryless_name(enum zonelist_memoryless m);
int zonelist_order_parse(const char *s);
int zonelist_cpus_at_build_parse(const char *s);
int zonelist_memoryless_parse(const char *s);

/* struct zoneref: the zone is (node, zone_idx); sentinel node is -1. */
struct zoneref {
	int node;
	enum zone_type zone_idx;
};

struct zonelist {
	int nr;                     /* zonerefs before the sentinel */
	struct zoneref *zonerefs;   /* nr + 1 entries; NULL for offline nodes */
};

/* One find_next_best_node() pick while building a node's list. */
struct zonelist_pick {
	int node;
	int distance;          /* node_distance(local, node) */
	int penalty_lower;     /* the "prefer the next node" +1 (node < local) */
	int penalty_cpus;      /* PENALTY_FOR_NODE_WITH_CPUS if it had CPUs */
	int node_load;         /* node_load[node] when it was picked */
	int64_t value;         /* the score compared (0 for the local node) */
	bool new_class;        /* distance class changed: node_load[node] = load */
	int load_set;          /* the value assigned if new_class */
};

struct zonelist_node {
	int id;
	bool online;
	bool memory;           /* in N_MEMORY (online, present pages) */
	int cpu_target;        /* offline node: find_near_online_node(), else id */
	int nr_build_cpus;     /* CPUs in cpumask_of_node() at build time */
	int nr_picks;          /* fallback node order (online nodes only) */
	struct zonelist_pick *picks;
	struct zonelist zonelists[MAX_ZONELISTS];
};

struct zonelists {
	const struct machine *m;    /* borrowed; must outlive this */
	struct zonelist_opts opts;
	int nr_online_nodes;
	int nr_memory_nodes;
	int nr_nodes;
	struct zonelist_node *nodes;  /* by machine position (ascending id) */
	int *node_load;               /* by position, after the whole build */
	int *cpu_to_node;             /* [m->max_cpu + 1]: effective node or -1 */
	enum zone_type policy_zone;   /* mempolicy's check_highest_zone() */
};

/* build_all_zonelists(): build every online node's lists for m. */
int zonelist_build(const struct machine *m, const struct zonelist_opts *opts,
		   struct zonelists **out, struct diag *d);
void zonelist_free(struct zonelists *zl);
int zonelist_check(const struct zonelists *zl, struct diag *d);

/* The node entry of node id, NULL if the machine has no such node. */
const struct zonelist_node *zonelist_node_of(const struct zonelists *zl, int id);
/* node_zonelist(): the list of an online node, NULL for offline/absent. */
const struct zonelist *zonelist_get(const struct zonelists *zl, int id,
				    enum zonelist_kind kind);

#endif
