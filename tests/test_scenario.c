/*
 * Tests for scenarios/scenario (and the pagealloc workload's arithmetic):
 * loading the shipped scenarios, defaults, sweep expansion (cartesian
 * order, baseline first, labels, kernel models), the run plan
 * (repetition-major, seeds), flattened params, mmtests' default batch
 * sizes, errors with file:line:col, scenario_check on a corrupted
 * scenario, and one tiny pagealloc run whose sample must equal the
 * simulated cycles plus the timing overhead.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cost/cost.h"
#include "cost/cpu.h"
#include "base/diag.h"
#include "numasim_config.h"
#include "models/page_alloc.h"
#include "scenarios/run.h"
#include "scenarios/scenario.h"
#include "workloads/wl_messaging.h"
#include "workloads/wl_pagealloc.h"
#include "workloads/wl_parallel.h"

/* A point's parameter block (workloads/wl_NAME.h). */
#define PA(s, p) ((struct scn_pagealloc *)(s)->points[p].params)
#define MSG(s, p) ((struct scn_messaging *)(s)->points[p].params)
#define PAR(s, p) (&((struct wl_par_point *)(s)->points[p].params)->par)

static const char *src_root(void)
{
	const char *s = getenv("NUMASIM_SRC");
	return s && *s ? s : NUMASIM_SOURCE_ROOT;
}

static char *src_path(const char *rel)
{
	static char buf[4096];
	snprintf(buf, sizeof buf, "%s/%s", src_root(), rel);
	return buf;
}

/* A scenario text with the seed machine by absolute path and BODY. */
static char *scenario_text(const char *body)
{
	static char buf[16384];
	snprintf(buf, sizeof buf, "name: t\nmachine: %s/configs/seed-2016-2s.yaml\n%s",
		 src_root(), body);
	return buf;
}

static struct scenario *load_ok(const char *body)
{
	struct scenario *s = NULL;
	struct diag d;
	diag_init(&d);
	const char *t = scenario_text(body);
	int rc = scenario_load_buf("t.yaml", t, strlen(t), &s, &d);
	if (rc)
		diag_print(&d, stderr);
	assert_int_equal(rc, NS_OK);
	assert_non_null(s);
	assert_int_equal(scenario_check(s, &d), NS_OK);
	return s;
}

/* Load BODY expecting an error at line:col whose message contains want. */
static void load_bad(const char *body, int line, int col, const char *want)
{
	struct scenario *s = (struct scenario *)1;
	struct diag d;
	diag_init(&d);
	const char *t = scenario_text(body);
	int rc = scenario_load_buf("t.yaml", t, strlen(t), &s, &d);
	if (rc != NS_EINPUT || d.line != line || d.col != col || !strstr(d.msg, want)) {
		fprintf(stderr, "wanted %d:%d '%s', got rc %d ", line, col, want, rc);
		diag_print(&d, stderr);
	}
	assert_int_equal(rc, NS_EINPUT);
	assert_null(s);
	assert_string_equal(d.file, "t.yaml");
	assert_int_equal(d.line, line);
	assert_int_equal(d.col, col);
	assert_non_null(strstr(d.msg, want));
}

static void test_tiny_file(void **state)
{
	(void)state;
	struct scenario *s = NULL;
	struct diag d;
	diag_init(&d);
	assert_int_equal(scenario_load_file(src_path("tests/scenarios/tiny-pagealloc.yaml"),
					    &s, &d), NS_OK);
	assert_string_equal(s->name, "tiny-pagealloc");
	assert_string_equal(s->machine->name, "seed-2016-2s");
	assert_int_equal(strlen(s->sha256), 64);
	assert_int_equal(strlen(s->machine_sha256), 64);
	assert_non_null(strstr(s->machine_path, "tests/scenarios/../../configs/seed-2016-2s.yaml"));
	assert_int_equal(s->nr_points, 2);
	assert_int_equal(s->nr_axes, 1);
	assert_string_equal(s->points[0].label, "zonelist_iter=pre-682a3385");
	assert_string_equal(s->points[1].label, "zonelist_iter=682a3385");
	assert_string_equal(s->points[0].column, "pre-682a3385");
	assert_string_equal(s->points[1].column, "682a3385");
	assert_int_equal(s->points[0].cfg.iter, MMZONE_ITER_PRE);
	assert_int_equal(s->points[1].cfg.iter, MMZONE_ITER_POST);
	assert_string_equal(s->points[0].kernel_model, "v4.6+patches1-4");
	assert_string_equal(s->points[1].kernel_model, "v4.6+patches1-4+682a3385");
	assert_int_equal(PA(s, 0)->nr_batches, 4);
	assert_int_equal(PA(s, 0)->batches[3], 512);
	assert_int_equal(PA(s, 0)->inner, 20);
	assert_int_equal(PA(s, 0)->outer, SCN_PA_OUTER_DEFAULT);
	assert_int_equal(PA(s, 0)->drop, SCN_PA_DROP_DEFAULT);
	assert_int_equal(PA(s, 0)->gfp, GFP_KERNEL | __GFP_NOWARN);
	assert_int_equal(s->seed, 7);
	assert_int_equal(scenario_nr_runs(s), 2);
	scenario_free(s);
}

