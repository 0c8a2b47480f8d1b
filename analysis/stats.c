/*
 * stats — summaries and Welch's t-test; see stats.h.  The mean and the
 * variance use two passes (mean first, then squared deviations), which is
 * exact enough for run times that differ in their fourth digit.
 */
#include "analysis/stats.h"

#include <gsl/gsl_cdf.h>
#include <math.h>
#include <stdlib.h>

#include "base/diag.h"

int stats_summary(const double *x, size_t n, struct stats_summary *out)
{
	double sum = 0, ss = 0, mx = -INFINITY, mn = INFINITY;

	if (n < 2)
		return NS_ERANGE;
	for (size_t i = 0; i < n; i++) {
		if (!isfinite(x[i]))
			return NS_ERANGE;
		sum += x[i];
		mx = x[i] > mx ? x[i] : mx;
		mn = x[i] < mn ? x[i] : mn;
	}
	double mean = sum / (double)n;
	for (size_t i = 0; i < n; i++)
		ss += (x[i] - mean) * (x[i] - mean);
	out->n = n;
	out->max = mx;
	out->min = mn;
	out->mean = mean;
	out->stdev = sqrt(ss / (double)(n - 1));
	return NS_OK;
}

int stats_welch(double mean1, double sd1, size_t n1, double mean2, double sd2, size_t n2,
		struct stats_welch *out)
{
	if (n1 < 2 || n2 < 2 || !(sd1 >= 0) || !(sd2 >= 0) || !isfinite(mean1) ||
	    !isfinite(mean2) || !isfinite(sd1) || !isfinite(sd2))
		return NS_ERANGE;
	double v1 = sd1 * sd1 / (double)n1, v2 = sd2 * sd2 / (double)n2;
	struct stats_welch w = {.diff = mean1 - mean2, .se = sqrt(v1 + v2)};

	if (v1 + v2 == 0) {
		w.df = (double)(n1 + n2 - 2);
		w.t = w.diff == 0 ? 0 : copysign(INFINITY, w.diff);
		w.p = w.diff == 0 ? 1 : 0;
	} else {
		w.t = w.diff / w.se;
		w.df = (v1 + v2) * (v1 + v2) /
		       (v1 * v1 / (double)(n1 - 1) + v2 * v2 / (double)(n2 - 1));
		w.p = 2 * gsl_cdf_tdist_Q(fabs(w.t), w.df);
		if (w.p > 1)
			w.p = 1;
	}
	*out = w;
	return NS_OK;
}

int stats_contrast(const struct stats_summary *s, const double *coef, size_t k,
		   struct stats_welch *out)
{
	double est = 0, var = 0, den = 0, n = 0;
	for (size_t i = 0; i < k; i++) {
		if (s[i].n < 2 || !(s[i].stdev >= 0) || !isfinite(s[i].mean) ||
		    !isfinite(s[i].stdev) || !isfinite(coef[i]))
			return NS_ERANGE;
		double v = coef[i] * coef[i] * s[i].stdev * s[i].stdev / (double)s[i].n;
		est += coef[i] * s[i].mean;
		var += v;
		den += v * v / (double)(s[i].n - 1);
		n += (double)s[i].n;
	}
	struct stats_welch w = {.diff = est, .se = sqrt(var)};
	if (var == 0) {
		w.df = n - (double)k;
		w.t = est == 0 ? 0 : copysign(INFINITY, est);
		w.p = est == 0 ? 1 : 0;
	} else {
		w.t = est / w.se;
		w.df = var * var / den;
		w.p = 2 * gsl_cdf_tdist_Q(fabs(w.t), w.df);
		if (w.p > 1)
			w.p = 1;
	}
	*out = w;
	return NS_OK;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

void stats_spread(double *v, size_t n, double out[3])
{
	qsort(v, n, sizeof *v, cmp_double);
	out[0] = v[0];
	out[1] = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
	out[2] = v[n - 1];
}

int stats_welch_summary(const struct stats_summary *a, const struct stats_summary *b,
			struct stats_welch *out)
{
	return stats_welch(a->mean, a->stdev, a->n, b->mean, b->stdev, b->n, out);
}

int stats_welch_ci(const struct stats_welch *w, double level, double *lo, double *hi)
{
	if (!(level > 0 && level < 1) || !(w->df > 0))
		return NS_ERANGE;
	double half = w->se > 0 ? gsl_cdf_tdist_Pinv((1 + level) / 2, w->df) * w->se : 0;
	*lo = w->diff - half;
	*hi = w->diff + half;
	return NS_OK;
}

double stats_t_quantile(double p, double df)
{
	return gsl_cdf_tdist_Pinv(p, df);
}
