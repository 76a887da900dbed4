/* vmbench lab report: a session's comparison redrawn from the store (the
 * last session, or the last among the runs a selector matches). */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>
#include <linux/magic.h>
#include <sys/statfs.h>

#include "cmd.h"
#include "lab.h"
#include "lab_study.h"
#include "../core/run_opts.h"
#include "../core/clock.h"
#include "../core/log.h"
#include "../core/opts.h"
#include "../core/noise.h"
#include "../core/sys.h"
#include "../core/stop.h"
#include "../lab/balloon.h"
#include "../lab/distro.h"
#include "../guest/fs.h"
#include "../lab/workdir.h"
#include "../lab/evidence.h"
#include "../lab/image.h"
#include "../lab/labrun.h"
#include "../lab/matrix.h"
#include "../lab/contend.h"
#include "../lab/proto_host.h"
#include "../lab/study.h"
#include "../lab/study_table.h"
#include "../lab/qemu.h"
#include "../probe/probe.h"
#include "../report/compare.h"
#include "../report/hostcost.h"
#include "../store/db.h"
#include "../store/doc.h"
#include "../suites/balloon.h"
#include "../suites/contend.h"
#include "../suites/suites.h"
#include "../core/str.h"
#include "../core/banned.h"


/* lab report, pass 1 (labels only): the lab runs a selector matches, by
 * session. A run of the lab has the label lab=SESSION, or (stored before
 * sessions had ids) config=NAME: those are one session, "". */
struct sessions {
	json_t *matched;  /* run number (text) -> its session */
	json_t *sessions; /* session -> {"runs": n, "started": the first's start}, first-seen order */
	char last[64];    /* the session of the newest matched run */
	int64_t last_id;
};

static const char *session_of(const json_t *labels)
{
	const char *s = json_string_value(json_object_get(labels, LAB_SESSION_LABEL));

	return s ? s : json_object_get(labels, "config") ? "" : NULL;
}

static int session_row(const struct db_row *row, void *arg)
{
	struct sessions *ss = arg;
	json_t *labels = row->labels_json ? json_loads(row->labels_json, 0, NULL) : NULL, *e;
	const char *sess = session_of(labels);
	char id[32];
	int r = 0;

	if (!sess || row->unreadable)
		goto out;
	snprintf(id, sizeof(id), "%lld", (long long)row->id);
	e = json_object_get(ss->sessions, sess);
	if (!e && (!(e = json_pack("{s:i, s:s}", "runs", 0, "started", row->started ? row->started : "?")) ||
		   json_object_set_new(ss->sessions, sess, e) < 0)) {
		r = -ENOMEM;
		goto out;
	}
	if (json_object_set_new(e, "runs", json_integer(json_integer_value(json_object_get(e, "runs")) + 1)) < 0 ||
	    json_object_set_new(ss->matched, id, json_string(sess)) < 0) {
		r = -ENOMEM;
		goto out;
	}
	if (row->id > ss->last_id) {
		ss->last_id = row->id;
		snprintf(ss->last, sizeof(ss->last), "%s", sess);
	}
out:
	json_decref(labels);
	return r < 0 ? log_errno(r, "listing the lab sessions") : 0;
}

/* "lab=ID (5 runs, started T)" of a session, "" for those before session ids. */
static void session_words(const char *sess, const json_t *e, char *buf, size_t len)
{
	long long n = (long long)json_integer_value(json_object_get(e, "runs"));

	if (*sess)
		snprintf(buf, len, "%s=%s (%lld run%s, started %s)", LAB_SESSION_LABEL, sess, n, n == 1 ? "" : "s",
			 json_string_value(json_object_get(e, "started")));
	else
		snprintf(buf, len, "%lld run%s stored before lab sessions had an id", n, n == 1 ? "" : "s");
}

/* The last `max` sessions, "; "-separated, newest last. */
static void sessions_text(const json_t *sessions, size_t max, char *buf, size_t len)
{
	size_t i = 0, n = json_object_size(sessions), off = 0;
	const char *k;
	json_t *e;

	buf[0] = '\0';
	json_object_foreach((json_t *)sessions, k, e) {
		char one[256];

		if (i++ + max < n)
			continue;
		session_words(k, e, one, sizeof(one));
		str_appendf(buf, len, &off, "%s%s", off ? "; " : "", one);
	}
}

/* lab report, pass 2: the chosen session's documents that the selector
 * matched, and its host whatever the selector says (the host has no
 * matrix keys to match), grouped by configuration in first-seen order. */
struct grouping {
	struct db *db;
	const json_t *matched;
	const char *session;
	json_t *groups; /* configuration name -> array of documents */
	json_t *failures; /* the records of the stored failure markers */
	int r;
};

