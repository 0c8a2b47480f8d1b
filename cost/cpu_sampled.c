/*
 * cpu_sampled — sampled accounting (cost.accounting sampled): the
 * accounting engine that accounts some top-level calls exactly and charges
 * the others their path's latest sample (design notes below).  Its lock
 * pricing is in cost/cpu_sampled_lock.c.
 */
#include "cost/cpu_internal.h"

#include <assert.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/diag.h"

/* --- sampled accounting (cost.accounting sampled) ------------------------ */

/*
 * Design notes.  An approximation, for runs where exact accounting is too
 * slow, in the manner of SMARTS (Wunderlich et al., ISCA 2003): some
 * top-level calls ("samples", one in sample_period on average, at random
 * intervals so that a periodic workload is not sampled in step with
 * itself, and the first sample_period calls of each CPU, whose caches
 * are cold) are accounted exactly; the others ("fast" calls) run the
 * model's control flow with every primitive reduced to almost nothing.
 * A fast call counts its branches (executed, taken) and calls, adds each
 * branch's term to its path signature and its block's mean cost to an
 * estimate; with warming (sample_warm caches, the default) its memory
 * accesses are performed on the caches, as SMARTS's functional warming
 * keeps them current, so that the samples find the lines where the
 * exact run would (sample_warm stores: only its stores and locked ops,
 * which keep the coherence directory and the writers' caches current).
 * The predictor is not trained by fast calls (it
 * learns from the samples only: measured, training it as well moved
 * the first seed's rows by less than the sampling does and cost a
 * third more host time).  At a fast call's return its signature (the
 * top-level function, the multiset of (site, condition) and of the
 * calls it made, the locks it took: a sum of random 64-bit terms) is
 * looked up among the samples: a sampled path adds its latest sample's
 * cost (clock, core state, and its counter, mispredict and profile
 * deltas, folded at export as memo folds its replays).  A path not
 * sampled yet ("lost") adds the estimate: per (site, condition) the
 * mean cycles from the previous branch in the samples, and the
 * function's mean tail, booked where the samples ran those blocks ("Lost
 * paths along their functions"), without cache or mispredict counts;
 * the next call is then a sample.
 *
 * What is approximate: a fast call costs what its path's latest sample
 * cost, from another start state, other lines (without warming, also
 * other cache contents: the fast calls leave them as they were), other
 * predictions; inside a fast call the clock does not move, so its locks
 * are taken and released at an estimate of its time ("Lock waits").  A
 * function whose calls read the clock or the
 * counts (cpu_now(), cpu_memo_sync()) is sampled at every call from its
 * first fast call that did.  Samples are exact from the state they find;
 * with sample_period 1 every call is a sample and the results are
 * exact's.  docs/design/cost-model.md §10 gives the measured differences.
 */

/* The counters whose counts join a path's signature after its branches
 * and calls: the locks taken.  (Where lines came from is left out: with
 * warming it would split a path into one per pattern of misses, too many
 * to sample, while the path's samples see the misses as they come.) */
static const enum cpu_counter sig_ctr[] = {CPU_CTR_lock_acquire};
_Static_assert(sizeof sig_ctr / sizeof sig_ctr[0] == SIG_TERMS, "a counter per term");

static uint64_t splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9E3779B97F4A7C15u);
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9u;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBu;
	return z ^ (z >> 31);
}

static void sampled_forget(struct cpu_sampled *sm, const struct cost_tables *t);
static int sampled_init(struct cpu *c, const struct cpu_params *p)
{
	const struct cost_tables *t = c->sys->tables;
	struct cpu_sampled *sm = calloc(1, sizeof *sm);
	c->mt->sm = sm;
	if (!sm)
		return NS_ENOMEM;
	size_t nterms = 2 * (size_t)t->nr_sites + (size_t)t->nr_fns + SIG_TERMS;
	sm->stab = malloc(nterms * sizeof *sm->stab);
	sm->e = calloc(SAMPLED_ENTRIES, sizeof *sm->e);
	sm->hash = malloc(SAMPLED_SLOTS * sizeof *sm->hash);
	sm->exact_fn = calloc((size_t)t->nr_fns + 1, 1);
	sm->hit = malloc(((size_t)t->nr_fns + 1) * sizeof *sm->hit);
	sm->bsum = calloc(2 * (size_t)t->nr_sites + 1, sizeof *sm->bsum);
	sm->bn = calloc(2 * (size_t)t->nr_sites + 1, sizeof *sm->bn);
	sm->fsite = calloc(2 * (size_t)t->nr_sites + 1, sizeof *sm->fsite);
	sm->tsum = calloc((size_t)t->nr_fns + 1, sizeof *sm->tsum);
	sm->tn = calloc((size_t)t->nr_fns + 1, sizeof *sm->tn);
	sm->site0 = calloc((size_t)t->nr_sites + 1, sizeof *sm->site0);
	sm->prof0 = calloc((size_t)t->nr_fns + 1, sizeof *sm->prof0);
	sm->tsite = calloc((size_t)t->nr_sites + 1, sizeof *sm->tsite);
	sm->site_touched = calloc((size_t)t->nr_sites + 1, sizeof *sm->site_touched);
	sm->tfn = calloc((size_t)t->nr_fns + 1, sizeof *sm->tfn);
	sm->fn_touched = calloc((size_t)t->nr_fns + 1, sizeof *sm->fn_touched);
	size_t ns = 2 * (size_t)t->nr_sites + 1;
	sm->ctx = malloc(SAMPLED_CTXS * sizeof *sm->ctx); /* (set as created) */
	sm->ctx_hash = calloc(2 * SAMPLED_CTXS, sizeof *sm->ctx_hash);
	sm->cstk = calloc((size_t)c->max_depth + 1, sizeof *sm->cstk);
	sm->rstk = calloc((size_t)c->max_depth + 1, sizeof *sm->rstk);
	sm->rp = calloc(ns * SAMPLED_TOPS, sizeof *sm->rp);
	sm->tail = calloc((size_t)t->nr_fns + 1, sizeof *sm->tail);
	sm->fsites = calloc((size_t)t->nr_fns + 1, sizeof *sm->fsites);
	sm->acc = calloc(SAMPLED_CTXS, sizeof *sm->acc);
	sm->accl = malloc(SAMPLED_CTXS * sizeof *sm->accl);
	sm->nb = calloc(ns, sizeof *sm->nb);
	sm->slist = malloc(SAMPLED_ENTRIES * sizeof *sm->slist);
	sm->lc = malloc(ns * sizeof *sm->lc);
	if (!sm->stab || !sm->e || !sm->hash || !sm->exact_fn || !sm->hit || !sm->site0 ||
	    !sm->prof0 || !sm->bsum || !sm->bn || !sm->fsite || !sm->tsum || !sm->tn ||
	    !sm->tsite || !sm->site_touched || !sm->tfn || !sm->fn_touched || !sm->ctx ||
	    !sm->ctx_hash || !sm->cstk || !sm->rstk || !sm->rp || !sm->tail || !sm->fsites ||
	    !sm->acc || !sm->accl || !sm->nb || !sm->slist || !sm->lc)
		return NS_ENOMEM;
	uint64_t x = 0x6E756D6173696Du;   /* the same terms on every CPU and run */
	for (size_t i = 0; i < nterms; i++)
		sm->stab[i] = splitmix64(&x) & CPU_SIG_MASK;
	for (size_t i = 0; i < 2 * (size_t)t->nr_sites; i++)
		sm->fsite[i].term = sm->stab[i];
	sampled_forget(sm, t);
	sm->period = p->sample_period;
	sm->countdown = 1;
	sm->warmup = p->sample_period;
	sm->rng = 0x53414D504C45u ^ (uint64_t)c->idx << 32;
	c->fsite = sm->fsite;
	c->stab_fn = sm->stab + 2 * t->nr_sites;
	c->fwarm = p->sample_warm != CPU_WARM_NONE;
	c->fwarm_loads = p->sample_warm == CPU_WARM_CACHES;
	sm->warm = c->fwarm;
	sm->warm_loads = c->fwarm_loads;
	sm->window = c->fwarm_loads ? 0 : p->sample_window;  /* caches: all warm already */
	c->fcopy = 1;
	return NS_OK;
}

