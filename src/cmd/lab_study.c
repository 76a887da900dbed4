/* vmbench lab study: the shipped studies (--list), a study file's plan
 * (--plan: every experiment's configurations, boots and an estimated time,
 * its options checked by lab run's own parser before anything runs), and
 * its run: each experiment a lab run, then the study's tables, its figures
 * beside ours and whether each of its conclusions holds here, on stdout and
 * in one HTML report (docs/study-format.md). */
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

/* What the plan assumes configuration c's boot takes: its image's row in
 * the lab's table (lab_images[].boot_s, a boot under TCG on 2 CPUs). */
static double boot_estimate(const struct lab_config *c)
{
	const struct lab_image_row *img = lab_config_image(c);

	return img ? img->boot_s : lab_images[0].boot_s;
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
static void round_estimate(const struct study_experiment *e, const struct lab_matrix *m,
			   const struct runner_estimate *est, double *lo, double *hi)
{
	double runs = (double)m->n + (strcmp(e->baseline, "none") ? 1 : 0), boot = 0;

	for (size_t i = 0; i < m->n; i++)
		boot += boot_estimate(&m->configs[i]) * e->boots;
	*lo = runs * est->min_s + boot;
	*hi = runs * est->max_s + boot;
}

/* The most rounds a full run's budget is made for: a few times the
 * study's, at least STUDY_AUTO_ROUNDS_MIN, within lab run's 100 */
#define STUDY_AUTO_ROUNDS_MIN 10
static unsigned budget_rounds(unsigned rounds)
{
	unsigned r = rounds * 3 > STUDY_AUTO_ROUNDS_MIN ? rounds * 3 : STUDY_AUTO_ROUNDS_MIN;

	return r > 100 ? 100 : r;
}

/* A full run decides its claims where the machine allows: lab run's rounds
 * by power (--rounds auto), from the study's rounds on, until every
 * headline verdict's smallest detectable difference is within what the
 * finest of its claims needs (study_experiment_mdd), within a budget of
 * budget_rounds() rounds at the estimate's upper bound. Not for lab
 * contend (its rounds are fixed), nor an experiment with no claim to
 * decide or no comparison (one configuration without a baseline): those
 * keep their rounds. rq: parsed, its own and suite_sets as the run has
 * them. CMD_CONTINUE, or an exit. */
static int study_power(const struct study_experiment *e, struct lab_request *rq)
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
		round_estimate(e, &m, &est, &lo, &hi);
		budget = ceil(hi * budget_rounds(study_rounds(e, false)));
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
		ret = study_power(e, rq);
	return ret;
}

void study_print_minutes(double s)
{
	if (s < 90)
		study_say("%.0f s", s);
	else
		study_say("%.0f min", s / 60);
}

/* The count of a comma-separated list ("fair,rt" 2). */
static unsigned list_count(const char *s)
{
	unsigned n = s && *s ? 1 : 0;

	for (; s && *s; s++)
		n += *s == ',';
	return n;
}

/* What the study ran the experiment under (accel =), when it says. */
static void plan_accel(const struct study_experiment *e)
{
	if (e->accel != STUDY_ACCEL_MATRIX)
		study_say("  the study ran it %s\n", e->accel == STUDY_ACCEL_KVM
						? "under hardware virtualization (accel = kvm): KVM where it boots a guest "
						  "here, else TCG, and the rows say which"
						: "without hardware virtualization (accel = tcg)");
}

/* A contend experiment's plan: its guests booted once,
 * then every cell (policy x load) each round,
 * the guests' items run together. */
