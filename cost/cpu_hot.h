/*
 * cpu_hot — the cost model's inline hot steps: the charging primitives
 * models call tens of millions of times a second (cpu_call(), cpu_ret(),
 * cpu_branch(), cpu_work(), cpu_insns(), cpu_mem(), cpu_block() and
 * their fast and logged forms, cpu_fast_*()), static inline so that they
 * inline into the models (and, under the profile-guided build's LTO, the
 * out-of-line steps in cost/cpu_*.c inline them too).  What they charge
 * and why: cost/cpu.h's header comment; docs/design/cost-model.md §1 and §10.
 *
 * Reached only through cost/cpu.h, which includes it at its end, after
 * the layout (cost/cpu_struct.h).  Nothing here dispatches through a
 * function pointer but the branch step bound per CPU at set-up
 * (c->branch): the accounting engines' hooks (struct cpu_acct_ops) are
 * for per-call operations only, out of line.
 *
 * Invariants and error policy: cost/cpu.h (the primitives return no
 * status; a model bug shows in counters cpu_check() reports).
 */
#include "cost/cpu.h"

#ifndef NUMASIM_CPU_HOT_H
#define NUMASIM_CPU_HOT_H

#include <assert.h>
#include <stdbool.h>
#include <stdint.h>

/* --- hot-path primitives ------------------------------------------------ */

/* Book the clock's advance since the last booking to the running
 * function's charge kind k (charge_kinds; one byte test when off).
 * Modular: a block's precharge taken back (cpu_block_miss()) is booked
 * with the access that replaces it. */
static inline void cpu_charge_to(struct cpu *c, enum cpu_charge k)
{
	if (!c->kinds)
		return;
	c->kcyc[(size_t)(c->attr + 1) * CPU_NR_CHARGES + k] += c->now - c->kmark;
	if (k == CPU_CHARGE_work) {
		/* and to the armed unit of work (cpu_struct.h), which it disarms */
		struct cpu_unit_cycles *u =
			&c->ucyc[(size_t)(c->attr + 1) * (size_t)c->ucols +
				 (size_t)c->wunit];
		u->executed++;
		u->cycles += c->now - c->kmark;
		c->wunit = 0;
	}
	c->kmark = c->now;
}

/* The next work booked (cpu_work(), cpu_insns()) is unit `unit`'s (its
 * id in the tables, -1 none): charge kinds only. */
static inline void cpu_work_unit(struct cpu *c, int32_t unit)
{
	if (c->kinds)
		c->wunit = unit + 1;
}

static inline void cpu_attribute(struct cpu *c)
{
	cpu_charge_to(c, CPU_CHARGE_other);
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


/* Whether the model entry about to make the top-level call of fn can run
 * its fast copy (models/mm_copy.c, cost/copy.h): sampled accounting, no call open, and
 * the call will be fast.  One predictable test when sampled is off. */
static inline bool cpu_fast_entry(struct cpu *c, int fn)
{
	return c->fcopy && c->depth == 0 && !c->mlog_on && cpu_fast_take(c, fn);
}

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
	if (c->mlog_on >= CPU_LOG_FAST)
		return true;           /* a fast or a muted call charges nothing itself */
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
 * exact's (docs/design/cost-model.md §10).
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
 * costs no host call and the out-of-line steps in cost/cpu_*.c inline them; the
 * rare or long ones (the window rule once long ops are in flight, a
 * mispredict's resolution, branch, call, return, memory) are out of
 * line.  The model test in
 * each primitive is one predictable host branch.
 */
void cpu_ooo_window(struct cpu *c, enum cpu_charge k);
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
static inline void cpu_ooo_dispatch(struct cpu *c, uint32_t uops, enum cpu_charge k)
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
		cpu_ooo_window(c, k);
}

/* A taken branch ends its dispatch group: the next uop comes k_taken
 * cycles after the branch's cycle (the front end's redirect). */
static inline void cpu_ooo_taken(struct cpu *c)
{
	cpu_ooo_restart(c, cpu_ooo_last_cycle(c) + c->k_taken);
}

/* One conditional branch (cost/cpu_ooo.c): out of line so that cpu_branch() stays
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
		/* a callee a change file keyed (CPU_FN_KEYED, bound at set-up) */
		if (f->inl > 1 && cpu_call_keyed(c, fn))
			return;
		if (f->inl) {
			if (c->sampling)
				cpu_sample_call(c, fn, -1);
			return;
		}
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
	if (c->ooo)
		cpu_ooo_call(c);
	else
		c->now += c->k_call;
	cpu_charge_to(c, CPU_CHARGE_call);
}

/* A call inside a fast call (sampled): counted, and its signature term. */
static CPU_INLINE void cpu_fast_call(struct cpu *c, int fn)
{
	assert(c->mlog_on == CPU_LOG_FAST);
	c->prof[fn].calls++;
	c->fsig += c->stab_fn[fn];
	c->mdepth++;
}

