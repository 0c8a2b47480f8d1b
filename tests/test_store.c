/*
 * Tests for analysis/store: the SQLite results database.  Every test works
 * on files in one mkdtemp directory that the group teardown removes.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <sqlite3.h>

#include "base/diag.h"
#include "numasim_config.h"
#include "analysis/store.h"
#include "tests/sql_fixture.h"

static char tmpdir[256];

static int group_setup(void **state)
{
	(void)state;
	const char *base = getenv("TMPDIR");
	snprintf(tmpdir, sizeof tmpdir, "%s/numasim-store-XXXXXX",
		 base && base[0] ? base : "/tmp");
	return mkdtemp(tmpdir) ? 0 : -1;
}

static int group_teardown(void **state)
{
	(void)state;
	DIR *dir = opendir(tmpdir);
	if (!dir)
		return -1;
	struct dirent *e;
	while ((e = readdir(dir))) {
		char p[600];
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		snprintf(p, sizeof p, "%s/%s", tmpdir, e->d_name);
		unlink(p);
	}
	closedir(dir);
	return rmdir(tmpdir);
}

static const char *tmp_path(const char *name)
{
	static char buf[4][600];
	static int next;
	char *p = buf[next++ % 4];
	snprintf(p, sizeof buf[0], "%s/%s", tmpdir, name);
	return p;
}

static int file_exists(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0;
}

static off_t file_size(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 ? st.st_size : -1;
}

/* The file's bytes plus a NUL (malloc'ed, caller frees). */
static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	char *buf = malloc((size_t)n + 1);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
	buf[n] = '\0';
	fclose(f);
	*len = (size_t)n;
	return buf;
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "wb");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

/* Raw SQLite access, independent of the store, for checking results. */
static sqlite3 *raw_open(const char *path)
{
	sqlite3 *db = NULL;
	assert_int_equal(sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE, NULL),
			 SQLITE_OK);
	return db;
}

static double q_real(sqlite3 *db, const char *sql)
{
	sqlite3_stmt *st = q_row(db, sql);
	double v = sqlite3_column_double(st, 0);
	sqlite3_finalize(st);
	return v;
}

/* The first column of the first row as text ("(null)" for NULL). */
static const char *q_text(sqlite3 *db, const char *sql)
{
	static char buf[1024];
	sqlite3_stmt *st = q_row(db, sql);
	const unsigned char *t = sqlite3_column_text(st, 0);
	snprintf(buf, sizeof buf, "%s", t ? (const char *)t : "(null)");
	sqlite3_finalize(st);
	return buf;
}

static int raw_exec(sqlite3 *db, const char *sql)
{
	return sqlite3_exec(db, sql, NULL, NULL, NULL);
}

/* The inputs of the test runs and their SHA-256 (as sha256sum prints). */
#define SCENARIO_TEXT "name: pagealloc-order0\n"
#define MACHINE_TEXT "name: epyc-7601-8n\n"
#define SHA_A "85b34542b894cee81a9b6805402c55a5e71fdaacb839fecdb2a6f2d72ae419c1"
#define SHA_B "8b5b4bbc92e7834ae53c5cab4fc3d83b981ec20d857e79a7ce8b628384b56c0d"

static struct store_run_info run_info(int64_t point, int64_t rep)
{
	struct store_run_info i = {
		.scenario = "pagealloc-order0",
		.scenario_file = "scenarios/pagealloc-order0.yaml",
		.scenario_sha256 = SHA_A,
		.scenario_text = SCENARIO_TEXT,
		.point = point,
		.repetition = rep,
		.seed = 42 + (uint64_t)rep,
		.machine = "epyc-7601-8n",
		.machine_file = "configs/epyc-7601-8n.yaml",
		.machine_sha256 = SHA_B,
		.machine_text = MACHINE_TEXT,
		.workload = "pagealloc",
		.variant = "zonelist_iter=682a3385",
		.kernel_model = "v4.6+682a3385",
		.command = "numasim run scenarios/pagealloc-order0.yaml",
	};
	return i;
}

/* Commit one small run (one metric, three samples); returns its id. */
static int64_t commit_small_run(struct store *s, int64_t point, int64_t rep,
				double value)
{
	int64_t id = 0;
	struct store_run_info i = run_info(point, rep);
	assert_int_equal(store_run_begin(s, &i, &id), NS_OK);
	assert_int_equal(store_param_int(s, id, "order", 0), NS_OK);
	assert_int_equal(store_metric(s, id, "cycles_per_alloc", value, "cycles"),
			 NS_OK);
	double v[3] = {value - 1, value, value + 1};
	assert_int_equal(store_samples(s, id, "cycles_per_alloc", v, 3), NS_OK);
	assert_int_equal(store_run_commit(s, id), NS_OK);
	return id;
}

static int64_t child_rows(sqlite3 *db)
{
	return q_int(db, "SELECT (SELECT count(*) FROM params) + "
			 "(SELECT count(*) FROM metrics) + "
			 "(SELECT count(*) FROM samples) + "
			 "(SELECT count(*) FROM counters) + "
			 "(SELECT count(*) FROM profile) + "
			 "(SELECT count(*) FROM branches)");
}

static void test_create_and_reopen(void **state)
{
	(void)state;
	const char *path = tmp_path("create.db");
	assert_false(file_exists(path));
	struct store *s = open_rw(path);
	assert_int_equal(store_check(s, STORE_CHECK_DATA), NS_OK);
	assert_string_equal(store_path(s), path);
	assert_false(store_readonly(s));
	sqlite3 *db = store_sqlite(s);
	assert_int_equal(q_int(db, "PRAGMA application_id"), STORE_APPLICATION_ID);
	assert_int_equal(q_int(db, "PRAGMA user_version"), STORE_SCHEMA_VERSION);
	assert_int_equal(q_int(db, "SELECT max(version) FROM schema_version"),
			 STORE_SCHEMA_VERSION);
	assert_string_equal(q_text(db, "PRAGMA journal_mode"), "wal");
	assert_int_equal(q_int(db, "PRAGMA foreign_keys"), 1);
	assert_int_equal(q_int(db, "PRAGMA synchronous"), 2); /* FULL */
	assert_int_equal(q_int(db, "PRAGMA busy_timeout"), STORE_BUSY_TIMEOUT_MS);
	int64_t id = commit_small_run(s, 0, 0, 100);
	assert_int_equal(id, 1);
	store_close(s);

	/* `file` reads the application id at offset 68 (big-endian). */
	size_t len;
	unsigned char *b = (unsigned char *)slurp(path, &len);
	assert_true(len >= 100);
	assert_memory_equal(b, "SQLite format 3", 16);
	uint32_t app = (uint32_t)b[68] << 24 | (uint32_t)b[69] << 16 |
		       (uint32_t)b[70] << 8 | b[71];
	assert_int_equal(app, STORE_APPLICATION_ID);
	free(b);

	/* Reopen: the schema is kept (not re-created) and the run is there. */
	s = open_rw(path);
	db = store_sqlite(s);
	assert_int_equal(q_int(db, "SELECT count(*) FROM schema_version"),
			 STORE_SCHEMA_VERSION);
	assert_int_equal(q_int(db, "SELECT count(*) FROM runs"), 1);
	assert_int_equal(commit_small_run(s, 0, 1, 101), 2);
	assert_int_equal(store_check(s, STORE_CHECK_DATA), NS_OK);
	store_close(s);
}

