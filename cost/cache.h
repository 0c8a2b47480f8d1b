/*
 * cache — the simulated data-cache hierarchy and coherence directory, plus
 * a synthetic physical address space for modelled objects.
 *
 * What it models: per-CPU private L1D and L2, one last-level cache per NUMA
 * node shared by that node's CPUs (one LLC per socket / SNC cluster / NPS
 * domain, which is what a SLIT node is on the machines of cost-figures.md),
 * all set-associative with true LRU replacement; and enough of the
 * coherence protocol to charge the cross-CPU traffic the allocators cause
 * (SLUB remote frees, zone->lock and list_lock bouncing): a line last
 * written by another CPU and not yet read by anyone else comes from that
 * CPU's cache (a HITM transfer, costed by distance), and copies older than
 * the last remote write are stale and miss.
 *
 * Choices (each a simplification, documented for readers of the results):
 *   - Inclusion: non-inclusive, non-exclusive (NINE).  A fill from memory or
 *     from another CPU goes into L1, L2 and the requester's LLC; evictions
 *     never back-invalidate other levels.  Skylake-SP's and Zen's LLCs are
 *     victim caches (filled by L2 evictions) and Broadwell's was inclusive;
 *     NINE sits between them: it over-states LLC hits for lines evicted from
 *     L2 only where a victim LLC would also hold them, and the capacity the
 *     model sees is max(L2, LLC) rather than L2 + LLC.
 *   - Replacement: true LRU with per-way ages 0..assoc-1 (0 = most recent).
 *   - Index: L1/L2 (and any cache with a power-of-two set count) use the low
 *     line-address bits; other LLC set counts (Skylake-SP 11-way slices) use
 *     a multiplicative hash, as the hardware's slice hash spreads lines.
 *   - Private caches of SMT siblings are not shared; every simulated CPU has
 *     its own L1D and L2.  Stores and loads are treated alike (write-allocate).
 *   - Coherence directory: a set-associative table of lines that were
 *     written, each with its last writer, a write stamp and a dirty flag
 *     (not yet read by another CPU).  A dirty line is transferred from its
 *     writer only while the writer still holds it in L1 or L2; once evicted
 *     it was written back and comes from the LLC or DRAM.  The directory is
 *     finite like a real snoop filter: when an entry is evicted the line's
 *     history is forgotten and stale copies elsewhere count as valid
 *     (under-counting transfers for lines written long ago).  Its default
 *     size is twice the number of lines all simulated L2s hold, at most
 *     CACHE_DIR_AUTO_MAX entries (20 bytes each), so a 256-CPU world does
 *     not spend 100 MB on it.  Sharers are not tracked, so a write to a
 *     line others hold clean costs no invalidation round trip.
 *   - Prefetcher (cost.model ooo, when the machine gives its figures): an
 *     L2 streamer as Intel's optimization manual describes it (Sandy Bridge
 *     onward): up to pf_streams streams, one per 4 KiB page; every L1 miss
 *     (an L2 lookup) trains the stream of its page, and a stream that saw
 *     an ascending step (the next line or the one after) issues up to
 *     pf_degree prefetches per lookup, running at most pf_distance lines
 *     ahead, never past the page.  A prefetch fills L2 and the LLC like a
 *     demand miss but is free for the CPU (bandwidth is not modelled); it
 *     skips a line held dirty by another CPU (the model would have to
 *     transfer it) and lines already in L2.  Descending streams, the L1
 *     next-line and IP-stride prefetchers and the streamer's throttling
 *     under load are left out.
 *   - Default associativity: L1D 8-way (Skylake 32 KiB), L2 16-way
 *     (Skylake-SP 1 MiB), LLC 11-way (Skylake-SP 1.375 MiB/slice).
 *
 * Address space: cache_as_alloc() hands out synthetic, aligned, never
 * reused addresses from a 1 TiB window per node id ((id + 1) << 40), so an
 * address also names its home node (cache_as_node()).
 *
 * Layout (for the host; results do not depend on it).  Each cache is one
 * array of 16-byte ways, set-major (the ways of a set contiguous, the sets
 * of one cache contiguous), plus a byte per set naming its most recent
 * way.  Every array of a cache_sys is carved from one mapping on huge
 * pages: first the shared arrays (LLCs, directory), then per CPU its L1,
 * its L1 claims and its L2 together.  The empty state is all
 * zero bytes: a tag is stored complemented (cache_tag_of(), 0 = empty), a
 * directory writer as CPU index + 1, and a set never filled stores rank 0
 * in every way, read as way i of rank i (cache_rank()); its first fill
 * writes the ranks.  So set-up writes nothing, the kernel's zero pages are
 * the empty caches, and the memory of simulated CPUs is mapped only as
 * far as their accesses reach: a huge page holding only CPUs that never
 * run (about seven CPUs' arrays) is never mapped.
 *
 * Invariants (cache_check()): in every set of every cache, valid tags are
 * distinct and belong to that set, the ages are a permutation of
 * 0..assoc-1 and the mru way has age 0, and the last way holds a line
 * (the first fill takes it); a set that is not all zero bytes is such a
 * filled set; directory writers are valid CPU indices; no stamp is ahead
 * of the global stamp; every L1 claim (struct cache_cpu) holds.  An empty
 * set is recognised by one compare of its bytes with zero (runs of 64 sets
 * at once), so the walk costs about a read of the arrays (~1 ms for the
 * seed machine's two 40 MiB LLCs) and the per-way checks are paid only by
 * the sets a run touched.  (The walk reads pages a run never touched; the
 * kernel maps its shared zero page for them, which costs no memory.)
 *
 * Error policy: init returns NS_ERANGE for impossible geometry (line size
 * not a power of two, size smaller than one set, associativity outside
 * 1..255) and NS_ENOMEM; the access path does no checking.
 */
