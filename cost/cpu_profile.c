/*
 * cpu_profile — the call paths (the path table and its hash, cpu_path_new())
 * and the export of every count: derived counters, the profile, branch
 * sites, call paths merged over CPUs, the counters (cost/cpu.h, "--- export").
 */
#include "cost/cpu_internal.h"

#include <assert.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/diag.h"

#define PATHS_INITIAL 16u

/* Rebuild the path hash at 4x the capacity (load <= 1/4 when full). */
static int path_rehash(struct cpu *c, uint32_t cap)
{
	uint32_t slots = 4 * cap;
	int32_t *h = malloc((size_t)slots * sizeof *h);
	if (!h)
		return NS_ENOMEM;
	for (uint32_t i = 0; i < slots; i++)
		h[i] = -1;
	free(c->path_hash);
	c->path_hash = h;
	c->path_hash_mask = slots - 1;
	for (uint32_t id = 1; id < c->nr_paths; id++) {
		uint32_t k = cpu_path_slot(c, c->path[id].parent, c->path[id].fn);
		while (h[k] >= 0)
			k = (k + 1) & c->path_hash_mask;
		h[k] = (int32_t)id;
	}
	return NS_OK;
}

int paths_init(struct cpu *c)
{
	c->path = calloc(PATHS_INITIAL, sizeof *c->path);
	if (!c->path)
		return NS_ENOMEM;
	c->cap_paths = PATHS_INITIAL;
	c->nr_paths = 1;
	c->path[0].parent = c->path[0].fn = -1;
	c->cur_path = 0;
	return path_rehash(c, PATHS_INITIAL);
}

int32_t cpu_path_new(struct cpu *c, int32_t parent, int32_t fn, uint32_t slot)
{
	if (c->nr_paths == c->cap_paths) {
		uint32_t cap = 2 * c->cap_paths;
		struct cpu_path *p = cap <= CPU_MAX_PATHS
			? realloc(c->path, (size_t)cap * sizeof *p) : NULL;
		if (!p) {
			c->ctr[CPU_CTR_path_lost]++;
			return parent;
		}
		c->path = p;
		c->cap_paths = cap;
		if (path_rehash(c, cap)) {
			c->ctr[CPU_CTR_path_lost]++;
			return parent;  /* the old hash stays valid */
		}
		/* the slot moved with the rehash */
		slot = cpu_path_slot(c, parent, fn);
		while (c->path_hash[slot] >= 0)
			slot = (slot + 1) & c->path_hash_mask;
	}
	int32_t id = (int32_t)c->nr_paths++;
	c->path[id] = (struct cpu_path){.parent = parent, .fn = fn};
	c->path_hash[slot] = id;
	return id;
}

/* --- export ---------------------------------------------------------- */

static void derive(struct cpu *c)
{
	const struct cost_tables *t = c->sys->tables;
	uint64_t *k = c->ctr;
	cpu_memo_fold(c);
	cpu_attribute(c);
	k[CPU_CTR_cycles] = c->now - c->start;
	k[CPU_CTR_l2_prefetch] = c->sys->cache.cpu[c->idx].pf_issued;
	k[CPU_CTR_busy_cycles] = k[CPU_CTR_cycles] - k[CPU_CTR_idle_cycles];
	k[CPU_CTR_calls] = k[CPU_CTR_inlined_calls] = 0;
	for (int fn = 0; fn < t->nr_fns; fn++)
		k[c->fn_inline[fn] & 1 ? CPU_CTR_inlined_calls : CPU_CTR_calls] +=
			c->prof[fn].calls;
	k[CPU_CTR_branches] = k[CPU_CTR_branches_taken] = 0;
	k[CPU_CTR_branch_mispredict] = 0;
	for (int i = 0; i < t->nr_sites; i++) {
		k[CPU_CTR_branches] += c->site[i].executed;
		k[CPU_CTR_branches_taken] += c->site[i].taken;
		k[CPU_CTR_branch_mispredict] += c->site[i].mispredicted;
	}
}

uint64_t cpu_counter(struct cpu *c, enum cpu_counter id)
{
	derive(c);
	return (unsigned)id < CPU_NR_COUNTERS ? c->ctr[id] : 0;
}

/* CPUs selected by cpu_id (-1 = all): [*lo, *hi); NS_ENOENT if unknown. */
static int select_cpus(struct cpu_sys *s, int cpu_id, int *lo, int *hi)
{
	if (cpu_id < 0) {
		*lo = 0;
		*hi = s->nr_cpus;
		return NS_OK;
	}
	struct cpu *c = cpu_sys_cpu(s, cpu_id);
	if (!c)
		return NS_ENOENT;
	*lo = c->idx;
	*hi = c->idx + 1;
	return NS_OK;
}

