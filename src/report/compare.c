/* Comparison tables, the model: operands, the pairing rule (a row per
 * suite, test, params and metric), cells pooled per run, run-level verdicts
 * and stored calibrations. The formats that print it are compare_*.c. */
#include <ctype.h>
#include <errno.h>
#include <fnmatch.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"
#include "text.h"
#include "../core/log.h"
#include "../core/macro.h"
#include "../core/parse.h"
#include "../core/str.h"
#include "../core/suite.h"
#include "../core/util.h"
#include "../core/banned.h"

void cmp_table_init(struct cmp_table *t, const struct vmb_suite *(*suite_of)(const char *name))
{
	memset(t, 0, sizeof(*t));
	t->suite_of = suite_of;
	t->margin_pct = CMP_DEFAULT_MARGIN_PCT;
}

int cmp_add_operand(struct cmp_table *t, const char *name, json_t *docs)
{
	struct cmp_operand *n = realloc(t->ops, (t->nops + 1) * sizeof(*n));

	if (!n) {
		json_decref(docs);
		return -ENOMEM;
	}
	t->ops = n;
	n[t->nops] = (struct cmp_operand){ .name = xstrdup(name), .docs = docs };
	if (!n[t->nops].name) {
		json_decref(docs);
		return -ENOMEM;
	}
	t->nops++;
	return 0;
}

/* FNV-1a over the four parts of a row's identity, each with its NUL. */
static size_t row_hash(const char *suite, const char *test, const char *params, const char *metric)
{
	const char *parts[] = { suite, test, params, metric };
	uint64_t h = 1469598103934665603ull;

	for (size_t i = 0; i < 4; i++)
		for (const char *p = parts[i];; p++) {
			h = (h ^ (unsigned char)*p) * 1099511628211ull;
			if (!*p)
				break;
		}
	return (size_t)h;
}

static bool row_is(const struct cmp_row *r, size_t h, const char *suite, const char *test, const char *params,
		   const char *metric)
{
	return r->hash == h && !strcmp(r->suite, suite) && !strcmp(r->test, test) && !strcmp(r->params, params) &&
	       !strcmp(r->metric, metric);
}

/* The slot of a row with this identity, or the free slot where it goes. */
static size_t *index_slot(const struct cmp_table *t, size_t h, const char *suite, const char *test, const char *params,
			  const char *metric)
{
	for (size_t i = h & (t->icap - 1);; i = (i + 1) & (t->icap - 1))
		if (!t->index[i] || row_is(&t->rows[t->index[i] - 1], h, suite, test, params, metric))
			return &t->index[i];
}

/* Keep the index at most half full: lookups stay O(1), the build linear. */
static int index_grow(struct cmp_table *t)
{
	size_t ncap = t->icap ? t->icap * 2 : 1024, *old = t->index, ocap = t->icap;

	if (t->icap && (t->nrows + 1) * 2 <= t->icap)
		return 0;
	t->index = calloc(ncap, sizeof(*t->index));
	if (!t->index) {
		t->index = old;
		return -ENOMEM;
	}
	t->icap = ncap;
	for (size_t i = 0; i < ocap; i++)
		if (old[i]) {
			const struct cmp_row *r = &t->rows[old[i] - 1];

			*index_slot(t, r->hash, r->suite, r->test, r->params, r->metric) = old[i];
		}
	free(old);
	return 0;
}

static struct cmp_row *add_row(struct cmp_table *t, size_t *slot, size_t h, const char *suite, const char *test,
			       const char *params, const json_t *pobj, const json_t *m)
{
	struct cmp_row *n, *r;
	const char *dir = json_string_value(json_object_get(m, "direction"));

	if (t->nrows == t->rcap) {
		size_t ncap = t->rcap ? t->rcap * 2 : 64;

		n = realloc(t->rows, ncap * sizeof(*n));
		if (!n)
			return NULL;
		t->rows = n;
		t->rcap = ncap;
	}
	r = &t->rows[t->nrows];
	memset(r, 0, sizeof(*r));
	r->suite = xstrdup(suite);
	r->test = xstrdup(test);
	r->params = xstrdup(params);
	r->pobj = pobj;
	r->hash = h;
	r->metric = xstrdup(json_string_value(json_object_get(m, "name")) ?: "");
	r->unit = xstrdup(json_string_value(json_object_get(m, "unit")) ?: "");
	r->higher_better = dir && !strcmp(dir, "higher");
	r->headline = json_is_true(json_object_get(m, "headline"));
	r->cells = calloc(t->nops, sizeof(*r->cells));
	if (!r->suite || !r->test || !r->params || !r->metric || !r->unit || !r->cells) {
		free(r->suite), free(r->test), free(r->params), free(r->metric), free(r->unit), free(r->cells);
		return NULL;
	}
	t->nrows++;
	*slot = t->nrows;
	return r;
}

