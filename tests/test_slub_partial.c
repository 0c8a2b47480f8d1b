/*
 * Tests for models/slub: the per-cpu partial list.  put_cpu_partial's
 * drains (v5.9's pobjects > cpu_partial, kept and discarded slabs, the
 * sysfs cpu_partial 0), CONFIG_SLUB_CPU_PARTIAL=n (__slab_free's B1-B3),
 * the SLUB commits of kernel.commit (models/kcommit.h, tree "slub"):
 * b47291ef02b0's accounting in slabs (slub_set_cpu_partial's
 * cpu_partial_pages, the drain at the slab count it gives, get_partial_node's
 * stop by slabs) and 23e98ad1ce89's larger targets, on two CPUs and on the
 * 8-CPU guest's geometry; the where_* counters.  slub_check() and
 * mm_check() run at the end of every test.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/slub_fixture.h"

/* Drains: pobjects > cpu_partial at the next put, kept and discarded slabs. */
static void test_free_drain(void **state)
{
	(void)state;
	for (size_t li = 0; li < sizeof layouts / sizeof layouts[0]; li++) {
		const struct layout_case *l = &layouts[li];
		struct slub_config cfg = cfg_of(l->v, l->c, 1);
		struct wfx *t = tw_create(&cfg);
		struct slub_cache *s = t->k512;   /* 16 objects, cpu_partial 13, min_partial 5 */
		struct snapshot b;
		slub_obj_t *o = make_full(t, s, 9, 16);
		/* slab 0: a bulk free of 14 objects on CPU 1: B with pobjects 14 */
		slub_obj_t bulk[16];
		for (int i = 0; i < 14; i++)
			bulk[i] = o[i];
		snap(t, s, 1, &b);
		assert_int_equal(slub_free_bulk(t->w, cpu(t, 1), s, 14, bulk), NS_OK);
		expect_stats(t, s, 1, &b, (int[SLUB_NR_STATS])WANT([SLUB_FREE_SLOWPATH] = 1,
								   [SLUB_CPU_PARTIAL_FREE] = 1));
		for (int i = 0; i < 14; i++)
			assert_true(bulk[i] == 0);
		struct slub_cpu_info ci;
		assert_int_equal(slub_cpu_info(t->w, s, 1, &ci), NS_OK);
		assert_int_equal(ci.pobjects, 14);
		/* slab 1: one free: 14 > 13 drains slab 0 to node 0's tail, then slab 1 is put */
		snap(t, s, 1, &b);
		fr(t, 1, s, o[16]);
		expect_stats(t, s, 1, &b, (int[SLUB_NR_STATS])WANT([SLUB_FREE_SLOWPATH] = 1,
								   [SLUB_FREE_ADD_PARTIAL] = 1,
								   [SLUB_CPU_PARTIAL_DRAIN] = 1,
								   [SLUB_CPU_PARTIAL_FREE] = 1));
		assert_int_equal(ran(t, 1, &b, "P2b"), 1);
		assert_int_equal(ran(t, 1, &b, "U1"), 1);
		expect_n_block(t, l, 1, &b, 0, 1);
		assert_int_equal(slab(t, o[0]).loc, SLUB_LOC_NODE_PARTIAL);
		assert_int_equal(slab(t, o[16]).loc, SLUB_LOC_CPU_PARTIAL);
		assert_int_equal(slub_cpu_info(t->w, s, 1, &ci), NS_OK);
		assert_int_equal(ci.partial_slabs, 1);
		assert_int_equal(ci.pobjects, 1);
		/* slabs 2..5: one free each, then a flush: 5 slabs on node 0 */
		for (int k = 2; k <= 5; k++)
			fr(t, 1, s, o[k * 16]);
		slub_flush_cpu(t->w, cpu(t, 1), s);
		struct slub_node_info ni;
		assert_int_equal(slub_node_info(t->w, s, 0, &ni), NS_OK);
		assert_int_equal(ni.nr_partial, 6);
		/* slab 6 emptied by one bulk free (FULL and empty in one call: still B) */
		for (int i = 0; i < 16; i++)
			bulk[i] = o[6 * 16 + i];
		snap(t, s, 1, &b);
		assert_int_equal(slub_free_bulk(t->w, cpu(t, 1), s, 16, bulk), NS_OK);
		expect_stats(t, s, 1, &b, (int[SLUB_NR_STATS])WANT([SLUB_FREE_SLOWPATH] = 1,
								   [SLUB_CPU_PARTIAL_FREE] = 1));
		struct slub_slab_info si = slab(t, o[6 * 16]);
		assert_int_equal(si.loc, SLUB_LOC_CPU_PARTIAL);
		assert_int_equal(si.inuse, 0);
		/* slab 7: the drain discards empty slab 6 (nr_partial 6 >= 5) */
		snap(t, s, 1, &b);
		fr(t, 1, s, o[7 * 16]);
		expect_stats(t, s, 1, &b, (int[SLUB_NR_STATS])WANT([SLUB_FREE_SLOWPATH] = 1,
								   [SLUB_DEACTIVATE_EMPTY] = 1,
								   [SLUB_FREE_SLAB] = 1,
								   [SLUB_CPU_PARTIAL_DRAIN] = 1,
								   [SLUB_CPU_PARTIAL_FREE] = 1));
		assert_int_equal(taken(t, 1, &b, "U1"), 1);   /* unlikely() was wrong */
		assert_int_equal(slub_slab_info(t->w, o[6 * 16], &si), NS_ENOENT);
		/* cpu_partial 0 (sysfs): P3 unfreezes at once */
		assert_int_equal(slub_set_cpu_partial(s, 0), NS_OK);
		snap(t, s, 1, &b);
		fr(t, 1, s, o[8 * 16]);
		/* the chain (slab 7, pobjects 1 > 0) drains first, then P3 unfreezes slab 8 */
		expect_stats(t, s, 1, &b, (int[SLUB_NR_STATS])WANT([SLUB_FREE_SLOWPATH] = 1,
								   [SLUB_FREE_ADD_PARTIAL] = 2,
								   [SLUB_CPU_PARTIAL_DRAIN] = 1,
								   [SLUB_CPU_PARTIAL_FREE] = 1));
		assert_int_equal(taken(t, 1, &b, "P3"), 1);
		assert_int_equal(slab(t, o[8 * 16]).loc, SLUB_LOC_NODE_PARTIAL);
		assert_int_equal(slab(t, o[7 * 16]).loc, SLUB_LOC_NODE_PARTIAL);
		free(o);
		wfx_destroy(t);
	}
}

