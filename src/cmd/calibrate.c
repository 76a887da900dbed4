/* vmbench calibrate: this machine's run-to-run noise for the selected cases.
 * Several short runs, each its own process (a run is the unit of
 * replication), the spread of their means stored beside the result store
 * with the machine's fingerprint key; compare then tests operands of one
 * run against it and prints the minimal detectable difference. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"
#include "../core/log.h"
#include "../core/spawn.h"
#include "../core/stats.h"
#include "../core/stop.h"
#include "../report/compare.h"
#include "../report/text.h"
#include "../store/calib.h"
#include "../store/db.h"
#include "../store/doc.h"
#include "../suites/suites.h"
#include "../core/banned.h"

const struct vmb_opt calibrate_opts[] = {
	{ .name = "runs", .type = OPT_INT, .min = 2, .max = 100, .def = "5", .metavar = "N",
	  .help = "short runs to measure, each a process of its own" },
	{ .name = "for-runs", .type = OPT_INT, .min = 1, .max = 1000, .def = "3", .metavar = "N",
	  .help = "print the smallest difference N runs a side can detect" },
	{ .name = "quick", .type = OPT_BOOL, .help = "each run as 'vmbench run --quick' (the cases compared must match)" },
	{ .name = "time", .type = OPT_DOUBLE, .min = 0.01, .max = 86400, .metavar = "SECONDS",
	  .help = "passed to each run: how long a repetition measures" },
	{ .name = "repeat", .type = OPT_INT, .min = 1, .max = 1000, .metavar = "N",
	  .help = "passed to each run: exactly N repetitions (as run takes it: 1 is enough, the noise is between runs)" },
	{ .name = "db", .type = OPT_STRING, .metavar = "PATH",
	  .help = "the result store whose calibrations this joins (they live in PATH.calibration/)" },
	{ .name = "quiet", .short_name = 'q', .type = OPT_BOOL, .help = "print errors only" },
	{ .name = "help", .short_name = 'h', .type = OPT_BOOL, .help = "show this help" },
	OPT_TABLE_END,
};

static int cmd_calibrate(const struct vmb_cmd *self, int argc, char **argv);

const struct vmb_cmd cmd_calibrate_desc = {
	.name = "calibrate",
	.fn = cmd_calibrate,
	.args = "[SUITE[.TEST]...] [OPTIONS]",
	.summary = "measure this machine's run-to-run noise, for compare to judge single runs by",
	.description = "Runs the selected suites or tests (all by default) --runs times, each time as a new "
		       "process, and stores the spread of the run means per case and metric with this machine's "
		       "fingerprint (CPU model, hypervisor, kernel, CPUs) beside the result store. compare uses it "
		       "when an operand has one run, and prints for every case the smallest difference that "
		       "--for-runs runs a side can tell from noise.",
	.opts = calibrate_opts,
	.max_args = CMD_ARGS_ANY,
};

/* A selection word names a suite, or a suite and a test. */
static int check_word(const struct vmb_cmd *self, const char *w)
{
	char name[64];
	const char *dot = strchr(w, '.');
	const struct vmb_suite *s;

	snprintf(name, sizeof(name), "%.*s", dot ? (int)(dot - w) : 63, w);
	s = suites_find(name);
	if (!s)
		return cmd_usage_error(self, "unknown suite '%s' (see 'vmbench list')", name);
	if (dot && suites_test_index(s, dot + 1) < 0)
		return cmd_usage_error(self, "unknown test '%s' in suite %s (see 'vmbench list')", dot + 1, s->name);
	return CMD_CONTINUE;
}