/* The row of this identity, added when it is new. */
static struct cmp_row *row_of(struct cmp_table *t, const char *suite, const char *test, const char *params,
			      const json_t *pobj, const json_t *m)
{
	const char *metric = json_string_value(json_object_get(m, "name")) ?: "";
	size_t h = row_hash(suite, test, params, metric), *slot;

	if (index_grow(t) < 0)
		return NULL;
	slot = index_slot(t, h, suite, test, params, metric);
	if (*slot)
		return &t->rows[*slot - 1];
	return add_row(t, slot, h, suite, test, params, pobj, m);
}

/* One run's values of a metric: its repetitions join the pooled samples,
 * their mean is the run's one sample at the level that decides. */
static int cell_take(struct cmp_cell *c, const json_t *m, const json_t *kase, size_t doc, bool imported)
{
	size_t *nd;
	const json_t *samples = json_object_get(m, "samples"), *x;
	size_t i, k = json_array_size(samples), got = 0;
	double *ns = realloc(c->samples, (c->n + k + 1) * sizeof(*ns)), sum = 0;

	if (!ns)
		return -ENOMEM;
	c->samples = ns;
	json_array_foreach(samples, i, x)
		if (json_is_number(x)) {
			c->samples[c->n++] = json_number_value(x);
			sum += json_number_value(x);
			got++;
		}
	if (!c->hist)
		c->hist = json_object_get(m, "histogram");
	c->present = true;
	if (!got)
		return 0;
	ns = realloc(c->run_means, (c->nruns + 1) * sizeof(*ns));
	if (!ns)
		return -ENOMEM;
	c->run_means = ns;
	nd = realloc(c->run_doc, (c->nruns + 1) * sizeof(*nd));
	if (!nd)
		return -ENOMEM;
	c->run_doc = nd;
	c->run_doc[c->nruns] = doc;
	c->run_means[c->nruns++] = sum / (double)got;
	c->reps_min = c->nruns == 1 || got < c->reps_min ? got : c->reps_min;
	c->reps_max = got > c->reps_max ? got : c->reps_max;
	/* an imported value had no --precision to reach: not "imprecise" */
	c->imprecise += !imported && json_is_false(json_object_get(kase, "precision_reached"));
	json_array_foreach(json_object_get(kase, "reps"), i, x)
		if (json_is_object(json_object_get(x, "noise"))) {
			c->noise_reps++;
			c->busy_reps += json_is_true(json_object_get(x, "busy"));
		}
	return 0;
}

static bool param_is(const json_t *v, const char *text)
{
	char buf[64];

	if (json_is_boolean(v)) {
		/* (not strcmp: gcc -O3 for aarch64 folds it into a false -Wstring-compare) */
		const char *b = json_is_true(v) ? "true" : "false";

		return strlen(text) == strlen(b) && !memcmp(text, b, strlen(b));
	}
	if (json_is_string(v))
		return !strcmp(json_string_value(v), text);
	if (json_is_integer(v)) {
		snprintf(buf, sizeof(buf), "%lld", (long long)json_integer_value(v));
		return !strcmp(buf, text);
	}
	return false;
}

/* The identity of a case's params: compact JSON, keys sorted, defaults
 * that may go unstated left out. Which may is the suite's own knowledge:
 * its option rows marked .neutral (vmbench's disk tests record buffered
 * only when it is true and iomem always, an imported fio run buffered
 * always and iomem never; absent and default are one identity, so an
 * import pairs with the native run). The descriptor is read for that
 * fact only; a suite no longer in the table drops nothing. */
