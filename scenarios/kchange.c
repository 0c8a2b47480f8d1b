/*
 * kchange — code-change files; see kchange.h.
 *
 * A file is one YAML mapping:
 *
 *     change: inline-zone-statistics     # optional, default: the file's name
 *     description: "..."                 # optional
 *     operations:
 *       - inline: zone_statistics
 *       - site: A48
 *         hint: likely
 *         fall-through: hinted
 *       - block: alloc_nodemask
 *         uops: -1
 *
 * Every operation is a mapping whose first key says what it is; its name
 * is checked against models/kcode.h here, at load time, so that a typo is
 * reported at its place before anything runs.
 */
#include "scenarios/kchange.h"

#include <stdlib.h>
#include <string.h>

#include "base/ytree.h"
#include "models/kcode.h"

#define KCH_MAX_OPS 4096

void kchange_free(struct kchange *c)
{
	if (!c)
		return;
	for (int i = 0; i < c->nr; i++) {
		free(c->ops[i].name);
		free(c->ops[i].caller);
	}
	free(c->ops);
	free(c->path);
	free(c->file);
	free(c->name);
	free(c->description);
	free(c);
}

/* The model that has `name` of this kind, or an error at n with the
 * nearest name. */
static int find_name(const struct ytree *t, const struct ynode *n, enum kcode_kind kind,
		     const char *name, int *model, struct diag *d)
{
	int idx;
	*model = kcode_find(kind, name, &idx);
	if (*model >= 0)
		return NS_OK;
	char q[128];
	ytree_quote(name, strlen(name), q, sizeof q);
	const char *near = kcode_suggest(kind, name, (unsigned)strlen(name));
	const char *list = kind == KCODE_FN ? "functions" : kind == KCODE_SITE ? "sites" : "blocks";
	if (near)
		return ytree_error(t, n, d, "unknown %s '%s' (did you mean '%s'?; numasim list %s)",
				   kcode_kind_name(kind), q, near, list);
	return ytree_error(t, n, d, "unknown %s '%s' (numasim list %s)", kcode_kind_name(kind), q,
			   list);
}

static int copy_name(const struct ytree *t, const struct ynode *n, const char *what,
		     struct kchange_op *op, struct diag *d)
{
	const char *s;
	int rc = ytree_string(t, n, what, 1, &s, d);
	if (rc)
		return rc;
	if (!(op->name = strdup(s)))
		return ytree_nomem(t, d);
	op->line = n->line;
	op->col = n->col;
	return NS_OK;
}

/* hint: likely | unlikely | none */
static int parse_hint(const struct ytree *t, const struct ynode *n, int *out, struct diag *d)
{
	static const char *const names[] = {"none", "likely", "unlikely"};
	const char *s;
	int rc = ytree_string(t, n, "hint", 1, &s, d);
	if (rc)
		return rc;
	for (int i = 0; i < 3; i++)
		if (!strcmp(s, names[i])) {
			*out = i;  /* enum cost_hint order */
			return NS_OK;
		}
	char q[128];
	ytree_quote(s, n->len, q, sizeof q);
	const char *near = ytree_suggest(s, n->len, names, 3);
	if (near)
		return ytree_error(t, n, d, "hint must be likely, unlikely or none, got '%s' "
				   "(did you mean '%s'?)", q, near);
	return ytree_error(t, n, d, "hint must be likely, unlikely or none, got '%s'", q);
}

/* fall-through: true | false | hinted (which outcome of the condition the
 * compiler puts on the fall-through path) */
static int parse_ft(const struct ytree *t, const struct ynode *n, int *out, struct diag *d)
{
	static const char *const names[] = {"false", "true", "hinted"};
	const char *s;
	int rc = ytree_string(t, n, "fall-through", 1, &s, d);
	if (rc)
		return rc;
	for (int i = 0; i < 3; i++)
		if (!strcmp(s, names[i])) {
			*out = i == 2 ? COST_FT_HINTED : i;
			return NS_OK;
		}
	char q[128];
	ytree_quote(s, n->len, q, sizeof q);
	return ytree_error(t, n, d, "fall-through must be true, false or hinted (the outcome "
			   "of the condition that falls through), got '%s'", q);
}

/* fixed: true | false (the value the removed test's condition is taken to
 * have, the path the code keeps) */
