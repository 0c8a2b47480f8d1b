/*
 * Tests for models/pagealloc: buddy split and merge with hand-worked pfns,
 * pcp batch/high refill and drain, watermark fallback to a remote node,
 * the fair zone allocation policy, both zonelist iterator variants with and
 * without a nodemask (including the profile facts of 682a3385), orders
 * 1..4, the min_free_kbytes/watermark/lowmem_reserve formulas on the
 * reference's worked example, the work layouts of cost.code, determinism,
 * and that mm_world_validate (the preflight's world) refuses what
 * mm_world_create does.  mm_check() runs after
 * every test.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cost/cpu.h"
#include "base/diag.h"
#include "machine/machine.h"
#include "tests/page_alloc_fixture.h"
#include "models/page_alloc.h"
#include "tests/test_costs_yaml.h"

#define COSTS TEST_COSTS_YAML

/* 1 node, Normal 64 MiB = 16 MAX_ORDER blocks; batch 3, high 18. */
static const char m_one[] = TEST_MACHINE_ONE;

/* 2 nodes of Normal 64 MiB, one CPU each. */
static const char m_two[] = TEST_MACHINE_TWO;

/* node 0: DMA32 64 MiB + Normal 128 MiB (fair policy), node 1: Normal. */
static const char m_fair[] =
	"name: fair\nnodes:\n  - id: 0\n    cpus: \"0\"\n    zones:\n"
	"      - {type: DMA32, size: 64MiB}\n"
	"      - {type: Normal, size: 128MiB}\n"
	"  - id: 1\n    cpus: \"1\"\n    zones:\n"
	"      - {type: Normal, size: 128MiB}\n"
	"distance:\n  - [10, 21]\n  - [21, 10]\n" COSTS;

/* seed-like small: node 0 DMA + DMA32 + Normal, node 1 Normal. */
static const char m_seedlike[] =
	"name: seedlike\nnodes:\n  - id: 0\n    cpus: \"0\"\n    zones:\n"
	"      - {type: DMA, size: 16MiB}\n"
	"      - {type: DMA32, size: 64MiB}\n"
	"      - {type: Normal, size: 1GiB}\n"
	"  - id: 1\n    cpus: \"1\"\n    zones:\n"
	"      - {type: Normal, size: 1GiB}\n"
	"distance:\n  - [10, 21]\n  - [21, 10]\n" COSTS;

/* The worked example of zonelist-and-page-alloc.md §8.2. */
static const char m_example[] =
	"name: example\nnodes:\n  - id: 0\n    cpus: \"0\"\n    zones:\n"
	"      - {type: DMA, size: 15904KiB}\n"
	"      - {type: DMA32, size: 3000000KiB}\n"
	"      - {type: Normal, size: 63960000KiB}\n"
	"  - id: 1\n    cpus: \"1\"\n    zones:\n"
	"      - {type: Normal, size: 66000000KiB}\n"
	"distance:\n  - [10, 21]\n  - [21, 10]\n" COSTS;

static struct mm_zone_info zinfo(struct tw *t, int node, enum zone_type z, int cpu)
{
	struct mm_zone_info i;
	assert_int_equal(mm_zone_get_info(t->w, node, z, cpu, &i), NS_OK);
	return i;
}

static struct mm_config cfg_default(enum mmzone_iter v)
{
	struct mm_config c;
	mm_config_default(&c);
	c.iter = v;
	return c;
}

/* --- buddy ---------------------------------------------------------------- */

static void test_buddy_split_merge(void **state)
{
	(void)state;
	struct mm_config cfg = cfg_default(MMZONE_ITER_POST);
	struct tw *t = tw_create(m_one, &cfg);
	struct cpu *c = &t->s.cpu[0];
	struct mm_zone_info z = zinfo(t, 0, ZONE_NORMAL, 0);
	assert_int_equal(z.managed, 16384);
	assert_int_equal(z.nr_free[10], 16);
	assert_int_equal(z.nr_free_mt[10][1], 16);     /* all MOVABLE at boot */
	assert_int_equal(z.pcp_batch, 3);
	assert_int_equal(z.pcp_high, 18);

	/* GFP_KERNEL = UNMOVABLE: falls back, steals the head order-10 block
	 * (the highest pfn, 15360), splits it; rmqueue_bulk takes 3 pages. */
	struct page *p = mm_alloc_pages(t->w, c, GFP_KERNEL, 0);
	assert_non_null(p);
	uint64_t base = z.start_pfn + 15 * 1024;
	assert_int_equal(mm_page_pfn(t->w, p), base);
	z = zinfo(t, 0, ZONE_NORMAL, 0);
	assert_int_equal(z.nr_free[10], 15);
	assert_int_equal(z.nr_free[0], 1);             /* base + 3 */
	assert_int_equal(z.nr_free[1], 0);             /* base + 2 went to the pcp */
	for (int o = 2; o < 10; o++) {
		assert_int_equal(z.nr_free[o], 1);
		assert_int_equal(z.nr_free_mt[o][0], 1); /* UNMOVABLE lists */
	}
	assert_int_equal(z.pcp_count, 2);
	assert_int_equal(z.pcp_list[0], 2);
	assert_int_equal(z.nr_free_pages, 16384 - 3);
	assert_int_equal(z.allocated, 1);
	assert_int_equal(ctr(t, "zone", "0/Normal", "fallback"), 1);
	assert_int_equal(ctr(t, "zone", "0/Normal", "steal_pageblock"), 2);
	tw_check(t);

	/* next two come from the pcp list in ascending pfn order */
	struct page *q = mm_alloc_pages(t->w, c, GFP_KERNEL, 0);
	struct page *r = mm_alloc_pages(t->w, c, GFP_KERNEL, 0);
	assert_int_equal(mm_page_pfn(t->w, q), base + 1);
	assert_int_equal(mm_page_pfn(t->w, r), base + 2);
	/* the fourth refills: base+3 (order 0); base+4 from the order-2
	 * block, whose halves base+6 (order 1) and base+5 (order 0) go back;
	 * then base+5 again from order 0 */
	struct page *s4 = mm_alloc_pages(t->w, c, GFP_KERNEL, 0);
	assert_int_equal(mm_page_pfn(t->w, s4), base + 3);
	z = zinfo(t, 0, ZONE_NORMAL, 0);
	assert_int_equal(z.nr_free[0], 0);
	assert_int_equal(z.nr_free[1], 1);             /* base + 6 */
	assert_int_equal(z.nr_free[2], 0);
	assert_int_equal(z.pcp_count, 2);              /* base + 4, base + 5 */
	tw_check(t);

	mm_free_pages(t->w, c, p, 0);
	mm_free_pages(t->w, c, q, 0);
	mm_free_pages(t->w, c, r, 0);
	mm_free_pages(t->w, c, s4, 0);
	z = zinfo(t, 0, ZONE_NORMAL, 0);
	assert_int_equal(z.pcp_count, 6);
	assert_int_equal(z.allocated, 0);
	tw_check(t);
	mm_drain_local_pages(t->w, c);
	z = zinfo(t, 0, ZONE_NORMAL, 0);
	assert_int_equal(z.pcp_count, 0);
	for (int o = 0; o < 10; o++)
		assert_int_equal(z.nr_free[o], 0);
	assert_int_equal(z.nr_free[10], 16);
	assert_int_equal(z.nr_free_mt[10][0], 1);      /* the stolen block stays UNMOVABLE */
	assert_int_equal(z.nr_free_pages, 16384);
	assert_int_equal(ctr(t, "zone", "0/Normal", "block_merge"), 1);
	tw_destroy(t);
}