static void test_seed_file(void **state)
{
	(void)state;
	struct scenario *s = NULL;
	struct diag d;
	diag_init(&d);
	assert_int_equal(scenario_load_file(src_path("scenarios/seed-zonelist.yaml"), &s, &d),
			 NS_OK);
	assert_int_equal(s->nr_points, 2);
	assert_int_equal(PA(s, 0)->nr_batches, 0);   /* mmtests' default */
	uint32_t b[SCN_MAX_BATCHES];
	assert_int_equal(scn_pagealloc_batches(PA(s, 0), 0, b), 15);
	assert_int_equal(b[14], 16384);
	scenario_free(s);
}

static void test_messaging_file(void **state)
{
	(void)state;
	struct scenario *s = NULL;
	struct diag d;
	diag_init(&d);
	assert_int_equal(scenario_load_file(src_path("scenarios/seed-slub.yaml"), &s, &d),
			 NS_OK);
	assert_int_equal(s->workload, SCN_WL_MESSAGING);
	assert_string_equal(scn_workload_name(s->workload), "messaging");
	assert_int_equal(s->nr_points, 2);
	assert_int_equal(s->repetitions, 10);
	assert_int_equal(MSG(s, 0)->groups, 20);
	assert_int_equal(MSG(s, 0)->loops, 100);
	assert_int_equal(MSG(s, 0)->inflight_limit, 278);
	assert_string_equal(s->points[0].label, "slab_free_layout=pre-c270cf30");
	assert_string_equal(s->points[1].column, "c270cf30");
	assert_string_equal(s->points[0].kernel_model, "v5.9");
	assert_string_equal(s->points[1].kernel_model, "v5.9+c270cf30");
	assert_int_equal(s->points[0].slub.variant, SLUB_PRE);
	assert_int_equal(s->points[1].slub.variant, SLUB_POST);
	assert_int_equal(s->points[1].slub.stats, 1);
	assert_int_equal(s->points[1].slub.compiler, SLUB_GCC);
	scenario_free(s);
	/* no axis: the label names the layout; clang, stats off, a limit */
	s = load_ok("workload: {type: messaging, groups: 1, loops: 5, inflight_limit: 9}\n"
		    "kernel: {slab_free_layout: c270cf30, slub_stats: off, "
		    "compiler_layout: clang}\n");
	assert_string_equal(s->points[0].label, "slab_free_layout=c270cf30");
	assert_int_equal(s->points[0].slub.stats, 0);
	assert_int_equal(s->points[0].slub.compiler, SLUB_CLANG);
	assert_int_equal(MSG(s, 0)->inflight_limit, 9);
	scenario_free(s);
	/* sweeping two SLUB knobs */
	s = load_ok("workload: {type: messaging, groups: 1, loops: 5}\n"
		    "kernel: {slub_stats: [on, off], compiler_layout: [gcc, clang]}\n");
	assert_int_equal(s->nr_points, 4);
	assert_string_equal(s->points[3].label, "slub_stats=off,compiler_layout=clang");
	scenario_free(s);
}

static void test_messaging_errors(void **state)
{
	(void)state;
	load_bad("workload: {type: messaging, loops: 5}\n", 3, 11, "groups");
	load_bad("workload: {type: messaging, groups: 0, loops: 5}\n", 3, 37, "groups");
	load_bad("workload: {type: messaging, groups: 1, loops: 5, mode: pipes}\n", 3, 56,
		 "expected socket or pipe");
	load_bad("workload: {type: messaging, groups: 1, loops: 5, threads: maybe}\n", 3, 59,
		 "threads must be true or false");
	load_bad("workload: {type: messaging, groups: 1, loops: 5, mode: pipe, "
		 "inflight_limit: 10}\n", 3, 78, "a pipe holds 16 pages");
	load_bad("workload: {type: messaging, groups: 1, loops: 5}\n"
		 "kernel: {slab_free_layout: post}\n", 4, 28, "unknown slab_free_layout");
	load_bad("workload: {type: pagealloc}\nkernel: {slub_stats: on}\n", 4, 22,
		 "which the pagealloc workload does not use");
}

