/*
 * run — executing and storing a scenario's run plan; see run.h.
 *
 * Design notes.  A run is split into simulate (build the world, run the
 * workload, check the invariants; touches nothing shared) and write (one
 * store transaction from the finished world; main thread only), so the
 * write lock is held only for the burst of rows, and so several runs can
 * be simulated at once.  With jobs > 1 worker threads claim run indexes in
 * plan order and park finished runs in a slot; the main thread writes slot
 * by slot in plan order.  At most 2 x jobs runs are claimed beyond the last
 * written one, which bounds memory to 2 x jobs worlds.  A world shares only
 * read-only data with other threads (the scenario and its machine).
 * Each slot (and each preflight or trace thread) keeps its worlds' cache
 * arrays in a cache_pool, so building the next world of the same machine
 * costs a reset of what the last run touched, not ~20 MB of new arrays.
 *
 * The plan loop works on the list of pending runs (the plan minus, with
 * --resume, the runs the database already holds) and, under MPI, deals its positions
 * round-robin to the ranks: rank 0 writes position after position, its
 * own from its pool and the others' as database images received from
 * their ranks (store_image.h), so the database receives the same runs in
 * the same order as from a serial run; the workers write each run into a
 * scratch store and send its image.  Round-robin needs no coordination
 * and, for a sweep of similar runs, balances as well as a work queue.
 */
#include "scenarios/run.h"

#include <errno.h>
#include <inttypes.h>
#include <malloc.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cost/cost.h"
#include "cost/cpu.h"
#include "models/page_alloc.h"
#include "models/shuffle.h"
#include "base/progress.h"
#include "scenarios/run_mpi.h"
#include "models/slub.h"
#include "analysis/store_image.h"
#include "workloads/workload.h"
#include "numasim_config.h"

struct sim_run {
	long long index;
	int point;
	long long rep;
	uint64_t seed;
	struct cost_tables tables;
	struct cost_layout layout;
	int have_tables, have_layout, have_sys;
	int fn_base, site_base;
	int sl_fn_base, sl_site_base;   /* SLUB's functions and sites (messaging) */
	struct cpu_sys sys;
	struct cache_as as;             /* shared by the page allocator and SLUB */
	struct mm_config mm_cfg;
	struct slub_config sl_cfg;
	struct mm_world *w;
	struct slub_world *sw;
	const struct workload_ops *wl;  /* the scenario's workload */
	struct wl_run run;              /* the world and identity it runs with */
	void *result;                   /* its result (wl->result_free) */
	int vm_fn_base, vm_site_base;   /* the reclaim tables (fill) */
	int *fill_cpus;                 /* fill: tasks' CPUs + a kswapd CPU per node */
	int64_t started_ns;
	double host_s;
	int status;          /* NS_OK, WL_STOPPED, or the setup/run error */
	int check_rc;        /* invariant walk after the workload */
	struct diag d;       /* setup error or invariant message */
	int done;            /* simulation finished (slot ready) */
	struct progress_work *work; /* the workload's progress, or NULL */
	struct cache_pool *cpool;   /* the cache arrays kept between the
				       worlds of one slot or thread, or NULL */
	int preflight;       /* build to check only: no memmap (mm_world_validate) */
	int charges;         /* run_opts.charges */
	int twin;            /* being written for a twin point (scenario_point_twin)
				of the point simulated, same_as_point */
	int same_as_point;
};

static double mono_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int64_t real_now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* ---- building and tearing down a world ------------------------------------ */

static void sim_free(struct sim_run *r)
{
	if (r->result && r->wl && r->wl->result_free)
		r->wl->result_free(r->result);
	else
		free(r->result);
	r->result = NULL;
	slub_world_destroy(r->sw);
	r->sw = NULL;
	mm_world_destroy(r->w);
	r->w = NULL;
	if (r->have_sys)
		cpu_sys_free(&r->sys);
	if (r->have_layout)
		cost_layout_free(&r->layout);
	if (r->have_tables)
		cost_tables_free(&r->tables);
	r->have_sys = r->have_layout = r->have_tables = 0;
	free(r->fill_cpus);
	r->fill_cpus = NULL;
}

/*
 * fill: the tasks' CPUs, then for every node with memory the highest CPU
 * of that node that runs no task, as its kswapd's CPU (mm_kswapd_cpu
 * takes the node's last simulated CPU); a node all of whose CPUs run
 * tasks shares its last task CPU with kswapd.
 */
static int fill_cpus(const struct scn_point *pt, struct sim_run *r, int *n)
{
	const struct machine *m = pt->machine;
	r->fill_cpus = calloc((size_t)pt->nr_cpus + (size_t)m->nr_nodes, sizeof *r->fill_cpus);
	if (!r->fill_cpus)
		return NS_ENOMEM;
	memcpy(r->fill_cpus, pt->cpus, (size_t)pt->nr_cpus * sizeof *pt->cpus);
	*n = pt->nr_cpus;
	for (int i = 0; i < m->nr_nodes; i++) {
		const struct machine_node *mn = &m->nodes[i];
		if (!mn->mem_pages)
			continue;
		for (int k = mn->nr_cpus - 1; k >= 0; k--) {
			int used = 0;
			for (int j = 0; j < pt->nr_cpus; j++)
				used |= pt->cpus[j] == mn->cpus[k];
			if (!used) {
				r->fill_cpus[(*n)++] = mn->cpus[k];
				break;
			}
		}
	}
	return NS_OK;
}

/* The CPUs a run simulates: the point's placement (scenario.h: the
 * pagealloc task's CPU, policy.cpus, or every CPU of the machine). */
static const int *run_cpus(const struct scenario *s, int point, int *n)
{
	*n = s->points[point].nr_cpus;
	return s->points[point].cpus;
}

/* SLUB over the run's page allocator, with the kmalloc caches. */
static int slub_setup(const struct scenario *s, struct sim_run *r)
{
	const struct scn_point *pt = &s->points[r->point];
	int rc;

	if ((rc = slub_world_create(pt->machine, &r->sl_cfg, &r->sys, r->w, r->sl_fn_base,
				    r->sl_site_base, &r->sw, &r->d)) ||
	    (rc = slub_kmalloc_create(r->sw, &r->d)))
		return diag_set(&r->d, rc, s->path, 0, 0,
				"point %s: the SLUB model cannot be set up: %s", pt->label,
				r->d.msg[0] ? r->d.msg : ns_status_msg(rc));
	return NS_OK;
}

