/* latency_hist: log2 histograms of per-call core cycles (latency_hist.h). */
#include "analysis/latency_hist.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

unsigned latency_hist_bucket(uint64_t cycles)
{
	unsigned k = 1;                 /* 0 and 1 cycle: "0 -> 1" */
	while (k < LATENCY_HIST_NR - 1 && cycles >> k)
		k++;
	return k;
}

uint64_t latency_hist_total(const struct latency_hist *h)
{
	uint64_t n = 0;
	for (int k = 0; k < LATENCY_HIST_NR; k++)
		n += h->bucket[k];
	return n;
}

int latency_hist_check(const struct latency_hist *h)
{
	return h->bucket[0] == 0 ? NS_OK : NS_EINTERNAL;
}

int latency_hist_store(struct store *st, int64_t run, const char *name,
		       const struct latency_hist *h)
{
	char n[160];
	for (int k = 1; k < LATENCY_HIST_NR; k++) {
		if (!h->bucket[k])
			continue;
		snprintf(n, sizeof n, "%s.lt_%" PRIu64, name, (uint64_t)1 << k);
		int rc = store_metric(st, run, n, (double)h->bucket[k], "count");
		if (rc)
			return rc;
	}
	return NS_OK;
}

/* k of "lt_2^k", 0 when the text is not such a bound */
static int bound_bucket(const char *s)
{
	char *end;
	unsigned long long v = strtoull(s, &end, 10);
	if (*end || v < 2 || (v & (v - 1)))
		return 0;
	int k = 0;
	while (v >>= 1)
		k++;
	return k < LATENCY_HIST_NR ? k : 0;
}

int latency_hist_read(sqlite3 *db, const char *dbname, int64_t run, const char *name,
		      struct latency_hist *h, struct diag *d)
{
	sqlite3_stmt *st;
	memset(h, 0, sizeof *h);
	if (sqlite3_prepare_v2(db, "SELECT substr(name, length(?2) + 5), value FROM metrics "
			       "WHERE run_id = ?1 AND substr(name, 1, length(?2) + 4) = "
			       "?2 || '.lt_' AND value IS NOT NULL", -1, &st, NULL) != SQLITE_OK)
		return diag_set(d, NS_EDB, dbname, 0, 0, "%s", sqlite3_errmsg(db));
	sqlite3_bind_int64(st, 1, run);
	sqlite3_bind_text(st, 2, name, -1, SQLITE_STATIC);
	int s, found = 0;
	while ((s = sqlite3_step(st)) == SQLITE_ROW) {
		const char *b = (const char *)sqlite3_column_text(st, 0);
		int k = b ? bound_bucket(b) : 0;
		double v = sqlite3_column_double(st, 1);
		if (!k || v < 0)
			continue;
		h->bucket[k] += (uint64_t)v;
		found = 1;
	}
	int rc = s == SQLITE_DONE ? NS_OK
		: diag_set(d, NS_EDB, dbname, 0, 0, "%s", sqlite3_errmsg(db));
	sqlite3_finalize(st);
	if (rc == NS_OK && !found)
		rc = NS_ENOENT;
	return rc;
}

/* the first and last non-empty buckets and the fullest; 0 when empty */
static int extent(const struct latency_hist *h, int *lo, int *hi, uint64_t *max)
{
	*lo = *hi = 0;
	*max = 0;
	for (int k = 1; k < LATENCY_HIST_NR; k++) {
		if (!h->bucket[k])
			continue;
		if (!*lo)
			*lo = k;
		*hi = k;
		if (h->bucket[k] > *max)
			*max = h->bucket[k];
	}
	return *lo != 0;
}

static uint64_t low_of(int k)
{
	return k == 1 ? 0 : (uint64_t)1 << (k - 1);
}

static uint64_t high_of(int k)
{
	return k == LATENCY_HIST_NR - 1 ? UINT64_MAX : ((uint64_t)1 << k) - 1;
}

void latency_hist_print(const struct latency_hist *h, FILE *f)
{
	int lo, hi;
	uint64_t max;
	if (!extent(h, &lo, &hi, &max))
		return;
	int wide = hi > 32, width = wide ? 20 : 10, stars = wide ? 20 : 40;
	fprintf(f, "%*s%-*s : count     distribution\n", wide ? 15 : 5, "",
		wide ? 29 : 19, "core cycles");
	for (int k = lo; k <= hi; k++) {
		uint64_t n = h->bucket[k];
		int bar = (int)((double)n * stars / (double)max);
		fprintf(f, "%*" PRIu64 " -> %-*" PRIu64 " : %-8" PRIu64 " |%.*s%*s|\n",
			width, low_of(k), width, high_of(k), n, bar,
			"****************************************", stars - bar, "");
	}
}

void latency_hist_html(const struct latency_hist *h, FILE *f)
{
	int lo, hi;
	uint64_t max;
	if (!extent(h, &lo, &hi, &max))
		return;
	uint64_t total = latency_hist_total(h);
	fputs("<table class=\"lhist\"><thead><tr><th class=\"n\">core cycles from</th>"
	      "<th class=\"n\">to</th><th class=\"n\">count</th><th class=\"n\">share</th>"
	      "<th>distribution</th></tr></thead><tbody>\n", f);
	for (int k = lo; k <= hi; k++) {
		uint64_t n = h->bucket[k];
		fprintf(f, "<tr><td class=\"n\">%" PRIu64 "</td><td class=\"n\">%" PRIu64
			"</td><td class=\"n\">%" PRIu64 "</td><td class=\"n\">%.2f%%</td>"
			"<td class=\"bar\">",
			low_of(k), high_of(k), n, 100.0 * (double)n / (double)total);
		if (n)          /* an empty bucket has no bar */
			fprintf(f, "<span style=\"width:%.1f%%\"></span>",
				100.0 * (double)n / (double)max);
		fputs("</td></tr>\n", f);
	}
	fputs("</tbody></table>\n", f);
}
