/*
 * cpu — simulated CPUs: the cycle-cost primitives every kernel model calls.
 *
 * This header is the public contract: what models, workloads, the
 * analysis and the tests call.  It ends by including the layout of
 * struct cpu (cost/cpu_struct.h) and the inline hot steps
 * (cost/cpu_hot.h), which models compile in but never name.  The
 * implementation is split by concern (cost/cpu_internal.h lists the
 * files): set-up in cpu.c, memory in cpu_mem.c, the out-of-order model in
 * cpu_ooo.c, locks in cpu_lock.c, call paths and export in cpu_profile.c,
 * the invariants in cpu_check.c, and one file per accounting engine
 * (cpu_exact.c, cpu_memo.c, cpu_sampled.c and cpu_sampled_lock.c) behind
 * the hook table bound at set-up.
 *
 * What it models: the cost side of executing kernel code on one core, as
 * design.md §5 lays out.  Each CPU owns a cycle counter, a branch predictor
 * (bpred.h), a return stack buffer, private caches (cache.h) and a shadow
 * call stack that attributes cycles to modelled functions like `perf
 * report` (self and total cycles, call counts).  A world's CPUs share a
 * struct cpu_sys: the cost figures of the machine converted to cycles, the
 * latency matrices by node, the per-node LLCs and the coherence directory.
 *
 * Primitives and what they charge (k = machine cost figures in cycles):
 *   cpu_call(c, fn)       out of line: call half of k.call_return (the other
 *                         half at cpu_ret), one RSB push; inlined: nothing.
 *   cpu_ret(c)            out of line: ret half; + k.mispredict when the
 *                         return's RSB entry was overwritten (more than
 *                         k.return_stack calls deeper) — counted rsb_mispredict.
 *   cpu_branch(c, s, x)   returns x.  k.branch, + k.taken_branch when x is not
 *                         the layout's fall-through for s, + k.mispredict when
 *                         the predictor guessed the other direction.
 *   cpu_work(c, n)        n cycles of straight-line code.
 *   cpu_mem(c, a, b, n, kind)  the lines of [a, a+b) through the caches;
 *                         the line's level is the L1D, L2, LLC, DRAM from
 *                         this CPU's node to home node n when all miss, or a
 *                         line transfer from the holder's node for a line
 *                         dirty in another CPU's cache.  The lines of one
 *                         access are fetched in parallel (the slowest line
 *                         counts).  What the access costs depends on its
 *                         kind (the out-of-order rule below):
 *                           CPU_LOAD_DEP  the code needs the value at once
 *                                         (list->next chasing, a pointer
 *                                         loaded then dereferenced, a value
 *                                         tested by the next branch): the
 *                                         full latency of its level, k.l1d
 *                                         for an L1 hit;
 *                           CPU_LOAD      an independent load: k.mem_slot
 *                                         (1 cycle) on an L1 hit, the full
 *                                         L2/LLC/DRAM/transfer latency on a
 *                                         miss;
 *                           CPU_STORE     k.mem_slot wherever the line is;
 *                           CPU_STORE_BULK  a store in a bulk clear or copy
 *                                         (enough to fill the store
 *                                         buffer): charged as CPU_LOAD, the
 *                                         miss latency is the RFO's.
 *                         Every kind updates caches and coherence alike (a
 *                         store takes the line exclusively).  Meant for
 *                         objects of a few lines: a bulk copy or clear
 *                         (bandwidth-bound) is charged line by line.
 *   cpu_mem_l1_again(c, kind)  an access the caller knows hits the line of
 *                         its previous access (no cache lookup, no state
 *                         change): the L1 cost of the kind.
 *   cpu_atomic(c, a, n)   k.atomic, plus the cost of bringing the line in
 *                         exclusively when it is not in L1 (a transfer when
 *                         another CPU wrote it last).
 *   cpu_lock / cpu_unlock spinlocks (struct cpu_lock): half of
 *                         k.lock_uncontended each; + a line transfer when
 *                         another CPU held the lock last; a waiter's clock
 *                         jumps to the release time (lock_contended,
 *                         lock_wait_cycles).
 *   cpu_irq_save/restore, cpu_this_cpu_cmpxchg: the machine's figures.
 * Nanosecond figures become cycles with k.clock_ghz, rounded to the nearest
 * cycle once at set-up.
 *
 * The out-of-order rule for memory.  Every core in cost-figures.md is out
 * of order with a window far larger than a fast path's distance between
 * loads (ROB 224 on Skylake-SP and Zen 2, 128 on Neoverse N1 and TaiShan
 * v110 [cost-figures.md §1]; 192 on Haswell/Broadwell per Intel's
 * optimization manual; two load ports on all of them).  A load that hits
 * L1 and whose value the next instructions do not need at once executes
 * under the other work: it costs one issue slot (k.mem_slot = 1 cycle),
 * not its 4-5 cycle load-to-use latency.  The latency is paid where it
 * lies on the critical path: a dependent load (CPU_LOAD_DEP) stalls for
 * it.  Of several independent loads that feed one test, the model code
 * marks the last CPU_LOAD_DEP and the others CPU_LOAD (they overlap); a
 * load whose value only feeds store addresses or data is CPU_LOAD (stores
 * do not stall, so nothing waits).  Misses are not hidden for any load (an
 * L2 hit of 12-14 cycles or a DRAM access is longer than the straight-line
 * work that could cover it on these short paths), so a miss costs its
 * level's full latency as before.  Stores retire into the store buffer
 * (Intel's optimization manual: 56 entries on Skylake, 42 on
 * Haswell/Broadwell; no figure in cost-figures.md) and their line is
 * fetched (RFO) in the background; the fast paths issue a few stores
 * between long runs of other work, so the simple rule is that stores never
 * stall: a store costs one slot wherever its line is, and its miss still
 * moves the line (caches, coherence directory) for later accesses.  Locked
 * operations (cpu_atomic, locks) drain the store buffer and keep their
 * full cost.  A run of stores long enough to fill the store buffer
 * (clearing a page: 64 lines) is marked CPU_STORE_BULK by its caller and
 * waits for each line's RFO.  What the rule leaves out: a store buffer
 * filled by the scattered stores of a long loop, memory-level parallelism
 * between independent misses (each miss is charged in full), and the
 * latency of a dependent chain hidden by unrelated work (charged in full).
 * Branches, calls and straight-line work are still charged serially.
 *
 * The out-of-order timing model (cost.model ooo; docs/design/cost-model.md).  The
 * rule above is the in-order model (cost.model inorder, the default, kept
 * bit for bit): every primitive adds its cost to the clock in turn.  Under
 * ooo the clock is the dispatch clock of an interval model (Eyerman,
 * Eeckhout, Karkhanis and Smith, "A mechanistic performance model for
 * superscalar out-of-order processors", ACM TOCS 27(2), 2009; the
 * interval simulation of Genbrugge, Eyerman and Eeckhout, HPCA 2010, that
 * Sniper uses), with the machine's core figures (MACHINE_CORE_MAP):
 *   - uops dispatch dispatch_width per cycle: cpu_insns(n) is n fused
 *     uops, a branch 1 (the fused cmp/test + jcc), a load or store 1;
 *     at most load_ports loads per cycle;
 *   - a CPU_LOAD_DEP load starts when the open dependent chain is ready
 *     (its address is the previous dependent load's value) and sets the
 *     chain to its completion; a conditional branch consumes the chain:
 *     predicted, nothing waits for it; mispredicted, it resolves one cycle
 *     after the chain is ready and dispatch resumes mispredict cycles later
 *     (the machine's refill penalty), so a mispredict costs its resolution
 *     time plus the refill, not a flat add;
 *   - CPU_LOAD loads and bulk stores start at dispatch; an L1 miss takes
 *     one of fill_buffers fill buffers (the core's memory-level
 *     parallelism): independent misses overlap, a miss beyond the buffers
 *     waits for the first to free;
 *   - the window: an op still incomplete blocks dispatch of the uop
 *     rob_size uops younger (and of the load load_queue loads younger), so
 *     a long miss or chain costs only what the window cannot cover;
 *   - a taken branch, call or return ends its dispatch group; the next
 *     group starts taken_branch cycles after the branch's cycle (the front
 *     end's redirect); a call is call_uops, a return ret_uops uops; an RSB
 *     miss resolves after an L1 load of the return address plus the
 *     refill;
 *   - locked operations (cpu_atomic, cpu_lock) are full fences on x86:
 *     they wait for every op in flight, then cost as in-order; irq
 *     save/restore, this_cpu_cmpxchg, unlock and cpu_work() add their
 *     cycles to the clock as in-order (measured figures of whole
 *     sequences);
 *   - stores go to the store buffer and never stall (its 42-56 entries
 *     are not modelled);
 *   - the clocks: ns figures convert at core_ghz when given (turbo);
 *     cpu_tsc() reads the TSC, cycles x tsc_ghz / core_ghz.
 * What it leaves out: register dependences between straight-line
 * instructions (the models give counts, not dataflow: work runs at full
 * width), execution-port contention other than the load ports, the
 * uop cache and decoders, the store buffer, and wrong-path execution.
 * Selecting ooo also turns on the L2 streamer (cache.h) where the
 * machine gives its figures and, unless cost.bpred says otherwise, the
 * TAGE predictor (bpred.h).
 *
 * Memoized paths (cost.accounting memo; cost/cpu_memo.c).  A
 * top-level call (an out-of-line call at stack depth 0, such as one
 * alloc_pages or one free) is logged as one word per primitive; its
 * memory accesses are performed on the caches at once, in order, and
 * logged with where each line came from.  At its return the predictor
 * runs over the logged branches, trained as the exact run trains it
 * (skipped when the call's last prediction changed no predictor entry,
 * from the same global history, and nothing changed since), and the
 * events, the core's start state (RSB; under ooo the dispatch slot, the
 * open chain, the fill buffers and the tracked long ops, relative to the
 * clock) and the mispredicts are looked up among the paths seen before:
 * a known path adds its recorded cycles and core state and counts its
 * counter, site and profile deltas for export (cpu_memo_fold()); a new
 * one is accounted exactly through the primitives and recorded.  So the
 * results are exact, bit for bit: a path's cost is a function of what
 * the lookup compares.  A lock, a read of the clock (cpu_now(),
 * cpu_tsc()) or a full log ends logging: the events so far are accounted
 * exactly and the call goes on exactly.  Model code that reads the clock
 * or the site counts in the middle of a call must use cpu_now() and
 * cpu_memo_sync().
 *
 * Sampled accounting (cost.accounting sampled; cost/cpu_sampled.c "sampled
 * accounting"): approximate.  Some top-level calls (one in
 * cost.sample_period on average, at random intervals, and the first
 * sample_period of each CPU) are accounted exactly and recorded by path;
 * the others ("fast") count their branches and calls, warm the caches
 * (cost.sample_warm caches; stores: with their stores and locked ops
 * only; none: they leave them untouched) and are
 * charged their path's latest sample: path = the top-level function and
 * the multiset of (site, condition), calls and locks.  A path without a
 * sample is charged its blocks' mean costs, each booked to the functions
 * (and call path) the samples ran that block in, and its calls counted on
 * their paths (cost/cpu_sampled.c, "Lost paths along their functions").  The clock does not move
 * inside a fast call; its time there is estimated (the start, its lock
 * costs so far and its blocks' mean costs) for its locks: a fast call
 * waits for a lock another CPU releases later, pays the transfer of a
 * lock another CPU held last, and releases its own at that estimate, so
 * that contention between CPUs is kept; a sample's own waits and
 * transfers stay out of its path's recorded cost (cost/cpu_sampled_lock.c, "Lock waits").  A
 * function whose call (a sample or a fast one)
 * reads it runs exactly from then on, except for reads a model makes
 * only outside fast calls (cpu_in_fast_call(), cpu_now_measured()) and
 * the clock as noise (cpu_now_noise()).  docs/design/cost-model.md §10
 * measures the differences.
 * A fast call's steps are cpu_fast_branch(), cpu_fast_call(),
 * cpu_fast_ret() and cpu_fast_mem(); the primitives take them when
 * mlog_on is CPU_LOG_FAST, and the page allocator's fast copies
 * (models/mm_copy.c, cost/copy.h) call them directly, with cpu_copy_call() for calls
 * (their entry starts and ends the fast call: cpu_fast_take(),
 * cpu_fast_end()).  Fast branch counts wait in
 * fsite[] until cpu_memo_fold() adds them to the sites, and the paths'
 * other counts wait in their entries: both are folded when something
 * reads the counts (cpu_memo_sync(), the exports, cpu_check()).
 *
 * Profile semantics.  Cycles accrue to the innermost out-of-line function on
 * the shadow stack (self), as a sampling profiler without --inline sees
 * them: an inlined function has no self cycles of its own, they belong to
 * its out-of-line caller.  Every function, inlined or not, gets calls and
 * total cycles (inclusive, counted once per outermost activation, so
 * recursion is not double counted — perf's "children").  Call and return
 * costs belong to the callee.  Cycles with no out-of-line function on the
 * stack are "outside"; cycles skipped by cpu_advance_to() are "idle".
 *
 * Call paths.  The profile also keeps the calling context of its self
 * cycles, as `perf record -g` does for a flame graph: each out-of-line
 * frame has a path id, path = (parent path, function), interned per CPU in
 * a table that grows when a path is first entered (a hash of (parent, fn)
 * -> id; path 0 is the root, "no out-of-line function", whose cycles are
 * "outside").  Inlined functions get no path of their own (their cycles
 * belong to the out-of-line caller, as in perf without --inline).  Per
 * path: out-of-line calls that entered it, self cycles (the same cycles
 * the function's prof.self gets, booked at the same moments) and the
 * conditional-branch mispredicts made while it was the innermost
 * out-of-line frame (lazily, from a running per-CPU total).  Cost on the
 * hot path: one hash probe per out-of-line call and two more adds per
 * attribution; nothing per branch but one add.  A path that cannot be
 * created (CPU_MAX_PATHS reached, or out of memory) books its cycles to
 * its parent path and counts path_lost (cpu_check() accepts it: the cycle
 * totals still balance).
 *
 * Time and locks in a discrete-event run.  CPUs have independent clocks;
 * the engine runs each event to completion.  A lock is free or held when a
 * CPU reaches cpu_lock(): if it was released at a time later than this
 * CPU's clock, this CPU waited for it (contended); if it is still held (a
 * critical section that spans events) cpu_lock returns CPU_LOCK_BUSY and
 * the caller re-queues itself after the holder's release.  The order of
 * acquisition is the order in which the engine runs the events, which is
 * exact for critical sections simulated inside one event (the allocator
 * models) except that a CPU whose event starts later but reaches the lock
 * earlier in simulated time still waits for the one that ran first.
 *
 * Invariants (cpu_check()): shadow-stack depth within bounds and balanced
 * (no overflow or underflow ever happened); per function, the number of
 * frames on the stack equals its active count and exactly its lowest frame
 * is its outermost; the attribution target is the innermost out-of-line
 * frame; the RSB holds no more entries than out-of-line frames; the
 * out-of-line frames on the stack are the chain of the current path (each
 * frame's prev_path is its parent's path) and every path's parent has a
 * smaller id; the paths' self cycles sum to the functions' self cycles
 * plus outside (path 0); per site,
 * taken and mispredicted <= executed; and cycles since start = sum of self
 * cycles + outside + idle + cycles not yet attributed.
 *
 * Error policy: set-up returns NS_ERANGE (machine/cost figures the model
 * cannot use: a CPU without a node, a latency table without points, cache
 * geometry) or NS_ENOMEM.  The primitives return no status (they run tens of
 * millions of times per second); a model bug (unbalanced call/ret, stack
 * overflow) is recorded in counters that cpu_check() reports.
 */
