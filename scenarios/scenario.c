/*
 * scenario — loading, checking and expanding scenario files; see scenario.h
 * and docs/reference/scenario-format.md.
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
 *
 * The loader's parts: this file (the top level, a point's walk, labels,
 * check, params), scenario_settings.c (the loader context and the
 * settings), scenario_machine.c (machines and overrides),
 * scenario_sections.c (kernel, policy, sched, cost; the keys), sharing
 * scenario_internal.h.  The workload's section is read by the workload
 * itself (workloads/workload.h: its parse gets a wl_reader that applies
 * the settings), so nothing here names a workload.
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
			scn_node_text(l->set[i].vals[pt->axis_value[a]], buf, len);
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
	int main_knob = scn_knob_lookup(s->wl->label_knob ? s->wl->label_knob
							  : "zonelist_iter");
	if (s->nr_axes == 0 && main_knob >= 0) {
		snprintf(pt->label, SCN_LABEL_MAX, "%s=%s", scn_knob_names[main_knob],
			 pt->knob[main_knob].text);
		snprintf(pt->column, SCN_LABEL_MAX, "%s", pt->knob[main_knob].text);
	}
	/* a change file that is not an axis: named in the label, so that
	 * compare and diff tell its runs from the commit's own */
	int change_axis = 0;
	for (int a = 0; a < s->nr_axes; a++)
		change_axis |= s->axes[a].knob == SCN_KNOB_change;
	if (pt->nr_changes && !change_axis) {
		/* with no axis, the commit the change applies to (the label of
		 * runs without a change keeps its main knob) */
		if (s->nr_axes == 0 && pt->knob[SCN_KNOB_commit].set) {
			snprintf(pt->label, SCN_LABEL_MAX, "commit=%s", pt->knob[SCN_KNOB_commit].text);
			snprintf(pt->column, SCN_LABEL_MAX, "%s", pt->knob[SCN_KNOB_commit].text);
		}
		size_t lo = strlen(pt->label), co = strlen(pt->column);
		append(pt->label, &lo, "%schange=%s", lo ? "," : "", pt->change_text);
		append(pt->column, &co, "%s%s", co ? "," : "", pt->change_text);
	}
	int post = pt->cfg.iter == MMZONE_ITER_POST;
	if (pt->knob[SCN_KNOB_commit].set && pt->cfg.commit != KCOMMIT_UNSET)
		pt->kernel_model = kcommit_kernel_model(pt->cfg.commit);
	else
		pt->kernel_model = s->wl->kernel_model
			? s->wl->kernel_model(post, pt->slub.variant == SLUB_POST)
			: post ? "v4.6+patches1-4+682a3385" : "v4.6+patches1-4";
	/* a SLUB commit past v5.9 follows: "v5.9+c270cf30+b47291ef02b0" */
	if (scn_uses_slub(s) && pt->slub.commit > KC_v5_9) {
		const char *pair = kcommit_kernel_model(pt->slub.commit);   /* "v5.9+..." */
		snprintf(pt->kernel_model_buf, sizeof pt->kernel_model_buf, "%s%s",
			 pt->kernel_model, pair + strlen(kcommit_kernel_model(KC_v5_9)));
		pt->kernel_model = pt->kernel_model_buf;
	}
}

/* ---- workload ------------------------------------------------------------ */

/* The workload's section through the loader: scn_tree_of and scn_section_fields. */
static const struct ytree *reader_tree(void *ctx, const struct ynode *n)
{
	return scn_tree_of(ctx, n);
}

