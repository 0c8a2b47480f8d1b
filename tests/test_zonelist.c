/*
 * Tests for models/zonelist: v4.6 build_all_zonelists() on hand-worked
 * topologies, and a property test against an independent brute-force
 * re-implementation written from v4.6's build_zonelists() and
 * find_next_best_node() (mm/page_alloc.c) on thousands of
 * seeded random topologies.
 *
 * Machines are built in memory (tm_build) and must pass machine_check(),
 * so these tests exercise the model without going through the YAML loader.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/diag.h"
#include "machine/machine.h"
#include "models/zonelist.h"

/* ---- building machines in memory ---- */

#define TM_MAX_CPUS 16

struct tnode {
	int id;
	int nr_cpus;
	int cpus[TM_MAX_CPUS];
	uint64_t zones[NR_ZONE_TYPES];  /* pages per zone type, 0 = absent */
};

static char *xstrdup(const char *s)
{
	char *p = strdup(s);
	assert_non_null(p);
	return p;
}

static void tm_costs(struct machine_costs *c)
{
#define TM_COST(field, unit, desc) c->field = (struct cost_figure){1.0, xstrdup("test"), 0, 0};
	MACHINE_COST_MAP(TM_COST)
#undef TM_COST
	c->nr_memory_latency = 1;
	c->memory_latency = calloc(1, sizeof *c->memory_latency);
	c->nr_line_transfer = 1;
	c->line_transfer = calloc(1, sizeof *c->line_transfer);
	assert_non_null(c->memory_latency);
	assert_non_null(c->line_transfer);
	c->memory_latency[0] = (struct latency_point){10, 80.0, xstrdup("test")};
	c->line_transfer[0] = (struct latency_point){10, 40.0, xstrdup("test")};
}

/* A machine from nodes (ascending ids) and an nr x nr distance matrix. */
static struct machine *tm_build(int nr, const struct tnode *tn, const int *dist)
{
	struct machine *m = calloc(1, sizeof *m);
	assert_non_null(m);
	m->path = xstrdup("test-machine");
	m->name = xstrdup("test");
	m->description = xstrdup("built by test_zonelist");
	m->page_size = 4096;
	m->nr_nodes = nr;
	m->nodes = calloc((size_t)nr, sizeof *m->nodes);
	m->distance = calloc((size_t)nr * (size_t)nr, sizeof *m->distance);
	assert_non_null(m->nodes);
	assert_non_null(m->distance);
	for (int i = 0; i < MACHINE_MAX_NODES; i++)
		m->node_index[i] = -1;
	m->max_cpu = -1;
	for (int p = 0; p < nr; p++) {
		struct machine_node *mn = &m->nodes[p];
		mn->id = tn[p].id;
		m->node_index[mn->id] = p;
		mn->nr_cpus = tn[p].nr_cpus;
		if (mn->nr_cpus) {
			mn->cpus = calloc((size_t)mn->nr_cpus, sizeof *mn->cpus);
			assert_non_null(mn->cpus);
			memcpy(mn->cpus, tn[p].cpus, sizeof(int) * (size_t)mn->nr_cpus);
		}
		for (int c = 0; c < mn->nr_cpus; c++)
			if (mn->cpus[c] > m->max_cpu)
				m->max_cpu = mn->cpus[c];
		m->nr_cpus += mn->nr_cpus;
		for (int t = 0; t < NR_ZONE_TYPES; t++) {
			if (!tn[p].zones[t])
				continue;
			mn->zones[mn->nr_zones].type = (enum zone_type)t;
			mn->zones[mn->nr_zones++].pages = tn[p].zones[t];
			mn->mem_pages += tn[p].zones[t];
		}
	}
	m->cpu_node = malloc(sizeof *m->cpu_node * (size_t)(m->max_cpu + 1));
	assert_true(m->max_cpu < 0 || m->cpu_node);
	for (int c = 0; c <= m->max_cpu; c++)
		m->cpu_node[c] = -1;
	for (int p = 0; p < nr; p++)
		for (int c = 0; c < m->nodes[p].nr_cpus; c++)
			m->cpu_node[m->nodes[p].cpus[c]] = m->nodes[p].id;
	memcpy(m->distance, dist, sizeof(int) * (size_t)nr * (size_t)nr);
	tm_costs(&m->costs);
	/* the same invariants the YAML loader guarantees */
	struct diag d;
	diag_init(&d);
	if (machine_check(m, &d) != NS_OK)
		fail_msg("test machine breaks machine_check(): %s", d.msg);
	return m;
}

/* tm_build allocates exactly what machine_free() releases. */
static void tm_free(struct machine *m)
{
	machine_free(m);
}

/* ---- formatting lists for readable assertions ---- */

static const char *const zname[NR_ZONE_TYPES] = {"DMA", "DMA32", "Normal",
						 "HighMem", "Movable"};

static const char *fmt_list(const struct zonelist *z, char *buf, size_t len)
{
	size_t off = 0;
	buf[0] = '\0';
	for (int i = 0; i < z->nr && off < len; i++)
		off += (size_t)snprintf(buf + off, len - off, "%s%s@%d", i ? " " : "",
					zname[z->zonerefs[i].zone_idx],
					z->zonerefs[i].node);
	return buf;
}

static const char *fmt_order(const struct zonelist_node *zn, char *buf, size_t len)
{
	size_t off = 0;
	buf[0] = '\0';
	for (int i = 0; i < zn->nr_picks && off < len; i++)
		off += (size_t)snprintf(buf + off, len - off, "%s%d", i ? " " : "",
					zn->picks[i].node);
	return buf;
}

