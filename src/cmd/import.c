/* vmbench import: other tools' results (the formats of src/store/import.c) into the store. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "../core/log.h"
#include "../store/db.h"
#include "../store/doc.h"
#include "../store/import.h"
#include "../store/label.h"
#include "../core/banned.h"

const struct vmb_opt import_opts[] = {
	{ .name = "label", .type = OPT_KV, .metavar = "KEY=VALUE",
	  .help = "tag the imported run (source=TOOL is added), e.g. --label hv=vmware" },
	{ .name = "param", .type = OPT_KV, .metavar = "KEY=VALUE",
	  .help = "state a parameter the tool's output does not print (the formats below say which)" },
	{ .name = "keep-lab-labels", .type = OPT_BOOL,
	  .help = "a vmbench document of a lab session (saved from another machine's store): keep the labels the "
		  "lab set (" LABEL_LAB_KEYS "); without it such a document is refused, so that no file claims a "
		  "lab session or a study unasked. --label never sets them" },
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
	.args = "FILE|- [FIO_LOG]... [--label KEY=VALUE]...",
	.summary = "store results of the peer tools, or a vmbench result file, as vmbench runs",
	.description = "The format is detected from the content; 'vmbench import --help' lists the formats "
		       "vmbench imports. The metrics get the names vmbench uses for the same measurement (fio "
		       "randread iops -> disk.randread iops with the same parameters), so old measurements "
		       "compare with new ones; the run is labelled source=TOOL. Every value is validated "
		       "against the result schema before anything is stored. After a fio JSON, the FIO_LOG "
		       "files of the same run (write_iops_log, write_lat_log, write_bw_log with log_avg_msec, "
		       "as fio names them: PREFIX_iops.JOB.log, _lat, _clat, _slat, _bw; e.g. 'vmbench import "
		       "out.json rr_*.log') become series of the job's case: iops (1/s), latency, clat, slat "
		       "(ns) and mb_per_s (MB/s), read_ and write_ before them for randrw; an empty log (fio "
		       "writes no slat for a synchronous engine) is noted and adds none.",
	.opts = import_opts,
	.min_args = 1,
	.max_args = 1 + IMPORT_FIO_LOGS_MAX,
};

static int cmd_import(const struct vmb_cmd *self, int argc, char **argv)
{
	struct optset own;
	struct strv pos;
	struct db *db = NULL;
	struct import_result res = { 0 };
	const char *json = NULL, *file;
	json_t *doc = NULL;
	char *text = NULL, err[1024], path[4096];
	struct import_file *logs = NULL;
	size_t nlogs = 0;
	int ret, r;

	ret = cmd_parse(self, argc, argv, &own, NULL, &pos);
	if (ret != CMD_CONTINUE) {
		if (ret == EXIT_OK && optset_bool(&own, "help")) {
			/* the formats come from the importers' table */
			printf("\nformats (detected from the content):\n");
			for (size_t i = 0; import_format_at(i); i++) {
				const struct import_format *f = import_format_at(i);

				printf("  %-16s %s", f->tool, f->input);
				if (f->param)
					printf("; --param %s=%s (not in the output: '%s' without it)", f->param,
					       f->choices, IMPORT_UNSTATED);
				printf("\n");
			}
		}
		goto out;
	}
	ret = cmd_check_user_labels(self, &optset_get(&own, "label")->kv);
	if (ret != CMD_CONTINUE)
		goto out;
	file = pos.v[0];
	json = optset_str(&own, "json");
	r = read_file_or_stdin(file, &text);
	if (r < 0) {
		ret = cmd_usage_error(self, "%s: %s", file, strerror(-r));
		goto out;
	}
	logs = calloc(pos.n, sizeof(*logs));
	if (!logs) {
		ret = EXIT_FAILED;
		goto out;
	}
	for (size_t i = 1; i < pos.n; i++) {
		char *lt;

		if (!strcmp(pos.v[i], "-")) {
			ret = cmd_usage_error(self, "a fio log is a file, not '-'");
			goto out;
		}
		r = read_file_or_stdin(pos.v[i], &lt);
		if (r < 0) {
			ret = cmd_usage_error(self, "%s: %s", pos.v[i], strerror(-r));
			goto out;
		}
		if (!lt[strspn(lt, " \t\r\n")]) {
			log_info("%s: empty, no series from it", pos.v[i]);
			free(lt);
			continue;
		}
		logs[nlogs++] = (struct import_file){ .name = pos.v[i], .text = lt };
	}
	r = import_parse(text, strcmp(file, "-") ? file : "stdin",
			 &(struct import_opts){ .labels = &optset_get(&own, "label")->kv,
						.params = &optset_get(&own, "param")->kv,
						.lab_labels = optset_bool(&own, "keep-lab-labels"),
						.fio_logs = logs, .nfio_logs = nlogs },
			 &res, err, sizeof(err));
	if (r < 0) {
		log_error("%s", err);
		ret = r == -ENOMEM ? EXIT_FAILED : EXIT_USAGE;
		goto out;
	}
	doc = res.doc;
	if (res.skipped)
		log_info("%s: skipped %u line%s that %s not part of the %s JSON", file, res.skipped,
			 res.skipped == 1 ? "" : "s", res.skipped == 1 ? "is" : "are", res.tool);
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
		if (!strcmp(res.tool, "vmbench")) {
			/* a colleague's run imported twice is the same run */
			const char *uuid = json_string_value(json_object_get(doc, "id"));
			json_t *old = NULL;
			bool same = db_get(db, uuid, &old) == 0 &&
				    !strcmp(json_string_value(json_object_get(old, "id")) ?: "", uuid);

			json_decref(old);
			if (same) {
				log_error("%s: run %s is already in %s", file, uuid, path);
				ret = EXIT_USAGE;
				goto out;
			}
		}
		if (db_add(db, doc, &id) < 0) {
			ret = EXIT_FAILED;
			goto out;
		}
		fprintf(json && !strcmp(json, "-") ? stderr : stdout, "imported %s results from %s as run %lld in %s\n",
			res.tool, file, (long long)id, path);
	}
out:
	for (size_t i = 0; i < nlogs; i++)
		free((char *)logs[i].text);
	free(logs);
	json_decref(doc);
	db_close(db);
	free(text);
	cmd_release(&own, NULL, &pos);
	return ret;
}
