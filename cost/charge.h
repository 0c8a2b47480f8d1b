/*
 * charge — the charging helpers every kernel model calls (the page
 * allocator and reclaim, models/mm_internal.h; SLUB, models/slub.c; the
 * scheduler, models/sched_fair.c): a branch, a call, a return, a code
 * block, a memory access, a locked operation, an irq save or restore,
 * each one step of the cost model's primitives (cost/cpu.h).  It models
 * no kernel code of its own: it is the seam between a model's C, written
 * like the kernel's, and the simulated CPU.
 *
 * A model charges through a charging context, two parts:
 *
 *   - struct charge_ctx, data the model keeps in its world: its first
 *     function and site ids in the world's cost tables (fn_base,
 *     site_base; a model's own ids are its enums' values), the per-CPU
 *     last-line memo of the same-line shortcut (memo, or NULL), and the
 *     trace hook (trace and trace_arg, or NULL);
 *   - a constant `opt` of CHARGE_* bits, one per model and per copy, that
 *     every helper takes last: what the helpers do is decided at compile
 *     time, so that each call inlines to exactly the steps the model had
 *     when it kept helpers of its own (no test of a mode at run time that
 *     the constant decides).
 *
 * A model wraps the helpers in its own few lines (br(), call(), mem(),
 * ... over its own enums and world; models/mm_internal.h is the example)
 * so that its functions read like the kernel with the charges added.
 *
 * The options:
 *   CHARGE_COPY_WARM, CHARGE_COPY_NOMEM  the helpers of a fast copy
 *       (cost/copy.h; sampled accounting, cost/cpu.h "Sampled
 *       accounting"): a fast call's steps.  A branch and a call are
 *       counted and signed (cpu_fast_branch(), cpu_copy_call()), a block,
 *       work, a return, an irq save or restore and a this_cpu cmpxchg are
 *       nothing (a fast call charges its path when it ends); memory goes
 *       through the caches only (WARM: cpu_fast_mem()) or not at all
 *       (NOMEM).  Never both.
 *   CHARGE_IDS_FIXED  in a copy, the model's ids are the global ids
 *       (fn_base and site_base are 0: the model registers its tables
 *       first, and its copy runs only then), so each step's table address
 *       is a constant the compiler folds.
 *   CHARGE_SAME_LINE  the same-line shortcut (charge_mem()): needs memo.
 *   CHARGE_TRACE  the trace hook: called at every branch while
 *       ctx->trace is not NULL (a model sets it only while a trace
 *       records; the hot path tests one pointer, as before).
 *
 * The same-line shortcut.  Within one call into a model only this CPU
 * runs, so an access to the line of this CPU's previous access (with no
 * other cache access in between) is an L1 hit on the most recent way,
 * exactly what the cache model would return and with no state change
 * (for a store: when the previous access was a store too, so the
 * coherence directory already names this CPU as the writer): it is
 * charged as such without the host-side lookup.  Exact only under a
 * contract the model keeps: every entry into the model resets the memo
 * (charge_memo_reset()), and so does every cache access made other than
 * through charge_mem() (charge_atomic() does it; a lock, or a call into
 * another model that charges through another memo, needs a reset after
 * it).  The page allocator and reclaim keep it; SLUB does not (its
 * accesses interleave with its locks and with page allocator calls), so
 * its context leaves the shortcut off.
 *
 * Blocks.  run_block() charges a block's static cost (cost/cpu.h
 * "Blocks") and each access the block declared is made with the
 * declared=true form of charge_mem() (a model's bmem()).  A block's
 * declaration (its access kinds in program order) lives in the model's
 * block table; debug builds check at run time that the bmem() calls
 * match it kind by kind in order (cpu_block_take() asserts each kind)
 * and that none is left over at the block's exit (cpu_block_exit()).
 *
 * Error policy: none; the helpers are steps that cannot fail (cpu.h's
 * primitives record their own errors).  Everything is static inline with
 * CPU_INLINE where the models' hot paths need it inlined.
 */
#ifndef NUMASIM_COST_CHARGE_H
#define NUMASIM_COST_CHARGE_H

#include "cost/cpu.h"

#include <stdbool.h>
#include <stdint.h>

enum charge_opt {
	CHARGE_COPY_WARM = 1u << 0,
	CHARGE_COPY_NOMEM = 1u << 1,
	CHARGE_COPY = CHARGE_COPY_WARM | CHARGE_COPY_NOMEM,
	CHARGE_IDS_FIXED = 1u << 2,
	CHARGE_SAME_LINE = 1u << 3,
	CHARGE_TRACE = 1u << 4,
};

/* The same-line shortcut's memo of one CPU. */
struct charge_memo {
	uint64_t last_line;            /* line of this CPU's previous access */
	bool last_write;               /* ... and whether it was a store */
};

/* The trace hook: the model's own site id and the branch's outcome. */
typedef void (*charge_trace_fn)(void *arg, int site, bool cond);

struct charge_ctx {
	int fn_base, site_base;        /* the model's first ids in the cost tables */
	struct charge_memo *memo;      /* [nr_cpus] with CHARGE_SAME_LINE, else NULL */
	charge_trace_fn trace;         /* with CHARGE_TRACE: non-NULL while recording */
	void *trace_arg;
};

/* The global id of the model's site / function. */
static CPU_INLINE int charge_site_id(const struct charge_ctx *x, int site, unsigned opt)
{
	return ((opt & CHARGE_COPY) && (opt & CHARGE_IDS_FIXED) ? 0 : x->site_base) + site;
}