/* B1-B3: no cpu partial (CONFIG_SLUB_CPU_PARTIAL=n). */
static void test_free_no_cpu_partial(void **state)
{
	(void)state;
	for (size_t li = 0; li < sizeof layouts / sizeof layouts[0]; li++) {
		const struct layout_case *l = &layouts[li];
		struct slub_config cfg = cfg_of(l->v, l->c, 1);
		cfg.cpu_partial = 0;
		struct wfx *t = tw_create(&cfg);
		struct slub_cache *s = t->k512;
		assert_int_equal(cinfo(s).cpu_partial, 0);
		assert_int_equal(slub_set_cpu_partial(s, 5), NS_ERANGE);
		struct snapshot b;
		slub_obj_t *o = make_full(t, s, 8, 16);
		/* B2: slab 0 emptied in one bulk free, nr_partial 0 < 5: kept, add_partial */
		slub_obj_t bulk[16];
		memcpy(bulk, o, sizeof bulk);
		snap(t, s, 1, &b);
		assert_int_equal(slub_free_bulk(t->w, cpu(t, 1), s, 16, bulk), NS_OK);
		expect_stats(t, s, 1, &b, (int[SLUB_NR_STATS])WANT([SLUB_FREE_SLOWPATH] = 1,
								   [SLUB_FREE_ADD_PARTIAL] = 1));
		assert_int_equal(ran(t, 1, &b, "S3a"), 1);
		assert_int_equal(taken(t, 1, &b, "S5"), 1);
		assert_int_equal(ran(t, 1, &b, "S9b"), 1);
		struct slub_slab_info si = slab(t, o[0]);
		assert_int_equal(si.loc, SLUB_LOC_NODE_PARTIAL);
		assert_int_equal(si.inuse, 0);
		/* B1: slabs 1..5, one free each: FULL -> node partial tail */
		for (int k = 1; k <= 5; k++) {
			snap(t, s, 1, &b);
			fr(t, 1, s, o[k * 16]);
			expect_stats(t, s, 1, &b, (int[SLUB_NR_STATS])WANT([SLUB_FREE_SLOWPATH] = 1,
									   [SLUB_FREE_ADD_PARTIAL] = 1));
			assert_int_equal(slab(t, o[k * 16 + 1]).loc, SLUB_LOC_NODE_PARTIAL);
		}
		struct slub_node_info ni;
		assert_int_equal(slub_node_info(t->w, s, 0, &ni), NS_OK);
		assert_int_equal(ni.nr_partial, 6);
		/* B3: slab 6 emptied in one call with nr_partial >= 5: freed, no REMOVE_PARTIAL */
		memcpy(bulk, &o[6 * 16], sizeof bulk);
		snap(t, s, 1, &b);
		assert_int_equal(slub_free_bulk(t->w, cpu(t, 1), s, 16, bulk), NS_OK);
		expect_stats(t, s, 1, &b, (int[SLUB_NR_STATS])WANT([SLUB_FREE_SLOWPATH] = 1,
								   [SLUB_FREE_SLAB] = 1));
		assert_int_equal(ran(t, 1, &b, "S10"), 1);
		assert_int_equal(taken(t, 1, &b, "S10"), 1);   /* prior == NULL */
		assert_int_equal(slub_slab_info(t->w, o[6 * 16], &si), NS_ENOENT);
		/* A and C are unchanged without cpu partial */
		snap(t, s, 1, &b);
		fr(t, 1, s, o[17]);
		expect_stats(t, s, 1, &b, (int[SLUB_NR_STATS])WANT([SLUB_FREE_SLOWPATH] = 1));
		expect_n_block(t, l, 1, &b, 0, 0);
		slub_obj_t a = alloc(t, 0, s);
		snap(t, s, 1, &b);
		fr(t, 1, s, a);
		expect_stats(t, s, 1, &b, (int[SLUB_NR_STATS])WANT([SLUB_FREE_SLOWPATH] = 1,
								   [SLUB_FREE_FROZEN] = 1));
		free(o);
		wfx_destroy(t);
	}
}

