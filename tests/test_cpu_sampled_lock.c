/*
 * Tests for cost/cpu_sampled_lock.c: lock waits under sampled accounting,
 * on the fixture machine of tests/cost_fixture.h (worlds of
 * tests/cpu_fixture.h).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <string.h>

#include "tests/cpu_fixture.h"

/*
 * Lock waits under sampled accounting (cost/cpu_sampled_lock.c, "Lock waits"): CPU 0 runs
 * calls that take and release a lock, on 13 paths; before some of them
 * CPU 1 holds the lock until a release time R well after the call's
 * start.
 *   - A fast call waits R - start (no branch comes before its lock, so
 *     its time there is its start), counted as exact counts a wait, and
 *     releases the lock no earlier than R.
 *   - A fast call never waits for CPU 0's own earlier release.
 *   - A sample waits as exact does, but the cost it records for its
 *     path leaves the wait out: the next fast call, uncontended, costs
 *     less than the wait.
 *   - Every lock is counted, also in a fast call whose path had no
 *     sample yet, and so is the transfer of every lock CPU 1 held last.
 */
static void sampled_lock_call(struct cpu *a, struct cpu *b, struct cpu_lock *l, bool hold,
			      unsigned paths, uint64_t *start, uint64_t *wait, uint64_t *waited,
			      bool *fast)
{
	const uint64_t hold_cycles = 100000;
	*start = a->now;
	cpu_call(a, FIX_FN_outer_fn);
	*fast = cpu_in_fast_call(a);
	*wait = 0;
	if (hold) {
		/* CPU 1, outside any call: exact, released at b's clock */
		cpu_advance_to(b, a->now > b->now ? a->now : b->now);
		assert_int_equal(cpu_lock(b, l), NS_OK);
		cpu_work(b, (uint32_t)hold_cycles);
		assert_int_equal(cpu_unlock(b, l), NS_OK);
		*wait = l->free_at - *start;
	}
	uint64_t w0 = cpu_counter(a, CPU_CTR_lock_wait_cycles);
	assert_int_equal(cpu_lock(a, l), NS_OK);
	cpu_work(a, 7);
	cpu_branch(a, FIX_SITE_T1, true);
	assert_int_equal(cpu_unlock(a, l), NS_OK);
	/* one of several paths after the lock: some are first met in a
	 * fast call (lost), whose counts the samples do not give */
	for (unsigned j = 0; j < paths; j++)
		cpu_branch(a, FIX_SITE_T2, true);
	if (*fast && hold)
		assert_true(l->free_at >= *start + *wait);
	cpu_ret(a);
	*waited = cpu_counter(a, CPU_CTR_lock_wait_cycles) - w0;
}

/* The lock tests' world: sampled, period 4, caches warmed; CPU 0 (*a)
 * calls, CPU 1 (*b) holds the lock *l now and then. */
static struct world *lock_world(int model, struct cpu **a, struct cpu **b, struct cpu_lock *l)
{
	struct world *w = acct_world((enum cpu_model)model, CPU_ACCOUNTING_SAMPLED, 4,
				     CPU_WARM_CACHES);
	*a = &w->s.cpu[0];
	*b = &w->s.cpu[1];
	cpu_lock_init(l);
	return w;
}

/*
 * Where a fast call's lock waits are booked: where a sample took the
 * lock, as exact books them (the spinning function's self cycles, the
 * totals of the functions on the stack), not the top-level function's
 * own.  CPU 0 calls outer_fn, which calls leaf_fn, which takes a lock
 * CPU 1 holds for a while every 5th call from the 40th.  With new_paths,
 * each such call first calls helper_fn once more than the one before,
 * so its path is new (lost when fast), and every other such fast call
 * takes a second lock, which no sample takes.  Checks that every wait is
 * in leaf_fn's self cycles and both totals, none in outer_fn's self;
 * returns the waits of the fast calls (with new_paths, of the lost ones)
 * and, in *lost and *second, the lost calls and the fast calls that took
 * the second lock.
 */
