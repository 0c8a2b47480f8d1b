/*
 * Tests for models/slub: what the layouts of __slab_free cost (c270cf30
 * against v5.9, GCC and clang, CONFIG_SLUB_STATS on and off): the sites of
 * the !n block without stats; the cycles of one FREE_FROZEN free in fresh
 * worlds; the code layout (cost.code: the same work done, other work
 * charged, hand-computed); the FREE_FROZEN path figures (free_frozen_*
 * counters) over one fixed stream of objects between two CPUs, exact and
 * sampled.  slub_check() and mm_check() run at the end of every test.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/slub_fixture.h"

/*
 * CONFIG_SLUB_STATS=n: PRE's `if (was_frozen)` does not exist and both
 * variants test `new.frozen && !was_frozen`, GCC new.frozen first, clang
 * was_frozen first (slub-free.md §4.2).
 */
static void test_stats_off(void **state)
{
	(void)state;
	for (size_t li = 0; li < sizeof layouts / sizeof layouts[0]; li++) {
		const struct layout_case *l = &layouts[li];
		struct slub_config cfg = cfg_of(l->v, l->c, 0);
		struct wfx *t = tw_create(&cfg);
		struct slub_cache *s = t->k64;
		struct snapshot b;
		const char *s_new = l->v == SLUB_PRE ? "PRE6a" : "POST7";
		const char *s_was = l->v == SLUB_PRE ? "PRE6b" : "POST6";
		alloc(t, 0, s);
		slub_obj_t a = alloc(t, 0, s);
		snap(t, s, 1, &b);
		fr(t, 1, s, a);
		/* (1,1): the model still counts the event */
		expect_stats(t, s, 1, &b, (int[SLUB_NR_STATS])WANT([SLUB_FREE_SLOWPATH] = 1,
								   [SLUB_FREE_FROZEN] = 1));
		assert_int_equal(ran(t, 1, &b, "PRE7"), 0);
		assert_int_equal(ran(t, 1, &b, s_was), 1);
		assert_int_equal(ran(t, 1, &b, s_new), l->c == SLUB_GCC ? 1 : 0);
		/* GCC: every test falls through in both variants; clang: PRE's
		 * was_frozen test is taken, POST's (hinted) falls through */
		assert_int_equal(taken(t, 1, &b, s_was) + taken(t, 1, &b, s_new),
				 l->c == SLUB_CLANG && l->v == SLUB_PRE ? 1 : 0);
		/* (0,1): a full slab (of another cache) freed on CPU 1 */
		s = t->k512;
		slub_obj_t *o = make_full(t, s, 1, 16);
		snap(t, s, 1, &b);
		fr(t, 1, s, o[9]);
		expect_stats(t, s, 1, &b, (int[SLUB_NR_STATS])WANT([SLUB_FREE_SLOWPATH] = 1,
								   [SLUB_CPU_PARTIAL_FREE] = 1));
		assert_int_equal(ran(t, 1, &b, s_was), 1);
		assert_int_equal(ran(t, 1, &b, s_new), 1);
		assert_int_equal(slab(t, o[9]).loc, SLUB_LOC_CPU_PARTIAL);
		/* (0,0): the same slab after a flush, partial and staying so */
		slub_flush_cpu(t->w, cpu(t, 1), s);
		snap(t, s, 1, &b);
		fr(t, 1, s, o[10]);
		expect_stats(t, s, 1, &b, (int[SLUB_NR_STATS])WANT([SLUB_FREE_SLOWPATH] = 1));
		assert_int_equal(ran(t, 1, &b, s_new) + ran(t, 1, &b, s_was), l->c == SLUB_GCC ? 1 : 2);
		free(o);
		wfx_destroy(t);
	}
}

/*
 * Cycle cost of one FREE_FROZEN free (case A) in fresh worlds: everything
 * before the !n block is identical, so PRE - POST is the block's difference
 * (slub-free.md §4.2): with GCC and stats, PRE runs two more not-taken,
 * correctly predicted unhinted tests and pushes one callee-saved register.
 * Both worlds allocate the same synthetic addresses, so memory costs agree.
 */
