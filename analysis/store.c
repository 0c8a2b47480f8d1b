/*
 * store — the SQLite results database; see store.h and docs/schema.md.
 *
 * Design notes
 *
 * Identification.  A numasim database is recognised by PRAGMA
 * application_id (STORE_APPLICATION_ID, which `file` prints) and its
 * version by PRAGMA user_version, mirrored in the schema_version table.
 * Both header fields are read before anything is written, so a foreign or
 * newer file is refused untouched.  A non-empty file must start with the
 * SQLite magic string: SQLite itself treats a short file (< 512 bytes or
 * so) as an empty database and would happily write a schema over a small
 * text file.
 *
 * Creation and upgrades are migrations: migrations[i] takes the schema
 * from version i to i + 1 (version 0 = empty file).  They run inside one
 * BEGIN IMMEDIATE transaction that re-reads the version after taking the
 * lock, so two processes creating the same new file do not both apply it.
 * PRAGMA journal_mode=WAL cannot run inside a transaction; it is set
 * before, and only on files already known to be empty or numasim's.
 *
 * Runs.  A run is one transaction (BEGIN IMMEDIATE .. COMMIT) holding the
 * run row (status 'running', finished NULL) and its child rows; the commit
 * first updates the row to 'ok' or 'failed', so 'running' is never
 * committed.  Statements are prepared once at open and reset per row; the
 * row functions bind the caller's strings with SQLITE_STATIC (they are
 * only read during the step), so the hot path does not allocate.
 *
 * Group commit (store_set_group).  With a group of more than one run, the
 * first run of a group opens the transaction (BEGIN IMMEDIATE) and every
 * run is a SAVEPOINT inside it: a finished run is RELEASEd into the group,
 * an aborted or failing one is rolled back TO its savepoint, so the runs
 * finished before it stay.  The group is committed when it holds
 * group_max_runs runs, when a run finishes group_max_ms or more after the
 * group's first run finished, at store_flush() (the run plan calls it
 * when that deadline passes while it waits for a simulation, and at its
 * end) and at store_close().  A crash loses the open group: whole runs
 * only, which --resume runs again.  One fsync per group instead of one
 * per run is what makes sweeps of short runs cheap (docs/running.md).
 *
 * Errors.  Any failing statement while a run is open rolls the whole run
 * back (SQLite may already have rolled back on I/O or full-disk errors;
 * partial runs must never be committed by a later call).  When SQLite
 * rolled back the whole transaction, the finished runs of the open group
 * went with it; they are counted in group_lost and store_flush() reports
 * them.
 */
#include "analysis/store.h"
#include "analysis/sqlguard.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "numasim_config.h"
#include "base/sha256.h"

#define SHA256_CHECK(col)                                                      \
	"CHECK (length(" col ") = 64 AND " col " NOT GLOB '*[^0-9a-f]*')"

/* Version 0 -> 1: the whole schema (docs/schema.md documents it), one
 * statement per string. */
static const char *const schema_v1[] = {
	"CREATE TABLE schema_version (\n"
	"  version      INTEGER NOT NULL PRIMARY KEY CHECK (version >= 1),\n"
	"  applied      TEXT    NOT NULL,\n"
	"  tool_version TEXT    NOT NULL\n"
	") STRICT",
	"CREATE TABLE inputs (\n"
	"  sha256  TEXT NOT NULL PRIMARY KEY " SHA256_CHECK("sha256") ",\n"
	"  kind    TEXT NOT NULL CHECK (kind IN ('machine', 'scenario')),\n"
	"  path    TEXT,\n"
	"  content TEXT NOT NULL\n"
	") STRICT",
	"CREATE TABLE runs (\n"
	"  run_id          INTEGER PRIMARY KEY AUTOINCREMENT,\n"
	"  scenario        TEXT    NOT NULL CHECK (scenario <> ''),\n"
	"  scenario_file   TEXT,\n"
	"  scenario_sha256 TEXT    NOT NULL " SHA256_CHECK("scenario_sha256") ",\n"
	"  point           INTEGER NOT NULL CHECK (point >= 0),\n"
	"  repetition      INTEGER NOT NULL CHECK (repetition >= 0),\n"
	"  seed            INTEGER NOT NULL CHECK (seed >= 0),\n"
	"  machine         TEXT    NOT NULL CHECK (machine <> ''),\n"
	"  machine_file    TEXT,\n"
	"  machine_sha256  TEXT    NOT NULL " SHA256_CHECK("machine_sha256") ",\n"
	"  workload        TEXT    NOT NULL CHECK (workload <> ''),\n"
	"  variant         TEXT    NOT NULL CHECK (variant <> ''),\n"
	"  kernel_model    TEXT    NOT NULL CHECK (kernel_model <> ''),\n"
	"  tool_version    TEXT    NOT NULL CHECK (tool_version <> ''),\n"
	"  host            TEXT    NOT NULL,\n"
	"  command         TEXT,\n"
	"  invocation      TEXT    NOT NULL,\n"
	"  started         TEXT    NOT NULL CHECK (julianday(started) IS NOT NULL),\n"
	"  finished        TEXT    CHECK (finished IS NULL OR julianday(finished) IS NOT NULL),\n"
	"  duration_s      REAL    GENERATED ALWAYS AS\n"
	"                    ((julianday(finished) - julianday(started)) * 86400.0) VIRTUAL,\n"
	"  status          TEXT    NOT NULL CHECK (status IN ('running', 'ok', 'failed')),\n"
	"  message         TEXT,\n"
	"  CHECK ((status = 'running') = (finished IS NULL)),\n"
	"  CHECK ((status = 'failed') = (message IS NOT NULL))\n"
	") STRICT",
	"CREATE INDEX runs_by_scenario ON runs (scenario, point, variant, repetition)",
	"CREATE INDEX runs_by_kernel ON runs (kernel_model, variant)",
	"CREATE INDEX runs_by_machine ON runs (machine_sha256)",
	"CREATE INDEX runs_by_invocation ON runs (invocation)",
	"CREATE INDEX runs_by_started ON runs (started)",
	"CREATE TABLE params (\n"
	"  run_id INTEGER NOT NULL REFERENCES runs (run_id) ON DELETE CASCADE,\n"
	"  key    TEXT    NOT NULL CHECK (key <> ''),\n"
	"  value  ANY     CHECK (typeof(value) IN ('integer', 'real', 'text', 'null')),\n"
	"  PRIMARY KEY (run_id, key)\n"
	") STRICT, WITHOUT ROWID",
	"CREATE INDEX params_by_key ON params (key, value)",
	"CREATE TABLE metrics (\n"
	"  run_id INTEGER NOT NULL REFERENCES runs (run_id) ON DELETE CASCADE,\n"
	"  name   TEXT    NOT NULL CHECK (name <> ''),\n"
	"  value  REAL,\n"
	"  unit   TEXT    NOT NULL CHECK (unit <> '' AND unit NOT GLOB '*[ \t]*'),\n"
	"  PRIMARY KEY (run_id, name)\n"
	") STRICT, WITHOUT ROWID",
	"CREATE INDEX metrics_by_name ON metrics (name)",
	"CREATE TABLE samples (\n"
	"  run_id INTEGER NOT NULL REFERENCES runs (run_id) ON DELETE CASCADE,\n"
	"  metric TEXT    NOT NULL CHECK (metric <> ''),\n"
	"  idx    INTEGER NOT NULL CHECK (idx >= 0),\n"
	"  value  REAL    NOT NULL,\n"
	"  PRIMARY KEY (run_id, metric, idx)\n"
	") STRICT, WITHOUT ROWID",
	"CREATE TABLE counters (\n"
	"  run_id   INTEGER NOT NULL REFERENCES runs (run_id) ON DELETE CASCADE,\n"
	"  scope    TEXT    NOT NULL CHECK (scope IN ('system', 'node', 'cpu', 'zone',\n"
	"                                             'cache', 'cache_node', 'cache_cpu')),\n"
	"  scope_id ANY     NOT NULL,\n"
	"  name     TEXT    NOT NULL CHECK (name <> ''),\n"
	"  value    INTEGER NOT NULL,\n"
	"  PRIMARY KEY (run_id, scope, scope_id, name),\n"
	"  CHECK (CASE scope\n"
	"    WHEN 'system' THEN typeof(scope_id) = 'integer' AND scope_id = 0\n"
	"    WHEN 'node' THEN typeof(scope_id) = 'integer' AND scope_id >= 0\n"
	"    WHEN 'cpu' THEN typeof(scope_id) = 'integer' AND scope_id >= 0\n"
	"    WHEN 'zone' THEN typeof(scope_id) = 'text' AND scope_id GLOB '[0-9]*/?*'\n"
	"    WHEN 'cache' THEN typeof(scope_id) = 'text' AND scope_id <> ''\n"
	"                      AND scope_id NOT GLOB '*/*'\n"
	"    ELSE typeof(scope_id) = 'text' AND scope_id GLOB '?*/[0-9]*'\n"
	"  END)\n"
	") STRICT, WITHOUT ROWID",
	"CREATE INDEX counters_by_name ON counters (name, scope)",
	"CREATE TABLE profile (\n"
	"  run_id       INTEGER NOT NULL REFERENCES runs (run_id) ON DELETE CASCADE,\n"
	"  function     TEXT    NOT NULL CHECK (function <> ''),\n"
	"  inlined      INTEGER NOT NULL DEFAULT 0 CHECK (inlined IN (0, 1)),\n"
	"  calls        INTEGER NOT NULL CHECK (calls >= 0),\n"
	"  self_cycles  INTEGER NOT NULL CHECK (self_cycles >= 0),\n"
	"  total_cycles INTEGER NOT NULL CHECK (total_cycles >= self_cycles),\n"
	"  PRIMARY KEY (run_id, function)\n"
	") STRICT, WITHOUT ROWID",
	"CREATE INDEX profile_by_function ON profile (function)",
	"CREATE TABLE branches (\n"
	"  run_id       INTEGER NOT NULL REFERENCES runs (run_id) ON DELETE CASCADE,\n"
	"  site         TEXT    NOT NULL CHECK (site <> ''),\n"
	"  function     TEXT,\n"
	"  fallthrough  INTEGER CHECK (fallthrough IN (0, 1)),\n"
	"  executed     INTEGER NOT NULL CHECK (executed >= 0),\n"
	"  taken        INTEGER NOT NULL CHECK (taken BETWEEN 0 AND executed),\n"
	"  mispredicted INTEGER NOT NULL CHECK (mispredicted BETWEEN 0 AND executed),\n"
	"  PRIMARY KEY (run_id, site)\n"
	") STRICT, WITHOUT ROWID",
	"CREATE INDEX branches_by_site ON branches (site)",
	/* Views: the joins and derived figures everybody writes by hand. */
	"CREATE VIEW run_overview AS\n"
	"SELECT r.run_id, r.scenario, r.point, r.repetition, r.seed, r.machine,\n"
	"       r.workload, r.variant, r.kernel_model, r.status, r.started,\n"
	"       r.duration_s, r.invocation,\n"
	"       (SELECT count(*) FROM metrics m WHERE m.run_id = r.run_id) AS n_metrics,\n"
	"       (SELECT count(*) FROM samples s WHERE s.run_id = r.run_id) AS n_samples,\n"
	"       r.message\n"
	"FROM runs r",
	"CREATE VIEW run_params AS\n"
	"SELECT r.run_id, r.scenario, r.point, r.repetition, r.variant,\n"
	"       r.kernel_model, r.machine, r.status,\n"
	"       group_concat(p.key || '=' || coalesce(p.value, '~'), ' ') AS params,\n"
	"       coalesce(json_group_object(p.key, p.value)\n"
	"                FILTER (WHERE p.key IS NOT NULL), '{}') AS params_json\n"
	"FROM runs r LEFT JOIN (SELECT * FROM params ORDER BY run_id, key) p\n"
	"     ON p.run_id = r.run_id\n"
	"GROUP BY r.run_id",
	"CREATE VIEW metric_values AS\n"
	"SELECT r.run_id, r.scenario, r.scenario_sha256, r.machine, r.machine_sha256,\n"
	"       r.workload, r.point, r.repetition, r.seed, r.variant, r.kernel_model,\n"
	"       m.name, m.value, m.unit\n"
	"FROM runs r JOIN metrics m ON m.run_id = r.run_id\n"
	"WHERE r.status = 'ok'",
	"CREATE VIEW metric_summary AS\n"
	"SELECT scenario, scenario_sha256, machine, machine_sha256, workload, point,\n"
	"       variant, kernel_model, name, unit,\n"
	"       count(value) AS n, avg(value) AS mean, min(value) AS min,\n"
	"       max(value) AS max,\n"
	"       CASE WHEN count(value) > 1 THEN\n"
	"         sqrt(sum((value - mu) * (value - mu)) / (count(value) - 1)) END AS stddev,\n"
	"       CASE WHEN count(value) > 1 THEN\n"
	"         sqrt(sum((value - mu) * (value - mu)) / (count(value) - 1)\n"
	"              / count(value)) END AS sem\n"
	"FROM (SELECT *, avg(value) OVER (PARTITION BY scenario, scenario_sha256,\n"
	"        machine, machine_sha256, workload, point, variant, kernel_model,\n"
	"        name, unit) AS mu\n"
	"      FROM metric_values)\n"
	"GROUP BY scenario, scenario_sha256, machine, machine_sha256, workload, point,\n"
	"         variant, kernel_model, name, unit",
	"CREATE VIEW sample_summary AS\n"
	"SELECT s.run_id, s.metric, m.unit, count(*) AS n, avg(s.value) AS mean,\n"
	"       min(s.value) AS min, max(s.value) AS max,\n"
	"       CASE WHEN count(*) > 1 THEN\n"
	"         sqrt(sum((s.value - s.mu) * (s.value - s.mu)) / (count(*) - 1)) END\n"
	"         AS stddev\n"
	"FROM (SELECT *, avg(value) OVER (PARTITION BY run_id, metric) AS mu\n"
	"      FROM samples) s\n"
	"LEFT JOIN metrics m ON m.run_id = s.run_id AND m.name = s.metric\n"
	"GROUP BY s.run_id, s.metric",
	"CREATE VIEW counter_values AS\n"
	"SELECT run_id, scope, scope_id, name, value,\n"
	"  CASE scope WHEN 'node' THEN scope_id\n"
	"    WHEN 'zone' THEN CAST(substr(scope_id, 1, instr(scope_id, '/') - 1) AS INTEGER)\n"
	"    WHEN 'cache_node' THEN CAST(substr(scope_id, instr(scope_id, '/') + 1) AS INTEGER)\n"
	"  END AS node,\n"
	"  CASE scope WHEN 'cpu' THEN scope_id\n"
	"    WHEN 'cache_cpu' THEN CAST(substr(scope_id, instr(scope_id, '/') + 1) AS INTEGER)\n"
	"  END AS cpu,\n"
	"  CASE scope WHEN 'zone' THEN substr(scope_id, instr(scope_id, '/') + 1)\n"
	"    WHEN 'cache' THEN scope_id\n"
	"    WHEN 'cache_node' THEN substr(scope_id, 1, instr(scope_id, '/') - 1)\n"
	"    WHEN 'cache_cpu' THEN substr(scope_id, 1, instr(scope_id, '/') - 1)\n"
	"  END AS object\n"
	"FROM counters",
	"CREATE VIEW profile_report AS\n"
	"SELECT run_id, function, inlined, calls, self_cycles, total_cycles,\n"
	"       100.0 * self_cycles\n"
	"         / nullif(sum(self_cycles) OVER (PARTITION BY run_id), 0) AS self_pct,\n"
	"       CAST(total_cycles AS REAL) / nullif(calls, 0) AS cycles_per_call\n"
	"FROM profile",
	"CREATE VIEW branch_stats AS\n"
	"SELECT run_id, site, function, fallthrough, executed, taken, mispredicted,\n"
	"       CASE fallthrough WHEN 0 THEN taken WHEN 1 THEN executed - taken END\n"
	"         AS cond_true,\n"
	"       100.0 * taken / nullif(executed, 0) AS taken_pct,\n"
	"       100.0 * mispredicted / nullif(executed, 0) AS mispredict_pct\n"
	"FROM branches",
	NULL,
};