static void test_orders_1_to_4(void **state)
{
	(void)state;
	struct mm_config cfg = cfg_default(MMZONE_ITER_PRE);
	struct tw *t = tw_create(m_one, &cfg);
	struct cpu *c = &t->s.cpu[0];
	struct page *pages[4][8];
	for (unsigned o = 1; o <= 4; o++)
		for (int i = 0; i < 8; i++) {
			pages[o - 1][i] = mm_alloc_pages(t->w, c, GFP_KERNEL, o);
			assert_non_null(pages[o - 1][i]);
			assert_int_equal(mm_page_pfn(t->w, pages[o - 1][i]) & ((1u << o) - 1), 0);
			tw_check(t);
		}
	struct mm_zone_info z = zinfo(t, 0, ZONE_NORMAL, 0);
	assert_int_equal(z.allocated, 8 * (2 + 4 + 8 + 16));
	assert_int_equal(z.pcp_count, 0);              /* order > 0 bypasses the pcp */
	assert_int_equal(z.nr_free_pages, 16384 - 240);
	/* distinct pages */
	for (unsigned o = 1; o <= 4; o++)
		for (int i = 0; i < 8; i++)
			for (int j = 0; j < i; j++)
				assert_true(mm_page_pfn(t->w, pages[o - 1][i]) !=
					    mm_page_pfn(t->w, pages[o - 1][j]));
	for (unsigned o = 4; o >= 1; o--)
		for (int i = 0; i < 8; i++) {
			mm_free_pages(t->w, c, pages[o - 1][i], o);
			tw_check(t);
		}
	z = zinfo(t, 0, ZONE_NORMAL, 0);
	assert_int_equal(z.nr_free[10], 16);
	assert_int_equal(z.nr_free_pages, 16384);
	assert_int_equal(z.allocated, 0);
	tw_destroy(t);
}

/* MAX_ORDER-1 blocks are handed out whole (no per-page metadata) and
 * merge back; an order-9 request splits one block. */
static void test_order_9_10(void **state)
{
	(void)state;
	struct mm_config cfg = cfg_default(MMZONE_ITER_POST);
	struct tw *t = tw_create(m_one, &cfg);
	struct cpu *c = &t->s.cpu[0];
	struct page *a = mm_alloc_pages(t->w, c, GFP_KERNEL, 10);
	struct page *b = mm_alloc_pages(t->w, c, GFP_KERNEL, 9);
	struct page *b2 = mm_alloc_pages(t->w, c, GFP_KERNEL, 9);
	assert_non_null(a);
	assert_non_null(b);
	assert_non_null(b2);
	uint64_t start = zinfo(t, 0, ZONE_NORMAL, 0).start_pfn;
	assert_int_equal(mm_page_pfn(t->w, a), start + 15 * 1024);
	assert_int_equal(mm_page_pfn(t->w, b), start + 14 * 1024);
	assert_int_equal(mm_page_pfn(t->w, b2), start + 14 * 1024 + 512);
	assert_null(mm_alloc_pages(t->w, c, GFP_KERNEL, 11));
	tw_check(t);
	mm_free_pages(t->w, c, b, 9);
	mm_free_pages(t->w, c, a, 10);
	mm_free_pages(t->w, c, b2, 9);
	struct mm_zone_info z = zinfo(t, 0, ZONE_NORMAL, 0);
	assert_int_equal(z.nr_free[10], 16);
	assert_int_equal(z.nr_free[9], 0);
	assert_int_equal(z.nr_free_pages, 16384);
	assert_int_equal(ctr(t, "zone", "0/Normal", "block_merge"), 1);
	tw_destroy(t);
}

/* --- pcp ------------------------------------------------------------------ */

static void test_pcp_batch_high(void **state)
{
	(void)state;
	struct machine *m = NULL;
	struct diag d;
	diag_init(&d);
	const char *src = getenv("NUMASIM_SRC");
	char path[4096];
	snprintf(path, sizeof path, "%s/configs/seed-2016-2s.yaml", src ? src : ".");
	assert_int_equal(machine_load_file(path, &m, &d), NS_OK);
	struct mm_config cfg = cfg_default(MMZONE_ITER_POST);
	struct tw *t = tw_create_m(m, &cfg);
	struct cpu *c = &t->s.cpu[0];
	struct mm_zone_info z = zinfo(t, 0, ZONE_NORMAL, 0);
	assert_int_equal(z.pcp_batch, 31);
	assert_int_equal(z.pcp_high, 186);
	struct mm_zone_info dma = zinfo(t, 0, ZONE_DMA, 0);
	assert_int_equal(dma.pcp_batch, 1);
	assert_int_equal(dma.pcp_high, 0);

	static struct page *pg[200];
	for (int i = 0; i < 200; i++)
		assert_non_null(pg[i] = mm_alloc_pages(t->w, c, GFP_KERNEL, 0));
	z = zinfo(t, 0, ZONE_NORMAL, 0);
	assert_int_equal(ctr(t, "zone", "0/Normal", "pcp_refill"), 7);
	assert_int_equal(z.pcp_count, 7 * 31 - 200);
	for (int i = 0; i < 200; i++)
		mm_free_pages(t->w, c, pg[i], 0);
	/* 17 + 169 = 186 -> drain 31 -> 155; +31 = 186 -> drain -> 155 */
	z = zinfo(t, 0, ZONE_NORMAL, 0);
	assert_int_equal(ctr(t, "zone", "0/Normal", "pcp_drain"), 2);
	assert_int_equal(ctr(t, "zone", "0/Normal", "pcp_drain_pages"), 62);
	assert_int_equal(z.pcp_count, 155);
	tw_check(t);

	/* DMA: high 0, batch 1: every alloc refills one, every free drains */
	struct page *a = mm_alloc_pages(t->w, c, GFP_KERNEL | __GFP_DMA, 0);
	assert_non_null(a);
	assert_int_equal(mm_page_node(t->w, a), 0);
	dma = zinfo(t, 0, ZONE_DMA, 0);
	assert_int_equal(dma.pcp_count, 0);
	assert_int_equal(ctr(t, "zone", "0/DMA", "pcp_refill"), 1);
	mm_free_pages(t->w, c, a, 0);
	dma = zinfo(t, 0, ZONE_DMA, 0);
	assert_int_equal(dma.pcp_count, 0);
	assert_int_equal(ctr(t, "zone", "0/DMA", "pcp_drain"), 1);
	assert_int_equal(ctr(t, "zone", "0/DMA", "pgalloc_dma"), 1);
	tw_destroy(t);
}

