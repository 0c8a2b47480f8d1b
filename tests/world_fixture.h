/*
 * world_fixture — the world the SLUB, messaging and parallel model tests
 * build: a machine, one set of cost tables with the page allocator's and
 * SLUB's functions and sites, a layout for the SLUB variant, simulated
 * CPUs, the page allocator and SLUB over one synthetic address space, and
 * the kmalloc caches.  One definition so the three test programs build the
 * same world the same way scenarios/run.c does; each adds its own caches.
 *
 * Failures are cmocka assertions (the diag is printed first).  Header-only:
 * static functions, included by one test program each.
 */
#ifndef NUMASIM_TEST_WORLD_FIXTURE_H
#define NUMASIM_TEST_WORLD_FIXTURE_H

#include "cost/cache.h"
#include "cost/cost.h"
#include "cost/cpu.h"
#include "base/diag.h"
#include "machine/machine.h"
#include "models/page_alloc.h"
#include "models/slub.h"

struct wfx {
	struct machine *m;
	struct cost_tables t;
	struct cost_layout l;
	struct cpu_sys s;
	struct cache_as as;
	int mm_fn, mm_site, sl_fn, sl_site;
	struct mm_world *pa;
	struct slub_world *w;
	struct slub_cache *skb, *k64, *k512;   /* set by the test that uses them */
};

struct wfx_opts {
	const struct slub_config *slub;   /* NULL: slub_config_default() */
	const struct mm_config *pa;       /* NULL: mm_config_default() */
	const int *cpus;                  /* NULL: every CPU of the machine */
	int nr_cpus;
	int bpred_mode;                   /* < 0: cpu_params_default()'s */
	enum cpu_model model;             /* 0: in-order */
	enum cpu_accounting accounting;   /* 0: exact */
	uint32_t sample_period;           /* sampled: 0 = the default */
	const enum cpu_warm *sample_warm; /* sampled: NULL = the default */
};

static void wfx_ok(int rc, struct diag *d)
{
	if (rc != NS_OK)
		diag_print(d, stderr);
	assert_int_equal(rc, NS_OK);
}

/* The world over machine m (owned by the fixture from now on). */
static struct wfx *wfx_create(struct machine *m, const struct wfx_opts *o)
{
	struct wfx *t = calloc(1, sizeof *t);
	struct slub_config cfg;
	struct mm_config pc;
	struct cpu_params p;
	struct diag d;
	assert_non_null(t);
	diag_init(&d);
	t->m = m;
	cache_as_init(&t->as);
	if (o->slub)
		cfg = *o->slub;
	else
		slub_config_default(&cfg);
	cfg.as = &t->as;
	if (o->pa)
		pc = *o->pa;
	else
		mm_config_default(&pc);
	pc.as = &t->as;
	cost_tables_init(&t->t);
	assert_int_equal(mm_register(&t->t, &t->mm_fn, &t->mm_site), NS_OK);
	assert_int_equal(slub_register(&t->t, &t->sl_fn, &t->sl_site), NS_OK);
	assert_int_equal(cost_layout_init(&t->l, &t->t, slub_variant_name(cfg.variant)), NS_OK);
	/* the model's default code layout (in-order, cpu_params_default's:
	 * the estimate layout) unless the test chose one */
	assert_int_equal(mm_layout(&t->l, &t->t, t->mm_fn, t->mm_site, pc.iter,
				   mm_code_resolve(pc.code, o->model)), NS_OK);
	assert_int_equal(slub_layout(&t->l, &t->t, t->sl_fn, t->sl_site, &cfg), NS_OK);
	assert_int_equal(cost_layout_check(&t->l, &t->t), NS_OK);
	int *all = NULL, n = o->nr_cpus;
	const int *cpus = o->cpus;
	if (!cpus) {
		all = calloc((size_t)m->nr_cpus, sizeof *all);
		assert_non_null(all);
		n = 0;
		for (int c = 0; c <= m->max_cpu; c++)
			if (m->cpu_node[c] >= 0)
				all[n++] = c;
		cpus = all;
	}
	cpu_params_default(&p);
	if (o->bpred_mode >= 0)
		p.bpred.mode = (enum bpred_mode)o->bpred_mode;
	p.model = o->model;
	p.accounting = o->accounting;
	if (o->sample_period)
		p.sample_period = o->sample_period;
	if (o->sample_warm)
		p.sample_warm = *o->sample_warm;
	assert_int_equal(cpu_sys_init(&t->s, m, &t->t, &t->l, &p, cpus, n), NS_OK);
	free(all);
	wfx_ok(mm_world_create(m, &pc, &t->s, t->mm_fn, t->mm_site, &t->pa, &d), &d);
	wfx_ok(slub_world_create(m, &cfg, &t->s, t->pa, t->sl_fn, t->sl_site, &t->w, &d), &d);
	wfx_ok(slub_kmalloc_create(t->w, &d), &d);
	return t;
}

/* slub_check, mm_check and cpu_sys_check must hold. */
static void wfx_check(struct wfx *t)
{
	struct diag d;
	diag_init(&d);
	wfx_ok(slub_check(t->w, &d), &d);
	wfx_ok(mm_check(t->pa, &d), &d);
	assert_int_equal(cpu_sys_check(&t->s), NS_OK);
}

/* Check, then free everything (the machine too). */
static void wfx_destroy(struct wfx *t)
{
	wfx_check(t);
	slub_world_destroy(t->w);
	mm_world_destroy(t->pa);
	cpu_sys_free(&t->s);
	cost_layout_free(&t->l);
	cost_tables_free(&t->t);
	machine_free(t->m);
	free(t);
}

#endif
