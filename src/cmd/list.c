/* vmbench list: suites, tests and options, from the descriptors. */
#include <stdio.h>

#include "cmd.h"
#include "../suites/suites.h"
#include "../core/banned.h"

const struct vmb_opt list_opts[] = {
	{ .name = "help", .short_name = 'h', .type = OPT_BOOL, .help = "show this help" },
	OPT_TABLE_END,
};

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
