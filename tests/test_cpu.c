/*
 * Tests for cost/cpu.c and its timing models (set-up, the primitives,
 * profile and export, locks, in-order and cost.model ooo, blocks):
 * hand-worked cycle totals on the fixture machine (tests/cost_fixture.h:
 * call 2 + ret 2, branch 1, taken 2, mispredict 14, RSB 16, L1 4, L2 14,
 * LLC 40, DRAM 160/280, transfer 90/220 cycles).  The accounting modes
 * have programs of their own: tests/test_cpu_memo.c, test_cpu_sampled.c,
 * test_cpu_sampled_lock.c (their worlds in tests/cpu_fixture.h).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <string.h>

#include "tests/cpu_fixture.h"

static int setup_with(void **state, const struct cpu_params *p)
{
	struct world *w = calloc(1, sizeof *w);
	fix_machine(&w->m);
	if (fix_tables(&w->t) || cost_layout_init(&w->l, &w->t, "test"))
		return -1;
	int cpus[] = {0, 1, 2, 3};
	if (cpu_sys_init(&w->s, &w->m, &w->t, &w->l, p, cpus, 4))
		return -1;
	*state = w;
	return 0;
}

static int setup(void **state)
{
	struct cpu_params p;
	cpu_params_default(&p);
	return setup_with(state, &p);
}

/* Per-site 2-bit counters (the predictor that tests of exact per-site
 * costs assume; the default gshare has a warm-up per history). */
static int setup_bimodal(void **state)
{
	struct cpu_params p;
	cpu_params_default(&p);
	p.bpred.mode = BPRED_BIMODAL;
	return setup_with(state, &p);
}

static int teardown(void **state)
{
	struct world *w = *state;
	assert_int_equal(cpu_sys_check(&w->s), NS_OK);
	cpu_sys_free(&w->s);
	cost_layout_free(&w->l);
	cost_tables_free(&w->t);
	fix_machine_free(&w->m);
	free(w);
	return 0;
}

static void test_costs_converted(void **state)
{
	struct world *w = *state;
	const struct cpu_costs *k = &w->s.k;
	assert_int_equal(k->call, 2);
	assert_int_equal(k->ret, 2);
	assert_int_equal(k->lock + k->unlock, 28);
	assert_int_equal(k->irq_save + k->irq_restore, 36);
	assert_int_equal(w->s.mem_lat[0 * 2 + 0], 160);
	assert_int_equal(w->s.mem_lat[0 * 2 + 1], 280);
	assert_int_equal(w->s.xfer_lat[1 * 2 + 1], 90);
	assert_int_equal(w->s.xfer_lat[1 * 2 + 0], 220);
	/* interpolation and proportional extrapolation (machine-format.md) */
	assert_true(fabs(machine_latency_ns(fix_mem_lat, 2, 16) - (80 + 60.0 * 6 / 11)) < 1e-9);
	assert_true(fabs(machine_latency_ns(fix_mem_lat, 2, 32) - 140.0 * 32 / 21) < 1e-9);
	assert_true(fabs(machine_latency_ns(fix_mem_lat, 2, 10) - 80) < 1e-9);
	assert_int_equal(cpu_ns_to_cycles(k, 10.3), 21);
	assert_ptr_equal(cpu_sys_cpu(&w->s, 2), &w->s.cpu[2]);
	assert_null(cpu_sys_cpu(&w->s, 9));
	assert_int_equal(w->s.cpu[3].node, 1);
}


static void test_call_two_branches_out_of_line(void **state)
{
	struct world *w = *state;
	struct cpu *c = &w->s.cpu[0];
	leaf(c);
	/* call 2 + T1 1 + T2 (1 + taken 2 + mispredict 14) + ret 2 */
	assert_int_equal(c->now, 22);
	assert_int_equal(c->prof[FIX_FN_leaf_fn].calls, 1);
	assert_int_equal(c->prof[FIX_FN_leaf_fn].self, 22);
	assert_int_equal(c->prof[FIX_FN_leaf_fn].total, 22);
	assert_int_equal(c->site[FIX_SITE_T2].executed, 1);
	assert_int_equal(c->site[FIX_SITE_T2].taken, 1);
	assert_int_equal(c->site[FIX_SITE_T2].mispredicted, 1);
	assert_int_equal(c->site[FIX_SITE_T1].taken, 0);
	assert_int_equal(c->site[FIX_SITE_T1].mispredicted, 0);
	/* second time T2 is still taken (layout) but now predicted: 1 + 2 */
	leaf(c);
	assert_int_equal(c->now, 22 + 2 + 1 + 3 + 2);
	assert_int_equal(cpu_check(c), NS_OK);
}

static void test_call_two_branches_inlined(void **state)
{
	struct world *w = *state;
	assert_int_equal(cost_layout_set_fn(&w->l, FIX_FN_leaf_fn, true), NS_OK);
	assert_int_equal(cpu_sys_set_layout(&w->s, &w->l), NS_OK);
	struct cpu *c = &w->s.cpu[0];
	leaf(c);
	assert_int_equal(c->now, 18); /* no call/ret */
	assert_int_equal(c->prof[FIX_FN_leaf_fn].calls, 1);
	assert_int_equal(c->prof[FIX_FN_leaf_fn].self, 0);
	assert_int_equal(c->prof[FIX_FN_leaf_fn].total, 18);
	/* inside an out-of-line caller the inlined cycles are the caller's */
	cpu_call(c, FIX_FN_outer_fn);
	leaf(c);
	cpu_ret(c);
	assert_int_equal(c->now, 18 + 2 + (1 + 3) + 2);
	assert_int_equal(cpu_counter(c, CPU_CTR_inlined_calls), 2);
	assert_int_equal(cpu_counter(c, CPU_CTR_calls), 1);
	assert_int_equal(c->prof[FIX_FN_outer_fn].self, 8);
	assert_int_equal(c->outside, 18);
	assert_int_equal(cpu_check(c), NS_OK);
}

static void test_hint_layout(void **state)
{
	struct world *w = *state;
	/* unlikely(err): err == false falls through and is predicted cold */
	assert_int_equal(cost_layout_set_site(&w->l, FIX_SITE_T3, COST_HINT_UNLIKELY,
					      COST_FT_HINTED), NS_OK);
	/* likely(more) but laid out with more == false falling through */
	assert_int_equal(cost_layout_set_site(&w->l, FIX_SITE_T4, COST_HINT_LIKELY, 0), NS_OK);
	assert_int_equal(cpu_sys_set_layout(&w->s, &w->l), NS_OK);
	struct cpu *c = &w->s.cpu[1];
	assert_false(cpu_branch(c, FIX_SITE_T3, false));
	assert_int_equal(c->now, 1);
	assert_true(cpu_branch(c, FIX_SITE_T4, true)); /* taken, predicted */
	assert_int_equal(c->now, 1 + 3);
	cpu_branch(c, FIX_SITE_T3, true);              /* taken, mispredicted */
	assert_int_equal(c->now, 4 + 17);
}

static int count_row(void *arg, const struct cpu_counter_row *r)
{
	char *out = arg;
	snprintf(out + strlen(out), 256 - strlen(out), "%s %d %s %llu;", r->scope, r->scope_id,
		 r->name, (unsigned long long)r->value);
	return NS_OK;
}

/* A removed site (cost_layout_fix_site): no charge, the fixed value
 * returned, the model's disagreements counted and reported; the other
 * sites charged as before. */
