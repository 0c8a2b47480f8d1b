/*
 * Tests for the mempolicy and numastat side of models/pagealloc
 * (alloc_pages_current of v4.6): interleave spreads pages round-robin over
 * its nodes and counts interleave_hit, bind never allocates outside its
 * nodes (also when they run out of memory), preferred falls back along
 * the preferred node's zonelist once that node is below its watermark,
 * local/default stay local, numastat sums are consistent under both
 * zone_statistics rules, set-up rejects impossible policies, and the
 * cpuset cost facts of 682a3385 (an all-node cpuset costs cycles and
 * __next_zones_zonelist calls in POST, no iterator change in PRE).
 * mm_check() runs after every test.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cost/cpu.h"
#include "base/diag.h"
#include "machine/machine.h"
#include "tests/page_alloc_fixture.h"
#include "models/page_alloc.h"
#include "tests/test_costs_yaml.h"

#define COSTS TEST_COSTS_YAML

/* 4 nodes of Normal 64 MiB, one CPU each, all remote distances 21. */
static const char m_four[] =
	"name: four\nnodes:\n"
	"  - {id: 0, cpus: \"0\", zones: [{type: Normal, size: 64MiB}]}\n"
	"  - {id: 1, cpus: \"1\", zones: [{type: Normal, size: 64MiB}]}\n"
	"  - {id: 2, cpus: \"2\", zones: [{type: Normal, size: 64MiB}]}\n"
	"  - {id: 3, cpus: \"3\", zones: [{type: Normal, size: 64MiB}]}\n"
	"distance:\n  - [10, 21, 21, 21]\n  - [21, 10, 21, 21]\n"
	"  - [21, 21, 10, 21]\n  - [21, 21, 21, 10]\n" COSTS;

/* 3 nodes: node 1 is nearer node 2 than node 0, so node 1's zonelist is
 * 1, 2, 0 while node 0's is 0, 1, 2. */
static const char m_three[] =
	"name: three\nnodes:\n"
	"  - {id: 0, cpus: \"0\", zones: [{type: Normal, size: 64MiB}]}\n"
	"  - {id: 1, cpus: \"1\", zones: [{type: Normal, size: 16MiB}]}\n"
	"  - {id: 2, cpus: \"2\", zones: [{type: Normal, size: 64MiB}]}\n"
	"distance:\n  - [10, 21, 31]\n  - [21, 10, 15]\n  - [31, 15, 10]\n" COSTS;

/* node 0 DMA32 + Normal, node 1 Normal (seed-like, for the cost facts). */
static const char m_seedlike[] =
	"name: seedlike\nnodes:\n"
	"  - {id: 0, cpus: \"0\", zones: [{type: DMA, size: 16MiB}, {type: DMA32, size: 64MiB},"
	" {type: Normal, size: 1GiB}]}\n"
	"  - {id: 1, cpus: \"1\", zones: [{type: Normal, size: 1GiB}]}\n"
	"distance:\n  - [10, 21]\n  - [21, 10]\n" COSTS;

static int64_t node_ctr(struct tw *t, int node, const char *name)
{
	char id[16];
	snprintf(id, sizeof id, "%d", node);
	return ctr(t, "node", id, name);
}

static struct mm_config cfg_mpol(enum mpol_mode m, const int *nodes, int n)
{
	struct mm_config c;
	mm_config_default(&c);
	c.mpol = m;
	c.nr_mpol_nodes = n;
	for (int i = 0; i < n; i++)
		c.mpol_nodes[i] = nodes[i];
	return c;
}

/* numastat identities: every allocation is one hit or one miss, every
 * miss has its foreign; v4.6 also counts one local or other each. */
static void numastat_sums(struct tw *t, int64_t allocs, int v46)
{
	int64_t hit = 0, miss = 0, foreign = 0, local = 0, other = 0;
	for (int n = 0; n < t->m->nr_nodes; n++) {
		int id = t->m->nodes[n].id;
		hit += node_ctr(t, id, "numa_hit");
		miss += node_ctr(t, id, "numa_miss");
		foreign += node_ctr(t, id, "numa_foreign");
		local += node_ctr(t, id, "local_node");
		other += node_ctr(t, id, "other_node");
	}
	assert_int_equal(hit + miss, allocs);
	assert_int_equal(miss, foreign);
	if (v46)
		assert_int_equal(local + other, allocs);
	else
		assert_int_equal(local + other, hit);
}

