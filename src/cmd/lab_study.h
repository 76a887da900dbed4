/* vmbench lab study: what its plan (lab_study.c) and its run
 * (lab_study_run.c) share. */
#ifndef VMB_CMD_LAB_STUDY_H
#define VMB_CMD_LAB_STUDY_H

#include <stdbool.h>
#include <stdio.h>

#include "../core/opts.h"
#include "../core/str.h"
#include "../lab/study.h"

struct study_call {
	const struct optset *own; /* lab study's options */
	const char *name;         /* the study's */
	char run_label[128];      /* study_run=NAME-DATE-TIME */
	char tally[160];          /* the run's card's closing line, once run */
};

/* Every line lab study prints on stdout goes through here, escaped */
void study_say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* A study's text in the HTML report, escaped for the terminal, then HTML */
void study_html(FILE *f, const char *text);
void study_print_minutes(double s);
/* The request of lab run or contend for an experiment (rq: zeroed, then
 * lab_request_release): what lab study runs, and what its plan checks,
 * field for field. CMD_CONTINUE, or an exit code after a message. */
struct lab_request;
int study_request(const struct study_call *call, const struct study_experiment *e, bool quick, bool check_only,
		  struct lab_request *rq);
/* Whether --experiment names id (every experiment without it) */
bool study_selected(const struct optset *own, const char *id);
/* Whether --quick leaves e out (quick-skip, and --experiment does not name it) */
bool study_quick_skipped(const struct optset *own, const struct study_experiment *e);
/* Each selected experiment run, then the study's tables and report */
int study_run(const struct vmb_cmd *self, const struct optset *own, struct study_call *call,
	      const struct study *s);

#endif
