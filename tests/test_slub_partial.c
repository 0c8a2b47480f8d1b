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

/* --- kernel.commit's SLUB tree: b47291ef02b0 and 23e98ad1ce89 --------------- */

static struct slub_config cfg_cp(enum kcommit x)
{
	struct slub_config cfg = cfg_of(SLUB_POST, SLUB_GCC, 1);
	cfg.commit = x;
	return cfg;
}

/* set_cpu_partial / slub_set_cpu_partial per commit: the targets, and the
 * pages DIV_ROUND_UP(objects * 2, oo_objects) from b47291ef02b0 on. */
static void test_cpu_partial_targets(void **state)
{
	(void)state;
	static const struct {
		enum kcommit x;
		unsigned k64, k64_pages, skb, skb_pages, k512, k512_pages;
	} want[] = {
		/* two CPUs: kmalloc-64 64 objects, skbuff_head_cache 16, kmalloc-512 16 */
		{KC_v5_9, 30, 0, 13, 0, 13, 0},
		{KC_slub_01, 30, 1, 13, 2, 13, 2},       /* 60/64, 26/16 rounded up */
		{KC_slub_02, 120, 4, 52, 7, 52, 7},   /* 240/64, 104/16 */
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
		assert_int_equal(cinfo(t->k512).cpu_partial_pages, want[i].x >= KC_slub_01 ? 5 : 0);
		wfx_destroy(t);
	}
	assert_string_equal(kcommit_id(KC_slub_01), "b47291ef02b0");
	assert_int_equal(kcommit_parse("slub", "23e98ad1ce89"), KC_slub_02);
	assert_int_equal(kcommit_parse("slub", "v5.9"), KC_v5_9);
	assert_int_equal(kcommit_parse("slub", "b47291"), KCOMMIT_UNSET);
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
		enum kcommit x;
		unsigned drains;        /* bit k: the free into slab k drains */
	} want[] = {{KC_v5_9, 1u << 1},
		    {KC_slub_01, 1u << 2 | 1u << 4 | 1u << 6 | 1u << 8},
		    {KC_slub_02, 1u << 7}};
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
			assert_int_equal(ran(t, 1, &b, "P2b"), want[i].x == KC_v5_9);
			assert_int_equal(ran(t, 1, &b, "P2c"), want[i].x != KC_v5_9);
			/* both sites fall through when true (the drain follows the test) */
			assert_int_equal(taken(t, 1, &b, want[i].x == KC_v5_9 ? "P2b" : "P2c"),
					 !drains);
			struct slub_cpu_info ci;
			assert_int_equal(slub_cpu_info(t->w, s, 1, &ci), NS_OK);
			if (want[i].x != KC_v5_9) {
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
		enum kcommit x;
		int node;               /* CPU_PARTIAL_NODE of the refill */
		const char *site;
	} want[] = {{KC_v5_9, 3, "gpn_enough"},
		    {KC_slub_01, 2, "gpn_enough_pages"},
		    {KC_slub_02, 4, "gpn_enough_pages"}};
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

/*
 * The pair on the 8-CPU guest's geometry (configs/guest-8cpu-4g.yaml's one
 * node, scenarios/slub-cpu-partial.yaml): skbuff_head_cache and kmalloc-512
 * have 32 objects a slab there (order 1 and 2), set_cpu_partial gives 13
 * objects (52 with 23e98ad1ce89), so cpu_partial_pages is
 * DIV_ROUND_UP(26, 32) = 1 with b47291ef02b0 and DIV_ROUND_UP(104, 32) = 4
 * with both.  One free into each of 16 full slabs on CPU 1 (each freezes
 * its slab onto CPU 1's list with drain = 1): v5.9 drains when the head's
 * pobjects (1 a slab) exceed 13, at the 15th slab; b47291ef02b0 whenever a
 * slab is listed, at every slab after the first; 23e98ad1ce89 when 4 are,
 * at slabs 4, 8 and 12.  Then a refill of CPU 0 from node partial slabs
 * of 2 free objects each: v5.9 stops when the objects taken exceed 13 / 2
 * (the cpu slab and 3 more), b47291ef02b0 after 1 slab on the per-cpu list
 * (1 > 1 / 2), 23e98ad1ce89 after 3 (3 > 4 / 2).
 */
#define SLUB_MACHINE_GUEST                                                      \
	"name: guest\nnodes:\n  - id: 0\n    cpus: \"0-7\"\n    zones:\n"          \
	"      - {type: Normal, size: 256MiB}\n"                                 \
	"distance:\n  - [10]\n" COSTS

static void test_cpu_partial_guest(void **state)
{
	(void)state;
	static const struct {
		enum kcommit x;
		unsigned cpu_partial, pages;
		unsigned drains;        /* bit k: the free into slab k drains */
		int node;               /* CPU_PARTIAL_NODE of the refill */
	} want[] = {
		{KC_v5_9, 13, 0, 1u << 14, 3},
		{KC_slub_01, 13, 1, 0xfffeu, 1},
		{KC_slub_02, 52, 4, 1u << 4 | 1u << 8 | 1u << 12, 3},
	};
	struct cpu_params p;
	cpu_params_default(&p);
	for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
		struct slub_config cfg = cfg_cp(want[i].x);
		struct wfx *t = tw_create_bp(&cfg, SLUB_MACHINE_GUEST, p.bpred.mode);
		struct slub_cache *caches[2] = {t->skb, t->k512};
		for (int ci = 0; ci < 2; ci++) {
			struct slub_cache *s = caches[ci];
			struct slub_cache_info info = cinfo(s);
			assert_int_equal(info.objects, 32);
			assert_int_equal(info.order, ci == 0 ? 1 : 2);
			assert_int_equal(info.cpu_partial, want[i].cpu_partial);
			assert_int_equal(info.cpu_partial_pages, want[i].pages);
			slub_obj_t *o = make_full(t, s, 16, 32);
			struct snapshot b;
			for (int k = 0; k < 16; k++) {
				snap(t, s, 1, &b);
				fr(t, 1, s, o[k * 32]);
				assert_int_equal(slub_stat(t->w, s, 1, SLUB_CPU_PARTIAL_FREE) -
							 b.stat[SLUB_CPU_PARTIAL_FREE], 1);
				assert_int_equal(slub_stat(t->w, s, 1, SLUB_CPU_PARTIAL_DRAIN) -
							 b.stat[SLUB_CPU_PARTIAL_DRAIN],
						 (want[i].drains >> k) & 1);
			}
			/* 2 free objects in each of 16 slabs, all on node 0's list */
			for (int k = 0; k < 16; k++)
				fr(t, 1, s, o[k * 32 + 1]);
			slub_flush_cpu(t->w, cpu(t, 1), s);
			for (int k = 0; k < 31; k++)     /* CPU 0's cpu slab runs out */
				alloc(t, 0, s);
			snap(t, s, 0, &b);
			alloc(t, 0, s);
			assert_int_equal(slub_stat(t->w, s, 0, SLUB_ALLOC_FROM_PARTIAL) -
						 b.stat[SLUB_ALLOC_FROM_PARTIAL], 1);
			assert_int_equal(slub_stat(t->w, s, 0, SLUB_CPU_PARTIAL_NODE) -
						 b.stat[SLUB_CPU_PARTIAL_NODE], want[i].node);
			free(o);
		}
		wfx_check(t);
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
		cmocka_unit_test(test_cpu_partial_guest),
		cmocka_unit_test(test_where_counters),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