/* --- kernel.slub_cpu_partial: b47291ef02b0 and 23e98ad1ce89 ------------------ */

static struct slub_config cfg_cp(enum slub_cpu_partial_commit x)
{
	struct slub_config cfg = cfg_of(SLUB_POST, SLUB_GCC, 1);
	cfg.cp_commit = x;
	return cfg;
}

/* set_cpu_partial / slub_set_cpu_partial per commit: the targets, and the
 * pages DIV_ROUND_UP(objects * 2, oo_objects) from b47291ef02b0 on. */
static void test_cpu_partial_targets(void **state)
{
	(void)state;
	static const struct {
		enum slub_cpu_partial_commit x;
		unsigned k64, k64_pages, skb, skb_pages, k512, k512_pages;
	} want[] = {
		/* two CPUs: kmalloc-64 64 objects, skbuff_head_cache 16, kmalloc-512 16 */
		{SLUB_CP_V59, 30, 0, 13, 0, 13, 0},
		{SLUB_CP_PAGES, 30, 1, 13, 2, 13, 2},       /* 60/64, 26/16 rounded up */
		{SLUB_CP_DEFAULTS, 120, 4, 52, 7, 52, 7},   /* 240/64, 104/16 */
	};
	for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
		struct slub_config cfg = cfg_cp(want[i].x);
		struct wfx *t = tw_create(&cfg);
		assert_int_equal(cinfo(t->k64).objects, 64);
		assert_int_equal(cinfo(t->skb).objects, 16);
		assert_int_equal(cinfo(t->k512).objects, 16);
		assert_int_equal(cinfo(t->k64).cpu_partial, want[i].k64);
		assert_int_equal(cinfo(t->k64).cpu_partial_pages, want[i].k64_pages);
		assert_int_equal(cinfo(t->skb).cpu_partial, want[i].skb);
		assert_int_equal(cinfo(t->skb).cpu_partial_pages, want[i].skb_pages);
		assert_int_equal(cinfo(t->k512).cpu_partial, want[i].k512);
		assert_int_equal(cinfo(t->k512).cpu_partial_pages, want[i].k512_pages);
		/* the sysfs store goes through slub_set_cpu_partial too */
		assert_int_equal(slub_set_cpu_partial(t->k512, 40), NS_OK);
		assert_int_equal(cinfo(t->k512).cpu_partial_pages, want[i].x >= SLUB_CP_PAGES ? 5 : 0);
		wfx_destroy(t);
	}
	assert_string_equal(slub_cpu_partial_commit_name(SLUB_CP_PAGES), "b47291ef02b0");
	assert_int_equal(slub_cpu_partial_commit_parse("23e98ad1ce89"), SLUB_CP_DEFAULTS);
	assert_int_equal(slub_cpu_partial_commit_parse("v5.9"), SLUB_CP_V59);
	assert_int_equal(slub_cpu_partial_commit_parse("b47291"), -1);
}

