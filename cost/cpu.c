/*
 * cpu — simulated CPUs and their cost primitives (see cpu.h for the model):
 * the names and parsers of the settings, the cost figures in cycles, the
 * set-up and teardown of a system of CPUs (binding each CPU's branch step
 * and the system's accounting engine, struct cpu_acct_ops), and the
 * per-call operations that go through the engine.  The other concerns
 * have their own files (cost/cpu_internal.h lists them).
 *
 * Design notes.  The hot primitives (call, ret, branch, work) are inline in
 * cost/cpu_hot.h and touch only the CPU's own arrays: the layout's per-site bytes,
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
#include "cost/cpu_internal.h"

#include <assert.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/diag.h"

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

static const char *const charge_names[] = {
#define CPU_CHARGE_NAME(name, desc) #name,
	CPU_CHARGES(CPU_CHARGE_NAME)
#undef CPU_CHARGE_NAME
};
static const char *const charge_descs[] = {
#define CPU_CHARGE_DESC(name, desc) desc,
	CPU_CHARGES(CPU_CHARGE_DESC)
#undef CPU_CHARGE_DESC
};

const char *cpu_charge_name(enum cpu_charge k)
{
	return (unsigned)k < CPU_NR_CHARGES ? charge_names[k] : "unknown";
}

const char *cpu_charge_desc(enum cpu_charge k)
{
	return (unsigned)k < CPU_NR_CHARGES ? charge_descs[k] : "";
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
	p->charge_kinds = false;
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
 * (machine_latency_ns: the interpolation of docs/reference/machine-format.md).
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

static void cpu_free_one(struct cpu *c)
{
	cpu_acct(c->sys)->free(c);
	free(c->path);
	free(c->path_hash);
	bpred_free(&c->bp);
	free(c->site);
	free(c->prof);
	free(c->stack);
	free(c->fixed_disagree);
	free(c->kcyc);
	free(c->ucyc);
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
	if (p->charge_kinds) {
		c->kcyc = calloc(((size_t)s->tables->nr_fns + 1) * CPU_NR_CHARGES,
				 sizeof *c->kcyc);
		c->ucols = s->tables->nr_units + 1;
		c->ucyc = calloc(((size_t)s->tables->nr_fns + 1) * (size_t)c->ucols,
				 sizeof *c->ucyc);
		if (!c->kcyc || !c->ucyc)
			return NS_ENOMEM;
		c->kinds = 1;
	}
	rc = paths_init(c);
	if (!rc)
		rc = cpu_acct(s)->init(c, p);
	return rc;
}

/*
 * The per-site disagreement counts of removed sites, for a layout that
 * removes some (l->nr_fixed): made on the first such layout and kept from
 * then on (cpu_sys_set_layout() may bring one later), so that a CPU of a
 * world without removed sites holds none (memory per simulated CPU).
 */
static int fixed_disagree_alloc(struct cpu_sys *s, const struct cost_layout *l)
{
	if (!l->nr_fixed)
		return NS_OK;
	for (int i = 0; i < s->nr_cpus; i++) {
		struct cpu *c = &s->cpu[i];
		if (c->fixed_disagree)
			continue;
		c->fixed_disagree = calloc((size_t)s->tables->nr_sites + 1,
					   sizeof *c->fixed_disagree);
		if (!c->fixed_disagree)
			return NS_ENOMEM;
	}
	return NS_OK;
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
		/* calls behind a static key: the keyed bytes (cost/cpu_key.c) */
		c->fn_inline = s->fn_step ? s->fn_step : s->layout->fn_inline;
		c->fixed_sites = s->layout->nr_fixed > 0;
	}
}

/* The accounting engines by cost.accounting (struct cpu_acct_ops). */
const struct cpu_acct_ops *const cpu_acct_engines[CPU_ACCOUNTING_SAMPLED + 1] = {
	[CPU_ACCOUNTING_EXACT] = &cpu_acct_exact,
	[CPU_ACCOUNTING_MEMO] = &cpu_acct_memo,
	[CPU_ACCOUNTING_SAMPLED] = &cpu_acct_sampled,
};

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
	if (p->charge_kinds && p->accounting == CPU_ACCOUNTING_SAMPLED)
		return NS_ERANGE;
	/* charge kinds are booked step by step: memo's replays would add a
	 * path's cost whole, so its calls run exact (the same results) */
	/* so are calls behind a static key (cost/cpu_key.c: the caller of a
	 * replayed call is not known), which sampled refuses */
	if (l->nr_keys && p->accounting == CPU_ACCOUNTING_SAMPLED)
		return NS_ERANGE;
	s->acct = (uint8_t)((p->charge_kinds || l->nr_keys) && p->accounting == CPU_ACCOUNTING_MEMO
			    ? CPU_ACCOUNTING_EXACT : p->accounting);
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
	if ((rc = fixed_disagree_alloc(s, l)) || (rc = cpu_key_bind(s, l)))
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
	free(s->fn_step);
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
	if (fixed_disagree_alloc(s, l))
		return NS_ENOMEM;
	int rc = cpu_key_bind(s, l);
	if (rc)
		return rc;
	s->layout = l;
	for (int i = 0; i < s->nr_cpus; i++) {
		bpred_reset(&s->cpu[i].bp);
		cpu_acct(s)->clear(&s->cpu[i]);   /* the paths cost differently now */
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

void cpu_set_task(struct cpu *c, const char *comm, int pid)
{
	c->task_comm = comm;
	c->task_pid = pid;
}

const char *cpu_task(const struct cpu *c, int *pid)
{
	*pid = c->task_pid;
	return c->task_comm;
}

uint64_t cpu_cycles_to_ns(const struct cpu *c, uint64_t cycles)
{
	return (uint64_t)((double)cycles / c->sys->k.clock_ghz + 0.5);
}

/* --- the accounting engine's per-call operations (cpu_internal.h) ------- */

bool cpu_memo_begin(struct cpu *c, int fn)
{
	return cpu_acct(c->sys)->begin(c, fn);
}

void cpu_memo_end(struct cpu *c)
{
	if (c->mlog_on == CPU_LOG_MUTE) {
		cpu_key_end(c);        /* a muted call returned (cost/cpu_key.c) */
		return;
	}
	cpu_acct(c->sys)->end(c);
}

void cpu_memo_fold(struct cpu *c)
{
	cpu_acct(c->sys)->fold(c);
}

void cpu_memo_stats(const struct cpu_sys *s, struct cpu_memo_stats *st)
{
	memset(st, 0, sizeof *st);
	for (int i = 0; i < s->nr_cpus; i++) {
		const struct cpu_memo *m = s->cpu[i].mt;
		if (!m)
			continue;
		cpu_acct(s)->stats(&s->cpu[i], st);
	}
}
