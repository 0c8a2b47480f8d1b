/*
 * cpu_check — the invariant walkers of a CPU and of the system (cost/cpu.h,
 * "Invariants"): stack, attribution, RSB, call paths, profile sums, the
 * out-of-order core, sites and predictor; each accounting engine's own
 * (struct cpu_acct_ops.check) first.
 */
#include "cost/cpu_internal.h"

#include <assert.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/diag.h"

/* --- checks ---------------------------------------------------------- */

/* Id of path (parent, fn) without creating it; -1 when absent. */
static int32_t path_find(const struct cpu *c, int32_t parent, int32_t fn)
{
	for (uint32_t h = cpu_path_slot(c, parent, fn);; h = (h + 1) & c->path_hash_mask) {
		int32_t id = c->path_hash[h];
		if (id < 0 || (c->path[id].fn == fn && c->path[id].parent == parent))
			return id;
	}
}

/* The path table and the stack's chain of paths (cpu.h invariants). */
static int paths_check(const struct cpu *c)
{
	int nfn = c->sys->tables->nr_fns;
	uint64_t self = c->path[0].self, fn_self = c->outside;
	if (c->nr_paths < 1 || c->nr_paths > c->cap_paths || c->path[0].parent != -1 ||
	    c->path[0].fn != -1 || c->cur_path < 0 || (uint32_t)c->cur_path >= c->nr_paths)
		return NS_EINTERNAL;
	for (uint32_t id = 1; id < c->nr_paths; id++) {
		const struct cpu_path *p = &c->path[id];
		if (p->parent < 0 || (uint32_t)p->parent >= id || p->fn < 0 || p->fn >= nfn ||
		    path_find(c, p->parent, p->fn) != (int32_t)id)
			return NS_EINTERNAL;
		self += p->self;
	}
	for (int fn = 0; fn < nfn; fn++)
		fn_self += c->prof[fn].self;
	if (self != fn_self || c->mispredicts < c->mispredicts_booked)
		return NS_EINTERNAL;
	/* a lost path leaves a frame on its parent's path: only the
	 * chain's order is checked then */
	int32_t cur = 0;
	for (int i = 0; i < c->depth; i++) {
		const struct cpu_frame *f = &c->stack[i];
		if (f->inl)
			continue;
		if (f->prev_path != cur)
			return NS_EINTERNAL;
		int32_t next = path_find(c, cur, f->fn);
		cur = next >= 0 ? next : cur;
		if (next < 0 && !c->ctr[CPU_CTR_path_lost])
			return NS_EINTERNAL;
	}
	return cur == c->cur_path ? NS_OK : NS_EINTERNAL;
}

int cpu_check(struct cpu *c)
{
	const struct cpu_sys *s = c->sys;
	if (c->mlog_on)
		return NS_EINTERNAL;           /* only between top-level calls */
	cpu_memo_fold(c);
	if (cpu_acct(s)->check(c))
		return NS_EINTERNAL;
	int nfn = s->tables->nr_fns;
	if (c->depth < 0 || c->depth > c->max_depth || c->lost ||
	    c->ctr[CPU_CTR_stack_overflow] || c->ctr[CPU_CTR_stack_underflow])
		return NS_EINTERNAL;
	/* frames per function, outermost flags, attribution target, RSB */
	int32_t attr = -1;
	uint32_t ool = 0;
	for (int i = 0; i < c->depth; i++) {
		const struct cpu_frame *f = &c->stack[i];
		if (f->fn < 0 || f->fn >= nfn || f->inl != (c->fn_inline[f->fn] & 1))
			return NS_EINTERNAL;
		int below = 0;
		for (int j = 0; j < i; j++)
			below += c->stack[j].fn == f->fn;
		if (f->outer != (below == 0))
			return NS_EINTERNAL;
		if (!f->inl) {
			if (f->prev_attr != attr)
				return NS_EINTERNAL;
			attr = f->fn;
			ool++;
		}
	}
	if (attr != c->attr || c->rsb > ool || c->rsb > c->rsb_depth)
		return NS_EINTERNAL;
	if (paths_check(c))
		return NS_EINTERNAL;
	uint64_t self = 0;
	for (int fn = 0; fn < nfn; fn++) {
		uint32_t on_stack = 0;
		for (int i = 0; i < c->depth; i++)
			on_stack += c->stack[i].fn == fn;
		if (on_stack != c->prof[fn].active)
			return NS_EINTERNAL;
		self += c->prof[fn].self;
	}
	if (c->now < c->last || c->now < c->start ||
	    c->now - c->start != self + c->outside + c->ctr[CPU_CTR_idle_cycles] +
					 (c->now - c->last))
		return NS_EINTERNAL;
	/* charge_kinds: each function's kinds sum to its self cycles, the
	 * running one's plus what is booked but not yet attributed */
	if (c->kinds) {
		if (c->kmark < c->last || c->kmark > c->now)
			return NS_EINTERNAL;
		for (int fn = -1; fn < nfn; fn++) {
			uint64_t sum = 0;
			for (int k = 0; k < CPU_NR_CHARGES; k++)
				sum += c->kcyc[(size_t)(fn + 1) * CPU_NR_CHARGES + k];
			uint64_t want = (fn < 0 ? c->outside : c->prof[fn].self) +
					(fn == c->attr ? c->kmark - c->last : 0);
			if (sum != want)
				return NS_EINTERNAL;
			/* its work, per unit (column 0: no unit) */
			uint64_t work = 0;
			for (int u = 0; u < c->ucols; u++)
				work += c->ucyc[(size_t)(fn + 1) * (size_t)c->ucols + (size_t)u].cycles;
			if (work != c->kcyc[(size_t)(fn + 1) * CPU_NR_CHARGES + CPU_CHARGE_work])
				return NS_EINTERNAL;
		}
		if (c->wunit < 0 || c->wunit >= c->ucols)
			return NS_EINTERNAL;
	}
	if (c->ooo) {
		const struct cpu_ooo *o = &c->o;
		if (!o->width || o->slot >= o->width || o->lslot > o->load_ports ||
		    o->n > CPU_OOO_RING || o->loads > o->n || o->mlp > CPU_OOO_MAX_MLP)
			return NS_EINTERNAL;
		for (uint32_t i = 1; i < o->n; i++)
			if (o->rpos[(o->head + i) % CPU_OOO_RING] <
			    o->rpos[(o->head + i - 1) % CPU_OOO_RING])
				return NS_EINTERNAL;
	}
	for (int i = 0; i < s->tables->nr_sites; i++)
		if (c->site[i].taken > c->site[i].executed ||
		    c->site[i].mispredicted > c->site[i].executed)
			return NS_EINTERNAL;
	return bpred_check(&c->bp);
}

int cpu_sys_check(struct cpu_sys *s)
{
	for (int i = 0; i < s->nr_cpus; i++) {
		if (s->cpu[i].idx != i || s->cpu[i].sys != s)
			return NS_EINTERNAL;
		int rc = cpu_check(&s->cpu[i]);
		if (rc)
			return rc;
	}
	return cache_check(&s->cache);
}
