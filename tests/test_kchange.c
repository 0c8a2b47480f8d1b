/*
 * test_kchange — scenarios/kchange (code-change files) with
 * models/kcode (the models' names) and the cost layer's block edits
 * (cost/cpu.h cpu_block_edit, cpu_blocks_change): a file's operations,
 * its identity, positions and "did you mean" of bad names, the layout
 * operations on a layout of registered tables, the block edits gathered
 * in order and applied to costed blocks.
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
#include "cost/cost.h"
#include "cost/cpu.h"
#include "models/kcode.h"
#include "models/page_alloc.h"
#include "models/slub.h"
#include "scenarios/kchange.h"

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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kcode),
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_parse_bad),
		cmocka_unit_test(test_apply_layout),
		cmocka_unit_test(test_blocks),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
