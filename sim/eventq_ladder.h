/*
 * eventq_ladder — a ladder queue over (time, seq) keys, the engine's
 * pending-event structure; a private header of the eventq module, included
 * by eventq.c and bench/bench_eventq.c.  Defines struct lq_heap (named like the
 * heaps so the benchmark instantiates all of them alike) and static
 * functions lq_init, lq_fini, lq_push, lq_pop, lq_peek, lq_size and
 * lq_check.
 *
 * The ladder queue (Tang, Goh, Thng, ACM TOMACS 15(3), 2005) keeps events
 * in three tiers, each holding only keys that order before every key of
 * the tier after it:
 *
 *   Bottom  a short array sorted by (time, seq): the events about to pop;
 *   Ladder  up to LQ_MAX_RUNGS rungs of time buckets (unsorted lists);
 *           rung r+1 covers times below the unconsumed part of rung r
 *           (normally the one bucket of rung r being consumed), so the
 *           lowest rung holds the earliest events;
 *   Top     an unsorted list of events later than top_start, the last
 *           time the ladder covers.
 *
 * Pop takes the head of Bottom.  When Bottom is empty it is refilled from
 * the first non-empty bucket of the lowest rung: a bucket with more than
 * LQ_THRES events that spans more than one tick is split into a new rung
 * instead; otherwise its events are sorted into Bottom.  When the ladder is
 * empty too, Top becomes the first rung.  A rung gets up to
 * LQ_BUCKETS_PER_EVENT buckets per event it is made for, more than the
 * paper's one: pending times crowd at the front (exponential delays put
 * several times the mean density there), and smaller front buckets make
 * the sorts into Bottom shorter.
 * Push files an event into Top, into the bucket of the first rung whose
 * unconsumed range holds its time, or into Bottom by sorted insertion.
 * Each event is thus moved a bounded number of times (into Top, down at
 * most LQ_MAX_RUNGS rungs, into Bottom) and every step is O(1) amortised
 * for the hold workloads of a simulation; nothing compares more than a
 * bucket's worth of keys.
 *
 * Exact order.  Buckets split on time only, and every bucket range is a
 * set of whole ticks, so two events with equal times always share a
 * bucket; Bottom sorts by the full (time, seq) key.  The pop sequence is
 * therefore exactly the (time, seq) order a heap gives, FIFO ties
 * included, whatever the ladder's shape.
 *
 * Differences from the paper: bucket widths are powers of two (bucket
 * index by shift, not by division) and rung ranges are inclusive tick
 * ranges [start, upper], so no floating point is involved and times up to
 * UINT64_MAX work.  Bottom is an array rather than a list (pop is an index
 * increment).  When Bottom outgrows LQ_BOTTOM_MAX with more than one
 * distinct time, it is turned back into a rung, as the paper does, which
 * keeps out-of-order pushes (earlier than the ladder's front) from
 * degrading into a long sorted-list insertion.  Pushes earlier than the
 * last pop are allowed (the eventq API does not forbid them) and are
 * merely slower.
 *
 * Storage.  Ladder and Top events live in one pool of nodes linked by
 * index, freed nodes on a free list; rung bucket arrays and Bottom are
 * arrays kept across refills.  All of them grow by doubling and never
 * shrink, so the steady state allocates nothing.
 */
#include <stdlib.h>
#include <string.h>

#include "base/diag.h"
#include "sim/eventq.h"

#define LQ_THRES 50        /* a bucket with more events is split, if it can be */
#define LQ_MAX_RUNGS 8
#define LQ_BUCKETS_PER_EVENT 4 /* rung size: up to this many buckets per event */
#define LQ_BOTTOM_MAX 256  /* Bottom larger than this becomes a rung again */
#define LQ_NIL UINT32_MAX

struct lq_node {
	struct event e;
	uint32_t next; /* next node in the same bucket, Top or the free list */
};

struct lq_rung {
	uint32_t *head;  /* [nb] bucket list heads, LQ_NIL when empty */
	size_t nb, cap;  /* buckets in use, allocated */
	size_t cur;      /* buckets below cur are consumed (empty) */
	size_t n;        /* events in this rung */
	uint64_t start;  /* bucket b holds times start + b * 2^shift ...  */
	uint64_t upper;  /* ... up to the last time of the rung, inclusive */
	unsigned shift;
};

struct lq_heap {
	struct lq_node *pool;
	uint32_t cap, used;       /* pool size, nodes ever handed out */
	uint32_t free_list;
	uint32_t top;             /* Top list */
	size_t ntop;
	uint64_t top_min, top_max, top_start;
	struct lq_rung rung[LQ_MAX_RUNGS];
	unsigned nrungs;
	struct event *bot;        /* Bottom: bot[bh..bt) sorted */
	size_t bh, bt, bcap;
	size_t n;
	uint64_t next_seq;
};

