/*
 * scenario_settings — the scenario loader's context and its settings:
 * sweeps, overrides, --set and --sweep (scenario.c's design notes).
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


/* ---- loader context ------------------------------------------------------ */

/* The tree a node belongs to: a command-line value's own tree, or the file. */
static int in_subtree(const struct ynode *r, const struct ynode *n, int depth)
{
	if (r == n)
		return 1;
	size_t items = r->kind == YNODE_MAP ? 2 * r->nr : r->kind == YNODE_SEQ ? r->nr : 0;
	for (size_t j = 0; depth > 0 && j < items; j++)
		if (in_subtree(r->items[j], n, depth - 1))
			return 1;
	return 0;
}

const struct ytree *scn_tree_of(const struct loader *l, const struct ynode *n)
{
	const struct scenario *s = l->s;
	for (int i = 0; i < s->nr_cli; i++)
		if (in_subtree(s->cli_trees[i]->root, n, 4))
			return s->cli_trees[i];
	return l->t;
}

int scn_is_cli(const struct loader *l, const struct ynode *n)
{
	return scn_tree_of(l, n) != l->t;
}

int scn_err(struct loader *l, const struct ynode *n, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int rc = diag_vset(l->d, NS_EINPUT, TT(n)->name, n->line, n->col, fmt, ap);
	va_end(ap);
	return rc;
}

int scn_nomem(struct loader *l)
{
	return ytree_nomem(l->t, l->d);
}

/* One line of printable text, copied (ytree_text). */
int scn_get_text(struct loader *l, const struct ynode *n, const char *what,
		    int nonempty, char **out)
{
	return ytree_text(TT(n), n, what, nonempty, out, l->d);
}

/* The value of a setting at the point being resolved; marks it used. */
const struct ynode *scn_lookup(struct loader *l, const char *key)
{
	for (int i = 0; i < l->nr_set; i++) {
		struct setting *st = &l->set[i];
		if (strcmp(st->key, key))
			continue;
		st->used = 1;
		return st->axis < 0 ? st->one : st->vals[l->pt->axis_value[st->axis]];
	}
	return NULL;
}

/* Section fields: the file's values (ytree_fields with every key optional,
 * so a setting can supply a required one), replaced by settings
 * "prefix.key"; then the required ones checked. */
int scn_section_fields(struct loader *l, const struct ynode *n,
			  const char *prefix, const char *what,
			  const struct ytree_field *fields, size_t nr,
			  const struct ynode **v)
{
	struct ytree_field opt[32];
	char key[128];
	int rc;

	for (size_t i = 0; i < nr; i++) {
		opt[i] = fields[i];
		opt[i].required = 0;
		v[i] = NULL;
	}
	if (n && (rc = ytree_fields(l->t, n, what, opt, nr, v, l->d)))
		return rc;
	/* a sweep of the whole section: each value a mapping of its keys */
	const struct ynode *sec = scn_lookup(l, prefix), *sv[32];
	if (sec) {
		if ((rc = ytree_fields(TT(sec), sec, what, opt, nr, sv, l->d)))
			return rc;
		for (size_t i = 0; i < nr; i++) {
			if (!sv[i])
				continue;
			if (!strcmp(fields[i].key, "type"))
				return scn_err(l, sv[i], "workload.type cannot be swept: a "
					   "plan runs one workload");
			if (v[i])
				return scn_err(l, sv[i], "'%s.%s' is given both under '%s:' "
					   "(line %d) and in the sweep of '%s'", prefix,
					   fields[i].key, prefix, v[i]->line, prefix);
			v[i] = sv[i];
		}
	}
	for (size_t i = 0; i < nr; i++) {
		snprintf(key, sizeof key, "%s.%s", prefix, fields[i].key);
		const struct ynode *x = scn_lookup(l, key);
		if (x)
			v[i] = x;
	}
	for (size_t i = 0; i < nr; i++)
		if (fields[i].required && !v[i])
			return scn_err(l, n, "missing required key '%s' in %s", fields[i].key,
				   what);
	return NS_OK;
}

