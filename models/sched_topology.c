/*
 * sched_topology — v5.9's scheduler domains; see sched_topology.h.
 *
 * Design notes.  Spans are lists of CPU indexes (positions in
 * cpu_sys.cpu[]) rather than cpumasks: a level is a predicate "b is in
 * a's span at level l" (same core, same node, node distance within d),
 * evaluated once at set-up, so every query at run time is a walk over an
 * array.  Everything is allocated by sched_topo_create.
 */
#include "models/sched_topology.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum level_kind { LV_SMT, LV_MC, LV_NUMA };

struct builder {
	const struct cpu_sys *sys;
	struct sched_topo *t;
	enum level_kind kind[SCHED_TOPO_MAX_LEVELS];
};

static int node_distance(const struct cpu_sys *sys, int a, int b)
{
	const struct machine *m = sys->m;
	return m->distance[sys->cpu[a].node_pos * m->nr_nodes + sys->cpu[b].node_pos];
}

/* b is in a's span at level l. */
static int in_level(const struct builder *b, int l, int x, int y)
{
	switch (b->kind[l]) {
	case LV_SMT:
		return x == y || b->t->smt_sibling[x] == y;
	case LV_MC:
		return b->sys->cpu[x].node == b->sys->cpu[y].node;
	case LV_NUMA:
		return node_distance(b->sys, x, y) <= b->t->level[l].numa_distance;
	}
	return 0;
}

/* The x86 enumeration rule of the header: sibling of CPU id c is
 * c +- (max_cpu + 1) / 2 when that holds for every simulated CPU. */
static int find_smt(const struct cpu_sys *sys, int *sib)
{
	const struct machine *m = sys->m;
	int half = (m->max_cpu + 1) / 2;
	if (half < 1 || (m->max_cpu + 1) % 2)
		return 0;
	for (int i = 0; i < sys->nr_cpus; i++) {
		int id = sys->cpu[i].id;
		int pid = id < half ? id + half : id - half;
		sib[i] = -1;
		for (int j = 0; j < sys->nr_cpus; j++)
			if (sys->cpu[j].id == pid && sys->cpu[j].node == sys->cpu[i].node)
				sib[i] = j;
		if (sib[i] < 0)
			return 0;
	}
	return 1;
}

/* The levels: SMT?, MC, a NUMA level per distinct distance above the
 * smallest (sched_init_numa's level 0 is the node: MC's span). */
static void find_levels(struct builder *b, int smt)
{
	struct sched_topo *t = b->t;
	const struct machine *m = b->sys->m;
	int n = 0, last = 0;
	if (smt) {
		snprintf(t->level[n].name, sizeof t->level[n].name, "SMT");
		t->level[n].flags = SD_SHARE_CPUCAPACITY | SD_SHARE_PKG_RESOURCES;
		b->kind[n++] = LV_SMT;
	}
	snprintf(t->level[n].name, sizeof t->level[n].name, "MC");
	t->level[n].flags = SD_SHARE_PKG_RESOURCES;
	b->kind[n++] = LV_MC;
	int local = m->distance[0];
	for (int i = 0; i < m->nr_nodes * m->nr_nodes; i++)
		local = m->distance[i] < local ? m->distance[i] : local;
	for (int k = 1; n < SCHED_TOPO_MAX_LEVELS; k++) {
		int next = 0;
		for (int i = 0; i < m->nr_nodes * m->nr_nodes; i++) {
			int d = m->distance[i];
			if (d > local && d > last && (!next || d < next))
				next = d;
		}
		if (!next)
			break;
		if (k == 1)
			snprintf(t->level[n].name, sizeof t->level[n].name, "NUMA");
		else   /* k < SCHED_TOPO_MAX_LEVELS: one digit */
			snprintf(t->level[n].name, sizeof t->level[n].name, "NUMA%c",
				 (char)('0' + k % 10));
		t->level[n].flags = SD_NUMA;
		t->level[n].numa_distance = next;
		b->kind[n++] = LV_NUMA;
		last = next;
	}
	t->nr_levels = n;
}

