/*
 * cpu_sampled_lock — locks under sampled accounting: a fast call's lock
 * waits and transfers at its estimated time ("Lock waits"), the lock
 * edges samples learn, and where a fast call books its lock costs.
 */
#include "cost/cpu_internal.h"

#include <assert.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/diag.h"

/*
 * Lock waits under sampled accounting.  The clock stands still inside a
 * fast call, so without more a fast call would take every lock at its
 * start and release it there: CPUs would never wait for each other's
 * fast calls (on the second seed, exact's 178 M cycles of lock waits per
 * run fell to 7 M).  So a fast call keeps an estimate of the time it has
 * reached, fast_clock(): its start, its lock costs so far, and the mean
 * costs of the blocks it has run (the low half of fsig, learnt from the
 * samples).  At a lock another CPU released after that time it waits;
 * at a lock another CPU held last it pays the line's transfer; both are
 * counted as exact counts them (flock, lock_contended, lock_wait_cycles,
 * lock_transfer), and so is the acquisition itself.  At an unlock it
 * releases at that time.  Its lock costs are added to its path's cost at
 * its end, each lock's booked as exact books them where a sample took
 * that lock: its path's sample, if that took the lock or one of its
 * class (the name lockdep gives it), else its function's samples on this
 * CPU (that lock, its class, any), else another CPU's (fast_lock_book(),
 * struct sampled_lock_site).  A
 * sample's waits and transfers stay out of the cost it records for its
 * path (sample_lock_cost()): each call pays those it meets, not those
 * its path's sample met.  (fast_clock() and the other steps cpu_lock()
 * takes in a fast call are inline in cost/cpu_internal.h.)
 */
static void fast_lock_note(struct cpu *c, const struct cpu_lock *l, uint64_t x);

void fast_lock(struct cpu *c, struct cpu_lock *l)
{
	uint64_t t = fast_clock(c), f0 = c->flock;
	/* the CPU's own release came before this call (an estimate past
	 * this call's start is no reason to wait for itself) */
	if (t < l->free_at && l->last != c->idx) {
		uint64_t wait = l->free_at - t;
		c->flock += wait;
		c->ctr[CPU_CTR_lock_contended]++;
		c->ctr[CPU_CTR_lock_wait_cycles] += wait;
		l->contended++;
		l->wait_cycles += wait;
	}
	uint64_t x = lock_transfer(c, l);
	c->flock += x;
	c->ctr[CPU_CTR_lock_transfer] += x != 0;
	c->ctr[CPU_CTR_lock_acquire]++;
	if (c->flock > f0)
		fast_lock_note(c, l, c->flock - f0);
}

/*
 * Lock edges.  A fast call's clock moves at its branches, by the mean
 * cost of the block each ends.  At a spin_lock or spin_unlock between
 * two branches it stood at the last branch: early by the part of the
 * block already run and, under ooo, by the fence of spin_lock's locked
 * cmpxchg, which drains the ops still in flight.  The block that ends at
 * the next branch, inside the critical section, had those cycles in its
 * mean, so a fast call both tried for a lock too early (and waited too
 * long for another CPU's release) and held it too long: on the second
 * seed its estimated hold was 288 cycles against 195 in samples of the
 * same run.  So a sample also ends a block at each lock, after the
 * fence, and at each unlock (edges 0 and 1), learning the mean cycles
 * from its previous branch or edge, by the lock's class; a fast call
 * adds that mean to its clock there (the low half of fsig, as a block's
 * mean).  The path signature does not change.  (lock_edge_slot() and
 * fast_lock_edge() are inline in cost/cpu_internal.h.)
 */
/* A sample at edge e of lock l: the cycles since its previous branch or
 * edge. */
void sample_lock_edge(struct cpu *c, const struct cpu_lock *l, int e)
{
	struct cpu_sampled *sm = c->mt->sm;
	uint32_t k = lock_edge_slot(sm, l);
	sm->npart = 0;                 /* (a lost call's edges are its own) */
	sm->pmark = c->now;
	sm->edge_sum[e][k] += c->now - sm->tlast;
	sm->edge_n[e][k]++;
	sm->edge_mean[e][k] = sm->edge_sum[e][k] * 16 / sm->edge_n[e][k];
	sm->tlast = c->now;
}

/* How well a record of lock r (of class rc) stands for lock l: 0 it is
 * l, 1 a lock of l's class, 2 another. */
static int lock_rank(const struct cpu_lock *r, const char *rc, const struct cpu_lock *l)
{
	return r == l ? 0 : rc && rc == l->cls ? 1 : 2;
}

/* The records of fn in sm better for lock l than *best (of *rank):
 * a lower rank, or the same and later (by_when: by their samples' clock,
 * for records of several CPUs; else by seq).  Whether one was. */
