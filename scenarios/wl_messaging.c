/*
 * wl_messaging — perf bench sched messaging (socket mode); see
 * wl_messaging.h.
 *
 * Design notes.  One engine event = one step of one CPU: pick a task if
 * the CPU has none (charging a context switch), then one message operation
 * of that task (a write or a read), then the next step is scheduled at the
 * CPU's clock after the operation.  Events therefore interleave the CPUs
 * in simulated time, which is what makes slabs move between CPUs the way
 * the reference's §3 describes (allocated on a sender CPU, freed remotely
 * while frozen there, parked on a receiver CPU's partial chain, ...).  A
 * CPU with nothing to run has no pending event; a wake-up onto it
 * schedules one.  All state (tasks, run queues, connection rings) is
 * allocated before the first event: the loop does no allocation.
 *
 * Estimates of the straight-line costs (the same for both SLUB layouts):
 *   send_cycles 1500: write() entry/exit, unix_stream_sendmsg without the
 *     two slab allocations (scm_send, sock_alloc_send_pskb checks, the
 *     100-byte copy_from_user, peer lock, skb_queue_tail, sk_data_ready);
 *     about 0.5-0.7 us at 2-3 GHz, the usual cost of a small AF_UNIX write.
 *   recv_cycles 1500: read() entry/exit, unix_stream_read_generic without
 *     the two frees (peek, copy_to_user, unlink, destructor, sock_wfree).
 *   ctx_switch_cycles 3000: schedule() + switch_to between processes
 *     (lmbench lat_ctx figures of 1-2 us on 2-socket servers).
 *   wake_cycles 400: try_to_wake_up on the waker's CPU.
 *   wake_latency_cycles 2000 and wake_jitter_cycles 1000: reschedule IPI
 *     and exit from a shallow idle state.
 *   hz 250 (Kconfig's default CONFIG_HZ_250); sched_latency_ns 6000000,
 *     min_granularity_ns 750000, wakeup_granularity_ns 1000000: v5.9's
 *     sysctl_sched_latency, sysctl_sched_min_granularity and
 *     sysctl_sched_wakeup_granularity before the log scaling (fair.c),
 *     scaled in setup() by 1 + ilog2(min(nr_cpus, 8)) as
 *     get_update_sysctl_factor() does.  sched_nr_latency is their ratio
 *     (8), vruntime advances 1:1 with cycles (nice 0: NICE_0_LOAD).
 * They set the absolute Total time; the SLUB share of a message is what
 * the layouts change.
 */
#include "scenarios/wl_messaging.h"

#include <stdlib.h>
#include <string.h>

#include "sim/ctx.h"
#include "base/diag.h"

enum { EV_STEP = 1 };
enum task_state { T_RUNNABLE, T_RUNNING, T_BLOCKED, T_DONE };
enum step_out { OP_CONT, OP_BLOCK, OP_DONE };

struct msg {
	slub_obj_t skb, data;
	uint64_t ready;                   /* sender's clock after the write */
};

struct conn {                             /* receiver j of a group */
	struct msg *ring;                 /* [inflight_limit] */
	uint32_t head, count;
	uint32_t waiters;                 /* bit s: sender s of the group blocked */
	int receiver_blocked;
};

struct task {
	uint64_t vruntime;                /* cycles, CFS's se->vruntime */
	uint32_t group, idx;              /* idx in 0..19 */
	int sender;
	int cpu;                          /* index in cpu_sys.cpu[] */
	enum task_state state;
	uint64_t done;                    /* messages written or read */
};

/* One CPU's cfs_rq.  The runnable tasks other than the running one are
 * kept in enqueue order (at most ~nr_tasks / nr_cpus, a dozen for -g 20 on
 * 72 CPUs), so the first smallest vruntime is the rbtree's leftmost with
 * its FIFO order among equal keys. */
