/*
 * wl_messaging — `perf bench sched messaging` in socket mode or pipe mode
 * (-p), with processes or threads (-t)
 * (tools/perf/bench/sched-messaging.c) as a workload over the SLUB model
 * (models/slub.h), scheduled by the CFS model (models/sched_fair.h) on
 * the event engine (sim/ctx.h).
 *
 * Benchmark structure (ref §1): `groups` groups of 20 senders and 20
 * receivers; receiver j of a group owns connection j of the group, and all
 * 20 senders of the group write to all 20 connections:
 *
 *     sender:   for i in 0..loops-1: for j in 0..19: write(conn[j], 100 B)
 *     receiver: read 20 * loops messages of 100 B from its connection
 *
 * Kernel work per message (ref §2): on the sender's CPU
 * slub_alloc(skbuff_head_cache) then slub_alloc(kmalloc-512) (448 B of data
 * + skb_shared_info) plus `send_cycles` of straight-line socket path; on
 * the receiver's CPU slub_free(kmalloc-512) then
 * slub_free(skbuff_head_cache) plus `recv_cycles`.  The straight-line costs
 * are identical for both SLUB layouts, so any difference between layouts
 * comes from the SLUB model.
 *
 * Pipe mode (mode WL_MSG_PIPE, fs/pipe.c v5.9): no slab object per
 * message.  pipe_write under __pipe_lock merges the 100 bytes into the
 * last buffer when the pipe was not empty and its page has room
 * (PIPE_BUF_FLAG_CAN_MERGE), else takes a ring slot (at most max_usage =
 * 16 buffers) with pipe->tmp_page or alloc_page(GFP_HIGHUSER) from the
 * page allocator model (params.pa), else waits exclusively in wr_wait;
 * it wakes the reader when the pipe was empty and the next writer when
 * it had waited and left room.  pipe_read copies from the tail buffer,
 * releases a buffer read empty (anon_pipe_buf_release: into tmp_page if
 * free, else put_page) and wakes one writer when the pipe was full as
 * the read began.  The pipe lock, wait-queue locks, head/tail and the
 * buffer array are cache lines of the parent's node; the data lines are
 * in the page.  send_cycles / recv_cycles stay the rest of the system
 * call (the socket mode's estimates; pipe_write's straight-line path is
 * shorter, for which numasim has no separate figure).
 *
 * Thread mode (threads 1): the same kernel paths, plus fdget/fput's two
 * atomics on the struct file per write and read (shared files_struct:
 * __fget instead of __fget_light); ctx_switch_cycles is charged as for
 * processes (a switch between threads skips switch_mm, which the model
 * has no sourced figure for).
 *
 * Scheduler.  The tasks are scheduled by the v5.9 CFS model
 * (models/sched_fair.h: vruntime, pick_next_entity with buddies, wake-up
 * and tick preemption, the sysctls scaled by 1 + ilog2(min(nr_cpus, 8)):
 * on 8 or more CPUs latency 24 ms, min_granularity 3 ms, wake-up
 * granularity 4 ms).  This workload decides the rest: task t (senders of
 * group 0, receivers of group 0, senders of group 1, ...) is forked onto
 * CPU t mod nr_cpus of the cpu_sys and stays there (round-robin, so a
 * group's senders and receivers are spread over all CPUs and both
 * sockets, and one CPU runs senders and receivers over time, as the
 * reference's §3 expects); each CPU runs one message operation (one write
 * or read system call) per event, and a preemption takes effect when that
 * system call returns.  Switching to another task costs
 * `ctx_switch_cycles`.  A sender blocks when its
 * connection has `inflight_limit` messages outstanding (sk_sndbuf /
 * truesize: 212992 / 768 = 278 by default, shared by the group's 20
 * senders); a receiver that frees a message wakes the connection's blocked
 * senders once at most inflight_limit / 4 are outstanding (unix_writable:
 * wmem_alloc << 2 <= sndbuf).  A receiver blocks on an empty connection and
 * is woken by the next write.  A wake-up costs the waker `wake_cycles`
 * (try_to_wake_up); an idle CPU starts the woken task after
 * `wake_latency_cycles` plus a uniform random jitter in
 * [0, wake_jitter_cycles] (the run's random stream: this is what makes
 * repetitions with different seeds differ).  The start order of each CPU's
 * run queue is shuffled with the same stream (the parent's wake-up order).
 * With `placement` 0 (sched.placement: none, the default) tasks stay on
 * their fork CPU; with 1 (v5.9) the parent (the cpu_sys's first CPU)
 * forks each group's receivers, then its senders, through fork balancing
 * (cfs_sched_fork), and the CFS model places woken tasks
 * (select_task_rq_fair with WF_SYNC: a socket's sk_data_ready and
 * write_space wake synchronously), balances newly idle CPUs and runs the
 * periodic load balance at the tick (models/sched_fair.h).  Not modelled:
 * START_DEBIT for the forked tasks (all start at vruntime 0), tick phase
 * (ticks at multiples of the tick period on every CPU).
 *
 * Time.  Each CPU has its own clock (cpu->now, cycles).  A message becomes
 * visible to its receiver at the sender's clock after the write; a
 * receiver whose clock is behind waits for it.  Total time is the largest
 * CPU clock when every task has finished, in seconds at the machine's
 * clock_ghz, as perf bench prints it.
 *
 * Error policy: NS_EINPUT for parameters out of range (zero groups, loops,
 * limit or timeslice; no CPUs); NS_ENOMEM when host memory runs out;
 * NS_ERANGE when the simulated kernel cannot allocate an object
 * (result.alloc_failed is then 1); NS_EINTERNAL when the run ends with
 * tasks still blocked or the scheduler's invariants broken (cfs_check: a
 * model bug); WL_MSG_STOPPED when *stop became
 * non-zero.  Nothing is printed.
 */