static char *params_identity(const struct cmp_table *t, const char *suite, const json_t *pobj)
{
	const struct vmb_suite *s = t->suite_of ? t->suite_of(suite) : NULL;
	json_t *copy;
	char *out;

	if (!json_is_object(pobj))
		return xstrdup("{}");
	copy = json_copy((json_t *)pobj);
	if (!copy)
		return NULL;
	for (size_t k = 0; s && s->opts && s->opts[k].name; k++)
		if (s->opts[k].neutral && param_is(json_object_get(copy, s->opts[k].name), opt_neutral_value(&s->opts[k])))
			json_object_del(copy, s->opts[k].name);
	out = json_dumps(copy, JSON_SORT_KEYS | JSON_COMPACT);
	json_decref(copy);
	return out;
}

int cmp_build(struct cmp_table *t)
{
	for (size_t o = 0; o < t->nops; o++) {
		size_t d, i, j, k, l;
		json_t *doc, *s, *te, *c, *m;

		json_array_foreach(t->ops[o].docs, d, doc)
			json_array_foreach(json_object_get(doc, "suites"), i, s)
				json_array_foreach(json_object_get(s, "tests"), j, te)
					json_array_foreach(json_object_get(te, "cases"), k, c) {
			const json_t *pobj = json_object_get(c, "params");
			const char *sn = json_string_value(json_object_get(s, "name")) ?: "";
			char *params = params_identity(t, sn, pobj);
			const char *tn = json_string_value(json_object_get(te, "name")) ?: "";
			bool imported = json_object_get(json_object_get(doc, "tool"), "imported_from") != NULL;

			if (!params)
				return -ENOMEM;
			json_array_foreach(json_object_get(c, "metrics"), l, m) {
				struct cmp_row *r = row_of(t, sn, tn, params, pobj, m);

				if (!r || cell_take(&r->cells[o], m, c, d, imported) < 0) {
					free(params);
					return -ENOMEM;
				}
			}
			free(params);
		}
	}
	for (size_t r = 0; r < t->nrows; r++)
		for (size_t o = 0; o < t->nops; o++)
			if (t->rows[r].cells[o].n) {
				struct cmp_cell *cl = &t->rows[r].cells[o];

				stats_summarize(cl->samples, cl->n, &cl->sum);
				stats_summarize(cl->run_means, cl->nruns, &cl->rsum);
				cl->fig_runs = cl->nruns >= 2;
				cl->fig = cl->fig_runs ? cl->rsum : cl->sum;
			}
	return 0;
}

void cmp_table_release(struct cmp_table *t)
{
	for (size_t r = 0; r < t->nrows; r++) {
		struct cmp_row *row = &t->rows[r];

		for (size_t o = 0; o < t->nops; o++)
			free(row->cells[o].samples), free(row->cells[o].run_means), free(row->cells[o].run_doc);
		free(row->cells), free(row->suite), free(row->test), free(row->params), free(row->metric), free(row->unit);
	}
	for (size_t o = 0; o < t->nops; o++) {
		free(t->ops[o].name);
		json_decref(t->ops[o].docs);
	}
	free(t->rows);
	free(t->ops);
	free(t->index);
	json_decref(t->calibration);
	cmp_table_init(t, t->suite_of);
}

/* The fingerprint of an operand's first document. */
static const json_t *op_fingerprint(const struct cmp_table *t, size_t o)
{
	return json_object_get(json_array_get(t->ops[o].docs, 0), "fingerprint");
}

/* The document a cell's run i came from. */
static const json_t *run_doc(const struct cmp_table *t, size_t o, const struct cmp_cell *c, size_t i)
{
	return json_array_get(t->ops[o].docs, c->run_doc[i]);
}

/* The round number a document says for --pair-by round: its run group's
 * round, else a label round=N (runs interleaved by hand, each run a group
 * of its own); 0 for none. */
static json_int_t round_number(const json_t *doc)
{
	const json_t *g = json_object_get(json_object_get(doc, "run_group"), "round");
	const char *l = json_string_value(json_object_get(json_object_get(doc, "labels"), CMP_PAIR_ROUND));
	int64_t n;

	if (json_is_integer(g))
		return json_integer_value(g) > 0 ? json_integer_value(g) : 0;
	if (!l || parse_i64(l, 1, INT32_MAX, &n))
		return 0;
	return (json_int_t)n;
}

