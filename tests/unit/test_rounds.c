/* When --runs auto and --rounds auto stop (src/cmd/run_rounds.c): the
 * decision on each case, from values; the rounds of issue 44 (QD32
 * decided at p=3e-5 and 2.2x while its mdd stayed above --mdd); the lines
 * that say which case held the rounds back; a case named by the params
 * that tell it from its neighbours. */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "test.h"
#include "../../src/cmd/run_rounds.h"
#include "../../src/report/compare.h"

static struct round_case judged(const char *name, int sig, double p, bool same, double mdd)
{
	struct round_case c = { .judged = true, .significant = sig, .p = p, .same = same, .mdd_pct = mdd };

	snprintf(c.name, sizeof(c.name), "%s", name);
	return c;
}

static void decide(void **state)
{
	static const struct {
		const char *what;
		bool judged, margin, same;
		int sig;
		double p, mdd;
		unsigned look;
		enum round_state want;
	} cases[] = {
		/* issue 44's QD32: 2.2x at p=3e-5, its mdd 36% above --mdd 10% */
		{ "significant, mdd above target", true, false, false, +1, 3e-5, 36, 15, ROUND_DIFFERENT },
		{ "significantly worse", true, false, false, -1, 1e-4, 50, 3, ROUND_DIFFERENT },
		/* p=0.04 is significant at one look, not spent over several */
		{ "p=0.04 at the first look: 0.05 spent over the looks", true, false, false, +1, 0.04, 50, 1, ROUND_OPEN },
		{ "p=0.01 at the first look", true, false, false, +1, 0.01, 50, 1, ROUND_DIFFERENT },
		{ "p=0.01 at the fifth look", true, false, false, +1, 0.01, 50, 5, ROUND_OPEN },
		{ "p tiny but no significance (an exact test's veto)", true, false, false, 0, 1e-6, 50, 2, ROUND_OPEN },
		{ "the same within --margin", true, true, true, 0, 0.6, 12, 4, ROUND_SAME },
		{ "the same, no --margin given: not decided by it", true, false, true, 0, 0.6, 12, 4, ROUND_OPEN },
		{ "mdd within target", true, false, false, 0, 0.4, 8, 4, ROUND_MDD },
		{ "mdd at the target", true, false, false, 0, 0.4, 10, 4, ROUND_MDD },
		{ "undecided: no difference, mdd above", true, true, false, 0, 0.3, 12, 4, ROUND_OPEN },
		{ "mdd unknown", true, true, false, 0, NAN, INFINITY, 1, ROUND_OPEN },
		/* run --runs auto: one side, its mdd alone */
		{ "one side: mdd within", false, false, false, 0, NAN, 4, 2, ROUND_MDD },
		{ "one side: mdd above", false, false, false, 0, NAN, 40, 2, ROUND_OPEN },
		{ "one side: significance is not a verdict", false, false, false, +1, 1e-9, 40, 2, ROUND_OPEN },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct round_rule rule = { .mdd_pct = 10, .margin = cases[i].margin, .look = cases[i].look };
		struct round_case c = judged(cases[i].what, cases[i].sig, cases[i].p, cases[i].same, cases[i].mdd);

		c.judged = cases[i].judged;
		if (round_decide(&rule, &c) != cases[i].want)
			fail_msg("%s: %d, expected %d", cases[i].what, round_decide(&rule, &c), cases[i].want);
	}
}

/* 0.05 spent over the looks: their sum never above it, the first look's the largest */
static void alpha_spent(void **state)
{
	double sum = 0;

	(void)state;
	for (unsigned j = 1; j <= 1000; j++) {
		sum += round_alpha(j);
		assert_true(round_alpha(j) < round_alpha(j - 1 ? j - 1 : 1) || j == 1);
	}
	assert_true(sum <= 0.05);
	assert_close(round_alpha(1), 0.05 * 6 / (M_PI * M_PI), 1e-12);
}

/* Issue 44: two disks at QD1 and QD32, --mdd 10. QD32 decided by its
 * difference from round 2 on; QD1 reaches the target at round 4. The
 * rounds stop there, and the line names QD1 as what held them back. */
