/* vmbench run: measure the selected suites, store and show the result. */
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"
#include "../core/log.h"
#include "../core/runner.h"
#include "../probe/probe.h"
#include "../report/text.h"
#include "../store/db.h"
#include "../store/doc.h"
#include "../suites/suites.h"
#include "../core/banned.h"

const struct vmb_opt run_opts[] = {
	{ .name = "quick", .type = OPT_BOOL,
	  .help = "a short run of everything: every option's --quick default applies unless given" },
	{ .name = "time", .type = OPT_DOUBLE, .min = 0.01, .max = 86400, .def = "2", .quick = "0.3",
	  .metavar = "SECONDS", .help = "how long each repetition of a test measures (sysbench --time, fio --runtime)" },
	{ .name = "warmup", .type = OPT_DOUBLE, .min = 0, .max = 3600, .def = "0.5", .quick = "0.1",
	  .metavar = "SECONDS", .help = "an uncounted repetition of this length before each case; 0 for none" },
	{ .name = "budget", .type = OPT_DOUBLE, .min = 0.01, .max = 604800, .def = "60", .quick = "2",
	  .metavar = "SECONDS", .help = "time limit per case once --min-reps repetitions are done" },
	{ .name = "threads", .type = OPT_LIST, .min = 1, .max = 4096, .def = "1,all", .metavar = "LIST",
	  .help = "thread counts for threaded tests; 1 is always measured (parallel efficiency needs it)" },
	{ .name = "cpus", .type = OPT_STRING, .metavar = "LIST",
	  .help = "pin worker threads round-robin to these CPUs, e.g. 0-3,6" },
	{ .name = "repeat", .type = OPT_INT, .min = 1, .max = 1000, .metavar = "N",
	  .help = "exactly N repetitions (sets --min-reps and --max-reps)" },
	{ .name = "precision", .type = OPT_DOUBLE, .min = 0.01, .max = 100, .def = "2", .metavar = "PCT",
	  .help = "stop once the 95% confidence interval of the headline metric is within PCT% of its mean" },
	{ .name = "min-reps", .type = OPT_INT, .min = 2, .max = 1000, .def = "3", .metavar = "N",
	  .help = "at least N counted repetitions" },
	{ .name = "max-reps", .type = OPT_INT, .min = 2, .max = 1000, .def = "10", .quick = "5", .metavar = "N",
	  .help = "at most N counted repetitions" },
	{ .name = "label", .type = OPT_KV, .metavar = "KEY=VALUE",
	  .help = "tag the run, e.g. --label hv=kvm --label disk=virtio" },
	{ .name = "json", .type = OPT_STRING, .metavar = "FILE|-",
	  .help = "also write the result document to a new FILE, or to stdout with -" },
	{ .name = "db", .type = OPT_STRING, .metavar = "PATH",
	  .help = "the result store (default $VMBENCH_DB, else $XDG_DATA_HOME/vmbench/results.db)" },
	{ .name = "no-store", .type = OPT_BOOL, .help = "do not store the result" },
	{ .name = "destructive", .type = OPT_BOOL,
	  .help = "allow write tests on a block device given to a suite (destroys its data)" },
	{ .name = "quiet", .short_name = 'q', .type = OPT_BOOL, .help = "print errors only" },
	{ .name = "verbose", .short_name = 'v', .type = OPT_BOOL, .help = "print debugging details" },
	{ .name = "help", .short_name = 'h', .type = OPT_BOOL, .help = "show this help" },
	OPT_TABLE_END,
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
	uint64_t masks[64] = { 0 };
	bool any = words->n > 0;

	for (size_t w = 0; w < words->n; w++) {
		char name[64];
		const char *dot = strchr(words->v[w], '.');
		const struct vmb_suite *s;
		size_t idx;

		snprintf(name, sizeof(name), "%.*s", dot ? (int)(dot - words->v[w]) : 63, words->v[w]);
		s = suites_find(name);
		if (!s) {
			char valid[256] = "";
			size_t off = 0;

			for (size_t i = 0; i < vmb_nsuites; i++)
				off += (size_t)snprintf(valid + off, sizeof(valid) - off, "%s%s", i ? ", " : "",
							vmb_suites[i]->name);
			return cmd_usage_error(self, "unknown suite '%s'; valid suites: %s", name, valid);
		}
		for (idx = 0; vmb_suites[idx] != s; idx++)
			;
		if (!dot) {
			masks[idx] = ~0ull;
			continue;
		}
		{
			int t = suites_test_index(s, dot + 1);

			if (t < 0) {
				char valid[256] = "";
				size_t off = 0;

				for (int i = 0; s->tests[i].name; i++)
					off += (size_t)snprintf(valid + off, sizeof(valid) - off, "%s%s",
								i ? ", " : "", s->tests[i].name);
				return cmd_usage_error(self, "unknown test '%s' in suite %s; valid tests: %s",
						       dot + 1, s->name, valid);
			}
			masks[idx] |= 1ull << t;
		}
	}
	*nitems = 0;
	for (size_t i = 0; i < vmb_nsuites; i++)
		if (!any || masks[i])
			items[(*nitems)++] = (struct runner_item){
				.suite = vmb_suites[i], .opts = &suite_sets[i], .test_mask = any ? masks[i] : ~0ull,
			};
	return -1;
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

int cmd_run(const struct vmb_cmd *self, int argc, char **argv)
{
	struct optset own, *suite_sets = calloc(vmb_nsuites, sizeof(*suite_sets));
	struct runner_item items[64];
	struct runner_settings rs = { 0 };
	struct vmb_results res = { 0 };
	struct strv words;
	struct db *db = NULL;
	char db_path[4096];
	unsigned *cpus = NULL;
	size_t nitems = 0, ncpus = 0;
	const char *json_path;
	json_t *fp = NULL, *doc = NULL;
	bool json_stdout;
	double started;
	int ret, r;

	if (!suite_sets)
		return EXIT_FAILED;
	ret = cmd_parse(self, argc, argv, &own, suite_sets, &words);
	if (ret >= 0)
		goto out;
	cmd_apply_verbosity(&own);
	ret = select_items(self, &words, suite_sets, items, &nitems);
	if (ret >= 0)
		goto out;
	if (apply_quick(&own, suite_sets) < 0) {
		ret = EXIT_FAILED;
		goto out;
	}
	rs.time_s = optset_double(&own, "time");
	rs.warmup_s = optset_double(&own, "warmup");
	rs.budget_s = optset_double(&own, "budget");
	rs.precision_pct = optset_double(&own, "precision");
	rs.min_reps = (unsigned)optset_int(&own, "min-reps");
	rs.max_reps = (unsigned)optset_int(&own, "max-reps");
	if (optset_get(&own, "repeat")->set)
		rs.min_reps = rs.max_reps = (unsigned)optset_int(&own, "repeat");
	if (rs.min_reps > rs.max_reps) {
		ret = cmd_usage_error(self, "--min-reps %u is larger than --max-reps %u", rs.min_reps, rs.max_reps);
		goto out;
	}
	rs.threads = optset_get(&own, "threads")->list;
	rs.nthreads = optset_get(&own, "threads")->nlist;
	if (optset_str(&own, "cpus")) {
		r = parse_cpu_list(optset_str(&own, "cpus"), &cpus, &ncpus);
		if (r < 0) {
			ret = cmd_usage_error(self, "--cpus: '%s' is not a CPU list; expected e.g. 0-3,6",
					      optset_str(&own, "cpus"));
			goto out;
		}
		for (size_t i = 0; i < ncpus; i++)
			if (!cpu_allowed(cpus[i])) {
				ret = cmd_usage_error(self, "--cpus: CPU %u is not available to this process "
							    "(see 'taskset -p $$' or /sys/devices/system/cpu/online)",
						      cpus[i]);
				goto out;
			}
		rs.cpus = cpus;
		rs.ncpus = ncpus;
	}
	rs.quick = optset_bool(&own, "quick");
	rs.destructive = optset_bool(&own, "destructive");
	json_path = optset_str(&own, "json");
	json_stdout = json_path && !strcmp(json_path, "-");
	if (json_path && !json_stdout && access(json_path, F_OK) == 0) {
		ret = cmd_usage_error(self, "--json: '%s' exists; vmbench writes only new files, choose another name",
				      json_path);
		goto out;
	}
	rs.progress = isatty(STDERR_FILENO) && log_get_level() >= LOG_INFO;
	/* Open the store before measuring: a bad --db must not cost a long run. */
	if (!optset_bool(&own, "no-store")) {
		if (db_default_path(optset_str(&own, "db"), db_path, sizeof(db_path)) < 0) {
			ret = cmd_usage_error(self, "no place for the result store: set --db, VMBENCH_DB or HOME");
			goto out;
		}
		r = db_open(db_path, true, &db);
		if (r < 0) {
			ret = db_usage_error(r) ? EXIT_USAGE : EXIT_FAILED;
			goto out;
		}
	}

	/* a second Ctrl-C removes the suites' files before the process ends */
	r = cmd_install_stop_signals(vmb_tempfiles_unlink_all);
	if (r < 0) {
		log_errno(r, "installing signal handlers");
		ret = EXIT_FAILED;
		goto out;
	}
	started = wall_time_s();
	fp = probe_fingerprint(&(struct probe_src){ .root = "/" });
	if (!fp) {
		log_error("out of memory probing the environment");
		ret = EXIT_FAILED;
		goto out;
	}
	r = runner_run(&rs, items, nitems, &res);
	if (r == -EINTR || vmb_stop_requested()) {
		log_error("interrupted; nothing was stored");
		ret = EXIT_INTERRUPTED;
		goto out;
	}
	if (r < 0) {
		log_errno(r, "running the suites");
		ret = EXIT_FAILED;
		goto out;
	}
	doc = doc_from_results(&res, &(struct doc_meta){
		.argc = cmd_argc, .argv = cmd_argv, .started = started, .ended = wall_time_s(),
		.fingerprint = fp, .labels = &optset_get(&own, "label")->kv, .rs = &rs,
	});
	if (!doc) {
		log_error("out of memory building the result document");
		ret = EXIT_FAILED;
		goto out;
	}
	ret = any_failed(&res) ? EXIT_FAILED : EXIT_OK;

	if (json_path) {
		r = doc_write_file(doc, json_path);
		if (r == -EEXIST)
			log_error("--json: '%s' appeared while running; not overwritten", json_path);
		if (r < 0)
			ret = EXIT_FAILED;
	}
	if (!json_stdout && log_get_level() > LOG_ERROR)
		text_print_result(stdout, doc);
	if (db) {
		int64_t id;

		if (db_add(db, doc, &id) < 0)
			ret = EXIT_FAILED;
		else if (log_get_level() > LOG_ERROR)
			fprintf(json_stdout ? stderr : stdout, "stored as run %lld in %s\n", (long long)id, db_path);
	}
out:
	db_close(db);
	json_decref(doc);
	json_decref(fp);
	vmb_results_release(&res);
	free(cpus);
	cmd_release(&own, suite_sets, &words);
	free(suite_sets);
	return ret;
}
