/*
 * cpu_memo — memoized paths (cost.accounting memo): the accounting engine
 * that logs a top-level call and replays the recorded cost of a path seen
 * before (design notes below), and the table and out-of-order state
 * helpers sampled accounting (cost/cpu_sampled.c) shares.
 */
#include "cost/cpu_internal.h"

#include <assert.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/diag.h"

/* --- memoized paths (cost.accounting memo) ---------------------------- */

/*
 * Design notes.  A top-level call (an out-of-line call at stack depth 0)
 * is logged as a sequence of events, one per primitive (cpu.h), its
 * memory accesses performed at once.  At its return memo_predict() runs
 * the predictor over the logged branches as the exact run would (its
 * state stays exact) and the log, the start state and the mispredict
 * bits are looked up in the table of paths; a path found is replayed:
 * the clock, the RSB and the ooo core state move to the recorded ones,
 * and the path's counts (counters, sites, functions, call paths) wait in
 * the entry until an export folds them in (pending x delta).  A path not
 * found is accounted exactly by replaying its events through the
 * primitives (branches with the predictions already made), with a
 * snapshot before and after that gives its delta.  Every
 * CPU_MEMO_VERIFY-th replay of a path is accounted exactly again and
 * must give the recorded cost (counted as a mismatch otherwise; the tests
 * require none).  The shortcut: a path whose last prediction changed no
 * predictor entry (bpred's dirty flag) from global history h0 and left
 * h1 skips the predictor while the history is h0 and nothing changed
 * since, and sets the history to h1; this is what makes memo fast on the
 * allocator's paths, where the predictor is saturated.  Costs while
 * logging: a word per event; at the return one memcmp of the log.
 */

#define MEMO_HASH_SLOTS (2 * CPU_MEMO_ENTRIES)
#define MEMO_SHORT_SLOTS 8192
/* Where calls seldom repeat a path (locks, clock reads, paths that vary
 * with the data), logging only adds its cost: when fewer than three
 * quarters of a window's top-level calls were replayed, the next ones run exactly
 * without a log, MEMO_SKIP of them, twice as many after each further
 * poor window (up to MEMO_SKIP_MAX), MEMO_SKIP again after a good one.
 * Results do not depend on it. */
#define MEMO_WINDOW 256
#define MEMO_SKIP 4096
#define MEMO_SKIP_MAX (1u << 22)

static int cpu_memo_init(struct cpu *c, const struct cpu_params *p)
{
	(void)p;                       /* (sampled's init reads it) */
	const struct cost_tables *t = c->sys->tables;
	struct cpu_memo *m = calloc(1, sizeof *m);
	c->mt = m;
	if (!m)
		return NS_ENOMEM;
	c->mlog = malloc(CPU_MEMO_LOG * sizeof *c->mlog);
	m->e = calloc(CPU_MEMO_ENTRIES, sizeof *m->e);
	m->hash = malloc(MEMO_HASH_SLOTS * sizeof *m->hash);
	m->site_mark = calloc((size_t)t->nr_sites + 1, sizeof *m->site_mark);
	m->fn_mark = calloc((size_t)t->nr_fns + 1, sizeof *m->fn_mark);
	m->short_key = calloc(MEMO_SHORT_SLOTS, sizeof *m->short_key);
	m->short_id = malloc(MEMO_SHORT_SLOTS * sizeof *m->short_id);
	if (!c->mlog || !m->e || !m->hash || !m->site_mark || !m->fn_mark || !m->short_key ||
	    !m->short_id)
		return NS_ENOMEM;
	for (uint32_t i = 0; i < MEMO_SHORT_SLOTS; i++)
		m->short_id[i] = -1;
	for (uint32_t i = 0; i < MEMO_HASH_SLOTS; i++)
		m->hash[i] = -1;
	m->backoff = MEMO_SKIP;
	c->memo = 1;
	return NS_OK;
}

void cpu_memo_free(struct cpu *c)
{
	struct cpu_memo *m = c->mt;
	free(c->mlog);
	c->mlog = NULL;
	if (!m)
		return;
	for (uint32_t i = 0; m->e && i < m->nr; i++) {
		free(m->e[i].ev);
		free(m->e[i].cost.items);
	}
	free(m->e);
	free(m->hash);
	free(m->short_key);
	free(m->short_id);
	free(m->site_mark);
	free(m->fn_mark);
	free(m->path_mark);
	free(m->scratch);
	free(m);
	c->mt = NULL;
	c->memo = 0;
	c->fcopy = 0;
}

