/*
 * Tests for analysis/plot: loading a line plot from samples (x from the
 * metric name, mean with min-max bars, names without a number skipped)
 * and from metrics against a parameter, bar charts of profile and branch
 * rows (top N, mean per run, zero for missing categories), the SVG's
 * structure (well-formed enough to count elements: one series group per
 * group, labels, log axis), determinism, the gnuplot script, plot_check
 * and the errors; the --where filters, the layout (a canvas sized from
 * long legend names and category labels, a fixed canvas too small for
 * them, y ticks only inside the axis) and the CSV of the points.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/diag.h"
#include "analysis/plot.h"
#include "tests/sql_fixture.h"

static const char schema[] =
	"CREATE TABLE runs (run_id INTEGER PRIMARY KEY, status TEXT, point INT, variant TEXT,"
	" kernel_model TEXT, workload TEXT, machine TEXT);"
	"CREATE TABLE params (run_id INT, key TEXT, value ANY);"
	"CREATE TABLE metrics (run_id INT, name TEXT, value REAL, unit TEXT);"
	"CREATE TABLE samples (run_id INT, metric TEXT, idx INT, value REAL);"
	"CREATE TABLE profile (run_id INT, function TEXT, self_cycles INT);"
	"CREATE TABLE branches (run_id INT, site TEXT, executed INT, taken INT, mispredicted INT);"
	"INSERT INTO runs VALUES (1, 'ok', 0, 'a', 'k', 'w', 'm'), (2, 'ok', 1, 'b', 'k', 'w', 'm'),"
	" (3, 'ok', 0, 'a', 'k', 'w', 'm'), (4, 'failed', 0, 'a', 'k', 'w', 'm');"
	"INSERT INTO params VALUES (1, 'n', 10), (2, 'n', 10), (3, 'n', 20), (1, 's', 'x');"
	"INSERT INTO metrics VALUES (1, 'm', 5, 's'), (2, 'm', 7, 's'), (3, 'm', 9, 's'),"
	" (4, 'm', 100, 's');"
	"INSERT INTO samples VALUES (1, 'c-1', 0, 10), (1, 'c-1', 1, 20), (3, 'c-1', 0, 30),"
	" (1, 'c-1024', 0, 5), (2, 'c-1', 0, 8), (2, 'c-1024', 0, 4), (1, 'c-1.min', 0, 1);"
	"INSERT INTO profile VALUES (1, 'f', 100), (3, 'f', 300), (1, 'g', 50), (2, 'f', 10),"
	" (2, 'h', 1);"
	"INSERT INTO branches VALUES (1, 'S1', 10, 5, 2), (2, 'S1', 10, 5, 4), (2, 'S2', 9, 1, 1);";

static char *svg(const struct plot *p)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	assert_int_equal(plot_svg(p, f), NS_OK);
	fclose(f);
	return buf;
}

static int count(const char *s, const char *what)
{
	int n = 0;
	size_t off = 0, len = strlen(s), wl = strlen(what);
	for (; off + wl <= len; off++)
		n += memcmp(s + off, what, wl) == 0;
	return n;
}

static void test_line_from_samples(void **state)
{
	sqlite3 *db = *state;
	struct plot p;
	struct diag d;
	diag_init(&d);
	plot_init(&p, PLOT_LINE);
	assert_int_equal(plot_load_line(&p, db, "db", "c-*", NULL, "variant", &d), NS_OK);
	assert_int_equal(plot_check(&p), NS_OK);
	assert_int_equal(p.nr_series, 2);
	assert_string_equal(p.series[0].name, "a");
	assert_int_equal(p.series[0].n, 2);
	assert_true(p.series[0].x[0] == 1 && p.series[0].x[1] == 1024);
	assert_true(fabs(p.series[0].y[0] - 20) < 1e-12); /* (10 + 20 + 30) / 3 */
	assert_true(p.series[0].lo[0] == 10 && p.series[0].hi[0] == 30);
	char *s = svg(&p);
	assert_int_equal(count(s, "<g class=\"series\""), 2);
	assert_int_equal(count(s, "<circle"), 4);
	assert_int_equal(count(s, "class=\"errorbar\""), 4);
	assert_non_null(strstr(s, "(log scale)"));
	assert_non_null(strstr(s, "class=\"xlabel\""));
	assert_non_null(strstr(s, "class=\"ylabel\""));
	assert_int_equal(count(s, "<svg"), 1);
	assert_int_equal(count(s, "</svg>"), 1);
	char *s2 = svg(&p);
	assert_string_equal(s, s2);
	free(s2);
	free(s);
	char *g = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&g, &len);
	assert_int_equal(plot_gnuplot(&p, "out'x.png", f), NS_OK);
	fclose(f);
	assert_non_null(strstr(g, "set output 'out''x.png'"));
	assert_non_null(strstr(g, "set logscale x 2"));
	assert_int_equal(count(g, "EOD\n"), 4);
	free(g);
	plot_free(&p);
}

