/* The runner with fake suites: stop rule, skip, failure isolation, teardown,
 * sweeps, thread cases and parallel efficiency, descriptor checks. */
#include <errno.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "test.h"
#include "../../src/core/rep.h"
#include "../../src/core/runner.h"
#include "../../src/suites/suites.h"

static struct {
	unsigned setups, teardowns, runs;
	double values[64];
	size_t nvalues;
} fake;

/* Reports fake.values in turn (cycling); "threaded" scales with threads. */
static int fake_run(struct vmb_ctx *ctx, const struct vmb_test *t, struct vmb_rep *rep)
{
	double v = fake.values[fake.runs++ % fake.nvalues];
	struct hist h;

	if (!strcmp(t->name, "threaded"))
		v *= ctx->threads * 0.5; /* efficiency 0.5 at every N > 1 */
	if (!strcmp(t->name, "sweep"))
		v = ctx->sweep;
	if (!strcmp(t->name, "stopped") && ctx->sweep == 4)
		vmb_request_stop(); /* Ctrl-C during the second case */
	hist_init(&h);
	hist_record(&h, 1000);
	hist_record(&h, 3000);
	vmb_rep_value(rep, "rate", VMB_UNIT_PER_S, VMB_HIGHER, v);
	vmb_rep_hist(rep, "latency", VMB_UNIT_NS, &h);
	return 0;
}

static int broken_run(struct vmb_ctx *ctx, const struct vmb_test *t, struct vmb_rep *rep)
{
	(void)t;
	(void)rep;
	fake.runs++;
	return vmb_fail(ctx, -EIO, "broken test");
}

static int absent_run(struct vmb_ctx *ctx, const struct vmb_test *t, struct vmb_rep *rep)
{
	(void)t;
	(void)rep;
	fake.runs++;
	return vmb_skip(ctx, "needs a device this machine lacks");
}

/* Reports more values than a repetition holds and does not check: the
 * repetition keeps the error, the runner fails the test with it. */
static int chatty_run(struct vmb_ctx *ctx, const struct vmb_test *t, struct vmb_rep *rep)
{
	char name[32];

	(void)ctx;
	(void)t;
	fake.runs++;
	for (unsigned i = 0; i < 1000; i++) { /* far beyond REP_MAX_VALUES (160) */
		snprintf(name, sizeof(name), "v%u", i);
		vmb_rep_value(rep, name, VMB_UNIT_NONE, VMB_HIGHER, i);
	}
	return 0;
}

/* A closed loop of --fake.depth connections, its figures fake.values[0]
 * requests/s and a latency of fake.values[1] ns: the runner judges them. */
static int looped_run(struct vmb_ctx *ctx, const struct vmb_test *t, struct vmb_rep *rep)
{
	struct hist h;

	(void)t;
	fake.runs++;
	hist_init(&h);
	hist_record(&h, (uint64_t)fake.values[1]);
	vmb_rep_value(rep, "requests_per_s", VMB_UNIT_PER_S, VMB_HIGHER, fake.values[0]);
	vmb_rep_hist(rep, "latency", VMB_UNIT_NS, &h);
	vmb_rep_closed_loop(rep, "requests_per_s", "latency", ctx->sweep, "connection");
	return 0;
}

static int fake_setup(struct vmb_ctx *ctx)
{
	(void)ctx;
	fake.setups++;
	return 0;
}

static void fake_teardown(struct vmb_ctx *ctx)
{
	(void)ctx;
	fake.teardowns++;
}

static int never(const struct vmb_env *env, const char **why)
{
	(void)env;
	*why = "not on this machine";
	return 0;
}

static const struct vmb_opt fake_opts[] = {
	{ .name = "depth", .type = OPT_LIST, .min = 1, .max = 64, .def = "1,4,32", .help = "d" },
	OPT_TABLE_END,
};

static const struct vmb_test fake_tests[] = {
	{ .name = "steady", .summary = "s", .headline = "rate", .run = fake_run },
	{ .name = "broken", .summary = "b", .headline = "rate", .run = broken_run },
	{ .name = "absent", .summary = "a", .headline = "rate", .run = absent_run },
	{ .name = "threaded", .summary = "t", .headline = "rate", .flags = VMB_TEST_THREADED, .run = fake_run },
	{ .name = "sweep", .summary = "w", .headline = "rate", .sweep = "depth", .params = "depth", .run = fake_run },
	{ .name = "stopped", .summary = "i", .headline = "rate", .sweep = "depth", .params = "depth", .run = fake_run },
	{ .name = "chatty", .summary = "c", .headline = "v0", .run = chatty_run },
	{ .name = "looped", .summary = "l", .headline = "requests_per_s", .sweep = "depth", .params = "depth",
	  .run = looped_run },
	{ .name = NULL },
};