#ifndef NUMASIM_CPU_H
#define NUMASIM_CPU_H

#include <assert.h>
#include <stdbool.h>
#include <stdint.h>

#include "cost/bpred.h"
#include "cost/cache.h"
#include "cost/cost.h"
#include "machine/machine.h"

/*
 * Counters (scope "cpu"): X(name, description).  The first group is
 * derived at export time from the profile and site tables; the rest are
 * kept by the primitives.
 */
#define CPU_COUNTER_MAP(X)                                                     \
	X(cycles, "cycles since the CPU started")                              \
	X(busy_cycles, "cycles minus idle cycles")                             \
	X(calls, "out-of-line calls")                                          \
	X(inlined_calls, "calls of inlined functions")                         \
	X(branches, "conditional branches executed")                           \
	X(branches_taken, "branches that left the fall-through path")          \
	X(branch_mispredict, "mispredicted conditional branches")              \
	X(idle_cycles, "cycles skipped while idle")                            \
	X(work_cycles, "straight-line work cycles")                            \
	X(rsb_mispredict, "returns mispredicted after RSB overflow")          \
	X(mem_accesses, "cache lines accessed")                                \
	X(mem_stall_cycles, "cycles charged for memory accesses")              \
	X(mem_load_dep, "dependent loads (latency on the critical path)")      \
	X(mem_load, "independent loads (L1 latency hidden)")                   \
	X(mem_store, "stores (into the store buffer)")                         \
	X(mem_store_bulk, "stores of bulk clears and copies")                  \
	X(l1d_hit, "lines served by L1D")                                      \
	X(l1d_miss, "lines missing L1D")                                       \
	X(l2_hit, "lines served by L2")                                        \
	X(l2_miss, "lines missing L2")                                         \
	X(llc_hit, "lines served by the node's LLC")                           \
	X(llc_miss, "lines missing the LLC (DRAM or another CPU's cache)")     \
	X(mem_local, "lines from DRAM of this CPU's node")                     \
	X(mem_remote, "lines from DRAM of another node")                       \
	X(line_transfer, "dirty lines pulled from another CPU's cache")       \
	X(atomic, "atomic read-modify-writes")                                 \
	X(lock_acquire, "spinlock acquisitions")                               \
	X(lock_contended, "acquisitions that waited for a release")            \
	X(lock_wait_cycles, "cycles spent waiting for spinlocks")              \
	X(lock_transfer, "lock acquisitions whose line came from another CPU") \
	X(irq_save, "local_irq_save calls")                                    \
	X(this_cpu_cmpxchg, "this_cpu_cmpxchg operations")                     \
	X(stack_overflow, "calls beyond the shadow stack (model bug)")         \
	X(stack_underflow, "returns without a call (model bug)")               \
	X(path_lost, "calls whose call path could not be recorded")            \
	X(uops, "uops dispatched (cost.model ooo)")                            \
	X(rob_stall_cycles, "cycles dispatch waited for a full ROB or load queue (ooo)") \
	X(mispredict_resolve_cycles, "cycles from a mispredicted branch's dispatch to its resolution (ooo)") \
	X(mlp_wait_cycles, "cycles L1 misses waited for a fill buffer (ooo)")  \
	X(fence_wait_cycles, "cycles locked ops waited for the ops in flight (ooo)") \
	X(l2_prefetch, "lines the L2 streamer brought in (ooo)")

