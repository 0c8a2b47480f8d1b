/*
 * scenario — loading, checking and expanding scenario files; see scenario.h
 * and docs/scenario-format.md.
 *
 * Design notes.  Like the machine loader, loading is a walk of the strict
 * ytree over the schema, every value converted and checked as it is read,
 * the first problem ending the walk.  The tree is kept for the scenario's
 * lifetime: texts of the points (labels, params) point into it, so
 * expansion copies nothing.
 *
 * Sweeps and overrides are "settings": a dotted key ("kernel.zonelist_iter",
 * "workload.inner_iterations", "overrides.costs.mispredict") with either one
 * value node (a fixed setting: `overrides:` scalars, --set) or a list of
 * value nodes (an axis: lists under `kernel:`, `sweep:`, `overrides:` lists,
 * --sweep).  Every point is resolved by the same walk of the file, in which
 * each section's fields are first looked up among the settings (the point's
 * value of an axis, or the fixed value) and only then taken from the file.
 * So a swept or overridden value is checked by exactly the code that checks
 * it in the file, at its own node; a setting that no lookup consumed at
 * point 0 names no value of the scenario and is an error.  Command-line
 * values are parsed as YAML into trees of their own named "\001N"; an error
 * at such a node is rewritten to `PROG: error: --set KEY=VALUE: message`.
 *
 * Machines are memoised: points with the same machine file and the same
 * override values share one scn_machine (read, overridden, loaded, checked
 * and hashed once).  Overrides are written into the machine file's text at
 * the byte range of the target scalar before it is loaded, so the stored
 * machine text is the machine that was simulated.
 */
#include "scenarios/scenario.h"

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
	return (unsigned)t < (unsigned)workload_count ? workload_table[t]->name : "?";
}

int scn_knob_is_slub(enum scn_knob k)
{
	return k == SCN_KNOB_slab_free_layout || k == SCN_KNOB_slub_stats ||
	       k == SCN_KNOB_compiler_layout;
}

int scn_knob_is_reclaim(enum scn_knob k)
{
	return k == SCN_KNOB_zone_reclaim_mode || k == SCN_KNOB_swap ||
	       k == SCN_KNOB_swappiness || k == SCN_KNOB_min_unmapped_ratio ||
	       k == SCN_KNOB_min_slab_ratio || k == SCN_KNOB_writeback_cycles;
}

static int knob_lookup(const char *name)
{
	for (int k = 0; k < SCN_NR_KNOBS; k++)
		if (!strcmp(knob_names[k], name))
			return k;
	return -1;
}

/* ---- loader context ------------------------------------------------------ */

/* A dotted key with a fixed value or an axis of values. */
struct setting {
	char *key;
	const struct ynode *at;         /* where it was given (for errors) */
	const struct ynode *one;        /* fixed value, or NULL for an axis */
	const struct ynode **vals;      /* axis values [nr] (malloc'ed) */
	int nr;
	int axis;                       /* axis index, -1 for a fixed value */
	int used;                       /* consumed by a lookup at point 0 */
	int cli;                        /* from the command line */
};

struct loader {
	const struct ytree *t;
	struct diag *d;
	struct scenario *s;
	const struct scn_opts *o;
	struct setting *set;
	int nr_set, cap_set;
	struct scn_point *pt;           /* the point being resolved */
	const struct ynode *top_workload, *top_kernel, *top_policy, *top_sched, *top_cost;
	const struct ynode *cpuset_local;  /* policy.cpuset: local, to resolve */
};

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

static const struct ytree *tree_of(const struct loader *l, const struct ynode *n)
{
	const struct scenario *s = l->s;
	for (int i = 0; i < s->nr_cli; i++)
		if (in_subtree(s->cli_trees[i]->root, n, 4))
			return s->cli_trees[i];
	return l->t;
}
#define TT(n) tree_of(l, (n))

static int is_cli(const struct loader *l, const struct ynode *n)
{
	return tree_of(l, n) != l->t;
}

