/* vmbench compare: runs side by side, gap and significance per metric. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"
#include "../core/log.h"
#include "../report/compare.h"
#include "../report/text.h"
#include "../store/calib.h"
#include "../store/db.h"
#include "../suites/suites.h"
#include "../core/banned.h"

const struct vmb_opt compare_opts[] = {
	{ .name = "baseline", .type = OPT_STRING, .metavar = "OPERAND",
	  .help = "the operand the others are compared with (its word or its position, 1-based); default the first" },
	{ .name = "suite", .type = OPT_STRING, .metavar = "NAME", .help = "only this suite's metrics" },
	{ .name = "metric", .type = OPT_STRING, .metavar = "GLOB",
	  .help = "only metrics whose name (or suite.test.name) matches, e.g. 'latency.p99' (every latency metric "
		  "has .p50 .p90 .p95 .p99 .p99.9 per repetition), '*.p99' or 'disk.*.iops'" },
	{ .name = "margin", .type = OPT_DOUBLE, .min = 0, .max = 100, .def = "5", .metavar = "PCT",
	  .help = "equivalence margin: 'same' when the 90% CI of the difference lies within +-PCT% of the "
		  "baseline (two one-sided tests); 0 for no equivalence verdict" },
	{ .name = "pair-by", .type = OPT_STRING, .def = CMP_PAIR_AUTO, .metavar = "KEY",
	  .help = "pair runs measured together and compare them round by round (the per-round ratio, paired t; "
		  "from 6 to 16 rounds an exact sign-flip test must agree): 'auto' pairs the rounds of one run "
		  "group (lab run --rounds, run --runs), 'round' the same round number of any groups (or label "
		  "round=N of runs interleaved by hand), a label KEY "
		  "the runs with the same value of it, 'none' never (Welch on run means)" },
	{ .name = "stat", .type = OPT_STRING, .def = "mean", .choices = "mean|trimmed|median", .metavar = "STAT",
	  .help = "also show each cell's trimmed mean (the run means without the largest and the smallest) or "
		  "median, and its gap, for studies that report them: descriptive, labelled, never the verdict" },
	{ .name = "no-calibration", .type = OPT_BOOL,
	  .help = "ignore this machine's stored calibration (vmbench calibrate) for operands of one run" },
	{ .name = "all", .type = OPT_BOOL, .help = "every metric, not only each test's headline metrics" },
	{ .name = "format", .type = OPT_STRING, .def = "text", .choices = "text|markdown|csv|json", .metavar = "FMT",
	  .help = "output format" },
	{ .name = "fail-if-worse", .type = OPT_DOUBLE, .min = 0, .max = 1e9, .metavar = "PCT",
	  .help = "exit 1 if a metric is significantly worse than the baseline, at the level of runs, by more than "
		  "PCT percent (one run a side fails only with a stored calibration)" },
	{ .name = "db", .type = OPT_STRING, .metavar = "PATH", .help = "the result store" },
	{ .name = "help", .short_name = 'h', .type = OPT_BOOL, .help = "show this help" },
	OPT_TABLE_END,
};

static int cmd_compare(const struct vmb_cmd *self, int argc, char **argv);

const struct vmb_cmd cmd_compare_desc = {
	.name = "compare",
	.fn = cmd_compare,
	.args = "A B [C...] [OPTIONS]",
	.summary = "compare runs: mean, 95% CI, gap to the baseline and its significance, per metric",
	.description = "Each operand is a result file, a stored run (number or id prefix), or a label selector "
		       "(hv=kvm or disk=sata,host=lab1) whose matching runs are pooled, each a run. Metrics are "
		       "paired only when suite, test and parameters (threads, queue depth, block size...) are equal; "
		       "a metric present on one side only is listed as such. A run (one process, one boot) is the "
		       "unit of replication: each run's mean is one sample, and a difference is significant when "
		       "the 95% confidence interval of the difference excludes zero: round by round when the runs were "
		       "measured in the same rounds (the per-round log ratio, paired t; see --pair-by), else of the "
		       "run means (Welch). Each cell shows one mean and one interval, the ones its verdict used. With one "
		       "run on a side nothing is called significant unless 'vmbench calibrate' stored this "
		       "machine's run-to-run noise. Beside every 'no significant difference' stands the minimal "
		       "detectable difference (mdd: found 80% of the time with these runs).",
	.opts = compare_opts,
	.min_args = 2,
	.max_args = CMD_ARGS_ANY,
};

/* Shared with report: load every operand word into a table. */
int cmd_build_table(const struct vmb_cmd *self, const struct strv *words, const char *db_opt, const char *baseline,
		    struct cmp_table *t)
{
	struct db *db = NULL;
	int ret = CMD_CONTINUE;