static int sim_setup(const struct scenario *s, struct sim_run *r)
{
	const struct scn_point *pt = &s->points[r->point];
	/* SLUB over the page allocator (messaging, parallel) */
	int slub = s->wl->slub;
	struct cpu_params cp;
	int ncpus, rc;

	cache_as_init(&r->as);
	r->mm_cfg = pt->cfg;
	r->mm_cfg.code = (enum mm_code)pt->cost.code;
	r->sl_cfg = pt->slub;
	r->sl_cfg.code = (enum mm_code)pt->cost.code;
	if (slub) {
		r->mm_cfg.as = &r->as;
		r->sl_cfg.as = &r->as;
	}
	cost_tables_init(&r->tables);
	r->have_tables = 1;
	if ((rc = mm_register(&r->tables, &r->fn_base, &r->site_base)))
		return diag_set(&r->d, rc, s->path, 0, 0,
				"cannot register the page allocator model: %s",
				ns_status_msg(rc));
	if (slub && (rc = slub_register(&r->tables, &r->sl_fn_base, &r->sl_site_base)))
		return diag_set(&r->d, rc, s->path, 0, 0,
				"cannot register the SLUB model: %s", ns_status_msg(rc));
	/* the reclaim tables after every other model's (no older id moves) */
	int reclaim = s->wl->reclaim;
	if (reclaim && (rc = vmscan_register(&r->tables, &r->vm_fn_base, &r->vm_site_base)))
		return diag_set(&r->d, rc, s->path, 0, 0,
				"cannot register the reclaim model: %s", ns_status_msg(rc));
	/* the 2016 series' tables last of all, and only for a kernel that
	 * runs them (not v3 04 or v3 05, the default kernels): the tables of
	 * every run that does not select such a commit stay as they were */
	enum kcommit kc = mm_config_commit(&pt->cfg);
	int series = kc != KC_v3_04 && kc != KC_v3_05;
	if (series && (rc = mm_series_register(&r->tables, &r->mm_cfg.series_fn_base,
					       &r->mm_cfg.series_site_base)))
		return diag_set(&r->d, rc, s->path, 0, 0,
				"cannot register the page allocator's series tables: %s",
				ns_status_msg(rc));
	if ((rc = cost_layout_init(&r->layout, &r->tables, pt->label)))
		return diag_set(&r->d, rc, s->path, 0, 0, "out of memory");
	r->have_layout = 1;
	if ((rc = mm_layout_config(&r->layout, &r->tables, r->fn_base, r->site_base, &pt->cfg,
			    mm_code_resolve((enum mm_code)pt->cost.code,
					    (enum cpu_model)pt->cost.model))) ||
	    (slub && (rc = slub_layout(&r->layout, &r->tables, r->sl_fn_base,
					    r->sl_site_base, &r->sl_cfg))) ||
	    (reclaim && (rc = vmscan_layout(&r->layout, &r->tables, r->vm_fn_base,
					 r->vm_site_base))) ||
	    (series && (rc = mm_series_layout(&r->layout, &r->tables, r->mm_cfg.series_fn_base,
					      r->mm_cfg.series_site_base))))
		return diag_set(&r->d, rc, s->path, 0, 0,
				"cannot lay out variant %s: %s", pt->label,
				ns_status_msg(rc));
	/* kernel.change: the change files' layout operations on top, in order */
	for (int i = 0; i < pt->nr_changes; i++)
		if ((rc = kchange_apply_layout(pt->changes[i], &r->layout, &r->tables, &r->d)))
			return rc;
	cpu_params_default(&cp);
	cp.cache.pool = r->cpool;
	cp.model = (enum cpu_model)pt->cost.model;
	cp.bpred.mode = (enum bpred_mode)pt->cost.bpred;
	cp.accounting = (enum cpu_accounting)pt->cost.accounting;
	cp.sample_period = pt->cost.sample_period;
	cp.sample_warm = (enum cpu_warm)pt->cost.sample_warm;
	cp.sample_window = pt->cost.sample_window;
	cp.charge_kinds = r->charges != 0;
	if (r->charges && cp.accounting == CPU_ACCOUNTING_SAMPLED)
		return diag_set(&r->d, NS_EINPUT, s->path, 0, 0,
				"variant %s: --charges needs cost.accounting exact or "
				"memo (sampled charges most calls a path's estimate, "
				"not step by step)", pt->label);
	/* a call behind a static key (kernel.change `call:`): the cost layer
	 * mutes it at the call step, which a sampled fast call does not take */
	const struct kchange *kin;
	const struct kchange_op *kop = kchange_first_call(pt->changes, pt->nr_changes, &kin);
	if (kop && cp.accounting == CPU_ACCOUNTING_SAMPLED)
		return diag_set(&r->d, NS_EINPUT, kin->file, kop->line, kop->col,
				"variant %s: a call behind a static key needs cost.accounting "
				"exact or memo (a sampled run's fast calls count the callee's "
				"steps as they go)", pt->label);
	const int *cpus = run_cpus(s, r->point, &ncpus);
	if (reclaim) {
		if ((rc = fill_cpus(pt, r, &ncpus)))
			return diag_set(&r->d, rc, s->path, 0, 0, "out of memory");
		cpus = r->fill_cpus;
	}
	rc = cpu_sys_init(&r->sys, pt->machine, &r->tables, &r->layout, &cp, cpus, ncpus);
	if (rc)
		return diag_set(&r->d, rc, pt->machine_path, 0, 0,
				"cannot simulate the CPUs of machine '%s': %s",
				pt->machine->name, ns_status_msg(rc));
	r->have_sys = 1;
	if ((rc = (r->preflight ? mm_world_validate : mm_world_create)(
		     pt->machine, &r->mm_cfg, &r->sys, r->fn_base, r->site_base, &r->w,
		     &r->d)))
		return diag_set(&r->d, rc, s->path, 0, 0,
				"point %s: the page allocator model cannot be set "
				"up: %s", pt->label, ns_status_msg(rc));
	/* noise.page_placement: page_alloc.shuffle=1's boot-time shuffle of
	 * the free lists (models/shuffle.h), from the run's seed */
	if (pt->noise.page_placement && !r->preflight &&
	    (rc = shuffle_free_memory(r->w, r->seed, NULL)))
		return diag_set(&r->d, rc, s->path, 0, 0,
				"point %s: cannot shuffle the free lists: %s", pt->label,
				ns_status_msg(rc));
	if (reclaim && (rc = vmscan_attach(r->w, r->vm_fn_base, r->vm_site_base)))
		return diag_set(&r->d, rc, s->path, 0, 0,
				"point %s: the reclaim model cannot be attached", pt->label);
	if (slub && (rc = slub_setup(s, r)))
		return rc;
	/* the workload's view of the world, then its own set-up */
	r->run = (struct wl_run){
		.w = r->w, .sw = r->sw, .as = &r->as, .sys = &r->sys, .params = pt->params,
		.sched_v59 = pt->sched_placement == SCN_PLACEMENT_V59, .seed = r->seed,
		.noise = &pt->noise, .path = s->path, .label = pt->label, .rep = r->rep, .d = &r->d,
	};
	return s->wl->setup ? s->wl->setup(&r->run) : NS_OK;
}

/* Under AddressSanitizer its allocator replaces malloc's and glibc's
 * mallinfo2() sees none of it: the sanitizer's own count is used when it
 * is linked in (a weak reference, null otherwise). */
size_t __sanitizer_get_current_allocated_bytes(void) __attribute__((weak));

