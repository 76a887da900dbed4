/* Descriptive statistics over repetition samples and Student t quantiles. */
#ifndef VMB_STATS_H
#define VMB_STATS_H

#include <stdbool.h>
#include <stddef.h>

struct stats_summary {
	size_t n;
	double mean, median, stddev, cv, min, max;
	double ci95_low, ci95_high; /* Student t interval of the mean; equal to mean when n < 2 */
};

/* Summarize n samples (n >= 1). */
void stats_summarize(const double *x, size_t n, struct stats_summary *out);
/* Half-width of the 95% CI relative to |mean|, in percent; INFINITY when n < 2 or mean == 0. */
double stats_ci_rel_pct(const struct stats_summary *s);

/* Regularized incomplete beta function I_x(a, b). */
double stats_incbeta(double a, double b, double x);
/* Student t cumulative distribution P(T <= t) with df degrees of freedom (df may be fractional). */
double stats_t_cdf(double t, double df);
/* Quantile: the t with P(T <= t) = p, for 0 < p < 1. */
double stats_t_quantile(double p, double df);

/* Welch's unequal-variance t-test of b against a, and the 95% CI of the
 * difference of means (b - a). valid is false when either side has fewer
 * than 2 samples. */
struct stats_welch {
	bool valid;
	double diff, ci_low, ci_high, t, df, p;
};
void stats_welch(const struct stats_summary *a, const struct stats_summary *b, struct stats_welch *out);

#endif