#ifndef NUMASIM_WL_MESSAGING_H
#define NUMASIM_WL_MESSAGING_H

#include <signal.h>
#include <stdint.h>

#include "cost/cpu.h"
#include "models/slub.h"
#include "workloads/workload.h"

#define WL_MSG_STOPPED 1
#define WL_MSG_FDS 20                     /* num_fds: senders = receivers per group */
#define WL_MSG_DATASIZE 100               /* bytes per message */
#define WL_MSG_SKB_HEAD 224               /* sizeof(struct sk_buff), ref §2 */
#define WL_MSG_DATA_ALLOC 448             /* SKB_DATA_ALIGN(100) + shared info */
#define WL_MSG_PIPE_BUFFERS 16            /* PIPE_DEF_BUFFERS: pipe->max_usage */
#define WL_MSG_PAGE_SIZE 4096u            /* PAGE_SIZE of a pipe buffer's page */
/* messages a pipe can hold: 16 pages of 40 merged 100-byte writes */
#define WL_MSG_PIPE_MSGS (WL_MSG_PIPE_BUFFERS * (WL_MSG_PAGE_SIZE / WL_MSG_DATASIZE))

enum wl_msg_mode {
	WL_MSG_SOCKET = 0,                /* socketpair(AF_UNIX, SOCK_STREAM), the default */
	WL_MSG_PIPE,                      /* -p: pipe() */
};

struct wl_msg_params {
	uint32_t groups;                  /* -g */
	uint64_t loops;                   /* -l */
	uint32_t inflight_limit;          /* messages per connection, default 278 */
	uint32_t send_cycles;             /* rest of unix_stream_sendmsg + syscall */
	uint32_t recv_cycles;             /* rest of unix_stream_recvmsg + syscall */
	uint32_t ctx_switch_cycles;       /* schedule() + switch_to */
	uint32_t wake_cycles;             /* try_to_wake_up, charged to the waker */
	uint32_t wake_latency_cycles;     /* idle CPU: IPI + idle exit */
	uint32_t wake_jitter_cycles;      /* uniform extra on an idle wake-up */
	uint32_t hz;                      /* CONFIG_HZ: scheduler tick rate, default 250 */
	uint32_t sched_latency_ns;        /* unscaled sysctl bases (fair.c): 6000000 */
	uint32_t min_granularity_ns;      /* 750000 */
	uint32_t wakeup_granularity_ns;   /* 1000000 */
	int wakeup_preemption;            /* sched_feat(WAKEUP_PREEMPTION), default 1 */
	int placement;                    /* enum cfs_placement: 0 none (default), 1 v5.9 */
	/* Windows and warm-up (workload.window_ms, warmup_ms, warmup_messages,
	 * measure_messages; 0 = off): the path mix of the frees is recorded
	 * per window of window_cycles of simulated time; the measured part
	 * starts once warmup_cycles have passed and warmup_messages were read;
	 * with measure_messages the run stops that many messages later and
	 * Total time is extrapolated to all 20 x loops x 20 x groups messages. */
	uint64_t window_cycles, warmup_cycles, warmup_messages, measure_messages;
	struct cache_as *as;              /* the world's address space (v5.9
					   * placement, pipe and thread mode) */
	enum wl_msg_mode mode;            /* workload.mode */
	int threads;                      /* -t (workload.threads): pthreads of one process */
	struct mm_world *pa;              /* pipe mode: the page allocator (alloc_page) */
};
/* The defaults; wl_messaging.c's design notes give the estimates. */
void wl_msg_params_default(struct wl_msg_params *p);