static void test_defaults(void **state)
{
	(void)state;
	struct scenario *s = load_ok("workload: {type: pagealloc}\n");
	struct mm_config def;
	mm_config_default(&def);
	assert_int_equal(s->nr_points, 1);
	assert_int_equal(s->nr_axes, 0);
	assert_int_equal(s->points[0].cfg.iter, def.iter);
	assert_string_equal(s->points[0].label,
			    def.iter == MMZONE_ITER_POST ? "zonelist_iter=682a3385"
						     : "zonelist_iter=pre-682a3385");
	assert_int_equal(PA(s, 0)->inner, 10000);
	assert_int_equal(PA(s, 0)->outer, 15);
	assert_int_equal(PA(s, 0)->drop, 2);
	assert_int_equal(PA(s, 0)->cpu, 0);
	assert_int_equal(PA(s, 0)->timing_overhead, SCN_PA_TIMING_OVERHEAD_DEFAULT);
	assert_int_equal(PA(s, 0)->nr_orders, 1);
	assert_int_equal(PA(s, 0)->orders[0], 0);
	assert_int_equal(s->repetitions, 1);
	assert_int_equal(s->seed, 1);
	assert_string_equal(s->points[0].policy.cpuset, "none");
	assert_string_equal(s->points[0].policy.mempolicy, "default");
	assert_int_equal(s->points[0].cfg.cpusets_enabled, 0);
	assert_int_equal(s->points[0].cfg.mpol, MPOL_DEFAULT);
	assert_int_equal(s->points[0].nr_cpus, 1);
	assert_int_equal(s->points[0].cpus[0], 0);
	assert_int_equal(s->nr_machines, 1);
	assert_ptr_equal(s->points[0].machine, s->machine);
	assert_int_not_equal(s->workload, SCN_WL_PARALLEL);
	scenario_set_inner(s, 3);
	assert_int_equal(PA(s, 0)->inner, 3);
	assert_int_equal(PA(s, 0)->inner, 3);
	scenario_free(s);
}

static void test_default_batches(void **state)
{
	(void)state;
	struct scn_pagealloc p = {0};
	uint32_t b[SCN_MAX_BATCHES];
	int n = scn_pagealloc_batches(&p, 0, b);
	assert_int_equal(n, 15);
	for (int i = 0; i < n; i++)
		assert_int_equal(b[i], 1u << i);
	/* order 4: batch < 32768 >> 4 = 2048 */
	n = scn_pagealloc_batches(&p, 4, b);
	assert_int_equal(n, 11);
	assert_int_equal(b[10], 1024);
	/* order 10: 32768 >> 10 = 32 -> 1..16 */
	n = scn_pagealloc_batches(&p, 10, b);
	assert_int_equal(n, 5);
	assert_int_equal(b[4], 16);
}

static void test_two_axes(void **state)
{
	(void)state;
	struct scenario *s = load_ok(
		"workload: {type: pagealloc, batches: [1]}\n"
		"kernel:\n"
		"  zonelist_iter: [682a3385, pre-682a3385]\n"
		"  min_free_kbytes: [0, 4096, 65536]\n"
		"policy: {cpuset: all}\n"
		"repetitions: 2\n"
		"seed: 100\n");
	assert_int_equal(s->nr_axes, 2);
	assert_int_equal(s->nr_points, 6);
	/* first axis slowest; point 0 is every axis's first value */
	assert_string_equal(s->points[0].label, "zonelist_iter=682a3385,min_free_kbytes=0");
	assert_string_equal(s->points[1].label, "zonelist_iter=682a3385,min_free_kbytes=4096");
	assert_string_equal(s->points[3].label, "zonelist_iter=pre-682a3385,min_free_kbytes=0");
	assert_string_equal(s->points[5].column, "pre-682a3385,65536");
	assert_int_equal(s->points[2].cfg.min_free_kbytes, 65536);
	assert_int_equal(s->points[4].cfg.iter, MMZONE_ITER_PRE);
	for (int p = 0; p < 6; p++)
		assert_int_equal(s->points[p].cfg.cpusets_enabled, 1);
	/* plan: repetition-major, seed + repetition */
	assert_int_equal(scenario_nr_runs(s), 12);
	int point;
	long long rep;
	uint64_t seed;
	scenario_run_at(s, 0, &point, &rep, &seed);
	assert_int_equal(point, 0);
	assert_int_equal(rep, 0);
	assert_int_equal(seed, 100);
	scenario_run_at(s, 7, &point, &rep, &seed);
	assert_int_equal(point, 1);
	assert_int_equal(rep, 1);
	assert_int_equal(seed, 101);
	scenario_free(s);
}

struct params {
	int n, have_iter, have_inner;
	char iter[64];
	long long inner;
};

