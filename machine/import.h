/*
 * import — builds a machine description (emit.h) from what a real Linux box
 * reports about itself: the output of `numactl --hardware` or the NUMA
 * files under /sys/devices/system/node (plus /proc/zoneinfo when present),
 * then attaches a named cost profile and renders a machine file that is
 * checked by loading it back.
 *
 * What is read, and how it maps to a machine file:
 *   numactl --hardware (numactl.c hardware(), numactl 2.0.x):
 *     "available: N nodes (LIST)"   node ids, LIST in cpulist syntax
 *     "node X cpus: 0 1 2 ..."      CPUs (also --cpu-compress "0-15 (16)");
 *                                   a CPU list wrapped onto following lines
 *                                   of bare numbers (mail clients do this)
 *                                   is joined back
 *     "node X size: N MB"           node MemTotal in MiB (numa_node_size64,
 *                                   i.e. the node's managed pages)
 *     "node X free: N MB"           the node's `free:` key (memory free when
 *                                   the simulation starts), at most size
 *     "node distances:" + table     SLIT rows, header = node ids
 *     "No distance information available."  accepted for one node only
 *     "No NUMA available on this system"    one node 0 with the CPUs and
 *                                   memory of opts.one_node_* (refused
 *                                   without them)
 *   sysfs (Documentation/ABI/stable/sysfs-devices-node):
 *     ROOT/sys/devices/system/node/online, nodeN/cpulist, nodeN/distance,
 *     nodeN/meminfo ("Node N MemTotal: K kB"; "Node N MemFree: K kB", when
 *     present, the node's `free:` key), and ROOT/proc/zoneinfo
 *     ("Node N, zone NAME" ... "present P") for exact zone sizes.
 *
 * Zone sizes.  With /proc/zoneinfo the zones are the kernel's own: each
 * zone's `present` pages (physical pages in the zone's span minus holes).
 * present is used rather than `managed` because it is a property of the
 * hardware and firmware map: managed additionally subtracts boot-time
 * reservations (kernel image, struct page arrays, crashkernel=, CMA) that
 * vary with the kernel build and command line, and `spanned` counts holes
 * that contain no memory at all.  Zones with no present pages (an empty
 * DMA32 on a high node, ZONE_DEVICE) are left out.
 * Without zoneinfo (numactl input, or a sysfs copy without proc/) only node
 * totals are known, and zones are carved from them by address boundary as
 * Linux sizes them (free_area_init() with arch max_zone_pfn limits),
 * assuming the nodes' memory is contiguous from physical address 0 in
 * ascending node-id order (true of the boxes this tool targets: node 0
 * holds the low memory).  Holes (pfn 0, the 640 KiB-1 MiB legacy area, the
 * PCI MMIO hole below 4 GiB) are not reproduced, so DMA is the full 16 MiB
 * and DMA32 the full 16 MiB-4 GiB span minus nothing: on a real x86 box
 * zoneinfo shows ~3998 present DMA pages and typically 2-3 GiB of DMA32.
 * Use sysfs with zoneinfo when the exact figures matter.  By --arch:
 *   x86_64 (default): DMA [0, 16 MiB), DMA32 [16 MiB, 4 GiB), Normal above
 *                     (arch/x86/mm/init.c zone_sizes_init(): MAX_DMA_PFN,
 *                     MAX_DMA32_PFN);
 *   arm64:            DMA [0, 4 GiB) of DRAM, Normal above, no DMA32: the
 *                     v5.11+ layout (arch/arm64/mm/init.c zone_sizes_init()
 *                     with zone_dma_bits = 32, what ACPI servers without a
 *                     narrower IORT/DT DMA limit get); older kernels called
 *                     the same span ZONE_DMA32;
 *   none:             everything in Normal (ppc64, s390, or to ignore
 *                     low-memory zones altogether).
 * A node smaller than a zone span simply ends inside it, and the next node
 * continues there (e.g. a 2 GiB node 0 and a DMA32 part on node 1).
 *
 * Costs come from a profile in configs/costs/NAME.yaml (top-level name,
 * description, costs): --costs NAME|PATH is resolved by machine/datafile.h
 * ($NUMASIM_CONFIGS/costs, the installed data directory, the source
 * tree).  The profile's `costs:` block is copied verbatim, so its
 * comments and sources travel with the machine.
 *
 * Error policy: every problem in the input is NS_EINPUT with file:line:col
 * of the offending text (sysfs files are named by their path), missing
 * files are NS_ENOENT, and nothing is produced on failure.  The rendered
 * text is accepted only if machine_load_buf() validates it and it describes
 * the same nodes, CPUs and memory as the description (NS_EINTERNAL if not:
 * that would be an emitter bug).
 */
