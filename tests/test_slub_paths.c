/*
 * Tests for models/slub: cache geometry against hand-computed values of
 * the kernel's formulas (calculate_order, set_min_partial,
 * set_cpu_partial) for several nr_cpu_ids; every reachable outcome of
 * __slab_free (slub-free.md §3 and §6: cases A-E, B1-B3, drains with and
 * without discards) for both variants and both compiler layouts, checking
 * the exact stat deltas, which sites ran (from the CPU's site stats) and
 * the slab's resulting location; the allocation paths (fast, slab, refill,
 * bypass, cpu partial, node partial, node mismatch); a forced cmpxchg
 * retry through the race hook; conservation under random alloc/free on two
 * CPUs of different nodes; counters; determinism; the code layout
 * (cost.code: the same work done, other work charged, hand-computed).  slub_check() and
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

#include "cost/cpu.h"
#include "base/diag.h"
#include "machine/machine.h"
#include "models/page_alloc.h"
#include "tests/test_costs_yaml.h"
#include "sim/rng.h"
#include "models/slub.h"
#include "tests/world_fixture.h"

#define COSTS TEST_COSTS_YAML

/* 2 nodes of Normal 64 MiB, one CPU each: CPU 0 on node 0, CPU 1 on node 1. */
static const char m_two[] = TEST_MACHINE_TWO;

/* One node, CPUs 0 and 1 (get_any_partial has no other node to try). */
static const char m_one[] =
	"name: one\nnodes:\n  - id: 0\n    cpus: \"0-1\"\n    zones:\n"
	"      - {type: Normal, size: 128MiB}\n"
	"distance:\n  - [10]\n" COSTS;

/* Two CPUs over machine, accounting acc (sampled: one call in period,
 * warming as *warm, or the default if NULL). */
static struct wfx *tw_create_acct(const struct slub_config *in, const char *machine,
				  enum bpred_mode mode, enum cpu_accounting acc, uint32_t period,
				  const enum cpu_warm *warm)
{
	struct machine *m = NULL;
	struct diag d;
	diag_init(&d);
	wfx_ok(machine_load_buf("test.yaml", machine, strlen(machine), &m, &d), &d);
	static const int cpus[2] = {0, 1};
	struct wfx_opts o = {.slub = in, .cpus = cpus, .nr_cpus = 2, .bpred_mode = (int)mode,
			     .accounting = acc, .sample_period = period, .sample_warm = warm};
	struct wfx *t = wfx_create(m, &o);
	wfx_ok(slub_cache_create(t->w, "skbuff_head_cache", 224, 0,
				 SLUB_HWCACHE_ALIGN | SLUB_PANIC, &t->skb, &d), &d);
	t->k64 = slub_cache_find(t->w, "kmalloc-64");
	t->k512 = slub_cache_find(t->w, "kmalloc-512");
	assert_non_null(t->k64);
	assert_non_null(t->k512);
	return t;
}

static struct wfx *tw_create_bp(const struct slub_config *in, const char *machine,
				enum bpred_mode mode)
{
	return tw_create_acct(in, machine, mode, CPU_ACCOUNTING_EXACT, 0, NULL);
}

static struct wfx *tw_create(const struct slub_config *in)
{
	struct cpu_params p;
	cpu_params_default(&p);
	return tw_create_bp(in, m_two, p.bpred.mode);
}

static struct cpu *cpu(struct wfx *t, int id)
{
	struct cpu *c = cpu_sys_cpu(&t->s, id);
	assert_non_null(c);
	return c;
}

static slub_obj_t alloc(struct wfx *t, int cpu_id, struct slub_cache *s)
{
	slub_obj_t x = slub_alloc(t->w, cpu(t, cpu_id), s, SLUB_NUMA_NO_NODE);
	assert_true(x != 0);
	return x;
}

static void fr(struct wfx *t, int cpu_id, struct slub_cache *s, slub_obj_t x)
{
	assert_int_equal(slub_free(t->w, cpu(t, cpu_id), s, x), NS_OK);
}

