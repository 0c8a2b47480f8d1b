/*
 * Tests for models/vmscan (v4.6 reclaim): kswapd is woken exactly when an
 * allocation finds its zone at or below the low watermark and balance_pgdat
 * stops once the zone is back at the high watermark; direct reclaim is
 * entered only after the fast path and the kswapd wake-up failed;
 * zone_reclaim_mode 1 reclaims the local node before falling back and 0
 * spills to the remote node; shrink_active_list runs as
 * inactive_list_is_low says (file: active > inactive; anon: only with
 * swap, inactive * inactive_ratio < active); a bind policy on a full node
 * reclaims instead of failing; OOM is counted when nothing is reclaimable;
 * swap-out of anonymous pages.  mm_check (with vmscan_check's LRU
 * conservation) runs after every test.
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
#include "cost/cpu.h"
#include "machine/machine.h"
#include "tests/page_alloc_fixture.h"
#include "tests/test_costs_yaml.h"

#define COSTS TEST_COSTS_YAML

/* 1 node, Normal 64 MiB = 16384 pages: min 256, low 320, high 384. */
static const char m_one[] = TEST_MACHINE_ONE;

/* 2 nodes of Normal 64 MiB, one CPU each, distance 21 (< RECLAIM_DISTANCE). */
static const char m_two[] = TEST_MACHINE_TWO;

#define GFP_LRU GFP_HIGHUSER_MOVABLE

/* The page-allocator fixture with reclaim on: the reclaim tables, attached. */
static struct tw *rw_create(const char *yaml, struct mm_config *cfg)
{
	cfg->reclaim.enabled = 1;
	return tw_create(yaml, cfg);
}

static struct mm_config cfg0(void)
{
	struct mm_config c;
	mm_config_default(&c);
	return c;
}

static struct mm_zone_info zi(struct tw *t, int node)
{
	struct mm_zone_info i;
	assert_int_equal(mm_zone_get_info(t->w, node, ZONE_NORMAL, 0, &i), NS_OK);
	return i;
}

static struct mm_lru_info li(struct tw *t, int node)
{
	struct mm_lru_info i;
	assert_int_equal(mm_zone_lru_info(t->w, node, ZONE_NORMAL, &i), NS_OK);
	return i;
}

/* Allocate one page on CPU k and put it on an LRU as kind. */
static struct page *alloc_lru(struct tw *t, int k, enum mm_page_kind kind, int dirty)
{
	struct cpu *c = &t->s.cpu[k];
	struct page *p = mm_alloc_pages(t->w, c, GFP_LRU, 0);
	if (p)
		mm_lru_add(t->w, c, p, kind, dirty, 1);
	return p;
}

/* Fill node's zone from CPU k with clean unmapped page cache until its
 * free pages (what the allocator reads) are at most stop_above. */
static int fill_file(struct tw *t, int k, int node, int64_t stop_above)
{
	int n = 0;
	while (zi(t, node).nr_free_pages_atomic > stop_above) {
		assert_non_null(alloc_lru(t, k, MM_PAGE_FILE, 0));
		n++;
	}
	return n;
}

static void run_kswapd(struct tw *t)
{
	int n;
	while ((n = mm_kswapd_woken(t->w)) >= 0) {
		int k = mm_kswapd_cpu(t->w, n);
		assert_true(k >= 0);
		int steps = 0;
		while (mm_kswapd_run(t->w, &t->s.cpu[k], n))
			assert_true(++steps < 100);
	}
}

