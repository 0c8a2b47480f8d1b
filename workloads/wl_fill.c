/*
 * wl_fill — tasks filling their node beyond its free memory; see wl_fill.h.
 *
 * Design notes.
 *
 * Prefill.  Before the tasks start, the prefill node's kswapd CPU reads
 * files into the page cache: alloc_pages(GFP_HIGHUSER_MOVABLE |
 * __GFP_THISNODE) + lru_cache_add as unmapped, clean page cache, until
 * prefill_file of the node's managed pages are page cache (or an
 * allocation fails).  The page cache is read with zone_reclaim_mode 0 and
 * the scenario's mode is written afterwards (as an administrator does
 * with `sysctl vm.zone_reclaim_mode=1` on a machine that has been up for
 * a while), so every mode starts from the same page cache; with mode 1
 * in force while reading, zone_reclaim would recycle the small DMA and
 * DMA32 zones' page cache already during the prefill.  Then every simulated clock is moved to the latest
 * one, so the tasks start together; the prefill is not part of any metric
 * except prefill_pages.
 *
 * Engine.  One event = one allocation step of one task: alloc_pages (its
 * cycles are the allocation latency), lru_cache_add as anonymous or page
 * cache (a draw: anon with probability `anon`, then dirty with
 * probability `dirty` for page cache), the first write to the page's
 * first line, and - with a lifetime L - the release of the page the task
 * allocated L steps before, if reclaim has not taken it.  After every
 * step a woken kswapd gets an event on its node's kswapd CPU at the
 * step's time; a kswapd event runs one iteration of balance_pgdat
 * (mm_kswapd_run) and schedules the next at that CPU's clock while
 * kswapd has work.  Events run in (time, sequence) order, so kswapd and
 * the tasks interleave in simulated time.  When every task has done its
 * allocations, each task reads the first line of every page it still has
 * (`passes` times, a line the first write did not touch, marking the
 * page accessed), timed per access and split by local / remote node; a page reclaim took is counted as a refault
 * (the fault itself - swap-in or read-back - is not modelled).  At the
 * end every task releases what it still has.
 *
 * Reclaim cycles are read from the simulated profile: the total cycles of
 * try_to_free_pages and zone_reclaim on the task CPUs, over the run.
 *
 * Memory: the slot table (one entry per allocation) and the latency array
 * are allocated before the first event; the reclaim hook clears a slot
 * when the model frees its page.
 */
#include "workloads/wl_fill.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/progress.h"
#include "models/page_alloc.h"
#include "sim/eventq.h"
#include "cost/cost.h"
#include "cost/cpu.h"
#include "sim/rng.h"
#include "analysis/store.h"

enum { EV_TASK = 1, EV_KSWAPD = 2 };

struct fill_task {
	struct cpu *c;
	int node;                   /* numa node of its CPU */
	uint64_t n, done;           /* allocations to do, done */
	uint64_t first_slot;        /* its slots: first_slot .. + n */
	struct rng rng;
};

struct fill {
	const struct wl_fill_params *p;
	struct mm_world *w;
	struct cpu_sys *s;
	struct wl_fill_result *r;
	struct page **slot;          /* by owner token - 1 */
	uint64_t nr_slots;
	uint64_t prefill_token;      /* tokens >= this are the prefill's */
	uint32_t *lat;
	uint64_t nr_lat;
	int nr_tasks;
	struct fill_task *t;
	int *kswapd_pending;         /* per node position */
};

void wl_fill_params_default(struct wl_fill_params *p)
{
	memset(p, 0, sizeof *p);
	p->pages = 1.5;
	p->anon = 1;
	p->passes = 1;
	p->prefill_node = -1;
	p->gfp = GFP_HIGHUSER_MOVABLE;
}