static void test_fixed_site(void **state)
{
	struct world *w = *state;
	char rows[256] = "";
	assert_int_equal(cpu_sys_fixed_sites(&w->s, count_row, rows), NS_OK);
	assert_string_equal(rows, "");                 /* no fixed site: no row */
	assert_int_equal(cost_layout_fix_site(&w->l, FIX_SITE_T3, true), NS_OK);
	assert_int_equal(cost_layout_check(&w->l, &w->t), NS_OK);
	assert_int_equal(w->l.nr_fixed, 1);
	assert_int_equal(cpu_sys_set_layout(&w->s, &w->l), NS_OK);
	struct cpu *c = &w->s.cpu[1];
	assert_true(cpu_branch(c, FIX_SITE_T3, true));
	assert_true(cpu_branch(c, FIX_SITE_T3, false)); /* disagrees */
	assert_true(cpu_branch(c, FIX_SITE_T3, false)); /* disagrees */
	assert_int_equal(c->now, 0);
	assert_int_equal(c->site[FIX_SITE_T3].executed, 0);
	assert_true(cpu_branch(c, FIX_SITE_T4, true));  /* a test still: falls through */
	assert_int_equal(c->now, 1);
	assert_int_equal(c->site[FIX_SITE_T4].executed, 1);
	assert_true(cpu_branch(&w->s.cpu[2], FIX_SITE_T3, false));
	assert_int_equal(cpu_sys_fixed_sites(&w->s, count_row, rows), NS_OK);
	char want[128];
	snprintf(want, sizeof want, "system 0 removed_site_disagree.%s 3;",
		 w->t.sites[FIX_SITE_T3]->name);
	assert_string_equal(rows, want);
}

static void test_predictor_in_cpu(void **state)
{
	struct world *w = *state;
	struct cpu *c = &w->s.cpu[0];
	/* always true at a site whose fall-through is false: 1 cold mispredict */
	assert_int_equal(cost_layout_set_site(&w->l, FIX_SITE_T1, COST_HINT_NONE, 0), NS_OK);
	assert_int_equal(cpu_sys_set_layout(&w->s, &w->l), NS_OK);
	for (int i = 0; i < 1000; i++)
		cpu_branch(c, FIX_SITE_T1, true);
	assert_int_equal(c->site[FIX_SITE_T1].mispredicted, 1);
	assert_int_equal(c->site[FIX_SITE_T1].taken, 1000);
	assert_int_equal(c->now, 1000 * 3 + 14);
	/* alternating with per-site counters: all but the first mispredict */
	for (int i = 0; i < 100; i++)
		cpu_branch(c, FIX_SITE_T2, i % 2 == 0);
	assert_int_equal(c->site[FIX_SITE_T2].mispredicted, 99);
	/* predictor state is per CPU */
	cpu_branch(&w->s.cpu[1], FIX_SITE_T1, true);
	assert_int_equal(w->s.cpu[1].site[FIX_SITE_T1].mispredicted, 1);
}

static void test_gshare_in_cpu(void **state)
{
	(void)state;
	struct cpu_params p;
	cpu_params_default(&p);
	p.bpred.mode = BPRED_GSHARE;
	p.bpred.table_bits = 12;
	p.bpred.history_bits = 8;
	void *st;
	assert_int_equal(setup_with(&st, &p), 0);
	struct world *w = st;
	struct cpu *c = &w->s.cpu[0];
	for (int i = 0; i < 200; i++)
		cpu_branch(c, FIX_SITE_T2, i % 2);
	uint64_t warm = c->site[FIX_SITE_T2].mispredicted;
	assert_true(warm < 20);
	for (int i = 0; i < 1000; i++)
		cpu_branch(c, FIX_SITE_T2, i % 2);
	assert_int_equal(c->site[FIX_SITE_T2].mispredicted, warm);
	teardown(&st);
}

static void nest(struct cpu *c, int depth)
{
	cpu_call(c, FIX_FN_rec_fn);
	if (depth > 1)
		nest(c, depth - 1);
	cpu_ret(c);
}

static void test_rsb_overflow(void **state)
{
	struct world *w = *state;
	struct cpu *c = &w->s.cpu[0];
	nest(c, 16);
	assert_int_equal(c->ctr[CPU_CTR_rsb_mispredict], 0);
	assert_int_equal(c->now, 16 * 4);
	nest(c, 17);
	/* the outermost return's entry was overwritten by the 17th call */
	assert_int_equal(c->ctr[CPU_CTR_rsb_mispredict], 1);
	assert_int_equal(c->now, 16 * 4 + 17 * 4 + 14);
	nest(c, 20);
	assert_int_equal(c->ctr[CPU_CTR_rsb_mispredict], 1 + 4);
	/* recursion: one function, calls counted each time, total once */
	assert_int_equal(c->prof[FIX_FN_rec_fn].calls, 16 + 17 + 20);
	assert_int_equal(c->prof[FIX_FN_rec_fn].total, c->now);
	assert_int_equal(c->prof[FIX_FN_rec_fn].self, c->now);
	/* inlined calls use no RSB entries */
	cost_layout_set_fn(&w->l, FIX_FN_helper_fn, true);
	assert_int_equal(cpu_sys_set_layout(&w->s, &w->l), NS_OK);
	uint64_t before = c->ctr[CPU_CTR_rsb_mispredict];
	cpu_call(c, FIX_FN_helper_fn);
	nest(c, 16);
	cpu_ret(c);
	assert_int_equal(c->ctr[CPU_CTR_rsb_mispredict], before);
	assert_int_equal(cpu_check(c), NS_OK);
}

static void test_profile_nested_recursive(void **state)
{
	struct world *w = *state;
	struct cpu *c = &w->s.cpu[2];
	cpu_work(c, 7);                       /* outside */
	cpu_call(c, FIX_FN_outer_fn);         /* +2 outer */
	cpu_work(c, 5);                       /* outer */
	cpu_call(c, FIX_FN_leaf_fn);          /* +2 leaf */
	cpu_work(c, 10);
	assert_int_equal(cpu_check(c), NS_OK); /* mid-flight */
	cpu_ret(c);                           /* +2 leaf */
	cpu_work(c, 3);
	cpu_ret(c);                           /* +2 outer */
	assert_int_equal(c->prof[FIX_FN_outer_fn].self, 12);
	assert_int_equal(c->prof[FIX_FN_outer_fn].total, 26);
	assert_int_equal(c->prof[FIX_FN_leaf_fn].self, 14);
	assert_int_equal(c->prof[FIX_FN_leaf_fn].total, 14);
	assert_int_equal(c->outside, 7);
	/* mutual recursion outer -> rec -> outer -> rec: totals not doubled */
	uint64_t t0 = c->now;
	cpu_call(c, FIX_FN_outer_fn);
	cpu_work(c, 1);
	cpu_call(c, FIX_FN_rec_fn);
	cpu_work(c, 1);
	cpu_call(c, FIX_FN_outer_fn);
	cpu_work(c, 1);
	cpu_call(c, FIX_FN_rec_fn);
	cpu_work(c, 1);
	assert_int_equal(c->prof[FIX_FN_outer_fn].active, 2);
	assert_int_equal(cpu_check(c), NS_OK);
	cpu_ret(c);
	cpu_ret(c);
	cpu_ret(c);
	cpu_ret(c);
	uint64_t span = c->now - t0;           /* 4 x (2 + 1 + 2) */
	assert_int_equal(span, 20);
	assert_int_equal(c->prof[FIX_FN_outer_fn].total, 26 + 20);
	assert_int_equal(c->prof[FIX_FN_rec_fn].total, 15); /* from its first call */
	assert_int_equal(c->prof[FIX_FN_outer_fn].self, 12 + 10);
	assert_int_equal(c->prof[FIX_FN_rec_fn].self, 10);
	assert_int_equal(c->prof[FIX_FN_outer_fn].calls, 3);
	/* idle time is neither self nor outside */
	cpu_advance_to(c, c->now + 1000);
	assert_int_equal(cpu_counter(c, CPU_CTR_idle_cycles), 1000);
	assert_int_equal(cpu_counter(c, CPU_CTR_busy_cycles), 7 + 26 + 20);
	assert_int_equal(cpu_check(c), NS_OK);
}

