/*
 * zonelist — kernel-exact zonelist construction; see zonelist.h.
 *
 * Follows mm/page_alloc.c of Linux v4.6 (unchanged in v4.7):
 * __build_all_zonelists() clears the one node_load[] array and calls
 * build_zonelists() for every online node in ascending id, so the lists
 * of later nodes depend on the node_load[] values earlier builds left
 * behind; find_next_best_node() scores candidates as
 *
 *     (distance + (n < local) + PENALTY_FOR_NODE_WITH_CPUS * has_cpus)
 *         * (nr_online_nodes * MAX_NUMNODES) + node_load[n]
 *
 * with a strict '<' (ties keep the lowest id), and build_zonelists()
 * assigns (not adds) node_load[node] = load to the first node of each new
 * distance class.  The x86 side (arch/x86/mm/numa.c v4.6) decides which
 * nodes are online (>= NODE_MIN_SIZE of memory) and where the CPUs of
 * offline nodes go (find_near_online_node()); cpumask_of_node() is empty
 * at the boot-time build on x86 (reference section 3.4), which the
 * cpus_at_build option selects.
 *
 * Design notes: the model works on node ids like the kernel (the machine
 * maps id -> position); the kernel's global node_load[] and
 * static node_order[] live in a build context so two builds never share
 * state.  All arrays are sized from the machine up front; nothing is
 * allocated inside the build loops.
 */
#include "models/zonelist.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

struct build_ctx {
	struct zonelists *zl;
	const struct machine *m;
	bool *used;            /* used_node_mask, by position */
	int *node_order;       /* zone-order scratch (kernel: static node_order[]) */
};

static int pos_of(const struct machine *m, int id)
{
	return m->node_index[id];
}

static int node_distance(const struct machine *m, int from, int to)
{
	return machine_distance(m, from, to);
}

/* Pages of one zone type on a node, 0 when unpopulated (populated_zone()). */
static uint64_t zone_present_pages(const struct machine_node *mn, enum zone_type t)
{
	for (int i = 0; i < mn->nr_zones; i++)
		if (mn->zones[i].type == t)
			return mn->zones[i].pages;
	return 0;
}

/* mm/mempolicy.c check_highest_zone(): policy_zone ignores ZONE_MOVABLE. */
static void check_highest_zone(struct zonelists *zl, enum zone_type k)
{
	if (k > zl->policy_zone && k != ZONE_MOVABLE)
		zl->policy_zone = k;
}

static void zonelist_terminate(struct zonelist *z)
{
	z->zonerefs[z->nr].node = NUMA_NO_NODE;
	z->zonerefs[z->nr].zone_idx = (enum zone_type)0;
}

/*
 * build_zonelists_node(): append node's populated zones, highest zone type
 * first (so Normal overflows into DMA32, then DMA).
 */
static void build_zonelists_node(struct zonelists *zl, int node, struct zonelist *z)
{
	const struct machine_node *mn = &zl->m->nodes[pos_of(zl->m, node)];
	for (int t = NR_ZONE_TYPES - 1; t >= 0; t--) {
		if (!zone_present_pages(mn, (enum zone_type)t))
			continue;
		z->zonerefs[z->nr].node = node;
		z->zonerefs[z->nr].zone_idx = (enum zone_type)t;
		z->nr++;
		check_highest_zone(zl, (enum zone_type)t);
	}
	zonelist_terminate(z);
}

/* arch/x86/mm/numa.c find_near_online_node(): strict '<', lowest id wins. */
static int find_near_online_node(const struct zonelists *zl, int node)
{
	int min_val = MACHINE_DISTANCE_UNREACHABLE + 1, best = NUMA_NO_NODE;
	for (int p = 0; p < zl->nr_nodes; p++) {
		if (!zl->nodes[p].online)
			continue;
		int val = node_distance(zl->m, node, zl->nodes[p].id);
		if (val < min_val) {
			min_val = val;
			best = zl->nodes[p].id;
		}
	}
	return best;
}

/*
 * x86 numa_register_memblks(): alloc_node_data() (and node_set_online())
 * only for nodes with at least NODE_MIN_SIZE of memory.  In "online" mode
 * (CONFIG_HAVE_MEMORYLESS_NODES architectures) every listed node is online.
 * N_MEMORY is set later, for online nodes with present pages.
 */
