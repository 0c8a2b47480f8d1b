/*
 * Tests for scenarios/wl_messaging: the perf bench sched messaging
 * workload over the SLUB model.  Every message is allocated and freed
 * (slub_check, mm_check, object counts of both caches), the run is
 * deterministic for a seed and differs for another, FREE_FROZEN is the
 * majority of the slow-path frees on the shipped 2-socket machine at a
 * small volume, a small in-flight limit makes senders block, CFS wake-up
 * preemption happens and raises the FREE_FROZEN share, bad parameters are
 * refused.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/hw/cpu.h"
#include "base/diag.h"
#include "sim/hw/machine.h"
#include "models/page_alloc.h"
#include "models/slub.h"
#include "scenarios/wl_messaging.h"
#include "tests/world_fixture.h"

static struct wfx *mw_create(const char *machine, enum slub_variant v)
{
	struct machine *m = NULL;
	struct slub_config cfg;
	struct diag d;
	char path[4096];
	const char *src = getenv("NUMASIM_SRC");
	diag_init(&d);
	snprintf(path, sizeof path, "%s/configs/%s", src ? src : ".", machine);
	wfx_ok(machine_load_file(path, &m, &d), &d);
	slub_config_default(&cfg);
	cfg.variant = v;
	cfg.stats = 1;
	struct wfx_opts o = {.slub = &cfg, .bpred_mode = -1};
	struct wfx *t = wfx_create(m, &o);
	wfx_ok(slub_cache_create(t->w, "skbuff_head_cache", WL_MSG_SKB_HEAD, 0,
				 SLUB_HWCACHE_ALIGN | SLUB_PANIC, &t->skb, &d), &d);
	t->k512 = slub_kmalloc_cache(t->w, WL_MSG_DATA_ALLOC);
	assert_non_null(t->k512);
	assert_string_equal(slub_cache_name(t->k512), "kmalloc-512");
	return t;
}

static void small_params(struct wl_msg_params *p, uint32_t groups, uint64_t loops)
{
	wl_msg_params_default(p);
	p->groups = groups;
	p->loops = loops;
}

static void run_ok(struct wfx *t, const struct wl_msg_params *p, uint64_t seed,
		   struct wl_msg_result *r)
{
	int rc = wl_messaging_run(t->w, &t->s, t->skb, t->k512, p, seed, NULL, NULL, r);
	assert_int_equal(rc, NS_OK);
}

/* The counters a cache exports: objects in use, slabs, and the per-node
 * slab and object totals summed. */
struct cons {
	const char *cache;
	size_t len;
	int64_t objects, slabs, node_slabs, node_objects, node_partial;
};

static int cons_cb(void *arg, const char *scope, const char *id, const char *name, int64_t v)
{
	struct cons *c = arg;
	if (!strcmp(scope, "cache") && !strcmp(id, c->cache)) {
		if (!strcmp(name, "objects"))
			c->objects = v;
		else if (!strcmp(name, "slabs"))
			c->slabs = v;
	} else if (!strcmp(scope, "cache_node") && !strncmp(id, c->cache, c->len) &&
		   id[c->len] == '/') {
		if (!strcmp(name, "nr_slabs"))
			c->node_slabs += v;
		else if (!strcmp(name, "total_objects"))
			c->node_objects += v;
		else if (!strcmp(name, "nr_partial"))
			c->node_partial += v;
	}
	return NS_OK;
}

