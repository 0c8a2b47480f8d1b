/*
 * scenario_sections — the generic sections of a scenario file: kernel
 * knobs, policy, sched, cost and noise; and the keys a scenario accepts.
 */
#include "scenarios/scenario.h"
#include "scenarios/scenario_internal.h"

#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cost/cpu.h"
#include "machine/cpulist.h"
#include "machine/datafile.h"
#include "base/ytree.h"
#include "models/zonelist.h"


const char *const scn_knob_names[SCN_NR_KNOBS] = {
#define SCN_KNOB_NAME(key, kind) #key,
	SCN_KNOB_MAP(SCN_KNOB_NAME)
#undef SCN_KNOB_NAME
};

const char scn_knob_kinds[SCN_NR_KNOBS] = {
#define SCN_KNOB_KIND(key, kind) kind,
	SCN_KNOB_MAP(SCN_KNOB_KIND)
#undef SCN_KNOB_KIND
};

const char *scn_knob_name(enum scn_knob k)
{
	return (unsigned)k < SCN_NR_KNOBS ? scn_knob_names[k] : "?";
}

const char *scn_workload_name(enum scn_workload_type t)
{
	return (unsigned)t < (unsigned)workload_count ? workload_table[t]->name : "?";
}

int scn_knob_is_slub(enum scn_knob k)
{
	return k == SCN_KNOB_slab_free_layout || k == SCN_KNOB_slub_stats ||
	       k == SCN_KNOB_compiler_layout || k == SCN_KNOB_slub_cpu_partial;
}

int scn_knob_is_reclaim(enum scn_knob k)
{
	return k == SCN_KNOB_zone_reclaim_mode || k == SCN_KNOB_swap ||
	       k == SCN_KNOB_swappiness || k == SCN_KNOB_min_unmapped_ratio ||
	       k == SCN_KNOB_min_slab_ratio || k == SCN_KNOB_writeback_cycles;
}

int scn_knob_lookup(const char *name)
{
	for (int k = 0; k < SCN_NR_KNOBS; k++)
		if (!strcmp(scn_knob_names[k], name))
			return k;
	return -1;
}

/* ---- policy and placement ------------------------------------------------ */

/* A node list of memory nodes of the machine ("0-1,4"). */
static int parse_nodes_text(struct loader *l, const struct ynode *n, const char *s,
			    const char *what, int *out, int *nr_out)
{
	const struct machine *m = l->pt->machine;
	char errbuf[128];
	size_t errpos = 0;
	int *nodes = NULL, nr = 0, rc;

	if (!strcmp(s, "all")) {        /* numactl's "all": every memory node */
		for (int i = 0; i < m->nr_nodes; i++)
			if (m->nodes[i].mem_pages)
				out[nr++] = m->nodes[i].id;
		*nr_out = nr;
		return nr ? NS_OK : scn_err(l, n, "%s: machine '%s' has no memory node",
					what, m->name);
	}
	rc = cpulist_parse(s, MACHINE_MAX_NODES, 0, &nodes, &nr, &errpos, errbuf,
			   sizeof errbuf);
	if (rc == NS_ENOMEM)
		return scn_nomem(l);
	if (rc)
		return scn_err(l, n, "%s: %s (a node list like \"0-1,3\")", what, errbuf);
	for (int i = 0; i < nr && rc == NS_OK; i++) {
		int id = nodes[i];
		if (m->node_index[id] < 0)
			rc = scn_err(l, n, "%s: node %d is not a node of machine '%s'", what,
				 id, m->name);
		else if (m->nodes[m->node_index[id]].mem_pages == 0)
			rc = scn_err(l, n, "%s: node %d has no memory", what, id);
		else
			out[i] = id;
	}
	if (rc == NS_OK && nr == 0)
		rc = scn_err(l, n, "%s must name at least one node", what);
	if (rc == NS_OK)
		*nr_out = nr;
	free(nodes);
	return rc;
}

static int parse_nodes(struct loader *l, const struct ynode *n, const char *what,
		       int *out, int *nr_out)
{
	const char *s;
	int rc = ytree_string(TT(n), n, what, 1, &s, l->d);
	return rc ? rc : parse_nodes_text(l, n, s, what, out, nr_out);
}

static int parse_cpuset(struct loader *l, const struct ynode *n)
{
	struct mm_config *c = &l->pt->cfg;
	const char *s;
	int rc = ytree_string(TT(n), n, "policy.cpuset", 1, &s, l->d);
	if (rc)
		return rc;
	l->pt->policy.cpuset = s;
	if (!strcmp(s, "none")) {
		c->cpusets_enabled = 0;
		c->nr_mems_allowed = 0;
		return NS_OK;
	}
	c->cpusets_enabled = 1;
	if (!strcmp(s, "all")) {
		c->nr_mems_allowed = 0;     /* every memory node */
		return NS_OK;
	}
	if (!strcmp(s, "local")) {
		l->cpuset_local = n;        /* needs the task's CPU and zonelists */
		return NS_OK;
	}
	if (s[0] >= '0' && s[0] <= '9')
		return parse_nodes(l, n, "policy.cpuset", c->mems_allowed,
				   &c->nr_mems_allowed);
	char q[128];
	ytree_quote(s, n->len, q, sizeof q);
	return scn_err(l, n, "policy.cpuset must be 'none', 'all', 'local' or a node "
		   "list like \"0-1,4\", got '%s'", q);
}

/*
 * policy.cpuset: local -- a cpuset of the task's own memory node:
 * numa_mem_id() of its (first) CPU, i.e. local_memory_node() of the CPU's
 * node: the node of the first zone of that node's fallback zonelist that
 * GFP_KERNEL may use (first_zones_zonelist(.., gfp_zone(GFP_KERNEL), ..)).
 * For a CPU on a memoryless node this is the nearest node with memory,
 * which is what a cpuset can hold (cpuset.mems only takes N_MEMORY nodes).
 * Costs one zonelist build per point that uses it.
 */
int scn_resolve_cpuset_local(struct loader *l)
{
	struct scn_point *pt = l->pt;
	struct zonelists *zl = NULL;
	int rc = zonelist_build(pt->machine, &pt->cfg.zl, &zl, l->d);
	if (rc)
		return rc;
	int node = pt->nr_cpus > 0 ? zl->cpu_to_node[pt->cpus[0]] : -1;
	const struct zonelist *z = node >= 0 ? zonelist_get(zl, node, ZONELIST_FALLBACK) : NULL;
	int mem = -1;
	for (int i = 0; z && i < z->nr && mem < 0; i++)
		if (z->zonerefs[i].zone_idx <= ZONE_NORMAL)
			mem = z->zonerefs[i].node;
	zonelist_free(zl);
	if (mem < 0)
		return scn_err(l, l->cpuset_local, "policy.cpuset: local: the task's CPU "
			   "has no node with memory to fall back to");
	pt->cfg.mems_allowed[0] = mem;
	pt->cfg.nr_mems_allowed = 1;
	return NS_OK;
}