static int err(struct loader *l, const struct ynode *n, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int err(struct loader *l, const struct ynode *n, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int rc = diag_vset(l->d, NS_EINPUT, TT(n)->name, n->line, n->col, fmt, ap);
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
	return ytree_text(TT(n), n, what, nonempty, out, l->d);
}

/* The value of a setting at the point being resolved; marks it used. */
static const struct ynode *lookup(struct loader *l, const char *key)
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
static int section_fields(struct loader *l, const struct ynode *n,
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
	const struct ynode *sec = lookup(l, prefix), *sv[32];
	if (sec) {
		if ((rc = ytree_fields(TT(sec), sec, what, opt, nr, sv, l->d)))
			return rc;
		for (size_t i = 0; i < nr; i++) {
			if (!sv[i])
				continue;
			if (!strcmp(fields[i].key, "type"))
				return err(l, sv[i], "workload.type cannot be swept: a "
					   "plan runs one workload");
			if (v[i])
				return err(l, sv[i], "'%s.%s' is given both under '%s:' "
					   "(line %d) and in the sweep of '%s'", prefix,
					   fields[i].key, prefix, v[i]->line, prefix);
			v[i] = sv[i];
		}
	}
	for (size_t i = 0; i < nr; i++) {
		snprintf(key, sizeof key, "%s.%s", prefix, fields[i].key);
		const struct ynode *x = lookup(l, key);
		if (x)
			v[i] = x;
	}
	for (size_t i = 0; i < nr; i++)
		if (fields[i].required && !v[i])
			return err(l, n, "missing required key '%s' in %s", fields[i].key,
				   what);
	return NS_OK;
}

/* A node's value as label / params text: the scalar, or "[a,b]". */
static void node_text(const struct ynode *n, char *buf, size_t len)
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

/*
 * A machine path that does not exist (a bare name "rome-nps4", a
 * scenario's "../configs/x.yaml" read from standard input or copied
 * elsewhere) is looked up among the shipped machines (machine/datafile.h);
 * found nowhere, *path stays, for the loader's "cannot open".
 */
static int find_shipped(char **path, const char *ref)
{
	struct stat st;
	char *found;
	struct diag quiet;
	if (stat(*path, &st) == 0)
		return NS_OK;
	diag_init(&quiet);
	int rc = datafile_resolve(DATAFILE_MACHINE, ref, &found, &quiet);
	if (rc == NS_ENOENT)
		return NS_OK;
	if (rc)
		return rc;
	free(*path);
	*path = found;
	return NS_OK;
}

/* Byte offset of 1-based line:col in buf (columns count UTF-8 characters,
 * as libyaml's marks do). */
static size_t pos_offset(const char *buf, size_t len, int line, int col)
{
	size_t off = 0;
	for (int ln = 1; ln < line && off < len; off++)
		if (buf[off] == '\n')
			ln++;
	for (int c = 1; c < col && off < len; c++) {
		off++;
		while (off < len && ((unsigned char)buf[off] & 0xc0) == 0x80)
			off++;
	}
	return off;
}

/* An override value as YAML text: plain when it is a plain token, else
 * double-quoted. */
static int yaml_value(const struct ynode *v, char *buf, size_t len)
{
	int plain = v->style == YSTYLE_PLAIN && v->len > 0;
	for (size_t i = 0; plain && i < v->len; i++) {
		char c = v->str[i];
		plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
			(c >= '0' && c <= '9') || strchr("._+-/", c);
	}
	if (plain)
		return snprintf(buf, len, "%s", v->str) < (int)len ? 0 : -1;
	size_t o = 0;
	buf[o++] = '"';
	for (size_t i = 0; i < v->len; i++) {
		unsigned char c = (unsigned char)v->str[i];
		if (o + 6 >= len)
			return -1;
		if (c == '"' || c == '\\')
			buf[o++] = '\\';
		if (c < 0x20) {
			o += (size_t)snprintf(buf + o, len - o, "\\x%02x", c);
			continue;
		}
		buf[o++] = (char)c;
	}
	buf[o++] = '"';
	buf[o] = '\0';
	return 0;
}

struct splice {
	size_t from, to;                /* byte range of the target scalar */
	int line;                       /* its line in the machine file */
	char text[256];
	const struct ynode *val;        /* the override value */
	const char *path;               /* dotted path in the machine file */
};

static int cmp_splice(const void *a, const void *b)
{
	const struct splice *x = a, *y = b;
	return x->from < y->from ? 1 : x->from > y->from ? -1 : 0;
}

/* Find the scalar at dotted path in the machine tree; a mapping with a
 * `value` key (a cost figure) stands for its value. */
static int find_target(struct loader *l, const struct ytree *mt, const char *path,
		       const struct ynode *at, const struct ynode **out)
{
	const struct ynode *n = mt->root;
	char seg[128];
	const char *p = path;

	while (*p) {
		size_t sl = strcspn(p, ".");
		if (sl == 0 || sl >= sizeof seg)
			return err(l, at, "machine override '%s': empty or too long "
				   "path segment", path);
		memcpy(seg, p, sl);
		seg[sl] = '\0';
		p += sl + (p[sl] == '.');
		if (n->kind == YNODE_MAP) {
			n = ynode_map_get(n, seg);
		} else if (n->kind == YNODE_SEQ && ytree_is_int_text(seg, sl)) {
			long long i = atoll(seg);
			n = i >= 0 && (size_t)i < n->nr ? n->items[i] : NULL;
		} else {
			n = NULL;
		}
		if (!n)
			return err(l, at, "machine override '%s': machine file '%s' has "
				   "no value at '%.*s' (list items are numbered from 0)",
				   path, mt->name, (int)(p - path - (*p ? 1 : 0)), path);
	}
	if (n->kind == YNODE_MAP && ynode_map_get(n, "value"))
		n = ynode_map_get(n, "value");
	if (n->kind != YNODE_SCALAR)
		return err(l, at, "machine override '%s': the machine file's value "
			   "there is a %s; overrides replace single values", path,
			   n->kind == YNODE_MAP ? "mapping" : "list");
	if (n->style == YSTYLE_BLOCK)
		return err(l, at, "machine override '%s': cannot replace a block "
			   "scalar", path);
	*out = n;
	return NS_OK;
}

/* Write the overrides into text (a new malloc'ed buffer in *out). */
static int apply_overrides(struct loader *l, const char *path, const char *text,
			   size_t len, struct splice *sp, int nsp, char **out,
			   size_t *out_len)
{
	struct ytree *mt = NULL;
	int rc = ytree_parse(path, text, len, &mt, l->d);
	if (rc)
		return rc;
	for (int i = 0; i < nsp && rc == NS_OK; i++) {
		const struct ynode *tn = NULL;
		const struct ynode *at = sp[i].val;
		if ((rc = find_target(l, mt, sp[i].path, at, &tn)))
			break;
		sp[i].from = pos_offset(text, len, tn->line, tn->col);
		sp[i].to = pos_offset(text, len, tn->end_line, tn->end_col);
		sp[i].line = tn->line;
		if (sp[i].val->kind != YNODE_SCALAR || ynode_is_null(sp[i].val))
			rc = err(l, at, "machine override '%s' needs a single value",
				 sp[i].path);
		else if (yaml_value(sp[i].val, sp[i].text, sizeof sp[i].text))
			rc = err(l, at, "machine override '%s': value too long", sp[i].path);
	}
	ytree_free(mt);
	if (rc)
		return rc;
	qsort(sp, (size_t)nsp, sizeof *sp, cmp_splice);
	for (int i = 0; i + 1 < nsp; i++)
		if (sp[i + 1].to > sp[i].from)
			return err(l, sp[i].val, "machine overrides '%s' and '%s' change "
				   "the same value", sp[i].path, sp[i + 1].path);
	size_t cap = len + 1;
	for (int i = 0; i < nsp; i++)
		cap += strlen(sp[i].text);
	char *buf = malloc(cap);
	if (!buf)
		return nomem(l);
	memcpy(buf, text, len + 1);
	size_t cur = len;
	for (int i = 0; i < nsp; i++) {     /* descending offsets */
		size_t tl = strlen(sp[i].text), tail = cur - sp[i].to;
		memmove(buf + sp[i].from + tl, buf + sp[i].to, tail + 1);
		memcpy(buf + sp[i].from, sp[i].text, tl);
		cur = sp[i].from + tl + tail;
	}
	*out = buf;
	*out_len = cur;
	return NS_OK;
}

/* Load a memo entry's machine; an error on a line an override wrote is
 * reported at the override's value. */
static int load_memo_machine(struct loader *l, struct scn_machine *mm,
			     const struct splice *sp, int nsp)
{
	struct diag md;
	uint8_t dig[SHA256_DIGEST_LEN];
	int rc;

	diag_init(&md);
	rc = machine_load_buf(mm->path, mm->text, mm->text_len, &mm->machine, &md);
	if (rc == NS_OK)
		rc = machine_check(mm->machine, &md);
	if (rc) {
		for (int i = 0; i < nsp; i++)
			if (md.line == sp[i].line)
				return err(l, sp[i].val, "machine override '%s': %s",
					   sp[i].path, md.msg);
		*l->d = md;
		return rc;
	}
	sha256(mm->text, mm->text_len, dig);
	sha256_hex(dig, mm->sha256);
	return NS_OK;
}

/* The point's machine: from the memo, or read, overridden and loaded. */
static int get_machine(struct loader *l, const struct ynode *n)
{
	struct scenario *s = l->s;
	struct splice sp[SCN_MAX_OVERRIDES];
	char *ref = NULL, *path = NULL, *key = NULL, vt[256];
	size_t klen = 0;
	FILE *kf = NULL;
	int nsp = 0, rc;

	if ((rc = get_text(l, n, "machine", 1, &ref)))
		return rc;
	path = is_cli(l, n) ? strdup(ref) : resolve_path(s->path, ref);
	if (path && find_shipped(&path, ref) != NS_OK) {
		rc = nomem(l);
		goto out;
	}
	kf = path ? open_memstream(&key, &klen) : NULL;
	if (!kf) {
		rc = nomem(l);
		goto out;
	}
	fprintf(kf, "%s", path);
	for (int i = 0; i < l->nr_set; i++) {
		struct setting *st = &l->set[i];
		if (strncmp(st->key, "overrides.", 10))
			continue;
		if (nsp == SCN_MAX_OVERRIDES) {
			rc = err(l, st->at, "more than %d machine overrides",
				 SCN_MAX_OVERRIDES);
			goto out;
		}
		memset(&sp[nsp], 0, sizeof sp[nsp]);
		sp[nsp].path = st->key + 10;
		sp[nsp].val = lookup(l, st->key);
		node_text(sp[nsp].val, vt, sizeof vt);
		fprintf(kf, "\n%s=%s", sp[nsp].path, vt);
		nsp++;
	}
	if (fclose(kf)) {
		kf = NULL;
		rc = nomem(l);
		goto out;
	}
	kf = NULL;
	for (int i = 0; i < s->nr_machines; i++)
		if (!strcmp(s->machines[i].key, key)) {
			l->pt->mach = &s->machines[i];
			goto out;
		}
	struct scn_machine *mm = &s->machines[s->nr_machines];
	char *raw = NULL;
	size_t raw_len = 0;
	struct diag rd;
	diag_init(&rd);
	rc = ytree_read_file(path, &raw, &raw_len, &rd);
	if (rc == NS_ENOMEM) {
		rc = nomem(l);
		goto out;
	}
	if (rc) {
		rc = err(l, n, "cannot read machine file '%s': %s", path,
			 rd.msg[0] ? rd.msg : ns_status_msg(rc));
		goto out;
	}
	if (nsp) {
		rc = apply_overrides(l, path, raw, raw_len, sp, nsp, &mm->text,
				     &mm->text_len);
		free(raw);
		if (rc)
			goto out;
	} else {
		mm->text = raw;
		mm->text_len = raw_len;
	}
	mm->ref = ref;
	mm->path = path;
	mm->key = key;
	ref = path = key = NULL;
	s->nr_machines++;
	l->pt->mach = mm;
	rc = load_memo_machine(l, mm, sp, nsp);
out:
	if (kf)
		fclose(kf);
	free(ref);
	free(path);
	free(key);
	return rc;
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
		return nr ? NS_OK : err(l, n, "%s: machine '%s' has no memory node",
					what, m->name);
	}
	rc = cpulist_parse(s, MACHINE_MAX_NODES, 0, &nodes, &nr, &errpos, errbuf,
			   sizeof errbuf);
	if (rc == NS_ENOMEM)
		return nomem(l);
	if (rc)
		return err(l, n, "%s: %s (a node list like \"0-1,3\")", what, errbuf);
	for (int i = 0; i < nr && rc == NS_OK; i++) {
		int id = nodes[i];
		if (m->node_index[id] < 0)
			rc = err(l, n, "%s: node %d is not a node of machine '%s'", what,
				 id, m->name);
		else if (m->nodes[m->node_index[id]].mem_pages == 0)
			rc = err(l, n, "%s: node %d has no memory", what, id);
		else
			out[i] = id;
	}
	if (rc == NS_OK && nr == 0)
		rc = err(l, n, "%s must name at least one node", what);
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
	return err(l, n, "policy.cpuset must be 'none', 'all', 'local' or a node "
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
static int resolve_cpuset_local(struct loader *l)
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
		return err(l, l->cpuset_local, "policy.cpuset: local: the task's CPU "
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
			return err(l, mp, "unknown policy.mempolicy '%s' (expected default, "
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
		return err(l, nodes, "policy.nodes given twice: in policy.mempolicy "
			   "'%s' and here", mp->str);
	if (!nodes && !inline_nodes && wants)
		return err(l, mp, "policy.mempolicy '%s' needs policy.nodes (numactl "
			   "--%s=NODES) or '%s:NODES'", s,
			   c->mpol == MPOL_BIND ? "membind" : s, s);
	if ((nodes || inline_nodes) && !wants)
		return err(l, nodes ? nodes : mp, "policy.nodes is not used by "
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
		return err(l, nodes, "mempolicy 'preferred' takes exactly one node "
			   "(numactl --preferred=NODE), got %d", nr);
	c->nr_mpol_nodes = 0;
	for (int i = 0; i < nr; i++)
		if (!c->cpusets_enabled || c->nr_mems_allowed == 0 ||
		    in_list(c->mems_allowed, c->nr_mems_allowed, ids[i]))
			c->mpol_nodes[c->nr_mpol_nodes++] = ids[i];
	if (c->nr_mpol_nodes == 0)
		return err(l, nodes, "policy.nodes: no node of '%s' is in the cpuset's "
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
		return nomem(l);
	if (rc)
		return err(l, n, "policy.cpus: %s (a CPU list like \"0-3,8\")", errbuf);
	for (int i = 0; i < nr && rc == NS_OK; i++)
		if (cpus[i] > m->max_cpu || m->cpu_node[cpus[i]] < 0)
			rc = err(l, n, "policy.cpus: CPU %d is not a CPU of machine '%s' "
				 "(%d CPUs)", cpus[i], m->name, m->nr_cpus);
	if (rc == NS_OK && nr == 0)
		rc = err(l, n, "policy.cpus must name at least one CPU");
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

static int parse_policy(struct loader *l)
{
	const struct ytree_field *const fields = policy_fields;
	const struct ynode *sec = l->top_policy, *v[NR_P];
	struct scn_point *pt = l->pt;
	int rc;

	pt->policy = (struct scn_policy){"none", "default", "", ""};
	if (sec && ynode_is_null(sec))
		return err(l, sec, "'policy' must be a mapping (or left out)");
	if ((rc = section_fields(l, sec, "policy", "policy", fields, NR_P, v)))
		return rc;
	if (v[P_CPUSET] && (rc = parse_cpuset(l, v[P_CPUSET])))
		return rc;
	if ((rc = parse_mempolicy(l, v[P_MEMPOLICY], v[P_NODES], sec)))
		return rc;
	return v[P_CPUS] ? parse_cpus(l, v[P_CPUS]) : NS_OK;
}

enum { SC_PLACEMENT, NR_SC };

static const struct ytree_field sched_fields[NR_SC] = {[SC_PLACEMENT] = {"placement", 0}};

/* sched: the scheduler model's choices (placement: none | v5.9). */
static int parse_sched(struct loader *l)
{
	const struct ytree_field *const fields = sched_fields;
	const struct ynode *sec = l->top_sched, *v[NR_SC];
	const char *text;
	int rc;

	l->pt->sched_placement = SCN_PLACEMENT_NONE;
	if (sec && ynode_is_null(sec))
		return err(l, sec, "'sched' must be a mapping (or left out)");
	if ((rc = section_fields(l, sec, "sched", "sched", fields, NR_SC, v)))
		return rc;
	if (!v[SC_PLACEMENT])
		return NS_OK;
	if ((rc = ytree_string(TT(v[SC_PLACEMENT]), v[SC_PLACEMENT], "sched.placement", 1,
			       &text, l->d)))
		return rc;
	if (!strcmp(text, "v5.9")) {
		l->pt->sched_placement = SCN_PLACEMENT_V59;
		return NS_OK;
	}
	if (!strcmp(text, "none"))
		return NS_OK;
	char q[128];
	ytree_quote(text, v[SC_PLACEMENT]->len, q, sizeof q);
	return err(l, v[SC_PLACEMENT], "sched.placement: unknown placement '%s' (expected "
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

static int uses_slub(const struct scenario *s)
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
	/* ooo's figures hold on the first seed (docs/cost-model.md §6) and it
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

static int parse_cost(struct loader *l)
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
		return err(l, sec, "'cost' must be a mapping (or left out)");
	if ((rc = section_fields(l, sec, "cost", "cost", fields, NR_C, v)))
		return rc;
	if (v[C_MODEL]) {
		if ((rc = ytree_string(TT(v[C_MODEL]), v[C_MODEL], "cost.model", 1, &str, l->d)))
			return rc;
		if ((c->model = cpu_model_parse(str)) < 0)
			return err(l, v[C_MODEL], "unknown cost.model '%s' (expected inorder "
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
			return err(l, v[C_BPRED], "unknown cost.bpred '%s' (expected bimodal, "
				   "gshare or tage)", str);
		c->bpred_set = 1;
	}
	if (v[C_CODE]) {
		if ((rc = ytree_string(TT(v[C_CODE]), v[C_CODE], "cost.code", 1, &str, l->d)))
			return rc;
		if ((c->code = mm_code_parse(str)) < 0)
			return err(l, v[C_CODE], "unknown cost.code '%s' (expected estimate or "
				   "compiled)", str);
		c->code_set = 1;
		if (c->code == MM_CODE_COMPILED && uses_slub(l->s) &&
		    (l->pt->slub.compiler != SLUB_GCC || !l->pt->slub.stats))
			return err(l, v[C_CODE], "cost.code compiled: SLUB's work was counted "
				   "for compiler_layout gcc with slub_stats on only; this point "
				   "has %s with slub_stats %s (docs/compiled-counts.md §6)",
				   slub_compiler_name(l->pt->slub.compiler),
				   l->pt->slub.stats ? "on" : "off");
	}
	if (v[C_ACCOUNTING]) {
		if ((rc = ytree_string(TT(v[C_ACCOUNTING]), v[C_ACCOUNTING], "cost.accounting", 1,
				       &str, l->d)))
			return rc;
		if ((c->accounting = cpu_accounting_parse(str)) < 0)
			return err(l, v[C_ACCOUNTING], "unknown cost.accounting '%s' (expected "
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
			return err(l, v[C_SAMPLE_WARM], "unknown cost.sample_warm '%s' (expected "
				   "caches, stores or none)", str);
		c->sample_warm_set = 1;
	}
	if ((rc = cost_count(l, v[C_SAMPLE_WINDOW], "cost.sample_window", 0, &c->sample_window,
			     &c->sample_window_set)))
		return rc;
	const char *miss = c->model == CPU_MODEL_OOO ? cpu_ooo_missing(&l->pt->machine->costs)
						     : NULL;
	if (miss)
		return err(l, v[C_MODEL], "cost.model ooo needs the core figure '%s' in "
			   "the costs of machine '%s' (%s; docs/machine-format.md, "
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
	return err(l, n, "%s must be 'on' or 'off', got '%s'", what, q);
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
	return err(l, n, "unknown %s '%s' (expected %s)", what, q, choices);
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
	return err(l, n, "zone_reclaim_mode must be 0 to 7 (bits 1 zone, 2 write, 4 unmap) "
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
		return err(l, n, "swap must be 'none' or a size like 4GiB, got '%s'", q);
	}
	*pages = v * mul / 4096;
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
		case SCN_KNOB_zone_reclaim_mode:
			v->text = zrm_names[c->zone_reclaim_mode & 7];
			break;
		case SCN_KNOB_swap: v->text = "none"; break;
		case SCN_KNOB_swappiness: v->num = c->reclaim.swappiness; break;
		case SCN_KNOB_min_unmapped_ratio: v->num = c->reclaim.min_unmapped_ratio; break;
		case SCN_KNOB_min_slab_ratio: v->num = c->reclaim.min_slab_ratio; break;
		case SCN_KNOB_writeback_cycles: v->num = (long long)c->reclaim.writeback_cycles; break;
		case SCN_NR_KNOBS: break;
		}
	}
}

/* The hint for the knobs that moved to the policy section. */
static const char *moved_knob(const char *key)
{
	if (!strcmp(key, "cpusets"))
		return "kernel.cpusets moved to policy.cpuset (none, all or a node "
		       "list: 'cpusets: on' is 'cpuset: all')";
	if (!strcmp(key, "mems_allowed"))
		return "kernel.mems_allowed moved to policy.cpuset (the cpuset's "
		       "mems, a node list like \"0-1\")";
	return NULL;
}

static int parse_kernel(struct loader *l)
{
	struct ytree_field fields[SCN_NR_KNOBS];
	const struct ynode *n = l->top_kernel, *v[SCN_NR_KNOBS];
	struct scn_point *pt = l->pt;
	int rc;

	for (int k = 0; k < SCN_NR_KNOBS; k++)
		fields[k] = (struct ytree_field){knob_names[k], 0};
	if (n && ynode_is_null(n))
		return err(l, n, "'kernel' must be a mapping of knobs (or left out)");
	for (size_t i = 0; n && n->kind == YNODE_MAP && i < n->nr; i++) {
		const struct ynode *key = n->items[2 * i];
		const char *hint = key->kind == YNODE_SCALAR ? moved_knob(key->str) : NULL;
		if (hint)
			return err(l, key, "%s", hint);
	}
	if ((rc = section_fields(l, n, "kernel", "kernel", fields, SCN_NR_KNOBS, v)))
		return rc;
	for (int k = 0; k < SCN_NR_KNOBS; k++) {
		const struct ynode *x = v[k];
		if (!x)
			continue;
		if (scn_knob_is_slub((enum scn_knob)k) && !uses_slub(l->s))
			return err(l, x, "kernel.%s applies to the SLUB model, which the "
				   "%s workload does not use", knob_names[k],
				   scn_workload_name(l->s->workload));
		if (scn_knob_is_reclaim((enum scn_knob)k) && !l->s->wl->reclaim)
			return err(l, x, "kernel.%s applies to the reclaim model, which only "
				   "the fill workload runs", knob_names[k]);
		if ((rc = apply_knob(l, (enum scn_knob)k, x, pt)))
			return rc;
	}
	return NS_OK;
}

/* ---- labels -------------------------------------------------------------- */

static void value_text(const struct scn_value *v, char *buf, size_t len)
{
	if (v->text)
		snprintf(buf, len, "%s", v->text);
	else
		snprintf(buf, len, "%lld", v->num);
}

/* Axis a's value at the point: a knob's canonical text, else as written. */
static void axis_text(const struct loader *l, const struct scn_point *pt, int a,
		      char *buf, size_t len)
{
	const struct scenario *s = l->s;
	if (s->axes[a].knob >= 0) {
		value_text(&pt->knob[s->axes[a].knob], buf, len);
		return;
	}
	for (int i = 0; i < l->nr_set; i++)
		if (l->set[i].axis == a) {
			node_text(l->set[i].vals[pt->axis_value[a]], buf, len);
			return;
		}
	snprintf(buf, len, "?");
}

static void append(char *buf, size_t *off, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void append(char *buf, size_t *off, const char *fmt, ...)
{
	va_list ap;
	if (*off >= SCN_LABEL_MAX)
		return;
	va_start(ap, fmt);
	*off += (size_t)vsnprintf(buf + *off, SCN_LABEL_MAX - *off, fmt, ap);
	va_end(ap);
}

static void make_labels(const struct loader *l, struct scn_point *pt)
{
	const struct scenario *s = l->s;
	char vt[SCN_LABEL_MAX];
	size_t off = 0, coff = 0;

	pt->label[0] = pt->column[0] = '\0';
	for (int a = 0; a < s->nr_axes; a++) {
		axis_text(l, pt, a, vt, sizeof vt);
		append(pt->label, &off, "%s%s=%s", a ? "," : "", s->axes[a].name, vt);
		append(pt->column, &coff, "%s%s", a ? "," : "", vt);
	}
	int main_knob = knob_lookup(s->wl->label_knob);
	if (s->nr_axes == 0 && main_knob >= 0) {
		snprintf(pt->label, SCN_LABEL_MAX, "%s=%s", knob_names[main_knob],
			 pt->knob[main_knob].text);
		snprintf(pt->column, SCN_LABEL_MAX, "%s", pt->knob[main_knob].text);
	}
	pt->kernel_model = s->wl->kernel_model(pt->cfg.iter == MMZONE_ITER_POST,
					       pt->slub.variant == SLUB_POST);
}

/* ---- workload ------------------------------------------------------------ */

/* The workload's section through the loader: tree_of and section_fields. */
static const struct ytree *reader_tree(void *ctx, const struct ynode *n)
{
	return tree_of(ctx, n);
}

static int reader_fields(void *ctx, const struct ynode *n, const char *what,
			 const struct ytree_field *f, size_t nr, const struct ynode **v)
{
	return section_fields(ctx, n, "workload", what, f, nr, v);
}

static int parse_workload(struct loader *l)
{
	struct scn_point *pt = l->pt;
	const struct wl_reader r = {l, l->d, l->t->name, reader_tree, reader_fields};
	int reclaim = 0;
	struct wl_point wp = {
		.machine = pt->machine,
		.sched_v59 = pt->sched_placement == SCN_PLACEMENT_V59,
		.nr_cpus = &pt->nr_cpus,
		.cpus = &pt->cpus,
		.reclaim = &reclaim,
	};
	int rc = l->s->wl->parse(&r, l->top_workload, &wp);
	pt->params = wp.params;
	if (reclaim)
		pt->cfg.reclaim.enabled = 1;
	return rc;
}

/* The workload's type, once per scenario (it cannot be swept). */
static int workload_type(struct loader *l)
{
	const struct ynode *n = l->top_workload, *type;
	const char *ts;
	char q[128], known[256];
	int rc, w;

	if ((rc = ytree_expect_map(l->t, n, "'workload'", l->d)))
		return rc;
	type = lookup(l, "workload.type");
	if (!type)
		type = ynode_map_get(n, "type");
	if (!type)
		return err(l, n, "missing required key 'type' in workload");
	if ((rc = ytree_string(TT(type), type, "workload type", 1, &ts, l->d)))
		return rc;
	if ((l->s->wl = workload_find(ts, &w))) {
		l->s->workload = (enum scn_workload_type)w;
		return NS_OK;
	}
	ytree_quote(ts, type->len, q, sizeof q);
	workload_names(known, sizeof known);
	return err(l, type, "unknown workload type '%s' (known: %s)", q, known);
}

/* ---- one point ------------------------------------------------------------ */

static int resolve_point(struct loader *l, const struct ynode *machine_node)
{
	struct scn_point *pt = l->pt;
	const struct ynode *mn = lookup(l, "machine");
	int rc;

	if (!mn)
		mn = machine_node;
	if ((rc = get_machine(l, mn)))
		return rc;
	pt->machine = pt->mach->machine;
	pt->machine_ref = pt->mach->ref;
	pt->machine_path = pt->mach->path;
	pt->machine_text = pt->mach->text;
	pt->machine_text_len = pt->mach->text_len;
	pt->machine_sha256 = pt->mach->sha256;
	mm_config_default(&pt->cfg);
	slub_config_default(&pt->slub);
	l->cpuset_local = NULL;
	if ((rc = parse_policy(l)) || (rc = parse_sched(l)) || (rc = parse_workload(l)) ||
	    (rc = parse_kernel(l)) || (rc = parse_cost(l)))
		return rc;
	if (l->cpuset_local && (rc = resolve_cpuset_local(l)))
		return rc;
	default_knobs(pt);
	make_labels(l, pt);
	return NS_OK;
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
			return nomem(l);
		l->set = n;
		l->cap_set = cap;
	}
	struct setting *st = &l->set[l->nr_set];
	memset(st, 0, sizeof *st);
	st->key = strdup(key);
	if (!st->key)
		return nomem(l);
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
	    !strcmp(key, "sched") || !strcmp(key, "cost"))
		return VAL_MAPS;
	return strncmp(key, "workload.", 9) ? VAL_SCALARS : VAL_LISTS;
}

/* Make st an axis over the items of list (checked here). */
static int set_axis(struct loader *l, struct setting *st, const struct ynode *list,
		    int kind)
{
	if (list->nr == 0)
		return err(l, list, "%s: an empty list gives no runs; list at least "
			   "one value", st->key);
	if (list->nr > SCN_MAX_AXIS_VALUES)
		return err(l, list, "%s lists %zu values; at most %d", st->key,
			   list->nr, SCN_MAX_AXIS_VALUES);
	for (size_t i = 0; i < list->nr; i++) {
		enum ynode_kind k = list->items[i]->kind;
		if (kind == VAL_MAPS && k != YNODE_MAP)
			return err(l, list->items[i], "%s: a sweep of the whole section "
				   "takes mappings of its keys ({mempolicy: bind, nodes: "
				   "\"1\"})", st->key);
		if (kind != VAL_MAPS && (k == YNODE_MAP ||
					 (kind == VAL_SCALARS && k != YNODE_SCALAR)))
			return err(l, list->items[i], "%s: sweep values must be scalars "
				   "(a list of lists is not a sweep)", st->key);
	}
	free(st->vals);
	st->vals = malloc(list->nr * sizeof *st->vals);
	if (!st->vals)
		return nomem(l);
	for (size_t i = 0; i < list->nr; i++)
		st->vals[i] = list->items[i];
	st->nr = (int)list->nr;
	st->one = NULL;
	st->axis = 0;             /* numbered in assign_axes */
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
static const char *bad_key(const char *key, int sweep)
{
	static const char *const fixed[] = {"name", "description", "seed",
					    "repetitions", "workload.type"};
	for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++)
		if (!strcmp(key, fixed[i]))
			return !sweep ? NULL
			       : i < 2 ? "the scenario's name and description cannot be swept"
			       : i < 4 ? "seed and repetitions cannot be swept: repetition r "
					 "of every point uses seed + r (set 'repetitions' for "
					 "more runs per point)"
				       : "workload.type cannot be swept: a plan runs one "
					 "workload (write one scenario per workload)";
	if (!strcmp(key, "machine") || !strcmp(key, "kernel") ||
	    !strcmp(key, "workload") || !strcmp(key, "policy") || !strcmp(key, "sched") ||
	    !strcmp(key, "cost"))
		return NULL;
	if (!strncmp(key, "kernel.", 7)) {
		if (moved_knob(key + 7))
			return moved_knob(key + 7);
		return knob_lookup(key + 7) >= 0 ? NULL : "unknown kernel knob";
	}
	static const char *const prefix[] = {"workload.", "policy.", "overrides.", "sched.",
					     "cost."};
	for (size_t i = 0; i < sizeof prefix / sizeof prefix[0]; i++)
		if (!strncmp(key, prefix[i], strlen(prefix[i])) && key[strlen(prefix[i])] &&
		    key[strlen(key) - 1] != '.')
			return NULL;
	return "unknown key (known: machine, kernel.KNOB, workload.PARAM, policy.KEY, "
	       "sched.KEY, cost.KEY, overrides.PATH, and for --set also name, description, "
	       "seed, "
	       "repetitions)";
}

/* The section node of a file key ("workload.x" -> the workload mapping's
 * value of x), for "given twice" errors. */
static const struct ynode *file_value(const struct loader *l, const char *key)
{
	static const char *const sec[] = {"kernel.", "workload.", "policy.", "sched.",
					  "cost."};
	const struct ynode *top[] = {l->top_kernel, l->top_workload, l->top_policy,
				     l->top_sched, l->top_cost};
	for (int i = 0; i < 5; i++) {
		size_t n = strlen(sec[i]);
		if (!strncmp(key, sec[i], n) && top[i] && top[i]->kind == YNODE_MAP)
			return ynode_map_get(top[i], key + n);
	}
	return NULL;
}

static int kernel_lists(struct loader *l)
{
	const struct ynode *k = l->top_kernel;
	struct setting *st;
	char key[64];
	int created, rc;

	if (!k || k->kind != YNODE_MAP)
		return NS_OK;
	for (int i = 0; i < SCN_NR_KNOBS; i++) {
		const struct ynode *x = ynode_map_get(k, knob_names[i]);
		if (!x || x->kind != YNODE_SEQ)
			continue;
		snprintf(key, sizeof key, "kernel.%s", knob_names[i]);
		if ((rc = setting_for(l, key, &st, &created)))
			return rc;
		st->at = x;
		if ((rc = set_axis(l, st, x, VAL_SCALARS)))
			return rc;
	}
	return NS_OK;
}

/* `overrides:` (machine values) and `sweep:` of the file. */
static int file_map(struct loader *l, const struct ynode *n, int sweep)
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
			return err(l, k, "key too long");
		const char *why = bad_key(key, sweep);
		ytree_quote(ks, k->len, q, sizeof q);
		if (why)
			return err(l, k, "%s '%s': %s", sweep ? "sweep" : "override", q, why);
		const struct ynode *twice = file_value(l, key);
		if (twice)
			return err(l, k, "'%s' is also given at line %d; give it in one "
				   "place", key, twice->line);
		if (!strcmp(key, "machine") && ynode_map_get(l->t->root, "machine"))
			return err(l, k, "the machines are given by 'machine:' too; drop "
				   "one of them");
		if ((rc = setting_for(l, key, &st, &created)))
			return rc;
		if (!created)
			return err(l, k, "'%s' is given twice (under 'sweep:' and "
				   "'overrides:', or twice)", key);
		st->at = k;
		if (v->kind == YNODE_SEQ) {
			if ((rc = set_axis(l, st, v, value_kind(key))))
				return rc;
		} else if (sweep) {
			return err(l, v, "sweep '%s' needs a list of values", q);
		} else if (v->kind != YNODE_SCALAR || ynode_is_null(v)) {
			return err(l, v, "override '%s' needs a value or a list of values "
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
		return nomem(l);
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
static int cli_setting(struct loader *l, int i)
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
	const char *why = bad_key(key, sweep);
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
			return nomem(l);
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
static int assign_axes(struct loader *l)
{
	struct scenario *s = l->s;
	long long points = 1;

	s->nr_axes = 0;
	for (int i = 0; i < l->nr_set; i++) {
		struct setting *st = &l->set[i];
		if (st->axis < 0)
			continue;
		if (s->nr_axes == SCN_MAX_AXES)
			return err(l, st->at, "more than %d sweep axes", SCN_MAX_AXES);
		struct scn_axis *a = &s->axes[s->nr_axes];
		a->knob = strncmp(st->key, "kernel.", 7) ? -1 : knob_lookup(st->key + 7);
		a->nr = st->nr;
		a->key = strdup(st->key);
		if (!a->key)
			return nomem(l);
		a->name = a->knob >= 0 ? knob_names[a->knob] : a->key;
		st->axis = s->nr_axes++;
		points *= st->nr;
		if (points > SCN_MAX_POINTS)
			return err(l, st->at, "the sweep has more than %d points (the product of "
				   "the axes' list lengths)", SCN_MAX_POINTS);
	}
	s->nr_points = (int)points;
	return NS_OK;
}

/* A setting nothing consumed at point 0 names no value of the scenario. */
static int unused_settings(struct loader *l)
{
	for (int i = 0; i < l->nr_set; i++) {
		const struct setting *st = &l->set[i];
		if (st->used)
			continue;
		if (!strncmp(st->key, "workload.", 9))
			return err(l, st->at, "'%s': workload '%s' has no parameter '%s'",
				   st->key, scn_workload_name(l->s->workload), st->key + 9);
		if (!strncmp(st->key, "policy.", 7))
			return err(l, st->at, "'%s': policy has no key '%s' (known: cpuset, "
				   "mempolicy, nodes, cpus)", st->key, st->key + 7);
		if (!strncmp(st->key, "cost.", 5))
			return err(l, st->at, "'%s': cost has no key '%s' (known: model, "
				   "bpred, code, accounting, sample_period, sample_warm, "
				   "sample_window)", st->key,
				   st->key + 5);
		return err(l, st->at, "'%s' names no value of this scenario", st->key);
	}
	return NS_OK;
}

/* ---- top level ------------------------------------------------------------ */

enum { F_NAME, F_DESC, F_MACHINE, F_KERNEL, F_WORKLOAD, F_POLICY, F_COST, F_SWEEP,
       F_OVERRIDES, F_REPS, F_SEED, F_SCHED, NR_F };

static const struct ynode *top(struct loader *l, const char *key,
			       const struct ynode *file)
{
	const struct ynode *n = lookup(l, key);
	return n ? n : file;
}

static int parse_plan_keys(struct loader *l, const struct ynode **v)
{
	struct scenario *s = l->s;
	const struct ynode *n;
	long long seed = 1;
	int rc;

	if ((rc = get_text(l, top(l, "name", v[F_NAME]), "name", 1, &s->name)))
		return rc;
	if ((n = top(l, "description", v[F_DESC])) &&
	    (rc = get_text(l, n, "description", 0, &s->description)))
		return rc;
	s->repetitions = 1;
	if ((n = top(l, "repetitions", v[F_REPS])) &&
	    (rc = ytree_int(TT(n), n, "repetitions", 1, SCN_MAX_REPETITIONS,
			    &s->repetitions, l->d)))
		return rc;
	if ((n = top(l, "seed", v[F_SEED])) &&
	    (rc = ytree_int(TT(n), n, "seed", 0, INT64_MAX - SCN_MAX_REPETITIONS,
			    &seed, l->d)))
		return rc;
	s->seed = (uint64_t)seed;
	return NS_OK;
}

static int parse_scenario(struct loader *l)
{
	static const struct ytree_field fields[NR_F] = {
		[F_NAME] = {"name", 1},         [F_DESC] = {"description", 0},
		[F_MACHINE] = {"machine", 0},   [F_KERNEL] = {"kernel", 0},
		[F_WORKLOAD] = {"workload", 1}, [F_POLICY] = {"policy", 0},
		[F_COST] = {"cost", 0},
		[F_SWEEP] = {"sweep", 0},       [F_OVERRIDES] = {"overrides", 0},
		[F_REPS] = {"repetitions", 0},  [F_SEED] = {"seed", 0},
		[F_SCHED] = {"sched", 0},
	};
	struct scenario *s = l->s;
	const struct ynode *v[NR_F];
	int rc;

	if ((rc = ytree_fields(l->t, l->t->root, "scenario file", fields, NR_F, v,
			       l->d)))
		return rc;
	l->top_kernel = v[F_KERNEL];
	l->top_workload = v[F_WORKLOAD];
	l->top_policy = v[F_POLICY];
	l->top_sched = v[F_SCHED];
	l->top_cost = v[F_COST];
	if ((rc = kernel_lists(l)) || (rc = file_map(l, v[F_OVERRIDES], 0)) ||
	    (rc = file_map(l, v[F_SWEEP], 1)))
		return rc;
	for (int i = 0; i < s->nr_cli_args; i++)
		if ((rc = cli_setting(l, i)))
			return rc;
	if ((rc = assign_axes(l)))
		return rc;
	s->points = calloc((size_t)s->nr_points, sizeof *s->points);
	s->machines = calloc((size_t)s->nr_points, sizeof *s->machines);
	if (!s->points || !s->machines)
		return nomem(l);
	l->pt = &s->points[0];
	if ((rc = parse_plan_keys(l, v)))
		return rc;
	if (!v[F_MACHINE] && !lookup(l, "machine"))
		return err(l, l->t->root, "missing required key 'machine' in scenario file");
	if ((rc = workload_type(l)))
		return rc;
	for (int p = 0; p < s->nr_points; p++) {
		struct scn_point *pt = &s->points[p];
		int rest = p;
		for (int a = s->nr_axes - 1; a >= 0; a--) {
			pt->axis_value[a] = rest % s->axes[a].nr;
			rest /= s->axes[a].nr;
		}
		l->pt = pt;
		if ((rc = resolve_point(l, v[F_MACHINE])))
			return rc;
		if (p == 0 && (rc = unused_settings(l)))
			return rc;
	}
	const struct scn_point *p0 = &s->points[0];
	s->machine = p0->mach->machine;
	s->machine_ref = p0->machine_ref;
	s->machine_path = p0->machine_path;
	s->machine_text = p0->machine_text;
	s->machine_text_len = p0->machine_text_len;
	s->machine_sha256 = p0->machine_sha256;
	return NS_OK;
}

int scenario_is_scenario_root(const struct ynode *root)
{
	return root && root->kind == YNODE_MAP && ynode_map_get(root, "workload");
}

/* An error at a command-line value's node, as `PROG: error: ARG: msg`. */
static void rewrite_cli_diag(const struct scenario *s, const struct scn_opts *o,
			     struct diag *d)
{
	if (d->file[0] != '\001')
		return;
	int i = atoi(d->file + 1);
	char msg[DIAG_MSG_MAX];
	snprintf(msg, sizeof msg, "%s", d->msg);
	int status = d->status;
	diag_init(d);
	diag_set(d, status, o->prog, 0, 0, "%s: %s",
		 i >= 0 && i < s->nr_cli_args ? s->cli_args[i] : "?", msg);
}

/* "--set K=V" / "--sweep K=V" texts of the options, in command-line order. */
static int copy_cli_args(struct scenario *s, const struct scn_opts *o)
{
	int n = o ? o->nr_args : 0;
	s->cli_args = calloc((size_t)(n ? n : 1), sizeof *s->cli_args);
	s->cli_trees = calloc((size_t)(n ? n : 1), sizeof *s->cli_trees);
	if (!s->cli_args || !s->cli_trees)
		return NS_ENOMEM;
	for (int i = 0; i < n; i++) {
		const struct scn_arg *a = &o->args[i];
		const char *opt = a->kind == SCN_ARG_SWEEP ? "--sweep"
				  : a->kind == SCN_ARG_MACHINE ? "--machine" : "--set";
		size_t len = strlen(opt) + strlen(a->text) + 2;
		if (!(s->cli_args[i] = malloc(len)))
			return NS_ENOMEM;
		snprintf(s->cli_args[i], len, "%s %s", opt, a->text);
		s->nr_cli_args++;
	}
	return NS_OK;
}

/*
 * The effective scenario text: the file's bytes followed by one comment
 * line "# --set KEY=VALUE" per command-line option, in order.  It is what
 * is parsed (the comments change nothing), stored and hashed, so the
 * sha256 identifies the file and the options together.
 */
static int effective_text(struct scenario *s)
{
	uint8_t dig[SHA256_DIGEST_LEN];
	size_t len = s->text_len;
	for (int i = 0; i < s->nr_cli_args; i++)
		len += strlen(s->cli_args[i]) + 3;
	if (len != s->text_len) {
		char *t = realloc(s->text, len + 1);
		if (!t)
			return NS_ENOMEM;
		s->text = t;
		for (int i = 0; i < s->nr_cli_args; i++)
			s->text_len += (size_t)sprintf(t + s->text_len, "\n# %s",
						       s->cli_args[i]);
	}
	sha256(s->text, s->text_len, dig);
	sha256_hex(dig, s->sha256);
	return NS_OK;
}

static int load(const char *name, const char *path, char *buf, size_t len,
		const struct scn_opts *o, struct scenario **out, struct diag *d)
{
	static const struct scn_opts none = {.prog = "numasim"};
	struct loader l = {0};
	struct scenario *s = calloc(1, sizeof *s);
	int rc;

	*out = NULL;
	if (!o)
		o = &none;
	if (!s) {
		free(buf);
		return diag_set(d, NS_ENOMEM, name, 0, 0, "out of memory");
	}
	s->text = buf;
	s->text_len = len;
	s->path = strdup(path);
	if (!s->path || copy_cli_args(s, o) || effective_text(s)) {
		rc = diag_set(d, NS_ENOMEM, name, 0, 0, "out of memory");
		goto out;
	}
	if ((rc = ytree_parse(name, s->text, s->text_len, &s->tree, d)))
		goto out;
	l.t = s->tree;
	l.d = d;
	l.s = s;
	l.o = o;
	if ((rc = parse_scenario(&l)))
		goto out;
	rc = scenario_check(s, d);
out:
	for (int i = 0; i < l.nr_set; i++) {
		free(l.set[i].key);
		free(l.set[i].vals);
	}
	free(l.set);
	if (rc) {
		rewrite_cli_diag(s, o, d);
		scenario_free(s);
		return rc;
	}
	*out = s;
	return NS_OK;
}

int scenario_load(const char *path, const char *buf, size_t len,
		  const struct scn_opts *o, struct scenario **out, struct diag *d)
{
	const char *name = ytree_display_name(path);
	char *copy = malloc(len + 1);
	*out = NULL;
	if (!copy)
		return diag_set(d, NS_ENOMEM, name, 0, 0, "out of memory");
	memcpy(copy, buf, len);
	copy[len] = '\0';
	return load(name, path, copy, len, o, out, d);
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
	return load(name, name, copy, len, NULL, out, d);
}

int scenario_load_file_opts(const char *path, const struct scn_opts *o,
			    struct scenario **out, struct diag *d)
{
	char *buf;
	size_t len;
	*out = NULL;
	int rc = ytree_read_file(path, &buf, &len, d);
	if (rc)
		return rc;
	return load(ytree_display_name(path), path, buf, len, o, out, d);
}

int scenario_load_file(const char *path, struct scenario **out, struct diag *d)
{
	return scenario_load_file_opts(path, NULL, out, d);
}

/*
 * The one-off scenario of `numasim run --machine M --workload W`: a text
 * naming the workload with quick defaults, the machine given as the first
 * command-line setting ("--machine M"), so its errors name the option.
 */
int scenario_load_adhoc(const char *machine, const char *workload,
			const struct scn_opts *o, struct scenario **out,
			struct diag *d)
{
	const struct workload_ops *wl = workload_find(workload, NULL);
	struct scn_opts ao = *o;
	char text[512], known[256];
	int rc;

	*out = NULL;
	if (!wl) {
		workload_names(known, sizeof known);
		return diag_set(d, NS_EINPUT, o->prog, 0, 0, "--workload %s: unknown "
				"workload (known: %s)", workload, known);
	}
	snprintf(text, sizeof text, "name: adhoc\nworkload:\n%s", wl->adhoc);
	ao.args = calloc((size_t)o->nr_args + 1, sizeof *ao.args);
	if (!ao.args)
		return diag_set(d, NS_ENOMEM, o->prog, 0, 0, "out of memory");
	ao.args[0] = (struct scn_arg){SCN_ARG_MACHINE, machine};
	if (o->nr_args)
		memcpy(ao.args + 1, o->args, (size_t)o->nr_args * sizeof *ao.args);
	ao.nr_args = o->nr_args + 1;
	rc = scenario_load("adhoc", text, strlen(text), &ao, out, d);
	free(ao.args);
	return rc;
}

void scenario_free(struct scenario *s)
{
	if (!s)
		return;
	free(s->path);
	free(s->name);
	free(s->description);
	free(s->text);
	for (int p = 0; s->points && p < s->nr_points; p++) {
		free(s->points[p].cpus);
		if (s->wl && s->wl->params_free)
			s->wl->params_free(s->points[p].params);
		else
			free(s->points[p].params);
	}
	free(s->points);
	for (int i = 0; i < s->nr_machines; i++) {
		struct scn_machine *m = &s->machines[i];
		free(m->ref);
		free(m->path);
		free(m->key);
		free(m->text);
		machine_free(m->machine);
	}
	free(s->machines);
	for (int a = 0; a < s->nr_axes; a++)
		free(s->axes[a].key);
	for (int i = 0; i < s->nr_cli; i++)
		ytree_free(s->cli_trees[i]);
	free(s->cli_trees);
	for (int i = 0; i < s->nr_cli_args; i++)
		free(s->cli_args[i]);
	free(s->cli_args);
	ytree_free(s->tree);
	free(s);
}

#define CHECK(cond, ...)                                                       \
	do {                                                                   \
		if (!(cond))                                                   \
			return diag_set(d, NS_EINTERNAL, s->path, 0, 0, __VA_ARGS__); \
	} while (0)

static int check_point(const struct scenario *s, int p, struct diag *d)
{
	const struct scn_point *pt = &s->points[p];
	CHECK(pt->mach && pt->machine == pt->mach->machine && pt->machine &&
	      pt->machine_path == pt->mach->path && pt->machine_text == pt->mach->text,
	      "point %d has no machine", p);
	CHECK(pt->mach >= s->machines && pt->mach < s->machines + s->nr_machines,
	      "point %d: machine outside the memo", p);
	CHECK(pt->label[0] && pt->column[0] && pt->kernel_model,
	      "point %d has no label", p);
	for (int k = 0; k < SCN_NR_KNOBS; k++)
		CHECK((knob_kinds[k] == 's') == (pt->knob[k].text != NULL),
		      "point %d: knob %s has the wrong kind of value", p, knob_names[k]);
	for (int a = 0; a < s->nr_axes; a++)
		CHECK(pt->axis_value[a] >= 0 && pt->axis_value[a] < s->axes[a].nr,
		      "point %d: axis %d value %d", p, a, pt->axis_value[a]);
	CHECK(pt->nr_cpus >= 1 && pt->cpus, "point %d has no CPU", p);
	for (int i = 0; i < pt->nr_cpus; i++)
		CHECK(pt->cpus[i] >= 0 && pt->cpus[i] <= pt->machine->max_cpu &&
		      pt->machine->cpu_node[pt->cpus[i]] >= 0,
		      "point %d: CPU %d not in the machine", p, pt->cpus[i]);
	CHECK(s->wl && pt->params, "point %d has no workload parameters", p);
	return s->wl->check(pt->params, pt->machine, pt->nr_cpus, pt->cpus, s->path, d);
}

int scenario_check(const struct scenario *s, struct diag *d)
{
	long long prod = 1;
	int rc;
	CHECK(s->machine, "scenario without a machine");
	CHECK(s->nr_axes >= 0 && s->nr_axes <= SCN_MAX_AXES, "bad axis count %d",
	      s->nr_axes);
	for (int a = 0; a < s->nr_axes; a++) {
		CHECK(s->axes[a].nr >= 1 && s->axes[a].nr <= SCN_MAX_AXIS_VALUES &&
		      s->axes[a].key && s->axes[a].name,
		      "axis %d has %d values", a, s->axes[a].nr);
		prod *= s->axes[a].nr;
	}
	CHECK(s->nr_points >= 1 && s->nr_points <= SCN_MAX_POINTS &&
	      prod == s->nr_points, "%d points for axes giving %lld",
	      s->nr_points, prod);
	CHECK(s->nr_machines >= 1 && s->nr_machines <= s->nr_points,
	      "%d machines for %d points", s->nr_machines, s->nr_points);
	for (int p = 0; p < s->nr_points; p++)
		if ((rc = check_point(s, p, d)))
			return rc;
	CHECK(s->repetitions >= 1 && s->repetitions <= SCN_MAX_REPETITIONS,
	      "repetitions %lld", s->repetitions);
	return NS_OK;
}

#undef CHECK

void scenario_set_inner(struct scenario *s, uint32_t inner)
{
	for (int p = 0; s->wl->set_inner && p < s->nr_points; p++)
		s->wl->set_inner(s->points[p].params, inner);
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

#define P_TEXT(k, t) do { if ((rc = fn(arg, (k), (t), 0))) return rc; } while (0)
#define P_NUM(k, n) do { if ((rc = fn(arg, (k), NULL, (long long)(n)))) return rc; } while (0)

/* overrides.<path> = value, from the machine memo key ("path\nk=v\n..."). */
static int params_overrides(const struct scn_machine *mm, scn_param_fn fn, void *arg)
{
	char key[300];
	const char *p = strchr(mm->key, '\n');
	int rc;
	while (p) {
		const char *line = p + 1, *eq = strchr(line, '=');
		p = strchr(line, '\n');
		size_t kl = eq ? (size_t)(eq - line) : 0;
		if (!eq || kl + 11 > sizeof key)
			continue;
		snprintf(key, sizeof key, "overrides.%.*s", (int)kl, line);
		size_t vl = p ? (size_t)(p - eq - 1) : strlen(eq + 1);
		char val[256];
		snprintf(val, sizeof val, "%.*s", (int)vl, eq + 1);
		P_TEXT(key, val);
	}
	return NS_OK;
}

int scenario_params(const struct scenario *s, int point, scn_param_fn fn,
		    void *arg)
{
	const struct scn_point *pt = &s->points[point];
	char key[64], buf[4096];
	int rc;

	P_TEXT("name", s->name);
	P_TEXT("machine", pt->machine_ref);
	P_TEXT("machine.name", pt->machine->name);
	if ((rc = params_overrides(pt->mach, fn, arg)))
		return rc;
	for (int k = 0; k < SCN_NR_KNOBS; k++) {
		if (scn_knob_is_slub((enum scn_knob)k) && !uses_slub(s))
			continue;
		if (scn_knob_is_reclaim((enum scn_knob)k) && !s->wl->reclaim)
			continue;
		snprintf(key, sizeof key, "kernel.%s", knob_names[k]);
		if (pt->knob[k].text)
			P_TEXT(key, pt->knob[k].text);
		else
			P_NUM(key, pt->knob[k].num);
	}
	P_TEXT("policy.cpuset", pt->policy.cpuset);
	P_TEXT("policy.mempolicy", pt->policy.mempolicy);
	if (pt->policy.nodes[0])
		P_TEXT("policy.nodes", pt->policy.nodes);
	cpulist_format(pt->cpus, pt->nr_cpus, buf, sizeof buf);
	P_TEXT("policy.cpus", buf);
	/* always: since 0.2.0 the default depends on the machine, so a run's
	 * params say which timing model made its rows */
	P_TEXT("cost.model", cpu_model_name((enum cpu_model)pt->cost.model));
	if (pt->cost.bpred_set)
		P_TEXT("cost.bpred", bpred_mode_name((enum bpred_mode)pt->cost.bpred));
	if (pt->cost.code_set)
		P_TEXT("cost.code", mm_code_name((enum mm_code)pt->cost.code));
	if (pt->cost.accounting_set)
		P_TEXT("cost.accounting",
		       cpu_accounting_name((enum cpu_accounting)pt->cost.accounting));
	if (pt->cost.sample_period_set)
		P_NUM("cost.sample_period", pt->cost.sample_period);
	if (pt->cost.sample_warm_set)
		P_TEXT("cost.sample_warm", cpu_warm_name((enum cpu_warm)pt->cost.sample_warm));
	if (pt->cost.sample_window_set)
		P_NUM("cost.sample_window", pt->cost.sample_window);
	P_TEXT("workload.type", scn_workload_name(s->workload));
	rc = s->wl->params(pt->params, fn, arg);
	if (rc)
		return rc;
	P_NUM("repetitions", s->repetitions);
	P_NUM("seed", s->seed);
	return NS_OK;
}
#undef P_TEXT
#undef P_NUM

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
					  "repetitions"};
	size_t off = 0;
	int n = 0;
	for (size_t i = 0; i < sizeof top / sizeof top[0]; i++)
		n = key_add(buf, cap, &off, keys, max, n, "", top[i]);
	for (int k = 0; k < SCN_NR_KNOBS; k++)
		n = key_add(buf, cap, &off, keys, max, n, "kernel.", knob_names[k]);
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
	return n;
}
