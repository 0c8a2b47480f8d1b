/*
 * slub_inspect — what the SLUB model shows of itself (models/slub.h): the
 * record numasim trace takes of a __slab_free (the out-of-line half of
 * models/slub_hook.h), the introspection of caches, slabs, CPUs and
 * nodes (the kernel's /sys/kernel/slab files), the counters and the
 * invariant walker slub_check().  Nothing here charges the cost model,
 * and the fast copies of models/slub.c do not compile it again.
 */
#include "models/slub.h"
#include "models/slub_internal.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* --- tracing (numasim trace) ----------------------------------------------- */

/*
 * Room for entry n of a trace array (doubling; cap in entries).  The
 * arrays live in the world and are reused by every record; only a traced
 * call reaches here, so untraced runs never allocate.
 */
static void *trace_room(void **arr, unsigned *cap, size_t size, unsigned n)
{
	if (n < *cap)
		return *arr;
	unsigned ncap = *cap ? *cap * 2 : 64;
	void *p = ncap > n ? realloc(*arr, (size_t)ncap * size) : NULL;
	if (!p)
		return NULL;
	*arr = p;
	*cap = ncap;
	return p;
}

void slub_trace_branch(void *arg, int site, bool cond)
{
	const struct slub_world *w = arg;
	struct slub_free_trace *t = w->tr;
	struct slub_trace_bufs *b = w->trb;
	if (!b || !trace_room((void **)&b->sites, &b->cap_sites, sizeof *b->sites, t->nr_sites)) {
		t->incomplete = 1;
		return;
	}
	t->sites = b->sites;
	t->sites[t->nr_sites].name = slub_site_defs[site].name;
	t->sites[t->nr_sites].outcome = cond;
	t->nr_sites++;
}

void slub_trace_stat(struct slub_world *w, enum slub_stat si)
{
	struct slub_free_trace *t = w->tr;
	struct slub_trace_bufs *b = w->trb;
	w->tr_stats |= 1u << si;
	if (!b || !trace_room((void **)&b->stats, &b->cap_stats, sizeof *b->stats, t->nr_stats)) {
		t->incomplete = 1;
		return;
	}
	t->stats = b->stats;
	t->stats[t->nr_stats++] = si;
}

/* The state before the call: the slab, its node and the CPU's chain. */
struct slub_free_trace *slub_trace_begin(struct cpu *c, struct slub_cache *s, uint32_t id,
					 unsigned cnt)
{
	struct slub_world *w = s->w;
	struct slub_free_trace *t = &w->trbuf;
	const struct slub_slab *sl = &s->slab[id];
	const struct slub_kcpu *k = kcpu(s, c);
	memset(t, 0, sizeof *t);
	t->cache = s->name;
	t->cpu = c->id;
	t->page = sl->meta;
	t->start = cpu_now_noise(c);
	t->ts_ns = cpu_cycles_to_ns(c, t->start);
	t->comm = cpu_task(c, &t->pid);
	t->variant = w->cfg.variant;
	t->has_cpu_partial = s->has_cpu_partial;
	t->frozen = sl->frozen;
	t->inuse = sl->inuse;
	t->objects = sl->objects;
	t->freelist_empty = sl->freelist == NIL16;
	t->cnt = cnt;
	t->node = sl->node;
	t->nr_partial = get_node(s, sl->node)->nr_partial;
	t->min_partial = s->min_partial;
	t->cpu_partial_limit = s->cpu_partial;
	if (k->partial != NIL32) {
		t->cpu_partial_pages = s->slab[k->partial].pages;
		t->cpu_partial_pobjects = s->slab[k->partial].pobjects;
	}
	if (!w->trb)
		w->trb = calloc(1, sizeof *w->trb);
	struct slub_trace_bufs *b = w->trb;
	t->incomplete = b == NULL;
	if (b) {
		t->chain = b->chain;
		t->stats = b->stats;
		t->sites = b->sites;
	}
	for (uint32_t p = k->partial; p != NIL32; p = s->slab[p].pnext) {
		if (!b || !trace_room((void **)&b->chain, &b->cap_chain, sizeof *b->chain,
				t->nr_chain)) {
			t->incomplete = 1;
			break;
		}
		t->chain = b->chain;
		struct slub_trace_slab *e = &t->chain[t->nr_chain++];
		e->objects = s->slab[p].objects;
		e->inuse = s->slab[p].inuse;
		e->node = s->slab[p].node;
	}
	t->path = "unlocked";
	w->tr_stats = 0;
	slub_trace_recording(w, t);
	return t;
}