/* the reclaim hook: the model freed the page of this token */
static void on_reclaim(void *arg, uint32_t owner, int swapped)
{
	(void)swapped;
	struct fill *f = arg;
	if (owner == 0 || owner > f->nr_slots)
		return;
	f->slot[owner - 1] = NULL;
	if (owner - 1 >= f->prefill_token)
		f->r->reclaimed_prefill++;
	else
		f->r->reclaimed_owned++;
}

static uint64_t free_pages_of_node(const struct mm_world *w, const struct machine *m, int node)
{
	int64_t n = 0;
	const struct machine_node *mn = &m->nodes[m->node_index[node]];
	for (int k = 0; k < mn->nr_zones; k++) {
		struct mm_zone_info zi;
		if (mm_zone_get_info(w, node, mn->zones[k].type, -1, &zi) == NS_OK)
			n += zi.nr_free_pages;
	}
	return n > 0 ? (uint64_t)n : 0;
}

static void sample(struct fill *f, uint64_t now)
{
	struct wl_fill_result *r = f->r;
	if (r->nr_samples >= WL_FILL_MAX_SAMPLES)
		return;
	const struct machine *m = f->s->m;
	int node = f->t[0].node;
	const struct machine_node *mn = &m->nodes[m->node_index[node]];
	double lru[4] = {0, 0, 0, 0};
	int i = r->nr_samples++;
	r->nr_sample_zones = mn->nr_zones < 4 ? mn->nr_zones : 4;
	for (int k = 0; k < mn->nr_zones; k++) {
		struct mm_lru_info li;
		if (mm_zone_lru_info(f->w, node, mn->zones[k].type, &li) != NS_OK)
			continue;
		for (int l = 0; l < 4; l++) {
			lru[l] += (double)li.nr[l];
			if (k < 4)
				r->sample_zone_lru[k][l][i] = (double)li.nr[l];
		}
		if (k < 4)
			snprintf(r->sample_zone[k], sizeof r->sample_zone[k], "%d/%s", node,
				 zone_type_name(mn->zones[k].type));
	}
	r->sample_cycles[i] = (double)now;
	for (int l = 0; l < 4; l++)
		r->sample_lru[l][i] = lru[l];
	r->sample_free[i] = (double)free_pages_of_node(f->w, m, node);
}

/* The page cache a machine accumulates: clean, unmapped, on node. */
static int prefill(struct fill *f, uint64_t *token)
{
	const struct wl_fill_params *p = f->p;
	const struct machine *m = f->s->m;
	if (p->prefill_node < 0)
		return NS_OK;
	int pos = m->node_index[p->prefill_node];
	int k = mm_kswapd_cpu(f->w, pos);
	if (k < 0)
		return NS_EINPUT;
	struct cpu *c = &f->s->cpu[k];
	const struct machine_node *mn = &m->nodes[pos];
	uint64_t managed = 0;
	for (int z = 0; z < mn->nr_zones; z++)
		managed += mn->zones[z].pages;
	uint64_t want = (uint64_t)((double)managed * p->prefill_file);
	for (uint64_t i = 0; i < want; i++) {
		struct page *pg = mm_alloc_pages(f->w, c, GFP_HIGHUSER_MOVABLE | __GFP_THISNODE, 0);
		if (!pg)
			break;
		mm_lru_add(f->w, c, pg, MM_PAGE_FILE, 0, (uint32_t)(*token + 1));
		f->slot[(*token)++] = pg;
		f->r->prefill_pages++;
	}
	return NS_OK;
}

static void push_kswapd(struct fill *f, struct eventq *q, uint64_t now)
{
	int n;
	while ((n = mm_kswapd_woken(f->w)) >= 0 && !f->kswapd_pending[n]) {
		f->kswapd_pending[n] = 1;
		int k = mm_kswapd_cpu(f->w, n);
		struct cpu *c = &f->s->cpu[k];
		cpu_advance_to(c, now);
		eventq_push(q, c->now, EV_KSWAPD, (uint32_t)n);
	}
}