/* Bytes of heap in use now. */
static size_t heap_in_use(void)
{
	if (__sanitizer_get_current_allocated_bytes)
		return __sanitizer_get_current_allocated_bytes();
	struct mallinfo2 m = mallinfo2();
	return m.uordblks + m.hblkhd;
}

int run_world_bytes(const struct scenario *s, size_t *bytes, struct diag *d)
{
	int point = 0;
	for (int p = 1; p < s->nr_points; p++)
		if (s->points[p].nr_cpus > s->points[point].nr_cpus)
			point = p;
	size_t used0 = heap_in_use();
	struct sim_run r = {.point = point};
	diag_init(&r.d);
	scenario_run_at(s, (long long)point, &r.point, &r.rep, &r.seed);
	int rc = sim_setup(s, &r);
	size_t used1 = heap_in_use();
	sim_free(&r);
	if (rc) {
		*d = r.d;
		return rc;
	}
	*bytes = used1 > used0 ? used1 - used0 : 0;
	return NS_OK;
}

int run_preflight(const struct scenario *s, struct diag *d)
{
	return run_preflight_share(s, 1, 0, 1, d);
}

static void run_and_check(const struct scenario *s, const struct run_opts *o,
			  struct sim_run *r);

static void simulate(const struct scenario *s, const struct run_opts *o,
		     struct sim_run *r)
{
	double t0 = mono_now();
	diag_init(&r->d);
	scenario_run_at(s, r->index, &r->point, &r->rep, &r->seed);
	r->started_ns = real_now_ns();
	r->charges = o->charges;
	r->status = sim_setup(s, r);
	run_and_check(s, o, r);
	r->host_s = mono_now() - t0;
}

/* The workload on a built world, then the invariant walks. */
static void run_and_check(const struct scenario *s, const struct run_opts *o,
			  struct sim_run *r)
{
	if (r->status == NS_OK) {
		r->wl = s->wl;
		r->run.stop = o->stop;
		r->run.work = r->work;
		r->status = s->wl->run(&r->run, &r->result);
	}
	if (r->status == NS_OK && r->sw)
		r->check_rc = slub_check(r->sw, &r->d);
	if (r->status == NS_OK && r->check_rc == NS_OK) {
		r->check_rc = mm_check(r->w, &r->d);
		if (r->check_rc == NS_OK && (r->check_rc = cpu_sys_check(&r->sys)))
			diag_set(&r->d, r->check_rc, s->path, 0, 0,
				 "simulated CPU invariants broken after the run");
	}
}

int run_each(const struct scenario *s, const volatile sig_atomic_t *stop,
	     run_world_fn fn, void *arg, struct progress *bar, struct diag *d)
{
	struct run_opts o = {.jobs = 1, .stop = stop};
	long long n = scenario_nr_runs(s);
	int rc = NS_OK;
	struct progress_plan pp;
	struct progress_ticker tk = {0};
	struct cache_pool cpool = {0};
	struct sim_run *r = malloc(sizeof *r);
	if (!r)
		return diag_set(d, NS_ENOMEM, s->path, 0, 0, "out of memory");
	progress_plan_init(&pp);
	if (bar) {
		progress_init(bar, bar->f, n, 0, mono_now());
		progress_ticker_start(&tk, bar, progress_plan_poll, &pp);
	}
	for (long long i = 0; i < n && rc == NS_OK; i++) {
		memset(r, 0, sizeof *r);
		diag_init(&r->d);
		r->work = bar ? &pp.work : NULL;
		r->cpool = &cpool;
		r->index = i;
		scenario_run_at(s, i, &r->point, &r->rep, &r->seed);
		r->status = sim_setup(s, r);
		if (r->status == NS_OK)
			r->status = fn(arg, s->points[r->point].label, r->rep, r->w, r->sw);
		run_and_check(s, &o, r);
		if (r->status == WL_STOPPED) {
			rc = *stop == RUN_CUT ? NS_OK : RUN_STOPPED;
		} else if (r->status || r->check_rc) {
			rc = r->status ? r->status : r->check_rc;
			*d = r->d;
		}
		sim_free(r);
		progress_plan_run_done(&pp);
	}
	progress_ticker_stop(&tk);
	if (bar)
		progress_finish(bar);
	free(r);
	cache_pool_free(&cpool);
	return rc;
}

/* ---- writing a run --------------------------------------------------------- */

struct writer {
	struct store *st;
	int64_t id;
	const struct sim_run *r;
	const struct scenario *s;
};

static int put_param(void *arg, const char *key, const char *text, long long num)
{
	struct writer *w = arg;
	return text ? store_param(w->st, w->id, key, text)
		    : store_param_int(w->st, w->id, key, num);
}

static int put_pa_counter(void *arg, const char *scope, const char *scope_id,
			  const char *name, int64_t value)
{
	struct writer *w = arg;
	int sc = -1;
	for (int i = 0; i < STORE_SCOPE_COUNT; i++)
		if (!strcmp(scope, store_scope_name((enum store_scope)i)))
			sc = i;
	if (sc < 0)
		return NS_EINTERNAL;
	const char *slash = strchr(scope_id, '/');
	char key[128];
	int64_t id = 0;
	switch ((enum store_scope)sc) {
	case STORE_SCOPE_ZONE:
		if (!slash)
			return NS_EINTERNAL;
		id = strtoll(scope_id, NULL, 10);
		snprintf(key, sizeof key, "%s", slash + 1);
		return store_counter(w->st, w->id, STORE_SCOPE_ZONE, id, key, name, value);
	case STORE_SCOPE_CACHE_NODE:
	case STORE_SCOPE_CACHE_CPU:
		if (!slash)
			return NS_EINTERNAL;
		snprintf(key, sizeof key, "%.*s", (int)(slash - scope_id), scope_id);
		return store_counter(w->st, w->id, (enum store_scope)sc,
				     strtoll(slash + 1, NULL, 10), key, name, value);
	case STORE_SCOPE_CACHE:
		return store_counter(w->st, w->id, STORE_SCOPE_CACHE, -1, scope_id,
				     name, value);
	default:
		return store_counter(w->st, w->id, (enum store_scope)sc,
				     strtoll(scope_id, NULL, 10), NULL, name, value);
	}
}

static int put_cpu_counter(void *arg, const struct cpu_counter_row *row)
{
	struct writer *w = arg;
	if (row->value > INT64_MAX)
		return NS_ERANGE;
	return store_counter(w->st, w->id, STORE_SCOPE_CPU, row->scope_id, NULL,
			     row->name, (int64_t)row->value);
}

static int put_system_counter(void *arg, const struct cpu_counter_row *row)
{
	struct writer *w = arg;
	if (row->value > INT64_MAX)
		return NS_ERANGE;
	return store_counter(w->st, w->id, STORE_SCOPE_SYSTEM, 0, NULL, row->name,
			     (int64_t)row->value);
}