static int plan_contend(const struct study_experiment *e, unsigned rounds, const struct lab_matrix *m,
			const struct optset *own, const struct runner_estimate *est, double *total_min, double *total_max,
			unsigned *boots)
{
	unsigned guests = (unsigned)optset_int(own, "guests");
	unsigned cells = list_count(optset_str(own, "policy")) * list_count(optset_str(own, "load"));
	double boot = m->n ? boot_estimate(&m->configs[0]) * guests : 0;
	double lo = (double)cells * rounds * est->min_s + boot, hi = (double)cells * rounds * est->max_s + boot;

	study_say("  lab contend: %u guests of one configuration at once (%s), booted once; %u cell%s (policies %s x "
	       "loads %s) x %u round%s; %s of the rounds%s%s\n",
	       guests, e->matrix, cells, cells == 1 ? "" : "s", optset_str(own, "policy"), optset_str(own, "load"),
	       rounds, rounds == 1 ? "" : "s", study_stat_name(e->stat), strcmp(e->baseline, "none") ? ", against " : "",
	       strcmp(e->baseline, "none") ? e->baseline : "");
	plan_accel(e);
	for (size_t i = 0; i < e->stand_in.n; i++)
		study_say("  stands in: %s\n", e->stand_in.v[i]);
	study_say("  suites %s in every guest together: %zu case%s a cell, ", e->suites, est->ncases,
	       est->ncases == 1 ? "" : "s");
	study_print_minutes(est->min_s);
	study_say(" to ");
	study_print_minutes(est->max_s);
	study_say(" each (the guests share the host CPUs: longer under contention)\n  estimated: ");
	study_print_minutes(lo);
	study_say(" to ");
	study_print_minutes(hi);
	study_say("\n");
	*total_min += lo;
	*total_max += hi;
	*boots += guests;
	return EXIT_OK;
}

/* What lab run's parser filled for an experiment's options, let go. */
static void release_parse(struct optset *own, struct optset *suite_sets, struct strv *av, struct strv *pos)
{
	optset_release(own);
	for (size_t i = 0; suite_sets && i < vmb_nsuites; i++)
		optset_release(&suite_sets[i]);
	free(suite_sets);
	strv_clear(av);
	strv_clear(pos);
}

/* What a study's option lines may not set, and why: what its own keys set
 * (the last value would win over them), where results go and what boots in
 * the guests (the command line's: a study file is shared, and input), and
 * lab study's own. The options' names are rows of lab run's and contend's tables. */
static const struct {
	const char *name, *why;
} study_refused[] = {
	{ "matrix", "the experiment's matrix key says what it boots" },
	{ "suites", "the experiment's suites key says what it measures" },
	{ "rounds", "the experiment's rounds and quick-rounds keys say how often it boots" },
	{ "boots", "the experiment's boots key says it" },
	{ "baseline", "the experiment's baseline key says it" },
	{ "quick", "--quick is lab study's command line's; quick-option lines say what it changes" },
	{ "db", "where the results go is the command line's (lab study --db PATH)" },
	{ "output", "the report is lab study's own (lab study -o FILE)" },
	{ "image-dir", "what boots in the guests is the command line's (lab study --image-dir DIR)" },
	{ "cache", "what boots in the guests is the command line's (lab study --cache DIR)" },
	{ "kernel", "what boots in the guests is the command line's (lab study --kernel PATH)" },
	{ "busybox", "what boots in the guests is the command line's (lab study --busybox PATH)" },
	{ "agent", "what runs in the guests is the command line's (lab study --agent ARCH=PATH)" },
	{ "quiet", "how much is said is the command line's" },
	{ "verbose", "how much is said is the command line's" },
	{ "help", "lab study's command line's" },
};

/* The labels lab study sets on every result itself. */
static const char *const study_labels[] = { "study", "experiment", "study_run" };

/* One option or quick-option line, alone: lab run's parser takes it (its
 * words are options, each with its value), and it sets nothing a study may
 * not. EXIT_OK, or EXIT_USAGE after a message naming the file's line. */