/*
 * Version 1 -> 2: the v_* views, the stable query interface of `numasim
 * query` and `export` (docs/schema.md "Views for queries"): every child
 * table with the identity of its run, so queries need no join.  Views
 * only: a read-only connection to a version-1 file creates the same views
 * as TEMP views (see temp_views()), so the step must stay views-only.
 */
#define V_IDENT                                                                \
	"r.run_id, r.scenario, r.point, r.repetition, r.seed, r.machine,\n"     \
	"       r.workload, r.variant, r.kernel_model, r.status"
static const char *const schema_v2[] = {
	"CREATE VIEW v_runs AS\n"
	"SELECT " V_IDENT ",\n"
	"       r.scenario_file, r.scenario_sha256, r.machine_file,\n"
	"       r.machine_sha256, r.tool_version, r.host, r.command,\n"
	"       r.invocation, r.started, r.finished, r.duration_s, r.message,\n"
	"       p.params, p.params_json\n"
	"FROM runs r JOIN run_params p ON p.run_id = r.run_id",
	"CREATE VIEW v_params AS\n"
	"SELECT " V_IDENT ", p.key, p.value\n"
	"FROM runs r JOIN params p ON p.run_id = r.run_id",
	"CREATE VIEW v_metrics AS\n"
	"SELECT " V_IDENT ", m.name, m.value, m.unit\n"
	"FROM runs r JOIN metrics m ON m.run_id = r.run_id",
	"CREATE VIEW v_samples AS\n"
	"SELECT " V_IDENT ", s.metric, s.idx, s.value\n"
	"FROM runs r JOIN samples s ON s.run_id = r.run_id",
	"CREATE VIEW v_counters AS\n"
	"SELECT " V_IDENT ", c.scope, c.scope_id, c.node, c.cpu, c.object,\n"
	"       c.name, c.value\n"
	"FROM runs r JOIN counter_values c ON c.run_id = r.run_id",
	"CREATE VIEW v_profile AS\n"
	"SELECT " V_IDENT ", p.function, p.inlined, p.calls, p.self_cycles,\n"
	"       p.total_cycles, p.self_pct, p.cycles_per_call\n"
	"FROM runs r JOIN profile_report p ON p.run_id = r.run_id",
	"CREATE VIEW v_branches AS\n"
	"SELECT " V_IDENT ", b.site, b.function, b.fallthrough, b.executed,\n"
	"       b.taken, b.mispredicted, b.cond_true, b.taken_pct,\n"
	"       b.mispredict_pct\n"
	"FROM runs r JOIN branch_stats b ON b.run_id = r.run_id",
	NULL,
};

#define NR_QUERY_VIEWS (sizeof schema_v2 / sizeof schema_v2[0] - 1)

/*
 * Version 2 -> 3: the call paths of the simulated profile (flame graphs,
 * docs/schema.md "profile_paths") and profile_stacks, each path's chain
 * of functions as a folded stack "a;b;c".  A read-only connection to an
 * older file gets the table as an empty TEMP table (temp_views()), so
 * readers see "no call paths" rather than an error; hence one statement
 * per object, no index, no foreign key in the CREATE TABLE's own text
 * beyond what a TEMP table accepts.
 */
