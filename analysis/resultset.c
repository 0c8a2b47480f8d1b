/*
 * resultset — result sets as table, CSV or JSON; see resultset.h.
 *
 * Design notes.  CSV and JSON stream: each row is written as it is
 * stepped.  The table format needs every column's width first, so it
 * keeps the rows' cell texts in one growing array (cells[row * ncol +
 * col], NULL for SQL NULL) and prints at the end.  Numbers keep SQLite's
 * own text form in the table (what the sqlite3 shell prints) and 17
 * significant digits in CSV and JSON, where round trips matter more than
 * looks.
 */
#include "analysis/resultset.h"

#include "analysis/markup.h"
#include "base/json.h"
#include "base/records.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

int resultset_parse_format(const char *name, enum resultset_format *out)
{
	static const char *const names[] = {"table", "csv", "json"};
	for (int i = 0; i < 3; i++)
		if (!strcmp(name, names[i])) {
			*out = (enum resultset_format)i;
			return NS_OK;
		}
	return NS_EUSAGE;
}

/* A text cell a spreadsheet would read as a formula (OWASP, "CSV Injection"). */
int resultset_csv_formula(const char *s, size_t len)
{
	return len > 0 && strchr("=+-@\t\r", s[0]) != NULL && s[0] != '\0';
}

void resultset_csv_field(FILE *f, const char *s, size_t len)
{
	resultset_csv_cell(f, s, len, 0);
}

void resultset_csv_cell(FILE *f, const char *s, size_t len, int raw)
{
	int quote = 0;
	if (!raw && resultset_csv_formula(s, len)) {
		/* as OWASP recommends: a leading quote, the cell then quoted */
		fputs("\"'", f);
		for (size_t i = 0; i < len; i++) {
			if (s[i] == '"')
				fputc('"', f);
			fputc(s[i], f);
		}
		fputc('"', f);
		return;
	}
	for (size_t i = 0; i < len && !quote; i++)
		quote = s[i] == ',' || s[i] == '"' || s[i] == '\r' || s[i] == '\n';
	if (!quote) {
		fwrite(s, 1, len, f);
		return;
	}
	fputc('"', f);
	for (size_t i = 0; i < len; i++) {
		if (s[i] == '"')
			fputc('"', f);
		fputc(s[i], f);
	}
	fputc('"', f);
}

void resultset_json_string(FILE *f, const char *s, size_t len)
{
	fputc('"', f);
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];
		switch (c) {
		case '"': fputs("\\\"", f); break;
		case '\\': fputs("\\\\", f); break;
		case '\n': fputs("\\n", f); break;
		case '\r': fputs("\\r", f); break;
		case '\t': fputs("\\t", f); break;
		default:
			if (c < 0x20) {
				fprintf(f, "\\u%04x", c);
			} else if (c < 0x80) {
				fputc(c, f);
			} else {
				/* JSON is UTF-8: an ill-formed byte becomes U+FFFD */
				size_t n = json_utf8_len((const unsigned char *)s + i, len - i);
				if (n) {
					fwrite(s + i, 1, n, f);
					i += n - 1;
				} else {
					fputs("\\ufffd", f);
				}
			}
		}
	}
	fputc('"', f);
}

/* A BLOB as lowercase hex (malloc'ed). */
static char *blob_hex(sqlite3_stmt *st, int i)
{
	const unsigned char *b = sqlite3_column_blob(st, i);
	int n = sqlite3_column_bytes(st, i);
	char *s = malloc((size_t)n * 2 + 1);
	if (!s)
		return NULL;
	for (int k = 0; k < n; k++)
		snprintf(s + 2 * k, 3, "%02x", b[k]);
	s[2 * n] = '\0';
	return s;
}

/* A value as text for CSV: NULL -> "", REAL with 17 digits. */
static int csv_value(FILE *f, sqlite3_stmt *st, int i, int raw)
{
	char num[40];
	switch (sqlite3_column_type(st, i)) {
	case SQLITE_NULL:
		return NS_OK;
	case SQLITE_INTEGER:
		/* a number, never a formula: written as it is */
		fprintf(f, "%lld", (long long)sqlite3_column_int64(st, i));
		return NS_OK;
	case SQLITE_FLOAT:
		snprintf(num, sizeof num, "%.17g", sqlite3_column_double(st, i));
		fputs(num, f);
		return NS_OK;
	case SQLITE_BLOB: {
		char *h = blob_hex(st, i);
		if (!h)
			return NS_ENOMEM;
		fputs(h, f);
		free(h);
		return NS_OK;
	}
	default: {
		const char *t = (const char *)sqlite3_column_text(st, i);
		resultset_csv_cell(f, t ? t : "", (size_t)sqlite3_column_bytes(st, i), raw);
		return NS_OK;
	}
	}
}

