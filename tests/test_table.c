/*
 * Tests for analysis/table: the seed's published table
 * (docs/results/seed-zonelist.md, statinline-v1r20 vs
 * optiter-v1r20) stored as samples through the store API must print
 * byte for byte as mmtests printed it (the commit message indents it by
 * two spaces); pooling of repetitions (Min over all, Amean of all),
 * column order by point, the improvement sign, and the errors for runs
 * without pagealloc samples.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/diag.h"
#include "analysis/store.h"
#include "analysis/table.h"

static const int batches[15] = {1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024,
				2048, 4096, 8192, 16384};
static const int pre[15] = {412, 301, 247, 215, 199, 191, 187, 185, 193, 207,
			    213, 220, 226, 229, 229};
static const int post[15] = {382, 282, 233, 203, 188, 182, 177, 175, 184, 197,
			     203, 209, 214, 218, 219};

/* The seed's lines without the commit message's two-space indent. */
static const char *const seed_lines[] = {
	"                                           4.6.0-rc2                  4.6.0-rc2",
	/* numasim names the unit in the corner mmtests leaves blank */
	"TSC ticks/op                        statinline-v1r20              optiter-v1r20",
	"Min      alloc-odr0-1               412.00 (  0.00%)           382.00 (  7.28%)",
	"Min      alloc-odr0-2               301.00 (  0.00%)           282.00 (  6.31%)",
	"Min      alloc-odr0-4               247.00 (  0.00%)           233.00 (  5.67%)",
	"Min      alloc-odr0-8               215.00 (  0.00%)           203.00 (  5.58%)",
	"Min      alloc-odr0-16              199.00 (  0.00%)           188.00 (  5.53%)",
	"Min      alloc-odr0-32              191.00 (  0.00%)           182.00 (  4.71%)",
	"Min      alloc-odr0-64              187.00 (  0.00%)           177.00 (  5.35%)",
	"Min      alloc-odr0-128             185.00 (  0.00%)           175.00 (  5.41%)",
	"Min      alloc-odr0-256             193.00 (  0.00%)           184.00 (  4.66%)",
	"Min      alloc-odr0-512             207.00 (  0.00%)           197.00 (  4.83%)",
	"Min      alloc-odr0-1024            213.00 (  0.00%)           203.00 (  4.69%)",
	"Min      alloc-odr0-2048            220.00 (  0.00%)           209.00 (  5.00%)",
	"Min      alloc-odr0-4096            226.00 (  0.00%)           214.00 (  5.31%)",
	"Min      alloc-odr0-8192            229.00 (  0.00%)           218.00 (  4.80%)",
	"Min      alloc-odr0-16384           229.00 (  0.00%)           219.00 (  4.37%)",
};

static char dbpath[256];

static const char hash[] =
	"0000000000000000000000000000000000000000000000000000000000000000";

static int64_t add_run(struct store *st, int point, int rep, const char *variant,
		       const char *model, int offset)
{
	struct store_run_info info = {
		.scenario = "seed", .scenario_sha256 = hash, .point = point,
		.repetition = rep, .seed = 1, .machine = "m", .machine_sha256 = hash,
		.workload = "pagealloc", .variant = variant, .kernel_model = model,
	};
	int64_t id;
	char name[64];
	double v[13];
	assert_int_equal(store_run_begin(st, &info, &id), NS_OK);
	for (int b = 0; b < 15; b++) {
		const int *src = point == 0 ? pre : post;
		for (int i = 0; i < 13; i++)
			v[i] = src[b] + offset + (i % 3);   /* min = src + offset */
		snprintf(name, sizeof name, "alloc-odr0-%d", batches[b]);
		assert_int_equal(store_samples(st, id, name, v, 13), NS_OK);
		snprintf(name, sizeof name, "total-odr0-%d", batches[b]);
		assert_int_equal(store_samples(st, id, name, v, 13), NS_OK);
	}
	/* a series the table must ignore */
	assert_int_equal(store_samples(st, id, "latency", v, 13), NS_OK);
	assert_int_equal(store_run_commit(st, id), NS_OK);
	return id;
}

static char *render(struct store *st, const int64_t *ids, int n, unsigned stats)
{
	char *buf = NULL;
	size_t len = 0;
	struct diag d;
	diag_init(&d);
	FILE *f = open_memstream(&buf, &len);
	assert_non_null(f);
	int rc = table_pagealloc(store_sqlite(st), ids, n, stats, f, &d);
	fclose(f);
	if (rc)
		diag_print(&d, stderr);
	assert_int_equal(rc, NS_OK);
	return buf;
}

static void test_seed_table(void **state)
{
	(void)state;
	struct store *st;
	struct diag d;
	diag_init(&d);
	snprintf(dbpath, sizeof dbpath, "%s/numasim-table-%d.db",
		 getenv("TMPDIR") && *getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp",
		 (int)getpid());
	unlink(dbpath);
	assert_int_equal(store_open(dbpath, STORE_RDWR, &st, &d), NS_OK);
	int64_t ids[4];
	/* written out of point order: columns still follow the points */
	ids[0] = add_run(st, 1, 0, "x=optiter-v1r20", "4.6.0-rc2", 0);
	ids[1] = add_run(st, 0, 0, "x=statinline-v1r20", "4.6.0-rc2", 0);
	char *out = render(st, ids, 2, TABLE_MIN);
	/* header lines and the 15 alloc rows are the seed's */
	char *line = out;
	for (size_t i = 0; i < sizeof seed_lines / sizeof seed_lines[0]; i++) {
		char *nl = strchr(line, '\n');
		assert_non_null(nl);
		*nl = '\0';
		assert_string_equal(line, seed_lines[i]);
		line = nl + 1;
	}
	/* then the total rows (no free series was stored) */
	assert_true(!strncmp(line, "Min      total-odr0-1 ", 22));
	free(out);

	/* repetitions pool: a second repetition 5 cycles lower moves Min */
	ids[2] = add_run(st, 0, 1, "x=statinline-v1r20", "4.6.0-rc2", -5);
	out = render(st, ids, 3, TABLE_MIN | TABLE_AMEAN);
	assert_non_null(strstr(out, "Min      alloc-odr0-1               407.00 (  0.00%)           382.00 (  6.14%)\n"));
	/* Amean of all 26 base samples: 410 + 12/13; post 382 + 12/13 */
	assert_non_null(strstr(out, "Amean    alloc-odr0-1               410.42 (  0.00%)           382.92 (  6.70%)\n"));
	free(out);

	/* a slower variant gives a negative improvement */
	ids[3] = add_run(st, 2, 0, "x=slow", "4.6.0-rc2", 100);
	out = render(st, ids, 4, TABLE_MIN);
	assert_non_null(strstr(out, "382.00 (  6.14%)           482.00 (-18.43%)\n"));
	free(out);

	/* no runs, or runs without pagealloc series */
	FILE *f = fopen("/dev/null", "w");
	diag_init(&d);
	assert_int_equal(table_pagealloc(store_sqlite(st), ids, 0, TABLE_MIN, f, &d),
			 NS_ENOENT);
	int64_t none = 12345;
	diag_init(&d);
	assert_int_equal(table_pagealloc(store_sqlite(st), &none, 1, TABLE_MIN, f, &d),
			 NS_ENOENT);
	fclose(f);
	store_close(st);
	unlink(dbpath);
	char side[300];
	snprintf(side, sizeof side, "%s-wal", dbpath);
	unlink(side);
	snprintf(side, sizeof side, "%s-shm", dbpath);
	unlink(side);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_seed_table),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
