/*
 * test_kcommit — models/kcommit (the table of the 2016 series' commits,
 * lookups, selectability, "did you mean") and, per commit, that the page
 * allocator model changes what the diff changes: the sites a commit
 * removes are no longer executed, the ones it adds are, the functions it
 * inlines or stops calling are, and a commit the benchmark's code does not
 * feel (status 'N') changes no cycle and no branch.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cost/cpu.h"
#include "base/diag.h"
#include "models/kcommit.h"
#include "models/page_alloc.h"
#include "tests/page_alloc_fixture.h"
#include "tests/test_costs_yaml.h"

#define COSTS TEST_COSTS_YAML

/* seed-like small: node 0 DMA + DMA32 + Normal, node 1 Normal. */
static const char m_seedlike[] =
	"name: seedlike\nnodes:\n  - id: 0\n    cpus: \"0\"\n    zones:\n"
	"      - {type: DMA, size: 16MiB}\n"
	"      - {type: DMA32, size: 64MiB}\n"
	"      - {type: Normal, size: 1GiB}\n"
	"  - id: 1\n    cpus: \"1\"\n    zones:\n"
	"      - {type: Normal, size: 1GiB}\n"
	"distance:\n  - [10, 21]\n  - [21, 10]\n" COSTS;

/* --- the table ------------------------------------------------------------ */

static void test_table(void **state)
{
	(void)state;
	assert_int_equal(kcommit_check(), NS_OK);
	/* series order: v4.6-rc2 first, v3 01..28 after it */
	assert_string_equal(kcommit_id(KC_v4_6_rc2), "v4.6-rc2");
	assert_int_equal(kcommit_v3(KC_v4_6_rc2), 0);
	for (int k = KC_v3_01; k <= KC_v3_28; k++) {
		assert_int_equal(kcommit_v3((enum kcommit)k), k - KC_v4_6_rc2);
		assert_string_equal(kcommit_tree((enum kcommit)k), "mm");
		assert_true(kcommit_selectable((enum kcommit)k));
	}
	assert_string_equal(kcommit_id(KC_v3_05), "682a3385e773");
	assert_int_equal(kcommit_status(KC_v3_08), 'N');
	assert_int_equal(kcommit_status(KC_v3_20), 'M');
	assert_null(kcommit_id(KCOMMIT_UNSET));
	assert_int_equal(kcommit_last_selectable("mm"), KC_v3_28);
	/* the entry a commit behaves as: 'N' entries fall back to the 'M'
	 * before them (scenario_point_twin) */
	for (int k = KC_v3_07; k <= KC_v3_12; k++)
		assert_int_equal(kcommit_effective((enum kcommit)k), KC_v3_06);
	assert_int_equal(kcommit_effective(KC_v3_14), KC_v3_13);
	assert_int_equal(kcommit_effective(KC_v3_17), KC_v3_16);
	assert_int_equal(kcommit_effective(KC_v3_24), KC_v3_23);
	assert_int_equal(kcommit_effective(KC_v3_05), KC_v3_05);
	assert_int_equal(kcommit_effective(KC_v4_6_rc2), KC_v4_6_rc2);
	assert_int_equal(kcommit_effective(KC_slub_02), KC_slub_02);
	assert_int_equal(kcommit_effective(KCOMMIT_UNSET), KCOMMIT_UNSET);
	/* lookups: the id, a 7+ hex prefix, the documented names */
	assert_int_equal(kcommit_parse("mm", "682a3385e773"), KC_v3_05);
	assert_int_equal(kcommit_parse("mm", "682a338"), KC_v3_05);
	assert_int_equal(kcommit_parse("mm", "682a33"), KCOMMIT_UNSET);   /* too short */
	assert_int_equal(kcommit_parse("mm", "v3-13-empty-zonelist"), KC_v3_13);
	assert_int_equal(kcommit_parse("mm", "v4.6-rc2"), KC_v4_6_rc2);
	assert_int_equal(kcommit_parse("mm", "v4.7"), KCOMMIT_UNSET);
	assert_int_equal(kcommit_parse("slub", "682a3385e773"), KCOMMIT_UNSET);
	/* "did you mean": a misspelt id, a short prefix, nothing close */
	assert_string_equal(kcommit_suggest("mm", "682a3358e773"), "682a3385e773");
	assert_string_equal(kcommit_suggest("mm", "682a3"), "682a3385e773");
	assert_string_equal(kcommit_suggest("mm", "v4.6-rc3"), "v4.6-rc2");
	assert_null(kcommit_suggest("mm", "something-else-entirely"));
	/* what runs record */
	assert_string_equal(kcommit_kernel_model(KC_v4_6_rc2), "v4.6-rc2");
	assert_string_equal(kcommit_kernel_model(KC_v3_20), "v4.6-rc2+series:48ee5f3696f6");
	char buf[2048];
	kcommit_list("mm", buf, sizeof buf);
	assert_int_equal(strncmp(buf, "v4.6-rc2, d61f85903974, ", 24), 0);
	assert_non_null(strstr(buf, ", 479f854a207c"));
}

