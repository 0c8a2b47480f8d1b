/*
 * Tests for models/slub: cache geometry against hand-computed values of
 * the kernel's formulas (calculate_order, set_min_partial,
 * set_cpu_partial) for several nr_cpu_ids; the outcomes of __slab_free
 * with cpu partial on (slub-free.md §3 and §6: cases A-E) for both
 * variants and both compiler layouts, checking the exact stat deltas,
 * which sites ran (from the CPU's site stats) and the slab's resulting
 * location; the allocation paths (fast, slab, refill, bypass, cpu partial,
 * node partial, node mismatch); a forced cmpxchg retry through the race
 * hook; conservation under random alloc/free on two CPUs of different
 * nodes; counters; determinism; SLUB's fast copy under sampled accounting.
 * The drains and the per-cpu partial list's commits are in
 * test_slub_partial.c, the layouts' costs in test_slub_cost.c.
 * slub_check() and mm_check() run at the end of every test.
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

/* --- geometry ----------------------------------------------------------------- */

static void expect_geo(struct slub_cache *s, unsigned size, unsigned order, unsigned objects,
		       unsigned long min_partial, unsigned cpu_partial)
{
	struct slub_cache_info i = cinfo(s);
	if (i.size != size || i.order != order || i.objects != objects ||
	    i.min_partial != min_partial || i.cpu_partial != cpu_partial)
		fprintf(stderr, "%s: size %u o%u/%u min_partial %lu cpu_partial %u\n",
			slub_cache_name(s), i.size, i.order, i.objects, i.min_partial,
			i.cpu_partial);
	assert_int_equal(i.size, size);
	assert_int_equal(i.order, order);
	assert_int_equal(i.objects, objects);
	assert_int_equal(i.min_partial, min_partial);
	assert_int_equal(i.cpu_partial, cpu_partial);
}

static void test_geometry_two_cpus(void **state)
{
	(void)state;
	struct slub_config cfg = cfg_of(SLUB_PRE, SLUB_GCC, 1);
	struct wfx *t = tw_create(&cfg);
	/* nr_cpu_ids 2: min_objects = 4 * (fls(2) + 1) = 12 */
	/* kmalloc-64: 12 * 64 = 768 -> order 0, 4096 % 64 = 0: o0/64;
	 * ilog2(64) / 2 = 3 -> 5; < 256 -> 30 */
	expect_geo(t->k64, 64, 0, 64, 5, 30);
	/* kmalloc-512: 12 * 512 = 6144 -> get_order 1: o1/16; 13 */
	expect_geo(t->k512, 512, 1, 16, 5, 13);
	struct slub_cache_info i = cinfo(t->k512);
	assert_int_equal(i.min_order, 0);
	assert_int_equal(i.min_objects, 8);
	assert_int_equal(i.align, 512);
	/* kmalloc-4k: objects at order 3 = 8 < 12 -> 8 -> o3/8;
	 * ilog2(4096) / 2 = 6; size >= PAGE_SIZE -> 2 */
	expect_geo(slub_cache_find(t->w, "kmalloc-4k"), 4096, 3, 8, 6, 2);
	/* skbuff_head_cache: 224 with HWCACHE_ALIGN: 64-byte aligned -> 256;
	 * 12 * 256 = 3072 -> o0/16; free pointer at ALIGN(112, 8) */
	expect_geo(t->skb, 256, 0, 16, 5, 13);
	i = cinfo(t->skb);
	assert_int_equal(i.object_size, 224);
	assert_int_equal(i.align, 64);
	assert_int_equal(i.offset, 112);
	/* kmalloc-96: 12 * 96 = 1152 -> o0: 4096 % 96 = 64 <= 256 -> o0/42 */
	expect_geo(slub_cache_find(t->w, "kmalloc-96"), 96, 0, 42, 5, 30);
	/* kmalloc-8: free pointer at offset 0, o0/512 */
	expect_geo(slub_cache_find(t->w, "kmalloc-8"), 8, 0, 512, 5, 30);
	assert_int_equal(cinfo(slub_cache_find(t->w, "kmalloc-8")).offset, 0);
	/* kmalloc-8k: o3/4, min order 1 */
	expect_geo(slub_cache_find(t->w, "kmalloc-8k"), 8192, 3, 4, 6, 2);
	assert_int_equal(cinfo(slub_cache_find(t->w, "kmalloc-8k")).min_order, 1);
	/* kmalloc_slab */
	assert_ptr_equal(slub_kmalloc_cache(t->w, 448), t->k512);
	assert_ptr_equal(slub_kmalloc_cache(t->w, 65), slub_cache_find(t->w, "kmalloc-96"));
	assert_ptr_equal(slub_kmalloc_cache(t->w, 130), slub_cache_find(t->w, "kmalloc-192"));
	assert_ptr_equal(slub_kmalloc_cache(t->w, 1), slub_cache_find(t->w, "kmalloc-8"));
	assert_null(slub_kmalloc_cache(t->w, 8193));
	assert_null(slub_kmalloc_cache(t->w, 0));
	wfx_destroy(t);
}

