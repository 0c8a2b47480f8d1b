/*
 * wl_messaging — perf bench sched messaging (socket mode); see
 * wl_messaging.h.
 *
 * Design notes.  One engine event = one step of one CPU: ask the CFS model
 * (models/sched_fair.h) for the task to run, which charges a context
 * switch when it picks another task, then one message operation of that
 * task (a write or a read), then the scheduler's tick, block or
 * return-to-user step, and the next step is scheduled at the CPU's clock
 * after the operation.  Events therefore interleave the CPUs in simulated
 * time, which is what makes slabs move between CPUs the way the
 * reference's §3 describes (allocated on a sender CPU, freed remotely while
 * frozen there, parked on a receiver CPU's partial chain, ...).  A CPU with
 * nothing to run has no pending event; a wake-up onto it schedules one
 * after the idle wake-up latency.  All state (tasks, run queues,
 * connection rings) is allocated before the first event: the loop does no
 * allocation.  The scheduler itself (vruntime, buddies, preemption, the
 * scaled sysctls, the context-switch and wake-up counters) is
 * models/sched_fair.c; this file owns the tasks' roles, the connections
 * and messages, the SLUB calls and the idle wake-up latency.
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
 *     sysctl_sched_wakeup_granularity before the log scaling, which
 *     models/sched_fair_setup.c applies as get_update_sysctl_factor() does.
 * They set the absolute Total time; the SLUB share of a message is what
 * the layouts change.
 */
#include "workloads/wl_messaging.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/diag.h"
#include "base/progress.h"
#include "analysis/stats.h"
#include "models/sched_fair.h"
#include "sim/ctx.h"
#include "analysis/store.h"

enum { EV_STEP = 1 };

/* What a task's message operation leaves it doing. */
enum op_result { OP_CONTINUE, OP_BLOCKED, OP_FINISHED };

struct message {
	slub_obj_t skb, data;
	uint64_t visible_at;              /* sender's clock after the write */
};

struct pipe_buffer {                      /* fs/pipe.c's, for anon_pipe_buf_ops */
	struct page *page;
	uint32_t offset, len;             /* bytes */
};

struct connection {                       /* owned by receiver j of a group */
	struct message *ring;             /* [ring_cap] */
	uint32_t head, count;
	uint32_t blocked_senders;         /* socket: bit s: sender s waits for room */
	int receiver_blocked;
	/* thread mode: the struct file lines of the write and read ends */
	uint64_t file_w, file_r;
	/* pipe mode: pipe_inode_info (line 0: mutex, rd_wait.lock,
	 * wr_wait.lock; line 1: head, tail, tmp_page) and its bufs[] */
	uint64_t info, bufs_addr;
	struct pipe_buffer bufs[WL_MSG_PIPE_BUFFERS];
	uint32_t pipe_head, pipe_tail;    /* pipe->head, pipe->tail (free running) */
	struct page *tmp_page;
	uint8_t wr_wait[WL_MSG_FDS];      /* exclusive waiters (senders), FIFO */
	uint32_t wr_first, wr_count;
};

/* The first simulated task's pid (numasim trace's records). */
#define WL_MSG_PID_BASE 1000

struct task {
	uint32_t group;
	uint32_t index;                   /* sender s or receiver j of the group, 0..19 */
	int is_sender;
	int waited;                       /* pipe: woken from wr_wait (wake_next_writer) */
	uint64_t messages_done;           /* written or read */
};

struct messaging_world {
	struct slub_world *slub;
	struct cpu_sys *sys;
	struct slub_cache *skb_cache, *data_cache;
	const struct wl_msg_params *params;
	struct sim_ctx *ctx;
	struct rng *rng;
	struct cfs_sched *cfs;
	struct task *tasks;               /* [nr_tasks], ids as cfs task ids */
	struct connection *conns;         /* [groups * WL_MSG_FDS] */
	uint8_t *step_pending;            /* [nr_cpus]: a step event is queued */
	uint32_t *fork_order;             /* [tasks per CPU]: start()'s scratch */
	uint32_t nr_tasks;
	uint32_t ring_cap;                /* messages a connection can hold */
	int parent_node;                  /* the parent's: its allocations */
	uint64_t msgs_per_task;           /* 20 * loops */
	uint32_t wake_senders_at;         /* wake senders at <= this many in flight */
	struct wl_msg_result *result;
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
	p->placement = CFS_PLACEMENT_NONE;
	p->as = NULL;
	p->window_cycles = p->warmup_cycles = 0;
	p->warmup_messages = p->measure_messages = 0;
	p->mode = WL_MSG_SOCKET;
	p->threads = 0;
	p->pa = NULL;
}

/* An idle CPU starts running at `from` plus the wake-up latency and the
 * random jitter: its next step event. */
static int kick_idle_cpu(struct messaging_world *m, int cpu, uint64_t from)
{
	struct cpu *c = &m->sys->cpu[cpu];
	uint64_t jitter = m->params->wake_jitter_cycles
		? rng_uniform_int(m->rng, m->params->wake_jitter_cycles + 1) : 0;
	cpu_advance_to(c, from + m->params->wake_latency_cycles + jitter);
	m->step_pending[cpu] = 1;
	return sim_ctx_schedule_at(m->ctx, c->now, EV_STEP, (uint32_t)cpu);
}

/* Task t is woken by the task running on waker_cpu. */
static int wake(struct messaging_world *m, uint32_t t, int waker_cpu)
{
	int cpu;
	int rc = cfs_try_to_wake_up(m->cfs, t, waker_cpu, &cpu);
	if (rc != NS_OK || m->step_pending[cpu])
		return rc;
	return kick_idle_cpu(m, cpu, m->sys->cpu[waker_cpu].now);
}

static uint32_t sender_id(uint32_t group, uint32_t s)
{
	return group * 2 * WL_MSG_FDS + s;
}

static uint32_t receiver_id(uint32_t group, uint32_t j)
{
	return group * 2 * WL_MSG_FDS + WL_MSG_FDS + j;
}

/* Thread mode: the threads share one files_struct (files->count > 1),
 * so fdget() takes __fget()'s reference (atomic_long_inc on
 * file->f_count) and fdput() drops it (fput_many's atomic sub), where a
 * forked process's private table takes __fget_light()'s path without
 * touching f_count (fs/file.c v5.9).  Sockets and pipes are not
 * FMODE_ATOMIC_POS, so fdget_pos takes no f_pos_lock in either mode. */
static void thread_fget_fput(struct messaging_world *m, struct cpu *c, uint64_t file)
{
	if (!m->params->threads)
		return;
	cpu_atomic(c, file, m->parent_node);
	cpu_atomic(c, file, m->parent_node);
}

/* One write() of a sender running on cpu: to connection done % 20. */
static int sender_write(struct messaging_world *m, struct task *task, int cpu,
			enum op_result *res)
{
	const struct wl_msg_params *p = m->params;
	struct cpu *c = &m->sys->cpu[cpu];
	uint32_t j = (uint32_t)(task->messages_done % WL_MSG_FDS);
	struct connection *conn = &m->conns[task->group * WL_MSG_FDS + j];

