/* vmbench lab study, its run: each experiment through lab run or lab
 * contend (a typed request, struct lab_request), then the study's tables, its
 * figures beside ours and whether each of its conclusions holds here, on
 * stdout and in one HTML report (docs/study-format.md). */
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
#include "../core/result.h"
#include "../core/stats.h"
#include "../core/stop.h"
#include "../report/compare.h"
#include "../report/html.h"
#include "../report/text.h"
#include "../store/db.h"
#include "../lab/matrix.h"
#include "../lab/study.h"
#include "../lab/study_table.h"
#include "../suites/suites.h"
#include "../core/banned.h"

/* ---- a run: each experiment through lab run, then the study's table ---- */

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
	res->docs = docs; /* the report's charts and environments */
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

/* Under a table: what each row ran under when it is not plain (TCG by a
 * fall back, mixed across rounds), and what the study ran under (accel =). */
static void accel_notes(const struct study_result *res, void (*note)(void *, const char *), void *arg)
{
	const struct study_experiment *e = res->e;
	char line[800];

	if (e->accel != STUDY_ACCEL_MATRIX) {
		snprintf(line, sizeof(line), "ran under: the accelerator each configuration's results ran under (their label "
			 "accel); the study ran it %s", e->accel == STUDY_ACCEL_KVM ? "under hardware virtualization (accel = "
			 "kvm): a row under TCG measured QEMU's emulation, not what the study measured" :
			 "without hardware virtualization (accel = tcg)");
		note(arg, line);
	}
	for (size_t r = 0; r < res->t.nrows; r++) {
		const struct study_row *row = &res->t.rows[r];
		const char *accel = study_row_accel(&res->t, r);

		if (accel && !strcmp(accel, "mixed"))
			snprintf(line, sizeof(line), "%s ran under different accelerators across rounds: KVM in %u of its "
				 "results, TCG in %u%s%s", row->name, row->nkvm, row->ntcg, *row->accel_note ? ": " : "",
				 row->accel_note);
		else if (accel && *row->accel_note)
			snprintf(line, sizeof(line), "%s ran under TCG: %s", row->name, row->accel_note);
		else
			continue;
		note(arg, line);
	}
}

static void say_text(void *arg, const char *line)
{
	(void)arg;
	study_say("  %s\n", line);
}