static int parse_fixed(const struct ytree *t, const struct ynode *n, int *out, struct diag *d)
{
	const char *s;
	int rc = ytree_string(t, n, "fixed", 1, &s, d);
	if (rc)
		return rc;
	if (!strcmp(s, "true") || !strcmp(s, "false")) {
		*out = !strcmp(s, "true");
		return NS_OK;
	}
	char q[128];
	ytree_quote(s, n->len, q, sizeof q);
	return ytree_error(t, n, d, "fixed must be true or false (the value the removed "
			   "test's condition is taken to have), got '%s'", q);
}

static int parse_count(const struct ytree *t, const struct ynode *n, const char *what, char kind,
		       struct kchange_op *op, struct diag *d)
{
	long long v;
	int rc = ytree_int(t, n, what, 0, CPU_BLOCK_MAX_EXTRA, &v, d);
	if (rc)
		return rc;
	size_t len = strlen(op->add);
	if (len + (size_t)v > CPU_BLOCK_MAX_EXTRA)
		return ytree_error(t, n, d, "an operation adds at most %d accesses to a block",
				   CPU_BLOCK_MAX_EXTRA);
	for (long long i = 0; i < v; i++)
		op->add[len++] = kind;
	op->add[len] = '\0';
	return NS_OK;
}

/* A node standing for the part s[off ..) of scalar n's text: its own
 * column when n is a plain scalar on one line (errors point at the name),
 * else n's position. */
static struct ynode part_node(const struct ynode *n, size_t off)
{
	struct ynode p = *n;
	if (n->style == YSTYLE_PLAIN && !memchr(n->str, '\n', n->len))
		p.col = n->col + (int)off;
	return p;
}

/* A function name of a call operation at node n: known (with "did you
 * mean"), *model its model. */
static int call_fn(const struct ytree *t, const struct ynode *n, const char *name,
		   const char *role, int *model, struct diag *d)
{
	int idx;
	if ((*model = kcode_find(KCODE_FN, name, &idx)) >= 0)
		return NS_OK;
	char q[128];
	ytree_quote(name, strlen(name), q, sizeof q);
	const char *near = kcode_suggest(KCODE_FN, name, (unsigned)strlen(name));
	if (near)
		return ytree_error(t, n, d, "unknown %s function '%s' (did you mean '%s'?; numasim "
				   "list functions)", role, q, near);
	return ytree_error(t, n, d, "unknown %s function '%s' (numasim list functions)", role, q);
}

/*
 * call: CALLER -> CALLEE, or function: CALLEE (every call of it), with
 * static-key: on|off.  The callee must be one whose changes nothing the
 * model runs later reads (models/kcode.h kcode_key_callee()), and the
 * caller must call it in the model.
 */
static int parse_call(const struct ytree *t, const struct ynode *x, int has_caller,
		      const struct ynode *key, const struct ynode *n, struct kchange_op *op,
		      struct diag *d)
{
	const char *s;
	int rc;
	op->kind = KCH_CALL;
	if ((rc = ytree_string(t, x, has_caller ? "call" : "function", 1, &s, d)))
		return rc;
	op->line = x->line;
	op->col = x->col;
	const char *callee = s;
	size_t callee_off = 0;
	char caller[128];
	if (has_caller) {
		const char *arrow = strstr(s, "->");
		size_t a = arrow ? (size_t)(arrow - s) : 0;
		while (a && s[a - 1] == ' ')
			a--;
		if (!arrow || !a || a >= sizeof caller || strstr(arrow + 2, "->"))
			return ytree_error(t, x, d, "call is written 'CALLER -> CALLEE' (a call "
					   "the model makes: numasim list functions, column "
					   "KEY-CALLERS)");
		memcpy(caller, s, a);
		caller[a] = '\0';
		callee_off = (size_t)(arrow + 2 - s);
		while (s[callee_off] == ' ')
			callee_off++;
		callee = s + callee_off;
		if (!*callee || strchr(callee, ' ') || strchr(caller, ' '))
			return ytree_error(t, x, d, "call is written 'CALLER -> CALLEE' (a call "
					   "the model makes: numasim list functions, column "
					   "KEY-CALLERS)");
		int m;
		struct ynode at = part_node(x, 0);
		if ((rc = call_fn(t, &at, caller, "caller", &m, d)))
			return rc;
		if (!(op->caller = strdup(caller)))
			return ytree_nomem(t, d);
	}
	struct ynode at = part_node(x, callee_off);
	if ((rc = call_fn(t, &at, callee, has_caller ? "callee" : "", &op->model, d)))
		return rc;
	if (!(op->name = strdup(callee)))
		return ytree_nomem(t, d);
	op->col = at.col;
	char q[128], list[512];
	ytree_quote(callee, strlen(callee), q, sizeof q);
	if (!kcode_key_callee(callee)) {
		kcode_key_callees(list, sizeof list);
		return ytree_error(t, &at, d, "the calls of '%s' cannot be put behind a static "
				   "key: the model reads later what it changes, so leaving it "
				   "out would change the model's behaviour, not only its cost "
				   "(accepted callees: %s; numasim list functions)", q, list);
	}
	if (has_caller && !kcode_key_call(caller, callee)) {
		char qc[128];
		ytree_quote(caller, strlen(caller), qc, sizeof qc);
		kcode_key_callers(callee, list, sizeof list);
		return ytree_error(t, x, d, "'%s' does not call '%s' in the model (its callers: "
				   "%s; numasim list functions)", qc, q, list);
	}
	if (!key)
		return ytree_error(t, n, d, "a %s operation sets static-key: on or off",
				   has_caller ? "call" : "function");
	if ((rc = ytree_string(t, key, "static-key", 1, &s, d)))
		return rc;
	if (strcmp(s, "on") && strcmp(s, "off"))
		return ytree_error(t, key, d, "static-key must be on or off");
	op->key_on = !strcmp(s, "on");
	return NS_OK;
}