static inline int lq_before(const struct event *x, const struct event *y)
{
	__extension__ typedef unsigned __int128 u128;
	return ((u128)x->time << 64 | x->seq) < ((u128)y->time << 64 | y->seq);
}

static int lq_init(struct lq_heap *q, size_t cap)
{
	memset(q, 0, sizeof *q);
	q->free_list = q->top = LQ_NIL;
	if (cap < 16)
		cap = 16;
	if (cap > UINT32_MAX / 2)
		return NS_ENOMEM;
	q->cap = (uint32_t)cap;
	q->pool = malloc(cap * sizeof *q->pool);
	q->bcap = 2 * LQ_THRES;
	q->bot = malloc(q->bcap * sizeof *q->bot);
	return q->pool && q->bot ? NS_OK : NS_ENOMEM;
}

static void lq_fini(struct lq_heap *q)
{
	for (unsigned r = 0; r < LQ_MAX_RUNGS; r++)
		free(q->rung[r].head);
	free(q->pool);
	free(q->bot);
	memset(q, 0, sizeof *q);
}

static int lq_grow_pool(struct lq_heap *q)
{
	if (q->cap > UINT32_MAX / 4)
		return NS_ENOMEM;
	struct lq_node *p = realloc(q->pool, 2 * (size_t)q->cap * sizeof *p);
	if (!p)
		return NS_ENOMEM;
	q->pool = p;
	q->cap *= 2;
	return NS_OK;
}

/* A node for e, or LQ_NIL when the pool cannot grow. */
static inline uint32_t lq_node_alloc(struct lq_heap *q, const struct event *e)
{
	uint32_t k = q->free_list;
	if (k != LQ_NIL) {
		q->free_list = q->pool[k].next;
	} else {
		if (q->used == q->cap && lq_grow_pool(q) != NS_OK)
			return LQ_NIL;
		k = q->used++;
	}
	q->pool[k].e = *e;
	return k;
}

/* Walk a list of at most `limit` nodes; its length, or SIZE_MAX if longer. */
static size_t lq_list_len(const struct lq_heap *q, uint32_t k, size_t limit)
{
	size_t c = 0;
	for (; k != LQ_NIL; k = q->pool[k].next)
		if (k >= q->used || ++c > limit)
			return SIZE_MAX;
	return c;
}

/* Room for `need` entries in Bottom from index 0 (Bottom is empty). */
static int lq_bottom_reserve(struct lq_heap *q, size_t need)
{
	if (need <= q->bcap)
		return NS_OK;
	size_t cap = q->bcap;
	while (cap < need)
		cap *= 2;
	struct event *b = realloc(q->bot, cap * sizeof *b);
	if (!b)
		return NS_ENOMEM;
	q->bot = b;
	q->bcap = cap;
	return NS_OK;
}

/*
 * Make rung r cover [start, upper] for about `count` events: the smallest
 * power-of-two width that needs at most `count` buckets (at least one).
 */
static int lq_rung_setup(struct lq_heap *q, unsigned r, uint64_t start, uint64_t upper,
			 size_t count)
{
	struct lq_rung *g = &q->rung[r];
	uint64_t span = upper - start;
	unsigned s = 0;
	while (s < 63 && (span >> s) >= LQ_BUCKETS_PER_EVENT * count)
		s++;
	size_t nb = (size_t)(span >> s) + 1;
	if (nb > g->cap) {
		size_t cap = g->cap ? g->cap : 64;
		while (cap < nb)
			cap *= 2;
		uint32_t *h = realloc(g->head, cap * sizeof *h);
		if (!h)
			return NS_ENOMEM;
		g->head = h;
		g->cap = cap;
	}
	memset(g->head, 0xff, nb * sizeof *g->head); /* LQ_NIL */
	g->nb = nb;
	g->cur = 0;
	g->n = 0;
	g->start = start;
	g->upper = upper;
	g->shift = s;
	return NS_OK;
}

/* File node k into its bucket of rung g (its time is within the rung). */
static inline void lq_rung_link(struct lq_heap *q, struct lq_rung *g, uint32_t k)
{
	size_t b = (size_t)((q->pool[k].e.time - g->start) >> g->shift);
	q->pool[k].next = g->head[b];
	g->head[b] = k;
	g->n++;
}

