/* What the study file's parser (study.c) shares with the checks of an
 * experiment as a whole (study_check.c) and the table's units
 * (study_value.c). Internal to the three. */
#ifndef VMB_LAB_STUDY_PARSER_H
#define VMB_LAB_STUDY_PARSER_H

#include <stdbool.h>
#include <stddef.h>

#include "study.h"

struct vmb_test;

/* Where the parser is: the file's name and line, and where its message goes. */
struct parser {
	const char *name;
	unsigned line;
	char *err;
	size_t errlen;
};

/* The labels lab contend gives each guest's document, beside the matrix keys. */
#define STUDY_CONTEND_LABELS "policy, guest, load"

/* NAME:LINE: message into p->err, escaped; -EINVAL. */
int study_fail(struct parser *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* s without its leading blanks and trailing blanks and CR (cut in place). */
char *study_trim(char *s);
/* "suite.test" of a suite vmbench has, and the test one of its own; NULL otherwise. */
const struct vmb_test *study_test_find(const char *name);
/* Whether the experiment's suites (items "disk" or "disk.randread") run test "disk.randread". */
bool study_suites_run(const char *suites, const char *test);
/* Whether key is one of lab contend's labels (STUDY_CONTEND_LABELS). */
bool study_contend_label(const char *key);
/* What an experiment needs as a whole, once its section ended. */
int study_exp_finish(struct parser *p, struct study_experiment *e);
/* claim = TEXT | PUBLISHED | RELATIONS [| kvm] and expect = COLUMN: A > B,
 * each a claim of the experiment (study_claim.c). */
int study_parse_claim(struct parser *p, struct study_experiment *e, char *value);
int study_parse_expect(struct parser *p, struct study_experiment *e, char *value);
/* The row of unit name in the units table, or -1. */
int study_unit_find(const char *name);

#endif
