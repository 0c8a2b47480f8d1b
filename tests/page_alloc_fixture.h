/*
 * page_alloc_fixture — the page-allocator-only world of the pagealloc and
 * mempolicy tests: a machine, the allocator's cost tables and layout for
 * the config's iterator variant, simulated CPUs for every CPU of the
 * machine (at most 64, or the CPUs a test names) and the allocator, plus
 * counter and profile lookups.  With cfg->reclaim.enabled the reclaim
 * model's tables are registered and laid out after the allocator's and
 * vmscan is attached, as scenarios/run.c builds a world (the vmscan and
 * fill tests).  tw_try_params takes the CPUs' parameters (accounting,
 * model); the others use cpu_params_default's.  Failures are cmocka assertions; header-only (static
 * inline, so a test that does not use a helper does not warn).
 */
#ifndef NUMASIM_TEST_PA_FIXTURE_H
#define NUMASIM_TEST_PA_FIXTURE_H

#include "cost/cost.h"
#include "cost/cpu.h"
#include "base/diag.h"
#include "machine/machine.h"
#include "models/page_alloc.h"
#include "models/vmscan.h"

#define TW_MAX_CPUS 64

struct tw {
	struct machine *m;
	struct cost_tables t;
	struct cost_layout l;
	struct cpu_sys s;
	int fn_base, site_base;
	struct mm_world *w;
};

/*
 * The world over m (owned by the fixture from now on) on the nr_cpus
 * machine CPUs cpus (NULL: every CPU, at most TW_MAX_CPUS); returns
 * mm_world_create's status (or vmscan_attach's) so that tests can check
 * what the model refuses (*out is set either way; t->w is NULL when
 * mm_world_create fails).
 */
static inline int tw_try_pad(struct machine *m, const struct mm_config *cfg,
			     const struct cpu_params *params, const int *cpus, int nr_cpus,
			     bool pad, struct tw **out, struct diag *d)
{
	struct tw *t = calloc(1, sizeof *t);
	int vf = -1, vs = -1;
	assert_non_null(t);
	t->m = m;
	cost_tables_init(&t->t);
	if (pad) {
		/* another model's function and site first: the page
		 * allocator's ids then start at 1 (its fast copy refuses) */
		static const char *const pad_fn[] = {"pad_fn"};
		static const struct cost_site_def pad_site[] = {{"PAD", "a site before mm's"}};
		int pf, ps;
		assert_int_equal(cost_register_fns(&t->t, pad_fn, 1, &pf), NS_OK);
		assert_int_equal(cost_register_sites(&t->t, pad_site, 1, &ps), NS_OK);
	}
	assert_int_equal(mm_register(&t->t, &t->fn_base, &t->site_base), NS_OK);
	if (cfg->reclaim.enabled)
		assert_int_equal(vmscan_register(&t->t, &vf, &vs), NS_OK);
	/* the series' tables last, for a commit other than v3 04 and 05 */
	struct mm_config cs = *cfg;
	enum kcommit kc = mm_config_commit(cfg);
	if (kc != KC_v3_04 && kc != KC_v3_05)
		assert_int_equal(mm_series_register(&t->t, &cs.series_fn_base,
						    &cs.series_site_base), NS_OK);
	cfg = &cs;
	assert_int_equal(cost_layout_init(&t->l, &t->t, mmzone_iter_name(cfg->iter)), NS_OK);
	/* cpu_params_default's model (in-order, below): the default code
	 * resolves to the estimate layout unless the test chose one */
	assert_int_equal(mm_layout_config(&t->l, &t->t, t->fn_base, t->site_base, cfg,
				   mm_code_resolve(cfg->code, CPU_MODEL_INORDER)), NS_OK);
	if (cfg->reclaim.enabled)
		assert_int_equal(vmscan_layout(&t->l, &t->t, vf, vs), NS_OK);
	if (cfg->series_fn_base >= 0)
		assert_int_equal(mm_series_layout(&t->l, &t->t, cfg->series_fn_base,
						  cfg->series_site_base), NS_OK);
	assert_int_equal(cost_layout_check(&t->l, &t->t), NS_OK);
	int all[TW_MAX_CPUS], n = 0;
	for (int c = 0; !cpus && c <= m->max_cpu && n < TW_MAX_CPUS; c++)
		if (m->cpu_node[c] >= 0)
			all[n++] = c;
	if (!cpus) {
		cpus = all;
		nr_cpus = n;
	}
	struct cpu_params p;
	cpu_params_default(&p);
	if (params)
		p = *params;
	assert_int_equal(cpu_sys_init(&t->s, m, &t->t, &t->l, &p, cpus, nr_cpus), NS_OK);
	*out = t;
	int rc = mm_world_create(m, cfg, &t->s, t->fn_base, t->site_base, &t->w, d);
	if (rc == NS_OK && cfg->reclaim.enabled)
		rc = vmscan_attach(t->w, vf, vs);
	return rc;
}

