/*
 * bench_eventq — event-queue throughput: binary vs 4-ary vs 8-ary heap vs
 * radix heap vs ladder queue.
 *
 * Instantiates sim/eventq_heap.h three times, includes the radix heap of
 * sim/eventq_radix.h and the ladder queue of sim/eventq_ladder.h (the same
 * code eventq.c uses), and runs the classic
 * "hold" workload on each: fill the queue with Q
 * events, then repeat {pop the first event, push one at its time + an
 * exponential delay} for OPS operations.  That is the queue's access pattern
 * under PHOLD and under the workloads, where each handled event schedules
 * about one more.  Delays come from a precomputed table (mean 1000 ticks) so
 * the figures measure the heap, not the random number generator.
 *
 * Every variant must pop exactly the same (time, seq) sequence, because
 * (time, seq) is a total order; the benchmark hashes the popped sequence and
 * exits 1 if the hashes differ or a queue fails its invariant check.  With
 * --smoke it runs tiny sizes only, as a correctness test.
 *
 * usage: bench_eventq [--ops N] [--repeat R] [--smoke]
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/diag.h"

#define EVQ_D 2
#define EVQ_FN(x) heap2_##x
#include "sim/eventq_heap.h"

#define EVQ_D 4
#define EVQ_FN(x) heap4_##x
#include "sim/eventq_heap.h"

#define EVQ_D 8
#define EVQ_FN(x) heap8_##x
#include "sim/eventq_heap.h"

#include "sim/eventq_ladder.h"
#include "sim/eventq_radix.h"

#define DELAYS 65536 /* power of two: index by mask */

struct hold_result {
	double seconds;
	uint64_t hash;
	int ok;
};

static uint64_t splitmix64(uint64_t *s)
{
	uint64_t z = (*s += 0x9E3779B97F4A7C15ULL);
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
	return z ^ (z >> 31);
}

static double now_seconds(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static uint64_t mix(uint64_t h, const struct event *e)
{
	h ^= e->time + 0x9E3779B97F4A7C15ULL + (h << 6) + (h >> 2);
	h ^= e->seq + 0x9E3779B97F4A7C15ULL + (h << 6) + (h >> 2);
	return h;
}

/*
 * One hold run per variant, generated from a macro so the loops are the
 * same source; each calls its own inlined push/pop.
 */
#define DEFINE_HOLD(P)                                                         \
	static struct hold_result P##_hold(const uint64_t *delay, size_t q,    \
					   uint64_t ops)                       \
	{                                                                      \
		struct hold_result r = {0, 0, 0};                              \
		struct P##_heap h;                                             \
		if (P##_init(&h, 16) != NS_OK)                                 \
			return r;                                              \
		for (size_t i = 0; i < q; i++)                                 \
			if (P##_push(&h, delay[i & (DELAYS - 1)], (uint32_t)i, \
				     0) != NS_OK)                              \
				goto out;                                      \
		double t0 = now_seconds();                                     \
		struct event e;                                                \
		for (uint64_t k = 0; k < ops; k++) {                           \
			if (P##_pop(&h, &e) != NS_OK)                          \
				goto out;                                      \
			r.hash = mix(r.hash, &e);                              \
			if (P##_push(&h, e.time + delay[k & (DELAYS - 1)],     \
				     e.type, e.arg) != NS_OK)                  \
				goto out;                                      \
		}                                                              \
		r.seconds = now_seconds() - t0;                                \
		r.ok = P##_check(&h) == NS_OK && P##_size(&h) == q;                     \
	out:                                                                   \
		P##_fini(&h);                                                  \
		return r;                                                      \
	}

DEFINE_HOLD(heap2)
DEFINE_HOLD(heap4)
DEFINE_HOLD(heap8)
DEFINE_HOLD(rdx)
DEFINE_HOLD(lq)

typedef struct hold_result (*hold_fn)(const uint64_t *, size_t, uint64_t);

static const struct {
	const char *name;
	hold_fn fn;
} variants[] = {
	{"binary", heap2_hold},
	{"4-ary", heap4_hold},
	{"8-ary", heap8_hold},
	{"radix", rdx_hold},
	{"ladder", lq_hold},
};
#define NR_VARIANTS (sizeof variants / sizeof variants[0])

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static int parse_u64(const char *s, uint64_t *out)
{
	char *end;
	unsigned long long v = strtoull(s, &end, 10);
	if (end == s || *end || v == 0 || s[0] == '-')
		return -1;
	*out = v;
	return 0;
}

int main(int argc, char **argv)
{
	uint64_t ops = 10000000, repeat = 3;
	int smoke = 0;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--smoke")) {
			smoke = 1;
		} else if (!strcmp(argv[i], "--ops") && i + 1 < argc) {
			if (parse_u64(argv[++i], &ops))
				goto usage;
		} else if (!strcmp(argv[i], "--repeat") && i + 1 < argc) {
			if (parse_u64(argv[++i], &repeat) || repeat > 100)
				goto usage;
		} else {
			goto usage;
		}
	}
	static const size_t full_sizes[] = {16, 1000, 10000, 100000, 1000000};
	static const size_t smoke_sizes[] = {1, 2, 5, 33, 300};
	const size_t *sizes = smoke ? smoke_sizes : full_sizes;
	size_t nr_sizes = smoke ? sizeof smoke_sizes / sizeof *smoke_sizes
				: sizeof full_sizes / sizeof *full_sizes;
	if (smoke) {
		ops = 20000;
		repeat = 1;
	}

	/* Exponential delays, mean 1000 ticks, from a fixed seed. */
	uint64_t *delay = malloc(DELAYS * sizeof *delay);
	double *rate = malloc(repeat * sizeof *rate);
	if (!delay || !rate) {
		fprintf(stderr, "bench_eventq: out of memory\n");
		return 1;
	}
	uint64_t s = 1;
	for (size_t i = 0; i < DELAYS; i++) {
		double u = (double)(splitmix64(&s) >> 11) * 0x1p-53;
		delay[i] = (uint64_t)(-log1p(-u) * 1000.0);
	}

	int status = 0;
	printf("hold model: %" PRIu64 " pop+push pairs per run, median of %" PRIu64
	       " runs, M pairs/s (min-max)\n", ops, repeat);
	printf("%10s", "queue");
	for (size_t v = 0; v < NR_VARIANTS; v++)
		printf("  %22s", variants[v].name);
	printf("\n");
	for (size_t si = 0; si < nr_sizes; si++) {
		size_t q = sizes[si];
		uint64_t ref_hash = 0;
		printf("%10zu", q);
		for (size_t v = 0; v < NR_VARIANTS; v++) {
			struct hold_result r = {0, 0, 0};
			for (uint64_t k = 0; k < repeat; k++) {
				r = variants[v].fn(delay, q, ops);
				if (!r.ok)
					break;
				rate[k] = (double)ops / r.seconds / 1e6;
			}
			if (!r.ok || (v > 0 && r.hash != ref_hash)) {
				fprintf(stderr, "\nbench_eventq: %s queue failed at queue size %zu\n",
					variants[v].name, q);
				status = 1;
				continue;
			}
			ref_hash = r.hash;
			qsort(rate, repeat, sizeof *rate, cmp_double);
			char cell[64];
			snprintf(cell, sizeof cell, "%.1f (%.1f-%.1f)",
				 rate[repeat / 2], rate[0], rate[repeat - 1]);
			printf("  %22s", cell);
		}
		printf("\n");
	}
	free(delay);
	free(rate);
	return status;
usage:
	fprintf(stderr, "usage: bench_eventq [--ops N] [--repeat R] [--smoke]\n");
	return 2;
}