static void test_unbalanced_detected(void **state)
{
	struct world *w = *state;
	struct cpu *c = &w->s.cpu[3];
	cpu_ret(c);
	assert_int_equal(cpu_check(c), NS_EINTERNAL);
	c->ctr[CPU_CTR_stack_underflow] = 0;
	/* overflowing the shadow stack is recorded and stays balanced */
	for (int i = 0; i < c->max_depth + 3; i++)
		cpu_call(c, FIX_FN_rec_fn);
	assert_int_equal(c->lost, 3);
	for (int i = 0; i < c->max_depth + 3; i++)
		cpu_ret(c);
	assert_int_equal(c->depth, 0);
	assert_int_equal(cpu_check(c), NS_EINTERNAL);
	c->ctr[CPU_CTR_stack_overflow] = 0;
	assert_int_equal(cpu_check(c), NS_OK);
	/* a broken cycle identity is caught */
	c->outside += 1;
	assert_int_equal(cpu_check(c), NS_EINTERNAL);
	c->outside -= 1;
}

static void test_memory_latency(void **state)
{
	struct world *w = *state;
	struct cpu *c0 = &w->s.cpu[0], *c2 = &w->s.cpu[2];
	struct cache_as as;
	cache_as_init(&as);
	uint64_t a0, a1;
	assert_int_equal(cache_as_alloc(&as, 0, 4096, 64, &a0), NS_OK);
	assert_int_equal(cache_as_alloc(&as, 1, 4096, 64, &a1), NS_OK);
	assert_int_equal(cpu_mem(c0, a0, 8, 0, CPU_LOAD_DEP), 160);     /* local DRAM */
	assert_int_equal(cpu_mem(c0, a1, 8, 1, CPU_LOAD_DEP), 280);     /* remote DRAM */
	assert_int_equal(cpu_mem(c0, a1, 8, 1, CPU_LOAD_DEP), 4);       /* L1 */
	assert_int_equal(cpu_mem(c2, a1 + 64, 8, 1, CPU_LOAD_DEP), 160); /* local for node 1 */
	assert_int_equal(c0->now, 160 + 280 + 4);
	assert_int_equal(c0->ctr[CPU_CTR_mem_local], 1);
	assert_int_equal(c0->ctr[CPU_CTR_mem_remote], 1);
	assert_int_equal(c0->ctr[CPU_CTR_l1d_hit], 1);
	/* CPU 1 shares node 0's LLC */
	assert_int_equal(cpu_mem(&w->s.cpu[1], a1, 8, 1, CPU_LOAD_DEP), 40);
	/* an access spanning two lines costs its slowest line */
	assert_int_equal(cpu_mem(c0, a0 + 60, 8, 0, CPU_LOAD_DEP), 160);
	assert_int_equal(c0->ctr[CPU_CTR_mem_accesses], 5);
	/* a line written by CPU 2 (node 1) is pulled from its cache; the store
	 * itself went to the store buffer (one slot) */
	assert_int_equal(cpu_mem(c2, a0 + 1024, 8, 0, CPU_STORE), 1);
	assert_int_equal(cpu_mem(c0, a0 + 1024, 8, 0, CPU_LOAD_DEP), 220);
	assert_int_equal(c0->ctr[CPU_CTR_line_transfer], 1);
	/* atomics: L1 hit costs the atomic only, a remote writer adds a transfer */
	assert_int_equal(cpu_atomic(c0, a0, 0), 20);
	assert_int_equal(cpu_atomic(&w->s.cpu[1], a0, 0), 20 + 90);
	assert_int_equal(cpu_atomic(c2, a0, 0), 20 + 220);
	assert_int_equal(c2->ctr[CPU_CTR_atomic], 1);
	cpu_irq_save(c0);
	cpu_irq_restore(c0);
	cpu_this_cpu_cmpxchg(c0);
	assert_int_equal(c0->now, 160 + 280 + 4 + 160 + 220 + 20 + 36 + 9);
}

static void test_walk_counts_through_cpu(void **state)
{
	struct world *w = *state;
	struct cpu *c = &w->s.cpu[0];
	struct cache_as as;
	cache_as_init(&as);
	uint64_t buf;
	/* 64 KiB: bigger than L1 (32 KiB), smaller than L2 (256 KiB) */
	assert_int_equal(cache_as_alloc(&as, 0, 65536, 4096, &buf), NS_OK);
	for (int pass = 0; pass < 3; pass++)
		for (uint64_t off = 0; off < 65536; off += 64)
			cpu_mem(c, buf + off, 64, 0, CPU_LOAD_DEP);
	assert_int_equal(cpu_counter(c, CPU_CTR_mem_local), 1024);
	assert_int_equal(cpu_counter(c, CPU_CTR_l1d_miss), 3 * 1024);
	assert_int_equal(cpu_counter(c, CPU_CTR_l2_hit), 2 * 1024);
	assert_int_equal(cpu_counter(c, CPU_CTR_l1d_hit), 0);
	assert_int_equal(c->now, 1024 * 160 + 2 * 1024 * 14);
}

/* The out-of-order rule: only dependent loads pay an L1 hit's latency, no
 * load hides a miss, stores never stall but still move the line. */
static void test_access_kinds(void **state)
{
	struct world *w = *state;
	struct cpu *c0 = &w->s.cpu[0], *c2 = &w->s.cpu[2];
	struct cache_as as;
	cache_as_init(&as);
	uint64_t a;
	assert_int_equal(cache_as_alloc(&as, 0, 4096, 64, &a), NS_OK);
	assert_int_equal(c0->sys->k.mem_slot, 1);
	/* independent load: a miss costs the full DRAM latency, a hit a slot */
	assert_int_equal(cpu_mem(c0, a, 8, 0, CPU_LOAD), 160);
	assert_int_equal(cpu_mem(c0, a, 8, 0, CPU_LOAD), 1);
	assert_int_equal(cpu_mem(c0, a, 8, 0, CPU_LOAD_DEP), 4);
	/* a store that misses costs a slot and leaves the line in L1 ... */
	assert_int_equal(cpu_mem(c0, a + 64, 8, 0, CPU_STORE), 1);
	assert_int_equal(cpu_mem(c0, a + 64, 8, 0, CPU_LOAD_DEP), 4);
	assert_int_equal(c0->ctr[CPU_CTR_l1d_miss], 2);
	/* ... dirty: another CPU's load pulls it over (node 1 from node 0) */
	assert_int_equal(cpu_mem(c2, a + 64, 8, 0, CPU_LOAD), 220);
	/* a load spanning an L1 line and a missing one is not hidden */
	assert_int_equal(cpu_mem(c0, a + 120, 16, 0, CPU_LOAD), 160);
	/* bulk stores wait for the RFO on a miss, a slot on a hit */
	assert_int_equal(cpu_mem(c0, a + 256, 64, 0, CPU_STORE_BULK), 160);
	assert_int_equal(cpu_mem(c0, a + 256, 64, 0, CPU_STORE_BULK), 1);
	/* the caller-known repeat costs the kind's L1 price */
	uint64_t t = c0->now;
	cpu_mem_l1_again(c0, CPU_LOAD_DEP);
	cpu_mem_l1_again(c0, CPU_LOAD);
	cpu_mem_l1_again(c0, CPU_STORE);
	assert_int_equal(c0->now - t, 4 + 1 + 1);
	assert_int_equal(c0->now, 160 + 1 + 4 + 1 + 4 + 160 + 160 + 1 + 6);
	assert_int_equal(c0->ctr[CPU_CTR_mem_stall_cycles], c0->now);
	assert_int_equal(c0->ctr[CPU_CTR_mem_load_dep], 3);
	assert_int_equal(c0->ctr[CPU_CTR_mem_load], 4);
	assert_int_equal(c0->ctr[CPU_CTR_mem_store], 2);
	assert_int_equal(c0->ctr[CPU_CTR_mem_store_bulk], 2);
	assert_int_equal(c0->ctr[CPU_CTR_mem_accesses], 12);  /* lines */
}

