/*
 * sched_fair_setup — the cold half of the v5.9 CFS model (models/sched_fair.h;
 * kernel/sched/fair.c): update_sysctl() (the sysctls scaled by
 * get_update_sysctl_factor(), SCHED_TUNABLESCALING_LOG), the set-up of the
 * placement state, cfs_create() and cfs_destroy(), the statistics' names
 * and cfs_stats(), and cfs_check().  The scheduling paths are in
 * models/sched_fair.c; nothing here runs on them.
 */
#include "models/sched_fair.h"
#include "models/sched_fair_internal.h"

#include <stdlib.h>
#include <string.h>

/* get_update_sysctl_factor(), SCHED_TUNABLESCALING_LOG. */
static uint32_t get_update_sysctl_factor(int nr_cpus)
{
	uint32_t factor = 1, cpus = nr_cpus < 8 ? (uint32_t)nr_cpus : 8;
	while (cpus >>= 1)
		factor++;
	return factor;
}

/* update_sysctl(): the scaled sysctls in cycles, and the tick. */
static void update_sysctl(struct cfs_sched *cs)
{
	const struct cfs_params *p = &cs->params;
	uint32_t factor = get_update_sysctl_factor(cs->sys->nr_cpus);
	double ghz = cs->sys->k.clock_ghz;
	cs->sysctl.latency = (uint64_t)((double)p->sched_latency_ns * factor * ghz + 0.5);
	cs->sysctl.min_granularity = (uint64_t)((double)p->min_granularity_ns * factor * ghz + 0.5);
	cs->sysctl.wakeup_granularity =
		(uint64_t)((double)p->wakeup_granularity_ns * factor * ghz + 0.5);
	cs->sysctl.tick = (uint64_t)(1e9 / p->hz * ghz + 0.5);
}

/* set-up of the placement state. */
static int placement_create(struct cfs_sched *cs)
{
	int n = cs->sys->nr_cpus;
	int rc = sched_topo_create(cs->sys, &cs->topo);
	if (rc)
		return rc;
	size_t nl = (size_t)n * SCHED_TOPO_MAX_LEVELS;
	cs->sd_stat = calloc(nl * CFS_NR_SD_STATS, sizeof *cs->sd_stat);
	cs->max_newidle_lb_cost = calloc(nl, sizeof *cs->max_newidle_lb_cost);
	cs->next_decay_max_lb_cost = calloc(nl, sizeof *cs->next_decay_max_lb_cost);
	cs->avg_scan_cost = calloc((size_t)n, sizeof *cs->avg_scan_cost);
	cs->has_idle_cores = calloc((size_t)n, sizeof *cs->has_idle_cores);
	if (!cs->sd_stat || !cs->max_newidle_lb_cost || !cs->next_decay_max_lb_cost ||
	    !cs->avg_scan_cost || !cs->has_idle_cores)
		return NS_ENOMEM;
	cs->migration_cost = (uint64_t)(500000 * cs->sys->k.clock_ghz + 0.5);
	for (int i = 0; i < n; i++) {
		struct cfs_rq *rq = &cs->rq[i];
		rq->avg_idle = 2 * cs->migration_cost;
		cs->has_idle_cores[i] = 1;
		if ((rc = cache_as_alloc(cs->params.as, cs->topo->node[i], 64, 64, &rq->addr)))
			return rc;
	}
	for (uint32_t t = 0; t < cs->nr_tasks; t++) {
		struct sched_entity *se = &cs->se[t];
		se->recent_used_cpu = -1;
		se->last_wakee = -1;
		se->load_avg = se->util_avg = 0;
		if ((rc = cache_as_alloc(cs->params.as, cs->params.task_node, TASK_HOT_BYTES, 64,
					 &se->addr)))
			return rc;
	}
	return NS_OK;
}

const char *cfs_cpu_stat_name(int i)
{
#define CFS_STAT_NAME(name, desc) #name,
	static const char *const names[] = {CFS_CPU_STAT_MAP(CFS_STAT_NAME)};
	return i >= 0 && i < CFS_NR_CPU_STATS ? names[i] : NULL;
}

const char *cfs_sd_stat_name(int i)
{
	static const char *const names[] = {CFS_SD_STAT_MAP(CFS_STAT_NAME)};
#undef CFS_STAT_NAME
	return i >= 0 && i < CFS_NR_SD_STATS ? names[i] : NULL;
}