static void sampled_forget(struct cpu_sampled *sm, const struct cost_tables *t)
{
	/* only the entries in use: the others are still as calloc() left
	 * them (every forget clears what was used since the one before), so
	 * a CPU's table costs only the pages its paths touch (a 72-CPU
	 * world's tables are about 2 MB a CPU) */
	for (uint32_t i = 0; i < sm->nr; i++) {
		free(sm->e[i].cost.items);
		free(sm->e[i].sc);
	}
	memset(sm->e, 0, sm->nr * sizeof *sm->e);
	sm->nr = 0;
	for (uint32_t i = 0; i < SAMPLED_SLOTS; i++)
		sm->hash[i] = -1;
	for (int i = 0; i <= t->nr_fns; i++)
		sm->hit[i] = -1;
	size_t nb = 2 * (size_t)t->nr_sites + 1, nf = (size_t)t->nr_fns + 1;
	memset(sm->bsum, 0, nb * sizeof *sm->bsum);
	memset(sm->bn, 0, nb * sizeof *sm->bn);
	for (size_t i = 0; i + 1 < nb; i++)
		sm->fsite[i].term = sm->stab[i];
	memset(sm->tsum, 0, nf * sizeof *sm->tsum);
	memset(sm->tn, 0, nf * sizeof *sm->tn);
	sm->nlsite = sm->lsite_next = 0;
	/* the contexts and the records that name them are of the old
	 * layout's paths and inlining (the branch counts were folded:
	 * nothing is pending); none exists before a sample's first call */
	if (sm->nctx) {
		memset(sm->ctx_hash, 0, 2 * SAMPLED_CTXS * sizeof *sm->ctx_hash);
		memset(sm->rp, 0, nb * SAMPLED_TOPS * sizeof *sm->rp);
		memset(sm->tail, 0, nf * sizeof *sm->tail);
		for (size_t i = 0; i < nf; i++)
			sm->fsites[i].n = 0;
		sm->nctx = sm->nrec = 0;
	}
}

static void sampled_free(struct cpu *c)
{
	struct cpu_sampled *sm = c->mt->sm;
	if (!sm)
		return;
	for (uint32_t i = 0; sm->e && i < sm->nr; i++) {
		free(sm->e[i].cost.items);
		free(sm->e[i].sc);
	}
	free(sm->stab);
	free(sm->e);
	free(sm->hash);
	free(sm->exact_fn);
	free(sm->hit);
	free(sm->bsum);
	free(sm->bn);
	free(sm->fsite);
	free(sm->tsum);
	free(sm->tn);
	free(sm->site0);
	free(sm->prof0);
	free(sm->path0);
	free(sm->tsite);
	free(sm->site_touched);
	free(sm->tfn);
	free(sm->fn_touched);
	free(sm->tpath);
	free(sm->path_touched);
	free(sm->ctx);
	free(sm->ctx_hash);
	free(sm->cstk);
	free(sm->rstk);
	free(sm->tail);
	for (int i = 0; sm->fsites && i <= c->sys->tables->nr_fns; i++)
		free(sm->fsites[i].i);
	free(sm->fsites);
	free(sm->acc);
	free(sm->accl);
	free(sm->rp);
	for (uint32_t i = 0; i < sm->nrchunk; i++)
		free(sm->rchunk[i]);
	free(sm->rchunk);
	free(sm->nb);
	free(sm->slist);
	free(sm->lc);
	free(sm);
	c->mt->sm = NULL;
	c->fsite = NULL;
	c->stab_fn = NULL;
}

static uint32_t sampled_slot(uint64_t sig)
{
	return (uint32_t)(sig ^ sig >> 29) & (SAMPLED_SLOTS - 1);
}

/* The entry of (fn, sig), or -1; *slot: where a new one would go. */
static int32_t sampled_find(const struct cpu_sampled *sm, int32_t fn, uint64_t sig,
			    uint32_t *slot)
{
	for (uint32_t h = sampled_slot(sig);; h = (h + 1) & (SAMPLED_SLOTS - 1)) {
		int32_t id = sm->hash[h];
		if (id < 0) {
			*slot = h;
			return -1;
		}
		if (sm->e[id].sig == sig && sm->e[id].fn == fn)
			return id;
	}
}

/* Before a sample: the counts it can move. */
/* Room in the snapshot's path copy for n paths (false: out of memory). */
static bool sampled_path0_fit(struct cpu *c, struct cpu_sampled *sm, uint32_t n)
{
	if (n <= sm->cpath0)
		return true;
	uint32_t cap = c->cap_paths > n ? c->cap_paths : n;
	struct cpu_path *p = realloc(sm->path0, cap * sizeof *p);
	if (p)
		sm->path0 = p;
	uint32_t *t = realloc(sm->tpath, cap * sizeof *t);
	if (t)
		sm->tpath = t;
	uint32_t *m = realloc(sm->path_touched, cap * sizeof *m);
	if (m)
		sm->path_touched = m;
	if (!p || !t || !m)
		return false;
	memset(m + sm->cpath0, 0, (cap - sm->cpath0) * sizeof *m);
	sm->cpath0 = cap;
	return true;
}

/* Debug builds copy every baseline at a sample's start as well, so that
 * each first touch can check the baseline it derives against the copy,
 * and sampled_untouched_same() can check what was not touched. */
#ifdef NDEBUG
static void sampled_snapshot_all(struct cpu *c)
{
	(void)c;
}
#else
static void sampled_snapshot_all(struct cpu *c)
{
	struct cpu_sampled *sm = c->mt->sm;
	const struct cost_tables *t = c->sys->tables;
	memcpy(sm->path0, c->path, c->nr_paths * sizeof *c->path);
	memcpy(sm->site0, c->site, (size_t)t->nr_sites * sizeof *c->site);
	memcpy(sm->prof0, c->prof, (size_t)t->nr_fns * sizeof *c->prof);
}
#endif

/* Path p's baseline, on its first touch in the sample (cpu_sample_call()
 * right after its calls count moved by `calls`; the root at the start):
 * false when it has no room (the sample is not recorded). */
static bool sampled_touch_path(struct cpu *c, struct cpu_sampled *sm, uint32_t p,
			       uint64_t calls)
{
	if (!sampled_path0_fit(c, sm, p + 1))
		return false;
	if (sm->path_touched[p] == sm->mark)
		return true;
	sm->path_touched[p] = sm->mark;
	sm->tpath[sm->ntpath++] = p;
	struct cpu_path b = c->path[p];
	b.calls -= calls;
	/* a path the sample created starts from zero */
	assert(sm->spoiled || (p >= sm->npath0 ? !b.calls && !b.self && !b.mispredicts
					       : !memcmp(&b, &sm->path0[p], sizeof b)));
	sm->path0[p] = b;
	return true;
}