/* A node's value as label / params text: the scalar, or "[a,b]". */
void scn_node_text(const struct ynode *n, char *buf, size_t len)
{
	if (n->kind == YNODE_SCALAR) {
		snprintf(buf, len, "%s", n->str);
		return;
	}
	if (n->kind == YNODE_MAP) {     /* a section value: its values, ':' */
		size_t off = 0;
		buf[0] = '\0';
		for (size_t i = 0; i < n->nr && off < len; i++) {
			const struct ynode *x = n->items[2 * i + 1];
			off += (size_t)snprintf(buf + off, len - off, "%s%s", i ? ":" : "",
						x->kind == YNODE_SCALAR ? x->str : "...");
		}
		return;
	}
	size_t off = (size_t)snprintf(buf, len, "[");
	for (size_t i = 0; i < n->nr && off < len; i++) {
		const struct ynode *x = n->items[i];
		off += (size_t)snprintf(buf + off, len - off, "%s%s", i ? "," : "",
					x->kind == YNODE_SCALAR ? x->str : "...");
	}
	if (off < len)
		snprintf(buf + off, len - off, "]");
}

/* ---- settings: sweeps, overrides, --set, --sweep --------------------------- */

/* The setting for key, created if missing (*created says which). */
static int setting_for(struct loader *l, const char *key, struct setting **out,
		       int *created)
{
	for (int i = 0; i < l->nr_set; i++)
		if (!strcmp(l->set[i].key, key)) {
			*out = &l->set[i];
			*created = 0;
			return NS_OK;
		}
	if (l->nr_set == l->cap_set) {
		int cap = l->cap_set ? 2 * l->cap_set : 16;
		struct setting *n = realloc(l->set, (size_t)cap * sizeof *n);
		if (!n)
			return scn_nomem(l);
		l->set = n;
		l->cap_set = cap;
	}
	struct setting *st = &l->set[l->nr_set];
	memset(st, 0, sizeof *st);
	st->key = strdup(key);
	if (!st->key)
		return scn_nomem(l);
	st->axis = -1;
	l->nr_set++;
	*out = st;
	*created = 1;
	return NS_OK;
}

/* What an axis of a key takes: workload parameters may be lists (orders),
 * whole sections are mappings, everything else scalars. */
enum { VAL_SCALARS, VAL_LISTS, VAL_MAPS };
static int value_kind(const char *key)
{
	if (!strcmp(key, "kernel") || !strcmp(key, "workload") || !strcmp(key, "policy") ||
	    !strcmp(key, "sched") || !strcmp(key, "cost") || !strcmp(key, "noise"))
		return VAL_MAPS;
	return strncmp(key, "workload.", 9) ? VAL_SCALARS : VAL_LISTS;
}

/* Make st an axis over the items of list (checked here). */
static int set_axis(struct loader *l, struct setting *st, const struct ynode *list,
		    int kind)
{
	if (list->nr == 0)
		return scn_err(l, list, "%s: an empty list gives no runs; list at least "
			   "one value", st->key);
	if (list->nr > SCN_MAX_AXIS_VALUES)
		return scn_err(l, list, "%s lists %zu values; at most %d", st->key,
			   list->nr, SCN_MAX_AXIS_VALUES);
	for (size_t i = 0; i < list->nr; i++) {
		enum ynode_kind k = list->items[i]->kind;
		if (kind == VAL_MAPS && k != YNODE_MAP)
			return scn_err(l, list->items[i], "%s: a sweep of the whole section "
				   "takes mappings of its keys ({mempolicy: bind, nodes: "
				   "\"1\"})", st->key);
		if (kind != VAL_MAPS && (k == YNODE_MAP ||
					 (kind == VAL_SCALARS && k != YNODE_SCALAR)))
			return scn_err(l, list->items[i], "%s: sweep values must be scalars "
				   "(a list of lists is not a sweep)", st->key);
	}
	free(st->vals);
	st->vals = malloc(list->nr * sizeof *st->vals);
	if (!st->vals)
		return scn_nomem(l);
	for (size_t i = 0; i < list->nr; i++)
		st->vals[i] = list->items[i];
	st->nr = (int)list->nr;
	st->one = NULL;
	st->axis = 0;             /* numbered in scn_assign_axes */
	return NS_OK;
}

