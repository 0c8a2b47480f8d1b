/*
 * eventq — the pending-event queue; see eventq.h.
 *
 * Design notes.  The queue is a d-ary min-heap over 24-byte events in one
 * array (sim/eventq_heap.h holds the heap code as a template).  The arity is
 * chosen here and nowhere else: bench/bench_eventq compares arities 2, 4
 * and 8 on a hold-model workload (pop one event, push one at now + an
 * exponential delay, as the PHOLD benchmark and the workloads do).  4 won:
 * half the depth of a binary heap for three extra comparisons per level
 * among children that share one or two cache lines.  The figures are in
 * docs/engine.md.
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