static const struct vmb_suite fake_suite = {
	.name = "fake", .summary = "fake", .abi = VMB_SUITE_ABI, .tests = fake_tests, .opts = fake_opts,
	.setup = fake_setup, .teardown = fake_teardown,
};

static struct runner_settings settings(void)
{
	static const unsigned threads[] = { 2, 4 };

	return (struct runner_settings){
		.time_s = 0.001, .warmup_s = 0, .budget_s = 1000, .precision_pct = 2,
		.min_reps = 3, .max_reps = 10, .threads = threads, .nthreads = 2,
	};
}

static const struct vmb_metric *metric(const struct vmb_case *c, const char *name)
{
	for (size_t i = 0; i < c->nmetrics; i++)
		if (!strcmp(c->metrics[i].name, name))
			return &c->metrics[i];
	return NULL;
}

static void run_one(uint64_t mask, struct vmb_results *res)
{
	struct runner_settings rs = settings();
	struct optset opts;
	struct runner_item item = { .suite = &fake_suite, .opts = &opts, .test_mask = mask };

	assert_int_equal(optset_init(&opts, fake_opts, "fake."), 0);
	assert_int_equal(runner_run(&rs, &item, 1, res), 0);
	optset_release(&opts);
}

static void stop_rule(void **state)
{
	struct vmb_results res;
	const struct vmb_case *c;

	(void)state;
	/* Identical samples: the CI is 0, precision reached at min_reps. */
	memset(&fake, 0, sizeof(fake));
	fake.values[0] = 100;
	fake.nvalues = 1;
	run_one(1u << 0, &res);
	c = &res.suites[0].tests[0].cases[0];
	assert_int_equal(c->reps, 3);
	assert_true(c->precision_reached);
	assert_close(metric(c, "rate")->sum.mean, 100, 0);
	assert_true(metric(c, "rate")->headline);
	assert_non_null(metric(c, "latency")->hist);
	assert_int_equal(metric(c, "latency")->hist->count, 6); /* merged over 3 repetitions */
	/* each repetition's spread (1000 and 3000 ns: 1000), one sample each, no histogram */
	assert_non_null(metric(c, "latency." REP_STDDEV));
	assert_int_equal(metric(c, "latency." REP_STDDEV)->n, 3);
	assert_close(metric(c, "latency." REP_STDDEV)->sum.mean, 1000, 1e-9);
	assert_null(metric(c, "latency." REP_STDDEV)->hist);
	assert_int_equal(metric(c, "latency." REP_STDDEV)->dir, VMB_LOWER);
	vmb_results_release(&res);

	/* Samples 50/150 alternate: never within 2%, stops at max_reps. */
	memset(&fake, 0, sizeof(fake));
	fake.values[0] = 50;
	fake.values[1] = 150;
	fake.nvalues = 2;
	run_one(1u << 0, &res);
	c = &res.suites[0].tests[0].cases[0];
	assert_int_equal(c->reps, 10);
	assert_false(c->precision_reached);
	assert_true(c->ci_rel_pct > 2);
	assert_int_equal(metric(c, "rate")->n, 10);
	assert_int_equal(fake.setups, 1);
	assert_int_equal(fake.teardowns, 1);
	vmb_results_release(&res);
}

/* The warm-up ends when the headline is steady over three slices, or at
 * --warmup-max; not judged when --warmup-max leaves no room. */
static void warmup_until_steady(void **state)
{
	static const struct {
		double warmup, warmup_max;
		bool ramp;        /* the fake's values climb without end */
		int steady;       /* want */
		unsigned runs;    /* want: warm-up slices + 3 repetitions; 0: more than 3 + 3 */
	} cases[] = {
		{ 0.003, 0.05, false, 1, 6 },  /* steady at once: three slices */
		{ 0.003, 0.05, true, 0, 0 },   /* never steady: slices until 0.05 s */
		{ 0.003, 0.003, true, -1, 4 }, /* no room: one slice, not judged */
		{ 0, 0.05, true, -1, 3 },      /* no warm-up at all */
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct runner_settings rs = settings();
		struct optset opts;
		struct runner_item item = { .suite = &fake_suite, .opts = &opts, .test_mask = 1u << 0 };
		struct vmb_results res;
		const struct vmb_case *c;

		memset(&fake, 0, sizeof(fake));
		fake.nvalues = cases[i].ramp ? 64 : 1;
		/* +20% a slice: never within 5% over three */
		for (size_t k = 0; k < fake.nvalues; k++)
			fake.values[k] = k ? fake.values[k - 1] * 1.2 : 100;
		rs.warmup_s = cases[i].warmup;
		rs.warmup_max_s = cases[i].warmup_max;
		rs.max_reps = 3;
		assert_int_equal(optset_init(&opts, fake_opts, "fake."), 0);
		assert_int_equal(runner_run(&rs, &item, 1, &res), 0);
		c = &res.suites[0].tests[0].cases[0];
		if (c->warmup_steady != cases[i].steady)
			fail_msg("case %zu: steady %d, want %d", i, c->warmup_steady, cases[i].steady);
		if (cases[i].runs)
			assert_int_equal(fake.runs, cases[i].runs);
		else
			assert_true(fake.runs > 6 && c->warmup_s >= cases[i].warmup_max * 0.9);
		assert_true(cases[i].warmup > 0 ? c->warmup_s > 0 : c->warmup_s == 0);
		assert_int_equal(c->reps, 3);
		vmb_results_release(&res);
		optset_release(&opts);
	}
}