static void task_step(struct fill *f, struct fill_task *t, uint64_t idx)
{
	const struct wl_fill_params *p = f->p;
	struct cpu *c = t->c;
	uint64_t t0 = c->now;
	struct page *pg = mm_alloc_pages(f->w, c, p->gfp, 0);
	uint64_t lat = c->now - t0;
	f->lat[f->nr_lat++] = lat > UINT32_MAX ? UINT32_MAX : (uint32_t)lat;
	latency_hist_add(&f->r->lat_hist, lat);
	f->r->allocs++;
	uint64_t slot = t->first_slot + idx;
	if (!pg) {
		f->r->alloc_failed++;
	} else {
		bool anon = p->anon >= 1 || (p->anon > 0 && rng_uniform(&t->rng) < p->anon);
		bool dirty = !anon && p->dirty > 0 && rng_uniform(&t->rng) < p->dirty;
		mm_lru_add(f->w, c, pg, anon ? MM_PAGE_ANON : MM_PAGE_FILE, dirty,
			   (uint32_t)(slot + 1));
		f->slot[slot] = pg;
		int node = mm_page_node(f->w, pg);
		f->r->remote_pages += node != t->node;
		/* the first write: clear_highpage / copy into the page */
		cpu_mem(c, mm_page_vaddr(f->w, pg), 64, node, CPU_STORE);
	}
	if (p->lifetime && idx >= p->lifetime) {
		uint64_t old = t->first_slot + idx - p->lifetime;
		if (f->slot[old]) {
			mm_lru_release(f->w, c, f->slot[old]);
			f->slot[old] = NULL;
			f->r->released++;
		}
	}
}

static void access_pass(struct fill *f, struct fill_task *t, uint32_t pass,
			double *cyc_local, double *cyc_remote)
{
	struct cpu *c = t->c;
	for (uint64_t i = 0; i < t->n; i++) {
		struct page *pg = f->slot[t->first_slot + i];
		if (!pg) {
			f->r->refaults++;
			continue;
		}
		int node = mm_page_node(f->w, pg);
		uint64_t t0 = c->now;
		/* a line the first write did not touch: each read goes to the
		 * page's memory, so its cost is the node distance's */
		cpu_mem(c, mm_page_vaddr(f->w, pg) + 64u * (1 + pass % 63), 8, node, CPU_LOAD_DEP);
		mm_page_touch(f->w, c, pg);
		uint64_t d = c->now - t0;
		if (node == t->node) {
			f->r->local_accesses++;
			*cyc_local += (double)d;
		} else {
			f->r->remote_accesses++;
			*cyc_remote += (double)d;
		}
	}
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return x < y ? -1 : x > y;
}

static uint64_t fn_total(const struct cpu_sys *s, const struct fill *f, const char *name)
{
	int id = cost_fn_lookup(s->tables, name);
	uint64_t n = 0;
	if (id < 0)
		return 0;
	for (int i = 0; i < f->nr_tasks; i++)
		n += f->t[i].c->prof[id].total;
	return n;
}

static int run_events(struct fill *f, struct eventq *q, const volatile sig_atomic_t *stop,
		      struct progress_work *work, uint64_t total, uint64_t every)
{
	struct event ev;
	uint64_t steps = 0;
	while (eventq_pop(q, &ev) == NS_OK) {
		f->r->events++;
		if (stop && *stop) {
			f->r->stopped = 1;
			return NS_OK;
		}
		if (ev.type == EV_KSWAPD) {
			int n = (int)ev.arg;
			struct cpu *c = &f->s->cpu[mm_kswapd_cpu(f->w, n)];
			cpu_advance_to(c, ev.time);
			uint64_t t0 = c->now;
			int more = mm_kswapd_run(f->w, c, n);
			f->r->kswapd_cycles += c->now - t0;
			f->r->kswapd_steps++;
			if (more)
				eventq_push(q, c->now, EV_KSWAPD, (uint32_t)n);
			else
				f->kswapd_pending[n] = 0;
			push_kswapd(f, q, c->now);
			continue;
		}
		struct fill_task *t = &f->t[ev.arg];
		cpu_advance_to(t->c, ev.time);
		task_step(f, t, t->done++);
		if (++steps % every == 0)
			sample(f, t->c->now);
		progress_work_set(work, (long long)steps);
		push_kswapd(f, q, t->c->now);
		if (t->done < t->n && eventq_push(q, t->c->now, EV_TASK, ev.arg))
			return NS_ENOMEM;
	}
	(void)total;
	return NS_OK;
}

