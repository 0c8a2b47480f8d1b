/*
 * The accounting test matrix: every workload (pagealloc: the page
 * allocator; fill: reclaim; messaging: SLUB and the scheduler, socket and
 * pipe, processes and threads; parallel: SLUB and the page allocator
 * under contention) under both timing models (inorder, ooo) and every
 * accounting, each run compared with exact accounting's, every count and
 * every cycle of what a run stores (scenarios/run.c): the workload's
 * results (the metric rows), the models' stat counters, the CPUs'
 * counters, profile rows (calls, self and total cycles), call paths and
 * branch rows, and each CPU's clock.
 *
 * What is promised (docs/design/cost-model.md §9 and §10), and so asserted:
 *  - memo accounting gives exact's results, bit for bit;
 *  - sampled accounting at period 1 makes every call a sample: exact's
 *    results, with the models' fast copies on (the default) and off;
 *  - sampled accounting at a period above 1 is an approximation of exact,
 *    but the fast copies (models/mm_copy.c, models/slub_copy.c, cost/copy.h) change no
 *    result: copies on and off give the same rows, under sample_warm none
 *    (the copy that skips memory) and caches (the copy that warms).
 * The copies are switched off as test_fast_copy (test_page_alloc) does,
 * by clearing each CPU's fcopy after set-up.
 *
 * The worlds are the tiny golden scenarios' (tests/scenarios/tiny-*.yaml)
 * made smaller still, so the whole matrix (180 runs) takes about 15
 * CPU-seconds in the release build.  A mismatch prints the workload, the
 * model, both accountings and the first row that differs.  The benches'
 * drivers (bench pagealloc, slub, messaging) are compared under exact,
 * memo and sampled period 1 by tests/cli/cost-model.sh; their fast copies
 * on and off by test_fast_copy (test_page_alloc) and test_slub.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/diag.h"
#include "cost/cpu.h"
#include "machine/machine.h"
#include "models/page_alloc.h"
#include "models/slub.h"
#include "scenarios/scenario.h"
#include "workloads/wl_fill.h"
#include "workloads/wl_messaging.h"
#include "workloads/wl_pagealloc.h"
#include "workloads/wl_parallel.h"
#include "tests/page_alloc_fixture.h"
#include "tests/test_costs_yaml.h"
#include "tests/world_fixture.h"

/* --- what a run stores, as text ---------------------------------------- */

/* Every row of a run, one line each, in export order. */
struct rows {
	char *buf;
	size_t len, cap;
	size_t lines;
};

static void rows_add(struct rows *r, const char *fmt, ...)
{
	char line[512];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(line, sizeof line, fmt, ap);
	va_end(ap);
	assert_true(n > 0 && (size_t)n < sizeof line - 1);
	if (r->len + (size_t)n + 2 > r->cap) {
		r->cap = r->cap ? r->cap * 2 : 1 << 16;
		r->buf = realloc(r->buf, r->cap);
		assert_non_null(r->buf);
	}
	memcpy(r->buf + r->len, line, (size_t)n);
	r->len += (size_t)n;
	r->buf[r->len++] = '\n';
	r->buf[r->len] = '\0';
	r->lines++;
}

static void rows_free(struct rows *r)
{
	free(r->buf);
	memset(r, 0, sizeof *r);
}

static int put_model_counter(void *arg, const char *scope, const char *id, const char *name,
			     int64_t v)
{
	rows_add(arg, "counter %s %s %s %" PRId64, scope, id, name, v);
	return NS_OK;
}

static int put_cpu_counter(void *arg, const struct cpu_counter_row *r)
{
	rows_add(arg, "cpu-counter %s %d %s %" PRIu64, r->scope, r->scope_id, r->name, r->value);
	return NS_OK;
}

static int put_profile(void *arg, const struct cpu_profile_row *r)
{
	rows_add(arg, "profile %s%s calls %" PRIu64 " self %" PRIu64 " total %" PRIu64,
		 r->function, r->inlined ? " (inlined)" : "", r->calls, r->self_cycles,
		 r->total_cycles);
	return NS_OK;
}