static void test_conservation(void **state)
{
	(void)state;
	struct wfx *t = mw_create("skylake-2s.yaml", SLUB_PRE);
	struct wl_msg_params p;
	struct wl_msg_result r;
	small_params(&p, 2, 30);
	run_ok(t, &p, 1, &r);
	uint64_t msgs = 2ull * 20 * 20 * 30;
	assert_int_equal(r.messages, msgs);
	assert_int_equal(r.alloc_failed, 0);
	assert_true(r.total_time_s > 0);
	assert_true(r.ctx_switches >= 80);
	struct slub_cache *cs[2] = {t->skb, t->k512};
	for (int i = 0; i < 2; i++) {
		struct slub_cache_info ci;
		assert_int_equal(slub_cache_info(cs[i], &ci), NS_OK);
		assert_int_equal(ci.allocated, msgs);
		assert_int_equal(ci.freed, msgs);
		uint64_t allocs = slub_stat(t->w, cs[i], -1, SLUB_ALLOC_FASTPATH) +
				  slub_stat(t->w, cs[i], -1, SLUB_ALLOC_SLOWPATH);
		uint64_t frees = slub_stat(t->w, cs[i], -1, SLUB_FREE_FASTPATH) +
				 slub_stat(t->w, cs[i], -1, SLUB_FREE_SLOWPATH);
		assert_int_equal(allocs, msgs);
		assert_int_equal(frees, msgs);
		/* after the run: nothing in use; the slabs on the nodes' counts
		 * are the cache's slabs, each with its objects */
		struct cons c = {.cache = slub_cache_name(cs[i])};
		c.len = strlen(c.cache);
		assert_int_equal(slub_counters(t->w, cons_cb, &c), NS_OK);
		assert_int_equal(c.objects, 0);
		assert_true(c.slabs > 0);
		assert_int_equal(c.node_slabs, c.slabs);
		assert_int_equal(c.slabs, (int64_t)ci.slabs);
		assert_true(c.node_objects <= c.slabs * (int64_t)ci.objects &&
			    c.node_objects >= c.slabs * (int64_t)ci.min_objects);
		assert_true(c.node_partial <= c.slabs);
	}
	wfx_destroy(t);
}

static void test_determinism(void **state)
{
	(void)state;
	struct wl_msg_params p;
	struct wl_msg_result a, b, c;
	small_params(&p, 1, 40);
	struct wfx *t = mw_create("skylake-2s.yaml", SLUB_POST);
	run_ok(t, &p, 7, &a);
	uint64_t ff_a = slub_stat(t->w, t->skb, -1, SLUB_FREE_FROZEN);
	wfx_destroy(t);
	t = mw_create("skylake-2s.yaml", SLUB_POST);
	run_ok(t, &p, 7, &b);
	uint64_t ff_b = slub_stat(t->w, t->skb, -1, SLUB_FREE_FROZEN);
	wfx_destroy(t);
	t = mw_create("skylake-2s.yaml", SLUB_POST);
	run_ok(t, &p, 8, &c);
	wfx_destroy(t);
	assert_int_equal(a.end_cycles, b.end_cycles);
	assert_int_equal(a.events, b.events);
	assert_int_equal(a.ctx_switches, b.ctx_switches);
	assert_int_equal(ff_a, ff_b);
	assert_true(a.total_time_s == b.total_time_s);
	assert_int_not_equal(a.end_cycles, c.end_cycles);
}

static void test_free_frozen_majority(void **state)
{
	(void)state;
	const enum slub_variant vs[2] = {SLUB_PRE, SLUB_POST};
	for (int v = 0; v < 2; v++) {
		struct wfx *t = mw_create("skylake-2s.yaml", vs[v]);
		struct wl_msg_params p;
		struct wl_msg_result r;
		small_params(&p, 4, 60);
		run_ok(t, &p, 3, &r);
		struct slub_cache *cs[2] = {t->skb, t->k512};
		for (int i = 0; i < 2; i++) {
			uint64_t slow = slub_stat(t->w, cs[i], -1, SLUB_FREE_SLOWPATH);
			uint64_t frozen = slub_stat(t->w, cs[i], -1, SLUB_FREE_FROZEN);
			assert_true(slow > 0);
			assert_true(2 * frozen > slow);
		}
		wfx_destroy(t);
	}
}

static void test_blocking(void **state)
{
	(void)state;
	struct wfx *t = mw_create("skylake-2s.yaml", SLUB_PRE);
	struct wl_msg_params p;
	struct wl_msg_result r;
	small_params(&p, 1, 50);
	p.inflight_limit = 4;
	run_ok(t, &p, 5, &r);
	assert_true(r.sender_blocks > 0);
	assert_true(r.wakeups > 0);
	assert_int_equal(r.messages, 20ull * 20 * 50);
	wfx_destroy(t);
	/* with the default limit and few messages nobody reaches the limit */
	t = mw_create("skylake-2s.yaml", SLUB_PRE);
	small_params(&p, 1, 2);
	run_ok(t, &p, 5, &r);
	assert_int_equal(r.sender_blocks, 0);
	assert_true(r.receiver_blocks > 0);
	wfx_destroy(t);
}

