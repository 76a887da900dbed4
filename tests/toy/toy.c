/* The toy suite: a suite built only for tests (tests/meson.build's
 * vmbench-toy), added exactly as docs/extending.md says a suite is added,
 * so that tests/cli/toy.sh can run it end to end (list, run, store,
 * compare, report) with values it knows in advance. It measures nothing of
 * the machine: "level" reports --toy.level as it is, "spread" a latency
 * histogram of --toy.count values from --toy.level ns upwards, one ns
 * apart, so that every figure a test reads back is exact; "loop" a closed
 * loop of one connection at --toy.level requests/s, each in flight 1 ms,
 * so that above 1,050/s the runner refuses it (Little's law). */
#include <errno.h>

#include "../../src/core/suite.h"
#include "../../src/core/banned.h"

static int toy_run_level(struct vmb_ctx *ctx, const struct vmb_test *test, struct vmb_rep *rep)
{
	(void)test;
	vmb_rep_value(rep, "level", VMB_UNIT_PER_S, VMB_HIGHER, optset_double(ctx->opts, "level"));
	return 0;
}

static int toy_run_spread(struct vmb_ctx *ctx, const struct vmb_test *test, struct vmb_rep *rep)
{
	uint64_t base = (uint64_t)optset_double(ctx->opts, "level");
	int64_t count = optset_int(ctx->opts, "count");
	struct hist *h = hist_new();

	(void)test;
	if (!h)
		return vmb_fail(ctx, -ENOMEM, "a histogram");
	for (int64_t i = 0; i < count; i++)
		hist_record(h, base + (uint64_t)i);
	vmb_rep_hist(rep, "latency", VMB_UNIT_NS, h);
	hist_free(h);
	return 0;
}

static int toy_run_loop(struct vmb_ctx *ctx, const struct vmb_test *test, struct vmb_rep *rep)
{
	struct hist *h = hist_new();

	(void)test;
	if (!h)
		return vmb_fail(ctx, -ENOMEM, "a histogram");
	hist_record(h, 1000000);
	vmb_rep_value(rep, "requests_per_s", VMB_UNIT_PER_S, VMB_HIGHER, optset_double(ctx->opts, "level"));
	vmb_rep_hist(rep, "latency", VMB_UNIT_NS, h);
	vmb_rep_closed_loop(rep, "requests_per_s", "latency", 1, "connection");
	hist_free(h);
	return 0;
}

static const struct vmb_test toy_tests[] = {
	{ .name = "level", .summary = "reports --toy.level per second, as it is",
	  .headline = "level", .run = toy_run_level },
	{ .name = "spread", .summary = "a latency histogram of --toy.count values from --toy.level ns",
	  .headline = "latency", .params = "count", .run = toy_run_spread },
	{ .name = "loop", .summary = "a closed loop of one connection: --toy.level requests/s, each 1 ms",
	  .headline = "requests_per_s", .run = toy_run_loop },
	{ .name = NULL },
};

static const struct vmb_opt toy_opts[] = {
	{ .name = "level", .type = OPT_DOUBLE, .min = 1, .max = 1e9, .def = "100", .metavar = "N",
	  .help = "level: the value reported; spread: the first latency, in ns; loop: requests/s" },
	{ .name = "count", .type = OPT_INT, .min = 1, .max = 100000, .def = "100", .metavar = "N",
	  .help = "spread: values in the histogram" },
	OPT_TABLE_END,
};

const struct vmb_suite toy_suite = {
	.name = "toy",
	.summary = "a suite for tests only: reports the values it is given",
	.abi = VMB_SUITE_ABI,
	.tests = toy_tests,
	.opts = toy_opts,
};