static int numa_register_memblks(struct zonelists *zl, struct diag *d)
{
	const struct machine *m = zl->m;
	for (int p = 0; p < m->nr_nodes; p++) {
		struct zonelist_node *zn = &zl->nodes[p];
		const struct machine_node *mn = &m->nodes[p];
		uint64_t bytes = mn->mem_pages * (uint64_t)m->page_size;
		zn->id = mn->id;
		zn->online = zl->opts.memoryless == ZONELIST_MEMORYLESS_ONLINE ||
			     bytes >= NODE_MIN_SIZE;
		zn->memory = zn->online && mn->mem_pages > 0;
		zl->nr_online_nodes += zn->online;
		zl->nr_memory_nodes += zn->memory;
	}
	if (zl->nr_online_nodes == 0)
		return diag_set(d, NS_EINPUT, m->path, 0, 0,
				"no node has at least %u MiB of memory: an x86 kernel "
				"brings no node online (--memoryless offline-x86)",
				NODE_MIN_SIZE >> 20);
	return NS_OK;
}

/*
 * x86 init_cpu_to_node() + numa_add_cpu(): a CPU of an offline node is
 * moved to the nearest online node, and cpumask_of_node() of that node
 * then includes it (once the masks are filled, i.e. not at the boot build).
 */
static void init_cpu_to_node(struct zonelists *zl)
{
	const struct machine *m = zl->m;
	for (int p = 0; p < zl->nr_nodes; p++) {
		struct zonelist_node *zn = &zl->nodes[p];
		zn->cpu_target = zn->online ? zn->id : find_near_online_node(zl, zn->id);
	}
	for (int cpu = 0; cpu <= m->max_cpu; cpu++) {
		int node = m->cpu_node[cpu];
		if (node < 0) {
			zl->cpu_to_node[cpu] = NUMA_NO_NODE;
			continue;
		}
		node = zl->nodes[pos_of(m, node)].cpu_target;
		zl->cpu_to_node[cpu] = node;
		if (zl->opts.cpus_at_build == ZONELIST_CPUS_GIVEN)
			zl->nodes[pos_of(m, node)].nr_build_cpus++;
	}
}

/*
 * find_next_best_node(): the local node first (even without memory), then
 * the N_MEMORY node with the smallest score; records the pick in *pick.
 */
static int find_next_best_node(struct build_ctx *c, int node,
			       struct zonelist_pick *pick)
{
	struct zonelists *zl = c->zl;
	const int64_t scale = (int64_t)zl->nr_online_nodes * ZONELIST_MAX_NUMNODES;
	int64_t min_val = INT64_MAX;
	int best_node = NUMA_NO_NODE;
	int local = pos_of(c->m, node);

	if (!c->used[local]) {
		c->used[local] = true;
		*pick = (struct zonelist_pick){.node = node,
			.distance = node_distance(c->m, node, node),
			.node_load = zl->node_load[local]};
		return node;
	}
	for (int p = 0; p < zl->nr_nodes; p++) {
		int n = zl->nodes[p].id;
		if (!zl->nodes[p].memory || c->used[p])
			continue;
		int dist = node_distance(c->m, node, n);
		int lower = n < node;  /* penalize nodes under us */
		int cpus = zl->nodes[p].nr_build_cpus ? PENALTY_FOR_NODE_WITH_CPUS : 0;
		int64_t val = (int64_t)(dist + lower + cpus) * scale + zl->node_load[p];
		if (val < min_val) {
			min_val = val;
			best_node = n;
			*pick = (struct zonelist_pick){.node = n, .distance = dist,
				.penalty_lower = lower, .penalty_cpus = cpus,
				.node_load = zl->node_load[p], .value = val};
		}
	}
	if (best_node >= 0)
		c->used[pos_of(c->m, best_node)] = true;
	return best_node;
}

/* build_zonelists_in_node_order(): append node's block to the fallback list. */
static void build_zonelists_in_node_order(struct zonelists *zl,
					  struct zonelist_node *zn, int node)
{
	build_zonelists_node(zl, node, &zn->zonelists[ZONELIST_FALLBACK]);
}

/*
 * build_zonelists_in_zone_order(): zone type outer loop (highest first),
 * nodes in node_order inner loop, so DMA is spared until Normal is gone
 * everywhere.
 */
