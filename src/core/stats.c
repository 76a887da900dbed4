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

/* t_{1-alpha/2} + t_{power}: the distance, in standard errors, that a true
 * difference must lie from zero to be detected with 80% power at 5%. */
static double mdd_factor(double df)
{
	return stats_t_quantile(0.975, df) + stats_t_quantile(0.80, df);
}

double stats_mdd_pct(double cv, double runs, double df)
{
	if (!(cv >= 0) || !(runs >= 1) || !(df >= 1))
		return INFINITY;
	return 100 * mdd_factor(df) * cv * sqrt(2 / runs);
}

const char *stats_verdict_word(enum stats_verdict v)
{
	static const char *const words[] = {
		[STATS_UNTESTED] = "untested", [STATS_BETTER] = "better", [STATS_WORSE] = "worse",
		[STATS_SAME] = "same", [STATS_INCONCLUSIVE] = "inconclusive",
	};

	return (unsigned)v < sizeof(words) / sizeof(words[0]) ? words[v] : "untested";
}

void stats_compare_runs(const struct stats_runs_in *in, struct stats_runs_cmp *out)
{
	struct stats_summary a, b;
	double base, se, diff, q95, q90;
	struct stats_runs_cmp o = { .verdict = STATS_UNTESTED, .p = NAN, .df = NAN, .mdd_pct = INFINITY,
				    .p_t = NAN, .p_exact = NAN };

	o.ci95_low_pct = o.ci95_high_pct = o.ci90_low_pct = o.ci90_high_pct = NAN;
	if (!in->na || !in->nb) {
		o.gap_pct = NAN;
		*out = o;
		return;
	}
	stats_summarize(in->a, in->na, &a);
	stats_summarize(in->b, in->nb, &b);
	base = fabs(a.mean);
	diff = b.mean - a.mean;
	o.gap_pct = base > 0 ? diff / base * 100 : NAN;
	if (!(base > 0)) {
		*out = o;
		return;
	}
	if (in->na >= 2 && in->nb >= 2) {
		/* Welch on the run means: each side's own run-to-run variance. */
		struct stats_welch w;

		stats_welch(&a, &b, &w);
		se = sqrt(a.stddev * a.stddev / (double)in->na + b.stddev * b.stddev / (double)in->nb);
		o.df = w.df;
		o.test = STATS_TEST_WELCH;
	} else if (in->calib_cv > 0 && in->calib_runs >= 2) {
		/* One run on a side: the stored between-run CV of this case stands
		 * for both sides' run-to-run variance. */
		se = in->calib_cv * base * sqrt(1 / (double)in->na + 1 / (double)in->nb);
		o.df = (double)in->calib_runs - 1;
		o.calibrated = true;
		o.test = STATS_TEST_CALIBRATED;
	} else {
		*out = o;
		return;
	}
	if (!(se > 0)) {
		/* identical run means on each side: no spread to judge by */
		o.p = diff == 0 ? 1 : 0;
		o.ci95_low_pct = o.ci95_high_pct = o.ci90_low_pct = o.ci90_high_pct = o.gap_pct;
		o.mdd_pct = 0;
		o.df = isfinite(o.df) ? o.df : 1;
	} else {
		q95 = stats_t_quantile(0.975, o.df) * se;
		q90 = stats_t_quantile(0.95, o.df) * se;
		o.p = 2 * (1 - stats_t_cdf(fabs(diff / se), o.df));
		o.ci95_low_pct = (diff - q95) / base * 100;
		o.ci95_high_pct = (diff + q95) / base * 100;
		o.ci90_low_pct = (diff - q90) / base * 100;
		o.ci90_high_pct = (diff + q90) / base * 100;
		o.mdd_pct = 100 * mdd_factor(o.df) * se / base;
	}
	if (o.ci95_low_pct > 0 || o.ci95_high_pct < 0)
		o.significant = (diff > 0) == in->higher_better ? 1 : -1;
	if (in->margin_pct > 0 && o.ci90_low_pct > -in->margin_pct && o.ci90_high_pct < in->margin_pct)
		o.verdict = STATS_SAME;
	else if (o.ci95_low_pct > 0 || o.ci95_high_pct < 0)
		o.verdict = (diff > 0) == in->higher_better ? STATS_BETTER : STATS_WORSE;
	else
		o.verdict = STATS_INCONCLUSIVE;
	*out = o;
}

bool stats_all_positive(const double *x, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!(x[i] > 0) || !isfinite(x[i]))
			return false;
	return true;
}

const char *stats_test_name(enum stats_test t)
{
	static const char *const names[] = {
		[STATS_TEST_NONE] = "none", [STATS_TEST_WELCH] = "welch", [STATS_TEST_CALIBRATED] = "calibrated",
		[STATS_TEST_PAIRED_T] = "paired-t", [STATS_TEST_PAIRED_BOTH] = "paired-t+sign-flip",
	};

	return (unsigned)t < sizeof(names) / sizeof(names[0]) ? names[t] : "none";
}

double stats_signflip_p(const double *d, size_t n)
{
	double obs = 0, tol;
	unsigned long long count = 0, total;

	if (n == 0 || n > 30)
		return NAN;
	for (size_t i = 0; i < n; i++)
		obs += d[i];
	obs = fabs(obs);
	/* a pattern that ties the observed sum counts: rounding must not make it miss */
	tol = 1e-12 * (obs + 1e-300);
	for (size_t i = 0; i < n; i++)
		tol += 1e-12 * fabs(d[i]);
	total = 1ull << n;
	for (unsigned long long s = 0; s < total; s++) {
		double sum = 0;

		for (size_t i = 0; i < n; i++)
			sum += (s >> i) & 1 ? -d[i] : d[i];
		count += fabs(sum) >= obs - tol;
	}
	return (double)count / (double)total;
}