static void test_lock_contention(void **state)
{
	struct world *w = *state;
	struct cpu *a = &w->s.cpu[0], *b = &w->s.cpu[2], *a2 = &w->s.cpu[1];
	struct cpu_lock l;
	cpu_lock_init(&l);
	assert_int_equal(cpu_lock(a, &l), NS_OK);    /* uncontended: 14 */
	assert_int_equal(a->now, 14);
	assert_int_equal(cpu_lock(a, &l), NS_EINTERNAL);
	assert_int_equal(cpu_lock(b, &l), CPU_LOCK_BUSY);
	assert_int_equal(cpu_unlock(b, &l), NS_EINTERNAL);
	cpu_work(a, 100);
	assert_int_equal(cpu_unlock(a, &l), NS_OK);  /* released at 128 */
	assert_int_equal(l.free_at, 128);
	cpu_advance_to(b, 50);
	assert_int_equal(cpu_lock(b, &l), NS_OK);
	/* waits 78 to the release, pulls the line from node 0 (220), locks (14) */
	assert_int_equal(b->now, 128 + 220 + 14);
	assert_int_equal(b->ctr[CPU_CTR_lock_contended], 1);
	assert_int_equal(b->ctr[CPU_CTR_lock_wait_cycles], 78);
	assert_int_equal(b->ctr[CPU_CTR_lock_transfer], 1);
	assert_int_equal(cpu_unlock(b, &l), NS_OK);  /* free at 376 */
	/* a CPU of node 1's neighbour arrives after the release: no wait, transfer */
	cpu_advance_to(a2, 1000);
	assert_int_equal(cpu_lock(a2, &l), NS_OK);
	assert_int_equal(a2->now, 1000 + 220 + 14);
	assert_int_equal(a2->ctr[CPU_CTR_lock_contended], 0);
	assert_int_equal(cpu_unlock(a2, &l), NS_OK);
	/* the same CPU again: uncontended, no transfer */
	assert_int_equal(cpu_lock(a2, &l), NS_OK);
	assert_int_equal(a2->now, 1000 + 220 + 14 + 14 + 14);
	assert_int_equal(cpu_unlock(a2, &l), NS_OK);
	assert_int_equal(l.acquisitions, 4);
	assert_int_equal(l.contended, 1);
}

struct collect {
	int rows;
	uint64_t sum;
	char last[64];
};

static int prof_cb(void *arg, const struct cpu_profile_row *r)
{
	struct collect *c = arg;
	c->rows++;
	c->sum += r->self_cycles;
	strncpy(c->last, r->function, sizeof c->last - 1);
	return NS_OK;
}

static int br_cb(void *arg, const struct cpu_branch_row *r)
{
	struct collect *c = arg;
	c->rows++;
	c->sum += r->mispredicted;
	strncpy(c->last, r->site, sizeof c->last - 1);
	return NS_OK;
}

static int ctr_cb(void *arg, const struct cpu_counter_row *r)
{
	struct collect *c = arg;
	c->rows++;
	if (strcmp(r->name, "l1d_miss") == 0 && r->scope_id == 2)
		c->sum += r->value;
	assert_string_equal(r->scope, "cpu");
	return c->rows == 1000 ? NS_EIO : NS_OK;
}

static void test_export(void **state)
{
	struct world *w = *state;
	leaf(&w->s.cpu[0]);
	leaf(&w->s.cpu[2]);
	cpu_call(&w->s.cpu[2], FIX_FN_outer_fn);
	cpu_work(&w->s.cpu[2], 9);
	cpu_mem(&w->s.cpu[2], 2ull << 40, 8, 1, CPU_LOAD_DEP);
	struct collect c = {0};
	assert_int_equal(cpu_sys_profile(&w->s, -1, prof_cb, &c), NS_OK);
	/* leaf (2 CPUs) and outer (still active: self so far, no total) */
	assert_int_equal(c.rows, 2);
	assert_int_equal(c.sum, 22 + 22 + 2 + 9 + 160);
	assert_string_equal(c.last, "leaf_fn"); /* id order */
	memset(&c, 0, sizeof c);
	assert_int_equal(cpu_sys_profile(&w->s, 0, prof_cb, &c), NS_OK);
	assert_int_equal(c.rows, 1);
	assert_int_equal(cpu_sys_profile(&w->s, 42, prof_cb, &c), NS_ENOENT);
	memset(&c, 0, sizeof c);
	assert_int_equal(cpu_sys_branches(&w->s, -1, br_cb, &c), NS_OK);
	assert_int_equal(c.rows, 2);
	assert_int_equal(c.sum, 2);
	assert_string_equal(c.last, "T2");
	memset(&c, 0, sizeof c);
	assert_int_equal(cpu_sys_counters(&w->s, ctr_cb, &c), NS_OK);
	assert_int_equal(c.rows, 4 * CPU_NR_COUNTERS);
	assert_int_equal(c.sum, 1);
	assert_string_equal(cpu_counter_name(CPU_CTR_lock_contended), "lock_contended");
	assert_int_equal(cpu_counter(&w->s.cpu[2], CPU_CTR_branches), 2);
	assert_int_equal(cpu_counter(&w->s.cpu[2], CPU_CTR_cycles), 22 + 2 + 9 + 160);
	cpu_ret(&w->s.cpu[2]);
}

struct path_rows {
	int rows;
	char fn[8][32];
	int64_t id[8], parent[8];
	uint64_t calls[8], self[8], miss[8];
};

static int path_cb(void *arg, const struct cpu_path_row *r)
{
	struct path_rows *p = arg;
	if (p->rows < 8) {
		strncpy(p->fn[p->rows], r->function, sizeof p->fn[0] - 1);
		p->id[p->rows] = r->id;
		p->parent[p->rows] = r->parent;
		p->calls[p->rows] = r->calls;
		p->self[p->rows] = r->self_cycles;
		p->miss[p->rows] = r->mispredicts;
	}
	p->rows++;
	return NS_OK;
}

/* Call paths: outer -> leaf on two CPUs and leaf from outside; the paths'
 * self cycles are the functions' self cycles split by caller, merged over
 * CPUs by their chain of functions; mispredicts go to the innermost
 * out-of-line frame; an inlined function has no path of its own. */
static void test_call_paths(void **state)
{
	struct world *w = *state;
	struct cpu *c0 = &w->s.cpu[0], *c1 = &w->s.cpu[1];
	leaf(c0);                              /* path 1: leaf_fn, 22 cycles, 1 miss */
	cpu_call(c0, FIX_FN_outer_fn);         /* path 2: outer_fn */
	cpu_work(c0, 5);
	leaf(c0);                              /* path 3: outer_fn;leaf_fn */
	assert_int_equal(cpu_check(c0), NS_OK);
	cpu_ret(c0);
	cpu_call(c1, FIX_FN_outer_fn);         /* CPU 1: outer_fn, outer_fn;leaf_fn */
	leaf(c1);
	cpu_ret(c1);
	assert_int_equal(c0->nr_paths, 4);     /* root + 3 */
	assert_int_equal(c1->nr_paths, 3);
	uint64_t sum = 0;
	for (uint32_t i = 0; i < c0->nr_paths; i++)
		sum += c0->path[i].self;
	assert_int_equal(sum, c0->now - c0->start);
	struct path_rows p = {0};
	assert_int_equal(cpu_sys_paths(&w->s, -1, path_cb, &p), NS_OK);
	assert_int_equal(p.rows, 3);
	assert_string_equal(p.fn[0], "leaf_fn");
	assert_int_equal(p.parent[0], 0);
	assert_int_equal(p.self[0], 22);
	assert_int_equal(p.miss[0], 1);
	assert_string_equal(p.fn[1], "outer_fn");
	assert_int_equal(p.calls[1], 2);
	assert_string_equal(p.fn[2], "leaf_fn");
	assert_int_equal(p.parent[2], p.id[1]);
	assert_int_equal(p.calls[2], 2);
	/* the paths' self cycles are the profile's */
	assert_int_equal(p.self[0] + p.self[2], c0->prof[FIX_FN_leaf_fn].self +
						 c1->prof[FIX_FN_leaf_fn].self);
	assert_int_equal(p.self[1], c0->prof[FIX_FN_outer_fn].self +
				    c1->prof[FIX_FN_outer_fn].self);
	/* one CPU: its own paths only */
	memset(&p, 0, sizeof p);
	assert_int_equal(cpu_sys_paths(&w->s, 1, path_cb, &p), NS_OK);
	assert_int_equal(p.rows, 2);
	/* inlined leaf: its cycles and mispredicts are outer_fn's path's */
	assert_int_equal(cost_layout_set_fn(&w->l, FIX_FN_leaf_fn, true), NS_OK);
	assert_int_equal(cpu_sys_set_layout(&w->s, &w->l), NS_OK);
	struct cpu *c2 = &w->s.cpu[2];
	cpu_call(c2, FIX_FN_outer_fn);
	leaf(c2);
	cpu_ret(c2);
	assert_int_equal(c2->nr_paths, 2);
	assert_int_equal(c2->path[1].fn, FIX_FN_outer_fn);
	assert_int_equal(c2->path[1].self, c2->now);
	assert_int_equal(c2->path[1].mispredicts, 1);
	/* a broken chain is caught */
	c2->path[1].self++;
	assert_int_equal(cpu_check(c2), NS_EINTERNAL);
	c2->path[1].self--;
	assert_int_equal(cpu_check(c2), NS_OK);
}

