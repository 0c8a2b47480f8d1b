/*
 * compare_runs — the groups and the inference of analysis/compare.h over
 * runs: groups from what differs between the runs compared, their column
 * heads, the difference of a group against the baseline (exact, one run,
 * or Welch's t-test of one value per run) and the interaction of a 2x2
 * what-if; see compare_internal.h.
 *
 * Design notes.  A run's samples (pagealloc's 13 kept batches) are one
 * measurement: they vary with the batch, not with the run, so a test over
 * them says nothing about whether another run would differ.  Inference
 * uses one value per run, and where every run of a group repeats its value
 * exactly (a deterministic model at different seeds), the difference is
 * exact and no test is made (docs/design/statistics.md).
 */
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "analysis/compare_internal.h"

int compare_obs_add(struct obs *o, double v)
{
	if (o->n == o->cap) {
		size_t cap = o->cap ? 2 * o->cap : 16;
		double *nv = realloc(o->v, cap * sizeof *nv);
		if (!nv)
			return NS_ENOMEM;
		o->v = nv;
		o->cap = cap;
	}
	o->v[o->n++] = v;
	return NS_OK;
}

/* One run's value (a series: the mean of its samples). */
int compare_obs_run_add(struct obs *o, double v)
{
	if (o->nr == o->rcap) {
		size_t cap = o->rcap ? 2 * o->rcap : 8;
		double *nv = realloc(o->rv, cap * sizeof *nv);
		if (!nv)
			return NS_ENOMEM;
		o->rv = nv;
		o->rcap = cap;
	}
	o->rv[o->nr++] = v;
	return NS_OK;
}

/* ---- what-differs grouping ------------------------------------------------ */

/* Column heads: a variant's short form (table_variant_heads), then the
 * what-differs keys by their last component ("682a3385,inner_iterations=10"). */
void compare_make_heads(struct compare *c)
{
	int is_variant = !strcmp(c->o.by, "variant");
	const char **v = malloc((size_t)c->nr_groups * sizeof *v + 1);
	char **cut = calloc((size_t)c->nr_groups + 1, sizeof *cut);
	char (*h)[TABLE_HEAD_MAX] = malloc((size_t)c->nr_groups * sizeof *h + 1);
	int ok = v && h && cut;
	for (int g = 0; ok && g < c->nr_groups; g++) {
		size_t vl = c->groups[g].vlen ? c->groups[g].vlen : strlen(c->groups[g].value);
		ok = (cut[g] = strndup(c->groups[g].value, vl)) != NULL;
		v[g] = cut[g];
	}
	if (is_variant && ok)
		table_variant_heads(v, c->nr_groups, h);
	for (int g = 0; g < c->nr_groups; g++) {
		struct group *gr = &c->groups[g];
		/* snprintf cuts a head too long for the table's column */
		snprintf(gr->head, TABLE_HEAD_MAX, "%s%s", is_variant && ok ? h[g] : cut && cut[g] ? cut[g]
			 : gr->value, gr->suffix ? gr->suffix : "");
	}
	for (int g = 0; cut && g < c->nr_groups; g++)
		free(cut[g]);
	free(cut);
	free(v);
	free(h);
}


/* The value of key in a '\x1f'-joined "k=v" list ("~" when absent): its
 * start, length in *len. */
static const char *kv_find(const char *kv, const char *key, size_t *len)
{
	size_t kl = strlen(key);
	for (const char *p = kv; p && *p;) {
		const char *e = strchr(p, '\x1f');
		size_t n = e ? (size_t)(e - p) : strlen(p);
		if (n > kl && p[kl] == '=' && !strncmp(p, key, kl)) {
			*len = n - kl - 1;
			return p + kl + 1;
		}
		p = e ? e + 1 : p + n;
	}
	*len = 1;
	return "~";
}

static int kv_same(const char *a, const char *b, const char *key)
{
	size_t la, lb;
	const char *va = kv_find(a, key, &la), *vb = kv_find(b, key, &lb);
	return la == lb && !strncmp(va, vb, la);
}

