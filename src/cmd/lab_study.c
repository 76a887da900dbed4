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
#include "../core/log.h"
#include "../core/opts.h"
#include "../core/str.h"
#include "../core/runner.h"
#include "../core/stats.h"
#include "../core/stop.h"
#include "../report/html.h"
#include "../report/text.h"
#include "../store/db.h"
#include "../lab/matrix.h"
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
static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void say(const char *fmt, ...)
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
static void html_study(FILE *f, const char *text)
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
		say("%-16s %s\n%-16s %zu experiments, %zu for a QEMU lab: 'vmbench lab study %s --plan'\n", s->name,
		       s->title, "", s->nexp, run, s->name);
		study_release(s);
		free(s);
	}
	(void)self;
	strv_clear(&files);
	return ret;
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

/* The labels and the command line's words every experiment's lab run gets:
 * the study's name, its run's stamp, and the places and settings the
 * command line gave (never the study file). */
struct study_call {
	const struct optset *own; /* lab study's options */
	const char *name;         /* the study's */
	char run_label[128];      /* study_run=NAME-DATE-TIME */
};

/* The words of lab run for an experiment: what `lab study` runs, and what
 * its plan checks, word for word. */
static int experiment_argv(const struct study_call *call, const struct study_experiment *e, bool quick,
			   struct strv *av)
{
	/* what the command line says of where results go and what boots, passed on */
	static const char *const pass[] = { "db", "cache", "image-dir", "kernel", "busybox", "agent", "hello-timeout" };
	char num[16], label[128];
	int r = 0;

	r |= strv_push(av, e->contend ? "contend" : "run");
	r |= strv_push(av, "--matrix");
	r |= strv_push(av, e->matrix);
	r |= strv_push(av, "--suites");
	r |= strv_push(av, e->suites);
	snprintf(num, sizeof(num), "%u", study_rounds(e, quick));
	r |= strv_push(av, "--rounds");
	r |= strv_push(av, num);
	/* lab contend boots its guests once, and its table's baseline is the study's alone */
	if (!e->contend) {
		snprintf(num, sizeof(num), "%u", e->boots);
		r |= strv_push(av, "--boots");
		r |= strv_push(av, num);
		r |= strv_push(av, "--baseline");
		r |= strv_push(av, e->baseline);
	}
	for (size_t i = 0; i < e->options.n; i++)
		r |= strv_push(av, e->options.v[i]);
	for (size_t i = 0; quick && i < e->quick_options.n; i++)
		r |= strv_push(av, e->quick_options.v[i]);
	if (quick)
		r |= strv_push(av, "--quick");
	snprintf(label, sizeof(label), "study=%s", call->name);
	r |= strv_push(av, "--label");
	r |= strv_push(av, label);
	snprintf(label, sizeof(label), "experiment=%s", e->id);
	r |= strv_push(av, "--label");
	r |= strv_push(av, label);
	r |= strv_push(av, "--label");
	r |= strv_push(av, call->run_label);
	for (size_t k = 0; k < ARRAY_SIZE(pass); k++) {
		const struct opt_value *v = optset_get(call->own, pass[k]);
		size_t words = v && v->set ? (v->kv.n ? v->kv.n : 1) : 0; /* --agent: each ARCH=PATH */

		for (size_t j = 0; j < words; j++) {
			char word[4200]; /* a path of up to PATH_MAX: never cut, or lab run stores elsewhere */
			int n;

			if (v->kv.n)
				n = snprintf(word, sizeof(word), "--%s=%s", pass[k], v->kv.v[j]);
			else if (!strcmp(pass[k], "hello-timeout"))
				n = snprintf(word, sizeof(word), "--hello-timeout=%g", optset_double(call->own, pass[k]));
			else
				n = snprintf(word, sizeof(word), "--%s=%s", pass[k], optset_str(call->own, pass[k]));
			if (n < 0 || (size_t)n >= sizeof(word)) {
				log_error("--%s: longer than %zu characters", pass[k], sizeof(word) - 8);
				return -ENAMETOOLONG;
			}
			r |= strv_push(av, word);
		}
	}
	if (optset_bool(call->own, "quiet"))
		r |= strv_push(av, "-q");
	return r < 0 ? -ENOMEM : 0;
}

