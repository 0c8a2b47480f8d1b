/*
 * store — the SQLite results database numasim writes its runs to
 * (docs/reference/schema.md is the reference of the tables, views and units):
 * opening a file, its identity (application_id, schema version) and the
 * migrations of older ones, closing, and the invariant walker.  Not a
 * kernel model.  The runs and their rows are analysis/store_run.h, which
 * this header includes, so callers include this one.  The schema is SQL
 * in analysis/schema/vN.sql (migration N - 1 -> N), embedded at build
 * time (scripts/sql2c.py).
 *
 * Opening (store_open): a missing or empty file gets the current schema
 * (read-write mode only); a numasim database of the current version is
 * used as is; anything else is refused with NS_EINPUT and "FILE: error:
 * not a numasim results database" (a file that is not SQLite, a SQLite file
 * with another application_id or with unrelated tables) or "database schema
 * version N is newer than this numasim supports (M); upgrade numasim".  A
 * refused file is never modified.  Every connection is locked down first
 * (analysis/sqlguard.h: defensive, untrusted schema, no fts3_tokenizer or
 * extension loading).  Read-write mode refuses a damaged file (PRAGMA
 * quick_check fails) with NS_EINPUT "damaged database: PRAGMA quick_check
 * says '...'" before anything is written.  Read-write mode first checks that the
 * file (or, for a new one, its directory) is writable and that the
 * directory can take the -wal/-shm files: "cannot create database:
 * Permission denied" / "cannot write the database: ..." with the errno's
 * status (ns_status_from_errno: exit 2).  Read-only mode (for the query
 * and report commands) creates and writes nothing: a file closed cleanly
 * (WAL header, no -wal or an empty one) is opened immutable=1, a file
 * with a live or left-over -wal is opened mode=ro and uses its -shm (only
 * if that is missing and the directory is writable does SQLite create
 * it); a -wal with content whose -shm cannot be created is refused with
 * NS_EINPUT rather than read without the log's runs.  It refuses a
 * missing file with NS_ENOENT; it accepts files of older schema versions whose later
 * migrations only add views (from version 1 on) and creates those views
 * as TEMP views of the connection, so the v_* query views (docs/reference/schema.md)
 * exist on every connection.
 *
 * Schema check (both modes, unless STORE_TRUST_SCHEMA): the file's
 * sqlite_schema is compared with what numasim's own migrations create for
 * its version.  A writer refuses, with NS_EINPUT before its first write,
 * any object numasim did not create in that form: a trigger (it would fire
 * on numasim's inserts), a changed table or view, an extra table, view,
 * index or virtual table.  A reader refuses only an object with one of
 * numasim's names whose definition differs (a redefined view would feed it
 * other rows); objects of other names it never reads are left alone.
 *
 * Invariants (store_check): application_id == STORE_APPLICATION_ID and
 * user_version == MAX(schema_version.version) == STORE_SCHEMA_VERSION (an
 * older version only on read-only connections); the v_* views exist, in
 * the schema or as TEMP views, and no TEMP object shadows the schema's;
 * journal_mode is WAL (an immutable reader sees "delete"; its file's
 * header says WAL) and foreign keys are enforced; read-write stores have
 * the run statements prepared, read-only ones none; and the invariants of
 * the runs (analysis/store_run.h).
 *
 * Error policy: every function returns an NS_* status.  The struct diag
 * given to store_open() receives the first error of the open and of every
 * later call on the store (first error wins), as "FILE: error: message"
 * with FILE the database path.  NS_EINPUT/NS_ENOENT: the file is not
 * usable (exit 2); NS_EDB: SQLite failed (I/O, lock timeout, constraint);
 * NS_EINTERNAL: API misuse (a row for a run that is not open, a NULL or
 * malformed argument); NS_ERANGE: a value SQLite cannot hold (a uint64
 * above INT64_MAX).  An error while a run is being written rolls that run
 * back: the run is gone and later rows for it fail with NS_EINTERNAL.
 *
 * A store is used by one thread at a time; runs that execute in parallel
 * each open their own store (SQLite serialises the writers; readers never
 * block in WAL mode).
 */
