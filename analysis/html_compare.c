/*
 * html_compare — the HTML compare table (see html_compare.h).
 *
 * Design notes.  compare_records fills a records document; it is written
 * as CSV into memory and parsed back here (RFC 4180: quoted fields, ""
 * for a quote, CRLF), the header naming the columns, so this file needs
 * no access to compare's internals and reads exactly what `numasim
 * compare --format csv` prints.  Groups keep their order (the baseline
 * first), metrics the order compare sorted them in.
 */
#include "analysis/html_compare.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/compare.h"
#include "analysis/markup.h"
#include "base/records.h"

struct csv {
	char **cell;            /* nr_rows * nr_cols of cap, NULL for a missing field */
	int nr_rows, nr_cols, cap;
};

static void csv_free(struct csv *c)
{
	for (int i = 0; i < c->cap; i++)    /* cells past the rows are NULL */
		free(c->cell[i]);
	free(c->cell);
}

/* Parse buf; the first record fixes the number of columns. */
static int csv_parse(struct csv *c, const char *buf, size_t len)
{
	size_t i = 0;
	int col = 0, rc = NS_OK;
	memset(c, 0, sizeof *c);
	char *scratch = malloc(len + 1);     /* the field being read */
	if (!scratch)
		return NS_ENOMEM;
	while (i < len) {
		char *field = scratch;
		size_t n = 0;
		if (buf[i] == '"') {
			for (i++; i < len; i++) {
				if (buf[i] == '"' && i + 1 < len && buf[i + 1] == '"')
					field[n++] = buf[i++];
				else if (buf[i] == '"')
					break;
				else
					field[n++] = buf[i];
			}
			i++;
		}
		while (i < len && buf[i] != ',' && buf[i] != '\r' && buf[i] != '\n')
			field[n++] = buf[i++];
		field[n] = 0;
		int end = i >= len || buf[i] != ',';
		i += i < len && buf[i] == '\r';
		i += i < len;
		if (c->nr_rows == 0 && c->nr_cols <= col)
			c->nr_cols = col + 1;
		if (col < c->nr_cols) {
			int at = c->nr_rows * c->nr_cols + col;
			if (at >= c->cap) {
				int cap = c->cap ? 2 * c->cap : 256;
				while (cap <= at)
					cap *= 2;
				char **nc = realloc(c->cell, (size_t)cap * sizeof *nc);
				if (!nc) {
					rc = NS_ENOMEM;
					break;
				}
				memset(nc + c->cap, 0, (size_t)(cap - c->cap) * sizeof *nc);
				c->cell = nc;
				c->cap = cap;
			}
			if (!(c->cell[at] = strdup(field))) {
				rc = NS_ENOMEM;
				break;
			}
		}
		col++;
		if (end) {
			c->nr_rows++;
			col = 0;
		}
	}
	free(scratch);
	if (rc)
		return rc;
	/* the last row's missing fields */
	if (c->cap < c->nr_rows * c->nr_cols) {
		char **nc = realloc(c->cell, (size_t)(c->nr_rows * c->nr_cols) * sizeof *nc);
		if (!nc)
			return NS_ENOMEM;
		memset(nc + c->cap, 0, (size_t)(c->nr_rows * c->nr_cols - c->cap) * sizeof *nc);
		c->cell = nc;
		c->cap = c->nr_rows * c->nr_cols;
	}
	return NS_OK;
}

static int csv_col(const struct csv *c, const char *name)
{
	for (int i = 0; i < c->nr_cols; i++)
		if (c->cell[i] && !strcmp(c->cell[i], name))
			return i;
	return -1;
}

static const char *csv_get(const struct csv *c, int row, int col)
{
	const char *s = col >= 0 ? c->cell[row * c->nr_cols + col] : NULL;
	return s ? s : "";
}

/* A number as the tables print it: two decimals below 10,000. */
static void put_num(FILE *f, const char *s)
{
	char *end;
	double v = strtod(s, &end);
	if (!*s || *end) {
		markup_puts(f, s);
		return;
	}
	fprintf(f, "%.*f", fabs(v) < 1e4 ? 2 : fabs(v) < 1e6 ? 1 : 0, v);
}

