/*
 * test_kchange — scenarios/kchange (code-change files) with
 * models/kcode (the models' names) and the cost layer's block edits
 * (cost/cpu.h cpu_block_edit, cpu_blocks_change): a file's operations,
 * its identity, positions and "did you mean" of bad names, the layout
 * operations on a layout of registered tables, the block edits gathered
 * in order and applied to costed blocks, and calls behind a static key:
 * their operations, errors and the cost layer's muting (cost/cpu_key.c)
 * on the fixture model of tests/cpu_fixture.h.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "base/diag.h"
#include "cost/charge.h"
#include "cost/cost.h"
#include "cost/cpu.h"
#include "models/kcode.h"
#include "models/page_alloc.h"
#include "models/slub.h"
#include "scenarios/kchange.h"
#include "tests/cpu_fixture.h"

static struct kchange *parse_ok(const char *text)
{
	struct kchange *c = NULL;
	struct diag d;
	diag_init(&d);
	int rc = kchange_parse("t.yaml", text, strlen(text), &c, &d);
	if (rc)
		fprintf(stderr, "%s\n", d.msg);
	assert_int_equal(rc, NS_OK);
	assert_int_equal(kchange_check(c, &d), NS_OK);
	return c;
}

/* The error of a bad text: its line, column and a substring. */
static void parse_bad(const char *text, int line, int col, const char *want)
{
	struct kchange *c = NULL;
	struct diag d;
	diag_init(&d);
	assert_int_equal(kchange_parse("t.yaml", text, strlen(text), &c, &d), NS_EINPUT);
	assert_null(c);
	if (d.line != line || d.col != col || !strstr(d.msg, want))
		fprintf(stderr, "got %d:%d: %s\n", d.line, d.col, d.msg);
	assert_int_equal(d.line, line);
	assert_int_equal(d.col, col);
	assert_non_null(strstr(d.msg, want));
}

static void test_kcode(void **state)
{
	(void)state;
	assert_int_equal(kcode_check(), NS_OK);
	const char *rel, *file;
	assert_int_equal(kcode_line(KCODE_SITE, "A48", &rel, &file), 3370);
	assert_string_equal(rel, "v4.6.2");
	assert_string_equal(file, "mm/page_alloc.c");
	assert_int_equal(kcode_line(KCODE_FN, "__slab_free", &rel, &file), 2958);
	assert_string_equal(rel, "v5.9.1");
	assert_int_equal(kcode_line(KCODE_FN, "A48", &rel, &file), 0);  /* a site, not a function */
	assert_null(rel);
	assert_null(file);
	int idx;
	assert_int_equal(kcode_find(KCODE_FN, "zone_statistics", &idx), 0);
	assert_int_equal(kcode_find(KCODE_FN, "__dec_zone_state", &idx), 1);
	assert_int_equal(kcode_find(KCODE_SITE, "PRE6b", &idx), 2);
	assert_int_equal(kcode_find(KCODE_SITE, "zr_full", &idx), 3);
	assert_int_equal(kcode_find(KCODE_BLOCK, "watermark_fast", &idx), 1);
	assert_int_equal(kcode_find(KCODE_BLOCK, "no_such", &idx), -1);
	assert_string_equal(kcode_suggest(KCODE_FN, "zone_statistic", 14), "zone_statistics");
	assert_string_equal(kcode_suggest(KCODE_BLOCK, "alloc_nodemsk", 13), "alloc_nodemask");
	assert_null(kcode_suggest(KCODE_SITE, "nothing_like_it_at_all", 22));
}

