/*
 * Tests for analysis/store_image: a run written into a scratch store and
 * imported from its image into a database equals the same run written
 * there directly (every table, every SQLite type, including the ANY
 * counters.scope_id and a failed run's message), gets the destination's
 * next run id in one transaction, and leaves the scratch empty for the
 * next run; images that are not one finished numasim run (no run, two
 * runs, garbage, another application) are refused with the destination
 * unchanged; importing while a run is open is an API error; the scratch
 * file leaves nothing behind in TMPDIR.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sqlite3.h>

#include "base/diag.h"
#include "analysis/store.h"
#include "analysis/store_image.h"
#include "tests/sql_fixture.h"

#define SCENARIO_TEXT "name: pagealloc-order0\n"
#define MACHINE_TEXT "name: epyc-7601-8n\n"
#define SHA_A "85b34542b894cee81a9b6805402c55a5e71fdaacb839fecdb2a6f2d72ae419c1"
#define SHA_B "8b5b4bbc92e7834ae53c5cab4fc3d83b981ec20d857e79a7ce8b628384b56c0d"

static char dir[] = "/tmp/numasim-test-image-XXXXXX";

static const char *tmp_path(const char *name)
{
	static char buf[4][256];
	static int k;
	k = (k + 1) % 4;
	snprintf(buf[k], sizeof buf[k], "%s/%s", dir, name);
	return buf[k];
}

/* Every row of the database except run ids, as one text. */
static char *dump(sqlite3 *db)
{
	static const char *const sql[] = {
		"SELECT scenario, scenario_file, scenario_sha256, point, repetition, "
		"seed, machine, machine_file, machine_sha256, workload, variant, "
		"kernel_model, tool_version, host, command, invocation, started, "
		"finished, status, message FROM runs ORDER BY run_id",
		"SELECT key, typeof(value), value FROM params ORDER BY run_id, key",
		"SELECT name, value, unit FROM metrics ORDER BY run_id, name",
		"SELECT metric, idx, value FROM samples ORDER BY run_id, metric, idx",
		"SELECT scope, typeof(scope_id), scope_id, name, value FROM counters "
		"ORDER BY run_id, scope, scope_id, name",
		"SELECT function, inlined, calls, self_cycles, total_cycles FROM "
		"profile ORDER BY run_id, function",
		"SELECT site, function, fallthrough, executed, taken, mispredicted "
		"FROM branches ORDER BY run_id, site",
		"SELECT sha256, kind, path, content FROM inputs ORDER BY sha256",
	};
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	assert_non_null(f);
	for (size_t q = 0; q < sizeof sql / sizeof sql[0]; q++) {
		sqlite3_stmt *st = NULL;
		assert_int_equal(sqlite3_prepare_v2(db, sql[q], -1, &st, NULL), SQLITE_OK);
		while (sqlite3_step(st) == SQLITE_ROW) {
			for (int c = 0; c < sqlite3_column_count(st); c++) {
				const unsigned char *t = sqlite3_column_text(st, c);
				fprintf(f, "%s|", t ? (const char *)t : "NULL");
			}
			fputc('\n', f);
		}
		sqlite3_finalize(st);
		fputs("--\n", f);
	}
	fclose(f);
	return buf;
}

