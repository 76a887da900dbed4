/* vmbench lab study: the shipped studies (--list), a study file's plan
 * (--plan, lab_study_plan.c), its run (lab_study_run.c) and --all: each
 * experiment a lab run or contend (a typed request), then the study's
 * card, tables and report (docs/study-format.md). */
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <sys/stat.h>
#include <time.h>
#include <jansson.h>

#include "cmd.h"
#include "lab.h"
#include "lab_study.h"
#include "../core/log.h"
#include "../core/opts.h"
#include "../core/str.h"
#include "../core/runner.h"
#include "../core/stats.h"
#include "../core/stop.h"
#include "../report/html.h"
#include "../report/text.h"
#include "../store/db.h"
#include "../lab/image.h"
#include "../lab/kvmguest.h"
#include "../lab/matrix.h"
#include "../probe/probe.h"
#include "../lab/study.h"
#include "../lab/study_table.h"
#include "../suites/suites.h"
#include "../core/banned.h"

#ifndef VMB_STUDIES_DIR
#define VMB_STUDIES_DIR "studies"
#endif

/* Every line lab study prints on stdout goes through here: a study's text is
 * in it (titles, stand-ins, reasons, headings), escaped (study_escape), so
 * that no file can drive the terminal that shows its plan or its tables.
 * The formats themselves hold no control character but the newline. */
void study_say(const char *fmt, ...)
{
	va_list ap;
	char *text = NULL, *shown = NULL;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&text, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	shown = malloc(4 * (size_t)n + 1);
	if (shown)
		fputs(study_escape(text, shown, 4 * (size_t)n + 1), stdout);
	free(shown);
	free(text);
}

/* A study's text in the HTML report: escaped for the terminal as on
 * stdout (a control character is no HTML), then for HTML. */
void study_html(FILE *f, const char *text)
{
	size_t len = 4 * strlen(text) + 1;
	char *shown = malloc(len);

	if (shown)
		html_escape(f, study_escape(text, shown, len));
	free(shown);
}

/* Where the shipped studies are: $VMBENCH_STUDIES, else the source tree's. */
static const char *studies_dir(void)
{
	const char *env = getenv("VMBENCH_STUDIES");

	return env && *env ? env : VMB_STUDIES_DIR;
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The shipped studies' files, sorted. */
static int list_files(const char *dir, struct strv *out)
{
	DIR *d = opendir(dir);
	struct dirent *de;

	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		size_t n = strlen(de->d_name);
		char path[4096];

		if (n <= 6 || strcmp(de->d_name + n - 6, ".study"))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		if (strv_push(out, path) < 0) {
			closedir(d);
			return -ENOMEM;
		}
	}
	closedir(d);
	if (out->n)
		qsort(out->v, out->n, sizeof(*out->v), name_cmp);
	return 0;
}

static int study_list(const struct vmb_cmd *self)
{
	struct strv files = { 0 };
	const char *dir = studies_dir();
	int r = list_files(dir, &files), ret = EXIT_OK;

	if (r < 0) {
		log_error("%s: %s (the shipped studies; $VMBENCH_STUDIES names another directory)", dir, strerror(-r));
		return EXIT_FAILED;
	}
	if (!files.n) {
		log_error("%s: no .study file", dir);
		strv_clear(&files);
		return EXIT_FAILED;
	}
	for (size_t i = 0; i < files.n; i++) {
		struct study *s = calloc(1, sizeof(*s));
		char err[1200];
		size_t run = 0;

		if (!s) {
			ret = EXIT_FAILED;
			break;
		}
		if (study_load(files.v[i], s, err, sizeof(err)) < 0) {
			log_error("%s", err);
			ret = EXIT_FAILED;
			free(s);
			continue;
		}
		for (size_t k = 0; k < s->nexp; k++)
			run += !*s->exp[k].not_run;
		study_say("%-16s %s\n%-16s %zu experiments, %zu for a QEMU lab: 'vmbench lab study %s --plan'\n", s->name,
		       s->title, "", s->nexp, run, s->name);
		study_release(s);
		free(s);
	}
	(void)self;
	strv_clear(&files);
	return ret;
}

