/* vmbench run: measure the selected suites, store and show the result (the
 * interleaved rounds of --runs: run_rounds.c; where the result goes:
 * run_output.c). */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/random.h>

#include "cmd.h"
#include "../core/run_opts.h"
#include "run_output.h"
#include "run_rounds.h"
#include "../core/clock.h"
#include "../core/log.h"
#include "../core/runner.h"
#include "../probe/probe.h"
#include "../report/summary.h"
#include "../report/text.h"
#include "../store/db.h"
#include "../store/doc.h"
#include "../suites/suites.h"
#include "../core/bgload.h"
#include "../core/str.h"
#include "../core/banned.h"

const struct vmb_opt run_opts[] = {
	{ .name = "quick", .type = OPT_BOOL,
	  .help = "a short run of everything: every option's --quick default applies unless given ('vmbench list' "
		  "says how many cases the quick and the default run have on this machine and how long they take)" },
	RUN_MEASURE_OPTS,
	{ .name = "runs", .type = OPT_STRING, .def = "1", .metavar = "N|auto",
	  .help = "N runs (1 to 1000) in interleaved rounds: every selected test once per round, in an order "
		  "shuffled per round; each round is a run (the unit compare tests on), all stored under one run "
		  "group. auto: rounds until every headline is decided (one side: its minimal detectable difference "
		  "at most --mdd, the rule lab run --rounds auto has), or until --budget-total would run out; it says "
		  "which case held the rounds back" },
	RUN_AUTO_OPTS,
	{ .name = "seed", .type = OPT_INT, .min = 0, .max = 4294967295LL, .metavar = "N",
	  .help = "the seed of the rounds' shuffled order (default from the clock; recorded in every document)" },
	{ .name = "label", .type = OPT_KV, .metavar = "KEY=VALUE",
	  .help = "tag the run, e.g. --label hv=kvm --label disk=virtio" },
	{ .name = "json", .type = OPT_STRING, .metavar = "FILE|-",
	  .help = "also write the result document to a new FILE, or to stdout with -" },
	{ .name = "db", .type = OPT_STRING, .metavar = "PATH",
	  .help = "the result store (default $VMBENCH_DB, else $XDG_DATA_HOME/vmbench/results.db)" },
	{ .name = "no-store", .type = OPT_BOOL, .help = "do not store the result" },
	{ .name = "destructive", .type = OPT_BOOL,
	  .help = "allow write tests on a block device given to a suite (destroys its data)" },
	{ .name = "progress-fd", .type = OPT_INT, .min = 3, .max = 1023, .metavar = "FD",
	  .help = "also write the progress to this open descriptor, a line per step: 'CASE/CASES LEFT SUITE.TEST "
		  "DETAIL', LEFT the seconds the run is expected to take still (what the lab's agent sends the host)" },
	{ .name = "skip-fs-tests", .type = OPT_STRING, .metavar = "WHY",
	  .help = "skip the tests that measure a filesystem through files of their own (disk.iozone, app.files, "
		  "app.oltp_*, app.build) with WHY as the reason: the lab gives it to a guest whose disk under test "
		  "has no filesystem (fs=none)" },
	{ .name = "load", .type = OPT_INT, .min = 0, .max = 100, .def = "0", .metavar = "PCT",
	  .help = "a background load beside the run: one spinner thread per CPU, busy PCT% of every 10 ms and "
		  "asleep the rest; each suite's notes say what was asked and what the spinners got (lab contend "
		  "gives it to its guests)" },
	{ .name = "quiet", .short_name = 'q', .type = OPT_BOOL, .help = "print errors only" },
	{ .name = "verbose", .short_name = 'v', .type = OPT_BOOL, .help = "print debugging details" },
	{ .name = "help", .short_name = 'h', .type = OPT_BOOL, .help = "show this help" },
	OPT_TABLE_END,
};

