/*
 * Tests for analysis/compare: on a hand-made database, grouping by
 * variant and by a parameter, observations from samples vs metrics,
 * Min/Amean/Stddev/CoeffVar/Max values and the mmtests sign convention,
 * the Welch p-value against GSL-free reference figures, natural sorting,
 * metric globs, baselines, the errors, and compare_check.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/compare.h"
#include "base/diag.h"
#include "tests/sql_fixture.h"

static const char schema[] =
	"CREATE TABLE runs (run_id INTEGER PRIMARY KEY, status TEXT, point INT, variant TEXT,"
	" kernel_model TEXT, workload TEXT, machine TEXT, repetition INT, seed INT,"
	" invocation TEXT DEFAULT 'i1', scenario_sha256 TEXT DEFAULT 's1',"
	" machine_sha256 TEXT DEFAULT 'm1', tool_version TEXT DEFAULT '1');"
	"CREATE TABLE params (run_id INT, key TEXT, value ANY);"
	"CREATE TABLE metrics (run_id INT, name TEXT, value REAL, unit TEXT);"
	"CREATE TABLE samples (run_id INT, metric TEXT, idx INT, value REAL);"
	"INSERT INTO runs (run_id, status, point, variant, kernel_model, workload, machine,"
	" repetition, seed) VALUES (1, 'ok', 0, 'it=old', 'v1', 'w', 'm', 0, 7),"
	" (2, 'ok', 1, 'it=new', 'v1+p', 'w', 'm', 0, 7), (3, 'ok', 0, 'it=old', 'v1', 'w', 'm', 1, 8),"
	" (4, 'ok', 1, 'it=new', 'v1+p', 'w', 'm', 1, 8),"
	" (5, 'failed', 1, 'it=new', 'v1+p', 'w', 'm', 2, 9);"
	"INSERT INTO params VALUES (1, 'policy.mempolicy', 'bind'), (2, 'policy.mempolicy', 'bind'),"
	" (3, 'policy.mempolicy', 'local'), (4, 'policy.mempolicy', 'local');"
	/* time: old 10, 12 ; new 8, 9 ; ops/s old 100, 100 new 110, 130 */
	"INSERT INTO metrics VALUES (1, 'time', 10, 's'), (3, 'time', 12, 's'),"
	" (2, 'time', 8, 's'), (4, 'time', 9, 's'), (5, 'time', 1, 's'),"
	" (1, 'rate', 100, 'ops/s'), (3, 'rate', 100, 'ops/s'), (2, 'rate', 110, 'ops/s'),"
	" (4, 'rate', 130, 'ops/s'), (1, 'x-10', 99, 'cycles/op'), (2, 'x-10', 99, 'cycles/op'),"
	/* det: the same value in every run of a group (a deterministic model) */
	" (1, 'det', 5, 'cycles'), (3, 'det', 5, 'cycles'), (2, 'det', 7, 'cycles'),"
	" (4, 'det', 7, 'cycles');"
	"INSERT INTO samples VALUES (1, 'x-10', 0, 4), (1, 'x-10', 1, 6), (2, 'x-10', 0, 2),"
	" (2, 'x-10', 1, 2), (1, 'x-2', 0, 1), (1, 'x-2', 1, 1), (2, 'x-2', 0, 1), (2, 'x-2', 1, 1);";

static char *cmp(sqlite3 *db, struct compare_opts o, int *rc, struct diag *d)
{
	struct compare *c = NULL;
	char *buf = NULL;
	size_t len = 0;
	diag_init(d);
	*rc = compare_new(&o, "test", d, &c);
	if (*rc == NS_OK)
		*rc = compare_load(c, db, "db");
	FILE *f = open_memstream(&buf, &len);
	if (*rc == NS_OK)
		*rc = compare_print(c, f);
	if (c)
		assert_int_equal(compare_check(c), NS_OK);
	fclose(f);
	compare_free(c);
	return buf;
}