static bool sampled_snapshot(struct cpu *c)
{
	struct cpu_sampled *sm = c->mt->sm;
	const struct cost_tables *t = c->sys->tables;
	if (!sampled_path0_fit(c, sm, c->nr_paths))
		return false;
	sm->npath0 = c->nr_paths;
	sm->spoiled = 0;
	sampled_snapshot_all(c);
	memcpy(sm->ctr0, c->ctr, sizeof sm->ctr0);
	if (++sm->mark == 0) {         /* wrapped: no stale mark may match */
		memset(sm->site_touched, 0, (size_t)t->nr_sites * sizeof *sm->site_touched);
		memset(sm->fn_touched, 0, (size_t)t->nr_fns * sizeof *sm->fn_touched);
		memset(sm->path_touched, 0, sm->cpath0 * sizeof *sm->path_touched);
		sm->mark = 1;
	}
	sm->ntsite = sm->ntfn = sm->ntpath = 0;
	/* the cycles booked before the sample's first call go to the path
	 * it starts on (the root: no frame is open) */
	if (!sampled_touch_path(c, sm, (uint32_t)c->cur_path, 0))
		return false;
	sm->lock.valid = sm->lock.nout = 0;
	sm->lock.attr = -2;            /* -2: no lock yet (sample_lock_at()) */
	sm->now0 = c->now;
	sm->pos0 = c->o.pos;
	sm->misp0 = c->mispredicts;
	sm->outside0 = c->outside;
	return true;
}

static bool sampled_item(struct cpu_memo *m, uint32_t what, uint32_t idx, uint64_t a,
			 uint64_t b, uint64_t d)
{
	if (!(a | b | d))
		return true;
	struct memo_item *it = memo_item(m, what, idx);
	if (!it)
		return false;
	it->v[0] = a;
	it->v[1] = b;
	it->v[2] = d;
	return true;
}

/* The sites, functions and paths the sample did not touch have not moved since
 * its snapshot (debug builds check it before every delta: a count that
 * moved without cpu_sample_branch() or cpu_sample_call() would be left
 * out of its path's cost). */
static inline bool sampled_untouched_same(const struct cpu *c)
{
	const struct cpu_sampled *sm = c->mt->sm;
	const struct cost_tables *t = c->sys->tables;
	for (int i = 0; i < t->nr_sites; i++)
		if (sm->site_touched[i] != sm->mark &&
		    memcmp(&c->site[i], &sm->site0[i], sizeof c->site[i]))
			return false;
	for (int i = 0; i < t->nr_fns; i++)
		if (sm->fn_touched[i] != sm->mark && memcmp(&c->prof[i], &sm->prof0[i], sizeof c->prof[i]))
			return false;
	for (uint32_t i = 0; i < sm->npath0; i++)
		if (sm->path_touched[i] != sm->mark &&
		    memcmp(&c->path[i], &sm->path0[i], sizeof c->path[i]))
			return false;
	return true;
}

/* After a sample: its deltas into the scratch items and its signature
 * (the same sum of terms a fast call of this path adds up); only the
 * sites and functions it touched can have moved. */
static bool sampled_delta(struct cpu *c, uint64_t *sig)
{
	struct cpu_memo *m = c->mt;
	struct cpu_sampled *sm = m->sm;
	const struct cost_tables *t = c->sys->tables;
	uint64_t h = c->stab_fn[sm->fn];
	bool ok = true;
	m->nscratch = 0;
	assert(sampled_untouched_same(c));
	for (uint32_t j = 0; j < sm->ntsite; j++) {
		uint32_t i = sm->tsite[j];
		const struct cpu_site_stat *a = &c->site[i], *b = &sm->site0[i];
		uint64_t ex = a->executed - b->executed, tk = a->taken - b->taken;
		if (!ex)
			continue;
		/* taken is relative to the layout; the term is by condition */
		uint64_t n1 = c->site_layout[i].fallthrough ? ex - tk : tk;
		h += n1 * sm->stab[2 * i + 1] + (ex - n1) * sm->stab[2 * i];
		ok &= sampled_item(m, MI_SITE, i, ex, tk, a->mispredicted - b->mispredicted);
	}
	for (uint32_t j = 0; j < sm->ntfn; j++) {
		int i = (int)sm->tfn[j];
		const struct cpu_prof *a = &c->prof[i], *b = &sm->prof0[i];
		uint64_t calls = a->calls - b->calls;
		/* the calls below the top one: the top one's is in its own term */
		if (i != sm->fn || calls > 1)
			h += (calls - (i == sm->fn)) * c->stab_fn[i];
		ok &= sampled_item(m, MI_FN, (uint32_t)i, calls, a->self - b->self, a->total - b->total);
	}
	for (uint32_t j = 0; j < sm->ntpath; j++) {
		uint32_t i = sm->tpath[j];
		const struct cpu_path *a = &c->path[i], *b = &sm->path0[i];
		ok &= sampled_item(m, MI_PATH, i, a->calls - b->calls, a->self - b->self,
				   a->mispredicts - b->mispredicts);
	}
	for (int i = 0; i < SIG_TERMS; i++)
		h += (c->ctr[sig_ctr[i]] - sm->ctr0[sig_ctr[i]]) *
		     c->stab_fn[t->nr_fns + i];
	ok &= sampled_item(m, MI_OUTSIDE, 0, c->outside - sm->outside0, 0, 0);
	/* a fast call counts its locks itself, as its branches and calls
	 * (and its lock waits: "Lock waits") */
	for (uint32_t id = 0; id < CPU_NR_COUNTERS; id++)
		if (id != CPU_CTR_lock_acquire)
			ok &= sampled_item(m, MI_CTR, id, c->ctr[id] - sm->ctr0[id], 0, 0);
	*sig = h;
	return ok;
}

/*
 * Lost paths along their functions.  A fast call whose path has no
 * sample is charged its blocks' mean costs (sampled_lost()).  Those
 * cycles were once all booked as the top-level function's own, and its
 * calls below the top one on no path: on `tiny-fill`, whose pcp drains
 * and reclaim passes are mostly such paths, 22 % of the self cycles were
 * booked to the wrong function.  Now the call's own branch counts are
 * recovered and each block is booked where the samples ran it:
 *
 * - Counts.  Fast calls add to the running counts fsite[].n, which
 *   cpu_memo_fold() empties.  nb[] is those counts at the last sync; a
 *   fast call that found its path is listed once per sync (slist,
 *   entry.psync) and its counts are its sample's (the same signature,
 *   the same counts).  So a lost call's own count of (site, condition) i
 *   is n[i] - nb[i] less the listed calls' (lost_counts()), for the i
 *   the samples of its function ran (fsites[]).
 * - Check.  fsig is the sum of the call's terms: per branch its
 *   (site, condition)'s signature and block mean, per call its
 *   function's, per lock its signature and edge means (flk).  The counts
 *   found must give back the low half exactly, or nothing is placed (a
 *   fold inside the call, cpu_memo_sync(), emptied the counts it ran up;
 *   it ran a branch no sample of its function ran).
 * - Where.  A sample keeps the chain of its frames, inlined ones too, as
 *   a context (struct sampled_ctx).  Per (site, condition) and top-level
 *   function a record (struct sampled_after) sums the cycles of the
 *   blocks that ended at its branch by the context each part ran in (a
 *   block crosses calls and returns), and so does one per function for
 *   its tail.  A lost call's blocks are split as their records say:
 *   self to each context's innermost out-of-line function and path,
 *   total to every function of its chain but the top one (whose total
 *   has the whole estimate).
 * - Calls.  A frame's code from one of its branches (or its entry) to
 *   its next branch makes the same calls each time: the record keeps
 *   them (the context keeps those of its entry).  The top-level call,
 *   the calls each of its branches' records make (times its count) and
 *   the calls their entries make must make up the rest of fsig (their
 *   functions' terms); then each out-of-line one counts on its path.
 *
 * What stays approximate: the split of a block is the samples' mean
 * split; a (site, condition) reached in two contexts under one
 * top-level function takes the latest (the call check catches a
 * different set of functions, not a different order of the same ones);
 * the lock edges and the rounding stay the top-level function's own; a
 * call that fails a check books its cycles as its own and counts only
 * its top-level call on a path.  What it costs: each sample keeps its
 * contexts (and a record its first SAMPLED_MATURE samples' upkeep), each
 * fast call that finds its path lists its entry once per sync, each lost
 * call scans its function's sites and books along each context's chain
 * (about 6 K host instructions).  Measured: docs/design/cost-model.md §10.
 */

