/*
 * slub_fixture — what the SLUB model's test programs share (test_slub_paths,
 * test_slub_cost, test_slub_partial): the two-CPU worlds over
 * tests/world_fixture.h with skbuff_head_cache, kmalloc-64 and kmalloc-512;
 * allocation and free on a chosen CPU; snapshots of one CPU's SLUB stats and
 * site counters with their expected deltas; full slabs made on CPU 0; the
 * four (variant, compiler) layouts and the sites of __slab_free's !n block;
 * SLUB's counters by scope, id and name.
 *
 * Failures are cmocka assertions.  Header-only: static inline functions,
 * included by one test program each.
 */
#ifndef NUMASIM_TEST_SLUB_FIXTURE_H
#define NUMASIM_TEST_SLUB_FIXTURE_H

#include <math.h>
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
#include "tests/test_costs_yaml.h"
#include "sim/rng.h"
#include "models/slub.h"
#include "tests/world_fixture.h"

#define COSTS TEST_COSTS_YAML

/* 2 nodes of Normal 64 MiB, one CPU each: CPU 0 on node 0, CPU 1 on node 1. */
static const char m_two[] = TEST_MACHINE_TWO;

/* One node, CPUs 0 and 1 (get_any_partial has no other node to try). */
#define SLUB_MACHINE_ONE                                                        \
	"name: one\nnodes:\n  - id: 0\n    cpus: \"0-1\"\n    zones:\n"          \
	"      - {type: Normal, size: 128MiB}\n"                                 \
	"distance:\n  - [10]\n" COSTS

/* Two CPUs over machine, accounting acc (sampled: one call in period,
 * warming as *warm, or the default if NULL). */
static inline struct wfx *tw_create_acct(const struct slub_config *in, const char *machine,
				  enum bpred_mode mode, enum cpu_accounting acc, uint32_t period,
				  const enum cpu_warm *warm)
{
	struct machine *m = NULL;
	struct diag d;
	diag_init(&d);
	wfx_ok(machine_load_buf("test.yaml", machine, strlen(machine), &m, &d), &d);
	static const int cpus[2] = {0, 1};
	struct wfx_opts o = {.slub = in, .cpus = cpus, .nr_cpus = 2, .bpred_mode = (int)mode,
			     .accounting = acc, .sample_period = period, .sample_warm = warm};
	struct wfx *t = wfx_create(m, &o);
	wfx_ok(slub_cache_create(t->w, "skbuff_head_cache", 224, 0,
				 SLUB_HWCACHE_ALIGN | SLUB_PANIC, &t->skb, &d), &d);
	t->k64 = slub_cache_find(t->w, "kmalloc-64");
	t->k512 = slub_cache_find(t->w, "kmalloc-512");
	assert_non_null(t->k64);
	assert_non_null(t->k512);
	return t;
}

static inline struct wfx *tw_create_bp(const struct slub_config *in, const char *machine,
				enum bpred_mode mode)
{
	return tw_create_acct(in, machine, mode, CPU_ACCOUNTING_EXACT, 0, NULL);
}

static inline struct wfx *tw_create(const struct slub_config *in)
{
	struct cpu_params p;
	cpu_params_default(&p);
	return tw_create_bp(in, m_two, p.bpred.mode);
}

static inline struct cpu *cpu(struct wfx *t, int id)
{
	struct cpu *c = cpu_sys_cpu(&t->s, id);
	assert_non_null(c);
	return c;
}

static inline slub_obj_t alloc(struct wfx *t, int cpu_id, struct slub_cache *s)
{
	slub_obj_t x = slub_alloc(t->w, cpu(t, cpu_id), s, SLUB_NUMA_NO_NODE);
	assert_true(x != 0);
	return x;
}

static inline void fr(struct wfx *t, int cpu_id, struct slub_cache *s, slub_obj_t x)
{
	assert_int_equal(slub_free(t->w, cpu(t, cpu_id), s, x), NS_OK);
}

static inline struct slub_slab_info slab(struct wfx *t, slub_obj_t x)
{
	struct slub_slab_info i;
	assert_int_equal(slub_slab_info(t->w, x, &i), NS_OK);
	return i;
}

static inline struct slub_cache_info cinfo(struct slub_cache *s)
{
	struct slub_cache_info i;
	assert_int_equal(slub_cache_info(s, &i), NS_OK);
	return i;
}

/* Stats and sites of one CPU, to compare before/after an operation. */
struct snapshot {
	uint64_t stat[SLUB_NR_STATS];
	struct cpu_site_stat site[512];
};

static inline void snap(struct wfx *t, struct slub_cache *s, int cpu_id, struct snapshot *o)
{
	for (int i = 0; i < SLUB_NR_STATS; i++)
		o->stat[i] = slub_stat(t->w, s, cpu_id, (enum slub_stat)i);
	assert_true(t->t.nr_sites <= 512);
	memcpy(o->site, cpu(t, cpu_id)->site, (size_t)t->t.nr_sites * sizeof o->site[0]);
}

/* Every stat item's delta equals want (items not listed: 0). */
static inline void expect_stats(struct wfx *t, struct slub_cache *s, int cpu_id,
			 const struct snapshot *before, const int *want)
{
	for (int i = 0; i < SLUB_NR_STATS; i++) {
		uint64_t d = slub_stat(t->w, s, cpu_id, (enum slub_stat)i) - before->stat[i];
		if (d != (uint64_t)want[i])
			fprintf(stderr, "stat %s: %llu, want %d\n", slub_stat_name((enum slub_stat)i),
				(unsigned long long)d, want[i]);
		assert_int_equal(d, want[i]);
	}
}

