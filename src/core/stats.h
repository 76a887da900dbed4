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

/* Wilson's score interval of a binomial proportion: k successes of n
 * trials (0 <= k <= n, n >= 1), z the normal quantile (1.959964 for 95%);
 * lo and hi in [0, 1]. Unlike k/n +- z*se it stays inside [0, 1] and is
 * not of width zero at k = 0 or k = n. */
void stats_wilson(unsigned k, unsigned n, double z, double *lo, double *hi);

/* Welch's unequal-variance t-test of b against a, and the 95% CI of the
 * difference of means (b - a). valid is false when either side has fewer
 * than 2 samples. */
struct stats_welch {
	bool valid;
	double diff, ci_low, ci_high, t, df, p;
};
void stats_welch(const struct stats_summary *a, const struct stats_summary *b, struct stats_welch *out);


/* Two-level comparison (docs/methodology.md, "Statistics"): the samples are
 * run means, one per run (one process, one boot), because repetitions inside
 * a run share its epoch of noise and are not independent. */
enum stats_verdict {
	STATS_UNTESTED,     /* run-to-run noise unknown: one run on a side and no calibration */
	STATS_BETTER,       /* the 95% CI of the difference excludes zero, on the good side */
	STATS_WORSE,
	STATS_SAME,         /* the 90% CI lies within +-margin (two one-sided tests at 5%) */
	STATS_INCONCLUSIVE, /* no significant difference, but not shown to be within the margin */
};

struct stats_runs_in {
	const double *a, *b; /* run means: a the baseline, b the other */
	size_t na, nb;
	bool higher_better;
	double margin_pct; /* equivalence margin, % of the baseline mean; 0: none */
	double calib_cv;   /* between-run CV of this case on this machine (fraction); 0: none */
	unsigned calib_runs; /* the runs that estimate came from (its df + 1) */
};

/* The test a verdict rests on. */
enum stats_test {
	STATS_TEST_NONE,        /* untested */
	STATS_TEST_WELCH,       /* unpaired: Welch on the run means */
	STATS_TEST_CALIBRATED,  /* unpaired, one run a side: a stored between-run CV */
	STATS_TEST_PAIRED_T,    /* paired: t on the per-round log ratios */
	STATS_TEST_PAIRED_BOTH, /* paired, 6..16 rounds: the t test and the exact sign-flip test must agree */
};

/* Rounds at which the exact sign-flip test is enumerated and must confirm
 * the paired t test: below 6 its smallest two-sided p, 2^(1-n), is above
 * 0.05 (it can never reject), above 16 the t test is close to it anyway. */
#define STATS_EXACT_MIN_PAIRS 6
#define STATS_EXACT_MAX_PAIRS 16

struct stats_runs_cmp {
	enum stats_verdict verdict;
	enum stats_test test;
	int significant;  /* +1 significantly better, -1 worse (95% CI excludes 0), 0 neither; also when SAME */
	bool calibrated;  /* the run-to-run variance came from a stored calibration */
	double gap_pct;   /* (mean b - mean a) / |mean a| * 100 */
	double p, df;
	double ci95_low_pct, ci95_high_pct; /* of the difference, % of |mean a| */
	double ci90_low_pct, ci90_high_pct;
	double mdd_pct;   /* smallest difference detected 80% of the time at these runs (5% two-sided) */
	/* paired tests only: */
	size_t pairs;     /* rounds with a value on both sides */
	double p_t;       /* the paired t test's p */
	double p_exact;   /* the exact sign-flip test's p (NAN above STATS_EXACT_MAX_PAIRS rounds) */
};
void stats_compare_runs(const struct stats_runs_in *in, struct stats_runs_cmp *out);
/* Paired comparison: a[i] and b[i] were measured in the same round (the
 * same drift hit both), so the round's log ratio ln(b[i]/a[i]) is the
 * sample. Its mean and t interval, back-transformed, are the gap (the
 * geometric mean of the per-round ratios) and its CIs; from 6 to 16 rounds
 * an exact sign-flip (permutation) test must confirm a significance. Every
 * value must be positive (the caller checks: stats_all_positive). */
struct stats_paired_in {
	const double *a, *b;
	size_t n;
	bool higher_better;
	double margin_pct;
};
void stats_compare_paired(const struct stats_paired_in *in, struct stats_runs_cmp *out);
/* The exact two-sided sign-flip p of mean(d) != 0: the share of the 2^n
 * sign patterns whose |sum| reaches the observed one. n <= 30. */
double stats_signflip_p(const double *d, size_t n);
bool stats_all_positive(const double *x, size_t n);
const char *stats_test_name(enum stats_test t);

/* The minimal detectable difference (% of the mean) with `runs` runs a side
 * when the between-run CV is cv (fraction) estimated with df degrees of freedom. */
double stats_mdd_pct(double cv, double runs, double df);
/* The smallest difference (%) n paired rounds detect (80% power at 5%,
 * stats_compare_paired's test) when the per-round log ratios' standard
 * deviation is sd; INFINITY below 2 rounds. */
double stats_paired_mdd_pct(double sd, size_t n);
const char *stats_verdict_word(enum stats_verdict v);

#endif
