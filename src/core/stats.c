/* Descriptive statistics and the Student t distribution.
 *
 * The t quantile is computed from the regularized incomplete beta function
 * (continued fraction, modified Lentz) and inverted by bisection, so it is
 * exact to double precision for any, also fractional, degrees of freedom:
 * Welch's test needs fractional df, and a table would need interpolation. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"
#include "banned.h"

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

void stats_summarize(const double *x, size_t n, struct stats_summary *out)
{
	struct stats_summary s = { .n = n };
	double m2 = 0, mean = 0;
	double small[64], *sorted = small;

	if (n == 0) {
		memset(out, 0, sizeof(*out));
		return;
	}
	/* Welford: numerically stable for samples far from zero. */
	s.min = s.max = x[0];
	for (size_t i = 0; i < n; i++) {
		double d = x[i] - mean;

		mean += d / (double)(i + 1);
		m2 += d * (x[i] - mean);
		if (x[i] < s.min)
			s.min = x[i];
		if (x[i] > s.max)
			s.max = x[i];
	}
	s.mean = mean;
	s.stddev = n > 1 ? sqrt(m2 / (double)(n - 1)) : 0;
	s.cv = mean != 0 ? s.stddev / fabs(mean) : 0;

	if (n > sizeof(small) / sizeof(small[0])) {
		sorted = malloc(n * sizeof(*sorted));
	}
	if (sorted) {
		memcpy(sorted, x, n * sizeof(*x));
		qsort(sorted, n, sizeof(*sorted), cmp_double);
		s.median = n % 2 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
		if (sorted != small)
			free(sorted);
	} else {
		s.median = NAN;
	}

	if (n > 1) {
		double t = stats_t_quantile(0.975, (double)(n - 1));
		double half = t * s.stddev / sqrt((double)n);

		s.ci95_low = mean - half;
		s.ci95_high = mean + half;
	} else {
		s.ci95_low = s.ci95_high = mean;
	}
	*out = s;
}

double stats_ci_rel_pct(const struct stats_summary *s)
{
	if (s->n < 2 || s->mean == 0)
		return INFINITY;
	return 100.0 * (s->ci95_high - s->mean) / fabs(s->mean);
}

/* Continued fraction for I_x(a, b), valid for x < (a + 1) / (a + b + 2). */
static double incbeta_cf(double a, double b, double x)
{
	const double tiny = 1e-300;
	double c = 1, d = 1 - (a + b) * x / (a + 1), f;

	if (fabs(d) < tiny)
		d = tiny;
	d = 1 / d;
	f = d;
	for (int m = 1; m <= 300; m++) {
		double num, delta;

		/* even step */
		num = m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m));
		d = 1 + num * d;
		c = 1 + num / c;
		if (fabs(d) < tiny)
			d = tiny;
		if (fabs(c) < tiny)
			c = tiny;
		d = 1 / d;
		f *= d * c;
		/* odd step */
		num = -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1));
		d = 1 + num * d;
		c = 1 + num / c;
		if (fabs(d) < tiny)
			d = tiny;
		if (fabs(c) < tiny)
			c = tiny;
		d = 1 / d;
		delta = d * c;
		f *= delta;
		if (fabs(delta - 1) < 1e-15)
			break;
	}
	return f;
}

double stats_incbeta(double a, double b, double x)
{
	double front;

	if (x <= 0)
		return 0;
	if (x >= 1)
		return 1;
	front = exp(lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) + b * log1p(-x));
	if (x < (a + 1) / (a + b + 2))
		return front * incbeta_cf(a, b, x) / a;
	return 1 - front * incbeta_cf(b, a, 1 - x) / b;
}

double stats_t_cdf(double t, double df)
{
	double t2 = t * t, tail, centre;

	if (isinf(t))
		return t > 0 ? 1 : 0;
	/* Near 0, df / (df + t^2) rounds to 1 and the tail form goes flat:
	 * use the central form P(|T| < t) = I_{t^2/(df+t^2)}(1/2, df/2) there. */
	if (t2 < df) {
		centre = 0.5 * stats_incbeta(0.5, df / 2, t2 / (df + t2));
		return t > 0 ? 0.5 + centre : 0.5 - centre;
	}
	tail = 0.5 * stats_incbeta(df / 2, 0.5, df / (df + t2));
	return t > 0 ? 1 - tail : tail;
}

double stats_t_quantile(double p, double df)
{
	double lo = -1e6, hi = 1e6;

	if (p <= 0)
		return -INFINITY;
	if (p >= 1)
		return INFINITY;
	if (p == 0.5)
		return 0;
	/* The CDF is monotonic: bisection converges in ~100 steps to the last bit. */
	for (int i = 0; i < 200; i++) {
		double mid = (lo + hi) / 2;

		if (stats_t_cdf(mid, df) < p)
			lo = mid;
		else
			hi = mid;
		if (hi - lo <= DBL_EPSILON * fabs(mid))
			break;
	}
	return (lo + hi) / 2;
}

void stats_welch(const struct stats_summary *a, const struct stats_summary *b, struct stats_welch *out)
{
	double va, vb, se2, q;

	memset(out, 0, sizeof(*out));
	out->diff = b->mean - a->mean;
	if (a->n < 2 || b->n < 2)
		return;
	out->valid = true;
	va = a->stddev * a->stddev / (double)a->n;
	vb = b->stddev * b->stddev / (double)b->n;
	se2 = va + vb;
	if (se2 <= 0) {
		/* No spread on either side: any difference is certain, none is none. */
		out->p = out->diff == 0 ? 1 : 0;
		out->ci_low = out->ci_high = out->diff;
		out->df = (double)(a->n + b->n - 2);
		out->t = out->diff == 0 ? 0 : copysign(INFINITY, out->diff);
		return;
	}
	/* Welch-Satterthwaite degrees of freedom */
	out->df = se2 * se2 / (va * va / (double)(a->n - 1) + vb * vb / (double)(b->n - 1));
	out->t = out->diff / sqrt(se2);
	out->p = 2 * (1 - stats_t_cdf(fabs(out->t), out->df));
	q = stats_t_quantile(0.975, out->df) * sqrt(se2);
	out->ci_low = out->diff - q;
	out->ci_high = out->diff + q;
}
