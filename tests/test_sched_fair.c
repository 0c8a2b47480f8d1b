/*
 * Tests for models/sched_fair: the v5.9 CFS model on hand-worked cases.
 *
 * The machine is tests/cost_fixture.h's (4 CPUs at 2 GHz).  The sysctl
 * bases are 6000 / 750 / 1000 ns (a thousandth of the kernel's), so on 4
 * CPUs (factor 1 + ilog2(4) = 3) at 2 GHz the scheduler works with
 * latency 36000, min_granularity 4500 and wakeup_granularity 6000 cycles,
 * place_entity's threshold is 18000 cycles, and hz 100000 gives a tick of
 * 20000 cycles.  Time passes by cpu_work on a CPU (the running task's
 * system call); vruntime grows 1:1 with it.  cfs_check() runs at the end
 * of every case.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "tests/cost_fixture.h"
#include "base/diag.h"
#include "models/sched_fair.h"
#include "cost/cpu.h"

enum { LATENCY = 36000, MIN_GRAN = 4500, WAKEUP_GRAN = 6000, TICK = 20000 };
enum { CTX = 100, WAKE = 10 };

struct world {
	struct machine m;
	struct cost_tables t;
	struct cost_layout l;
	struct cpu_sys s;
	struct cfs_sched *cs;
};

static void params(struct cfs_params *p)
{
	memset(p, 0, sizeof *p);          /* placement none */
	p->hz = 100000;
	p->sched_latency_ns = 6000;
	p->min_granularity_ns = 750;
	p->wakeup_granularity_ns = 1000;
	p->wakeup_preemption = 1;
	p->ctx_switch_cycles = CTX;
	p->wake_cycles = WAKE;
}

static int sys_init(struct world *w, struct cpu_sys *s, int n)
{
	struct cpu_params cp;
	int cpus[] = {0, 1, 2, 3};
	cpu_params_default(&cp);
	return cpu_sys_init(s, &w->m, &w->t, &w->l, &cp, cpus, n);
}

static int setup(void **state)
{
	struct world *w = calloc(1, sizeof *w);
	struct cfs_params p;
	if (!w)
		return -1;
	fix_machine(&w->m);
	if (fix_sys_init(&w->m, &w->t, &w->l, &w->s, 4))
		return -1;
	params(&p);
	if (cfs_create(&p, &w->s, 32, &w->cs) != NS_OK)
		return -1;
	*state = w;
	return 0;
}

static int teardown(void **state)
{
	struct world *w = *state;
	struct diag d;
	diag_init(&d);
	int rc = cfs_check(w->cs, &d);
	if (rc != NS_OK)
		diag_print(&d, stderr);
	assert_int_equal(rc, NS_OK);
	cfs_destroy(w->cs);
	fix_sys_free(&w->m, &w->t, &w->l, &w->s);
	free(w);
	return 0;
}

/* ---- helpers ---- */

static void run_for(struct world *w, int cpu, uint32_t cycles)
{
	cpu_work(&w->s.cpu[cpu], cycles);
}

static uint64_t vruntime(const struct world *w, uint32_t t)
{
	return w->cs->se[t].vruntime;
}

static void fork_on(struct world *w, uint32_t t, int cpu, uint64_t vr)
{
	w->cs->se[t].vruntime = vr;
	assert_int_equal(cfs_wake_up_new_task(w->cs, t, cpu), NS_OK);
}

static void pick(struct world *w, int cpu, int64_t want)
{
	assert_int_equal(cfs_pick_next(w->cs, cpu), want);
}

static void sleep_on(struct world *w, int cpu)
{
	assert_int_equal(cfs_sleep(w->cs, cpu), NS_OK);
}

static void wake_from(struct world *w, uint32_t t, int waker_cpu, int want_cpu)
{
	int cpu = -1;
	assert_int_equal(cfs_try_to_wake_up(w->cs, t, waker_cpu, &cpu), NS_OK);
	assert_int_equal(cpu, want_cpu);
}

static void check_ok(struct world *w)
{
	struct diag d;
	diag_init(&d);
	int rc = cfs_check(w->cs, &d);
	if (rc != NS_OK)
		diag_print(&d, stderr);
	assert_int_equal(rc, NS_OK);
}

static void check_fails(struct world *w)
{
	struct diag d;
	diag_init(&d);
	assert_int_equal(cfs_check(w->cs, &d), NS_EINTERNAL);
	assert_true(strlen(d.msg) > 0);
}

/* ---- cases ---- */

/* get_update_sysctl_factor: 1 + ilog2(min(nr_cpus, 8)): 1, 2, 3 for 1, 2
 * and 4 CPUs; nanoseconds at 2 GHz; the tick 1e9 / hz ns. */
