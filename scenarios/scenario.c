/*
 * scenario — loading, checking and expanding scenario files; see scenario.h
 * and docs/scenario-format.md.
 *
 * Design notes.  Like the machine loader, loading is a walk of the strict
 * ytree over the schema, every value converted and checked as it is read,
 * the first problem ending the walk.  The tree is kept for the scenario's
 * lifetime: the knob texts of the points (labels, params) point into it,
 * so expansion copies nothing.  Expansion resolves every point of the plan
 * at load time (at most SCN_MAX_POINTS): each point's pa_config is built
 * from pa_config_default() plus the knobs, so a bad value in any axis, or a
 * bad combination, is reported before anything runs.  The machine named by
 * the scenario is loaded here too (its bytes are kept for provenance), so
 * knobs and workload parameters that name nodes or CPUs are checked
 * against it.
 */
#include "scenario.h"

#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpulist.h"
#include "wl_messaging.h"
#include "ytree.h"
#include "zonelist.h"

static const char *const knob_names[SCN_NR_KNOBS] = {
#define SCN_KNOB_NAME(key, kind) #key,
	SCN_KNOB_MAP(SCN_KNOB_NAME)
#undef SCN_KNOB_NAME
};

static const char knob_kinds[SCN_NR_KNOBS] = {
#define SCN_KNOB_KIND(key, kind) kind,
	SCN_KNOB_MAP(SCN_KNOB_KIND)
#undef SCN_KNOB_KIND
};

const char *scn_knob_name(enum scn_knob k)
{
	return (unsigned)k < SCN_NR_KNOBS ? knob_names[k] : "?";
}

const char *scn_workload_name(enum scn_workload_type t)
{
	return t == SCN_WL_PAGEALLOC ? "pagealloc" : t == SCN_WL_MESSAGING ? "messaging" : "?";
}

int scn_knob_is_slub(enum scn_knob k)
{
	return k == SCN_KNOB_slab_free_layout || k == SCN_KNOB_slub_stats ||
	       k == SCN_KNOB_compiler_layout;
}

int scn_pagealloc_batches(const struct scn_pagealloc *p, unsigned order,
			  uint32_t *out)
{
	if (p->nr_batches > 0) {
		memcpy(out, p->batches, (size_t)p->nr_batches * sizeof *out);
		return p->nr_batches;
	}
	/* pagealloc-bench: "double while batch < (128 MiB / 4096) >> order" */
	int n = 0;
	uint32_t limit = SCN_PA_BATCH_LIMIT_PAGES >> order;
	for (uint32_t b = 1; b < limit && n < SCN_MAX_BATCHES; b *= 2)
		out[n++] = b;
	if (n == 0)
		out[n++] = 1;
	return n;
}

/* ---- loader context ------------------------------------------------------ */

struct loader {
	const struct ytree *t;
	struct diag *d;
	struct scenario *s;
};