/* Growth of the path table past its first capacity keeps every path. */
static void test_call_paths_grow(void **state)
{
	struct world *w = *state;
	struct cpu *c = &w->s.cpu[3];
	/* 200 nested calls alternating outer/rec, then rec/outer: 400 paths (each
	 * depth is a new chain), more than the initial 256 */
	for (int i = 0; i < 200; i++)
		cpu_call(c, i % 2 ? FIX_FN_rec_fn : FIX_FN_outer_fn);
	assert_int_equal(cpu_check(c), NS_OK);
	for (int i = 0; i < 200; i++)
		cpu_ret(c);
	for (int i = 0; i < 200; i++)
		cpu_call(c, i % 2 ? FIX_FN_outer_fn : FIX_FN_rec_fn);
	for (int i = 0; i < 200; i++)
		cpu_ret(c);
	assert_int_equal(c->nr_paths, 401);
	assert_true(c->cap_paths >= 401);
	assert_int_equal(c->ctr[CPU_CTR_path_lost], 0);
	assert_int_equal(cpu_check(c), NS_OK);
}

/* cpu_branch_cycles() is what cpu_branch() charges. */
static void test_branch_cycles(void **state)
{
	struct world *w = *state;
	struct cpu *c = &w->s.cpu[1];
	uint64_t t0 = c->now;
	for (int i = 0; i < 50; i++) {
		cpu_branch(c, FIX_SITE_T1, i % 3 == 0);
		cpu_branch(c, FIX_SITE_T2, i % 7 != 0);
	}
	uint64_t e = 0, t = 0, m = 0;
	for (int s = 0; s < FIX_NR_SITE; s++) {
		e += c->site[s].executed;
		t += c->site[s].taken;
		m += c->site[s].mispredicted;
	}
	assert_true(m > 0 && t > 0);
	assert_int_equal(cpu_branch_cycles(&w->s.k, e, t, m), c->now - t0);
}

static void test_bad_setup(void **state)
{
	struct world *w = *state;
	struct cpu_params p;
	cpu_params_default(&p);
	struct cpu_sys s;
	int bad[] = {7};
	assert_int_equal(cpu_sys_init(&s, &w->m, &w->t, &w->l, &p, bad, 1), NS_ERANGE);
	int dup[] = {1, 1};
	assert_int_equal(cpu_sys_init(&s, &w->m, &w->t, &w->l, &p, dup, 2), NS_ERANGE);
	int ok[] = {1};
	w->m.costs.nr_line_transfer = 0;
	assert_int_equal(cpu_sys_init(&s, &w->m, &w->t, &w->l, &p, ok, 1), NS_ERANGE);
	w->m.costs.nr_line_transfer = 2;
	w->m.costs.line_size.value = 48;
	assert_int_equal(cpu_sys_init(&s, &w->m, &w->t, &w->l, &p, ok, 1), NS_ERANGE);
	w->m.costs.line_size.value = 64;
	assert_int_equal(cpu_sys_init(&s, &w->m, &w->t, &w->l, &p, ok, 1), NS_OK);
	assert_int_equal(cpu_sys_check(&s), NS_OK);
	cpu_sys_free(&s);
}


/* --- cost.model ooo: hand-worked blocks ---------------------------------- */

/*
 * The fixture's core for the out-of-order model: 4 wide, ROB 32 (8 cycles
 * of dispatch), load queue 8, 2 load ports, 2 fill buffers, call 4 / ret 3
 * uops, no prefetcher, TSC at half the core clock.  Bimodal predictor so
 * that which branch mispredicts is known.
 */

static int setup_ooo(void **state)
{
	struct cpu_params p;
	cpu_params_default(&p);
	p.model = CPU_MODEL_OOO;
	p.bpred.mode = BPRED_BIMODAL;
	struct world *w = calloc(1, sizeof *w);
	fix_machine(&w->m);
	struct machine_costs *c = &w->m.costs;
	fix_ooo_figs(c);
	fix_fig(&c->tsc_ghz, 1.0);
	fix_fig(&c->core_ghz, 2.0);
	if (fix_tables(&w->t) || cost_layout_init(&w->l, &w->t, "test"))
		return -1;
	int cpus[] = {0, 1, 2, 3};
	if (cpu_sys_init(&w->s, &w->m, &w->t, &w->l, &p, cpus, 4))
		return -1;
	*state = w;
	return 0;
}

/* Straight-line work goes through dispatch 4 uops a cycle. */
static void test_ooo_dispatch_width(void **state)
{
	struct world *w = *state;
	struct cpu *c = &w->s.cpu[0];
	assert_int_equal(c->ooo, 1);
	cpu_insns(c, 10);                  /* cycles 0, 1 full, 2 uops in cycle 2 */
	assert_int_equal(c->now, 2);
	assert_int_equal(c->o.slot, 2);
	cpu_insns(c, 2);
	assert_int_equal(c->now, 3);
	assert_int_equal(c->o.slot, 0);
	assert_int_equal(cpu_counter(c, CPU_CTR_uops), 12);
	/* in-order the same 12 instructions are 5 + 1 cycles at 2 per cycle */
	assert_int_equal(cpu_tsc(c), 1);   /* 3 core cycles at 2 GHz, TSC 1 GHz */
	assert_int_equal(cpu_check(c), NS_OK);
}

/*
 * A chain of three dependent L1 loads (4 cycles each) feeding a branch.
 * Predicted, nobody waits: loads 1-2 in cycle 0 (two ports), load 3 and
 * the branch in cycle 1.  Mispredicted, the branch resolves when the
 * chain is ready (0 + 4 + 4 + 4 = 12, + 1 to execute) and the right path
 * comes 14 cycles later: 27.  The in-order model charges the same 27 and
 * 15 for the predicted case.
 */
static void dep_chain(struct cpu *c, bool cond)
{
	cpu_mem_l1_again(c, CPU_LOAD_DEP);
	cpu_mem_l1_again(c, CPU_LOAD_DEP);
	cpu_mem_l1_again(c, CPU_LOAD_DEP);
	cpu_branch(c, FIX_SITE_T1, cond);
}

static void test_ooo_dependent_chain(void **state)
{
	struct world *w = *state;
	struct cpu *c = &w->s.cpu[0];
	dep_chain(c, true);                /* cold T1: static not-taken = right */
	assert_int_equal(c->now, 1);
	assert_int_equal(c->o.slot, 2);
	assert_int_equal(c->site[FIX_SITE_T1].mispredicted, 0);
	assert_int_equal(c->o.chain, 0);   /* the branch consumed it */
	struct cpu *d = &w->s.cpu[1];
	cpu_branch(d, FIX_SITE_T1, true);  /* warm the site: weakly fall-through */
	cpu_advance_to(d, 100);
	dep_chain(d, false);               /* taken, predicted fall-through */
	assert_int_equal(d->site[FIX_SITE_T1].mispredicted, 1);
	assert_int_equal(d->now, 100 + 12 + 1 + 14);
	assert_int_equal(cpu_counter(d, CPU_CTR_mispredict_resolve_cycles), 12 + 1 - 1);
	assert_int_equal(cpu_check(d), NS_OK);
}