/* Whether a document says which round it belongs to, under t->pair_by. */
static bool has_round(const struct cmp_table *t, const json_t *doc)
{
	const json_t *g = json_object_get(doc, "run_group");

	if (!t->pair_by || !strcmp(t->pair_by, CMP_PAIR_AUTO))
		return json_is_string(json_object_get(g, "id")) && json_is_integer(json_object_get(g, "round"));
	if (!strcmp(t->pair_by, CMP_PAIR_NONE))
		return false;
	if (!strcmp(t->pair_by, CMP_PAIR_ROUND))
		return round_number(doc) > 0;
	return json_is_string(json_object_get(json_object_get(doc, "labels"), t->pair_by));
}

/* Whether two documents (each with has_round) were measured in one round:
 * by default the same run group's same round; --pair-by round the same
 * round number (round_number) of any group; --pair-by KEY the same label
 * value. */
static bool same_round(const struct cmp_table *t, const json_t *x, const json_t *y)
{
	const json_t *gx = json_object_get(x, "run_group"), *gy = json_object_get(y, "run_group");

	if (t->pair_by && strcmp(t->pair_by, CMP_PAIR_AUTO) && strcmp(t->pair_by, CMP_PAIR_ROUND))
		return !strcmp(json_string_value(json_object_get(json_object_get(x, "labels"), t->pair_by)),
			       json_string_value(json_object_get(json_object_get(y, "labels"), t->pair_by)));
	if (t->pair_by && !strcmp(t->pair_by, CMP_PAIR_ROUND))
		return round_number(x) == round_number(y);
	if (json_integer_value(json_object_get(gx, "round")) != json_integer_value(json_object_get(gy, "round")))
		return false;
	return !strcmp(json_string_value(json_object_get(gx, "id")), json_string_value(json_object_get(gy, "id")));
}

/* The rounds both cells were measured in: a[k], b[k] the mean of each
 * side's runs of round k (a round with two runs on a side is one pair).
 * Returns the pairs (at most cap), *unpaired the runs left without a
 * partner. */
static size_t pair_rounds(const struct cmp_table *t, size_t ob, const struct cmp_cell *base, size_t oo,
			  const struct cmp_cell *op, double *a, double *b, size_t cap, size_t *unpaired)
{
	size_t n = 0, matched = 0;

	for (size_t i = 0; i < base->nruns; i++) {
		const json_t *di = run_doc(t, ob, base, i);
		double sa = 0, sb = 0;
		size_t na = 0, nb = 0;
		bool seen = false;

		if (!has_round(t, di))
			continue;
		for (size_t j = 0; j < i && !seen; j++)
			seen = has_round(t, run_doc(t, ob, base, j)) && same_round(t, di, run_doc(t, ob, base, j));
		if (seen)
			continue; /* its round was paired with the first run of it */
		for (size_t j = i; j < base->nruns; j++)
			if (has_round(t, run_doc(t, ob, base, j)) && same_round(t, di, run_doc(t, ob, base, j)))
				sa += base->run_means[j], na++;
		for (size_t j = 0; j < op->nruns; j++)
			if (has_round(t, run_doc(t, oo, op, j)) && same_round(t, di, run_doc(t, oo, op, j)))
				sb += op->run_means[j], nb++;
		if (!nb || n == cap)
			continue;
		a[n] = sa / (double)na, b[n] = sb / (double)nb, n++;
		matched += na + nb;
	}
	*unpaired = base->nruns + op->nruns - matched;
	return n;
}

/* The paired verdict when the two cells share two rounds or more with
 * positive values; false (basis says why not) for the unpaired one. */