static int collect(void *arg, const char *key, const char *text, long long num)
{
	struct params *p = arg;
	p->n++;
	if (!strcmp(key, "kernel.zonelist_iter")) {
		assert_non_null(text);
		snprintf(p->iter, sizeof p->iter, "%s", text);
		p->have_iter = 1;
	}
	if (!strcmp(key, "workload.inner_iterations")) {
		assert_null(text);
		p->inner = num;
		p->have_inner = 1;
	}
	return 0;
}

static void test_params(void **state)
{
	(void)state;
	struct scenario *s = load_ok(
		"workload: {type: pagealloc, inner_iterations: 77}\n"
		"kernel: {zonelist_iter: [pre-682a3385, 682a3385]}\n");
	struct params p = {0};
	assert_int_equal(scenario_params(s, 1, collect, &p), 0);
	assert_true(p.have_iter && p.have_inner);
	assert_string_equal(p.iter, "682a3385");
	assert_int_equal(p.inner, 77);
	/* every knob but the three SLUB ones (messaging, parallel) and the
	 * six reclaim ones (fill only) */
	assert_true(p.n >= 3 + SCN_NR_KNOBS - 3 - 6 + 10);
	scenario_free(s);
}

static void test_policy_cpuset(void **state)
{
	(void)state;
	struct scenario *s = load_ok(
		"workload: {type: pagealloc}\n"
		"sweep: {policy.cpuset: [\"1\", none, all]}\n");
	assert_int_equal(s->nr_points, 3);
	assert_int_equal(s->points[0].cfg.cpusets_enabled, 1);
	assert_int_equal(s->points[0].cfg.nr_mems_allowed, 1);
	assert_int_equal(s->points[0].cfg.mems_allowed[0], 1);
	assert_string_equal(s->points[0].policy.cpuset, "1");
	assert_string_equal(s->points[0].label, "policy.cpuset=1");
	/* without a cpuset the task may use every node, and the key is off */
	assert_int_equal(s->points[1].cfg.cpusets_enabled, 0);
	assert_int_equal(s->points[1].cfg.nr_mems_allowed, 0);
	/* a cpuset of every node still turns cpusets_enabled() on */
	assert_int_equal(s->points[2].cfg.cpusets_enabled, 1);
	assert_int_equal(s->points[2].cfg.nr_mems_allowed, 0);
	assert_string_equal(s->points[2].column, "all");
	scenario_free(s);
}

static void test_errors(void **state)
{
	(void)state;
	/* scenario_text puts name on line 1 and machine on line 2 */
	load_bad("workload: {type: pagealloc}\nkernel: {zonelist_iter: [pre-682a3385, x]}\n",
		 4, 40, "unknown zonelist_iter 'x'");
	load_bad("workload: {type: pagealloc}\nkernel:\n  cpusets: on\n", 5, 3,
		 "kernel.cpusets moved to policy.cpuset");
	load_bad("workload: {type: pagealloc}\nkernel:\n  zonelist_itr: x\n", 5, 3,
		 "did you mean 'zonelist_iter'?");
	load_bad("workload: {type: pagealloc, orders: [3, 11]}\n", 3, 41,
		 "order must be between 0 and 10");
	load_bad("workload: {type: pagealloc, outer_samples: 3, drop_samples: 3}\n", 3, 61,
		 "must be less than outer_samples");
	load_bad("workload: {type: pagealloc, cpu: 99}\n", 3, 34, "CPU 99 is not a CPU");
	load_bad("workload: {type: pagealloc, gfp: \"GFP_KERNEL|__GFP_NOWAR\"}\n", 3, 34,
		 "unknown gfp mask");
	load_bad("workload: {type: slab}\n", 3, 18, "unknown workload type 'slab'");
	load_bad("workload: {type: pagealloc}\nkernel: {zonelist_iter: []}\n", 4, 25,
		 "an empty list gives no runs");
	load_bad("workload: {type: pagealloc}\nseed: 1.5\n", 4, 7, "seed must be");
	load_bad("workload: {type: pagealloc}\nrepetitions: 0\n", 4, 14,
		 "repetitions must be between 1 and 10000");
	load_bad("kernel: {}\n", 1, 1, "missing required key 'workload'");
}

static void test_machine_errors(void **state)
{
	(void)state;
	struct scenario *s = NULL;
	struct diag d;
	const char *t = "name: x\nmachine: /nonexistent/m.yaml\nworkload: {type: pagealloc}\n";
	diag_init(&d);
	assert_int_equal(scenario_load_buf("x.yaml", t, strlen(t), &s, &d), NS_EINPUT);
	assert_null(s);
	assert_int_equal(d.line, 2);
	assert_int_equal(d.col, 10);
	assert_non_null(strstr(d.msg, "cannot read machine file '/nonexistent/m.yaml'"));
	/* a bad machine file reports its own position */
	char path[4096];
	snprintf(path, sizeof path, "%s/tests/bad/machines/distance-string.yaml", src_root());
	char text[8192];
	snprintf(text, sizeof text, "name: x\nmachine: %s\nworkload: {type: pagealloc}\n",
		 path);
	diag_init(&d);
	assert_int_equal(scenario_load_buf("x.yaml", text, strlen(text), &s, &d), NS_EINPUT);
	assert_string_equal(d.file, path);
	assert_true(d.line > 1);
}

