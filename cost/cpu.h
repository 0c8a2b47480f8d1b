/*
 * cpu — simulated CPUs: the cycle-cost primitives every kernel model calls.
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
 * The out-of-order timing model (cost.model ooo; docs/cost-model.md).  The
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
 * Memoized paths (cost.accounting memo; cpu.c "memoized paths").  A
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
 * Sampled accounting (cost.accounting sampled; cpu.c "sampled
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
 * their paths (cpu.c, "Lost paths along their functions").  The clock does not move
 * inside a fast call; its time there is estimated (the start, its lock
 * costs so far and its blocks' mean costs) for its locks: a fast call
 * waits for a lock another CPU releases later, pays the transfer of a
 * lock another CPU held last, and releases its own at that estimate, so
 * that contention between CPUs is kept; a sample's own waits and
 * transfers stay out of its path's recorded cost (cpu.c, "Lock waits").  A
 * function whose call (a sample or a fast one)
 * reads it runs exactly from then on, except for reads a model makes
 * only outside fast calls (cpu_in_fast_call(), cpu_now_measured()) and
 * the clock as noise (cpu_now_noise()).  docs/cost-model.md §10
 * measures the differences.
 * A fast call's steps are cpu_fast_branch(), cpu_fast_call(),
 * cpu_fast_ret() and cpu_fast_mem(); the primitives take them when
 * mlog_on is CPU_LOG_FAST, and the page allocator's fast copies
 * (models/mm_fast.h) call them directly, with cpu_copy_call() for calls
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
 * (cost.sample_warm; docs/cost-model.md §10).  caches: every access is
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
	 * warming window" in docs/cost-model.md §10) */
	uint32_t sample_period;
	enum cpu_warm sample_warm;
	uint32_t sample_window;
	struct bpred_params bpred;
	/* associativity and directory; sizes and line size come from the machine */
	struct cache_params cache;
	int stack_depth;               /* shadow call stack capacity */
};
void cpu_params_default(struct cpu_params *p);

struct cpu_frame {
	int32_t fn;
	int32_t prev_attr;             /* attribution target before this call */
	int32_t prev_path;             /* call path before this call */
	uint64_t enter;                /* clock at the call */
	uint8_t inl, outer;
};

struct cpu_prof {
	uint64_t calls, self, total;
	uint32_t active;               /* frames of this function on the stack */
};

/* One call path (see "Call paths" above); path 0 is the root. */
struct cpu_path {
	int32_t parent, fn;            /* root: -1, -1 */
	uint64_t calls, self, mispredicts;
};
/* Paths per CPU at most: a bound against runaway recursion, far above
 * the few hundred paths of the models. */
#define CPU_MAX_PATHS (1 << 20)

struct cpu_site_stat {
	uint64_t executed, taken, mispredicted;
};

struct cpu_sys;

/*
 * The out-of-order core's state (cost.model ooo; "The out-of-order timing
 * model" above).  now is the dispatch clock; slot uops (lslot of them
 * loads) have been dispatched in cycle now.
 */
#define CPU_OOO_RING 64                /* long-latency ops the ROB rule tracks */
#define CPU_OOO_MAX_MLP 32             /* fill buffers at most */
struct cpu_ooo {
	uint32_t width, rob, load_queue, load_ports, mlp;
	uint32_t rob_cycles;           /* rob / width: no op done sooner can block */
	uint32_t slot, lslot;
	uint64_t pos;                  /* uops dispatched so far */
	uint64_t chain;                /* ready time of the open dependent chain */
	uint32_t head, n, loads;       /* ring of long ops, in dispatch order */
	uint64_t rpos[CPU_OOO_RING], rdone[CPU_OOO_RING];
	uint8_t rload[CPU_OOO_RING];
	uint64_t miss[CPU_OOO_MAX_MLP]; /* completion of the fill buffers' misses */
};

/*
 * What a fast call (sampled accounting) does at a branch, per (site,
 * condition), in one place so that the step is a few host instructions:
 * the count of fast executions (folded into the site's executed and taken
 * by cpu_memo_fold()) and one term, added to the call's c->fsig, that
 * carries two sums at once: in its high 32 bits the branch's term of the
 * path signature, in its low 32 bits the mean cost of the block the
 * branch ends (x16, learned in samples), which a path with no sample yet
 * is charged.  Not checked at run time: a call whose estimate reached
 * 2^32 (about 268 M cycles) would carry into the signature and be taken
 * for another path; the allocator's top-level calls stay far below.
 */
struct cpu_fast_site {
	uint64_t n;
	uint64_t term;
};
#define CPU_SIG_MASK 0xFFFFFFFF00000000u /* c->fsig: the signature's bits */

