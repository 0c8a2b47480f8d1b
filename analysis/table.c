/*
 * table — mmtests-style comparison tables; see table.h.
 *
 * Design notes.  Two queries: the columns (distinct (point, variant,
 * kernel_model) of the runs, in point order) and the per-column summary of
 * every sample series (min, mean).  Everything is collected in memory and
 * sorted before one pass prints it, so a failing query prints nothing.  Run
 * ids are integers, so the IN list is built as text without any quoting
 * concern.
 */
#include "analysis/table.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static const char *const op_names[] = {"alloc", "free", "total"};
#define NR_OPS 3

struct col {
	int64_t point;
	char *variant, *model;
	char head[TABLE_HEAD_MAX];
};

struct row {
	char name[64];
	int op;
	unsigned order;
	uint32_t batch;
	double *min, *mean;          /* [nr_cols] */
	unsigned char *have;
};

struct tab {
	sqlite3 *db;
	struct diag *d;
	const char *dbname;
	int nr_cols;
	struct col *cols;
	int nr_rows, cap_rows;
	struct row *rows;
};

static int db_err(struct tab *t, const char *what)
{
	return diag_set(t->d, NS_EDB, t->dbname, 0, 0, "%s: %s", what,
			sqlite3_errmsg(t->db));
}

static int oom(struct tab *t)
{
	return diag_set(t->d, NS_ENOMEM, t->dbname, 0, 0, "out of memory");
}

/* "alloc-odr0-16384" -> op 0, order 0, batch 16384; -1 if not such a name. */
static int parse_series(const char *s, int *op, unsigned *order, uint32_t *batch)
{
	for (int i = 0; i < NR_OPS; i++) {
		size_t l = strlen(op_names[i]);
		if (strncmp(s, op_names[i], l) || strncmp(s + l, "-odr", 4))
			continue;
		const char *p = s + l + 4;
		char *end;
		unsigned long o = strtoul(p, &end, 10);
		if (end == p || *end != '-' || o > 64)
			return -1;
		p = end + 1;
		unsigned long b = strtoul(p, &end, 10);
		if (end == p || *end || b == 0 || b > UINT32_MAX)
			return -1;
		*op = i;
		*order = (unsigned)o;
		*batch = (uint32_t)b;
		return 0;
	}
	return -1;
}

static char *in_list(const int64_t *ids, int n)
{
	size_t cap = (size_t)n * 22 + 3, off = 0;
	char *s = malloc(cap);
	if (!s)
		return NULL;
	s[off++] = '(';
	for (int i = 0; i < n; i++)
		off += (size_t)snprintf(s + off, cap - off, "%s%" PRId64, i ? "," : "",
					ids[i]);
	snprintf(s + off, cap - off, ")");
	return s;
}

static int col_index(const struct tab *t, int64_t point, const char *variant)
{
	for (int i = 0; i < t->nr_cols; i++)
		if (t->cols[i].point == point && !strcmp(t->cols[i].variant, variant))
			return i;
	return -1;
}