static int check_option_line(const struct vmb_cmd *self, const char *file, const struct study_experiment *e,
			     const struct study_optline *ol)
{
	const struct strv *w = ol->quick ? &e->quick_options : &e->options;
	const char *key = ol->quick ? "quick-option" : "option", *verb = e->contend ? "contend" : "run";
	struct optset own = { 0 }, *suite_sets = calloc(vmb_nsuites, sizeof(*suite_sets));
	struct strv av = { 0 }, pos = { 0 };
	/* the verb's parser, with every word not an option's value kept to be named below */
	struct vmb_cmd parser = *(e->contend ? &cmd_lab_contend_desc : &cmd_lab_run_desc);
	int ret = EXIT_FAILED, r = 0;

	(void)self;
	parser.max_args = CMD_ARGS_ANY;
	for (size_t i = ol->first; r == 0 && i < ol->first + ol->n; i++)
		r = strv_push(&av, w->v[i]);
	if (!suite_sets || r < 0)
		goto out;
	/* lab run's parser prints its help for --help: refused before it is parsed */
	for (size_t i = 0; i < av.n; i++)
		if (!strcmp(av.v[i], "--help") || !strcmp(av.v[i], "-h") || str_has_prefix(av.v[i], "--help=")) {
			log_error("%s:%u: %s %s: a study may not give it (lab study's command line's)", file, ol->line, key,
				  av.v[i]);
			ret = EXIT_USAGE;
			goto out;
		}
	ret = EXIT_USAGE;
	if (cmd_parse(&parser, (int)av.n, av.v, &own, suite_sets, &pos) != CMD_CONTINUE) {
		log_error("%s:%u: %s %s ...: lab %s refuses it (above)", file, ol->line, key, av.v[0], verb);
		goto out;
	}
	if (pos.n > 0) {
		log_error("%s:%u: %s: '%s' is no option of lab %s's: %s = --NAME [VALUE], each word an option or its "
			  "value", file, ol->line, key, pos.v[0], verb, key);
		goto out;
	}
	for (size_t i = 0; i < ARRAY_SIZE(study_refused); i++) {
		/* a name the verb's table lacks its parser refused already */
		bool has = false;

		for (size_t k = 0; k < own.n && !has; k++)
			has = !strcmp(own.opts[k].name, study_refused[i].name) && own.vals[k].set;
		if (has) {
			log_error("%s:%u: %s --%s: a study may not give it: %s", file, ol->line, key, study_refused[i].name,
				  study_refused[i].why);
			goto out;
		}
	}
	for (size_t i = 0; i < optset_get(&own, "label")->kv.n; i++) {
		const char *kv = optset_get(&own, "label")->kv.v[i];

		for (size_t k = 0; k < ARRAY_SIZE(study_labels); k++)
			if (strcspn(kv, "=") == strlen(study_labels[k]) && !strncmp(kv, study_labels[k], strcspn(kv, "="))) {
				log_error("%s:%u: %s --label %s: lab study sets the labels study, experiment and study_run "
					  "itself; choose another key", file, ol->line, key, kv);
				goto out;
			}
	}
	ret = EXIT_OK;
out:
	release_parse(&own, suite_sets, &av, &pos);
	return ret;
}

/* An experiment as lab run (or contend) will be given it, checked as that
 * checks it before the first boot: each option line alone, then the whole
 * command line of the plan's form and of the other (--quick or not), word
 * for word what the run passes. What only this machine decides (its CPUs,
 * a configuration it cannot run) is left to the run: that refuses the
 * experiment alone as it starts. EXIT_OK, or an exit after a message. */
static int check_experiment(const struct vmb_cmd *self, const struct study_call *call, const char *file,
			    const struct study_experiment *e, bool quick)
{
	for (size_t i = 0; i < e->noptlines; i++) {
		int ret = check_option_line(self, file, e, &e->optlines[i]);

		if (ret != EXIT_OK)
			return ret;
	}
	for (int k = 0; k < 2; k++) {
		bool q = k ? !quick : quick;
		struct lab_request rq = { 0 };
		char session[64];
		int ret = study_request(call, e, q, true, &rq);

		rq.session = session;
		rq.session_len = sizeof(session);
		if (ret == CMD_CONTINUE)
			ret = lab_request_start(&rq);
		lab_request_release(&rq);
		if (ret == EXIT_USAGE)
			log_error("%s:%u: [experiment %s]: lab %s refuses its options%s (above)", file, e->line, e->id,
				  e->contend ? "contend" : "run", !k ? "" : q ? " under --quick" : " without --quick");
		if (ret != EXIT_OK)
			return ret;
	}
	return EXIT_OK;
}