static struct zonelists *build_ok(const struct machine *m, struct zonelist_opts o)
{
	struct zonelists *zl = NULL;
	struct diag d;
	diag_init(&d);
	int rc = zonelist_build(m, &o, &zl, &d);
	if (rc != NS_OK)
		diag_print(&d, stderr);
	assert_int_equal(rc, NS_OK);
	assert_non_null(zl);
	rc = zonelist_check(zl, &d);
	if (rc != NS_OK)
		diag_print(&d, stderr);
	assert_int_equal(rc, NS_OK);
	return zl;
}

static void expect_order(const struct zonelists *zl, int id, const char *want)
{
	char buf[256];
	const struct zonelist_node *zn = zonelist_node_of(zl, id);
	assert_non_null(zn);
	assert_string_equal(fmt_order(zn, buf, sizeof buf), want);
}

static void expect_list(const struct zonelists *zl, int id, enum zonelist_kind k,
			const char *want)
{
	char buf[512];
	const struct zonelist *z = zonelist_get(zl, id, k);
	assert_non_null(z);
	assert_string_equal(fmt_list(z, buf, sizeof buf), want);
}

#define GiB_PAGES (1ull << 18)  /* 4 KiB pages */
#define NODE(i, ...) {.id = (i), __VA_ARGS__}
#define NORMAL(n) .zones = {[ZONE_NORMAL] = (n)}
#define CPUS2(a, b) .nr_cpus = 2, .cpus = {(a), (b)}

static const struct zonelist_opts OPT_NODE = {ZONELIST_ORDER_NODE,
	ZONELIST_CPUS_GIVEN, ZONELIST_MEMORYLESS_ONLINE};
static const struct zonelist_opts OPT_ZONE = {ZONELIST_ORDER_ZONE,
	ZONELIST_CPUS_GIVEN, ZONELIST_MEMORYLESS_ONLINE};
static const struct zonelist_opts OPT_NOCPUS = {ZONELIST_ORDER_NODE,
	ZONELIST_CPUS_NONE, ZONELIST_MEMORYLESS_ONLINE};
static const struct zonelist_opts OPT_X86 = {ZONELIST_ORDER_NODE,
	ZONELIST_CPUS_GIVEN, ZONELIST_MEMORYLESS_OFFLINE_X86};
static const struct zonelist_opts OPT_X86_BOOT = {ZONELIST_ORDER_NODE,
	ZONELIST_CPUS_NONE, ZONELIST_MEMORYLESS_OFFLINE_X86};

/* ---- hand-worked cases ---- */

/*
 * The issue's case: 4 nodes, every remote distance 21, CPUs everywhere.
 * Node 0 picks 1 (ties -> lowest id) and sets node_load[1] = 3; node 1 then
 * prefers 2 (22S+0) over 3 (22S+0, higher id) and 0 (23S: below local),
 * sets node_load[2] = 3; node 2 picks 3 (22S) then 0 (23S+0) before 1
 * (23S+3); node 3: 0 (23S+0) before 1 and 2 (23S+3 each).
 */
static void test_issue_equal_distances(void **state)
{
	(void)state;
	const struct tnode tn[] = {
		NODE(0, CPUS2(0, 1), NORMAL(GiB_PAGES)),
		NODE(1, CPUS2(2, 3), NORMAL(GiB_PAGES)),
		NODE(2, CPUS2(4, 5), NORMAL(GiB_PAGES)),
		NODE(3, CPUS2(6, 7), NORMAL(GiB_PAGES)),
	};
	const int dist[] = {10, 21, 21, 21, 21, 10, 21, 21,
			    21, 21, 10, 21, 21, 21, 21, 10};
	struct machine *m = tm_build(4, tn, dist);
	struct zonelists *zl = build_ok(m, ZONELIST_OPTS_DEFAULT);
	expect_order(zl, 0, "0 1 2 3");
	expect_order(zl, 1, "1 2 3 0");
	expect_order(zl, 2, "2 3 0 1");
	expect_order(zl, 3, "3 0 1 2");
	expect_list(zl, 1, ZONELIST_FALLBACK, "Normal@1 Normal@2 Normal@3 Normal@0");
	expect_list(zl, 1, ZONELIST_NOFALLBACK, "Normal@1");
	for (int p = 0; p < 4; p++)
		assert_int_equal(zl->node_load[p], 3);
	assert_int_equal(zl->nr_online_nodes, 4);
	/* node 1's second pick: distance 21, both penalties visible */
	const struct zonelist_node *zn = zonelist_node_of(zl, 1);
	assert_int_equal(zn->picks[1].node, 2);
	assert_int_equal(zn->picks[1].penalty_cpus, 1);
	assert_int_equal(zn->picks[1].penalty_lower, 0);
	assert_true(zn->picks[1].new_class);
	assert_int_equal(zn->picks[1].load_set, 3);
	assert_int_equal(zn->picks[3].penalty_lower, 1);
	assert_int_equal(zn->picks[1].value, 22LL * 4 * ZONELIST_MAX_NUMNODES);
	zonelist_free(zl);
	tm_free(m);
}

static const struct tnode two_socket[] = {
	NODE(0, CPUS2(0, 1),
	     .zones = {[ZONE_DMA] = 3976, [ZONE_DMA32] = 750000,
		       [ZONE_NORMAL] = 15990000}),
	NODE(1, CPUS2(2, 3), NORMAL(16500000)),
};
static const int two_socket_dist[] = {10, 21, 21, 10};

