/*
 * wl_parallel — K tasks allocating and freeing pages and slab objects
 * concurrently; see wl_parallel.h.
 *
 * Design notes.
 *
 * Engine.  One event = one model call of one CPU (a free or the
 * allocation).  A CPU runs one operation of one task at a time, a step per
 * event; when it ends, the CPU picks the next of its unfinished tasks
 * (round-robin, so several tasks on one CPU take turns on its clock; no
 * context-switch cost is charged).  Each next event is scheduled at the
 * CPU's clock after the step (after the think time when an operation
 * ended).  Events run in (time, sequence) order,
 * so the CPUs' operations interleave in simulated time: a CPU entering
 * zone->lock or a node's list_lock at a time before another CPU's release
 * waits (cost/cpu.h cpu_lock), which is how contention appears.  Every
 * critical section of the models lies inside one call, so no lock is ever
 * held across events.
 *
 * An operation of task t (its ops-th), in steps:
 *   1. the frees handed to t by other tasks whose hand-over time has come
 *      (remote frees, see below);
 *   2. t's own allocations whose lifetime ended (due <= ops): each is freed
 *      by t, or - with probability remote_free - handed to another task
 *      chosen uniformly, which frees it at its first operation at or after
 *      the hand-over time (t's clock then);
 *   3. one allocation: a page (probability page_share, order uniform from
 *      orders[]) through alloc_pages with the world's mempolicy and cpuset,
 *      or a kmalloc object (size uniform from object_sizes[]) through SLUB;
 *      the task then writes the first line of it (initialisation), and the
 *      task that frees it reads that line first - so a remote free pulls
 *      the line from the owner's cache, and a page on a remote node costs
 *      remote memory latency.  Its lifetime is ceil(Exp(lifetime)) >= 1 of
 *      t's later operations.
 * The cycles of steps 1-3 (lock waits included) are the operation's cost;
 * cycles_per_op is their sum over all tasks divided by the operations.
 * Think time (Exp(think_cycles), straight-line work outside the models)
 * follows each operation and is not part of the cost.
 *
 * Randomness: task t draws from stream t + 1 of the run's seed only, so
 * results depend on the seed and the parameters, not on the host.
 *
 * Lock contention.  zone->lock figures come from mm_lock_stats(); the
 * list_lock figures are the CPUs' lock counters minus every page allocator
 * lock (the SLUB model's node list_lock is the only other spinlock of the
 * world), both as differences over the operations: from before the
 * first to after the last, so without the drain at the end (below).  The
 * drain runs task by task, not in time order: a task's frees on a CPU
 * whose clock ended early would meet locks another CPU released at its
 * later clock, and wait for that (half of a run's zone->lock waits, in
 * a 16-task run on skylake-2s, came from there).  end_cycles is likewise
 * the largest clock after the last operation.
 *
 * Memory.  Live items sit in a per-task binary heap ordered by (due,
 * sequence); hand-overs in a per-task array.  Both grow by doubling, so
 * after the first operations nothing is allocated per event.  At the end
 * (every task done) each task frees what was handed to it, then what it
 * still owns, in task order, so every allocation is freed exactly once.
 */
#include "workloads/wl_parallel.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/progress.h"
#include "cost/cpu.h"
#include "sim/ctx.h"
#include "models/page_alloc.h"
#include "models/slub.h"
#include "analysis/store.h"
#include "workloads/wl_messaging.h"

enum { EV_OP = 1 };
enum { K_PAGE, K_OBJ };

struct item {
	uint64_t due;                     /* owner's op index it dies at */
	uint64_t seq;                     /* tie break: allocation order */
	uint64_t handle;                  /* struct page * or slub_obj_t */
	uint64_t addr;                    /* first data line */
	int node;                         /* its home node */
	uint8_t kind;
	uint8_t sub;                      /* page order / object size index */
};

struct handover {
	uint64_t at;                      /* clock of the hand-over */
	struct item it;
};

struct task {
	int cpu;                          /* index in cpu_sys.cpu[] */
	struct rng *rng;
	uint64_t done;                    /* operations done */
	uint64_t cycles;                  /* cycles of its operations */
	struct item *heap;
	size_t nr, cap;
	struct handover *in;
	size_t nr_in, cap_in;
};