static void test_line_from_param(void **state)
{
	sqlite3 *db = *state;
	struct plot p;
	struct diag d;
	diag_init(&d);
	plot_init(&p, PLOT_LINE);
	assert_int_equal(plot_load_line(&p, db, "db", "m", "n", "workload", &d), NS_OK);
	assert_int_equal(plot_check(&p), NS_OK);
	assert_int_equal(p.nr_series, 1);
	assert_int_equal(p.series[0].n, 2);
	assert_true(p.series[0].y[0] == 6 && p.series[0].y[1] == 9); /* (5 + 7) / 2, 9 */
	char *s = svg(&p);
	assert_null(strstr(s, "(log scale)"));
	assert_non_null(strstr(s, ">n</text>"));
	free(s);
	plot_free(&p);
	diag_init(&d);
	plot_init(&p, PLOT_LINE);
	assert_int_equal(plot_load_line(&p, db, "db", "m", "s", NULL, &d), NS_EINPUT);
	assert_non_null(strstr(d.msg, "non-numeric"));
	plot_free(&p);
}

static void test_bars(void **state)
{
	sqlite3 *db = *state;
	struct plot p;
	struct diag d;
	diag_init(&d);
	plot_init(&p, PLOT_BAR);
	assert_int_equal(plot_load_bars(&p, db, "db", "profile", "variant", 2, &d), NS_OK);
	assert_int_equal(plot_check(&p), NS_OK);
	assert_int_equal(p.nr_cats, 2);
	assert_string_equal(p.cats[0], "f");
	assert_string_equal(p.cats[1], "g");
	assert_int_equal(p.nr_series, 2);
	assert_true(p.series[0].y[0] == 200 && p.series[0].y[1] == 25); /* a: 2 runs */
	assert_true(p.series[1].y[0] == 10 && p.series[1].y[1] == 0);
	char *s = svg(&p);
	assert_int_equal(count(s, "<g class=\"series\""), 2);
	assert_int_equal(count(s, "<title>"), 4);
	free(s);
	plot_free(&p);
	plot_init(&p, PLOT_BAR);
	assert_int_equal(plot_load_bars(&p, db, "db", "mispredicted", "variant", 0, &d), NS_OK);
	assert_int_equal(p.nr_cats, 2);
	assert_true(p.series[0].y[0] == 1); /* a: 2 mispredicts over 2 runs */
	assert_true(p.series[1].y[0] == 4 && p.series[1].y[1] == 1);
	plot_free(&p);
}

static void test_errors(void **state)
{
	sqlite3 *db = *state;
	struct plot p;
	struct diag d;
	const char *what[] = {"pie", "profile", "profile"};
	for (int i = 0; i < 2; i++) {
		diag_init(&d);
		plot_init(&p, PLOT_LINE);
		assert_int_equal(plot_load_line(&p, db, "db", i ? "c-*" : "zz*", NULL,
						i ? "nosuch" : NULL, &d), NS_EINPUT);
		assert_non_null(strstr(d.msg, i ? "unknown key" : "no metric matches"));
		plot_free(&p);
	}
	diag_init(&d);
	plot_init(&p, PLOT_BAR);
	assert_int_equal(plot_load_bars(&p, db, "db", what[0], NULL, 5, &d), NS_EINPUT);
	plot_free(&p);
	plot_init(&p, PLOT_LINE);
	assert_int_equal(plot_svg(&p, stderr), NS_EINTERNAL);
	plot_free(&p);
}

/* The SVG of p in *out (a helper returning the memstream's buffer trips
 * gcc's -Wdangling-pointer in the loops below). */
static void svg_to(const struct plot *p, char **out)
{
	size_t len = 0;
	FILE *f = open_memstream(out, &len);
	assert_int_equal(plot_svg(p, f), NS_OK);
	fclose(f);
}

/* The numbers of attribute name in every element that has class cls. */
static int attrs(const char *s, const char *cls, const char *name, double *v, int max)
{
	char key[64], at[32];
	int n = 0;
	snprintf(key, sizeof key, "class=\"%s\"", cls);
	snprintf(at, sizeof at, " %s=\"", name);
	for (const char *p = strstr(s, key); p && n < max; p = strstr(p + 1, key)) {
		const char *e = strchr(p, '>'), *q = strstr(p, at);
		if (q && q < e)
			v[n++] = strtod(q + strlen(at), NULL);
	}
	return n;
}

