/* Statistics against reference values (R: qt(), pbeta()). */
#include <math.h>
#include <stdint.h>

#include "test.h"
#include "../../src/core/stats.h"

static void t_quantiles(void **state)
{
	static const struct {
		double p, df, t;
	} cases[] = {
		{ 0.975, 1, 12.706204736174707 }, { 0.975, 2, 4.302652729749464 },
		{ 0.975, 4, 2.776445105197799 },  { 0.975, 5, 2.570581835636314 },
		{ 0.975, 9, 2.262157162798205 },  { 0.975, 10, 2.228138851986274 },
		{ 0.975, 30, 2.042272456301238 }, { 0.975, 1e6, 1.959966 },
		{ 0.95, 4, 2.131846786326649 },   { 0.995, 3, 5.840909309733350 },
		{ 0.025, 5, -2.570581835636314 }, { 0.5, 7, 0 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		double tol = cases[i].df >= 1e6 ? 1e-5 : 1e-9;

		assert_close(stats_t_quantile(cases[i].p, cases[i].df), cases[i].t, tol);
	}
	/* Fractional df (Welch's test) lies between its integer neighbours. */
	assert_true(stats_t_quantile(0.975, 7.5) < stats_t_quantile(0.975, 7));
	assert_true(stats_t_quantile(0.975, 7.5) > stats_t_quantile(0.975, 8));
}

static void t_cdf_and_incbeta(void **state)
{
	static const struct {
		double a, b, x, want;
	} beta[] = {
		{ 2, 3, 0.5, 0.6875 }, { 1, 1, 0.3, 0.3 }, { 1, 2, 0.2, 0.36 },
		{ 0.5, 0.5, 0.5, 0.5 }, { 5, 5, 0, 0 }, { 5, 5, 1, 1 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(beta) / sizeof(beta[0]); i++)
		assert_close(stats_incbeta(beta[i].a, beta[i].b, beta[i].x), beta[i].want, 1e-12);
	assert_close(stats_t_cdf(0, 3), 0.5, 1e-15);
	assert_close(stats_t_cdf(2.570581835636314, 5), 0.975, 1e-12);
	assert_close(stats_t_cdf(-12.706204736174707, 1), 0.025, 1e-12);
	assert_close(stats_t_cdf(INFINITY, 2), 1, 0);
}

static void summary(void **state)
{
	static const double x[] = { 2, 4, 4, 4, 5, 5, 7, 9 };
	struct stats_summary s;
	double sd = sqrt(32.0 / 7.0), half = 2.364624251592785 * sd / sqrt(8.0);

	(void)state;
	stats_summarize(x, 8, &s);
	assert_int_equal(s.n, 8);
	assert_close(s.mean, 5, 1e-12);
	assert_close(s.median, 4.5, 0);
	assert_close(s.stddev, sd, 1e-12);
	assert_close(s.cv, sd / 5, 1e-12);
	assert_close(s.min, 2, 0);
	assert_close(s.max, 9, 0);
	assert_close(s.ci95_low, 5 - half, 1e-9);
	assert_close(s.ci95_high, 5 + half, 1e-9);
	assert_close(stats_ci_rel_pct(&s), 100 * half / 5, 1e-9);
}

static void summary_edges(void **state)
{
	static const double one[] = { 42 }, odd[] = { 3, 1, 2 }, same[] = { 7, 7, 7, 7 };
	static const double big[] = { 1e9 + 1, 1e9 + 2, 1e9 + 3 }; /* Welford keeps precision */
	struct stats_summary s;

	(void)state;
	stats_summarize(one, 1, &s);
	assert_close(s.mean, 42, 0);
	assert_close(s.stddev, 0, 0);
	assert_close(s.ci95_low, 42, 0);
	assert_true(isinf(stats_ci_rel_pct(&s)));
	stats_summarize(odd, 3, &s);
	assert_close(s.median, 2, 0);
	stats_summarize(same, 4, &s);
	assert_close(s.stddev, 0, 0);
	assert_close(stats_ci_rel_pct(&s), 0, 0);
	stats_summarize(big, 3, &s);
	assert_close(s.stddev, 1, 1e-6);
}

/* Welch on (2,4,6,8,10) vs (1..5): t = 1.8974, df = 100/17 (as R's t.test
 * prints them); p and the CI bounds checked by numerically integrating the
 * t density at df = 100/17 (Simpson, 200000 steps): t(0.975) = 2.4588237,
 * p = 0.1075312, CI -0.8877416 .. 6.8877416. */
static void welch(void **state)
{
	static const double a[] = { 1, 2, 3, 4, 5 }, b[] = { 2, 4, 6, 8, 10 }, c[] = { 7, 7, 7 }, d[] = { 9, 9, 9 };
	struct stats_summary sa, sb, sc, sd;
	struct stats_welch w;

	(void)state;
	stats_summarize(a, 5, &sa);
	stats_summarize(b, 5, &sb);
	stats_welch(&sa, &sb, &w);
	assert_true(w.valid);
	assert_close(w.diff, 3, 1e-12);
	assert_close(w.t, 1.897366596, 1e-8);
	assert_close(w.df, 5.882352941, 1e-8);
	assert_close(w.p, 0.1075312, 1e-6);
	assert_close(w.ci_low, -0.8877416, 1e-6);
	assert_close(w.ci_high, 6.8877416, 1e-6);
	/* symmetric */
	stats_welch(&sb, &sa, &w);
	assert_close(w.t, -1.897366596, 1e-8);
	assert_close(w.ci_high, 0.8877416, 1e-6);
	/* no spread: a certain difference */
	stats_summarize(c, 3, &sc);
	stats_summarize(d, 3, &sd);
	stats_welch(&sc, &sd, &w);
	assert_true(w.valid);
	assert_close(w.p, 0, 0);
	assert_close(w.ci_low, 2, 0);
	stats_welch(&sc, &sc, &w);
	assert_close(w.p, 1, 0);
	/* one sample: no test */
	stats_summarize(a, 1, &sa);
	stats_welch(&sa, &sb, &w);
	assert_false(w.valid);
}

/* Equivalence and significance verdicts on constructed run means. */
static void run_verdicts(void **state)
{
	static const double base[] = { 100, 101, 99 }, near[] = { 100.5, 101.2, 99.9 }, far[] = { 80, 81, 79 };
	static const double wide[] = { 90, 110, 100 }, up[] = { 110, 111, 109 }, one[] = { 100 };
	static const struct {
		const double *a, *b;
		size_t na, nb;
		bool higher;
		double margin, cv;
		unsigned calib_runs;
		enum stats_verdict want;
		int significant;
	} cases[] = {
		/* 90% CI of +0.5% inside +-5%: the same */
		{ base, near, 3, 3, true, 5, 0, 0, STATS_SAME, 0 },
		/* the same numbers with no margin: no significant difference */
		{ base, near, 3, 3, true, 0, 0, 0, STATS_INCONCLUSIVE, 0 },
		/* -20% is worse when higher is better, better when lower is */
		{ base, far, 3, 3, true, 5, 0, 0, STATS_WORSE, -1 },
		{ base, far, 3, 3, false, 5, 0, 0, STATS_BETTER, 1 },
		{ base, up, 3, 3, true, 5, 0, 0, STATS_BETTER, 1 },
		/* runs that spread +-10%: straddles the margin, inconclusive */
		{ base, wide, 3, 3, true, 5, 0, 0, STATS_INCONCLUSIVE, 0 },
		/* one run a side: untested, whatever the gap */
		{ one, far, 1, 3, true, 5, 0, 0, STATS_UNTESTED, 0 },
		/* ... unless calibrated: 1% run-to-run noise over 5 runs finds -20% */
		{ one, far, 1, 3, true, 5, 0.01, 5, STATS_WORSE, -1 },
		/* and with 20% noise it cannot tell */
		{ one, far, 1, 3, true, 5, 0.2, 5, STATS_INCONCLUSIVE, 0 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct stats_runs_cmp c;

		stats_compare_runs(&(struct stats_runs_in){ .a = cases[i].a, .na = cases[i].na, .b = cases[i].b,
							    .nb = cases[i].nb, .higher_better = cases[i].higher,
							    .margin_pct = cases[i].margin, .calib_cv = cases[i].cv,
							    .calib_runs = cases[i].calib_runs }, &c);
		if (c.verdict != cases[i].want || c.significant != cases[i].significant)
			fail_msg("case %zu: verdict %s, want %s (significant %d, want %d)", i, stats_verdict_word(c.verdict),
				 stats_verdict_word(cases[i].want), c.significant, cases[i].significant);
		assert_true(cases[i].want == STATS_UNTESTED || isfinite(c.mdd_pct));
	}
	/* the minimal detectable difference: (t.975 + t.80) * cv * sqrt(2/n) */
	assert_close(stats_mdd_pct(0.03, 3, 4), 100 * (2.776445105197799 + 0.9409645) * 0.03 * sqrt(2.0 / 3), 1e-4);
	assert_true(stats_mdd_pct(0.03, 10, 9) < stats_mdd_pct(0.03, 3, 9));
}

/* Paired verdicts on constructed rounds: the per-round log ratio decides,
 * and the exact sign-flip test must confirm from 6 rounds on. */
static void paired_verdicts(void **state)
{
	/* rounds that drift by +-50% together, b twice a in each: found */
	static const double a3[] = { 100, 150, 50 }, b3[] = { 204, 290, 101 };
	/* b 1% above a in every round but one: 6 rounds, t and the exact test agree */
	static const double a6[] = { 100, 120, 80, 110, 90, 100 }, b6[] = { 101, 121.3, 80.7, 111.2, 90.8, 101.1 };
	/* 6 rounds, one large outlier carries the mean: t rejects nothing either */
	static const double n6[] = { 100.2, 119.9, 80.1, 109.8, 90.1, 140 };
	static const double s3[] = { 100.5, 150.2, 49.9 };
	static const struct {
		const double *a, *b;
		size_t n;
		bool higher;
		double margin;
		enum stats_verdict want;
		enum stats_test test;
	} cases[] = {
		{ a3, b3, 3, true, 5, STATS_BETTER, STATS_TEST_PAIRED_T },
		{ a3, b3, 3, false, 5, STATS_WORSE, STATS_TEST_PAIRED_T },
		{ a3, s3, 3, true, 5, STATS_SAME, STATS_TEST_PAIRED_T },
		{ a3, s3, 3, true, 0, STATS_INCONCLUSIVE, STATS_TEST_PAIRED_T },
		{ a6, b6, 6, true, 0, STATS_BETTER, STATS_TEST_PAIRED_BOTH },
		{ a6, n6, 6, true, 0, STATS_INCONCLUSIVE, STATS_TEST_PAIRED_BOTH },
		{ a3, b3, 1, true, 5, STATS_UNTESTED, STATS_TEST_NONE },
	};
	static const double d3[] = { 1, 2, 3 }, d6[] = { 1, 1, 1, 1, 1, 1 }, d0[] = { 1, -1 };
	struct stats_runs_cmp c;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		stats_compare_paired(&(struct stats_paired_in){ .a = cases[i].a, .b = cases[i].b, .n = cases[i].n,
								.higher_better = cases[i].higher,
								.margin_pct = cases[i].margin }, &c);
		if (c.verdict != cases[i].want || c.test != cases[i].test)
			fail_msg("case %zu: verdict %s test %s, want %s %s", i, stats_verdict_word(c.verdict),
				 stats_test_name(c.test), stats_verdict_word(cases[i].want), stats_test_name(cases[i].test));
	}
	/* the gap is the geometric mean of the ratios: 2.04, 1.9333, 2.02 */
	stats_compare_paired(&(struct stats_paired_in){ .a = a3, .b = b3, .n = 3, .higher_better = true }, &c);
	assert_close(c.gap_pct, (cbrt(2.04 * (290.0 / 150) * 2.02) - 1) * 100, 1e-9);
	assert_true(c.ci95_low_pct > 80 && c.ci95_high_pct < 120 && c.mdd_pct < 20);
	assert_close(c.p_exact, 0.25, 1e-12); /* 3 rounds: 2 of 8 sign patterns reach it */
	/* exact sign-flip p: all patterns of 3 with |sum| >= 6 are ++ + and -- -: 2/8 */
	assert_close(stats_signflip_p(d3, 3), 0.25, 1e-12);
	assert_close(stats_signflip_p(d6, 6), 2.0 / 64, 1e-12);
	assert_close(stats_signflip_p(d0, 2), 1, 1e-12);
	/* a non-positive value: no log ratio, untested (the caller tests unpaired) */
	assert_false(stats_all_positive((const double[]){ 1, 0 }, 2));
	stats_compare_paired(&(struct stats_paired_in){ .a = d0, .b = d3, .n = 2 }, &c);
	assert_int_equal(c.verdict, STATS_UNTESTED);
}

/* The seeded generator's state: the simulated rounds are the same on every
 * run of the test. */
static uint64_t rng_state;

static double rng_uniform(void)
{
	return test_uniform(&rng_state);
}

/* Three configurations measured in the same rounds; every round moves all
 * three by one factor in [-50%, +50%], each value has 2% noise of its own
 * (uniform). c is 2x a, b is a. Paired: 2x found in (nearly)
 * every trial with 3 rounds, b vs a (A/A) called significant at about 5%;
 * Welch on the run means throws the pairing away and misses more than
 * half of them (it finds 449 of 1000 with this seed). */
static void drifting_rounds(void **state)
{
	enum { TRIALS = 1000, ROUNDS = 3 };
	size_t paired_found = 0, welch_found = 0, paired_aa = 0;

	(void)state;
	rng_state = 0x5eed2027u;
	for (size_t k = 0; k < TRIALS; k++) {
		double a[ROUNDS], b[ROUNDS], c[ROUNDS];
		struct stats_runs_cmp pc, wc, aa;

		for (size_t r = 0; r < ROUNDS; r++) {
			double f = 1 + 0.5 * (2 * rng_uniform() - 1);

			a[r] = 1000 * f * (1 + 0.02 * (2 * rng_uniform() - 1));
			b[r] = 1000 * f * (1 + 0.02 * (2 * rng_uniform() - 1));
			c[r] = 2000 * f * (1 + 0.02 * (2 * rng_uniform() - 1));
		}
		stats_compare_paired(&(struct stats_paired_in){ .a = a, .b = c, .n = ROUNDS, .higher_better = true }, &pc);
		stats_compare_paired(&(struct stats_paired_in){ .a = a, .b = b, .n = ROUNDS, .higher_better = true }, &aa);
		stats_compare_runs(&(struct stats_runs_in){ .a = a, .na = ROUNDS, .b = c, .nb = ROUNDS,
							    .higher_better = true }, &wc);
		paired_found += pc.verdict == STATS_BETTER;
		welch_found += wc.verdict == STATS_BETTER;
		paired_aa += aa.significant != 0;
	}
	print_message("drifting rounds, 3 rounds, true 2x: paired found %zu of %d, Welch %zu; A/A paired %zu\n",
		      paired_found, TRIALS, welch_found, paired_aa);
	assert_true(paired_found >= TRIALS * 99 / 100);
	assert_true(welch_found < TRIALS / 2);
	assert_true(paired_aa <= TRIALS * 7 / 100);
}

/* A standard normal from the seeded generator (Box-Muller). */
static double rng_normal(void)
{
	double u = rng_uniform(), v = rng_uniform();

	return sqrt(-2 * log(u > 0 ? u : 1e-300)) * cos(2 * M_PI * v);
}

/* The mdd a paired verdict states is found about 80% of the time, also
 * where the exact sign-flip test must agree: with 6 rounds it rejects only
 * when all six agree in sign, and the t test's own mdd was found in 59%. */
static void paired_mdd_power(void **state)
{
	enum { TRIALS = 2000 };
	static const size_t ns[] = { 4, 6, 7, 9 };

	(void)state;
	rng_state = 0xfeed0027u;
	for (size_t k = 0; k < sizeof(ns) / sizeof(ns[0]); k++) {
		size_t n = ns[k], found = 0;
		double a[16], b[16], f, m = 0, sd = 0;
		struct stats_runs_cmp c;

		/* rounds whose log ratios have a standard deviation of exactly 1:
		 * the mdd stated is exp(f / sqrt(n)) - 1, f the factor in SEs */
		for (size_t i = 0; i < n; i++)
			b[i] = rng_normal(), m += b[i] / (double)n;
		for (size_t i = 0; i < n; i++)
			sd += (b[i] - m) * (b[i] - m) / (double)(n - 1);
		for (size_t i = 0; i < n; i++)
			a[i] = 1, b[i] = exp((b[i] - m) / sqrt(sd));
		stats_compare_paired(&(struct stats_paired_in){ .a = a, .b = b, .n = n, .higher_better = true }, &c);
		f = log1p(c.mdd_pct / 100) * sqrt((double)n);
		/* a true difference of that mdd, normal noise of that spread */
		for (size_t t = 0; t < TRIALS; t++) {
			for (size_t i = 0; i < n; i++)
				b[i] = exp(f / sqrt((double)n) + rng_normal());
			stats_compare_paired(&(struct stats_paired_in){ .a = a, .b = b, .n = n, .higher_better = true }, &c);
			found += c.verdict == STATS_BETTER;
		}
		print_message("paired, %zu rounds: mdd factor %.2f SE, found in %zu of %d\n", n, f, found, TRIALS);
		if (found < TRIALS * 76 / 100)
			fail_msg("%zu rounds: the stated mdd was found in %zu of %d, not about 80%%", n, found, TRIALS);
	}
}

/* Wilson's 95% score interval, against the formula's values worked out
 * apart (R's prop.test(9, 10, correct = FALSE) gives 0.5958, 0.9821). */
static void wilson(void **state)
{
	static const struct {
		unsigned k, n;
		double lo, hi;
	} cases[] = {
		{ 9, 10, 0.595850, 0.982124 },
		{ 2, 3, 0.207660, 0.938508 },
		{ 0, 3, 0, 0.561497 },
		{ 3, 3, 0.438503, 1 },
		{ 1, 1, 0.206549, 1 },
		{ 50, 100, 0.403832, 0.596168 },
		{ 982, 1000, 0.971727, 0.988584 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		double lo, hi;

		stats_wilson(cases[i].k, cases[i].n, 1.959964, &lo, &hi);
		if (fabs(lo - cases[i].lo) > 5e-6 || fabs(hi - cases[i].hi) > 5e-6)
			fail_msg("%u of %u: [%.6f, %.6f], want [%.6f, %.6f]", cases[i].k, cases[i].n, lo, hi, cases[i].lo,
				 cases[i].hi);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(t_quantiles),
		cmocka_unit_test(t_cdf_and_incbeta),
		cmocka_unit_test(summary),
		cmocka_unit_test(summary_edges),
		cmocka_unit_test(welch),
		cmocka_unit_test(run_verdicts),
		cmocka_unit_test(paired_verdicts),
		cmocka_unit_test(drifting_rounds),
		cmocka_unit_test(paired_mdd_power),
		cmocka_unit_test(wilson),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