	if (conn->count >= p->inflight_limit) {
		/* sock_alloc_send_pskb: sk_wmem_alloc >= sk_sndbuf */
		conn->blocked_senders |= 1u << task->index;
		m->result->sender_blocks++;
		*res = OP_BLOCKED;
		return NS_OK;
	}
	thread_fget_fput(m, c, conn->file_w);
	struct message *msg = &conn->ring[(conn->head + conn->count) % m->ring_cap];
	msg->skb = slub_alloc(m->slub, c, m->skb_cache, SLUB_NUMA_NO_NODE);
	msg->data = msg->skb ? slub_alloc(m->slub, c, m->data_cache, SLUB_NUMA_NO_NODE) : 0;
	if (!msg->data) {
		m->result->alloc_failed = 1;
		if (msg->skb)
			slub_free(m->slub, c, m->skb_cache, msg->skb);
		return NS_ERANGE;
	}
	cpu_work(c, p->send_cycles);
	msg->visible_at = c->now;
	conn->count++;
	task->messages_done++;
	if (conn->receiver_blocked) {
		conn->receiver_blocked = 0;
		int rc = wake(m, receiver_id(task->group, j), cpu);
		if (rc != NS_OK)
			return rc;
	}
	*res = task->messages_done == m->msgs_per_task ? OP_FINISHED : OP_CONTINUE;
	return NS_OK;
}

/* The read of an empty connection blocks its reader (unix_stream_read_generic's
 * and pipe_read's wait; the sender's write wakes it): true when it did. */
static bool reader_blocks(struct messaging_world *m, struct connection *conn,
			  enum op_result *res)
{
	if (conn->count != 0)
		return false;
	conn->receiver_blocked = 1;
	m->result->receiver_blocks++;
	*res = OP_BLOCKED;
	return true;
}

/* One read() of a receiver running on cpu, from its own connection. */
static int receiver_read(struct messaging_world *m, struct task *task, int cpu,
			 enum op_result *res)
{
	const struct wl_msg_params *p = m->params;
	struct cpu *c = &m->sys->cpu[cpu];
	struct connection *conn = &m->conns[task->group * WL_MSG_FDS + task->index];

	if (reader_blocks(m, conn, res))
		return NS_OK;
	thread_fget_fput(m, c, conn->file_r);
	struct message msg = conn->ring[conn->head];
	conn->head = (conn->head + 1) % m->ring_cap;
	conn->count--;
	cpu_advance_to(c, msg.visible_at);
	int rc = slub_free(m->slub, c, m->data_cache, msg.data);
	if (rc == NS_OK)
		rc = slub_free(m->slub, c, m->skb_cache, msg.skb);
	if (rc != NS_OK)
		return rc;
	cpu_work(c, p->recv_cycles);
	task->messages_done++;
	m->result->messages++;
	if (conn->blocked_senders && conn->count <= m->wake_senders_at) {
		/* sock_wfree -> unix_write_space: wake every blocked writer */
		uint32_t blocked = conn->blocked_senders;
		conn->blocked_senders = 0;
		for (uint32_t s = 0; s < WL_MSG_FDS; s++) {
			if (!(blocked & (1u << s)))
				continue;
			rc = wake(m, sender_id(task->group, s), cpu);
			if (rc != NS_OK)
				return rc;
		}
	}
	*res = task->messages_done == m->msgs_per_task ? OP_FINISHED : OP_CONTINUE;
	return NS_OK;
}

/* --- pipe mode (fs/pipe.c v5.9) ------------------------------------------ */

static int pipe_full(const struct connection *conn)
{
	return conn->pipe_head - conn->pipe_tail >= WL_MSG_PIPE_BUFFERS;
}

/* __wake_up_common_lock on a pipe wait queue (rd_wait or wr_wait): the
 * queue's spinlock in line 0 of pipe_inode_info, then the wake-up. */
static int pipe_wake_reader(struct messaging_world *m, struct connection *conn,
			    const struct task *sender, int cpu)
{
	cpu_atomic(&m->sys->cpu[cpu], conn->info, m->parent_node);
	if (!conn->receiver_blocked)
		return NS_OK;
	conn->receiver_blocked = 0;
	return wake(m, receiver_id(sender->group, (uint32_t)(conn - m->conns) % WL_MSG_FDS), cpu);
}

/* wake_up_interruptible_sync_poll(&pipe->wr_wait): writers wait
 * exclusively (wait_event_interruptible_exclusive), so one is woken, the
 * first queued; autoremove_wake_function takes it off the queue. */
static int pipe_wake_writer(struct messaging_world *m, struct connection *conn,
			    uint32_t group, int cpu)
{
	cpu_atomic(&m->sys->cpu[cpu], conn->info, m->parent_node);
	if (!conn->wr_count)
		return NS_OK;
	uint32_t s = conn->wr_wait[conn->wr_first];
	conn->wr_first = (conn->wr_first + 1) % WL_MSG_FDS;
	conn->wr_count--;
	return wake(m, sender_id(group, s), cpu);
}

/* The 100 bytes of a message in its buffer's page, through the caches. */
static void pipe_copy(struct messaging_world *m, struct cpu *c, const struct pipe_buffer *b,
		      uint32_t at, int kind)
{
	cpu_mem(c, mm_page_vaddr(m->params->pa, b->page) + at, WL_MSG_DATASIZE,
		mm_page_node(m->params->pa, b->page), kind);
}

/*
 * pipe_write of one 100-byte message by a sender on cpu: under
 * __pipe_lock, merge into the last buffer when the pipe was not empty and
 * it has room (PIPE_BUF_FLAG_CAN_MERGE: 40 messages per page); else,
 * when the ring is not full (head - tail < max_usage 16), a new buffer
 * with pipe->tmp_page or alloc_page(GFP_HIGHUSER | __GFP_ACCOUNT), its
 * slot taken under rd_wait.lock; else wait in wr_wait (exclusive) for
 * room.  Then the wake-ups: the reader if the pipe was empty, the next
 * writer if this one had waited and the pipe is not full.  __GFP_ACCOUNT
 * (memcg) is not modelled.
 */
static int pipe_write_msg(struct messaging_world *m, struct task *task, int cpu,
			  enum op_result *res)
{
	struct cpu *c = &m->sys->cpu[cpu];
	uint32_t j = (uint32_t)(task->messages_done % WL_MSG_FDS);
	struct connection *conn = &m->conns[task->group * WL_MSG_FDS + j];
	int was_empty = conn->pipe_head == conn->pipe_tail;
	struct pipe_buffer *last = &conn->bufs[(conn->pipe_head - 1) % WL_MSG_PIPE_BUFFERS];
	int merge = !was_empty && last->offset + last->len + WL_MSG_DATASIZE <= WL_MSG_PAGE_SIZE;

