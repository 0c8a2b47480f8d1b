/* Tests for sim/cache: set-associative LRU, hierarchy, coherence, addresses,
 * and the pool that hands one world's arrays to the next (cache_pool). */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <cmocka.h>

#include "cost/cache.h"
#include "base/diag.h"

static void test_lru_single_set(void **state)
{
	(void)state;
	struct cache c;
	/* 4 ways x 1 set of 64-byte lines */
	assert_int_equal(cache_init(&c, 256, 64, 4), NS_OK);
	assert_int_equal(c.nsets, 1);
	for (uint64_t l = 0; l < 4; l++)
		assert_int_equal(cache_insert(&c, l, 0), CACHE_TAG_INVALID);
	assert_true(cache_lookup(&c, 0) >= 0);   /* 0 becomes MRU: LRU is 1 */
	assert_int_equal(cache_insert(&c, 9, 0), 1);
	assert_int_equal(cache_lookup(&c, 1), -1);
	assert_int_equal(cache_insert(&c, 10, 0), 2);
	assert_int_equal(cache_insert(&c, 10, 5), CACHE_TAG_INVALID); /* refresh */
	assert_int_equal(cache_one_check(&c), NS_OK);
	cache_free(&c);
}

static void test_check_catches_corruption(void **state)
{
	(void)state;
	struct cache c;
	assert_int_equal(cache_init(&c, 64 * 8 * 4, 64, 8), NS_OK);
	for (uint64_t l = 0; l < 100; l++)
		cache_insert(&c, l * 7, 0);
	assert_int_equal(cache_one_check(&c), NS_OK);
	uint64_t sa = c.way[3].sa;
	c.way[3].sa = (sa & ~(uint64_t)0xff) | cache_way_age(&c.way[4]);
	assert_int_equal(cache_one_check(&c), NS_EINTERNAL); /* not a permutation */
	c.way[3].sa = sa;
	uint64_t t = c.way[1].tag;
	c.way[1].tag = c.way[0].tag;
	assert_int_equal(cache_one_check(&c), NS_EINTERNAL); /* duplicate tag */
	c.way[1].tag = t + 1;                            /* wrong set */
	assert_int_equal(cache_one_check(&c), NS_EINTERNAL);
	c.way[1].tag = t;
	assert_int_equal(cache_one_check(&c), NS_OK);
	cache_free(&c);
}

static void test_hashed_index(void **state)
{
	(void)state;
	struct cache c;
	/* 11-way, 2 MiB: 2978 sets, not a power of two -> hashed index */
	assert_int_equal(cache_init(&c, 2u << 20, 64, 11), NS_OK);
	assert_false(c.pow2);
	assert_int_equal(c.nsets, (2u << 20) / 64 / 11);
	for (uint64_t l = 0; l < 20000; l++)
		cache_insert(&c, l, 0);
	assert_int_equal(cache_one_check(&c), NS_OK);
	/* the most recent lines are all still there */
	for (uint64_t l = 19990; l < 20000; l++)
		assert_true(cache_lookup(&c, l) >= 0);
	cache_free(&c);
}

static void sys_params(struct cache_params *p)
{
	cache_params_default(p);
	p->l1d_size = 32 * 1024;
	p->l2_size = 256 * 1024;
	p->llc_size = 2 * 1024 * 1024;
}

static void test_walk_bigger_than_l1(void **state)
{
	(void)state;
	struct cache_params p;
	sys_params(&p);
	struct cache_sys cs;
	int llc[1] = {0};
	assert_int_equal(cache_sys_init(&cs, &p, 1, llc, 1), NS_OK);
	/* 64 KiB = 1024 lines: 2x L1, 1/4 of L2 */
	int count[5] = {0}, from;
	for (uint64_t l = 0; l < 1024; l++)
		count[cache_access(&cs, 0, l, false, &from)]++;
	assert_int_equal(count[CACHE_SRC_MEM], 1024);
	for (int i = 0; i < 5; i++)
		count[i] = 0;
	for (uint64_t l = 0; l < 1024; l++)
		count[cache_access(&cs, 0, l, false, &from)]++;
	/* sequential LRU thrash: every line misses L1, every line hits L2 */
	assert_int_equal(count[CACHE_SRC_L1], 0);
	assert_int_equal(count[CACHE_SRC_L2], 1024);
	/* a walk smaller than L1 hits L1 the second time */
	for (int i = 0; i < 5; i++)
		count[i] = 0;
	for (int pass = 0; pass < 2; pass++)
		for (uint64_t l = 5000; l < 5256; l++)
			count[cache_access(&cs, 0, l, false, &from)]++;
	assert_int_equal(count[CACHE_SRC_L1], 256);
	assert_int_equal(count[CACHE_SRC_MEM], 256);
	assert_int_equal(cache_check(&cs), NS_OK);
	cache_sys_free(&cs);
}

static void test_llc_shared_by_node(void **state)
{
	(void)state;
	struct cache_params p;
	sys_params(&p);
	struct cache_sys cs;
	int llc[3] = {0, 0, 1};
	assert_int_equal(cache_sys_init(&cs, &p, 3, llc, 2), NS_OK);
	int from;
	assert_int_equal(cache_access(&cs, 0, 42, false, &from), CACHE_SRC_MEM);
	assert_int_equal(cache_access(&cs, 1, 42, false, &from), CACHE_SRC_LLC);
	assert_int_equal(cache_access(&cs, 2, 42, false, &from), CACHE_SRC_MEM);
	assert_int_equal(cache_access(&cs, 1, 42, false, &from), CACHE_SRC_L1);
	assert_int_equal(cache_check(&cs), NS_OK);
	cache_sys_free(&cs);
}

