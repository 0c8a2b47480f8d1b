/* Tests for workloads/wl_replay: a hand-made trace replayed on a 2-node
 * machine: the calls run and their paths (pcp hits and a refill for
 * order 0, the buddy for order 3, SLUB's fast path and a new slab), the
 * recorded CPUs mapped onto the machine's, remote memory counted, frees
 * of what the trace never allocated counted and skipped, the worlds'
 * checks after the run, and recorded timing against asap. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/diag.h"
#include "cost/cpu.h"
#include "cost/cpu_struct.h"
#include "machine/machine.h"
#include "models/page_alloc.h"
#include "models/slub.h"
#include "tests/test_costs_yaml.h"
#include "workloads/wl_replay.h"
#include "tests/world_fixture.h"

static const char m_two[] =
	"name: rp\nnodes:\n"
	"  - {id: 0, cpus: \"0-1\", zones: [{type: Normal, size: 256MiB}]}\n"
	"  - {id: 1, cpus: \"2-3\", zones: [{type: Normal, size: 256MiB}]}\n"
	"distance:\n  - [10, 21]\n  - [21, 10]\n" TEST_COSTS_YAML;

static struct wfx *world(void)
{
	struct machine *m = NULL;
	struct diag d;
	diag_init(&d);
	wfx_ok(machine_load_buf("rp.yaml", m_two, strlen(m_two), &m, &d), &d);
	struct wfx_opts o = {.bpred_mode = -1};
	return wfx_create(m, &o);
}

/* Replay text on a fresh world; the result in *res, the world's CPU
 * clocks summed in *clock. */
static void replay(const char *text, enum wl_replay_timing timing,
		   struct wl_replay_result **res, uint64_t *clock)
{
	struct wfx *w = world();
	struct scn_replay p = {.trace_text = "t.txt", .timing = timing};
	struct diag d;
	diag_init(&d);
	ktrace_init(&p.t);
	wfx_ok(ktrace_parse(&p.t, "t.txt", text, strlen(text), 0, &d), &d);
	struct wl_run r = {.w = w->pa, .sw = w->w, .as = &w->as, .sys = &w->s, .params = &p,
			   .seed = 1, .path = "t.yaml", .label = "p", .d = &d};
	void *out = NULL;
	wfx_ok(wl_replay_ops.run(&r, &out), &d);
	*res = out;
	*clock = 0;
	for (int i = 0; i < w->s.nr_cpus; i++)
		*clock += w->s.cpu[i].now;
	wfx_destroy(w);          /* the checks: everything was given back */
	ktrace_free(&p.t);
}

#define LINE(cpu, ts, ev) "  t-1 [00" #cpu "] 1." ts ": " ev "\n"

