/* vmbench list: suites, tests and options, from the descriptors. */
#include <stdio.h>

#include "cmd.h"
#include "../core/runner.h"
#include "../core/sys.h"
#include "../suites/suites.h"
#include "../core/banned.h"

const struct vmb_opt list_opts[] = {
	{ .name = "help", .short_name = 'h', .type = OPT_BOOL, .help = "show this help" },
	OPT_TABLE_END,
};

static void duration_text(double s, char *buf, size_t len)
{
	if (s < 89.5)
		snprintf(buf, len, "%.0f s", s);
	else
		snprintf(buf, len, "%.0f min", s / 60);
}

/* How long a run of everything takes, from the option defaults: the stop
 * rule's bounds, not a promise (set-up and iozone take what the disk needs). */
static void print_durations(void)
{
	static const struct {
		bool quick;
		const char *what;
	} runs[] = { { false, "vmbench run" }, { true, "vmbench run --quick" } };

	for (size_t i = 0; i < ARRAY_SIZE(runs); i++) {
		struct runner_estimate e;
		char lo[32], hi[32];

		if (run_estimate(runs[i].quick, &e) < 0)
			continue;
		duration_text(e.min_s, lo, sizeof(lo));
		duration_text(e.max_s, hi, sizeof(hi));
		printf("%-20s %zu cases on this machine's %u CPUs, %s to %s by the option defaults\n", runs[i].what,
		       e.ncases, cpus_available(), lo, hi);
	}
	printf("%-20s (a test whose repetitions have a length of their own, as net's and vmexit's, takes less; the\n"
	       "%-20s disk suite's set-up and iozone passes take as long as the disk takes)\n\n", "", "");
}

static int cmd_list(const struct vmb_cmd *self, int argc, char **argv);

const struct vmb_cmd cmd_list_desc = {
	.name = "list",
	.fn = cmd_list,
	.args = "",
	.summary = "list suites, their tests and options",
	.opts = list_opts,
	.max_args = 0,
};

static int cmd_list(const struct vmb_cmd *self, int argc, char **argv)
{
	struct optset own;
	struct strv pos;
	int ret;

	ret = cmd_parse(self, argc, argv, &own, NULL, &pos);
	if (ret != CMD_CONTINUE)
		goto out;
	print_durations();
	for (size_t i = 0; i < vmb_nsuites; i++) {
		const struct vmb_suite *s = vmb_suites[i];
		char prefix[48];

		printf("%s — %s\n", s->name, s->summary);
		for (const struct vmb_test *t = s->tests; t->name; t++)
			printf("  %s.%-12s %s [%s%s]\n", s->name, t->name, t->summary, t->headline,
			       t->flags & VMB_TEST_THREADED ? ", per --threads" : "");
		if (s->opts && s->opts[0].name) {
			snprintf(prefix, sizeof(prefix), "%s.", s->name);
			printf(" options:\n");
			opts_print_help(stdout, s->opts, prefix);
		}
		if (i + 1 < vmb_nsuites)
			putchar('\n');
	}
	ret = EXIT_OK;
out:
	cmd_release(&own, NULL, &pos);
	return ret;
}
