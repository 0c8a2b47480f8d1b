/*
 * run — executing and storing a scenario's run plan; see run.h.
 *
 * Design notes.  A run is split into simulate (build the world, run the
 * workload, check the invariants; touches nothing shared) and write (one
 * store transaction from the finished world; main thread only), so the
 * write lock is held only for the burst of rows, and so several runs can
 * be simulated at once.  With jobs > 1 worker threads claim run indexes in
 * plan order and park finished runs in a slot; the main thread writes slot
 * by slot in plan order.  At most `jobs` runs are claimed beyond the last
 * written one, which bounds memory to `jobs` worlds.  A world shares only
 * read-only data with other threads (the scenario and its machine).
 */
#include "run.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cost.h"
#include "cpu.h"
#include "pagealloc.h"
#include "slub.h"
#include "wl_messaging.h"
#include "wl_pagealloc.h"

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
	struct pa_config pa_cfg;
	struct slub_config sl_cfg;
	struct pa_world *w;
	struct slub_world *sw;
	struct slub_cache *skb, *data;
	struct wl_pagealloc_result res;
	struct wl_msg_result mres;
	int64_t started_ns;
	double host_s;
	int status;          /* NS_OK, WL_STOPPED, or the setup/run error */
	int check_rc;        /* invariant walk after the workload */
	struct diag d;       /* setup error or invariant message */
	int done;            /* simulation finished (slot ready) */
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
	slub_world_destroy(r->sw);
	r->sw = NULL;
	pa_world_destroy(r->w);
	r->w = NULL;
	if (r->have_sys)
		cpu_sys_free(&r->sys);
	if (r->have_layout)
		cost_layout_free(&r->layout);
	if (r->have_tables)
		cost_tables_free(&r->tables);
	r->have_sys = r->have_layout = r->have_tables = 0;
	wl_pagealloc_result_free(&r->res);
}

/* The CPUs a run simulates: the pagealloc task's CPU, or every CPU of the
 * machine for messaging.  *n = 0 on allocation failure. */
static int *run_cpus(const struct scenario *s, int *n)
{
	const struct machine *m = s->machine;
	int *cpus = calloc((size_t)(m->nr_cpus > 0 ? m->nr_cpus : 1), sizeof *cpus);
	*n = 0;
	if (!cpus)
		return NULL;
	if (s->workload == SCN_WL_PAGEALLOC) {
		cpus[(*n)++] = s->pa.cpu;
		return cpus;
	}
	for (int c = 0; c <= m->max_cpu; c++)
		if (m->cpu_node[c] >= 0)
			cpus[(*n)++] = c;
	return cpus;
}

/* SLUB over the run's page allocator, with the caches messaging uses. */
static int slub_setup(const struct scenario *s, struct sim_run *r)
{
	const struct scn_point *pt = &s->points[r->point];
	int rc;

	if ((rc = slub_world_create(s->machine, &r->sl_cfg, &r->sys, r->w, r->sl_fn_base,
				    r->sl_site_base, &r->sw, &r->d)) ||
	    (rc = slub_kmalloc_create(r->sw, &r->d)) ||
	    (rc = slub_cache_create(r->sw, "skbuff_head_cache", WL_MSG_SKB_HEAD, 0,
				    SLUB_HWCACHE_ALIGN | SLUB_PANIC, &r->skb, &r->d)))
		return diag_set(&r->d, rc, s->path, 0, 0,
				"point %s: the SLUB model cannot be set up: %s", pt->label,
				r->d.msg[0] ? r->d.msg : ns_status_msg(rc));
	r->data = slub_kmalloc_cache(r->sw, WL_MSG_DATA_ALLOC);
	if (!r->data)
		return diag_set(&r->d, NS_EINTERNAL, s->path, 0, 0,
				"no kmalloc cache for %d bytes", WL_MSG_DATA_ALLOC);
	return NS_OK;
}