struct pcpu {
	uint32_t *tasks;                  /* tasks placed on this CPU */
	uint32_t nr, next;                /* count, round-robin cursor */
	uint32_t unfinished;
	int64_t cur;                      /* task in the middle of an op, or -1 */
	uint64_t op_start;                /* its clock when the op began */
};

struct parw {
	struct mm_world *pa;
	struct slub_world *sw;
	struct cpu_sys *s;
	const struct wl_par_params *p;
	struct wl_par_result *r;
	struct sim_ctx *ctx;
	struct slub_cache *caches[WL_PAR_MAX_SIZES];
	uint32_t nr_tasks;
	struct task *tasks;
	struct pcpu *cpus;                /* [s->nr_cpus] */
	uint64_t seq;
};

void wl_par_params_default(struct wl_par_params *p)
{
	memset(p, 0, sizeof *p);
	p->tasks = 0;                     /* 0: one task per placement CPU */
	p->ops = 20000;
	p->page_share = 0.5;
	p->nr_orders = 1;
	p->orders[0] = 0;
	p->nr_sizes = 2;
	p->object_sizes[0] = 64;
	p->object_sizes[1] = 512;
	p->lifetime = 16;
	p->remote_free = 0;
	p->think_cycles = 200;
	p->gfp = GFP_KERNEL;
}

/* --- heaps and hand-overs ----------------------------------------------- */

static int item_before(const struct item *a, const struct item *b)
{
	return a->due < b->due || (a->due == b->due && a->seq < b->seq);
}