/*
 * The out-of-order core's state as a call's cost can depend on it
 * besides its events (cost.model ooo): the open chain, the fill buffers'
 * completions (as a multiset: which buffer holds which does not change
 * any cost), the tracked long ops (uops since, completion, load), all
 * relative to the clock and uop count.  A time at or before the last
 * dispatch cycle is 0: nothing can wait for it any more.  Words into w;
 * 0 words in-order; -1 when a time is too far ahead to encode.
 */

static uint64_t memo_rel(const struct cpu *c, uint64_t t, uint64_t x)
{
	return x > t ? x - c->now + 1 : 0;
}

int memo_ooo_state(const struct cpu *c, uint64_t *w)
{
	if (!c->ooo)
		return 0;
	const struct cpu_ooo *o = &c->o;
	uint64_t t = cpu_ooo_last_cycle(c), fb[CPU_OOO_MAX_MLP];
	int k = 0;
	w[k++] = memo_rel(c, t, o->chain);
	for (uint32_t i = 0; i < o->mlp; i++) {
		/* insertion sort, descending: a dozen buffers */
		uint64_t v = memo_rel(c, t, o->miss[i]);
		uint32_t j = i;
		for (; j > 0 && fb[j - 1] < v; j--)
			fb[j] = fb[j - 1];
		fb[j] = v;
	}
	for (uint32_t i = 0; i < o->mlp; i++)
		w[k++] = fb[i];
	w[k++] = o->n;
	for (uint32_t i = 0; i < o->n; i++) {
		uint32_t r = (o->head + i) % CPU_OOO_RING;
		uint64_t since = o->pos - o->rpos[r], done = memo_rel(c, t, o->rdone[r]);
		if (since >= MEMO_REL_MAX || done >= MEMO_REL_MAX)
			return -1;
		w[k++] = since << 24 | done << 1 | o->rload[r];
	}
	if (w[0] >= MEMO_REL_MAX || fb[0] >= MEMO_REL_MAX)
		return -1;
	for (int i = 0; i < k; i++)
		w[i] = CPU_EV(CPU_EV_STATE, w[i]);
	return k;
}

/* memo_rel() undone: 0 (done) stays 0. */
static uint64_t memo_abs(const struct cpu *c, uint64_t v)
{
	return v ? c->now + v - 1 : 0;
}

/* Whether the n words of state memo_ooo_state() wrote leave nothing
 * pending: every time 0 (done) and no long op. */
uint8_t memo_ooo_idle(const uint64_t *w, uint32_t n)
{
	uint64_t any = 0;
	for (uint32_t i = 0; i < n; i++)
		any |= w[i] >> 4;
	return n && !any;
}

/* memo_ooo_restore() of an idle state (memo_ooo_idle()). */
void memo_ooo_clear(struct cpu *c)
{
	struct cpu_ooo *o = &c->o;
	o->chain = 0;
	memset(o->miss, 0, o->mlp * sizeof *o->miss);
	o->n = o->head = o->loads = 0;
}

/* The state memo_ooo_state() wrote, back at the current clock and uop count. */
void memo_ooo_restore(struct cpu *c, const uint64_t *w)
{
	struct cpu_ooo *o = &c->o;
	uint32_t k = 0;
	o->chain = memo_abs(c, w[k++] >> 4);
	for (uint32_t i = 0; i < o->mlp; i++)
		o->miss[i] = memo_abs(c, w[k++] >> 4);
	o->n = (uint32_t)(w[k++] >> 4);
	o->head = 0;
	o->loads = 0;
	for (uint32_t i = 0; i < o->n; i++) {
		uint64_t v = w[k++] >> 4;
		o->rpos[i] = o->pos - (v >> 24);
		o->rdone[i] = memo_abs(c, v >> 1 & (MEMO_REL_MAX - 1));
		o->rload[i] = v & 1;
		o->loads += v & 1;
	}
}

static uint32_t memo_start_state(const struct cpu *c)
{
	return c->rsb | c->o.slot << 8 | c->o.lslot << 16;
}