static int load_cols(struct tab *t, const char *in)
{
	char *sql = NULL;
	sqlite3_stmt *st = NULL;
	int rc = NS_OK;

	if (!(sql = sqlite3_mprintf("SELECT point, variant, kernel_model FROM runs "
		     "WHERE run_id IN %s GROUP BY point, variant, kernel_model "
		     "ORDER BY point, min(run_id)", in)))
		return oom(t);
	if (sqlite3_prepare_v2(t->db, sql, -1, &st, NULL) != SQLITE_OK) {
		rc = db_err(t, "reading runs");
		goto out;
	}
	int s;
	while ((s = sqlite3_step(st)) == SQLITE_ROW) {
		struct col *nc = realloc(t->cols, (size_t)(t->nr_cols + 1) * sizeof *nc);
		if (!nc) {
			rc = oom(t);
			goto out;
		}
		t->cols = nc;
		struct col *c = &t->cols[t->nr_cols];
		memset(c, 0, sizeof *c);
		c->point = sqlite3_column_int64(st, 0);
		if (!sqlite3_column_text(st, 1) || !sqlite3_column_text(st, 2)) {
			rc = diag_set(t->d, NS_EINPUT, t->dbname, 0, 0, "a run of point %"
				      PRId64 " has no %s (NULL in table runs)", c->point,
				      sqlite3_column_text(st, 1) ? "kernel_model" : "variant");
			goto out;
		}
		c->variant = strdup((const char *)sqlite3_column_text(st, 1));
		c->model = strdup((const char *)sqlite3_column_text(st, 2));
		t->nr_cols++;
		if (!c->variant || !c->model) {
			rc = oom(t);
			goto out;
		}
	}
	if (s != SQLITE_DONE)
		rc = db_err(t, "reading runs");
out:
	sqlite3_finalize(st);
	sqlite3_free(sql);
	return rc;
}

static struct row *find_row(struct tab *t, const char *name, int op,
			    unsigned order, uint32_t batch)
{
	for (int i = 0; i < t->nr_rows; i++)
		if (!strcmp(t->rows[i].name, name))
			return &t->rows[i];
	if (t->nr_rows == t->cap_rows) {
		int cap = t->cap_rows ? t->cap_rows * 2 : 64;
		struct row *nr = realloc(t->rows, (size_t)cap * sizeof *nr);
		if (!nr)
			return NULL;
		t->rows = nr;
		t->cap_rows = cap;
	}
	struct row *r = &t->rows[t->nr_rows];
	memset(r, 0, sizeof *r);
	snprintf(r->name, sizeof r->name, "%s", name);
	r->op = op;
	r->order = order;
	r->batch = batch;
	r->min = calloc((size_t)t->nr_cols, sizeof *r->min);
	r->mean = calloc((size_t)t->nr_cols, sizeof *r->mean);
	r->have = calloc((size_t)t->nr_cols, 1);
	t->nr_rows++;
	if (!r->min || !r->mean || !r->have)
		return NULL;
	return r;
}

static int load_rows(struct tab *t, const char *in)
{
	char *sql = NULL;
	sqlite3_stmt *st = NULL;
	int rc = NS_OK, s;

	if (!(sql = sqlite3_mprintf("SELECT r.point, r.variant, s.metric, min(s.value), "
		     "avg(s.value) FROM samples s JOIN runs r USING (run_id) "
		     "WHERE s.run_id IN %s AND (s.metric LIKE 'alloc-odr%%' OR "
		     "s.metric LIKE 'free-odr%%' OR s.metric LIKE 'total-odr%%') "
		     "GROUP BY r.point, r.variant, s.metric", in)))
		return oom(t);
	if (sqlite3_prepare_v2(t->db, sql, -1, &st, NULL) != SQLITE_OK) {
		rc = db_err(t, "reading samples");
		goto out;
	}
	while ((s = sqlite3_step(st)) == SQLITE_ROW) {
		const char *name = (const char *)sqlite3_column_text(st, 2);
		int op;
		unsigned order;
		uint32_t batch;
		if (!name || strlen(name) >= 64 || parse_series(name, &op, &order, &batch))
			continue;
		const char *variant = (const char *)sqlite3_column_text(st, 1);
		int c = variant ? col_index(t, sqlite3_column_int64(st, 0), variant) : -1;
		if (c < 0)
			continue;
		struct row *r = find_row(t, name, op, order, batch);
		if (!r) {
			rc = oom(t);
			goto out;
		}
		r->min[c] = sqlite3_column_double(st, 3);
		r->mean[c] = sqlite3_column_double(st, 4);
		r->have[c] = 1;
	}
	if (s != SQLITE_DONE)
		rc = db_err(t, "reading samples");
out:
	sqlite3_finalize(st);
	sqlite3_free(sql);
	return rc;
}

