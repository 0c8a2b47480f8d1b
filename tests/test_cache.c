/* Tests for sim/cache: set-associative LRU, hierarchy, coherence, addresses. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "cache.h"
#include "diag.h"

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
	uint8_t a = c.age[3];
	c.age[3] = c.age[4];
	assert_int_equal(cache_one_check(&c), NS_EINTERNAL); /* not a permutation */
	c.age[3] = a;
	uint64_t t = c.tag[1];
	c.tag[1] = c.tag[0];
	assert_int_equal(cache_one_check(&c), NS_EINTERNAL); /* duplicate tag */
	c.tag[1] = t + 1;                                /* wrong set */
	assert_int_equal(cache_one_check(&c), NS_EINTERNAL);
	c.tag[1] = t;
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lru_single_set),
		cmocka_unit_test(test_check_catches_corruption),
		cmocka_unit_test(test_hashed_index),
		cmocka_unit_test(test_walk_bigger_than_l1),
		cmocka_unit_test(test_llc_shared_by_node),
		cmocka_unit_test(test_coherence),
		cmocka_unit_test(test_written_back_line),
		cmocka_unit_test(test_bad_geometry),
		cmocka_unit_test(test_address_space),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
