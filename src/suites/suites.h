/* The table of suite descriptors, expanded from list.h. */
#ifndef VMB_SUITES_H
#define VMB_SUITES_H

#include <stdbool.h>
#include <stddef.h>

#include "../core/strv.h"
#include "../core/suite.h"
#include "list.h"

#define VMB_SUITE_EXTERN(n) extern const struct vmb_suite n##_suite;
VMB_SUITES(VMB_SUITE_EXTERN)
#undef VMB_SUITE_EXTERN

extern const struct vmb_suite *const vmb_suites[];
extern const size_t vmb_nsuites;

const struct vmb_suite *suites_find(const char *name);
/* Whether `vmbench run` with no suite named runs it: not a lab-only one. */
bool suites_runs_by_default(const struct vmb_suite *s);
/* Index of the named test in s->tests, or -1. */
int suites_test_index(const struct vmb_suite *s, const char *test);

/* The items a user names, one parser for `run ITEM...` and `lab --suites
 * LIST`: each of the n words holds one item or several, separated by
 * commas or whitespace ("cpu,mem", "cpu mem", "cpu, mem"), each SUITE or
 * SUITE.TEST of the table; appended to items in order. 0; -EINVAL for an
 * empty item ("cpu,,mem", "cpu,"), -ENOENT for an unknown suite or test,
 * -ENOMEM; why says which and the valid names. */
int suites_parse_items(char *const *words, size_t n, struct strv *items, char *why, size_t len);

#endif