#ifndef NUMASIM_IMPORT_H
#define NUMASIM_IMPORT_H

#include <stddef.h>

#include "base/diag.h"
#include "machine/emit.h"

#define IMPORT_ARCH_MAP(X)                                                     \
	X(X86_64, "x86_64")                                                    \
	X(ARM64, "arm64")                                                      \
	X(NONE, "none")

enum import_arch {
#define IMPORT_ARCH_ENUM(id, name) IMPORT_ARCH_##id,
	IMPORT_ARCH_MAP(IMPORT_ARCH_ENUM)
#undef IMPORT_ARCH_ENUM
	NR_IMPORT_ARCHS
};

const char *import_arch_name(enum import_arch a);
/* "x86_64", "arm64", "none" (also "x86-64", "aarch64"); -1 if unknown. */
int import_arch_parse(const char *s);

struct import_opts {
	const char *name;         /* machine name; NULL: from the input's name */
	const char *description;  /* NULL: a generated one-line summary */
	const char *costs;        /* profile name or path; NULL: arch default */
	enum import_arch arch;
	const char *command;      /* command line for the header, may be NULL */
	const char *output;       /* -o path, NULL or "-": names standard input */
	/* numactl's "No NUMA available on this system" (a kernel without
	 * CONFIG_NUMA): the one node's CPUs and memory; 0: refused */
	int one_node_cpus;
	uint64_t one_node_mib;
	const char *one_node_from; /* where they come from, for the note */
};

void import_opts_init(struct import_opts *o);

/*
 * What an import found out besides the topology, for the command to tell
 * the user (on standard error): numactl text pasted with a shell prompt or
 * a header before it and a prompt after it has those lines skipped (at
 * most the lines before 'available:' and after the distance table; a
 * trailing line that looks like numactl output is still an error), and a
 * prompt's "user@host" gives a name to standard input.  The cost profile
 * is --costs, else the shipped one nearest to the CPU that the input
 * names (ROOT/proc/cpuinfo of a sysfs tree; lscpu or cpuinfo lines pasted
 * around numactl's output: vendor, family and model, or arm64 implementer),
 * else the arch's default.
 */
struct import_notes {
	int skipped_before, skipped_after;   /* numactl: non-blank lines */
	char host[64];            /* of a pasted shell prompt, or "" */
	char name[256];           /* the machine's name */
	char name_from[128];      /* where the name comes from */
	char costs[256];          /* the cost profile chosen (name or path) */
	char costs_from[512];     /* why that one */
	char one_node[512];       /* numactl said no NUMA: the node written, or "" */
};
/* Name of the profile used when --costs is not given, for an arch. */
const char *import_default_costs(enum import_arch arch);

/*
 * Parse numactl --hardware output (len bytes of text, need not be
 * NUL-terminated) into out's topology: nodes, CPUs, node totals and the
 * distance matrix, with zones laid out for arch.  name is used in messages.
 */
int import_parse_numactl(const char *name, const char *text, size_t len,
			 enum import_arch arch, struct machine_desc *out,
			 struct diag *d);
/* Read the topology from a sysfs/procfs tree rooted at root ("/" = live). */
int import_parse_sysfs(const char *root, enum import_arch arch,
		       struct machine_desc *out, struct diag *d);
/* Carve zones from each node's mem_pages by the arch's boundaries. */
void import_layout_zones(struct machine_desc *m, enum import_arch arch);

/* Full importers: topology plus name, description, sources, header and
 * the cost profile's block.  out must be initialised and empty; notes
 * (may be NULL) gets what the command tells the user. */
int import_numactl(const char *name, const char *text, size_t len,
		   const struct import_opts *o, struct machine_desc *out,
		   struct import_notes *notes, struct diag *d);
int import_sysfs(const char *root, const struct import_opts *o,
		 struct machine_desc *out, struct import_notes *notes,
		 struct diag *d);

/*
 * Locate a cost profile (see above) and return its costs block text in
 * *block (malloc'ed) and its path in *path (malloc'ed), with the profile's
 * name and description when given (may be NULL).
 */
int import_load_costs(const char *costs, char **block, char **path, char **pname,
		      char **pdescription, int *block_line, struct diag *d);

/*
 * Render m as a machine file and load it back with machine_load_buf();
 * on success *text (malloc'ed, NUL-terminated) and *len hold the file.
 * out_name names the text in messages ("-" or the output path).
 */
int import_render(const struct machine_desc *m, const char *out_name,
		  char **text, size_t *len, struct diag *d);

#endif