enum cpu_counter {
#define CPU_COUNTER_ENUM(name, desc) CPU_CTR_##name,
	CPU_COUNTER_MAP(CPU_COUNTER_ENUM)
#undef CPU_COUNTER_ENUM
	CPU_NR_COUNTERS
};
const char *cpu_counter_name(enum cpu_counter c);
const char *cpu_counter_desc(enum cpu_counter c);

/* The timing model of a world (cost.model). */
enum cpu_model {
	CPU_MODEL_INORDER = 0,         /* every primitive's cost added in turn */
	CPU_MODEL_OOO,                 /* the out-of-order interval model */
};
const char *cpu_model_name(enum cpu_model m);
/* "inorder" / "ooo" -> the model, -1 if unknown. */
int cpu_model_parse(const char *s);

/*
 * How the primitives account (cost.accounting; "Memoized paths" above).
 * exact: every primitive runs the cost model as it is called.  memo: a
 * top-level call whose path (events, start state, predictions) was seen
 * before adds that path's recorded cost; the results are the same.
 */
enum cpu_accounting {
	CPU_ACCOUNTING_EXACT = 0,
	CPU_ACCOUNTING_MEMO,
	CPU_ACCOUNTING_SAMPLED,        /* approximate: "Sampled accounting" above */
};
const char *cpu_accounting_name(enum cpu_accounting a);