static bool memo_begin(struct cpu *c, int fn)
{
	struct cpu_memo *m = c->mt;
	m->calls++;
	if (m->skip) {
		m->skip--;
		m->skipped++;
		return false;
	}
	if (++m->win == MEMO_WINDOW) {
		if (m->win_replayed * 4 < 3 * MEMO_WINDOW) {
			m->skip = m->backoff;
			m->backoff = m->backoff < MEMO_SKIP_MAX ? 2 * m->backoff : MEMO_SKIP_MAX;
		} else {
			m->backoff = MEMO_SKIP;
		}
		m->win = m->win_replayed = 0;
	}
	if (c->lost || m->nr >= CPU_MEMO_ENTRIES)
		return false;
	int k = memo_ooo_state(c, c->mlog + 1);
	if (k < 0)
		return false;
	/* what the exact call would book first: the cycles before it */
	cpu_attribute(c);
	m->start = memo_start_state(c);
	c->mlog_on = 1;
	c->mdepth = 1;
	c->mlog_n = 1 + (uint32_t)k;
	c->mlog[0] = CPU_EV(CPU_EV_CALL, fn);
	return true;
}

/* Account events [0, n) of the log exactly, through the primitives;
 * record: snapshot the call paths entered (for the delta). */
static void memo_path_mark(struct cpu *c);
static void memo_replay(struct cpu *c, bool record, const uint64_t *miss)
{
	uint32_t n = c->mlog_n, b = 0, worst = 0;
	bool all_l1 = true;
	const uint64_t *ev = c->mlog;
	c->mlog_on = 0;
	c->memo = 0;                   /* the replayed top-level call is not logged */
	for (uint32_t i = 0; i < n; i++) {
		uint64_t a = ev[i] >> 4;
		switch ((enum cpu_event)(ev[i] & 15)) {
		case CPU_EV_BRANCH:
			if (miss) {
				/* the predictor has seen this branch (memo_predict) */
				int site = (int)(a >> 1);
				unsigned taken = (unsigned)(a & 1) ^ c->site_layout[site].fallthrough;
				cpu_branch_account(c, site, taken, (miss[b / 64] >> b % 64) & 1);
				b++;
			} else {
				cpu_branch(c, (int)(a >> 1), a & 1);
			}
			break;
		case CPU_EV_CALL:
			cpu_call(c, (int)a);
			if (record)
				memo_path_mark(c);
			break;
		case CPU_EV_RET:
			cpu_ret(c);
			break;
		case CPU_EV_INSNS:
			cpu_insns(c, (uint32_t)a);
			break;
		case CPU_EV_WORK:
			cpu_work(c, (uint32_t)a);
			break;
		case CPU_EV_MEM:
			cpu_mem_l1_again(c, (enum cpu_access)a);
			break;
		case CPU_EV_LINE: {
			enum cache_src src = (enum cache_src)(a & 7);
			uint32_t lat = line_cost(c, src, (int)(a >> 3 & 0x1FFFFF) - 1, (int)(a >> 24));
			all_l1 &= src == CACHE_SRC_L1;
			worst = lat > worst ? lat : worst;
			break;
		}
		case CPU_EV_CHARGE:
			mem_charge(c, (enum cpu_access)a, all_l1, worst);
			all_l1 = true;
			worst = 0;
			break;
		case CPU_EV_ATOMIC:
			atomic_logged(c, (enum cache_src)(a & 7), (int)(a >> 3 & 0x1FFFFF) - 1,
				      (int)(a >> 24));
			break;
		case CPU_EV_STATE:
			break;
		case CPU_EV_IRQ_SAVE:
			cpu_irq_save(c);
			break;
		case CPU_EV_IRQ_RESTORE:
			cpu_irq_restore(c);
			break;
		case CPU_EV_CMPXCHG:
			cpu_this_cpu_cmpxchg(c);
			break;
		}
	}
	c->mlog_n = 0;
	c->memo = 1;
}

void cpu_memo_break(struct cpu *c)
{
	c->mt->broken++;
	memo_replay(c, false, NULL);
}

/*
 * The predictor's verdict on every logged branch, in order, with the
 * predictor trained as the exact run would train it (its state stays
 * exact): bit b of m->miss is branch b's mispredict.  A path's cost is
 * a function of its events, its start state and these bits.
 */
static void memo_predict(struct cpu *c)
{
	struct cpu_memo *m = c->mt;
	uint32_t b = 0;
	memset(m->miss, 0, ((size_t)c->mlog_n / 64 + 1) * sizeof *m->miss);
	for (uint32_t i = 0; i < c->mlog_n; i++) {
		uint64_t ev = c->mlog[i];
		if ((ev & 15) != CPU_EV_BRANCH)
			continue;
		int site = (int)(ev >> 5);
		const struct cost_site_layout *sl = &c->site_layout[site];
		unsigned taken = (unsigned)(ev >> 4 & 1) ^ sl->fallthrough;
		unsigned miss = bpred_predict_update(&c->bp, site, sl->static_taken, taken) ^ taken;
		m->miss[b / 64] |= (uint64_t)miss << b % 64;
		b++;
	}
	m->miss_words = (b + 63) / 64;
	m->nbr = b;
}