static void test_sysctl_scaling(void **state)
{
	struct world *w = *state;
	assert_int_equal(w->cs->sysctl.latency, LATENCY);
	assert_int_equal(w->cs->sysctl.min_granularity, MIN_GRAN);
	assert_int_equal(w->cs->sysctl.wakeup_granularity, WAKEUP_GRAN);
	assert_int_equal(w->cs->sysctl.tick, TICK);
	for (int n = 1; n <= 2; n++) {
		struct cpu_sys s;
		struct cfs_params p;
		struct cfs_sched *cs;
		params(&p);
		assert_int_equal(sys_init(w, &s, n), NS_OK);
		assert_int_equal(cfs_create(&p, &s, 1, &cs), NS_OK);
		assert_int_equal(cs->sysctl.latency, 6000 * 2 * n);
		assert_int_equal(cs->sysctl.min_granularity, 750 * 2 * n);
		assert_int_equal(cs->sysctl.wakeup_granularity, 1000 * 2 * n);
		cfs_destroy(cs);
		cpu_sys_free(&s);
	}
}

/* check_preempt_wakeup: on CPU 0, A (0) ran 20000 and slept; B (1) has run
 * 24000 when A wakes: 24000 - 20000 = 4000 is within the wake-up
 * granularity (6000), no preemption.  On CPU 2, C (2) slept at 0 and D (3)
 * ran 50000: C is placed at min_vruntime - 18000 = 32000, 18000 behind D,
 * so C preempts D (next buddy C; no last buddy with 2 tasks). */
static void test_wakeup_preemption(void **state)
{
	struct world *w = *state;
	fork_on(w, 0, 0, 0);
	fork_on(w, 1, 0, 0);
	pick(w, 0, 0);
	assert_int_equal(w->s.cpu[0].now, CTX);
	run_for(w, 0, 20000);
	sleep_on(w, 0);
	assert_int_equal(vruntime(w, 0), 20000);
	pick(w, 0, 1);
	run_for(w, 0, 24000);
	wake_from(w, 0, 1, 0);
	assert_int_equal(w->s.cpu[1].now, WAKE);
	assert_int_equal(vruntime(w, 1), 24000);
	assert_int_equal(vruntime(w, 0), 20000);       /* above 24000 - 18000 */
	assert_int_equal(w->cs->rq[0].need_resched, CFS_RESCHED_NONE);
	assert_int_equal(w->cs->rq[0].next, -1);
	cfs_return_to_user(w->cs, 0);
	pick(w, 0, 1);                                 /* B keeps the CPU */

	fork_on(w, 2, 2, 0);
	fork_on(w, 3, 2, 0);
	pick(w, 2, 2);
	sleep_on(w, 2);
	pick(w, 2, 3);
	run_for(w, 2, 50000);
	wake_from(w, 2, 1, 2);
	assert_int_equal(w->cs->rq[2].min_vruntime, 50000);
	assert_int_equal(vruntime(w, 2), 50000 - LATENCY / 2);
	assert_int_equal(w->cs->rq[2].need_resched, CFS_RESCHED_WAKEUP);
	assert_int_equal(w->cs->rq[2].next, 2);
	assert_int_equal(w->cs->rq[2].last, -1);
	pick(w, 2, 3);                 /* effective at the end of D's system call */
	cfs_return_to_user(w->cs, 2);
	assert_int_equal(w->cs->rq[2].preempted, 3);
	check_ok(w);
	pick(w, 2, 2);
	assert_int_equal(w->cs->rq[2].next, -1);
	assert_int_equal(w->cs->stats.ctx_switches, 5);
	assert_int_equal(w->cs->stats.preemptions, 1);
	assert_int_equal(w->cs->stats.wake_preemptions, 1);
	assert_int_equal(w->cs->stats.wakeups, 2);
}

/* Without WAKEUP_PREEMPTION the same wake-up leaves D running. */
static void test_no_wakeup_preemption(void **state)
{
	struct world *w = *state;
	struct cfs_params p;
	cfs_destroy(w->cs);
	params(&p);
	p.wakeup_preemption = 0;
	assert_int_equal(cfs_create(&p, &w->s, 32, &w->cs), NS_OK);
	fork_on(w, 2, 2, 0);
	fork_on(w, 3, 2, 0);
	pick(w, 2, 2);
	sleep_on(w, 2);
	pick(w, 2, 3);
	run_for(w, 2, 50000);
	wake_from(w, 2, 1, 2);
	assert_int_equal(w->cs->rq[2].need_resched, CFS_RESCHED_NONE);
	cfs_return_to_user(w->cs, 2);
	pick(w, 2, 3);
}

/* __pick_first_entity: the first smallest vruntime in enqueue order. */
static void test_pick_leftmost_fifo(void **state)
{
	struct world *w = *state;
	fork_on(w, 0, 0, 500);
	fork_on(w, 1, 0, 300);
	fork_on(w, 2, 0, 300);
	fork_on(w, 3, 0, 700);
	pick(w, 0, 1);
	sleep_on(w, 0);
	pick(w, 0, 2);
	sleep_on(w, 0);
	pick(w, 0, 0);
	sleep_on(w, 0);
	pick(w, 0, 3);
	sleep_on(w, 0);
	pick(w, 0, -1);                                /* idle */

	fork_on(w, 5, 1, 0);
	fork_on(w, 4, 1, 0);
	pick(w, 1, 5);
	assert_int_equal(w->cs->stats.ctx_switches, 5);
}