static void test_coherence(void **state)
{
	(void)state;
	struct cache_params p;
	sys_params(&p);
	struct cache_sys cs;
	int llc[3] = {0, 0, 1};
	assert_int_equal(cache_sys_init(&cs, &p, 3, llc, 2), NS_OK);
	int from = -1;
	/* CPU 1 reads, CPU 0 writes: CPU 1's copy is stale, line dirty in CPU 0 */
	assert_int_equal(cache_access(&cs, 1, 7, false, &from), CACHE_SRC_MEM);
	assert_int_equal(cache_access(&cs, 0, 7, true, &from), CACHE_SRC_LLC);
	assert_int_equal(cache_access(&cs, 1, 7, false, &from), CACHE_SRC_XFER);
	assert_int_equal(from, 0);
	/* now shared: CPU 1 hits, CPU 2 (other node) gets it from DRAM */
	assert_int_equal(cache_access(&cs, 1, 7, false, &from), CACHE_SRC_L1);
	assert_int_equal(cache_access(&cs, 2, 7, false, &from), CACHE_SRC_MEM);
	/* the writer keeps hitting its own line */
	assert_int_equal(cache_access(&cs, 0, 7, true, &from), CACHE_SRC_L1);
	assert_int_equal(cache_access(&cs, 0, 7, false, &from), CACHE_SRC_L1);
	/* ping-pong of writes: every write by the other side is a transfer */
	for (int i = 0; i < 10; i++) {
		assert_int_equal(cache_access(&cs, 2, 7, true, &from), CACHE_SRC_XFER);
		assert_int_equal(from, 0);
		assert_int_equal(cache_access(&cs, 0, 7, true, &from), CACHE_SRC_XFER);
		assert_int_equal(from, 2);
	}
	assert_int_equal(cache_check(&cs), NS_OK);
	cache_sys_free(&cs);
}

/* L1 way of CPU cpu holding line, or -1 (through the public lookup). */
static long l1_way(struct cache_sys *cs, int cpu, uint64_t line)
{
	struct cache *l1 = &cs->cpu[cpu].l1;
	uint32_t set = cache_set(l1, line);
	for (uint32_t i = 0; i < l1->assoc; i++)
		if (cache_way_line(&l1->way[(size_t)set * l1->assoc + i]) == line)
			return (long)((size_t)set * l1->assoc + i);
	return -1;
}

/*
 * Repeated writes (cache.c): a store by the last writer with no copy made
 * by anyone else since its previous store takes no new stamp; the first
 * foreign copy ends that (the excl claim), and cache_check() catches a
 * claim that is not true.
 */
static void test_repeated_writes(void **state)
{
	(void)state;
	struct cache_params p;
	sys_params(&p);
	struct cache_sys cs;
	int llc[2] = {0, 1};
	assert_int_equal(cache_sys_init(&cs, &p, 2, llc, 2), NS_OK);
	int from = -1;
	assert_int_equal(cache_access(&cs, 0, 9, true, &from), CACHE_SRC_MEM);
	uint64_t g = cs.gstamp;
	long w = l1_way(&cs, 0, 9);
	assert_true(w >= 0);
	assert_int_equal(cs.cpu[0].claim[w].excl, 1);
	for (int i = 0; i < 5; i++)
		assert_int_equal(cache_access(&cs, 0, 9, true, &from), CACHE_SRC_L1);
	assert_int_equal(cs.gstamp, g);          /* no stamp for the repeats */
	assert_int_equal(cache_check(&cs), NS_OK);
	/* CPU 1 copies the line: the claim ends, the next store is stamped */
	assert_int_equal(cache_access(&cs, 1, 9, false, &from), CACHE_SRC_XFER);
	assert_int_equal(from, 0);
	assert_int_equal(cs.cpu[0].claim[w].excl, 0);
	/* a claim that is not true (CPU 1 holds a copy newer than the write) */
	cs.cpu[0].claim[w].excl = 1;
	assert_int_equal(cache_check(&cs), NS_EINTERNAL);
	cs.cpu[0].claim[w].excl = 0;
	assert_int_equal(cache_check(&cs), NS_OK);
	assert_int_equal(cache_access(&cs, 0, 9, true, &from), CACHE_SRC_L1);
	assert_int_equal(cs.gstamp, g + 1);
	/* CPU 1's copy is stale now: its next read is a transfer again */
	assert_int_equal(cache_access(&cs, 1, 9, false, &from), CACHE_SRC_XFER);
	assert_int_equal(cache_check(&cs), NS_OK);
	cache_sys_free(&cs);
}

static void test_written_back_line(void **state)
{
	(void)state;
	struct cache_params p;
	sys_params(&p);
	p.l1d_size = 1024;  /* 2 sets x 8 ways */
	p.l2_size = 2048;   /* 2 sets x 16 ways */
	struct cache_sys cs;
	int llc[3] = {0, 0, 1};
	assert_int_equal(cache_sys_init(&cs, &p, 3, llc, 2), NS_OK);
	int from;
	assert_int_equal(cache_access(&cs, 0, 7, true, &from), CACHE_SRC_MEM);
	/* CPU 0 streams 200 other lines: line 7 leaves its L1 and L2 */
	for (uint64_t l = 1000; l < 1200; l++)
		cache_access(&cs, 0, l, false, &from);
	/* dirty but no longer held: written back, no transfer */
	assert_int_equal(cache_access(&cs, 1, 7, false, &from), CACHE_SRC_LLC);
	assert_int_equal(cache_access(&cs, 2, 7, false, &from), CACHE_SRC_MEM);
	assert_int_equal(cache_check(&cs), NS_OK);
	cache_sys_free(&cs);
}