static void test_parse(void **state)
{
	(void)state;
	struct kchange *c = parse_ok("operations:\n"
				     "  - inline: zone_statistics\n"
				     "  - out-of-line: buffered_rmqueue\n"
				     "  - site: A48\n    hint: likely\n    fall-through: hinted\n"
				     "  - site: A36a\n    fall-through: false\n"
				     "  - block: buffered_pcp\n    uops: -3\n    dep-loads: 1\n"
				     "    loads: 2\n    stores: 1\n"
				     "  - block: alloc_nodemask\n    static-key: on\n");
	assert_string_equal(c->name, "t");  /* the file's name without .yaml */
	assert_int_equal(c->nr, 6);
	assert_int_equal(c->ops[0].kind, KCH_INLINE);
	assert_int_equal(c->ops[0].line, 2);
	assert_int_equal(c->ops[0].col, 13);
	assert_int_equal(c->ops[1].kind, KCH_OUTLINE);
	assert_int_equal(c->ops[2].hint, COST_HINT_LIKELY);
	assert_int_equal(c->ops[2].ft, COST_FT_HINTED);
	assert_int_equal(c->ops[3].hint, KCH_KEEP);
	assert_int_equal(c->ops[3].ft, 0);
	assert_int_equal(c->ops[4].uops, -3);
	assert_string_equal(c->ops[4].add, "DLLS");
	assert_int_equal(c->ops[5].kind, KCH_KEY);
	assert_int_equal(c->ops[5].uops, 1);
	assert_int_equal(strlen(c->sha256), SHA256_HEX_LEN);
	assert_int_equal(strncmp(c->ident, "t@", 2), 0);
	assert_int_equal(strlen(c->ident), 2 + 12);
	/* another byte, another identity */
	struct kchange *c2 = parse_ok("operations:\n  - inline: zone_statistics\n\n");
	assert_string_not_equal(c->sha256, c2->sha256);
	kchange_free(c2);
	kchange_free(c);
	c = parse_ok("change: mine\ndescription: \"x\"\noperations: [{inline: expand}]\n");
	assert_string_equal(c->name, "mine");
	assert_string_equal(c->description, "x");
	kchange_free(c);
}

static void test_parse_bad(void **state)
{
	(void)state;
	parse_bad("operations:\n  - inline: zone_statistic\n", 2, 13, "did you mean 'zone_statistics'");
	parse_bad("operations:\n  - site: A48q\n    hint: none\n", 2, 11, "unknown site 'A48q'");
	parse_bad("operations:\n  - block: x\n    uops: 1\n", 2, 12, "unknown block 'x'");
	parse_bad("operations:\n  - inlin: expand\n", 2, 5, "did you mean 'inline'");
	parse_bad("operations:\n  - site: A48\n", 2, 5, "sets hint, fall-through or both");
	parse_bad("operations:\n  - site: A48\n    hint: maybe\n", 3, 11, "hint must be");
	parse_bad("operations:\n  - block: watermark\n    static-key: off\n", 3, 17,
		  "makes memory accesses");
	parse_bad("operations:\n  - block: buffered_pcp\n    loads: 5\n    stores: 4\n", 4, 13,
		  "at most 8 accesses");
	parse_bad("operations:\n  - site: A36a\n    fixed: yes\n", 3, 12,
		  "fixed must be true or false");
	parse_bad("operations:\n  - site: A36a\n    fall-through: true\n    fixed: true\n", 3, 19,
		  "'fall-through' does not go with fixed");
	parse_bad("operations:\n  - block: buffered_pcp\n    fixed: true\n", 3, 12,
		  "'fixed' goes with a site, not a block");
	parse_bad("change: x\n", 1, 1, "operations");
	parse_bad("operations: []\n", 1, 13, "operations is empty");
}