static void test_check_corrupt(void **state)
{
	(void)state;
	struct scenario *s = load_ok("workload: {type: pagealloc}\n");
	struct diag d;
	diag_init(&d);
	PA(s, 0)->drop = PA(s, 0)->outer;
	assert_int_equal(scenario_check(s, &d), NS_EINTERNAL);
	PA(s, 0)->drop = 2;
	diag_init(&d);
	s->nr_points = 2;
	assert_int_equal(scenario_check(s, &d), NS_EINTERNAL);
	s->nr_points = 1;
	diag_init(&d);
	PA(s, 0)->cpu = 1000;
	assert_int_equal(scenario_check(s, &d), NS_EINTERNAL);
	PA(s, 0)->cpu = 0;
	diag_init(&d);
	assert_int_equal(scenario_check(s, &d), NS_OK);
	scenario_free(s);
}


/* sweep: any scalar; axes in the order kernel lists, overrides, sweep. */
static void test_generic_sweep(void **state)
{
	(void)state;
	struct scenario *s = load_ok(
		"workload: {type: pagealloc, batches: [1]}\n"
		"kernel: {zonelist_iter: [pre-682a3385, 682a3385]}\n"
		"sweep:\n"
		"  workload.inner_iterations: [5, 7, 9]\n"
		"  policy.mempolicy: [local, \"interleave:0-1\"]\n");
	assert_int_equal(s->nr_axes, 3);
	assert_int_equal(s->nr_points, 12);
	assert_string_equal(s->axes[0].key, "kernel.zonelist_iter");
	assert_string_equal(s->axes[1].key, "workload.inner_iterations");
	assert_string_equal(s->axes[2].key, "policy.mempolicy");
	assert_string_equal(s->points[0].label,
			    "zonelist_iter=pre-682a3385,workload.inner_iterations=5,"
			    "policy.mempolicy=local");
	assert_string_equal(s->points[11].label,
			    "zonelist_iter=682a3385,workload.inner_iterations=9,"
			    "policy.mempolicy=interleave:0-1");
	assert_string_equal(s->points[3].column, "pre-682a3385,7,interleave:0-1");
	assert_string_equal(s->points[3].policy.nodes, "0-1");
	assert_int_equal(PA(s, 0)->inner, 5);
	assert_int_equal(PA(s, 2)->inner, 7);
	assert_int_equal(PA(s, 11)->inner, 9);
	assert_int_equal(s->points[1].cfg.mpol, MPOL_INTERLEAVE);
	assert_int_equal(s->points[1].cfg.nr_mpol_nodes, 2);
	assert_int_equal(s->points[0].cfg.mpol, MPOL_LOCAL);
	assert_int_equal(s->points[6].cfg.iter, MMZONE_ITER_POST);
	/* one machine for every point */
	assert_int_equal(s->nr_machines, 1);
	for (int p = 0; p < 12; p++)
		assert_ptr_equal(s->points[p].machine, s->points[0].machine);
	/* params carry the axis values */
	struct params pr = {0};
	assert_int_equal(scenario_params(s, 11, collect, &pr), 0);
	assert_int_equal(pr.inner, 9);
	assert_string_equal(pr.iter, "682a3385");
	scenario_free(s);
}

/* a sweep of a whole section: each value a mapping of its keys */
static void test_section_sweep(void **state)
{
	(void)state;
	struct scenario *s = load_ok(
		"workload: {type: pagealloc}\n"
		"sweep:\n"
		"  policy:\n"
		"    - {mempolicy: local}\n"
		"    - {mempolicy: bind, nodes: \"1\"}\n"
		"    - {mempolicy: interleave, nodes: all}\n");
	assert_int_equal(s->nr_points, 3);
	assert_string_equal(s->points[0].label, "policy=local");
	assert_string_equal(s->points[1].label, "policy=bind:1");
	assert_string_equal(s->points[2].label, "policy=interleave:all");
	assert_int_equal(s->points[1].cfg.mpol, MPOL_BIND);
	assert_int_equal(s->points[1].cfg.mpol_nodes[0], 1);
	assert_int_equal(s->points[2].cfg.nr_mpol_nodes, 2);
	scenario_free(s);
	load_bad("workload: {type: pagealloc}\nsweep:\n  policy: [{mempolicy: local, node: 1}]\n",
		 5, 31, "unknown key 'node' in policy");
	load_bad("workload: {type: pagealloc}\npolicy: {mempolicy: local}\n"
		 "sweep:\n  policy: [{mempolicy: local}]\n",
		 6, 24, "'policy.mempolicy' is given both under 'policy:'");
	load_bad("workload: {type: pagealloc}\nsweep:\n  policy: [local]\n", 5, 12,
		 "a sweep of the whole section takes mappings");
}