	if (!merge && pipe_full(conn)) {
		if (task->waited)
			m->result->spurious_wakeups++;
		conn->wr_wait[(conn->wr_first + conn->wr_count++) % WL_MSG_FDS] =
			(uint8_t)task->index;
		task->waited = 1;
		m->result->sender_blocks++;
		*res = OP_BLOCKED;
		return NS_OK;
	}
	thread_fget_fput(m, c, conn->file_w);
	cpu_atomic(c, conn->info, m->parent_node);           /* __pipe_lock */
	if (merge) {
		cpu_mem(c, conn->bufs_addr + ((conn->pipe_head - 1) % WL_MSG_PIPE_BUFFERS) * 40,
			40, m->parent_node, CPU_LOAD);
		pipe_copy(m, c, last, last->offset + last->len, CPU_STORE);
		last->len += WL_MSG_DATASIZE;
		m->result->pipe_merges++;
	} else {
		struct page *page = conn->tmp_page;
		if (page) {
			m->result->pipe_tmp_page_reuse++;
		} else {
			page = mm_alloc_pages(m->params->pa, c, GFP_USER | __GFP_HIGHMEM, 0);
			if (!page) {
				m->result->alloc_failed = 1;
				return NS_ERANGE;
			}
			m->result->pipe_alloc_page++;
		}
		cpu_atomic(c, conn->info, m->parent_node);   /* rd_wait.lock: the slot */
		cpu_mem(c, conn->info + 64, 8, m->parent_node, CPU_STORE); /* pipe->head */
		struct pipe_buffer *b = &conn->bufs[conn->pipe_head % WL_MSG_PIPE_BUFFERS];
		cpu_mem(c, conn->bufs_addr + (conn->pipe_head % WL_MSG_PIPE_BUFFERS) * 40, 40,
			m->parent_node, CPU_STORE);
		conn->pipe_head++;
		b->page = page;
		b->offset = 0;
		b->len = WL_MSG_DATASIZE;
		conn->tmp_page = NULL;
		pipe_copy(m, c, b, 0, CPU_STORE);
	}
	int wake_next_writer = task->waited && !pipe_full(conn);
	task->waited = 0;
	cpu_atomic(c, conn->info, m->parent_node);           /* __pipe_unlock */
	cpu_work(c, m->params->send_cycles);
	struct message *msg = &conn->ring[(conn->head + conn->count) % m->ring_cap];
	msg->skb = msg->data = 0;
	msg->visible_at = c->now;
	conn->count++;
	task->messages_done++;
	int rc = was_empty ? pipe_wake_reader(m, conn, task, cpu) : NS_OK;
	if (rc == NS_OK && wake_next_writer)
		rc = pipe_wake_writer(m, conn, task->group, cpu);
	*res = task->messages_done == m->msgs_per_task ? OP_FINISHED : OP_CONTINUE;
	return rc;
}

/* anon_pipe_buf_release: keep the page as the one-deep tmp_page cache if
 * there is none (page_count is 1: nothing else maps pipe pages here),
 * else put_page. */
static void anon_pipe_buf_release(struct messaging_world *m, struct cpu *c,
				  struct connection *conn, struct pipe_buffer *b)
{
	if (!conn->tmp_page) {
		conn->tmp_page = b->page;
		m->result->pipe_tmp_page_keep++;
	} else {
		mm_free_pages(m->params->pa, c, b->page, 0);
		m->result->pipe_put_page++;
	}
	b->page = NULL;
}

/*
 * pipe_read of one 100-byte message by the receiver on cpu: under
 * __pipe_lock, copy from the tail buffer; a buffer read empty is released
 * and the tail advanced under rd_wait.lock; on an empty pipe wait in
 * rd_wait.  A pipe full when the read began wakes one writer (was_full).
 */
static int pipe_read_msg(struct messaging_world *m, struct task *task, int cpu,
			 enum op_result *res)
{
	struct cpu *c = &m->sys->cpu[cpu];
	struct connection *conn = &m->conns[task->group * WL_MSG_FDS + task->index];

	if (reader_blocks(m, conn, res))
		return NS_OK;
	thread_fget_fput(m, c, conn->file_r);
	cpu_atomic(c, conn->info, m->parent_node);           /* __pipe_lock */
	int was_full = pipe_full(conn);
	struct message msg = conn->ring[conn->head];
	conn->head = (conn->head + 1) % m->ring_cap;
	conn->count--;
	cpu_advance_to(c, msg.visible_at);
	uint32_t slot = conn->pipe_tail % WL_MSG_PIPE_BUFFERS;
	struct pipe_buffer *b = &conn->bufs[slot];
	cpu_mem(c, conn->bufs_addr + slot * 40, 40, m->parent_node, CPU_LOAD);
	pipe_copy(m, c, b, b->offset, CPU_LOAD);
	b->offset += WL_MSG_DATASIZE;
	b->len -= WL_MSG_DATASIZE;
	if (b->len == 0) {
		anon_pipe_buf_release(m, c, conn, b);
		cpu_atomic(c, conn->info, m->parent_node);   /* rd_wait.lock: the tail */
		cpu_mem(c, conn->info + 64, 8, m->parent_node, CPU_STORE);
		conn->pipe_tail++;
	}
	cpu_atomic(c, conn->info, m->parent_node);           /* __pipe_unlock */
	cpu_work(c, m->params->recv_cycles);
	task->messages_done++;
	m->result->messages++;
	int rc = was_full ? pipe_wake_writer(m, conn, task->group, cpu) : NS_OK;
	*res = task->messages_done == m->msgs_per_task ? OP_FINISHED : OP_CONTINUE;
	if (rc == NS_OK && *res == OP_FINISHED && conn->tmp_page) {
		/* free_pipe_info's __free_page(tmp_page), here at the reader's
		 * exit (the kernel: when the last of the 21 users closes it) */
		mm_free_pages(m->params->pa, c, conn->tmp_page, 0);
		conn->tmp_page = NULL;
	}
	return rc;
}

/* One step of cpu: the task CFS runs there does one operation, then the
 * scheduler sees the tick and the end of the system call. */
static int step(struct messaging_world *m, int cpu)
{
	int64_t t = cfs_pick_next(m->cfs, cpu);
	if (t < 0) {
		m->step_pending[cpu] = 0;         /* idle until a wake-up */
		return NS_OK;
	}
	struct task *task = &m->tasks[t];
	enum op_result res = OP_CONTINUE;
	int pipe = m->params->mode == WL_MSG_PIPE;
	/* numasim trace's TASK-PID: perf bench's tasks are named after the
	 * benchmark; the pids are the model's (task id + WL_MSG_PID_BASE) */
	cpu_set_task(&m->sys->cpu[cpu], "sched-messaging", (int)(WL_MSG_PID_BASE + t));
	int rc = task->is_sender ? (pipe ? pipe_write_msg(m, task, cpu, &res)
					 : sender_write(m, task, cpu, &res))
				 : (pipe ? pipe_read_msg(m, task, cpu, &res)
					 : receiver_read(m, task, cpu, &res));
	if (rc != NS_OK)
		return rc;
	cfs_tick(m->cfs, cpu);
	if (res == OP_BLOCKED)
		rc = cfs_sleep(m->cfs, cpu);
	else if (res == OP_FINISHED)
		rc = cfs_task_dead(m->cfs, cpu);
	else
		cfs_return_to_user(m->cfs, cpu);
	if (rc != NS_OK)
		return rc;
	return sim_ctx_schedule_at(m->ctx, m->sys->cpu[cpu].now, EV_STEP, (uint32_t)cpu);
}