static uint64_t frozen_free_cycles(enum slub_variant v, enum slub_compiler cc, int stats)
{
	struct slub_config cfg = cfg_of(v, cc, stats);
	struct wfx *t = tw_create(&cfg);
	alloc(t, 0, t->k64);
	slub_obj_t a = alloc(t, 0, t->k64);
	uint64_t before = cpu(t, 1)->now;
	fr(t, 1, t->k64, a);
	uint64_t d = cpu(t, 1)->now - before;
	wfx_destroy(t);
	return d;
}

static void test_frozen_free_cost(void **state)
{
	(void)state;
	struct slub_config cfg = cfg_of(SLUB_PRE, SLUB_GCC, 1);
	struct wfx *t = tw_create(&cfg);
	uint32_t k_branch = cpu(t, 0)->k_br[0]; /* not taken, predicted */
	wfx_destroy(t);
	uint64_t pre = frozen_free_cycles(SLUB_PRE, SLUB_GCC, 1);
	uint64_t post = frozen_free_cycles(SLUB_POST, SLUB_GCC, 1);
	assert_int_equal(pre - post, 2 * k_branch + 1);
	/* without stats GCC emits the same code for both (§4.2) */
	pre = frozen_free_cycles(SLUB_PRE, SLUB_GCC, 0);
	post = frozen_free_cycles(SLUB_POST, SLUB_GCC, 0);
	assert_int_equal(pre, post);
	/* clang without stats: PRE takes a branch on was_frozen, POST falls through */
	assert_true(frozen_free_cycles(SLUB_PRE, SLUB_CLANG, 0) >
		    frozen_free_cycles(SLUB_POST, SLUB_CLANG, 0));
	/* clang: PRE's was_frozen test is a taken branch, 3 vs 1 registers */
	uint64_t cpre = frozen_free_cycles(SLUB_PRE, SLUB_CLANG, 1);
	uint64_t cpost = frozen_free_cycles(SLUB_POST, SLUB_CLANG, 1);
	assert_true(cpre - cpost > 2 * k_branch + 1);
	assert_int_equal(cpost, frozen_free_cycles(SLUB_POST, SLUB_CLANG, 1));
}

/*
 * cost.code (docs/design/compiled-counts.md §6): the compiled layout changes the
 * straight-line work only.  One FREE_FROZEN remote free (the frozen_free
 * set-up) under the in-order model: every branch, outcome, call and access
 * is the same in both layouts; the cycles differ by the work rows it
 * charges, each rounded up to whole cycles at 2 per cycle: free_entry,
 * slab_free_entry, slab_free_try and the `!n` block (FREE_FROZEN):
 * estimate 14, 8, 12 + the spill (PRE 2, POST 0) = 7 + 4 + 6 + 1 (0);
 * compiled (uops per instruction form, docs/design/compiled-counts.md §6.3)
 * PRE 34, 24, 18, 3 = 17 + 12 + 9 + 2 = 40 (estimate 18: + 22), POST 34,
 * 24, 19, 3 = 17 + 12 + 10 + 2 = 41 (estimate 17: + 24).
 */
static uint64_t frozen_free_layout(enum slub_variant v, enum mm_code code, uint64_t k[7])
{
	static const enum cpu_counter kc[7] = {
		CPU_CTR_calls, CPU_CTR_branches, CPU_CTR_branches_taken,
		CPU_CTR_branch_mispredict, CPU_CTR_mem_load_dep, CPU_CTR_mem_load,
		CPU_CTR_mem_store,
	};
	struct slub_config cfg = cfg_of(v, SLUB_GCC, 1);
	cfg.code = code;
	struct wfx *t = tw_create(&cfg);
	alloc(t, 0, t->k64);
	slub_obj_t a = alloc(t, 0, t->k64);
	struct cpu *c = cpu(t, 1);
	uint64_t before = c->now, k0[7];
	for (int i = 0; i < 7; i++)
		k0[i] = cpu_counter(c, kc[i]);
	fr(t, 1, t->k64, a);
	for (int i = 0; i < 7; i++)
		k[i] = cpu_counter(c, kc[i]) - k0[i];
	uint64_t d = c->now - before;
	assert_int_equal(slub_stat(t->w, t->k64, 1, SLUB_FREE_FROZEN), 1);
	wfx_check(t);
	wfx_destroy(t);
	return d;
}