static void test_two_socket_node_order(void **state)
{
	(void)state;
	struct machine *m = tm_build(2, two_socket, two_socket_dist);
	struct zonelists *zl = build_ok(m, OPT_NODE);
	expect_list(zl, 0, ZONELIST_FALLBACK, "Normal@0 DMA32@0 DMA@0 Normal@1");
	expect_list(zl, 1, ZONELIST_FALLBACK, "Normal@1 Normal@0 DMA32@0 DMA@0");
	expect_list(zl, 0, ZONELIST_NOFALLBACK, "Normal@0 DMA32@0 DMA@0");
	expect_list(zl, 1, ZONELIST_NOFALLBACK, "Normal@1");
	assert_int_equal(zl->policy_zone, ZONE_NORMAL);
	/* sentinel: {NULL, 0} right after the last zone */
	const struct zonelist *z = zonelist_get(zl, 0, ZONELIST_FALLBACK);
	assert_int_equal(z->zonerefs[4].node, NUMA_NO_NODE);
	assert_int_equal(z->zonerefs[4].zone_idx, 0);
	zonelist_free(zl);
	tm_free(m);
}

static void test_two_socket_zone_order(void **state)
{
	(void)state;
	struct machine *m = tm_build(2, two_socket, two_socket_dist);
	struct zonelists *zl = build_ok(m, OPT_ZONE);
	expect_list(zl, 0, ZONELIST_FALLBACK, "Normal@0 Normal@1 DMA32@0 DMA@0");
	expect_list(zl, 1, ZONELIST_FALLBACK, "Normal@1 Normal@0 DMA32@0 DMA@0");
	expect_list(zl, 0, ZONELIST_NOFALLBACK, "Normal@0 DMA32@0 DMA@0");
	zonelist_free(zl);
	tm_free(m);
}

/* Ids 0, 1, 3: d(0,1)=21, d(0,3)=31, d(1,3)=21. */
static void test_sparse_ids(void **state)
{
	(void)state;
	const struct tnode tn[] = {
		NODE(0, CPUS2(0, 1), NORMAL(GiB_PAGES)),
		NODE(1, CPUS2(2, 3), NORMAL(GiB_PAGES)),
		NODE(3, CPUS2(4, 5), NORMAL(GiB_PAGES)),
	};
	const int dist[] = {10, 21, 31, 21, 10, 21, 31, 21, 10};
	struct machine *m = tm_build(3, tn, dist);
	struct zonelists *zl = build_ok(m, OPT_NODE);
	expect_order(zl, 0, "0 1 3");    /* 1: 22, 3: 32 */
	expect_order(zl, 1, "1 3 0");    /* 3: 22, 0: 23 */
	expect_order(zl, 3, "3 1 0");    /* 1: 23, 0: 33 */
	expect_list(zl, 3, ZONELIST_FALLBACK, "Normal@3 Normal@1 Normal@0");
	assert_null(zonelist_get(zl, 2, ZONELIST_FALLBACK));
	assert_null(zonelist_node_of(zl, 2));
	assert_null(zonelist_node_of(zl, -1));
	assert_null(zonelist_node_of(zl, MACHINE_MAX_NODES));
	assert_int_equal(zl->cpu_to_node[5], 3);
	zonelist_free(zl);
	tm_free(m);
}

/*
 * Node 2 has CPUs but no memory; node 3 has 2 MiB (< NODE_MIN_SIZE).
 * d(2,0)=21, d(2,1)=16: node 2's CPUs go to node 1.  d(3,0)=d(3,1)=20:
 * a tie, so node 3's CPUs go to node 0 (lowest id).
 */
static const struct tnode memoryless[] = {
	NODE(0, CPUS2(0, 1), NORMAL(GiB_PAGES)),
	NODE(1, CPUS2(2, 3), NORMAL(GiB_PAGES)),
	NODE(2, CPUS2(4, 5)),
	NODE(3, CPUS2(6, 7), NORMAL(512)),
};
static const int memoryless_dist[] = {10, 21, 21, 20, 21, 10, 16, 20,
				      21, 16, 10, 20, 20, 20, 20, 10};

static void test_memoryless_online(void **state)
{
	(void)state;
	struct machine *m = tm_build(4, memoryless, memoryless_dist);
	struct zonelists *zl = build_ok(m, OPT_NODE);
	assert_int_equal(zl->nr_online_nodes, 4);
	assert_int_equal(zl->nr_memory_nodes, 3);
	/* the memoryless local node comes first but contributes no zones */
	expect_order(zl, 2, "2 1 3 0");  /* 1: 17+1, 3: 20+1, 0: 21+2 */
	expect_list(zl, 2, ZONELIST_FALLBACK, "Normal@1 Normal@3 Normal@0");
	expect_list(zl, 2, ZONELIST_NOFALLBACK, "");
	/* node 2 is never a candidate elsewhere; tiny node 3 is */
	expect_list(zl, 0, ZONELIST_FALLBACK, "Normal@0 Normal@3 Normal@1");
	assert_int_equal(zl->cpu_to_node[4], 2);
	zonelist_free(zl);
	tm_free(m);
}