int cpu_sys_profile(struct cpu_sys *s, int cpu_id, cpu_profile_cb cb, void *arg)
{
	int lo, hi, rc = select_cpus(s, cpu_id, &lo, &hi);
	if (rc)
		return rc;
	for (int i = lo; i < hi; i++) {
		cpu_memo_fold(&s->cpu[i]);
		cpu_attribute(&s->cpu[i]);
	}
	for (int fn = 0; fn < s->tables->nr_fns; fn++) {
		struct cpu_profile_row r = {
			.function = s->tables->fn_names[fn],
			.inlined = s->layout->fn_inline[fn],
		};
		for (int i = lo; i < hi; i++) {
			const struct cpu_prof *p = &s->cpu[i].prof[fn];
			r.calls += p->calls;
			r.self_cycles += p->self;
			r.total_cycles += p->total;
		}
		if (!r.calls)
			continue;
		rc = cb(arg, &r);
		if (rc)
			return rc;
	}
	return NS_OK;
}

/* The CPUs of cpu_id (select_cpus) with their charge kinds and per-block
 * work folded and attributed: NS_ENOENT unless the run kept them
 * (cpu_params charge_kinds). */
static int select_charged_cpus(struct cpu_sys *s, int cpu_id, int *lo, int *hi)
{
	int rc = select_cpus(s, cpu_id, lo, hi);
	if (rc)
		return rc;
	for (int i = *lo; i < *hi; i++) {
		if (!s->cpu[i].kinds)
			return NS_ENOENT;
		cpu_memo_fold(&s->cpu[i]);
		cpu_attribute(&s->cpu[i]);
	}
	return NS_OK;
}

int cpu_sys_charges(struct cpu_sys *s, int cpu_id, cpu_charge_cb cb, void *arg)
{
	int lo, hi, rc = select_charged_cpus(s, cpu_id, &lo, &hi);
	if (rc)
		return rc;
	for (int fn = 0; fn < s->tables->nr_fns; fn++) {
		for (int k = 0; k < CPU_NR_CHARGES; k++) {
			struct cpu_charge_row r = {
				.function = s->tables->fn_names[fn],
				.kind = cpu_charge_name((enum cpu_charge)k),
			};
			for (int i = lo; i < hi; i++)
				r.cycles += s->cpu[i].kcyc[(size_t)(fn + 1) * CPU_NR_CHARGES + k];
			if (!r.cycles)
				continue;
			rc = cb(arg, &r);
			if (rc)
				return rc;
		}
	}
	return NS_OK;
}

int cpu_sys_units(struct cpu_sys *s, int cpu_id, cpu_unit_cb cb, void *arg)
{
	int lo, hi, rc = select_charged_cpus(s, cpu_id, &lo, &hi);
	if (rc)
		return rc;
	size_t cols = (size_t)s->tables->nr_units + 1;
	for (int fn = 0; fn < s->tables->nr_fns; fn++) {
		for (int u = 0; u < s->tables->nr_units; u++) {
			struct cpu_unit_row r = {
				.function = s->tables->fn_names[fn],
				.unit = s->tables->unit_names[u],
			};
			for (int i = lo; i < hi; i++) {
				const struct cpu_unit_cycles *uc =
					&s->cpu[i].ucyc[(size_t)(fn + 1) * cols + (size_t)u + 1];
				r.executed += uc->executed;
				r.cycles += uc->cycles;
			}
			if (!r.executed)
				continue;
			rc = cb(arg, &r);
			if (rc)
				return rc;
		}
	}
	return NS_OK;
}

int cpu_sys_branches(struct cpu_sys *s, int cpu_id, cpu_branch_cb cb, void *arg)
{
	int lo, hi, rc = select_cpus(s, cpu_id, &lo, &hi);
	if (rc)
		return rc;
	for (int i = lo; i < hi; i++)
		cpu_memo_fold(&s->cpu[i]);
	for (int site = 0; site < s->tables->nr_sites; site++) {
		struct cpu_branch_row r = {
			.site = s->tables->sites[site]->name,
			.desc = s->tables->sites[site]->desc,
		};
		for (int i = lo; i < hi; i++) {
			const struct cpu_site_stat *st = &s->cpu[i].site[site];
			r.executed += st->executed;
			r.taken += st->taken;
			r.mispredicted += st->mispredicted;
		}
		if (!r.executed)
			continue;
		rc = cb(arg, &r);
		if (rc)
			return rc;
	}
	return NS_OK;
}

/*
 * The merge of the CPUs' path tables: merged ids in order of first
 * appearance (CPU order, then each CPU's ids, whose parents come first),
 * so the rows are deterministic and parents precede children.
 */
