/*
 * cpu — simulated CPUs and their cost primitives (see cpu.h for the model).
 *
 * Design notes.  The hot primitives (call, ret, branch, work) are inline in
 * cpu.h and touch only the CPU's own arrays: the layout's per-site bytes,
 * the predictor byte, the site's three counters and the clock.  Self cycles
 * are attributed lazily: the clock runs freely and the difference since the
 * last attribution is booked to the current function only when the
 * attribution target changes (out-of-line call or return) or on export, so
 * a branch costs no profile work at all.  All per-CPU arrays are sized at
 * set-up from the tables; the one exception is the call-path table, which
 * doubles (with its hash) when a run enters more distinct paths than it
 * holds: the models have a few hundred paths, so after the first events
 * of a run nothing is allocated.
 *
 * Set-up converts every cost figure once: cycle figures are rounded to
 * whole cycles, ns figures are multiplied by the clock; the memory and
 * line-transfer latencies become nr_nodes x nr_nodes matrices indexed by
 * node position, so a miss costs one table load.
 */
#include "cost/cpu.h"

#include <assert.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/diag.h"

static int cpu_memo_init(struct cpu *c, const struct cpu_params *p);
static void cpu_memo_free(struct cpu *c);
static void cpu_memo_clear(struct cpu *c);
static int memo_check(const struct cpu *c);
/* The terms of a sampled path's signature after the branches' and calls'. */
enum { SIG_LOCK, SIG_TERMS };

static const char *const counter_names[] = {
#define CPU_COUNTER_NAME(name, desc) #name,
	CPU_COUNTER_MAP(CPU_COUNTER_NAME)
#undef CPU_COUNTER_NAME
};
static const char *const counter_descs[] = {
#define CPU_COUNTER_DESC(name, desc) desc,
	CPU_COUNTER_MAP(CPU_COUNTER_DESC)
#undef CPU_COUNTER_DESC
};

const char *cpu_counter_name(enum cpu_counter c)
{
	return (unsigned)c < CPU_NR_COUNTERS ? counter_names[c] : "unknown";
}

const char *cpu_counter_desc(enum cpu_counter c)
{
	return (unsigned)c < CPU_NR_COUNTERS ? counter_descs[c] : "unknown";
}

const char *cpu_model_name(enum cpu_model m)
{
	return m == CPU_MODEL_INORDER ? "inorder" : m == CPU_MODEL_OOO ? "ooo" : "unknown";
}

int cpu_model_parse(const char *s)
{
	return !strcmp(s, "inorder") ? CPU_MODEL_INORDER : !strcmp(s, "ooo") ? CPU_MODEL_OOO : -1;
}

const char *cpu_accounting_name(enum cpu_accounting a)
{
	return a == CPU_ACCOUNTING_EXACT     ? "exact"
	       : a == CPU_ACCOUNTING_MEMO    ? "memo"
	       : a == CPU_ACCOUNTING_SAMPLED ? "sampled"
					     : "unknown";
}

const char *cpu_warm_name(enum cpu_warm w)
{
	return w == CPU_WARM_NONE     ? "none"
	       : w == CPU_WARM_CACHES ? "caches"
	       : w == CPU_WARM_STORES ? "stores"
				      : "unknown";
}

int cpu_warm_parse(const char *s)
{
	return !strcmp(s, "none")     ? CPU_WARM_NONE
	       : !strcmp(s, "caches") ? CPU_WARM_CACHES
	       : !strcmp(s, "stores") ? CPU_WARM_STORES
				      : -1;
}

const char *cpu_accounting_note(enum cpu_accounting a, uint32_t period, enum cpu_warm warm,
				uint32_t window, char *buf, size_t n)
{
	if (a == CPU_ACCOUNTING_MEMO)
		return ", memo accounting";
	if (a != CPU_ACCOUNTING_SAMPLED)
		return "";
	char win[64] = "";
	if (window && warm != CPU_WARM_CACHES)
		snprintf(win, sizeof win, ", all warmed in the %" PRIu32 " calls before a sample",
			 window);
	if (warm == CPU_WARM_NONE)
		snprintf(buf, n, ", sampled accounting (1 in %" PRIu32 ", no warming%s)", period,
			 win);
	else
		snprintf(buf, n, ", sampled accounting (1 in %" PRIu32 ", %s warmed%s)", period,
			 cpu_warm_name(warm), win);
	return buf;
}

int cpu_accounting_parse(const char *s)
{
	return !strcmp(s, "exact") ? CPU_ACCOUNTING_EXACT
	       : !strcmp(s, "memo")    ? CPU_ACCOUNTING_MEMO
	       : !strcmp(s, "sampled") ? CPU_ACCOUNTING_SAMPLED
				       : -1;
}

const char *cpu_ooo_missing(const struct machine_costs *mc)
{
	/* the clocks and the prefetcher are optional even under ooo: without
	 * clocks the TSC runs at clock_ghz, without streamer figures there is
	 * no prefetcher */
#define OOO_NEED(field)                                                        \
	if (!(mc->field.value > 0))                                            \
		return #field;
	OOO_NEED(dispatch_width)
	OOO_NEED(rob_size)
	OOO_NEED(load_queue)
	OOO_NEED(load_ports)
	OOO_NEED(fill_buffers)
	OOO_NEED(call_uops)
	OOO_NEED(ret_uops)
#undef OOO_NEED
	return NULL;
}

void cpu_params_default(struct cpu_params *p)
{
	p->model = CPU_MODEL_INORDER;
	p->accounting = CPU_ACCOUNTING_EXACT;
	p->sample_period = 100;
	p->sample_warm = CPU_WARM_CACHES;
	p->sample_window = 0;
	bpred_params_default(&p->bpred);
	cache_params_default(&p->cache);
	p->stack_depth = 256;
}

uint32_t cpu_ns_to_cycles(const struct cpu_costs *k, double ns)
{
	double c = nearbyint(ns * k->clock_ghz);
	return c <= 0 ? 0 : c >= (double)UINT32_MAX ? UINT32_MAX : (uint32_t)c;
}

static uint32_t cycles_of(double v)
{
	double c = nearbyint(v);
	return c <= 0 ? 0 : c >= (double)UINT32_MAX ? UINT32_MAX : (uint32_t)c;
}

/* The out-of-order figures (cpu.h); NS_ERANGE when one is missing or out
 * of what the state can hold. */
static int ooo_costs_init(struct cpu_costs *k, const struct machine_costs *mc)
{
	if (cpu_ooo_missing(mc) || mc->fill_buffers.value > CPU_OOO_MAX_MLP ||
	    mc->dispatch_width.value > 64 || mc->rob_size.value > 4096 ||
	    mc->load_queue.value > 4096 || mc->call_uops.value > 64 ||
	    mc->ret_uops.value > 64)
		return NS_ERANGE;
	if (mc->core_ghz.value > 0)
		k->clock_ghz = mc->core_ghz.value;
	if (mc->tsc_ghz.value > 0)
		k->tsc_per_cycle = mc->tsc_ghz.value / k->clock_ghz;
	k->width = (uint32_t)mc->dispatch_width.value;
	k->rob = (uint32_t)mc->rob_size.value;
	k->load_queue = (uint32_t)mc->load_queue.value;
	k->load_ports = (uint32_t)mc->load_ports.value;
	k->fill_buffers = (uint32_t)mc->fill_buffers.value;
	k->call_uops = (uint32_t)mc->call_uops.value;
	k->ret_uops = (uint32_t)mc->ret_uops.value;
	if (mc->prefetch_streams.value > 0 && mc->prefetch_distance.value > 0 &&
	    mc->prefetch_degree.value > 0) {
		k->pf_streams = (uint32_t)fmin(mc->prefetch_streams.value, 256);
		k->pf_distance = (uint32_t)fmin(mc->prefetch_distance.value, 256);
		k->pf_degree = (uint32_t)fmin(mc->prefetch_degree.value, 16);
	}
	return NS_OK;
}

static int costs_init(struct cpu_costs *k, const struct machine_costs *mc,
		      enum cpu_model model)
{
	if (!(mc->clock_ghz.value > 0) || !(mc->return_stack.value >= 1))
		return NS_ERANGE;
	memset(k, 0, sizeof *k);
	k->clock_ghz = mc->clock_ghz.value;
	k->tsc_per_cycle = 1.0;
	if (model == CPU_MODEL_OOO) {
		int rc = ooo_costs_init(k, mc);
		if (rc)
			return rc;
	}
	uint32_t cr = cycles_of(mc->call_return.value);
	k->call = cr / 2;
	k->ret = cr - k->call;
	k->branch = cycles_of(mc->branch.value);
	k->taken_branch = cycles_of(mc->taken_branch.value);
	k->mispredict = cycles_of(mc->mispredict.value);
	k->return_stack = cycles_of(mc->return_stack.value);
	k->l1d = cycles_of(mc->l1d_latency.value);
	k->l2 = cycles_of(mc->l2_latency.value);
	k->llc = cycles_of(mc->llc_latency.value);
	k->mem_slot = 1;      /* one load/store issue slot (cpu.h, OoO rule) */
	k->atomic = cycles_of(mc->atomic.value);
	uint32_t lk = cycles_of(mc->lock_uncontended.value);
	k->unlock = lk / 2;
	k->lock = lk - k->unlock;
	uint32_t irq = cycles_of(mc->irq_save_restore.value);
	k->irq_restore = irq / 2;
	k->irq_save = irq - k->irq_restore;
	k->this_cpu_cmpxchg = cycles_of(mc->this_cpu_cmpxchg.value);
	return NS_OK;
}

int cpu_costs_init(struct cpu_costs *k, const struct machine_costs *mc)
{
	return costs_init(k, mc, CPU_MODEL_INORDER);
}

/*
 * Fill a by-position latency matrix from a by-distance table
 * (machine_latency_ns: the interpolation of docs/machine-format.md).
 */
static int latency_matrix(uint32_t **out, const struct machine *m,
			  const struct cpu_costs *k,
			  const struct latency_point *pts, int npts)
{
	int n = m->nr_nodes;
	if (npts < 1)
		return NS_ERANGE;
	uint32_t *mat = malloc((size_t)n * (size_t)n * sizeof *mat);
	if (!mat)
		return NS_ENOMEM;
	for (int i = 0; i < n; i++)
		for (int j = 0; j < n; j++)
			mat[i * n + j] = cpu_ns_to_cycles(
				k, machine_latency_ns(pts, npts, m->distance[i * n + j]));
	*out = mat;
	return NS_OK;
}

#define PATHS_INITIAL 256u

/* Rebuild the path hash at 4x the capacity (load <= 1/4 when full). */
static int path_rehash(struct cpu *c, uint32_t cap)
{
	uint32_t slots = 4 * cap;
	int32_t *h = malloc((size_t)slots * sizeof *h);
	if (!h)
		return NS_ENOMEM;
	for (uint32_t i = 0; i < slots; i++)
		h[i] = -1;
	free(c->path_hash);
	c->path_hash = h;
	c->path_hash_mask = slots - 1;
	for (uint32_t id = 1; id < c->nr_paths; id++) {
		uint32_t k = cpu_path_slot(c, c->path[id].parent, c->path[id].fn);
		while (h[k] >= 0)
			k = (k + 1) & c->path_hash_mask;
		h[k] = (int32_t)id;
	}
	return NS_OK;
}

static int paths_init(struct cpu *c)
{
	c->path = calloc(PATHS_INITIAL, sizeof *c->path);
	if (!c->path)
		return NS_ENOMEM;
	c->cap_paths = PATHS_INITIAL;
	c->nr_paths = 1;
	c->path[0].parent = c->path[0].fn = -1;
	c->cur_path = 0;
	return path_rehash(c, PATHS_INITIAL);
}

int32_t cpu_path_new(struct cpu *c, int32_t parent, int32_t fn, uint32_t slot)
{
	if (c->nr_paths == c->cap_paths) {
		uint32_t cap = 2 * c->cap_paths;
		struct cpu_path *p = cap <= CPU_MAX_PATHS
			? realloc(c->path, (size_t)cap * sizeof *p) : NULL;
		if (!p) {
			c->ctr[CPU_CTR_path_lost]++;
			return parent;
		}
		c->path = p;
		c->cap_paths = cap;
		if (path_rehash(c, cap)) {
			c->ctr[CPU_CTR_path_lost]++;
			return parent;  /* the old hash stays valid */
		}
		/* the slot moved with the rehash */
		slot = cpu_path_slot(c, parent, fn);
		while (c->path_hash[slot] >= 0)
			slot = (slot + 1) & c->path_hash_mask;
	}
	int32_t id = (int32_t)c->nr_paths++;
	c->path[id] = (struct cpu_path){.parent = parent, .fn = fn};
	c->path_hash[slot] = id;
	return id;
}

static void cpu_free_one(struct cpu *c)
{
	cpu_memo_free(c);
	free(c->path);
	free(c->path_hash);
	bpred_free(&c->bp);
	free(c->site);
	free(c->prof);
	free(c->stack);
}

static int cpu_init_one(struct cpu_sys *s, struct cpu *c, int idx, int id,
			const struct cpu_params *p)
{
	memset(c, 0, sizeof *c);
	c->sys = s;
	c->idx = idx;
	c->id = id;
	c->node = s->m->cpu_node[id];
	c->node_pos = s->m->node_index[c->node];
	c->max_depth = p->stack_depth;
	c->attr = -1;
	int rc = bpred_init(&c->bp, s->tables->nr_sites, &p->bpred);
	if (rc)
		return rc;
	c->site = calloc((size_t)s->tables->nr_sites + 1, sizeof *c->site);
	c->prof = calloc((size_t)s->tables->nr_fns + 1, sizeof *c->prof);
	c->stack = calloc((size_t)p->stack_depth + 1, sizeof *c->stack);
	if (!c->site || !c->prof || !c->stack)
		return NS_ENOMEM;
	rc = paths_init(c);
	if (!rc && p->accounting != CPU_ACCOUNTING_EXACT)
		rc = cpu_memo_init(c, p);
	return rc;
}

/* The exact branch step per (model, predictor): cpu_branch_as() with both
 * constant, one of them bound to each CPU (cpus_bind()). */
#define BRANCH_STEP(name, ooo, mode)                                           \
	static bool name(struct cpu *c, int site, bool cond)                   \
	{                                                                      \
		return cpu_branch_as(c, site, cond, ooo, mode);                \
	}
BRANCH_STEP(branch_inorder_bimodal, false, BPRED_BIMODAL)
BRANCH_STEP(branch_inorder_gshare, false, BPRED_GSHARE)
BRANCH_STEP(branch_inorder_tage, false, BPRED_TAGE)
BRANCH_STEP(branch_ooo_bimodal, true, BPRED_BIMODAL)
BRANCH_STEP(branch_ooo_gshare, true, BPRED_GSHARE)
BRANCH_STEP(branch_ooo_tage, true, BPRED_TAGE)
#undef BRANCH_STEP

static bool (*branch_step(bool ooo, enum bpred_mode mode))(struct cpu *, int, bool)
{
	switch (mode) {
	case BPRED_BIMODAL:
		return ooo ? branch_ooo_bimodal : branch_inorder_bimodal;
	case BPRED_TAGE:
		return ooo ? branch_ooo_tage : branch_inorder_tage;
	case BPRED_GSHARE:
		break;
	}
	return ooo ? branch_ooo_gshare : branch_inorder_gshare;
}

/* Copy the hot figures and layout pointers into every CPU. */
static void cpus_bind(struct cpu_sys *s)
{
	bool ooo = s->model == CPU_MODEL_OOO;
	for (int i = 0; i < s->nr_cpus; i++) {
		struct cpu *c = &s->cpu[i];
		c->ooo = ooo;
		c->branch = branch_step(ooo, c->bp.mode);
		c->k_taken = s->k.taken_branch;
		c->k_mispredict = s->k.mispredict;
		for (unsigned t = 0; t < 4; t++)
			c->k_br[t] = (uint32_t)cpu_branch_cycles(&s->k, 1, t >> 1, t & 1);
		c->k_call = ooo ? s->k.call_uops : s->k.call;
		c->k_ret = ooo ? s->k.ret_uops : s->k.ret;
		if (ooo && !c->o.width) {
			struct cpu_ooo *o = &c->o;
			o->width = s->k.width;
			o->rob = s->k.rob;
			o->load_queue = s->k.load_queue;
			o->load_ports = s->k.load_ports;
			o->mlp = s->k.fill_buffers;
			o->rob_cycles = s->k.rob / s->k.width;
		}
		c->k_l1d = s->k.l1d;
		c->k_mem_slot = s->k.mem_slot;
		c->rsb_depth = s->k.return_stack;
		c->site_layout = s->layout->site;
		c->fn_inline = s->layout->fn_inline;
	}
}

static int valid_cpu(const struct machine *m, int id)
{
	return id >= 0 && id <= m->max_cpu && m->cpu_node[id] >= 0 &&
	       m->cpu_node[id] < MACHINE_MAX_NODES &&
	       m->node_index[m->cpu_node[id]] >= 0;
}

int cpu_sys_init(struct cpu_sys *s, const struct machine *m,
		 const struct cost_tables *t, const struct cost_layout *l,
		 const struct cpu_params *p, const int *cpus, int n)
{
	memset(s, 0, sizeof *s);
	int *llc = NULL;
	int rc = NS_ERANGE;
	if (n < 1 || m->nr_nodes < 1 || p->stack_depth < 1)
		return NS_ERANGE;
	if (cost_layout_check(l, t))
		return NS_EINTERNAL;
	for (int i = 0; i < n; i++) {
		if (!valid_cpu(m, cpus[i]))
			return NS_ERANGE;
		for (int j = 0; j < i; j++)
			if (cpus[j] == cpus[i])
				return NS_ERANGE;
	}
	if (p->model != CPU_MODEL_INORDER && p->model != CPU_MODEL_OOO)
		return NS_ERANGE;
	if (p->accounting != CPU_ACCOUNTING_EXACT && p->accounting != CPU_ACCOUNTING_MEMO &&
	    p->accounting != CPU_ACCOUNTING_SAMPLED)
		return NS_ERANGE;
	if (p->sample_period < 1)
		return NS_ERANGE;
	s->model = p->model;
	s->m = m;
	s->tables = t;
	s->layout = l;
	s->nr_nodes = m->nr_nodes;
	rc = costs_init(&s->k, &m->costs, p->model);
	if (rc)
		goto out;
	rc = latency_matrix(&s->mem_lat, m, &s->k, m->costs.memory_latency,
			    m->costs.nr_memory_latency);
	if (rc)
		goto out;
	rc = latency_matrix(&s->xfer_lat, m, &s->k, m->costs.line_transfer,
			    m->costs.nr_line_transfer);
	if (rc)
		goto out;
	llc = malloc((size_t)n * sizeof *llc);
	s->cpu = calloc((size_t)n, sizeof *s->cpu);
	if (!llc || !s->cpu) {
		rc = NS_ENOMEM;
		goto out;
	}
	for (int i = 0; i < n; i++) {
		s->nr_cpus = i + 1;
		rc = cpu_init_one(s, &s->cpu[i], i, cpus[i], p);
		if (rc)
			goto out;
		llc[i] = s->cpu[i].node_pos;
	}
	struct cache_params cp = p->cache;
	const struct machine_costs *mc = &m->costs;
	if (mc->line_size.value < 1 || mc->l1d_size.value < 1 ||
	    mc->l2_size.value < 1 || mc->llc_size.value < 1 ||
	    mc->l1d_size.value > UINT32_MAX || mc->l2_size.value > UINT32_MAX ||
	    mc->llc_size.value > UINT32_MAX || mc->line_size.value > 4096) {
		rc = NS_ERANGE;
		goto out;
	}
	cp.line_size = (uint32_t)mc->line_size.value;
	cp.l1d_size = (uint32_t)mc->l1d_size.value;
	cp.l2_size = (uint32_t)mc->l2_size.value;
	cp.llc_size = (uint32_t)mc->llc_size.value;
	cp.pf_streams = s->k.pf_streams;   /* 0 unless ooo with streamer figures */
	cp.pf_distance = s->k.pf_distance;
	cp.pf_degree = s->k.pf_degree;
	/* one simulated CPU: no other cache can hold a line, so the
	 * coherence directory decides nothing and would only cost host time */
	if (n == 1)
		cp.coherence = false;
	rc = cache_sys_init(&s->cache, &cp, n, llc, m->nr_nodes);
	if (rc)
		goto out;
	cpus_bind(s);
out:
	free(llc);
	if (rc)
		cpu_sys_free(s);
	return rc;
}

void cpu_sys_free(struct cpu_sys *s)
{
	for (int i = 0; s->cpu && i < s->nr_cpus; i++)
		cpu_free_one(&s->cpu[i]);
	free(s->cpu);
	free(s->mem_lat);
	free(s->xfer_lat);
	cache_sys_free(&s->cache);
	memset(s, 0, sizeof *s);
}

int cpu_sys_set_layout(struct cpu_sys *s, const struct cost_layout *l)
{
	if (cost_layout_check(l, s->tables))
		return NS_EINTERNAL;
	for (int i = 0; i < s->nr_cpus; i++)
		if (s->cpu[i].depth || s->cpu[i].lost)
			return NS_EINTERNAL; /* frames carry the old layout */
	s->layout = l;
	for (int i = 0; i < s->nr_cpus; i++) {
		bpred_reset(&s->cpu[i].bp);
		cpu_memo_clear(&s->cpu[i]);   /* the paths cost differently now */
	}
	cpus_bind(s);
	return NS_OK;
}

struct cpu *cpu_sys_cpu(struct cpu_sys *s, int cpu_id)
{
	for (int i = 0; i < s->nr_cpus; i++)
		if (s->cpu[i].id == cpu_id)
			return &s->cpu[i];
	return NULL;
}

/* Cost of a line served from src (from: the holder of a transfer). */
static uint32_t line_cost(struct cpu *c, enum cache_src src, int from, int home_pos)
{
	struct cpu_sys *s = c->sys;
	uint64_t *k = c->ctr;
	k[CPU_CTR_mem_accesses]++;
	if (src == CACHE_SRC_L1) {
		k[CPU_CTR_l1d_hit]++;
		return s->k.l1d;
	}
	k[CPU_CTR_l1d_miss]++;
	if (src == CACHE_SRC_L2) {
		k[CPU_CTR_l2_hit]++;
		return s->k.l2;
	}
	k[CPU_CTR_l2_miss]++;
	if (src == CACHE_SRC_LLC) {
		k[CPU_CTR_llc_hit]++;
		return s->k.llc;
	}
	k[CPU_CTR_llc_miss]++;
	if (src == CACHE_SRC_XFER) {
		k[CPU_CTR_line_transfer]++;
		return s->xfer_lat[c->node_pos * s->nr_nodes + s->cpu[from].node_pos];
	}
	k[home_pos == c->node_pos ? CPU_CTR_mem_local : CPU_CTR_mem_remote]++;
	return s->mem_lat[c->node_pos * s->nr_nodes + home_pos];
}