int study_shipped_path(const char *name, char *path, size_t len)
{
	struct strv files = { 0 };
	int r = list_files(studies_dir(), &files);

	for (size_t i = 0; r == 0 && i < files.n; i++) {
		const char *base = strrchr(files.v[i], '/') + 1; /* DIR/NAME.study */

		if (strlen(base) == strlen(name) + 6 && !strncmp(base, name, strlen(name))) {
			snprintf(path, len, "%s", files.v[i]);
			strv_clear(&files);
			return 0;
		}
	}
	strv_clear(&files);
	return r < 0 ? r : -ENOENT;
}

/* A study's file: ARG itself when it has a '/' or ends in .study (a path),
 * else the shipped study named ARG; never a file of the current directory
 * that happens to have a shipped study's name. EXIT_OK with path, or an
 * exit after a message: a miss lists the shipped studies, nearest first. */
static int study_path(const struct vmb_cmd *self, const char *arg, char *path, size_t len)
{
	struct strv files = { 0 };
	const char *dir = studies_dir(), *best = NULL;
	char names[1024], shown[256];
	size_t n = strlen(arg), off = 0, bestd = 4;
	int r;

	if (strchr(arg, '/') || (n > 6 && !strcmp(arg + n - 6, ".study"))) {
		snprintf(path, len, "%s", arg);
		return EXIT_OK;
	}
	r = list_files(dir, &files);
	if (r < 0) {
		log_error("%s: %s (the shipped studies; $VMBENCH_STUDIES names another directory)", dir, strerror(-r));
		return r == -ENOMEM ? EXIT_FAILED : EXIT_USAGE;
	}
	names[0] = '\0';
	for (size_t i = 0; i < files.n; i++) {
		const char *base = strrchr(files.v[i], '/') + 1; /* list_files' paths are DIR/NAME.study */
		char name[256];
		size_t d;

		snprintf(name, sizeof(name), "%.*s", (int)(strlen(base) - 6), base);
		if (!strcmp(name, arg)) {
			snprintf(path, len, "%s", files.v[i]);
			strv_clear(&files);
			return EXIT_OK;
		}
		str_appendf(names, sizeof(names), &off, "%s%s", i ? ", " : "", name);
		d = str_distance(arg, name);
		if (d < bestd) {
			bestd = d;
			best = base;
		}
	}
	study_escape(arg, shown, sizeof(shown));
	r = cmd_usage_error(self, "no shipped study '%s'%s%.*s%s; the shipped studies (%s): %s; a study of your own is "
			    "named by its path (with a '/', or ending in .study)",
			    shown, best ? " (did you mean '" : "", best ? (int)(strlen(best) - 6) : 0, best ? best : "",
			    best ? "'?)" : "", dir, *names ? names : "none");
	strv_clear(&files);
	return r;
}

/* One round of a run experiment, estimated: every configuration's run
 * (and the host's) by its suites' stop rule, and its boots at its image's
 * row. lo and hi in seconds. */
void study_round_estimate(const struct study_experiment *e, const struct lab_matrix *m,
			   const struct runner_estimate *est, double *lo, double *hi)
{
	lab_round_estimate(m, strcmp(e->baseline, "none") != 0, e->boots, est, lo, hi);
}

/* The most rounds a full run's budget is made for: a few times the
 * study's, at least STUDY_AUTO_ROUNDS_MIN, within lab run's 100 */
#define STUDY_AUTO_ROUNDS_MIN 10
unsigned study_budget_rounds(unsigned rounds)
{
	unsigned r = rounds * 3 > STUDY_AUTO_ROUNDS_MIN ? rounds * 3 : STUDY_AUTO_ROUNDS_MIN;

	return r > 100 ? 100 : r;
}

