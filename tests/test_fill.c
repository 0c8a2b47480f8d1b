/*
 * Tests for workloads/wl_fill (the fill workload): on two 64 MiB nodes
 * with node 0 80 % page cache, mode 0 spills to node 1 and mode 1 stays
 * local with zone_reclaim; the metrics add up (reads + refaults = kept
 * pages x passes, remote pages = remote reads); every page is released by
 * the end (nothing allocated, empty LRUs, mm_check); a lifetime releases
 * pages as it goes; a bad prefill node is NS_EINPUT; the same seed gives
 * the same result.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/diag.h"
#include "models/page_alloc.h"
#include "workloads/wl_fill.h"
#include "cost/cpu.h"
#include "machine/machine.h"
#include "tests/page_alloc_fixture.h"
#include "tests/test_costs_yaml.h"

/* two nodes of Normal 64 MiB; CPUs 0-1 on node 0, 2-3 on node 1 */
static const char m_two[] =
	"name: two\nnodes:\n  - id: 0\n    cpus: \"0-1\"\n    zones:\n"
	"      - {type: Normal, size: 64MiB}\n"
	"  - id: 1\n    cpus: \"2-3\"\n    zones:\n"
	"      - {type: Normal, size: 64MiB}\n"
	"distance:\n  - [10, 21]\n  - [21, 10]\n" TEST_COSTS_YAML;

static struct tw *fw_create(uint32_t mode)
{
	struct mm_config cfg;
	mm_config_default(&cfg);
	cfg.reclaim.enabled = 1;
	cfg.zone_reclaim_mode = mode;
	static const int cpus[] = {0, 1, 3};   /* task CPU 0; kswapd CPUs 1 and 3 */
	return tw_create_cpus(tw_machine(m_two), &cfg, cpus, 3);
}

static struct wl_fill_params params(void)
{
	struct wl_fill_params p;
	wl_fill_params_default(&p);
	p.nr_cpus = 1;
	p.cpus[0] = 0;
	p.anon = 0.5;
	p.prefill_node = 0;
	p.prefill_file = 0.8;
	return p;
}

static void run(uint32_t mode, const struct wl_fill_params *p, struct wl_fill_result *r)
{
	struct tw *t = fw_create(mode);
	struct diag d;
	diag_init(&d);
	assert_int_equal(wl_fill_run(t->w, &t->s, p, 1, NULL, NULL, r, &d), NS_OK);
	struct mm_zone_info zi;
	for (int n = 0; n < 2; n++) {
		assert_int_equal(mm_zone_get_info(t->w, n, ZONE_NORMAL, 0, &zi), NS_OK);
		assert_int_equal(zi.allocated, 0);          /* everything released */
		struct mm_lru_info li;
		assert_int_equal(mm_zone_lru_info(t->w, n, ZONE_NORMAL, &li), NS_OK);
		for (int l = 0; l < MM_NR_LRU_LISTS; l++)
			assert_int_equal(li.nr[l], 0);
	}
	tw_destroy(t);
}

static void test_spill_vs_reclaim(void **state)
{
	(void)state;
	struct wl_fill_params p = params();
	static struct wl_fill_result r0, r1;
	run(0, &p, &r0);
	run(1, &p, &r1);
	assert_int_equal(r0.prefill_pages, 13107);    /* 80 % of 16384 */
	assert_int_equal(r0.allocs, r1.allocs);
	assert_int_equal(r0.alloc_failed, 0);
	assert_int_equal(r1.alloc_failed, 0);
	assert_true(r0.remote_pages > r0.allocs / 4);
	assert_true(r1.remote_pages < r1.allocs / 100);
	assert_int_equal(r0.zone_reclaim_cycles, 0);
	assert_true(r1.zone_reclaim_cycles > 0);
	assert_true(r1.reclaimed_prefill > 0);
	assert_true(r1.lat_p99 > r0.lat_p99);
	assert_true(r0.lat_p50 <= r0.lat_p99 && r0.lat_p99 <= r0.lat_max);
	/* every kept page read once, or counted as a refault */
	assert_int_equal(r0.local_accesses + r0.remote_accesses + r0.refaults, r0.allocs);
	assert_int_equal(r0.remote_accesses, r0.remote_pages);
	assert_true(r0.access_cycles_remote > r0.access_cycles_local);
	assert_true(r0.nr_samples > 100);
	/* samples in time order; mode 0 never took page cache off node 0's
	 * inactive_file (the task's own page cache only adds to it) */
	for (int i = 1; i < r0.nr_samples; i++) {
		assert_true(r0.sample_cycles[i] >= r0.sample_cycles[i - 1]);
		assert_true(r0.sample_lru[MM_LRU_INACTIVE_FILE][i] >=
			    r0.sample_lru[MM_LRU_INACTIVE_FILE][i - 1]);
	}
	assert_int_equal(r0.reclaimed_prefill, 0);
}

static void test_deterministic(void **state)
{
	(void)state;
	struct wl_fill_params p = params();
	static struct wl_fill_result a, b;
	run(1, &p, &a);
	run(1, &p, &b);
	assert_memory_equal(&a, &b, sizeof a);
}

static void test_lifetime(void **state)
{
	(void)state;
	struct wl_fill_params p = params();
	p.lifetime = 100;
	p.anon = 1;
	static struct wl_fill_result r;
	run(0, &p, &r);
	/* pages released as the task goes: it never needs the remote node */
	assert_int_equal(r.released, r.allocs - 100);
	assert_int_equal(r.remote_pages, 0);
	assert_int_equal(r.local_accesses, 100);
}

static void test_bad_prefill(void **state)
{
	(void)state;
	struct tw *t = fw_create(0);
	struct wl_fill_params p = params();
	p.prefill_node = 7;
	struct wl_fill_result r;
	struct diag d;
	diag_init(&d);
	assert_int_equal(wl_fill_run(t->w, &t->s, &p, 1, NULL, NULL, &r, &d), NS_EINPUT);
	assert_non_null(strstr(d.msg, "prefill node 7"));
	tw_destroy(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_spill_vs_reclaim),
		cmocka_unit_test(test_deterministic),
		cmocka_unit_test(test_lifetime),
		cmocka_unit_test(test_bad_prefill),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