/* The first time not yet consumed by rung g's buckets (g->cur < g->nb). */
static inline uint64_t lq_rung_front(const struct lq_rung *g)
{
	return g->start + ((uint64_t)g->cur << g->shift);
}

/* Insertion sort of Bottom; cheap because lists arrive nearly in order. */
static void lq_sort(struct event *a, size_t n)
{
	for (size_t i = 1; i < n; i++) {
		struct event e = a[i];
		size_t j = i;
		while (j > 0 && lq_before(&e, &a[j - 1])) {
			a[j] = a[j - 1];
			j--;
		}
		a[j] = e;
	}
}

static int lq_cmp(const void *x, const void *y)
{
	return lq_before(y, x) - lq_before(x, y);
}

/*
 * Move the list at `head` (c nodes) into the empty Bottom, sorted.  The
 * list is newest-first, so filling Bottom from its end puts it roughly in
 * order, and runs of equal times exactly in order.
 */
static int lq_list_to_bottom(struct lq_heap *q, uint32_t head, size_t c)
{
	int rc = lq_bottom_reserve(q, c);
	if (rc != NS_OK)
		return rc;
	size_t i = c;
	uint32_t k = head, last = head;
	while (k != LQ_NIL) {
		q->bot[--i] = q->pool[k].e;
		last = k;
		k = q->pool[k].next;
	}
	q->pool[last].next = q->free_list;
	q->free_list = head;
	q->bh = 0;
	q->bt = c;
	if (c <= 2 * LQ_THRES) {
		lq_sort(q->bot, c); /* linear when already in order */
		return NS_OK;
	}
	int sorted = 1;
	for (size_t j = 1; j < c && sorted; j++)
		sorted = lq_before(&q->bot[j - 1], &q->bot[j]);
	if (!sorted)
		qsort(q->bot, c, sizeof *q->bot, lq_cmp);
	return NS_OK;
}

/* Top becomes rung 0; the ladder is empty and Top is not. */
static int lq_top_to_ladder(struct lq_heap *q)
{
	int rc = lq_rung_setup(q, 0, q->top_min, q->top_max, q->ntop);
	if (rc != NS_OK)
		return rc;
	struct lq_rung *g = &q->rung[0];
	for (uint32_t k = q->top, next; k != LQ_NIL; k = next) {
		next = q->pool[k].next;
		lq_rung_link(q, g, k);
	}
	q->nrungs = 1;
	q->top_start = q->top_max;
	q->top = LQ_NIL;
	q->ntop = 0;
	return NS_OK;
}

/* Split bucket b of the lowest rung (c events) into a new rung below it. */
static int lq_spawn(struct lq_heap *q, size_t b, size_t c)
{
	struct lq_rung *g = &q->rung[q->nrungs - 1];
	uint64_t start = g->start + ((uint64_t)b << g->shift);
	uint64_t width_1 = (2ULL << (g->shift)) / 2 - 1; /* 2^shift - 1 without UB at 63 */
	uint64_t upper = g->upper - start < width_1 ? g->upper : start + width_1;
	int rc = lq_rung_setup(q, q->nrungs, start, upper, c);
	if (rc != NS_OK)
		return rc;
	struct lq_rung *child = &q->rung[q->nrungs];
	for (uint32_t k = g->head[b], next; k != LQ_NIL; k = next) {
		next = q->pool[k].next;
		lq_rung_link(q, child, k);
	}
	g->head[b] = LQ_NIL;
	g->n -= c;
	g->cur = b + 1;
	q->nrungs++;
	return NS_OK;
}

/* Fill the empty Bottom; NS_ENOENT when the queue is empty. */
static int lq_refill(struct lq_heap *q)
{
	for (;;) {
		if (q->nrungs == 0) {
			if (q->ntop == 0)
				return NS_ENOENT;
			int rc = lq_top_to_ladder(q);
			if (rc != NS_OK)
				return rc;
		}
		struct lq_rung *g = &q->rung[q->nrungs - 1];
		if (g->n == 0) {
			q->nrungs--;
			continue;
		}
		size_t b = g->cur;
		while (g->head[b] == LQ_NIL)
			b++;
		size_t c = 0;
		for (uint32_t k = g->head[b]; k != LQ_NIL; k = q->pool[k].next)
			c++;
		int spans = g->shift > 0 && g->start + ((uint64_t)b << g->shift) < g->upper;
		if (c > LQ_THRES && spans && q->nrungs < LQ_MAX_RUNGS) {
			int rc = lq_spawn(q, b, c);
			if (rc != NS_OK)
				return rc;
			continue;
		}
		int rc = lq_list_to_bottom(q, g->head[b], c);
		if (rc != NS_OK)
			return rc;
		g->head[b] = LQ_NIL;
		g->n -= c;
		g->cur = b + 1;
		return NS_OK;
	}
}

