/* The runner: warm-up, repetitions until the 95% CI is tight enough,
 * parameter sweeps, progress. It measures whatever descriptors it is handed
 * and returns plain results; it knows no command line, store or report. */
#ifndef VMB_RUNNER_H
#define VMB_RUNNER_H

#include <stdbool.h>
#include <stddef.h>

#include "stats.h"
#include "suite.h"

enum vmb_status { VMB_OK = 0, VMB_SKIPPED, VMB_FAILED, VMB_INTERRUPTED };

struct vmb_param {
	char *key;
	char *value;
};

struct vmb_metric {
	char *name;
	enum vmb_unit unit;
	enum vmb_dir dir;
	bool headline;
	double *samples; /* one per counted repetition */
	size_t n, cap;
	struct hist *hist; /* latency metrics only, merged over repetitions */
	struct stats_summary sum;
};

struct vmb_case {
	struct vmb_param *params;
	size_t nparams;
	struct vmb_metric *metrics;
	size_t nmetrics;
	unsigned reps;
	bool precision_reached;
	double ci_rel_pct; /* achieved CI half-width of the widest headline metric, % of mean */
	double elapsed_s;
};

struct vmb_test_result {
	char *name;
	enum vmb_status status;
	char *reason;
	struct vmb_case *cases;
	size_t ncases;
};

struct vmb_suite_result {
	char *name;
	enum vmb_status status;
	char *reason;
	struct vmb_param *options; /* every suite option with its effective value */
	size_t noptions;
	struct vmb_param *notes;   /* vmb_note(): how it measured */
	size_t nnotes;
	struct vmb_test_result *tests;
	size_t ntests;
};

struct vmb_results {
	struct vmb_suite_result *suites;
	size_t nsuites;
};

struct runner_settings {
	double time_s;        /* each repetition */
	double warmup_s;      /* one uncounted repetition; 0 = none */
	double budget_s;      /* per case, after min_reps */
	double precision_pct; /* target CI half-width, % of the mean */
	unsigned min_reps, max_reps;
	const unsigned *threads;
	size_t nthreads;
	const unsigned *cpus;
	size_t ncpus;
	bool quick;
	bool destructive; /* passed to suites: writing to devices is allowed */
	bool progress;    /* draw progress on stderr */
};

struct runner_item {
	const struct vmb_suite *suite;
	const struct optset *opts;
	uint64_t test_mask; /* bit i: run tests[i] */
};

/* Runs every item. Returns 0 (individual failures are in the results),
 * -EINTR when interrupted (results are partial), -EINVAL after a suite's
 * vmb_usage() (logged; the user's mistake), or -ENOMEM. */
int runner_run(const struct runner_settings *rs, const struct runner_item *items, size_t nitems,
	       struct vmb_results *out);
void vmb_results_release(struct vmb_results *res);
const char *vmb_status_name(enum vmb_status s);

/* Used by the store when a document is read back. */
struct vmb_metric *vmb_case_add_metric(struct vmb_case *c, const char *name, enum vmb_unit unit,
				       enum vmb_dir dir);
int vmb_metric_push(struct vmb_metric *m, double v);
int vmb_params_add(struct vmb_param **params, size_t *n, const char *key, const char *value);

#endif
