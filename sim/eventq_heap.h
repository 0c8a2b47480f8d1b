/*
 * eventq_heap — the d-ary min-heap behind eventq, written once as a
 * header template so that eventq.c and bench/bench_eventq.c instantiate the
 * same code with different arities (no copy to drift out of sync).
 *
 * This is a private header of the eventq module: only eventq.c and the
 * benchmark include it.  Before including it, define
 *
 *     EVQ_D       the arity (2, 4, 8, ...), a compile-time constant;
 *     EVQ_FN(x)   a macro that prefixes x into a unique identifier,
 *                 e.g.  #define EVQ_FN(x) heap4_##x
 *
 * and it defines `struct EVQ_FN(heap)` plus static functions EVQ_FN(init),
 * EVQ_FN(fini), EVQ_FN(push), EVQ_FN(pop), EVQ_FN(peek), EVQ_FN(size) and
 * EVQ_FN(check); it #undefs both
 * parameters at the end so it can be included again with another arity.
 *
 * Layout: entries a[0..n) with the root at a[0] and the children of a[i] at
 * a[D*i+1 .. D*i+D].  Sifting moves a hole instead of swapping, so each
 * level costs one 24-byte copy.  Refilling the root uses the "bottom-up"
 * variant (Floyd, Wegener): the hole walks down along the first-ordered
 * children all the way to a leaf without comparing against the entry being
 * placed, which then rises from there.  In a discrete-event simulation that
 * entry (the last one, or a newly scheduled event) is usually among the
 * latest, so it belongs near the bottom and the walk saves one comparison
 * per level against the textbook sift-down.  The children of a full node
 * are compared in a branch-free tournament, since heap comparisons are
 * coin flips a branch predictor cannot learn.
 *
 * The D slots after the last entry hold sentinels that order after every
 * event, so every child group is full and the tournament never checks
 * bounds (that check was a mispredicted branch at the heap's ragged last
 * level; cachegrind counted 1.4 mispredicts per PHOLD event before, 0.6
 * after).
 *
 * Pop leaves the root vacant (`hole`) and the next push fills it from the
 * root; any other operation first refills it with the last entry.  An
 * event loop pops one event and pushes about one, so it pays one walk per
 * event instead of a walk plus two rises.
 */
#include <stdlib.h>

#include "base/diag.h"
#include "sim/eventq.h"

#if !defined(EVQ_D) || !defined(EVQ_FN)
#error "define EVQ_D and EVQ_FN before including eventq_heap.h"
#endif
_Static_assert(EVQ_D == 2 || EVQ_D == 4 || EVQ_D == 8, "arity must be 2, 4 or 8");

/*
 * Sentinel entries after the last one make every node's child group full:
 * a[n .. n+D) always hold this key, which orders after every event (no
 * event can have seq UINT64_MAX), so the tournament needs no bounds check.
 */
static const struct event EVQ_FN(sentinel) = {UINT64_MAX, UINT64_MAX, 0, 0};

struct EVQ_FN(heap) {
	struct event *a;   /* cap + D slots */
	size_t n, cap;     /* a[0..n) in use (a[0] vacant while hole) */
	uint64_t next_seq;
	int hole;          /* the root was popped and not refilled yet */
};

static inline int EVQ_FN(before)(const struct event *x, const struct event *y)
{
	/* One 128-bit compare (cmp + sbb, no branch): heap comparisons are coin
	 * flips a branch predictor cannot learn. */
	__extension__ typedef unsigned __int128 u128;
	u128 kx = (u128)x->time << 64 | x->seq, ky = (u128)y->time << 64 | y->seq;
	return kx < ky;
}

static int EVQ_FN(init)(struct EVQ_FN(heap) *h, size_t cap)
{
	h->n = 0;
	h->next_seq = 0;
	h->hole = 0;
	h->cap = cap ? cap : 16;
	if (h->cap > SIZE_MAX / sizeof *h->a - EVQ_D)
		return NS_ENOMEM;
	h->a = malloc((h->cap + EVQ_D) * sizeof *h->a);
	if (!h->a)
		return NS_ENOMEM;
	for (size_t k = 0; k < EVQ_D; k++)
		h->a[k] = EVQ_FN(sentinel);
	return NS_OK;
}

static void EVQ_FN(fini)(struct EVQ_FN(heap) *h)
{
	free(h->a);
	h->a = NULL;
	h->n = h->cap = 0;
}

/* Place e at hole i or above it, moving parents that order after e down. */
static inline void EVQ_FN(sift_up)(struct event *a, size_t i, struct event e)
{
	while (i > 0) {
		size_t p = (i - 1) / EVQ_D;
		if (!EVQ_FN(before)(&e, &a[p]))
			break;
		a[i] = a[p];
		i = p;
	}
	a[i] = e;
}

/* a if !take else b, computed with a mask so no branch is emitted. */
static inline size_t EVQ_FN(pick)(size_t a, size_t b, int take)
{
	return a ^ ((a ^ b) & ((size_t)0 - (size_t)take));
}

/* The first-ordered of a[x] and a[y], without a branch. */
static inline size_t EVQ_FN(first)(const struct event *a, size_t x, size_t y)
{
	return EVQ_FN(pick)(x, y, EVQ_FN(before)(&a[y], &a[x]));
}

