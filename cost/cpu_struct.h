/*
 * cpu_struct — the layout of a simulated CPU (struct cpu) and of the
 * system of them (struct cpu_sys).  Not a model of a kernel file: the
 * state the cost model's primitives (cost/cpu.h) charge into.
 *
 * Reached only through cost/cpu.h, which includes it (and then
 * cost/cpu_hot.h) at its end: the inline hot steps that models compile
 * read these fields, so the definition has to be visible there; models
 * and workloads call the primitives and never touch a field (tests do).
 * Not named *_internal.h for that reason: scripts/layering.sh checks only
 * direct includes, and this header reaches every model.
 *
 * The hot part.  struct cpu's first fields, from now to the open block's
 * (blk_*, kept last), are what every primitive touches: the clock and the
 * mode bytes beside it, the fast-call state, the bound branch step, the
 * hot cost figures, the layout and predictor, the per-site and
 * per-function arrays, the stack, the paths, the counters, the ooo core.
 * Their order decides host speed (moving the 12 bytes of the open block
 * among them took bench pagealloc 1.7x the host time, 2026-12-04), so it
 * is pinned below with _Static_assert: reordering them, or inserting a
 * field among them, fails the build.  A new field goes after blk_exit
 * (and the last assertion moves with it), measured with
 * scripts/build-pgo.sh before and after (docs/design/cost-model.md §10).
 *
 * Invariants: cost/cpu.h ("Invariants", cpu_check()).  Error policy: none
 * here (types only).
 */
#include "cost/cpu.h"

#ifndef NUMASIM_CPU_STRUCT_H
#define NUMASIM_CPU_STRUCT_H

#include <stddef.h>
#include <stdint.h>

/* 32 bytes, holes included: a frame's index is a shift (24 bytes, the
 * clock first, saved 2 KiB per CPU but cost a multiply in every call and
 * return: 1.5 % more host instructions in cpu_call_exact()/cpu_ret_exact()
 * on bench messaging, 2026-12-07) */
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
	/* cost.accounting memo ("Memoized paths", cost/cpu.h;
	 * cost/cpu_memo.c), tested by every primitive: beside the clock */
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
	uint8_t fixed_sites;           /* the layout removes a site's test
					* (cost_layout_fix_site()): cpu_branch()
					* looks at the site's entry first */
	uint32_t mdepth;               /* its call depth */
	uint8_t kinds;                 /* charge_kinds: kcyc is booked (in the
					* padding after mdepth: no field moves) */
	uint64_t fsig;                 /* the fast call's path signature (high
					* 32 bits) and its cost as blocks (x16,
					* low 32 bits): struct cpu_fast_site */
	uint64_t flock;                /* the fast call's lock waits and
					* transfers so far (cost/cpu_sampled_lock.c) */
	struct cpu_fast_site *fsite;   /* [2 * nr_sites]: per (site, condition) */
	const uint64_t *stab_fn;       /* signature terms per function, then
					* per lock (cost/cpu_sampled.c) */
	uint32_t mlog_n;               /* events logged */
	uint64_t *mlog;                /* [CPU_MEMO_LOG] */
	struct cpu_memo *mt;           /* the table of memoized paths */
	/* the exact branch step of this CPU's model and predictor, bound
	 * at set-up (cpus_bind(), cost/cpu.c): the hot path tests neither */
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
	/* the simulated task running on the CPU, as the workload last said
	 * (cpu_set_task()): read by numasim trace's records only */
	const char *task_comm;         /* NULL: not said */
	int task_pid;
	/* [nr_sites] from the first layout with removed sites on, else NULL:
	 * per removed site, how often the model's condition was not the
	 * value the change fixed */
	uint64_t *fixed_disagree;
	/* charge_kinds: [(nr_fns + 1) * CPU_NR_CHARGES], row 0 = outside
	 * any function, row fn + 1; booked up to kmark (cpu_charge_to()) */
	uint64_t *kcyc;
	uint64_t kmark;
	/* charge_kinds: [(nr_fns + 1) * (nr_units + 1)] work booked per
	 * (function row as kcyc's, unit + 1; column 0 = no unit), and the unit
	 * whose work the next booking of kind work is (+ 1; 0 none: armed by
	 * cpu_block() and cpu_work_unit(), disarmed by that booking) */
	struct cpu_unit_cycles {
		uint64_t executed, cycles;
	} *ucyc;
	int32_t ucols;                 /* nr_units + 1: a row of ucyc */
	int32_t wunit;
};

struct cpu_sys {
	enum cpu_model model;
	/* the accounting engine whose per-call hooks the CPUs use (enum
	 * cpu_accounting: cpu_acct(), struct cpu_acct_ops,
	 * cost/cpu_internal.h), bound at set-up (cpu_sys_init(), cost/cpu.c);
	 * in the hole before m, so that struct cpu_sys keeps its size */
	uint8_t acct;
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
	/* a layout that keys calls (cost/cpu.h, "Calls behind a static
	 * key"): the CPUs' function bytes, the layout's with CPU_FN_KEYED;
	 * NULL otherwise */
	uint8_t *fn_step;
	int nr_memos;                  /* the models' same-line memos */
	struct charge_memo *memos[CPU_SYS_MAX_MEMOS];
};