static void print_minutes(double s)
{
	if (s < 90)
		say("%.0f s", s);
	else
		say("%.0f min", s / 60);
}

/* The count of a comma-separated list ("fair,rt" 2). */
static unsigned list_count(const char *s)
{
	unsigned n = s && *s ? 1 : 0;

	for (; s && *s; s++)
		n += *s == ',';
	return n;
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

	say("  lab contend: %u guests of one configuration at once (%s), booted once; %u cell%s (policies %s x "
	       "loads %s) x %u round%s; %s of the rounds%s%s\n",
	       guests, e->matrix, cells, cells == 1 ? "" : "s", optset_str(own, "policy"), optset_str(own, "load"),
	       rounds, rounds == 1 ? "" : "s", study_stat_name(e->stat), strcmp(e->baseline, "none") ? ", against " : "",
	       strcmp(e->baseline, "none") ? e->baseline : "");
	for (size_t i = 0; i < e->stand_in.n; i++)
		say("  stands in: %s\n", e->stand_in.v[i]);
	say("  suites %s in every guest together: %zu case%s a cell, ", e->suites, est->ncases,
	       est->ncases == 1 ? "" : "s");
	print_minutes(est->min_s);
	say(" to ");
	print_minutes(est->max_s);
	say(" each (the guests share the host CPUs: longer under contention)\n  estimated: ");
	print_minutes(lo);
	say(" to ");
	print_minutes(hi);
	say("\n");
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
 * lab study's own. The options' names are lab_opts' rows (src/cmd/lab.c). */
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
	{ "arch", "the matrix key arch says a guest's architecture" },
	{ "distro", "lab image's; the matrix key image boots a distribution's image" },
	{ "distro-packages", "lab image's; the matrix key image boots a distribution's image" },
	{ "list", "lab study's own" },
	{ "plan", "lab study's own" },
	{ "experiment", "lab study's own" },
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
	int ret = EXIT_FAILED, r = strv_push(&av, verb);

	for (size_t i = ol->first; r == 0 && i < ol->first + ol->n; i++)
		r = strv_push(&av, w->v[i]);
	if (!suite_sets || r < 0)
		goto out;
	/* lab run's parser prints its help for --help: refused before it is parsed */
	for (size_t i = 1; i < av.n; i++)
		if (!strcmp(av.v[i], "--help") || !strcmp(av.v[i], "-h") || str_has_prefix(av.v[i], "--help=")) {
			log_error("%s:%u: %s %s: a study may not give it (lab study's command line's)", file, ol->line, key,
				  av.v[i]);
			ret = EXIT_USAGE;
			goto out;
		}
	ret = EXIT_USAGE;
	if (cmd_parse(self, (int)av.n, av.v, &own, suite_sets, &pos) != CMD_CONTINUE) {
		log_error("%s:%u: %s %s ...: lab %s refuses it (above)", file, ol->line, key, av.v[1], verb);
		goto out;
	}
	if (pos.n > 1) {
		log_error("%s:%u: %s: '%s' is no option of lab %s's: %s = --NAME [VALUE], each word an option or its "
			  "value", file, ol->line, key, pos.v[1], verb, key);
		goto out;
	}
	for (size_t i = 0; i < ARRAY_SIZE(study_refused); i++) {
		const struct opt_value *v = optset_get(&own, study_refused[i].name);

		if (v && v->set) {
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
		struct strv av = { 0 };
		char session[64];
		int ret = experiment_argv(call, e, q, &av);

		if (ret == 0)
			ret = lab_study_run(self, (int)av.n, av.v, true, session, sizeof(session));
		else
			ret = EXIT_FAILED;
		strv_clear(&av);
		if (ret == EXIT_USAGE)
			log_error("%s:%u: [experiment %s]: lab %s refuses its options%s (above)", file, e->line, e->id,
				  e->contend ? "contend" : "run", !k ? "" : q ? " under --quick" : " without --quick");
		if (ret != EXIT_OK)
			return ret;
	}
	return EXIT_OK;
}

/* One experiment's plan; EXIT_OK, or the exit of lab run's own check of its
 * options. skip: --quick leaves it out (quick-skip, and --experiment does not
 * name it): listed with why. */
static int plan_experiment(const struct vmb_cmd *self, const struct study_call *call, const char *file,
			   const struct study_experiment *e, bool quick, bool skip, double *total_min, double *total_max,
			   unsigned *boots)
{
	struct optset own = { 0 }, *suite_sets = NULL;
	struct strv av = { 0 }, pos = { 0 };
	struct lab_matrix m = { 0 };
	struct runner_estimate est = { 0 };
	char err[1024];
	int ret = EXIT_FAILED;
	bool host;
	unsigned n, rounds = study_rounds(e, quick);

	say("\n[experiment %s] %s\n", e->id, e->title);
	if (*e->not_run) {
		say("  not run: %s\n", e->not_run);
		return EXIT_OK;
	}
	ret = check_experiment(self, call, file, e, quick);
	if (ret != EXIT_OK)
		return ret;
	if (skip) {
		say("  not part of --quick: %s ('--experiment %s' runs it)\n", e->quick_skip, e->id);
		return EXIT_OK;
	}
	ret = EXIT_FAILED;
	suite_sets = calloc(vmb_nsuites, sizeof(*suite_sets));
	for (size_t i = 0; quick && i < e->quick_options.n; i++)
		say("%s%s%s", i ? " " : "  --quick adds: ", e->quick_options.v[i], i + 1 == e->quick_options.n ? "\n" : "");
	/* the options the estimate needs, as the check above took them */
	if (!suite_sets || experiment_argv(call, e, quick, &av) < 0)
		goto out;
	if (cmd_parse(self, (int)av.n, av.v, &own, suite_sets, &pos) != CMD_CONTINUE)
		goto out;
	if (quick && optset_apply_quick(&own) < 0)
		goto out;
	for (size_t i = 0; quick && i < vmb_nsuites; i++)
		if (optset_apply_quick(&suite_sets[i]) < 0)
			goto out;
	if (lab_matrix_parse(e->matrix, &m, err, sizeof(err)) < 0) {
		log_error("%s:%u: %s", file, e->line, err);
		goto out;
	}
	if (run_estimate_items(e->suites, &own, suite_sets, &est) < 0) {
		log_error("%s:%u: [experiment %s]: no estimate of its suites", file, e->line, e->id);
		goto out;
	}
	if (e->contend) {
		ret = plan_contend(e, rounds, &m, &own, &est, total_min, total_max, boots);
		goto out;
	}
	host = strcmp(e->baseline, "none") != 0;
	n = (unsigned)m.n * rounds * e->boots;
	say("  %zu configuration%s x %u round%s x %u boot%s = %u boot%s%s; %s of the rounds, against %s\n", m.n,
	       m.n == 1 ? "" : "s", rounds, rounds == 1 ? "" : "s", e->boots, e->boots == 1 ? "" : "s", n,
	       n == 1 ? "" : "s", host ? ", and the host measured each round" : "",
	       study_stat_name(e->stat), !strcmp(e->baseline, "host") ? "the host" : e->baseline);
	for (size_t i = 0; i < m.n; i++) {
		char name[512] = "";
		size_t off = 0;

		for (size_t k = 0; k < LAB_NKEYS; k++)
			if (m.given & (1u << k))
				off += (size_t)snprintf(name + off, sizeof(name) - off, "%s%s=%s", off ? " " : "",
							lab_key_name((enum lab_key)k), m.configs[i].v[k]);
		say("    %s\n", name);
	}
	for (size_t i = 0; i < e->stand_in.n; i++)
		say("  stands in: %s\n", e->stand_in.v[i]);
	say("  suites %s: %zu case%s a run, ", e->suites, est.ncases, est.ncases == 1 ? "" : "s");
	print_minutes(est.min_s);
	say(" to ");
	print_minutes(est.max_s);
	say(" each\n  estimated: ");
	{
		double runs = (double)m.n * rounds + (host ? rounds : 0), boot = 0;

		for (size_t i = 0; i < m.n; i++)
			boot += boot_estimate(&m.configs[i]) * rounds * e->boots;
		double lo = runs * est.min_s + boot, hi = runs * est.max_s + boot;

		print_minutes(lo);
		say(" to ");
		print_minutes(hi);
		say("\n");
		*total_min += lo;
		*total_max += hi;
		*boots += n;
	}
	ret = EXIT_OK;
out:
	lab_matrix_release(&m);
	release_parse(&own, suite_sets, &av, &pos);
	return ret;
}

/* ---- a run: each experiment through lab run, then the study's table ---- */

/* What an experiment's run came to, for the text and the report. */
struct study_result {
	const struct study_experiment *e;
	char session[64];
	int exit;           /* lab run's */
	char note[512];     /* why no table: not run, failed */
	struct study_table t;
};

/* The table of an experiment's session. */
static int tabulate(const struct vmb_cmd *self, const char *db_opt, struct study_result *res)
{
	struct db *db = NULL;
	json_t *docs = NULL;
	char sel[96], name[128];
	int ret;

	snprintf(sel, sizeof(sel), "lab=%s", res->session);
	ret = cmd_load_operand(self, sel, db_opt, &db, &docs, name, sizeof(name));
	db_close(db);
	if (ret != CMD_CONTINUE)
		return ret;
	ret = study_tabulate(res->e, docs, &res->t) < 0 ? EXIT_FAILED : EXIT_OK;
	json_decref(docs);
	return ret;
}

/* A cell's figure: in the column's unit (named in its heading), else with
 * the document's unit (as the human views name it, or as it is when the
 * column's unit does not convert from it); false in that last case. */
static bool cell_text(const struct study_column *col, const struct study_cell *cell, enum study_stat st, char *buf,
		      size_t len)
{
	size_t n;
	double v = study_cell_stat(cell, st, &n);
	char label[32];
	bool ok = study_cell_text(col->unit, cell->unit, v, buf, len);

	if (*col->unit || !isfinite(v) || !*cell->unit)
		return ok;
	text_unit_label(col->metric, cell->unit, label, sizeof(label));
	snprintf(buf + strlen(buf), len - strlen(buf), " %s", label);
	return ok;
}

/* Under a table: each column no result has, and each whose unit its
 * documents' does not convert to. */
static void unit_notes(const struct study_result *res, void (*note)(void *, const char *), void *arg)
{
	const struct study_experiment *e = res->e;

	for (size_t c = 0; c < e->ncolumns; c++) {
		const char *doc = NULL;
		char txt[64], line[512];

		if (res->t.nrows && study_column_empty(&res->t, c)) {
			snprintf(line, sizeof(line), "%s %s%s%s: no result of this run has it (what they have: 'vmbench "
				 "results --label lab=%s', then 'vmbench show RUN')", e->columns[c].test, e->columns[c].metric, *e->columns[c].at ? " at " : "",
				 e->columns[c].at, res->session);
			note(arg, line);
			continue;
		}
		for (size_t r = 0; r < res->t.nrows && !doc; r++)
			if (!cell_text(&e->columns[c], &res->t.rows[r].cell[c], e->stat, txt, sizeof(txt)))
				doc = res->t.rows[r].cell[c].unit;
		if (!doc)
			continue;
		snprintf(line, sizeof(line), "%s %s: its documents give %s, which is not %s and does not convert to it: "
			 "shown in %s", e->columns[c].test, e->columns[c].metric, *doc ? doc : "no unit", e->columns[c].unit,
			 *doc ? doc : "no unit");
		note(arg, line);
	}
}

static void say_text(void *arg, const char *line)
{
	(void)arg;
	say("  %s\n", line);
}

static void html_text(FILE *f, const char *tag, const char *text)
{
	fprintf(f, "<%s>", tag);
	html_study(f, text);
	fprintf(f, "</%s>\n", tag);
}

static void say_html(void *arg, const char *line)
{
	html_text(arg, "p", line);
}

static void heading_of(const struct study_column *c, char *buf, size_t len)
{
	if (*c->heading)
		snprintf(buf, len, "%s", c->heading);
	else
		snprintf(buf, len, "%s %s%s%s%s%s", c->test, c->metric, *c->at ? " at " : "", c->at, *c->unit ? " " : "",
			 c->unit);
}

static int imax(int a, int b)
{
	return a > b ? a : b;
}

static void print_result(const struct study_result *res)
{
	const struct study_experiment *e = res->e;

	say("\n== [experiment %s] %s\n", e->id, e->title);
	if (*res->note) {
		say("  %s\n", res->note);
		return;
	}
	/* every column as wide as its heading and its cells: nothing cut */
	int namew = 28, w[STUDY_MAX_COLUMNS];
	bool ambiguous = false;

	for (size_t r = 0; r < res->t.nrows; r++)
		namew = imax(namew, (int)strlen(res->t.rows[r].name));
	for (size_t c = 0; c < e->ncolumns; c++) {
		char h[128];

		heading_of(&e->columns[c], h, sizeof(h));
		w[c] = imax(18, (int)strlen(h));
		for (size_t r = 0; r < res->t.nrows; r++) {
			const struct study_cell *cell = &res->t.rows[r].cell[c];
			char txt[48];

			(void)cell_text(&e->columns[c], cell, e->stat, txt, sizeof(txt));
			w[c] = imax(w[c], (int)strlen(txt) + (cell->ambiguous ? 4 : 0));
		}
	}
	say("  %-*s", namew, *e->rows ? e->rows : "configuration");
	for (size_t c = 0; c < e->ncolumns; c++) {
		char h[128];

		heading_of(&e->columns[c], h, sizeof(h));
		say(" %*s", w[c], h);
	}
	say("\n");
	for (size_t r = 0; r < res->t.nrows; r++) {
		say("  %-*s", namew, res->t.rows[r].name);
		for (size_t c = 0; c < e->ncolumns; c++) {
			const struct study_cell *cell = &res->t.rows[r].cell[c];
			char txt[48], both[80];

			(void)cell_text(&e->columns[c], cell, e->stat, txt, sizeof(txt));
			snprintf(both, sizeof(both), "%s%s", txt, cell->ambiguous ? " (?)" : "");
			say(" %*s", w[c], both);
			ambiguous |= cell->ambiguous;
		}
		say("\n");
	}
	say("  (the %s of each configuration's rounds%s)\n", study_stat_name(e->stat),
	       ambiguous ? "; (?): several cases matched the column, the first is shown: give it 'at'" : "");
	unit_notes(res, say_text, NULL);
	for (size_t r = 0; r < res->t.nrows; r++)
		for (size_t c = 0; c < e->ncolumns; c++)
			if (*res->t.rows[r].cell[c].vs) {
				char h[128];

				heading_of(&e->columns[c], h, sizeof(h));
				say("  %s against %s, %s: %s\n", res->t.rows[r].name, e->baseline, h, res->t.rows[r].cell[c].vs);
			}
	for (size_t i = 0; i < e->published.n; i++)
		say("  the study's figure: %s\n", e->published.v[i]);
	if (*e->conclusion)
		say("  the study's conclusion: %s\n", e->conclusion);
	for (size_t k = 0; k < e->nexpect; k++)
		say("  %s\n", res->t.verdict[k]);
}

static int write_report(const struct study *s, const struct study_result *res, size_t n, const char *out)
{
	char *html = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&html, &len);
	int ret;

	if (!f)
		return -ENOMEM;
	fprintf(f, "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>");
	html_study(f, s->title);
	fprintf(f, "</title><style>body{font-family:sans-serif;max-width:70em;margin:auto}table{border-collapse:"
		   "collapse}td,th{border:1px solid #ccc;padding:.2em .5em;text-align:right}td:first-child,"
		   "th:first-child{text-align:left}.agrees{color:#060}.disagrees{color:#a00}</style></head><body>\n");
	html_text(f, "h1", s->title);
	html_text(f, "p", s->source);
	if (*s->description)
		html_text(f, "p", s->description);
	for (size_t i = 0; i < n; i++) {
		const struct study_experiment *e = res[i].e;

		if (!e) /* not among --experiment's, or not reached */
			continue;
		fprintf(f, "<section><h2>");
		html_study(f, e->title);
		fprintf(f, "</h2>\n");
		for (size_t k = 0; k < e->stand_in.n; k++)
			html_text(f, "p", e->stand_in.v[k]);
		if (*res[i].note) {
			html_text(f, "p", res[i].note);
			fprintf(f, "</section>\n");
			continue;
		}
		fprintf(f, "<table><tr><th>");
		html_study(f, *e->rows ? e->rows : "configuration");
		fprintf(f, "</th>");
		for (size_t c = 0; c < e->ncolumns; c++) {
			char h[128];

			heading_of(&e->columns[c], h, sizeof(h));
			html_text(f, "th", h);
		}
		fprintf(f, "</tr>\n");
		for (size_t r = 0; r < res[i].t.nrows; r++) {
			fprintf(f, "<tr>");
			html_text(f, "td", res[i].t.rows[r].name);
			for (size_t c = 0; c < e->ncolumns; c++) {
				const struct study_cell *cell = &res[i].t.rows[r].cell[c];
				size_t nr;
				char txt[48], both[96];

				(void)study_cell_stat(cell, e->stat, &nr);
				(void)cell_text(&e->columns[c], cell, e->stat, txt, sizeof(txt));
				snprintf(both, sizeof(both), "%s (%zu round%s)%s", txt, nr, nr == 1 ? "" : "s",
					 cell->ambiguous ? " (?)" : "");
				fprintf(f, "<td>");
				html_study(f, both);
				if (*cell->vs) {
					fprintf(f, "<br><small>");
					html_study(f, cell->vs);
					fprintf(f, "</small>");
				}
				fprintf(f, "</td>");
			}
			fprintf(f, "</tr>\n");
		}
		fprintf(f, "</table>\n<p>The %s of each configuration's rounds; under each, the ratio to the baseline (",
			study_stat_name(e->stat));
		html_study(f, e->baseline);
		fprintf(f, ") and the paired verdict on the rounds both were measured in.</p>\n");
		unit_notes(&res[i], say_html, f);
		if (e->published.n) {
			fprintf(f, "<p>The study's own figures:</p><ul>\n");
			for (size_t k = 0; k < e->published.n; k++)
				html_text(f, "li", e->published.v[k]);
			fprintf(f, "</ul>\n");
		}
		if (*e->conclusion) {
			fprintf(f, "<p>The study's conclusion: ");
			html_study(f, e->conclusion);
			fprintf(f, "</p>\n");
		}
		for (size_t k = 0; k < e->nexpect; k++) {
			fprintf(f, "<p class=\"%s\">", res[i].t.agrees[k] > 0 ? "agrees" : res[i].t.agrees[k] < 0 ? "disagrees" : "neither");
			html_study(f, res[i].t.verdict[k]);
			fprintf(f, "</p>\n");
		}
		fprintf(f, "</section>\n");
	}
	fprintf(f, "</body></html>\n");
	if (fclose(f) != 0) {
		free(html);
		return -ENOMEM;
	}
	ret = cmd_write_report(html, len, out, "vmbench-study");
	free(html);
	return ret;
}