static void set_fixed(struct setting *st, const struct ynode *v)
{
	free(st->vals);
	st->vals = NULL;
	st->nr = 0;
	st->one = v;
	st->axis = -1;
}

/*
 * Is key a key settings may name?  NULL if so, else the reason.  Sweeps
 * refuse the plan-level keys: repetitions and seed define the repetitions
 * of every point, name and description the scenario, workload.type its
 * workload.
 */
static const char *bad_key(const char *key, int sweep, char *buf, size_t len)
{
	static const char *const fixed[] = {"name", "description", "seed",
					    "repetitions", "workload.type", "plan_limits.runs",
					    "plan_limits.memory_mib"};
	for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++)
		if (!strcmp(key, fixed[i]))
			return !sweep ? NULL
			       : i < 2 ? "the scenario's name and description cannot be swept"
			       : i < 4 ? "seed and repetitions cannot be swept: repetition r "
					 "of every point uses seed + r (set 'repetitions' for "
					 "more runs per point)"
			       : i < 5 ? "workload.type cannot be swept: a plan runs one "
					 "workload (write one scenario per workload)"
				       : "plan_limits cannot be swept: they bound the whole "
					 "plan, not one point (set them, or use --set)";
	if (!strcmp(key, "machine") || !strcmp(key, "kernel") ||
	    !strcmp(key, "workload") || !strcmp(key, "policy") || !strcmp(key, "sched") ||
	    !strcmp(key, "cost") || !strcmp(key, "noise"))
		return NULL;
	if (!strncmp(key, "kernel.", 7)) {
		if (scn_moved_knob(key + 7))
			return scn_moved_knob(key + 7);
		if (scn_knob_lookup(key + 7) >= 0)
			return NULL;
		const char *near = ytree_suggest(key + 7, strlen(key + 7), scn_knob_names,
						 SCN_NR_KNOBS);
		if (!near)
			return "unknown kernel knob (numasim list keys)";
		snprintf(buf, len, "unknown kernel knob (did you mean 'kernel.%s'?)", near);
		return buf;
	}
	static const char *const prefix[] = {"workload.", "policy.", "overrides.", "sched.",
					     "cost.", "noise."};
	for (size_t i = 0; i < sizeof prefix / sizeof prefix[0]; i++)
		if (!strncmp(key, prefix[i], strlen(prefix[i])) && key[strlen(prefix[i])] &&
		    key[strlen(key) - 1] != '.')
			return NULL;
	/* a misspelt section ("polcy.cpuset") or plan key ("repetitons") */
	static const char *const sections[] = {"kernel", "workload", "policy", "overrides",
					       "sched", "cost", "machine", "name",
					       "description", "seed", "repetitions"};
	size_t head = strcspn(key, ".");
	const char *near = ytree_suggest(key, head, sections,
					 sizeof sections / sizeof sections[0]);
	if (near) {
		snprintf(buf, len, "unknown key (did you mean '%s%s'?)", near, key + head);
		return buf;
	}
	return "unknown key (known: machine, kernel.KNOB, workload.PARAM, policy.KEY, "
	       "sched.KEY, cost.KEY, overrides.PATH, and for --set also name, description, "
	       "seed, repetitions, plan_limits.runs, plan_limits.memory_mib)";
}

/* The section node of a file key ("workload.x" -> the workload mapping's
 * value of x), for "given twice" errors. */
static const struct ynode *file_value(const struct loader *l, const char *key)
{
	static const char *const sec[] = {"kernel.", "workload.", "policy.", "sched.",
					  "cost.", "noise."};
	const struct ynode *top[] = {l->top_kernel, l->top_workload, l->top_policy,
				     l->top_sched, l->top_cost, l->top_noise};
	for (int i = 0; i < 6; i++) {
		size_t n = strlen(sec[i]);
		if (!strncmp(key, sec[i], n) && top[i] && top[i]->kind == YNODE_MAP)
			return ynode_map_get(top[i], key + n);
	}
	return NULL;
}