static void issue44_rounds(void **state)
{
	struct round_auto a = { .what = "--rounds auto", .rule = { .mdd_pct = 10 } };
	char line[1200];
	struct round_case r2[] = {
		judged("disk.randread iops at iodepth=1, disk=nvme vs disk=ide", 0, 0.4, false, 30),
		judged("disk.randread iops at iodepth=32, disk=nvme vs disk=ide", +1, 3e-3, false, 60),
	};
	struct round_case r3[] = {
		judged("disk.randread iops at iodepth=1, disk=nvme vs disk=ide", 0, 0.5, false, 14),
		judged("disk.randread iops at iodepth=32, disk=nvme vs disk=ide", +1, 1e-4, false, 45),
	};
	struct round_case r4[] = {
		judged("disk.randread iops at iodepth=1, disk=nvme vs disk=ide", 0, 0.5, false, 9.5),
		judged("disk.randread iops at iodepth=32, disk=nvme vs disk=ide", +1, 3e-5, false, 36),
	};

	(void)state;
	assert_false(round_auto_after(&a, 1, NULL, 0, line, sizeof(line)));
	assert_string_equal(line, "");
	assert_false(round_auto_after(&a, 2, r2, 2, line, sizeof(line)));
	assert_string_equal(line, "round 2: 1 of 2 cases decided (1 significant difference); undecided: "
				  "disk.randread iops at iodepth=1, disk=nvme vs disk=ide (minimal detectable "
				  "difference 30.0%, p=0.4)");
	assert_false(round_auto_after(&a, 3, r3, 2, line, sizeof(line)));
	assert_true(round_auto_after(&a, 4, r4, 2, line, sizeof(line)));
	assert_string_equal(line, "--rounds auto: stopped after 4 rounds: every case is decided (1 significant "
				  "difference, 1 with a minimal detectable difference within --mdd 10%); the last "
				  "undecided, after round 3: disk.randread iops at iodepth=1, disk=nvme vs disk=ide "
				  "(minimal detectable difference 14.0%, p=0.5)");
}

/* The budget ends the rounds first: the line says which were undecided, the furthest first */
static void undecided_at_budget(void **state)
{
	struct round_auto a = { .what = "--runs auto", .rule = { .mdd_pct = 3 } };
	char line[1200];
	struct round_case c[] = {
		{ .name = "cpu.prime events_per_s at threads=1", .p = NAN, .mdd_pct = 4 },
		{ .name = "cpu.prime events_per_s at threads=2", .p = NAN, .mdd_pct = 7.25 },
		{ .name = "mem.copy bandwidth", .p = NAN, .mdd_pct = 1 },
	};

	(void)state;
	round_auto_undecided(&a, 1, "another would end after --budget-total 1s", line, sizeof(line));
	assert_string_equal(line, "--runs auto: stopped after 1 round: another would end after --budget-total 1s; no "
				  "case is judged before two rounds");
	assert_false(round_auto_after(&a, 2, c, 3, line, sizeof(line)));
	round_auto_undecided(&a, 2, "another would end after --budget-total 60s", line, sizeof(line));
	assert_string_equal(line, "--runs auto: stopped after 2 rounds: another would end after --budget-total 60s; "
				  "still undecided: cpu.prime events_per_s at threads=2 (minimal detectable "
				  "difference 7.2%); cpu.prime events_per_s at threads=1 (minimal detectable "
				  "difference 4.0%)");
}

/* A row named by the params that differ from another row of its test and metric */
static void row_name(void **state)
{
	json_t *p1 = json_pack("{s:i, s:s, s:i}", "iodepth", 1, "bs", "4k", "jobs", 1);
	json_t *p32 = json_pack("{s:i, s:s, s:i}", "iodepth", 32, "bs", "4k", "jobs", 1);
	json_t *pc = json_pack("{s:i}", "threads", 1);
	struct cmp_row rows[] = {
		{ .suite = "disk", .test = "randread", .metric = "iops", .pobj = p1 },
		{ .suite = "disk", .test = "randread", .metric = "iops", .pobj = p32 },
		{ .suite = "disk", .test = "randread", .metric = "latency", .pobj = p1 },
		{ .suite = "cpu", .test = "prime", .metric = "events_per_s", .pobj = pc },
	};
	struct cmp_table t = { .rows = rows, .nrows = 4 };
	char buf[300];

	(void)state;
	round_row_name(&t, &rows[0], buf, sizeof(buf));
	assert_string_equal(buf, "disk.randread iops at iodepth=1");
	round_row_name(&t, &rows[1], buf, sizeof(buf));
	assert_string_equal(buf, "disk.randread iops at iodepth=32");
	/* alone of its metric: nothing to tell apart */
	round_row_name(&t, &rows[2], buf, sizeof(buf));
	assert_string_equal(buf, "disk.randread latency");
	round_row_name(&t, &rows[3], buf, sizeof(buf));
	assert_string_equal(buf, "cpu.prime events_per_s");
	json_decref(p1);
	json_decref(p32);
	json_decref(pc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(decide),
		cmocka_unit_test(alpha_spent),
		cmocka_unit_test(issue44_rounds),
		cmocka_unit_test(undecided_at_budget),
		cmocka_unit_test(row_name),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