struct cpu {
	uint64_t now;                  /* cycle counter (ooo: the dispatch clock) */
	uint8_t ooo;                   /* cost.model ooo */
	/* cost.accounting memo ("Memoized paths" above; cpu.c), tested by
	 * every primitive: beside the clock */
	uint8_t memo;                  /* memo accounting on */
	uint8_t mlog_on;               /* CPU_LOG_MEMO: logging a top-level call;
					* CPU_LOG_FAST: a sampled run's fast call */
	uint8_t fwarm;                 /* sampled: fast calls perform their stores
					* and locked ops (cost.sample_warm
					* caches or stores) */
	uint8_t fwarm_loads;           /* ... and their loads (caches) */
	uint8_t sampling;              /* sampled: this top-level call is a sample */
	uint8_t fcopy;                 /* sampled: fast calls may run the models'
					* fast copy (cpu_fast_entry()) */
	uint32_t mdepth;               /* its call depth */
	uint64_t fsig;                 /* the fast call's path signature (high
					* 32 bits) and its cost as blocks (x16,
					* low 32 bits): struct cpu_fast_site */
	uint64_t flock;                /* the fast call's lock waits and
					* transfers so far (cpu.c) */
	struct cpu_fast_site *fsite;   /* [2 * nr_sites]: per (site, condition) */
	const uint64_t *stab_fn;       /* signature terms per function, then
					* per lock (cpu.c) */
	uint32_t mlog_n;               /* events logged */
	uint64_t *mlog;                /* [CPU_MEMO_LOG] */
	struct cpu_memo *mt;           /* the table of memoized paths */
	/* the exact branch step of this CPU's model and predictor, bound
	 * at set-up (cpus_bind(), cpu.c): the hot path tests neither */
	bool (*branch)(struct cpu *c, int site, bool cond);
	/* hot figures copied from the costs for locality */
	uint32_t k_taken, k_mispredict, k_call, k_ret;
	uint32_t k_br[4];              /* in-order: a branch's cycles by
					* taken << 1 | mispredicted */
	uint32_t k_l1d, k_mem_slot;
	const struct cost_site_layout *site_layout;
	const uint8_t *fn_inline;
	struct bpred bp;
	struct cpu_site_stat *site;
	struct cpu_prof *prof;
	struct cpu_frame *stack;
	int depth, max_depth, lost;
	int32_t attr;                  /* fn receiving self cycles, -1 = outside */
	int32_t cur_path;              /* path receiving self cycles, 0 = outside */
	struct cpu_path *path;         /* [nr_paths], capacity cap_paths */
	uint32_t nr_paths, cap_paths;
	int32_t *path_hash;            /* open addressing, -1 = empty */
	uint32_t path_hash_mask;
	uint64_t mispredicts, mispredicts_booked; /* running total, booked to paths */
	uint64_t last;                 /* clock when self cycles were last attributed */
	uint64_t outside, start;
	uint32_t rsb, rsb_depth;
	int id;                        /* machine CPU number */
	int idx;                       /* index in cpu_sys.cpu[] and the caches */
	int node, node_pos;            /* node id and its position in the machine */
	struct cpu_sys *sys;
	uint64_t ctr[CPU_NR_COUNTERS];
	struct cpu_ooo o;
	/* the open block (cpu_block()).  Kept last: inserted among the hot
	 * fields above, these 12 bytes shifted them and bench pagealloc took
	 * 1.7x the host time on this project's AMD EPYC hosts (2026-12-04),
	 * with 1 % fewer instructions */
	uint8_t blk_left;              /* the open block's declared accesses not
					* yet made (cpu_block(): precharged) */
	uint32_t blk_kinds;            /* their kinds, the next in the low bits */
	int32_t blk_exit;              /* debug builds: the open block's exit
					* site + 1, 0 = none or not a branch */
};

struct cpu_sys {
	enum cpu_model model;
	const struct machine *m;
	const struct cost_tables *tables;
	const struct cost_layout *layout;
	struct cpu_costs k;
	int nr_nodes;
	uint32_t *mem_lat;             /* [from_pos * nr_nodes + to_pos] cycles */
	uint32_t *xfer_lat;            /* same shape, cache-line transfers */
	struct cache_sys cache;
	int nr_cpus;
	struct cpu *cpu;               /* [nr_cpus] */
};

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

/* --- hot-path primitives ------------------------------------------------ */

static inline void cpu_attribute(struct cpu *c)
{
	uint64_t d = c->now - c->last;
	struct cpu_path *p = &c->path[c->cur_path];
	if (c->attr >= 0)
		c->prof[c->attr].self += d;
	else
		c->outside += d;
	p->self += d;
	p->mispredicts += c->mispredicts - c->mispredicts_booked;
	c->mispredicts_booked = c->mispredicts;
	c->last = c->now;
}

