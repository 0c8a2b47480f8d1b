/* Tests for sim/cost: function/site registration and code layouts. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "tests/cost_fixture.h"
#include "base/diag.h"

/* A second model, declared with the same X-macro pattern. */
#define SL_FUNCS(X) X(__slab_free) X(put_cpu_partial)
#define SL_SITES(X) X(S5, "__slab_free: likely(!n)") X(POST6, "likely(was_frozen)")
#define SL_FN_ENUM(name) SL_FN_##name,
#define SL_SITE_ENUM(id, desc) SL_SITE_##id,
enum sl_fn { SL_FUNCS(SL_FN_ENUM) SL_NR_FN };
enum sl_site { SL_SITES(SL_SITE_ENUM) SL_NR_SITE };
static const char *const sl_fn_names[] = {SL_FUNCS(COST_FN_NAME)};
static const struct cost_site_def sl_site_defs[] = {SL_SITES(COST_SITE_DEF)};

static void test_register_two_models(void **state)
{
	(void)state;
	struct cost_tables t;
	assert_int_equal(fix_tables(&t), 0);
	int fb = -1, sb = -1;
	assert_int_equal(cost_register_fns(&t, sl_fn_names, SL_NR_FN, &fb), NS_OK);
	assert_int_equal(cost_register_sites(&t, sl_site_defs, SL_NR_SITE, &sb), NS_OK);
	assert_int_equal(fb, FIX_NR_FN);
	assert_int_equal(sb, FIX_NR_SITE);
	assert_int_equal(t.nr_fns, FIX_NR_FN + SL_NR_FN);
	assert_int_equal(t.nr_sites, FIX_NR_SITE + SL_NR_SITE);
	assert_int_equal(cost_fn_lookup(&t, "put_cpu_partial"), fb + SL_FN_put_cpu_partial);
	assert_int_equal(cost_fn_lookup(&t, "leaf_fn"), FIX_FN_leaf_fn);
	assert_int_equal(cost_site_lookup(&t, "POST6"), sb + SL_SITE_POST6);
	assert_string_equal(t.sites[sb + SL_SITE_S5]->desc, "__slab_free: likely(!n)");
	assert_int_equal(cost_fn_lookup(&t, "nope"), -1);
	assert_int_equal(cost_site_lookup(&t, "A99"), -1);
	cost_tables_free(&t);
}

static void test_duplicates_rejected(void **state)
{
	(void)state;
	struct cost_tables t;
	assert_int_equal(fix_tables(&t), 0);
	int b = 77;
	assert_int_equal(cost_register_fns(&t, fix_fn_names, 1, &b), NS_EINTERNAL);
	assert_int_equal(cost_register_sites(&t, fix_site_defs + 2, 1, &b), NS_EINTERNAL);
	static const char *const twice[] = {"x_fn", "x_fn"};
	assert_int_equal(cost_register_fns(&t, twice, 2, &b), NS_EINTERNAL);
	assert_int_equal(b, 77); /* untouched on failure */
	assert_int_equal(t.nr_fns, FIX_NR_FN);
	assert_int_equal(t.nr_sites, FIX_NR_SITE);
	cost_tables_free(&t);
}

static void test_many_registrations_grow(void **state)
{
	(void)state;
	struct cost_tables t;
	cost_tables_init(&t);
	static char names[100][8];
	const char *ptrs[100];
	for (int i = 0; i < 100; i++) {
		names[i][0] = 'f';
		names[i][1] = (char)('0' + i / 10);
		names[i][2] = (char)('0' + i % 10);
		names[i][3] = 0;
		ptrs[i] = names[i];
	}
	int b;
	for (int i = 0; i < 100; i += 10) {
		assert_int_equal(cost_register_fns(&t, ptrs + i, 10, &b), NS_OK);
		assert_int_equal(b, i);
	}
	assert_int_equal(cost_fn_lookup(&t, "f73"), 73);
	cost_tables_free(&t);
}

static void test_layout_defaults_and_hints(void **state)
{
	(void)state;
	struct cost_tables t;
	struct cost_layout l;
	assert_int_equal(fix_tables(&t), 0);
	assert_int_equal(cost_layout_init(&l, &t, "pre"), NS_OK);
	assert_string_equal(l.name, "pre");
	for (int i = 0; i < FIX_NR_FN; i++)
		assert_int_equal(l.fn_inline[i], 0);
	for (int i = 0; i < FIX_NR_SITE; i++) {
		assert_int_equal(l.site[i].fallthrough, 1);
		assert_int_equal(l.site[i].hint, COST_HINT_NONE);
		assert_int_equal(l.site[i].static_taken, 0);
	}
	/* unlikely(err) placed by the compiler: err == false falls through */
	assert_int_equal(cost_layout_set_site(&l, FIX_SITE_T3, COST_HINT_UNLIKELY,
					      COST_FT_HINTED), NS_OK);
	assert_int_equal(l.site[FIX_SITE_T3].fallthrough, 0);
	assert_int_equal(l.site[FIX_SITE_T3].static_taken, 0);
	/* likely(x) but the compiler put the other arm first: cold predict taken */
	assert_int_equal(cost_layout_set_site(&l, FIX_SITE_T1, COST_HINT_LIKELY, 0), NS_OK);
	assert_int_equal(l.site[FIX_SITE_T1].static_taken, 1);
	/* unhinted with the then-block out of line */
	assert_int_equal(cost_layout_set_site(&l, FIX_SITE_T2, COST_HINT_NONE, 0), NS_OK);
	assert_int_equal(l.site[FIX_SITE_T2].static_taken, 0);
	assert_int_equal(cost_layout_set_fn(&l, FIX_FN_helper_fn, true), NS_OK);
	assert_int_equal(l.fn_inline[FIX_FN_helper_fn], 1);
	assert_int_equal(cost_layout_check(&l, &t), NS_OK);
	/* bad ids and values are model bugs */
	assert_int_equal(cost_layout_set_fn(&l, FIX_NR_FN, true), NS_EINTERNAL);
	assert_int_equal(cost_layout_set_site(&l, -1, COST_HINT_NONE, 1), NS_EINTERNAL);
	assert_int_equal(cost_layout_set_site(&l, 0, COST_HINT_NONE, 2), NS_EINTERNAL);
	assert_int_equal(cost_layout_set_site(&l, 0, (enum cost_hint)7, 1), NS_EINTERNAL);
	/* a corrupted layout is caught */
	l.site[FIX_SITE_T3].static_taken = 1;
	assert_int_equal(cost_layout_check(&l, &t), NS_EINTERNAL);
	l.site[FIX_SITE_T3].static_taken = 0;
	/* a layout built before more registrations no longer covers the tables */
	int b;
	assert_int_equal(cost_register_fns(&t, (const char *const[]){"late_fn"}, 1, &b), NS_OK);
	assert_int_equal(cost_layout_check(&l, &t), NS_EINTERNAL);
	assert_string_equal(cost_hint_name(COST_HINT_UNLIKELY), "unlikely");
	cost_layout_free(&l);
	cost_tables_free(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_register_two_models),
		cmocka_unit_test(test_duplicates_rejected),
		cmocka_unit_test(test_many_registrations_grow),
		cmocka_unit_test(test_layout_defaults_and_hints),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