/*
 * Three independent loads that miss to local DRAM (160 cycles) with two
 * fill buffers: loads 1 and 2 overlap (done at 160), load 3 waits for a
 * buffer (issue 160, done 320).  40 uops of work dispatch behind them
 * until the ROB (32) fills: the first stall is on load 1, the last on
 * load 3, so the block ends at 320, where in-order it is 3 x 160 + 20.
 */
static void test_ooo_misses_overlap(void **state)
{
	struct world *w = *state;
	struct cpu *c = &w->s.cpu[0];
	uint64_t base = (UINT64_C(1) << CACHE_AS_SHIFT);   /* node 0 */
	for (int i = 0; i < 3; i++)
		cpu_mem(c, base + (uint64_t)i * 4096, 8, 0, CPU_LOAD);
	assert_int_equal(cpu_counter(c, CPU_CTR_mem_local), 3);
	assert_true(c->now <= 2);          /* nothing waited yet */
	assert_int_equal(cpu_counter(c, CPU_CTR_mlp_wait_cycles), 160 - 1);
	cpu_insns(c, 40);
	assert_int_equal(c->now, 320);
	assert_true(cpu_counter(c, CPU_CTR_rob_stall_cycles) > 0);
	assert_int_equal(c->o.n, 0);       /* all retired */
	assert_int_equal(cpu_check(c), NS_OK);
}

/* A mispredict whose input is ready: resolve in the next cycle, refill 14;
 * a predicted taken branch ends the dispatch group (taken_branch 2). */
static void test_ooo_mispredict_and_taken(void **state)
{
	struct world *w = *state;
	struct cpu *c = &w->s.cpu[0];
	cpu_insns(c, 4);                   /* cycle 0 full: now 1, slot 0 */
	cpu_branch(c, FIX_SITE_T2, false); /* cold: predicted not taken, taken */
	assert_int_equal(c->site[FIX_SITE_T2].mispredicted, 1);
	assert_int_equal(c->now, 1 + 1 + 14);
	cpu_insns(c, 1);
	cpu_branch(c, FIX_SITE_T2, false); /* now predicted taken */
	assert_int_equal(c->site[FIX_SITE_T2].mispredicted, 1);
	assert_int_equal(c->now, 16 + 2);  /* the branch's cycle + the redirect */
	assert_int_equal(c->o.slot, 0);
	/* an out-of-line call and return: 4 + 3 uops, each a taken redirect */
	cpu_call(c, FIX_FN_leaf_fn);
	assert_int_equal(c->now, 18 + 2);
	cpu_ret(c);
	assert_int_equal(c->now, 20 + 2);
	assert_int_equal(cpu_check(c), NS_OK);
}

/* A locked operation waits for everything in flight (x86: a full fence). */
static void test_ooo_atomic_fences(void **state)
{
	struct world *w = *state;
	struct cpu *c = &w->s.cpu[0];
	uint64_t base = (UINT64_C(1) << CACHE_AS_SHIFT);
	cpu_mem(c, base, 8, 0, CPU_LOAD);  /* a DRAM miss, done at 160 */
	cpu_mem(c, base + 64 * 100, 8, 0, CPU_STORE);
	cpu_atomic(c, base + 64 * 100, 0); /* line now in L1 (the store took it) */
	assert_int_equal(c->now, 160 + 20);
	/* the wait is the fence's, not the window's: the load and the store
	 * dispatched in cycle 0, the miss is done at 160 */
	assert_int_equal(cpu_counter(c, CPU_CTR_fence_wait_cycles), 160);
	assert_int_equal(cpu_counter(c, CPU_CTR_rob_stall_cycles), 0);
	assert_int_equal(cpu_check(c), NS_OK);
}

static void test_ooo_needs_core_figures(void **state)
{
	(void)state;
	struct world w;
	memset(&w, 0, sizeof w);
	fix_machine(&w.m);
	assert_string_equal(cpu_ooo_missing(&w.m.costs), "dispatch_width");
	assert_int_equal(fix_tables(&w.t), 0);
	assert_int_equal(cost_layout_init(&w.l, &w.t, "test"), NS_OK);
	struct cpu_params p;
	cpu_params_default(&p);
	p.model = CPU_MODEL_OOO;
	int cpus[] = {0};
	assert_int_equal(cpu_sys_init(&w.s, &w.m, &w.t, &w.l, &p, cpus, 1), NS_ERANGE);
	assert_int_equal(cpu_model_parse("ooo"), CPU_MODEL_OOO);
	assert_int_equal(cpu_model_parse("inorder"), CPU_MODEL_INORDER);
	assert_int_equal(cpu_model_parse("OoO"), -1);
	assert_string_equal(cpu_model_name(CPU_MODEL_OOO), "ooo");
	cost_layout_free(&w.l);
	cost_tables_free(&w.t);
	fix_machine_free(&w.m);
}


#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)

/* --- blocks (cpu.h, "Blocks") ------------------------------------------- */

/* One access of block code: declared (made through the block when it was
 * precharged) or a plain step. */
static void blk_mem(struct cpu *c, bool blocks, uint64_t addr, uint32_t bytes,
		    enum cpu_access kind)
{
	if (blocks && cpu_block_take(c, kind))
		cpu_mem_pre(c, addr, bytes, 0, kind);
	else
		cpu_mem(c, addr, bytes, 0, kind);
}

/*
 * Top-level call i written with blocks or with the primitives: a block
 * of 7 uops and three accesses (an L1 hit, a line new every call, a line
 * CPU 1 writes every fifth call: a transfer) ending at T1, a block of 3
 * uops and a store that crosses a line ending at the call of leaf_fn,
 * and in the leaf a block with no accesses ending at T2.  Between the
 * first block's accesses an undeclared access and an irq save, which
 * blocks allow.
 */
static unsigned blk_call(struct world *w, const struct cpu_block *b, bool blocks, unsigned i)
{
	unsigned pre = 0;              /* blocks that precharged their accesses */
	const uint64_t base = (uint64_t)1 << 40; /* node 0's window */
	struct cpu *c = &w->s.cpu[0], *other = &w->s.cpu[1];
	uint64_t shared = base + 8192;
	if (i % 5 == 0)
		cpu_mem(other, shared, 8, 0, CPU_STORE);
	cpu_call(c, FIX_FN_outer_fn);
	if (blocks) {
		cpu_block(c, &b[0]);
		pre += c->blk_left == b[0].nacc;
	} else {
		cpu_insns(c, 7);
	}
	blk_mem(c, blocks, base + (i % 4) * 64, 8, CPU_LOAD_DEP);
	cpu_mem(c, base + 256, 8, 0, CPU_LOAD);
	cpu_irq_save(c);
	blk_mem(c, blocks, base + 65536 + (uint64_t)i * 64, 8, CPU_LOAD);
	blk_mem(c, blocks, shared, 8, CPU_STORE);
	cpu_branch(c, FIX_SITE_T1, i % 3 == 0);
	if (blocks) {
		cpu_block(c, &b[1]);
		pre += c->blk_left == b[1].nacc;
	} else {
		cpu_insns(c, 3);
	}
	blk_mem(c, blocks, base + 1020, 8, CPU_STORE);
	cpu_call(c, FIX_FN_leaf_fn);
	if (blocks)
		cpu_block(c, &b[2]);
	else
		cpu_insns(c, 5);
	cpu_branch(c, FIX_SITE_T2, i % 2 == 0);
	cpu_ret(c);
	cpu_irq_restore(c);
	cpu_ret(c);
	return pre;
}

/* The same calls with blocks and with the primitives give the same clock
 * and counters: precharged in-order (exact), step by step under ooo and
 * memo. */