/* A group name with a line-break chance after each comma. */
static void put_group(FILE *f, const char *s)
{
	const char *p;
	while ((p = strchr(s, ',')) != NULL) {
		markup_write(f, s, (size_t)(p - s + 1));
		fputs("<wbr>", f);
		s = p + 1;
	}
	markup_puts(f, s);
}

struct cols {
	int table, value, head, baseline, metric, unit, group, stat[2], pct[2], diff, exact,
	    p, significant, kernel_model;
};

static int write_table(FILE *f, const struct csv *c, const struct cols *k,
		       const char *workload)
{
	int nr_groups = 0;
	int *grow = malloc((size_t)c->nr_rows * sizeof *grow);
	if (!grow)
		return NS_ENOMEM;
	for (int r = 1; r < c->nr_rows; r++)
		if (!strcmp(csv_get(c, r, k->table), "groups"))
			grow[nr_groups++] = r;
	fputs("<div class=\"scroll\"><table class=\"cmp\" id=\"compare-", f);
	markup_puts(f, workload);
	fputs("\" data-check=\"compare-", f);
	markup_puts(f, workload);
	fputs("\"><thead><tr><th>metric</th><th>unit</th><th>stat</th>", f);
	for (int g = 0; g < nr_groups; g++) {
		int base = !strcmp(csv_get(c, grow[g], k->baseline), "true");
		fprintf(f, "<th class=\"grp%s\" title=\"", base ? " base" : "");
		markup_puts(f, csv_get(c, grow[g], k->value));
		fputs("\">", f);
		put_group(f, csv_get(c, grow[g], k->value));
		if (base)
			fputs("<br><span class=\"km\">(baseline)</span>", f);
		fputs("</th>", f);
	}
	fputs("</tr></thead><tbody>\n", f);
	static const char *const stat_names[2] = {"Min", "Amean"};
	const char *last = NULL;
	for (int r = 1; r < c->nr_rows; r++) {
		if (strcmp(csv_get(c, r, k->table), "stats"))
			continue;
		const char *metric = csv_get(c, r, k->metric);
		if (last && !strcmp(last, metric))
			continue;
		last = metric;
		for (int s = 0; s < 3; s++) {
			fputs(s == 0 ? "<tr class=\"first\">" : "<tr>", f);
			if (s == 0) {
				fputs("<th class=\"m\" rowspan=\"3\">", f);
				markup_puts(f, metric);
				fputs("</th><td rowspan=\"3\">", f);
				char ul[64];
				markup_puts(f, compare_unit_label(csv_get(c, r, k->unit), ul,
								  sizeof ul));
				fputs("</td>", f);
			}
			fprintf(f, "<td>%s</td>", s < 2 ? stat_names[s] : "Welch");
			for (int g = 0; g < nr_groups; g++) {
				const char *gv = csv_get(c, grow[g], k->value);
				int base = !strcmp(csv_get(c, grow[g], k->baseline), "true");
				int row = -1;
				const char *tab = s < 2 ? "stats" : "welch";
				for (int q = r; q < c->nr_rows && row < 0; q++)
					if (!strcmp(csv_get(c, q, k->table), tab) &&
					    !strcmp(csv_get(c, q, k->metric), metric) &&
					    !strcmp(csv_get(c, q, k->group), gv))
						row = q;
				if (s == 2) {
					if (base || row < 0) {
						fputs(base ? "<td class=\"n base\">baseline</td>"
						      : "<td class=\"n\"></td>", f);
					} else if (!strcmp(csv_get(c, row, k->exact), "true")) {
						fputs("<td class=\"n\">exact ", f);
						put_num(f, csv_get(c, row, k->diff));
						fputs("</td>", f);
					} else {
						const char *p = csv_get(c, row, k->p);
						double pv = strtod(p, NULL);
						int sig = !strcmp(csv_get(c, row, k->significant), "true");
						if (!*p)
							fputs("<td class=\"n\">n/a</td>", f);
						else if (pv < 0.0001)
							fprintf(f, "<td class=\"n\">p&lt;0.0001%s</td>",
								sig ? "*" : "");
						else
							fprintf(f, "<td class=\"n\">p=%.4f%s</td>", pv,
								sig ? "*" : "");
					}
					continue;
				}
				if (row < 0) {
					fputs("<td class=\"n\"></td>", f);
					continue;
				}
				const char *pct = csv_get(c, row, k->pct[s]);
				double pv = *pct ? strtod(pct, NULL) : 0;
				const char *tint = base ? " base" : pv >= HTML_COMPARE_STRONG_PCT ? " g2"
					: pv >= HTML_COMPARE_TINT_PCT ? " g1"
					: pv <= -HTML_COMPARE_STRONG_PCT ? " r2"
					: pv <= -HTML_COMPARE_TINT_PCT ? " r1" : "";
				fprintf(f, "<td class=\"n%s\">", tint);
				put_num(f, csv_get(c, row, k->stat[s]));
				if (!base && *pct)
					fprintf(f, " <span class=\"pct\">(%+.2f%%)</span>", pv);
				fputs("</td>", f);
			}
			fputs("</tr>\n", f);
		}
	}
	fputs("</tbody></table></div>\n", f);
	free(grow);
	return NS_OK;
}

