/*
 * machine — the simulated machine: NUMA nodes, their CPUs and memory zones,
 * the SLIT distance matrix and the cycle-cost figures, loaded from a machine
 * file (docs/reference/machine-format.md).
 *
 * What it models: the firmware/boot view Linux has of a NUMA box (the
 * ACPI SRAT/SLIT tables as `numactl --hardware` and
 * /sys/devices/system/node show them) plus the per-microarchitecture cost
 * figures of docs/reference/machines.md.  Zone types follow
 * include/linux/mmzone.h `enum zone_type`; this model keeps one ordinal per
 * type that can appear in a machine file (DMA < DMA32 < Normal < HighMem <
 * Movable), which orders zones exactly as the kernel's zone_idx does on
 * every configuration (a kernel config never has both DMA32 and HighMem).
 *
 * Invariants (checked by machine_check()):
 *   - nodes[] is in ascending id order, ids unique, 0 <= id < MACHINE_MAX_NODES;
 *   - node_index[id] is the position of node id in nodes[], -1 for absent ids;
 *   - every CPU belongs to at most one node; cpu_node[cpu] is that node's id
 *     or -1; node cpus[] are ascending;
 *   - zones of a node are in ascending type order, unique, pages > 0;
 *     mem_pages is their sum; used_pages <= mem_pages (mem_pages minus the
 *     optional `free:` key, the memory free when the simulation starts: a
 *     booted system's other pages are in use);
 *   - distance[i * nr_nodes + j] (by position) is 10 on the diagonal and in
 *     [10, 255] elsewhere (255 = unreachable);
 *   - every cost figure is > 0 and carries a non-empty source.
 *
 * Error policy: the loader never asserts on input.  Every problem in a file
 * is reported through struct diag as file:line:col with status NS_EINPUT and
 * nothing is returned.  The YAML layer (base/ytree.h) refuses anchors,
 * aliases, tags, more than one document, files over 16 MiB, nesting deeper
 * than 64 levels and more than 2^21 nodes before the schema is looked at.
 * machine_check() returns NS_EINTERNAL on a broken in-memory machine (a bug,
 * not bad input).
 */
#ifndef NUMASIM_MACHINE_H
#define NUMASIM_MACHINE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "base/diag.h"

#define MACHINE_MAX_NODES 1024  /* MAX_NUMNODES with NODES_SHIFT=10 (MAXSMP) */
#define MACHINE_MAX_CPUS 8192   /* NR_CPUS with MAXSMP */
#define MACHINE_DISTANCE_LOCAL 10
#define MACHINE_DISTANCE_UNREACHABLE 255

/* Zone types in kernel order; the value is the zone ordinal. */
#define ZONE_TYPE_MAP(X)                                                       \
	X(DMA, "DMA")                                                          \
	X(DMA32, "DMA32")                                                      \
	X(NORMAL, "Normal")                                                    \
	X(HIGHMEM, "HighMem")                                                  \
	X(MOVABLE, "Movable")

enum zone_type {
#define ZONE_TYPE_ENUM(id, name) ZONE_##id,
	ZONE_TYPE_MAP(ZONE_TYPE_ENUM)
#undef ZONE_TYPE_ENUM
	NR_ZONE_TYPES
};

const char *zone_type_name(enum zone_type t);
/* Parse "DMA", "DMA32", "Normal", "HighMem", "Movable"; -1 if unknown. */
int zone_type_parse(const char *s);

/*
 * Cost figures: X(field, unit, description).  Every figure in a machine file
 * is written as {value: V, source: "..."}; sizes accept units (32KiB).
 * The same list generates the struct, the loader's key table, the emitter
 * and the table in docs/reference/machine-format.md.
 */
#define MACHINE_COST_MAP(X)                                                    \
	X(clock_ghz, "GHz", "core clock used to convert ns to cycles")         \
	X(call_return, "cycles", "predicted call + return, prologue and epilogue") \
	X(branch, "cycles", "an executed conditional branch")                  \
	X(taken_branch, "cycles", "extra cost of a taken branch (front-end bubble)") \
	X(mispredict, "cycles", "branch mispredict penalty")                   \
	X(return_stack, "entries", "return stack buffer depth")                \
	X(line_size, "bytes", "cache line size")                               \
	X(l1d_size, "bytes", "L1 data cache per CPU")                          \
	X(l1d_latency, "cycles", "L1D load-to-use latency")                    \
	X(l2_size, "bytes", "L2 cache per CPU")                                \
	X(l2_latency, "cycles", "L2 hit latency")                              \
	X(llc_size, "bytes", "last-level cache per node")                      \
	X(llc_latency, "cycles", "LLC hit latency")                            \
	X(atomic, "cycles", "an uncontended locked read-modify-write")         \
	X(lock_uncontended, "cycles", "uncontended spin_lock + spin_unlock")   \
	X(irq_save_restore, "cycles", "local_irq_save + local_irq_restore")    \
	X(this_cpu_cmpxchg, "cycles", "this_cpu_cmpxchg (no lock prefix)")

/*
 * Optional core figures: the out-of-order timing model (cost.model ooo,
 * cpu.h), the L2 stream prefetcher and the clocks.  A machine file may
 * leave them out (value 0, no source); a world with cost.model ooo needs
 * the ones cpu_ooo_missing() names.  Same X(field, unit, description).
 */