/* (site, condition) i joins a top-level function's (not when out of
 * memory: its lost calls then fall back). */
static void sites_add(struct sampled_sites *l, uint32_t i, bool replaced)
{
	for (uint32_t j = 0; replaced && j < l->n; j++)
		if (l->i[j] == i)
			return;            /* (its record was replaced, and is back) */
	if (l->n == l->cap) {
		uint32_t cap = l->cap ? 2 * l->cap : 16;
		uint32_t *p = realloc(l->i, cap * sizeof *p);
		if (!p)
			return;
		l->i = p;
		l->cap = cap;
	}
	l->i[l->n++] = i;
}

#define SAMPLED_RCHUNK 64

static struct sampled_after *rec_at(const struct cpu_sampled *sm, int32_t id)
{
	uint32_t u = (uint32_t)id;
	return &sm->rchunk[u / SAMPLED_RCHUNK][u % SAMPLED_RCHUNK];
}

/* A new record, or NULL when out of memory. */
static struct sampled_after *rec_new(struct cpu_sampled *sm)
{
	if (sm->nrec == sm->nrchunk * SAMPLED_RCHUNK) {
		struct sampled_after **p = realloc(sm->rchunk, (sm->nrchunk + 1) * sizeof *p);
		if (!p)
			return NULL;
		sm->rchunk = p;
		if (!(p[sm->nrchunk] = malloc(SAMPLED_RCHUNK * sizeof **p)))
			return NULL;
		sm->nrchunk++;
	}
	return rec_at(sm, (int32_t)sm->nrec++);
}

/* Record i's for top-level function fn, or NULL. */
static inline struct sampled_after *after_find(const struct cpu_sampled *sm, uint32_t i, int fn)
{
	struct sampled_after *const *r = &sm->rp[i * SAMPLED_TOPS];
	for (int s = 0; s < SAMPLED_TOPS && r[s]; s++)
		if (r[s]->top1 == fn + 1)
			return r[s];
	return NULL;
}

/* A new record of i for the sample's function (NULL: out of memory). */
static struct sampled_after *after_new(struct cpu_sampled *sm, uint32_t i)
{
	struct sampled_after *a;
	struct sampled_after **r = &sm->rp[i * SAMPLED_TOPS];
	int s = 0;
	while (s < SAMPLED_TOPS && r[s])
		s++;
	/* (slots fill and are never emptied: only once all are full can a
	 * function's record of i have been replaced, and i be on its list) */
	if (s == SAMPLED_TOPS) {               /* the record of another function goes */
		a = r[sm->after_next++ % SAMPLED_TOPS];
	} else {
		if (!(a = rec_new(sm)))
			return NULL;
		r[s] = a;
	}
	*a = (struct sampled_after){.top1 = sm->fn + 1};
	sites_add(&sm->fsites[sm->fn], i, s == SAMPLED_TOPS);
	return a;
}

static uint32_t ctx_slot(int32_t parent, int32_t fn)
{
	uint32_t key = (uint32_t)parent * 0x9E3779B1u ^ (uint32_t)fn * 0x85EBCA77u;
	return (key ^ key >> 15) & (2 * SAMPLED_CTXS - 1);
}

/* The cycles since the last part of the sample's block ran in its
 * current context (at a call or return, before the context changes;
 * at a branch). */
static void sample_part(struct cpu *c, struct cpu_sampled *sm)
{
	uint64_t y = c->now - sm->pmark;
	sm->pmark = c->now;
	if (!y)
		return;
	uint32_t j = 0;
	while (j < sm->npart && sm->part[j].ctx != sm->cur)
		j++;
	if (j == SAMPLED_SPLIT)
		j--;
	else if (j == sm->npart)
		sm->part[sm->npart++] = (struct sampled_part){sm->cur, 0};
	sm->part[j].cycles += y;
}

/* The block that ended at a branch, into its record's split. */
static void sample_split(struct cpu_sampled *sm, struct sampled_after *a)
{
	for (uint32_t k = 0; k < sm->npart; k++) {
		uint32_t j = 0;
		while (j < a->nsplit && a->sctx[j] != sm->part[k].ctx)
			j++;
		if (j == SAMPLED_SPLIT) {
			j--;
		} else if (j == a->nsplit) {
			a->sctx[j] = sm->part[k].ctx;
			a->ssum[j] = 0;
			a->nsplit++;
		}
		a->ssum[j] += sm->part[k].cycles;
	}
	sm->npart = 0;
}

/* Record a is written by the sample being taken (once a sample). */
static void sample_visit(const struct cpu_sampled *sm, struct sampled_after *a)
{
	if (a->vmark != sm->mark) {
		a->vmark = sm->mark;
		a->nvis++;
	}
}

/* A sample at branch i: the block that ends here into i's record, whose
 * calls start again.  Mostly the block ran in one context, the one its
 * record split most of it to: that case first. */
static void sample_at_branch(struct cpu *c, struct cpu_sampled *sm, uint32_t i)
{
	struct sampled_after *a = after_find(sm, i, sm->fn);
	if (a && a->nvis >= SAMPLED_MATURE) {
		sm->pmark = c->now;
		sm->npart = 0;
		sm->rstk[c->depth - 1] = NULL;
		return;
	}
	if (a && !sm->npart && a->nsplit && a->sctx[0] == sm->cur) {
		a->ssum[0] += c->now - sm->pmark;
		sm->pmark = c->now;
	} else {
		sample_part(c, sm);
		if (!a)
			a = after_new(sm, i);
		if (a)
			sample_split(sm, a);
		sm->npart = 0;
	}
	if (a) {
		a->ctx = sm->cur;
		a->n = a->over = 0;
		sample_visit(sm, a);
	}
	sm->rstk[c->depth - 1] = a;
}

/* Context (parent, fn), or -1 (*slot: where a new one would go). */
static int32_t ctx_probe(const struct cpu_sampled *sm, int32_t parent, int fn, uint32_t *slot)
{
	for (uint32_t h = ctx_slot(parent, fn);; h = (h + 1) & (2 * SAMPLED_CTXS - 1)) {
		int32_t id = sm->ctx_hash[h] - 1;
		*slot = h;
		if (id < 0 || (sm->ctx[id].parent == parent && sm->ctx[id].fn == fn))
			return id;
	}
}

static int32_t ctx_find(const struct cpu_sampled *sm, int32_t parent, int fn)
{
	uint32_t slot;
	return ctx_probe(sm, parent, fn, &slot);
}

/* The context of a call of fn from the sample's current one (its
 * attribution as the call left it); -2 when unknown (the table is full,
 * or the parent is unknown). */
static int32_t sampled_ctx_child(struct cpu *c, struct cpu_sampled *sm, int fn, bool inl)
{
	int32_t parent = sm->cur;
	uint32_t h;
	if (parent < -1)
		return -2;
	int32_t id = ctx_probe(sm, parent, fn, &h);
	if (id >= 0)
		return id;
	if (sm->nctx == SAMPLED_CTXS)
		return -2;
	id = (int32_t)sm->nctx++;
	struct sampled_ctx *x = &sm->ctx[id];
	*x = (struct sampled_ctx){.parent = parent, .fn = fn, .attr = c->attr,
				  .path = c->cur_path, .inl = inl, .outer = 1,
				  .top = parent < 0 ? fn : sm->ctx[parent].top};
	for (int32_t j = parent; j >= 0; j = sm->ctx[j].parent)
		if (sm->ctx[j].fn == fn)
			x->outer = 0;
	sm->ctx_hash[h] = id + 1;
	return id;
}