/* the old key: zonelist_iter picks v3 04 or v3 05 when no commit is set */
static void test_config_commit(void **state)
{
	(void)state;
	struct mm_config c;
	mm_config_default(&c);
	assert_int_equal(c.commit, KCOMMIT_UNSET);
	c.iter = MMZONE_ITER_PRE;
	assert_int_equal(mm_config_commit(&c), KC_v3_04);
	c.iter = MMZONE_ITER_POST;
	assert_int_equal(mm_config_commit(&c), KC_v3_05);
	c.commit = KC_v4_6_rc2;
	assert_int_equal(mm_config_commit(&c), KC_v4_6_rc2);
	assert_int_equal(mm_commit_iter(KC_v3_04), MMZONE_ITER_PRE);
	assert_int_equal(mm_commit_iter(KC_v3_05), MMZONE_ITER_POST);
	assert_int_equal(mm_commit_iter(KC_v3_28), MMZONE_ITER_POST);
}

/* --- one run per commit --------------------------------------------------- */

#define MAX_SITES 1024

/* What a run of a commit did: cycles, calls, sites. */
struct crun {
	uint64_t cycles, allocs, frees, refill_pages, drain_pages, dep_loads;
	uint64_t executed[MAX_SITES];
	struct tw *t;
};

static int branch_cb(void *arg, const struct cpu_branch_row *r)
{
	struct crun *cr = arg;
	int id = cost_site_lookup(&cr->t->t, r->site);
	assert_true(id >= 0 && id < MAX_SITES);
	cr->executed[id] = r->executed;
	return NS_OK;
}

/* Whether name is a site (fn: a function) of the page allocator's tables
 * or the series' (a world of v3 04 or 05 registers only the former). */
static bool known(const char *name, bool fn)
{
	struct cost_tables t;
	int fb, sb;
	cost_tables_init(&t);
	assert_int_equal(mm_register(&t, &fb, &sb), NS_OK);
	assert_int_equal(mm_series_register(&t, &fb, &sb), NS_OK);
	bool k = (fn ? cost_fn_lookup(&t, name) : cost_site_lookup(&t, name)) >= 0;
	cost_tables_free(&t);
	return k;
}

/* Executions of a site in the run: 0 when the run's tables lack it. */
static uint64_t site(const struct crun *cr, const char *name)
{
	assert_true(known(name, false));
	int id = cost_site_lookup(&cr->t->t, name);
	assert_true(id < MAX_SITES);
	return id < 0 ? 0 : cr->executed[id];
}

static uint64_t calls(struct crun *cr, const char *fn)
{
	assert_true(known(fn, true));
	return cost_fn_lookup(&cr->t->t, fn) < 0 ? 0 : fn_calls(cr->t, fn);
}

static int inlined(struct crun *cr, const char *fn)
{
	return cr->t->l.fn_inline[cost_fn_lookup(&cr->t->t, fn)];
}

static uint64_t zone_ev(struct crun *cr, const char *name)
{
	return (uint64_t)ctr(cr->t, "zone", "0/Normal", name);
}

/*
 * Commit k on CPU 0: 8 rounds of nb order-0 allocations then nb frees
 * (nb 200 crosses the pcp high mark of 186: refills and drains; the fair
 * batch of the Normal zone depletes too).  The caller frees cr->t with
 * tw_destroy().
 */