/* The table of slub-free.md §8 for other nr_cpu_ids. */
static void test_geometry_table(void **state)
{
	(void)state;
	static const struct {
		int n;
		const char *name;
		unsigned size, order, objects;
	} rows[] = {
		/* N=8: 4 * (4 + 1) = 20 */
		{8, "kmalloc-192", 192, 0, 21},   /* 3840 -> o0, 4096 % 192 = 64 <= 256 */
		{8, "kmalloc-256", 256, 1, 32},   /* 5120 -> o1 */
		{8, "kmalloc-512", 512, 2, 32},   /* 10240 -> o2 */
		{8, "skbuff_head_cache", 256, 1, 32},
		/* N=16: 4 * (5 + 1) = 24 */
		{16, "kmalloc-192", 192, 1, 42},  /* 4608 -> o1, 8192 % 192 = 128 <= 512 */
		{16, "kmalloc-1k", 1024, 3, 32},  /* 24576 -> o3 */
		/* N=128: 4 * (8 + 1) = 36 */
		{128, "kmalloc-128", 128, 1, 64}, /* 4608 -> o1 */
		{128, "kmalloc-256", 256, 2, 64}, /* 9216 -> o2 */
		{128, "kmalloc-512", 512, 3, 64}, /* 18432 -> o3 */
		{128, "kmalloc-2k", 2048, 3, 16}, /* min(36, 16) = 16 -> o3 */
		{128, "skbuff_head_cache", 256, 2, 64},
		/* N=4: 4 * (3 + 1) = 16 */
		{4, "kmalloc-1k", 1024, 2, 16},
		{4, "kmalloc-192", 192, 0, 21},
	};
	for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
		struct slub_config cfg = cfg_of(SLUB_POST, SLUB_GCC, 1);
		cfg.nr_cpu_ids = rows[i].n;
		struct wfx *t = tw_create(&cfg);
		struct slub_cache *s = slub_cache_find(t->w, rows[i].name);
		assert_non_null(s);
		struct slub_cache_info ci = cinfo(s);
		if (ci.order != rows[i].order || ci.objects != rows[i].objects)
			fprintf(stderr, "N=%d %s: o%u/%u\n", rows[i].n, rows[i].name, ci.order,
				ci.objects);
		assert_int_equal(ci.size, rows[i].size);
		assert_int_equal(ci.order, rows[i].order);
		assert_int_equal(ci.objects, rows[i].objects);
		wfx_destroy(t);
	}
	/* slub_min_objects / slub_max_order boot parameters */
	struct slub_config cfg = cfg_of(SLUB_PRE, SLUB_GCC, 1);
	cfg.slub_min_objects = 64;
	cfg.slub_max_order = 1;
	struct wfx *t = tw_create(&cfg);
	/* kmalloc-512: max objects at order 1 = 16 -> 16 -> o1/16 */
	expect_geo(t->k512, 512, 1, 16, 5, 13);
	/* kmalloc-4k: order_objects(1) = 2: 2 objects -> o1/2 */
	expect_geo(slub_cache_find(t->w, "kmalloc-4k"), 4096, 1, 2, 6, 2);
	struct diag d;
	diag_init(&d);
	struct slub_cache *x;
	assert_int_equal(slub_cache_create(t->w, "kmalloc-64", 64, 0, 0, &x, &d), NS_EINPUT);
	assert_non_null(strstr(d.msg, "exists"));
	diag_init(&d);
	assert_int_equal(slub_cache_create(t->w, "big", 3 * 4096, 0, 0, &x, &d), NS_ERANGE);
	diag_init(&d);
	assert_int_equal(slub_cache_create(t->w, "bad/name", 64, 0, 0, &x, &d), NS_ERANGE);
	diag_init(&d);
	assert_int_equal(slub_cache_create(t->w, "flags", 64, 0, 0x1u, &x, &d), NS_ERANGE);
	diag_init(&d);
	assert_int_equal(slub_cache_create(t->w, "rcu", 64, 0, SLUB_TYPESAFE_BY_RCU, &x, &d),
			 NS_OK);
	assert_int_equal(cinfo(x).offset, 64);
	assert_int_equal(cinfo(x).size, 72);
	wfx_destroy(t);
}