/* Each context's parent came before it and is hashed once, under the
 * same top-level function, with a real path and function; each record
 * names a context. */
static int ctx_check(const struct cpu *c, const struct cpu_sampled *sm)
{
	const struct cost_tables *t = c->sys->tables;
	for (uint32_t id = 0; id < sm->nctx; id++) {
		const struct sampled_ctx *x = &sm->ctx[id];
		if (x->parent >= (int32_t)id || x->parent < -1 || x->fn < 0 || x->fn >= t->nr_fns ||
		    x->path < 0 || (uint32_t)x->path >= c->nr_paths || x->attr >= t->nr_fns ||
		    (x->parent >= 0 && sm->ctx[x->parent].top != x->top) ||
		    (x->parent < 0 && x->top != x->fn) ||
		    ctx_find(sm, x->parent, x->fn) != (int32_t)id || x->entry.n > SAMPLED_AFTER)
			return NS_EINTERNAL;
		for (uint32_t j = 0; j < x->entry.n; j++)
			if (x->entry.node[j] <= (int32_t)id || (uint32_t)x->entry.node[j] >= sm->nctx)
				return NS_EINTERNAL;
	}
	for (int i = 0; i < 2 * t->nr_sites * SAMPLED_TOPS; i++)
		if (sm->rp[i] && sm->rp[i]->top1 < 1)
			return NS_EINTERNAL;
	for (uint32_t i = 0; i < sm->nrec; i++) {
		const struct sampled_after *a = rec_at(sm, (int32_t)i);
		if (a->top1 < 1 || a->top1 > t->nr_fns || a->ctx >= (int32_t)sm->nctx ||
		    a->n > SAMPLED_AFTER || a->nsplit > SAMPLED_SPLIT)
			return NS_EINTERNAL;
		for (uint32_t j = 0; j < a->n; j++)
			if (a->node[j] < 0 || (uint32_t)a->node[j] >= sm->nctx)
				return NS_EINTERNAL;
	}
	return NS_OK;
}

/* Entry e's fast calls since the sync, into the sync's counts. */
static void lost_sync_entry(struct cpu_sampled *sm, struct sampled_entry *e)
{
	uint64_t r = e->pending - e->psync;
	e->psync = e->pending;
	for (uint32_t j = 0; j < e->nsc; j++)
		sm->nb[e->sc[j].i] += r * e->sc[j].n;
}

/* A new entry's (site, condition) counts, from its first sample's items
 * (the same for every sample of its signature). */
static void entry_counts(struct cpu *c, struct sampled_entry *e, const struct memo_item *it,
			 uint32_t nitems)
{
	uint32_t n = 0;
	while (n < nitems && it[n].what == MI_SITE)   /* (sampled_delta() puts them first) */
		n++;
	if (!n || !(e->sc = malloc(2 * n * sizeof *e->sc)))
		return;
	for (uint32_t j = 0; j < n; j++) {
		/* by condition, as sampled_delta() made its signature */
		uint64_t n1 = c->site_layout[it[j].idx].fallthrough ? it[j].v[0] - it[j].v[1]
								     : it[j].v[1];
		if (n1)
			e->sc[e->nsc++] = (struct sampled_count){2 * it[j].idx + 1, (uint32_t)n1};
		if (it[j].v[0] - n1)
			e->sc[e->nsc++] = (struct sampled_count){2 * it[j].idx,
								 (uint32_t)(it[j].v[0] - n1)};
	}
}

/* The lost call's own counts of the (site, condition)s that samples of
 * fn have run, into sm->lc (their number); their sync moves to now.  A
 * (site, condition) no sample of fn ran has no record to book by, and
 * scanning only fn's keeps a lost call's cost to its function's sites
 * (`bench messaging` has 900); such a one's counts wait, and the check
 * in lost_place() sends the call that finds them to the fallback. */
static uint32_t lost_counts(struct cpu_sampled *sm, int fn)
{
	for (uint32_t j = 0; j < sm->nslist; j++)
		lost_sync_entry(sm, &sm->e[sm->slist[j]]);
	sm->nslist = 0;
	const struct sampled_sites *l = &sm->fsites[fn];
	uint32_t n = 0;
	for (uint32_t j = 0; j < l->n; j++) {
		uint32_t i = l->i[j];
		uint64_t d = sm->fsite[i].n - sm->nb[i];
		if (d) {
			sm->lc[n++] = (struct sampled_lost_count){i, d, after_find(sm, i, fn)};
			sm->nb[i] = sm->fsite[i].n;
		}
	}
	return n;
}

/* Cycles and calls for context k (struct sampled_acc). */
static void acc_add(struct cpu_sampled *sm, int32_t k, uint64_t cycles, uint64_t calls)
{
	struct sampled_acc *a = &sm->acc[k];
	if (!a->cycles && !a->calls)
		sm->accl[sm->nacc++] = k;
	a->cycles += cycles;
	a->calls += calls;
}

/* y cycles of a lost call, at context k: self where the sample's would
 * be, total to each function of the chain below the top one. */
static void lost_book(struct cpu *c, const struct cpu_sampled *sm, int32_t k, uint64_t y)
{
	const struct sampled_ctx *x = &sm->ctx[k];
	if (x->attr >= 0)
		c->prof[x->attr].self += y;
	else
		c->outside += y;
	c->path[x->path].self += y;
	for (; sm->ctx[k].parent >= 0; k = sm->ctx[k].parent)
		if (sm->ctx[k].outer)
			c->prof[sm->ctx[k].fn].total += y;
}

static bool lost_calls(struct cpu *c, struct cpu_sampled *sm, const struct sampled_after *a,
		       int fn, uint64_t m, uint64_t *sig);

/* A call of context k, m times, with the calls its entry makes: their
 * terms into *sig, their counts into the accumulator (false: a record is
 * not whole, or a context is not under fn). */
static bool lost_call(struct cpu *c, struct cpu_sampled *sm, int32_t k, int fn, uint64_t m,
		      uint64_t *sig)
{
	const struct sampled_ctx *x = &sm->ctx[k];
	if (x->top != fn)
		return false;
	*sig += m * c->stab_fn[x->fn];
	acc_add(sm, k, 0, m);
	return lost_calls(c, sm, &x->entry, fn, m, sig);
}

/* The calls of record a, m times (lost_call()). */
static bool lost_calls(struct cpu *c, struct cpu_sampled *sm, const struct sampled_after *a,
		       int fn, uint64_t m, uint64_t *sig)
{
	if (!a || a->over)
		return false;
	for (uint32_t j = 0; j < a->n; j++)
		if (!lost_call(c, sm, a->node[j], fn, m, sig))
			return false;
	return true;
}

/* y cycles of blocks ending at record a's branch, split as the samples
 * ran them, into the accumulator. */
static void lost_split(struct cpu_sampled *sm, const struct sampled_after *a, uint64_t y)
{
	if (a->nsplit <= 1) {              /* one context (none: no cycles yet) */
		int32_t k = a->nsplit ? a->sctx[0] : a->top1 ? a->ctx : -1;
		if (k >= 0)
			acc_add(sm, k, y, 0);
		return;
	}
	double sum = 0;
	for (uint32_t k = 0; k < a->nsplit; k++)
		sum += (double)a->ssum[k];
	for (uint32_t k = 0; k < a->nsplit; k++) {
		uint64_t part = (uint64_t)((double)y * ((double)a->ssum[k] / sum));
		if (a->sctx[k] >= 0 && part)
			acc_add(sm, a->sctx[k], part, 0);
	}
}

/* One more call of the top-level path of fn.  The path is found (or made)
 * before the table is indexed: making it may move c->path (realloc), and
 * in `c->path[cpu_path_child(...)]` the array's address may be read
 * first. */