/* One run: `vmbench run WORDS --no-store --json PATH -q [passed options]`. */
static int one_run(const struct optset *own, const struct strv *words, const char *path)
{
	char *argv[64], timebuf[32], repbuf[32];
	size_t n = 0;

	argv[n++] = "vmbench";
	argv[n++] = "run";
	for (size_t i = 0; i < words->n && n < 40; i++)
		argv[n++] = words->v[i];
	argv[n++] = "--no-store";
	argv[n++] = "-q";
	argv[n++] = "--json";
	argv[n++] = (char *)path;
	if (optset_bool(own, "quick"))
		argv[n++] = "--quick";
	if (optset_get(own, "time")->set) {
		snprintf(timebuf, sizeof(timebuf), "%.17g", optset_double(own, "time"));
		argv[n++] = "--time";
		argv[n++] = timebuf;
	}
	if (optset_get(own, "repeat")->set) {
		snprintf(repbuf, sizeof(repbuf), "%lld", (long long)optset_int(own, "repeat"));
		argv[n++] = "--repeat";
		argv[n++] = repbuf;
	}
	argv[n] = NULL;
	return run_capture("/proc/self/exe", argv, NULL, NULL);
}

/* One entry per row of the table built from the runs (one operand). */
static json_t *entries(const struct cmp_table *t, const char *machine, unsigned for_runs, bool print)
{
	json_t *cases = json_array();

	for (size_t i = 0; cases && i < t->nrows; i++) {
		const struct cmp_row *r = &t->rows[i];
		const struct cmp_cell *c = &r->cells[0];
		double cv, mdd;
		char params[400];

		if (c->nruns < 2 || !(fabs(c->rsum.mean) > 0))
			continue;
		cv = c->rsum.stddev / fabs(c->rsum.mean);
		if (!isfinite(cv) || cv > 10)
			continue;
		mdd = stats_mdd_pct(cv, for_runs, (double)c->nruns - 1);
		if (json_array_append_new(cases, json_pack("{s:s, s:s, s:s, s:s, s:s, s:I, s:I, s:f, s:f, s:I}",
			"machine", machine, "suite", r->suite, "test", r->test, "params", r->params, "metric", r->metric,
			"runs", (json_int_t)c->nruns, "reps", (json_int_t)c->reps_max, "cv_between", cv, "mdd_pct",
			isfinite(mdd) ? mdd : 0, "for_runs", (json_int_t)for_runs)) < 0) {
			/* no calibration rather than one silently missing a case */
			log_error("calibration of %s.%s %s: out of memory", r->suite, r->test, r->metric);
			json_decref(cases);
			return NULL;
		}
		if (print && r->headline) {
			cmp_row_params(r, params, sizeof(params));
			printf("%s.%s%s%s %s: run-to-run noise %.1f%%; differences under %.1f%% cannot be told from noise "
			       "with %u run%s a side\n", r->suite, r->test, *params ? " " : "", params, r->metric, cv * 100,
			       mdd, for_runs, for_runs == 1 ? "" : "s");
		}
	}
	return cases;
}