static int put_profile(void *arg, const struct cpu_profile_row *row)
{
	struct writer *w = arg;
	struct store_profile_row p = {
		.function = row->function, .inlined = row->inlined,
		.calls = row->calls, .self_cycles = row->self_cycles,
		.total_cycles = row->total_cycles,
	};
	return store_profile(w->st, w->id, &p);
}

static int put_charge(void *arg, const struct cpu_charge_row *row)
{
	struct writer *w = arg;
	return store_profile_charge(w->st, w->id, row->function, row->kind, row->cycles);
}

static int put_work(void *arg, const struct cpu_unit_row *row)
{
	struct writer *w = arg;
	return store_profile_work(w->st, w->id, row->function, row->unit, row->executed,
				  row->cycles);
}

static int put_path(void *arg, const struct cpu_path_row *row)
{
	struct writer *w = arg;
	struct store_path_row p = {
		.path_id = row->id, .parent_id = row->parent,
		.function = row->function, .calls = row->calls,
		.self_cycles = row->self_cycles, .mispredicted = row->mispredicts,
	};
	return store_call_path(w->st, w->id, &p);
}

static int put_branch(void *arg, const struct cpu_branch_row *row)
{
	struct writer *w = arg;
	int site = cost_site_lookup(&w->r->tables, row->site);
	char fn[128];
	/* the site's function, from its description in the model's table,
	 * so report and queries can name it */
	size_t fnlen = site >= 0 ? cost_site_function(w->r->tables.sites[site], fn,
						      sizeof fn) : 0;
	struct store_branch_row b = {
		.site = row->site, .function = fnlen ? fn : NULL,
		.fallthrough = site >= 0 ? w->r->layout.site[site].fallthrough : -1,
		.executed = row->executed, .taken = row->taken,
		.mispredicted = row->mispredicted,
	};
	return store_branch(w->st, w->id, &b);
}

static int write_run(struct store *st, const struct scenario *s,
		     const struct run_opts *o, struct sim_run *r, int64_t *id)
{
	const struct scn_point *pt = &s->points[r->point];
	struct store_run_info info = {
		.scenario = s->name,
		.scenario_file = s->path,
		.scenario_sha256 = s->sha256,
		.scenario_text = s->text,
		.point = r->point,
		.repetition = r->rep,
		.seed = r->seed,
		.machine = pt->machine->name,
		.machine_file = pt->machine_path,
		.machine_sha256 = pt->machine_sha256,
		.machine_text = pt->machine_text,
		.workload = scn_workload_name(s->workload),
		.variant = pt->label,
		.kernel_model = pt->kernel_model,
		.command = o->command,
		.invocation = o->invocation,
		.started_ns = r->started_ns,
	};
	struct writer w = {.st = st, .r = r, .s = s};
	int rc;

	if ((rc = store_run_begin(st, &info, &w.id)))
		return rc;
	if ((rc = scenario_params(s, r->point, put_param, &w)) ||
	    (r->twin &&
	     (rc = store_param_int(st, w.id, "same_as_point", r->same_as_point))) ||
	    (rc = s->wl->results(r->result, &r->run, st, w.id)) ||
	    (rc = mm_counters(r->w, put_pa_counter, &w)) ||
	    (r->sw && (rc = slub_counters(r->sw, put_pa_counter, &w))) ||
	    (rc = cpu_sys_counters(&r->sys, put_cpu_counter, &w)) ||
	    (rc = cpu_sys_fixed_sites(&r->sys, put_system_counter, &w)) ||
	    (rc = cpu_sys_profile(&r->sys, -1, put_profile, &w)) ||
	    (rc = cpu_sys_paths(&r->sys, -1, put_path, &w)) ||
	    (r->charges && (rc = cpu_sys_charges(&r->sys, -1, put_charge, &w))) ||
	    (r->charges && (rc = cpu_sys_units(&r->sys, -1, put_work, &w))) ||
	    (rc = cpu_sys_branches(&r->sys, -1, put_branch, &w))) {
		store_run_abort(st);
		return rc;
	}
	if (r->check_rc) {
		char msg[DIAG_MSG_MAX + 64];
		snprintf(msg, sizeof msg, "invariant check failed after the run: %s",
			 r->d.msg[0] ? r->d.msg : ns_status_msg(r->check_rc));
		rc = store_run_fail(st, w.id, msg);
	} else {
		rc = store_run_commit(st, w.id);
	}
	if (rc == NS_OK)
		*id = w.id;
	return rc;
}

/* ---- the plan --------------------------------------------------------------- */

/* One thread's part of a preflight: points first, first + stride, ... */
struct preflight {
	const struct scenario *s;
	int first, stride;
	int bad_point;          /* its lowest failing point, or nr_points */
	int rc;
	struct diag d;
};

static void *preflight_part(void *arg)
{
	struct preflight *pf = arg;
	struct cache_pool cpool = {0};
	pf->bad_point = pf->s->nr_points;
	pf->rc = NS_OK;
	for (int p = pf->first; p < pf->s->nr_points; p += pf->stride) {
		struct sim_run r = {.point = p, .cpool = &cpool, .preflight = 1};
		diag_init(&r.d);
		int rc = sim_setup(pf->s, &r);
		sim_free(&r);
		if (rc) {
			pf->rc = rc;
			pf->d = r.d;
			pf->bad_point = p;
			break;
		}
	}
	cache_pool_free(&cpool);
	return NULL;
}

int run_preflight_share(const struct scenario *s, int jobs, int rank, int size,
			struct diag *d)
{
	struct preflight pf[RUN_MAX_JOBS];
	pthread_t th[RUN_MAX_JOBS];
	int nth = 1, best = 0;

	jobs = jobs < 1 ? 1 : jobs > RUN_MAX_JOBS ? RUN_MAX_JOBS : jobs;
	size = size < 1 ? 1 : size;
	for (int t = 0; t < jobs; t++)
		pf[t] = (struct preflight){.s = s, .first = rank + size * t,
					   .stride = size * jobs};
	for (; nth < jobs; nth++)
		if (pthread_create(&th[nth], NULL, preflight_part, &pf[nth]))
			break;
	/* parts whose thread did not start run here */
	for (int t = nth; t < jobs; t++)
		preflight_part(&pf[t]);
	preflight_part(&pf[0]);
	for (int t = 1; t < nth; t++)
		pthread_join(th[t], NULL);
	for (int t = 1; t < jobs; t++)
		if (pf[t].bad_point < pf[best].bad_point)
			best = t;
	if (pf[best].rc)
		*d = pf[best].d;
	return pf[best].rc;
}

/*
 * The simulations of this process: local item k is plan index idx[k].
 * With jobs > 1, `jobs` worker threads claim items in order and park
 * finished ones in slot k % nslots; pool_take hands them to the main
 * thread in order.  There are two slots per worker, so a worker goes on
 * with the next run while the main thread is still writing (or waiting
 * for a CPU to write) the one before, and the main thread, once awake,
 * writes every finished run in a row.  Wake-ups are targeted: a worker
 * signals the main thread only for the item it waits for (want), and the
 * main thread wakes a worker only when one waits for a free slot (on a
 * loaded host every wake-up is a scheduling delay).  With jobs == 1 there
 * are no threads and pool_take simulates.
 */