static void sampled_top_path_call(struct cpu *c, int fn)
{
	int32_t p = cpu_path_child(c, 0, fn);
	c->path[p].calls++;
}

/* A lost call of fn: its blocks' cycles booked where they ran and its
 * calls counted on their paths, as far as the samples show; the cycles
 * placed (the rest are the top-level function's own). */
static uint64_t lost_place(struct cpu *c, struct cpu_sampled *sm, int fn, uint64_t tail)
{
	uint32_t n = lost_counts(sm, fn);
	uint64_t rest = c->fsig - (sm->flk_call == sm->calls ? sm->flk : 0);
	for (uint32_t j = 0; j < n; j++)
		rest -= sm->lc[j].d * sm->fsite[sm->lc[j].i].term;
	bool counts = !(uint32_t)rest;  /* false: not this call's counts alone */
	uint64_t sig = 0;
	int32_t root = ctx_find(sm, -1, fn);
	bool calls = counts && root >= 0 && lost_call(c, sm, root, fn, 1, &sig);
	for (uint32_t j = 0; calls && j < n; j++)
		calls = lost_calls(c, sm, sm->lc[j].a, fn, sm->lc[j].d, &sig);
	calls = calls && sig == rest;
	for (uint32_t j = 0; counts && j < n; j++) {
		const struct sampled_lost_count *l = &sm->lc[j];
		uint64_t y = l->d * (sm->fsite[l->i].term & ~CPU_SIG_MASK) / 16;
		if (l->a && y)
			lost_split(sm, l->a, y);
	}
	if (counts && tail)
		lost_split(sm, &sm->tail[fn], tail);
	uint64_t placed = 0;
	for (uint32_t j = 0; j < sm->nacc; j++) {
		int32_t k = sm->accl[j];
		struct sampled_acc *a = &sm->acc[k];
		if (a->cycles)
			lost_book(c, sm, k, a->cycles);
		placed += a->cycles;
		if (calls && !sm->ctx[k].inl)
			c->path[sm->ctx[k].path].calls += a->calls;
		*a = (struct sampled_acc){0, 0};
	}
	sm->nacc = 0;
	if (calls)
		sm->lost_calls_booked++;
	else                            /* the top-level call's is certain */
		sampled_top_path_call(c, fn);
	return placed;
}

/* Fold the fast calls charged to entry e (before its cost changes). */
static void sampled_fold_one(struct cpu *c, struct sampled_entry *e)
{
	uint64_t r = e->pending;
	e->psync -= r;                 /* (the calls since the sync stay) */
	e->pending = 0;
	c->mt->sm->spoiled |= c->sampling && r;
	for (uint32_t j = 0; r && j < e->cost.nitems; j++) {
		const struct memo_item *it = &e->cost.items[j];
		uint64_t *p[3], spare[2] = {0, 0};
		memo_target(c, it->what, it->idx, p, spare);
		/* a fast call counts its branches (executed, taken) and its
		 * calls itself */
		int from = it->what == MI_SITE ? 2 : it->what == MI_FN ? 1 : 0;
		for (int v = from; v < 3; v++)
			*p[v] += r * it->v[v];
	}
}

void cpu_sample_branch(struct cpu *c, int site, bool cond, unsigned taken, unsigned miss)
{
	struct cpu_sampled *sm = c->mt->sm;
	if (sm->site_touched[site] != sm->mark) {
		sm->site_touched[site] = sm->mark;
		sm->tsite[sm->ntsite++] = (uint32_t)site;
		const struct cpu_site_stat *a = &c->site[site];
		struct cpu_site_stat b = {a->executed - 1, a->taken - taken,
					  a->mispredicted - miss};
		assert(sm->spoiled || !memcmp(&b, &sm->site0[site], sizeof b));
		sm->site0[site] = b;
	}
	uint32_t i = 2 * (uint32_t)site + cond;
	if (c->depth)
		sample_at_branch(c, sm, i);
	sm->bsum[i] += c->now - sm->tlast;
	sm->bn[i]++;
	sm->tlast = c->now;
	uint64_t mean = sm->bsum[i] * 16 / sm->bn[i];
	sm->fsite[i].term = sm->stab[i] | (mean < UINT32_MAX ? mean : UINT32_MAX);
}

static void sample_ctx_call(struct cpu *c, struct cpu_sampled *sm, int fn, bool inl);

void cpu_sample_call(struct cpu *c, int fn, int32_t path)
{
	struct cpu_sampled *sm = c->mt->sm;
	if (sm->fn_touched[fn] != sm->mark) {
		sm->fn_touched[fn] = sm->mark;
		sm->tfn[sm->ntfn++] = (uint32_t)fn;
		struct cpu_prof *b = &sm->prof0[fn];
		const struct cpu_prof *a = &c->prof[fn];
		/* (a fold inside the sample, which spoils it, moves counts
		 * it has not touched yet) */
		assert(sm->spoiled || (b->calls == a->calls - 1 && b->self == a->self &&
				       b->total == a->total && b->active == a->active - 1));
		b->calls = a->calls - 1;
		b->self = a->self;
		b->total = a->total;
		b->active = a->active - 1;
	}
	if (path >= 0 && !sampled_touch_path(c, sm, (uint32_t)path, 1))
		sm->spoiled = 1;       /* no room for its baseline: not recorded */
	sample_ctx_call(c, sm, fn, path < 0);
}

/* A sample's call of fn: its context, and the caller's record ("Lost
 * paths along their functions"). */
static void sample_ctx_call(struct cpu *c, struct cpu_sampled *sm, int fn, bool inl)
{
	sample_part(c, sm);            /* the caller's part */
	int32_t k = sampled_ctx_child(c, sm, fn, inl);
	sm->cur = k;
	sm->cstk[c->depth - 1] = k;
	/* a call of the caller's frame (the top-level one is the root's) */
	struct sampled_after *a = c->depth >= 2 ? sm->rstk[c->depth - 2] : NULL;
	if (a && a->n < SAMPLED_AFTER && k >= 0)
		a->node[a->n++] = k;
	else if (a)
		a->over = 1;
	a = k >= 0 && sm->ctx[k].entry.nvis < SAMPLED_MATURE ? &sm->ctx[k].entry : NULL;
	if (a) {
		a->n = a->over = 0;
		sample_visit(sm, a);
	}
	sm->rstk[c->depth - 1] = a;
}

void cpu_sample_ret(struct cpu *c)
{
	struct cpu_sampled *sm = c->mt->sm;
	if (c->depth == 0) {
		sample_part(c, sm);    /* the tail, from the last branch */
		if (sm->tail[sm->fn].nvis < SAMPLED_MATURE) {
			sample_split(sm, &sm->tail[sm->fn]);
			sample_visit(sm, &sm->tail[sm->fn]);
		}
		sm->npart = 0;
		cpu_sample_end(c);
		return;
	}
	sample_part(c, sm);            /* the callee's, with its return */
	sm->cur = sm->cstk[c->depth - 1];
}