static inline int site_id(struct wfx *t, const char *name)
{
	int id = cost_site_lookup(&t->t, name);
	assert_true(id >= 0);
	return id;
}

static inline uint64_t ran(struct wfx *t, int cpu_id, const struct snapshot *b, const char *name)
{
	int id = site_id(t, name);
	return cpu(t, cpu_id)->site[id].executed - b->site[id].executed;
}

static inline uint64_t taken(struct wfx *t, int cpu_id, const struct snapshot *b, const char *name)
{
	int id = site_id(t, name);
	return cpu(t, cpu_id)->site[id].taken - b->site[id].taken;
}

static inline struct slub_config cfg_of(enum slub_variant v, enum slub_compiler c, int stats)
{
	struct slub_config cfg;
	slub_config_default(&cfg);
	cfg.variant = v;
	cfg.compiler = c;
	cfg.stats = stats;
	return cfg;
}

/* --- free-path outcomes ------------------------------------------------------------ */

/* n full slabs of s made on CPU 0; objs receives every object (n * per). */
static inline slub_obj_t *make_full(struct wfx *t, struct slub_cache *s, int n, int per)
{
	slub_obj_t *o = calloc((size_t)(n * per + 1), sizeof *o);
	assert_non_null(o);
	for (int i = 0; i <= n * per; i++)
		o[i] = alloc(t, 0, s);
	/* the extra allocation bypassed the last full slab */
	for (int i = 0; i < n; i++) {
		struct slub_slab_info si = slab(t, o[i * per]);
		assert_int_equal(si.loc, SLUB_LOC_FULL);
		assert_int_equal(si.inuse, per);
		assert_int_equal(slab(t, o[i * per + per - 1]).pfn, si.pfn);
	}
	return o;
}

#define WANT(...) {__VA_ARGS__}

struct layout_case {
	enum slub_variant v;
	enum slub_compiler c;
};
static const struct layout_case layouts[] = {
	{SLUB_PRE, SLUB_GCC}, {SLUB_POST, SLUB_GCC}, {SLUB_PRE, SLUB_CLANG}, {SLUB_POST, SLUB_CLANG},
};

/* The !n block's sites for (was_frozen, new_frozen) = case. */
static inline void expect_n_block(struct wfx *t, const struct layout_case *l, int cpu_id,
			   const struct snapshot *b, int was_frozen, int new_frozen)
{
	if (l->v == SLUB_PRE) {
		assert_int_equal(ran(t, cpu_id, b, "PRE6a"), 1);
		assert_int_equal(ran(t, cpu_id, b, "PRE6b"), new_frozen ? 1 : 0);
		assert_int_equal(ran(t, cpu_id, b, "PRE7"), 1);
		assert_int_equal(ran(t, cpu_id, b, "POST6") + ran(t, cpu_id, b, "POST7"), 0);
		if (was_frozen) {
			/* §4.2: GCC falls through every test, clang branches on was_frozen */
			assert_int_equal(taken(t, cpu_id, b, "PRE6a"), 0);
			assert_int_equal(taken(t, cpu_id, b, "PRE6b"), l->c == SLUB_CLANG ? 1 : 0);
			assert_int_equal(taken(t, cpu_id, b, "PRE7"), 0);
		}
	} else {
		assert_int_equal(ran(t, cpu_id, b, "POST6"), 1);
		assert_int_equal(ran(t, cpu_id, b, "POST7"), was_frozen ? 0 : 1);
		assert_int_equal(taken(t, cpu_id, b, "POST6"), was_frozen ? 0 : 1);
		assert_int_equal(ran(t, cpu_id, b, "PRE6a") + ran(t, cpu_id, b, "PRE6b") +
					 ran(t, cpu_id, b, "PRE7"),
				 0);
	}
}

/* --- conservation, counters, determinism ------------------------------------------ */

struct sum {
	uint64_t h;
	int rows;
};

static inline int sum_cb(void *arg, const char *scope, const char *id, const char *name, int64_t v)
{
	struct sum *s = arg;
	for (const char *p = scope; *p; p++)
		s->h = s->h * 131 + (uint8_t)*p;
	for (const char *p = id; *p; p++)
		s->h = s->h * 131 + (uint8_t)*p;
	for (const char *p = name; *p; p++)
		s->h = s->h * 131 + (uint8_t)*p;
	s->h = s->h * 1000003 + (uint64_t)v;
	s->rows++;
	return NS_OK;
}

struct find {
	const char *scope, *id, *name;
	int64_t v;
	int found;
};

static inline int find_cb(void *arg, const char *scope, const char *id, const char *name, int64_t v)
{
	struct find *f = arg;
	if (!strcmp(scope, f->scope) && !strcmp(id, f->id) && !strcmp(name, f->name)) {
		f->v = v;
		f->found++;
	}
	return NS_OK;
}

static inline int64_t counter(struct wfx *t, const char *scope, const char *id, const char *name)
{
	struct find f = {scope, id, name, 0, 0};
	assert_int_equal(slub_counters(t->w, find_cb, &f), NS_OK);
	assert_int_equal(f.found, 1);
	return f.v;
}

#endif
