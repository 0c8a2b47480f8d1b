/*
 * cache — set-associative caches, the per-node LLC, the coherence
 * directory and the synthetic address space (see cache.h for the model).
 *
 * Design notes.  Every cache is one array of 16-byte ways (struct
 * cache_way: tag, and stamp | flag | LRU rank packed in one word),
 * set-major, plus per set the way of age 0 (mru); a cache_sys carves all
 * its arrays from one mapping (the arena, below).
 * An L1 lookup tries the mru way first (repeated accesses to a hot line);
 * every lookup scans the set's tags without an early exit (an 8-way set is
 * two 64-byte host lines, fetched together; a data-dependent loop exit was
 * the model's most mispredicted host branch).  An LRU update is skipped when the way is
 * already the most recent, is a swap when it was second (two lines taking
 * turns in a set), and a scan of the ages otherwise.  Nothing is allocated
 * after init.
 *
 * Lazy state.  The empty state is all zero bytes (cache.h, "Layout"): an
 * empty way stores tag 0 (tags are stored complemented), a set never
 * filled stores rank 0 in every way and means the identity permutation
 * (way i of rank i, way 0 the mru), written at its first fill
 * (set_first_fill()).  The ranks being a permutation from then on, the
 * oldest way is always the victim and the first assoc fills of a set land
 * in distinct empty ways, the last way first; so a set is unfilled exactly
 * when its last way is empty.  Nothing is written at set-up: a fresh
 * mapping is already empty, and pages the run never touches are never
 * mapped.  (Before, set-up wrote every way's invalid tag and rank: the
 * kernel then zeroed and the process kept every page of every CPU's
 * caches, ~0.28 MiB per simulated CPU, run or not.)
 *
 * Speed without changing results.  The model's outcomes are defined by the
 * plain algorithm (probe the directory, then L1, L2, LLC; tests/test_cache.c
 * keeps it as a reference and compares every result, every tag, rank,
 * writer and dirty bit, and the freshness of every copy on long random
 * traces).  The shortcuts only skip work whose outcome is
 * already known: an L1 hit on the mru way changes no state without the
 * directory or, for a load, when the L1 claims (cache.h, struct cache_cpu)
 * prove the copy fresh, so it is decided inline in cache.h; the claims
 * spare the directory probe in the slow path too, and the LLC way hint the
 * LLC set lookup of a write hit.  Claims are kept true where the directory
 * changes (dir_write: a new writer, an evicted entry, a new entry) and
 * checked by cache_check().
 *
 * Stale copies.  Coherence is decided with stamps instead of invalidation
 * messages: the directory keeps, per written line, the stamp of its last
 * write; a copy filled before that stamp is stale when someone else wrote
 * the line.  A stale copy is refreshed in place by the refill, so a set
 * never holds a line twice.
 *
 * Repeated writes.  A store by the line's last writer, when no other CPU
 * has filled a copy since that writer's previous store (the L1 excl
 * claim), takes no new stamp: the directory keeps the previous write's
 * stamp and no copy's stamp changes.  This is exact, not an approximation:
 * stamps are only ever compared (copy >= last write, for copies of other
 * CPUs and the LLCs), and with no fill by another CPU in between, every
 * such copy is either older than the previous write (stale under both
 * stamps) or newer than the latest one (fresh under both).  So freshness,
 * and every result, is the same as with a stamp per store; the directory's
 * LRU order is still updated.  Claims keep it true: excl is set by a
 * write, and cleared by a refill of the L1 way, by disown(), and when a
 * transfer from this CPU serves another CPU (the first fill by anyone else
 * after a write is always that transfer while the writer holds the line:
 * the line is dirty).  tests/test_cache.c checks every result against a
 * reference that stamps every store, and compares the freshness of every
 * copy.
 */
#include "cost/cache.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "base/diag.h"

void cache_params_default(struct cache_params *p)
{
	memset(p, 0, sizeof *p);
	p->line_size = 64;
	p->l1d_size = 32 * 1024;
	p->l2_size = 1024 * 1024;
	p->llc_size = 11 * 1408 * 1024;
	p->l1d_assoc = 8;
	p->l2_assoc = 16;
	p->llc_assoc = 11;
	p->coherence = true;
	p->dir_assoc = 8;
	p->dir_entries = 0;
}

static bool is_pow2(uint64_t x)
{
	return x && !(x & (x - 1));
}

/* Geometry of a cache (no arrays yet); NS_ERANGE when impossible. */
static int cache_geom(struct cache *c, uint64_t size, uint32_t line_size, int assoc)
{
	memset(c, 0, sizeof *c);
	if (assoc < 1 || assoc > 255 || !is_pow2(line_size))
		return NS_ERANGE;
	uint64_t nsets = size / ((uint64_t)line_size * (uint64_t)assoc);
	if (nsets < 1 || nsets > UINT32_MAX)
		return NS_ERANGE;
	c->nsets = (uint32_t)nsets;
	c->assoc = (uint32_t)assoc;
	c->pow2 = is_pow2(nsets);
	c->set_mask = c->pow2 ? c->nsets - 1 : 0;
	return NS_OK;
}

static size_t cache_ways(const struct cache *c)
{
	return (size_t)c->nsets * c->assoc;
}

static bool zero(const void *p, size_t n)
{
	const unsigned char *b = p;
	return !n || (b[0] == 0 && !memcmp(b, b + 1, n - 1));
}