#ifndef NUMASIM_CACHE_H
#define NUMASIM_CACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define CACHE_TAG_INVALID UINT64_MAX
#define CACHE_DIR_AUTO_MAX (1ull << 20)

/*
 * One way of a set: the line it holds and, packed in one word, the stamp
 * of its fill or last write, a flag (the directory's dirty bit) and its
 * LRU rank.  A lookup that scans a set's tags thereby brings the stamp,
 * flag and ranks it needs next into the host's cache with them (the
 * model's time is host cache misses; 16 bytes a way, where separate arrays
 * cost 17-18 and up to four more misses).  Stamps are below 2^55
 * (cache_check()).
 */
struct cache_way {
	uint64_t tag;          /* ~line (cache_tag_of()), 0 = empty (holds no line) */
	uint64_t sa;           /* stamp << 9 | flag << 8 | LRU rank (0 = most recent) */
};

/*
 * The stored form of a line: its complement, so that an empty way is all
 * zero bytes (see "Lazy state" in cache.c: the mapping's zero pages are
 * the empty state, and nothing is written before a set is first filled).
 * CACHE_TAG_INVALID, the line no way holds, is stored as 0.
 */
static inline uint64_t cache_tag_of(uint64_t line)
{
	return ~line;
}

/* The line way w holds, CACHE_TAG_INVALID when empty. */
static inline uint64_t cache_way_line(const struct cache_way *w)
{
	return ~w->tag;
}

#define CACHE_STAMP_MAX ((UINT64_C(1) << 55) - 1)
#define CACHE_WAY_FLAG ((uint64_t)0x100)

static inline uint64_t cache_way_stamp(const struct cache_way *w)
{
	return w->sa >> 9;
}

static inline bool cache_way_flag(const struct cache_way *w)
{
	return w->sa & CACHE_WAY_FLAG;
}

/* The stored rank; a set never filled stores 0 in every way and means
 * way i of rank i (cache_rank()). */
static inline uint8_t cache_way_age(const struct cache_way *w)
{
	return (uint8_t)w->sa;
}

/* One set-associative cache. */
struct cache {
	uint32_t nsets, assoc;
	uint32_t set_mask;     /* nsets - 1 when nsets is a power of two, else 0 */
	bool pow2;
	struct cache_way *way; /* [nsets * assoc], set-major */
	uint8_t *mru;          /* [nsets] the way of age 0 (the most recent) */
	uint64_t fills;        /* ways given a new line so far */
};

struct cache_params {
	uint32_t line_size, l1d_size, l2_size, llc_size; /* bytes */
	int l1d_assoc, l2_assoc, llc_assoc;
	bool coherence;        /* directory on (needed with >1 CPU; cpu_sys_init() turns it off for one) */
	int dir_assoc;
	uint64_t dir_entries;  /* 0 = 2 x all L2 lines, rounded to a power of two */
	/* L2 stream prefetcher ("Prefetcher" above): 0 streams = off */
	uint32_t pf_streams, pf_distance, pf_degree;
	struct cache_pool *pool; /* keep the arrays for the next init, or NULL */
};