/* --- interleave ----------------------------------------------------------- */

static void test_interleave_round_robin(void **state)
{
	(void)state;
	for (int v46 = 0; v46 <= 1; v46++) {
		static const int nodes[] = {3, 0, 1};   /* order given is irrelevant */
		struct mm_config cfg = cfg_mpol(MPOL_INTERLEAVE, nodes, 3);
		cfg.zone_stats = v46 ? VMSTAT_NUMA_V46 : VMSTAT_NUMA_SERIES;
		struct tw *t = tw_create(m_four, &cfg);
		struct cpu *c = &t->s.cpu[0];
		static struct page *pg[300];
		static const int expect[] = {0, 1, 3};
		for (int i = 0; i < 300; i++) {
			pg[i] = mm_alloc_pages(t->w, c, GFP_KERNEL, 0);
			assert_non_null(pg[i]);
			assert_int_equal(mm_page_node(t->w, pg[i]), expect[i % 3]);
		}
		for (int n = 0; n < 4; n++)
			assert_int_equal(node_ctr(t, n, "interleave_hit"), n == 2 ? 0 : 100);
		assert_int_equal(fn_calls(t, "alloc_page_interleave"), 300);
		numastat_sums(t, 300, v46);
		if (v46) {
			/* v4.6: the intended node is the preferred zone: hits */
			assert_int_equal(node_ctr(t, 1, "numa_hit"), 100);
			assert_int_equal(node_ctr(t, 1, "other_node"), 100);
			assert_int_equal(node_ctr(t, 0, "local_node"), 100);
		} else {
			/* b9f00e147f27: hit only on the CPU's node, the remote
			 * pages are misses whose foreign is the same node */
			assert_int_equal(node_ctr(t, 0, "numa_hit"), 100);
			assert_int_equal(node_ctr(t, 1, "numa_miss"), 100);
			assert_int_equal(node_ctr(t, 1, "numa_foreign"), 100);
		}
		for (int i = 0; i < 300; i++)
			mm_free_pages(t->w, c, pg[i], 0);
		tw_destroy(t);
	}
}

/* Interleave to a node that is full lands elsewhere: no interleave_hit. */
static void test_interleave_miss_when_full(void **state)
{
	(void)state;
	static const int nodes[] = {1, 2};
	struct mm_config cfg = cfg_mpol(MPOL_INTERLEAVE, nodes, 2);
	struct tw *t = tw_create(m_three, &cfg);
	struct cpu *c = &t->s.cpu[0];
	int64_t total = 8192, placed1 = 0, off = 0;
	struct page **pg = calloc((size_t)total, sizeof *pg);
	assert_non_null(pg);
	for (int64_t i = 0; i < total; i++) {
		pg[i] = mm_alloc_pages(t->w, c, GFP_KERNEL, 0);
		assert_non_null(pg[i]);
		int n = mm_page_node(t->w, pg[i]);
		placed1 += n == 1;
		off += n != 1 && n != 2;
	}
	/* node 1 has 4096 pages minus its reserves: some of its 4096 turns
	 * were served by node 2 (the next on its zonelist) */
	assert_true(placed1 < 4096);
	assert_int_equal(off, 0);
	assert_int_equal(node_ctr(t, 1, "interleave_hit"), placed1);
	assert_int_equal(node_ctr(t, 2, "interleave_hit"), 4096);
	numastat_sums(t, total, 0);
	for (int64_t i = 0; i < total; i++)
		mm_free_pages(t->w, c, pg[i], 0);
	free(pg);
	tw_destroy(t);
}

/* --- bind ----------------------------------------------------------------- */