static void write_full_run(struct store *s, int64_t *out_id)
{
	int64_t id = 0;
	struct store_run_info i = run_info(3, 1);
	i.seed = (uint64_t)INT64_MAX;
	i.host = "testhost";
	i.invocation = "inv-1";
	i.started_ns = (int64_t)1714564800 * 1000000000 + 123000000;
	assert_int_equal(store_run_begin(s, &i, &id), NS_OK);
	assert_int_equal(store_open_run(s), id);
	assert_int_equal(store_param(s, id, "policy", "bind"), NS_OK);
	assert_int_equal(store_param_int(s, id, "order", 3), NS_OK);
	assert_int_equal(store_param_real(s, id, "ratio", 0.25), NS_OK);
	assert_int_equal(store_param(s, id, "cpuset", NULL), NS_OK);
	assert_int_equal(store_metric(s, id, "cycles_per_alloc", 812.5, "cycles"),
			 NS_OK);
	assert_int_equal(store_metric(s, id, "stddev_of_one", NAN, "cycles"),
			 NS_OK);
	for (int k = 0; k < 13; k++)
		assert_int_equal(store_sample(s, id, "cycles_per_alloc", k,
					      800.0 + k), NS_OK);
	assert_int_equal(store_counter(s, id, STORE_SCOPE_SYSTEM, 0, NULL,
				       "pgalloc_normal", 4096), NS_OK);
	assert_int_equal(store_counter(s, id, STORE_SCOPE_NODE, 1, NULL,
				       "numa_miss", 7), NS_OK);
	assert_int_equal(store_counter(s, id, STORE_SCOPE_CPU, 12, NULL,
				       "pgfree", 9), NS_OK);
	assert_int_equal(store_counter(s, id, STORE_SCOPE_ZONE, 1, "Normal",
				       "nr_free_pages", 123456), NS_OK);
	assert_int_equal(store_counter(s, id, STORE_SCOPE_CACHE, -1,
				       "kmalloc-64", "FREE_FROZEN", 11), NS_OK);
	assert_int_equal(store_counter(s, id, STORE_SCOPE_CACHE_NODE, 2,
				       "kmalloc-64", "nr_partial", 3), NS_OK);
	assert_int_equal(store_counter(s, id, STORE_SCOPE_CACHE_CPU, 5,
				       "kmalloc-64", "CPU_PARTIAL_FREE", 4), NS_OK);
	struct store_profile_row p1 = {"get_page_from_freelist", 0, 1000, 600000,
				       900000};
	struct store_profile_row p2 = {"__next_zones_zonelist", 1, 3000, 300000,
				       300000};
	assert_int_equal(store_profile(s, id, &p1), NS_OK);
	assert_int_equal(store_profile(s, id, &p2), NS_OK);
	struct store_branch_row b1 = {"A18", "get_page_from_freelist", 0, 1000,
				      250, 10};
	struct store_branch_row b2 = {"S5", NULL, -1, 10, 0, 0};
	assert_int_equal(store_branch(s, id, &b1), NS_OK);
	assert_int_equal(store_branch(s, id, &b2), NS_OK);
	assert_int_equal(store_profile_work(s, id, "get_page_from_freelist", "gpfl_zone", 1000,
					    6000), NS_OK);
	assert_int_equal(store_check(s, STORE_CHECK_DATA), NS_OK);
	assert_int_equal(store_run_commit(s, id), NS_OK);
	assert_int_equal(store_open_run(s), 0);
	*out_id = id;
}

static void test_all_tables_roundtrip(void **state)
{
	(void)state;
	const char *path = tmp_path("roundtrip.db");
	struct store *s = open_rw(path);
	int64_t id;
	write_full_run(s, &id);
	store_close(s);

	struct diag d;
	diag_init(&d);
	assert_int_equal(store_open(path, STORE_RDONLY, &s, &d), NS_OK);
	assert_true(store_readonly(s));
	assert_int_equal(store_check(s, STORE_CHECK_DATA), NS_OK);
	sqlite3 *db = store_sqlite(s);
	assert_string_equal(q_text(db, "SELECT scenario || '|' || point || '|' || "
				       "repetition || '|' || machine || '|' || "
				       "workload || '|' || variant || '|' || "
				       "kernel_model || '|' || status FROM runs"),
			    "pagealloc-order0|3|1|epyc-7601-8n|pagealloc|"
			    "zonelist_iter=682a3385|v4.6+682a3385|ok");
	assert_int_equal(q_int(db, "SELECT seed FROM runs"), INT64_MAX);
	assert_string_equal(q_text(db, "SELECT scenario_sha256 FROM runs"), SHA_A);
	assert_string_equal(q_text(db, "SELECT machine_sha256 FROM runs"), SHA_B);
	assert_string_equal(q_text(db, "SELECT host || ' ' || invocation FROM runs"),
			    "testhost inv-1");
	assert_string_equal(q_text(db, "SELECT started FROM runs"),
			    "2024-05-01T12:00:00.123Z");
	assert_string_equal(q_text(db, "SELECT tool_version FROM runs"),
			    NUMASIM_VERSION);
	assert_string_equal(q_text(db, "SELECT command FROM runs"),
			    "numasim run scenarios/pagealloc-order0.yaml");
	assert_int_equal(q_int(db, "SELECT finished IS NOT NULL AND "
				   "duration_s > 0 AND message IS NULL FROM runs"), 1);
	assert_string_equal(q_text(db, "SELECT content FROM inputs WHERE "
				       "sha256 = (SELECT machine_sha256 FROM runs)"),
			    "name: epyc-7601-8n\n");
	assert_int_equal(q_int(db, "SELECT count(*) FROM inputs"), 2);
	assert_string_equal(q_text(db, "SELECT function || '|' || unit || '|' || executed || "
				       "'|' || cycles FROM profile_work"),
			    "get_page_from_freelist|gpfl_zone|1000|6000");

	/* params keep their types; NULL stays NULL. */
	assert_string_equal(q_text(db, "SELECT group_concat(key || ':' || "
				       "typeof(value), ',') FROM (SELECT * FROM "
				       "params ORDER BY key)"),
			    "cpuset:null,order:integer,policy:text,ratio:real");
	assert_int_equal(q_int(db, "SELECT count(*) FROM params WHERE "
				   "value > 2 AND key = 'order'"), 1);
	assert_string_equal(q_text(db, "SELECT params FROM run_params"),
			    "cpuset=~ order=3 policy=bind ratio=0.25");
	assert_int_equal(q_int(db, "SELECT json_extract(params_json, '$.order') "
				   "FROM run_params"), 3);

	/* metrics: NaN became NULL (undefined). */
	assert_true(q_real(db, "SELECT value FROM metrics WHERE "
			       "name = 'cycles_per_alloc'") == 812.5);
	assert_string_equal(q_text(db, "SELECT value FROM metrics WHERE "
				       "name = 'stddev_of_one'"), "(null)");
	assert_string_equal(q_text(db, "SELECT unit FROM metrics LIMIT 1"), "cycles");

	/* samples and their summary (mean of 800..812 = 806). */
	assert_int_equal(q_int(db, "SELECT count(*) FROM samples"), 13);
	assert_true(q_real(db, "SELECT value FROM samples WHERE idx = 12") == 812.0);
	assert_true(q_real(db, "SELECT mean FROM sample_summary") == 806.0);
	assert_string_equal(q_text(db, "SELECT unit FROM sample_summary"), "cycles");
	/* stddev of 0..12 (sample) = sqrt(182/12) */
	assert_true(fabs(q_real(db, "SELECT stddev FROM sample_summary") -
			 sqrt(182.0 / 12)) < 1e-9);

	/* counters: scope ids and their split in counter_values. */
	assert_int_equal(q_int(db, "SELECT count(*) FROM counters"), 7);
	assert_string_equal(q_text(db, "SELECT scope_id FROM counters WHERE "
				       "scope = 'zone'"), "1/Normal");
	assert_string_equal(q_text(db, "SELECT typeof(scope_id) FROM counters "
				       "WHERE scope = 'cpu'"), "integer");
	assert_string_equal(q_text(db, "SELECT node || ' ' || object FROM "
				       "counter_values WHERE scope = 'zone'"),
			    "1 Normal");
	assert_string_equal(q_text(db, "SELECT node || ' ' || object FROM "
				       "counter_values WHERE scope = 'cache_node'"),
			    "2 kmalloc-64");
	assert_string_equal(q_text(db, "SELECT cpu || ' ' || object FROM "
				       "counter_values WHERE scope = 'cache_cpu'"),
			    "5 kmalloc-64");
	assert_int_equal(q_int(db, "SELECT value FROM counter_values WHERE "
				   "scope = 'node' AND node = 1 AND "
				   "name = 'numa_miss'"), 7);

	/* profile and branches, with the derived figures of their views. */
	assert_string_equal(q_text(db, "SELECT calls || ' ' || self_cycles || ' ' "
				       "|| total_cycles || ' ' || inlined FROM "
				       "profile WHERE function = "
				       "'__next_zones_zonelist'"),
			    "3000 300000 300000 1");
	assert_true(fabs(q_real(db, "SELECT self_pct FROM profile_report WHERE "
				    "function = 'get_page_from_freelist'") -
			 200.0 / 3) < 1e-9);
	assert_true(q_real(db, "SELECT cycles_per_call FROM profile_report "
			       "WHERE function = 'get_page_from_freelist'") == 900.0);
	assert_string_equal(q_text(db, "SELECT executed || ' ' || taken || ' ' || "
				       "mispredicted || ' ' || function FROM "
				       "branches WHERE site = 'A18'"),
			    "1000 250 10 get_page_from_freelist");
	assert_int_equal(q_int(db, "SELECT cond_true FROM branch_stats WHERE "
				   "site = 'A18'"), 250);
	assert_true(q_real(db, "SELECT mispredict_pct FROM branch_stats WHERE "
			       "site = 'A18'") == 1.0);
	assert_string_equal(q_text(db, "SELECT fallthrough FROM branches WHERE "
				       "site = 'S5'"), "(null)");
	assert_int_equal(q_int(db, "SELECT n_samples FROM run_overview"), 13);
	store_close(s);
}