/*
 * What a sampled run's fast calls do with their memory accesses
 * (cost.sample_warm; docs/design/cost-model.md §10).  caches: every access is
 * performed on the caches, as SMARTS's functional warming keeps them
 * current.  stores: only the stores and locked ops, which are what the
 * coherence directory and the writers' caches follow (the transfers a
 * remote free or wake-up pays), at a fraction of the cache model's work;
 * the lines a fast call only reads are not brought in.  none: nothing,
 * the caches keep what the samples left.  Whatever the mode, the last
 * cost.sample_window fast calls before each due sample warm everything
 * (SMARTS's warming before a measured unit), so that a sample under
 * stores or none does not find cold the lines the fast calls just
 * before it touched.
 */
enum cpu_warm {
	CPU_WARM_NONE = 0,
	CPU_WARM_CACHES,
	CPU_WARM_STORES,
};
/* "none" / "caches" / "stores" */
const char *cpu_warm_name(enum cpu_warm w);
/* The name -> the mode, -1 if unknown. */
int cpu_warm_parse(const char *s);

/* The report headers' note of the accounting: "" (exact), ", memo
 * accounting", ", sampled accounting (1 in N, caches warmed | stores
 * warmed | no warming[, all warmed in the W calls before a sample])"
 * (in buf). */
const char *cpu_accounting_note(enum cpu_accounting a, uint32_t period, enum cpu_warm warm,
				uint32_t window, char *buf, size_t n);
/* Room for the note at its widest (every count at 10 digits: 105 bytes). */
#define CPU_ACCOUNTING_NOTE 160
/* "exact" / "memo" / "sampled" -> the mode, -1 if unknown. */
int cpu_accounting_parse(const char *s);

/*
 * The core figures cost.model ooo needs (MACHINE_CORE_MAP): the name of
 * the first one machine costs mc lacks, NULL when it has them all.
 */
const char *cpu_ooo_missing(const struct machine_costs *mc);

/* Instructions per cycle of straight-line work in the in-order model (the
 * models' MM_IPC and SLUB_IPC, 2 since the first cost model). */
#define CPU_INORDER_IPC 2

/* The machine's cost figures in whole cycles. */
struct cpu_costs {
	double clock_ghz;              /* ns -> cycles: core_ghz under ooo if given */
	double tsc_per_cycle;          /* TSC ticks per core cycle (1 in-order) */
	uint32_t width, rob, load_queue, load_ports, fill_buffers; /* ooo */
	uint32_t call_uops, ret_uops;  /* ooo */
	uint32_t pf_streams, pf_distance, pf_degree; /* ooo: L2 streamer */
	uint32_t call, ret;            /* halves of call_return */
	uint32_t branch, taken_branch, mispredict;
	uint32_t return_stack;         /* RSB entries */
	uint32_t l1d, l2, llc;
	uint32_t mem_slot;             /* an access off the critical path: 1 */
	uint32_t atomic;
	uint32_t lock, unlock;         /* halves of lock_uncontended */
	uint32_t irq_save, irq_restore; /* halves of irq_save_restore */
	uint32_t this_cpu_cmpxchg;
};

struct cpu_params {
	enum cpu_model model;          /* default CPU_MODEL_INORDER */
	enum cpu_accounting accounting; /* default CPU_ACCOUNTING_EXACT */
	/* cost.accounting sampled: one top-level call in sample_period, on
	 * average, is accounted exactly (default 100, at least 1);
	 * sample_warm: which cache accesses the others still perform
	 * (default CPU_WARM_CACHES: all); sample_window: the last
	 * sample_window fast calls before each due sample perform all of
	 * theirs, whatever sample_warm says (default 0: none do; "The
	 * warming window" in docs/design/cost-model.md §10) */
	uint32_t sample_period;
	enum cpu_warm sample_warm;
	uint32_t sample_window;
	struct bpred_params bpred;
	/* associativity and directory; sizes and line size come from the machine */
	struct cache_params cache;
	int stack_depth;               /* shadow call stack capacity */
	/* record each function's self cycles by charge kind (enum
	 * cpu_charge, cpu_sys_charges()) and its work by unit of work
	 * (cpu_sys_units()); memo accounting then runs exact
	 * (the same results), sampled is refused (NS_ERANGE).  Default off:
	 * the steps then test one byte (c->kinds) */
	bool charge_kinds;
};
void cpu_params_default(struct cpu_params *p);