/* A call in a models' fast copy (models/mm_copy.c, cost/copy.h): the copy's entry
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
		if (c->mlog_on == CPU_LOG_MUTE) {
			c->mdepth++;   /* inside a muted call: nothing */
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
		cpu_charge_to(c, CPU_CHARGE_call);
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
		cpu_charge_to(c, CPU_CHARGE_call);
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
	 * step's 7 host instructions (docs/design/cost-model.md §10) */
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
	cpu_charge_to(c, CPU_CHARGE_branch);
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
 * predictor (mode) as constants: cost/cpu_exact.c instantiates it once per pair and
 * binds the CPU's to c->branch at set-up, so that the step tests neither
 * (docs/design/cost-model.md §7, "The branch step bound at set-up": 7.9 % fewer
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

/*
 * A site whose test a change file removed (cost_layout_fix_site()): no
 * step of any kind (no branch uops, predictor update, count or log
 * event), the fixed value returned, and a disagreement counted when the
 * model's condition was the other one.  Taken only when the layout fixes
 * a site (c->fixed_sites, a byte of the first line beside the mode bytes).
 */
static CPU_INLINE bool cpu_branch_fixed(struct cpu *c, int site, bool cond, bool *out)
{
	unsigned fixed = c->site_layout[site].fixed;
	if (!fixed)
		return false;
	*out = fixed - 1;
	c->fixed_disagree[site] += (unsigned)cond != fixed - 1;
	return true;
}

static CPU_INLINE bool cpu_branch(struct cpu *c, int site, bool cond)
{
	assert(site >= 0 && site < c->sys->layout->nr_sites);
	cpu_block_exit(c, site);
	bool v;
	if (c->fixed_sites && cpu_branch_fixed(c, site, cond, &v))
		return v;
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
	cpu_charge_to(c, CPU_CHARGE_work);
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
		cpu_ooo_dispatch(c, insns, CPU_CHARGE_work);
		cpu_charge_to(c, CPU_CHARGE_work);
		return;
	}
	cpu_work(c, (insns + CPU_INORDER_IPC - 1) / CPU_INORDER_IPC);
}

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
		uint32_t moved = cpu_ooo_mem(c, kind, c->k_l1d, false);
		cpu_charge_to(c, CPU_CHARGE_mem);
		return moved;
	}
	uint32_t cost = kind == CPU_LOAD_DEP ? c->k_l1d : c->k_mem_slot;
	c->now += cost;
	c->ctr[CPU_CTR_mem_accesses]++;
	c->ctr[CPU_CTR_l1d_hit]++;
	c->ctr[CPU_CTR_mem_stall_cycles] += cost;
	c->ctr[CPU_CTR_mem_load_dep + (int)kind]++;
	cpu_charge_to(c, CPU_CHARGE_mem);
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
 * copy, models/mm_copy.c, cost/copy.h): each line's cache access as cpu_mem() performs
 * it in a fast call, nothing charged or counted.  cpu_fast_line() is the
 * out-of-line cache_access_slow() of a line cache_l1_fast() did not
 * decide. */
void cpu_fast_line(struct cpu *c, uint64_t line, bool write);
/* cpu_fast_mem() of an access over several lines (cost/cpu_mem.c). */
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
	cpu_work_unit(c, b->unit);
	if (c->mlog_on || c->ooo || !b->nacc) {
		cpu_insns(c, b->uops);  /* the steps in turn (above) */
		if (b->nextra)
			cpu_block_extra(c, b);
		cpu_block_open(c, b->exit);
		return;
	}
	uint64_t *k = c->ctr;
	if (c->kinds) {
		uint64_t *kc = &c->kcyc[(size_t)(c->attr + 1) * CPU_NR_CHARGES];
		kc[CPU_CHARGE_work] += b->work;
		kc[CPU_CHARGE_mem] += b->stall;
		c->kmark += b->work + b->stall;
		struct cpu_unit_cycles *u =
			&c->ucyc[(size_t)(c->attr + 1) * (size_t)c->ucols +
				 (size_t)c->wunit];
		u->executed++;
		u->cycles += b->work;
		c->wunit = 0;
	}
	c->now += b->work + b->stall;
	k[CPU_CTR_work_cycles] += b->work;
	k[CPU_CTR_mem_accesses] += b->nacc;
	k[CPU_CTR_l1d_hit] += b->nacc;
	k[CPU_CTR_mem_stall_cycles] += b->stall;
	for (int i = 0; i < 4; i++)
		k[CPU_CTR_mem_load_dep + i] += b->nkind[i];
	c->blk_left = b->nacc;
	c->blk_kinds = b->kinds;
	if (b->nextra)
		cpu_block_extra(c, b);
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
 * precharge taken back, then charged as cpu_mem() charges it (cost/cpu_mem.c). */
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

/* The TSC as rdtsc reads it: cycles x tsc_ghz / core_ghz (the clock
 * itself in-order, and under ooo when the machine gives no clocks). */
static inline uint64_t cpu_tsc(struct cpu *c)
{
	cpu_clock_read(c);
	if (!c->ooo)
		return c->now;
	return (uint64_t)((double)c->now * c->sys->k.tsc_per_cycle);
}


#endif
