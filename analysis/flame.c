/*
 * flame — folded stacks and flame graphs of the call paths (see flame.h).
 *
 * Design notes.  Loading is one query over the view profile_stacks (the
 * recursive CTE that joins each path to its parents), grouped by the stack
 * string, so a diff of two runs is one merge done by SQLite and both
 * columns come out in one sorted list.  The SVG writer rebuilds the tree
 * from the stack strings (first-child / next-sibling links, frames found
 * by name under their parent), sorts each frame's children by name as
 * flamegraph.pl does, and lays the frames out in one depth-first walk:
 * x offset and width from the inclusive value, y from the depth, root at
 * the bottom.  Costs are linear in the stacks' total length (a run has a
 * few dozen to a few hundred paths), and nothing depends on hash order or
 * the host, so the bytes are reproducible.
 */
#include "analysis/flame.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/markup.h"

const char *const flame_metric_names[3] = {"cycles", "calls", "mispredicts"};
/* the profile_stacks column of each metric */
static const char *const metric_cols[3] = {"self_cycles", "calls", "mispredicted"};

int flame_metric_parse(const char *name)
{
	for (int i = 0; i < 3; i++)
		if (!strcmp(name, flame_metric_names[i]))
			return i;
	return -1;
}

const char *flame_metric_name(enum flame_metric m)
{
	return (unsigned)m < 3 ? flame_metric_names[m] : "unknown";
}

void flame_init(struct flame *f)
{
	memset(f, 0, sizeof *f);
}

void flame_free(struct flame *f)
{
	for (int i = 0; i < f->nr; i++)
		free(f->s[i].stack);
	free(f->s);
	memset(f, 0, sizeof *f);
}

static int db_err(sqlite3 *db, const char *dbname, struct diag *d)
{
	return diag_set(d, NS_EDB, dbname, 0, 0, "%s", sqlite3_errmsg(db));
}

/* "run N (variant)" of an existing run; NS_EINPUT when there is none. */
static int run_label(sqlite3 *db, const char *dbname, int64_t run, char *buf,
		     size_t len, struct diag *d)
{
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(db, "SELECT variant FROM runs WHERE run_id = ?1", -1, &st,
			       NULL) != SQLITE_OK)
		return db_err(db, dbname, d);
	sqlite3_bind_int64(st, 1, run);
	int s = sqlite3_step(st), rc = NS_OK;
	if (s == SQLITE_ROW)
		snprintf(buf, len, "run %" PRId64 " (%s)", run,
			 (const char *)sqlite3_column_text(st, 0));
	else if (s == SQLITE_DONE)
		rc = diag_set(d, NS_EINPUT, dbname, 0, 0, "no run %" PRId64
			      " in this database", run);
	else
		rc = db_err(db, dbname, d);
	sqlite3_finalize(st);
	return rc;
}

static int push(struct flame *f, const char *stack, uint64_t a, uint64_t b)
{
	if (f->nr == f->cap) {
		int cap = f->cap ? 2 * f->cap : 64;
		struct flame_stack *n = realloc(f->s, (size_t)cap * sizeof *n);
		if (!n)
			return NS_ENOMEM;
		f->s = n;
		f->cap = cap;
	}
	char *dup = strdup(stack);
	if (!dup)
		return NS_ENOMEM;
	f->s[f->nr++] = (struct flame_stack){.stack = dup, .a = a, .b = b};
	f->total_a += a;
	f->total_b += b;
	return NS_OK;
}

/* NS_OK for a stack flame_svg can draw: a name, 1..FLAME_MAX_DEPTH frames,
 * none empty; values not negative (NS_ERANGE). */
static int bad_stack(const char *stack, int64_t a, int64_t b)
{
	if (!stack || !*stack)
		return NS_EINPUT;
	if (a < 0 || b < 0)
		return NS_ERANGE;
	int frames = 1;
	for (const char *p = stack; *p; p++)
		if (*p == ';' && (p == stack || !p[1] || p[1] == ';' || ++frames > FLAME_MAX_DEPTH))
			return NS_EINPUT;
	return NS_OK;
}

/* Number of call paths stored for run (0: none). */
static int count_paths(sqlite3 *db, const char *dbname, int64_t run, int64_t *n,
		       struct diag *d)
{
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(db, "SELECT count(*) FROM profile_paths WHERE run_id = ?1",
			       -1, &st, NULL) != SQLITE_OK)
		return db_err(db, dbname, d);
	sqlite3_bind_int64(st, 1, run);
	int rc = sqlite3_step(st) == SQLITE_ROW ? NS_OK : db_err(db, dbname, d);
	*n = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	if (rc == NS_OK && *n == 0)
		rc = diag_set(d, NS_EINPUT, dbname, 0, 0, "run %" PRId64 " has no call "
			      "paths (written by a numasim before schema version 3, "
			      "or a run without modelled calls)", run);
	return rc;
}

