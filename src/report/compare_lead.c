/* The lead sentence of compare, report and lab report: the finding first.
 * Every pair's verdicts on the headline metrics are ranked (significant
 * differences first, the largest factor first), so a reader learns "2.2x
 * better at iodepth=32" before "no significant difference at iodepth=1",
 * and is told in so many words when nothing differs. */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"
#include "../core/str.h"
#include "../core/banned.h"

#define LEAD_SIGNIFICANT_MAX 3 /* significant differences named per pair */
#define LEAD_OTHERS_MAX 2      /* rows with no difference named per pair */

/* The operand the lead sentence measures the others against: the
 * baseline, whatever it is, so that a page has one baseline (a lab's host
 * as baseline, though aside in the charts, is the sentence's reference as
 * it is the tables'); SIZE_MAX when there is none. */
static size_t lead_reference(const struct cmp_table *t)
{
	return t->baseline < t->nops ? t->baseline : SIZE_MAX;
}

/* The class a verdict ranks in: lower first. */
static int lead_class(const struct cmp_verdict *v)
{
	if (!v->w.valid || !isfinite(v->w.p) || v->w.p < 0 || v->w.p > 1)
		return 3; /* untested */
	if (v->better)
		return 0;
	return v->rc.verdict == STATS_SAME ? 1 : 2;
}

/* The size of a gap, either way: 2.0x and 0.5x weigh the same. */
static double lead_size(const struct cmp_verdict *v)
{
	return isfinite(v->ratio) && v->ratio > 0 ? fabs(log(v->ratio)) : 0;
}

static int lead_cmp(const void *pa, const void *pb)
{
	const struct cmp_lead_item *a = pa, *b = pb;
	int ca = lead_class(&a->v), cb = lead_class(&b->v);
	double sa = lead_size(&a->v), sb = lead_size(&b->v);

	if (ca != cb)
		return ca - cb;
	if (ca == 0 && sa != sb)
		return sa > sb ? -1 : 1;
	/* the rest in table order: the sweep reads as the table does */
	if (a->o != b->o)
		return a->o < b->o ? -1 : 1;
	return a->r < b->r ? -1 : a->r > b->r;
}

/* Whether row r can carry a lead verdict of operand o against ref. */
static bool lead_candidate(const struct cmp_row *r, size_t ref, size_t o)
{
	return r->headline && r->cells[ref].nruns > 0 && r->cells[o].nruns > 0 && r->cells[ref].rsum.mean != 0;
}

int cmp_lead_rank(const struct cmp_table *t, struct cmp_lead_item **out, size_t *nout)
{
	size_t ref = lead_reference(t), n = 0;
	struct cmp_lead_item *items;
	bool suite_has = false;

	*out = NULL;
	*nout = 0;
	if (ref == SIZE_MAX)
		return 0;
	/* the suite of what the matrix key chose (a lab's disk=...) is what
	 * the sentence is about, when it measured anything */
	for (size_t i = 0; t->lead_suite && i < t->nrows && !suite_has; i++)
		for (size_t o = 0; o < t->nops && !suite_has; o++)
			suite_has = o != ref && !t->ops[o].aside && !strcmp(t->rows[i].suite, t->lead_suite) &&
				    lead_candidate(&t->rows[i], ref, o);
	items = calloc(t->nrows * t->nops + 1, sizeof(*items));
	if (!items)
		return -ENOMEM;
	for (size_t o = 0; o < t->nops; o++) {
		if (o == ref || t->ops[o].aside)
			continue;
		for (size_t i = 0; i < t->nrows; i++) {
			const struct cmp_row *r = &t->rows[i];
			struct cmp_lead_item *it = &items[n];

			if (!lead_candidate(r, ref, o) || (suite_has && strcmp(r->suite, t->lead_suite)))
				continue;
			cmp_judge_pair(t, r, ref, o, &it->v);
			if (!isfinite(it->v.ratio) || it->v.ratio < 0)
				continue;
			it->r = r;
			it->o = o;
			it->ref = ref;
			n++;
		}
	}
	qsort(items, n, sizeof(*items), lead_cmp);
	*out = items;
	*nout = n;
	return 0;
}

/* "1.42x", "12.5x", "140x". */
static void factor_text(double x, char *buf, size_t len)
{
	snprintf(buf, len, x < 10 ? "%.2fx" : x < 100 ? "%.1fx" : "%.0fx", x);
}

/* A row as the sentence names it: in full ("disk.randread iops at
 * iodepth=32"), or only its parameters when the row named before it in the
 * same clause is the same metric ("at iodepth=1"). */
static void row_name(const struct cmp_table *t, const struct cmp_row *r, const struct cmp_row *prev, char *buf,
		     size_t len)
{
	char params[256];

	/* the params that tell the row apart, as the rounds' lines name it */
	cmp_row_params_apart(t, r, params, sizeof(params));
	if (prev && *params && !strcmp(prev->suite, r->suite) && !strcmp(prev->test, r->test) &&
	    !strcmp(prev->metric, r->metric))
		snprintf(buf, len, "at %s", params);
	else
		snprintf(buf, len, "%s.%s %s%s%s", r->suite, r->test, r->metric, *params ? " at " : "", params);
}

/* A significant difference: "2.20x better disk.randread iops at iodepth=32 (p=3e-05)". */
static void say_significant(const struct cmp_table *t, const struct cmp_lead_item *it, const struct cmp_row *prev,
			    char *buf, size_t len)
{
	char factor[32], name[320];
	double x = it->v.ratio >= 1 ? it->v.ratio : 1 / it->v.ratio;

	factor_text(x, factor, sizeof(factor));
	row_name(t, it->r, prev, name, sizeof(name));
	snprintf(buf, len, "%s %s %s (p=%.2g%s)", factor, it->v.better > 0 ? "better" : "worse", name, it->v.w.p,
		 it->v.rc.pairs ? ", paired by round" : "");
}