/* Cases A (cpu slab and cpu partial), B, C, E, D with cpu partial on. */
static void test_free_cases(void **state)
{
	(void)state;
	for (size_t li = 0; li < sizeof layouts / sizeof layouts[0]; li++) {
		const struct layout_case *l = &layouts[li];
		struct slub_config cfg = cfg_of(l->v, l->c, 1);
		struct wfx *t = tw_create(&cfg);
		struct slub_cache *s = t->k64;
		struct snapshot b;

		/* A: CPU 0's active slab, freed on CPU 1 (remote) */
		slub_obj_t a0 = alloc(t, 0, s), a1 = alloc(t, 0, s);
		snap(t, s, 1, &b);
		fr(t, 1, s, a1);
		expect_stats(t, s, 1, &b, (int[SLUB_NR_STATS])WANT([SLUB_FREE_SLOWPATH] = 1,
								   [SLUB_FREE_FROZEN] = 1));
		expect_n_block(t, l, 1, &b, 1, 1);
		assert_int_equal(ran(t, 1, &b, "S5"), 1);
		assert_int_equal(ran(t, 1, &b, "S2a"), 1);
		assert_int_equal(ran(t, 1, &b, "S2b"), 1);
		assert_int_equal(ran(t, 1, &b, "S2c"), 1);   /* prior NULL: was_frozen tested */
		assert_int_equal(taken(t, 1, &b, "S2c"), 1);
		assert_int_equal(ran(t, 1, &b, "S3a"), 0);
		assert_int_equal(ran(t, 1, &b, "S8a"), 0);
		struct slub_slab_info si = slab(t, a0);
		assert_int_equal(si.loc, SLUB_LOC_CPU_SLAB);
		assert_int_equal(si.cpu, 0);
		assert_int_equal(si.page_free, 1);
		assert_int_equal(si.inuse, 63);
		/* the fast path on CPU 0 */
		snap(t, s, 0, &b);
		fr(t, 0, s, a0);
		expect_stats(t, s, 0, &b, (int[SLUB_NR_STATS])WANT([SLUB_FREE_FASTPATH] = 1));
		assert_int_equal(ran(t, 0, &b, "free_fast"), 1);
		assert_int_equal(ran(t, 0, &b, "S5"), 0);
		assert_int_equal(slab(t, a0).inuse, 63);   /* fast frees leave inuse */
		wfx_check(t);

		/* B: a FULL slab freed on CPU 1 joins CPU 1's partial chain */
		slub_obj_t *o = make_full(t, s, 7, 64);
		snap(t, s, 1, &b);
		fr(t, 1, s, o[1]);
		expect_stats(t, s, 1, &b, (int[SLUB_NR_STATS])WANT([SLUB_FREE_SLOWPATH] = 1,
								   [SLUB_CPU_PARTIAL_FREE] = 1));
		expect_n_block(t, l, 1, &b, 0, 1);
		assert_int_equal(ran(t, 1, &b, "S3b"), 1);
		assert_int_equal(ran(t, 1, &b, "P1"), 1);
		assert_int_equal(ran(t, 1, &b, "P2a"), 0);  /* empty chain: no drain test */
		assert_int_equal(ran(t, 1, &b, "P3"), 1);
		si = slab(t, o[0]);
		assert_int_equal(si.loc, SLUB_LOC_CPU_PARTIAL);
		assert_int_equal(si.cpu, 1);
		assert_int_equal(si.frozen, 1);
		struct slub_cpu_info ci;
		assert_int_equal(slub_cpu_info(t->w, s, 1, &ci), NS_OK);
		assert_int_equal(ci.partial_slabs, 1);
		assert_int_equal(ci.pages, 1);
		assert_int_equal(ci.pobjects, 1);

		/* A on a CPU-partial slab: frozen, owner CPU 1, freed on CPU 0 */
		snap(t, s, 0, &b);
		fr(t, 0, s, o[2]);
		expect_stats(t, s, 0, &b, (int[SLUB_NR_STATS])WANT([SLUB_FREE_SLOWPATH] = 1,
								   [SLUB_FREE_FROZEN] = 1));
		expect_n_block(t, l, 0, &b, 1, 1);
		assert_int_equal(slab(t, o[0]).loc, SLUB_LOC_CPU_PARTIAL);

		/* B again for slabs 1..6, then flush CPU 1: six slabs go to node 0's list */
		for (int i = 1; i < 7; i++)
			fr(t, 1, s, o[i * 64]);
		snap(t, s, 1, &b);
		slub_flush_cpu(t->w, cpu(t, 1), s);
		expect_stats(t, s, 1, &b, (int[SLUB_NR_STATS])WANT([SLUB_FREE_ADD_PARTIAL] = 7));
		struct slub_node_info ni;
		assert_int_equal(slub_node_info(t->w, s, 0, &ni), NS_OK);
		assert_int_equal(ni.nr_partial, 7);
		wfx_check(t);

		/* C: node-partial slab, stays non-empty: no lock, no stat */
		uint64_t locks = cpu(t, 1)->ctr[CPU_CTR_lock_acquire];
		snap(t, s, 1, &b);
		fr(t, 1, s, o[3]);
		expect_stats(t, s, 1, &b, (int[SLUB_NR_STATS])WANT([SLUB_FREE_SLOWPATH] = 1));
		expect_n_block(t, l, 1, &b, 0, 0);
		assert_int_equal(ran(t, 1, &b, "S2a"), 1);
		assert_int_equal(ran(t, 1, &b, "S2b"), 1);
		assert_int_equal(ran(t, 1, &b, "S2c"), 0);
		assert_int_equal(cpu(t, 1)->ctr[CPU_CTR_lock_acquire], locks);
		assert_int_equal(slab(t, o[0]).loc, SLUB_LOC_NODE_PARTIAL);

		/* D: empty slab 0 while nr_partial (7) >= min_partial (5): freed */
		fr(t, 1, s, o[0]);
		for (int i = 4; i < 63; i++)
			fr(t, 1, s, o[i]);
		uint64_t pfn = slab(t, o[0]).pfn;
		snap(t, s, 1, &b);
		fr(t, 1, s, o[63]);
		expect_stats(t, s, 1, &b, (int[SLUB_NR_STATS])WANT([SLUB_FREE_SLOWPATH] = 1,
								   [SLUB_FREE_REMOVE_PARTIAL] = 1,
								   [SLUB_FREE_SLAB] = 1));
		assert_int_equal(ran(t, 1, &b, "S5"), 1);
		assert_int_equal(taken(t, 1, &b, "S5"), 1);   /* likely(!n) missed */
		assert_int_equal(ran(t, 1, &b, "S8b"), 1);
		assert_int_equal(ran(t, 1, &b, "S10"), 1);
		assert_int_equal(ran(t, 1, &b, "PRE6a") + ran(t, 1, &b, "POST6"), 0);
		assert_int_equal(slub_node_info(t->w, s, 0, &ni), NS_OK);
		assert_int_equal(ni.nr_partial, 6);
		assert_int_equal(slub_slab_info(t->w, o[0], &si), NS_ENOENT);
		(void)pfn;

		/* E: empty slabs 1 and 2 (D: nr_partial 6 -> 4), then slab 3: kept */
		for (int k = 1; k <= 2; k++)
			for (int i = 1; i < 64; i++)
				fr(t, 1, s, o[k * 64 + i]);
		assert_int_equal(slub_node_info(t->w, s, 0, &ni), NS_OK);
		assert_int_equal(ni.nr_partial, 4);
		for (int i = 2; i < 64; i++)
			fr(t, 1, s, o[3 * 64 + i]);
		snap(t, s, 1, &b);
		fr(t, 1, s, o[3 * 64 + 1]);
		expect_stats(t, s, 1, &b, (int[SLUB_NR_STATS])WANT([SLUB_FREE_SLOWPATH] = 1));
		assert_int_equal(ran(t, 1, &b, "S8a"), 1);
		assert_int_equal(ran(t, 1, &b, "S8b"), 1);
		assert_int_equal(taken(t, 1, &b, "S8b"), 0);
		assert_int_equal(ran(t, 1, &b, "S9a"), 1);
		assert_int_equal(ran(t, 1, &b, "S10"), 0);
		si = slab(t, o[3 * 64]);
		assert_int_equal(si.loc, SLUB_LOC_NODE_PARTIAL);
		assert_int_equal(si.inuse, 0);
		assert_int_equal(slub_node_info(t->w, s, 0, &ni), NS_OK);
		assert_int_equal(ni.nr_partial, 4);
		assert_int_equal(ni.partial_empty, 1);
		/* bad frees are refused and change nothing */
		slub_obj_t dup[3] = {o[4 * 64 + 1], o[4 * 64 + 2], o[4 * 64 + 1]};
		assert_int_equal(slub_free_bulk(t->w, cpu(t, 1), s, 3, dup), NS_EINTERNAL);
		assert_true(dup[0] == o[4 * 64 + 1] && dup[2] == o[4 * 64 + 1]);
		wfx_check(t);
		assert_int_equal(slub_free(t->w, cpu(t, 1), s, o[3 * 64]), NS_EINTERNAL);
		assert_int_equal(slub_free(t->w, cpu(t, 1), t->k512, o[4 * 64]), NS_EINTERNAL);
		assert_int_equal(slub_free(t->w, cpu(t, 1), s, 12345), NS_EINTERNAL);
		free(o);
		wfx_destroy(t);
	}
}

