/*
 * Tests for analysis/stats: summaries and Welch's t-test against values
 * computed by hand (independent Python: Welch–Satterthwaite df and a
 * Simpson integration of the t density for p), including the second
 * seed's published numbers (slub-free.md §4.3: t ≈ 2.0, p ≈ 0.06).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>

#include "base/diag.h"
#include "analysis/stats.h"

static void near(double got, double want, double tol)
{
	if (fabs(got - want) > tol) {
		print_error("got %.12g want %.12g\n", got, want);
		fail();
	}
}

static void test_summary(void **state)
{
	(void)state;
	const double x[] = {3, 1, 5, 2, 4};
	struct stats_summary s;
	assert_int_equal(stats_summary(x, 5, &s), NS_OK);
	assert_int_equal(s.n, 5);
	near(s.max, 5, 0);
	near(s.min, 1, 0);
	near(s.mean, 3, 1e-15);
	near(s.stdev, sqrt(2.5), 1e-15);       /* 10 / 4 */
	assert_int_equal(stats_summary(x, 1, &s), NS_ERANGE);
	const double bad[] = {1, NAN};
	assert_int_equal(stats_summary(bad, 2, &s), NS_ERANGE);
}

static void test_spread(void **state)
{
	(void)state;
	double odd[] = {5, 1, 4, 2, 3}, even[] = {0.4, 0.1, 0.3, 0.2}, one[] = {7}, out[3];
	stats_spread(odd, 5, out);
	near(out[0], 1, 0);
	near(out[1], 3, 0);
	near(out[2], 5, 0);
	near(odd[0], 1, 0); /* sorted in place */
	stats_spread(even, 4, out);
	near(out[0], 0.1, 0);
	near(out[1], 0.25, 1e-15);
	near(out[2], 0.4, 0);
	stats_spread(one, 1, out);
	near(out[0], 7, 0);
	near(out[1], 7, 0);
	near(out[2], 7, 0);
}

static void test_welch_seed(void **state)
{
	(void)state;
	struct stats_welch w;
	assert_int_equal(stats_welch(189.154, 1.37, 10, 188.086, 0.99, 10, &w), NS_OK);
	near(w.diff, 1.068, 1e-12);
	near(w.t, 1.9980949975, 1e-9);
	near(w.df, 16.3855258292, 1e-9);
	near(w.p, 0.0625829918, 1e-7);
}

/* The 95 % interval of the seed's difference contains 0 (p = 0.06 > 0.05)
 * and is diff -/+ about 2.12 standard errors (t quantile at df 16.4). */
static void test_welch_ci(void **state)
{
	(void)state;
	struct stats_welch w;
	double lo, hi, lo99, hi99;
	assert_int_equal(stats_welch(189.154, 1.37, 10, 188.086, 0.99, 10, &w), NS_OK);
	assert_int_equal(stats_welch_ci(&w, 0.95, &lo, &hi), NS_OK);
	assert_true(lo < 0 && hi > 0);
	assert_true(fabs((lo + hi) / 2 - w.diff) < 1e-12);
	assert_true((hi - lo) / 2 > 2.10 * w.se && (hi - lo) / 2 < 2.13 * w.se);
	assert_int_equal(stats_welch_ci(&w, 0.99, &lo99, &hi99), NS_OK);
	assert_true(lo99 < lo && hi99 > hi);
	assert_int_equal(stats_welch_ci(&w, 1.0, &lo, &hi), NS_ERANGE);
	assert_int_equal(stats_welch(5, 0, 3, 4, 0, 3, &w), NS_OK);
	assert_int_equal(stats_welch_ci(&w, 0.95, &lo, &hi), NS_OK);
	assert_true(lo == 1 && hi == 1);
}

