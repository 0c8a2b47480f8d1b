/*
 * records — documents of tables for --format json|csv; see records.h.
 *
 * Design notes.  A document is small (a compare table: metrics x groups
 * rows; a report: a few hundred rows), so it is kept as plain growing
 * arrays: tables of rows of cells, each cell owning a copy of its key and
 * text.  Writing walks them; CSV first collects the union of the keys (in
 * order of first appearance, a linear search: tens of keys).  The sticky
 * error flag makes a failed allocation a no-op for every later call, so
 * callers check once, at rec_write.
 */
#include "base/records.h"

#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/diag.h"
#include "base/json.h"

enum cell_kind { CELL_STR, CELL_NUM, CELL_INT, CELL_BOOL, CELL_NULL };

struct cell {
	char *key;
	enum cell_kind kind;
	char *text;             /* CELL_STR */
	double num;             /* CELL_NUM */
	long long i;            /* CELL_INT, CELL_BOOL */
};

struct row {
	int n, cap;
	struct cell *cells;
};

struct table {
	char *name;
	int n, cap;
	struct row *rows;
};

struct rec_doc {
	struct row meta;
	int n, cap;
	struct table *tables;
	int cur;                /* current table, -1: none */
	int failed;             /* an allocation failed: sticky */
};

int rec_parse_format(const char *name, enum rec_format *out)
{
	static const char *const names[] = {"text", "json", "csv"};
	for (int i = 0; i < 3; i++)
		if (!strcmp(name, names[i])) {
			*out = (enum rec_format)i;
			return NS_OK;
		}
	return NS_EUSAGE;
}

/* Grow *p (n used of *cap, elements of size sz) by one; 0 on success. */
static int grow(void **p, int n, int *cap, size_t sz)
{
	if (n < *cap)
		return 0;
	int nc = *cap ? *cap * 2 : 8;
	void *q = realloc(*p, (size_t)nc * sz);
	if (!q)
		return -1;
	*p = q;
	*cap = nc;
	return 0;
}

struct rec_doc *rec_doc_new(const char *cmd)
{
	struct rec_doc *d = calloc(1, sizeof *d);
	if (!d)
		return NULL;
	d->cur = -1;
	rec_meta_str(d, "command", cmd);
	rec_meta_int(d, "format_version", 1);
	if (d->failed) {
		rec_doc_free(d);
		return NULL;
	}
	return d;
}

static void row_free(struct row *r)
{
	for (int i = 0; i < r->n; i++) {
		free(r->cells[i].key);
		free(r->cells[i].text);
	}
	free(r->cells);
}

void rec_doc_free(struct rec_doc *d)
{
	if (!d)
		return;
	row_free(&d->meta);
	for (int t = 0; t < d->n; t++) {
		for (int r = 0; r < d->tables[t].n; r++)
			row_free(&d->tables[t].rows[r]);
		free(d->tables[t].rows);
		free(d->tables[t].name);
	}
	free(d->tables);
	free(d);
}

/* The cell of key in r: the existing one (its old value dropped) or a
 * new one at the end; NULL when out of memory (d->failed set). */
static struct cell *cell_of(struct rec_doc *d, struct row *r, const char *key)
{
	if (d->failed || !r)
		return NULL;
	for (int i = 0; i < r->n; i++)
		if (!strcmp(r->cells[i].key, key)) {
			free(r->cells[i].text);
			r->cells[i].text = NULL;
			return &r->cells[i];
		}
	char *k = strdup(key);
	if (!k || grow((void **)&r->cells, r->n, &r->cap, sizeof *r->cells)) {
		free(k);
		d->failed = 1;
		return NULL;
	}
	struct cell *c = &r->cells[r->n++];
	memset(c, 0, sizeof *c);
	c->key = k;
	return c;
}

static struct row *cur_row(struct rec_doc *d)
{
	if (d->cur < 0 || d->tables[d->cur].n == 0)
		return NULL;     /* a cell before any row: a caller bug, dropped */
	struct table *t = &d->tables[d->cur];
	return &t->rows[t->n - 1];
}