void cpu_sample_end(struct cpu *c)
{
	struct cpu_memo *m = c->mt;
	struct cpu_sampled *sm = m->sm;
	c->sampling = 0;
	/* the cycles up to here are the sample's: a top-level function
	 * inlined in the layout leaves its last ones unattributed at its
	 * return (cpu_ret_exact()), and a cost whose clock moved by more
	 * than its items would put them nowhere in each fast call */
	cpu_attribute(c);
	sm->tsum[sm->fn] += c->now - sm->tlast;
	sm->tn[sm->fn]++;
	uint64_t sig;
	struct memo_cost k = {0};
	bool spoiled = sm->spoiled;
	sm->spoiled = 0;
	/* the fast calls are folded lazily (at a read of the counts, at an
	 * export, and per path before its cost changes): one folded inside
	 * this sample makes its delta not its own, and it is not recorded */
	if (!sampled_delta(c, &sig) || spoiled)
		return;
	int nend = memo_ooo_state(c, k.end);
	k.nend = nend < 0 ? 0 : (uint32_t)nend;
	k.idle = memo_ooo_idle(k.end, k.nend);
	k.dnow = c->now - sm->now0;
	k.dpos = c->o.pos - sm->pos0;
	k.dmisp = c->mispredicts - sm->misp0;
	k.slot = c->o.slot;
	k.lslot = c->o.lslot;
	k.rsb = c->rsb;
	k.nitems = m->nscratch;
	uint32_t slot = 0;
	int32_t id = sampled_find(sm, sm->fn, sig, &slot);
	if (id < 0) {
		if (sm->nr >= SAMPLED_ENTRIES)
			return;
		id = (int32_t)sm->nr++;
		sm->e[id] = (struct sampled_entry){.sig = sig, .fn = sm->fn};
		sm->hash[slot] = id;
		entry_counts(c, &sm->e[id], m->scratch, k.nitems);
	}
	struct sampled_entry *e = &sm->e[id];
	sampled_fold_one(c, e);        /* its fast calls had the old cost (their
					  branch counts are the new one's: the
					  same signature) */
	size_t bytes = k.nitems * sizeof *k.items;
	struct memo_item *items = realloc(e->cost.items, bytes ? bytes : 1);
	if (!items)
		return;
	memcpy(items, m->scratch, bytes);
	k.items = items;
	e->cost = k;
	e->lock = sm->lock;
}

/* Calls to the next sample: uniform on 1 .. 2 period - 1 (mean period),
 * so that a workload with a period of its own is not sampled in step
 * with it (a fixed interval of 10 on calls alternating two paths would
 * only ever sample one). */
static uint32_t sampled_interval(struct cpu_sampled *sm)
{
	if (sm->period == 1)
		return 1;
	return 1 + (uint32_t)(splitmix64(&sm->rng) % (2 * (uint64_t)sm->period - 1));
}

/* sampled_begin()'s decision for the top-level call of fn, without
 * moving anything: not a sample (not due, not forced, warm-up over), not a
 * clock reader's. */
static bool sampled_fast_next(const struct cpu *c, int fn)
{
	const struct cpu_sampled *sm = c->mt->sm;
	return !c->lost && !sm->exact_fn[fn] && sm->countdown != 1 && !sm->force && !sm->warmup;
}

/* The warming window (cost.sample_window): the fast calls with at most
 * window calls left before the due sample perform every cache access,
 * as under caches, the others what the mode says; the models' fast
 * copies follow c->fwarm (MM_FAST_CALL), the ordinary code
 * cpu_fast_warms().  A sample forced early (a lost path, a clock read)
 * comes without its window: the window is set by the countdown. */
static void sampled_window(struct cpu *c, struct cpu_sampled *sm)
{
	bool on = sm->countdown <= sm->window;
	c->fwarm = on | sm->warm;
	c->fwarm_loads = on | sm->warm_loads;
	sm->warmed += on;
}

/* A fast call's start, as sampled_begin() makes it; the models' fast
 * copies count the top-level call itself (their first cpu_copy_call()),
 * sampled_begin() here. */
static void sampled_fast_start(struct cpu *c, struct cpu_sampled *sm, int fn)
{
	sm->calls++;
	sm->fast++;
	sm->fn = fn;
	/* the cycles before it are not its own; between two fast calls there
	 * are mostly none (the last one's end attributed up to the clock) */
	if (c->now != c->last || c->mispredicts != c->mispredicts_booked)
		cpu_attribute(c);
	--sm->countdown;               /* not due: sampled_fast_next() */
	if (sm->window)
		sampled_window(c, sm);
	c->mlog_on = CPU_LOG_FAST;
	c->mdepth = 1;
	c->fsig = 0;
	c->flock = 0;
	sm->nfl = 0;
}

bool cpu_fast_take(struct cpu *c, int fn)
{
	if (!c->mt || !c->mt->sm || !sampled_fast_next(c, fn))
		return false;
	struct cpu_sampled *sm = c->mt->sm;
	sm->copied++;
	sampled_fast_start(c, sm, fn);
	return true;
}

/* A top-level call of fn in a sampled run: a sample or a plain exact
 * call (false: it runs exactly), or a fast call (true).  A sample is due
 * during the warm-up, at the end of each interval and after a fast call
 * whose path had no sample; a function whose calls read the clock or the
 * counts runs exactly. */
static bool sampled_begin(struct cpu *c, int fn)
{
	struct cpu_sampled *sm = c->mt->sm;
	if (sampled_fast_next(c, fn)) {
		sampled_fast_start(c, sm, fn);
		cpu_copy_call(c, fn);  /* the top-level call's count and term */
		return true;
	}
	sm->calls++;
	if (c->lost)
		return false;
	if (sm->exact_fn[fn]) {
		sm->exact++;
		return false;          /* plain exact: no fast call will use it */
	}
	sm->fn = fn;
	cpu_attribute(c);              /* the cycles before it are not its own */
	/* not fast: due, forced or in the warm-up */
	if (--sm->countdown == 0)
		sm->countdown = sampled_interval(sm);
	sm->force = 0;
	sm->warmup -= sm->warmup > 0;
	if (!sampled_snapshot(c))
		return false;
	sm->samples++;
	sm->tlast = c->now;
	c->sampling = 1;
	sm->cur = -1;
	sm->npart = 0;
	sm->pmark = c->now;
	return false;
}

void cpu_fast_read(struct cpu *c)
{
	struct cpu_sampled *sm = c->mt->sm;
	sm->exact_fn[sm->fn] = 1;
}

/*
 * A fast call whose path has no sample yet: charged its blocks' mean
 * costs (and its function's mean tail), booked where the samples ran
 * them (lost_place()), the rest as the function's own cycles; its
 * branches and calls are counted, nothing else (no cache or mispredict
 * counts).  The next call is a sample.
 */
/* Cycles a fast call of fn is charged beside a path's recorded cost:
 * the clock and the top-level function's total (fast_charge_clock()),
 * and, for those booked nowhere else, its own (fast_charge_own()). */
static void fast_charge_clock(struct cpu *c, int fn, uint64_t cycles)
{
	c->now += cycles;
	c->last = c->now;
	c->prof[fn].total += cycles;
}

void fast_charge_own(struct cpu *c, int fn, uint64_t cycles)
{
	int32_t path = cpu_path_child(c, 0, fn);
	fast_charge_clock(c, fn, cycles);
	c->prof[fn].self += cycles;
	if (path > 0)
		c->path[path].self += cycles;
}

static void sampled_lost(struct cpu *c)
{
	struct cpu_sampled *sm = c->mt->sm;
	int fn = sm->fn;
	sm->lost++;
	sm->force = 1;
	uint64_t tail = sm->tn[fn] ? sm->tsum[fn] / sm->tn[fn] : 0;
	uint64_t est = (c->fsig & ~CPU_SIG_MASK) / 16 + tail;
	/* the blocks and tail the samples saw run go where they ran, the
	 * rest (lock edges, rounding) is the function's own */
	uint64_t placed = lost_place(c, sm, fn, tail);
	assert(placed <= est);
	sm->lost_cycles += est;
	sm->lost_placed += placed;
	fast_charge_own(c, fn, est - placed);
	fast_charge_clock(c, fn, placed);   /* (its self cycles are booked) */
	c->o.slot = c->o.lslot = 0;
}

/* A fast call that found its path: charged that path's latest sample
 * (its counts wait in e->pending for the fold). */