/* A full run decides its claims where the machine allows: lab run's rounds
 * by power (--rounds auto), from the study's rounds on, until every
 * headline verdict's smallest detectable difference is within what the
 * finest of its claims needs (study_experiment_mdd), within a budget of
 * study_budget_rounds() rounds at the estimate's upper bound, scaled by
 * --budget-total's share (call->budget_scale) when it is given. Not for lab
 * contend (its rounds are fixed), nor an experiment with no claim to
 * decide or no comparison (one configuration without a baseline): those
 * keep their rounds. rq: parsed, its own and suite_sets as the run has
 * them. CMD_CONTINUE, or an exit. */
static int study_power(const struct study_call *call, const struct study_experiment *e, struct lab_request *rq)
{
	struct lab_matrix m = { 0 };
	struct runner_estimate est = { 0 };
	char err[512], num[32], why[256];
	size_t which = 0;
	double mdd = study_experiment_mdd(e, &which, why, sizeof(why)), lo, hi, budget;
	int ret = CMD_CONTINUE;

	if (e->contend || isnan(mdd))
		return CMD_CONTINUE;
	/* a matrix that does not parse: lab run's own check says why */
	if (lab_matrix_parse(e->matrix, &m, err, sizeof(err)) < 0)
		return CMD_CONTINUE;
	if ((m.n >= 2 || strcmp(e->baseline, "none")) &&
	    run_estimate_items(e->suites, &rq->own, rq->suite_sets, false, &est) == 0) {
		study_round_estimate(e, &m, &est, &lo, &hi);
		budget = ceil(hi * study_budget_rounds(study_rounds(e, false)));
		if (call->budget_scale > 0)
			budget = ceil(budget * call->budget_scale);
		rq->autorounds = true;
		rq->min_rounds = study_rounds(e, false);
		snprintf(num, sizeof(num), "%.3g", mdd);
		ret = lab_request_set(rq, "mdd", num);
		snprintf(num, sizeof(num), "%.0f", budget < 1 ? 1 : budget > 604800 ? 604800 : budget);
		if (ret == CMD_CONTINUE)
			ret = lab_request_set(rq, "budget-total", num);
	}
	lab_matrix_release(&m);
	return ret;
}

/* The labels and the command line's words every experiment's lab run gets:
 * the study's name, its run's stamp, and the places and settings the
 * command line gave (never the study file). */

/* The request of lab run (or contend) for an experiment: its keys as the
 * request's fields, its option lines parsed by the verb's own table, and
 * what the command line says of where results go and what boots. */
int study_request(const struct study_call *call, const struct study_experiment *e, bool quick, bool check_only,
		  struct lab_request *rq)
{
	/* what the command line says of where results go and what boots, passed on */
	static const char *const pass[] = { "db", "cache", "image-dir", "kernel", "busybox", "agent", "hello-timeout" };
	struct strv words = { 0 };
	char label[128];
	int r = 0, ret;