/* sd_init for level l of weight w. */
static void sd_init(const struct sched_level *lv, uint32_t w, struct sched_domain *sd)
{
	sd->flags = SD_BALANCE_NEWIDLE | SD_BALANCE_EXEC | SD_BALANCE_FORK |
		    SD_WAKE_AFFINE | SD_PREFER_SIBLING | lv->flags;
	sd->span_weight = w;
	sd->min_interval = w;
	sd->max_interval = 2 * w;
	sd->busy_factor = 32;
	sd->imbalance_pct = 125;
	sd->cache_nice_tries = 0;
	sd->balance_interval = w;
	if (sd->flags & SD_SHARE_CPUCAPACITY) {
		sd->imbalance_pct = 110;
	} else if (sd->flags & SD_SHARE_PKG_RESOURCES) {
		sd->imbalance_pct = 117;
		sd->cache_nice_tries = 1;
	} else if (sd->flags & SD_NUMA) {
		sd->cache_nice_tries = 2;
		sd->flags &= ~(uint32_t)SD_PREFER_SIBLING;
		sd->flags |= SD_SERIALIZE;
		if (lv->numa_distance > SCHED_RECLAIM_DISTANCE)
			sd->flags &= ~(uint32_t)(SD_BALANCE_EXEC | SD_BALANCE_FORK |
						 SD_WAKE_AFFINE);
	} else {
		sd->cache_nice_tries = 1;
	}
}

static uint32_t span_weight(const struct builder *b, int l, int cpu)
{
	uint32_t w = 0;
	for (int j = 0; j < b->sys->nr_cpus; j++)
		w += (uint32_t)in_level(b, l, cpu, j);
	return w;
}

/* The span of cpu's domain at level l, ordered by groups (the child level
 * cl's spans, cpu's own first; single CPUs when cl < 0). */
static int build_domain(struct builder *b, int cpu, int l, int cl, struct sched_domain *sd)
{
	int n = b->sys->nr_cpus;
	uint32_t w = span_weight(b, l, cpu);
	sd_init(&b->t->level[l], w, sd);
	sd->level = l;
	sd->span = calloc(w, sizeof *sd->span);
	sd->groups = calloc(w, sizeof *sd->groups);
	uint8_t *done = calloc((size_t)n, 1);
	if (!sd->span || !sd->groups || !done) {
		free(done);
		return NS_ENOMEM;
	}
	uint32_t k = 0;
	for (int pass = 0; pass < 2; pass++)
		for (int x = 0; x < n; x++) {
			if (done[x] || !in_level(b, l, cpu, x) || (pass == 0 && x != cpu))
				continue;
			struct sched_group *g = &sd->groups[sd->nr_groups++];
			g->first = k;
			for (int y = 0; y < n; y++)
				if (!done[y] && in_level(b, l, cpu, y) &&
				    (y == x || (cl >= 0 && in_level(b, cl, x, y)))) {
					done[y] = 1;
					sd->span[k++] = y;
				}
			g->weight = k - g->first;
		}
	free(done);
	return NS_OK;
}

/* build_sched_domains for one CPU, dropping degenerate levels. */
static int build_cpu(struct builder *b, int cpu)
{
	struct sched_topo *t = b->t;
	uint32_t child_w = 1;
	int cl = -1, nd = 0;
	for (int l = 0; l < t->nr_levels; l++) {
		uint32_t w = span_weight(b, l, cpu);
		if (w <= child_w)
			continue;         /* sd_degenerate / sd_parent_degenerate */
		int rc = build_domain(b, cpu, l, cl, &t->sd[cpu * t->nr_levels + nd]);
		if (rc)
			return rc;
		if (t->level[l].flags & SD_SHARE_PKG_RESOURCES) {
			const struct sched_domain *sd = &t->sd[cpu * t->nr_levels + nd];
			t->llc_size[cpu] = (int)w;
			t->llc_id[cpu] = cpu;       /* cpumask_first of the span */
			for (uint32_t i = 0; i < w; i++)
				t->llc_id[cpu] = sd->span[i] < t->llc_id[cpu] ? sd->span[i]
									: t->llc_id[cpu];
		}
		nd++;
		child_w = w;
		cl = l;
	}
	t->nr_domains[cpu] = nd;
	return NS_OK;
}