/* A contrast: +1, -1 is Welch's test; a 2x2 interaction by hand. */
static void test_contrast(void **state)
{
	(void)state;
	struct stats_welch w, c;
	struct stats_summary two[2] = {{.n = 10, .mean = 189.154, .stdev = 1.37},
				       {.n = 10, .mean = 188.086, .stdev = 0.99}};
	const double pm[2] = {1, -1};
	assert_int_equal(stats_welch(189.154, 1.37, 10, 188.086, 0.99, 10, &w), NS_OK);
	assert_int_equal(stats_contrast(two, pm, 2, &c), NS_OK);
	near(c.diff, w.diff, 1e-12);
	near(c.t, w.t, 1e-12);
	near(c.df, w.df, 1e-9);
	near(c.p, w.p, 1e-12);
	/* (17 - 11) - (12 - 10) = 4; se = sqrt((1 + 4 + 1 + 4) / 4);
	 * df = 2.5^2 / ((0.25^2 + 1 + 0.25^2 + 1) / 3) */
	struct stats_summary four[4] = {{.n = 4, .mean = 10, .stdev = 1},
					{.n = 4, .mean = 12, .stdev = 2},
					{.n = 4, .mean = 11, .stdev = 1},
					{.n = 4, .mean = 17, .stdev = 2}};
	const double inter[4] = {1, -1, -1, 1};
	assert_int_equal(stats_contrast(four, inter, 4, &c), NS_OK);
	near(c.diff, 4, 1e-12);
	near(c.se, sqrt(2.5), 1e-12);
	near(c.t, 4 / sqrt(2.5), 1e-12);
	near(c.df, 6.25 / (2.125 / 3), 1e-9);
	assert_true(c.p > 0.01 && c.p < 0.05);
	/* no variance: exact, p 0 for a nonzero contrast */
	for (int i = 0; i < 4; i++)
		four[i].stdev = 0;
	assert_int_equal(stats_contrast(four, inter, 4, &c), NS_OK);
	assert_true(c.p == 0 && c.df == 12);
	four[2].n = 1;
	assert_int_equal(stats_contrast(four, inter, 4, &c), NS_ERANGE);
}

static void test_welch_samples(void **state)
{
	(void)state;
	const double x[] = {1, 2, 3, 4, 5}, y[] = {2, 4, 6, 8, 10, 12};
	struct stats_summary a, b;
	struct stats_welch w;
	assert_int_equal(stats_summary(x, 5, &a), NS_OK);
	assert_int_equal(stats_summary(y, 6, &b), NS_OK);
	assert_int_equal(stats_welch_summary(&a, &b, &w), NS_OK);
	near(w.t, -2.3763541031, 1e-9);
	near(w.df, 6.9722557298, 1e-9);
	near(w.p, 0.0492843382, 1e-7);
	/* symmetric */
	struct stats_welch v;
	assert_int_equal(stats_welch_summary(&b, &a, &v), NS_OK);
	near(v.t, -w.t, 1e-12);
	near(v.p, w.p, 1e-12);
}

static void test_welch_degenerate(void **state)
{
	(void)state;
	struct stats_welch w;
	assert_int_equal(stats_welch(5, 0, 3, 5, 0, 4, &w), NS_OK);
	near(w.t, 0, 0);
	near(w.p, 1, 0);
	near(w.df, 5, 0);
	assert_int_equal(stats_welch(6, 0, 3, 5, 0, 4, &w), NS_OK);
	assert_true(isinf(w.t) && w.t > 0);
	near(w.p, 0, 0);
	/* equal means with spread: t = 0, p = 1 */
	assert_int_equal(stats_welch(5, 1, 10, 5, 2, 10, &w), NS_OK);
	near(w.p, 1, 1e-12);
	assert_int_equal(stats_welch(5, 1, 1, 5, 2, 10, &w), NS_ERANGE);
	assert_int_equal(stats_welch(5, -1, 4, 5, 2, 10, &w), NS_ERANGE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_summary),
		cmocka_unit_test(test_spread),
		cmocka_unit_test(test_welch_seed),
		cmocka_unit_test(test_welch_ci),
		cmocka_unit_test(test_contrast),
		cmocka_unit_test(test_welch_samples),
		cmocka_unit_test(test_welch_degenerate),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