static void blk_compare(enum cpu_model model, enum cpu_accounting acc)
{
	unsigned pre = 0;
	struct world *w[2] = {memo_world(model, acc), memo_world(model, acc)};
	struct cpu_block b[3];
	const struct cpu_costs *k = &w[0]->s.k;
	assert_int_equal(cpu_block_init(&b[0], 7, "DLS", FIX_SITE_T1, k), NS_OK);
	assert_int_equal(cpu_block_init(&b[1], 3, "S", -1, k), NS_OK);
	assert_int_equal(cpu_block_init(&b[2], 5, "", FIX_SITE_T2, k), NS_OK);
	for (int v = 0; v < 2; v++)
		for (unsigned i = 0; i < 400; i++)
			pre += blk_call(w[v], b, v == 1, i);
	/* the comparison is not vacuous: in-order exact precharges every
	 * block with accesses; ooo never (docs/design/cost-model.md §7, "Blocks:
	 * what they save"); memo only outside logged calls */
	if (model == CPU_MODEL_OOO)
		assert_int_equal(pre, 0);
	else if (acc == CPU_ACCOUNTING_EXACT)
		assert_int_equal(pre, 800);
	struct cpu *a = &w[0]->s.cpu[0], *x = &w[1]->s.cpu[0];
	assert_int_equal(cpu_check(a), NS_OK);
	assert_int_equal(cpu_check(x), NS_OK);
	assert_int_equal(a->now, x->now);
	for (int i = 0; i < CPU_NR_COUNTERS; i++)
		assert_int_equal(cpu_counter(a, (enum cpu_counter)i),
				 cpu_counter(x, (enum cpu_counter)i));
	/* the run saw every case: misses, transfers, stores */
	assert_true(cpu_counter(x, CPU_CTR_l1d_miss) >= 400);
	assert_true(cpu_counter(x, CPU_CTR_line_transfer) >= 80);
	assert_int_equal(a->prof[FIX_FN_outer_fn].self, x->prof[FIX_FN_outer_fn].self);
	assert_int_equal(a->prof[FIX_FN_leaf_fn].total, x->prof[FIX_FN_leaf_fn].total);
	memo_world_free(w[0]);
	memo_world_free(w[1]);
}

static void test_block_is_its_steps(void **state)
{
	(void)state;
	blk_compare(CPU_MODEL_INORDER, CPU_ACCOUNTING_EXACT);
	blk_compare(CPU_MODEL_OOO, CPU_ACCOUNTING_EXACT);
	blk_compare(CPU_MODEL_INORDER, CPU_ACCOUNTING_MEMO);
	blk_compare(CPU_MODEL_OOO, CPU_ACCOUNTING_MEMO);
}

/* The static cost of a block: its uops at the in-order rate and each
 * declared access as an L1 hit of its kind; a bad description is a
 * model bug. */
static void test_block_static_cost(void **state)
{
	struct world *w = *state;
	const struct cpu_costs *k = &w->s.k;
	struct cpu_block b;
	assert_int_equal(cpu_block_init(&b, 9, "DDLSB", 3, k), NS_OK);
	assert_int_equal(b.work, (9 + CPU_INORDER_IPC - 1) / CPU_INORDER_IPC);
	assert_int_equal(b.stall, 2 * k->l1d + 3 * k->mem_slot);
	assert_int_equal(b.nacc, 5);
	assert_int_equal(b.nkind[CPU_LOAD_DEP], 2);
	assert_int_equal(b.nkind[CPU_STORE_BULK], 1);
	assert_int_equal(b.exit, 3);
	assert_int_equal(cpu_block_init(&b, 1, "DX", -1, k), NS_EINTERNAL);
	assert_int_equal(cpu_block_init(&b, 1, "DDDDDDDDDDDDDDDDD", -1, k), NS_EINTERNAL);
	/* precharged: an L1 hit adds nothing more, a miss its difference */
	struct cpu *c = &w->s.cpu[0];
	const uint64_t line = (uint64_t)1 << 40;
	cpu_mem(c, line, 8, 0, CPU_LOAD);
	assert_int_equal(cpu_block_init(&b, 4, "DL", -1, k), NS_OK);
	uint64_t t0 = c->now;
	cpu_block(c, &b);
	assert_int_equal(c->now - t0, 2 + k->l1d + k->mem_slot);
	assert_true(cpu_block_take(c, CPU_LOAD_DEP));
	cpu_mem_pre(c, line, 8, 0, CPU_LOAD_DEP);
	assert_int_equal(c->now - t0, 2 + k->l1d + k->mem_slot);
	assert_true(cpu_block_take(c, CPU_LOAD));
	cpu_mem_pre(c, line + 4096, 8, 0, CPU_LOAD);  /* DRAM instead of a slot */
	assert_int_equal(c->now - t0, 2 + k->l1d + 160);
	assert_false(cpu_block_take(c, CPU_LOAD));
}

/* charge_kinds: a world as memo_world() makes it, with the split on. */
static struct world *kinds_world(enum cpu_model model, enum cpu_accounting acc)
{
	struct cpu_params p;
	cpu_params_default(&p);
	p.model = model;
	p.accounting = acc;
	p.bpred.mode = BPRED_BIMODAL;
	p.charge_kinds = true;
	struct world *w = calloc(1, sizeof *w);
	assert_non_null(w);
	fix_machine(&w->m);
	fix_ooo_figs(&w->m.costs);
	assert_int_equal(fix_tables(&w->t), NS_OK);
	/* two units of work (test_charge_units) */
	static const char *const units[] = {"test_block", "test_row"};
	int unit_base;
	assert_int_equal(cost_register_units(&w->t, units, 2, &unit_base), NS_OK);
	assert_int_equal(unit_base, 0);
	assert_int_equal(cost_register_units(&w->t, units, 1, &unit_base), NS_EINTERNAL);
	assert_int_equal(cost_layout_init(&w->l, &w->t, "test"), NS_OK);
	int cpus[] = {0, 1, 2, 3};
	int rc = cpu_sys_init(&w->s, &w->m, &w->t, &w->l, &p, cpus, 4);
	if (rc != NS_OK) {
		cost_layout_free(&w->l);
		cost_tables_free(&w->t);
		fix_machine_free(&w->m);
		free(w);
		return NULL;
	}
	return w;
}

struct kinds_sum {
	uint64_t by_fn[FIX_NR_FN], by_kind[CPU_NR_CHARGES];
	const struct cost_tables *t;
};

static int kinds_cb(void *arg, const struct cpu_charge_row *r)
{
	struct kinds_sum *k = arg;
	int fn = cost_fn_lookup(k->t, r->function);
	assert_true(fn >= 0 && fn < FIX_NR_FN);
	k->by_fn[fn] += r->cycles;
	for (int i = 0; i < CPU_NR_CHARGES; i++)
		if (!strcmp(r->kind, cpu_charge_name((enum cpu_charge)i)))
			k->by_kind[i] += r->cycles;
	return NS_OK;
}

static int kinds_prof_cb(void *arg, const struct cpu_profile_row *r)
{
	struct kinds_sum *k = arg;
	int fn = cost_fn_lookup(k->t, r->function);
	assert_int_equal(k->by_fn[fn], r->self_cycles);
	k->by_fn[fn] = UINT64_MAX;     /* seen */
	return NS_OK;
}

static int kinds_site_cb(void *arg, const struct cpu_branch_row *r)
{
	uint64_t *sum = arg;
	(void)r;
	sum[0] += r->executed;
	sum[1] += r->taken;
	sum[2] += r->mispredicted;
	return NS_OK;
}

/*
 * The self cycles by charge kind: every function's kinds sum to its self
 * cycles (cpu_sys_charges() against cpu_sys_profile(), and cpu_check()),
 * nothing is left to `other`, in order the branch kind is what the
 * branches were charged (cpu_branch_cycles() of their counts), the clock
 * and the counts are those of a world without the split, memo runs
 * exact, and sampled is refused.
 */