static void test_code_layout(void **state)
{
	(void)state;
	static const uint64_t extra[2] = {22, 24};   /* compiled - estimate, PRE / POST */
	for (int v = SLUB_PRE; v <= SLUB_POST; v++) {
		uint64_t ke[7], kc[7], kd[7];
		uint64_t ce = frozen_free_layout((enum slub_variant)v, MM_CODE_ESTIMATE, ke);
		uint64_t cc = frozen_free_layout((enum slub_variant)v, MM_CODE_COMPILED, kc);
		uint64_t cd = frozen_free_layout((enum slub_variant)v, MM_CODE_DEFAULT, kd);
		for (int i = 0; i < 7; i++) {
			assert_int_equal(ke[i], kc[i]);
			assert_int_equal(ke[i], kd[i]);
		}
		assert_int_equal(cd, ce);            /* inorder: estimate by default */
		assert_int_equal(cc - ce, extra[v]);
	}
	/* no counts for clang or without CONFIG_SLUB_STATS: compiled is refused,
	 * the default falls back to the estimate */
	struct slub_config cfg = cfg_of(SLUB_POST, SLUB_GCC, 1);
	struct wfx *t = tw_create(&cfg);
	for (int k = 0; k < 2; k++) {
		struct slub_config bad = cfg_of(SLUB_POST, k ? SLUB_CLANG : SLUB_GCC, k);
		bad.as = &t->as;
		bad.code = MM_CODE_COMPILED;
		struct slub_world *w = t->w;   /* non-NULL: must come back NULL */
		struct diag d;
		diag_init(&d);
		assert_int_equal(slub_world_create(t->m, &bad, &t->s, t->pa, t->sl_fn, t->sl_site,
						   &w, &d), NS_EINPUT);
		assert_null(w);
		assert_non_null(strstr(d.msg, "compiler_layout gcc with slub_stats on only"));
		bad.code = MM_CODE_DEFAULT;
		wfx_ok(slub_world_create(t->m, &bad, &t->s, t->pa, t->sl_fn, t->sl_site, &w, &d),
		       &d);
		slub_world_destroy(w);
	}
	wfx_destroy(t);
}

/*
 * The FREE_FROZEN path figures (free_frozen_* counters) on one fixed
 * stream of kmalloc-512 objects in flight between two CPUs of one node
 * (with two nodes get_any_partial's defrag lottery reads the cycle
 * counter, so the variants' costs would change the stream), as in sched
 * messaging: bursts allocated on one CPU, freed in FIFO order on the other
 * in bursts of another length, the roles swapping now and then.  The
 * stream does not depend on costs, so every variant sees the same
 * sequence of __slab_free outcomes (FREE_FROZEN, CPU_PARTIAL_FREE, frees
 * to node-partial slabs) and only the !n block differs.
 */
struct ff_fig {
	int64_t ff, slow, branches, taken, mispredicts, cycles, measured;
};

#define FF_RING 4096