/* --- watermarks ----------------------------------------------------------- */

static void test_watermark_remote_fallback(void **state)
{
	(void)state;
	struct mm_config cfg = cfg_default(MMZONE_ITER_POST);
	struct tw *t = tw_create(m_two, &cfg);
	struct cpu *c = &t->s.cpu[0];
	struct mm_zone_info z0 = zinfo(t, 0, ZONE_NORMAL, 0);
	/* 32768 lowmem pages: min_free_kbytes = int_sqrt(131072*16) = 1448,
	 * pages_min 362, per zone min 181, gap max(45, 16) = 45 */
	assert_int_equal(mm_min_free_kbytes(t->w), 1448);
	assert_int_equal(z0.watermark[0], 181);
	assert_int_equal(z0.watermark[1], 226);
	assert_int_equal(z0.watermark[2], 271);
	static struct page *pg[16384];
	int n = 0;
	while (n < 16384) {
		pg[n] = mm_alloc_pages(t->w, c, GFP_KERNEL, 0);
		assert_non_null(pg[n]);
		if (mm_page_node(t->w, pg[n++]) == 1)
			break;
		assert_int_equal(ctr(t, "node", "1", "numa_miss"), 0);
	}
	assert_true(n < 16384);
	/* the first remote page came when node 0 failed its low watermark:
	 * the allocator saw the atomic counter (lagging by the per-cpu delta) */
	z0 = zinfo(t, 0, ZONE_NORMAL, 0);
	assert_true(z0.nr_free_pages_atomic <= z0.watermark[1]);
	assert_true(z0.nr_free_pages + z0.pcp_count + (int64_t)z0.allocated == 16384);
	assert_int_equal(ctr(t, "zone", "1/Normal", "numa_miss"), 1);
	assert_int_equal(ctr(t, "zone", "0/Normal", "numa_foreign"), 1);
	assert_int_equal(ctr(t, "node", "0", "local_node"), n - 1);
	assert_int_equal(ctr(t, "node", "0", "numa_hit"), n - 1);
	assert_int_equal(ctr(t, "node", "1", "local_node"), 0);
	assert_true(ctr(t, "zone", "0/Normal", "wmark_fail") >= 1);
	tw_check(t);
	for (int i = 0; i < n; i++)
		mm_free_pages(t->w, c, pg[i], 0);
	tw_destroy(t);
}

static void test_watermark_example(void **state)
{
	(void)state;
	struct mm_config cfg = cfg_default(MMZONE_ITER_PRE);
	struct tw *t = tw_create(m_example, &cfg);
	assert_int_equal(mm_min_free_kbytes(t->w), 46126);
	struct mm_zone_info n0 = zinfo(t, 0, ZONE_NORMAL, -1);
	struct mm_zone_info d32 = zinfo(t, 0, ZONE_DMA32, -1);
	struct mm_zone_info dma = zinfo(t, 0, ZONE_DMA, -1);
	assert_int_equal(n0.watermark[0], 5546);
	assert_int_equal(n0.watermark[1], 21536);
	assert_int_equal(n0.watermark[2], 37526);
	assert_int_equal(n0.alloc_batch, 15990);
	assert_int_equal(d32.watermark[0], 260);
	assert_int_equal(d32.watermark[1], 1010);
	assert_int_equal(d32.watermark[2], 1760);
	assert_int_equal(dma.watermark[0], 1);
	assert_int_equal(dma.watermark[1], 4);
	assert_int_equal(dma.watermark[2], 7);
	assert_int_equal(dma.lowmem_reserve[ZONE_DMA], 0);
	assert_int_equal(dma.lowmem_reserve[ZONE_DMA32], 2929);
	assert_int_equal(dma.lowmem_reserve[ZONE_NORMAL], 65390);
	assert_int_equal(d32.lowmem_reserve[ZONE_DMA32], 0);
	assert_int_equal(d32.lowmem_reserve[ZONE_NORMAL], 62460);
	/* stat_threshold: 2 CPUs, Normal 15.99 M pages = 487 units of
	 * 128 MiB: 2 * fls(2) * (1 + fls(487)) = 2 * 2 * 10 = 40 */
	assert_int_equal(n0.stat_threshold, 40);
	tw_destroy(t);

	/* THP raise: 4 populated zones -> 512 * 4 * 11 pages = 90112 KiB */
	cfg.thp_min_free = 1;
	t = tw_create(m_example, &cfg);
	assert_int_equal(mm_min_free_kbytes(t->w), 90112);
	tw_destroy(t);
}

/* --- fair zone allocation policy ----------------------------------------- */

static void test_fair_policy(void **state)
{
	(void)state;
	struct mm_config cfg = cfg_default(MMZONE_ITER_POST);
	struct tw *t = tw_create(m_fair, &cfg);
	struct cpu *c = &t->s.cpu[0];
	struct mm_zone_info n0 = zinfo(t, 0, ZONE_NORMAL, 0);
	struct mm_zone_info d32 = zinfo(t, 0, ZONE_DMA32, 0);
	int64_t bn = n0.watermark[2] - n0.watermark[1];
	int64_t bd = d32.watermark[2] - d32.watermark[1];
	assert_true(bn > 0 && bd > 0);
	enum { N = 3000 };
	static struct page *pg[N];
	int switches = 0, prev = -1;
	for (int i = 0; i < N; i++) {
		pg[i] = mm_alloc_pages(t->w, c, GFP_KERNEL, 0);
		assert_non_null(pg[i]);
		assert_int_equal(mm_page_node(t->w, pg[i]), 0);   /* never remote */
		uint64_t pfn = mm_page_pfn(t->w, pg[i]);
		int in_dma32 = pfn < n0.start_pfn;
		if (prev >= 0 && in_dma32 != prev)
			switches++;
		prev = in_dma32;
	}
	int64_t an = ctr(t, "zone", "0/Normal", "pgalloc_normal");
	int64_t ad = ctr(t, "zone", "0/DMA32", "pgalloc_dma32");
	assert_int_equal(an + ad, N);
	/* both zones served, in proportion to their batches (with the pcp
	 * batching and per-cpu vmstat lag as slack) */
	assert_true(ad > 0 && an > ad);
	assert_true(switches >= 4);
	assert_true(ctr(t, "zone", "0/Normal", "zone_fair_depleted") >= 2);
	assert_true(ctr(t, "zone", "0/DMA32", "zone_fair_depleted") >= 2);
	assert_true(ctr(t, "zone", "0/Normal", "fair_reset") >= 2);
	assert_int_equal(ctr(t, "node", "0", "numa_hit"), N);
	tw_check(t);
	for (int i = 0; i < N; i++)
		mm_free_pages(t->w, c, pg[i], 0);
	tw_destroy(t);
}