/* Append text to a growing string; 0 when out of memory. */
static int str_append(char **s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int str_append(char **s, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *add = sqlite3_vmprintf(fmt, ap);
	va_end(ap);
	char *n = add ? sqlite3_mprintf("%s%s", *s ? *s : "", add) : NULL;
	sqlite3_free(add);
	sqlite3_free(*s);
	*s = n;
	return n != NULL;
}

/* Move group src's observations and runs into group dst. */
static int merge_group(struct compare *c, int dst, int src)
{
	struct group *d = &c->groups[dst], *g = &c->groups[src];
	for (int m = 0; m < c->nr_metrics; m++) {
		struct obs *o = &c->metrics[m].obs[src], *t = &c->metrics[m].obs[dst];
		for (size_t i = 0; i < o->n; i++)
			if (compare_obs_add(t, o->v[i]) != NS_OK)
				return NS_ENOMEM;
		for (size_t i = 0; i < o->nr; i++)
			if (compare_obs_run_add(t, o->rv[i]) != NS_OK)
				return NS_ENOMEM;
		free(o->v);
		free(o->rv);
		memset(o, 0, sizeof *o);
	}
	if (strcmp(d->model, g->model))
		d->model[0] = '\0';
	d->seeds_differ |= g->seeds_differ || g->seed0 != d->seed0;
	d->nr_runs += g->nr_runs;
	return NS_OK;
}

/*
 * No --by: runs were loaded in groups of (variant, every parameter).  A
 * parameter that differs between runs of one variant (a --set of one
 * invocation, a machine override) joins the label: the groups become
 * (variant, those parameters' values), labelled "VARIANT,KEY=VALUE"; when
 * the variant says it all, the groups are the variants, as with --by
 * variant.  Parameters the same in every run are left out of the label.
 */
int compare_group_by_differences(struct compare *c)
{
	char **keys = NULL;
	int nk = 0, rc = NS_OK;
	if (c->differs != 1 || c->nr_groups == 0)
		return NS_OK;
	c->differs = 2;   /* relabelled once */
	/* the keys of every group's list, each once */
	for (int g = 0; g < c->nr_groups && rc == NS_OK; g++)
		for (const char *p = c->groups[g].kv; p && *p;) {
			const char *e = strchr(p, '\x1f'), *eq = strchr(p, '=');
			size_t n = e ? (size_t)(e - p) : strlen(p);
			if (eq && eq < p + n) {
				int have = 0;
				for (int k = 0; k < nk && !have; k++)
					have = strlen(keys[k]) == (size_t)(eq - p) &&
					       !strncmp(keys[k], p, (size_t)(eq - p));
				char **nkeys = have ? keys : realloc(keys, (size_t)(nk + 1) * sizeof *keys);
				if (!nkeys) {
					rc = NS_ENOMEM;
					break;
				}
				keys = nkeys;
				if (!have && !(keys[nk++] = strndup(p, (size_t)(eq - p)))) {
					nk--;
					rc = NS_ENOMEM;
					break;
				}
			}
			p = e ? e + 1 : p + n;
		}
	/* keys that differ between runs of one variant join the label */
	int *join = calloc((size_t)nk + 1, sizeof *join);
	if (!join)
		rc = NS_ENOMEM;
	for (int k = 0; k < nk && rc == NS_OK; k++)
		for (int a = 0; a < c->nr_groups && !join[k]; a++)
			for (int b = a + 1; b < c->nr_groups && !join[k]; b++)
				join[k] = !strcmp(c->groups[a].value, c->groups[b].value) &&
					  !kv_same(c->groups[a].kv, c->groups[b].kv, keys[k]);
	/* relabel, then merge equal labels into the first */
	for (int g = 0; g < c->nr_groups && rc == NS_OK; g++) {
		struct group *gr = &c->groups[g];
		char *v = NULL, *sfx = NULL;
		if (!str_append(&v, "%s", gr->value) || !str_append(&sfx, "%s", ""))
			rc = NS_ENOMEM;
		gr->vlen = strlen(gr->value);
		for (int k = 0; k < nk && rc == NS_OK; k++) {
			size_t len;
			const char *val = kv_find(gr->kv, keys[k], &len);
			const char *last = strrchr(keys[k], '.');
			if (join[k] && (!str_append(&v, ",%s=%.*s", keys[k], (int)len, val) ||
					!str_append(&sfx, ",%s=%.*s", last ? last + 1 : keys[k],
						    (int)len, val)))
				rc = NS_ENOMEM;
		}
		int has_sfx = rc == NS_OK && sfx[0];
		char *nv = v && rc == NS_OK ? strdup(v) : NULL;
		char *ns = nv && has_sfx ? strdup(sfx) : NULL;
		sqlite3_free(v);
		sqlite3_free(sfx);
		if (!nv || (has_sfx && !ns)) {
			free(nv);
			rc = NS_ENOMEM;
			break;
		}
		free(gr->value);
		gr->value = nv;
		free(gr->suffix);
		gr->suffix = ns;
	}
	for (int g = 1; g < c->nr_groups && rc == NS_OK; g++) {
		int first = 0;
		while (first < g && strcmp(c->groups[first].value, c->groups[g].value))
			first++;
		if (first == g)
			continue;
		if ((rc = merge_group(c, first, g)) != NS_OK)
			break;
		struct group dead = c->groups[g];
		free(dead.value);
		free(dead.model);
		free(dead.kv);
		free(dead.suffix);
		memmove(&c->groups[g], &c->groups[g + 1],
			(size_t)(c->nr_groups - g - 1) * sizeof dead);
		for (int m = 0; m < c->nr_metrics; m++) {
			struct obs *o = c->metrics[m].obs;
			memmove(&o[g], &o[g + 1], (size_t)(c->nr_groups - g - 1) * sizeof *o);
			memset(&o[c->nr_groups - 1], 0, sizeof *o);
		}
		c->nr_groups--;
		g--;
	}
	for (int k = 0; k < nk; k++)
		free(keys[k]);
	free(keys);
	free(join);
	return rc == NS_OK ? NS_OK : compare_oom(c);
}

/* The parameters that never say what differs: a run's place in its plan
 * and values derived from others (as KV_SQL in compare.c leaves out). */
#define LABEL_SKIP "('seed', 'repetitions', 'name', 'machine', 'workload.gfp_mask', 'same_as_point')"

int compare_label_sql(sqlite3 *db, const char *dbname, const char *const *where, int n,
		      char **out, struct diag *d)
{
	char *w = compare_where_sql(where, n, 1), *sql = NULL, *expr = NULL;
	sqlite3_stmt *st = NULL;
	int rc = NS_OK, s;
	*out = NULL;
	if (w)
		sql = sqlite3_mprintf("SELECT DISTINCT p.key FROM runs r JOIN params p USING "
				      "(run_id) WHERE r.status = 'ok'%s AND p.key NOT IN "
				      LABEL_SKIP " GROUP BY r.variant, p.key HAVING "
				      "count(DISTINCT CAST(p.value AS TEXT)) > 1 ORDER BY p.key", w);
	expr = sqlite3_mprintf("r.variant");
	if (!sql || !expr) {
		rc = diag_set(d, NS_ENOMEM, dbname, 0, 0, "out of memory");
		goto out;
	}
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
		rc = diag_set(d, NS_EDB, dbname, 0, 0, "%s", sqlite3_errmsg(db));
		goto out;
	}
	compare_where_bind(st, where, n, 1);
	while ((s = sqlite3_step(st)) == SQLITE_ROW) {
		const char *key = (const char *)sqlite3_column_text(st, 0);
		const char *last = key ? strrchr(key, '.') : NULL;
		char *head = sqlite3_mprintf(",%s=", last ? last + 1 : key ? key : "~");
		char *e = head ? sqlite3_mprintf("%s || %Q || coalesce((SELECT CAST(value AS "
						 "TEXT) FROM params WHERE run_id = r.run_id AND "
						 "key = %Q), '~')", expr, head, key ? key : "")
			       : NULL;
		sqlite3_free(head);
		sqlite3_free(expr);
		expr = e;
		if (!expr) {
			rc = diag_set(d, NS_ENOMEM, dbname, 0, 0, "out of memory");
			goto out;
		}
	}
	if (s != SQLITE_DONE)
		rc = diag_set(d, NS_EDB, dbname, 0, 0, "%s", sqlite3_errmsg(db));
out:
	sqlite3_finalize(st);
	sqlite3_free(sql);
	sqlite3_free(w);
	if (rc == NS_OK) {
		*out = sqlite3_mprintf("(%s)", expr);
		if (!*out)
			rc = diag_set(d, NS_ENOMEM, dbname, 0, 0, "out of memory");
	}
	sqlite3_free(expr);
	return rc;
}