/*
 * The end of the traced call: its path, from whether it took the list_lock
 * and what it counted (each path has its own stat item: FREE_FROZEN
 * exactly when the slab was frozen, CPU_PARTIAL_FREE when the free froze
 * it, FREE_SLAB when the locked call discarded it, FREE_ADD_PARTIAL when
 * it put it on the node's list; the racing frees of the race hook are not
 * recorded), then the record to the trace hook.
 */
void slub_trace_end(struct cpu *c, struct slub_world *w, struct slub_free_trace *t,
		    bool locked, bool was_frozen)
{
	t->cycles = cpu_now_noise(c) - t->start;
	uint32_t seen = w->tr_stats;
	if (!locked)
		t->path = was_frozen ? "free_frozen"
			: seen & (1u << SLUB_CPU_PARTIAL_FREE) ? "cpu_partial_free" : "unlocked";
	else
		t->path = seen & (1u << SLUB_FREE_SLAB) ? "discard"
			: seen & (1u << SLUB_FREE_ADD_PARTIAL) ? "add_partial" : "locked";
	slub_trace_recording(w, NULL);
	w->trace(w->trace_arg, t);
}

/* --- introspection -------------------------------------------------------- */

const char *slub_cache_name(const struct slub_cache *s)
{
	return s->name;
}

uint64_t slub_obj_addr(const struct slub_world *w, slub_obj_t x)
{
	struct slub_cache *s;
	uint32_t id;
	uint16_t idx;
	if (decode(w, x, &s, &id, &idx) != NS_OK)
		return 0;
	return obj_addr(s, &s->slab[id], idx);
}

struct slub_cache *slub_obj_cache(const struct slub_world *w, slub_obj_t x)
{
	struct slub_cache *s;
	uint32_t id;
	uint16_t idx;
	return decode(w, x, &s, &id, &idx) == NS_OK ? s : NULL;
}

int slub_cache_info(const struct slub_cache *s, struct slub_cache_info *o)
{
	memset(o, 0, sizeof *o);
	o->object_size = s->object_size;
	o->size = s->size;
	o->align = s->align;
	o->offset = s->offset;
	o->flags = s->flags;
	o->order = s->oo_order;
	o->objects = s->oo_objects;
	o->min_order = s->min_order;
	o->min_objects = s->min_objects;
	o->max_order = s->max_order;
	o->max_objects = s->max_objects;
	o->min_partial = s->min_partial;
	o->cpu_partial = s->cpu_partial;
	o->cpu_partial_pages = s->cpu_partial_pages;
	memcpy(o->where, s->where, sizeof o->where);
	o->has_cpu_partial = s->has_cpu_partial;
	o->allocated = s->allocated;
	o->freed = s->freed;
	o->slabs = s->cap_slab - s->nr_free_ids;
	o->pages_failed = s->pages_failed;
	return NS_OK;
}

static unsigned chain_len(const struct slub_cache *s, uint32_t id, uint16_t head)
{
	unsigned n = 0;
	const uint16_t *nx = &s->next[(size_t)id * s->per];
	for (uint16_t i = head; i != NIL16 && n <= s->slab[id].objects; i = nx[i])
		n++;
	return n;
}