struct rq {
	uint32_t *q;                      /* runnable task ids, enqueue order */
	uint32_t cap, count;
	int64_t cur;                      /* running task or -1 */
	int64_t next, last;               /* CFS buddies or -1 */
	int64_t prev;                     /* just switched out while runnable, or -1 */
	uint64_t min_vruntime;
	uint64_t exec_start;              /* clock up to which cur's vruntime is charged */
	uint64_t pick_clock;              /* clock when cur was picked (slice start) */
	uint64_t next_tick;
	int resched;                      /* 0, RS_TICK or RS_WAKE (need_resched) */
	int scheduled;                    /* a step event is pending */
};

enum { RS_TICK = 1, RS_WAKE = 2 };
#define SCHED_NR_LATENCY 8

struct messaging_world {
	struct slub_world *w;
	struct cpu_sys *s;
	struct slub_cache *skb, *data;
	const struct wl_msg_params *p;
	struct sim_ctx *ctx;
	struct rng *rng;
	struct task *tasks;
	struct conn *conns;
	struct rq *rqs;
	uint32_t nr_tasks;
	uint64_t per_task;                /* 20 * loops */
	uint32_t wake_below;              /* wake senders at <= this many in flight */
	uint64_t latency, min_gran, wakeup_gran, tick;  /* cycles, scaled sysctls */
	struct wl_msg_result *r;
};

void wl_msg_params_default(struct wl_msg_params *p)
{
	p->groups = 20;
	p->loops = 100;
	p->inflight_limit = 278;
	p->send_cycles = 1500;
	p->recv_cycles = 1500;
	p->ctx_switch_cycles = 3000;
	p->wake_cycles = 400;
	p->wake_latency_cycles = 2000;
	p->wake_jitter_cycles = 1000;
	p->hz = 250;
	p->sched_latency_ns = 6000000;
	p->min_granularity_ns = 750000;
	p->wakeup_granularity_ns = 1000000;
	p->wakeup_preemption = 1;
}

static void rq_push(struct rq *q, uint32_t t)
{
	q->q[q->count++] = t;
}

static void rq_remove_at(struct rq *q, uint32_t i)
{
	memmove(&q->q[i], &q->q[i + 1], (q->count - i - 1) * sizeof *q->q);
	q->count--;
}

/* Position of the leftmost entity (first smallest vruntime); count > 0. */
static uint32_t rq_leftmost(const struct messaging_world *m, const struct rq *q)
{
	uint32_t best = 0;
	uint64_t v = m->tasks[q->q[0]].vruntime;
	for (uint32_t i = 1; i < q->count; i++)
		if (m->tasks[q->q[i]].vruntime < v) {
			v = m->tasks[q->q[i]].vruntime;
			best = i;
		}
	return best;
}

/* update_min_vruntime: monotonic, the smaller of curr and the leftmost. */
static void update_min_vruntime(const struct messaging_world *m, struct rq *q)
{
	uint64_t v = q->min_vruntime;
	int have = 0;
	if (q->cur >= 0) {
		v = m->tasks[q->cur].vruntime;
		have = 1;
	}
	if (q->count) {
		uint64_t l = m->tasks[q->q[rq_leftmost(m, q)]].vruntime;
		v = have && v < l ? v : l;
	}
	if (v > q->min_vruntime)
		q->min_vruntime = v;
}

/* update_curr: charge the running task's vruntime up to now. */
static void update_curr(const struct messaging_world *m, struct rq *q, uint64_t now)
{
	if (q->cur >= 0 && now > q->exec_start) {
		m->tasks[q->cur].vruntime += now - q->exec_start;
		q->exec_start = now;
	}
	update_min_vruntime(m, q);
}

/* wakeup_preempt_entity(curr, se): 1 when curr is more than the wake-up
 * granularity ahead of se, -1 when it is not ahead, else 0. */
static int wakeup_preempt_entity(const struct messaging_world *m, uint64_t curr, uint64_t se)
{
	int64_t vdiff = (int64_t)(curr - se);
	if (vdiff <= 0)
		return -1;
	return vdiff > (int64_t)m->wakeup_gran ? 1 : 0;
}