/* pick_next_entity honours the next buddy within the wake-up granularity
 * of the leftmost: E (8) ran 26000 and slept; A (0) ran 50000 when E
 * wakes, with B (1) queued at 24000 and six tasks at 60000.  min_vruntime
 * stays 26000 (it never goes back to B's 24000); E keeps 26000 (above
 * 26000 - 18000), preempts A by 24000 and, with 9 tasks running, A
 * becomes the last buddy.  The pick takes E, 2000 behind the leftmost B. */
static void test_pick_next_buddy(void **state)
{
	struct world *w = *state;
	fork_on(w, 8, 0, 0);
	pick(w, 0, 8);
	run_for(w, 0, 26000);
	sleep_on(w, 0);
	assert_int_equal(w->cs->rq[0].min_vruntime, 26000);
	fork_on(w, 0, 0, 0);
	fork_on(w, 1, 0, 24000);
	for (uint32_t t = 2; t < 8; t++)
		fork_on(w, t, 0, 60000);
	pick(w, 0, 0);
	run_for(w, 0, 50000);
	wake_from(w, 8, 1, 0);
	assert_int_equal(vruntime(w, 0), 50000);
	assert_int_equal(vruntime(w, 8), 26000);
	assert_int_equal(w->cs->rq[0].min_vruntime, 26000);
	assert_int_equal(w->cs->rq[0].need_resched, CFS_RESCHED_WAKEUP);
	assert_int_equal(w->cs->rq[0].next, 8);
	assert_int_equal(w->cs->rq[0].last, 0);
	cfs_return_to_user(w->cs, 0);
	pick(w, 0, 8);
	assert_int_equal(w->cs->rq[0].next, -1);
	assert_int_equal(w->cs->rq[0].last, 0);
	assert_int_equal(w->cs->stats.wake_preemptions, 1);
}

/* The last buddy: as above with B at 46000.  min_vruntime rises to 46000,
 * E is placed at 46000 - 18000 = 28000 and preempts A (50000); E is the
 * leftmost and is picked.  When E sleeps at once, the leftmost is B
 * (46000) but A, the last buddy, is only 4000 ahead of it: A is picked
 * and the buddy cleared. */
static void test_pick_last_buddy(void **state)
{
	struct world *w = *state;
	fork_on(w, 8, 0, 0);
	pick(w, 0, 8);
	run_for(w, 0, 26000);
	sleep_on(w, 0);
	fork_on(w, 0, 0, 0);
	fork_on(w, 1, 0, 46000);
	for (uint32_t t = 2; t < 8; t++)
		fork_on(w, t, 0, 60000);
	pick(w, 0, 0);
	run_for(w, 0, 50000);
	wake_from(w, 8, 3, 0);
	assert_int_equal(w->cs->rq[0].min_vruntime, 46000);
	assert_int_equal(vruntime(w, 8), 28000);
	assert_int_equal(w->cs->rq[0].last, 0);
	cfs_return_to_user(w->cs, 0);
	pick(w, 0, 8);
	sleep_on(w, 0);
	assert_int_equal(w->cs->rq[0].min_vruntime, 46000);
	pick(w, 0, 0);
	assert_int_equal(w->cs->rq[0].last, -1);
	assert_int_equal(w->cs->stats.preemptions, 1);
}

/* update_min_vruntime: the smaller of curr and the leftmost, never less
 * than before.  Three tasks run 3000, 1000 and 2000 and sleep; min_vruntime
 * is 0 while a task at 0 is queued, 2000 when the last sleeps alone, 3000
 * once task 0 (3000) is the only one queued, and stays 3000 when tasks at
 * 1000 and 2000 join; task 1 is picked. */
static void test_min_vruntime(void **state)
{
	struct world *w = *state;
	const struct cfs_rq *rq = &w->cs->rq[0];
	static const uint32_t ran[] = {3000, 1000, 2000};
	for (uint32_t t = 0; t < 3; t++)
		fork_on(w, t, 0, 0);
	for (uint32_t t = 0; t < 3; t++) {
		pick(w, 0, t);
		run_for(w, 0, ran[t]);
		sleep_on(w, 0);
		assert_int_equal(rq->min_vruntime, t < 2 ? 0 : 2000);
	}
	wake_from(w, 0, 1, 0);
	assert_int_equal(rq->min_vruntime, 2000);
	wake_from(w, 1, 1, 0);
	assert_int_equal(rq->min_vruntime, 3000);
	wake_from(w, 2, 1, 0);
	assert_int_equal(rq->min_vruntime, 3000);
	assert_int_equal(vruntime(w, 1), 1000);        /* 3000 - 18000 < 0: kept */
	pick(w, 0, 1);
	cfs_tick(w->cs, 0);
	assert_int_equal(rq->min_vruntime, 3000);
}

/* check_preempt_tick with sched_slice: 10 tasks on a CPU (above
 * sched_nr_latency) give a period of 10 * 4500 and a slice of 4500 (not
 * 36000 / 10 = 3600): CPU 0's task is preempted after 4501 cycles, CPU 1's
 * not after 4000 (< min_granularity).  4 tasks: slice 36000 / 4 = 9000:
 * CPU 2 after 8000 runs on (8000 ahead of the leftmost, not more than
 * 9000), CPU 3 after 9001 is preempted.  The tick comes at multiples of
 * 20000 cycles: CPU 1's next check is at 20000. */