static void test_bad_geometry(void **state)
{
	(void)state;
	struct cache c;
	assert_int_equal(cache_init(&c, 4096, 48, 8), NS_ERANGE);
	assert_int_equal(cache_init(&c, 256, 64, 8), NS_ERANGE);  /* < one set */
	assert_int_equal(cache_init(&c, 1 << 20, 64, 0), NS_ERANGE);
	assert_int_equal(cache_init(&c, 1 << 20, 64, 256), NS_ERANGE);
	struct cache_params p;
	sys_params(&p);
	struct cache_sys cs;
	int llc[1] = {3};
	assert_int_equal(cache_sys_init(&cs, &p, 1, llc, 1), NS_ERANGE);
}

static void test_address_space(void **state)
{
	(void)state;
	struct cache_as as;
	cache_as_init(&as);
	uint64_t a, b, c;
	assert_int_equal(cache_as_alloc(&as, 0, 100, 64, &a), NS_OK);
	assert_int_equal(cache_as_alloc(&as, 0, 8, 64, &b), NS_OK);
	assert_int_equal(cache_as_alloc(&as, 3, 4096, 4096, &c), NS_OK);
	assert_int_equal(a % 64, 0);
	assert_int_equal(b, a + 128);
	assert_int_equal(c % 4096, 0);
	assert_int_equal(cache_as_node(a), 0);
	assert_int_equal(cache_as_node(b), 0);
	assert_int_equal(cache_as_node(c), 3);
	assert_int_equal(cache_as_node(12345), -1);
	assert_int_equal(cache_as_alloc(&as, 0, 1, 3, &a), NS_ERANGE);
	assert_int_equal(cache_as_alloc(&as, -1, 1, 1, &a), NS_ERANGE);
	assert_int_equal(cache_as_alloc(&as, CACHE_AS_MAX_NODES, 1, 1, &a), NS_ERANGE);
	assert_int_equal(cache_as_alloc(&as, 1, 1ull << 41, 1, &a), NS_ERANGE);
	assert_int_equal(cache_as_alloc(&as, 1023, (1ull << 40) - 1, 1, &a), NS_OK);
	assert_int_equal(cache_as_node(a), 1023);
	assert_int_equal(cache_as_alloc(&as, 1023, 2, 1, &a), NS_ERANGE);
}

/*
 * Differential test: a plain reference of the cache model (the original
 * straightforward implementation: linear scans, age-rank LRU, directory
 * probe on every access) runs the same pseudo-random trace as the
 * optimised cache.c; every result, every `from`, and at checkpoints every
 * tag, age and directory writer/dirty flag must agree.  Stamps are not
 * compared as numbers: cache.c gives a repeated write no new stamp (cache.c,
 * "Repeated writes"), so what must agree is what stamps decide, the
 * freshness of every copy against its line's last write, for every copy
 * another CPU than the last writer could consult.
 */
struct ref_cache {
	uint32_t nsets, assoc;
	bool pow2;
	uint64_t *tag, *stamp;
	uint8_t *age;
};

static void ref_init(struct ref_cache *c, uint64_t size, uint32_t line_size, int assoc)
{
	c->nsets = (uint32_t)(size / ((uint64_t)line_size * (uint64_t)assoc));
	c->assoc = (uint32_t)assoc;
	c->pow2 = !(c->nsets & (c->nsets - 1));
	size_t n = (size_t)c->nsets * c->assoc;
	c->tag = test_malloc(n * sizeof *c->tag);
	c->stamp = test_calloc(n, sizeof *c->stamp);
	c->age = test_malloc(n);
	for (size_t i = 0; i < n; i++) {
		c->tag[i] = CACHE_TAG_INVALID;
		c->age[i] = (uint8_t)(i % c->assoc);
	}
}

static void ref_free(struct ref_cache *c)
{
	test_free(c->tag);
	test_free(c->stamp);
	test_free(c->age);
}

static size_t ref_base(const struct ref_cache *c, uint64_t line)
{
	uint64_t set;
	if (c->pow2)
		set = line % c->nsets;
	else
		set = ((((line * 0x9E3779B97F4A7C15ull) >> 32) * c->nsets) >> 32);
	return (size_t)set * c->assoc;
}

static long ref_find(const struct ref_cache *c, uint64_t line)
{
	size_t b = ref_base(c, line);
	for (uint32_t i = 0; i < c->assoc; i++)
		if (c->tag[b + i] == line)
			return (long)(b + i);
	return -1;
}

static void ref_touch(struct ref_cache *c, size_t w)
{
	size_t b = w - w % c->assoc;
	uint8_t a = c->age[w];
	for (uint32_t i = 0; i < c->assoc; i++)
		if (c->age[b + i] < a)
			c->age[b + i]++;
	c->age[w] = 0;
}