struct cpu;
struct cpu_sys;

/*
 * CPUs cpus[0..n-1] (machine CPU numbers) of machine m, with the functions
 * and sites of t laid out by l (which must cover all of t).  m, t and l
 * must outlive the system.
 */
int cpu_sys_init(struct cpu_sys *s, const struct machine *m,
		 const struct cost_tables *t, const struct cost_layout *l,
		 const struct cpu_params *p, const int *cpus, int n);
void cpu_sys_free(struct cpu_sys *s);
/* Switch to another layout of the same tables (clears predictor state). */
int cpu_sys_set_layout(struct cpu_sys *s, const struct cost_layout *l);
/* CPU by machine CPU number, NULL if not simulated. */
struct cpu *cpu_sys_cpu(struct cpu_sys *s, int cpu_id);
/* The simulated task running on c, as the workload last said (comm NULL
 * until it says; comm must outlive the world): the TASK-PID of numasim
 * trace's records, nothing else reads it. */
void cpu_set_task(struct cpu *c, const char *comm, int pid);
const char *cpu_task(const struct cpu *c, int *pid);
/* Cycles of c's clock in nanoseconds (k.clock_ghz, rounded): the
 * timestamps of numasim trace's records. */
uint64_t cpu_cycles_to_ns(const struct cpu *c, uint64_t cycles);
/* The invariants; they fold memoized counts first (cost.accounting
 * memo), so they are not const. */
int cpu_sys_check(struct cpu_sys *s);
int cpu_check(struct cpu *c);

/* The machine's cost figures in whole cycles as cpu_sys_init converts
 * them for cost.model inorder (the figures annotate prices branch sites
 * with); NS_ERANGE for figures the model cannot use. */
int cpu_costs_init(struct cpu_costs *k, const struct machine_costs *mc);

/* ns -> cycles with the machine's clock (rounded). */
uint32_t cpu_ns_to_cycles(const struct cpu_costs *k, double ns);

/* --- calls behind a static key (a change file's `call:`) ----------------- */

/*
 * A layout may put calls behind a static key (cost/cost.h struct
 * cost_call_key).  The CPUs read a function's layout byte at every call
 * (c->fn_inline); when the layout keys calls, cpu_sys_init() binds them
 * to a copy of it (s->fn_step) in which each keyed callee also has
 * CPU_FN_KEYED, so that a call of any other function takes the steps it
 * took before, and a call of a keyed callee goes out of line to
 * cpu_call_keyed(), which looks at the caller (the frame below: inlined
 * functions have frames too) and the layout's keys:
 *   - no key for this caller: the call as before;
 *   - on: one uop charged to the caller (the jump the patched key site
 *     is), then the call as before;
 *   - off: the call is not made.  Its frame is taken back (no call, path,
 *     profile count), and the CPU mutes (c->mlog_on = CPU_LOG_MUTE,
 *     c->mdepth the muted calls' depth) until its return: every step in
 *     between (branch, call, return, block, work, memory access, locked
 *     op, irq, lock) charges, counts and performs nothing (a branch
 *     returns its condition; no predictor, cache or lock-cost state
 *     moves), so the CPU's state is that of a kernel that never made the
 *     call.  When the muted call returns, the same-line memos the models
 *     registered (cpu_sys_add_memo()) are forgotten: they may name lines
 *     the muted call would have touched.
 * The model's C still runs: what the callee computes or counts in the
 * model's own state is kept, so a change file only keys callees whose
 * state nothing later reads (scenarios/kchange.h).  Memo accounting runs
 * such a layout exactly (the same results: its replays would not see the
 * caller), and sampled accounting refuses it (NS_ERANGE: a fast call
 * counts its steps as it goes).
 */
#define CPU_FN_KEYED 2                 /* s->fn_step: a keyed callee */
#define CPU_LOG_MUTE 3                 /* c->mlog_on: a call behind a key that is off */
/* The call of fn whose frame cpu_call_exact() just pushed: true when a
 * key that is off mutes it (its frame taken back), else false with the
 * frame's inl set to the layout's (and the uop of a key that is on
 * charged). */
bool cpu_call_keyed(struct cpu *c, int fn);
struct charge_memo;
/* A model's same-line memo ([nr_cpus], cost/charge.h) that the end of a
 * muted call resets; NS_ENOMEM beyond CPU_SYS_MAX_MEMOS. */
#define CPU_SYS_MAX_MEMOS 4
int cpu_sys_add_memo(struct cpu_sys *s, struct charge_memo *memo);
void cpu_sys_remove_memo(struct cpu_sys *s, const struct charge_memo *memo);

/* --- memoized paths (cost.accounting memo) ------------------------------ */

/*
 * While a top-level call is being logged (c->mlog_on), the primitives
 * append one event each to c->mlog instead of accounting (a memory
 * access is performed on the caches at once and logged with where each
 * line came from); cpu_memo_end() (cost/cpu_memo.c) replays the call's recorded
 * cost or accounts the events exactly.  An event the log cannot take (a
 * lock, a read of the clock, a full log) calls cpu_memo_break(), which
 * accounts what was logged exactly and ends logging: the rest of the
 * call runs exactly.
 */
