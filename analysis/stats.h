/*
 * stats — summary statistics of repeated runs and Welch's two-sample
 * t-test, as used to judge a benchmark claim such as the second seed's
 * (perf bench sched messaging, 10 runs per kernel: docs/design/slub-model.md
 * §11).
 *
 * Summary: max, min, arithmetic mean and the sample standard deviation
 * (divisor n - 1, what the seed's "stdev." and most spreadsheets print).
 * Welch: t = (mean1 - mean2) / sqrt(s1²/n1 + s2²/n2), degrees of freedom
 * by Welch–Satterthwaite, two-sided p = 2 * gsl_cdf_tdist_Q(|t|, df).
 * When both variances are zero, t is 0 with p = 1 for equal means, and
 * ±infinity with p = 0 otherwise; df is then n1 + n2 - 2.
 *
 * Error policy: NS_ERANGE for fewer than two values per sample (or a
 * negative standard deviation, a non-finite input); nothing is written to
 * *out then.  No state, nothing printed.
 */
#ifndef NUMASIM_STATS_H
#define NUMASIM_STATS_H

#include <stddef.h>

struct stats_summary {
	size_t n;
	double max, min, mean, stdev;
};

struct stats_welch {
	double diff;            /* mean1 - mean2 */
	double se;              /* standard error of the difference */
	double t, df, p;        /* p: two-sided */
};

int stats_summary(const double *x, size_t n, struct stats_summary *out);
int stats_welch(double mean1, double sd1, size_t n1, double mean2, double sd2, size_t n2,
		struct stats_welch *out);
/*
 * The two-sided confidence interval at level (0.95 for 95 %) of the
 * difference w->diff: diff -/+ t_{df, (1 + level) / 2} * se, with GSL's
 * Student-t quantile; [diff, diff] when se is 0.  NS_ERANGE for a level
 * outside (0, 1).
 */
int stats_welch_ci(const struct stats_welch *w, double level, double *lo, double *hi);
/* min, median and max of v[0..n) into out[0..2] (sorts v); n >= 1. */
void stats_spread(double *v, size_t n, double out[3]);
/* Student t quantile: t_{df, p} (GSL's gsl_cdf_tdist_Pinv), df > 0, 0 < p < 1. */
double stats_t_quantile(double p, double df);
/*
 * A contrast of k independent groups' means, sum coef[i] * mean[i] (the
 * interaction of a 2x2 design: coefficients +1, -1, -1, +1), tested as
 * Welch does two means: se = sqrt(sum coef[i]^2 s[i]^2 / n[i]), degrees of
 * freedom by Welch-Satterthwaite (sum v[i])^2 / sum v[i]^2 / (n[i] - 1)
 * with v[i] = coef[i]^2 s[i]^2 / n[i], two-sided p from Student's t; out->diff
 * is the contrast.  With coefficients +1, -1 it is stats_welch; with no
 * variance, the same convention (df = sum n[i] - k).  NS_ERANGE as there.
 */
int stats_contrast(const struct stats_summary *s, const double *coef, size_t k,
		   struct stats_welch *out);
/* Welch's test of two samples' summaries. */
int stats_welch_summary(const struct stats_summary *a, const struct stats_summary *b,
			struct stats_welch *out);

#endif