	rq->verb = e->contend ? LAB_VERB_CONTEND : LAB_VERB_RUN;
	rq->matrix = e->matrix;
	rq->suites = e->suites;
	rq->rounds = study_rounds(e, quick);
	/* lab contend boots its guests once, and its table's baseline is the study's alone */
	if (!e->contend) {
		rq->boots = e->boots;
		rq->baseline = e->baseline;
	}
	rq->quick = quick;
	rq->check_only = check_only;
	rq->from_study = true;
	rq->kvm_fallback = e->accel == STUDY_ACCEL_KVM;
	snprintf(label, sizeof(label), "study=%s", call->name);
	r |= strv_push(&rq->labels, label);
	snprintf(label, sizeof(label), "experiment=%s", e->id);
	r |= strv_push(&rq->labels, label);
	r |= strv_push(&rq->labels, call->run_label);
	/* the option lines, read by the verb's own table */
	for (size_t i = 0; i < e->options.n; i++)
		r |= strv_push(&words, e->options.v[i]);
	for (size_t i = 0; quick && i < e->quick_options.n; i++)
		r |= strv_push(&words, e->quick_options.v[i]);
	if (r < 0) {
		strv_clear(&words);
		log_error("out of memory");
		return EXIT_FAILED;
	}
	ret = lab_request_parse(rq, (int)words.n, words.v);
	strv_clear(&words);
	for (size_t k = 0; ret == CMD_CONTINUE && k < ARRAY_SIZE(pass); k++) {
		const struct opt_value *v = optset_get(call->own, pass[k]);
		char num[32];

		if (!v->set)
			continue;
		if (v->kv.n) /* --agent: each ARCH=PATH */
			for (size_t j = 0; ret == CMD_CONTINUE && j < v->kv.n; j++)
				ret = lab_request_set(rq, pass[k], v->kv.v[j]);
		else if (!strcmp(pass[k], "hello-timeout")) {
			snprintf(num, sizeof(num), "%g", optset_double(call->own, pass[k]));
			ret = lab_request_set(rq, pass[k], num);
		} else
			ret = lab_request_set(rq, pass[k], optset_str(call->own, pass[k]));
	}
	if (ret == CMD_CONTINUE && !quick)
		ret = study_power(call, e, rq);
	return ret;
}

/* --experiment's list; NULL when it is not given (every experiment) */
static const char *experiment_list(const struct optset *own)
{
	return optset_get(own, "experiment")->set ? optset_str(own, "experiment") : NULL;
}

/* Is experiment id among --experiment's (all of them when it is not given)? */
bool study_selected(const struct optset *own, const char *id)
{
	const char *list = experiment_list(own);
	size_t n = strlen(id);

	for (const char *p = list; p && *p; p += strcspn(p, ","), p += *p == ',')
		if (strcspn(p, ",") == n && !strncmp(p, id, n))
			return true;
	return !list;
}

/* Does --quick leave experiment e out? Its quick-skip says why, unless
 * --experiment is given: only the experiments it names are reached, and
 * asked for by name, one runs. */
bool study_quick_skipped(const struct optset *own, const struct study_experiment *e)
{
	return optset_bool(own, "quick") && *e->quick_skip && !experiment_list(own);
}

/* --experiment names experiments of this study, each once: else a usage error
 * that lists the study's own. */
static int check_selection(const struct vmb_cmd *self, const struct optset *own, const struct study *s)
{
	const char *list = experiment_list(own);
	char ids[2048];
	size_t off = 0;

	if (!list)
		return EXIT_OK;
	for (size_t i = 0; i < s->nexp; i++)
		str_appendf(ids, sizeof(ids), &off, "%s%s", i ? ", " : "", s->exp[i].id);
	for (const char *p = list;; p += strcspn(p, ","), p++) {
		size_t n = strcspn(p, ","), found = 0;

		for (size_t i = 0; i < s->nexp; i++)
			found += strlen(s->exp[i].id) == n && !strncmp(p, s->exp[i].id, n);
		for (const char *q = list; q < p; q += strcspn(q, ","), q++)
			if (strcspn(q, ",") == n && !strncmp(q, p, n))
				return cmd_usage_error(self, "--experiment names '%.*s' twice", (int)n, p);
		if (!found)
			return cmd_usage_error(self, "--experiment '%.*s': study %s has no such experiment (it has %s)",
					       (int)(n > 64 ? 64 : n), p, s->name, ids);
		if (!p[n])
			break;
	}
	return EXIT_OK;
}

/* --budget-total SECONDS: the full run's budgets, every experiment's with
 * rounds by power the plan's times one factor, so that together they make
 * SECONDS (the study's rounds run whatever the budget: a budget below them
 * is spent once they end; an experiment of fixed rounds runs them, outside
 * it). EXIT_OK, EXIT_USAGE when no experiment has rounds by power, or the
 * exit of an experiment's options that do not parse. */
