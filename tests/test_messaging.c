/*
 * Tests for workloads/wl_messaging: the perf bench sched messaging
 * workload over the SLUB model.  Every message is allocated and freed
 * (slub_check, mm_check, object counts of both caches), the run is
 * deterministic for a seed and differs for another, FREE_FROZEN is the
 * majority of the slow-path frees on the shipped 2-socket machine at a
 * small volume, a small in-flight limit makes senders block, CFS wake-up
 * preemption happens and raises the FREE_FROZEN share, bad parameters are
 * refused; pipe mode moves pages (merged writes, tmp_page, alloc_page /
 * put_page) and no slab objects, thread mode adds the f_count atomics of
 * fdget/fput, and v5.9 placement forks through fork balancing.
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
#include "workloads/wl_messaging.h"
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

static uint64_t sum_counter(struct wfx *t, enum cpu_counter id)
{
	uint64_t n = 0;
	for (int i = 0; i < t->s.nr_cpus; i++)
		n += cpu_counter(&t->s.cpu[i], id);
	return n;
}

static void pipe_params(struct wfx *t, struct wl_msg_params *p, uint32_t groups,
			uint64_t loops)
{
	small_params(p, groups, loops);
	p->mode = WL_MSG_PIPE;
	p->pa = t->pa;
	p->as = &t->as;
}

/*
 * Pipe mode (-p): no slab object per message; every write either merges
 * into the last buffer or starts a buffer with the pipe's tmp_page or a
 * page from alloc_page, and every buffer read empty is kept as tmp_page
 * or put_page'd; the tmp_pages left at the end are freed at the readers'
 * exits, so the page allocator gets back every page (alloc_page -
 * put_page = one per pipe that had a tmp_page left, at most 20 per
 * group).  With 20 x 50 = 1000 messages per pipe (more than its 640)
 * writers block and are woken one at a time.
 */
static void test_pipe_mode(void **state)
{
	(void)state;
	struct wfx *t = mw_create("client-1node.yaml", SLUB_PRE);
	struct wl_msg_params p;
	struct wl_msg_result r;
	pipe_params(t, &p, 1, 50);
	run_ok(t, &p, 5, &r);
	uint64_t msgs = 20ull * 20 * 50;
	assert_int_equal(r.messages, msgs);
	uint64_t buffers = r.pipe_alloc_page + r.pipe_tmp_page_reuse;
	assert_int_equal(r.pipe_merges + buffers, msgs);
	assert_int_equal(r.pipe_tmp_page_keep + r.pipe_put_page, buffers);
	assert_true(r.pipe_alloc_page >= r.pipe_put_page);
	assert_true(r.pipe_alloc_page - r.pipe_put_page <= 20);
	/* at most 40 messages of 100 bytes share a 4096-byte page */
	assert_true(buffers * 40 >= msgs);
	assert_true(r.sender_blocks > 0);
	assert_true(r.receiver_blocks > 0);
	struct slub_cache *cs[2] = {t->skb, t->k512};
	for (int i = 0; i < 2; i++)
		assert_int_equal(slub_stat(t->w, cs[i], -1, SLUB_ALLOC_FASTPATH) +
				 slub_stat(t->w, cs[i], -1, SLUB_ALLOC_SLOWPATH), 0);
	struct diag d;
	diag_init(&d);
	assert_int_equal(mm_check(t->pa, &d), NS_OK);
	wfx_destroy(t);
	/* deterministic for a seed */
	struct wl_msg_result r2;
	t = mw_create("client-1node.yaml", SLUB_PRE);
	pipe_params(t, &p, 1, 50);
	run_ok(t, &p, 5, &r2);
	assert_int_equal(r2.end_cycles, r.end_cycles);
	assert_int_equal(r2.pipe_alloc_page, r.pipe_alloc_page);
	wfx_destroy(t);
	/* a pipe that never fills: 20 messages per pipe, one page each at most */
	t = mw_create("client-1node.yaml", SLUB_PRE);
	pipe_params(t, &p, 1, 1);
	run_ok(t, &p, 5, &r);
	assert_int_equal(r.sender_blocks, 0);
	assert_int_equal(r.spurious_wakeups, 0);
	assert_true(r.pipe_alloc_page >= 20);
	wfx_destroy(t);
}

/*
 * Thread mode (-t): the same messages and SLUB traffic; every write and
 * read also takes and drops a reference on its struct file (4 atomics
 * per message more than process mode, whose private fd tables take
 * __fget_light's path).  The SLUB atomics depend a little on the
 * schedule, so the test bounds the difference.
 */
static void test_thread_mode(void **state)
{
	(void)state;
	struct wl_msg_params p;
	struct wl_msg_result proc, thr;
	small_params(&p, 1, 30);
	struct wfx *t = mw_create("skylake-2s.yaml", SLUB_PRE);
	run_ok(t, &p, 3, &proc);
	uint64_t at_proc = sum_counter(t, CPU_CTR_atomic);
	wfx_destroy(t);
	t = mw_create("skylake-2s.yaml", SLUB_PRE);
	p.threads = 1;
	p.as = &t->as;
	run_ok(t, &p, 3, &thr);
	uint64_t at_thr = sum_counter(t, CPU_CTR_atomic);
	assert_int_equal(slub_stat(t->w, t->skb, -1, SLUB_FREE_FASTPATH) +
			 slub_stat(t->w, t->skb, -1, SLUB_FREE_SLOWPATH), thr.messages);
	wfx_destroy(t);
	uint64_t msgs = 20ull * 20 * 30;
	print_message("atomics: processes %llu, threads %llu, 4 x messages %llu\n",
		      (unsigned long long)at_proc, (unsigned long long)at_thr,
		      (unsigned long long)(4 * msgs));
	assert_int_equal(proc.messages, msgs);
	assert_int_equal(thr.messages, msgs);
	assert_true(at_thr > at_proc);
	double extra = (double)(at_thr - at_proc) / (double)msgs;
	assert_true(extra > 3.9 && extra < 4.1);
	assert_true(thr.end_cycles != proc.end_cycles);
}

/* With v5.9 placement the forked tasks are spread by fork balancing:
 * every CPU of skylake-2s gets some of the 40 tasks of one group before
 * any wake-up moves them; the run completes with tasks conserved. */
static void test_fork_placement(void **state)
{
	(void)state;
	struct wfx *t = mw_create("skylake-2s.yaml", SLUB_PRE);
	struct wl_msg_params p;
	struct wl_msg_result r;
	small_params(&p, 1, 5);
	p.placement = 1;
	p.as = &t->as;
	run_ok(t, &p, 2, &r);
	assert_int_equal(r.messages, 20ull * 20 * 5);
	uint64_t sbf = 0, pushed = 0;
	for (size_t i = 0; i < r.nr_sched_stats; i++) {
		if (!strcmp(r.sched_stats[i].name, "sbf_count"))
			sbf += r.sched_stats[i].value;
		if (!strcmp(r.sched_stats[i].name, "sbf_pushed"))
			pushed += r.sched_stats[i].value;
	}
	assert_true(sbf >= 40);           /* at least one call per fork */
	assert_true(pushed >= 39);        /* all but the first leave the parent's CPU */
	wl_msg_result_free(&r);
	wfx_destroy(t);
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
	small_params(&p, 1, 1);
	p.mode = WL_MSG_PIPE;             /* no page allocator given */
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
		cmocka_unit_test(test_pipe_mode),
		cmocka_unit_test(test_thread_mode),
		cmocka_unit_test(test_fork_placement),
		cmocka_unit_test(test_bad_params),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
