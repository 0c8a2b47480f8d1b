/*
 * noise — seeded sources of the run-to-run variance a real machine has
 * and the deterministic model has not (scenario key `noise:`,
 * docs/reference/scenario-format.md; what each models and why, docs/design/statistics.md
 * "Noise sources").  Off by default: a run without them is the
 * deterministic function of its scenario it always was.
 *
 * What it models, per source:
 *
 *   page_placement  which physical pages the buddy free lists hand out
 *       first.  The kernel's page_alloc.shuffle=1 (mm/shuffle.c, v5.2,
 *       CONFIG_SHUFFLE_PAGE_ALLOCATOR: shuffle_free_memory() at boot,
 *       __shuffle_zone() swapping order-(MAX_ORDER-1) free pages at random
 *       on their free list).  The shuffle itself is a kernel function and
 *       lives with the page allocator's model (models/shuffle.h); here are
 *       only its switch and its stream (NOISE_STREAM_SHUFFLE).
 *
 *   ticks  the periodic timer interrupt of a busy CPU: every 1/HZ seconds
 *       (CONFIG_HZ; kernel/Kconfig.hz's default HZ_250, the value of the
 *       Debian and Ubuntu kernel configs of the modelled era), starting at
 *       a phase drawn uniformly in [0, 1/HZ) from the run's seed.  A tick
 *       costs its handler's direct cost, tick_ns (cpu_work() on the CPU's
 *       clock, charged to the operation it interrupts), and its handler's
 *       data footprint, tick_lines cache lines of a per-CPU area read
 *       through the CPU's caches (cache_access(): the lines the benchmark
 *       loses are refilled by its own later accesses, the tick's indirect
 *       cost).  tick_ns's default: Tsafrir, "The context-switch overhead
 *       inflicted by hardware interrupts (and the enigma of do-nothing
 *       loops)", ExpCS 2007, measured the whole tick overhead at 0.5-1.5 %
 *       of the time at 1000 Hz (5-15 us per tick), the indirect part (cache
 *       refills) up to 85 % of it on the fastest processors: the direct
 *       part is then at least 15 % of 5 us, 750 ns.  tick_lines (64, 4 KiB)
 *       is an estimate of the tick path's per-CPU data, not a measurement.
 *       A tick is delivered at the first boundary between two top-level
 *       calls of the workload at or after its time (noise_poll()): the
 *       model's functions are never interrupted in the middle, so the tick
 *       lands in the timed block that contains its time.  Left out: the
 *       handler's branches in the predictor, and device interrupts.
 *
 *   pollution  other tasks running between two samples (where the
 *       benchmark's cond_resched() lets them) and evicting part of the
 *       benchmark's cache contents: the fraction-flushed model of Hwu and
 *       Conte, "The susceptibility of programs to context switching",
 *       IEEE Trans. Computers 43(9), 1994, whose parameter f_cs is the
 *       fraction of a cache's contents flushed between switches (1 the
 *       worst case).  Here f_cs = pollution_percent / 100 of the CPU's L2
 *       lines are read at addresses drawn at random from a 1 GiB area of
 *       other tasks' memory, through the CPU's caches (cache_access(), not
 *       charged: the other tasks' time is not the benchmark's).  The
 *       default, 10 %, is an assumption for a quiet benchmark machine, not
 *       a measurement.
 *
 * Every draw comes from the run's seed through its own rng stream
 * (NOISE_STREAM_*): the same seed gives the same ticks, lines and
 * shuffle; another seed other ones.
 *
 * Cost when off.  Nothing is set up and nothing is polled: the workload
 * runs its loop without the poll (workloads/wl_pagealloc.c instantiates
 * the loop twice), and the shuffle is a set-up step that is not called.
 *
 * Invariants (noise_check): an initialised state with ticks on has a
 * period of at least one cycle and a next tick not before the clock at
 * set-up; the counts only grow; the rng streams pass rng_check.
 *
 * Error policy: noise_init returns NS_ENOMEM when an rng stream cannot
 * be allocated and NS_ERANGE for parameters out of their documented
 * ranges (the scenario loader checks them first); the tick and the
 * pollution cannot fail.
 */
#ifndef NUMASIM_NOISE_H
#define NUMASIM_NOISE_H

#include <stdbool.h>
#include <stdint.h>

#include "cost/cpu.h"
#include "sim/rng.h"

/* Defaults and ranges of the scenario's noise keys. */
#define NOISE_HZ_DEFAULT 250            /* kernel/Kconfig.hz: default HZ_250 */
#define NOISE_HZ_MIN 24
#define NOISE_HZ_MAX 10000
#define NOISE_TICK_NS_DEFAULT 750       /* Tsafrir 2007, see above */
#define NOISE_TICK_NS_MAX 1000000
#define NOISE_TICK_LINES_DEFAULT 64     /* estimate, see above */
#define NOISE_TICK_LINES_MAX 16384    /* 1 MiB: the per-CPU area */
#define NOISE_POLLUTION_PERCENT_DEFAULT 10 /* assumption, see above */

/* The rng streams of the sources (beyond any workload's task streams). */
#define NOISE_STREAM_SHUFFLE 0x7ffff001u
#define NOISE_STREAM_TICK 0x7ffff002u
#define NOISE_STREAM_POLLUTION 0x7ffff003u

/* Synthetic addresses of the tick handler's per-CPU data (1 MiB a CPU)
 * and of the other tasks' memory; outside every address cache_as_alloc()
 * hands out and the workloads' fixed ones. */
#define NOISE_TICK_ADDR 0xffffe90000000000ull
#define NOISE_POLLUTION_ADDR 0xffffe98000000000ull
#define NOISE_POLLUTION_BYTES (1ull << 30)

/* The sources of a point (scenario `noise:`). */
struct noise_params {
	bool page_placement, ticks, pollution;
	uint32_t hz;                   /* ticks per second */
	uint32_t tick_ns;              /* a tick's direct cost */
	uint32_t tick_lines;           /* lines of the handler's data */
	uint32_t pollution_percent;    /* of the L2's lines, 0..100 */
};

/* Everything off, the figures at their defaults. */
void noise_params_default(struct noise_params *p);
/* Any source on? */
bool noise_params_any(const struct noise_params *p);

/* The run-time state of the ticks and the pollution on one CPU. */
struct noise {
	struct noise_params p;
	struct cpu *c;
	struct rng tick_rng, pollution_rng;
	bool have_tick_rng, have_pollution_rng;
	uint64_t period;               /* cycles between ticks */
	uint64_t next_tick;            /* clock of the next tick; UINT64_MAX: none */
	uint64_t start;                /* clock at set-up */
	uint32_t tick_cycles;          /* tick_ns in cycles */
	uint32_t l2_lines;             /* lines of the CPU's L2 */
	uint64_t ticks, tick_cycles_total; /* ticks delivered, their direct cycles */
	uint64_t pollutions, polluted_lines;
};

/* Set up the sources p has on for CPU c, drawing from run_seed's streams. */
int noise_init(struct noise *n, const struct noise_params *p, struct cpu *c,
	       uint64_t run_seed);
void noise_fini(struct noise *n);
int noise_check(const struct noise *n);

/* The ticks due by the CPU's clock, delivered (noise_poll's slow part). */
void noise_tick(struct noise *n);

/* Between two top-level calls: deliver the ticks that are due. */
static inline void noise_poll(struct noise *n)
{
	if (n->c->now >= n->next_tick)
		noise_tick(n);
}

/* Between two samples: the other tasks' cache pollution (if on). */
void noise_pollute(struct noise *n);

#endif