int sched_topo_create(const struct cpu_sys *sys, struct sched_topo **out)
{
	*out = NULL;
	if (sys->nr_cpus < 1)
		return NS_EINPUT;
	struct sched_topo *t = calloc(1, sizeof *t);
	if (!t)
		return NS_ENOMEM;
	int n = sys->nr_cpus;
	t->nr_cpus = n;
	t->nr_domains = calloc((size_t)n, sizeof *t->nr_domains);
	t->llc_id = calloc((size_t)n, sizeof *t->llc_id);
	t->llc_size = calloc((size_t)n, sizeof *t->llc_size);
	t->smt_sibling = calloc((size_t)n, sizeof *t->smt_sibling);
	t->node = calloc((size_t)n, sizeof *t->node);
	t->sd = calloc((size_t)n * SCHED_TOPO_MAX_LEVELS, sizeof *t->sd);
	if (!t->nr_domains || !t->llc_id || !t->llc_size || !t->smt_sibling || !t->node ||
	    !t->sd) {
		sched_topo_destroy(t);
		return NS_ENOMEM;
	}
	struct builder b = {.sys = sys, .t = t};
	int smt = find_smt(sys, t->smt_sibling);
	for (int i = 0; i < n; i++) {
		if (!smt)
			t->smt_sibling[i] = -1;
		t->node[i] = sys->cpu[i].node;
		t->llc_id[i] = i;
		t->llc_size[i] = 1;
	}
	find_levels(&b, smt);
	for (int i = 0; i < n; i++) {
		int rc = build_cpu(&b, i);
		if (rc) {
			sched_topo_destroy(t);
			return rc;
		}
	}
	*out = t;
	return NS_OK;
}

void sched_topo_destroy(struct sched_topo *t)
{
	if (!t)
		return;
	if (t->sd)
		for (int i = 0; i < t->nr_cpus * SCHED_TOPO_MAX_LEVELS; i++) {
			free(t->sd[i].span);
			free(t->sd[i].groups);
		}
	free(t->sd);
	free(t->nr_domains);
	free(t->llc_id);
	free(t->llc_size);
	free(t->smt_sibling);
	free(t->node);
	free(t);
}

struct sched_domain *sched_topo_sd(struct sched_topo *t, int cpu, int l)
{
	if (l < 0 || l >= t->nr_domains[cpu])
		return NULL;
	return &t->sd[cpu * t->nr_levels + l];
}

struct sched_domain *sched_topo_llc(struct sched_topo *t, int cpu)
{
	struct sched_domain *llc = NULL;
	for (int l = 0; l < t->nr_domains[cpu]; l++) {
		struct sched_domain *sd = &t->sd[cpu * t->nr_levels + l];
		if (sd->flags & SD_SHARE_PKG_RESOURCES)
			llc = sd;
	}
	return llc;
}

int sched_domain_has(const struct sched_domain *sd, int cpu)
{
	for (uint32_t i = 0; i < sd->span_weight; i++)
		if (sd->span[i] == cpu)
			return 1;
	return 0;
}

#define CHECK(cond, ...)                                                       \
	do {                                                                   \
		if (!(cond))                                                   \
			return diag_set(d, NS_EINTERNAL, NULL, 0, 0, __VA_ARGS__); \
	} while (0)

static int check_domain(const struct sched_topo *t, int cpu, int l, struct diag *d)
{
	const struct sched_domain *sd = &t->sd[cpu * t->nr_levels + l];
	uint32_t sum = 0;
	for (uint32_t g = 0; g < sd->nr_groups; g++) {
		CHECK(sd->groups[g].first == sum && sd->groups[g].weight > 0,
		      "sched_topo: cpu %d level %d: group %u does not follow its neighbour",
		      cpu, l, g);
		sum += sd->groups[g].weight;
	}
	CHECK(sum == sd->span_weight, "sched_topo: cpu %d level %d: groups cover %u of %u CPUs",
	      cpu, l, sum, sd->span_weight);
	int own = 0;
	for (uint32_t i = 0; i < sd->groups[0].weight; i++)
		own |= sd->span[i] == cpu;
	CHECK(own, "sched_topo: cpu %d level %d: the CPU is not in its first group", cpu, l);
	if (l == 0)
		return NS_OK;
	const struct sched_domain *child = sd - 1;
	CHECK(child->span_weight < sd->span_weight && child->span_weight == sd->groups[0].weight,
	      "sched_topo: cpu %d level %d: the first group is not the child's span", cpu, l);
	for (uint32_t i = 0; i < child->span_weight; i++)
		CHECK(sched_domain_has(sd, child->span[i]),
		      "sched_topo: cpu %d level %d: CPU %d of the child is outside", cpu, l,
		      child->span[i]);
	return NS_OK;
}

int sched_topo_check(const struct sched_topo *t, struct diag *d)
{
	for (int cpu = 0; cpu < t->nr_cpus; cpu++) {
		CHECK(t->nr_domains[cpu] >= 0 && t->nr_domains[cpu] <= t->nr_levels,
		      "sched_topo: cpu %d has %d domains", cpu, t->nr_domains[cpu]);
		for (int l = 0; l < t->nr_domains[cpu]; l++) {
			int rc = check_domain(t, cpu, l, d);
			if (rc)
				return rc;
		}
	}
	return NS_OK;
}