/*
 * A pool of one arena (every array of a cache_sys, "The arena" in
 * cache.c) kept from one world to the next (a sweep builds the same
 * machine's caches hundreds of times): cache_sys_free() puts its arrays
 * back into the pool in the empty state, and the next cache_sys_init()
 * of the same geometry takes them instead of mapping and clearing ~20 MB
 * again.  Results do not change: the arrays are in exactly the state a
 * fresh init leaves (cache_sys_clear_check(), asserted in debug builds).  A pool is used by
 * one thread at a time (the caller serialises); zero-initialise it,
 * cache_pool_free() at the end.
 */
struct cache_pool {
	void *map;             /* the idle arena, or NULL */
	size_t map_len;
	uint32_t key[12];      /* the geometry it was carved for */
	uint64_t reused;       /* inits served from the pool (for tests) */
};

void cache_pool_free(struct cache_pool *pl);

/* Associativities 8/16/11, directory 8-way auto-sized, coherence on. */
void cache_params_default(struct cache_params *p);

/*
 * Per L1 way w, what is known of the directory's view of the line it
 * holds (struct cache_claim below; valid with coherence on, so an L1 hit
 * need not probe the directory): own = k + 1 means directory way k holds
 * the line with this CPU as its last writer; clean == cache_sys.dir_epoch
 * means the directory had no entry for the line and none has been created
 * since.  Either way the copy cannot be stale.  Both are claims, not
 * caches of state: 0 (and an old epoch) only mean "ask the directory".
 * llc_way = k + 1: the line was in way k of the CPU's LLC when the L1
 * last filled or wrote it, and still is when llc_fills equals the LLC's
 * fills (no LLC way refilled since), so a write updates the LLC copy's
 * stamp without an LLC set lookup (with one tag check after refills).
 * excl = 1: the own claim holds and no
 * other CPU has filled a copy of the line since this CPU last wrote it
 * (the line is still dirty and only here); a repeated write then needs
 * no new stamp (see "Repeated writes" in cache.c).
 */
/* One stream of the L2 streamer: a 4 KiB page and how far it got. */
struct cache_stream {
	uint64_t page;         /* line >> lines-per-page shift, UINT64_MAX = free */
	uint64_t last;         /* last line the stream saw */
	uint64_t ahead;        /* last line prefetched (>= last) */
	uint64_t used;         /* LRU stamp */
};

/*
 * The claims of one L1 way, together: an access reads and writes several
 * of them, and in one 32-byte record they are one host cache line where
 * five arrays were up to five (a many-CPU machine's claims do not stay in
 * the host's L1).  llc_way < 2^32: cache_sys_init() refuses larger LLCs.
 */
struct cache_claim {
	uint64_t own;
	uint64_t clean;
	uint64_t llc_fills;
	uint32_t llc_way;
	uint32_t excl;         /* 0 or 1 */
};

struct cache_cpu {
	struct cache l1, l2;
	struct cache_stream *stream; /* [pf_streams] or NULL */
	uint64_t pf_issued;    /* lines the streamer brought into L2 */
	int llc;               /* index into cache_sys.llc */
	struct cache_claim *claim; /* [l1 ways] */
};

/* Where an access was served from. */
enum cache_src {
	CACHE_SRC_L1 = 0,
	CACHE_SRC_L2,
	CACHE_SRC_LLC,
	CACHE_SRC_MEM,         /* DRAM of the line's home node */
	CACHE_SRC_XFER,        /* another CPU's cache (dirty line) */
};

struct cache_sys {
	int line_shift;
	uint32_t pf_streams, pf_distance, pf_degree;
	uint64_t pf_clock;     /* stream LRU stamps */
	int nr_cpus, nr_llc;
	struct cache_cpu *cpu;
	struct cache *llc;
	bool coherence;
	struct cache dir;
	int32_t *dir_writer;   /* [dir ways] CPU index + 1, 0 = none (empty way) */
	/* the flag of a directory way: dirty, only in the writer's cache */
	uint64_t gstamp;       /* last write stamp handed out */
	uint64_t dir_epoch;    /* directory entries created, + 1 */
	void *map;             /* the mapping every array lives in (cache.c) */
	size_t map_len;
	struct cache_pool *pool; /* where cache_sys_free() puts the mapping */
	uint32_t key[12];      /* its geometry (struct cache_pool) */
};