static uint64_t memo_key(uint32_t start, const uint64_t *ev, uint32_t n,
			 const uint64_t *miss, uint32_t words)
{
	uint64_t h = (uint64_t)start * 0x9E3779B97F4A7C15u ^ n;
	for (uint32_t i = 0; i < words; i++)
		h = (h ^ miss[i]) * 0xFF51AFD7ED558CCDu;
	/* a few events spread over the log: the memcmp decides */
	for (uint32_t k = 1; k <= 4; k++) {
		h ^= ev[(uint64_t)n * k / 5];
		h *= 0xFF51AFD7ED558CCDu;
		h ^= h >> 29;
	}
	h ^= ev[n - 1];
	h *= 0xC4CEB9FE1A85EC53u;
	return h ^ h >> 32;
}

/* The entry of this log, or -1; *slot: where a new one would go. */
static int32_t memo_find(const struct cpu_memo *m, uint64_t key, uint32_t start,
			 const uint64_t *ev, uint32_t n, uint32_t *slot)
{
	uint32_t h = (uint32_t)key & (MEMO_HASH_SLOTS - 1);
	for (;; h = (h + 1) & (MEMO_HASH_SLOTS - 1)) {
		int32_t id = m->hash[h];
		if (id < 0) {
			*slot = h;
			return -1;
		}
		const struct memo_entry *e = &m->e[id];
		if (e->key == key && e->start == start && e->nev == n &&
		    !memcmp(e->ev, ev, (size_t)n * sizeof *ev) &&
		    !memcmp(e->ev + n, m->miss, m->miss_words * sizeof *ev))
			return id;
	}
}

/* The (up to) three counts an item stands for; unused ones point at
 * spare, whose values nobody reads. */
void memo_target(struct cpu *c, uint32_t what, uint32_t idx, uint64_t *p[3],
		 uint64_t spare[2])
{
	p[1] = &spare[0];
	p[2] = &spare[1];
	switch (what) {
	case MI_CTR:
		p[0] = &c->ctr[idx];
		break;
	case MI_OUTSIDE:
		p[0] = &c->outside;
		break;
	case MI_SITE:
		p[0] = &c->site[idx].executed;
		p[1] = &c->site[idx].taken;
		p[2] = &c->site[idx].mispredicted;
		break;
	case MI_FN:
		p[0] = &c->prof[idx].calls;
		p[1] = &c->prof[idx].self;
		p[2] = &c->prof[idx].total;
		break;
	default:                       /* MI_PATH */
		p[0] = &c->path[idx].calls;
		p[1] = &c->path[idx].self;
		p[2] = &c->path[idx].mispredicts;
		break;
	}
}

/* A new item of the snapshot, holding the counts it stands for now;
 * NULL when out of memory. */
static struct memo_item *memo_snap_item(struct cpu *c, uint32_t what, uint32_t idx);

struct memo_item *memo_item(struct cpu_memo *m, uint32_t what, uint32_t idx)
{
	if (m->nscratch == m->cscratch) {
		uint32_t cap = m->cscratch ? 2 * m->cscratch : 256;
		struct memo_item *p = realloc(m->scratch, cap * sizeof *p);
		if (!p)
			return NULL;
		m->scratch = p;
		m->cscratch = cap;
	}
	struct memo_item *it = &m->scratch[m->nscratch++];
	*it = (struct memo_item){.what = what, .idx = idx};
	return it;
}

static struct memo_item *memo_snap_item(struct cpu *c, uint32_t what, uint32_t idx)
{
	struct memo_item *it = memo_item(c->mt, what, idx);
	if (it) {
		uint64_t *p[3], spare[2] = {0, 0};
		memo_target(c, what, idx, p, spare);
		for (int j = 0; j < 3; j++)
			it->v[j] = *p[j];
	}
	return it;
}

/* Snapshot of the path just entered (before this call's counts but its
 * own entry: calls - 1), once per exact run. */
