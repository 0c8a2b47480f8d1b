/*
 * eventq_radix — a radix heap over (time, seq) keys, the alternative to
 * the d-ary heap of eventq_heap.h; a private header of the eventq module,
 * included by eventq.c and bench/bench_eventq.c.  Defines struct rdx_heap
 * and static functions rdx_init, rdx_fini, rdx_push, rdx_pop, rdx_peek,
 * rdx_size and rdx_check.
 *
 * A radix heap (Ahuja, Mehlhorn, Orlin, Tarjan 1990) is a monotone priority
 * queue: every key pushed must not be below the last key popped (`last`),
 * which is exactly the causality rule of a discrete-event simulation.  Keys
 * here are the 128-bit numbers time * 2^64 + seq, all distinct.  Bucket b
 * (1..128) holds the keys whose highest bit differing from `last` is bit
 * b-1: buckets 65..128 for keys at a later time than `last`, 1..64 for keys
 * at the same time (told apart by seq).  Every key in a lower bucket is
 * below every key in a higher one, so the minimum is in the lowest
 * non-empty bucket.  Pop scans that bucket for its minimum, makes it the
 * new `last` and re-files the bucket's other entries into strictly lower
 * buckets.  An entry moves down at most 128 times over its life, and in a
 * hold workload a few times; no operation compares more than one bucket.
 *
 * Storage: entries live in one pool array as nodes linked into their
 * bucket by index; freed nodes go on a free list.  Re-filing only relinks,
 * so pop never allocates, and push allocates only when the pool outgrows
 * its largest size so far (doubling).
 */
#include <stdlib.h>
#include <string.h>

#include "base/diag.h"
#include "sim/eventq.h"

#define RDX_BUCKETS 129 /* 0 holds only a key equal to last: (0, 0) before any pop */
#define RDX_NIL UINT32_MAX

struct rdx_node {
	struct event e;
	uint32_t next; /* next node in the same bucket or on the free list */
};

struct rdx_heap {
	struct rdx_node *pool;
	uint32_t cap, used;    /* pool size, nodes ever handed out */
	uint32_t free_list;
	uint32_t head[RDX_BUCKETS];
	uint64_t nonempty[3];  /* bit b set iff bucket b is not empty */
	uint64_t last_time, last_seq;
	size_t n;
	uint64_t next_seq;
};

static int rdx_init(struct rdx_heap *h, size_t cap)
{
	memset(h, 0, sizeof *h);
	if (cap < 16)
		cap = 16;
	if (cap > UINT32_MAX / 2)
		return NS_ENOMEM;
	h->cap = (uint32_t)cap;
	h->pool = malloc(cap * sizeof *h->pool);
	h->free_list = RDX_NIL;
	for (int b = 0; b < RDX_BUCKETS; b++)
		h->head[b] = RDX_NIL;
	return h->pool ? NS_OK : NS_ENOMEM;
}

static void rdx_fini(struct rdx_heap *h)
{
	free(h->pool);
	h->pool = NULL;
}

/* Bit length of x: 0 for 0, else 1 + index of the highest set bit. */
static inline unsigned rdx_bitlen(uint64_t x)
{
	return 64u - (unsigned)__builtin_clzll(x | 1) - (x == 0);
}

/* The bucket of key (t, s) relative to last; 0 only for last itself. */
static inline unsigned rdx_bucket(const struct rdx_heap *h, uint64_t t, uint64_t s)
{
	unsigned bt = rdx_bitlen(t ^ h->last_time), bs = rdx_bitlen(s ^ h->last_seq);
	return bt ? 64 + bt : bs;
}

static inline void rdx_link(struct rdx_heap *h, uint32_t node)
{
	unsigned b = rdx_bucket(h, h->pool[node].e.time, h->pool[node].e.seq);
	h->pool[node].next = h->head[b];
	h->head[b] = node;
	h->nonempty[b >> 6] |= 1ULL << (b & 63);
}