static void build_zonelists_in_zone_order(struct build_ctx *c,
					  struct zonelist_node *zn, int nr_nodes)
{
	struct zonelist *z = &zn->zonelists[ZONELIST_FALLBACK];
	for (int t = NR_ZONE_TYPES - 1; t >= 0; t--) {
		for (int j = 0; j < nr_nodes; j++) {
			int node = c->node_order[j];
			const struct machine_node *mn = &c->m->nodes[pos_of(c->m, node)];
			if (!zone_present_pages(mn, (enum zone_type)t))
				continue;
			z->zonerefs[z->nr].node = node;
			z->zonerefs[z->nr].zone_idx = (enum zone_type)t;
			z->nr++;
			check_highest_zone(c->zl, (enum zone_type)t);
		}
	}
	zonelist_terminate(z);
}

/* build_thisnode_zonelists(): __GFP_THISNODE uses the local zones only. */
static void build_thisnode_zonelists(struct zonelists *zl, struct zonelist_node *zn)
{
	build_zonelists_node(zl, zn->id, &zn->zonelists[ZONELIST_NOFALLBACK]);
}

/* build_zonelists(): one online node's lists. */
static void build_zonelists(struct build_ctx *c, struct zonelist_node *zn)
{
	struct zonelists *zl = c->zl;
	int local_node = zn->id, prev_node = zn->id, node, j = 0;
	int load = zl->nr_online_nodes;

	for (int k = 0; k < MAX_ZONELISTS; k++) {
		zn->zonelists[k].nr = 0;
		zonelist_terminate(&zn->zonelists[k]);
	}
	memset(c->used, 0, sizeof c->used[0] * (size_t)zl->nr_nodes);
	zn->nr_picks = 0;

	struct zonelist_pick pick;
	while ((node = find_next_best_node(c, local_node, &pick)) >= 0) {
		/*
		 * "We don't want to pressure a particular node.  So adding
		 * penalty to the first node in same distance group to make it
		 * round-robin."  Assignment, not +=.
		 */
		if (node_distance(c->m, local_node, node) !=
		    node_distance(c->m, local_node, prev_node)) {
			zl->node_load[pos_of(c->m, node)] = load;
			pick.new_class = true;
			pick.load_set = load;
		}
		zn->picks[zn->nr_picks++] = pick;
		prev_node = node;
		load--;
		if (zl->opts.order == ZONELIST_ORDER_NODE)
			build_zonelists_in_node_order(zl, zn, node);
		else
			c->node_order[j++] = node;
	}
	if (zl->opts.order == ZONELIST_ORDER_ZONE)
		build_zonelists_in_zone_order(c, zn, j);
	build_thisnode_zonelists(zl, zn);
}

/* __build_all_zonelists(NULL): node_load[] cleared once, then every online node. */
static void __build_all_zonelists(struct build_ctx *c)
{
	struct zonelists *zl = c->zl;
	memset(zl->node_load, 0, sizeof zl->node_load[0] * (size_t)zl->nr_nodes);
	for (int p = 0; p < zl->nr_nodes; p++)
		if (zl->nodes[p].online)
			build_zonelists(c, &zl->nodes[p]);
}

static int alloc_node_lists(struct zonelists *zl, struct zonelist_node *zn)
{
	size_t fallback = (size_t)zl->nr_memory_nodes * NR_ZONE_TYPES + 1;
	zn->picks = calloc((size_t)zl->nr_memory_nodes + 1, sizeof *zn->picks);
	zn->zonelists[ZONELIST_FALLBACK].zonerefs =
		calloc(fallback, sizeof(struct zoneref));
	zn->zonelists[ZONELIST_NOFALLBACK].zonerefs =
		calloc(NR_ZONE_TYPES + 1, sizeof(struct zoneref));
	if (!zn->picks || !zn->zonelists[ZONELIST_FALLBACK].zonerefs ||
	    !zn->zonelists[ZONELIST_NOFALLBACK].zonerefs)
		return NS_ENOMEM;
	return NS_OK;
}

int zonelist_build(const struct machine *m, const struct zonelist_opts *opts,
		   struct zonelists **out, struct diag *d)
{
	struct build_ctx c = {0};
	struct zonelists *zl = calloc(1, sizeof *zl);
	int rc = NS_ENOMEM;