static int in_list(const int *v, int n, int x)
{
	for (int i = 0; i < n; i++)
		if (v[i] == x)
			return 1;
	return 0;
}

/* mempolicy + nodes, as set_mempolicy(2) takes them: the nodes are masked
 * by the cpuset's mems (mpol_set_nodemask), an empty result is EINVAL. */
static int parse_mempolicy(struct loader *l, const struct ynode *mp,
			   const struct ynode *nodes, const struct ynode *sec)
{
	struct mm_config *c = &l->pt->cfg;
	int ids[MACHINE_MAX_NODES], nr = 0, rc, x;
	const char *s = "default", *inline_nodes = NULL;
	char mode[32];

	if (mp) {
		if ((rc = ytree_string(TT(mp), mp, "policy.mempolicy", 1, &s, l->d)))
			return rc;
		/* "interleave:0-1": the mode with its nodes, so that one axis
		 * can sweep modes that take different nodes */
		size_t ml = strcspn(s, ":");
		inline_nodes = s[ml] ? s + ml + 1 : NULL;
		snprintf(mode, sizeof mode, "%.*s", (int)(ml < sizeof mode ? ml : 0), s);
		if ((x = mpol_parse(mode)) < 0) {
			char q[128];
			ytree_quote(s, mp->len, q, sizeof q);
			return scn_err(l, mp, "unknown policy.mempolicy '%s' (expected default, "
				   "local, bind, preferred or interleave, optionally with "
				   "':NODES')", q);
		}
		c->mpol = (enum mpol_mode)x;
		s = mpol_name(c->mpol);
	}
	l->pt->policy.mempolicy = mp ? mp->str : "default";
	int wants = c->mpol == MPOL_BIND || c->mpol == MPOL_PREFERRED ||
		    c->mpol == MPOL_INTERLEAVE;
	if (inline_nodes && nodes)
		return scn_err(l, nodes, "policy.nodes given twice: in policy.mempolicy "
			   "'%s' and here", mp->str);
	if (!nodes && !inline_nodes && wants)
		return scn_err(l, mp, "policy.mempolicy '%s' needs policy.nodes (numactl "
			   "--%s=NODES) or '%s:NODES'", s,
			   c->mpol == MPOL_BIND ? "membind" : s, s);
	if ((nodes || inline_nodes) && !wants)
		return scn_err(l, nodes ? nodes : mp, "policy.nodes is not used by "
			   "mempolicy '%s' (only bind, preferred and interleave take "
			   "nodes)", mpol_name(c->mpol));
	if (!nodes && !inline_nodes)
		return NS_OK;
	if (nodes && (rc = parse_nodes(l, nodes, "policy.nodes", ids, &nr)))
		return rc;
	if (!nodes && (rc = parse_nodes_text(l, mp, inline_nodes, "policy.mempolicy "
					     "nodes", ids, &nr)))
		return rc;
	if (!nodes)
		nodes = mp;
	l->pt->policy.nodes = nodes == mp ? inline_nodes : nodes->str;
	if (c->mpol == MPOL_PREFERRED && nr != 1)
		return scn_err(l, nodes, "mempolicy 'preferred' takes exactly one node "
			   "(numactl --preferred=NODE), got %d", nr);
	c->nr_mpol_nodes = 0;
	for (int i = 0; i < nr; i++)
		if (!c->cpusets_enabled || c->nr_mems_allowed == 0 ||
		    in_list(c->mems_allowed, c->nr_mems_allowed, ids[i]))
			c->mpol_nodes[c->nr_mpol_nodes++] = ids[i];
	if (c->nr_mpol_nodes == 0)
		return scn_err(l, nodes, "policy.nodes: no node of '%s' is in the cpuset's "
			   "mems (set_mempolicy would fail with EINVAL)",
			   l->pt->policy.nodes);
	(void)sec;
	return NS_OK;
}

static int parse_cpus(struct loader *l, const struct ynode *n)
{
	const struct machine *m = l->pt->machine;
	struct scn_point *pt = l->pt;
	char errbuf[128];
	size_t errpos = 0;
	int *cpus = NULL, nr = 0, rc;
	const char *s;

	if ((rc = ytree_string(TT(n), n, "policy.cpus", 1, &s, l->d)))
		return rc;
	rc = cpulist_parse(s, MACHINE_MAX_CPUS, 0, &cpus, &nr, &errpos, errbuf,
			   sizeof errbuf);
	if (rc == NS_ENOMEM)
		return scn_nomem(l);
	if (rc)
		return scn_err(l, n, "policy.cpus: %s (a CPU list like \"0-3,8\")", errbuf);
	for (int i = 0; i < nr && rc == NS_OK; i++)
		if (cpus[i] > m->max_cpu || m->cpu_node[cpus[i]] < 0)
			rc = scn_err(l, n, "policy.cpus: CPU %d is not a CPU of machine '%s' "
				 "(%d CPUs)", cpus[i], m->name, m->nr_cpus);
	if (rc == NS_OK && nr == 0)
		rc = scn_err(l, n, "policy.cpus must name at least one CPU");
	if (rc) {
		free(cpus);
		return rc;
	}
	pt->policy.cpus = s;
	pt->cpus = cpus;
	pt->nr_cpus = nr;
	return NS_OK;
}

enum { P_CPUSET, P_MEMPOLICY, P_NODES, P_CPUS, NR_P };

static const struct ytree_field policy_fields[NR_P] = {
	[P_CPUSET] = {"cpuset", 0}, [P_MEMPOLICY] = {"mempolicy", 0},
	[P_NODES] = {"nodes", 0},   [P_CPUS] = {"cpus", 0},
};

int scn_parse_policy(struct loader *l)
{
	const struct ytree_field *const fields = policy_fields;
	const struct ynode *sec = l->top_policy, *v[NR_P];
	struct scn_point *pt = l->pt;
	int rc;

	pt->policy = (struct scn_policy){"none", "default", "", ""};
	if (sec && ynode_is_null(sec))
		return scn_err(l, sec, "'policy' must be a mapping (or left out)");
	if ((rc = scn_section_fields(l, sec, "policy", "policy", fields, NR_P, v)))
		return rc;
	if (v[P_CPUSET] && (rc = parse_cpuset(l, v[P_CPUSET])))
		return rc;
	if ((rc = parse_mempolicy(l, v[P_MEMPOLICY], v[P_NODES], sec)))
		return rc;
	return v[P_CPUS] ? parse_cpus(l, v[P_CPUS]) : NS_OK;
}

enum { SC_PLACEMENT, NR_SC };