/* What one class of verdicts is called, and why, said after the rows. */
static const char *const class_words[4] = { "", "the same within", "no significant difference", "not tested" };
static const char *const class_why[4] = { "", "", "", " (one run a side: noise unknown)" };

/* A verdict's test in brackets: "(p=0.41, mdd 36%)". */
static void say_test(const struct cmp_lead_item *it, char *buf, size_t len)
{
	size_t off = 0;

	str_appendf(buf, len, &off, " (p=%.2g", it->v.w.p);
	if (it->v.rc.verdict != STATS_SAME && isfinite(it->v.rc.mdd_pct))
		str_appendf(buf, len, &off, ", mdd %.0f%%", it->v.rc.mdd_pct);
	str_appendf(buf, len, &off, "%s)", it->v.rc.pairs ? ", paired by round" : "");
}

/* What a pair's rows share, to name beside their count: " of
 * net.http" when one test, " of net" when one suite, else "". */
static void pair_scope(const struct cmp_lead_item *items, size_t n, size_t o, char *buf, size_t len)
{
	const struct cmp_row *first = NULL;
	bool suite = true, test = true;

	for (size_t i = 0; i < n; i++) {
		if (items[i].o != o)
			continue;
		if (!first)
			first = items[i].r;
		suite = suite && !strcmp(first->suite, items[i].r->suite);
		test = test && suite && !strcmp(first->test, items[i].r->test);
	}
	if (first && test)
		snprintf(buf, len, " of %s.%s", first->suite, first->test);
	else if (first && suite)
		snprintf(buf, len, " of %s", first->suite);
	else
		buf[0] = '\0';
}

/* One pair's clause: its significant differences, largest first, then
 * what the others say, class by class, a few of them named. */
static void say_pair(const struct cmp_table *t, const struct cmp_lead_item *items, size_t n, size_t o, char *buf,
		     size_t len, size_t *off)
{
	const struct cmp_row *prev = NULL;
	size_t nsig = 0, said = 0, total = 0;
	bool any = false;

	for (size_t i = 0; i < n; i++)
		if (items[i].o == o) {
			total++;
			nsig += lead_class(&items[i].v) == 0;
		}
	str_appendf(buf, len, off, "%s vs %s: ", t->ops[o].name, t->ops[items[0].ref].name);
	for (size_t i = 0; i < n && said < LEAD_SIGNIFICANT_MAX; i++) {
		char one[512];

		if (items[i].o != o || lead_class(&items[i].v) != 0)
			continue;
		say_significant(t, &items[i], prev, one, sizeof(one));
		str_appendf(buf, len, off, "%s%s", said ? ", " : "", one);
		prev = items[i].r;
		said++;
		any = true;
	}
	if (nsig > said)
		str_appendf(buf, len, off, " and %zu more significant difference%s", nsig - said, nsig - said == 1 ? "" : "s");
	for (int c = 1; c <= 3; c++) {
		size_t k = 0, named = 0;

		for (size_t i = 0; i < n; i++)
			k += items[i].o == o && lead_class(&items[i].v) == c;
		if (!k)
			continue;
		str_appendf(buf, len, off, "%s", any ? "; " : "");
		str_appendf(buf, len, off, "%s", class_words[c]);
		if (c == 1)
			str_appendf(buf, len, off, " ±%g%%", t->margin_pct);
		any = true;
		if (!nsig && k == total && total > 1) {
			/* nothing differs: say so of every metric at once */
			char scope[160];

			pair_scope(items, n, o, scope, sizeof(scope));
			str_appendf(buf, len, off, " on any of %zu headline metrics%s%s", total, scope, class_why[c]);
			break;
		}
		for (size_t i = 0; i < n && named < LEAD_OTHERS_MAX; i++) {
			char name[320];

			if (items[i].o != o || lead_class(&items[i].v) != c)
				continue;
			row_name(t, items[i].r, prev, name, sizeof(name));
			str_appendf(buf, len, off, "%s%s%s", named ? " and " : " ", strncmp(name, "at ", 3) ? "on " : "", name);
			prev = items[i].r;
			named++;
		}
		if (k > named)
			str_appendf(buf, len, off, " and %zu more", k - named);
		else if (k == 1 && c < 3) {
			char test[128];

			for (size_t i = 0; i < n; i++)
				if (items[i].o == o && lead_class(&items[i].v) == c)
					say_test(&items[i], test, sizeof(test));
			str_appendf(buf, len, off, "%s", test);
		}
		str_appendf(buf, len, off, "%s", class_why[c]);
	}
}

bool cmp_lead_sentence(const struct cmp_table *t, char *buf, size_t len)
{
	struct cmp_lead_item *items;
	size_t n, off = 0, pairs = 0;

	buf[0] = '\0';
	if (cmp_lead_rank(t, &items, &n) < 0 || !n) {
		free(items);
		return false;
	}
	/* the pairs in the order of their strongest verdict */
	for (size_t i = 0; i < n; i++) {
		bool seen = false;

		for (size_t j = 0; j < i && !seen; j++)
			seen = items[j].o == items[i].o;
		if (seen)
			continue;
		/* a line a pair on a terminal; HTML reads the break as a space */
		if (pairs++)
			str_appendf(buf, len, &off, ".\n");
		say_pair(t, items, n, items[i].o, buf, len, &off);
	}
	str_appendf(buf, len, &off, ".");
	free(items);
	return true;
}