struct wl_msg_result {
	uint64_t messages;                /* written and read */
	uint64_t end_cycles;              /* largest CPU clock at the end */
	double total_time_s;              /* end_cycles / clock */
	uint64_t ctx_switches;
	uint64_t preemptions;             /* switches away from a runnable task */
	uint64_t wake_preemptions;        /* of which by check_preempt_wakeup */
	uint64_t sender_blocks, receiver_blocks, wakeups;
	uint64_t events;                  /* engine events */
	uint64_t alloc_failed;
	uint64_t migrations;              /* v5.9 placement: set_task_cpu to another CPU */
	/* pipe mode: pages taken by pipe_write (alloc_page or the pipe's
	 * tmp_page) and released by pipe_read (kept as tmp_page or put_page) */
	uint64_t pipe_alloc_page, pipe_tmp_page_reuse, pipe_put_page, pipe_tmp_page_keep;
	uint64_t pipe_merges;             /* writes merged into the last buffer */
	uint64_t spurious_wakeups;        /* pipe: a woken writer found the pipe still full */
	/* The frees' path mix, cumulative at the end of each window (both
	 * caches): FREE_FASTPATH, FREE_SLOWPATH, FREE_FROZEN, CPU_PARTIAL_FREE,
	 * messages read, and the window's end (cycles).  Owned by the result. */
	struct wl_msg_window {
		uint64_t end_cycles, messages;
		uint64_t fastpath, slowpath, frozen, cpu_partial_free;
	} *windows;
	size_t nr_windows;
	struct wl_msg_window measure_start, measure_end; /* the measured part */
	int measured;                     /* warm-up ended (measure_start valid) */
	int extrapolated;                 /* stopped after measure_messages */
	double measured_time_s;           /* measure_end - measure_start */
	/* Total time extrapolated from the measured rate, and the 95 %
	 * confidence interval from the per-window rates (0 if < 2 windows) */
	double total_ci_low_s, total_ci_high_s;
	/* v5.9 placement: the schedstat counters (cfs_stats), owned by the
	 * result: wl_msg_result_free releases them */
	struct wl_msg_sched_stat {
		int cpu;                  /* index in the cpu_sys */
		char domain[8];           /* level name, "" for a per-CPU counter */
		const char *name;         /* static (the X-macro list) */
		uint64_t value;
	} *sched_stats;
	size_t nr_sched_stats;
};
void wl_msg_result_free(struct wl_msg_result *r);

/*
 * Run the benchmark on every CPU of s (whose layout and world w must
 * match), with skb = skbuff_head_cache and data = kmalloc-512 of w.
 */
struct progress_work;             /* base/progress.h: messages read of all */
int wl_messaging_run(struct slub_world *w, struct cpu_sys *s, struct slub_cache *skb,
		     struct slub_cache *data, const struct wl_msg_params *p, uint64_t seed,
		     const volatile sig_atomic_t *stop, struct progress_work *work,
		     struct wl_msg_result *r);

/*
 * The SLUB caches the messaging workload uses, in the world r describes:
 * skbuff_head_cache (r->skb) and the kmalloc cache of its data (r->data);
 * the set-up of the workloads messaging and parallel (whose SLUB state
 * starts as messaging's).  NS_OK or the SLUB model's error, reported.
 */
int wl_msg_setup(struct wl_run *r);

/*
 * The messaging workload's parameters (perf bench sched messaging, socket
 * mode: workloads/wl_messaging.h).  The cost estimates not listed here
 * keep wl_msg_params_default()'s values.
 */
#define SCN_MSG_MAX_GROUPS 1000
#define SCN_MSG_MAX_LOOPS 1000000000ll
struct scn_messaging {
	uint32_t groups;                /* -g */
	uint64_t loops;                 /* -l */
	uint32_t inflight_limit;        /* messages per connection (278) */
	uint32_t send_cycles, recv_cycles, ctx_switch_cycles;
	int pipe;                       /* mode: pipe (-p); else socket */
	int threads;                    /* threads: true (-t); else processes */
	/* windows and warm-up (0 = off): simulated ms, messages read */
	uint32_t window_ms, warmup_ms;
	uint64_t warmup_messages, measure_messages;
	int placement_v59;              /* sched.placement v5.9 (the default) */
};

#endif
