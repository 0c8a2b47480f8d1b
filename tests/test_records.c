/* Tests of base/records.h: the JSON and CSV documents of --format. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "base/diag.h"
#include "base/records.h"

/* The document as text (malloc'ed; a copy, not the stream's buffer). */
static char *render(const struct rec_doc *d, enum rec_format f)
{
	char *b = NULL;
	size_t n = 0;
	FILE *m = open_memstream(&b, &n);
	assert_non_null(m);
	assert_int_equal(rec_write(d, f, m), NS_OK);
	fclose(m);
	char *copy = strdup(b);
	free(b);
	assert_non_null(copy);
	return copy;
}

static struct rec_doc *sample(void)
{
	struct rec_doc *d = rec_doc_new("compare");
	assert_non_null(d);
	rec_meta_str(d, "database", "r,1.db");
	rec_table(d, "groups");           /* stays empty: written as [] */
	rec_table(d, "stats");
	rec_row(d);
	rec_str(d, "metric", "alloc \"odr0\"");
	rec_num(d, "min", 369.5);
	rec_int(d, "n", 13);
	rec_row(d);
	rec_str(d, "metric", "x");
	rec_num(d, "min", NAN);           /* JSON cannot hold NaN: null */
	rec_bool(d, "exact", 1);
	rec_null(d, "p");
	rec_str(d, "metric", "y");        /* a key set again replaces */
	assert_int_equal(rec_check(d), NS_OK);
	return d;
}

static void test_json(void **state)
{
	(void)state;
	struct rec_doc *d = sample();
	char *j = render(d, REC_JSON);
	assert_string_equal(j,
		"{\n  \"command\": \"compare\",\n  \"format_version\": 1,\n"
		"  \"database\": \"r,1.db\",\n  \"groups\": [],\n  \"stats\": [\n"
		"    {\"metric\": \"alloc \\\"odr0\\\"\", \"min\": 369.5, \"n\": 13},\n"
		"    {\"metric\": \"y\", \"min\": null, \"exact\": true, \"p\": null}\n  ]\n}\n");
	assert_int_equal(rec_nr_rows(d, "stats"), 2);
	assert_int_equal(rec_nr_rows(d, "groups"), 0);
	assert_int_equal(rec_nr_rows(d, "nope"), 0);
	free(j);
	rec_doc_free(d);
}

static void test_csv(void **state)
{
	(void)state;
	struct rec_doc *d = sample();
	char *c = render(d, REC_CSV);
	assert_string_equal(c,
		"table,command,format_version,database,metric,min,n,exact,p\r\n"
		"meta,compare,1,\"r,1.db\",,,,,\r\n"
		"stats,,,,\"alloc \"\"odr0\"\"\",369.5,13,,\r\n"
		"stats,,,,y,,,true,\r\n");
	free(c);
	rec_doc_free(d);
}

static void test_formats(void **state)
{
	(void)state;
	enum rec_format f;
	assert_int_equal(rec_parse_format("json", &f), NS_OK);
	assert_int_equal(f, REC_JSON);
	assert_int_equal(rec_parse_format("csv", &f), NS_OK);
	assert_int_equal(f, REC_CSV);
	assert_int_equal(rec_parse_format("text", &f), NS_OK);
	assert_int_equal(f, REC_TEXT);
	assert_int_equal(rec_parse_format("yaml", &f), NS_EUSAGE);
	/* 17 significant digits read back to the same double */
	struct rec_doc *d = rec_doc_new("t");
	rec_table(d, "v");
	rec_row(d);
	rec_num(d, "x", 0.1);
	rec_num(d, "inf", INFINITY);
	char *j = render(d, REC_JSON);
	const char *x = strstr(j, "\"x\": ");
	assert_non_null(x);
	assert_true(strtod(x + 5, NULL) == 0.1);
	assert_non_null(strstr(j, "\"inf\": null"));
	free(j);
	rec_doc_free(d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_json),
		cmocka_unit_test(test_csv),
		cmocka_unit_test(test_formats),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
