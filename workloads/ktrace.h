/*
 * ktrace — recorded kmem traces: the text that `perf script` and ftrace
 * (`trace-cmd report`, tracefs `trace`) print for the kmem events, read
 * into an array of events, and numasim's compact trace file (written by
 * `numasim import trace FILE -o OUT`, read back by the replay workload).
 *
 * What it reads: the TP_printk formats of include/trace/events/kmem.h
 * (docs/reference/trace-format.md lists them field by field), checked against the
 * header of v4.6, of v5.15 and of current mainline:
 *   - old (v4.6): `call_site=%lx` (bare hex), pfn `%lu` (decimal),
 *     kmalloc_node and kmem_cache_alloc_node with `node=%d`,
 *     mm_page_free_batched with `cold=%d`;
 *   - v5.15: `call_site=%pS` (symbol+off/len, or 0x-hex when
 *     unresolved), pfn `0x%lx`, the `_node` events still there,
 *     kmem_cache_free with `name=%s`, mm_page_free_batched without cold;
 *   - current: kmem_cache_alloc with `name=%s`, kmalloc and
 *     kmem_cache_alloc with `node=%d accounted=%s`, the `_node` events
 *     gone.
 * Each field is recognised by its key, so formats in between (4.x
 * events with a symbolic call site, ...) read too.  The line prefix is
 * ftrace's `TASK-PID [CPU] FLAGS TIMESTAMP: EVENT: FIELDS` (FLAGS and a
 * `(TGID)` column optional) or perf script's default `COMM TID [CPU]
 * TIMESTAMP: kmem:EVENT: FIELDS`.  Lines that are not events are
 * recognised and counted or skipped: blank lines, `#` comments and
 * ftrace's headers, trace-cmd's `cpus=N`, `version = N` and `CPU N is
 * empty`, perf's call-chain lines (`\t ADDR SYM (DSO)`), and the lost
 * events lines `CPU:N [LOST N EVENTS]` (ftrace) and `CPU:N [N EVENTS
 * DROPPED]` (trace-cmd), whose N is summed.  Events of other systems
 * (sched, irq, ...) and kmem events numasim does not use
 * (mm_page_alloc_extfrag, rss_stat, ...) are counted as "other".
 *
 * Pointers: ftrace prints hashed pointers since v4.15 (%p, a 32-bit hash
 * in 16 hex digits); they are keys only (an object is found again by the
 * value its kfree prints), so hashing does not matter.  Pages are keyed
 * by pfn.  `(null)`, `(nil)` (perf and trace-cmd print %p with the C
 * library) and an all-zero pointer are NULL: a failed allocation.
 *
 * The compact file (docs/reference/trace-format.md): a 96-byte header (magic
 * "NSKTRACE", version 1, record size, counts), the string table
 * (NUL-terminated strings: call sites, tasks, GFP texts, cache names),
 * then fixed 48-byte little-endian event records.
 *
 * Invariants (ktrace_check()): events in file order; every string index
 * of an event names a string of the table; kind, order (< 11 for page
 * events) and flags are in range; nr_by_kind sums to nr.
 *
 * Error policy: a line that is not understood is NS_EINPUT with
 * file:line:col at the offending character, unless skip_bad, which
 * counts it (bad_lines) and goes on; a compact file whose header or
 * records do not check is NS_EINPUT "file: error: ..." (no line); host
 * allocation failure is NS_ENOMEM.  Nothing is kept of a failed read.
 */
#ifndef NUMASIM_KTRACE_H
#define NUMASIM_KTRACE_H

#include <stddef.h>
#include <stdint.h>

#include "base/diag.h"

/* The events numasim reads: X(kind, "event name"). */
#define KTRACE_KINDS(X)                                                        \
	X(MM_PAGE_ALLOC, "mm_page_alloc")                                      \
	X(MM_PAGE_FREE, "mm_page_free")                                        \
	X(MM_PAGE_FREE_BATCHED, "mm_page_free_batched")                        \
	X(MM_PAGE_ALLOC_ZONE_LOCKED, "mm_page_alloc_zone_locked")              \
	X(MM_PAGE_PCPU_DRAIN, "mm_page_pcpu_drain")                            \
	X(KMEM_CACHE_ALLOC, "kmem_cache_alloc")                                \
	X(KMEM_CACHE_ALLOC_NODE, "kmem_cache_alloc_node")                      \
	X(KMALLOC, "kmalloc")                                                  \
	X(KMALLOC_NODE, "kmalloc_node")                                        \
	X(KMEM_CACHE_FREE, "kmem_cache_free")                                  \
	X(KFREE, "kfree")

enum ktrace_kind {
#define KTRACE_KIND_ENUM(id, name) KT_##id,
	KTRACE_KINDS(KTRACE_KIND_ENUM)
#undef KTRACE_KIND_ENUM
	KT_NR_KINDS
};
const char *ktrace_kind_name(enum ktrace_kind k);   /* "mm_page_alloc" */