static void cfs_params_from(const struct wl_msg_params *p, struct cfs_params *cp)
{
	cp->hz = p->hz;
	cp->sched_latency_ns = p->sched_latency_ns;
	cp->min_granularity_ns = p->min_granularity_ns;
	cp->wakeup_granularity_ns = p->wakeup_granularity_ns;
	cp->wakeup_preemption = p->wakeup_preemption;
	cp->ctx_switch_cycles = p->ctx_switch_cycles;
	cp->wake_cycles = p->wake_cycles;
	cp->placement = p->placement ? CFS_PLACEMENT_V59 : CFS_PLACEMENT_NONE;
	cp->as = p->as;
}

static uint32_t tasks_per_cpu(const struct messaging_world *m)
{
	uint32_t n = (uint32_t)m->sys->nr_cpus;
	return (m->nr_tasks + n - 1) / n;
}

static int setup(struct messaging_world *m)
{
	const struct wl_msg_params *p = m->params;
	struct cfs_params cp;

	m->nr_tasks = p->groups * 2 * WL_MSG_FDS;
	m->msgs_per_task = (uint64_t)WL_MSG_FDS * p->loops;
	m->wake_senders_at = p->inflight_limit / 4;
	cfs_params_from(p, &cp);
	cp.task_node = m->sys->cpu[0].node;   /* the parent's node: task_struct and stack */
	int rc = cfs_create(&cp, m->sys, m->nr_tasks, &m->cfs);
	if (rc != NS_OK)
		return rc;
	m->tasks = calloc(m->nr_tasks, sizeof *m->tasks);
	m->conns = calloc((size_t)p->groups * WL_MSG_FDS, sizeof *m->conns);
	m->step_pending = calloc((size_t)m->sys->nr_cpus, sizeof *m->step_pending);
	m->fork_order = calloc(tasks_per_cpu(m), sizeof *m->fork_order);
	if (!m->tasks || !m->conns || !m->step_pending || !m->fork_order)
		return NS_ENOMEM;
	m->ring_cap = p->mode == WL_MSG_PIPE ? WL_MSG_PIPE_MSGS : p->inflight_limit;
	m->parent_node = m->sys->cpu[0].node;
	for (uint32_t i = 0; i < p->groups * WL_MSG_FDS; i++) {
		struct connection *conn = &m->conns[i];
		conn->ring = calloc(m->ring_cap, sizeof *conn->ring);
		if (!conn->ring)
			return NS_ENOMEM;
		/* the parent's socketpair() / pipe(): its node's memory */
		if (p->threads && ((rc = cache_as_alloc(p->as, m->parent_node, 64, 64,
							&conn->file_w)) ||
				   (rc = cache_as_alloc(p->as, m->parent_node, 64, 64,
							&conn->file_r))))
			return rc;
		/* alloc_pipe_info: pipe_inode_info and kcalloc(16, pipe_buffer) */
		if (p->mode == WL_MSG_PIPE &&
		    ((rc = cache_as_alloc(p->as, m->parent_node, 128, 64, &conn->info)) ||
		     (rc = cache_as_alloc(p->as, m->parent_node,
					  WL_MSG_PIPE_BUFFERS * 40, 64, &conn->bufs_addr))))
			return rc;
	}
	for (uint32_t t = 0; t < m->nr_tasks; t++) {
		struct task *task = &m->tasks[t];
		uint32_t in_group = t % (2 * WL_MSG_FDS);
		task->group = t / (2 * WL_MSG_FDS);
		task->is_sender = in_group < WL_MSG_FDS;
		task->index = in_group % WL_MSG_FDS;
	}
	return NS_OK;
}

/* v5.9 placement: the parent, on the first CPU of the cpu_sys, forks
 * each group's 20 receivers, then its 20 senders (group() in
 * sched-messaging.c), group after group, and wake_up_new_task places
 * each child by fork balancing (cfs_sched_fork) with the children forked
 * before it runnable; then every CPU that got tasks starts after an idle
 * wake-up.  Not modelled: the children's start barrier (each writes its
 * ready byte and sleeps in poll() until the parent's wake byte), under
 * which find_idlest_group would see every CPU idle at each fork and keep
 * all children on the parent's node (SD_NUMA, has_spare with local idle
 * CPUs), leaving the other nodes to nohz idle balancing, which the model
 * does not have. */
static int start_forked(struct messaging_world *m)
{
	uint32_t n = (uint32_t)m->sys->nr_cpus;
	const int parent = 0;
	for (uint32_t g = 0; g < m->params->groups; g++) {
		for (uint32_t k = 0; k < 2 * WL_MSG_FDS; k++) {
			uint32_t t = k < WL_MSG_FDS ? receiver_id(g, k) : sender_id(g, k - WL_MSG_FDS);
			int cpu;
			int rc = cfs_sched_fork(m->cfs, t, parent, &cpu);
			if (rc != NS_OK)
				return rc;
		}
	}
	for (uint32_t i = 0; i < n; i++) {
		if (!m->cfs->rq[i].nr_queued)
			continue;
		int rc = kick_idle_cpu(m, (int)i, m->sys->cpu[i].now);
		if (rc != NS_OK)
			return rc;
	}
	return NS_OK;
}

/* The parent's fork and wake-up without placement: task t goes to CPU t
 * mod nr_cpus, each CPU's tasks in a shuffled order, each CPU starting
 * after an idle wake-up. */
static int start(struct messaging_world *m)
{
	uint32_t n = (uint32_t)m->sys->nr_cpus;
	if (m->params->placement)
		return start_forked(m);
	for (uint32_t i = 0; i < n; i++) {
		uint32_t count = 0;
		for (uint32_t t = i; t < m->nr_tasks; t += n)
			m->fork_order[count++] = t;
		for (uint32_t k = count; k > 1; k--) {
			uint32_t r = rng_uniform_int(m->rng, k);
			uint32_t tmp = m->fork_order[k - 1];
			m->fork_order[k - 1] = m->fork_order[r];
			m->fork_order[r] = tmp;
		}
		for (uint32_t k = 0; k < count; k++) {
			int rc = cfs_wake_up_new_task(m->cfs, m->fork_order[k], (int)i);
			if (rc != NS_OK)
				return rc;
		}
		if (!count)
			continue;
		int rc = kick_idle_cpu(m, (int)i, m->sys->cpu[i].now);
		if (rc != NS_OK)
			return rc;
	}
	return NS_OK;
}