/* Layout operations on the page allocator's and SLUB's registered tables. */
static void test_apply_layout(void **state)
{
	(void)state;
	struct cost_tables t;
	struct cost_layout l;
	int fn, site, sfn, ssite;
	struct mm_config cfg;
	struct slub_config sc;
	struct diag d;
	diag_init(&d);
	cost_tables_init(&t);
	assert_int_equal(mm_register(&t, &fn, &site), NS_OK);
	assert_int_equal(slub_register(&t, &sfn, &ssite), NS_OK);
	assert_int_equal(cost_layout_init(&l, &t, "t"), NS_OK);
	mm_config_default(&cfg);
	slub_config_default(&sc);
	assert_int_equal(mm_layout_config(&l, &t, fn, site, &cfg, MM_CODE_ESTIMATE), NS_OK);
	assert_int_equal(slub_layout(&l, &t, sfn, ssite, &sc), NS_OK);
	int zs = cost_fn_lookup(&t, "zone_statistics"), br = cost_fn_lookup(&t, "buffered_rmqueue");
	int a36a = cost_site_lookup(&t, "A36a"), pre6b = cost_site_lookup(&t, "PRE6b");
	assert_true(l.fn_inline[zs] && l.fn_inline[br]);
	assert_int_equal(l.site[a36a].fallthrough, 1);
	assert_int_equal(l.site[pre6b].hint, COST_HINT_NONE);
	struct kchange *c = parse_ok("operations:\n  - out-of-line: zone_statistics\n"
				     "  - site: A36a\n    fall-through: false\n"
				     "  - site: PRE6b\n    hint: unlikely\n");
	assert_int_equal(kchange_apply_layout(c, &l, &t, &d), NS_OK);
	assert_false(l.fn_inline[zs]);
	assert_true(l.fn_inline[br]);
	assert_int_equal(l.site[a36a].fallthrough, 0);
	assert_int_equal(l.site[pre6b].hint, COST_HINT_UNLIKELY);
	assert_int_equal(l.site[pre6b].fallthrough, 0);  /* kept: gcc's */
	assert_int_equal(cost_layout_check(&l, &t), NS_OK);
	kchange_free(c);
	/* a site's test removed, its condition fixed */
	c = parse_ok("operations:\n  - site: A36a\n    fixed: false\n"
		     "  - site: PRE6b\n    fixed: true\n");
	assert_int_equal(c->ops[0].kind, KCH_FIX);
	assert_int_equal(c->ops[0].fixed, 0);
	assert_int_equal(c->ops[1].fixed, 1);
	assert_int_equal(l.nr_fixed, 0);
	assert_int_equal(kchange_apply_layout(c, &l, &t, &d), NS_OK);
	assert_int_equal(l.site[a36a].fixed, 1);
	assert_int_equal(l.site[pre6b].fixed, 2);
	assert_int_equal(l.site[a36a].fallthrough, 0);   /* the layout kept */
	assert_int_equal(l.nr_fixed, 2);
	assert_int_equal(cost_layout_check(&l, &t), NS_OK);
	kchange_free(c);
	/* a series name in tables without the series: refused at its place */
	c = parse_ok("operations:\n  - site: A48p\n    hint: none\n");
	assert_int_equal(kchange_apply_layout(c, &l, &t, &d), NS_EINPUT);
	assert_int_equal(d.line, 2);
	assert_int_equal(d.col, 11);
	kchange_free(c);
	cost_layout_free(&l);
	cost_tables_free(&t);
}

static void test_blocks(void **state)
{
	(void)state;
	struct diag d;
	diag_init(&d);
	struct kchange *a = parse_ok("operations:\n  - block: buffered_pcp\n    uops: 4\n    loads: 3\n"
				     "  - inline: expand\n");
	struct kchange *b = parse_ok("operations:\n  - block: buffered_pcp\n    uops: -100\n"
				     "    stores: 5\n"
				     "  - block: alloc_entry\n    dep-loads: 1\n");
	struct cpu_block_change ch[8];
	int n = 0;
	assert_int_equal(kchange_block_changes(a, ch, &n, 8, &d), NS_OK);
	assert_int_equal(n, 1);
	assert_int_equal(kchange_block_changes(b, ch, &n, 8, &d), NS_OK);
	assert_int_equal(n, 3);
	assert_string_equal(ch[1].block, "buffered_pcp");
	assert_string_equal(ch[1].add, "SSSSS");
	/* one more load on buffered_pcp would pass 8 added accesses */
	struct kchange *c = parse_ok("operations:\n  - block: buffered_pcp\n    loads: 1\n");
	assert_int_equal(kchange_block_changes(c, ch, &n, 8, &d), NS_EINPUT);
	assert_int_equal(d.line, 2);
	kchange_free(c);
	/* applied in order to costed blocks, by name */
	struct cpu_costs k;
	memset(&k, 0, sizeof k);
	k.l1d = 4;
	k.mem_slot = 1;
	struct cpu_block blocks[2];
	static const char *const names[] = {"buffered_pcp", "other"};
	assert_int_equal(cpu_block_init(&blocks[0], 20, "DD", 7, &k), NS_OK);
	assert_int_equal(cpu_block_init(&blocks[1], 9, "", -1, &k), NS_OK);
	assert_int_equal(cpu_blocks_change(blocks, names, 2, ch, n), NS_OK);
	assert_int_equal(blocks[0].uops, 0);      /* 20 + 4 - 100, kept at none */
	assert_int_equal(blocks[0].work, 0);
	assert_int_equal(blocks[0].nacc, 2);      /* the declared accesses stay */
	assert_int_equal(blocks[0].nextra, 8);
	assert_int_equal(blocks[0].extra & 3, 1); /* L first, then the stores */
	assert_int_equal((blocks[0].extra >> 6) & 3, 2);
	assert_int_equal(blocks[1].uops, 9);      /* alloc_entry is not here */
	assert_int_equal(blocks[1].nextra, 0);
	assert_int_equal(cpu_block_edit(&blocks[0], 0, "L"), NS_EINPUT);
	assert_int_equal(cpu_block_edit(&blocks[1], 0, "X"), NS_EINPUT);
	kchange_free(a);
	kchange_free(b);
}

