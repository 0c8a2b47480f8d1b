/*
 * rng — random number streams derived from a run's seed; see rng.h.
 *
 * Design notes.  HAVE_INLINE makes GSL's gsl_rng_uniform* header functions
 * inline into the helpers below, leaving one indirect call into the
 * generator per draw.  The helpers are ordinary functions rather than
 * header inlines so that no other file depends on GSL's inline settings.
 */
#define HAVE_INLINE 1

#include "sim/rng.h"

#include <assert.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <string.h>

#include "base/diag.h"

#define GOLDEN_GAMMA 0x9E3779B97F4A7C15ULL

static uint64_t splitmix64_mix(uint64_t z)
{
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
	return z ^ (z >> 31);
}

uint64_t rng_splitmix64(uint64_t *state)
{
	*state += GOLDEN_GAMMA;
	return splitmix64_mix(*state);
}

uint32_t rng_stream_seed(uint64_t run_seed, uint32_t stream)
{
	uint64_t x = splitmix64_mix(run_seed) + stream;
	uint32_t seed;
	do
		seed = (uint32_t)(rng_splitmix64(&x) >> 32);
	while (seed == 0);
	return seed;
}

int rng_init(struct rng *r, uint64_t run_seed, uint32_t stream)
{
	memset(r, 0, sizeof *r);
	r->g = gsl_rng_alloc(gsl_rng_taus2);
	if (!r->g)
		return NS_ENOMEM;
	r->run_seed = run_seed;
	r->stream = stream;
	r->seed = rng_stream_seed(run_seed, stream);
	gsl_rng_set(r->g, r->seed);
	return NS_OK;
}

void rng_fini(struct rng *r)
{
	if (r->g)
		gsl_rng_free(r->g);
	r->g = NULL;
}

int rng_check(const struct rng *r)
{
	if (!r || !r->g || r->g->type != gsl_rng_taus2 || gsl_rng_min(r->g) != 0 ||
	    gsl_rng_max(r->g) != UINT32_MAX)
		return NS_EINTERNAL;
	if (r->seed == 0 || r->seed != rng_stream_seed(r->run_seed, r->stream))
		return NS_EINTERNAL;
	return NS_OK;
}

double rng_uniform(struct rng *r)
{
	return gsl_rng_uniform(r->g);
}

double rng_uniform_pos(struct rng *r)
{
	return gsl_rng_uniform_pos(r->g);
}

/*
 * Lemire's multiply-and-reject method (ACM TOMACS 2019): the high word of
 * x * n for a uniform 32-bit x, redrawing x when its low word falls in the
 * short biased stretch.  Unbiased like gsl_rng_uniform_int, but without its
 * 64-bit division per draw (a division only happens on the rare redraw
 * path).  taus2's gsl_rng_get covers the full range 0 .. 2^32-1 (checked
 * by rng_check).
 */
uint32_t rng_uniform_int(struct rng *r, uint32_t n)
{
	assert(n >= 1);
	uint64_t m = (uint64_t)(uint32_t)gsl_rng_get(r->g) * n;
	if ((uint32_t)m < n) {
		uint32_t reject_below = (uint32_t)(0u - n) % n; /* 2^32 mod n */
		while ((uint32_t)m < reject_below)
			m = (uint64_t)(uint32_t)gsl_rng_get(r->g) * n;
	}
	return (uint32_t)(m >> 32);
}

double rng_exponential(struct rng *r, double mean)
{
	return -mean * log(gsl_rng_uniform_pos(r->g));
}