/* Cost of one line and the counters it moves. */
static uint32_t mem_line(struct cpu *c, uint64_t line, int home_pos, bool write,
			 enum cache_src *srcp)
{
	int from = -1;
	*srcp = cache_access(&c->sys->cache, c->idx, line, write, &from);
	return line_cost(c, *srcp, from, home_pos);
}

static int home_pos(const struct cpu *c, int node)
{
	const struct machine *m = c->sys->m;
	assert(node >= 0 && node < MACHINE_MAX_NODES && m->node_index[node] >= 0);
	if (node < 0 || node >= MACHINE_MAX_NODES || m->node_index[node] < 0)
		return c->node_pos;
	return m->node_index[node];
}

_Static_assert(CPU_CTR_mem_load + 0 == CPU_CTR_mem_load_dep + (int)CPU_LOAD &&
		       CPU_CTR_mem_store + 0 == CPU_CTR_mem_load_dep + (int)CPU_STORE &&
		       CPU_CTR_mem_store_bulk + 0 == CPU_CTR_mem_load_dep + (int)CPU_STORE_BULK,
	       "per-kind counters follow enum cpu_access");

/* The charge of an access whose slowest line came from worst (cpu.h). */
static uint32_t mem_charge(struct cpu *c, enum cpu_access kind, bool all_l1, uint32_t worst)
{
	if (c->ooo)
		return cpu_ooo_mem(c, kind, worst, !all_l1);
	/* the out-of-order rule (cpu.h): only dependent loads wait for an L1
	 * hit, no load (nor bulk store) hides a miss, stores never stall */
	uint32_t cost = kind == CPU_STORE || (all_l1 && kind != CPU_LOAD_DEP)
				? c->k_mem_slot : worst;
	c->now += cost;
	c->ctr[CPU_CTR_mem_stall_cycles] += cost;
	c->ctr[CPU_CTR_mem_load_dep + (int)kind]++;
	return cost;
}

/* One line's access as the log keeps it (performed at log time): where
 * the line came from, the holder of a transfer (-1: none) and the home
 * node's position; the replay charges it with line_cost(). */
static uint64_t line_event(enum cpu_event ev, enum cache_src src, int from, int hp)
{
	return CPU_EV(ev, (uint64_t)src | (uint64_t)(from + 1) << 3 | (uint64_t)hp << 24);
}

void cpu_fast_line(struct cpu *c, uint64_t line, bool write)
{
	int from = -1;
	cache_access_slow(&c->sys->cache, c->idx, line, write, &from);
}

void cpu_fast_lines(struct cpu *c, uint64_t line, uint64_t last, bool write)
{
	const struct cache_sys *cs = &c->sys->cache;
	do {
		if (!cache_l1_fast(cs, c->idx, line, write))
			cpu_fast_line(c, line, write);
	} while (++line <= last);
}

uint32_t cpu_mem_line_slow(struct cpu *c, uint64_t line, int node, enum cpu_access kind)
{
	int from = -1;
	if (c->mlog_on == CPU_LOG_FAST) {
		if (cpu_fast_warms(c, kind))
			cpu_fast_line(c, line, kind >= CPU_STORE);
		return 0;
	}
	if (c->mlog_on) {
		if (c->mlog_n + 2 <= CPU_MEMO_LOG) {
			enum cache_src src = cache_access_slow(&c->sys->cache, c->idx, line,
							       kind >= CPU_STORE, &from);
			if (src == CACHE_SRC_L1) {
				/* charged as cpu_mem_l1_again() charges: one path */
				c->mlog[c->mlog_n++] = CPU_EV(CPU_EV_MEM, kind);
				return 0;
			}
			c->mlog[c->mlog_n++] = line_event(CPU_EV_LINE, src, from, home_pos(c, node));
			c->mlog[c->mlog_n++] = CPU_EV(CPU_EV_CHARGE, kind);
			return 0;
		}
		cpu_memo_break(c);
	}
	enum cache_src src = cache_access_slow(&c->sys->cache, c->idx, line,
					       kind >= CPU_STORE, &from);
	uint32_t lat = line_cost(c, src, from, home_pos(c, node));
	return mem_charge(c, kind, src == CACHE_SRC_L1, lat);
}

/* Log an access to lines first..last, performing them.  False (logging
 * over) when the log cannot take them. */
static bool memo_lines(struct cpu *c, uint64_t first, uint64_t last, int hp,
		       enum cpu_access kind)
{
	if (c->mlog_on == CPU_LOG_FAST) {
		for (uint64_t line = first; cpu_fast_warms(c, kind) && line <= last; line++) {
			int from = -1;
			cache_access(&c->sys->cache, c->idx, line, kind >= CPU_STORE, &from);
		}
		return true;
	}
	if (last - first + 2 > CPU_MEMO_LOG - c->mlog_n) {
		cpu_memo_break(c);
		return false;
	}
	for (uint64_t line = first; line <= last; line++) {
		int from = -1;
		enum cache_src src = cache_access(&c->sys->cache, c->idx, line, kind >= CPU_STORE,
						  &from);
		c->mlog[c->mlog_n++] = line_event(CPU_EV_LINE, src, from, hp);
	}
	c->mlog[c->mlog_n++] = CPU_EV(CPU_EV_CHARGE, kind);
	return true;
}

uint32_t cpu_mem_slow(struct cpu *c, uint64_t addr, uint32_t bytes, int node,
		      enum cpu_access kind)
{
	int shift = c->sys->cache.line_shift;
	int hp = home_pos(c, node);
	uint64_t first = addr >> shift;
	uint64_t last = (addr + (bytes ? bytes - 1 : 0)) >> shift;
	bool write = kind >= CPU_STORE;
	uint32_t worst = 0;
	bool all_l1 = true;
	enum cache_src src;
	if (c->mlog_on && memo_lines(c, first, last, hp, kind))
		return 0;
	for (uint64_t line = first; line <= last; line++) {
		uint32_t lat = mem_line(c, line, hp, write, &src);
		all_l1 &= src == CACHE_SRC_L1;
		if (lat > worst)
			worst = lat;
	}
	return mem_charge(c, kind, all_l1, worst);
}

/* --- blocks (cpu.h, "Blocks") -------------------------------------------- */

int cpu_block_init(struct cpu_block *b, uint32_t uops, const char *kinds, int32_t exit,
		   const struct cpu_costs *k)
{
	memset(b, 0, sizeof *b);
	b->uops = uops;
	b->work = (uops + CPU_INORDER_IPC - 1) / CPU_INORDER_IPC;  /* cpu_insns() */
	b->exit = exit;
	size_t n = strlen(kinds);
	if (n > CPU_BLOCK_MAX_ACCESSES || exit < -1)
		return NS_EINTERNAL;
	for (size_t i = 0; i < n; i++) {
		const char *at = strchr("DLSB", kinds[i]);
		if (!at || !*at)
			return NS_EINTERNAL;
		enum cpu_access kind = (enum cpu_access)(at - "DLSB");
		/* an L1 hit of the kind, as cpu_mem_l1_again() charges it */
		b->stall += kind == CPU_LOAD_DEP ? k->l1d : k->mem_slot;
		b->kinds |= (uint32_t)kind << (2 * i);
		b->nkind[kind]++;
	}
	b->nacc = (uint8_t)n;
	return NS_OK;
}

int cpu_blocks_init(struct cpu_block *out, const struct cpu_block_def *defs, int n,
		    const uint32_t *work, int site_base, const struct cpu_costs *k)
{
	for (int b = 0; b < n; b++) {
		int32_t exit = defs[b].exit < 0 ? -1 : site_base + defs[b].exit;
		int rc = cpu_block_init(&out[b], work[defs[b].row], defs[b].kinds, exit, k);
		if (rc != NS_OK)
			return rc;
	}
	return NS_OK;
}

uint32_t cpu_block_miss(struct cpu *c, uint64_t addr, uint32_t bytes, int node,
			enum cpu_access kind)
{
	/* the precharge (cpu_block()) of this access, taken back */
	uint32_t hit = kind == CPU_LOAD_DEP ? c->k_l1d : c->k_mem_slot;
	c->now -= hit;
	c->ctr[CPU_CTR_mem_accesses]--;
	c->ctr[CPU_CTR_l1d_hit]--;
	c->ctr[CPU_CTR_mem_stall_cycles] -= hit;
	c->ctr[CPU_CTR_mem_load_dep + (int)kind]--;
	int shift = c->sys->cache.line_shift;
	uint64_t line = addr >> shift;
	if (((addr + (bytes ? bytes - 1 : 0)) >> shift) != line)
		return cpu_mem_slow(c, addr, bytes, node, kind);
	return cpu_mem_line_slow(c, line, node, kind);
}

/* --- the out-of-order core ---------------------------------------------- */

/* ooo_last_cycle, ooo_restart, cpu_ooo_dispatch and ooo_taken are
 * inline in cpu.h (the hot steps); the window is here. */
#define ooo_last_cycle cpu_ooo_last_cycle
#define ooo_restart cpu_ooo_restart
#define ooo_taken cpu_ooo_taken
#define ooo_window cpu_ooo_window

/* A mispredicted branch: it resolves one cycle after its input (the open
 * chain) is ready, and the right path dispatches k_mispredict cycles
 * later (the machine's refill penalty); nothing younger was useful. */
void cpu_ooo_mispredict(struct cpu *c, uint64_t input)
{
	uint64_t b = ooo_last_cycle(c);
	uint64_t resolve = (input > b ? input : b) + 1;
	c->ctr[CPU_CTR_mispredict_resolve_cycles] += resolve - b;
	ooo_restart(c, resolve + c->k_mispredict);
}
#define ooo_mispredict cpu_ooo_mispredict

/* One conditional branch: one fused uop (cmp/test + jcc); it closes the
 * open dependent chain (its value was consumed here). */
void cpu_ooo_branch(struct cpu *c, unsigned taken, unsigned miss)
{
	cpu_ooo_dispatch(c, 1);
	if (miss)
		ooo_mispredict(c, c->o.chain);
	else if (taken)
		ooo_taken(c);
	c->o.chain = 0;
}

void cpu_ooo_call(struct cpu *c)
{
	cpu_ooo_dispatch(c, c->k_call);   /* k_call: call_uops under ooo */
	ooo_taken(c);
}

void cpu_ooo_ret(struct cpu *c, bool rsb_hit)
{
	cpu_ooo_dispatch(c, c->k_ret);    /* k_ret: ret_uops */
	if (rsb_hit) {
		ooo_taken(c);
		return;
	}
	/* the target comes from the stack: an L1 load, then the refill */
	ooo_mispredict(c, ooo_last_cycle(c) + c->k_l1d);
	c->ctr[CPU_CTR_rsb_mispredict]++;
}

/* Retire the oldest tracked long op: dispatch waits for it if it is not
 * done yet (counted as a ROB stall), and its load-queue entry is freed. */
static void ooo_retire_oldest(struct cpu *c)
{
	struct cpu_ooo *o = &c->o;
	uint64_t d = o->rdone[o->head];
	if (d > c->now) {
		c->ctr[CPU_CTR_rob_stall_cycles] += d - c->now;
		ooo_restart(c, d);
	}
	o->loads -= o->rload[o->head];
	o->head = (o->head + 1) % CPU_OOO_RING;
	o->n--;
}

void cpu_ooo_window(struct cpu *c)
{
	struct cpu_ooo *o = &c->o;
	while (o->n && (o->rpos[o->head] + o->rob <= o->pos ||
			(o->rload[o->head] && o->loads > o->load_queue))) {
		ooo_retire_oldest(c);
	}
}

/* Record an op that completes at done (for the window rule); load: it
 * holds a load-queue entry. */
static void ooo_long(struct cpu *c, uint64_t done, bool load)
{
	struct cpu_ooo *o = &c->o;
	/* dispatch reaches pos + rob no sooner than rob / width cycles on:
	 * an op done by then never blocks it */
	if (done <= c->now + o->rob_cycles)
		return;
	if (o->n == CPU_OOO_RING) {
		/* more long ops in flight than tracked: the oldest retires first */
		ooo_retire_oldest(c);
	}
	uint32_t i = (o->head + o->n) % CPU_OOO_RING;
	o->rpos[i] = o->pos;
	o->rdone[i] = done;
	o->rload[i] = load;
	o->loads += load;
	o->n++;
}

/* An L1 miss issued at start takes a fill buffer: the one that frees
 * first (all busy: the miss waits for it).  Returns the issue time. */
static uint64_t ooo_fill_buffer(struct cpu *c, uint64_t start, uint32_t lat)
{
	struct cpu_ooo *o = &c->o;
	uint32_t m = 0;
	for (uint32_t i = 1; i < o->mlp; i++)
		if (o->miss[i] < o->miss[m])
			m = i;
	if (o->miss[m] > start) {
		c->ctr[CPU_CTR_mlp_wait_cycles] += o->miss[m] - start;
		start = o->miss[m];
	}
	o->miss[m] = start + lat;
	return start;
}

uint32_t cpu_ooo_mem(struct cpu *c, enum cpu_access kind, uint32_t lat, bool miss)
{
	struct cpu_ooo *o = &c->o;
	uint64_t before = c->now;
	bool load = kind == CPU_LOAD_DEP || kind == CPU_LOAD;
	if (load && o->lslot == o->load_ports)
		ooo_restart(c, c->now + 1);  /* the load ports are taken */
	cpu_ooo_dispatch(c, 1);
	o->lslot += load;
	c->ctr[CPU_CTR_mem_load_dep + (int)kind]++;
	if (kind == CPU_STORE)
		return (uint32_t)(c->now - before); /* the store buffer takes it */
	uint64_t start = ooo_last_cycle(c);
	if (kind == CPU_LOAD_DEP && o->chain > start)
		start = o->chain;         /* its address is the chain's value */
	if (miss)
		start = ooo_fill_buffer(c, start, lat);
	uint64_t done = start + lat;
	if (kind == CPU_LOAD_DEP)
		o->chain = done;
	ooo_long(c, done, load);
	uint32_t moved = (uint32_t)(c->now - before);
	c->ctr[CPU_CTR_mem_stall_cycles] += moved;
	return moved;
}

/*
 * A locked instruction is a full barrier on x86 (Intel SDM vol. 3A
 * §8.2.2: "locked instructions have a total order" and loads and stores
 * are not reordered with them): it waits for every op in flight.
 */
static void ooo_fence(struct cpu *c)
{
	struct cpu_ooo *o = &c->o;
	uint64_t t = c->now > o->chain ? c->now : o->chain;
	for (uint32_t i = 0; i < o->n; i++) {
		uint64_t d = o->rdone[(o->head + i) % CPU_OOO_RING];
		t = d > t ? d : t;
	}
	for (uint32_t i = 0; i < o->mlp; i++)
		t = o->miss[i] > t ? o->miss[i] : t;
	if (t > c->now)
		c->ctr[CPU_CTR_fence_wait_cycles] += t - c->now;
	ooo_restart(c, t > c->now ? t : c->now);
	o->n = o->loads = 0;
	o->chain = 0;
}

/* The charge of a locked op whose line came from src at lat. */
static uint32_t atomic_charge(struct cpu *c, enum cache_src src, uint32_t lat)
{
	uint32_t cost = c->sys->k.atomic;
	if (src != CACHE_SRC_L1) {
		cost += lat;
		c->ctr[CPU_CTR_mem_stall_cycles] += lat;
	}
	c->ctr[CPU_CTR_atomic]++;
	c->now += cost;
	return cost;
}

uint32_t cpu_atomic(struct cpu *c, uint64_t addr, int node)
{
	uint64_t line = addr >> c->sys->cache.line_shift;
	if (c->mlog_on == CPU_LOG_FAST) {
		int from = -1;
		if (c->fwarm)
			cache_access(&c->sys->cache, c->idx, line, true, &from);
		return 0;
	}
	if (c->mlog_on) {
		if (c->mlog_n < CPU_MEMO_LOG) {
			int from = -1;
			enum cache_src src = cache_access(&c->sys->cache, c->idx, line, true, &from);
			c->mlog[c->mlog_n++] = line_event(CPU_EV_ATOMIC, src, from, home_pos(c, node));
			return 0;
		}
		cpu_memo_break(c);
	}
	if (c->ooo)
		ooo_fence(c);
	enum cache_src src;
	uint32_t lat = mem_line(c, line, home_pos(c, node), true, &src);
	return atomic_charge(c, src, lat);
}

/* A logged locked op (its access was performed at log time). */
static void atomic_logged(struct cpu *c, enum cache_src src, int from, int hp)
{
	if (c->ooo)
		ooo_fence(c);
	atomic_charge(c, src, line_cost(c, src, from, hp));
}

void cpu_irq_save(struct cpu *c)
{
	if (c->mlog_on && cpu_memo_log(c, CPU_EV(CPU_EV_IRQ_SAVE, 0)))
		return;
	c->now += c->sys->k.irq_save;
	c->ctr[CPU_CTR_irq_save]++;
}

void cpu_irq_restore(struct cpu *c)
{
	if (c->mlog_on && cpu_memo_log(c, CPU_EV(CPU_EV_IRQ_RESTORE, 0)))
		return;
	c->now += c->sys->k.irq_restore;
}

void cpu_this_cpu_cmpxchg(struct cpu *c)
{
	if (c->mlog_on && cpu_memo_log(c, CPU_EV(CPU_EV_CMPXCHG, 0)))
		return;
	c->now += c->sys->k.this_cpu_cmpxchg;
	c->ctr[CPU_CTR_this_cpu_cmpxchg]++;
}

void cpu_advance_to(struct cpu *c, uint64_t t)
{
	cpu_block_exit(c, -1);
	if (c->mlog_on == CPU_LOG_MEMO)
		cpu_memo_break(c);
	if (t <= c->now)
		return;
	cpu_attribute(c);
	c->ctr[CPU_CTR_idle_cycles] += t - c->now;
	c->now = t;
	c->last = t;
	c->o.slot = c->o.lslot = 0;
}

void cpu_lock_init(struct cpu_lock *l)
{
	cpu_lock_init_class(l, NULL);
}

void cpu_lock_init_class(struct cpu_lock *l, const char *cls)
{
	memset(l, 0, sizeof *l);
	l->holder = -1;
	l->last = -1;
	l->cls = cls;
}

/*
 * Lock waits under sampled accounting.  The clock stands still inside a
 * fast call, so without more a fast call would take every lock at its
 * start and release it there: CPUs would never wait for each other's
 * fast calls (on the second seed, exact's 178 M cycles of lock waits per
 * run fell to 7 M).  So a fast call keeps an estimate of the time it has
 * reached, fast_clock(): its start, its lock costs so far, and the mean
 * costs of the blocks it has run (the low half of fsig, learnt from the
 * samples).  At a lock another CPU released after that time it waits;
 * at a lock another CPU held last it pays the line's transfer; both are
 * counted as exact counts them (flock, lock_contended, lock_wait_cycles,
 * lock_transfer), and so is the acquisition itself.  At an unlock it
 * releases at that time.  Its lock costs are added to its path's cost at
 * its end, each lock's booked as exact books them where a sample took
 * that lock: its path's sample, if that took the lock or one of its
 * class (the name lockdep gives it), else its function's samples on this
 * CPU (that lock, its class, any), else another CPU's (fast_lock_book(),
 * struct sampled_lock_site).  A
 * sample's waits and transfers stay out of the cost it records for its
 * path (sample_lock_cost()): each call pays those it meets, not those
 * its path's sample met.
 */
static uint64_t fast_clock(const struct cpu *c)
{
	return c->now + c->flock + (c->fsig & ~CPU_SIG_MASK) / 16;
}

static void sample_lock_edge(struct cpu *c, const struct cpu_lock *l, int e);
static uint64_t fast_lock_edge(struct cpu *c, const struct cpu_lock *l, int e);

/* The line transfer of a lock another CPU held last (0: none). */
static uint64_t lock_transfer(const struct cpu *c, const struct cpu_lock *l)
{
	const struct cpu_sys *s = c->sys;
	if (l->last < 0 || l->last == c->idx)
		return 0;
	return s->xfer_lat[c->node_pos * s->nr_nodes + s->cpu[l->last].node_pos];
}

static void fast_lock_note(struct cpu *c, const struct cpu_lock *l, uint64_t x);
static void fast_lock_term(struct cpu *c, uint64_t term);

static void fast_lock(struct cpu *c, struct cpu_lock *l)
{
	uint64_t t = fast_clock(c), f0 = c->flock;
	/* the CPU's own release came before this call (an estimate past
	 * this call's start is no reason to wait for itself) */
	if (t < l->free_at && l->last != c->idx) {
		uint64_t wait = l->free_at - t;
		c->flock += wait;
		c->ctr[CPU_CTR_lock_contended]++;
		c->ctr[CPU_CTR_lock_wait_cycles] += wait;
		l->contended++;
		l->wait_cycles += wait;
	}
	uint64_t x = lock_transfer(c, l);
	c->flock += x;
	c->ctr[CPU_CTR_lock_transfer] += x != 0;
	c->ctr[CPU_CTR_lock_acquire]++;
	if (c->flock > f0)
		fast_lock_note(c, l, c->flock - f0);
}

static void sample_lock_cost(struct cpu *c, uint64_t cycles, enum cpu_counter id,
			     uint64_t count);
static void sample_lock_at(struct cpu *c, const struct cpu_lock *l);

int cpu_lock(struct cpu *c, struct cpu_lock *l)
{
	cpu_block_exit(c, -1);
	if (c->mlog_on == CPU_LOG_MEMO)
		cpu_memo_break(c);
	if (l->holder == c->idx)
		return NS_EINTERNAL;
	if (l->holder >= 0)
		return CPU_LOCK_BUSY;
	if (c->mlog_on == CPU_LOG_FAST) {
		/* sampled: who holds it is kept; its cost is the path's and
		 * its own waits and transfer ("Lock waits") */
		uint64_t term = c->stab_fn[c->sys->tables->nr_fns + SIG_LOCK] + fast_lock_edge(c, l, 0);
		fast_lock_term(c, term);
		fast_lock(c, l);
		l->acquisitions++;
		l->holder = c->idx;
		return NS_OK;
	}
	if (c->sampling)
		sample_lock_at(c, l);
	if (c->ooo)
		ooo_fence(c);             /* spin_lock is a locked cmpxchg */
	if (c->sampling)
		sample_lock_edge(c, l, 0);
	/* (a CPU's own release came before: the test matters only when a
	 * fast call released at its estimate, "Lock waits" above) */
	if (c->now < l->free_at && l->last != c->idx) {
		uint64_t wait = l->free_at - c->now;
		c->now = l->free_at;
		c->ctr[CPU_CTR_lock_contended]++;
		c->ctr[CPU_CTR_lock_wait_cycles] += wait;
		l->contended++;
		l->wait_cycles += wait;
		if (c->sampling)
			sample_lock_cost(c, wait, CPU_CTR_lock_wait_cycles, wait);
	}
	uint64_t x = lock_transfer(c, l);
	if (x) {
		c->now += x;
		c->ctr[CPU_CTR_lock_transfer]++;
		if (c->sampling)
			sample_lock_cost(c, x, CPU_CTR_lock_transfer, 1);
	}
	c->now += c->sys->k.lock;
	c->ctr[CPU_CTR_lock_acquire]++;
	l->acquisitions++;
	l->holder = c->idx;
	return NS_OK;
}