/* Insert or refresh; returns the way. */
static size_t ref_insert(struct ref_cache *c, uint64_t line, uint64_t stamp)
{
	long w = ref_find(c, line);
	size_t v;
	if (w >= 0) {
		v = (size_t)w;
	} else {
		size_t b = ref_base(c, line);
		v = b;
		for (uint32_t i = 0; i < c->assoc; i++)
			if (c->age[b + i] == c->assoc - 1)
				v = b + i;
		c->tag[v] = line;
	}
	c->stamp[v] = stamp;
	ref_touch(c, v);
	return v;
}

#define REF_CPUS 6

struct ref_sys {
	int nr_cpus;
	int llc_of[REF_CPUS];
	struct ref_cache l1[REF_CPUS], l2[REF_CPUS], llc[REF_CPUS];
	int nr_llc;
	bool coherence;
	struct ref_cache dir;
	int32_t *writer;
	uint8_t *dirty;
	uint64_t gstamp;
};

static bool ref_fresh(const struct ref_cache *c, long w, bool remote, uint64_t ws)
{
	return w >= 0 && (!remote || c->stamp[w] >= ws);
}

static enum cache_src ref_access(struct ref_sys *r, int cpu, uint64_t line, bool write,
				 int *from)
{
	long d = r->coherence ? ref_find(&r->dir, line) : -1;
	bool remote = d >= 0 && r->writer[d] != cpu;
	uint64_t ws = d >= 0 ? r->dir.stamp[d] : 0, now = r->gstamp;
	struct ref_cache *l1 = &r->l1[cpu], *l2 = &r->l2[cpu], *llc = &r->llc[r->llc_of[cpu]];
	enum cache_src src;
	long w1 = ref_find(l1, line);
	size_t v1;
	if (ref_fresh(l1, w1, remote, ws)) {
		v1 = (size_t)w1;
		ref_touch(l1, v1);
		src = CACHE_SRC_L1;
	} else {
		long w2 = ref_find(l2, line);
		if (ref_fresh(l2, w2, remote, ws)) {
			ref_touch(l2, (size_t)w2);
			src = CACHE_SRC_L2;
		} else {
			long w3 = ref_find(llc, line);
			int wr = remote ? r->writer[d] : -1;
			if (remote && r->dirty[d] &&
			    (ref_find(&r->l1[wr], line) >= 0 || ref_find(&r->l2[wr], line) >= 0)) {
				*from = wr;
				r->dirty[d] = 0;
				src = CACHE_SRC_XFER;
				ref_insert(llc, line, now);
			} else if (ref_fresh(llc, w3, remote, ws)) {
				ref_touch(llc, (size_t)w3);
				src = CACHE_SRC_LLC;
			} else {
				src = CACHE_SRC_MEM;
				ref_insert(llc, line, now);
			}
			ref_insert(l2, line, now);
		}
		v1 = ref_insert(l1, line, now);
	}
	if (write && r->coherence) {
		uint64_t st = ++r->gstamp;
		size_t v = ref_insert(&r->dir, line, st);
		r->writer[v] = cpu;
		r->dirty[v] = 1;
		l1->stamp[v1] = st;
		long w = ref_find(llc, line);
		if (w >= 0)
			llc->stamp[w] = st;
	}
	return src;
}

static void ref_sys_init(struct ref_sys *r, const struct cache_params *p, int nr_cpus,
			 const int *llc_of, int nr_llc, const struct cache_sys *cs)
{
	memset(r, 0, sizeof *r);
	r->nr_cpus = nr_cpus;
	r->nr_llc = nr_llc;
	for (int i = 0; i < nr_cpus; i++) {
		r->llc_of[i] = llc_of[i];
		ref_init(&r->l1[i], p->l1d_size, p->line_size, p->l1d_assoc);
		ref_init(&r->l2[i], p->l2_size, p->line_size, p->l2_assoc);
	}
	for (int i = 0; i < nr_llc; i++)
		ref_init(&r->llc[i], p->llc_size, p->line_size, p->llc_assoc);
	r->coherence = p->coherence;
	if (r->coherence) {
		/* same directory geometry as the model (its sizing rule is not
		 * what is under test here) */
		ref_init(&r->dir, (uint64_t)cs->dir.nsets * cs->dir.assoc * p->line_size,
			 p->line_size, (int)cs->dir.assoc);
		size_t n = (size_t)r->dir.nsets * r->dir.assoc;
		r->writer = test_malloc(n * sizeof *r->writer);
		r->dirty = test_calloc(n, 1);
		for (size_t i = 0; i < n; i++)
			r->writer[i] = -1;
	}
}

static void ref_sys_free(struct ref_sys *r)
{
	for (int i = 0; i < r->nr_cpus; i++) {
		ref_free(&r->l1[i]);
		ref_free(&r->l2[i]);
	}
	for (int i = 0; i < r->nr_llc; i++)
		ref_free(&r->llc[i]);
	if (r->coherence) {
		ref_free(&r->dir);
		test_free(r->writer);
		test_free(r->dirty);
	}
}

static void same_cache(const struct cache *c, const struct ref_cache *r)
{
	assert_int_equal(c->nsets, r->nsets);
	assert_int_equal(c->assoc, r->assoc);
	size_t n = (size_t)r->nsets * r->assoc;
	for (size_t w = 0; w < n; w++) {
		assert_int_equal(cache_way_line(&c->way[w]), r->tag[w]);
		assert_int_equal(cache_rank(c, w), r->age[w]);
	}
}

/*
 * Every copy in c (ref: r) of a line with a directory entry is fresh
 * (stamp >= the entry's) in both or stale in both; owner >= 0: skip lines
 * whose last writer is that CPU (its own copies are never checked).
 */