static void failures_are_isolated(void **state)
{
	struct vmb_results res;
	const struct vmb_suite_result *s;

	(void)state;
	memset(&fake, 0, sizeof(fake));
	fake.values[0] = 1;
	fake.nvalues = 1;
	run_one((1u << 0) | (1u << 1) | (1u << 2), &res);
	s = &res.suites[0];
	assert_int_equal(s->ntests, 3);
	assert_int_equal(s->tests[0].status, VMB_OK);
	assert_int_equal(s->tests[1].status, VMB_FAILED);
	assert_non_null(strstr(s->tests[1].reason, "broken test"));
	assert_int_equal(s->tests[1].ncases, 0);
	assert_int_equal(s->tests[2].status, VMB_SKIPPED);
	assert_string_equal(s->tests[2].reason, "needs a device this machine lacks");
	assert_int_equal(fake.teardowns, 1);
	vmb_results_release(&res);
}

/* A report the repetition cannot keep fails that test, once, with the
 * reason; the suite never checked, and the other tests run. */
static void report_errors_are_kept(void **state)
{
	struct vmb_results res;
	const struct vmb_suite_result *s;

	(void)state;
	memset(&fake, 0, sizeof(fake));
	fake.values[0] = 1;
	fake.nvalues = 1;
	run_one((1u << 0) | (1u << 6), &res);
	s = &res.suites[0];
	assert_int_equal(s->ntests, 2);
	assert_int_equal(s->tests[0].status, VMB_OK);
	assert_int_equal(s->tests[1].status, VMB_FAILED);
	assert_non_null(strstr(s->tests[1].reason, "too many values"));
	assert_int_equal(s->tests[1].ncases, 0);
	vmb_results_release(&res);
}

/* Little's law: a repetition whose rate x mean latency is more than its
 * requests in flight allow is refused with its figures; one within them
 * (also one just within the 5% slack) is kept. */
static void closed_loop_bound(void **state)
{
	static const struct {
		double rate, lat_ns;
		unsigned in_flight;
		const char *each;
		int want;
		const char *why; /* a part of the message, when refused */
	} cases[] = {
		{ 100000, 9900, 1, "connection", 0, NULL },       /* 0.99 in flight */
		{ 100000, 10000, 1, "connection", 0, NULL },      /* exactly one */
		{ 100000, 10490, 1, "connection", 0, NULL },      /* 1.049: within the slack */
		{ 110627, 14100, 1, "connection",                 /* the figure of issue 41 */
		  -ERANGE, "110627 requests/s at mean latency 14.1 us is 1.56 in flight on 1 connection: more than "
			   "a closed loop allows (1.05 at most)" },
		{ 50465, 7.2e6, 64, "connection", -ERANGE, "is 363.35 in flight on 64 connections" },
		{ 7521, 13.3e6, 100, "connection", 0, NULL },    /* 100.03 on 100 */
		{ 29406, 34e6, 100, "thread", -ERANGE, "34 ms is 999.80 in flight on 100 threads" },
		{ 0, 5000, 1, "connection", 0, NULL },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct vmb_rep *rep = rep_new();
		struct hist h;
		char why[256] = "";
		int r;

		assert_non_null(rep);
		hist_init(&h);
		hist_record(&h, (uint64_t)cases[i].lat_ns);
		vmb_rep_value(rep, "requests_per_s", VMB_UNIT_PER_S, VMB_HIGHER, cases[i].rate);
		vmb_rep_hist(rep, "latency", VMB_UNIT_NS, &h);
		assert_int_equal(rep_closed_loop_check(rep, why, sizeof(why)), 0); /* none declared yet */
		vmb_rep_closed_loop(rep, "requests_per_s", "latency", cases[i].in_flight, cases[i].each);
		r = rep_closed_loop_check(rep, why, sizeof(why));
		if (r != cases[i].want || (cases[i].why && !strstr(why, cases[i].why)))
			fail_msg("case %zu: %d '%s'", i, r, why);
		/* a new repetition forgets the declaration */
		rep_reset(rep);
		assert_int_equal(rep_closed_loop_check(rep, why, sizeof(why)), 0);
		/* a loop on a latency the test did not report is the suite's bug */
		vmb_rep_value(rep, "requests_per_s", VMB_UNIT_PER_S, VMB_HIGHER, cases[i].rate);
		vmb_rep_closed_loop(rep, "requests_per_s", "latency", 1, "connection");
		assert_int_equal(rep_closed_loop_check(rep, why, sizeof(why)), -EPROTO);
		rep_free(rep);
	}
}

