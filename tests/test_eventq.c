/* Tests for sim/eventq: (time, seq) order, FIFO ties, growth, invariants. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "base/diag.h"
#include "sim/eventq.h"

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
	assert_string_equal(eventq_kind(), "ladder queue");
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

/*
 * Sorted reference for the ladder tests: a binary min-heap over (time, seq)
 * written independently of the queue (the simplest correct structure).
 */
struct refheap { struct ref *a; size_t n, cap; };

static int ref_before(const struct ref *x, const struct ref *y)
{
	return x->time < y->time || (x->time == y->time && x->seq < y->seq);
}

static void ref_push(struct refheap *h, struct ref r)
{
	if (h->n == h->cap) {
		h->cap = h->cap ? 2 * h->cap : 64;
		h->a = realloc(h->a, h->cap * sizeof *h->a);
		assert_non_null(h->a);
	}
	size_t i = h->n++;
	while (i > 0 && ref_before(&r, &h->a[(i - 1) / 2])) {
		h->a[i] = h->a[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	h->a[i] = r;
}

static struct ref ref_pop(struct refheap *h)
{
	struct ref top = h->a[0], last = h->a[--h->n];
	size_t i = 0;
	for (;;) {
		size_t c = 2 * i + 1;
		if (c >= h->n)
			break;
		if (c + 1 < h->n && ref_before(&h->a[c + 1], &h->a[c]))
			c++;
		if (!ref_before(&h->a[c], &last))
			break;
		h->a[i] = h->a[c];
		i = c;
	}
	if (h->n)
		h->a[i] = last;
	return top;
}

/* Pop one event from q and compare it with the reference's first. */
static void pop_and_compare(struct eventq *q, struct refheap *ref, uint64_t *now)
{
	struct event e, p;
	struct ref want = ref_pop(ref);
	assert_int_equal(eventq_peek(q, &p), NS_OK);
	assert_int_equal(eventq_pop(q, &e), NS_OK);
	assert_memory_equal(&p, &e, sizeof e);
	assert_int_equal(e.time, want.time);
	assert_int_equal(e.seq, want.seq);
	assert_int_equal(e.arg, want.arg);
	*now = e.time;
}

/*
 * Hold workloads at several populations and delay scales, with delays of
 * zero and few distinct times so that whole buckets tie; the population
 * changes in phases (grow, hold, drain) so rungs are spawned from Top,
 * from crowded buckets and from an overfull Bottom, and emptied again.
 */
static void test_ladder_hold_against_reference(void **state)
{
	(void)state;
	static const struct { size_t pop; uint64_t spread; } cases[] = {
		{1, 10}, {40, 1}, {300, 3}, {2000, 1000}, {5000, 7}, {20000, 100000},
	};
	for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
		struct eventq *q = eventq_create(1);
		struct refheap ref = {0};
		uint64_t s = 77 + c, seq = 0, now = 0;
		for (size_t i = 0; i < cases[c].pop; i++) {
			uint64_t t = next_rand(&s) % (cases[c].spread + 1);
			assert_int_equal(eventq_push(q, t, 1, (uint32_t)i), NS_OK);
			ref_push(&ref, (struct ref){t, seq++, (uint32_t)i});
		}
		for (int step = 0; step < 40000; step++) {
			uint64_t r = next_rand(&s);
			int phase = step / 10000; /* hold, grow, hold, drain */
			int pushes = phase == 1 ? 2 : phase == 3 ? (int)(r & 1) : 1;
			if (ref.n > 0)
				pop_and_compare(q, &ref, &now);
			for (int k = 0; k < pushes; k++) {
				uint64_t d = (r >> (8 + 16 * k)) % 8 == 0
						     ? 0 : (r >> (20 + 8 * k)) % (cases[c].spread + 1);
				uint32_t arg = (uint32_t)(r >> 32) + (uint32_t)k;
				assert_int_equal(eventq_push(q, now + d, 1, arg), NS_OK);
				ref_push(&ref, (struct ref){now + d, seq++, arg});
			}
			assert_int_equal(eventq_size(q), ref.n);
			if (step % 1999 == 0)
				assert_int_equal(eventq_check(q), NS_OK);
		}
		while (ref.n > 0)
			pop_and_compare(q, &ref, &now);
		assert_int_equal(eventq_size(q), 0);
		assert_int_equal(eventq_check(q), NS_OK);
		struct event e;
		assert_int_equal(eventq_pop(q, &e), NS_ENOENT);
		free(ref.a);
		eventq_destroy(q);
	}
}

/*
 * Pushes earlier than the last pop (the API allows them) and far in the
 * future, interleaved with peeks: they land in Bottom, which must turn
 * into a rung when it overflows, and in Top; the order stays exact.
 */
static void test_ladder_out_of_order_and_peek(void **state)
{
	(void)state;
	struct eventq *q = eventq_create(4);
	struct refheap ref = {0};
	uint64_t s = 5, seq = 0, now = 0;
	for (int i = 0; i < 3000; i++) {
		uint64_t t = 1000000 + next_rand(&s) % 1000000;
		assert_int_equal(eventq_push(q, t, 0, (uint32_t)i), NS_OK);
		ref_push(&ref, (struct ref){t, seq++, (uint32_t)i});
	}
	for (int step = 0; step < 30000; step++) {
		uint64_t r = next_rand(&s);
		if (r % 3 == 0 && ref.n > 0) {
			pop_and_compare(q, &ref, &now);
			continue;
		}
		uint64_t t;
		switch ((r >> 8) % 4) {
		case 0: t = now > 500 ? now - (r >> 20) % 500 : 0; break; /* before now */
		case 1: t = now + (r >> 20) % 3; break;                     /* crowding now */
		case 2: t = now + 10000000 + (r >> 20) % 1000; break;       /* far: Top */
		default: t = (r >> 20) % 4000000; break;                    /* anywhere */
		}
		assert_int_equal(eventq_push(q, t, 0, (uint32_t)step), NS_OK);
		ref_push(&ref, (struct ref){t, seq++, (uint32_t)step});
		struct event p;
		assert_int_equal(eventq_peek(q, &p), NS_OK);
		assert_int_equal(p.time, ref.a[0].time);
		assert_int_equal(p.seq, ref.a[0].seq);
		if (step % 1499 == 0)
			assert_int_equal(eventq_check(q), NS_OK);
	}
	assert_int_equal(eventq_check(q), NS_OK);
	while (ref.n > 0)
		pop_and_compare(q, &ref, &now);
	assert_int_equal(eventq_check(q), NS_OK);
	free(ref.a);
	eventq_destroy(q);
}

/* 100000 events at one time, then pushes at that time and just after it. */
static void test_ladder_huge_tie(void **state)
{
	(void)state;
	struct eventq *q = eventq_create(1);
	for (uint32_t i = 0; i < 100000; i++)
		assert_int_equal(eventq_push(q, 1000, 0, i), NS_OK);
	struct event e;
	uint32_t expect = 0, next = 100000;
	for (int k = 0; k < 150000; k++) {
		assert_int_equal(eventq_pop(q, &e), NS_OK);
		assert_int_equal(e.time, 1000);
		assert_int_equal(e.arg, expect++);
		if (k < 50000)
			assert_int_equal(eventq_push(q, 1000, 0, next++), NS_OK);
		else
			assert_int_equal(eventq_push(q, 1001 + (uint64_t)k % 5, 0, 0), NS_OK);
		if (k % 30011 == 0)
			assert_int_equal(eventq_check(q), NS_OK);
	}
	assert_int_equal(eventq_size(q), 100000);
	uint64_t prev_time = 0, prev_seq = 0;
	for (int k = 0; k < 100000; k++) {
		assert_int_equal(eventq_pop(q, &e), NS_OK);
		assert_true(e.time > prev_time || (e.time == prev_time && e.seq > prev_seq));
		prev_time = e.time;
		prev_seq = e.seq;
	}
	assert_int_equal(eventq_check(q), NS_OK);
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
		cmocka_unit_test(test_ladder_hold_against_reference),
		cmocka_unit_test(test_ladder_out_of_order_and_peek),
		cmocka_unit_test(test_ladder_huge_tie),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