#define POOL_SLOTS_PER_JOB 2
#define POOL_MAX_SLOTS (POOL_SLOTS_PER_JOB * RUN_MAX_JOBS)

struct pool {
	const struct scenario *s;
	const struct run_opts *o;
	const long long *idx;
	pthread_mutex_t mu;
	pthread_cond_t done_cv; /* the main thread waits for item `want` */
	pthread_cond_t free_cv; /* workers wait for a free slot */
	struct sim_run *slot;   /* [nslots] */
	int jobs, nth, nslots;
	int threaded;           /* workers simulate (jobs > 1); with one job the
				   main thread simulates inline (no hand-off:
				   on a loaded host every wake-up of a waiting
				   thread costs a scheduling delay) */
	pthread_t th[RUN_MAX_JOBS];
	long long next;         /* next item to claim */
	long long written;      /* items released by the main thread */
	long long end;          /* claim limit (items, or lowered to stop) */
	long long want;         /* the item the main thread waits for, or -1 */
	int idle;               /* workers waiting for a free slot */
	struct progress_work work[POOL_MAX_SLOTS]; /* slot k's run in flight */
	struct cache_pool cpool[POOL_MAX_SLOTS];   /* slot k's cache arrays */
};

static void *worker(void *arg)
{
	struct pool *p = arg;
	pthread_mutex_lock(&p->mu);
	for (;;) {
		while (p->next < p->end && p->next >= p->written + p->nslots) {
			p->idle++;
			pthread_cond_wait(&p->free_cv, &p->mu);
			p->idle--;
		}
		if (p->next >= p->end)
			break;
		long long k = p->next++;
		struct sim_run *r = &p->slot[k % p->nslots];
		memset(r, 0, sizeof *r);
		r->index = p->idx[k];
		r->work = &p->work[k % p->nslots];
		r->cpool = &p->cpool[k % p->nslots];
		pthread_mutex_unlock(&p->mu);
		simulate(p->s, p->o, r);
		pthread_mutex_lock(&p->mu);
		r->done = 1;
		if (p->want == k)
			pthread_cond_signal(&p->done_cv);
	}
	pthread_mutex_unlock(&p->mu);
	return NULL;
}

static int pool_start(struct pool *p, const struct scenario *s,
		      const struct run_opts *o, const long long *idx, long long n,
		      struct diag *d)
{
	memset(p, 0, sizeof *p);
	p->s = s;
	p->o = o;
	p->idx = idx;
	p->end = n;
	p->want = -1;
	p->jobs = o->jobs < 1 ? 1 : o->jobs > RUN_MAX_JOBS ? RUN_MAX_JOBS : o->jobs;
	if (p->jobs > n)
		p->jobs = n > 0 ? (int)n : 1;
	p->threaded = p->jobs > 1;
	p->nslots = p->threaded ? POOL_SLOTS_PER_JOB * p->jobs : 1;
	for (int j = 0; j < POOL_MAX_SLOTS; j++)
		progress_work_init(&p->work[j]);
	p->slot = calloc((size_t)p->nslots, sizeof *p->slot);
	if (!p->slot)
		return diag_set(d, NS_ENOMEM, s->path, 0, 0, "out of memory");
	/* timed waits (pool_take's deadline) use the store's clock */
	pthread_condattr_t ca;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_mutex_init(&p->mu, NULL);
	pthread_cond_init(&p->done_cv, &ca);
	pthread_cond_init(&p->free_cv, NULL);
	pthread_condattr_destroy(&ca);
	if (!p->threaded)
		return NS_OK;
	for (; p->nth < p->jobs; p->nth++)
		if (pthread_create(&p->th[p->nth], NULL, worker, p)) {
			pthread_mutex_lock(&p->mu);
			p->end = p->next;
			pthread_mutex_unlock(&p->mu);
			return diag_set(d, NS_ENOMEM, s->path, 0, 0,
					"cannot start simulation threads");
		}
	return NS_OK;
}

/*
 * The simulated item k, or NULL when the plan was cut before it, or, when
 * deadline_ns (CLOCK_MONOTONIC, 0: none) passes first, NULL with *late set
 * (the caller commits its group and asks again).
 */
static struct sim_run *pool_take(struct pool *p, long long k, int64_t deadline_ns,
				 int *late)
{
	struct sim_run *r = &p->slot[k % p->nslots];
	*late = 0;
	if (!p->threaded) {
		if (k >= p->end)
			return NULL;
		memset(r, 0, sizeof *r);
		r->index = p->idx[k];
		r->work = &p->work[0];
		r->cpool = &p->cpool[0];
		simulate(p->s, p->o, r);
		p->next = k + 1;
		return r;
	}
	struct timespec dl = {.tv_sec = (time_t)(deadline_ns / 1000000000),
			      .tv_nsec = (long)(deadline_ns % 1000000000)};
	pthread_mutex_lock(&p->mu);
	p->want = k;
	while (k < p->end && !(k < p->next && r->done)) {
		if (!deadline_ns) {
			pthread_cond_wait(&p->done_cv, &p->mu);
		} else if (pthread_cond_timedwait(&p->done_cv, &p->mu, &dl) == ETIMEDOUT &&
			   !(k < p->next && r->done)) {
			*late = 1;
			break;
		}
	}
	p->want = -1;
	int claimed = !*late && k < p->next;
	pthread_mutex_unlock(&p->mu);
	return claimed ? r : NULL;
}

static void pool_release(struct pool *p, long long k)
{
	struct sim_run *r = &p->slot[k % p->nslots];
	sim_free(r);
	pthread_mutex_lock(&p->mu);
	r->done = 0;
	p->written = k + 1;
	if (p->idle)
		pthread_cond_signal(&p->free_cv);
	pthread_mutex_unlock(&p->mu);
}

/* Claim nothing more, drop the items being simulated, join the threads. */
static void pool_stop(struct pool *p)
{
	if (!p->slot)
		return;
	pthread_mutex_lock(&p->mu);
	if (p->end > p->next)
		p->end = p->next;
	pthread_cond_broadcast(&p->free_cv);
	pthread_mutex_unlock(&p->mu);
	int late;
	for (long long k = p->written; pool_take(p, k, 0, &late); k++)
		pool_release(p, k);
	for (int i = 0; i < p->nth; i++)
		pthread_join(p->th[i], NULL);
	pthread_cond_destroy(&p->done_cv);
	pthread_cond_destroy(&p->free_cv);
	pthread_mutex_destroy(&p->mu);
	free(p->slot);
	p->slot = NULL;
	for (int j = 0; j < POOL_MAX_SLOTS; j++)
		cache_pool_free(&p->cpool[j]);
}

/*
 * One invocation's plan: the list of pending runs (plan indexes in plan order, the
 * runs --resume found complete left out), who simulates position j (rank
 * j % size; everything here without MPI), and the run id of every plan
 * index that has one (kept from the database or just written).
 */