/* The runner refuses such a repetition: the test fails with the figures
 * and keeps no case; a sweep's other case, within its bound, is kept. */
static void closed_loop_refused(void **state)
{
	struct vmb_results res;
	const struct vmb_test_result *t;

	(void)state;
	memset(&fake, 0, sizeof(fake));
	fake.values[0] = 200000; /* requests/s */
	fake.values[1] = 8000;   /* ns: 1.6 in flight; within 4 and 32 */
	fake.nvalues = 2;
	run_one(1u << 7, &res);
	t = &res.suites[0].tests[0];
	assert_int_equal(t->status, VMB_FAILED);
	assert_non_null(t->reason);
	assert_non_null(strstr(t->reason, "200000 requests/s at mean latency 8 us is 1.60 in flight on 1 connection"));
	assert_int_equal(t->ncases, 0);
	vmb_results_release(&res);

	fake.values[1] = 4000; /* 0.8 in flight: every case kept */
	run_one(1u << 7, &res);
	t = &res.suites[0].tests[0];
	assert_int_equal(t->status, VMB_OK);
	assert_int_equal(t->ncases, 3);
	vmb_results_release(&res);
}

static void threads_and_efficiency(void **state)
{
	struct vmb_results res;
	const struct vmb_test_result *t;

	(void)state;
	memset(&fake, 0, sizeof(fake));
	fake.values[0] = 100;
	fake.nvalues = 1;
	run_one(1u << 3, &res);
	t = &res.suites[0].tests[0];
	/* threads 1 is added in front of the asked 2,4 */
	assert_int_equal(t->ncases, 3);
	assert_string_equal(t->cases[0].params[0].key, "threads");
	assert_string_equal(t->cases[0].params[0].value, "1");
	assert_string_equal(t->cases[2].params[0].value, "4");
	assert_null(metric(&t->cases[0], "parallel_efficiency"));
	/* rate(N) = 100 * N * 0.5 but rate(1) = 50: efficiency = 1 at every N */
	assert_close(metric(&t->cases[1], "parallel_efficiency")->sum.mean, 1.0, 1e-12);
	assert_close(metric(&t->cases[2], "parallel_efficiency")->sum.mean, 1.0, 1e-12);
	vmb_results_release(&res);
}

static void sweeps(void **state)
{
	struct vmb_results res;
	const struct vmb_test_result *t;

	(void)state;
	memset(&fake, 0, sizeof(fake));
	fake.values[0] = 1;
	fake.nvalues = 1;
	run_one(1u << 4, &res);
	t = &res.suites[0].tests[0];
	assert_int_equal(t->ncases, 3);
	assert_string_equal(t->cases[2].params[0].key, "depth");
	assert_string_equal(t->cases[2].params[0].value, "32");
	assert_close(metric(&t->cases[2], "rate")->sum.mean, 32, 0);
	assert_int_equal(t->cases[2].nparams, 1); /* the sweep option is not repeated as a parameter */
	assert_int_equal(res.suites[0].noptions, 1);
	vmb_results_release(&res);
}

static void skipped_suite(void **state)
{
	struct vmb_suite s = fake_suite;
	struct runner_settings rs = settings();
	struct optset opts;
	struct runner_item item = { .suite = &s, .opts = &opts, .test_mask = ~0ull };
	struct vmb_results res;

	(void)state;
	memset(&fake, 0, sizeof(fake));
	s.supported = never;
	assert_int_equal(optset_init(&opts, fake_opts, ""), 0);
	assert_int_equal(runner_run(&rs, &item, 1, &res), 0);
	assert_int_equal(res.suites[0].status, VMB_SKIPPED);
	assert_string_equal(res.suites[0].reason, "not on this machine");
	assert_int_equal(fake.setups, 0);
	assert_int_equal(fake.runs, 0);
	vmb_results_release(&res);
	optset_release(&opts);
}

