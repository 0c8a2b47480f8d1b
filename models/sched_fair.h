/*
 * sched_fair — the Linux v5.9 CFS scheduler (kernel/sched/fair.c) for
 * nice-0 tasks on the simulated CPUs of a cpu_sys (cost/cpu.h): one run
 * queue (struct cfs_rq) per CPU and one scheduling entity (struct
 * sched_entity) per task, driven by a workload through task ids and CPU
 * indexes (positions in cpu_sys.cpu[]).
 *
 * What it models, by kernel function: update_curr (the running task's
 * vruntime grows 1:1 with the cycles it runs: NICE_0_LOAD, no weights),
 * update_min_vruntime, place_entity for a wake-up (max(vruntime,
 * min_vruntime - sched_latency / 2): GENTLE_FAIR_SLEEPERS),
 * enqueue_entity / dequeue_entity (DEQUEUE_SLEEP) / put_prev_entity /
 * set_next_entity, pick_next_entity with its next and last buddies and
 * clear_buddies, wakeup_preempt_entity, check_preempt_wakeup
 * (WAKEUP_PREEMPTION, LAST_BUDDY; NEXT_BUDDY off as in v5.9's features.h),
 * check_preempt_tick with sched_slice and __sched_period, and the sysctls
 * scaled by get_update_sysctl_factor() (SCHED_TUNABLESCALING_LOG: 1 +
 * ilog2(min(nr_cpus, 8))).  sched_nr_latency is the kernel's static 8 (it
 * is recomputed only when a sysctl is written).  A context switch costs
 * the CPU `ctx_switch_cycles` (schedule() + switch_to) and a wake-up costs
 * the waker `wake_cycles` (try_to_wake_up).  Preemption takes effect when
 * the running task's system call returns (cfs_return_to_user: no
 * CONFIG_PREEMPTION).  The scheduler tick runs at multiples of 1/hz on
 * every CPU's own clock (no tick phase).
 *
 * Placement (cfs_params.placement).  CFS_PLACEMENT_NONE: no migration; a
 * task runs on the CPU it was forked onto, which the workload chooses,
 * and the model behaves bit for bit as before the placement work,
 * including two small differences from fair.c that its published results
 * were measured with: update_curr always ends with update_min_vruntime
 * (fair.c returns early without a running task or elapsed time), and
 * check_preempt_tick's slice-expired case does not clear_buddies(curr).
 * CFS_PLACEMENT_V59 follows v5.9's fair.c in both and adds, over the
 * sched domains of models/sched_topology.h (SMT, MC = LLC = node, NUMA
 * levels by SLIT distance):
 *   try_to_wake_up -> select_task_rq_fair(SD_BALANCE_WAKE, WF_SYNC):
 *     record_wakee, wake_wide, the domain walk to the first SD_WAKE_AFFINE
 *     domain spanning prev_cpu, wake_affine (wake_affine_idle, then
 *     wake_affine_weight with WA_BIAS), select_idle_sibling (target, prev,
 *     recent_used_cpu, select_idle_core with has_idle_cores,
 *     select_idle_cpu with SIS_PROP's avg_idle / avg_scan_cost bound,
 *     select_idle_smt); set_task_cpu with migrate_task_rq_fair (vruntime
 *     relative to min_vruntime moves to the new queue, PELT load leaves
 *     the old cfs_rq); ttwu_queue (the waker takes the target's rq lock in
 *     its LLC, else the wake list); ttwu_do_wakeup's avg_idle;
 *   pick_next_task_fair -> newidle_balance when nothing is queued (the
 *     avg_idle < sysctl_sched_migration_cost and rd->overload gates,
 *     max_newidle_lb_cost per domain, decayed by 253/256 a second);
 *   wake_up_new_task -> select_task_rq_fair(SD_BALANCE_FORK): the
 *     highest domain with SD_BALANCE_FORK, find_idlest_cpu down from it
 *     (find_idlest_group with update_sg_wakeup_stats and
 *     update_pick_idlest: the local node while it has an idle CPU, then
 *     most idle CPUs, lowest util, lowest avg_load; find_idlest_group_cpu
 *     with every idle CPU in the same idle state), counted as sbf_count /
 *     sbf_balanced / sbf_pushed (v15 /proc/schedstat prints these; v5.9
 *     no longer increments them, numasim counts what they name);
 *   scheduler_tick -> trigger_load_balance -> rebalance_domains per
 *     domain at get_sd_balance_interval (balance_interval ms x busy_factor
 *     when busy, in jiffies, at most HZ x nr_cpus / 10);
 *   load_balance: should_we_balance, update_sd_lb_stats over the groups,
 *     group types has_spare / fully_busy / overloaded, update_sd_pick_busiest,
 *     find_busiest_group's balanced tests, calculate_imbalance
 *     (migrate_util, migrate_task by nr_running or idle CPUs with
 *     prefer_sibling, adjust_numa_imbalance, migrate_load by avg_load),
 *     find_busiest_queue, detach_tasks (loop_max 32, can_migrate_task's
 *     task_hot test with cache_nice_tries, one task for a newly idle
 *     balance), attach with check_preempt_curr; nr_balance_failed and
 *     balance_interval as load_balance keeps them;
 *   PELT: per task and per cfs_rq load_avg (runnable) and util_avg
 *     (running), y^32 = 1/2 per 1024 us, in continuous form (the kernel
 *     sums whole periods); a forked task starts at load 1024 and util
 *     (1024 - rq util) / 2 (init_entity_runnable_average,
 *     post_init_entity_util_avg).
 * Costs, through the cost model: every rq the code probes is a cache line
 * read (a transfer when its CPU wrote it last), the loop bodies and
 * straight-line parts are estimated work cycles (sched_fair.c), and a task
 * switched in touches its 512 bytes of task_struct / pt_regs / stack,
 * which a migration leaves on the old CPU.  Simplified, and why: group
 * types from nr_running alone (util_avg is kept, but group_has_capacity's
 * and group_is_overloaded's utilisation tests are not applied); no active
 * balancing (the stopper thread), no nohz idle balancing (idle CPUs do not
 * tick), no
 * SD_SERIALIZE lock, no rotation of skipped tasks in detach_tasks, no
 * misfit or asym packing (equal capacities), no NUMA balancing (no
 * task_numa_fault: tasks do not fault), no cgroups.  wake_affine_idle
 * follows v5.9 as understood here (no "prev idle" test; that came later,
 * UNSURE from memory, no v5.9 tree was read); likewise find_idlest_group
 * (v5.5's rework by V. Guittot as it stood in v5.9: at SD_NUMA a local
 * group with spare capacity keeps the task while it has an idle CPU;
 * later kernels put adjust_numa_imbalance there instead; from memory,
 * UNSURE).  That v5.9 no longer increments sbf_* is inferred from the
 * v4.6 tree read (xing393939/linux-4.6.2: only stats.c prints them).  Still common to both: no
 * task groups, no weights (all tasks nice 0), no START_DEBIT (forked
 * tasks start at their se.vruntime, 0 unless set), no skip buddy (no
 * sched_yield).  The run queue is an array in enqueue order instead of an
 * rbtree: the first smallest vruntime is the rbtree's leftmost with its
 * FIFO order among equal keys.
 *
 * Invariants (cfs_check()): every runnable task is on exactly one run
 * queue, its own CPU's, and is not that queue's curr; every running task
 * is the curr of its CPU's queue and on no queue; sleeping, dead and new
 * tasks are on none; the queue lengths add up to the runnable tasks and
 * the currs to the running ones; the next and last buddies are -1, curr or
 * queued on their queue; a task put back by a preemption is queued and
 * its queue has no curr; need_resched is only set with a curr or a task
 * put back; min_vruntime never decreases between two cfs_check() calls.
 *
 * The structures are public so that tests (and later the placement code)
 * can read them; only sched_fair.c and sched_fair_setup.c change them,
 * except tests that break them on purpose to see cfs_check() fail.
 *
 * Error policy: cfs_create returns NS_EINPUT for parameters out of range
 * (no CPUs, no tasks, zero hz or above 100000, zero latency or minimum
 * granularity, clock_ghz <= 0) and NS_ENOMEM when host memory runs out.
 * A call that does not fit the task's state (waking a task that is not
 * sleeping, forking one twice, blocking a CPU with nothing running, a task
 * id or CPU index out of range) is a caller bug: NS_EINTERNAL, nothing
 * changes.  cfs_check() returns NS_EINTERNAL (with a diag message when d is
 * not NULL) when an invariant is broken.  Nothing is printed.
 */