static void test_sched_slice(void **state)
{
	struct world *w = *state;
	static const uint32_t nr[] = {10, 10, 4, 4};
	static const uint32_t ran[] = {4501, 4000, 8000, 9001};
	static const enum cfs_resched want[] = {CFS_RESCHED_TICK, CFS_RESCHED_NONE,
						CFS_RESCHED_NONE, CFS_RESCHED_TICK};
	uint32_t t = 0;
	for (int cpu = 0; cpu < 4; cpu++) {
		uint32_t first = t;
		for (uint32_t k = 0; k < nr[cpu]; k++)
			fork_on(w, t++, cpu, 0);
		pick(w, cpu, first);
		run_for(w, cpu, ran[cpu]);
		cfs_tick(w->cs, cpu);
		assert_int_equal(w->cs->rq[cpu].need_resched, want[cpu]);
		assert_int_equal(w->cs->rq[cpu].next_tick, TICK);
	}
	assert_int_equal(w->s.cpu[1].now, CTX + 4000);
	run_for(w, 1, TICK - 1 - (CTX + 4000));
	cfs_tick(w->cs, 1);                            /* before the tick */
	assert_int_equal(w->cs->rq[1].need_resched, CFS_RESCHED_NONE);
	run_for(w, 1, 1);
	cfs_tick(w->cs, 1);
	assert_int_equal(w->cs->rq[1].need_resched, CFS_RESCHED_TICK);
	assert_int_equal(w->cs->rq[1].next_tick, 2 * TICK);
	cfs_return_to_user(w->cs, 0);
	pick(w, 0, 1);
	assert_int_equal(w->cs->stats.preemptions, 1);
	assert_int_equal(w->cs->stats.wake_preemptions, 0);
}

/* cfs_check on states broken by hand, each restored before the next. */
static void test_check_catches_broken_state(void **state)
{
	struct world *w = *state;
	struct cfs_rq *rq0 = &w->cs->rq[0], *rq1 = &w->cs->rq[1];
	fork_on(w, 0, 0, 0);
	fork_on(w, 1, 0, 0);
	fork_on(w, 2, 0, 0);
	pick(w, 0, 0);
	check_ok(w);

	rq1->queue[rq1->nr_queued++] = 1;              /* on two run queues */
	check_fails(w);
	rq1->nr_queued--;
	rq0->queue[rq0->nr_queued++] = 0;              /* curr queued */
	check_fails(w);
	rq0->nr_queued--;
	w->cs->se[2].state = CFS_TASK_SLEEPING;        /* queued but asleep */
	check_fails(w);
	w->cs->se[2].state = CFS_TASK_RUNNABLE;
	rq0->nr_queued--;                              /* runnable on no queue */
	check_fails(w);
	rq0->nr_queued++;
	rq0->next = 5;                                 /* buddy not on the queue */
	check_fails(w);
	rq0->next = -1;
	rq1->need_resched = CFS_RESCHED_TICK;          /* nothing to preempt */
	check_fails(w);
	rq1->need_resched = CFS_RESCHED_NONE;
	check_ok(w);

	rq0->min_vruntime = 5000;
	check_ok(w);
	rq0->min_vruntime = 4000;                      /* went back */
	check_fails(w);
	rq0->min_vruntime = 5000;
}

/* Calls that do not fit the state are refused and change nothing. */
static void test_misuse_refused(void **state)
{
	struct world *w = *state;
	struct cfs_params p;
	struct cfs_sched *cs;
	int cpu;
	fork_on(w, 0, 0, 0);
	assert_int_equal(cfs_wake_up_new_task(w->cs, 0, 1), NS_EINTERNAL);
	assert_int_equal(cfs_wake_up_new_task(w->cs, 1, 4), NS_EINTERNAL);
	assert_int_equal(cfs_wake_up_new_task(w->cs, 32, 0), NS_EINTERNAL);
	assert_int_equal(cfs_try_to_wake_up(w->cs, 0, 0, &cpu), NS_EINTERNAL);
	assert_int_equal(cfs_sleep(w->cs, 0), NS_EINTERNAL);
	assert_int_equal(cfs_task_dead(w->cs, 1), NS_EINTERNAL);
	assert_int_equal(w->cs->stats.wakeups, 0);
	pick(w, 0, 0);
	assert_int_equal(cfs_task_dead(w->cs, 0), NS_OK);
	assert_int_equal(cfs_task_state(w->cs, 0), CFS_TASK_DEAD);
	assert_int_equal(cfs_try_to_wake_up(w->cs, 0, 0, &cpu), NS_EINTERNAL);

	params(&p);
	p.hz = 0;
	assert_int_equal(cfs_create(&p, &w->s, 1, &cs), NS_EINPUT);
	params(&p);
	p.min_granularity_ns = 0;
	assert_int_equal(cfs_create(&p, &w->s, 1, &cs), NS_EINPUT);
	params(&p);
	assert_int_equal(cfs_create(&p, &w->s, 0, &cs), NS_EINPUT);
	assert_null(cs);
}


