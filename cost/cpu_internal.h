/*
 * cpu_internal — what the cost model's files (cost/cpu*.c) share and
 * nothing else includes (scripts/layering.sh: private to cost/): the
 * accounting engines' hook table, the memoized-path and sampled tables,
 * and the helpers one file of the CPU defines and another calls.
 *
 * The files by concern: cpu.c (set-up and teardown, the engines' binding
 * and the per-call dispatch), cpu_mem.c (memory and blocks), cpu_ooo.c
 * (the out-of-order interval model), cpu_lock.c (locks, interrupt flags,
 * idling), cpu_profile.c (call paths, export), cpu_check.c (the
 * invariants), and one file per accounting engine: cpu_exact.c,
 * cpu_memo.c, cpu_sampled.c (with cpu_sampled_lock.c); cpu_key.c the
 * calls behind a static key.  The public
 * contract is cost/cpu.h, the layout of struct cpu cost/cpu_struct.h, the
 * inline hot steps cost/cpu_hot.h.
 *
 * The accounting engines.  cost.accounting picks one engine per system,
 * bound at set-up (cpu_sys_init(): cpu_sys.acct, cpu_acct()), in the manner of
 * zsim's per-mode function pointers: a small table of the operations an
 * engine does once per top-level call or less (begin and end of a
 * top-level call, fold, check, clear, free, stats).  The per-branch and
 * per-access primitives never go through it: they stay inline
 * (cost/cpu_hot.h) and test the CPU's mode bytes (c->memo, c->mlog_on,
 * c->sampling) as before, so that the engines cost the hot path nothing.
 *
 * Error policy: as cost/cpu.h (set-up NS_ENOMEM / NS_ERANGE; the hooks
 * return no status but check).
 */
#ifndef NUMASIM_CPU_INTERNAL_H
#define NUMASIM_CPU_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cost/cpu.h"

/*
 * An accounting engine (cost.accounting): its per-CPU set-up and
 * teardown, and what it does per top-level call or per export.  Bound
 * once per system (cpu_sys.acct, cpu_acct()); cpu_memo_begin(), cpu_memo_end() and
 * cpu_memo_fold() (cost/cpu.h) call through it.
 */
struct sampled_entry;

struct cpu_acct_ops {
	const char *name;              /* cost.accounting's value */
	/* one CPU's tables (after its profile and paths); NS_ENOMEM */
	int (*init)(struct cpu *c, const struct cpu_params *p);
	void (*free)(struct cpu *c);
	/* forget every path (a new layout: the paths cost differently) */
	void (*clear)(struct cpu *c);
	/* a top-level call of fn starts: true when the engine takes it
	 * (logged or fast), false when it runs exactly */
	bool (*begin)(struct cpu *c, int fn);
	/* the top-level call it took returns */
	void (*end)(struct cpu *c);
	/* the counts it holds back, into the counters, sites and profile */
	void (*fold)(struct cpu *c);
	/* its tables' invariants (after a fold) */
	int (*check)(const struct cpu *c);
	/* its counts added to st (a CPU with a table: c->mt) */
	void (*stats)(const struct cpu *c, struct cpu_memo_stats *st);
};
extern const struct cpu_acct_ops cpu_acct_exact;   /* cost/cpu_exact.c */
extern const struct cpu_acct_ops cpu_acct_memo;    /* cost/cpu_memo.c */
extern const struct cpu_acct_ops cpu_acct_sampled; /* cost/cpu_sampled.c */
/* The engines by enum cpu_accounting (cost/cpu.c). */
extern const struct cpu_acct_ops *const cpu_acct_engines[CPU_ACCOUNTING_SAMPLED + 1];

/* The system's engine (cpu_sys.acct, bound at set-up). */
static inline const struct cpu_acct_ops *cpu_acct(const struct cpu_sys *s)
{
	return cpu_acct_engines[s->acct];
}

/* Calls behind a static key (cost/cpu_key.c): the CPUs' function bytes
 * for layout l (s->fn_step, NULL without keys; NS_ERANGE under sampled or
 * memo accounting), and the end of a muted call (from cpu_memo_end()). */