static void test_metric_summary_over_repetitions(void **state)
{
	(void)state;
	struct store *s = open_rw(tmp_path("summary.db"));
	double v[4] = {100, 102, 98, 104};
	for (int rep = 0; rep < 4; rep++)
		commit_small_run(s, 0, rep, v[rep]);
	commit_small_run(s, 1, 0, 500); /* another sweep point */
	int64_t id;
	struct store_run_info i = run_info(0, 9);
	assert_int_equal(store_run_begin(s, &i, &id), NS_OK);
	assert_int_equal(store_metric(s, id, "cycles_per_alloc", 1e9, "cycles"),
			 NS_OK);
	assert_int_equal(store_run_fail(s, id, "zone watermark breached"), NS_OK);
	sqlite3 *db = store_sqlite(s);
	/* The failed run keeps its row and message but is not summarised. */
	assert_string_equal(q_text(db, "SELECT status || ': ' || message FROM runs "
				       "WHERE repetition = 9"),
			    "failed: zone watermark breached");
	assert_int_equal(q_int(db, "SELECT count(*) FROM metrics WHERE "
				   "run_id = (SELECT run_id FROM runs WHERE "
				   "status = 'failed')"), 1);
	assert_int_equal(q_int(db, "SELECT count(*) FROM metric_summary"), 2);
	assert_int_equal(q_int(db, "SELECT n FROM metric_summary WHERE point = 0"), 4);
	assert_true(q_real(db, "SELECT mean FROM metric_summary WHERE point = 0") ==
		    101.0);
	/* sample stddev of 100,102,98,104: sqrt(20/3) */
	assert_true(fabs(q_real(db, "SELECT stddev FROM metric_summary WHERE "
				    "point = 0") - sqrt(20.0 / 3)) < 1e-9);
	assert_true(fabs(q_real(db, "SELECT sem FROM metric_summary WHERE "
				    "point = 0") - sqrt(20.0 / 3 / 4)) < 1e-9);
	assert_string_equal(q_text(db, "SELECT stddev FROM metric_summary WHERE "
				       "point = 1"), "(null)");
	store_close(s);
}

static void test_abort_leaves_no_rows(void **state)
{
	(void)state;
	const char *path = tmp_path("abort.db");
	struct store *s = open_rw(path);
	commit_small_run(s, 0, 0, 100);
	sqlite3 *db = store_sqlite(s);
	int64_t before = child_rows(db);

	int64_t id;
	write_full_run(s, &id); /* committed: a reference for the counts */
	int64_t full = child_rows(db) - before;
	assert_true(full > 20);
	before = child_rows(db);

	struct store_run_info i = run_info(5, 0);
	assert_int_equal(store_run_begin(s, &i, &id), NS_OK);
	assert_int_equal(store_param(s, id, "x", "1"), NS_OK);
	assert_int_equal(store_samples(s, id, "lat", (double[]){1, 2, 3}, 3), NS_OK);
	struct store_branch_row b = {"A1", NULL, 1, 5, 2, 1};
	assert_int_equal(store_branch(s, id, &b), NS_OK);
	assert_int_equal(store_run_abort(s), NS_OK);
	assert_int_equal(store_open_run(s), 0);
	assert_int_equal(store_run_abort(s), NS_OK); /* idempotent */
	assert_int_equal(q_int(db, "SELECT count(*) FROM runs"), 2);
	assert_int_equal(child_rows(db), before);
	/* A row for the aborted run is a programming error now. */
	struct diag d;
	diag_init(&d);
	store_set_diag(s, &d);
	assert_int_equal(store_metric(s, id, "m", 1, "count"), NS_EINTERNAL);
	assert_non_null(strstr(d.msg, "is not open"));

	/* Closing with a run open rolls it back too. */
	assert_int_equal(store_run_begin(s, &i, &id), NS_OK);
	assert_int_equal(store_metric(s, id, "m", 1, "count"), NS_OK);
	store_close(s);
	s = open_rw(path);
	db = store_sqlite(s);
	assert_int_equal(q_int(db, "SELECT count(*) FROM runs"), 2);
	assert_int_equal(child_rows(db), before);
	/* The ids of rolled-back runs were never committed, so reuse is fine;
	 * committed ids are never reused (AUTOINCREMENT). */
	assert_int_equal(commit_small_run(s, 0, 2, 1), 3);
	assert_int_equal(store_check(s, STORE_CHECK_DATA), NS_OK);
	store_close(s);
}

