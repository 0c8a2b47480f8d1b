/*
 * Tests for analysis/resultset: the three formats on a fixed result set
 * (numbers right-aligned in the table, NULLs, quoting in CSV, escapes and
 * null in JSON), refusal of writing statements, of several statements and
 * of empty SQL, and the format names.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/diag.h"
#include "analysis/resultset.h"
#include "tests/sql_fixture.h"

static const char rows_sql[] =
	"SELECT * FROM (VALUES (1, 'a,b', 2.5), (22, 'say \"hi\"', NULL), "
	"(3, 'line' || char(10) || 'two', -1e300))";

static char *run(sqlite3 *db, const char *sql, enum resultset_format fmt, int *rc)
{
	char *buf = NULL;
	size_t len = 0;
	struct diag d;
	diag_init(&d);
	FILE *f = open_memstream(&buf, &len);
	*rc = resultset_sql(db, sql, fmt, f, NULL, "test", &d);
	fclose(f);
	return buf;
}

static void test_formats(void **state)
{
	sqlite3 *db = *state;
	int rc;
	char *t = run(db, "SELECT 1 AS n, 'x' AS s, NULL AS z UNION ALL SELECT 100, 'long', 'q'",
		      RESULTSET_TABLE, &rc);
	assert_int_equal(rc, NS_OK);
	assert_string_equal(t, "  n  s     z\n---  ----  -\n  1  x     \n100  long  q\n(2 rows)\n");
	free(t);
	char *c = run(db, rows_sql, RESULTSET_CSV, &rc);
	assert_int_equal(rc, NS_OK);
	assert_string_equal(c, "column1,column2,column3\r\n1,\"a,b\",2.5\r\n"
			       "22,\"say \"\"hi\"\"\",\r\n3,\"line\ntwo\",-1.0000000000000001e+300\r\n");
	free(c);
	char *j = run(db, rows_sql, RESULTSET_JSON, &rc);
	assert_int_equal(rc, NS_OK);
	assert_string_equal(j, "[\n  {\"column1\": 1, \"column2\": \"a,b\", \"column3\": 2.5},\n"
			       "  {\"column1\": 22, \"column2\": \"say \\\"hi\\\"\", \"column3\": null},\n"
			       "  {\"column1\": 3, \"column2\": \"line\\ntwo\", \"column3\": "
			       "-1.0000000000000001e+300}\n]\n");
	free(j);
	char *e = run(db, "SELECT 1 WHERE 0", RESULTSET_JSON, &rc);
	assert_string_equal(e, "[]\n");
	free(e);
}

static void test_refusals(void **state)
{
	sqlite3 *db = *state;
	int rc;
	const char *bad[] = {"DELETE FROM t", "INSERT INTO t VALUES (1)", "DROP TABLE t",
			     "SELECT 1; SELECT 2", "", "  ;  ", "SELEKT 1"};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		char *o = run(db, bad[i], RESULTSET_CSV, &rc);
		assert_int_equal(rc, NS_EINPUT);
		assert_true(!o || !*o);
		free(o);
	}
	char *o = run(db, "SELECT count(*) FROM t;  -- comment\n", RESULTSET_CSV, &rc);
	assert_int_equal(rc, NS_OK);
	assert_string_equal(o, "count(*)\r\n2\r\n");
	free(o);
	enum resultset_format f;
	assert_int_equal(resultset_parse_format("json", &f), NS_OK);
	assert_int_equal(f, RESULTSET_JSON);
	assert_int_equal(resultset_parse_format("xml", &f), NS_EUSAGE);
}

static int setup(void **state)
{
	return memdb_setup(state, "CREATE TABLE t (x); INSERT INTO t VALUES (1), (2)");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_formats),
		cmocka_unit_test(test_refusals),
	};
	return cmocka_run_group_tests(tests, setup, memdb_teardown);
}