/* The cumulative path-mix counters at time `at`. */
static void snapshot(const struct messaging_world *m, uint64_t at, struct wl_msg_window *w)
{
	const struct slub_cache *c[2] = {m->skb_cache, m->data_cache};
	memset(w, 0, sizeof *w);
	w->end_cycles = at;
	w->messages = m->result->messages;
	for (int i = 0; i < 2; i++) {
		w->fastpath += slub_stat(m->slub, c[i], -1, SLUB_FREE_FASTPATH);
		w->slowpath += slub_stat(m->slub, c[i], -1, SLUB_FREE_SLOWPATH);
		w->frozen += slub_stat(m->slub, c[i], -1, SLUB_FREE_FROZEN);
		w->cpu_partial_free += slub_stat(m->slub, c[i], -1, SLUB_CPU_PARTIAL_FREE);
	}
}

static int add_window(struct messaging_world *m, uint64_t at)
{
	struct wl_msg_result *r = m->result;
	if ((r->nr_windows & (r->nr_windows - 1)) == 0) {   /* 0, 1, 2, 4, ...: grow */
		size_t cap = r->nr_windows ? 2 * r->nr_windows : 16;
		struct wl_msg_window *nw = realloc(r->windows, cap * sizeof *nw);
		if (!nw)
			return NS_ENOMEM;
		r->windows = nw;
	}
	snapshot(m, at, &r->windows[r->nr_windows++]);
	return NS_OK;
}

/* Windows, the end of the warm-up and of the measured part, before the
 * event at time now.  *done: the measured part is complete. */
static int watch(struct messaging_world *m, uint64_t now, int *done)
{
	const struct wl_msg_params *p = m->params;
	struct wl_msg_result *r = m->result;
	while (p->window_cycles && now >= (r->nr_windows + 1) * p->window_cycles) {
		int rc = add_window(m, (r->nr_windows + 1) * p->window_cycles);
		if (rc)
			return rc;
	}
	if (!r->measured && now >= p->warmup_cycles && r->messages >= p->warmup_messages) {
		snapshot(m, now, &r->measure_start);
		r->measured = 1;
	}
	if (r->measured && p->measure_messages &&
	    r->messages >= r->measure_start.messages + p->measure_messages) {
		snapshot(m, now, &r->measure_end);
		*done = 1;
	}
	return NS_OK;
}

/* Total time from the measured part: warm-up time + the rest at the
 * measured rate; the interval from the rates of the whole windows inside
 * the measured part (Student t, 95 %; windows are treated as independent,
 * which their autocorrelation makes optimistic). */
static void extrapolate(struct messaging_world *m, double clock_hz)
{
	struct wl_msg_result *r = m->result;
	const struct wl_msg_window *a = &r->measure_start, *b = &r->measure_end;
	double total = (double)m->params->groups * WL_MSG_FDS * (double)m->msgs_per_task;
	double dt = (double)(b->end_cycles - a->end_cycles);
	double dm = (double)(b->messages - a->messages);
	double rest = total - (double)a->messages;
	r->measured_time_s = dt / clock_hz;
	r->total_time_s = ((double)a->end_cycles + dt * rest / dm) / clock_hz;
	double sum = 0, sq = 0;
	int k = 0;
	uint64_t prev_t = 0, prev_m = 0;
	for (size_t i = 0; i < r->nr_windows; i++) {
		const struct wl_msg_window *w = &r->windows[i];
		if (w->end_cycles > a->end_cycles && prev_t >= a->end_cycles &&
		    w->end_cycles <= b->end_cycles && w->messages > prev_m) {
			double cpm = (double)(w->end_cycles - prev_t) / (double)(w->messages - prev_m);
			sum += cpm;
			sq += cpm * cpm;
			k++;
		}
		prev_t = w->end_cycles;
		prev_m = w->messages;
	}
	if (k < 2)
		return;
	double mean = sum / k, var = (sq - k * mean * mean) / (k - 1);
	double half = stats_t_quantile(0.975, k - 1) * sqrt(var > 0 ? var : 0) / sqrt(k);
	r->total_ci_low_s = ((double)a->end_cycles + (mean - half) * rest) / clock_hz;
	r->total_ci_high_s = ((double)a->end_cycles + (mean + half) * rest) / clock_hz;
}

/* The event loop; at its end every task has exited (or the measured part
 * is complete) and the scheduler's invariants hold. */
static int run_events(struct messaging_world *m, const volatile sig_atomic_t *stop,
		      struct progress_work *work)
{
	struct event ev;
	uint32_t nr_events = 0;
	int done = 0;

	while (!done && sim_ctx_next(m->ctx, &ev) == NS_OK) {
		if ((++nr_events & 0xfff) == 0) {
			if (stop && *stop)
				return WL_MSG_STOPPED;
			progress_work_set(work, (long long)m->result->messages);
		}
		int rc = watch(m, ev.time, &done);
		if (rc == NS_OK && !done)
			rc = step(m, (int)ev.arg);
		if (rc != NS_OK)
			return rc;
	}
	if (done) {
		m->result->extrapolated = 1;
		return cfs_check(m->cfs, NULL);
	}
	for (uint32_t t = 0; t < m->nr_tasks; t++)
		if (cfs_task_state(m->cfs, t) != CFS_TASK_DEAD)
			return NS_EINTERNAL;
	return cfs_check(m->cfs, NULL);
}

static int count_stat(void *arg, int cpu, const char *domain, const char *name,
		      uint64_t value)
{
	(void)cpu, (void)domain, (void)name, (void)value;
	((struct wl_msg_result *)arg)->nr_sched_stats++;
	return NS_OK;
}

static int keep_stat(void *arg, int cpu, const char *domain, const char *name,
		     uint64_t value)
{
	struct wl_msg_result *r = arg;
	struct wl_msg_sched_stat *st = &r->sched_stats[r->nr_sched_stats++];
	st->cpu = cpu;
	snprintf(st->domain, sizeof st->domain, "%s", domain ? domain : "");
	st->name = name;
	st->value = value;
	return NS_OK;
}

void wl_msg_result_free(struct wl_msg_result *r)
{
	free(r->windows);
	r->windows = NULL;
	r->nr_windows = 0;
	free(r->sched_stats);
	r->sched_stats = NULL;
	r->nr_sched_stats = 0;
}

static int copy_sched_stats(const struct cfs_sched *cs, struct wl_msg_result *r)
{
	r->migrations = cs->stats.migrations;
	cfs_stats(cs, count_stat, r);
	if (!r->nr_sched_stats)
		return NS_OK;
	r->sched_stats = calloc(r->nr_sched_stats, sizeof *r->sched_stats);
	r->nr_sched_stats = 0;
	if (!r->sched_stats)
		return NS_ENOMEM;
	return cfs_stats(cs, keep_stat, r);
}

static void copy_cfs_counts(const struct cfs_sched *cs, struct wl_msg_result *r)
{
	r->ctx_switches = cs->stats.ctx_switches;
	r->preemptions = cs->stats.preemptions;
	r->wake_preemptions = cs->stats.wake_preemptions;
	r->wakeups = cs->stats.wakeups;
}

static void teardown(struct messaging_world *m)
{
	if (m->conns)
		for (uint32_t i = 0; i < m->params->groups * WL_MSG_FDS; i++)
			free(m->conns[i].ring);
	free(m->conns);
	free(m->tasks);
	free(m->step_pending);
	free(m->fork_order);
	cfs_destroy(m->cfs);
	sim_ctx_destroy(m->ctx);
}