static int group_row(const struct db_row *row, void *arg)
{
	struct grouping *g = arg;
	const char *in, *cfg;
	char id[32];
	json_t *doc, *list;

	snprintf(id, sizeof(id), "%lld", (long long)row->id);
	in = json_string_value(json_object_get(g->matched, id));
	if ((!in || strcmp(in, g->session)) && !*g->session)
		return 0;
	g->r = db_get(g->db, id, &doc);
	if (g->r < 0)
		return g->r;
	/* the configuration's name: the document's; a label before sessions had ids */
	cfg = json_string_value(json_object_get(doc, LAB_CONFIG_KEY));
	if (!cfg)
		cfg = json_string_value(json_object_get(json_object_get(doc, "labels"), "config"));
	if (!cfg || ((!in || strcmp(in, g->session)) && strcmp(cfg, LAB_HOST))) {
		json_decref(doc);
		return 0;
	}
	if (json_object_get(doc, "lab_failure")) {
		json_t *rec = doc_lab_failure(doc);

		json_decref(doc);
		if (!rec || json_array_append_new(g->failures, rec) < 0)
			return g->r = log_errno(-ENOMEM, "listing the stored failures");
		return 0;
	}
	list = json_object_get(g->groups, cfg);
	if (!list) {
		list = json_array();
		if (!list || json_object_set_new(g->groups, cfg, list) < 0) {
			json_decref(doc);
			return g->r = log_errno(-ENOMEM, "grouping the stored runs");
		}
	}
	if (json_array_append_new(list, doc) < 0)
		return g->r = log_errno(-ENOMEM, "grouping the stored runs");
	return 0;
}

/* --baseline KEY=VALUE of lab report: the one configuration of the session whose labels have them. */
static int baseline_group(const struct vmb_cmd *self, const json_t *groups, const char *spec, const struct strv *pairs,
			  const char **name)
{
	char names[1024];
	size_t off = 0, hits = 0;
	const char *k;
	json_t *v;

	names[0] = '\0';
	json_object_foreach((json_t *)groups, k, v) {
		if (!strcmp(k, LAB_HOST))
			continue;
		str_appendf(names, sizeof(names), &off, "%s%s", off ? "; " : "", k);
		if (lab_labels_match(pairs, json_object_get(json_array_get(v, 0), "labels")))
			*name = k, hits++;
	}
	if (hits == 1)
		return CMD_CONTINUE;
	return cmd_usage_error(self, "--baseline %s names %s of the session's configurations (%s)%s", spec,
			       hits ? "more than one" : "none", names, hits ? "; name one with more keys" : "");
}

/* A study's run (its results carry the labels study=NAME and
 * study_run=RUN, lab study's own): its card redrawn from the store, every
 * experiment's documents of that run tabulated by the shipped study of
 * that name as its file is now; printed unless the report goes to stdout,
 * and its HTML in *preface to head the report. CMD_CONTINUE (no card when
 * the session is no study's, or its study is not shipped here: said), or
 * an exit. */