static const struct ytree_field sched_fields[NR_SC] = {[SC_PLACEMENT] = {"placement", 0}};

/* sched: the scheduler model's choices (placement: v5.9 | none).  The
 * default is v5.9, the placement of the kernel the CFS model follows
 * (models/sched_fair.h); only the messaging workload has a scheduler. */
int scn_parse_sched(struct loader *l)
{
	const struct ytree_field *const fields = sched_fields;
	const struct ynode *sec = l->top_sched, *v[NR_SC];
	const char *text;
	int rc;

	l->pt->sched_placement = SCN_PLACEMENT_V59;
	if (sec && ynode_is_null(sec))
		return scn_err(l, sec, "'sched' must be a mapping (or left out)");
	if ((rc = scn_section_fields(l, sec, "sched", "sched", fields, NR_SC, v)))
		return rc;
	if (!v[SC_PLACEMENT])
		return NS_OK;
	if ((rc = ytree_string(TT(v[SC_PLACEMENT]), v[SC_PLACEMENT], "sched.placement", 1,
			       &text, l->d)))
		return rc;
	if (!strcmp(text, "v5.9"))
		return NS_OK;
	if (!strcmp(text, "none")) {
		l->pt->sched_placement = SCN_PLACEMENT_NONE;
		return NS_OK;
	}
	char q[128];
	ytree_quote(text, v[SC_PLACEMENT]->len, q, sizeof q);
	return scn_err(l, v[SC_PLACEMENT], "sched.placement: unknown placement '%s' (expected "
		   "none or v5.9)", q);
}

/* ---- cost: the timing model, the predictor, the layout, the accounting --- */

enum { C_MODEL, C_BPRED, C_CODE, C_ACCOUNTING, C_SAMPLE_PERIOD, C_SAMPLE_WARM, C_SAMPLE_WINDOW,
       NR_C };

static const struct ytree_field cost_fields[NR_C] = {
	[C_MODEL] = {"model", 0}, [C_BPRED] = {"bpred", 0}, [C_CODE] = {"code", 0},
	[C_ACCOUNTING] = {"accounting", 0}, [C_SAMPLE_PERIOD] = {"sample_period", 0},
	[C_SAMPLE_WARM] = {"sample_warm", 0}, [C_SAMPLE_WINDOW] = {"sample_window", 0},
};

int scn_uses_slub(const struct scenario *s)
{
	return s->wl->slub;
}

int scn_default_accounting(int workload)
{
	return workload >= 0 && workload < workload_count ? workload_table[workload]->accounting
							   : CPU_ACCOUNTING_EXACT;
}

int scn_default_model(const struct machine *m)
{
	/* ooo's figures hold on the first seed (docs/design/cost-model.md §6) and it
	 * needs the core figures; a machine file written without them (the
	 * test machines, files of earlier releases) keeps the in-order model
	 * it was written for rather than failing */
	return cpu_ooo_missing(&m->costs) ? CPU_MODEL_INORDER : CPU_MODEL_OOO;
}

/* A count of the cost section (cost.sample_period, cost.sample_window):
 * min .. SCN_MAX_SAMPLE_PERIOD into *dst, and *set, when v is given. */
static int cost_count(struct loader *l, const struct ynode *v, const char *key, long long min,
		      uint32_t *dst, int *set)
{
	long long x;
	int rc;
	if (!v)
		return NS_OK;
	if ((rc = ytree_int(TT(v), v, key, min, SCN_MAX_SAMPLE_PERIOD, &x, l->d)))
		return rc;
	*dst = (uint32_t)x;
	*set = 1;
	return NS_OK;
}

int scn_parse_cost(struct loader *l)
{
	const struct ytree_field *const fields = cost_fields;
	const struct ynode *sec = l->top_cost, *v[NR_C];
	struct scn_cost *c = &l->pt->cost;
	const char *str;
	struct cpu_params cp;
	int rc;

	cpu_params_default(&cp);
	*c = (struct scn_cost){.model = scn_default_model(l->pt->machine), .bpred = BPRED_GSHARE,
			       .code = MM_CODE_DEFAULT,
			       .accounting = scn_default_accounting(l->s->workload),
			       .sample_period = cp.sample_period, .sample_warm = cp.sample_warm,
			       .sample_window = cp.sample_window};
	if (sec && ynode_is_null(sec))
		return scn_err(l, sec, "'cost' must be a mapping (or left out)");
	if ((rc = scn_section_fields(l, sec, "cost", "cost", fields, NR_C, v)))
		return rc;
	if (v[C_MODEL]) {
		if ((rc = ytree_string(TT(v[C_MODEL]), v[C_MODEL], "cost.model", 1, &str, l->d)))
			return rc;
		if ((c->model = cpu_model_parse(str)) < 0)
			return scn_err(l, v[C_MODEL], "unknown cost.model '%s' (expected inorder "
				   "or ooo)", str);
		c->model_set = 1;
	}
	c->model_fallback = !c->model_set && c->model == CPU_MODEL_INORDER;
	if (c->model == CPU_MODEL_OOO)
		c->bpred = BPRED_TAGE;
	if (v[C_BPRED]) {
		if ((rc = ytree_string(TT(v[C_BPRED]), v[C_BPRED], "cost.bpred", 1, &str, l->d)))
			return rc;
		if ((c->bpred = bpred_mode_parse(str)) < 0)
			return scn_err(l, v[C_BPRED], "unknown cost.bpred '%s' (expected bimodal, "
				   "gshare or tage)", str);
		c->bpred_set = 1;
	}
	if (v[C_CODE]) {
		if ((rc = ytree_string(TT(v[C_CODE]), v[C_CODE], "cost.code", 1, &str, l->d)))
			return rc;
		if ((c->code = mm_code_parse(str)) < 0)
			return scn_err(l, v[C_CODE], "unknown cost.code '%s' (expected estimate or "
				   "compiled)", str);
		c->code_set = 1;
		if (c->code == MM_CODE_COMPILED && scn_uses_slub(l->s) &&
		    (l->pt->slub.compiler != SLUB_GCC || !l->pt->slub.stats))
			return scn_err(l, v[C_CODE], "cost.code compiled: SLUB's work was counted "
				   "for compiler_layout gcc with slub_stats on only; this point "
				   "has %s with slub_stats %s (docs/design/compiled-counts.md §6)",
				   slub_compiler_name(l->pt->slub.compiler),
				   l->pt->slub.stats ? "on" : "off");
	}
	if (v[C_ACCOUNTING]) {
		if ((rc = ytree_string(TT(v[C_ACCOUNTING]), v[C_ACCOUNTING], "cost.accounting", 1,
				       &str, l->d)))
			return rc;
		if ((c->accounting = cpu_accounting_parse(str)) < 0)
			return scn_err(l, v[C_ACCOUNTING], "unknown cost.accounting '%s' (expected "
				   "exact, memo or sampled)", str);
		c->accounting_set = 1;
	}
	if ((rc = cost_count(l, v[C_SAMPLE_PERIOD], "cost.sample_period", 1, &c->sample_period,
			     &c->sample_period_set)))
		return rc;
	if (v[C_SAMPLE_WARM]) {
		if ((rc = ytree_string(TT(v[C_SAMPLE_WARM]), v[C_SAMPLE_WARM], "cost.sample_warm", 1,
				       &str, l->d)))
			return rc;
		if ((c->sample_warm = cpu_warm_parse(str)) < 0)
			return scn_err(l, v[C_SAMPLE_WARM], "unknown cost.sample_warm '%s' (expected "
				   "caches, stores or none)", str);
		c->sample_warm_set = 1;
	}
	if ((rc = cost_count(l, v[C_SAMPLE_WINDOW], "cost.sample_window", 0, &c->sample_window,
			     &c->sample_window_set)))
		return rc;
	const char *miss = c->model == CPU_MODEL_OOO ? cpu_ooo_missing(&l->pt->machine->costs)
						     : NULL;
	if (miss)
		return scn_err(l, v[C_MODEL], "cost.model ooo needs the core figure '%s' in "
			   "the costs of machine '%s' (%s; docs/reference/machine-format.md, "
			   "\"Core figures\")", miss, l->pt->machine->name,
			   l->pt->machine_path);
	return NS_OK;
}