/* ---- v5.9 placement (sched.placement: v5.9) ---- */

/*
 * The fixture's machine (2 nodes x 2 CPUs, SLIT 10/21, no SMT by the
 * enumeration rule: CPU 0's partner 2 is on the other node) gives every
 * CPU the domains MC (its node) and NUMA (all 4).  smt_world turns it into
 * one node of 4 CPUs, where 0/2 and 1/3 are thread siblings: SMT, MC.
 * PELT loads are set by hand with their stamps at the CPUs' clocks, so no
 * decay happens and the hand-worked numbers are exact.
 */
struct pworld {
	struct world w;
	struct cache_as as;
};

static int setup_placement(void **state, int smt)
{
	struct pworld *pw = calloc(1, sizeof *pw);
	struct world *w = &pw->w;
	struct cfs_params p;
	static int all[] = {0, 1, 2, 3};
	if (!pw)
		return -1;
	fix_machine(&w->m);
	if (smt) {
		w->m.nr_nodes = 1;
		w->m.nodes[0].nr_cpus = 4;
		w->m.nodes[0].cpus = all;
		w->m.node_index[1] = -1;
		w->m.cpu_node[2] = w->m.cpu_node[3] = 0;
	}
	if (fix_sys_init(&w->m, &w->t, &w->l, &w->s, 4))
		return -1;
	params(&p);
	cache_as_init(&pw->as);
	p.placement = CFS_PLACEMENT_V59;
	p.as = &pw->as;
	p.task_node = 0;
	if (cfs_create(&p, &w->s, 32, &w->cs) != NS_OK)
		return -1;
	*state = pw;
	return 0;
}

static int setup_numa(void **state)
{
	return setup_placement(state, 0);
}

static int setup_smt(void **state)
{
	return setup_placement(state, 1);
}

static void set_load(struct world *w, uint32_t t, double load, double util)
{
	struct sched_entity *se = &w->cs->se[t];
	se->load_avg = load;
	se->util_avg = util;
	se->avg_stamp = w->s.cpu[se->cpu].now;
}

static void set_rq_load(struct world *w, int cpu, double load, double util)
{
	w->cs->rq[cpu].load_avg = load;
	w->cs->rq[cpu].util_avg = util;
	w->cs->rq[cpu].avg_stamp = w->s.cpu[cpu].now;
}

static struct sched_domain *domain(struct world *w, int cpu, const char *name)
{
	for (int l = 0; l < w->cs->topo->nr_domains[cpu]; l++) {
		struct sched_domain *sd = sched_topo_sd(w->cs->topo, cpu, l);
		if (!strcmp(w->cs->topo->level[sd->level].name, name))
			return sd;
	}
	fail_msg("cpu %d has no %s domain", cpu, name);
	return NULL;
}

static uint64_t sd_counter(struct world *w, int cpu, const struct sched_domain *sd, int i)
{
	return w->cs->sd_stat[((size_t)cpu * SCHED_TOPO_MAX_LEVELS + (size_t)sd->level) *
			      CFS_NR_SD_STATS + (size_t)i];
}

/* The domains the fixture gets: MC {0,1} with imbalance_pct 117, NUMA
 * {0..3} with 125 and groups {0,1} {2,3}; SD_WAKE_AFFINE on both
 * (distance 21 <= node_reclaim_distance 30). */
static void test_domains_from_slit(void **state)
{
	struct world *w = *state;
	assert_int_equal(w->cs->topo->nr_domains[0], 2);
	struct sched_domain *mc = domain(w, 0, "MC"), *numa = domain(w, 0, "NUMA");
	assert_int_equal(mc->span_weight, 2);
	assert_int_equal(mc->imbalance_pct, 117);
	assert_int_equal(numa->span_weight, 4);
	assert_int_equal(numa->imbalance_pct, 125);
	assert_int_equal(numa->nr_groups, 2);
	assert_int_equal(numa->groups[0].weight, 2);
	assert_true(numa->flags & SD_WAKE_AFFINE);
	assert_true(numa->flags & SD_NUMA);
	assert_int_equal(numa->busy_factor, 32);
	assert_int_equal(w->cs->topo->llc_size[0], 2);
	assert_false(sched_topo_share_cache(w->cs->topo, 0, 2));
}

/* wake_affine, waker A (0) on CPU 0, wakee B (1) last ran on CPU 2 of the
 * other node, where C (2) runs.  (a) Sync wake-up with A alone on CPU 0:
 * wake_affine_idle returns this_cpu (sync && nr_running == 1).  (b) D (3)
 * queued behind A: wake_affine_idle has no answer; wake_affine_weight with
 * rq0 2048, A 1024, B 512, rq2 1536 (C + B's blocked load):
 * this = (2048 - 1024 + 512) x 100 = 153600, prev = (1536 - 512) x (100 +
 * 25 / 2 = 112) + 1 = 114689: this is not smaller, prev_cpu.  (c) rq0 at
 * 1024 (D's load 0): this = 512 x 100 = 51200 < 114689: this_cpu. */
