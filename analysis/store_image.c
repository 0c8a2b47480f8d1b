/*
 * store_image — see store_image.h.
 *
 * Design notes.  The import attaches an in-memory schema "nsimg", loads
 * the image into it with sqlite3_deserialize, and copies with INSERT ...
 * SELECT on the destination's connection, so the rows never pass through
 * C and keep their SQLite types (counters.scope_id is ANY).  The column
 * lists come from pragma_table_xinfo (generated columns such as
 * runs.duration_s are skipped) and the child tables are the image's
 * tables with a run_id column: the copy needs no edit when the schema
 * grows.  Bytes 18-19 of an image are the file format's WAL flag; an
 * image of a WAL database is marked rollback-journal before loading,
 * since an in-memory database cannot be in WAL mode.
 */
#include "analysis/store_image.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sqlite3.h>

#define IMG_SCHEMA "nsimg"
#define SQL_MAX 4096

int store_image_scratch(struct store **out, struct diag *d)
{
	const char *dir = getenv("TMPDIR");
	char path[4096];
	struct store *st = NULL;
	int rc;

	*out = NULL;
	snprintf(path, sizeof path, "%s/numasim-scratch-XXXXXX",
		 dir && *dir ? dir : "/tmp");
	int fd = mkstemp(path);
	if (fd < 0)
		return diag_set(d, NS_EIO, path, 0, 0, "cannot create a scratch "
				"database in %s (set TMPDIR)", dir && *dir ? dir : "/tmp");
	close(fd);
	rc = store_open(path, STORE_RDWR, &st, d);
	unlink(path);
	if (rc)
		return rc;
	char *err = NULL;
	if (sqlite3_exec(store_sqlite(st), "PRAGMA journal_mode = MEMORY; "
			 "PRAGMA synchronous = OFF", NULL, NULL, &err) != SQLITE_OK) {
		rc = diag_set(d, NS_EDB, path, 0, 0, "scratch database: %s",
			      err ? err : "cannot set pragmas");
		sqlite3_free(err);
		store_close(st);
		return rc;
	}
	*out = st;
	return NS_OK;
}

int store_image_take(struct store *scratch, unsigned char **img, size_t *len,
		     struct diag *d)
{
	sqlite3 *db = store_sqlite(scratch);
	sqlite3_int64 n = 0;
	*img = sqlite3_serialize(db, "main", &n, 0);
	*len = 0;
	if (!*img)
		return diag_set(d, NS_ENOMEM, store_path(scratch), 0, 0,
				"cannot serialize the scratch database");
	*len = (size_t)n;
	if (sqlite3_exec(db, "DELETE FROM runs", NULL, NULL, NULL) != SQLITE_OK) {
		store_image_free(*img);
		*img = NULL;
		return diag_set(d, NS_EDB, store_path(scratch), 0, 0,
				"cannot empty the scratch database: %s",
				sqlite3_errmsg(db));
	}
	return NS_OK;
}

void store_image_free(unsigned char *img)
{
	sqlite3_free(img);
}

struct importer {
	sqlite3 *db;
	const char *path;
	struct diag *d;
};

static int db_err(struct importer *im, const char *what)
{
	return diag_set(im->d, NS_EDB, im->path, 0, 0, "importing a run: %s: %s",
			what, sqlite3_errmsg(im->db));
}

static int query_int(struct importer *im, const char *sql, int64_t *v)
{
	sqlite3_stmt *st = NULL;
	int rc = sqlite3_prepare_v2(im->db, sql, -1, &st, NULL);
	*v = 0;
	if (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		*v = sqlite3_column_int64(st, 0);
		rc = SQLITE_OK;
	}
	sqlite3_finalize(st);
	return rc == SQLITE_OK ? NS_OK : db_err(im, sql);
}

/* "a, b, c": the stored columns of table (schema main) except run_id. */
static int columns(struct importer *im, const char *table, char *buf, size_t len)
{
	sqlite3_stmt *st = NULL;
	size_t used = 0;
	int rc = sqlite3_prepare_v2(im->db, "SELECT name FROM pragma_table_xinfo(?1, "
				    "'main') WHERE hidden = 0 AND name <> 'run_id' "
				    "ORDER BY cid", -1, &st, NULL);
	buf[0] = '\0';
	if (rc == SQLITE_OK)
		sqlite3_bind_text(st, 1, table, -1, SQLITE_STATIC);
	while (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		int n = snprintf(buf + used, len - used, "%s\"%s\"", used ? ", " : "",
				 (const char *)sqlite3_column_text(st, 0));
		if (n < 0 || (size_t)n >= len - used)
			rc = SQLITE_TOOBIG;
		else
			used += (size_t)n, rc = SQLITE_OK;
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE && rc != SQLITE_OK)
		return db_err(im, "cannot list the columns");
	if (!used)
		return diag_set(im->d, NS_EINPUT, im->path, 0, 0, "importing a run: "
				"table '%s' is missing", table);
	return NS_OK;
}

static int exec(struct importer *im, const char *sql, const char *what)
{
	return sqlite3_exec(im->db, sql, NULL, NULL, NULL) == SQLITE_OK
		? NS_OK : db_err(im, what);
}