static void test_where(void **state)
{
	sqlite3 *db = *state;
	const char *const where[] = {"n=10", "variant=a"}, *const bad[] = {"=x"};
	struct plot p;
	struct diag d;
	diag_init(&d);
	plot_init(&p, PLOT_LINE);
	p.where = where;
	p.nr_where = 2;
	assert_int_equal(plot_load_line(&p, db, "db", "c-*", NULL, "variant", &d), NS_OK);
	assert_int_equal(p.nr_series, 1);                  /* run 1 only */
	assert_true(fabs(p.series[0].y[0] - 15) < 1e-12);  /* (10 + 20) / 2 */
	plot_free(&p);
	plot_init(&p, PLOT_BAR);
	p.where = where;
	p.nr_where = 1;
	assert_int_equal(plot_load_bars(&p, db, "db", "profile", NULL, 5, &d), NS_OK);
	assert_int_equal(p.nr_series, 2);
	assert_true(p.series[0].y[0] == 100);              /* a: run 1, not 3 */
	plot_free(&p);
	plot_init(&p, PLOT_LINE);
	p.where = bad;
	p.nr_where = 1;
	assert_int_equal(plot_load_line(&p, db, "db", "c-*", NULL, NULL, &d), NS_EINPUT);
	assert_non_null(strstr(d.msg, "KEY=VALUE"));
	plot_free(&p);
}

static void test_layout(void **state)
{
	sqlite3 *db = *state;
	struct plot p;
	struct plot_layout l;
	struct diag d;
	diag_init(&d);
	plot_init(&p, PLOT_BAR);
	assert_int_equal(plot_load_bars(&p, db, "db", "profile", NULL, 5, &d), NS_OK);
	/* names far longer than the old fixed 200-pixel legend column */
	free(p.series[0].name);
	p.series[0].name = strdup("zonelist_iter=pre-682a3385,policy.cpuset=none,policy.x=y");
	free(p.cats[0]);
	p.cats[0] = strdup("a_very_long_function_name_of_the_profile");
	assert_int_equal(plot_layout(&p, &l, &d), NS_OK);
	assert_true(l.legend_x + l.legend_w <= l.width - PLOT_PAD + 1e-9);
	assert_true(l.legend_w > 57 * 12 * 0.5);           /* 57 characters at 12 px */
	assert_true(l.left + l.pw <= l.legend_x && l.pw >= PLOT_AREA_W);
	/* the first category's label, 45 degrees, reaches left of the plot area */
	assert_true(l.left > 40 * 11 * 0.5 * 0.7 - l.pw / 10);
	char *s = NULL;
	svg_to(&p, &s);
	double v[4];
	assert_int_equal(attrs(s, "legend-box", "width", v, 4), 1);
	assert_true(fabs(v[0] - l.legend_w) < 0.06);
	char dims[64];
	snprintf(dims, sizeof dims, "width=\"%d\" height=\"%d\"", l.width, l.height);
	assert_non_null(strstr(s, dims));
	free(s);
	p.width = 400;                                     /* too narrow for the legend */
	assert_int_equal(plot_layout(&p, &l, &d), NS_EINPUT);
	assert_non_null(strstr(d.msg, "--width 400 is too small"));
	assert_int_equal(plot_svg(&p, stderr), NS_EINPUT);
	p.width = 2000;
	p.height = 900;
	assert_int_equal(plot_layout(&p, &l, &d), NS_OK);
	assert_true(l.width == 2000 && l.height == 900);
	assert_true(fabs(l.left + l.pw + 15 + l.legend_w + PLOT_PAD - 2000) < 1e-9);
	p.height = 150;
	diag_init(&d);                                     /* the first message sticks */
	assert_int_equal(plot_layout(&p, &l, &d), NS_EINPUT);
	assert_non_null(strstr(d.msg, "--height 150"));
	plot_free(&p);
}