static int put_path(void *arg, const struct cpu_path_row *r)
{
	rows_add(arg, "path %" PRId64 " parent %" PRId64 " %s calls %" PRIu64 " self %" PRIu64
		 " mispredicted %" PRIu64, r->id, r->parent, r->function, r->calls,
		 r->self_cycles, r->mispredicts);
	return NS_OK;
}

static int put_branch(void *arg, const struct cpu_branch_row *r)
{
	rows_add(arg, "branch %s executed %" PRIu64 " taken %" PRIu64 " mispredicted %" PRIu64,
		 r->site, r->executed, r->taken, r->mispredicted);
	return NS_OK;
}

/* The CPUs' rows as run.c exports them (all CPUs summed), then each
 * CPU's own profile and branch rows and its clock, and last the CPUs'
 * invariant walk (matrix() requires exact's to hold: a count broken in
 * another accounting then shows as its row first). */
static void put_cpus(struct rows *r, struct cpu_sys *s)
{
	int check = cpu_sys_check(s);
	assert_int_equal(cpu_sys_counters(s, put_cpu_counter, r), NS_OK);
	assert_int_equal(cpu_sys_profile(s, -1, put_profile, r), NS_OK);
	assert_int_equal(cpu_sys_paths(s, -1, put_path, r), NS_OK);
	assert_int_equal(cpu_sys_branches(s, -1, put_branch, r), NS_OK);
	for (int i = 0; i < s->nr_cpus; i++) {
		struct cpu *c = &s->cpu[i];
		rows_add(r, "cpu %d clock %" PRIu64, c->id, c->now);
		assert_int_equal(cpu_sys_profile(s, c->id, put_profile, r), NS_OK);
		assert_int_equal(cpu_sys_branches(s, c->id, put_branch, r), NS_OK);
	}
	rows_add(r, "cpu_sys_check %d", check);
}

/* --- the accountings ----------------------------------------------------- */

struct acct {
	const char *name;
	enum cpu_accounting accounting;
	uint32_t period;
	enum cpu_warm warm;
	bool copies;
};

/* Each compared with the first (exact). */
static const struct acct same_as_exact[] = {
	{"exact", CPU_ACCOUNTING_EXACT, 0, CPU_WARM_CACHES, true},
	{"memo", CPU_ACCOUNTING_MEMO, 0, CPU_WARM_CACHES, true},
	{"sampled period 1", CPU_ACCOUNTING_SAMPLED, 1, CPU_WARM_CACHES, true},
	{"sampled period 1, copies off", CPU_ACCOUNTING_SAMPLED, 1, CPU_WARM_CACHES, false},
	{"sampled period 1, warm none", CPU_ACCOUNTING_SAMPLED, 1, CPU_WARM_NONE, true},
};
/* Pairs: copies on against copies off. */
static const struct acct copies_pairs[][2] = {
	{{"sampled period 7, warm none", CPU_ACCOUNTING_SAMPLED, 7, CPU_WARM_NONE, true},
	 {"sampled period 7, warm none, copies off", CPU_ACCOUNTING_SAMPLED, 7, CPU_WARM_NONE,
	  false}},
	{{"sampled period 7, warm caches", CPU_ACCOUNTING_SAMPLED, 7, CPU_WARM_CACHES, true},
	 {"sampled period 7, warm caches, copies off", CPU_ACCOUNTING_SAMPLED, 7,
	  CPU_WARM_CACHES, false}},
};

static void cpu_params_of(struct cpu_params *p, enum cpu_model model, const struct acct *a)
{
	cpu_params_default(p);
	p->model = model;
	p->accounting = a->accounting;
	if (a->period)
		p->sample_period = a->period;
	p->sample_warm = a->warm;
}

/* After set-up: the copies off where the accounting says so.  Returns
 * whether the CPUs had them on (sampled accounting). */
static bool set_copies(struct cpu_sys *s, const struct acct *a)
{
	bool had = false;
	for (int i = 0; i < s->nr_cpus; i++) {
		had |= s->cpu[i].fcopy != 0;
		if (!a->copies)
			s->cpu[i].fcopy = 0;
	}
	return had;
}