static void set_str(struct rec_doc *d, struct row *r, const char *key, const char *v)
{
	struct cell *c = cell_of(d, r, key);
	if (!c)
		return;
	c->kind = v ? CELL_STR : CELL_NULL;
	if (v && !(c->text = strdup(v))) {
		c->kind = CELL_NULL;
		d->failed = 1;
	}
}

static void set_num(struct rec_doc *d, struct row *r, const char *key, enum cell_kind k,
		    double num, long long i)
{
	struct cell *c = cell_of(d, r, key);
	if (!c)
		return;
	c->kind = k == CELL_NUM && !isfinite(num) ? CELL_NULL : k;
	c->num = num;
	c->i = i;
}

void rec_meta_str(struct rec_doc *d, const char *key, const char *v)
{
	set_str(d, &d->meta, key, v);
}

void rec_meta_num(struct rec_doc *d, const char *key, double v)
{
	set_num(d, &d->meta, key, CELL_NUM, v, 0);
}

void rec_meta_int(struct rec_doc *d, const char *key, long long v)
{
	set_num(d, &d->meta, key, CELL_INT, 0, v);
}

void rec_table(struct rec_doc *d, const char *name)
{
	if (d->failed)
		return;
	for (int t = 0; t < d->n; t++)
		if (!strcmp(d->tables[t].name, name)) {
			d->cur = t;
			return;
		}
	char *n = strdup(name);
	if (!n || grow((void **)&d->tables, d->n, &d->cap, sizeof *d->tables)) {
		free(n);
		d->failed = 1;
		return;
	}
	memset(&d->tables[d->n], 0, sizeof d->tables[d->n]);
	d->tables[d->n].name = n;
	d->cur = d->n++;
}

void rec_row(struct rec_doc *d)
{
	if (d->failed || d->cur < 0)
		return;
	struct table *t = &d->tables[d->cur];
	if (grow((void **)&t->rows, t->n, &t->cap, sizeof *t->rows)) {
		d->failed = 1;
		return;
	}
	memset(&t->rows[t->n++], 0, sizeof *t->rows);
}

void rec_str(struct rec_doc *d, const char *key, const char *v)
{
	set_str(d, cur_row(d), key, v);
}

void rec_num(struct rec_doc *d, const char *key, double v)
{
	set_num(d, cur_row(d), key, CELL_NUM, v, 0);
}

void rec_int(struct rec_doc *d, const char *key, long long v)
{
	set_num(d, cur_row(d), key, CELL_INT, 0, v);
}

void rec_bool(struct rec_doc *d, const char *key, int v)
{
	set_num(d, cur_row(d), key, CELL_BOOL, 0, v != 0);
}

void rec_null(struct rec_doc *d, const char *key)
{
	set_num(d, cur_row(d), key, CELL_NULL, 0, 0);
}

int rec_nr_rows(const struct rec_doc *d, const char *name)
{
	for (int t = 0; t < d->n; t++)
		if (!strcmp(d->tables[t].name, name))
			return d->tables[t].n;
	return 0;
}

/* A value as JSON (strings escaped) or as CSV text (csv = 1). */
static void put_value(FILE *f, const struct cell *c, int csv)
{
	switch (c->kind) {
	case CELL_STR:
		if (csv) {
			/* a text cell a spreadsheet would run as a formula gets a
			 * leading quote (OWASP "CSV Injection"; numbers are
			 * CELL_NUM/CELL_INT and stay as they are) */
			int formula = c->text[0] && strchr("=+-@\t\r", c->text[0]);
			int quote = formula || strpbrk(c->text, ",\"\r\n") != NULL;
			if (quote)
				fputc('"', f);
			if (formula)
				fputc('\'', f);
			for (const char *p = c->text; *p; p++) {
				if (*p == '"')
					fputc('"', f);
				fputc(*p, f);
			}
			if (quote)
				fputc('"', f);
		} else {
			json_write_string(f, c->text);
		}
		break;
	case CELL_NUM: {
		/* the shortest of 15..17 significant digits that reads back
		 * to the same double (0.05, not 0.050000000000000003) */
		char b[40];
		for (int prec = 15; prec <= 17; prec++) {
			snprintf(b, sizeof b, "%.*g", prec, c->num);
			if (strtod(b, NULL) == c->num)
				break;
		}
		fputs(b, f);
		break;
	}
	case CELL_INT:
		fprintf(f, "%lld", c->i);
		break;
	case CELL_BOOL:
		fputs(c->i ? "true" : "false", f);
		break;
	case CELL_NULL:
		if (!csv)
			fputs("null", f);
		break;
	}
}