#define CPU_MEMO_LOG 4096              /* events per logged call at most */
enum cpu_event {
	CPU_EV_BRANCH = 0,             /* site << 1 | cond */
	CPU_EV_CALL,                   /* fn */
	CPU_EV_RET,
	CPU_EV_INSNS,                  /* instructions */
	CPU_EV_WORK,                   /* cycles */
	CPU_EV_MEM,                    /* an L1 hit known without a lookup (kind) */
	CPU_EV_LINE,                   /* one line of an access: source, holder, home */
	CPU_EV_CHARGE,                 /* the charge of the lines before it (kind) */
	CPU_EV_ATOMIC,                 /* a locked op: source, holder, home */
	CPU_EV_STATE,                  /* a word of the core's start state */
	CPU_EV_IRQ_SAVE,
	CPU_EV_IRQ_RESTORE,
	CPU_EV_CMPXCHG,
};
#define CPU_EV(kind, arg) ((uint64_t)(arg) << 4 | (uint64_t)(kind))
#define CPU_LOG_MEMO 1                 /* c->mlog_on: memo logging */
#define CPU_LOG_FAST 2                 /* c->mlog_on: a fast call (sampled) */

struct cpu_memo;
/* Start logging the top-level call of fn: false when this call must run
 * exactly (the core is not quiet, or the table is full). */
bool cpu_memo_begin(struct cpu *c, int fn);
void cpu_memo_break(struct cpu *c);
void cpu_memo_end(struct cpu *c);
/* A fast call or a sample (sampled) read the clock or the counts, which
 * do not move inside a fast call: its function's calls run exactly from
 * now on. */
void cpu_fast_read(struct cpu *c);
/* Sampled: whether the top-level call of fn about to start will be a
 * fast call (what cpu_memo_begin() would decide); when it will, it is
 * started here, to be run by the models' fast copy, which counts the
 * call itself (cpu_copy_call()) and ends it with cpu_fast_end(). */
bool cpu_fast_take(struct cpu *c, int fn);
/* The end of a fast call a model's fast copy ran: its path's cost. */
void cpu_fast_end(struct cpu *c);
/* A sample's end (sampled accounting): its cost recorded for its path. */
void cpu_sample_end(struct cpu *c);
/* A branch of a sample, just counted (taken, miss): the cycles of the
 * block it ends; the site is one its delta visits. */
void cpu_sample_branch(struct cpu *c, int site, bool cond, unsigned taken, unsigned miss);
/* A call in a sample, just counted: fn, and its call path (-1 for an
 * inlined function), are ones its delta visits. */
void cpu_sample_call(struct cpu *c, int fn, int32_t path);
/* A return in a sample, its frame just popped: the return to depth 0
 * ends the sample (cpu_sample_end()). */
void cpu_sample_ret(struct cpu *c);
/* Fold the replayed calls' counts into the counters, sites and profile
 * (the export functions and cpu_check() do it themselves). */
void cpu_memo_fold(struct cpu *c);
/* Top-level calls: all, replayed (shortcut: without the predictor),
 * accounted exactly at their end (of
 * those, verifications of a memoized path), broken off (accounted
 * exactly from the event that could not be logged), run without a log
 * (a low replay rate, cost/cpu_memo.c MEMO_WINDOW); memoized paths. */
struct cpu_memo_stats {
	uint64_t calls, replayed, exact, verified, broken, skipped, paths;
	uint64_t shortcut;             /* replays that skipped the predictor */
	uint64_t mismatch;             /* verifications that found another cost: 0 */
	/* cost.accounting sampled: top-level calls not sampled (fast), of
	 * those charged their path's latest sample (matched) and charged
	 * their blocks' mean costs as no sample of their path was there yet
	 * (lost); samples; exact counts the calls of functions that read
	 * the clock */
	uint64_t fast, matched, lost, samples;
	uint64_t copied;               /* fast calls run by the models' fast copy */
	uint64_t warmed;               /* fast calls cost.sample_window warmed */
	/* fast calls' lock waits and transfers, in cycles, by where they
	 * were booked: where their path's sample took a lock, where other
	 * samples of their function took one (a lost path's, or one whose
	 * sample took no lock of that class), where another CPU's samples
	 * of it did (none on theirs yet), as the top-level function's own
	 * (cost/cpu_sampled_lock.c, fast_lock_book()) */
	uint64_t lock_path, lock_site, lock_remote, lock_own;
	/* lost calls: their estimates' cycles, those booked to the
	 * functions that ran the blocks (the rest: the top-level function's
	 * own), and the lost calls whose calls were counted on their paths
	 * (cost/cpu_sampled.c, "Lost paths along their functions") */
	uint64_t lost_cycles, lost_placed, lost_calls_booked;
	uint8_t sampled;               /* the CPUs account sampled (the format) */
};
void cpu_memo_stats(const struct cpu_sys *s, struct cpu_memo_stats *st);
/* "P % of N top-level calls replayed, ..." (the benches' report line),
 * into a buffer of CPU_MEMO_STATS_LINE bytes: the longest line, every
 * count at 20 digits and the lock booking at its widest, is about 850 (a
 * 256-byte buffer cut the sampled line once its counts reached seven
 * digits). */
#define CPU_MEMO_STATS_LINE 1024
void cpu_memo_stats_format(const struct cpu_memo_stats *st, char *buf, size_t n);

/* Kinds of memory access (the out-of-order rule in the header comment). */
enum cpu_access {
	CPU_LOAD_DEP = 0,              /* value needed at once: full latency */
	CPU_LOAD,                      /* independent load: L1 latency hidden */
	CPU_STORE,                     /* into the store buffer: never stalls */
	CPU_STORE_BULK,                /* store of a bulk clear/copy: waits for RFO */
};

/*
 * Blocks (docs/design/cost-model.md §1, "Blocks").  A block is the straight-line
 * code of a model between two steps that end it (a branch site, a call,
 * a return), described once as data: its uops (the layout's work row),
 * the word accesses it makes in program order with their kinds (which
 * of its loads the exit branch or the next block waits for:
 * CPU_LOAD_DEP), and its exit site.  cpu_block_init() turns a
 * description into the block's static cost under the world's core and
 * code layout, once, at world set-up.  At run time cpu_block() charges
 * that static cost in one step, and each declared access then only goes
 * through the caches (cpu_block_take(), cpu_mem_pre()): an L1 hit adds
 * nothing, any other line takes its L1 precharge back and is charged
 * exactly as cpu_mem() charges it.
 *
 * Exact by construction, checked by tests/test_cpu.c against the same
 * code written with the primitives: in-order costs add up, so charging
 * a block's work and its accesses' L1 costs at its start gives the clock
 * and counters of charging them one by one, as long as nothing reads
 * the clock or waits in between (cpu_block_exit(): the exits check it).
 * Under cost.model ooo the order of dispatch matters (the dependent
 * chain, the load ports, the window), and a logged (memo) or fast
 * (sampled) call records steps, not totals: there a block dispatches or
 * logs its uops as cpu_insns() and its accesses are plain cpu_mem()
 * steps, so ooo results are the primitives' by construction too.
 */