static int cmd_run(const struct vmb_cmd *self, int argc, char **argv);

const struct vmb_cmd cmd_run_desc = {
	.name = "run",
	.fn = cmd_run,
	.args = "[SUITE[.TEST]...] [OPTIONS]",
	.summary = "measure this machine and store the result",
	.description = "Runs the named suites or tests (all by default; as words, or one word with commas: "
		       "'run cpu mem' or 'run cpu,mem'). Each test runs an uncounted warm-up, "
		       "then repetitions until the 95% confidence interval of its headline metric is within "
		       "--precision of the mean (between --min-reps and --max-reps, within --budget). The "
		       "result is printed, stored in the result store and, with --json, written as a document. "
		       "With --runs N the selection runs N times in interleaved rounds (each round's order "
		       "shuffled, the seed recorded), one document per round: with --json FILE.json they go to "
		       "FILE-r1.json, FILE-r2.json, ...",
	.opts = run_opts,
	.flags = CMD_SUITE_OPTS,
	.max_args = CMD_ARGS_ANY,
};

static bool cpu_allowed(unsigned cpu)
{
	cpu_set_t set;

	if (sched_getaffinity(0, sizeof(set), &set) < 0)
		return true; /* cannot tell: let pinning report it */
	return cpu < CPU_SETSIZE && CPU_ISSET(cpu, &set);
}

/* Positional words select suites and tests: "cpu", "cpu.prime". */
static int select_items(const struct vmb_cmd *self, const struct strv *words, const struct optset *suite_sets,
			struct runner_item *items, size_t *nitems)
{
	uint64_t masks[64] = { 0 }, named[64] = { 0 };
	struct strv list = { 0 };
	char why[512];
	int r = suites_parse_items(words->v, words->n, &list, why, sizeof(why));
	bool any = list.n > 0;

	if (r < 0) {
		strv_clear(&list);
		return r == -ENOMEM ? EXIT_FAILED : cmd_usage_error(self, "%s", why);
	}
	for (size_t w = 0; w < list.n; w++) {
		char name[64];
		const char *dot = strchr(list.v[w], '.');
		const struct vmb_suite *s;
		size_t idx;

		/* every item is one of the table's (suites_parse_items) */
		snprintf(name, sizeof(name), "%.*s", dot ? (int)(dot - list.v[w]) : 63, list.v[w]);
		s = suites_find(name);
		for (idx = 0; vmb_suites[idx] != s; idx++)
			;
		if (!dot) {
			masks[idx] = ~0ull;
			continue;
		}
		masks[idx] |= 1ull << suites_test_index(s, dot + 1);
		named[idx] |= 1ull << suites_test_index(s, dot + 1);
	}
	strv_clear(&list);
	*nitems = 0;
	for (size_t i = 0; i < vmb_nsuites; i++)
		if (any ? masks[i] != 0 : suites_runs_by_default(vmb_suites[i]))
			items[(*nitems)++] = (struct runner_item){
				.suite = vmb_suites[i], .opts = &suite_sets[i], .test_mask = any ? masks[i] : ~0ull,
				.named_mask = named[i],
			};
	return CMD_CONTINUE;
}

/* --quick: every row's quick default, for the command and the suites. */
static int apply_quick(struct optset *own, struct optset *suite_sets)
{
	if (!optset_bool(own, "quick"))
		return 0;
	if (optset_apply_quick(own) < 0)
		return -EINVAL;
	for (size_t i = 0; i < vmb_nsuites; i++)
		if (optset_apply_quick(&suite_sets[i]) < 0)
			return -EINVAL;
	return 0;
}

/* The runner's settings from the command's options (after --quick; quick:
 * whether it was given, which a lab request says outside own). */