static void json_row(FILE *f, const struct row *r)
{
	fputc('{', f);
	for (int i = 0; i < r->n; i++) {
		fputs(i ? ", " : "", f);
		json_write_string(f, r->cells[i].key);
		fputs(": ", f);
		put_value(f, &r->cells[i], 0);
	}
	fputc('}', f);
}

static void write_json(const struct rec_doc *d, FILE *f)
{
	fputs("{\n", f);
	for (int i = 0; i < d->meta.n; i++) {
		fputs(i ? ",\n  " : "  ", f);
		json_write_string(f, d->meta.cells[i].key);
		fputs(": ", f);
		put_value(f, &d->meta.cells[i], 0);
	}
	for (int t = 0; t < d->n; t++) {
		const struct table *tb = &d->tables[t];
		fputs(",\n  ", f);
		json_write_string(f, tb->name);
		fputs(": [", f);
		for (int r = 0; r < tb->n; r++) {
			fputs(r ? ",\n    " : "\n    ", f);
			json_row(f, &tb->rows[r]);
		}
		fputs(tb->n ? "\n  ]" : "]", f);
	}
	fputs("\n}\n", f);
}

/* Index of key in keys[0..n), or -1. */
static int key_index(const char *const *keys, int n, const char *key)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(keys[i], key))
			return i;
	return -1;
}

static void csv_record(FILE *f, const char *table, const struct row *r,
		       const char *const *keys, int nk)
{
	struct cell tc = {.kind = CELL_STR, .text = (char *)table};
	put_value(f, &tc, 1);
	for (int k = 0; k < nk; k++) {
		fputc(',', f);
		for (int i = 0; i < r->n; i++)
			if (!strcmp(r->cells[i].key, keys[k])) {
				put_value(f, &r->cells[i], 1);
				break;
			}
	}
	fputs("\r\n", f);
}

static int write_csv(const struct rec_doc *d, FILE *f)
{
	int nk = 0, cap = d->meta.n;
	for (int t = 0; t < d->n; t++)
		for (int r = 0; r < d->tables[t].n; r++)
			cap += d->tables[t].rows[r].n;
	const char **keys = malloc((size_t)(cap ? cap : 1) * sizeof *keys);
	if (!keys)
		return NS_ENOMEM;
	for (int i = 0; i < d->meta.n; i++)
		if (key_index(keys, nk, d->meta.cells[i].key) < 0)
			keys[nk++] = d->meta.cells[i].key;
	for (int t = 0; t < d->n; t++)
		for (int r = 0; r < d->tables[t].n; r++)
			for (int i = 0; i < d->tables[t].rows[r].n; i++) {
				const char *k = d->tables[t].rows[r].cells[i].key;
				if (key_index(keys, nk, k) < 0)
					keys[nk++] = k;
			}
	fputs("table", f);
	for (int k = 0; k < nk; k++) {
		struct cell kc = {.kind = CELL_STR, .text = (char *)keys[k]};
		fputc(',', f);
		put_value(f, &kc, 1);
	}
	fputs("\r\n", f);
	csv_record(f, "meta", &d->meta, keys, nk);
	for (int t = 0; t < d->n; t++)
		for (int r = 0; r < d->tables[t].n; r++)
			csv_record(f, d->tables[t].name, &d->tables[t].rows[r], keys, nk);
	free(keys);
	return NS_OK;
}

int rec_nr_tables(const struct rec_doc *d)
{
	return d->n;
}

const char *rec_table_name(const struct rec_doc *d, int i)
{
	return i >= 0 && i < d->n ? d->tables[i].name : NULL;
}

