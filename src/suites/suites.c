/* The suite table. */
#include <string.h>

#include "suites.h"
#include "../core/banned.h"

#define VMB_SUITE_REF(n) &n##_suite,
const struct vmb_suite *const vmb_suites[] = { VMB_SUITES(VMB_SUITE_REF) };
#undef VMB_SUITE_REF
const size_t vmb_nsuites = sizeof(vmb_suites) / sizeof(vmb_suites[0]);

const struct vmb_suite *suites_find(const char *name)
{
	for (size_t i = 0; i < vmb_nsuites; i++)
		if (!strcmp(vmb_suites[i]->name, name))
			return vmb_suites[i];
	return NULL;
}

bool suites_runs_by_default(const struct vmb_suite *s)
{
	return !(s->flags & (VMB_SUITE_LAB_ONLY | VMB_SUITE_ON_REQUEST));
}

int suites_test_index(const struct vmb_suite *s, const char *test)
{
	for (int i = 0; s->tests[i].name; i++)
		if (!strcmp(s->tests[i].name, test))
			return i;
	return -1;
}