static void test_memoryless_offline_x86(void **state)
{
	(void)state;
	struct machine *m = tm_build(4, memoryless, memoryless_dist);
	struct zonelists *zl = build_ok(m, OPT_X86);
	assert_int_equal(zl->nr_online_nodes, 2);
	assert_int_equal(zl->nr_memory_nodes, 2);
	assert_null(zonelist_get(zl, 2, ZONELIST_FALLBACK));
	assert_null(zonelist_get(zl, 3, ZONELIST_NOFALLBACK));
	assert_false(zonelist_node_of(zl, 3)->online);
	assert_int_equal(zonelist_node_of(zl, 2)->cpu_target, 1);
	assert_int_equal(zonelist_node_of(zl, 3)->cpu_target, 0);
	assert_int_equal(zl->cpu_to_node[4], 1);
	assert_int_equal(zl->cpu_to_node[5], 1);
	assert_int_equal(zl->cpu_to_node[6], 0);
	assert_int_equal(zl->cpu_to_node[0], 0);
	assert_int_equal(zonelist_node_of(zl, 1)->nr_build_cpus, 4);
	assert_int_equal(zonelist_node_of(zl, 0)->nr_build_cpus, 4);
	/* node 3's 2 MiB are in no list: not N_MEMORY */
	expect_list(zl, 0, ZONELIST_FALLBACK, "Normal@0 Normal@1");
	expect_list(zl, 1, ZONELIST_FALLBACK, "Normal@1 Normal@0");
	zonelist_free(zl);
	tm_free(m);
}

static void test_no_node_online_x86(void **state)
{
	(void)state;
	const struct tnode tn[] = {NODE(0, CPUS2(0, 1)), NODE(1, NORMAL(100))};
	const int dist[] = {10, 20, 20, 10};
	struct machine *m = tm_build(2, tn, dist);
	struct zonelists *zl = (struct zonelists *)1;
	struct diag d;
	diag_init(&d);
	struct zonelist_opts o = OPT_X86_BOOT;
	assert_int_equal(zonelist_build(m, &o, &zl, &d), NS_EINPUT);
	assert_null(zl);
	assert_non_null(strstr(d.msg, "no node has at least 4 MiB"));
	/* with memoryless nodes online the same machine builds */
	zl = build_ok(m, OPT_NODE);
	expect_list(zl, 0, ZONELIST_FALLBACK, "Normal@1");
	zonelist_free(zl);
	tm_free(m);
}

/*
 * Node 2 is a CPU-less memory node (PMEM/HBM) at distance 20 like CPU node
 * 1.  With the CPU masks filled, node 1 pays PENALTY_FOR_NODE_WITH_CPUS
 * (21 vs 20) and node 2 comes first; at the x86 boot build the masks are
 * empty, the scores tie and the lower id (node 1) wins.
 */
static const struct tnode headless[] = {
	NODE(0, CPUS2(0, 1), NORMAL(GiB_PAGES)),
	NODE(1, CPUS2(2, 3), NORMAL(GiB_PAGES)),
	NODE(2, NORMAL(GiB_PAGES)),
};
static const int headless_dist[] = {10, 20, 20, 20, 10, 20, 20, 20, 10};

static void test_headless_cpus_given_vs_none(void **state)
{
	(void)state;
	struct machine *m = tm_build(3, headless, headless_dist);
	struct zonelists *zl = build_ok(m, OPT_NODE);
	expect_order(zl, 0, "0 2 1");
	expect_order(zl, 1, "1 2 0");
	assert_int_equal(zonelist_node_of(zl, 0)->picks[1].penalty_cpus, 0);
	assert_int_equal(zonelist_node_of(zl, 0)->picks[2].penalty_cpus, 1);
	zonelist_free(zl);
	zl = build_ok(m, OPT_NOCPUS);
	expect_order(zl, 0, "0 1 2");
	for (int p = 0; p < 3; p++)
		assert_int_equal(zl->nodes[p].nr_build_cpus, 0);
	/* the CPU -> node map does not depend on the build-time masks */
	assert_int_equal(zl->cpu_to_node[2], 1);
	zonelist_free(zl);
	/* --x86-boot: same machine, every node has >= 4 MiB */
	zl = build_ok(m, OPT_X86_BOOT);
	expect_order(zl, 0, "0 1 2");
	zonelist_free(zl);
	tm_free(m);
}

/*
 * The "prefer the next node" +1 reorders 20 vs 21.  All nodes have CPUs.
 * d(0,1)=20 d(0,2)=30 d(0,3)=30 d(1,2)=20 d(1,3)=30 d(2,3)=21 (symmetric).
 *   node 0: picks 1 (21S) -> node_load[1]=3; then 2 (31S+0, tie with 3,
 *           lower id) -> node_load[2]=2; then 3.      load = [0,3,2,0]
 *   node 1: 2 (21S+2) -> node_load[2]=3; 0 (22S, same class 20); 3 (31S)
 *           -> node_load[3]=1.                         load = [0,3,3,1]
 *   node 2: 1 scores 20+1(lower)+1 = 22 -> 22S+3; 3 scores 21+0+1 = 22
 *           -> 22S+1: node 3 (distance 21) before node 1 (distance 20).
 *           Without the +1 node 1 would win at 21S.
 *   node 3: 2 (23S), then 0 (32S+1) before 1 (32S+2).
 */
