/* Tests for models/cpulist: parsing and printing Linux cpulists. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "machine/cpulist.h"
#include "base/diag.h"

static void test_ranges(void **state)
{
	(void)state;
	int *c, n;
	assert_int_equal(cpulist_parse("0-3,8,10-11\n", 64, 0, &c, &n, NULL, NULL, 0), NS_OK);
	assert_int_equal(n, 7);
	int want[] = {0, 1, 2, 3, 8, 10, 11};
	assert_memory_equal(c, want, sizeof want);
	char buf[64];
	assert_int_equal(cpulist_format(c, n, buf, sizeof buf), strlen("0-3,8,10-11"));
	assert_string_equal(buf, "0-3,8,10-11");
	free(c);
}

static void test_empty(void **state)
{
	(void)state;
	int *c = (int *)1, n = 5;
	assert_int_equal(cpulist_parse("  \n", 64, 0, &c, &n, NULL, NULL, 0), NS_OK);
	assert_null(c);
	assert_int_equal(n, 0);
	char buf[4] = "x";
	assert_int_equal(cpulist_format(NULL, 0, buf, sizeof buf), 0);
	assert_string_equal(buf, "");
}

static void test_unordered_input_sorted(void **state)
{
	(void)state;
	int *c, n;
	assert_int_equal(cpulist_parse("48-49,0-1", 64, 0, &c, &n, NULL, NULL, 0), NS_OK);
	int want[] = {0, 1, 48, 49};
	assert_int_equal(n, 4);
	assert_memory_equal(c, want, sizeof want);
	free(c);
}

static void expect_error(const char *s, size_t pos, const char *frag)
{
	int *c = NULL, n = -1;
	size_t at = 999;
	char err[128] = "";
	assert_int_equal(cpulist_parse(s, 64, 0, &c, &n, &at, err, sizeof err), NS_EINPUT);
	assert_null(c);
	assert_int_equal(at, pos);
	assert_non_null(strstr(err, frag));
}

static void test_errors(void **state)
{
	(void)state;
	expect_error("0-", 2, "after '-'");
	expect_error("3-1", 2, "descending");
	expect_error("0,,1", 2, "expected a CPU number");
	expect_error("64", 0, "out of range");
	expect_error("0-1x", 3, "expected ','");
	expect_error("1,1", 0, "listed twice");
	expect_error("-1", 0, "expected a CPU number");
}

static void test_overlap_allowed(void **state)
{
	(void)state;
	int *c, n;
	assert_int_equal(cpulist_parse("0-3,2-5", 64, 1, &c, &n, NULL, NULL, 0), NS_OK);
	assert_int_equal(n, 6);
	free(c);
}

static void test_format_truncates_cleanly(void **state)
{
	(void)state;
	int cpus[] = {0, 1, 2, 5, 7, 8};
	char buf[6];
	size_t need = cpulist_format(cpus, 6, buf, sizeof buf);
	assert_int_equal(need, strlen("0-2,5,7-8"));
	assert_string_equal(buf, "0-2,5"); /* cut at a range boundary, terminated */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ranges),
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_unordered_input_sorted),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_overlap_allowed),
		cmocka_unit_test(test_format_truncates_cleanly),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