static int reader_fields(void *ctx, const struct ynode *n, const char *what,
			 const struct ytree_field *f, size_t nr, const struct ynode **v)
{
	return scn_section_fields(ctx, n, "workload", what, f, nr, v);
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
	type = scn_lookup(l, "workload.type");
	if (!type)
		type = ynode_map_get(n, "type");
	if (!type)
		return scn_err(l, n, "missing required key 'type' in workload");
	if ((rc = ytree_string(TT(type), type, "workload type", 1, &ts, l->d)))
		return rc;
	if ((l->s->wl = workload_find(ts, &w))) {
		l->s->workload = (enum scn_workload_type)w;
		return NS_OK;
	}
	ytree_quote(ts, type->len, q, sizeof q);
	workload_names(known, sizeof known);
	return scn_err(l, type, "unknown workload type '%s' (known: %s)", q, known);
}

/* ---- one point ------------------------------------------------------------ */

static int resolve_point(struct loader *l, const struct ynode *machine_node)
{
	struct scn_point *pt = l->pt;
	const struct ynode *mn = scn_lookup(l, "machine");
	int rc;

	if (!mn)
		mn = machine_node;
	if ((rc = scn_get_machine(l, mn)))
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
	if ((rc = scn_parse_policy(l)) || (rc = scn_parse_sched(l)) || (rc = parse_workload(l)) ||
	    (rc = scn_parse_kernel(l)) || (rc = scn_parse_cost(l)) || (rc = scn_parse_noise(l)))
		return rc;
	if (l->cpuset_local && (rc = scn_resolve_cpuset_local(l)))
		return rc;
	scn_default_knobs(pt);
	make_labels(l, pt);
	return NS_OK;
}

/* ---- top level ------------------------------------------------------------ */

enum { F_NAME, F_DESC, F_MACHINE, F_KERNEL, F_WORKLOAD, F_POLICY, F_COST, F_SWEEP,
       F_OVERRIDES, F_REPS, F_SEED, F_SCHED, F_LIMITS, F_NOISE,
       NR_F };

static const struct ynode *top(struct loader *l, const char *key,
			       const struct ynode *file)
{
	const struct ynode *n = scn_lookup(l, key);
	return n ? n : file;
}

/* plan_limits: {runs: N, memory_mib: M}: how large a plan may be before
 * `numasim run` wants --yes (run.h, RUN_CONFIRM_*). */
static int parse_plan_limits(struct loader *l, const struct ynode *file)
{
	static const struct ytree_field fields[] = {{"runs", 0}, {"memory_mib", 0}};
	static const char *const keys[] = {"plan_limits.runs", "plan_limits.memory_mib"};
	long long *dst[] = {&l->s->limit_runs, &l->s->limit_memory_mib};
	const struct ynode *v[2] = {NULL, NULL};
	int rc;

	l->s->limit_runs = SCN_LIMIT_RUNS;
	l->s->limit_memory_mib = SCN_LIMIT_MEMORY_MIB;
	if (file && (rc = ytree_fields(l->t, file, "plan_limits", fields, 2, v, l->d)))
		return rc;
	for (int i = 0; i < 2; i++) {
		const struct ynode *n = top(l, keys[i], v[i]);
		if (n && (rc = ytree_int(TT(n), n, keys[i], 1, INT64_MAX / 2, dst[i], l->d)))
			return rc;
	}
	return NS_OK;
}