/* ---- kernel knobs -------------------------------------------------------- */

static int parse_onoff(struct loader *l, const struct ynode *n, const char *what,
		       int *out)
{
	const char *s;
	int rc = ytree_string(TT(n), n, what, 1, &s, l->d);
	if (rc)
		return rc;
	if (!strcmp(s, "on") || !strcmp(s, "off")) {
		*out = s[1] == 'n';
		return NS_OK;
	}
	char q[128];
	ytree_quote(s, n->len, q, sizeof q);
	return scn_err(l, n, "%s must be 'on' or 'off', got '%s'", what, q);
}

static int parse_named(struct loader *l, const struct ynode *n, const char *what,
		       int (*parse)(const char *), const char *choices, int *out)
{
	const char *s;
	int rc = ytree_string(TT(n), n, what, 1, &s, l->d);
	if (rc)
		return rc;
	int v = parse(s);
	if (v >= 0) {
		*out = v;
		return NS_OK;
	}
	char q[128];
	ytree_quote(s, n->len, q, sizeof q);
	return scn_err(l, n, "unknown %s '%s' (expected %s)", what, q, choices);
}

/* A value out of the names choices[nr]: "unknown ... (did you mean ...?)"
 * for a near miss, else the list of choices. */
static int parse_choice(struct loader *l, const struct ynode *n, const char *what,
			const char *const *choices, int nr, int *out)
{
	const char *s;
	int rc = ytree_string(TT(n), n, what, 1, &s, l->d);
	if (rc)
		return rc;
	for (int i = 0; i < nr; i++)
		if (!strcmp(s, choices[i])) {
			*out = i;
			return NS_OK;
		}
	char q[128], list[256];
	ytree_quote(s, n->len, q, sizeof q);
	const char *near = ytree_suggest(s, strlen(s), choices, (size_t)nr);
	if (near)
		return scn_err(l, n, "unknown %s '%s' (did you mean '%s'?)", what, q, near);
	size_t used = 0;
	list[0] = 0;
	for (int i = 0; i < nr && used < sizeof list; i++)
		used += (size_t)snprintf(list + used, sizeof list - used, "%s%s",
					 i ? (i + 1 < nr ? ", " : " or ") : "", choices[i]);
	return scn_err(l, n, "unknown %s '%s' (expected %s)", what, q, list);
}

static int zl_order_parse(const char *s) { return zonelist_order_parse(s); }
static int slab_layout_parse(const char *s)
{
	return !strcmp(s, "pre-c270cf30") ? SLUB_PRE : !strcmp(s, "c270cf30") ? SLUB_POST : -1;
}
static const char *slab_layout_name(enum slub_variant v)
{
	return v == SLUB_POST ? "c270cf30" : "pre-c270cf30";
}
static int zl_cpus_parse(const char *s) { return zonelist_cpus_at_build_parse(s); }
static int zl_memless_parse(const char *s) { return zonelist_memoryless_parse(s); }

/* kernel.zone_reclaim_mode: 0..7 (RECLAIM_ZONE|WRITE|UNMAP) or
 * "pre-3.16": the mode v3.15's boot code chose for this machine (1 when
 * some node_distance > RECLAIM_DISTANCE; v4.6's default is 0). */
static const char *const zrm_names[8] = {"0", "1", "2", "3", "4", "5", "6", "7"};

static int parse_zone_reclaim_mode(struct loader *l, const struct ynode *n,
				   struct scn_point *pt, const char **text)
{
	const char *s;
	int rc = ytree_string(TT(n), n, "zone_reclaim_mode", 1, &s, l->d);
	if (rc)
		return rc;
	if (!strcmp(s, "pre-3.16")) {
		const struct machine *m = pt->machine;
		pt->cfg.zone_reclaim_mode = vmscan_pre316_default_mode(m->distance, m->nr_nodes);
		*text = "pre-3.16";
		return NS_OK;
	}
	if (s[0] >= '0' && s[0] <= '7' && s[1] == '\0') {
		pt->cfg.zone_reclaim_mode = (uint32_t)(s[0] - '0');
		*text = zrm_names[s[0] - '0'];
		return NS_OK;
	}
	char q[128];
	ytree_quote(s, n->len, q, sizeof q);
	return scn_err(l, n, "zone_reclaim_mode must be 0 to 7 (bits 1 zone, 2 write, 4 unmap) "
		   "or 'pre-3.16', got '%s'", q);
}

/* kernel.swap: none, or a size (pages of 4 KiB: 4GiB, 512MiB, ...). */
static int parse_swap(struct loader *l, const struct ynode *n, uint64_t *pages)
{
	const char *s;
	int rc = ytree_string(TT(n), n, "swap", 1, &s, l->d);
	if (rc)
		return rc;
	if (!strcmp(s, "none")) {
		*pages = 0;
		return NS_OK;
	}
	char *end;
	unsigned long long v = strtoull(s, &end, 10);
	unsigned long long mul = !strcmp(end, "KiB") ? 1ull << 10 : !strcmp(end, "MiB") ? 1ull << 20
				 : !strcmp(end, "GiB") ? 1ull << 30 : !strcmp(end, "TiB") ? 1ull << 40 : 0;
	if (end == s || s[0] < '0' || s[0] > '9' || !mul || v > (1ull << 60) / mul) {
		char q[128];
		ytree_quote(s, n->len, q, sizeof q);
		return scn_err(l, n, "swap must be 'none' or a size like 4GiB, got '%s'", q);
	}
	*pages = v * mul / 4096;
	return NS_OK;
}

