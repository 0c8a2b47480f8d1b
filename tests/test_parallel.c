/*
 * Tests for workloads/wl_parallel: every allocation is freed exactly once
 * (result counts, slub caches, mm_check/slub_check), a seed gives the same
 * run and another seed a different one, many tasks on one node contend for
 * zone->lock where one task never waits, remote_free > 0 produces remote
 * frees (and 0 none), several tasks may share a CPU, a bind mempolicy
 * keeps the workload's pages on its node, and bad parameters are refused.
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
#include "models/page_alloc.h"
#include "models/slub.h"
#include "tests/test_costs_yaml.h"
#include "workloads/wl_parallel.h"
#include "tests/world_fixture.h"

/* 2 nodes of 4 CPUs and 256 MiB each. */
static const char m_two[] =
	"name: par\nnodes:\n"
	"  - {id: 0, cpus: \"0-3\", zones: [{type: Normal, size: 256MiB}]}\n"
	"  - {id: 1, cpus: \"4-7\", zones: [{type: Normal, size: 256MiB}]}\n"
	"distance:\n  - [10, 21]\n  - [21, 10]\n" TEST_COSTS_YAML;

static struct wfx *pw_create(const struct mm_config *pcfg)
{
	struct machine *m = NULL;
	struct diag d;
	diag_init(&d);
	wfx_ok(machine_load_buf("par.yaml", m_two, strlen(m_two), &m, &d), &d);
	static const int cpus[8] = {0, 1, 2, 3, 4, 5, 6, 7};
	struct wfx_opts o = {.pa = pcfg, .cpus = cpus, .nr_cpus = 8, .bpred_mode = -1};
	return wfx_create(m, &o);
}

static struct wl_par_params *params(const int *cpus, int n, uint32_t tasks, uint64_t ops)
{
	static struct wl_par_params p;
	wl_par_params_default(&p);
	p.nr_cpus = n;
	for (int i = 0; i < n; i++)
		p.cpus[i] = cpus[i];
	p.tasks = tasks;
	p.ops = ops;
	return &p;
}

struct ctr_q {
	const char *id, *name;
	int64_t value;
};

static int ctr_cb(void *arg, const char *scope, const char *id, const char *name, int64_t v)
{
	struct ctr_q *q = arg;
	if (!strcmp(scope, "zone") && !strcmp(id, q->id) && !strcmp(name, q->name))
		q->value = v;
	return NS_OK;
}

static int64_t zone_ctr(struct wfx *t, const char *id, const char *name)
{
	struct ctr_q q = {id, name, -1};
	assert_int_equal(mm_counters(t->pa, ctr_cb, &q), NS_OK);
	return q.value;
}

static int run(struct wfx *t, const struct wl_par_params *p, uint64_t seed,
	       struct wl_par_result *r)
{
	struct diag d;
	diag_init(&d);
	int rc = wl_parallel_run(t->pa, t->w, &t->s, p, seed, NULL, NULL, r, &d);
	if (rc != NS_OK)
		diag_print(&d, stderr);
	return rc;
}

static const int all8[] = {0, 1, 2, 3, 4, 5, 6, 7};
static const int node0[] = {0, 1, 2, 3};

static void test_conservation(void **state)
{
	(void)state;
	struct wfx *t = pw_create(NULL);
	struct wl_par_params *p = params(all8, 8, 0, 2000);
	p->remote_free = 0.3;
	p->nr_orders = 3;
	p->orders[1] = 1;
	p->orders[2] = 3;
	p->nr_sizes = 3;
	p->object_sizes[2] = 2048;
	struct wl_par_result r;
	assert_int_equal(run(t, p, 7, &r), NS_OK);
	assert_int_equal(r.ops, 8 * 2000);
	assert_int_equal(r.page_allocs + r.obj_allocs, r.ops);
	assert_int_equal(r.alloc_failed, 0);
	assert_int_equal(r.page_allocs, r.page_frees);
	assert_int_equal(r.obj_allocs, r.obj_frees);
	assert_true(r.page_allocs > 6000 && r.page_allocs < 10000);
	assert_true(r.cycles_per_op > 50);
	assert_true(r.end_cycles > 0 && r.events >= r.ops);
	static const uint32_t sizes[] = {64, 512, 2048};
	for (int i = 0; i < 3; i++) {
		struct slub_cache_info ci;
		assert_int_equal(slub_cache_info(slub_kmalloc_cache(t->w, sizes[i]), &ci), NS_OK);
		assert_true(ci.allocated > 0);
		assert_int_equal(ci.allocated, ci.freed);
	}
	/* no page is left allocated but the slabs SLUB keeps */
	wfx_destroy(t);
}