int flame_load(struct flame *f, sqlite3 *db, const char *dbname, int64_t run_a,
	       int64_t run_b, enum flame_metric m, struct diag *d)
{
	int64_t n;
	int rc;
	flame_free(f);
	f->metric = m;
	f->run_a = run_a;
	f->run_b = run_b;
	if ((unsigned)m >= 3)
		return diag_set(d, NS_EINTERNAL, dbname, 0, 0, "flame: bad metric");
	if ((rc = run_label(db, dbname, run_a, f->label_a, sizeof f->label_a, d)) ||
	    (rc = count_paths(db, dbname, run_a, &n, d)))
		return rc;
	if (run_b > 0 &&
	    ((rc = run_label(db, dbname, run_b, f->label_b, sizeof f->label_b, d)) ||
	     (rc = count_paths(db, dbname, run_b, &n, d))))
		return rc;
	char sql[512];
	snprintf(sql, sizeof sql,
		 "SELECT stack, sum(CASE WHEN run_id = ?1 THEN %s ELSE 0 END), "
		 "sum(CASE WHEN run_id = ?2 THEN %s ELSE 0 END) FROM profile_stacks "
		 "WHERE run_id IN (?1, ?2) GROUP BY stack ORDER BY stack COLLATE BINARY",
		 metric_cols[m], metric_cols[m]);
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return db_err(db, dbname, d);
	sqlite3_bind_int64(st, 1, run_a);
	sqlite3_bind_int64(st, 2, run_b > 0 ? run_b : run_a);
	int s;
	while (rc == NS_OK && (s = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t a = sqlite3_column_int64(st, 1), b = sqlite3_column_int64(st, 2);
		const char *stack = (const char *)sqlite3_column_text(st, 0);
		rc = bad_stack(stack, a, run_b > 0 ? b : 0);
		if (rc) {
			diag_set(d, rc, dbname, 0, 0, "run %" PRId64 "%s%.0" PRId64 ": %s in "
				 "profile_stacks (table profile_paths)", run_a,
				 run_b > 0 ? " or run " : "", run_b > 0 ? run_b : 0,
				 !stack || !*stack ? "a call path with no function (NULL or "
				 "empty)" : rc == NS_ERANGE ? "a negative value"
				 : "a call path of more than " FLAME_MAX_DEPTH_S " frames or with "
				 "an empty frame");
			rc = NS_EINPUT;
			break;
		}
		rc = push(f, stack, (uint64_t)a, run_b > 0 ? (uint64_t)b : 0);
	}
	if (rc == NS_OK && s != SQLITE_DONE)
		rc = db_err(db, dbname, d);
	else if (rc == NS_ENOMEM)
		diag_set(d, rc, dbname, 0, 0, "out of memory");
	sqlite3_finalize(st);
	if (rc == NS_OK && run_b > 0)
		snprintf(f->title, sizeof f->title, "Differential flame graph (%s): %s -> %s",
			 flame_metric_name(m), f->label_a, f->label_b);
	else if (rc == NS_OK)
		snprintf(f->title, sizeof f->title, "Flame graph (%s): %s",
			 flame_metric_name(m), f->label_a);
	return rc;
}

/* The ok runs of variant: how many, the first, how many lack call paths. */
static int variant_runs(sqlite3 *db, const char *dbname, const char *variant, int64_t *n,
			int64_t *first, struct diag *d)
{
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(db, "SELECT count(*), min(run_id), sum(NOT EXISTS (SELECT 1 "
			       "FROM profile_paths p WHERE p.run_id = r.run_id)) FROM runs r "
			       "WHERE r.status = 'ok' AND r.variant = ?1", -1, &st,
			       NULL) != SQLITE_OK)
		return db_err(db, dbname, d);
	sqlite3_bind_text(st, 1, variant, -1, SQLITE_STATIC);
	int rc = sqlite3_step(st) == SQLITE_ROW ? NS_OK : db_err(db, dbname, d);
	*n = sqlite3_column_int64(st, 0);
	*first = sqlite3_column_int64(st, 1);
	int64_t bare = sqlite3_column_int64(st, 2);
	sqlite3_finalize(st);
	if (rc == NS_OK && *n == 0)
		rc = diag_set(d, NS_EINPUT, dbname, 0, 0, "no ok run of variant '%s'", variant);
	else if (rc == NS_OK && bare)
		rc = diag_set(d, NS_EINPUT, dbname, 0, 0, "%" PRId64 " run(s) of variant '%s' "
			      "have no call paths", bare, variant);
	return rc;
}