static bool judge_paired(const struct cmp_table *t, const struct cmp_row *r, size_t b, size_t o, struct cmp_verdict *v)
{
	const struct cmp_cell *base = &r->cells[b], *op = &r->cells[o];
	size_t cap = base->nruns < op->nruns ? base->nruns : op->nruns, n;
	double *pa = calloc(cap + 1, sizeof(*pa)), *pb = calloc(cap + 1, sizeof(*pb));
	bool asked = t->pair_by && strcmp(t->pair_by, CMP_PAIR_AUTO);

	if (t->pair_by && !strcmp(t->pair_by, CMP_PAIR_NONE)) {
		snprintf(v->basis, sizeof(v->basis), "Welch on run means (--pair-by none)");
		free(pa), free(pb);
		return false;
	}
	if (!pa || !pb) {
		free(pa), free(pb);
		return false;
	}
	n = pair_rounds(t, b, base, o, op, pa, pb, cap, &v->unpaired);
	if (n < 2 || !stats_all_positive(pa, n) || !stats_all_positive(pb, n)) {
		if (n >= 2)
			snprintf(v->basis, sizeof(v->basis), "Welch on run means (a value <= 0 has no ratio to pair)");
		else if (asked)
			snprintf(v->basis, sizeof(v->basis), "Welch on run means (fewer than 2 rounds pair by %s)",
				 t->pair_by);
		else
			snprintf(v->basis, sizeof(v->basis), "Welch on run means (not measured in the same rounds)");
		free(pa), free(pb);
		return false;
	}
	stats_compare_paired(&(struct stats_paired_in){ .a = pa, .b = pb, .n = n, .higher_better = r->higher_better,
							.margin_pct = t->margin_pct }, &v->rc);
	free(pa), free(pb);
	snprintf(v->basis, sizeof(v->basis), "%s on %zu rounds measured together%s%s%s",
		 v->rc.test == STATS_TEST_PAIRED_BOTH ? "paired t and exact sign-flip" : "paired t", n,
		 asked ? " (by " : "", asked ? t->pair_by : "", asked ? ")" : "");
	if (v->unpaired)
		str_appendf(v->basis, sizeof(v->basis), &(size_t){ strlen(v->basis) }, ", %zu unpaired run%s left out",
			    v->unpaired, v->unpaired == 1 ? "" : "s");
	return true;
}

void cmp_judge_pair(const struct cmp_table *t, const struct cmp_row *r, size_t b, size_t o, struct cmp_verdict *v)
{
	const struct cmp_cell *base = &r->cells[b], *op = &r->cells[o];
	struct stats_runs_in in = {
		.a = base->run_means, .na = base->nruns, .b = op->run_means, .nb = op->nruns,
		.higher_better = r->higher_better, .margin_pct = t->margin_pct,
	};

	memset(v, 0, sizeof(*v));
	if (!base->n || !op->n)
		return;
	v->comparable = true;
	if (!judge_paired(t, r, b, o, v)) {
		char why[sizeof(v->basis)];

		snprintf(why, sizeof(why), "%s", v->basis);
		v->unpaired = 0;
		if ((in.na < 2 || in.nb < 2) && t->calibration)
			in.calib_cv = cmp_calibration_cv(t->calibration, op_fingerprint(t, b), r, &in.calib_runs);
		stats_compare_runs(&in, &v->rc);
		if (v->rc.test == STATS_TEST_CALIBRATED)
			snprintf(v->basis, sizeof(v->basis), "one run on a side: this machine's stored run-to-run noise");
		else if (v->rc.test == STATS_TEST_NONE)
			snprintf(v->basis, sizeof(v->basis), "not tested, one run on a side and noise unknown");
		else
			snprintf(v->basis, sizeof(v->basis), "%s", *why ? why : "Welch on run means (not measured in the same rounds)");
	}
	/* the run level decides: the gap and the ratio are the verdict's */
	v->gap_pct = v->rc.gap_pct;
	v->ratio = isfinite(v->gap_pct) ? 1 + v->gap_pct / 100 : NAN;
	v->w.valid = v->rc.verdict != STATS_UNTESTED;
	v->w.p = v->rc.p;
	v->w.df = v->rc.df;
	v->w.diff = op->rsum.mean - base->rsum.mean;
	v->better = v->rc.verdict == STATS_BETTER ? 1 : v->rc.verdict == STATS_WORSE ? -1 : 0;
}

void cmp_judge(const struct cmp_table *t, const struct cmp_row *r, size_t o, struct cmp_verdict *v)
{
	cmp_judge_pair(t, r, t->baseline, o, v);
}

static bool is_rate(const char *unit)
{
	return !strcmp(unit, "1/s") || !strcmp(unit, "MB/s") || !strcmp(unit, "GFLOP/s") || !strcmp(unit, "Mbit/s");
}

void cmp_ratio_words(const struct cmp_row *r, const struct cmp_verdict *v, char *buf, size_t len)
{
	double x;
	bool worse;

	buf[0] = '\0';
	if (!v->comparable || !v->better || !isfinite(v->ratio) || v->ratio <= 0)
		return;
	x = v->ratio >= 1 ? v->ratio : 1 / v->ratio;
	if (x < 2) /* below 2x a percentage reads better */
		return;
	worse = (v->ratio < 1) == r->higher_better;
	if (is_rate(r->unit))
		snprintf(buf, len, "%.1fx %s", x, worse ? "slower" : "faster");
	else
		snprintf(buf, len, "%.1fx %s", x, v->ratio > 1 ? "higher" : "lower");
}

