/* vmbench: global options and dispatch. The subcommands are descriptors,
 * one per file in src/cmd/, listed in src/cmd/list.h. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cmd/cmd.h"
#include "core/log.h"
#include "core/sys.h"
#include "lab/hostmeasure.h"
#include "lab/hv.h"
#include "lab/matrix.h"
#include "suites/suites.h"
#include "core/banned.h"

#ifndef VMB_VERSION
#define VMB_VERSION "0"
#endif

#ifdef VMB_STATIC_BUILD
const bool vmb_static_build = true;
#endif

/* A broken descriptor is a programming error: refuse to start (fio check_engine_ops). */
static int check_suites(void)
{
	for (size_t i = 0; i < vmb_nsuites; i++) {
		const char *why;

		if (vmb_suite_check(vmb_suites[i], &why) < 0) {
			log_error("internal error: suite '%s': %s", vmb_suites[i]->name ? vmb_suites[i]->name : "?", why);
			return -1;
		}
	}
	return 0;
}

/* The lab's tables (matrix keys, device models, profiles, the hypervisor
 * back end's hooks) likewise. */
static int check_lab_tables(void)
{
	char why[256];

	if (lab_tables_check(suites_find, why, sizeof(why)) < 0 ||
	    lab_host_check(vmb_suites, vmb_nsuites, why, sizeof(why)) < 0 ||
	    lab_hv_check(lab_hv_default(), why, sizeof(why)) < 0) {
		log_error("internal error: lab tables: %s", why);
		return -1;
	}
	return 0;
}

/* Output that did not reach its file is a failure like any other: the
 * last buffered bytes are only written here (a full disk shows only now).
 * A command that failed has said why; one that succeeded learns it here. */
static int finish_stdout(int ret)
{
	int err = 0, before = errno;

	errno = 0;
	if (fflush(stdout) != 0 || ferror(stdout))
		err = errno ? errno : cmd_stdout_why(before);
	errno = 0;
	if (fclose(stdout) != 0 && !err)
		err = errno ? errno : EIO;
	if (!err || ret != EXIT_OK)
		return ret;
	/* a reader that went away (| head) is no news to the user */
	if (err != EPIPE)
		log_error("writing the output: %s", strerror(err));
	return EXIT_FAILED;
}

static int run_main(int argc, char **argv)
{
	const struct vmb_cmd *c;

	cmd_argc = argc;
	cmd_argv = argv;
	log_set_level(LOG_INFO);
	if (check_suites() < 0 || check_lab_tables() < 0 || cmd_check_all() < 0)
		return EXIT_FAILED;
	if (argc < 2) {
		cmd_main_usage(stderr);
		return EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V")) {
		printf("vmbench %s%s\n", VMB_VERSION, vmb_static_build ? " (static: no shared library)" : "");
		return EXIT_OK;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		cmd_main_usage(stdout);
		return EXIT_OK;
	}
	c = cmd_find(argv[1]);
	if (!c) {
		const struct vmb_cmd *best = NULL;
		size_t bd = 3;

		for (const struct vmb_cmd *const *k = vmb_cmds; *k; k++)
			if (str_distance(argv[1], (*k)->name) < bd)
				bd = str_distance(argv[1], (*k)->name), best = *k;
		log_error("unknown command '%s'%s%s%s", argv[1],
			best ? "; did you mean '" : "", best ? best->name : "", best ? "'?" : "");
		cmd_main_usage(stderr);
		return EXIT_USAGE;
	}
	return c->fn(c, argc - 2, argv + 2);
}

int main(int argc, char **argv)
{
	return finish_stdout(run_main(argc, argv));
}
