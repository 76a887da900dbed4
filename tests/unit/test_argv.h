/* A command line's checks shared by the lab's unit tests (test_matrix.c,
 * test_toylab.c). */
#ifndef VMB_TEST_ARGV_H
#define VMB_TEST_ARGV_H

#include <stdbool.h>
#include <string.h>

#include "../../src/core/strv.h"

/* Whether opt is followed by val somewhere in the argument vector a. */
static inline bool has_pair(const struct strv *a, const char *opt, const char *val)
{
	for (size_t i = 0; i + 1 < a->n; i++)
		if (!strcmp(a->v[i], opt) && !strcmp(a->v[i + 1], val))
			return true;
	return false;
}

#endif