static uint64_t lock_wait_run(int model, bool new_paths, struct cpu_memo_stats *ms,
			      unsigned *second)
{
	struct cpu *a, *b;
	struct cpu_lock l, l2;
	struct world *w = lock_world(model, &a, &b, &l);
	cpu_lock_init(&l2);
	uint64_t fast_wait = 0;
	*second = 0;
	for (int i = 0; i < 400; i++) {
		bool hold = i >= 40 && i % 5 == 0;
		struct cpu_memo_stats m0, m1;
		cpu_memo_stats(&w->s, &m0);
		uint64_t w0 = cpu_counter(a, CPU_CTR_lock_wait_cycles);
		cpu_call(a, FIX_FN_outer_fn);
		bool fast = cpu_in_fast_call(a);
		struct cpu_lock *lk = new_paths && hold && fast && i % 10 == 0 ? &l2 : &l;
		*second += lk == &l2;
		cpu_work(a, 5);
		if (hold) {
			cpu_advance_to(b, a->now > b->now ? a->now : b->now);
			assert_int_equal(cpu_lock(b, lk), NS_OK);
			cpu_work(b, 50000);
			assert_int_equal(cpu_unlock(b, lk), NS_OK);
		}
		cpu_call(a, FIX_FN_leaf_fn);
		for (int k = 0; new_paths && hold && k < i / 5; k++) {
			cpu_call(a, FIX_FN_helper_fn);
			cpu_ret(a);
		}
		assert_int_equal(cpu_lock(a, lk), NS_OK);
		cpu_work(a, 7);
		assert_int_equal(cpu_unlock(a, lk), NS_OK);
		cpu_ret(a);
		cpu_ret(a);
		cpu_memo_stats(&w->s, &m1);
		if (new_paths ? m1.lost > m0.lost : fast)
			fast_wait += cpu_counter(a, CPU_CTR_lock_wait_cycles) - w0;
		*ms = m1;
	}
	/* the report line says where the fast calls' lock costs went */
	char line[CPU_MEMO_STATS_LINE];
	cpu_memo_stats_format(ms, line, sizeof line);
	assert_non_null(strstr(line, "; their lock waits and transfers, "));
	assert_non_null(strstr(line, " % as the top-level function's own"));
	assert_int_equal(cpu_check(a), NS_OK);   /* clock = self + outside */
	uint64_t waits = cpu_counter(a, CPU_CTR_lock_wait_cycles);
	const struct cpu_prof *outer = &a->prof[FIX_FN_outer_fn];
	const struct cpu_prof *leaf = &a->prof[FIX_FN_leaf_fn];
	assert_true(leaf->self >= waits);
	assert_true(outer->self < 400 * 100);
	assert_true(leaf->total >= waits && outer->total >= leaf->total);
	memo_world_free(w);
	return fast_wait;
}

/* One path: no fast call is lost; its waits go where its path's sample
 * took the lock.  Until 2026-12-05 they went to outer_fn. */
static void test_sampled_lock_wait_where(void **state)
{
	(void)state;
	for (int model = 0; model < 2; model++) {
		struct cpu_memo_stats ms;
		unsigned second;
		uint64_t fast_wait = lock_wait_run(model, false, &ms, &second);
		assert_int_equal(ms.lost, 0);
		assert_true(fast_wait > 40 * 40000);    /* most of the waits are fast calls' */
		assert_true(ms.lock_path >= fast_wait);  /* waits and transfers */
		assert_int_equal(ms.lock_site, 0);
		assert_int_equal(ms.lock_own, 0);
	}
}

/* Lost paths (struct sampled_lock_site): their waits go where the
 * samples of outer_fn took that lock (leaf_fn), or, for the second lock,
 * where they last took any (leaf_fn too).  Until 2026-12-05 a lost
 * path's waits were outer_fn's own. */