/* What a run did beyond its rows: the fast calls and how many ran in a
 * copy (a pair must have used the copies, or it compared nothing). */
struct run_stats {
	uint64_t fast, copied, samples;
};

static void stats_of(struct cpu_sys *s, struct run_stats *st)
{
	struct cpu_memo_stats ms;
	cpu_memo_stats(s, &ms);
	st->fast = ms.fast;
	st->copied = ms.copied;
	st->samples = ms.samples;
}

/* A workload: one run of it under (model, accounting) into rows. */
typedef void (*workload_fn)(enum cpu_model model, const struct acct *a, struct rows *r,
			    struct run_stats *st);

/* The first line where a and b differ, printed; fails. */
static void rows_equal(const char *what, enum cpu_model model, const struct acct *a,
		       const struct acct *b, const struct rows *ra, const struct rows *rb)
{
	if (ra->len == rb->len && !memcmp(ra->buf, rb->buf, ra->len))
		return;
	const char *pa = ra->buf, *pb = rb->buf;
	size_t line = 1;
	while (*pa && *pb) {
		const char *ea = strchr(pa, '\n'), *eb = strchr(pb, '\n');
		if (ea - pa != eb - pb || memcmp(pa, pb, (size_t)(ea - pa))) {
			fprintf(stderr, "%s, %s: %s and %s differ at row %zu of %zu / %zu:\n"
				"  %s: %.*s\n  %s: %.*s\n", what, cpu_model_name(model), a->name,
				b->name, line, ra->lines, rb->lines, a->name, (int)(ea - pa), pa,
				b->name, (int)(eb - pb), pb);
			fail();
		}
		pa = ea + 1;
		pb = eb + 1;
		line++;
	}
	fprintf(stderr, "%s, %s: %s has %zu rows, %s %zu\n", what, cpu_model_name(model),
		a->name, ra->lines, b->name, rb->lines);
	fail();
}

/*
 * Run wl under both models and every accounting: those of same_as_exact
 * must give exact's rows, each pair of copies_pairs the same rows, and
 * the pairs' runs with copies on must have run many fast calls in a copy
 * when uses_copies says the workload has them (pipe mode has almost no
 * fast calls: its calls read the clock, docs/design/cost-model.md §10).
 */
static void matrix(const char *what, workload_fn wl, bool uses_copies)
{
	static const enum cpu_model models[] = {CPU_MODEL_INORDER, CPU_MODEL_OOO};
	for (size_t m = 0; m < sizeof models / sizeof models[0]; m++) {
		struct rows ref = {0}, r = {0};
		struct run_stats st;
		wl(models[m], &same_as_exact[0], &ref, &st);
		assert_true(ref.lines > 100);
		assert_non_null(strstr(ref.buf, "\ncpu_sys_check 0\n"));
		assert_null(strstr(ref.buf, "\ncpu_sys_check -"));   /* (NS_ errors) */
		for (size_t i = 1; i < sizeof same_as_exact / sizeof same_as_exact[0]; i++) {
			wl(models[m], &same_as_exact[i], &r, &st);
			if (same_as_exact[i].accounting == CPU_ACCOUNTING_SAMPLED) {
				assert_int_equal(st.fast, 0);   /* every call a sample */
				assert_true(st.samples > 0);
			}
			rows_equal(what, models[m], &same_as_exact[0], &same_as_exact[i], &ref, &r);
			rows_free(&r);
		}
		for (size_t i = 0; i < sizeof copies_pairs / sizeof copies_pairs[0]; i++) {
			struct rows on = {0}, off = {0};
			struct run_stats son, soff;
			wl(models[m], &copies_pairs[i][0], &on, &son);
			wl(models[m], &copies_pairs[i][1], &off, &soff);
			if (uses_copies)
				assert_true(son.fast > 1000 && son.copied > 1000);
			assert_int_equal(soff.copied, 0);
			rows_equal(what, models[m], &copies_pairs[i][0], &copies_pairs[i][1], &on,
				   &off);
			assert_int_equal(son.fast, soff.fast);
			assert_int_equal(son.samples, soff.samples);
			rows_free(&on);
			rows_free(&off);
		}
		rows_free(&ref);
	}
}