static void test_wake_affine(void **state)
{
	struct world *w = *state;
	struct sched_domain *numa = domain(w, 0, "NUMA");
	fork_on(w, 0, 0, 0);
	fork_on(w, 1, 2, 0);
	fork_on(w, 2, 2, 0);
	pick(w, 0, 0);
	pick(w, 2, 1);
	sleep_on(w, 2);
	pick(w, 2, 2);
	assert_int_equal(cfs_wake_affine(w->cs, numa, 1, 0, 2, 1), 0);
	assert_int_equal(sd_counter(w, 0, numa, CFS_SD_ttwu_move_affine), 1);

	fork_on(w, 3, 0, 0);
	set_rq_load(w, 0, 2048, 1024);
	set_load(w, 0, 1024, 1024);
	set_load(w, 3, 1024, 0);
	set_load(w, 1, 512, 256);
	set_rq_load(w, 2, 1536, 1024);
	set_load(w, 2, 1024, 1024);
	assert_int_equal(cfs_wake_affine(w->cs, numa, 1, 0, 2, 1), 2);
	assert_int_equal(sd_counter(w, 0, numa, CFS_SD_ttwu_move_affine), 1);
	set_rq_load(w, 0, 1024, 1024);
	set_load(w, 3, 0, 0);
	assert_int_equal(cfs_wake_affine(w->cs, numa, 1, 0, 2, 1), 0);
	assert_int_equal(w->cs->rq[0].stat[CFS_CPU_nr_wakeups_affine_attempts], 3);
	assert_int_equal(w->cs->rq[0].stat[CFS_CPU_nr_wakeups_affine], 2);
}

/* A wake-up that migrates: B (1) slept on CPU 2 with vruntime 5000 while
 * CPU 2's min_vruntime was 5000; A wakes it from CPU 0 (sync, A alone:
 * wake_affine picks CPU 0, which is busy; select_idle_sibling then finds
 * CPU 1, idle and sharing CPU 0's LLC).  migrate_task_rq_fair keeps B's
 * lag to min_vruntime (0) on the new queue; the task is counted once, as
 * migrated and as a remote wake-up in MC of CPU 0. */
static void test_wakeup_migrates(void **state)
{
	struct world *w = *state;
	fork_on(w, 0, 0, 0);
	fork_on(w, 1, 2, 0);
	pick(w, 0, 0);
	pick(w, 2, 1);
	run_for(w, 2, 5000);
	sleep_on(w, 2);
	assert_int_equal(w->cs->rq[2].min_vruntime, 5000);
	run_for(w, 0, 7000);
	wake_from(w, 1, 0, 1);
	assert_int_equal(w->cs->se[1].cpu, 1);
	assert_int_equal(vruntime(w, 1), w->cs->rq[1].min_vruntime);
	assert_int_equal(w->cs->stats.migrations, 1);
	assert_int_equal(w->cs->rq[2].stat[CFS_CPU_nr_migrations], 1);
	assert_int_equal(sd_counter(w, 0, domain(w, 0, "MC"), CFS_SD_ttwu_wake_remote), 1);
	assert_int_equal(w->cs->rq[1].nr_queued, 1);
	assert_int_equal(w->cs->rq[2].nr_queued, 0);
	check_ok(w);
}

/* select_idle_sibling on one node of 2 cores x 2 threads (0/2, 1/3):
 * (a) CPUs 0, 1, 3 busy: no idle core, the LLC scan from target 0 finds
 * CPU 2, the target's sibling; (b) CPUs 0 and 2 busy, 1 and 3 idle: an
 * idle core, CPU 1 (has_idle_cores set again when CPU 3 went idle). */
static void test_select_idle_sibling(void **state)
{
	struct world *w = *state;
	assert_int_equal(w->cs->topo->smt_sibling[0], 2);
	assert_int_equal(w->cs->topo->smt_sibling[3], 1);
	assert_int_equal(domain(w, 0, "SMT")->imbalance_pct, 110);
	assert_int_equal(domain(w, 0, "MC")->span_weight, 4);
	fork_on(w, 0, 0, 0);
	fork_on(w, 1, 1, 0);
	fork_on(w, 3, 3, 0);
	fork_on(w, 9, 0, 0);
	pick(w, 0, 0);
	pick(w, 1, 1);
	pick(w, 3, 3);
	assert_int_equal(cfs_select_idle_sibling(w->cs, 9, 0, 0, 0), 2);
	assert_int_equal(w->cs->rq[0].stat[CFS_CPU_sis_idle_cpu], 1);
	assert_int_equal(w->cs->has_idle_cores[0], 0);

	fork_on(w, 2, 2, 0);
	pick(w, 2, 2);
	sleep_on(w, 1);
	sleep_on(w, 3);
	assert_int_equal(w->cs->has_idle_cores[0], 1);
	assert_int_equal(cfs_select_idle_sibling(w->cs, 9, 0, 0, 0), 1);
	assert_int_equal(w->cs->rq[0].stat[CFS_CPU_sis_idle_core], 1);
}