/* Where the device under test has no filesystem, the tests that measure
 * one are skipped with the run's reason, before their setup's files are
 * touched; the other tests of the suite run; without the reason, all run. */
static void fs_tests_skipped(void **state)
{
	static const struct vmb_test tests[] = {
		{ .name = "raw", .summary = "r", .headline = "rate", .run = fake_run },
		{ .name = "files", .summary = "f", .headline = "rate", .flags = VMB_TEST_ON_FS, .run = fake_run },
		{ .name = NULL },
	};
	struct vmb_suite s = fake_suite;
	struct runner_settings rs = settings();
	struct optset opts;
	struct runner_item item = { .suite = &s, .opts = &opts, .test_mask = ~0ull };
	struct vmb_results res;
	const char *why;

	(void)state;
	s.tests = tests;
	s.scratch = &(const struct vmb_scratch){ .dir_opt = "depth" };
	assert_int_equal(vmb_suite_check(&s, &why), 0);
	assert_int_equal(optset_init(&opts, fake_opts, ""), 0);
	for (int with = 0; with < 2; with++) {
		memset(&fake, 0, sizeof(fake));
		fake.values[0] = 1;
		fake.nvalues = 1;
		rs.skip_fs = with ? "fs=none: no filesystem on the device under test" : NULL;
		assert_int_equal(runner_run(&rs, &item, 1, &res), 0);
		assert_int_equal(res.suites[0].ntests, 2);
		assert_int_equal(res.suites[0].tests[0].status, VMB_OK);
		assert_int_equal(res.suites[0].tests[1].status, with ? VMB_SKIPPED : VMB_OK);
		if (with) {
			assert_string_equal(res.suites[0].tests[1].reason, "fs=none: no filesystem on the device under test");
			assert_int_equal(res.suites[0].tests[1].ncases, 0);
		}
		vmb_results_release(&res);
	}
	optset_release(&opts);
	/* a test of a filesystem names the directory it works in, through the scratch */
	s.scratch = NULL;
	assert_int_equal(vmb_suite_check(&s, &why), -EINVAL);
	assert_non_null(strstr(why, "directory option"));
	s.scratch = &(const struct vmb_scratch){ .dir_opt = "nope" };
	assert_int_equal(vmb_suite_check(&s, &why), -EINVAL);
	assert_non_null(strstr(why, "scratch names an option"));
}

static void descriptor_checks(void **state)
{
	static const struct vmb_test bad_sweep[] = {
		{ .name = "x", .summary = "x", .headline = "r", .sweep = "nope", .run = fake_run }, { .name = NULL },
	};
	static const struct vmb_test bad_params[] = {
		{ .name = "x", .summary = "x", .headline = "r", .params = "depth,nope", .run = fake_run }, { .name = NULL },
	};
	/* every test holds the function that runs it */
	static const struct vmb_test no_run[] = {
		{ .name = "x", .summary = "x", .headline = "r" }, { .name = NULL },
	};
	struct vmb_suite s;
	const char *why;

	(void)state;
	assert_int_equal(vmb_suite_check(&fake_suite, &why), 0);
	s = fake_suite;
	s.abi = VMB_SUITE_ABI + 1;
	assert_int_equal(vmb_suite_check(&s, &why), -EINVAL);
	assert_non_null(strstr(why, "interface version"));
	s = fake_suite;
	s.tests = no_run;
	assert_int_equal(vmb_suite_check(&s, &why), -EINVAL);
	assert_non_null(strstr(why, "run()"));
	s = fake_suite;
	s.name = "a.b";
	assert_int_equal(vmb_suite_check(&s, &why), -EINVAL);
	s = fake_suite;
	s.tests = bad_sweep;
	assert_int_equal(vmb_suite_check(&s, &why), -EINVAL);
	assert_non_null(strstr(why, "sweep"));
	s = fake_suite;
	s.tests = bad_params;
	assert_int_equal(vmb_suite_check(&s, &why), -EINVAL);
	assert_non_null(strstr(why, "params"));
	/* flags: known ones only; a lab-only suite says why it does not run here */
	s = fake_suite;
	s.flags = 1u << 7;
	assert_int_equal(vmb_suite_check(&s, &why), -EINVAL);
	assert_non_null(strstr(why, "unknown suite flags"));
	s = fake_suite;
	s.flags = VMB_SUITE_LAB_ONLY;
	s.tests = no_run;
	assert_int_equal(vmb_suite_check(&s, &why), -EINVAL);
	assert_non_null(strstr(why, "lab-only suite needs supported()"));
	s.supported = never;
	assert_int_equal(vmb_suite_check(&s, &why), 0);
	/* the lab measures a lab-only suite: a run() of its would only pretend */
	s.tests = fake_suite.tests;
	assert_int_equal(vmb_suite_check(&s, &why), -EINVAL);
	assert_non_null(strstr(why, "lab-only suite has a run()"));
	/* the lab's fields name options the suite has */
	s = fake_suite;
	s.db_opt = "nope";
	assert_int_equal(vmb_suite_check(&s, &why), -EINVAL);
	assert_non_null(strstr(why, "db_opt"));
	s.db_opt = NULL;
	s.mirror = &(const struct vmb_mirror){ .test = "nope", .url_opt = "nope" };
	assert_int_equal(vmb_suite_check(&s, &why), -EINVAL);
	assert_non_null(strstr(why, "mirror"));
	s.mirror = NULL;
	s.host = &(const struct vmb_host_needs){ .loads = { "cpu" } };
	assert_int_equal(vmb_suite_check(&s, &why), -EINVAL);
	assert_non_null(strstr(why, "host-measured"));
}