/* LRU bookkeeping: kinds go on the lists v4.6 puts them on. */
static void test_lru_add_release(void **state)
{
	(void)state;
	struct mm_config cfg = cfg0();
	struct tw *t = rw_create(m_one, &cfg);
	struct page *a = alloc_lru(t, 0, MM_PAGE_ANON, 0);
	struct page *f = alloc_lru(t, 0, MM_PAGE_FILE, 1);
	struct page *m = alloc_lru(t, 0, MM_PAGE_FILE_MAPPED, 0);
	struct mm_lru_info l = li(t, 0);
	assert_int_equal(l.nr[MM_LRU_ACTIVE_ANON], 1);
	assert_int_equal(l.nr[MM_LRU_INACTIVE_FILE], 2);
	assert_int_equal(l.nr_dirty, 1);
	assert_int_equal(l.nr_mapped, 1);
	tw_check(t);
	/* mark_page_accessed twice activates unmapped page cache */
	mm_page_touch(t->w, &t->s.cpu[0], f);
	assert_int_equal(li(t, 0).nr[MM_LRU_ACTIVE_FILE], 0);
	mm_page_touch(t->w, &t->s.cpu[0], f);
	assert_int_equal(li(t, 0).nr[MM_LRU_ACTIVE_FILE], 1);
	assert_int_equal(ctr(t, "zone", "0/Normal", "pgactivate"), 1);
	mm_lru_release(t->w, &t->s.cpu[0], a);
	mm_lru_release(t->w, &t->s.cpu[0], f);
	mm_lru_release(t->w, &t->s.cpu[0], m);
	l = li(t, 0);
	for (int i = 0; i < MM_NR_LRU_LISTS; i++)
		assert_int_equal(l.nr[i], 0);
	assert_int_equal(zi(t, 0).allocated, 0);
	tw_destroy(t);
}

/*
 * kswapd: woken by the first allocation that finds the zone at or below
 * LOW (the fast path's zone_watermark_ok fails, the slow path calls
 * wake_all_kswapds), never before; balance_pgdat then reclaims until the
 * zone is at HIGH and goes back to sleep.
 */
static void test_kswapd_low_high(void **state)
{
	(void)state;
	struct mm_config cfg = cfg0();
	struct tw *t = rw_create(m_one, &cfg);
	struct mm_zone_info z = zi(t, 0);
	int64_t low = z.watermark[1], high = z.watermark[2];
	assert_int_equal(low, 320);
	assert_int_equal(high, 384);
	int woken_at = -1;
	for (int i = 0; woken_at < 0; i++) {
		int64_t before = zi(t, 0).nr_free_pages_atomic;
		assert_non_null(alloc_lru(t, 0, MM_PAGE_FILE, 0));
		if (mm_kswapd_woken(t->w) >= 0) {
			woken_at = i;
			assert_true(before <= low);        /* watermark failed */
			assert_true(before > low - 32);    /* ... the first time (pcp batch lag) */
		} else {
			assert_true(before > low || zi(t, 0).pcp_count > 0);
		}
		assert_true(i < 20000);
	}
	assert_int_equal(ctr(t, "node", "0", "kswapd_wakeup"), 1);
	assert_int_equal(ctr(t, "node", "0", "allocstall"), 0);
	/* nothing reclaimed before kswapd runs */
	assert_int_equal(ctr(t, "zone", "0/Normal", "pgsteal_kswapd_normal"), 0);
	run_kswapd(t);
	struct mm_zone_info after = zi(t, 0);
	assert_true(after.nr_free_pages >= high);
	/* kswapd_shrink_zone reclaims nr_to_reclaim = max(32, high) per
	 * pass and stops when balanced: not far beyond HIGH */
	assert_true(after.nr_free_pages <= high + high + 64);
	assert_true(ctr(t, "zone", "0/Normal", "pgsteal_kswapd_normal") > 0);
	assert_true(ctr(t, "zone", "0/Normal", "pgscan_kswapd_normal") >=
		    ctr(t, "zone", "0/Normal", "pgsteal_kswapd_normal"));
	assert_int_equal(ctr(t, "zone", "0/Normal", "pgscan_direct_normal"), 0);
	assert_int_equal(mm_kswapd_woken(t->w), -1);
	assert_int_equal(ctr(t, "node", "0", "pageoutrun"), 1);
	tw_destroy(t);
}

/*
 * Direct reclaim only after the fast path (LOW) and the slow path's
 * first attempt at MIN failed, and after kswapd was woken: allocstall
 * stays 0 while the zone is above MIN.
 */
static void test_direct_reclaim_after_fastpath(void **state)
{
	(void)state;
	struct mm_config cfg = cfg0();
	struct tw *t = rw_create(m_one, &cfg);
	int64_t min = zi(t, 0).watermark[0];
	int stalled = 0;
	for (int i = 0; i < 20000 && !stalled; i++) {
		int64_t before = zi(t, 0).nr_free_pages_atomic;
		assert_non_null(alloc_lru(t, 0, MM_PAGE_FILE, 0));
		if (ctr(t, "node", "0", "allocstall")) {
			stalled = 1;
			assert_true(before <= min);
			assert_int_equal(ctr(t, "node", "0", "kswapd_wakeup"), 1);
			assert_true(ctr(t, "node", "0", "kswapd_wake") >= 2);
			assert_true(ctr(t, "zone", "0/Normal", "pgsteal_direct_normal") > 0);
		} else {
			assert_int_equal(fn_calls(t, "try_to_free_pages"), 0);
		}
	}
	assert_true(stalled);
	assert_int_equal(fn_calls(t, "try_to_free_pages"), 1);
	assert_int_equal(ctr(t, "node", "0", "alloc_fail"), 0);
	tw_destroy(t);
}