static void test_calls_parse(void **state)
{
	(void)state;
	struct kchange *c = parse_ok("operations:\n"
				     "  - call: buffered_rmqueue -> zone_statistics\n"
				     "    static-key: off\n"
				     "  - function: check_new_page\n    static-key: on\n"
				     "  - call: 'zone_statistics->__inc_zone_state'\n"
				     "    static-key: off\n");
	assert_int_equal(c->nr, 3);
	assert_int_equal(c->ops[0].kind, KCH_CALL);
	assert_string_equal(c->ops[0].caller, "buffered_rmqueue");
	assert_string_equal(c->ops[0].name, "zone_statistics");
	assert_int_equal(c->ops[0].key_on, 0);
	assert_int_equal(c->ops[0].line, 2);
	assert_int_equal(c->ops[0].col, 31);          /* the callee's column */
	assert_int_equal(c->ops[0].model, 0);
	assert_null(c->ops[1].caller);
	assert_int_equal(c->ops[1].key_on, 1);
	assert_string_equal(c->ops[2].caller, "zone_statistics");
	assert_string_equal(c->ops[2].name, "__inc_zone_state");
	kchange_free(c);
	/* the errors, each at the name it is about */
	parse_bad("operations:\n  - call: bufered_rmqueue -> zone_statistics\n    static-key: off\n",
		  2, 11, "unknown caller function 'bufered_rmqueue' (did you mean 'buffered_rmqueue'");
	parse_bad("operations:\n  - call: buffered_rmqueue -> zone_statistic\n    static-key: off\n",
		  2, 31, "did you mean 'zone_statistics'");
	parse_bad("operations:\n  - call: buffered_rmqueue -> __mod_zone_page_state\n"
		  "    static-key: off\n", 2, 31, "accepted callees: zone_statistics, "
		  "__inc_zone_state, inc_zone_page_state, check_new_page, free_pages_check");
	parse_bad("operations:\n  - function: expand\n    static-key: off\n", 2, 15,
		  "the calls of 'expand' cannot be put behind a static key");
	parse_bad("operations:\n  - call: prep_new_page -> zone_statistics\n    static-key: off\n",
		  2, 11, "'prep_new_page' does not call 'zone_statistics' in the model (its "
		  "callers: buffered_rmqueue;");
	parse_bad("operations:\n  - call: buffered_rmqueue zone_statistics\n    static-key: off\n",
		  2, 11, "call is written 'CALLER -> CALLEE'");
	parse_bad("operations:\n  - call: buffered_rmqueue -> zone_statistics\n", 2, 5,
		  "a call operation sets static-key: on or off");
	parse_bad("operations:\n  - function: zone_statistics\n    static-key: of\n", 3, 17,
		  "static-key must be on or off");
	parse_bad("operations:\n  - function: zone_statistics\n    static-key: off\n    uops: 1\n",
		  4, 11, "'uops' does not go with function");
	parse_bad("operations:\n  - function: zone_statistics\n    block: x\n", 2, 5,
		  "names one of inline, out-of-line, site, block, call or function (got 2)");
}

/* A key applied to a layout of the registered tables; refused where the
 * tables do not have the callee. */
