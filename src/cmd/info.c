/* vmbench info: the environment fingerprint. */
#include <stdio.h>

#include "cmd.h"
#include "../core/log.h"
#include "../probe/probe.h"
#include "../report/text.h"
#include "../core/banned.h"

const struct vmb_opt info_opts[] = {
	{ .name = "json", .type = OPT_BOOL, .help = "print the fingerprint as JSON" },
	{ .name = "root", .type = OPT_STRING, .def = "/", .metavar = "DIR",
	  .help = "probe a recorded /proc and /sys tree below DIR instead of this machine" },
	{ .name = "help", .short_name = 'h', .type = OPT_BOOL, .help = "show this help" },
	OPT_TABLE_END,
};

static int cmd_info(const struct vmb_cmd *self, int argc, char **argv);

const struct vmb_cmd cmd_info_desc = {
	.name = "info",
	.fn = cmd_info,
	.args = "[--json]",
	.summary = "show what this machine is: hypervisor, CPU, memory, devices and drivers",
	.description = "The same fingerprint is stored with every result.",
	.opts = info_opts,
	.max_args = 0,
};

static int cmd_info(const struct vmb_cmd *self, int argc, char **argv)
{
	struct optset own;
	struct strv pos;
	json_t *fp = NULL;
	int ret;

	ret = cmd_parse(self, argc, argv, &own, NULL, &pos);
	if (ret != CMD_CONTINUE)
		goto out;
	fp = probe_fingerprint(&(struct probe_src){ .root = optset_str(&own, "root") });
	if (!fp) {
		log_error("out of memory probing the environment");
		ret = EXIT_FAILED;
		goto out;
	}
	if (optset_bool(&own, "json")) {
		if (json_dumpf(fp, stdout, JSON_INDENT(2)) < 0 || putchar('\n') == EOF) {
			ret = EXIT_FAILED;
			goto out;
		}
	} else {
		text_print_fingerprint(stdout, fp);
	}
	ret = fflush(stdout) == 0 ? EXIT_OK : EXIT_FAILED;
out:
	json_decref(fp);
	cmd_release(&own, NULL, &pos);
	return ret;
}