	*out = NULL;
	if (!zl)
		goto out;
	zl->m = m;
	zl->opts = opts ? *opts : ZONELIST_OPTS_DEFAULT;
	zl->nr_nodes = m->nr_nodes;
	zl->policy_zone = ZONE_DMA;
	zl->nodes = calloc((size_t)m->nr_nodes, sizeof *zl->nodes);
	zl->node_load = calloc((size_t)m->nr_nodes, sizeof *zl->node_load);
	/* + 2: a machine without CPUs (max_cpu -1) still gets a valid array */
	zl->cpu_to_node = calloc((size_t)(m->max_cpu + 2), sizeof *zl->cpu_to_node);
	c.used = calloc((size_t)m->nr_nodes, sizeof *c.used);
	c.node_order = calloc((size_t)m->nr_nodes, sizeof *c.node_order);
	if (!zl->nodes || !zl->node_load || !zl->cpu_to_node || !c.used ||
	    !c.node_order)
		goto out;
	rc = numa_register_memblks(zl, d);
	if (rc != NS_OK)
		goto out;
	rc = NS_ENOMEM;
	for (int p = 0; p < zl->nr_nodes; p++)
		if (zl->nodes[p].online && alloc_node_lists(zl, &zl->nodes[p]) != NS_OK)
			goto out;
	init_cpu_to_node(zl);
	c.zl = zl;
	c.m = m;
	__build_all_zonelists(&c);
	assert(zonelist_check(zl, NULL) == NS_OK);
	rc = NS_OK;
	*out = zl;
	zl = NULL;
out:
	if (rc == NS_ENOMEM)
		diag_set(d, rc, m->path, 0, 0, "out of memory building zonelists");
	free(c.used);
	free(c.node_order);
	zonelist_free(zl);
	return rc;
}

void zonelist_free(struct zonelists *zl)
{
	if (!zl)
		return;
	for (int p = 0; zl->nodes && p < zl->nr_nodes; p++) {
		free(zl->nodes[p].picks);
		for (int k = 0; k < MAX_ZONELISTS; k++)
			free(zl->nodes[p].zonelists[k].zonerefs);
	}
	free(zl->nodes);
	free(zl->node_load);
	free(zl->cpu_to_node);
	free(zl);
}

const struct zonelist_node *zonelist_node_of(const struct zonelists *zl, int id)
{
	if (id < 0 || id >= MACHINE_MAX_NODES || zl->m->node_index[id] < 0)
		return NULL;
	return &zl->nodes[zl->m->node_index[id]];
}

const struct zonelist *zonelist_get(const struct zonelists *zl, int id,
				    enum zonelist_kind kind)
{
	const struct zonelist_node *zn = zonelist_node_of(zl, id);
	if (!zn || !zn->online || (unsigned)kind >= MAX_ZONELISTS)
		return NULL;
	return &zn->zonelists[kind];
}

/* ---- option names ---- */

static const char *const order_names[] = {"node", "zone"};
static const char *const cpus_names[] = {"given", "none"};
static const char *const memoryless_names[] = {"online", "offline-x86"};

static int name_parse(const char *const *names, int n, const char *s)
{
	for (int i = 0; s && i < n; i++)
		if (!strcmp(s, names[i]))
			return i;
	return -1;
}

#define NAME_AT(tab, v) ((unsigned)(v) < sizeof tab / sizeof tab[0] ? tab[v] : "?")

const char *zonelist_order_name(enum zonelist_order o)
{
	return NAME_AT(order_names, o);
}

const char *zonelist_cpus_at_build_name(enum zonelist_cpus_at_build c)
{
	return NAME_AT(cpus_names, c);
}

const char *zonelist_memoryless_name(enum zonelist_memoryless m)
{
	return NAME_AT(memoryless_names, m);
}

int zonelist_order_parse(const char *s)
{
	return name_parse(order_names, 2, s);
}

int zonelist_cpus_at_build_parse(const char *s)
{
	return name_parse(cpus_names, 2, s);
}

int zonelist_memoryless_parse(const char *s)
{
	return name_parse(memoryless_names, 2, s);
}

/* ---- invariant walker ---- */

#define CHECK(cond, ...)                                                       \
	do {                                                                   \
		if (!(cond))                                                   \
			return diag_set(d, NS_EINTERNAL, "zonelist", 0, 0,     \
					__VA_ARGS__);                          \
	} while (0)

static int check_sentinel(const struct zonelist *z, int id, const char *what,
			  struct diag *d)
{
	CHECK(z->zonerefs, "node %d: %s list missing", id, what);
	CHECK(z->zonerefs[z->nr].node == NUMA_NO_NODE &&
		      z->zonerefs[z->nr].zone_idx == 0,
	      "node %d: %s list has no {NULL, 0} sentinel at %d", id, what, z->nr);
	return NS_OK;
}

