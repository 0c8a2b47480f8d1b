/*
 * store_internal.h — what analysis/store.c (open, identity, migrations,
 * the invariant walker) and analysis/store_run.c (run transactions, group
 * commit, rows) share: the store object, the statements prepared at open,
 * the error helpers and the embedded schema.  Private to analysis/.
 *
 * Invariants of struct store: see "Invariants" in analysis/store.h and
 * analysis/store_run.h; store_check() (store.c) walks them all.
 * Error policy: store_fail() and store_db_fail() record the first error
 * in the caller's diag (first error wins) and return the status.
 */
#ifndef NUMASIM_STORE_INTERNAL_H
#define NUMASIM_STORE_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include <sqlite3.h>

#include "analysis/sqlguard.h"
#include "analysis/store.h"
#include "base/diag.h"

/*
 * The schema as migration steps: store_migrations[v] takes a database
 * from version v to v + 1 (version 0 = empty file), the NULL-terminated
 * statements of analysis/schema/v<v + 1>.sql, each a CREATE as SQLite
 * stores it in the file.  Defined in store_schema.c, which
 * scripts/sql2c.py writes into the build directory (analysis/meson.build).
 */
extern const char *const *const store_migrations[STORE_SCHEMA_VERSION];

/* X(name, SQL) — every statement the store runs more than once. */
#define STORE_STMT_MAP(X)                                                      \
	X(BEGIN, "BEGIN IMMEDIATE")                                            \
	X(COMMIT, "COMMIT")                                                    \
	X(ROLLBACK, "ROLLBACK")                                                \
	X(SAVEPOINT, "SAVEPOINT run")                                          \
	X(RELEASE, "RELEASE run")                                              \
	X(ROLLBACK_TO, "ROLLBACK TO run")                                      \
	X(INPUT, "INSERT INTO inputs (sha256, kind, path, content) "           \
		 "VALUES (?1, ?2, ?3, ?4) ON CONFLICT (sha256) DO NOTHING")    \
	X(RUN, "INSERT INTO runs (scenario, scenario_file, scenario_sha256, "   \
	       "point, repetition, seed, machine, machine_file, "              \
	       "machine_sha256, workload, variant, kernel_model, "             \
	       "tool_version, host, command, invocation, started, status) "    \
	       "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, "   \
	       "?13, ?14, ?15, ?16, ?17, 'running')")                          \
	X(RUN_END, "UPDATE runs SET status = ?2, finished = ?3, message = ?4 " \
		   "WHERE run_id = ?1 AND status = 'running'")                 \
	X(PARAM, "INSERT INTO params (run_id, key, value) VALUES (?1, ?2, ?3)") \
	X(METRIC, "INSERT INTO metrics (run_id, name, value, unit) "           \
		  "VALUES (?1, ?2, ?3, ?4)")                                   \
	X(SAMPLE, "INSERT INTO samples (run_id, metric, idx, value) "          \
		  "VALUES (?1, ?2, ?3, ?4)")                                   \
	X(COUNTER, "INSERT INTO counters (run_id, scope, scope_id, name, "     \
		   "value) VALUES (?1, ?2, ?3, ?4, ?5)")                       \
	X(PROFILE, "INSERT INTO profile (run_id, function, inlined, calls, "   \
		   "self_cycles, total_cycles) VALUES (?1, ?2, ?3, ?4, ?5, ?6)") \
	X(BRANCH, "INSERT INTO branches (run_id, site, function, fallthrough, " \
		  "executed, taken, mispredicted) "                            \
		  "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)")                       \
	X(PATH, "INSERT INTO profile_paths (run_id, path_id, parent_id, "      \
		"function, calls, self_cycles, mispredicted) "                 \
		"VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)")                       \
	X(CHARGE, "INSERT INTO profile_charges (run_id, function, kind, "      \
		  "cycles) VALUES (?1, ?2, ?3, ?4)")                          \
	X(WORK, "INSERT INTO profile_work (run_id, function, unit, executed, " \
		"cycles) VALUES (?1, ?2, ?3, ?4, ?5)")

enum store_stmt {
#define STORE_STMT_ENUM(name, sql) ST_##name,
	STORE_STMT_MAP(STORE_STMT_ENUM)
#undef STORE_STMT_ENUM
	ST_COUNT
};

/* ISO 8601 UTC with milliseconds and its NUL: 2024-05-01T12:00:00.123Z */
#define TIME_BUF 32

/*
 * One open results database.  store.c sets the connection's fields (db
 * to guard) at open; store_run.c owns the run state (open_run, the
 * group, the statements it prepares, host and invocation).
 */
struct store {
	sqlite3 *db;
	char *path;             /* as given, for messages */
	struct diag *d;         /* caller's, may be NULL */
	int readonly;
	int wal_file;           /* the file's header says WAL (format 2) */
	int immutable;          /* read-only connection opened immutable=1 */
	int64_t version;        /* the file's schema version (read-only
				   connections may see an older one) */
	int64_t open_run;       /* run whose transaction is open; 0 none */
	int group_max_runs;     /* runs per transaction (store_set_group), >= 1 */
	int group_max_ms;       /* commit a group this long after its first
				   run finished; 0: no time bound */
	int group_open;         /* a group transaction is open (max_runs > 1) */
	int group_runs;         /* finished runs in the open group */
	int64_t group_t0_ns;    /* CLOCK_MONOTONIC when its first run finished */
	int group_lost;         /* finished runs rolled back with a group */
	sqlite3_stmt *stmt[ST_COUNT]; /* prepared at open (read-write only) */
	struct sqlguard guard;  /* authorizer state of store_user_sql() */
	double timeout_s;       /* reader's time limit (store_set_timeout); 0 none */
	int64_t deadline_ns;    /* CLOCK_MONOTONIC end of it; 0 none */
	int time_out;           /* the progress handler stopped a statement */
	char host[256];
	char invocation[320];
};

/* Record "PATH: error: <fmt>" in the store's diag; returns status. */
int store_fail(struct store *s, int status, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Like store_fail() with NS_EDB and ": <SQLite's message>" appended. */
int store_db_fail(struct store *s, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* CLOCK_REALTIME in ns, and as ISO 8601 UTC with milliseconds. */
int64_t store_now_ns(void);
void store_format_time(int64_t ns, char buf[TIME_BUF]);

/* store_run.c: prepare the STORE_STMT_MAP statements (read-write open),
 * and set the default host and invocation of the runs. */
int store_prepare_statements(struct store *s);
void store_run_identity(struct store *s);

#endif