int wl_fill_run(struct mm_world *w, struct cpu_sys *s, const struct wl_fill_params *p,
		uint64_t seed, const volatile sig_atomic_t *stop, struct progress_work *work,
		struct wl_fill_result *r, struct diag *d)
{
	struct fill f = {.p = p, .w = w, .s = s, .r = r, .nr_tasks = p->nr_cpus};
	const struct machine *m = s->m;
	struct eventq *q = NULL;
	int rc = NS_OK;
	memset(r, 0, sizeof *r);
	if (!mm_reclaim_enabled(w))
		return diag_set(d, NS_EINTERNAL, NULL, 0, 0, "fill: the world has no reclaim model");
	if (p->prefill_node >= 0 &&
	    (p->prefill_node >= MACHINE_MAX_NODES || m->node_index[p->prefill_node] < 0))
		return diag_set(d, NS_EINPUT, NULL, 0, 0, "fill: prefill node %d is not a node of "
				"machine '%s'", p->prefill_node, m->name);
	f.t = calloc((size_t)f.nr_tasks, sizeof *f.t);
	f.kswapd_pending = calloc((size_t)m->nr_nodes, sizeof *f.kswapd_pending);
	if (!f.t || !f.kswapd_pending) {
		rc = NS_ENOMEM;
		goto out;
	}
	/* slots: the prefill's first (upper bound: the node's pages) */
	uint64_t prefill_max = 0;
	if (p->prefill_node >= 0) {
		const struct machine_node *mn = &m->nodes[m->node_index[p->prefill_node]];
		for (int z = 0; z < mn->nr_zones; z++)
			prefill_max += mn->zones[z].pages;
		prefill_max = (uint64_t)((double)prefill_max * p->prefill_file) + 1;
	}
	for (int i = 0; i < f.nr_tasks; i++) {
		struct cpu *c = cpu_sys_cpu(s, p->cpus[i]);
		if (!c) {
			rc = diag_set(d, NS_EINPUT, NULL, 0, 0, "fill: CPU %d is not simulated",
				      p->cpus[i]);
			goto out;
		}
		f.t[i].c = c;
		f.t[i].node = m->cpu_node[p->cpus[i]];
		if ((rc = rng_init(&f.t[i].rng, seed, (uint32_t)i + 1)) != NS_OK)
			goto out;
	}
	/* the tasks' counts depend on the free pages after the prefill, and
	 * the prefill's tokens come after the tasks': size both generously */
	uint64_t task_max = 0;
	for (int i = 0; i < f.nr_tasks; i++) {
		const struct machine_node *mn = &m->nodes[m->node_index[f.t[i].node]];
		uint64_t pages = 0;
		for (int z = 0; z < mn->nr_zones; z++)
			pages += mn->zones[z].pages;
		task_max += (uint64_t)((double)pages * p->pages) + 1;
	}
	f.nr_slots = task_max + prefill_max;
	if (f.nr_slots >= UINT32_MAX) {
		rc = diag_set(d, NS_EINPUT, NULL, 0, 0, "fill: %llu pages is more than the "
			      "workload tracks", (unsigned long long)f.nr_slots);
		goto out;
	}
	f.slot = calloc(f.nr_slots, sizeof *f.slot);
	f.lat = calloc(task_max + 1, sizeof *f.lat);
	q = eventq_create(64);
	if (!f.slot || !f.lat || !q) {
		rc = NS_ENOMEM;
		goto out;
	}
	mm_set_reclaim_hook(w, on_reclaim, &f);
	f.prefill_token = task_max;
	uint64_t token = task_max;
	uint32_t mode = mm_zone_reclaim_mode(w);
	mm_sysctl_zone_reclaim_mode(w, 0);
	rc = prefill(&f, &token);
	mm_sysctl_zone_reclaim_mode(w, mode);
	if (rc != NS_OK) {
		diag_set(d, rc, NULL, 0, 0, "fill: no simulated CPU on prefill node %d",
			 p->prefill_node);
		goto out;
	}
	/* let kswapd finish what the prefill woke, then start together */
	int n;
	while ((n = mm_kswapd_woken(w)) >= 0) {
		struct cpu *c = &s->cpu[mm_kswapd_cpu(w, n)];
		while (mm_kswapd_run(w, c, n))
			;
	}
	uint64_t start = 0;
	for (int k = 0; k < s->nr_cpus; k++)
		if (s->cpu[k].now > start)
			start = s->cpu[k].now;
	for (int k = 0; k < s->nr_cpus; k++)
		cpu_advance_to(&s->cpu[k], start);
	uint64_t slot0 = 0, total = 0;
	for (int i = 0; i < f.nr_tasks; i++) {
		uint64_t freep = free_pages_of_node(w, m, f.t[i].node);
		f.t[i].n = (uint64_t)((double)freep * p->pages);
		uint64_t cap = task_max - slot0;
		if (f.t[i].n > cap)
			f.t[i].n = cap;
		f.t[i].first_slot = slot0;
		slot0 += f.t[i].n;
		total += f.t[i].n;
	}
	uint64_t dr0 = fn_total(s, &f, "try_to_free_pages");
	uint64_t zr0 = fn_total(s, &f, "zone_reclaim");
	progress_work_start(work, (long long)total);
	uint64_t every = total / WL_FILL_MAX_SAMPLES + 1;
	sample(&f, start);
	for (int i = 0; i < f.nr_tasks; i++)
		if (f.t[i].n && (rc = eventq_push(q, start, EV_TASK, (uint32_t)i)))
			goto out;
	if ((rc = run_events(&f, q, stop, work, total, every)) != NS_OK || r->stopped)
		goto out;
	r->direct_reclaim_cycles = fn_total(s, &f, "try_to_free_pages") - dr0;
	r->zone_reclaim_cycles = fn_total(s, &f, "zone_reclaim") - zr0;
	r->reclaim_cycles_per_alloc =
		r->allocs ? (double)(r->direct_reclaim_cycles + r->zone_reclaim_cycles) /
				    (double)r->allocs
			  : 0;
	/* the access passes */
	double cl = 0, cr = 0;
	for (uint32_t pass = 0; pass < p->passes; pass++)
		for (int i = 0; i < f.nr_tasks; i++)
			access_pass(&f, &f.t[i], pass, &cl, &cr);
	r->access_cycles_local = r->local_accesses ? cl / (double)r->local_accesses : 0;
	r->access_cycles_remote = r->remote_accesses ? cr / (double)r->remote_accesses : 0;
	/* latency distribution */
	if (f.nr_lat) {
		double sum = 0;
		for (uint64_t i = 0; i < f.nr_lat; i++)
			sum += f.lat[i];
		r->lat_mean = sum / (double)f.nr_lat;
		qsort(f.lat, f.nr_lat, sizeof *f.lat, cmp_u32);
		r->lat_p50 = f.lat[(f.nr_lat - 1) / 2];
		r->lat_p99 = f.lat[(f.nr_lat - 1) * 99 / 100];
		r->lat_max = f.lat[f.nr_lat - 1];
	}
	for (int k = 0; k < s->nr_cpus; k++)
		if (s->cpu[k].now > r->end_cycles)
			r->end_cycles = s->cpu[k].now;
out:
	/* release everything still held (tasks' pages, then the page cache) */
	if (f.slot && f.t) {
		for (uint64_t i = 0; i < f.nr_slots; i++) {
			if (!f.slot[i])
				continue;
			int tk = 0;
			while (tk + 1 < f.nr_tasks && i >= f.t[tk + 1].first_slot &&
			       i < f.prefill_token)
				tk++;
			struct cpu *c = i >= f.prefill_token
						? &s->cpu[mm_kswapd_cpu(w, m->node_index[p->prefill_node])]
						: f.t[tk].c;
			mm_lru_release(w, c, f.slot[i]);
			f.slot[i] = NULL;
		}
	}
	mm_set_reclaim_hook(w, NULL, NULL);
	if (f.t)
		for (int i = 0; i < f.nr_tasks; i++)
			if (f.t[i].rng.g)
				rng_fini(&f.t[i].rng);
	eventq_destroy(q);
	free(f.slot);
	free(f.lat);
	free(f.t);
	free(f.kswapd_pending);
	return rc;
}