static struct slub_slab_info slab(struct wfx *t, slub_obj_t x)
{
	struct slub_slab_info i;
	assert_int_equal(slub_slab_info(t->w, x, &i), NS_OK);
	return i;
}

static struct slub_cache_info cinfo(struct slub_cache *s)
{
	struct slub_cache_info i;
	assert_int_equal(slub_cache_info(s, &i), NS_OK);
	return i;
}

/* Stats and sites of one CPU, to compare before/after an operation. */
struct snapshot {
	uint64_t stat[SLUB_NR_STATS];
	struct cpu_site_stat site[512];
};

static void snap(struct wfx *t, struct slub_cache *s, int cpu_id, struct snapshot *o)
{
	for (int i = 0; i < SLUB_NR_STATS; i++)
		o->stat[i] = slub_stat(t->w, s, cpu_id, (enum slub_stat)i);
	assert_true(t->t.nr_sites <= 512);
	memcpy(o->site, cpu(t, cpu_id)->site, (size_t)t->t.nr_sites * sizeof o->site[0]);
}

/* Every stat item's delta equals want (items not listed: 0). */
static void expect_stats(struct wfx *t, struct slub_cache *s, int cpu_id,
			 const struct snapshot *before, const int *want)
{
	for (int i = 0; i < SLUB_NR_STATS; i++) {
		uint64_t d = slub_stat(t->w, s, cpu_id, (enum slub_stat)i) - before->stat[i];
		if (d != (uint64_t)want[i])
			fprintf(stderr, "stat %s: %llu, want %d\n", slub_stat_name((enum slub_stat)i),
				(unsigned long long)d, want[i]);
		assert_int_equal(d, want[i]);
	}
}

static int site_id(struct wfx *t, const char *name)
{
	int id = cost_site_lookup(&t->t, name);
	assert_true(id >= 0);
	return id;
}

static uint64_t ran(struct wfx *t, int cpu_id, const struct snapshot *b, const char *name)
{
	int id = site_id(t, name);
	return cpu(t, cpu_id)->site[id].executed - b->site[id].executed;
}

static uint64_t taken(struct wfx *t, int cpu_id, const struct snapshot *b, const char *name)
{
	int id = site_id(t, name);
	return cpu(t, cpu_id)->site[id].taken - b->site[id].taken;
}

static struct slub_config cfg_of(enum slub_variant v, enum slub_compiler c, int stats)
{
	struct slub_config cfg;
	slub_config_default(&cfg);
	cfg.variant = v;
	cfg.compiler = c;
	cfg.stats = stats;
	return cfg;
}

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

/* --- free-path outcomes ------------------------------------------------------------ */

/* n full slabs of s made on CPU 0; objs receives every object (n * per). */
static slub_obj_t *make_full(struct wfx *t, struct slub_cache *s, int n, int per)
{
	slub_obj_t *o = calloc((size_t)(n * per + 1), sizeof *o);
	assert_non_null(o);
	for (int i = 0; i <= n * per; i++)
		o[i] = alloc(t, 0, s);
	/* the extra allocation bypassed the last full slab */
	for (int i = 0; i < n; i++) {
		struct slub_slab_info si = slab(t, o[i * per]);
		assert_int_equal(si.loc, SLUB_LOC_FULL);
		assert_int_equal(si.inuse, per);
		assert_int_equal(slab(t, o[i * per + per - 1]).pfn, si.pfn);
	}
	return o;
}

#define WANT(...) {__VA_ARGS__}

struct layout_case {
	enum slub_variant v;
	enum slub_compiler c;
};
static const struct layout_case layouts[] = {
	{SLUB_PRE, SLUB_GCC}, {SLUB_POST, SLUB_GCC}, {SLUB_PRE, SLUB_CLANG}, {SLUB_POST, SLUB_CLANG},
};

