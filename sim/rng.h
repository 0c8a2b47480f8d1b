/*
 * rng — random number streams derived from a run's seed.
 *
 * All randomness in a run comes from GSL generators (design §4.5).  A run
 * has one 64-bit seed; each consumer (the PHOLD benchmark, a workload, one
 * simulated CPU, ...) draws from its own numbered stream, so adding draws
 * to one stream never shifts the numbers another stream sees, and the same
 * (run seed, stream id) always gives the same sequence.
 *
 * Generator: GSL's gsl_rng_taus2, L'Ecuyer's maximally equidistributed
 * combined Tausworthe generator (Math. Comp. 65, 1996; period 2^88, state
 * of three words, with the seeding fix of L'Ecuyer 2002).  It is GSL's
 * fastest simulation-quality generator and, unlike GSL's mt19937, has no
 * data-dependent branch in its step: mt19937's block refill cost PHOLD one
 * branch mispredict per event (cachegrind: 1.0 M mispredicts per 1 M
 * events, ~12% of the loop).  Like every F2-linear generator (mt19937
 * included) it fails only the linear-complexity tests of TestU01.  GSL
 * seeds it with 32 bits, so the seed of stream k is derived as
 *
 *     x = splitmix64_mix(run_seed) + k      (64-bit wraparound)
 *     seed_k = high 32 bits of the next splitmix64 output from state x,
 *              drawing again while that is 0 (GSL's taus2 maps seed 0
 *              to seed 1, which would alias another stream)
 *
 * splitmix64_mix is a bijection and distinct k give distinct states, so two
 * streams of a run share a seed only by a 32-bit collision (probability
 * 2^-32 per pair) and different run seeds give unrelated stream seeds.
 * Streams start at seed-dependent points of one 2^88 cycle: for k streams
 * of L draws each, the chance that two overlap is about k^2 L / 2^88,
 * negligible for any run (k = 2^16, L = 2^40: 2^-16).
 *
 * Invariants (rng_check): an initialised stream has a generator of type
 * taus2 (range 0 .. 2^32-1) whose seed is rng_stream_seed(run_seed,
 * stream).
 *
 * Error policy: rng_init returns NS_ENOMEM when GSL cannot allocate; the
 * draw helpers cannot fail.  rng_uniform_int requires n >= 1 (a caller
 * bug otherwise, asserted).
 */
#ifndef NUMASIM_RNG_H
#define NUMASIM_RNG_H

#include <stdint.h>

#include <gsl/gsl_rng.h>

struct rng {
	gsl_rng *g;
	uint64_t run_seed;
	uint32_t stream;
	uint32_t seed; /* the 32-bit seed given to gsl_rng_set */
};

/* splitmix64 (Steele, Lea, Flood 2014): advance *state, return an output. */
uint64_t rng_splitmix64(uint64_t *state);
/* The GSL seed of a stream; never 0. */
uint32_t rng_stream_seed(uint64_t run_seed, uint32_t stream);

int rng_init(struct rng *r, uint64_t run_seed, uint32_t stream);
void rng_fini(struct rng *r);
int rng_check(const struct rng *r);

/* Uniform double in [0, 1). */
double rng_uniform(struct rng *r);
/* Uniform double in (0, 1). */
double rng_uniform_pos(struct rng *r);
/* Uniform integer in [0, n), n >= 1, unbiased (Lemire's method on
 * gsl_rng_get; see rng.c). */
uint32_t rng_uniform_int(struct rng *r, uint32_t n);
/*
 * Exponential variate with the given mean: -mean * log(u), u uniform in
 * (0, 1) from this stream.  The same distribution as GSL's
 * gsl_ran_exponential (-mean * log1p(-u), u in [0, 1)), but log is about
 * twice as fast as log1p in glibc and PHOLD draws one per event.
 */
double rng_exponential(struct rng *r, double mean);

#endif