int cpu_unlock(struct cpu *c, struct cpu_lock *l)
{
	cpu_block_exit(c, -1);
	if (c->mlog_on == CPU_LOG_MEMO)
		cpu_memo_break(c);
	if (l->holder != c->idx)
		return NS_EINTERNAL;
	l->holder = -1;
	l->last = c->idx;
	if (c->mlog_on == CPU_LOG_FAST) {
		uint64_t term = fast_lock_edge(c, l, 1);
		fast_lock_term(c, term);
		l->free_at = fast_clock(c);
	} else {
		c->now += c->sys->k.unlock;
		if (c->sampling)
			sample_lock_edge(c, l, 1);
		l->free_at = c->now;
	}
	return NS_OK;
}

/* --- checks ---------------------------------------------------------- */

/* Id of path (parent, fn) without creating it; -1 when absent. */
static int32_t path_find(const struct cpu *c, int32_t parent, int32_t fn)
{
	for (uint32_t h = cpu_path_slot(c, parent, fn);; h = (h + 1) & c->path_hash_mask) {
		int32_t id = c->path_hash[h];
		if (id < 0 || (c->path[id].fn == fn && c->path[id].parent == parent))
			return id;
	}
}

/* The path table and the stack's chain of paths (cpu.h invariants). */
static int paths_check(const struct cpu *c)
{
	int nfn = c->sys->tables->nr_fns;
	uint64_t self = c->path[0].self, fn_self = c->outside;
	if (c->nr_paths < 1 || c->nr_paths > c->cap_paths || c->path[0].parent != -1 ||
	    c->path[0].fn != -1 || c->cur_path < 0 || (uint32_t)c->cur_path >= c->nr_paths)
		return NS_EINTERNAL;
	for (uint32_t id = 1; id < c->nr_paths; id++) {
		const struct cpu_path *p = &c->path[id];
		if (p->parent < 0 || (uint32_t)p->parent >= id || p->fn < 0 || p->fn >= nfn ||
		    path_find(c, p->parent, p->fn) != (int32_t)id)
			return NS_EINTERNAL;
		self += p->self;
	}
	for (int fn = 0; fn < nfn; fn++)
		fn_self += c->prof[fn].self;
	if (self != fn_self || c->mispredicts < c->mispredicts_booked)
		return NS_EINTERNAL;
	/* a lost path leaves a frame on its parent's path: only the
	 * chain's order is checked then */
	int32_t cur = 0;
	for (int i = 0; i < c->depth; i++) {
		const struct cpu_frame *f = &c->stack[i];
		if (f->inl)
			continue;
		if (f->prev_path != cur)
			return NS_EINTERNAL;
		int32_t next = path_find(c, cur, f->fn);
		cur = next >= 0 ? next : cur;
		if (next < 0 && !c->ctr[CPU_CTR_path_lost])
			return NS_EINTERNAL;
	}
	return cur == c->cur_path ? NS_OK : NS_EINTERNAL;
}

int cpu_check(struct cpu *c)
{
	const struct cpu_sys *s = c->sys;
	if (c->mlog_on)
		return NS_EINTERNAL;           /* only between top-level calls */
	cpu_memo_fold(c);
	if (memo_check(c))
		return NS_EINTERNAL;
	int nfn = s->tables->nr_fns;
	if (c->depth < 0 || c->depth > c->max_depth || c->lost ||
	    c->ctr[CPU_CTR_stack_overflow] || c->ctr[CPU_CTR_stack_underflow])
		return NS_EINTERNAL;
	/* frames per function, outermost flags, attribution target, RSB */
	int32_t attr = -1;
	uint32_t ool = 0;
	for (int i = 0; i < c->depth; i++) {
		const struct cpu_frame *f = &c->stack[i];
		if (f->fn < 0 || f->fn >= nfn || f->inl != c->fn_inline[f->fn])
			return NS_EINTERNAL;
		int below = 0;
		for (int j = 0; j < i; j++)
			below += c->stack[j].fn == f->fn;
		if (f->outer != (below == 0))
			return NS_EINTERNAL;
		if (!f->inl) {
			if (f->prev_attr != attr)
				return NS_EINTERNAL;
			attr = f->fn;
			ool++;
		}
	}
	if (attr != c->attr || c->rsb > ool || c->rsb > c->rsb_depth)
		return NS_EINTERNAL;
	if (paths_check(c))
		return NS_EINTERNAL;
	uint64_t self = 0;
	for (int fn = 0; fn < nfn; fn++) {
		uint32_t on_stack = 0;
		for (int i = 0; i < c->depth; i++)
			on_stack += c->stack[i].fn == fn;
		if (on_stack != c->prof[fn].active)
			return NS_EINTERNAL;
		self += c->prof[fn].self;
	}
	if (c->now < c->last || c->now < c->start ||
	    c->now - c->start != self + c->outside + c->ctr[CPU_CTR_idle_cycles] +
					 (c->now - c->last))
		return NS_EINTERNAL;
	if (c->ooo) {
		const struct cpu_ooo *o = &c->o;
		if (!o->width || o->slot >= o->width || o->lslot > o->load_ports ||
		    o->n > CPU_OOO_RING || o->loads > o->n || o->mlp > CPU_OOO_MAX_MLP)
			return NS_EINTERNAL;
		for (uint32_t i = 1; i < o->n; i++)
			if (o->rpos[(o->head + i) % CPU_OOO_RING] <
			    o->rpos[(o->head + i - 1) % CPU_OOO_RING])
				return NS_EINTERNAL;
	}
	for (int i = 0; i < s->tables->nr_sites; i++)
		if (c->site[i].taken > c->site[i].executed ||
		    c->site[i].mispredicted > c->site[i].executed)
			return NS_EINTERNAL;
	return bpred_check(&c->bp);
}

int cpu_sys_check(struct cpu_sys *s)
{
	for (int i = 0; i < s->nr_cpus; i++) {
		if (s->cpu[i].idx != i || s->cpu[i].sys != s)
			return NS_EINTERNAL;
		int rc = cpu_check(&s->cpu[i]);
		if (rc)
			return rc;
	}
	return cache_check(&s->cache);
}

/* --- export ---------------------------------------------------------- */

static void derive(struct cpu *c)
{
	const struct cost_tables *t = c->sys->tables;
	uint64_t *k = c->ctr;
	cpu_memo_fold(c);
	cpu_attribute(c);
	k[CPU_CTR_cycles] = c->now - c->start;
	k[CPU_CTR_l2_prefetch] = c->sys->cache.cpu[c->idx].pf_issued;
	k[CPU_CTR_busy_cycles] = k[CPU_CTR_cycles] - k[CPU_CTR_idle_cycles];
	k[CPU_CTR_calls] = k[CPU_CTR_inlined_calls] = 0;
	for (int fn = 0; fn < t->nr_fns; fn++)
		k[c->fn_inline[fn] ? CPU_CTR_inlined_calls : CPU_CTR_calls] +=
			c->prof[fn].calls;
	k[CPU_CTR_branches] = k[CPU_CTR_branches_taken] = 0;
	k[CPU_CTR_branch_mispredict] = 0;
	for (int i = 0; i < t->nr_sites; i++) {
		k[CPU_CTR_branches] += c->site[i].executed;
		k[CPU_CTR_branches_taken] += c->site[i].taken;
		k[CPU_CTR_branch_mispredict] += c->site[i].mispredicted;
	}
}

uint64_t cpu_counter(struct cpu *c, enum cpu_counter id)
{
	derive(c);
	return (unsigned)id < CPU_NR_COUNTERS ? c->ctr[id] : 0;
}

/* CPUs selected by cpu_id (-1 = all): [*lo, *hi); NS_ENOENT if unknown. */
static int select_cpus(struct cpu_sys *s, int cpu_id, int *lo, int *hi)
{
	if (cpu_id < 0) {
		*lo = 0;
		*hi = s->nr_cpus;
		return NS_OK;
	}
	struct cpu *c = cpu_sys_cpu(s, cpu_id);
	if (!c)
		return NS_ENOENT;
	*lo = c->idx;
	*hi = c->idx + 1;
	return NS_OK;
}

int cpu_sys_profile(struct cpu_sys *s, int cpu_id, cpu_profile_cb cb, void *arg)
{
	int lo, hi, rc = select_cpus(s, cpu_id, &lo, &hi);
	if (rc)
		return rc;
	for (int i = lo; i < hi; i++) {
		cpu_memo_fold(&s->cpu[i]);
		cpu_attribute(&s->cpu[i]);
	}
	for (int fn = 0; fn < s->tables->nr_fns; fn++) {
		struct cpu_profile_row r = {
			.function = s->tables->fn_names[fn],
			.inlined = s->layout->fn_inline[fn],
		};
		for (int i = lo; i < hi; i++) {
			const struct cpu_prof *p = &s->cpu[i].prof[fn];
			r.calls += p->calls;
			r.self_cycles += p->self;
			r.total_cycles += p->total;
		}
		if (!r.calls)
			continue;
		rc = cb(arg, &r);
		if (rc)
			return rc;
	}
	return NS_OK;
}

int cpu_sys_branches(struct cpu_sys *s, int cpu_id, cpu_branch_cb cb, void *arg)
{
	int lo, hi, rc = select_cpus(s, cpu_id, &lo, &hi);
	if (rc)
		return rc;
	for (int i = lo; i < hi; i++)
		cpu_memo_fold(&s->cpu[i]);
	for (int site = 0; site < s->tables->nr_sites; site++) {
		struct cpu_branch_row r = {
			.site = s->tables->sites[site]->name,
			.desc = s->tables->sites[site]->desc,
		};
		for (int i = lo; i < hi; i++) {
			const struct cpu_site_stat *st = &s->cpu[i].site[site];
			r.executed += st->executed;
			r.taken += st->taken;
			r.mispredicted += st->mispredicted;
		}
		if (!r.executed)
			continue;
		rc = cb(arg, &r);
		if (rc)
			return rc;
	}
	return NS_OK;
}

/*
 * The merge of the CPUs' path tables: merged ids in order of first
 * appearance (CPU order, then each CPU's ids, whose parents come first),
 * so the rows are deterministic and parents precede children.
 */
struct path_merge {
	struct cpu_path *p;            /* [n], merged; [0] root */
	uint32_t n, cap;
	int32_t *hash;
	uint32_t mask;
};

static uint32_t merge_slot(const struct path_merge *m, int32_t parent, int32_t fn)
{
	uint32_t key = (uint32_t)parent * 0x9E3779B1u ^ (uint32_t)fn * 0x85EBCA77u;
	return (key ^ key >> 15) & m->mask;
}

static int32_t merge_add(struct path_merge *m, int32_t parent, int32_t fn)
{
	uint32_t h = merge_slot(m, parent, fn);
	for (;; h = (h + 1) & m->mask) {
		int32_t id = m->hash[h];
		if (id < 0)
			break;
		if (m->p[id].fn == fn && m->p[id].parent == parent)
			return id;
	}
	int32_t id = (int32_t)m->n++;  /* cap = total paths of all CPUs: fits */
	m->p[id] = (struct cpu_path){.parent = parent, .fn = fn};
	m->hash[h] = id;
	return id;
}

int cpu_sys_paths(struct cpu_sys *s, int cpu_id, cpu_path_cb cb, void *arg)
{
	int lo, hi, rc = select_cpus(s, cpu_id, &lo, &hi);
	if (rc)
		return rc;
	uint64_t total = 1, maxn = 0;
	for (int i = lo; i < hi; i++) {
		cpu_memo_fold(&s->cpu[i]);
		cpu_attribute(&s->cpu[i]);
		total += s->cpu[i].nr_paths;
		maxn = s->cpu[i].nr_paths > maxn ? s->cpu[i].nr_paths : maxn;
	}
	uint32_t slots = 4;
	while (slots < 2 * total)
		slots *= 2;
	struct path_merge m = {.cap = (uint32_t)total, .mask = slots - 1};
	m.p = calloc(total, sizeof *m.p);
	m.hash = malloc((size_t)slots * sizeof *m.hash);
	int32_t *map = malloc((size_t)maxn * sizeof *map);
	if (!m.p || !m.hash || !map) {
		rc = NS_ENOMEM;
		goto out;
	}
	for (uint32_t i = 0; i < slots; i++)
		m.hash[i] = -1;
	m.n = 1;
	m.p[0].parent = m.p[0].fn = -1;
	for (int i = lo; i < hi; i++) {
		const struct cpu *c = &s->cpu[i];
		map[0] = 0;
		for (uint32_t id = 1; id < c->nr_paths; id++) {
			const struct cpu_path *p = &c->path[id];
			int32_t mid = merge_add(&m, map[p->parent], p->fn);
			map[id] = mid;
			m.p[mid].calls += p->calls;
			m.p[mid].self += p->self;
			m.p[mid].mispredicts += p->mispredicts;
		}
	}
	for (uint32_t id = 1; id < m.n && rc == NS_OK; id++) {
		struct cpu_path_row r = {
			.id = id, .parent = m.p[id].parent,
			.function = s->tables->fn_names[m.p[id].fn],
			.calls = m.p[id].calls, .self_cycles = m.p[id].self,
			.mispredicts = m.p[id].mispredicts,
		};
		rc = cb(arg, &r);
	}
out:
	free(m.p);
	free(m.hash);
	free(map);
	return rc;
}

int cpu_sys_counters(struct cpu_sys *s, cpu_counter_cb cb, void *arg)
{
	for (int i = 0; i < s->nr_cpus; i++) {
		struct cpu *c = &s->cpu[i];
		derive(c);
		for (int id = 0; id < CPU_NR_COUNTERS; id++) {
			struct cpu_counter_row r = {
				.scope = "cpu",
				.scope_id = c->id,
				.name = counter_names[id],
				.value = c->ctr[id],
			};
			int rc = cb(arg, &r);
			if (rc)
				return rc;
		}
	}
	return NS_OK;
}

/* --- memoized paths (cost.accounting memo) ---------------------------- */

/*
 * Design notes.  A top-level call (an out-of-line call at stack depth 0)
 * is logged as a sequence of events, one per primitive (cpu.h), its
 * memory accesses performed at once.  At its return memo_predict() runs
 * the predictor over the logged branches as the exact run would (its
 * state stays exact) and the log, the start state and the mispredict
 * bits are looked up in the table of paths; a path found is replayed:
 * the clock, the RSB and the ooo core state move to the recorded ones,
 * and the path's counts (counters, sites, functions, call paths) wait in
 * the entry until an export folds them in (pending x delta).  A path not
 * found is accounted exactly by replaying its events through the
 * primitives (branches with the predictions already made), with a
 * snapshot before and after that gives its delta.  Every
 * CPU_MEMO_VERIFY-th replay of a path is accounted exactly again and
 * must give the recorded cost (counted as a mismatch otherwise; the tests
 * require none).  The shortcut: a path whose last prediction changed no
 * predictor entry (bpred's dirty flag) from global history h0 and left
 * h1 skips the predictor while the history is h0 and nothing changed
 * since, and sets the history to h1; this is what makes memo fast on the
 * allocator's paths, where the predictor is saturated.  Costs while
 * logging: a word per event; at the return one memcmp of the log.
 */
#define CPU_MEMO_VERIFY 64             /* replays between exact runs of a path */
#define MEMO_STATE_MAX (2 + CPU_OOO_MAX_MLP + CPU_OOO_RING) /* memo_ooo_state() words */
#define MEMO_REL_MAX ((uint64_t)1 << 23)   /* a relative time it encodes, at most */
#define CPU_MEMO_ENTRIES 4096          /* paths per CPU at most */
#define CPU_MEMO_BYTES (16u << 20)     /* bytes of logs and deltas per CPU at most */

enum { MI_CTR, MI_SITE, MI_FN, MI_PATH, MI_OUTSIDE };

struct cpu_sampled;
static void sampled_stats_add(const struct cpu_sampled *sm, struct cpu_memo_stats *st);
static bool sampled_begin(struct cpu *c, int fn);
static void sampled_end(struct cpu *c);
static void sampled_fold(struct cpu *c);
static void sampled_fold_sites(struct cpu *c);
static int sampled_check(const struct cpu *c);
static void sampled_forget(struct cpu_sampled *sm, const struct cost_tables *t);

/* One count a path moves: counter, site (executed, taken, mispredicted),
 * function (calls, self, total), call path (calls, self, mispredicts). */
struct memo_item {
	uint32_t what, idx;
	uint64_t v[3];
};

/* The cost of one path, from its last exact run. */
struct memo_cost {
	uint64_t dnow, dpos, dmisp;
	uint32_t slot, lslot, rsb;
	uint32_t nend;
	uint64_t end[MEMO_STATE_MAX];  /* the ooo state after (memo_ooo_state) */
	/* end[] says nothing is pending (no open chain, fill buffer or
	 * long op): most allocator calls end so, and memo_cost_apply() then
	 * clears the state instead of decoding nend words (it was a tenth of
	 * a fast call's host instructions under ooo) */
	uint8_t idle;
	uint32_t nitems;
	struct memo_item *items;
};

#define MEMO_MISS_WORDS (CPU_MEMO_LOG / 64)

struct memo_entry {
	uint64_t key;                  /* hash of the start state, events, predictions */
	uint32_t start;                /* the start state */
	uint32_t nev, nmiss;
	uint64_t *ev;                  /* the events, then nmiss words of mispredict bits */
	uint8_t stable;
	/* the shortcut: the last prediction of these events started from
	 * global history h0, changed no predictor entry and left h1; while
	 * the predictor's change count is still epoch, the same history
	 * gives the same predictions and changes nothing */
	uint8_t pure;
	uint32_t nbr;                  /* branches (TAGE's update count moves by it) */
	struct bpred_hist h0, h1;
	uint64_t epoch;
	uint32_t left;                 /* replays before the next verification */
	uint64_t pending;              /* replays not yet folded */
	struct memo_cost cost;
};

struct cpu_memo {
	struct memo_entry *e;          /* [nr] */
	uint32_t nr;
	int32_t *hash;                 /* [2 * CPU_MEMO_ENTRIES], -1 = empty */
	uint64_t *short_key;           /* [MEMO_SHORT_SLOTS]: the shortcut cache */
	int32_t *short_id;
	size_t bytes;
	uint32_t start;                /* start state of the call being logged */
	uint64_t ctr0[CPU_NR_COUNTERS];
	uint32_t epoch;
	uint32_t *site_mark, *fn_mark, *path_mark;
	uint32_t path_marks;
	struct memo_item *scratch;
	uint32_t nscratch, cscratch;
	uint8_t snap_bad;              /* the snapshot missed a count */
	uint64_t miss[MEMO_MISS_WORDS]; /* the logged call's mispredicts, by branch */
	uint32_t miss_words, nbr;
	uint64_t pepoch;               /* predictor changes seen (bpred dirty flags) */
	uint32_t win, win_replayed, skip, backoff;
	uint64_t calls, replayed, shortcut, exact, verified, broken, skipped, mismatch;
	struct cpu_sampled *sm;        /* cost.accounting sampled, else NULL */
};

#define MEMO_HASH_SLOTS (2 * CPU_MEMO_ENTRIES)
#define MEMO_SHORT_SLOTS 8192
/* Where calls seldom repeat a path (locks, clock reads, paths that vary
 * with the data), logging only adds its cost: when fewer than three
 * quarters of a window's top-level calls were replayed, the next ones run exactly
 * without a log, MEMO_SKIP of them, twice as many after each further
 * poor window (up to MEMO_SKIP_MAX), MEMO_SKIP again after a good one.
 * Results do not depend on it. */
#define MEMO_WINDOW 256
#define MEMO_SKIP 4096
#define MEMO_SKIP_MAX (1u << 22)

static int sampled_init(struct cpu *c, const struct cpu_params *p);
static void sampled_free(struct cpu *c);

static int cpu_memo_init(struct cpu *c, const struct cpu_params *p)
{
	const struct cost_tables *t = c->sys->tables;
	struct cpu_memo *m = calloc(1, sizeof *m);
	c->mt = m;
	if (!m)
		return NS_ENOMEM;
	if (p->accounting == CPU_ACCOUNTING_SAMPLED) {
		c->memo = 1;
		return sampled_init(c, p);
	}
	c->mlog = malloc(CPU_MEMO_LOG * sizeof *c->mlog);
	m->e = calloc(CPU_MEMO_ENTRIES, sizeof *m->e);
	m->hash = malloc(MEMO_HASH_SLOTS * sizeof *m->hash);
	m->site_mark = calloc((size_t)t->nr_sites + 1, sizeof *m->site_mark);
	m->fn_mark = calloc((size_t)t->nr_fns + 1, sizeof *m->fn_mark);
	m->short_key = calloc(MEMO_SHORT_SLOTS, sizeof *m->short_key);
	m->short_id = malloc(MEMO_SHORT_SLOTS * sizeof *m->short_id);
	if (!c->mlog || !m->e || !m->hash || !m->site_mark || !m->fn_mark || !m->short_key ||
	    !m->short_id)
		return NS_ENOMEM;
	for (uint32_t i = 0; i < MEMO_SHORT_SLOTS; i++)
		m->short_id[i] = -1;
	for (uint32_t i = 0; i < MEMO_HASH_SLOTS; i++)
		m->hash[i] = -1;
	m->backoff = MEMO_SKIP;
	c->memo = 1;
	return NS_OK;
}

static void cpu_memo_free(struct cpu *c)
{
	struct cpu_memo *m = c->mt;
	free(c->mlog);
	c->mlog = NULL;
	if (!m)
		return;
	sampled_free(c);
	for (uint32_t i = 0; m->e && i < m->nr; i++) {
		free(m->e[i].ev);
		free(m->e[i].cost.items);
	}
	free(m->e);
	free(m->hash);
	free(m->short_key);
	free(m->short_id);
	free(m->site_mark);
	free(m->fn_mark);
	free(m->path_mark);
	free(m->scratch);
	free(m);
	c->mt = NULL;
	c->memo = 0;
	c->fcopy = 0;
}