/*
 * zone_reclaim_mode: node 0 full of clean page cache, CPU 0 allocates
 * 2000 more pages.  Mode 1 reclaims node 0 (zone_reclaim) and keeps them
 * local; mode 0 spills them to node 1.
 */
static void run_zone_reclaim(uint32_t mode, int *local, int *remote, int64_t *zr,
			     int64_t *steal)
{
	struct mm_config cfg = cfg0();
	cfg.zone_reclaim_mode = mode;
	struct tw *t = rw_create(m_two, &cfg);
	fill_file(t, 0, 0, zi(t, 0).watermark[1] + 1);
	assert_int_equal(ctr(t, "zone", "0/Normal", "zone_reclaim"), 0);
	*local = *remote = 0;
	for (int i = 0; i < 2000; i++) {
		struct page *p = alloc_lru(t, 0, MM_PAGE_ANON, 0);
		assert_non_null(p);
		if (mm_page_node(t->w, p) == 0)
			(*local)++;
		else
			(*remote)++;
	}
	*zr = ctr(t, "zone", "0/Normal", "zone_reclaim");
	*steal = ctr(t, "zone", "0/Normal", "pgsteal_direct_normal");
	assert_int_equal(ctr(t, "node", "0", "allocstall"), 0);
	tw_destroy(t);
}

static void test_zone_reclaim_mode(void **state)
{
	(void)state;
	int local, remote;
	int64_t zr, steal;
	run_zone_reclaim(0, &local, &remote, &zr, &steal);
	assert_true(remote >= 1900);          /* spills: pcp leftovers stay local */
	assert_int_equal(zr, 0);
	assert_int_equal(steal, 0);
	run_zone_reclaim(1, &local, &remote, &zr, &steal);
	assert_int_equal(local, 2000);
	assert_int_equal(remote, 0);
	assert_true(zr > 0);
	assert_true(steal >= 2000 - 64);
}

/* mode 1 does not unmap: a node full of mapped anonymous pages cannot be
 * zone-reclaimed (zone_pagecache_reclaimable <= min_unmapped_pages: FULL),
 * so the allocation falls back to the remote node. */
static void test_zone_reclaim_full(void **state)
{
	(void)state;
	struct mm_config cfg = cfg0();
	cfg.zone_reclaim_mode = RECLAIM_ZONE;
	struct tw *t = rw_create(m_two, &cfg);
	while (zi(t, 0).nr_free_pages_atomic > zi(t, 0).watermark[1] + 1)
		assert_non_null(alloc_lru(t, 0, MM_PAGE_ANON, 0));
	int remote = 0;
	for (int i = 0; i < 500; i++)
		remote += mm_page_node(t->w, alloc_lru(t, 0, MM_PAGE_ANON, 0)) == 1;
	assert_true(remote >= 400);
	assert_int_equal(ctr(t, "zone", "0/Normal", "zone_reclaim"), 0);
	tw_destroy(t);
}

/*
 * inactive_list_is_low: file lists are rebalanced when active > inactive
 * (kswapd scans the active list: pgrefill, pgdeactivate), not when the
 * inactive list is the larger one.
 */