/* --- iterator ------------------------------------------------------------- */

static void check_walk(struct tw *t, int node, enum zone_type high, int mems,
		       const int *en, const enum zone_type *et, int n)
{
	int nodes[16];
	enum zone_type types[16];
	int got = mm_zonelist_walk(t->w, &t->s.cpu[0], node, ZONELIST_FALLBACK, high, mems,
				   nodes, types, 16);
	assert_int_equal(got, n);
	for (int i = 0; i < n; i++) {
		assert_int_equal(nodes[i], en[i]);
		assert_int_equal(types[i], et[i]);
	}
}

static void walks(enum mmzone_iter v)
{
	struct mm_config cfg = cfg_default(v);
	cfg.cpusets_enabled = 1;
	cfg.nr_mems_allowed = 1;
	cfg.mems_allowed[0] = 1;
	struct tw *t = tw_create(m_seedlike, &cfg);
	/* node 0's list: 0/Normal 0/DMA32 0/DMA 1/Normal */
	const int n_all[] = {0, 0, 0, 1};
	const enum zone_type t_all[] = {ZONE_NORMAL, ZONE_DMA32, ZONE_DMA, ZONE_NORMAL};
	check_walk(t, 0, ZONE_NORMAL, 0, n_all, t_all, 4);
	check_walk(t, 0, ZONE_DMA32, 0, n_all + 1, t_all + 1, 2);
	check_walk(t, 0, ZONE_DMA, 0, n_all + 2, t_all + 2, 1);
	/* node 1's list: 1/Normal 0/Normal 0/DMA32 0/DMA */
	const int n1[] = {1, 0, 0, 0};
	const enum zone_type t1[] = {ZONE_NORMAL, ZONE_NORMAL, ZONE_DMA32, ZONE_DMA};
	check_walk(t, 1, ZONE_NORMAL, 0, n1, t1, 4);
	check_walk(t, 1, ZONE_DMA32, 0, n1 + 2, t1 + 2, 2);
	/* with current->mems_allowed = {1} */
	check_walk(t, 0, ZONE_NORMAL, 1, n_all + 3, t_all + 3, 1);
	check_walk(t, 0, ZONE_DMA32, 1, NULL, NULL, 0);
	check_walk(t, 1, ZONE_NORMAL, 1, n1, t1, 1);
	tw_destroy(t);
}

static void test_iterator_walks(void **state)
{
	(void)state;
	walks(MMZONE_ITER_PRE);
	walks(MMZONE_ITER_POST);
}

/* Run n order-0 alloc+free pairs after a warm-up; returns out-of-line calls
 * of next_zones_zonelist / __next_zones_zonelist per allocation (x1000)
 * and, when kinds is not NULL, the measured part's dependent loads,
 * independent loads, stores and mispredicts. */
static void profile_run(enum mmzone_iter v, int cpusets, uint32_t gfp, int nb,
			uint64_t *nzl, uint64_t *nnzl, uint64_t *cycles, uint64_t kinds[4])
{
	static const enum cpu_counter kind_ctr[4] = {
		CPU_CTR_mem_load_dep, CPU_CTR_mem_load, CPU_CTR_mem_store,
		CPU_CTR_branch_mispredict,
	};
	uint64_t k0[4];
	struct mm_config cfg = cfg_default(v);
	cfg.cpusets_enabled = cpusets;
	/* NR_ALLOC_BATCH of 10 % of the zone: no fair-policy depletion (and
	 * so no extra iterator step) during the 1664 allocations */
	cfg.watermark_scale_factor = 1000;
	struct tw *t = tw_create(m_seedlike, &cfg);
	struct cpu *c = &t->s.cpu[0];
	struct page *pg[16];
	assert_true(nb <= 16);
	for (int r = 0; r < 4; r++) {
		for (int i = 0; i < nb; i++)
			pg[i] = mm_alloc_pages(t->w, c, gfp, 0);
		for (int i = 0; i < nb; i++)
			mm_free_pages(t->w, c, pg[i], 0);
	}
	uint64_t a0 = fn_calls(t, "next_zones_zonelist");
	uint64_t b0 = fn_calls(t, "__next_zones_zonelist");
	uint64_t refill0 = (uint64_t)ctr(t, "zone", "0/Normal", "pcp_refill") +
			   (uint64_t)ctr(t, "zone", "0/DMA32", "pcp_refill");
	uint64_t c0 = c->now;
	for (int k = 0; k < 4; k++)
		k0[k] = cpu_counter(c, kind_ctr[k]);
	for (int r = 0; r < 100; r++) {
		for (int i = 0; i < nb; i++)
			pg[i] = mm_alloc_pages(t->w, c, gfp, 0);
		for (int i = 0; i < nb; i++)
			mm_free_pages(t->w, c, pg[i], 0);
	}
	assert_int_equal(ctr(t, "zone", "0/Normal", "zone_fair_depleted"), 0);
	/* pure pcp hits: no refill in the measured part */
	assert_int_equal((uint64_t)ctr(t, "zone", "0/Normal", "pcp_refill") +
				 (uint64_t)ctr(t, "zone", "0/DMA32", "pcp_refill"),
			 refill0);
	int inl = t->l.fn_inline[cost_fn_lookup(&t->t, "next_zones_zonelist")];
	*nzl = inl ? 0 : fn_calls(t, "next_zones_zonelist") - a0;
	*nnzl = fn_calls(t, "__next_zones_zonelist") - b0;
	*cycles = c->now - c0;
	for (int k = 0; kinds && k < 4; k++)
		kinds[k] = cpu_counter(c, kind_ctr[k]) - k0[k];
	tw_destroy(t);
}