static void test_prefer_next_node(void **state)
{
	(void)state;
	const struct tnode tn[] = {
		NODE(0, CPUS2(0, 1), NORMAL(GiB_PAGES)),
		NODE(1, CPUS2(2, 3), NORMAL(GiB_PAGES)),
		NODE(2, CPUS2(4, 5), NORMAL(GiB_PAGES)),
		NODE(3, CPUS2(6, 7), NORMAL(GiB_PAGES)),
	};
	const int dist[] = {10, 20, 30, 30, 20, 10, 20, 30,
			    30, 20, 10, 21, 30, 30, 21, 10};
	struct machine *m = tm_build(4, tn, dist);
	struct zonelists *zl = build_ok(m, OPT_NODE);
	expect_order(zl, 0, "0 1 2 3");
	expect_order(zl, 1, "1 2 0 3");
	expect_order(zl, 2, "2 3 1 0");
	expect_order(zl, 3, "3 2 0 1");
	const struct zonelist_node *zn = zonelist_node_of(zl, 2);
	assert_int_equal(zn->picks[1].node_load, 1);
	assert_int_equal(zn->picks[1].distance, 21);
	assert_int_equal(zn->picks[2].distance, 20);
	assert_int_equal(zn->picks[2].penalty_lower, 1);
	zonelist_free(zl);
	tm_free(m);
}

/*
 * 8 nodes, two sockets of four (0-3, 4-7): 16 within a socket, 32 across;
 * all nodes have CPUs; S = 8 * MAX_NUMNODES.  node_load[] is shared and
 * assigned, so the first node of each remote class rotates:
 *   node 0: 0 | 1 (17S) 2 3 | 4 (33S) 5 6 7   load[1]=7 load[4]=4
 *   node 1: 1 | 2 3 (17S) 0 (18S) | remote 4 has load 4, 5 6 7 have 0:
 *           5 6 7 4                              load[2]=7 load[5]=4
 *   node 2: 2 | 3 0 1 (0 at 18S+0 before 1 at 18S+7) | 6 7 4 5
 *                                                load[3]=7 load[6]=4
 *   node 3: 3 | 0 1 2 | 7 4 5 6                  load[0]=7 load[7]=4
 *   node 4: 4 | 5 6 7 (17S+4 each) | 0 1 2 3 (34S+7 each) load[5]=7 load[0]=4
 *   node 5: 5 | 6 7 (17S+4) 4 (18S+4) | 0 (34S+4) 1 2 3  load[6]=7 load[0]=4
 *   node 6: 6 | 7 (17S+4) 4 (18S+4) 5 (18S+7) | 0 1 2 3
 *   node 7: 7 | 4 (18S+4) 5 6 (18S+7) | 0 1 2 3
 * Socket 1 always falls back to node 0 first: node 0 is the only remote
 * node whose load was reset to the smaller value 4 by each build.
 */
static void test_eight_nodes_node_load(void **state)
{
	(void)state;
	struct tnode tn[8];
	int dist[64];
	memset(tn, 0, sizeof tn);
	for (int i = 0; i < 8; i++) {
		tn[i].id = i;
		tn[i].nr_cpus = 1;
		tn[i].cpus[0] = i;
		tn[i].zones[ZONE_NORMAL] = GiB_PAGES;
		for (int j = 0; j < 8; j++)
			dist[i * 8 + j] = i == j ? 10 : (i / 4 == j / 4 ? 16 : 32);
	}
	struct machine *m = tm_build(8, tn, dist);
	struct zonelists *zl = build_ok(m, OPT_NODE);
	expect_order(zl, 0, "0 1 2 3 4 5 6 7");
	expect_order(zl, 1, "1 2 3 0 5 6 7 4");
	expect_order(zl, 2, "2 3 0 1 6 7 4 5");
	expect_order(zl, 3, "3 0 1 2 7 4 5 6");
	expect_order(zl, 4, "4 5 6 7 0 1 2 3");
	expect_order(zl, 5, "5 6 7 4 0 1 2 3");
	expect_order(zl, 6, "6 7 4 5 0 1 2 3");
	expect_order(zl, 7, "7 4 5 6 0 1 2 3");
	const int load[] = {4, 7, 7, 7, 7, 7, 7, 7};
	for (int p = 0; p < 8; p++)
		assert_int_equal(zl->node_load[p], load[p]);
	zonelist_free(zl);
	tm_free(m);
}

/*
 * Asymmetric SLIT: find_next_best_node reads row `local`
 * (node_distance(local, n)).  d(0,1)=20 d(1,0)=30 d(0,2)=25 d(2,0)=15
 * d(1,2)=d(2,1)=22.  Reading the column instead would give node 0 -> 0 2 1.
 */
static void test_asymmetric(void **state)
{
	(void)state;
	const struct tnode tn[] = {
		NODE(0, CPUS2(0, 1), NORMAL(GiB_PAGES)),
		NODE(1, CPUS2(2, 3), NORMAL(GiB_PAGES)),
		NODE(2, CPUS2(4, 5), NORMAL(GiB_PAGES)),
	};
	const int dist[] = {10, 20, 25, 30, 10, 22, 15, 22, 10};
	struct machine *m = tm_build(3, tn, dist);
	struct zonelists *zl = build_ok(m, OPT_NODE);
	expect_order(zl, 0, "0 1 2");
	expect_order(zl, 1, "1 2 0");
	expect_order(zl, 2, "2 0 1");
	zonelist_free(zl);
	tm_free(m);
}