static int study_budget_share(const struct vmb_cmd *self, struct study_call *call, const struct study *s)
{
	double planned = 0;

	call->budget_scale = 0;
	for (size_t i = 0; i < s->nexp; i++) {
		const struct study_experiment *e = &s->exp[i];
		struct lab_request rq = { 0 };
		int ret;

		if (!study_selected(call->own, e->id) || *e->not_run)
			continue;
		ret = study_request(call, e, false, true, &rq);
		if (ret == CMD_CONTINUE && rq.autorounds)
			planned += optset_double(&rq.own, "budget-total");
		lab_request_release(&rq);
		if (ret != CMD_CONTINUE)
			return ret;
	}
	/* a budget that bounds nothing is refused, as lab run refuses it
	 * without --rounds auto: the run would take its fixed rounds' time */
	if (planned <= 0)
		return cmd_usage_error(self, "--budget-total: no experiment of study %s%s has rounds by power to "
					     "budget (their rounds are fixed: the plan says how long they take); leave it out",
				       s->name, optset_get(call->own, "experiment")->set ? " among those of --experiment" : "");
	call->budget_scale = optset_double(call->own, "budget-total") / planned;
	return EXIT_OK;
}

/* One study, its file at path: its plan, and its run unless --plan. Its
 * closing line (the card's, or under --plan its claims planned) goes to
 * closing, and the plan's estimate is added to *lo, *hi and *boots. */
static int study_one(const struct vmb_cmd *self, const struct optset *own, const char *path, char *closing,
		     size_t closing_len, double *all_lo, double *all_hi, unsigned *all_boots)
{
	struct study *s;
	struct study_call call = { .own = own };
	struct db *db = NULL;
	char err[1200], stamp[64], dbpath[4096], basis[512];
	double lo = 0, hi = 0;
	unsigned boots = 0;
	size_t nclaims = 0, nexp = 0;
	int ret = EXIT_OK, r;
	bool kvm = false;
	time_t now = time(NULL);
	struct tm tm;

	s = calloc(1, sizeof(*s));
	if (!s)
		return EXIT_FAILED;
	r = study_load(path, s, err, sizeof(err));
	if (r < 0) {
		log_error("%s", err);
		free(s);
		return r == -ENOMEM ? EXIT_FAILED : EXIT_USAGE; /* a study that is not there, or not one */
	}
	/* the run's stamp, in the words the plan checks and the run passes */
	gmtime_r(&now, &tm);
	strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", &tm);
	call.name = s->name;
	snprintf(call.run_label, sizeof(call.run_label), "study_run=%s-%s", s->name, stamp);
	ret = check_selection(self, own, s);
	if (ret == EXIT_OK)
		study_say("study %s: %s\n  source: %s\n", s->name, s->title, s->source);
	if (ret == EXIT_OK && optset_get(own, "budget-total")->set)
		ret = study_budget_share(self, &call, s);
	/* the plan foresees from an earlier run in the store, if there is one,
	 * how long a round takes here and what --quick's rounds detect */
	if (db_default_path(optset_str(own, "db"), dbpath, sizeof(dbpath)) == 0 && db_open(dbpath, false, &db) < 0)
		db = NULL;
	/* the plan, also before a run: a bad option stops it before anything boots */
	for (size_t i = 0; i < s->nexp && ret == EXIT_OK; i++)
		if (study_selected(own, s->exp[i].id)) {
			ret = study_plan_experiment(self, &call, path, &s->exp[i], optset_bool(own, "quick"),
					      study_quick_skipped(own, &s->exp[i]), &lo, &hi, &boots, &kvm, db);
			nclaims += s->exp[i].nclaims;
			nexp++;
		}
	db_close(db);
	if (ret == EXIT_OK && kvm)
		study_plan_kvm();
	if (ret == EXIT_OK) {
		study_say("\nin all: %u boots, %s", boots, hi > lo ? "" : "about ");
		study_print_minutes(lo);
		if (hi > lo) {
			study_say(" to ");
			study_print_minutes(hi);
		}
		lab_estimate_basis(basis, sizeof(basis));
		study_say(" (%s)\n", basis);
		*all_lo += lo;
		*all_hi += hi;
		*all_boots += boots;
		snprintf(closing, closing_len, "%s: %zu claim%s in %zu experiment%s, planned (nothing run)", s->name,
			 nclaims, nclaims == 1 ? "" : "s", nexp, nexp == 1 ? "" : "s");
		if (!optset_bool(own, "plan")) {
			ret = study_run(self, own, &call, s);
			snprintf(closing, closing_len, "%s: %s", s->name, *call.tally ? call.tally : "not run to its card");
		}
	} else
		snprintf(closing, closing_len, "%s: not run: its plan was refused (above)", s->name);
	study_release(s);
	free(s);
	return ret;
}

