/*
 * store — the SQLite results database numasim writes its runs to
 * (docs/schema.md is the reference of the tables, views and units).
 *
 * One run = one transaction: store_run_begin() takes the write lock
 * (BEGIN IMMEDIATE) and inserts the run row with status 'running', the row
 * functions add its params, metrics, samples, counters, profile, call-path
 * and branch rows, and store_run_commit() (status 'ok') or store_run_fail() (status
 * 'failed' plus a message, keeping the partial diagnostics) commit it.  A
 * run that is aborted, that hits an error while its rows are written, or
 * whose process dies before the commit leaves the database exactly as it
 * was: the database is in WAL mode with synchronous=FULL, so committed runs
 * survive crashes and power loss, and 'running' is never visible to
 * readers.  Callers should simulate first and write the results in one
 * burst, so the write lock is held only for the time the rows take.
 * store_set_group() lets several runs share one transaction (group
 * commit; see its comment below).
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
 * as TEMP views of the connection, so the v_* query views (docs/schema.md)
 * exist on every connection.
 *
 * Invariants (store_check): application_id == STORE_APPLICATION_ID and
 * user_version == MAX(schema_version.version) == STORE_SCHEMA_VERSION (an
 * older version only on read-only connections); the v_* views exist, in
 * the schema or as TEMP views, and no TEMP object shadows the schema's;
 * journal_mode is WAL (an immutable reader sees "delete"; its file's
 * header says WAL) and foreign keys are enforced; a run transaction is
 * open exactly when open_run != 0; outside a run no committed row has
 * status 'running' and every child row references an existing run.
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
 * block in WAL mode).  The row functions reuse statements prepared at
 * open and allocate nothing themselves, so writing ~1e5 sample rows per
 * run is cheap (several 1e5 rows/s including the durable commit).
 */
#ifndef NUMASIM_STORE_H
#define NUMASIM_STORE_H

#include <stddef.h>
#include <stdint.h>

#include <sqlite3.h>

#include "base/diag.h"

/* Bump on every schema change; see "Versioning" in docs/schema.md. */
#define STORE_SCHEMA_VERSION 3
/* PRAGMA application_id of numasim databases: "NSIM" in ASCII. */
#define STORE_APPLICATION_ID 0x4E53494D
/* How long a writer waits for another process's write lock. */
#define STORE_BUSY_TIMEOUT_MS 10000

enum store_open_flags {
	STORE_RDWR = 0,   /* read-write; creates the file and schema if needed */
	STORE_RDONLY = 1, /* read-only: never creates or modifies the file */
};

enum store_check_flags {
	STORE_CHECK_DATA = 1, /* also walk the data: foreign_key_check,
				 quick_check, no committed 'running' runs */
};

/*
 * Counter scopes and how their scope_id is formed from (id, key) in
 * store_counter().  Cache names never contain '/' (they are sysfs
 * directory names), zone names are the kernel's (DMA, DMA32, Normal,
 * Movable).
 *   system      scope_id 0           (id 0, key NULL)   whole machine
 *   node        scope_id = id        (key NULL)         NUMA node
 *   cpu         scope_id = id        (key NULL)         simulated CPU
 *   zone        "id/key"  "0/Normal" (id node, key zone name)
 *   cache       "key"     "kmalloc-64" (id ignored, pass -1)
 *   cache_node  "key/id"  "kmalloc-64/1" (kmem_cache_node of node id)
 *   cache_cpu   "key/id"  "kmalloc-64/3" (kmem_cache_cpu of cpu id)
 */
#define STORE_SCOPE_MAP(X)                                                     \
	X(SYSTEM, "system")                                                    \
	X(NODE, "node")                                                        \
	X(CPU, "cpu")                                                          \
	X(ZONE, "zone")                                                        \
	X(CACHE, "cache")                                                      \
	X(CACHE_NODE, "cache_node")                                            \
	X(CACHE_CPU, "cache_cpu")

enum store_scope {
#define STORE_SCOPE_ENUM(name, str) STORE_SCOPE_##name,
	STORE_SCOPE_MAP(STORE_SCOPE_ENUM)
#undef STORE_SCOPE_ENUM
	STORE_SCOPE_COUNT
};

/* "node", "cache_cpu", ...; NULL for a value outside the enum. */
const char *store_scope_name(enum store_scope scope);

/*
 * What a run is: its identity and provenance (design principle 8).  The
 * strings are copied into the database during store_run_begin() and need
 * not outlive the call.  Required: scenario, scenario_sha256, machine,
 * machine_sha256, workload, variant, kernel_model (non-empty; the hashes
 * are 64 lowercase hex digits of the files' SHA-256).  Optional fields
 * may be NULL (or 0 for started_ns).  A *_text given must hash to its
 * *_sha256 (checked; NS_EINTERNAL otherwise): it is kept once per content
 * in the `inputs` table so a database alone can reproduce its runs.
 */