/*
 * The empty state of a set is all zero bytes (cache.h, cache_tag_of():
 * an empty way stores tag 0, a set never filled stores rank 0 in every
 * way, meaning way i of rank i, and its mru byte is 0).  Are sets
 * [s, s + n) all in it?
 */
static bool sets_empty(const struct cache *c, uint32_t s, uint32_t n)
{
	return zero(c->mru + s, n) &&
	       zero(c->way + (size_t)s * c->assoc, (size_t)n * c->assoc * sizeof *c->way);
}

/* Sets compared at once when a walk skips empty runs. */
#define EMPTY_RUN 64u

static uint32_t run_of(const struct cache *c, uint32_t s)
{
	return c->nsets - s < EMPTY_RUN ? c->nsets - s : EMPTY_RUN;
}

int cache_init(struct cache *c, uint64_t size, uint32_t line_size, int assoc)
{
	int rc = cache_geom(c, size, line_size, assoc);
	if (rc)
		return rc;
	size_t n = cache_ways(c);
	c->way = calloc(n, sizeof *c->way);
	c->mru = calloc(c->nsets, 1);
	if (!c->way || !c->mru) {
		cache_free(c);
		return NS_ENOMEM;
	}
	return NS_OK;
}

void cache_free(struct cache *c)
{
	free(c->way);
	free(c->mru);
	memset(c, 0, sizeof *c);
}

/* A set: its index and its first way. */
struct set {
	uint32_t idx;
	size_t base;
};

static inline struct set set_of(const struct cache *c, uint64_t line)
{
	uint32_t idx = cache_set(c, line);
	return (struct set){idx, (size_t)idx * c->assoc};
}

/* First way of the set holding `line`. */
static inline size_t set_base(const struct cache *c, uint64_t line)
{
	return set_of(c, line).base;
}

/*
 * Associativity as a constant.  The way loops below are written once and
 * instantiated for the associativities the machines use (L1D 8, L2 16,
 * LLC 11, directory 8: cache_params_default()), so the compiler unrolls
 * them into straight-line compares and conditional moves; any other
 * associativity takes the same code with a run-time bound.  WAYS_SWITCH
 * expands `body` with `n` bound to that constant.
 */
#define WAYS_SWITCH(assoc, body)                                               \
	do {                                                                   \
		switch (assoc) {                                               \
		case 8: { const uint32_t n = 8; body; } break;                  \
		case 11: { const uint32_t n = 11; body; } break;                \
		case 16: { const uint32_t n = 16; body; } break;                \
		default: { const uint32_t n = (assoc); body; } break;           \
		}                                                              \
	} while (0)

/* Index of the way of t[0..n-1] holding line, or -1 (no early exit). */
static inline __attribute__((always_inline)) long scan_tags(const struct cache_way *t,
							    uint64_t key, uint32_t n)
{
	long hit = -1;
	for (uint32_t i = 0; i < n; i++)
		hit = t[i].tag == key ? (long)i : hit;
	return hit;
}

/*
 * Way holding line, or -1: a scan of the set without an early exit, so the
 * host's branch predictor does not have to guess the way.
 */
static inline long find(const struct cache *c, struct set s, uint64_t line)
{
	const struct cache_way *t = c->way + s.base;
	long hit;
	uint64_t key = cache_tag_of(line);
	WAYS_SWITCH(c->assoc, hit = scan_tags(t, key, n));
	return hit < 0 ? -1 : (long)s.base + hit;
}

/*
 * find() trying the most recent way first: for the L1s, whose sets are hot
 * in the host's cache and see repeated accesses to one line.  (In the big
 * caches the mru byte would be one more host cache miss in front of the
 * tags.)
 */
static inline long find_mru(const struct cache *c, struct set s, uint64_t line)
{
	size_t m = s.base + c->mru[s.idx];
	if (c->way[m].tag == cache_tag_of(line))
		return (long)m;
	return find(c, s, line);
}

static inline void set_age(struct cache_way *w, uint8_t a)
{
	w->sa = (w->sa & ~(uint64_t)0xff) | a;
}

static inline void set_stamp(struct cache_way *w, uint64_t stamp)
{
	w->sa = stamp << 9 | (w->sa & 0x1ff);
}

static inline void set_flag(struct cache_way *w, bool on)
{
	w->sa = (w->sa & ~CACHE_WAY_FLAG) | (on ? CACHE_WAY_FLAG : 0);
}

/* Every way of set[0..n-1] younger than a one rank older. */
static inline __attribute__((always_inline)) void age_up(struct cache_way *set, uint8_t a,
							 uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		set[i].sa += cache_way_age(&set[i]) < a;
}

/* Make way w of set s the most recent. */
static inline void touch(struct cache *c, struct set s, size_t w)
{
	uint8_t a = cache_way_age(&c->way[w]);
	if (a == 0)
		return;
	struct cache_way *set = c->way + s.base;
	if (a == 1) {
		/* two lines taking turns in a set: swap with the most recent */
		set_age(&set[c->mru[s.idx]], 1);
	} else {
		/* ranks below a move up one (no carry: they are < a <= 254) */
		WAYS_SWITCH(c->assoc, age_up(set, a, n));
	}
	set_age(&c->way[w], 0);
	c->mru[s.idx] = (uint8_t)(w - s.base);
}