#define CPU_BLOCK_MAX_ACCESSES 16
struct cpu_block {
	uint32_t uops;                 /* straight-line uops (work row) */
	uint32_t work;                 /* in-order: their cycles */
	uint32_t stall;                /* in-order: the accesses as L1 hits */
	uint32_t kinds;                /* 2 bits per access, the first lowest */
	uint8_t nacc;                  /* declared accesses */
	uint8_t nkind[4];              /* of them per enum cpu_access */
	uint8_t nextra;                /* accesses a code-change file added */
	uint16_t extra;                /* their kinds, 2 bits each (cpu_block_edit) */
	int32_t exit;                  /* exit site (global id), -1: not a branch */
	int32_t unit;                  /* its unit of work (cost_register_units()),
					* -1: none (cpu_blocks_units()) */
};

/* A block of uops and accesses `kinds` ("D" CPU_LOAD_DEP, "L" CPU_LOAD,
 * "S" CPU_STORE, "B" CPU_STORE_BULK; at most CPU_BLOCK_MAX_ACCESSES)
 * ending at site `exit` (-1: a call, a return or the next block), costed
 * with k.  NS_EINTERNAL for a bad description (a model bug). */
int cpu_block_init(struct cpu_block *b, uint32_t uops, const char *kinds, int32_t exit,
		   const struct cpu_costs *k);

/*
 * A code-change file's edit of a costed block (scenarios/kchange.h,
 * docs/reference/changes.md): uops added (negative: removed; the block
 * keeps at least none) and accesses added, `add` in the kinds above ("D",
 * "L", "S"; at most CPU_BLOCK_MAX_EXTRA over all edits of the block).
 * An added access has no address in the model: it is charged as an L1 hit
 * that changes no cache state (cpu_mem_l1_again()), right after the
 * block's uops, in every timing model.  The block's declared accesses stay
 * (the model's code makes them).  NS_EINPUT when the block would hold more
 * added accesses than CPU_BLOCK_MAX_EXTRA or a kind is not D, L or S.
 */
#define CPU_BLOCK_MAX_EXTRA 8
int cpu_block_edit(struct cpu_block *b, int32_t uops, const char *add);
/* One block edit by name (a model's MM_BLOCKS / SLUB_BLOCKS name), as a
 * world's configuration carries them in order. */
struct cpu_block_change {
	const char *block;
	int32_t uops;
	char add[CPU_BLOCK_MAX_EXTRA + 1];
};
/* cpu_block_edit() of every change whose block is names[i] (0 <= i < n)
 * on blocks[i], in order; changes of other models' blocks are skipped.
 * NS_EINPUT as cpu_block_edit(). */
int cpu_blocks_change(struct cpu_block *blocks, const char *const *names, int n,
		      const struct cpu_block_change *ch, int nch);
/* The added accesses of a block (cpu_block(), out of line: only a
 * code-change file adds any). */
void cpu_block_extra(struct cpu *c, const struct cpu_block *b);

/* A block as a model lists it (MM_BLOCKS, SLUB_BLOCKS): its work row (an
 * index into the world's work column), its kinds as above, and its exit
 * site in the model's own numbering (-1: not a branch). */
struct cpu_block_def {
	int row;
	const char *kinds;
	int exit;
};

/* cpu_block_init() of n descriptions into out[]: uops from work[row],
 * exit sites offset by site_base (the model's first global site id).
 * NS_EINTERNAL at the first bad description. */
int cpu_blocks_init(struct cpu_block *out, const struct cpu_block_def *defs, int n,
		    const uint32_t *work, int site_base, const struct cpu_costs *k);

/* Blocks out[0..n-1] are units unit_base .. unit_base + n - 1 of the
 * tables (the model registered their names in that order); unit_base -1:
 * none.  Only a run with charge kinds reads it (cpu_sys_units()). */
void cpu_blocks_units(struct cpu_block *out, int n, int unit_base);

/* Locked read-modify-write of the line at addr (home node id); returns cycles. */
uint32_t cpu_atomic(struct cpu *c, uint64_t addr, int node);
void cpu_irq_save(struct cpu *c);
void cpu_irq_restore(struct cpu *c);
void cpu_this_cpu_cmpxchg(struct cpu *c);
/* Idle until time t (no-op if the clock is already there). */
void cpu_advance_to(struct cpu *c, uint64_t t);

/* A spinlock as the cost model sees it. */
struct cpu_lock {
	int holder;                    /* cpu idx holding it, -1 = free */
	int last;                      /* cpu idx that held it last, -1 = never */
	uint64_t free_at;              /* clock of the last release */
	uint64_t acquisitions, contended, wait_cycles;
	/* its class, the name lockdep gives it ("&zone->lock",
	 * "&n->list_lock"; NULL: none): a fast call whose path has no sample
	 * books its waits where samples took a lock of its class (cost/cpu_sampled_lock.c,
	 * lock_site_at()); compared as a pointer */
	const char *cls;
};
#define CPU_LOCK_BUSY 1                /* held across events: retry later */

/* A free lock of no class; cpu_lock_init_class(): of class cls (a static
 * string, the same pointer for every lock of the class). */
void cpu_lock_init(struct cpu_lock *l);
void cpu_lock_init_class(struct cpu_lock *l, const char *cls);
/* NS_OK (acquired), CPU_LOCK_BUSY, or NS_EINTERNAL (this CPU holds it). */
int cpu_lock(struct cpu *c, struct cpu_lock *l);
/* NS_OK, or NS_EINTERNAL when this CPU does not hold it. */
int cpu_unlock(struct cpu *c, struct cpu_lock *l);

