/* What the formats of a comparison share: a cell and a verdict in words,
 * and the table of formats behind cmp_print. */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"
#include "compare_out.h"
#include "text.h"
#include "../core/str.h"
#include "../core/util.h"
#include "../core/banned.h"

/* "runs x repetitions" of a cell: "3x5", "3x4-5" */
void cmp_shape_text(const struct cmp_cell *c, char *buf, size_t len)
{
	if (c->reps_min == c->reps_max)
		snprintf(buf, len, "%zux%zu", c->nruns, c->reps_min);
	else
		snprintf(buf, len, "%zux%zu-%zu", c->nruns, c->reps_min, c->reps_max);
}

/* The cell's one figure (c->fig): the mean and 95% CI of the run means
 * when there are two runs or more, what the verdict tests; with one run the
 * spread of its repetitions, marked as such ("±1.2%(r)"); runs x
 * repetitions, and CMP_IMPRECISE_MARK when a run stopped short of
 * --precision (a legend under the table says so). */
void cmp_cell_text(const struct cmp_row *r, const struct cmp_cell *c, char *buf, size_t len)
{
	const struct stats_summary *s = &c->fig;
	char val[48], shape[32];

	if (!c->n) {
		snprintf(buf, len, "-");
		return;
	}
	text_format_metric(s->mean, r->metric, r->unit, val, sizeof(val));
	cmp_shape_text(c, shape, sizeof(shape));
	if (s->n > 1 && s->mean != 0 && isfinite(s->ci95_high))
		snprintf(buf, len, "%s ±%.1f%%%s %s%s", val, 100 * (s->ci95_high - s->mean) / fabs(s->mean),
			 c->fig_runs ? "" : CMP_REPS_MARK, shape, c->imprecise ? CMP_IMPRECISE_MARK : "");
	else
		snprintf(buf, len, "%s %s%s", val, shape, c->imprecise ? CMP_IMPRECISE_MARK : "");
}

void cmp_print_figures(FILE *f, const struct cmp_table *t, size_t o)
{
	size_t width = 0;

	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < t->nrows; i++) {
			const struct cmp_row *r = &t->rows[i];
			char p[256], name[400], cell[160];

			if (!r->headline || !r->cells[o].present)
				continue;
			cmp_row_params(r, p, sizeof(p));
			snprintf(name, sizeof(name), "%s.%s%s%s %s", r->suite, r->test, *p ? " " : "", p, r->metric);
			if (!pass) {
				width = strlen(name) > width ? strlen(name) : width;
				continue;
			}
			cmp_cell_text(r, &r->cells[o], cell, sizeof(cell));
			fprintf(f, "  %-*s  %s\n", (int)width, name, cell);
		}
}

/* The minimal detectable difference, when it is known. */
void cmp_mdd_text(const struct cmp_verdict *v, char *buf, size_t len)
{
	if (isfinite(v->rc.mdd_pct))
		snprintf(buf, len, ", mdd %.1f%%", v->rc.mdd_pct);
	else
		buf[0] = '\0';
}

/* What one operand's cell says against the baseline's, in a few words. */
void cmp_verdict_text(const struct cmp_table *t, const struct cmp_row *r, size_t o, char *buf, size_t len)
{
	const struct cmp_cell *base = &r->cells[t->baseline], *op = &r->cells[o];
	struct cmp_verdict v;
	char words[32], mdd[32];

	cmp_judge(t, r, o, &v);
	if (!v.comparable) {
		if (!base->n && !op->n)
			snprintf(buf, len, "in neither");
		else
			snprintf(buf, len, "missing in %s", !op->n ? t->ops[o].name : t->ops[t->baseline].name);
		return;
	}
	cmp_ratio_words(r, &v, words, sizeof(words));
	cmp_mdd_text(&v, mdd, sizeof(mdd));
	if (!isfinite(v.gap_pct))
		snprintf(buf, len, "%s", v.better > 0 ? "better" : v.better < 0 ? "worse" : "inconclusive");
	else if (!v.w.valid)
		snprintf(buf, len, "%+.1f%% untested: one run, noise unknown (*)", v.gap_pct);
	else if (v.rc.verdict == STATS_SAME)
		snprintf(buf, len, "%+.1f%% same within ±%g%% (p=%.2g%s%s)", v.gap_pct, t->margin_pct, v.w.p,
			 v.rc.pairs ? " paired" : "", mdd);
	else if (v.better == 0)
		snprintf(buf, len, "%+.1f%% no significant difference (p=%.2g%s%s)", v.gap_pct, v.w.p,
			 v.rc.pairs ? " paired" : "", mdd);
	else /* "-55.0% worse, 2.2x slower": the ratio only where the verdict backs it */
		snprintf(buf, len, "%+.1f%% %s%s%s (p=%.2g%s)", v.gap_pct, v.better > 0 ? "better" : "worse",
			 *words ? ", " : "", words, v.w.p, v.rc.pairs ? " paired" : "");
}

/* The short name of the test a verdict rests on, for the machine formats. */
const char *cmp_test_word(const struct cmp_verdict *v)
{
	return stats_test_name(v->comparable ? v->rc.test : STATS_TEST_NONE);
}

/* The word the machine-readable formats give a verdict. */
const char *cmp_verdict_word(const struct cmp_verdict *v)
{
	if (!v->comparable)
		return "missing";
	return stats_verdict_word(v->rc.verdict);
}