static void test_movable(void **state)
{
	(void)state;
	const struct tnode tn[] = {
		NODE(0, CPUS2(0, 1),
		     .zones = {[ZONE_DMA32] = 500000, [ZONE_NORMAL] = GiB_PAGES,
			       [ZONE_MOVABLE] = GiB_PAGES}),
		NODE(1, CPUS2(2, 3),
		     .zones = {[ZONE_NORMAL] = GiB_PAGES, [ZONE_MOVABLE] = GiB_PAGES}),
		NODE(2, .zones = {[ZONE_MOVABLE] = GiB_PAGES}),
	};
	const int dist[] = {10, 21, 21, 21, 10, 21, 21, 21, 10};
	struct machine *m = tm_build(3, tn, dist);
	struct zonelists *zl = build_ok(m, OPT_NODE);
	/* node 2 is headless: 21 beats 22 for CPU node 1 */
	expect_list(zl, 0, ZONELIST_FALLBACK,
		    "Movable@0 Normal@0 DMA32@0 Movable@2 Movable@1 Normal@1");
	expect_list(zl, 2, ZONELIST_NOFALLBACK, "Movable@2");
	assert_int_equal(zl->policy_zone, ZONE_NORMAL);
	zonelist_free(zl);
	zl = build_ok(m, OPT_ZONE);
	expect_list(zl, 0, ZONELIST_FALLBACK,
		    "Movable@0 Movable@2 Movable@1 Normal@0 Normal@1 DMA32@0");
	expect_list(zl, 1, ZONELIST_FALLBACK,
		    "Movable@1 Movable@2 Movable@0 Normal@1 Normal@0 DMA32@0");
	zonelist_free(zl);
	tm_free(m);
}

/* Only Movable memory: check_highest_zone() never raises policy_zone. */
static void test_policy_zone_ignores_movable(void **state)
{
	(void)state;
	const struct tnode tn[] = {
		NODE(0, CPUS2(0, 1), .zones = {[ZONE_MOVABLE] = GiB_PAGES}),
	};
	const int dist[] = {10};
	struct machine *m = tm_build(1, tn, dist);
	struct zonelists *zl = build_ok(m, OPT_NODE);
	assert_int_equal(zl->policy_zone, ZONE_DMA);
	expect_list(zl, 0, ZONELIST_FALLBACK, "Movable@0");
	zonelist_free(zl);
	tm_free(m);
}

/* zonelist_check() must catch corrupted lists. */
static void test_check_catches_corruption(void **state)
{
	(void)state;
	struct machine *m = tm_build(2, two_socket, two_socket_dist);
	struct zonelists *zl = build_ok(m, OPT_NODE);
	struct diag d;
	struct zonelist *z = &zl->nodes[0].zonelists[ZONELIST_FALLBACK];

	struct zoneref saved = z->zonerefs[3];
	z->zonerefs[3] = z->zonerefs[0];      /* Normal@0 twice, Normal@1 gone */
	diag_init(&d);
	assert_int_equal(zonelist_check(zl, &d), NS_EINTERNAL);
	assert_non_null(strstr(d.msg, "appears 2 times"));
	z->zonerefs[3] = saved;

	z->zonerefs[4].zone_idx = ZONE_NORMAL; /* sentinel index must be 0 */
	diag_init(&d);
	assert_int_equal(zonelist_check(zl, &d), NS_EINTERNAL);
	assert_non_null(strstr(d.msg, "sentinel"));
	z->zonerefs[4].zone_idx = 0;

	saved = z->zonerefs[1];                /* DMA32 and DMA swapped */
	z->zonerefs[1] = z->zonerefs[2];
	z->zonerefs[2] = saved;
	diag_init(&d);
	assert_int_equal(zonelist_check(zl, &d), NS_EINTERNAL);
	assert_non_null(strstr(d.msg, "node order"));
	z->zonerefs[2] = z->zonerefs[1];
	z->zonerefs[1] = saved;

	zl->node_load[1] = 2;                  /* must stay < nr_online_nodes */
	diag_init(&d);
	assert_int_equal(zonelist_check(zl, &d), NS_EINTERNAL);
	zl->node_load[1] = 1;

	zl->cpu_to_node[0] = 5;
	diag_init(&d);
	assert_int_equal(zonelist_check(zl, &d), NS_EINTERNAL);
	zl->cpu_to_node[0] = 0;

	diag_init(&d);
	assert_int_equal(zonelist_check(zl, &d), NS_OK);
	zonelist_free(zl);
	tm_free(m);
}

static void test_option_names(void **state)
{
	(void)state;
	assert_int_equal(zonelist_order_parse("zone"), ZONELIST_ORDER_ZONE);
	assert_int_equal(zonelist_order_parse("node"), ZONELIST_ORDER_NODE);
	assert_int_equal(zonelist_order_parse("default"), -1);
	assert_int_equal(zonelist_cpus_at_build_parse("none"), ZONELIST_CPUS_NONE);
	assert_int_equal(zonelist_cpus_at_build_parse(NULL), -1);
	assert_int_equal(zonelist_memoryless_parse("offline-x86"),
			 ZONELIST_MEMORYLESS_OFFLINE_X86);
	assert_int_equal(zonelist_memoryless_parse("offline"), -1);
	assert_string_equal(zonelist_order_name(ZONELIST_ORDER_ZONE), "zone");
	assert_string_equal(zonelist_cpus_at_build_name(ZONELIST_CPUS_GIVEN), "given");
	assert_string_equal(zonelist_memoryless_name(ZONELIST_MEMORYLESS_ONLINE),
			    "online");
}

/* ---- property test: brute force straight from the reference pseudocode ---- */

#define BF_IDS 16

struct bf_zone {
	int node, type;
};