/* The way of set[0..n-1] with the oldest rank (n - 1), scanned whole. */
static inline __attribute__((always_inline)) uint32_t scan_oldest(const struct cache_way *set,
								  uint32_t n)
{
	uint32_t v = 0; /* stays 0 only if unreachable: ages are a permutation */
	for (uint32_t i = 0; i < n; i++)
		v = cache_way_age(&set[i]) == n - 1 ? i : v;
	return v;
}

/*
 * A set never filled stores rank 0 in every way and means way i of rank
 * i; its first fill writes those ranks ("Lazy state").  Its last way is
 * the oldest, so the first fill takes it, and no fill ever empties a way
 * again: a set is unfilled exactly when its last way is empty.
 */
static inline bool set_unfilled(const struct cache *c, size_t base)
{
	return c->way[base + c->assoc - 1].tag == 0;
}

static void set_first_fill(struct cache *c, size_t base)
{
	for (uint32_t i = 0; i < c->assoc; i++)
		c->way[base + i].sa = i;
}

uint8_t cache_rank(const struct cache *c, size_t w)
{
	size_t base = w - w % c->assoc;
	return set_unfilled(c, base) ? (uint8_t)(w - base) : cache_way_age(&c->way[w]);
}

static inline size_t victim(struct cache *c, size_t base)
{
	if (set_unfilled(c, base))
		set_first_fill(c, base);
	const struct cache_way *set = c->way + base;
	uint32_t v;
	WAYS_SWITCH(c->assoc, v = scan_oldest(set, n));
	return base + v;
}

long cache_lookup(struct cache *c, uint64_t line)
{
	struct set s = set_of(c, line);
	long w = find(c, s, line);
	if (w >= 0)
		touch(c, s, (size_t)w);
	return w;
}

/* Insert at a known set; w is the way already holding line, or -1. */
static inline size_t insert_at(struct cache *c, struct set s, long w,
			       uint64_t line, uint64_t stamp, uint64_t *evicted)
{
	size_t v;
	if (w >= 0) {
		v = (size_t)w;
		*evicted = CACHE_TAG_INVALID;
	} else {
		v = victim(c, s.base);
		c->fills++;
		*evicted = cache_way_line(&c->way[v]);
		c->way[v].tag = cache_tag_of(line);
	}
	set_stamp(&c->way[v], stamp);
	touch(c, s, v);
	return v;
}

uint64_t cache_insert(struct cache *c, uint64_t line, uint64_t stamp)
{
	struct set s = set_of(c, line);
	uint64_t ev;
	insert_at(c, s, find(c, s, line), line, stamp, &ev);
	return ev;
}

/*
 * cache_one_check() with every stamp at most gstamp.  An empty set (one
 * memcmp) holds both; only the sets a run touched pay the per-way checks.
 */
static int one_check(const struct cache *c, uint64_t gstamp)
{
	if (!c->way || !c->mru || c->assoc < 1 || c->assoc > 255)
		return NS_EINTERNAL;
	uint32_t seen[256 / 32];
	for (uint32_t s = 0; s < c->nsets; s++) {
		size_t base = (size_t)s * c->assoc;
		if (s % EMPTY_RUN == 0 && sets_empty(c, s, run_of(c, s))) {
			s += run_of(c, s) - 1;
			continue;
		}
		if (sets_empty(c, s, 1))
			continue;
		/* not all zero: a filled set (its last way holds a line) */
		if (set_unfilled(c, base))
			return NS_EINTERNAL;
		if (c->mru[s] >= c->assoc || cache_way_age(&c->way[base + c->mru[s]]) != 0)
			return NS_EINTERNAL;
		memset(seen, 0, sizeof seen);
		for (uint32_t i = 0; i < c->assoc; i++) {
			uint8_t a = cache_way_age(&c->way[base + i]);
			if (a >= c->assoc || (seen[a / 32] & (1u << (a % 32))))
				return NS_EINTERNAL;
			seen[a / 32] |= 1u << (a % 32);
			if (cache_way_stamp(&c->way[base + i]) > gstamp)
				return NS_EINTERNAL;
			uint64_t t = cache_way_line(&c->way[base + i]);
			if (t == CACHE_TAG_INVALID)
				continue;
			if (set_base(c, t) != base)
				return NS_EINTERNAL;
			for (uint32_t j = i + 1; j < c->assoc; j++)
				if (cache_way_line(&c->way[base + j]) == t)
					return NS_EINTERNAL;
		}
	}
	return NS_OK;
}

int cache_one_check(const struct cache *c)
{
	return one_check(c, UINT64_MAX);
}

static uint64_t round_pow2(uint64_t x)
{
	uint64_t p = 1;
	while (p < x)
		p <<= 1;
	return p;
}

/*
 * The arena.  A cache_sys keeps every array in one anonymous mapping,
 * each array 64-byte aligned (a set's ways start on a host line), and
 * asks for transparent huge pages: with 4 KiB pages nearly every L2, LLC
 * or directory set looked up was also a host TLB miss (the per-CPU arrays
 * on small pages made bench messaging on 72 CPUs 1.19x slower, median of
 * 7 alternated runs; docs/results/speed-cache-2026-12-07.md).  Pages are
 * still mapped only where a run writes ("Lazy state"), at the huge page's
 * granularity.  carve() runs twice: with no base it only counts the bytes,
 * then it hands out the pointers.  (madvise failing, or THP off, only
 * costs speed.)
 */
struct arena {
	char *base;
	size_t used;
};