/* Slot of (parent, fn) in the path hash. */
static inline uint32_t cpu_path_slot(const struct cpu *c, int32_t parent, int32_t fn)
{
	uint32_t key = (uint32_t)parent * 0x9E3779B1u ^ (uint32_t)fn * 0x85EBCA77u;
	return (key ^ key >> 15) & c->path_hash_mask;
}

/* A new path (parent, fn) at hash slot; the parent when it cannot be made. */
int32_t cpu_path_new(struct cpu *c, int32_t parent, int32_t fn, uint32_t slot);

/* The path of calling fn from path parent, created on first use. */
static inline int32_t cpu_path_child(struct cpu *c, int32_t parent, int32_t fn)
{
	uint32_t h = cpu_path_slot(c, parent, fn);
	for (;; h = (h + 1) & c->path_hash_mask) {
		int32_t id = c->path_hash[h];
		if (id < 0)
			return cpu_path_new(c, parent, fn, h);
		if (c->path[id].fn == fn && c->path[id].parent == parent)
			return id;
	}
}

/* --- memoized paths (cost.accounting memo) ------------------------------ */

/*
 * While a top-level call is being logged (c->mlog_on), the primitives
 * append one event each to c->mlog instead of accounting (a memory
 * access is performed on the caches at once and logged with where each
 * line came from); cpu_memo_end() (cpu.c) replays the call's recorded
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
/* Whether the model entry about to make the top-level call of fn can run
 * its fast copy (models/mm_fast.h): sampled accounting, no call open, and
 * the call will be fast.  One predictable test when sampled is off. */
static inline bool cpu_fast_entry(struct cpu *c, int fn)
{
	return c->fcopy && c->depth == 0 && !c->mlog_on && cpu_fast_take(c, fn);
}
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
 * (a low replay rate, cpu.c MEMO_WINDOW); memoized paths. */
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
	 * (cpu.c, fast_lock_book()) */
	uint64_t lock_path, lock_site, lock_remote, lock_own;
	/* lost calls: their estimates' cycles, those booked to the
	 * functions that ran the blocks (the rest: the top-level function's
	 * own), and the lost calls whose calls were counted on their paths
	 * (cpu.c, "Lost paths along their functions") */
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

/* The logging paths are forced inline: a host call per event would cost
 * more than the event's accounting saves. */
#define CPU_INLINE inline __attribute__((always_inline))

/*
 * What ends straight-line code (a branch at `site`, or -1: a call, a
 * return, a lock or a read of the clock) checks, in debug builds, that
 * the open block (cpu_block(), below) made every access it declared and
 * that its declared exit is this one: a block's precharged cost must not
 * be read before its accesses are done, and its description must be the
 * code's.  Release builds check nothing.
 */
#ifdef NDEBUG
static inline void cpu_block_exit(struct cpu *c, int site)
{
	(void)c;
	(void)site;
}
#else
static inline void cpu_block_exit(struct cpu *c, int site)
{
	assert(c->blk_left == 0);
	assert(c->blk_exit == 0 || c->blk_exit == site + 1);
	c->blk_exit = 0;
}
#endif

/* Log ev; false (the events so far accounted exactly, logging over) when
 * the log is full. */
static CPU_INLINE bool cpu_memo_log(struct cpu *c, uint64_t ev)
{
	if (c->mlog_on == CPU_LOG_FAST)
		return true;           /* a fast call charges nothing itself */
	if (c->mlog_n < CPU_MEMO_LOG) {
		c->mlog[c->mlog_n++] = ev;
		return true;
	}
	cpu_memo_break(c);
	return false;
}

/*
 * Is a fast call (sampled accounting) running on c?  Its clock and site
 * counts stand still until it returns.  A model that measures a stretch
 * of its own code (SLUB's FREE_FROZEN figures) takes the measurement only
 * when this is false, with cpu_now_measured() and
 * cpu_counts_measured(): then its function can still run fast, and the
 * measurement covers the calls accounted exactly (the samples).
 */
static inline bool cpu_in_fast_call(const struct cpu *c)
{
	return c->mlog_on == CPU_LOG_FAST;
}

/* What a read of the clock or the counts does first: a logged call is
 * accounted exactly (memo); under sampled, the top-level function runs
 * exactly from its next call on (a fast call reads the clock of its
 * start: it does not move inside), unless the read is `measured`: made
 * only outside fast calls (cpu_in_fast_call()), so that a sample's read
 * says nothing of the fast calls. */
static inline void cpu_clock_read_as(struct cpu *c, bool measured)
{
	assert(!measured || !cpu_in_fast_call(c));
	cpu_block_exit(c, -1);
	if (c->mlog_on == CPU_LOG_MEMO)
		cpu_memo_break(c);
	else if (c->mlog_on == CPU_LOG_FAST || (c->sampling && !measured))
		cpu_fast_read(c);
}

static inline void cpu_clock_read(struct cpu *c)
{
	cpu_clock_read_as(c, false);
}