int slub_slab_info(const struct slub_world *w, slub_obj_t x, struct slub_slab_info *o)
{
	struct slub_cache *s;
	uint32_t id;
	uint16_t idx;
	if (decode(w, x, &s, &id, &idx) != NS_OK)
		return NS_ENOENT;
	const struct slub_slab *sl = &s->slab[id];
	memset(o, 0, sizeof *o);
	o->cpu = -1;
	o->node = sl->node;
	o->inuse = sl->inuse;
	o->objects = sl->objects;
	o->frozen = sl->frozen;
	o->pfn = sl->pfn;
	o->page_free = chain_len(s, id, sl->freelist);
	o->loc = sl->on_list ? SLUB_LOC_NODE_PARTIAL : SLUB_LOC_FULL;
	for (int i = 0; i < w->s->nr_cpus; i++) {
		const struct slub_kcpu *k = &s->cpu[i];
		if (k->page == id) {
			o->loc = SLUB_LOC_CPU_SLAB;
			o->cpu = w->s->cpu[i].id;
		}
		for (uint32_t p = k->partial; p != NIL32; p = s->slab[p].pnext)
			if (p == id) {
				o->loc = SLUB_LOC_CPU_PARTIAL;
				o->cpu = w->s->cpu[i].id;
			}
	}
	return NS_OK;
}

int slub_cpu_info(const struct slub_world *w, const struct slub_cache *s, int cpu_id,
		  struct slub_cpu_info *o)
{
	struct cpu *c = cpu_sys_cpu(w->s, cpu_id);
	if (!c)
		return NS_ENOENT;
	const struct slub_kcpu *k = &s->cpu[c->idx];
	memset(o, 0, sizeof *o);
	o->has_page = k->page != NIL32;
	if (o->has_page) {
		o->page_obj = make_obj(s, k->page, 0);
		o->freelist = chain_len(s, k->page, k->freelist);
	}
	for (uint32_t p = k->partial; p != NIL32; p = s->slab[p].pnext)
		o->partial_slabs++;
	if (k->partial != NIL32) {
		o->pages = s->slab[k->partial].pages;
		o->pobjects = s->slab[k->partial].pobjects;
	}
	o->tid = k->tid;
	return NS_OK;
}

int slub_node_info(const struct slub_world *w, const struct slub_cache *s, int node_id,
		   struct slub_node_info *o)
{
	if (node_id < 0 || node_id >= MACHINE_MAX_NODES || w->m->node_index[node_id] < 0)
		return NS_ENOENT;
	const struct slub_knode *n = &s->node[w->m->node_index[node_id]];
	memset(o, 0, sizeof *o);
	o->nr_partial = n->nr_partial;
	o->nr_slabs = n->nr_slabs;
	o->total_objects = n->total_objects;
	for (uint32_t p = n->head; p != NIL32; p = s->slab[p].lnext)
		o->partial_empty += s->slab[p].inuse == 0;
	return NS_OK;
}

uint64_t slub_stat(const struct slub_world *w, const struct slub_cache *s, int cpu_id,
		   enum slub_stat item)
{
	if ((unsigned)item >= SLUB_NR_STATS)
		return 0;
	uint64_t v = 0;
	for (int i = 0; i < w->s->nr_cpus; i++)
		if (cpu_id < 0 || w->s->cpu[i].id == cpu_id)
			v += s->cpu[i].stat[item];
	return v;
}

uint64_t slub_stat_at(const struct slub_world *w, const struct slub_cache *s, int idx,
		      enum slub_stat item)
{
	if ((unsigned)item >= SLUB_NR_STATS || idx < 0 || idx >= w->s->nr_cpus)
		return 0;
	return s->cpu[idx].stat[item];
}