/* kernel.commit and kernel.zonelist_iter both choose the page allocator's
 * tree (682a3385 is v3 05): a point may be given one of them. */
static int knob_conflict(struct loader *l, const struct ynode *n)
{
	return scn_err(l, n, "kernel.commit and kernel.zonelist_iter both choose the page "
		       "allocator's kernel: give one of them (zonelist_iter 682a3385 is "
		       "commit 682a3385e773, pre-682a3385 is 060e74173f29)");
}

/* kernel.commit and kernel.slub_cpu_partial both choose the SLUB model's
 * commit: a point may be given one of them. */
static int slub_knob_conflict(struct loader *l, const struct ynode *n)
{
	return scn_err(l, n, "kernel.commit names a SLUB commit and kernel.slub_cpu_partial "
		       "chooses one too: give one of them (kernel.slub_cpu_partial is an "
		       "alias of kernel.commit's SLUB ids v5.9, b47291ef02b0, 23e98ad1ce89)");
}

/* "unknown commit" for the part p (len bytes) of kernel.commit's value. */
static int unknown_commit(struct loader *l, const struct ynode *n, const char *p, int len)
{
	char part[64], q[128];
	snprintf(part, sizeof part, "%.*s", len, p);
	ytree_quote(part, strlen(part), q, sizeof q);
	const char *near = kcommit_suggest("mm", part);
	if (!near)
		near = kcommit_suggest("slub", part);
	if (near)
		return scn_err(l, n, "unknown commit '%s' in kernel.commit (did you mean "
			       "'%s'?; numasim list commits)", q, near);
	return scn_err(l, n, "unknown commit '%s' in kernel.commit (the page allocator's "
		       "are v4.6-rc2 and the 2016 series' v3 01-28, SLUB's v5.9, b47291ef02b0 "
		       "and 23e98ad1ce89: numasim list commits)", q);
}

/*
 * kernel.commit: an id of models/kcommit.h's tree "mm" (or a prefix of 7
 * or more hex digits of one) that the model can run (kcommit_selectable),
 * an id of tree "slub" (the SLUB model: the workload must use it), or one
 * of each joined by '+'.  The tree not named keeps its default (mm: the
 * commit kernel.zonelist_iter gives; slub: v5.9, or kernel.slub_cpu_partial).
 */
static int parse_commit(struct loader *l, const struct ynode *n, struct scn_point *pt)
{
	struct mm_config *c = &pt->cfg;
	const char *s, *bad;
	int bad_len, rc = ytree_string(TT(n), n, "commit", 1, &s, l->d);
	if (rc)
		return rc;
	char q[128];
	ytree_quote(s, n->len, q, sizeof q);
	enum kcommit mm, sl;
	if (kcommit_parse_pair(s, &mm, &sl, &bad, &bad_len)) {
		if (bad)
			return unknown_commit(l, n, bad, bad_len);
		return scn_err(l, n, "kernel.commit '%s' names two commits of one tree (give "
			       "at most one page allocator and one SLUB commit, joined by '+')", q);
	}
	if (mm != KCOMMIT_UNSET && !kcommit_selectable(mm))
		return scn_err(l, n, "commit '%s' (v3 %02d) is not modelled yet: the page "
			       "allocator model runs v4.6-rc2 up to %s (numasim list commits)",
			       kcommit_id(mm), kcommit_v3(mm),
			       kcommit_id(kcommit_last_selectable("mm")));
	if (mm != KCOMMIT_UNSET && pt->knob[SCN_KNOB_zonelist_iter].set)
		return knob_conflict(l, n);
	if (sl != KCOMMIT_UNSET && !scn_uses_slub(l->s))
		return scn_err(l, n, "kernel.commit '%s' names SLUB commit %s, and the %s workload "
			       "does not use the SLUB model", q, kcommit_id(sl),
			       scn_workload_name(l->s->workload));
	if (sl != KCOMMIT_UNSET && pt->knob[SCN_KNOB_slub_cpu_partial].set)
		return slub_knob_conflict(l, n);
	if (mm != KCOMMIT_UNSET) {
		c->commit = mm;
		c->iter = mm_commit_iter(mm);
	}
	if (sl != KCOMMIT_UNSET)
		pt->slub.commit = sl;
	snprintf(pt->commit_text, sizeof pt->commit_text, "%s%s%s",
		 mm != KCOMMIT_UNSET ? kcommit_id(mm) : "",
		 mm != KCOMMIT_UNSET && sl != KCOMMIT_UNSET ? "+" : "",
		 sl != KCOMMIT_UNSET ? kcommit_id(sl) : "");
	return NS_OK;
}

/* kernel.slub_cpu_partial, the alias of kernel.commit's SLUB ids: the ids
 * of models/kcommit.h's tree "slub", exactly as written there. */
static const char *const slub_commit_ids[] = {
#define SLUB_COMMIT_ID(name, tree, v3, id, status, title, changes) id,
	KCOMMIT_SLUB_TABLE(SLUB_COMMIT_ID)
#undef SLUB_COMMIT_ID
};
#define NR_SLUB_COMMITS ((int)(sizeof slub_commit_ids / sizeof slub_commit_ids[0]))

static int parse_slub_cpu_partial(struct loader *l, const struct ynode *n, struct scn_point *pt)
{
	int x = 0, rc, bad_len;
	enum kcommit mm, sl;
	const char *bad;
	/* kernel.commit is applied first (the knobs' order) */
	if (pt->knob[SCN_KNOB_commit].set &&
	    kcommit_parse_pair(pt->commit_text, &mm, &sl, &bad, &bad_len) == NS_OK &&
	    sl != KCOMMIT_UNSET)
		return slub_knob_conflict(l, n);
	if ((rc = parse_choice(l, n, "slub_cpu_partial", slub_commit_ids, NR_SLUB_COMMITS, &x)))
		return rc;
	pt->slub.commit = kcommit_parse("slub", slub_commit_ids[x]);
	return NS_OK;
}

/* Whether the run of point pt has the model of an op (models/kcode.h:
 * 0 mm, 1 mm-series, 2 slub, 3 vmscan); else why not. */
static const char *change_model_missing(const struct loader *l, const struct scn_point *pt,
					int model)
{
	enum kcommit kc = mm_config_commit(&pt->cfg);
	if (model == 1 && (kc == KC_v3_04 || kc == KC_v3_05))
		return "it is a site, function or block of the 2016 series' code, which runs "
		       "with a kernel.commit other than 060e74173f29 and 682a3385e773";
	if (model == 2 && !scn_uses_slub(l->s))
		return "it is SLUB's, which this workload does not run";
	if (model == 3 && !l->s->wl->reclaim)
		return "it is the reclaim model's, which only the fill workload runs";
	return NULL;
}

