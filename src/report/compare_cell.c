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

/* The mean, its 95% CI (over the run means when there are two or more
 * runs, else over the one run's repetitions), runs x repetitions, and
 * "imprecise" when a run stopped short of --precision. */
void cmp_cell_text(const struct cmp_row *r, const struct cmp_cell *c, char *buf, size_t len)
{
	const struct stats_summary *s = c->nruns >= 2 ? &c->rsum : &c->sum;
	char val[48], shape[32];

	if (!c->n) {
		snprintf(buf, len, "-");
		return;
	}
	text_format_value(c->nruns >= 2 ? c->rsum.mean : c->sum.mean, r->unit, val, sizeof(val));
	cmp_shape_text(c, shape, sizeof(shape));
	if (s->n > 1 && s->mean != 0 && isfinite(s->ci95_high))
		snprintf(buf, len, "%s ±%.1f%% %s%s", val, 100 * (s->ci95_high - s->mean) / fabs(s->mean), shape,
			 c->imprecise ? " imprecise" : "");
	else
		snprintf(buf, len, "%s %s%s", val, shape, c->imprecise ? " imprecise" : "");
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
		snprintf(buf, len, "%+.1f%% same within ±%g%% (p=%.2g%s)", v.gap_pct, t->margin_pct, v.w.p, mdd);
	else if (v.better == 0)
		snprintf(buf, len, "%+.1f%% no significant difference (p=%.2g%s)", v.gap_pct, v.w.p, mdd);
	else
		snprintf(buf, len, "%+.1f%%%s%s %s (p=%.2g)", v.gap_pct, *words ? " " : "", words,
			 v.better > 0 ? "better" : v.better < 0 ? "worse" : "", v.w.p);
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