static int params_ok(const struct wl_msg_params *p, const struct cpu_sys *s)
{
	return p->groups > 0 && p->loops > 0 && p->inflight_limit > 0 && p->hz > 0 &&
	       (p->mode == WL_MSG_SOCKET || (p->mode == WL_MSG_PIPE && p->pa && p->as)) &&
	       (!p->threads || p->as) &&
	       (p->placement == 0 || (p->placement == 1 && p->as)) &&
	       p->hz <= 100000 && p->sched_latency_ns > 0 && p->min_granularity_ns > 0 &&
	       s->nr_cpus > 0 && s->k.clock_ghz > 0 &&
	       p->groups <= UINT32_MAX / (2 * WL_MSG_FDS) &&
	       p->loops <= UINT64_MAX / WL_MSG_FDS / 2 / p->groups;
}

int wl_messaging_run(struct slub_world *w, struct cpu_sys *s, struct slub_cache *skb,
		     struct slub_cache *data, const struct wl_msg_params *p, uint64_t seed,
		     const volatile sig_atomic_t *stop, struct progress_work *work,
		     struct wl_msg_result *r)
{
	struct messaging_world m = {.slub = w, .sys = s, .skb_cache = skb, .data_cache = data,
				    .params = p, .result = r};
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
	/* every receiver reads msgs_per_task messages */
	progress_work_start(work, (long long)(p->groups * WL_MSG_FDS * m.msgs_per_task));
	if (rc == NS_OK)
		rc = run_events(&m, stop, work);
	if (m.cfs) {
		copy_cfs_counts(m.cfs, r);
		int src = copy_sched_stats(m.cfs, r);
		rc = rc == NS_OK ? src : rc;
	}
	r->events = m.ctx->events;
	for (int i = 0; i < s->nr_cpus; i++)
		if (s->cpu[i].now > r->end_cycles)
			r->end_cycles = s->cpu[i].now;
	r->total_time_s = (double)r->end_cycles / (s->k.clock_ghz * 1e9);
	if (rc == NS_OK && r->measured && !r->extrapolated)
		snapshot(&m, r->end_cycles, &r->measure_end);
	if (rc == NS_OK && r->measured) {
		if (r->extrapolated) {
			extrapolate(&m, s->k.clock_ghz * 1e9);
		} else {
			r->measured_time_s = (double)(r->measure_end.end_cycles -
						      r->measure_start.end_cycles) /
					     (s->k.clock_ghz * 1e9);
		}
	}
	if (rc == NS_OK && p->window_cycles && (!r->nr_windows ||
	    r->windows[r->nr_windows - 1].end_cycles < r->end_cycles))
		rc = add_window(&m, r->end_cycles);   /* the last, partial window */
out:
	teardown(&m);
	return rc;
}

/* ---- the scenario section `workload: {type: messaging}` and the run ---- */

enum { M_TYPE, M_GROUPS, M_LOOPS, M_MODE, M_THREADS, M_LIMIT, M_SEND, M_RECV, M_CTXSW,
       M_WINDOW, M_WARMUP_MS, M_WARMUP_MSGS, M_MEASURE, NR_M };

static const struct ytree_field messaging_fields[NR_M] = {
	[M_TYPE] = {"type", 1},
	[M_GROUPS] = {"groups", 1},
	[M_LOOPS] = {"loops", 1},
	[M_MODE] = {"mode", 0},
	[M_THREADS] = {"threads", 0},
	[M_LIMIT] = {"inflight_limit", 0},
	[M_SEND] = {"send_cycles", 0},
	[M_RECV] = {"recv_cycles", 0},
	[M_CTXSW] = {"ctx_switch_cycles", 0},
	[M_WINDOW] = {"window_ms", 0},
	[M_WARMUP_MS] = {"warmup_ms", 0},
	[M_WARMUP_MSGS] = {"warmup_messages", 0},
	[M_MEASURE] = {"measure_messages", 0},
};

static int messaging_parse(const struct wl_reader *r, const struct ynode *n,
			   struct wl_point *pt)
{
	const struct ytree_field *const fields = messaging_fields;
	struct scn_messaging *p = calloc(1, sizeof *p);
	const struct ynode *v[NR_M];
	struct wl_msg_params def;
	long long loops;
	int rc;

	if (!p)
		return wl_nomem(r);
	pt->params = p;
	p->placement_v59 = pt->sched_v59;
	if ((rc = r->fields(r->ctx, n, "workload 'messaging'", fields,
				 NR_M, v)))
		return rc;
	wl_msg_params_default(&def);
	p->inflight_limit = def.inflight_limit;
	p->pipe = p->threads = 0;
	p->send_cycles = def.send_cycles;
	p->recv_cycles = def.recv_cycles;
	p->ctx_switch_cycles = def.ctx_switch_cycles;
	if ((rc = wl_get_u32(r, v[M_GROUPS], "groups", 1, SCN_MSG_MAX_GROUPS, &p->groups)))
		return rc;
	if ((rc = ytree_int(wl_tree(r, v[M_LOOPS]), v[M_LOOPS], "loops", 1, SCN_MSG_MAX_LOOPS,
			    &loops, r->d)))
		return rc;
	p->loops = (uint64_t)loops;
	if (v[M_MODE]) {
		const char *mode;
		if ((rc = ytree_string(wl_tree(r, v[M_MODE]), v[M_MODE], "mode", 1, &mode, r->d)))
			return rc;
		p->pipe = !strcmp(mode, "pipe");
		if (!p->pipe && strcmp(mode, "socket")) {
			char q[128];
			ytree_quote(mode, v[M_MODE]->len, q, sizeof q);
			return wl_err(r, v[M_MODE], "unknown mode '%s' (expected socket or pipe)", q);
		}
	}
	if (v[M_THREADS]) {
		const char *th;
		if ((rc = ytree_string(wl_tree(r, v[M_THREADS]), v[M_THREADS], "threads", 1, &th, r->d)))
			return rc;
		p->threads = !strcmp(th, "true") || !strcmp(th, "on");
		if (!p->threads && strcmp(th, "false") && strcmp(th, "off")) {
			char q[128];
			ytree_quote(th, v[M_THREADS]->len, q, sizeof q);
			return wl_err(r, v[M_THREADS], "threads must be true or false (perf bench's "
				   "-t: pthreads instead of processes), not '%s'", q);
		}
	}
	if (v[M_LIMIT] && p->pipe)
		return wl_err(r, v[M_LIMIT], "inflight_limit is a socket's limit (sk_sndbuf / "
			   "truesize); a pipe holds %d pages of merged writes (%d messages)",
			   WL_MSG_PIPE_BUFFERS, WL_MSG_PIPE_MSGS);
	if (v[M_LIMIT] && (rc = wl_get_u32(r, v[M_LIMIT], "inflight_limit", 1, 1000000,
					&p->inflight_limit)))
		return rc;
	if (v[M_SEND] && (rc = wl_get_u32(r, v[M_SEND], "send_cycles", 0, 100000000,
				       &p->send_cycles)))
		return rc;
	if (v[M_RECV] && (rc = wl_get_u32(r, v[M_RECV], "recv_cycles", 0, 100000000,
				       &p->recv_cycles)))
		return rc;
	if (v[M_CTXSW] && (rc = wl_get_u32(r, v[M_CTXSW], "ctx_switch_cycles", 0, 100000000,
					&p->ctx_switch_cycles)))
		return rc;
	p->window_ms = p->warmup_ms = 0;
	p->warmup_messages = p->measure_messages = 0;
	if (v[M_WINDOW] && (rc = wl_get_u32(r, v[M_WINDOW], "window_ms", 1, 1000000,
					 &p->window_ms)))
		return rc;
	if (v[M_WARMUP_MS] && (rc = wl_get_u32(r, v[M_WARMUP_MS], "warmup_ms", 0, 100000000,
					    &p->warmup_ms)))
		return rc;
	long long x;
	uint64_t total = (uint64_t)p->groups * 20 * 20 * p->loops;
	if (v[M_WARMUP_MSGS]) {
		if ((rc = ytree_int(wl_tree(r, v[M_WARMUP_MSGS]), v[M_WARMUP_MSGS], "warmup_messages", 0,
				    INT64_MAX / 2, &x, r->d)))
			return rc;
		p->warmup_messages = (uint64_t)x;
	}
	if (v[M_MEASURE]) {
		if ((rc = ytree_int(wl_tree(r, v[M_MEASURE]), v[M_MEASURE], "measure_messages", 1,
				    INT64_MAX / 2, &x, r->d)))
			return rc;
		p->measure_messages = (uint64_t)x;
	}
	if (p->warmup_messages + p->measure_messages > total)
		return wl_err(r, v[M_MEASURE] ? v[M_MEASURE] : v[M_WARMUP_MSGS],
			   "warmup_messages + measure_messages (%llu) exceed the run's %llu "
			   "messages (groups x 20 x 20 x loops)",
			   (unsigned long long)(p->warmup_messages + p->measure_messages),
			   (unsigned long long)total);
	if (pt->machine->nr_cpus < 1)
		return wl_err(r, n, "machine '%s' has no CPU to run the workload on",
			   pt->machine->name);
	return *pt->nr_cpus ? NS_OK : wl_all_cpus(r, pt);
}