static int64_t kswapd_refill(int activate_most)
{
	struct mm_config cfg = cfg0();
	struct tw *t = rw_create(m_one, &cfg);
	struct cpu *c = &t->s.cpu[0];
	/* kernel pages down to 2000 free, then 1600 page-cache pages */
	while (zi(t, 0).nr_free_pages_atomic > 2000)
		assert_non_null(mm_alloc_pages(t->w, c, GFP_KERNEL, 0));
	int n = 0;
	static struct page *pages[4000];
	while (zi(t, 0).nr_free_pages_atomic > zi(t, 0).watermark[1] + 1)
		pages[n++] = alloc_lru(t, 0, MM_PAGE_FILE, 0);
	int act = activate_most ? n * 3 / 4 : n / 4;
	for (int i = 0; i < act; i++) {
		mm_page_touch(t->w, c, pages[i]);
		mm_page_touch(t->w, c, pages[i]);
	}
	struct mm_lru_info l = li(t, 0);
	assert_int_equal(l.nr[MM_LRU_ACTIVE_FILE], act);
	assert_int_equal(l.nr[MM_LRU_INACTIVE_FILE], n - act);
	assert_non_null(alloc_lru(t, 0, MM_PAGE_FILE, 0));   /* wakes kswapd */
	assert_true(mm_kswapd_woken(t->w) >= 0);
	run_kswapd(t);
	int64_t refill = ctr(t, "zone", "0/Normal", "pgrefill_normal");
	int64_t deact = ctr(t, "zone", "0/Normal", "pgdeactivate");
	l = li(t, 0);
	if (activate_most) {
		/* deactivated until the inactive list is no longer low, or
		 * kswapd was done first */
		assert_true(deact > 0);
		assert_true(deact <= refill);
	}
	tw_destroy(t);
	return refill;
}

static void test_inactive_list_is_low_file(void **state)
{
	(void)state;
	assert_true(kswapd_refill(1) > 0);
	assert_int_equal(kswapd_refill(0), 0);
}

/* anon: without swap inactive_anon_is_low is false (no aging); with swap
 * the active list is aged while inactive * ratio < active. */
static int64_t anon_refill(uint64_t swap)
{
	struct mm_config cfg = cfg0();
	cfg.reclaim.swap_pages = swap;
	struct tw *t = rw_create(m_one, &cfg);
	while (zi(t, 0).nr_free_pages_atomic > zi(t, 0).watermark[1] + 1)
		assert_non_null(alloc_lru(t, 0, MM_PAGE_ANON, 0));
	assert_int_equal(li(t, 0).inactive_ratio, 1);    /* < 1 GiB zone */
	mm_alloc_pages(t->w, &t->s.cpu[0], GFP_KERNEL, 0);
	run_kswapd(t);
	int64_t refill = ctr(t, "zone", "0/Normal", "pgrefill_normal");
	if (swap) {
		struct mm_lru_info l = li(t, 0);
		assert_true(ctr(t, "zone", "0/Normal", "pgdeactivate") > 0);
		assert_true(mm_swap_used(t->w) > 0);
		assert_int_equal(mm_swap_used(t->w),
				 (uint64_t)ctr(t, "zone", "0/Normal", "pswpout"));
		assert_true(l.nr[MM_LRU_INACTIVE_ANON] + l.nr[MM_LRU_ACTIVE_ANON] > 0);
	}
	tw_destroy(t);
	return refill;
}

static void test_inactive_list_is_low_anon(void **state)
{
	(void)state;
	assert_int_equal(anon_refill(0), 0);
	assert_true(anon_refill(8192) > 0);
}

/* A bind policy on a full node: without reclaim the allocations fail,
 * with it direct reclaim frees the node's page cache and they succeed. */
static int bind_fails(int reclaim, int64_t *steal)
{
	struct mm_config cfg = cfg0();
	cfg.mpol = MPOL_BIND;
	cfg.nr_mpol_nodes = 1;
	cfg.mpol_nodes[0] = 1;
	struct tw *t;
	if (reclaim) {
		t = rw_create(m_two, &cfg);
	} else {
		t = tw_create(m_two, &cfg);
	}
	struct cpu *c = &t->s.cpu[0];
	int fails = 0;
	for (int i = 0; i < 16384 * 3 / 2; i++) {
		struct page *p = mm_alloc_pages(t->w, c, GFP_LRU, 0);
		if (!p) {
			fails++;
			continue;
		}
		assert_int_equal(mm_page_node(t->w, p), 1);
		if (reclaim)
			mm_lru_add(t->w, c, p, MM_PAGE_FILE, 0, 1);
	}
	*steal = reclaim ? ctr(t, "zone", "1/Normal", "pgsteal_direct_normal") : 0;
	if (reclaim)
		assert_int_equal(ctr(t, "node", "1", "oom"), 0);
	tw_destroy(t);
	return fails;
}