/* The hot part's order (above): each field after the one before it. */
#define CPU_FIELD_AFTER(a, b)                                                  \
	_Static_assert(offsetof(struct cpu, a) < offsetof(struct cpu, b),      \
		       "struct cpu: " #b " must follow " #a " (the hot layout, cost/cpu_struct.h)")
_Static_assert(offsetof(struct cpu, now) == 0, "struct cpu: the clock comes first");
CPU_FIELD_AFTER(now, ooo);
CPU_FIELD_AFTER(ooo, memo);
CPU_FIELD_AFTER(memo, mlog_on);
CPU_FIELD_AFTER(mlog_on, fwarm);
CPU_FIELD_AFTER(mdepth, kinds);
CPU_FIELD_AFTER(kinds, fsig);
_Static_assert(offsetof(struct cpu, kinds) == 20, "struct cpu: kinds sits in padding");
CPU_FIELD_AFTER(fwarm, fwarm_loads);
CPU_FIELD_AFTER(fwarm_loads, sampling);
CPU_FIELD_AFTER(sampling, fcopy);
CPU_FIELD_AFTER(fcopy, fixed_sites);
CPU_FIELD_AFTER(fixed_sites, mdepth);
CPU_FIELD_AFTER(mdepth, fsig);
CPU_FIELD_AFTER(fsig, flock);
CPU_FIELD_AFTER(flock, fsite);
CPU_FIELD_AFTER(fsite, stab_fn);
CPU_FIELD_AFTER(stab_fn, mlog_n);
CPU_FIELD_AFTER(mlog_n, mlog);
CPU_FIELD_AFTER(mlog, mt);
CPU_FIELD_AFTER(mt, branch);
CPU_FIELD_AFTER(branch, k_taken);
CPU_FIELD_AFTER(k_taken, k_mispredict);
CPU_FIELD_AFTER(k_mispredict, k_call);
CPU_FIELD_AFTER(k_call, k_ret);
CPU_FIELD_AFTER(k_ret, k_br);
CPU_FIELD_AFTER(k_br, k_l1d);
CPU_FIELD_AFTER(k_l1d, k_mem_slot);
CPU_FIELD_AFTER(k_mem_slot, site_layout);
CPU_FIELD_AFTER(site_layout, fn_inline);
CPU_FIELD_AFTER(fn_inline, bp);
CPU_FIELD_AFTER(bp, site);
CPU_FIELD_AFTER(site, prof);
CPU_FIELD_AFTER(prof, stack);
CPU_FIELD_AFTER(stack, depth);
CPU_FIELD_AFTER(depth, max_depth);
CPU_FIELD_AFTER(max_depth, lost);
CPU_FIELD_AFTER(lost, attr);
CPU_FIELD_AFTER(attr, cur_path);
CPU_FIELD_AFTER(cur_path, path);
CPU_FIELD_AFTER(path, nr_paths);
CPU_FIELD_AFTER(nr_paths, cap_paths);
CPU_FIELD_AFTER(cap_paths, path_hash);
CPU_FIELD_AFTER(path_hash, path_hash_mask);
CPU_FIELD_AFTER(path_hash_mask, mispredicts);
CPU_FIELD_AFTER(mispredicts, mispredicts_booked);
CPU_FIELD_AFTER(mispredicts_booked, last);
CPU_FIELD_AFTER(last, outside);
CPU_FIELD_AFTER(outside, start);
CPU_FIELD_AFTER(start, rsb);
CPU_FIELD_AFTER(rsb, rsb_depth);
CPU_FIELD_AFTER(rsb_depth, id);
CPU_FIELD_AFTER(id, idx);
CPU_FIELD_AFTER(idx, node);
CPU_FIELD_AFTER(node, node_pos);
CPU_FIELD_AFTER(node_pos, sys);
CPU_FIELD_AFTER(sys, ctr);
CPU_FIELD_AFTER(ctr, o);
CPU_FIELD_AFTER(o, blk_left);
CPU_FIELD_AFTER(blk_left, blk_kinds);
CPU_FIELD_AFTER(blk_kinds, blk_exit);
CPU_FIELD_AFTER(blk_exit, fixed_disagree);
#undef CPU_FIELD_AFTER
/* On 64-bit hosts, where it was measured (docs/design/cost-model.md §10), the
 * hot part's offsets themselves up to the counters: the first cache line
 * holds the clock, the mode bytes and the fast-call state, the second the
 * bound branch step and the hot figures.  A change of struct bpred moves
 * the fields after bp: measure, then move these figures. */
#if UINTPTR_MAX == UINT64_MAX
#define CPU_FIELD_AT(f, off)                                                   \
	_Static_assert(offsetof(struct cpu, f) == (off),                       \
		       "struct cpu: " #f " moved (the hot layout, cost/cpu_struct.h)")
CPU_FIELD_AT(mdepth, 16);
CPU_FIELD_AT(fsig, 24);
CPU_FIELD_AT(mlog, 64);
CPU_FIELD_AT(branch, 80);
CPU_FIELD_AT(k_taken, 88);
CPU_FIELD_AT(site_layout, 128);
CPU_FIELD_AT(bp, 144);
CPU_FIELD_AT(site, 352);
CPU_FIELD_AT(depth, 376);
CPU_FIELD_AT(path, 400);
CPU_FIELD_AT(sys, 496);
CPU_FIELD_AT(ctr, 504);
#undef CPU_FIELD_AT
#endif

#endif