/*
 * nr_cpus simulated CPUs; cpu_llc[i] is the LLC index (0..nr_llc-1) CPU i
 * shares (typically the position of its node).
 */
int cache_sys_init(struct cache_sys *cs, const struct cache_params *p,
		   int nr_cpus, const int *cpu_llc, int nr_llc);
void cache_sys_free(struct cache_sys *cs);
int cache_check(const struct cache_sys *cs);
/* Every array of cs is in the empty state a fresh init leaves (a full
 * walk; debug builds assert it of every arena taken from a pool). */
int cache_sys_clear_check(const struct cache_sys *cs);

/* Set index of a line (see "Index" above). */
static inline uint32_t cache_set(const struct cache *c, uint64_t line)
{
	if (c->pow2)
		return (uint32_t)line & c->set_mask;
	uint64_t h = line * 0x9E3779B97F4A7C15ull;
	return (uint32_t)(((h >> 32) * (uint64_t)c->nsets) >> 32);
}

/* cache_access() for everything but the inline fast path below. */
enum cache_src cache_access_slow(struct cache_sys *cs, int cpu, uint64_t line,
				 bool write, int *from);

/*
 * One access by CPU `cpu` to line number `line` (address >> line_shift).
 * Returns the source; for CACHE_SRC_XFER *from is the CPU that held it.
 *
 * Inline fast path (cache_l1_fast(), true when it applies; cpu_mem() in
 * cpu.h calls it directly): a hit on the most recent way of an L1 set
 * changes no state (no LRU move) when the directory is off, for a load
 * whose copy struct cache_cpu proves fresh, or for a store to a line this
 * CPU holds exclusively (excl) whose directory entry is already the most
 * recent of its set; it returns at once.  Everything else goes through
 * cache_access_slow(), which decides every case.
 */
static inline bool cache_l1_fast(const struct cache_sys *cs, int cpu, uint64_t line,
				 bool write)
{
	const struct cache_cpu *pc = &cs->cpu[cpu];
	uint32_t set = cache_set(&pc->l1, line);
	size_t w = (size_t)set * pc->l1.assoc + pc->l1.mru[set];
	return pc->l1.way[w].tag == cache_tag_of(line) &&
	       (!cs->coherence ||
		(!write ? pc->claim[w].own || pc->claim[w].clean == cs->dir_epoch
			: pc->claim[w].excl &&
				  cache_way_age(&cs->dir.way[pc->claim[w].own - 1]) == 0));
}

static inline enum cache_src cache_access(struct cache_sys *cs, int cpu,
					  uint64_t line, bool write, int *from)
{
	if (cache_l1_fast(cs, cpu, line, write))
		return CACHE_SRC_L1;
	return cache_access_slow(cs, cpu, line, write, from);
}

/* Single-cache primitives (exposed for tests). */
int cache_init(struct cache *c, uint64_t size, uint32_t line_size, int assoc);
void cache_free(struct cache *c);
/* Look up and, on a hit, make the way most recent: way index or -1. */
long cache_lookup(struct cache *c, uint64_t line);
/* Insert (or refresh) a line; returns the evicted tag or CACHE_TAG_INVALID. */
uint64_t cache_insert(struct cache *c, uint64_t line, uint64_t stamp);
int cache_one_check(const struct cache *c);
/* LRU rank of way w (index into c->way): what cache_way_age() stores, or
 * w's place in its set when the set was never filled. */
uint8_t cache_rank(const struct cache *c, size_t w);

/* Synthetic address space: a 1 TiB window per node id. */
#define CACHE_AS_SHIFT 40
#define CACHE_AS_MAX_NODES 1024

struct cache_as {
	uint64_t next[CACHE_AS_MAX_NODES]; /* offset of the next free byte */
};

void cache_as_init(struct cache_as *as);
/* align: a power of two >= 1.  NS_ERANGE on a bad node/align or a full window. */
int cache_as_alloc(struct cache_as *as, int node, uint64_t bytes, uint64_t align,
		   uint64_t *addr);
/* Home node id of an address from cache_as_alloc, -1 otherwise. */
static inline int cache_as_node(uint64_t addr)
{
	uint64_t n = addr >> CACHE_AS_SHIFT;
	return n >= 1 && n <= CACHE_AS_MAX_NODES ? (int)(n - 1) : -1;
}

#endif