#ifndef NUMASIM_STORE_H
#define NUMASIM_STORE_H

#include <stddef.h>
#include <stdint.h>

#include <sqlite3.h>

#include "base/diag.h"
/* The runs and their rows: part of the store's API, declared there. */
#include "analysis/store_run.h"

/* Bump on every schema change; see "Versioning" in docs/reference/schema.md. */
#define STORE_SCHEMA_VERSION 5
/* PRAGMA application_id of numasim databases: "NSIM" in ASCII. */
#define STORE_APPLICATION_ID 0x4E53494D
/* How long a writer waits for another process's write lock. */
#define STORE_BUSY_TIMEOUT_MS 10000

enum store_open_flags {
	STORE_RDWR = 0,   /* read-write; creates the file and schema if needed */
	STORE_RDONLY = 1, /* read-only: never creates or modifies the file */
	STORE_TRUST_SCHEMA = 2, /* skip the schema check (--trust-db) */
};

enum store_check_flags {
	STORE_CHECK_DATA = 1, /* also walk the data: foreign_key_check,
				 quick_check, no committed 'running' runs */
};

/* A reading connection's limits (store_open in STORE_RDONLY mode sets the
 * default time limit; store_set_timeout changes it): a statement still
 * running after the time limit is stopped, SQLite may hold at most
 * STORE_READ_HEAP_LIMIT bytes of heap (sqlite3_hard_heap_limit64, for the
 * process) and make no string or blob longer than STORE_READ_MAX_LENGTH.
 * store_read_status() then says which limit stopped the read (NS_EDB, exit
 * 1): "time limit of N s reached (--timeout)", "memory limit of N MiB
 * reached", "a value longer than N bytes".  A database's views and a user's
 * query cannot hang a reader or take the host's memory. */
#define STORE_READ_TIMEOUT_S 60.0
#define STORE_READ_HEAP_LIMIT ((int64_t)1 << 30)
#define STORE_READ_MAX_LENGTH (1 << 28)

struct store;

/*
 * Open (and in STORE_RDWR mode create or upgrade) the database at path.
 * d may be NULL; if not, it must stay valid until store_close(): later
 * errors of the store are recorded there too.  On failure *out is NULL.
 */
int store_open(const char *path, int flags, struct store **out, struct diag *d);
/*
 * The status a reader's failure really has: NS_EDB (exit 1) becomes
 * NS_EINPUT (exit 2) when the file turns out to be damaged, found at any
 * point of the read (SQLITE_CORRUPT/NOTADB on the connection, or PRAGMA
 * quick_check failing now); any other status is returned as is.  The
 * message already in the diag stays (it names what failed).
 */
int store_read_status(struct store *s, int status);
/*
 * Put the SQL a user types under the authorizer of analysis/sqlguard.h
 * (query, export --query): reading only, listed functions and read-only
 * pragmas.  store_user_sql_denied() is the first refusal's sentence ("" if
 * none) for the error message; store_user_sql_refused() puts it in d in
 * place of SQLite's bare "not authorized" (NS_EINPUT, file prog, the
 * sentence followed by " (why)") and returns d's status.
 */
void store_user_sql(struct store *s);
const char *store_user_sql_denied(const struct store *s);
int store_user_sql_refused(const struct store *s, struct diag *d, int status,
			   const char *prog, const char *why);
/* Roll back an open run, finalize, close.  NULL is a no-op. */
void store_close(struct store *s);

/* The time limit of later statements of a reading connection, counted
 * from now; 0: none. */
void store_set_timeout(struct store *s, double seconds);
/* Record later errors in d instead (d may be NULL). */
void store_set_diag(struct store *s, struct diag *d);

/* The path given to store_open, and the connection for queries. */
const char *store_path(const struct store *s);
sqlite3 *store_sqlite(struct store *s);
int store_readonly(const struct store *s);

/*
 * Invariant walker (see above); flags STORE_CHECK_DATA adds the O(size)
 * data checks.  Returns NS_OK or NS_EINTERNAL/NS_EDB with a message.
 */
int store_check(struct store *s, int flags);

#endif
