/* Scheduling suite: Jain's index and wake-up latency counting (the cgroup
 * planner under sched.fairness is tests/unit/test_cgroup.c's). */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "test.h"
#include "../../src/suites/sched.h"

static void jain_index(void **state)
{
	static const struct {
		double got[3], promised[3];
		size_t n;
		double want; /* NAN: undefined */
	} cases[] = {
		{ { 1, 1 }, { 1, 1 }, 2, 1.0 },
		{ { 1, 3 }, { 1, 3 }, 2, 1.0 },       /* shares as promised */
		{ { 25, 75 }, { 1, 3 }, 2, 1.0 },     /* scale does not matter */
		{ { 1, 0 }, { 1, 1 }, 2, 0.5 },       /* one takes all: 1/n */
		{ { 1, 0, 0 }, { 1, 1, 1 }, 3, 1.0 / 3 },
		{ { 1, 1 }, { 1, 3 }, 2, 0.8 },       /* x = 2, 2/3: (8/3)^2 / (2 * 40/9) */
		{ { 2, 1, 1 }, { 1, 1, 1 }, 3, 16.0 / 18 },
		{ { 1, 1 }, { 0, 1 }, 2, NAN },       /* a promise of nothing */
		{ { 0, 0 }, { 1, 1 }, 2, NAN },       /* nothing done */
		{ { 1 }, { 1 }, 0, NAN },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		double j = sched_jain(cases[i].got, cases[i].promised, cases[i].n);

		if (isnan(cases[i].want)) {
			if (!isnan(j))
				fail_msg("case %zu: %g, expected NAN", i, j);
		} else
			assert_close(j, cases[i].want, 1e-12);
	}
}

static void latency_counting(void **state)
{
	static const struct {
		uint64_t lat[8];
		size_t n;
		uint64_t threshold, over, max;
	} cases[] = {
		{ { 10, 20, 30 }, 3, 100, 0, 30 },
		{ { 100, 101, 99 }, 3, 100, 1, 101 }, /* over means later than, not equal */
		{ { 0, 5000000, 1, 2, 3 }, 5, 4, 1, 5000000 },
		{ { 0 }, 0, 10, 0, 0 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct sched_lat *a = malloc(sizeof(*a)), *b = malloc(sizeof(*b));

		assert_non_null(a);
		assert_non_null(b);
		sched_lat_init(a, cases[i].threshold);
		sched_lat_init(b, cases[i].threshold);
		for (size_t k = 0; k < cases[i].n; k++)
			sched_lat_record(k % 2 ? b : a, cases[i].lat[k]);
		sched_lat_merge(a, b);
		/* every wake-up is in the histogram once */
		assert_int_equal(a->hist.count, cases[i].n);
		assert_int_equal(a->over, cases[i].over);
		assert_int_equal(a->hist.max, cases[i].max);
		free(a);
		free(b);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(jain_index),
		cmocka_unit_test(latency_counting),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
