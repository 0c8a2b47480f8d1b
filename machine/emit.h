/*
 * emit — writes a machine file (docs/reference/machine-format.md) from an in-memory
 * description, the way `numasim import` produces its output.
 *
 * What it models: nothing of the kernel; it is the inverse of the machine
 * loader for the topology part.  A struct machine_desc is what an importer
 * knows about a box (node ids, CPUs, zone sizes in pages, the SLIT matrix)
 * plus the provenance text; emit_machine() renders it as YAML that the
 * loader reads back to the same topology:
 *   - header comment lines first (each prefixed with "# ");
 *   - every string double-quoted with YAML escapes, so names, sources and
 *     cpulists can never be read back as numbers, booleans or nulls;
 *   - cpus as a cpulist string ("0-19,40-59", "" for a CPU-less node);
 *   - zone sizes with a binary unit when they are a whole number of MiB
 *     (16MiB, 4GiB, 1TiB), otherwise as a page count;
 *   - distance rows as flow lists, one row per line;
 *   - the costs block copied verbatim (comments and sources kept) from the
 *     cost profile, so an imported file cites the same figures.
 *
 * Invariants of a struct emit_buf: data is NUL-terminated whenever it is
 * non-NULL, len < cap, and once an allocation failed (oom set) the buffer
 * keeps its earlier contents and every later append is a no-op.
 *
 * Error policy: the emitter does not judge the description (the loader
 * does, in the round trip every importer performs); the only failure is
 * running out of memory, reported as NS_ENOMEM.
 */
#ifndef NUMASIM_EMIT_H
#define NUMASIM_EMIT_H

#include <stddef.h>
#include <stdint.h>

#include "machine/machine.h"

/* A growable, NUL-terminated text buffer. */
struct emit_buf {
	char *data;
	size_t len, cap;
	int oom;               /* an append failed: the text is incomplete */
};

void emit_buf_init(struct emit_buf *b);
void emit_buf_free(struct emit_buf *b);
/* Append; on allocation failure set oom and leave the text as it was. */
void emit_puts(struct emit_buf *b, const char *s);
void emit_putn(struct emit_buf *b, const char *s, size_t n);
void emit_printf(struct emit_buf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Append s as a double-quoted YAML scalar (escapes ", \ and controls). */
void emit_quoted(struct emit_buf *b, const char *s);
/* Append a size as "16MiB"/"4GiB"/"1TiB" if exact in MiB, else pages. */
void emit_size(struct emit_buf *b, uint64_t pages, uint32_t page_size);

struct desc_zone {
	enum zone_type type;
	uint64_t pages;
};

struct desc_node {
	int id;
	int nr_cpus;
	int *cpus;                  /* ascending */
	uint64_t mem_pages;         /* node total (sum of zones once laid out) */
	int has_free;               /* free_pages known: emitted as `free:` */
	uint64_t free_pages;        /* free at the start, <= mem_pages */
	int nr_zones;
	struct desc_zone zones[NR_ZONE_TYPES]; /* ascending type */
	int line;                   /* where the node was described, 0 if none */
};

struct machine_desc {
	char *name;
	char *description;          /* NULL: no description key */
	int nr_sources;
	char **sources;
	int nr_header;
	char **header;              /* comment lines, without the "# " */
	uint32_t page_size;         /* bytes; 4096 is left implicit */
	int nr_nodes;
	struct desc_node *nodes;    /* ascending id */
	int *distance;              /* nr_nodes * nr_nodes, by position */
	char *costs_text;           /* "costs:" block, verbatim, ends in '\n' */
	char *costs_path;           /* profile it came from (for messages) */
	int costs_line;             /* line of "costs:" in that profile */
};

void machine_desc_init(struct machine_desc *d);
void machine_desc_free(struct machine_desc *d);
/* Append a copy of a source / header line; NS_OK or NS_ENOMEM. */
int machine_desc_add_source(struct machine_desc *d, const char *s);
int machine_desc_add_header(struct machine_desc *d, const char *s);

/* Render d as a machine file into b (appending).  NS_OK or NS_ENOMEM. */
int emit_machine(const struct machine_desc *d, struct emit_buf *b);

#endif
