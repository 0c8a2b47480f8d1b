/*
 * slub_hook — the instrumentation of __slab_free (models/slub.c), kept out
 * of the kernel function: it calls one hook at each of three points, and
 * everything the model measures or records there is here.
 *
 *   slub_hook_free_enter()  at the entry, before the call is charged: the
 *                           state before the call for numasim trace
 *                           (slub_trace_begin()) and the start of the seed
 *                           metric (the clock, the fence-wait counter and
 *                           the `!n` block's site counts);
 *   slub_hook_free_race()   in every attempt, after the snapshot of
 *                           page->freelist/counters and before the
 *                           cmpxchg_double: the race hook (models/slub.h,
 *                           slub_set_race_hook());
 *   slub_hook_free_exit()   at the end, before the return is charged: the
 *                           seed metric's FREE_FROZEN figures (the cache's
 *                           free_frozen_* counters) and the trace record,
 *                           its path derived from what the call counted
 *                           (slub_trace_end()).
 *
 * The seed metric: the FREE_FROZEN calls of __slab_free, each one's
 * branches, taken branches and mispredicts at the `!n` block's sites (the
 * only code the variants differ in) and its cycles from the entry up to
 * the return (the return's cost, the same on every path, left out).  Only
 * calls outside a fast call (sampled accounting) are measured: a fast call
 * has no clock or site counts to read (cpu_in_fast_call()), and the
 * figures are the means of the calls accounted exactly (ff_measured).  A
 * racing free the race hook makes is a call of its own: its site counts
 * are taken out of the measured call's, and the trace does not record it.
 *
 * Included by models/slub.c only; without a trace or race hook set each
 * hook is a predictable host branch or two.
 */
#ifndef NUMASIM_SLUB_HOOK_H
#define NUMASIM_SLUB_HOOK_H

#include "models/slub_internal.h"

/* What one __slab_free call's instrumentation keeps between its hooks. */
struct slab_free_hook {
	struct slub_free_trace *trace;  /* the record numasim trace takes, or NULL */
	bool measure;                   /* outside a fast call: the seed metric measures */
	int attempt;                    /* the race hook's attempt number */
	uint64_t t0, f0;                /* clock and fence-wait cycles at the entry */
	uint64_t block[3];              /* the `!n` block's sites: executed, taken,
					 * mispredicted, at the entry */
};

/*
 * The !n block's sites: the only code that differs between the variants,
 * per variant (free_unlocked() tests PRE6a, PRE6b and PRE7 in PRE, POST6
 * and POST7 in POST).  The figures are differences of two sums taken in
 * one call of this world, in which only its own variant's block runs (a
 * racing free the race hook makes is taken out with sums of the same
 * sites): the other variant's sites add nothing to a difference, so the
 * sums leave them out (host work only; the figures are the same).
 */
static const enum slub_site slub_block_sites_pre[] = {S_PRE6a, S_PRE6b, S_PRE7};
static const enum slub_site slub_block_sites_post[] = {S_POST6, S_POST7};

static inline void slub_block_sum(struct cpu *c, const struct slub_world *w, uint64_t v[3])
{
	bool pre = w->cfg.variant == SLUB_PRE;
	const enum slub_site *sites = pre ? slub_block_sites_pre : slub_block_sites_post;
	size_t n = pre ? sizeof slub_block_sites_pre / sizeof slub_block_sites_pre[0]
		       : sizeof slub_block_sites_post / sizeof slub_block_sites_post[0];
	cpu_counts_measured(c);        /* the site counts up to here */
	v[0] = v[1] = v[2] = 0;
	for (size_t i = 0; i < n; i++) {
		const struct cpu_site_stat *st = &c->site[w->ch.site_base + (int)sites[i]];
		v[0] += st->executed;
		v[1] += st->taken;
		v[2] += st->mispredicted;
	}
}

/* Whether slab id is on the partial chain of cpu idx i: the slab's
 * chain_cpu, which the chain's push and pops keep (slub_check() walks the
 * chains against it). */
static inline bool slub_on_chain(const struct slub_cache *s, int i, uint32_t id)
{
	return s->slab[id].chain_cpu == i;
}