/* --- export ------------------------------------------------------------- */

/* One row of table profile(run_id, function, calls, self_cycles, total_cycles). */
struct cpu_profile_row {
	const char *function;
	bool inlined;
	uint64_t calls, self_cycles, total_cycles;
};
/*
 * One row of table profile_paths(run_id, path_id, parent_id, function,
 * calls, self_cycles, mispredicted): a call path summed over the selected
 * CPUs (paths with the same chain of functions are one), ids from 1 in
 * order of first entry (CPU by CPU), parent 0 = called from outside any
 * modelled out-of-line function.
 */
struct cpu_path_row {
	int64_t id, parent;
	const char *function;
	uint64_t calls, self_cycles, mispredicts;
};
/* One row of table branches(run_id, site, executed, taken, mispredicted). */
struct cpu_branch_row {
	const char *site, *desc;
	uint64_t executed, taken, mispredicted;
};
/* One row of table counters(run_id, scope, scope_id, name, value). */
struct cpu_counter_row {
	const char *scope;             /* "cpu" */
	int scope_id;                  /* machine CPU number */
	const char *name;
	uint64_t value;
};
/*
 * The kinds of charge a function's self cycles are split into when
 * cpu_params.charge_kinds is on: the step that moved the clock.  Under
 * cost.model ooo a wait of dispatch for older memory ops (the ROB and
 * load-queue rule, cpu_ooo_window()) is `mem` whichever step dispatched
 * (the dispatch before it is that step's kind);
 * so is the wait of a fence before a locked op (ooo_fence()); the locked
 * op itself is `lock`.  `other`: clock moves no step
 * booked (none in the exact engine; cpu_check() holds the split to
 * prof.self).
 */
#define CPU_CHARGES(X)                                                           \
	X(branch, "conditional branches: issue, taken redirect, mispredict")    \
	X(work, "straight-line code: the blocks' and work tables' instructions") \
	X(mem, "memory accesses and the waits for them")                        \
	X(call, "calls and returns (with return-stack mispredicts)")            \
	X(lock, "locks, lock waits and transfers, irq save/restore, atomics")   \
	X(other, "clock moves no step booked")
enum cpu_charge {
#define CPU_CHARGE_ENUM(name, desc) CPU_CHARGE_##name,
	CPU_CHARGES(CPU_CHARGE_ENUM)
#undef CPU_CHARGE_ENUM
	CPU_NR_CHARGES
};
const char *cpu_charge_name(enum cpu_charge k);
const char *cpu_charge_desc(enum cpu_charge k);
/* One row of table profile_charges(run_id, function, kind, cycles). */
struct cpu_charge_row {
	const char *function;
	const char *kind;
	uint64_t cycles;
};
/*
 * One row of table profile_work(run_id, function, unit, executed,
 * cycles): the work cycles of a function's self cycles (its `work`
 * charge kind) that one unit of straight-line work was charged, and how
 * often; the units' rows of a function sum to at most its work charge,
 * the rest being work no unit was armed for (cpu_work() and cpu_insns()
 * without cpu_work_unit(): the reclaim model's rows, the scheduler's and
 * the workloads' own work).
 */
struct cpu_unit_row {
	const char *function;
	const char *unit;
	uint64_t executed, cycles;
};
/* Callbacks return NS_OK to continue; any other value stops and is returned. */
typedef int (*cpu_profile_cb)(void *arg, const struct cpu_profile_row *r);
typedef int (*cpu_path_cb)(void *arg, const struct cpu_path_row *r);
typedef int (*cpu_branch_cb)(void *arg, const struct cpu_branch_row *r);
typedef int (*cpu_counter_cb)(void *arg, const struct cpu_counter_row *r);
typedef int (*cpu_charge_cb)(void *arg, const struct cpu_charge_row *r);
typedef int (*cpu_unit_cb)(void *arg, const struct cpu_unit_row *r);

/*
 * Rows summed over all CPUs (cpu_id < 0) or for one machine CPU number, in
 * id order, skipping functions never called and sites never executed.
 * Cycles still pending for frames on the stack are attributed first;
 * functions still active contribute no total yet.
 */
int cpu_sys_profile(struct cpu_sys *s, int cpu_id, cpu_profile_cb cb, void *arg);
int cpu_sys_branches(struct cpu_sys *s, int cpu_id, cpu_branch_cb cb, void *arg);
/* The call paths (cpu_path_row), parents before children; NS_ENOMEM when
 * the merge table cannot be allocated. */
int cpu_sys_paths(struct cpu_sys *s, int cpu_id, cpu_path_cb cb, void *arg);
/* Self cycles per (function, charge kind), functions in id order, kinds
 * in enum order, zero rows skipped; NS_ENOENT when charge_kinds is off. */
int cpu_sys_charges(struct cpu_sys *s, int cpu_id, cpu_charge_cb cb, void *arg);
/* Work cycles per (function, unit), functions then units in id order,
 * rows never executed skipped; NS_ENOENT when charge_kinds is off. */
int cpu_sys_units(struct cpu_sys *s, int cpu_id, cpu_unit_cb cb, void *arg);
/* Every counter of every CPU (derived counters brought up to date). */
int cpu_sys_counters(struct cpu_sys *s, cpu_counter_cb cb, void *arg);
/*
 * Per site whose test the layout removes (cost_layout_fix_site()), in site
 * order, one row: scope "system", scope_id 0, name
 * "removed_site_disagree.SITE", the number of times over all CPUs the
 * model's condition was not the fixed value.  No row when the layout
 * removes no site (a run without such a change keeps its counters).
 */
int cpu_sys_fixed_sites(struct cpu_sys *s, cpu_counter_cb cb, void *arg);
/* Update derived counters of c and return one value. */
uint64_t cpu_counter(struct cpu *c, enum cpu_counter id);

/* The layout of struct cpu (what the inline steps below read) and the
 * inline hot steps themselves: reached through this header only. */
#include "cost/cpu_struct.h"
#include "cost/cpu_hot.h"

#endif