/* Copy the image's rows referencing its run into run new_id. */
static int copy_children(struct importer *im, int64_t new_id)
{
	sqlite3_stmt *st = NULL;
	char cols[SQL_MAX], sql[2 * SQL_MAX + 256];
	int rc = sqlite3_prepare_v2(im->db, "SELECT m.name FROM " IMG_SCHEMA
				    ".sqlite_schema m WHERE m.type = 'table' AND "
				    "m.name <> 'runs' AND EXISTS (SELECT 1 FROM "
				    "pragma_table_info(m.name, '" IMG_SCHEMA "') c "
				    "WHERE c.name = 'run_id') ORDER BY m.name",
				    -1, &st, NULL);
	int r = rc == SQLITE_OK ? NS_OK : db_err(im, "cannot list the tables");
	while (r == NS_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		char table[128];
		snprintf(table, sizeof table, "%s", (const char *)sqlite3_column_text(st, 0));
		if ((r = columns(im, table, cols, sizeof cols)))
			break;
		int n = snprintf(sql, sizeof sql, "INSERT INTO main.\"%s\" (run_id, %s) "
				 "SELECT %" PRId64 ", %s FROM " IMG_SCHEMA ".\"%s\"",
				 table, cols, new_id, cols, table);
		r = n > 0 && (size_t)n < sizeof sql ? exec(im, sql, table)
			: diag_set(im->d, NS_EINTERNAL, im->path, 0, 0, "importing a "
				   "run: table '%s' has too many columns", table);
	}
	if (r == NS_OK && rc != SQLITE_DONE)
		r = db_err(im, "cannot list the tables");
	sqlite3_finalize(st);
	return r;
}

/* The copy proper, inside the caller's transaction. */
static int copy_run(struct importer *im, int64_t *run_id)
{
	char cols[SQL_MAX], sql[2 * SQL_MAX + 128];
	int r;
	if ((r = columns(im, "inputs", cols, sizeof cols)))
		return r;
	snprintf(sql, sizeof sql, "INSERT INTO main.inputs (%s) SELECT %s FROM "
		 IMG_SCHEMA ".inputs WHERE true ON CONFLICT (sha256) DO NOTHING",
		 cols, cols);
	if ((r = exec(im, sql, "inputs")) ||
	    (r = columns(im, "runs", cols, sizeof cols)))
		return r;
	snprintf(sql, sizeof sql, "INSERT INTO main.runs (%s) SELECT %s FROM "
		 IMG_SCHEMA ".runs", cols, cols);
	if ((r = exec(im, sql, "runs")))
		return r;
	*run_id = sqlite3_last_insert_rowid(im->db);
	return copy_children(im, *run_id);
}

/* The image is a numasim database of this version with one finished run. */
static int check_image(struct importer *im)
{
	int64_t app, ver, runs, done;
	int r;
	if ((r = query_int(im, "PRAGMA " IMG_SCHEMA ".application_id", &app)) ||
	    (r = query_int(im, "PRAGMA " IMG_SCHEMA ".user_version", &ver)))
		return r;
	if (app != STORE_APPLICATION_ID || ver != STORE_SCHEMA_VERSION)
		return diag_set(im->d, NS_EINPUT, im->path, 0, 0, "importing a run: "
				"not a numasim database of schema version %d "
				"(application_id %" PRId64 ", version %" PRId64 ")",
				STORE_SCHEMA_VERSION, app, ver);
	if ((r = query_int(im, "SELECT count(*) FROM " IMG_SCHEMA ".runs", &runs)) ||
	    (r = query_int(im, "SELECT count(*) FROM " IMG_SCHEMA ".runs WHERE "
			   "status IN ('ok', 'failed')", &done)))
		return r;
	if (runs != 1 || done != 1)
		return diag_set(im->d, NS_EINPUT, im->path, 0, 0, "importing a run: "
				"the image holds %" PRId64 " runs (%" PRId64
				" finished), expected one finished run", runs, done);
	return NS_OK;
}

int store_image_import(struct store *st, const unsigned char *img, size_t len,
		       int64_t *run_id, struct diag *d)
{
	struct importer im = {.db = store_sqlite(st), .path = store_path(st), .d = d};
	unsigned char *copy;
	int r;

	*run_id = 0;
	if (store_open_run(st))
		return diag_set(d, NS_EINTERNAL, im.path, 0, 0, "importing a run "
				"while run %" PRId64 " is open", store_open_run(st));
	if (len < 100)
		return diag_set(d, NS_EINPUT, im.path, 0, 0, "importing a run: "
				"image of %zu bytes is not a database", len);
	if ((r = exec(&im, "ATTACH ':memory:' AS " IMG_SCHEMA, "cannot attach")))
		return r;
	copy = sqlite3_malloc64(len);
	if (!copy) {
		r = diag_set(d, NS_ENOMEM, im.path, 0, 0, "out of memory");
		goto detach;
	}
	memcpy(copy, img, len);
	if (copy[18] == 2 && copy[19] == 2)
		copy[18] = copy[19] = 1;
	/* FREEONCLOSE: SQLite owns copy from here on, even on failure. */
	if (sqlite3_deserialize(im.db, IMG_SCHEMA, copy, (sqlite3_int64)len,
				(sqlite3_int64)len, SQLITE_DESERIALIZE_FREEONCLOSE) != SQLITE_OK) {
		r = db_err(&im, "cannot load the image");
		goto detach;
	}
	if ((r = check_image(&im)) ||
	    (r = exec(&im, "BEGIN IMMEDIATE", "cannot lock the database")))
		goto detach;
	r = copy_run(&im, run_id);
	if (r == NS_OK)
		r = exec(&im, "COMMIT", "cannot commit");
	if (r != NS_OK) {
		sqlite3_exec(im.db, "ROLLBACK", NULL, NULL, NULL);
		*run_id = 0;
	}
detach:
	sqlite3_exec(im.db, "DETACH " IMG_SCHEMA, NULL, NULL, NULL);
	return r;
}