/* overrides: the machine text gets the value; memo per distinct value. */
static void test_overrides(void **state)
{
	(void)state;
	struct scenario *s = load_ok(
		"workload: {type: pagealloc, batches: [1]}\n"
		"kernel: {zonelist_iter: [pre-682a3385, 682a3385]}\n"
		"overrides:\n"
		"  costs.mispredict: [14, 20]\n"
		"  costs.l2_latency: 13\n"
		"  distance.0.1: 31\n");
	assert_int_equal(s->nr_points, 4);
	assert_int_equal(s->nr_machines, 2);
	assert_string_equal(s->points[1].label,
			    "zonelist_iter=pre-682a3385,overrides.costs.mispredict=20");
	/* points 0 and 2 (mispredict 14) share a machine, 1 and 3 the other */
	assert_ptr_equal(s->points[0].machine, s->points[2].machine);
	assert_ptr_equal(s->points[1].machine, s->points[3].machine);
	assert_ptr_not_equal(s->points[0].machine, s->points[1].machine);
	assert_true(s->points[0].machine->costs.mispredict.value == 14);
	assert_true(s->points[1].machine->costs.mispredict.value == 20);
	assert_true(s->points[1].machine->costs.l2_latency.value == 13);
	assert_int_equal(machine_distance(s->points[1].machine, 0, 1), 31);
	assert_string_not_equal(s->points[0].machine_sha256, s->points[1].machine_sha256);
	assert_non_null(strstr(s->points[1].machine_text, "mispredict: {value: 20,"));
	assert_non_null(strstr(s->points[1].machine_text, "  - [10, 31]"));
	assert_null(strstr(s->points[1].machine_text, "mispredict: {value: 16,"));
	scenario_free(s);
}

static struct scenario *load_opts(const char *body, struct scn_arg *args, int n,
				  struct diag *d, int *rc)
{
	struct scenario *s = NULL;
	struct scn_opts o = {.prog = "numasim run", .nr_args = n, .args = args};
	const char *t = scenario_text(body);
	diag_init(d);
	*rc = scenario_load("t.yaml", t, strlen(t), &o, &s, d);
	return s;
}

/* --set replaces values and axes, --sweep adds or replaces axes; the
 * options are in the text and its sha256. */
static void test_cli_settings(void **state)
{
	(void)state;
	const char *body = "workload: {type: pagealloc, inner_iterations: 4}\n"
			   "kernel: {zonelist_iter: [pre-682a3385, 682a3385]}\n";
	struct scn_arg args[] = {
		{SCN_ARG_SET, "kernel.zonelist_iter=682a3385"},
		{SCN_ARG_SWEEP, "workload.inner_iterations=2,3"},
		{SCN_ARG_SET, "seed=9"},
	};
	struct diag d;
	int rc;
	struct scenario *s = load_opts(body, args, 3, &d, &rc);
	if (rc)
		diag_print(&d, stderr);
	assert_int_equal(rc, NS_OK);
	assert_int_equal(s->nr_axes, 1);
	assert_int_equal(s->nr_points, 2);
	assert_string_equal(s->points[1].label, "workload.inner_iterations=3");
	assert_int_equal(s->points[0].cfg.iter, MMZONE_ITER_POST);
	assert_int_equal(s->seed, 9);
	assert_non_null(strstr(s->text, "\n# --set kernel.zonelist_iter=682a3385\n"
				"# --sweep workload.inner_iterations=2,3\n# --set seed=9"));
	struct scenario *plain = load_ok(body);
	assert_string_not_equal(plain->sha256, s->sha256);
	scenario_free(plain);
	scenario_free(s);

	/* bad values: numasim run: error: --set K=V: ... */
	struct scn_arg bad[] = {{SCN_ARG_SET, "workload.inner_iterations=x"}};
	s = load_opts(body, bad, 1, &d, &rc);
	assert_int_equal(rc, NS_EINPUT);
	assert_null(s);
	assert_string_equal(d.file, "numasim run");
	assert_int_equal(d.line, 0);
	assert_non_null(strstr(d.msg, "--set workload.inner_iterations=x: "
			       "inner_iterations must be"));
	struct scn_arg bad2[] = {{SCN_ARG_SWEEP, "repetitions=1,2"}};
	s = load_opts(body, bad2, 1, &d, &rc);
	assert_int_equal(rc, NS_EINPUT);
	assert_non_null(strstr(d.msg, "--sweep repetitions=1,2: 'repetitions': seed "
			       "and repetitions cannot be swept"));
	struct scn_arg bad3[] = {{SCN_ARG_SET, "policy.cpu=1"}};
	s = load_opts(body, bad3, 1, &d, &rc);
	assert_int_equal(rc, NS_EINPUT);
	assert_non_null(strstr(d.msg, "policy has no key 'cpu'"));
}