/* ---- the scenario section `workload: {type: fill}` and the run ---- */

/* workload fill (workloads/wl_fill.h) */
enum { FL_TYPE, FL_PAGES, FL_ANON, FL_DIRTY, FL_LIFE, FL_PASSES, FL_PREFILL, FL_GFP, NR_FL };

static int parse_prefill(const struct wl_reader *r, const struct wl_point *pt,
			 const struct ynode *n, struct wl_fill_params *p)
{
	static const struct ytree_field fields[] = {{"node", 1}, {"file", 1}};
	const struct ynode *v[2];
	long long node;
	int rc;
	if ((rc = ytree_fields(wl_tree(r, n), n, "workload.prefill", fields, 2, v, r->d)))
		return rc;
	if ((rc = ytree_int(wl_tree(r, v[0]), v[0], "prefill node", 0, MACHINE_MAX_NODES - 1, &node,
			    r->d)))
		return rc;
	const struct machine *m = pt->machine;
	if (m->node_index[node] < 0 || m->nodes[m->node_index[node]].mem_pages == 0)
		return wl_err(r, v[0], "prefill node %lld is not a node with memory of machine "
			   "'%s'", node, m->name);
	p->prefill_node = (int)node;
	return wl_get_frac(r, v[1], "prefill file share", 0, 1, &p->prefill_file);
}