/*
 * The out-of-order core's state as a call's cost can depend on it
 * besides its events (cost.model ooo): the open chain, the fill buffers'
 * completions (as a multiset: which buffer holds which does not change
 * any cost), the tracked long ops (uops since, completion, load), all
 * relative to the clock and uop count.  A time at or before the last
 * dispatch cycle is 0: nothing can wait for it any more.  Words into w;
 * 0 words in-order; -1 when a time is too far ahead to encode.
 */

static uint64_t memo_rel(const struct cpu *c, uint64_t t, uint64_t x)
{
	return x > t ? x - c->now + 1 : 0;
}

static int memo_ooo_state(const struct cpu *c, uint64_t *w)
{
	if (!c->ooo)
		return 0;
	const struct cpu_ooo *o = &c->o;
	uint64_t t = cpu_ooo_last_cycle(c), fb[CPU_OOO_MAX_MLP];
	int k = 0;
	w[k++] = memo_rel(c, t, o->chain);
	for (uint32_t i = 0; i < o->mlp; i++) {
		/* insertion sort, descending: a dozen buffers */
		uint64_t v = memo_rel(c, t, o->miss[i]);
		uint32_t j = i;
		for (; j > 0 && fb[j - 1] < v; j--)
			fb[j] = fb[j - 1];
		fb[j] = v;
	}
	for (uint32_t i = 0; i < o->mlp; i++)
		w[k++] = fb[i];
	w[k++] = o->n;
	for (uint32_t i = 0; i < o->n; i++) {
		uint32_t r = (o->head + i) % CPU_OOO_RING;
		uint64_t since = o->pos - o->rpos[r], done = memo_rel(c, t, o->rdone[r]);
		if (since >= MEMO_REL_MAX || done >= MEMO_REL_MAX)
			return -1;
		w[k++] = since << 24 | done << 1 | o->rload[r];
	}
	if (w[0] >= MEMO_REL_MAX || fb[0] >= MEMO_REL_MAX)
		return -1;
	for (int i = 0; i < k; i++)
		w[i] = CPU_EV(CPU_EV_STATE, w[i]);
	return k;
}

/* memo_rel() undone: 0 (done) stays 0. */
static uint64_t memo_abs(const struct cpu *c, uint64_t v)
{
	return v ? c->now + v - 1 : 0;
}

/* Whether the n words of state memo_ooo_state() wrote leave nothing
 * pending: every time 0 (done) and no long op. */
static uint8_t memo_ooo_idle(const uint64_t *w, uint32_t n)
{
	uint64_t any = 0;
	for (uint32_t i = 0; i < n; i++)
		any |= w[i] >> 4;
	return n && !any;
}

/* memo_ooo_restore() of an idle state (memo_ooo_idle()). */
static void memo_ooo_clear(struct cpu *c)
{
	struct cpu_ooo *o = &c->o;
	o->chain = 0;
	memset(o->miss, 0, o->mlp * sizeof *o->miss);
	o->n = o->head = o->loads = 0;
}

/* The state memo_ooo_state() wrote, back at the current clock and uop count. */
static void memo_ooo_restore(struct cpu *c, const uint64_t *w)
{
	struct cpu_ooo *o = &c->o;
	uint32_t k = 0;
	o->chain = memo_abs(c, w[k++] >> 4);
	for (uint32_t i = 0; i < o->mlp; i++)
		o->miss[i] = memo_abs(c, w[k++] >> 4);
	o->n = (uint32_t)(w[k++] >> 4);
	o->head = 0;
	o->loads = 0;
	for (uint32_t i = 0; i < o->n; i++) {
		uint64_t v = w[k++] >> 4;
		o->rpos[i] = o->pos - (v >> 24);
		o->rdone[i] = memo_abs(c, v >> 1 & (MEMO_REL_MAX - 1));
		o->rload[i] = v & 1;
		o->loads += v & 1;
	}
}

static uint32_t memo_start_state(const struct cpu *c)
{
	return c->rsb | c->o.slot << 8 | c->o.lslot << 16;
}

bool cpu_memo_begin(struct cpu *c, int fn)
{
	struct cpu_memo *m = c->mt;
	if (m->sm)
		return sampled_begin(c, fn);
	m->calls++;
	if (m->skip) {
		m->skip--;
		m->skipped++;
		return false;
	}
	if (++m->win == MEMO_WINDOW) {
		if (m->win_replayed * 4 < 3 * MEMO_WINDOW) {
			m->skip = m->backoff;
			m->backoff = m->backoff < MEMO_SKIP_MAX ? 2 * m->backoff : MEMO_SKIP_MAX;
		} else {
			m->backoff = MEMO_SKIP;
		}
		m->win = m->win_replayed = 0;
	}
	if (c->lost || m->nr >= CPU_MEMO_ENTRIES)
		return false;
	int k = memo_ooo_state(c, c->mlog + 1);
	if (k < 0)
		return false;
	/* what the exact call would book first: the cycles before it */
	cpu_attribute(c);
	m->start = memo_start_state(c);
	c->mlog_on = 1;
	c->mdepth = 1;
	c->mlog_n = 1 + (uint32_t)k;
	c->mlog[0] = CPU_EV(CPU_EV_CALL, fn);
	return true;
}

/* Account events [0, n) of the log exactly, through the primitives;
 * record: snapshot the call paths entered (for the delta). */
static void memo_path_mark(struct cpu *c);
static void memo_replay(struct cpu *c, bool record, const uint64_t *miss)
{
	uint32_t n = c->mlog_n, b = 0, worst = 0;
	bool all_l1 = true;
	const uint64_t *ev = c->mlog;
	c->mlog_on = 0;
	c->memo = 0;                   /* the replayed top-level call is not logged */
	for (uint32_t i = 0; i < n; i++) {
		uint64_t a = ev[i] >> 4;
		switch ((enum cpu_event)(ev[i] & 15)) {
		case CPU_EV_BRANCH:
			if (miss) {
				/* the predictor has seen this branch (memo_predict) */
				int site = (int)(a >> 1);
				unsigned taken = (unsigned)(a & 1) ^ c->site_layout[site].fallthrough;
				cpu_branch_account(c, site, taken, (miss[b / 64] >> b % 64) & 1);
				b++;
			} else {
				cpu_branch(c, (int)(a >> 1), a & 1);
			}
			break;
		case CPU_EV_CALL:
			cpu_call(c, (int)a);
			if (record)
				memo_path_mark(c);
			break;
		case CPU_EV_RET:
			cpu_ret(c);
			break;
		case CPU_EV_INSNS:
			cpu_insns(c, (uint32_t)a);
			break;
		case CPU_EV_WORK:
			cpu_work(c, (uint32_t)a);
			break;
		case CPU_EV_MEM:
			cpu_mem_l1_again(c, (enum cpu_access)a);
			break;
		case CPU_EV_LINE: {
			enum cache_src src = (enum cache_src)(a & 7);
			uint32_t lat = line_cost(c, src, (int)(a >> 3 & 0x1FFFFF) - 1, (int)(a >> 24));
			all_l1 &= src == CACHE_SRC_L1;
			worst = lat > worst ? lat : worst;
			break;
		}
		case CPU_EV_CHARGE:
			mem_charge(c, (enum cpu_access)a, all_l1, worst);
			all_l1 = true;
			worst = 0;
			break;
		case CPU_EV_ATOMIC:
			atomic_logged(c, (enum cache_src)(a & 7), (int)(a >> 3 & 0x1FFFFF) - 1,
				      (int)(a >> 24));
			break;
		case CPU_EV_STATE:
			break;
		case CPU_EV_IRQ_SAVE:
			cpu_irq_save(c);
			break;
		case CPU_EV_IRQ_RESTORE:
			cpu_irq_restore(c);
			break;
		case CPU_EV_CMPXCHG:
			cpu_this_cpu_cmpxchg(c);
			break;
		}
	}
	c->mlog_n = 0;
	c->memo = 1;
}

void cpu_memo_break(struct cpu *c)
{
	c->mt->broken++;
	memo_replay(c, false, NULL);
}

/*
 * The predictor's verdict on every logged branch, in order, with the
 * predictor trained as the exact run would train it (its state stays
 * exact): bit b of m->miss is branch b's mispredict.  A path's cost is
 * a function of its events, its start state and these bits.
 */
static void memo_predict(struct cpu *c)
{
	struct cpu_memo *m = c->mt;
	uint32_t b = 0;
	memset(m->miss, 0, ((size_t)c->mlog_n / 64 + 1) * sizeof *m->miss);
	for (uint32_t i = 0; i < c->mlog_n; i++) {
		uint64_t ev = c->mlog[i];
		if ((ev & 15) != CPU_EV_BRANCH)
			continue;
		int site = (int)(ev >> 5);
		const struct cost_site_layout *sl = &c->site_layout[site];
		unsigned taken = (unsigned)(ev >> 4 & 1) ^ sl->fallthrough;
		unsigned miss = bpred_predict_update(&c->bp, site, sl->static_taken, taken) ^ taken;
		m->miss[b / 64] |= (uint64_t)miss << b % 64;
		b++;
	}
	m->miss_words = (b + 63) / 64;
	m->nbr = b;
}

static uint64_t memo_key(uint32_t start, const uint64_t *ev, uint32_t n,
			 const uint64_t *miss, uint32_t words)
{
	uint64_t h = (uint64_t)start * 0x9E3779B97F4A7C15u ^ n;
	for (uint32_t i = 0; i < words; i++)
		h = (h ^ miss[i]) * 0xFF51AFD7ED558CCDu;
	/* a few events spread over the log: the memcmp decides */
	for (uint32_t k = 1; k <= 4; k++) {
		h ^= ev[(uint64_t)n * k / 5];
		h *= 0xFF51AFD7ED558CCDu;
		h ^= h >> 29;
	}
	h ^= ev[n - 1];
	h *= 0xC4CEB9FE1A85EC53u;
	return h ^ h >> 32;
}

/* The entry of this log, or -1; *slot: where a new one would go. */
static int32_t memo_find(const struct cpu_memo *m, uint64_t key, uint32_t start,
			 const uint64_t *ev, uint32_t n, uint32_t *slot)
{
	uint32_t h = (uint32_t)key & (MEMO_HASH_SLOTS - 1);
	for (;; h = (h + 1) & (MEMO_HASH_SLOTS - 1)) {
		int32_t id = m->hash[h];
		if (id < 0) {
			*slot = h;
			return -1;
		}
		const struct memo_entry *e = &m->e[id];
		if (e->key == key && e->start == start && e->nev == n &&
		    !memcmp(e->ev, ev, (size_t)n * sizeof *ev) &&
		    !memcmp(e->ev + n, m->miss, m->miss_words * sizeof *ev))
			return id;
	}
}

/* The (up to) three counts an item stands for; unused ones point at
 * spare, whose values nobody reads. */
static void memo_target(struct cpu *c, uint32_t what, uint32_t idx, uint64_t *p[3],
			uint64_t spare[2])
{
	p[1] = &spare[0];
	p[2] = &spare[1];
	switch (what) {
	case MI_CTR:
		p[0] = &c->ctr[idx];
		break;
	case MI_OUTSIDE:
		p[0] = &c->outside;
		break;
	case MI_SITE:
		p[0] = &c->site[idx].executed;
		p[1] = &c->site[idx].taken;
		p[2] = &c->site[idx].mispredicted;
		break;
	case MI_FN:
		p[0] = &c->prof[idx].calls;
		p[1] = &c->prof[idx].self;
		p[2] = &c->prof[idx].total;
		break;
	default:                       /* MI_PATH */
		p[0] = &c->path[idx].calls;
		p[1] = &c->path[idx].self;
		p[2] = &c->path[idx].mispredicts;
		break;
	}
}

/* A new item of the snapshot, holding the counts it stands for now;
 * NULL when out of memory. */
static struct memo_item *memo_snap_item(struct cpu *c, uint32_t what, uint32_t idx);

static struct memo_item *memo_item(struct cpu_memo *m, uint32_t what, uint32_t idx)
{
	if (m->nscratch == m->cscratch) {
		uint32_t cap = m->cscratch ? 2 * m->cscratch : 256;
		struct memo_item *p = realloc(m->scratch, cap * sizeof *p);
		if (!p)
			return NULL;
		m->scratch = p;
		m->cscratch = cap;
	}
	struct memo_item *it = &m->scratch[m->nscratch++];
	*it = (struct memo_item){.what = what, .idx = idx};
	return it;
}

static struct memo_item *memo_snap_item(struct cpu *c, uint32_t what, uint32_t idx)
{
	struct memo_item *it = memo_item(c->mt, what, idx);
	if (it) {
		uint64_t *p[3], spare[2] = {0, 0};
		memo_target(c, what, idx, p, spare);
		for (int j = 0; j < 3; j++)
			it->v[j] = *p[j];
	}
	return it;
}

/* Snapshot of the path just entered (before this call's counts but its
 * own entry: calls - 1), once per exact run. */
static void memo_path_mark(struct cpu *c)
{
	struct cpu_memo *m = c->mt;
	uint32_t p = (uint32_t)c->cur_path;
	if (p == 0)
		return;                        /* snapshot with the others */
	if (p >= m->path_marks) {
		uint32_t cap = c->cap_paths > p ? c->cap_paths : p + 1;
		uint32_t *pm = realloc(m->path_mark, cap * sizeof *pm);
		if (!pm) {
			m->snap_bad = 1;       /* its counts would be missing */
			return;
		}
		memset(pm + m->path_marks, 0, (cap - m->path_marks) * sizeof *pm);
		m->path_mark = pm;
		m->path_marks = cap;
	}
	if (m->path_mark[p] == m->epoch)
		return;
	m->path_mark[p] = m->epoch;
	struct memo_item *it = memo_snap_item(c, MI_PATH, p);
	m->snap_bad |= !it;
	if (it)
		it->v[0]--;                    /* its own entry is this call's */
}

/* Before an exact run: snapshot the counts the logged call can move. */
static bool memo_snapshot(struct cpu *c)
{
	struct cpu_memo *m = c->mt;
	if (++m->epoch == 0) {
		/* the marks wrapped: clear them */
		memset(m->site_mark, 0, ((size_t)c->sys->tables->nr_sites + 1) * sizeof *m->site_mark);
		memset(m->fn_mark, 0, ((size_t)c->sys->tables->nr_fns + 1) * sizeof *m->fn_mark);
		if (m->path_mark)
			memset(m->path_mark, 0, m->path_marks * sizeof *m->path_mark);
		m->epoch = 1;
	}
	m->nscratch = 0;
	m->snap_bad = 0;
	memcpy(m->ctr0, c->ctr, sizeof m->ctr0);
	if (!memo_snap_item(c, MI_OUTSIDE, 0))
		return false;
	for (uint32_t i = 0; i < c->mlog_n; i++) {
		uint64_t ev = c->mlog[i], a = ev >> 4;
		if ((ev & 15) == CPU_EV_BRANCH && m->site_mark[a >> 1] != m->epoch) {
			m->site_mark[a >> 1] = m->epoch;
			if (!memo_snap_item(c, MI_SITE, (uint32_t)(a >> 1)))
				return false;
		} else if ((ev & 15) == CPU_EV_CALL && m->fn_mark[a] != m->epoch) {
			m->fn_mark[a] = m->epoch;
			if (!memo_snap_item(c, MI_FN, (uint32_t)a))
				return false;
		}
	}
	/* the root path (cycles outside any out-of-line function) */
	return memo_snap_item(c, MI_PATH, 0) != NULL;
}

/* After the exact run: the snapshot's items become deltas (zero ones
 * dropped), then the counters'. */
static bool memo_delta(struct cpu *c, struct memo_cost *k)
{
	struct cpu_memo *m = c->mt;
	uint32_t n = 0, nsnap = m->nscratch;
	for (uint32_t i = 0; i < nsnap; i++) {
		struct memo_item it = m->scratch[i];
		uint64_t *p[3], spare[2] = {0, 0};
		memo_target(c, it.what, it.idx, p, spare);
		for (int j = 0; j < 3; j++)
			it.v[j] = *p[j] - it.v[j];
		if (it.v[0] | it.v[1] | it.v[2])
			m->scratch[n++] = it;
	}
	m->nscratch = n;
	for (uint32_t id = 0; id < CPU_NR_COUNTERS; id++) {
		if (c->ctr[id] == m->ctr0[id])
			continue;
		struct memo_item *it = memo_item(m, MI_CTR, id);
		if (!it)
			return false;
		it->v[0] = c->ctr[id] - m->ctr0[id];
		it->v[1] = it->v[2] = 0;
	}
	k->nitems = m->nscratch;
	k->items = m->scratch;
	return true;
}

static bool memo_cost_equal(const struct memo_cost *a, const struct memo_cost *b)
{
	return a->dnow == b->dnow && a->dpos == b->dpos && a->dmisp == b->dmisp &&
	       a->slot == b->slot && a->nend == b->nend &&
	       !memcmp(a->end, b->end, a->nend * sizeof *a->end) &&
	       a->lslot == b->lslot && a->rsb == b->rsb && a->nitems == b->nitems &&
	       !memcmp(a->items, b->items, a->nitems * sizeof *a->items);
}

/* The clock and core state a recorded cost moves (its counts wait for
 * the fold); memo's replays and sampled's fast calls.  nend is 0 only for
 * a sample whose ooo state could not be encoded: the state is left. */
static CPU_INLINE void memo_cost_apply(struct cpu *c, const struct memo_cost *k)
{
	c->now += k->dnow;
	c->last = c->now;
	c->o.pos += k->dpos;
	c->o.slot = k->slot;
	c->o.lslot = k->lslot;
	if (c->ooo && k->idle)
		memo_ooo_clear(c);
	else if (c->ooo && k->nend)
		memo_ooo_restore(c, k->end);
	c->rsb = k->rsb;
	c->mispredicts += k->dmisp;
	c->mispredicts_booked += k->dmisp;
}

static void memo_apply(struct cpu *c, struct memo_entry *e)
{
	memo_cost_apply(c, &e->cost);
	e->pending++;
}

/* Account the logged call exactly and record its cost in entry id (or a
 * new entry at hash slot). */
static int32_t memo_record(struct cpu *c, int32_t id, uint32_t slot, uint64_t key)
{
	struct cpu_memo *m = c->mt;
	uint32_t n = c->mlog_n;
	struct memo_cost k = {0};
	uint64_t now0 = c->now, pos0 = c->o.pos, misp0 = c->mispredicts;
	bool snap = memo_snapshot(c);
	if (id < 0 && snap) {
		/* keep the events and predictions before the replay consumes
		 * the log */
		size_t bytes = ((size_t)n + m->miss_words) * sizeof *c->mlog;
		uint64_t *ev = m->bytes + bytes <= CPU_MEMO_BYTES ? malloc(bytes) : NULL;
		if (ev) {
			memcpy(ev, c->mlog, (size_t)n * sizeof *c->mlog);
			memcpy(ev + n, m->miss, m->miss_words * sizeof *ev);
			id = (int32_t)m->nr++;
			m->e[id] = (struct memo_entry){.key = key, .start = m->start, .nev = n,
						       .nmiss = m->miss_words, .ev = ev};
			m->hash[slot] = id;
			m->bytes += bytes;
		}
	}
	memo_replay(c, snap, m->miss);
	m->exact++;
	/* the cycles up to here are the call's (as cpu_sample_end() says:
	 * an inlined top-level function leaves its last ones unattributed,
	 * and a replay would move the clock by them and put them nowhere);
	 * the exact run puts them where this puts them, on the same attr */
	cpu_attribute(c);
	int nend = memo_ooo_state(c, k.end);
	if (id < 0 || !snap || m->snap_bad || nend < 0 || !memo_delta(c, &k))
		return -1;
	k.nend = (uint32_t)nend;
	k.idle = memo_ooo_idle(k.end, k.nend);
	k.dnow = c->now - now0;
	k.dpos = c->o.pos - pos0;
	k.dmisp = c->mispredicts - misp0;
	k.slot = c->o.slot;
	k.lslot = c->o.lslot;
	k.rsb = c->rsb;
	struct memo_entry *e = &m->e[id];
	if (e->cost.items && memo_cost_equal(&e->cost, &k)) {
		e->stable = 1;
		e->left = CPU_MEMO_VERIFY;
		return id;
	}
	/* a first cost; or a verification that found another one for the
	 * same events, start and predictions, which the design rules out
	 * (counted: the tests require none) */
	m->mismatch += e->cost.items != NULL;
	size_t bytes = k.nitems * sizeof *k.items;
	size_t old = e->cost.nitems * sizeof *e->cost.items;
	if (m->bytes - old + bytes > CPU_MEMO_BYTES) {
		e->stable = 0;
		return -1;
	}
	cpu_memo_fold(c);              /* the pending replays had the old cost */
	struct memo_item *items = realloc(e->cost.items, bytes ? bytes : 1);
	if (!items) {
		e->stable = 0;
		return -1;
	}
	memcpy(items, k.items, bytes);
	m->bytes = m->bytes - old + bytes;
	e->cost = k;
	e->cost.items = items;
	e->stable = 1;
	e->left = CPU_MEMO_VERIFY;
	return id;
}

/* The shortcut's key: start state, events and the global history. */
static uint64_t memo_short_key(uint32_t start, const uint64_t *ev, uint32_t n,
			       const struct bpred *bp)
{
	uint64_t h = bp->ghist ^ (uint64_t)bp->hist << 32;
	return memo_key(start, ev, n, &h, 1) | 1;
}

/* The shortcut applies: same history, nothing changed in the predictor
 * since the entry's last (pure) prediction, and TAGE's usefulness decay
 * not due within the path. */
static bool memo_short_ok(const struct cpu *c, const struct memo_entry *e)
{
	const struct bpred *bp = &c->bp;
	return e->pure && e->epoch == c->mt->pepoch && bpred_hist_same(bp, &e->h0) &&
	       (bp->mode != BPRED_TAGE || bp->updates + e->nbr < BPRED_TAGE_U_PERIOD);
}