/* --- allocation paths ----------------------------------------------------------- */

static void test_alloc_paths(void **state)
{
	(void)state;
	struct slub_config cfg = cfg_of(SLUB_POST, SLUB_GCC, 1);
	struct wfx *t = tw_create(&cfg);
	struct slub_cache *s = t->k64;
	struct snapshot b;
	snap(t, s, 0, &b);
	slub_obj_t x = alloc(t, 0, s);
	expect_stats(t, s, 0, &b, (int[SLUB_NR_STATS])WANT([SLUB_ALLOC_SLOWPATH] = 1,
							   [SLUB_ALLOC_SLAB] = 1));
	struct slub_slab_info si = slab(t, x);
	assert_int_equal(si.loc, SLUB_LOC_CPU_SLAB);
	assert_int_equal(si.node, 0);   /* the CPU's node */
	assert_int_equal(si.inuse, 64);
	assert_int_equal(si.page_free, 0);
	struct slub_cpu_info ci;
	assert_int_equal(slub_cpu_info(t->w, s, 0, &ci), NS_OK);
	assert_int_equal(ci.freelist, 63);
	uint64_t tid = ci.tid;
	snap(t, s, 0, &b);
	slub_obj_t y = alloc(t, 0, s);
	expect_stats(t, s, 0, &b, (int[SLUB_NR_STATS])WANT([SLUB_ALLOC_FASTPATH] = 1));
	assert_int_equal(slub_obj_addr(t->w, y) - slub_obj_addr(t->w, x), 64);
	assert_int_equal(slub_cpu_info(t->w, s, 0, &ci), NS_OK);
	assert_int_equal(ci.tid, tid + 1);
	assert_ptr_equal(slub_obj_cache(t->w, y), s);
	/* exhaust the slab with one remote free in it: ALLOC_REFILL */
	slub_obj_t o[64];
	o[0] = x;
	o[1] = y;
	for (int i = 2; i < 64; i++)
		o[i] = alloc(t, 0, s);
	fr(t, 1, s, o[5]);
	snap(t, s, 0, &b);
	slub_obj_t r = alloc(t, 0, s);
	expect_stats(t, s, 0, &b, (int[SLUB_NR_STATS])WANT([SLUB_ALLOC_SLOWPATH] = 1,
							   [SLUB_ALLOC_REFILL] = 1));
	assert_true(r == o[5]);
	/* exhausted without remote frees: DEACTIVATE_BYPASS + ALLOC_SLAB */
	snap(t, s, 0, &b);
	slub_obj_t z = alloc(t, 0, s);
	expect_stats(t, s, 0, &b, (int[SLUB_NR_STATS])WANT([SLUB_ALLOC_SLOWPATH] = 1,
							   [SLUB_DEACTIVATE_BYPASS] = 1,
							   [SLUB_ALLOC_SLAB] = 1));
	assert_int_equal(slab(t, x).loc, SLUB_LOC_FULL);
	/* CPU 1 frees into the full slab (B): CPU 1 then allocates from it */
	fr(t, 1, s, o[7]);
	snap(t, s, 1, &b);
	r = alloc(t, 1, s);
	expect_stats(t, s, 1, &b, (int[SLUB_NR_STATS])WANT([SLUB_ALLOC_SLOWPATH] = 1,
							   [SLUB_CPU_PARTIAL_ALLOC] = 1,
							   [SLUB_ALLOC_REFILL] = 1));
	assert_true(r == o[7]);
	si = slab(t, r);
	assert_int_equal(si.loc, SLUB_LOC_CPU_SLAB);
	assert_int_equal(si.cpu, 1);
	assert_int_equal(si.node, 0);   /* a remote slab handed out on node 1's CPU */
	/* node mismatch: CPU 0 asks for node 1 while its slab is on node 0 */
	snap(t, s, 0, &b);
	slub_obj_t m = slub_alloc(t->w, cpu(t, 0), s, 1);
	assert_true(m != 0);
	expect_stats(t, s, 0, &b, (int[SLUB_NR_STATS])WANT([SLUB_ALLOC_SLOWPATH] = 1,
							   [SLUB_ALLOC_NODE_MISMATCH] = 1,
							   [SLUB_DEACTIVATE_TO_HEAD] = 1,
							   [SLUB_ALLOC_SLAB] = 1));
	assert_int_equal(slab(t, z).loc, SLUB_LOC_NODE_PARTIAL);
	assert_int_equal(slub_alloc(t->w, cpu(t, 0), s, 7), 0);   /* no node 7 */
	wfx_destroy(t);
}