#ifndef NUMASIM_SCHED_FAIR_H
#define NUMASIM_SCHED_FAIR_H

#include <stdint.h>

#include "base/diag.h"
#include "models/sched_topology.h"
#include "cost/cache.h"
#include "cost/cpu.h"

#define CFS_SCHED_NR_LATENCY 8            /* fair.c's static sched_nr_latency */

/* Unscaled sysctl bases and costs; the workload fills them. */
struct cfs_params {
	uint32_t hz;                      /* CONFIG_HZ: tick rate */
	uint32_t sched_latency_ns;        /* sysctl_sched_latency base: 6000000 */
	uint32_t min_granularity_ns;      /* sysctl_sched_min_granularity: 750000 */
	uint32_t wakeup_granularity_ns;   /* sysctl_sched_wakeup_granularity: 1000000 */
	int wakeup_preemption;            /* sched_feat(WAKEUP_PREEMPTION) */
	uint32_t ctx_switch_cycles;       /* schedule() + switch_to, to the CPU */
	uint32_t wake_cycles;             /* try_to_wake_up, to the waker's CPU */
	enum cfs_placement {
		CFS_PLACEMENT_NONE = 0,   /* tasks stay on their fork CPU (the model before) */
		CFS_PLACEMENT_V59,        /* select_task_rq_fair + load balancing */
	} placement;
	/* v5.9 placement: the address space for the run queues' and tasks'
	 * cache lines (required then; unused with placement none) */
	struct cache_as *as;
	int task_node;                    /* node of the tasks' task_struct and stack */
};