static const char *const schema_v3[] = {
	"CREATE TABLE profile_paths (\n"
	"  run_id       INTEGER NOT NULL REFERENCES runs (run_id) ON DELETE CASCADE,\n"
	"  path_id      INTEGER NOT NULL CHECK (path_id >= 1),\n"
	"  parent_id    INTEGER NOT NULL CHECK (parent_id >= 0 AND parent_id < path_id),\n"
	"  function     TEXT    NOT NULL CHECK (function <> ''),\n"
	"  calls        INTEGER NOT NULL CHECK (calls >= 0),\n"
	"  self_cycles  INTEGER NOT NULL CHECK (self_cycles >= 0),\n"
	"  mispredicted INTEGER NOT NULL CHECK (mispredicted >= 0),\n"
	"  PRIMARY KEY (run_id, path_id)\n"
	") STRICT, WITHOUT ROWID",
	"CREATE VIEW profile_stacks AS\n"
	"WITH RECURSIVE chain (run_id, path_id, stack, depth) AS (\n"
	"  SELECT run_id, path_id, function, 1 FROM profile_paths WHERE parent_id = 0\n"
	"  UNION ALL\n"
	"  SELECT p.run_id, p.path_id, c.stack || ';' || p.function, c.depth + 1\n"
	"  FROM profile_paths p JOIN chain c\n"
	"       ON p.run_id = c.run_id AND p.parent_id = c.path_id)\n"
	"SELECT c.run_id, c.path_id, p.parent_id, p.function, c.stack, c.depth,\n"
	"       p.calls, p.self_cycles, p.mispredicted\n"
	"FROM chain c JOIN profile_paths p\n"
	"     ON p.run_id = c.run_id AND p.path_id = c.path_id",
	NULL,
};

/* migrations[v] takes a database from version v to v + 1. */
static const char *const *const migrations[STORE_SCHEMA_VERSION] = {
	schema_v1,
	schema_v2,
	schema_v3,
};

/*
 * The first version whose migrations to STORE_SCHEMA_VERSION are views
 * only: a read-only connection opens files from this version on and
 * creates the missing views as TEMP views.
 */
#define STORE_READONLY_MIN_VERSION 1

/* The tables a database of the current version must have. */
static const char *const required_tables[] = {
	"schema_version", "inputs", "runs", "params", "metrics",
	"samples", "counters", "profile", "branches",
};
#define NR_REQUIRED_TABLES (sizeof required_tables / sizeof required_tables[0])

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
		"VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)")

enum store_stmt {
#define STORE_STMT_ENUM(name, sql) ST_##name,
	STORE_STMT_MAP(STORE_STMT_ENUM)
#undef STORE_STMT_ENUM
	ST_COUNT
};

static const char *const stmt_sql[ST_COUNT] = {
#define STORE_STMT_SQL(name, sql) sql,
	STORE_STMT_MAP(STORE_STMT_SQL)
#undef STORE_STMT_SQL
};

static const char *const scope_names[STORE_SCOPE_COUNT] = {
#define STORE_SCOPE_STR(name, str) str,
	STORE_SCOPE_MAP(STORE_SCOPE_STR)
#undef STORE_SCOPE_STR
};

#define TIME_BUF 32
#define SCOPE_ID_MAX 256

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
	char host[256];
	char invocation[320];
};

const char *store_scope_name(enum store_scope scope)
{
	if ((int)scope < 0 || scope >= STORE_SCOPE_COUNT)
		return NULL;
	return scope_names[scope];
}