static int study_card(const struct vmb_cmd *self, const struct optset *own, const json_t *groups, bool say,
		      char **preface)
{
	const char *name = NULL, *run = NULL, *k;
	const json_t *v;
	struct study *s = NULL;
	struct study_result *res = NULL;
	struct db *db = NULL;
	json_t *docs = NULL;
	char path[4096], err[1200], sel[256], opname[300], line[600];
	size_t len = 0;
	FILE *f = NULL;
	int ret = CMD_CONTINUE, r;

	json_object_foreach((json_t *)groups, k, v) {
		const json_t *labels = json_object_get(json_array_get(v, 0), "labels");

		if (!name && json_is_string(json_object_get(labels, "study_run"))) {
			name = json_string_value(json_object_get(labels, "study"));
			run = json_string_value(json_object_get(labels, "study_run"));
		}
	}
	if (!name || !run)
		return CMD_CONTINUE;
	r = study_shipped_path(name, path, sizeof(path));
	if (r < 0) {
		log_warn("the session is of study %s's run study_run=%s, and no shipped study is named %s (%s; "
			 "$VMBENCH_STUDIES names another directory): no reproduction card", name, run, name,
			 r == -ENOENT ? "not among them" : strerror(-r));
		return CMD_CONTINUE;
	}
	s = calloc(1, sizeof(*s));
	if (!s)
		return EXIT_FAILED;
	if (study_load(path, s, err, sizeof(err)) < 0) {
		log_warn("%s: no reproduction card of study_run=%s", err, run);
		free(s);
		return CMD_CONTINUE;
	}
	snprintf(sel, sizeof(sel), "study_run=%s", run);
	ret = cmd_load_operand(self, sel, optset_str(own, "db"), &db, &docs, opname, sizeof(opname));
	res = calloc(s->nexp ? s->nexp : 1, sizeof(*res));
	if (ret != CMD_CONTINUE || !res) {
		ret = ret != CMD_CONTINUE ? ret : EXIT_FAILED;
		goto out;
	}
	for (size_t i = 0; i < s->nexp; i++) {
		const struct study_experiment *e = &s->exp[i];
		json_t *mine = json_array();
		size_t d;
		json_t *doc;

		res[i].e = e;
		if (!mine) {
			ret = EXIT_FAILED;
			goto out;
		}
		json_array_foreach(docs, d, doc) {
			const char *id = json_string_value(json_object_get(json_object_get(doc, "labels"), "experiment"));

			if (id && !strcmp(id, e->id) && json_array_append(mine, doc) < 0)
				ret = EXIT_FAILED;
		}
		if (*e->not_run)
			snprintf(res[i].note, sizeof(res[i].note), "not run: %s", e->not_run);
		else if (!json_array_size(mine))
			snprintf(res[i].note, sizeof(res[i].note), "not measured in study_run=%s (not among its "
				 "--experiment's, left out of --quick, refused, or interrupted)", run);
		else if (study_tabulate(e, mine, &res[i].t) < 0)
			ret = EXIT_FAILED;
		json_decref(mine);
		if (ret != CMD_CONTINUE)
			goto out;
	}
	snprintf(line, sizeof(line), "the card of study_run=%s, redrawn from the store: its claims as the study's "
		 "file says them now (%s)", run, path);
	if (say) {
		study_say("study %s: %s\n  %s\n", s->name, s->title, line);
		study_print_card(s, res);
		study_say("\n");
	}
	f = open_memstream(preface, &len);
	if (!f) {
		ret = EXIT_FAILED;
		goto out;
	}
	study_html_tag(f, "p", line);
	study_html_card(f, s, res);
	if (fclose(f) != 0)
		ret = EXIT_FAILED;
out:
	if (ret != CMD_CONTINUE)
		log_error("redrawing the reproduction card of study_run=%s", run);
	free(res);
	json_decref(docs);
	db_close(db);
	study_release(s);
	free(s);
	return ret;
}

/* lab report [SELECTOR]: the comparison and HTML report of a session again,
 * from the store: the last session, or the last one with runs the selector
 * matches (said when it matches several). */
