/*
 * Tests for analysis/diff: on a hand-made database (tables without the
 * schema's constraints, so rows numasim never writes can be made), the
 * figures per operation and per run, the deltas and percentages, the
 * order by |delta|, the layout letters, the metrics' Min and Amean from
 * samples and from metric values, the groups (variants, short names,
 * selection, baseline, runs, a database as one group), the errors
 * (fewer than two groups, an unknown run, NULL, text and negative cells
 * named), the HTML escaping, and diff_check.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/diff.h"
#include "base/diag.h"
#include "base/records.h"
#include "tests/sql_fixture.h"

/*
 * Runs 1 and 3 are variant it=old, 2 it=new, 4 failed.  Operations
 * (allocs): 1: 10, 3: 30 (old: 40), 2: 20.  Profile per run:
 *   f: old self 40 + 40 = 80 -> 2/op, new 60 -> 3/op (+1, +50 %)
 *   g: old self 400 -> 10/op, new 0 inlined -> -10 (-100 %)
 *   h: only new, self 20 -> 1/op (new)
 *   z: zero everywhere (left out)
 */
static const char schema[] =
	"CREATE TABLE runs (run_id INTEGER PRIMARY KEY, status TEXT, point INT, variant TEXT,"
	" kernel_model TEXT, workload TEXT, machine TEXT);"
	"CREATE TABLE params (run_id INT, key TEXT, value ANY);"
	"CREATE TABLE metrics (run_id INT, name TEXT, value ANY, unit TEXT);"
	"CREATE TABLE samples (run_id INT, metric TEXT, idx INT, value ANY);"
	"CREATE TABLE profile (run_id INT, function TEXT, inlined ANY, calls ANY,"
	" self_cycles ANY, total_cycles ANY);"
	"CREATE TABLE branches (run_id INT, site TEXT, function TEXT, fallthrough INT,"
	" executed ANY, taken INT, mispredicted ANY);"
	"INSERT INTO runs VALUES (1, 'ok', 0, 'it=old', 'v1', 'pagealloc', 'm'),"
	" (2, 'ok', 1, 'it=new', 'v1+p', 'pagealloc', 'm'),"
	" (3, 'ok', 0, 'it=old', 'v1', 'pagealloc', 'm'),"
	" (4, 'failed', 1, 'it=new', 'v1+p', 'pagealloc', 'm');"
	"INSERT INTO params VALUES (1, 'k', 'a'), (2, 'k', 'b'), (3, 'k', 'c');"
	"INSERT INTO metrics VALUES (1, 'allocs', 10, 'count'), (3, 'allocs', 30, 'count'),"
	" (2, 'allocs', 20, 'count'), (4, 'allocs', 5, 'count'),"
	" (1, 'alloc-odr0-1', 99, 'cycles/op'), (2, 'alloc-odr0-1', 99, 'cycles/op'),"
	" (3, 'alloc-odr0-1', 99, 'cycles/op'), (1, 'time', 7, 's'), (2, 'time', 9, 's');"
	"INSERT INTO samples VALUES (1, 'alloc-odr0-1', 0, 10), (1, 'alloc-odr0-1', 1, 14),"
	" (3, 'alloc-odr0-1', 0, 12), (2, 'alloc-odr0-1', 0, 8), (2, 'alloc-odr0-1', 1, 9);"
	"INSERT INTO profile VALUES (1, 'f', 0, 10, 40, 100), (3, 'f', 0, 30, 40, 100),"
	" (2, 'f', 0, 20, 60, 200), (1, 'g', 0, 10, 400, 400), (2, 'g', 1, 20, 0, 100),"
	" (2, 'h', 0, 20, 20, 20), (1, 'z', 0, 0, 0, 0), (2, 'z', 1, 0, 0, 0);"
	"INSERT INTO branches VALUES (1, 'S1', 'f', 1, 40, 0, 4), (3, 'S1', 'f', 1, 40, 0, 4),"
	" (2, 'S1', 'f', 1, 20, 0, 0), (2, 'S2', NULL, 1, 60, 0, 2);";

