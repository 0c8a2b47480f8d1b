/*
 * phold — the PHOLD benchmark (Fujimoto 1990): the engine's own speed.
 *
 * What it models: nothing in the kernel.  PHOLD is the standard synthetic
 * workload for discrete-event engines: N logical processes (LPs) exchange
 * messages; handling a message at an LP sends one new message to a
 * uniformly random LP (possibly itself) at now + an exponential delay of
 * mean 1 time unit.  The number of pending events therefore stays at the
 * initial population N * P, and the run measures the cost of the event
 * loop: one pop, one push and two random draws per event.
 *
 * Time: the engine counts integer ticks (the simulator's cycles); PHOLD
 * uses PHOLD_TICKS_PER_UNIT = 1000 ticks per time unit, and a delay is the
 * exponential variate times 1000, truncated (so a delay of 0 ticks happens
 * about once per 1000 events and exercises the FIFO order of equal times).
 * The initial P events of each LP are sent to that LP at delays drawn the
 * same way from time 0.
 *
 * Randomness: one stream (PHOLD_RNG_STREAM) of the run's context; per
 * event the destination is drawn first, then the delay.  The same
 * (lps, population, events, seed) give the same checksum on every machine
 * and build.
 *
 * Result: events handled (== the requested count), host seconds of the
 * event loop (CLOCK_MONOTONIC, setup excluded) and the CPU seconds the
 * thread spent in it (CLOCK_THREAD_CPUTIME_ID: on a shared machine the
 * wall time includes waiting for a CPU, the CPU time does not), the final
 * simulated time
 * (time of the last event handled) and a checksum: FNV-1a over the final
 * time and the per-LP received counts in LP order.
 *
 * Error policy: phold_run returns NS_ERANGE for zero LPs, population or
 * events, or more than PHOLD_MAX_PENDING initial events; NS_ENOMEM when
 * memory runs out; NS_EINTERNAL if the event loop loses an event (a bug).
 */
#ifndef NUMASIM_PHOLD_H
#define NUMASIM_PHOLD_H

#include <stdint.h>

#define PHOLD_TICKS_PER_UNIT 1000
#define PHOLD_RNG_STREAM 0
#define PHOLD_MAX_PENDING (1u << 28)

struct phold_params {
	uint32_t lps;        /* logical processes, >= 1 */
	uint32_t population; /* initial events per LP, >= 1 */
	uint64_t events;     /* events to handle, >= 1 */
	uint64_t seed;       /* run seed */
};

struct phold_result {
	uint64_t events;       /* events handled */
	double host_seconds;   /* wall time of the event loop */
	double cpu_seconds;    /* CPU time of the thread in the event loop */
	uint64_t final_time;   /* ticks */
	uint64_t checksum;
	uint64_t min_received; /* fewest events any LP handled */
	uint64_t max_received; /* most events any LP handled */
};

int phold_run(const struct phold_params *p, struct phold_result *out);

#endif
