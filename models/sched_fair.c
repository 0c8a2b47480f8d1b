/*
 * sched_fair — the v5.9 CFS model; see sched_fair.h.
 *
 * Design notes.  Each static function mirrors one function of
 * kernel/sched/fair.c and says which.  All memory (entities, run queues
 * with room for every task) is allocated by cfs_create: nothing on the
 * scheduling paths allocates.  A CPU's clock is its cpu_sys clock
 * (cpu->now, cycles); vruntime is in cycles too.
 */
#include "models/sched_fair.h"

#include <stdlib.h>
#include <string.h>

/* --- the run queue array (the rbtree's stand-in) ------------------------- */

static void queue_push(struct cfs_rq *rq, uint32_t t)
{
	rq->queue[rq->nr_queued++] = t;
}

static void queue_remove_at(struct cfs_rq *rq, uint32_t i)
{
	memmove(&rq->queue[i], &rq->queue[i + 1], (rq->nr_queued - i - 1) * sizeof *rq->queue);
	rq->nr_queued--;
}

/* __pick_first_entity: position of the first smallest vruntime; nr_queued > 0. */
static uint32_t pick_first_entity(const struct cfs_sched *cs, const struct cfs_rq *rq)
{
	uint32_t best = 0;
	uint64_t v = cs->se[rq->queue[0]].vruntime;
	for (uint32_t i = 1; i < rq->nr_queued; i++)
		if (cs->se[rq->queue[i]].vruntime < v) {
			v = cs->se[rq->queue[i]].vruntime;
			best = i;
		}
	return best;
}

/* --- fair.c -------------------------------------------------------------- */

/* update_min_vruntime: monotonic, the smaller of curr and the leftmost. */
static void update_min_vruntime(const struct cfs_sched *cs, struct cfs_rq *rq)
{
	uint64_t v = rq->min_vruntime;
	int have_curr = 0;
	if (rq->curr >= 0) {
		v = cs->se[rq->curr].vruntime;
		have_curr = 1;
	}
	if (rq->nr_queued) {
		uint64_t left = cs->se[rq->queue[pick_first_entity(cs, rq)]].vruntime;
		v = have_curr && v < left ? v : left;
	}
	if (v > rq->min_vruntime)
		rq->min_vruntime = v;
}

/* update_curr: charge curr's vruntime up to now (1:1, nice 0); unlike
 * fair.c, update_min_vruntime runs also without curr or elapsed time. */
static void update_curr(const struct cfs_sched *cs, struct cfs_rq *rq, uint64_t now)
{
	if (rq->curr >= 0 && now > rq->exec_start) {
		cs->se[rq->curr].vruntime += now - rq->exec_start;
		rq->exec_start = now;
	}
	update_min_vruntime(cs, rq);
}

/* wakeup_preempt_entity(curr, se): 1 when curr is more than the wake-up
 * granularity ahead of se, -1 when it is not ahead, else 0. */
static int wakeup_preempt_entity(const struct cfs_sched *cs, uint64_t curr, uint64_t se)
{
	int64_t vdiff = (int64_t)(curr - se);
	if (vdiff <= 0)
		return -1;
	return vdiff > (int64_t)cs->sysctl.wakeup_granularity ? 1 : 0;
}

/* __sched_period: the latency, stretched beyond sched_nr_latency tasks. */
static uint64_t sched_period(const struct cfs_sched *cs, uint32_t nr_running)
{
	if (nr_running > CFS_SCHED_NR_LATENCY)
		return nr_running * cs->sysctl.min_granularity;
	return cs->sysctl.latency;
}

/* sched_slice for equal weights: __sched_period(nr) / nr. */
static uint64_t sched_slice(const struct cfs_sched *cs, uint32_t nr_running)
{
	return sched_period(cs, nr_running) / nr_running;
}

/* clear_buddies(cfs_rq, se). */
static void clear_buddies(struct cfs_rq *rq, int64_t t)
{
	if (rq->next == t)
		rq->next = -1;
	if (rq->last == t)
		rq->last = -1;
}

/* pick_next_entity after put_prev_entity (curr is in the queue): the
 * leftmost, unless the last buddy, then the next buddy, is within the
 * wake-up granularity of it; clear_buddies; dequeued for set_next_entity. */