int flame_load_variants(struct flame *f, sqlite3 *db, const char *dbname, const char *va,
			const char *vb, enum flame_metric m, struct diag *d)
{
	int64_t na, nb;
	int rc;
	flame_free(f);
	f->metric = m;
	if ((unsigned)m >= 3)
		return diag_set(d, NS_EINTERNAL, dbname, 0, 0, "flame: bad metric");
	if ((rc = variant_runs(db, dbname, va, &na, &f->run_a, d)) ||
	    (rc = variant_runs(db, dbname, vb, &nb, &f->run_b, d)))
		return rc;
	snprintf(f->label_a, sizeof f->label_a, "%s (mean of %" PRId64 " run%s)", va, na,
		 na > 1 ? "s" : "");
	snprintf(f->label_b, sizeof f->label_b, "%s (mean of %" PRId64 " run%s)", vb, nb,
		 nb > 1 ? "s" : "");
	char sql[600];
	snprintf(sql, sizeof sql,
		 "SELECT s.stack, sum(CASE WHEN r.variant = ?1 THEN s.%s ELSE 0 END), "
		 "sum(CASE WHEN r.variant = ?2 THEN s.%s ELSE 0 END) FROM profile_stacks s "
		 "JOIN runs r USING (run_id) WHERE r.status = 'ok' AND r.variant IN (?1, ?2) "
		 "GROUP BY s.stack ORDER BY s.stack COLLATE BINARY",
		 metric_cols[m], metric_cols[m]);
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return db_err(db, dbname, d);
	sqlite3_bind_text(st, 1, va, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, vb, -1, SQLITE_STATIC);
	int s;
	while (rc == NS_OK && (s = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t a = sqlite3_column_int64(st, 1), b = sqlite3_column_int64(st, 2);
		const char *stack = (const char *)sqlite3_column_text(st, 0);
		rc = bad_stack(stack, a, b);
		if (rc) {
			diag_set(d, rc, dbname, 0, 0, "variants '%s' and '%s': %s in "
				 "profile_stacks (table profile_paths)", va, vb,
				 rc == NS_ERANGE ? "a negative value" : "a call path with no "
				 "function, an empty frame or more than " FLAME_MAX_DEPTH_S
				 " frames");
			rc = NS_EINPUT;
			break;
		}
		/* the means, rounded to the nearest unit */
		rc = push(f, stack, (uint64_t)((a + na / 2) / na), (uint64_t)((b + nb / 2) / nb));
	}
	if (rc == NS_OK && s != SQLITE_DONE)
		rc = db_err(db, dbname, d);
	else if (rc == NS_ENOMEM)
		diag_set(d, rc, dbname, 0, 0, "out of memory");
	sqlite3_finalize(st);
	if (rc == NS_OK)
		snprintf(f->title, sizeof f->title, "Differential flame graph (%s): %s -> %s",
			 flame_metric_name(m), f->label_a, f->label_b);
	return rc;
}

int flame_only_run(sqlite3 *db, const char *dbname, int64_t *run, struct diag *d)
{
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(db, "SELECT count(*), min(run_id) FROM runs", -1, &st,
			       NULL) != SQLITE_OK)
		return db_err(db, dbname, d);
	int rc = sqlite3_step(st) == SQLITE_ROW ? NS_OK : db_err(db, dbname, d);
	int64_t n = sqlite3_column_int64(st, 0);
	*run = sqlite3_column_int64(st, 1);
	sqlite3_finalize(st);
	if (rc == NS_OK && n == 0)
		rc = diag_set(d, NS_EINPUT, dbname, 0, 0, "no runs in this database");
	else if (rc == NS_OK && n > 1)
		rc = diag_set(d, NS_EINPUT, dbname, 0, 0, "the database holds %" PRId64
			      " runs; choose one with --run ID ('numasim report %s "
			      "--runs' lists them)", n, dbname);
	return rc;
}

int flame_folded(const struct flame *f, FILE *out)
{
	for (int i = 0; i < f->nr; i++) {
		const struct flame_stack *s = &f->s[i];
		if (f->run_b > 0 && (s->a || s->b))
			fprintf(out, "%s %" PRIu64 " %" PRIu64 "\n", s->stack, s->a, s->b);
		else if (f->run_b <= 0 && s->a)
			fprintf(out, "%s %" PRIu64 "\n", s->stack, s->a);
	}
	return ferror(out) ? NS_EIO : NS_OK;
}

int flame_check(const struct flame *f)
{
	uint64_t a = 0, b = 0;
	for (int i = 0; i < f->nr; i++) {
		if (!f->s[i].stack || !f->s[i].stack[0] ||
		    (i && strcmp(f->s[i - 1].stack, f->s[i].stack) >= 0))
			return NS_EINTERNAL;
		a += f->s[i].a;
		b += f->s[i].b;
	}
	return a == f->total_a && b == f->total_b ? NS_OK : NS_EINTERNAL;
}

/* ---- the SVG ---------------------------------------------------------------- */

#define FRAME_H 17          /* one frame row, as flamegraph.pl */
#define FONT 11             /* px, monospace */
#define CHAR_W 6.7          /* DejaVu Sans Mono advance at 11 px: 0.602 em, rounded up */
#define PAD 10
#define HEAD 52             /* title and subtitle above the frames */
#define FOOT 40             /* the legend line and the details line below */
#define MIN_W 0.1           /* frames narrower than this are not drawn */

struct node {
	const char *name;
	size_t len;
	int first, next;            /* first child, next sibling; -1 none */
	uint64_t a, b;              /* inclusive */
	uint64_t sa, sb;            /* self: the stack that ends here */
};

struct tree {
	struct node *n;
	int nr, cap, depth;
};

static int tree_child(struct tree *t, int parent, const char *name, size_t len)
{
	for (int c = t->n[parent].first; c >= 0; c = t->n[c].next)
		if (t->n[c].len == len && !memcmp(t->n[c].name, name, len))
			return c;
	if (t->nr == t->cap) {
		int cap = 2 * t->cap;
		struct node *n = realloc(t->n, (size_t)cap * sizeof *n);
		if (!n)
			return -1;
		t->n = n;
		t->cap = cap;
	}
	int id = t->nr++;
	t->n[id] = (struct node){.name = name, .len = len, .first = -1,
				 .next = t->n[parent].first};
	t->n[parent].first = id;
	return id;
}

static int tree_build(struct tree *t, const struct flame *f)
{
	t->cap = 64;
	t->n = malloc((size_t)t->cap * sizeof *t->n);
	if (!t->n)
		return NS_ENOMEM;
	t->n[0] = (struct node){.name = "all", .len = 3, .first = -1, .next = -1};
	t->nr = 1;
	t->depth = 0;
	for (int i = 0; i < f->nr; i++) {
		const struct flame_stack *s = &f->s[i];
		int cur = 0, depth = 0;
		t->n[0].a += s->a;
		t->n[0].b += s->b;
		for (const char *p = s->stack; *p;) {
			const char *e = strchr(p, ';');
			size_t len = e ? (size_t)(e - p) : strlen(p);
			cur = tree_child(t, cur, p, len);
			if (cur < 0)
				return NS_ENOMEM;
			t->n[cur].a += s->a;
			t->n[cur].b += s->b;
			depth++;
			p += len + (e != NULL);
		}
		t->n[cur].sa += s->a;
		t->n[cur].sb += s->b;
		t->depth = depth > t->depth ? depth : t->depth;
	}
	return NS_OK;
}