static void same_fresh(const struct cache_sys *cs, const struct ref_sys *rs,
		       const struct cache *c, const struct ref_cache *r, int owner)
{
	size_t n = (size_t)r->nsets * r->assoc;
	for (size_t w = 0; w < n; w++) {
		uint64_t t = r->tag[w];
		if (t == CACHE_TAG_INVALID)
			continue;
		long k = ref_find(&rs->dir, t);
		if (k < 0 || rs->writer[k] == owner)
			continue;
		bool ours = cache_way_stamp(&c->way[w]) >= cache_way_stamp(&cs->dir.way[k]);
		bool ref = r->stamp[w] >= rs->dir.stamp[k];
		if (ours != ref)
			fail_msg("line %#llx: copy %s in the model, %s in the reference",
				 (unsigned long long)t, ours ? "fresh" : "stale",
				 ref ? "fresh" : "stale");
	}
}

static void same_sys(const struct cache_sys *cs, const struct ref_sys *r)
{
	assert_true(cs->gstamp <= r->gstamp);
	for (int i = 0; i < r->nr_cpus; i++) {
		same_cache(&cs->cpu[i].l1, &r->l1[i]);
		same_cache(&cs->cpu[i].l2, &r->l2[i]);
	}
	for (int i = 0; i < r->nr_llc; i++)
		same_cache(&cs->llc[i], &r->llc[i]);
	if (!r->coherence)
		return;
	same_cache(&cs->dir, &r->dir);
	size_t n = (size_t)r->dir.nsets * r->dir.assoc;
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(cs->dir_writer[i] - 1, r->writer[i]);
		assert_int_equal(cache_way_flag(&cs->dir.way[i]), r->dirty[i]);
	}
	for (int i = 0; i < r->nr_cpus; i++) {
		same_fresh(cs, r, &cs->cpu[i].l1, &r->l1[i], i);
		same_fresh(cs, r, &cs->cpu[i].l2, &r->l2[i], i);
	}
	for (int i = 0; i < r->nr_llc; i++)
		same_fresh(cs, r, &cs->llc[i], &r->llc[i], -1);
}