static void test_calls_layout(void **state)
{
	(void)state;
	struct cost_tables t;
	struct cost_layout l;
	int fn, site;
	struct diag d;
	diag_init(&d);
	cost_tables_init(&t);
	assert_int_equal(mm_register(&t, &fn, &site), NS_OK);
	assert_int_equal(cost_layout_init(&l, &t, "t"), NS_OK);
	struct kchange *c = parse_ok("operations:\n"
				     "  - function: check_new_page\n    static-key: on\n"
				     "  - call: buffered_rmqueue -> zone_statistics\n"
				     "    static-key: off\n");
	assert_int_equal(kchange_apply_layout(c, &l, &t, &d), NS_OK);
	int zs = cost_fn_lookup(&t, "zone_statistics"), br = cost_fn_lookup(&t, "buffered_rmqueue");
	int cnp = cost_fn_lookup(&t, "check_new_page"), pnp = cost_fn_lookup(&t, "prep_new_page");
	assert_int_equal(l.nr_keys, 2);
	const struct cost_call_key *k = cost_layout_call_key(&l, br, zs);
	assert_non_null(k);
	assert_int_equal(k->on, 0);
	assert_null(cost_layout_call_key(&l, pnp, zs));      /* another caller */
	k = cost_layout_call_key(&l, pnp, cnp);              /* every caller */
	assert_non_null(k);
	assert_int_equal(k->on, 1);
	/* a later key of the same call wins */
	assert_int_equal(cost_layout_key_call(&l, pnp, cnp, false), NS_OK);
	assert_int_equal(cost_layout_call_key(&l, pnp, cnp)->on, 0);
	assert_int_equal(cost_layout_call_key(&l, br, cnp)->on, 1);
	assert_int_equal(cost_layout_check(&l, &t), NS_OK);
	assert_int_equal(cost_layout_key_call(&l, -2, cnp, false), NS_EINTERNAL);
	kchange_free(c);
	cost_layout_free(&l);
	cost_tables_free(&t);
	/* SLUB's tables alone: the page allocator's callee is not there */
	int sfn, ssite;
	cost_tables_init(&t);
	assert_int_equal(slub_register(&t, &sfn, &ssite), NS_OK);
	assert_int_equal(cost_layout_init(&l, &t, "t"), NS_OK);
	c = parse_ok("operations:\n  - function: zone_statistics\n    static-key: off\n");
	assert_int_equal(kchange_apply_layout(c, &l, &t, &d), NS_EINPUT);
	assert_int_equal(d.line, 2);
	assert_int_equal(d.col, 15);
	assert_non_null(strstr(d.msg, "callee 'zone_statistics' is not in this run's model"));
	kchange_free(c);
	cost_layout_free(&l);
	cost_tables_free(&t);
}

/* The fixture's CPUs with a key on the calls of leaf_fn from caller
 * (key -1: none; 0 off; 1 on). */
static struct world *key_world(enum cpu_model model, enum cpu_accounting acc, int key,
			       int caller)
{
	struct cpu_params p;
	cpu_params_default(&p);
	p.model = model;
	p.accounting = acc;
	p.bpred.mode = BPRED_BIMODAL;
	struct world *w = calloc(1, sizeof *w);
	assert_non_null(w);
	fix_machine(&w->m);
	fix_ooo_figs(&w->m.costs);
	assert_int_equal(fix_tables(&w->t), NS_OK);
	assert_int_equal(cost_layout_init(&w->l, &w->t, "test"), NS_OK);
	if (key >= 0)
		assert_int_equal(cost_layout_key_call(&w->l, caller, FIX_FN_leaf_fn, key), NS_OK);
	int cpus[] = {0, 1, 2, 3};
	assert_int_equal(cpu_sys_init(&w->s, &w->m, &w->t, &w->l, &p, cpus, 4), NS_OK);
	return w;
}

/*
 * 40 top-level calls of outer_fn, each with its own work, a load and a
 * loop branch, and (with_leaf) a call of leaf_fn that does every kind of
 * step: two branches, a load of a new line, a locked op, a lock, irq
 * save and restore, a block with an added access, work and a nested call
 * of helper_fn.  Then one access to a line only leaf_fn touched and one
 * branch at leaf_fn's site, in outer_fn (their cost shows whether the
 * caches and the predictor saw leaf_fn).
 */
