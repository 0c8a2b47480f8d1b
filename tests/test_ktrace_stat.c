/* Tests for workloads/ktrace_stat: perf kmem stat's bookkeeping on a
 * hand-made trace whose every figure is counted in the comments: matched
 * frees, alloc-only and free-only, cross-CPU frees, bytes, rows by call
 * site sorted by bytes allocated, pages by order, migrate type and GFP. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/diag.h"
#include "workloads/ktrace.h"
#include "workloads/ktrace_stat.h"

static const char trace[] =
	/* site A: 3 x 64 on CPU 0; two freed on CPU 1 (pingpong), one on 0 */
	"  a-1 [000] 1.000001: kmalloc: call_site=A ptr=0x10 bytes_req=50 bytes_alloc=64 gfp_flags=GFP_KERNEL\n"
	"  a-1 [000] 1.000002: kmalloc: call_site=A ptr=0x20 bytes_req=60 bytes_alloc=64 gfp_flags=GFP_KERNEL\n"
	"  a-1 [000] 1.000002: kmalloc: call_site=A ptr=0x28 bytes_req=40 bytes_alloc=64 gfp_flags=GFP_KERNEL\n"
	"  b-2 [001] 1.000003: kfree: call_site=X ptr=0x10\n"
	"  a-1 [000] 1.000004: kfree: call_site=X ptr=0x20\n"
	"  b-2 [001] 1.000004: kfree: call_site=X ptr=0x28\n"
	/* site B: 1 x 512, never freed; one failure */
	"  b-2 [001] 1.000005: kmem_cache_alloc: call_site=B ptr=0x30 bytes_req=500 bytes_alloc=512 gfp_flags=GFP_KERNEL\n"
	"  b-2 [001] 1.000006: kmem_cache_alloc: call_site=B ptr=(null) bytes_req=500 bytes_alloc=512 gfp_flags=GFP_ATOMIC\n"
	/* a free of what the trace never allocated, and kfree(NULL) */
	"  b-2 [001] 1.000007: kmem_cache_free: call_site=Y ptr=0x99\n"
	"  b-2 [001] 1.000008: kfree: call_site=Y ptr=0\n"
	/* pages: order 0 movable freed on another CPU; order 3 unmovable
	 * alloc-only; a batched free of an unknown pfn; a failure */
	"  a-1 [000] 1.000010: mm_page_alloc: page=0x1 pfn=0x100 order=0 migratetype=1 gfp_flags=GFP_HIGHUSER_MOVABLE\n"
	"  b-2 [001] 1.000011: mm_page_free: page=0x1 pfn=0x100 order=0\n"
	"  a-1 [000] 1.000012: mm_page_alloc: page=0x1 pfn=0x200 order=3 migratetype=0 gfp_flags=GFP_KERNEL\n"
	"  a-1 [000] 1.000013: mm_page_free_batched: page=0x1 pfn=0x999 order=0\n"
	"  a-1 [000] 1.000014: mm_page_alloc: page=(null) pfn=0x0 order=3 migratetype=0 gfp_flags=GFP_KERNEL\n"
	"  a-1 [000] 1.000015: mm_page_alloc_zone_locked: page=0x1 pfn=0x300 order=0 migratetype=0 percpu_refill=1\n"
	"  a-1 [000] 1.000016: mm_page_alloc_zone_locked: page=0x1 pfn=0x300 order=3 migratetype=0 percpu_refill=0\n"
	"  a-1 [000] 1.000017: mm_page_pcpu_drain: page=0x1 pfn=0x300 order=0 migratetype=0\n";

static void test_summary(void **state)
{
	(void)state;
	struct ktrace t;
	struct ktrace_stat s;
	struct diag d;
	ktrace_init(&t);
	diag_init(&d);
	assert_int_equal(ktrace_parse(&t, "s.txt", trace, strlen(trace), 0, &d), NS_OK);
	assert_int_equal(ktrace_stat_compute(&t, &s), NS_OK);
	assert_int_equal(ktrace_stat_check(&s, &d), NS_OK);
	/* slab */
	assert_int_equal(s.slab_allocs, 5);
	assert_int_equal(s.slab_failed, 1);
	assert_int_equal(s.slab_frees, 5);
	assert_int_equal(s.slab_free_only, 1);
	assert_int_equal(s.slab_alloc_freed, 3);
	assert_int_equal(s.slab_alloc_only, 1);
	assert_int_equal(s.slab_pingpong, 2);
	assert_int_equal(s.bytes_req, 50 + 60 + 40 + 500);
	assert_int_equal(s.bytes_alloc, 3 * 64 + 512);
	assert_int_equal(s.bytes_freed, 3 * 64);
	assert_int_equal(s.nr_site, 2);
	assert_string_equal(ktrace_str(&t, s.site[0].call_site), "B");   /* 512 > 192 */
	assert_int_equal(s.site[0].allocs, 2);
	assert_int_equal(s.site[0].failed, 1);
	assert_int_equal(s.site[1].frees, 3);
	assert_int_equal(s.site[1].pingpong, 2);
	/* page */
	assert_int_equal(s.page_allocs, 3);
	assert_int_equal(s.page_failed, 1);
	assert_int_equal(s.page_frees, 2);
	assert_int_equal(s.page_free_only, 1);
	assert_int_equal(s.page_alloc_freed, 1);
	assert_int_equal(s.page_alloc_only, 1);
	assert_int_equal(s.page_pingpong, 1);
	assert_int_equal(s.by_order_mt[0][1], 1);
	assert_int_equal(s.by_order_mt[3][0], 2);
	assert_int_equal(s.nr_gfp, 2);
	assert_string_equal(ktrace_str(&t, s.gfp[0]), "GFP_KERNEL");     /* 2 requests */
	assert_int_equal(s.gfp_requests[0], 2);
	assert_int_equal(s.gfp_pages[0], 16);
	assert_int_equal(s.zone_locked, 2);
	assert_int_equal(s.zone_locked_refill, 1);
	assert_int_equal(s.pcpu_drain, 1);
	/* the printed report carries the same figures */
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	assert_non_null(f);
	ktrace_stat_print(&t, &s, 1, f);
	fclose(f);
	assert_non_null(strstr(buf, "Cross-CPU frees (pingpong)  : 2/3"));
	assert_non_null(strstr(buf, "... 1 more call sites"));
	assert_non_null(strstr(buf, "Total free-only requests    : 1"));
	free(buf);
	/* the check sees broken totals */
	s.slab_alloc_only++;
	assert_int_equal(ktrace_stat_check(&s, &d), NS_EINTERNAL);
	ktrace_stat_free(&s);
	ktrace_free(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_summary),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
