/* Noise sensors: /proc/stat parsing and the busy mark, from fixed snapshots. */
#include <errno.h>
#include <math.h>

#include "test.h"
#include "../../src/core/noise.h"

static const char stat_text[] = "cpu  1000 10 200 5000 50 0 40 30 0 0\n"
				"cpu0 600 5 100 2400 20 0 20 10 0 0\n"
				"cpu1 400 5 100 2600 30 0 20 20 0 0\n"
				"intr 12345\nctxt 999\n";

static const unsigned cpu0[] = { 0 }, cpu1[] = { 1 }, both[] = { 0, 1 };

static void parse_stat(void **state)
{
	static const struct {
		const unsigned *cpus;
		size_t n;
		unsigned long long busy, irq, steal;
	} cases[] = {
		/* user nice system; irq softirq apart */
		{ NULL, 0, 1000 + 10 + 200, 0 + 40, 30 },
		{ cpu0, 1, 600 + 5 + 100, 20, 10 },
		{ cpu1, 1, 400 + 5 + 100, 20, 20 },
		{ both, 2, 705 + 505, 40, 30 },
	};
	unsigned long long busy, irq, steal;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		assert_int_equal(noise_parse_stat(stat_text, cases[i].cpus, cases[i].n, &busy, &irq, &steal), 0);
		assert_int_equal(busy, cases[i].busy);
		assert_int_equal(irq, cases[i].irq);
		assert_int_equal(steal, cases[i].steal);
	}
	/* a CPU that is not there, and text that is not /proc/stat */
	assert_int_equal(noise_parse_stat(stat_text, (const unsigned[]){ 7 }, 1, &busy, &irq, &steal), -EINVAL);
	assert_int_equal(noise_parse_stat("cpu 1 2\n", NULL, 0, &busy, &irq, &steal), -EINVAL);
	assert_int_equal(noise_parse_stat("", NULL, 0, &busy, &irq, &steal), -EINVAL);
}

static void judge(void **state)
{
	/* 1 s on 2 CPUs at 100 Hz: 200 jiffies of capacity */
	static const struct {
		unsigned long long busy, steal, irq;
		double own_s;
		long majflt;
		double other, stealp, irqp;
		bool busy_mark;
	} cases[] = {
		{ 100, 0, 0, 1.0, 0, 0, 0, 0, false },    /* only us, one CPU */
		{ 150, 0, 0, 1.0, 0, 25, 0, 0, true },    /* half a CPU for someone else: 25% */
		{ 115, 0, 0, 1.0, 0, 7.5, 0, 0, false },  /* under the 10% threshold */
		{ 100, 10, 0, 1.0, 0, 0, 5, 0, true },    /* 5% steal */
		{ 100, 0, 0, 1.0, 50, 0, 0, 0, true },    /* major faults */
		{ 90, 0, 0, 1.0, 0, 0, 0, 0, false },     /* jiffies rounding below our own time */
		/* a disk test in a guest: half a CPU of completions (irq, softirq)
		 * while it waited idle, no other process: not busy (issue 44) */
		{ 60, 0, 100, 0.6, 0, 0, 0, 50, false },
		/* and someone else's half CPU beside it still is */
		{ 110, 0, 100, 0.6, 0, 25, 0, 50, true },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct noise_snap a = { .wall = 10, .have_stat = true, .busy = 1000, .steal = 0, .own_cpu_s = 3 };
		struct noise_snap b = a;
		struct noise_reading r;

		b.wall = 11;
		b.busy += cases[i].busy;
		b.steal += cases[i].steal;
		b.irq += cases[i].irq;
		b.own_cpu_s += cases[i].own_s;
		b.majflt += cases[i].majflt;
		noise_judge(&a, &b, 2, 100, &r);
		assert_close(r.other_cpu_pct, cases[i].other, 1e-9);
		assert_close(r.steal_pct, cases[i].stealp, 1e-9);
		assert_close(r.irq_pct, cases[i].irqp, 1e-9);
		assert_int_equal(r.busy, cases[i].busy_mark);
	}
	{
		/* no /proc/stat: no reading, not busy */
		struct noise_snap a = { .wall = 1 }, b = { .wall = 2 };
		struct noise_reading r;

		noise_judge(&a, &b, 2, 100, &r);
		assert_true(isnan(r.other_cpu_pct));
		assert_false(r.busy);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(parse_stat),
		cmocka_unit_test(judge),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