static int messaging_check(const void *params, const struct machine *m, int nr_cpus,
			   const int *cpus, const char *path, struct diag *d)
{
	const struct scn_messaging *mg = params;
	(void)m, (void)nr_cpus, (void)cpus;
	WL_CHECK(mg->groups >= 1 && mg->groups <= SCN_MSG_MAX_GROUPS && mg->loops >= 1 &&
	      mg->loops <= (uint64_t)SCN_MSG_MAX_LOOPS && mg->inflight_limit >= 1,
	      "messaging groups %u loops %llu limit %u", mg->groups,
	      (unsigned long long)mg->loops, mg->inflight_limit);
	return NS_OK;
}

#define P_TEXT(k, t) do { if ((rc = fn(arg, (k), (t), 0))) return rc; } while (0)
#define P_NUM(k, n) do { if ((rc = fn(arg, (k), NULL, (long long)(n)))) return rc; } while (0)

static int messaging_params(const void *params, wl_param_fn fn, void *arg)
{
	const struct scn_messaging *m = params;
	int rc;
	P_NUM("workload.groups", m->groups);
	P_NUM("workload.loops", m->loops);
	P_TEXT("workload.mode", m->pipe ? "pipe" : "socket");
	/* only when set: the parameter rows of existing scenarios stay as before */
	if (m->threads)
		P_TEXT("workload.threads", "true");
	P_NUM("workload.inflight_limit", m->inflight_limit);
	P_NUM("workload.send_cycles", m->send_cycles);
	P_NUM("workload.recv_cycles", m->recv_cycles);
	P_NUM("workload.ctx_switch_cycles", m->ctx_switch_cycles);
	/* only when set: the parameter rows of existing scenarios stay as before */
	if (m->window_ms)
		P_NUM("workload.window_ms", m->window_ms);
	if (m->warmup_ms)
		P_NUM("workload.warmup_ms", m->warmup_ms);
	if (m->warmup_messages)
		P_NUM("workload.warmup_messages", m->warmup_messages);
	if (m->measure_messages)
		P_NUM("workload.measure_messages", m->measure_messages);
	/* always: v5.9 is the default since 2026-12-07, and a run stored
	 * before it without the row ran with none */
	P_TEXT("sched.placement", m->placement_v59 ? "v5.9" : "none");
	return NS_OK;
}
#undef P_TEXT
#undef P_NUM

static const char *messaging_kernel_model(int post, int slub_post)
{
	(void)post;
	return slub_post ? "v5.9+c270cf30" : "v5.9";
}

int wl_msg_setup(struct wl_run *r)
{
	int rc = slub_cache_create(r->sw, "skbuff_head_cache", WL_MSG_SKB_HEAD, 0,
				   SLUB_HWCACHE_ALIGN | SLUB_PANIC, &r->skb, r->d);
	if (rc)
		return diag_set(r->d, rc, r->path, 0, 0,
				"point %s: the SLUB model cannot be set up: %s", r->label,
				r->d->msg[0] ? r->d->msg : ns_status_msg(rc));
	r->data = slub_kmalloc_cache(r->sw, WL_MSG_DATA_ALLOC);
	if (!r->data)
		return diag_set(r->d, NS_EINTERNAL, r->path, 0, 0,
				"no kmalloc cache for %d bytes", WL_MSG_DATA_ALLOC);
	return NS_OK;
}

static int messaging_run(const struct wl_run *r, void **result)
{
	const struct scn_messaging *m = r->params;
	struct wl_msg_result *res = wl_result_alloc(r, sizeof *res, result);
	struct wl_msg_params p;
	if (!res)
		return NS_ENOMEM;
	wl_msg_params_default(&p);
	p.groups = m->groups;
	p.loops = m->loops;
	p.inflight_limit = m->inflight_limit;
	p.send_cycles = m->send_cycles;
	p.recv_cycles = m->recv_cycles;
	p.ctx_switch_cycles = m->ctx_switch_cycles;
	p.placement = r->sched_v59;
	double cyc_per_ms = r->sys->k.clock_ghz * 1e6;
	p.window_cycles = (uint64_t)(m->window_ms * cyc_per_ms + 0.5);
	p.warmup_cycles = (uint64_t)(m->warmup_ms * cyc_per_ms + 0.5);
	p.warmup_messages = m->warmup_messages;
	p.measure_messages = m->measure_messages;
	p.as = r->as;
	p.mode = m->pipe ? WL_MSG_PIPE : WL_MSG_SOCKET;
	p.threads = m->threads;
	p.pa = r->w;
	int rc = wl_messaging_run(r->sw, r->sys, r->skb, r->data, &p, r->seed, r->stop,
				  r->work, res);
	if (rc == WL_MSG_STOPPED)
		return WL_STOPPED;
	if (rc == NS_ERANGE)
		return diag_set(r->d, rc, r->path, 0, 0,
				"%s, repetition %lld: the simulated kernel ran out of slab "
				"memory", r->label, r->rep);
	if (rc)
		return diag_set(r->d, rc, r->path, 0, 0,
				"%s, repetition %lld: the messaging workload failed: %s",
				r->label, r->rep, ns_status_msg(rc));
	return NS_OK;
}