static void test_charge_kinds(void **state)
{
	(void)state;
	for (int model = 0; model < 2; model++) {
		enum cpu_model m = model ? CPU_MODEL_OOO : CPU_MODEL_INORDER;
		struct world *w = kinds_world(m, CPU_ACCOUNTING_MEMO);
		struct world *plain = memo_world(m, CPU_ACCOUNTING_EXACT);
		assert_non_null(w);
		struct cpu *c = &w->s.cpu[0], *p = &plain->s.cpu[0];
		struct cpu_lock l, lp;
		cpu_lock_init(&l);
		cpu_lock_init(&lp);
		for (unsigned i = 0; i < 600; i++) {
			memo_call(c, &l, i, true);
			memo_call(p, &lp, i, true);
		}
		assert_int_equal(cpu_check(c), NS_OK);
		assert_int_equal(c->now, p->now);
		assert_int_equal(cpu_counter(c, CPU_CTR_branch_mispredict),
				 cpu_counter(p, CPU_CTR_branch_mispredict));
		struct cpu_memo_stats ms;
		cpu_memo_stats(&w->s, &ms);
		assert_int_equal(ms.replayed, 0);
		struct kinds_sum k = {.t = &w->t};
		assert_int_equal(cpu_sys_charges(&w->s, -1, kinds_cb, &k), NS_OK);
		assert_int_equal(cpu_sys_profile(&w->s, -1, kinds_prof_cb, &k), NS_OK);
		for (int fn = 0; fn < FIX_NR_FN; fn++)
			assert_true(k.by_fn[fn] == 0 || k.by_fn[fn] == UINT64_MAX);
		assert_int_equal(k.by_kind[CPU_CHARGE_other], 0);
		for (int i = 0; i < CPU_CHARGE_other; i++)
			assert_true(k.by_kind[i] > 0);
		if (m == CPU_MODEL_INORDER) {
			uint64_t n[3] = {0};
			assert_int_equal(cpu_sys_branches(&w->s, -1, kinds_site_cb, n), NS_OK);
			assert_int_equal(k.by_kind[CPU_CHARGE_branch],
					 cpu_branch_cycles(&w->s.k, n[0], n[1], n[2]));
		}
		memo_world_free(w);
		memo_world_free(plain);
	}
	assert_null(kinds_world(CPU_MODEL_INORDER, CPU_ACCOUNTING_SAMPLED));
	/* off: no rows */
	struct world *off = memo_world(CPU_MODEL_INORDER, CPU_ACCOUNTING_EXACT);
	struct kinds_sum k = {.t = &off->t};
	assert_int_equal(cpu_sys_charges(&off->s, -1, kinds_cb, &k), NS_ENOENT);
	memo_world_free(off);
}

struct units_sum {
	uint64_t executed[2], cycles[2];
	int rows;
};

static int units_cb(void *arg, const struct cpu_unit_row *r)
{
	struct units_sum *u = arg;
	int i = !strcmp(r->unit, "test_row");
	assert_true(i || !strcmp(r->unit, "test_block"));
	assert_string_equal(r->function, "outer_fn");
	u->executed[i] += r->executed;
	u->cycles[i] += r->cycles;
	u->rows++;
	return NS_OK;
}

static int work_cb(void *arg, const struct cpu_charge_row *r)
{
	if (!strcmp(r->kind, "work"))
		*(uint64_t *)arg += r->cycles;
	return NS_OK;
}

/*
 * The work per unit (cpu_sys_units()): a block's work is booked to its
 * unit, work armed with cpu_work_unit() to that unit, unarmed work to
 * none; the units and the rest sum to the function's work charge
 * (cpu_check() too).  Under ooo, with a miss in flight every dispatch
 * meets the window rule: the dispatch of the branches before their wait
 * is branch, not work (a wrongly booked branch would leave work beyond
 * the units).
 */
static void test_charge_units(void **state)
{
	(void)state;
	for (int model = 0; model < 2; model++) {
		enum cpu_model m = model ? CPU_MODEL_OOO : CPU_MODEL_INORDER;
		struct world *w = kinds_world(m, CPU_ACCOUNTING_EXACT);
		assert_non_null(w);
		assert_string_equal(w->t.fn_names[0], "outer_fn");
		struct cpu *c = &w->s.cpu[0];
		struct cpu_block b;
		assert_int_equal(cpu_block_init(&b, 9, "", -1, &w->s.k), NS_OK);
		assert_int_equal(b.unit, -1);
		cpu_blocks_units(&b, 1, 0);
		assert_int_equal(b.unit, 0);
		for (unsigned i = 0; i < 40; i++) {
			cpu_call(c, 0);
			cpu_mem(c, 0x40000000ull + 4096ull * i, 8, 0, CPU_LOAD);  /* a miss */
			for (int j = 0; j < 8; j++)
				cpu_branch(c, 0, j & 1);
			cpu_block(c, &b);
			cpu_work_unit(c, 1);
			cpu_insns(c, 7);
			cpu_ret(c);
		}
		assert_int_equal(cpu_check(c), NS_OK);
		struct units_sum u = {0};
		uint64_t work = 0;
		assert_int_equal(cpu_sys_units(&w->s, -1, units_cb, &u), NS_OK);
		assert_int_equal(cpu_sys_charges(&w->s, -1, work_cb, &work), NS_OK);
		assert_int_equal(u.rows, 2);
		assert_int_equal(u.executed[0], 40);
		assert_int_equal(u.executed[1], 40);
		if (m == CPU_MODEL_INORDER) {
			assert_int_equal(u.cycles[0], 40 * 5);   /* ceil(9 / 2) */
			assert_int_equal(u.cycles[1], 40 * 4);   /* ceil(7 / 2) */
		}
		assert_int_equal(u.cycles[0] + u.cycles[1], work);
		/* unarmed work: booked to no unit */
		cpu_call(c, 0);
		cpu_insns(c, 6);
		cpu_ret(c);
		assert_int_equal(cpu_check(c), NS_OK);
		struct units_sum u2 = {0};
		uint64_t work2 = 0;
		assert_int_equal(cpu_sys_units(&w->s, -1, units_cb, &u2), NS_OK);
		assert_int_equal(cpu_sys_charges(&w->s, -1, work_cb, &work2), NS_OK);
		assert_int_equal(u2.cycles[0] + u2.cycles[1], work);
		if (m == CPU_MODEL_INORDER)
			assert_int_equal(work2, work + 3);
		memo_world_free(w);
	}
	struct world *off = memo_world(CPU_MODEL_INORDER, CPU_ACCOUNTING_EXACT);
	struct units_sum u = {0};
	assert_int_equal(cpu_sys_units(&off->s, -1, units_cb, &u), NS_ENOENT);
	memo_world_free(off);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_costs_converted),
		cmocka_unit_test_setup_teardown(test_call_two_branches_out_of_line, setup_bimodal, teardown),
		cmocka_unit_test_setup_teardown(test_call_two_branches_inlined, setup_bimodal, teardown),
		T(test_hint_layout),
		T(test_fixed_site),
		cmocka_unit_test_setup_teardown(test_predictor_in_cpu, setup_bimodal, teardown),
		cmocka_unit_test(test_gshare_in_cpu),
		cmocka_unit_test_setup_teardown(test_ooo_dispatch_width, setup_ooo, teardown),
		cmocka_unit_test_setup_teardown(test_ooo_dependent_chain, setup_ooo, teardown),
		cmocka_unit_test_setup_teardown(test_ooo_misses_overlap, setup_ooo, teardown),
		cmocka_unit_test_setup_teardown(test_ooo_mispredict_and_taken, setup_ooo, teardown),
		cmocka_unit_test_setup_teardown(test_ooo_atomic_fences, setup_ooo, teardown),
		cmocka_unit_test(test_ooo_needs_core_figures),
		T(test_rsb_overflow),
		T(test_profile_nested_recursive),
		T(test_unbalanced_detected),
		T(test_memory_latency),
		T(test_walk_counts_through_cpu),
		T(test_access_kinds),
		T(test_lock_contention),
		T(test_export),
		cmocka_unit_test_setup_teardown(test_call_paths, setup_bimodal, teardown),
		T(test_call_paths_grow),
		T(test_branch_cycles),
		T(test_bad_setup),
		cmocka_unit_test(test_block_is_its_steps),
		cmocka_unit_test(test_charge_kinds),
		cmocka_unit_test(test_charge_units),
		T(test_block_static_cost),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