/* One run with rows in every table; failed != 0 stores it failed. */
static int64_t write_run(struct store *s, int64_t point, int failed)
{
	struct store_run_info i = {
		.scenario = "pagealloc-order0", .scenario_file = "s.yaml",
		.scenario_sha256 = SHA_A, .scenario_text = SCENARIO_TEXT,
		.point = point, .repetition = 1, .seed = 43,
		.machine = "epyc-7601-8n", .machine_file = "m.yaml",
		.machine_sha256 = SHA_B, .machine_text = MACHINE_TEXT,
		.workload = "pagealloc", .variant = "zonelist_iter=682a3385",
		.kernel_model = "v4.6+682a3385", .host = "node7",
		.command = "numasim run s.yaml", .invocation = "node7:1:t",
		.started_ns = 1700000000123456789ll,
	};
	struct store_profile_row p = {"get_page_from_freelist", 0, 10, 500, 900};
	struct store_branch_row b = {"A18", "get_page_from_freelist", 1, 10, 3, 1};
	double v[3] = {1.5, 2.5, 3.25};
	int64_t id = 0;
	assert_int_equal(store_run_begin(s, &i, &id), NS_OK);
	assert_int_equal(store_param(s, id, "kernel.zonelist_iter", "682a3385"), NS_OK);
	assert_int_equal(store_param_int(s, id, "workload.inner", 20), NS_OK);
	assert_int_equal(store_param_real(s, id, "x", 0.125), NS_OK);
	assert_int_equal(store_param(s, id, "nothing", NULL), NS_OK);
	assert_int_equal(store_metric(s, id, "total", 2.5, "cycles/op"), NS_OK);
	assert_int_equal(store_samples(s, id, "total", v, 3), NS_OK);
	assert_int_equal(store_counter(s, id, STORE_SCOPE_NODE, 1, NULL, "numa_hit", 7), NS_OK);
	assert_int_equal(store_counter(s, id, STORE_SCOPE_ZONE, 0, "Normal", "pgalloc", 9), NS_OK);
	assert_int_equal(store_counter(s, id, STORE_SCOPE_CACHE_CPU, 3, "kmalloc-64", "FREE_FASTPATH", 2), NS_OK);
	assert_int_equal(store_profile(s, id, &p), NS_OK);
	assert_int_equal(store_branch(s, id, &b), NS_OK);
	if (failed)
		assert_int_equal(store_run_fail(s, id, "invariant broken"), NS_OK);
	else
		assert_int_equal(store_run_commit(s, id), NS_OK);
	return id;
}

/* finished differs between the two writes: pin it. */
static void pin_finished(sqlite3 *db)
{
	assert_int_equal(sqlite3_exec(db, "UPDATE runs SET finished = "
				      "'2023-11-14T22:13:21.000Z'", NULL, NULL, NULL),
			 SQLITE_OK);
}

static void test_roundtrip(void **state)
{
	struct store *direct = open_rw(tmp_path("direct.db"));
	struct store *dest = open_rw(tmp_path("dest.db"));
	struct store *scratch = NULL;
	struct diag d;
	unsigned char *img = NULL;
	size_t len = 0;
	int64_t id = 0;
	(void)state;
	diag_init(&d);

	write_run(direct, 0, 0);
	write_run(direct, 1, 1);
	assert_int_equal(store_image_scratch(&scratch, &d), NS_OK);
	for (int k = 0; k < 2; k++) {
		write_run(scratch, k, k);
		assert_int_equal(store_image_take(scratch, &img, &len, &d), NS_OK);
		assert_int_equal(q_int(store_sqlite(scratch), "SELECT count(*) FROM runs"), 0);
		assert_int_equal(q_int(store_sqlite(scratch), "SELECT count(*) FROM samples"), 0);
		assert_int_equal(store_image_import(dest, img, len, &id, &d), NS_OK);
		assert_int_equal(id, k + 1);
		store_image_free(img);
	}
	pin_finished(store_sqlite(direct));
	pin_finished(store_sqlite(dest));
	char *a = dump(store_sqlite(direct)), *b = dump(store_sqlite(dest));
	assert_string_equal(a, b);
	assert_non_null(strstr(b, "cache_cpu|text|kmalloc-64/3|FREE_FASTPATH|2|"));
	assert_non_null(strstr(b, "failed|invariant broken|"));
	free(a);
	free(b);
	assert_int_equal(store_check(dest, STORE_CHECK_DATA), NS_OK);
	/* the destination's statements still work after attach/detach */
	assert_int_equal(write_run(dest, 5, 0), 3);
	store_close(scratch);
	store_close(direct);
	store_close(dest);
}

