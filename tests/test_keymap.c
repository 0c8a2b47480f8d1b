/* Tests for workloads/keymap: the map of 64-bit keys against a plain
 * array under random puts and deletions (deletion by backward shift is
 * where such tables go wrong), the reserved key, growth. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "base/diag.h"
#include "workloads/keymap.h"

#define SPACE 4096          /* keys 0..SPACE-1 (times a stride: clusters) */

static uint64_t next(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static void test_against_array(void **state)
{
	(void)state;
	struct keymap m;
	struct diag d;
	static uint64_t ref[SPACE];
	static unsigned char live[SPACE];
	uint64_t seed = 88172645463325252ull, v;
	size_t nr = 0;
	keymap_init(&m);
	diag_init(&d);
	memset(live, 0, sizeof live);
	for (int i = 0; i < 200000; i++) {
		uint64_t r = next(&seed), k = r % SPACE;
		uint64_t key = k * 4096;     /* pfn-like strides share home slots */
		if (r >> 62) {               /* 3 in 4: put */
			int fresh = !live[k];
			assert_int_equal(keymap_put(&m, key, r), NS_OK);
			ref[k] = r;
			live[k] = 1;
			nr += fresh;
		} else {
			int had = keymap_del(&m, key, &v);
			assert_int_equal(had, live[k]);
			if (had)
				assert_true(v == ref[k]);
			nr -= live[k];
			live[k] = 0;
		}
		if (i % 5000 == 0)
			assert_int_equal(keymap_check(&m, &d), NS_OK);
	}
	assert_int_equal(m.nr, nr);
	for (uint64_t k = 0; k < SPACE; k++) {
		int has = keymap_get(&m, k * 4096, &v);
		assert_int_equal(has, live[k]);
		if (has)
			assert_true(v == ref[k]);
	}
	assert_int_equal(keymap_check(&m, &d), NS_OK);
	keymap_free(&m);
}

static void test_reserved_and_empty(void **state)
{
	(void)state;
	struct keymap m;
	struct diag d;
	uint64_t v = 7;
	keymap_init(&m);
	diag_init(&d);
	assert_int_equal(keymap_get(&m, 1, &v), 0);
	assert_int_equal(keymap_del(&m, 1, NULL), 0);
	assert_int_equal(keymap_put(&m, KEYMAP_EMPTY, 1), NS_EINPUT);
	assert_int_equal(m.nr, 0);
	assert_int_equal(keymap_put(&m, 0, 5), NS_OK);       /* key 0 is a key */
	assert_int_equal(keymap_put(&m, 0, 6), NS_OK);       /* replaced */
	assert_int_equal(m.nr, 1);
	assert_int_equal(keymap_get(&m, 0, &v), 1);
	assert_true(v == 6);
	assert_int_equal(keymap_check(&m, &d), NS_OK);
	keymap_free(&m);
}

static void test_check_catches_a_broken_table(void **state)
{
	(void)state;
	struct keymap m;
	struct diag d;
	keymap_init(&m);
	diag_init(&d);
	for (uint64_t k = 1; k <= 20; k++)
		assert_int_equal(keymap_put(&m, k, k), NS_OK);
	m.nr++;                                             /* a wrong count */
	assert_int_equal(keymap_check(&m, &d), NS_EINTERNAL);
	m.nr--;
	assert_int_equal(keymap_check(&m, &d), NS_OK);
	keymap_free(&m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_against_array),
		cmocka_unit_test(test_reserved_and_empty),
		cmocka_unit_test(test_check_catches_a_broken_table),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
