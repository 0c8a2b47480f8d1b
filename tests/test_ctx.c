/* Tests for sim/ctx: the run loop, time monotonicity, lazy random streams. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "sim/ctx.h"
#include "base/diag.h"

static void test_run_loop_advances_time(void **state)
{
	(void)state;
	struct sim_ctx *ctx;
	assert_int_equal(sim_ctx_create(7, 4, &ctx), NS_OK);
	assert_int_equal(ctx->now, 0);
	assert_int_equal(ctx->run_seed, 7);
	assert_int_equal(sim_ctx_schedule(ctx, 30, 1, 0), NS_OK);
	assert_int_equal(sim_ctx_schedule(ctx, 10, 2, 0), NS_OK);
	assert_int_equal(sim_ctx_schedule_at(ctx, 10, 3, 0), NS_OK);
	struct event e;
	assert_int_equal(sim_ctx_next(ctx, &e), NS_OK);
	assert_int_equal(e.type, 2);
	assert_int_equal(ctx->now, 10);
	/* Scheduling relative to the new now; the past is refused. */
	assert_int_equal(sim_ctx_schedule(ctx, 5, 4, 0), NS_OK);
	assert_int_equal(sim_ctx_schedule_at(ctx, 9, 5, 0), NS_ERANGE);
	assert_int_equal(sim_ctx_schedule(ctx, 0, 6, 0), NS_OK);
	uint32_t want[] = {3, 6, 4, 1};
	uint64_t when[] = {10, 10, 15, 30};
	for (int i = 0; i < 4; i++) {
		assert_int_equal(sim_ctx_next(ctx, &e), NS_OK);
		assert_int_equal(e.type, want[i]);
		assert_int_equal(ctx->now, when[i]);
		assert_int_equal(sim_ctx_check(ctx), NS_OK);
	}
	assert_int_equal(sim_ctx_next(ctx, &e), NS_ENOENT);
	assert_int_equal(ctx->events, 5);
	assert_int_equal(ctx->now, 30);
	sim_ctx_destroy(ctx);
}

static void test_time_overflow_refused(void **state)
{
	(void)state;
	struct sim_ctx *ctx;
	assert_int_equal(sim_ctx_create(1, 0, &ctx), NS_OK);
	assert_int_equal(sim_ctx_schedule_at(ctx, UINT64_MAX - 1, 0, 0), NS_OK);
	struct event e;
	assert_int_equal(sim_ctx_next(ctx, &e), NS_OK);
	assert_int_equal(sim_ctx_schedule(ctx, 1, 0, 0), NS_OK);
	assert_int_equal(sim_ctx_schedule(ctx, 2, 0, 0), NS_ERANGE);
	assert_int_equal(eventq_size(ctx->q), 1);
	sim_ctx_destroy(ctx);
}

static void test_streams(void **state)
{
	(void)state;
	struct sim_ctx *a, *b;
	struct rng *r1, *r1again, *r40, *rb;
	assert_int_equal(sim_ctx_create(99, 0, &a), NS_OK);
	assert_int_equal(sim_ctx_create(99, 0, &b), NS_OK);
	assert_int_equal(sim_ctx_rng(a, 1, &r1), NS_OK);
	/* Growing the table keeps earlier stream pointers valid. */
	assert_int_equal(sim_ctx_rng(a, 40, &r40), NS_OK);
	assert_int_equal(sim_ctx_rng(a, 1, &r1again), NS_OK);
	assert_ptr_equal(r1, r1again);
	assert_int_equal(r40->stream, 40);
	assert_int_equal(sim_ctx_rng(a, SIM_CTX_MAX_STREAMS, &rb), NS_ERANGE);
	assert_null(rb);
	/* Same run seed and stream in another context: the same numbers. */
	assert_int_equal(sim_ctx_rng(b, 1, &rb), NS_OK);
	for (int i = 0; i < 100; i++)
		assert_int_equal(rng_uniform_int(r1, 1u << 30), rng_uniform_int(rb, 1u << 30));
	assert_int_equal(sim_ctx_check(a), NS_OK);
	assert_int_equal(sim_ctx_check(b), NS_OK);
	/* The checker notices a stream filed under the wrong id. */
	r40->stream = 41;
	assert_int_equal(sim_ctx_check(a), NS_EINTERNAL);
	r40->stream = 40;
	assert_int_equal(sim_ctx_check(NULL), NS_EINTERNAL);
	sim_ctx_destroy(a);
	sim_ctx_destroy(b);
	sim_ctx_destroy(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_run_loop_advances_time),
		cmocka_unit_test(test_time_overflow_refused),
		cmocka_unit_test(test_streams),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
