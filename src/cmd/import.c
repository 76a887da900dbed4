/* vmbench import: fio, iperf3 and sysbench results into the store. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "../core/log.h"
#include "../store/db.h"
#include "../store/doc.h"
#include "../store/import.h"
#include "../core/banned.h"

const struct vmb_opt import_opts[] = {
	{ .name = "label", .type = OPT_KV, .metavar = "KEY=VALUE",
	  .help = "tag the imported run (source=TOOL is added), e.g. --label hv=vmware" },
	{ .name = "json", .type = OPT_STRING, .metavar = "FILE|-", .help = "also write the document to a new FILE or stdout" },
	{ .name = "db", .type = OPT_STRING, .metavar = "PATH", .help = "the result store" },
	{ .name = "no-store", .type = OPT_BOOL, .help = "do not store it (with --json: only convert)" },
	{ .name = "help", .short_name = 'h', .type = OPT_BOOL, .help = "show this help" },
	OPT_TABLE_END,
};

static int cmd_import(const struct vmb_cmd *self, int argc, char **argv);

const struct vmb_cmd cmd_import_desc = {
	.name = "import",
	.fn = cmd_import,
	.args = "FILE|- [--label KEY=VALUE]...",
	.summary = "store fio (--output-format=json), iperf3 (-J) or sysbench cpu/memory results as vmbench runs",
	.description = "The metrics get the names vmbench uses for the same measurement (fio randread iops ->"
		       " disk.randread iops with the same parameters), so old measurements compare with new "
		       "ones; the run is labelled source=fio (iperf3, sysbench-cpu, sysbench-memory).",
	.opts = import_opts,
	.min_args = 1,
	.max_args = 1,
};

static int cmd_import(const struct vmb_cmd *self, int argc, char **argv)
{
	struct optset own;
	struct strv pos;
	struct db *db = NULL;
	json_t *doc = NULL;
	const char *tool, *json = NULL, *file;
	char *text = NULL, err[768], path[4096];
	int ret, r;

	ret = cmd_parse(self, argc, argv, &own, NULL, &pos);
	if (ret != CMD_CONTINUE)
		goto out;
	file = pos.v[0];
	json = optset_str(&own, "json");
	r = read_file_or_stdin(file, &text);
	if (r < 0) {
		ret = cmd_usage_error(self, "%s: %s", file, strerror(-r));
		goto out;
	}
	if (import_parse(text, strcmp(file, "-") ? file : "stdin", &optset_get(&own, "label")->kv, &doc, &tool, err,
			 sizeof(err)) < 0) {
		log_error("%s", err);
		ret = EXIT_USAGE;
		goto out;
	}
	ret = EXIT_OK;
	if (json && doc_write_file(doc, json) < 0) {
		log_error("--json: '%s' exists or cannot be written", json);
		ret = EXIT_FAILED;
	}
	if (!optset_bool(&own, "no-store")) {
		int64_t id;

		if (db_default_path(optset_str(&own, "db"), path, sizeof(path)) < 0) {
			ret = cmd_usage_error(self, "no result store: set --db, VMBENCH_DB or HOME");
			goto out;
		}
		r = db_open(path, true, &db);
		if (r < 0) {
			ret = db_usage_error(r) ? EXIT_USAGE : EXIT_FAILED;
			goto out;
		}
		if (db_add(db, doc, &id) < 0) {
			ret = EXIT_FAILED;
			goto out;
		}
		fprintf(json && !strcmp(json, "-") ? stderr : stdout, "imported %s results from %s as run %lld in %s\n",
			tool, file, (long long)id, path);
	}
out:
	json_decref(doc);
	db_close(db);
	free(text);
	cmd_release(&own, NULL, &pos);
	return ret;
}