/* The clock, for model code that reads it mid-call. */
static inline uint64_t cpu_now(struct cpu *c)
{
	cpu_clock_read(c);
	return c->now;
}

/* The clock for a measurement taken only outside fast calls. */
static inline uint64_t cpu_now_measured(struct cpu *c)
{
	cpu_clock_read_as(c, true);
	return c->now;
}

/*
 * The clock as a source of noise (SLUB's remote_node_defrag_ratio
 * lottery on get_cycles()): cpu_now() outside fast calls; in a fast call
 * the clock at its start, so the function can still run fast (its cost
 * is charged when it returns).  Under exact and memo accounting it is
 * cpu_now(); under sampled the lottery's draw in a fast call differs from
 * exact's (docs/cost-model.md §10).
 */
static inline uint64_t cpu_now_noise(struct cpu *c)
{
	if (cpu_in_fast_call(c))
		return c->now;
	return cpu_now_measured(c);
}

/* The counters and site counts up to this point, for model code that
 * reads them mid-call: a logged call is accounted exactly first, and
 * replayed calls are folded in. */
static inline void cpu_memo_sync(struct cpu *c)
{
	cpu_clock_read(c);
	if (c->mt)
		cpu_memo_fold(c);
}

/*
 * The counts up to this point, for a measurement taken only outside fast
 * calls as differences within one call (two reads in the same top-level
 * call): a logged call is accounted exactly first.  Unlike
 * cpu_memo_sync() it does not fold the counts of other calls (replayed
 * or fast) in: none lands between the two reads, so the difference is
 * the call's own, and a sample is not spoiled by a fold inside it.
 */
static inline void cpu_counts_measured(struct cpu *c)
{
	cpu_clock_read_as(c, true);
}

/* The cycles locked ops have waited for older ops in flight so far
 * (cost.model ooo; 0 in-order): read after cpu_memo_sync(), a difference
 * of two reads is the wait of the exactly accounted stretch between. */
static inline uint64_t cpu_fence_waited(const struct cpu *c)
{
	return c->ctr[CPU_CTR_fence_wait_cycles];
}

/* --- the out-of-order core (cost.model ooo) ----------------------------- */

/*
 * The out-of-order core's steps.  The frequent ones (dispatch of n uops,
 * a taken branch's redirect) are inline so that cpu_insns() under ooo
 * costs no host call and the out-of-line steps in cpu.c inline them; the
 * rare or long ones (the window rule once long ops are in flight, a
 * mispredict's resolution, branch, call, return, memory) are out of
 * line.  The model test in
 * each primitive is one predictable host branch.
 */
void cpu_ooo_window(struct cpu *c);
void cpu_ooo_mispredict(struct cpu *c, uint64_t input);
void cpu_ooo_call(struct cpu *c);
void cpu_ooo_ret(struct cpu *c, bool rsb_hit);

/* The cycle the last dispatched uop went in (dispatch leaves now at the
 * next cycle when it filled a group). */
static inline uint64_t cpu_ooo_last_cycle(const struct cpu *c)
{
	return c->o.slot || !c->now ? c->now : c->now - 1;
}

/* Dispatch resumes at cycle t (if later) with an empty group. */
static inline void cpu_ooo_restart(struct cpu *c, uint64_t t)
{
	if (t > c->now)
		c->now = t;
	c->o.slot = c->o.lslot = 0;
}

/* uops fused uops through dispatch, width per cycle; then the ROB and
 * load-queue rule (uop p cannot dispatch before every op at least rob
 * uops, or load_queue loads, older than it has completed) when long ops
 * are in flight. */
static inline void cpu_ooo_dispatch(struct cpu *c, uint32_t uops)
{
	struct cpu_ooo *o = &c->o;
	uint32_t t = o->slot + uops;
	if (t >= o->width) {
		c->now += t / o->width;
		o->slot = t % o->width;
		o->lslot = 0;
	} else {
		o->slot = t;
	}
	o->pos += uops;
	c->ctr[CPU_CTR_uops] += uops;
	if (o->n)
		cpu_ooo_window(c);
}

/* A taken branch ends its dispatch group: the next uop comes k_taken
 * cycles after the branch's cycle (the front end's redirect). */
static inline void cpu_ooo_taken(struct cpu *c)
{
	cpu_ooo_restart(c, cpu_ooo_last_cycle(c) + c->k_taken);
}

/* One conditional branch (cpu.c): out of line so that cpu_branch() stays
 * small for the in-order model (inlined, it cost the in-order path 3 %
 * more host instructions). */
void cpu_ooo_branch(struct cpu *c, unsigned taken, unsigned miss);