static const char *line(const char *out, const char *prefix)
{
	const char *p = out;
	while (p && *p) {
		if (!strncmp(p, prefix, strlen(prefix)))
			return p;
		p = strchr(p, '\n');
		p = p ? p + 1 : NULL;
	}
	fail_msg("no line '%s' in:\n%s", prefix, out);
	return NULL;
}

/* The line starting with prefix contains want. */
static void expect_in(const char *out, const char *prefix, const char *want)
{
	const char *l = line(out, prefix);
	const char *e = strchr(l, '\n');
	size_t n = e ? (size_t)(e - l) : strlen(l);
	char buf[512];
	snprintf(buf, sizeof buf, "%.*s", (int)n, l);
	if (!strstr(buf, want))
		fail_msg("line '%s' lacks '%s'", buf, want);
}

static void test_table(void **state)
{
	sqlite3 *db = *state;
	struct diag d;
	int rc;
	char *o = cmp(db, (struct compare_opts){.by = "variant"}, &rc, &d);
	assert_int_equal(rc, NS_OK);
	/* header: kernel models, then the short variants */
	assert_non_null(strstr(o, "v1                       v1+p\n"));
	assert_non_null(strstr(o, "old                        new\n"));
	/* time: lower is better -> new is 23.64 % better; failed run 5 ignored */
	expect_in(o, "Amean     time", "11.00 (  0.00%)             8.50 ( 22.73%)");
	expect_in(o, "Min       time", "10.00 (  0.00%)             8.00 ( 20.00%)");
	/* ops/s: higher is positive */
	expect_in(o, "Amean     rate", "( 20.00%)");
	expect_in(o, "Stddev    rate", "0.00");
	/* x-10 comes from the samples (4, 6 vs 2, 2), not the metric 99 */
	expect_in(o, "Amean     x-10", "5.000 (  0.00%)            2.000 ( 60.00%)");
	expect_in(o, "Max       x-10", "6.000 (");
	expect_in(o, "CoeffVar  x-10", "28.28");
	/* natural order: x-2 before x-10 */
	assert_true(line(o, "Min       x-2") < line(o, "Min       x-10"));
	/* Welch over runs: time old (10, 12) vs new (8, 9): t = -2.5/sqrt(2.5/2 + 0.5/2) */
	expect_in(o, "Diff      time", "p=0.1");
	/* every run of each group gave the same value: exact, no p-value */
	expect_in(o, "Diff      det", "exact                 +2.000");
	assert_non_null(strstr(o, "exact, deterministic: identical across seeds"));
	/* x-2: one run per group (its two samples are not two runs): no test */
	expect_in(o, "Diff      x-2", "1 run                 +0.000");
	/* x-10: 4, 6 vs 2, 2 would be a test over samples; over runs it is
	 * one value per run, 5 vs 2 */
	expect_in(o, "Diff      x-10", "1 run                 -3.000");
	/* Hmean = 2 / (1/4 + 1/6) = 4.8; BAmean-50 the best (lowest) half */
	expect_in(o, "Hmean     x-10", "4.800 (  0.00%)            2.000 ( 58.33%)");
	expect_in(o, "BAmean-50 x-10", "4.000 (  0.00%)            2.000 ( 50.00%)");
	/* ops/s: higher is better, so the best half is the highest */
	assert_true(line(o, "BAmean-99 rate") > line(o, "BAmean-50 rate"));
	free(o);
}

