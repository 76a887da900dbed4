/* vmbench lab study's reproduction card: every claim of a study, its
 * published figure, what was measured here and its verdict, with the
 * closing tally. Drawn by a study's run (lab_study_run.c) and redrawn from
 * the store by lab report of a study's run (lab_report.c): one card, one
 * place (docs/study-format.md, "The reproduction card"). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "lab_study.h"
#include "../lab/study.h"
#include "../lab/study_table.h"
#include "../core/banned.h"

void study_html_tag(FILE *f, const char *tag, const char *text)
{
	fprintf(f, "<%s>", tag);
	study_html(f, text);
	fprintf(f, "</%s>\n", tag);
}

/* One row of the card: claim k of experiment i, its verdict and why,
 * whether or not its experiment ran here. One this lab cannot measure says
 * its own why; one whose experiment was not run (not among --experiment's,
 * left out of --quick, refused here) was not compared, and says why. */
struct card_row {
	const char *exp, *text, *published, *measured, *why;
	enum study_verdict v;
};

static void card_row(const struct study *s, const struct study_result *res, size_t i, size_t k, struct card_row *row)
{
	const struct study_claim *c = &s->exp[i].claim[k];
	const struct study_result *r = &res[i];

	row->exp = s->exp[i].id;
	row->text = c->text;
	row->published = *c->published ? c->published : "-";
	row->measured = "-";
	row->v = STUDY_NOT_COMPARABLE;
	if (*c->not_comparable)
		row->why = c->not_comparable;
	else if (!r->e)
		row->why = "its experiment was not run (not among --experiment's)";
	else if (*r->note || !r->t.nrows)
		row->why = *r->note ? r->note : "its experiment stored no result";
	else {
		row->measured = r->t.claim[k].measured;
		row->why = r->t.claim[k].why;
		row->v = r->t.claim[k].v;
	}
}

/* "k of n claims reproduced, ..." */
void study_card_tally(const struct study *s, const struct study_result *res, char *buf, size_t len)
{
	unsigned count[4] = { 0 }, n = 0;

	for (size_t i = 0; i < s->nexp; i++)
		for (size_t k = 0; k < s->exp[i].nclaims; k++) {
			struct card_row row;

			card_row(s, res, i, k, &row);
			count[row.v]++;
			n++;
		}
	snprintf(buf, len, "%u of %u claims reproduced, %u contradicted, %u inconclusive, %u not comparable",
		 count[STUDY_REPRODUCED], n, count[STUDY_CONTRADICTED], count[STUDY_INCONCLUSIVE],
		 count[STUDY_NOT_COMPARABLE]);
}

void study_print_card(const struct study *s, const struct study_result *res)
{
	char tally[160];

	study_say("\nreproduction card of study %s (claim | published | measured here | verdict):\n", s->name);
	for (size_t i = 0; i < s->nexp; i++)
		for (size_t k = 0; k < s->exp[i].nclaims; k++) {
			struct card_row row;

			card_row(s, res, i, k, &row);
			study_say("  %s: %s | %s | %s | %s%s%s\n", row.exp, row.text, row.published, row.measured,
				  study_verdict_name(row.v), *row.why ? ": " : "", row.why);
		}
	study_card_tally(s, res, tally, sizeof(tally));
	study_say("  %s\n", tally);
}

const char *study_verdict_class(enum study_verdict v)
{
	return v == STUDY_REPRODUCED ? "agrees" : v == STUDY_CONTRADICTED ? "disagrees" : "neither";
}

/* The card, first in the report */
void study_html_card(FILE *f, const struct study *s, const struct study_result *res)
{
	char tally[160];

	fprintf(f, "<section><h2>Reproduction card</h2>\n<table><tr><th>claim</th><th>published</th><th>measured "
		   "here</th><th>verdict</th></tr>\n");
	for (size_t i = 0; i < s->nexp; i++)
		for (size_t k = 0; k < s->exp[i].nclaims; k++) {
			struct card_row row;
			char text[400], verdict[800];

			card_row(s, res, i, k, &row);
			snprintf(text, sizeof(text), "%s: %s", row.exp, row.text);
			snprintf(verdict, sizeof(verdict), "%s%s%s", study_verdict_name(row.v), *row.why ? ": " : "", row.why);
			fprintf(f, "<tr class=\"%s\">", study_verdict_class(row.v));
			study_html_tag(f, "td", text);
			study_html_tag(f, "td", row.published);
			study_html_tag(f, "td", row.measured);
			study_html_tag(f, "td", verdict);
			fprintf(f, "</tr>\n");
		}
	study_card_tally(s, res, tally, sizeof(tally));
	fprintf(f, "</table>\n");
	study_html_tag(f, "p", tally);
	fprintf(f, "</section>\n");
}

/* Under --quick, after the card: each claim its fixed rounds left
 * inconclusive though a finer run could decide it (it needs a smaller
 * difference than this run could detect), one line each to say() */
void study_quick_note(const struct study *s, const struct study_result *res, void (*say)(void *, const char *),
		      void *arg)
{
	for (size_t i = 0; i < s->nexp; i++)
		for (size_t k = 0; res[i].e && !*res[i].note && k < s->exp[i].nclaims; k++) {
			const struct study_claim *c = &s->exp[i].claim[k];
			const struct study_claim_result *cr = &res[i].t.claim[k];
			double need = INFINITY;
			char why[256], line[800];

			if (cr->v != STUDY_INCONCLUSIVE || *c->not_comparable)
				continue;
			for (unsigned r = 0; r < c->n; r++) {
				double n = study_rel_need_pct(c, &s->exp[i].rel[c->first + r], why, sizeof(why));

				need = n < need ? n : need;
			}
			if (isfinite(cr->mdd_pct) && !(need < cr->mdd_pct))
				continue;
			if (isfinite(cr->mdd_pct))
				snprintf(line, sizeof(line), "--quick's rounds left %s: %s inconclusive: it needs %.3g%%, and "
					 "this run could detect %.3g%% (the full run's rounds by power decide it where the "
					 "machine allows)", s->exp[i].id, c->text, need, cr->mdd_pct);
			else
				snprintf(line, sizeof(line), "--quick's rounds left %s: %s inconclusive: it needs %.3g%%, and "
					 "this run had too few rounds to detect any", s->exp[i].id, c->text, need);
			say(arg, line);
		}
}