static void say_html(void *arg, const char *line)
{
	study_html_tag(arg, "p", line);
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

	study_say("\n== [experiment %s] %s\n", e->id, e->title);
	if (*res->note) {
		study_say("  %s\n", res->note);
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
	study_say("  %-*s %-9s", namew, *e->rows ? e->rows : "configuration", "ran under");
	for (size_t c = 0; c < e->ncolumns; c++) {
		char h[128];

		heading_of(&e->columns[c], h, sizeof(h));
		study_say(" %*s", w[c], h);
	}
	study_say("\n");
	for (size_t r = 0; r < res->t.nrows; r++) {
		const char *accel = study_row_accel(&res->t, r);

		study_say("  %-*s %-9s", namew, res->t.rows[r].name, accel ? accel : "-");
		for (size_t c = 0; c < e->ncolumns; c++) {
			const struct study_cell *cell = &res->t.rows[r].cell[c];
			char txt[48], both[80];

			(void)cell_text(&e->columns[c], cell, e->stat, txt, sizeof(txt));
			snprintf(both, sizeof(both), "%s%s", txt, cell->ambiguous ? " (?)" : "");
			study_say(" %*s", w[c], both);
			ambiguous |= cell->ambiguous;
		}
		study_say("\n");
	}
	study_say("  (the %s of each configuration's rounds%s)\n", study_stat_name(e->stat),
	       ambiguous ? "; (?): several cases matched the column, the first is shown: give it 'at'" : "");
	unit_notes(res, say_text, NULL);
	accel_notes(res, say_text, NULL);
	for (size_t r = 0; r < res->t.nrows; r++)
		for (size_t c = 0; c < e->ncolumns; c++)
			if (*res->t.rows[r].cell[c].vs) {
				char h[128];

				heading_of(&e->columns[c], h, sizeof(h));
				study_say("  %s against %s, %s: %s\n", res->t.rows[r].name, e->baseline, h, res->t.rows[r].cell[c].vs);
			}
	for (size_t i = 0; i < e->published.n; i++)
		study_say("  the study's figure: %s\n", e->published.v[i]);
	if (*e->conclusion)
		study_say("  the study's conclusion: %s\n", e->conclusion);
	for (size_t k = 0; k < e->nclaims; k++) {
		const struct study_claim_result *cr = &res->t.claim[k];

		study_say("  claim: %s: %s (here %s)%s%s\n", e->claim[k].text, study_verdict_name(cr->v), cr->measured,
			  *cr->why ? ": " : "", cr->why);
	}
}

/* Part which (0 ROW, 1 HEADING, 2 FIGURE) of a published figure, trimmed
 * (the parser made sure of its two '|'). */
static void published_part(const char *line, int which, char *buf, size_t len)
{
	const char *p = line, *end;
	size_t n;

	for (int i = 0; i < which && p; i++)
		p = strchr(p, '|'), p = p ? p + 1 : NULL;
	if (!p)
		p = "";
	end = strchr(p, '|');
	n = end ? (size_t)(end - p) : strlen(p);
	while (n && (*p == ' ' || *p == '\t'))
		p++, n--;
	while (n && (p[n - 1] == ' ' || p[n - 1] == '\t'))
		n--;
	snprintf(buf, len, "%.*s", (int)n, p);
}

/* The published figure whose ROW and HEADING are this cell's, or SIZE_MAX. */
static size_t published_of(const struct study_experiment *e, const char *row, const char *heading)
{
	for (size_t k = 0; k < e->published.n; k++) {
		char r[128], h[128];

		published_part(e->published.v[k], 0, r, sizeof(r));
		published_part(e->published.v[k], 1, h, sizeof(h));
		if (!strcmp(r, row) && !strcmp(h, heading))
			return k;
	}
	return SIZE_MAX;
}

/* The table: a row per configuration (or value of its rows key), each cell
 * the statistic of its rounds, its verdict against the baseline with the
 * difference its rounds could detect, and the study's own figure where
 * one is published for that row and heading; *matched[k]: figure k is in a cell. */
static void html_table(FILE *f, const struct study_result *res, bool *matched)
{
	const struct study_experiment *e = res->e;

	fprintf(f, "<div class=\"scroll\"><table><thead><tr><th>");
	study_html(f, *e->rows ? e->rows : "configuration");
	fprintf(f, "</th><th>ran under</th>");
	for (size_t c = 0; c < e->ncolumns; c++) {
		char h[128];

		heading_of(&e->columns[c], h, sizeof(h));
		study_html_tag(f, "th", h);
	}
	fprintf(f, "</tr></thead><tbody>\n");
	for (size_t r = 0; r < res->t.nrows; r++) {
		const char *accel = study_row_accel(&res->t, r);

		fprintf(f, "<tr>");
		study_html_tag(f, "td", res->t.rows[r].name);
		study_html_tag(f, "td", accel ? accel : "-");
		for (size_t c = 0; c < e->ncolumns; c++) {
			const struct study_cell *cell = &res->t.rows[r].cell[c];
			size_t nr, k;
			char txt[48], both[96], h[128], fig[128];

			(void)study_cell_stat(cell, e->stat, &nr);
			(void)cell_text(&e->columns[c], cell, e->stat, txt, sizeof(txt));
			snprintf(both, sizeof(both), "%s (%zu round%s)%s", txt, nr, nr == 1 ? "" : "s",
				 cell->ambiguous ? " (?)" : "");
			fprintf(f, "<td class=\"v\">");
			study_html(f, both);
			if (*cell->vs) {
				fprintf(f, "<br><small>");
				study_html(f, cell->vs);
				fprintf(f, "</small>");
			}
			heading_of(&e->columns[c], h, sizeof(h));
			k = published_of(e, res->t.rows[r].name, h);
			if (k != SIZE_MAX) {
				published_part(e->published.v[k], 2, fig, sizeof(fig));
				fprintf(f, "<br><span class=\"published\">");
				study_html(f, fig);
				fprintf(f, " published</span>");
				matched[k] = true;
			}
			fprintf(f, "</td>");
		}
		fprintf(f, "</tr>\n");
	}
	fprintf(f, "</tbody></table></div>\n<p>The %s of each configuration's rounds; under each, the ratio to the "
		   "baseline (", study_stat_name(e->stat));
	study_html(f, e->baseline);
	fprintf(f, "), the paired verdict on the rounds both were measured in and its mdd, the smallest difference "
		   "those rounds could detect (80%% power at 5%%); in <span class=\"published\">this colour</span>, the "
		   "study's own figure for that row and column.</p>\n");
}

/* A chart per column: a bar per row, the statistic of its rounds, a line
 * from its lowest round to its highest; in the column's unit. */
static void html_charts(FILE *f, const struct study_result *res)
{
	const struct study_experiment *e = res->e;
	struct html_bar bars[STUDY_MAX_ROWS];
	char names[STUDY_MAX_ROWS][200];

	fprintf(f, "<div class=\"charts\">\n");
	for (size_t c = 0; c < e->ncolumns; c++) {
		const struct study_column *col = &e->columns[c];
		const char *doc_unit = "";
		char h[128], title[400], ytitle[480], caption[1200], label[32];
		double factor = 0;

		if (!res->t.nrows || study_column_empty(&res->t, c))
			continue;
		for (size_t r = 0; r < res->t.nrows && !*doc_unit; r++)
			doc_unit = res->t.rows[r].cell[c].unit;
		if (*col->unit)
			factor = study_unit_factor(doc_unit, col->unit);
		for (size_t r = 0; r < res->t.nrows; r++) {
			const struct study_cell *cell = &res->t.rows[r].cell[c];
			double k = factor > 0 ? factor : 1, lo = INFINITY, hi = -INFINITY;
			size_t n;

			for (unsigned rd = 0; rd <= STUDY_MAX_ROUNDS; rd++)
				if (cell->cnt[rd]) {
					lo = fmin(lo, k * cell->sum[rd] / cell->cnt[rd]);
					hi = fmax(hi, k * cell->sum[rd] / cell->cnt[rd]);
				}
			bars[r] = (struct html_bar){ .name = study_escape(res->t.rows[r].name, names[r], sizeof(names[r])),
						     .v = k * study_cell_stat(cell, e->stat, &n),
						     .lo = isfinite(lo) ? lo : NAN, .hi = isfinite(hi) ? hi : NAN };
		}
		heading_of(col, h, sizeof(h));
		study_escape(h, title, sizeof(title));
		/* the unit, where the heading does not say it: the column's, else the documents' */
		if (*col->unit && factor > 0)
			snprintf(ytitle, sizeof(ytitle), "%s", title);
		else if (*doc_unit && (text_unit_label(col->metric, doc_unit, label, sizeof(label)), !strstr(title, label)))
			snprintf(ytitle, sizeof(ytitle), "%s (%s)", title, label);
		else
			snprintf(ytitle, sizeof(ytitle), "%s", title);
		snprintf(caption, sizeof(caption), "%s: the %s of each %s's rounds, the line from its lowest round to its "
			 "highest", title, study_stat_name(e->stat), *e->rows ? e->rows : "configuration");
		html_bars(f, title, ytitle, bars, res->t.nrows, caption);
	}
	fprintf(f, "</div>\n");
}

/* The configurations' environments (CPU, kernel, hypervisor, ...), from the
 * first document of each, as the lab's report shows them. */
static void html_envs(FILE *f, const struct study_result *res)
{
	struct cmp_table t;
	struct lab_matrix m = { 0 };
	json_t *groups = json_object(), *doc, *list;
	const char *k;
	char err[512];
	size_t i;

	cmp_table_init(&t, suites_find);
	if (!groups)
		goto out;
	json_array_foreach(res->docs, i, doc) {
		const char *cfg = json_string_value(json_object_get(doc, "lab_config"));

		if (!cfg || json_object_get(doc, "lab_failure"))
			continue;
		list = json_object_get(groups, cfg);
		if (!list && (!(list = json_array()) || json_object_set_new(groups, cfg, list) < 0))
			goto out;
		if (json_array_append(list, doc) < 0)
			goto out;
	}
	json_object_foreach(groups, k, list)
		if (cmp_add_operand(&t, k, json_incref(list)) < 0)
			goto out;
	if (lab_matrix_parse(res->e->matrix, &m, err, sizeof(err)) == 0)
		lab_matrix_order(&t, &m);
	lab_matrix_release(&m);
	/* the host first, as in the table */
	for (size_t o = 1; o < t.nops; o++)
		if (!strcmp(t.ops[o].name, LAB_HOST)) {
			struct cmp_operand x = t.ops[o];

			memmove(&t.ops[1], &t.ops[0], o * sizeof(x));
			t.ops[0] = x;
		}
	if (t.nops)
		html_environments(f, &t, "h3", true);
out:
	cmp_table_release(&t);
	json_decref(groups);
}

static const char study_css[] =
	".agrees{color:#060}.disagrees{color:#a00}.published{color:#815}section{margin-bottom:2em}";

static int write_report(const struct study *s, const struct study_result *res, size_t n, const char *out, bool quick)
{
	char *html = NULL, title[1200];
	size_t len = 0;
	FILE *f = open_memstream(&html, &len);
	int ret;

	if (!f)
		return -ENOMEM;
	html_page_head(f, study_escape(s->title, title, sizeof(title)), study_css);
	study_html_tag(f, "p", s->source);
	if (*s->description)
		study_html_tag(f, "p", s->description);
	study_html_card(f, s, res);
	if (quick)
		study_quick_note(s, res, say_html, f);
	for (size_t i = 0; i < n; i++) {
		const struct study_experiment *e = res[i].e;
		bool *matched, listed = false;

		if (!e) /* not among --experiment's, or not reached */
			continue;
		matched = calloc(e->published.n + 1, sizeof(*matched));
		if (!matched) {
			(void)fclose(f);
			free(html);
			return -ENOMEM;
		}
		fprintf(f, "<section><h2>");
		study_html(f, e->title);
		fprintf(f, "</h2>\n");
		for (size_t k = 0; k < e->stand_in.n; k++)
			study_html_tag(f, "p", e->stand_in.v[k]);
		if (*res[i].note) {
			study_html_tag(f, "p", res[i].note);
			fprintf(f, "</section>\n");
			free(matched);
			continue;
		}
		html_table(f, &res[i], matched);
		html_charts(f, &res[i]);
		unit_notes(&res[i], say_html, f);
		accel_notes(&res[i], say_html, f);
		/* the study's figures that match no row and column of the table */
		for (size_t k = 0; k < e->published.n; k++) {
			if (matched[k])
				continue;
			if (!listed)
				fprintf(f, "<p>The study's own figures (row | column | figure) that no cell of this table "
					   "matches:</p><ul>\n");
			listed = true;
			study_html_tag(f, "li", e->published.v[k]);
		}
		if (listed)
			fprintf(f, "</ul>\n");
		free(matched);
		if (*e->conclusion) {
			fprintf(f, "<p>The study's conclusion: ");
			study_html(f, e->conclusion);
			fprintf(f, "</p>\n");
		}
		for (size_t k = 0; k < e->nclaims; k++) {
			const struct study_claim_result *cr = &res[i].t.claim[k];
			char line[1400], mdd[96] = "";

			/* each verdict with the smallest difference its rounds could
			 * detect (an inconclusive one says it in its why) */
			if (cr->v != STUDY_INCONCLUSIVE && cr->v != STUDY_NOT_COMPARABLE && isfinite(cr->mdd_pct) &&
			    cr->mdd_pct > 0)
				snprintf(mdd, sizeof(mdd), "; the smallest difference its rounds could detect: %.0f%%",
					 cr->mdd_pct);
			snprintf(line, sizeof(line), "%s: %s (here %s)%s%s%s", e->claim[k].text, study_verdict_name(cr->v),
				 cr->measured, *cr->why ? ": " : "", cr->why, mdd);
			fprintf(f, "<p class=\"%s\">", study_verdict_class(cr->v));
			study_html(f, line);
			fprintf(f, "</p>\n");
		}
		if (res[i].docs)
			html_envs(f, &res[i]);
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

/* Run every experiment of the study (of --experiment), then its tables. */
int study_run(const struct vmb_cmd *self, const struct optset *own, struct study_call *call,
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
		struct lab_request rq = { 0 };
		char title[1100];

		if (!study_selected(own, e->id))
			continue;
		res[i].e = e;
		if (*e->not_run) {
			snprintf(res[i].note, sizeof(res[i].note), "not run: %s", e->not_run);
			continue;
		}
		if (study_quick_skipped(own, e)) {
			snprintf(res[i].note, sizeof(res[i].note), "not part of --quick: %.400s ('--experiment %s' runs it)",
				 e->quick_skip, e->id);
			continue;
		}
		if (vmb_stop_requested())
			break;
		log_info("study %s: experiment %s: %s", s->name, e->id, study_escape(e->title, title, sizeof(title)));
		/* the request its plan checked */
		res[i].exit = study_request(call, e, optset_bool(own, "quick"), false, &rq);
		rq.session = res[i].session;
		rq.session_len = sizeof(res[i].session);
		if (res[i].exit == CMD_CONTINUE)
			res[i].exit = lab_request_start(&rq);
		lab_request_release(&rq);
		/* a stop: its rounds are cut short, and nothing is drawn of them */
		if (vmb_stop_requested())
			break;
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
		for (size_t i = 0; i < s->nexp; i++)
			json_decref(res[i].docs);
		free(res);
		log_error("interrupted: what was measured is stored; 'vmbench lab report %s' draws the card of it",
			  call->run_label);
		return EXIT_INTERRUPTED;
	}
	study_say("\nstudy %s: %s\n", s->name, s->title);
	study_print_card(s, res);
	if (optset_bool(own, "quick"))
		study_quick_note(s, res, say_text, NULL);
	study_card_tally(s, res, call->tally, sizeof(call->tally));
	for (size_t i = 0; i < s->nexp; i++)
		if (res[i].e)
			print_result(&res[i]);
	if (write_report(s, res, s->nexp, optset_str(own, "output"), optset_bool(own, "quick")) < 0)
		ret = EXIT_FAILED;
	for (size_t i = 0; i < s->nexp; i++)
		json_decref(res[i].docs);
	free(res);
	return refused ? EXIT_USAGE : ret;
}