int cpu_key_bind(struct cpu_sys *s, const struct cost_layout *l);
void cpu_key_end(struct cpu *c);

/* The terms of a sampled path's signature after the branches' and calls'. */
enum { SIG_LOCK, SIG_TERMS };

/* ooo_last_cycle, ooo_restart, cpu_ooo_dispatch and ooo_taken are
 * inline in cpu.h (the hot steps); the window is here. */
#define ooo_last_cycle cpu_ooo_last_cycle
#define ooo_restart cpu_ooo_restart
#define ooo_taken cpu_ooo_taken
#define ooo_window cpu_ooo_window

#define CPU_MEMO_VERIFY 64             /* replays between exact runs of a path */
#define MEMO_STATE_MAX (2 + CPU_OOO_MAX_MLP + CPU_OOO_RING) /* memo_ooo_state() words */
#define MEMO_REL_MAX ((uint64_t)1 << 23)   /* a relative time it encodes, at most */
#define CPU_MEMO_ENTRIES 4096          /* paths per CPU at most */
#define CPU_MEMO_BYTES (16u << 20)     /* bytes of logs and deltas per CPU at most */

enum { MI_CTR, MI_SITE, MI_FN, MI_PATH, MI_OUTSIDE };

struct cpu_sampled;

/* One count a path moves: counter, site (executed, taken, mispredicted),
 * function (calls, self, total), call path (calls, self, mispredicts). */
struct memo_item {
	uint32_t what, idx;
	uint64_t v[3];
};

/* The cost of one path, from its last exact run. */
struct memo_cost {
	uint64_t dnow, dpos, dmisp;
	uint32_t slot, lslot, rsb;
	uint32_t nend;
	uint64_t end[MEMO_STATE_MAX];  /* the ooo state after (memo_ooo_state) */
	/* end[] says nothing is pending (no open chain, fill buffer or
	 * long op): most allocator calls end so, and memo_cost_apply() then
	 * clears the state instead of decoding nend words (it was a tenth of
	 * a fast call's host instructions under ooo) */
	uint8_t idle;
	uint32_t nitems;
	struct memo_item *items;
};

#define MEMO_MISS_WORDS (CPU_MEMO_LOG / 64)

struct memo_entry {
	uint64_t key;                  /* hash of the start state, events, predictions */
	uint32_t start;                /* the start state */
	uint32_t nev, nmiss;
	uint64_t *ev;                  /* the events, then nmiss words of mispredict bits */
	uint8_t stable;
	/* the shortcut: the last prediction of these events started from
	 * global history h0, changed no predictor entry and left h1; while
	 * the predictor's change count is still epoch, the same history
	 * gives the same predictions and changes nothing */
	uint8_t pure;
	uint32_t nbr;                  /* branches (TAGE's update count moves by it) */
	struct bpred_hist h0, h1;
	uint64_t epoch;
	uint32_t left;                 /* replays before the next verification */
	uint64_t pending;              /* replays not yet folded */
	struct memo_cost cost;
};

struct cpu_memo {
	struct memo_entry *e;          /* [nr] */
	uint32_t nr;
	int32_t *hash;                 /* [2 * CPU_MEMO_ENTRIES], -1 = empty */
	uint64_t *short_key;           /* [MEMO_SHORT_SLOTS]: the shortcut cache */
	int32_t *short_id;
	size_t bytes;
	uint32_t start;                /* start state of the call being logged */
	uint64_t ctr0[CPU_NR_COUNTERS];
	uint32_t epoch;
	uint32_t *site_mark, *fn_mark, *path_mark;
	uint32_t path_marks;
	struct memo_item *scratch;
	uint32_t nscratch, cscratch;
	uint8_t snap_bad;              /* the snapshot missed a count */
	uint64_t miss[MEMO_MISS_WORDS]; /* the logged call's mispredicts, by branch */
	uint32_t miss_words, nbr;
	uint64_t pepoch;               /* predictor changes seen (bpred dirty flags) */
	uint32_t win, win_replayed, skip, backoff;
	uint64_t calls, replayed, shortcut, exact, verified, broken, skipped, mismatch;
	struct cpu_sampled *sm;        /* cost.accounting sampled, else NULL */
};


