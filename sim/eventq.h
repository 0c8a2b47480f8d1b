/*
 * eventq — the simulator's pending-event queue.
 *
 * What it models: nothing in the kernel; it is the engine's future-event
 * list.  Events are totally ordered by (time, seq): `time` is the simulated
 * time in CPU cycles (uint64_t, so no rounding and no float equality traps),
 * `seq` a 64-bit sequence number the queue assigns at push, counting up from
 * 0 in insertion order.  Events with equal times therefore pop in the order
 * they were pushed (FIFO), which keeps every run deterministic whatever the
 * heap does internally.  The sequence counter is never reset (a run of 2^64
 * pushes is out of reach), so seq is unique within one queue.
 *
 * An event is small (24 bytes) and carries no pointer: a 32-bit type chosen
 * by the caller and a 32-bit argument (typically an index into a table of
 * actors, CPUs or LPs).  The queue never interprets either.
 *
 * The data structure is private: a ladder queue (Tang, Goh, Thng 2005; see
 * sim/eventq_ladder.h and eventq.c, where bench/bench_eventq's comparison
 * with d-ary heaps is recorded).  Its arrays and node pool grow by doubling
 * and never shrink while the queue lives, so a push allocates only when the
 * queue outgrows its largest size so far, never per event.
 *
 * Invariants (checked by eventq_check()): the sorted Bottom orders before
 * every ladder rung and the rungs before the unsorted Top; every event sits
 * in the rung bucket its time maps to; the per-tier counts add up to the
 * size; every seq in the queue is below the next seq to be assigned.
 *
 * Error policy: push returns NS_ENOMEM when an array cannot grow (the queue
 * is left unchanged); pop and peek on an empty queue return NS_ENOENT, and
 * NS_ENOMEM (queue unchanged) if sorting their next batch needs memory that
 * cannot be had; create returns NULL when out of memory.  Nothing here
 * prints.
 */
#ifndef NUMASIM_EVENTQ_H
#define NUMASIM_EVENTQ_H

#include <stddef.h>
#include <stdint.h>

struct event {
	uint64_t time; /* simulated cycles */
	uint64_t seq;  /* assigned by eventq_push, insertion order */
	uint32_t type; /* caller-defined */
	uint32_t arg;  /* caller-defined */
};

struct eventq;

/* A queue with room for `capacity_hint` events before its first growth. */
struct eventq *eventq_create(size_t capacity_hint);
void eventq_destroy(struct eventq *q);

/* Insert an event; its seq is the number of pushes made before it. */
int eventq_push(struct eventq *q, uint64_t time, uint32_t type, uint32_t arg);
/*
 * Remove the first event in (time, seq) order into *out.  O(1) amortised:
 * the queue sorts a small batch of the earliest events now and then and
 * pops from it.
 */
int eventq_pop(struct eventq *q, struct event *out);
/*
 * Copy the first event without removing it.  Not const: the queue may
 * sort its next batch (see eventq_pop), which changes nothing a caller can
 * observe.
 */
int eventq_peek(struct eventq *q, struct event *out);
size_t eventq_size(const struct eventq *q);
/* Number of pushes so far (the seq the next push will get). */
uint64_t eventq_pushes(const struct eventq *q);
/* The data structure behind the queue, e.g. "ladder queue" (for reports). */
const char *eventq_kind(void);

/* Walk the queue; NS_OK or NS_EINTERNAL when an invariant is broken. */
int eventq_check(const struct eventq *q);

#endif