/* get_partial_node: the first slab becomes the cpu slab, more join the chain. */
static void test_alloc_from_partial(void **state)
{
	(void)state;
	struct slub_config cfg = cfg_of(SLUB_PRE, SLUB_GCC, 1);
	struct wfx *t = tw_create(&cfg);
	struct slub_cache *s = t->k512;   /* 16 objects, cpu_partial 13: stop above 6 */
	slub_obj_t *o = make_full(t, s, 6, 16);
	/* 2 free objects in each of slabs 0..5, freed on CPU 1 (B, then A) */
	for (int k = 0; k < 6; k++) {
		fr(t, 1, s, o[k * 16]);
		fr(t, 1, s, o[k * 16 + 1]);
	}
	slub_flush_cpu(t->w, cpu(t, 1), s);
	struct slub_node_info ni;
	assert_int_equal(slub_node_info(t->w, s, 0, &ni), NS_OK);
	assert_int_equal(ni.nr_partial, 6);
	/* use up CPU 0's slab (15 objects left on its freelist) */
	for (int i = 0; i < 15; i++)
		alloc(t, 0, s);
	struct snapshot b;
	snap(t, s, 0, &b);
	slub_obj_t x = alloc(t, 0, s);
	/* available: 2 (cpu slab), +2, +2, +2 = 8 > 13 / 2 -> 4 slabs taken */
	expect_stats(t, s, 0, &b, (int[SLUB_NR_STATS])WANT([SLUB_ALLOC_SLOWPATH] = 1,
							   [SLUB_DEACTIVATE_BYPASS] = 1,
							   [SLUB_ALLOC_FROM_PARTIAL] = 1,
							   [SLUB_CPU_PARTIAL_NODE] = 3));
	assert_int_equal(slab(t, x).loc, SLUB_LOC_CPU_SLAB);
	/* the chain was LIFO (slab 5 first), unfreeze_partials adds to the tail:
	 * node 0's list runs 5, 4, ..., 0 and the head is taken first */
	assert_true(slab(t, x).pfn == slab(t, o[5 * 16]).pfn);
	assert_int_equal(slab(t, o[4 * 16]).loc, SLUB_LOC_CPU_PARTIAL);
	assert_int_equal(slab(t, o[1 * 16]).loc, SLUB_LOC_NODE_PARTIAL);
	struct slub_cpu_info ci;
	assert_int_equal(slub_cpu_info(t->w, s, 0, &ci), NS_OK);
	assert_int_equal(ci.partial_slabs, 3);
	assert_int_equal(ci.pobjects, 6);
	assert_int_equal(ci.freelist, 1);
	assert_int_equal(slub_node_info(t->w, s, 0, &ni), NS_OK);
	assert_int_equal(ni.nr_partial, 2);
	/* CPU 1 (node 1, nothing on node 1): get_any_partial only takes from
	 * nodes with more than min_partial (5) partial slabs -> a new slab */
	snap(t, s, 1, &b);
	slub_obj_t y = alloc(t, 1, s);
	expect_stats(t, s, 1, &b, (int[SLUB_NR_STATS])WANT([SLUB_ALLOC_SLOWPATH] = 1,
							   [SLUB_ALLOC_SLAB] = 1));
	assert_int_equal(slab(t, y).node, 1);
	free(o);
	wfx_destroy(t);
}

