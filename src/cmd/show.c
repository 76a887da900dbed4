/* vmbench show: one result, from the store or a file, as a table or JSON. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cmd.h"
#include "../core/log.h"
#include "../report/compare.h"
#include "../report/series.h"
#include "../report/text.h"
#include "../store/db.h"
#include "../store/doc.h"
#include "../core/banned.h"

const struct vmb_opt show_opts[] = {
	{ .name = "json", .type = OPT_BOOL, .help = "print the result document as JSON" },
	{ .name = "all", .type = OPT_BOOL,
	  .help = "every metric, also secondary ones whose 95% confidence interval is wider than their value" },
	{ .name = "series", .type = OPT_BOOL,
	  .help = "the series over time instead of the metrics: per case and repetition, its points, time span, "
		  "min, mean, max and a sparkline" },
	{ .name = "db", .type = OPT_STRING, .metavar = "PATH", .help = "the result store" },
	{ .name = "help", .short_name = 'h', .type = OPT_BOOL, .help = "show this help" },
	OPT_TABLE_END,
};

static int cmd_show(const struct vmb_cmd *self, int argc, char **argv);

const struct vmb_cmd cmd_show_desc = {
	.name = "show",
	.fn = cmd_show,
	.args = "RUN|FILE|- [--json|--series]",
	.summary = "show one result from the store (run number or id prefix) or from a file",
	.opts = show_opts,
	.min_args = 1,
	.max_args = 1,
};

static int load_stdin(json_t **doc)
{
	char *text, err[512];
	int r = read_file_or_stdin("-", &text);

	if (r < 0)
		return log_errno(r, "reading stdin");
	r = doc_load_string(text, "stdin", doc, err, sizeof(err));
	if (r < 0)
		log_error("%s", err);
	free(text);
	return r;
}

static int cmd_show(const struct vmb_cmd *self, int argc, char **argv)
{
	struct optset own;
	struct strv pos;
	struct db *db = NULL;
	json_t *doc = NULL;
	const char *ref;
	struct stat st;
	char path[4096], err[512];
	int ret, r;

	ret = cmd_parse(self, argc, argv, &own, NULL, &pos);
	if (ret != CMD_CONTINUE)
		goto out;
	ref = pos.v[0];
	if (optset_bool(&own, "json") && optset_bool(&own, "series")) {
		ret = cmd_usage_error(self, "--json and --series: the document holds the series; give one of them");
		goto out;
	}
	ret = EXIT_FAILED;
	if (!strcmp(ref, "-")) {
		r = load_stdin(&doc);
		if (r < 0) {
			ret = r == -EINVAL ? EXIT_USAGE : EXIT_FAILED;
			goto out;
		}
	} else if (stat(ref, &st) == 0 || strchr(ref, '/') || strstr(ref, ".json")) {
		r = doc_load_file(ref, &doc, err, sizeof(err));
		if (r < 0) {
			log_error("%s", err);
			/* a file that is not a result is the user's mistake (a directory,
			 * a device without end), as compare and report say too */
			ret = r == -EINVAL || r == -ENOENT || r == -EISDIR || r == -EFBIG ? EXIT_USAGE : EXIT_FAILED;
			goto out;
		}
	} else {
		if (db_default_path(optset_str(&own, "db"), path, sizeof(path)) < 0) {
			ret = cmd_usage_error(self, "no result store: set --db, VMBENCH_DB or HOME");
			goto out;
		}
		r = db_open(path, false, &db);
		if (r == -ENOENT)
			log_error("no result store at %s, and no file '%s'", path, ref);
		if (r < 0) {
			ret = db_usage_error(r) ? EXIT_USAGE : EXIT_FAILED;
			goto out;
		}
		r = db_get(db, ref, &doc);
		if (r == -ENOENT)
			log_error("no run '%s' in %s (and no such file); 'vmbench results' lists the runs", ref, path);
		if (r < 0) {
			/* -EBADMSG, an unreadable stored document, is the store's fault: 1 */
			ret = r == -ENOENT || r == -EINVAL ? EXIT_USAGE : EXIT_FAILED;
			goto out;
		}
	}
	if (optset_bool(&own, "json"))
		r = doc_write_file(doc, "-");
	else if (optset_bool(&own, "series")) {
		series_print_text(stdout, doc);
		r = cmd_stdout_check(true);
	} else {
		text_print_result_all(stdout, doc, optset_bool(&own, "all"));
		if (doc_interrupted(doc))
			puts("interrupted: this run holds only the cases finished before it was stopped");
		if (json_object_get(doc, "lab_failure")) {
			json_t *rec = doc_lab_failure(doc);

			puts("a lab run's failed boot (no measurement):");
			if (rec)
				cmp_print_failure(stdout, rec);
			json_decref(rec);
		}
		r = cmd_stdout_check(true);
	}
	ret = r < 0 ? EXIT_FAILED : EXIT_OK;
out:
	json_decref(doc);
	db_close(db);
	cmd_release(&own, NULL, &pos);
	return ret;
}