static void messaging_result_free(void *result)
{
	wl_msg_result_free(result);
	free(result);
}


/* What the results are written with. */
struct writer {
	struct store *st;
	int64_t id;
	const struct wl_run *r;
	const struct wl_msg_result *m;
	const struct scn_messaging *p;
};

/* v5.9 placement: migrations in `metrics`, the schedstat counters in
 * `counters` (scope cpu; per-domain ones named LEVEL.name, "MC.lb_count").
 * Nothing with placement none, whose rows stay as before. */
static int put_sched_stats(const struct writer *w)
{
	const struct wl_msg_result *m = w->m;
	if (!m->sched_stats && !m->migrations)
		return NS_OK;
	int rc = store_metric(w->st, w->id, "migrations", (double)m->migrations, "count");
	for (size_t i = 0; rc == NS_OK && i < m->nr_sched_stats; i++) {
		const struct wl_msg_sched_stat *st = &m->sched_stats[i];
		char name[64];
		snprintf(name, sizeof name, "%s%s%s", st->domain, st->domain[0] ? "." : "",
			 st->name);
		if (st->value > INT64_MAX)
			return NS_ERANGE;
		rc = store_counter(w->st, w->id, STORE_SCOPE_CPU, w->r->sys->cpu[st->cpu].id, NULL,
				   name, (int64_t)st->value);
	}
	return rc;
}

/* Pipe mode: where the pipe buffers' pages came from and went to
 * (metrics pipe.*).  Nothing in socket mode, whose rows stay as before. */
static int put_pipe_stats(const struct writer *w, const struct scn_messaging *sm)
{
	const struct wl_msg_result *m = w->m;
	if (!sm->pipe)
		return NS_OK;
	const struct {
		const char *name;
		uint64_t v;
	} rows[] = {
		{"pipe.alloc_page", m->pipe_alloc_page},
		{"pipe.tmp_page_reuse", m->pipe_tmp_page_reuse},
		{"pipe.merges", m->pipe_merges},
		{"pipe.tmp_page_keep", m->pipe_tmp_page_keep},
		{"pipe.put_page", m->pipe_put_page},
		{"pipe.spurious_wakeups", m->spurious_wakeups},
	};
	int rc = NS_OK;
	for (size_t i = 0; rc == NS_OK && i < sizeof rows / sizeof rows[0]; i++)
		rc = store_metric(w->st, w->id, rows[i].name, (double)rows[i].v, "count");
	return rc;
}

/* The per-window path mix in `samples` (series window.*, cumulative
 * counts at each window's end) and the measured part in `metrics`, when
 * the scenario asks for them (workload.window_ms, warmup_*, measure_*). */
static int put_windows(const struct writer *w, const struct scn_messaging *sm)
{
	const struct wl_msg_result *m = w->m;
	int rc = NS_OK;
	static const char *const series[] = {"window.end_s", "window.messages",
					     "window.free_fastpath", "window.free_slowpath",
					     "window.free_frozen", "window.cpu_partial_free"};
	double *v = m->nr_windows ? malloc(m->nr_windows * sizeof *v) : NULL;
	if (m->nr_windows && !v)
		return NS_ENOMEM;
	double hz = w->r->sys->k.clock_ghz * 1e9;
	for (size_t k = 0; rc == NS_OK && m->nr_windows && k < 6; k++) {
		for (size_t i = 0; i < m->nr_windows; i++) {
			const struct wl_msg_window *x = &m->windows[i];
			const uint64_t f[6] = {0, x->messages, x->fastpath, x->slowpath, x->frozen,
					       x->cpu_partial_free};
			v[i] = k == 0 ? (double)x->end_cycles / hz : (double)f[k];
		}
		rc = store_samples(w->st, w->id, series[k], v, m->nr_windows);
	}
	free(v);
	if (rc || !(sm->warmup_ms || sm->warmup_messages || sm->measure_messages) || !m->measured)
		return rc;
	const struct wl_msg_window *a = &m->measure_start, *b = &m->measure_end;
	const struct wl_metric rows[] = {
		{"measured.start_s", "s", (double)a->end_cycles / hz},
		{"measured.time_s", "s", m->measured_time_s},
		{"measured.messages", "count", (double)(b->messages - a->messages)},
		{"measured.free_fastpath", "count", (double)(b->fastpath - a->fastpath)},
		{"measured.free_slowpath", "count", (double)(b->slowpath - a->slowpath)},
		{"measured.free_frozen", "count", (double)(b->frozen - a->frozen)},
		{"measured.cpu_partial_free", "count",
		 (double)(b->cpu_partial_free - a->cpu_partial_free)},
		{"total_time_extrapolated", "count", (double)m->extrapolated},
		{"total_time_ci_low_s", "s", m->total_ci_low_s},
		{"total_time_ci_high_s", "s", m->total_ci_high_s},
	};
	return wl_store_metrics(w->st, w->id, rows, WL_NR(rows));
}

static int messaging_results(const void *result, const struct wl_run *r,
			     struct store *st, int64_t id)
{
	const struct writer wr = {st, id, r, result, r->params}, *w = &wr;
	const struct wl_msg_result *m = w->m;
	const struct wl_metric rows[] = {
		{"total_time_s", "s", m->total_time_s},
		{"messages", "count", (double)m->messages},
		{"end_cycles", "core_cycles", (double)m->end_cycles},
		{"ctx_switches", "count", (double)m->ctx_switches},
		{"preemptions", "count", (double)m->preemptions},
		{"sender_blocks", "count", (double)m->sender_blocks},
		{"receiver_blocks", "count", (double)m->receiver_blocks},
		{"wakeups", "count", (double)m->wakeups},
		{"events", "count", (double)m->events},
		{"alloc_failed", "count", (double)m->alloc_failed},
	};
	int rc = wl_store_metrics(w->st, w->id, rows, WL_NR(rows));
	if (rc)
		return rc;
	rc = put_sched_stats(w);
	if (rc == NS_OK)
		rc = put_pipe_stats(w, w->p);
	return rc ? rc : put_windows(w, w->p);
}

const struct workload_ops wl_messaging_ops = {
	.name = "messaging",
	.fields = messaging_fields,
	.nr_fields = NR_M,
	.adhoc = "  type: messaging\n  groups: 10\n  loops: 100\n",
	.slub = 1,
	.accounting = CPU_ACCOUNTING_EXACT,
	.label_knob = "slab_free_layout",
	.report = WL_REPORT_MESSAGING,
	.events = WL_EV_ALL,
	.kernel_model = messaging_kernel_model,
	.parse = messaging_parse,
	.check = messaging_check,
	.params = messaging_params,
	.setup = wl_msg_setup,
	.run = messaging_run,
	.results = messaging_results,
	.result_free = messaging_result_free,
};
