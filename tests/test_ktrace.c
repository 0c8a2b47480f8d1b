/* Tests for workloads/ktrace: one line of each event in each print format
 * read field by field, the line prefixes of ftrace, trace-cmd and perf
 * script, lost-events lines, errors at their column, --skip-bad, the slab
 * pages' marking, and the compact file (round trip, damage refused). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "base/diag.h"
#include "workloads/ktrace.h"

static struct ktrace *parse_ok(const char *text, int skip_bad)
{
	struct ktrace *t = malloc(sizeof *t);
	struct diag d;
	assert_non_null(t);
	ktrace_init(t);
	diag_init(&d);
	int rc = ktrace_parse(t, "t.txt", text, strlen(text), skip_bad, &d);
	if (rc)
		diag_print(&d, stderr);
	assert_int_equal(rc, NS_OK);
	assert_int_equal(ktrace_check(t, &d), NS_OK);
	return t;
}

static void done(struct ktrace *t)
{
	ktrace_free(t);
	free(t);
}

/* The error of text: its line, its column (that of the first `at` in
 * that line) and a word of its message. */
static void parse_bad(const char *text, size_t len, int line, const char *at, const char *word)
{
	struct ktrace t;
	struct diag d;
	const char *l = text;
	for (int i = 1; i < line; i++)
		l = strchr(l, '\n') + 1;
	/* NULL: column 1; "": the end of the line (strlen stops at a NUL) */
	const char *a = !at ? l : *at ? strstr(l, at) : l + strcspn(l, "\n");
	assert_non_null(a);
	ktrace_init(&t);
	diag_init(&d);
	assert_int_equal(ktrace_parse(&t, "t.txt", text, len ? len : strlen(text), 0, &d),
			 NS_EINPUT);
	assert_int_equal(d.line, line);
	assert_int_equal(d.col, (int)(a - l) + 1);
	if (!strstr(d.msg, word))
		fail_msg("'%s' not in '%s'", word, d.msg);
	assert_int_equal(t.nr, 0);
	ktrace_free(&t);
}

static void test_v46_ftrace(void **state)
{
	(void)state;
	struct ktrace *t = parse_ok(
		"# tracer: nop\n"
		"            bash-2791  [003] d..1   812.345678: mm_page_alloc: page=ffffea0001ecf080 pfn=504770 order=2 migratetype=1 gfp_flags=GFP_KERNEL|__GFP_COMP\n"
		"  kworker/1:1H-kblockd-57 [001] ....   812.5: kmalloc_node: call_site=ffffffff8157c3d5 ptr=ffff88007a2d4c00 bytes_req=640 bytes_alloc=1024 gfp_flags=GFP_KERNEL node=-1\n"
		"            bash-2791  [003] ....   812.345700: kfree: call_site=ffffffff811f0a11 ptr=          (null)\n"
		"            bash-2791  [003] ....   812.345710: mm_page_free_batched: page=ffffea0001d41000 pfn=18446744073709551615 order=0 cold=1\n"
		"            bash-2791  [003] ....   812.345720: mm_page_alloc: page=          (null) pfn=0 order=0 migratetype=0 gfp_flags=GFP_ATOMIC\n",
		0);
	assert_int_equal(t->nr, 5);
	const struct ktrace_event *e = &t->ev[0];
	assert_int_equal(e->kind, KT_MM_PAGE_ALLOC);
	assert_int_equal(e->cpu, 3);
	assert_true(e->ts_ns == 812345678000ull);
	assert_true(e->key == 504770);
	assert_int_equal(e->order, 2);
	assert_int_equal(e->migratetype, 1);
	assert_string_equal(ktrace_str(t, e->gfp), "GFP_KERNEL|__GFP_COMP");
	assert_string_equal(ktrace_str(t, e->task), "bash-2791");
	e = &t->ev[1];
	assert_int_equal(e->kind, KT_KMALLOC_NODE);
	assert_string_equal(ktrace_str(t, e->task), "kworker/1:1H-kblockd-57");
	assert_true(e->ts_ns == 812500000000ull);
	assert_true(e->key == 0xffff88007a2d4c00ull);
	assert_int_equal(e->bytes_req, 640);
	assert_int_equal(e->bytes_alloc, 1024);
	assert_int_equal(e->node, -1);
	assert_string_equal(ktrace_str(t, e->call_site), "ffffffff8157c3d5");
	e = &t->ev[2];
	assert_int_equal(e->kind, KT_KFREE);
	assert_true(e->key == 0);
	assert_int_equal(e->flags & KT_F_FAILED, 0);    /* kfree(NULL) is no failure */
	e = &t->ev[3];
	assert_true(e->key == UINT64_MAX);              /* the largest decimal pfn */
	assert_int_equal(e->flags & KT_F_COLD, KT_F_COLD);
	assert_int_equal(t->ev[4].flags & KT_F_FAILED, KT_F_FAILED);
	assert_int_equal(t->n.skipped_lines, 1);
	assert_int_equal(t->max_cpu, 3);
	done(t);
}

