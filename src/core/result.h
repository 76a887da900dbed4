/* The result model: what a run measured, suite by suite, test by test, case
 * by case, each metric with its samples. The runner builds it; the store
 * turns it into a document and back; reports read it. */
#ifndef VMB_RESULT_H
#define VMB_RESULT_H

#include <stdbool.h>
#include <stddef.h>

#include "hist.h"
#include "noise.h"
#include "stats.h"
#include "unit.h"

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

/* A series over one repetition: a value at points in time, as fio's
 * per-interval logs and iperf3's interval lines (docs/results-schema.md,
 * "Series"). At most VMB_SERIES_MAX points: a longer one is down-sampled
 * (vmb_series_downsample). */
#define VMB_SERIES_MAX 10000

struct vmb_series {
	char *name;         /* what is measured: "mbit_per_s", "iops" */
	enum vmb_unit unit;
	unsigned rep;       /* the counted repetition, from 1 */
	unsigned bucket;    /* measured points averaged into each point (1: as measured) */
	double *t;          /* seconds from the start of the repetition's measured window, increasing */
	double *v;
	size_t n;
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
	double warmup_s;    /* the warm-up's length (0: none) */
	int warmup_steady;  /* 1 the headline was steady when it ended, 0 not (it ran out of time), -1 not judged */
	struct noise_reading *noise; /* one per counted repetition: its start and what else ran */
	size_t nnoise;
	struct vmb_series *series; /* per repetition, in the order reported; may be none */
	size_t nseries;
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

void vmb_results_release(struct vmb_results *res);
const char *vmb_status_name(enum vmb_status s);

/* The metric of that name in the case (added if absent), or NULL on ENOMEM. */
struct vmb_metric *vmb_case_add_metric(struct vmb_case *c, const char *name, enum vmb_unit unit,
				       enum vmb_dir dir);
/* The metric of that name, or NULL. */
const struct vmb_metric *vmb_case_metric(const struct vmb_case *c, const char *name);
void vmb_case_release(struct vmb_case *c);
int vmb_metric_push(struct vmb_metric *m, double v);
/* Append a copy of n points (t increasing) as the series name of
 * repetition rep, down-sampled to at most max points. 0 or -ENOMEM. */
int vmb_case_add_series(struct vmb_case *c, const char *name, enum vmb_unit unit, unsigned rep,
			const double *t, const double *v, size_t n, size_t max);
/* Down-sample n points in place to at most max (>= 1): consecutive buckets
 * of k = ceil(n / max) points (the last one may hold fewer) become one
 * point each, at the bucket's last time, with the mean of its values.
 * Returns the new count and sets *bucket to k (1: nothing to do). */
size_t vmb_series_downsample(double *t, double *v, size_t n, size_t max, unsigned *bucket);
int vmb_params_add(struct vmb_param **params, size_t *n, const char *key, const char *value);
void vmb_params_free(struct vmb_param *p, size_t n);

#endif