/* boot runs only under the lab, and systemd only when named (it reads a
 * boot): a run naming no suite leaves them out (boot was listed as skipped
 * in every result); the others run by default, and every suite of the
 * table passes the descriptor checks. */
static void lab_only_suites(void **state)
{
	(void)state;
	for (size_t i = 0; i < vmb_nsuites; i++) {
		const char *why;

		if (vmb_suite_check(vmb_suites[i], &why) < 0)
			fail_msg("suite %s: %s", vmb_suites[i]->name, why);
		assert_int_equal(suites_runs_by_default(vmb_suites[i]),
				 !(vmb_suites[i]->flags & (VMB_SUITE_LAB_ONLY | VMB_SUITE_ON_REQUEST)));
	}
	assert_false(suites_runs_by_default(suites_find("boot")));
	assert_false(suites_runs_by_default(suites_find("systemd")));
	assert_true(suites_runs_by_default(suites_find("cpu")));
	assert_true(suites_runs_by_default(suites_find("disk")));
}

/* Ctrl-C keeps the cases already finished: the first sweep case is kept
 * whole, the one cut short is left out, the tests after it do not run. */
static void interrupted_keeps_finished_cases(void **state)
{
	struct runner_settings rs = settings();
	struct optset opts;
	struct runner_item item = { .suite = &fake_suite, .opts = &opts };
	struct vmb_results res;
	const struct vmb_test_result *t;

	(void)state;
	memset(&fake, 0, sizeof(fake));
	fake.values[0] = 1;
	fake.nvalues = 1;
	assert_int_equal(optset_init(&opts, fake_opts, "fake."), 0);
	item.test_mask = 1u << 5;
	assert_int_equal(runner_run(&rs, &item, 1, &res), -EINTR);
	assert_int_equal(res.nsuites, 1);
	assert_int_equal(res.suites[0].status, VMB_INTERRUPTED);
	assert_int_equal(res.suites[0].ntests, 1);
	t = &res.suites[0].tests[0];
	assert_int_equal(t->status, VMB_INTERRUPTED);
	assert_int_equal(t->ncases, 1);
	assert_string_equal(t->cases[0].params[0].value, "1");
	assert_int_equal(t->cases[0].reps, 3);
	assert_close(metric(&t->cases[0], "rate")->sum.mean, 1, 0);
	assert_int_equal(fake.runs, 4); /* 3 for depth=1, the one cut short at depth=4 */
	assert_int_equal(fake.teardowns, 1);
	vmb_results_release(&res);

	/* A stop requested before a case starts: not even its warm-up runs. */
	memset(&fake, 0, sizeof(fake));
	fake.values[0] = 1;
	fake.nvalues = 1;
	item.test_mask = 1u << 0;
	rs.warmup_s = 0.001;
	assert_int_equal(runner_run(&rs, &item, 1, &res), -EINTR);
	assert_int_equal(fake.runs, 0);
	assert_int_equal(res.suites[0].tests[0].ncases, 0);
	vmb_results_release(&res);
	vmb_stop_clear();
	optset_release(&opts);
}

/* Progress says which case of how many and the time left; a suite that
 * does not run here takes its cases out of the count. The lines for a
 * program (run --progress-fd) say the same steps, without the drawing. */