/* policy and placement of the three workloads, sched.placement and its
 * default; the adhoc scenario. */
static void test_policy_placement(void **state)
{
	(void)state;
	struct scenario *s = load_ok(
		"workload: {type: pagealloc}\n"
		"policy: {cpuset: \"0-1\", mempolicy: preferred, nodes: \"1\", cpus: \"17,3\"}\n");
	assert_int_equal(s->points[0].cfg.cpusets_enabled, 1);
	assert_int_equal(s->points[0].cfg.nr_mems_allowed, 2);
	assert_int_equal(s->points[0].cfg.mpol, MPOL_PREFERRED);
	assert_int_equal(s->points[0].cfg.mpol_nodes[0], 1);
	assert_int_equal(s->points[0].nr_cpus, 1);   /* the task's first CPU */
	assert_int_equal(PA(s, 0)->cpu, s->points[0].cpus[0]);
	scenario_free(s);
	s = load_ok("workload: {type: messaging, groups: 1, loops: 1}\n"
		    "policy: {cpus: \"4-7\"}\n");
	assert_int_equal(s->points[0].nr_cpus, 4);
	assert_int_equal(s->points[0].cpus[3], 7);
	/* sched.placement defaults to the CFS model's kernel, v5.9 */
	assert_int_equal(s->points[0].sched_placement, SCN_PLACEMENT_V59);
	assert_int_equal(MSG(s, 0)->placement_v59, 1);
	scenario_free(s);
	s = load_ok("workload: {type: messaging, groups: 1, loops: 1}\n"
		    "sched: {placement: none}\n");
	assert_int_equal(s->points[0].sched_placement, SCN_PLACEMENT_NONE);
	assert_int_equal(MSG(s, 0)->placement_v59, 0);
	scenario_free(s);
	s = load_ok("workload: {type: messaging, groups: 1, loops: 1}\n"
		    "sched: {placement: v5.9}\n");
	assert_int_equal(MSG(s, 0)->placement_v59, 1);
	scenario_free(s);
	s = load_ok("workload: {type: parallel, tasks: 3, remote_free: 0.5, "
		    "object_sizes: [32, 256], orders: [0, 2]}\n"
		    "policy: {cpus: \"0,32\"}\n");
	assert_int_equal(s->workload, SCN_WL_PARALLEL);
	assert_int_equal(PAR(s, 0)->tasks, 3);
	assert_int_equal(PAR(s, 0)->nr_cpus, 2);
	assert_int_equal(PAR(s, 0)->cpus[1], 32);
	assert_int_equal(PAR(s, 0)->nr_sizes, 2);
	assert_int_equal(PAR(s, 0)->orders[1], 2);
	assert_true(PAR(s, 0)->remote_free == 0.5);
	scenario_free(s);

	struct scn_opts o = {.prog = "numasim run"};
	struct diag d;
	diag_init(&d);
	assert_int_equal(scenario_load_adhoc(src_path("configs/seed-2016-2s.yaml"),
					     "parallel", &o, &s, &d), NS_OK);
	assert_string_equal(s->name, "adhoc");
	assert_int_equal(s->workload, SCN_WL_PARALLEL);
	assert_int_equal(s->points[0].nr_cpus, 64);
	assert_int_equal(PAR(s, 0)->tasks, 64);
	scenario_free(s);
	diag_init(&d);
	assert_int_equal(scenario_load_adhoc("/nonexistent.yaml", "pagealloc", &o, &s, &d),
			 NS_EINPUT);
	assert_string_equal(d.file, "numasim run");
	assert_non_null(strstr(d.msg, "--machine /nonexistent.yaml: cannot read"));
}

/*
 * One inner iteration, one sample, N = 1: the printed alloc + free must
 * be the simulated cycles of both blocks plus two timing overheads.
 */