int cfs_stats(const struct cfs_sched *cs, cfs_stat_fn fn, void *arg)
{
	if (!cs->topo)
		return NS_OK;
	for (int cpu = 0; cpu < cs->sys->nr_cpus; cpu++) {
		for (int i = 0; i < CFS_NR_CPU_STATS; i++) {
			uint64_t v = cs->rq[cpu].stat[i];
			int rc = v ? fn(arg, cpu, NULL, cfs_cpu_stat_name(i), v) : NS_OK;
			if (rc)
				return rc;
		}
		for (int l = 0; l < cs->topo->nr_domains[cpu]; l++) {
			const struct sched_domain *sd = &cs->topo->sd[cpu * cs->topo->nr_levels + l];
			const uint64_t *st = &cs->sd_stat[((size_t)cpu * SCHED_TOPO_MAX_LEVELS +
							   (size_t)sd->level) * CFS_NR_SD_STATS];
			for (int i = 0; i < CFS_NR_SD_STATS; i++) {
				int rc = st[i] ? fn(arg, cpu, cs->topo->level[sd->level].name,
						    cfs_sd_stat_name(i), st[i]) : NS_OK;
				if (rc)
					return rc;
			}
		}
	}
	return NS_OK;
}

/* --- API ----------------------------------------------------------------- */

static int params_ok(const struct cfs_params *p, const struct cpu_sys *sys, uint32_t nr_tasks)
{
	return sys->nr_cpus > 0 && sys->k.clock_ghz > 0 && nr_tasks > 0 && p->hz > 0 &&
	       p->hz <= 100000 && p->sched_latency_ns > 0 && p->min_granularity_ns > 0 &&
	       (p->placement == CFS_PLACEMENT_NONE ||
		(p->placement == CFS_PLACEMENT_V59 && p->as));
}

int cfs_create(const struct cfs_params *p, struct cpu_sys *sys, uint32_t nr_tasks,
	       struct cfs_sched **out)
{
	*out = NULL;
	if (!params_ok(p, sys, nr_tasks))
		return NS_EINPUT;
	struct cfs_sched *cs = calloc(1, sizeof *cs);
	int rc;
	if (!cs)
		return NS_ENOMEM;
	cs->sys = sys;
	cs->params = *p;
	cs->nr_tasks = nr_tasks;
	update_sysctl(cs);
	cs->se = calloc(nr_tasks, sizeof *cs->se);
	cs->rq = calloc((size_t)sys->nr_cpus, sizeof *cs->rq);
	if (!cs->se || !cs->rq) {
		cfs_destroy(cs);
		return NS_ENOMEM;
	}
	for (uint32_t t = 0; t < nr_tasks; t++)
		cs->se[t].cpu = -1;
	for (int i = 0; i < sys->nr_cpus; i++) {
		struct cfs_rq *rq = &cs->rq[i];
		rq->queue = calloc(nr_tasks, sizeof *rq->queue);
		if (!rq->queue) {
			cfs_destroy(cs);
			return NS_ENOMEM;
		}
		rq->curr = rq->next = rq->last = rq->preempted = -1;
	}
	if (v59(cs) && (rc = placement_create(cs)) != NS_OK) {
		cfs_destroy(cs);
		return rc;
	}
	*out = cs;
	return NS_OK;
}

void cfs_destroy(struct cfs_sched *cs)
{
	if (!cs)
		return;
	if (cs->rq)
		for (int i = 0; i < cs->sys->nr_cpus; i++)
			free(cs->rq[i].queue);
	free(cs->rq);
	free(cs->se);
	sched_topo_destroy(cs->topo);
	free(cs->sd_stat);
	free(cs->max_newidle_lb_cost);
	free(cs->next_decay_max_lb_cost);
	free(cs->avg_scan_cost);
	free(cs->has_idle_cores);
	free(cs);
}

/* --- checks -------------------------------------------------------------- */

#define CHECK(cond, ...)                                                       \
	do {                                                                   \
		if (!(cond))                                                   \
			return diag_set(d, NS_EINTERNAL, NULL, 0, 0, __VA_ARGS__); \
	} while (0)

/* t is -1, rq's curr, or queued on rq. */
static int on_rq_or_none(const struct cfs_sched *cs, const struct cfs_rq *rq, int cpu, int64_t t)
{
	if (t < 0 || t == rq->curr)
		return 1;
	return t < (int64_t)cs->nr_tasks && cs->se[t].cpu == cpu &&
	       cs->se[t].state == CFS_TASK_RUNNABLE;
}