static inline int rdx_before(const struct event *x, const struct event *y)
{
	__extension__ typedef unsigned __int128 u128;
	return ((u128)x->time << 64 | x->seq) < ((u128)y->time << 64 | y->seq);
}

static int rdx_grow(struct rdx_heap *h)
{
	if (h->cap > UINT32_MAX / 4)
		return NS_ENOMEM;
	struct rdx_node *p = realloc(h->pool, 2 * (size_t)h->cap * sizeof *p);
	if (!p)
		return NS_ENOMEM;
	h->pool = p;
	h->cap *= 2;
	return NS_OK;
}

static inline int rdx_push(struct rdx_heap *h, uint64_t time, uint32_t type, uint32_t arg)
{
	if (time < h->last_time)
		return NS_ERANGE;
	uint32_t node = h->free_list;
	if (node != RDX_NIL) {
		h->free_list = h->pool[node].next;
	} else {
		if (h->used == h->cap) {
			int rc = rdx_grow(h);
			if (rc != NS_OK)
				return rc;
		}
		node = h->used++;
	}
	h->pool[node].e = (struct event){.time = time, .seq = h->next_seq++,
					 .type = type, .arg = arg};
	rdx_link(h, node);
	h->n++;
	return NS_OK;
}

static inline unsigned rdx_lowest(const struct rdx_heap *h)
{
	for (unsigned w = 0; w < 3; w++)
		if (h->nonempty[w])
			return 64 * w + (unsigned)__builtin_ctzll(h->nonempty[w]);
	return RDX_BUCKETS;
}

/* The node holding the minimum of the lowest non-empty bucket b. */
static inline uint32_t rdx_min_of(const struct rdx_heap *h, unsigned b)
{
	uint32_t best = h->head[b];
	for (uint32_t k = h->pool[best].next; k != RDX_NIL; k = h->pool[k].next)
		if (rdx_before(&h->pool[k].e, &h->pool[best].e))
			best = k;
	return best;
}

static inline int rdx_pop(struct rdx_heap *h, struct event *out)
{
	if (h->n == 0)
		return NS_ENOENT;
	unsigned b = rdx_lowest(h);
	uint32_t min = rdx_min_of(h, b), k = h->head[b];
	*out = h->pool[min].e;
	h->last_time = out->time;
	h->last_seq = out->seq;
	h->head[b] = RDX_NIL;
	h->nonempty[b >> 6] &= ~(1ULL << (b & 63));
	while (k != RDX_NIL) {
		uint32_t next = h->pool[k].next;
		if (k != min)
			rdx_link(h, k); /* lands in a bucket below b */
		k = next;
	}
	h->pool[min].next = h->free_list;
	h->free_list = min;
	h->n--;
	return NS_OK;
}

static inline int rdx_peek(struct rdx_heap *h, struct event *out)
{
	if (h->n == 0)
		return NS_ENOENT;
	*out = h->pool[rdx_min_of(h, rdx_lowest(h))].e;
	return NS_OK;
}

static inline size_t rdx_size(const struct rdx_heap *h)
{
	return h->n;
}

/* Every entry is >= last and sits in the bucket its key maps to; counts add up. */
static int rdx_check(const struct rdx_heap *h)
{
	if (!h->pool || h->used > h->cap)
		return NS_EINTERNAL;
	size_t count = 0;
	for (unsigned b = 0; b < RDX_BUCKETS; b++) {
		int set = (h->nonempty[b >> 6] >> (b & 63)) & 1;
		if (set != (h->head[b] != RDX_NIL))
			return NS_EINTERNAL;
		for (uint32_t k = h->head[b]; k != RDX_NIL; k = h->pool[k].next) {
			const struct event *e = &h->pool[k].e;
			if (k >= h->used || ++count > h->n || e->seq >= h->next_seq ||
			    e->time < h->last_time ||
			    (e->time == h->last_time && e->seq < h->last_seq) ||
			    rdx_bucket(h, e->time, e->seq) != b)
				return NS_EINTERNAL;
		}
	}
	return count == h->n ? NS_OK : NS_EINTERNAL;
}