static uint32_t pick_next_entity(struct cfs_sched *cs, struct cfs_rq *rq)
{
	uint32_t i = pick_first_entity(cs, rq);
	uint64_t left = cs->se[rq->queue[i]].vruntime;
	int64_t se = rq->queue[i];
	if (rq->last >= 0 && wakeup_preempt_entity(cs, cs->se[rq->last].vruntime, left) < 1)
		se = rq->last;
	if (rq->next >= 0 && wakeup_preempt_entity(cs, cs->se[rq->next].vruntime, left) < 1)
		se = rq->next;
	clear_buddies(rq, se);
	if (se != rq->queue[i])
		for (i = 0; rq->queue[i] != (uint32_t)se; i++)
			;
	queue_remove_at(rq, i);
	return (uint32_t)se;
}

/* check_preempt_wakeup for woken task t, already enqueued on rq (whose
 * curr enqueue_entity's update_curr has just charged). */
static void check_preempt_wakeup(struct cfs_sched *cs, struct cfs_rq *rq, uint32_t t)
{
	if (!cs->params.wakeup_preemption || rq->curr < 0 || rq->need_resched)
		return;
	if (wakeup_preempt_entity(cs, cs->se[rq->curr].vruntime, cs->se[t].vruntime) != 1)
		return;
	rq->next = t;                     /* set_next_buddy */
	rq->need_resched = CFS_RESCHED_WAKEUP;
	if (rq->nr_queued + 1 >= CFS_SCHED_NR_LATENCY)
		rq->last = rq->curr;      /* set_last_buddy */
}

/* check_preempt_tick, at a tick while rq->curr runs; unlike fair.c the
 * slice-expired case does not clear_buddies(curr). */
static void check_preempt_tick(struct cfs_sched *cs, struct cfs_rq *rq, uint64_t now)
{
	update_curr(cs, rq, now);
	if (!rq->nr_queued || rq->need_resched)
		return;
	uint64_t ideal = sched_slice(cs, rq->nr_queued + 1);
	uint64_t delta_exec = now - rq->slice_start;
	if (delta_exec > ideal) {
		rq->need_resched = CFS_RESCHED_TICK;
		return;
	}
	if (delta_exec < cs->sysctl.min_granularity)
		return;
	uint64_t left = cs->se[rq->queue[pick_first_entity(cs, rq)]].vruntime;
	int64_t delta = (int64_t)(cs->se[rq->curr].vruntime - left);
	if (delta > (int64_t)ideal)
		rq->need_resched = CFS_RESCHED_TICK;
}

/* place_entity for a wake-up (GENTLE_FAIR_SLEEPERS): at least
 * min_vruntime - sched_latency / 2. */
static void place_entity(const struct cfs_sched *cs, const struct cfs_rq *rq,
			 struct sched_entity *se)
{
	uint64_t thresh = cs->sysctl.latency / 2;
	if (rq->min_vruntime > thresh && se->vruntime < rq->min_vruntime - thresh)
		se->vruntime = rq->min_vruntime - thresh;
}

/* dequeue_entity(DEQUEUE_SLEEP) of curr: update_curr, clear_buddies. */
static void dequeue_curr(struct cfs_sched *cs, struct cfs_rq *rq, uint64_t now,
			 enum cfs_task_state state)
{
	update_curr(cs, rq, now);
	cs->se[rq->curr].state = state;
	clear_buddies(rq, rq->curr);
	rq->curr = -1;
	rq->need_resched = CFS_RESCHED_NONE;
}

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

/* --- API ----------------------------------------------------------------- */

static int params_ok(const struct cfs_params *p, const struct cpu_sys *sys, uint32_t nr_tasks)
{
	return sys->nr_cpus > 0 && sys->k.clock_ghz > 0 && nr_tasks > 0 && p->hz > 0 &&
	       p->hz <= 100000 && p->sched_latency_ns > 0 && p->min_granularity_ns > 0;
}

int cfs_create(const struct cfs_params *p, struct cpu_sys *sys, uint32_t nr_tasks,
	       struct cfs_sched **out)
{
	*out = NULL;
	if (!params_ok(p, sys, nr_tasks))
		return NS_EINPUT;
	struct cfs_sched *cs = calloc(1, sizeof *cs);
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
	free(cs);
}

static int cpu_ok(const struct cfs_sched *cs, int cpu)
{
	return cpu >= 0 && cpu < cs->sys->nr_cpus;
}