int html_compare_table(sqlite3 *db, const char *dbname, const char *workload,
		       const char *metrics, int pool, FILE *f, struct diag *d)
{
	char where[300];
	const char *wl[1] = {where};
	snprintf(where, sizeof where, "workload=%s", workload);
	struct compare_opts o = {.metrics = metrics, .where = wl, .nr_where = 1,
				 .max_metrics = 40, .pool = pool};
	struct compare *c = NULL;
	struct rec_doc *doc = NULL;
	char *buf = NULL;
	size_t len = 0;
	struct csv csv = {0};
	int rc = compare_new(&o, dbname, d, &c);
	if (rc == NS_OK)
		rc = compare_load(c, db, dbname);
	if (rc == NS_OK && !(doc = rec_doc_new("compare")))
		rc = NS_ENOMEM;
	if (rc == NS_OK)
		rc = compare_records(c, doc, NULL, NULL);
	FILE *m = rc == NS_OK ? open_memstream(&buf, &len) : NULL;
	if (rc == NS_OK && !m)
		rc = NS_ENOMEM;
	if (m) {
		rc = rec_write(doc, REC_CSV, m);
		fclose(m);
	}
	if (rc == NS_OK)
		rc = csv_parse(&csv, buf, len);
	if (rc == NS_OK) {
		struct cols k = {
			.table = csv_col(&csv, "table"), .value = csv_col(&csv, "value"),
			.head = csv_col(&csv, "head"), .baseline = csv_col(&csv, "baseline"),
			.metric = csv_col(&csv, "metric"), .unit = csv_col(&csv, "unit"),
			.group = csv_col(&csv, "group"),
			.stat = {csv_col(&csv, "min"), csv_col(&csv, "amean")},
			.pct = {csv_col(&csv, "min_pct"), csv_col(&csv, "amean_pct")},
			.diff = csv_col(&csv, "diff"), .exact = csv_col(&csv, "exact"),
			.p = csv_col(&csv, "p"), .significant = csv_col(&csv, "significant"),
			.kernel_model = csv_col(&csv, "kernel_model"),
		};
		if (k.table < 0 || k.metric < 0 || k.group < 0 || k.value < 0)
			rc = diag_set(d, NS_EINTERNAL, dbname, 0, 0, "compare records "
				      "without their columns");
		else
			rc = write_table(f, &csv, &k, workload);
	}
	if (rc == NS_ENOMEM)
		diag_set(d, rc, dbname, 0, 0, "out of memory");
	csv_free(&csv);
	free(buf);
	rec_doc_free(doc);
	compare_free(c);
	return rc;
}