/* Record "PATH: error: <fmt>" in the store's diag; returns status. */
static int fail(struct store *s, int status, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int fail(struct store *s, int status, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	diag_vset(s->d, status, s->path, 0, 0, fmt, ap);
	va_end(ap);
	return status;
}

/*
 * SQLite's message for the connection's last error, with the errno's text
 * where a system call failed: SQLite says "disk I/O error" or "database or
 * disk is full", the errno says which ("No space left on device",
 * "Input/output error").  msg, if not NULL, replaces sqlite3_errmsg (the
 * text sqlite3_exec returned).
 */
static void error_text(struct store *s, const char *msg, char *buf, size_t len)
{
	/* The system call behind SQLite's extended I/O error codes. */
	static const struct {
		int code;
		const char *call;
	} calls[] = {
		{SQLITE_IOERR_READ, "read"}, {SQLITE_IOERR_SHORT_READ, "read"},
		{SQLITE_IOERR_WRITE, "write"}, {SQLITE_IOERR_FSYNC, "fsync"},
		{SQLITE_IOERR_DIR_FSYNC, "fsync of the directory"},
		{SQLITE_IOERR_TRUNCATE, "ftruncate"}, {SQLITE_IOERR_FSTAT, "fstat"},
		{SQLITE_IOERR_UNLOCK, "unlock"}, {SQLITE_IOERR_RDLOCK, "lock"},
		{SQLITE_IOERR_LOCK, "lock"}, {SQLITE_IOERR_DELETE, "unlink"},
		{SQLITE_IOERR_CLOSE, "close"}, {SQLITE_IOERR_SHMOPEN, "open of the -shm"},
		{SQLITE_IOERR_SHMSIZE, "resize of the -shm"}, {SQLITE_IOERR_SHMMAP, "mmap of the -shm"},
		{SQLITE_IOERR_MMAP, "mmap"}, {SQLITE_IOERR_SEEK, "lseek"},
	};
	int ext = sqlite3_extended_errcode(s->db), code = ext & 0xff;
	int err = sqlite3_system_errno(s->db);
	const char *call = NULL;
	if (!msg)
		msg = sqlite3_errmsg(s->db);
	for (size_t i = 0; i < sizeof calls / sizeof *calls; i++)
		if (calls[i].code == ext)
			call = calls[i].call;
	/* SQLite's unix VFS returns SQLITE_FULL for ENOSPC only (numasim
	 * sets no max_page_count), and keeps no errno for it. */
	if (code == SQLITE_FULL)
		snprintf(buf, len, "%s (%s)", msg, strerror(ENOSPC));
	else if (code == SQLITE_IOERR && call && err)
		snprintf(buf, len, "%s (%s failed: %s)", msg, call, strerror(err));
	else if (code == SQLITE_IOERR && call)
		snprintf(buf, len, "%s (%s failed)", msg, call);
	else if (err && (code == SQLITE_IOERR || code == SQLITE_CANTOPEN))
		snprintf(buf, len, "%s (%s)", msg, strerror(err));
	else
		snprintf(buf, len, "%s", msg);
}

/* Like fail() with NS_EDB and ": <sqlite message>" appended. */
static int db_fail(struct store *s, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static int db_fail(struct store *s, const char *fmt, ...)
{
	char what[512], why[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(what, sizeof what, fmt, ap);
	va_end(ap);
	error_text(s, NULL, why, sizeof why);
	return fail(s, NS_EDB, "%s: %s", what, why);
}

static int64_t mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* ISO 8601 UTC with milliseconds: 2024-05-01T12:00:00.123Z. */
static void format_time(int64_t ns, char buf[TIME_BUF])
{
	time_t sec = (time_t)(ns / 1000000000);
	int ms = (int)(ns % 1000000000 / 1000000);
	struct tm tm;
	gmtime_r(&sec, &tm);
	size_t n = strftime(buf, TIME_BUF, "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(buf + n, TIME_BUF - n, ".%03dZ", ms);
}

/* Run one SQL string (no result rows wanted). */
static int exec_sql(struct store *s, const char *sql, const char *what)
{
	char *err = NULL, why[512];
	if (sqlite3_exec(s->db, sql, NULL, NULL, &err) == SQLITE_OK)
		return NS_OK;
	error_text(s, err, why, sizeof why);
	int r = fail(s, NS_EDB, "%s: %s", what, why);
	sqlite3_free(err);
	return r;
}

/*
 * Run a one-row, one-column query; *out gets the integer (0 when no row).
 * SQLITE_NOTADB (not a database) and SQLITE_CORRUPT (a damaged one) are
 * input errors: the user gave numasim a bad file.
 */
static int query_int(struct store *s, const char *sql, int64_t *out)
{
	sqlite3_stmt *st = NULL;
	int rc = sqlite3_prepare_v2(s->db, sql, -1, &st, NULL);
	if (rc == SQLITE_OK) {
		rc = sqlite3_step(st);
		*out = rc == SQLITE_ROW ? sqlite3_column_int64(st, 0) : 0;
		if (rc == SQLITE_ROW || rc == SQLITE_DONE)
			rc = SQLITE_OK;
	}
	sqlite3_finalize(st);
	if (rc == SQLITE_OK)
		return NS_OK;
	if ((rc & 0xff) == SQLITE_NOTADB)
		return fail(s, NS_EINPUT, "not a numasim results database "
			    "(not an SQLite file)");
	if ((rc & 0xff) == SQLITE_CORRUPT)
		return fail(s, NS_EINPUT, "damaged database: %s",
			    sqlite3_errmsg(s->db));
	return db_fail(s, "cannot read the database (%s)", sql);
}

static int query_text(struct store *s, const char *sql, char *buf, size_t len)
{
	sqlite3_stmt *st = NULL;
	int rc = sqlite3_prepare_v2(s->db, sql, -1, &st, NULL);
	buf[0] = '\0';
	if (rc == SQLITE_OK) {
		rc = sqlite3_step(st);
		if (rc == SQLITE_ROW && sqlite3_column_text(st, 0))
			snprintf(buf, len, "%s",
				 (const char *)sqlite3_column_text(st, 0));
		if (rc == SQLITE_ROW || rc == SQLITE_DONE)
			rc = SQLITE_OK;
	}
	sqlite3_finalize(st);
	return rc == SQLITE_OK ? NS_OK : db_fail(s, "cannot run %s", sql);
}

/*
 * Refuse what is not a regular file, and a non-empty file without the
 * SQLite header (SQLite would treat a short text file as an empty
 * database).  *exists tells whether the file is there; s->wal_file
 * whether its header's format bytes (offsets 18, 19) say WAL.
 */
static int check_file(struct store *s, const char *path, int *exists)
{
	static const char magic[16] = "SQLite format 3";
	struct stat st;
	*exists = 0;
	if (stat(path, &st) != 0) {
		if (errno == ENOENT)
			return NS_OK;
		return fail(s, ns_status_from_errno(errno), "cannot open: %s",
			    strerror(errno));
	}
	*exists = 1;
	if (!S_ISREG(st.st_mode))
		return fail(s, NS_EINPUT, "not a numasim results database "
			    "(not a regular file)");
	if (st.st_size == 0)
		return NS_OK;
	FILE *f = fopen(path, "rb");
	if (!f)
		return fail(s, ns_status_from_errno(errno), "cannot open: %s",
			    strerror(errno));
	unsigned char head[20];
	size_t n = fread(head, 1, sizeof head, f);
	fclose(f);
	if (n < sizeof magic || memcmp(head, magic, sizeof magic) != 0)
		return fail(s, NS_EINPUT, "not a numasim results database "
			    "(not an SQLite file)");
	s->wal_file = n == sizeof head && head[18] == 2 && head[19] == 2;
	return NS_OK;
}

/* stat() of path + suffix ("-wal", "-shm"); 0 when it is there. */
static int side_file(const char *path, const char *suffix, struct stat *st)
{
	char name[PATH_MAX];
	if (snprintf(name, sizeof name, "%s%s", path, suffix) >= (int)sizeof name)
		return -1;
	return stat(name, st);
}

/* Whether this process may create files in path's directory. */
static int dir_writable(const char *path, int *err)
{
	char dir[PATH_MAX];
	const char *slash = strrchr(path, '/');
	if (!slash)
		snprintf(dir, sizeof dir, ".");
	else if (slash == path)
		snprintf(dir, sizeof dir, "/");
	else
		snprintf(dir, sizeof dir, "%.*s", (int)(slash - path), path);
	if (access(dir, W_OK | X_OK) == 0)
		return 1;
	*err = errno;
	return 0;
}

/*
 * A read-write open needs the file writable and, for WAL, its directory
 * (SQLite creates FILE-wal and FILE-shm next to it).  Checked before
 * SQLite is asked, so the user reads the errno text ("Permission denied")
 * with exit 2 instead of "attempt to write a readonly database".
 */
static int check_writable(struct store *s, const char *path, int exists)
{
	struct stat st;
	int err = 0;
	if (exists && access(path, W_OK) != 0)
		return fail(s, ns_status_from_errno(errno), "cannot write the "
			    "database: %s", strerror(errno));
	if (dir_writable(path, &err))
		return NS_OK;
	if (!exists)
		return fail(s, ns_status_from_errno(err), "cannot create "
			    "database: %s", strerror(err));
	if (side_file(path, "-wal", &st) == 0 && side_file(path, "-shm", &st) == 0)
		return NS_OK; /* SQLite can use the side files that are there */
	return fail(s, ns_status_from_errno(err), "cannot write the database: "
		    "cannot create its -wal and -shm files in its directory: %s",
		    strerror(err));
}

/*
 * path as an SQLite URI: "file:" and the path with every byte outside
 * [A-Za-z0-9/._~-] percent-encoded (so '?', '#', '%' stay part of the
 * name), then query.  sqlite3_malloc'ed; NULL when out of memory.
 */
static char *file_uri(const char *path, const char *query)
{
	static const char hex[] = "0123456789ABCDEF";
	size_t len = strlen(path);
	char *u = sqlite3_malloc64(len * 3 + strlen(query) + 16);
	if (!u)
		return NULL;
	char *p = u + sprintf(u, path[0] == '/' ? "file://" : "file:");
	for (const unsigned char *c = (const unsigned char *)path; *c; c++) {
		if ((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
		    (*c >= '0' && *c <= '9') || strchr("/._~-", *c)) {
			*p++ = (char)*c;
		} else {
			*p++ = '%';
			*p++ = hex[*c >> 4];
			*p++ = hex[*c & 15];
		}
	}
	strcpy(p, query);
	return u;
}

/*
 * How a reader opens the file without creating anything (docs/schema.md,
 * "Readers").  A WAL file whose -wal is missing or empty was closed
 * cleanly: all its content is in the main file, and immutable=1 reads it
 * without the -wal/-shm a plain read-only open would create (and leave
 * behind, since a read-only connection cannot delete them).  A -wal with
 * content needs the -shm index: mode=ro uses an existing one (SQLite
 * reads a read-only -shm through heap memory) or creates it where the
 * directory allows; where neither is possible, immutable=1 would
 * silently drop the log's committed runs, so that is refused.
 */
static int reader_query(struct store *s, const char *path, const char **query)
{
	struct stat wal, shm;
	int err = 0;
	*query = "?mode=ro";
	if (!s->wal_file)
		return NS_OK;
	if (side_file(path, "-wal", &wal) != 0 || wal.st_size == 0) {
		*query = "?mode=ro&immutable=1";
		s->immutable = 1;
		return NS_OK;
	}
	if (side_file(path, "-shm", &shm) == 0 || dir_writable(path, &err))
		return NS_OK;
	return fail(s, NS_EINPUT, "cannot read the database: its write-ahead "
		    "log %s-wal holds committed changes, but %s-shm is missing "
		    "and cannot be created in its directory (%s); copy both "
		    "files to a writable directory and read the copy, or let "
		    "the owner fold the log into the file with sqlite3 %s "
		    "'PRAGMA wal_checkpoint(TRUNCATE)'", path, path,
		    strerror(err), path);
}

/* SQLite's math functions are optional at build time; the views use sqrt. */
static void fn_sqrt(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	(void)argc;
	if (sqlite3_value_type(argv[0]) == SQLITE_NULL) {
		sqlite3_result_null(ctx);
		return;
	}
	double x = sqlite3_value_double(argv[0]);
	if (x < 0)
		sqlite3_result_null(ctx);
	else
		sqlite3_result_double(ctx, sqrt(x));
}

static int connect(struct store *s, const char *path)
{
	/* ":memory:" and "file:" names are special to SQLite; a results
	 * database is always a file.  Readers name it by URI (mode=ro,
	 * immutable=1 where the file is complete, see reader_query()). */
	char *name = NULL;
	const char *query = NULL;
	int r = NS_OK;
	if (s->readonly) {
		r = reader_query(s, path, &query);
		if (r == NS_OK && !(name = file_uri(path, query)))
			r = fail(s, NS_ENOMEM, "out of memory");
	} else if (path[0] == ':' || !strncmp(path, "file:", 5)) {
		name = sqlite3_mprintf("./%s", path);
		if (!name)
			r = fail(s, NS_ENOMEM, "out of memory");
	}
	if (r != NS_OK)
		return r;
	int flags = SQLITE_OPEN_NOMUTEX |
		    (s->readonly ? SQLITE_OPEN_READONLY | SQLITE_OPEN_URI
				 : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE);
	int rc = sqlite3_open_v2(name ? name : path, &s->db, flags, NULL);
	sqlite3_free(name);
	if (rc != SQLITE_OK && !s->db)
		return fail(s, NS_ENOMEM, "out of memory");
	if (rc != SQLITE_OK) {
		int err = sqlite3_system_errno(s->db);
		if (err)
			return fail(s, ns_status_from_errno(err), "cannot %s "
				    "database: %s", s->readonly ? "open the" :
				    "create", strerror(err));
		return db_fail(s, "cannot open");
	}
	sqlite3_extended_result_codes(s->db, 1);
	sqlite3_busy_timeout(s->db, STORE_BUSY_TIMEOUT_MS);
	/* Locked down before any statement reads the file (sqlguard.h). */
	if (sqlguard_lockdown(s->db) != NS_OK)
		return fail(s, NS_EDB, "cannot lock the SQLite connection down "
			    "(defensive mode, untrusted schema, no extensions)");
	/* Innocuous: the views call it, and an untrusted schema may only
	 * call innocuous functions. */
	if (!sqlite3_compileoption_used("ENABLE_MATH_FUNCTIONS") &&
	    sqlite3_create_function(s->db, "sqrt", 1,
				    SQLITE_UTF8 | SQLITE_DETERMINISTIC |
				    SQLITE_INNOCUOUS, NULL,
				    fn_sqrt, NULL, NULL) != SQLITE_OK)
		return db_fail(s, "cannot register sqrt()");
	return NS_OK;
}

/*
 * Read the identity of the file: its application_id, user_version, the
 * version in schema_version, and whether it holds any schema object.
 * *version is the larger of the two versions (0 for an empty file).
 */
static int read_identity(struct store *s, int64_t *app, int64_t *version,
			 int64_t *objects)
{
	int64_t uv = 0, sv = 0, have_sv = 0;
	int r = query_int(s, "PRAGMA application_id", app);
	if (r == NS_OK)
		r = query_int(s, "PRAGMA user_version", &uv);
	if (r == NS_OK)
		r = query_int(s, "SELECT count(*) FROM sqlite_schema", objects);
	if (r == NS_OK && *app == STORE_APPLICATION_ID)
		r = query_int(s, "SELECT count(*) FROM sqlite_schema WHERE "
			      "type = 'table' AND name = 'schema_version'",
			      &have_sv);
	if (r == NS_OK && have_sv && uv <= STORE_SCHEMA_VERSION)
		r = query_int(s, "SELECT max(version) FROM schema_version", &sv);
	if (r != NS_OK)
		return r;
	*version = uv > sv ? uv : sv;
	if (*app != STORE_APPLICATION_ID || *version > STORE_SCHEMA_VERSION)
		return NS_OK; /* classify() refuses these */
	if (!have_sv)
		return fail(s, NS_EINPUT, "damaged numasim results database: "
			    "table 'schema_version' is missing");
	if (uv != sv)
		return fail(s, NS_EINPUT, "damaged numasim results database: "
			    "user_version %" PRId64 " but schema_version "
			    "%" PRId64, uv, sv);
	return NS_OK;
}

/* Refuse files that are not numasim's or are too new. */
static int classify(struct store *s, int64_t app, int64_t version,
		    int64_t objects, int *empty)
{
	*empty = app == 0 && objects == 0;
	if (*empty) {
		if (s->readonly)
			return fail(s, NS_EINPUT, "not a numasim results "
				    "database (empty file)");
		return NS_OK;
	}
	if (app != STORE_APPLICATION_ID)
		return fail(s, NS_EINPUT, "not a numasim results database");
	if (version > STORE_SCHEMA_VERSION)
		return fail(s, NS_EINPUT, "database schema version %" PRId64
			    " is newer than this numasim supports (%d); "
			    "upgrade numasim", version, STORE_SCHEMA_VERSION);
	if (version < STORE_READONLY_MIN_VERSION && s->readonly)
		return fail(s, NS_EINPUT, "database schema version %" PRId64
			    " is older than this numasim's (%d); open it "
			    "read-write once to upgrade it", version,
			    STORE_SCHEMA_VERSION);
	return NS_OK;
}

/*
 * Bring the schema to STORE_SCHEMA_VERSION inside one write transaction,
 * re-reading the version under the lock (another process may have
 * created the schema since we looked).
 */
static int migrate(struct store *s)
{
	int64_t app = 0, version = 0, objects = 0;
	int empty = 0;
	int r = exec_sql(s, "BEGIN IMMEDIATE", "cannot lock the database");
	if (r != NS_OK)
		return r;
	r = read_identity(s, &app, &version, &objects);
	if (r == NS_OK)
		r = classify(s, app, version, objects, &empty);
	if (empty)
		version = 0;
	for (int64_t v = version; r == NS_OK && v < STORE_SCHEMA_VERSION; v++) {
		char sql[256], now[TIME_BUF];
		format_time(now_ns(), now);
		for (const char *const *step = migrations[v];
		     r == NS_OK && *step; step++)
			r = exec_sql(s, *step, "cannot create the schema");
		snprintf(sql, sizeof sql,
			 "INSERT INTO schema_version VALUES (%" PRId64
			 ", '%s', '%s'); PRAGMA user_version = %" PRId64
			 "; PRAGMA application_id = %d;",
			 v + 1, now, NUMASIM_VERSION, v + 1,
			 STORE_APPLICATION_ID);
		if (r == NS_OK)
			r = exec_sql(s, sql, "cannot record the schema version");
	}
	if (r == NS_OK)
		return exec_sql(s, "COMMIT", "cannot commit the schema");
	sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
	return r;
}

static int check_tables(struct store *s)
{
	for (size_t i = 0; i < NR_REQUIRED_TABLES; i++) {
		char sql[160];
		int64_t n = 0;
		snprintf(sql, sizeof sql, "SELECT count(*) FROM sqlite_schema "
			 "WHERE type = 'table' AND name = '%s'",
			 required_tables[i]);
		int r = query_int(s, sql, &n);
		if (r != NS_OK)
			return r;
		if (n != 1)
			return fail(s, NS_EINPUT, "damaged numasim results "
				    "database: table '%s' is missing",
				    required_tables[i]);
	}
	return NS_OK;
}

static int prepare_all(struct store *s)
{
	for (int i = 0; i < ST_COUNT; i++)
		if (sqlite3_prepare_v3(s->db, stmt_sql[i], -1,
				       SQLITE_PREPARE_PERSISTENT, &s->stmt[i],
				       NULL) != SQLITE_OK)
			return db_fail(s, "cannot prepare '%.40s...'",
				       stmt_sql[i]);
	return NS_OK;
}

static void default_identity(struct store *s)
{
	char now[TIME_BUF];
	if (gethostname(s->host, sizeof s->host) != 0)
		snprintf(s->host, sizeof s->host, "unknown");
	s->host[sizeof s->host - 1] = '\0';
	format_time(now_ns(), now);
	snprintf(s->invocation, sizeof s->invocation, "%s:%ld:%s", s->host,
		 (long)getpid(), now);
}

/*
 * Read-write setup: WAL, schema, enforced foreign keys, statements.  The
 * write lock is only taken when the schema must be created or upgraded,
 * so opening a database another process is writing to does not wait.
 */
static int setup_rdwr(struct store *s, int need_migration)
{
	char mode[16];
	int r = query_text(s, "PRAGMA journal_mode = WAL", mode, sizeof mode);
	if (r == NS_OK && strcmp(mode, "wal") != 0)
		r = fail(s, NS_EDB, "cannot switch the database to WAL mode "
			 "(journal_mode is '%s')", mode);
	if (r == NS_OK)
		r = exec_sql(s, "PRAGMA synchronous = FULL; "
			     "PRAGMA foreign_keys = ON",
			     "cannot set the connection's pragmas");
	if (r == NS_OK && need_migration)
		r = migrate(s);
	if (r == NS_OK)
		r = check_tables(s);
	if (r == NS_OK)
		r = prepare_all(s);
	return r;
}

/*
 * A read-only connection to an older file: the views its missing
 * migrations would add, as TEMP views of this connection, and the tables
 * they would add as empty TEMP tables (the file is not touched; the steps
 * are views and new tables only, see STORE_READONLY_MIN_VERSION).
 */
static int temp_views(struct store *s, int64_t version)
{
	int r = NS_OK;
	for (int64_t v = version; r == NS_OK && v < STORE_SCHEMA_VERSION; v++)
		for (const char *const *step = migrations[v];
		     r == NS_OK && *step; step++) {
			static const char view[] = "CREATE VIEW ";
			static const char table[] = "CREATE TABLE ";
			int is_view = strncmp(*step, view, sizeof view - 1) == 0;
			if (!is_view && (v < 2 || strncmp(*step, table, sizeof table - 1)))
				return fail(s, NS_EINTERNAL, "migration to "
					    "version %" PRId64 " is not views "
					    "and tables only", v + 1);
			char *sql = sqlite3_mprintf(is_view ? "CREATE TEMP VIEW %s"
						    : "CREATE TEMP TABLE %s",
						    *step + (is_view ? sizeof view
							     : sizeof table) - 1);
			if (!sql)
				return fail(s, NS_ENOMEM, "out of memory");
			r = exec_sql(s, sql, "cannot create the query views");
			sqlite3_free(sql);
		}
	return r;
}

/*
 * PRAGMA quick_check(1) (O(size), without the index cross-checks of
 * integrity_check): 1 when the file passes, 0 when it is damaged (*why
 * gets the check's first message or SQLite's error), -1 when the check
 * could not run for another reason (I/O, lock; SQLite's message is then
 * on the connection).
 */
static int intact(struct store *s, char *why, size_t len)
{
	sqlite3_stmt *st = NULL;
	int rc = sqlite3_prepare_v2(s->db, "PRAGMA quick_check(1)", -1, &st, NULL);
	int ok = -1;
	why[0] = '\0';
	if (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *t = (const char *)sqlite3_column_text(st, 0);
		const char *nl = t ? strchr(t, '\n') : NULL;
		/* "*** in database main ***\nPage 12: ...": the message is
		 * the part after the database's name */
		snprintf(why, len, "%s", nl ? nl + 1 : t ? t : "no result");
		ok = t && !strcmp(t, "ok");
		rc = SQLITE_OK;
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_OK && ((rc & 0xff) == SQLITE_CORRUPT ||
				(rc & 0xff) == SQLITE_NOTADB)) {
		snprintf(why, len, "%s", sqlite3_errstr(rc));
		ok = 0;
	}
	return ok;
}

/*
 * A writer refuses a damaged file before its first write (run --db,
 * --resume): appending to it would spread the damage (one flipped bit
 * became ten integrity_check errors after a run) and bury it under new
 * runs.  The runs in it stay readable as far as they are intact.
 */
static int refuse_damaged(struct store *s)
{
	char why[512];
	int ok = intact(s, why, sizeof why);
	if (ok > 0)
		return NS_OK;
	if (ok < 0)
		return db_fail(s, "cannot check the database (PRAGMA quick_check)");
	return fail(s, NS_EINPUT, "damaged database: PRAGMA quick_check says "
		    "'%s'; numasim does not write into a damaged database (read "
		    "what is left with numasim query/export, or recover it with "
		    "sqlite3 FILE .recover, and run into a new file)", why);
}

int store_read_status(struct store *s, int status)
{
	char why[512];
	if (status != NS_EDB || !s || !s->db)
		return status;
	int e = sqlite3_errcode(s->db) & 0xff;
	if (e == SQLITE_CORRUPT || e == SQLITE_NOTADB || intact(s, why, sizeof why) == 0)
		return NS_EINPUT;
	return status;
}

void store_user_sql(struct store *s)
{
	sqlguard_user_sql(s->db, &s->guard);
}

const char *store_user_sql_denied(const struct store *s)
{
	return sqlguard_denied(&s->guard);
}

int store_user_sql_refused(const struct store *s, struct diag *d, int status,
			   const char *prog, const char *why)
{
	if (!s || !store_user_sql_denied(s)[0] || !strstr(d->msg, "not authorized"))
		return status;
	diag_init(d);
	return diag_set(d, NS_EINPUT, prog, 0, 0, "refusing the statement: %s (%s)",
			store_user_sql_denied(s), why);
}

int store_open(const char *path, int flags, struct store **out,
	       struct diag *d)
{
	int exists = 0, empty = 0;
	int64_t app = 0, version = 0, objects = 0;
	*out = NULL;
	if (!path || !path[0] || (flags & ~STORE_RDONLY))
		return diag_set(d, NS_EINTERNAL, path, 0, 0,
				"store_open: bad path or flags");
	struct store *s = calloc(1, sizeof *s);
	if (!s)
		return diag_set(d, NS_ENOMEM, path, 0, 0, "out of memory");
	s->d = d;
	s->group_max_runs = 1;
	s->readonly = (flags & STORE_RDONLY) != 0;
	s->version = STORE_SCHEMA_VERSION;
	s->path = strdup(path);
	int r = s->path ? NS_OK : diag_set(d, NS_ENOMEM, path, 0, 0,
					   "out of memory");
	if (r == NS_OK)
		r = check_file(s, path, &exists);
	if (r == NS_OK && !exists && s->readonly)
		r = fail(s, NS_ENOENT, "no such file");
	if (r == NS_OK && !s->readonly)
		r = check_writable(s, path, exists);
	if (r == NS_OK)
		r = connect(s, path);
	if (r == NS_OK)
		r = read_identity(s, &app, &version, &objects);
	if (r == NS_OK)
		r = classify(s, app, version, objects, &empty);
	if (r == NS_OK && s->readonly)
		r = check_tables(s);
	if (r == NS_OK && s->readonly)
		r = temp_views(s, version);
	if (r == NS_OK && s->readonly)
		r = exec_sql(s, "PRAGMA query_only = ON",
			     "cannot set the connection's pragmas");
	if (r == NS_OK && s->readonly)
		s->version = version;
	if (r == NS_OK && !s->readonly && !empty)
		r = refuse_damaged(s);
	if (r == NS_OK && !s->readonly)
		r = setup_rdwr(s, empty || version < STORE_SCHEMA_VERSION);
	if (r != NS_OK) {
		store_close(s);
		return r;
	}
	default_identity(s);
	*out = s;
	return NS_OK;
}

void store_close(struct store *s)
{
	if (!s)
		return;
	if (s->open_run)
		store_run_abort(s);
	/* the group's finished runs are whole: keep them */
	if (s->group_open)
		store_flush(s);
	for (int i = 0; i < ST_COUNT; i++)
		sqlite3_finalize(s->stmt[i]);
	sqlite3_close(s->db);
	free(s->path);
	free(s);
}

void store_set_diag(struct store *s, struct diag *d)
{
	s->d = d;
}

const char *store_path(const struct store *s)
{
	return s->path;
}

sqlite3 *store_sqlite(struct store *s)
{
	return s->db;
}

int store_readonly(const struct store *s)
{
	return s->readonly;
}

int64_t store_open_run(const struct store *s)
{
	return s->open_run;
}

/* Step a prepared statement that returns no rows, then reset it. */
static int step_done(sqlite3_stmt *st)
{
	int rc = sqlite3_step(st);
	sqlite3_reset(st);
	return rc == SQLITE_DONE ? SQLITE_OK : rc;
}

/*
 * Roll back the open run: to its savepoint inside a group (the group's
 * finished runs stay), else the whole transaction.  When SQLite has
 * already rolled the transaction back (I/O error, disk full), the group's
 * finished runs are gone too: counted in group_lost.
 */
static void rollback(struct store *s)
{
	int in_txn = !sqlite3_get_autocommit(s->db);
	if (in_txn && s->group_open && s->open_run &&
	    step_done(s->stmt[ST_ROLLBACK_TO]) == SQLITE_OK &&
	    step_done(s->stmt[ST_RELEASE]) == SQLITE_OK) {
		s->open_run = 0;
		return;
	}
	if (!sqlite3_get_autocommit(s->db))
		step_done(s->stmt[ST_ROLLBACK]);
	if (s->group_open)
		s->group_lost += s->group_runs;
	s->group_open = 0;
	s->group_runs = 0;
	s->open_run = 0;
}

/*
 * Errors while a run is being written: record the error and roll back
 * the open run, so no later call can commit a partial run.
 */
static int row_error(struct store *s, int status, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int row_error(struct store *s, int status, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	diag_vset(s->d, status, s->path, 0, 0, fmt, ap);
	va_end(ap);
	if (s->open_run)
		rollback(s);
	return status;
}

/* A row statement failed in SQLite: report it and drop the run. */
static int row_fail(struct store *s, const char *what, const char *name,
		    int64_t run_id)
{
	int r = db_fail(s, "run %" PRId64 ": cannot store %s '%s'", run_id,
			what, name);
	rollback(s);
	return r;
}

/* Guard of every row function: a named row for the open run. */
static int row_ok(struct store *s, int64_t run_id, const char *what,
		  const char *name)
{
	if (!name || !name[0])
		return row_error(s, NS_EINTERNAL, "run %" PRId64 ": %s without "
				 "a name", run_id, what);
	if (s->open_run == 0 || run_id != s->open_run)
		return row_error(s, NS_EINTERNAL, "cannot store %s '%s': run "
				 "%" PRId64 " is not open", what, name, run_id);
	return NS_OK;
}

static int fits_int64(struct store *s, uint64_t v, const char *what,
		      const char *name)
{
	if (v <= (uint64_t)INT64_MAX)
		return NS_OK;
	return row_error(s, NS_ERANGE, "%s of '%s' (%" PRIu64 ") does not "
			 "fit SQLite's signed 64-bit INTEGER", what, name, v);
}

static void bind_text(sqlite3_stmt *st, int i, const char *v)
{
	if (v)
		sqlite3_bind_text(st, i, v, -1, SQLITE_STATIC);
	else
		sqlite3_bind_null(st, i);
}

/*
 * The values of one row for insert_row, in the statement's parameter order
 * after run_id: an integer (the caller has checked that a uint64_t fits),
 * a text (NULL pointer: SQL NULL), a real (NaN: SQL NULL) or NULL.
 */
enum col_kind { COLK_INT, COLK_TEXT, COLK_REAL, COLK_NULL };

struct col {
	enum col_kind kind;
	int64_t i;
	double x;
	const char *t;
};

#define COL_INT(v) ((struct col){.kind = COLK_INT, .i = (int64_t)(v)})
#define COL_TEXT(v) ((struct col){.kind = COLK_TEXT, .t = (v)})
#define COL_REAL(v) ((struct col){.kind = COLK_REAL, .x = (v)})
#define COL_NULL ((struct col){.kind = COLK_NULL})
#define NR_COLS(a) ((int)(sizeof(a) / sizeof((a)[0])))

/*
 * Insert one row with the prepared statement id: run_id as ?1, cols[i] as
 * ?(i + 2).  The caller has validated the row; a failed step (a CHECK,
 * UNIQUE or I/O error) is row_fail's message naming what and name.
 */
static int insert_row(struct store *s, int id, int64_t run_id, const struct col *cols,
		      int n, const char *what, const char *name)
{
	sqlite3_stmt *st = s->stmt[id];
	sqlite3_bind_int64(st, 1, run_id);
	for (int i = 0; i < n; i++) {
		const struct col *c = &cols[i];
		if (c->kind == COLK_INT)
			sqlite3_bind_int64(st, i + 2, c->i);
		else if (c->kind == COLK_TEXT)
			bind_text(st, i + 2, c->t);
		else if (c->kind == COLK_REAL && !isnan(c->x))
			sqlite3_bind_double(st, i + 2, c->x);
		else
			sqlite3_bind_null(st, i + 2);
	}
	if (step_done(st) != SQLITE_OK)
		return row_fail(s, what, name, run_id);
	return NS_OK;
}

static int is_sha256(const char *h)
{
	if (!h || strlen(h) != 64)
		return 0;
	for (const char *p = h; *p; p++)
		if (!((*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'f')))
			return 0;
	return 1;
}

static int check_info(struct store *s, const struct store_run_info *i)
{
	const char *req[][2] = {
		{"scenario", i->scenario}, {"machine", i->machine},
		{"workload", i->workload}, {"variant", i->variant},
		{"kernel_model", i->kernel_model},
	};
	for (size_t k = 0; k < sizeof req / sizeof req[0]; k++)
		if (!req[k][1] || !req[k][1][0])
			return fail(s, NS_EINTERNAL, "run info: %s is missing",
				    req[k][0]);
	if (!is_sha256(i->scenario_sha256) || !is_sha256(i->machine_sha256))
		return fail(s, NS_EINTERNAL, "run info: scenario_sha256 and "
			    "machine_sha256 must be 64 lowercase hex digits");
	if (i->point < 0 || i->repetition < 0)
		return fail(s, NS_EINTERNAL, "run info: negative point or "
			    "repetition");
	if (i->seed > (uint64_t)INT64_MAX)
		return fail(s, NS_ERANGE, "run seed %" PRIu64 " does not fit "
			    "SQLite's signed 64-bit INTEGER (max %" PRId64 ")",
			    i->seed, INT64_MAX);
	return NS_OK;
}

/*
 * Keep an input file's text, once per content.  The text must hash to the
 * run's claimed SHA-256: a mismatch would make the provenance lie.
 */
static int insert_input(struct store *s, const char *sha, const char *kind,
			const char *path, const char *content)
{
	uint8_t digest[SHA256_DIGEST_LEN];
	char hex[SHA256_HEX_LEN + 1];
	if (!content)
		return NS_OK;
	sha256(content, strlen(content), digest);
	sha256_hex(digest, hex);
	if (strcmp(hex, sha) != 0)
		return fail(s, NS_EINTERNAL, "run info: the %s text hashes to "
			    "%s, not to its %s_sha256 %s", kind, hex, kind, sha);
	sqlite3_stmt *st = s->stmt[ST_INPUT];
	bind_text(st, 1, sha);
	bind_text(st, 2, kind);
	bind_text(st, 3, path);
	bind_text(st, 4, content);
	if (step_done(st) != SQLITE_OK)
		return db_fail(s, "cannot store the %s file", kind);
	return NS_OK;
}

static int insert_run(struct store *s, const struct store_run_info *i)
{
	char started[TIME_BUF];
	sqlite3_stmt *st = s->stmt[ST_RUN];
	format_time(i->started_ns ? i->started_ns : now_ns(), started);
	bind_text(st, 1, i->scenario);
	bind_text(st, 2, i->scenario_file);
	bind_text(st, 3, i->scenario_sha256);
	sqlite3_bind_int64(st, 4, i->point);
	sqlite3_bind_int64(st, 5, i->repetition);
	sqlite3_bind_int64(st, 6, (int64_t)i->seed);
	bind_text(st, 7, i->machine);
	bind_text(st, 8, i->machine_file);
	bind_text(st, 9, i->machine_sha256);
	bind_text(st, 10, i->workload);
	bind_text(st, 11, i->variant);
	bind_text(st, 12, i->kernel_model);
	bind_text(st, 13, i->tool_version ? i->tool_version : NUMASIM_VERSION);
	bind_text(st, 14, i->host ? i->host : s->host);
	bind_text(st, 15, i->command);
	bind_text(st, 16, i->invocation ? i->invocation : s->invocation);
	bind_text(st, 17, started);
	if (step_done(st) != SQLITE_OK)
		return db_fail(s, "cannot store run of scenario '%s'",
			       i->scenario);
	return NS_OK;
}

int store_run_begin(struct store *s, const struct store_run_info *info,
		    int64_t *run_id)
{
	*run_id = 0;
	if (s->readonly)
		return fail(s, NS_EDB, "cannot store a run: database opened "
			    "read-only");
	if (s->open_run)
		return fail(s, NS_EINTERNAL, "cannot begin a run: run %" PRId64
			    " is still open", s->open_run);
	int r = check_info(s, info);
	if (r != NS_OK)
		return r;
	if (s->group_open && sqlite3_get_autocommit(s->db)) {
		/* SQLite ended the group's transaction on its own */
		s->group_lost += s->group_runs;
		s->group_open = 0;
		s->group_runs = 0;
	}
	if (!s->group_open && step_done(s->stmt[ST_BEGIN]) != SQLITE_OK)
		return db_fail(s, "cannot lock the database for a new run");
	if (!s->group_open && s->group_max_runs > 1) {
		s->group_open = 1;
		s->group_runs = 0;
	}
	if (s->group_open && step_done(s->stmt[ST_SAVEPOINT]) != SQLITE_OK) {
		r = db_fail(s, "cannot start a run's savepoint");
		rollback(s);
		return r;
	}
	r = insert_input(s, info->scenario_sha256, "scenario",
			 info->scenario_file, info->scenario_text);
	if (r == NS_OK)
		r = insert_input(s, info->machine_sha256, "machine",
				 info->machine_file, info->machine_text);
	if (r == NS_OK)
		r = insert_run(s, info);
	if (r != NS_OK) {
		rollback(s);
		return r;
	}
	s->open_run = sqlite3_last_insert_rowid(s->db);
	*run_id = s->open_run;
	return NS_OK;
}

/* COMMIT the open transaction: one run, or a whole group. */
static int commit(struct store *s)
{
	int n = s->group_open ? s->group_runs : 1;
	if (step_done(s->stmt[ST_COMMIT]) == SQLITE_OK) {
		s->group_open = 0;
		s->group_runs = 0;
		return NS_OK;
	}
	int r = db_fail(s, n == 1 ? "cannot commit the run" : "cannot commit a group of "
			"%d runs", n);
	if (!sqlite3_get_autocommit(s->db))
		step_done(s->stmt[ST_ROLLBACK]);
	if (s->group_open)
		s->group_lost += s->group_runs;
	s->group_open = 0;
	s->group_runs = 0;
	return r;
}

int store_set_group(struct store *s, int max_runs, int max_ms)
{
	if (max_runs < 1 || max_ms < 0)
		return fail(s, NS_EINTERNAL, "store_set_group: %d runs, %d ms", max_runs,
			    max_ms);
	int rc = store_flush(s);
	s->group_max_runs = max_runs;
	s->group_max_ms = max_ms;
	return rc;
}

int store_flush(struct store *s)
{
	if (s->open_run)
		return fail(s, NS_EINTERNAL, "cannot commit the group: run %" PRId64
			    " is still open", s->open_run);
	int rc = NS_OK;
	if (s->group_open && sqlite3_get_autocommit(s->db)) {
		s->group_lost += s->group_runs;
		s->group_open = 0;
		s->group_runs = 0;
	}
	if (s->group_open)
		rc = commit(s);
	if (s->group_lost) {
		int lost = s->group_lost;
		s->group_lost = 0;
		return fail(s, NS_EDB, "%d finished run%s rolled back with the "
			    "transaction of their group; numasim run --resume runs them "
			    "again", lost, lost == 1 ? " was" : "s were");
	}
	return rc;
}

int store_group_runs(const struct store *s)
{
	return s->group_open ? s->group_runs : 0;
}

int64_t store_group_deadline_ns(const struct store *s)
{
	if (!s->group_open || s->group_runs == 0 || s->group_max_ms <= 0)
		return 0;
	return s->group_t0_ns + (int64_t)s->group_max_ms * 1000000;
}

/* Set the final status of the open run and commit it (or, in a group,
 * release it into the group's transaction). */
static int run_end(struct store *s, int64_t run_id, const char *status,
		   const char *message)
{
	char finished[TIME_BUF];
	if (s->open_run == 0 || run_id != s->open_run)
		return fail(s, NS_EINTERNAL, "cannot commit run %" PRId64
			    ": it is not open", run_id);
	sqlite3_stmt *st = s->stmt[ST_RUN_END];
	format_time(now_ns(), finished);
	sqlite3_bind_int64(st, 1, run_id);
	bind_text(st, 2, status);
	bind_text(st, 3, finished);
	bind_text(st, 4, message);
	int rc = step_done(st);
	if (rc == SQLITE_OK && sqlite3_changes(s->db) != 1)
		return row_error(s, NS_EINTERNAL, "run %" PRId64 " vanished "
				 "before its commit", run_id);
	if (rc == SQLITE_OK && s->group_open)
		rc = step_done(s->stmt[ST_RELEASE]);
	if (rc != SQLITE_OK) {
		int r = db_fail(s, "cannot commit run %" PRId64, run_id);
		rollback(s);
		return r;
	}
	s->open_run = 0;
	if (!s->group_open)
		return commit(s);
	if (s->group_runs++ == 0)
		s->group_t0_ns = mono_ns();
	if (s->group_runs >= s->group_max_runs ||
	    (s->group_max_ms > 0 &&
	     mono_ns() - s->group_t0_ns >= (int64_t)s->group_max_ms * 1000000))
		return store_flush(s);
	return NS_OK;
}

int store_run_commit(struct store *s, int64_t run_id)
{
	return run_end(s, run_id, "ok", NULL);
}

int store_run_fail(struct store *s, int64_t run_id, const char *message)
{
	if (!message || !message[0])
		return fail(s, NS_EINTERNAL, "failed run %" PRId64 " needs a "
			    "message", run_id);
	return run_end(s, run_id, "failed", message);
}

int store_run_abort(struct store *s)
{
	if (!s->open_run)
		return NS_OK;
	int64_t id = s->open_run;
	rollback(s);
	if (s->open_run || (!s->group_open && !sqlite3_get_autocommit(s->db)))
		return db_fail(s, "cannot roll back run %" PRId64, id);
	return NS_OK;
}

/* One run_params row: key and its value (text, integer or real). */
static int param_row(struct store *s, int64_t run_id, const char *key, struct col value)
{
	int r = row_ok(s, run_id, "param", key);
	if (r != NS_OK)
		return r;
	const struct col cols[] = {COL_TEXT(key), value};
	return insert_row(s, ST_PARAM, run_id, cols, NR_COLS(cols), "param", key);
}

int store_param(struct store *s, int64_t run_id, const char *key,
		const char *value)
{
	return param_row(s, run_id, key, COL_TEXT(value));
}

int store_param_int(struct store *s, int64_t run_id, const char *key,
		    int64_t value)
{
	return param_row(s, run_id, key, COL_INT(value));
}

int store_param_real(struct store *s, int64_t run_id, const char *key,
		     double value)
{
	return param_row(s, run_id, key, COL_REAL(value));
}

int store_metric(struct store *s, int64_t run_id, const char *name,
		 double value, const char *unit)
{
	int r = row_ok(s, run_id, "metric", name);
	if (r != NS_OK)
		return r;
	if (!unit || !unit[0])
		return row_error(s, NS_EINTERNAL, "metric '%s' has no unit",
				 name);
	const struct col cols[] = {COL_TEXT(name), COL_REAL(value), COL_TEXT(unit)};
	return insert_row(s, ST_METRIC, run_id, cols, NR_COLS(cols), "metric", name);
}

/* The sample hot path: the caller has checked name and run. */
static int sample_row(struct store *s, int64_t run_id, const char *metric,
		      int64_t idx, double value)
{
	if (isnan(value))
		return row_error(s, NS_EINTERNAL, "run %" PRId64 ": sample "
				 "%" PRId64 " of '%s' is NaN", run_id, idx,
				 metric);
	sqlite3_stmt *st = s->stmt[ST_SAMPLE];
	sqlite3_bind_int64(st, 1, run_id);
	sqlite3_bind_text(st, 2, metric, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 3, idx);
	sqlite3_bind_double(st, 4, value);
	if (step_done(st) != SQLITE_OK)
		return row_fail(s, "a sample of", metric, run_id);
	return NS_OK;
}

int store_sample(struct store *s, int64_t run_id, const char *metric,
		 int64_t idx, double value)
{
	int r = row_ok(s, run_id, "sample", metric);
	return r != NS_OK ? r : sample_row(s, run_id, metric, idx, value);
}

int store_samples(struct store *s, int64_t run_id, const char *metric,
		  const double *values, size_t n)
{
	int r = row_ok(s, run_id, "sample", metric);
	for (size_t i = 0; r == NS_OK && i < n; i++)
		r = sample_row(s, run_id, metric, (int64_t)i, values[i]);
	return r;
}

/* Bind scope_id (parameter 3) as the table expects for scope. */
static int bind_scope_id(struct store *s, enum store_scope scope, int64_t id,
			 const char *key, char buf[SCOPE_ID_MAX])
{
	sqlite3_stmt *st = s->stmt[ST_COUNTER];
	int need_key = scope >= STORE_SCOPE_ZONE;
	int need_id = scope != STORE_SCOPE_CACHE;
	int n = 0;
	if (need_key != (key != NULL) || (need_key && (!key[0] || strchr(key, '/'))))
		return row_error(s, NS_EINTERNAL, "%s counter: scope %s takes "
				 "%s", store_scope_name(scope),
				 store_scope_name(scope),
				 need_key ? "a name without '/'" : "no name");
	if (need_id && (id < 0 || (scope == STORE_SCOPE_SYSTEM && id != 0)))
		return row_error(s, NS_EINTERNAL, "%s counter: bad id %" PRId64,
				 store_scope_name(scope), id);
	switch (scope) {
	case STORE_SCOPE_ZONE:
		n = snprintf(buf, SCOPE_ID_MAX, "%" PRId64 "/%s", id, key);
		break;
	case STORE_SCOPE_CACHE:
		n = snprintf(buf, SCOPE_ID_MAX, "%s", key);
		break;
	case STORE_SCOPE_CACHE_NODE:
	case STORE_SCOPE_CACHE_CPU:
		n = snprintf(buf, SCOPE_ID_MAX, "%s/%" PRId64, key, id);
		break;
	default:
		sqlite3_bind_int64(st, 3, id);
		return NS_OK;
	}
	if (n >= SCOPE_ID_MAX)
		return row_error(s, NS_EINTERNAL, "counter scope name '%s' is "
				 "too long", key);
	sqlite3_bind_text(st, 3, buf, -1, SQLITE_STATIC);
	return NS_OK;
}

int store_counter(struct store *s, int64_t run_id, enum store_scope scope,
		  int64_t id, const char *key, const char *name, int64_t value)
{
	char buf[SCOPE_ID_MAX];
	int r = row_ok(s, run_id, "counter", name);
	if (r == NS_OK && !store_scope_name(scope))
		r = row_error(s, NS_EINTERNAL, "counter '%s': bad scope %d",
			      name, (int)scope);
	if (r == NS_OK)
		r = bind_scope_id(s, scope, id, key, buf);
	if (r != NS_OK)
		return r;
	sqlite3_stmt *st = s->stmt[ST_COUNTER];
	sqlite3_bind_int64(st, 1, run_id);
	bind_text(st, 2, store_scope_name(scope));
	bind_text(st, 4, name);
	sqlite3_bind_int64(st, 5, value);
	if (step_done(st) != SQLITE_OK)
		return row_fail(s, "counter", name, run_id);
	return NS_OK;
}

int store_profile(struct store *s, int64_t run_id,
		  const struct store_profile_row *row)
{
	int r = row_ok(s, run_id, "profile row", row->function);
	if (r == NS_OK && row->inlined != 0 && row->inlined != 1)
		r = row_error(s, NS_EINTERNAL, "profile row '%s': inlined "
			      "must be 0 or 1", row->function);
	if (r == NS_OK)
		r = fits_int64(s, row->calls, "calls", row->function);
	if (r == NS_OK)
		r = fits_int64(s, row->total_cycles, "total_cycles",
			       row->function);
	if (r == NS_OK && row->self_cycles > row->total_cycles)
		r = row_error(s, NS_EINTERNAL, "profile row '%s': self_cycles "
			      "%" PRIu64 " > total_cycles %" PRIu64,
			      row->function, row->self_cycles,
			      row->total_cycles);
	if (r != NS_OK)
		return r;
	const struct col cols[] = {
		COL_TEXT(row->function), COL_INT(row->inlined), COL_INT(row->calls),
		COL_INT(row->self_cycles), COL_INT(row->total_cycles),
	};
	return insert_row(s, ST_PROFILE, run_id, cols, NR_COLS(cols), "profile row",
			  row->function);
}

int store_branch(struct store *s, int64_t run_id,
		 const struct store_branch_row *row)
{
	int r = row_ok(s, run_id, "branch site", row->site);
	if (r == NS_OK && (row->fallthrough < -1 || row->fallthrough > 1))
		r = row_error(s, NS_EINTERNAL, "branch site '%s': fallthrough "
			      "must be 0, 1 or -1", row->site);
	if (r == NS_OK)
		r = fits_int64(s, row->executed, "executed", row->site);
	if (r != NS_OK)
		return r;
	/* taken/mispredicted <= executed is the table's CHECK; values above
	 * INT64_MAX fail it too once clamped. */
	const struct col cols[] = {
		COL_TEXT(row->site), COL_TEXT(row->function),
		row->fallthrough < 0 ? COL_NULL : COL_INT(row->fallthrough),
		COL_INT(row->executed),
		COL_INT(row->taken > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)row->taken),
		COL_INT(row->mispredicted > (uint64_t)INT64_MAX ? INT64_MAX
							       : (int64_t)row->mispredicted),
	};
	return insert_row(s, ST_BRANCH, run_id, cols, NR_COLS(cols), "branch site",
			  row->site);
}

int store_call_path(struct store *s, int64_t run_id, const struct store_path_row *row)
{
	int r = row_ok(s, run_id, "call path", row->function);
	if (r == NS_OK)
		r = fits_int64(s, row->calls, "calls", row->function);
	if (r == NS_OK)
		r = fits_int64(s, row->self_cycles, "self_cycles", row->function);
	if (r == NS_OK)
		r = fits_int64(s, row->mispredicted, "mispredicted", row->function);
	if (r != NS_OK)
		return r;
	const struct col cols[] = {
		COL_INT(row->path_id), COL_INT(row->parent_id), COL_TEXT(row->function),
		COL_INT(row->calls), COL_INT(row->self_cycles), COL_INT(row->mispredicted),
	};
	return insert_row(s, ST_PATH, run_id, cols, NR_COLS(cols), "call path",
			  row->function);
}

/* store_check helpers: compare a pragma/query result with what we expect. */
static int expect_int(struct store *s, const char *sql, int64_t want)
{
	int64_t got = 0;
	int r = query_int(s, sql, &got);
	if (r == NS_OK && got != want)
		r = fail(s, NS_EINTERNAL, "store invariant: %s is %" PRId64
			 ", expected %" PRId64, sql, got, want);
	return r;
}

static int check_data(struct store *s)
{
	char res[64];
	int r = expect_int(s, "SELECT count(*) FROM pragma_foreign_key_check", 0);
	if (r == NS_OK)
		r = query_text(s, "PRAGMA quick_check", res, sizeof res);
	if (r == NS_OK && strcmp(res, "ok") != 0)
		r = fail(s, NS_EINTERNAL, "store invariant: quick_check "
			 "says '%s'", res);
	if (r == NS_OK && !s->open_run)
		r = expect_int(s, "SELECT count(*) FROM runs WHERE "
			       "status = 'running'", 0);
	if (r == NS_OK && s->open_run) {
		char sql[128];
		snprintf(sql, sizeof sql, "SELECT count(*) FROM runs WHERE "
			 "status = 'running' AND run_id <> %" PRId64,
			 s->open_run);
		r = expect_int(s, sql, 0);
	}
	return r;
}

int store_check(struct store *s, int flags)
{
	char mode[16];
	int in_txn = !sqlite3_get_autocommit(s->db);
	if (s->group_max_runs < 1 || (s->group_open && s->group_max_runs < 2) ||
	    s->group_runs < 0 || s->group_runs >= s->group_max_runs ||
	    (!s->group_open && s->group_runs))
		return fail(s, NS_EINTERNAL, "store invariant: group of %d runs, "
			    "%d finished, %s", s->group_max_runs, s->group_runs,
			    s->group_open ? "open" : "closed");
	if (!s->path || (s->open_run != 0 || s->group_open) != in_txn ||
	    (s->readonly && s->open_run))
		return fail(s, NS_EINTERNAL, "store invariant: open run %" PRId64
			    " but %s transaction", s->open_run,
			    in_txn ? "a" : "no");
	for (int i = 0; i < ST_COUNT; i++)
		if ((s->stmt[i] == NULL) != s->readonly)
			return fail(s, NS_EINTERNAL, "store invariant: "
				    "statement %d %s prepared", i,
				    s->readonly ? "is" : "is not");
	if (s->version > STORE_SCHEMA_VERSION ||
	    s->version < (s->readonly ? STORE_READONLY_MIN_VERSION
				      : STORE_SCHEMA_VERSION))
		return fail(s, NS_EINTERNAL, "store invariant: open at schema "
			    "version %" PRId64, s->version);
	int r = expect_int(s, "PRAGMA application_id", STORE_APPLICATION_ID);
	if (r == NS_OK)
		r = expect_int(s, "PRAGMA user_version", s->version);
	if (r == NS_OK)
		r = expect_int(s, "SELECT max(version) FROM schema_version",
			       s->version);
	if (r == NS_OK)
		r = expect_int(s, "SELECT count(*) FROM sqlite_schema s, "
			       "sqlite_temp_schema t WHERE s.name = t.name", 0);
	if (r == NS_OK)
		r = expect_int(s, "SELECT count(*) FROM (SELECT name FROM "
			       "sqlite_schema UNION SELECT name FROM "
			       "sqlite_temp_schema) WHERE name GLOB 'v_*'",
			       (int64_t)NR_QUERY_VIEWS);
	if (r == NS_OK && !s->readonly)
		r = expect_int(s, "PRAGMA foreign_keys", 1);
	if (r == NS_OK)
		r = query_text(s, "PRAGMA journal_mode", mode, sizeof mode);
	/* An immutable reader sees no journal ("delete"); its file's header
	 * says WAL, which check_file() read. */
	if (r == NS_OK && s->immutable && !s->wal_file)
		r = fail(s, NS_EINTERNAL, "store invariant: immutable reader of "
			 "a file not in WAL mode");
	/* A writer switched the file to WAL (setup_rdwr()); a reader reads
	 * the file in whatever mode its header gives, WAL or, for a file
	 * someone converted (or damaged), a rollback journal. */
	if (r == NS_OK && !s->readonly && strcmp(mode, "wal") != 0)
		r = fail(s, NS_EINTERNAL, "store invariant: journal_mode is "
			 "'%s', expected 'wal'", mode);
	if (r == NS_OK && (flags & STORE_CHECK_DATA))
		r = check_data(s);
	return r;
}