static uint32_t name_hash(const char *s, size_t len)
{
	uint32_t h = 2166136261u;  /* FNV-1a */
	for (size_t i = 0; i < len; i++)
		h = (h ^ (uint8_t)s[i]) * 16777619u;
	return h;
}

struct draw {
	const struct flame *f;
	const struct tree *t;
	FILE *o;
	double scale;               /* pixels per unit of the width column */
	int height;
	double max_delta;           /* diff: largest |B - A| of a frame's self value */
	double min_delta;           /* diff: smaller changes are drawn untinted */
};

/* The frame's fill; returns 1 when it is dark enough for white text. */
static int frame_fill(const struct draw *dr, const struct node *n, char *buf, size_t len)
{
	if (dr->f->run_b > 0) {
		/* as flamegraph.pl colours a difffolded file: by the change of
		 * the frame's own (self) value, the intensity linear in the
		 * change up to the largest change of any frame; a change below
		 * FLAME_DIFF_MIN_SHARE of the larger total is no change */
		double delta = (double)n->sb - (double)n->sa;
		if (fabs(delta) < dr->min_delta || dr->max_delta <= 0) {
			snprintf(buf, len, "rgb(228,228,224)");
			return 0;
		}
		double r = fabs(delta) / dr->max_delta;
		int fade = (int)lround(220.0 * (1.0 - r));
		if (delta > 0)
			snprintf(buf, len, "rgb(255,%d,%d)", fade, fade);
		else
			snprintf(buf, len, "rgb(%d,%d,255)", fade, fade);
		return r > 0.6;
	}
	uint32_t h = name_hash(n->name, n->len);
	double v1 = (h & 0xff) / 255.0, v2 = (h >> 8 & 0xff) / 255.0,
	       v3 = (h >> 16 & 0xff) / 255.0;
	snprintf(buf, len, "rgb(%d,%d,%d)", 205 + (int)lround(50 * v3),
		 (int)lround(230 * v1), (int)lround(55 * v2));
	return 0;
}

static void frame_title(const struct draw *dr, const struct node *n)
{
	FILE *o = dr->o;
	const struct flame *f = dr->f;
	const struct node *root = &dr->t->n[0];
	markup_write(o, n->name, n->len);
	if (f->run_b > 0) {
		double pct = n->a ? 100.0 * ((double)n->b - (double)n->a) / (double)n->a : 0;
		fprintf(o, " (%s with callees: A %" PRIu64 " = %.2f%%, B %" PRIu64 " = %.2f%%, "
			"B-A %+" PRId64, flame_metric_name(f->metric), n->a,
			root->a ? 100.0 * (double)n->a / (double)root->a : 0, n->b,
			root->b ? 100.0 * (double)n->b / (double)root->b : 0,
			(int64_t)(n->b - n->a));
		if (n->a)
			fprintf(o, ", %+.2f%%", pct);
		fprintf(o, "; self: A %" PRIu64 ", B %" PRIu64 ", B-A %+" PRId64 ")", n->sa,
			n->sb, (int64_t)(n->sb - n->sa));
	} else {
		fprintf(o, " (%" PRIu64 " %s, %.2f%%; self %" PRIu64 ")", n->a,
			flame_metric_name(f->metric),
			root->a ? 100.0 * (double)n->a / (double)root->a : 0, n->sa);
	}
}

static int by_name(const void *x, const void *y, const struct tree *t)
{
	const struct node *a = &t->n[*(const int *)x], *b = &t->n[*(const int *)y];
	size_t l = a->len < b->len ? a->len : b->len;
	int c = memcmp(a->name, b->name, l);
	return c ? c : (a->len > b->len) - (a->len < b->len);
}

/* qsort has no context argument; children are sorted by insertion here
 * (a handful per frame). */
static void sort_children(int *ids, int n, const struct tree *t)
{
	for (int i = 1; i < n; i++)
		for (int j = i; j > 0 && by_name(&ids[j - 1], &ids[j], t) > 0; j--) {
			int tmp = ids[j];
			ids[j] = ids[j - 1];
			ids[j - 1] = tmp;
		}
}

/* One frame: its <g> with the tooltip, the box and the name where it fits. */
static void draw_frame(const struct draw *dr, const struct node *n, double x, double w,
		       int depth)
{
	double y = dr->height - FOOT - (depth + 1) * FRAME_H;
	char fill[32];
	int dark = frame_fill(dr, n, fill, sizeof fill);
	fprintf(dr->o, "<g class=\"frame\"><title>");
	frame_title(dr, n);
	fprintf(dr->o, "</title><rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%d\" "
		"fill=\"%s\" rx=\"2\" ry=\"2\"/>", x, y, w, FRAME_H - 1, fill);
	/* the text element is always there: a frame too narrow for its name
	 * gets one when the script zooms into it */
	int fit = (int)((w - 6) / CHAR_W);
	fprintf(dr->o, "<text x=\"%.2f\" y=\"%.1f\"%s>", x + 3, y + FRAME_H - 5,
		dark ? " style=\"fill:#fff\"" : "");
	if (fit >= 3 && (size_t)fit >= n->len) {
		markup_write(dr->o, n->name, n->len);
	} else if (fit >= 3) {
		markup_write(dr->o, n->name, (size_t)fit - 2);
		fputs("..", dr->o);
	}
	fputs("</text>", dr->o);
	fputs("</g>\n", dr->o);
}