static void test_iterator_profile(void **state)
{
	(void)state;
	uint64_t nzl, nnzl, cyc_pre, cyc_post, cyc, kpre[4], kpost[4];
	profile_run(MMZONE_ITER_PRE, 0, GFP_KERNEL, 16, &nzl, &nnzl, &cyc_pre, kpre);
	assert_int_equal(nzl, 2 * 1600);           /* exactly twice per allocation */
	assert_int_equal(nnzl, 0);
	profile_run(MMZONE_ITER_POST, 0, GFP_KERNEL, 16, &nzl, &nnzl, &cyc_post, kpost);
	assert_int_equal(nzl, 0);                  /* inlined: never called */
	assert_int_equal(nnzl, 0);                 /* and the slow part not either */
	assert_true(cyc_post < cyc_pre);
	/* PRE's extra loads are one dependent chain of 3 (current, z->zone->node,
	 * the mems_allowed word); independent loads and stores are the same */
	assert_int_equal(kpre[0] - kpost[0], 3 * 1600);
	assert_int_equal(kpre[1], kpost[1]);
	assert_int_equal(kpre[2], kpost[2]);
	/* cycles per allocation, mispredicts aside: 2 x call+ret (4), 3 x L1
	 * load-to-use (4), one branch (1) taken (1), 2 cycles of set-up work */
	int64_t dmis = (int64_t)kpre[3] - (int64_t)kpost[3];
	assert_int_equal((int64_t)(cyc_pre - cyc_post) - 16 * dmis,
			 1600 * (2 * 4 + 3 * 4 + 1 + 1 + 2));
	/* the default global-history predictor learns PRE's alternating
	 * `nodes == NULL` site: no extra mispredicts in PRE */
	assert_int_equal(kpre[3], kpost[3]);
	assert_true(kpre[3] < 1600 / 10);          /* round ends only */
	/* POST with cpusets: the nodemask forces __next_zones_zonelist */
	profile_run(MMZONE_ITER_POST, 1, GFP_KERNEL, 16, &nzl, &nnzl, &cyc, NULL);
	assert_int_equal(nzl, 0);
	assert_int_equal(nnzl, 2 * 1600);
	/* PRE with cpusets: still two calls per allocation */
	profile_run(MMZONE_ITER_PRE, 1, GFP_KERNEL, 16, &nzl, &nnzl, &cyc, NULL);
	assert_int_equal(nzl, 2 * 1600);
	/* POST, GFP_DMA32: the head entry (Normal) is above the limit; 2
	 * pages per round stay within DMA32's pcp (batch 3, high 18) */
	profile_run(MMZONE_ITER_POST, 0, GFP_KERNEL | __GFP_DMA32, 2, &nzl, &nnzl, &cyc, NULL);
	assert_int_equal(nnzl, 2 * 200);
}

/* --- the work layout (cost.code) ------------------------------------------ */

/* 100 rounds of nb pcp-hit alloc+free pairs on CPU 0 after a warm-up, with
 * the work layout code: the measured part's cycles, its counters (calls,
 * branches, taken, mispredicts, dependent loads, loads, stores) and the
 * total cycles of get_page_from_freelist and the self cycles of _cond_resched. */
static void layout_run(enum mmzone_iter v, enum mm_code code, uint64_t *cycles,
		       uint64_t k[7], uint64_t self[2], uint64_t *call_ret)
{
	static const enum cpu_counter kc[7] = {
		CPU_CTR_calls, CPU_CTR_branches, CPU_CTR_branches_taken,
		CPU_CTR_branch_mispredict, CPU_CTR_mem_load_dep, CPU_CTR_mem_load,
		CPU_CTR_mem_store,
	};
	struct mm_config cfg = cfg_default(v);
	cfg.code = code;
	cfg.watermark_scale_factor = 1000;
	struct tw *t = tw_create(m_seedlike, &cfg);
	struct cpu *c = &t->s.cpu[0];
	int fg = cost_fn_lookup(&t->t, "get_page_from_freelist");
	int fi = cost_fn_lookup(&t->t, "_cond_resched");
	struct page *pg[16];
	uint64_t k0[7], c0 = 0, s0[2] = {0, 0};
	for (int r = 0; r < 104; r++) {
		if (r == 4) {
			c0 = c->now;
			for (int i = 0; i < 7; i++)
				k0[i] = cpu_counter(c, kc[i]);
			s0[0] = c->prof[fg].total;
			s0[1] = c->prof[fi].self;
		}
		for (int i = 0; i < 16; i++)
			pg[i] = mm_alloc_pages(t->w, c, GFP_KERNEL, 0);
		for (int i = 0; i < 16; i++)
			mm_free_pages(t->w, c, pg[i], 0);
	}
	cpu_attribute(c);
	*cycles = c->now - c0;
	for (int i = 0; i < 7; i++)
		k[i] = cpu_counter(c, kc[i]) - k0[i];
	self[0] = c->prof[fg].total - s0[0];
	self[1] = c->prof[fi].self - s0[1];
	*call_ret = (uint64_t)c->k_call + c->k_ret;
	tw_check(t);
	tw_destroy(t);
}

/*
 * cost.code selects the MM_WORK column and the functions gcc 11 keeps out
 * of line (docs/design/compiled-counts.md §1), nothing else: the same branches,
 * outcomes and accesses; per pcp-hit pair 7 more out-of-line calls
 * (get_task_policy, policy_zonelist, policy_nodemask, zone_local,
 * __zone_watermark_ok, prep_new_page; free_pages_prepare); other cycles
 * where the rows differ (get_page_from_freelist), the same where they are
 * equal in-order (_cond_resched, 4 and 3: both ceil to 2); the default under inorder
 * is the estimate.  In-order cycles per pcp-hit pair differ by those 7
 * calls and returns (k_call + k_ret each) plus the sum over the rows the
 * pair executes of ceil(compiled / 2) - ceil(estimate / 2), worked by hand
 * from the table: POST 151 (alloc_pages_current 32, alloc_nodemask 22,
 * nzl_inline 2 x -1, gpfl_entry 14, gpfl_zone 5, watermark 8, buffered_pcp
 * 10, mod_zone_page_state 2, zone_statistics 1, inc_zone_state 2 x 1,
 * prep_new_page 22, free_pages 1, free_hot_cold_page 19,
 * free_pages_prepare 9, pfnblock 6); PRE 157 (the same, gpfl_entry 33
 * also ceils to 17, but nzl_body's 2 x (4 - 2) in place of nzl_inline's
 * 2 x -1: 151 + 2 + 4).
 */
static void test_code_layout(void **state)
{
	(void)state;
	for (int v = 0; v < 2; v++) {
		enum mmzone_iter it = v ? MMZONE_ITER_POST : MMZONE_ITER_PRE;
		uint64_t ce, cc, cd, ke[7], kc[7], kd[7], se[2], sc[2], sd[2], call_ret;
		layout_run(it, MM_CODE_ESTIMATE, &ce, ke, se, &call_ret);
		layout_run(it, MM_CODE_COMPILED, &cc, kc, sc, &call_ret);
		layout_run(it, MM_CODE_DEFAULT, &cd, kd, sd, &call_ret);
		assert_true(call_ret > 0);
		for (int i = 0; i < 7; i++) {
			/* counter 0 is calls: + 7 out-of-line helpers per pair */
			assert_int_equal(ke[i] + (i == 0 ? 100 * 16 * 7 : 0), kc[i]);
			assert_int_equal(ke[i], kd[i]);
		}
		assert_int_equal(cd, ce);             /* inorder: estimate by default */
		assert_int_equal(sd[0], se[0]);
		assert_true(sc[0] > se[0]);           /* gpfl's rows grew */
		assert_true(sc[1] > 0);
		assert_int_equal(sc[1], se[1]);       /* cond_resched: 4, 3: both ceil to 2 */
		/* PRE: nzl_body (7 vs 3: +4 -> +2 cycles) runs twice where POST's
		 * nzl_inline (0 vs 2: -1 cycle) does; gpfl_entry 33 vs 34: both
		 * ceil to 17 */
		uint64_t per_pair = (v ? 151 : 151 + 2 * 1 + 2 * 2) + 7 * call_ret;
		assert_int_equal(cc - ce, 100 * 16 * per_pair);
	}
}