static int json_value(FILE *f, sqlite3_stmt *st, int i)
{
	switch (sqlite3_column_type(st, i)) {
	case SQLITE_NULL:
		fputs("null", f);
		return NS_OK;
	case SQLITE_INTEGER:
		fprintf(f, "%lld", (long long)sqlite3_column_int64(st, i));
		return NS_OK;
	case SQLITE_FLOAT: {
		double v = sqlite3_column_double(st, i);
		if (isfinite(v))
			fprintf(f, "%.17g", v);
		else
			fputs("null", f);
		return NS_OK;
	}
	case SQLITE_BLOB: {
		char *h = blob_hex(st, i);
		if (!h)
			return NS_ENOMEM;
		resultset_json_string(f, h, strlen(h));
		free(h);
		return NS_OK;
	}
	default: {
		const char *t = (const char *)sqlite3_column_text(st, i);
		resultset_json_string(f, t ? t : "", (size_t)sqlite3_column_bytes(st, i));
		return NS_OK;
	}
	}
}

struct cells {
	int ncol;
	size_t n, cap;     /* cells used / allocated */
	char **v;          /* row-major; NULL = SQL NULL */
	unsigned char *num; /* per column: 1 if every non-NULL value is a number */
};

static int cells_add(struct cells *c, const char *s)
{
	if (c->n == c->cap) {
		size_t cap = c->cap ? 2 * c->cap : 256;
		char **nv = realloc(c->v, cap * sizeof *nv);
		if (!nv)
			return NS_ENOMEM;
		c->v = nv;
		c->cap = cap;
	}
	c->v[c->n] = NULL;
	if (s && !(c->v[c->n] = strdup(s)))
		return NS_ENOMEM;
	c->n++;
	return NS_OK;
}

/* Text that is a plain decimal number ("12.10", "-3"): a number formatted
 * in SQL (printf('%.2f', x)) stays right-aligned like the number. */
static int decimal_text(const char *s)
{
	int digits = 0;
	if (*s == '-' || *s == '+')
		s++;
	for (; *s >= '0' && *s <= '9'; s++)
		digits++;
	if (*s == '.')
		for (s++; *s >= '0' && *s <= '9'; s++)
			digits++;
	return digits > 0 && *s == '\0';
}

static int table_row(struct cells *c, sqlite3_stmt *st)
{
	for (int i = 0; i < c->ncol; i++) {
		int t = sqlite3_column_type(st, i);
		char *h = NULL;
		const char *s = NULL;
		if (t == SQLITE_BLOB) {
			if (!(h = blob_hex(st, i)))
				return NS_ENOMEM;
			s = h;
		} else if (t != SQLITE_NULL) {
			s = (const char *)sqlite3_column_text(st, i);
			if (!s)
				return NS_ENOMEM;
		}
		if (t == SQLITE_BLOB || (t == SQLITE_TEXT && !decimal_text(s)))
			c->num[i] = 0;
		int r = cells_add(c, s);
		free(h);
		if (r != NS_OK)
			return r;
	}
	return NS_OK;
}

/* Print a cell in w characters, cutting long text with "..."; the last
 * column is not padded on the right (no trailing blanks). */
static void put_cell(FILE *f, const char *s, int w, int right, int last)
{
	int len = (int)strlen(s);
	if (len > w) {
		fprintf(f, "%.*s...", w - 3, s);
		return;
	}
	if (last && !right)
		fputs(s, f);
	else
		fprintf(f, right ? "%*s" : "%-*s", w, s);
}