struct store_run_info {
	const char *scenario;        /* scenario name */
	const char *scenario_file;   /* path as given on the command line */
	const char *scenario_sha256; /* SHA-256 of the scenario file's bytes */
	const char *scenario_text;   /* its content, kept in `inputs`, or NULL */
	int64_t point;               /* sweep point index, >= 0 */
	int64_t repetition;          /* repetition index, >= 0 */
	uint64_t seed;               /* the run's RNG seed, <= INT64_MAX */
	const char *machine;         /* machine name */
	const char *machine_file;
	const char *machine_sha256;
	const char *machine_text;
	const char *workload;        /* "pagealloc", "messaging", ... */
	const char *variant;         /* e.g. "zonelist_iter=682a3385" */
	const char *kernel_model;    /* e.g. "v4.6+682a3385" */
	const char *tool_version;    /* NULL: NUMASIM_VERSION */
	const char *host;            /* NULL: this host's name */
	const char *command;         /* the command line, or NULL */
	const char *invocation;      /* groups the runs of one command; NULL:
					"host:pid:open-time" of this store */
	int64_t started_ns;          /* CLOCK_REALTIME ns; 0: now */
};

struct store_profile_row {
	const char *function; /* modelled function, kernel name */
	int inlined;          /* 1 if inlined in this run's code layout */
	uint64_t calls;
	uint64_t self_cycles;  /* cycles in the function itself */
	uint64_t total_cycles; /* self + callees; >= self_cycles */
};

/* One call path of the simulated profile (table profile_paths). */
struct store_path_row {
	int64_t path_id;       /* >= 1 */
	int64_t parent_id;     /* 0: called from outside; else < path_id */
	const char *function;  /* the path's innermost function */
	uint64_t calls;        /* out-of-line calls that entered the path */
	uint64_t self_cycles;  /* cycles with this path innermost */
	uint64_t mispredicted; /* conditional mispredicts with it innermost */
};

struct store_branch_row {
	const char *site;     /* stable site name: "A18", "S5", ... */
	const char *function; /* enclosing modelled function, or NULL */
	int fallthrough;      /* condition value that falls through in this
				 layout: 0 or 1; -1 unknown */
	uint64_t executed;
	uint64_t taken;        /* times the branch jumped (<= executed) */
	uint64_t mispredicted; /* <= executed */
};

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
/* Record later errors in d instead (d may be NULL). */
void store_set_diag(struct store *s, struct diag *d);

/* The path given to store_open, and the connection for queries. */
const char *store_path(const struct store *s);
sqlite3 *store_sqlite(struct store *s);
int store_readonly(const struct store *s);

/* Start a run: BEGIN IMMEDIATE, insert its row; *run_id is its id. */
int store_run_begin(struct store *s, const struct store_run_info *info,
		    int64_t *run_id);
/* Mark run_id 'ok', set finished, commit. */
int store_run_commit(struct store *s, int64_t run_id);
/* Mark run_id 'failed' with message (non-empty), keep its rows, commit. */
int store_run_fail(struct store *s, int64_t run_id, const char *message);
/* Roll the open run back (no-op returning NS_OK when none is open). */
int store_run_abort(struct store *s);
/* The run whose transaction is open, 0 if none. */
int64_t store_open_run(const struct store *s);

/*
 * Group commit: up to max_runs finished runs share one transaction (one
 * fsync), each run a savepoint in it, so aborting or failing a run keeps
 * the group's other runs; the group commits when it holds max_runs runs,
 * when a run finishes max_ms (> 0) or more after the group's first, at
 * store_flush() and at store_close().  max_runs 1 (the default): every
 * run is its own transaction, as described at the top.  A crash loses
 * the open group's runs, whole.  Flushes the open group first.
 */
int store_set_group(struct store *s, int max_runs, int max_ms);
/* Commit the open group (NS_OK when none is open; NS_EINTERNAL while a
 * run is open).  NS_EDB when the commit fails, or when finished runs of
 * a group were rolled back by SQLite since the last flush (an I/O error
 * during a later run): the message says how many. */
int store_flush(struct store *s);
/* Finished runs waiting in the open group (0 when none is open). */
int store_group_runs(const struct store *s);
/* CLOCK_MONOTONIC nanoseconds at which the open group is due by max_ms;
 * 0 when no group with finished runs is open or there is no time bound. */
int64_t store_group_deadline_ns(const struct store *s);

/* params: flattened scenario values; a NULL value stores SQL NULL. */
int store_param(struct store *s, int64_t run_id, const char *key,
		const char *value);
int store_param_int(struct store *s, int64_t run_id, const char *key,
		    int64_t value);
int store_param_real(struct store *s, int64_t run_id, const char *key,
		     double value);
/* A named scalar result; NaN is stored as NULL (undefined). */
int store_metric(struct store *s, int64_t run_id, const char *name,
		 double value, const char *unit);
/* One sample of a series (idx >= 0); NaN is refused. */
int store_sample(struct store *s, int64_t run_id, const char *metric,
		 int64_t idx, double value);
/* n samples with idx 0..n-1. */
int store_samples(struct store *s, int64_t run_id, const char *metric,
		  const double *values, size_t n);
/* A kernel-named counter; (id, key) form scope_id as listed above. */
int store_counter(struct store *s, int64_t run_id, enum store_scope scope,
		  int64_t id, const char *key, const char *name, int64_t value);
int store_profile(struct store *s, int64_t run_id,
		  const struct store_profile_row *row);
int store_branch(struct store *s, int64_t run_id,
		 const struct store_branch_row *row);
int store_call_path(struct store *s, int64_t run_id, const struct store_path_row *row);

/*
 * Invariant walker (see above); flags STORE_CHECK_DATA adds the O(size)
 * data checks.  Returns NS_OK or NS_EINTERNAL/NS_EDB with a message.
 */
int store_check(struct store *s, int flags);

#endif