#define ARENA_ALIGN ((size_t)64)
#define HUGE_PAGE ((size_t)2 << 20)

static void *arena_take(struct arena *a, size_t bytes)
{
	size_t off = a->used;
	a->used += (bytes + ARENA_ALIGN - 1) & ~(ARENA_ALIGN - 1);
	return a->base ? a->base + off : NULL;
}

static void carve_cache(struct cache *c, struct arena *a)
{
	size_t n = cache_ways(c);
	c->way = arena_take(a, n * sizeof *c->way);
	c->mru = arena_take(a, c->nsets);
}

/*
 * Every array of cs (geometry already set) from the arena: first the
 * shared ones (LLCs, directory), then per CPU its L1, its claims and its
 * L2 together, from a huge page boundary on, so that CPUs that never run
 * leave their pages unmapped ("Lazy state"; a huge page holds the arrays
 * of about seven CPUs).
 */
static void carve(struct cache_sys *cs, struct arena *a)
{
	for (int i = 0; i < cs->nr_llc; i++)
		carve_cache(&cs->llc[i], a);
	if (cs->coherence) {
		carve_cache(&cs->dir, a);
		size_t ways = cache_ways(&cs->dir);
		cs->dir_writer = arena_take(a, ways * sizeof *cs->dir_writer);
	}
	a->used = (a->used + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1); /* CPU 0 starts a huge page */
	for (int i = 0; i < cs->nr_cpus; i++) {
		struct cache_cpu *pc = &cs->cpu[i];
		carve_cache(&pc->l1, a);
		size_t ways = cache_ways(&pc->l1);
		pc->claim = arena_take(a, ways * sizeof *pc->claim);
		carve_cache(&pc->l2, a);
	}
}

/* Map `bytes` (zeroed), 2 MiB aligned, huge pages asked for. */
static int arena_map(struct cache_sys *cs, size_t bytes)
{
	size_t len = bytes + HUGE_PAGE;
	void *m = mmap(NULL, len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED)
		return NS_ENOMEM;
	cs->map = m;
	cs->map_len = len;
	uintptr_t b = ((uintptr_t)m + HUGE_PAGE - 1) & ~(uintptr_t)(HUGE_PAGE - 1);
	(void)madvise((void *)b, bytes, MADV_HUGEPAGE);
	return NS_OK;
}

static int sys_geometry(struct cache_sys *cs, const struct cache_params *p)
{
	for (int i = 0; i < cs->nr_cpus; i++) {
		struct cache_cpu *pc = &cs->cpu[i];
		int rc = cache_geom(&pc->l1, p->l1d_size, p->line_size, p->l1d_assoc);
		if (!rc)
			rc = cache_geom(&pc->l2, p->l2_size, p->line_size, p->l2_assoc);
		if (rc)
			return rc;
	}
	for (int i = 0; i < cs->nr_llc; i++) {
		int rc = cache_geom(&cs->llc[i], p->llc_size, p->line_size, p->llc_assoc);
		if (rc)
			return rc;
		if (cache_ways(&cs->llc[i]) >= UINT32_MAX)
			return NS_ERANGE; /* struct cache_claim's llc_way is 32 bits */
	}
	if (!cs->coherence)
		return NS_OK;
	uint64_t n = p->dir_entries;
	if (!n)
		n = round_pow2(2ull * (uint64_t)cs->nr_cpus *
			       (p->l2_size >> cs->line_shift));
	if (!p->dir_entries && n > CACHE_DIR_AUTO_MAX)
		n = CACHE_DIR_AUTO_MAX;
	if (n < (uint64_t)p->dir_assoc)
		n = (uint64_t)p->dir_assoc;
	return cache_geom(&cs->dir, n << cs->line_shift, p->line_size, p->dir_assoc);
}

/*
 * Back to the empty state (all zero), paying only for what changed.  A
 * cache no way of which was ever filled (fills == 0) is still empty:
 * touch() and every stamp or flag update act on a way holding a line, and
 * a way only gets one by a fill (insert_at); tags never become empty
 * again.  Otherwise every set is compared with zero and only the touched
 * ones are cleared.  (cache_check() walks every set, so a run whose model
 * broke that rule fails its check before its arena is reused; debug
 * builds also assert cache_sys_clear_check() at reuse.)
 */
static void cache_reset(struct cache *c, int32_t *writer)
{
	if (!c->fills)
		return;
	for (uint32_t s = 0; s < c->nsets; s++) {
		if (s % EMPTY_RUN == 0 && sets_empty(c, s, run_of(c, s))) {
			s += run_of(c, s) - 1;
			continue;
		}
		if (sets_empty(c, s, 1))
			continue;
		size_t base = (size_t)s * c->assoc;
		memset(c->way + base, 0, c->assoc * sizeof *c->way);
		if (writer)
			memset(writer + base, 0, c->assoc * sizeof *writer);
		c->mru[s] = 0;
	}
	c->fills = 0;
}

/*
 * Every array of cs back to the empty state of a fresh mapping.  The
 * claims of an L1 never filled were never written (a claim is only set on
 * a way holding a line).
 */