/* One change file (node n, a path relative to the scenario's directory
 * unless given on the command line) appended to the point's. */
static int load_change(struct loader *l, const struct ynode *n, struct scn_point *pt)
{
	const char *ref;
	int rc = ytree_string(TT(n), n, "change", 1, &ref, l->d);
	if (rc)
		return rc;
	char *path = scn_is_cli(l, n) ? strdup(ref) : scn_resolve_path(l->s->path, ref);
	struct kchange **v = realloc(pt->changes, (size_t)(pt->nr_changes + 1) * sizeof *v);
	if (v)
		pt->changes = v;
	if (!path || !v) {
		free(path);
		return scn_nomem(l);
	}
	struct kchange *c;
	struct diag d;
	diag_init(&d);
	rc = kchange_load_file(path, &c, &d);
	free(path);
	if (rc == NS_ENOENT || rc == NS_EIO) {
		char q[128];
		ytree_quote(ref, n->len, q, sizeof q);
		return scn_err(l, n, "cannot read change file '%s': %s", q, d.msg);
	}
	if (rc) {
		*l->d = d;
		return rc;
	}
	pt->changes[pt->nr_changes++] = c;
	for (int i = 0; i < c->nr; i++) {
		const char *why = change_model_missing(l, pt, c->ops[i].model);
		if (why)
			return diag_set(l->d, NS_EINPUT, c->file, c->ops[i].line, c->ops[i].col,
					"'%s' is not in this scenario's run: %s", c->ops[i].name, why);
	}
	return NS_OK;
}

/* kernel.change: a change file, a list of them (applied in order) or
 * none; the block edits gathered for the models' set-up, the value
 * text "NAME@SHA12+..." for params and labels. */
static int parse_change(struct loader *l, const struct ynode *n, struct scn_point *pt,
			const char **text)
{
	int rc;
	if (n->kind == YNODE_SCALAR && n->style == YSTYLE_PLAIN && !strcmp(n->str, "none")) {
		*text = "none";
		return NS_OK;
	}
	if (n->kind == YNODE_SEQ) {
		if (n->nr == 0)
			return scn_err(l, n, "kernel.change is an empty list (give none)");
		for (size_t i = 0; i < n->nr; i++)
			if ((rc = load_change(l, n->items[i], pt)))
				return rc;
	} else if ((rc = load_change(l, n, pt))) {
		return rc;
	}
	int max = 0;
	for (int i = 0; i < pt->nr_changes; i++)
		max += pt->changes[i]->nr;
	if (!(pt->block_changes = calloc((size_t)max + 1, sizeof *pt->block_changes)))
		return scn_nomem(l);
	size_t off = 0;
	for (int i = 0; i < pt->nr_changes; i++) {
		if ((rc = kchange_block_changes(pt->changes[i], pt->block_changes,
						&pt->nr_block_changes, max, l->d)))
			return rc;
		int w = snprintf(pt->change_text + off, sizeof pt->change_text - off, "%s%s",
				 i ? "+" : "", pt->changes[i]->ident);
		if (w < 0 || (size_t)w >= sizeof pt->change_text - off)
			return scn_err(l, n, "kernel.change: too many change files for a label");
		off += (size_t)w;
	}
	pt->cfg.block_changes = pt->slub.block_changes = pt->block_changes;
	pt->cfg.nr_block_changes = pt->slub.nr_block_changes = pt->nr_block_changes;
	*text = pt->change_text;
	return NS_OK;
}

/* Apply knob k's value node n to a point. */
static int apply_knob(struct loader *l, enum scn_knob k, const struct ynode *n,
		      struct scn_point *pt)
{
	struct mm_config *c = &pt->cfg;
	struct scn_value *val = &pt->knob[k];
	long long v = 0;
	int x = 0, rc = NS_OK;