static int sim_setup(const struct scenario *s, struct sim_run *r)
{
	const struct scn_point *pt = &s->points[r->point];
	int messaging = s->workload == SCN_WL_MESSAGING;
	struct cpu_params cp;
	int ncpus, rc;

	cache_as_init(&r->as);
	r->pa_cfg = pt->cfg;
	r->sl_cfg = pt->slub;
	if (messaging) {
		r->pa_cfg.as = &r->as;
		r->sl_cfg.as = &r->as;
	}
	cost_tables_init(&r->tables);
	r->have_tables = 1;
	if ((rc = pa_register(&r->tables, &r->fn_base, &r->site_base)))
		return diag_set(&r->d, rc, s->path, 0, 0,
				"cannot register the page allocator model: %s",
				ns_status_msg(rc));
	if (messaging && (rc = slub_register(&r->tables, &r->sl_fn_base, &r->sl_site_base)))
		return diag_set(&r->d, rc, s->path, 0, 0,
				"cannot register the SLUB model: %s", ns_status_msg(rc));
	if ((rc = cost_layout_init(&r->layout, &r->tables, pt->label)))
		return diag_set(&r->d, rc, s->path, 0, 0, "out of memory");
	r->have_layout = 1;
	if ((rc = pa_layout(&r->layout, &r->tables, r->fn_base, r->site_base,
			    pt->cfg.iter)) ||
	    (messaging && (rc = slub_layout(&r->layout, &r->tables, r->sl_fn_base,
					    r->sl_site_base, &r->sl_cfg))))
		return diag_set(&r->d, rc, s->path, 0, 0,
				"cannot lay out variant %s: %s", pt->label,
				ns_status_msg(rc));
	cpu_params_default(&cp);
	int *cpus = run_cpus(s, &ncpus);
	if (!cpus)
		return diag_set(&r->d, NS_ENOMEM, s->path, 0, 0, "out of memory");
	rc = cpu_sys_init(&r->sys, s->machine, &r->tables, &r->layout, &cp, cpus, ncpus);
	free(cpus);
	if (rc)
		return diag_set(&r->d, rc, s->machine_path, 0, 0,
				"cannot simulate the CPUs of machine '%s': %s",
				s->machine->name, ns_status_msg(rc));
	r->have_sys = 1;
	if ((rc = pa_world_create(s->machine, &r->pa_cfg, &r->sys, r->fn_base,
				  r->site_base, &r->w, &r->d)))
		return diag_set(&r->d, rc, s->path, 0, 0,
				"point %s: the page allocator model cannot be set "
				"up: %s", pt->label, ns_status_msg(rc));
	return messaging ? slub_setup(s, r) : NS_OK;
}

static int run_messaging(const struct scenario *s, const struct run_opts *o,
			 struct sim_run *r)
{
	struct wl_msg_params p;
	wl_msg_params_default(&p);
	p.groups = s->msg.groups;
	p.loops = s->msg.loops;
	p.inflight_limit = s->msg.inflight_limit;
	p.send_cycles = s->msg.send_cycles;
	p.recv_cycles = s->msg.recv_cycles;
	p.ctx_switch_cycles = s->msg.ctx_switch_cycles;
	int rc = wl_messaging_run(r->sw, &r->sys, r->skb, r->data, &p, r->seed, o->stop,
				  &r->mres);
	if (rc == WL_MSG_STOPPED)
		return WL_STOPPED;
	if (rc == NS_ERANGE)
		return diag_set(&r->d, rc, s->path, 0, 0,
				"%s, repetition %lld: the simulated kernel ran out of slab "
				"memory", s->points[r->point].label, r->rep);
	if (rc)
		return diag_set(&r->d, rc, s->path, 0, 0,
				"%s, repetition %lld: the messaging workload failed: %s",
				s->points[r->point].label, r->rep, ns_status_msg(rc));
	return NS_OK;
}

int run_preflight(const struct scenario *s, struct diag *d)
{
	for (int p = 0; p < s->nr_points; p++) {
		struct sim_run r = {.point = p};
		diag_init(&r.d);
		int rc = sim_setup(s, &r);
		sim_free(&r);
		if (rc) {
			*d = r.d;
			return rc;
		}
	}
	return NS_OK;
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
	r->status = sim_setup(s, r);
	run_and_check(s, o, r);
	r->host_s = mono_now() - t0;
}

