/* Tests for sim/eventq: (time, seq) order, FIFO ties, growth, invariants. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "eventq.h"

static uint64_t next_rand(uint64_t *s)
{
	uint64_t z = (*s += 0x9E3779B97F4A7C15ULL);
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
	return z ^ (z >> 31);
}

static void test_empty(void **state)
{
	(void)state;
	struct eventq *q = eventq_create(0);
	assert_non_null(q);
	struct event e = {.time = 42};
	assert_int_equal(eventq_size(q), 0);
	assert_int_equal(eventq_pop(q, &e), NS_ENOENT);
	assert_int_equal(eventq_peek(q, &e), NS_ENOENT);
	assert_int_equal(e.time, 42); /* untouched on failure */
	assert_int_equal(eventq_check(q), NS_OK);
	assert_int_equal(eventq_check(NULL), NS_EINTERNAL);
	unsigned d = eventq_arity();
	assert_true(d == 2 || d == 4 || d == 8);
	eventq_destroy(q);
	eventq_destroy(NULL);
}

static void test_time_then_seq(void **state)
{
	(void)state;
	struct eventq *q = eventq_create(2);
	assert_int_equal(eventq_push(q, 5, 1, 10), NS_OK);
	assert_int_equal(eventq_push(q, 3, 2, 20), NS_OK);
	assert_int_equal(eventq_push(q, 5, 3, 30), NS_OK);
	assert_int_equal(eventq_push(q, 3, 4, 40), NS_OK);
	assert_int_equal(eventq_push(q, 0, 5, 50), NS_OK);
	assert_int_equal(eventq_pushes(q), 5);
	static const struct { uint64_t time, seq; uint32_t type, arg; } want[] = {
		{0, 4, 5, 50}, {3, 1, 2, 20}, {3, 3, 4, 40}, {5, 0, 1, 10}, {5, 2, 3, 30},
	};
	struct event e, p;
	for (size_t i = 0; i < 5; i++) {
		assert_int_equal(eventq_peek(q, &p), NS_OK);
		assert_int_equal(eventq_pop(q, &e), NS_OK);
		assert_memory_equal(&p, &e, sizeof e);
		assert_int_equal(e.time, want[i].time);
		assert_int_equal(e.seq, want[i].seq);
		assert_int_equal(e.type, want[i].type);
		assert_int_equal(e.arg, want[i].arg);
		assert_int_equal(eventq_size(q), 4 - i);
	}
	assert_int_equal(eventq_pop(q, &e), NS_ENOENT);
	eventq_destroy(q);
}

/* Equal times pop in push order, also when pushes interleave with pops. */
static void test_fifo_ties(void **state)
{
	(void)state;
	struct eventq *q = eventq_create(1);
	for (uint32_t i = 0; i < 1000; i++)
		assert_int_equal(eventq_push(q, 7, 0, i), NS_OK);
	struct event e;
	uint32_t expect = 0, next_arg = 1000;
	for (int k = 0; k < 3000; k++) {
		assert_int_equal(eventq_pop(q, &e), NS_OK);
		assert_int_equal(e.arg, expect);
		expect++;
		assert_int_equal(eventq_push(q, 7, 0, next_arg++), NS_OK);
	}
	assert_int_equal(eventq_check(q), NS_OK);
	eventq_destroy(q);
}

struct ref { uint64_t time, seq; uint32_t arg; };

/*
 * Random pushes and pops against a sorted array (kept by insertion); times from a narrow range
 * so ties are frequent.  Pop bursts drain the queue to empty now and then.
 */
static void test_random_against_reference(void **state)
{
	(void)state;
	struct eventq *q = eventq_create(4);
	size_t cap = 20000, n = 0;
	struct ref *ref = malloc(cap * sizeof *ref);
	assert_non_null(ref);
	uint64_t s = 12345, seq = 0, now = 0;
	for (int step = 0; step < 60000; step++) {
		uint64_t r = next_rand(&s);
		int do_push = n == 0 || (r % 100) < (step % 5000 < 4000 ? 55 : 20);
		if (do_push && n < cap) {
			uint64_t t = now + (r >> 40) % 50;
			uint32_t arg = (uint32_t)(r >> 8);
			assert_int_equal(eventq_push(q, t, 9, arg), NS_OK);
			/* The newest seq goes after every entry with time <= t. */
			size_t at = n;
			while (at > 0 && ref[at - 1].time > t)
				at--;
			memmove(ref + at + 1, ref + at, (n - at) * sizeof *ref);
			ref[at] = (struct ref){t, seq++, arg};
			n++;
		} else if (n > 0) {
			struct event e;
			assert_int_equal(eventq_pop(q, &e), NS_OK);
			assert_int_equal(e.time, ref[0].time);
			assert_int_equal(e.seq, ref[0].seq);
			assert_int_equal(e.arg, ref[0].arg);
			assert_int_equal(e.type, 9);
			now = e.time;
			memmove(ref, ref + 1, (n - 1) * sizeof *ref);
			n--;
		}
		assert_int_equal(eventq_size(q), n);
		if (step % 997 == 0)
			assert_int_equal(eventq_check(q), NS_OK);
	}
	free(ref);
	eventq_destroy(q);
}

/* From a capacity hint of 1 to 200000 events and back, in order. */
static void test_growth(void **state)
{
	(void)state;
	struct eventq *q = eventq_create(1);
	uint64_t s = 99;
	const uint32_t n = 200000;
	for (uint32_t i = 0; i < n; i++)
		assert_int_equal(eventq_push(q, next_rand(&s) % 100000, 0, i), NS_OK);
	assert_int_equal(eventq_size(q), n);
	assert_int_equal(eventq_check(q), NS_OK);
	struct event prev, e;
	assert_int_equal(eventq_pop(q, &prev), NS_OK);
	for (uint32_t i = 1; i < n; i++) {
		assert_int_equal(eventq_pop(q, &e), NS_OK);
		assert_true(prev.time < e.time || (prev.time == e.time && prev.seq < e.seq));
		prev = e;
	}
	assert_int_equal(eventq_size(q), 0);
	assert_int_equal(eventq_check(q), NS_OK);
	eventq_destroy(q);
}

/* Extreme times order correctly (no signed or overflowing compares). */
static void test_extreme_times(void **state)
{
	(void)state;
	struct eventq *q = eventq_create(8);
	uint64_t times[] = {UINT64_MAX, 0, UINT64_MAX - 1, 1ULL << 63, (1ULL << 63) - 1, UINT64_MAX};
	for (size_t i = 0; i < 6; i++)
		assert_int_equal(eventq_push(q, times[i], 0, (uint32_t)i), NS_OK);
	uint32_t want[] = {1, 4, 3, 2, 0, 5};
	struct event e;
	for (size_t i = 0; i < 6; i++) {
		assert_int_equal(eventq_pop(q, &e), NS_OK);
		assert_int_equal(e.arg, want[i]);
	}
	eventq_destroy(q);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_time_then_seq),
		cmocka_unit_test(test_fifo_ties),
		cmocka_unit_test(test_random_against_reference),
		cmocka_unit_test(test_growth),
		cmocka_unit_test(test_extreme_times),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