static void progress_counts_cases(void **state)
{
	struct vmb_suite absent = fake_suite;
	struct runner_settings rs = settings();
	struct optset opts;
	struct runner_item items[] = {
		{ .suite = &absent, .opts = &opts, .test_mask = 1u << 0 },
		{ .suite = &fake_suite, .opts = &opts, .test_mask = 1u << 4 },
	};
	struct vmb_results res;
	char *out = NULL, *lines = NULL;
	size_t len = 0, llen = 0;

	(void)state;
	memset(&fake, 0, sizeof(fake));
	fake.values[0] = 1;
	fake.nvalues = 1;
	absent.supported = never;
	rs.progress = true;
	rs.progress_file = open_memstream(&out, &len);
	rs.progress_lines = open_memstream(&lines, &llen);
	assert_non_null(rs.progress_file);
	assert_non_null(rs.progress_lines);
	assert_int_equal(optset_init(&opts, fake_opts, "fake."), 0);
	assert_int_equal(runner_run(&rs, items, 2, &res), 0);
	fclose(rs.progress_file);
	fclose(rs.progress_lines);
	assert_non_null(strstr(lines, "1/3 0 fake.sweep depth=1 repetition 1 (of 10 at most)\n"));
	assert_non_null(strstr(lines, "\n3/3 0 fake.sweep depth=32 repetition 3 (of 10 at most)\n"));
	assert_true(!strchr(lines, '\r') && !strchr(lines, '\033'));
	free(lines);
	assert_non_null(strstr(out, "[case 1/3, ~0 s left] fake.sweep depth=1  repetition 1 (of 10 at most)"));
	assert_non_null(strstr(out, "[case 2/3, "));
	assert_non_null(strstr(out, "[case 3/3, ~0 s left] fake.sweep depth=32  repetition 3"));
	assert_null(strstr(out, "/4,"));
	free(out);
	vmb_results_release(&res);
	optset_release(&opts);
}

/* The duration `vmbench list` states: the stop rule's bounds over the
 * cases, with the time a repetition spends beyond --time (a ramp). */
