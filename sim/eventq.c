/*
 * eventq — the pending-event queue; see eventq.h.
 *
 * Design notes.  The queue is a ladder queue (sim/eventq_ladder.h, Tang,
 * Goh and Thng 2005): O(1) amortised push and pop for the hold pattern of a
 * simulation, against O(log n) for a heap.  bench/bench_eventq compares it
 * with d-ary heaps of arity 2, 4 and 8 (sim/eventq_heap.h, the engine's
 * queue before) and a radix heap (sim/eventq_radix.h) on the hold model
 * (pop one event, push one at its time + an exponential delay of mean 1000
 * ticks, as PHOLD and the workloads do).  Millions of pop+push pairs per
 * second, median of 3 runs of 5M pairs, on a 2-core EPYC VM shared with
 * other jobs (load average 3.8-4.3: absolute figures are low and noisy,
 * an earlier run at load 0.5-3.5 gave 4-ary 40.5 / 23.3 / 15.2 / 9.2 / 1.2
 * and ladder 39.7 / 44.7 / 53.9 / 8.6 / 2.3 with one bucket per event):
 *
 *     pending     binary   4-ary   8-ary   radix   ladder
 *          16       20.8    29.1    21.3    25.9     26.1
 *       1,000        8.4    13.8    14.8     7.4     37.1
 *      10,000        8.5    10.7     9.9     9.3     46.0
 *     100,000        2.1     3.4     4.7     1.6      7.7
 *   1,000,000        0.5     1.0     1.6     0.4      2.8
 *
 * PHOLD (1000 LPs, 1000 pending) went from 545 to 344 instructions per
 * event (cachegrind) when the engine moved from the 4-ary heap to the
 * ladder queue, with an identical event sequence (same checksum).
 *
 * The ladder queue is level with the heaps at a handful of events (its
 * batch refills cost about what a shallow heap's walk does), two to three
 * times faster from 10^3 (PHOLD's default population) to 10^4, and still
 * ahead past 10^5, where every structure is bound by cache misses (the
 * ladder pays about one per event for its bucket lists, a heap one per
 * level).
 *
 * (time, seq) is a strict total order, so the pop sequence does not depend
 * on the structure: the ladder queue pops exactly what the heap popped (the
 * benchmark checks this by hashing both sequences), and runs are identical
 * across the change.
 */
#include "sim/eventq.h"

#include <stdlib.h>

#include "base/diag.h"

#include "sim/eventq_ladder.h"

struct eventq {
	struct lq_heap h;
};

struct eventq *eventq_create(size_t capacity_hint)
{
	struct eventq *q = malloc(sizeof *q);
	if (!q)
		return NULL;
	if (lq_init(&q->h, capacity_hint) != NS_OK) {
		free(q);
		return NULL;
	}
	return q;
}

void eventq_destroy(struct eventq *q)
{
	if (!q)
		return;
	lq_fini(&q->h);
	free(q);
}

int eventq_push(struct eventq *q, uint64_t time, uint32_t type, uint32_t arg)
{
	return lq_push(&q->h, time, type, arg);
}

int eventq_pop(struct eventq *q, struct event *out)
{
	return lq_pop(&q->h, out);
}

int eventq_peek(struct eventq *q, struct event *out)
{
	return lq_peek(&q->h, out);
}

size_t eventq_size(const struct eventq *q)
{
	return lq_size(&q->h);
}

uint64_t eventq_pushes(const struct eventq *q)
{
	return q->h.next_seq;
}

const char *eventq_kind(void)
{
	return "ladder queue";
}

int eventq_check(const struct eventq *q)
{
	return q ? lq_check(&q->h) : NS_EINTERNAL;
}