/*
 * The first-ordered of the D entries a[c..c+D): a pairwise tournament of
 * fixed shape, so the comparisons of one round are independent and the
 * dependency chain is log2(D) selects long rather than D-1.
 */
static inline size_t EVQ_FN(first_of_d)(const struct event *a, size_t c)
{
	if (EVQ_D == 2)
		return EVQ_FN(first)(a, c, c + 1);
	size_t w01 = EVQ_FN(first)(a, c, c + 1), w23 = EVQ_FN(first)(a, c + 2, c + 3);
	size_t w03 = EVQ_FN(first)(a, w01, w23);
	if (EVQ_D == 4)
		return w03;
	size_t w45 = EVQ_FN(first)(a, c + 4, c + 5), w67 = EVQ_FN(first)(a, c + 6, c + 7);
	return EVQ_FN(first)(a, w03, EVQ_FN(first)(a, w45, w67));
}

/*
 * Index of the first-ordered child of i (which has at least one child):
 * missing children are sentinels, which never win.
 */
static inline size_t EVQ_FN(min_child)(const struct event *a, size_t i)
{
	return EVQ_FN(first_of_d)(a, EVQ_D * i + 1);
}

static int EVQ_FN(grow)(struct EVQ_FN(heap) *h)
{
	size_t cap = h->cap * 2;
	if (cap < h->cap || cap > SIZE_MAX / sizeof *h->a - EVQ_D)
		return NS_ENOMEM;
	struct event *a = realloc(h->a, (cap + EVQ_D) * sizeof *a); /* keeps the sentinels */
	if (!a)
		return NS_ENOMEM;
	h->a = a;
	h->cap = cap;
	return NS_OK;
}

/*
 * Move the hole at the root down to a leaf along the first-ordered
 * children, then let e rise from there into its place.
 */
static inline void EVQ_FN(fill_root)(struct event *a, size_t n, struct event e)
{
	size_t i = 0;
	while (EVQ_D * i + 1 < n) {
		size_t c = EVQ_FN(min_child)(a, i);
		a[i] = a[c];
		i = c;
	}
	EVQ_FN(sift_up)(a, i, e);
}

/* Refill a root hole with the last entry (the textbook pop's second half). */
static inline void EVQ_FN(settle)(struct EVQ_FN(heap) *h)
{
	if (!h->hole)
		return;
	h->hole = 0;
	size_t n = --h->n;
	struct event last = h->a[n];
	h->a[n] = EVQ_FN(sentinel);
	if (n > 0)
		EVQ_FN(fill_root)(h->a, n, last);
}

static inline int EVQ_FN(push)(struct EVQ_FN(heap) *h, uint64_t time,
			       uint32_t type, uint32_t arg)
{
	struct event e = {.time = time, .seq = h->next_seq, .type = type, .arg = arg};
	if (h->hole) {
		/* A pop left the root vacant: the new event fills it directly. */
		h->hole = 0;
		h->next_seq++;
		EVQ_FN(fill_root)(h->a, h->n, e);
		return NS_OK;
	}
	if (h->n == h->cap) {
		int rc = EVQ_FN(grow)(h);
		if (rc != NS_OK)
			return rc;
	}
	h->next_seq++;
	h->a[h->n + EVQ_D] = EVQ_FN(sentinel);
	EVQ_FN(sift_up)(h->a, h->n++, e);
	return NS_OK;
}

/*
 * Take the root and leave its slot vacant: in an event loop the handler
 * usually pushes next, and that push fills the hole with one pass from the
 * root (pop + push cost one pass down and a short rise, not a pass down and
 * two rises).  Any other operation settles the hole first.
 */
static inline int EVQ_FN(pop)(struct EVQ_FN(heap) *h, struct event *out)
{
	EVQ_FN(settle)(h);
	if (h->n == 0)
		return NS_ENOENT;
	*out = h->a[0];
	if (h->n == 1) {
		h->n = 0;
		h->a[0] = EVQ_FN(sentinel);
	} else {
		h->hole = 1;
	}
	return NS_OK;
}

static inline int EVQ_FN(peek)(struct EVQ_FN(heap) *h, struct event *out)
{
	EVQ_FN(settle)(h);
	if (h->n == 0)
		return NS_ENOENT;
	*out = h->a[0];
	return NS_OK;
}

static inline size_t EVQ_FN(size)(const struct EVQ_FN(heap) *h)
{
	return h->n - (size_t)h->hole;
}

static int EVQ_FN(check)(const struct EVQ_FN(heap) *h)
{
	if (!h->a || h->n > h->cap || (h->hole && h->n < 2))
		return NS_EINTERNAL;
	for (size_t k = h->n; k < h->n + EVQ_D; k++)
		if (h->a[k].time != UINT64_MAX || h->a[k].seq != UINT64_MAX)
			return NS_EINTERNAL;
	for (size_t i = 0; i < h->n; i++) {
		size_t p = (i - 1) / EVQ_D;
		if (h->hole && i == 0)
			continue; /* vacant */
		if (h->a[i].seq >= h->next_seq)
			return NS_EINTERNAL;
		if (i > 0 && !(h->hole && p == 0) && EVQ_FN(before)(&h->a[i], &h->a[p]))
			return NS_EINTERNAL;
	}
	return NS_OK;
}

#undef EVQ_D
#undef EVQ_FN