bool cmp_pair_by_valid(const char *s)
{
	if (!*s || strlen(s) > 64)
		return false;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && !strchr("_-.", *s))
			return false;
	return true;
}

const char *cmp_stat_name(enum cmp_stat s)
{
	return s == CMP_STAT_TRIMMED ? "trimmed mean" : s == CMP_STAT_MEDIAN ? "median" : NULL;
}

double cmp_cell_stat(const struct cmp_table *t, const struct cmp_cell *c)
{
	const double *x = c->run_means;
	size_t lo = 0, hi = 1;
	double sum = 0;

	if (t->stat == CMP_STAT_MEAN || !c->nruns)
		return NAN;
	if (t->stat == CMP_STAT_MEDIAN)
		return c->rsum.median;
	if (c->nruns < 3)
		return c->rsum.mean; /* nothing to drop */
	/* drop one smallest and one largest: the study's trimming over its runs */
	for (size_t i = 1; i < c->nruns; i++)
		lo = x[i] < x[lo] ? i : lo;
	hi = lo == 0 ? 1 : 0;
	for (size_t i = 0; i < c->nruns; i++) {
		hi = i != lo && x[i] > x[hi] ? i : hi;
		sum += x[i];
	}
	return (sum - x[lo] - x[hi]) / (double)(c->nruns - 2);
}

double cmp_stat_gap_pct(const struct cmp_table *t, const struct cmp_row *r, size_t o)
{
	double a = cmp_cell_stat(t, &r->cells[t->baseline]), b = cmp_cell_stat(t, &r->cells[o]);

	return isfinite(a) && isfinite(b) && a != 0 ? (b - a) / fabs(a) * 100 : NAN;
}

bool cmp_row_selected(const struct cmp_row *r, const struct cmp_filter *f)
{
	char full[256];

	if (f->suite && strcmp(f->suite, r->suite))
		return false;
	if (f->metric_glob) {
		snprintf(full, sizeof(full), "%s.%s.%s", r->suite, r->test, r->metric);
		return !fnmatch(f->metric_glob, r->metric, 0) || !fnmatch(f->metric_glob, full, 0);
	}
	return f->all || r->headline;
}

void cmp_each_verdict(const struct cmp_table *t, const struct cmp_filter *flt,
		      void (*fn)(const struct cmp_table *t, const struct cmp_row *r, size_t o, const struct cmp_verdict *v,
				 void *arg), void *arg)
{
	for (size_t i = 0; i < t->nrows; i++) {
		const struct cmp_row *r = &t->rows[i];

		if (!cmp_row_selected(r, flt))
			continue;
		for (size_t o = 0; o < t->nops; o++) {
			struct cmp_verdict v;

			if (o == t->baseline)
				continue;
			cmp_judge(t, r, o, &v);
			fn(t, r, o, &v, arg);
		}
	}
}

void cmp_tally(const struct cmp_table *t, const struct cmp_filter *f, size_t op, struct cmp_tally *out)
{
	memset(out, 0, sizeof(*out));
	for (size_t i = 0; i < t->nrows; i++) {
		const struct cmp_row *r = &t->rows[i];
		struct cmp_verdict v;

		if (!cmp_row_selected(r, f))
			continue;
		cmp_judge(t, r, op, &v);
		if (!v.comparable)
			out->missing += r->cells[t->baseline].n || r->cells[op].n;
		else if (!v.w.valid)
			out->untested++;
		else if (v.better > 0)
			out->better++;
		else if (v.better < 0)
			out->worse++;
		else if (v.rc.verdict == STATS_SAME)
			out->same++;
		else
			out->inconclusive++;
	}
}

bool cmp_row_complete(const struct cmp_table *t, const struct cmp_row *r)
{
	for (size_t o = 0; o < t->nops; o++)
		if (!r->cells[o].n)
			return false;
	return true;
}

void cmp_params_text(const char *json, char *buf, size_t len)
{
	json_t *o = json_loads(json, 0, NULL);

	text_params(o, buf, len);
	json_decref(o);
}