/* The formats, one row each, in enum cmp_format's order. */
static int (*const cmp_printers[])(FILE *f, const struct cmp_table *t, const struct cmp_filter *flt, bool color) = {
	[CMP_TEXT] = cmp_print_text,
	[CMP_MARKDOWN] = cmp_print_markdown,
	[CMP_CSV] = cmp_print_csv,
	[CMP_JSON] = cmp_print_json,
};

int cmp_print(FILE *f, const struct cmp_table *t, const struct cmp_filter *flt, enum cmp_format fmt, bool color)
{
	int r;

	if ((size_t)fmt >= ARRAY_SIZE(cmp_printers) || !cmp_printers[fmt])
		return -EINVAL;
	r = cmp_printers[fmt](f, t, flt, color);
	if (r < 0)
		return r;
	return ferror(f) ? -EIO : 0;
}

enum { MAX_BASES = 16 };

/* The distinct bases of the verdicts seen, with their counts. */
struct bases {
	char seen[MAX_BASES][160];
	size_t count[MAX_BASES], n, other;
	bool reps; /* some cell's interval is one run's repetitions */
};

static void basis_of(const struct cmp_table *t, const struct cmp_row *r, size_t o, const struct cmp_verdict *v,
		     void *arg)
{
	struct bases *b = arg;
	size_t k = 0;

	(void)t;
	b->reps = b->reps || (r->cells[o].n && !r->cells[o].fig_runs && r->cells[o].fig.n > 1);
	if (!v->comparable)
		return;
	while (k < b->n && strcmp(b->seen[k], v->basis))
		k++;
	if (k == b->n && b->n == MAX_BASES) {
		b->other++;
		return;
	}
	if (k == b->n)
		snprintf(b->seen[b->n++], sizeof(b->seen[0]), "%s", v->basis);
	b->count[k]++;
}

/* Which tests the selected verdicts rest on, and why: a line per distinct
 * basis with its count ("verdicts (4): paired t on 3 rounds measured
 * together"), each line through put (text or Markdown escaping); and what
 * (r) means when a cell has it. */
void cmp_bases(FILE *f, const struct cmp_table *t, const struct cmp_filter *flt, void (*put)(FILE *, const char *))
{
	struct bases b = { .n = 0 };
	char line[256];
	bool imprecise = false;

	cmp_each_verdict(t, flt, basis_of, &b);
	/* the baseline's own cells: (r) may be only there */
	for (size_t i = 0; i < t->nrows && !b.reps; i++) {
		const struct cmp_cell *c = &t->rows[i].cells[t->baseline];

		b.reps = cmp_row_selected(&t->rows[i], flt) && c->n && !c->fig_runs && c->fig.n > 1;
	}
	for (size_t i = 0; i < t->nrows && !imprecise; i++)
		for (size_t o = 0; o < t->nops && cmp_row_selected(&t->rows[i], flt); o++)
			imprecise |= t->rows[i].cells[o].n && t->rows[i].cells[o].imprecise;
	for (size_t k = 0; k < b.n; k++) {
		snprintf(line, sizeof(line), "verdicts (%zu): %s", b.count[k], b.seen[k]);
		put(f, line);
	}
	if (b.other) {
		snprintf(line, sizeof(line), "verdicts (%zu): other tests (compare --format json names each)", b.other);
		put(f, line);
	}
	if (b.reps)
		put(f, CMP_REPS_MARK " the interval of one run's repetitions, not of runs: no verdict rests on it");
	if (imprecise)
		put(f, CMP_IMPRECISE_MARK " imprecise: a run stopped (--max-reps or --budget) before its repetitions' 95% "
		       "interval was within --precision");
}

/* --stat: each cell's trimmed mean or median and its gap to the
 * baseline's, a line per metric, under a heading that says it is
 * descriptive (for studies that report it) and decides nothing. */
void cmp_stat_lines(FILE *f, const struct cmp_table *t, const struct cmp_filter *flt, void (*put)(FILE *, const char *))
{
	char line[1024], val[48];
	size_t off;

	if (!cmp_stat_name(t->stat))
		return;
	snprintf(line, sizeof(line), "%s of the run means%s (descriptive, for studies that report it; not tested: the "
		 "verdicts are the means')", cmp_stat_name(t->stat),
		 t->stat == CMP_STAT_TRIMMED ? ", each case's largest and smallest run dropped when it has 3 or more" : "");
	put(f, line);
	for (size_t i = 0; i < t->nrows; i++) {
		const struct cmp_row *r = &t->rows[i];
		char p[256];

		if (!cmp_row_selected(r, flt))
			continue;
		cmp_row_params(r, p, sizeof(p));
		off = 0;
		line[0] = '\0';
		str_appendf(line, sizeof(line), &off, "  %s.%s%s%s %s:", r->suite, r->test, *p ? " " : "", p, r->metric);
		for (size_t o = 0; o < t->nops; o++) {
			double x = cmp_cell_stat(t, &r->cells[o]), gap = cmp_stat_gap_pct(t, r, o);

			if (!isfinite(x)) {
				str_appendf(line, sizeof(line), &off, " %s -", t->ops[o].name);
				continue;
			}
			text_format_metric(x, r->metric, r->unit, val, sizeof(val));
			str_appendf(line, sizeof(line), &off, " %s %s", t->ops[o].name, val);
			if (o != t->baseline && isfinite(gap))
				str_appendf(line, sizeof(line), &off, " (%+.1f%%)", gap);
			if (o + 1 < t->nops)
				str_appendf(line, sizeof(line), &off, ";");
		}
		put(f, line);
	}
}