void cpu_memo_end(struct cpu *c)
{
	struct cpu_memo *m = c->mt;
	struct bpred *bp = &c->bp;
	if (c->mlog_on == CPU_LOG_FAST) {
		sampled_end(c);
		return;
	}
	uint32_t n = c->mlog_n, slot = 0;
	c->mlog_on = 0;
	/* the predictor changes since the last top-level call */
	m->pepoch += bp->dirty;
	bp->dirty = 0;
	uint64_t k2 = memo_short_key(m->start, c->mlog, n, bp);
	uint32_t s2 = (uint32_t)k2 & (MEMO_SHORT_SLOTS - 1);
	int32_t id = m->short_key[s2] == k2 ? m->short_id[s2] : -1;
	if (id >= 0) {
		struct memo_entry *e = &m->e[id];
		if (memo_short_ok(c, e) && e->stable && e->left && e->start == m->start &&
		    e->nev == n && !memcmp(e->ev, c->mlog, (size_t)n * sizeof *c->mlog)) {
			/* the predictor would predict as last time and change
			 * nothing but its history (and TAGE's update count) */
			e->left--;
			bpred_hist_set(bp, &e->h1);
			m->shortcut++;
			if (bp->mode == BPRED_TAGE)
				bp->updates += e->nbr;
			memo_apply(c, e);
			c->mlog_n = 0;
			m->replayed++;
			m->win_replayed++;
			return;
		}
	}
	struct bpred_hist h0;
	bpred_hist_get(bp, &h0);
	memo_predict(c);
	uint64_t key = memo_key(m->start, c->mlog, n, m->miss, m->miss_words);
	id = memo_find(m, key, m->start, c->mlog, n, &slot);
	if (id >= 0 && m->e[id].stable && m->e[id].left) {
		m->e[id].left--;
		memo_apply(c, &m->e[id]);
		c->mlog_n = 0;
		m->replayed++;
		m->win_replayed++;
	} else {
		if (id >= 0 && m->e[id].stable)
			m->verified++;
		id = memo_record(c, id, slot, key);
	}
	if (id >= 0) {
		struct memo_entry *e = &m->e[id];
		e->pure = !bp->dirty;
		e->nbr = m->nbr;
		e->h0 = h0;
		bpred_hist_get(bp, &e->h1);
		m->pepoch += bp->dirty;
		bp->dirty = 0;
		e->epoch = m->pepoch;
		if (e->pure) {
			m->short_key[s2] = k2;
			m->short_id[s2] = id;
		}
	}
}

void cpu_memo_fold(struct cpu *c)
{
	struct cpu_memo *m = c->mt;
	if (!m)
		return;
	if (m->sm) {
		sampled_fold(c);
		sampled_fold_sites(c);
		return;
	}
	for (uint32_t i = 0; i < m->nr; i++) {
		struct memo_entry *e = &m->e[i];
		uint64_t r = e->pending;
		if (!r)
			continue;
		e->pending = 0;
		for (uint32_t j = 0; j < e->cost.nitems; j++) {
			const struct memo_item *it = &e->cost.items[j];
			uint64_t *p[3], spare[2] = {0, 0};
			memo_target(c, it->what, it->idx, p, spare);
			for (int v = 0; v < 3; v++)
				*p[v] += r * it->v[v];
		}
	}
}

/* Every count of cost k names a real counter, site, function or path. */
static bool memo_cost_ok(const struct cpu *c, const struct memo_cost *k)
{
	const struct cost_tables *t = c->sys->tables;
	for (uint32_t j = 0; j < k->nitems; j++) {
		const struct memo_item *it = &k->items[j];
		uint32_t lim = it->what == MI_CTR    ? CPU_NR_COUNTERS
			       : it->what == MI_SITE ? (uint32_t)t->nr_sites
			       : it->what == MI_FN   ? (uint32_t)t->nr_fns
			       : it->what == MI_PATH ? c->nr_paths
						     : 1;
		if (it->what > MI_OUTSIDE || it->idx >= lim)
			return false;
	}
	return true;
}

/* The table's invariants: every hash slot and shortcut names an entry
 * whose key hashes there (the shortcut: any entry), every entry is in
 * the hash once, its events fit the log, its counts name real counters,
 * sites, functions and paths, and its bytes are accounted. */
static int memo_check(const struct cpu *c)
{
	const struct cpu_memo *m = c->mt;
	if (!m)
		return c->memo || c->mlog_on ? NS_EINTERNAL : NS_OK;
	if (m->sm)
		return c->mlog_on ? NS_EINTERNAL : sampled_check(c);
	if (m->nr > CPU_MEMO_ENTRIES || c->mlog_on)
		return NS_EINTERNAL;
	uint32_t in_hash = 0;
	size_t bytes = 0;
	for (uint32_t h = 0; h < MEMO_HASH_SLOTS; h++) {
		int32_t id = m->hash[h];
		if (id < -1 || id >= (int32_t)m->nr)
			return NS_EINTERNAL;
		in_hash += id >= 0;
	}
	for (uint32_t i = 0; i < MEMO_SHORT_SLOTS; i++)
		if (m->short_id[i] < -1 || m->short_id[i] >= (int32_t)m->nr)
			return NS_EINTERNAL;
	for (uint32_t id = 0; id < m->nr; id++) {
		const struct memo_entry *e = &m->e[id];
		if (!e->ev || e->nev < 2 || e->nev > CPU_MEMO_LOG || e->pending)
			return NS_EINTERNAL;
		bytes += ((size_t)e->nev + e->nmiss) * sizeof *e->ev;
		bytes += e->cost.nitems * sizeof *e->cost.items;
		if (!memo_cost_ok(c, &e->cost))
			return NS_EINTERNAL;
	}
	return in_hash == m->nr && bytes == m->bytes ? NS_OK : NS_EINTERNAL;
}

/* Forget every path (their pending counts folded first). */
static void cpu_memo_clear(struct cpu *c)
{
	struct cpu_memo *m = c->mt;
	if (!m)
		return;
	cpu_memo_fold(c);
	if (m->sm) {
		sampled_forget(m->sm, c->sys->tables);
		return;
	}
	for (uint32_t i = 0; i < m->nr; i++) {
		free(m->e[i].ev);
		free(m->e[i].cost.items);
	}
	memset(m->e, 0, CPU_MEMO_ENTRIES * sizeof *m->e);
	m->nr = 0;
	m->bytes = 0;
	for (uint32_t i = 0; i < MEMO_HASH_SLOTS; i++)
		m->hash[i] = -1;
	for (uint32_t i = 0; i < MEMO_SHORT_SLOTS; i++)
		m->short_id[i] = -1;
}

void cpu_memo_stats_format(const struct cpu_memo_stats *st, char *buf, size_t n)
{
	if (st->sampled) {
		char win[64] = "";     /* only under cost.sample_window */
		if (st->warmed)
			snprintf(win, sizeof win, ", %" PRIu64 " warmed before a sample",
				 st->warmed);
		int k = snprintf(buf, n,
			 "%" PRIu64 " of %" PRIu64 " top-level calls fast (%" PRIu64 " in the models' "
			 "fast copy%s), %" PRIu64 " samples, %" PRIu64
			 " exact (their function reads the clock), %" PRIu64 " paths; %.2f %% of the "
			 "fast ones charged their path's latest sample, %" PRIu64
			 " (a path not sampled yet) its blocks' mean costs (%.1f %% of those "
			 "cycles booked to the functions that ran the blocks, the paths of "
			 "%.1f %% of those calls counted)",
			 st->fast, st->calls, st->copied, win, st->samples, st->exact, st->paths,
			 st->fast ? 100.0 * (double)st->matched / (double)st->fast : 0.0, st->lost,
			 st->lost_cycles ? 100.0 * (double)st->lost_placed / (double)st->lost_cycles
					 : 0.0,
			 st->lost ? 100.0 * (double)st->lost_calls_booked / (double)st->lost : 0.0);
		double lk = (double)(st->lock_path + st->lock_site + st->lock_remote +
				     st->lock_own);
		if (lk > 0 && k > 0 && (size_t)k < n)
			snprintf(buf + k, n - (size_t)k,
				 "; their lock waits and transfers, %.1f M cycles, booked "
				 "%.1f %% where their path's sample took a lock, %.1f %% where "
				 "other samples of their function took one (their path has no "
				 "sample, or its sample took no lock of that class), %.1f %% "
				 "where another CPU's did (none on theirs yet), %.1f %% "
				 "as the top-level function's own",
				 lk / 1e6, 100.0 * (double)st->lock_path / lk,
				 100.0 * (double)st->lock_site / lk,
				 100.0 * (double)st->lock_remote / lk, 100.0 * (double)st->lock_own / lk);
		return;
	}
	snprintf(buf, n,
		 "%.2f %% of %" PRIu64 " top-level calls replayed (%.2f %% without the predictor), %"
		 PRIu64 " paths, %" PRIu64 " verifications, %" PRIu64 " broken off, %" PRIu64
		 " not logged",
		 st->calls ? 100.0 * (double)st->replayed / (double)st->calls : 0.0, st->calls,
		 st->calls ? 100.0 * (double)st->shortcut / (double)st->calls : 0.0, st->paths,
		 st->verified, st->broken, st->skipped);
}

void cpu_memo_stats(const struct cpu_sys *s, struct cpu_memo_stats *st)
{
	memset(st, 0, sizeof *st);
	for (int i = 0; i < s->nr_cpus; i++) {
		const struct cpu_memo *m = s->cpu[i].mt;
		if (!m)
			continue;
		if (m->sm) {
			sampled_stats_add(m->sm, st);
			continue;
		}
		st->calls += m->calls;
		st->skipped += m->skipped;
		st->replayed += m->replayed;
		st->shortcut += m->shortcut;
		st->exact += m->exact;
		st->verified += m->verified;
		st->broken += m->broken;
		st->mismatch += m->mismatch;
		st->paths += m->nr;
	}
}

/* --- sampled accounting (cost.accounting sampled) ------------------------ */

/*
 * Design notes.  An approximation, for runs where exact accounting is too
 * slow, in the manner of SMARTS (Wunderlich et al., ISCA 2003): some
 * top-level calls ("samples", one in sample_period on average, at random
 * intervals so that a periodic workload is not sampled in step with
 * itself, and the first sample_period calls of each CPU, whose caches
 * are cold) are accounted exactly; the others ("fast" calls) run the
 * model's control flow with every primitive reduced to almost nothing.
 * A fast call counts its branches (executed, taken) and calls, adds each
 * branch's term to its path signature and its block's mean cost to an
 * estimate; with warming (sample_warm caches, the default) its memory
 * accesses are performed on the caches, as SMARTS's functional warming
 * keeps them current, so that the samples find the lines where the
 * exact run would (sample_warm stores: only its stores and locked ops,
 * which keep the coherence directory and the writers' caches current).
 * The predictor is not trained by fast calls (it
 * learns from the samples only: measured, training it as well moved
 * the first seed's rows by less than the sampling does and cost a
 * third more host time).  At a fast call's return its signature (the
 * top-level function, the multiset of (site, condition) and of the
 * calls it made, the locks it took: a sum of random 64-bit terms) is
 * looked up among the samples: a sampled path adds its latest sample's
 * cost (clock, core state, and its counter, mispredict and profile
 * deltas, folded at export as memo folds its replays).  A path not
 * sampled yet ("lost") adds the estimate: per (site, condition) the
 * mean cycles from the previous branch in the samples, and the
 * function's mean tail, booked where the samples ran those blocks ("Lost
 * paths along their functions"), without cache or mispredict counts;
 * the next call is then a sample.
 *
 * What is approximate: a fast call costs what its path's latest sample
 * cost, from another start state, other lines (without warming, also
 * other cache contents: the fast calls leave them as they were), other
 * predictions; inside a fast call the clock does not move, so its locks
 * are taken and released at an estimate of its time ("Lock waits").  A
 * function whose calls read the clock or the
 * counts (cpu_now(), cpu_memo_sync()) is sampled at every call from its
 * first fast call that did.  Samples are exact from the state they find;
 * with sample_period 1 every call is a sample and the results are
 * exact's.  docs/cost-model.md §10 gives the measured differences.
 */
#define SAMPLED_ENTRIES 4096           /* sampled paths per CPU at most */
#define SAMPLED_SLOTS (2 * SAMPLED_ENTRIES)

/* The counters whose counts join a path's signature after its branches
 * and calls: the locks taken.  (Where lines came from is left out: with
 * warming it would split a path into one per pattern of misses, too many
 * to sample, while the path's samples see the misses as they come.) */
static const enum cpu_counter sig_ctr[] = {CPU_CTR_lock_acquire};
_Static_assert(sizeof sig_ctr / sizeof sig_ctr[0] == SIG_TERMS, "a counter per term");

/* Where a sample took its first lock: the function spinning there (the
 * innermost out-of-line one, c->attr; -1: none, outside), its call path,
 * and the functions whose outermost activation was on the stack (a wait
 * counts in their totals).  valid 0: the sample took no lock, or its
 * stack held more than SAMPLED_LOCK_FRAMES such functions. */
#define SAMPLED_LOCK_FRAMES 16
struct sampled_lock_at {
	uint8_t valid, nout;
	int32_t attr, path;
	int32_t out[SAMPLED_LOCK_FRAMES];
	const struct cpu_lock *lock;   /* the lock taken there */
	const char *cls;               /* its class (struct cpu_lock) */
};

/* Lock classes whose lock edges are learnt apart ("Lock edges"); the
 * first slot takes the locks of no class and those past the last. */
#define SAMPLED_EDGE_CLASSES 8

/* A fast call's lock costs at one lock (fast_lock_note()). */
#define SAMPLED_CALL_LOCKS 4           /* locks a fast call books apart */
struct sampled_call_lock {
	const struct cpu_lock *lock;
	uint64_t x;
};

/* Where the samples of a top-level function took a lock, by (lock,
 * function): for the lock costs of a fast call whose path has no record
 * of its own, a lost path's (fast_lock_book()).  Found by equality, not
 * by the lock's host address hashed (the host's addresses must not decide
 * where a cycle is booked); when all are in use they are replaced in
 * turn.  A CPU with no record for the function takes another CPU's
 * (lock_site_remote()): when is that sample's clock, which orders the
 * records of different CPUs. */
#define SAMPLED_LOCK_SITES 16
struct sampled_lock_site {
	int32_t fn;
	uint64_t seq;                  /* when written (cpu_sampled.lsite_seq) */
	uint64_t when;                 /* the writing sample's clock */
	struct sampled_lock_at at;
};

/* The calls a frame made, as call contexts, from one of its branches
 * (or its entry) to its next branch: the straight-line code there makes
 * the same calls each time (over: more than fit, or one had no
 * context).  Per (site, condition), the record of the latest sample
 * under top-level function top1 - 1, with the context its frame had (-2:
 * unknown); SAMPLED_TOPS records per (site, condition), for the
 * top-level functions that share a function (__mod_zone_page_state under
 * an allocation and under a free). */
#define SAMPLED_AFTER 8
#define SAMPLED_TOPS 4
#define SAMPLED_SPLIT 4
struct sampled_after {
	int32_t top1, ctx;             /* top + 1 (0: unused) */
	int32_t node[SAMPLED_AFTER];
	uint8_t n, over;
	/* the cycles of the blocks that ended at the branch, by the
	 * context they ran in, summed over the samples (struct
	 * sampled_part); past SAMPLED_SPLIT contexts, in the last */
	uint32_t nsplit;
	int32_t sctx[SAMPLED_SPLIT];
	uint64_t ssum[SAMPLED_SPLIT];
	uint32_t nvis, vmark;          /* the samples that wrote it (the
					  latest's mark): from SAMPLED_MATURE
					  on, it stays */
};
/* The samples a record learns from: the calls it keeps are the same each
 * time, and learning from 16 samples or from every one gave the same
 * misbooked shares of tiny-fill's and the first seed's profiles within
 * 0.05 point (cost-model.md §10; from 4, test_sampled_lost_along_functions'
 * outer_fn was 2.8 % off, from 16 1.5 %, as from all); past them a
 * sample's branch costs a lookup, not a record's upkeep (a CPU of `bench
 * messaging`'s 72 takes about 100 samples). */
#define SAMPLED_MATURE 16

/* A part of the block a sample is in: cycles run in one context. */
struct sampled_part {
	int32_t ctx;
	uint64_t cycles;
};

/* A call context of the samples: a frame's function under its parent's
 * context (-1: a top-level call), with where its cycles go (attr: the
 * innermost out-of-line function, -1 outside; path), whether it is the
 * outermost frame of its function (its cycles count in its total) and
 * the top-level function it is under. */
#define SAMPLED_CTXS 256            /* the models' runs use at most 64 */
struct sampled_ctx {
	int32_t parent, fn, attr, path, top;
	uint8_t outer, inl;
	struct sampled_after entry;    /* its calls before its first branch */
};

/* The (site, condition)s the samples of a top-level function ran. */
struct sampled_sites {
	uint32_t *i, n, cap;
};

/* What a lost call books per context, summed before booking. */
struct sampled_acc {
	uint64_t cycles, calls;
};

/* One (site, condition) a lost call executed d times, and its record
 * under the call's function (NULL: none). */
struct sampled_lost_count {
	uint32_t i;
	uint64_t d;
	const struct sampled_after *a;
};

/* A (site, condition) a path runs n times. */
struct sampled_count {
	uint32_t i, n;
};

struct sampled_entry {
	uint64_t sig;
	int32_t fn;
	uint64_t pending;              /* fast calls charged, not yet folded */
	uint64_t psync;                /* pending less the fast calls charged
					  since the branch counts' last sync
					  (lost_counts(); modulo 2^64) */
	struct memo_cost cost;
	struct sampled_lock_at lock;   /* where its fast calls book their lock
					  costs (fast_lock_book()) */
	struct sampled_count *sc;      /* its (site, condition) counts, for
					  lost_counts() (NULL: none, or out of
					  memory: a lost call's check fails) */
	uint32_t nsc;
};

struct cpu_sampled {
	uint32_t period, countdown;
	uint32_t warmup;               /* the first calls are all samples */
	/* cost.sample_window: a fast call with at most this many calls left
	 * before the next due sample warms as under caches; warm / warm_loads
	 * are the mode's own c->fwarm / c->fwarm_loads */
	uint32_t window;
	uint8_t warm, warm_loads;
	uint64_t warmed;               /* fast calls the window warmed */
	uint64_t rng;                  /* the intervals between samples */
	uint8_t force;                 /* the next top-level call is a sample */
	uint8_t spoiled;               /* a fold inside the sample moved its counts */
	int32_t fn;                    /* the top-level call's function */
	uint64_t *stab;                /* the signature terms (high 32 bits;
					* c->fsite[].term's): per
					* (site, condition), then per function
					* (c->stab_fn), then per sig_ctr[] */
	struct sampled_entry *e;
	uint32_t nr;
	int32_t *hash;                 /* [SAMPLED_SLOTS], -1 = empty */
	uint8_t *exact_fn;             /* [nr_fns]: its calls read the clock: all samples */
	int32_t *hit;                  /* [nr_fns]: the entry its last fast call found, or -1 */
	/* block costs: the cycles from a sample's previous branch (or its
	 * start) to each branch, by (site, condition), and from its last
	 * branch to its return, by function; mean x16 in fsite[].term's low
	 * 32 bits */
	uint64_t *bsum, *bn, *tsum, *tn;
	struct cpu_fast_site *fsite;   /* c->fsite */
	uint64_t tlast;
	/* the snapshot a sample's delta is taken against */
	uint64_t now0, pos0, misp0, outside0;
	uint64_t ctr0[CPU_NR_COUNTERS];
	struct cpu_site_stat *site0;
	struct cpu_prof *prof0;
	struct cpu_path *path0;
	uint32_t npath0, cpath0;
	/* the sites and functions the sample being taken touched, in the
	 * order it touched them (cpu_sample_branch(), cpu_sample_call()):
	 * its delta visits these only, not every site and function (which
	 * was 9 % of `bench messaging`'s host instructions under stores);
	 * touched[i] == mark for one touched in this sample */
	uint32_t *tsite, *tfn, ntsite, ntfn;
	uint32_t *site_touched, *fn_touched, mark;
	/* the same for call paths ([cpath0]); a touched item's baseline is
	 * copied when it is first touched, from its value less what the
	 * touching step added (cpu_sample_branch(), cpu_sample_call()), so
	 * that a sample does not copy every site, function and path at its
	 * start: that copy and the scan of every path were a tenth of `bench
	 * messaging`'s host time (most of its cache misses) */
	uint32_t *tpath, *path_touched, ntpath;
	struct sampled_lock_at lock;   /* the sample being taken's first lock */
	struct sampled_lock_site lsite[SAMPLED_LOCK_SITES];
	uint32_t nlsite, lsite_next;   /* in use; the next to replace */
	uint64_t lsite_seq;            /* records written */
	uint64_t calls, fast, matched, lost, samples, exact, copied;
	/* fast calls' lock cycles by where they were booked (struct
	 * cpu_memo_stats, fast_lock_book()) */
	uint64_t lock_path, lock_site, lock_remote, lock_own;
	struct sampled_call_lock fl[SAMPLED_CALL_LOCKS]; /* the fast call's */
	uint32_t nfl;
	/* the cycles from a sample's previous branch (or lock edge) to its
	 * lock and unlock calls, by edge and lock class ("Lock edges") */
	uint64_t edge_sum[2][SAMPLED_EDGE_CLASSES], edge_n[2][SAMPLED_EDGE_CLASSES];
	uint64_t edge_mean[2][SAMPLED_EDGE_CLASSES]; /* x16, for fast calls */
	const char *edge_cls[SAMPLED_EDGE_CLASSES];
	uint64_t flk;                  /* the fast call's lock terms of fsig:
					  signature and edge means (cpu_lock()),
					  when flk_call is its number (calls) */
	uint64_t flk_call;

	/* where a lost path's blocks ran ("Lost paths along their
	 * functions"): the samples' call contexts, the context of each
	 * (site, condition)'s latest sampled branch and the calls after it */
	struct sampled_ctx *ctx;       /* [SAMPLED_CTXS] */
	int32_t *ctx_hash;             /* [2 * SAMPLED_CTXS], id + 1, 0 empty */
	uint32_t nctx;
	int32_t cur;                   /* the sample's context (-1 outside) */
	int32_t *cstk;                 /* the contexts of its frames, by depth */
	struct sampled_after **rstk;   /* the records their calls join */
	struct sampled_after **rp;     /* [2 * nr_sites * SAMPLED_TOPS]: the
					  (site, condition)s' records */
	struct sampled_after **rchunk; /* the records, SAMPLED_RCHUNK a chunk
					  (their addresses do not move) */
	uint32_t nrec, nrchunk;
	struct sampled_after *tail;    /* [nr_fns]: the tails' split */
	uint32_t after_next;           /* the next record replaced */
	uint64_t *nb;                  /* [2 * nr_sites]: fsite[].n at the sync */
	uint32_t *slist, nslist;       /* the entries charged since the sync
					  (psync != pending) */
	struct sampled_lost_count *lc; /* [2 * nr_sites]: a lost call's counts */
	struct sampled_sites *fsites;  /* [nr_fns]: by top-level function */
	struct sampled_acc *acc;       /* [SAMPLED_CTXS] */
	int32_t *accl;                 /* the contexts with acc, in order */
	uint32_t nacc;
	struct sampled_part part[SAMPLED_SPLIT]; /* the block's so far */
	uint32_t npart;
	uint64_t pmark;                /* where the current part started */
	uint64_t lost_cycles, lost_placed, lost_calls_booked;
};