static void sys_reset(struct cache_sys *cs)
{
	for (int i = 0; i < cs->nr_cpus; i++) {
		struct cache_cpu *pc = &cs->cpu[i];
		size_t ways = cache_ways(&pc->l1);
		if (pc->l1.fills)
			memset(pc->claim, 0, ways * sizeof *pc->claim);
		cache_reset(&pc->l1, NULL);
		cache_reset(&pc->l2, NULL);
	}
	for (int i = 0; i < cs->nr_llc; i++)
		cache_reset(&cs->llc[i], NULL);
	if (cs->coherence)
		cache_reset(&cs->dir, cs->dir_writer);
}

/* The geometry the arena is carved for: same key, same layout. */
static void sys_key(const struct cache_sys *cs, uint32_t key[12])
{
	const struct cache *c[4] = {&cs->cpu[0].l1, &cs->cpu[0].l2, &cs->llc[0], &cs->dir};
	key[0] = (uint32_t)cs->nr_cpus;
	key[1] = (uint32_t)cs->nr_llc;
	key[2] = cs->coherence;
	key[3] = (uint32_t)cs->line_shift;
	for (int i = 0; i < 4; i++) {
		key[4 + 2 * i] = c[i]->nsets;
		key[5 + 2 * i] = c[i]->assoc;
	}
}

/* Take the pool's arena when it was carved for this geometry (len bytes
 * of arrays); a pool holding another geometry's gives it back. */
static bool pool_take(struct cache_sys *cs, struct cache_pool *pl, size_t len,
		      const uint32_t key[12])
{
	if (!pl || !pl->map)
		return false;
	if (pl->map_len != len + HUGE_PAGE || memcmp(pl->key, key, sizeof pl->key)) {
		cache_pool_free(pl);
		return false;
	}
	cs->map = pl->map;
	cs->map_len = pl->map_len;
	pl->map = NULL;
	pl->reused++;
	return true;
}

void cache_pool_free(struct cache_pool *pl)
{
	if (pl->map)
		munmap(pl->map, pl->map_len);
	pl->map = NULL;
	pl->map_len = 0;
}

static bool ways_empty(const struct cache *c)
{
	return sets_empty(c, 0, c->nsets) && c->fills == 0;
}

int cache_sys_clear_check(const struct cache_sys *cs)
{
	if (cs->gstamp || cs->dir_epoch != 1 || cs->pf_clock)
		return NS_EINTERNAL;
	for (int i = 0; i < cs->nr_cpus; i++) {
		const struct cache_cpu *pc = &cs->cpu[i];
		size_t ways = cache_ways(&pc->l1);
		if (!ways_empty(&pc->l1) || !ways_empty(&pc->l2) || pc->pf_issued ||
		    !zero(pc->claim, ways * sizeof *pc->claim))
			return NS_EINTERNAL;
		for (uint32_t k = 0; pc->stream && k < cs->pf_streams; k++)
			if (pc->stream[k].page != UINT64_MAX || pc->stream[k].last ||
			    pc->stream[k].ahead || pc->stream[k].used)
				return NS_EINTERNAL;
	}
	for (int i = 0; i < cs->nr_llc; i++)
		if (!ways_empty(&cs->llc[i]))
			return NS_EINTERNAL;
	if (!cs->coherence)
		return NS_OK;
	size_t ways = cache_ways(&cs->dir);
	return ways_empty(&cs->dir) && zero(cs->dir_writer, ways * sizeof *cs->dir_writer)
		       ? NS_OK : NS_EINTERNAL;
}

int cache_sys_init(struct cache_sys *cs, const struct cache_params *p,
		   int nr_cpus, const int *cpu_llc, int nr_llc)
{
	memset(cs, 0, sizeof *cs);
	int rc = NS_ERANGE;
	if (!is_pow2(p->line_size) || nr_cpus < 1 || nr_llc < 1)
		return NS_ERANGE;
	for (int i = 0; i < nr_cpus; i++)
		if (cpu_llc[i] < 0 || cpu_llc[i] >= nr_llc)
			return NS_ERANGE;
	while ((1u << cs->line_shift) < p->line_size)
		cs->line_shift++;
	cs->cpu = calloc((size_t)nr_cpus, sizeof *cs->cpu);
	cs->llc = calloc((size_t)nr_llc, sizeof *cs->llc);
	if (!cs->cpu || !cs->llc) {
		rc = NS_ENOMEM;
		goto out;
	}
	cs->nr_cpus = nr_cpus;
	cs->nr_llc = nr_llc;
	for (int i = 0; i < nr_cpus; i++)
		cs->cpu[i].llc = cpu_llc[i];
	cs->dir_epoch = 1;
	cs->coherence = p->coherence;
	if (p->pf_streams && p->pf_distance && p->pf_degree) {
		cs->pf_streams = p->pf_streams;
		cs->pf_distance = p->pf_distance;
		cs->pf_degree = p->pf_degree;
		for (int i = 0; i < nr_cpus; i++) {
			cs->cpu[i].stream = malloc(p->pf_streams * sizeof *cs->cpu[i].stream);
			if (!cs->cpu[i].stream) {
				rc = NS_ENOMEM;
				goto out;
			}
			for (uint32_t k = 0; k < p->pf_streams; k++)
				cs->cpu[i].stream[k] = (struct cache_stream){UINT64_MAX, 0, 0, 0};
		}
	}
	rc = sys_geometry(cs, p);
	if (rc)
		goto out;
	struct arena a = {NULL, 0};
	carve(cs, &a);
	sys_key(cs, cs->key);
	bool reused = pool_take(cs, p->pool, a.used, cs->key);
	rc = reused ? NS_OK : arena_map(cs, a.used);
	if (rc)
		goto out;
	a.base = (char *)(((uintptr_t)cs->map + HUGE_PAGE - 1) &
			  ~(uintptr_t)(HUGE_PAGE - 1));
	a.used = 0;
	carve(cs, &a);
	assert(!reused || cache_sys_clear_check(cs) == NS_OK);
	cs->pool = p->pool;
	rc = NS_OK;
out:
	if (rc)
		cache_sys_free(cs);
	return rc;
}