static void test_error_mid_run_rolls_back(void **state)
{
	(void)state;
	struct diag d;
	diag_init(&d);
	const char *path = tmp_path("midrun.db");
	struct store *s = open_rw(path);
	store_set_diag(s, &d);
	commit_small_run(s, 0, 0, 100);
	sqlite3 *db = store_sqlite(s);
	int64_t rows = child_rows(db), id;
	struct store_run_info i = run_info(1, 0);
	assert_int_equal(store_run_begin(s, &i, &id), NS_OK);
	assert_int_equal(store_sample(s, id, "lat", 0, 1.0), NS_OK);
	/* taken > executed violates the table's CHECK constraint. */
	struct store_branch_row bad = {"A18", NULL, 0, 10, 11, 0};
	assert_int_equal(store_branch(s, id, &bad), NS_EDB);
	assert_int_equal(d.status, NS_EDB);
	assert_string_equal(d.file, path);
	assert_non_null(strstr(d.msg, "run 2: cannot store branch site 'A18'"));
	assert_non_null(strstr(d.msg, "CHECK constraint failed"));
	assert_int_equal(store_open_run(s), 0);
	assert_int_equal(store_sample(s, id, "lat", 1, 2.0), NS_EINTERNAL);
	assert_int_equal(store_run_commit(s, id), NS_EINTERNAL);
	assert_int_equal(q_int(db, "SELECT count(*) FROM runs"), 1);
	assert_int_equal(child_rows(db), rows);

	/* A duplicate key (same sample twice) also drops the whole run. */
	diag_init(&d);
	assert_int_equal(store_run_begin(s, &i, &id), NS_OK);
	assert_int_equal(store_sample(s, id, "lat", 0, 1.0), NS_OK);
	assert_int_equal(store_sample(s, id, "lat", 0, 1.0), NS_EDB);
	assert_non_null(strstr(d.msg, "UNIQUE constraint failed"));
	/* NaN samples and self > total are refused before SQLite sees them. */
	diag_init(&d);
	assert_int_equal(store_run_begin(s, &i, &id), NS_OK);
	assert_int_equal(store_sample(s, id, "lat", 0, NAN), NS_EINTERNAL);
	assert_non_null(strstr(d.msg, "is NaN"));
	diag_init(&d);
	assert_int_equal(store_run_begin(s, &i, &id), NS_OK);
	struct store_profile_row p = {"__slab_free", 0, 1, 10, 5};
	assert_int_equal(store_profile(s, id, &p), NS_EINTERNAL);
	assert_int_equal(store_open_run(s), 0);
	/* a unit of work that never ran has no row: one of none is refused */
	diag_init(&d);
	assert_int_equal(store_run_begin(s, &i, &id), NS_OK);
	assert_int_equal(store_profile_work(s, id, "__slab_free", "slab_free_try", 0, 0),
			 NS_EINTERNAL);
	assert_non_null(strstr(d.msg, "without a unit or executions"));
	assert_int_equal(store_open_run(s), 0);
	assert_int_equal(q_int(db, "SELECT count(*) FROM runs"), 1);
	assert_int_equal(child_rows(db), rows);
	assert_int_equal(store_check(s, STORE_CHECK_DATA), NS_OK);
	store_close(s);
}

static void test_api_misuse(void **state)
{
	(void)state;
	struct diag d;
	diag_init(&d);
	struct store *s = open_rw(tmp_path("misuse.db"));
	store_set_diag(s, &d);
	int64_t id, id2;
	struct store_run_info i = run_info(0, 0);

	i.seed = (uint64_t)INT64_MAX + 1;
	assert_int_equal(store_run_begin(s, &i, &id), NS_ERANGE);
	assert_non_null(strstr(d.msg, "does not fit"));
	i = run_info(0, 0);
	i.machine_sha256 = "ABC";
	diag_init(&d);
	assert_int_equal(store_run_begin(s, &i, &id), NS_EINTERNAL);
	i = run_info(0, 0);
	i.machine_text = "name: something-else\n"; /* does not hash to SHA_B */
	diag_init(&d);
	assert_int_equal(store_run_begin(s, &i, &id), NS_EINTERNAL);
	assert_non_null(strstr(d.msg, "not to its machine_sha256"));
	assert_int_equal(q_int(store_sqlite(s), "SELECT count(*) FROM inputs"), 0);
	i = run_info(0, 0);
	i.kernel_model = "";
	diag_init(&d);
	assert_int_equal(store_run_begin(s, &i, &id), NS_EINTERNAL);
	assert_non_null(strstr(d.msg, "kernel_model is missing"));
	assert_int_equal(store_open_run(s), 0);

	i = run_info(0, 0);
	assert_int_equal(store_run_begin(s, &i, &id), NS_OK);
	diag_init(&d);
	assert_int_equal(store_run_begin(s, &i, &id2), NS_EINTERNAL);
	assert_non_null(strstr(d.msg, "still open"));
	assert_int_equal(store_open_run(s), id); /* still usable */
	assert_int_equal(store_counter(s, id, STORE_SCOPE_NODE, 0, NULL, "numa_hit",
				       1), NS_OK);
	/* zone without a zone name: refused, and the run is dropped. */
	assert_int_equal(store_counter(s, id, STORE_SCOPE_ZONE, 0, NULL,
				       "nr_free_pages", 1), NS_EINTERNAL);
	assert_int_equal(store_open_run(s), 0);
	assert_int_equal(q_int(store_sqlite(s), "SELECT count(*) FROM runs"), 0);

	assert_int_equal(store_run_begin(s, &i, &id), NS_OK);
	assert_int_equal(store_counter(s, id, STORE_SCOPE_CACHE, -1, "a/b", "x", 1),
			 NS_EINTERNAL);
	assert_int_equal(store_run_begin(s, &i, &id), NS_OK);
	assert_int_equal(store_metric(s, id, "m", 1, ""), NS_EINTERNAL);
	assert_int_equal(store_run_begin(s, &i, &id), NS_OK);
	assert_int_equal(store_run_fail(s, id, ""), NS_EINTERNAL);
	assert_int_equal(store_run_abort(s), NS_OK);
	assert_string_equal(store_scope_name(STORE_SCOPE_CACHE_CPU), "cache_cpu");
	assert_null(store_scope_name(STORE_SCOPE_COUNT));
	assert_int_equal(store_check(s, STORE_CHECK_DATA), NS_OK);
	store_close(s);
	store_close(NULL);
}

/* The bytes of a file, to check later that nothing has written to it. */
struct snap {
	char *buf;
	size_t len;
};

static struct snap snap_take(const char *path)
{
	struct snap b;
	b.buf = slurp(path, &b.len);
	return b;
}

/* path is byte for byte what snap_take saw; frees the snapshot. */
static void snap_same(const char *path, struct snap *b)
{
	size_t len;
	char *after = slurp(path, &len);
	assert_int_equal(b->len, len);
	assert_memory_equal(b->buf, after, len);
	free(after);
	free(b->buf);
	b->buf = NULL;
}

/* A database with one small committed run, then sql run on the raw file
 * (to make it look like an older version). */
static void old_file(const char *path, const char *sql)
{
	struct store *s = open_rw(path);
	commit_small_run(s, 0, 0, 100);
	store_close(s);
	sqlite3 *db = raw_open(path);
	assert_int_equal(raw_exec(db, sql), SQLITE_OK);
	sqlite3_close(db);
}

/* Open path read-only (errors into d), which must succeed with its data
 * intact. */
static struct store *open_ro(const char *path, struct diag *d)
{
	struct store *s = NULL;
	diag_init(d);
	assert_int_equal(store_open(path, STORE_RDONLY, &s, d), NS_OK);
	assert_int_equal(store_check(s, STORE_CHECK_DATA), NS_OK);
	return s;
}