/* The where_* counters (SLUB_WHERE_ITEMS): the slab's place at the entry of
 * a __slab_free on cpu c.  A frozen slab is some CPU's c->page or on some
 * CPU's chain; the alloc CPU's cpu slab and the two likely chains are
 * looked at first, the other chains only when those miss. */
static void slub_where(const struct cpu *c, struct slub_cache *s, uint32_t id)
{
	const struct slub_slab *sl = &s->slab[id];
	int me = c->idx, a = sl->alloc_cpu;
	if (a == me)
		s->where[SLUB_WHERE_BY_ALLOC_CPU]++;
	enum slub_where x;
	if (!sl->frozen)
		x = sl->on_list ? SLUB_WHERE_NODE_PARTIAL : SLUB_WHERE_FULL;
	else if (slub_on_chain(s, me, id))
		x = SLUB_WHERE_OWN_CPU_PARTIAL;
	else if (a >= 0 && a != me && s->cpu[a].page == id)
		x = SLUB_WHERE_CPU_SLAB;
	else if (a >= 0 && a != me && slub_on_chain(s, a, id))
		x = SLUB_WHERE_ALLOC_CPU_PARTIAL;
	else {
		x = SLUB_WHERE_OTHER_CPU_PARTIAL;
		for (int i = 0; i < s->w->s->nr_cpus; i++)
			if (s->cpu[i].page == id) {
				x = SLUB_WHERE_CPU_SLAB;
				break;
			}
	}
	s->where[x]++;
}

static inline void slub_hook_free_enter(struct cpu *c, struct slub_cache *s, uint32_t id,
					unsigned cnt, struct slab_free_hook *h)
{
	struct slub_world *w = s->w;
	slub_where(c, s, id);
	h->trace = NULL;
	if (w->trace && !w->tr)
		h->trace = slub_trace_begin(c, s, id, cnt);
	h->attempt = 0;
	/* the counters from here on are this call's own (no fold of other
	 * calls' counts lands between f0 and its reader) */
	h->measure = !cpu_in_fast_call(c);
	if (h->measure) {
		h->t0 = cpu_now_measured(c);      /* also brings the counts up to here */
		h->f0 = cpu_fence_waited(c);
		slub_block_sum(c, w, h->block);
	} else {
		h->t0 = h->f0 = 0;
		h->block[0] = h->block[1] = h->block[2] = 0;
	}
}

/* The race hook on object head of slab id: a free of its own, neither
 * traced nor in the measured call's counts.  Out of the way: only tests
 * set one. */
static void slub_free_race(struct cpu *c, struct slub_cache *s, uint32_t id, uint16_t head,
			   struct slab_free_hook *h)
{
	struct slub_world *w = s->w;
	struct slub_free_trace *saved = w->tr;
	uint64_t before[3] = {0, 0, 0}, after[3];
	if (h->measure)
		slub_block_sum(c, w, before);
	slub_trace_recording(w, NULL);
	w->race(w->race_arg, w, c, make_obj(s, id, head), h->attempt++);
	slub_trace_recording(w, saved);
	if (h->measure) {
		slub_block_sum(c, w, after);
		for (int i = 0; i < 3; i++)
			h->block[i] += after[i] - before[i];
	}
}

static inline void slub_hook_free_race(struct cpu *c, struct slub_cache *s, uint32_t id,
				       uint16_t head, struct slab_free_hook *h)
{
	if (s->w->race)
		slub_free_race(c, s, id, head, h);
}

/* locked: the call took the node's list_lock (n != NULL); was_frozen: the
 * slab was frozen when the cmpxchg_double succeeded. */
static inline void slub_hook_free_exit(struct cpu *c, struct slub_cache *s, bool locked,
				       bool was_frozen, struct slab_free_hook *h)
{
	if (h->measure && was_frozen && !locked) {
		uint64_t b[3];
		slub_block_sum(c, s->w, b);
		s->ff_branches += b[0] - h->block[0];
		s->ff_taken += b[1] - h->block[1];
		s->ff_mispredicts += b[2] - h->block[2];
		s->ff_cycles += cpu_now_measured(c) - h->t0;
		s->ff_fence += cpu_fence_waited(c) - h->f0;
		s->ff_measured++;
	}
	if (h->trace)
		slub_trace_end(c, s->w, h->trace, locked, was_frozen);
}

#endif
