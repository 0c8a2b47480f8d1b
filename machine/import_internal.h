/*
 * import_internal — what the importers (machine/import*.c) share and
 * nothing else includes: the input limits, what the input says about the
 * CPU (struct cpu_id), and the helpers one file defines and another calls.
 * machine/import.c holds the shared part (architectures, the zone layout,
 * node and file helpers, the CPU identification, completion and
 * rendering); one file per input format: import_numactl.c (numactl
 * --hardware), import_sysfs.c (a sysfs/procfs tree), import_costs.c (the
 * cost profile YAML).  The public interface is machine/import.h.
 *
 * Error policy: as machine/import.h (status codes, messages in a diag).
 */
#ifndef NUMASIM_IMPORT_INTERNAL_H
#define NUMASIM_IMPORT_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "machine/import.h"

#define MiB ((uint64_t)1 << 20)
#define GiB ((uint64_t)1 << 30)
#define IMPORT_MAX_INPUT ((size_t)16 << 20)
#define IMPORT_MAX_PROFILE ((size_t)1 << 20)

/*
 * What the input says about the CPU: /proc/cpuinfo ("vendor_id : ...",
 * "cpu family", "model", "model name"; arm64 "CPU implementer", "CPU
 * part"; ppc64 "cpu") or lscpu ("Vendor ID:", "CPU family:", "Model:",
 * "Model name:", "Architecture:").  The first value of each key counts
 * (cpuinfo repeats them per CPU).
 */
struct cpu_id {
	char vendor[32], model_name[128], arch[32], ppc[64];
	long family, model, implementer, part;   /* -1: not given */
};


/* machine/import.c */
int add_node(struct machine_desc *m, int id);
int cmp_int(const void *a, const void *b);
int node_pos(const struct machine_desc *m, int id);
int read_file(const char *path, size_t max, char **out, size_t *len,
	      struct diag *d);
void cpu_id_init(struct cpu_id *c);
void cpu_id_line(struct cpu_id *c, const char *line);
const char *base_name(const char *p, char *buf, size_t len);
const char *choose_costs(const struct import_opts *o,
			 const struct cpu_id *cpu, const char *cpu_where,
			 struct import_notes *n);
int import_complete(struct machine_desc *m, const struct import_opts *o,
		    const char *kind, const char *input, const char *zones,
		    const char *default_name, const char *costs,
		    struct diag *d);
const char *layout_note(enum import_arch arch, char *buf, size_t len);
/* machine/import_numactl.c */
const char *skip_ws(const char *s);
const char *parse_u64(const char *s, uint64_t limit, uint64_t *out);
int nl_alloc_distance(struct machine_desc *m);
/* machine/import_costs.c */
int file_exists(const char *p);

#endif