/* Expect store_open to refuse path with status and message; file untouched. */
static void expect_refused(const char *path, int flags, int status,
			   const char *msg)
{
	struct stat st;
	int regular = stat(path, &st) == 0 && S_ISREG(st.st_mode);
	struct snap before = {NULL, 0};
	if (regular)
		before = snap_take(path);
	struct store *s = (struct store *)1;
	struct diag d;
	diag_init(&d);
	assert_int_equal(store_open(path, flags, &s, &d), status);
	assert_null(s);
	assert_string_equal(d.file, path);
	if (strcmp(d.msg, msg) != 0)
		fail_msg("message '%s', expected '%s'", d.msg, msg);
	char out[2048];
	FILE *f = fmemopen(out, sizeof out, "w");
	diag_print(&d, f);
	fclose(f);
	assert_non_null(strstr(out, ": error: "));
	assert_int_equal(strncmp(out, path, strlen(path)), 0);
	if (regular)
		snap_same(path, &before);
	assert_int_equal(ns_status_exit(status), 2);
}

static void test_newer_schema_refused(void **state)
{
	(void)state;
	const char *path = tmp_path("newer.db");
	store_close(open_rw(path));
	sqlite3 *db = raw_open(path);
	assert_int_equal(raw_exec(db, "PRAGMA user_version = 7"), SQLITE_OK);
	sqlite3_close(db);
	char msg[200];
	snprintf(msg, sizeof msg, "database schema version 7 is newer than this "
		 "numasim supports (%d); upgrade numasim", STORE_SCHEMA_VERSION);
	expect_refused(path, STORE_RDWR, NS_EINPUT, msg);
	expect_refused(path, STORE_RDONLY, NS_EINPUT, msg);

	/* The schema_version table alone saying so is enough too. */
	const char *path2 = tmp_path("newer2.db");
	store_close(open_rw(path2));
	db = raw_open(path2);
	assert_int_equal(raw_exec(db, "INSERT INTO schema_version VALUES "
				      "(9, '2030-01-01T00:00:00Z', '9.0')"),
			 SQLITE_OK);
	sqlite3_close(db);
	snprintf(msg, sizeof msg, "database schema version 9 is newer than this "
		 "numasim supports (%d); upgrade numasim", STORE_SCHEMA_VERSION);
	expect_refused(path2, STORE_RDWR, NS_EINPUT, msg);
}

static void test_foreign_sqlite_refused(void **state)
{
	(void)state;
	const char *path = tmp_path("foreign.db");
	sqlite3 *db = NULL;
	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	assert_int_equal(raw_exec(db, "CREATE TABLE runs (id INTEGER); "
				      "INSERT INTO runs VALUES (1)"), SQLITE_OK);
	sqlite3_close(db);
	expect_refused(path, STORE_RDWR, NS_EINPUT,
		       "not a numasim results database");
	expect_refused(path, STORE_RDONLY, NS_EINPUT,
		       "not a numasim results database");

	/* Another application's (empty) database: refused by application_id. */
	const char *other = tmp_path("otherapp.db");
	assert_int_equal(sqlite3_open(other, &db), SQLITE_OK);
	assert_int_equal(raw_exec(db, "PRAGMA application_id = 1"), SQLITE_OK);
	sqlite3_close(db);
	assert_true(file_size(other) > 0);
	expect_refused(other, STORE_RDWR, NS_EINPUT,
		       "not a numasim results database");
}

static void test_non_sqlite_refused(void **state)
{
	(void)state;
	const char *text = tmp_path("notes.txt");
	write_file(text, "These are my notes about NUMA allocation.\n"
			 "They are not a database, and must stay intact.\n");
	expect_refused(text, STORE_RDWR, NS_EINPUT,
		       "not a numasim results database (not an SQLite file)");
	/* SQLite would take a tiny file for an empty database. */
	const char *tiny = tmp_path("tiny.txt");
	write_file(tiny, "x\n");
	expect_refused(tiny, STORE_RDWR, NS_EINPUT,
		       "not a numasim results database (not an SQLite file)");
	expect_refused(tmpdir, STORE_RDWR, NS_EINPUT,
		       "not a numasim results database (not a regular file)");

	/* The SQLite magic followed by garbage: still an input error. */
	const char *bad = tmp_path("garbage.db");
	FILE *f = fopen(bad, "wb");
	assert_non_null(f);
	fwrite("SQLite format 3", 1, 16, f);
	for (int i = 0; i < 8192; i++)
		fputc((i * 7919) & 0xff, f);
	fclose(f);
	struct store *s = NULL;
	struct diag d;
	diag_init(&d);
	assert_int_equal(store_open(bad, STORE_RDWR, &s, &d), NS_EINPUT);
	assert_null(s);
	assert_true(strstr(d.msg, "not a numasim results database") ||
		    strstr(d.msg, "damaged database"));
	assert_false(file_exists(tmp_path("notes.txt-wal")));
	assert_false(file_exists(tmp_path("tiny.txt-wal")));
}

static void test_empty_file_gets_schema(void **state)
{
	(void)state;
	const char *path = tmp_path("empty.db");
	write_file(path, "");
	expect_refused(path, STORE_RDONLY, NS_EINPUT,
		       "not a numasim results database (empty file)");
	struct store *s = open_rw(path);
	assert_int_equal(store_check(s, STORE_CHECK_DATA), NS_OK);
	store_close(s);
	/* Creating in a directory that does not exist: an input error. */
	struct diag d;
	diag_init(&d);
	assert_int_equal(store_open(tmp_path("no-such-dir/x.db"), STORE_RDWR, &s,
				    &d), NS_ENOENT);
	assert_non_null(strstr(d.msg, "cannot create database: No such file or directory"));
}

static void test_readonly(void **state)
{
	(void)state;
	const char *missing = tmp_path("missing.db");
	expect_refused(missing, STORE_RDONLY, NS_ENOENT, "no such file");
	assert_false(file_exists(missing));

	const char *path = tmp_path("ro.db");
	struct store *s = open_rw(path);
	commit_small_run(s, 0, 0, 100);
	store_close(s);
	struct snap before = snap_take(path);

	struct diag d;
	s = open_ro(path, &d);
	int64_t id = 0;
	struct store_run_info i = run_info(0, 1);
	assert_int_equal(store_run_begin(s, &i, &id), NS_EDB);
	assert_non_null(strstr(d.msg, "read-only"));
	assert_int_equal(id, 0);
	assert_int_equal(store_metric(s, 1, "m", 1, "count"), NS_EINTERNAL);
	sqlite3 *db = store_sqlite(s);
	assert_int_equal(raw_exec(db, "DELETE FROM runs") & 0xff, SQLITE_READONLY);
	assert_int_equal(raw_exec(db, "CREATE TABLE t (x)") & 0xff, SQLITE_READONLY);
	assert_int_equal(q_int(db, "SELECT count(*) FROM runs"), 1);
	store_close(s);
	snap_same(path, &before);
}

/*
 * A file someone converted to a rollback journal (sqlite3 FILE 'PRAGMA
 * journal_mode = DELETE', to hand it on as one file): read-only opens
 * read it untouched and pass the check; a read-write open switches it
 * back to WAL.  (fuzz_db found the check refusing what the open took:
 * tests/fuzz/seeds/db/reader-not-wal.db.)
 */