static void key_calls(struct cpu *c, bool with_leaf)
{
	static struct cpu_lock lk;
	struct cpu_costs k;
	memset(&k, 0, sizeof k);
	struct cpu_block b;
	assert_int_equal(cpu_block_init(&b, 6, "", -1, &k), NS_OK);
	assert_int_equal(cpu_block_edit(&b, 0, "L"), NS_OK);
	cpu_lock_init(&lk);
	for (unsigned i = 0; i < 40; i++) {
		cpu_call(c, FIX_FN_outer_fn);
		cpu_insns(c, 5);
		cpu_mem(c, 0x1000, 8, 0, CPU_LOAD_DEP);
		if (with_leaf) {
			cpu_call(c, FIX_FN_leaf_fn);
			cpu_branch(c, FIX_SITE_T1, i % 3 == 0);
			cpu_branch(c, FIX_SITE_T2, i & 1);
			cpu_mem(c, 0x100000 + 64 * (uint64_t)i, 8, 1, CPU_LOAD_DEP);
			cpu_atomic(c, 0x200000, 0);
			assert_int_equal(cpu_lock(c, &lk), NS_OK);
			assert_int_equal(cpu_unlock(c, &lk), NS_OK);
			cpu_irq_save(c);
			cpu_block(c, &b);
			cpu_work(c, 3);
			cpu_irq_restore(c);
			cpu_call(c, FIX_FN_helper_fn);
			cpu_branch(c, FIX_SITE_T3, false);
			cpu_ret(c);
			cpu_ret(c);
		}
		cpu_branch(c, FIX_SITE_T4, i < 39);
		cpu_ret(c);
	}
	cpu_call(c, FIX_FN_outer_fn);
	cpu_mem(c, 0x100000, 8, 1, CPU_LOAD_DEP);
	cpu_branch(c, FIX_SITE_T1, true);
	cpu_ret(c);
}

static void key_free(struct world *w)
{
	memo_world_free(w);
}

static void assert_same_cpu(struct world *a, struct world *b)
{
	const struct cpu *x = &a->s.cpu[0], *y = &b->s.cpu[0];
	assert_int_equal(x->now, y->now);
	for (int i = 0; i < CPU_NR_COUNTERS; i++)
		assert_int_equal(x->ctr[i], y->ctr[i]);
	for (int f = 0; f < FIX_NR_FN; f++) {
		assert_int_equal(x->prof[f].calls, y->prof[f].calls);
		assert_int_equal(x->prof[f].self, y->prof[f].self);
		assert_int_equal(x->prof[f].total, y->prof[f].total);
	}
	for (int s = 0; s < FIX_NR_SITE; s++) {
		assert_int_equal(x->site[s].executed, y->site[s].executed);
		assert_int_equal(x->site[s].mispredicted, y->site[s].mispredicted);
	}
}