int scn_kernel_lists(struct loader *l)
{
	const struct ynode *k = l->top_kernel;
	struct setting *st;
	char key[64];
	int created, rc;

	if (!k || k->kind != YNODE_MAP)
		return NS_OK;
	for (int i = 0; i < SCN_NR_KNOBS; i++) {
		const struct ynode *x = ynode_map_get(k, scn_knob_names[i]);
		/* kernel.change's list is files applied in order, not an axis */
		if (!x || x->kind != YNODE_SEQ || i == SCN_KNOB_change)
			continue;
		snprintf(key, sizeof key, "kernel.%s", scn_knob_names[i]);
		if ((rc = setting_for(l, key, &st, &created)))
			return rc;
		st->at = x;
		if ((rc = set_axis(l, st, x, VAL_SCALARS)))
			return rc;
	}
	return NS_OK;
}

/* `overrides:` (machine values) and `sweep:` of the file. */
int scn_file_map(struct loader *l, const struct ynode *n, int sweep)
{
	const char *what = sweep ? "'sweep'" : "'overrides'";
	char key[256], q[128];
	struct setting *st;
	int created, rc;

	if (!n)
		return NS_OK;
	if ((rc = ytree_expect_map(l->t, n, what, l->d)))
		return rc;
	for (size_t i = 0; i < n->nr; i++) {
		const struct ynode *k = n->items[2 * i], *v = n->items[2 * i + 1];
		const char *ks;
		if ((rc = ytree_string(l->t, k, sweep ? "sweep key" : "override key", 1,
				       &ks, l->d)))
			return rc;
		if (snprintf(key, sizeof key, "%s%s", sweep ? "" : "overrides.", ks) >=
		    (int)sizeof key)
			return scn_err(l, k, "key too long");
		char hint[160];
		const char *why = bad_key(key, sweep, hint, sizeof hint);
		ytree_quote(ks, k->len, q, sizeof q);
		if (why)
			return scn_err(l, k, "%s '%s': %s", sweep ? "sweep" : "override", q, why);
		const struct ynode *twice = file_value(l, key);
		if (twice)
			return scn_err(l, k, "'%s' is also given at line %d; give it in one "
				   "place", key, twice->line);
		if (!strcmp(key, "machine") && ynode_map_get(l->t->root, "machine"))
			return scn_err(l, k, "the machines are given by 'machine:' too; drop "
				   "one of them");
		if ((rc = setting_for(l, key, &st, &created)))
			return rc;
		if (!created)
			return scn_err(l, k, "'%s' is given twice (under 'sweep:' and "
				   "'overrides:', or twice)", key);
		st->at = k;
		if (v->kind == YNODE_SEQ) {
			if ((rc = set_axis(l, st, v, value_kind(key))))
				return rc;
		} else if (sweep) {
			return scn_err(l, v, "sweep '%s' needs a list of values", q);
		} else if (v->kind != YNODE_SCALAR || ynode_is_null(v)) {
			return scn_err(l, v, "override '%s' needs a value or a list of values "
				   "(write the full dotted path: costs.mispredict: 20)", q);
		} else {
			set_fixed(st, v);
		}
	}
	return NS_OK;
}