/* sched_slice for equal weights: __sched_period(nr) / nr. */
static uint64_t sched_slice(const struct messaging_world *m, uint32_t nr_running)
{
	uint64_t period = nr_running > SCHED_NR_LATENCY ? nr_running * m->min_gran : m->latency;
	return period / nr_running;
}

/* pick_next_entity after put_prev: leftmost, unless a buddy (last, then
 * next) is within the wake-up granularity of it; clear_buddies. */
static uint32_t pick_next(struct messaging_world *m, struct rq *q)
{
	uint32_t li = rq_leftmost(m, q);
	uint64_t left = m->tasks[q->q[li]].vruntime;
	int64_t se = q->q[li];
	if (q->last >= 0 && wakeup_preempt_entity(m, m->tasks[q->last].vruntime, left) < 1)
		se = q->last;
	if (q->next >= 0 && wakeup_preempt_entity(m, m->tasks[q->next].vruntime, left) < 1)
		se = q->next;
	if (q->next == se)
		q->next = -1;
	if (q->last == se)
		q->last = -1;
	if (se != q->q[li])
		for (li = 0; q->q[li] != (uint32_t)se; li++)
			;
	rq_remove_at(q, li);
	return (uint32_t)se;
}

/* check_preempt_wakeup for woken task t on q (t already enqueued). */
static void check_preempt_wakeup(struct messaging_world *m, struct rq *q, uint32_t t)
{
	if (!m->p->wakeup_preemption || q->cur < 0 || q->resched)
		return;
	if (wakeup_preempt_entity(m, m->tasks[q->cur].vruntime, m->tasks[t].vruntime) != 1)
		return;
	q->next = t;
	q->resched = RS_WAKE;
	if (q->count + 1 >= SCHED_NR_LATENCY)
		q->last = q->cur;
}

/* check_preempt_tick, at a tick while q->cur runs. */
static void check_preempt_tick(struct messaging_world *m, struct rq *q, uint64_t now)
{
	update_curr(m, q, now);
	if (!q->count || q->resched)
		return;
	uint64_t ideal = sched_slice(m, q->count + 1);
	uint64_t delta_exec = now - q->pick_clock;
	if (delta_exec > ideal) {
		q->resched = RS_TICK;
		return;
	}
	if (delta_exec < m->min_gran)
		return;
	uint64_t l = m->tasks[q->q[rq_leftmost(m, q)]].vruntime;
	int64_t d = (int64_t)(m->tasks[q->cur].vruntime - l);
	if (d > (int64_t)ideal)
		q->resched = RS_TICK;
}

/* Task t becomes runnable on its CPU; the waker's clock is `when`. */
static int wake(struct messaging_world *m, uint32_t t, uint64_t when)
{
	struct task *tk = &m->tasks[t];
	struct rq *q = &m->rqs[tk->cpu];
	struct cpu *c = &m->s->cpu[tk->cpu];

	/* enqueue_entity(ENQUEUE_WAKEUP): update_curr, place_entity */
	update_curr(m, q, c->now);
	uint64_t thresh = m->latency / 2;
	if (q->min_vruntime > thresh && tk->vruntime < q->min_vruntime - thresh)
		tk->vruntime = q->min_vruntime - thresh;
	tk->state = T_RUNNABLE;
	rq_push(q, t);
	m->r->wakeups++;
	check_preempt_wakeup(m, q, t);
	if (q->scheduled)
		return NS_OK;
	uint64_t jitter = m->p->wake_jitter_cycles
		? rng_uniform_int(m->rng, m->p->wake_jitter_cycles + 1) : 0;
	cpu_advance_to(c, when + m->p->wake_latency_cycles + jitter);
	q->scheduled = 1;
	return sim_ctx_schedule_at(m->ctx, c->now, EV_STEP, (uint32_t)tk->cpu);
}

static uint32_t sender_id(uint32_t g, uint32_t s)
{
	return g * 2 * WL_MSG_FDS + s;
}

static uint32_t receiver_id(uint32_t g, uint32_t j)
{
	return g * 2 * WL_MSG_FDS + WL_MSG_FDS + j;
}