/* The race hook: a concurrent free into the same slab forces one retry. */
struct race {
	struct wfx *t;
	slub_obj_t other;
	int fired, inside;
};

static void race_hook(void *arg, struct slub_world *w, struct cpu *c, slub_obj_t x, int attempt)
{
	struct race *r = arg;
	(void)x;
	if (r->inside || attempt != 0 || r->fired || c->id != 1)
		return;
	r->inside = 1;
	assert_int_equal(slub_free(w, cpu(r->t, 0), NULL, r->other), NS_OK);
	r->inside = 0;
	r->fired = 1;
}

static void test_race_retry(void **state)
{
	(void)state;
	struct slub_config cfg = cfg_of(SLUB_POST, SLUB_GCC, 1);
	struct wfx *t = tw_create(&cfg);
	struct slub_cache *s = t->k64;
	slub_obj_t *o = make_full(t, s, 1, 64);
	fr(t, 1, s, o[0]);
	slub_flush_cpu(t->w, cpu(t, 1), s);
	assert_int_equal(slab(t, o[1]).loc, SLUB_LOC_NODE_PARTIAL);
	struct race r = {t, o[2], 0, 0};
	slub_set_race_hook(t->w, race_hook, &r);
	struct snapshot b;
	snap(t, s, 1, &b);
	fr(t, 1, s, o[1]);
	slub_set_race_hook(t->w, NULL, NULL);
	assert_int_equal(r.fired, 1);
	expect_stats(t, s, 1, &b, (int[SLUB_NR_STATS])WANT([SLUB_FREE_SLOWPATH] = 1,
							   [SLUB_CMPXCHG_DOUBLE_FAIL] = 1));
	assert_int_equal(ran(t, 1, &b, "S4"), 2);
	assert_int_equal(ran(t, 1, &b, "S1"), 2);
	struct slub_slab_info si = slab(t, o[1]);
	assert_int_equal(si.inuse, 61);
	assert_int_equal(si.page_free, 3);
	free(o);
	wfx_destroy(t);
}

#define LIVE_MAX 3000

/* A random workload on CPUs 0 and 1 (different nodes) of t: the objects
 * handed out and the generator. */
struct rnd {
	struct wfx *t;
	struct slub_cache *caches[3];
	slub_obj_t *live;              /* [LIVE_MAX] */
	int nlive;
	uint64_t r;
	bool mixed;                    /* also allocations for a node (one in
					  8) and frees naming the cache (one
					  in 2) */
};

/* Step i of steps: an allocation, a free, a bulk free of up to 8 or a
 * flush, on a random CPU (returned); an allocation-heavy first half, a
 * free-heavy second half.  *x_out is the object allocated, else 0. */
static int random_step(struct rnd *x, int i, int steps, slub_obj_t *x_out)
{
	struct wfx *t = x->t;
	uint64_t op = rng_splitmix64(&x->r) % 100;
	op = i < steps / 2 ? op * 52 / 70 : 45 + op * 55 / 100;
	int c = (int)(rng_splitmix64(&x->r) % 2);
	*x_out = 0;
	if ((op < 52 && x->nlive < LIVE_MAX) || x->nlive == 0) {
		struct slub_cache *s = x->caches[rng_splitmix64(&x->r) % 3];
		int node = SLUB_NUMA_NO_NODE;
		if (x->mixed && rng_splitmix64(&x->r) % 8 == 0)
			node = (int)(rng_splitmix64(&x->r) % 2);
		slub_obj_t o = slub_alloc(t->w, cpu(t, c), s, node);
		assert_true(o != 0);
		x->live[x->nlive++] = o;
		*x_out = o;
	} else if (op < 97) {
		int k = (int)(rng_splitmix64(&x->r) % (uint64_t)x->nlive);
		struct slub_cache *s = NULL;
		if (x->mixed && rng_splitmix64(&x->r) % 2)
			s = slub_obj_cache(t->w, x->live[k]);
		fr(t, c, s, x->live[k]);
		x->live[k] = x->live[--x->nlive];
	} else if (op < 99) {
		int n = x->nlive < 8 ? x->nlive : 8;
		assert_int_equal(slub_free_bulk(t->w, cpu(t, c), NULL, (size_t)n,
						&x->live[x->nlive - n]),
				 NS_OK);
		x->nlive -= n;
	} else {
		slub_flush_cpu(t->w, cpu(t, c), x->caches[rng_splitmix64(&x->r) % 3]);
	}
	return c;
}