static void table_print(FILE *f, sqlite3_stmt *st, const struct cells *c)
{
	int *w = calloc((size_t)c->ncol, sizeof *w);
	size_t rows = c->ncol ? c->n / (size_t)c->ncol : 0;
	if (!w)
		return;
	for (int i = 0; i < c->ncol; i++) {
		w[i] = (int)strlen(sqlite3_column_name(st, i));
		for (size_t r = 0; r < rows; r++) {
			const char *s = c->v[r * (size_t)c->ncol + (size_t)i];
			int l = s ? (int)strlen(s) : 0;
			w[i] = l > w[i] ? l : w[i];
		}
		w[i] = w[i] > RESULTSET_TABLE_MAXW ? RESULTSET_TABLE_MAXW : w[i];
	}
	for (int i = 0; i < c->ncol; i++) {
		fputs(i ? "  " : "", f);
		put_cell(f, sqlite3_column_name(st, i), w[i], c->num[i] && rows,
			 i == c->ncol - 1);
	}
	fputc('\n', f);
	for (int i = 0; i < c->ncol; i++) {
		fputs(i ? "  " : "", f);
		for (int k = 0; k < w[i]; k++)
			fputc('-', f);
	}
	fputc('\n', f);
	for (size_t r = 0; r < rows; r++) {
		for (int i = 0; i < c->ncol; i++) {
			const char *s = c->v[r * (size_t)c->ncol + (size_t)i];
			fputs(i ? "  " : "", f);
			put_cell(f, s ? s : "", w[i], c->num[i], i == c->ncol - 1);
		}
		fputc('\n', f);
	}
	fprintf(f, "(%zu row%s)\n", rows, rows == 1 ? "" : "s");
	free(w);
}

static void csv_header(FILE *f, sqlite3_stmt *st, int ncol)
{
	for (int i = 0; i < ncol; i++) {
		const char *n = sqlite3_column_name(st, i);
		fputs(i ? "," : "", f);
		resultset_csv_field(f, n, strlen(n));
	}
	fputs("\r\n", f);
}

static int stream_row(FILE *f, sqlite3_stmt *st, int ncol, enum resultset_format fmt,
		      long long row)
{
	int r = NS_OK;
	if (fmt == RESULTSET_CSV || fmt == RESULTSET_CSV_RAW) {
		for (int i = 0; i < ncol && r == NS_OK; i++) {
			fputs(i ? "," : "", f);
			r = csv_value(f, st, i, fmt == RESULTSET_CSV_RAW);
		}
		fputs("\r\n", f);
		return r;
	}
	fputs(row ? ",\n  {" : "\n  {", f);
	for (int i = 0; i < ncol && r == NS_OK; i++) {
		const char *n = sqlite3_column_name(st, i);
		fputs(i ? ", " : "", f);
		resultset_json_string(f, n, strlen(n));
		fputs(": ", f);
		r = json_value(f, st, i);
	}
	fputc('}', f);
	return r;
}

int resultset_statement(sqlite3_stmt *st, enum resultset_format fmt, FILE *f,
		     long long *nrows, const char *origin, struct diag *d)
{
	int ncol = sqlite3_column_count(st);
	struct cells c = {.ncol = ncol};
	long long n = 0;
	int rc = NS_OK, s;

	if (fmt == RESULTSET_TABLE && ncol > 0 &&
	    !(c.num = malloc((size_t)ncol))) {
		rc = NS_ENOMEM;
		goto out;
	}
	if (c.num)
		memset(c.num, 1, (size_t)ncol);
	if (fmt == RESULTSET_CSV || fmt == RESULTSET_CSV_RAW)
		csv_header(f, st, ncol);
	if (fmt == RESULTSET_JSON)
		fputc('[', f);
	while ((s = sqlite3_step(st)) == SQLITE_ROW) {
		rc = fmt == RESULTSET_TABLE ? table_row(&c, st) : stream_row(f, st, ncol, fmt, n);
		if (rc != NS_OK)
			goto out;
		n++;
	}
	if (s != SQLITE_DONE) {
		rc = diag_set(d, NS_EDB, origin, 0, 0, "%s",
			      sqlite3_errmsg(sqlite3_db_handle(st)));
		goto out;
	}
	if (fmt == RESULTSET_JSON)
		fputs(n ? "\n]\n" : "]\n", f);
	if (fmt == RESULTSET_TABLE)
		table_print(f, st, &c);
	if (nrows)
		*nrows = n;
out:
	if (rc == NS_ENOMEM)
		diag_set(d, NS_ENOMEM, origin, 0, 0, "out of memory");
	for (size_t i = 0; i < c.n; i++)
		free(c.v[i]);
	free(c.v);
	free(c.num);
	return rc;
}