static void test_determinism(void **state)
{
	(void)state;
	struct wl_par_result r[3];
	uint64_t now[3];
	for (int k = 0; k < 3; k++) {
		struct wfx *t = pw_create(NULL);
		struct wl_par_params *p = params(all8, 8, 12, 1000);
		p->remote_free = 0.2;
		assert_int_equal(run(t, p, k == 2 ? 99 : 5, &r[k]), NS_OK);
		now[k] = 0;
		for (int c = 0; c < 8; c++)
			now[k] = now[k] * 31 + t->s.cpu[c].now;
		wfx_destroy(t);
	}
	assert_memory_equal(&r[0], &r[1], sizeof r[0]);
	assert_int_equal(now[0], now[1]);
	assert_true(now[0] != now[2]);
	assert_true(r[0].page_allocs != r[2].page_allocs || r[0].end_cycles != r[2].end_cycles);
}

/* Page traffic big enough to refill and drain the pcp lists. */
static void contention_run(const int *cpus, int n, struct wl_par_result *r)
{
	struct wfx *t = pw_create(NULL);
	struct wl_par_params *p = params(cpus, n, 0, 3000);
	p->page_share = 1;
	p->lifetime = 400;
	p->think_cycles = 50;
	assert_int_equal(run(t, p, 1, r), NS_OK);
	wfx_destroy(t);
}

static void test_contention(void **state)
{
	(void)state;
	struct wl_par_result one, four;
	contention_run(node0, 1, &one);
	contention_run(node0, 4, &four);
	print_message("zone->lock: 1 task %llu contended; 4 tasks on node 0: %llu contended, "
		      "%llu cycles waited; cycles/op %.1f -> %.1f\n",
		      (unsigned long long)one.zone_lock_contended,
		      (unsigned long long)four.zone_lock_contended,
		      (unsigned long long)four.zone_lock_wait_cycles, one.cycles_per_op,
		      four.cycles_per_op);
	assert_int_equal(one.zone_lock_contended, 0);
	assert_int_equal(one.list_lock_contended, 0);
	assert_true(four.zone_lock_contended > 0);
	assert_true(four.zone_lock_wait_cycles > 0);
	assert_true(four.cycles_per_op > one.cycles_per_op);
}

/*
 * The measured part ends with the last operation.  Three tasks on two
 * CPUs: CPU 0 runs two of them in turn, so its clock ends about twice as
 * far as CPU 1's.  The drain after the operations frees what is left task
 * by task, out of time order: task 1's frees on CPU 1 would meet zone
 * locks CPU 0 released at its later clock and wait about half the run.
 * None of that is in the figures: the waits stay a small part of the
 * run, and end_cycles is the clock after the last operation.
 */
static void test_drain_not_measured(void **state)
{
	(void)state;
	static const int two[] = {0, 1};
	struct wfx *t = pw_create(NULL);
	struct wl_par_params *p = params(two, 2, 3, 3000);
	p->page_share = 1;
	p->lifetime = 400;
	struct wl_par_result r;
	assert_int_equal(run(t, p, 1, &r), NS_OK);
	uint64_t c0 = t->s.cpu[0].now, c1 = t->s.cpu[1].now;
	print_message("drain: end_cycles %llu, CPU clocks after the drain %llu / %llu, "
		      "zone->lock waits %llu cycles in %llu acquisitions\n",
		      (unsigned long long)r.end_cycles, (unsigned long long)c0,
		      (unsigned long long)c1, (unsigned long long)r.zone_lock_wait_cycles,
		      (unsigned long long)r.zone_lock_contended);
	assert_true(r.end_cycles <= (c0 > c1 ? c0 : c1));
	assert_true(r.zone_lock_wait_cycles < r.end_cycles / 20);
	wfx_destroy(t);
}