static void test_options(void **state)
{
	sqlite3 *db = *state;
	struct diag d;
	int rc;
	const char *w[] = {"policy.mempolicy=bind"};
	char *o = cmp(db, (struct compare_opts){.by = "policy.mempolicy", .metrics = "time,rate,!rate"},
		      &rc, &d);
	assert_int_equal(rc, NS_OK);
	assert_non_null(strstr(o, "bind                      local\n"));
	assert_null(strstr(o, "rate"));
	expect_in(o, "Amean     time", "9.00 (  0.00%)            10.50 (-16.67%)");
	free(o);
	o = cmp(db, (struct compare_opts){.by = "variant", .metrics = "time", .where = w,
					  .nr_where = 1, .baseline = "new", .rows = COMPARE_ROW_MIN},
		&rc, &d);
	assert_int_equal(rc, NS_OK);
	/* the baseline's column comes first (mmtests) */
	expect_in(o, "Min      time", " 8.00 (  0.00%)            10.00 (-25.00%)");
	assert_null(strstr(o, "Amean"));
	expect_in(o, "Diff     time", "1 run     +2.00");
	free(o);
	struct { struct compare_opts o; const char *msg; } bad[] = {
		{{.by = "nosuch"}, "unknown key 'nosuch'"},
		{{.metrics = "zz*"}, "no metric matches zz*"},
		{{.baseline = "zz"}, "unknown baseline 'zz'"},
		{{.where = (const char *[]){"machine=none"}, .nr_where = 1}, "no runs"},
		{{.where = (const char *[]){"=x"}, .nr_where = 1}, "KEY=VALUE"},
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		o = cmp(db, bad[i].o, &rc, &d);
		assert_int_equal(rc, NS_EINPUT);
		assert_true(!o || !*o);
		if (!strstr(d.msg, bad[i].msg))
			fail_msg("'%s' lacks '%s'", d.msg, bad[i].msg);
		free(o);
	}
}

static void test_seed_style(void **state)
{
	sqlite3 *db = *state;
	struct diag d;
	int rc;
	char *o = cmp(db, (struct compare_opts){.by = "variant", .metrics = "time",
						.seed_style = 1}, &rc, &d);
	assert_int_equal(rc, NS_OK);
	expect_in(o, "# time", "# time [s] (seed format)");
	expect_in(o, "max.", "12.0000");
	expect_in(o, "min.", " 8.0000");
	expect_in(o, "avg.", "11.0000");
	expect_in(o, "stdev.", "1.4142");
	expect_in(o, "n ", "2");
	/* old - new = 11 - 8.5 */
	expect_in(o, "it=old - it=new:", "diff +2.5, Welch t = 2.236, df = 1.5, p = 0.");
	expect_in(o, "it=old - it=new:", "not significant at 5%");
	assert_null(strstr(o, "Amean"));
	free(o);
}

/* No --by: the columns are what differs between the runs, the variant and
 * policy.mempolicy here (bind in runs 1, 2; local in 3, 4). */
static void test_differs(void **state)
{
	sqlite3 *db = *state;
	struct diag d;
	int rc;
	char *o = cmp(db, (struct compare_opts){.metrics = "time", .rows = COMPARE_ROW_MIN},
		      &rc, &d);
	assert_int_equal(rc, NS_OK);
	if (!strstr(o, "old,mempolicy=bind") || !strstr(o, "old,mempolicy=local") ||
	    !strstr(o, "new,mempolicy=bind") || !strstr(o, "new,mempolicy=local"))
		fail_msg("heads lack the differing key:\n%s", o);
	expect_in(o, "Min      time", "10.00 (  0.00%)");
	free(o);
	/* with mempolicy fixed, only the variant differs: two columns */
	const char *w[] = {"policy.mempolicy=local"};
	o = cmp(db, (struct compare_opts){.metrics = "time", .where = w, .nr_where = 1,
					  .rows = COMPARE_ROW_MIN}, &rc, &d);
	assert_int_equal(rc, NS_OK);
	assert_null(strstr(o, "mempolicy"));
	expect_in(o, "Min      time", "12.00 (  0.00%)             9.00 ( 25.00%)");
	free(o);
}

/* The same run of one plan stored by two invocations: refused, unless
 * pooled on purpose. */