/*
 * With a pool the arrays go back into it, reset (sys_reset(): what the
 * run touched); a pool still holding an arena (two worlds alive at once)
 * keeps that one.
 */
void cache_sys_free(struct cache_sys *cs)
{
	if (cs->map && cs->pool && !cs->pool->map) {
		sys_reset(cs);
		cs->pool->map = cs->map;
		cs->pool->map_len = cs->map_len;
		memcpy(cs->pool->key, cs->key, sizeof cs->key);
	} else if (cs->map) {
		munmap(cs->map, cs->map_len);
	}
	for (int i = 0; cs->cpu && i < cs->nr_cpus; i++)
		free(cs->cpu[i].stream);
	free(cs->cpu);
	free(cs->llc);
	memset(cs, 0, sizeof *cs);
}

/* Is a copy of line, as cache c holds it, one a fill made after stamp ws? */
static bool copy_since(const struct cache *c, uint64_t line, uint64_t ws)
{
	long v = find(c, set_of(c, line), line);
	return v >= 0 && cache_way_stamp(&c->way[v]) >= ws;
}

/*
 * The excl claim of CPU i's L1 way w: it owns the line, the line is dirty,
 * and no other CPU's private cache or other node's LLC holds a copy filled
 * since the last write.
 */
static int excl_check(const struct cache_sys *cs, int i, size_t w)
{
	const struct cache_cpu *pc = &cs->cpu[i];
	uint64_t t = cache_way_line(&pc->l1.way[w]), k = pc->claim[w].own;
	if (!k || !cache_way_flag(&cs->dir.way[k - 1]))
		return NS_EINTERNAL;
	uint64_t ws = cache_way_stamp(&cs->dir.way[k - 1]);
	for (int j = 0; j < cs->nr_cpus; j++)
		if (j != i && (copy_since(&cs->cpu[j].l1, t, ws) ||
			       copy_since(&cs->cpu[j].l2, t, ws)))
			return NS_EINTERNAL;
	for (int j = 0; j < cs->nr_llc; j++)
		if (j != pc->llc && copy_since(&cs->llc[j], t, ws))
			return NS_EINTERNAL;
	return NS_OK;
}

/* The L1 claims of CPU i (struct cache_cpu) are true. */
static int claims_check(const struct cache_sys *cs, int i)
{
	const struct cache_cpu *pc = &cs->cpu[i];
	size_t ways = (size_t)cs->dir.nsets * cs->dir.assoc;
	size_t n = (size_t)pc->l1.nsets * pc->l1.assoc;
	const struct cache *llc = &cs->llc[pc->llc];
	size_t llc_ways = (size_t)llc->nsets * llc->assoc;
	for (size_t w = 0; w < n; w++) {
		uint64_t t = cache_way_line(&pc->l1.way[w]), k = pc->claim[w].own;
		if (k && (t == CACHE_TAG_INVALID || k > ways ||
			  cache_way_line(&cs->dir.way[k - 1]) != t || cs->dir_writer[k - 1] != i + 1))
			return NS_EINTERNAL;
		if (pc->claim[w].clean > cs->dir_epoch || pc->claim[w].llc_way > llc_ways ||
		    pc->claim[w].llc_fills > llc->fills)
			return NS_EINTERNAL;
		if (pc->claim[w].llc_way && pc->claim[w].llc_fills == llc->fills &&
		    cache_way_line(&llc->way[pc->claim[w].llc_way - 1]) != t)
			return NS_EINTERNAL;
		if (pc->claim[w].clean == cs->dir_epoch &&
		    (t == CACHE_TAG_INVALID || find(&cs->dir, set_of(&cs->dir, t), t) >= 0))
			return NS_EINTERNAL;
		if (pc->claim[w].excl > 1 || (pc->claim[w].excl && excl_check(cs, i, w)))
			return NS_EINTERNAL;
	}
	return NS_OK;
}

int cache_check(const struct cache_sys *cs)
{
	if (cs->gstamp > CACHE_STAMP_MAX)
		return NS_EINTERNAL;
	for (int i = 0; i < cs->nr_cpus; i++) {
		const struct cache_cpu *pc = &cs->cpu[i];
		if (pc->llc < 0 || pc->llc >= cs->nr_llc ||
		    one_check(&pc->l1, cs->gstamp) || one_check(&pc->l2, cs->gstamp))
			return NS_EINTERNAL;
	}
	for (int i = 0; i < cs->nr_llc; i++)
		if (one_check(&cs->llc[i], cs->gstamp))
			return NS_EINTERNAL;
	if (!cs->coherence)
		return NS_OK;
	if (one_check(&cs->dir, cs->gstamp))
		return NS_EINTERNAL;
	size_t ways = (size_t)cs->dir.nsets * cs->dir.assoc;
	for (size_t i = 0; i < ways; i++) {
		bool valid = cache_way_line(&cs->dir.way[i]) != CACHE_TAG_INVALID;
		int32_t w = cs->dir_writer[i];
		if (valid ? (w < 1 || w > cs->nr_cpus)
			  : (w != 0 || cache_way_flag(&cs->dir.way[i])))
			return NS_EINTERNAL;
	}
	for (int i = 0; i < cs->nr_cpus; i++)
		if (claims_check(cs, i))
			return NS_EINTERNAL;
	return NS_OK;
}

