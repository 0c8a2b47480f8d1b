/*
 * eventq — the pending-event queue; see eventq.h.
 *
 * Design notes.  The queue is a d-ary min-heap over 24-byte events in one
 * array (sim/eventq_heap.h holds the heap code as a template).  The arity is
 * chosen here and nowhere else.  bench/bench_eventq compares arities 2, 4
 * and 8 and a radix heap (sim/eventq_radix.h) on the hold model (pop one
 * event, push one at its time + an exponential delay, as PHOLD and the
 * workloads do).  Millions of pop+push pairs per second, median of 3 runs
 * of 5M pairs, 2.1 GHz EPYC VM, load average ~1:
 *
 *     pending     binary   4-ary   8-ary   radix
 *          16       32.9    40.9    33.5    38.2
 *       1,000       20.3    24.9    21.8    22.4
 *      10,000       12.4    15.5    15.4    15.9
 *     100,000        6.4     9.4    10.0     5.8
 *   1,000,000        0.7     1.2     1.7     0.6
 *
 * 4-ary wins up to ~10^4 pending events, the range a run has (a few per
 * simulated CPU or actor): half the depth of a binary heap, and its three
 * comparisons per level are independent (tournament), so the dependency
 * chain per level is two selects long.  8-ary only pays off past ~10^5.
 * The radix heap needs no comparisons on push, but its pop scans and
 * relinks a bucket list, which costs as much as the heap's walk here.
 *
 * Ties are broken by the 64-bit seq assigned at push, so (time, seq) is a
 * strict total order and the heap's pop order does not depend on its shape
 * or history: any correct priority queue would pop the same sequence.
 */
#include "eventq.h"

#include <stdlib.h>

#include "diag.h"

#define EVENTQ_ARITY 4

#define EVQ_D EVENTQ_ARITY
#define EVQ_FN(x) evq_##x
#include "eventq_heap.h"

struct eventq {
	struct evq_heap h;
};

struct eventq *eventq_create(size_t capacity_hint)
{
	struct eventq *q = malloc(sizeof *q);
	if (!q)
		return NULL;
	if (evq_init(&q->h, capacity_hint) != NS_OK) {
		free(q);
		return NULL;
	}
	return q;
}

void eventq_destroy(struct eventq *q)
{
	if (!q)
		return;
	evq_fini(&q->h);
	free(q);
}

int eventq_push(struct eventq *q, uint64_t time, uint32_t type, uint32_t arg)
{
	return evq_push(&q->h, time, type, arg);
}

int eventq_pop(struct eventq *q, struct event *out)
{
	return evq_pop(&q->h, out);
}

int eventq_peek(struct eventq *q, struct event *out)
{
	return evq_peek(&q->h, out);
}

size_t eventq_size(const struct eventq *q)
{
	return evq_size(&q->h);
}

uint64_t eventq_pushes(const struct eventq *q)
{
	return q->h.next_seq;
}

unsigned eventq_arity(void)
{
	return EVENTQ_ARITY;
}

int eventq_check(const struct eventq *q)
{
	return q ? evq_check(&q->h) : NS_EINTERNAL;
}