static struct machine *machine_of(const char *file)
{
	struct machine *m = NULL;
	struct diag d;
	char path[4096];
	const char *src = getenv("NUMASIM_SRC");
	diag_init(&d);
	snprintf(path, sizeof path, "%s/configs/%s", src ? src : ".", file);
	wfx_ok(machine_load_file(path, &m, &d), &d);
	return m;
}

/* The core figures cost.model ooo needs, appended to TEST_COSTS_YAML
 * (skylake-2s.yaml's values). */
#define OOO_COSTS_YAML                                                         \
	"  dispatch_width: {value: 4, source: t}\n"                            \
	"  rob_size: {value: 224, source: t}\n"                                \
	"  load_queue: {value: 72, source: t}\n"                               \
	"  load_ports: {value: 2, source: t}\n"                                \
	"  fill_buffers: {value: 12, source: t}\n"                             \
	"  call_uops: {value: 4, source: t}\n"                                 \
	"  ret_uops: {value: 3, source: t}\n"                                  \
	"  prefetch_streams: {value: 32, source: t}\n"                         \
	"  prefetch_distance: {value: 20, source: t}\n"                        \
	"  prefetch_degree: {value: 2, source: t}\n"

/* --- pagealloc: tiny-pagealloc's, both zonelist iterators -------------- */

static void run_pagealloc_iter(enum mmzone_iter iter, enum cpu_model model, const struct acct *a,
			       struct rows *r, struct run_stats *st)
{
	struct mm_config cfg;
	struct cpu_params p;
	struct tw *t;
	struct diag d;
	diag_init(&d);
	mm_config_default(&cfg);
	cfg.iter = iter;
	cfg.code = (enum mm_code)mm_code_resolve(cfg.code, model);
	cpu_params_of(&p, model, a);
	static const int cpu0[] = {0};
	int rc = tw_try_params(machine_of("seed-2016-2s.yaml"), &cfg, &p, cpu0, 1, &t, &d);
	wfx_ok(rc, &d);
	set_copies(&t->s, a);
	struct scn_pagealloc pa = {
		.nr_orders = 2, .orders = {0, 1},
		.nr_batches = 4, .batches = {1, 2, 64, 512},
		.inner = 4, .outer = 3, .drop = 1, .gfp = GFP_KERNEL, .cpu = 0,
	};
	struct wl_pagealloc_result res;
	assert_int_equal(wl_pagealloc_run(t->w, &t->s.cpu[0], &pa, NULL, NULL, NULL, &res), NS_OK);
	rows_add(r, "result allocs %" PRIu64 " frees %" PRIu64 " failed %" PRIu64
		 " timed_cycles %" PRIu64, res.allocs, res.frees, res.alloc_failed, res.timed_cycles);
	for (int i = 0; i < res.nr_series; i++)
		for (uint32_t k = 0; k < res.outer; k++)
			rows_add(r, "sample odr%u-%u %u alloc %" PRIu64 " free %" PRIu64,
				 res.series[i].order, res.series[i].batch, k, res.series[i].alloc[k],
				 res.series[i].free[k]);
	wl_pagealloc_result_free(&res);
	assert_int_equal(mm_counters(t->w, put_model_counter, r), NS_OK);
	put_cpus(r, &t->s);
	stats_of(&t->s, st);
	tw_destroy(t);
}

static void run_pagealloc(enum cpu_model model, const struct acct *a, struct rows *r,
			  struct run_stats *st)
{
	struct run_stats s2;
	run_pagealloc_iter(MMZONE_ITER_PRE, model, a, r, st);
	run_pagealloc_iter(MMZONE_ITER_POST, model, a, r, &s2);
	st->fast += s2.fast;
	st->copied += s2.copied;
	st->samples += s2.samples;
}

static void test_pagealloc(void **state)
{
	(void)state;
	matrix("pagealloc", run_pagealloc, true);
}

/* --- fill: tiny-fill's, zone_reclaim_mode 0 and 1 ------------------------ */

