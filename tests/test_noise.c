/*
 * Tests for cost/noise (the ticks and the pollution) and models/shuffle
 * (noise.page_placement): each source is deterministic for a seed,
 * differs across seeds, and acts through the cost model's mechanisms
 * (the clock, the caches, the buddy free lists); with a source off it
 * does nothing.  mm_check() runs after every test that builds a world.
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
#include "cost/cache.h"
#include "cost/cpu.h"
#include "cost/noise.h"
#include "models/page_alloc.h"
#include "models/shuffle.h"
#include "tests/page_alloc_fixture.h"
#include "tests/test_costs_yaml.h"

/* 1 node, Normal 64 MiB = 16 MAX_ORDER blocks */
static const char m_one[] = TEST_MACHINE_ONE;

static struct tw *world(void)
{
	struct mm_config cfg;
	mm_config_default(&cfg);
	return tw_create(m_one, &cfg);
}

static bool in_l1(struct cpu *c, uint64_t addr)
{
	const struct cache_sys *cs = &c->sys->cache;
	return cache_l1_fast(cs, c->idx, addr >> cs->line_shift, false);
}

/* --- page placement ------------------------------------------------------ */

/* The pfn of the first page a fresh world (shuffled with seed, or not:
 * seed 0 below means no shuffle) hands out. */
static uint64_t first_pfn(uint64_t seed, bool shuffle, uint64_t *swaps)
{
	struct tw *t = world();
	struct mm_zone_info z;
	*swaps = 0;
	if (shuffle)
		assert_int_equal(shuffle_free_memory(t->w, seed, swaps), NS_OK);
	assert_int_equal(mm_zone_get_info(t->w, 0, ZONE_NORMAL, 0, &z), NS_OK);
	assert_int_equal(z.nr_free[10], 16);           /* the same pages, still free */
	assert_int_equal(z.nr_free_mt[10][1], 16);
	struct page *p = mm_alloc_pages(t->w, &t->s.cpu[0], GFP_KERNEL, 0);
	assert_non_null(p);
	uint64_t pfn = mm_page_pfn(t->w, p);
	mm_free_pages(t->w, &t->s.cpu[0], p, 0);
	tw_check(t);
	tw_destroy(t);
	return pfn;
}

static void test_shuffle(void **state)
{
	(void)state;
	uint64_t swaps, swaps2;
	/* unshuffled: the head of the order-10 list is the highest block */
	uint64_t plain = first_pfn(0, false, &swaps);
	assert_int_equal(plain % 1024, 0);
	assert_int_equal(plain / 1024 % 16, 15);
	/* same seed, same list; swaps made */
	uint64_t a = first_pfn(3, true, &swaps), b = first_pfn(3, true, &swaps2);
	assert_int_equal(a, b);
	assert_int_equal(swaps, swaps2);
	assert_true(swaps > 0 && swaps <= 16);
	/* across seeds the first block differs: at least 3 distinct of 8 */
	uint64_t seen[8];
	int distinct = 0;
	for (uint64_t s = 1; s <= 8; s++) {
		uint64_t pfn = first_pfn(s, true, &swaps);
		assert_int_equal(pfn % 1024, 0);
		int found = 0;
		for (int i = 0; i < distinct; i++)
			found |= seen[i] == pfn;
		if (!found)
			seen[distinct++] = pfn;
	}
	assert_true(distinct >= 3);
}

/* --- ticks --------------------------------------------------------------- */

static struct noise_params ticks_on(void)
{
	struct noise_params p;
	noise_params_default(&p);
	p.ticks = true;
	return p;
}

static void test_tick_phase(void **state)
{
	(void)state;
	struct tw *t = world();
	struct cpu *c = &t->s.cpu[0];
	struct noise_params p = ticks_on();
	struct noise a, b, x;
	assert_int_equal(noise_init(&a, &p, c, 11), NS_OK);
	assert_int_equal(noise_init(&b, &p, c, 11), NS_OK);
	assert_int_equal(noise_init(&x, &p, c, 12), NS_OK);
	/* 1/HZ at the machine's clock */
	uint64_t period = (uint64_t)(c->sys->k.clock_ghz * 1e9 / NOISE_HZ_DEFAULT);
	assert_int_equal(a.period, period);
	assert_int_equal(a.tick_cycles, cpu_ns_to_cycles(&c->sys->k, NOISE_TICK_NS_DEFAULT));
	assert_true(a.next_tick >= c->now && a.next_tick < c->now + period);
	assert_int_equal(a.next_tick, b.next_tick);     /* same seed, same phase */
	assert_true(a.next_tick != x.next_tick);        /* another seed, another */
	assert_int_equal(noise_check(&a), NS_OK);
	noise_fini(&a);
	noise_fini(&b);
	noise_fini(&x);
	tw_destroy(t);
}