/* put_cpu_partial's drain: v5.9 when the head's pobjects exceed 13,
 * b47291ef02b0 when the list already holds cpu_partial_pages (2) slabs,
 * whatever their free counts; 23e98ad1ce89 at 7 slabs. */
static void test_cpu_partial_drain_pages(void **state)
{
	(void)state;
	/* slab 0 is put first (bulk free of 14), then slabs 1..8 one free each:
	 * v5.9 drains at slab 1 (pobjects 14 > 13) and then holds 8 slabs
	 * (pobjects 8); pages (limit 2) drains whenever 2 slabs are listed: at
	 * slabs 2, 4, 6, 8; 23e98ad1ce89 (limit 7) at slab 7 */
	static const struct {
		enum slub_cpu_partial_commit x;
		unsigned drains;        /* bit k: the free into slab k drains */
	} want[] = {{SLUB_CP_V59, 1u << 1},
		    {SLUB_CP_PAGES, 1u << 2 | 1u << 4 | 1u << 6 | 1u << 8},
		    {SLUB_CP_DEFAULTS, 1u << 7}};
	for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
		struct slub_config cfg = cfg_cp(want[i].x);
		struct wfx *t = tw_create(&cfg);
		struct slub_cache *s = t->k512;
		struct snapshot b;
		slub_obj_t *o = make_full(t, s, 9, 16);
		/* slab 0: 14 objects in one bulk free (pobjects 14 under v5.9) */
		slub_obj_t bulk[16];
		for (int k = 0; k < 14; k++)
			bulk[k] = o[k];
		assert_int_equal(slub_free_bulk(t->w, cpu(t, 1), s, 14, bulk), NS_OK);
		for (int k = 1; k < 9; k++) {
			snap(t, s, 1, &b);
			fr(t, 1, s, o[k * 16]);
			int drains = (want[i].drains >> k) & 1;
			assert_int_equal(slub_stat(t->w, s, 1, SLUB_CPU_PARTIAL_DRAIN) -
						 b.stat[SLUB_CPU_PARTIAL_DRAIN],
					 drains);
			assert_int_equal(ran(t, 1, &b, "P2b"), want[i].x == SLUB_CP_V59);
			assert_int_equal(ran(t, 1, &b, "P2c"), want[i].x != SLUB_CP_V59);
			/* both sites fall through when true (the drain follows the test) */
			assert_int_equal(taken(t, 1, &b, want[i].x == SLUB_CP_V59 ? "P2b" : "P2c"),
					 !drains);
			struct slub_cpu_info ci;
			assert_int_equal(slub_cpu_info(t->w, s, 1, &ci), NS_OK);
			if (want[i].x != SLUB_CP_V59) {
				assert_true(ci.partial_slabs <= cinfo(s).cpu_partial_pages);
				assert_int_equal(ci.pobjects, 0);   /* no pobjects kept */
			}
		}
		wfx_check(t);
		free(o);
		wfx_destroy(t);
	}
}

/* get_partial_node's stop: v5.9 by free objects (> 6), b47291ef02b0 by
 * slabs put on the per-cpu list (> cpu_partial_pages / 2 = 1), 23e98ad1ce89
 * (> 3): from 6 node partial slabs of 2 free objects each. */
