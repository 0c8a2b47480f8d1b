/*
 * cost_fixture — a hand-built machine and a small test model for the tests
 * of the cost model (cost, bpred, cache, cpu) and bench_cost.  The machine
 * is filled in C (no loader): 2 nodes, CPUs 0-1 on node 0 and 2-3 on node 1,
 * SLIT 10/21, round figures at 2 GHz so hand-worked cycle totals are easy:
 *
 *   call_return 4 (call 2 + ret 2), branch 1, taken_branch 2, mispredict 14,
 *   return_stack 16, line 64 B, L1D 32 KiB / 4 cycles, L2 256 KiB / 14,
 *   LLC 2 MiB / 40, atomic 20, lock_uncontended 28 (14 + 14),
 *   irq_save_restore 36, this_cpu_cmpxchg 9,
 *   DRAM 80 ns @10 (160 cycles), 140 ns @21 (280 cycles),
 *   line transfer 45 ns @10 (90 cycles), 110 ns @21 (220 cycles).
 *
 * fix_sys_init/fix_sys_free build and free the fixture model's tables, a
 * layout and simulated CPUs over such a machine (the tests of the models
 * that run on bare CPUs: sched_fair, sched_topology).
 */
#ifndef NUMASIM_TESTS_COST_FIXTURE_H
#define NUMASIM_TESTS_COST_FIXTURE_H

#include <stdlib.h>
#include <string.h>

#include "cost/cost.h"
#include "cost/cpu.h"
#include "machine/machine.h"

#define FIX_FUNCS(X) X(outer_fn) X(leaf_fn) X(helper_fn) X(rec_fn)
#define FIX_SITES(X)                                                           \
	X(T1, "leaf_fn: a != NULL")                                            \
	X(T2, "leaf_fn: b == 0")                                               \
	X(T3, "helper_fn: unlikely(err)")                                      \
	X(T4, "loop: more")
#define FIX_FN_ENUM(name) FIX_FN_##name,
#define FIX_SITE_ENUM(id, desc) FIX_SITE_##id,
enum fix_fn { FIX_FUNCS(FIX_FN_ENUM) FIX_NR_FN };
enum fix_site { FIX_SITES(FIX_SITE_ENUM) FIX_NR_SITE };
static const char *const fix_fn_names[] = {FIX_FUNCS(COST_FN_NAME)};
static const struct cost_site_def fix_site_defs[] = {FIX_SITES(COST_SITE_DEF)};

static struct latency_point fix_mem_lat[] = {
	{10, 80.0, "test"}, {21, 140.0, "test"}};
static struct latency_point fix_xfer_lat[] = {
	{10, 45.0, "test"}, {21, 110.0, "test"}};

static inline void fix_fig(struct cost_figure *f, double v)
{
	f->value = v;
	f->source = "test fixture";
	f->line = f->col = 0;
}

/* Fill *m (caller-owned storage); release with fix_machine_free. */
static inline void fix_machine(struct machine *m)
{
	static int cpus0[] = {0, 1}, cpus1[] = {2, 3};
	memset(m, 0, sizeof *m);
	m->name = "fixture";
	m->page_size = 4096;
	m->nr_nodes = 2;
	m->nodes = calloc(2, sizeof *m->nodes);
	m->nodes[0].id = 0;
	m->nodes[0].nr_cpus = 2;
	m->nodes[0].cpus = cpus0;
	m->nodes[1].id = 1;
	m->nodes[1].nr_cpus = 2;
	m->nodes[1].cpus = cpus1;
	for (int i = 0; i < MACHINE_MAX_NODES; i++)
		m->node_index[i] = -1;
	m->node_index[0] = 0;
	m->node_index[1] = 1;
	m->distance = malloc(4 * sizeof *m->distance);
	m->distance[0] = 10;
	m->distance[1] = 21;
	m->distance[2] = 21;
	m->distance[3] = 10;
	m->nr_cpus = 4;
	m->max_cpu = 3;
	m->cpu_node = malloc(4 * sizeof *m->cpu_node);
	m->cpu_node[0] = m->cpu_node[1] = 0;
	m->cpu_node[2] = m->cpu_node[3] = 1;
	struct machine_costs *c = &m->costs;
	fix_fig(&c->clock_ghz, 2.0);
	fix_fig(&c->call_return, 4);
	fix_fig(&c->branch, 1);
	fix_fig(&c->taken_branch, 2);
	fix_fig(&c->mispredict, 14);
	fix_fig(&c->return_stack, 16);
	fix_fig(&c->line_size, 64);
	fix_fig(&c->l1d_size, 32 * 1024);
	fix_fig(&c->l1d_latency, 4);
	fix_fig(&c->l2_size, 256 * 1024);
	fix_fig(&c->l2_latency, 14);
	fix_fig(&c->llc_size, 2 * 1024 * 1024);
	fix_fig(&c->llc_latency, 40);
	fix_fig(&c->atomic, 20);
	fix_fig(&c->lock_uncontended, 28);
	fix_fig(&c->irq_save_restore, 36);
	fix_fig(&c->this_cpu_cmpxchg, 9);
	c->nr_memory_latency = 2;
	c->memory_latency = fix_mem_lat;
	c->nr_line_transfer = 2;
	c->line_transfer = fix_xfer_lat;
}

static inline void fix_machine_free(struct machine *m)
{
	free(m->nodes);
	free(m->distance);
	free(m->cpu_node);
	memset(m, 0, sizeof *m);
}

/* Register the fixture model; ids are then the enum values (base 0). */
static inline int fix_tables(struct cost_tables *t)
{
	int fb, sb;
	cost_tables_init(t);
	int rc = cost_register_fns(t, fix_fn_names, FIX_NR_FN, &fb);
	if (!rc)
		rc = cost_register_sites(t, fix_site_defs, FIX_NR_SITE, &sb);
	return rc ? rc : fb + sb; /* 0 when both bases are 0 */
}

/*
 * The fixture model's tables, a "test" layout and simulated CPUs 0..n-1
 * of m (fix_machine's, perhaps reshaped by the test) with the default CPU
 * parameters; 0 or a status.  Free with fix_sys_free, which frees m's
 * arrays too.
 */
static inline int fix_sys_init(struct machine *m, struct cost_tables *t, struct cost_layout *l,
			       struct cpu_sys *s, int n)
{
	static const int cpus[] = {0, 1, 2, 3};
	struct cpu_params cp;
	cpu_params_default(&cp);
	if (fix_tables(t) || cost_layout_init(l, t, "test"))
		return -1;
	return cpu_sys_init(s, m, t, l, &cp, cpus, n);
}

static inline void fix_sys_free(struct machine *m, struct cost_tables *t, struct cost_layout *l,
				struct cpu_sys *s)
{
	cpu_sys_free(s);
	cost_layout_free(l);
	cost_tables_free(t);
	fix_machine_free(m);
}

#endif