static void memo_path_mark(struct cpu *c)
{
	struct cpu_memo *m = c->mt;
	uint32_t p = (uint32_t)c->cur_path;
	if (p == 0)
		return;                        /* snapshot with the others */
	if (p >= m->path_marks) {
		uint32_t cap = c->cap_paths > p ? c->cap_paths : p + 1;
		uint32_t *pm = realloc(m->path_mark, cap * sizeof *pm);
		if (!pm) {
			m->snap_bad = 1;       /* its counts would be missing */
			return;
		}
		memset(pm + m->path_marks, 0, (cap - m->path_marks) * sizeof *pm);
		m->path_mark = pm;
		m->path_marks = cap;
	}
	if (m->path_mark[p] == m->epoch)
		return;
	m->path_mark[p] = m->epoch;
	struct memo_item *it = memo_snap_item(c, MI_PATH, p);
	m->snap_bad |= !it;
	if (it)
		it->v[0]--;                    /* its own entry is this call's */
}

/* Before an exact run: snapshot the counts the logged call can move. */
static bool memo_snapshot(struct cpu *c)
{
	struct cpu_memo *m = c->mt;
	if (++m->epoch == 0) {
		/* the marks wrapped: clear them */
		memset(m->site_mark, 0, ((size_t)c->sys->tables->nr_sites + 1) * sizeof *m->site_mark);
		memset(m->fn_mark, 0, ((size_t)c->sys->tables->nr_fns + 1) * sizeof *m->fn_mark);
		if (m->path_mark)
			memset(m->path_mark, 0, m->path_marks * sizeof *m->path_mark);
		m->epoch = 1;
	}
	m->nscratch = 0;
	m->snap_bad = 0;
	memcpy(m->ctr0, c->ctr, sizeof m->ctr0);
	if (!memo_snap_item(c, MI_OUTSIDE, 0))
		return false;
	for (uint32_t i = 0; i < c->mlog_n; i++) {
		uint64_t ev = c->mlog[i], a = ev >> 4;
		if ((ev & 15) == CPU_EV_BRANCH && m->site_mark[a >> 1] != m->epoch) {
			m->site_mark[a >> 1] = m->epoch;
			if (!memo_snap_item(c, MI_SITE, (uint32_t)(a >> 1)))
				return false;
		} else if ((ev & 15) == CPU_EV_CALL && m->fn_mark[a] != m->epoch) {
			m->fn_mark[a] = m->epoch;
			if (!memo_snap_item(c, MI_FN, (uint32_t)a))
				return false;
		}
	}
	/* the root path (cycles outside any out-of-line function) */
	return memo_snap_item(c, MI_PATH, 0) != NULL;
}

/* After the exact run: the snapshot's items become deltas (zero ones
 * dropped), then the counters'. */
static bool memo_delta(struct cpu *c, struct memo_cost *k)
{
	struct cpu_memo *m = c->mt;
	uint32_t n = 0, nsnap = m->nscratch;
	for (uint32_t i = 0; i < nsnap; i++) {
		struct memo_item it = m->scratch[i];
		uint64_t *p[3], spare[2] = {0, 0};
		memo_target(c, it.what, it.idx, p, spare);
		for (int j = 0; j < 3; j++)
			it.v[j] = *p[j] - it.v[j];
		if (it.v[0] | it.v[1] | it.v[2])
			m->scratch[n++] = it;
	}
	m->nscratch = n;
	for (uint32_t id = 0; id < CPU_NR_COUNTERS; id++) {
		if (c->ctr[id] == m->ctr0[id])
			continue;
		struct memo_item *it = memo_item(m, MI_CTR, id);
		if (!it)
			return false;
		it->v[0] = c->ctr[id] - m->ctr0[id];
		it->v[1] = it->v[2] = 0;
	}
	k->nitems = m->nscratch;
	k->items = m->scratch;
	return true;
}

static bool memo_cost_equal(const struct memo_cost *a, const struct memo_cost *b)
{
	return a->dnow == b->dnow && a->dpos == b->dpos && a->dmisp == b->dmisp &&
	       a->slot == b->slot && a->nend == b->nend &&
	       !memcmp(a->end, b->end, a->nend * sizeof *a->end) &&
	       a->lslot == b->lslot && a->rsb == b->rsb && a->nitems == b->nitems &&
	       !memcmp(a->items, b->items, a->nitems * sizeof *a->items);
}

static void memo_apply(struct cpu *c, struct memo_entry *e)
{
	memo_cost_apply(c, &e->cost);
	e->pending++;
}

/* Account the logged call exactly and record its cost in entry id (or a
 * new entry at hash slot). */