static inline int tw_try_params(struct machine *m, const struct mm_config *cfg,
				const struct cpu_params *params, const int *cpus, int nr_cpus,
				struct tw **out, struct diag *d)
{
	return tw_try_pad(m, cfg, params, cpus, nr_cpus, false, out, d);
}

static inline int tw_try_cpus(struct machine *m, const struct mm_config *cfg,
			      const int *cpus, int nr_cpus, struct tw **out, struct diag *d)
{
	return tw_try_params(m, cfg, NULL, cpus, nr_cpus, out, d);
}

static inline int tw_try_m(struct machine *m, const struct mm_config *cfg,
			   struct tw **out, struct diag *d)
{
	return tw_try_cpus(m, cfg, NULL, 0, out, d);
}

static inline struct machine *tw_machine(const char *yaml)
{
	struct machine *m = NULL;
	struct diag d;
	diag_init(&d);
	int rc = machine_load_buf("test.yaml", yaml, strlen(yaml), &m, &d);
	if (rc != NS_OK)
		diag_print(&d, stderr);
	assert_int_equal(rc, NS_OK);
	return m;
}

static inline int tw_try(const char *yaml, const struct mm_config *cfg, struct tw **out,
			 struct diag *d)
{
	return tw_try_m(tw_machine(yaml), cfg, out, d);
}

static inline struct tw *tw_create_cpus(struct machine *m, const struct mm_config *cfg,
					const int *cpus, int nr_cpus)
{
	struct tw *t;
	struct diag d;
	diag_init(&d);
	int rc = tw_try_cpus(m, cfg, cpus, nr_cpus, &t, &d);
	if (rc != NS_OK)
		diag_print(&d, stderr);
	assert_int_equal(rc, NS_OK);
	return t;
}

static inline struct tw *tw_create_m(struct machine *m, const struct mm_config *cfg)
{
	return tw_create_cpus(m, cfg, NULL, 0);
}

static inline struct tw *tw_create(const char *yaml, const struct mm_config *cfg)
{
	return tw_create_m(tw_machine(yaml), cfg);
}

static inline void tw_check(struct tw *t)
{
	struct diag d;
	diag_init(&d);
	int rc = mm_check(t->w, &d);
	if (rc != NS_OK)
		diag_print(&d, stderr);
	assert_int_equal(rc, NS_OK);
}

/* Check (when the allocator exists), then free everything. */
static inline void tw_destroy(struct tw *t)
{
	if (t->w)
		tw_check(t);
	mm_world_destroy(t->w);
	cpu_sys_free(&t->s);
	cost_layout_free(&t->l);
	cost_tables_free(&t->t);
	machine_free(t->m);
	free(t);
}

struct ctr_q {
	const char *scope, *id, *name;
	int64_t value;
	int found;
};

static inline int ctr_cb(void *arg, const char *scope, const char *id, const char *name,
			 int64_t v)
{
	struct ctr_q *q = arg;
	if (!strcmp(scope, q->scope) && !strcmp(id, q->id) && !strcmp(name, q->name)) {
		q->value = v;
		q->found = 1;
	}
	return NS_OK;
}

/* One of mm_counters()'s values; it must exist. */
static inline int64_t ctr(struct tw *t, const char *scope, const char *id, const char *name)
{
	struct ctr_q q = {scope, id, name, 0, 0};
	assert_int_equal(mm_counters(t->w, ctr_cb, &q), NS_OK);
	assert_true(q.found);
	return q.value;
}

/* Calls of a model function, summed over the CPUs. */
static inline uint64_t fn_calls(struct tw *t, const char *name)
{
	int id = cost_fn_lookup(&t->t, name);
	assert_true(id >= 0);
	uint64_t n = 0;
	for (int k = 0; k < t->s.nr_cpus; k++)
		n += t->s.cpu[k].prof[id].calls;
	return n;
}

#endif