/* Two nodes of 64 MiB Normal (test_fill's machine). */
static const char m_fill[] =
	"name: two\nnodes:\n  - id: 0\n    cpus: \"0-1\"\n    zones:\n"
	"      - {type: Normal, size: 64MiB}\n"
	"  - id: 1\n    cpus: \"2-3\"\n    zones:\n"
	"      - {type: Normal, size: 64MiB}\n"
	"distance:\n  - [10, 21]\n  - [21, 10]\n" TEST_COSTS_YAML OOO_COSTS_YAML;

static void run_fill_mode(uint32_t mode, enum cpu_model model, const struct acct *a,
			  struct rows *r, struct run_stats *st)
{
	struct mm_config cfg;
	struct cpu_params p;
	struct tw *t;
	struct diag d;
	diag_init(&d);
	mm_config_default(&cfg);
	cfg.reclaim.enabled = 1;
	cfg.zone_reclaim_mode = mode;
	cfg.code = (enum mm_code)mm_code_resolve(cfg.code, model);
	cpu_params_of(&p, model, a);
	static const int cpus[] = {0, 1, 3};   /* task CPU 0; kswapd CPUs 1 and 3 */
	wfx_ok(tw_try_params(tw_machine(m_fill), &cfg, &p, cpus, 3, &t, &d), &d);
	set_copies(&t->s, a);
	struct wl_fill_params fp;
	wl_fill_params_default(&fp);
	fp.nr_cpus = 1;
	fp.cpus[0] = 0;
	fp.pages = 1.2;
	fp.anon = 0.5;
	fp.lifetime = 64;
	fp.prefill_node = 0;
	fp.prefill_file = 0.8;
	static struct wl_fill_result res;
	wfx_ok(wl_fill_run(t->w, &t->s, &fp, 7, NULL, NULL, &res, &d), &d);
	rows_add(r, "result allocs %" PRIu64 " failed %" PRIu64 " remote %" PRIu64
		 " released %" PRIu64 " reclaimed %" PRIu64 " %" PRIu64 " prefill %" PRIu64,
		 res.allocs, res.alloc_failed, res.remote_pages, res.released,
		 res.reclaimed_owned, res.reclaimed_prefill, res.prefill_pages);
	rows_add(r, "result latency %" PRIu64 " %" PRIu64 " %" PRIu64 " mean %.17g",
		 res.lat_p50, res.lat_p99, res.lat_max, res.lat_mean);
	rows_add(r, "result reclaim direct %" PRIu64 " zone %" PRIu64 " per alloc %.17g"
		 " kswapd %" PRIu64 " steps %" PRIu64, res.direct_reclaim_cycles,
		 res.zone_reclaim_cycles, res.reclaim_cycles_per_alloc, res.kswapd_cycles,
		 res.kswapd_steps);
	rows_add(r, "result accesses %" PRIu64 " %" PRIu64 " refaults %" PRIu64 " cycles %.17g"
		 " %.17g end %" PRIu64 " events %" PRIu64, res.local_accesses,
		 res.remote_accesses, res.refaults, res.access_cycles_local,
		 res.access_cycles_remote, res.end_cycles, res.events);
	for (int i = 0; i < res.nr_samples; i++)
		rows_add(r, "sample %d at %.17g free %.17g", i, res.sample_cycles[i],
			 res.sample_free[i]);
	assert_int_equal(mm_counters(t->w, put_model_counter, r), NS_OK);
	put_cpus(r, &t->s);
	stats_of(&t->s, st);
	tw_destroy(t);
}

static void run_fill(enum cpu_model model, const struct acct *a, struct rows *r,
		     struct run_stats *st)
{
	struct run_stats s2;
	run_fill_mode(0, model, a, r, st);
	run_fill_mode(1, model, a, r, &s2);
	st->fast += s2.fast;
	st->copied += s2.copied;
	st->samples += s2.samples;
}

static void test_fill(void **state)
{
	(void)state;
	/* the allocations enter the page allocator's copy */
	matrix("fill", run_fill, true);
}