/* One operation (a mapping) into op. */
static int parse_op(const struct ytree *t, const struct ynode *n, struct kchange_op *op,
		    struct diag *d)
{
	static const struct ytree_field fields[] = {
		{"inline", 0}, {"out-of-line", 0}, {"site", 0}, {"hint", 0},
		{"fall-through", 0}, {"block", 0}, {"uops", 0}, {"loads", 0},
		{"dep-loads", 0}, {"stores", 0}, {"static-key", 0}, {"fixed", 0},
		{"call", 0}, {"function", 0},
	};
	enum { F_INLINE, F_OUTLINE, F_SITE, F_HINT, F_FT, F_BLOCK, F_UOPS, F_LOADS, F_DEP,
	       F_STORES, F_KEY, F_FIXED, F_CALL, F_FUNCTION, F_NR };
	const struct ynode *v[F_NR];
	int rc;

	if ((rc = ytree_expect_map(t, n, "an operation", d)) ||
	    (rc = ytree_fields(t, n, "operation", fields, F_NR, v, d)))
		return rc;
	op->hint = op->ft = KCH_KEEP;
	int what = (v[F_INLINE] != NULL) + (v[F_OUTLINE] != NULL) + (v[F_SITE] != NULL) +
		   (v[F_BLOCK] != NULL) + (v[F_CALL] != NULL) + (v[F_FUNCTION] != NULL);
	if (what != 1)
		return ytree_error(t, n, d, "an operation names one of inline, out-of-line, site, "
				   "block, call or function (got %d)", what);
	if (v[F_CALL] || v[F_FUNCTION]) {
		const char *key = v[F_CALL] ? "call" : "function";
		for (int f = F_INLINE; f < F_NR; f++)
			if (v[f] && f != F_KEY && f != F_CALL && f != F_FUNCTION)
				return ytree_error(t, v[f], d, "'%s' does not go with %s (a call "
						   "behind a static key: static-key: on or off)",
						   fields[f].key, key);
		return parse_call(t, v[F_CALL] ? v[F_CALL] : v[F_FUNCTION], v[F_CALL] != NULL,
				  v[F_KEY], n, op, d);
	}
	if (v[F_INLINE] || v[F_OUTLINE]) {
		const struct ynode *x = v[F_INLINE] ? v[F_INLINE] : v[F_OUTLINE];
		op->kind = v[F_INLINE] ? KCH_INLINE : KCH_OUTLINE;
		for (int f = F_SITE; f < F_NR; f++)
			if (v[f])
				return ytree_error(t, v[f], d, "'%s' does not go with %s",
						   fields[f].key, fields[op->kind].key);
		if ((rc = copy_name(t, x, "function", op, d)))
			return rc;
		return find_name(t, x, KCODE_FN, op->name, &op->model, d);
	}
	if (v[F_SITE]) {
		op->kind = KCH_SITE;
		for (int f = F_BLOCK; f < F_FIXED; f++)
			if (v[f])
				return ytree_error(t, v[f], d, "'%s' does not go with site",
						   fields[f].key);
		if ((rc = copy_name(t, v[F_SITE], "site", op, d)) ||
		    (rc = find_name(t, v[F_SITE], KCODE_SITE, op->name, &op->model, d)))
			return rc;
		if (v[F_FIXED]) {
			/* the test removed: hint and fall-through mean nothing */
			for (int f = F_HINT; f <= F_FT; f++)
				if (v[f])
					return ytree_error(t, v[f], d, "'%s' does not go with "
							   "fixed (the site's test is removed)",
							   fields[f].key);
			op->kind = KCH_FIX;
			return parse_fixed(t, v[F_FIXED], &op->fixed, d);
		}
		if (!v[F_HINT] && !v[F_FT])
			return ytree_error(t, n, d, "a site operation sets hint, fall-through or both");
		if (v[F_HINT] && (rc = parse_hint(t, v[F_HINT], &op->hint, d)))
			return rc;
		if (v[F_FT] && (rc = parse_ft(t, v[F_FT], &op->ft, d)))
			return rc;
		return NS_OK;
	}
	op->kind = v[F_KEY] ? KCH_KEY : KCH_WORK;
	for (int f = F_HINT; f <= F_FIXED; f += f == F_FT ? F_FIXED - F_FT : 1)
		if (v[f])
			return ytree_error(t, v[f], d, "'%s' goes with a site, not a block",
					   fields[f].key);
	if ((rc = copy_name(t, v[F_BLOCK], "block", op, d)) ||
	    (rc = find_name(t, v[F_BLOCK], KCODE_BLOCK, op->name, &op->model, d)))
		return rc;
	if (op->kind == KCH_KEY) {
		for (int f = F_UOPS; f <= F_STORES; f++)
			if (v[f])
				return ytree_error(t, v[f], d, "'%s' does not go with static-key "
						   "(a block behind a key keeps its work)", fields[f].key);
		const char *s;
		if ((rc = ytree_string(t, v[F_KEY], "static-key", 1, &s, d)))
			return rc;
		if (strcmp(s, "on") && strcmp(s, "off"))
			return ytree_error(t, v[F_KEY], d, "static-key must be on or off");
		op->key_on = !strcmp(s, "on");
		struct kcode_model m;
		int idx;
		kcode_model(kcode_find(KCODE_BLOCK, op->name, &idx), &m);
		if (!op->key_on && m.blocks[idx].kinds[0])
			return ytree_error(t, v[F_KEY], d, "block '%s' makes memory accesses (\"%s\") "
					   "that the model's code performs: a change file cannot "
					   "put it behind a key that is off", op->name,
					   m.blocks[idx].kinds);
		/* off: the block's uops gone (cpu_block_edit keeps at least
		 * none); on: its work plus the jump the patched key is */
		op->uops = op->key_on ? 1 : INT32_MIN;
		return NS_OK;
	}
	if (!v[F_UOPS] && !v[F_LOADS] && !v[F_DEP] && !v[F_STORES])
		return ytree_error(t, n, d, "a block operation sets uops, loads, dep-loads, "
				   "stores or static-key");
	if (v[F_UOPS]) {
		long long u;
		if ((rc = ytree_int(t, v[F_UOPS], "uops", -100000, 100000, &u, d)))
			return rc;
		op->uops = (int32_t)u;
	}
	if ((v[F_DEP] && (rc = parse_count(t, v[F_DEP], "dep-loads", 'D', op, d))) ||
	    (v[F_LOADS] && (rc = parse_count(t, v[F_LOADS], "loads", 'L', op, d))) ||
	    (v[F_STORES] && (rc = parse_count(t, v[F_STORES], "stores", 'S', op, d))))
		return rc;
	return NS_OK;
}

