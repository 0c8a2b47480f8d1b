/*
 * cpu_ooo — the out-of-order interval model (cost.model ooo; cost/cpu.h,
 * "The out-of-order timing model"): mispredicts, calls and returns, the
 * window (ROB) rule, fill buffers and the fence of a locked op.  The
 * hot dispatch steps are inline in cost/cpu_hot.h.
 */
#include "cost/cpu_internal.h"

#include <assert.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/diag.h"

/* --- the out-of-order core ---------------------------------------------- */


/* A mispredicted branch: it resolves one cycle after its input (the open
 * chain) is ready, and the right path dispatches k_mispredict cycles
 * later (the machine's refill penalty); nothing younger was useful. */
void cpu_ooo_mispredict(struct cpu *c, uint64_t input)
{
	uint64_t b = ooo_last_cycle(c);
	uint64_t resolve = (input > b ? input : b) + 1;
	c->ctr[CPU_CTR_mispredict_resolve_cycles] += resolve - b;
	ooo_restart(c, resolve + c->k_mispredict);
}
#define ooo_mispredict cpu_ooo_mispredict

/* One conditional branch: one fused uop (cmp/test + jcc); it closes the
 * open dependent chain (its value was consumed here). */
void cpu_ooo_branch(struct cpu *c, unsigned taken, unsigned miss)
{
	cpu_ooo_dispatch(c, 1, CPU_CHARGE_branch);
	if (miss)
		ooo_mispredict(c, c->o.chain);
	else if (taken)
		ooo_taken(c);
	c->o.chain = 0;
}

void cpu_ooo_call(struct cpu *c)
{
	cpu_ooo_dispatch(c, c->k_call, CPU_CHARGE_call);   /* k_call: call_uops under ooo */
	ooo_taken(c);
}

void cpu_ooo_ret(struct cpu *c, bool rsb_hit)
{
	cpu_ooo_dispatch(c, c->k_ret, CPU_CHARGE_call);    /* k_ret: ret_uops */
	if (rsb_hit) {
		ooo_taken(c);
		return;
	}
	/* the target comes from the stack: an L1 load, then the refill */
	ooo_mispredict(c, ooo_last_cycle(c) + c->k_l1d);
	c->ctr[CPU_CTR_rsb_mispredict]++;
}

/* Retire the oldest tracked long op: dispatch waits for it if it is not
 * done yet (counted as a ROB stall), and its load-queue entry is freed. */
static void ooo_retire_oldest(struct cpu *c)
{
	struct cpu_ooo *o = &c->o;
	uint64_t d = o->rdone[o->head];
	if (d > c->now) {
		c->ctr[CPU_CTR_rob_stall_cycles] += d - c->now;
		ooo_restart(c, d);
	}
	o->loads -= o->rload[o->head];
	o->head = (o->head + 1) % CPU_OOO_RING;
	o->n--;
}

void cpu_ooo_window(struct cpu *c, enum cpu_charge k)
{
	struct cpu_ooo *o = &c->o;
	cpu_charge_to(c, k);  /* the dispatch before the wait: its step's kind */
	while (o->n && (o->rpos[o->head] + o->rob <= o->pos ||
			(o->rload[o->head] && o->loads > o->load_queue))) {
		ooo_retire_oldest(c);
	}
	cpu_charge_to(c, CPU_CHARGE_mem);
}

/* Record an op that completes at done (for the window rule); load: it
 * holds a load-queue entry. */
static void ooo_long(struct cpu *c, uint64_t done, bool load)
{
	struct cpu_ooo *o = &c->o;
	/* dispatch reaches pos + rob no sooner than rob / width cycles on:
	 * an op done by then never blocks it */
	if (done <= c->now + o->rob_cycles)
		return;
	if (o->n == CPU_OOO_RING) {
		/* more long ops in flight than tracked: the oldest retires first */
		ooo_retire_oldest(c);
	}
	uint32_t i = (o->head + o->n) % CPU_OOO_RING;
	o->rpos[i] = o->pos;
	o->rdone[i] = done;
	o->rload[i] = load;
	o->loads += load;
	o->n++;
}

/* An L1 miss issued at start takes a fill buffer: the one that frees
 * first (all busy: the miss waits for it).  Returns the issue time. */
static uint64_t ooo_fill_buffer(struct cpu *c, uint64_t start, uint32_t lat)
{
	struct cpu_ooo *o = &c->o;
	uint32_t m = 0;
	for (uint32_t i = 1; i < o->mlp; i++)
		if (o->miss[i] < o->miss[m])
			m = i;
	if (o->miss[m] > start) {
		c->ctr[CPU_CTR_mlp_wait_cycles] += o->miss[m] - start;
		start = o->miss[m];
	}
	o->miss[m] = start + lat;
	return start;
}

uint32_t cpu_ooo_mem(struct cpu *c, enum cpu_access kind, uint32_t lat, bool miss)
{
	struct cpu_ooo *o = &c->o;
	uint64_t before = c->now;
	bool load = kind == CPU_LOAD_DEP || kind == CPU_LOAD;
	if (load && o->lslot == o->load_ports)
		ooo_restart(c, c->now + 1);  /* the load ports are taken */
	cpu_ooo_dispatch(c, 1, CPU_CHARGE_mem);
	o->lslot += load;
	c->ctr[CPU_CTR_mem_load_dep + (int)kind]++;
	if (kind == CPU_STORE)
		return (uint32_t)(c->now - before); /* the store buffer takes it */
	uint64_t start = ooo_last_cycle(c);
	if (kind == CPU_LOAD_DEP && o->chain > start)
		start = o->chain;         /* its address is the chain's value */
	if (miss)
		start = ooo_fill_buffer(c, start, lat);
	uint64_t done = start + lat;
	if (kind == CPU_LOAD_DEP)
		o->chain = done;
	ooo_long(c, done, load);
	uint32_t moved = (uint32_t)(c->now - before);
	c->ctr[CPU_CTR_mem_stall_cycles] += moved;
	return moved;
}

/*
 * A locked instruction is a full barrier on x86 (Intel SDM vol. 3A
 * §8.2.2: "locked instructions have a total order" and loads and stores
 * are not reordered with them): it waits for every op in flight.
 */
void ooo_fence(struct cpu *c)
{
	struct cpu_ooo *o = &c->o;
	uint64_t t = c->now > o->chain ? c->now : o->chain;
	for (uint32_t i = 0; i < o->n; i++) {
		uint64_t d = o->rdone[(o->head + i) % CPU_OOO_RING];
		t = d > t ? d : t;
	}
	for (uint32_t i = 0; i < o->mlp; i++)
		t = o->miss[i] > t ? o->miss[i] : t;
	if (t > c->now)
		c->ctr[CPU_CTR_fence_wait_cycles] += t - c->now;
	ooo_restart(c, t > c->now ? t : c->now);
	o->n = o->loads = 0;
	o->chain = 0;
	cpu_charge_to(c, CPU_CHARGE_mem);  /* the wait for older memory ops */
}
