/*
 * Tests for sim/progress: the bar's text (counts, rate since start, ETA
 * from that rate, unknown ETA before the first run), runs skipped by
 * --resume neither counted in the rate nor allowed below the base,
 * redraws throttled to PROGRESS_MIN_INTERVAL_S except the final one, and
 * progress_finish blanking the line; progress within a run (a share of
 * a run done: percentage, s/run, ETA; never going back) and the ticker
 * thread that polls it.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/diag.h"
#include "base/progress.h"

static void test_format(void **state)
{
	struct progress p;
	char buf[160];
	(void)state;
	progress_init(&p, NULL, 100, 0, 10.0);
	progress_format(&p, 10.0, buf, sizeof buf);
	assert_non_null(strstr(buf, "] 0/100 runs    0%  -- s/run  ETA --:--"));
	assert_int_equal(buf[1], '>');
	progress_update(&p, 25, 15.0);                /* 5 runs/s */
	progress_format(&p, 15.0, buf, sizeof buf);
	assert_non_null(strstr(buf, "] 25/100 runs   25%  5.00 runs/s  ETA 0:15"));
	assert_memory_equal(buf, "[======>", 8);     /* 25% of 24 cells */
	progress_update(&p, 99, 15.0 + 99 / 5.0 - 5); /* ~5 runs/s */
	progress_update(&p, 100, 30.0);
	progress_format(&p, 30.0, buf, sizeof buf);
	assert_non_null(strstr(buf, "] 100/100 runs  100%  5.00 runs/s  ETA 0:00"));
	assert_non_null(strstr(buf, "[========================]"));
	assert_int_equal(progress_check(&p), NS_OK);
	/* an hour and more */
	progress_init(&p, NULL, 10000, 0, 0.0);
	progress_update(&p, 1, 2.0);                  /* 0.5 runs/s */
	progress_format(&p, 2.0, buf, sizeof buf);
	assert_non_null(strstr(buf, "2.0 s/run  ETA 5:33:18"));
	progress_update(&p, 5001, 50.0);               /* 100 runs/s */
	progress_format(&p, 50.0, buf, sizeof buf);
	assert_non_null(strstr(buf, "100.0 runs/s  ETA 0:50"));
}

static void test_resume_base(void **state)
{
	struct progress p;
	char buf[160];
	(void)state;
	progress_init(&p, NULL, 40, 30, 0.0);
	progress_format(&p, 1.0, buf, sizeof buf);
	assert_non_null(strstr(buf, "] 30/40 runs   75%  -- s/run  ETA --:--"));
	progress_update(&p, 32, 1.0);                 /* 2 fresh runs in 1 s */
	progress_format(&p, 1.0, buf, sizeof buf);
	assert_non_null(strstr(buf, "] 32/40 runs   80%  2.00 runs/s  ETA 0:04"));
	progress_update(&p, 3, 2.0);                  /* clamped to the base */
	assert_int_equal(p.done, 30);
	progress_update(&p, 99, 2.0);                 /* and to the total */
	assert_int_equal(p.done, 40);
	assert_int_equal(progress_check(&p), NS_OK);
	p.done = 41;
	assert_int_equal(progress_check(&p), NS_EINTERNAL);
	progress_init(&p, NULL, 5, 9, 0.0);           /* base above total */
	assert_int_equal(p.base, 5);
}

/* Count the \r-started drawings in what the bar wrote. */
static int drawings(const char *text)
{
	int n = 0;
	for (const char *c = text; *c; c++)
		n += *c == '\r';
	return n;
}

static void test_throttle_and_finish(void **state)
{
	struct progress p;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	(void)state;
	assert_non_null(f);
	progress_init(&p, f, 1000, 0, 0.0);
	for (int i = 1; i <= 999; i++)
		progress_update(&p, i, i * 0.001);    /* 1000 runs/s for ~1 s */
	progress_update(&p, 1000, 1.0);              /* the last one is drawn */
	fflush(f);
	int n = drawings(buf);
	assert_true(n >= 10 && n <= 12);
	assert_non_null(strstr(buf, "1000/1000 runs"));
	/* every drawing is padded to the same width */
	assert_int_equal(len % (PROGRESS_WIDTH + 1), 0);
	progress_finish(&p);
	fflush(f);
	assert_int_equal(drawings(buf), n + 2);
	assert_int_equal(buf[len - 1], '\r');
	progress_finish(&p);                           /* nothing left to erase */
	fflush(f);
	assert_int_equal(drawings(buf), n + 2);
	fclose(f);
	free(buf);
}

static void test_part(void **state)
{
	struct progress p;
	char buf[160];
	(void)state;
	progress_init(&p, NULL, 2, 0, 10.0);
	progress_update_part(&p, 0, 0.25, 20.0);      /* a quarter run in 10 s */
	progress_format(&p, 20.0, buf, sizeof buf);
	assert_non_null(strstr(buf, "] 0/2 runs   12%  40.0 s/run  ETA 1:10"));
	assert_memory_equal(buf, "[===>", 5);         /* 12.5% of 24 cells */
	progress_update_part(&p, 0, 0.1, 21.0);       /* a run restarted: no step back */
	assert_true(p.shown >= 0.25);
	progress_update_part(&p, 1, 5.0, 30.0);       /* clamped to what is left */
	assert_true(p.part <= 1.0);
	assert_int_equal(progress_check(&p), NS_OK);
	p.part = 1.5;
	assert_int_equal(progress_check(&p), NS_EINTERNAL);
}

struct fake_plan {
	struct progress_work w;
	long long done;
};

static void fake_poll(void *arg, long long *done, double *part)
{
	struct fake_plan *f = arg;
	*done = f->done;
	*part = progress_work_fraction(&f->w);
}

static void test_ticker(void **state)
{
	struct progress p;
	struct progress_ticker t;
	struct fake_plan fp;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	(void)state;
	assert_non_null(f);
	progress_work_init(&fp.w);
	fp.done = 0;
	progress_work_start(&fp.w, 1000);
	progress_work_set(&fp.w, 500);
	assert_true(progress_work_fraction(&fp.w) == 0.5);
	progress_work_set(NULL, 1);                   /* nobody watches: no-op */
	progress_init(&p, f, 1, 0, progress_clock());
	assert_int_equal(progress_ticker_start(&t, &p, fake_poll, &fp), NS_OK);
	struct timespec ts = {0, 350 * 1000 * 1000};
	nanosleep(&ts, NULL);
	fp.done = 1;
	progress_work_start(&fp.w, 0);
	progress_ticker_stop(&t);
	fflush(f);
	assert_true(drawings(buf) >= 3);              /* drawn while nothing was stored */
	assert_non_null(strstr(buf, "0/1 runs   50%"));
	assert_non_null(strstr(buf, "1/1 runs  100%"));  /* stop draws the end */
	/* without a terminal the ticker does not start */
	progress_init(&p, NULL, 1, 0, 0.0);
	assert_int_equal(progress_ticker_start(&t, &p, fake_poll, &fp), NS_OK);
	assert_int_equal(t.running, 0);
	progress_ticker_stop(&t);
	fclose(f);
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_format),
		cmocka_unit_test(test_resume_base),
		cmocka_unit_test(test_throttle_and_finish),
		cmocka_unit_test(test_part),
		cmocka_unit_test(test_ticker),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