/* Random alloc/free on CPUs 0 and 1 (different nodes); returns a digest. */
static uint64_t run_random(enum slub_variant v, uint64_t seed, int steps)
{
	struct slub_config cfg = cfg_of(v, SLUB_GCC, 1);
	struct wfx *t = tw_create(&cfg);
	struct slub_cache *caches[3] = {t->k64, t->k512, t->skb};
	slub_obj_t *live = calloc(LIVE_MAX, sizeof *live);
	assert_non_null(live);
	struct rnd x = {t, {caches[0], caches[1], caches[2]}, live, 0, seed, false};
	for (int i = 0; i < steps; i++) {
		slub_obj_t o;
		random_step(&x, i, steps, &o);
		if (i % 500 == 0)
			wfx_check(t);
	}
	int nlive = x.nlive;
	wfx_check(t);
	uint64_t handed = 0;
	for (int i = 0; i < 3; i++) {
		struct slub_cache_info ci = cinfo(caches[i]);
		handed += ci.allocated - ci.freed;
	}
	assert_int_equal(handed, nlive);
	/* counters: a cache total is the sum of its CPUs */
	int64_t tot = counter(t, "cache", "kmalloc-64", "free_slowpath");
	assert_int_equal(tot, counter(t, "cache_cpu", "kmalloc-64/0", "free_slowpath") +
				      counter(t, "cache_cpu", "kmalloc-64/1", "free_slowpath"));
	assert_true(tot > 0);
	assert_true(counter(t, "cache", "skbuff_head_cache", "free_frozen") > 0);
	assert_true(counter(t, "cache", "kmalloc-512", "free_slowpath") > 0);
	assert_true(counter(t, "cache", "kmalloc-64", "cpu_partial_free") > 0);
	assert_true(counter(t, "cache", "kmalloc-64", "alloc_refill") > 0);
	assert_true(counter(t, "cache_node", "kmalloc-64/0", "nr_slabs") +
			    counter(t, "cache_node", "kmalloc-64/1", "nr_slabs") ==
		    counter(t, "cache", "kmalloc-64", "slabs"));
	struct sum sm = {0, 0};
	assert_int_equal(slub_counters(t->w, sum_cb, &sm), NS_OK);
	/* free everything: nothing handed out */
	for (int i = 0; i < nlive; i++)
		fr(t, i % 2, NULL, live[i]);
	for (int i = 0; i < 3; i++) {
		struct slub_cache_info ci = cinfo(caches[i]);
		assert_int_equal(ci.allocated, ci.freed);
	}
	uint64_t h = sm.h ^ cpu(t, 0)->now * 31 ^ cpu(t, 1)->now;
	free(live);
	wfx_destroy(t);
	return h;
}

static void test_random_conservation(void **state)
{
	(void)state;
	uint64_t a = run_random(SLUB_PRE, 42, 6000);
	uint64_t b = run_random(SLUB_PRE, 42, 6000);
	assert_true(a == b);
	uint64_t c = run_random(SLUB_PRE, 43, 6000);
	assert_true(a != c);
	uint64_t d = run_random(SLUB_POST, 42, 6000);
	assert_true(d == run_random(SLUB_POST, 42, 6000));
}

/* --- sampled accounting: SLUB's fast copy ----------------------------------- */

/* What a run leaves on both CPUs, folded: clocks, counters, sites,
 * profile, call paths, SLUB's counters and the objects handed out. */
struct fc_state {
	uint64_t now[2], objs, slub;
	uint64_t ctr[2][CPU_NR_COUNTERS];
	struct cpu_site_stat site[2][512];
	struct cpu_prof prof[2][256];
	uint32_t nr_paths[2];
	uint64_t path_sum[2];
	struct cpu_memo_stats st;
};

/* A mixed run on two CPUs of different nodes, as run_random's: three
 * caches, allocations on either CPU (some for a node: node_match,
 * get_partial's other nodes, the defrag lottery), frees local and
 * remote (every outcome of __slab_free), a bulk free and a flush now
 * and then (no copy: the ordinary code). */