/* --- what one file defines and another calls ------------------------ */

/* cost/cpu_exact.c: the exact branch step of (model, predictor) */
bool (*branch_step(bool ooo, enum bpred_mode mode))(struct cpu *, int, bool);
/* cost/cpu_profile.c */
int paths_init(struct cpu *c);
/* cost/cpu_mem.c */
uint32_t line_cost(struct cpu *c, enum cache_src src, int from, int home_pos);
uint32_t mem_charge(struct cpu *c, enum cpu_access kind, bool all_l1, uint32_t worst);
void atomic_logged(struct cpu *c, enum cache_src src, int from, int hp);
/* cost/cpu_ooo.c */
void ooo_fence(struct cpu *c);
/* cost/cpu_memo.c */
void cpu_memo_free(struct cpu *c);
int memo_ooo_state(const struct cpu *c, uint64_t *w);
uint8_t memo_ooo_idle(const uint64_t *w, uint32_t n);
void memo_ooo_clear(struct cpu *c);
void memo_ooo_restore(struct cpu *c, const uint64_t *w);
void memo_target(struct cpu *c, uint32_t what, uint32_t idx, uint64_t *p[3],
		 uint64_t spare[2]);
struct memo_item *memo_item(struct cpu_memo *m, uint32_t what, uint32_t idx);
bool memo_cost_ok(const struct cpu *c, const struct memo_cost *k);
/* cost/cpu_sampled.c */
void fast_charge_own(struct cpu *c, int fn, uint64_t cycles);
/* cost/cpu_sampled_lock.c */
void fast_lock(struct cpu *c, struct cpu_lock *l);
void sample_lock_edge(struct cpu *c, const struct cpu_lock *l, int e);
void fast_lock_charge(struct cpu *c, int fn, const struct sampled_entry *e);
void sample_lock_at(struct cpu *c, const struct cpu_lock *l);
void sample_lock_cost(struct cpu *c, uint64_t cycles, enum cpu_counter id,
		      uint64_t count);

/* The clock and core state a recorded cost moves (its counts wait for
 * the fold); memo's replays and sampled's fast calls.  nend is 0 only for
 * a sample whose ooo state could not be encoded: the state is left. */
static CPU_INLINE void memo_cost_apply(struct cpu *c, const struct memo_cost *k)
{
	c->now += k->dnow;
	c->last = c->now;
	c->o.pos += k->dpos;
	c->o.slot = k->slot;
	c->o.lslot = k->lslot;
	if (c->ooo && k->idle)
		memo_ooo_clear(c);
	else if (c->ooo && k->nend)
		memo_ooo_restore(c, k->end);
	c->rsb = k->rsb;
	c->mispredicts += k->dmisp;
	c->mispredicts_booked += k->dmisp;
}


#define SAMPLED_ENTRIES 4096           /* sampled paths per CPU at most */
#define SAMPLED_SLOTS (2 * SAMPLED_ENTRIES)


/* Where a sample took its first lock: the function spinning there (the
 * innermost out-of-line one, c->attr; -1: none, outside), its call path,
 * and the functions whose outermost activation was on the stack (a wait
 * counts in their totals).  valid 0: the sample took no lock, or its
 * stack held more than SAMPLED_LOCK_FRAMES such functions. */
#define SAMPLED_LOCK_FRAMES 16
struct sampled_lock_at {
	uint8_t valid, nout;
	int32_t attr, path;
	int32_t out[SAMPLED_LOCK_FRAMES];
	const struct cpu_lock *lock;   /* the lock taken there */
	const char *cls;               /* its class (struct cpu_lock) */
};

/* Lock classes whose lock edges are learnt apart ("Lock edges"); the
 * first slot takes the locks of no class and those past the last. */
#define SAMPLED_EDGE_CLASSES 8

/* A fast call's lock costs at one lock (fast_lock_note()). */
#define SAMPLED_CALL_LOCKS 4           /* locks a fast call books apart */
struct sampled_call_lock {
	const struct cpu_lock *lock;
	uint64_t x;
};

