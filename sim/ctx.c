/*
 * ctx — the per-run simulation context; see ctx.h.
 *
 * Design notes.  Random streams are created lazily because the set a run
 * uses depends on its scenario (one per workload, per CPU, ...); the table
 * of stream pointers grows by doubling up to the highest id used, and each
 * stream is its own allocation so the pointers handed out stay valid when
 * the table grows.  Creating a stream allocates; drawing from one does not,
 * so models fetch their streams at setup and the event loop never
 * allocates except when the queue outgrows its largest size so far.
 */
#include "sim/ctx.h"

#include <stdlib.h>
#include <string.h>

#include "base/diag.h"

int sim_ctx_create(uint64_t run_seed, size_t queue_hint, struct sim_ctx **out)
{
	*out = NULL;
	struct sim_ctx *ctx = calloc(1, sizeof *ctx);
	if (!ctx)
		return NS_ENOMEM;
	ctx->run_seed = run_seed;
	ctx->q = eventq_create(queue_hint);
	if (!ctx->q) {
		free(ctx);
		return NS_ENOMEM;
	}
	*out = ctx;
	return NS_OK;
}

void sim_ctx_destroy(struct sim_ctx *ctx)
{
	if (!ctx)
		return;
	for (uint32_t i = 0; i < ctx->nr_streams; i++) {
		if (ctx->streams[i]) {
			rng_fini(ctx->streams[i]);
			free(ctx->streams[i]);
		}
	}
	free(ctx->streams);
	eventq_destroy(ctx->q);
	free(ctx);
}

static int grow_streams(struct sim_ctx *ctx, uint32_t need)
{
	uint32_t n = ctx->nr_streams ? ctx->nr_streams : 8;
	while (n < need)
		n *= 2;
	struct rng **s = realloc(ctx->streams, n * sizeof *s);
	if (!s)
		return NS_ENOMEM;
	memset(s + ctx->nr_streams, 0, (n - ctx->nr_streams) * sizeof *s);
	ctx->streams = s;
	ctx->nr_streams = n;
	return NS_OK;
}

int sim_ctx_rng(struct sim_ctx *ctx, uint32_t stream, struct rng **out)
{
	int rc;
	*out = NULL;
	if (stream >= SIM_CTX_MAX_STREAMS)
		return NS_ERANGE;
	if (stream >= ctx->nr_streams && (rc = grow_streams(ctx, stream + 1)) != NS_OK)
		return rc;
	if (!ctx->streams[stream]) {
		struct rng *r = malloc(sizeof *r);
		if (!r)
			return NS_ENOMEM;
		if ((rc = rng_init(r, ctx->run_seed, stream)) != NS_OK) {
			free(r);
			return rc;
		}
		ctx->streams[stream] = r;
	}
	*out = ctx->streams[stream];
	return NS_OK;
}

int sim_ctx_check(const struct sim_ctx *ctx)
{
	if (!ctx || eventq_check(ctx->q) != NS_OK)
		return NS_EINTERNAL;
	struct event first;
	if (eventq_peek(ctx->q, &first) == NS_OK && first.time < ctx->now)
		return NS_EINTERNAL;
	if (ctx->events > eventq_pushes(ctx->q))
		return NS_EINTERNAL;
	if (ctx->nr_streams > SIM_CTX_MAX_STREAMS || (ctx->nr_streams && !ctx->streams))
		return NS_EINTERNAL;
	for (uint32_t i = 0; i < ctx->nr_streams; i++) {
		const struct rng *r = ctx->streams[i];
		if (r && (rng_check(r) != NS_OK || r->stream != i ||
			  r->run_seed != ctx->run_seed))
			return NS_EINTERNAL;
	}
	return NS_OK;
}