/* --- messaging: tiny-messaging's, every mode ----------------------------- */

static void put_msg_result(struct rows *r, const struct wl_msg_result *m)
{
	rows_add(r, "result messages %" PRIu64 " end %" PRIu64 " time %.17g switches %" PRIu64
		 " preemptions %" PRIu64 " %" PRIu64, m->messages, m->end_cycles,
		 m->total_time_s, m->ctx_switches, m->preemptions, m->wake_preemptions);
	rows_add(r, "result blocks %" PRIu64 " %" PRIu64 " wakeups %" PRIu64 " events %" PRIu64
		 " failed %" PRIu64 " migrations %" PRIu64, m->sender_blocks, m->receiver_blocks,
		 m->wakeups, m->events, m->alloc_failed, m->migrations);
	rows_add(r, "result pipe %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " merges %" PRIu64
		 " spurious %" PRIu64, m->pipe_alloc_page, m->pipe_tmp_page_reuse,
		 m->pipe_put_page, m->pipe_tmp_page_keep, m->pipe_merges, m->spurious_wakeups);
	for (size_t i = 0; i < m->nr_sched_stats; i++)
		rows_add(r, "sched %d %s %s %" PRIu64, m->sched_stats[i].cpu,
			 m->sched_stats[i].domain, m->sched_stats[i].name, m->sched_stats[i].value);
}

static void run_msg_mode(enum wl_msg_mode mode, int threads, enum slub_variant v,
			 enum cpu_model model, const struct acct *a, struct rows *r,
			 struct run_stats *st)
{
	struct slub_config cfg;
	struct diag d;
	diag_init(&d);
	slub_config_default(&cfg);
	cfg.variant = v;
	cfg.stats = 1;
	struct wfx_opts o = {
		.slub = &cfg, .bpred_mode = -1, .model = model, .accounting = a->accounting,
		.sample_period = a->period, .sample_warm = &a->warm,
	};
	struct wfx *t = wfx_create(machine_of("skylake-2s.yaml"), &o);
	set_copies(&t->s, a);
	wfx_ok(slub_cache_create(t->w, "skbuff_head_cache", WL_MSG_SKB_HEAD, 0,
				 SLUB_HWCACHE_ALIGN | SLUB_PANIC, &t->skb, &d), &d);
	t->k512 = slub_kmalloc_cache(t->w, WL_MSG_DATA_ALLOC);
	assert_non_null(t->k512);
	struct wl_msg_params p;
	wl_msg_params_default(&p);
	p.groups = 1;
	p.loops = 8;
	p.mode = mode;
	p.threads = threads;
	p.as = &t->as;
	p.pa = t->pa;
	struct wl_msg_result res;
	assert_int_equal(wl_messaging_run(t->w, &t->s, t->skb, t->k512, &p, 11, NULL, NULL, &res),
			 NS_OK);
	assert_true(res.messages > 0);
	put_msg_result(r, &res);
	wl_msg_result_free(&res);
	assert_int_equal(mm_counters(t->pa, put_model_counter, r), NS_OK);
	assert_int_equal(slub_counters(t->w, put_model_counter, r), NS_OK);
	put_cpus(r, &t->s);
	stats_of(&t->s, st);
	wfx_destroy(t);
}

static void run_socket(enum cpu_model model, const struct acct *a, struct rows *r,
		       struct run_stats *st)
{
	struct run_stats s2;
	run_msg_mode(WL_MSG_SOCKET, 0, SLUB_PRE, model, a, r, st);
	run_msg_mode(WL_MSG_SOCKET, 0, SLUB_POST, model, a, r, &s2);
	st->fast += s2.fast;
	st->copied += s2.copied;
	st->samples += s2.samples;
}

static void run_socket_threads(enum cpu_model model, const struct acct *a, struct rows *r,
			       struct run_stats *st)
{
	run_msg_mode(WL_MSG_SOCKET, 1, SLUB_POST, model, a, r, st);
}

static void run_pipe(enum cpu_model model, const struct acct *a, struct rows *r,
		     struct run_stats *st)
{
	run_msg_mode(WL_MSG_PIPE, 0, SLUB_POST, model, a, r, st);
}