static void test_rollback_journal_file(void **state)
{
	(void)state;
	const char *path = tmp_path("delete.db");
	old_file(path, "PRAGMA journal_mode = DELETE");
	struct snap before = snap_take(path);
	struct diag d;
	struct store *s = open_ro(path, &d);
	sqlite3 *db = store_sqlite(s);
	assert_int_equal(q_int(db, "SELECT count(*) FROM v_runs WHERE status = 'ok'"), 1);
	store_close(s);
	snap_same(path, &before);

	s = open_rw(path);
	assert_int_equal(store_check(s, STORE_CHECK_DATA), NS_OK);
	store_close(s);
}

/*
 * A version-1 file (no v_* views): read-only opens accept it untouched and
 * add the views as TEMP views; a read-write open upgrades it in place.
 */
static void test_version1_file(void **state)
{
	(void)state;
	const char *path = tmp_path("v1.db");
	old_file(path, "DROP VIEW v_runs; DROP VIEW v_params; "
		 "DROP VIEW v_metrics; DROP VIEW v_samples; "
		 "DROP VIEW v_counters; DROP VIEW v_profile; "
		 "DROP VIEW v_branches; DROP VIEW profile_stacks; "
		 "DROP TABLE profile_paths; DROP TABLE profile_charges; DROP TABLE profile_work; "
		 "DELETE FROM schema_version WHERE version >= 2; "
		 "PRAGMA user_version = 1");
	struct snap before = snap_take(path);
	struct diag d;
	struct store *s = open_ro(path, &d);
	sqlite3 *db = store_sqlite(s);
	assert_int_equal(q_int(db, "SELECT count(*) FROM sqlite_temp_schema "
			       "WHERE type = 'view' AND name GLOB 'v_*'"), 7);
	assert_int_equal(q_int(db, "SELECT count(*) FROM v_metrics"),
			 q_int(db, "SELECT count(*) FROM metrics"));
	assert_int_equal(q_int(db, "SELECT count(*) FROM v_runs WHERE "
			       "status = 'ok'"), 1);
	store_close(s);
	snap_same(path, &before);

	s = open_rw(path);
	assert_int_equal(store_check(s, STORE_CHECK_DATA), NS_OK);
	db = store_sqlite(s);
	assert_int_equal(q_int(db, "SELECT count(*) FROM sqlite_schema WHERE "
			       "type = 'view' AND name GLOB 'v_*'"), 7);
	assert_int_equal(q_int(db, "PRAGMA user_version"), STORE_SCHEMA_VERSION);
	store_close(s);
}

/*
 * A version-2 file (no call paths): read-only opens accept it untouched,
 * with profile_paths as an empty TEMP table and profile_stacks as a TEMP
 * view; a read-write open upgrades it in place and stores paths.
 */
static void test_version2_file(void **state)
{
	(void)state;
	const char *path = tmp_path("v2.db");
	old_file(path, "DROP VIEW profile_stacks; DROP TABLE profile_paths; "
		 "DROP TABLE profile_charges; DROP TABLE profile_work; "
		 "DELETE FROM schema_version WHERE version >= 3; "
		 "PRAGMA user_version = 2");
	struct snap before = snap_take(path);
	struct diag d;
	struct store *s = open_ro(path, &d);
	sqlite3 *db = store_sqlite(s);
	assert_int_equal(q_int(db, "SELECT count(*) FROM sqlite_temp_schema WHERE "
			       "name IN ('profile_paths', 'profile_stacks')"), 2);
	assert_int_equal(q_int(db, "SELECT count(*) FROM profile_stacks"), 0);
	store_close(s);
	snap_same(path, &before);

	s = open_rw(path);
	assert_int_equal(store_check(s, STORE_CHECK_DATA), NS_OK);
	db = store_sqlite(s);
	assert_int_equal(q_int(db, "SELECT count(*) FROM sqlite_schema WHERE "
			       "name IN ('profile_paths', 'profile_stacks')"), 2);
	int64_t id;
	struct store_run_info i = run_info(1, 0);
	assert_int_equal(store_run_begin(s, &i, &id), NS_OK);
	struct store_path_row a = {.path_id = 1, .parent_id = 0, .function = "f",
				   .calls = 2, .self_cycles = 10, .mispredicted = 1};
	struct store_path_row b = {.path_id = 2, .parent_id = 1, .function = "g",
				   .calls = 3, .self_cycles = 7};
	assert_int_equal(store_call_path(s, id, &a), NS_OK);
	assert_int_equal(store_call_path(s, id, &b), NS_OK);
	assert_int_equal(store_run_commit(s, id), NS_OK);
	assert_int_equal(q_int(db, "SELECT sum(self_cycles) FROM profile_stacks WHERE "
			       "stack = 'f;g'"), 7);
	/* a child before its parent is refused by the table's CHECK */
	assert_int_equal(store_run_begin(s, &i, &id), NS_OK);
	struct store_path_row c = {.path_id = 3, .parent_id = 4, .function = "h"};
	assert_int_equal(store_call_path(s, id, &c), NS_EDB);
	store_close(s);
}

static void test_reader_sees_only_committed(void **state)
{
	(void)state;
	const char *path = tmp_path("isolation.db");
	struct store *w = open_rw(path);
	commit_small_run(w, 0, 0, 100);
	struct store *r = NULL;
	assert_int_equal(store_open(path, STORE_RDONLY, &r, NULL), NS_OK);
	int64_t id;
	struct store_run_info i = run_info(1, 0);
	assert_int_equal(store_run_begin(w, &i, &id), NS_OK);
	assert_int_equal(store_sample(w, id, "lat", 0, 1.0), NS_OK);
	/* WAL: the reader neither blocks nor sees the 'running' run. */
	assert_int_equal(q_int(store_sqlite(r), "SELECT count(*) FROM runs"), 1);
	assert_int_equal(q_int(store_sqlite(r), "SELECT count(*) FROM runs "
						"WHERE status = 'running'"), 0);
	assert_int_equal(store_check(w, STORE_CHECK_DATA), NS_OK);
	assert_int_equal(store_run_commit(w, id), NS_OK);
	assert_int_equal(q_int(store_sqlite(r), "SELECT count(*) FROM runs"), 2);
	store_close(r);
	store_close(w);
}

/*
 * The child process: open the store, begin a run, write enough rows that
 * SQLite spills uncommitted pages into the WAL, then die before the
 * commit (_exit or SIGKILL).  No cmocka here: only exit codes.
 */
static void crash_child(const char *path, int sigkill)
{
	struct store *s = NULL;
	int64_t id;
	if (store_open(path, STORE_RDWR, &s, NULL) != NS_OK)
		_exit(20);
	/* A small page cache makes SQLite spill early, like a big run. */
	if (sqlite3_exec(store_sqlite(s), "PRAGMA cache_size = 32", NULL, NULL,
			 NULL) != SQLITE_OK)
		_exit(23);
	struct store_run_info i = run_info(7, 7);
	if (store_run_begin(s, &i, &id) != NS_OK)
		_exit(21);
	store_param(s, id, "doomed", "yes");
	store_metric(s, id, "cycles", 1, "cycles");
	for (int k = 0; k < 30000; k++)
		if (store_sample(s, id, "lat", k, k * 0.5) != NS_OK)
			_exit(22);
	if (sigkill)
		raise(SIGKILL);
	_exit(10);
}