	cmp_table_init(t, suites_find);
	for (size_t i = 0; i < words->n && ret == CMD_CONTINUE; i++) {
		char name[256];
		json_t *docs;

		ret = cmd_load_operand(self, words->v[i], db_opt, &db, &docs, name, sizeof(name));
		if (ret == CMD_CONTINUE && cmp_add_operand(t, name, docs) < 0)
			ret = EXIT_FAILED;
	}
	db_close(db);
	if (ret != CMD_CONTINUE)
		return ret;
	if (baseline) {
		int64_t k;

		t->baseline = SIZE_MAX;
		for (size_t i = 0; i < words->n; i++)
			if (!strcmp(words->v[i], baseline))
				t->baseline = i;
		if (t->baseline == SIZE_MAX && parse_i64(baseline, 1, (int64_t)words->n, &k) == 0)
			t->baseline = (size_t)k - 1;
		if (t->baseline == SIZE_MAX)
			return cmd_usage_error(self, "--baseline '%s' is not one of the operands (give its word or its position)",
					       baseline);
	}
	{
		/* this machine's stored run-to-run noise, for operands of one run */
		char dbp[4096], dir[4200];

		if (db_default_path(db_opt, dbp, sizeof(dbp)) == 0 && calib_dir(dbp, dir, sizeof(dir)) == 0)
			t->calibration = calib_load(dir);
	}
	/* lab results are repeated by lab run --rounds, not run --runs */
	t->origin = t->nops ? CMP_FROM_LAB : CMP_FROM_RUN;
	for (size_t o = 0; o < t->nops; o++) {
		size_t i;
		json_t *doc;

		json_array_foreach(t->ops[o].docs, i, doc)
			if (!cmd_lab_doc(doc))
				t->origin = CMP_FROM_RUN;
	}
	if (cmp_build(t) < 0) {
		log_error("out of memory comparing");
		return EXIT_FAILED;
	}
	return CMD_CONTINUE;
}

static enum cmp_format format_of(const char *s)
{
	return !strcmp(s, "markdown") ? CMP_MARKDOWN : !strcmp(s, "csv") ? CMP_CSV : !strcmp(s, "json") ? CMP_JSON : CMP_TEXT;
}

static int cmd_compare(const struct vmb_cmd *self, int argc, char **argv)
{
	struct optset own;
	struct strv pos;
	struct cmp_table t;
	struct cmp_filter flt;
	enum cmp_format fmt;
	int ret;

	cmp_table_init(&t, suites_find);
	ret = cmd_parse(self, argc, argv, &own, NULL, &pos);
	if (ret != CMD_CONTINUE)
		goto out;
	ret = cmd_build_table(self, &pos, optset_str(&own, "db"), optset_str(&own, "baseline"), &t);
	if (ret != CMD_CONTINUE)
		goto out;
	t.margin_pct = optset_double(&own, "margin");
	t.pair_by = optset_str(&own, "pair-by");
	if (!cmp_pair_by_valid(t.pair_by)) {
		ret = cmd_usage_error(self, "--pair-by '%s': give auto, round, none or a label's key (letters, digits, "
				      "'_', '-', '.')", t.pair_by);
		goto out;
	}
	t.stat = !strcmp(optset_str(&own, "stat"), "trimmed") ? CMP_STAT_TRIMMED
		 : !strcmp(optset_str(&own, "stat"), "median") ? CMP_STAT_MEDIAN : CMP_STAT_MEAN;
	if (optset_bool(&own, "no-calibration")) {
		json_decref(t.calibration);
		t.calibration = NULL;
	}
	flt = (struct cmp_filter){ .suite = optset_str(&own, "suite"), .metric_glob = optset_str(&own, "metric"),
				   .all = optset_bool(&own, "all") };
	{
		size_t selected = 0;

		for (size_t i = 0; i < t.nrows; i++)
			selected += cmp_row_selected(&t.rows[i], &flt);
		/* a typo in a filter must not make a CI gate pass on nothing */
		if (!selected) {
			ret = cmd_usage_error(self, "no metric of these runs matches%s%s%s%s", flt.suite ? " --suite " : "",
					      flt.suite ? flt.suite : "", flt.metric_glob ? " --metric " : "",
					      flt.metric_glob ? flt.metric_glob : "");
			goto out;
		}
	}
	fmt = format_of(optset_str(&own, "format"));
	if (fmt == CMP_TEXT) {
		/* the finding first, as report and lab report say it */
		char lead[2048];

		if (cmp_lead_sentence(&t, lead, sizeof(lead)))
			text_wrap(stdout, lead, text_width(stdout, 120), 4);
	}
	ret = cmp_print(stdout, &t, &flt, fmt,
			fmt == CMP_TEXT && isatty(STDOUT_FILENO) && !getenv("NO_COLOR")) < 0 ? EXIT_FAILED : EXIT_OK;
	if (ret == EXIT_OK && optset_get(&own, "fail-if-worse")->set) {
		double pct = optset_double(&own, "fail-if-worse");
		size_t n;

		fflush(stdout);
		fprintf(stderr, "vmbench: checking for significant regressions over %g%% against %s\n", pct,
			t.ops[t.baseline].name);
		n = cmp_regressions(stderr, &t, &flt, pct);
		if (n) {
			fprintf(stderr, "vmbench: %zu metric%s significantly worse than the baseline by more than %g%%\n", n,
				n == 1 ? " is" : "s are", pct);
			ret = EXIT_FAILED;
		}
	}
out:
	cmp_table_release(&t);
	cmd_release(&own, NULL, &pos);
	return ret;
}