/* --experiment's list; NULL when it is not given (every experiment) */
static const char *experiment_list(const struct optset *own)
{
	return optset_get(own, "experiment")->set ? optset_str(own, "experiment") : NULL;
}

/* Is experiment id among --experiment's (all of them when it is not given)? */
static bool selected(const struct optset *own, const char *id)
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
static bool quick_skipped(const struct optset *own, const struct study_experiment *e)
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

/* Run every experiment of the study (of --experiment), then its tables. */
static int study_run(const struct vmb_cmd *self, const struct optset *own, const struct study_call *call,
		     const struct study *s)
{
	struct study_result *res = calloc(s->nexp, sizeof(*res));
	int ret = EXIT_OK;
	bool refused = false;

	if (!res)
		return EXIT_FAILED;
	log_info("study %s: every result is stored with the labels study=%s and %s", s->name, s->name, call->run_label);
	for (size_t i = 0; i < s->nexp; i++) {
		const struct study_experiment *e = &s->exp[i];
		struct strv av = { 0 };
		char title[1100];

		if (!selected(own, e->id))
			continue;
		res[i].e = e;
		if (*e->not_run) {
			snprintf(res[i].note, sizeof(res[i].note), "not run: %s", e->not_run);
			continue;
		}
		if (quick_skipped(own, e)) {
			snprintf(res[i].note, sizeof(res[i].note), "not part of --quick: %.400s ('--experiment %s' runs it)",
				 e->quick_skip, e->id);
			continue;
		}
		if (vmb_stop_requested())
			break;
		log_info("study %s: experiment %s: %s", s->name, e->id, study_escape(e->title, title, sizeof(title)));
		/* the words its plan checked */
		if (experiment_argv(call, e, optset_bool(own, "quick"), &av) < 0) {
			strv_clear(&av);
			ret = EXIT_FAILED;
			break;
		}
		res[i].exit = lab_study_run(self, (int)av.n, av.v, false, res[i].session, sizeof(res[i].session));
		strv_clear(&av);
		/* what the plan cannot know (a configuration this machine cannot
		 * run): that experiment is not run, the others still are, and
		 * their tables are not lost to it */
		if (res[i].exit == EXIT_USAGE) {
			snprintf(res[i].note, sizeof(res[i].note),
				 "not run: lab run refused it here (its message is above, at its start)");
			refused = true;
			continue;
		}
		if (res[i].exit != EXIT_OK)
			ret = EXIT_FAILED;
		if (!*res[i].session) {
			snprintf(res[i].note, sizeof(res[i].note), "not measured: lab run ended before it began (exit %d)",
				 res[i].exit);
			continue;
		}
		if (tabulate(self, optset_str(own, "db"), &res[i]) != EXIT_OK) {
			snprintf(res[i].note, sizeof(res[i].note), "its results could not be read back (lab=%s)",
				 res[i].session);
			ret = EXIT_FAILED;
		}
	}
	if (vmb_stop_requested()) {
		free(res);
		log_error("interrupted");
		return EXIT_INTERRUPTED;
	}
	say("\nstudy %s: %s\n", s->name, s->title);
	for (size_t i = 0; i < s->nexp; i++)
		if (res[i].e)
			print_result(&res[i]);
	if (write_report(s, res, s->nexp, optset_str(own, "output")) < 0)
		ret = EXIT_FAILED;
	free(res);
	return refused ? EXIT_USAGE : ret;
}