static void test_sampled_lock_wait_lost(void **state)
{
	(void)state;
	for (int model = 0; model < 2; model++) {
		struct cpu_memo_stats ms;
		unsigned second;
		uint64_t lost_wait = lock_wait_run(model, true, &ms, &second);
		assert_true(lost_wait > 20 * 40000);    /* lost fast calls waited */
		assert_true(second > 5);
		assert_true(ms.lock_site >= lost_wait);
		assert_int_equal(ms.lock_own, 0);
	}
}

/*
 * A CPU whose samples have taken no lock yet books a lost path's wait
 * where another CPU's samples of the same function took a lock of its
 * class (lock_site_remote()).  CPU 1's calls of outer_fn take lock l in
 * leaf_fn, then lock l3 of another class in helper_fn; then CPU 0, none
 * of whose calls took a lock yet, takes l2, of l's class, in leaf_fn,
 * once, in a fast call, while CPU 2 held it: that wait is leaf_fn's (not
 * outer_fn's own, not helper_fn's, where the latest record is).
 */
static void test_sampled_lock_wait_remote(void **state)
{
	(void)state;
	static const char cls_a[] = "&t->a_lock", cls_b[] = "&t->b_lock";
	for (int model = 0; model < 2; model++) {
		struct cpu *a, *b;
		struct cpu_lock l, l2, l3;
		struct world *w = lock_world(model, &a, &b, &l);
		struct cpu *c2 = &w->s.cpu[2];
		cpu_lock_init_class(&l, cls_a);
		cpu_lock_init_class(&l2, cls_a);
		cpu_lock_init_class(&l3, cls_b);
		for (int i = 0; i < 60; i++) {
			cpu_call(b, FIX_FN_outer_fn);
			cpu_call(b, FIX_FN_leaf_fn);
			assert_int_equal(cpu_lock(b, &l), NS_OK);
			cpu_work(b, 7);
			assert_int_equal(cpu_unlock(b, &l), NS_OK);
			cpu_ret(b);
			cpu_call(b, FIX_FN_helper_fn);
			assert_int_equal(cpu_lock(b, &l3), NS_OK);
			cpu_work(b, 7);
			assert_int_equal(cpu_unlock(b, &l3), NS_OK);
			cpu_ret(b);
			cpu_ret(b);
		}
		uint64_t wait = 0;
		bool done = false;
		for (int i = 0; i < 40; i++) {
			cpu_call(a, FIX_FN_outer_fn);
			bool take = i >= 10 && !done && cpu_in_fast_call(a);
			if (take) {
				cpu_advance_to(c2, a->now > c2->now ? a->now : c2->now);
				assert_int_equal(cpu_lock(c2, &l2), NS_OK);
				cpu_work(c2, 50000);
				assert_int_equal(cpu_unlock(c2, &l2), NS_OK);
			}
			cpu_call(a, FIX_FN_leaf_fn);
			uint64_t w0 = cpu_counter(a, CPU_CTR_lock_wait_cycles);
			if (take) {
				assert_int_equal(cpu_lock(a, &l2), NS_OK);
				assert_int_equal(cpu_unlock(a, &l2), NS_OK);
				wait = cpu_counter(a, CPU_CTR_lock_wait_cycles) - w0;
				done = true;
			}
			cpu_work(a, 7);
			cpu_ret(a);
			cpu_ret(a);
		}
		assert_true(done);
		assert_true(wait > 40000);
		struct cpu_memo_stats ms;
		cpu_memo_stats(&w->s, &ms);
		assert_true(ms.lost > 0);
		assert_true(ms.lock_remote >= wait);
		assert_int_equal(ms.lock_own, 0);
		assert_int_equal(cpu_check(a), NS_OK);
		assert_true(a->prof[FIX_FN_leaf_fn].self >= wait);
		assert_true(a->prof[FIX_FN_outer_fn].self < wait);
		assert_true(a->prof[FIX_FN_helper_fn].self < wait);
		assert_true(a->prof[FIX_FN_outer_fn].total >= wait);
		memo_world_free(w);
	}
}

