/*
 * ctx — the per-run simulation context: one world, no globals (design §4.4).
 *
 * A struct sim_ctx holds everything a run's engine needs: the current
 * simulated time, the pending-event queue, the run seed and the random
 * streams derived from it, and counters.  Runs are independent: two
 * contexts share nothing, so they can run side by side in threads and
 * tests can build fresh ones at will.
 *
 * The run loop is
 *
 *     while (sim_ctx_next(ctx, &ev) == NS_OK)
 *             handle(ctx, &ev);     // may sim_ctx_schedule() more events
 *
 * sim_ctx_next pops the first event in (time, seq) order, advances `now` to
 * its time and counts it.  Events are scheduled at now + delay or at an
 * absolute time that is not in the past, so `now` never decreases.
 *
 * Fields are public for reading in hot paths (ctx->now); change them only
 * through the functions below.
 *
 * Invariants (sim_ctx_check): the queue passes eventq_check and holds no
 * event earlier than now; events <= pushes made; every created stream is
 * valid, derived from this run's seed and filed under its own id.
 *
 * Error policy: functions return NS_* statuses: NS_ENOMEM when memory runs
 * out, NS_ERANGE for a time before now or past UINT64_MAX or a stream id
 * >= SIM_CTX_MAX_STREAMS, NS_ENOENT from sim_ctx_next when no event is left.
 * Nothing here prints.
 */
#ifndef NUMASIM_CTX_H
#define NUMASIM_CTX_H

#include <assert.h>
#include <stddef.h>
#include <stdint.h>

#include "base/diag.h"
#include "sim/eventq.h"
#include "sim/rng.h"

#define SIM_CTX_MAX_STREAMS 65536u

struct sim_ctx {
	uint64_t now;         /* simulated cycles: time of the current event */
	uint64_t run_seed;
	uint64_t events;      /* events handed out by sim_ctx_next */
	struct eventq *q;
	struct rng **streams; /* [stream id], NULL until first used */
	uint32_t nr_streams;  /* length of streams[] */
};

/* A context at time 0 with an empty queue sized for queue_hint events. */
int sim_ctx_create(uint64_t run_seed, size_t queue_hint, struct sim_ctx **out);
void sim_ctx_destroy(struct sim_ctx *ctx);

/*
 * The random stream `stream` of this run, created on first use (cache the
 * pointer: it stays valid until sim_ctx_destroy).
 */
int sim_ctx_rng(struct sim_ctx *ctx, uint32_t stream, struct rng **out);

/*
 * The three event-loop operations are inline: they run once or twice per
 * event and each is a check around one queue call.
 */

/* Schedule an event at now + delay. */
static inline int sim_ctx_schedule(struct sim_ctx *ctx, uint64_t delay, uint32_t type,
				   uint32_t arg)
{
	if (delay > UINT64_MAX - ctx->now)
		return NS_ERANGE;
	return eventq_push(ctx->q, ctx->now + delay, type, arg);
}

/* Schedule an event at an absolute time >= now. */
static inline int sim_ctx_schedule_at(struct sim_ctx *ctx, uint64_t time, uint32_t type,
				      uint32_t arg)
{
	if (time < ctx->now)
		return NS_ERANGE;
	return eventq_push(ctx->q, time, type, arg);
}

/* Pop the next event, advance now to its time, count it. */
static inline int sim_ctx_next(struct sim_ctx *ctx, struct event *ev)
{
	int rc = eventq_pop(ctx->q, ev);
	if (rc != NS_OK)
		return rc;
	assert(ev->time >= ctx->now);
	ctx->now = ev->time;
	ctx->events++;
	return NS_OK;
}

int sim_ctx_check(const struct sim_ctx *ctx);

#endif