/*
 * The frames depth first, parents before children, children by name: an
 * explicit stack of (node, x, depth), so a deep path costs heap, not the C
 * stack.  A node's children are pushed in reverse name order, so they come
 * off in name order with each one's x after its elder siblings'.
 */
static int draw_tree(const struct draw *dr)
{
	struct item { int id, depth; double x; } *stk = NULL;
	int nr = 0, cap = 0, rc = NS_OK;
	int *ids = malloc((size_t)dr->t->nr * sizeof *ids);
	if (!ids)
		return NS_ENOMEM;
	cap = 64;
	stk = malloc((size_t)cap * sizeof *stk);
	if (!stk) {
		free(ids);
		return NS_ENOMEM;
	}
	stk[nr++] = (struct item){0, 0, PAD};
	while (nr > 0) {
		struct item it = stk[--nr];
		const struct node *n = &dr->t->n[it.id];
		double w = (double)n->a * dr->scale;
		if (w < MIN_W)
			continue;
		draw_frame(dr, n, it.x, w, it.depth);
		int nc = 0;
		for (int c = n->first; c >= 0; c = dr->t->n[c].next)
			ids[nc++] = c;
		sort_children(ids, nc, dr->t);
		if (nr + nc > cap) {
			while (nr + nc > cap)
				cap *= 2;
			struct item *ns = realloc(stk, (size_t)cap * sizeof *ns);
			if (!ns) {
				rc = NS_ENOMEM;
				break;
			}
			stk = ns;
		}
		double x = it.x;
		for (int i = 0; i < nc; i++) {
			stk[nr + nc - 1 - i] = (struct item){ids[i], it.depth + 1, x};
			x += (double)dr->t->n[ids[i]].a * dr->scale;
		}
		nr += nc;
	}
	free(stk);
	free(ids);
	return rc;
}

/* The script of every flame graph (see flame.h), with no "<" or "&" that
 * matters: it sits in a CDATA section of the SVG and in the HTML page. */
const char flame_script[] =
	"(function () {\n"
	"'use strict';\n"
	"function init(svg) {\n"
	"  if (svg.getAttribute('data-ready')) return;\n"
	"  svg.setAttribute('data-ready', '1');\n"
	"  var W = +svg.getAttribute('data-width'), PAD = +svg.getAttribute('data-pad'),\n"
	"      CW = +svg.getAttribute('data-charw');\n"
	"  var frames = Array.prototype.map.call(svg.querySelectorAll('g.frame'), function (g) {\n"
	"    var r = g.querySelector('rect'), t = g.querySelector('text'),\n"
	"        tip = g.querySelector('title').textContent, i = tip.lastIndexOf(' (');\n"
	"    return {g: g, r: r, t: t, tip: tip, name: i < 0 ? tip : tip.slice(0, i),\n"
	"      x: +r.getAttribute('x'), w: +r.getAttribute('width'),\n"
	"      y: +r.getAttribute('y'), fill: r.getAttribute('fill')};\n"
	"  });\n"
	"  var details = svg.querySelector('.details'), legend = details.textContent;\n"
	"  var reset = svg.querySelector('.reset'), search = svg.querySelector('.search'),\n"
	"      matched = svg.querySelector('.matched');\n"
	"  var zoomed = null, term = null;\n"
	"  function place(f, x, w) {\n"
	"    f.r.setAttribute('x', x.toFixed(2));\n"
	"    f.r.setAttribute('width', w.toFixed(2));\n"
	"    f.t.setAttribute('x', (x + 3).toFixed(2));\n"
	"    var fit = Math.floor((w - 6) / CW);\n"
	"    f.t.textContent = fit < 3 ? '' : f.name.length <= fit ? f.name\n"
	"      : f.name.slice(0, fit - 2) + '..';\n"
	"  }\n"
	"  function zoom(z) {\n"
	"    zoomed = z;\n"
	"    var k = z ? (W - 2 * PAD) / z.w : 1, eps = 1e-6;\n"
	"    frames.forEach(function (f) {\n"
	"      var show = true, parent = false;\n"
	"      if (z && f.y > z.y) {\n"
	"        parent = f.x <= z.x + eps && f.x + f.w >= z.x + z.w - eps;\n"
	"        show = parent;\n"
	"      } else if (z) {\n"
	"        show = f.x >= z.x - eps && f.x + f.w <= z.x + z.w + eps;\n"
	"      }\n"
	"      f.g.style.display = show ? '' : 'none';\n"
	"      f.g.style.opacity = parent ? '0.6' : '';\n"
	"      if (!show) return;\n"
	"      if (parent) place(f, PAD, W - 2 * PAD);\n"
	"      else place(f, PAD + (f.x - (z ? z.x : PAD)) * k, f.w * k);\n"
	"    });\n"
	"    reset.style.display = z ? '' : 'none';\n"
	"    svg.setAttribute('data-zoom', z ? z.name : '');\n"
	"  }\n"
	"  function find(t) {\n"
	"    term = t || null;\n"
	"    var re = null;\n"
	"    if (term) {\n"
	"      try { re = new RegExp(term); } catch (e) { re = null; }\n"
	"      if (!re) re = new RegExp(term.replace(/[.*+?^${}()|[\\]\\\\]/g, '\\\\$&'));\n"
	"    }\n"
	"    var hits = [];\n"
	"    frames.forEach(function (f) {\n"
	"      var hit = re !== null && re.test(f.name);\n"
	"      f.r.setAttribute('fill', hit ? 'rgb(230,0,230)' : f.fill);\n"
	"      if (hit) hits.push(f);\n"
	"    });\n"
	"    hits.sort(function (a, b) { return a.x - b.x || b.w - a.w; });\n"
	"    var sum = 0, end = -1;\n"
	"    hits.forEach(function (f) {\n"
	"      if (f.x + 1e-6 >= end) { sum += f.w; end = f.x + f.w; }\n"
	"    });\n"
	"    var pct = 100 * sum / (W - 2 * PAD);\n"
	"    matched.textContent = term ? 'Matched: ' + pct.toFixed(2) + '% (' + hits.length +\n"
	"      ' frames)' : '';\n"
	"    search.textContent = term ? 'Clear search' : 'Search';\n"
	"    svg.setAttribute('data-matched', term ? pct.toFixed(2) : '');\n"
	"    svg.setAttribute('data-hits', String(hits.length));\n"
	"  }\n"
	"  frames.forEach(function (f) {\n"
	"    f.g.addEventListener('click', function () { zoom(f); });\n"
	"    f.g.addEventListener('mouseover', function () { details.textContent = f.tip; });\n"
	"    f.g.addEventListener('mouseout', function () { details.textContent = legend; });\n"
	"  });\n"
	"  reset.addEventListener('click', function () { zoom(null); });\n"
	"  search.addEventListener('click', function () {\n"
	"    if (term) { find(null); return; }\n"
	"    var t = window.prompt('Search for a function (a regular expression):', '');\n"
	"    if (t) find(t);\n"
	"  });\n"
	"  svg.flameZoom = function (name) {\n"
	"    var z = null;\n"
	"    frames.forEach(function (f) { if (!z && f.name === name) z = f; });\n"
	"    zoom(z);\n"
	"    return z !== null;\n"
	"  };\n"
	"  svg.flameSearch = find;\n"
	"  zoom(null);\n"
	"  find(null);\n"
	"  svg.setAttribute('data-ready', 'ok');\n"
	"}\n"
	"Array.prototype.forEach.call(document.querySelectorAll('svg.flamegraph'), init);\n"
	"document.addEventListener('keydown', function (e) {\n"
	"  if (e.key === 'Escape')\n"
	"    Array.prototype.forEach.call(document.querySelectorAll('svg.flamegraph'),\n"
	"      function (s) { if (s.flameZoom) s.flameZoom(null); });\n"
	"});\n"
	"})();\n";