static void settings_from(const struct optset *own, bool quick, struct runner_settings *rs)
{
	rs->time_s = optset_double(own, "time");
	rs->warmup_s = optset_double(own, "warmup");
	/* unless given: four times the warm-up (its cost grows with it), and
	 * in --quick the warm-up itself (one slice, unjudged, as it was) */
	rs->warmup_max_s = optset_get(own, "warmup-max")->set ? optset_double(own, "warmup-max")
			   : quick				 ? rs->warmup_s
								 : 4 * rs->warmup_s;
	rs->budget_s = optset_double(own, "budget");
	rs->precision_pct = optset_double(own, "precision");
	rs->min_reps = (unsigned)optset_int(own, "min-reps");
	rs->max_reps = (unsigned)optset_int(own, "max-reps");
	if (optset_get(own, "repeat")->set)
		rs->min_reps = rs->max_reps = (unsigned)optset_int(own, "repeat");
	rs->threads = optset_get(own, "threads")->list;
	rs->nthreads = optset_get(own, "threads")->nlist;
}

int run_estimate(bool quick, struct runner_estimate *out)
{
	struct optset own, *sets = calloc(vmb_nsuites, sizeof(*sets));
	struct runner_item items[64];
	double extra[64] = { 0 };
	struct runner_settings rs = { 0 };
	size_t n = 0;
	int r = -ENOMEM;

	if (!sets)
		return -ENOMEM;
	if (optset_init(&own, run_opts, "") < 0)
		goto out_sets;
	for (size_t i = 0; i < vmb_nsuites && n < ARRAY_SIZE(items); i++) {
		const struct vmb_suite *s = vmb_suites[i];
		char prefix[48];

		if (!suites_runs_by_default(s)) /* what a run naming no suite runs */
			continue;
		snprintf(prefix, sizeof(prefix), "%s.", s->name);
		if (optset_init(&sets[n], s->opts, prefix) < 0 || (quick && optset_apply_quick(&sets[n]) < 0))
			goto out;
		items[n] = (struct runner_item){ .suite = s, .opts = &sets[n], .test_mask = ~0ull };
		/* time a repetition spends beyond --time, as its suite's rows say */
		for (size_t k = 0; s->opts && s->opts[k].name; k++)
			if (s->opts[k].rep_overhead)
				extra[n] += optset_double(&sets[n], s->opts[k].name);
		n++;
	}
	if (quick && optset_apply_quick(&own) < 0)
		goto out;
	settings_from(&own, optset_bool(&own, "quick"), &rs);
	r = runner_estimate(&rs, items, n, extra, out);
out:
	for (size_t i = 0; i < n; i++)
		optset_release(&sets[i]);
	optset_release(&own);
out_sets:
	free(sets);
	return r;
}

int run_estimate_items(const char *items, const struct optset *own, const struct optset *suite_sets, bool quick,
		       struct runner_estimate *out)
{
	struct runner_item it[64];
	double extra[64] = { 0 };
	struct runner_settings rs = { 0 };
	uint64_t masks[64] = { 0 };
	char buf[512];
	size_t n = 0;