static struct ff_fig frozen_stream_acct(enum slub_variant v, enum slub_compiler cc, int stats,
					enum bpred_mode mode, enum cpu_accounting acc,
					uint32_t period, struct cpu_memo_stats *ms)
{
	struct slub_config cfg = cfg_of(v, cc, stats);
	struct wfx *t = tw_create_acct(&cfg, SLUB_MACHINE_ONE, mode, acc, period, NULL);
	slub_obj_t ring[FF_RING];
	uint32_t head = 0, count = 0;
	uint64_t r = 2020;
	int src = 0;
	for (int round = 0; round < 3000; round++) {
		if (rng_splitmix64(&r) % 64 == 0)
			src ^= 1;
		uint32_t na = 1 + (uint32_t)(rng_splitmix64(&r) % 48);
		uint32_t nf = 1 + (uint32_t)(rng_splitmix64(&r) % 40);
		for (uint32_t i = 0; i < na && count < FF_RING; i++)
			ring[(head + count++) % FF_RING] = alloc(t, src, t->k512);
		cpu_advance_to(cpu(t, !src), cpu(t, src)->now);
		for (uint32_t i = 0; i < nf && count; i++, count--, head = (head + 1) % FF_RING)
			fr(t, !src, t->k512, ring[head]);
		cpu_advance_to(cpu(t, src), cpu(t, !src)->now);
	}
	for (; count; count--, head = (head + 1) % FF_RING)
		fr(t, 1, t->k512, ring[head]);
	struct ff_fig f = {
		counter(t, "cache", "kmalloc-512", "free_frozen"),
		counter(t, "cache", "kmalloc-512", "free_slowpath"),
		counter(t, "cache", "kmalloc-512", "free_frozen_branches"),
		counter(t, "cache", "kmalloc-512", "free_frozen_branches_taken"),
		counter(t, "cache", "kmalloc-512", "free_frozen_mispredicts"),
		counter(t, "cache", "kmalloc-512", "free_frozen_cycles"),
		counter(t, "cache", "kmalloc-512", "free_frozen_measured"),
	};
	if (ms)
		cpu_memo_stats(&t->s, ms);
	/* in-order a locked op never waits for older ops: no fence cycles */
	assert_int_equal(counter(t, "cache", "kmalloc-512", "free_frozen_fence_wait_cycles"), 0);
	assert_int_equal(cinfo(t->k512).allocated, cinfo(t->k512).freed);
	wfx_destroy(t);
	return f;
}

static struct ff_fig frozen_stream(enum slub_variant v, enum slub_compiler cc, int stats,
				   enum bpred_mode mode)
{
	struct ff_fig f = frozen_stream_acct(v, cc, stats, mode, CPU_ACCOUNTING_EXACT, 0, NULL);
	/* exact accounting measures every FREE_FROZEN call */
	assert_int_equal(f.measured, f.ff);
	return f;
}

/*
 * The same stream under sampled accounting (docs/design/cost-model.md §10):
 * __slab_free and the allocation path read the clock (the FREE_FROZEN
 * measurement, the remote_node_defrag_ratio lottery), yet they run fast
 * calls; the FREE_FROZEN sums cover the samples only, whose per-call
 * branch counts are exact's and whose cycles are close to exact's.
 */
static void test_frozen_stream_sampled(void **state)
{
	(void)state;
	for (int vi = 0; vi < 2; vi++) {
		enum slub_variant v = vi ? SLUB_POST : SLUB_PRE;
		struct ff_fig ex = frozen_stream(v, SLUB_GCC, 1, BPRED_GSHARE);
		struct cpu_memo_stats ms;
		struct ff_fig sa = frozen_stream_acct(v, SLUB_GCC, 1, BPRED_GSHARE,
						      CPU_ACCOUNTING_SAMPLED, 10, &ms);
		/* the outcomes do not depend on costs: the same frees */
		assert_int_equal(sa.ff, ex.ff);
		assert_int_equal(sa.slow, ex.slow);
		/* most calls fast, none made exact by a read of the clock */
		assert_true(ms.sampled);
		assert_int_equal(ms.exact, 0);
		assert_true(ms.fast > 8 * ms.samples);
		/* measured: the samples among the FREE_FROZEN calls, a few */
		assert_true(sa.measured > 0);
		assert_true(sa.measured * 4 < sa.ff);
		/* per measured call: the !n block's branches exactly, the
		 * cycles within 15 % of exact's mean */
		assert_int_equal(sa.branches * ex.ff, ex.branches * sa.measured);
		assert_int_equal(sa.taken * ex.ff, ex.taken * sa.measured);
		double ce = (double)ex.cycles / (double)ex.ff;
		double cs = (double)sa.cycles / (double)sa.measured;
		assert_true(fabs(cs - ce) < 0.15 * ce);
	}
}