static CPU_INLINE int charge_fn_id(const struct charge_ctx *x, int fn, unsigned opt)
{
	return ((opt & CHARGE_COPY) && (opt & CHARGE_IDS_FIXED) ? 0 : x->fn_base) + fn;
}

/* A conditional branch at the model's site: returns cond. */
static CPU_INLINE bool charge_br(struct cpu *c, const struct charge_ctx *x, int site, bool cond,
				 unsigned opt)
{
	if (opt & CHARGE_COPY) {
		bool v;
		if (c->fixed_sites && cpu_branch_fixed(c, charge_site_id(x, site, opt), cond, &v))
			return v;
		return cpu_fast_branch(c, charge_site_id(x, site, opt), cond);
	}
	/* a removed site (cost_layout_fix_site()) is no branch: not traced */
	if ((opt & CHARGE_TRACE) && x->trace &&
	    !(c->fixed_sites && c->site_layout[x->site_base + site].fixed))
		x->trace(x->trace_arg, site, cond);
	return cpu_branch(c, x->site_base + site, cond);
}

/* A call of the model's function fn (its return: charge_ret()). */
static CPU_INLINE void charge_call(struct cpu *c, const struct charge_ctx *x, int fn,
				   unsigned opt)
{
	if (opt & CHARGE_COPY)
		cpu_copy_call(c, charge_fn_id(x, fn, opt));
	else
		cpu_call(c, x->fn_base + fn);
}

static CPU_INLINE void charge_ret(struct cpu *c, unsigned opt)
{
	if (!(opt & CHARGE_COPY))
		cpu_ret(c);
}

/* A block's static cost in one step (cpu_block()). */
static CPU_INLINE void charge_block(struct cpu *c, const struct cpu_block *b, unsigned opt)
{
	if (!(opt & CHARGE_COPY))
		cpu_block(c, b);
}

/* Straight-line work of `cycles` cycles outside any block. */
static CPU_INLINE void charge_work(struct cpu *c, uint32_t cycles, unsigned opt)
{
	if (!(opt & CHARGE_COPY))
		cpu_work(c, cycles);
}

/*
 * An access of `bytes` at addr (home node `node`) of a kind (cost/cpu.h:
 * CPU_LOAD_DEP when the code needs the value at once, CPU_LOAD when
 * nothing waits for it, CPU_STORE); declared: the open block declared it
 * (a model's bmem()).  With CHARGE_SAME_LINE, the shortcut above.
 */
static CPU_INLINE void charge_mem(struct cpu *c, const struct charge_ctx *x, uint64_t addr,
				  uint32_t bytes, int node, enum cpu_access kind, bool declared,
				  unsigned opt)
{
	if (opt & CHARGE_COPY_NOMEM)
		return;                /* a fast call without warming: no access */
	/* a block's declared access, already charged as an L1 hit? */
	bool pre = !(opt & CHARGE_COPY) && declared && cpu_block_take(c, kind);
	if (opt & CHARGE_SAME_LINE) {
		struct charge_memo *m = &x->memo[c->idx];
		uint64_t line = addr >> c->sys->cache.line_shift;
		bool write = kind >= CPU_STORE;
		if (line == m->last_line && (!write || m->last_write)) {
			if (!(opt & CHARGE_COPY) && !pre)
				cpu_mem_l1_again(c, kind);
			return;
		}
		if (opt & CHARGE_COPY)
			cpu_fast_mem(c, addr, bytes, kind);   /* the fast copy for warming */
		else if (pre)
			cpu_mem_pre(c, addr, bytes, node, kind);
		else
			cpu_mem(c, addr, bytes, node, kind);
		m->last_line = (addr + bytes - 1) >> c->sys->cache.line_shift == line ? line
										    : UINT64_MAX;
		m->last_write = write;
		return;
	}
	if (opt & CHARGE_COPY)
		cpu_fast_mem(c, addr, bytes, kind);
	else if (pre)
		cpu_mem_pre(c, addr, bytes, node, kind);
	else
		cpu_mem(c, addr, bytes, node, kind);
}

/* Forget this CPU's last line: at every entry into the model and after
 * any cache access not made through charge_mem(). */
static CPU_INLINE void charge_memo_reset(const struct cpu *c, const struct charge_ctx *x, unsigned opt)
{
	if (opt & CHARGE_SAME_LINE)
		x->memo[c->idx].last_line = UINT64_MAX;
}

/* A locked read-modify-write of the line at addr (cpu_atomic()). */
static inline void charge_atomic(struct cpu *c, const struct charge_ctx *x, uint64_t addr,
				 int node, unsigned opt)
{
	if (opt & CHARGE_COPY_NOMEM)
		return;                /* a fast call without warming: no access */
	charge_memo_reset(c, x, opt);
	cpu_atomic(c, addr, node);
}

/* local_irq_save / restore and this_cpu_cmpxchg: nothing in a copy. */
static CPU_INLINE void charge_irq_save(struct cpu *c, unsigned opt)
{
	if (!(opt & CHARGE_COPY))
		cpu_irq_save(c);
}

static CPU_INLINE void charge_irq_restore(struct cpu *c, unsigned opt)
{
	if (!(opt & CHARGE_COPY))
		cpu_irq_restore(c);
}

static CPU_INLINE void charge_this_cpu_cmpxchg(struct cpu *c, unsigned opt)
{
	if (!(opt & CHARGE_COPY))
		cpu_this_cpu_cmpxchg(c);
}

#endif