	if (vmb_nsuites > ARRAY_SIZE(it))
		return -E2BIG;
	snprintf(buf, sizeof(buf), "%s", items);
	for (char *save = NULL, *w = strtok_r(buf, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
		char *dot = strchr(w, '.');
		const struct vmb_suite *s;
		size_t idx;
		int t;

		if (dot)
			*dot = '\0';
		s = suites_find(w);
		if (!s)
			return -EINVAL;
		for (idx = 0; vmb_suites[idx] != s; idx++)
			;
		t = dot ? suites_test_index(s, dot + 1) : 0;
		if (t < 0)
			return -EINVAL;
		masks[idx] |= dot ? 1ull << t : ~0ull;
	}
	for (size_t i = 0; i < vmb_nsuites; i++) {
		const struct vmb_suite *s = vmb_suites[i];

		if (!masks[i])
			continue;
		it[n] = (struct runner_item){ .suite = s, .opts = &suite_sets[i], .test_mask = masks[i] };
		for (size_t k = 0; s->opts && s->opts[k].name; k++)
			if (s->opts[k].rep_overhead)
				extra[n] += optset_double(&suite_sets[i], s->opts[k].name);
		n++;
	}
	settings_from(own, quick, &rs);
	return runner_estimate(&rs, it, n, extra, out);
}

/* Cases measured to the end of the stop rule, in every suite and test. */
static size_t finished_cases(const struct vmb_results *res)
{
	size_t n = 0;

	for (size_t s = 0; s < res->nsuites; s++)
		for (size_t t = 0; t < res->suites[s].ntests; t++)
			n += res->suites[s].tests[t].ncases;
	return n;
}

static bool any_failed(const struct vmb_results *res)
{
	for (size_t s = 0; s < res->nsuites; s++) {
		if (res->suites[s].status == VMB_FAILED)
			return true;
		for (size_t t = 0; t < res->suites[s].ntests; t++)
			if (res->suites[s].tests[t].status == VMB_FAILED)
				return true;
	}
	return false;
}

/* One run: measure (the whole selection, or one round's units in their
 * order), then write, store and show its document. An exit code. */
/* --load: what was asked and what the spinners got, in every suite's notes */
static int bgload_notes(struct vmb_results *res, unsigned pct, double done)
{
	char v[32];

	for (size_t i = 0; i < res->nsuites; i++) {
		struct vmb_suite_result *s = &res->suites[i];

		snprintf(v, sizeof(v), "%u", pct);
		if (vmb_params_add(&s->notes, &s->nnotes, "load_asked_pct", v) < 0)
			return -ENOMEM;
		if (!isfinite(done))
			continue;
		snprintf(v, sizeof(v), "%.1f", done);
		if (vmb_params_add(&s->notes, &s->nnotes, "load_done_pct", v) < 0)
			return -ENOMEM;
	}
	return 0;
}

static int run_one(const struct vmb_cmd *self, const struct optset *own, const struct runner_settings *rs,
		   const struct runner_item *items, size_t nitems, const struct round_unit *units, size_t nu,
		   json_t *fp, json_t *group, struct db *db, const char *db_path, const char *json_path,
		   bool json_stdout, const char *unstored, json_t **doc_out)
{
	struct vmb_results res = { 0 };
	struct bgload bg;
	double load_done = NAN;
	json_t *doc = NULL, *order;
	bool json_failed = false, store_failed = false, interrupted;
	size_t ncases = 0;
	int64_t id = 0;
	double started;
	char why[256];
	int ret, r;

	(void)self;
	started = wall_time_s();
	r = bgload_start(&bg, (unsigned)optset_int(own, "load"));
	if (r < 0) {
		log_errno(r, "starting the background load (--load %lld)", (long long)optset_int(own, "load"));
		ret = EXIT_FAILED;
		goto out;
	}
	if (units) {
		order = json_object_get(group, "order");
		r = run_round(rs, items, units, nu, &res, order);
	} else {
		r = runner_run(rs, items, nitems, &res);
	}
	bgload_stop(&bg, &load_done);
	if (r >= 0 && bg.pct && bgload_notes(&res, bg.pct, load_done) < 0)
		r = -ENOMEM;
	if (r == -EINVAL) { /* a suite refused the options; it said why */
		ret = EXIT_USAGE;
		goto out;
	}
	interrupted = r == -EINTR || vmb_stop_requested();
	if (r < 0 && r != -EINTR) {
		log_errno(r, "running the suites");
		ret = EXIT_FAILED;
		goto out;
	}
	ncases = finished_cases(&res);
	if (interrupted && ncases == 0) {
		log_error("interrupted before any case finished; nothing was stored");
		ret = EXIT_INTERRUPTED;
		goto out;
	}
	r = doc_from_results(&res, &(struct doc_meta){
		.argc = cmd_argc, .argv = cmd_argv, .started = started, .ended = wall_time_s(),
		.fingerprint = fp, .labels = &optset_get(own, "label")->kv, .rs = rs,
		.interrupted = interrupted, .run_group = group,
	}, &doc, why, sizeof(why));
	if (r < 0) {
		log_error("building the result document: %s", why);
		ret = EXIT_FAILED;
		goto out;
	}
	/* Nothing measured (every test skipped): a failed run, shown and written
	 * with its reasons, but not stored among the runs to compare. */
	ret = interrupted ? EXIT_INTERRUPTED : ncases == 0 || any_failed(&res) ? EXIT_FAILED : EXIT_OK;
	vmb_test_stop_point("run-measured");

	if (json_path && !(json_stdout && units)) {
		r = doc_write_file(doc, json_path);
		if (r == -EEXIST)
			log_error("--json: '%s' appeared while running; not overwritten", json_path);
		if (r < 0) {
			json_failed = true;
			ret = interrupted ? ret : EXIT_FAILED;
		}
	}
	/* rounds: the numbers of every round are in the store; the screen gets
	 * one line a round and the last round's summary */
	if (!json_stdout && log_get_level() > LOG_ERROR && !group)
		text_print_result(stdout, doc);
	if (db && ncases > 0) {
		if (db_add(db, doc, &id) < 0) {
			store_failed = true;
			ret = interrupted ? ret : EXIT_FAILED;
		} else if (log_get_level() > LOG_ERROR) {
			if (group && json_object_get(group, "auto"))
				fprintf(stdout, "round %lld (--runs auto): ",
					(long long)json_integer_value(json_object_get(group, "round")));
			else if (group)
				fprintf(stdout, "round %lld of %lld: ",
					(long long)json_integer_value(json_object_get(group, "round")),
					(long long)json_integer_value(json_object_get(group, "rounds")));
			fprintf(json_stdout ? stderr : stdout, "stored as run %lld in %s\n", (long long)id, db_path);
		}
	}
	/* The wall of numbers above is for reading later; this is the screen
	 * a user reads now, with what to do next. */
	if (!json_stdout && log_get_level() > LOG_ERROR && !json_object_get(group, "auto") &&
	    (!group || json_integer_value(json_object_get(group, "round")) ==
			       json_integer_value(json_object_get(group, "rounds"))))
		summary_print(stdout, doc, store_failed || ncases == 0 ? 0 : (long long)id,
			      json_failed || ncases == 0 ? NULL : json_path);
	if (log_get_level() > LOG_ERROR) {
		size_t busy, sensed, cpu_sensed;

		doc_noise_count(doc, &busy, &sensed, &cpu_sensed);
		/* without /proc/stat only major faults are sensed: "busy during 0"
		 * would say the host was quiet, which nothing here could see */
		if (sensed && !cpu_sensed)
			fprintf(json_stdout ? stderr : stdout, "%shost busy: not known (/proc/stat unreadable here: other "
				"processes' CPU and steal unsensed in all %zu repetitions%s)\n", group ? "this round: " : "",
				sensed, busy ? "; some had over 10 major faults" : "");
		else if (sensed)
			fprintf(json_stdout ? stderr : stdout, "%shost busy during %zu of %zu repetitions%s\n",
				group ? "this round: " : "", busy, sensed,
				busy ? " (other processes' CPU over 10% of the CPUs in use, steal over 2% or over 10 "
				       "major faults: see docs/methodology.md)" : "");
	}
	/* Kept somewhere the user asked for, or saved elsewhere and said where. */
	if (json_failed || (store_failed && !json_path))
		(void)run_save_elsewhere(doc, NULL);
	else if (unstored && !json_path && ncases > 0)
		(void)run_save_elsewhere(doc, unstored);
	if (ncases == 0)
		log_error("nothing was measured: every selected test was skipped or failed (reasons above); "
			  "nothing was stored");
	if (interrupted)
		log_error("interrupted: the %zu case%s finished before it %s kept, marked interrupted", ncases,
			  ncases == 1 ? "" : "s", ncases == 1 ? "is" : "are");
out:
	if (doc_out && doc && ncases > 0)
		*doc_out = json_incref(doc);
	json_decref(doc);
	vmb_results_release(&res);
	return ret;
}

/* --cpus: the list, each CPU one this process may run on when here is
 * true (else only its form). CMD_CONTINUE with *out set (NULL when not
 * given), or the exit code of a usage error. */
static int cpus_from(const struct vmb_cmd *self, const struct optset *own, bool here, unsigned **out, size_t *nout)
{
	const char *list = optset_str(own, "cpus");
	unsigned *cpus = NULL;
	size_t ncpus = 0;

	*out = NULL;
	*nout = 0;
	if (!list)
		return CMD_CONTINUE;
	if (parse_cpu_list(list, &cpus, &ncpus) < 0)
		return cmd_usage_error(self, "--cpus: '%s' is not a CPU list; expected e.g. 0-3,6", list);
	for (size_t i = 0; here && i < ncpus; i++)
		if (!cpu_allowed(cpus[i])) {
			int ret = cmd_usage_error(self, "--cpus: CPU %u is not available to this process "
							"(see 'taskset -p $$' or /sys/devices/system/cpu/online)",
						  cpus[i]);

			free(cpus);
			return ret;
		}
	*out = cpus;
	*nout = ncpus;
	return CMD_CONTINUE;
}

int run_check_measure(const struct vmb_cmd *self, const struct optset *own, bool here, unsigned **cpus,
		      size_t *ncpus)
{
	struct runner_settings rs = { 0 };

	settings_from(own, optset_bool(own, "quick"), &rs);
	if (rs.min_reps > rs.max_reps)
		return cmd_usage_error(self, "--min-reps %u is larger than --max-reps %u", rs.min_reps, rs.max_reps);
	return cpus_from(self, own, here, cpus, ncpus);
}

/* --progress-fd: a stream of its own on the descriptor, which must be open.
 * CMD_CONTINUE with *f set (NULL when not given), or an exit code. */
static int progress_lines_from(const struct vmb_cmd *self, const struct optset *own, FILE **f)
{
	int fd;

	*f = NULL;
	if (!optset_get(own, "progress-fd")->set)
		return CMD_CONTINUE;
	fd = (int)optset_int(own, "progress-fd");
	if (fcntl(fd, F_GETFD) < 0)
		return cmd_usage_error(self, "--progress-fd %d: not an open descriptor (%s); open it for the run, "
					     "e.g. 3>FILE", fd, strerror(errno));
	fd = fcntl(fd, F_DUPFD_CLOEXEC, 3);
	*f = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (!*f) {
		log_errno(-errno, "--progress-fd");
		if (fd >= 0)
			close(fd);
		return EXIT_FAILED;
	}
	setvbuf(*f, NULL, _IOLBF, 0);
	return CMD_CONTINUE;
}

static int cmd_run(const struct vmb_cmd *self, int argc, char **argv)
{
	struct optset own, *suite_sets = calloc(vmb_nsuites, sizeof(*suite_sets));
	struct runner_item items[64];
	struct runner_settings rs = { 0 };
	struct round_unit units[64 * 64];
	struct strv words;
	struct db *db = NULL;
	char db_path[4096] = "", group_id[40], unstored[4200] = "";
	unsigned *cpus = NULL;
	size_t nitems = 0, ncpus = 0, nu;
	const char *json_path;
	json_t *fp = NULL;
	bool json_stdout;
	unsigned nruns = 1, done = 0;
	uint64_t seed, rng;
	int ret, r, worst = EXIT_OK;
	bool autorun = false;
	json_t *rounds = NULL; /* --runs: the rounds' documents */
	double t0 = clock_s();
	char said[1200];
	const char *stopped = NULL;
	struct round_auto ra = { .what = "--runs auto" };

	if (!suite_sets)
		return EXIT_FAILED;
	ret = cmd_parse(self, argc, argv, &own, suite_sets, &words);
	if (ret != CMD_CONTINUE)
		goto out;
	cmd_apply_verbosity(&own);
	ret = cmd_check_user_labels(self, &optset_get(&own, "label")->kv);
	if (ret != CMD_CONTINUE)
		goto out;
	ret = select_items(self, &words, suite_sets, items, &nitems);
	if (ret != CMD_CONTINUE)
		goto out;
	if (apply_quick(&own, suite_sets) < 0) {
		ret = EXIT_FAILED;
		goto out;
	}
	settings_from(&own, optset_bool(&own, "quick"), &rs);
	ret = run_check_measure(self, &own, true, &cpus, &ncpus);
	if (ret != CMD_CONTINUE)
		goto out;
	ret = progress_lines_from(self, &own, &rs.progress_lines);
	if (ret != CMD_CONTINUE)
		goto out;
	rs.cpus = cpus;
	rs.ncpus = ncpus;
	rs.quick = optset_bool(&own, "quick");
	rs.destructive = optset_bool(&own, "destructive");
	rs.skip_fs = optset_str(&own, "skip-fs-tests");
	if (rs.skip_fs && !*rs.skip_fs) {
		ret = cmd_usage_error(self, "--skip-fs-tests needs the reason the tests of a filesystem are skipped, "
				      "e.g. --skip-fs-tests \"no filesystem on the disk under test\"");
		goto out;
	}
	json_path = optset_str(&own, "json");
	json_stdout = json_path && !strcmp(json_path, "-");
	ret = cmd_rounds_from(self, &own, "runs", RUN_AUTO_MAX, &nruns, &autorun);
	if (ret != CMD_CONTINUE)
		goto out;
	ret = run_check_json_paths(self, json_path, nruns, autorun);
	if (ret != CMD_CONTINUE)
		goto out;
	ra.rule.mdd_pct = optset_double(&own, "mdd");
	seed = optset_get(&own, "seed")->set ? (uint64_t)optset_int(&own, "seed")
					      : ((uint64_t)time(NULL) ^ ((uint64_t)getpid() << 16)) & 0xffffffffu;
	rng = seed;
	{
		/* the seed, and 32 random bits: two groups of one seed in one second differ */
		uint32_t rnd;

		if (getrandom(&rnd, sizeof(rnd), GRND_NONBLOCK) != (ssize_t)sizeof(rnd))
			rnd = (uint32_t)(clock_ns() ^ ((uint64_t)getpid() << 20));
		snprintf(group_id, sizeof(group_id), "%08llx-%08lx", (unsigned long long)seed, (unsigned long)rnd);
	}
	rs.progress = isatty(STDERR_FILENO) && log_get_level() >= LOG_INFO;
	/* Open the store before measuring: a bad --db must not cost a long run. */
	ret = run_store_open(self, &own, db_path, sizeof(db_path), unstored, sizeof(unstored), &db);
	if (ret != CMD_CONTINUE)
		goto out;

	/* a second Ctrl-C removes the suites' files before the process ends */
	r = cmd_install_stop_signals(vmb_tempfiles_unlink_all);
	if (r < 0) {
		log_errno(r, "installing signal handlers");
		ret = EXIT_FAILED;
		goto out;
	}
	fp = probe_fingerprint(&(struct probe_src){ .root = probe_machine_root() });
	if (!fp) {
		log_error("out of memory probing the environment");
		ret = EXIT_FAILED;
		goto out;
	}
	nu = run_round_units(items, nitems, units, ARRAY_SIZE(units));
	if (autorun)
		run_predict_rounds(&own, items, nitems, fp);
	for (unsigned k = 1; k <= nruns; k++) {
		char *round_path = json_path && nruns > 1 ? run_round_json_path(json_path, k) : NULL;
		json_t *group = NULL;

		if (nruns > 1) {
			/* auto: the rounds so far, and the rule that decides how many */
			group = json_pack("{s:s, s:I, s:I, s:I, s:[]}", "id", group_id, "round", (json_int_t)k, "rounds",
					  (json_int_t)(autorun ? k : nruns), "seed", (json_int_t)seed, "order");
			if (group && autorun &&
			    json_object_set_new(group, "auto", json_pack("{s:f}", "mdd_pct", optset_double(&own, "mdd"))) < 0) {
				json_decref(group);
				group = NULL;
			}
			if (!group || (json_path && !round_path)) {
				json_decref(group);
				free(round_path);
				log_error("out of memory");
				ret = EXIT_FAILED;
				goto out;
			}
			run_shuffle(units, nu, &rng);
			if (autorun)
				log_info("round %u (--runs auto)", k);
			else
				log_info("round %u of %u", k, nruns);
		}
		{
			json_t *doc = NULL;

			ret = run_one(self, &own, &rs, items, nitems, nruns > 1 ? units : NULL, nu, fp, group, db, db_path,
				      round_path ? round_path : json_path, json_stdout, unstored[0] ? unstored : NULL,
				      nruns > 1 ? &doc : NULL);
			if (doc && (rounds || (rounds = json_array())))
				(void)json_array_append_new(rounds, doc);
			else
				json_decref(doc);
		}
		json_decref(group);
		free(round_path);
		done = k;
		if (ret == EXIT_INTERRUPTED || ret == EXIT_USAGE || vmb_stop_requested())
			break;
		if (ret != EXIT_OK)
			worst = ret;
		if (!autorun)
			continue;
		{
			size_t nc;
			struct round_case *cases = run_round_cases(rounds, &nc);
			bool decided = round_auto_after(&ra, k, cases, nc, said, sizeof(said));

			free(cases);
			if (*said && log_get_level() > LOG_ERROR)
				printf("%s\n", said);
			if (decided) {
				stopped = "decided";
				break;
			}
		}
		/* another round as long as the mean one so far must end within --budget-total */
		if ((clock_s() - t0) * (k + 1) / k > optset_double(&own, "budget-total")) {
			stopped = "budget";
			break;
		}
	}
	if (autorun && log_get_level() > LOG_ERROR && ret != EXIT_USAGE && (!stopped || strcmp(stopped, "decided"))) {
		char why[80];

		if (stopped)
			snprintf(why, sizeof(why), "another would end after --budget-total %gs",
				 optset_double(&own, "budget-total"));
		else
			snprintf(why, sizeof(why), "the most rounds, %u", nruns);
		if (stopped || done == nruns) {
			round_auto_undecided(&ra, done, why, said, sizeof(said));
			printf("%s\n", said);
		}
	}
	if (autorun)
		nruns = done;
	if (ret == EXIT_OK && worst != EXIT_OK)
		ret = worst;
	if (done > 1 && !json_stdout && ret != EXIT_USAGE && log_get_level() > LOG_ERROR)
		run_print_rounds(rounds, done);
	if (nruns > 1 && ret != EXIT_USAGE && log_get_level() > LOG_ERROR)
		printf("run group %s: %u round%s of %zu test%s, interleaved (seed %llu); compare groups with "
		       "'vmbench compare LABEL=A LABEL=B' (each round is a run)\n",
		       group_id, nruns, nruns == 1 ? "" : "s", nu, nu == 1 ? "" : "s", (unsigned long long)seed);
out:
	json_decref(rounds);
	if (rs.progress_lines)
		(void)fclose(rs.progress_lines);
	db_close(db);
	json_decref(fp);
	free(cpus);
	cmd_release(&own, suite_sets, &words);
	free(suite_sets);
	return ret;
}