static int row_cmp(const void *a, const void *b)
{
	const struct row *x = a, *y = b;
	if (x->op != y->op)
		return x->op < y->op ? -1 : 1;
	if (x->order != y->order)
		return x->order < y->order ? -1 : 1;
	if (x->batch != y->batch)
		return x->batch < y->batch ? -1 : 1;
	return 0;
}

void table_variant_heads(const char *const *variants, int n,
			 char (*heads)[TABLE_HEAD_MAX])
{
	int same = 1;
	char keys0[256] = "";
	for (int i = 0; i < n && same; i++) {
		char keys[256] = "";
		size_t off = 0;
		const char *p = variants[i];
		while (*p && same) {
			const char *eq = strchr(p, '=');
			const char *comma = strchr(p, ',');
			if (!eq || (comma && comma < eq)) {
				same = 0;
				break;
			}
			off += (size_t)snprintf(keys + off, off < sizeof keys ? sizeof keys - off : 0,
						"%.*s;", (int)(eq - p), p);
			p = comma ? comma + 1 : p + strlen(p);
		}
		if (off >= sizeof keys)
			same = 0;
		if (i == 0)
			memcpy(keys0, keys, sizeof keys);
		else if (strcmp(keys, keys0))
			same = 0;
	}
	for (int i = 0; i < n; i++) {
		char *h = heads[i];
		if (!same) {
			snprintf(h, TABLE_HEAD_MAX, "%s", variants[i]);
			continue;
		}
		size_t off = 0;
		const char *p = variants[i];
		h[0] = '\0';
		while (*p) {
			const char *eq = strchr(p, '=');
			const char *comma = strchr(eq, ',');
			size_t vl = comma ? (size_t)(comma - eq - 1) : strlen(eq + 1);
			off += (size_t)snprintf(h + off, off < TABLE_HEAD_MAX ? TABLE_HEAD_MAX - off : 0,
						"%s%.*s", off ? "," : "", (int)vl, eq + 1);
			p = comma ? comma + 1 : eq + 1 + vl;
		}
	}
}

static void make_heads(struct tab *t)
{
	const char **v = malloc((size_t)t->nr_cols * sizeof *v + 1);
	char (*heads)[TABLE_HEAD_MAX] = malloc((size_t)t->nr_cols * sizeof *heads + 1);
	for (int i = 0; v && heads && i < t->nr_cols; i++)
		v[i] = t->cols[i].variant;
	if (v && heads)
		table_variant_heads(v, t->nr_cols, heads);
	for (int i = 0; i < t->nr_cols; i++)
		snprintf(t->cols[i].head, sizeof t->cols[i].head, "%s",
			 v && heads ? heads[i] : t->cols[i].variant);
	free(v);
	free(heads);
}

/*
 * One column (one run, or runs of one point) is printed as its values
 * only: a comparison against itself would be 0.00% everywhere.  top > 0
 * prints the first top series of each statistic and says how many more
 * there are.
 */