/* From STATS_EXACT_MIN_PAIRS rounds the exact sign-flip test must agree,
 * and with few rounds it is the stricter one: with 6 it rejects only when
 * all six rounds agree in sign, so a difference of the t test's own mdd
 * (t(0.975) + t(0.80) standard errors) was found 59% of the time, not 80%.
 * The distance, in standard errors, at which both tests reject 80% of the
 * time, for normal per-round log ratios (a seeded simulation, 6,000 trials
 * a round count, bisection); from 12 rounds the t test's own is within 1.5%
 * of it. */
static const double paired_both_factor[] = {
	[6] = 4.50, [7] = 3.62, [8] = 3.45, [9] = 3.33, [10] = 3.22, [11] = 3.15,
};

static double paired_mdd_factor(size_t n)
{
	double f = mdd_factor((double)n - 1);

	if (n >= STATS_EXACT_MIN_PAIRS && n < sizeof(paired_both_factor) / sizeof(paired_both_factor[0]))
		f = fmax(f, paired_both_factor[n]);
	return f;
}

/* A log ratio's interval bound as a percentage gap. */
static double log_pct(double x)
{
	return expm1(x) * 100;
}

double stats_paired_mdd_pct(double sd, size_t n)
{
	if (n < 2 || !(sd >= 0))
		return INFINITY;
	return log_pct(paired_mdd_factor(n) * sd / sqrt((double)n));
}

void stats_compare_paired(const struct stats_paired_in *in, struct stats_runs_cmp *out)
{
	struct stats_runs_cmp o = { .verdict = STATS_UNTESTED, .p = NAN, .df = NAN, .mdd_pct = INFINITY,
				    .gap_pct = NAN, .p_t = NAN, .p_exact = NAN, .pairs = in->n };
	double d[STATS_EXACT_MAX_PAIRS], *dv = d, mean = 0, m2 = 0, se, sd;
	bool significant;

	o.ci95_low_pct = o.ci95_high_pct = o.ci90_low_pct = o.ci90_high_pct = NAN;
	if (in->n < 2 || !stats_all_positive(in->a, in->n) || !stats_all_positive(in->b, in->n)) {
		if (in->n >= 1 && stats_all_positive(in->a, in->n) && stats_all_positive(in->b, in->n))
			o.gap_pct = (in->b[0] / in->a[0] - 1) * 100;
		*out = o;
		return;
	}
	if (in->n > STATS_EXACT_MAX_PAIRS && !(dv = malloc(in->n * sizeof(*dv)))) {
		*out = o;
		return;
	}
	for (size_t i = 0; i < in->n; i++) {
		double x = log(in->b[i] / in->a[i]), delta = x - mean;

		dv[i] = x;
		mean += delta / (double)(i + 1);
		m2 += delta * (x - mean);
	}
	sd = sqrt(m2 / (double)(in->n - 1));
	se = sd / sqrt((double)in->n);
	o.df = (double)(in->n - 1);
	o.gap_pct = log_pct(mean);
	o.test = STATS_TEST_PAIRED_T;
	if (!(se > 0)) {
		/* every round the same ratio: no spread to judge by */
		o.p = o.p_t = mean == 0 ? 1 : 0;
		o.ci95_low_pct = o.ci95_high_pct = o.ci90_low_pct = o.ci90_high_pct = o.gap_pct;
		o.mdd_pct = 0;
	} else {
		double q95 = stats_t_quantile(0.975, o.df) * se, q90 = stats_t_quantile(0.95, o.df) * se;

		o.p = o.p_t = 2 * (1 - stats_t_cdf(fabs(mean / se), o.df));
		o.ci95_low_pct = log_pct(mean - q95);
		o.ci95_high_pct = log_pct(mean + q95);
		o.ci90_low_pct = log_pct(mean - q90);
		o.ci90_high_pct = log_pct(mean + q90);
		o.mdd_pct = log_pct(paired_mdd_factor(in->n) * se);
	}
	if (in->n <= STATS_EXACT_MAX_PAIRS)
		o.p_exact = stats_signflip_p(dv, in->n);
	if (dv != d)
		free(dv);
	significant = o.ci95_low_pct > 0 || o.ci95_high_pct < 0;
	if (in->n >= STATS_EXACT_MIN_PAIRS && in->n <= STATS_EXACT_MAX_PAIRS) {
		/* both tests must reject; the larger p is then the verdict's (a valid p) */
		o.test = STATS_TEST_PAIRED_BOTH;
		significant = significant && o.p_exact < 0.05;
		o.p = fmax(o.p_t, o.p_exact);
	}
	if (significant)
		o.significant = (mean > 0) == in->higher_better ? 1 : -1;
	if (in->margin_pct > 0 && o.ci90_low_pct > -in->margin_pct && o.ci90_high_pct < in->margin_pct)
		o.verdict = STATS_SAME;
	else if (significant)
		o.verdict = (mean > 0) == in->higher_better ? STATS_BETTER : STATS_WORSE;
	else
		o.verdict = STATS_INCONCLUSIVE;
	*out = o;
}

void stats_wilson(unsigned k, unsigned n, double z, double *lo, double *hi)
{
	double p = (double)k / n, z2 = z * z, d = 1 + z2 / n;
	double c = (p + z2 / (2.0 * n)) / d, h = z * sqrt(p * (1 - p) / n + z2 / (4.0 * n * n)) / d;

	/* at k = 0 (k = n) the bound is exactly 0 (1): no rounding below it */
	*lo = k == 0 ? 0 : fmax(0, c - h);
	*hi = k == n ? 1 : fmin(1, c + h);
}