static void crun(enum kcommit k, int cpusets, enum mm_code code, int nb, struct crun *cr)
{
	memset(cr, 0, sizeof *cr);
	struct mm_config cfg;
	mm_config_default(&cfg);
	cfg.commit = k;
	cfg.iter = mm_commit_iter(k);
	cfg.cpusets_enabled = cpusets;
	cfg.code = code;
	cr->t = tw_create(m_seedlike, &cfg);
	struct cpu *c = &cr->t->s.cpu[0];
	struct page **pg = calloc((size_t)nb, sizeof *pg);
	assert_non_null(pg);
	for (int r = 0; r < 8; r++) {
		for (int i = 0; i < nb; i++)
			assert_non_null(pg[i] = mm_alloc_pages(cr->t->w, c, GFP_KERNEL, 0));
		for (int i = 0; i < nb; i++)
			mm_free_pages(cr->t->w, c, pg[i], 0);
	}
	free(pg);
	cr->allocs = cr->frees = 8u * (unsigned)nb;
	cr->cycles = c->now;
	cr->dep_loads = cpu_counter(c, CPU_CTR_mem_load_dep);
	static const char *const zones[] = {"0/DMA", "0/DMA32", "0/Normal", "1/Normal"};
	for (int z = 0; z < 4; z++) {
		cr->refill_pages += (uint64_t)ctr(cr->t, "zone", zones[z], "pcp_refill_pages");
		cr->drain_pages += (uint64_t)ctr(cr->t, "zone", zones[z], "pcp_drain_pages");
	}
	assert_int_equal(cpu_sys_branches(&cr->t->s, -1, branch_cb, cr), NS_OK);
}

/* Status 'N': the run of k equals the run of the commit before it, cycle
 * for cycle and branch for branch. */
static void test_no_change_commits(void **state)
{
	(void)state;
	int n = 0;
	for (int k = KC_v3_01; k <= KC_v3_28; k++) {
		if (kcommit_status((enum kcommit)k) != 'N')
			continue;
		for (int cs = 0; cs < 2; cs++) {
			struct crun *a = malloc(sizeof *a), *b = malloc(sizeof *b);
			crun((enum kcommit)(k - 1), cs, MM_CODE_DEFAULT, 200, a);
			crun((enum kcommit)k, cs, MM_CODE_DEFAULT, 200, b);
			assert_int_equal(a->cycles, b->cycles);
			assert_memory_equal(a->executed, b->executed, sizeof a->executed);
			tw_destroy(a->t);
			tw_destroy(b->t);
			free(a);
			free(b);
		}
		n++;
	}
	assert_int_equal(n, 9);    /* 07 08 09 10 11 12 14 17 24 */
}

/* Runs of commit k - 1 and k (both freed by the caller's pair_free). */
struct pair {
	struct crun a, b;
};

static struct pair *pair_run(enum kcommit k, int cpusets, enum mm_code code, int nb)
{
	struct pair *p = malloc(sizeof *p);
	assert_non_null(p);
	crun((enum kcommit)(k - 1), cpusets, code, nb, &p->a);
	crun(k, cpusets, code, nb, &p->b);
	return p;
}

static void pair_free(struct pair *p)
{
	tw_destroy(p->a.t);
	tw_destroy(p->b.t);
	free(p);
}