static void run_pipe_threads(enum cpu_model model, const struct acct *a, struct rows *r,
			     struct run_stats *st)
{
	run_msg_mode(WL_MSG_PIPE, 1, SLUB_POST, model, a, r, st);
}

static void test_messaging_socket(void **state)
{
	(void)state;
	matrix("messaging socket", run_socket, true);
}

static void test_messaging_socket_threads(void **state)
{
	(void)state;
	matrix("messaging socket, threads", run_socket_threads, true);
}

static void test_messaging_pipe(void **state)
{
	(void)state;
	matrix("messaging pipe", run_pipe, false);   /* (a handful of fast calls) */
}

static void test_messaging_pipe_threads(void **state)
{
	(void)state;
	matrix("messaging pipe, threads", run_pipe_threads, false);
}

/* --- parallel: SLUB and the page allocator, 8 tasks on 2 nodes ----------- */

static const char m_par[] =
	"name: par\nnodes:\n"
	"  - {id: 0, cpus: \"0-3\", zones: [{type: Normal, size: 256MiB}]}\n"
	"  - {id: 1, cpus: \"4-7\", zones: [{type: Normal, size: 256MiB}]}\n"
	"distance:\n  - [10, 21]\n  - [21, 10]\n" TEST_COSTS_YAML OOO_COSTS_YAML;

static void run_parallel(enum cpu_model model, const struct acct *a, struct rows *r,
			 struct run_stats *st)
{
	struct machine *m = NULL;
	struct diag d;
	diag_init(&d);
	wfx_ok(machine_load_buf("par.yaml", m_par, strlen(m_par), &m, &d), &d);
	static const int cpus[8] = {0, 1, 2, 3, 4, 5, 6, 7};
	struct wfx_opts o = {
		.cpus = cpus, .nr_cpus = 8, .bpred_mode = -1, .model = model,
		.accounting = a->accounting, .sample_period = a->period, .sample_warm = &a->warm,
	};
	struct wfx *t = wfx_create(m, &o);
	set_copies(&t->s, a);
	static struct wl_par_params p;
	wl_par_params_default(&p);
	p.nr_cpus = 8;
	for (int i = 0; i < 8; i++)
		p.cpus[i] = cpus[i];
	p.tasks = 12;
	p.ops = 400;
	p.remote_free = 0.3;
	p.nr_orders = 2;
	p.orders[1] = 1;
	struct wl_par_result res;
	wfx_ok(wl_parallel_run(t->pa, t->w, &t->s, &p, 7, NULL, NULL, &res, &d), &d);
	rows_add(r, "result ops %" PRIu64 " pages %" PRIu64 " %" PRIu64 " objects %" PRIu64
		 " %" PRIu64 " remote %" PRIu64 " failed %" PRIu64, res.ops, res.page_allocs,
		 res.page_frees, res.obj_allocs, res.obj_frees, res.remote_frees,
		 res.alloc_failed);
	rows_add(r, "result end %" PRIu64 " per op %.17g zone lock %" PRIu64 " %" PRIu64
		 " list lock %" PRIu64 " %" PRIu64 " events %" PRIu64, res.end_cycles,
		 res.cycles_per_op, res.zone_lock_contended, res.zone_lock_wait_cycles,
		 res.list_lock_contended, res.list_lock_wait_cycles, res.events);
	assert_int_equal(mm_counters(t->pa, put_model_counter, r), NS_OK);
	assert_int_equal(slub_counters(t->w, put_model_counter, r), NS_OK);
	put_cpus(r, &t->s);
	stats_of(&t->s, st);
	wfx_destroy(t);
}

static void test_parallel(void **state)
{
	(void)state;
	matrix("parallel", run_parallel, true);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pagealloc),
		cmocka_unit_test(test_fill),
		cmocka_unit_test(test_messaging_socket),
		cmocka_unit_test(test_messaging_socket_threads),
		cmocka_unit_test(test_messaging_pipe),
		cmocka_unit_test(test_messaging_pipe_threads),
		cmocka_unit_test(test_parallel),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