struct plan {
	const struct scenario *s;
	const struct run_opts *o;
	struct store *st;
	struct run_outcome *out;
	struct diag *d;
	long long *pending;        /* [nr_pending] plan indexes */
	long long nr_pending;
	long long *local;       /* [nr_local] this rank's plan indexes */
	long long *local_pos;   /* [nr_local] their positions in pending */
	long long nr_local;
	int64_t *ids;           /* [planned] run id per plan index, 0: none */
	long long *lead;        /* [planned] the plan index whose simulation
				   gives a pending run's rows: itself, or an
				   earlier pending run of a twin point
				   (plan_twins); NULL: every run simulated */
	int rank, size;
	char invocation[320];
	atomic_llong nr_done;   /* skipped + stored, for the progress ticker */
	struct pool *pool;      /* this rank's simulations (plan_write) */
};

size_t run_plan_bytes(long long planned)
{
	const struct plan *pl = NULL;
	/* what plan_find_done (its `at`), plan_pending and run_scenario
	 * allocate per run (the ids become the outcome's run_ids) */
	size_t per_run = sizeof(long long) + sizeof *pl->pending + sizeof *pl->local +
			 sizeof *pl->local_pos + sizeof *pl->ids;
	return planned > 0 ? (size_t)planned * per_run : 0;
}

static int plan_nomem(struct plan *pl)
{
	return diag_set(pl->d, NS_ENOMEM, pl->s->path, 0, 0, "out of memory");
}

/*
 * --resume: the newest 'ok' run of every (point, repetition) of this
 * scenario hash whose machine is the point's machine (an edited machine
 * file makes its runs stale) and that this numasim version wrote (another
 * release may model or default otherwise: 0.2.0 made cost.model default to
 * ooo, so 0.1.0's runs of the same file are not this release's results).
 */
static int plan_find_done(struct plan *pl)
{
	const struct scenario *s = pl->s;
	long long planned = pl->out->planned;
	long long *at = malloc((size_t)planned * sizeof *at);
	sqlite3 *db = store_sqlite(pl->st);
	sqlite3_stmt *q = NULL;
	int rc;

	if (!at)
		return plan_nomem(pl);
	for (long long i = 0; i < planned; i++) {
		int pt;
		long long rep;
		uint64_t seed;
		scenario_run_at(s, i, &pt, &rep, &seed);
		at[rep * s->nr_points + pt] = i;
	}
	rc = sqlite3_prepare_v2(db, "SELECT point, repetition, machine_sha256, "
				"max(run_id) FROM runs WHERE scenario_sha256 = ?1 AND "
				"tool_version = ?2 AND status = 'ok' GROUP BY point, repetition, machine_sha256",
				-1, &q, NULL);
	if (rc == SQLITE_OK)
		rc = sqlite3_bind_text(q, 1, s->sha256, -1, SQLITE_STATIC);
	if (rc == SQLITE_OK)
		rc = sqlite3_bind_text(q, 2, NUMASIM_VERSION, -1, SQLITE_STATIC);
	while (rc == SQLITE_OK && (rc = sqlite3_step(q)) == SQLITE_ROW) {
		int64_t pt = sqlite3_column_int64(q, 0), rep = sqlite3_column_int64(q, 1);
		const char *msha = (const char *)sqlite3_column_text(q, 2);
		int64_t id = sqlite3_column_int64(q, 3);
		rc = SQLITE_OK;
		if (pt < 0 || pt >= s->nr_points || rep < 0 || rep >= s->repetitions ||
		    !msha || strcmp(msha, s->points[pt].machine_sha256))
			continue;
		long long i = at[rep * s->nr_points + pt];
		if (id > pl->ids[i])
			pl->ids[i] = id;
	}
	if (rc != SQLITE_DONE)
		rc = diag_set(pl->d, NS_EDB, store_path(pl->st), 0, 0,
			      "cannot look up the runs to resume: %s", sqlite3_errmsg(db));
	else
		rc = NS_OK;
	sqlite3_finalize(q);
	free(at);
	return rc;
}

/*
 * Twins (scenario_point_twin): a pending run whose point is the twin of
 * an earlier pending run's point in the same repetition (same seed) is
 * not simulated; its rows are written from that run's simulation
 * (write_twins), with the param same_as_point.  A twin whose lead was
 * kept by --resume is simulated itself.  Not with --simulate-all, nor
 * under MPI (a worker's run reaches rank 0 as a database image).
 */
static int plan_twins(struct plan *pl)
{
	const struct scenario *s = pl->s;
	long long planned = pl->out->planned;
	int np = s->nr_points;
	int *root = malloc((size_t)np * sizeof *root);
	long long *first = malloc((size_t)np * sizeof *first);
	pl->lead = malloc((size_t)planned * sizeof *pl->lead);
	if (!root || !first || !pl->lead) {
		free(root);
		free(first);
		return plan_nomem(pl);
	}
	for (int p = 0; p < np; p++)
		root[p] = scenario_point_twin(s, p);
	for (long long i = 0; i < planned; i++) {
		int pt = (int)(i % np);   /* scenario_run_at: repetition-major */
		if (pt == 0)
			for (int p = 0; p < np; p++)
				first[p] = -1;
		pl->lead[i] = i;
		if (pl->ids[i])
			continue;
		if (first[root[pt]] < 0)
			first[root[pt]] = i;
		else
			pl->lead[i] = first[root[pt]];
	}
	free(root);
	free(first);
	return NS_OK;
}

/* Rank 0 (or a serial run) builds the list of pending runs; MPI ranks receive it. */
static int plan_pending(struct plan *pl)
{
	long long planned = pl->out->planned;
	int rc;
	pl->pending = malloc((size_t)planned * sizeof *pl->pending);
	if (!pl->pending)
		return plan_nomem(pl);
	rc = NS_OK;
	if (pl->rank == 0) {
		if (pl->o->resume)
			rc = plan_find_done(pl);
		if (rc == NS_OK && pl->size == 1 && !pl->o->simulate_all)
			rc = plan_twins(pl);
		for (long long i = 0; i < planned && rc == NS_OK; i++)
			if (!pl->ids[i] && (!pl->lead || pl->lead[i] == i))
				pl->pending[pl->nr_pending++] = i;
		if (rc)
			pl->nr_pending = -1;   /* tells the workers to give up */
	}
	if (pl->size > 1) {
		int r = run_mpi_bcast(pl->o->mpi, &pl->nr_pending, sizeof pl->nr_pending);
		if (r == NS_OK && pl->nr_pending < 0)
			r = rc ? rc : diag_set(pl->d, NS_EIO, pl->s->path, 0, 0,
					       "MPI rank 0 could not plan the runs");
		if (r == NS_OK)
			r = run_mpi_bcast(pl->o->mpi, pl->pending,
					  (size_t)pl->nr_pending * sizeof *pl->pending);
		if (r == NS_OK)
			r = run_mpi_bcast(pl->o->mpi, pl->invocation, sizeof pl->invocation);
		rc = rc ? rc : r;
	}
	if (rc)
		return rc;
	pl->out->nr_skipped = planned - pl->nr_pending;
	for (long long i = 0; pl->lead && i < planned; i++)
		pl->out->nr_skipped -= !pl->ids[i] && pl->lead[i] != i;   /* twins */
	pl->local = malloc((size_t)(pl->nr_pending + 1) * sizeof *pl->local);
	pl->local_pos = malloc((size_t)(pl->nr_pending + 1) * sizeof *pl->local_pos);
	if (!pl->local || !pl->local_pos)
		return plan_nomem(pl);
	for (long long j = pl->rank; j < pl->nr_pending; j += pl->size) {
		pl->local_pos[pl->nr_local] = j;
		pl->local[pl->nr_local++] = pl->pending[j];
	}
	return NS_OK;
}