/* The workload on a built world, then the invariant walks. */
static void run_and_check(const struct scenario *s, const struct run_opts *o,
			  struct sim_run *r)
{
	if (r->status == NS_OK && s->workload == SCN_WL_MESSAGING) {
		r->status = run_messaging(s, o, r);
	} else if (r->status == NS_OK) {
		struct cpu *c = cpu_sys_cpu(&r->sys, s->pa.cpu);
		r->status = wl_pagealloc_run(r->w, c, &s->pa, o->stop, &r->res);
	}
	if (r->status == NS_OK && r->sw)
		r->check_rc = slub_check(r->sw, &r->d);
	if (r->status == NS_OK && r->check_rc == NS_OK) {
		r->check_rc = pa_check(r->w, &r->d);
		if (r->check_rc == NS_OK && (r->check_rc = cpu_sys_check(&r->sys)))
			diag_set(&r->d, r->check_rc, s->path, 0, 0,
				 "simulated CPU invariants broken after the run");
	}
}

int run_each(const struct scenario *s, const volatile sig_atomic_t *stop,
	     run_world_fn fn, void *arg, struct diag *d)
{
	struct run_opts o = {.jobs = 1, .stop = stop};
	long long n = scenario_nr_runs(s);
	int rc = NS_OK;
	struct sim_run *r = malloc(sizeof *r);
	if (!r)
		return diag_set(d, NS_ENOMEM, s->path, 0, 0, "out of memory");
	for (long long i = 0; i < n && rc == NS_OK; i++) {
		memset(r, 0, sizeof *r);
		diag_init(&r->d);
		r->index = i;
		scenario_run_at(s, i, &r->point, &r->rep, &r->seed);
		r->status = sim_setup(s, r);
		if (r->status == NS_OK)
			r->status = fn(arg, s->points[r->point].label, r->rep, r->w, r->sw);
		run_and_check(s, &o, r);
		if (r->status == WL_STOPPED) {
			rc = RUN_STOPPED;
		} else if (r->status || r->check_rc) {
			rc = r->status ? r->status : r->check_rc;
			*d = r->d;
		}
		sim_free(r);
	}
	free(r);
	return rc;
}

/* ---- writing a run --------------------------------------------------------- */