static bool lock_site_scan(const struct cpu_sampled *sm, const struct cpu_lock *l, int32_t fn,
			   bool by_when, const struct sampled_lock_site **best, int *rank)
{
	bool found = false;
	for (uint32_t i = 0; l && i < sm->nlsite; i++) {
		const struct sampled_lock_site *ls = &sm->lsite[i];
		if (ls->fn != fn || !ls->at.valid)
			continue;
		int r = lock_rank(ls->at.lock, ls->at.cls, l);
		if (r < *rank || (r == *rank && (by_when ? ls->when > (*best)->when
							  : ls->seq > (*best)->seq))) {
			*best = ls;
			*rank = r;
			found = true;
		}
	}
	return found;
}

/* Where a fast call of fn books its costs at lock l when its path's
 * sample did not take l: where fn's samples took l, else where they last
 * took a lock of l's class (SLUB's list_locks, one per node and cache,
 * are all taken at the same few places, and so are the zones' locks),
 * else any lock (*rank 0, 1, 2); NULL: nowhere known (*rank 3). */
static const struct sampled_lock_at *lock_site_at(const struct cpu_sampled *sm,
						  const struct cpu_lock *l, int32_t fn,
						  int *rank_out)
{
	const struct sampled_lock_site *best = NULL;
	int rank = 3;
	lock_site_scan(sm, l, fn, false, &best, &rank);
	*rank_out = rank;
	return best ? &best->at : NULL;
}

static struct sampled_lock_site *lock_site_slot(struct cpu_sampled *sm,
					       const struct cpu_lock *l, int32_t fn);

/* Path p of CPU c2 as the same chain of calls from the top on CPU c
 * (made there on first use), or -1 when deeper than the chain kept. */
#define SAMPLED_CHAIN_MAX 64
static int32_t path_on(struct cpu *c, const struct cpu *c2, int32_t p)
{
	int32_t chain[SAMPLED_CHAIN_MAX];
	uint32_t n = 0;
	for (; p > 0; p = c2->path[p].parent) {
		if (n == SAMPLED_CHAIN_MAX)
			return -1;
		chain[n++] = c2->path[p].fn;
	}
	int32_t q = 0;
	while (n > 0)
		q = cpu_path_child(c, q, chain[--n]);
	return q;
}

/*
 * A CPU none of whose samples of fn has taken a lock yet (early in a run,
 * each CPU learns for itself) books a lost path's lock costs where
 * another CPU's samples of fn took lock l, else a lock of its class, else
 * any lock: the latest such record by its sample's clock (the lowest CPU
 * on a tie), copied into this CPU's records with its call path made on
 * this CPU.  NULL: no CPU has one.
 */
static const struct sampled_lock_at *lock_site_remote(struct cpu *c, const struct cpu_lock *l,
						      int32_t fn)
{
	const struct sampled_lock_site *best = NULL;
	const struct cpu *from = NULL;
	int rank = 3;
	for (int i = 0; l && i < c->sys->nr_cpus; i++) {
		const struct cpu *c2 = &c->sys->cpu[i];
		if (c2 != c && c2->mt && c2->mt->sm &&
		    lock_site_scan(c2->mt->sm, l, fn, true, &best, &rank))
			from = c2;
	}
	if (!best)
		return NULL;
	int32_t path = path_on(c, from, best->at.path);
	if (path < 0)
		return NULL;
	struct cpu_sampled *sm = c->mt->sm;
	struct sampled_lock_site *ls = lock_site_slot(sm, best->at.lock, fn);
	*ls = *best;
	ls->seq = ++sm->lsite_seq;
	ls->at.path = path;
	return &ls->at;
}

/* x cycles of the fast call's lock costs at lock l: booked at l's place
 * at its end (fast_lock_charge()); past SAMPLED_CALL_LOCKS locks, at the
 * last one's. */
static void fast_lock_note(struct cpu *c, const struct cpu_lock *l, uint64_t x)
{
	struct cpu_sampled *sm = c->mt->sm;
	uint32_t i = 0;
	while (i < sm->nfl && sm->fl[i].lock != l)
		i++;
	if (i == SAMPLED_CALL_LOCKS)
		i--;
	else if (i == sm->nfl)
		sm->fl[sm->nfl++] = (struct sampled_call_lock){l, 0};
	sm->fl[i].x += x;
}

/*
 * Where a fast call of fn books its x cycles at lock l, as exact books a
 * wait (self cycles of the function spinning and of its call path, total
 * cycles of the functions on the stack): where its path's sample took its
 * first lock (e->lock) when that is l or of l's class; else where its
 * function's samples on this CPU took l or a lock of its class
 * (lock_site_at()); else where its path's sample took its first lock;
 * else where its function's samples here last took any lock; else, with
 * no record on this CPU, where another CPU's samples took one
 * (lock_site_remote()); with none anywhere the top-level function's own,
 * as a lost path's estimate is.
 */
