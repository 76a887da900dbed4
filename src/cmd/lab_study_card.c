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

/* A claim's verdict and why, whether or not its experiment ran here: one
 * this lab cannot measure says its own why; one whose experiment was not
 * run (not among --experiment's, left out of --quick, refused here) was
 * not compared, and says why */
static enum study_verdict card_verdict(const struct study_result *res, size_t k, const char **measured,
				       const char **why)
{
	const struct study_claim *c = &res->e->claim[k];

	if (*c->not_comparable) {
		*measured = "-";
		*why = c->not_comparable;
		return STUDY_NOT_COMPARABLE;
	}
	if (*res->note || !res->t.nrows) {
		*measured = "-";
		*why = *res->note ? res->note : "its experiment stored no result";
		return STUDY_NOT_COMPARABLE;
	}
	*measured = res->t.claim[k].measured;
	*why = res->t.claim[k].why;
	return res->t.claim[k].v;
}

/* "k of n claims reproduced, ..." */
void study_card_tally(const struct study *s, const struct study_result *res, char *buf, size_t len)
{
	unsigned count[4] = { 0 }, n = 0;

	for (size_t i = 0; i < s->nexp; i++)
		for (size_t k = 0; k < s->exp[i].nclaims; k++) {
			const char *m, *w;
			struct study_result r = res[i];

			if (!r.e)
				r.e = &s->exp[i], snprintf(r.note, sizeof(r.note), "its experiment was not run (not among --experiment's)");
			count[card_verdict(&r, k, &m, &w)]++;
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
			const struct study_claim *c = &s->exp[i].claim[k];
			struct study_result r = res[i];
			const char *m, *w;
			enum study_verdict v;

			if (!r.e)
				r.e = &s->exp[i], snprintf(r.note, sizeof(r.note), "its experiment was not run (not among --experiment's)");
			v = card_verdict(&r, k, &m, &w);
			study_say("  %s: %s | %s | %s | %s%s%s\n", s->exp[i].id, c->text, *c->published ? c->published : "-",
				  m, study_verdict_name(v), *w ? ": " : "", w);
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
			const struct study_claim *c = &s->exp[i].claim[k];
			struct study_result r = res[i];
			const char *m, *w;
			enum study_verdict v;
			char text[400], verdict[800];

			if (!r.e)
				r.e = &s->exp[i], snprintf(r.note, sizeof(r.note), "its experiment was not run (not among --experiment's)");
			v = card_verdict(&r, k, &m, &w);
			snprintf(text, sizeof(text), "%s: %s", s->exp[i].id, c->text);
			snprintf(verdict, sizeof(verdict), "%s%s%s", study_verdict_name(v), *w ? ": " : "", w);
			fprintf(f, "<tr class=\"%s\">", study_verdict_class(v));
			study_html_tag(f, "td", text);
			study_html_tag(f, "td", *c->published ? c->published : "-");
			study_html_tag(f, "td", m);
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