/* --all: the shipped studies in turn, each planned and run (or planned
 * alone under --plan) as by its name, then their cards' closing lines; the
 * exit the worst of theirs. An interruption stops it. */
static int study_all(const struct vmb_cmd *self, const struct optset *own)
{
	struct strv files = { 0 }, closing = { 0 };
	const char *dir = studies_dir();
	double lo = 0, hi = 0;
	unsigned boots = 0;
	int ret = EXIT_OK, r = list_files(dir, &files);

	if (r < 0 || !files.n) {
		log_error("%s: %s (the shipped studies; $VMBENCH_STUDIES names another directory)", dir,
			  r < 0 ? strerror(-r) : "no .study file");
		strv_clear(&files);
		return r == -ENOMEM ? EXIT_FAILED : EXIT_USAGE;
	}
	for (size_t i = 0; i < files.n && !vmb_stop_requested(); i++) {
		char line[400] = "";
		int one;

		study_say("%s", i ? "\n" : "");
		one = study_one(self, own, files.v[i], line, sizeof(line), &lo, &hi, &boots);
		if (one > ret)
			ret = one;
		if (strv_push(&closing, line) < 0) {
			ret = EXIT_FAILED;
			break;
		}
		if (one == EXIT_INTERRUPTED)
			break;
	}
	study_say("\nthe %zu studies%s:\n", files.n, optset_bool(own, "plan") ? " planned" : "");
	for (size_t i = 0; i < closing.n; i++)
		study_say("  %s\n", closing.v[i]);
	study_say("in all, the %zu studies: %u boots, ", files.n, boots);
	study_print_minutes(lo);
	study_say(" to ");
	study_print_minutes(hi);
	study_say("\n");
	strv_clear(&files);
	strv_clear(&closing);
	return ret;
}

int lab_study(const struct vmb_cmd *self, const struct optset *own, const char *arg)
{
	char path[4096], closing[400];
	double lo = 0, hi = 0;
	unsigned boots = 0;
	int ret;

	if (optset_bool(own, "list")) {
		if (arg || optset_bool(own, "all"))
			return cmd_usage_error(self, "--list lists the shipped studies: no FILE%s with it",
					       arg ? "" : " nor --all");
		return study_list(self);
	}
	if (optset_get(own, "budget-total")->set && optset_bool(own, "quick"))
		return cmd_usage_error(self, "--budget-total is a full run's time: --quick's rounds are fixed, leave it out");
	if (optset_get(own, "budget-total")->set && optset_bool(own, "all"))
		return cmd_usage_error(self, "--budget-total is one study's time: give the study's NAME with it, not --all");
	/* --connect: every experiment's guests through libvirt, connected
	 * before the plan, whose configurations say what it cannot carry */
	if (optset_str(own, "connect")) {
		ret = lab_connect(self, optset_str(own, "connect"), optset_double(own, "connect-timeout"));
		if (ret != CMD_CONTINUE)
			return ret;
	}
	if (optset_bool(own, "all")) {
		if (arg)
			return cmd_usage_error(self, "--all runs every shipped study: no FILE with it (or give a FILE "
						     "without --all)");
		if (experiment_list(own))
			return cmd_usage_error(self, "--experiment names experiments of one study: give the study's "
						     "NAME with it, not --all");
		if (optset_get(own, "output")->set)
			return cmd_usage_error(self, "-o names one report, and --all writes one per study, each a new "
						     "file of its own name: leave -o out");
		return study_all(self, own);
	}
	if (!arg)
		return cmd_usage_error(self, "lab study needs a study: FILE, NAME of 'vmbench lab study --list', or "
					     "--all");
	ret = study_path(self, arg, path, sizeof(path));
	if (ret != EXIT_OK)
		return ret;
	return study_one(self, own, path, closing, sizeof(closing), &lo, &hi, &boots);
}