static int32_t memo_record(struct cpu *c, int32_t id, uint32_t slot, uint64_t key)
{
	struct cpu_memo *m = c->mt;
	uint32_t n = c->mlog_n;
	struct memo_cost k = {0};
	uint64_t now0 = c->now, pos0 = c->o.pos, misp0 = c->mispredicts;
	bool snap = memo_snapshot(c);
	if (id < 0 && snap) {
		/* keep the events and predictions before the replay consumes
		 * the log */
		size_t bytes = ((size_t)n + m->miss_words) * sizeof *c->mlog;
		uint64_t *ev = m->bytes + bytes <= CPU_MEMO_BYTES ? malloc(bytes) : NULL;
		if (ev) {
			memcpy(ev, c->mlog, (size_t)n * sizeof *c->mlog);
			memcpy(ev + n, m->miss, m->miss_words * sizeof *ev);
			id = (int32_t)m->nr++;
			m->e[id] = (struct memo_entry){.key = key, .start = m->start, .nev = n,
						       .nmiss = m->miss_words, .ev = ev};
			m->hash[slot] = id;
			m->bytes += bytes;
		}
	}
	memo_replay(c, snap, m->miss);
	m->exact++;
	/* the cycles up to here are the call's (as cpu_sample_end() says:
	 * an inlined top-level function leaves its last ones unattributed,
	 * and a replay would move the clock by them and put them nowhere);
	 * the exact run puts them where this puts them, on the same attr */
	cpu_attribute(c);
	int nend = memo_ooo_state(c, k.end);
	if (id < 0 || !snap || m->snap_bad || nend < 0 || !memo_delta(c, &k))
		return -1;
	k.nend = (uint32_t)nend;
	k.idle = memo_ooo_idle(k.end, k.nend);
	k.dnow = c->now - now0;
	k.dpos = c->o.pos - pos0;
	k.dmisp = c->mispredicts - misp0;
	k.slot = c->o.slot;
	k.lslot = c->o.lslot;
	k.rsb = c->rsb;
	struct memo_entry *e = &m->e[id];
	if (e->cost.items && memo_cost_equal(&e->cost, &k)) {
		e->stable = 1;
		e->left = CPU_MEMO_VERIFY;
		return id;
	}
	/* a first cost; or a verification that found another one for the
	 * same events, start and predictions, which the design rules out
	 * (counted: the tests require none) */
	m->mismatch += e->cost.items != NULL;
	size_t bytes = k.nitems * sizeof *k.items;
	size_t old = e->cost.nitems * sizeof *e->cost.items;
	if (m->bytes - old + bytes > CPU_MEMO_BYTES) {
		e->stable = 0;
		return -1;
	}
	cpu_memo_fold(c);              /* the pending replays had the old cost */
	struct memo_item *items = realloc(e->cost.items, bytes ? bytes : 1);
	if (!items) {
		e->stable = 0;
		return -1;
	}
	memcpy(items, k.items, bytes);
	m->bytes = m->bytes - old + bytes;
	e->cost = k;
	e->cost.items = items;
	e->stable = 1;
	e->left = CPU_MEMO_VERIFY;
	return id;
}

/* The shortcut's key: start state, events and the global history. */
static uint64_t memo_short_key(uint32_t start, const uint64_t *ev, uint32_t n,
			       const struct bpred *bp)
{
	uint64_t h = bp->ghist ^ (uint64_t)bp->hist << 32;
	return memo_key(start, ev, n, &h, 1) | 1;
}

/* The shortcut applies: same history, nothing changed in the predictor
 * since the entry's last (pure) prediction, and TAGE's usefulness decay
 * not due within the path. */
static bool memo_short_ok(const struct cpu *c, const struct memo_entry *e)
{
	const struct bpred *bp = &c->bp;
	return e->pure && e->epoch == c->mt->pepoch && bpred_hist_same(bp, &e->h0) &&
	       (bp->mode != BPRED_TAGE || bp->updates + e->nbr < BPRED_TAGE_U_PERIOD);
}

