/*
 * Tests for analysis/latency_hist: the bucket of a latency (bcc's slot
 * numbering, 0 and 1 cycle in "0 -> 1", the last bucket open-ended),
 * reading stored buckets back (names that are not powers of two are not
 * buckets, a run without any is NS_ENOENT), and the funclatency text:
 * header, bounds, counts and bars written out by hand.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/latency_hist.h"
#include "tests/sql_fixture.h"

static void test_bucket(void **state)
{
	(void)state;
	assert_int_equal(latency_hist_bucket(0), 1);
	assert_int_equal(latency_hist_bucket(1), 1);
	assert_int_equal(latency_hist_bucket(2), 2);
	assert_int_equal(latency_hist_bucket(3), 2);
	assert_int_equal(latency_hist_bucket(4), 3);
	assert_int_equal(latency_hist_bucket(511), 9);
	assert_int_equal(latency_hist_bucket(512), 10);
	assert_int_equal(latency_hist_bucket(1023), 10);
	assert_int_equal(latency_hist_bucket(1024), 11);
	assert_int_equal(latency_hist_bucket(UINT64_MAX), LATENCY_HIST_NR - 1);
	struct latency_hist h = {{0}};
	for (uint64_t v = 0; v < 1000; v++)
		latency_hist_add(&h, v);
	assert_int_equal(latency_hist_total(&h), 1000);
	assert_int_equal(h.bucket[10], 1000 - 512);   /* 512..999 */
	assert_int_equal(latency_hist_check(&h), NS_OK);
	h.bucket[0] = 1;
	assert_int_equal(latency_hist_check(&h), NS_EINTERNAL);
}

static void test_read(void **state)
{
	sqlite3 *db = *state;
	struct latency_hist h;
	struct diag d;
	diag_init(&d);
	assert_int_equal(latency_hist_read(db, "t", 1, "alloc_latency_hist", &h, &d), NS_OK);
	assert_int_equal(h.bucket[10], 7);             /* lt_1024 */
	assert_int_equal(h.bucket[11], 3);             /* lt_2048 */
	assert_int_equal(latency_hist_total(&h), 10);  /* lt_1000, lt_x, .le_2 ignored */
	assert_int_equal(latency_hist_read(db, "t", 1, "free_latency_hist", &h, &d), NS_ENOENT);
	assert_int_equal(latency_hist_read(db, "t", 2, "alloc_latency_hist", &h, &d), NS_ENOENT);
}

static void test_print(void **state)
{
	(void)state;
	struct latency_hist h = {{0}};
	h.bucket[9] = 10;       /* 256 -> 511 */
	h.bucket[11] = 40;      /* 1024 -> 2047; 10 empty between */
	char *b = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&b, &len);
	assert_non_null(f);
	latency_hist_print(&h, f);
	fclose(f);
	const char *want =
		"     core cycles         : count     distribution\n"
		"       256 -> 511        : 10       |**********                              |\n"
		"       512 -> 1023       : 0        |                                        |\n"
		"      1024 -> 2047       : 40       |****************************************|\n";
	assert_string_equal(b, want);
	free(b);
	/* an empty histogram prints nothing */
	memset(&h, 0, sizeof h);
	b = NULL;
	f = open_memstream(&b, &len);
	latency_hist_print(&h, f);
	fclose(f);
	assert_int_equal(len, 0);
	free(b);
}

static int setup(void **state)
{
	return memdb_setup(state,
		"CREATE TABLE metrics (run_id INTEGER, name TEXT, value REAL, unit TEXT);"
		"INSERT INTO metrics VALUES (1, 'alloc_latency_hist.lt_1024', 7, 'count'),"
		"(1, 'alloc_latency_hist.lt_2048', 3, 'count'),"
		"(1, 'alloc_latency_hist.lt_1000', 5, 'count'),"
		"(1, 'alloc_latency_hist.lt_x', 5, 'count'),"
		"(1, 'alloc_latency_hist.le_2', 5, 'count'),"
		"(1, 'allocs', 10, 'count'), (2, 'allocs', 3, 'count');");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bucket),
		cmocka_unit_test(test_read),
		cmocka_unit_test(test_print),
	};
	return cmocka_run_group_tests(tests, setup, memdb_teardown);
}