/*
 * Which functions each layout keeps out of line: next_zones_zonelist by
 * the variant alone (out of line before 682a3385, an inline wrapper after:
 * the profile fact of the seed), the helpers gcc 11 keeps out of line
 * (nm -S of the objects) only under the compiled layout, and
 * __alloc_pages_slowpath, which gcc 11 inlines, out of line only under the
 * estimate.  A world whose code layout is not its cost layout's is refused.
 */
static void test_code_layout_inlining(void **state)
{
	(void)state;
	static const char *const ool[] = {
		"get_task_policy", "policy_zonelist", "policy_nodemask", "interleave_nodes",
		"zone_local", "__zone_watermark_ok", "find_suitable_fallback", "prep_new_page",
		"reset_alloc_batches", "free_pages_prepare", "free_one_page",
	};
	for (int v = 0; v < 2; v++)
		for (int k = 0; k < 2; k++) {
			enum mmzone_iter it = v ? MMZONE_ITER_POST : MMZONE_ITER_PRE;
			enum mm_code code = k ? MM_CODE_COMPILED : MM_CODE_ESTIMATE;
			struct mm_config cfg = cfg_default(it);
			cfg.code = code;
			struct tw *t = tw_create(m_seedlike, &cfg);
			const uint8_t *inl = t->l.fn_inline;
			assert_int_equal(inl[cost_fn_lookup(&t->t, "next_zones_zonelist")], v);
			assert_int_equal(inl[cost_fn_lookup(&t->t, "__next_zones_zonelist")], 0);
			for (size_t i = 0; i < sizeof ool / sizeof ool[0]; i++)
				assert_int_equal(inl[cost_fn_lookup(&t->t, ool[i])], !k);
			assert_int_equal(inl[cost_fn_lookup(&t->t, "__alloc_pages_slowpath")], k);
			/* inline in both: buffered_rmqueue, zone_statistics, __free_one_page */
			assert_int_equal(inl[cost_fn_lookup(&t->t, "buffered_rmqueue")], 1);
			assert_int_equal(inl[cost_fn_lookup(&t->t, "zone_statistics")], 1);
			assert_int_equal(inl[cost_fn_lookup(&t->t, "__free_one_page")], 1);
			assert_int_equal(mm_layout_is_compiled(&t->l, t->fn_base), k);
			/* the other code layout over this cost layout: refused */
			struct mm_config other = cfg;
			other.code = k ? MM_CODE_ESTIMATE : MM_CODE_COMPILED;
			struct mm_world *w = NULL;
			struct diag d;
			diag_init(&d);
			assert_int_equal(mm_world_create(t->m, &other, &t->s, t->fn_base,
							 t->site_base, &w, &d), NS_EINTERNAL);
			assert_null(w);
			assert_non_null(strstr(d.msg, "not filled for the"));
			tw_destroy(t);
		}
	/* unresolved code: refused by mm_layout */
	struct cost_tables tb;
	struct cost_layout l;
	int fb, sb;
	cost_tables_init(&tb);
	assert_int_equal(mm_register(&tb, &fb, &sb), NS_OK);
	assert_int_equal(cost_layout_init(&l, &tb, "x"), NS_OK);
	assert_int_equal(mm_layout(&l, &tb, fb, sb, MMZONE_ITER_PRE, MM_CODE_DEFAULT),
			 NS_EINTERNAL);
	assert_int_equal(mm_code_resolve(MM_CODE_DEFAULT, CPU_MODEL_OOO), MM_CODE_COMPILED);
	assert_int_equal(mm_code_resolve(MM_CODE_DEFAULT, CPU_MODEL_INORDER), MM_CODE_ESTIMATE);
	assert_int_equal(mm_code_resolve(MM_CODE_ESTIMATE, CPU_MODEL_OOO), MM_CODE_ESTIMATE);
	cost_layout_free(&l);
	cost_tables_free(&tb);
}

static void test_cpuset_remote(void **state)
{
	(void)state;
	for (int v = MMZONE_ITER_PRE; v <= MMZONE_ITER_POST; v++) {
		struct mm_config cfg = cfg_default((enum mmzone_iter)v);
		cfg.cpusets_enabled = 1;
		cfg.nr_mems_allowed = 1;
		cfg.mems_allowed[0] = 1;
		struct tw *t = tw_create(m_seedlike, &cfg);
		struct page *p = mm_alloc_pages(t->w, &t->s.cpu[0], GFP_KERNEL, 0);
		assert_non_null(p);
		assert_int_equal(mm_page_node(t->w, p), 1);
		assert_int_equal(ctr(t, "zone", "1/Normal", "numa_miss"), 1);
		assert_int_equal(ctr(t, "zone", "1/Normal", "numa_foreign"), 1);
		mm_free_pages(t->w, &t->s.cpu[0], p, 0);
		tw_destroy(t);
	}
}

/* --- sampled accounting: the models' fast copy ----------------------------- */

/* What a run leaves on a CPU, folded: clock, counters, sites, profile and
 * call paths. */
struct fc_state {
	uint64_t now, pfns;
	uint64_t ctr[CPU_NR_COUNTERS];
	struct cpu_site_stat site[2048];
	struct cpu_prof prof[512];
	uint32_t nr_paths;
	uint64_t path_sum;
	struct cpu_memo_stats st;
};

/* A mixed run on two CPUs: orders 0..3, rounds of 1..40 pages (pcp hits,
 * refills, drains, buddy splits and merges), frees on the other CPU. */