int slub_counters(const struct slub_world *w, slub_counter_fn fn, void *arg)
{
	char id[64];
	int rc;
	for (int ci = 0; ci < w->nr_caches; ci++) {
		const struct slub_cache *s = w->caches[ci];
		for (int i = 0; i < SLUB_NR_STATS; i++)
			if ((rc = fn(arg, "cache", s->name, slub_stat_name((enum slub_stat)i),
				     (int64_t)slub_stat(w, s, -1, (enum slub_stat)i))) != NS_OK)
				return rc;
		struct slub_cache_info info;
		slub_cache_info(s, &info);
		const struct {
			const char *name;
			uint64_t v;
		} extra[] = {
			{"objects", info.allocated - info.freed},
			{"objects_allocated", info.allocated},
			{"objects_freed", info.freed},
			{"slabs", info.slabs},
			{"alloc_failed", info.pages_failed},
			{"free_frozen_branches", s->ff_branches},
			{"free_frozen_branches_taken", s->ff_taken},
			{"free_frozen_mispredicts", s->ff_mispredicts},
			{"free_frozen_cycles", s->ff_cycles},
			{"free_frozen_fence_wait_cycles", s->ff_fence},
			{"free_frozen_measured", s->ff_measured},
		};
		for (size_t i = 0; i < sizeof extra / sizeof extra[0]; i++)
			if ((rc = fn(arg, "cache", s->name, extra[i].name, (int64_t)extra[i].v)) != NS_OK)
				return rc;
		for (int i = 0; i < SLUB_NR_WHERE; i++)
			if ((rc = fn(arg, "cache", s->name, slub_where_name((enum slub_where)i),
				     (int64_t)s->where[i])) != NS_OK)
				return rc;
		for (int c = 0; c < w->s->nr_cpus; c++) {
			snprintf(id, sizeof id, "%s/%d", s->name, w->s->cpu[c].id);
			for (int i = 0; i < SLUB_NR_STATS; i++)
				if ((rc = fn(arg, "cache_cpu", id, slub_stat_name((enum slub_stat)i),
					     (int64_t)s->cpu[c].stat[i])) != NS_OK)
					return rc;
		}
		for (int n = 0; n < w->m->nr_nodes; n++) {
			const struct slub_knode *kn = &s->node[n];
			snprintf(id, sizeof id, "%s/%d", s->name, w->m->nodes[n].id);
			if ((rc = fn(arg, "cache_node", id, "nr_partial", (int64_t)kn->nr_partial)) != NS_OK ||
			    (rc = fn(arg, "cache_node", id, "nr_slabs", (int64_t)kn->nr_slabs)) != NS_OK ||
			    (rc = fn(arg, "cache_node", id, "total_objects",
				     (int64_t)kn->total_objects)) != NS_OK)
				return rc;
		}
	}
	return NS_OK;
}

/* --- invariants ------------------------------------------------------------- */

#define FAIL(...) diag_set(d, NS_EINTERNAL, "slub", 0, 0, __VA_ARGS__)

/* Walk a chain of slab id: marks each object in seen (1 = on a freelist). */
static int walk_chain(const struct slub_cache *s, uint32_t id, uint16_t head, uint8_t *seen,
		      unsigned *len, struct diag *d)
{
	const struct slub_slab *sl = &s->slab[id];
	const uint16_t *nx = &s->next[(size_t)id * s->per];
	*len = 0;
	for (uint16_t i = head; i != NIL16; i = nx[i]) {
		if (i >= sl->objects)
			return FAIL("%s: slab %u: free pointer %u out of range", s->name, id, i);
		if (seen[i])
			return FAIL("%s: slab %u: object %u twice on freelists", s->name, id, i);
		if (s->alloc[(size_t)id * s->per + i])
			return FAIL("%s: slab %u: allocated object %u on a freelist", s->name, id, i);
		seen[i] = 1;
		++*len;
	}
	return NS_OK;
}