static void test_list_lock_contention(void **state)
{
	(void)state;
	struct wfx *t = pw_create(NULL);
	struct wl_par_params *p = params(node0, 4, 0, 4000);
	p->page_share = 0;
	p->nr_sizes = 1;
	p->object_sizes[0] = 2048;
	p->remote_free = 0.5;
	p->lifetime = 64;
	p->think_cycles = 20;
	struct wl_par_result r;
	assert_int_equal(run(t, p, 3, &r), NS_OK);
	print_message("list_lock: %llu contended, %llu cycles waited, %llu remote frees\n",
		      (unsigned long long)r.list_lock_contended,
		      (unsigned long long)r.list_lock_wait_cycles,
		      (unsigned long long)r.remote_frees);
	assert_true(r.list_lock_contended > 0);
	wfx_destroy(t);
}

static void test_remote_frees(void **state)
{
	(void)state;
	for (int k = 0; k < 2; k++) {
		struct wfx *t = pw_create(NULL);
		struct wl_par_params *p = params(all8, 8, 0, 1500);
		p->remote_free = k ? 0.25 : 0;
		struct wl_par_result r;
		assert_int_equal(run(t, p, 11, &r), NS_OK);
		if (k) {
			/* about a quarter of the frees */
			double share = (double)r.remote_frees / (double)(r.page_frees + r.obj_frees);
			assert_true(share > 0.2 && share < 0.3);
		} else {
			assert_int_equal(r.remote_frees, 0);
		}
		wfx_destroy(t);
	}
}

static void test_shared_cpu_and_bind(void **state)
{
	(void)state;
	struct mm_config pc;
	mm_config_default(&pc);
	pc.mpol = MPOL_BIND;
	pc.nr_mpol_nodes = 1;
	pc.mpol_nodes[0] = 1;
	struct wfx *t = pw_create(&pc);
	static const int cpu0[] = {0};
	struct wl_par_params *p = params(cpu0, 1, 3, 800);  /* 3 tasks on CPU 0 */
	p->page_share = 1;
	struct wl_par_result r;
	assert_int_equal(run(t, p, 2, &r), NS_OK);
	assert_int_equal(r.ops, 2400);
	struct mm_zone_info zi;
	assert_int_equal(mm_zone_get_info(t->pa, 0, ZONE_NORMAL, -1, &zi), NS_OK);
	assert_int_equal(zi.allocated, 0);
	assert_int_equal(zone_ctr(t, "0/Normal", "pgalloc_normal"), 0);
	assert_int_equal(zone_ctr(t, "1/Normal", "pgalloc_normal"), 2400);
	wfx_destroy(t);
}

static void test_bad_params(void **state)
{
	(void)state;
	struct wfx *t = pw_create(NULL);
	struct wl_par_result r;
	struct diag d;
	struct wl_par_params *p = params(all8, 8, 0, 10);
	p->object_sizes[0] = 1u << 20;
	diag_init(&d);
	assert_int_equal(wl_parallel_run(t->pa, t->w, &t->s, p, 1, NULL, NULL, &r, &d), NS_EINPUT);
	assert_non_null(strstr(d.msg, "kmalloc"));
	static const int nine[] = {9};
	p = params(nine, 1, 0, 10);
	diag_init(&d);
	assert_int_equal(wl_parallel_run(t->pa, t->w, &t->s, p, 1, NULL, NULL, &r, &d), NS_EINPUT);
	p = params(all8, 8, 0, 10);
	p->remote_free = 1.5;
	diag_init(&d);
	assert_int_equal(wl_parallel_run(t->pa, t->w, &t->s, p, 1, NULL, NULL, &r, &d), NS_EINPUT);
	wfx_destroy(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_conservation),
		cmocka_unit_test(test_determinism),
		cmocka_unit_test(test_contention),
		cmocka_unit_test(test_drain_not_measured),
		cmocka_unit_test(test_list_lock_contention),
		cmocka_unit_test(test_remote_frees),
		cmocka_unit_test(test_shared_cpu_and_bind),
		cmocka_unit_test(test_bad_params),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