static void test_current_perf_and_trace_cmd(void **state)
{
	(void)state;
	struct ktrace *t = parse_ok(
		"cpus=8\n"
		"CPU 3 is empty\n"
		"     Web Content    7715 [005]  9921.100231:         kmem:kmalloc: call_site=__kvmalloc_node_noprof+0x5c ptr=0xffff888107c00000 bytes_req=24576 bytes_alloc=32768 gfp_flags=GFP_KERNEL|__GFP_NOWARN node=1 accounted=true\n"
		"\tffffffff8125b6a1 __alloc_pages+0x211 ([kernel.kallsyms])\n"
		"           nginx-4410  [000]  5196.574210: kmem_cache_free:      call_site=tcp_recvmsg+0x6a/0x1b0 [tcp_x] ptr=0xffff88810f3a7d00 name=skbuff_head_cache\n"
		"     ksoftirqd/2-22    [002]  5196.574191: mm_page_free:         page=0xffffea00041a6b40 pfn=0x1069ad order=0\n"
		"CPU:2 [LOST 17 EVENTS]\n"
		"CPU:1 [3 EVENTS DROPPED]\n"
		"            bash    3120 [002]  9921.100302:   sched:sched_wakeup: comm=cat pid=3121 prio=120 target_cpu=003\n"
		"            bash    3120 [002]  9921.100310:   kmem:rss_stat: mm_id=1 curr=1 type=MM_ANONPAGES size=4096B\n"
		"  cat-3121  (   3121) [002] d..2.  9921.100311: mm_page_alloc_zone_locked: page=0xffffea0004174000 pfn=0x105d00 order=0 migratetype=1 percpu_refill=1\n",
		0);
	assert_int_equal(t->nr, 4);
	const struct ktrace_event *e = &t->ev[0];
	assert_int_equal(e->kind, KT_KMALLOC);
	assert_string_equal(ktrace_str(t, e->task), "Web Content-7715");
	assert_int_equal(e->node, 1);
	assert_int_equal(e->flags & KT_F_ACCOUNTED, KT_F_ACCOUNTED);
	assert_string_equal(ktrace_str(t, e->call_site), "__kvmalloc_node_noprof+0x5c");
	e = &t->ev[1];
	assert_int_equal(e->kind, KT_KMEM_CACHE_FREE);
	assert_string_equal(ktrace_str(t, e->call_site), "tcp_recvmsg+0x6a/0x1b0 [tcp_x]");
	assert_string_equal(ktrace_str(t, e->cache), "skbuff_head_cache");
	assert_true(t->ev[2].key == 0x1069ad);
	e = &t->ev[3];
	assert_int_equal(e->kind, KT_MM_PAGE_ALLOC_ZONE_LOCKED);
	assert_string_equal(ktrace_str(t, e->task), "cat-3121");
	assert_int_equal(e->flags & KT_F_PERCPU_REFILL, KT_F_PERCPU_REFILL);
	assert_int_equal(t->n.lost_lines, 2);
	assert_int_equal(t->n.lost_events, 20);
	assert_int_equal(t->n.other_events, 2);
	assert_int_equal(t->n.skipped_lines, 3);
	assert_int_equal(t->n.by_kind[KT_KMALLOC], 1);
	done(t);
}

