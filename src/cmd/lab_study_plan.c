/* vmbench lab study, its plan (--plan): every experiment's claims and how
 * each is judged, its configurations, rounds (by power in a full run),
 * boots and an estimated time, its options checked by lab run's own parser
 * before anything runs, what --quick's rounds detect, and what is known of
 * this machine's KVM (docs/study-format.md). */
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
#include "../lab/contend.h"
#include "../lab/hv.h"
#include "lab_study.h"
#include "../core/log.h"
#include "../core/opts.h"
#include "../core/str.h"
#include "../core/runner.h"
#include "../core/stats.h"
#include "../core/stop.h"
#include "../core/sys.h"
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

void study_print_minutes(double s)
{
	char buf[32];

	lab_minutes(s, buf, sizeof(buf));
	study_say("%s", buf);
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
	double lo, hi;
	char skips[1024];

	lab_contend_estimate(m, guests, cells, rounds, est, &lo, &hi);
	study_say("  lab contend: %u guests of one configuration at once (%s), booted once; %u cell%s (policies %s x "
	       "loads %s) x %u round%s; %s of the rounds%s%s\n",
	       guests, e->matrix, cells, cells == 1 ? "" : "s", optset_str(own, "policy"), optset_str(own, "load"),
	       rounds, rounds == 1 ? "" : "s", study_stat_name(e->stat), strcmp(e->baseline, "none") ? ", against " : "",
	       strcmp(e->baseline, "none") ? e->baseline : "");
	plan_accel(e);
	contend_plan_skips(optset_str(own, "policy"), skips, sizeof(skips));
	if (*skips)
		study_say("  %s\n", skips);
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
	{ "plan", "lab study --plan plans the whole study" },
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

/* Seconds since 1970 of a stored timestamp (parse_utc), NAN when it is not one */
static double utc_seconds(const char *s)
{
	double t;

	return parse_utc(s, &t) == 0 ? t : NAN;
}

/* When a study's run began: its study_run=NAME-YYYYMMDD-HHMMSS stamp (UTC,
 * taken before anything of it runs); NAN when run is not so stamped */
static double run_stamp_seconds(const char *run)
{
	size_t n = strlen(run);
	const char *t = run + (n >= 16 ? n - 16 : 0);
	char iso[32];

	if (n < 16 || t[0] != '-' || t[9] != '-' || strspn(t + 1, "0123456789") != 8 || strspn(t + 10, "0123456789") != 6)
		return NAN;
	snprintf(iso, sizeof(iso), "%.4s-%.2s-%.2sT%.2s:%.2s:%.2sZ", t + 1, t + 5, t + 7, t + 10, t + 12, t + 14);
	return utc_seconds(iso);
}

/* How long a round of experiment e took here: in the newest earlier run of
 * its form (--quick or not) in the store, from its first document's start
 * to its last one's end, over the rounds its documents make (per_round a
 * round: its configurations, and the host when it is measured; a run
 * stopped partway counts the part of a round it finished). A lower bound of
 * a round: the first boot comes before the first start. False when nothing
 * of it is stored. */
struct pace {
	double round_s, rounds;
	char run[128];
};

static bool prior_pace(struct db *db, const char *study, const struct study_experiment *e, bool quick,
		       size_t per_round, struct pace *pace)
{
	struct strv filter = { 0 };
	struct prior p = { .db = db, .docs = json_array() };
	double t0 = INFINITY, t1 = -INFINITY, began, now = (double)time(NULL);
	size_t ndocs = 0;
	json_t *doc;
	char kv[160];
	size_t i;

	memset(pace, 0, sizeof(*pace));
	snprintf(kv, sizeof(kv), "study=%s", study);
	(void)strv_push(&filter, kv);
	snprintf(kv, sizeof(kv), "experiment=%s", e->id);
	(void)strv_push(&filter, kv);
	if (db && p.docs && filter.n == 2 && db_list(db, &filter, prior_row, &p) == 0) {
		json_array_foreach(p.docs, i, doc) {
			const char *r = json_string_value(json_object_get(json_object_get(doc, "labels"), "study_run"));

			if (r && json_is_true(json_object_get(json_object_get(doc, "settings"), "quick")) == quick &&
			    strcmp(r, pace->run) > 0)
				snprintf(pace->run, sizeof(pace->run), "%s", r);
		}
		/* a document of that run began after the run did and ended before
		 * now: one that says otherwise (a clock set wrong, a document
		 * made by hand) would make a round last years */
		began = run_stamp_seconds(pace->run);
		json_array_foreach(p.docs, i, doc) {
			const char *r = json_string_value(json_object_get(json_object_get(doc, "labels"), "study_run"));
			double a = utc_seconds(json_string_value(json_object_get(doc, "started")));
			double b = utc_seconds(json_string_value(json_object_get(doc, "ended")));

			if (!*pace->run || !r || strcmp(r, pace->run) ||
			    json_is_true(json_object_get(json_object_get(doc, "settings"), "quick")) != quick ||
			    isnan(a) || isnan(b) || b < a || a < began || b > now)
				continue;
			t0 = a < t0 ? a : t0;
			t1 = b > t1 ? b : t1;
			ndocs++;
		}
	}
	strv_clear(&filter);
	json_decref(p.docs);
	if (!isfinite(t0) || t1 <= t0 || !per_round)
		return false;
	pace->rounds = (double)ndocs / (double)per_round;
	pace->round_s = (t1 - t0) / pace->rounds;
	return true;
}

/* What a claim's round-to-round spread is assumed to be when no earlier run
 * of its experiment measured it (a log ratio's standard deviation: 5%) */
#define STUDY_ASSUMED_SPREAD 0.05

/* The full run's rounds, said: by power (study_power) or fixed, and why */
static void plan_rounds(const struct study_experiment *e, const struct lab_request *rq, unsigned rounds,
			double scale)
{
	char why[256], share[96];
	size_t which = 0;
	double mdd = study_experiment_mdd(e, &which, why, sizeof(why));

	if (rq->autorounds) {
		if (scale > 0)
			snprintf(share, sizeof(share), "--budget-total's share: %.3g of ", scale);
		else
			*share = '\0';
		study_say("  rounds by power: at least %u (the study's), then more until every headline verdict's smallest "
			  "detectable difference is within %g%% (what '%s' needs: %s), within --budget-total %.0f s (%s%u "
			  "rounds at the estimate's upper bound)\n", rq->min_rounds, optset_double(&rq->own, "mdd"),
			  e->claim[which].text, why, optset_double(&rq->own, "budget-total"), share,
			  study_budget_rounds(rounds));
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
		plan_rounds(e, rq, rounds, call->budget_scale);
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

int study_plan_experiment(const struct vmb_cmd *self, const struct study_call *call, const char *file,
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
		char name[512] = "", why[512];
		size_t off = 0;

		for (size_t k = 0; k < lab_nkeys; k++)
			if (m.given & (1u << k))
				off += (size_t)snprintf(name + off, sizeof(name) - off, "%s%s=%s", off ? " " : "",
							lab_key_name((enum lab_key)k), m.configs[i].v[k]);
		/* what the session's back end cannot carry (lab study --connect), as lab run's plan says */
		if (lab_hv_default() != &lab_hv_qemu && lab_hv_config_unsupported(&m.configs[i], why, sizeof(why)))
			study_say("    %s (skipped here: %s)\n", name, why);
		else
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
		struct pace pace;
		bool paced = prior_pace(db, call->name, e, quick, m.n + host, &pace);

		study_round_estimate(e, &m, &est, &lo, &hi);
		lo *= rounds;
		/* by power: the study's rounds at the least, its budget at the most */
		hi = rq.autorounds ? optset_double(own, "budget-total") : hi * rounds;
		/* what a round took here before outweighs the suites' estimate
		 * (a slow emulation, a guest's set-up): the study's rounds run
		 * whatever the budget */
		if (paced && pace.round_s * rounds > lo)
			lo = pace.round_s * rounds;
		if (hi < lo)
			hi = lo;
		if (hi > lo) {
			study_print_minutes(lo);
			study_say(" to ");
			study_print_minutes(hi);
			study_say("%s\n", rq.autorounds ? " (its rounds by power: the study's at the least, its budget at the "
							  "most)" : "");
		} else {
			study_say("about ");
			study_print_minutes(lo);
			/* the pace when there is one; else the suites' estimate met
			 * a budget below it (a small --budget-total) */
			study_say(" (%u rounds%s%s)\n", rounds, paced ? " at the pace measured here" : "",
				  rq.autorounds ? ", the study's, which run whatever the budget" : "");
		}
		if (paced) {
			study_say("  measured here before: ");
			study_print_minutes(pace.round_s);
			study_say(" a round (study_run=%s, %.3g round%s%s)\n", pace.run, pace.rounds,
				  pace.rounds == 1 ? "" : "s", quick ? ", --quick" : "");
		}
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
void study_plan_kvm(void)
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