static void test_ticks_inside(void **state)
{
	sqlite3 *db = *state;
	struct plot p;
	struct plot_layout l;
	struct diag d;
	diag_init(&d);
	plot_init(&p, PLOT_LINE);
	assert_int_equal(plot_load_line(&p, db, "db", "c-*", NULL, "variant", &d), NS_OK);
	/* 340..731: step 50 over 300..750 (the old writer drew up to 800) */
	p.series[0].lo[0] = 340;
	p.series[0].y[0] = p.series[0].hi[0] = 731;
	for (int k = 0; k < p.nr_series; k++)
		for (int i = 0; i < p.series[k].n; i++) {
			p.series[k].lo[i] = fmax(p.series[k].lo[i], 340);
			p.series[k].y[i] = fmax(p.series[k].y[i], p.series[k].lo[i]);
			p.series[k].hi[i] = fmax(p.series[k].hi[i], p.series[k].y[i]);
		}
	assert_int_equal(plot_check(&p), NS_OK);
	assert_int_equal(plot_layout(&p, &l, &d), NS_OK);
	char *s = NULL;
	svg_to(&p, &s);
	assert_non_null(strstr(s, ">750</text>"));
	assert_null(strstr(s, ">800</text>"));
	const char *g = strstr(s, "<g class=\"yticks\"");
	assert_non_null(g);
	int lines = 0;
	for (const char *q = strstr(g, "y1=\""); q && q < strstr(g, "</g>"); q = strstr(q + 1, "y1=\"")) {
		double y = strtod(q + 4, NULL);
		assert_true(y >= l.top - 0.05 && y <= l.top + l.ph + 0.05);
		lines++;
	}
	assert_int_equal(lines, 10);                       /* 300, 350, ..., 750 */
	free(s);
	plot_free(&p);
}

/* No --by: the series are the variant and what differs between its runs
 * (n: 10 in runs 1 and 2, 20 in run 3; s only in run 1, "~" elsewhere). */
static void test_labels_from_differences(void **state)
{
	sqlite3 *db = *state;
	struct plot p;
	struct diag d;
	diag_init(&d);
	plot_init(&p, PLOT_LINE);
	assert_int_equal(plot_load_line(&p, db, "db", "c-*", NULL, NULL, &d), NS_OK);
	assert_int_equal(plot_check(&p), NS_OK);
	assert_int_equal(p.nr_series, 3);
	assert_string_equal(p.series[0].name, "a,n=10");
	assert_string_equal(p.series[1].name, "a,n=20");
	assert_string_equal(p.series[2].name, "b,n=10");
	assert_true(fabs(p.series[0].y[0] - 15) < 1e-12); /* run 1: (10 + 20) / 2 */
	plot_free(&p);
	/* one value of n left: the variant alone */
	const char *w[] = {"n=10"};
	plot_init(&p, PLOT_LINE);
	p.where = w;
	p.nr_where = 1;
	assert_int_equal(plot_load_line(&p, db, "db", "c-*", NULL, NULL, &d), NS_OK);
	assert_int_equal(p.nr_series, 2);
	assert_string_equal(p.series[0].name, "a");
	plot_free(&p);
}

static void test_csv(void **state)
{
	sqlite3 *db = *state;
	struct plot p;
	struct diag d;
	char *buf = NULL;
	size_t len = 0;
	diag_init(&d);
	plot_init(&p, PLOT_LINE);
	assert_int_equal(plot_load_line(&p, db, "db", "c-*", NULL, "variant", &d), NS_OK);
	FILE *f = open_memstream(&buf, &len);
	assert_int_equal(plot_csv(&p, f), NS_OK);
	fclose(f);
	assert_string_equal(buf, "series,x,mean,min,max,n\n"
			    "a,1,20,10,30,3\na,1024,5,5,5,1\nb,1,8,8,8,1\nb,1024,4,4,4,1\n");
	free(buf);
	plot_free(&p);
	plot_init(&p, PLOT_BAR);
	assert_int_equal(plot_load_bars(&p, db, "db", "profile", "variant", 2, &d), NS_OK);
	free(p.series[0].name);
	p.series[0].name = strdup("a,\"b\"");
	f = open_memstream(&buf, &len);
	assert_int_equal(plot_csv(&p, f), NS_OK);
	fclose(f);
	assert_string_equal(buf, "series,category,mean\n"
			    "\"a,\"\"b\"\"\",f,200\n\"a,\"\"b\"\"\",g,25\nb,f,10\nb,g,0\n");
	free(buf);
	plot_free(&p);
}

static int setup(void **state)
{
	return memdb_setup(state, schema);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_line_from_samples),
		cmocka_unit_test(test_line_from_param),
		cmocka_unit_test(test_bars),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_where),
		cmocka_unit_test(test_layout),
		cmocka_unit_test(test_ticks_inside),
		cmocka_unit_test(test_labels_from_differences),
		cmocka_unit_test(test_csv),
	};
	return cmocka_run_group_tests(tests, setup, memdb_teardown);
}