/* The documents of the newest earlier run of experiment e of study name
 * in the store (its labels study, experiment, and the newest study_run),
 * to foresee what --quick's rounds detect; NULL when there is none (no
 * store, nothing of it stored). run: that study_run. */
struct prior {
	struct db *db;
	json_t *docs;
};

static int prior_row(const struct db_row *row, void *arg)
{
	struct prior *p = arg;
	char id[32];
	json_t *doc;

	if (row->lab_failure || row->interrupted || row->unreadable)
		return 0;
	snprintf(id, sizeof(id), "%lld", (long long)row->id);
	if (db_get(p->db, id, &doc) < 0)
		return 0;
	return json_array_append_new(p->docs, doc) < 0 ? -ENOMEM : 0;
}

static json_t *prior_docs(struct db *db, const char *study, const struct study_experiment *e, char *run, size_t len)
{
	struct strv filter = { 0 };
	struct prior p = { .db = db, .docs = json_array() };
	json_t *mine = json_array(), *doc;
	char kv[160];
	size_t i;

	*run = '\0';
	snprintf(kv, sizeof(kv), "study=%s", study);
	(void)strv_push(&filter, kv);
	snprintf(kv, sizeof(kv), "experiment=%s", e->id);
	(void)strv_push(&filter, kv);
	if (!db || !p.docs || !mine || filter.n != 2 || db_list(db, &filter, prior_row, &p) < 0)
		goto none;
	/* study_run=NAME-DATE-TIME: the newest sorts last */
	json_array_foreach(p.docs, i, doc) {
		const char *r = json_string_value(json_object_get(json_object_get(doc, "labels"), "study_run"));

		if (r && strcmp(r, run) > 0)
			snprintf(run, len, "%s", r);
	}
	json_array_foreach(p.docs, i, doc) {
		const char *r = json_string_value(json_object_get(json_object_get(doc, "labels"), "study_run"));

		if (*run && r && !strcmp(r, run) && json_array_append(mine, doc) < 0)
			goto none;
	}
	if (!json_array_size(mine))
		goto none;
	strv_clear(&filter);
	json_decref(p.docs);
	return mine;
none:
	strv_clear(&filter);
	json_decref(p.docs);
	json_decref(mine);
	return NULL;
}

/* What a claim's round-to-round spread is assumed to be when no earlier run
 * of its experiment measured it (a log ratio's standard deviation: 5%) */
#define STUDY_ASSUMED_SPREAD 0.05

/* The full run's rounds, said: by power (study_power) or fixed, and why */
static void plan_rounds(const struct study_experiment *e, const struct lab_request *rq, unsigned rounds)
{
	char why[256];
	size_t which = 0;
	double mdd = study_experiment_mdd(e, &which, why, sizeof(why));

	if (rq->autorounds) {
		study_say("  rounds by power: at least %u (the study's), then more until every headline verdict's smallest "
			  "detectable difference is within %g%% (what '%s' needs: %s), within --budget-total %.0f s (%u "
			  "rounds at the estimate's upper bound)\n", rq->min_rounds, optset_double(&rq->own, "mdd"),
			  e->claim[which].text, why, optset_double(&rq->own, "budget-total"),
			  budget_rounds(rounds));
		return;
	}
	if (e->contend)
		study_say("  rounds: %u, fixed (lab contend's rounds are not by power)\n", rounds);
	else
		study_say("  rounds: %u, fixed (%s)\n", rounds, isnan(mdd) ? "no claim of it to decide" :
			  "one configuration and no baseline: no verdict to bring within a difference");
}

/* --quick's fixed rounds, and which claims they leave inconclusive at
 * their size: what the rounds detect from the spread of the newest earlier
 * run of the experiment in the store, else under a stated assumption */