/* Is a copy with this stamp current, given the directory's view? */
static inline bool fresh(uint64_t stamp, bool remote, uint64_t wstamp)
{
	return !remote || stamp >= wstamp;
}

/* CPU w's L1 no longer owns line (another writer, or its entry went). */
static void disown(struct cache_sys *cs, int w, uint64_t line)
{
	struct cache_cpu *pc = &cs->cpu[w];
	long v = find_mru(&pc->l1, set_of(&pc->l1, line), line);
	if (v >= 0) {
		pc->claim[v].own = 0;
		pc->claim[v].excl = 0;
	}
}

/*
 * Record a write by cpu in the directory (d: the line's way or -1);
 * returns the way.  Keeps the L1 claims true: the previous writer and the
 * writer of an evicted entry lose ownership, a new entry ends every
 * "no entry" claim (the epoch).
 */
static size_t dir_write(struct cache_sys *cs, long d, uint64_t line, int cpu)
{
	uint64_t st = ++cs->gstamp;
	uint64_t ev;
	if (d >= 0 && cs->dir_writer[d] != cpu + 1)
		disown(cs, cs->dir_writer[d] - 1, line);
	size_t v = insert_at(&cs->dir, set_of(&cs->dir, line), d, line, st, &ev);
	if (ev != CACHE_TAG_INVALID)
		disown(cs, cs->dir_writer[v] - 1, ev);
	if (d < 0)
		cs->dir_epoch++;
	cs->dir_writer[v] = cpu + 1;
	set_flag(&cs->dir.way[v], true);
	return v;
}

/*
 * Does CPU w still hold line in a private cache?  A dirty line its writer
 * has since evicted was written back: it comes from the LLC or DRAM.
 * When w serves a copy from its L1, its excl claim ends there.
 */
static bool held(struct cache_sys *cs, int w, uint64_t line)
{
	struct cache_cpu *pc = &cs->cpu[w];
	long v = find_mru(&pc->l1, set_of(&pc->l1, line), line);
	if (v >= 0)
		pc->claim[v].excl = 0;
	return v >= 0 || find(&pc->l2, set_of(&pc->l2, line), line) >= 0;
}

/* Bring line into cpu's L2 (and its LLC) ahead of use (cache.h, "Prefetcher"). */
static void pf_fill(struct cache_sys *cs, int cpu, uint64_t line)
{
	struct cache_cpu *pc = &cs->cpu[cpu];
	struct set b2 = set_of(&pc->l2, line);
	if (find(&pc->l2, b2, line) >= 0)
		return;
	if (cs->coherence) {
		long d = find(&cs->dir, set_of(&cs->dir, line), line);
		if (d >= 0 && cs->dir_writer[d] != cpu + 1 && cache_way_flag(&cs->dir.way[d]))
			return;           /* dirty elsewhere: a demand access transfers it */
	}
	uint64_t ev, now = cs->gstamp;
	struct cache *llc = &cs->llc[pc->llc];
	struct set b3 = set_of(llc, line);
	long w3 = find(llc, b3, line);
	if (w3 < 0)
		insert_at(llc, b3, -1, line, now, &ev);
	insert_at(&pc->l2, b2, -1, line, now, &ev);
	pc->pf_issued++;
}

/* An L2 lookup for line trains its page's stream and may prefetch. */
static void pf_train(struct cache_sys *cs, int cpu, uint64_t line)
{
	struct cache_cpu *pc = &cs->cpu[cpu];
	int page_shift = 12 - cs->line_shift > 0 ? 12 - cs->line_shift : 0;
	uint64_t page = line >> page_shift;
	struct cache_stream *st = NULL, *lru = &pc->stream[0];
	for (uint32_t k = 0; k < cs->pf_streams; k++) {
		struct cache_stream *x = &pc->stream[k];
		if (x->page == page) {
			st = x;
			break;
		}
		if (x->used < lru->used)
			lru = x;
	}
	cs->pf_clock++;
	if (!st) {
		*lru = (struct cache_stream){page, line, line, cs->pf_clock};
		return;
	}
	st->used = cs->pf_clock;
	bool ascending = line > st->last && line - st->last <= 2;
	st->last = line;
	if (!ascending) {
		st->ahead = line;
		return;
	}
	if (st->ahead < line)
		st->ahead = line;
	uint64_t end = ((page + 1) << page_shift) - 1;
	uint64_t limit = line + cs->pf_distance < end ? line + cs->pf_distance : end;
	for (uint32_t n = 0; n < cs->pf_degree && st->ahead < limit; n++)
		pf_fill(cs, cpu, ++st->ahead);
}

