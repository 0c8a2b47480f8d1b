/*
 * Tests for cost/cpu_memo.c (cost.accounting memo): memoized paths replay
 * to the cycle what exact accounting charges, on the fixture machine of
 * tests/cost_fixture.h (worlds of tests/cpu_fixture.h).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <string.h>

#include "tests/cpu_fixture.h"

/* --- memoized paths (cost.accounting memo) ----------------------------- */

/* Run n calls on CPU 0 of an exact and a memo world; the counts are
 * equal, the memo world replayed most calls; returns the two clocks. */
static void memo_compare(enum cpu_model model, bool pattern, unsigned n, uint64_t clk[2],
			 uint64_t mispredicts[2])
{
	struct world *w[2] = {memo_world(model, CPU_ACCOUNTING_EXACT),
			      memo_world(model, CPU_ACCOUNTING_MEMO)};
	struct memo_sites st[2];
	memset(st, 0, sizeof st);
	for (int k = 0; k < 2; k++) {
		struct cpu *c = &w[k]->s.cpu[0];
		struct cpu_lock l;
		cpu_lock_init(&l);
		for (unsigned i = 0; i < n; i++)
			memo_call(c, &l, i, pattern);
		clk[k] = c->now;
		mispredicts[k] = cpu_counter(c, CPU_CTR_branch_mispredict);
		assert_int_equal(cpu_sys_branches(&w[k]->s, -1, memo_site_cb, &st[k]), NS_OK);
		assert_int_equal(cpu_check(c), NS_OK);
	}
	struct cpu *a = &w[0]->s.cpu[0], *b = &w[1]->s.cpu[0];
	static const enum cpu_counter same[] = {
		CPU_CTR_calls, CPU_CTR_inlined_calls, CPU_CTR_branches, CPU_CTR_branches_taken,
		CPU_CTR_mem_accesses, CPU_CTR_l1d_hit, CPU_CTR_l1d_miss, CPU_CTR_mem_load_dep,
		CPU_CTR_mem_load, CPU_CTR_mem_store, CPU_CTR_atomic, CPU_CTR_irq_save,
		CPU_CTR_this_cpu_cmpxchg, CPU_CTR_lock_acquire, CPU_CTR_work_cycles,
	};
	for (size_t i = 0; i < sizeof same / sizeof same[0]; i++)
		assert_int_equal(cpu_counter(a, same[i]), cpu_counter(b, same[i]));
	for (int i = 0; i < FIX_NR_SITE; i++) {
		assert_int_equal(st[0].e[i], st[1].e[i]);
		assert_int_equal(st[0].t[i], st[1].t[i]);
	}
	assert_int_equal(a->prof[FIX_FN_outer_fn].calls, b->prof[FIX_FN_outer_fn].calls);
	assert_int_equal(a->prof[FIX_FN_helper_fn].calls, b->prof[FIX_FN_helper_fn].calls);
	struct cpu_memo_stats ms;
	cpu_memo_stats(&w[1]->s, &ms);
	assert_int_equal(ms.calls, n);
	assert_int_equal(ms.replayed + ms.exact + ms.broken + ms.skipped, n);
	assert_true(ms.replayed > n / 2);
	assert_true(ms.broken >= n / 131);      /* the misses and locks ran exactly */
	assert_true(ms.verified > 0);
	assert_int_equal(ms.mismatch, 0);
	cpu_memo_stats(&w[0]->s, &ms);
	assert_int_equal(ms.replayed + ms.exact, 0);
	memo_world_free(w[0]);
	memo_world_free(w[1]);
}

/* Constant outcomes: the predictor is saturated, replays are exact to
 * the cycle, in both timing models. */
static void test_memo_exact_when_predictable(void **state)
{
	(void)state;
	uint64_t clk[2], mp[2];
	memo_compare(CPU_MODEL_INORDER, false, 3000, clk, mp);
	assert_int_equal(clk[0], clk[1]);
	assert_int_equal(mp[0], mp[1]);
	memo_compare(CPU_MODEL_OOO, false, 3000, clk, mp);
	assert_int_equal(clk[0], clk[1]);
	assert_int_equal(mp[0], mp[1]);
}

/* A pattern the 2-bit counter follows, so the paths' mispredicts vary:
 * the predictor runs on every logged branch and a path is replayed only
 * with the same predictions, so the result is still exact. */
static void test_memo_exact_with_patterns(void **state)
{
	(void)state;
	uint64_t clk[2], mp[2];
	memo_compare(CPU_MODEL_INORDER, true, 3000, clk, mp);
	assert_int_equal(clk[0], clk[1]);
	assert_int_equal(mp[0], mp[1]);
	assert_true(mp[0] > 1000);
	memo_compare(CPU_MODEL_OOO, true, 3000, clk, mp);
	assert_int_equal(clk[0], clk[1]);
	assert_int_equal(mp[0], mp[1]);
}

/* A reading of the clock inside a logged call accounts it exactly first. */
static void test_memo_clock_read(void **state)
{
	(void)state;
	struct world *w = memo_world(CPU_MODEL_INORDER, CPU_ACCOUNTING_MEMO);
	struct cpu *c = &w->s.cpu[0];
	cpu_call(c, FIX_FN_outer_fn);
	cpu_work(c, 10);
	assert_true(c->mlog_on);
	uint64_t t = cpu_now(c);
	assert_false(c->mlog_on);
	assert_int_equal(t, 2 + 10);           /* call half + work */
	cpu_ret(c);
	assert_int_equal(c->now, 2 + 10 + 2);
	struct cpu_memo_stats ms;
	cpu_memo_stats(&w->s, &ms);
	assert_int_equal(ms.broken, 1);
	memo_world_free(w);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_memo_exact_when_predictable),
		cmocka_unit_test(test_memo_exact_with_patterns),
		cmocka_unit_test(test_memo_clock_read),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
