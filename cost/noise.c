/*
 * noise — the seeded noise sources' set-up, ticks and pollution; see
 * noise.h for what each models and its sources.
 */
#include "cost/noise.h"

#include <string.h>

#include "base/diag.h"
#include "cost/cache.h"

void noise_params_default(struct noise_params *p)
{
	*p = (struct noise_params){
		.hz = NOISE_HZ_DEFAULT,
		.tick_ns = NOISE_TICK_NS_DEFAULT,
		.tick_lines = NOISE_TICK_LINES_DEFAULT,
		.pollution_percent = NOISE_POLLUTION_PERCENT_DEFAULT,
	};
}

bool noise_params_any(const struct noise_params *p)
{
	return p->page_placement || p->ticks || p->pollution;
}

int noise_init(struct noise *n, const struct noise_params *p, struct cpu *c,
	       uint64_t run_seed)
{
	int rc;
	memset(n, 0, sizeof *n);
	n->p = *p;
	n->c = c;
	n->next_tick = UINT64_MAX;
	n->start = c->now;
	if (p->hz < NOISE_HZ_MIN || p->hz > NOISE_HZ_MAX || p->tick_ns > NOISE_TICK_NS_MAX ||
	    p->tick_lines > NOISE_TICK_LINES_MAX || p->pollution_percent > 100)
		return NS_ERANGE;
	const struct cache *l2 = &c->sys->cache.cpu[c->idx].l2;
	n->l2_lines = l2->nsets * l2->assoc;
	if (p->ticks) {
		if ((rc = rng_init(&n->tick_rng, run_seed, NOISE_STREAM_TICK)))
			return rc;
		n->have_tick_rng = true;
		/* 1/HZ seconds in core cycles (clock_ghz: cycles per ns) */
		double period = c->sys->k.clock_ghz * 1e9 / (double)p->hz;
		n->period = period >= 1 ? (uint64_t)period : 1;
		n->tick_cycles = cpu_ns_to_cycles(&c->sys->k, (double)p->tick_ns);
		/* the phase: where in its tick period the run starts */
		n->next_tick = n->start + (uint64_t)(rng_uniform(&n->tick_rng) * (double)n->period);
	}
	if (p->pollution) {
		if ((rc = rng_init(&n->pollution_rng, run_seed, NOISE_STREAM_POLLUTION))) {
			noise_fini(n);
			return rc;
		}
		n->have_pollution_rng = true;
	}
	return NS_OK;
}

void noise_fini(struct noise *n)
{
	if (n->have_tick_rng)
		rng_fini(&n->tick_rng);
	if (n->have_pollution_rng)
		rng_fini(&n->pollution_rng);
	n->have_tick_rng = n->have_pollution_rng = false;
}

int noise_check(const struct noise *n)
{
	if (n->p.ticks && (n->period < 1 || !n->have_tick_rng || n->next_tick < n->start ||
			   rng_check(&n->tick_rng)))
		return NS_EINTERNAL;
	if (!n->p.ticks && (n->ticks || n->next_tick != UINT64_MAX))
		return NS_EINTERNAL;
	if (n->p.pollution && (!n->have_pollution_rng || rng_check(&n->pollution_rng)))
		return NS_EINTERNAL;
	if (!n->p.pollution && n->polluted_lines)
		return NS_EINTERNAL;
	if (n->tick_cycles_total != n->ticks * n->tick_cycles)
		return NS_EINTERNAL;
	return NS_OK;
}

/* Read the lines [addr, addr + lines * line size) through CPU c's caches,
 * uncharged (the handler's or another task's accesses). */
static void touch_lines(struct cpu *c, uint64_t addr, uint32_t lines)
{
	struct cache_sys *cs = &c->sys->cache;
	uint64_t line = addr >> cs->line_shift;
	int from;
	for (uint32_t i = 0; i < lines; i++)
		(void)cache_access(cs, c->idx, line + i, false, &from);
}

void noise_tick(struct noise *n)
{
	struct cpu *c = n->c;
	/* every tick due by now (a long call may span more than one) */
	while (c->now >= n->next_tick) {
		/* the handler's direct cost, on the interrupted operation's clock */
		cpu_work(c, n->tick_cycles);
		/* its data: the same per-CPU lines at every tick */
		touch_lines(c, NOISE_TICK_ADDR + ((uint64_t)c->idx << 20), n->p.tick_lines);
		n->ticks++;
		n->tick_cycles_total += n->tick_cycles;
		n->next_tick += n->period;
	}
}

void noise_pollute(struct noise *n)
{
	if (!n->p.pollution)
		return;
	struct cpu *c = n->c;
	struct cache_sys *cs = &c->sys->cache;
	uint64_t base = NOISE_POLLUTION_ADDR >> cs->line_shift;
	uint32_t area = (uint32_t)(NOISE_POLLUTION_BYTES >> cs->line_shift);
	uint32_t lines = (uint32_t)((uint64_t)n->l2_lines * n->p.pollution_percent / 100);
	int from;
	for (uint32_t i = 0; i < lines; i++)
		(void)cache_access(cs, c->idx, base + rng_uniform_int(&n->pollution_rng, area),
				   false, &from);
	n->pollutions++;
	n->polluted_lines += lines;
}