static void memo_end(struct cpu *c)
{
	struct cpu_memo *m = c->mt;
	struct bpred *bp = &c->bp;
	uint32_t n = c->mlog_n, slot = 0;
	c->mlog_on = 0;
	/* the predictor changes since the last top-level call */
	m->pepoch += bp->dirty;
	bp->dirty = 0;
	uint64_t k2 = memo_short_key(m->start, c->mlog, n, bp);
	uint32_t s2 = (uint32_t)k2 & (MEMO_SHORT_SLOTS - 1);
	int32_t id = m->short_key[s2] == k2 ? m->short_id[s2] : -1;
	if (id >= 0) {
		struct memo_entry *e = &m->e[id];
		if (memo_short_ok(c, e) && e->stable && e->left && e->start == m->start &&
		    e->nev == n && !memcmp(e->ev, c->mlog, (size_t)n * sizeof *c->mlog)) {
			/* the predictor would predict as last time and change
			 * nothing but its history (and TAGE's update count) */
			e->left--;
			bpred_hist_set(bp, &e->h1);
			m->shortcut++;
			if (bp->mode == BPRED_TAGE)
				bp->updates += e->nbr;
			memo_apply(c, e);
			c->mlog_n = 0;
			m->replayed++;
			m->win_replayed++;
			return;
		}
	}
	struct bpred_hist h0;
	bpred_hist_get(bp, &h0);
	memo_predict(c);
	uint64_t key = memo_key(m->start, c->mlog, n, m->miss, m->miss_words);
	id = memo_find(m, key, m->start, c->mlog, n, &slot);
	if (id >= 0 && m->e[id].stable && m->e[id].left) {
		m->e[id].left--;
		memo_apply(c, &m->e[id]);
		c->mlog_n = 0;
		m->replayed++;
		m->win_replayed++;
	} else {
		if (id >= 0 && m->e[id].stable)
			m->verified++;
		id = memo_record(c, id, slot, key);
	}
	if (id >= 0) {
		struct memo_entry *e = &m->e[id];
		e->pure = !bp->dirty;
		e->nbr = m->nbr;
		e->h0 = h0;
		bpred_hist_get(bp, &e->h1);
		m->pepoch += bp->dirty;
		bp->dirty = 0;
		e->epoch = m->pepoch;
		if (e->pure) {
			m->short_key[s2] = k2;
			m->short_id[s2] = id;
		}
	}
}

static void memo_fold(struct cpu *c)
{
	struct cpu_memo *m = c->mt;
	if (!m)
		return;
	for (uint32_t i = 0; i < m->nr; i++) {
		struct memo_entry *e = &m->e[i];
		uint64_t r = e->pending;
		if (!r)
			continue;
		e->pending = 0;
		for (uint32_t j = 0; j < e->cost.nitems; j++) {
			const struct memo_item *it = &e->cost.items[j];
			uint64_t *p[3], spare[2] = {0, 0};
			memo_target(c, it->what, it->idx, p, spare);
			for (int v = 0; v < 3; v++)
				*p[v] += r * it->v[v];
		}
	}
}

/* Every count of cost k names a real counter, site, function or path. */
bool memo_cost_ok(const struct cpu *c, const struct memo_cost *k)
{
	const struct cost_tables *t = c->sys->tables;
	for (uint32_t j = 0; j < k->nitems; j++) {
		const struct memo_item *it = &k->items[j];
		uint32_t lim = it->what == MI_CTR    ? CPU_NR_COUNTERS
			       : it->what == MI_SITE ? (uint32_t)t->nr_sites
			       : it->what == MI_FN   ? (uint32_t)t->nr_fns
			       : it->what == MI_PATH ? c->nr_paths
						     : 1;
		if (it->what > MI_OUTSIDE || it->idx >= lim)
			return false;
	}
	return true;
}

/* The table's invariants: every hash slot and shortcut names an entry
 * whose key hashes there (the shortcut: any entry), every entry is in
 * the hash once, its events fit the log, its counts name real counters,
 * sites, functions and paths, and its bytes are accounted. */
static int memo_check(const struct cpu *c)
{
	const struct cpu_memo *m = c->mt;
	if (!m)
		return c->memo || c->mlog_on ? NS_EINTERNAL : NS_OK;
	if (m->nr > CPU_MEMO_ENTRIES || c->mlog_on)
		return NS_EINTERNAL;
	uint32_t in_hash = 0;
	size_t bytes = 0;
	for (uint32_t h = 0; h < MEMO_HASH_SLOTS; h++) {
		int32_t id = m->hash[h];
		if (id < -1 || id >= (int32_t)m->nr)
			return NS_EINTERNAL;
		in_hash += id >= 0;
	}
	for (uint32_t i = 0; i < MEMO_SHORT_SLOTS; i++)
		if (m->short_id[i] < -1 || m->short_id[i] >= (int32_t)m->nr)
			return NS_EINTERNAL;
	for (uint32_t id = 0; id < m->nr; id++) {
		const struct memo_entry *e = &m->e[id];
		if (!e->ev || e->nev < 2 || e->nev > CPU_MEMO_LOG || e->pending)
			return NS_EINTERNAL;
		bytes += ((size_t)e->nev + e->nmiss) * sizeof *e->ev;
		bytes += e->cost.nitems * sizeof *e->cost.items;
		if (!memo_cost_ok(c, &e->cost))
			return NS_EINTERNAL;
	}
	return in_hash == m->nr && bytes == m->bytes ? NS_OK : NS_EINTERNAL;
}