static const char *base_name(const char *path)
{
	const char *b = strrchr(path, '/');
	return b ? b + 1 : path;
}

static int parse_tree(const struct ytree *t, const char *name, struct kchange *c,
		      struct diag *d)
{
	static const struct ytree_field fields[] = {
		{"change", 0}, {"description", 0}, {"operations", 1},
	};
	const struct ynode *v[3];
	int rc;
	if ((rc = ytree_expect_map(t, t->root, "a change file", d)) ||
	    (rc = ytree_fields(t, t->root, "change file", fields, 3, v, d)))
		return rc;
	if (v[0]) {
		if ((rc = ytree_text(t, v[0], "change", 1, &c->name, d)))
			return rc;
	} else {
		char *dot;
		if (!(c->name = strdup(base_name(name))))
			return ytree_nomem(t, d);
		if ((dot = strrchr(c->name, '.')) && dot != c->name)
			*dot = '\0';
	}
	if (v[1] && (rc = ytree_text(t, v[1], "description", 0, &c->description, d)))
		return rc;
	const struct ynode *ops = v[2];
	if ((rc = ytree_expect_seq(t, ops, "operations", d)))
		return rc;
	if (ops->nr == 0)
		return ytree_error(t, ops, d, "operations is empty: a change changes something");
	if (ops->nr > KCH_MAX_OPS)
		return ytree_error(t, ops, d, "at most %d operations", KCH_MAX_OPS);
	if (!(c->ops = calloc(ops->nr, sizeof *c->ops)))
		return ytree_nomem(t, d);
	for (size_t i = 0; i < ops->nr; i++) {
		c->nr++;
		if ((rc = parse_op(t, ops->items[i], &c->ops[i], d)))
			return rc;
	}
	return NS_OK;
}