static void test_tick_charges_and_evicts(void **state)
{
	(void)state;
	struct tw *t = world();
	struct cpu *c = &t->s.cpu[0];
	struct noise_params p = ticks_on();
	p.tick_lines = 4096;                 /* 256 KiB: more than the L1 */
	struct noise n;
	assert_int_equal(noise_init(&n, &p, c, 5), NS_OK);
	uint64_t data = 0x100000000000ull;   /* a line of the benchmark's */
	cpu_mem(c, data, 8, 0, CPU_LOAD);
	assert_true(in_l1(c, data));
	/* before its time, a poll does nothing */
	uint64_t t0 = c->now;
	if (n.next_tick > c->now) {
		noise_poll(&n);
		assert_int_equal(n.ticks, 0);
		assert_int_equal(c->now, t0);
	}
	/* one period later exactly one tick is due */
	cpu_work(c, (uint32_t)(n.next_tick - c->now));
	t0 = c->now;
	noise_poll(&n);
	assert_int_equal(n.ticks, 1);
	assert_int_equal(c->now, t0 + n.tick_cycles);   /* the direct cost */
	assert_false(in_l1(c, data));                   /* its footprint evicted it */
	assert_true(in_l1(c, NOISE_TICK_ADDR + (uint64_t)(p.tick_lines - 1) * 64));
	assert_true(n.next_tick > c->now);
	/* a clock far ahead: every tick due is delivered */
	cpu_work(c, (uint32_t)(3 * n.period));
	noise_poll(&n);
	assert_true(n.ticks >= 4);
	assert_true(n.next_tick > c->now);
	assert_int_equal(noise_check(&n), NS_OK);
	noise_fini(&n);
	tw_check(t);
	tw_destroy(t);
}

static void test_ticks_off(void **state)
{
	(void)state;
	struct tw *t = world();
	struct cpu *c = &t->s.cpu[0];
	struct noise_params p;
	noise_params_default(&p);
	struct noise n;
	assert_false(noise_params_any(&p));
	assert_int_equal(noise_init(&n, &p, c, 5), NS_OK);
	cpu_work(c, 1000000000u);
	uint64_t t0 = c->now;
	noise_poll(&n);
	noise_pollute(&n);
	assert_int_equal(c->now, t0);
	assert_int_equal(n.ticks, 0);
	assert_int_equal(n.polluted_lines, 0);
	assert_int_equal(noise_check(&n), NS_OK);
	noise_fini(&n);
	/* out-of-range figures are refused */
	p.hz = 1;
	assert_int_equal(noise_init(&n, &p, c, 5), NS_ERANGE);
	tw_destroy(t);
}

/* --- pollution ----------------------------------------------------------- */

/* The L2 tags of CPU 0 after one pollution with seed and percent, on a
 * fresh world whose L1 and L2 hold one line of the benchmark's; *kept:
 * that line is still in L1. */
static uint64_t *polluted_l2(uint64_t seed, uint32_t percent, size_t *ways, bool *kept)
{
	struct tw *t = world();
	struct cpu *c = &t->s.cpu[0];
	struct noise_params p;
	noise_params_default(&p);
	p.pollution = true;
	p.pollution_percent = percent;
	struct noise n;
	uint64_t data = 0x100000000000ull;
	cpu_mem(c, data, 8, 0, CPU_LOAD);
	assert_int_equal(noise_init(&n, &p, c, seed), NS_OK);
	uint64_t t0 = c->now;
	noise_pollute(&n);
	assert_int_equal(c->now, t0);                   /* not charged */
	assert_int_equal(n.polluted_lines, (uint64_t)n.l2_lines * percent / 100);
	assert_int_equal(noise_check(&n), NS_OK);
	*kept = in_l1(c, data);
	const struct cache *l2 = &c->sys->cache.cpu[c->idx].l2;
	*ways = (size_t)l2->nsets * l2->assoc;
	uint64_t *tags = malloc(*ways * sizeof *tags);
	assert_non_null(tags);
	for (size_t i = 0; i < *ways; i++)
		tags[i] = cache_way_line(&l2->way[i]);
	noise_fini(&n);
	tw_check(t);
	tw_destroy(t);
	return tags;
}

static void test_pollution(void **state)
{
	(void)state;
	size_t na, nb, nx, n0;
	bool ka, kb, kx, k0;
	uint64_t *a = polluted_l2(21, 50, &na, &ka), *b = polluted_l2(21, 50, &nb, &kb);
	uint64_t *x = polluted_l2(22, 50, &nx, &kx), *z = polluted_l2(21, 0, &n0, &k0);
	assert_int_equal(na, nb);
	assert_memory_equal(a, b, na * sizeof *a);      /* same seed, same lines */
	assert_true(memcmp(a, x, na * sizeof *a) != 0); /* another seed, others */
	/* half the L2's lines: many ways hold the other tasks' lines */
	size_t other = 0;
	for (size_t i = 0; i < na; i++)
		other += a[i] >= (NOISE_POLLUTION_ADDR >> 6) &&
			 a[i] < ((NOISE_POLLUTION_ADDR + NOISE_POLLUTION_BYTES) >> 6);
	assert_true(other > na / 4 && other <= na / 2);
	assert_true(k0);                                /* 0 %: nothing evicted */
	free(a);
	free(b);
	free(x);
	free(z);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_shuffle),
		cmocka_unit_test(test_tick_phase),
		cmocka_unit_test(test_tick_charges_and_evicts),
		cmocka_unit_test(test_ticks_off),
		cmocka_unit_test(test_pollution),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
