/* Argument parsing and help shared by the subcommands. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "../core/log.h"
#include "../suites/suites.h"
#include "../core/banned.h"

int cmd_argc;
char **cmd_argv;

const struct vmb_cmd *cmd_find(const char *name)
{
	for (const struct vmb_cmd *c = vmb_cmds; c->name; c++)
		if (!strcmp(c->name, name))
			return c;
	return NULL;
}

int cmd_usage_error(const struct vmb_cmd *c, const char *fmt, ...)
{
	va_list ap;

	fputs("vmbench: error: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nsee 'vmbench %s --help'\n", c ? c->name : "");
	return EXIT_USAGE;
}

void cmd_print_help(const struct vmb_cmd *c)
{
	printf("usage: vmbench %s %s\n\n%s\n\n", c->name, c->args, c->summary);
	if (c->description)
		printf("%s\n\n", c->description);
	printf("options:\n");
	opts_print_help(stdout, c->opts, "");
	if (c->flags & CMD_SUITE_OPTS)
		printf("\nsuite options (--SUITE.OPTION VALUE): see 'vmbench list'\n");
}

void cmd_apply_verbosity(const struct optset *own)
{
	if (optset_bool(own, "quiet"))
		log_set_level(LOG_ERROR);
	else if (optset_bool(own, "verbose"))
		log_set_level(LOG_DEBUG);
	else
		log_set_level(LOG_INFO);
}

int cmd_parse(const struct vmb_cmd *c, int argc, char **argv, struct optset *own,
	      struct optset *suite_sets, struct strv *positional)
{
	struct optset *sets;
	char err[512];
	size_t n = 1;
	int r;

	memset(own, 0, sizeof(*own));
	memset(positional, 0, sizeof(*positional));
	if (suite_sets)
		memset(suite_sets, 0, vmb_nsuites * sizeof(*suite_sets));
	sets = calloc(1 + vmb_nsuites, sizeof(*sets));
	if (!sets || optset_init(own, c->opts, "") < 0) {
		free(sets);
		return EXIT_FAILED;
	}
	sets[0] = *own;
	for (size_t i = 0; (c->flags & CMD_SUITE_OPTS) && suite_sets && i < vmb_nsuites; i++) {
		char prefix[48];

		snprintf(prefix, sizeof(prefix), "%s.", vmb_suites[i]->name);
		if (optset_init(&suite_sets[i], vmb_suites[i]->opts, prefix) < 0) {
			free(sets);
			return EXIT_FAILED;
		}
		sets[n++] = suite_sets[i];
	}
	/* The copies in sets share their value arrays with own and suite_sets. */
	r = opts_parse(argc, argv, sets, n, positional, err, sizeof(err));
	free(sets);
	if (r < 0)
		return cmd_usage_error(c, "%s", err);
	if (optset_bool(own, "help")) {
		cmd_print_help(c);
		return EXIT_OK;
	}
	if (c->max_args >= 0 && positional->n > (size_t)c->max_args)
		return cmd_usage_error(c, "unexpected argument '%s'", positional->v[c->max_args]);
	if (positional->n < (size_t)c->min_args)
		return cmd_usage_error(c, "missing argument: vmbench %s %s", c->name, c->args);
	return -1;
}

void cmd_release(struct optset *own, struct optset *suite_sets, struct strv *positional)
{
	optset_release(own);
	for (size_t i = 0; suite_sets && i < vmb_nsuites; i++)
		optset_release(&suite_sets[i]);
	strv_clear(positional);
}