static void estimates(void **state)
{
	static const struct {
		double time, warmup, budget, extra;
		unsigned min, max;
		uint64_t mask;
		size_t ncases;
		double lo, hi;
	} cases[] = {
		/* sweep: 3 cases of (0.5 + 0.5) + 3..10 x 1.5 s */
		{ 1, 0.5, 60, 0.5, 3, 10, 1u << 4, 3, 3 * 5.5, 3 * 16 },
		/* the budget stops it at floor((10 - 1) / 1.5) = 6 repetitions */
		{ 1, 0.5, 10, 0.5, 3, 10, 1u << 4, 3, 3 * 5.5, 3 * 10 },
		/* a budget below min_reps: min_reps still run */
		{ 1, 0, 1, 0, 3, 10, 1u << 0, 1, 3, 3 },
		/* threaded: threads 1 (always), 2 and 4; no warm-up, no ramp */
		{ 2, 0, 60, 0, 2, 5, 1u << 3, 3, 3 * 4, 3 * 10 },
		/* steady + sweep: 4 cases */
		{ 1, 0, 60, 0, 3, 3, (1u << 0) | (1u << 4), 4, 12, 12 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct runner_settings rs = settings();
		struct optset opts;
		struct runner_item item = { .suite = &fake_suite, .opts = &opts, .test_mask = cases[i].mask };
		struct runner_estimate e;

		rs.time_s = cases[i].time;
		rs.warmup_s = cases[i].warmup;
		rs.budget_s = cases[i].budget;
		rs.min_reps = cases[i].min;
		rs.max_reps = cases[i].max;
		assert_int_equal(optset_init(&opts, fake_opts, "fake."), 0);
		assert_int_equal(runner_estimate(&rs, &item, 1, &cases[i].extra, &e), 0);
		assert_int_equal(e.ncases, cases[i].ncases);
		assert_close(e.min_s, cases[i].lo, 1e-9);
		assert_close(e.max_s, cases[i].hi, 1e-9);
		optset_release(&opts);
	}
}

static atomic_uint pool_ran;

/* A worker as the suites write them: its set-up, then the barrier. */
static void pool_fn(struct vmb_worker *w)
{
	atomic_fetch_add(&pool_ran, 1);
	vmb_worker_sync(w);
}

/* A worker whose pinning fails used to skip its function while the others
 * waited for it at the barrier forever. Now no worker runs and the failure
 * says which worker and CPU. alarm() turns a hang into a failure. */
static void pool_pinning(void **state)
{
	static const struct {
		unsigned cpus[2];
		size_t ncpus;
		unsigned n;
		int ret;
		unsigned ran;
		const char *reason;
	} cases[] = {
		{ { 0 }, 0, 3, 0, 3, "" },                 /* not pinned */
		{ { 0 }, 1, 2, 0, 2, "" },                 /* both on CPU 0 */
		{ { 0, CPU_SETSIZE - 1 }, 2, 2, -EINVAL, 0, "pinning worker 1 to CPU 1023" },
		{ { CPU_SETSIZE - 1 }, 1, 4, -EINVAL, 0, "pinning worker 0 to CPU 1023" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct vmb_ctx ctx = { .cpus = cases[i].ncpus ? cases[i].cpus : NULL, .ncpus = cases[i].ncpus };
		struct vmb_worker workers[4];

		atomic_store(&pool_ran, 0);
		(void)alarm(30);
		assert_int_equal(vmb_parallel(&ctx, cases[i].n, pool_fn, workers), cases[i].ret);
		(void)alarm(0);
		assert_int_equal(atomic_load(&pool_ran), cases[i].ran);
		assert_non_null(strstr(ctx.reason, cases[i].reason));
	}
}

/* What a suite says through its context: a note replaces the key's earlier
 * note, an actual value is added and the last one wins, each kept whole
 * however long (an app.db URL of 600 bytes is stored as given, not cut
 * short into another value); skip, usage and failure set the reason. */
static void notes_and_reasons(void **state)
{
	static const struct {
		int kind; /* 0 note, 1 actual value */
		const char *key;
		size_t repeat; /* the value is "v" and this many 'x' */
	} said[] = {
		{ 0, "mode", 1 }, { 1, "bs", 2 }, { 0, "mode", 3 }, { 1, "bs", 4 }, { 0, "long", 600 }, { 1, "wide", 100 }, { 1, "url", 650 },
	};
	static const struct {
		const char *key;
		size_t note_len, actual_len; /* 0: none */
	} want[] = {
		{ "mode", 4, 0 }, { "bs", 0, 5 }, { "long", 601, 0 }, { "wide", 0, 101 }, { "url", 0, 651 },
	};
	struct vmb_param *params = NULL;
	size_t n = 0;
	struct vmb_notes nt = { .params = &params, .n = &n };
	struct vmb_ctx ctx = { .notes = &nt };
	struct vmb_ctx bare = { 0 };
	char x[700];

	(void)state;
	memset(x, 'x', sizeof(x));
	for (size_t i = 0; i < sizeof(said) / sizeof(said[0]); i++) {
		int r = said[i].kind ? vmb_param_actual(&ctx, said[i].key, "v%.*s", (int)said[i].repeat, x)
				     : vmb_note(&ctx, said[i].key, "v%.*s", (int)said[i].repeat, x);

		assert_int_equal(r, 0);
	}
	assert_int_equal(n, 2);          /* "mode" once */
	assert_int_equal(nt.nactual, 4); /* "bs" twice */
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		const char *note = NULL, *actual = vmb_notes_actual(&nt, want[i].key);

		for (size_t k = 0; k < n; k++)
			if (!strcmp(params[k].key, want[i].key))
				note = params[k].value;
		assert_int_equal(note ? strlen(note) : 0, want[i].note_len);
		assert_int_equal(actual ? strlen(actual) : 0, want[i].actual_len);
	}
	/* without the runner's notes (a suite called on its own) nothing is kept */
	assert_int_equal(vmb_note(&bare, "k", "v"), 0);
	assert_int_equal(vmb_param_actual(&bare, "k", "v"), 0);
	assert_int_equal(vmb_skip(&ctx, "no %s here", "kvm"), -EOPNOTSUPP);
	assert_string_equal(ctx.reason, "no kvm here");
	assert_int_equal(vmb_usage(&ctx, "--size %d is too small", 1), -EINVAL);
	assert_string_equal(ctx.reason, "--size 1 is too small");
	assert_true(ctx.usage);
	assert_int_equal(vmb_fail(&ctx, EIO, "reading %s", "f"), -EIO);
	assert_string_equal(ctx.reason, "reading f: Input/output error");
	vmb_params_free(params, n);
	vmb_params_free(nt.actual, nt.nactual);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(stop_rule),
		cmocka_unit_test(warmup_until_steady),
		cmocka_unit_test(failures_are_isolated),
		cmocka_unit_test(report_errors_are_kept),
		cmocka_unit_test(closed_loop_bound),
		cmocka_unit_test(closed_loop_refused),
		cmocka_unit_test(threads_and_efficiency),
		cmocka_unit_test(sweeps),
		cmocka_unit_test(skipped_suite),
		cmocka_unit_test(descriptor_checks),
		cmocka_unit_test(fs_tests_skipped),
		cmocka_unit_test(lab_only_suites),
		cmocka_unit_test(pool_pinning),
		cmocka_unit_test(progress_counts_cases),
		cmocka_unit_test(estimates),
		cmocka_unit_test(interrupted_keeps_finished_cases),
		cmocka_unit_test(notes_and_reasons),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