static void test_bind_never_outside(void **state)
{
	(void)state;
	for (int v = MMZONE_ITER_PRE; v <= MMZONE_ITER_POST; v++) {
		static const int nodes[] = {1, 2};
		struct mm_config cfg = cfg_mpol(MPOL_BIND, nodes, 2);
		cfg.iter = (enum mmzone_iter)v;
		struct tw *t = tw_create(m_three, &cfg);
		struct cpu *c = &t->s.cpu[0];   /* node 0: not in the set */
		int64_t cap = 4096 + 16384 + 64, got = 0, failed = 0, n1 = 0;
		struct page **pg = calloc((size_t)cap, sizeof *pg);
		assert_non_null(pg);
		for (int64_t i = 0; i < cap; i++) {
			struct page *p = mm_alloc_pages(t->w, c, GFP_KERNEL, 0);
			if (!p) {
				failed++;
				continue;
			}
			int n = mm_page_node(t->w, p);
			assert_true(n == 1 || n == 2);
			n1 += n == 1;
			pg[got++] = p;
		}
		/* the set ran out of memory: failures, never node 0 */
		assert_true(failed > 0);
		assert_true(n1 > 0);
		assert_int_equal(node_ctr(t, 0, "alloc_fail") + node_ctr(t, 1, "alloc_fail") +
					 node_ctr(t, 2, "alloc_fail"),
				 failed);
		/* node 0 was never touched */
		struct mm_zone_info zi;
		assert_int_equal(mm_zone_get_info(t->w, 0, ZONE_NORMAL, -1, &zi), NS_OK);
		assert_int_equal(zi.allocated, 0);
		numastat_sums(t, got, 0);
		for (int64_t i = 0; i < got; i++)
			mm_free_pages(t->w, c, pg[i], 0);
		free(pg);
		tw_destroy(t);
	}
}

/* A bound CPU inside its set allocates locally first; __GFP_THISNODE
 * bypasses the task policy. */
static void test_bind_local_first(void **state)
{
	(void)state;
	static const int nodes[] = {0, 2};
	struct mm_config cfg = cfg_mpol(MPOL_BIND, nodes, 2);
	struct tw *t = tw_create(m_four, &cfg);
	struct cpu *c = &t->s.cpu[2];
	struct page *p = mm_alloc_pages(t->w, c, GFP_KERNEL, 0);
	assert_int_equal(mm_page_node(t->w, p), 2);
	assert_int_equal(node_ctr(t, 2, "numa_hit"), 1);
	assert_int_equal(node_ctr(t, 2, "local_node"), 1);
	mm_free_pages(t->w, c, p, 0);
	/* __GFP_THISNODE takes &default_policy (the local node), and a
	 * DMA32 request lies below policy_zone: bind applies to neither */
	c = &t->s.cpu[1];
	p = mm_alloc_pages(t->w, c, GFP_KERNEL | __GFP_THISNODE, 0);
	assert_int_equal(mm_page_node(t->w, p), 1);
	mm_free_pages(t->w, c, p, 0);
	tw_destroy(t);
}

/* --- preferred ------------------------------------------------------------ */

static void test_preferred_fallback_along_zonelist(void **state)
{
	(void)state;
	static const int nodes[] = {1};
	struct mm_config cfg = cfg_mpol(MPOL_PREFERRED, nodes, 1);
	struct tw *t = tw_create(m_three, &cfg);
	struct cpu *c = &t->s.cpu[0];          /* local node 0 */
	struct mm_zone_info zi;
	assert_int_equal(mm_zone_get_info(t->w, 1, ZONE_NORMAL, -1, &zi), NS_OK);
	int64_t low = zi.watermark[1];
	int64_t total = 6000, first_off = -1;
	struct page **pg = calloc((size_t)total, sizeof *pg);
	assert_non_null(pg);
	for (int64_t i = 0; i < total; i++) {
		pg[i] = mm_alloc_pages(t->w, c, GFP_KERNEL, 0);
		assert_non_null(pg[i]);
		int n = mm_page_node(t->w, pg[i]);
		if (n != 1 && first_off < 0) {
			first_off = i;
			/* the preferred node is below its low watermark now */
			assert_int_equal(mm_zone_get_info(t->w, 1, ZONE_NORMAL, -1, &zi), NS_OK);
			assert_true(zi.nr_free_pages_atomic <= low + 1);
		}
		if (first_off < 0)
			assert_int_equal(n, 1);
		else
			assert_int_equal(n, 2);   /* node 1's zonelist: 1, 2, 0 */
	}
	assert_true(first_off > 3000 && first_off < 4096);
	assert_true(node_ctr(t, 1, "numa_foreign") > 0);
	assert_int_equal(node_ctr(t, 0, "numa_hit") + node_ctr(t, 0, "numa_miss"), 0);
	numastat_sums(t, total, 0);
	for (int64_t i = 0; i < total; i++)
		mm_free_pages(t->w, c, pg[i], 0);
	free(pg);
	tw_destroy(t);
}