static void test_calls_cpu(void **state)
{
	(void)state;
	for (int model = 0; model < 2; model++) {
		enum cpu_model m = model ? CPU_MODEL_OOO : CPU_MODEL_INORDER;
		/* off: the CPU as if the call had never been made, to the cycle,
		 * the counter, the profile and the predictor and cache state */
		struct world *none = key_world(m, CPU_ACCOUNTING_EXACT, -1, -1);
		struct world *off = key_world(m, CPU_ACCOUNTING_EXACT, 0, FIX_FN_outer_fn);
		struct world *off_memo = key_world(m, CPU_ACCOUNTING_MEMO, 0, -1);
		key_calls(&none->s.cpu[0], false);
		key_calls(&off->s.cpu[0], true);
		key_calls(&off_memo->s.cpu[0], true);
		assert_same_cpu(none, off);
		assert_same_cpu(none, off_memo);      /* memo runs it exactly */
		assert_int_equal(off->s.cpu[0].prof[FIX_FN_leaf_fn].calls, 0);
		assert_int_equal(off->s.cpu[0].prof[FIX_FN_helper_fn].calls, 0);
		assert_int_equal(off->s.cpu[0].mlog_on, 0);
		/* the keyed world did make the call's steps: without the key
		 * they cost */
		struct world *made = key_world(m, CPU_ACCOUNTING_EXACT, -1, -1);
		key_calls(&made->s.cpu[0], true);
		assert_true(made->s.cpu[0].now > none->s.cpu[0].now + 40 * 10);
		/* on: the call plus one uop each */
		struct world *on = key_world(m, CPU_ACCOUNTING_EXACT, 1, -1);
		key_calls(&on->s.cpu[0], true);
		const struct cpu *a = &made->s.cpu[0], *o = &on->s.cpu[0];
		assert_int_equal(o->prof[FIX_FN_leaf_fn].calls, 40);
		if (m == CPU_MODEL_INORDER) {
			assert_int_equal(o->now, a->now + 40);   /* ceil(1 / IPC) each */
			assert_int_equal(o->ctr[CPU_CTR_work_cycles], a->ctr[CPU_CTR_work_cycles] + 40);
		} else {
			assert_int_equal(o->ctr[CPU_CTR_uops], a->ctr[CPU_CTR_uops] + 40);
			assert_true(o->now >= a->now);
		}
		/* the uop is the caller's */
		assert_true(o->prof[FIX_FN_outer_fn].self >= a->prof[FIX_FN_outer_fn].self);
		assert_int_equal(o->prof[FIX_FN_leaf_fn].self, a->prof[FIX_FN_leaf_fn].self);
		/* a key of another caller leaves these calls alone */
		struct world *other = key_world(m, CPU_ACCOUNTING_EXACT, 0, FIX_FN_helper_fn);
		key_calls(&other->s.cpu[0], true);
		assert_same_cpu(made, other);
		key_free(none);
		key_free(off);
		key_free(off_memo);
		key_free(made);
		key_free(on);
		key_free(other);
	}
	/* sampled cannot mute a fast call's steps: refused */
	struct world w;
	struct cpu_params p;
	cpu_params_default(&p);
	p.accounting = CPU_ACCOUNTING_SAMPLED;
	fix_machine(&w.m);
	assert_int_equal(fix_tables(&w.t), NS_OK);
	assert_int_equal(cost_layout_init(&w.l, &w.t, "test"), NS_OK);
	assert_int_equal(cost_layout_key_call(&w.l, -1, FIX_FN_leaf_fn, false), NS_OK);
	int cpus[] = {0};
	assert_int_equal(cpu_sys_init(&w.s, &w.m, &w.t, &w.l, &p, cpus, 1), NS_ERANGE);
	cost_layout_free(&w.l);
	cost_tables_free(&w.t);
	fix_machine_free(&w.m);
}

/* A model's same-line memo is forgotten when a muted call returns: it may
 * name a line the call never touched. */
static void test_calls_memo(void **state)
{
	(void)state;
	struct world *w = key_world(CPU_MODEL_INORDER, CPU_ACCOUNTING_EXACT, 0, -1);
	struct charge_memo memo[4];
	for (int i = 0; i < 4; i++)
		memo[i] = (struct charge_memo){.last_line = 7, .last_write = false};
	assert_int_equal(cpu_sys_add_memo(&w->s, memo), NS_OK);
	struct cpu *c = &w->s.cpu[1];
	cpu_call(c, FIX_FN_outer_fn);
	cpu_ret(c);
	assert_int_equal(memo[1].last_line, 7);            /* no muted call yet */
	cpu_call(c, FIX_FN_outer_fn);
	cpu_call(c, FIX_FN_leaf_fn);
	assert_int_equal(c->mlog_on, CPU_LOG_MUTE);
	cpu_ret(c);
	assert_int_equal(c->mlog_on, 0);
	assert_true(memo[1].last_line == UINT64_MAX);
	assert_int_equal(memo[0].last_line, 7);            /* another CPU's */
	cpu_ret(c);
	cpu_sys_remove_memo(&w->s, memo);
	assert_int_equal(w->s.nr_memos, 0);
	key_free(w);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kcode),
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_parse_bad),
		cmocka_unit_test(test_apply_layout),
		cmocka_unit_test(test_blocks),
		cmocka_unit_test(test_calls_parse),
		cmocka_unit_test(test_calls_layout),
		cmocka_unit_test(test_calls_cpu),
		cmocka_unit_test(test_calls_memo),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