void cmp_row_params(const struct cmp_row *r, char *buf, size_t len)
{
	text_params(r->pobj, buf, len);
}

void cmp_row_params_apart(const struct cmp_table *t, const struct cmp_row *r, char *buf, size_t len)
{
	json_t *own = json_object();
	const char *k;
	json_t *v;

	buf[0] = '\0';
	/* a param tells the row apart when another row of its test and metric has another value, or none */
	json_object_foreach((json_t *)r->pobj, k, v) {
		bool differs = false;

		for (size_t i = 0; own && !differs && i < t->nrows; i++) {
			const struct cmp_row *o = &t->rows[i];

			if (o != r && !strcmp(o->suite, r->suite) && !strcmp(o->test, r->test) &&
			    !strcmp(o->metric, r->metric))
				differs = !json_equal(json_object_get(o->pobj, k), v);
		}
		if (differs && json_object_set(own, k, v) < 0)
			break;
	}
	if (own)
		text_params(own, buf, len);
	json_decref(own);
}

void cmp_row_params_exact(const struct cmp_row *r, char *buf, size_t len)
{
	text_params_exact(r->pobj, buf, len);
}

void cmp_params_text_exact(const char *json, char *buf, size_t len)
{
	json_t *o = json_loads(json, 0, NULL);

	text_params_exact(o, buf, len);
	json_decref(o);
}


/* ---- calibration ---- */

void cmp_fingerprint_key(const json_t *fp, char *buf, size_t len)
{
	const json_t *cpu = json_object_get(fp, "cpu");

	snprintf(buf, len, "%s|%s|%s|%lld",
		 json_string_value(json_object_get(cpu, "model")) ?: "?",
		 json_string_value(json_object_get(json_object_get(fp, "hypervisor"), "name")) ?: "none",
		 json_string_value(json_object_get(json_object_get(fp, "kernel"), "release")) ?: "?",
		 (long long)json_integer_value(json_object_get(cpu, "logical")));
}

double cmp_calibration_cv(const json_t *cal, const json_t *fp, const struct cmp_row *r, unsigned *runs)
{
	const json_t *e;
	char key[512];
	size_t i;

	cmp_fingerprint_key(fp, key, sizeof(key));
	json_array_foreach(json_object_get(cal, "cases"), i, e) {
		const char *k = json_string_value(json_object_get(e, "machine"));
		const char *p = json_string_value(json_object_get(e, "params"));
		double cv = json_number_value(json_object_get(e, "cv_between"));
		json_int_t n = json_integer_value(json_object_get(e, "runs"));

		if (!k || !p || strcmp(k, key) || strcmp(p, r->params) ||
		    strcmp(json_string_value(json_object_get(e, "suite")) ?: "", r->suite) ||
		    strcmp(json_string_value(json_object_get(e, "test")) ?: "", r->test) ||
		    strcmp(json_string_value(json_object_get(e, "metric")) ?: "", r->metric))
			continue;
		if (!isfinite(cv) || cv <= 0 || cv > 10 || n < 2 || n > 100000)
			continue;
		*runs = (unsigned)n;
		return cv;
	}
	return 0;
}


size_t cmp_sessions_text(const json_t *docs, char *buf, size_t len)
{
	const char *ids[64];
	size_t runs[64], n = 0, off = 0, none = 0, i;
	json_t *doc;

	buf[0] = '\0';
	json_array_foreach(docs, i, doc) {
		const char *id = json_string_value(json_object_get(json_object_get(doc, "labels"), "lab"));
		size_t k;

		if (!id) {
			none++;
			continue;
		}
		for (k = 0; k < n && strcmp(ids[k], id); k++)
			;
		if (k == n && n == ARRAY_SIZE(ids))
			continue; /* counted no further: 64 sessions already say enough */
		if (k == n) {
			ids[n] = id;
			runs[n++] = 0;
		}
		runs[k]++;
	}
	for (size_t k = 0; k < n; k++)
		str_appendf(buf, len, &off, "%slab=%s: %zu run%s", k ? ", " : "", ids[k], runs[k], runs[k] == 1 ? "" : "s");
	/* runs of no session beside a session's were not measured with it either */
	if (n && none)
		str_appendf(buf, len, &off, ", %zu run%s of no session", none, none == 1 ? "" : "s");
	return n + (n && none);
}