static void test_bind_reclaims(void **state)
{
	(void)state;
	int64_t steal;
	assert_true(bind_fails(0, &steal) > 8000);
	assert_int_equal(bind_fails(1, &steal), 0);
	assert_true(steal > 8000);
}

/* Nothing reclaimable (kernel pages only): direct reclaim makes no
 * progress, __alloc_pages_may_oom counts the OOM and the allocation
 * fails. */
static void test_oom_counted(void **state)
{
	(void)state;
	struct mm_config cfg = cfg0();
	struct tw *t = rw_create(m_one, &cfg);
	struct cpu *c = &t->s.cpu[0];
	int fails = 0;
	for (int i = 0; i < 16384 + 10; i++)
		fails += mm_alloc_pages(t->w, c, GFP_KERNEL, 0) == NULL;
	assert_true(fails >= 10);
	assert_int_equal(ctr(t, "node", "0", "oom"), fails);
	assert_int_equal(ctr(t, "node", "0", "alloc_fail"), fails);
	assert_int_equal(ctr(t, "node", "0", "allocstall"), fails);
	assert_int_equal(ctr(t, "zone", "0/Normal", "pgsteal_direct_normal"), 0);
	assert_int_equal(ctr(t, "node", "0", "slowpath_retry_cap"), 0);
	tw_destroy(t);
}

/* Dirty page cache: direct reclaim does not write it (PG_reclaim,
 * nr_vmscan_immediate_reclaim); mode 1 without RECLAIM_WRITE leaves it;
 * kswapd writes it once a whole batch was dirty (ZONE_DIRTY). */
static void test_dirty_writeback(void **state)
{
	(void)state;
	struct mm_config cfg = cfg0();
	cfg.reclaim.writeback_cycles = 5000;
	struct tw *t = rw_create(m_one, &cfg);
	while (zi(t, 0).nr_free_pages_atomic > zi(t, 0).watermark[1] + 1)
		assert_non_null(alloc_lru(t, 0, MM_PAGE_FILE, 1));
	assert_non_null(alloc_lru(t, 0, MM_PAGE_FILE, 1));
	uint64_t t0 = t->s.cpu[0].now;
	run_kswapd(t);
	int64_t written = ctr(t, "zone", "0/Normal", "nr_vmscan_write");
	assert_true(written > 0);
	assert_true(ctr(t, "zone", "0/Normal", "pgsteal_kswapd_normal") >= written);
	assert_true(t->s.cpu[0].now - t0 >= (uint64_t)written * 5000);
	assert_true(zi(t, 0).nr_free_pages >= zi(t, 0).watermark[2]);
	tw_destroy(t);
}

static void test_pre316_default(void **state)
{
	(void)state;
	int d2[] = {10, 21, 21, 10};
	int d4[] = {10, 12, 32, 32, 12, 10, 32, 32, 32, 32, 10, 12, 32, 32, 12, 10};
	assert_int_equal(vmscan_pre316_default_mode(d2, 2), 0);
	assert_int_equal(vmscan_pre316_default_mode(d4, 4), RECLAIM_ZONE);
}

static void test_refuses(void **state)
{
	(void)state;
	struct mm_config cfg = cfg0();
	cfg.zone_reclaim_mode = 1;
	struct tw *t;
	struct diag d;
	diag_init(&d);
	assert_int_equal(tw_try(m_one, &cfg, &t, &d), NS_EINPUT);
	assert_non_null(strstr(d.msg, "reclaim"));
	tw_destroy(t);
	cfg.reclaim.enabled = 1;
	cfg.zone_reclaim_mode = 8;
	diag_init(&d);
	assert_int_equal(tw_try(m_one, &cfg, &t, &d), NS_EINPUT);
	tw_destroy(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lru_add_release),
		cmocka_unit_test(test_kswapd_low_high),
		cmocka_unit_test(test_direct_reclaim_after_fastpath),
		cmocka_unit_test(test_zone_reclaim_mode),
		cmocka_unit_test(test_zone_reclaim_full),
		cmocka_unit_test(test_inactive_list_is_low_file),
		cmocka_unit_test(test_inactive_list_is_low_anon),
		cmocka_unit_test(test_bind_reclaims),
		cmocka_unit_test(test_oom_counted),
		cmocka_unit_test(test_dirty_writeback),
		cmocka_unit_test(test_pre316_default),
		cmocka_unit_test(test_refuses),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