static const struct vmb_opt lab_study_opts[] = {
	LAB_OPT_IMAGE_DIR,
	LAB_OPTS_BOOTS,
	LAB_OPT_QUICK,
	LAB_OPT_HELLO_TIMEOUT,
	LAB_OPT_CONNECT_TIMEOUT,
	LAB_OPT_OUTPUT,
	LAB_OPT_DB,
	{ .name = "list", .type = OPT_BOOL, .help = "list the shipped studies (studies/ of the source tree, or "
						     "$VMBENCH_STUDIES)" },
	{ .name = "plan", .type = OPT_BOOL,
	  .help = "print every experiment's configurations, its boots and an estimated time, with its "
		  "options checked as lab run checks them; nothing runs" },
	{ .name = "all", .type = OPT_BOOL,
	  .help = "every shipped study in turn (with --plan, --quick too), each printing its card and tables, "
		  "then each card's closing line; the exit is the worst of theirs" },
	{ .name = "budget-total", .type = OPT_DOUBLE, .min = 1, .max = 604800, .metavar = "SECONDS",
	  .help = "a full run's time for its experiments with rounds by power, as lab run's --budget-total "
		  "shared out: each one's in proportion to the budget the plan gives it (the study's own rounds run "
		  "whatever the budget, an experiment of fixed rounds as planned; claims left undecided read "
		  "inconclusive with what the run could detect)" },
	{ .name = "connect", .type = OPT_STRING, .metavar = "URI",
	  .help = "boot every experiment's guests through libvirt at URI, as lab run --connect does (one host); "
		  "what libvirt cannot carry yet is skipped with why (a NIC among it); an experiment of lab "
		  "contend runs its policies through libvirt's own calls, as lab contend --connect does (rt "
		  "skipped with why)" },
	{ .name = "experiment", .type = OPT_STRING, .metavar = "ID[,ID]",
	  .help = "plan and run only these experiments of the study (their [experiment ID]), e.g. to measure "
		  "again one whose table was missing; the others are not listed" },
	LAB_OPTS_SAY,
	OPT_TABLE_END,
};

static int cmd_lab_study(const struct vmb_cmd *self, int argc, char **argv)
{
	struct optset own;
	struct strv pos;
	int ret = cmd_parse(self, argc, argv, &own, NULL, &pos);

	if (ret == CMD_CONTINUE) {
		cmd_apply_verbosity(&own);
		ret = lab_study(self, &own, pos.n ? pos.v[0] : NULL);
	}
	cmd_release(&own, NULL, &pos);
	return ret;
}

const struct vmb_cmd cmd_lab_study_desc = {
	.name = "study",
	.fn = cmd_lab_study,
	.args = "FILE|NAME [--plan] | --all [--plan] | --list",
	.summary = "run a published study's experiments and judge its conclusions here",
	.opts = lab_study_opts,
	.max_args = 1,
	.parent = &cmd_lab_desc,
};
