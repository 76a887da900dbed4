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

static void quota_lists(void **state)
{
	static const struct {
		const char *text;
		size_t max;
		int r;
		size_t n;
		double cpus[3];
	} cases[] = {
		{ "1.2,0.8,1.0", 8, 0, 3, { 1.2, 0.8, 1.0 } },
		{ "1.8,1.2,1.5", 8, 0, 3, { 1.8, 1.2, 1.5 } },
		{ "2", 8, 0, 1, { 2 } },
		{ ".5,3.", 8, 0, 2, { 0.5, 3 } },
		{ "1024", 8, 0, 1, { 1024 } },
		{ "1,2,3", 2, -ERANGE, 0, { 0 } }, /* more groups than asked for */
		{ "1,2,3,4,5,6,7,8,9", 16, -ERANGE, 0, { 0 } }, /* more than a tree holds */
		{ "0", 8, -ERANGE, 0, { 0 } },
		{ "0.0,1", 8, -ERANGE, 0, { 0 } },
		{ "1024.5", 8, -ERANGE, 0, { 0 } },
		{ "", 8, -EINVAL, 0, { 0 } },
		{ "1,,2", 8, -EINVAL, 0, { 0 } },
		{ "1,", 8, -EINVAL, 0, { 0 } },
		{ ".", 8, -EINVAL, 0, { 0 } },
		{ "1.2.3", 8, -EINVAL, 0, { 0 } },
		{ "-1", 8, -EINVAL, 0, { 0 } },
		{ " 1", 8, -EINVAL, 0, { 0 } },
		{ "1e3", 8, -EINVAL, 0, { 0 } },
		{ "0x10", 8, -EINVAL, 0, { 0 } },
		{ "inf", 8, -EINVAL, 0, { 0 } },
		{ "nan", 8, -EINVAL, 0, { 0 } },
		{ "1.2;0.8", 8, -EINVAL, 0, { 0 } },
		{ "000000000000000000000000000000001", 8, -EINVAL, 0, { 0 } }, /* too long a word */
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		double cpus[CG_MAX_GROUPS] = { 42 };
		size_t n = 42;
		int r = sched_quota_parse(cases[i].text, cpus, cases[i].max, &n);

		if (r != cases[i].r)
			fail_msg("case %zu (%s): %d, expected %d", i, cases[i].text, r, cases[i].r);
		if (r < 0) {
			assert_int_equal(n, 42);
			assert_close(cpus[0], 42, 0);
			continue;
		}
		assert_int_equal(n, cases[i].n);
		for (size_t k = 0; k < n; k++)
			assert_close(cpus[k], cases[i].cpus[k], 1e-12);
	}
}

static void quota_arithmetic(void **state)
{
	static const struct {
		double cpus[3];
		size_t n;
		unsigned period;
		int r;
		unsigned long long quota[3];
	} cases[] = {
		/* the study's, at Docker's period: --cpus 1.2 is cpu.max "120000 100000" */
		{ { 1.2, 0.8, 1.0 }, 3, 100000, 0, { 120000, 80000, 100000 } },
		{ { 1.8, 1.2, 1.5 }, 3, 100000, 0, { 180000, 120000, 150000 } },
		{ { 1.2, 0.8, 1.0 }, 3, 10000, 0, { 12000, 8000, 10000 } },
		{ { 0.1 }, 1, 10000, 0, { 1000 } },            /* the kernel's smallest */
		{ { 0.09996 }, 1, 10000, 0, { 1000 } },        /* 999.6 us rounds to 1000 */
		{ { 0.0999 }, 1, 10000, -ERANGE, { 0 } },      /* 999 us */
		{ { 0.09 }, 1, 10000, -ERANGE, { 0 } },        /* 900 us: below 1 ms */
		{ { 1.0 }, 0, 10000, -EINVAL, { 0 } },
		{ { 1.0 }, 1, 0, -EINVAL, { 0 } },
	};
	static const struct {
		double cpus;
		unsigned load, threads, work_us;
		uint64_t want;
	} rates[] = {
		/* 2 threads asking 80% of 1.2 CPUs in 1 ms requests: 0.48 CPU each, a request every 2.083 ms */
		{ 1.2, 80, 2, 1000, 2083333 },
		{ 1.0, 100, 1, 1000, 1000000 }, /* one CPU, all of it: back to back */
		{ 0.5, 100, 1, 1000, 2000000 },
		{ 2.0, 200, 4, 500, 500000 },   /* 4 CPUs asked of 4 threads: back to back */
		{ 0, 80, 2, 1000, 0 },
		{ 1.0, 80, 0, 1000, 0 },
		{ 1.0, 80, 2, 0, 0 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct cg_knob k[3] = { { 42, 42 }, { 42, 42 }, { 42, 42 } };
		int r = sched_quota_knobs(cases[i].cpus, cases[i].n, cases[i].period, k);

		if (r != cases[i].r)
			fail_msg("case %zu: %d, expected %d", i, r, cases[i].r);
		for (size_t g = 0; g < cases[i].n; g++) {
			assert_int_equal(k[g].quota_us, r ? 42 : cases[i].quota[g]);
			assert_int_equal(k[g].weight, r ? 42 : 1);
		}
	}
	for (size_t i = 0; i < sizeof(rates) / sizeof(rates[0]); i++)
		assert_int_equal(sched_quota_interval_ns(rates[i].cpus, rates[i].load, rates[i].threads, rates[i].work_us),
				 rates[i].want);
}

static void ctxt_of_proc_stat(void **state)
{
	static const struct {
		const char *text;
		int r;
		unsigned long long ctxt;
	} cases[] = {
		{ "cpu  1 2 3 4 5 6 7 8 9 10\ncpu0 1 2 3 4 5 6 7 8 9 10\nintr 5 0 0\nctxt 123456789\nbtime 1700000000\n", 0,
		  123456789 },
		{ "ctxt 0", 0, 0 },
		{ "ctxt 18446744073709551615\n", 0, 18446744073709551615ull },
		{ "ctxt 18446744073709551616\n", -EINVAL, 0 },
		{ "ctxt \n", -EINVAL, 0 },
		{ "ctxt -5\n", -EINVAL, 0 },
		{ "ctxt 12 \n", -EINVAL, 0 },
		{ "xctxt 5\n", -EINVAL, 0 },
		{ "cpu 1 2\n", -EINVAL, 0 },
		{ "", -EINVAL, 0 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		unsigned long long c = 42;
		int r = sched_parse_ctxt(cases[i].text, &c);

		if (r != cases[i].r)
			fail_msg("case %zu: %d, expected %d", i, r, cases[i].r);
		assert_int_equal(c, r ? 42 : cases[i].ctxt);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(jain_index),
		cmocka_unit_test(latency_counting),
		cmocka_unit_test(quota_lists),
		cmocka_unit_test(quota_arithmetic),
		cmocka_unit_test(ctxt_of_proc_stat),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