static void fast_copy_run(bool copy, enum cpu_warm warm, bool pad, struct fc_state out[2])
{
	struct mm_config cfg = cfg_default(MMZONE_ITER_POST);
	struct cpu_params p;
	cpu_params_default(&p);
	p.accounting = CPU_ACCOUNTING_SAMPLED;
	p.sample_period = 7;
	p.sample_warm = warm;
	struct tw *t;
	struct diag d;
	diag_init(&d);
	assert_int_equal(tw_try_pad(tw_machine(m_seedlike), &cfg, &p, NULL, 0, pad, &t, &d), NS_OK);
	for (int i = 0; i < t->s.nr_cpus; i++) {
		assert_true(t->s.cpu[i].fcopy);
		t->s.cpu[i].fcopy = copy;
	}
	assert_true(t->t.nr_sites <= 2048 && t->t.nr_fns <= 512);
	static struct page *pg[64];
	memset(out, 0, 2 * sizeof *out);
	for (int r = 0; r < 300; r++) {
		int n = 1 + (r * 7) % 40;
		unsigned order = r % 11 == 0 ? (unsigned)(r % 4) : 0;
		for (int i = 0; i < n; i++) {
			pg[i] = mm_alloc_pages(t->w, &t->s.cpu[r & 1], GFP_KERNEL, order);
			assert_non_null(pg[i]);
			out[r & 1].pfns = out[r & 1].pfns * 31 + mm_page_pfn(t->w, pg[i]);
		}
		for (int i = 0; i < n; i++)
			mm_free_pages(t->w, &t->s.cpu[(r + (i & 1)) & 1], pg[i], order);
	}
	for (int k = 0; k < 2; k++) {
		struct cpu *c = &t->s.cpu[k];
		assert_int_equal(cpu_check(c), NS_OK);   /* folds the fast calls' counts */
		cpu_attribute(c);
		out[k].now = c->now;
		for (int i = 0; i < CPU_NR_COUNTERS; i++)
			out[k].ctr[i] = cpu_counter(c, (enum cpu_counter)i);
		memcpy(out[k].site, c->site, (size_t)t->t.nr_sites * sizeof *c->site);
		for (int i = 0; i < t->t.nr_fns; i++) {
			out[k].prof[i] = c->prof[i];
			out[k].prof[i].active = 0;
		}
		out[k].nr_paths = c->nr_paths;
		for (uint32_t i = 0; i < c->nr_paths; i++)
			out[k].path_sum = out[k].path_sum * 1000003u + c->path[i].calls * 7 +
					  c->path[i].self * 13 + c->path[i].mispredicts;
	}
	cpu_memo_stats(&t->s, &out[0].st);
	tw_destroy(t);
}

/*
 * The fast copy (models/mm_copy.c) gives the ordinary code's results bit
 * for bit: the same clocks, counters, site counts, profile and call paths,
 * with and without warming, while most fast calls run in the copy.
 */
static void test_fast_copy(void **state)
{
	(void)state;
	static struct fc_state a[2], b[2];
	/* every warming: the copy for caches also serves stores, whose
	 * loads it skips as the ordinary code does */
	const enum cpu_warm warms[] = {CPU_WARM_NONE, CPU_WARM_CACHES, CPU_WARM_STORES};
	for (size_t wi = 0; wi < sizeof warms / sizeof warms[0]; wi++) {
		enum cpu_warm warm = warms[wi];
		fast_copy_run(true, warm, false, a);
		fast_copy_run(false, warm, false, b);
		assert_true(a[0].st.fast > 1000);
		assert_true(a[0].st.copied * 10 > a[0].st.fast * 9);
		assert_int_equal(b[0].st.copied, 0);
		assert_int_equal(a[0].st.fast, b[0].st.fast);
		assert_int_equal(a[0].st.samples, b[0].st.samples);
		for (int k = 0; k < 2; k++) {
			assert_int_equal(a[k].now, b[k].now);
			assert_int_equal(a[k].pfns, b[k].pfns);
			assert_memory_equal(a[k].ctr, b[k].ctr, sizeof a[k].ctr);
			assert_memory_equal(a[k].site, b[k].site, sizeof a[k].site);
			assert_memory_equal(a[k].prof, b[k].prof, sizeof a[k].prof);
			assert_int_equal(a[k].nr_paths, b[k].nr_paths);
			assert_int_equal(a[k].path_sum, b[k].path_sum);
		}
		assert_true(a[0].ctr[CPU_CTR_branches] > 0);
	}
}

/*
 * The copies use the page allocator's ids as constants (its tables come
 * first in every world): in a world where they do not, the entries run
 * the ordinary code, whose fast calls give the same counts.
 */
static void test_fast_copy_needs_first_ids(void **state)
{
	(void)state;
	static struct fc_state a[2], b[2];
	fast_copy_run(true, CPU_WARM_NONE, true, a);
	fast_copy_run(true, CPU_WARM_NONE, false, b);
	assert_true(a[0].st.fast > 1000);
	assert_int_equal(a[0].st.copied, 0);
	assert_true(b[0].st.copied * 10 > b[0].st.fast * 9);
	for (int k = 0; k < 2; k++) {
		assert_int_equal(a[k].pfns, b[k].pfns);
		assert_int_equal(a[k].ctr[CPU_CTR_branches], b[k].ctr[CPU_CTR_branches]);
		assert_int_equal(a[k].ctr[CPU_CTR_calls], b[k].ctr[CPU_CTR_calls]);
		/* the sites one further on: pad's is 0 */
		for (int i = 0; i + 1 < 2048; i++)
			assert_int_equal(a[k].site[i + 1].executed, b[k].site[i].executed);
	}
}

/* --- determinism and gfp parsing ----------------------------------------- */

static uint64_t det_run(uint64_t *sum)
{
	struct mm_config cfg = cfg_default(MMZONE_ITER_PRE);
	struct tw *t = tw_create(m_fair, &cfg);
	static struct page *pg[500];
	uint64_t s = 0;
	for (int r = 0; r < 3; r++) {
		for (int i = 0; i < 500; i++) {
			pg[i] = mm_alloc_pages(t->w, &t->s.cpu[i & 1], GFP_KERNEL, (unsigned)(i % 3));
			s = s * 31 + mm_page_pfn(t->w, pg[i]);
		}
		for (int i = 0; i < 500; i++)
			mm_free_pages(t->w, &t->s.cpu[(i + r) & 1], pg[i], (unsigned)(i % 3));
	}
	uint64_t cyc = t->s.cpu[0].now * 3 + t->s.cpu[1].now;
	tw_destroy(t);
	*sum = s;
	return cyc;
}

static void test_determinism(void **state)
{
	(void)state;
	uint64_t s1, s2;
	uint64_t c1 = det_run(&s1), c2 = det_run(&s2);
	assert_int_equal(c1, c2);
	assert_int_equal(s1, s2);
}

static void test_gfp_parse(void **state)
{
	(void)state;
	uint32_t g;
	assert_int_equal(gfp_parse("GFP_KERNEL|__GFP_NOWARN", &g), NS_OK);
	assert_int_equal(g, GFP_KERNEL | __GFP_NOWARN);
	assert_int_equal(gfp_parse("GFP_ATOMIC", &g), NS_OK);
	assert_int_equal(g, 0x20u | 0x80000u | 0x2000000u);
	assert_int_equal(gfp_parse("GFP_KERNEL|", &g), NS_EINPUT);
	assert_int_equal(gfp_parse("GFP_KERNEL||__GFP_COLD", &g), NS_EINPUT);
	assert_int_equal(gfp_parse("GFP_BOGUS", &g), NS_EINPUT);
	assert_int_equal(gfp_parse("", &g), NS_EINPUT);
	assert_int_equal(mmzone_iter_parse("pre-682a3385"), MMZONE_ITER_PRE);
	assert_int_equal(mmzone_iter_parse("682a3385"), MMZONE_ITER_POST);
	assert_int_equal(mmzone_iter_parse("nope"), -1);
}