/*
 * Lock edges.  A fast call's clock moves at its branches, by the mean
 * cost of the block each ends.  At a spin_lock or spin_unlock between
 * two branches it stood at the last branch: early by the part of the
 * block already run and, under ooo, by the fence of spin_lock's locked
 * cmpxchg, which drains the ops still in flight.  The block that ends at
 * the next branch, inside the critical section, had those cycles in its
 * mean, so a fast call both tried for a lock too early (and waited too
 * long for another CPU's release) and held it too long: on the second
 * seed its estimated hold was 288 cycles against 195 in samples of the
 * same run.  So a sample also ends a block at each lock, after the
 * fence, and at each unlock (edges 0 and 1), learning the mean cycles
 * from its previous branch or edge, by the lock's class; a fast call
 * adds that mean to its clock there (the low half of fsig, as a block's
 * mean).  The path signature does not change.
 */
static uint32_t lock_edge_slot(struct cpu_sampled *sm, const struct cpu_lock *l)
{
	for (uint32_t i = 1; l->cls && i < SAMPLED_EDGE_CLASSES; i++) {
		if (sm->edge_cls[i] == l->cls)
			return i;
		if (!sm->edge_cls[i]) {
			sm->edge_cls[i] = l->cls;
			return i;
		}
	}
	return 0;
}

/* A sample at edge e of lock l: the cycles since its previous branch or
 * edge. */
static void sample_lock_edge(struct cpu *c, const struct cpu_lock *l, int e)
{
	struct cpu_sampled *sm = c->mt->sm;
	uint32_t k = lock_edge_slot(sm, l);
	sm->npart = 0;                 /* (a lost call's edges are its own) */
	sm->pmark = c->now;
	sm->edge_sum[e][k] += c->now - sm->tlast;
	sm->edge_n[e][k]++;
	sm->edge_mean[e][k] = sm->edge_sum[e][k] * 16 / sm->edge_n[e][k];
	sm->tlast = c->now;
}

/* A fast call at edge e of lock l: the mean of those cycles, x16, for the
 * low half of fsig. */
static uint64_t fast_lock_edge(struct cpu *c, const struct cpu_lock *l, int e)
{
	struct cpu_sampled *sm = c->mt->sm;
	return sm->edge_mean[e][lock_edge_slot(sm, l)];
}

static uint64_t splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9E3779B97F4A7C15u);
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9u;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBu;
	return z ^ (z >> 31);
}

static int sampled_init(struct cpu *c, const struct cpu_params *p)
{
	const struct cost_tables *t = c->sys->tables;
	struct cpu_sampled *sm = calloc(1, sizeof *sm);
	c->mt->sm = sm;
	if (!sm)
		return NS_ENOMEM;
	size_t nterms = 2 * (size_t)t->nr_sites + (size_t)t->nr_fns + SIG_TERMS;
	sm->stab = malloc(nterms * sizeof *sm->stab);
	sm->e = calloc(SAMPLED_ENTRIES, sizeof *sm->e);
	sm->hash = malloc(SAMPLED_SLOTS * sizeof *sm->hash);
	sm->exact_fn = calloc((size_t)t->nr_fns + 1, 1);
	sm->hit = malloc(((size_t)t->nr_fns + 1) * sizeof *sm->hit);
	sm->bsum = calloc(2 * (size_t)t->nr_sites + 1, sizeof *sm->bsum);
	sm->bn = calloc(2 * (size_t)t->nr_sites + 1, sizeof *sm->bn);
	sm->fsite = calloc(2 * (size_t)t->nr_sites + 1, sizeof *sm->fsite);
	sm->tsum = calloc((size_t)t->nr_fns + 1, sizeof *sm->tsum);
	sm->tn = calloc((size_t)t->nr_fns + 1, sizeof *sm->tn);
	sm->site0 = calloc((size_t)t->nr_sites + 1, sizeof *sm->site0);
	sm->prof0 = calloc((size_t)t->nr_fns + 1, sizeof *sm->prof0);
	sm->tsite = calloc((size_t)t->nr_sites + 1, sizeof *sm->tsite);
	sm->site_touched = calloc((size_t)t->nr_sites + 1, sizeof *sm->site_touched);
	sm->tfn = calloc((size_t)t->nr_fns + 1, sizeof *sm->tfn);
	sm->fn_touched = calloc((size_t)t->nr_fns + 1, sizeof *sm->fn_touched);
	size_t ns = 2 * (size_t)t->nr_sites + 1;
	sm->ctx = malloc(SAMPLED_CTXS * sizeof *sm->ctx); /* (set as created) */
	sm->ctx_hash = calloc(2 * SAMPLED_CTXS, sizeof *sm->ctx_hash);
	sm->cstk = calloc((size_t)c->max_depth + 1, sizeof *sm->cstk);
	sm->rstk = calloc((size_t)c->max_depth + 1, sizeof *sm->rstk);
	sm->rp = calloc(ns * SAMPLED_TOPS, sizeof *sm->rp);
	sm->tail = calloc((size_t)t->nr_fns + 1, sizeof *sm->tail);
	sm->fsites = calloc((size_t)t->nr_fns + 1, sizeof *sm->fsites);
	sm->acc = calloc(SAMPLED_CTXS, sizeof *sm->acc);
	sm->accl = malloc(SAMPLED_CTXS * sizeof *sm->accl);
	sm->nb = calloc(ns, sizeof *sm->nb);
	sm->slist = malloc(SAMPLED_ENTRIES * sizeof *sm->slist);
	sm->lc = malloc(ns * sizeof *sm->lc);
	if (!sm->stab || !sm->e || !sm->hash || !sm->exact_fn || !sm->hit || !sm->site0 ||
	    !sm->prof0 || !sm->bsum || !sm->bn || !sm->fsite || !sm->tsum || !sm->tn ||
	    !sm->tsite || !sm->site_touched || !sm->tfn || !sm->fn_touched || !sm->ctx ||
	    !sm->ctx_hash || !sm->cstk || !sm->rstk || !sm->rp || !sm->tail || !sm->fsites ||
	    !sm->acc || !sm->accl || !sm->nb || !sm->slist || !sm->lc)
		return NS_ENOMEM;
	uint64_t x = 0x6E756D6173696Du;   /* the same terms on every CPU and run */
	for (size_t i = 0; i < nterms; i++)
		sm->stab[i] = splitmix64(&x) & CPU_SIG_MASK;
	for (size_t i = 0; i < 2 * (size_t)t->nr_sites; i++)
		sm->fsite[i].term = sm->stab[i];
	sampled_forget(sm, t);
	sm->period = p->sample_period;
	sm->countdown = 1;
	sm->warmup = p->sample_period;
	sm->rng = 0x53414D504C45u ^ (uint64_t)c->idx << 32;
	c->fsite = sm->fsite;
	c->stab_fn = sm->stab + 2 * t->nr_sites;
	c->fwarm = p->sample_warm != CPU_WARM_NONE;
	c->fwarm_loads = p->sample_warm == CPU_WARM_CACHES;
	sm->warm = c->fwarm;
	sm->warm_loads = c->fwarm_loads;
	sm->window = c->fwarm_loads ? 0 : p->sample_window;  /* caches: all warm already */
	c->fcopy = 1;
	return NS_OK;
}

static void sampled_forget(struct cpu_sampled *sm, const struct cost_tables *t)
{
	/* only the entries in use: the others are still as calloc() left
	 * them (every forget clears what was used since the one before), so
	 * a CPU's table costs only the pages its paths touch (a 72-CPU
	 * world's tables are about 2 MB a CPU) */
	for (uint32_t i = 0; i < sm->nr; i++) {
		free(sm->e[i].cost.items);
		free(sm->e[i].sc);
	}
	memset(sm->e, 0, sm->nr * sizeof *sm->e);
	sm->nr = 0;
	for (uint32_t i = 0; i < SAMPLED_SLOTS; i++)
		sm->hash[i] = -1;
	for (int i = 0; i <= t->nr_fns; i++)
		sm->hit[i] = -1;
	size_t nb = 2 * (size_t)t->nr_sites + 1, nf = (size_t)t->nr_fns + 1;
	memset(sm->bsum, 0, nb * sizeof *sm->bsum);
	memset(sm->bn, 0, nb * sizeof *sm->bn);
	for (size_t i = 0; i + 1 < nb; i++)
		sm->fsite[i].term = sm->stab[i];
	memset(sm->tsum, 0, nf * sizeof *sm->tsum);
	memset(sm->tn, 0, nf * sizeof *sm->tn);
	sm->nlsite = sm->lsite_next = 0;
	/* the contexts and the records that name them are of the old
	 * layout's paths and inlining (the branch counts were folded:
	 * nothing is pending); none exists before a sample's first call */
	if (sm->nctx) {
		memset(sm->ctx_hash, 0, 2 * SAMPLED_CTXS * sizeof *sm->ctx_hash);
		memset(sm->rp, 0, nb * SAMPLED_TOPS * sizeof *sm->rp);
		memset(sm->tail, 0, nf * sizeof *sm->tail);
		for (size_t i = 0; i < nf; i++)
			sm->fsites[i].n = 0;
		sm->nctx = sm->nrec = 0;
	}
}

static void sampled_free(struct cpu *c)
{
	struct cpu_sampled *sm = c->mt->sm;
	if (!sm)
		return;
	for (uint32_t i = 0; sm->e && i < sm->nr; i++) {
		free(sm->e[i].cost.items);
		free(sm->e[i].sc);
	}
	free(sm->stab);
	free(sm->e);
	free(sm->hash);
	free(sm->exact_fn);
	free(sm->hit);
	free(sm->bsum);
	free(sm->bn);
	free(sm->fsite);
	free(sm->tsum);
	free(sm->tn);
	free(sm->site0);
	free(sm->prof0);
	free(sm->path0);
	free(sm->tsite);
	free(sm->site_touched);
	free(sm->tfn);
	free(sm->fn_touched);
	free(sm->tpath);
	free(sm->path_touched);
	free(sm->ctx);
	free(sm->ctx_hash);
	free(sm->cstk);
	free(sm->rstk);
	free(sm->tail);
	for (int i = 0; sm->fsites && i <= c->sys->tables->nr_fns; i++)
		free(sm->fsites[i].i);
	free(sm->fsites);
	free(sm->acc);
	free(sm->accl);
	free(sm->rp);
	for (uint32_t i = 0; i < sm->nrchunk; i++)
		free(sm->rchunk[i]);
	free(sm->rchunk);
	free(sm->nb);
	free(sm->slist);
	free(sm->lc);
	free(sm);
	c->mt->sm = NULL;
	c->fsite = NULL;
	c->stab_fn = NULL;
}

static uint32_t sampled_slot(uint64_t sig)
{
	return (uint32_t)(sig ^ sig >> 29) & (SAMPLED_SLOTS - 1);
}

/* The entry of (fn, sig), or -1; *slot: where a new one would go. */
static int32_t sampled_find(const struct cpu_sampled *sm, int32_t fn, uint64_t sig,
			    uint32_t *slot)
{
	for (uint32_t h = sampled_slot(sig);; h = (h + 1) & (SAMPLED_SLOTS - 1)) {
		int32_t id = sm->hash[h];
		if (id < 0) {
			*slot = h;
			return -1;
		}
		if (sm->e[id].sig == sig && sm->e[id].fn == fn)
			return id;
	}
}

/* Before a sample: the counts it can move. */
/* Room in the snapshot's path copy for n paths (false: out of memory). */
static bool sampled_path0_fit(struct cpu *c, struct cpu_sampled *sm, uint32_t n)
{
	if (n <= sm->cpath0)
		return true;
	uint32_t cap = c->cap_paths > n ? c->cap_paths : n;
	struct cpu_path *p = realloc(sm->path0, cap * sizeof *p);
	if (p)
		sm->path0 = p;
	uint32_t *t = realloc(sm->tpath, cap * sizeof *t);
	if (t)
		sm->tpath = t;
	uint32_t *m = realloc(sm->path_touched, cap * sizeof *m);
	if (m)
		sm->path_touched = m;
	if (!p || !t || !m)
		return false;
	memset(m + sm->cpath0, 0, (cap - sm->cpath0) * sizeof *m);
	sm->cpath0 = cap;
	return true;
}

/* Debug builds copy every baseline at a sample's start as well, so that
 * each first touch can check the baseline it derives against the copy,
 * and sampled_untouched_same() can check what was not touched. */
#ifdef NDEBUG
static void sampled_snapshot_all(struct cpu *c)
{
	(void)c;
}
#else
static void sampled_snapshot_all(struct cpu *c)
{
	struct cpu_sampled *sm = c->mt->sm;
	const struct cost_tables *t = c->sys->tables;
	memcpy(sm->path0, c->path, c->nr_paths * sizeof *c->path);
	memcpy(sm->site0, c->site, (size_t)t->nr_sites * sizeof *c->site);
	memcpy(sm->prof0, c->prof, (size_t)t->nr_fns * sizeof *c->prof);
}
#endif

/* Path p's baseline, on its first touch in the sample (cpu_sample_call()
 * right after its calls count moved by `calls`; the root at the start):
 * false when it has no room (the sample is not recorded). */
static bool sampled_touch_path(struct cpu *c, struct cpu_sampled *sm, uint32_t p,
			       uint64_t calls)
{
	if (!sampled_path0_fit(c, sm, p + 1))
		return false;
	if (sm->path_touched[p] == sm->mark)
		return true;
	sm->path_touched[p] = sm->mark;
	sm->tpath[sm->ntpath++] = p;
	struct cpu_path b = c->path[p];
	b.calls -= calls;
	/* a path the sample created starts from zero */
	assert(sm->spoiled || (p >= sm->npath0 ? !b.calls && !b.self && !b.mispredicts
					       : !memcmp(&b, &sm->path0[p], sizeof b)));
	sm->path0[p] = b;
	return true;
}

static bool sampled_snapshot(struct cpu *c)
{
	struct cpu_sampled *sm = c->mt->sm;
	const struct cost_tables *t = c->sys->tables;
	if (!sampled_path0_fit(c, sm, c->nr_paths))
		return false;
	sm->npath0 = c->nr_paths;
	sm->spoiled = 0;
	sampled_snapshot_all(c);
	memcpy(sm->ctr0, c->ctr, sizeof sm->ctr0);
	if (++sm->mark == 0) {         /* wrapped: no stale mark may match */
		memset(sm->site_touched, 0, (size_t)t->nr_sites * sizeof *sm->site_touched);
		memset(sm->fn_touched, 0, (size_t)t->nr_fns * sizeof *sm->fn_touched);
		memset(sm->path_touched, 0, sm->cpath0 * sizeof *sm->path_touched);
		sm->mark = 1;
	}
	sm->ntsite = sm->ntfn = sm->ntpath = 0;
	/* the cycles booked before the sample's first call go to the path
	 * it starts on (the root: no frame is open) */
	if (!sampled_touch_path(c, sm, (uint32_t)c->cur_path, 0))
		return false;
	sm->lock.valid = sm->lock.nout = 0;
	sm->lock.attr = -2;            /* -2: no lock yet (sample_lock_at()) */
	sm->now0 = c->now;
	sm->pos0 = c->o.pos;
	sm->misp0 = c->mispredicts;
	sm->outside0 = c->outside;
	return true;
}

static bool sampled_item(struct cpu_memo *m, uint32_t what, uint32_t idx, uint64_t a,
			 uint64_t b, uint64_t d)
{
	if (!(a | b | d))
		return true;
	struct memo_item *it = memo_item(m, what, idx);
	if (!it)
		return false;
	it->v[0] = a;
	it->v[1] = b;
	it->v[2] = d;
	return true;
}

/* The sites, functions and paths the sample did not touch have not moved since
 * its snapshot (debug builds check it before every delta: a count that
 * moved without cpu_sample_branch() or cpu_sample_call() would be left
 * out of its path's cost). */
static inline bool sampled_untouched_same(const struct cpu *c)
{
	const struct cpu_sampled *sm = c->mt->sm;
	const struct cost_tables *t = c->sys->tables;
	for (int i = 0; i < t->nr_sites; i++)
		if (sm->site_touched[i] != sm->mark &&
		    memcmp(&c->site[i], &sm->site0[i], sizeof c->site[i]))
			return false;
	for (int i = 0; i < t->nr_fns; i++)
		if (sm->fn_touched[i] != sm->mark && memcmp(&c->prof[i], &sm->prof0[i], sizeof c->prof[i]))
			return false;
	for (uint32_t i = 0; i < sm->npath0; i++)
		if (sm->path_touched[i] != sm->mark &&
		    memcmp(&c->path[i], &sm->path0[i], sizeof c->path[i]))
			return false;
	return true;
}

/* After a sample: its deltas into the scratch items and its signature
 * (the same sum of terms a fast call of this path adds up); only the
 * sites and functions it touched can have moved. */
static bool sampled_delta(struct cpu *c, uint64_t *sig)
{
	struct cpu_memo *m = c->mt;
	struct cpu_sampled *sm = m->sm;
	const struct cost_tables *t = c->sys->tables;
	uint64_t h = c->stab_fn[sm->fn];
	bool ok = true;
	m->nscratch = 0;
	assert(sampled_untouched_same(c));
	for (uint32_t j = 0; j < sm->ntsite; j++) {
		uint32_t i = sm->tsite[j];
		const struct cpu_site_stat *a = &c->site[i], *b = &sm->site0[i];
		uint64_t ex = a->executed - b->executed, tk = a->taken - b->taken;
		if (!ex)
			continue;
		/* taken is relative to the layout; the term is by condition */
		uint64_t n1 = c->site_layout[i].fallthrough ? ex - tk : tk;
		h += n1 * sm->stab[2 * i + 1] + (ex - n1) * sm->stab[2 * i];
		ok &= sampled_item(m, MI_SITE, i, ex, tk, a->mispredicted - b->mispredicted);
	}
	for (uint32_t j = 0; j < sm->ntfn; j++) {
		int i = (int)sm->tfn[j];
		const struct cpu_prof *a = &c->prof[i], *b = &sm->prof0[i];
		uint64_t calls = a->calls - b->calls;
		/* the calls below the top one: the top one's is in its own term */
		if (i != sm->fn || calls > 1)
			h += (calls - (i == sm->fn)) * c->stab_fn[i];
		ok &= sampled_item(m, MI_FN, (uint32_t)i, calls, a->self - b->self, a->total - b->total);
	}
	for (uint32_t j = 0; j < sm->ntpath; j++) {
		uint32_t i = sm->tpath[j];
		const struct cpu_path *a = &c->path[i], *b = &sm->path0[i];
		ok &= sampled_item(m, MI_PATH, i, a->calls - b->calls, a->self - b->self,
				   a->mispredicts - b->mispredicts);
	}
	for (int i = 0; i < SIG_TERMS; i++)
		h += (c->ctr[sig_ctr[i]] - sm->ctr0[sig_ctr[i]]) *
		     c->stab_fn[t->nr_fns + i];
	ok &= sampled_item(m, MI_OUTSIDE, 0, c->outside - sm->outside0, 0, 0);
	/* a fast call counts its locks itself, as its branches and calls
	 * (and its lock waits: "Lock waits") */
	for (uint32_t id = 0; id < CPU_NR_COUNTERS; id++)
		if (id != CPU_CTR_lock_acquire)
			ok &= sampled_item(m, MI_CTR, id, c->ctr[id] - sm->ctr0[id], 0, 0);
	*sig = h;
	return ok;
}

/*
 * Lost paths along their functions.  A fast call whose path has no
 * sample is charged its blocks' mean costs (sampled_lost()).  Those
 * cycles were once all booked as the top-level function's own, and its
 * calls below the top one on no path: on `tiny-fill`, whose pcp drains
 * and reclaim passes are mostly such paths, 22 % of the self cycles were
 * booked to the wrong function.  Now the call's own branch counts are
 * recovered and each block is booked where the samples ran it:
 *
 * - Counts.  Fast calls add to the running counts fsite[].n, which
 *   cpu_memo_fold() empties.  nb[] is those counts at the last sync; a
 *   fast call that found its path is listed once per sync (slist,
 *   entry.psync) and its counts are its sample's (the same signature,
 *   the same counts).  So a lost call's own count of (site, condition) i
 *   is n[i] - nb[i] less the listed calls' (lost_counts()), for the i
 *   the samples of its function ran (fsites[]).
 * - Check.  fsig is the sum of the call's terms: per branch its
 *   (site, condition)'s signature and block mean, per call its
 *   function's, per lock its signature and edge means (flk).  The counts
 *   found must give back the low half exactly, or nothing is placed (a
 *   fold inside the call, cpu_memo_sync(), emptied the counts it ran up;
 *   it ran a branch no sample of its function ran).
 * - Where.  A sample keeps the chain of its frames, inlined ones too, as
 *   a context (struct sampled_ctx).  Per (site, condition) and top-level
 *   function a record (struct sampled_after) sums the cycles of the
 *   blocks that ended at its branch by the context each part ran in (a
 *   block crosses calls and returns), and so does one per function for
 *   its tail.  A lost call's blocks are split as their records say:
 *   self to each context's innermost out-of-line function and path,
 *   total to every function of its chain but the top one (whose total
 *   has the whole estimate).
 * - Calls.  A frame's code from one of its branches (or its entry) to
 *   its next branch makes the same calls each time: the record keeps
 *   them (the context keeps those of its entry).  The top-level call,
 *   the calls each of its branches' records make (times its count) and
 *   the calls their entries make must make up the rest of fsig (their
 *   functions' terms); then each out-of-line one counts on its path.
 *
 * What stays approximate: the split of a block is the samples' mean
 * split; a (site, condition) reached in two contexts under one
 * top-level function takes the latest (the call check catches a
 * different set of functions, not a different order of the same ones);
 * the lock edges and the rounding stay the top-level function's own; a
 * call that fails a check books its cycles as its own and counts only
 * its top-level call on a path.  What it costs: each sample keeps its
 * contexts (and a record its first SAMPLED_MATURE samples' upkeep), each
 * fast call that finds its path lists its entry once per sync, each lost
 * call scans its function's sites and books along each context's chain
 * (about 6 K host instructions).  Measured: docs/cost-model.md §10.
 */

/* A lock's term of a fast call's fsig (its signature, an edge's mean). */
static void fast_lock_term(struct cpu *c, uint64_t term)
{
	c->fsig += term;
	struct cpu_sampled *sm = c->mt->sm;
	if (sm->flk_call != sm->calls) {   /* the call's first lock */
		sm->flk_call = sm->calls;
		sm->flk = 0;
	}
	sm->flk += term;
}

/* (site, condition) i joins a top-level function's (not when out of
 * memory: its lost calls then fall back). */
static void sites_add(struct sampled_sites *l, uint32_t i, bool replaced)
{
	for (uint32_t j = 0; replaced && j < l->n; j++)
		if (l->i[j] == i)
			return;            /* (its record was replaced, and is back) */
	if (l->n == l->cap) {
		uint32_t cap = l->cap ? 2 * l->cap : 16;
		uint32_t *p = realloc(l->i, cap * sizeof *p);
		if (!p)
			return;
		l->i = p;
		l->cap = cap;
	}
	l->i[l->n++] = i;
}