static void plan_free(struct plan *pl)
{
	free(pl->lead);
	free(pl->pending);
	free(pl->local);
	free(pl->local_pos);
	free(pl->ids);
}

/* A simulated run: write it (*id), or say why the plan stops. */
static int consume(struct plan *pl, struct store *st, struct sim_run *r,
		   int64_t *id)
{
	int rc;
	*id = 0;
	if (r->status == WL_STOPPED)
		return RUN_STOPPED;
	if (r->status) {
		*pl->d = r->d;
		return r->status;
	}
	if ((rc = write_run(st, pl->s, pl->o, r, id)))
		return rc;
	if (r->check_rc)
		return diag_set(pl->d, NS_EINTERNAL, pl->s->path, 0, 0,
				"run %" PRId64 " (%s, repetition %lld) failed its "
				"invariant check: %s", *id,
				pl->s->points[r->point].label, r->rep, r->d.msg);
	return NS_OK;
}

static void stored(struct plan *pl, long long i, int64_t id, int failed)
{
	struct run_outcome *out = pl->out;
	pl->ids[i] = id;
	if (out->nr_stored++ == 0)
		out->first_stored = id;
	out->last_stored = id;
	out->nr_failed += failed;
	atomic_store_explicit(&pl->nr_done, out->nr_skipped + out->nr_stored,
			      memory_order_relaxed);
}

/* The pending twins of the run r simulated (plan_twins), written from its
 * simulation in plan order. */
static int write_twins(struct plan *pl, struct sim_run *r)
{
	long long lead = r->index, np = pl->s->nr_points;
	long long end = (lead / np + 1) * np;
	int point = r->point, rc = NS_OK;
	for (long long f = lead + 1; f < end && rc == NS_OK; f++) {
		int64_t id = 0;
		if (pl->lead[f] != lead)
			continue;
		r->twin = 1;
		r->same_as_point = point;
		r->index = f;
		r->point = (int)(f % np);
		if ((rc = write_run(pl->st, pl->s, pl->o, r, &id)) == NS_OK) {
			stored(pl, f, id, 0);
			pl->out->nr_twins++;
		}
	}
	r->twin = 0;
	r->point = point;
	r->index = lead;
	return rc;
}

/*
 * The progress ticker's view of the plan (another thread): runs stored
 * or skipped, plus the share done of the runs being simulated.  A run
 * being written is at 0 until it is stored (the bar does not go back).
 */
static void plan_poll(void *arg, long long *done, double *part)
{
	struct plan *pl = arg;
	*done = atomic_load_explicit(&pl->nr_done, memory_order_relaxed);
	*part = 0;
	for (int j = 0; pl->pool && j < pl->pool->nslots; j++)
		*part += progress_work_fraction(&pl->pool->work[j]);
}

/* Rank 0: position j comes from worker `from` (MPI). */
static int take_remote(struct plan *pl, int from, long long j, int *ended)
{
	struct run_mpi_msg m;
	int64_t id = 0;
	int rc = run_mpi_recv(pl->o->mpi, from, pl->o->stop, &m);
	if (rc)
		return rc;
	if (m.kind == RUN_MPI_END) {
		ended[from] = 1;
		rc = m.status ? m.status : NS_EINTERNAL;
		if (rc != RUN_STOPPED)
			diag_set(pl->d, rc, pl->s->path, 0, 0, "MPI rank %d: %s", from,
				 m.len ? (const char *)m.data : "ended early");
	} else if (m.pos != j) {
		rc = diag_set(pl->d, NS_EINTERNAL, pl->s->path, 0, 0, "MPI rank %d "
			      "sent run %lld of the plan, expected %lld", from, m.pos, j);
	} else if ((rc = store_flush(pl->st)) == NS_OK &&
		   (rc = store_image_import(pl->st, m.data, m.len, &id, pl->d)) == NS_OK) {
		stored(pl, pl->pending[j], id, m.status != 0);
		if (m.status)
			rc = diag_set(pl->d, NS_EINTERNAL, pl->s->path, 0, 0,
				      "run %" PRId64 " (simulated by MPI rank %d) failed "
				      "its invariant check; see its message", id, from);
	}
	run_mpi_msg_free(&m);
	return rc;
}

/* Rank 0 at the end: one control message per worker, then its END. */
static int finish_workers(struct plan *pl, int rc, int *ended)
{
	for (int w = 1; w < pl->size; w++) {
		int r = run_mpi_control(pl->o->mpi, w, rc != NS_OK);
		while (r == NS_OK && !ended[w]) {
			struct run_mpi_msg m;
			if ((r = run_mpi_recv(pl->o->mpi, w, NULL, &m)))
				break;
			if (m.kind == RUN_MPI_END) {
				ended[w] = 1;
				if (rc == NS_OK && m.status) {
					rc = m.status;
					diag_set(pl->d, rc, pl->s->path, 0, 0, "MPI rank %d: %s",
						 w, m.len ? (const char *)m.data : "failed");
				}
			}
			run_mpi_msg_free(&m);
		}
		if (r && rc == NS_OK)
			rc = r;
	}
	return rc;
}

/*
 * The end of the plan, whatever ended it: the open group's runs are
 * whole (stored, failed, or before an interrupt) and are committed.  When
 * that fails they are lost (--resume redoes them): not counted as stored.
 */
static int flush_group(struct plan *pl, int rc)
{
	int n = store_group_runs(pl->st);
	int frc = store_flush(pl->st);
	if (frc == NS_OK)
		return rc;
	pl->out->nr_stored -= n;
	return rc == NS_OK || rc == RUN_STOPPED ? frc : rc;
}

/* Inline simulation: would a run lasting sim_s end past the open
 * group's deadline? */
static int due_before(const struct store *st, double sim_s)
{
	int64_t dl = store_group_deadline_ns(st);
	return dl && mono_now() + sim_s >= (double)dl * 1e-9;
}