static void test_refused(void **state)
{
	struct store *dest = open_rw(tmp_path("refuse.db"));
	struct store *scratch = NULL, *other = NULL;
	struct diag d;
	unsigned char *img = NULL;
	size_t len = 0;
	int64_t id = 7;
	(void)state;
	diag_init(&d);
	write_run(dest, 0, 0);
	char *before = dump(store_sqlite(dest));

	/* no run in the image */
	assert_int_equal(store_image_scratch(&scratch, &d), NS_OK);
	assert_int_equal(store_image_take(scratch, &img, &len, &d), NS_OK);
	assert_int_equal(store_image_import(dest, img, len, &id, &d), NS_EINPUT);
	assert_int_equal(id, 0);
	assert_non_null(strstr(d.msg, "holds 0 runs"));
	store_image_free(img);
	/* two runs */
	diag_init(&d);
	write_run(scratch, 0, 0);
	write_run(scratch, 1, 0);
	assert_int_equal(store_image_take(scratch, &img, &len, &d), NS_OK);
	assert_int_equal(store_image_import(dest, img, len, &id, &d), NS_EINPUT);
	assert_non_null(strstr(d.msg, "holds 2 runs"));
	/* garbage and a too short buffer */
	diag_init(&d);
	memset(img + 100, 0x5a, len - 100);
	assert_int_not_equal(store_image_import(dest, img, len, &id, &d), NS_OK);
	diag_init(&d);
	assert_int_equal(store_image_import(dest, img, 10, &id, &d), NS_EINPUT);
	store_image_free(img);
	/* another application's database */
	diag_init(&d);
	write_run(scratch, 0, 0);
	assert_int_equal(sqlite3_exec(store_sqlite(scratch), "PRAGMA application_id = 7",
				      NULL, NULL, NULL), SQLITE_OK);
	assert_int_equal(store_image_take(scratch, &img, &len, &d), NS_OK);
	assert_int_equal(store_image_import(dest, img, len, &id, &d), NS_EINPUT);
	assert_non_null(strstr(d.msg, "not a numasim database"));
	store_image_free(img);
	/* a run open in the destination */
	diag_init(&d);
	assert_int_equal(sqlite3_exec(store_sqlite(scratch), "PRAGMA application_id = "
				      "1314081101", NULL, NULL, NULL), SQLITE_OK);
	write_run(scratch, 0, 0);
	assert_int_equal(store_image_take(scratch, &img, &len, &d), NS_OK);
	other = open_rw(tmp_path("refuse.db"));
	struct store_run_info i = {
		.scenario = "x", .scenario_sha256 = SHA_A, .machine = "m",
		.machine_sha256 = SHA_B, .workload = "pagealloc", .variant = "v",
		.kernel_model = "k",
	};
	assert_int_equal(store_run_begin(dest, &i, &id), NS_OK);
	assert_int_equal(store_image_import(dest, img, len, &id, &d), NS_EINTERNAL);
	assert_int_equal(store_run_abort(dest), NS_OK);
	store_close(other);

	char *after = dump(store_sqlite(dest));
	assert_string_equal(before, after);
	/* the same image imports fine now */
	assert_int_equal(store_image_import(dest, img, len, &id, &d), NS_OK);
	assert_int_equal(id, 2);   /* the aborted run 2 left no trace */
	store_image_free(img);
	free(before);
	free(after);
	store_close(scratch);
	store_close(dest);
}

/* The scratch store's file is gone from TMPDIR while it is open. */
static void test_scratch_leaves_nothing(void **state)
{
	struct store *scratch = NULL;
	struct diag d;
	(void)state;
	diag_init(&d);
	assert_int_equal(setenv("TMPDIR", dir, 1), 0);
	assert_int_equal(store_image_scratch(&scratch, &d), NS_OK);
	write_run(scratch, 0, 0);
	DIR *dp = opendir(dir);
	assert_non_null(dp);
	struct dirent *e;
	while ((e = readdir(dp)))
		assert_null(strstr(e->d_name, "numasim-scratch"));
	closedir(dp);
	store_close(scratch);
	assert_int_equal(setenv("TMPDIR", "/nonexistent-dir", 1), 0);
	assert_int_equal(store_image_scratch(&scratch, &d), NS_EIO);
	assert_null(scratch);
	assert_non_null(strstr(d.msg, "set TMPDIR"));
	unsetenv("TMPDIR");
}

static int setup(void **state)
{
	(void)state;
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[300];
	(void)state;
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_roundtrip),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_scratch_leaves_nothing),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