static const struct ytree_field fill_fields[NR_FL] = {
	[FL_TYPE] = {"type", 1},         [FL_PAGES] = {"pages", 0},
	[FL_ANON] = {"anon", 0},         [FL_DIRTY] = {"dirty", 0},
	[FL_LIFE] = {"lifetime", 0},     [FL_PASSES] = {"passes", 0},
	[FL_PREFILL] = {"prefill", 0},   [FL_GFP] = {"gfp", 0},
};

static int fill_parse(const struct wl_reader *r, const struct ynode *n,
		      struct wl_point *pt)
{
	const struct ytree_field *const fields = fill_fields;
	const struct ynode *v[NR_FL];
	const char *gfp_text = "GFP_HIGHUSER_MOVABLE";
	struct wl_fill_point *fp = calloc(1, sizeof *fp);
	struct wl_fill_params *p = fp ? &fp->fill : NULL;
	long long x;
	int rc;

	if (!fp)
		return wl_nomem(r);
	pt->params = fp;
	if ((rc = r->fields(r->ctx, n, "workload 'fill'", fields, NR_FL, v)))
		return rc;
	wl_fill_params_default(p);
	if (!*pt->nr_cpus) {
		/* one task on the machine's first CPU */
		const struct machine *m = pt->machine;
		(*pt->cpus) = calloc(1, sizeof *(*pt->cpus));
		if (!(*pt->cpus))
			return wl_nomem(r);
		for (int c = 0; c <= m->max_cpu && !*pt->nr_cpus; c++)
			if (m->cpu_node[c] >= 0)
				(*pt->cpus)[(*pt->nr_cpus)++] = c;
		if (!*pt->nr_cpus)
			return wl_err(r, n, "machine '%s' has no CPU for the fill task", m->name);
	}
	if (*pt->nr_cpus > WL_FILL_MAX_TASKS)
		return wl_err(r, n, "the fill workload runs at most %d tasks (policy.cpus lists %d)",
			   WL_FILL_MAX_TASKS, *pt->nr_cpus);
	p->nr_cpus = *pt->nr_cpus;
	memcpy(p->cpus, (*pt->cpus), (size_t)*pt->nr_cpus * sizeof *p->cpus);
	if (v[FL_PAGES] && (rc = wl_get_frac(r, v[FL_PAGES], "pages", 0, 16, &p->pages)))
		return rc;
	if (v[FL_ANON] && (rc = wl_get_frac(r, v[FL_ANON], "anon", 0, 1, &p->anon)))
		return rc;
	if (v[FL_DIRTY] && (rc = wl_get_frac(r, v[FL_DIRTY], "dirty", 0, 1, &p->dirty)))
		return rc;
	if (v[FL_LIFE]) {
		if ((rc = ytree_int(wl_tree(r, v[FL_LIFE]), v[FL_LIFE], "lifetime", 0, 1ll << 40, &x,
				    r->d)))
			return rc;
		p->lifetime = (uint64_t)x;
	}
	if (v[FL_PASSES] && (rc = wl_get_u32(r, v[FL_PASSES], "passes", 0, 1000, &p->passes)))
		return rc;
	if (v[FL_PREFILL] && (rc = parse_prefill(r, pt, v[FL_PREFILL], p)))
		return rc;
	if (v[FL_GFP] && (rc = wl_get_gfp(r, v[FL_GFP], n, &gfp_text, &p->gfp)))
		return rc;
	fp->gfp_text = gfp_text;
	*pt->reclaim = 1;
	return NS_OK;
}