/* Rank 0, or the only process: write the list of pending runs in order. */
static int plan_write(struct plan *pl)
{
	struct pool p = {0};
	long long k = 0;
	double last_sim_s = 0;   /* the last run's simulation time */
	int *ended = calloc((size_t)pl->size, sizeof *ended);
	struct progress_ticker tk = {0};
	int rc = ended ? pool_start(&p, pl->s, pl->o, pl->local, pl->nr_local, pl->d)
		       : plan_nomem(pl);
	if (rc == NS_OK && pl->o->bar) {
		pl->pool = &p;
		progress_ticker_start(&tk, pl->o->bar, plan_poll, pl);
	}
	for (long long j = 0; j < pl->nr_pending && rc == NS_OK; j++) {
		int from = (int)(j % pl->size);
		if (pl->o->stop && *pl->o->stop) {
			rc = RUN_STOPPED;
			break;
		}
		if (from != 0) {
			rc = take_remote(pl, from, j, ended);
		} else {
			/* a group whose time is up is committed while the
			 * next run is still being simulated (threads), or,
			 * simulating inline, before a run that would take it
			 * past its time if it lasts as long as the last one */
			int late;
			struct sim_run *r;
			if (!p.threaded && due_before(pl->st, last_sim_s) &&
			    (rc = store_flush(pl->st)))
				break;
			while (!(r = pool_take(&p, k, store_group_deadline_ns(pl->st), &late)) &&
			       late && (rc = store_flush(pl->st)) == NS_OK)
				;
			int64_t id;
			if (!r)
				break;
			progress_work_start(r->work, 0);   /* counted once stored */
			pl->out->sim_s += r->host_s;
			last_sim_s = r->host_s;
			rc = consume(pl, pl->st, r, &id);
			if (id)
				stored(pl, r->index, id, r->check_rc != 0);
			if (rc == NS_OK && pl->lead)
				rc = write_twins(pl, r);
			pool_release(&p, k++);
		}
		if (rc == NS_OK && pl->o->stop && *pl->o->stop)
			rc = RUN_STOPPED;
	}
	progress_ticker_stop(&tk);
	pl->pool = NULL;
	pool_stop(&p);
	rc = flush_group(pl, rc);
	if (ended && pl->size > 1)
		rc = finish_workers(pl, rc, ended);
	free(ended);
	return rc;
}

/* An MPI worker: simulate its share, send each run as an image. */
static int plan_send(struct plan *pl)
{
	struct run_mpi *mpi = pl->o->mpi;
	struct store *scratch = NULL;
	struct pool p = {0};
	int rc = store_image_scratch(&scratch, pl->d);
	if (rc == NS_OK)
		rc = pool_start(&p, pl->s, pl->o, pl->local, pl->nr_local, pl->d);
	for (long long k = 0; k < pl->nr_local && rc == NS_OK; k++) {
		int stop = 0;
		if ((rc = run_mpi_poll_stop(mpi, &stop)) || stop) {
			rc = rc ? rc : RUN_STOPPED;
			break;
		}
		int late;
		struct sim_run *r = pool_take(&p, k, 0, &late);
		if (!r)
			break;
		int64_t id;
		int crc = consume(pl, scratch, r, &id);
		if (id) {
			struct run_mpi_msg m = {.kind = RUN_MPI_RESULT, .pos = pl->local_pos[k],
						.status = r->check_rc != 0};
			rc = store_image_take(scratch, &m.data, &m.len, pl->d);
			if (rc == NS_OK)
				rc = run_mpi_send(mpi, &m);
			store_image_free(m.data);
		}
		if (rc == NS_OK)
			rc = crc;
		pool_release(&p, k);
		if (rc == NS_OK && pl->o->stop && *pl->o->stop)
			rc = RUN_STOPPED;
	}
	pool_stop(&p);
	store_close(scratch);
	const char *msg = rc && rc != RUN_STOPPED ? pl->d->msg : "";
	struct run_mpi_msg end = {.kind = RUN_MPI_END, .status = rc,
				  .data = (unsigned char *)(uintptr_t)msg,
				  .len = strlen(msg)};
	int r = run_mpi_send(mpi, &end);
	if (r == NS_OK)
		r = run_mpi_wait(mpi);
	return rc ? rc : r;
}

/* out->run_ids: the plan's runs in plan order. */
static void plan_ids(struct plan *pl)
{
	struct run_outcome *out = pl->out;
	out->run_ids = (int64_t *)pl->ids;
	pl->ids = NULL;
	for (long long i = 0; i < out->planned; i++)
		if (out->run_ids[i])
			out->run_ids[out->nr_ids++] = out->run_ids[i];
}

/* "host:pid:time", like the store's own (store.h), for an MPI job. */
static void mpi_invocation(const struct run_opts *o, char *buf, size_t len)
{
	char host[256], when[32];
	time_t now = time(NULL);
	struct tm tm;
	if (o->invocation) {
		snprintf(buf, len, "%s", o->invocation);
		return;
	}
	if (gethostname(host, sizeof host) != 0)
		snprintf(host, sizeof host, "unknown");
	host[sizeof host - 1] = '\0';
	gmtime_r(&now, &tm);
	strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", &tm);
	snprintf(buf, len, "%s:%ld:%s:mpi", host, (long)getpid(), when);
}

int run_scenario(const struct scenario *s, struct store *st,
		 const struct run_opts *o, struct run_outcome *out,
		 struct diag *d)
{
	struct run_opts oo = *o;
	struct plan pl = {.s = s, .o = &oo, .st = st, .out = out, .d = d,
			  .rank = 0, .size = 1};
	double t0 = mono_now();
	int rc;

	memset(out, 0, sizeof *out);
	out->planned = scenario_nr_runs(s);
	if (o->mpi) {
		pl.rank = run_mpi_rank(o->mpi);
		pl.size = run_mpi_size(o->mpi);
		/* one invocation for the runs of every rank: rank 0's */
		mpi_invocation(o, pl.invocation, sizeof pl.invocation);
		oo.invocation = pl.invocation;
	}
	atomic_init(&pl.nr_done, 0);
	pl.ids = calloc((size_t)out->planned, sizeof *pl.ids);
	rc = pl.ids ? plan_pending(&pl) : plan_nomem(&pl);
	if (rc == NS_OK && pl.rank == 0 && o->bar) {
		progress_init(o->bar, o->bar->f, out->planned, out->nr_skipped, t0);
		atomic_store_explicit(&pl.nr_done, out->nr_skipped, memory_order_relaxed);
	}
	if (rc == NS_OK && pl.rank == 0 && o->commit_runs > 1)
		rc = store_set_group(st, o->commit_runs, o->commit_ms);
	if (rc == NS_OK)
		rc = pl.rank == 0 ? plan_write(&pl) : plan_send(&pl);
	if (o->bar && pl.rank == 0)
		progress_finish(o->bar);
	if (pl.rank == 0 && pl.ids)
		plan_ids(&pl);
	plan_free(&pl);
	out->wall_s = mono_now() - t0;
	return rc;
}

void run_outcome_free(struct run_outcome *out)
{
	free(out->run_ids);
	memset(out, 0, sizeof *out);
}