enum cache_src cache_access_slow(struct cache_sys *cs, int cpu, uint64_t line,
				 bool write, int *from)
{
	struct cache_cpu *pc = &cs->cpu[cpu];
	struct set b1 = set_of(&pc->l1, line);
	size_t v1;
	long w1 = find_mru(&pc->l1, b1, line);
	long d = -1;
	bool remote = false;
	uint64_t wstamp = 0;
	if (cs->coherence) {
		/* the L1 claims answer without a directory probe when they can */
		if (w1 >= 0 && pc->claim[w1].own) {
			d = (long)pc->claim[w1].own - 1;
		} else if (w1 < 0 || pc->claim[w1].clean != cs->dir_epoch) {
			struct set bd = set_of(&cs->dir, line);
			/* the writer is read next: fetch it with the tags */
			__builtin_prefetch(cs->dir_writer + bd.base);
			d = find(&cs->dir, bd, line);
			if (d >= 0) {
				remote = cs->dir_writer[d] != cpu + 1;
				wstamp = cache_way_stamp(&cs->dir.way[d]);
			}
		}
	}
	enum cache_src src;
	if (w1 >= 0 && fresh(cache_way_stamp(&pc->l1.way[w1]), remote, wstamp)) {
		v1 = (size_t)w1;
		touch(&pc->l1, b1, v1);
		src = CACHE_SRC_L1;
		goto done;
	}
	uint64_t ev, now = cs->gstamp;
	struct set b2 = set_of(&pc->l2, line);
	long w2 = find(&pc->l2, b2, line);
	long w3 = -1;                  /* the LLC way of line, when looked up */
	if (w2 >= 0 && fresh(cache_way_stamp(&pc->l2.way[w2]), remote, wstamp)) {
		touch(&pc->l2, b2, (size_t)w2);
		src = CACHE_SRC_L2;
	} else {
		struct cache *llc = &cs->llc[pc->llc];
		struct set b3 = set_of(llc, line);
		w3 = find(llc, b3, line);
		if (remote && cache_way_flag(&cs->dir.way[d]) &&
		    held(cs, cs->dir_writer[d] - 1, line)) {
			*from = cs->dir_writer[d] - 1;
			set_flag(&cs->dir.way[d], false); /* now shared, written back */
			src = CACHE_SRC_XFER;
			w3 = (long)insert_at(llc, b3, w3, line, now, &ev);
		} else if (w3 >= 0 && fresh(cache_way_stamp(&llc->way[w3]), remote, wstamp)) {
			touch(llc, b3, (size_t)w3);
			src = CACHE_SRC_LLC;
		} else {
			src = CACHE_SRC_MEM;
			w3 = (long)insert_at(llc, b3, w3, line, now, &ev);
		}
		insert_at(&pc->l2, b2, w2, line, now, &ev);
	}
	if (pc->stream)
		pf_train(cs, cpu, line);
	v1 = insert_at(&pc->l1, b1, w1, line, now, &ev);
	if (w1 < 0) {
		/* the way's claims were about its old line */
		pc->claim[v1].llc_way = 0;
		pc->claim[v1].excl = 0;
	}
	if (w3 >= 0 && cs->llc[pc->llc].way[w3].tag == cache_tag_of(line)) {
		/* the LLC way just looked up (a prefetch may have refilled it) */
		pc->claim[v1].llc_way = (uint32_t)(w3 + 1);
		pc->claim[v1].llc_fills = cs->llc[pc->llc].fills;
	}
done:
	if (!cs->coherence)
		return src;
	if (write && pc->claim[v1].excl) {
		/* a repeated write (see "Repeated writes"): only the LRU moves */
		touch(&cs->dir, set_of(&cs->dir, line), (size_t)d);
		return src;
	}
	if (!write) {
		pc->claim[v1].own = d >= 0 && !remote ? (uint64_t)d + 1 : 0;
		pc->claim[v1].clean = d < 0 ? cs->dir_epoch : 0;
	} else {
		size_t dv = dir_write(cs, d, line, cpu);
		uint64_t st = cs->gstamp;
		pc->claim[v1].own = (uint64_t)dv + 1;
		pc->claim[v1].clean = 0;
		pc->claim[v1].excl = 1;
		/*
		 * The writer's L1 copy and its node's LLC copy carry the new
		 * stamp (the LLC one serves node neighbours once the line is
		 * clean again).  Its L2 copy needs none: a CPU's own copies are
		 * never checked while it is the last writer, and the next
		 * remote write makes them all stale anyway.
		 */
		set_stamp(&pc->l1.way[v1], st);
		struct cache *llc = &cs->llc[pc->llc];
		long w = (long)pc->claim[v1].llc_way - 1;
		if (w < 0 || (pc->claim[v1].llc_fills != llc->fills && llc->way[w].tag != cache_tag_of(line)))
			w = find(llc, set_of(llc, line), line);
		pc->claim[v1].llc_way = (uint32_t)(w + 1);
		pc->claim[v1].llc_fills = llc->fills;
		if (w >= 0)
			set_stamp(&llc->way[w], st);
	}
	return src;
}

void cache_as_init(struct cache_as *as)
{
	memset(as, 0, sizeof *as);
}

int cache_as_alloc(struct cache_as *as, int node, uint64_t bytes, uint64_t align,
		   uint64_t *addr)
{
	if (node < 0 || node >= CACHE_AS_MAX_NODES || !is_pow2(align))
		return NS_ERANGE;
	const uint64_t window = 1ull << CACHE_AS_SHIFT;
	uint64_t off = (as->next[node] + align - 1) & ~(align - 1);
	if (off < as->next[node] || off > window || bytes > window - off)
		return NS_ERANGE;
	as->next[node] = off + bytes;
	*addr = ((uint64_t)(node + 1) << CACHE_AS_SHIFT) + off;
	return NS_OK;
}