static int svg_write(const struct flame *f, int width, int standalone, FILE *o)
{
	struct tree t = {0};
	int rc = tree_build(&t, f);
	if (rc) {
		free(t.n);
		return rc;
	}
	if (width <= 0)
		width = 1200;
	if (t.n[0].a == 0) {
		free(t.n);
		return NS_EINPUT;
	}
	struct draw dr = {.f = f, .t = &t, .o = o,
			  .height = HEAD + (t.depth + 1) * FRAME_H + FOOT + PAD};
	dr.scale = (width - 2.0 * PAD) / (double)t.n[0].a;
	for (int i = 0; i < t.nr; i++) {
		double dl = fabs((double)t.n[i].sb - (double)t.n[i].sa);
		dr.max_delta = dl > dr.max_delta ? dl : dr.max_delta;
	}
	dr.min_delta = FLAME_DIFF_MIN_SHARE *
		       (double)(f->total_a > f->total_b ? f->total_a : f->total_b);
	if (standalone)
		fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n", o);
	fprintf(o, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
		"viewBox=\"0 0 %d %d\" class=\"flamegraph\" data-width=\"%d\" "
		"data-pad=\"%d\" data-charw=\"%.1f\">\n"
		"<style>.flamegraph text{font-family:'DejaVu Sans Mono',monospace;"
		"font-size:%dpx;fill:#000}.flamegraph .title{font-family:'DejaVu Sans',"
		"sans-serif;font-size:15px}.flamegraph .sub{font-family:'DejaVu Sans',"
		"sans-serif;font-size:12px;fill:#444}.flamegraph .button{font-family:"
		"'DejaVu Sans',sans-serif;font-size:12px;fill:#1f5fa0;cursor:pointer}"
		".flamegraph .frame{cursor:pointer}.flamegraph .frame:hover rect{"
		"stroke:#000;stroke-width:0.5}</style>\n"
		"<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" fill=\"#f8f8f0\"/>\n"
		"<text class=\"title\" x=\"%d\" y=\"22\" text-anchor=\"middle\">",
		width, dr.height, width, dr.height, width, PAD, CHAR_W, FONT, width, dr.height,
		width / 2);
	markup_write(o, f->title, strlen(f->title));
	fprintf(o, "</text>\n<text class=\"sub\" x=\"%d\" y=\"40\" text-anchor=\"middle\">",
		width / 2);
	if (f->run_b > 0) {
		fputs("widths: A = ", o);
		markup_puts(o, f->label_a);
		fprintf(o, ", %" PRIu64 " %s; B = ", f->total_a, flame_metric_name(f->metric));
		markup_puts(o, f->label_b);
		fprintf(o, ", %" PRIu64 " %s (%+.2f%%)", f->total_b, flame_metric_name(f->metric),
			f->total_a ? 100.0 * ((double)f->total_b - (double)f->total_a) /
					     (double)f->total_a : 0);
	} else {
		fprintf(o, "%" PRIu64 " %s in %d call paths; inlined functions are their "
			"caller's frames", f->total_a, flame_metric_name(f->metric), f->nr);
	}
	/* the controls of the script, as flamegraph.pl places them */
	fprintf(o, "</text>\n<text class=\"button reset\" x=\"%d\" y=\"22\" "
		"style=\"display:none\">Reset zoom</text>\n<text class=\"button search\" "
		"x=\"%d\" y=\"22\" text-anchor=\"end\">Search</text>\n", PAD, width - PAD);
	rc = draw_tree(&dr);
	fprintf(o, "<text class=\"sub\" x=\"%d\" y=\"%d\">", PAD, dr.height - PAD - 18);
	if (f->run_b > 0)
		fprintf(o, "colour: change of the frame's self value from A to B (flamegraph.pl's "
			"difffolded rule); red = more in B, blue = less in B, untinted = a change "
			"under %.1f%% of the total; click to zoom, hover for figures",
			100.0 * FLAME_DIFF_MIN_SHARE);
	else
		fputs("width: the frame's inclusive value; root at the bottom; "
		      "click a frame to zoom, hover for its figures", o);
	fprintf(o, "</text>\n<text class=\"sub details\" x=\"%d\" y=\"%d\"> </text>\n"
		"<text class=\"sub matched\" x=\"%d\" y=\"40\" text-anchor=\"end\"></text>\n",
		PAD, dr.height - PAD, width - PAD);
	if (standalone)
		fprintf(o, "<script type=\"text/ecmascript\" id=\"numasim-flame-script\">"
			"<![CDATA[\n%s]]></script>\n", flame_script);
	fputs("</svg>\n", o);
	free(t.n);
	if (rc == NS_OK && ferror(o))
		rc = NS_EIO;
	return rc;
}