static inline void cpu_call_exact(struct cpu *c, int fn)
{
	if (c->memo && !c->depth && cpu_memo_begin(c, fn))
		return;
	if (c->depth == c->max_depth) {
		c->lost++;
		c->ctr[CPU_CTR_stack_overflow]++;
		return;
	}
	struct cpu_frame *f = &c->stack[c->depth++];
	struct cpu_prof *p = &c->prof[fn];
	f->fn = fn;
	f->enter = c->now;
	f->outer = p->active++ == 0;
	f->inl = c->fn_inline[fn];
	p->calls++;
	if (f->inl) {
		if (c->sampling)
			cpu_sample_call(c, fn, -1);
		return;
	}
	cpu_attribute(c);
	f->prev_attr = c->attr;
	c->attr = fn;
	f->prev_path = c->cur_path;
	c->cur_path = cpu_path_child(c, c->cur_path, fn);
	c->path[c->cur_path].calls++;
	if (c->sampling)
		cpu_sample_call(c, fn, c->cur_path);
	c->rsb += c->rsb < c->rsb_depth;
	if (c->ooo) {
		cpu_ooo_call(c);
		return;
	}
	c->now += c->k_call;
}

/* A call inside a fast call (sampled): counted, and its signature term. */
static CPU_INLINE void cpu_fast_call(struct cpu *c, int fn)
{
	assert(c->mlog_on == CPU_LOG_FAST);
	c->prof[fn].calls++;
	c->fsig += c->stab_fn[fn];
	c->mdepth++;
}

/* A call in a models' fast copy (models/mm_fast.h): the copy's entry
 * started the fast call (cpu_fast_take()) and ends it (cpu_fast_end()),
 * so no depth is kept and a return is nothing. */
static CPU_INLINE void cpu_copy_call(struct cpu *c, int fn)
{
	assert(c->mlog_on == CPU_LOG_FAST);
	c->prof[fn].calls++;
	c->fsig += c->stab_fn[fn];
}

static CPU_INLINE void cpu_call(struct cpu *c, int fn)
{
	assert(fn >= 0 && fn < c->sys->layout->nr_fns);
	cpu_block_exit(c, -1);
	if (c->mlog_on) {
		if (c->mlog_on == CPU_LOG_FAST) {
			cpu_fast_call(c, fn);
			return;
		}
		if (c->mlog_n < CPU_MEMO_LOG && (int)c->mdepth < c->max_depth) {
			c->mlog[c->mlog_n++] = CPU_EV(CPU_EV_CALL, fn);
			c->mdepth++;
			return;
		}
		cpu_memo_break(c);     /* the log or the stack is full */
	}
	cpu_call_exact(c, fn);
}

static inline void cpu_ret_exact(struct cpu *c)
{
	if (c->lost) {
		c->lost--;
		return;
	}
	if (c->depth == 0) {
		c->ctr[CPU_CTR_stack_underflow]++;
		return;
	}
	struct cpu_frame *f = &c->stack[--c->depth];
	if (!f->inl && c->ooo) {
		cpu_ooo_ret(c, c->rsb != 0);
		c->rsb -= c->rsb != 0;
		cpu_attribute(c);
		c->attr = f->prev_attr;
		c->cur_path = f->prev_path;
	} else if (!f->inl) {
		c->now += c->k_ret;
		if (c->rsb) {
			c->rsb--;
		} else {
			c->now += c->k_mispredict;
			c->ctr[CPU_CTR_rsb_mispredict]++;
		}
		cpu_attribute(c);
		c->attr = f->prev_attr;
		c->cur_path = f->prev_path;
	}
	struct cpu_prof *p = &c->prof[f->fn];
	p->active--;
	if (f->outer)
		p->total += c->now - f->enter;
	if (c->sampling)           /* one test when not sampling */
		cpu_sample_ret(c);
}

/* A return inside a fast call or a logged call: the top-level one ends it. */
static CPU_INLINE void cpu_fast_ret(struct cpu *c)
{
	assert(c->mlog_on);
	if (--c->mdepth == 0)
		cpu_memo_end(c);
}

static CPU_INLINE void cpu_ret(struct cpu *c)
{
	cpu_block_exit(c, -1);
	if (c->mlog_on && cpu_memo_log(c, CPU_EV(CPU_EV_RET, 0))) {
		cpu_fast_ret(c);
		return;
	}
	cpu_ret_exact(c);
}

/* A branch of a fast call (sampled): counted, and its term of the path
 * signature and of the blocks' cost estimate (struct cpu_fast_site). */
static CPU_INLINE bool cpu_fast_branch(struct cpu *c, int site, bool cond)
{
	assert(c->mlog_on == CPU_LOG_FAST);
	/* one arm per direction, so that each arm's index is a constant:
	 * computing 2 * site + cond from the condition took about 4 of the
	 * step's 7 host instructions (docs/cost-model.md §10) */
	struct cpu_fast_site *f = &c->fsite[2 * site];
	if (cond) {
		f[1].n++;
		c->fsig += f[1].term;
	} else {
		f[0].n++;
		c->fsig += f[0].term;
	}
	return cond;
}