/*
 * Scratch of the walker, sized once per check: rank[pos] is a node's place
 * in the pick order being checked (-1 if not picked), seen[pos *
 * NR_ZONE_TYPES + type] counts a zone's appearances in the list being
 * checked.  Keeps the walk linear in the list length, so machines with
 * hundreds of nodes stay cheap to check.
 */
struct check_scratch {
	int *rank;
	int *seen;
};

static int check_picks(const struct zonelists *zl, const struct zonelist_node *zn,
		       struct check_scratch *s, struct diag *d)
{
	const struct machine *m = zl->m;
	int want = zl->nr_memory_nodes + !zn->memory;

	for (int p = 0; p < zl->nr_nodes; p++)
		s->rank[p] = -1;
	CHECK(zn->nr_picks == want, "node %d: %d nodes in its order, expected %d",
	      zn->id, zn->nr_picks, want);
	CHECK(zn->picks[0].node == zn->id, "node %d: order starts with node %d",
	      zn->id, zn->picks[0].node);
	for (int i = 0; i < zn->nr_picks; i++) {
		int n = zn->picks[i].node;
		const struct zonelist_node *o = zonelist_node_of(zl, n);
		CHECK(o && (o->memory || n == zn->id),
		      "node %d: order holds node %d, not a memory node", zn->id, n);
		CHECK(s->rank[pos_of(m, n)] < 0, "node %d: node %d picked twice",
		      zn->id, n);
		s->rank[pos_of(m, n)] = i;
		CHECK(zn->picks[i].distance == machine_distance(m, zn->id, n),
		      "node %d: pick %d has a wrong distance", zn->id, n);
	}
	return NS_OK;
}

/* Needs s->rank from check_picks() of the same node. */
static int check_fallback(const struct zonelists *zl, const struct zonelist_node *zn,
			  struct check_scratch *s, struct diag *d)
{
	const struct machine *m = zl->m;
	const struct zonelist *z = &zn->zonelists[ZONELIST_FALLBACK];
	int expected = 0, rc;

	if ((rc = check_sentinel(z, zn->id, "fallback", d)) != NS_OK)
		return rc;
	memset(s->seen, 0, sizeof *s->seen * (size_t)zl->nr_nodes * NR_ZONE_TYPES);
	for (int i = 0; i < z->nr; i++) {
		const struct zoneref *b = &z->zonerefs[i];
		CHECK(zonelist_node_of(zl, b->node) &&
			      (unsigned)b->zone_idx < NR_ZONE_TYPES,
		      "node %d: fallback entry %d names no zone", zn->id, i);
		int pb = pos_of(m, b->node);
		s->seen[pb * NR_ZONE_TYPES + (int)b->zone_idx]++;
		CHECK(s->rank[pb] >= 0, "node %d: fallback zone of unpicked node %d",
		      zn->id, b->node);
	}
	for (int p = 0; p < zl->nr_nodes; p++) {
		const struct machine_node *mn = &m->nodes[p];
		int want = zl->nodes[p].memory ? 1 : 0;
		for (int k = 0; k < mn->nr_zones; k++) {
			int count = s->seen[p * NR_ZONE_TYPES + (int)mn->zones[k].type];
			CHECK(count == want,
			      "node %d: zone %s of node %d appears %d times in the "
			      "fallback list, expected %d",
			      zn->id, zone_type_name(mn->zones[k].type), mn->id, count,
			      want);
			expected += want;
		}
	}
	/* so no entry names an absent zone */
	CHECK(z->nr == expected, "node %d: fallback list has %d zones, expected %d",
	      zn->id, z->nr, expected);
	for (int i = 1; i < z->nr; i++) {
		const struct zoneref *a = &z->zonerefs[i - 1], *b = &z->zonerefs[i];
		int ra = s->rank[pos_of(m, a->node)], rb = s->rank[pos_of(m, b->node)];
		if (zl->opts.order == ZONELIST_ORDER_NODE)
			CHECK(ra < rb || (ra == rb && a->zone_idx > b->zone_idx),
			      "node %d: fallback entry %d breaks node order", zn->id, i);
		else
			CHECK(a->zone_idx > b->zone_idx ||
				      (a->zone_idx == b->zone_idx && ra < rb),
			      "node %d: fallback entry %d breaks zone order", zn->id, i);
	}
	return NS_OK;
}

