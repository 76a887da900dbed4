/* vmbench results: stored runs, one line each. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "../core/log.h"
#include "../store/db.h"
#include "../core/banned.h"

const struct vmb_opt results_opts[] = {
	{ .name = "label", .type = OPT_KV, .metavar = "KEY=VALUE",
	  .help = "only runs with this label (repeatable: all must match)" },
	{ .name = "db", .type = OPT_STRING, .metavar = "PATH", .help = "the result store" },
	{ .name = "help", .short_name = 'h', .type = OPT_BOOL, .help = "show this help" },
	OPT_TABLE_END,
};

static int print_row(const struct db_row *row, void *arg)
{
	unsigned *count = arg;
	char uuid8[9];

	snprintf(uuid8, sizeof(uuid8), "%s", row->uuid ? row->uuid : "");
	printf("%-5lld %-8s %-20s %-16s %-12s %-24s %s\n", (long long)row->id, uuid8, row->started,
	       row->host ? row->host : "-", row->hypervisor ? row->hypervisor : "-",
	       row->labels && *row->labels ? row->labels : "-", row->suites);
	(*count)++;
	return cmd_stdout_check(false);
}

int cmd_results(const struct vmb_cmd *self, int argc, char **argv)
{
	struct optset own;
	struct strv pos;
	struct db *db = NULL;
	char path[4096];
	unsigned count = 0;
	int ret, r;

	ret = cmd_parse(self, argc, argv, &own, NULL, &pos);
	if (ret >= 0)
		goto out;
	if (db_default_path(optset_str(&own, "db"), path, sizeof(path)) < 0) {
		ret = cmd_usage_error(self, "no result store: set --db, VMBENCH_DB or HOME");
		goto out;
	}
	r = db_open(path, false, &db);
	if (r == -ENOENT) {
		printf("no results stored yet in %s; 'vmbench run' stores one\n", path);
		ret = EXIT_OK;
		goto out;
	}
	if (r < 0) {
		ret = db_usage_error(r) ? EXIT_USAGE : EXIT_FAILED;
		goto out;
	}
	printf("%-5s %-8s %-20s %-16s %-12s %-24s %s\n", "RUN", "ID", "STARTED", "HOST", "HYPERVISOR", "LABELS",
	       "SUITES");
	r = db_list(db, &optset_get(&own, "label")->kv, print_row, &count);
	ret = r < 0 ? EXIT_FAILED : EXIT_OK;
out:
	db_close(db);
	cmd_release(&own, NULL, &pos);
	return ret;
}