/* --- local, default, set-up errors --------------------------------------- */

static void test_local_and_default(void **state)
{
	(void)state;
	for (int m = MPOL_DEFAULT; m <= MPOL_LOCAL; m++) {
		struct mm_config cfg = cfg_mpol((enum mpol_mode)m, NULL, 0);
		struct tw *t = tw_create(m_four, &cfg);
		for (int k = 0; k < 4; k++) {
			struct page *p = mm_alloc_pages(t->w, &t->s.cpu[k], GFP_KERNEL, 0);
			assert_int_equal(mm_page_node(t->w, p), t->s.cpu[k].node);
			mm_free_pages(t->w, &t->s.cpu[k], p, 0);
			assert_int_equal(node_ctr(t, k, "numa_hit"), 1);
			assert_int_equal(node_ctr(t, k, "local_node"), 1);
		}
		tw_destroy(t);
	}
}

static void expect_setup_error(const struct mm_config *cfg, const char *needle)
{
	struct diag d;
	diag_init(&d);
	struct tw *t;
	assert_int_equal(tw_try(m_four, cfg, &t, &d), NS_EINPUT);
	assert_non_null(strstr(d.msg, needle));
	t->w = NULL;
	tw_destroy(t);
}

static void test_setup_errors(void **state)
{
	(void)state;
	static const int two[] = {0, 1}, bad[] = {7}, one[] = {2};
	struct mm_config c = cfg_mpol(MPOL_BIND, NULL, 0);
	expect_setup_error(&c, "needs nodes");
	c = cfg_mpol(MPOL_LOCAL, two, 2);
	expect_setup_error(&c, "takes no nodes");
	c = cfg_mpol(MPOL_PREFERRED, two, 2);
	expect_setup_error(&c, "exactly one node");
	c = cfg_mpol(MPOL_INTERLEAVE, bad, 1);
	expect_setup_error(&c, "no memory");
	c = cfg_mpol(MPOL_BIND, one, 1);
	c.cpusets_enabled = 1;
	c.nr_mems_allowed = 2;
	c.mems_allowed[0] = 0;
	c.mems_allowed[1] = 1;
	expect_setup_error(&c, "outside the cpuset");
	assert_int_equal(mpol_parse("interleave"), MPOL_INTERLEAVE);
	assert_int_equal(mpol_parse("membind"), -1);
	for (int m = 0; m <= MPOL_INTERLEAVE; m++)
		assert_int_equal(mpol_parse(mpol_name((enum mpol_mode)m)), m);
	assert_int_equal(vmstat_numa_rule_parse("v4.6"), VMSTAT_NUMA_V46);
	assert_int_equal(vmstat_numa_rule_parse(vmstat_numa_rule_name(VMSTAT_NUMA_SERIES)), VMSTAT_NUMA_SERIES);
}

/* Interleave inside a cpuset: the set is cut to mems_allowed. */
static void test_interleave_cpuset_cut(void **state)
{
	(void)state;
	static const int nodes[] = {0, 1, 2, 3};
	struct mm_config cfg = cfg_mpol(MPOL_INTERLEAVE, nodes, 4);
	cfg.cpusets_enabled = 1;
	cfg.nr_mems_allowed = 2;
	cfg.mems_allowed[0] = 1;
	cfg.mems_allowed[1] = 3;
	struct tw *t = tw_create(m_four, &cfg);
	for (int i = 0; i < 10; i++) {
		struct page *p = mm_alloc_pages(t->w, &t->s.cpu[0], GFP_KERNEL, 0);
		assert_int_equal(mm_page_node(t->w, p), i % 2 ? 3 : 1);
		mm_free_pages(t->w, &t->s.cpu[0], p, 0);
	}
	tw_destroy(t);
}