#define P_TEXT(k, t) do { if ((rc = fn(arg, (k), (t), 0))) return rc; } while (0)
#define P_NUM(k, n) do { if ((rc = fn(arg, (k), NULL, (long long)(n)))) return rc; } while (0)
#define P_REAL(k, x) do { snprintf(buf, sizeof buf, "%g", (x)); P_TEXT((k), buf); } while (0)

static int fill_params(const void *params, wl_param_fn fn, void *arg)
{
	const struct wl_fill_point *fp = params;
	const struct wl_fill_params *p = &fp->fill;
	char buf[64];
	int rc;
	P_REAL("workload.pages", p->pages);
	P_REAL("workload.anon", p->anon);
	P_REAL("workload.dirty", p->dirty);
	P_NUM("workload.lifetime", p->lifetime);
	P_NUM("workload.passes", p->passes);
	if (p->prefill_node >= 0) {
		P_NUM("workload.prefill.node", p->prefill_node);
		P_REAL("workload.prefill.file", p->prefill_file);
	}
	P_TEXT("workload.gfp", fp->gfp_text);
	P_NUM("workload.gfp_mask", p->gfp);
	return NS_OK;
}
#undef P_TEXT
#undef P_NUM
#undef P_REAL

static const char *fill_kernel_model(int post, int slub_post)
{
	(void)slub_post;
	return post ? "v4.6+patches1-4+682a3385+vmscan" : "v4.6+patches1-4+vmscan";
}

/* The fill workload with the point's parameters and placement. */
static int fill_run(const struct wl_run *r, void **result)
{
	const struct wl_fill_point *fp = r->params;
	struct wl_fill_result *res = wl_result_alloc(r, sizeof *res, result);
	if (!res)
		return NS_ENOMEM;
	int rc = wl_fill_run(r->w, r->sys, &fp->fill, r->seed, r->stop, r->work, res, r->d);
	return wl_run_status(r, rc, res->stopped);
}