static void test_frozen_stream(void **state)
{
	(void)state;
	const enum slub_compiler ccs[2] = {SLUB_GCC, SLUB_CLANG};
	for (int ci = 0; ci < 2; ci++)
		for (int mode = 0; mode < 2; mode++) {
			enum bpred_mode bm = mode ? BPRED_GSHARE : BPRED_BIMODAL;
			struct ff_fig pre = frozen_stream(SLUB_PRE, ccs[ci], 1, bm);
			struct ff_fig post = frozen_stream(SLUB_POST, ccs[ci], 1, bm);
			/* the same stream: the same outcomes, a real mix of them */
			assert_int_equal(pre.ff, post.ff);
			assert_int_equal(pre.slow, post.slow);
			assert_true(pre.ff > pre.slow / 4 && pre.ff < pre.slow);
			/* with stats: PRE runs PRE6a, PRE6b, PRE7; POST only POST6 */
			assert_int_equal(pre.branches, 3 * pre.ff);
			assert_int_equal(post.branches, post.ff);
			assert_int_equal(post.taken, 0);
			assert_int_equal(pre.taken, ccs[ci] == SLUB_CLANG ? pre.ff : 0);
			/* POST6 sees the was_frozen outcomes PRE7 sees, PRE adds the
			 * PRE6a/PRE6b tests: with a per-site predictor POST cannot
			 * mispredict more; with global history the two streams of
			 * outcomes differ, so allow 0.1 % of the frees either way */
			if (bm == BPRED_BIMODAL)
				assert_true(post.mispredicts <= pre.mispredicts);
			else
				assert_true(post.mispredicts <= pre.mispredicts + pre.ff / 1000);
			assert_true(post.cycles < pre.cycles);
			/* without stats and GCC both emit new.frozen then was_frozen */
			struct ff_fig pre0 = frozen_stream(SLUB_PRE, ccs[ci], 0, bm);
			struct ff_fig post0 = frozen_stream(SLUB_POST, ccs[ci], 0, bm);
			assert_int_equal(pre0.ff, pre.ff);
			assert_int_equal(pre0.branches, post0.branches);
			if (ccs[ci] == SLUB_GCC) {
				assert_int_equal(pre0.branches, 2 * pre0.ff);
				assert_int_equal(pre0.taken, 0);
				assert_int_equal(post0.taken, 0);
				if (bm == BPRED_BIMODAL) {
					/* identical code: identical figures */
					assert_int_equal(pre0.mispredicts, post0.mispredicts);
					assert_int_equal(pre0.cycles, post0.cycles);
				} else {
					/* only the sites' places in the shared table differ */
					assert_true(llabs(pre0.mispredicts - post0.mispredicts) <=
						    pre0.ff / 1000);
					assert_true(llabs(pre0.cycles - post0.cycles) <= pre0.ff);
				}
			} else {
				/* clang: was_frozen first; PRE's is taken, POST's falls through */
				assert_int_equal(pre0.branches, pre0.ff);
				assert_int_equal(pre0.taken, pre0.ff);
				assert_int_equal(post0.taken, 0);
				assert_true(post0.cycles < pre0.cycles);
			}
			print_message("frozen stream %s %s: ff %lld/%lld slow; mispredicts, cycles per "
				      "FREE_FROZEN free: stats on PRE %.4f %.2f POST %.4f %.2f; stats "
				      "off PRE %.4f %.2f POST %.4f %.2f\n",
				      ccs[ci] == SLUB_GCC ? "gcc" : "clang",
				      bm == BPRED_GSHARE ? "gshare" : "bimodal", (long long)pre.ff,
				      (long long)pre.slow,
				      (double)pre.mispredicts / (double)pre.ff,
				      (double)pre.cycles / (double)pre.ff,
				      (double)post.mispredicts / (double)post.ff,
				      (double)post.cycles / (double)post.ff,
				      (double)pre0.mispredicts / (double)pre0.ff,
				      (double)pre0.cycles / (double)pre0.ff,
				      (double)post0.mispredicts / (double)post0.ff,
				      (double)post0.cycles / (double)post0.ff);
		}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stats_off),
		cmocka_unit_test(test_frozen_free_cost),
		cmocka_unit_test(test_code_layout),
		cmocka_unit_test(test_frozen_stream),
		cmocka_unit_test(test_frozen_stream_sampled),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