int flame_svg(const struct flame *f, int width, FILE *out)
{
	return svg_write(f, width, 1, out);
}

int flame_svg_inline(const struct flame *f, int width, FILE *out)
{
	return svg_write(f, width, 0, out);
}

/* ---- the children view ----------------------------------------------------- */

struct caller {
	const char *name;
	size_t len;
	uint64_t v;
};

struct fn_entry {
	const char *name;
	size_t len;
	uint64_t self, total;   /* leaf of the path; anywhere in it (once) */
	int nr_callers;
	struct caller *caller;  /* the frame before its first one, "(root)" */
};

static int fn_find(struct fn_entry **fns, int *nr, int *cap, const char *name, size_t len)
{
	for (int i = 0; i < *nr; i++)
		if ((*fns)[i].len == len && !memcmp((*fns)[i].name, name, len))
			return i;
	if (*nr == *cap) {
		int c = *cap ? 2 * *cap : 32;
		struct fn_entry *n = realloc(*fns, (size_t)c * sizeof *n);
		if (!n)
			return -1;
		*fns = n;
		*cap = c;
	}
	(*fns)[*nr] = (struct fn_entry){.name = name, .len = len};
	return (*nr)++;
}

static int add_caller(struct fn_entry *e, const char *name, size_t len, uint64_t v)
{
	for (int i = 0; i < e->nr_callers; i++)
		if (e->caller[i].len == len && !memcmp(e->caller[i].name, name, len)) {
			e->caller[i].v += v;
			return NS_OK;
		}
	void *n = realloc(e->caller, (size_t)(e->nr_callers + 1) * sizeof *e->caller);
	if (!n)
		return NS_ENOMEM;
	e->caller = n;
	e->caller[e->nr_callers].name = name;
	e->caller[e->nr_callers].len = len;
	e->caller[e->nr_callers++].v = v;
	return NS_OK;
}

/* Split stack into frames (pointers into it); returns the count. */
static int split_frames(const char *stack, const char **fr, size_t *fl)
{
	int n = 0;
	for (const char *p = stack; *p && n < FLAME_MAX_DEPTH;) {
		const char *e = strchr(p, ';');
		size_t len = e ? (size_t)(e - p) : strlen(p);
		fr[n] = p;
		fl[n++] = len;
		p += len + (e != NULL);
	}
	return n;
}

/* The callee tree below node id, children by value (largest first), nodes
 * under min of the total left out. */
static int print_callees(FILE *o, const struct tree *t, int id, int depth, double total,
			 double min_pct)
{
	int nc = 0;
	for (int c = t->n[id].first; c >= 0; c = t->n[c].next)
		nc++;
	int *ids = malloc((size_t)(nc ? nc : 1) * sizeof *ids);
	if (!ids)
		return NS_ENOMEM;
	nc = 0;
	for (int c = t->n[id].first; c >= 0; c = t->n[c].next)
		ids[nc++] = c;
	for (int i = 1; i < nc; i++)
		for (int j = i; j > 0 && (t->n[ids[j - 1]].a < t->n[ids[j]].a ||
			(t->n[ids[j - 1]].a == t->n[ids[j]].a && by_name(&ids[j - 1], &ids[j], t) > 0));
		     j--) {
			int tmp = ids[j];
			ids[j] = ids[j - 1];
			ids[j - 1] = tmp;
		}
	int rc = NS_OK, last = -1;
	for (int i = 0; i < nc; i++)
		if (100.0 * (double)t->n[ids[i]].a / total >= min_pct)
			last = i;
	for (int i = 0; i <= last; i++) {
		const struct node *n = &t->n[ids[i]];
		double pct = 100.0 * (double)n->a / total;
		if (pct < min_pct)
			continue;
		fprintf(o, "%*s%s--%.2f%%--%.*s\n", 14 + 3 * depth, "", i < last ? "|" : "`",
			pct, (int)n->len, n->name);
		if (depth < 32 && (rc = print_callees(o, t, ids[i], depth + 1, total, min_pct)))
			break;
	}
	free(ids);
	return rc;
}

