/*
 * store_run — run transactions, group commit and rows of the results
 * database; see analysis/store_run.h, analysis/store.h and docs/reference/schema.md.
 *
 * Design notes
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
 * per run is what makes sweeps of short runs cheap (docs/guide/running.md).
 *
 * Errors.  Any failing statement while a run is open rolls the whole run
 * back (SQLite may already have rolled back on I/O or full-disk errors;
 * partial runs must never be committed by a later call).  When SQLite
 * rolled back the whole transaction, the finished runs of the open group
 * went with it; they are counted in group_lost and store_flush() reports
 * them.
 */
#include "analysis/store_run.h"
#include "analysis/store_internal.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "numasim_config.h"
#include "base/sha256.h"

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

#define SCOPE_ID_MAX 256

const char *store_scope_name(enum store_scope scope)
{
	if ((int)scope < 0 || scope >= STORE_SCOPE_COUNT)
		return NULL;
	return scope_names[scope];
}

static int64_t mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

int store_prepare_statements(struct store *s)
{
	for (int i = 0; i < ST_COUNT; i++)
		if (sqlite3_prepare_v3(s->db, stmt_sql[i], -1,
				       SQLITE_PREPARE_PERSISTENT, &s->stmt[i],
				       NULL) != SQLITE_OK)
			return store_db_fail(s, "cannot prepare '%.40s...'",
					     stmt_sql[i]);
	return NS_OK;
}

void store_run_identity(struct store *s)
{
	char now[TIME_BUF];
	if (gethostname(s->host, sizeof s->host) != 0)
		snprintf(s->host, sizeof s->host, "unknown");
	s->host[sizeof s->host - 1] = '\0';
	store_format_time(store_now_ns(), now);
	snprintf(s->invocation, sizeof s->invocation, "%s:%ld:%s", s->host,
		 (long)getpid(), now);
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
	int r = store_db_fail(s, "run %" PRId64 ": cannot store %s '%s'", run_id,
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
			return store_fail(s, NS_EINTERNAL, "run info: %s is missing",
					  req[k][0]);
	if (!is_sha256(i->scenario_sha256) || !is_sha256(i->machine_sha256))
		return store_fail(s, NS_EINTERNAL, "run info: scenario_sha256 and "
				  "machine_sha256 must be 64 lowercase hex digits");
	if (i->point < 0 || i->repetition < 0)
		return store_fail(s, NS_EINTERNAL, "run info: negative point or "
				  "repetition");
	if (i->seed > (uint64_t)INT64_MAX)
		return store_fail(s, NS_ERANGE, "run seed %" PRIu64 " does not fit "
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
		return store_fail(s, NS_EINTERNAL, "run info: the %s text hashes to "
				  "%s, not to its %s_sha256 %s", kind, hex, kind, sha);
	sqlite3_stmt *st = s->stmt[ST_INPUT];
	bind_text(st, 1, sha);
	bind_text(st, 2, kind);
	bind_text(st, 3, path);
	bind_text(st, 4, content);
	if (step_done(st) != SQLITE_OK)
		return store_db_fail(s, "cannot store the %s file", kind);
	return NS_OK;
}

static int insert_run(struct store *s, const struct store_run_info *i)
{
	char started[TIME_BUF];
	sqlite3_stmt *st = s->stmt[ST_RUN];
	store_format_time(i->started_ns ? i->started_ns : store_now_ns(), started);
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
		return store_db_fail(s, "cannot store run of scenario '%s'",
				     i->scenario);
	return NS_OK;
}

int store_run_begin(struct store *s, const struct store_run_info *info,
		    int64_t *run_id)
{
	*run_id = 0;
	if (s->readonly)
		return store_fail(s, NS_EDB, "cannot store a run: database opened "
				  "read-only");
	if (s->open_run)
		return store_fail(s, NS_EINTERNAL, "cannot begin a run: run %" PRId64
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
		return store_db_fail(s, "cannot lock the database for a new run");
	if (!s->group_open && s->group_max_runs > 1) {
		s->group_open = 1;
		s->group_runs = 0;
	}
	if (s->group_open && step_done(s->stmt[ST_SAVEPOINT]) != SQLITE_OK) {
		r = store_db_fail(s, "cannot start a run's savepoint");
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
	int r = store_db_fail(s, n == 1 ? "cannot commit the run" : "cannot commit a group of "
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
		return store_fail(s, NS_EINTERNAL, "store_set_group: %d runs, %d ms", max_runs,
				  max_ms);
	int rc = store_flush(s);
	s->group_max_runs = max_runs;
	s->group_max_ms = max_ms;
	return rc;
}

int store_flush(struct store *s)
{
	if (s->open_run)
		return store_fail(s, NS_EINTERNAL, "cannot commit the group: run %" PRId64
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
		return store_fail(s, NS_EDB, "%d finished run%s rolled back with the "
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
		return store_fail(s, NS_EINTERNAL, "cannot commit run %" PRId64
				  ": it is not open", run_id);
	sqlite3_stmt *st = s->stmt[ST_RUN_END];
	store_format_time(store_now_ns(), finished);
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
		int r = store_db_fail(s, "cannot commit run %" PRId64, run_id);
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
		return store_fail(s, NS_EINTERNAL, "failed run %" PRId64 " needs a "
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
		return store_db_fail(s, "cannot roll back run %" PRId64, id);
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

int store_profile_charge(struct store *s, int64_t run_id, const char *function,
			 const char *kind, uint64_t cycles)
{
	int r = row_ok(s, run_id, "profile charge", function);
	if (r == NS_OK)
		r = fits_int64(s, cycles, "cycles", function);
	if (r != NS_OK)
		return r;
	const struct col cols[] = {
		COL_TEXT(function), COL_TEXT(kind), COL_INT(cycles),
	};
	return insert_row(s, ST_CHARGE, run_id, cols, NR_COLS(cols), "profile charge",
			  function);
}

int store_profile_work(struct store *s, int64_t run_id, const char *function,
		       const char *unit, uint64_t executed, uint64_t cycles)
{
	int r = row_ok(s, run_id, "profile work", function);
	if (r == NS_OK && (!unit || !*unit || !executed))
		r = row_error(s, NS_EINTERNAL, "run %" PRId64 ": profile work of '%s' without "
			      "a unit or executions", run_id, function);
	if (r == NS_OK)
		r = fits_int64(s, executed, "executed", function);
	if (r == NS_OK)
		r = fits_int64(s, cycles, "cycles", function);
	if (r != NS_OK)
		return r;
	const struct col cols[] = {
		COL_TEXT(function), COL_TEXT(unit), COL_INT(executed), COL_INT(cycles),
	};
	return insert_row(s, ST_WORK, run_id, cols, NR_COLS(cols), "profile work", function);
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