/*
 * A fast call that waits at two locks books each wait where samples took
 * that lock (fast_lock_note()): outer_fn's calls take l in leaf_fn, then
 * l2 in helper_fn; from the 20th, every 5th call finds l held by CPU 1
 * and then l2 held by CPU 2.  Every wait at l must be in leaf_fn's self
 * cycles and every wait at l2 in helper_fn's, fast calls' included
 * (whose path's sample took l first).
 */
static void test_sampled_lock_wait_each(void **state)
{
	(void)state;
	for (int model = 0; model < 2; model++) {
		struct cpu *a, *b;
		struct cpu_lock l, l2;
		struct world *w = lock_world(model, &a, &b, &l);
		struct cpu *c2 = &w->s.cpu[2];
		cpu_lock_init(&l2);
		uint64_t wait[2] = {0, 0};
		unsigned fast_both = 0;
		for (int i = 0; i < 200; i++) {
			bool hold = i >= 20 && i % 5 == 0;
			cpu_call(a, FIX_FN_outer_fn);
			bool fast = cpu_in_fast_call(a);
			if (hold) {
				uint64_t t = a->now > b->now ? a->now : b->now;
				cpu_advance_to(b, t);
				cpu_advance_to(c2, t > c2->now ? t : c2->now);
				assert_int_equal(cpu_lock(b, &l), NS_OK);
				cpu_work(b, 50000);
				assert_int_equal(cpu_unlock(b, &l), NS_OK);
				assert_int_equal(cpu_lock(c2, &l2), NS_OK);
				cpu_work(c2, 150000);
				assert_int_equal(cpu_unlock(c2, &l2), NS_OK);
			}
			struct cpu_lock *lk[2] = {&l, &l2};
			const int fn[2] = {FIX_FN_leaf_fn, FIX_FN_helper_fn};
			uint64_t got[2];
			for (int k = 0; k < 2; k++) {
				cpu_call(a, fn[k]);
				uint64_t w0 = cpu_counter(a, CPU_CTR_lock_wait_cycles);
				assert_int_equal(cpu_lock(a, lk[k]), NS_OK);
				got[k] = cpu_counter(a, CPU_CTR_lock_wait_cycles) - w0;
				wait[k] += got[k];
				cpu_work(a, 7);
				assert_int_equal(cpu_unlock(a, lk[k]), NS_OK);
				cpu_ret(a);
			}
			fast_both += fast && got[0] > 0 && got[1] > 0;
			cpu_ret(a);
		}
		assert_true(fast_both > 10);
		assert_true(wait[0] > 10 * 40000 && wait[1] > 10 * 40000);
		assert_int_equal(cpu_check(a), NS_OK);
		assert_true(a->prof[FIX_FN_leaf_fn].self >= wait[0]);
		assert_true(a->prof[FIX_FN_helper_fn].self >= wait[1]);
		assert_true(a->prof[FIX_FN_outer_fn].self < 200 * 100);
		memo_world_free(w);
	}
}

/*
 * Under ooo, spin_lock's locked cmpxchg drains a miss still in flight; a
 * fast call's clock at the lock counts that drain as a sample's does
 * (cost/cpu_sampled_lock.c, "Lock edges"), not in the block after the lock.  Each call of
 * outer_fn loads a new line (a miss) and then takes l, which CPU 1 holds
 * to the same time after the call's start: a fast call must wait as
 * long as a sample, within a few cycles, not a miss longer.
 */