struct writer {
	struct store *st;
	int64_t id;
	const struct sim_run *r;
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

static int put_branch(void *arg, const struct cpu_branch_row *row)
{
	struct writer *w = arg;
	int site = cost_site_lookup(&w->r->tables, row->site);
	struct store_branch_row b = {
		.site = row->site, .function = NULL,
		.fallthrough = site >= 0 ? w->r->layout.site[site].fallthrough : -1,
		.executed = row->executed, .taken = row->taken,
		.mispredicted = row->mispredicted,
	};
	return store_branch(w->st, w->id, &b);
}

static int put_series(struct writer *w, const char *op, unsigned order,
		      uint32_t batch, const double *v, size_t n)
{
	char name[64], mname[80];
	double min = v[0], sum = 0;
	int rc;
	for (size_t i = 0; i < n; i++) {
		min = v[i] < min ? v[i] : min;
		sum += v[i];
	}
	snprintf(name, sizeof name, "%s-odr%u-%" PRIu32, op, order, batch);
	snprintf(mname, sizeof mname, "%s.min", name);
	if ((rc = store_samples(w->st, w->id, name, v, n)) ||
	    (rc = store_metric(w->st, w->id, name, sum / (double)n, "cycles/op")))
		return rc;
	return store_metric(w->st, w->id, mname, min, "cycles/op");
}

static int put_results(struct writer *w)
{
	const struct wl_pagealloc_result *res = &w->r->res;
	size_t kept = res->outer - res->drop;
	double *a = malloc(3 * kept * sizeof *a);
	int rc = NS_OK;
	if (!a)
		return NS_ENOMEM;
	for (int s = 0; s < res->nr_series && rc == NS_OK; s++) {
		const struct wl_pagealloc_series *sr = &res->series[s];
		double *fr = a + kept, *to = a + 2 * kept;
		for (size_t i = 0; i < kept; i++) {
			a[i] = (double)sr->alloc[res->drop + i];
			fr[i] = (double)sr->free[res->drop + i];
			to[i] = a[i] + fr[i];
		}
		if ((rc = put_series(w, "alloc", sr->order, sr->batch, a, kept)) ||
		    (rc = put_series(w, "free", sr->order, sr->batch, fr, kept)))
			break;
		rc = put_series(w, "total", sr->order, sr->batch, to, kept);
	}
	free(a);
	if (rc)
		return rc;
	if ((rc = store_metric(w->st, w->id, "allocs", (double)res->allocs, "count")) ||
	    (rc = store_metric(w->st, w->id, "frees", (double)res->frees, "count")) ||
	    (rc = store_metric(w->st, w->id, "alloc_failed", (double)res->alloc_failed,
			       "count")))
		return rc;
	return store_metric(w->st, w->id, "timed_cycles", (double)res->timed_cycles,
			    "cycles");
}

static int put_msg_results(struct writer *w)
{
	const struct wl_msg_result *m = &w->r->mres;
	const struct {
		const char *name, *unit;
		double v;
	} rows[] = {
		{"total_time_s", "s", m->total_time_s},
		{"messages", "count", (double)m->messages},
		{"end_cycles", "cycles", (double)m->end_cycles},
		{"ctx_switches", "count", (double)m->ctx_switches},
		{"preemptions", "count", (double)m->preemptions},
		{"sender_blocks", "count", (double)m->sender_blocks},
		{"receiver_blocks", "count", (double)m->receiver_blocks},
		{"wakeups", "count", (double)m->wakeups},
		{"events", "count", (double)m->events},
		{"alloc_failed", "count", (double)m->alloc_failed},
	};
	for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
		int rc = store_metric(w->st, w->id, rows[i].name, rows[i].v, rows[i].unit);
		if (rc)
			return rc;
	}
	return NS_OK;
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
		.machine = s->machine->name,
		.machine_file = s->machine_path,
		.machine_sha256 = s->machine_sha256,
		.machine_text = s->machine_text,
		.workload = scn_workload_name(s->workload),
		.variant = pt->label,
		.kernel_model = pt->kernel_model,
		.command = o->command,
		.started_ns = r->started_ns,
	};
	struct writer w = {.st = st, .r = r};
	int rc;

	if ((rc = store_run_begin(st, &info, &w.id)))
		return rc;
	if ((rc = scenario_params(s, r->point, put_param, &w)) ||
	    (rc = (r->sw ? put_msg_results(&w) : put_results(&w))) ||
	    (rc = pa_counters(r->w, put_pa_counter, &w)) ||
	    (r->sw && (rc = slub_counters(r->sw, put_pa_counter, &w))) ||
	    (rc = cpu_sys_counters(&r->sys, put_cpu_counter, &w)) ||
	    (rc = cpu_sys_profile(&r->sys, -1, put_profile, &w)) ||
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

struct pool {
	const struct scenario *s;
	const struct run_opts *o;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct sim_run *slot;   /* [jobs]: run i lives in slot i % jobs */
	int jobs;
	long long next;         /* next run index to claim */
	long long written;      /* runs consumed by the writer */
	long long end;          /* claim limit (plan size, or lowered to stop) */
};

static void *worker(void *arg)
{
	struct pool *p = arg;
	pthread_mutex_lock(&p->mu);
	for (;;) {
		while (p->next < p->end && p->next >= p->written + p->jobs)
			pthread_cond_wait(&p->cv, &p->mu);
		if (p->next >= p->end)
			break;
		long long i = p->next++;
		struct sim_run *r = &p->slot[i % p->jobs];
		memset(r, 0, sizeof *r);
		r->index = i;
		pthread_mutex_unlock(&p->mu);
		simulate(p->s, p->o, r);
		pthread_mutex_lock(&p->mu);
		r->done = 1;
		pthread_cond_broadcast(&p->cv);
	}
	pthread_mutex_unlock(&p->mu);
	return NULL;
}

static void progress(const struct run_opts *o, const struct scenario *s,
		     const struct sim_run *r, long long planned, int64_t id)
{
	if (!o->progress)
		return;
	fprintf(o->progress, "numasim run: [%lld/%lld] %s rep %lld: %.1f s, run %" PRId64
		"%s\n", r->index + 1, planned, s->points[r->point].label, r->rep,
		r->host_s, id, r->check_rc ? " FAILED" : "");
	fflush(o->progress);
}

/* Consume run i (simulated): write it, or decide to stop.  Returns NS_OK
 * to go on. */
static int consume(struct pool *p, struct store *st, struct sim_run *r,
		   struct run_outcome *out, struct diag *d)
{
	int64_t id = 0;
	int rc;
	if (r->status == WL_STOPPED)
		return RUN_STOPPED;
	if (r->status) {
		*d = r->d;
		return r->status;
	}
	if ((rc = write_run(st, p->s, p->o, r, &id)))
		return rc;
	out->run_ids[out->nr_stored++] = id;
	progress(p->o, p->s, r, out->planned, id);
	if (r->check_rc) {
		out->nr_failed++;
		diag_set(d, NS_EINTERNAL, p->s->path, 0, 0,
			 "run %" PRId64 " (%s, repetition %lld) failed its invariant "
			 "check: %s", id, p->s->points[r->point].label, r->rep, r->d.msg);
		return NS_EINTERNAL;
	}
	return NS_OK;
}

int run_scenario(const struct scenario *s, struct store *st,
		 const struct run_opts *o, struct run_outcome *out,
		 struct diag *d)
{
	struct pool p = {.s = s, .o = o};
	pthread_t th[RUN_MAX_JOBS];
	int nth = 0, rc = NS_OK;
	double t0 = mono_now();

	memset(out, 0, sizeof *out);
	out->planned = scenario_nr_runs(s);
	p.end = out->planned;
	p.jobs = o->jobs < 1 ? 1 : o->jobs > RUN_MAX_JOBS ? RUN_MAX_JOBS : o->jobs;
	if (p.jobs > p.end)
		p.jobs = (int)p.end;
	out->run_ids = calloc((size_t)out->planned, sizeof *out->run_ids);
	p.slot = calloc((size_t)p.jobs, sizeof *p.slot);
	if (!out->run_ids || !p.slot) {
		free(p.slot);
		return diag_set(d, NS_ENOMEM, s->path, 0, 0, "out of memory");
	}
	pthread_mutex_init(&p.mu, NULL);
	pthread_cond_init(&p.cv, NULL);
	if (p.jobs == 1) {
		for (long long i = 0; i < p.end && rc == NS_OK; i++) {
			struct sim_run *r = &p.slot[0];
			memset(r, 0, sizeof *r);
			r->index = i;
			simulate(s, o, r);
			out->sim_s += r->host_s;
			rc = consume(&p, st, r, out, d);
			sim_free(r);
			if (rc == NS_OK && o->stop && *o->stop)
				rc = RUN_STOPPED;
		}
		goto done;
	}
	for (; nth < p.jobs; nth++)
		if (pthread_create(&th[nth], NULL, worker, &p)) {
			rc = diag_set(d, NS_ENOMEM, s->path, 0, 0,
				      "cannot start simulation threads");
			pthread_mutex_lock(&p.mu);
			p.end = p.next;
			pthread_mutex_unlock(&p.mu);
			break;
		}
	for (long long i = 0; i < out->planned; i++) {
		struct sim_run *r = &p.slot[i % p.jobs];
		pthread_mutex_lock(&p.mu);
		/* run i is claimed (or will be, unless the plan was cut short) */
		while (i < p.end && !(i < p.next && r->done))
			pthread_cond_wait(&p.cv, &p.mu);
		int claimed = i < p.next;
		pthread_mutex_unlock(&p.mu);
		if (!claimed)
			break;
		if (rc == NS_OK) {
			out->sim_s += r->host_s;
			rc = consume(&p, st, r, out, d);
			if (rc == NS_OK && o->stop && *o->stop)
				rc = RUN_STOPPED;
		}
		sim_free(r);
		pthread_mutex_lock(&p.mu);
		r->done = 0;
		p.written = i + 1;
		if (rc != NS_OK && p.end > p.next)
			p.end = p.next;   /* claim nothing more; drain the claimed */
		pthread_cond_broadcast(&p.cv);
		pthread_mutex_unlock(&p.mu);
	}
	for (int i = 0; i < nth; i++)
		pthread_join(th[i], NULL);
done:
	pthread_cond_destroy(&p.cv);
	pthread_mutex_destroy(&p.mu);
	free(p.slot);
	out->wall_s = mono_now() - t0;
	return rc;
}

void run_outcome_free(struct run_outcome *out)
{
	free(out->run_ids);
	memset(out, 0, sizeof *out);
}