int kchange_parse(const char *name, const char *buf, size_t len, struct kchange **out,
		  struct diag *d)
{
	struct ytree *t = NULL;
	*out = NULL;
	int rc = ytree_parse(name, buf, len, &t, d);
	if (rc)
		return rc;
	struct kchange *c = calloc(1, sizeof *c);
	if (!c) {
		rc = ytree_nomem(t, d);
		ytree_free(t);
		return rc;
	}
	if (!(c->file = strdup(t->name)) || !(c->path = strdup(name)))
		rc = ytree_nomem(t, d);
	if (rc == NS_OK)
		rc = parse_tree(t, name, c, d);
	ytree_free(t);
	if (rc) {
		kchange_free(c);
		return rc;
	}
	uint8_t dig[SHA256_DIGEST_LEN];
	sha256(buf, len, dig);
	sha256_hex(dig, c->sha256);
	char q[128];
	ytree_quote(c->name, strlen(c->name), q, sizeof q);
	snprintf(c->ident, sizeof c->ident, "%s@%.12s", q, c->sha256);
	*out = c;
	return NS_OK;
}

int kchange_load_file(const char *path, struct kchange **out, struct diag *d)
{
	char *buf;
	size_t len;
	*out = NULL;
	if (!strcmp(path, "-"))
		return diag_set(d, NS_EINPUT, path, 0, 0, "a change file is read from a file, "
				"not from standard input");
	int rc = ytree_read_file(path, &buf, &len, d);
	if (rc)
		return rc;
	rc = kchange_parse(path, buf, len, out, d);
	free(buf);
	return rc;
}

int kchange_check(const struct kchange *c, struct diag *d)
{
	const char *bad = NULL;
	if (!c->name || !c->name[0] || strlen(c->sha256) != SHA256_HEX_LEN || !c->nr || !c->ops)
		bad = "a change without a name, hash or operations";
	for (int i = 0; !bad && i < c->nr; i++) {
		const struct kchange_op *op = &c->ops[i];
		enum kcode_kind kind = op->kind == KCH_INLINE || op->kind == KCH_OUTLINE ||
						       op->kind == KCH_CALL
					       ? KCODE_FN
				       : op->kind == KCH_SITE || op->kind == KCH_FIX ? KCODE_SITE
				       : KCODE_BLOCK;
		int idx;
		if (!op->name || kcode_find(kind, op->name, &idx) != op->model)
			bad = "an operation names nothing the models have";
		else if (strlen(op->add) > CPU_BLOCK_MAX_EXTRA ||
			 strspn(op->add, "DLS") != strlen(op->add))
			bad = "an operation adds accesses of no kind";
		else if (op->kind == KCH_SITE && op->hint == KCH_KEEP && op->ft == KCH_KEEP)
			bad = "a site operation sets nothing";
		else if (op->kind == KCH_FIX && op->fixed != 0 && op->fixed != 1)
			bad = "a removed site fixed to neither true nor false";
		else if (op->kind == KCH_CALL &&
			 (!kcode_key_callee(op->name) || (op->key_on != 0 && op->key_on != 1) ||
			  (op->caller && !kcode_key_call(op->caller, op->name))))
			bad = "a call operation on a call no static key can take";
		else if (op->kind != KCH_CALL && op->caller)
			bad = "a caller on an operation other than a call";
		else if (op->line < 1 || op->col < 1)
			bad = "an operation without a position";
	}
	if (bad)
		return diag_set(d, NS_EINTERNAL, c->file ? c->file : "change", 0, 0, "%s", bad);
	return NS_OK;
}