static int do_send(struct messaging_world *m, struct task *tk, struct cpu *c, enum step_out *out)
{
	uint32_t j = (uint32_t)(tk->done % WL_MSG_FDS);
	struct conn *cn = &m->conns[tk->group * WL_MSG_FDS + j];

	if (cn->count >= m->p->inflight_limit) {
		/* sock_alloc_send_pskb: sk_wmem_alloc >= sk_sndbuf */
		cn->waiters |= 1u << tk->idx;
		m->r->sender_blocks++;
		*out = OP_BLOCK;
		return NS_OK;
	}
	struct msg *mg = &cn->ring[(cn->head + cn->count) % m->p->inflight_limit];
	mg->skb = slub_alloc(m->w, c, m->skb, SLUB_NUMA_NO_NODE);
	mg->data = mg->skb ? slub_alloc(m->w, c, m->data, SLUB_NUMA_NO_NODE) : 0;
	if (!mg->data) {
		m->r->alloc_failed = 1;
		if (mg->skb)
			slub_free(m->w, c, m->skb, mg->skb);
		return NS_ERANGE;
	}
	cpu_work(c, m->p->send_cycles);
	mg->ready = c->now;
	cn->count++;
	tk->done++;
	if (cn->receiver_blocked) {
		cn->receiver_blocked = 0;
		cpu_work(c, m->p->wake_cycles);
		int rc = wake(m, receiver_id(tk->group, j), c->now);
		if (rc != NS_OK)
			return rc;
	}
	*out = tk->done == m->per_task ? OP_DONE : OP_CONT;
	return NS_OK;
}

static int do_recv(struct messaging_world *m, struct task *tk, struct cpu *c, enum step_out *out)
{
	struct conn *cn = &m->conns[tk->group * WL_MSG_FDS + tk->idx];

	if (cn->count == 0) {
		cn->receiver_blocked = 1;
		m->r->receiver_blocks++;
		*out = OP_BLOCK;
		return NS_OK;
	}
	struct msg mg = cn->ring[cn->head];
	cn->head = (cn->head + 1) % m->p->inflight_limit;
	cn->count--;
	cpu_advance_to(c, mg.ready);
	int rc = slub_free(m->w, c, m->data, mg.data);
	if (rc == NS_OK)
		rc = slub_free(m->w, c, m->skb, mg.skb);
	if (rc != NS_OK)
		return rc;
	cpu_work(c, m->p->recv_cycles);
	tk->done++;
	m->r->messages++;
	if (cn->waiters && cn->count <= m->wake_below) {
		/* sock_wfree -> unix_write_space: wake every blocked writer */
		uint32_t wa = cn->waiters;
		cn->waiters = 0;
		for (uint32_t s = 0; s < WL_MSG_FDS; s++) {
			if (!(wa & (1u << s)))
				continue;
			cpu_work(c, m->p->wake_cycles);
			rc = wake(m, sender_id(tk->group, s), c->now);
			if (rc != NS_OK)
				return rc;
		}
	}
	*out = tk->done == m->per_task ? OP_DONE : OP_CONT;
	return NS_OK;
}

