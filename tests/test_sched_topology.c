/*
 * Tests for models/sched_topology: v5.9's sched domains built from a
 * machine, on hand-built machines (tests/cost_fixture.h's, reshaped):
 *   - the fixture: 2 nodes x 2 CPUs, SLIT 10/21: MC (the node) and NUMA
 *     (all), groups = the nodes, SD_WAKE_AFFINE kept (21 <= 30);
 *   - one node of 4 CPUs: SMT siblings 0/2 and 1/3 by x86's numbering,
 *     SMT then MC with the cores as groups;
 *   - 4 nodes of 1 CPU, SLIT 10/12/32: MC degenerates (one CPU), NUMA
 *     spans the pair at 12, NUMA2 everything, without SD_WAKE_AFFINE and
 *     SD_BALANCE_FORK (32 > node_reclaim_distance 30);
 * and sched_topo_check() catching a group list that does not cover the
 * span.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "tests/cost_fixture.h"
#include "base/diag.h"
#include "models/sched_topology.h"
#include "cost/cpu.h"

struct world {
	struct machine m;
	struct cost_tables t;
	struct cost_layout l;
	struct cpu_sys s;
	struct sched_topo *topo;
	struct machine_node nodes4[4];
	int cpu_of[4];
	int dist4[16];
};

enum shape { TWO_NODES, ONE_NODE_SMT, FOUR_NODES };

static void reshape(struct world *w, enum shape sh)
{
	static int all[] = {0, 1, 2, 3};
	struct machine *m = &w->m;
	if (sh == ONE_NODE_SMT) {
		m->nr_nodes = 1;
		m->nodes[0].nr_cpus = 4;
		m->nodes[0].cpus = all;
		m->node_index[1] = -1;
		m->cpu_node[2] = m->cpu_node[3] = 0;
	} else if (sh == FOUR_NODES) {
		static const int d[16] = {10, 12, 32, 32, 12, 10, 32, 32,
					  32, 32, 10, 12, 32, 32, 12, 10};
		for (int i = 0; i < 4; i++) {
			w->cpu_of[i] = i;
			w->nodes4[i] = m->nodes[0];
			w->nodes4[i].id = i;
			w->nodes4[i].nr_cpus = 1;
			w->nodes4[i].cpus = &w->cpu_of[i];
			m->node_index[i] = i;
			m->cpu_node[i] = i;
		}
		memcpy(w->dist4, d, sizeof d);
		m->nr_nodes = 4;
		m->nodes = w->nodes4;
		m->distance = w->dist4;
	}
}

static int build(void **state, enum shape sh)
{
	struct world *w = calloc(1, sizeof *w);
	if (!w)
		return -1;
	fix_machine(&w->m);
	struct machine_node *orig_nodes = w->m.nodes;
	int *orig_dist = w->m.distance;
	reshape(w, sh);
	if (fix_sys_init(&w->m, &w->t, &w->l, &w->s, 4) || sched_topo_create(&w->s, &w->topo))
		return -1;
	if (sh == FOUR_NODES) {       /* give the fixture's own arrays back for freeing */
		w->m.nodes = orig_nodes;
		w->m.distance = orig_dist;
	}
	*state = w;
	return 0;
}

static int setup_two(void **state) { return build(state, TWO_NODES); }
static int setup_smt(void **state) { return build(state, ONE_NODE_SMT); }
static int setup_four(void **state) { return build(state, FOUR_NODES); }

static int teardown(void **state)
{
	struct world *w = *state;
	struct diag d;
	diag_init(&d);
	int rc = sched_topo_check(w->topo, &d);
	if (rc != NS_OK)
		diag_print(&d, stderr);
	assert_int_equal(rc, NS_OK);
	sched_topo_destroy(w->topo);
	fix_sys_free(&w->m, &w->t, &w->l, &w->s);
	free(w);
	return 0;
}

static const char *name(const struct world *w, const struct sched_domain *sd)
{
	return w->topo->level[sd->level].name;
}