static void test_v3_01_to_06(void **state)
{
	(void)state;
	/* 01: PageCompound and the order-0 tail-loop test leave the free */
	struct pair *p = pair_run(KC_v3_01, 0, MM_CODE_DEFAULT, 16);
	assert_int_equal(site(&p->a, "F05p"), p->a.frees);
	assert_int_equal(site(&p->a, "F05q"), p->a.frees);
	assert_int_equal(site(&p->a, "F05d"), p->a.frees);
	assert_int_equal(site(&p->a, "F05b"), 0);
	assert_int_equal(site(&p->b, "F05p") + site(&p->b, "F05q") + site(&p->b, "F05d"), 0);
	assert_int_equal(site(&p->b, "F05b"), p->b.frees);
	assert_true(p->b.cycles < p->a.cycles);
	pair_free(p);
	/* 02: PageAnon's compound_head test leaves the free */
	p = pair_run(KC_v3_02, 0, MM_CODE_DEFAULT, 16);
	assert_int_equal(site(&p->a, "F05r"), p->a.frees);
	assert_int_equal(site(&p->b, "F05r"), 0);
	assert_int_equal(site(&p->b, "F05e"), p->b.frees);
	pair_free(p);
	/* 03: three conditionals (pgdat, OTHER_NODE, node) become two */
	p = pair_run(KC_v3_03, 0, MM_CODE_DEFAULT, 16);
	assert_int_equal(site(&p->a, "A42d"), p->a.allocs);
	assert_int_equal(site(&p->a, "A42e"), p->a.allocs);
	assert_int_equal(site(&p->b, "A42d") + site(&p->b, "A42e"), 0);
	assert_int_equal(site(&p->b, "A42b"), p->b.allocs);
	pair_free(p);
	/* 04: zone_statistics inlined */
	p = pair_run(KC_v3_04, 0, MM_CODE_DEFAULT, 16);
	assert_int_equal(inlined(&p->a, "zone_statistics"), 0);
	assert_int_equal(inlined(&p->b, "zone_statistics"), 1);
	assert_true(p->b.cycles < p->a.cycles);
	pair_free(p);
	/* 06: NR_ALLOC_BATCH by __dec_zone_state on the order-0 path */
	p = pair_run(KC_v3_06, 0, MM_CODE_DEFAULT, 16);
	assert_int_equal(calls(&p->a, "__dec_zone_state"), 0);
	assert_int_equal(calls(&p->b, "__dec_zone_state"), p->b.allocs);
	assert_int_equal(calls(&p->a, "__mod_zone_page_state") -
				 calls(&p->b, "__mod_zone_page_state"), p->a.allocs);
	assert_int_equal(site(&p->b, "A39c"), p->b.allocs);
	pair_free(p);
}

static void test_v3_13_to_18(void **state)
{
	(void)state;
	/* 13 (not merged): the empty-zonelist tests go */
	struct pair *p = pair_run(KC_v3_13, 0, MM_CODE_DEFAULT, 16);
	assert_int_equal(site(&p->a, "A13"), p->a.allocs);
	assert_int_equal(site(&p->a, "A19"), p->a.allocs);
	assert_int_equal(site(&p->b, "A13") + site(&p->b, "A19"), 0);
	pair_free(p);
	/* 15 (not merged): might_sleep_if leaves the fast path */
	p = pair_run(KC_v3_15, 0, MM_CODE_DEFAULT, 16);
	assert_int_equal(site(&p->a, "A11"), p->a.allocs);
	assert_int_equal(calls(&p->a, "_cond_resched"), p->a.allocs);
	assert_int_equal(site(&p->b, "A11") + calls(&p->b, "_cond_resched"), 0);
	assert_int_equal(site(&p->b, "A11s"), calls(&p->b, "__alloc_pages_slowpath"));
	pair_free(p);
	/* 16: one OR less per allocation (the compiled row 77 -> 76 uops:
	 * 39 -> 38 cycles in-order at 2 per cycle) */
	p = pair_run(KC_v3_16, 0, MM_CODE_COMPILED, 16);
	assert_int_equal(p->a.cycles - p->b.cycles, p->a.allocs);
	assert_memory_equal(p->a.executed, p->b.executed, sizeof p->a.executed);
	pair_free(p);
	/* 18: success jumps over the cpuset retry test */
	p = pair_run(KC_v3_18, 0, MM_CODE_DEFAULT, 16);
	assert_int_equal(site(&p->a, "A48"), p->a.allocs);
	assert_int_equal(site(&p->a, "A51"), p->a.allocs);
	assert_int_equal(site(&p->b, "A48") + site(&p->b, "A51"), 0);
	assert_int_equal(site(&p->b, "A48p"), p->b.allocs);
	assert_int_equal(site(&p->b, "A50"), p->b.allocs);
	pair_free(p);
}