static int setup(void **state)
{
	return memdb_setup(state, schema);
}

struct out {
	int rc;
	char *text;    /* diff_print, or the diff's message on failure */
	char *json;
	char *html;
};

static void out_free(struct out *o)
{
	free(o->text);
	free(o->json);
	free(o->html);
}

/* Groups by o (or runs[0..nr) when nr), then load, compute, write. */
static struct out run_diff(sqlite3 *db, struct diff_opts o, const int64_t *runs, int nr,
			   const char *const *select, int nsel, const char *baseline)
{
	struct out r = {0};
	struct diag d;
	struct diff *df = NULL;
	size_t len = 0;
	diag_init(&d);
	r.rc = diff_new(&o, "test", &d, &df);
	for (int i = 0; i < nr && r.rc == NS_OK; i++)
		r.rc = diff_add_run(df, 0, db, "db", runs[i], 0);
	if (!nr && r.rc == NS_OK)
		r.rc = diff_add_key(df, 0, db, "db");
	if (r.rc == NS_OK && nsel)
		r.rc = diff_select(df, select, nsel);
	if (r.rc == NS_OK && baseline)
		r.rc = diff_set_baseline(df, baseline);
	if (r.rc == NS_OK)
		r.rc = diff_load(df, 0, db, "db");
	if (r.rc == NS_OK)
		r.rc = diff_compute(df);
	if (r.rc == NS_OK) {
		FILE *f = open_memstream(&r.text, &len);
		assert_int_equal(diff_print(df, f), NS_OK);
		fclose(f);
		struct rec_doc *doc = rec_doc_new("diff");
		assert_int_equal(diff_records(df, doc), NS_OK);
		f = open_memstream(&r.json, &len);
		assert_int_equal(rec_write(doc, REC_JSON, f), NS_OK);
		fclose(f);
		rec_doc_free(doc);
		f = open_memstream(&r.html, &len);
		assert_int_equal(diff_html(df, f, 0), NS_OK);
		fclose(f);
		assert_int_equal(diff_check(df), NS_OK);
	} else {
		r.text = strdup(d.msg);
	}
	diff_free(df);
	return r;
}

/* The fields of a line, joined by one space (malloc'ed). */
static char *fields_of(const char *l, size_t n)
{
	char *out = calloc(n + 1, 1), *o = out;
	for (size_t i = 0; i < n; i++) {
		if (l[i] == ' ' && (o == out || o[-1] == ' '))
			continue;
		*o++ = l[i];
	}
	if (o > out && o[-1] == ' ')
		o[-1] = '\0';
	return out;
}

/* The text has a line whose fields start with prefix's and are want's. */
static void expect_fields(const char *out, const char *prefix, const char *want)
{
	size_t n = strlen(prefix);
	for (const char *p = out; p && *p;) {
		const char *e = strchr(p, '\n');
		char *f = fields_of(p, e ? (size_t)(e - p) : strlen(p));
		if (!strncmp(f, prefix, n) && f[n] == ' ') {
			if (strcmp(f, want))
				fail_msg("line '%s':\n  got  '%s'\n  want '%s'", prefix, f, want);
			free(f);
			return;
		}
		free(f);
		p = e ? e + 1 : NULL;
	}
	fail_msg("no line '%s' in:\n%s", prefix, out);
}