static int step(struct messaging_world *m, int ci)
{
	struct rq *q = &m->rqs[ci];
	struct cpu *c = &m->s->cpu[ci];

	if (q->cur < 0) {
		if (q->count == 0) {
			q->scheduled = 0;         /* idle until a wake-up */
			return NS_OK;
		}
		uint32_t t = pick_next(m, q);
		if ((int64_t)t != q->prev) {
			cpu_work(c, m->p->ctx_switch_cycles);
			m->r->ctx_switches++;
			if (q->prev >= 0) {
				m->r->preemptions++;
				m->r->wake_preemptions += q->resched == RS_WAKE;
			}
		}
		q->cur = t;
		q->prev = -1;
		q->resched = 0;
		m->tasks[t].state = T_RUNNING;
		q->exec_start = c->now;
		q->pick_clock = c->now;
	}
	struct task *tk = &m->tasks[q->cur];
	enum step_out out = OP_CONT;
	int rc = tk->sender ? do_send(m, tk, c, &out) : do_recv(m, tk, c, &out);
	if (rc != NS_OK)
		return rc;
	if (c->now >= q->next_tick) {
		q->next_tick = (c->now / m->tick + 1) * m->tick;
		if (out == OP_CONT)
			check_preempt_tick(m, q, c->now);
	}
	if (out != OP_CONT) {
		/* dequeue_entity(DEQUEUE_SLEEP): update_curr, clear_buddies */
		update_curr(m, q, c->now);
		tk->state = out == OP_BLOCK ? T_BLOCKED : T_DONE;
		if (q->next == q->cur)
			q->next = -1;
		if (q->last == q->cur)
			q->last = -1;
		q->cur = -1;
		q->resched = 0;
	} else if (q->resched) {
		/* put_prev_entity: back in the tree; pick_next_entity decides */
		update_curr(m, q, c->now);
		tk->state = T_RUNNABLE;
		rq_push(q, (uint32_t)q->cur);
		q->prev = q->cur;
		q->cur = -1;
	}
	return sim_ctx_schedule_at(m->ctx, c->now, EV_STEP, (uint32_t)ci);
}

static int setup(struct messaging_world *m)
{
	const struct wl_msg_params *p = m->p;
	int n = m->s->nr_cpus;

	m->nr_tasks = p->groups * 2 * WL_MSG_FDS;
	m->per_task = (uint64_t)WL_MSG_FDS * p->loops;
	m->wake_below = p->inflight_limit / 4;
	/* get_update_sysctl_factor(), SCHED_TUNABLESCALING_LOG */
	uint32_t factor = 1, cpus = n < 8 ? (uint32_t)n : 8;
	while (cpus >>= 1)
		factor++;
	double ghz = m->s->k.clock_ghz;
	m->latency = (uint64_t)((double)p->sched_latency_ns * factor * ghz + 0.5);
	m->min_gran = (uint64_t)((double)p->min_granularity_ns * factor * ghz + 0.5);
	m->wakeup_gran = (uint64_t)((double)p->wakeup_granularity_ns * factor * ghz + 0.5);
	m->tick = (uint64_t)(1e9 / p->hz * ghz + 0.5);
	m->tasks = calloc(m->nr_tasks, sizeof *m->tasks);
	m->conns = calloc((size_t)p->groups * WL_MSG_FDS, sizeof *m->conns);
	m->rqs = calloc((size_t)n, sizeof *m->rqs);
	if (!m->tasks || !m->conns || !m->rqs)
		return NS_ENOMEM;
	uint32_t cap = (m->nr_tasks + (uint32_t)n - 1) / (uint32_t)n;
	for (int i = 0; i < n; i++) {
		m->rqs[i].q = calloc(cap, sizeof *m->rqs[i].q);
		if (!m->rqs[i].q)
			return NS_ENOMEM;
		m->rqs[i].cap = cap;
		m->rqs[i].cur = -1;
		m->rqs[i].next = m->rqs[i].last = m->rqs[i].prev = -1;
	}
	for (uint32_t i = 0; i < p->groups * WL_MSG_FDS; i++) {
		m->conns[i].ring = calloc(p->inflight_limit, sizeof *m->conns[i].ring);
		if (!m->conns[i].ring)
			return NS_ENOMEM;
	}
	for (uint32_t t = 0; t < m->nr_tasks; t++) {
		struct task *tk = &m->tasks[t];
		uint32_t in_group = t % (2 * WL_MSG_FDS);
		tk->group = t / (2 * WL_MSG_FDS);
		tk->sender = in_group < WL_MSG_FDS;
		tk->idx = in_group % WL_MSG_FDS;
		tk->cpu = (int)(t % (uint32_t)n);
		tk->state = T_RUNNABLE;
		rq_push(&m->rqs[tk->cpu], t);
	}
	return NS_OK;
}