/* Whether text holds nothing but white space, semicolons and comments. */
static int only_blank(sqlite3 *db, const char *tail)
{
	sqlite3_stmt *st = NULL;
	const char *next = NULL;
	int rc = sqlite3_prepare_v2(db, tail, -1, &st, &next);
	int blank = rc == SQLITE_OK && st == NULL;
	sqlite3_finalize(st);
	return blank;
}

/*
 * Whether sql is "PRAGMA name" without an argument: it reports a value,
 * though sqlite3_stmt_readonly() says no for the pragmas that could also
 * set one (journal_mode).  What a pragma may do at all is the
 * authorizer's (analysis/sqlguard.h) and PRAGMA query_only's to decide.
 */
static int bare_pragma(const char *sql)
{
	const char *p = sql;
	while (isspace((unsigned char)*p))
		p++;
	if (strncasecmp(p, "pragma", 6) || !isspace((unsigned char)p[6]))
		return 0;
	for (p += 6; isspace((unsigned char)*p); p++)
		;
	while (isalnum((unsigned char)*p) || *p == '_' || *p == '.')
		p++;
	while (isspace((unsigned char)*p) || *p == ';')
		p++;
	return *p == '\0';
}

int resultset_sql(sqlite3 *db, const char *sql, enum resultset_format fmt, FILE *f,
	       long long *nrows, const char *origin, struct diag *d)
{
	sqlite3_stmt *st = NULL;
	const char *tail = NULL;
	int rc;

	if (sqlite3_prepare_v2(db, sql, -1, &st, &tail) != SQLITE_OK)
		return diag_set(d, NS_EINPUT, origin, 0, 0, "bad SQL: %s",
				sqlite3_errmsg(db));
	if (!st)
		return diag_set(d, NS_EINPUT, origin, 0, 0, "no SQL statement given");
	if (tail && !only_blank(db, tail)) {
		rc = diag_set(d, NS_EINPUT, origin, 0, 0, "more than one SQL statement "
			      "(give one statement; the rest starts at '%.30s')", tail);
		goto out;
	}
	if (!sqlite3_stmt_readonly(st) && !bare_pragma(sql)) {
		rc = diag_set(d, NS_EINPUT, origin, 0, 0, "refusing a statement that "
			      "writes: databases are opened read-only ('%.40s')", sql);
		goto out;
	}
	rc = resultset_statement(st, fmt, f, nrows, origin, d);
out:
	sqlite3_finalize(st);
	return rc;
}

int resultset_records(sqlite3_stmt *st, struct rec_doc *doc, const char *table,
		      long long *nrows, const char *origin, struct diag *d)
{
	int s, ncol = sqlite3_column_count(st);
	long long n = 0;
	rec_table(doc, table);
	while ((s = sqlite3_step(st)) == SQLITE_ROW) {
		rec_row(doc);
		for (int i = 0; i < ncol; i++) {
			const char *key = sqlite3_column_name(st, i);
			switch (sqlite3_column_type(st, i)) {
			case SQLITE_INTEGER:
				rec_int(doc, key, sqlite3_column_int64(st, i));
				break;
			case SQLITE_FLOAT:
				rec_num(doc, key, sqlite3_column_double(st, i));
				break;
			case SQLITE_NULL:
				rec_null(doc, key);
				break;
			case SQLITE_BLOB: {
				const unsigned char *b = sqlite3_column_blob(st, i);
				int len = sqlite3_column_bytes(st, i);
				char *hex = malloc((size_t)len * 2 + 1);
				if (!hex)
					return diag_set(d, NS_ENOMEM, origin, 0, 0, "out of memory");
				for (int k = 0; k < len; k++)
					sprintf(hex + 2 * k, "%02x", b[k]);
				hex[2 * len] = '\0';
				rec_str(doc, key, hex);
				free(hex);
				break;
			}
			default:
				rec_str(doc, key, (const char *)sqlite3_column_text(st, i));
			}
		}
		n++;
	}
	if (nrows)
		*nrows = n;
	if (s != SQLITE_DONE)
		return diag_set(d, NS_EDB, origin, 0, 0, "%s",
				sqlite3_errmsg(sqlite3_db_handle(st)));
	return NS_OK;
}
