/* The runner: warm-up, repetitions until the 95% CI is tight enough,
 * parameter sweeps, progress. It measures whatever descriptors it is handed
 * and returns plain results; it knows no command line, store or report.
 * Also the umbrella for what used to live here: the result model
 * (result.h) and the plug-in interface (suite.h, with parallel.h,
 * tempfile.h, stop.h, unit.h). */
#ifndef VMB_RUNNER_H
#define VMB_RUNNER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "result.h"
#include "suite.h"

struct runner_settings {
	double time_s;        /* each repetition */
	double warmup_s;      /* uncounted warm-up, in 3 slices; 0 = none */
	double warmup_max_s;  /* more slices, until the headline is steady, up to this long in all */
	double budget_s;      /* per case, after min_reps */
	double precision_pct; /* target CI half-width, % of the mean */
	unsigned min_reps, max_reps;
	const unsigned *threads;
	size_t nthreads;
	const unsigned *cpus;
	size_t ncpus;
	bool quick;
	bool destructive; /* passed to suites: writing to devices is allowed */
	const char *skip_fs; /* the reason VMB_TEST_ON_FS tests are skipped (no filesystem on the device
			      * under test); NULL: they run */
	bool progress;    /* draw progress: case k of n, time left */
	FILE *progress_file; /* where; NULL: stderr */
	FILE *progress_lines; /* also, for a program to read: a line per step,
			       * "CASE/CASES LEFT SUITE.TEST DETAIL" (LEFT in whole
			       * seconds); NULL: none */
};

struct runner_item {
	const struct vmb_suite *suite;
	const struct optset *opts;
	uint64_t test_mask;  /* bit i: run tests[i] */
	/* bit i: tests[i] was named (SUITE.TEST), not only its suite; a long
	 * test that --quick leaves out runs when it is named (ctx->named). */
	uint64_t named_mask;
};

/* Runs every item. Returns 0 (individual failures are in the results),
 * -EINTR when interrupted, -EINVAL after a suite's vmb_usage() (logged; the
 * user's mistake), or -ENOMEM. After -EINTR the results hold the
 * cases finished before the stop; the case that was cut short is left out,
 * and its test and suite have the status VMB_INTERRUPTED. */
int runner_run(const struct runner_settings *rs, const struct runner_item *items, size_t nitems,
	       struct vmb_results *out);

/* What runner_run would do with these settings when every suite runs: the
 * number of cases, and the time the stop rule allows them, from every case
 * reaching the precision at min_reps to every case going on to max_reps or
 * its budget. extra_rep_s (NULL: none) is, per item, the time a repetition
 * spends beyond time_s (a ramp); a suite's set-up is not counted. */
struct runner_estimate {
	size_t ncases;
	double min_s, max_s;
};
int runner_estimate(const struct runner_settings *rs, const struct runner_item *items, size_t nitems,
		    const double *extra_rep_s, struct runner_estimate *out);

#endif