static void test_variants(void **state)
{
	struct out r = run_diff(*state, (struct diff_opts){0}, NULL, 0, NULL, 0, NULL);
	assert_int_equal(r.rc, NS_OK);
	assert_non_null(strstr(r.text, "# [0] it=old  (baseline; 2 runs, 40 operations)"));
	assert_non_null(strstr(r.text, "# [1] it=new  (1 run, 20 operations)"));
	/* self, total, calls per allocation; deltas and percentages */
	expect_fields(r.text, "g", "g oi 10.00 -10.00 -100.00% 10.00 -5.00 -50.00% 0.250 +0.750 +300.00%");
	expect_fields(r.text, "f", "f oo 2.00 +1.00 +50.00% 5.00 +5.00 +100.00% 1.000 +0.000 +0.00%");
	expect_fields(r.text, "h", "h .o 0.00 +1.00 new 0.00 +1.00 new 0.000 +1.000 new");
	/* sorted by |delta self| (g 10, f 1 = h 1: then |delta total| f 5 > h 1) */
	const char *g = strstr(r.text, "\ng "), *f = strstr(r.text, "\nf "),
		   *h = strstr(r.text, "\nh ");
	assert_true(g && f && h && g < f && f < h);
	assert_null(strstr(r.text, "\nz "));
	/* sites: executions per allocation, mispredictions; a NULL function */
	expect_fields(r.text, "S2", "S2 0.000 +3.000 new 0.0000 +0.1000 new");
	expect_fields(r.text, "S1", "S1 f 2.000 -1.000 -50.00% 0.2000 -0.2000 -100.00%");
	/* metrics: the samples of a series (Min 10 / 8, Amean 12 / 8.5), a
	 * metric without samples not in pagealloc's report list */
	expect_fields(r.text, "alloc-odr0-1 cycles/op Min", "alloc-odr0-1 cycles/op Min 10.00 -2.00 -20.00%");
	expect_fields(r.text, "alloc-odr0-1 cycles/op Amean", "alloc-odr0-1 cycles/op Amean 12.00 -3.50 -29.17%");
	assert_null(strstr(r.text, "\ntime "));
	/* JSON: null percentage where the baseline is 0 */
	assert_non_null(strstr(r.json, "\"function\": \"h\", \"group\": \"it=new\", "
			       "\"layout_baseline\": \"absent\", \"layout\": \"out of line\", "
			       "\"self_baseline\": 0, \"self\": 1, \"self_delta\": 1, "
			       "\"self_delta_pct\": null"));
	assert_non_null(strstr(r.json, "\"per\": \"operation\""));
	out_free(&r);
}

static void test_metrics_globs_and_baseline(void **state)
{
	struct out r = run_diff(*state, (struct diff_opts){.metrics = "time"}, NULL, 0, NULL, 0,
				"new");
	assert_int_equal(r.rc, NS_OK);
	assert_non_null(strstr(r.text, "# [0] it=new  (baseline;"));
	/* one value per run: new 9; old 7 (run 3 has none) */
	expect_fields(r.text, "time s Min", "time s Min 9.00 -2.00 -22.22%");
	assert_null(strstr(r.text, "alloc-odr0-1 "));
	out_free(&r);
}

static void test_runs_and_per_run(void **state)
{
	sqlite3 *db = *state;
	const int64_t runs[2] = {1, 2};
	struct out r = run_diff(db, (struct diff_opts){0}, runs, 2, NULL, 0, NULL);
	assert_int_equal(r.rc, NS_OK);
	assert_non_null(strstr(r.text, "# [0] run 1  (baseline; 1 run, 10 operations)"));
	expect_fields(r.text, "f", "f oo 4.00 -1.00 -25.00% 10.00 +0.00 +0.00% 1.000 +0.000 +0.00%");
	out_free(&r);
	/* a run without a count of operations: every figure per run */
	assert_int_equal(sqlite3_exec(db, "UPDATE metrics SET name = 'allocs.x' WHERE run_id = 2 "
				      "AND name = 'allocs'", NULL, NULL, NULL), SQLITE_OK);
	r = run_diff(db, (struct diff_opts){0}, runs, 2, NULL, 0, NULL);
	assert_int_equal(r.rc, NS_OK);
	assert_non_null(strstr(r.text, "# Functions per run"));
	expect_fields(r.text, "f", "f oo 40.00 +20.00 +50.00% 100.00 +100.00 +100.00% 10.000 +10.000 +100.00%");
	assert_non_null(strstr(r.json, "\"per\": \"run\""));
	out_free(&r);
	assert_int_equal(sqlite3_exec(db, "UPDATE metrics SET name = 'allocs' WHERE name = "
				      "'allocs.x'", NULL, NULL, NULL), SQLITE_OK);
	/* a failed run may be named */
	const int64_t failed[2] = {1, 4};
	r = run_diff(db, (struct diff_opts){0}, failed, 2, NULL, 0, NULL);
	assert_int_equal(r.rc, NS_OK);
	out_free(&r);
}