static int check_rq(const struct cfs_sched *cs, int cpu, uint8_t *seen, struct diag *d)
{
	const struct cfs_rq *rq = &cs->rq[cpu];
	CHECK(rq->nr_queued <= cs->nr_tasks, "cfs: cpu %d: %u queued of %u tasks", cpu,
	      rq->nr_queued, cs->nr_tasks);
	for (uint32_t i = 0; i < rq->nr_queued; i++) {
		uint32_t t = rq->queue[i];
		CHECK(t < cs->nr_tasks, "cfs: cpu %d: queued task %u out of range", cpu, t);
		CHECK(!seen[t], "cfs: task %u queued twice", t);
		seen[t] = 1;
		CHECK(cs->se[t].state == CFS_TASK_RUNNABLE && cs->se[t].cpu == cpu,
		      "cfs: cpu %d: queued task %u is not runnable there", cpu, t);
		CHECK((int64_t)t != rq->curr, "cfs: cpu %d: curr %u is queued", cpu, t);
	}
	if (rq->curr >= 0) {
		int64_t t = rq->curr;
		CHECK(t < (int64_t)cs->nr_tasks && cs->se[t].state == CFS_TASK_RUNNING &&
		      cs->se[t].cpu == cpu, "cfs: cpu %d: curr %lld is not running there", cpu,
		      (long long)t);
		CHECK(rq->preempted < 0, "cfs: cpu %d: a task put back while curr runs", cpu);
	}
	CHECK(on_rq_or_none(cs, rq, cpu, rq->next) && on_rq_or_none(cs, rq, cpu, rq->last),
	      "cfs: cpu %d: a buddy is not on the queue", cpu);
	CHECK(rq->preempted < 0 || (rq->preempted != rq->curr &&
				    on_rq_or_none(cs, rq, cpu, rq->preempted)),
	      "cfs: cpu %d: the task put back is not queued", cpu);
	CHECK(rq->need_resched == CFS_RESCHED_NONE || rq->curr >= 0 || rq->preempted >= 0,
	      "cfs: cpu %d: need_resched without a task", cpu);
	CHECK(rq->min_vruntime >= rq->min_vruntime_checked,
	      "cfs: cpu %d: min_vruntime went back from %llu to %llu", cpu,
	      (unsigned long long)rq->min_vruntime_checked, (unsigned long long)rq->min_vruntime);
	return NS_OK;
}

static int check_counts(const struct cfs_sched *cs, struct diag *d)
{
	uint64_t runnable = 0, running = 0, queued = 0, currs = 0;
	for (uint32_t t = 0; t < cs->nr_tasks; t++) {
		const struct sched_entity *se = &cs->se[t];
		runnable += se->state == CFS_TASK_RUNNABLE;
		running += se->state == CFS_TASK_RUNNING;
		CHECK(se->state <= CFS_TASK_DEAD, "cfs: task %u: bad state %d", t, (int)se->state);
		CHECK(se->state == CFS_TASK_NEW ? se->cpu == -1 : cpu_ok(cs, se->cpu),
		      "cfs: task %u: bad cpu %d", t, se->cpu);
	}
	for (int i = 0; i < cs->sys->nr_cpus; i++) {
		queued += cs->rq[i].nr_queued;
		currs += cs->rq[i].curr >= 0;
	}
	CHECK(queued == runnable, "cfs: %llu queued, %llu runnable tasks",
	      (unsigned long long)queued, (unsigned long long)runnable);
	CHECK(currs == running, "cfs: %llu currs, %llu running tasks",
	      (unsigned long long)currs, (unsigned long long)running);
	return NS_OK;
}

int cfs_check(struct cfs_sched *cs, struct diag *d)
{
	int rc = check_counts(cs, d);
	if (rc != NS_OK)
		return rc;
	uint8_t *seen = calloc(cs->nr_tasks, 1);
	if (!seen)
		return NS_ENOMEM;
	for (int i = 0; i < cs->sys->nr_cpus && rc == NS_OK; i++)
		rc = check_rq(cs, i, seen, d);
	free(seen);
	if (rc != NS_OK)
		return rc;
	for (int i = 0; i < cs->sys->nr_cpus; i++)
		cs->rq[i].min_vruntime_checked = cs->rq[i].min_vruntime;
	return NS_OK;
}
