/* The table of suite descriptors, expanded from list.h. */
#ifndef VMB_SUITES_H
#define VMB_SUITES_H

#include <stdbool.h>
#include <stddef.h>

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

#endif