static uint64_t splitmix(uint64_t *s)
{
	uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

/*
 * A trace shaped like the allocator models': most accesses go to a few hot
 * lines per CPU (repeats, so MRU fast paths are exercised), some to lines
 * shared by all CPUs (lock and list-head bouncing, written by several),
 * the rest to a wide range (misses, evictions at every level and in the
 * directory).
 */
static uint64_t trace_line(uint64_t *s, int cpu, uint64_t wide)
{
	uint64_t r = splitmix(s);
	unsigned kind = (unsigned)(r % 100);
	r >>= 8;
	if (kind < 55)
		return 0x1000 + (uint64_t)cpu * 64 + r % 12;  /* private hot */
	if (kind < 75)
		return 0x9000 + r % 24;                      /* shared hot */
	if (kind < 85)
		return 0x9000 + (r % 24) * 64;               /* one-set conflicts */
	return 0x100000 + r % wide;                          /* wide */
}

struct diff_case {
	uint32_t l1, l2, llc;
	int l1a, l2a, llca;
	bool coherence;
	uint64_t dir_entries;
	int nr_cpus, nr_llc;
	uint64_t wide;
	long steps;
};

static void run_diff(const struct diff_case *dc, uint64_t seed)
{
	struct cache_params p;
	cache_params_default(&p);
	p.l1d_size = dc->l1;
	p.l2_size = dc->l2;
	p.llc_size = dc->llc;
	p.l1d_assoc = dc->l1a;
	p.l2_assoc = dc->l2a;
	p.llc_assoc = dc->llca;
	p.coherence = dc->coherence;
	p.dir_entries = dc->dir_entries;
	int llc_of[REF_CPUS];
	for (int i = 0; i < dc->nr_cpus; i++)
		llc_of[i] = i * dc->nr_llc / dc->nr_cpus;
	struct cache_sys cs;
	assert_int_equal(cache_sys_init(&cs, &p, dc->nr_cpus, llc_of, dc->nr_llc), NS_OK);
	struct ref_sys *r = test_malloc(sizeof *r);
	ref_sys_init(r, &p, dc->nr_cpus, llc_of, dc->nr_llc, &cs);
	long count[5] = {0};
	uint64_t s = seed;
	int cpu = 0;
	for (long step = 0; step < dc->steps; step++) {
		uint64_t rr = splitmix(&s);
		if (rr % 8 == 0) /* runs of accesses by one CPU, like events */
			cpu = (int)((rr >> 8) % (uint64_t)dc->nr_cpus);
		bool write = (rr >> 20) % 3 == 0;
		uint64_t line = trace_line(&s, cpu, dc->wide);
		int f1 = -1, f2 = -1;
		enum cache_src a = cache_access(&cs, cpu, line, write, &f1);
		enum cache_src b = ref_access(r, cpu, line, write, &f2);
		if (a != b || f1 != f2)
			fail_msg("step %ld cpu %d line %#llx write %d: model %d/%d, reference %d/%d",
				 step, cpu, (unsigned long long)line, write, a, f1, b, f2);
		count[a]++;
		if (step % 4096 == 4095) {
			same_sys(&cs, r);
			assert_int_equal(cache_check(&cs), NS_OK);
		}
	}
	same_sys(&cs, r);
	assert_int_equal(cache_check(&cs), NS_OK);
	/* the trace reached every source (else the comparison proves little) */
	for (int i = 0; i < 5; i++)
		if (i != CACHE_SRC_XFER || (dc->coherence && dc->nr_cpus > 1))
			assert_true(count[i] > 0);
	ref_sys_free(r);
	test_free(r);
	cache_sys_free(&cs);
}

static void test_differential(void **state)
{
	(void)state;
	static const struct diff_case cases[] = {
		/* tiny caches, hashed LLC, tiny directory: constant evictions */
		{1024, 2048, 11 * 64 * 7, 8, 16, 11, true, 64, 4, 2, 4000, 120000},
		/* default-like geometry, several LLCs, auto-sized directory */
		{32 * 1024, 256 * 1024, 11 * 1408 * 1024, 8, 16, 11, true, 0, 6, 3, 1 << 16,
		 120000},
		/* odd associativities, hashed L1 (5 sets), power-of-two LLC,
		 * 2-set directory */
		{3 * 64 * 5, 5 * 64 * 8, 64 * 1024, 3, 5, 16, true, 16, 3, 1, 3000, 80000},
		/* one CPU, no directory (the benchmark's configuration) */
		{32 * 1024, 1024 * 1024, 11 * 1408 * 1024, 8, 16, 11, false, 0, 1, 1, 1 << 15,
		 80000},
		/* several CPUs without coherence, hashed L1 (6 sets) */
		{1536, 4096, 8192, 4, 4, 4, false, 0, 4, 2, 2000, 60000},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
		run_diff(&cases[i], 0x5eed + i);
}

/* Every way of a and b holds the same line at the same LRU rank. */
static void same_contents(const struct cache *a, const struct cache *b)
{
	size_t n = (size_t)a->nsets * a->assoc;
	assert_int_equal(n, (size_t)b->nsets * b->assoc);
	for (size_t w = 0; w < n; w++) {
		assert_int_equal(cache_way_line(&a->way[w]), cache_way_line(&b->way[w]));
		assert_int_equal(cache_rank(a, w), cache_rank(b, w));
	}
}

/*
 * With one CPU the directory decides nothing: no copy is ever another
 * CPU's write, nothing is transferred.  cpu_sys_init() relies on it and
 * turns the directory off for one simulated CPU; the same trace with and
 * without it gives every access the same source and leaves the same lines
 * at the same ranks (the stamps differ: only directory writes take them).
 */
static void test_one_cpu_directory_decides_nothing(void **state)
{
	(void)state;
	struct cache_params p;
	sys_params(&p);
	p.l1d_size = 4 * 1024;         /* small caches: evictions at every level */
	p.l2_size = 16 * 1024;
	p.llc_size = 11 * 64 * 64;
	p.pf_streams = 4;              /* the streamer consults the directory too */
	p.pf_distance = 8;
	p.pf_degree = 2;
	struct cache_sys on, off;
	int llc[1] = {0};
	assert_int_equal(cache_sys_init(&on, &p, 1, llc, 1), NS_OK);
	p.coherence = false;
	assert_int_equal(cache_sys_init(&off, &p, 1, llc, 1), NS_OK);
	long count[5] = {0};
	uint64_t s = 0x0c0ffee;
	for (long step = 0; step < 200000; step++) {
		uint64_t rr = splitmix(&s);
		bool write = rr % 3 == 0;
		uint64_t line = (rr >> 8) % 4 ? trace_line(&s, 0, 3000) : 0x200000 + (uint64_t)step / 3;
		int f1 = -1, f2 = -1;
		enum cache_src a = cache_access(&on, 0, line, write, &f1);
		enum cache_src b = cache_access(&off, 0, line, write, &f2);
		if (a != b || f1 != f2)
			fail_msg("step %ld line %#llx write %d: %d/%d with the directory, %d/%d without",
				 step, (unsigned long long)line, write, a, f1, b, f2);
		count[a]++;
	}
	same_contents(&on.cpu[0].l1, &off.cpu[0].l1);
	same_contents(&on.cpu[0].l2, &off.cpu[0].l2);
	same_contents(&on.llc[0], &off.llc[0]);
	assert_true(on.cpu[0].pf_issued > 0 && on.cpu[0].pf_issued == off.cpu[0].pf_issued);
	/* every source a lone CPU can see was reached */
	for (int i = CACHE_SRC_L1; i <= CACHE_SRC_MEM; i++)
		assert_true(count[i] > 0);
	assert_int_equal(cache_check(&on), NS_OK);
	assert_int_equal(cache_check(&off), NS_OK);
	cache_sys_free(&on);
	cache_sys_free(&off);
}

/* cache_lookup / cache_insert against the reference on one cache. */
static void test_differential_single(void **state)
{
	(void)state;
	static const int assocs[] = {1, 4, 8, 11, 16};
	for (size_t k = 0; k < sizeof assocs / sizeof assocs[0]; k++) {
		struct cache c;
		struct ref_cache r;
		uint64_t size = (uint64_t)assocs[k] * 64 * (k % 2 ? 7 : 8);
		assert_int_equal(cache_init(&c, size, 64, assocs[k]), NS_OK);
		ref_init(&r, size, 64, assocs[k]);
		uint64_t s = 99 + k;
		for (int i = 0; i < 50000; i++) {
			uint64_t x = splitmix(&s);
			uint64_t line = x % 3 ? (x >> 8) % 40 : (x >> 8) % 400;
			if (x & (1ull << 60)) {
				long w = cache_lookup(&c, line);
				long rw = ref_find(&r, line);
				if (rw >= 0)
					ref_touch(&r, (size_t)rw);
				assert_int_equal(w, rw);
			} else {
				size_t b = ref_base(&r, line);
				long had = ref_find(&r, line);
				uint64_t ev = had >= 0 ? CACHE_TAG_INVALID : r.tag[b];
				for (uint32_t j = 0; had < 0 && j < r.assoc; j++)
					if (r.age[b + j] == r.assoc - 1)
						ev = r.tag[b + j];
				ref_insert(&r, line, (uint64_t)i);
				assert_int_equal(cache_insert(&c, line, (uint64_t)i), ev);
			}
		}
		same_cache(&c, &r);
		assert_int_equal(cache_one_check(&c), NS_OK);
		ref_free(&r);
		cache_free(&c);
	}
}


/*
 * The L2 streamer: an ascending walk of one 4 KiB page (64 lines) misses
 * to memory for its first two lines only; from the second the stream is
 * confirmed and every L2 lookup prefetches two lines ahead (up to 20), so
 * the other 62 lines come from L2.  Without the streamer all 64 miss.  A
 * descending walk trains nothing, and no prefetch crosses the page.
 */
static int walk_page(struct cache_sys *cs, uint64_t first, int step, int src)
{
	int count[5] = {0}, from;
	for (int i = 0; i < 64; i++)
		count[cache_access(cs, 0, first + (uint64_t)(i * step), false, &from)]++;
	return count[src];
}

static void test_l2_streamer(void **state)
{
	(void)state;
	struct cache_params p;
	sys_params(&p);
	struct cache_sys cs;
	int llc[1] = {0};
	assert_int_equal(cache_sys_init(&cs, &p, 1, llc, 1), NS_OK);
	assert_int_equal(walk_page(&cs, 64 * 10, 1, CACHE_SRC_MEM), 64);
	assert_int_equal(cs.cpu[0].pf_issued, 0);
	cache_sys_free(&cs);

	p.pf_streams = 32;
	p.pf_distance = 20;
	p.pf_degree = 2;
	assert_int_equal(cache_sys_init(&cs, &p, 1, llc, 1), NS_OK);
	assert_int_equal(walk_page(&cs, 64 * 10, 1, CACHE_SRC_MEM), 2);
	assert_int_equal(cs.cpu[0].pf_issued, 62);  /* the page's other lines */
	/* the next page starts a new stream: its first lines miss again */
	assert_int_equal(walk_page(&cs, 64 * 11, 1, CACHE_SRC_MEM), 2);
	/* descending: no stream, every line misses */
	uint64_t before = cs.cpu[0].pf_issued;
	assert_int_equal(walk_page(&cs, 64 * 21 - 1, -1, CACHE_SRC_MEM), 64);
	assert_int_equal(cs.cpu[0].pf_issued, before);
	assert_int_equal(cache_check(&cs), NS_OK);
	cache_sys_free(&cs);
}

/* A trace of accesses on 3 CPUs over 2 LLCs; the sources in src[]. */
static void pool_trace(struct cache_sys *cs, uint64_t seed, long n, uint8_t *src)
{
	uint64_t s = seed;
	for (long i = 0; i < n; i++) {
		uint64_t rr = splitmix(&s);
		int cpu = (int)(rr % 3), from;
		src[i] = (uint8_t)cache_access(cs, cpu, trace_line(&s, cpu, 200000),
					       (rr >> 20) % 3 == 0, &from);
	}
}

/*
 * The pool: a second world of the same geometry gets the first one's
 * arrays back in exactly the empty state (cache_sys_clear_check), and a
 * trace gives the same sources as on fresh arrays; another geometry maps
 * anew; a world whose check would fail is not hidden by the fast walk.
 */
static void test_pool_reuse(void **state)
{
	(void)state;
	enum { N = 60000 };
	struct cache_params p;
	sys_params(&p);
	struct cache_pool pool = {0};
	p.pool = &pool;
	int llc[3] = {0, 0, 1};
	uint8_t *fresh = test_malloc(N), *again = test_malloc(N);
	struct cache_sys cs;

	assert_int_equal(cache_sys_init(&cs, &p, 3, llc, 2), NS_OK);
	assert_int_equal(pool.reused, 0);
	assert_int_equal(cache_sys_clear_check(&cs), NS_OK);
	pool_trace(&cs, 7, N, fresh);
	assert_int_equal(cache_check(&cs), NS_OK);
	assert_int_equal(cache_sys_clear_check(&cs), NS_EINTERNAL);
	cache_sys_free(&cs);
	assert_non_null(pool.map);

	for (int round = 0; round < 2; round++) {
		assert_int_equal(cache_sys_init(&cs, &p, 3, llc, 2), NS_OK);
		assert_int_equal(pool.reused, (uint64_t)round + 1);
		assert_null(pool.map);
		assert_int_equal(cache_sys_clear_check(&cs), NS_OK);
		pool_trace(&cs, 7, N, again);
		assert_memory_equal(fresh, again, N);
		assert_int_equal(cache_check(&cs), NS_OK);
		cache_sys_free(&cs);
	}

	/* an untouched world goes back as it came */
	assert_int_equal(cache_sys_init(&cs, &p, 3, llc, 2), NS_OK);
	cache_sys_free(&cs);
	assert_int_equal(cache_sys_init(&cs, &p, 3, llc, 2), NS_OK);
	assert_int_equal(pool.reused, 4);
	assert_int_equal(cache_sys_clear_check(&cs), NS_OK);
	/* a corrupt way in an otherwise empty LLC: the walk still sees it */
	cs.llc[1].way[5 * cs.llc[1].assoc + 2].sa = 2;
	assert_int_equal(cache_check(&cs), NS_EINTERNAL);
	cs.llc[1].way[5 * cs.llc[1].assoc + 2].sa = 0;
	assert_int_equal(cache_check(&cs), NS_OK);
	cs.llc[1].mru[7] = 3;
	assert_int_equal(cache_check(&cs), NS_EINTERNAL);
	cs.llc[1].mru[7] = 0;
	cache_sys_free(&cs);

	/* another geometry: mapped anew, the pool's arena given back */
	int llc1[1] = {0};
	assert_int_equal(cache_sys_init(&cs, &p, 1, llc1, 1), NS_OK);
	assert_int_equal(pool.reused, 4);
	assert_null(pool.map);
	assert_int_equal(cache_sys_clear_check(&cs), NS_OK);
	cache_sys_free(&cs);
	cache_pool_free(&pool);
	assert_null(pool.map);
	test_free(fresh);
	test_free(again);
}

/* Pages of [p, p + bytes) the process has mapped (whole pages inside only). */
static size_t resident_pages(const void *p, size_t bytes)
{
	size_t pg = (size_t)sysconf(_SC_PAGESIZE);
	uintptr_t lo = ((uintptr_t)p + pg - 1) & ~(uintptr_t)(pg - 1);
	uintptr_t hi = ((uintptr_t)p + bytes) & ~(uintptr_t)(pg - 1);
	if (hi <= lo)
		return 0;
	size_t n = (hi - lo) / pg, r = 0;
	unsigned char *v = test_malloc(n);
	assert_int_equal(mincore((void *)lo, hi - lo, v), 0);
	for (size_t i = 0; i < n; i++)
		r += v[i] & 1;
	test_free(v);
	return r;
}

/*
 * Lazy state: set-up writes nothing, so CPUs that never access memory
 * have none of their L1, claims or L2 mapped (CPUs 8-15 of 16: their
 * arrays start 8 x ~281 KiB past CPU 0's, beyond the huge page CPUs 0
 * and 1 write); a set's ranks are identity until its first fill, which
 * takes its last way.
 */
static void test_idle_cpu_untouched(void **state)
{
	(void)state;
	struct cache_params p;
	cache_params_default(&p);
	struct cache_sys cs;
	int llc[16];
	for (int i = 0; i < 16; i++)
		llc[i] = i / 8;
	assert_int_equal(cache_sys_init(&cs, &p, 16, llc, 2), NS_OK);
	const struct cache *l2 = &cs.cpu[0].l2;
	for (uint32_t w = 0; w < l2->assoc; w++)
		assert_int_equal(cache_rank(l2, w), w);
	int from;
	for (uint64_t line = 0; line < 100000; line++)
		cache_access(&cs, (int)(line % 2), line * 7, line % 3 == 0, &from);
	/* (before any walk: reading an unmapped page maps the zero page) */
	size_t l2_bytes = (size_t)l2->nsets * l2->assoc * sizeof *l2->way;
	assert_true(resident_pages(cs.cpu[0].l2.way, l2_bytes) > 0);
	for (int i = 8; i < 16; i++) {
		const struct cache_cpu *pc = &cs.cpu[i];
		assert_int_equal(resident_pages(pc->l2.way, l2_bytes), 0);
		assert_int_equal(resident_pages(pc->claim, (size_t)pc->l1.nsets * pc->l1.assoc *
								   sizeof *pc->claim), 0);
	}
	assert_int_equal(cache_check(&cs), NS_OK);
	/* the first fill of a set takes its last way, then the one before */
	const struct cache *l1 = &cs.cpu[15].l1;
	long w = (long)cache_set(l1, 5) * l1->assoc;
	cache_access(&cs, 15, 5, false, &from);
	assert_int_equal(cache_way_line(&l1->way[w + 7]), 5);
	assert_int_equal(cache_rank(l1, (size_t)w + 7), 0);
	assert_int_equal(cache_rank(l1, (size_t)w), 1);
	cache_access(&cs, 15, 5 + l1->nsets, false, &from);
	assert_int_equal(cache_way_line(&l1->way[w + 6]), 5 + l1->nsets);
	assert_int_equal(cache_check(&cs), NS_OK);
	cache_sys_free(&cs);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lru_single_set),
		cmocka_unit_test(test_l2_streamer),
		cmocka_unit_test(test_check_catches_corruption),
		cmocka_unit_test(test_hashed_index),
		cmocka_unit_test(test_walk_bigger_than_l1),
		cmocka_unit_test(test_llc_shared_by_node),
		cmocka_unit_test(test_coherence),
		cmocka_unit_test(test_repeated_writes),
		cmocka_unit_test(test_written_back_line),
		cmocka_unit_test(test_bad_geometry),
		cmocka_unit_test(test_address_space),
		cmocka_unit_test(test_differential),
		cmocka_unit_test(test_differential_single),
		cmocka_unit_test(test_one_cpu_directory_decides_nothing),
		cmocka_unit_test(test_pool_reuse),
		cmocka_unit_test(test_idle_cpu_untouched),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