/*
 * mm_world_validate (the preflight's world, no memmap) accepts and refuses
 * exactly what mm_world_create does, with the same message.
 */
static void test_validate_like_create(void **state)
{
	(void)state;
	struct mm_config c = cfg_default(MMZONE_ITER_POST);
	struct tw *t = tw_create(m_seedlike, &c);
	const unsigned modes[] = {0, 1, 8};
	for (size_t i = 0; i < sizeof modes / sizeof modes[0]; i++) {
		struct mm_config k = c;
		k.zone_reclaim_mode = modes[i];
		struct mm_world *a = NULL, *b = NULL;
		struct diag da, db;
		diag_init(&da);
		diag_init(&db);
		int ra = mm_world_create(t->m, &k, &t->s, t->fn_base, t->site_base, &a, &da);
		int rb = mm_world_validate(t->m, &k, &t->s, t->fn_base, t->site_base, &b, &db);
		assert_int_equal(ra, rb);
		assert_string_equal(da.msg, db.msg);
		assert_int_equal(a != NULL, b != NULL);
		assert_int_equal(ra, modes[i] ? NS_EINPUT : NS_OK);
		mm_world_destroy(a);
		mm_world_destroy(b);
	}
	tw_destroy(t);
}

/* --- memory in use from the start (machine key free:) -------------------- */

/* node 0: DMA 16 MiB + DMA32 64 MiB + Normal 128 MiB = 53248 pages, 17923
 * free: 35325 in use = all of Normal (32768), then DMA32 from its top: two
 * whole blocks and 509 pages of the next.  node 1: Normal of 16387 pages
 * (a 3-page partial last block), 16000 free: the partial block and 384
 * pages of block 15. */
static const char m_boot[] =
	"name: boot\nnodes:\n  - id: 0\n    cpus: \"0\"\n    free: 17923\n    zones:\n"
	"      - {type: DMA, size: 16MiB}\n"
	"      - {type: DMA32, size: 64MiB}\n"
	"      - {type: Normal, size: 128MiB}\n"
	"  - id: 1\n    cpus: \"1\"\n    free: 16000\n    zones:\n"
	"      - {type: Normal, size: 16387}\n"
	"distance:\n  - [10, 21]\n  - [21, 10]\n" COSTS;

static int64_t node_free(struct tw *t, int node, int cpu)
{
	int64_t sum = 0;
	for (int z = 0; z < NR_ZONE_TYPES; z++) {
		struct mm_zone_info i;
		if (mm_zone_get_info(t->w, node, (enum zone_type)z, cpu, &i) == NS_OK)
			sum += i.nr_free_pages + i.pcp_count;
	}
	return sum;
}

static void test_boot_used(void **state)
{
	(void)state;
	struct mm_config cfg = cfg_default(MMZONE_ITER_POST);
	struct tw *t = tw_create(m_boot, &cfg);
	tw_check(t);
	assert_int_equal(t->m->nodes[0].used_pages, 35325);
	assert_int_equal(node_free(t, 0, 0), 17923);
	assert_int_equal(node_free(t, 1, 1), 16000);
	struct mm_zone_info dma = zinfo(t, 0, ZONE_DMA, 0);
	struct mm_zone_info dma32 = zinfo(t, 0, ZONE_DMA32, 0);
	struct mm_zone_info normal = zinfo(t, 0, ZONE_NORMAL, 0);
	struct mm_zone_info n1 = zinfo(t, 1, ZONE_NORMAL, 1);
	assert_int_equal(dma.boot_used, 0);
	assert_int_equal(dma.nr_free_pages, 4096);
	assert_int_equal(normal.boot_used, 32768);
	assert_int_equal(normal.nr_free_pages, 0);
	assert_int_equal(normal.managed, 32768);        /* managed keeps the pages in use */
	assert_int_equal(dma32.boot_used, 2557);
	assert_int_equal(dma32.allocated, 0);
	/* DMA32's 16 blocks: 13 whole free, 2 whole in use, one split: 509 =
	 * 256+128+64+32+16+8+4+1 in use, the rest free in aligned pieces */
	assert_int_equal(dma32.nr_free[10], 13);
	assert_int_equal(dma32.nr_free[9], 1);            /* 512..1023 */
	for (int o = 2; o < 9; o++)
		assert_int_equal(dma32.nr_free[o], 0);
	assert_int_equal(dma32.nr_free[1], 1);            /* 510..511 */
	assert_int_equal(dma32.nr_free[0], 1);            /* 509 */
	assert_int_equal(n1.boot_used, 387);
	assert_int_equal(n1.nr_free[10], 15);
	assert_int_equal(n1.nr_free_pages, 16000);

	/* the allocator works around them: fill node 1 from CPU 1 as far as
	 * the watermarks let it, free everything, and only the pages in use
	 * from the start stay taken */
	struct cpu *c = &t->s.cpu[1];
	size_t n = 0, cap = 20000;
	struct page **pages = calloc(cap, sizeof *pages);
	assert_non_null(pages);
	while (n < cap && (pages[n] = mm_alloc_pages(t->w, c, GFP_KERNEL | __GFP_THISNODE, 0)))
		n++;
	assert_true(n > 15000 && n < 16000);
	tw_check(t);
	for (size_t i = 0; i < n; i++)
		mm_free_pages(t->w, c, pages[i], 0);
	free(pages);
	mm_drain_local_pages(t->w, c);
	tw_check(t);
	n1 = zinfo(t, 1, ZONE_NORMAL, 1);
	assert_int_equal(n1.nr_free_pages, 16000);
	assert_int_equal(n1.boot_used, 387);
	assert_int_equal(n1.allocated, 0);
	tw_destroy(t);

	/* without free: nothing in use (every existing machine) */
	t = tw_create(m_fair, &cfg);
	assert_int_equal(zinfo(t, 0, ZONE_NORMAL, 0).boot_used, 0);
	assert_int_equal(node_free(t, 0, 0), 49152);
	tw_destroy(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_buddy_split_merge),
		cmocka_unit_test(test_validate_like_create),
		cmocka_unit_test(test_orders_1_to_4),
		cmocka_unit_test(test_order_9_10),
		cmocka_unit_test(test_pcp_batch_high),
		cmocka_unit_test(test_watermark_remote_fallback),
		cmocka_unit_test(test_watermark_example),
		cmocka_unit_test(test_fair_policy),
		cmocka_unit_test(test_iterator_walks),
		cmocka_unit_test(test_code_layout),
		cmocka_unit_test(test_code_layout_inlining),
		cmocka_unit_test(test_iterator_profile),
		cmocka_unit_test(test_cpuset_remote),
		cmocka_unit_test(test_determinism),
		cmocka_unit_test(test_fast_copy),
		cmocka_unit_test(test_fast_copy_needs_first_ids),
		cmocka_unit_test(test_gfp_parse),
		cmocka_unit_test(test_boot_used),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