static void test_sampled_lock_edge_fence(void **state)
{
	(void)state;
	struct cpu *a, *b;
	struct cpu_lock l;
	struct world *w = lock_world(CPU_MODEL_OOO, &a, &b, &l);
	const uint64_t base = (uint64_t)1 << 40;
	uint64_t waited[2] = {0, 0};
	unsigned n[2] = {0, 0};
	for (int i = 0; i < 300; i++) {
		uint64_t start = a->now;
		cpu_call(a, FIX_FN_outer_fn);
		int fast = cpu_in_fast_call(a);
		cpu_mem(a, base + ((uint64_t)1 << 20) + (uint64_t)i * 64, 8, 0, CPU_LOAD_DEP);
		assert_true(b->now <= start);
		cpu_advance_to(b, start);
		assert_int_equal(cpu_lock(b, &l), NS_OK);
		cpu_work(b, 3000);
		assert_int_equal(cpu_unlock(b, &l), NS_OK);
		uint64_t w0 = cpu_counter(a, CPU_CTR_lock_wait_cycles);
		assert_int_equal(cpu_lock(a, &l), NS_OK);
		uint64_t d = cpu_counter(a, CPU_CTR_lock_wait_cycles) - w0;
		cpu_work(a, 7);
		assert_int_equal(cpu_unlock(a, &l), NS_OK);
		cpu_ret(a);
		if (i >= 20) {
			waited[fast] += d;
			n[fast]++;
		}
	}
	assert_true(n[0] > 10 && n[1] > 100);
	uint64_t ms = waited[0] / n[0], mf = waited[1] / n[1];
	assert_true(ms > 1000);                  /* both waited */
	assert_true(mf + 20 > ms && ms + 20 > mf);
	memo_world_free(w);
}

static void test_sampled_lock_waits(void **state)
{
	(void)state;
	for (int model = 0; model < 2; model++) {
		struct cpu *a, *b;
		struct cpu_lock l;
		struct world *w = lock_world(model, &a, &b, &l);
		unsigned fast_waits = 0, sample_waits = 0, after_sample = 0;
		bool sample_waited = false;
		for (int i = 0; i < 400; i++) {
			uint64_t t0, wait, waited;
			bool fast;
			bool hold = i >= 40 && i % 5 == 0;
			uint64_t c0 = cpu_counter(a, CPU_CTR_lock_contended);
			sampled_lock_call(a, b, &l, hold, (unsigned)i % 13, &t0, &wait, &waited,
					  &fast);
			uint64_t took = a->now - t0;
			if (hold) {
				/* a sample waits from its lock, a fast call
				 * from its start plus the mean cycles samples
				 * ran from their last branch to the lock
				 * (cost/cpu_sampled_lock.c, "Lock edges"): both a few cycles after the
				 * start; both count the wait */
				assert_true(waited <= wait && waited + 50 > wait);
				if (fast && sample_waits)
					assert_true(waited < wait);
				assert_int_equal(cpu_counter(a, CPU_CTR_lock_contended), c0 + 1);
				assert_true(took > wait);
				fast_waits += fast;
				sample_waits += !fast;
				sample_waited = !fast;
				continue;
			}
			/* its own release, or nobody's since: no wait */
			assert_int_equal(waited, 0);
			if (fast && sample_waited) {
				/* the sample before recorded its path without its wait */
				assert_true(took < 1000);
				after_sample++;
			}
			sample_waited = sample_waited && !fast;
		}
		assert_true(fast_waits > 10);
		assert_true(sample_waits > 0);
		assert_true(after_sample > 0);
		/* every call's lock counted, fast or not, lost or not */
		struct cpu_memo_stats ms;
		cpu_memo_stats(&w->s, &ms);
		assert_true(ms.lost > 0);
		assert_int_equal(cpu_counter(a, CPU_CTR_lock_acquire), 400);
		/* and the transfer of every lock CPU 1 held last */
		assert_int_equal(cpu_counter(a, CPU_CTR_lock_transfer), fast_waits + sample_waits);
		assert_int_equal(cpu_check(a), NS_OK);
		memo_world_free(w);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sampled_lock_waits),
		cmocka_unit_test(test_sampled_lock_wait_where),
		cmocka_unit_test(test_sampled_lock_wait_lost),
		cmocka_unit_test(test_sampled_lock_wait_remote),
		cmocka_unit_test(test_sampled_lock_wait_each),
		cmocka_unit_test(test_sampled_lock_edge_fence),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