/* ---- differences over runs ------------------------------------------------ */

static double runs_mean(const struct obs *o)
{
	double sum = 0;
	for (size_t i = 0; i < o->nr; i++)
		sum += o->rv[i];
	return o->nr ? sum / (double)o->nr : NAN;
}

/* Every run gave the same value (compared exactly, not by a stdev that
 * rounding leaves above zero). */
static int runs_identical(const struct obs *o)
{
	for (size_t i = 1; i < o->nr; i++)
		if (o->rv[i] != o->rv[0])
			return 0;
	return 1;
}

struct runs_diff compare_runs_diff(const struct compare *c, const struct metric *m, int g,
				   int base)
{
	const struct obs *a = &m->obs[g], *b = &m->obs[base];
	struct runs_diff r = {.kind = DIFF_NONE, .diff = NAN, .n = a->nr, .n_base = b->nr};
	struct stats_summary sa, sb;
	if (!a->nr || !b->nr)
		return r;
	r.diff = runs_mean(a) - runs_mean(b);
	if (a->nr < 2 || b->nr < 2) {
		r.kind = DIFF_ONE_RUN;
		return r;
	}
	if (runs_identical(a) && runs_identical(b)) {
		r.kind = DIFF_EXACT;
		return r;
	}
	if (stats_summary(a->rv, a->nr, &sa) || stats_summary(b->rv, b->nr, &sb))
		return r;
	if (stats_welch_summary(&sa, &sb, &r.w) ||
	    stats_welch_ci(&r.w, 1 - c->o.alpha, &r.lo, &r.hi))
		return r;
	r.kind = DIFF_TEST;
	return r;
}