/*
 * schedstat counters (CONFIG_SCHEDSTATS names; docs/design/slub-model.md §13):
 * X(name, description).  Per CPU (the rq's):
 */
#define CFS_CPU_STAT_MAP(X)                                                    \
	X(ttwu_count, "wake-ups done by this CPU")                              \
	X(ttwu_local, "of which of a task placed on this CPU")                 \
	X(nr_migrations, "tasks that left this CPU (set_task_cpu)")             \
	X(nr_wakeups_affine_attempts, "wake_affine calls")                     \
	X(nr_wakeups_affine, "wake_affine picked the waker's CPU")             \
	X(sis_idle_core, "select_idle_sibling: an idle core found")            \
	X(sis_idle_cpu, "select_idle_sibling: an idle CPU found by the scan")  \
	X(sis_fail, "select_idle_sibling: no idle CPU, the target kept")       \
	X(newidle_count, "newidle_balance calls")
/* Per CPU and domain (the "domainN" lines of /proc/schedstat; lb_* sum the
 * idle types, newidle_lb_* are the CPU_NEWLY_IDLE column): */
#define CFS_SD_STAT_MAP(X)                                                     \
	X(ttwu_wake_remote, "wake-ups of a task on another CPU of this domain")\
	X(ttwu_move_affine, "wake-ups moved to the waker's CPU by wake_affine")\
	X(lb_count, "load_balance calls")                                      \
	X(lb_balanced, "of which found the domain balanced")                   \
	X(lb_failed, "of which moved nothing from the busiest queue")          \
	X(lb_imbalance, "sum of the imbalances computed")                      \
	X(lb_gained, "tasks moved here")                                       \
	X(lb_nobusyg, "no busier group")                                       \
	X(lb_nobusyq, "no busier queue in the busiest group")                  \
	X(newidle_lb_count, "load_balance calls from newidle_balance")         \
	X(newidle_lb_gained, "tasks they moved here")                          \
	X(sbf_count, "fork balancing: find_idlest_group calls in this domain") \
	X(sbf_balanced, "of which kept the task in the local group")           \
	X(sbf_pushed, "of which placed it on another CPU")

enum cfs_cpu_stat {
#define CFS_CPU_STAT_ENUM(name, desc) CFS_CPU_##name,
	CFS_CPU_STAT_MAP(CFS_CPU_STAT_ENUM)
#undef CFS_CPU_STAT_ENUM
	CFS_NR_CPU_STATS
};
enum cfs_sd_stat {
#define CFS_SD_STAT_ENUM(name, desc) CFS_SD_##name,
	CFS_SD_STAT_MAP(CFS_SD_STAT_ENUM)
#undef CFS_SD_STAT_ENUM
	CFS_NR_SD_STATS
};
const char *cfs_cpu_stat_name(int i);
const char *cfs_sd_stat_name(int i);

enum cfs_task_state {
	CFS_TASK_NEW = 0,                 /* not yet on a CPU (before wake_up_new_task) */
	CFS_TASK_RUNNABLE,                /* queued on its CPU's cfs_rq */
	CFS_TASK_RUNNING,                 /* its CPU's cfs_rq curr */
	CFS_TASK_SLEEPING,                /* blocked, waits for cfs_try_to_wake_up */
	CFS_TASK_DEAD,                    /* exited */
};