/* What a conditional branch charges once its direction (taken: left the
 * layout's fall-through) and the prediction (miss) are known; ooo a
 * constant in cpu_branch_as(). */
static CPU_INLINE void cpu_branch_charge(struct cpu *c, int site, unsigned taken,
					 unsigned miss, bool ooo)
{
	struct cpu_site_stat *st = &c->site[site];
	if (ooo)
		cpu_ooo_branch(c, taken, miss);
	else
		c->now += c->k_br[taken << 1 | miss];
	st->executed++;
	st->taken += taken;
	st->mispredicted += miss;
	c->mispredicts += miss;
}

static inline void cpu_branch_account(struct cpu *c, int site, unsigned taken, unsigned miss)
{
	cpu_branch_charge(c, site, taken, miss, c->ooo);
}

/*
 * A conditional branch accounted exactly, with the model (ooo) and the
 * predictor (mode) as constants: cpu.c instantiates it once per pair and
 * binds the CPU's to c->branch at set-up, so that the step tests neither
 * (docs/cost-model.md §7, "The branch step bound at set-up": 7.9 % fewer
 * host instructions on bench pagealloc in-order).
 */
static CPU_INLINE bool cpu_branch_as(struct cpu *c, int site, bool cond, bool ooo,
				     enum bpred_mode mode)
{
	const struct cost_site_layout *sl = &c->site_layout[site];
	unsigned taken = (unsigned)cond ^ sl->fallthrough;
	unsigned pred = bpred_update_as(&c->bp, site, sl->static_taken, taken, mode);
	cpu_branch_charge(c, site, taken, pred ^ taken, ooo);
	if (c->sampling)
		cpu_sample_branch(c, site, cond, taken, pred ^ taken);
	return cond;
}

static inline bool cpu_branch_exact(struct cpu *c, int site, bool cond)
{
	return c->branch(c, site, cond);
}

static CPU_INLINE bool cpu_branch(struct cpu *c, int site, bool cond)
{
	assert(site >= 0 && site < c->sys->layout->nr_sites);
	cpu_block_exit(c, site);
	if (c->mlog_on) {
		if (c->mlog_on == CPU_LOG_FAST)
			return cpu_fast_branch(c, site, cond);
		if (cpu_memo_log(c, CPU_EV(CPU_EV_BRANCH, (uint32_t)site << 1 | cond)))
			return cond;
	}
	return cpu_branch_exact(c, site, cond);
}

/* The cycles cpu_branch() charged for a site's counts (`numasim annotate`
 * prints them per site; test_cpu checks they equal the clock's advance). */
static inline uint64_t cpu_branch_cycles(const struct cpu_costs *k, uint64_t executed,
					 uint64_t taken, uint64_t mispredicted)
{
	return executed * k->branch + taken * k->taken_branch + mispredicted * k->mispredict;
}

static CPU_INLINE void cpu_work(struct cpu *c, uint32_t cycles)
{
	if (c->mlog_on && cpu_memo_log(c, CPU_EV(CPU_EV_WORK, cycles)))
		return;
	c->now += cycles;
	c->ctr[CPU_CTR_work_cycles] += cycles;
}

/*
 * insns instructions of straight-line kernel code (the models' work
 * tables).  In-order: ceil(insns / CPU_INORDER_IPC) cycles of cpu_work().
 * Out of order: insns fused uops through dispatch (width per cycle); they
 * wait for nothing (their inputs are not on the modelled chains).
 */
static CPU_INLINE void cpu_insns(struct cpu *c, uint32_t insns)
{
	if (c->mlog_on && cpu_memo_log(c, CPU_EV(CPU_EV_INSNS, insns)))
		return;
	if (c->ooo) {
		cpu_ooo_dispatch(c, insns);
		return;
	}
	cpu_work(c, (insns + CPU_INORDER_IPC - 1) / CPU_INORDER_IPC);
}

/* Kinds of memory access (the out-of-order rule in the header comment). */
enum cpu_access {
	CPU_LOAD_DEP = 0,              /* value needed at once: full latency */
	CPU_LOAD,                      /* independent load: L1 latency hidden */
	CPU_STORE,                     /* into the store buffer: never stalls */
	CPU_STORE_BULK,                /* store of a bulk clear/copy: waits for RFO */
};

/* cpu_mem() for accesses over several lines. */
uint32_t cpu_mem_slow(struct cpu *c, uint64_t addr, uint32_t bytes, int node,
		      enum cpu_access kind);
/* cpu_mem() for one line that cache_l1_fast() did not decide: straight to
 * cache_access_slow() (which decides every case; the fast path only
 * shortcuts some). */
uint32_t cpu_mem_line_slow(struct cpu *c, uint64_t line, int node, enum cpu_access kind);