struct bf_world {
	int nr_ids;              /* ids < nr_ids */
	bool present[BF_IDS];
	int dist[BF_IDS][BF_IDS];
	int ncpus[BF_IDS];       /* CPUs listed for the node */
	uint64_t zones[BF_IDS][NR_ZONE_TYPES];
	uint64_t mem[BF_IDS];
	/* results */
	bool online[BF_IDS], has_mem[BF_IDS];
	int cpu_home[BF_IDS];    /* where the node's CPUs are accounted */
	int mask[BF_IDS];        /* cpumask_of_node() size at build time */
	int node_load[BF_IDS];
	int n_fb[BF_IDS], n_nf[BF_IDS];
	struct bf_zone fb[BF_IDS][BF_IDS * NR_ZONE_TYPES], nf[BF_IDS][NR_ZONE_TYPES];
};

static void bf_append_node(struct bf_world *w, int node, struct bf_zone *out, int *n)
{
	for (int t = NR_ZONE_TYPES - 1; t >= 0; t--)
		if (w->zones[node][t])
			out[(*n)++] = (struct bf_zone){node, t};
}

static int bf_next(struct bf_world *w, int local, bool *used, int nr_online)
{
	if (!used[local]) {
		used[local] = true;
		return local;
	}
	int best = -1;
	long long min_val = 0x7fffffffffffffffLL;
	for (int n = 0; n < w->nr_ids; n++) {
		if (!w->has_mem[n] || used[n])
			continue;
		long long val = w->dist[local][n];
		val += n < local ? 1 : 0;
		val += w->mask[n] ? 1 : 0;
		val = val * (nr_online * 64) + w->node_load[n];  /* MAX_NUMNODES=64 */
		if (val < min_val) {
			min_val = val;
			best = n;
		}
	}
	if (best >= 0)
		used[best] = true;
	return best;
}

/* Returns false when no node is online (x86 would not boot). */
static bool bf_build(struct bf_world *w, struct zonelist_opts o)
{
	int nr_online = 0;
	for (int n = 0; n < w->nr_ids; n++) {
		w->online[n] = w->present[n] &&
			(o.memoryless == ZONELIST_MEMORYLESS_ONLINE ||
			 w->mem[n] * 4096 >= 4u << 20);
		w->has_mem[n] = w->online[n] && w->mem[n] > 0;
		nr_online += w->online[n];
	}
	if (!nr_online)
		return false;
	memset(w->mask, 0, sizeof w->mask);
	for (int n = 0; n < w->nr_ids; n++) {
		if (!w->present[n])
			continue;
		int home = n;
		if (!w->online[n]) {
			int best = 1 << 30;
			for (int k = 0; k < w->nr_ids; k++)
				if (w->online[k] && w->dist[n][k] < best) {
					best = w->dist[n][k];
					home = k;
				}
		}
		w->cpu_home[n] = home;
		if (o.cpus_at_build == ZONELIST_CPUS_GIVEN)
			w->mask[home] += w->ncpus[n];
	}
	memset(w->node_load, 0, sizeof w->node_load);
	for (int local = 0; local < w->nr_ids; local++) {
		if (!w->online[local])
			continue;
		bool used[BF_IDS] = {false};
		int order[BF_IDS], nr = 0, load = nr_online, prev = local, node;
		w->n_fb[local] = 0;
		while ((node = bf_next(w, local, used, nr_online)) >= 0) {
			if (w->dist[local][node] != w->dist[local][prev])
				w->node_load[node] = load;
			prev = node;
			load--;
			order[nr++] = node;
			if (o.order == ZONELIST_ORDER_NODE)
				bf_append_node(w, node, w->fb[local], &w->n_fb[local]);
		}
		if (o.order == ZONELIST_ORDER_ZONE)
			for (int t = NR_ZONE_TYPES - 1; t >= 0; t--)
				for (int j = 0; j < nr; j++)
					if (w->zones[order[j]][t])
						w->fb[local][w->n_fb[local]++] =
							(struct bf_zone){order[j], t};
		w->n_nf[local] = 0;
		bf_append_node(w, local, w->nf[local], &w->n_nf[local]);
	}
	return true;
}