static void fast_copy_run(enum slub_variant v, bool copy, enum cpu_warm warm,
			  struct fc_state *out)
{
	struct slub_config cfg = cfg_of(v, SLUB_GCC, 1);
	struct wfx *t = tw_create_acct(&cfg, m_two, BPRED_GSHARE, CPU_ACCOUNTING_SAMPLED, 7, &warm);
	for (int k = 0; k < 2; k++) {
		assert_true(cpu(t, k)->fcopy);
		cpu(t, k)->fcopy = copy;
	}
	static slub_obj_t live[LIVE_MAX];
	struct rnd x = {t, {t->k64, t->k512, t->skb}, live, 0, 77, true};
	memset(out, 0, sizeof *out);
	for (int i = 0; i < 12000; i++) {
		slub_obj_t o;
		int c = random_step(&x, i, 12000, &o);
		out->objs = out->objs * 31 + o;
		cpu_advance_to(cpu(t, !c), cpu(t, c)->now);
	}
	int nlive = x.nlive;
	assert_true(t->t.nr_sites <= 512 && t->t.nr_fns <= 256);
	for (int k = 0; k < 2; k++) {
		struct cpu *ck = cpu(t, k);
		assert_int_equal(cpu_check(ck), NS_OK);   /* folds the fast calls' counts */
		cpu_attribute(ck);
		out->now[k] = ck->now;
		for (int i = 0; i < CPU_NR_COUNTERS; i++)
			out->ctr[k][i] = cpu_counter(ck, (enum cpu_counter)i);
		memcpy(out->site[k], ck->site, (size_t)t->t.nr_sites * sizeof *ck->site);
		for (int i = 0; i < t->t.nr_fns; i++) {
			out->prof[k][i] = ck->prof[i];
			out->prof[k][i].active = 0;
		}
		out->nr_paths[k] = ck->nr_paths;
		for (uint32_t i = 0; i < ck->nr_paths; i++)
			out->path_sum[k] = out->path_sum[k] * 1000003u + ck->path[i].calls * 7 +
					   ck->path[i].self * 13 + ck->path[i].mispredicts;
	}
	struct sum sm = {0, 0};
	assert_int_equal(slub_counters(t->w, sum_cb, &sm), NS_OK);
	out->slub = sm.h;
	cpu_memo_stats(&t->s, &out->st);
	for (int i = 0; i < nlive; i++)
		fr(t, i % 2, NULL, live[i]);
	wfx_destroy(t);
}

/*
 * SLUB's fast copy (models/slub_copy.c) gives the ordinary code's
 * results bit for bit: the same clocks, counters, site counts, profile,
 * call paths and SLUB counters, under every warming and both variants,
 * while most fast calls run in the copy.
 */
static void test_fast_copy(void **state)
{
	(void)state;
	static struct fc_state a, b;
	const enum cpu_warm warms[] = {CPU_WARM_NONE, CPU_WARM_CACHES, CPU_WARM_STORES};
	for (int vi = 0; vi < 2; vi++)
		for (size_t wi = 0; wi < sizeof warms / sizeof warms[0]; wi++) {
			enum slub_variant v = vi ? SLUB_POST : SLUB_PRE;
			fast_copy_run(v, true, warms[wi], &a);
			fast_copy_run(v, false, warms[wi], &b);
			assert_true(a.st.fast > 5000);
			assert_true(a.st.copied * 10 > a.st.fast * 9);
			assert_int_equal(b.st.copied, 0);
			assert_int_equal(a.st.fast, b.st.fast);
			assert_int_equal(a.st.samples, b.st.samples);
			assert_int_equal(a.objs, b.objs);
			assert_int_equal(a.slub, b.slub);
			for (int k = 0; k < 2; k++) {
				assert_int_equal(a.now[k], b.now[k]);
				assert_memory_equal(a.ctr[k], b.ctr[k], sizeof a.ctr[k]);
				assert_memory_equal(a.site[k], b.site[k], sizeof a.site[k]);
				assert_memory_equal(a.prof[k], b.prof[k], sizeof a.prof[k]);
				assert_int_equal(a.nr_paths[k], b.nr_paths[k]);
				assert_int_equal(a.path_sum[k], b.path_sum[k]);
			}
			assert_true(a.ctr[1][CPU_CTR_branches] > 0);
		}
}

static void test_names(void **state)
{
	(void)state;
	assert_string_equal(slub_stat_name(SLUB_ALLOC_FASTPATH), "alloc_fastpath");
	assert_string_equal(slub_stat_name(SLUB_FREE_FROZEN), "free_frozen");
	assert_string_equal(slub_stat_name(SLUB_CPU_PARTIAL_DRAIN), "cpu_partial_drain");
	assert_int_equal(SLUB_NR_STATS, 26);
	assert_int_equal(SLUB_CPU_PARTIAL_FREE, 23);
	assert_int_equal(slub_variant_parse("v5.9"), SLUB_PRE);
	assert_int_equal(slub_variant_parse("c270cf30"), SLUB_POST);
	assert_int_equal(slub_variant_parse("x"), -1);
	assert_int_equal(slub_compiler_parse("clang"), SLUB_CLANG);
	assert_int_equal(slub_compiler_parse("icc"), -1);
	assert_string_equal(slub_loc_name(SLUB_LOC_CPU_PARTIAL), "cpu_partial");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_geometry_two_cpus),
		cmocka_unit_test(test_geometry_table),
		cmocka_unit_test(test_free_cases),
		cmocka_unit_test(test_alloc_paths),
		cmocka_unit_test(test_alloc_from_partial),
		cmocka_unit_test(test_race_retry),
		cmocka_unit_test(test_random_conservation),
		cmocka_unit_test(test_fast_copy),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