/* The !n block's sites for (was_frozen, new_frozen) = case. */
static void expect_n_block(struct wfx *t, const struct layout_case *l, int cpu_id,
			   const struct snapshot *b, int was_frozen, int new_frozen)
{
	if (l->v == SLUB_PRE) {
		assert_int_equal(ran(t, cpu_id, b, "PRE6a"), 1);
		assert_int_equal(ran(t, cpu_id, b, "PRE6b"), new_frozen ? 1 : 0);
		assert_int_equal(ran(t, cpu_id, b, "PRE7"), 1);
		assert_int_equal(ran(t, cpu_id, b, "POST6") + ran(t, cpu_id, b, "POST7"), 0);
		if (was_frozen) {
			/* §4.2: GCC falls through every test, clang branches on was_frozen */
			assert_int_equal(taken(t, cpu_id, b, "PRE6a"), 0);
			assert_int_equal(taken(t, cpu_id, b, "PRE6b"), l->c == SLUB_CLANG ? 1 : 0);
			assert_int_equal(taken(t, cpu_id, b, "PRE7"), 0);
		}
	} else {
		assert_int_equal(ran(t, cpu_id, b, "POST6"), 1);
		assert_int_equal(ran(t, cpu_id, b, "POST7"), was_frozen ? 0 : 1);
		assert_int_equal(taken(t, cpu_id, b, "POST6"), was_frozen ? 0 : 1);
		assert_int_equal(ran(t, cpu_id, b, "PRE6a") + ran(t, cpu_id, b, "PRE6b") +
					 ran(t, cpu_id, b, "PRE7"),
				 0);
	}
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

/*
 * CONFIG_SLUB_STATS=n: PRE's `if (was_frozen)` does not exist and both
 * variants test `new.frozen && !was_frozen`, GCC new.frozen first, clang
 * was_frozen first (slub-free.md §4.2).
 */
static void test_stats_off(void **state)
{
	(void)state;
	for (size_t li = 0; li < sizeof layouts / sizeof layouts[0]; li++) {
		const struct layout_case *l = &layouts[li];
		struct slub_config cfg = cfg_of(l->v, l->c, 0);
		struct wfx *t = tw_create(&cfg);
		struct slub_cache *s = t->k64;
		struct snapshot b;
		const char *s_new = l->v == SLUB_PRE ? "PRE6a" : "POST7";
		const char *s_was = l->v == SLUB_PRE ? "PRE6b" : "POST6";
		alloc(t, 0, s);
		slub_obj_t a = alloc(t, 0, s);
		snap(t, s, 1, &b);
		fr(t, 1, s, a);
		/* (1,1): the model still counts the event */
		expect_stats(t, s, 1, &b, (int[SLUB_NR_STATS])WANT([SLUB_FREE_SLOWPATH] = 1,
								   [SLUB_FREE_FROZEN] = 1));
		assert_int_equal(ran(t, 1, &b, "PRE7"), 0);
		assert_int_equal(ran(t, 1, &b, s_was), 1);
		assert_int_equal(ran(t, 1, &b, s_new), l->c == SLUB_GCC ? 1 : 0);
		/* GCC: every test falls through in both variants; clang: PRE's
		 * was_frozen test is taken, POST's (hinted) falls through */
		assert_int_equal(taken(t, 1, &b, s_was) + taken(t, 1, &b, s_new),
				 l->c == SLUB_CLANG && l->v == SLUB_PRE ? 1 : 0);
		/* (0,1): a full slab (of another cache) freed on CPU 1 */
		s = t->k512;
		slub_obj_t *o = make_full(t, s, 1, 16);
		snap(t, s, 1, &b);
		fr(t, 1, s, o[9]);
		expect_stats(t, s, 1, &b, (int[SLUB_NR_STATS])WANT([SLUB_FREE_SLOWPATH] = 1,
								   [SLUB_CPU_PARTIAL_FREE] = 1));
		assert_int_equal(ran(t, 1, &b, s_was), 1);
		assert_int_equal(ran(t, 1, &b, s_new), 1);
		assert_int_equal(slab(t, o[9]).loc, SLUB_LOC_CPU_PARTIAL);
		/* (0,0): the same slab after a flush, partial and staying so */
		slub_flush_cpu(t->w, cpu(t, 1), s);
		snap(t, s, 1, &b);
		fr(t, 1, s, o[10]);
		expect_stats(t, s, 1, &b, (int[SLUB_NR_STATS])WANT([SLUB_FREE_SLOWPATH] = 1));
		assert_int_equal(ran(t, 1, &b, s_new) + ran(t, 1, &b, s_was), l->c == SLUB_GCC ? 1 : 2);
		free(o);
		wfx_destroy(t);
	}
}

/*
 * Cycle cost of one FREE_FROZEN free (case A) in fresh worlds: everything
 * before the !n block is identical, so PRE - POST is the block's difference
 * (slub-free.md §4.2): with GCC and stats, PRE runs two more not-taken,
 * correctly predicted unhinted tests and pushes one callee-saved register.
 * Both worlds allocate the same synthetic addresses, so memory costs agree.
 */
static uint64_t frozen_free_cycles(enum slub_variant v, enum slub_compiler cc, int stats)
{
	struct slub_config cfg = cfg_of(v, cc, stats);
	struct wfx *t = tw_create(&cfg);
	alloc(t, 0, t->k64);
	slub_obj_t a = alloc(t, 0, t->k64);
	uint64_t before = cpu(t, 1)->now;
	fr(t, 1, t->k64, a);
	uint64_t d = cpu(t, 1)->now - before;
	wfx_destroy(t);
	return d;
}

static void test_frozen_free_cost(void **state)
{
	(void)state;
	struct slub_config cfg = cfg_of(SLUB_PRE, SLUB_GCC, 1);
	struct wfx *t = tw_create(&cfg);
	uint32_t k_branch = cpu(t, 0)->k_br[0]; /* not taken, predicted */
	wfx_destroy(t);
	uint64_t pre = frozen_free_cycles(SLUB_PRE, SLUB_GCC, 1);
	uint64_t post = frozen_free_cycles(SLUB_POST, SLUB_GCC, 1);
	assert_int_equal(pre - post, 2 * k_branch + 1);
	/* without stats GCC emits the same code for both (§4.2) */
	pre = frozen_free_cycles(SLUB_PRE, SLUB_GCC, 0);
	post = frozen_free_cycles(SLUB_POST, SLUB_GCC, 0);
	assert_int_equal(pre, post);
	/* clang without stats: PRE takes a branch on was_frozen, POST falls through */
	assert_true(frozen_free_cycles(SLUB_PRE, SLUB_CLANG, 0) >
		    frozen_free_cycles(SLUB_POST, SLUB_CLANG, 0));
	/* clang: PRE's was_frozen test is a taken branch, 3 vs 1 registers */
	uint64_t cpre = frozen_free_cycles(SLUB_PRE, SLUB_CLANG, 1);
	uint64_t cpost = frozen_free_cycles(SLUB_POST, SLUB_CLANG, 1);
	assert_true(cpre - cpost > 2 * k_branch + 1);
	assert_int_equal(cpost, frozen_free_cycles(SLUB_POST, SLUB_CLANG, 1));
}

/*
 * cost.code (docs/compiled-counts.md §6): the compiled layout changes the
 * straight-line work only.  One FREE_FROZEN remote free (the frozen_free
 * set-up) under the in-order model: every branch, outcome, call and access
 * is the same in both layouts; the cycles differ by the work rows it
 * charges, each rounded up to whole cycles at 2 per cycle: free_entry,
 * slab_free_entry, slab_free_try and the `!n` block (FREE_FROZEN):
 * estimate 14, 8, 12 + the spill (PRE 2, POST 0) = 7 + 4 + 6 + 1 (0);
 * compiled (uops per instruction form, docs/compiled-counts.md §6.3)
 * PRE 34, 24, 18, 3 = 17 + 12 + 9 + 2 = 40 (estimate 18: + 22), POST 34,
 * 24, 19, 3 = 17 + 12 + 10 + 2 = 41 (estimate 17: + 24).
 */
static uint64_t frozen_free_layout(enum slub_variant v, enum mm_code code, uint64_t k[7])
{
	static const enum cpu_counter kc[7] = {
		CPU_CTR_calls, CPU_CTR_branches, CPU_CTR_branches_taken,
		CPU_CTR_branch_mispredict, CPU_CTR_mem_load_dep, CPU_CTR_mem_load,
		CPU_CTR_mem_store,
	};
	struct slub_config cfg = cfg_of(v, SLUB_GCC, 1);
	cfg.code = code;
	struct wfx *t = tw_create(&cfg);
	alloc(t, 0, t->k64);
	slub_obj_t a = alloc(t, 0, t->k64);
	struct cpu *c = cpu(t, 1);
	uint64_t before = c->now, k0[7];
	for (int i = 0; i < 7; i++)
		k0[i] = cpu_counter(c, kc[i]);
	fr(t, 1, t->k64, a);
	for (int i = 0; i < 7; i++)
		k[i] = cpu_counter(c, kc[i]) - k0[i];
	uint64_t d = c->now - before;
	assert_int_equal(slub_stat(t->w, t->k64, 1, SLUB_FREE_FROZEN), 1);
	wfx_check(t);
	wfx_destroy(t);
	return d;
}

static void test_code_layout(void **state)
{
	(void)state;
	static const uint64_t extra[2] = {22, 24};   /* compiled - estimate, PRE / POST */
	for (int v = SLUB_PRE; v <= SLUB_POST; v++) {
		uint64_t ke[7], kc[7], kd[7];
		uint64_t ce = frozen_free_layout((enum slub_variant)v, MM_CODE_ESTIMATE, ke);
		uint64_t cc = frozen_free_layout((enum slub_variant)v, MM_CODE_COMPILED, kc);
		uint64_t cd = frozen_free_layout((enum slub_variant)v, MM_CODE_DEFAULT, kd);
		for (int i = 0; i < 7; i++) {
			assert_int_equal(ke[i], kc[i]);
			assert_int_equal(ke[i], kd[i]);
		}
		assert_int_equal(cd, ce);            /* inorder: estimate by default */
		assert_int_equal(cc - ce, extra[v]);
	}
	/* no counts for clang or without CONFIG_SLUB_STATS: compiled is refused,
	 * the default falls back to the estimate */
	struct slub_config cfg = cfg_of(SLUB_POST, SLUB_GCC, 1);
	struct wfx *t = tw_create(&cfg);
	for (int k = 0; k < 2; k++) {
		struct slub_config bad = cfg_of(SLUB_POST, k ? SLUB_CLANG : SLUB_GCC, k);
		bad.as = &t->as;
		bad.code = MM_CODE_COMPILED;
		struct slub_world *w = t->w;   /* non-NULL: must come back NULL */
		struct diag d;
		diag_init(&d);
		assert_int_equal(slub_world_create(t->m, &bad, &t->s, t->pa, t->sl_fn, t->sl_site,
						   &w, &d), NS_EINPUT);
		assert_null(w);
		assert_non_null(strstr(d.msg, "compiler_layout gcc with slub_stats on only"));
		bad.code = MM_CODE_DEFAULT;
		wfx_ok(slub_world_create(t->m, &bad, &t->s, t->pa, t->sl_fn, t->sl_site, &w, &d),
		       &d);
		slub_world_destroy(w);
	}
	wfx_destroy(t);
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

/* --- conservation, counters, determinism ------------------------------------------ */

struct sum {
	uint64_t h;
	int rows;
};

static int sum_cb(void *arg, const char *scope, const char *id, const char *name, int64_t v)
{
	struct sum *s = arg;
	for (const char *p = scope; *p; p++)
		s->h = s->h * 131 + (uint8_t)*p;
	for (const char *p = id; *p; p++)
		s->h = s->h * 131 + (uint8_t)*p;
	for (const char *p = name; *p; p++)
		s->h = s->h * 131 + (uint8_t)*p;
	s->h = s->h * 1000003 + (uint64_t)v;
	s->rows++;
	return NS_OK;
}

struct find {
	const char *scope, *id, *name;
	int64_t v;
	int found;
};

static int find_cb(void *arg, const char *scope, const char *id, const char *name, int64_t v)
{
	struct find *f = arg;
	if (!strcmp(scope, f->scope) && !strcmp(id, f->id) && !strcmp(name, f->name)) {
		f->v = v;
		f->found++;
	}
	return NS_OK;
}

static int64_t counter(struct wfx *t, const char *scope, const char *id, const char *name)
{
	struct find f = {scope, id, name, 0, 0};
	assert_int_equal(slub_counters(t->w, find_cb, &f), NS_OK);
	assert_int_equal(f.found, 1);
	return f.v;
}

/*
 * The FREE_FROZEN path figures (free_frozen_* counters) on one fixed
 * stream of kmalloc-512 objects in flight between two CPUs of one node
 * (with two nodes get_any_partial's defrag lottery reads the cycle
 * counter, so the variants' costs would change the stream), as in sched
 * messaging: bursts allocated on one CPU, freed in FIFO order on the other
 * in bursts of another length, the roles swapping now and then.  The
 * stream does not depend on costs, so every variant sees the same
 * sequence of __slab_free outcomes (FREE_FROZEN, CPU_PARTIAL_FREE, frees
 * to node-partial slabs) and only the !n block differs.
 */
struct ff_fig {
	int64_t ff, slow, branches, taken, mispredicts, cycles, measured;
};

#define FF_RING 4096

static struct ff_fig frozen_stream_acct(enum slub_variant v, enum slub_compiler cc, int stats,
					enum bpred_mode mode, enum cpu_accounting acc,
					uint32_t period, struct cpu_memo_stats *ms)
{
	struct slub_config cfg = cfg_of(v, cc, stats);
	struct wfx *t = tw_create_acct(&cfg, m_one, mode, acc, period, NULL);
	slub_obj_t ring[FF_RING];
	uint32_t head = 0, count = 0;
	uint64_t r = 2020;
	int src = 0;
	for (int round = 0; round < 3000; round++) {
		if (rng_splitmix64(&r) % 64 == 0)
			src ^= 1;
		uint32_t na = 1 + (uint32_t)(rng_splitmix64(&r) % 48);
		uint32_t nf = 1 + (uint32_t)(rng_splitmix64(&r) % 40);
		for (uint32_t i = 0; i < na && count < FF_RING; i++)
			ring[(head + count++) % FF_RING] = alloc(t, src, t->k512);
		cpu_advance_to(cpu(t, !src), cpu(t, src)->now);
		for (uint32_t i = 0; i < nf && count; i++, count--, head = (head + 1) % FF_RING)
			fr(t, !src, t->k512, ring[head]);
		cpu_advance_to(cpu(t, src), cpu(t, !src)->now);
	}
	for (; count; count--, head = (head + 1) % FF_RING)
		fr(t, 1, t->k512, ring[head]);
	struct ff_fig f = {
		counter(t, "cache", "kmalloc-512", "free_frozen"),
		counter(t, "cache", "kmalloc-512", "free_slowpath"),
		counter(t, "cache", "kmalloc-512", "free_frozen_branches"),
		counter(t, "cache", "kmalloc-512", "free_frozen_branches_taken"),
		counter(t, "cache", "kmalloc-512", "free_frozen_mispredicts"),
		counter(t, "cache", "kmalloc-512", "free_frozen_cycles"),
		counter(t, "cache", "kmalloc-512", "free_frozen_measured"),
	};
	if (ms)
		cpu_memo_stats(&t->s, ms);
	/* in-order a locked op never waits for older ops: no fence cycles */
	assert_int_equal(counter(t, "cache", "kmalloc-512", "free_frozen_fence_wait_cycles"), 0);
	assert_int_equal(cinfo(t->k512).allocated, cinfo(t->k512).freed);
	wfx_destroy(t);
	return f;
}

static struct ff_fig frozen_stream(enum slub_variant v, enum slub_compiler cc, int stats,
				   enum bpred_mode mode)
{
	struct ff_fig f = frozen_stream_acct(v, cc, stats, mode, CPU_ACCOUNTING_EXACT, 0, NULL);
	/* exact accounting measures every FREE_FROZEN call */
	assert_int_equal(f.measured, f.ff);
	return f;
}

/*
 * The same stream under sampled accounting (docs/cost-model.md §10):
 * __slab_free and the allocation path read the clock (the FREE_FROZEN
 * measurement, the remote_node_defrag_ratio lottery), yet they run fast
 * calls; the FREE_FROZEN sums cover the samples only, whose per-call
 * branch counts are exact's and whose cycles are close to exact's.
 */
static void test_frozen_stream_sampled(void **state)
{
	(void)state;
	for (int vi = 0; vi < 2; vi++) {
		enum slub_variant v = vi ? SLUB_POST : SLUB_PRE;
		struct ff_fig ex = frozen_stream(v, SLUB_GCC, 1, BPRED_GSHARE);
		struct cpu_memo_stats ms;
		struct ff_fig sa = frozen_stream_acct(v, SLUB_GCC, 1, BPRED_GSHARE,
						      CPU_ACCOUNTING_SAMPLED, 10, &ms);
		/* the outcomes do not depend on costs: the same frees */
		assert_int_equal(sa.ff, ex.ff);
		assert_int_equal(sa.slow, ex.slow);
		/* most calls fast, none made exact by a read of the clock */
		assert_true(ms.sampled);
		assert_int_equal(ms.exact, 0);
		assert_true(ms.fast > 8 * ms.samples);
		/* measured: the samples among the FREE_FROZEN calls, a few */
		assert_true(sa.measured > 0);
		assert_true(sa.measured * 4 < sa.ff);
		/* per measured call: the !n block's branches exactly, the
		 * cycles within 15 % of exact's mean */
		assert_int_equal(sa.branches * ex.ff, ex.branches * sa.measured);
		assert_int_equal(sa.taken * ex.ff, ex.taken * sa.measured);
		double ce = (double)ex.cycles / (double)ex.ff;
		double cs = (double)sa.cycles / (double)sa.measured;
		assert_true(fabs(cs - ce) < 0.15 * ce);
	}
}

static void test_frozen_stream(void **state)
{
	(void)state;
	const enum slub_compiler ccs[2] = {SLUB_GCC, SLUB_CLANG};
	for (int ci = 0; ci < 2; ci++)
		for (int mode = 0; mode < 2; mode++) {
			enum bpred_mode bm = mode ? BPRED_GSHARE : BPRED_BIMODAL;
			struct ff_fig pre = frozen_stream(SLUB_PRE, ccs[ci], 1, bm);
			struct ff_fig post = frozen_stream(SLUB_POST, ccs[ci], 1, bm);
			/* the same stream: the same outcomes, a real mix of them */
			assert_int_equal(pre.ff, post.ff);
			assert_int_equal(pre.slow, post.slow);
			assert_true(pre.ff > pre.slow / 4 && pre.ff < pre.slow);
			/* with stats: PRE runs PRE6a, PRE6b, PRE7; POST only POST6 */
			assert_int_equal(pre.branches, 3 * pre.ff);
			assert_int_equal(post.branches, post.ff);
			assert_int_equal(post.taken, 0);
			assert_int_equal(pre.taken, ccs[ci] == SLUB_CLANG ? pre.ff : 0);
			/* POST6 sees the was_frozen outcomes PRE7 sees, PRE adds the
			 * PRE6a/PRE6b tests: with a per-site predictor POST cannot
			 * mispredict more; with global history the two streams of
			 * outcomes differ, so allow 0.1 % of the frees either way */
			if (bm == BPRED_BIMODAL)
				assert_true(post.mispredicts <= pre.mispredicts);
			else
				assert_true(post.mispredicts <= pre.mispredicts + pre.ff / 1000);
			assert_true(post.cycles < pre.cycles);
			/* without stats and GCC both emit new.frozen then was_frozen */
			struct ff_fig pre0 = frozen_stream(SLUB_PRE, ccs[ci], 0, bm);
			struct ff_fig post0 = frozen_stream(SLUB_POST, ccs[ci], 0, bm);
			assert_int_equal(pre0.ff, pre.ff);
			assert_int_equal(pre0.branches, post0.branches);
			if (ccs[ci] == SLUB_GCC) {
				assert_int_equal(pre0.branches, 2 * pre0.ff);
				assert_int_equal(pre0.taken, 0);
				assert_int_equal(post0.taken, 0);
				if (bm == BPRED_BIMODAL) {
					/* identical code: identical figures */
					assert_int_equal(pre0.mispredicts, post0.mispredicts);
					assert_int_equal(pre0.cycles, post0.cycles);
				} else {
					/* only the sites' places in the shared table differ */
					assert_true(llabs(pre0.mispredicts - post0.mispredicts) <=
						    pre0.ff / 1000);
					assert_true(llabs(pre0.cycles - post0.cycles) <= pre0.ff);
				}
			} else {
				/* clang: was_frozen first; PRE's is taken, POST's falls through */
				assert_int_equal(pre0.branches, pre0.ff);
				assert_int_equal(pre0.taken, pre0.ff);
				assert_int_equal(post0.taken, 0);
				assert_true(post0.cycles < pre0.cycles);
			}
			print_message("frozen stream %s %s: ff %lld/%lld slow; mispredicts, cycles per "
				      "FREE_FROZEN free: stats on PRE %.4f %.2f POST %.4f %.2f; stats "
				      "off PRE %.4f %.2f POST %.4f %.2f\n",
				      ccs[ci] == SLUB_GCC ? "gcc" : "clang",
				      bm == BPRED_GSHARE ? "gshare" : "bimodal", (long long)pre.ff,
				      (long long)pre.slow,
				      (double)pre.mispredicts / (double)pre.ff,
				      (double)pre.cycles / (double)pre.ff,
				      (double)post.mispredicts / (double)post.ff,
				      (double)post.cycles / (double)post.ff,
				      (double)pre0.mispredicts / (double)pre0.ff,
				      (double)pre0.cycles / (double)pre0.ff,
				      (double)post0.mispredicts / (double)post0.ff,
				      (double)post0.cycles / (double)post0.ff);
		}
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
		cmocka_unit_test(test_free_drain),
		cmocka_unit_test(test_free_no_cpu_partial),
		cmocka_unit_test(test_stats_off),
		cmocka_unit_test(test_frozen_free_cost),
		cmocka_unit_test(test_code_layout),
		cmocka_unit_test(test_frozen_stream),
		cmocka_unit_test(test_frozen_stream_sampled),
		cmocka_unit_test(test_alloc_paths),
		cmocka_unit_test(test_alloc_from_partial),
		cmocka_unit_test(test_race_retry),
		cmocka_unit_test(test_random_conservation),
		cmocka_unit_test(test_fast_copy),
		cmocka_unit_test(test_cpu_partial_targets),
		cmocka_unit_test(test_cpu_partial_drain_pages),
		cmocka_unit_test(test_cpu_partial_refill_pages),
		cmocka_unit_test(test_where_counters),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