static int cmd_calibrate(const struct vmb_cmd *self, int argc, char **argv)
{
	struct optset own;
	struct strv words;
	struct cmp_table t;
	char tmpl[4096], db_path[4096], dir[4200], saved[4400], machine[512];
	const char *tmp = getenv("TMPDIR");
	json_t *docs = NULL, *cal = NULL, *cases;
	unsigned nruns, for_runs;
	bool quiet;
	int ret, r;

	cmp_table_init(&t, suites_find);
	tmpl[0] = '\0';
	ret = cmd_parse(self, argc, argv, &own, NULL, &words);
	if (ret != CMD_CONTINUE)
		goto out;
	for (size_t i = 0; i < words.n && ret == CMD_CONTINUE; i++)
		ret = check_word(self, words.v[i]);
	if (ret != CMD_CONTINUE)
		goto out;
	if (words.n > 32) {
		ret = cmd_usage_error(self, "at most 32 suites or tests at once");
		goto out;
	}
	if (db_default_path(optset_str(&own, "db"), db_path, sizeof(db_path)) < 0 ||
	    calib_dir(db_path, dir, sizeof(dir)) < 0) {
		ret = cmd_usage_error(self, "no place for the calibration: set --db, VMBENCH_DB or HOME");
		goto out;
	}
	/* where the result goes takes it, before any run is measured for it */
	r = calib_writable(dir);
	if (r < 0) {
		ret = cmd_usage_error(self, "the calibration cannot be stored in %s: %s; nothing was measured: give --db "
				      "a store in a directory you can write", dir, strerror(-r));
		goto out;
	}
	quiet = optset_bool(&own, "quiet");
	nruns = (unsigned)optset_int(&own, "runs");
	for_runs = (unsigned)optset_int(&own, "for-runs");
	snprintf(tmpl, sizeof(tmpl), "%s/vmbench-calibrate-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(tmpl)) {
		log_errno(-errno, "creating a temporary directory %s", tmpl);
		tmpl[0] = '\0';
		ret = EXIT_FAILED;
		goto out;
	}
	docs = json_array();
	for (unsigned k = 1; k <= nruns && docs; k++) {
		char path[4200], err[512];
		json_t *doc;

		if (vmb_stop_requested()) {
			ret = EXIT_INTERRUPTED;
			goto out;
		}
		if (!quiet)
			log_info("calibrating: run %u of %u", k, nruns);
		snprintf(path, sizeof(path), "%s/r%u.json", tmpl, k);
		r = one_run(&own, &words, path);
		if (r < 0 && access(path, F_OK) != 0) {
			log_error("run %u of %u failed; see 'vmbench run' with the same selection for why", k, nruns);
			ret = EXIT_FAILED;
			goto out;
		}
		r = doc_load_file(path, &doc, err, sizeof(err));
		(void)unlink(path);
		if (r < 0) {
			log_error("run %u of %u: %s", k, nruns, err);
			ret = EXIT_FAILED;
			goto out;
		}
		if (k == 1)
			cmp_fingerprint_key(json_object_get(doc, "fingerprint"), machine, sizeof(machine));
		if (json_array_append_new(docs, doc) < 0) {
			log_error("run %u of %u: out of memory", k, nruns);
			ret = EXIT_FAILED;
			goto out;
		}
	}
	if (!docs || cmp_add_operand(&t, "calibration", docs) < 0) {
		docs = NULL;
		ret = EXIT_FAILED;
		goto out;
	}
	docs = NULL;
	if (cmp_build(&t) < 0) {
		ret = EXIT_FAILED;
		goto out;
	}
	cases = entries(&t, machine, for_runs, !quiet);
	cal = json_pack("{s:s, s:i, s:s, s:I, s:o}", "schema", CALIB_SCHEMA, "schema_version", CALIB_SCHEMA_VERSION,
			"machine", machine, "runs", (json_int_t)nruns, "cases", cases);
	if (!cal || !json_array_size(cases)) {
		log_error("nothing to calibrate: no case produced a value in every run");
		ret = EXIT_FAILED;
		goto out;
	}
	r = calib_save(dir, cal, saved, sizeof(saved));
	if (r < 0) {
		ret = EXIT_FAILED;
		goto out;
	}
	if (!quiet) {
		size_t ncases = 0, headline = 0;

		/* what was printed above is the headline metrics; every metric is stored */
		for (size_t i = 0; i < t.nrows; i++) {
			ncases += !i || strcmp(t.rows[i].suite, t.rows[i - 1].suite) || strcmp(t.rows[i].test, t.rows[i - 1].test) ||
				  strcmp(t.rows[i].params, t.rows[i - 1].params);
			headline += t.rows[i].headline && t.rows[i].cells[0].nruns >= 2;
		}
		printf("stored the run-to-run noise of %zu metrics (the %zu headline ones above, and the others) of %zu "
		       "case%s for %s in %s\n", json_array_size(cases), headline, ncases, ncases == 1 ? "" : "s", machine,
		       saved);
	}
	ret = EXIT_OK;
out:
	if (tmpl[0])
		(void)rmdir(tmpl);
	json_decref(docs);
	json_decref(cal);
	cmp_table_release(&t);
	cmd_release(&own, NULL, &words);
	return ret;
}