static void plan_quick(const struct study_experiment *e, unsigned rounds, const json_t *prior, const char *run)
{
	char finer[1024] = "", why[256];
	size_t off = 0, nfiner = 0;
	double lo = INFINITY, hi = 0, assumed = stats_paired_mdd_pct(STUDY_ASSUMED_SPREAD, rounds);
	bool unknown = false;

	for (size_t k = 0; k < e->nclaims; k++) {
		const struct study_claim *c = &e->claim[k];
		double detect = 0, need = INFINITY;

		if (*c->not_comparable)
			continue;
		for (unsigned i = 0; i < c->n; i++) {
			const struct study_rel *x = &e->rel[c->first + i];
			double n1 = study_rel_need_pct(c, x, why, sizeof(why)), d = assumed;
			size_t n = 0;

			if (prior) {
				double sd = study_rel_spread(e, x, prior, &n);

				d = isfinite(sd) ? stats_paired_mdd_pct(sd, rounds) : NAN;
			}
			if (isnan(d))
				unknown = true;
			else if (d > detect)
				detect = d;
			if (n1 < need)
				need = n1;
		}
		if (detect < lo)
			lo = detect;
		if (detect > hi)
			hi = detect;
		if (need < detect) {
			str_appendf(finer, sizeof(finer), &off, "%s'%s' (needs %.3g%%, detects about %.3g%%)",
				    nfiner ? ", " : "", c->text, need, detect);
			nfiner++;
		}
	}
	if (!isfinite(lo))
		return; /* no claim judged */
	if (prior) {
		char range[64];

		if (lo == hi)
			snprintf(range, sizeof(range), "%.3g%%", lo);
		else
			snprintf(range, sizeof(range), "%.3g%% to %.3g%%", lo, hi);
		study_say("  --quick: %u rounds detect about %s here (from the spread of the rounds of study_run=%s, the "
			  "newest earlier run of it in the store%s); claims needing finer: %s\n", rounds, range, run,
			  unknown ? "; some of its relations it did not measure twice" : "", nfiner ? finer : "none");
	} else
		study_say("  --quick: %u rounds; what they detect here is not known before a run (no earlier run of this "
			  "experiment in the store to measure its rounds' spread); if a claim's ratio moves %.0f%% from round "
			  "to round (an assumption), about %.3g%%; claims needing finer: %s\n",
			  rounds, 100 * STUDY_ASSUMED_SPREAD, assumed, nfiner ? finer : "none");
}

/* How many rounds: --quick's, and what they leave undecided; else the full run's */
static void plan_how_many(const struct study_call *call, const struct study_experiment *e,
			  const struct lab_request *rq, bool quick, unsigned rounds, struct db *db)
{
	char run[128];
	json_t *prior;

	if (!quick) {
		plan_rounds(e, rq, rounds);
		return;
	}
	prior = prior_docs(db, call->name, e, run, sizeof(run));
	plan_quick(e, rounds, prior, run);
	json_decref(prior);
}

/* One experiment's plan; EXIT_OK, or the exit of lab run's own check of its
 * options. skip: --quick leaves it out (quick-skip, and --experiment does not
 * name it): listed with why. */
/* Each claim of an experiment, its published figure and how it is judged */
static void plan_claims(const struct study_experiment *e)
{
	for (size_t k = 0; k < e->nclaims; k++) {
		const struct study_claim *c = &e->claim[k];
		char how[1024];

		study_claim_how(e, c, how, sizeof(how));
		study_say("  claim: %s%s%s%s\n    judged: %s\n", c->text, *c->published ? " (published: " : "", c->published,
			  *c->published ? ")" : "", how);
	}
}

