/*
 * cpu_fixture — the world of the tests of the simulated CPU (tests/test_cpu.c,
 * test_cpu_memo.c, test_cpu_sampled.c, test_cpu_sampled_lock.c): the
 * fixture machine of tests/cost_fixture.h with its tables, a layout and 4
 * simulated CPUs (struct world); worlds of a timing model and an
 * accounting (window_world, acct_world, memo_world), the out-of-order
 * core figures (fix_ooo_figs), and the calls the accounting tests replay
 * (leaf, memo_call) with the per-site counts they compare (memo_site_cb).
 * Failures are cmocka assertions.  Header-only: static inline functions.
 */
#ifndef NUMASIM_TESTS_CPU_FIXTURE_H
#define NUMASIM_TESTS_CPU_FIXTURE_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "tests/cost_fixture.h"
#include "cost/cpu.h"
#include "base/diag.h"

struct world {
	struct machine m;
	struct cost_tables t;
	struct cost_layout l;
	struct cpu_sys s;
};

/* leaf_fn: two branches, T1 falls through (predicted), T2 taken + mispredicted */
static inline void leaf(struct cpu *c)
{
	cpu_call(c, FIX_FN_leaf_fn);
	cpu_branch(c, FIX_SITE_T1, true);
	cpu_branch(c, FIX_SITE_T2, false);
	cpu_ret(c);
}

/* The core figures of the ooo tests: a small window (ROB 32, load queue
 * 8) and 2 fill buffers, so hand-worked blocks reach their limits. */
static inline void fix_ooo_figs(struct machine_costs *c)
{
	fix_fig(&c->dispatch_width, 4);
	fix_fig(&c->rob_size, 32);
	fix_fig(&c->load_queue, 8);
	fix_fig(&c->load_ports, 2);
	fix_fig(&c->fill_buffers, 2);
	fix_fig(&c->call_uops, 4);
	fix_fig(&c->ret_uops, 3);
}

/* A world of model and accounting, with the ooo figures (fix_ooo_figs;
 * test_cpu.c's setup_ooo adds the clocks). */
static inline struct world *window_world(enum cpu_model model, enum cpu_accounting acc,
					 uint32_t period, enum cpu_warm warm, uint32_t window)
{
	struct cpu_params p;
	cpu_params_default(&p);
	p.model = model;
	p.accounting = acc;
	p.sample_period = period;
	p.sample_warm = warm;
	p.sample_window = window;
	p.bpred.mode = BPRED_BIMODAL;
	struct world *w = calloc(1, sizeof *w);
	assert_non_null(w);
	fix_machine(&w->m);
	struct machine_costs *c = &w->m.costs;
	fix_ooo_figs(c);
	assert_int_equal(fix_tables(&w->t), NS_OK);
	assert_int_equal(cost_layout_init(&w->l, &w->t, "test"), NS_OK);
	int cpus[] = {0, 1, 2, 3};
	assert_int_equal(cpu_sys_init(&w->s, &w->m, &w->t, &w->l, &p, cpus, 4), NS_OK);
	return w;
}

static inline struct world *acct_world(enum cpu_model model, enum cpu_accounting acc,
				      uint32_t period, enum cpu_warm warm)
{
	return window_world(model, acc, period, warm, 0);
}

static inline struct world *memo_world(enum cpu_model model, enum cpu_accounting acc)
{
	return acct_world(model, acc, 100, CPU_WARM_CACHES);
}

static inline void memo_world_free(struct world *w)
{
	assert_int_equal(cpu_sys_check(&w->s), NS_OK);
	cpu_sys_free(&w->s);
	cost_layout_free(&w->l);
	cost_tables_free(&w->t);
	fix_machine_free(&w->m);
	free(w);
}

/*
 * Top-level call i: outer_fn calls leaf_fn (and every other time
 * helper_fn, inlined or not as the layout says), with work, L1 loads
 * and stores, a locked op and irq save/restore; T1's outcome is
 * constant unless pattern, then it follows i % 3.  Every 97th call
 * touches a new line (a miss: the call is broken off and runs
 * exactly), every 131st takes a lock.
 */
static inline void memo_call(struct cpu *c, struct cpu_lock *l, unsigned i, bool pattern)
{
	const uint64_t base = (uint64_t)1 << 40; /* node 0's window */
	cpu_call(c, FIX_FN_outer_fn);
	cpu_insns(c, 9);
	cpu_mem(c, base + (i % 4) * 64, 8, 0, CPU_LOAD_DEP);
	cpu_call(c, FIX_FN_leaf_fn);
	cpu_branch(c, FIX_SITE_T1, pattern ? i % 3 == 0 : true);
	cpu_mem(c, base + 512, 8, 0, CPU_STORE);
	cpu_mem(c, base + 1000, 100, 0, CPU_LOAD);   /* two lines */
	if (cpu_branch(c, FIX_SITE_T2, pattern ? i % 2 == 0 : true)) {
		cpu_call(c, FIX_FN_helper_fn);
		cpu_work(c, 3);
		cpu_ret(c);
	}
	cpu_ret(c);
	if (i % 97 == 0)
		cpu_mem(c, base + 4096 + (uint64_t)i * 64, 8, 0, CPU_LOAD_DEP);
	if (i % 131 == 0) {
		assert_int_equal(cpu_lock(c, l), NS_OK);
		assert_int_equal(cpu_unlock(c, l), NS_OK);
	}
	cpu_atomic(c, base + 2048, 0);
	cpu_irq_save(c);
	cpu_this_cpu_cmpxchg(c);
	cpu_irq_restore(c);
	cpu_ret(c);
}

struct memo_sites {
	uint64_t e[FIX_NR_SITE], t[FIX_NR_SITE], m[FIX_NR_SITE];
};

static inline int memo_site_cb(void *arg, const struct cpu_branch_row *r)
{
	struct memo_sites *ms = arg;
	for (int i = 0; i < FIX_NR_SITE; i++)
		if (!strcmp(r->site, fix_site_defs[i].name)) {
			ms->e[i] = r->executed;
			ms->t[i] = r->taken;
			ms->m[i] = r->mispredicted;
		}
	return 0;
}

#endif