	val->set = 1;
	val->text = n->kind == YNODE_SCALAR ? n->str : NULL;
	switch (k) {
	case SCN_KNOB_zonelist_iter:
		if (pt->knob[SCN_KNOB_commit].set)
			return knob_conflict(l, n);
		if ((rc = parse_named(l, n, "zonelist_iter", mmzone_iter_parse,
				      "pre-682a3385 or 682a3385", &x)))
			return rc;
		c->iter = (enum mmzone_iter)x;
		val->text = mmzone_iter_name(c->iter);
		break;
	case SCN_KNOB_zonelist_order:
		if ((rc = parse_named(l, n, "zonelist_order", zl_order_parse,
				      "node or zone", &x)))
			return rc;
		c->zl.order = (enum zonelist_order)x;
		val->text = zonelist_order_name(c->zl.order);
		break;
	case SCN_KNOB_zonelist_cpus_at_build:
		if ((rc = parse_named(l, n, "zonelist_cpus_at_build", zl_cpus_parse,
				      "given or none", &x)))
			return rc;
		c->zl.cpus_at_build = (enum zonelist_cpus_at_build)x;
		val->text = zonelist_cpus_at_build_name(c->zl.cpus_at_build);
		break;
	case SCN_KNOB_memoryless:
		if ((rc = parse_named(l, n, "memoryless", zl_memless_parse,
				      "online or offline-x86", &x)))
			return rc;
		c->zl.memoryless = (enum zonelist_memoryless)x;
		val->text = zonelist_memoryless_name(c->zl.memoryless);
		break;
	case SCN_KNOB_min_free_kbytes:
		if ((rc = ytree_int(TT(n), n, "min_free_kbytes", 0, INT32_MAX, &v, l->d)))
			return rc;
		c->min_free_kbytes = (uint32_t)v;
		break;
	case SCN_KNOB_watermark_scale_factor:
		/* sysctl range of vm.watermark_scale_factor (v4.6): 1..1000 */
		if ((rc = ytree_int(TT(n), n, "watermark_scale_factor", 1, 1000, &v, l->d)))
			return rc;
		c->watermark_scale_factor = (uint32_t)v;
		break;
	case SCN_KNOB_thp_min_free:
		if ((rc = parse_onoff(l, n, "thp_min_free", &c->thp_min_free)))
			return rc;
		val->text = c->thp_min_free ? "on" : "off";
		break;
	case SCN_KNOB_percpu_pagelist_fraction:
		/* vm.percpu_pagelist_fraction: 0 (default sizing) or >= 8 */
		if ((rc = ytree_int(TT(n), n, "percpu_pagelist_fraction", 0, INT32_MAX,
				    &v, l->d)))
			return rc;
		if (v != 0 && v < 8)
			return scn_err(l, n, "percpu_pagelist_fraction must be 0 (default) "
				   "or at least 8 (the sysctl's minimum), got %lld", v);
		c->percpu_pagelist_fraction = (uint32_t)v;
		break;
	case SCN_KNOB_slab_free_layout:
		if ((rc = parse_named(l, n, "slab_free_layout", slab_layout_parse,
				      "pre-c270cf30 or c270cf30", &x)))
			return rc;
		pt->slub.variant = (enum slub_variant)x;
		val->text = slab_layout_name(pt->slub.variant);
		break;
	case SCN_KNOB_slub_stats:
		if ((rc = parse_onoff(l, n, "slub_stats", &pt->slub.stats)))
			return rc;
		val->text = pt->slub.stats ? "on" : "off";
		break;
	case SCN_KNOB_compiler_layout:
		if ((rc = parse_named(l, n, "compiler_layout", slub_compiler_parse,
				      "gcc or clang", &x)))
			return rc;
		pt->slub.compiler = (enum slub_compiler)x;
		val->text = slub_compiler_name(pt->slub.compiler);
		break;
	case SCN_KNOB_slub_cpu_partial:
		if ((rc = parse_slub_cpu_partial(l, n, pt)))
			return rc;
		val->text = kcommit_id(pt->slub.commit);
		break;
	case SCN_KNOB_zone_reclaim_mode:
		if ((rc = parse_zone_reclaim_mode(l, n, pt, &val->text)))
			return rc;
		break;
	case SCN_KNOB_swap:
		if ((rc = parse_swap(l, n, &c->reclaim.swap_pages)))
			return rc;
		break;
	case SCN_KNOB_swappiness:
		/* vm.swappiness: 0..100 in v4.6 */
		if ((rc = ytree_int(TT(n), n, "swappiness", 0, 100, &v, l->d)))
			return rc;
		c->reclaim.swappiness = (uint32_t)v;
		break;
	case SCN_KNOB_min_unmapped_ratio:
		if ((rc = ytree_int(TT(n), n, "min_unmapped_ratio", 0, 100, &v, l->d)))
			return rc;
		c->reclaim.min_unmapped_ratio = (uint32_t)v;
		break;
	case SCN_KNOB_min_slab_ratio:
		if ((rc = ytree_int(TT(n), n, "min_slab_ratio", 0, 100, &v, l->d)))
			return rc;
		c->reclaim.min_slab_ratio = (uint32_t)v;
		break;
	case SCN_KNOB_writeback_cycles:
		if ((rc = ytree_int(TT(n), n, "writeback_cycles", 0, UINT32_MAX, &v, l->d)))
			return rc;
		c->reclaim.writeback_cycles = (uint64_t)v;
		break;
	case SCN_KNOB_commit:
		if ((rc = parse_commit(l, n, pt)))
			return rc;
		val->text = pt->commit_text;
		break;
	case SCN_KNOB_change:
		if ((rc = parse_change(l, n, pt, &val->text)))
			return rc;
		break;
	case SCN_NR_KNOBS:
		break;
	}
	if (scn_knob_kinds[k] == 'i') {
		val->text = NULL;
		val->num = v;
	}
	return rc;
}

/* Values of unset knobs as the model's defaults. */
void scn_default_knobs(struct scn_point *pt)
{
	const struct mm_config *c = &pt->cfg;
	for (int k = 0; k < SCN_NR_KNOBS; k++) {
		struct scn_value *v = &pt->knob[k];
		if (v->set)
			continue;
		switch ((enum scn_knob)k) {
		case SCN_KNOB_zonelist_iter: v->text = mmzone_iter_name(c->iter); break;
		case SCN_KNOB_zonelist_order: v->text = zonelist_order_name(c->zl.order); break;
		case SCN_KNOB_zonelist_cpus_at_build:
			v->text = zonelist_cpus_at_build_name(c->zl.cpus_at_build);
			break;
		case SCN_KNOB_memoryless: v->text = zonelist_memoryless_name(c->zl.memoryless); break;
		case SCN_KNOB_min_free_kbytes: v->num = c->min_free_kbytes; break;
		case SCN_KNOB_watermark_scale_factor: v->num = c->watermark_scale_factor; break;
		case SCN_KNOB_thp_min_free: v->text = c->thp_min_free ? "on" : "off"; break;
		case SCN_KNOB_percpu_pagelist_fraction: v->num = c->percpu_pagelist_fraction; break;
		case SCN_KNOB_slab_free_layout: v->text = slab_layout_name(pt->slub.variant); break;
		case SCN_KNOB_slub_stats: v->text = pt->slub.stats ? "on" : "off"; break;
		case SCN_KNOB_compiler_layout: v->text = slub_compiler_name(pt->slub.compiler); break;
		case SCN_KNOB_slub_cpu_partial: v->text = kcommit_id(pt->slub.commit); break;
		case SCN_KNOB_zone_reclaim_mode:
			v->text = zrm_names[c->zone_reclaim_mode & 7];
			break;
		case SCN_KNOB_swap: v->text = "none"; break;
		case SCN_KNOB_swappiness: v->num = c->reclaim.swappiness; break;
		case SCN_KNOB_min_unmapped_ratio: v->num = c->reclaim.min_unmapped_ratio; break;
		case SCN_KNOB_min_slab_ratio: v->num = c->reclaim.min_slab_ratio; break;
		case SCN_KNOB_writeback_cycles: v->num = (long long)c->reclaim.writeback_cycles; break;
		case SCN_KNOB_commit: v->text = kcommit_id(mm_config_commit(c)); break;
		case SCN_KNOB_change: v->text = "none"; break;
		case SCN_NR_KNOBS: break;
		}
	}
}

/* The hint for the knobs that moved to the policy section. */
const char *scn_moved_knob(const char *key)
{
	if (!strcmp(key, "cpusets"))
		return "kernel.cpusets moved to policy.cpuset (none, all or a node "
		       "list: 'cpusets: on' is 'cpuset: all')";
	if (!strcmp(key, "mems_allowed"))
		return "kernel.mems_allowed moved to policy.cpuset (the cpuset's "
		       "mems, a node list like \"0-1\")";
	return NULL;
}

/* The workload that runs the reclaim model (the first in the table). */
static const char *reclaim_workloads(void)
{
	static const char none[] = "?";
	for (int w = 0; w < workload_count; w++)
		if (workload_table[w]->reclaim)
			return workload_table[w]->name;
	return none;
}