static void test_groups(void **state)
{
	sqlite3 *db = *state;
	struct diag d;
	struct diff *df = NULL;
	struct diff_opts o = {.by = "k"};
	diag_init(&d);
	assert_int_equal(diff_new(&o, "test", &d, &df), NS_OK);
	assert_int_equal(diff_add_key(df, 0, db, "db"), NS_OK);
	assert_int_equal(diff_nr_groups(df), 3);
	assert_string_equal(diff_group_label(df, 0), "a");
	assert_string_equal(diff_group_label(df, 1), "c");   /* point 0 before point 1 */
	assert_int_equal(diff_group_find(df, "b"), 2);
	assert_int_equal(diff_group_find(df, "x"), -1);
	const char *sel[2] = {"b", "a"};
	assert_int_equal(diff_select(df, sel, 2), NS_OK);
	assert_int_equal(diff_nr_groups(df), 2);
	assert_string_equal(diff_group_label(df, 0), "b");
	assert_int_equal(diff_check(df), NS_OK);
	const char *twice[2] = {"a", "a"};
	assert_int_equal(diff_select(df, twice, 2), NS_EINPUT);
	assert_non_null(strstr(d.msg, "named twice"));
	diff_free(df);
	/* short variant names; a database as one group */
	diag_init(&d);
	o = (struct diff_opts){0};
	assert_int_equal(diff_new(&o, "test", &d, &df), NS_OK);
	assert_int_equal(diff_add_key(df, 0, db, "db"), NS_OK);
	assert_int_equal(diff_group_find(df, "new"), 1);
	assert_int_equal(diff_group_find(df, "it=old"), 0);
	assert_int_equal(diff_set_baseline(df, "nothing"), NS_EINPUT);
	assert_non_null(strstr(d.msg, "unknown baseline 'nothing'"));
	diff_free(df);
	diag_init(&d);
	assert_int_equal(diff_new(&o, "test", &d, &df), NS_OK);
	assert_int_equal(diff_add_all(df, 0, db, "db", "first"), NS_OK);
	assert_int_equal(diff_add_all(df, 1, db, "db", "second"), NS_OK);
	assert_int_equal(diff_nr_groups(df), 2);
	assert_int_equal(diff_load(df, 0, db, "db"), NS_OK);
	assert_int_equal(diff_load(df, 1, db, "db"), NS_OK);
	assert_int_equal(diff_compute(df), NS_OK);
	diff_free(df);
}