static void test_v3_19_to_22(void **state)
{
	(void)state;
	/* 19: the fair pass in local bools, the depleted bit first; the
	 * batches deplete in this run (200 x 8 allocations) */
	struct pair *p = pair_run(KC_v3_19, 0, MM_CODE_DEFAULT, 200);
	assert_true(zone_ev(&p->a, "zone_fair_depleted") > 0);
	assert_true(site(&p->a, "A25") >= p->a.allocs);
	assert_int_equal(site(&p->a, "A25f") + site(&p->a, "A26s"), 0);
	assert_int_equal(site(&p->b, "A25") + site(&p->b, "A26") + site(&p->b, "A27"), 0);
	assert_true(site(&p->b, "A25f") >= p->b.allocs);
	assert_true(site(&p->b, "A26s") > 0);          /* a reset from the loop */
	assert_int_equal(zone_ev(&p->a, "fair_reset"), zone_ev(&p->b, "fair_reset"));
	pair_free(p);
	/* 20: the order-0 shortcut is taken, __zone_watermark_ok not called */
	p = pair_run(KC_v3_20, 0, MM_CODE_COMPILED, 16);
	assert_true(calls(&p->a, "__zone_watermark_ok") >= p->a.allocs);
	assert_int_equal(calls(&p->b, "__zone_watermark_ok"), 0);
	assert_int_equal(calls(&p->b, "zone_watermark_ok"), 0);
	assert_int_equal(site(&p->b, "A30h"), site(&p->b, "A31"));
	assert_int_equal(site(&p->b, "A30a") + site(&p->b, "A30b"), 0);
	assert_true(p->b.cycles < p->a.cycles);
	pair_free(p);
	/* 21: the iterator starts from the saved preferred zoneref: one
	 * first_zones_zonelist per allocation instead of two */
	p = pair_run(KC_v3_21, 0, MM_CODE_DEFAULT, 16);
	assert_int_equal(calls(&p->a, "first_zones_zonelist"), 2 * p->a.allocs);
	assert_int_equal(calls(&p->b, "first_zones_zonelist"), p->b.allocs);
	assert_int_equal(site(&p->a, "nzl_inline_nodes") - site(&p->b, "nzl_inline_nodes"),
			 p->a.allocs);
	pair_free(p);
	/* 22: classzone_idx from the zoneref: one dependent load more per
	 * watermark check, nothing else */
	p = pair_run(KC_v3_22, 0, MM_CODE_DEFAULT, 16);
	assert_int_equal(p->b.dep_loads - p->a.dep_loads, site(&p->b, "A31"));
	assert_memory_equal(p->a.executed, p->b.executed, sizeof p->a.executed);
	pair_free(p);
}

static void test_v3_23_to_28(void **state)
{
	(void)state;
	/* 23: one mapcount test and one combined test per check */
	struct pair *p = pair_run(KC_v3_23, 0, MM_CODE_DEFAULT, 16);
	const char *old_free[] = {"F05f", "F05g", "F05h", "F05i", "F05j", "F05k", "F05l"};
	const char *old_new[] = {"A45a", "A45b", "A45c", "A45d", "A45e", "A45f", "A45g"};
	for (int i = 0; i < 7; i++) {
		assert_int_equal(site(&p->a, old_free[i]), p->a.frees);
		assert_int_equal(site(&p->a, old_new[i]), p->a.allocs);
		assert_int_equal(site(&p->b, old_free[i]) + site(&p->b, old_new[i]), 0);
	}
	assert_int_equal(site(&p->b, "F05s"), p->b.frees);
	assert_int_equal(site(&p->b, "F05t"), p->b.frees);
	assert_int_equal(site(&p->b, "A45s"), p->b.allocs);
	assert_int_equal(site(&p->b, "A45t"), p->b.allocs);
	pair_free(p);
	/* 25: the pageblock lookup inlined in the free path */
	p = pair_run(KC_v3_25, 0, MM_CODE_DEFAULT, 16);
	assert_int_equal(inlined(&p->a, "get_pfnblock_flags_mask"), 0);
	assert_int_equal(inlined(&p->b, "get_pfnblock_flags_mask"), 1);
	assert_true(p->b.cycles < p->a.cycles);
	pair_free(p);
	/* 26: without cpusets nothing changes; with them nr_cpusets() goes */
	p = pair_run(KC_v3_26, 0, MM_CODE_DEFAULT, 16);
	assert_int_equal(p->a.cycles, p->b.cycles);
	pair_free(p);
	p = pair_run(KC_v3_26, 1, MM_CODE_DEFAULT, 16);
	assert_true(site(&p->a, "A24c") >= p->a.allocs);
	assert_int_equal(site(&p->b, "A24c"), 0);
	assert_int_equal(site(&p->a, "A24d"), site(&p->b, "A24d"));
	pair_free(p);
	/* 27: the free check runs at the pcp drain, once per drained page */
	p = pair_run(KC_v3_27, 0, MM_CODE_DEFAULT, 200);
	assert_true(p->b.drain_pages > 0);
	assert_int_equal(site(&p->a, "F05s"), p->a.frees);
	assert_int_equal(site(&p->b, "F05s"), p->b.drain_pages);
	assert_int_equal(site(&p->b, "pcpbulk_bad"), p->b.drain_pages);
	assert_int_equal(site(&p->b, "F05o") + site(&p->b, "F05m"), 0);
	pair_free(p);
	/* 28: the allocation check runs at the pcp refill, once per page */
	p = pair_run(KC_v3_28, 0, MM_CODE_DEFAULT, 200);
	assert_true(p->b.refill_pages > 0);
	assert_int_equal(site(&p->a, "A45s"), p->a.allocs);
	assert_int_equal(site(&p->b, "A45s"), p->b.refill_pages);
	assert_int_equal(site(&p->b, "rmqueue_bulk_bad"), p->b.refill_pages);
	assert_int_equal(site(&p->b, "A45h") + site(&p->b, "A45m"), 0);
	pair_free(p);
}

