/*
 * sqlguard — the locked-down SQLite connection every numasim reader and
 * writer uses (issue 18), and the authorizer of the SQL a user types
 * (`numasim query`, `numasim export --query`).
 *
 * sqlguard_lockdown() is called by store_open() on every connection
 * before any statement runs: SQLITE_DBCONFIG_DEFENSIVE on (no writes to
 * the schema table, no PRAGMA writable_schema, no journal tampering),
 * SQLITE_DBCONFIG_TRUSTED_SCHEMA off (a view or trigger in a file may only
 * call functions marked innocuous), the two-argument fts3_tokenizer() and
 * load_extension() off; json_group_object() is registered as an innocuous
 * copy of SQLite's own, the one function numasim's views call that SQLite
 * 3.40 does not mark innocuous (sqlguard.c).  A database file is input like any other: nothing
 * in it may reach a function that reveals or takes a pointer or loads
 * code.
 *
 * sqlguard_user_sql() installs the authorizer for user SQL on a read-only
 * connection: it allows SELECT, reading any column, recursive CTEs, the
 * functions of SQLite's core, date, math, JSON and window sets that only
 * compute a value (sqlguard.c lists them; not fts3_tokenizer,
 * load_extension or any application or extension function), and the
 * PRAGMAs that only read: one of a list without an argument
 * (`PRAGMA journal_mode`, `PRAGMA user_version`, ...) or the
 * table-describing ones with a name argument (`PRAGMA table_info(runs)`).
 * Everything else (any write, ATTACH, a transaction, a PRAGMA that sets)
 * is denied when the statement is prepared, and the first denial is kept
 * as a sentence for the error message ("function load_extension() is not
 * allowed").  The authorizer is the guard; PRAGMA query_only and the
 * read-only open stay under it.
 *
 * Error policy: sqlguard_lockdown returns NS_OK or NS_EDB (the library
 * refused a setting: the connection must not be used); the authorizer
 * never fails.  No allocation; struct sqlguard belongs to the caller and
 * must outlive the connection's use of it.
 */
#ifndef NUMASIM_SQLGUARD_H
#define NUMASIM_SQLGUARD_H

#include <stddef.h>

#include <sqlite3.h>

#define SQLGUARD_DENIED_MAX 160

struct sqlguard {
	char denied[SQLGUARD_DENIED_MAX]; /* first denial, "" while none */
};

int sqlguard_lockdown(sqlite3 *db);
void sqlguard_user_sql(sqlite3 *db, struct sqlguard *g);
/* The first denial since sqlguard_user_sql ("" when none). */
const char *sqlguard_denied(const struct sqlguard *g);
/* Invariant walker: the allow lists are sorted (the lookup is a bsearch);
 * NS_OK or NS_EINTERNAL. */
int sqlguard_check(void);
/* Is name one of the functions user SQL may call?  (For tests.) */
int sqlguard_function_allowed(const char *name);

#endif