/* An access to the line of this CPU's previous access, which the caller
 * knows is an L1 hit changing no cache state: charged without a lookup. */
/* An access under cost.model ooo whose slowest line took lat cycles
 * (miss: not all lines were in L1); returns the cycles dispatch moved. */
uint32_t cpu_ooo_mem(struct cpu *c, enum cpu_access kind, uint32_t lat, bool miss);

static CPU_INLINE uint32_t cpu_mem_l1_again(struct cpu *c, enum cpu_access kind)
{
	if (c->mlog_on && cpu_memo_log(c, CPU_EV(CPU_EV_MEM, kind)))
		return 0;
	if (c->ooo) {
		c->ctr[CPU_CTR_mem_accesses]++;
		c->ctr[CPU_CTR_l1d_hit]++;
		return cpu_ooo_mem(c, kind, c->k_l1d, false);
	}
	uint32_t cost = kind == CPU_LOAD_DEP ? c->k_l1d : c->k_mem_slot;
	c->now += cost;
	c->ctr[CPU_CTR_mem_accesses]++;
	c->ctr[CPU_CTR_l1d_hit]++;
	c->ctr[CPU_CTR_mem_stall_cycles] += cost;
	c->ctr[CPU_CTR_mem_load_dep + (int)kind]++;
	return cost;
}

/* Does a fast call perform an access of this kind on the caches
 * (cost.sample_warm: caches all, stores the stores and locked ops)? */
static inline bool cpu_fast_warms(const struct cpu *c, enum cpu_access kind)
{
	return kind >= CPU_STORE ? c->fwarm : c->fwarm_loads;
}

/*
 * Memory access; returns the cycles charged.  Inline fast path: an access
 * within one line that the cache's own fast path decides as an L1 hit
 * changing no state (cache_l1_fast()) is charged here, exactly as
 * cpu_mem_slow() would charge it (k.l1d for CPU_LOAD_DEP, k.mem_slot
 * otherwise), without a call: most of the models' accesses are such hits,
 * and the call, the line loop and the miss bookkeeping were a fifth of the
 * host instructions of `numasim bench slub`.
 */
static inline uint32_t cpu_mem(struct cpu *c, uint64_t addr, uint32_t bytes, int node,
			       enum cpu_access kind)
{
	const struct cache_sys *cs = &c->sys->cache;
	uint64_t line = addr >> cs->line_shift;
	if (c->mlog_on == CPU_LOG_FAST && !cpu_fast_warms(c, kind))
		return 0;              /* sampled, not warming this access */
	if (((addr + (bytes ? bytes - 1 : 0)) >> cs->line_shift) != line)
		return cpu_mem_slow(c, addr, bytes, node, kind);
	if (cache_l1_fast(cs, c->idx, line, kind >= CPU_STORE))
		return cpu_mem_l1_again(c, kind);
	return cpu_mem_line_slow(c, line, node, kind);
}
/* A fast call's access under cost.sample_warm caches (the models' fast
 * copy, models/mm_fast.h): each line's cache access as cpu_mem() performs
 * it in a fast call, nothing charged or counted.  cpu_fast_line() is the
 * out-of-line cache_access_slow() of a line cache_l1_fast() did not
 * decide. */
void cpu_fast_line(struct cpu *c, uint64_t line, bool write);
/* cpu_fast_mem() of an access over several lines (cpu.c). */
void cpu_fast_lines(struct cpu *c, uint64_t line, uint64_t last, bool write);
static CPU_INLINE void cpu_fast_mem(struct cpu *c, uint64_t addr, uint32_t bytes,
				    enum cpu_access kind)
{
	const struct cache_sys *cs = &c->sys->cache;
	bool write = kind >= CPU_STORE;
	uint64_t line = addr >> cs->line_shift;
	uint64_t last = (addr + (bytes ? bytes - 1 : 0)) >> cs->line_shift;
	assert(c->mlog_on == CPU_LOG_FAST && c->fwarm);
	if (!cpu_fast_warms(c, kind))
		return;                /* a load under sample_warm stores */
	if (last != line) {
		cpu_fast_lines(c, line, last, write);  /* rare: out of line */
		return;
	}
	if (!cache_l1_fast(cs, c->idx, line, write))
		cpu_fast_line(c, line, write);
}

/*
 * Blocks (docs/cost-model.md §1, "Blocks").  A block is the straight-line
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
	int32_t exit;                  /* exit site (global id), -1: not a branch */
};

/* A block of uops and accesses `kinds` ("D" CPU_LOAD_DEP, "L" CPU_LOAD,
 * "S" CPU_STORE, "B" CPU_STORE_BULK; at most CPU_BLOCK_MAX_ACCESSES)
 * ending at site `exit` (-1: a call, a return or the next block), costed
 * with k.  NS_EINTERNAL for a bad description (a model bug). */