static int check_cache(const struct slub_world *w, const struct slub_cache *s, struct diag *d)
{
	int nc = w->s->nr_cpus, nn = w->m->nr_nodes;
	uint8_t *seen = malloc(s->per ? s->per : 1);
	uint8_t *where = calloc(s->cap_slab ? s->cap_slab : 1, 1); /* 1 cpu slab, 2 cpu partial */
	int rc = NS_ENOMEM;
	if (!seen || !where)
		goto out;
	rc = NS_OK;
	for (int i = 0; i < nc && rc == NS_OK; i++) {
		const struct slub_kcpu *k = &s->cpu[i];
		if (k->page != NIL32) {
			if (k->page >= s->cap_slab || !s->slab[k->page].page || where[k->page])
				rc = FAIL("%s: cpu %d: bad cpu slab", s->name, w->s->cpu[i].id);
			else
				where[k->page] = 1;
			if (rc == NS_OK && s->slab[k->page].alloc_cpu != i)
				rc = FAIL("%s: cpu %d: cpu slab's alloc_cpu is %d", s->name,
					  w->s->cpu[i].id, s->slab[k->page].alloc_cpu);
		} else if (k->freelist != NIL16) {
			rc = FAIL("%s: cpu %d: freelist without a slab", s->name, w->s->cpu[i].id);
		}
		unsigned len = 0;
		for (uint32_t p = k->partial; p != NIL32 && rc == NS_OK; p = s->slab[p].pnext) {
			if (p >= s->cap_slab || !s->slab[p].page || where[p])
				rc = FAIL("%s: cpu %d: bad partial chain", s->name, w->s->cpu[i].id);
			else
				where[p] = 2;
			if (rc == NS_OK && s->slab[p].chain_cpu != i)
				rc = FAIL("%s: cpu %d: slab %u on its partial chain has chain_cpu %d",
					  s->name, w->s->cpu[i].id, p, s->slab[p].chain_cpu);
			if (++len > s->cap_slab)
				rc = FAIL("%s: cpu %d: partial chain cycles", s->name, w->s->cpu[i].id);
		}
		if (rc == NS_OK && k->partial != NIL32 && s->slab[k->partial].pages != (int)len)
			rc = FAIL("%s: cpu %d: chain head pages %d, chain has %u", s->name,
				  w->s->cpu[i].id, s->slab[k->partial].pages, len);
	}
	uint64_t slow = 0, placed = 0;
	for (int i = 0; i < nc; i++)
		slow += s->cpu[i].stat[SLUB_FREE_SLOWPATH];
	for (int x = 0; x < SLUB_NR_WHERE; x++)
		if (x != SLUB_WHERE_BY_ALLOC_CPU)
			placed += s->where[x];
	if (rc == NS_OK && (placed != slow || s->where[SLUB_WHERE_BY_ALLOC_CPU] > slow))
		rc = FAIL("%s: where counters sum to %llu, free_slowpath %llu", s->name,
			  (unsigned long long)placed, (unsigned long long)slow);
	for (int i = 0; i < nn && rc == NS_OK; i++) {
		const struct slub_knode *n = &s->node[i];
		unsigned long cnt = 0;
		uint32_t prev = NIL32;
		if (n->lock.holder != -1)
			rc = FAIL("%s: node %d: list_lock held or misused", s->name, w->m->nodes[i].id);
		for (uint32_t p = n->head; p != NIL32 && rc == NS_OK; p = s->slab[p].lnext) {
			const struct slub_slab *sl = &s->slab[p];
			if (p >= s->cap_slab || !sl->page || !sl->on_list || sl->frozen ||
			    sl->lprev != prev || w->m->node_index[sl->node] != i || where[p] == 3)
				rc = FAIL("%s: node %d: bad partial list entry %u", s->name,
					  w->m->nodes[i].id, p);
			where[p] = 3;
			prev = p;
			if (++cnt > s->cap_slab)
				rc = FAIL("%s: node %d: partial list cycles", s->name, w->m->nodes[i].id);
		}
		if (rc == NS_OK && (n->tail != prev || cnt != n->nr_partial))
			rc = FAIL("%s: node %d: nr_partial %lu, list has %lu", s->name,
				  w->m->nodes[i].id, n->nr_partial, cnt);
	}
	uint64_t inuse_sum = 0, cpu_free = 0;
	unsigned long *slabs = calloc((size_t)nn, sizeof *slabs), *objs = calloc((size_t)nn, sizeof *objs);
	if (!slabs || !objs) {
		free(slabs);
		free(objs);
		rc = rc == NS_OK ? NS_ENOMEM : rc;
		goto out;
	}
	for (uint32_t id = 0; id < s->cap_slab && rc == NS_OK; id++) {
		const struct slub_slab *sl = &s->slab[id];
		if (!sl->page) {
			if (where[id])
				rc = FAIL("%s: slab %u: unused entry on a list", s->name, id);
			continue;
		}
		int pos = w->m->node_index[sl->node];
		slabs[pos]++;
		objs[pos] += sl->objects;
		bool is_cpu = where[id] == 1 || where[id] == 2;
		if (sl->frozen != is_cpu)
			rc = FAIL("%s: slab %u: frozen %u but %s a cpu slab", s->name, id, sl->frozen,
				  is_cpu ? "is" : "not");
		if (rc == NS_OK && sl->on_list != (where[id] == 3))
			rc = FAIL("%s: slab %u: on_list flag wrong", s->name, id);
		if (rc == NS_OK && (sl->chain_cpu >= 0) != (where[id] == 2))
			rc = FAIL("%s: slab %u: chain_cpu %d but %s a cpu's partial chain", s->name,
				  id, sl->chain_cpu, where[id] == 2 ? "on" : "not on");
		if (rc == NS_OK && (sl->freelist == NIL16) != (sl->inuse == sl->objects))
			rc = FAIL("%s: slab %u: freelist %s but inuse %u of %u", s->name, id,
				  sl->freelist == NIL16 ? "empty" : "non-empty", sl->inuse, sl->objects);
		if (rc != NS_OK)
			break;
		memset(seen, 0, s->per);
		unsigned pl, cl = 0;
		rc = walk_chain(s, id, sl->freelist, seen, &pl, d);
		for (int i = 0; i < nc && rc == NS_OK; i++)
			if (s->cpu[i].page == id)
				rc = walk_chain(s, id, s->cpu[i].freelist, seen, &cl, d);
		if (rc != NS_OK)
			break;
		if (pl != (unsigned)(sl->objects - sl->inuse))
			rc = FAIL("%s: slab %u: page freelist %u long, inuse %u of %u", s->name, id, pl,
				  sl->inuse, sl->objects);
		unsigned handed = 0;
		for (unsigned i = 0; i < sl->objects; i++)
			handed += s->alloc[(size_t)id * s->per + i];
		if (rc == NS_OK && handed + pl + cl != sl->objects)
			rc = FAIL("%s: slab %u: %u handed out + %u + %u free != %u objects", s->name,
				  id, handed, pl, cl, sl->objects);
		inuse_sum += sl->inuse;
		cpu_free += cl;
	}
	for (int i = 0; i < nn && rc == NS_OK; i++)
		if (slabs[i] != s->node[i].nr_slabs || objs[i] != s->node[i].total_objects)
			rc = FAIL("%s: node %d: nr_slabs/total_objects %lu/%lu, pool has %lu/%lu",
				  s->name, w->m->nodes[i].id, s->node[i].nr_slabs,
				  s->node[i].total_objects, slabs[i], objs[i]);
	if (rc == NS_OK && s->allocated - s->freed != inuse_sum - cpu_free)
		rc = FAIL("%s: %" PRIu64 " allocated - %" PRIu64 " freed != Σinuse %" PRIu64
			  " - cpu freelists %" PRIu64, s->name, s->allocated, s->freed, inuse_sum,
			  cpu_free);
	free(slabs);
	free(objs);
out:
	free(seen);
	free(where);
	return rc;
}

int slub_check(const struct slub_world *w, struct diag *d)
{
	for (int i = 0; i < w->nr_caches; i++) {
		int rc = check_cache(w, w->caches[i], d);
		if (rc != NS_OK)
			return rc;
	}
	return NS_OK;
}