int cfs_wake_up_new_task(struct cfs_sched *cs, uint32_t t, int cpu)
{
	if (t >= cs->nr_tasks || !cpu_ok(cs, cpu) || cs->se[t].state != CFS_TASK_NEW)
		return NS_EINTERNAL;
	cs->se[t].cpu = cpu;
	cs->se[t].state = CFS_TASK_RUNNABLE;
	queue_push(&cs->rq[cpu], t);
	return NS_OK;
}

int cfs_try_to_wake_up(struct cfs_sched *cs, uint32_t t, int waker_cpu, int *cpu)
{
	if (t >= cs->nr_tasks || !cpu_ok(cs, waker_cpu) || cs->se[t].state != CFS_TASK_SLEEPING)
		return NS_EINTERNAL;
	struct sched_entity *se = &cs->se[t];
	struct cfs_rq *rq = &cs->rq[se->cpu];

	cpu_work(&cs->sys->cpu[waker_cpu], cs->params.wake_cycles);
	/* ttwu_do_activate -> enqueue_entity(ENQUEUE_WAKEUP) */
	update_curr(cs, rq, cs->sys->cpu[se->cpu].now);
	place_entity(cs, rq, se);
	se->state = CFS_TASK_RUNNABLE;
	queue_push(rq, t);
	cs->stats.wakeups++;
	check_preempt_wakeup(cs, rq, t);
	*cpu = se->cpu;
	return NS_OK;
}

int64_t cfs_pick_next(struct cfs_sched *cs, int cpu)
{
	struct cfs_rq *rq = &cs->rq[cpu];
	if (rq->curr >= 0)
		return rq->curr;
	if (!rq->nr_queued)
		return -1;
	struct cpu *c = &cs->sys->cpu[cpu];
	uint32_t t = pick_next_entity(cs, rq);
	/* context_switch, unless the task put back is picked again */
	if ((int64_t)t != rq->preempted) {
		cpu_work(c, cs->params.ctx_switch_cycles);
		cs->stats.ctx_switches++;
		if (rq->preempted >= 0) {
			cs->stats.preemptions++;
			cs->stats.wake_preemptions += rq->need_resched == CFS_RESCHED_WAKEUP;
		}
	}
	/* set_next_entity */
	rq->curr = t;
	rq->preempted = -1;
	rq->need_resched = CFS_RESCHED_NONE;
	cs->se[t].state = CFS_TASK_RUNNING;
	rq->exec_start = c->now;
	rq->slice_start = c->now;
	return t;
}

void cfs_tick(struct cfs_sched *cs, int cpu)
{
	struct cfs_rq *rq = &cs->rq[cpu];
	uint64_t now = cs->sys->cpu[cpu].now;
	if (now < rq->next_tick)
		return;
	rq->next_tick = (now / cs->sysctl.tick + 1) * cs->sysctl.tick;
	if (rq->curr >= 0)
		check_preempt_tick(cs, rq, now);
}

int cfs_sleep(struct cfs_sched *cs, int cpu)
{
	if (!cpu_ok(cs, cpu) || cs->rq[cpu].curr < 0)
		return NS_EINTERNAL;
	dequeue_curr(cs, &cs->rq[cpu], cs->sys->cpu[cpu].now, CFS_TASK_SLEEPING);
	return NS_OK;
}

int cfs_task_dead(struct cfs_sched *cs, int cpu)
{
	if (!cpu_ok(cs, cpu) || cs->rq[cpu].curr < 0)
		return NS_EINTERNAL;
	dequeue_curr(cs, &cs->rq[cpu], cs->sys->cpu[cpu].now, CFS_TASK_DEAD);
	return NS_OK;
}

void cfs_return_to_user(struct cfs_sched *cs, int cpu)
{
	struct cfs_rq *rq = &cs->rq[cpu];
	if (rq->curr < 0 || !rq->need_resched)
		return;
	/* put_prev_entity: back in the queue; pick_next_entity decides */
	update_curr(cs, rq, cs->sys->cpu[cpu].now);
	cs->se[rq->curr].state = CFS_TASK_RUNNABLE;
	queue_push(rq, (uint32_t)rq->curr);
	rq->preempted = rq->curr;
	rq->curr = -1;
}

enum cfs_task_state cfs_task_state(const struct cfs_sched *cs, uint32_t t)
{
	return cs->se[t].state;
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