static int heap_push(struct task *t, const struct item *it)
{
	if (t->nr == t->cap) {
		size_t cap = t->cap ? 2 * t->cap : 64;
		struct item *h = realloc(t->heap, cap * sizeof *h);
		if (!h)
			return NS_ENOMEM;
		t->heap = h;
		t->cap = cap;
	}
	size_t i = t->nr++;
	while (i > 0 && item_before(it, &t->heap[(i - 1) / 2])) {
		t->heap[i] = t->heap[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	t->heap[i] = *it;
	return NS_OK;
}

static struct item heap_pop(struct task *t)
{
	struct item top = t->heap[0];
	struct item last = t->heap[--t->nr];
	size_t i = 0;
	for (;;) {
		size_t l = 2 * i + 1, m = i;
		const struct item *cur = &last;
		if (l < t->nr && item_before(&t->heap[l], cur)) {
			m = l;
			cur = &t->heap[l];
		}
		if (l + 1 < t->nr && item_before(&t->heap[l + 1], cur))
			m = l + 1;
		if (m == i)
			break;
		t->heap[i] = t->heap[m];
		i = m;
	}
	if (t->nr)
		t->heap[i] = last;
	return top;
}

static int handover_push(struct task *t, uint64_t at, const struct item *it)
{
	if (t->nr_in == t->cap_in) {
		size_t cap = t->cap_in ? 2 * t->cap_in : 16;
		struct handover *h = realloc(t->in, cap * sizeof *h);
		if (!h)
			return NS_ENOMEM;
		t->in = h;
		t->cap_in = cap;
	}
	t->in[t->nr_in].at = at;
	t->in[t->nr_in].it = *it;
	t->nr_in++;
	return NS_OK;
}

/* --- the operations ----------------------------------------------------- */

/* Free it on CPU c: read its first line, then __free_pages / kfree. */
static int free_item(struct parw *w, struct cpu *c, const struct item *it)
{
	cpu_mem(c, it->addr, 8, it->node, CPU_LOAD_DEP);
	if (it->kind == K_PAGE) {
		mm_free_pages(w->pa, c, (struct page *)(uintptr_t)it->handle, it->sub);
		w->r->page_frees++;
		return NS_OK;
	}
	int rc = slub_free(w->sw, c, w->caches[it->sub], (slub_obj_t)it->handle);
	if (rc == NS_OK)
		w->r->obj_frees++;
	return rc;
}

/* Everything handed to t, freed on CPU c (the end of the run). */
static int take_all_handovers(struct parw *w, struct task *t, struct cpu *c)
{
	for (size_t i = 0; i < t->nr_in; i++) {
		cpu_advance_to(c, t->in[i].at);
		int rc = free_item(w, c, &t->in[i].it);
		if (rc != NS_OK)
			return rc;
		w->r->remote_frees++;
	}
	t->nr_in = 0;
	return NS_OK;
}

/* One hand-over to t whose time has come, freed on c: 1 if there was one. */
static int take_handover(struct parw *w, struct task *t, struct cpu *c, int *rc)
{
	for (size_t i = 0; i < t->nr_in; i++) {
		if (t->in[i].at > c->now)
			continue;
		struct item it = t->in[i].it;
		t->in[i] = t->in[--t->nr_in];
		*rc = free_item(w, c, &it);
		w->r->remote_frees++;
		return 1;
	}
	return 0;
}

/* One of t's own allocations that died: freed here or handed over.
 * Returns 1 if there was one. */
static int expire_one(struct parw *w, uint32_t ti, struct cpu *c, int *rc)
{
	struct task *t = &w->tasks[ti];
	if (!t->nr || t->heap[0].due > t->done)
		return 0;
	struct item it = heap_pop(t);
	if (w->nr_tasks > 1 && w->p->remote_free > 0 && rng_uniform(t->rng) < w->p->remote_free) {
		uint32_t o = rng_uniform_int(t->rng, w->nr_tasks - 1);
		o += o >= ti;
		*rc = handover_push(&w->tasks[o], c->now, &it);
		return 1;
	}
	*rc = free_item(w, c, &it);
	return 1;
}

static uint64_t lifetime(struct parw *w, struct task *t)
{
	double l = ceil(rng_exponential(t->rng, w->p->lifetime));
	return l < 1 ? 1 : l > 1e15 ? (uint64_t)1e15 : (uint64_t)l;
}

/* One allocation of task t on CPU c. */
static int allocate(struct parw *w, struct task *t, struct cpu *c)
{
	const struct wl_par_params *p = w->p;
	struct item it = {.seq = w->seq++};
	if (p->page_share >= 1 || (p->page_share > 0 && rng_uniform(t->rng) < p->page_share)) {
		uint32_t k = p->nr_orders > 1 ? rng_uniform_int(t->rng, (uint32_t)p->nr_orders) : 0;
		unsigned order = p->orders[k];
		struct page *pg = mm_alloc_pages(w->pa, c, p->gfp, order);
		w->r->page_allocs++;
		if (!pg) {
			w->r->alloc_failed++;
			return NS_OK;
		}
		it.kind = K_PAGE;
		it.sub = (uint8_t)order;
		it.handle = (uint64_t)(uintptr_t)pg;
		it.addr = mm_page_vaddr(w->pa, pg);
		it.node = mm_page_node(w->pa, pg);
	} else {
		uint32_t k = p->nr_sizes > 1 ? rng_uniform_int(t->rng, (uint32_t)p->nr_sizes) : 0;
		slub_obj_t x = slub_alloc(w->sw, c, w->caches[k], SLUB_NUMA_NO_NODE);
		w->r->obj_allocs++;
		if (!x) {
			w->r->alloc_failed++;
			return NS_OK;
		}
		it.kind = K_OBJ;
		it.sub = (uint8_t)k;
		it.handle = x;
		it.addr = slub_obj_addr(w->sw, x);
		it.node = cache_as_node(it.addr);
	}
	cpu_mem(c, it.addr, 64, it.node, CPU_STORE);   /* the owner initialises it */
	it.due = t->done + lifetime(w, t);
	return heap_push(t, &it);
}

/*
 * The event of CPU ci: one step of the operation of its current task (one
 * hand-over free, one own free or hand-over, or the allocation that ends
 * the operation), starting the next unfinished task's operation (round-
 * robin) when none is in progress.  One model call per event keeps each
 * event short, so the engine's order of lock acquisitions stays close to
 * the order in simulated time.
 */
static int step(struct parw *w, int ci)
{
	struct pcpu *pc = &w->cpus[ci];
	struct cpu *c = &w->s->cpu[ci];
	if (pc->cur < 0) {
		uint32_t ti;
		do {
			ti = pc->tasks[pc->next];
			pc->next = (pc->next + 1) % pc->nr;
		} while (w->tasks[ti].done >= w->p->ops);
		pc->cur = ti;
		pc->op_start = c->now;
	}
	uint32_t ti = (uint32_t)pc->cur;
	struct task *t = &w->tasks[ti];
	int rc = NS_OK;
	if (take_handover(w, t, c, &rc) || expire_one(w, ti, c, &rc)) {
		if (rc != NS_OK)
			return rc;
		return sim_ctx_schedule_at(w->ctx, c->now, EV_OP, (uint32_t)ci);
	}
	if ((rc = allocate(w, t, c)) != NS_OK)
		return rc;
	t->done++;
	w->r->ops++;
	t->cycles += c->now - pc->op_start;
	pc->cur = -1;
	if (w->p->think_cycles > 0)
		cpu_work(c, (uint32_t)fmin(rng_exponential(t->rng, w->p->think_cycles), 4e9));
	if (t->done == w->p->ops)
		pc->unfinished--;
	if (!pc->unfinished)
		return NS_OK;
	return sim_ctx_schedule_at(w->ctx, c->now, EV_OP, (uint32_t)ci);
}

/* --- set-up, checks, the run ----------------------------------------------- */

static int bad(struct diag *d, const char *msg, double v)
{
	return diag_set(d, NS_EINPUT, NULL, 0, 0, "parallel workload: %s (%g)", msg, v);
}

static int check_params(struct parw *w, struct diag *d)
{
	const struct wl_par_params *p = w->p;
	if (p->nr_cpus < 1 || p->nr_cpus > WL_PAR_MAX_CPUS)
		return bad(d, "needs 1 to 8192 placement CPUs", p->nr_cpus);
	if (p->tasks > WL_PAR_MAX_TASKS)
		return bad(d, "tasks must be at most 4096", p->tasks);
	if (p->ops < 1)
		return bad(d, "ops must be at least 1", (double)p->ops);
	if (!(p->page_share >= 0 && p->page_share <= 1))
		return bad(d, "page_share must lie in [0, 1]", p->page_share);
	if (!(p->remote_free >= 0 && p->remote_free <= 1))
		return bad(d, "remote_free must lie in [0, 1]", p->remote_free);
	if (!(p->lifetime >= 1 && p->lifetime <= 1e12))
		return bad(d, "lifetime must be at least 1 operation", p->lifetime);
	if (!(p->think_cycles >= 0 && p->think_cycles <= 1e9))
		return bad(d, "think_cycles must lie in [0, 1e9]", p->think_cycles);
	if (p->page_share > 0) {
		if (p->nr_orders < 1 || p->nr_orders > WL_PAR_MAX_ORDERS)
			return bad(d, "page allocations need 1 to 11 orders", p->nr_orders);
		for (int i = 0; i < p->nr_orders; i++)
			if (p->orders[i] >= WL_PAR_MAX_ORDERS)
				return bad(d, "page order above MAX_ORDER - 1", p->orders[i]);
		if (!w->pa)
			return bad(d, "page allocations need the page allocator", 0);
	}
	if (p->page_share < 1) {
		if (p->nr_sizes < 1 || p->nr_sizes > WL_PAR_MAX_SIZES)
			return bad(d, "object allocations need 1 to 16 sizes", p->nr_sizes);
		if (!w->sw)
			return bad(d, "object allocations need the SLUB model", 0);
		for (int i = 0; i < p->nr_sizes; i++) {
			w->caches[i] = slub_kmalloc_cache(w->sw, p->object_sizes[i]);
			if (!w->caches[i])
				return bad(d, "no kmalloc cache serves object size",
					   p->object_sizes[i]);
		}
	}
	for (int i = 0; i < p->nr_cpus; i++)
		if (!cpu_sys_cpu(w->s, p->cpus[i]))
			return diag_set(d, NS_EINPUT, NULL, 0, 0,
					"parallel workload: CPU %d is not simulated", p->cpus[i]);
	return NS_OK;
}

static int setup(struct parw *w, uint64_t seed)
{
	const struct wl_par_params *p = w->p;
	w->nr_tasks = p->tasks ? p->tasks : (uint32_t)p->nr_cpus;
	w->tasks = calloc(w->nr_tasks, sizeof *w->tasks);
	w->cpus = calloc((size_t)w->s->nr_cpus, sizeof *w->cpus);
	if (!w->tasks || !w->cpus)
		return NS_ENOMEM;
	int rc = sim_ctx_create(seed, (size_t)w->s->nr_cpus * 2, &w->ctx);
	if (rc != NS_OK)
		return rc;
	for (uint32_t i = 0; i < w->nr_tasks; i++) {
		struct task *t = &w->tasks[i];
		t->cpu = cpu_sys_cpu(w->s, p->cpus[i % (uint32_t)p->nr_cpus])->idx;
		if ((rc = sim_ctx_rng(w->ctx, i + 1, &t->rng)) != NS_OK)
			return rc;
		w->cpus[t->cpu].nr++;
	}
	for (int k = 0; k < w->s->nr_cpus; k++) {
		struct pcpu *pc = &w->cpus[k];
		if (pc->nr && !(pc->tasks = calloc(pc->nr, sizeof *pc->tasks)))
			return NS_ENOMEM;
		pc->unfinished = pc->nr;
		pc->nr = 0;
		pc->cur = -1;
	}
	for (uint32_t i = 0; i < w->nr_tasks; i++) {
		struct pcpu *pc = &w->cpus[w->tasks[i].cpu];
		pc->tasks[pc->nr++] = i;
	}
	for (int k = 0; k < w->s->nr_cpus; k++)
		if (w->cpus[k].nr &&
		    (rc = sim_ctx_schedule_at(w->ctx, w->s->cpu[k].now, EV_OP, (uint32_t)k)))
			return rc;
	return NS_OK;
}

/* Everything still handed over or alive, freed task by task. */
static int drain(struct parw *w)
{
	for (uint32_t i = 0; i < w->nr_tasks; i++) {
		struct task *t = &w->tasks[i];
		struct cpu *c = &w->s->cpu[t->cpu];
		int rc = take_all_handovers(w, t, c);
		while (rc == NS_OK && t->nr) {
			struct item it = heap_pop(t);
			rc = free_item(w, c, &it);
		}
		if (rc != NS_OK)
			return rc;
	}
	return NS_OK;
}

static void teardown(struct parw *w)
{
	if (w->tasks)
		for (uint32_t i = 0; i < w->nr_tasks; i++) {
			free(w->tasks[i].heap);
			free(w->tasks[i].in);
		}
	if (w->cpus)
		for (int k = 0; k < w->s->nr_cpus; k++)
			free(w->cpus[k].tasks);
	free(w->tasks);
	free(w->cpus);
	sim_ctx_destroy(w->ctx);
}

struct lock_sums {
	uint64_t contended, wait;
	struct mm_lock_stats pa;
};

static void lock_sums(const struct parw *w, struct lock_sums *ls)
{
	ls->contended = ls->wait = 0;
	for (int k = 0; k < w->s->nr_cpus; k++) {
		ls->contended += w->s->cpu[k].ctr[CPU_CTR_lock_contended];
		ls->wait += w->s->cpu[k].ctr[CPU_CTR_lock_wait_cycles];
	}
	if (w->pa)
		mm_lock_stats(w->pa, &ls->pa);
	else
		memset(&ls->pa, 0, sizeof ls->pa);
}

/* The largest CPU clock. */
static uint64_t max_clock(const struct parw *w)
{
	uint64_t t = 0;
	for (int k = 0; k < w->s->nr_cpus; k++)
		if (w->s->cpu[k].now > t)
			t = w->s->cpu[k].now;
	return t;
}

/* The results of the operations: the lock figures from a (before) to b
 * (after the last operation, before the drain), the clock at b. */
static void finish(struct parw *w, const struct lock_sums *a, const struct lock_sums *b,
		   uint64_t end_cycles)
{
	struct wl_par_result *r = w->r;
	uint64_t cycles = 0;
	for (uint32_t i = 0; i < w->nr_tasks; i++)
		cycles += w->tasks[i].cycles;
	r->cycles_per_op = r->ops ? (double)cycles / (double)r->ops : 0;
	r->end_cycles = end_cycles;
	r->zone_lock_contended = b->pa.zone_contended - a->pa.zone_contended;
	r->zone_lock_wait_cycles = b->pa.zone_wait_cycles - a->pa.zone_wait_cycles;
	uint64_t mm_cont = r->zone_lock_contended + b->pa.other_contended - a->pa.other_contended;
	uint64_t mm_wait = r->zone_lock_wait_cycles + b->pa.other_wait_cycles -
			   a->pa.other_wait_cycles;
	r->list_lock_contended = b->contended - a->contended - mm_cont;
	r->list_lock_wait_cycles = b->wait - a->wait - mm_wait;
	r->events = w->ctx ? w->ctx->events : 0;
}

int wl_parallel_run(struct mm_world *pa, struct slub_world *sw, struct cpu_sys *s,
		    const struct wl_par_params *p, uint64_t seed,
		    const volatile sig_atomic_t *stop, struct progress_work *work,
		    struct wl_par_result *r, struct diag *d)
{
	struct parw w = {.pa = pa, .sw = sw, .s = s, .p = p, .r = r};
	struct lock_sums before;
	struct event ev;
	uint32_t tick = 0;
	memset(r, 0, sizeof *r);
	int rc = check_params(&w, d);
	if (rc != NS_OK)
		return rc;
	lock_sums(&w, &before);
	rc = setup(&w, seed);
	progress_work_start(work, (long long)(w.nr_tasks * p->ops));
	while (rc == NS_OK && sim_ctx_next(w.ctx, &ev) == NS_OK) {
		if ((++tick & 0xfff) == 0) {
			if (stop && *stop) {
				r->stopped = 1;
				goto out;
			}
			progress_work_set(work, (long long)r->ops);
		}
		rc = step(&w, (int)ev.arg);
	}
	/* the measured part ends here: the drain below frees the rest task
	 * by task, out of time order, so its lock waits (a task's CPU
	 * meeting a release stamped on another CPU's later clock) and its
	 * clocks are not the workload's */
	struct lock_sums end;
	lock_sums(&w, &end);
	uint64_t end_cycles = max_clock(&w);
	if (rc == NS_OK)
		rc = drain(&w);
	if (rc == NS_OK && (r->page_allocs - r->alloc_failed + r->obj_allocs !=
			    r->page_frees + r->obj_frees))
		rc = diag_set(d, NS_EINTERNAL, NULL, 0, 0,
			      "parallel workload: %llu allocations but %llu frees",
			      (unsigned long long)(r->page_allocs + r->obj_allocs - r->alloc_failed),
			      (unsigned long long)(r->page_frees + r->obj_frees));
	else if (rc == NS_ENOMEM)
		diag_set(d, rc, NULL, 0, 0, "parallel workload: out of memory");
	else if (rc != NS_OK)
		diag_set(d, rc, NULL, 0, 0, "parallel workload: a model call failed (%s)",
			 ns_status_msg(rc));
	finish(&w, &before, &end, end_cycles);
out:
	teardown(&w);
	return rc;
}

/* ---- the scenario section `workload: {type: parallel}` and the run ---- */

enum { PL_TYPE, PL_TASKS, PL_OPS, PL_SHARE, PL_ORDERS, PL_SIZES, PL_LIFE,
       PL_REMOTE, PL_THINK, PL_GFP, NR_PL };

static int parse_sizes(const struct wl_reader *r, const struct ynode *n,
		       struct wl_par_params *p)
{
	int rc;
	if (n->kind == YNODE_SCALAR) {
		p->nr_sizes = 1;
		return wl_get_u32(r, n, "object size", 1, SCN_PAR_MAX_OBJECT, &p->object_sizes[0]);
	}
	if ((rc = ytree_expect_seq(wl_tree(r, n), n, "'object_sizes'", r->d)))
		return rc;
	if (n->nr == 0 || n->nr > WL_PAR_MAX_SIZES)
		return wl_err(r, n, "'object_sizes' must list 1 to %d sizes, got %zu",
			   WL_PAR_MAX_SIZES, n->nr);
	p->nr_sizes = 0;
	for (size_t i = 0; i < n->nr; i++)
		if ((rc = wl_get_u32(r, n->items[i], "object size", 1, SCN_PAR_MAX_OBJECT,
				  &p->object_sizes[p->nr_sizes++])))
			return rc;
	return NS_OK;
}

static const struct ytree_field parallel_fields[NR_PL] = {
	[PL_TYPE] = {"type", 1},          [PL_TASKS] = {"tasks", 0},
	[PL_OPS] = {"ops", 0},            [PL_SHARE] = {"page_share", 0},
	[PL_ORDERS] = {"orders", 0},      [PL_SIZES] = {"object_sizes", 0},
	[PL_LIFE] = {"lifetime", 0},      [PL_REMOTE] = {"remote_free", 0},
	[PL_THINK] = {"think_cycles", 0}, [PL_GFP] = {"gfp", 0},
};

static int parallel_parse(const struct wl_reader *r, const struct ynode *n,
			  struct wl_point *pt)
{
	const struct ytree_field *const fields = parallel_fields;
	const struct ynode *v[NR_PL];
	const char *gfp_text = "GFP_KERNEL";
	long long x;
	int rc;

	if ((rc = r->fields(r->ctx, n, "workload 'parallel'", fields,
				 NR_PL, v)))
		return rc;
	if (!*pt->nr_cpus && (rc = wl_all_cpus(r, pt)))
		return rc;
	struct wl_par_point *pp = calloc(1, sizeof *pp);
	if (!pp)
		return wl_nomem(r);
	pt->params = pp;
	struct wl_par_params *p = &pp->par;
	wl_par_params_default(p);
	p->nr_cpus = *pt->nr_cpus;
	memcpy(p->cpus, (*pt->cpus), (size_t)*pt->nr_cpus * sizeof *p->cpus);
	p->tasks = (uint32_t)(*pt->nr_cpus < WL_PAR_MAX_TASKS ? *pt->nr_cpus
							      : WL_PAR_MAX_TASKS);
	if (v[PL_TASKS] && (rc = wl_get_u32(r, v[PL_TASKS], "tasks", 1, WL_PAR_MAX_TASKS,
					 &p->tasks)))
		return rc;
	if (v[PL_OPS]) {
		if ((rc = ytree_int(wl_tree(r, v[PL_OPS]), v[PL_OPS], "ops", 1, SCN_PAR_MAX_OPS,
				    &x, r->d)))
			return rc;
		p->ops = (uint64_t)x;
	}
	if (v[PL_SHARE] && (rc = wl_get_frac(r, v[PL_SHARE], "page_share", 0, 1,
					  &p->page_share)))
		return rc;
	if (v[PL_ORDERS] && (rc = wl_get_orders(r, v[PL_ORDERS], SCN_MAX_ORDER, p->orders,
					       &p->nr_orders)))
		return rc;
	if (v[PL_SIZES] && (rc = parse_sizes(r, v[PL_SIZES], p)))
		return rc;
	if (v[PL_LIFE] && (rc = wl_get_frac(r, v[PL_LIFE], "lifetime", 1, 1e9,
					 &p->lifetime)))
		return rc;
	if (v[PL_REMOTE] && (rc = wl_get_frac(r, v[PL_REMOTE], "remote_free", 0, 1,
					   &p->remote_free)))
		return rc;
	if (v[PL_THINK] && (rc = wl_get_frac(r, v[PL_THINK], "think_cycles", 0, 1e9,
					  &p->think_cycles)))
		return rc;
	if (v[PL_REMOTE] && p->remote_free > 0 && p->tasks < 2)
		return wl_err(r, v[PL_REMOTE], "remote_free needs at least 2 tasks "
			   "(another task frees the object)");
	if (v[PL_GFP] && (rc = wl_get_gfp(r, v[PL_GFP], n, &gfp_text, &p->gfp)))
		return rc;
	pp->gfp_text = gfp_text;
	return NS_OK;
}


static int parallel_check(const void *params, const struct machine *m, int nr_cpus,
			  const int *cpus, const char *path, struct diag *d)
{
	const struct wl_par_point *pp = params;
	(void)m, (void)cpus;
	WL_CHECK(pp->par.nr_cpus == nr_cpus && pp->par.tasks >= 1, "parallel placement");
	return NS_OK;
}

#define P_TEXT(k, t) do { if ((rc = fn(arg, (k), (t), 0))) return rc; } while (0)
#define P_NUM(k, n) do { if ((rc = fn(arg, (k), NULL, (long long)(n)))) return rc; } while (0)
#define P_REAL(k, x) do { snprintf(buf, sizeof buf, "%g", (x)); P_TEXT((k), buf); } while (0)

static int parallel_params(const void *params, wl_param_fn fn, void *arg)
{
	const struct wl_par_point *pp = params;
	const struct wl_par_params *p = &pp->par;
	char buf[1024];
	int rc;
	P_NUM("workload.tasks", p->tasks);
	P_NUM("workload.ops", p->ops);
	P_REAL("workload.page_share", p->page_share);
	wl_list_text(p->orders, NULL, p->nr_orders, buf, sizeof buf);
	P_TEXT("workload.orders", buf);
	wl_list_text(NULL, p->object_sizes, p->nr_sizes, buf, sizeof buf);
	P_TEXT("workload.object_sizes", buf);
	P_REAL("workload.lifetime", p->lifetime);
	P_REAL("workload.remote_free", p->remote_free);
	P_REAL("workload.think_cycles", p->think_cycles);
	P_TEXT("workload.gfp", pp->gfp_text);
	P_NUM("workload.gfp_mask", p->gfp);
	return NS_OK;
}
#undef P_TEXT
#undef P_NUM
#undef P_REAL

static const char *parallel_kernel_model(int post, int slub_post)
{
	return slub_post
		? (post ? "v4.6+patches1-4+682a3385+c270cf30" : "v4.6+patches1-4+c270cf30")
		: (post ? "v4.6+patches1-4+682a3385" : "v4.6+patches1-4");
}

/* The parallel workload with the point's parameters and placement. */
static int parallel_run(const struct wl_run *r, void **result)
{
	const struct wl_par_point *pp = r->params;
	struct wl_par_result *res = wl_result_alloc(r, sizeof *res, result);
	if (!res)
		return NS_ENOMEM;
	int rc = wl_parallel_run(r->w, r->sw, r->sys, &pp->par, r->seed, r->stop, r->work,
				 res, r->d);
	return wl_run_status(r, rc, res->stopped);
}

/* The parallel workload's metrics (wl_parallel.h struct wl_par_result). */
static int parallel_results(const void *result, const struct wl_run *r,
			    struct store *st, int64_t id)
{
	const struct wl_par_result *m = result;
	(void)r;
	const struct wl_metric rows[] = {
		{"ops", "count", (double)m->ops},
		{"cycles_per_op", "core_cycles/op", m->cycles_per_op},
		{"end_cycles", "core_cycles", (double)m->end_cycles},
		{"page_allocs", "count", (double)m->page_allocs},
		{"page_frees", "count", (double)m->page_frees},
		{"obj_allocs", "count", (double)m->obj_allocs},
		{"obj_frees", "count", (double)m->obj_frees},
		{"remote_frees", "count", (double)m->remote_frees},
		{"alloc_failed", "count", (double)m->alloc_failed},
		{"zone_lock_contended", "count", (double)m->zone_lock_contended},
		{"zone_lock_wait_cycles", "core_cycles", (double)m->zone_lock_wait_cycles},
		{"list_lock_contended", "count", (double)m->list_lock_contended},
		{"list_lock_wait_cycles", "core_cycles", (double)m->list_lock_wait_cycles},
		{"events", "count", (double)m->events},
	};
	return wl_store_metrics(st, id, rows, WL_NR(rows));
}


const struct workload_ops wl_parallel_ops = {
	.name = "parallel",
	.fields = parallel_fields,
	.nr_fields = NR_PL,
	.adhoc = "  type: parallel\n",
	.slub = 1,
	.accounting = CPU_ACCOUNTING_EXACT,
	.label_knob = "zonelist_iter",
	.report = WL_REPORT_COMPARE,
	.events = WL_EV_ALL,
	.kernel_model = parallel_kernel_model,
	.parse = parallel_parse,
	.check = parallel_check,
	.params = parallel_params,
	.setup = wl_msg_setup,
	.run = parallel_run,
	.results = parallel_results,
};