static void test_workload_arithmetic(void **state)
{
	(void)state;
	struct scenario *s = load_ok(
		"workload: {type: pagealloc, batches: [1], inner_iterations: 1,\n"
		"           outer_samples: 1, drop_samples: 0,\n"
		"           timing_overhead_cycles: 1000}\n");
	struct cost_tables t;
	struct cost_layout l;
	struct cpu_sys sys;
	struct cpu_params cp;
	struct mm_world *w = NULL;
	struct wl_pagealloc_result r;
	struct diag d;
	int fb, sb, cpus[1] = {0};

	diag_init(&d);
	cost_tables_init(&t);
	assert_int_equal(mm_register(&t, &fb, &sb), NS_OK);
	assert_int_equal(cost_layout_init(&l, &t, "test"), NS_OK);
	cpu_params_default(&cp);
	assert_int_equal(mm_layout(&l, &t, fb, sb, s->points[0].cfg.iter,
				   mm_code_resolve(s->points[0].cfg.code, cp.model)), NS_OK);
	assert_int_equal(cpu_sys_init(&sys, s->machine, &t, &l, &cp, cpus, 1), NS_OK);
	assert_int_equal(mm_world_create(s->machine, &s->points[0].cfg, &sys, fb, sb,
					 &w, &d), NS_OK);
	assert_int_equal(wl_pagealloc_run(w, cpu_sys_cpu(&sys, 0), PA(s, 0), NULL, NULL, NULL, &r),
			 NS_OK);
	assert_int_equal(r.nr_series, 1);
	assert_int_equal(r.allocs, 2);
	assert_int_equal(r.frees, 2);
	assert_int_equal(r.alloc_failed, 0);
	assert_true(r.timed_cycles > 0);
	assert_int_equal(r.series[0].alloc[0] + r.series[0].free[0],
			 r.timed_cycles + 2000);
	assert_true(r.series[0].alloc[0] > 1000);
	assert_int_equal(mm_check(w, &d), NS_OK);
	wl_pagealloc_result_free(&r);

	/* a stop flag already set stops before the first timed block */
	volatile sig_atomic_t stop = 1;
	assert_int_equal(wl_pagealloc_run(w, cpu_sys_cpu(&sys, 0), PA(s, 0), &stop, NULL, NULL, &r),
			 WL_STOPPED);
	assert_int_equal(r.nr_series, 0);
	wl_pagealloc_result_free(&r);

	mm_world_destroy(w);
	cpu_sys_free(&sys);
	cost_layout_free(&l);
	cost_tables_free(&t);
	scenario_free(s);
}

static void test_preflight(void **state)
{
	(void)state;
	struct scenario *s = load_ok(
		"workload: {type: pagealloc}\n"
		"kernel: {zonelist_iter: [pre-682a3385, 682a3385]}\n");
	struct diag d;
	diag_init(&d);
	assert_int_equal(run_preflight(s, &d), NS_OK);
	scenario_free(s);
}

/* scenario_keys: every knob once as kernel.KNOB, each key once, and
 * a buffer too small gets the count to retry with. */
static void test_scenario_keys(void **state)
{
	(void)state;
	char buf[8192];
	const char *keys[512];
	int n = scenario_keys(buf, sizeof buf, keys, 512);
	assert_true(n > SCN_NR_KNOBS && n <= 512);
	int kernel = 0;
	for (int i = 0; i < n; i++) {
		kernel += !strncmp(keys[i], "kernel.", 7);
		for (int j = i + 1; j < n; j++)
			assert_string_not_equal(keys[i], keys[j]);
	}
	assert_int_equal(kernel, SCN_NR_KNOBS);
	for (int k = 0; k < SCN_NR_KNOBS; k++) {
		char want[64];
		int found = 0;
		snprintf(want, sizeof want, "kernel.%s", scn_knob_name((enum scn_knob)k));
		for (int i = 0; i < n; i++)
			found |= !strcmp(keys[i], want);
		assert_true(found);
	}
	assert_string_equal(keys[0], "name");
	const char *few[3];
	assert_int_equal(scenario_keys(buf, sizeof buf, few, 3), n);
	assert_string_equal(few[2], "machine");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tiny_file),
		cmocka_unit_test(test_seed_file),
		cmocka_unit_test(test_messaging_file),
		cmocka_unit_test(test_messaging_errors),
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_default_batches),
		cmocka_unit_test(test_two_axes),
		cmocka_unit_test(test_params),
		cmocka_unit_test(test_policy_cpuset),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_machine_errors),
		cmocka_unit_test(test_check_corrupt),
		cmocka_unit_test(test_generic_sweep),
		cmocka_unit_test(test_overrides),
		cmocka_unit_test(test_section_sweep),
		cmocka_unit_test(test_cli_settings),
		cmocka_unit_test(test_policy_placement),
		cmocka_unit_test(test_workload_arithmetic),
		cmocka_unit_test(test_preflight),
		cmocka_unit_test(test_scenario_keys),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