static void fast_lock_book(struct cpu *c, int fn, const struct sampled_entry *e,
			   const struct cpu_lock *l, uint64_t x)
{
	struct cpu_sampled *sm = c->mt->sm;
	int rp = e && e->lock.valid ? lock_rank(e->lock.lock, e->lock.cls, l) : 3, rl;
	const struct sampled_lock_at *at = lock_site_at(sm, l, fn, &rl);
	uint64_t *book = &sm->lock_site;
	if (rp < 3 && rp <= rl) {
		at = &e->lock;
		book = &sm->lock_path;
	} else if (!at && (at = lock_site_remote(c, l, fn)) != NULL) {
		book = &sm->lock_remote;
	}
	*(at ? book : &sm->lock_own) += x;
	if (!at) {
		fast_charge_own(c, fn, x);
		return;
	}
	c->now += x;
	c->last = c->now;
	if (at->attr >= 0)
		c->prof[at->attr].self += x;
	else
		c->outside += x;
	c->path[at->path].self += x;
	for (uint32_t i = 0; i < at->nout; i++)
		c->prof[at->out[i]].total += x;
}

/* A fast call's lock costs ("Lock waits" above), before its path's cost
 * (whose core state is relative to the clock after them), each booked at
 * its lock's place. */
void fast_lock_charge(struct cpu *c, int fn, const struct sampled_entry *e)
{
	if (!c->flock)
		return;
	c->flock = 0;
	struct cpu_sampled *sm = c->mt->sm;
	for (uint32_t i = 0; i < sm->nfl; i++)
		fast_lock_book(c, fn, e, sm->fl[i].lock, sm->fl[i].x);
	sm->nfl = 0;
}

/* Where the sample stands: the function spinning, its call path and the
 * outermost activations on the stack (valid 0 when they are more than
 * SAMPLED_LOCK_FRAMES: then the top-level function's own). */
static void lock_at_here(const struct cpu *c, struct sampled_lock_at *at)
{
	at->valid = 0;
	at->nout = 0;
	at->attr = c->attr;
	at->path = c->cur_path;
	for (int i = 0; i < c->depth; i++) {
		if (!c->stack[i].outer)
			continue;
		if (at->nout == SAMPLED_LOCK_FRAMES)
			return;
		at->out[at->nout++] = c->stack[i].fn;
	}
	at->valid = 1;
}

/* The record of (l, fn) to write: its own, else a free one, else the
 * oldest. */
static struct sampled_lock_site *lock_site_slot(struct cpu_sampled *sm,
					       const struct cpu_lock *l, int32_t fn)
{
	for (uint32_t i = 0; i < sm->nlsite; i++)
		if (sm->lsite[i].at.lock == l && sm->lsite[i].fn == fn)
			return &sm->lsite[i];
	if (sm->nlsite < SAMPLED_LOCK_SITES)
		return &sm->lsite[sm->nlsite++];
	struct sampled_lock_site *r = &sm->lsite[sm->lsite_next];
	sm->lsite_next = (sm->lsite_next + 1) % SAMPLED_LOCK_SITES;
	return r;
}

/* A sample's lock (cpu_lock()): where its first one is taken, for its
 * path's fast calls, and where it took this lock, for the lost paths of
 * its function (fast_lock_book()). */
void sample_lock_at(struct cpu *c, const struct cpu_lock *l)
{
	struct cpu_sampled *sm = c->mt->sm;
	struct sampled_lock_site *ls = lock_site_slot(sm, l, sm->fn);
	ls->fn = sm->fn;
	ls->seq = ++sm->lsite_seq;
	ls->when = c->now;
	lock_at_here(c, &ls->at);
	ls->at.lock = l;
	ls->at.cls = l->cls;
	if (sm->lock.attr == -2)       /* its first */
		sm->lock = ls->at;
}

/*
 * A sample spent cycles on a lock that are the call's, not its path's (a
 * wait, a transfer): the snapshot moves by as much, so that the cost the
 * sample records for its path (sampled_delta()) leaves them out: the
 * clock, the counter id (by count; lock_contended too for a wait), the
 * self cycles of the function spinning (and of its call path), the total
 * cycles of every function whose outermost activation is on the stack,
 * and the block estimate.
 */
void sample_lock_cost(struct cpu *c, uint64_t cycles, enum cpu_counter id,
		      uint64_t count)
{
	struct cpu_sampled *sm = c->mt->sm;
	sm->now0 += cycles;
	sm->tlast += cycles;
	sm->pmark += cycles;
	sm->ctr0[id] += count;
	sm->ctr0[CPU_CTR_lock_contended] += id == CPU_CTR_lock_wait_cycles;
	if (c->attr >= 0)
		sm->prof0[c->attr].self += cycles;
	else
		sm->outside0 += cycles;
	for (int i = 0; i < c->depth; i++)
		if (c->stack[i].outer)
			sm->prof0[c->stack[i].fn].total += cycles;
	uint32_t p = (uint32_t)c->cur_path;
	if (p >= sm->cpath0 || sm->path_touched[p] != sm->mark) {
		sm->spoiled = 1;       /* its baseline had no room: not recorded */
		return;
	}
	sm->path0[p].self += cycles;
}