static void test_cpu_partial_refill_pages(void **state)
{
	(void)state;
	static const struct {
		enum slub_cpu_partial_commit x;
		int node;               /* CPU_PARTIAL_NODE of the refill */
		const char *site;
	} want[] = {{SLUB_CP_V59, 3, "gpn_enough"},
		    {SLUB_CP_PAGES, 2, "gpn_enough_pages"},
		    {SLUB_CP_DEFAULTS, 4, "gpn_enough_pages"}};
	for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
		struct slub_config cfg = cfg_cp(want[i].x);
		struct wfx *t = tw_create(&cfg);
		struct slub_cache *s = t->k512;
		slub_obj_t *o = make_full(t, s, 6, 16);
		for (int k = 0; k < 6; k++) {
			fr(t, 1, s, o[k * 16]);
			fr(t, 1, s, o[k * 16 + 1]);
		}
		slub_flush_cpu(t->w, cpu(t, 1), s);
		for (int k = 0; k < 15; k++)
			alloc(t, 0, s);
		struct snapshot b;
		snap(t, s, 0, &b);
		alloc(t, 0, s);
		expect_stats(t, s, 0, &b, (int[SLUB_NR_STATS])WANT([SLUB_ALLOC_SLOWPATH] = 1,
								   [SLUB_DEACTIVATE_BYPASS] = 1,
								   [SLUB_ALLOC_FROM_PARTIAL] = 1,
								   [SLUB_CPU_PARTIAL_NODE] = want[i].node));
		assert_int_equal(ran(t, 0, &b, want[i].site), want[i].node + 1);
		assert_int_equal(ran(t, 0, &b, "gpn_enough") + ran(t, 0, &b, "gpn_enough_pages"),
				 want[i].node + 1);
		struct slub_node_info ni;
		assert_int_equal(slub_node_info(t->w, s, 0, &ni), NS_OK);
		assert_int_equal(ni.nr_partial, 6 - 1 - want[i].node);
		wfx_check(t);
		free(o);
		wfx_destroy(t);
	}
}

/* The where_* counters: each slow-path free counted once, by the slab's
 * place at the call. */
static void test_where_counters(void **state)
{
	(void)state;
	struct slub_config cfg = cfg_of(SLUB_POST, SLUB_GCC, 1);
	struct wfx *t = tw_create(&cfg);
	struct slub_cache *s = t->k512;
	slub_obj_t *o = make_full(t, s, 2, 16);
	uint64_t w0[SLUB_NR_WHERE];
	memcpy(w0, cinfo(s).where, sizeof w0);
#define WHERE(x) (cinfo(s).where[SLUB_WHERE_##x] - w0[SLUB_WHERE_##x])
	/* o[32] is in CPU 0's cpu slab: CPU 1's free finds it there */
	fr(t, 1, s, o[32]);
	assert_int_equal(WHERE(CPU_SLAB), 1);
	/* slab 0 is full: frozen onto CPU 1's chain by the first free ... */
	fr(t, 1, s, o[0]);
	assert_int_equal(WHERE(FULL), 1);
	/* ... found there by CPU 1's next free (its own list), and by a free
	 * on CPU 0, which allocated from the slab: the list is neither the
	 * freeing CPU's nor the alloc CPU's, so "a third CPU's list" */
	fr(t, 1, s, o[1]);
	assert_int_equal(WHERE(OWN_CPU_PARTIAL), 1);
	fr(t, 0, s, o[2]);
	assert_int_equal(WHERE(OTHER_CPU_PARTIAL), 1);
	assert_int_equal(WHERE(BY_ALLOC_CPU), 1);
	/* to the node list, then a free there */
	slub_flush_cpu(t->w, cpu(t, 1), s);
	fr(t, 1, s, o[3]);
	assert_int_equal(WHERE(NODE_PARTIAL), 1);
	assert_int_equal(WHERE(ALLOC_CPU_PARTIAL), 0);
#undef WHERE
	uint64_t sum = 0;
	for (int x = 0; x < SLUB_NR_WHERE; x++)
		if (x != SLUB_WHERE_BY_ALLOC_CPU)
			sum += cinfo(s).where[x];
	assert_int_equal(sum, slub_stat(t->w, s, -1, SLUB_FREE_SLOWPATH));
	wfx_check(t);
	free(o);
	wfx_destroy(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_free_drain),
		cmocka_unit_test(test_free_no_cpu_partial),
		cmocka_unit_test(test_cpu_partial_targets),
		cmocka_unit_test(test_cpu_partial_drain_pages),
		cmocka_unit_test(test_cpu_partial_refill_pages),
		cmocka_unit_test(test_where_counters),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