static void test_errors(void **state)
{
	(void)state;
	parse_bad("garbage\n", 0, 1, NULL, "expected an event line");
	parse_bad("  a-1 [000] 1.5: kfree: call_site=f ptr=1\n  a-1 [000] 1.5: kfree:\n", 0, 2,
		  "kfree", "lacks the field 'call_site'");
	parse_bad("  a-1 [000] 1.000001: kfree: call_site=f ptr=zz\n", 0, 1, "zz", "pointer");
	parse_bad("  a-1 [000] 1.000001: kfree: call_site=f\n", 0, 1, "kfree", "'ptr'");
	parse_bad("  a-1 [000] 1.000001: kfree: call_site=f ptr=1 ptr=2\n", 0, 1, "ptr=2",
		  "twice");
	parse_bad("  a-1 [000] 1.000001: kfree: call_site=f ptr=1 colour=3\n", 0, 1, "colour",
		  "unknown field");
	parse_bad("  a-1 [000] x: kfree: call_site=f ptr=1\n", 0, 1, "x:", "timestamp");
	parse_bad("  a-1 [70000] 1.5: kfree: call_site=f ptr=1\n", 0, 1, "70000", "CPU");
	parse_bad("  a-1 [000] 1.5: mm_page_free: page=0 pfn=1 order=11\n", 0, 1, "11",
		  "out of range");
	parse_bad("  a-1 [000] 1.5: kfree: call_site=f ptr=1 stray\n", 0, 1, "stray",
		  "KEY=VALUE");
	parse_bad("CPU:2 [LOST many EVENTS]\n", 0, 1, "many", "number");
	/* a file cut inside its last line, after a good one: the column
	 * after its last character */
	parse_bad("  a-1 [000] 1.5: kfree: call_site=f ptr=1\n  a-1 [000] 1.5: kfree: call_si",
		  0, 2, "", "truncated");
	static const char nul[] = "  a-1 [000] 1.5: kfree: call_site=f\0 ptr=1\n";
	parse_bad(nul, sizeof nul - 1, 1, "", "NUL");
}

static void test_skip_bad(void **state)
{
	(void)state;
	struct ktrace *t = parse_ok("  a-1 [000] 1.5: kfree: call_site=f ptr=1\n"
				    "garbage\n"
				    "  a-1 [000] 1.6: kfree: call_site=f\n"
				    "  a-1 [000] 1.7: kfree: call_site=f ptr=2\n", 1);
	assert_int_equal(t->nr, 2);
	assert_int_equal(t->n.bad_lines, 2);
	assert_int_equal(t->n.lines, 4);
	done(t);
}

static void test_slab_pages(void **state)
{
	(void)state;
	/* CPU 0: a page then a kmalloc (a new slab's page, with a refill
	 * event between them); CPU 1 interleaved: its own page alloc stays;
	 * the slab page's later free is marked, a reused pfn is not */
	struct ktrace *t = parse_ok(
		"  a-1 [000] 1.000001: mm_page_alloc: page=0x1 pfn=100 order=0 migratetype=0 gfp_flags=GFP_KERNEL\n"
		"  b-2 [001] 1.000002: mm_page_alloc: page=0x1 pfn=200 order=0 migratetype=1 gfp_flags=GFP_KERNEL\n"
		"  a-1 [000] 1.000003: mm_page_alloc_zone_locked: page=0x1 pfn=300 order=0 migratetype=0 percpu_refill=1\n"
		"  a-1 [000] 1.000004: kmalloc: call_site=f ptr=5 bytes_req=8 bytes_alloc=8 gfp_flags=GFP_KERNEL\n"
		"  b-2 [001] 1.000005: mm_page_free: page=0x1 pfn=100 order=0\n"
		"  b-2 [001] 1.000006: mm_page_alloc: page=0x1 pfn=100 order=0 migratetype=1 gfp_flags=GFP_KERNEL\n"
		"  b-2 [001] 1.000007: mm_page_free: page=0x1 pfn=100 order=0\n"
		/* a movable page is a task's, whatever follows it */
		"  b-2 [001] 1.000008: mm_page_alloc: page=0x1 pfn=400 order=0 migratetype=1 gfp_flags=GFP_HIGHUSER_MOVABLE\n"
		"  b-2 [001] 1.000009: kmalloc: call_site=f ptr=6 bytes_req=8 bytes_alloc=8 gfp_flags=GFP_KERNEL\n",
		0);
	assert_int_equal(t->ev[0].flags & KT_F_SLAB_PAGE, KT_F_SLAB_PAGE);
	assert_int_equal(t->ev[1].flags & KT_F_SLAB_PAGE, 0);
	assert_int_equal(t->ev[4].flags & KT_F_SLAB_PAGE, KT_F_SLAB_PAGE);
	assert_int_equal(t->ev[5].flags & KT_F_SLAB_PAGE, 0);
	assert_int_equal(t->ev[6].flags & KT_F_SLAB_PAGE, 0);
	assert_int_equal(t->ev[7].flags & KT_F_SLAB_PAGE, 0);
	done(t);
}

