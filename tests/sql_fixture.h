/*
 * sql_fixture — database helpers of the tests that read databases
 * directly (store, store_image, compare, plot, resultset): a one-row query,
 * the cmocka group setup/teardown of an in-memory database built from a
 * schema text, and a results store opened read-write.  Failures are cmocka assertions (a query that does not
 * prepare names itself and SQLite's message); header-only (static inline,
 * so a test that does not use a helper does not warn).
 */
#ifndef NUMASIM_TEST_SQL_FIXTURE_H
#define NUMASIM_TEST_SQL_FIXTURE_H

#include <sqlite3.h>
#include <stdint.h>

#include "base/diag.h"
#include "analysis/store.h"

/* sql prepared on db and stepped to its first row, which must exist;
 * the caller reads the row and finalizes. */
static inline sqlite3_stmt *q_row(sqlite3 *db, const char *sql)
{
	sqlite3_stmt *st = NULL;
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		fail_msg("prepare '%s': %s", sql, sqlite3_errmsg(db));
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	return st;
}

/* The first column of the first row as an integer. */
static inline int64_t q_int(sqlite3 *db, const char *sql)
{
	sqlite3_stmt *st = q_row(db, sql);
	int64_t v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return v;
}

/* Group setup: *state is an in-memory database with sql run on it (-1,
 * which cmocka reports, when either fails). */
static inline int memdb_setup(void **state, const char *sql)
{
	sqlite3 *db;
	if (sqlite3_open(":memory:", &db) != SQLITE_OK ||
	    sqlite3_exec(db, sql, NULL, NULL, NULL) != SQLITE_OK)
		return -1;
	*state = db;
	return 0;
}

static inline int memdb_teardown(void **state)
{
	sqlite3_close(*state);
	return 0;
}

/*
 * The results store at path, opened read-write (it must open).  Its later
 * errors go nowhere (store_set_diag NULL): the open's diag is this
 * function's and ends with it; a test that reads messages opens the store
 * itself with a diag of its own.
 */
static inline struct store *open_rw(const char *path)
{
	struct store *s = NULL;
	struct diag d;
	diag_init(&d);
	if (store_open(path, STORE_RDWR, &s, &d) != NS_OK)
		fail_msg("store_open %s: %s", path, d.msg);
	store_set_diag(s, NULL);
	return s;
}

#endif