static int parse_plan_keys(struct loader *l, const struct ynode **v)
{
	struct scenario *s = l->s;
	const struct ynode *n;
	long long seed = 1;
	int rc;

	if ((rc = scn_get_text(l, top(l, "name", v[F_NAME]), "name", 1, &s->name)))
		return rc;
	if ((n = top(l, "description", v[F_DESC])) &&
	    (rc = scn_get_text(l, n, "description", 0, &s->description)))
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
	return parse_plan_limits(l, v[F_LIMITS]);
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
		[F_SCHED] = {"sched", 0},       [F_LIMITS] = {"plan_limits", 0},
		[F_NOISE] = {"noise", 0},
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
	l->top_noise = v[F_NOISE];
	if ((rc = scn_kernel_lists(l)) || (rc = scn_file_map(l, v[F_OVERRIDES], 0)) ||
	    (rc = scn_file_map(l, v[F_SWEEP], 1)))
		return rc;
	for (int i = 0; i < s->nr_cli_args; i++)
		if ((rc = scn_cli_setting(l, i)))
			return rc;
	if ((rc = scn_assign_axes(l)))
		return rc;
	s->points = calloc((size_t)s->nr_points, sizeof *s->points);
	s->machines = calloc((size_t)s->nr_points, sizeof *s->machines);
	if (!s->points || !s->machines)
		return scn_nomem(l);
	l->pt = &s->points[0];
	if ((rc = parse_plan_keys(l, v)))
		return rc;
	if (!v[F_MACHINE] && !scn_lookup(l, "machine"))
		return scn_err(l, l->t->root, "missing required key 'machine' in scenario file");
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
		if (p == 0 && (rc = scn_unused_settings(l)))
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
		for (int c = 0; c < s->points[p].nr_changes; c++)
			kchange_free(s->points[p].changes[c]);
		free(s->points[p].changes);
		free(s->points[p].block_changes);
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
		CHECK((scn_knob_kinds[k] == 's') == (pt->knob[k].text != NULL),
		      "point %d: knob %s has the wrong kind of value", p, scn_knob_names[k]);
	for (int a = 0; a < s->nr_axes; a++)
		CHECK(pt->axis_value[a] >= 0 && pt->axis_value[a] < s->axes[a].nr,
		      "point %d: axis %d value %d", p, a, pt->axis_value[a]);
	CHECK(pt->nr_cpus >= 1 && pt->cpus, "point %d has no CPU", p);
	for (int i = 0; i < pt->nr_cpus; i++)
		CHECK(pt->cpus[i] >= 0 && pt->cpus[i] <= pt->machine->max_cpu &&
		      pt->machine->cpu_node[pt->cpus[i]] >= 0,
		      "point %d: CPU %d not in the machine", p, pt->cpus[i]);
	CHECK(s->wl && pt->params, "point %d has no workload parameters", p);
	return s->wl->check ? s->wl->check(pt->params, pt->machine, pt->nr_cpus, pt->cpus,
					   s->path, d)
			     : NS_OK;
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

static int same_behaviour(const struct scenario *s, const struct scn_point *a,
			  const struct scn_point *b)
{
	for (int x = 0; x < s->nr_axes; x++) {
		if (a->axis_value[x] == b->axis_value[x])
			continue;
		if (s->axes[x].knob != SCN_KNOB_commit ||
		    kcommit_effective(a->cfg.commit) != kcommit_effective(b->cfg.commit) ||
		    kcommit_effective(a->slub.commit) != kcommit_effective(b->slub.commit))
			return 0;
	}
	return 1;
}

int scenario_point_twin(const struct scenario *s, int p)
{
	for (int q = 0; q < p; q++)
		if (same_behaviour(s, &s->points[q], &s->points[p]))
			return q;
	return p;
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
		if (scn_knob_is_slub((enum scn_knob)k) && !scn_uses_slub(s))
			continue;
		if (scn_knob_is_reclaim((enum scn_knob)k) && !s->wl->reclaim)
			continue;
		/* a run without change files keeps the params it had */
		if (k == SCN_KNOB_change && !pt->nr_changes)
			continue;
		snprintf(key, sizeof key, "kernel.%s", scn_knob_names[k]);
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
	if (pt->noise_set) {
		P_TEXT("noise.page_placement", pt->noise.page_placement ? "on" : "off");
		P_TEXT("noise.ticks", pt->noise.ticks ? "on" : "off");
		P_TEXT("noise.pollution", pt->noise.pollution ? "on" : "off");
		P_NUM("noise.hz", pt->noise.hz);
		P_NUM("noise.tick_ns", pt->noise.tick_ns);
		P_NUM("noise.tick_lines", pt->noise.tick_lines);
		P_NUM("noise.pollution_percent", pt->noise.pollution_percent);
	}
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