int lab_report(const struct vmb_cmd *self, struct optset *own, const char *selector)
{
	struct sessions ss = { .matched = json_object(), .sessions = json_object() };
	struct grouping g = { 0 };
	struct strv filter = { 0 }, pairs = { 0 }, mine = { 0 };
	struct cmp_table t;
	char path[4096], list[2048], kv[128];
	const char *k, *out = optset_str(own, "output"), *spec = optset_str(own, "baseline"), *base = NULL;
	char *sel = selector ? lab_selector(selector) : NULL, *preface = NULL;
	json_t *v;
	int ret, r;

	cmp_table_init(&t, suites_find);
	g.groups = json_object();
	g.failures = json_array();
	t.failures = g.failures;
	if (!g.groups || !g.failures || !ss.matched || !ss.sessions || (selector && !sel)) {
		ret = EXIT_FAILED;
		goto out;
	}
	r = sel ? db_parse_selector(sel, &filter) : 0;
	if (r < 0) {
		ret = cmd_selector_error(self, selector, r);
		goto out;
	}
	ret = strcmp(spec, LAB_HOST) && strcmp(spec, "none") ? lab_baseline_pairs(self, spec, &pairs) : CMD_CONTINUE;
	if (ret == CMD_CONTINUE)
		ret = cmd_check_output(self, out);
	if (ret != CMD_CONTINUE)
		goto out;
	if (db_default_path(optset_str(own, "db"), path, sizeof(path)) < 0) {
		ret = cmd_usage_error(self, "lab report: no result store: set --db, VMBENCH_DB or HOME");
		goto out;
	}
	r = db_open(path, false, &g.db);
	if (r == -ENOENT) {
		ret = cmd_usage_error(self, "lab report: no result store at %s", path);
		goto out;
	}
	if (r < 0) {
		ret = db_usage_error(r) ? EXIT_USAGE : EXIT_FAILED;
		goto out;
	}
	if (db_list(g.db, &filter, session_row, &ss) < 0) {
		ret = EXIT_FAILED;
		goto out;
	}
	if (!json_object_size(ss.sessions)) {
		/* suggest only what exists: the store's last sessions */
		struct sessions all = { .matched = json_object(), .sessions = json_object() };

		list[0] = '\0';
		if (selector && all.matched && all.sessions && db_list(g.db, NULL, session_row, &all) == 0)
			sessions_text(all.sessions, 5, list, sizeof(list));
		json_decref(all.matched);
		json_decref(all.sessions);
		if (!selector || !*list)
			ret = cmd_usage_error(self, "lab report: the store %s has no lab run; 'vmbench lab run --matrix SPEC' "
						    "makes one", path);
		else
			ret = cmd_usage_error(self, "lab report: no lab run has the labels %s; the store's last lab sessions: "
						    "%s", selector, list);
		goto out;
	}
	if (selector && json_object_size(ss.sessions) > 1) {
		sessions_text(ss.sessions, 10, list, sizeof(list));
		log_warn("the labels %s match runs of %zu lab sessions (%s); reporting the last one, %s%s%s (give %s=ID "
			 "to choose)", selector, json_object_size(ss.sessions), list, *ss.last ? LAB_SESSION_LABEL : "",
			 *ss.last ? "=" : "", *ss.last ? ss.last : "the runs stored before sessions had an id",
			 LAB_SESSION_LABEL);
	}
	if (*ss.last)
		log_info("lab session %s=%s", LAB_SESSION_LABEL, ss.last);
	/* pass 2: the session (its host included), or the runs of before sessions that matched */
	snprintf(kv, sizeof(kv), "%s=%s", LAB_SESSION_LABEL, ss.last);
	if (*ss.last && strv_push(&mine, kv) < 0) {
		ret = EXIT_FAILED;
		goto out;
	}
	g.matched = ss.matched;
	g.session = ss.last;
	if (db_list(g.db, *ss.last ? &mine : &filter, group_row, &g) < 0) {
		ret = EXIT_FAILED;
		goto out;
	}
	if (json_array_size(g.failures) && !json_object_size(g.groups)) {
		/* every boot of it failed, and no host: nothing to compare, but what failed */
		cmp_print_failures(stdout, &t);
		ret = EXIT_FAILED;
		goto out;
	}
	if (!json_object_size(g.groups) ||
	    (json_object_size(g.groups) == 1 && json_object_get(g.groups, LAB_HOST) && !json_array_size(g.failures))) {
		if (*ss.last)
			ret = cmd_usage_error(self, "lab report: the labels %s match no configuration of the session, only its "
						    "host; 'vmbench lab report %s' reports the whole session",
					      selector ? selector : "", kv);
		else
			ret = cmd_usage_error(self, "lab report: the labels %s match no configuration, only the host; select "
						    "a configuration by its matrix keys, e.g. accel=tcg", selector ? selector : "");
		goto out;
	}
	if (pairs.n) {
		ret = baseline_group(self, g.groups, spec, &pairs, &base);
		if (ret != CMD_CONTINUE)
			goto out;
	}
	r = 0;
	json_object_foreach(g.groups, k, v)
		if (r == 0 && (strcmp(k, LAB_HOST) || strcmp(spec, "none")))
			r = cmp_add_operand(&t, k, json_incref(v));
	if (r < 0 || lab_compare(&t, spec, base, &pairs) < 0) {
		ret = EXIT_FAILED;
		goto out;
	}
	ret = study_card(self, own, g.groups, !out || strcmp(out, "-"), &preface);
	if (ret != CMD_CONTINUE)
		goto out;
	t.html_preface = preface;
	ret = lab_show(&t, out, true);
out:
	free(preface);
	cmp_table_release(&t);
	json_decref(g.groups);
	json_decref(ss.matched);
	json_decref(ss.sessions);
	json_decref(g.failures);
	db_close(g.db);
	strv_clear(&filter);
	strv_clear(&pairs);
	strv_clear(&mine);
	free(sel);
	return ret;
}

static const struct vmb_opt lab_report_opts[] = {
	LAB_OPT_BASELINE,
	LAB_OPT_OUTPUT,
	LAB_OPT_DB,
	LAB_OPTS_SAY,
	OPT_TABLE_END,
};

static int cmd_lab_report(const struct vmb_cmd *self, int argc, char **argv)
{
	struct optset own;
	struct strv pos;
	int ret = cmd_parse(self, argc, argv, &own, NULL, &pos);

	if (ret == CMD_CONTINUE) {
		cmd_apply_verbosity(&own);
		/* no selector: the last session */
		ret = lab_report(self, &own, pos.n ? pos.v[0] : NULL);
	}
	cmd_release(&own, NULL, &pos);
	return ret;
}

const struct vmb_cmd cmd_lab_report_desc = {
	.name = "report",
	.fn = cmd_lab_report,
	.args = "[SELECTOR]",
	.summary = "redraw a session's comparison from the store",
	.opts = lab_report_opts,
	.max_args = 1,
	.parent = &cmd_lab_desc,
};
