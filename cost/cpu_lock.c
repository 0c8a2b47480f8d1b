/*
 * cpu_lock — spinlocks as the cost model sees them (cpu_lock(),
 * cpu_unlock(): waits, line transfers), interrupt flags, this_cpu_cmpxchg
 * and idling (cpu_advance_to()).  A fast call's locks (sampled
 * accounting) are priced in cost/cpu_sampled_lock.c.
 */
#include "cost/cpu_internal.h"

#include <assert.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/diag.h"

void cpu_irq_save(struct cpu *c)
{
	if (c->mlog_on && cpu_memo_log(c, CPU_EV(CPU_EV_IRQ_SAVE, 0)))
		return;
	c->now += c->sys->k.irq_save;
	c->ctr[CPU_CTR_irq_save]++;
	cpu_charge_to(c, CPU_CHARGE_lock);
}

void cpu_irq_restore(struct cpu *c)
{
	if (c->mlog_on && cpu_memo_log(c, CPU_EV(CPU_EV_IRQ_RESTORE, 0)))
		return;
	c->now += c->sys->k.irq_restore;
	cpu_charge_to(c, CPU_CHARGE_lock);
}

void cpu_this_cpu_cmpxchg(struct cpu *c)
{
	if (c->mlog_on && cpu_memo_log(c, CPU_EV(CPU_EV_CMPXCHG, 0)))
		return;
	c->now += c->sys->k.this_cpu_cmpxchg;
	c->ctr[CPU_CTR_this_cpu_cmpxchg]++;
	cpu_charge_to(c, CPU_CHARGE_lock);
}

void cpu_advance_to(struct cpu *c, uint64_t t)
{
	cpu_block_exit(c, -1);
	if (c->mlog_on == CPU_LOG_MEMO)
		cpu_memo_break(c);
	if (t <= c->now)
		return;
	cpu_attribute(c);
	c->ctr[CPU_CTR_idle_cycles] += t - c->now;
	c->now = t;
	c->last = t;
	c->kmark = t;
	c->o.slot = c->o.lslot = 0;
}

void cpu_lock_init(struct cpu_lock *l)
{
	cpu_lock_init_class(l, NULL);
}

void cpu_lock_init_class(struct cpu_lock *l, const char *cls)
{
	memset(l, 0, sizeof *l);
	l->holder = -1;
	l->last = -1;
	l->cls = cls;
}

int cpu_lock(struct cpu *c, struct cpu_lock *l)
{
	cpu_block_exit(c, -1);
	if (c->mlog_on == CPU_LOG_MEMO)
		cpu_memo_break(c);
	if (l->holder == c->idx)
		return NS_EINTERNAL;
	if (l->holder >= 0)
		return CPU_LOCK_BUSY;
	if (c->mlog_on == CPU_LOG_MUTE) {
		l->holder = c->idx;    /* a call behind a key that is off: no cost */
		return NS_OK;
	}
	if (c->mlog_on == CPU_LOG_FAST) {
		/* sampled: who holds it is kept; its cost is the path's and
		 * its own waits and transfer ("Lock waits") */
		uint64_t term = c->stab_fn[c->sys->tables->nr_fns + SIG_LOCK] + fast_lock_edge(c, l, 0);
		fast_lock_term(c, term);
		fast_lock(c, l);
		l->acquisitions++;
		l->holder = c->idx;
		return NS_OK;
	}
	if (c->sampling)
		sample_lock_at(c, l);
	if (c->ooo)
		ooo_fence(c);             /* spin_lock is a locked cmpxchg */
	if (c->sampling)
		sample_lock_edge(c, l, 0);
	/* (a CPU's own release came before: the test matters only when a
	 * fast call released at its estimate, "Lock waits" above) */
	if (c->now < l->free_at && l->last != c->idx) {
		uint64_t wait = l->free_at - c->now;
		c->now = l->free_at;
		c->ctr[CPU_CTR_lock_contended]++;
		c->ctr[CPU_CTR_lock_wait_cycles] += wait;
		l->contended++;
		l->wait_cycles += wait;
		if (c->sampling)
			sample_lock_cost(c, wait, CPU_CTR_lock_wait_cycles, wait);
	}
	uint64_t x = lock_transfer(c, l);
	if (x) {
		c->now += x;
		c->ctr[CPU_CTR_lock_transfer]++;
		if (c->sampling)
			sample_lock_cost(c, x, CPU_CTR_lock_transfer, 1);
	}
	c->now += c->sys->k.lock;
	c->ctr[CPU_CTR_lock_acquire]++;
	cpu_charge_to(c, CPU_CHARGE_lock);
	l->acquisitions++;
	l->holder = c->idx;
	return NS_OK;
}

int cpu_unlock(struct cpu *c, struct cpu_lock *l)
{
	cpu_block_exit(c, -1);
	if (c->mlog_on == CPU_LOG_MEMO)
		cpu_memo_break(c);
	if (l->holder != c->idx)
		return NS_EINTERNAL;
	l->holder = -1;
	if (c->mlog_on == CPU_LOG_MUTE)
		return NS_OK;          /* a call behind a key that is off: no cost */
	l->last = c->idx;
	if (c->mlog_on == CPU_LOG_FAST) {
		uint64_t term = fast_lock_edge(c, l, 1);
		fast_lock_term(c, term);
		l->free_at = fast_clock(c);
	} else {
		c->now += c->sys->k.unlock;
		cpu_charge_to(c, CPU_CHARGE_lock);
		if (c->sampling)
			sample_lock_edge(c, l, 1);
		l->free_at = c->now;
	}
	return NS_OK;
}