/* Why curr must give up its CPU at the next return to user mode. */
enum cfs_resched {
	CFS_RESCHED_NONE = 0,
	CFS_RESCHED_TICK,                 /* by check_preempt_tick */
	CFS_RESCHED_WAKEUP,               /* by check_preempt_wakeup */
};

struct sched_entity {                     /* one task's */
	uint64_t vruntime;                /* cycles */
	int cpu;                          /* task_cpu(); -1 while new */
	enum cfs_task_state state;
	/* v5.9 placement */
	double load_avg, util_avg;        /* PELT (se->avg), 0..1024 */
	uint64_t avg_stamp;               /* clock of the last PELT update */
	uint64_t last_ran;                /* se.exec_start: clock it last stopped running */
	int recent_used_cpu;              /* p->recent_used_cpu, -1 */
	int64_t last_wakee;               /* p->last_wakee, -1 */
	uint32_t wakee_flips;
	uint64_t wakee_flip_decay_ts;     /* cycles */
	uint64_t addr;                    /* task_struct + stack lines (0: none) */
};

/* One CPU's cfs_rq. */
struct cfs_rq {
	uint32_t *queue;                  /* runnable tasks but curr, enqueue order */
	uint32_t nr_queued;
	int64_t curr;                     /* running task or -1 */
	int64_t next, last;               /* buddies or -1 */
	int64_t preempted;                /* put back by a preemption, not yet replaced; or -1 */
	uint64_t min_vruntime;
	uint64_t exec_start;              /* clock up to which curr's vruntime is charged */
	uint64_t slice_start;             /* clock when curr was picked (prev_sum_exec_runtime) */
	uint64_t next_tick;               /* clock of the next scheduler tick */
	enum cfs_resched need_resched;
	uint64_t min_vruntime_checked;    /* min_vruntime at the last cfs_check() */
	/* v5.9 placement */
	double load_avg, util_avg;        /* PELT of the cfs_rq (blocked load included) */
	uint64_t avg_stamp;
	uint64_t avg_idle, idle_stamp;    /* rq->avg_idle, rq->idle_stamp (cycles) */
	uint64_t next_balance;            /* rq->next_balance (cycles) */
	uint64_t addr;                    /* the rq's hot line */
	uint64_t stat[CFS_NR_CPU_STATS];
};

/* The sysctls after get_update_sysctl_factor(), and the tick, in cycles. */
struct cfs_sysctl {
	uint64_t latency, min_granularity, wakeup_granularity;
	uint64_t tick;
};

struct cfs_stats {
	uint64_t ctx_switches;            /* picks of another task than the one put back */
	uint64_t preemptions;             /* of which switches away from a runnable task */
	uint64_t wake_preemptions;        /* of which by check_preempt_wakeup */
	uint64_t wakeups;                 /* cfs_try_to_wake_up calls */
	uint64_t migrations;              /* set_task_cpu to another CPU */
};

struct cfs_sched {
	struct cpu_sys *sys;
	struct sched_topo *topo;          /* v5.9 placement, else NULL */
	uint64_t *sd_stat;                /* [cpu][level][CFS_NR_SD_STATS] */
	double *max_newidle_lb_cost;      /* [cpu][level] ns */
	uint64_t *next_decay_max_lb_cost; /* [cpu][level] cycles */
	uint64_t *avg_scan_cost;          /* [cpu] sd_llc->avg_scan_cost, ns */
	uint8_t *has_idle_cores;          /* [cpu] by sd_llc_id: sd_llc_shared */
	uint64_t migration_cost;          /* sysctl_sched_migration_cost (500 us), cycles */
	struct cfs_params params;
	struct cfs_sysctl sysctl;
	uint32_t nr_tasks;
	struct sched_entity *se;          /* [nr_tasks] */
	struct cfs_rq *rq;                /* [sys->nr_cpus], each queue [nr_tasks] */
	struct cfs_stats stats;
};

/* A scheduler for tasks 0..nr_tasks-1 (all new) on the CPUs of sys, which
 * must outlive it. */
int cfs_create(const struct cfs_params *p, struct cpu_sys *sys, uint32_t nr_tasks,
	       struct cfs_sched **out);
void cfs_destroy(struct cfs_sched *cs);

/* wake_up_new_task: new task t becomes runnable on cpu at its se.vruntime
 * (no placement, no preemption check: the forking parent runs nowhere). */
int cfs_wake_up_new_task(struct cfs_sched *cs, uint32_t t, int cpu);