static int plan_experiment(const struct vmb_cmd *self, const struct study_call *call, const char *file,
			   const struct study_experiment *e, bool quick, bool skip, double *total_min, double *total_max,
			   unsigned *boots, bool *kvm, struct db *db)
{
	struct lab_request rq = { 0 };
	struct optset *own = &rq.own, *suite_sets = NULL;
	struct lab_matrix m = { 0 };
	struct runner_estimate est = { 0 };
	char err[1024];
	int ret = EXIT_FAILED;
	bool host;
	unsigned n, rounds = study_rounds(e, quick);

	study_say("\n[experiment %s] %s\n", e->id, e->title);
	plan_claims(e);
	if (*e->not_run) {
		study_say("  not run: %s\n", e->not_run);
		return EXIT_OK;
	}
	ret = check_experiment(self, call, file, e, quick);
	if (ret != EXIT_OK)
		return ret;
	if (skip) {
		study_say("  not part of --quick: %s ('--experiment %s' runs it)\n", e->quick_skip, e->id);
		return EXIT_OK;
	}
	ret = EXIT_FAILED;
	for (size_t i = 0; quick && i < e->quick_options.n; i++)
		study_say("%s%s%s", i ? " " : "  --quick adds: ", e->quick_options.v[i], i + 1 == e->quick_options.n ? "\n" : "");
	/* the options the estimate needs, as the check above took them */
	if (study_request(call, e, quick, true, &rq) != CMD_CONTINUE)
		goto out;
	suite_sets = rq.suite_sets;
	if (quick && optset_apply_quick(own) < 0)
		goto out;
	for (size_t i = 0; quick && i < vmb_nsuites; i++)
		if (optset_apply_quick(&suite_sets[i]) < 0)
			goto out;
	if (lab_matrix_parse(e->matrix, &m, err, sizeof(err)) < 0) {
		log_error("%s:%u: %s", file, e->line, err);
		goto out;
	}
	if (run_estimate_items(e->suites, own, suite_sets, quick, &est) < 0) {
		log_error("%s:%u: [experiment %s]: no estimate of its suites", file, e->line, e->id);
		goto out;
	}
	/* a configuration that may run under KVM here: accel=kvm, or auto of
	 * this machine's architecture (lab contend's auto is TCG) */
	for (size_t i = 0; i < m.n; i++)
		*kvm |= !strcmp(m.configs[i].v[LAB_ACCEL], "kvm") ||
			(!e->contend && !strcmp(m.configs[i].v[LAB_ACCEL], "auto") &&
			 !strcmp(m.configs[i].v[LAB_ARCH], lab_host_arch()));
	if (e->contend) {
		ret = plan_contend(e, rounds, &m, own, &est, total_min, total_max, boots);
		plan_how_many(call, e, &rq, quick, rounds, db);
		goto out;
	}
	host = strcmp(e->baseline, "none") != 0;
	n = (unsigned)m.n * rounds * e->boots;
	study_say("  %zu configuration%s x %u round%s x %u boot%s = %u boot%s%s; %s of the rounds, against %s\n", m.n,
	       m.n == 1 ? "" : "s", rounds, rounds == 1 ? "" : "s", e->boots, e->boots == 1 ? "" : "s", n,
	       n == 1 ? "" : "s", host ? ", and the host measured each round" : "",
	       study_stat_name(e->stat), !strcmp(e->baseline, "host") ? "the host" : e->baseline);
	for (size_t i = 0; i < m.n; i++) {
		char name[512] = "";
		size_t off = 0;

		for (size_t k = 0; k < lab_nkeys; k++)
			if (m.given & (1u << k))
				off += (size_t)snprintf(name + off, sizeof(name) - off, "%s%s=%s", off ? " " : "",
							lab_key_name((enum lab_key)k), m.configs[i].v[k]);
		study_say("    %s\n", name);
	}
	plan_how_many(call, e, &rq, quick, rounds, db);
	plan_accel(e);
	for (size_t i = 0; i < e->stand_in.n; i++)
		study_say("  stands in: %s\n", e->stand_in.v[i]);
	study_say("  suites %s: %zu case%s a run, ", e->suites, est.ncases, est.ncases == 1 ? "" : "s");
	study_print_minutes(est.min_s);
	study_say(" to ");
	study_print_minutes(est.max_s);
	study_say(" each\n  estimated: ");
	{
		double lo, hi;

		round_estimate(e, &m, &est, &lo, &hi);
		lo *= rounds;
		/* by power: the study's rounds at the least, its budget at the most */
		hi = rq.autorounds ? optset_double(own, "budget-total") : hi * rounds;
		study_print_minutes(lo);
		study_say(" to ");
		study_print_minutes(hi);
		study_say("%s\n", rq.autorounds ? " (its rounds by power: the study's at the least, its budget at the most)" : "");
		*total_min += lo;
		*total_max += hi;
		*boots += n;
	}
	ret = EXIT_OK;
out:
	lab_matrix_release(&m);
	lab_request_release(&rq);
	return ret;
}