static CPU_INLINE void sampled_charge(struct cpu *c, struct cpu_sampled *sm,
				      struct sampled_entry *e)
{
	c->mlog_on = 0;
	sm->matched++;
	memo_cost_apply(c, &e->cost);
	if (e->pending++ == e->psync)  /* the first since the sync (lost_counts()) */
		sm->slist[sm->nslist++] = (uint32_t)(e - sm->e);
}

/* A fast call's return: the cost of its path's latest sample. */
static void sampled_end(struct cpu *c)
{
	struct cpu_sampled *sm = c->mt->sm;
	uint32_t slot;
	c->mlog_on = 0;
	/* the function's last path first: a top-level function mostly
	 * repeats its path, and the probe's dependent loads were the largest
	 * item of a fast call's end (perf, bench pagealloc) */
	uint64_t sig = c->fsig & CPU_SIG_MASK;
	int32_t id = sm->hit[sm->fn];
	if (id < 0 || sm->e[id].sig != sig)
		id = sampled_find(sm, sm->fn, sig, &slot);
	fast_lock_charge(c, sm->fn, id < 0 ? NULL : &sm->e[id]);
	if (id < 0) {
		sampled_lost(c);
		return;
	}
	sm->hit[sm->fn] = id;
	sampled_charge(c, sm, &sm->e[id]);
}

/* The end of a copy's fast call.  Most find their function's last path
 * again and took no lock: that case is done here, so that it pays none of
 * sampled_end()'s register saves (16 of its 59 host instructions a call
 * in the profile-guided build). */
void cpu_fast_end(struct cpu *c)
{
	assert(c->mlog_on == CPU_LOG_FAST);
	struct cpu_sampled *sm = c->mt->sm;
	int32_t id = sm->hit[sm->fn];
	if (c->flock || id < 0 || sm->e[id].sig != (c->fsig & CPU_SIG_MASK)) {
		sampled_end(c);
		return;
	}
	sampled_charge(c, sm, &sm->e[id]);
}

static void sampled_fold(struct cpu *c)
{
	struct cpu_sampled *sm = c->mt->sm;
	for (uint32_t i = 0; i < sm->nr; i++)
		if (sm->e[i].pending)
			sampled_fold_one(c, &sm->e[i]);
}

/* The fast calls' branch counts (c->fsite) into the sites' executed and
 * taken.  Inside a sample (a count read mid-call) the snapshot moves as
 * much, so that the sample's delta stays its own. */
static void sampled_fold_sites(struct cpu *c)
{
	struct cpu_sampled *sm = c->mt->sm;
	int nr = c->sys->tables->nr_sites;
	/* the counts restart from zero: so does their sync */
	for (uint32_t j = 0; j < sm->nslist; j++)
		sm->e[sm->slist[j]].psync = sm->e[sm->slist[j]].pending;
	sm->nslist = 0;
	for (int i = 0; i < nr; i++) {
		struct cpu_fast_site *f = &sm->fsite[2 * i];
		uint64_t n0 = f[0].n, n1 = f[1].n;
		if (!(n0 | n1))
			continue;
		/* taken: the condition differs from the layout's fall-through */
		uint64_t taken = c->site_layout[i].fallthrough ? n0 : n1;
		f[0].n = f[1].n = 0;
		sm->nb[2 * i] = sm->nb[2 * i + 1] = 0;
		c->site[i].executed += n0 + n1;
		c->site[i].taken += taken;
		if (c->sampling) {
			sm->site0[i].executed += n0 + n1;
			sm->site0[i].taken += taken;
		}
	}
}

/* Every slot names an entry of its signature, every entry is hashed
 * once, nothing waits to be folded, the counts name real counters. */
static int sampled_check(const struct cpu *c)
{
	const struct cpu_sampled *sm = c->mt->sm;
	const struct cost_tables *t = c->sys->tables;
	uint32_t in_hash = 0;
	if (sm->nr > SAMPLED_ENTRIES || c->sampling || !sm->period)
		return NS_EINTERNAL;
	for (uint32_t h = 0; h < SAMPLED_SLOTS; h++) {
		int32_t id = sm->hash[h];
		if (id < -1 || id >= (int32_t)sm->nr)
			return NS_EINTERNAL;
		in_hash += id >= 0;
	}
	for (uint32_t id = 0; id < sm->nr; id++) {
		const struct sampled_entry *e = &sm->e[id];
		if (e->pending || e->fn < 0 || e->fn >= t->nr_fns)
			return NS_EINTERNAL;
		if (!memo_cost_ok(c, &e->cost))
			return NS_EINTERNAL;
	}
	for (int i = 0; i < 2 * t->nr_sites; i++)
		if (sm->fsite[i].n || sm->nb[i] || (sm->fsite[i].term & CPU_SIG_MASK) != sm->stab[i])
			return NS_EINTERNAL;
	if (sm->nslist)
		return NS_EINTERNAL;
	for (uint32_t id = 0; id < sm->nr; id++)
		if (sm->e[id].psync != sm->e[id].pending)
			return NS_EINTERNAL;
	if (ctx_check(c, sm))
		return NS_EINTERNAL;
	for (int i = 0; i < t->nr_fns; i++)
		if (sm->hit[i] >= (int32_t)sm->nr || (sm->hit[i] >= 0 && sm->e[sm->hit[i]].fn != i))
			return NS_EINTERNAL;
	return in_hash == sm->nr ? NS_OK : NS_EINTERNAL;
}

static void sampled_stats_add(const struct cpu_sampled *sm, struct cpu_memo_stats *st)
{
	st->sampled = 1;
	st->calls += sm->calls;
	st->fast += sm->fast;
	st->matched += sm->matched;
	st->lost += sm->lost;
	st->samples += sm->samples;
	st->exact += sm->exact;
	st->copied += sm->copied;
	st->warmed += sm->warmed;
	st->paths += sm->nr;
	st->lock_path += sm->lock_path;
	st->lock_site += sm->lock_site;
	st->lock_remote += sm->lock_remote;
	st->lock_own += sm->lock_own;
	st->lost_cycles += sm->lost_cycles;
	st->lost_placed += sm->lost_placed;
	st->lost_calls_booked += sm->lost_calls_booked;
}

/* --- the engine's hooks (struct cpu_acct_ops, cpu_internal.h) ----------- */

/* The table (struct cpu_memo, for its counts' home) and the samples'. */
static int sampled_engine_init(struct cpu *c, const struct cpu_params *p)
{
	struct cpu_memo *m = calloc(1, sizeof *m);
	c->mt = m;
	if (!m)
		return NS_ENOMEM;
	c->memo = 1;
	return sampled_init(c, p);
}

static void sampled_engine_free(struct cpu *c)
{
	if (c->mt)
		sampled_free(c);
	cpu_memo_free(c);
}

/* Forget every path (their pending counts folded first). */
static void sampled_clear(struct cpu *c)
{
	if (!c->mt)
		return;
	cpu_memo_fold(c);
	sampled_forget(c->mt->sm, c->sys->tables);
}

static void sampled_engine_fold(struct cpu *c)
{
	if (!c->mt)
		return;
	sampled_fold(c);
	sampled_fold_sites(c);
}

static int sampled_engine_check(const struct cpu *c)
{
	if (!c->mt)
		return c->memo || c->mlog_on ? NS_EINTERNAL : NS_OK;
	return c->mlog_on ? NS_EINTERNAL : sampled_check(c);
}

static void sampled_stats(const struct cpu *c, struct cpu_memo_stats *st)
{
	sampled_stats_add(c->mt->sm, st);
}

const struct cpu_acct_ops cpu_acct_sampled = {
	.name = "sampled",
	.init = sampled_engine_init,
	.free = sampled_engine_free,
	.clear = sampled_clear,
	.begin = sampled_begin,
	.end = sampled_end,
	.fold = sampled_engine_fold,
	.check = sampled_engine_check,
	.stats = sampled_stats,
};