/*
 * The rows a commit takes work out of (docs/design/compiled-counts.md §7): the
 * tests' in-order model charges a block ceil(uops / 2) cycles, so on the
 * same path the compiled layout's cycles minus the estimate's, D(k), move
 * from commit k - 1 to k by the rows the commit swaps, worked from the
 * table (estimate 8 / 10 / 5; compiled in parentheses):
 *   v3 23: per allocation prep_new_page 52 -> prep_new_page_23 46 (26 -> 23
 *          cycles) and page_expected_state (7 against 5: +1); per free
 *          free_pages_prepare 27 -> free_pages_prepare_23 20 (14 -> 10) and
 *          page_expected_state (+1): -2 per allocation, -3 per free;
 *   v3 28: per allocation prep_new_page_23 46 -> prep_new_page_28 28 (23 ->
 *          14), and page_expected_state (+1) per refilled page instead of
 *          per allocation.
 * Without the swap D would grow by page_expected_state's cycle alone.
 */
static int64_t layout_gap(enum kcommit k, struct crun *cr)
{
	struct crun e;
	crun(k, 0, MM_CODE_COMPILED, 200, cr);
	crun(k, 0, MM_CODE_ESTIMATE, 200, &e);
	assert_int_equal(e.refill_pages, cr->refill_pages);    /* the same path */
	assert_int_equal(e.drain_pages, cr->drain_pages);
	tw_destroy(e.t);
	return (int64_t)cr->cycles - (int64_t)e.cycles;
}

static void test_series_rows(void **state)
{
	(void)state;
	struct crun *r = malloc(4 * sizeof *r);
	assert_non_null(r);
	int64_t d22 = layout_gap(KC_v3_22, &r[0]);
	int64_t d23 = layout_gap(KC_v3_23, &r[1]);
	assert_int_equal(d23 - d22, -2 * (int64_t)r[1].allocs - 3 * (int64_t)r[1].frees);
	int64_t d27 = layout_gap(KC_v3_27, &r[2]);
	int64_t d28 = layout_gap(KC_v3_28, &r[3]);
	assert_true(r[3].refill_pages > 0);
	assert_int_equal(d28 - d27, -9 * (int64_t)r[3].allocs +
					    ((int64_t)r[3].refill_pages - (int64_t)r[3].allocs));
	for (int i = 0; i < 4; i++)
		tw_destroy(r[i].t);
	free(r);
}

/* Tree "slub": v5.9 and the cpu-partial pair, in order, after the mm
 * block; kernel.commit's pair syntax (one id per tree, joined by '+'). */