/* The "\001N" tree name of command-line argument N. */
static int cli_err(struct loader *l, const char *arg, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int cli_err(struct loader *l, const char *arg, const char *fmt, ...)
{
	char msg[DIAG_MSG_MAX];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	return diag_set(l->d, NS_EINPUT, l->o->prog, 0, 0, "%s: %s", arg, msg);
}

/*
 * Parse a command-line value (arg's KEY=...).  libyaml's own wording
 * ("malformed YAML: ... while parsing a flow node at line 1, column 2")
 * describes a file the user never wrote: the error names the option and
 * the key, and the place as a character of the value (skip: characters
 * added in front of it, the '[' of a --sweep list).
 */
static int cli_tree(struct loader *l, const char *arg, const char *key,
		    const char *text, size_t len, int skip, struct ytree **out)
{
	struct scenario *s = l->s;
	struct diag yd;
	char name[32], problem[DIAG_MSG_MAX];
	snprintf(name, sizeof name, "\001%d", s->nr_cli);
	diag_init(&yd);
	int rc = ytree_parse(name, text, len, out, &yd);
	if (rc == NS_ENOMEM)
		return scn_nomem(l);
	if (rc) {
		const char *p = yd.msg;
		if (!strncmp(p, "malformed YAML: ", 16))
			p += 16;
		snprintf(problem, sizeof problem, "%.*s", (int)strcspn(p, "("), p);
		size_t n = strlen(problem);
		while (n > 0 && problem[n - 1] == ' ')
			problem[--n] = '\0';
		int at = yd.line == 1 && yd.col > skip ? yd.col - skip : 0;
		if (at > 0 && (size_t)at <= len)
			return cli_err(l, arg, "the value of '%s' is not valid YAML "
				       "(%s, at character %d of the value)", key,
				       problem, at);
		return cli_err(l, arg, "the value of '%s' is not valid YAML (%s)",
			       key, problem);
	}
	s->cli_trees[s->nr_cli++] = *out;
	return NS_OK;
}

/*
 * The 1-based position of the first empty item of a --sweep list
 * "V1,V2,..." (commas inside brackets, braces or quotes do not split), or
 * 0 when every item has text.
 */
static int empty_sweep_item(const char *v)
{
	int depth = 0, item = 1, text = 0;
	char quote = 0;
	for (const char *p = v;; p++) {
		if (quote) {
			quote = *p == quote ? 0 : quote;
			if (!*p)
				return 0;      /* unbalanced: the parser says so */
			continue;
		}
		if (*p == '\0' || (*p == ',' && depth == 0)) {
			if (!text)
				return item;
			if (!*p)
				return 0;
			item++;
			text = 0;
			continue;
		}
		if (*p == '[' || *p == '{')
			depth++;
		else if ((*p == ']' || *p == '}') && depth > 0)
			depth--;
		else if (*p == '"' || *p == '\'')
			quote = *p;
		if (*p != ' ' && *p != '\t')
			text = 1;
	}
}

/* One --set KEY=VALUE or --sweep KEY=V1,V2 (args[i] = "--set K=V"). */
int scn_cli_setting(struct loader *l, int i)
{
	const char *arg = l->s->cli_args[i];
	int sweep = !strncmp(arg, "--sweep ", 8);
	int machine = !strncmp(arg, "--machine ", 10);
	const char *sp = strchr(arg, ' ');
	const char *kv = sp ? sp + 1 : arg;
	const char *eq = machine ? NULL : strchr(kv, '=');
	struct setting *st;
	struct ytree *t;
	char key[256];
	int created, rc;

	if (eq && (size_t)(eq - kv) >= sizeof key)
		return cli_err(l, arg, "key too long");
	if (eq)
		snprintf(key, sizeof key, "%.*s", (int)(eq - kv), kv);
	else if (machine)
		snprintf(key, sizeof key, "machine");
	else
		return cli_err(l, arg, "expected KEY=VALUE");
	char hint[160];
	const char *why = bad_key(key, sweep, hint, sizeof hint);
	if (why)
		return cli_err(l, arg, "'%s': %s", key, why);
	const char *val = eq ? eq + 1 : kv;
	if (strspn(val, " \t") == strlen(val))
		return cli_err(l, arg, "empty value");
	if (sweep) {
		int empty = empty_sweep_item(val);
		if (empty)
			return cli_err(l, arg, "empty value: item %d of the list of '%s' "
				       "has no text", empty, key);
		size_t vl = strlen(val);
		char *list = malloc(vl + 3);
		if (!list)
			return scn_nomem(l);
		list[0] = '[';
		memcpy(list + 1, val, vl);
		memcpy(list + 1 + vl, "]", 2);
		rc = cli_tree(l, arg, key, list, vl + 2, 1, &t);
		free(list);
	} else {
		rc = cli_tree(l, arg, key, val, strlen(val), 0, &t);
	}
	if (rc)
		return rc;
	if ((rc = setting_for(l, key, &st, &created)))
		return rc;
	st->at = t->root;
	st->cli = 1;
	if (!sweep) {
		if (value_kind(key) == VAL_MAPS && t->root->kind != YNODE_MAP)
			return cli_err(l, arg, "'%s' takes a mapping of its keys "
				       "({KEY: VALUE, ...})", key);
		set_fixed(st, t->root);
		return NS_OK;
	}
	if (t->root->kind != YNODE_SEQ)
		return cli_err(l, arg, "expected KEY=V1,V2,...");
	return set_axis(l, st, t->root, value_kind(key));
}

/* Number the axes in settings order; the plan size. */
int scn_assign_axes(struct loader *l)
{
	struct scenario *s = l->s;
	long long points = 1;

	s->nr_axes = 0;
	for (int i = 0; i < l->nr_set; i++) {
		struct setting *st = &l->set[i];
		if (st->axis < 0)
			continue;
		if (s->nr_axes == SCN_MAX_AXES)
			return scn_err(l, st->at, "more than %d sweep axes", SCN_MAX_AXES);
		struct scn_axis *a = &s->axes[s->nr_axes];
		a->knob = strncmp(st->key, "kernel.", 7) ? -1 : scn_knob_lookup(st->key + 7);
		a->nr = st->nr;
		a->key = strdup(st->key);
		if (!a->key)
			return scn_nomem(l);
		a->name = a->knob >= 0 ? scn_knob_names[a->knob] : a->key;
		st->axis = s->nr_axes++;
		points *= st->nr;
		if (points > SCN_MAX_POINTS)
			return scn_err(l, st->at, "the sweep has more than %d points (the product of "
				   "the axes' list lengths)", SCN_MAX_POINTS);
	}
	s->nr_points = (int)points;
	return NS_OK;
}

/* A setting nothing consumed at point 0 names no value of the scenario. */
int scn_unused_settings(struct loader *l)
{
	for (int i = 0; i < l->nr_set; i++) {
		const struct setting *st = &l->set[i];
		if (st->used)
			continue;
		if (!strncmp(st->key, "workload.", 9)) {
			const struct workload_ops *w = l->s->wl;
			const char *names[64];
			size_t n = 0;
			for (int k = 0; w && k < w->nr_fields && n < 64; k++)
				names[n++] = w->fields[k].key;
			const char *near = ytree_suggest(st->key + 9, strlen(st->key + 9), names, n);
			if (near)
				return scn_err(l, st->at, "'%s': workload '%s' has no parameter "
					       "'%s' (did you mean 'workload.%s'?)", st->key,
					       scn_workload_name(l->s->workload), st->key + 9, near);
			return scn_err(l, st->at, "'%s': workload '%s' has no parameter '%s'",
				   st->key, scn_workload_name(l->s->workload), st->key + 9);
		}
		static const char *const policy_keys[] = {"cpuset", "mempolicy", "nodes", "cpus"};
		static const char *const cost_keys[] = {"model", "bpred", "code", "accounting",
							"sample_period", "sample_warm",
							"sample_window"};
		const char *near = NULL;
		if (!strncmp(st->key, "policy.", 7))
			near = ytree_suggest(st->key + 7, strlen(st->key + 7), policy_keys,
					     sizeof policy_keys / sizeof policy_keys[0]);
		else if (!strncmp(st->key, "cost.", 5))
			near = ytree_suggest(st->key + 5, strlen(st->key + 5), cost_keys,
					     sizeof cost_keys / sizeof cost_keys[0]);
		if (near)
			return scn_err(l, st->at, "'%s': %.*s has no key '%s' (did you mean "
				       "'%.*s%s'?)", st->key, (int)strcspn(st->key, "."), st->key,
				       strchr(st->key, '.') + 1, (int)strcspn(st->key, ".") + 1,
				       st->key, near);
		if (!strncmp(st->key, "policy.", 7))
			return scn_err(l, st->at, "'%s': policy has no key '%s' (known: cpuset, "
				   "mempolicy, nodes, cpus)", st->key, st->key + 7);
		if (!strncmp(st->key, "cost.", 5))
			return scn_err(l, st->at, "'%s': cost has no key '%s' (known: model, "
				   "bpred, code, accounting, sample_period, sample_warm, "
				   "sample_window)", st->key,
				   st->key + 5);
		if (!strncmp(st->key, "noise.", 6))
			return scn_err(l, st->at, "'%s': noise has no key '%s' (known: "
				   "page_placement, ticks, pollution, hz, tick_ns, tick_lines, "
				   "pollution_percent)", st->key, st->key + 6);
		return scn_err(l, st->at, "'%s' names no value of this scenario", st->key);
	}
	return NS_OK;
}