/* Where the samples of a top-level function took a lock, by (lock,
 * function): for the lock costs of a fast call whose path has no record
 * of its own, a lost path's (fast_lock_book()).  Found by equality, not
 * by the lock's host address hashed (the host's addresses must not decide
 * where a cycle is booked); when all are in use they are replaced in
 * turn.  A CPU with no record for the function takes another CPU's
 * (lock_site_remote()): when is that sample's clock, which orders the
 * records of different CPUs. */
#define SAMPLED_LOCK_SITES 16
struct sampled_lock_site {
	int32_t fn;
	uint64_t seq;                  /* when written (cpu_sampled.lsite_seq) */
	uint64_t when;                 /* the writing sample's clock */
	struct sampled_lock_at at;
};

/* The calls a frame made, as call contexts, from one of its branches
 * (or its entry) to its next branch: the straight-line code there makes
 * the same calls each time (over: more than fit, or one had no
 * context).  Per (site, condition), the record of the latest sample
 * under top-level function top1 - 1, with the context its frame had (-2:
 * unknown); SAMPLED_TOPS records per (site, condition), for the
 * top-level functions that share a function (__mod_zone_page_state under
 * an allocation and under a free). */
#define SAMPLED_AFTER 8
#define SAMPLED_TOPS 4
#define SAMPLED_SPLIT 4
struct sampled_after {
	int32_t top1, ctx;             /* top + 1 (0: unused) */
	int32_t node[SAMPLED_AFTER];
	uint8_t n, over;
	/* the cycles of the blocks that ended at the branch, by the
	 * context they ran in, summed over the samples (struct
	 * sampled_part); past SAMPLED_SPLIT contexts, in the last */
	uint32_t nsplit;
	int32_t sctx[SAMPLED_SPLIT];
	uint64_t ssum[SAMPLED_SPLIT];
	uint32_t nvis, vmark;          /* the samples that wrote it (the
					  latest's mark): from SAMPLED_MATURE
					  on, it stays */
};
/* The samples a record learns from: the calls it keeps are the same each
 * time, and learning from 16 samples or from every one gave the same
 * misbooked shares of tiny-fill's and the first seed's profiles within
 * 0.05 point (cost-model.md §10; from 4, test_sampled_lost_along_functions'
 * outer_fn was 2.8 % off, from 16 1.5 %, as from all); past them a
 * sample's branch costs a lookup, not a record's upkeep (a CPU of `bench
 * messaging`'s 72 takes about 100 samples). */
#define SAMPLED_MATURE 16

/* A part of the block a sample is in: cycles run in one context. */
struct sampled_part {
	int32_t ctx;
	uint64_t cycles;
};

/* A call context of the samples: a frame's function under its parent's
 * context (-1: a top-level call), with where its cycles go (attr: the
 * innermost out-of-line function, -1 outside; path), whether it is the
 * outermost frame of its function (its cycles count in its total) and
 * the top-level function it is under. */
#define SAMPLED_CTXS 256            /* the models' runs use at most 64 */
struct sampled_ctx {
	int32_t parent, fn, attr, path, top;
	uint8_t outer, inl;
	struct sampled_after entry;    /* its calls before its first branch */
};

/* The (site, condition)s the samples of a top-level function ran. */
struct sampled_sites {
	uint32_t *i, n, cap;
};

/* What a lost call books per context, summed before booking. */
struct sampled_acc {
	uint64_t cycles, calls;
};

/* One (site, condition) a lost call executed d times, and its record
 * under the call's function (NULL: none). */
struct sampled_lost_count {
	uint32_t i;
	uint64_t d;
	const struct sampled_after *a;
};

/* A (site, condition) a path runs n times. */
struct sampled_count {
	uint32_t i, n;
};

struct sampled_entry {
	uint64_t sig;
	int32_t fn;
	uint64_t pending;              /* fast calls charged, not yet folded */
	uint64_t psync;                /* pending less the fast calls charged
					  since the branch counts' last sync
					  (lost_counts(); modulo 2^64) */
	struct memo_cost cost;
	struct sampled_lock_at lock;   /* where its fast calls book their lock
					  costs (fast_lock_book()) */
	struct sampled_count *sc;      /* its (site, condition) counts, for
					  lost_counts() (NULL: none, or out of
					  memory: a lost call's check fails) */
	uint32_t nsc;
};