/* Event flags. */
#define KT_F_FAILED 0x01        /* allocation returned NULL (page or ptr) */
#define KT_F_SLAB_PAGE 0x02     /* page event of a slab's (or kmalloc_large's)
				 * page: see ktrace_mark_slab_pages() */
#define KT_F_PERCPU_REFILL 0x04 /* mm_page_alloc_zone_locked percpu_refill=1 */
#define KT_F_ACCOUNTED 0x08     /* accounted=true (memcg) */
#define KT_F_COLD 0x10          /* mm_page_free_batched cold=1 (v4.x) */
#define KT_F_ALL 0x1f

#define KT_NO_STR UINT32_MAX    /* no string (a field the format lacks) */
#define KT_NO_NODE (-1)
#define KT_MAX_ORDER 11         /* page orders 0..10 */
#define KT_MIGRATE_MOVABLE 1    /* MIGRATE_MOVABLE, as the events print it */
#define KT_MAX_CPUS 65536
#define KT_MAX_FILE (16ull << 30) /* bytes of a trace file read */

/*
 * One recorded event: 48 bytes, the layout of a compact-file record
 * (fields little-endian in this order).  key is the pfn of page events,
 * the pointer of object events.
 */
struct ktrace_event {
	uint64_t ts_ns;                 /* timestamp, nanoseconds */
	uint64_t key;                   /* pfn, or ptr */
	uint32_t call_site;             /* string index (object events) */
	uint32_t task;                  /* string index: "comm-pid" */
	uint32_t gfp;                   /* string index: gfp_flags as printed */
	uint32_t cache;                 /* string index: name=, or KT_NO_STR */
	uint32_t bytes_req, bytes_alloc;
	uint16_t cpu;
	uint8_t kind;                   /* enum ktrace_kind */
	uint8_t order;                  /* page order (page events) */
	int8_t migratetype;             /* -1: not printed */
	int8_t node;                    /* node=, KT_NO_NODE when absent */
	uint8_t flags;                  /* KT_F_* */
	uint8_t pad;
};

/* What a read saw besides the events. */
struct ktrace_counts {
	uint64_t lines;                 /* lines read */
	uint64_t by_kind[KT_NR_KINDS];
	uint64_t other_events;          /* events of other kinds or systems */
	uint64_t skipped_lines;         /* headers, blank lines, call chains */
	uint64_t lost_lines;            /* CPU:N [LOST N EVENTS] lines */
	uint64_t lost_events;           /* the N they give */
	uint64_t bad_lines;             /* skipped under skip_bad */
	int truncated;                  /* the last line had no newline */
};

struct ktrace {
	struct ktrace_event *ev;
	size_t nr, cap;
	char **str;                     /* the string table */
	uint32_t nr_str, cap_str;
	void *intern;                   /* string -> index (ktrace.c) */
	struct ktrace_counts n;
	int max_cpu;                    /* highest recorded CPU, -1: none */
};

void ktrace_init(struct ktrace *t);
void ktrace_free(struct ktrace *t);

/* Read text trace buf (len bytes) named name (for messages) into t
 * (which must be empty), then ktrace_mark_slab_pages(). */
int ktrace_parse(struct ktrace *t, const char *name, const char *buf, size_t len,
		 int skip_bad, struct diag *d);
/* Whether buf starts like a compact file. */
int ktrace_is_compact(const char *buf, size_t len);
/* Read a compact file (checked record by record). */
int ktrace_load_compact(struct ktrace *t, const char *name, const char *buf, size_t len,
			struct diag *d);
/* Either, by its first bytes. */
int ktrace_read(struct ktrace *t, const char *name, const char *buf, size_t len,
		int skip_bad, struct diag *d);
/* Read the file path (`-`: standard input; at most KT_MAX_FILE bytes)
 * with ktrace_read; a regular file is mapped (mmap), not copied. */
int ktrace_read_file(struct ktrace *t, const char *path, int skip_bad, struct diag *d);
/* The compact file of t, malloc'ed, in *out (*len bytes). */
int ktrace_write_compact(const struct ktrace *t, char **out, size_t *len);

/*
 * The page events that belong to slab allocations: an mm_page_alloc
 * whose next event on the same CPU (the allocator's own events aside) is
 * a slab allocation event (kmem_cache_alloc*, kmalloc*) is the page
 * allocate_slab() or kmalloc_large() took inside that call, unless its
 * migrate type is MIGRATE_MOVABLE (slab and kmalloc pages never are: no
 * cache passes __GFP_MOVABLE); it gets KT_F_SLAB_PAGE, and so does the
 * later mm_page_free of the same pfn (the slab's discard, or kfree of a
 * large kmalloc).  Adjacency is a heuristic: a task's own page
 * allocation followed at once by its kmalloc is taken for a slab page.  The replay leaves them to the SLUB model,
 * which allocates its own slab pages.  Returns how many were marked.
 */
uint64_t ktrace_mark_slab_pages(struct ktrace *t);

/* The string of index i ("" for KT_NO_STR or out of range). */
const char *ktrace_str(const struct ktrace *t, uint32_t i);

int ktrace_check(const struct ktrace *t, struct diag *d);

#endif
