/*
 * phold — the PHOLD benchmark; see phold.h.
 *
 * Design notes.  The benchmark drives the real engine (struct sim_ctx, its
 * event queue and its GSL stream) rather than a private copy, so its figure
 * is the speed of the event loop the models run on.  The world is an array
 * of per-LP received counters; an event's arg is its destination LP.  The
 * loop allocates nothing: the queue is sized for the whole population up
 * front and never grows.  phold_check() verifies conservation at the end:
 * every handled event was counted at exactly one LP and the population of
 * pending events is unchanged.
 */
#include "sim/phold.h"

#include <stdlib.h>
#include <time.h>

#include "sim/ctx.h"
#include "base/diag.h"

#define PHOLD_EV_MSG 1u

struct phold {
	struct sim_ctx *ctx;
	struct rng *rng;
	uint64_t *received; /* [lps] events handled at each LP */
	uint32_t lps;
	uint64_t pending;   /* lps * population */
};

static double clock_seconds(clockid_t clock)
{
	struct timespec ts;
	clock_gettime(clock, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static uint64_t draw_delay(struct rng *r)
{
	return (uint64_t)(rng_exponential(r, 1.0) * PHOLD_TICKS_PER_UNIT);
}

static int phold_check(const struct phold *w)
{
	uint64_t sum = 0;
	for (uint32_t i = 0; i < w->lps; i++)
		sum += w->received[i];
	if (sum != w->ctx->events || eventq_size(w->ctx->q) != w->pending)
		return NS_EINTERNAL;
	return sim_ctx_check(w->ctx);
}

static int seed_population(struct phold *w, uint32_t population)
{
	for (uint32_t i = 0; i < w->lps; i++)
		for (uint32_t k = 0; k < population; k++) {
			int rc = sim_ctx_schedule(w->ctx, draw_delay(w->rng), PHOLD_EV_MSG, i);
			if (rc != NS_OK)
				return rc;
		}
	return NS_OK;
}

/* Handle `events` events; each sends one message to a random LP. */
static int run_loop(struct phold *w, uint64_t events)
{
	struct sim_ctx *ctx = w->ctx;
	struct event ev;
	while (ctx->events < events) {
		int rc = sim_ctx_next(ctx, &ev);
		if (rc != NS_OK)
			return NS_EINTERNAL; /* the population never drains */
		w->received[ev.arg]++;
		uint32_t dest = rng_uniform_int(w->rng, w->lps);
		rc = sim_ctx_schedule(ctx, draw_delay(w->rng), PHOLD_EV_MSG, dest);
		if (rc != NS_OK)
			return rc;
	}
	return NS_OK;
}

static uint64_t fnv1a_u64(uint64_t h, uint64_t v)
{
	for (int i = 0; i < 8; i++) {
		h ^= (v >> (8 * i)) & 0xff;
		h *= 0x100000001B3ULL;
	}
	return h;
}

static void summarise(const struct phold *w, struct phold_result *out)
{
	uint64_t h = fnv1a_u64(0xCBF29CE484222325ULL, w->ctx->now);
	out->min_received = UINT64_MAX;
	out->max_received = 0;
	for (uint32_t i = 0; i < w->lps; i++) {
		uint64_t r = w->received[i];
		h = fnv1a_u64(h, r);
		out->min_received = r < out->min_received ? r : out->min_received;
		out->max_received = r > out->max_received ? r : out->max_received;
	}
	out->events = w->ctx->events;
	out->final_time = w->ctx->now;
	out->checksum = h;
}

int phold_run(const struct phold_params *p, struct phold_result *out)
{
	struct phold w = {0};
	int rc;

	if (!p->lps || !p->population || !p->events ||
	    (uint64_t)p->lps * p->population > PHOLD_MAX_PENDING)
		return NS_ERANGE;
	w.lps = p->lps;
	w.pending = (uint64_t)p->lps * p->population;
	w.received = calloc(p->lps, sizeof *w.received);
	if (!w.received) {
		rc = NS_ENOMEM;
		goto out;
	}
	if ((rc = sim_ctx_create(p->seed, (size_t)w.pending, &w.ctx)) != NS_OK)
		goto out;
	if ((rc = sim_ctx_rng(w.ctx, PHOLD_RNG_STREAM, &w.rng)) != NS_OK)
		goto out;
	if ((rc = seed_population(&w, p->population)) != NS_OK)
		goto out;
	double t0 = clock_seconds(CLOCK_MONOTONIC);
	double c0 = clock_seconds(CLOCK_THREAD_CPUTIME_ID);
	rc = run_loop(&w, p->events);
	out->cpu_seconds = clock_seconds(CLOCK_THREAD_CPUTIME_ID) - c0;
	out->host_seconds = clock_seconds(CLOCK_MONOTONIC) - t0;
	if (rc != NS_OK)
		goto out;
	if ((rc = phold_check(&w)) != NS_OK)
		goto out;
	summarise(&w, out);
out:
	sim_ctx_destroy(w.ctx);
	free(w.received);
	return rc;
}