#define MACHINE_CORE_MAP(X)                                                    \
	X(dispatch_width, "entries", "uops renamed and dispatched per cycle (ooo)") \
	X(rob_size, "entries", "reorder buffer entries (ooo)")                 \
	X(load_queue, "entries", "load buffer entries (ooo)")                  \
	X(load_ports, "entries", "loads executed per cycle (ooo)")             \
	X(fill_buffers, "entries", "outstanding L1D misses: memory-level parallelism (ooo)") \
	X(call_uops, "entries", "fused-domain uops of a near call (ooo)")      \
	X(ret_uops, "entries", "fused-domain uops of a near return (ooo)")     \
	X(prefetch_streams, "entries", "L2 streamer: streams tracked (ooo)")   \
	X(prefetch_distance, "entries", "L2 streamer: lines it runs ahead of the access (ooo)") \
	X(prefetch_degree, "entries", "L2 streamer: prefetches issued per L2 lookup (ooo)") \
	X(tsc_ghz, "GHz", "TSC frequency: rdtsc ticks per ns")                 \
	X(core_ghz, "GHz", "core clock while the benchmark runs (turbo) (ooo)")

struct cost_figure {
	double value;
	char *source;
	int line, col;         /* where it was read, 0 if built in code */
};

/* A latency point of a by-distance table (memory or cache-line transfer). */
struct latency_point {
	int distance;          /* SLIT distance, 10 = local */
	double ns;
	char *source;
};

struct machine_costs {
#define MACHINE_COST_FIELD(field, unit, desc) struct cost_figure field;
	MACHINE_COST_MAP(MACHINE_COST_FIELD)
	MACHINE_CORE_MAP(MACHINE_COST_FIELD)
#undef MACHINE_COST_FIELD
	/* DRAM load latency by SLIT distance, ascending distance, first = 10. */
	int nr_memory_latency;
	struct latency_point *memory_latency;
	/* Cache-line transfer (HITM) latency by SLIT distance, ascending. */
	int nr_line_transfer;
	struct latency_point *line_transfer;
	/* Cost profile files only (configs/costs/): NULL in machine files. */
	char *name;
	char *description;
};

struct machine_zone {
	enum zone_type type;
	uint64_t pages;
};

struct machine_node {
	int id;
	int nr_cpus;
	int *cpus;             /* ascending CPU numbers */
	int nr_zones;
	struct machine_zone zones[NR_ZONE_TYPES]; /* ascending type */
	uint64_t mem_pages;    /* sum of zone pages */
	uint64_t used_pages;   /* in use when the simulation starts: mem_pages
				* minus the key `free:`; 0 without it (and
				* in machines built in code) */
};

struct machine {
	char *path;            /* file it was loaded from ("-" for stdin) */
	char *name;
	char *description;
	int nr_sources;
	char **sources;
	uint32_t page_size;    /* bytes, default 4096 */
	int nr_nodes;
	struct machine_node *nodes;  /* ascending id */
	int node_index[MACHINE_MAX_NODES]; /* id -> position or -1 */
	int *distance;         /* nr_nodes * nr_nodes, by position */
	int nr_cpus;           /* CPUs present */
	int max_cpu;           /* highest CPU number, -1 if none */
	int *cpu_node;         /* [max_cpu + 1]: node id or -1 */
	struct machine_costs costs;
	uint8_t sha256[32];    /* of the file's bytes (provenance), 0 if built */
};

/* Load a machine file; path "-" reads standard input. */
int machine_load_file(const char *path, struct machine **out, struct diag *d);
/* Load from a buffer; name is used in messages and as m->path. */
int machine_load_buf(const char *name, const char *buf, size_t len,
		     struct machine **out, struct diag *d);
void machine_free(struct machine *m);
/* Invariant walker: NS_OK or NS_EINTERNAL (with a message in d). */
int machine_check(const struct machine *m, struct diag *d);

/* Distance between two nodes given by id (both must exist). */
static inline int machine_distance(const struct machine *m, int from_id, int to_id)
{
	return m->distance[m->node_index[from_id] * m->nr_nodes +
			   m->node_index[to_id]];
}

/*
 * Memory latency in ns for a SLIT distance: linear between table points, the
 * first point's value at or below its distance, and beyond the last point
 * proportional to the distance (ns_last * distance / d_last).
 */
double machine_memory_latency_ns(const struct machine *m, int distance);
/* The same lookup on the cache-line transfer table. */
double machine_line_transfer_ns(const struct machine *m, int distance);
/* The same lookup on any by-distance table (0.0 for an empty table). */
double machine_latency_ns(const struct latency_point *p, int nr, int distance);
/* Total memory of the machine in pages. */
uint64_t machine_mem_pages(const struct machine *m);

/*
 * Cost profiles (configs/costs/NAME.yaml): top-level `name` (required),
 * `description` (optional) and `costs` (required, the same mapping as in a
 * machine file).  On success *out owns its strings (free them with
 * machine_costs_free()); on failure *out is all zero and nothing is
 * allocated.  Path "-" reads standard input.
 */
int machine_costs_load_file(const char *path, struct machine_costs *out,
			    struct diag *d);
int machine_costs_load_buf(const char *name, const char *buf, size_t len,
			   struct machine_costs *out, struct diag *d);
/* Free what a machine_costs owns and zero it (the struct itself is not freed). */
void machine_costs_free(struct machine_costs *c);
/* Invariants of a cost set (every figure > 0 with a source, tables
 * ascending from 10); NS_EINTERNAL naming file on failure. */
int machine_costs_check(const struct machine_costs *c, const char *file,
			struct diag *d);

#endif