/* An error at an op's position in its file. */
static int op_err(const struct kchange *c, const struct kchange_op *op, struct diag *d,
		  const char *what)
{
	return diag_set(d, NS_EINPUT, c->file, op->line, op->col, "%s '%s' is not in this "
			"run's model: %s",
			op->kind == KCH_SITE || op->kind == KCH_FIX ? "site"
			: op->kind == KCH_CALL ? "callee" : "function", op->name,
			what);
}

int kchange_apply_layout(const struct kchange *c, struct cost_layout *l,
			 const struct cost_tables *t, struct diag *d)
{
	for (int i = 0; i < c->nr; i++) {
		const struct kchange_op *op = &c->ops[i];
		int id, rc = NS_OK;
		switch (op->kind) {
		case KCH_INLINE:
		case KCH_OUTLINE:
			if ((id = cost_fn_lookup(t, op->name)) < 0)
				return op_err(c, op, d, "its model is not part of this workload "
					      "or kernel.commit");
			rc = cost_layout_set_fn(l, id, op->kind == KCH_INLINE);
			break;
		case KCH_SITE: {
			if ((id = cost_site_lookup(t, op->name)) < 0)
				return op_err(c, op, d, "its model is not part of this workload "
					      "or kernel.commit");
			const struct cost_site_layout *s = &l->site[id];
			int hint = op->hint == KCH_KEEP ? s->hint : op->hint;
			/* the fall-through kept: the outcome that falls through now,
			 * which a new hint does not move */
			int ft = op->ft == KCH_KEEP ? s->fallthrough : op->ft;
			rc = cost_layout_set_site(l, id, (enum cost_hint)hint, ft);
			break;
		}
		case KCH_FIX:
			if ((id = cost_site_lookup(t, op->name)) < 0)
				return op_err(c, op, d, "its model is not part of this workload "
					      "or kernel.commit");
			rc = cost_layout_fix_site(l, id, op->fixed);
			break;
		case KCH_CALL: {
			int caller = -1;
			if ((id = cost_fn_lookup(t, op->name)) < 0 ||
			    (op->caller && (caller = cost_fn_lookup(t, op->caller)) < 0))
				return op_err(c, op, d, "its model is not part of this workload "
					      "or kernel.commit");
			rc = cost_layout_key_call(l, caller, id, op->key_on);
			break;
		}
		case KCH_WORK:
		case KCH_KEY:
			break;
		}
		if (rc != NS_OK)
			return diag_set(d, rc, c->file, op->line, op->col, "cannot apply '%s': %s",
					op->name, ns_status_msg(rc));
	}
	return NS_OK;
}

const struct kchange_op *kchange_first_call(struct kchange *const *cs, int n,
					    const struct kchange **in)
{
	for (int k = 0; k < n; k++)
		for (int i = 0; i < cs[k]->nr; i++)
			if (cs[k]->ops[i].kind == KCH_CALL) {
				*in = cs[k];
				return &cs[k]->ops[i];
			}
	return NULL;
}

int kchange_block_changes(const struct kchange *c, struct cpu_block_change *out, int *n,
			  int max, struct diag *d)
{
	for (int i = 0; i < c->nr; i++) {
		const struct kchange_op *op = &c->ops[i];
		if (op->kind != KCH_WORK && op->kind != KCH_KEY)
			continue;
		if (*n >= max)
			return diag_set(d, NS_EINPUT, c->file, op->line, op->col,
					"more than %d block operations in the run's change files",
					max);
		size_t added = strlen(op->add);
		for (int j = 0; j < *n; j++)
			if (!strcmp(out[j].block, op->name))
				added += strlen(out[j].add);
		if (added > CPU_BLOCK_MAX_EXTRA)
			return diag_set(d, NS_EINPUT, c->file, op->line, op->col,
					"block '%s' gets more than %d added accesses", op->name,
					CPU_BLOCK_MAX_EXTRA);
		struct cpu_block_change *b = &out[(*n)++];
		b->block = op->name;
		b->uops = op->uops;
		memcpy(b->add, op->add, sizeof b->add);
	}
	return NS_OK;
}
