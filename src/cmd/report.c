/* vmbench report: one self-contained HTML page for the given runs. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"
#include "../core/log.h"
#include "../report/compare.h"
#include "../report/html.h"
#include "../suites/suites.h"
#include "../core/banned.h"

const struct vmb_opt report_opts[] = {
	{ .name = "output", .short_name = 'o', .type = OPT_STRING, .metavar = "FILE",
	  .help = "the HTML file to write (a new file; - for stdout)" },
	{ .name = "title", .type = OPT_STRING, .def = "vmbench report", .metavar = "TEXT", .help = "the page title" },
	{ .name = "baseline", .type = OPT_STRING, .metavar = "OPERAND", .help = "as for compare" },
	{ .name = "db", .type = OPT_STRING, .metavar = "PATH", .help = "the result store" },
	{ .name = "help", .short_name = 'h', .type = OPT_BOOL, .help = "show this help" },
	OPT_TABLE_END,
};

static int cmd_report(const struct vmb_cmd *self, int argc, char **argv);

const struct vmb_cmd cmd_report_desc = {
	.name = "report",
	.fn = cmd_report,
	.args = "A [B...] -o FILE.html",
	.summary = "write one self-contained HTML page: comparison tables, charts, fingerprints",
	.description = "Operands as for compare. The page needs no network: charts are inline SVG (bars with "
		       "95% CI, curves over a swept parameter such as queue depth or threads, latency "
		       "percentiles on a log axis), and each run's fingerprint is in a collapsible section.",
	.opts = report_opts,
	.min_args = 1,
	.max_args = CMD_ARGS_ANY,
};

static int cmd_report(const struct vmb_cmd *self, int argc, char **argv)
{
	struct optset own;
	struct strv pos;
	struct cmp_table t;
	const char *out;
	char *html = NULL;
	size_t len = 0;
	FILE *mem = NULL;
	int ret, r;

	cmp_table_init(&t, suites_find);
	ret = cmd_parse(self, argc, argv, &own, NULL, &pos);
	if (ret != CMD_CONTINUE)
		goto out;
	out = optset_str(&own, "output");
	if (!out) {
		ret = cmd_usage_error(self, "where to? give -o report.html (or -o - for stdout)");
		goto out;
	}
	if (strcmp(out, "-") && access(out, F_OK) == 0) {
		ret = cmd_usage_error(self, "-o: '%s' exists; vmbench writes only new files, choose another name", out);
		goto out;
	}
	ret = cmd_build_table(self, &pos, optset_str(&own, "db"), optset_str(&own, "baseline"), &t);
	if (ret != CMD_CONTINUE)
		goto out;
	mem = open_memstream(&html, &len);
	if (!mem || html_report(mem, &t, optset_str(&own, "title")) < 0 || fclose(mem) != 0) {
		mem = NULL;
		ret = EXIT_FAILED;
		log_error("out of memory writing the report");
		goto out;
	}
	mem = NULL;
	if (!strcmp(out, "-"))
		r = file_write_stdout(html, len);
	else
		r = file_write_new(out, html, len);
	if (r < 0) {
		log_errno(r, "writing '%s'", out);
		ret = EXIT_FAILED;
		goto out;
	}
	if (strcmp(out, "-"))
		log_info("wrote %s (%zu bytes)", out, len);
	ret = EXIT_OK;
out:
	if (mem)
		fclose(mem);
	free(html);
	cmp_table_release(&t);
	cmd_release(&own, NULL, &pos);
	return ret;
}
