/*
 * Tests for sim/json: JSON string literals.  Plain text passes through,
 * the two mandatory escapes and the short forms are used, other control
 * characters and DEL become \u00XX, well-formed UTF-8 passes through, every
 * malformed byte (lone continuation, overlong forms, surrogates, beyond
 * U+10FFFF, truncated sequences) becomes \ufffd, json_escape truncates like
 * snprintf, and the stream writer produces the same bytes.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/json.h"

/* json_write_string's output through a memory stream. */
static char *written(const char *s)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	assert_non_null(f);
	assert_int_equal(json_write_string(f, s), 0);
	assert_int_equal(fclose(f), 0);
	return buf;
}

static void expect(const char *in, const char *want)
{
	char buf[256];
	size_t n = json_escape(buf, sizeof buf, in);
	assert_string_equal(buf, want);
	assert_int_equal(n, strlen(want));
	char *w = written(in);
	assert_string_equal(w, want);
	free(w);
}

static void test_plain_and_escapes(void **state)
{
	(void)state;
	expect("", "\"\"");
	expect(NULL, "\"\"");
	expect("kmalloc-512", "\"kmalloc-512\"");
	expect("slab_free_layout=pre-c270cf30", "\"slab_free_layout=pre-c270cf30\"");
	expect("a\"b\\c", "\"a\\\"b\\\\c\"");
	expect("/", "\"/\"");
	expect("\b\f\n\r\t", "\"\\b\\f\\n\\r\\t\"");
	expect("\x01\x1f\x7f", "\"\\u0001\\u001f\\u007f\"");
	expect("x\x1by", "\"x\\u001by\"");
}

static void test_utf8(void **state)
{
	(void)state;
	expect("caf\xc3\xa9", "\"caf\xc3\xa9\"");                       /* U+00E9 */
	expect("\xe2\x82\xac", "\"\xe2\x82\xac\"");                     /* U+20AC */
	expect("\xf0\x9f\x98\x80", "\"\xf0\x9f\x98\x80\"");             /* U+1F600 */
	expect("\xf4\x8f\xbf\xbf", "\"\xf4\x8f\xbf\xbf\"");             /* U+10FFFF */
	expect("\x80", "\"\\ufffd\"");                                  /* lone continuation */
	expect("\xc0\xaf", "\"\\ufffd\\ufffd\"");                       /* overlong '/' */
	expect("\xe0\x80\xaf", "\"\\ufffd\\ufffd\\ufffd\"");            /* overlong */
	expect("\xed\xa0\x80", "\"\\ufffd\\ufffd\\ufffd\"");            /* surrogate */
	expect("\xf4\x90\x80\x80", "\"\\ufffd\\ufffd\\ufffd\\ufffd\""); /* > U+10FFFF */
	expect("\xc3", "\"\\ufffd\"");                                  /* truncated at end */
	expect("\xe2\x82x", "\"\\ufffd\\ufffdx\"");                     /* truncated */
	expect("\xff", "\"\\ufffd\"");
}

static void test_truncation(void **state)
{
	(void)state;
	char buf[6];
	memset(buf, 'z', sizeof buf);
	size_t n = json_escape(buf, sizeof buf, "abcdefgh");
	assert_int_equal(n, 10);
	assert_string_equal(buf, "\"abcd");
	n = json_escape(buf, 1, "a\n");
	assert_int_equal(n, 5);
	assert_int_equal(buf[0], '\0');
	assert_int_equal(json_escape(NULL, 0, "a\tb"), 6);
}

static void test_write_error(void **state)
{
	(void)state;
	FILE *f = fopen("/dev/null", "r");
	assert_non_null(f);
	assert_int_equal(json_write_string(f, "x"), EOF);
	fclose(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plain_and_escapes),
		cmocka_unit_test(test_utf8),
		cmocka_unit_test(test_truncation),
		cmocka_unit_test(test_write_error),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