static void test_errors(void **state)
{
	sqlite3 *db = *state;
	const int64_t one[1] = {1}, missing[2] = {1, 9};
	struct out r = run_diff(db, (struct diff_opts){0}, one, 1, NULL, 0, NULL);
	assert_int_equal(r.rc, NS_EINPUT);
	assert_non_null(strstr(r.text, "only one group to compare"));
	out_free(&r);
	r = run_diff(db, (struct diff_opts){0}, missing, 2, NULL, 0, NULL);
	assert_int_equal(r.rc, NS_EINPUT);
	assert_non_null(strstr(r.text, "no run 9 (the run ids are 1 to 4"));
	out_free(&r);
	r = run_diff(db, (struct diff_opts){.by = "nokey"}, NULL, 0, NULL, 0, NULL);
	assert_int_equal(r.rc, NS_EINPUT);
	assert_non_null(strstr(r.text, "unknown key 'nokey'"));
	out_free(&r);
	const char *w[1] = {"variant=none"};
	r = run_diff(db, (struct diff_opts){.where = w, .nr_where = 1}, NULL, 0, NULL, 0, NULL);
	assert_int_equal(r.rc, NS_EINPUT);
	assert_non_null(strstr(r.text, "nothing to compare"));
	out_free(&r);
	/* cells of the wrong type or sign, each named with its run and row */
	static const char *const edit[][3] = {
		{"UPDATE profile SET calls = NULL WHERE run_id = 2 AND function = 'f'",
		 "UPDATE profile SET calls = 20 WHERE run_id = 2 AND function = 'f'",
		 "run 2: profile row 'f': calls is NULL"},
		{"UPDATE profile SET self_cycles = 'x' WHERE run_id = 1 AND function = 'g'",
		 "UPDATE profile SET self_cycles = 400 WHERE run_id = 1 AND function = 'g'",
		 "run 1: profile row 'g': self_cycles is not an integer"},
		{"UPDATE branches SET executed = -1 WHERE run_id = 2 AND site = 'S2'",
		 "UPDATE branches SET executed = 60 WHERE run_id = 2 AND site = 'S2'",
		 "run 2: branches row 'S2': executed is negative"},
		{"UPDATE profile SET function = NULL WHERE run_id = 2 AND function = 'h'",
		 "UPDATE profile SET function = 'h' WHERE run_id = 2 AND function IS NULL",
		 "run 2: profile row '?': function is NULL"},
		{"UPDATE samples SET value = 'x' WHERE run_id = 2 AND idx = 1",
		 "UPDATE samples SET value = 9 WHERE run_id = 2 AND idx = 1",
		 "run 2: metrics or samples row 'alloc-odr0-1': value is not a number"},
		{"UPDATE metrics SET value = 'many' WHERE run_id = 2 AND name = 'allocs'",
		 "UPDATE metrics SET value = 20 WHERE run_id = 2 AND name = 'allocs'",
		 "run 2: metrics row 'allocs': value is not a number"},
	};
	for (size_t i = 0; i < sizeof edit / sizeof edit[0]; i++) {
		assert_int_equal(sqlite3_exec(db, edit[i][0], NULL, NULL, NULL), SQLITE_OK);
		r = run_diff(db, (struct diff_opts){0}, NULL, 0, NULL, 0, NULL);
		assert_int_equal(r.rc, NS_EINPUT);
		if (!strstr(r.text, edit[i][2]))
			fail_msg("edit %zu: '%s' does not say '%s'", i, r.text, edit[i][2]);
		out_free(&r);
		assert_int_equal(sqlite3_exec(db, edit[i][1], NULL, NULL, NULL), SQLITE_OK);
	}
	r = run_diff(db, (struct diff_opts){0}, NULL, 0, NULL, 0, NULL);
	assert_int_equal(r.rc, NS_OK);
	out_free(&r);
}

static void test_html_escaped(void **state)
{
	sqlite3 *db = *state;
	assert_int_equal(sqlite3_exec(db, "UPDATE profile SET function = '<script>&' WHERE "
				      "function = 'h'", NULL, NULL, NULL), SQLITE_OK);
	struct out r = run_diff(db, (struct diff_opts){0}, NULL, 0, NULL, 0, NULL);
	assert_int_equal(r.rc, NS_OK);
	assert_null(strstr(r.html, "<script"));
	assert_non_null(strstr(r.html, "<td>&lt;script&gt;&amp;</td>"));
	assert_non_null(strstr(r.html, "<table class=\"sortable\" id=\"diff-functions\">"));
	out_free(&r);
	assert_int_equal(sqlite3_exec(db, "UPDATE profile SET function = 'h' WHERE "
				      "function = '<script>&'", NULL, NULL, NULL), SQLITE_OK);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_variants),
		cmocka_unit_test(test_metrics_globs_and_baseline),
		cmocka_unit_test(test_runs_and_per_run),
		cmocka_unit_test(test_groups),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_html_escaped),
	};
	return cmocka_run_group_tests(tests, setup, memdb_teardown);
}