int cpu_block_init(struct cpu_block *b, uint32_t uops, const char *kinds, int32_t exit,
		   const struct cpu_costs *k);

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

#ifdef NDEBUG
static inline void cpu_block_open(struct cpu *c, int32_t exit)
{
	(void)c;
	(void)exit;
}
#else
static inline void cpu_block_open(struct cpu *c, int32_t exit)
{
	c->blk_exit = exit + 1;
}
#endif

static CPU_INLINE void cpu_block(struct cpu *c, const struct cpu_block *b)
{
	cpu_block_exit(c, -1);
	if (c->mlog_on || c->ooo || !b->nacc) {
		cpu_insns(c, b->uops);  /* the steps in turn (above) */
		cpu_block_open(c, b->exit);
		return;
	}
	uint64_t *k = c->ctr;
	c->now += b->work + b->stall;
	k[CPU_CTR_work_cycles] += b->work;
	k[CPU_CTR_mem_accesses] += b->nacc;
	k[CPU_CTR_l1d_hit] += b->nacc;
	k[CPU_CTR_mem_stall_cycles] += b->stall;
	for (int i = 0; i < 4; i++)
		k[CPU_CTR_mem_load_dep + i] += b->nkind[i];
	c->blk_left = b->nacc;
	c->blk_kinds = b->kinds;
	cpu_block_open(c, b->exit);
}

/* The next access of the open block, of this kind: true when cpu_block()
 * precharged it (then the caller makes it with cpu_mem_pre()). */
static CPU_INLINE bool cpu_block_take(struct cpu *c, enum cpu_access kind)
{
	if (!c->blk_left)
		return false;
	assert((c->blk_kinds & 3) == (uint32_t)kind);
	(void)kind;
	c->blk_kinds >>= 2;
	c->blk_left--;
	return true;
}

/* A precharged access that was not an L1 hit changing no state: its
 * precharge taken back, then charged as cpu_mem() charges it (cpu.c). */
uint32_t cpu_block_miss(struct cpu *c, uint64_t addr, uint32_t bytes, int node,
			enum cpu_access kind);

/* A precharged access (cpu_block_take() said so): through the caches;
 * an L1 hit that changes nothing is already paid. */
static CPU_INLINE void cpu_mem_pre(struct cpu *c, uint64_t addr, uint32_t bytes, int node,
				   enum cpu_access kind)
{
	const struct cache_sys *cs = &c->sys->cache;
	uint64_t line = addr >> cs->line_shift;
	if (((addr + (bytes ? bytes - 1 : 0)) >> cs->line_shift) == line &&
	    cache_l1_fast(cs, c->idx, line, kind >= CPU_STORE))
		return;
	cpu_block_miss(c, addr, bytes, node, kind);
}

/* Locked read-modify-write of the line at addr (home node id); returns cycles. */
uint32_t cpu_atomic(struct cpu *c, uint64_t addr, int node);
void cpu_irq_save(struct cpu *c);
void cpu_irq_restore(struct cpu *c);
void cpu_this_cpu_cmpxchg(struct cpu *c);
/* Idle until time t (no-op if the clock is already there). */
void cpu_advance_to(struct cpu *c, uint64_t t);
/* The TSC as rdtsc reads it: cycles x tsc_ghz / core_ghz (the clock
 * itself in-order, and under ooo when the machine gives no clocks). */
static inline uint64_t cpu_tsc(struct cpu *c)
{
	cpu_clock_read(c);
	if (!c->ooo)
		return c->now;
	return (uint64_t)((double)c->now * c->sys->k.tsc_per_cycle);
}

/* A spinlock as the cost model sees it. */
struct cpu_lock {
	int holder;                    /* cpu idx holding it, -1 = free */
	int last;                      /* cpu idx that held it last, -1 = never */
	uint64_t free_at;              /* clock of the last release */
	uint64_t acquisitions, contended, wait_cycles;
	/* its class, the name lockdep gives it ("&zone->lock",
	 * "&n->list_lock"; NULL: none): a fast call whose path has no sample
	 * books its waits where samples took a lock of its class (cpu.c,
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
/* Callbacks return NS_OK to continue; any other value stops and is returned. */
typedef int (*cpu_profile_cb)(void *arg, const struct cpu_profile_row *r);
typedef int (*cpu_path_cb)(void *arg, const struct cpu_path_row *r);
typedef int (*cpu_branch_cb)(void *arg, const struct cpu_branch_row *r);
typedef int (*cpu_counter_cb)(void *arg, const struct cpu_counter_row *r);

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
/* Every counter of every CPU (derived counters brought up to date). */
int cpu_sys_counters(struct cpu_sys *s, cpu_counter_cb cb, void *arg);
/* Update derived counters of c and return one value. */
uint64_t cpu_counter(struct cpu *c, enum cpu_counter id);

#endif