/* --- cpuset cost facts (issue 5) ------------------------------------------ */

/* Cycles per order-0 alloc+free pair in steady state (pcp hits), and the
 * __next_zones_zonelist calls per allocation. */
static void cpuset_cost(enum mmzone_iter v, int cpuset, double *cyc, double *nnzl,
			double *nzl)
{
	struct mm_config cfg;
	mm_config_default(&cfg);
	cfg.iter = v;
	cfg.cpusets_enabled = cpuset;          /* mems_allowed: every node */
	cfg.watermark_scale_factor = 1000;
	struct tw *t = tw_create(m_seedlike, &cfg);
	struct cpu *c = &t->s.cpu[0];
	struct page *pg[16];
	for (int r = 0; r < 4; r++) {
		for (int i = 0; i < 16; i++)
			pg[i] = mm_alloc_pages(t->w, c, GFP_KERNEL, 0);
		for (int i = 0; i < 16; i++)
			mm_free_pages(t->w, c, pg[i], 0);
	}
	uint64_t c0 = c->now, a0 = fn_calls(t, "__next_zones_zonelist");
	uint64_t b0 = fn_calls(t, "next_zones_zonelist");
	for (int r = 0; r < 100; r++) {
		for (int i = 0; i < 16; i++)
			pg[i] = mm_alloc_pages(t->w, c, GFP_KERNEL, 0);
		for (int i = 0; i < 16; i++)
			mm_free_pages(t->w, c, pg[i], 0);
	}
	*cyc = (double)(c->now - c0) / 1600.0;
	*nnzl = (double)(fn_calls(t, "__next_zones_zonelist") - a0) / 1600.0;
	*nzl = (double)(fn_calls(t, "next_zones_zonelist") - b0) / 1600.0;
	tw_destroy(t);
}

static void test_cpuset_all_nodes_cost(void **state)
{
	(void)state;
	double post0, post1, pre0, pre1, n0, n1, z0, z1;
	cpuset_cost(MMZONE_ITER_POST, 0, &post0, &n0, &z0);
	cpuset_cost(MMZONE_ITER_POST, 1, &post1, &n1, &z1);
	print_message("POST: none %.2f, all-node cpuset %.2f cycles/alloc+free; "
		      "__next_zones_zonelist/alloc %.2f -> %.2f\n", post0, post1, n0, n1);
	assert_true(post1 > post0);
	assert_true(n0 == 0.0);
	assert_true(n1 >= 2.0);                  /* first + next step of the walk */
	cpuset_cost(MMZONE_ITER_PRE, 0, &pre0, &n0, &z0);
	cpuset_cost(MMZONE_ITER_PRE, 1, &pre1, &n1, &z1);
	print_message("PRE: none %.2f, all-node cpuset %.2f cycles/alloc+free; "
		      "next_zones_zonelist/alloc %.2f -> %.2f\n", pre0, pre1, z0, z1);
	/* PRE walks the same out-of-line iterator with or without a cpuset */
	assert_true(z0 == z1 && z0 >= 2.0);
	assert_true(n0 == 0.0 && n1 == 0.0);
	/* what the cpuset adds in PRE is the cpuset_zone_allowed check both
	 * variants make; POST adds the slow iterator on top */
	assert_true(post1 - post0 > pre1 - pre0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_interleave_round_robin),
		cmocka_unit_test(test_interleave_miss_when_full),
		cmocka_unit_test(test_bind_never_outside),
		cmocka_unit_test(test_bind_local_first),
		cmocka_unit_test(test_preferred_fallback_along_zonelist),
		cmocka_unit_test(test_local_and_default),
		cmocka_unit_test(test_setup_errors),
		cmocka_unit_test(test_interleave_cpuset_cut),
		cmocka_unit_test(test_cpuset_all_nodes_cost),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