static void crash_once(const char *path, int sigkill)
{
	struct store *s = open_rw(path);
	sqlite3 *db = store_sqlite(s);
	int64_t runs = q_int(db, "SELECT count(*) FROM runs");
	int64_t rows = child_rows(db);
	store_close(s);

	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0)
		crash_child(path, sigkill);
	int status = 0;
	assert_int_equal(waitpid(pid, &status, 0), pid);
	if (sigkill)
		assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
	else
		assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 10);
	/* The uncommitted run really reached the disk (WAL frames). */
	char wal[600];
	snprintf(wal, sizeof wal, "%s-wal", path);
	assert_true(file_size(wal) > 256 << 10);

	s = open_rw(path);
	db = store_sqlite(s);
	assert_int_equal(store_check(s, STORE_CHECK_DATA), NS_OK);
	assert_int_equal(q_int(db, "SELECT count(*) FROM runs"), runs);
	assert_int_equal(child_rows(db), rows);
	assert_int_equal(q_int(db, "SELECT count(*) FROM params WHERE "
				   "key = 'doomed'"), 0);
	/* The earlier runs are intact and the database takes new ones. */
	assert_true(q_real(db, "SELECT value FROM metrics WHERE run_id = 1") ==
		    100.0);
	commit_small_run(s, 0, runs, 200);
	store_close(s);
}

static void test_crash_before_commit(void **state)
{
	(void)state;
	const char *path = tmp_path("crash.db");
	struct store *s = open_rw(path);
	commit_small_run(s, 0, 0, 100);
	int64_t id;
	write_full_run(s, &id);
	store_close(s);
	crash_once(path, 0);
	crash_once(path, 1);
	s = open_rw(path);
	assert_int_equal(q_int(store_sqlite(s), "SELECT count(*) FROM runs"), 4);
	assert_int_equal(q_int(store_sqlite(s), "SELECT count(*) FROM samples "
						"WHERE metric = 'lat'"), 0);
	store_close(s);
}

/*
 * Group commit: runs share one transaction, an aborted or failing run is
 * rolled back to its savepoint and the group's other runs stay; the group
 * commits at max_runs, at store_flush and at close; a process killed with
 * the group open leaves only the runs of earlier groups.
 */