static void test_compact(void **state)
{
	(void)state;
	struct ktrace *t = parse_ok(
		"  a-1 [007] 1.000001: mm_page_alloc: page=0 pfn=0x64 order=3 migratetype=2 gfp_flags=GFP_KERNEL\n"
		"CPU:2 [LOST 4 EVENTS]\n"
		"  a-1 [000] 1.000004: kmem_cache_alloc: call_site=f+0x1/0x2 ptr=0x5 name=filp bytes_req=8 bytes_alloc=16 gfp_flags=GFP_KERNEL node=0 accounted=false\n",
		0);
	char *bin;
	size_t len;
	struct ktrace u;
	struct diag d;
	assert_int_equal(ktrace_write_compact(t, &bin, &len), NS_OK);
	assert_true(ktrace_is_compact(bin, len));
	ktrace_init(&u);
	diag_init(&d);
	assert_int_equal(ktrace_read(&u, "c.nst", bin, len, 0, &d), NS_OK);
	assert_int_equal(u.nr, t->nr);
	assert_memory_equal(u.ev, t->ev, t->nr * sizeof *t->ev);
	assert_int_equal(u.nr_str, t->nr_str);
	for (uint32_t i = 0; i < u.nr_str; i++)
		assert_string_equal(ktrace_str(&u, i), ktrace_str(t, i));
	assert_true(u.n.lost_events == 4 && u.n.lines == 3 && u.max_cpu == 7);
	assert_int_equal(ktrace_check(&u, &d), NS_OK);
	ktrace_free(&u);
	/* damage: truncated, padded, another version, a bad record */
	assert_int_equal(ktrace_read(&u, "c.nst", bin, len - 1, 0, &d), NS_EINPUT);
	assert_non_null(strstr(d.msg, "truncated"));
	bin[8] = 2;
	diag_init(&d);
	assert_int_equal(ktrace_read(&u, "c.nst", bin, len, 0, &d), NS_EINPUT);
	assert_non_null(strstr(d.msg, "version 2"));
	bin[8] = 1;
	bin[len - 48 + 42] = KT_NR_KINDS;             /* the last record's kind */
	diag_init(&d);
	assert_int_equal(ktrace_read(&u, "c.nst", bin, len, 0, &d), NS_EINPUT);
	assert_non_null(strstr(d.msg, "record 2"));
	assert_int_equal(u.nr, 0);
	free(bin);
	done(t);
}

static void test_check_catches_damage(void **state)
{
	(void)state;
	struct ktrace *t = parse_ok("  a-1 [000] 1.5: kfree: call_site=f ptr=1\n", 0);
	struct diag d;
	diag_init(&d);
	t->ev[0].call_site = 99;
	assert_int_equal(ktrace_check(t, &d), NS_EINTERNAL);
	t->ev[0].call_site = 0;
	t->n.by_kind[KT_KFREE]++;
	assert_int_equal(ktrace_check(t, &d), NS_EINTERNAL);
	t->n.by_kind[KT_KFREE]--;
	assert_int_equal(ktrace_check(t, &d), NS_OK);
	done(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_v46_ftrace),
		cmocka_unit_test(test_current_perf_and_trace_cmd),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_skip_bad),
		cmocka_unit_test(test_slab_pages),
		cmocka_unit_test(test_compact),
		cmocka_unit_test(test_check_catches_damage),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