/* splitmix64: the test's own deterministic generator. */
static uint64_t rng_next(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static int rng_below(uint64_t *s, int n)
{
	return (int)(rng_next(s) % (uint64_t)n);
}

static void random_world(uint64_t *s, struct bf_world *w)
{
	static const int dist_pool[] = {11, 12, 16, 17, 20, 21, 22, 25, 28, 30, 31, 32, 255};
	memset(w, 0, sizeof *w);
	w->nr_ids = 1 + rng_below(s, BF_IDS);
	int nr = 0;
	for (int n = 0; n < w->nr_ids; n++) {
		w->present[n] = rng_below(s, 4) != 0;
		nr += w->present[n];
	}
	if (!nr)
		w->present[rng_below(s, w->nr_ids)] = true;
	/* a few distinct values make ties and near-ties (d, d+1) common */
	int pool = 2 + rng_below(s, 4), base = rng_below(s, 9);
	bool symmetric = rng_below(s, 2);
	for (int i = 0; i < w->nr_ids; i++)
		for (int j = 0; j < w->nr_ids; j++) {
			if (i == j)
				w->dist[i][j] = 10;
			else if (symmetric && j < i)
				w->dist[i][j] = w->dist[j][i];
			else
				w->dist[i][j] = dist_pool[base + rng_below(s, pool)];
		}
	for (int n = 0; n < w->nr_ids; n++) {
		if (!w->present[n])
			continue;
		w->ncpus[n] = rng_below(s, 3) ? rng_below(s, 3) : 0;
		if (rng_below(s, 5) == 0)
			continue;  /* memoryless */
		for (int t = 0; t < NR_ZONE_TYPES; t++) {
			if (t == ZONE_HIGHMEM || rng_below(s, 3) == 0)
				continue;
			/* some nodes end up below NODE_MIN_SIZE (1024 pages) */
			w->zones[n][t] = rng_below(s, 4) ? 1 + (uint64_t)rng_below(s, 1 << 20)
							  : 1 + (uint64_t)rng_below(s, 600);
			w->mem[n] += w->zones[n][t];
		}
	}
}

static struct machine *machine_of_world(const struct bf_world *w)
{
	struct tnode tn[BF_IDS];
	int dist[BF_IDS * BF_IDS], ids[BF_IDS], nr = 0, cpu = 0;
	memset(tn, 0, sizeof tn);
	for (int n = 0; n < w->nr_ids; n++) {
		if (!w->present[n])
			continue;
		ids[nr] = n;
		tn[nr].id = n;
		tn[nr].nr_cpus = w->ncpus[n];
		for (int c = 0; c < w->ncpus[n]; c++)
			tn[nr].cpus[c] = cpu++;
		memcpy(tn[nr].zones, w->zones[n], sizeof tn[nr].zones);
		nr++;
	}
	for (int i = 0; i < nr; i++)
		for (int j = 0; j < nr; j++)
			dist[i * nr + j] = w->dist[ids[i]][ids[j]];
	return tm_build(nr, tn, dist);
}

static void compare_world(const struct bf_world *w, const struct zonelists *zl,
			  int trial)
{
	for (int n = 0; n < w->nr_ids; n++) {
		if (!w->present[n])
			continue;
		const struct zonelist_node *zn = zonelist_node_of(zl, n);
		assert_non_null(zn);
		if (zn->online != w->online[n] || zn->memory != w->has_mem[n])
			fail_msg("trial %d node %d: online/memory differ", trial, n);
		if (zn->cpu_target != w->cpu_home[n])
			fail_msg("trial %d node %d: cpus map to %d, brute force %d", trial,
				 n, zn->cpu_target, w->cpu_home[n]);
		if (zl->node_load[zl->m->node_index[n]] != w->node_load[n])
			fail_msg("trial %d node %d: node_load %d vs %d", trial, n,
				 zl->node_load[zl->m->node_index[n]], w->node_load[n]);
		if (!w->online[n])
			continue;
		const struct zonelist *fb = zonelist_get(zl, n, ZONELIST_FALLBACK);
		const struct zonelist *nf = zonelist_get(zl, n, ZONELIST_NOFALLBACK);
		assert_int_equal(fb->nr, w->n_fb[n]);
		assert_int_equal(nf->nr, w->n_nf[n]);
		for (int i = 0; i < fb->nr; i++)
			if (fb->zonerefs[i].node != w->fb[n][i].node ||
			    (int)fb->zonerefs[i].zone_idx != w->fb[n][i].type)
				fail_msg("trial %d node %d: fallback entry %d differs", trial,
					 n, i);
		for (int i = 0; i < nf->nr; i++)
			if (nf->zonerefs[i].node != w->nf[n][i].node ||
			    (int)nf->zonerefs[i].zone_idx != w->nf[n][i].type)
				fail_msg("trial %d node %d: nofallback entry %d differs",
					 trial, n, i);
	}
}

static void test_random_vs_brute_force(void **state)
{
	(void)state;
	uint64_t seed = 0x4e554d4153494dull;  /* fixed: deterministic */
	static struct bf_world w;
	int built = 0, refused = 0;
	for (int trial = 0; trial < 4000; trial++) {
		random_world(&seed, &w);
		struct zonelist_opts o = {
			.order = (enum zonelist_order)rng_below(&seed, 2),
			.cpus_at_build = (enum zonelist_cpus_at_build)rng_below(&seed, 2),
			.memoryless = (enum zonelist_memoryless)rng_below(&seed, 2),
		};
		struct machine *m = machine_of_world(&w);
		struct zonelists *zl = NULL;
		struct diag d;
		diag_init(&d);
		bool boots = bf_build(&w, o);
		int rc = zonelist_build(m, &o, &zl, &d);
		if (!boots) {
			assert_int_equal(rc, NS_EINPUT);
			refused++;
		} else {
			assert_int_equal(rc, NS_OK);
			if (zonelist_check(zl, &d) != NS_OK)
				fail_msg("trial %d: %s", trial, d.msg);
			compare_world(&w, zl, trial);
			built++;
		}
		zonelist_free(zl);
		tm_free(m);
	}
	/* the generator must exercise both outcomes */
	assert_true(built > 3000);
	assert_true(refused > 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_issue_equal_distances),
		cmocka_unit_test(test_two_socket_node_order),
		cmocka_unit_test(test_two_socket_zone_order),
		cmocka_unit_test(test_sparse_ids),
		cmocka_unit_test(test_memoryless_online),
		cmocka_unit_test(test_memoryless_offline_x86),
		cmocka_unit_test(test_no_node_online_x86),
		cmocka_unit_test(test_headless_cpus_given_vs_none),
		cmocka_unit_test(test_prefer_next_node),
		cmocka_unit_test(test_eight_nodes_node_load),
		cmocka_unit_test(test_asymmetric),
		cmocka_unit_test(test_movable),
		cmocka_unit_test(test_policy_zone_ignores_movable),
		cmocka_unit_test(test_check_catches_corruption),
		cmocka_unit_test(test_option_names),
		cmocka_unit_test(test_random_vs_brute_force),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