static void test_group_commit(void **state)
{
	(void)state;
	struct diag d;
	diag_init(&d);
	const char *path = tmp_path("group.db");
	struct store *s = open_rw(path);
	store_set_diag(s, &d);
	sqlite3 *db = store_sqlite(s);
	assert_int_equal(store_set_group(s, 0, 0), NS_EINTERNAL);
	diag_init(&d);
	assert_int_equal(store_set_group(s, 3, 0), NS_OK);
	commit_small_run(s, 0, 0, 100);
	commit_small_run(s, 0, 1, 101);
	assert_int_equal(store_group_runs(s), 2);
	assert_int_equal(store_group_deadline_ns(s), 0);  /* no time bound */
	assert_int_equal(store_check(s, 0), NS_OK);
	/* a reader on another connection sees nothing of the open group */
	sqlite3 *rd;
	assert_int_equal(sqlite3_open_v2(path, &rd, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
	assert_int_equal(q_int(rd, "SELECT count(*) FROM runs"), 0);
	/* an aborted run and a failing one leave the group's runs alone */
	int64_t id;
	struct store_run_info i = run_info(1, 0);
	assert_int_equal(store_run_begin(s, &i, &id), NS_OK);
	assert_int_equal(store_metric(s, id, "m", 1, "count"), NS_OK);
	assert_int_equal(store_run_abort(s), NS_OK);
	assert_int_equal(store_run_begin(s, &i, &id), NS_OK);
	struct store_branch_row bad = {"A18", NULL, 0, 10, 11, 0};
	assert_int_equal(store_branch(s, id, &bad), NS_EDB);
	diag_init(&d);
	assert_int_equal(store_group_runs(s), 2);
	assert_int_equal(q_int(db, "SELECT count(*) FROM runs"), 2);
	/* the third run fills the group: committed, visible to the reader */
	commit_small_run(s, 0, 2, 102);
	assert_int_equal(store_group_runs(s), 0);
	assert_int_equal(q_int(rd, "SELECT count(*) FROM runs"), 3);
	assert_int_equal(q_int(rd, "SELECT count(*) FROM metrics"), 3);
	/* store_flush commits a partial group; a run open refuses it */
	commit_small_run(s, 0, 3, 103);
	assert_int_equal(store_run_begin(s, &i, &id), NS_OK);
	assert_int_equal(store_flush(s), NS_EINTERNAL);
	diag_init(&d);
	assert_int_equal(store_run_abort(s), NS_OK);
	assert_int_equal(store_flush(s), NS_OK);
	assert_int_equal(q_int(rd, "SELECT count(*) FROM runs"), 4);
	/* a time bound: the deadline is set once a run has finished */
	assert_int_equal(store_set_group(s, 100, 60000), NS_OK);
	commit_small_run(s, 0, 4, 104);
	assert_true(store_group_deadline_ns(s) > 0);
	/* close commits the open group */
	assert_int_equal(store_check(s, STORE_CHECK_DATA), NS_OK);
	store_close(s);
	assert_int_equal(q_int(rd, "SELECT count(*) FROM runs"), 5);

	/* killed with a group open: its runs are gone, whole; earlier stay */
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct store *c = NULL;
		if (store_open(path, STORE_RDWR, &c, NULL) != NS_OK ||
		    store_set_group(c, 10, 0) != NS_OK)
			_exit(20);
		for (int k = 0; k < 4; k++) {
			int64_t cid;
			struct store_run_info ci = run_info(2, k);
			if (store_run_begin(c, &ci, &cid) || store_metric(c, cid, "m", k, "count") ||
			    store_run_commit(c, cid))
				_exit(21);
		}
		raise(SIGKILL);
		_exit(22);
	}
	int status = 0;
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
	s = open_rw(path);
	assert_int_equal(store_check(s, STORE_CHECK_DATA), NS_OK);
	assert_int_equal(q_int(store_sqlite(s), "SELECT count(*) FROM runs"), 5);
	assert_int_equal(q_int(store_sqlite(s), "SELECT count(*) FROM runs WHERE point = 2"), 0);
	store_close(s);
	sqlite3_close(rd);
}

static void test_foreign_keys(void **state)
{
	(void)state;
	const char *path = tmp_path("fk.db");
	struct store *s = open_rw(path);
	int64_t id;
	write_full_run(s, &id);
	commit_small_run(s, 0, 0, 100);
	sqlite3 *db = store_sqlite(s);
	/* A row for a run that does not exist is refused. */
	int rc = sqlite3_exec(db, "INSERT INTO metrics VALUES (999, 'x', 1, 'count')",
			      NULL, NULL, NULL);
	assert_int_equal(rc & 0xff, SQLITE_CONSTRAINT);
	assert_int_equal(sqlite3_extended_errcode(db), SQLITE_CONSTRAINT_FOREIGNKEY);
	/* Deleting a run deletes all its rows (ON DELETE CASCADE). */
	assert_int_equal(raw_exec(db, "DELETE FROM runs WHERE run_id = 1"), SQLITE_OK);
	assert_int_equal(q_int(db, "SELECT count(*) FROM runs"), 1);
	assert_int_equal(child_rows(db), 1 + 1 + 3); /* the small run's rows */
	assert_int_equal(q_int(db, "SELECT count(*) FROM pragma_foreign_key_check"),
			 0);
	/* CHECK constraints guard hand-written rows too. */
	assert_int_equal(raw_exec(db, "INSERT INTO counters VALUES "
				      "(2, 'socket', 0, 'x', 1)") & 0xff,
			 SQLITE_CONSTRAINT);
	assert_int_equal(raw_exec(db, "INSERT INTO counters VALUES "
				      "(2, 'node', 'zero', 'x', 1)") & 0xff,
			 SQLITE_CONSTRAINT);
	assert_int_equal(raw_exec(db, "UPDATE runs SET status = 'running'") & 0xff,
			 SQLITE_CONSTRAINT);
	assert_int_equal(store_check(s, STORE_CHECK_DATA), NS_OK);
	store_close(s);

	/* store_check notices a database whose foreign keys were broken by a
	 * connection that did not enforce them. */
	db = raw_open(path);
	assert_int_equal(raw_exec(db, "PRAGMA foreign_keys = OFF; INSERT INTO "
				      "metrics VALUES (999, 'x', 1, 'count')"),
			 SQLITE_OK);
	sqlite3_close(db);
	struct diag d;
	diag_init(&d);
	assert_int_equal(store_open(path, STORE_RDONLY, &s, &d), NS_OK);
	assert_int_equal(store_check(s, 0), NS_OK);
	assert_int_equal(store_check(s, STORE_CHECK_DATA), NS_EINTERNAL);
	assert_non_null(strstr(d.msg, "foreign_key_check"));
	store_close(s);
}

/* docs/reference/schema.md documents every table, view and column of the schema. */
static void test_schema_doc_complete(void **state)
{
	(void)state;
	const char *src = getenv("NUMASIM_SRC");
	if (!src)
		skip();
	char docpath[600];
	snprintf(docpath, sizeof docpath, "%s/docs/reference/schema.md", src);
	size_t len;
	char *doc = slurp(docpath, &len);
	struct store *s = open_rw(tmp_path("doc.db"));
	sqlite3 *db = store_sqlite(s);
	sqlite3_stmt *objs, *cols;
	assert_int_equal(sqlite3_prepare_v2(db, "SELECT name FROM sqlite_schema "
					    "WHERE type IN ('table', 'view') AND "
					    "name NOT LIKE 'sqlite_%' ORDER BY name",
					    -1, &objs, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(db, "SELECT name FROM "
					    "pragma_table_xinfo(?1)", -1, &cols,
					    NULL), SQLITE_OK);
	int n = 0;
	while (sqlite3_step(objs) == SQLITE_ROW) {
		const char *obj = (const char *)sqlite3_column_text(objs, 0);
		char head[128];
		snprintf(head, sizeof head, "### `%s`", obj);
		char *sec = strstr(doc, head);
		if (!sec)
			fail_msg("docs/reference/schema.md has no section '%s'", head);
		char *end = strstr(sec + strlen(head), "\n#");
		size_t seclen = end ? (size_t)(end - sec) : strlen(sec);
		sqlite3_bind_text(cols, 1, obj, -1, SQLITE_TRANSIENT);
		while (sqlite3_step(cols) == SQLITE_ROW) {
			char want[128];
			snprintf(want, sizeof want, "`%s`",
				 (const char *)sqlite3_column_text(cols, 0));
			char save = sec[seclen];
			sec[seclen] = '\0';
			int found = strstr(sec, want) != NULL;
			sec[seclen] = save;
			if (!found)
				fail_msg("docs/reference/schema.md: %s does not document "
					 "column %s", head, want);
			n++;
		}
		sqlite3_reset(cols);
	}
	sqlite3_finalize(objs);
	sqlite3_finalize(cols);
	assert_true(n > 60);
	store_close(s);
	free(doc);
}

static double mono_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Reports the sample insert rate; asserts only the rows, not the time. */
static void test_bench_sample_inserts(void **state)
{
	(void)state;
	enum { N = 100000 };
	struct store *s = open_rw(tmp_path("bench.db"));
	int64_t id;
	struct store_run_info i = run_info(0, 0);
	double t0 = mono_s();
	assert_int_equal(store_run_begin(s, &i, &id), NS_OK);
	for (int k = 0; k < N; k++)
		if (store_sample(s, id, "cycles_per_alloc", k, 700.0 + k % 97) != NS_OK)
			fail_msg("sample %d failed", k);
	assert_int_equal(store_run_commit(s, id), NS_OK);
	double dt = mono_s() - t0;
	assert_int_equal(q_int(store_sqlite(s), "SELECT count(*) FROM samples"), N);
	print_message("store: %d sample rows in one run: %.3f s, %.0f rows/s "
		      "(including begin and durable commit)\n", N, dt, N / dt);
	store_close(s);
}

/*
 * A statement the user-SQL authorizer refuses: store_user_sql_refused
 * replaces SQLite's "not authorized" by the refusal's sentence and the
 * caller's reason (NS_EINPUT); any other failure, or a store without a
 * refusal, keeps its message and status.
 */
static void test_user_sql_refused(void **state)
{
	(void)state;
	const char *path = tmp_path("usersql.db");
	struct store *s = open_rw(path);
	commit_small_run(s, 0, 0, 100);
	store_close(s);
	struct diag d;
	s = open_ro(path, &d);
	store_user_sql(s);
	assert_int_equal(store_user_sql_refused(s, &d, NS_EDB, "prog", "why"), NS_EDB);
	sqlite3 *db = store_sqlite(s);
	sqlite3_stmt *st = NULL;
	assert_int_not_equal(sqlite3_prepare_v2(db, "DELETE FROM runs", -1, &st, NULL), SQLITE_OK);
	assert_null(st);
	assert_string_not_equal(store_user_sql_denied(s), "");
	diag_set(&d, NS_EDB, path, 0, 0, "%s", sqlite3_errmsg(db));
	assert_non_null(strstr(d.msg, "not authorized"));
	assert_int_equal(store_user_sql_refused(s, &d, NS_EDB, "prog", "only reads"), NS_EINPUT);
	assert_string_equal(d.file, "prog");
	assert_non_null(strstr(d.msg, "refusing the statement: "));
	assert_non_null(strstr(d.msg, store_user_sql_denied(s)));
	assert_non_null(strstr(d.msg, " (only reads)"));
	/* another error stays as it is */
	diag_init(&d);
	diag_set(&d, NS_EIO, path, 0, 0, "disk I/O error");
	assert_int_equal(store_user_sql_refused(s, &d, NS_EIO, "prog", "why"), NS_EIO);
	assert_string_equal(d.msg, "disk I/O error");
	assert_int_equal(store_user_sql_refused(NULL, &d, NS_EIO, "prog", "why"), NS_EIO);
	store_close(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_create_and_reopen),
		cmocka_unit_test(test_all_tables_roundtrip),
		cmocka_unit_test(test_metric_summary_over_repetitions),
		cmocka_unit_test(test_abort_leaves_no_rows),
		cmocka_unit_test(test_error_mid_run_rolls_back),
		cmocka_unit_test(test_api_misuse),
		cmocka_unit_test(test_newer_schema_refused),
		cmocka_unit_test(test_foreign_sqlite_refused),
		cmocka_unit_test(test_non_sqlite_refused),
		cmocka_unit_test(test_empty_file_gets_schema),
		cmocka_unit_test(test_readonly),
		cmocka_unit_test(test_rollback_journal_file),
		cmocka_unit_test(test_user_sql_refused),
		cmocka_unit_test(test_version1_file),
		cmocka_unit_test(test_version2_file),
		cmocka_unit_test(test_reader_sees_only_committed),
		cmocka_unit_test(test_crash_before_commit),
		cmocka_unit_test(test_group_commit),
		cmocka_unit_test(test_foreign_keys),
		cmocka_unit_test(test_schema_doc_complete),
		cmocka_unit_test(test_bench_sample_inserts),
	};
	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