int scn_parse_kernel(struct loader *l)
{
	struct ytree_field fields[SCN_NR_KNOBS];
	const struct ynode *n = l->top_kernel, *v[SCN_NR_KNOBS];
	struct scn_point *pt = l->pt;
	int rc;

	for (int k = 0; k < SCN_NR_KNOBS; k++)
		fields[k] = (struct ytree_field){scn_knob_names[k], 0};
	if (n && ynode_is_null(n))
		return scn_err(l, n, "'kernel' must be a mapping of knobs (or left out)");
	for (size_t i = 0; n && n->kind == YNODE_MAP && i < n->nr; i++) {
		const struct ynode *key = n->items[2 * i];
		const char *hint = key->kind == YNODE_SCALAR ? scn_moved_knob(key->str) : NULL;
		if (hint)
			return scn_err(l, key, "%s", hint);
	}
	if ((rc = scn_section_fields(l, n, "kernel", "kernel", fields, SCN_NR_KNOBS, v)))
		return rc;
	for (int k = 0; k < SCN_NR_KNOBS; k++) {
		const struct ynode *x = v[k];
		if (!x)
			continue;
		if (scn_knob_is_slub((enum scn_knob)k) && !scn_uses_slub(l->s))
			return scn_err(l, x, "kernel.%s applies to the SLUB model, which the "
				   "%s workload does not use", scn_knob_names[k],
				   scn_workload_name(l->s->workload));
		if (scn_knob_is_reclaim((enum scn_knob)k) && !l->s->wl->reclaim)
			return scn_err(l, x, "kernel.%s applies to the reclaim model, which only "
				   "the %s workload runs", scn_knob_names[k], reclaim_workloads());
		if ((rc = apply_knob(l, (enum scn_knob)k, x, pt)))
			return rc;
	}
	return NS_OK;
}

/* ---- noise: the seeded noise sources (cost/noise.h) ------------------------ */

enum { N_PAGE_PLACEMENT, N_TICKS, N_POLLUTION, N_HZ, N_TICK_NS, N_TICK_LINES,
       N_POLLUTION_PERCENT, NR_N };

static const struct ytree_field noise_fields[NR_N] = {
	[N_PAGE_PLACEMENT] = {"page_placement", 0}, [N_TICKS] = {"ticks", 0},
	[N_POLLUTION] = {"pollution", 0}, [N_HZ] = {"hz", 0}, [N_TICK_NS] = {"tick_ns", 0},
	[N_TICK_LINES] = {"tick_lines", 0}, [N_POLLUTION_PERCENT] = {"pollution_percent", 0},
};

/* A count of the noise section into *dst when v is given. */
static int noise_count(struct loader *l, const struct ynode *v, const char *key, long long min,
		       long long max, uint32_t *dst)
{
	long long x;
	int rc;
	if (!v)
		return NS_OK;
	if ((rc = ytree_int(TT(v), v, key, min, max, &x, l->d)))
		return rc;
	*dst = (uint32_t)x;
	return NS_OK;
}

int scn_parse_noise(struct loader *l)
{
	const struct ytree_field *const fields = noise_fields;
	const struct ynode *sec = l->top_noise, *v[NR_N];
	struct noise_params *p = &l->pt->noise;
	int on, rc;

	noise_params_default(p);
	l->pt->noise_set = 0;
	if (sec && ynode_is_null(sec))
		return scn_err(l, sec, "'noise' must be a mapping (or left out)");
	if ((rc = scn_section_fields(l, sec, "noise", "noise", fields, NR_N, v)))
		return rc;
	for (int i = 0; i < NR_N; i++)
		l->pt->noise_set |= v[i] != NULL;
	bool *const sw[] = {&p->page_placement, &p->ticks, &p->pollution};
	static const char *const names[] = {"noise.page_placement", "noise.ticks",
					    "noise.pollution"};
	for (int i = N_PAGE_PLACEMENT; i <= N_POLLUTION; i++) {
		if (!v[i])
			continue;
		if ((rc = parse_onoff(l, v[i], names[i], &on)))
			return rc;
		*sw[i] = on;
	}
	if ((rc = noise_count(l, v[N_HZ], "noise.hz", NOISE_HZ_MIN, NOISE_HZ_MAX, &p->hz)) ||
	    (rc = noise_count(l, v[N_TICK_NS], "noise.tick_ns", 0, NOISE_TICK_NS_MAX,
			      &p->tick_ns)) ||
	    (rc = noise_count(l, v[N_TICK_LINES], "noise.tick_lines", 0, NOISE_TICK_LINES_MAX,
			      &p->tick_lines)) ||
	    (rc = noise_count(l, v[N_POLLUTION_PERCENT], "noise.pollution_percent", 0, 100,
			      &p->pollution_percent)))
		return rc;
	for (int i = N_TICKS; i <= N_POLLUTION; i++)
		if (*sw[i] && !l->s->wl->noise)
			return scn_err(l, v[i], "%s: workload '%s' does not deliver this source "
				   "(only pagealloc does; noise.page_placement holds for every "
				   "workload)", names[i], l->s->wl->name);
	return NS_OK;
}

/* One key into buf (NUL-terminated, the keys so far before it) and
 * keys[n] when n < max, unless it is already in buf; the new count. */
static int key_add(char *buf, size_t cap, size_t *off, const char **keys, int max, int n,
		   const char *prefix, const char *name)
{
	char k[128];
	snprintf(k, sizeof k, "%s%s", prefix, name);
	for (size_t p = 0; p < *off; p += strlen(buf + p) + 1)
		if (!strcmp(buf + p, k))
			return n;
	size_t len = strlen(k) + 1;
	if (*off + len <= cap) {
		memcpy(buf + *off, k, len);
		if (n < max)
			keys[n] = buf + *off;
		*off += len;
	}
	return n + 1;
}

int scenario_keys(char *buf, size_t cap, const char **keys, int max)
{
	static const char *const top[] = {"name", "description", "machine", "seed",
					  "repetitions", "plan_limits.runs",
					  "plan_limits.memory_mib"};
	size_t off = 0;
	int n = 0;
	for (size_t i = 0; i < sizeof top / sizeof top[0]; i++)
		n = key_add(buf, cap, &off, keys, max, n, "", top[i]);
	for (int k = 0; k < SCN_NR_KNOBS; k++)
		n = key_add(buf, cap, &off, keys, max, n, "kernel.", scn_knob_names[k]);
	for (int k = 0; k < NR_P; k++)
		n = key_add(buf, cap, &off, keys, max, n, "policy.", policy_fields[k].key);
	for (int w = 0; w < workload_count; w++)
		for (int k = 0; k < workload_table[w]->nr_fields; k++)
			n = key_add(buf, cap, &off, keys, max, n, "workload.",
				    workload_table[w]->fields[k].key);
	for (int k = 0; k < NR_SC; k++)
		n = key_add(buf, cap, &off, keys, max, n, "sched.", sched_fields[k].key);
	for (int k = 0; k < NR_C; k++)
		n = key_add(buf, cap, &off, keys, max, n, "cost.", cost_fields[k].key);
	for (int k = 0; k < NR_N; k++)
		n = key_add(buf, cap, &off, keys, max, n, "noise.", noise_fields[k].key);
	return n;
}