/* One table of rows[0..n) named name: its keys, header and rows. */
static int csv_table(FILE *f, const char *name, const struct row *rows, int n, int titled)
{
	int nk = 0, cap = 0;
	for (int r = 0; r < n; r++)
		cap += rows[r].n;
	const char **keys = malloc((size_t)(cap ? cap : 1) * sizeof *keys);
	if (!keys)
		return NS_ENOMEM;
	for (int r = 0; r < n; r++)
		for (int i = 0; i < rows[r].n; i++)
			if (key_index(keys, nk, rows[r].cells[i].key) < 0)
				keys[nk++] = rows[r].cells[i].key;
	if (titled)
		fprintf(f, "# %s\r\n", name);
	for (int k = 0; k < nk; k++) {
		struct cell kc = {.kind = CELL_STR, .text = (char *)keys[k]};
		if (k)
			fputc(',', f);
		put_value(f, &kc, 1);
	}
	fputs("\r\n", f);
	for (int r = 0; r < n; r++) {
		for (int k = 0; k < nk; k++) {
			if (k)
				fputc(',', f);
			for (int i = 0; i < rows[r].n; i++)
				if (!strcmp(rows[r].cells[i].key, keys[k])) {
					put_value(f, &rows[r].cells[i], 1);
					break;
				}
		}
		fputs("\r\n", f);
	}
	free(keys);
	return NS_OK;
}

int rec_write_csv_tables(const struct rec_doc *d, const char *only, FILE *f)
{
	if (d->failed)
		return NS_ENOMEM;
	assert(rec_check(d) == NS_OK);
	int rc = NS_OK;
	if (only) {
		int t = 0;
		if (strcmp(only, "meta"))
			while (t < d->n && strcmp(d->tables[t].name, only))
				t++;
		if (t == d->n)
			return NS_ENOENT;
		rc = !strcmp(only, "meta") ? csv_table(f, "meta", &d->meta, 1, 0)
			: csv_table(f, only, d->tables[t].rows, d->tables[t].n, 0);
	} else {
		rc = csv_table(f, "meta", &d->meta, 1, 1);
		for (int t = 0; t < d->n && rc == NS_OK; t++) {
			fputs("\r\n", f);
			rc = csv_table(f, d->tables[t].name, d->tables[t].rows, d->tables[t].n, 1);
		}
	}
	if (rc == NS_OK && ferror(f))
		rc = NS_EIO;
	return rc;
}

int rec_write(const struct rec_doc *d, enum rec_format fmt, FILE *f)
{
	if (d->failed)
		return NS_ENOMEM;
	assert(rec_check(d) == NS_OK);
	int rc = NS_OK;
	if (fmt == REC_CSV)
		rc = write_csv(d, f);
	else
		write_json(d, f);
	if (rc == NS_OK && ferror(f))
		rc = NS_EIO;
	return rc;
}

static int row_check(const struct row *r)
{
	if (r->n < 0 || r->n > r->cap || (r->n && !r->cells))
		return NS_EINTERNAL;
	for (int i = 0; i < r->n; i++) {
		if (!r->cells[i].key || (r->cells[i].kind == CELL_STR) != (r->cells[i].text != NULL))
			return NS_EINTERNAL;
		for (int j = i + 1; j < r->n; j++)
			if (!strcmp(r->cells[i].key, r->cells[j].key))
				return NS_EINTERNAL;
	}
	return NS_OK;
}

int rec_check(const struct rec_doc *d)
{
	if (d->n < 0 || d->n > d->cap || d->cur >= d->n || row_check(&d->meta))
		return NS_EINTERNAL;
	for (int t = 0; t < d->n; t++) {
		const struct table *tb = &d->tables[t];
		if (!tb->name || tb->n > tb->cap)
			return NS_EINTERNAL;
		for (int k = t + 1; k < d->n; k++)
			if (!strcmp(tb->name, d->tables[k].name))
				return NS_EINTERNAL;
		for (int r = 0; r < tb->n; r++)
			if (row_check(&tb->rows[r]))
				return NS_EINTERNAL;
	}
	return NS_OK;
}