static int err(struct loader *l, const struct ynode *n, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int err(struct loader *l, const struct ynode *n, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int rc = diag_vset(l->d, NS_EINPUT, l->t->name, n->line, n->col, fmt, ap);
	va_end(ap);
	return rc;
}

static int nomem(struct loader *l)
{
	return diag_set(l->d, NS_ENOMEM, l->t->name, 0, 0, "out of memory");
}

/* One line of printable text, copied (ytree_text). */
static int get_text(struct loader *l, const struct ynode *n, const char *what,
		    int nonempty, char **out)
{
	return ytree_text(l->t, n, what, nonempty, out, l->d);
}

/* ---- machine ------------------------------------------------------------- */

/* dir(scenario path) + "/" + ref, unless ref is absolute or the scenario
 * came from standard input. */
static char *resolve_path(const char *scenario_path, const char *ref)
{
	const char *slash = strrchr(scenario_path, '/');
	if (ref[0] == '/' || !strcmp(scenario_path, "-") || !slash)
		return strdup(ref);
	size_t dl = (size_t)(slash - scenario_path) + 1, rl = strlen(ref);
	char *p = malloc(dl + rl + 1);
	if (!p)
		return NULL;
	memcpy(p, scenario_path, dl);
	memcpy(p + dl, ref, rl + 1);
	return p;
}

static int load_machine(struct loader *l, const struct ynode *n)
{
	struct scenario *s = l->s;
	uint8_t dig[SHA256_DIGEST_LEN];
	int rc;

	if ((rc = get_text(l, n, "machine", 1, &s->machine_ref)))
		return rc;
	s->machine_path = resolve_path(s->path, s->machine_ref);
	if (!s->machine_path)
		return nomem(l);
	/* A missing machine file is an error of the scenario, at `machine:`. */
	struct diag md;
	diag_init(&md);
	rc = ytree_read_file(s->machine_path, &s->machine_text,
			     &s->machine_text_len, &md);
	if (rc == NS_ENOMEM)
		return nomem(l);
	if (rc)
		return err(l, n, "cannot read machine file '%s': %s",
			   s->machine_path, md.msg[0] ? md.msg : ns_status_msg(rc));
	if ((rc = machine_load_buf(s->machine_path, s->machine_text,
				   s->machine_text_len, &s->machine, l->d)))
		return rc;
	if ((rc = machine_check(s->machine, l->d)))
		return rc;
	sha256(s->machine_text, s->machine_text_len, dig);
	sha256_hex(dig, s->machine_sha256);
	return NS_OK;
}

/* ---- workload ------------------------------------------------------------ */

static int get_u32(struct loader *l, const struct ynode *n, const char *what,
		   long long min, long long max, uint32_t *out)
{
	long long v;
	int rc = ytree_int(l->t, n, what, min, max, &v, l->d);
	if (rc == NS_OK)
		*out = (uint32_t)v;
	return rc;
}

static int parse_orders(struct loader *l, const struct ynode *n,
			struct scn_pagealloc *p)
{
	int rc;
	long long v;
	if (n->kind == YNODE_SCALAR) {
		if ((rc = ytree_int(l->t, n, "order", 0, SCN_MAX_ORDER - 1, &v, l->d)))
			return rc;
		p->orders[0] = (unsigned)v;
		p->nr_orders = 1;
		return NS_OK;
	}
	if ((rc = ytree_expect_seq(l->t, n, "'orders'", l->d)))
		return rc;
	if (n->nr == 0)
		return err(l, n, "'orders' must list at least one order");
	if (n->nr > SCN_MAX_ORDER)
		return err(l, n, "'orders' lists %zu orders; there are only %d "
			   "(0..%d)", n->nr, SCN_MAX_ORDER, SCN_MAX_ORDER - 1);
	p->nr_orders = 0;
	for (size_t i = 0; i < n->nr; i++) {
		if ((rc = ytree_int(l->t, n->items[i], "order", 0, SCN_MAX_ORDER - 1,
				    &v, l->d)))
			return rc;
		for (int j = 0; j < p->nr_orders; j++)
			if (p->orders[j] == (unsigned)v)
				return err(l, n->items[i], "order %lld is listed twice", v);
		p->orders[p->nr_orders++] = (unsigned)v;
	}
	return NS_OK;
}

static int parse_batches(struct loader *l, const struct ynode *n,
			 struct scn_pagealloc *p)
{
	int rc;
	if ((rc = ytree_expect_seq(l->t, n, "'batches'", l->d)))
		return rc;
	if (n->nr == 0)
		return err(l, n, "'batches' must list at least one batch size "
			   "(leave it out for mmtests' default 1, 2, 4, ...)");
	if (n->nr > SCN_MAX_BATCHES)
		return err(l, n, "'batches' lists %zu sizes; at most %d are allowed",
			   n->nr, SCN_MAX_BATCHES);
	p->nr_batches = 0;
	for (size_t i = 0; i < n->nr; i++) {
		uint32_t b;
		if ((rc = get_u32(l, n->items[i], "batch size", 1, SCN_MAX_BATCH, &b)))
			return rc;
		for (int j = 0; j < p->nr_batches; j++)
			if (p->batches[j] == b)
				return err(l, n->items[i], "batch size %u is listed twice", b);
		p->batches[p->nr_batches++] = b;
	}
	return NS_OK;
}

enum { W_TYPE, W_ORDERS, W_BATCHES, W_INNER, W_OUTER, W_DROP, W_GFP, W_CPU,
       W_OVERHEAD, NR_W };

static int parse_pagealloc(struct loader *l, const struct ynode *n)
{
	static const struct ytree_field fields[NR_W] = {
		[W_TYPE] = {"type", 1},
		[W_ORDERS] = {"orders", 0},
		[W_BATCHES] = {"batches", 0},
		[W_INNER] = {"inner_iterations", 0},
		[W_OUTER] = {"outer_samples", 0},
		[W_DROP] = {"drop_samples", 0},
		[W_GFP] = {"gfp", 0},
		[W_CPU] = {"cpu", 0},
		[W_OVERHEAD] = {"timing_overhead_cycles", 0},
	};
	struct scn_pagealloc *p = &l->s->pa;
	const struct machine *m = l->s->machine;
	const struct ynode *v[NR_W];
	long long cpu;
	int rc;

	if ((rc = ytree_fields(l->t, n, "workload 'pagealloc'", fields, NR_W, v, l->d)))
		return rc;
	p->nr_orders = 1;
	p->orders[0] = 0;
	p->inner = SCN_PA_INNER_DEFAULT;
	p->outer = SCN_PA_OUTER_DEFAULT;
	p->drop = SCN_PA_DROP_DEFAULT;
	p->gfp_text = SCN_PA_GFP_DEFAULT;
	p->timing_overhead = SCN_PA_TIMING_OVERHEAD_DEFAULT;
	if (v[W_ORDERS] && (rc = parse_orders(l, v[W_ORDERS], p)))
		return rc;
	if (v[W_BATCHES] && (rc = parse_batches(l, v[W_BATCHES], p)))
		return rc;
	if (v[W_INNER] && (rc = get_u32(l, v[W_INNER], "inner_iterations", 1,
					100000000, &p->inner)))
		return rc;
	if (v[W_OUTER] && (rc = get_u32(l, v[W_OUTER], "outer_samples", 1, 100000,
					&p->outer)))
		return rc;
	if (v[W_DROP] && (rc = get_u32(l, v[W_DROP], "drop_samples", 0, 100000,
				       &p->drop)))
		return rc;
	if (p->drop >= p->outer)
		return err(l, v[W_DROP] ? v[W_DROP] : n,
			   "drop_samples (%u) must be less than outer_samples (%u): "
			   "no sample would be kept", p->drop, p->outer);
	if (v[W_GFP] && (rc = ytree_string(l->t, v[W_GFP], "gfp", 1, &p->gfp_text,
					   l->d)))
		return rc;
	if (pa_gfp_parse(p->gfp_text, &p->gfp) != NS_OK) {
		char q[128];
		ytree_quote(p->gfp_text, strlen(p->gfp_text), q, sizeof q);
		return err(l, v[W_GFP] ? v[W_GFP] : n, "unknown gfp mask '%s' "
			   "(write flags as the kernel does: GFP_KERNEL|__GFP_NOWARN)", q);
	}
	if (v[W_CPU]) {
		if ((rc = ytree_int(l->t, v[W_CPU], "cpu", 0, MACHINE_MAX_CPUS - 1,
				    &cpu, l->d)))
			return rc;
		if (cpu > m->max_cpu || m->cpu_node[cpu] < 0)
			return err(l, v[W_CPU], "CPU %lld is not a CPU of machine '%s' "
				   "(%d CPUs)", cpu, m->name, m->nr_cpus);
		p->cpu = (int)cpu;
	} else {
		p->cpu = -1;
		for (int c = 0; c <= m->max_cpu && p->cpu < 0; c++)
			if (m->cpu_node[c] >= 0)
				p->cpu = c;
		if (p->cpu < 0)
			return err(l, n, "machine '%s' has no CPU to run the workload on",
				   m->name);
	}
	if (v[W_OVERHEAD] && (rc = get_u32(l, v[W_OVERHEAD], "timing_overhead_cycles",
					   0, 1000000, &p->timing_overhead)))
		return rc;
	return NS_OK;
}

enum { M_TYPE, M_GROUPS, M_LOOPS, M_MODE, M_LIMIT, M_SEND, M_RECV, M_CTXSW, NR_M };

static int parse_messaging(struct loader *l, const struct ynode *n)
{
	static const struct ytree_field fields[NR_M] = {
		[M_TYPE] = {"type", 1},
		[M_GROUPS] = {"groups", 1},
		[M_LOOPS] = {"loops", 1},
		[M_MODE] = {"mode", 0},
		[M_LIMIT] = {"inflight_limit", 0},
		[M_SEND] = {"send_cycles", 0},
		[M_RECV] = {"recv_cycles", 0},
		[M_CTXSW] = {"ctx_switch_cycles", 0},
	};
	struct scn_messaging *p = &l->s->msg;
	const struct ynode *v[NR_M];
	struct wl_msg_params def;
	long long loops;
	int rc;

	if ((rc = ytree_fields(l->t, n, "workload 'messaging'", fields, NR_M, v, l->d)))
		return rc;
	wl_msg_params_default(&def);
	p->inflight_limit = def.inflight_limit;
	p->send_cycles = def.send_cycles;
	p->recv_cycles = def.recv_cycles;
	p->ctx_switch_cycles = def.ctx_switch_cycles;
	if ((rc = get_u32(l, v[M_GROUPS], "groups", 1, SCN_MSG_MAX_GROUPS, &p->groups)))
		return rc;
	if ((rc = ytree_int(l->t, v[M_LOOPS], "loops", 1, SCN_MSG_MAX_LOOPS, &loops, l->d)))
		return rc;
	p->loops = (uint64_t)loops;
	if (v[M_MODE]) {
		const char *mode;
		if ((rc = ytree_string(l->t, v[M_MODE], "mode", 1, &mode, l->d)))
			return rc;
		if (!strcmp(mode, "pipe"))
			return err(l, v[M_MODE], "mode 'pipe' is not modelled (no slab "
				   "traffic per message); use mode: socket");
		if (strcmp(mode, "socket")) {
			char q[128];
			ytree_quote(mode, v[M_MODE]->len, q, sizeof q);
			return err(l, v[M_MODE], "unknown mode '%s' (expected socket)", q);
		}
	}
	if (v[M_LIMIT] && (rc = get_u32(l, v[M_LIMIT], "inflight_limit", 1, 1000000,
					&p->inflight_limit)))
		return rc;
	if (v[M_SEND] && (rc = get_u32(l, v[M_SEND], "send_cycles", 0, 100000000,
				       &p->send_cycles)))
		return rc;
	if (v[M_RECV] && (rc = get_u32(l, v[M_RECV], "recv_cycles", 0, 100000000,
				       &p->recv_cycles)))
		return rc;
	if (v[M_CTXSW] && (rc = get_u32(l, v[M_CTXSW], "ctx_switch_cycles", 0, 100000000,
					&p->ctx_switch_cycles)))
		return rc;
	if (l->s->machine->nr_cpus < 1)
		return err(l, n, "machine '%s' has no CPU to run the workload on",
			   l->s->machine->name);
	return NS_OK;
}

static int parse_workload(struct loader *l, const struct ynode *n)
{
	const struct ynode *type;
	const char *ts;
	char q[128];
	int rc;

	if ((rc = ytree_expect_map(l->t, n, "'workload'", l->d)))
		return rc;
	type = ynode_map_get(n, "type");
	if (!type)
		return err(l, n, "missing required key 'type' in workload");
	if ((rc = ytree_string(l->t, type, "workload type", 1, &ts, l->d)))
		return rc;
	if (!strcmp(ts, "messaging")) {
		l->s->workload = SCN_WL_MESSAGING;
		return parse_messaging(l, n);
	}
	if (strcmp(ts, "pagealloc")) {
		ytree_quote(ts, type->len, q, sizeof q);
		return err(l, type, "unknown workload type '%s' (known: pagealloc, "
			   "messaging)", q);
	}
	l->s->workload = SCN_WL_PAGEALLOC;
	return parse_pagealloc(l, n);
}

/* ---- kernel knobs and the plan ------------------------------------------- */

static int parse_onoff(struct loader *l, const struct ynode *n, const char *what,
		       int *out)
{
	const char *s;
	int rc = ytree_string(l->t, n, what, 1, &s, l->d);
	if (rc)
		return rc;
	if (!strcmp(s, "on") || !strcmp(s, "off")) {
		*out = s[1] == 'n';
		return NS_OK;
	}
	char q[128];
	ytree_quote(s, n->len, q, sizeof q);
	return err(l, n, "%s must be 'on' or 'off', got '%s'", what, q);
}

static int parse_named(struct loader *l, const struct ynode *n, const char *what,
		       int (*parse)(const char *), const char *choices, int *out)
{
	const char *s;
	int rc = ytree_string(l->t, n, what, 1, &s, l->d);
	if (rc)
		return rc;
	int v = parse(s);
	if (v >= 0) {
		*out = v;
		return NS_OK;
	}
	char q[128];
	ytree_quote(s, n->len, q, sizeof q);
	return err(l, n, "unknown %s '%s' (expected %s)", what, q, choices);
}

static int parse_mems(struct loader *l, const struct ynode *n,
		      struct pa_config *c)
{
	const struct machine *m = l->s->machine;
	char errbuf[128];
	size_t errpos = 0;
	int *nodes = NULL, nr = 0, rc;
	const char *s;

	if ((rc = ytree_string(l->t, n, "mems_allowed", 1, &s, l->d)))
		return rc;
	rc = cpulist_parse(s, MACHINE_MAX_NODES, 0, &nodes, &nr, &errpos, errbuf,
			   sizeof errbuf);
	if (rc == NS_ENOMEM)
		return nomem(l);
	if (rc)
		return err(l, n, "mems_allowed: %s (a node list like \"0-1,3\")", errbuf);
	for (int i = 0; i < nr && rc == NS_OK; i++) {
		int id = nodes[i];
		if (m->node_index[id] < 0)
			rc = err(l, n, "mems_allowed: node %d is not a node of machine "
				 "'%s'", id, m->name);
		else if (m->nodes[m->node_index[id]].mem_pages == 0)
			rc = err(l, n, "mems_allowed: node %d has no memory", id);
		else
			c->mems_allowed[i] = id;
	}
	if (rc == NS_OK && nr == 0)
		rc = err(l, n, "mems_allowed must name at least one node");
	if (rc == NS_OK)
		c->nr_mems_allowed = nr;
	free(nodes);
	return rc;
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

/* Apply knob k's value node n to a point. */
static int apply_knob(struct loader *l, enum scn_knob k, const struct ynode *n,
		      struct scn_point *pt)
{
	struct pa_config *c = &pt->cfg;
	struct scn_value *val = &pt->knob[k];
	long long v = 0;
	int x = 0, rc = NS_OK;

	val->set = 1;
	val->text = n->kind == YNODE_SCALAR ? n->str : NULL;
	switch (k) {
	case SCN_KNOB_zonelist_iter:
		if ((rc = parse_named(l, n, "zonelist_iter", pa_iter_parse,
				      "pre-682a3385 or 682a3385", &x)))
			return rc;
		c->iter = (enum pa_iter_variant)x;
		val->text = pa_iter_name(c->iter);
		break;
	case SCN_KNOB_cpusets:
		if ((rc = parse_onoff(l, n, "cpusets", &c->cpusets_enabled)))
			return rc;
		val->text = c->cpusets_enabled ? "on" : "off";
		break;
	case SCN_KNOB_mems_allowed:
		rc = parse_mems(l, n, c);
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
		if ((rc = ytree_int(l->t, n, "min_free_kbytes", 0, INT32_MAX, &v, l->d)))
			return rc;
		c->min_free_kbytes = (uint32_t)v;
		break;
	case SCN_KNOB_watermark_scale_factor:
		/* sysctl range of vm.watermark_scale_factor (v4.6): 1..1000 */
		if ((rc = ytree_int(l->t, n, "watermark_scale_factor", 1, 1000, &v, l->d)))
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
		if ((rc = ytree_int(l->t, n, "percpu_pagelist_fraction", 0, INT32_MAX,
				    &v, l->d)))
			return rc;
		if (v != 0 && v < 8)
			return err(l, n, "percpu_pagelist_fraction must be 0 (default) "
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
	case SCN_NR_KNOBS:
		break;
	}
	if (knob_kinds[k] == 'i') {
		val->text = NULL;
		val->num = v;
	}
	return rc;
}

/* Values of unset knobs as the model's defaults. */
static void default_knobs(struct scn_point *pt)
{
	const struct pa_config *c = &pt->cfg;
	for (int k = 0; k < SCN_NR_KNOBS; k++) {
		struct scn_value *v = &pt->knob[k];
		if (v->set)
			continue;
		switch ((enum scn_knob)k) {
		case SCN_KNOB_zonelist_iter: v->text = pa_iter_name(c->iter); break;
		case SCN_KNOB_cpusets: v->text = c->cpusets_enabled ? "on" : "off"; break;
		case SCN_KNOB_mems_allowed: v->text = "all"; break;
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
		case SCN_NR_KNOBS: break;
		}
	}
}

static void value_text(const struct scn_value *v, char *buf, size_t len)
{
	if (v->text)
		snprintf(buf, len, "%s", v->text);
	else
		snprintf(buf, len, "%lld", v->num);
}

static void make_labels(struct scenario *s, struct scn_point *pt)
{
	char vt[SCN_LABEL_MAX];
	size_t off = 0, coff = 0;

	pt->label[0] = pt->column[0] = '\0';
	for (int a = 0; a < s->nr_axes; a++) {
		const struct scn_value *v = &pt->knob[s->axes[a].knob];
		value_text(v, vt, sizeof vt);
		off += (size_t)snprintf(pt->label + off, off < SCN_LABEL_MAX ? SCN_LABEL_MAX - off : 0,
					"%s%s=%s", a ? "," : "",
					knob_names[s->axes[a].knob], vt);
		if (off >= SCN_LABEL_MAX)
			off = SCN_LABEL_MAX;
	}
	enum scn_knob main_knob = s->workload == SCN_WL_MESSAGING ? SCN_KNOB_slab_free_layout
								  : SCN_KNOB_zonelist_iter;
	if (s->nr_axes == 0)
		snprintf(pt->label, SCN_LABEL_MAX, "%s=%s", knob_names[main_knob],
			 pt->knob[main_knob].text);
	if (s->nr_axes == 1) {
		value_text(&pt->knob[s->axes[0].knob], pt->column, SCN_LABEL_MAX);
	} else if (s->nr_axes == 0) {
		snprintf(pt->column, SCN_LABEL_MAX, "%s", pt->knob[main_knob].text);
	} else {
		for (int a = 0; a < s->nr_axes; a++) {
			value_text(&pt->knob[s->axes[a].knob], vt, sizeof vt);
			coff += (size_t)snprintf(pt->column + coff,
						 coff < SCN_LABEL_MAX ? SCN_LABEL_MAX - coff : 0,
						 "%s%s", a ? "," : "", vt);
			if (coff >= SCN_LABEL_MAX)
				coff = SCN_LABEL_MAX;
		}
	}
	if (s->workload == SCN_WL_MESSAGING)
		pt->kernel_model = pt->slub.variant == SLUB_POST ? "v5.9+c270cf30" : "v5.9";
	else
		pt->kernel_model = pt->cfg.iter == PA_ITER_POST ? "v4.6+patches1-4+682a3385"
								: "v4.6+patches1-4";
}

static int parse_kernel(struct loader *l, const struct ynode *n)
{
	struct ytree_field fields[SCN_NR_KNOBS];
	const struct ynode *v[SCN_NR_KNOBS] = {0};
	struct scenario *s = l->s;
	long long points = 1;
	int rc;

	for (int k = 0; k < SCN_NR_KNOBS; k++)
		fields[k] = (struct ytree_field){knob_names[k], 0};
	if (n && !ynode_is_null(n) &&
	    (rc = ytree_fields(l->t, n, "kernel", fields, SCN_NR_KNOBS, v, l->d)))
		return rc;
	if (n && ynode_is_null(n))
		return err(l, n, "'kernel' must be a mapping of knobs (or left out)");
	for (int k = 0; k < SCN_NR_KNOBS; k++) {
		const struct ynode *x = v[k];
		if (x && scn_knob_is_slub((enum scn_knob)k) && s->workload != SCN_WL_MESSAGING)
			return err(l, x, "kernel.%s applies to the SLUB model, which only "
				   "the messaging workload uses", knob_names[k]);
		if (!x || x->kind != YNODE_SEQ)
			continue;
		if (x->nr == 0)
			return err(l, x, "kernel.%s: an empty list gives no runs; "
				   "list at least one value", knob_names[k]);
		if (x->nr > SCN_MAX_AXIS_VALUES)
			return err(l, x, "kernel.%s lists %zu values; at most %d",
				   knob_names[k], x->nr, SCN_MAX_AXIS_VALUES);
		for (size_t i = 0; i < x->nr; i++)
			if (x->items[i]->kind != YNODE_SCALAR)
				return err(l, x->items[i], "kernel.%s: sweep values must be "
					   "scalars (a list of lists is not a sweep)",
					   knob_names[k]);
		s->axes[s->nr_axes++] = (struct scn_axis){(enum scn_knob)k, (int)x->nr};
		points *= (long long)x->nr;
		if (points > SCN_MAX_POINTS)
			return err(l, x, "the sweep has more than %d points (the "
				   "product of the list lengths under 'kernel')",
				   SCN_MAX_POINTS);
	}
	s->nr_points = (int)points;
	s->points = calloc((size_t)points, sizeof *s->points);
	if (!s->points)
		return nomem(l);
	for (int p = 0; p < s->nr_points; p++) {
		struct scn_point *pt = &s->points[p];
		int rest = p;
		for (int a = s->nr_axes - 1; a >= 0; a--) {
			pt->axis_value[a] = rest % s->axes[a].nr;
			rest /= s->axes[a].nr;
		}
		pa_config_default(&pt->cfg);
		slub_config_default(&pt->slub);
		for (int k = 0, a = 0; k < SCN_NR_KNOBS; k++) {
			const struct ynode *x = v[k];
			if (!x)
				continue;
			if (x->kind == YNODE_SEQ)
				x = x->items[pt->axis_value[a++]];
			if ((rc = apply_knob(l, (enum scn_knob)k, x, pt)))
				return rc;
		}
		/* Without a cpuset every task's mems_allowed is all memory
		 * nodes (cpuset.c: top_cpuset tracks N_MEMORY). */
		if (!pt->cfg.cpusets_enabled && pt->cfg.nr_mems_allowed) {
			pt->cfg.nr_mems_allowed = 0;
			pt->knob[SCN_KNOB_mems_allowed].set = 0;
		}
		default_knobs(pt);
		make_labels(s, pt);
	}
	return NS_OK;
}

/* ---- top level ------------------------------------------------------------ */

enum { F_NAME, F_DESC, F_MACHINE, F_KERNEL, F_WORKLOAD, F_REPS, F_SEED, NR_F };

static int parse_scenario(struct loader *l)
{
	static const struct ytree_field fields[NR_F] = {
		[F_NAME] = {"name", 1},         [F_DESC] = {"description", 0},
		[F_MACHINE] = {"machine", 1},   [F_KERNEL] = {"kernel", 0},
		[F_WORKLOAD] = {"workload", 1}, [F_REPS] = {"repetitions", 0},
		[F_SEED] = {"seed", 0},
	};
	struct scenario *s = l->s;
	const struct ynode *v[NR_F];
	long long seed = 1;
	int rc;

	if ((rc = ytree_fields(l->t, l->t->root, "scenario file", fields, NR_F, v,
			       l->d)))
		return rc;
	if ((rc = get_text(l, v[F_NAME], "name", 1, &s->name)))
		return rc;
	if (v[F_DESC] && (rc = get_text(l, v[F_DESC], "description", 0,
					&s->description)))
		return rc;
	s->repetitions = 1;
	if (v[F_REPS] && (rc = ytree_int(l->t, v[F_REPS], "repetitions", 1,
					 SCN_MAX_REPETITIONS, &s->repetitions, l->d)))
		return rc;
	if (v[F_SEED] && (rc = ytree_int(l->t, v[F_SEED], "seed", 0,
					 INT64_MAX - SCN_MAX_REPETITIONS, &seed, l->d)))
		return rc;
	s->seed = (uint64_t)seed;
	if ((rc = load_machine(l, v[F_MACHINE])))
		return rc;
	if ((rc = parse_workload(l, v[F_WORKLOAD])))
		return rc;
	return parse_kernel(l, v[F_KERNEL]);
}

int scenario_is_scenario_root(const struct ynode *root)
{
	return root && root->kind == YNODE_MAP && ynode_map_get(root, "workload");
}

static int load(const char *name, const char *path, char *buf, size_t len,
		struct scenario **out, struct diag *d)
{
	struct loader l = {0};
	uint8_t dig[SHA256_DIGEST_LEN];
	struct scenario *s = calloc(1, sizeof *s);
	int rc;

	*out = NULL;
	if (!s) {
		free(buf);
		return diag_set(d, NS_ENOMEM, name, 0, 0, "out of memory");
	}
	s->text = buf;
	s->text_len = len;
	s->path = strdup(path);
	if (!s->path) {
		rc = diag_set(d, NS_ENOMEM, name, 0, 0, "out of memory");
		goto out;
	}
	sha256(buf, len, dig);
	sha256_hex(dig, s->sha256);
	if ((rc = ytree_parse(name, buf, len, &s->tree, d)))
		goto out;
	l.t = s->tree;
	l.d = d;
	l.s = s;
	if ((rc = parse_scenario(&l)))
		goto out;
	rc = scenario_check(s, d);
out:
	if (rc) {
		scenario_free(s);
		return rc;
	}
	*out = s;
	return NS_OK;
}

int scenario_load_buf(const char *name, const char *buf, size_t len,
		      struct scenario **out, struct diag *d)
{
	char *copy = malloc(len + 1);
	*out = NULL;
	if (!copy)
		return diag_set(d, NS_ENOMEM, name, 0, 0, "out of memory");
	memcpy(copy, buf, len);
	copy[len] = '\0';
	return load(name, name, copy, len, out, d);
}

int scenario_load_file(const char *path, struct scenario **out, struct diag *d)
{
	char *buf;
	size_t len;
	*out = NULL;
	int rc = ytree_read_file(path, &buf, &len, d);
	if (rc)
		return rc;
	return load(ytree_display_name(path), path, buf, len, out, d);
}

void scenario_free(struct scenario *s)
{
	if (!s)
		return;
	free(s->path);
	free(s->name);
	free(s->description);
	free(s->text);
	free(s->machine_ref);
	free(s->machine_path);
	free(s->machine_text);
	machine_free(s->machine);
	free(s->points);
	ytree_free(s->tree);
	free(s);
}

#define CHECK(cond, ...)                                                       \
	do {                                                                   \
		if (!(cond))                                                   \
			return diag_set(d, NS_EINTERNAL, s->path, 0, 0, __VA_ARGS__); \
	} while (0)

int scenario_check(const struct scenario *s, struct diag *d)
{
	long long prod = 1;
	CHECK(s->machine, "scenario without a machine");
	CHECK(s->nr_axes >= 0 && s->nr_axes <= SCN_NR_KNOBS, "bad axis count %d",
	      s->nr_axes);
	for (int a = 0; a < s->nr_axes; a++) {
		CHECK(s->axes[a].nr >= 1 && s->axes[a].nr <= SCN_MAX_AXIS_VALUES,
		      "axis %d has %d values", a, s->axes[a].nr);
		prod *= s->axes[a].nr;
	}
	CHECK(s->nr_points >= 1 && s->nr_points <= SCN_MAX_POINTS &&
	      prod == s->nr_points, "%d points for axes giving %lld",
	      s->nr_points, prod);
	for (int p = 0; p < s->nr_points; p++) {
		const struct scn_point *pt = &s->points[p];
		CHECK(pt->label[0] && pt->column[0] && pt->kernel_model,
		      "point %d has no label", p);
		for (int k = 0; k < SCN_NR_KNOBS; k++)
			CHECK((knob_kinds[k] == 's') == (pt->knob[k].text != NULL),
			      "point %d: knob %s has the wrong kind of value", p,
			      knob_names[k]);
	}
	CHECK(s->repetitions >= 1 && s->repetitions <= SCN_MAX_REPETITIONS,
	      "repetitions %lld", s->repetitions);
	if (s->workload == SCN_WL_MESSAGING) {
		const struct scn_messaging *mg = &s->msg;
		CHECK(mg->groups >= 1 && mg->groups <= SCN_MSG_MAX_GROUPS && mg->loops >= 1 &&
		      mg->loops <= (uint64_t)SCN_MSG_MAX_LOOPS && mg->inflight_limit >= 1,
		      "messaging groups %u loops %llu limit %u", mg->groups,
		      (unsigned long long)mg->loops, mg->inflight_limit);
		return NS_OK;
	}
	const struct scn_pagealloc *pa = &s->pa;
	const struct machine *m = s->machine;
	CHECK(pa->cpu >= 0 && pa->cpu <= m->max_cpu && m->cpu_node[pa->cpu] >= 0,
	      "workload CPU %d not in the machine", pa->cpu);
	CHECK(pa->nr_orders >= 1 && pa->nr_orders <= SCN_MAX_ORDER, "%d orders",
	      pa->nr_orders);
	for (int i = 0; i < pa->nr_orders; i++)
		CHECK(pa->orders[i] < SCN_MAX_ORDER, "order %u", pa->orders[i]);
	CHECK(pa->nr_batches >= 0 && pa->nr_batches <= SCN_MAX_BATCHES,
	      "%d batches", pa->nr_batches);
	for (int i = 0; i < pa->nr_batches; i++)
		CHECK(pa->batches[i] >= 1 && pa->batches[i] <= SCN_MAX_BATCH,
		      "batch %u", pa->batches[i]);
	CHECK(pa->inner >= 1 && pa->outer >= 1 && pa->drop < pa->outer,
	      "inner %u outer %u drop %u", pa->inner, pa->outer, pa->drop);
	CHECK(s->repetitions >= 1 && s->repetitions <= SCN_MAX_REPETITIONS,
	      "repetitions %lld", s->repetitions);
	return NS_OK;
}

#undef CHECK

void scenario_set_inner(struct scenario *s, uint32_t inner)
{
	s->pa.inner = inner;
}

long long scenario_nr_runs(const struct scenario *s)
{
	return (long long)s->nr_points * s->repetitions;
}

void scenario_run_at(const struct scenario *s, long long i, int *point,
		     long long *repetition, uint64_t *seed)
{
	*point = (int)(i % s->nr_points);
	*repetition = i / s->nr_points;
	*seed = s->seed + (uint64_t)*repetition;
}

static void list_text(const unsigned *u, const uint32_t *b, int n, char *buf,
		      size_t len)
{
	size_t off = 0;
	buf[0] = '\0';
	for (int i = 0; i < n && off < len; i++)
		off += (size_t)snprintf(buf + off, len - off, "%s%u", i ? "," : "",
					u ? u[i] : b[i]);
}

int scenario_params(const struct scenario *s, int point, scn_param_fn fn,
		    void *arg)
{
	const struct scn_point *pt = &s->points[point];
	const struct scn_pagealloc *pa = &s->pa;
	char key[64], buf[1024];
	int rc;

#define P_TEXT(k, t) do { if ((rc = fn(arg, (k), (t), 0))) return rc; } while (0)
#define P_NUM(k, n) do { if ((rc = fn(arg, (k), NULL, (long long)(n)))) return rc; } while (0)
	P_TEXT("name", s->name);
	P_TEXT("machine", s->machine_ref);
	P_TEXT("machine.name", s->machine->name);
	for (int k = 0; k < SCN_NR_KNOBS; k++) {
		if (scn_knob_is_slub((enum scn_knob)k) && s->workload != SCN_WL_MESSAGING)
			continue;
		snprintf(key, sizeof key, "kernel.%s", knob_names[k]);
		if (pt->knob[k].text)
			P_TEXT(key, pt->knob[k].text);
		else
			P_NUM(key, pt->knob[k].num);
	}
	P_TEXT("workload.type", scn_workload_name(s->workload));
	if (s->workload == SCN_WL_MESSAGING) {
		P_NUM("workload.groups", s->msg.groups);
		P_NUM("workload.loops", s->msg.loops);
		P_TEXT("workload.mode", "socket");
		P_NUM("workload.inflight_limit", s->msg.inflight_limit);
		P_NUM("workload.send_cycles", s->msg.send_cycles);
		P_NUM("workload.recv_cycles", s->msg.recv_cycles);
		P_NUM("workload.ctx_switch_cycles", s->msg.ctx_switch_cycles);
		P_NUM("repetitions", s->repetitions);
		P_NUM("seed", s->seed);
		return NS_OK;
	}
	list_text(pa->orders, NULL, pa->nr_orders, buf, sizeof buf);
	P_TEXT("workload.orders", buf);
	if (pa->nr_batches) {
		list_text(NULL, pa->batches, pa->nr_batches, buf, sizeof buf);
		P_TEXT("workload.batches", buf);
	} else {
		P_TEXT("workload.batches", "mmtests");
	}
	P_NUM("workload.inner_iterations", pa->inner);
	P_NUM("workload.outer_samples", pa->outer);
	P_NUM("workload.drop_samples", pa->drop);
	P_TEXT("workload.gfp", pa->gfp_text);
	P_NUM("workload.gfp_mask", pa->gfp);
	P_NUM("workload.cpu", pa->cpu);
	P_NUM("workload.timing_overhead_cycles", pa->timing_overhead);
	P_NUM("repetitions", s->repetitions);
	P_NUM("seed", s->seed);
#undef P_TEXT
#undef P_NUM
	return NS_OK;
}
