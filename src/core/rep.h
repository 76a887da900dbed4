/* The runner's side of one repetition: the values a suite reported (through
 * vmb_rep_value/vmb_rep_hist in suite.h) wait here until they join their
 * case. Suites see struct vmb_rep as opaque. */
#ifndef VMB_REP_H
#define VMB_REP_H

#include <stdbool.h>

#include "result.h"
#include "suite.h"

/* Where vmb_note() records its facts: the suite result's notes. */
struct vmb_notes {
	struct vmb_param **params;
	size_t *n;
	struct vmb_param *actual; /* vmb_param_actual(): the runner's own */
	size_t nactual;
};

/* The value vmb_param_actual() recorded for key, or NULL. */
const char *vmb_notes_actual(const struct vmb_notes *nt, const char *key);

struct vmb_rep *rep_new(void);
void rep_free(struct vmb_rep *rep);
/* Forget the values of the previous repetition (histograms are reused). */
void rep_reset(struct vmb_rep *rep);
/* The value of the first of headline's comma-separated metrics the
 * repetition reported; false when none. */
bool rep_headline_value(const struct vmb_rep *rep, const char *headline, double *out);
/* The repetition's first reporting error: -E2BIG when the suite reported
 * more values, or longer names, than a repetition holds; -ENOMEM; else 0. */
int rep_error(const struct vmb_rep *rep);
/* Little's law on a repetition that vmb_rep_closed_loop() declared: 0
 * when its rate x mean latency is within what its requests in flight
 * allow (or none was declared); else -ERANGE with the figures in why
 * ("110627 requests/s at mean latency 14.1 us is 1.56 in flight on 1
 * connection: ..."), or -EPROTO when a metric it names was not reported. */
int rep_closed_loop_check(const struct vmb_rep *rep, char *why, size_t len);
/* the suffix of a latency metric's spread per repetition: "latency.stddev" */
#define REP_STDDEV "stddev"
/* Add the repetition's values to the case's metrics; headline is the test's
 * comma-separated list of headline metrics. 0 or -ENOMEM. */
int rep_fold(const struct vmb_rep *rep, struct vmb_case *c, const char *headline);

#endif
