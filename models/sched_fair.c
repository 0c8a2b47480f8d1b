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
#include "cost/charge.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* --- charging (cost/charge.h) ------------------------------------------- */

/* The scheduler charges no branch sites or functions of its own: memory
 * (a run queue's line, a task's hot bytes) and work only, with no
 * same-line shortcut and no fast copy, so it needs no context. */
#define SCHED_CHARGE 0u

static inline void mem(struct cpu *c, uint64_t addr, uint32_t bytes, int node,
		       enum cpu_access kind)
{
	charge_mem(c, NULL, addr, bytes, node, kind, false, SCHED_CHARGE);
}

static inline void work(struct cpu *c, uint32_t cycles)
{
	charge_work(c, cycles, SCHED_CHARGE);
}

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

/* update_curr: charge curr's vruntime up to now (1:1, nice 0).  With v5.9
 * placement exactly fair.c: return early without curr or elapsed time.
 * With placement none update_min_vruntime runs in those cases too: the
 * model's behaviour before the placement work, kept bit for bit so that
 * placement none reproduces the results measured with it. */
static void update_curr(const struct cfs_sched *cs, struct cfs_rq *rq, uint64_t now)
{
	if (rq->curr >= 0 && now > rq->exec_start) {
		cs->se[rq->curr].vruntime += now - rq->exec_start;
		rq->exec_start = now;
	} else if (cs->params.placement == CFS_PLACEMENT_V59) {
		return;
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

/* check_preempt_tick, at a tick while rq->curr runs; the slice-expired
 * case clears curr's buddies with v5.9 placement as fair.c does, not with
 * placement none (see update_curr). */
static void check_preempt_tick(struct cfs_sched *cs, struct cfs_rq *rq, uint64_t now)
{
	update_curr(cs, rq, now);
	if (!rq->nr_queued || rq->need_resched)
		return;
	uint64_t ideal = sched_slice(cs, rq->nr_queued + 1);
	uint64_t delta_exec = now - rq->slice_start;
	if (delta_exec > ideal) {
		rq->need_resched = CFS_RESCHED_TICK;
		/* fair.c: "ensure it doesn't get re-elected due to buddy favours";
		 * not with placement none (its results were measured without) */
		if (cs->params.placement == CFS_PLACEMENT_V59)
			clear_buddies(rq, rq->curr);
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
	cs->se[rq->curr].last_ran = now;
	cs->se[rq->curr].state = state;
	clear_buddies(rq, rq->curr);
	rq->curr = -1;
	rq->need_resched = CFS_RESCHED_NONE;
	/* dequeue_entity ends with update_min_vruntime, curr no longer on_rq */
	if (cs->params.placement == CFS_PLACEMENT_V59)
		update_min_vruntime(cs, rq);
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

/* --- v5.9 placement (select_task_rq_fair, load balancing) ---------------- */

/*
 * Costs of the placement code, besides the memory it touches (charged by
 * cpu_mem through the cost model: each probed CPU's rq line, the task's
 * lines at switch-in):
 *   SIS_PROBE_WORK 6: one iteration of select_idle_cpu's
 *     for_each_cpu_wrap loop or of a group's CPU loop in
 *     update_sg_lb_stats: cpumask_next (find_next_bit, ~10 instructions)
 *     and the rq field tests (~8), ~18 instructions at 3 per cycle.
 *   SELECT_WORK 60: select_task_rq_fair's straight-line code without the
 *     probes (record_wakee, wake_wide, the domain walk, wake_affine's
 *     arithmetic): ~180 instructions.
 *   LB_WORK 300: load_balance's straight-line part (env set-up,
 *     update_sd_lb_stats' group loop bookkeeping, calculate_imbalance,
 *     detach/attach bookkeeping) without the per-CPU probes: ~900
 *     instructions.
 *   TASK_HOT_BYTES 512: the task lines schedule() and the return to user
 *     mode touch on the CPU it is switched in on: 3 lines of sched_entity
 *     and task flags, 1 of thread_struct (sp, fsbase), 3 of pt_regs (168
 *     bytes) and 1 of the stack frames of __schedule/switch_to.  After a
 *     migration they are on the old CPU (a transfer) or in memory.
 * These are estimates from the code's size, not measurements.
 */
enum { SIS_PROBE_WORK = 6, SELECT_WORK = 60, LB_WORK = 300, TASK_HOT_BYTES = 512 };
#define SCHED_CAPACITY_SCALE 1024.0
#define PELT_PERIOD_NS 1024000.0          /* 1024 us */
#define SYSCTL_NR_MIGRATE 32              /* sysctl_sched_nr_migrate */

static int v59(const struct cfs_sched *cs)
{
	return cs->params.placement == CFS_PLACEMENT_V59;
}

static double cycles_to_ns(const struct cfs_sched *cs, uint64_t c)
{
	return (double)c / cs->sys->k.clock_ghz;
}

/* PELT's geometric series, continuous: y^(dt / 1024 us), y^32 = 1/2
 * (the kernel sums whole 1024-us periods; the continuous form differs by
 * less than one period's share, 2 %, and needs no segment bookkeeping). */
static double pelt_decay(const struct cfs_sched *cs, uint64_t dt)
{
	return exp2(-cycles_to_ns(cs, dt) / (32.0 * PELT_PERIOD_NS));
}

/* update_load_avg for task t at its CPU's clock. */
static void se_update(struct cfs_sched *cs, uint32_t t, uint64_t now)
{
	struct sched_entity *se = &cs->se[t];
	if (now <= se->avg_stamp)
		return;
	double f = pelt_decay(cs, now - se->avg_stamp);
	double runnable = se->state == CFS_TASK_RUNNABLE || se->state == CFS_TASK_RUNNING;
	double running = se->state == CFS_TASK_RUNNING;
	se->load_avg = se->load_avg * f + 1024.0 * runnable * (1 - f);
	se->util_avg = se->util_avg * f + 1024.0 * running * (1 - f);
	se->avg_stamp = now;
}

/* update_cfs_rq_load_avg: the rq's signal, blocked load decaying in it. */
static void rq_update(struct cfs_sched *cs, int cpu, uint64_t now)
{
	struct cfs_rq *rq = &cs->rq[cpu];
	if (now <= rq->avg_stamp)
		return;
	double f = pelt_decay(cs, now - rq->avg_stamp);
	double nr = rq->nr_queued + (rq->curr >= 0);
	rq->load_avg = rq->load_avg * f + 1024.0 * nr * (1 - f);
	rq->util_avg = rq->util_avg * f + 1024.0 * (rq->curr >= 0) * (1 - f);
	rq->avg_stamp = now;
}

void cfs_update_load(struct cfs_sched *cs, int cpu)
{
	uint64_t now = cs->sys->cpu[cpu].now;
	rq_update(cs, cpu, now);
	struct cfs_rq *rq = &cs->rq[cpu];
	if (rq->curr >= 0)
		se_update(cs, (uint32_t)rq->curr, now);
	for (uint32_t i = 0; i < rq->nr_queued; i++)
		se_update(cs, rq->queue[i], now);
}

/* Both signals before task t changes state on cpu. */
static void pelt_before(struct cfs_sched *cs, uint32_t t, int cpu)
{
	if (!v59(cs))
		return;
	uint64_t now = cs->sys->cpu[cpu].now;
	rq_update(cs, cpu, now);
	se_update(cs, t, now);
}

static uint32_t rq_nr_running(const struct cfs_sched *cs, int cpu)
{
	return cs->rq[cpu].nr_queued + (cs->rq[cpu].curr >= 0);
}

/* idle_cpu() of cpu as CPU `from` reads it: rq->curr, nr_running and
 * ttwu_pending share the rq's hot line. */
static int probe_idle(struct cfs_sched *cs, int from, int cpu)
{
	struct cpu *c = &cs->sys->cpu[from];
	mem(c, cs->rq[cpu].addr, 8, cs->topo->node[cpu], CPU_LOAD_DEP);
	work(c, SIS_PROBE_WORK);
	return rq_nr_running(cs, cpu) == 0;
}

static uint64_t *sd_stat(struct cfs_sched *cs, int cpu, const struct sched_domain *sd)
{
	return &cs->sd_stat[((size_t)cpu * SCHED_TOPO_MAX_LEVELS + (size_t)sd->level) *
			    CFS_NR_SD_STATS];
}

/* record_wakee: the waker's flips, halved every second. */
static void record_wakee(struct cfs_sched *cs, int64_t current, uint32_t t, uint64_t now)
{
	if (current < 0)
		return;
	struct sched_entity *w = &cs->se[current];
	uint64_t hz_cycles = cs->sysctl.tick * cs->params.hz;
	if (now > w->wakee_flip_decay_ts + hz_cycles) {
		w->wakee_flips >>= 1;
		w->wakee_flip_decay_ts = now;
	}
	if (w->last_wakee != (int64_t)t) {
		w->last_wakee = t;
		w->wakee_flips++;
	}
}

/* wake_wide: 1 when the waker and wakee flip among more partners than the LLC has CPUs. */
static int wake_wide(const struct cfs_sched *cs, int64_t current, uint32_t t, int cpu)
{
	if (current < 0)
		return 0;
	uint32_t master = cs->se[current].wakee_flips, slave = cs->se[t].wakee_flips;
	uint32_t factor = (uint32_t)cs->topo->llc_size[cpu];
	if (master < slave) {
		uint32_t x = master;
		master = slave;
		slave = x;
	}
	return !(slave < factor || master < slave * factor);
}

/* wake_affine_idle; -1 for nr_cpumask_bits. */
static int wake_affine_idle(struct cfs_sched *cs, int this_cpu, int prev_cpu, int sync)
{
	if (probe_idle(cs, this_cpu, this_cpu) &&
	    sched_topo_share_cache(cs->topo, this_cpu, prev_cpu))
		return probe_idle(cs, this_cpu, prev_cpu) ? prev_cpu : this_cpu;
	if (sync && rq_nr_running(cs, this_cpu) == 1)
		return this_cpu;
	return -1;
}

/* wake_affine_weight (WA_BIAS; equal capacities cancel). */
static int wake_affine_weight(struct cfs_sched *cs, const struct sched_domain *sd, uint32_t t,
			      int this_cpu, int prev_cpu, int sync)
{
	struct cpu *c = &cs->sys->cpu[this_cpu];
	cfs_update_load(cs, this_cpu);
	mem(c, cs->rq[prev_cpu].addr, 8, cs->topo->node[prev_cpu], CPU_LOAD_DEP);
	double this_eff_load = cs->rq[this_cpu].load_avg;
	int64_t current = cs->rq[this_cpu].curr;
	if (sync && current >= 0) {
		double current_load = cs->se[current].load_avg;
		if (current_load > this_eff_load)
			return this_cpu;
		this_eff_load -= current_load;
	}
	double task_load = cs->se[t].load_avg;
	this_eff_load += task_load;
	this_eff_load *= 100;
	double prev_eff_load = cs->rq[prev_cpu].load_avg - task_load;
	prev_eff_load *= 100 + (sd->imbalance_pct - 100) / 2;
	if (sync)
		prev_eff_load += 1;
	return this_eff_load < prev_eff_load ? this_cpu : -1;
}

int cfs_wake_affine(struct cfs_sched *cs, const struct sched_domain *sd, uint32_t t,
		    int this_cpu, int prev_cpu, int sync)
{
	int target = wake_affine_idle(cs, this_cpu, prev_cpu, sync);
	if (target < 0)
		target = wake_affine_weight(cs, sd, t, this_cpu, prev_cpu, sync);
	cs->rq[this_cpu].stat[CFS_CPU_nr_wakeups_affine_attempts]++;
	if (target < 0)
		return prev_cpu;
	sd_stat(cs, this_cpu, sd)[CFS_SD_ttwu_move_affine]++;
	cs->rq[this_cpu].stat[CFS_CPU_nr_wakeups_affine]++;
	return target;
}

/* All hardware threads of cpu's core idle (the core of select_idle_core). */
static int core_idle(struct cfs_sched *cs, int from, int cpu)
{
	int sib = cs->topo->smt_sibling[cpu];
	return probe_idle(cs, from, cpu) && (sib < 0 || probe_idle(cs, from, sib));
}

/* select_idle_core: an idle core of the LLC, scanned from target. */
static int select_idle_core(struct cfs_sched *cs, const struct sched_domain *llc, int from,
			    int target)
{
	if (cs->topo->smt_sibling[target] < 0 || !cs->has_idle_cores[cs->topo->llc_id[target]])
		return -1;
	uint32_t start = 0;
	while (llc->span[start] != target)
		start++;
	for (uint32_t k = 0; k < llc->span_weight; k++) {
		int cpu = llc->span[(start + k) % llc->span_weight];
		int sib = cs->topo->smt_sibling[cpu];
		if (sib >= 0 && sib < cpu && sched_domain_has(llc, sib))
			continue;         /* each core once, by its first thread */
		if (core_idle(cs, from, cpu))
			return cpu;
	}
	cs->has_idle_cores[cs->topo->llc_id[target]] = 0;   /* set_idle_cores(target, 0) */
	return -1;
}

/* select_idle_cpu with SIS_PROP: scan at most nr CPUs of the LLC from target. */
static int select_idle_cpu(struct cfs_sched *cs, const struct sched_domain *llc, int from,
			   int target)
{
	struct cpu *c = &cs->sys->cpu[from];
	double avg_idle = cycles_to_ns(cs, cs->rq[from].avg_idle) / 512;
	double avg_cost = (double)cs->avg_scan_cost[cs->topo->llc_id[from]] + 1;
	double span_avg = llc->span_weight * avg_idle;
	long nr = span_avg > 4 * avg_cost ? (long)(span_avg / avg_cost) : 4;
	uint64_t t0 = cpu_now(c);
	int found = -1;
	uint32_t start = 0;
	while (llc->span[start] != target)
		start++;
	for (uint32_t k = 0; k < llc->span_weight; k++) {
		int cpu = llc->span[(start + k) % llc->span_weight];
		if (!--nr)
			return -1;
		if (probe_idle(cs, from, cpu)) {
			found = cpu;
			break;
		}
	}
	/* update_avg(&this_sd->avg_scan_cost, time) */
	uint64_t *avg = &cs->avg_scan_cost[cs->topo->llc_id[from]];
	int64_t diff = (int64_t)cycles_to_ns(cs, cpu_now(c) - t0) - (int64_t)*avg;
	*avg = (uint64_t)((int64_t)*avg + diff / 8);
	return found;
}

/* select_idle_smt: an idle sibling of target. */
static int select_idle_smt(struct cfs_sched *cs, int from, int target)
{
	int sib = cs->topo->smt_sibling[target];
	return sib >= 0 && probe_idle(cs, from, sib) ? sib : -1;
}

int cfs_select_idle_sibling(struct cfs_sched *cs, uint32_t t, int from, int prev, int target)
{
	struct sched_topo *tp = cs->topo;
	struct sched_entity *se = &cs->se[t];
	if (probe_idle(cs, from, target))
		return target;
	if (prev != target && sched_topo_share_cache(tp, prev, target) &&
	    probe_idle(cs, from, prev))
		return prev;
	int recent = se->recent_used_cpu;
	if (recent >= 0 && recent != prev && recent != target &&
	    sched_topo_share_cache(tp, recent, target) && probe_idle(cs, from, recent)) {
		se->recent_used_cpu = prev;
		return recent;
	}
	const struct sched_domain *llc = sched_topo_llc(tp, target);
	if (!llc)
		return target;
	int i = select_idle_core(cs, llc, from, target);
	if (i >= 0) {
		cs->rq[from].stat[CFS_CPU_sis_idle_core]++;
		return i;
	}
	i = select_idle_cpu(cs, llc, from, target);
	if (i < 0)
		i = select_idle_smt(cs, from, target);
	cs->rq[from].stat[i >= 0 ? CFS_CPU_sis_idle_cpu : CFS_CPU_sis_fail]++;
	return i >= 0 ? i : target;
}

/* select_task_rq_fair(p, prev_cpu, SD_BALANCE_WAKE, WF_SYNC) on the waker's CPU. */
int cfs_select_task_rq(struct cfs_sched *cs, uint32_t t, int cpu)
{
	struct cpu *c = &cs->sys->cpu[cpu];
	int prev = cs->se[t].cpu, new_cpu = prev;
	int64_t current = cs->rq[cpu].curr;
	work(c, SELECT_WORK);
	record_wakee(cs, current, t, cpu_now(c));
	int want_affine = !wake_wide(cs, current, t, cpu);
	for (int l = 0; l < cs->topo->nr_domains[cpu]; l++) {
		const struct sched_domain *sd = sched_topo_sd(cs->topo, cpu, l);
		if (want_affine && (sd->flags & SD_WAKE_AFFINE) && sched_domain_has(sd, prev)) {
			if (cpu != prev)
				new_cpu = cfs_wake_affine(cs, sd, t, cpu, prev, 1);
			break;
		}
		if (!want_affine)
			break;            /* no domain has SD_BALANCE_WAKE */
	}
	new_cpu = cfs_select_idle_sibling(cs, t, cpu, prev, new_cpu);
	if (want_affine && current >= 0)
		cs->se[current].recent_used_cpu = cpu;
	return new_cpu;
}

/* migrate_task_rq_fair + set_task_cpu for a task off any run queue (a
 * waking task, or one detach_task dequeued): vruntime relative to the old
 * queue's min_vruntime becomes relative to the new one's (the kernel
 * subtracts at dequeue or migration and adds at enqueue), and its PELT
 * load leaves the old cfs_rq (remove_entity_load_avg) for the new one
 * (attach_entity_load_avg). */
static void migrate_task(struct cfs_sched *cs, uint32_t t, int to)
{
	struct sched_entity *se = &cs->se[t];
	int from = se->cpu;
	uint64_t now = cs->sys->cpu[from].now;
	rq_update(cs, from, now);
	se_update(cs, t, now);
	struct cfs_rq *src = &cs->rq[from], *dst = &cs->rq[to];
	uint64_t rel = se->vruntime > src->min_vruntime ? se->vruntime - src->min_vruntime : 0;
	se->vruntime = dst->min_vruntime + rel;
	src->load_avg = src->load_avg > se->load_avg ? src->load_avg - se->load_avg : 0;
	src->util_avg = src->util_avg > se->util_avg ? src->util_avg - se->util_avg : 0;
	rq_update(cs, to, cs->sys->cpu[to].now);
	dst->load_avg += se->load_avg;
	dst->util_avg += se->util_avg;
	se->avg_stamp = cs->sys->cpu[to].now;
	se->cpu = to;
	src->stat[CFS_CPU_nr_migrations]++;
	cs->stats.migrations++;
}

/* ttwu_stat on the waker's CPU. */
static void ttwu_stat(struct cfs_sched *cs, int this_cpu, int cpu)
{
	struct cfs_rq *rq = &cs->rq[this_cpu];
	rq->stat[CFS_CPU_ttwu_count]++;
	if (cpu == this_cpu) {
		rq->stat[CFS_CPU_ttwu_local]++;
		return;
	}
	for (int l = 0; l < cs->topo->nr_domains[this_cpu]; l++) {
		const struct sched_domain *sd = sched_topo_sd(cs->topo, this_cpu, l);
		if (sched_domain_has(sd, cpu)) {
			sd_stat(cs, this_cpu, sd)[CFS_SD_ttwu_wake_remote]++;
			return;
		}
	}
}

/* The v5.9 part of try_to_wake_up before ttwu_do_activate: the CPU, the
 * migration, the rq lock or wake list, ttwu_do_wakeup's avg_idle. */
static void ttwu_place(struct cfs_sched *cs, uint32_t t, int waker_cpu)
{
	struct cpu *w = &cs->sys->cpu[waker_cpu];
	int cpu = cfs_select_task_rq(cs, t, waker_cpu);
	ttwu_stat(cs, waker_cpu, cpu);
	if (cpu != cs->se[t].cpu)
		migrate_task(cs, t, cpu);
	/* ttwu_queue: same LLC, the waker takes the target's rq lock;
	 * otherwise ttwu_queue_wakelist (an IPI; the target enqueues) */
	if (sched_topo_share_cache(cs->topo, waker_cpu, cpu))
		cpu_atomic(w, cs->rq[cpu].addr, cs->topo->node[cpu]);
	struct cfs_rq *rq = &cs->rq[cpu];
	if (rq->idle_stamp) {
		uint64_t now = cs->sys->cpu[cpu].now > w->now ? cs->sys->cpu[cpu].now : w->now;
		uint64_t delta = now > rq->idle_stamp ? now - rq->idle_stamp : 0;
		uint64_t max = 2 * cs->migration_cost;
		if (rq->avg_idle > max)
			rq->avg_idle = max;
		else
			rq->avg_idle = (uint64_t)((int64_t)rq->avg_idle +
						  ((int64_t)delta - (int64_t)rq->avg_idle) / 8);
		rq->idle_stamp = 0;
	}
}

/* --- load balancing (find_busiest_group, calculate_imbalance, ...) ------- */

enum group_type { group_has_spare, group_fully_busy, group_overloaded };
enum migration_type { migrate_load, migrate_util, migrate_nr_task };

struct sg_lb_stats {
	double group_load, group_util, avg_load, group_capacity;
	uint32_t sum_nr_running, idle_cpus, group_weight;
	enum group_type group_type;
};

struct lb_env {
	int dst_cpu, src_cpu;
	struct sched_domain *sd;
	enum cfs_idle idle;
	enum migration_type migration_type;
	double imbalance;
	int prefer_sibling;
	struct sg_lb_stats local, busiest;
	const struct sched_group *busiest_group;
	double total_load, total_capacity, avg_load;
};

/* update_sg_lb_stats over group g of the domain, read by dst_cpu.  Group
 * types from nr_running alone: has_spare below one task per CPU,
 * overloaded above (the utilisation tests of group_has_capacity and
 * group_is_overloaded agree for tasks that never sleep long; for short
 * sleepers the kernel may call a group with spare CPUs fully busy). */
static void update_sg_lb_stats(struct cfs_sched *cs, struct lb_env *env,
			       const struct sched_group *g, struct sg_lb_stats *sgs)
{
	memset(sgs, 0, sizeof *sgs);
	for (uint32_t i = 0; i < g->weight; i++) {
		int cpu = env->sd->span[g->first + i];
		probe_idle(cs, env->dst_cpu, cpu);
		rq_update(cs, cpu, cs->sys->cpu[cpu].now);
		uint32_t nr = rq_nr_running(cs, cpu);
		sgs->group_load += cs->rq[cpu].load_avg;
		sgs->group_util += cs->rq[cpu].util_avg;
		sgs->sum_nr_running += nr;
		sgs->idle_cpus += nr == 0;
	}
	sgs->group_weight = g->weight;
	sgs->group_capacity = SCHED_CAPACITY_SCALE * g->weight;
	sgs->group_type = sgs->sum_nr_running < g->weight ? group_has_spare
			  : sgs->sum_nr_running > g->weight ? group_overloaded
							     : group_fully_busy;
	if (sgs->group_type == group_overloaded)
		sgs->avg_load = sgs->group_load * SCHED_CAPACITY_SCALE / sgs->group_capacity;
}

/* update_sd_pick_busiest: sgs busier than the busiest so far. */
static int pick_busiest(const struct sg_lb_stats *sgs, const struct sg_lb_stats *busiest,
			int have)
{
	if (!have)
		return sgs->sum_nr_running > 0;
	if (sgs->group_type != busiest->group_type)
		return sgs->group_type > busiest->group_type;
	switch (sgs->group_type) {
	case group_overloaded:
		return sgs->avg_load > busiest->avg_load;
	case group_fully_busy:
		return sgs->avg_load >= busiest->avg_load;   /* avg_load 0 here: ties go later */
	case group_has_spare:
		if (sgs->idle_cpus != busiest->idle_cpus)
			return sgs->idle_cpus < busiest->idle_cpus;
		return sgs->sum_nr_running > busiest->sum_nr_running;
	}
	return 0;
}

/* adjust_numa_imbalance (v5.9): allow an imbalance of up to 2 tasks. */
static double adjust_numa_imbalance(double imbalance, uint32_t src_nr_running)
{
	return src_nr_running <= 2 ? 0 : imbalance;
}

/* calculate_imbalance. */
static void calculate_imbalance(struct lb_env *env)
{
	struct sg_lb_stats *local = &env->local, *busiest = &env->busiest;
	if (local->group_type == group_has_spare) {
		if (busiest->group_type > group_fully_busy) {
			env->migration_type = migrate_util;
			double cap = local->group_capacity > local->group_util
				     ? local->group_capacity : local->group_util;
			env->imbalance = cap - local->group_util;
			if (env->idle != CFS_CPU_NOT_IDLE && env->imbalance <= 0) {
				env->migration_type = migrate_nr_task;
				env->imbalance = 1;
			}
			return;
		}
		env->migration_type = migrate_nr_task;
		if (busiest->group_weight == 1 || env->prefer_sibling) {
			uint32_t nr_diff = busiest->sum_nr_running > local->sum_nr_running
					   ? busiest->sum_nr_running - local->sum_nr_running : 0;
			env->imbalance = nr_diff >> 1;
		} else {
			long d = ((long)local->idle_cpus - (long)busiest->idle_cpus) >> 1;
			env->imbalance = d > 0 ? (double)d : 0;
		}
		if (env->sd->flags & SD_NUMA)
			env->imbalance = adjust_numa_imbalance(env->imbalance,
							       busiest->sum_nr_running);
		return;
	}
	if (local->group_type < group_overloaded) {
		local->avg_load = local->group_load * SCHED_CAPACITY_SCALE / local->group_capacity;
		env->avg_load = env->total_load * SCHED_CAPACITY_SCALE / env->total_capacity;
	}
	env->migration_type = migrate_load;
	double a = (busiest->avg_load - env->avg_load) * busiest->group_capacity;
	double b = (env->avg_load - local->avg_load) * local->group_capacity;
	env->imbalance = (a < b ? a : b) / SCHED_CAPACITY_SCALE;
}

/* find_busiest_group: 1 with env->imbalance > 0 when there is work to move. */
static int find_busiest_group(struct cfs_sched *cs, struct lb_env *env)
{
	struct sched_domain *sd = env->sd;
	struct sg_lb_stats sgs;
	int have = 0;
	env->total_load = env->total_capacity = 0;
	env->busiest_group = NULL;
	env->prefer_sibling = sched_topo_sd(cs->topo, env->dst_cpu, 0) != sd &&
			      ((sd - 1)->flags & SD_PREFER_SIBLING);	/* the child's flag */
	for (uint32_t g = 0; g < sd->nr_groups; g++) {
		struct sg_lb_stats *s = g == 0 ? &env->local : &sgs;
		update_sg_lb_stats(cs, env, &sd->groups[g], s);
		env->total_load += s->group_load;
		env->total_capacity += s->group_capacity;
		if (g > 0 && pick_busiest(s, &env->busiest, have)) {
			env->busiest = *s;
			env->busiest_group = &sd->groups[g];
			have = 1;
		}
	}
	struct sg_lb_stats *local = &env->local, *busiest = &env->busiest;
	if (!have || busiest->sum_nr_running == 0)
		return 0;
	env->avg_load = env->total_load * SCHED_CAPACITY_SCALE / env->total_capacity;
	if (local->group_type > busiest->group_type)
		return 0;
	if (local->group_type == group_overloaded) {
		if (local->avg_load >= busiest->avg_load || local->avg_load >= env->avg_load ||
		    100 * busiest->avg_load <= sd->imbalance_pct * local->avg_load)
			return 0;
	}
	if (local->group_type == group_has_spare && busiest->group_type != group_overloaded) {
		if (env->idle == CFS_CPU_NOT_IDLE)
			return 0;
		if (busiest->group_weight > 1 && local->idle_cpus <= busiest->idle_cpus + 1)
			return 0;
		if (busiest->sum_nr_running == 1)
			return 0;
	}
	calculate_imbalance(env);
	return env->imbalance > 0;
}

/* --- fork balancing (select_task_rq_fair with SD_BALANCE_FORK) ---------- */

/*
 * update_sg_wakeup_stats of group g of sd for a new task, read by
 * this_cpu.  The new task is on no run queue yet, so the kernel's
 * cpu_load_without / cpu_util_without / idle_cpu_without equal the plain
 * values.  Group types as update_sg_lb_stats classifies them (from
 * nr_running); avg_load for fully busy and overloaded groups, as the
 * wake-up stats compute it (the balance stats only for overloaded ones).
 */
static void update_sg_wakeup_stats(struct cfs_sched *cs, const struct sched_domain *sd,
				   const struct sched_group *g, int this_cpu,
				   struct sg_lb_stats *sgs)
{
	struct lb_env env = {.dst_cpu = this_cpu, .sd = (struct sched_domain *)sd};
	update_sg_lb_stats(cs, &env, g, sgs);
	if (sgs->group_type == group_fully_busy)
		sgs->avg_load = sgs->group_load * SCHED_CAPACITY_SCALE / sgs->group_capacity;
}

/* update_pick_idlest: sgs idler than the idlest so far. */
static int update_pick_idlest(const struct sg_lb_stats *idlest, const struct sg_lb_stats *sgs)
{
	if (sgs->group_type != idlest->group_type)
		return sgs->group_type < idlest->group_type;
	switch (sgs->group_type) {
	case group_overloaded:
	case group_fully_busy:
		return idlest->avg_load > sgs->avg_load;     /* lowest avg_load */
	case group_has_spare:
		if (idlest->idle_cpus > sgs->idle_cpus)
			return 0;                             /* most idle CPUs */
		return !(idlest->idle_cpus == sgs->idle_cpus &&
			 idlest->group_util <= sgs->group_util); /* then lowest util */
	}
	return 0;
}

int cfs_find_idlest_group(struct cfs_sched *cs, const struct sched_domain *sd, int this_cpu)
{
	struct sg_lb_stats local, sgs, idlest = {.avg_load = 1e300,
						 .group_type = group_overloaded};
	int found = -1;
	/* scale_load_down(NICE_0_LOAD) * (imbalance_pct - 100) / 100, integers */
	double imbalance = (double)(1024u * (sd->imbalance_pct - 100) / 100);

	work(&cs->sys->cpu[this_cpu], SELECT_WORK);
	for (uint32_t g = 0; g < sd->nr_groups; g++) {   /* groups[0]: the local group */
		update_sg_wakeup_stats(cs, sd, &sd->groups[g], this_cpu, g ? &sgs : &local);
		if (g && update_pick_idlest(&idlest, &sgs)) {
			idlest = sgs;
			found = (int)g;
		}
	}
	if (found < 0)
		return -1;
	if (local.group_type != idlest.group_type)   /* push only from a busier local group */
		return local.group_type > idlest.group_type ? found : -1;
	switch (local.group_type) {
	case group_overloaded:
	case group_fully_busy:
		/* across nodes, the remote group's load plus the imbalance
		 * must stay below the local one */
		if ((sd->flags & SD_NUMA) && idlest.avg_load + imbalance >= local.avg_load)
			return -1;
		if (idlest.avg_load >= local.avg_load + imbalance)
			return -1;
		if (100 * local.avg_load <= sd->imbalance_pct * idlest.avg_load)
			return -1;
		break;
	case group_has_spare:
		/* no CONFIG_NUMA_BALANCING preferred node (tasks do not fault):
		 * keep the task on this node while it has an idle CPU */
		if ((sd->flags & SD_NUMA) && local.idle_cpus)
			return -1;
		if (local.idle_cpus >= idlest.idle_cpus)
			return -1;
		break;
	}
	return found;
}

/* find_idlest_group_cpu.  Every idle CPU is taken to be in the same idle
 * state (equal exit_latency: the machine file has no C-states), so the
 * shallowest is the most recently idled (rq->idle_stamp), the first in
 * span order among equals; with no idle CPU, the least loaded. */
static int find_idlest_group_cpu(struct cfs_sched *cs, const struct sched_domain *sd,
				 const struct sched_group *g, int this_cpu)
{
	if (g->weight == 1)
		return sd->span[g->first];
	double min_load = 1e300;
	uint64_t latest_idle_timestamp = 0;
	int least_loaded_cpu = this_cpu, shallowest_idle_cpu = -1;
	for (uint32_t i = 0; i < g->weight; i++) {
		int cpu = sd->span[g->first + i];
		if (probe_idle(cs, this_cpu, cpu)) {
			if (shallowest_idle_cpu < 0 ||
			    cs->rq[cpu].idle_stamp > latest_idle_timestamp) {
				latest_idle_timestamp = cs->rq[cpu].idle_stamp;
				shallowest_idle_cpu = cpu;
			}
		} else if (shallowest_idle_cpu < 0 && cs->rq[cpu].load_avg < min_load) {
			min_load = cs->rq[cpu].load_avg;
			least_loaded_cpu = cpu;
		}
	}
	return shallowest_idle_cpu >= 0 ? shallowest_idle_cpu : least_loaded_cpu;
}

/* The index of cpu's domain sd (sd->child is index - 1). */
static int sd_index(const struct cfs_sched *cs, int cpu, const struct sched_domain *sd)
{
	return (int)(sd - sched_topo_sd(cs->topo, cpu, 0));
}

/* find_idlest_cpu from domain l of cpu, for SD_BALANCE_FORK. */
static int find_idlest_cpu(struct cfs_sched *cs, int l, int cpu)
{
	int new_cpu = cpu;
	while (l >= 0) {
		struct sched_domain *sd = sched_topo_sd(cs->topo, cpu, l);
		if (!(sd->flags & SD_BALANCE_FORK)) {
			l--;
			continue;
		}
		uint64_t *st = sd_stat(cs, cpu, sd);
		st[CFS_SD_sbf_count]++;
		int g = cfs_find_idlest_group(cs, sd, cpu);
		if (g < 0) {
			st[CFS_SD_sbf_balanced]++;
			l--;
			continue;
		}
		new_cpu = find_idlest_group_cpu(cs, sd, &sd->groups[g], cpu);
		if (new_cpu == cpu) {
			l--;                      /* a lower level of cpu */
			continue;
		}
		st[CFS_SD_sbf_pushed]++;
		/* a lower level of new_cpu: its highest fork domain below sd's weight */
		uint32_t weight = sd->span_weight;
		cpu = new_cpu;
		l = -1;
		for (int k = 0; k < cs->topo->nr_domains[cpu]; k++) {
			const struct sched_domain *tmp = sched_topo_sd(cs->topo, cpu, k);
			if (weight <= tmp->span_weight)
				break;
			if (tmp->flags & SD_BALANCE_FORK)
				l = sd_index(cs, cpu, tmp);
		}
	}
	return new_cpu;
}

/* select_task_rq_fair(p, parent_cpu, SD_BALANCE_FORK, 0) on the parent's
 * CPU: no wake_affine (want_affine is for SD_BALANCE_WAKE only); the
 * highest domain with SD_BALANCE_FORK below the first without it; then
 * find_idlest_cpu, else the parent's CPU. */
int cfs_select_task_rq_fork(struct cfs_sched *cs, uint32_t t, int parent_cpu)
{
	(void)t;                          /* every CPU is in p->cpus_ptr */
	int sd = -1;
	work(&cs->sys->cpu[parent_cpu], SELECT_WORK);
	for (int l = 0; l < cs->topo->nr_domains[parent_cpu]; l++) {
		if (!(sched_topo_sd(cs->topo, parent_cpu, l)->flags & SD_BALANCE_FORK))
			break;
		sd = l;
	}
	return sd >= 0 ? find_idlest_cpu(cs, sd, parent_cpu) : parent_cpu;
}

/* find_busiest_queue in the busiest group. */
static int find_busiest_queue(struct cfs_sched *cs, struct lb_env *env)
{
	const struct sched_group *g = env->busiest_group;
	int best = -1;
	double best_v = 0;
	for (uint32_t i = 0; i < g->weight; i++) {
		int cpu = env->sd->span[g->first + i];
		uint32_t nr = rq_nr_running(cs, cpu);
		double v;
		switch (env->migration_type) {
		case migrate_load:
			v = cs->rq[cpu].load_avg;
			if (nr == 1 && v > env->imbalance)
				continue;
			break;
		case migrate_util:
			v = cs->rq[cpu].util_avg;
			if (nr <= 1)
				continue;
			break;
		default:
			v = nr;
			break;
		}
		if (nr > 1 || env->migration_type == migrate_load)
			if (best < 0 || v > best_v) {
				best = cpu;
				best_v = v;
			}
	}
	return best;
}

/* can_migrate_task: not running (queued only), not cache hot unless the
 * domain failed more than cache_nice_tries times. */
static int can_migrate_task(struct cfs_sched *cs, struct lb_env *env, uint32_t t)
{
	uint64_t now = cs->sys->cpu[env->src_cpu].now;
	int hot = now < cs->se[t].last_ran + cs->migration_cost;
	return !hot || env->sd->nr_balance_failed > env->sd->cache_nice_tries;
}

/* detach_tasks + attach_tasks: from the oldest queued task on (the tail of
 * rq->cfs_tasks; the kernel also rotates skipped tasks to the head, not
 * modelled), at most sysctl_sched_nr_migrate looked at. */
static int move_tasks(struct cfs_sched *cs, struct lb_env *env)
{
	struct cfs_rq *src = &cs->rq[env->src_cpu], *dst = &cs->rq[env->dst_cpu];
	uint32_t loop_max = rq_nr_running(cs, env->src_cpu);
	loop_max = loop_max < SYSCTL_NR_MIGRATE ? loop_max : SYSCTL_NR_MIGRATE;
	int moved = 0;
	update_curr(cs, src, cs->sys->cpu[env->src_cpu].now);
	for (uint32_t i = 0, loop = 0; i < src->nr_queued && loop < loop_max; loop++) {
		if (rq_nr_running(cs, env->src_cpu) <= 1)
			break;
		uint32_t t = src->queue[i];
		if ((int64_t)t == src->preempted || !can_migrate_task(cs, env, t)) {
			i++;
			continue;
		}
		double load = cs->se[t].load_avg, util = cs->se[t].util_avg;
		if (env->migration_type == migrate_load) {
			if (load / 2 > env->imbalance &&
			    env->sd->nr_balance_failed <= env->sd->cache_nice_tries) {
				i++;
				continue;
			}
			env->imbalance -= load;
		} else if (env->migration_type == migrate_util) {
			if (util > env->imbalance) {
				i++;
				continue;
			}
			env->imbalance -= util;
		} else {
			env->imbalance -= 1;
		}
		/* detach_task: deactivate_task (DEQUEUE_NOCLOCK), set_task_cpu */
		queue_remove_at(src, i);
		clear_buddies(src, t);
		migrate_task(cs, t, env->dst_cpu);
		/* attach_task: activate_task, check_preempt_curr */
		update_curr(cs, dst, cs->sys->cpu[env->dst_cpu].now);
		queue_push(dst, t);
		check_preempt_wakeup(cs, dst, t);
		moved++;
		if (env->idle == CFS_CPU_NEWLY_IDLE || env->imbalance <= 0)
			break;
	}
	update_min_vruntime(cs, src);
	return moved;
}

/* should_we_balance: the first idle CPU of the local group, else its first CPU. */
static int should_we_balance(struct cfs_sched *cs, const struct lb_env *env)
{
	if (env->idle == CFS_CPU_NEWLY_IDLE)
		return 1;
	const struct sched_group *g = &env->sd->groups[0];
	for (uint32_t i = 0; i < g->weight; i++) {
		int cpu = env->sd->span[g->first + i];
		if (rq_nr_running(cs, cpu) == 0)
			return cpu == env->dst_cpu;
	}
	return env->sd->span[g->first] == env->dst_cpu;
}

int cfs_load_balance(struct cfs_sched *cs, int this_cpu, struct sched_domain *sd,
		     enum cfs_idle idle, long *imbalance)
{
	struct lb_env env = {.dst_cpu = this_cpu, .sd = sd, .idle = idle};
	uint64_t *st = sd_stat(cs, this_cpu, sd);
	int newidle = idle == CFS_CPU_NEWLY_IDLE;
	if (imbalance)
		*imbalance = 0;
	if (!should_we_balance(cs, &env))
		return 0;
	work(&cs->sys->cpu[this_cpu], LB_WORK);
	st[newidle ? CFS_SD_newidle_lb_count : CFS_SD_lb_count]++;
	if (!find_busiest_group(cs, &env)) {
		st[env.busiest_group ? CFS_SD_lb_balanced : CFS_SD_lb_nobusyg]++;
		sd->nr_balance_failed = 0;
		if (!newidle && sd->balance_interval < sd->max_interval)
			sd->balance_interval *= 2;
		return 0;
	}
	if (imbalance)
		*imbalance = (long)env.imbalance;
	st[CFS_SD_lb_imbalance] += (uint64_t)env.imbalance;
	env.src_cpu = find_busiest_queue(cs, &env);
	if (env.src_cpu < 0) {
		st[CFS_SD_lb_nobusyq]++;
		sd->nr_balance_failed = 0;
		if (!newidle && sd->balance_interval < sd->max_interval)
			sd->balance_interval *= 2;
		return 0;
	}
	int moved = move_tasks(cs, &env);
	st[newidle ? CFS_SD_newidle_lb_gained : CFS_SD_lb_gained] += (uint64_t)moved;
	if (!moved) {
		st[CFS_SD_lb_failed]++;
		if (!newidle)
			sd->nr_balance_failed++;
	} else {
		sd->nr_balance_failed = 0;
	}
	sd->balance_interval = sd->min_interval;  /* no active balancing */
	return moved;
}

static double *max_lb_cost(struct cfs_sched *cs, int cpu, const struct sched_domain *sd)
{
	return &cs->max_newidle_lb_cost[(size_t)cpu * SCHED_TOPO_MAX_LEVELS + (size_t)sd->level];
}

/* rd->overload: some CPU has more than one task. */
static int rd_overload(const struct cfs_sched *cs)
{
	for (int i = 0; i < cs->sys->nr_cpus; i++)
		if (rq_nr_running(cs, i) > 1)
			return 1;
	return 0;
}

/* newidle_balance: pull a task before cpu goes idle. */
static void newidle_balance(struct cfs_sched *cs, int cpu)
{
	struct cfs_rq *rq = &cs->rq[cpu];
	struct cpu *c = &cs->sys->cpu[cpu];
	rq->idle_stamp = cpu_now(c) ? cpu_now(c) : 1;
	rq->stat[CFS_CPU_newidle_count]++;
	if (rq->avg_idle < cs->migration_cost || !rd_overload(cs))
		return;
	double curr_cost = 0, avg_idle = cycles_to_ns(cs, rq->avg_idle);
	for (int l = 0; l < cs->topo->nr_domains[cpu]; l++) {
		struct sched_domain *sd = sched_topo_sd(cs->topo, cpu, l);
		double *max = max_lb_cost(cs, cpu, sd);
		if (avg_idle < curr_cost + *max)
			break;
		uint64_t t0 = cpu_now(c);
		int pulled = cfs_load_balance(cs, cpu, sd, CFS_CPU_NEWLY_IDLE, NULL);
		double cost = cycles_to_ns(cs, cpu_now(c) - t0);
		if (cost > *max)
			*max = cost;
		curr_cost += cost;
		if (pulled || rq->nr_queued) {
			rq->idle_stamp = 0;
			break;
		}
	}
}

/* get_sd_balance_interval, in cycles (whole jiffies, at least one, at
 * most max_load_balance_interval = HZ * nr_cpus / 10). */
static uint64_t balance_interval(const struct cfs_sched *cs, const struct sched_domain *sd,
				 int busy)
{
	uint64_t ms = sd->balance_interval;
	if (busy)
		ms *= sd->busy_factor;
	uint64_t j = (ms * cs->params.hz + 999) / 1000;
	uint64_t max = (uint64_t)cs->params.hz * (uint64_t)cs->sys->nr_cpus / 10;
	j = j < 1 ? 1 : j > max && max > 0 ? max : j;
	return j * cs->sysctl.tick;
}

/* rebalance_domains(rq, idle) from the tick's SCHED_SOFTIRQ. */
static void rebalance_domains(struct cfs_sched *cs, int cpu)
{
	struct cpu *c = &cs->sys->cpu[cpu];
	int busy = rq_nr_running(cs, cpu) > 0;
	uint64_t next = UINT64_MAX;
	for (int l = 0; l < cs->topo->nr_domains[cpu]; l++) {
		struct sched_domain *sd = sched_topo_sd(cs->topo, cpu, l);
		uint64_t *decay = &cs->next_decay_max_lb_cost[(size_t)cpu * SCHED_TOPO_MAX_LEVELS +
							      (size_t)sd->level];
		if (cpu_now(c) > *decay) {
			*max_lb_cost(cs, cpu, sd) = *max_lb_cost(cs, cpu, sd) * 253 / 256;
			*decay = cpu_now(c) + cs->sysctl.tick * cs->params.hz;
		}
		uint64_t interval = balance_interval(cs, sd, busy);
		if (cpu_now(c) >= sd->last_balance + interval) {
			if (cfs_load_balance(cs, cpu, sd, busy ? CFS_CPU_NOT_IDLE : CFS_CPU_IDLE,
					     NULL))
				busy = rq_nr_running(cs, cpu) > 0;
			sd->last_balance = cpu_now(c);
			interval = balance_interval(cs, sd, busy);
		}
		if (sd->last_balance + interval < next)
			next = sd->last_balance + interval;
	}
	cs->rq[cpu].next_balance = next;
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

/* A CPU about to idle with its whole core idle: set_idle_cores (update_idle_core). */
static void update_idle_core(struct cfs_sched *cs, int cpu)
{
	int sib = cs->topo->smt_sibling[cpu];
	if (sib < 0 || rq_nr_running(cs, sib) == 0)
		cs->has_idle_cores[cs->topo->llc_id[cpu]] = 1;
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

static int cpu_ok(const struct cfs_sched *cs, int cpu)
{
	return cpu >= 0 && cpu < cs->sys->nr_cpus;
}

int cfs_wake_up_new_task(struct cfs_sched *cs, uint32_t t, int cpu)
{
	if (t >= cs->nr_tasks || !cpu_ok(cs, cpu) || cs->se[t].state != CFS_TASK_NEW)
		return NS_EINTERNAL;
	cs->se[t].cpu = cpu;
	if (v59(cs)) {
		/* init_entity_runnable_average, post_init_entity_util_avg, attach */
		struct cfs_rq *rq = &cs->rq[cpu];
		struct sched_entity *se = &cs->se[t];
		rq_update(cs, cpu, cs->sys->cpu[cpu].now);
		se->load_avg = 1024;
		se->util_avg = rq->util_avg < 1024 ? (1024 - rq->util_avg) / 2 : 0;
		se->avg_stamp = cs->sys->cpu[cpu].now;
		rq->load_avg += se->load_avg;
		rq->util_avg += se->util_avg;
	}
	cs->se[t].state = CFS_TASK_RUNNABLE;
	queue_push(&cs->rq[cpu], t);
	return NS_OK;
}

int cfs_sched_fork(struct cfs_sched *cs, uint32_t t, int parent_cpu, int *cpu)
{
	if (!v59(cs) || t >= cs->nr_tasks || !cpu_ok(cs, parent_cpu) ||
	    cs->se[t].state != CFS_TASK_NEW)
		return NS_EINTERNAL;
	/* wake_up_new_task: p->recent_used_cpu = task_cpu(p) (the parent's,
	 * from sched_fork), __set_task_cpu(select_task_rq(SD_BALANCE_FORK)):
	 * not a migration */
	*cpu = cfs_select_task_rq_fork(cs, t, parent_cpu);
	cs->se[t].recent_used_cpu = parent_cpu;
	return cfs_wake_up_new_task(cs, t, *cpu);
}

int cfs_try_to_wake_up(struct cfs_sched *cs, uint32_t t, int waker_cpu, int *cpu)
{
	if (t >= cs->nr_tasks || !cpu_ok(cs, waker_cpu) || cs->se[t].state != CFS_TASK_SLEEPING)
		return NS_EINTERNAL;
	struct sched_entity *se = &cs->se[t];

	work(&cs->sys->cpu[waker_cpu], cs->params.wake_cycles);
	if (v59(cs)) {
		se_update(cs, t, cs->sys->cpu[se->cpu].now);
		ttwu_place(cs, t, waker_cpu);
		rq_update(cs, se->cpu, cs->sys->cpu[se->cpu].now);
	}
	struct cfs_rq *rq = &cs->rq[se->cpu];
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
	if (!rq->nr_queued && v59(cs))
		newidle_balance(cs, cpu);
	if (!rq->nr_queued)
		return -1;
	struct cpu *c = &cs->sys->cpu[cpu];
	uint32_t t = pick_next_entity(cs, rq);
	pelt_before(cs, t, cpu);
	/* context_switch, unless the task put back is picked again */
	if ((int64_t)t != rq->preempted) {
		work(c, cs->params.ctx_switch_cycles);
		if (v59(cs))
			mem(c, cs->se[t].addr, TASK_HOT_BYTES, cs->params.task_node, CPU_LOAD);
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
	rq->exec_start = cpu_now(c);
	rq->slice_start = cpu_now(c);
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
	if (v59(cs) && now >= rq->next_balance)
		rebalance_domains(cs, cpu);
}

int cfs_sleep(struct cfs_sched *cs, int cpu)
{
	if (!cpu_ok(cs, cpu) || cs->rq[cpu].curr < 0)
		return NS_EINTERNAL;
	pelt_before(cs, (uint32_t)cs->rq[cpu].curr, cpu);
	dequeue_curr(cs, &cs->rq[cpu], cs->sys->cpu[cpu].now, CFS_TASK_SLEEPING);
	if (v59(cs) && !cs->rq[cpu].nr_queued)
		update_idle_core(cs, cpu);
	return NS_OK;
}

int cfs_task_dead(struct cfs_sched *cs, int cpu)
{
	if (!cpu_ok(cs, cpu) || cs->rq[cpu].curr < 0)
		return NS_EINTERNAL;
	uint32_t t = (uint32_t)cs->rq[cpu].curr;
	pelt_before(cs, t, cpu);
	dequeue_curr(cs, &cs->rq[cpu], cs->sys->cpu[cpu].now, CFS_TASK_DEAD);
	if (v59(cs)) {
		/* the exited task's load leaves the cfs_rq (detach at task_dead) */
		struct cfs_rq *rq = &cs->rq[cpu];
		rq->load_avg = rq->load_avg > cs->se[t].load_avg ? rq->load_avg - cs->se[t].load_avg : 0;
		rq->util_avg = rq->util_avg > cs->se[t].util_avg ? rq->util_avg - cs->se[t].util_avg : 0;
		if (!rq->nr_queued)
			update_idle_core(cs, cpu);
	}
	return NS_OK;
}

void cfs_return_to_user(struct cfs_sched *cs, int cpu)
{
	struct cfs_rq *rq = &cs->rq[cpu];
	if (rq->curr < 0 || !rq->need_resched)
		return;
	/* put_prev_entity: back in the queue; pick_next_entity decides */
	pelt_before(cs, (uint32_t)rq->curr, cpu);
	update_curr(cs, rq, cs->sys->cpu[cpu].now);
	cs->se[rq->curr].last_ran = cs->sys->cpu[cpu].now;
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