/* The parent's wake-up: shuffled run queues, each CPU starting after an
 * idle wake-up. */
static int start(struct messaging_world *m)
{
	for (int i = 0; i < m->s->nr_cpus; i++) {
		struct rq *q = &m->rqs[i];
		for (uint32_t k = q->count; k > 1; k--) {
			uint32_t r = rng_uniform_int(m->rng, k);
			uint32_t tmp = q->q[k - 1];
			q->q[k - 1] = q->q[r];
			q->q[r] = tmp;
		}
		if (!q->count)
			continue;
		struct cpu *c = &m->s->cpu[i];
		uint64_t jitter = m->p->wake_jitter_cycles
			? rng_uniform_int(m->rng, m->p->wake_jitter_cycles + 1) : 0;
		cpu_advance_to(c, c->now + m->p->wake_latency_cycles + jitter);
		q->scheduled = 1;
		int rc = sim_ctx_schedule_at(m->ctx, c->now, EV_STEP, (uint32_t)i);
		if (rc != NS_OK)
			return rc;
	}
	return NS_OK;
}

static int loop(struct messaging_world *m, const volatile sig_atomic_t *stop)
{
	struct event ev;
	uint32_t tick = 0;

	while (sim_ctx_next(m->ctx, &ev) == NS_OK) {
		if ((++tick & 0xfff) == 0 && stop && *stop)
			return WL_MSG_STOPPED;
		int rc = step(m, (int)ev.arg);
		if (rc != NS_OK)
			return rc;
	}
	for (uint32_t t = 0; t < m->nr_tasks; t++)
		if (m->tasks[t].state != T_DONE)
			return NS_EINTERNAL;
	return NS_OK;
}

static void teardown(struct messaging_world *m)
{
	if (m->rqs)
		for (int i = 0; i < m->s->nr_cpus; i++)
			free(m->rqs[i].q);
	if (m->conns)
		for (uint32_t i = 0; i < m->p->groups * WL_MSG_FDS; i++)
			free(m->conns[i].ring);
	free(m->rqs);
	free(m->conns);
	free(m->tasks);
	sim_ctx_destroy(m->ctx);
}

static int params_ok(const struct wl_msg_params *p, const struct cpu_sys *s)
{
	return p->groups > 0 && p->loops > 0 && p->inflight_limit > 0 && p->hz > 0 &&
	       p->hz <= 100000 && p->sched_latency_ns > 0 && p->min_granularity_ns > 0 &&
	       s->nr_cpus > 0 && s->k.clock_ghz > 0 &&
	       p->groups <= UINT32_MAX / (2 * WL_MSG_FDS) &&
	       p->loops <= UINT64_MAX / WL_MSG_FDS / 2 / p->groups;
}

int wl_messaging_run(struct slub_world *w, struct cpu_sys *s, struct slub_cache *skb,
		     struct slub_cache *data, const struct wl_msg_params *p, uint64_t seed,
		     const volatile sig_atomic_t *stop, struct wl_msg_result *r)
{
	struct messaging_world m = {.w = w, .s = s, .skb = skb, .data = data, .p = p, .r = r};
	int rc;

	memset(r, 0, sizeof *r);
	if (!params_ok(p, s))
		return NS_EINPUT;
	rc = sim_ctx_create(seed, (size_t)s->nr_cpus * 2, &m.ctx);
	if (rc != NS_OK)
		goto out;
	rc = sim_ctx_rng(m.ctx, 0, &m.rng);
	if (rc == NS_OK)
		rc = setup(&m);
	if (rc == NS_OK)
		rc = start(&m);
	if (rc == NS_OK)
		rc = loop(&m, stop);
	r->events = m.ctx->events;
	for (int i = 0; i < s->nr_cpus; i++)
		if (s->cpu[i].now > r->end_cycles)
			r->end_cycles = s->cpu[i].now;
	r->total_time_s = (double)r->end_cycles / (s->k.clock_ghz * 1e9);
out:
	teardown(&m);
	return rc;
}
