/*
 * store — the SQLite results database: opening, the file's identity,
 * migrations and the invariant walker; see store.h and docs/reference/schema.md.
 * The runs and their rows are analysis/store_run.c.
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
 * Creation and upgrades are migrations: store_migrations[i] takes the
 * schema from version i to i + 1 (version 0 = empty file), the statements
 * of analysis/schema/v<i + 1>.sql, embedded at build time (scripts/sql2c.py;
 * SQLite keeps each CREATE's text in the file, so those files are what
 * every database holds).  They run inside one BEGIN IMMEDIATE
 * transaction that re-reads the version after taking the lock, so two
 * processes creating the same new file do not both apply it.  PRAGMA
 * journal_mode=WAL cannot run inside a transaction; it is set before, and
 * only on files already known to be empty or numasim's.
 */
#include "analysis/store.h"
#include "analysis/sqlguard.h"
#include "analysis/store_internal.h"

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

/* The v_* query views: the statements of the migration to version 2. */
static int64_t nr_query_views(void)
{
	int64_t n = 0;
	for (const char *const *step = store_migrations[1]; *step; step++)
		n++;
	return n;
}

int store_fail(struct store *s, int status, const char *fmt, ...)
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

int store_db_fail(struct store *s, const char *fmt, ...)
{
	char what[512], why[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(what, sizeof what, fmt, ap);
	va_end(ap);
	error_text(s, NULL, why, sizeof why);
	return store_fail(s, NS_EDB, "%s: %s", what, why);
}

int64_t store_now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

void store_format_time(int64_t ns, char buf[TIME_BUF])
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
	int r = store_fail(s, NS_EDB, "%s: %s", what, why);
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
		return store_fail(s, NS_EINPUT, "not a numasim results database "
				  "(not an SQLite file)");
	if ((rc & 0xff) == SQLITE_CORRUPT)
		return store_fail(s, NS_EINPUT, "damaged database: %s",
				  sqlite3_errmsg(s->db));
	return store_db_fail(s, "cannot read the database (%s)", sql);
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
	return rc == SQLITE_OK ? NS_OK : store_db_fail(s, "cannot run %s", sql);
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
		return store_fail(s, ns_status_from_errno(errno), "cannot open: %s",
				  strerror(errno));
	}
	*exists = 1;
	if (!S_ISREG(st.st_mode))
		return store_fail(s, NS_EINPUT, "not a numasim results database "
				  "(not a regular file)");
	if (st.st_size == 0)
		return NS_OK;
	FILE *f = fopen(path, "rb");
	if (!f)
		return store_fail(s, ns_status_from_errno(errno), "cannot open: %s",
				  strerror(errno));
	unsigned char head[20];
	size_t n = fread(head, 1, sizeof head, f);
	fclose(f);
	if (n < sizeof magic || memcmp(head, magic, sizeof magic) != 0)
		return store_fail(s, NS_EINPUT, "not a numasim results database "
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
		return store_fail(s, ns_status_from_errno(errno), "cannot write the "
				  "database: %s", strerror(errno));
	if (dir_writable(path, &err))
		return NS_OK;
	if (!exists)
		return store_fail(s, ns_status_from_errno(err), "cannot create "
				  "database: %s", strerror(err));
	if (side_file(path, "-wal", &st) == 0 && side_file(path, "-shm", &st) == 0)
		return NS_OK; /* SQLite can use the side files that are there */
	return store_fail(s, ns_status_from_errno(err), "cannot write the database: "
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
 * How a reader opens the file without creating anything (docs/reference/schema.md,
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
	return store_fail(s, NS_EINPUT, "cannot read the database: its write-ahead "
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
			r = store_fail(s, NS_ENOMEM, "out of memory");
	} else if (path[0] == ':' || !strncmp(path, "file:", 5)) {
		name = sqlite3_mprintf("./%s", path);
		if (!name)
			r = store_fail(s, NS_ENOMEM, "out of memory");
	}
	if (r != NS_OK)
		return r;
	int flags = SQLITE_OPEN_NOMUTEX |
		    (s->readonly ? SQLITE_OPEN_READONLY | SQLITE_OPEN_URI
				 : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE);
	int rc = sqlite3_open_v2(name ? name : path, &s->db, flags, NULL);
	sqlite3_free(name);
	if (rc != SQLITE_OK && !s->db)
		return store_fail(s, NS_ENOMEM, "out of memory");
	if (rc != SQLITE_OK) {
		int err = sqlite3_system_errno(s->db);
		if (err)
			return store_fail(s, ns_status_from_errno(err), "cannot %s "
					  "database: %s", s->readonly ? "open the" :
					  "create", strerror(err));
		return store_db_fail(s, "cannot open");
	}
	sqlite3_extended_result_codes(s->db, 1);
	sqlite3_busy_timeout(s->db, STORE_BUSY_TIMEOUT_MS);
	/* Locked down before any statement reads the file (sqlguard.h). */
	if (sqlguard_lockdown(s->db) != NS_OK)
		return store_fail(s, NS_EDB, "cannot lock the SQLite connection down "
				  "(defensive mode, untrusted schema, no extensions)");
	/* Innocuous: the views call it, and an untrusted schema may only
	 * call innocuous functions. */
	if (!sqlite3_compileoption_used("ENABLE_MATH_FUNCTIONS") &&
	    sqlite3_create_function(s->db, "sqrt", 1,
				    SQLITE_UTF8 | SQLITE_DETERMINISTIC |
				    SQLITE_INNOCUOUS, NULL,
				    fn_sqrt, NULL, NULL) != SQLITE_OK)
		return store_db_fail(s, "cannot register sqrt()");
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
		return store_fail(s, NS_EINPUT, "damaged numasim results database: "
				  "table 'schema_version' is missing");
	if (uv != sv)
		return store_fail(s, NS_EINPUT, "damaged numasim results database: "
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
			return store_fail(s, NS_EINPUT, "not a numasim results "
					  "database (empty file)");
		return NS_OK;
	}
	if (app != STORE_APPLICATION_ID)
		return store_fail(s, NS_EINPUT, "not a numasim results database");
	if (version > STORE_SCHEMA_VERSION)
		return store_fail(s, NS_EINPUT, "database schema version %" PRId64
				  " is newer than this numasim supports (%d); "
				  "upgrade numasim", version, STORE_SCHEMA_VERSION);
	if (version < STORE_READONLY_MIN_VERSION && s->readonly)
		return store_fail(s, NS_EINPUT, "database schema version %" PRId64
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
		store_format_time(store_now_ns(), now);
		for (const char *const *step = store_migrations[v];
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
			return store_fail(s, NS_EINPUT, "damaged numasim results "
					  "database: table '%s' is missing",
					  required_tables[i]);
	}
	return NS_OK;
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
		r = store_fail(s, NS_EDB, "cannot switch the database to WAL mode "
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
		r = store_prepare_statements(s);
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
		for (const char *const *step = store_migrations[v];
		     r == NS_OK && *step; step++) {
			static const char view[] = "CREATE VIEW ";
			static const char table[] = "CREATE TABLE ";
			int is_view = strncmp(*step, view, sizeof view - 1) == 0;
			if (!is_view && (v < 2 || strncmp(*step, table, sizeof table - 1)))
				return store_fail(s, NS_EINTERNAL, "migration to "
						  "version %" PRId64 " is not views "
						  "and tables only", v + 1);
			char *sql = sqlite3_mprintf(is_view ? "CREATE TEMP VIEW %s"
						    : "CREATE TEMP TABLE %s",
						    *step + (is_view ? sizeof view
							     : sizeof table) - 1);
			if (!sql)
				return store_fail(s, NS_ENOMEM, "out of memory");
			r = exec_sql(s, sql, "cannot create the query views");
			sqlite3_free(sql);
		}
	return r;
}

static int is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* Equal SQL texts, any run of white space counting as one space. */
static int same_sql(const char *a, const char *b)
{
	while (is_space(*a))
		a++;
	while (is_space(*b))
		b++;
	while (*a && *b) {
		int sa = is_space(*a), sb = is_space(*b);
		if (sa != sb)
			return 0;
		if (sa) {
			while (is_space(*a))
				a++;
			while (is_space(*b))
				b++;
			continue;
		}
		if (*a++ != *b++)
			return 0;
	}
	while (is_space(*a))
		a++;
	while (is_space(*b))
		b++;
	return !*a && !*b;
}

/* The same object (type and name) in ref, with the same SQL: 1 yes, 0 no, -1 error. */
static int same_object(sqlite3_stmt *ref, const char *type, const char *name,
		       const char *sql)
{
	sqlite3_reset(ref);
	sqlite3_bind_text(ref, 1, type, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(ref, 2, name, -1, SQLITE_TRANSIENT);
	int rc = sqlite3_step(ref);
	if (rc == SQLITE_DONE)
		return 0;
	if (rc != SQLITE_ROW)
		return -1;
	const char *want = (const char *)sqlite3_column_text(ref, 0);
	if (!want || !sql)
		return !want && !sql;
	return same_sql(want, sql);
}

/*
 * The file's schema against what numasim's migrations 1..version create
 * (built in a private in-memory database): a writer refuses any object
 * that is not numasim's (a trigger, a changed table or view, an extra
 * table, view, index or virtual table), a reader any object with a
 * numasim name whose definition differs, since the readers query them.
 * SQLite's own objects (sqlite_sequence, sqlite_stat*, automatic
 * indexes) are not compared.
 */
static int check_schema(struct store *s, int64_t version)
{
	sqlite3 *ref = NULL;
	sqlite3_stmt *mine = NULL, *theirs = NULL;
	int r = NS_OK;
	if (sqlite3_open_v2(":memory:", &ref, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE,
			    NULL) != SQLITE_OK) {
		sqlite3_close(ref);
		return store_fail(s, NS_ENOMEM, "out of memory");
	}
	for (int64_t v = 0; r == NS_OK && v < version; v++)
		for (const char *const *step = store_migrations[v]; r == NS_OK && *step; step++)
			if (sqlite3_exec(ref, *step, NULL, NULL, NULL) != SQLITE_OK)
				r = store_fail(s, NS_EINTERNAL, "cannot build the reference "
					       "schema: %s", sqlite3_errmsg(ref));
	if (r == NS_OK &&
	    (sqlite3_prepare_v2(ref, "SELECT sql FROM sqlite_schema WHERE type = ?1 AND "
				"name = ?2", -1, &mine, NULL) != SQLITE_OK ||
	     sqlite3_prepare_v2(s->db, "SELECT type, name, sql FROM main.sqlite_schema "
				"WHERE NOT (type = 'table' AND name IN ('sqlite_sequence', "
				"'sqlite_stat1', 'sqlite_stat4')) AND NOT (type = 'index' AND "
				"name LIKE 'sqlite\\_autoindex\\_%' ESCAPE '\\' AND sql IS NULL) "
				"ORDER BY rowid", -1, &theirs, NULL) != SQLITE_OK))
		r = store_db_fail(s, "cannot read the schema");
	int st = SQLITE_DONE;
	while (r == NS_OK && (st = sqlite3_step(theirs)) == SQLITE_ROW) {
		const char *type = (const char *)sqlite3_column_text(theirs, 0);
		const char *name = (const char *)sqlite3_column_text(theirs, 1);
		const char *sql = (const char *)sqlite3_column_text(theirs, 2);
		type = type ? type : "(null)";
		name = name ? name : "(null)";
		int same = same_object(mine, type, name, sql);
		if (same < 0) {
			r = store_fail(s, NS_EINTERNAL, "cannot read the reference schema");
			break;
		}
		if (same)
			continue;
		int known = 0;
		if (s->readonly) {
			/* a reader only minds the objects it reads */
			sqlite3_reset(mine);
			sqlite3_stmt *any = NULL;
			if (sqlite3_prepare_v2(ref, "SELECT 1 FROM sqlite_schema WHERE name = ?1",
					       -1, &any, NULL) == SQLITE_OK) {
				sqlite3_bind_text(any, 1, name, -1, SQLITE_TRANSIENT);
				known = sqlite3_step(any) == SQLITE_ROW;
			}
			sqlite3_finalize(any);
			if (!known)
				continue;
		}
		r = store_fail(s, NS_EINPUT, "the database holds %s %s '%.100s' that numasim "
			       "did not create in this form (schema version %" PRId64 "); "
			       "numasim does not %s through objects it did not create%s",
			       strchr("aeiou", type[0]) ? "an" : "a", type, name, version,
			       s->readonly ? "read" : "write",
			       s->readonly ? "" : " (--trust-db writes anyway)");
	}
	if (r == NS_OK && st != SQLITE_DONE && st != SQLITE_ROW)
		r = store_db_fail(s, "cannot read the schema");
	sqlite3_finalize(mine);
	sqlite3_finalize(theirs);
	sqlite3_close(ref);
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
		return store_db_fail(s, "cannot check the database (PRAGMA quick_check)");
	return store_fail(s, NS_EINPUT, "damaged database: PRAGMA quick_check says "
			  "'%s'; numasim does not write into a damaged database (read "
			  "what is left with numasim query/export, or recover it with "
			  "sqlite3 FILE .recover, and run into a new file)", why);
}

static int64_t monotonic_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* SQLite's progress handler: a non-zero return stops the statement. */
static int over_time(void *arg)
{
	struct store *s = arg;
	if (s->deadline_ns && monotonic_ns() > s->deadline_ns)
		s->time_out = 1;
	return s->time_out;
}

void store_set_timeout(struct store *s, double seconds)
{
	s->timeout_s = seconds > 0 ? seconds : 0;
	s->deadline_ns = seconds > 0 ? monotonic_ns() + (int64_t)(seconds * 1e9) : 0;
	s->time_out = 0;
	sqlite3_progress_handler(s->db, seconds > 0 ? 1000 : 0, seconds > 0 ? over_time : NULL, s);
}

/* The read failed on one of the limits: say which (NS_EDB), else 0. */
static int limit_status(struct store *s)
{
	int e = sqlite3_errcode(s->db) & 0xff;
	char msg[200];
	if (s->time_out)
		snprintf(msg, sizeof msg, "time limit of %g s reached (--timeout SECONDS "
			 "sets another)", s->timeout_s);
	else if (e == SQLITE_NOMEM)
		snprintf(msg, sizeof msg, "memory limit of %lld MiB reached (SQLite's heap "
			 "limit for readers)", (long long)(STORE_READ_HEAP_LIMIT >> 20));
	else if (e == SQLITE_TOOBIG)
		snprintf(msg, sizeof msg, "a value longer than the limit of %d bytes "
			 "(SQLite's length limit for readers)", STORE_READ_MAX_LENGTH);
	else
		return 0;
	if (s->d) {
		diag_init(s->d);
		diag_set(s->d, NS_EDB, s->path, 0, 0, "%s", msg);
	}
	return NS_EDB;
}

int store_read_status(struct store *s, int status)
{
	char why[512];
	if (status == NS_OK || !s || !s->db)
		return status;
	if (s->readonly && (status == NS_EDB || status == NS_ENOMEM || s->time_out) &&
	    limit_status(s))
		return NS_EDB;
	if (status != NS_EDB)
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
	if (!path || !path[0] || (flags & ~(STORE_RDONLY | STORE_TRUST_SCHEMA)))
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
		r = store_fail(s, NS_ENOENT, "no such file");
	if (r == NS_OK && !s->readonly)
		r = check_writable(s, path, exists);
	if (r == NS_OK)
		r = connect(s, path);
	if (r == NS_OK)
		r = read_identity(s, &app, &version, &objects);
	if (r == NS_OK)
		r = classify(s, app, version, objects, &empty);
	if (r == NS_OK && !empty && !(flags & STORE_TRUST_SCHEMA))
		r = check_schema(s, version);
	if (r == NS_OK && s->readonly)
		r = check_tables(s);
	if (r == NS_OK && s->readonly)
		r = temp_views(s, version);
	if (r == NS_OK && s->readonly)
		r = exec_sql(s, "PRAGMA query_only = ON",
			     "cannot set the connection's pragmas");
	if (r == NS_OK && s->readonly) {
		sqlite3_hard_heap_limit64(STORE_READ_HEAP_LIMIT);
		sqlite3_limit(s->db, SQLITE_LIMIT_LENGTH, STORE_READ_MAX_LENGTH);
		store_set_timeout(s, STORE_READ_TIMEOUT_S);
	}
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
	store_run_identity(s);
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

/* store_check helpers: compare a pragma/query result with what we expect. */
static int expect_int(struct store *s, const char *sql, int64_t want)
{
	int64_t got = 0;
	int r = query_int(s, sql, &got);
	if (r == NS_OK && got != want)
		r = store_fail(s, NS_EINTERNAL, "store invariant: %s is %" PRId64
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
		r = store_fail(s, NS_EINTERNAL, "store invariant: quick_check "
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
		return store_fail(s, NS_EINTERNAL, "store invariant: group of %d runs, "
				  "%d finished, %s", s->group_max_runs, s->group_runs,
				  s->group_open ? "open" : "closed");
	if (!s->path || (s->open_run != 0 || s->group_open) != in_txn ||
	    (s->readonly && s->open_run))
		return store_fail(s, NS_EINTERNAL, "store invariant: open run %" PRId64
				  " but %s transaction", s->open_run,
				  in_txn ? "a" : "no");
	for (int i = 0; i < ST_COUNT; i++)
		if ((s->stmt[i] == NULL) != s->readonly)
			return store_fail(s, NS_EINTERNAL, "store invariant: "
					  "statement %d %s prepared", i,
					  s->readonly ? "is" : "is not");
	if (s->version > STORE_SCHEMA_VERSION ||
	    s->version < (s->readonly ? STORE_READONLY_MIN_VERSION
				      : STORE_SCHEMA_VERSION))
		return store_fail(s, NS_EINTERNAL, "store invariant: open at schema "
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
			       nr_query_views());
	if (r == NS_OK && !s->readonly)
		r = expect_int(s, "PRAGMA foreign_keys", 1);
	if (r == NS_OK)
		r = query_text(s, "PRAGMA journal_mode", mode, sizeof mode);
	/* An immutable reader sees no journal ("delete"); its file's header
	 * says WAL, which check_file() read. */
	if (r == NS_OK && s->immutable && !s->wal_file)
		r = store_fail(s, NS_EINTERNAL, "store invariant: immutable reader of "
			       "a file not in WAL mode");
	/* A writer switched the file to WAL (setup_rdwr()); a reader reads
	 * the file in whatever mode its header gives, WAL or, for a file
	 * someone converted (or damaged), a rollback journal. */
	if (r == NS_OK && !s->readonly && strcmp(mode, "wal") != 0)
		r = store_fail(s, NS_EINTERNAL, "store invariant: journal_mode is "
			       "'%s', expected 'wal'", mode);
	if (r == NS_OK && (flags & STORE_CHECK_DATA))
		r = check_data(s);
	return r;
}
