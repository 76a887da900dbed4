/* vmbench lab study: what its plan (lab_study.c) and its run
 * (lab_study_run.c) share. */
#ifndef VMB_CMD_LAB_STUDY_H
#define VMB_CMD_LAB_STUDY_H

#include <stdbool.h>
#include <stdio.h>
#include <jansson.h>

#include "../core/opts.h"
#include "../core/str.h"
#include "../lab/study.h"
#include "../lab/study_table.h"

struct study_call {
	const struct optset *own; /* lab study's options */
	const char *name;         /* the study's */
	char run_label[128];      /* study_run=NAME-DATE-TIME */
	char tally[160];          /* the run's card's closing line, once run */
	double budget_scale;      /* --budget-total: each experiment's budget times this (0: as planned) */
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
struct lab_config;
struct lab_matrix;
struct runner_estimate;
struct db;
struct vmb_cmd;
/* One round of a run experiment, estimated, lo and hi in seconds */
void study_round_estimate(const struct study_experiment *e, const struct lab_matrix *m,
			  const struct runner_estimate *est, double *lo, double *hi);
/* The most rounds a full run's budget is made for */
unsigned study_budget_rounds(unsigned rounds);
/* An experiment's plan (lab_study_plan.c), adding to the totals; *kvm: it
 * may use KVM. EXIT_OK or an exit code after a message. */
int study_plan_experiment(const struct vmb_cmd *self, const struct study_call *call, const char *file,
			  const struct study_experiment *e, bool quick, bool skip, double *total_min, double *total_max,
			  unsigned *boots, bool *kvm, struct db *db);
/* What is known of this machine's KVM, once per plan, booting nothing */
void study_plan_kvm(void);
/* Whether --experiment names id (every experiment without it) */
bool study_selected(const struct optset *own, const char *id);
/* Whether --quick leaves e out (quick-skip, and --experiment does not name it) */
bool study_quick_skipped(const struct optset *own, const struct study_experiment *e);
/* Each selected experiment run, then the study's tables and report */
int study_run(const struct vmb_cmd *self, const struct optset *own, struct study_call *call,
	      const struct study *s);

/* What an experiment's run came to, for the text, the report and the card;
 * e NULL: not among --experiment's (its claims not comparable, said so). */
struct study_result {
	const struct study_experiment *e;
	char session[64];
	int exit;           /* lab run's */
	char note[512];     /* why no table: not run, failed */
	struct study_table t;
	json_t *docs;       /* its session's documents (owned; NULL: none), for the report's charts and environments */
};

/* The card (lab_study_card.c): res[i] is s->exp[i]'s */
void study_print_card(const struct study *s, const struct study_result *res);
void study_html_card(FILE *f, const struct study *s, const struct study_result *res);
/* "k of n claims reproduced, m contradicted, j inconclusive, i not comparable" */
void study_card_tally(const struct study *s, const struct study_result *res, char *buf, size_t len);
/* Under --quick: each claim its rounds left inconclusive that needs a finer
 * difference than they detected, a line each to say(arg, line) */
void study_quick_note(const struct study *s, const struct study_result *res, void (*say)(void *, const char *),
		      void *arg);
/* A verdict's CSS class in the report */
const char *study_verdict_class(enum study_verdict v);
/* <tag>text</tag>, the text escaped as study_html() does */
void study_html_tag(FILE *f, const char *tag, const char *text);
/* The shipped study named name ($VMBENCH_STUDIES, else the source tree's
 * studies/): 0 with its path, -ENOENT when there is none, -errno. Quiet. */
int study_shipped_path(const char *name, char *path, size_t len);

#endif