static void test_duplicates(void **state)
{
	sqlite3 *db = *state;
	struct diag d;
	int rc;
	assert_int_equal(sqlite3_exec(db, "INSERT INTO runs (run_id, status, point, variant, "
				      "kernel_model, workload, machine, repetition, seed, "
				      "invocation) VALUES (6, 'ok', 0, 'it=old', 'v1', 'w', 'm', "
				      "0, 7, 'i2'); INSERT INTO metrics VALUES (6, 'time', 10, 's');"
				      "INSERT INTO params VALUES (6, 'policy.mempolicy', 'bind');",
				      NULL, NULL, NULL), SQLITE_OK);
	char *o = cmp(db, (struct compare_opts){.by = "variant", .metrics = "time"}, &rc, &d);
	assert_int_equal(rc, NS_EINPUT);
	assert_true(!o || !*o);
	if (!strstr(d.msg, "runs 1 and 6 are the same run") || !strstr(d.msg, "--pool"))
		fail_msg("message: %s", d.msg);
	free(o);
	o = cmp(db, (struct compare_opts){.by = "variant", .metrics = "time", .pool = 1,
					  .rows = COMPARE_ROW_AMEAN}, &rc, &d);
	assert_int_equal(rc, NS_OK);
	/* old pools 10, 12 and the copy 10 */
	expect_in(o, "Amean    time", "10.67 (  0.00%)");
	free(o);
	assert_int_equal(sqlite3_exec(db, "DELETE FROM runs WHERE run_id = 6; DELETE FROM "
				      "metrics WHERE run_id = 6; DELETE FROM params WHERE "
				      "run_id = 6;", NULL, NULL, NULL), SQLITE_OK);
}

/* One database given twice: every run is there twice. */
static void test_two_databases(void **state)
{
	sqlite3 *db = *state;
	struct diag d;
	struct compare *c = NULL;
	struct compare_opts o = {.by = "variant", .metrics = "time"};
	diag_init(&d);
	assert_int_equal(compare_new(&o, "test", &d, &c), NS_OK);
	assert_int_equal(compare_load(c, db, "a.db"), NS_OK);
	assert_int_equal(compare_load(c, db, "b.db"), NS_EINPUT);
	assert_true(compare_pool_refused(c));
	if (!strstr(d.msg, "run 1 is the same run of one plan as run 1 of a.db"))
		fail_msg("message: %s", d.msg);
	compare_free(c);
	o.pool = 1;
	diag_init(&d);
	assert_int_equal(compare_new(&o, "test", &d, &c), NS_OK);
	assert_int_equal(compare_load(c, db, "a.db"), NS_OK);
	assert_int_equal(compare_load(c, db, "b.db"), NS_OK);
	assert_false(compare_pool_refused(c));
	assert_int_equal(compare_check(c), NS_OK);
	compare_free(c);
}

static void test_helpers(void **state)
{
	(void)state;
	assert_true(compare_natural("a-2", "a-10") < 0);
	assert_true(compare_natural("a-10", "a-10.min") < 0);
	assert_true(compare_natural("a-010", "a-10") == 0);
	assert_true(compare_natural("b", "a-1") > 0);
	assert_true(compare_metric_selected(NULL, "x"));
	assert_true(compare_metric_selected("a*,!*.min", "a-1"));
	assert_false(compare_metric_selected("a*,!*.min", "a-1.min"));
	assert_true(compare_metric_selected("!*.min", "b"));
	assert_false(compare_metric_selected("a*", "b"));
	assert_true(compare_lower_is_better("cycles/op"));
	assert_true(compare_lower_is_better("s"));
	assert_false(compare_lower_is_better("ops/s"));
	assert_false(compare_lower_is_better(NULL));
	assert_true(compare_key_is_column("variant"));
	assert_false(compare_key_is_column("variant; DROP TABLE runs"));
}

static int setup(void **state)
{
	return memdb_setup(state, schema);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_options),
		cmocka_unit_test(test_seed_style),
		cmocka_unit_test(test_differs),
		cmocka_unit_test(test_duplicates),
		cmocka_unit_test(test_two_databases),
		cmocka_unit_test(test_helpers),
	};
	return cmocka_run_group_tests(tests, setup, memdb_teardown);
}
