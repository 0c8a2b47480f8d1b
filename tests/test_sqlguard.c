/*
 * Tests for analysis/sqlguard: the lockdown settings are in force after
 * sqlguard_lockdown (read back from SQLite), the allow lists are sorted
 * (sqlguard_check), and under the authorizer a read-only connection
 * prepares what only reads and refuses, with a sentence naming it, every
 * function off the list (fts3_tokenizer, load_extension), every write, a
 * pragma that sets, ATTACH and transactions.
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
	assert_false(prepares(db, "INSERT INTO t VALUES (2, 'y')", "INSERT"));
	assert_false(prepares(db, "DELETE FROM t", "DELETE"));
	assert_false(prepares(db, "UPDATE t SET a = 3", "UPDATE"));
	assert_false(prepares(db, "ATTACH ':memory:' AS x", "ATTACH"));
	assert_false(prepares(db, "BEGIN", "transaction"));
	assert_false(prepares(db, "CREATE TABLE u (a)", "is not allowed"));
	sqlite3_close(db);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lockdown),
		cmocka_unit_test(test_lists_sorted),
		cmocka_unit_test(test_authorizer),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