/* Once per plan, when a configuration may run under KVM: whether KVM
 * boots a guest here, from what is known without booting one (the plan
 * boots nothing): /dev/kvm as `info` probes it, and the lab's verdict made
 * on this host, kernel and QEMU (kvmguest.h), with its age. */
static void plan_kvm(void)
{
	struct lab_kvm_verdict v;
	bool this_boot = false;
	char why[256], where[800], age[32];

	if (!probe_kvm_usable(probe_machine_root(), why, sizeof(why))) {
		study_say("\nKVM: /dev/kvm is %s: the configurations that ask for KVM run under TCG (accel=auto, a study's "
			  "accel = kvm) or are skipped (accel=kvm), and the rows say so\n", why);
		return;
	}
	if (lab_kvm_verdict_load(&v, &this_boot) == 0 && lab_kvm_verdict_here(&v, where, sizeof(where))) {
		lab_kvm_age(v.when, age, sizeof(age));
		if (!v.runs) {
			study_say("\nKVM: /dev/kvm creates VMs, but a lab guest did not boot under it here %s ago (the lab's "
				  "verdict for this host, kernel and QEMU%s%s): the configurations that ask for KVM run under "
				  "TCG without trying it (accel=auto, a study's accel = kvm), and the rows say so; 'vmbench lab "
				  "run --matrix accel=kvm --suites boot' tries it again\n",
				  age, *v.reason ? ": " : "", v.reason);
			return;
		}
		study_say("\nKVM: a lab guest booted under this machine's KVM %s ago (the lab's verdict for this host, "
			  "kernel and QEMU): the configurations that ask for KVM run under it\n", age);
		return;
	}
	study_say("\nKVM: /dev/kvm creates VMs; whether a guest boots under it is not known here yet (no verdict of the "
		  "lab's for this host, kernel and QEMU; 'vmbench info' says what is known): the first configuration that "
		  "asks for KVM finds out, within 15 s under accel=auto and a study's accel = kvm, and the run uses TCG for "
		  "the rest if it cannot\n");
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

/* One study, its file at path: its plan, and its run unless --plan. Its
 * closing line (the card's, or under --plan its claims planned) goes to
 * closing, and the plan's estimate is added to *lo, *hi and *boots. */
static int study_one(const struct vmb_cmd *self, const struct optset *own, const char *path, char *closing,
		     size_t closing_len, double *all_lo, double *all_hi, unsigned *all_boots)
{
	struct study *s;
	struct study_call call = { .own = own };
	struct db *db = NULL;
	char err[1200], stamp[64], dbpath[4096];
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
	/* --quick's plan foresees what its rounds detect from an earlier run in the store, if there is one */
	if (optset_bool(own, "quick") && db_default_path(optset_str(own, "db"), dbpath, sizeof(dbpath)) == 0 &&
	    db_open(dbpath, false, &db) < 0)
		db = NULL;
	/* the plan, also before a run: a bad option stops it before anything boots */
	for (size_t i = 0; i < s->nexp && ret == EXIT_OK; i++)
		if (study_selected(own, s->exp[i].id)) {
			ret = plan_experiment(self, &call, path, &s->exp[i], optset_bool(own, "quick"),
					      study_quick_skipped(own, &s->exp[i]), &lo, &hi, &boots, &kvm, db);
			nclaims += s->exp[i].nclaims;
			nexp++;
		}
	db_close(db);
	if (ret == EXIT_OK && kvm)
		plan_kvm();
	if (ret == EXIT_OK) {
		study_say("\nin all: %u boots, ", boots);
		study_print_minutes(lo);
		study_say(" to ");
		study_print_minutes(hi);
		study_say(" (a boot as the lab's images take under TCG:");
		for (size_t i = 0; i < lab_nimages; i++)
			study_say("%s %s %u s", i ? "," : "", lab_images[i].name, lab_images[i].boot_s);
		study_say("; the suites by their stop rule, as 'vmbench list' estimates; a guest's set-up and a slow "
		    "emulation add to it)\n");
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