static void test_two_nodes(void **state)
{
	struct world *w = *state;
	for (int cpu = 0; cpu < 4; cpu++) {
		assert_int_equal(w->topo->nr_domains[cpu], 2);
		assert_int_equal(w->topo->smt_sibling[cpu], -1);
		struct sched_domain *mc = sched_topo_sd(w->topo, cpu, 0);
		struct sched_domain *numa = sched_topo_sd(w->topo, cpu, 1);
		assert_string_equal(name(w, mc), "MC");
		assert_string_equal(name(w, numa), "NUMA");
		assert_null(sched_topo_sd(w->topo, cpu, 2));
		assert_int_equal(mc->span_weight, 2);
		assert_int_equal(mc->nr_groups, 2);          /* single CPUs */
		assert_int_equal(mc->min_interval, 2);
		assert_int_equal(mc->max_interval, 4);
		assert_int_equal(mc->cache_nice_tries, 1);
		assert_true(mc->flags & SD_PREFER_SIBLING);
		assert_int_equal(numa->nr_groups, 2);
		assert_int_equal(numa->groups[0].weight, 2);
		assert_int_equal(numa->cache_nice_tries, 2);
		assert_false(numa->flags & SD_PREFER_SIBLING);
		assert_true(numa->flags & SD_SERIALIZE);
		assert_true(numa->flags & SD_BALANCE_FORK);
		assert_ptr_equal(sched_topo_llc(w->topo, cpu), mc);
	}
	assert_int_equal(w->topo->llc_id[1], 0);
	assert_int_equal(w->topo->llc_id[3], 2);
	/* CPU 3's NUMA groups: its node {2,3} first, then {0,1} */
	struct sched_domain *numa3 = sched_topo_sd(w->topo, 3, 1);
	assert_true(numa3->span[0] == 2 || numa3->span[0] == 3);
	assert_true(numa3->span[2] == 0 || numa3->span[2] == 1);
}

static void test_smt_by_numbering(void **state)
{
	struct world *w = *state;
	assert_int_equal(w->topo->nr_levels, 2);
	assert_int_equal(w->topo->smt_sibling[0], 2);
	assert_int_equal(w->topo->smt_sibling[1], 3);
	struct sched_domain *smt = sched_topo_sd(w->topo, 1, 0), *mc = sched_topo_sd(w->topo, 1, 1);
	assert_string_equal(name(w, smt), "SMT");
	assert_int_equal(smt->span_weight, 2);
	assert_int_equal(smt->imbalance_pct, 110);
	assert_int_equal(smt->cache_nice_tries, 0);
	assert_string_equal(name(w, mc), "MC");
	assert_int_equal(mc->nr_groups, 2);              /* the two cores */
	assert_int_equal(mc->groups[0].weight, 2);
	assert_true(sched_domain_has(mc, 0));
	assert_int_equal(w->topo->llc_size[1], 4);
	assert_int_equal(w->topo->llc_id[3], 0);         /* the span's first CPU */
}

static void test_numa_levels_by_distance(void **state)
{
	struct world *w = *state;
	assert_int_equal(w->topo->nr_levels, 3);         /* MC, NUMA (12), NUMA2 (32) */
	assert_int_equal(w->topo->level[1].numa_distance, 12);
	assert_int_equal(w->topo->level[2].numa_distance, 32);
	for (int cpu = 0; cpu < 4; cpu++) {
		assert_int_equal(w->topo->nr_domains[cpu], 2);   /* MC degenerate */
		struct sched_domain *n1 = sched_topo_sd(w->topo, cpu, 0);
		struct sched_domain *n2 = sched_topo_sd(w->topo, cpu, 1);
		assert_string_equal(name(w, n1), "NUMA");
		assert_string_equal(name(w, n2), "NUMA2");
		assert_int_equal(n1->span_weight, 2);
		assert_true(sched_domain_has(n1, cpu ^ 1));
		assert_true(n1->flags & SD_WAKE_AFFINE);
		assert_int_equal(n2->span_weight, 4);
		assert_int_equal(n2->nr_groups, 2);
		assert_false(n2->flags & SD_WAKE_AFFINE);
		assert_false(n2->flags & SD_BALANCE_FORK);
		assert_int_equal(n2->imbalance_pct, 125);
		assert_null(sched_topo_llc(w->topo, cpu));
		assert_int_equal(w->topo->llc_size[cpu], 1);
	}
}

static void test_check_catches_bad_groups(void **state)
{
	struct world *w = *state;
	struct diag d;
	struct sched_domain *numa = sched_topo_sd(w->topo, 0, 1);
	diag_init(&d);
	numa->groups[1].weight--;
	assert_int_equal(sched_topo_check(w->topo, &d), NS_EINTERNAL);
	assert_non_null(strstr(d.msg, "groups cover"));
	numa->groups[1].weight++;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_two_nodes, setup_two, teardown),
		cmocka_unit_test_setup_teardown(test_smt_by_numbering, setup_smt, teardown),
		cmocka_unit_test_setup_teardown(test_numa_levels_by_distance, setup_four, teardown),
		cmocka_unit_test_setup_teardown(test_check_catches_bad_groups, setup_two, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
