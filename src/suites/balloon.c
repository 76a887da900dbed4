/* Balloon suite: how long a guest's memory balloon takes to give the host
 * memory and to take it back. The host drives it (QMP's balloon command)
 * and times it (query-balloon), so only the lab (src/lab/balloon.c) can
 * measure it: here it is declared like any suite, its tests, options and
 * headline, and says why it does not run anywhere else.
 * docs/methodology.md defines what is timed. */
#include <stddef.h>

#include "balloon.h"
#include "../core/banned.h"

static const char balloon_why[] = "a balloon is driven and timed from the host: 'vmbench lab run --suites balloon' "
				  "with the matrix key balloon=on measures it";

static int balloon_supported(const struct vmb_env *env, const char **why)
{
	(void)env;
	*why = balloon_why;
	return 0;
}


static const struct vmb_test balloon_tests[] = {
	{ .name = BALLOON_TEST_IDLE, .summary = "inflate by --balloon.size and deflate back, the guest idle: seconds each",
	  .headline = BALLOON_INFLATE "," BALLOON_DEFLATE, .params = "size" },
	{ .name = BALLOON_TEST_LOADED, .summary = "the same while the guest runs " BALLOON_LOAD ", whose bandwidth is beside",
	  .headline = BALLOON_INFLATE "," BALLOON_DEFLATE, .params = "size" },
	{ .name = NULL },
};

static const struct vmb_opt balloon_opts[] = {
	{ .name = "size", .type = OPT_SIZE, .min = 0, .max = 1ull << 40, .def = "0", .metavar = "SIZE",
	  .help = "how much the balloon takes from the guest (0: a quarter of the configuration's mem); less than mem" },
	{ .name = "timeout", .type = OPT_DOUBLE, .min = 1, .max = 3600, .def = "60", .metavar = "SECONDS",
	  .help = "how long an inflate or deflate may take: a guest whose balloon is not there by then fails the test" },
	OPT_TABLE_END,
};

const struct vmb_suite balloon_suite = {
	.name = "balloon",
	.summary = "memory balloon inflate and deflate times, idle and under " BALLOON_LOAD " (measured by 'vmbench "
		   "lab run' only)",
	.abi = VMB_SUITE_ABI,
	.flags = VMB_SUITE_LAB_ONLY,
	.tests = balloon_tests,
	.opts = balloon_opts,
	.supported = balloon_supported,
	.host = &(const struct vmb_host_needs){ .loads = { BALLOON_LOAD } },
};