#define SAMPLED_RCHUNK 64

static struct sampled_after *rec_at(const struct cpu_sampled *sm, int32_t id)
{
	uint32_t u = (uint32_t)id;
	return &sm->rchunk[u / SAMPLED_RCHUNK][u % SAMPLED_RCHUNK];
}

/* A new record, or NULL when out of memory. */
static struct sampled_after *rec_new(struct cpu_sampled *sm)
{
	if (sm->nrec == sm->nrchunk * SAMPLED_RCHUNK) {
		struct sampled_after **p = realloc(sm->rchunk, (sm->nrchunk + 1) * sizeof *p);
		if (!p)
			return NULL;
		sm->rchunk = p;
		if (!(p[sm->nrchunk] = malloc(SAMPLED_RCHUNK * sizeof **p)))
			return NULL;
		sm->nrchunk++;
	}
	return rec_at(sm, (int32_t)sm->nrec++);
}

/* Record i's for top-level function fn, or NULL. */
static inline struct sampled_after *after_find(const struct cpu_sampled *sm, uint32_t i, int fn)
{
	struct sampled_after *const *r = &sm->rp[i * SAMPLED_TOPS];
	for (int s = 0; s < SAMPLED_TOPS && r[s]; s++)
		if (r[s]->top1 == fn + 1)
			return r[s];
	return NULL;
}

/* A new record of i for the sample's function (NULL: out of memory). */
static struct sampled_after *after_new(struct cpu_sampled *sm, uint32_t i)
{
	struct sampled_after *a;
	struct sampled_after **r = &sm->rp[i * SAMPLED_TOPS];
	int s = 0;
	while (s < SAMPLED_TOPS && r[s])
		s++;
	/* (slots fill and are never emptied: only once all are full can a
	 * function's record of i have been replaced, and i be on its list) */
	if (s == SAMPLED_TOPS) {               /* the record of another function goes */
		a = r[sm->after_next++ % SAMPLED_TOPS];
	} else {
		if (!(a = rec_new(sm)))
			return NULL;
		r[s] = a;
	}
	*a = (struct sampled_after){.top1 = sm->fn + 1};
	sites_add(&sm->fsites[sm->fn], i, s == SAMPLED_TOPS);
	return a;
}

static uint32_t ctx_slot(int32_t parent, int32_t fn)
{
	uint32_t key = (uint32_t)parent * 0x9E3779B1u ^ (uint32_t)fn * 0x85EBCA77u;
	return (key ^ key >> 15) & (2 * SAMPLED_CTXS - 1);
}

/* The cycles since the last part of the sample's block ran in its
 * current context (at a call or return, before the context changes;
 * at a branch). */
static void sample_part(struct cpu *c, struct cpu_sampled *sm)
{
	uint64_t y = c->now - sm->pmark;
	sm->pmark = c->now;
	if (!y)
		return;
	uint32_t j = 0;
	while (j < sm->npart && sm->part[j].ctx != sm->cur)
		j++;
	if (j == SAMPLED_SPLIT)
		j--;
	else if (j == sm->npart)
		sm->part[sm->npart++] = (struct sampled_part){sm->cur, 0};
	sm->part[j].cycles += y;
}

/* The block that ended at a branch, into its record's split. */
static void sample_split(struct cpu_sampled *sm, struct sampled_after *a)
{
	for (uint32_t k = 0; k < sm->npart; k++) {
		uint32_t j = 0;
		while (j < a->nsplit && a->sctx[j] != sm->part[k].ctx)
			j++;
		if (j == SAMPLED_SPLIT) {
			j--;
		} else if (j == a->nsplit) {
			a->sctx[j] = sm->part[k].ctx;
			a->ssum[j] = 0;
			a->nsplit++;
		}
		a->ssum[j] += sm->part[k].cycles;
	}
	sm->npart = 0;
}

/* Record a is written by the sample being taken (once a sample). */
static void sample_visit(const struct cpu_sampled *sm, struct sampled_after *a)
{
	if (a->vmark != sm->mark) {
		a->vmark = sm->mark;
		a->nvis++;
	}
}

/* A sample at branch i: the block that ends here into i's record, whose
 * calls start again.  Mostly the block ran in one context, the one its
 * record split most of it to: that case first. */
static void sample_at_branch(struct cpu *c, struct cpu_sampled *sm, uint32_t i)
{
	struct sampled_after *a = after_find(sm, i, sm->fn);
	if (a && a->nvis >= SAMPLED_MATURE) {
		sm->pmark = c->now;
		sm->npart = 0;
		sm->rstk[c->depth - 1] = NULL;
		return;
	}
	if (a && !sm->npart && a->nsplit && a->sctx[0] == sm->cur) {
		a->ssum[0] += c->now - sm->pmark;
		sm->pmark = c->now;
	} else {
		sample_part(c, sm);
		if (!a)
			a = after_new(sm, i);
		if (a)
			sample_split(sm, a);
		sm->npart = 0;
	}
	if (a) {
		a->ctx = sm->cur;
		a->n = a->over = 0;
		sample_visit(sm, a);
	}
	sm->rstk[c->depth - 1] = a;
}

/* Context (parent, fn), or -1 (*slot: where a new one would go). */
static int32_t ctx_probe(const struct cpu_sampled *sm, int32_t parent, int fn, uint32_t *slot)
{
	for (uint32_t h = ctx_slot(parent, fn);; h = (h + 1) & (2 * SAMPLED_CTXS - 1)) {
		int32_t id = sm->ctx_hash[h] - 1;
		*slot = h;
		if (id < 0 || (sm->ctx[id].parent == parent && sm->ctx[id].fn == fn))
			return id;
	}
}

static int32_t ctx_find(const struct cpu_sampled *sm, int32_t parent, int fn)
{
	uint32_t slot;
	return ctx_probe(sm, parent, fn, &slot);
}

/* The context of a call of fn from the sample's current one (its
 * attribution as the call left it); -2 when unknown (the table is full,
 * or the parent is unknown). */
static int32_t sampled_ctx_child(struct cpu *c, struct cpu_sampled *sm, int fn, bool inl)
{
	int32_t parent = sm->cur;
	uint32_t h;
	if (parent < -1)
		return -2;
	int32_t id = ctx_probe(sm, parent, fn, &h);
	if (id >= 0)
		return id;
	if (sm->nctx == SAMPLED_CTXS)
		return -2;
	id = (int32_t)sm->nctx++;
	struct sampled_ctx *x = &sm->ctx[id];
	*x = (struct sampled_ctx){.parent = parent, .fn = fn, .attr = c->attr,
				  .path = c->cur_path, .inl = inl, .outer = 1,
				  .top = parent < 0 ? fn : sm->ctx[parent].top};
	for (int32_t j = parent; j >= 0; j = sm->ctx[j].parent)
		if (sm->ctx[j].fn == fn)
			x->outer = 0;
	sm->ctx_hash[h] = id + 1;
	return id;
}

/* Each context's parent came before it and is hashed once, under the
 * same top-level function, with a real path and function; each record
 * names a context. */
static int ctx_check(const struct cpu *c, const struct cpu_sampled *sm)
{
	const struct cost_tables *t = c->sys->tables;
	for (uint32_t id = 0; id < sm->nctx; id++) {
		const struct sampled_ctx *x = &sm->ctx[id];
		if (x->parent >= (int32_t)id || x->parent < -1 || x->fn < 0 || x->fn >= t->nr_fns ||
		    x->path < 0 || (uint32_t)x->path >= c->nr_paths || x->attr >= t->nr_fns ||
		    (x->parent >= 0 && sm->ctx[x->parent].top != x->top) ||
		    (x->parent < 0 && x->top != x->fn) ||
		    ctx_find(sm, x->parent, x->fn) != (int32_t)id || x->entry.n > SAMPLED_AFTER)
			return NS_EINTERNAL;
		for (uint32_t j = 0; j < x->entry.n; j++)
			if (x->entry.node[j] <= (int32_t)id || (uint32_t)x->entry.node[j] >= sm->nctx)
				return NS_EINTERNAL;
	}
	for (int i = 0; i < 2 * t->nr_sites * SAMPLED_TOPS; i++)
		if (sm->rp[i] && sm->rp[i]->top1 < 1)
			return NS_EINTERNAL;
	for (uint32_t i = 0; i < sm->nrec; i++) {
		const struct sampled_after *a = rec_at(sm, (int32_t)i);
		if (a->top1 < 1 || a->top1 > t->nr_fns || a->ctx >= (int32_t)sm->nctx ||
		    a->n > SAMPLED_AFTER || a->nsplit > SAMPLED_SPLIT)
			return NS_EINTERNAL;
		for (uint32_t j = 0; j < a->n; j++)
			if (a->node[j] < 0 || (uint32_t)a->node[j] >= sm->nctx)
				return NS_EINTERNAL;
	}
	return NS_OK;
}

/* Entry e's fast calls since the sync, into the sync's counts. */
static void lost_sync_entry(struct cpu_sampled *sm, struct sampled_entry *e)
{
	uint64_t r = e->pending - e->psync;
	e->psync = e->pending;
	for (uint32_t j = 0; j < e->nsc; j++)
		sm->nb[e->sc[j].i] += r * e->sc[j].n;
}

/* A new entry's (site, condition) counts, from its first sample's items
 * (the same for every sample of its signature). */
static void entry_counts(struct cpu *c, struct sampled_entry *e, const struct memo_item *it,
			 uint32_t nitems)
{
	uint32_t n = 0;
	while (n < nitems && it[n].what == MI_SITE)   /* (sampled_delta() puts them first) */
		n++;
	if (!n || !(e->sc = malloc(2 * n * sizeof *e->sc)))
		return;
	for (uint32_t j = 0; j < n; j++) {
		/* by condition, as sampled_delta() made its signature */
		uint64_t n1 = c->site_layout[it[j].idx].fallthrough ? it[j].v[0] - it[j].v[1]
								     : it[j].v[1];
		if (n1)
			e->sc[e->nsc++] = (struct sampled_count){2 * it[j].idx + 1, (uint32_t)n1};
		if (it[j].v[0] - n1)
			e->sc[e->nsc++] = (struct sampled_count){2 * it[j].idx,
								 (uint32_t)(it[j].v[0] - n1)};
	}
}

/* The lost call's own counts of the (site, condition)s that samples of
 * fn have run, into sm->lc (their number); their sync moves to now.  A
 * (site, condition) no sample of fn ran has no record to book by, and
 * scanning only fn's keeps a lost call's cost to its function's sites
 * (`bench messaging` has 900); such a one's counts wait, and the check
 * in lost_place() sends the call that finds them to the fallback. */
static uint32_t lost_counts(struct cpu_sampled *sm, int fn)
{
	for (uint32_t j = 0; j < sm->nslist; j++)
		lost_sync_entry(sm, &sm->e[sm->slist[j]]);
	sm->nslist = 0;
	const struct sampled_sites *l = &sm->fsites[fn];
	uint32_t n = 0;
	for (uint32_t j = 0; j < l->n; j++) {
		uint32_t i = l->i[j];
		uint64_t d = sm->fsite[i].n - sm->nb[i];
		if (d) {
			sm->lc[n++] = (struct sampled_lost_count){i, d, after_find(sm, i, fn)};
			sm->nb[i] = sm->fsite[i].n;
		}
	}
	return n;
}

/* Cycles and calls for context k (struct sampled_acc). */
static void acc_add(struct cpu_sampled *sm, int32_t k, uint64_t cycles, uint64_t calls)
{
	struct sampled_acc *a = &sm->acc[k];
	if (!a->cycles && !a->calls)
		sm->accl[sm->nacc++] = k;
	a->cycles += cycles;
	a->calls += calls;
}

/* y cycles of a lost call, at context k: self where the sample's would
 * be, total to each function of the chain below the top one. */
static void lost_book(struct cpu *c, const struct cpu_sampled *sm, int32_t k, uint64_t y)
{
	const struct sampled_ctx *x = &sm->ctx[k];
	if (x->attr >= 0)
		c->prof[x->attr].self += y;
	else
		c->outside += y;
	c->path[x->path].self += y;
	for (; sm->ctx[k].parent >= 0; k = sm->ctx[k].parent)
		if (sm->ctx[k].outer)
			c->prof[sm->ctx[k].fn].total += y;
}

static bool lost_calls(struct cpu *c, struct cpu_sampled *sm, const struct sampled_after *a,
		       int fn, uint64_t m, uint64_t *sig);

/* A call of context k, m times, with the calls its entry makes: their
 * terms into *sig, their counts into the accumulator (false: a record is
 * not whole, or a context is not under fn). */
static bool lost_call(struct cpu *c, struct cpu_sampled *sm, int32_t k, int fn, uint64_t m,
		      uint64_t *sig)
{
	const struct sampled_ctx *x = &sm->ctx[k];
	if (x->top != fn)
		return false;
	*sig += m * c->stab_fn[x->fn];
	acc_add(sm, k, 0, m);
	return lost_calls(c, sm, &x->entry, fn, m, sig);
}

/* The calls of record a, m times (lost_call()). */
static bool lost_calls(struct cpu *c, struct cpu_sampled *sm, const struct sampled_after *a,
		       int fn, uint64_t m, uint64_t *sig)
{
	if (!a || a->over)
		return false;
	for (uint32_t j = 0; j < a->n; j++)
		if (!lost_call(c, sm, a->node[j], fn, m, sig))
			return false;
	return true;
}

/* y cycles of blocks ending at record a's branch, split as the samples
 * ran them, into the accumulator. */
static void lost_split(struct cpu_sampled *sm, const struct sampled_after *a, uint64_t y)
{
	if (a->nsplit <= 1) {              /* one context (none: no cycles yet) */
		int32_t k = a->nsplit ? a->sctx[0] : a->top1 ? a->ctx : -1;
		if (k >= 0)
			acc_add(sm, k, y, 0);
		return;
	}
	double sum = 0;
	for (uint32_t k = 0; k < a->nsplit; k++)
		sum += (double)a->ssum[k];
	for (uint32_t k = 0; k < a->nsplit; k++) {
		uint64_t part = (uint64_t)((double)y * ((double)a->ssum[k] / sum));
		if (a->sctx[k] >= 0 && part)
			acc_add(sm, a->sctx[k], part, 0);
	}
}

/* A lost call of fn: its blocks' cycles booked where they ran and its
 * calls counted on their paths, as far as the samples show; the cycles
 * placed (the rest are the top-level function's own). */
static uint64_t lost_place(struct cpu *c, struct cpu_sampled *sm, int fn, uint64_t tail)
{
	uint32_t n = lost_counts(sm, fn);
	uint64_t rest = c->fsig - (sm->flk_call == sm->calls ? sm->flk : 0);
	for (uint32_t j = 0; j < n; j++)
		rest -= sm->lc[j].d * sm->fsite[sm->lc[j].i].term;
	bool counts = !(uint32_t)rest;  /* false: not this call's counts alone */
	uint64_t sig = 0;
	int32_t root = ctx_find(sm, -1, fn);
	bool calls = counts && root >= 0 && lost_call(c, sm, root, fn, 1, &sig);
	for (uint32_t j = 0; calls && j < n; j++)
		calls = lost_calls(c, sm, sm->lc[j].a, fn, sm->lc[j].d, &sig);
	calls = calls && sig == rest;
	for (uint32_t j = 0; counts && j < n; j++) {
		const struct sampled_lost_count *l = &sm->lc[j];
		uint64_t y = l->d * (sm->fsite[l->i].term & ~CPU_SIG_MASK) / 16;
		if (l->a && y)
			lost_split(sm, l->a, y);
	}
	if (counts && tail)
		lost_split(sm, &sm->tail[fn], tail);
	uint64_t placed = 0;
	for (uint32_t j = 0; j < sm->nacc; j++) {
		int32_t k = sm->accl[j];
		struct sampled_acc *a = &sm->acc[k];
		if (a->cycles)
			lost_book(c, sm, k, a->cycles);
		placed += a->cycles;
		if (calls && !sm->ctx[k].inl)
			c->path[sm->ctx[k].path].calls += a->calls;
		*a = (struct sampled_acc){0, 0};
	}
	sm->nacc = 0;
	if (calls)
		sm->lost_calls_booked++;
	else                            /* the top-level call's is certain */
		c->path[cpu_path_child(c, 0, fn)].calls++;
	return placed;
}

/* Fold the fast calls charged to entry e (before its cost changes). */
static void sampled_fold_one(struct cpu *c, struct sampled_entry *e)
{
	uint64_t r = e->pending;
	e->psync -= r;                 /* (the calls since the sync stay) */
	e->pending = 0;
	c->mt->sm->spoiled |= c->sampling && r;
	for (uint32_t j = 0; r && j < e->cost.nitems; j++) {
		const struct memo_item *it = &e->cost.items[j];
		uint64_t *p[3], spare[2] = {0, 0};
		memo_target(c, it->what, it->idx, p, spare);
		/* a fast call counts its branches (executed, taken) and its
		 * calls itself */
		int from = it->what == MI_SITE ? 2 : it->what == MI_FN ? 1 : 0;
		for (int v = from; v < 3; v++)
			*p[v] += r * it->v[v];
	}
}

void cpu_sample_branch(struct cpu *c, int site, bool cond, unsigned taken, unsigned miss)
{
	struct cpu_sampled *sm = c->mt->sm;
	if (sm->site_touched[site] != sm->mark) {
		sm->site_touched[site] = sm->mark;
		sm->tsite[sm->ntsite++] = (uint32_t)site;
		const struct cpu_site_stat *a = &c->site[site];
		struct cpu_site_stat b = {a->executed - 1, a->taken - taken,
					  a->mispredicted - miss};
		assert(sm->spoiled || !memcmp(&b, &sm->site0[site], sizeof b));
		sm->site0[site] = b;
	}
	uint32_t i = 2 * (uint32_t)site + cond;
	if (c->depth)
		sample_at_branch(c, sm, i);
	sm->bsum[i] += c->now - sm->tlast;
	sm->bn[i]++;
	sm->tlast = c->now;
	uint64_t mean = sm->bsum[i] * 16 / sm->bn[i];
	sm->fsite[i].term = sm->stab[i] | (mean < UINT32_MAX ? mean : UINT32_MAX);
}

static void sample_ctx_call(struct cpu *c, struct cpu_sampled *sm, int fn, bool inl);

void cpu_sample_call(struct cpu *c, int fn, int32_t path)
{
	struct cpu_sampled *sm = c->mt->sm;
	if (sm->fn_touched[fn] != sm->mark) {
		sm->fn_touched[fn] = sm->mark;
		sm->tfn[sm->ntfn++] = (uint32_t)fn;
		struct cpu_prof *b = &sm->prof0[fn];
		const struct cpu_prof *a = &c->prof[fn];
		/* (a fold inside the sample, which spoils it, moves counts
		 * it has not touched yet) */
		assert(sm->spoiled || (b->calls == a->calls - 1 && b->self == a->self &&
				       b->total == a->total && b->active == a->active - 1));
		b->calls = a->calls - 1;
		b->self = a->self;
		b->total = a->total;
		b->active = a->active - 1;
	}
	if (path >= 0 && !sampled_touch_path(c, sm, (uint32_t)path, 1))
		sm->spoiled = 1;       /* no room for its baseline: not recorded */
	sample_ctx_call(c, sm, fn, path < 0);
}

/* A sample's call of fn: its context, and the caller's record ("Lost
 * paths along their functions"). */
static void sample_ctx_call(struct cpu *c, struct cpu_sampled *sm, int fn, bool inl)
{
	sample_part(c, sm);            /* the caller's part */
	int32_t k = sampled_ctx_child(c, sm, fn, inl);
	sm->cur = k;
	sm->cstk[c->depth - 1] = k;
	/* a call of the caller's frame (the top-level one is the root's) */
	struct sampled_after *a = c->depth >= 2 ? sm->rstk[c->depth - 2] : NULL;
	if (a && a->n < SAMPLED_AFTER && k >= 0)
		a->node[a->n++] = k;
	else if (a)
		a->over = 1;
	a = k >= 0 && sm->ctx[k].entry.nvis < SAMPLED_MATURE ? &sm->ctx[k].entry : NULL;
	if (a) {
		a->n = a->over = 0;
		sample_visit(sm, a);
	}
	sm->rstk[c->depth - 1] = a;
}

void cpu_sample_ret(struct cpu *c)
{
	struct cpu_sampled *sm = c->mt->sm;
	if (c->depth == 0) {
		sample_part(c, sm);    /* the tail, from the last branch */
		if (sm->tail[sm->fn].nvis < SAMPLED_MATURE) {
			sample_split(sm, &sm->tail[sm->fn]);
			sample_visit(sm, &sm->tail[sm->fn]);
		}
		sm->npart = 0;
		cpu_sample_end(c);
		return;
	}
	sample_part(c, sm);            /* the callee's, with its return */
	sm->cur = sm->cstk[c->depth - 1];
}

void cpu_sample_end(struct cpu *c)
{
	struct cpu_memo *m = c->mt;
	struct cpu_sampled *sm = m->sm;
	c->sampling = 0;
	/* the cycles up to here are the sample's: a top-level function
	 * inlined in the layout leaves its last ones unattributed at its
	 * return (cpu_ret_exact()), and a cost whose clock moved by more
	 * than its items would put them nowhere in each fast call */
	cpu_attribute(c);
	sm->tsum[sm->fn] += c->now - sm->tlast;
	sm->tn[sm->fn]++;
	uint64_t sig;
	struct memo_cost k = {0};
	bool spoiled = sm->spoiled;
	sm->spoiled = 0;
	/* the fast calls are folded lazily (at a read of the counts, at an
	 * export, and per path before its cost changes): one folded inside
	 * this sample makes its delta not its own, and it is not recorded */
	if (!sampled_delta(c, &sig) || spoiled)
		return;
	int nend = memo_ooo_state(c, k.end);
	k.nend = nend < 0 ? 0 : (uint32_t)nend;
	k.idle = memo_ooo_idle(k.end, k.nend);
	k.dnow = c->now - sm->now0;
	k.dpos = c->o.pos - sm->pos0;
	k.dmisp = c->mispredicts - sm->misp0;
	k.slot = c->o.slot;
	k.lslot = c->o.lslot;
	k.rsb = c->rsb;
	k.nitems = m->nscratch;
	uint32_t slot = 0;
	int32_t id = sampled_find(sm, sm->fn, sig, &slot);
	if (id < 0) {
		if (sm->nr >= SAMPLED_ENTRIES)
			return;
		id = (int32_t)sm->nr++;
		sm->e[id] = (struct sampled_entry){.sig = sig, .fn = sm->fn};
		sm->hash[slot] = id;
		entry_counts(c, &sm->e[id], m->scratch, k.nitems);
	}
	struct sampled_entry *e = &sm->e[id];
	sampled_fold_one(c, e);        /* its fast calls had the old cost (their
					  branch counts are the new one's: the
					  same signature) */
	size_t bytes = k.nitems * sizeof *k.items;
	struct memo_item *items = realloc(e->cost.items, bytes ? bytes : 1);
	if (!items)
		return;
	memcpy(items, m->scratch, bytes);
	k.items = items;
	e->cost = k;
	e->lock = sm->lock;
}

