/*
 * sched_topology — the scheduler domains of Linux v5.9
 * (kernel/sched/topology.c: sd_init, build_sched_domains,
 * sched_init_numa, sd_parent_degenerate) built from a machine file for the
 * simulated CPUs of a cpu_sys, for the placement code of
 * models/sched_fair.c.
 *
 * Levels, bottom up, as x86's default topology table (SMT, MC) followed by
 * sched_init_numa's NUMA levels:
 *   SMT   the CPU's hardware threads (SD_SHARE_CPUCAPACITY |
 *         SD_SHARE_PKG_RESOURCES), when the machine has SMT;
 *   MC    the CPUs sharing the last-level cache (SD_SHARE_PKG_RESOURCES):
 *         the CPUs of the CPU's node, since numasim's cache model has one
 *         LLC per node (cost/cache.h);
 *   NUMA  one level per distinct SLIT distance above the local one: the
 *         CPUs of the nodes within that distance (SD_NUMA | SD_SERIALIZE,
 *         no SD_PREFER_SIBLING; above node_reclaim_distance 30 also no
 *         SD_BALANCE_EXEC/FORK and no SD_WAKE_AFFINE).
 * A level whose span equals its child's is dropped (sd_parent_degenerate),
 * as is a level spanning one CPU (sd_degenerate).  sd_init's figures:
 * min_interval = span weight, max_interval = 2 x weight, busy_factor 32
 * (v5.9; v5.10 lowered it to 16), imbalance_pct 110 (SMT), 117 (MC), 125
 * (NUMA: sd_init's default), cache_nice_tries 0 / 1 / 2, balance_interval
 * = span weight (ms), flags SD_BALANCE_NEWIDLE | SD_BALANCE_EXEC |
 * SD_BALANCE_FORK | SD_WAKE_AFFINE | SD_PREFER_SIBLING plus the level's.
 *
 * SMT from a machine file.  Machine files list each node's CPUs, not the
 * thread siblings.  x86 Linux numbers all first hardware threads before
 * all second ones, so CPU c and c + (max_cpu + 1) / 2 are siblings; this
 * module applies that rule when it holds for every simulated CPU (the
 * partner exists, is simulated and is on the same node), as for all
 * shipped x86 machines, and builds no SMT level otherwise (kunpeng920:
 * no SMT; power9's consecutive SMT4 numbering is not recognised, a
 * documented simplification).
 *
 * Groups.  A domain's groups are the distinct spans of its child domains
 * over the CPUs of its span (single CPUs at the lowest level), which is
 * build_sched_groups exactly and build_overlap_sched_groups on machines
 * whose NUMA spans nest (every shipped machine with 2 levels or fewer).
 *
 * Invariants (sched_topo_check()): every CPU's domains grow strictly,
 * each span contains its child's, the groups of a domain partition its
 * span and the CPU's own group is the child's span.
 *
 * Error policy: sched_topo_create returns NS_ENOMEM when host memory runs
 * out, NS_EINPUT for a cpu_sys without CPUs.  Nothing is printed.
 */
#ifndef NUMASIM_SCHED_TOPOLOGY_H
#define NUMASIM_SCHED_TOPOLOGY_H

#include <stdint.h>

#include "base/diag.h"
#include "cost/cpu.h"

/* include/linux/sched/topology.h's flags (the ones the model reads). */
#define SD_BALANCE_NEWIDLE     0x0001
#define SD_BALANCE_EXEC        0x0002
#define SD_BALANCE_FORK        0x0004
#define SD_BALANCE_WAKE        0x0008
#define SD_WAKE_AFFINE         0x0010
#define SD_SHARE_CPUCAPACITY   0x0080
#define SD_SHARE_PKG_RESOURCES 0x0200
#define SD_SERIALIZE           0x0400
#define SD_PREFER_SIBLING      0x1000
#define SD_NUMA                0x4000

#define SCHED_TOPO_MAX_LEVELS 8
#define SCHED_RECLAIM_DISTANCE 30         /* node_reclaim_distance default */

struct sched_group {
	uint32_t first, weight;           /* cpus[first .. first + weight) of the domain's list */
};

/* One CPU's domain at one level (the kernel's per-cpu struct sched_domain). */
struct sched_domain {
	int level;                        /* index in the topology's levels */
	uint32_t flags;
	uint32_t span_weight;
	int *span;                        /* [span_weight] CPU indexes, grouped by group */
	uint32_t nr_groups;
	struct sched_group *groups;       /* [nr_groups]; groups[0] holds the CPU */
	uint32_t imbalance_pct, busy_factor, cache_nice_tries;
	uint32_t min_interval, max_interval; /* ms */
	uint32_t balance_interval;        /* ms, doubled by a failed balance */
	uint32_t nr_balance_failed;
	uint64_t last_balance;            /* cycles of the CPU's clock */
};

/* A level of the machine's topology (same for every CPU). */
struct sched_level {
	char name[8];                     /* "SMT", "MC", "NUMA", "NUMA2" ... */
	uint32_t flags;
	int numa_distance;                /* NUMA levels: the SLIT distance; else 0 */
};

struct sched_topo {
	int nr_cpus;
	int nr_levels;
	struct sched_level level[SCHED_TOPO_MAX_LEVELS];
	int *nr_domains;                  /* [nr_cpus]: domains of the CPU (<= nr_levels) */
	struct sched_domain *sd;          /* [nr_cpus * nr_levels]; domain l of cpu i at
					   * i * nr_levels + l; levels the CPU lacks unused */
	int *llc_id;                      /* [nr_cpus]: sd_llc_id (first CPU of the LLC span) */
	int *llc_size;                    /* [nr_cpus]: sd_llc_size */
	int *smt_sibling;                 /* [nr_cpus]: the other hardware thread or -1 */
	int *node;                        /* [nr_cpus]: cpu_to_node (node id) */
};

int sched_topo_create(const struct cpu_sys *sys, struct sched_topo **out);
void sched_topo_destroy(struct sched_topo *t);

/* Domain l (0 = lowest) of cpu, NULL beyond the CPU's top. */
struct sched_domain *sched_topo_sd(struct sched_topo *t, int cpu, int l);
/* The CPU's LLC domain (sd_llc: the highest with SD_SHARE_PKG_RESOURCES), or NULL. */
struct sched_domain *sched_topo_llc(struct sched_topo *t, int cpu);
/* cpus_share_cache(). */
static inline int sched_topo_share_cache(const struct sched_topo *t, int a, int b)
{
	return t->llc_id[a] == t->llc_id[b];
}
/* span contains cpu. */
int sched_domain_has(const struct sched_domain *sd, int cpu);

int sched_topo_check(const struct sched_topo *t, struct diag *d);

#endif