/* wake_up_new_task with v5.9 placement: select_task_rq_fair(p,
 * parent_cpu, SD_BALANCE_FORK, 0), i.e. find_idlest_cpu down the domains
 * with SD_BALANCE_FORK (all but NUMA levels beyond node_reclaim_distance),
 * then as cfs_wake_up_new_task on that CPU (*cpu).  NS_EINTERNAL with
 * placement none (the workload places its tasks itself). */
int cfs_sched_fork(struct cfs_sched *cs, uint32_t t, int parent_cpu, int *cpu);

/* try_to_wake_up of sleeping task t by a task running on waker_cpu: the
 * waker pays wake_cycles; with v5.9 placement select_task_rq_fair
 * (SD_BALANCE_WAKE, WF_SYNC as for a socket's sk_data_ready and
 * write_space) picks the CPU and set_task_cpu migrates t there; then
 * ttwu_do_activate on that CPU (enqueue_entity with ENQUEUE_WAKEUP at its
 * clock, check_preempt_wakeup).  *cpu is t's CPU. */
int cfs_try_to_wake_up(struct cfs_sched *cs, uint32_t t, int waker_cpu, int *cpu);

/* The task to run on cpu: curr while there is one; else pick_next_entity
 * and set_next_entity, charging a context switch when the task picked is
 * not the one just put back (with v5.9 placement also the task's hot
 * lines, cold after a migration); with v5.9 placement and nothing queued,
 * newidle_balance first; -1 when nothing is runnable (the CPU idles). */
int64_t cfs_pick_next(struct cfs_sched *cs, int cpu);

/* scheduler_tick: when cpu's clock reached its next tick, task_tick_fair
 * (check_preempt_tick) for curr; with v5.9 placement then
 * trigger_load_balance -> rebalance_domains when rq->next_balance is due. */
void cfs_tick(struct cfs_sched *cs, int cpu);

/* curr of cpu blocks (cfs_sleep) or exits (cfs_task_dead):
 * dequeue_entity(DEQUEUE_SLEEP). */
int cfs_sleep(struct cfs_sched *cs, int cpu);
int cfs_task_dead(struct cfs_sched *cs, int cpu);

/* The end of curr's system call on cpu: if need_resched is set,
 * put_prev_entity puts curr back in the queue and the next cfs_pick_next
 * decides. */
void cfs_return_to_user(struct cfs_sched *cs, int cpu);

/* State of task t (t < nr_tasks). */
enum cfs_task_state cfs_task_state(const struct cfs_sched *cs, uint32_t t);

int cfs_check(struct cfs_sched *cs, struct diag *d);

/* v5.9 placement steps, public for the tests (the calls above use them). */
int cfs_select_task_rq(struct cfs_sched *cs, uint32_t t, int waker_cpu);
int cfs_wake_affine(struct cfs_sched *cs, const struct sched_domain *sd, uint32_t t,
		    int this_cpu, int prev_cpu, int sync);
int cfs_select_idle_sibling(struct cfs_sched *cs, uint32_t t, int from, int prev, int target);
enum cfs_idle { CFS_CPU_IDLE, CFS_CPU_NOT_IDLE, CFS_CPU_NEWLY_IDLE };
/* select_task_rq_fair for SD_BALANCE_FORK from parent_cpu; and
 * find_idlest_group of this_cpu's domain sd: the index of the idlest
 * group, -1 to stay in the local group (groups[0]). */
int cfs_select_task_rq_fork(struct cfs_sched *cs, uint32_t t, int parent_cpu);
int cfs_find_idlest_group(struct cfs_sched *cs, const struct sched_domain *sd, int this_cpu);
/* load_balance of this_cpu's domain sd; returns the tasks moved, *imbalance
 * (may be NULL) the imbalance calculate_imbalance computed (0 if balanced). */
int cfs_load_balance(struct cfs_sched *cs, int this_cpu, struct sched_domain *sd,
		     enum cfs_idle idle, long *imbalance);
/* PELT signals of task t and of cpu's cfs_rq brought to now. */
void cfs_update_load(struct cfs_sched *cs, int cpu);

/* The schedstat counters: fn(arg, cpu index, domain level name or NULL,
 * counter name, value) for every non-zero counter. */
typedef int (*cfs_stat_fn)(void *arg, int cpu, const char *domain, const char *name,
			   uint64_t value);
int cfs_stats(const struct cfs_sched *cs, cfs_stat_fn fn, void *arg);

#endif