struct cpu_sampled {
	uint32_t period, countdown;
	uint32_t warmup;               /* the first calls are all samples */
	/* cost.sample_window: a fast call with at most this many calls left
	 * before the next due sample warms as under caches; warm / warm_loads
	 * are the mode's own c->fwarm / c->fwarm_loads */
	uint32_t window;
	uint8_t warm, warm_loads;
	uint64_t warmed;               /* fast calls the window warmed */
	uint64_t rng;                  /* the intervals between samples */
	uint8_t force;                 /* the next top-level call is a sample */
	uint8_t spoiled;               /* a fold inside the sample moved its counts */
	int32_t fn;                    /* the top-level call's function */
	uint64_t *stab;                /* the signature terms (high 32 bits;
					* c->fsite[].term's): per
					* (site, condition), then per function
					* (c->stab_fn), then per sig_ctr[] */
	struct sampled_entry *e;
	uint32_t nr;
	int32_t *hash;                 /* [SAMPLED_SLOTS], -1 = empty */
	uint8_t *exact_fn;             /* [nr_fns]: its calls read the clock: all samples */
	int32_t *hit;                  /* [nr_fns]: the entry its last fast call found, or -1 */
	/* block costs: the cycles from a sample's previous branch (or its
	 * start) to each branch, by (site, condition), and from its last
	 * branch to its return, by function; mean x16 in fsite[].term's low
	 * 32 bits */
	uint64_t *bsum, *bn, *tsum, *tn;
	struct cpu_fast_site *fsite;   /* c->fsite */
	uint64_t tlast;
	/* the snapshot a sample's delta is taken against */
	uint64_t now0, pos0, misp0, outside0;
	uint64_t ctr0[CPU_NR_COUNTERS];
	struct cpu_site_stat *site0;
	struct cpu_prof *prof0;
	struct cpu_path *path0;
	uint32_t npath0, cpath0;
	/* the sites and functions the sample being taken touched, in the
	 * order it touched them (cpu_sample_branch(), cpu_sample_call()):
	 * its delta visits these only, not every site and function (which
	 * was 9 % of `bench messaging`'s host instructions under stores);
	 * touched[i] == mark for one touched in this sample */
	uint32_t *tsite, *tfn, ntsite, ntfn;
	uint32_t *site_touched, *fn_touched, mark;
	/* the same for call paths ([cpath0]); a touched item's baseline is
	 * copied when it is first touched, from its value less what the
	 * touching step added (cpu_sample_branch(), cpu_sample_call()), so
	 * that a sample does not copy every site, function and path at its
	 * start: that copy and the scan of every path were a tenth of `bench
	 * messaging`'s host time (most of its cache misses) */
	uint32_t *tpath, *path_touched, ntpath;
	struct sampled_lock_at lock;   /* the sample being taken's first lock */
	struct sampled_lock_site lsite[SAMPLED_LOCK_SITES];
	uint32_t nlsite, lsite_next;   /* in use; the next to replace */
	uint64_t lsite_seq;            /* records written */
	uint64_t calls, fast, matched, lost, samples, exact, copied;
	/* fast calls' lock cycles by where they were booked (struct
	 * cpu_memo_stats, fast_lock_book()) */
	uint64_t lock_path, lock_site, lock_remote, lock_own;
	struct sampled_call_lock fl[SAMPLED_CALL_LOCKS]; /* the fast call's */
	uint32_t nfl;
	/* the cycles from a sample's previous branch (or lock edge) to its
	 * lock and unlock calls, by edge and lock class ("Lock edges") */
	uint64_t edge_sum[2][SAMPLED_EDGE_CLASSES], edge_n[2][SAMPLED_EDGE_CLASSES];
	uint64_t edge_mean[2][SAMPLED_EDGE_CLASSES]; /* x16, for fast calls */
	const char *edge_cls[SAMPLED_EDGE_CLASSES];
	uint64_t flk;                  /* the fast call's lock terms of fsig:
					  signature and edge means (cpu_lock()),
					  when flk_call is its number (calls) */
	uint64_t flk_call;

