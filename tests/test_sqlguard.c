/*
 * Tests for analysis/sqlguard: the lockdown settings are in force after
 * sqlguard_lockdown (read back from SQLite), the allow lists are sorted
 * (sqlguard_check), and under the authorizer a read-only connection
 * prepares what only reads and refuses, with a sentence naming it, every
 * function off the list (fts3_tokenizer, load_extension), every write, a
 * pragma that sets, ATTACH and transactions; the innocuous
 * json_group_object gives SQLite's own result byte for byte.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/sqlguard.h"
#include "base/diag.h"

static sqlite3 *open_db(void)
{
	sqlite3 *db = NULL;
	assert_int_equal(sqlite3_open(":memory:", &db), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db, "CREATE TABLE t (a INTEGER, b TEXT); "
				      "INSERT INTO t VALUES (1, 'x')", NULL, NULL, NULL),
			 SQLITE_OK);
	return db;
}

static int setting(sqlite3 *db, int op)
{
	int v = -1;
	assert_int_equal(sqlite3_db_config(db, op, -1, &v), SQLITE_OK);
	return v;
}

static void test_lockdown(void **state)
{
	(void)state;
	sqlite3 *db = open_db();
	assert_int_equal(sqlguard_lockdown(db), NS_OK);
	assert_int_equal(setting(db, SQLITE_DBCONFIG_DEFENSIVE), 1);
	assert_int_equal(setting(db, SQLITE_DBCONFIG_TRUSTED_SCHEMA), 0);
	assert_int_equal(setting(db, SQLITE_DBCONFIG_ENABLE_FTS3_TOKENIZER), 0);
	assert_int_equal(setting(db, SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION), 0);
	/* defensive: the schema cannot be made writable */
	assert_int_equal(sqlite3_exec(db, "PRAGMA writable_schema = ON; UPDATE "
				      "sqlite_schema SET sql = 'x'", NULL, NULL, NULL) != SQLITE_OK, 1);
	sqlite3_close(db);
}

static void test_lists_sorted(void **state)
{
	(void)state;
	assert_int_equal(sqlguard_check(), NS_OK);
	assert_true(sqlguard_function_allowed("sqrt"));
	assert_true(sqlguard_function_allowed("GROUP_CONCAT"));
	assert_false(sqlguard_function_allowed("fts3_tokenizer"));
	assert_false(sqlguard_function_allowed("load_extension"));
	assert_false(sqlguard_function_allowed("readfile"));
	assert_false(sqlguard_function_allowed(NULL));
}

/* Prepare sql under the authorizer: 1 allowed, 0 refused (denied then
 * holds a sentence containing want). */
static int prepares(sqlite3 *db, const char *sql, const char *want)
{
	struct sqlguard g;
	sqlite3_stmt *st = NULL;
	sqlguard_user_sql(db, &g);
	int rc = sqlite3_prepare_v2(db, sql, -1, &st, NULL);
	sqlite3_finalize(st);
	sqlite3_set_authorizer(db, NULL, NULL);
	if (rc == SQLITE_OK) {
		assert_string_equal(sqlguard_denied(&g), "");
		return 1;
	}
	/* SQLITE_AUTH or, for some actions, SQLITE_ERROR "not authorized" */
	assert_int_not_equal(rc, SQLITE_OK);
	if (!strstr(sqlguard_denied(&g), want))
		fail_msg("'%s': denial '%s' lacks '%s'", sql, sqlguard_denied(&g), want);
	return 0;
}