static void test_slub_tree(void **state)
{
	(void)state;
	assert_int_equal(KC_v5_9, KC_v3_28 + 1);
	static const char *const ids[] = {"v5.9", "b47291ef02b0", "23e98ad1ce89"};
	for (int k = KC_v5_9; k <= KC_slub_02; k++) {
		assert_string_equal(kcommit_tree((enum kcommit)k), "slub");
		assert_int_equal(kcommit_v3((enum kcommit)k), k - KC_v5_9);
		assert_string_equal(kcommit_id((enum kcommit)k), ids[k - KC_v5_9]);
		assert_int_equal(kcommit_status((enum kcommit)k), 'M');
		assert_true(kcommit_selectable((enum kcommit)k));
		assert_int_equal(kcommit_parse("slub", ids[k - KC_v5_9]), k);
		assert_int_equal(kcommit_parse("mm", ids[k - KC_v5_9]), KCOMMIT_UNSET);
	}
	assert_int_equal(KC_slub_02 + 1, KCOMMIT_NR);
	assert_int_equal(kcommit_last_selectable("slub"), KC_slub_02);
	assert_int_equal(kcommit_last_selectable("mm"), KC_v3_28);
	assert_int_equal(kcommit_parse("slub", "b47291e"), KC_slub_01);
	assert_string_equal(kcommit_suggest("slub", "b47291ef02b9"), "b47291ef02b0");
	assert_string_equal(kcommit_suggest("slub", "v5.10"), "v5.9");
	assert_string_equal(kcommit_kernel_model(KC_v5_9), "v5.9");
	assert_string_equal(kcommit_kernel_model(KC_slub_02), "v5.9+b47291ef02b0+23e98ad1ce89");
	char buf[256];
	kcommit_list("slub", buf, sizeof buf);
	assert_string_equal(buf, "v5.9, b47291ef02b0, 23e98ad1ce89");
	/* kernel.commit's value */
	enum kcommit mm, sl;
	const char *bad;
	int len;
	assert_int_equal(kcommit_parse_pair("23e98ad1ce89", &mm, &sl, &bad, &len), NS_OK);
	assert_int_equal(mm, KCOMMIT_UNSET);
	assert_int_equal(sl, KC_slub_02);
	assert_int_equal(kcommit_parse_pair("682a3385e773", &mm, &sl, &bad, &len), NS_OK);
	assert_int_equal(mm, KC_v3_05);
	assert_int_equal(sl, KCOMMIT_UNSET);
	assert_int_equal(kcommit_parse_pair("b47291ef02b0+060e741", &mm, &sl, &bad, &len), NS_OK);
	assert_int_equal(mm, KC_v3_04);
	assert_int_equal(sl, KC_slub_01);
	/* two of one tree; an unknown part, pointed at */
	assert_int_equal(kcommit_parse_pair("v5.9+23e98ad1ce89", &mm, &sl, &bad, &len), NS_EINPUT);
	assert_null(bad);
	const char *s = "682a3385e773+b47291ef02b";
	assert_int_equal(kcommit_parse_pair(s, &mm, &sl, &bad, &len), NS_OK);  /* 11-hex prefix */
	s = "682a3385e773+v5.10";
	assert_int_equal(kcommit_parse_pair(s, &mm, &sl, &bad, &len), NS_EINPUT);
	assert_ptr_equal(bad, s + 13);
	assert_int_equal(len, 5);
	s = "682a3385e773+b47291ef02b0+23e98ad1ce89";
	assert_int_equal(kcommit_parse_pair(s, &mm, &sl, &bad, &len), NS_EINPUT);
	assert_ptr_equal(bad, s + 13);
	assert_int_equal(kcommit_parse_pair("", &mm, &sl, &bad, &len), NS_EINPUT);
	assert_int_equal(kcommit_parse_pair("+v5.9", &mm, &sl, &bad, &len), NS_EINPUT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_config_commit),
		cmocka_unit_test(test_slub_tree),
		cmocka_unit_test(test_no_change_commits),
		cmocka_unit_test(test_v3_01_to_06),
		cmocka_unit_test(test_v3_13_to_18),
		cmocka_unit_test(test_v3_19_to_22),
		cmocka_unit_test(test_v3_23_to_28),
		cmocka_unit_test(test_series_rows),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