static int check_nofallback(const struct zonelists *zl,
			    const struct zonelist_node *zn, struct diag *d)
{
	const struct zonelist *z = &zn->zonelists[ZONELIST_NOFALLBACK];
	const struct machine_node *mn = &zl->m->nodes[pos_of(zl->m, zn->id)];
	int rc;

	if ((rc = check_sentinel(z, zn->id, "nofallback", d)) != NS_OK)
		return rc;
	CHECK(z->nr == mn->nr_zones, "node %d: nofallback list has %d zones, not %d",
	      zn->id, z->nr, mn->nr_zones);
	for (int i = 0; i < z->nr; i++)
		CHECK(z->zonerefs[i].node == zn->id &&
			      z->zonerefs[i].zone_idx == mn->zones[mn->nr_zones - 1 - i].type,
		      "node %d: nofallback entry %d is not the local zone expected",
		      zn->id, i);
	return NS_OK;
}

static int check_cpus(const struct zonelists *zl, struct diag *d)
{
	const struct machine *m = zl->m;
	for (int cpu = 0; cpu <= m->max_cpu; cpu++) {
		int node = zl->cpu_to_node[cpu];
		if (m->cpu_node[cpu] < 0) {
			CHECK(node == NUMA_NO_NODE, "cpu %d is absent but mapped", cpu);
			continue;
		}
		const struct zonelist_node *zn = zonelist_node_of(zl, node);
		CHECK(zn && zn->online, "cpu %d maps to node %d, which is not online",
		      cpu, node);
	}
	return NS_OK;
}

static int check_nodes(const struct zonelists *zl, struct check_scratch *s,
		       struct diag *d)
{
	int online = 0, memory = 0, rc;

	for (int p = 0; p < zl->nr_nodes; p++) {
		const struct zonelist_node *zn = &zl->nodes[p];
		const struct machine_node *mn = &zl->m->nodes[p];
		CHECK(zn->id == mn->id, "node at position %d has id %d, machine %d", p,
		      zn->id, mn->id);
		CHECK(!zn->memory || (zn->online && mn->mem_pages > 0),
		      "node %d: N_MEMORY without being online with memory", zn->id);
		CHECK(zn->memory || !zn->online || mn->mem_pages == 0,
		      "node %d: online with memory but not in N_MEMORY", zn->id);
		CHECK(zl->node_load[p] >= 0 && zl->node_load[p] < zl->nr_online_nodes,
		      "node %d: node_load %d out of [0, %d)", zn->id, zl->node_load[p],
		      zl->nr_online_nodes);
		online += zn->online;
		memory += zn->memory;
		if (!zn->online) {
			CHECK(!zn->zonelists[0].zonerefs && !zn->zonelists[1].zonerefs,
			      "offline node %d has zonelists", zn->id);
			const struct zonelist_node *t = zonelist_node_of(zl, zn->cpu_target);
			CHECK(t && t->online, "offline node %d: CPUs map to node %d",
			      zn->id, zn->cpu_target);
			continue;
		}
		CHECK(zn->cpu_target == zn->id, "online node %d moves its CPUs", zn->id);
		if ((rc = check_picks(zl, zn, s, d)) != NS_OK ||
		    (rc = check_fallback(zl, zn, s, d)) != NS_OK ||
		    (rc = check_nofallback(zl, zn, d)) != NS_OK)
			return rc;
	}
	CHECK(online == zl->nr_online_nodes && online > 0,
	      "nr_online_nodes %d, counted %d", zl->nr_online_nodes, online);
	CHECK(memory == zl->nr_memory_nodes, "nr_memory_nodes %d, counted %d",
	      zl->nr_memory_nodes, memory);
	return check_cpus(zl, d);
}

int zonelist_check(const struct zonelists *zl, struct diag *d)
{
	struct check_scratch s = {0};
	int rc;

	CHECK(zl && zl->m && zl->nr_nodes == zl->m->nr_nodes && zl->nodes,
	      "bad zonelists header");
	s.rank = malloc(sizeof *s.rank * (size_t)zl->nr_nodes);
	s.seen = malloc(sizeof *s.seen * (size_t)zl->nr_nodes * NR_ZONE_TYPES);
	if (!s.rank || !s.seen)
		rc = diag_set(d, NS_ENOMEM, "zonelist", 0, 0, "out of memory");
	else
		rc = check_nodes(zl, &s, d);
	free(s.rank);
	free(s.seen);
	return rc;
}