	/* where a lost path's blocks ran ("Lost paths along their
	 * functions"): the samples' call contexts, the context of each
	 * (site, condition)'s latest sampled branch and the calls after it */
	struct sampled_ctx *ctx;       /* [SAMPLED_CTXS] */
	int32_t *ctx_hash;             /* [2 * SAMPLED_CTXS], id + 1, 0 empty */
	uint32_t nctx;
	int32_t cur;                   /* the sample's context (-1 outside) */
	int32_t *cstk;                 /* the contexts of its frames, by depth */
	struct sampled_after **rstk;   /* the records their calls join */
	struct sampled_after **rp;     /* [2 * nr_sites * SAMPLED_TOPS]: the
					  (site, condition)s' records */
	struct sampled_after **rchunk; /* the records, SAMPLED_RCHUNK a chunk
					  (their addresses do not move) */
	uint32_t nrec, nrchunk;
	struct sampled_after *tail;    /* [nr_fns]: the tails' split */
	uint32_t after_next;           /* the next record replaced */
	uint64_t *nb;                  /* [2 * nr_sites]: fsite[].n at the sync */
	uint32_t *slist, nslist;       /* the entries charged since the sync
					  (psync != pending) */
	struct sampled_lost_count *lc; /* [2 * nr_sites]: a lost call's counts */
	struct sampled_sites *fsites;  /* [nr_fns]: by top-level function */
	struct sampled_acc *acc;       /* [SAMPLED_CTXS] */
	int32_t *accl;                 /* the contexts with acc, in order */
	uint32_t nacc;
	struct sampled_part part[SAMPLED_SPLIT]; /* the block's so far */
	uint32_t npart;
	uint64_t pmark;                /* where the current part started */
	uint64_t lost_cycles, lost_placed, lost_calls_booked;
};

/*
 * The steps cpu_lock() and cpu_unlock() (cost/cpu_lock.c) take in a fast
 * call (cost/cpu_sampled_lock.c, "Lock waits" and "Lock edges"): inline
 * here, as they were in the one file the CPU was, so that a fast call's
 * lock costs no more host calls than before the split.
 */
static inline uint64_t fast_clock(const struct cpu *c)
{
	return c->now + c->flock + (c->fsig & ~CPU_SIG_MASK) / 16;
}

/* The line transfer of a lock another CPU held last (0: none). */
static inline uint64_t lock_transfer(const struct cpu *c, const struct cpu_lock *l)
{
	const struct cpu_sys *s = c->sys;
	if (l->last < 0 || l->last == c->idx)
		return 0;
	return s->xfer_lat[c->node_pos * s->nr_nodes + s->cpu[l->last].node_pos];
}

/* The lock class slot of l's edge means ("Lock edges"; 0: no class or
 * no slot left). */
static inline uint32_t lock_edge_slot(struct cpu_sampled *sm, const struct cpu_lock *l)
{
	for (uint32_t i = 1; l->cls && i < SAMPLED_EDGE_CLASSES; i++) {
		if (sm->edge_cls[i] == l->cls)
			return i;
		if (!sm->edge_cls[i]) {
			sm->edge_cls[i] = l->cls;
			return i;
		}
	}
	return 0;
}

/* A fast call at edge e of lock l: the mean of those cycles, x16, for the
 * low half of fsig. */
static inline uint64_t fast_lock_edge(struct cpu *c, const struct cpu_lock *l, int e)
{
	struct cpu_sampled *sm = c->mt->sm;
	return sm->edge_mean[e][lock_edge_slot(sm, l)];
}

/* A lock's term of a fast call's fsig (its signature, an edge's mean). */
static inline void fast_lock_term(struct cpu *c, uint64_t term)
{
	c->fsig += term;
	struct cpu_sampled *sm = c->mt->sm;
	if (sm->flk_call != sm->calls) {   /* the call's first lock */
		sm->flk_call = sm->calls;
		sm->flk = 0;
	}
	sm->flk += term;
}

#endif