int lab_study(const struct vmb_cmd *self, const struct optset *own, const char *arg)
{
	struct study *s;
	struct study_call call = { .own = own };
	char path[4096], err[1200], stamp[64];
	double lo = 0, hi = 0;
	unsigned boots = 0;
	int ret = EXIT_OK, r;
	time_t now = time(NULL);
	struct tm tm;

	if (optset_bool(own, "list")) {
		if (arg)
			return cmd_usage_error(self, "--list lists the shipped studies: no FILE with it");
		return study_list(self);
	}
	if (!arg)
		return cmd_usage_error(self, "lab study needs a study: FILE, or NAME of 'vmbench lab study --list'");
	ret = study_path(self, arg, path, sizeof(path));
	if (ret != EXIT_OK)
		return ret;
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
		say("study %s: %s\n  source: %s\n", s->name, s->title, s->source);
	/* the plan, also before a run: a bad option stops it before anything boots */
	for (size_t i = 0; i < s->nexp && ret == EXIT_OK; i++)
		if (selected(own, s->exp[i].id))
			ret = plan_experiment(self, &call, path, &s->exp[i], optset_bool(own, "quick"),
					      quick_skipped(own, &s->exp[i]), &lo, &hi, &boots);
	if (ret == EXIT_OK) {
		say("\nin all: %u boots, ", boots);
		print_minutes(lo);
		say(" to ");
		print_minutes(hi);
		say(" (a boot as the lab's images take under TCG:");
		for (size_t i = 0; i < lab_nimages; i++)
			say("%s %s %u s", i ? "," : "", lab_images[i].name, lab_images[i].boot_s);
		say("; the suites by their stop rule, as 'vmbench list' estimates; a guest's set-up and a slow "
		    "emulation add to it)\n");
		if (!optset_bool(own, "plan"))
			ret = study_run(self, own, &call, s);
	}
	study_release(s);
	free(s);
	return ret;
}