/* load_balance of CPU 1 (idle) in MC {0,1}: CPU 0 runs A and has B, C, D,
 * E queued, each with util 300 (no longer cache hot: 2 ms passed, the
 * migration cost is 0.5 ms = 1e6 cycles).  Local {1} has spare capacity,
 * busiest {0} is overloaded (5 tasks on 1 CPU): calculate_imbalance gives
 * migrate_util with imbalance max(1024, 0) - 0 = 1024; detach_tasks takes
 * B, C, D (900) and skips E (300 > 124 left): 3 tasks.  A newly idle
 * balance moves exactly one, and a second periodic balance of the now
 * fully busy pair finds nothing to do.  Tasks are conserved throughout. */
static void test_load_balance_imbalance(void **state)
{
	struct world *w = *state;
	struct sched_domain *mc = domain(w, 1, "MC");
	for (uint32_t t = 0; t < 5; t++)
		fork_on(w, t, 0, 0);
	pick(w, 0, 0);
	run_for(w, 0, 4000000);
	run_for(w, 1, 4000000);
	set_rq_load(w, 0, 5 * 1024, 1024);
	set_rq_load(w, 1, 0, 0);
	for (uint32_t t = 0; t < 5; t++)
		set_load(w, t, 1024, t ? 300 : 1024);
	long imb = -1;
	assert_int_equal(cfs_load_balance(w->cs, 1, mc, CFS_CPU_IDLE, &imb), 3);
	assert_int_equal(imb, 1024);
	assert_int_equal(w->cs->rq[1].nr_queued, 3);
	assert_int_equal(w->cs->rq[0].nr_queued, 1);
	assert_int_equal(sd_counter(w, 1, mc, CFS_SD_lb_gained), 3);
	assert_int_equal(sd_counter(w, 1, mc, CFS_SD_lb_count), 1);
	assert_int_equal(w->cs->stats.migrations, 3);
	check_ok(w);

	/* CPU 2 newly idle: NUMA {0,1} vs {2,3}; the busiest group is
	 * overloaded (6 tasks on 2 CPUs), one task moves */
	struct sched_domain *numa = domain(w, 2, "NUMA");
	run_for(w, 2, 4000000);
	assert_int_equal(cfs_load_balance(w->cs, 2, numa, CFS_CPU_NEWLY_IDLE, NULL), 1);
	assert_int_equal(w->cs->rq[2].nr_queued, 1);
	assert_int_equal(sd_counter(w, 2, numa, CFS_SD_newidle_lb_gained), 1);
	check_ok(w);
}

/* A domain found balanced moves nothing: CPUs 0 and 1 each run one task. */
static void test_load_balance_balanced(void **state)
{
	struct world *w = *state;
	struct sched_domain *mc = domain(w, 1, "MC");
	fork_on(w, 0, 0, 0);
	fork_on(w, 1, 1, 0);
	pick(w, 0, 0);
	pick(w, 1, 1);
	long imb = -1;
	assert_int_equal(cfs_load_balance(w->cs, 1, mc, CFS_CPU_NOT_IDLE, &imb), 0);
	assert_int_equal(imb, 0);
	assert_int_equal(sd_counter(w, 1, mc, CFS_SD_lb_balanced), 1);
	assert_int_equal(w->cs->stats.migrations, 0);
}

/* Fork balancing on the fixture (MC {0,1}, {2,3}; NUMA {0..3}, groups
 * {0,1} {2,3}, imbalance_pct 117 and 125), the parent on CPU 0, no time
 * passing between forks, each child runnable:
 *  1st: NUMA local has_spare with idle CPUs -> stay (SD_NUMA); MC {0} vs
 *       {1}, both idle, local idle_cpus 1 >= 1 -> stay: CPU 0;
 *  2nd: NUMA stays (CPU 1 idle); MC local {0} fully busy > {1} has spare: CPU 1;
 *  3rd: NUMA local {0,1} fully busy > {2,3} has spare: the first idle CPU
 *       of {2,3}, CPU 2; MC of CPU 2 keeps it there;
 *  4th: the same push, CPU 2 busy: CPU 3;
 *  5th: all fully busy, avg_load 1024: NUMA 1024 + 256 >= 1024 stays; MC
 *       100 x 1024 <= 117 x 1024 stays: CPU 0;
 *  6th: local {0,1} overloaded (3 tasks) > {2,3} fully busy: the least
 *       loaded of {2,3} (equal, the first), CPU 2;
 *  7th: both nodes overloaded at avg_load 1536: NUMA stays; MC local {0}
 *       overloaded > {1} fully busy: CPU 1;
 *  8th: NUMA local avg 2048 vs 1536: 1792 < 2048 and 204800 > 192000:
 *       push, the least loaded of {2,3}: CPU 3.
 * The counters: sbf_count once per find_idlest_group call. */