static void test_authorizer(void **state)
{
	(void)state;
	sqlite3 *db = open_db();
	assert_int_equal(sqlguard_lockdown(db), NS_OK);
	assert_true(prepares(db, "SELECT a, upper(b), count(*) OVER () FROM t", ""));
	assert_true(prepares(db, "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 "
			     "FROM c WHERE x < 3) SELECT x FROM c", ""));
	assert_true(prepares(db, "PRAGMA journal_mode", ""));
	assert_true(prepares(db, "PRAGMA table_info(t)", ""));
	assert_true(prepares(db, "SELECT * FROM pragma_table_info('t')", ""));
	assert_false(prepares(db, "SELECT fts3_tokenizer('simple')", "function fts3_tokenizer()"));
	assert_false(prepares(db, "SELECT load_extension('x')", "function load_extension()"));
	assert_false(prepares(db, "PRAGMA journal_mode = delete", "PRAGMA journal_mode = delete"));
	assert_false(prepares(db, "PRAGMA query_only = 0", "PRAGMA query_only = 0"));
	assert_false(prepares(db, "PRAGMA writable_schema", "PRAGMA writable_schema"));
	assert_false(prepares(db, "INSERT INTO t VALUES (2, 'y')", "INSERT writes"));
	assert_false(prepares(db, "DELETE FROM t", "DELETE"));
	assert_false(prepares(db, "UPDATE t SET a = 3", "UPDATE"));
	assert_false(prepares(db, "ATTACH ':memory:' AS x", "ATTACH"));
	assert_false(prepares(db, "BEGIN", "a transaction is not allowed"));
	assert_false(prepares(db, "CREATE TABLE u (a)", "writes"));
	sqlite3_close(db);
}

/* One text result of sql on db. */
static char *one(sqlite3 *db, const char *sql)
{
	sqlite3_stmt *st = NULL;
	assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	const char *t = (const char *)sqlite3_column_text(st, 0);
	char *r = strdup(t ? t : "(null)");
	sqlite3_finalize(st);
	return r;
}

/* The innocuous json_group_object of the lockdown gives SQLite's own
 * result, byte for byte, for every kind of value and awkward text. */
static void test_json_group_object_same(void **state)
{
	(void)state;
	static const char setup[] =
		"CREATE TABLE p (k TEXT, v ANY); INSERT INTO p VALUES "
		"('int', 42), ('neg', -7), ('real', 0.1), ('big', 1e300), ('tiny', 5e-324), "
		"('text', 'a b'), ('quote', 'say \"hi\" \\ back'), ('ctl', char(1, 8, 9, 10, 12, 13, 31)), "
		"('utf8', 'z\u00fcrich'), ('null', NULL), ('json', json('[1,2]')), "
		"('key \"q\"', 1)";
	static const char *const queries[] = {
		"SELECT json_group_object(k, v) FROM p",
		"SELECT json_group_object(k, v) FROM p WHERE k = 'none'",
		"SELECT coalesce(json_group_object(k, v) FILTER (WHERE k IS NULL), '{}') FROM p",
		"SELECT json_group_object(k, json(v)) FROM p WHERE k = 'json'",
		"SELECT json_extract(json_group_object(k, v), '$.int') FROM p",
	};
	sqlite3 *plain = NULL, *locked = NULL;
	assert_int_equal(sqlite3_open(":memory:", &plain), SQLITE_OK);
	assert_int_equal(sqlite3_open(":memory:", &locked), SQLITE_OK);
	assert_int_equal(sqlguard_lockdown(locked), NS_OK);
	assert_int_equal(sqlite3_exec(plain, setup, NULL, NULL, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_exec(locked, setup, NULL, NULL, NULL), SQLITE_OK);
	for (size_t i = 0; i < sizeof queries / sizeof *queries; i++) {
		char *a = one(plain, queries[i]), *b = one(locked, queries[i]);
		assert_string_equal(a, b);
		free(a);
		free(b);
	}
	/* and it may be used in a view of an untrusted schema */
	assert_int_equal(sqlite3_exec(locked, "CREATE VIEW pj AS SELECT json_group_object(k, v) "
				      "AS j FROM p", NULL, NULL, NULL), SQLITE_OK);
	char *j = one(locked, "SELECT j FROM pj");
	assert_non_null(strstr(j, "\"int\":42"));
	free(j);
	sqlite3_close(plain);
	sqlite3_close(locked);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lockdown),
		cmocka_unit_test(test_lists_sorted),
		cmocka_unit_test(test_authorizer),
		cmocka_unit_test(test_json_group_object_same),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