static void test_paths(void **state)
{
	(void)state;
	char text[16384];
	size_t off = 0;
	/* 40 order-0 allocations on recorded CPU 2 (machine CPU 2, node 1):
	 * the first refills the pcp list, the next ones hit it */
	for (int i = 0; i < 40; i++)
		off += (size_t)snprintf(text + off, sizeof text - off,
			"  t-1 [002] 1.%06d: mm_page_alloc: page=0x1 pfn=%d order=0 migratetype=0 gfp_flags=GFP_KERNEL\n",
			i + 1, 1000 + i);
	off += (size_t)snprintf(text + off, sizeof text - off, "%s",
		LINE(2, "000100", "mm_page_alloc: page=0x1 pfn=5000 order=3 migratetype=0 gfp_flags=GFP_KERNEL")
		LINE(2, "000101", "mm_page_free: page=0x1 pfn=5000 order=3")
		LINE(2, "000102", "mm_page_free: page=0x1 pfn=7777 order=0")
		LINE(6, "000103", "kmalloc: call_site=S ptr=0x40 bytes_req=60 bytes_alloc=64 gfp_flags=GFP_KERNEL")
		LINE(6, "000104", "kmalloc: call_site=S ptr=0x80 bytes_req=60 bytes_alloc=64 gfp_flags=GFP_KERNEL")
		LINE(6, "000105", "kfree: call_site=F ptr=0x80")
		LINE(6, "000106", "kfree: call_site=F ptr=0x12345")
		LINE(6, "000107", "kfree: call_site=F ptr=(null)")
		LINE(1, "000108", "kmalloc: call_site=L ptr=0x9000 bytes_req=20000 bytes_alloc=32768 gfp_flags=GFP_KERNEL")
		LINE(1, "000109", "kfree: call_site=F ptr=0x9000"));
	struct wl_replay_result *res;
	uint64_t clock;
	replay(text, WL_REPLAY_ASAP, &res, &clock);
	const struct wl_replay_class *pa = res->page_alloc[0];
	/* the pcp batch of a 256 MiB zone is 15 (zone_batchsize: 65536 /
	 * 1024 / 4 = 16, rounded to 2^n - 1): allocations 1, 16 and 31 refill */
	assert_int_equal(pa[WL_PA_REFILL].calls, 3);
	assert_int_equal(pa[WL_PA_PCP].calls + pa[WL_PA_REFILL].calls, 40);
	assert_true(pa[WL_PA_REFILL].cycles > pa[WL_PA_PCP].cycles / pa[WL_PA_PCP].calls);
	assert_int_equal(res->page_alloc[3][WL_PA_BUDDY].calls, 1);
	assert_int_equal(res->page_free[3][WL_PF_BUDDY].calls, 1);
	/* recorded CPU 6 is machine CPU 6 % 4 = 2; its first kmalloc makes a
	 * new slab, the second comes off the cpu freelist */
	assert_int_equal(res->slab_alloc[WL_SA_NEW_SLAB].calls, 1);
	assert_int_equal(res->slab_alloc[WL_SA_FAST].calls, 1);
	assert_int_equal(res->slab_free[WL_SF_FAST].calls, 1);
	assert_int_equal(res->slab_alloc[WL_SA_LARGE].calls, 1);
	assert_int_equal(res->slab_free[WL_SF_LARGE].calls, 1);
	assert_int_equal(res->free_unknown, 2);
	assert_int_equal(res->free_null, 1);
	assert_int_equal(res->leftover, 40 + 1);   /* the 40 pages, the object at 0x40 */
	/* CPU 2 is on node 1: its pages and objects are node 1's, local */
	assert_int_equal(res->page_remote, 0);
	assert_int_equal(res->page_local, 40 + 1 + 1);
	assert_int_equal(res->obj_local, 2);
	assert_int_equal(res->calls, 40 + 2 + 3 + 2);
	assert_int_equal(res->nr_site, 3);
	/* S and F 2 calls each (F's frees of 0x12345 and NULL did not run), in
	 * the order the trace named them; L 1 */
	assert_string_equal(res->site[0].name, "S");
	assert_string_equal(res->site[1].name, "F");
	assert_int_equal(res->site[1].c.calls, 2);
	assert_string_equal(res->site[2].name, "L");
	free(res);
}

static void test_timing(void **state)
{
	(void)state;
	/* two calls 1 ms apart: recorded timing idles the CPU between them */
	const char *text = LINE(0, "000000", "kmalloc: call_site=S ptr=0x40 bytes_req=8 bytes_alloc=8 gfp_flags=GFP_KERNEL")
		LINE(0, "001000", "kfree: call_site=F ptr=0x40");
	struct wl_replay_result *a, *b;
	uint64_t ca, cb;
	replay(text, WL_REPLAY_RECORDED, &a, &ca);
	replay(text, WL_REPLAY_ASAP, &b, &cb);
	assert_int_equal(a->calls, 2);
	assert_true(a->cycles == b->cycles);      /* the calls cost the same */
	assert_true(ca > cb + 1000000);           /* 1 ms at >= 1 GHz of idling */
	free(a);
	free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_paths),
		cmocka_unit_test(test_timing),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