static void test_fork_balance_spreads(void **state)
{
	struct world *w = *state;
	static const int want[8] = {0, 1, 2, 3, 0, 2, 1, 3};
	struct sched_domain *numa = domain(w, 0, "NUMA"), *mc = domain(w, 0, "MC");
	for (uint32_t t = 0; t < 8; t++) {
		int cpu = -1;
		assert_int_equal(cfs_sched_fork(w->cs, t, 0, &cpu), NS_OK);
		assert_int_equal(cpu, want[t]);
		assert_int_equal(w->cs->se[t].cpu, want[t]);
		assert_int_equal(w->cs->se[t].state, CFS_TASK_RUNNABLE);
		assert_int_equal(w->cs->se[t].recent_used_cpu, 0);
	}
	for (int c = 0; c < 4; c++)
		assert_int_equal(w->cs->rq[c].nr_queued, 2);
	assert_int_equal(w->cs->stats.migrations, 0);  /* __set_task_cpu */
	/* parent's NUMA: 8 calls, pushed at forks 3, 4, 6, 8 */
	assert_int_equal(sd_counter(w, 0, numa, CFS_SD_sbf_count), 8);
	assert_int_equal(sd_counter(w, 0, numa, CFS_SD_sbf_pushed), 4);
	assert_int_equal(sd_counter(w, 0, numa, CFS_SD_sbf_balanced), 4);
	/* parent's MC: the 4 forks kept on node 0, pushed at forks 2 and 7 */
	assert_int_equal(sd_counter(w, 0, mc, CFS_SD_sbf_count), 4);
	assert_int_equal(sd_counter(w, 0, mc, CFS_SD_sbf_pushed), 2);
	/* CPU 2's MC looked after each push to node 1, kept it each time */
	assert_int_equal(sd_counter(w, 2, domain(w, 2, "MC"), CFS_SD_sbf_count), 2);
	assert_int_equal(sd_counter(w, 2, domain(w, 2, "MC"), CFS_SD_sbf_balanced), 2);
	check_ok(w);
}

/* find_idlest_group picks the idle group: node 0 busy (A on 0, B on 1),
 * node 1 idle -> group 1 at NUMA; with node 1 busy too and one task more
 * on node 1, the local group is the idlest (-1).  find_idlest_group_cpu
 * takes the most recently idled CPU of the group: CPU 3 (idle_stamp 7)
 * before CPU 2 (idle_stamp 5). */
static void test_find_idlest_group(void **state)
{
	struct world *w = *state;
	struct sched_domain *numa = domain(w, 0, "NUMA");
	fork_on(w, 0, 0, 0);
	fork_on(w, 1, 1, 0);
	assert_int_equal(cfs_find_idlest_group(w->cs, numa, 0), 1);
	w->cs->rq[2].idle_stamp = 5;
	w->cs->rq[3].idle_stamp = 7;
	int cpu = -1;
	assert_int_equal(cfs_sched_fork(w->cs, 2, 0, &cpu), NS_OK);
	assert_int_equal(cpu, 3);
	fork_on(w, 3, 2, 0);
	fork_on(w, 4, 3, 0);
	/* node 0: 2 tasks (fully busy), node 1: 3 (overloaded) */
	assert_int_equal(cfs_find_idlest_group(w->cs, numa, 0), -1);
	assert_int_equal(cfs_find_idlest_group(w->cs, domain(w, 2, "NUMA"), 2), 1);
	check_ok(w);
}

/* Without placement the workload places its tasks: cfs_sched_fork is a
 * caller bug there. */
static void test_fork_needs_placement(void **state)
{
	struct world *w = *state;
	int cpu = -1;
	assert_int_equal(cfs_sched_fork(w->cs, 0, 0, &cpu), NS_EINTERNAL);
	assert_int_equal(cfs_task_state(w->cs, 0), CFS_TASK_NEW);
}

static int teardown_placement(void **state)
{
	struct pworld *pw = *state;
	struct diag d;
	diag_init(&d);
	assert_int_equal(sched_topo_check(pw->w.cs->topo, &d), NS_OK);
	*state = &pw->w;
	teardown(state);
	return 0;
}

#define CASE(f) cmocka_unit_test_setup_teardown(f, setup, teardown)
#define PCASE(f, su) cmocka_unit_test_setup_teardown(f, su, teardown_placement)

int main(void)
{
	const struct CMUnitTest tests[] = {
		CASE(test_sysctl_scaling),
		CASE(test_wakeup_preemption),
		CASE(test_no_wakeup_preemption),
		CASE(test_pick_leftmost_fifo),
		CASE(test_pick_next_buddy),
		CASE(test_pick_last_buddy),
		CASE(test_min_vruntime),
		CASE(test_sched_slice),
		CASE(test_check_catches_broken_state),
		CASE(test_misuse_refused),
		PCASE(test_domains_from_slit, setup_numa),
		PCASE(test_wake_affine, setup_numa),
		PCASE(test_wakeup_migrates, setup_numa),
		PCASE(test_select_idle_sibling, setup_smt),
		PCASE(test_load_balance_imbalance, setup_numa),
		PCASE(test_load_balance_balanced, setup_numa),
		PCASE(test_fork_balance_spreads, setup_numa),
		PCASE(test_find_idlest_group, setup_numa),
		CASE(test_fork_needs_placement),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