/* Forget every path (their pending counts folded first). */
static void memo_clear(struct cpu *c)
{
	struct cpu_memo *m = c->mt;
	if (!m)
		return;
	cpu_memo_fold(c);
	for (uint32_t i = 0; i < m->nr; i++) {
		free(m->e[i].ev);
		free(m->e[i].cost.items);
	}
	memset(m->e, 0, CPU_MEMO_ENTRIES * sizeof *m->e);
	m->nr = 0;
	m->bytes = 0;
	for (uint32_t i = 0; i < MEMO_HASH_SLOTS; i++)
		m->hash[i] = -1;
	for (uint32_t i = 0; i < MEMO_SHORT_SLOTS; i++)
		m->short_id[i] = -1;
}

void cpu_memo_stats_format(const struct cpu_memo_stats *st, char *buf, size_t n)
{
	if (st->sampled) {
		char win[64] = "";     /* only under cost.sample_window */
		if (st->warmed)
			snprintf(win, sizeof win, ", %" PRIu64 " warmed before a sample",
				 st->warmed);
		int k = snprintf(buf, n,
			 "%" PRIu64 " of %" PRIu64 " top-level calls fast (%" PRIu64 " in the models' "
			 "fast copy%s), %" PRIu64 " samples, %" PRIu64
			 " exact (their function reads the clock), %" PRIu64 " paths; %.2f %% of the "
			 "fast ones charged their path's latest sample, %" PRIu64
			 " (a path not sampled yet) its blocks' mean costs (%.1f %% of those "
			 "cycles booked to the functions that ran the blocks, the paths of "
			 "%.1f %% of those calls counted)",
			 st->fast, st->calls, st->copied, win, st->samples, st->exact, st->paths,
			 st->fast ? 100.0 * (double)st->matched / (double)st->fast : 0.0, st->lost,
			 st->lost_cycles ? 100.0 * (double)st->lost_placed / (double)st->lost_cycles
					 : 0.0,
			 st->lost ? 100.0 * (double)st->lost_calls_booked / (double)st->lost : 0.0);
		double lk = (double)(st->lock_path + st->lock_site + st->lock_remote +
				     st->lock_own);
		if (lk > 0 && k > 0 && (size_t)k < n)
			snprintf(buf + k, n - (size_t)k,
				 "; their lock waits and transfers, %.1f M cycles, booked "
				 "%.1f %% where their path's sample took a lock, %.1f %% where "
				 "other samples of their function took one (their path has no "
				 "sample, or its sample took no lock of that class), %.1f %% "
				 "where another CPU's did (none on theirs yet), %.1f %% "
				 "as the top-level function's own",
				 lk / 1e6, 100.0 * (double)st->lock_path / lk,
				 100.0 * (double)st->lock_site / lk,
				 100.0 * (double)st->lock_remote / lk, 100.0 * (double)st->lock_own / lk);
		return;
	}
	snprintf(buf, n,
		 "%.2f %% of %" PRIu64 " top-level calls replayed (%.2f %% without the predictor), %"
		 PRIu64 " paths, %" PRIu64 " verifications, %" PRIu64 " broken off, %" PRIu64
		 " not logged",
		 st->calls ? 100.0 * (double)st->replayed / (double)st->calls : 0.0, st->calls,
		 st->calls ? 100.0 * (double)st->shortcut / (double)st->calls : 0.0, st->paths,
		 st->verified, st->broken, st->skipped);
}

/* Memo's counts (cpu_memo_stats(), cost/cpu.c). */
static void memo_stats(const struct cpu *c, struct cpu_memo_stats *st)
{
	const struct cpu_memo *m = c->mt;
	st->calls += m->calls;
	st->skipped += m->skipped;
	st->replayed += m->replayed;
	st->shortcut += m->shortcut;
	st->exact += m->exact;
	st->verified += m->verified;
	st->broken += m->broken;
	st->mismatch += m->mismatch;
	st->paths += m->nr;
}

const struct cpu_acct_ops cpu_acct_memo = {
	.name = "memo",
	.init = cpu_memo_init,
	.free = cpu_memo_free,
	.clear = memo_clear,
	.begin = memo_begin,
	.end = memo_end,
	.fold = memo_fold,
	.check = memo_check,
	.stats = memo_stats,
};