/*
 * CFS wake-up preemption (check_preempt_wakeup): once the receivers' vruntime
 * lags the running task's by more than the wake-up granularity, a woken receiver
 * preempts the sender at its next system-call return, drains its connection
 * early and the frees reach slabs that are still frozen.  Without the
 * feature (sched_feat WAKEUP_PREEMPTION off) no wake-up preempts.
 */
static double frozen_share(struct wfx *t)
{
	double slow = 0, fz = 0;
	struct slub_cache *cs[2] = {t->skb, t->k512};
	for (int i = 0; i < 2; i++) {
		slow += (double)slub_stat(t->w, cs[i], -1, SLUB_FREE_SLOWPATH);
		fz += (double)slub_stat(t->w, cs[i], -1, SLUB_FREE_FROZEN);
	}
	return fz / slow;
}

static void test_wakeup_preemption(void **state)
{
	(void)state;
	struct wl_msg_params p;
	struct wl_msg_result on, off;
	/* a run of a few ms: vruntimes on a CPU stay within about 0.1 ms of
	 * each other, so a sched_wakeup_granularity_ns of 10 us (sysctl) */
	small_params(&p, 1, 200);
	p.wakeup_granularity_ns = 10000;
	struct wfx *t = mw_create("client-1node.yaml", SLUB_PRE);
	run_ok(t, &p, 9, &on);
	double share_on = frozen_share(t);
	wfx_destroy(t);
	p.wakeup_preemption = 0;
	t = mw_create("client-1node.yaml", SLUB_PRE);
	run_ok(t, &p, 9, &off);
	double share_off = frozen_share(t);
	wfx_destroy(t);
	print_message("wake-up preemption on: %llu of %llu preemptions, %llu switches, "
		      "FREE_FROZEN %.3f; off: %llu preemptions, FREE_FROZEN %.3f\n",
		      (unsigned long long)on.wake_preemptions,
		      (unsigned long long)on.preemptions, (unsigned long long)on.ctx_switches,
		      share_on, (unsigned long long)off.preemptions, share_off);
	assert_int_equal(on.messages, off.messages);
	assert_true(on.wake_preemptions > 0);
	assert_true(on.wake_preemptions <= on.preemptions);
	assert_true(on.preemptions < on.ctx_switches);
	assert_int_equal(off.wake_preemptions, 0);
	assert_true(share_on > share_off);
}

static void test_bad_params(void **state)
{
	(void)state;
	struct wfx *t = mw_create("skylake-2s.yaml", SLUB_PRE);
	struct wl_msg_params p;
	struct wl_msg_result r;
	small_params(&p, 0, 10);
	assert_int_equal(wl_messaging_run(t->w, &t->s, t->skb, t->k512, &p, 1, NULL, NULL, &r),
			 NS_EINPUT);
	small_params(&p, 1, 0);
	assert_int_equal(wl_messaging_run(t->w, &t->s, t->skb, t->k512, &p, 1, NULL, NULL, &r),
			 NS_EINPUT);
	small_params(&p, 1, 1);
	p.inflight_limit = 0;
	assert_int_equal(wl_messaging_run(t->w, &t->s, t->skb, t->k512, &p, 1, NULL, NULL, &r),
			 NS_EINPUT);
	small_params(&p, 1, 1);
	p.hz = 0;
	assert_int_equal(wl_messaging_run(t->w, &t->s, t->skb, t->k512, &p, 1, NULL, NULL, &r),
			 NS_EINPUT);
	small_params(&p, 1, 1);
	p.sched_latency_ns = 0;
	assert_int_equal(wl_messaging_run(t->w, &t->s, t->skb, t->k512, &p, 1, NULL, NULL, &r),
			 NS_EINPUT);
	wfx_destroy(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_conservation),
		cmocka_unit_test(test_determinism),
		cmocka_unit_test(test_free_frozen_majority),
		cmocka_unit_test(test_blocking),
		cmocka_unit_test(test_wakeup_preemption),
		cmocka_unit_test(test_bad_params),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