/*
 * Bottom has grown past LQ_BOTTOM_MAX with more than one distinct time:
 * turn it into a new lowest rung covering everything below the ladder's
 * front.  On failure Bottom is left as it was (still correct, just long).
 */
static void lq_bottom_to_rung(struct lq_heap *q)
{
	size_t c = q->bt - q->bh;
	uint64_t upper = q->top_start;
	if (q->nrungs > 0) {
		const struct lq_rung *g = &q->rung[q->nrungs - 1];
		upper = g->cur < g->nb ? lq_rung_front(g) - 1 : g->upper;
	}
	/* All or nothing: a partial move would let Bottom overlap the rung. */
	size_t nfree = lq_list_len(q, q->free_list, c);
	if (nfree == SIZE_MAX)
		nfree = c;
	while (nfree + (q->cap - q->used) < c)
		if (lq_grow_pool(q) != NS_OK)
			return;
	if (lq_rung_setup(q, q->nrungs, q->bot[q->bh].time, upper, c) != NS_OK)
		return;
	struct lq_rung *g = &q->rung[q->nrungs];
	for (size_t i = q->bh; i < q->bt; i++)
		lq_rung_link(q, g, lq_node_alloc(q, &q->bot[i]));
	q->bh = q->bt = 0;
	q->nrungs++;
}

/* Insert e into Bottom after every entry that orders before it. */
static int lq_bottom_insert(struct lq_heap *q, const struct event *e)
{
	if (q->bt == q->bcap) {
		if (q->bh > 0) {
			memmove(q->bot, q->bot + q->bh, (q->bt - q->bh) * sizeof *q->bot);
			q->bt -= q->bh;
			q->bh = 0;
		} else {
			struct event *b = realloc(q->bot, 2 * q->bcap * sizeof *b);
			if (!b)
				return NS_ENOMEM;
			q->bot = b;
			q->bcap *= 2;
		}
	}
	size_t i = q->bt;
	while (i > q->bh && q->bot[i - 1].time > e->time)
		i--; /* e has the largest seq: it goes after its equal times */
	memmove(q->bot + i + 1, q->bot + i, (q->bt - i) * sizeof *q->bot);
	q->bot[i] = *e;
	q->bt++;
	if (q->bt - q->bh > LQ_BOTTOM_MAX && q->nrungs < LQ_MAX_RUNGS &&
	    q->bot[q->bh].time < q->bot[q->bt - 1].time)
		lq_bottom_to_rung(q);
	return NS_OK;
}

static inline int lq_push(struct lq_heap *q, uint64_t time, uint32_t type, uint32_t arg)
{
	struct event e = {.time = time, .seq = q->next_seq, .type = type, .arg = arg};
	int empty_below = q->nrungs == 0 && q->bt == q->bh;
	if (time > q->top_start || empty_below) {
		uint32_t k = lq_node_alloc(q, &e);
		if (k == LQ_NIL)
			return NS_ENOMEM;
		if (q->ntop == 0 || time < q->top_min)
			q->top_min = time;
		if (q->ntop == 0 || time > q->top_max)
			q->top_max = time;
		q->pool[k].next = q->top;
		q->top = k;
		q->ntop++;
		goto done;
	}
	for (unsigned r = 0; r < q->nrungs; r++) {
		struct lq_rung *g = &q->rung[r];
		if (time >= g->start && ((time - g->start) >> g->shift) >= g->cur) {
			uint32_t k = lq_node_alloc(q, &e);
			if (k == LQ_NIL)
				return NS_ENOMEM;
			lq_rung_link(q, g, k);
			goto done;
		}
	}
	int rc = lq_bottom_insert(q, &e);
	if (rc != NS_OK)
		return rc;
done:
	q->next_seq++;
	q->n++;
	return NS_OK;
}

static inline int lq_pop(struct lq_heap *q, struct event *out)
{
	if (q->bh == q->bt) {
		int rc = lq_refill(q);
		if (rc != NS_OK)
			return rc;
	}
	*out = q->bot[q->bh++];
	q->n--;
	return NS_OK;
}

static inline int lq_peek(struct lq_heap *q, struct event *out)
{
	if (q->bh == q->bt) {
		int rc = lq_refill(q);
		if (rc != NS_OK)
			return rc;
	}
	*out = q->bot[q->bh];
	return NS_OK;
}

static inline size_t lq_size(const struct lq_heap *q)
{
	return q->n;
}