/* ---- the 2x2 interaction -------------------------------------------------- */

/*
 * The factors of four groups: every key whose value differs between them
 * must split them two against two; keys splitting alike are one factor,
 * named by the mask of the groups at the baseline's (group 0's) value.
 */
int compare_find_2x2(const struct compare *c, struct compare_2x2 *x)
{
	unsigned mask[2] = {0, 0};
	int nf = 0;
	memset(x, 0, sizeof *x);
	if (c->differs != 2 || c->nr_groups != 4)
		return 0;
	for (int g = 0; g < 4; g++)
		if (!c->groups[g].kv)
			return 0;
	/* every key of group 0's list (the lists of one plan have the same
	 * keys; a key missing from group 0 reads "~" in kv_find) */
	for (int g = 0; g < 4; g++)
		for (const char *p = c->groups[g].kv; *p;) {
			const char *e = strchr(p, '\x1f'), *eq = strchr(p, '=');
			size_t n = e ? (size_t)(e - p) : strlen(p);
			char key[120];
			if (!eq || eq >= p + n || (size_t)(eq - p) >= sizeof key)
				return 0;
			snprintf(key, sizeof key, "%.*s", (int)(eq - p), p);
			p = e ? e + 1 : p + n;
			unsigned m = 1;
			for (int k = 1; k < 4; k++)
				m |= kv_same(c->groups[0].kv, c->groups[k].kv, key) ? 1u << k : 0;
			if (m == 15)
				continue;   /* the same in every group */
			/* the other two groups must agree too */
			int other[2], no = 0;
			for (int k = 1; k < 4; k++)
				if (!(m & (1u << k)) && no < 2)
					other[no++] = k;
			if (__builtin_popcount(m) != 2 || no != 2 ||
			    !kv_same(c->groups[other[0]].kv, c->groups[other[1]].kv, key))
				return 0;
			int f = 0;
			while (f < nf && mask[f] != m)
				f++;
			if (f == nf) {
				if (nf == 2)
					return 0;   /* a third factor */
				mask[nf++] = m;
				size_t len;
				const char *v0 = kv_find(c->groups[0].kv, key, &len);
				snprintf(x->level[f][0], sizeof x->level[f][0], "%.*s", (int)len, v0);
				v0 = kv_find(c->groups[other[0]].kv, key, &len);
				snprintf(x->level[f][1], sizeof x->level[f][1], "%.*s", (int)len, v0);
				snprintf(x->factor[f], sizeof x->factor[f], "%s", key);
			} else if (!strstr(x->factor[f], key)) {
				size_t l = strlen(x->factor[f]);
				snprintf(x->factor[f] + l, sizeof x->factor[f] - l, "+%s", key);
			}
		}
	if (nf != 2)
		return 0;
	for (int g = 0; g < 4; g++) {
		int a = !(mask[0] & (1u << g)), b = !(mask[1] & (1u << g));
		x->cell[a][b] = g;
	}
	return 1;
}

struct runs_diff compare_interaction(const struct compare *c, const struct metric *m,
				     const struct compare_2x2 *x)
{
	static const double coef[2][2] = {{1, -1}, {-1, 1}};
	struct runs_diff r = {.kind = DIFF_NONE, .diff = NAN};
	struct stats_summary s[4];
	double k[4];
	int one = 0, same = 1, i = 0;
	r.diff = 0;
	for (int a = 0; a < 2; a++)
		for (int b = 0; b < 2; b++, i++) {
			const struct obs *o = &m->obs[x->cell[a][b]];
			if (!o->nr) {
				r.diff = NAN;
				return r;
			}
			r.diff += coef[a][b] * runs_mean(o);
			one |= o->nr < 2;
			same &= runs_identical(o);
			k[i] = coef[a][b];
			if (o->nr >= 2 && stats_summary(o->rv, o->nr, &s[i]) != NS_OK)
				return r;
		}
	r.n = m->obs[x->cell[1][1]].nr;
	r.n_base = m->obs[x->cell[0][0]].nr;
	if (one) {
		r.kind = DIFF_ONE_RUN;
		return r;
	}
	if (same) {
		r.kind = DIFF_EXACT;
		return r;
	}
	if (stats_contrast(s, k, 4, &r.w) || stats_welch_ci(&r.w, 1 - c->o.alpha, &r.lo, &r.hi))
		return r;
	r.diff = r.w.diff;
	r.kind = DIFF_TEST;
	return r;
}