struct path_merge {
	struct cpu_path *p;            /* [n], merged; [0] root */
	uint32_t n, cap;
	int32_t *hash;
	uint32_t mask;
};

static uint32_t merge_slot(const struct path_merge *m, int32_t parent, int32_t fn)
{
	uint32_t key = (uint32_t)parent * 0x9E3779B1u ^ (uint32_t)fn * 0x85EBCA77u;
	return (key ^ key >> 15) & m->mask;
}

static int32_t merge_add(struct path_merge *m, int32_t parent, int32_t fn)
{
	uint32_t h = merge_slot(m, parent, fn);
	for (;; h = (h + 1) & m->mask) {
		int32_t id = m->hash[h];
		if (id < 0)
			break;
		if (m->p[id].fn == fn && m->p[id].parent == parent)
			return id;
	}
	int32_t id = (int32_t)m->n++;  /* cap = total paths of all CPUs: fits */
	m->p[id] = (struct cpu_path){.parent = parent, .fn = fn};
	m->hash[h] = id;
	return id;
}

int cpu_sys_paths(struct cpu_sys *s, int cpu_id, cpu_path_cb cb, void *arg)
{
	int lo, hi, rc = select_cpus(s, cpu_id, &lo, &hi);
	if (rc)
		return rc;
	uint64_t total = 1, maxn = 0;
	for (int i = lo; i < hi; i++) {
		cpu_memo_fold(&s->cpu[i]);
		cpu_attribute(&s->cpu[i]);
		total += s->cpu[i].nr_paths;
		maxn = s->cpu[i].nr_paths > maxn ? s->cpu[i].nr_paths : maxn;
	}
	uint32_t slots = 4;
	while (slots < 2 * total)
		slots *= 2;
	struct path_merge m = {.cap = (uint32_t)total, .mask = slots - 1};
	m.p = calloc(total, sizeof *m.p);
	m.hash = malloc((size_t)slots * sizeof *m.hash);
	int32_t *map = malloc((size_t)maxn * sizeof *map);
	if (!m.p || !m.hash || !map) {
		rc = NS_ENOMEM;
		goto out;
	}
	for (uint32_t i = 0; i < slots; i++)
		m.hash[i] = -1;
	m.n = 1;
	m.p[0].parent = m.p[0].fn = -1;
	for (int i = lo; i < hi; i++) {
		const struct cpu *c = &s->cpu[i];
		map[0] = 0;
		for (uint32_t id = 1; id < c->nr_paths; id++) {
			const struct cpu_path *p = &c->path[id];
			int32_t mid = merge_add(&m, map[p->parent], p->fn);
			map[id] = mid;
			m.p[mid].calls += p->calls;
			m.p[mid].self += p->self;
			m.p[mid].mispredicts += p->mispredicts;
		}
	}
	for (uint32_t id = 1; id < m.n && rc == NS_OK; id++) {
		struct cpu_path_row r = {
			.id = id, .parent = m.p[id].parent,
			.function = s->tables->fn_names[m.p[id].fn],
			.calls = m.p[id].calls, .self_cycles = m.p[id].self,
			.mispredicts = m.p[id].mispredicts,
		};
		rc = cb(arg, &r);
	}
out:
	free(m.p);
	free(m.hash);
	free(map);
	return rc;
}

int cpu_sys_fixed_sites(struct cpu_sys *s, cpu_counter_cb cb, void *arg)
{
	for (int site = 0; site < s->tables->nr_sites && s->layout->nr_fixed; site++) {
		if (!s->layout->site[site].fixed)
			continue;
		char name[160];
		snprintf(name, sizeof name, "removed_site_disagree.%s",
			 s->tables->sites[site]->name);
		struct cpu_counter_row r = {.scope = "system", .scope_id = 0, .name = name};
		for (int i = 0; i < s->nr_cpus; i++)
			r.value += s->cpu[i].fixed_disagree[site];
		int rc = cb(arg, &r);
		if (rc)
			return rc;
	}
	return NS_OK;
}

int cpu_sys_counters(struct cpu_sys *s, cpu_counter_cb cb, void *arg)
{
	for (int i = 0; i < s->nr_cpus; i++) {
		struct cpu *c = &s->cpu[i];
		derive(c);
		for (int id = 0; id < CPU_NR_COUNTERS; id++) {
			struct cpu_counter_row r = {
				.scope = "cpu",
				.scope_id = c->id,
				.name = cpu_counter_name(id),
				.value = c->ctr[id],
			};
			int rc = cb(arg, &r);
			if (rc)
				return rc;
		}
	}
	return NS_OK;
}