/*
 * Top: every time within [top_min, top_max], and after top_start unless
 * the ladder and Bottom are empty; count ntop.
 */
static int lq_check_top(const struct lq_heap *q, size_t *live)
{
	if (lq_list_len(q, q->top, q->n) != q->ntop)
		return NS_EINTERNAL;
	int below_empty = q->nrungs == 0 && q->bt == q->bh;
	for (uint32_t k = q->top; k != LQ_NIL; k = q->pool[k].next) {
		const struct event *e = &q->pool[k].e;
		if (e->time < q->top_min || e->time > q->top_max || e->seq >= q->next_seq ||
		    (!below_empty && e->time <= q->top_start))
			return NS_EINTERNAL;
	}
	*live += q->ntop;
	return NS_OK;
}

/*
 * Rung r: consumed buckets empty, every event in the bucket its time maps
 * to and within [start, upper], counts match, the range below the front
 * of rung r-1 (rung 0: up to top_start).
 */
static int lq_check_rung(const struct lq_heap *q, unsigned r, size_t *live)
{
	const struct lq_rung *g = &q->rung[r];
	if (!g->head || g->nb == 0 || g->nb > g->cap || g->cur > g->nb || g->shift > 63 ||
	    g->upper < g->start || ((g->upper - g->start) >> g->shift) != g->nb - 1)
		return NS_EINTERNAL;
	uint64_t hi = q->top_start;
	if (r > 0) {
		const struct lq_rung *p = &q->rung[r - 1];
		if (p->cur < p->nb && lq_rung_front(p) == 0)
			return NS_EINTERNAL; /* nothing can be below rung r-1 */
		hi = p->cur < p->nb ? lq_rung_front(p) - 1 : p->upper;
	}
	if (g->upper > hi)
		return NS_EINTERNAL;
	size_t count = 0;
	for (size_t b = 0; b < g->nb; b++) {
		if (b < g->cur && g->head[b] != LQ_NIL)
			return NS_EINTERNAL;
		size_t c = lq_list_len(q, g->head[b], q->n);
		if (c == SIZE_MAX)
			return NS_EINTERNAL;
		count += c;
		for (uint32_t k = g->head[b]; k != LQ_NIL; k = q->pool[k].next) {
			const struct event *e = &q->pool[k].e;
			if (e->time < g->start || e->time > g->upper || e->seq >= q->next_seq ||
			    ((e->time - g->start) >> g->shift) != b)
				return NS_EINTERNAL;
		}
	}
	if (count != g->n)
		return NS_EINTERNAL;
	*live += count;
	return NS_OK;
}

/* Bottom sorted, before the lowest rung's front (or at most top_start). */
static int lq_check_bottom(const struct lq_heap *q, size_t *live)
{
	if (!q->bot || q->bh > q->bt || q->bt > q->bcap)
		return NS_EINTERNAL;
	for (size_t i = q->bh; i < q->bt; i++)
		if (q->bot[i].seq >= q->next_seq ||
		    (i > q->bh && !lq_before(&q->bot[i - 1], &q->bot[i])))
			return NS_EINTERNAL;
	if (q->bt > q->bh) {
		uint64_t last = q->bot[q->bt - 1].time;
		if (q->nrungs > 0) {
			const struct lq_rung *g = &q->rung[q->nrungs - 1];
			if (g->cur < g->nb ? last >= lq_rung_front(g) : last > g->upper)
				return NS_EINTERNAL;
		} else if (q->ntop > 0 && last > q->top_start) {
			return NS_EINTERNAL;
		}
	}
	*live += q->bt - q->bh;
	return NS_OK;
}

static int lq_check(const struct lq_heap *q)
{
	if (!q->pool || q->used > q->cap || q->nrungs > LQ_MAX_RUNGS)
		return NS_EINTERNAL;
	size_t live = 0, in_pool = 0;
	if (lq_check_top(q, &live) != NS_OK || lq_check_bottom(q, &live) != NS_OK)
		return NS_EINTERNAL;
	in_pool = q->ntop;
	for (unsigned r = 0; r < q->nrungs; r++) {
		size_t before = live;
		if (lq_check_rung(q, r, &live) != NS_OK)
			return NS_EINTERNAL;
		in_pool += live - before;
	}
	if (live != q->n)
		return NS_EINTERNAL;
	/* Every pool node handed out is either live in Top/ladder or free. */
	size_t nfree = lq_list_len(q, q->free_list, q->used);
	return nfree != SIZE_MAX && nfree + in_pool == q->used ? NS_OK : NS_EINTERNAL;
}