/* The fill workload's metrics and samples (wl_fill.h struct wl_fill_result). */
static int fill_results(const void *result, const struct wl_run *r,
			struct store *st, int64_t id)
{
	const struct wl_fill_result *m = result;
	(void)r;
	const struct wl_metric rows[] = {
		{"allocs", "count", (double)m->allocs},
		{"alloc_failed", "count", (double)m->alloc_failed},
		{"remote_pages", "count", (double)m->remote_pages},
		{"remote_share", "fraction", m->allocs ? (double)m->remote_pages / (double)m->allocs : 0},
		{"released", "count", (double)m->released},
		{"reclaimed_owned", "count", (double)m->reclaimed_owned},
		{"reclaimed_prefill", "count", (double)m->reclaimed_prefill},
		{"prefill_pages", "count", (double)m->prefill_pages},
		{"alloc_latency_p50", "core_cycles", (double)m->lat_p50},
		{"alloc_latency_p99", "core_cycles", (double)m->lat_p99},
		{"alloc_latency_max", "core_cycles", (double)m->lat_max},
		{"alloc_latency_mean", "core_cycles", m->lat_mean},
		{"direct_reclaim_cycles", "core_cycles", (double)m->direct_reclaim_cycles},
		{"zone_reclaim_cycles", "core_cycles", (double)m->zone_reclaim_cycles},
		{"reclaim_cycles_per_alloc", "core_cycles/alloc", m->reclaim_cycles_per_alloc},
		{"kswapd_cycles", "core_cycles", (double)m->kswapd_cycles},
		{"kswapd_steps", "count", (double)m->kswapd_steps},
		{"local_accesses", "count", (double)m->local_accesses},
		{"remote_accesses", "count", (double)m->remote_accesses},
		{"refaults", "count", (double)m->refaults},
		{"access_cycles_local", "core_cycles/access", m->access_cycles_local},
		{"access_cycles_remote", "core_cycles/access", m->access_cycles_remote},
		{"end_cycles", "core_cycles", (double)m->end_cycles},
		{"events", "count", (double)m->events},
	};
	static const char *const lru[4] = {"nr_inactive_anon", "nr_active_anon",
					   "nr_inactive_file", "nr_active_file"};
	int rc;
	if ((rc = wl_store_metrics(st, id, rows, WL_NR(rows))) ||
	    (rc = latency_hist_store(st, id, "alloc_latency_hist", &m->lat_hist)))
		return rc;
	size_t n = (size_t)m->nr_samples;
	if ((rc = store_samples(st, id, "sample_cycles", m->sample_cycles, n)) ||
	    (rc = store_samples(st, id, "nr_free_pages", m->sample_free, n)))
		return rc;
	for (int l = 0; l < 4; l++)
		if ((rc = store_samples(st, id, lru[l], m->sample_lru[l], n)))
			return rc;
	/* per zone: "nr_inactive_file:0/Normal" */
	for (int z = 0; z < m->nr_sample_zones; z++)
		for (int l = 0; l < 4; l++) {
			char name[64];
			snprintf(name, sizeof name, "%s:%s", lru[l], m->sample_zone[z]);
			if ((rc = store_samples(st, id, name, m->sample_zone_lru[z][l], n)))
				return rc;
		}
	return NS_OK;
}


const struct workload_ops wl_fill_ops = {
	.name = "fill",
	.fields = fill_fields,
	.nr_fields = NR_FL,
	.adhoc = "  type: fill\n",
	.reclaim = 1,
	.accounting = CPU_ACCOUNTING_EXACT,
	.label_knob = "zone_reclaim_mode",
	.report = WL_REPORT_FILL,
	.events = WL_EV_ALL,
	.kernel_model = fill_kernel_model,
	.parse = fill_parse,
	.params = fill_params,
	.run = fill_run,
	.results = fill_results,
};