static void print_table(const struct tab *t, unsigned stats, int top, FILE *f)
{
	int nrows = top > 0 && top < t->nr_rows ? top : t->nr_rows;
	int opw = 0, colw = TABLE_FIELD_WIDTH + TABLE_COMPARE_WIDTH + 4;
	for (int i = 0; i < t->nr_rows; i++) {
		int l = (int)strlen(t->rows[i].name);
		opw = l > opw ? l : opw;
	}
	for (int i = 0; i < t->nr_cols; i++) {
		int l1 = (int)strlen(t->cols[i].model) + 1;
		int l2 = (int)strlen(t->cols[i].head) + 1;
		colw = l1 > colw ? l1 : colw;
		colw = l2 > colw ? l2 : colw;
	}
	int fieldw = colw - TABLE_COMPARE_WIDTH - 4;
	fprintf(f, "%*s", TABLE_STAT_WIDTH + 1 + opw, "");
	for (int i = 0; i < t->nr_cols; i++)
		fprintf(f, "%*s", colw, t->cols[i].model);
	/* the unit, where mmtests leaves the corner blank: the series are
	 * pagealloc's, timed with the TSC as rdtsc reads it */
	fprintf(f, "\n%-*s", TABLE_STAT_WIDTH + 1 + opw, TABLE_UNIT_LABEL);
	for (int i = 0; i < t->nr_cols; i++)
		fprintf(f, "%*s", colw, t->cols[i].head);
	fputc('\n', f);
	static const struct { unsigned bit; const char *name; } st[] = {
		{TABLE_MIN, "Min"}, {TABLE_AMEAN, "Amean"},
	};
	for (size_t s = 0; s < sizeof st / sizeof st[0]; s++) {
		if (!(stats & st[s].bit))
			continue;
		for (int i = 0; i < nrows; i++) {
			const struct row *r = &t->rows[i];
			const double *v = st[s].bit == TABLE_MIN ? r->min : r->mean;
			fprintf(f, "%-*s %-*s", TABLE_STAT_WIDTH, st[s].name, opw, r->name);
			if (t->nr_cols == 1) {
				if (r->have[0])
					fprintf(f, "%*.2f", fieldw, v[0]);
				else
					fprintf(f, "%*s", fieldw, "-");
				fputc('\n', f);
				continue;
			}
			for (int c = 0; c < t->nr_cols; c++) {
				if (!r->have[c] || !r->have[0]) {
					fprintf(f, "%*s (%*s)", fieldw, r->have[c] ? "" : "-",
						TABLE_COMPARE_WIDTH + 1, "n/a");
					continue;
				}
				double base = v[0];
				double pct = base != 0.0 ? (base - v[c]) * 100.0 / base : 0.0;
				fprintf(f, "%*.2f (%*.2f%%)", fieldw, v[c],
					TABLE_COMPARE_WIDTH, pct);
			}
			fputc('\n', f);
		}
	}
	if (nrows < t->nr_rows)
		fprintf(f, "(%d of %d series per statistic; --top 0 prints all)\n",
			nrows, t->nr_rows);
}

static void tab_free(struct tab *t)
{
	for (int i = 0; i < t->nr_cols; i++) {
		free(t->cols[i].variant);
		free(t->cols[i].model);
	}
	free(t->cols);
	for (int i = 0; i < t->nr_rows; i++) {
		free(t->rows[i].min);
		free(t->rows[i].mean);
		free(t->rows[i].have);
	}
	free(t->rows);
}

int table_pagealloc(sqlite3 *db, const int64_t *run_ids, int nr_runs,
		    unsigned stats, FILE *f, struct diag *d)
{
	return table_pagealloc_top(db, run_ids, nr_runs, stats, 0, f, d);
}

int table_pagealloc_top(sqlite3 *db, const int64_t *run_ids, int nr_runs,
			unsigned stats, int top, FILE *f, struct diag *d)
{
	struct tab t = {.db = db, .d = d};
	const char *fn = sqlite3_db_filename(db, "main");
	char *in = NULL;
	int rc;

	t.dbname = fn && *fn ? fn : "database";
	if (nr_runs <= 0)
		return diag_set(d, NS_ENOENT, t.dbname, 0, 0, "no runs to tabulate");
	in = in_list(run_ids, nr_runs);
	if (!in)
		return oom(&t);
	if ((rc = load_cols(&t, in)) || (rc = load_rows(&t, in)))
		goto out;
	if (t.nr_rows == 0) {
		rc = diag_set(d, NS_ENOENT, t.dbname, 0, 0,
			      "the runs have no pagealloc samples");
		goto out;
	}
	qsort(t.rows, (size_t)t.nr_rows, sizeof *t.rows, row_cmp);
	make_heads(&t);
	print_table(&t, stats, top, f);
out:
	free(in);
	tab_free(&t);
	return rc;
}