static int by_total(const void *x, const void *y)
{
	const struct fn_entry *a = x, *b = y;
	if (a->total != b->total)
		return a->total < b->total ? 1 : -1;
	size_t l = a->len < b->len ? a->len : b->len;
	int c = memcmp(a->name, b->name, l);
	return c ? c : (a->len > b->len) - (a->len < b->len);
}

int flame_children(const struct flame *f, int top, double min_pct, FILE *o)
{
	const char **fr = malloc(FLAME_MAX_DEPTH * sizeof *fr);
	size_t *fl = malloc(FLAME_MAX_DEPTH * sizeof *fl);
	struct fn_entry *fns = NULL;
	int nr = 0, cap = 0, rc = NS_OK;
	if (!fr || !fl)
		rc = NS_ENOMEM;
	for (int s = 0; rc == NS_OK && s < f->nr; s++) {
		uint64_t v = f->s[s].a;
		int n = split_frames(f->s[s].stack, fr, fl);
		for (int i = 0; rc == NS_OK && i < n; i++) {
			int first = 1;
			for (int j = 0; j < i && first; j++)
				first = !(fl[j] == fl[i] && !memcmp(fr[j], fr[i], fl[i]));
			int e = fn_find(&fns, &nr, &cap, fr[i], fl[i]);
			if (e < 0) {
				rc = NS_ENOMEM;
				break;
			}
			if (i == n - 1)
				fns[e].self += v;
			if (first) {
				fns[e].total += v;
				rc = i ? add_caller(&fns[e], fr[i - 1], fl[i - 1], v)
				       : add_caller(&fns[e], "(root)", 6, v);
			}
		}
	}
	if (rc == NS_OK && nr > 0)
		qsort(fns, (size_t)nr, sizeof *fns, by_total);
	double total = f->total_a ? (double)f->total_a : 1;
	if (rc == NS_OK) {
		fprintf(o, "# %s: %" PRIu64 " %s in %d call paths\n"
			"# Children: the function and everything it called (perf report "
			"--children); Self: the function alone;\n# percentages of the run's "
			"total; callers with their share, callees as a tree (under %.2f%% "
			"left out)\n#\n#    Children      Self  Function\n", f->label_a, f->total_a,
			flame_metric_name(f->metric), f->nr, min_pct);
	}
	for (int i = 0; rc == NS_OK && i < nr && (top <= 0 || i < top); i++) {
		struct fn_entry *e = &fns[i];
		fprintf(o, "%12.2f%% %8.2f%%  %.*s\n", 100.0 * (double)e->total / total,
			100.0 * (double)e->self / total, (int)e->len, e->name);
		for (int a = 1; a < e->nr_callers; a++)
			for (int b = a; b > 0 && e->caller[b - 1].v < e->caller[b].v; b--) {
				struct caller tmp = e->caller[b];
				e->caller[b] = e->caller[b - 1];
				e->caller[b - 1] = tmp;
			}
		fprintf(o, "%14scallers:\n", "");
		for (int a = 0; a < e->nr_callers; a++)
			fprintf(o, "%14s%s--%.2f%%--%.*s\n", "", a + 1 < e->nr_callers ? "|" : "`",
				100.0 * (double)e->caller[a].v / total, (int)e->caller[a].len,
				e->caller[a].name);
		/* the callees: every path below the function's first frame, merged */
		struct tree t = {.cap = 64};
		t.n = malloc((size_t)t.cap * sizeof *t.n);
		if (!t.n) {
			rc = NS_ENOMEM;
			break;
		}
		t.n[0] = (struct node){.name = e->name, .len = e->len, .first = -1, .next = -1};
		t.nr = 1;
		for (int s = 0; rc == NS_OK && s < f->nr; s++) {
			int n = split_frames(f->s[s].stack, fr, fl), at = -1;
			for (int j = 0; j < n && at < 0; j++)
				if (fl[j] == e->len && !memcmp(fr[j], e->name, e->len))
					at = j;
			if (at < 0)
				continue;
			int cur = 0;
			for (int j = at + 1; j < n; j++) {
				cur = tree_child(&t, cur, fr[j], fl[j]);
				if (cur < 0) {
					rc = NS_ENOMEM;
					break;
				}
				t.n[cur].a += f->s[s].a;
			}
		}
		if (rc == NS_OK && t.n[0].first >= 0) {
			fprintf(o, "%14scallees:\n", "");
			rc = print_callees(o, &t, 0, 0, total, min_pct);
		}
		fputc('\n', o);
		free(t.n);
	}
	for (int i = 0; i < nr; i++)
		free(fns[i].caller);
	free(fns);
	free(fr);
	free(fl);
	if (rc == NS_OK && ferror(o))
		rc = NS_EIO;
	return rc;
}