/* Calls to the next sample: uniform on 1 .. 2 period - 1 (mean period),
 * so that a workload with a period of its own is not sampled in step
 * with it (a fixed interval of 10 on calls alternating two paths would
 * only ever sample one). */
static uint32_t sampled_interval(struct cpu_sampled *sm)
{
	if (sm->period == 1)
		return 1;
	return 1 + (uint32_t)(splitmix64(&sm->rng) % (2 * (uint64_t)sm->period - 1));
}

/* sampled_begin()'s decision for the top-level call of fn, without
 * moving anything: not a sample (not due, not forced, warm-up over), not a
 * clock reader's. */
static bool sampled_fast_next(const struct cpu *c, int fn)
{
	const struct cpu_sampled *sm = c->mt->sm;
	return !c->lost && !sm->exact_fn[fn] && sm->countdown != 1 && !sm->force && !sm->warmup;
}

/* The warming window (cost.sample_window): the fast calls with at most
 * window calls left before the due sample perform every cache access,
 * as under caches, the others what the mode says; the models' fast
 * copies follow c->fwarm (MM_FAST_CALL), the ordinary code
 * cpu_fast_warms().  A sample forced early (a lost path, a clock read)
 * comes without its window: the window is set by the countdown. */
static void sampled_window(struct cpu *c, struct cpu_sampled *sm)
{
	bool on = sm->countdown <= sm->window;
	c->fwarm = on | sm->warm;
	c->fwarm_loads = on | sm->warm_loads;
	sm->warmed += on;
}

/* A fast call's start, as sampled_begin() makes it; the models' fast
 * copies count the top-level call itself (their first cpu_copy_call()),
 * sampled_begin() here. */
static void sampled_fast_start(struct cpu *c, struct cpu_sampled *sm, int fn)
{
	sm->calls++;
	sm->fast++;
	sm->fn = fn;
	/* the cycles before it are not its own; between two fast calls there
	 * are mostly none (the last one's end attributed up to the clock) */
	if (c->now != c->last || c->mispredicts != c->mispredicts_booked)
		cpu_attribute(c);
	--sm->countdown;               /* not due: sampled_fast_next() */
	if (sm->window)
		sampled_window(c, sm);
	c->mlog_on = CPU_LOG_FAST;
	c->mdepth = 1;
	c->fsig = 0;
	c->flock = 0;
	sm->nfl = 0;
}

bool cpu_fast_take(struct cpu *c, int fn)
{
	if (!c->mt || !c->mt->sm || !sampled_fast_next(c, fn))
		return false;
	struct cpu_sampled *sm = c->mt->sm;
	sm->copied++;
	sampled_fast_start(c, sm, fn);
	return true;
}

/* A top-level call of fn in a sampled run: a sample or a plain exact
 * call (false: it runs exactly), or a fast call (true).  A sample is due
 * during the warm-up, at the end of each interval and after a fast call
 * whose path had no sample; a function whose calls read the clock or the
 * counts runs exactly. */
static bool sampled_begin(struct cpu *c, int fn)
{
	struct cpu_sampled *sm = c->mt->sm;
	if (sampled_fast_next(c, fn)) {
		sampled_fast_start(c, sm, fn);
		cpu_copy_call(c, fn);  /* the top-level call's count and term */
		return true;
	}
	sm->calls++;
	if (c->lost)
		return false;
	if (sm->exact_fn[fn]) {
		sm->exact++;
		return false;          /* plain exact: no fast call will use it */
	}
	sm->fn = fn;
	cpu_attribute(c);              /* the cycles before it are not its own */
	/* not fast: due, forced or in the warm-up */
	if (--sm->countdown == 0)
		sm->countdown = sampled_interval(sm);
	sm->force = 0;
	sm->warmup -= sm->warmup > 0;
	if (!sampled_snapshot(c))
		return false;
	sm->samples++;
	sm->tlast = c->now;
	c->sampling = 1;
	sm->cur = -1;
	sm->npart = 0;
	sm->pmark = c->now;
	return false;
}

void cpu_fast_read(struct cpu *c)
{
	struct cpu_sampled *sm = c->mt->sm;
	sm->exact_fn[sm->fn] = 1;
}

/*
 * A fast call whose path has no sample yet: charged its blocks' mean
 * costs (and its function's mean tail), booked where the samples ran
 * them (lost_place()), the rest as the function's own cycles; its
 * branches and calls are counted, nothing else (no cache or mispredict
 * counts).  The next call is a sample.
 */
/* Cycles a fast call of fn is charged beside a path's recorded cost:
 * the clock and the top-level function's total (fast_charge_clock()),
 * and, for those booked nowhere else, its own (fast_charge_own()). */
static void fast_charge_clock(struct cpu *c, int fn, uint64_t cycles)
{
	c->now += cycles;
	c->last = c->now;
	c->prof[fn].total += cycles;
}

static void fast_charge_own(struct cpu *c, int fn, uint64_t cycles)
{
	int32_t path = cpu_path_child(c, 0, fn);
	fast_charge_clock(c, fn, cycles);
	c->prof[fn].self += cycles;
	if (path > 0)
		c->path[path].self += cycles;
}

static void sampled_lost(struct cpu *c)
{
	struct cpu_sampled *sm = c->mt->sm;
	int fn = sm->fn;
	sm->lost++;
	sm->force = 1;
	uint64_t tail = sm->tn[fn] ? sm->tsum[fn] / sm->tn[fn] : 0;
	uint64_t est = (c->fsig & ~CPU_SIG_MASK) / 16 + tail;
	/* the blocks and tail the samples saw run go where they ran, the
	 * rest (lock edges, rounding) is the function's own */
	uint64_t placed = lost_place(c, sm, fn, tail);
	assert(placed <= est);
	sm->lost_cycles += est;
	sm->lost_placed += placed;
	fast_charge_own(c, fn, est - placed);
	fast_charge_clock(c, fn, placed);   /* (its self cycles are booked) */
	c->o.slot = c->o.lslot = 0;
}

/* How well a record of lock r (of class rc) stands for lock l: 0 it is
 * l, 1 a lock of l's class, 2 another. */
static int lock_rank(const struct cpu_lock *r, const char *rc, const struct cpu_lock *l)
{
	return r == l ? 0 : rc && rc == l->cls ? 1 : 2;
}

/* The records of fn in sm better for lock l than *best (of *rank):
 * a lower rank, or the same and later (by_when: by their samples' clock,
 * for records of several CPUs; else by seq).  Whether one was. */
static bool lock_site_scan(const struct cpu_sampled *sm, const struct cpu_lock *l, int32_t fn,
			   bool by_when, const struct sampled_lock_site **best, int *rank)
{
	bool found = false;
	for (uint32_t i = 0; l && i < sm->nlsite; i++) {
		const struct sampled_lock_site *ls = &sm->lsite[i];
		if (ls->fn != fn || !ls->at.valid)
			continue;
		int r = lock_rank(ls->at.lock, ls->at.cls, l);
		if (r < *rank || (r == *rank && (by_when ? ls->when > (*best)->when
							  : ls->seq > (*best)->seq))) {
			*best = ls;
			*rank = r;
			found = true;
		}
	}
	return found;
}

/* Where a fast call of fn books its costs at lock l when its path's
 * sample did not take l: where fn's samples took l, else where they last
 * took a lock of l's class (SLUB's list_locks, one per node and cache,
 * are all taken at the same few places, and so are the zones' locks),
 * else any lock (*rank 0, 1, 2); NULL: nowhere known (*rank 3). */
static const struct sampled_lock_at *lock_site_at(const struct cpu_sampled *sm,
						  const struct cpu_lock *l, int32_t fn,
						  int *rank_out)
{
	const struct sampled_lock_site *best = NULL;
	int rank = 3;
	lock_site_scan(sm, l, fn, false, &best, &rank);
	*rank_out = rank;
	return best ? &best->at : NULL;
}

static struct sampled_lock_site *lock_site_slot(struct cpu_sampled *sm,
					       const struct cpu_lock *l, int32_t fn);

/* Path p of CPU c2 as the same chain of calls from the top on CPU c
 * (made there on first use), or -1 when deeper than the chain kept. */
#define SAMPLED_CHAIN_MAX 64
static int32_t path_on(struct cpu *c, const struct cpu *c2, int32_t p)
{
	int32_t chain[SAMPLED_CHAIN_MAX];
	uint32_t n = 0;
	for (; p > 0; p = c2->path[p].parent) {
		if (n == SAMPLED_CHAIN_MAX)
			return -1;
		chain[n++] = c2->path[p].fn;
	}
	int32_t q = 0;
	while (n > 0)
		q = cpu_path_child(c, q, chain[--n]);
	return q;
}

/*
 * A CPU none of whose samples of fn has taken a lock yet (early in a run,
 * each CPU learns for itself) books a lost path's lock costs where
 * another CPU's samples of fn took lock l, else a lock of its class, else
 * any lock: the latest such record by its sample's clock (the lowest CPU
 * on a tie), copied into this CPU's records with its call path made on
 * this CPU.  NULL: no CPU has one.
 */
static const struct sampled_lock_at *lock_site_remote(struct cpu *c, const struct cpu_lock *l,
						      int32_t fn)
{
	const struct sampled_lock_site *best = NULL;
	const struct cpu *from = NULL;
	int rank = 3;
	for (int i = 0; l && i < c->sys->nr_cpus; i++) {
		const struct cpu *c2 = &c->sys->cpu[i];
		if (c2 != c && c2->mt && c2->mt->sm &&
		    lock_site_scan(c2->mt->sm, l, fn, true, &best, &rank))
			from = c2;
	}
	if (!best)
		return NULL;
	int32_t path = path_on(c, from, best->at.path);
	if (path < 0)
		return NULL;
	struct cpu_sampled *sm = c->mt->sm;
	struct sampled_lock_site *ls = lock_site_slot(sm, best->at.lock, fn);
	*ls = *best;
	ls->seq = ++sm->lsite_seq;
	ls->at.path = path;
	return &ls->at;
}

/* x cycles of the fast call's lock costs at lock l: booked at l's place
 * at its end (fast_lock_charge()); past SAMPLED_CALL_LOCKS locks, at the
 * last one's. */
static void fast_lock_note(struct cpu *c, const struct cpu_lock *l, uint64_t x)
{
	struct cpu_sampled *sm = c->mt->sm;
	uint32_t i = 0;
	while (i < sm->nfl && sm->fl[i].lock != l)
		i++;
	if (i == SAMPLED_CALL_LOCKS)
		i--;
	else if (i == sm->nfl)
		sm->fl[sm->nfl++] = (struct sampled_call_lock){l, 0};
	sm->fl[i].x += x;
}

/*
 * Where a fast call of fn books its x cycles at lock l, as exact books a
 * wait (self cycles of the function spinning and of its call path, total
 * cycles of the functions on the stack): where its path's sample took its
 * first lock (e->lock) when that is l or of l's class; else where its
 * function's samples on this CPU took l or a lock of its class
 * (lock_site_at()); else where its path's sample took its first lock;
 * else where its function's samples here last took any lock; else, with
 * no record on this CPU, where another CPU's samples took one
 * (lock_site_remote()); with none anywhere the top-level function's own,
 * as a lost path's estimate is.
 */
static void fast_lock_book(struct cpu *c, int fn, const struct sampled_entry *e,
			   const struct cpu_lock *l, uint64_t x)
{
	struct cpu_sampled *sm = c->mt->sm;
	int rp = e && e->lock.valid ? lock_rank(e->lock.lock, e->lock.cls, l) : 3, rl;
	const struct sampled_lock_at *at = lock_site_at(sm, l, fn, &rl);
	uint64_t *book = &sm->lock_site;
	if (rp < 3 && rp <= rl) {
		at = &e->lock;
		book = &sm->lock_path;
	} else if (!at && (at = lock_site_remote(c, l, fn)) != NULL) {
		book = &sm->lock_remote;
	}
	*(at ? book : &sm->lock_own) += x;
	if (!at) {
		fast_charge_own(c, fn, x);
		return;
	}
	c->now += x;
	c->last = c->now;
	if (at->attr >= 0)
		c->prof[at->attr].self += x;
	else
		c->outside += x;
	c->path[at->path].self += x;
	for (uint32_t i = 0; i < at->nout; i++)
		c->prof[at->out[i]].total += x;
}

/* A fast call's lock costs ("Lock waits" above), before its path's cost
 * (whose core state is relative to the clock after them), each booked at
 * its lock's place. */
static void fast_lock_charge(struct cpu *c, int fn, const struct sampled_entry *e)
{
	if (!c->flock)
		return;
	c->flock = 0;
	struct cpu_sampled *sm = c->mt->sm;
	for (uint32_t i = 0; i < sm->nfl; i++)
		fast_lock_book(c, fn, e, sm->fl[i].lock, sm->fl[i].x);
	sm->nfl = 0;
}

/* Where the sample stands: the function spinning, its call path and the
 * outermost activations on the stack (valid 0 when they are more than
 * SAMPLED_LOCK_FRAMES: then the top-level function's own). */
static void lock_at_here(const struct cpu *c, struct sampled_lock_at *at)
{
	at->valid = 0;
	at->nout = 0;
	at->attr = c->attr;
	at->path = c->cur_path;
	for (int i = 0; i < c->depth; i++) {
		if (!c->stack[i].outer)
			continue;
		if (at->nout == SAMPLED_LOCK_FRAMES)
			return;
		at->out[at->nout++] = c->stack[i].fn;
	}
	at->valid = 1;
}

/* The record of (l, fn) to write: its own, else a free one, else the
 * oldest. */
static struct sampled_lock_site *lock_site_slot(struct cpu_sampled *sm,
					       const struct cpu_lock *l, int32_t fn)
{
	for (uint32_t i = 0; i < sm->nlsite; i++)
		if (sm->lsite[i].at.lock == l && sm->lsite[i].fn == fn)
			return &sm->lsite[i];
	if (sm->nlsite < SAMPLED_LOCK_SITES)
		return &sm->lsite[sm->nlsite++];
	struct sampled_lock_site *r = &sm->lsite[sm->lsite_next];
	sm->lsite_next = (sm->lsite_next + 1) % SAMPLED_LOCK_SITES;
	return r;
}

/* A sample's lock (cpu_lock()): where its first one is taken, for its
 * path's fast calls, and where it took this lock, for the lost paths of
 * its function (fast_lock_book()). */
static void sample_lock_at(struct cpu *c, const struct cpu_lock *l)
{
	struct cpu_sampled *sm = c->mt->sm;
	struct sampled_lock_site *ls = lock_site_slot(sm, l, sm->fn);
	ls->fn = sm->fn;
	ls->seq = ++sm->lsite_seq;
	ls->when = c->now;
	lock_at_here(c, &ls->at);
	ls->at.lock = l;
	ls->at.cls = l->cls;
	if (sm->lock.attr == -2)       /* its first */
		sm->lock = ls->at;
}

/*
 * A sample spent cycles on a lock that are the call's, not its path's (a
 * wait, a transfer): the snapshot moves by as much, so that the cost the
 * sample records for its path (sampled_delta()) leaves them out: the
 * clock, the counter id (by count; lock_contended too for a wait), the
 * self cycles of the function spinning (and of its call path), the total
 * cycles of every function whose outermost activation is on the stack,
 * and the block estimate.
 */
static void sample_lock_cost(struct cpu *c, uint64_t cycles, enum cpu_counter id,
			     uint64_t count)
{
	struct cpu_sampled *sm = c->mt->sm;
	sm->now0 += cycles;
	sm->tlast += cycles;
	sm->pmark += cycles;
	sm->ctr0[id] += count;
	sm->ctr0[CPU_CTR_lock_contended] += id == CPU_CTR_lock_wait_cycles;
	if (c->attr >= 0)
		sm->prof0[c->attr].self += cycles;
	else
		sm->outside0 += cycles;
	for (int i = 0; i < c->depth; i++)
		if (c->stack[i].outer)
			sm->prof0[c->stack[i].fn].total += cycles;
	uint32_t p = (uint32_t)c->cur_path;
	if (p >= sm->cpath0 || sm->path_touched[p] != sm->mark) {
		sm->spoiled = 1;       /* its baseline had no room: not recorded */
		return;
	}
	sm->path0[p].self += cycles;
}

/* A fast call that found its path: charged that path's latest sample
 * (its counts wait in e->pending for the fold). */
static CPU_INLINE void sampled_charge(struct cpu *c, struct cpu_sampled *sm,
				      struct sampled_entry *e)
{
	c->mlog_on = 0;
	sm->matched++;
	memo_cost_apply(c, &e->cost);
	if (e->pending++ == e->psync)  /* the first since the sync (lost_counts()) */
		sm->slist[sm->nslist++] = (uint32_t)(e - sm->e);
}

/* A fast call's return: the cost of its path's latest sample. */
static void sampled_end(struct cpu *c)
{
	struct cpu_sampled *sm = c->mt->sm;
	uint32_t slot;
	c->mlog_on = 0;
	/* the function's last path first: a top-level function mostly
	 * repeats its path, and the probe's dependent loads were the largest
	 * item of a fast call's end (perf, bench pagealloc) */
	uint64_t sig = c->fsig & CPU_SIG_MASK;
	int32_t id = sm->hit[sm->fn];
	if (id < 0 || sm->e[id].sig != sig)
		id = sampled_find(sm, sm->fn, sig, &slot);
	fast_lock_charge(c, sm->fn, id < 0 ? NULL : &sm->e[id]);
	if (id < 0) {
		sampled_lost(c);
		return;
	}
	sm->hit[sm->fn] = id;
	sampled_charge(c, sm, &sm->e[id]);
}

/* The end of a copy's fast call.  Most find their function's last path
 * again and took no lock: that case is done here, so that it pays none of
 * sampled_end()'s register saves (16 of its 59 host instructions a call
 * in the profile-guided build). */
void cpu_fast_end(struct cpu *c)
{
	assert(c->mlog_on == CPU_LOG_FAST);
	struct cpu_sampled *sm = c->mt->sm;
	int32_t id = sm->hit[sm->fn];
	if (c->flock || id < 0 || sm->e[id].sig != (c->fsig & CPU_SIG_MASK)) {
		sampled_end(c);
		return;
	}
	sampled_charge(c, sm, &sm->e[id]);
}

static void sampled_fold(struct cpu *c)
{
	struct cpu_sampled *sm = c->mt->sm;
	for (uint32_t i = 0; i < sm->nr; i++)
		if (sm->e[i].pending)
			sampled_fold_one(c, &sm->e[i]);
}

/* The fast calls' branch counts (c->fsite) into the sites' executed and
 * taken.  Inside a sample (a count read mid-call) the snapshot moves as
 * much, so that the sample's delta stays its own. */
static void sampled_fold_sites(struct cpu *c)
{
	struct cpu_sampled *sm = c->mt->sm;
	int nr = c->sys->tables->nr_sites;
	/* the counts restart from zero: so does their sync */
	for (uint32_t j = 0; j < sm->nslist; j++)
		sm->e[sm->slist[j]].psync = sm->e[sm->slist[j]].pending;
	sm->nslist = 0;
	for (int i = 0; i < nr; i++) {
		struct cpu_fast_site *f = &sm->fsite[2 * i];
		uint64_t n0 = f[0].n, n1 = f[1].n;
		if (!(n0 | n1))
			continue;
		/* taken: the condition differs from the layout's fall-through */
		uint64_t taken = c->site_layout[i].fallthrough ? n0 : n1;
		f[0].n = f[1].n = 0;
		sm->nb[2 * i] = sm->nb[2 * i + 1] = 0;
		c->site[i].executed += n0 + n1;
		c->site[i].taken += taken;
		if (c->sampling) {
			sm->site0[i].executed += n0 + n1;
			sm->site0[i].taken += taken;
		}
	}
}

/* Every slot names an entry of its signature, every entry is hashed
 * once, nothing waits to be folded, the counts name real counters. */
static int sampled_check(const struct cpu *c)
{
	const struct cpu_sampled *sm = c->mt->sm;
	const struct cost_tables *t = c->sys->tables;
	uint32_t in_hash = 0;
	if (sm->nr > SAMPLED_ENTRIES || c->sampling || !sm->period)
		return NS_EINTERNAL;
	for (uint32_t h = 0; h < SAMPLED_SLOTS; h++) {
		int32_t id = sm->hash[h];
		if (id < -1 || id >= (int32_t)sm->nr)
			return NS_EINTERNAL;
		in_hash += id >= 0;
	}
	for (uint32_t id = 0; id < sm->nr; id++) {
		const struct sampled_entry *e = &sm->e[id];
		if (e->pending || e->fn < 0 || e->fn >= t->nr_fns)
			return NS_EINTERNAL;
		if (!memo_cost_ok(c, &e->cost))
			return NS_EINTERNAL;
	}
	for (int i = 0; i < 2 * t->nr_sites; i++)
		if (sm->fsite[i].n || sm->nb[i] || (sm->fsite[i].term & CPU_SIG_MASK) != sm->stab[i])
			return NS_EINTERNAL;
	if (sm->nslist)
		return NS_EINTERNAL;
	for (uint32_t id = 0; id < sm->nr; id++)
		if (sm->e[id].psync != sm->e[id].pending)
			return NS_EINTERNAL;
	if (ctx_check(c, sm))
		return NS_EINTERNAL;
	for (int i = 0; i < t->nr_fns; i++)
		if (sm->hit[i] >= (int32_t)sm->nr || (sm->hit[i] >= 0 && sm->e[sm->hit[i]].fn != i))
			return NS_EINTERNAL;
	return in_hash == sm->nr ? NS_OK : NS_EINTERNAL;
}

static void sampled_stats_add(const struct cpu_sampled *sm, struct cpu_memo_stats *st)
{
	st->sampled = 1;
	st->calls += sm->calls;
	st->fast += sm->fast;
	st->matched += sm->matched;
	st->lost += sm->lost;
	st->samples += sm->samples;
	st->exact += sm->exact;
	st->copied += sm->copied;
	st->warmed += sm->warmed;
	st->paths += sm->nr;
	st->lock_path += sm->lock_path;
	st->lock_site += sm->lock_site;
	st->lock_remote += sm->lock_remote;
	st->lock_own += sm->lock_own;
	st->lost_cycles += sm->lost_cycles;
	st->lost_placed += sm->lost_placed;
	st->lost_calls_booked += sm->lost_calls_booked;
}
