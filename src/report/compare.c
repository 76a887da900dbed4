/* Comparison tables: pairing rule, Welch verdicts, output formats. */
#include <errno.h>
#include <fnmatch.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"
#include "text.h"
#include "../core/log.h"
#include "../core/util.h"
#include "../suites/suites.h"
#include "../core/banned.h"

void cmp_table_init(struct cmp_table *t)
{
	memset(t, 0, sizeof(*t));
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
	n[t->nops].name = xstrdup(name);
	n[t->nops].docs = docs;
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
static int cell_take(struct cmp_cell *c, const json_t *m, const json_t *kase)
{
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
	c->run_means[c->nruns++] = sum / (double)got;
	c->reps_min = c->nruns == 1 || got < c->reps_min ? got : c->reps_min;
	c->reps_max = got > c->reps_max ? got : c->reps_max;
	c->imprecise += json_is_false(json_object_get(kase, "precision_reached"));
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
static char *params_identity(const char *suite, const json_t *pobj)
{
	const struct vmb_suite *s = suites_find(suite);
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
			char *params = params_identity(sn, pobj);
			const char *tn = json_string_value(json_object_get(te, "name")) ?: "";

			if (!params)
				return -ENOMEM;
			json_array_foreach(json_object_get(c, "metrics"), l, m) {
				struct cmp_row *r = row_of(t, sn, tn, params, pobj, m);

				if (!r || cell_take(&r->cells[o], m, c) < 0) {
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
			}
	return 0;
}

void cmp_table_release(struct cmp_table *t)
{
	for (size_t r = 0; r < t->nrows; r++) {
		struct cmp_row *row = &t->rows[r];

		for (size_t o = 0; o < t->nops; o++)
			free(row->cells[o].samples), free(row->cells[o].run_means);
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
	cmp_table_init(t);
}

/* The fingerprint of an operand's first document. */
static const json_t *op_fingerprint(const struct cmp_table *t, size_t o)
{
	return json_object_get(json_array_get(t->ops[o].docs, 0), "fingerprint");
}

void cmp_judge(const struct cmp_table *t, const struct cmp_row *r, size_t o, struct cmp_verdict *v)
{
	const struct cmp_cell *base = &r->cells[t->baseline], *op = &r->cells[o];
	struct stats_runs_in in = {
		.a = base->run_means, .na = base->nruns, .b = op->run_means, .nb = op->nruns,
		.higher_better = r->higher_better, .margin_pct = t->margin_pct,
	};

	memset(v, 0, sizeof(*v));
	if (!base->n || !op->n)
		return;
	v->comparable = true;
	v->gap_pct = base->sum.mean != 0 ? (op->sum.mean - base->sum.mean) / fabs(base->sum.mean) * 100 : NAN;
	v->ratio = base->sum.mean != 0 ? op->sum.mean / base->sum.mean : NAN;
	if ((in.na < 2 || in.nb < 2) && t->calibration)
		in.calib_cv = cmp_calibration_cv(t->calibration, op_fingerprint(t, t->baseline), r, &in.calib_runs);
	stats_compare_runs(&in, &v->rc);
	/* the run level decides; the gap is that of the run means */
	if (isfinite(v->rc.gap_pct))
		v->gap_pct = v->rc.gap_pct;
	v->w.valid = v->rc.verdict != STATS_UNTESTED;
	v->w.p = v->rc.p;
	v->w.df = v->rc.df;
	v->w.diff = op->rsum.mean - base->rsum.mean;
	v->better = v->rc.verdict == STATS_BETTER ? 1 : v->rc.verdict == STATS_WORSE ? -1 : 0;
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
	if (!v->comparable || !isfinite(v->ratio) || v->ratio <= 0)
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

/* "runs x repetitions" of a cell: "3x5", "3x4-5" */
static void shape_text(const struct cmp_cell *c, char *buf, size_t len)
{
	if (c->reps_min == c->reps_max)
		snprintf(buf, len, "%zux%zu", c->nruns, c->reps_min);
	else
		snprintf(buf, len, "%zux%zu-%zu", c->nruns, c->reps_min, c->reps_max);
}

/* The mean, its 95% CI (over the run means when there are two or more
 * runs, else over the one run's repetitions), runs x repetitions, and
 * "imprecise" when a run stopped short of --precision. */
static void cell_text(const struct cmp_row *r, const struct cmp_cell *c, char *buf, size_t len)
{
	const struct stats_summary *s = c->nruns >= 2 ? &c->rsum : &c->sum;
	char val[48], shape[32];

	if (!c->n) {
		snprintf(buf, len, "-");
		return;
	}
	text_format_value(c->nruns >= 2 ? c->rsum.mean : c->sum.mean, r->unit, val, sizeof(val));
	shape_text(c, shape, sizeof(shape));
	if (s->n > 1 && s->mean != 0 && isfinite(s->ci95_high))
		snprintf(buf, len, "%s ±%.1f%% %s%s", val, 100 * (s->ci95_high - s->mean) / fabs(s->mean), shape,
			 c->imprecise ? " imprecise" : "");
	else
		snprintf(buf, len, "%s %s%s", val, shape, c->imprecise ? " imprecise" : "");
}

/* The minimal detectable difference, when it is known. */
static void mdd_text(const struct cmp_verdict *v, char *buf, size_t len)
{
	if (isfinite(v->rc.mdd_pct))
		snprintf(buf, len, ", mdd %.1f%%", v->rc.mdd_pct);
	else
		buf[0] = '\0';
}

/* What one operand's cell says against the baseline's, in a few words. */
static void verdict_text(const struct cmp_table *t, const struct cmp_row *r, size_t o, char *buf, size_t len)
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
	mdd_text(&v, mdd, sizeof(mdd));
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
static const char *verdict_word(const struct cmp_verdict *v)
{
	if (!v->comparable)
		return "missing";
	return stats_verdict_word(v->rc.verdict);
}

void cmp_csv_field(FILE *f, const char *s)
{
	fputc('"', f);
	for (; s && *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

/* A finite number, or an empty CSV field. */
static void csv_num(FILE *f, const char *fmt, double x)
{
	if (isfinite(x))
		fprintf(f, fmt, x);
}

static json_t *json_num(double x)
{
	return isfinite(x) ? json_real(x) : json_null();
}

static int print_json(FILE *f, const struct cmp_table *t, const struct cmp_filter *flt)
{
	json_t *ops = json_array(), *rows = json_array(), *out;
	/* any part that cannot be made (out of memory; an operand named by a
	 * file path that is not UTF-8) fails the output: no cell goes missing */
	bool bad = !ops || !rows;

	for (size_t o = 0; !bad && o < t->nops; o++)
		bad = json_array_append_new(ops, json_pack("{s:s, s:I, s:b}", "name", t->ops[o].name, "runs",
						     (json_int_t)json_array_size(t->ops[o].docs), "baseline", o == t->baseline)) < 0;
	for (size_t i = 0; !bad && i < t->nrows; i++) {
		const struct cmp_row *r = &t->rows[i];
		json_t *cells;

		if (!cmp_row_selected(r, flt))
			continue;
		cells = json_array();
		bad = !cells;
		for (size_t o = 0; !bad && o < t->nops; o++) {
			const struct cmp_cell *c = &r->cells[o];
			struct cmp_verdict v;
			json_t *cell;

			if (!c->n) {
				bad = json_array_append_new(cells, json_null()) < 0;
				continue;
			}
			cell = json_pack("{s:I, s:o, s:o, s:o, s:I, s:I, s:I, s:b, s:I, s:I}", "n", (json_int_t)c->n, "mean",
					 json_num(c->sum.mean), "ci95_low", json_num(c->sum.ci95_low), "ci95_high",
					 json_num(c->sum.ci95_high), "runs", (json_int_t)c->nruns, "reps_min",
					 (json_int_t)c->reps_min, "reps_max", (json_int_t)c->reps_max, "precision_reached",
					 c->imprecise == 0, "busy_reps", (json_int_t)c->busy_reps, "sensed_reps",
					 (json_int_t)c->noise_reps);
			bad = !cell;
			if (!bad && c->nruns >= 2)
				bad = json_object_set_new(cell, "run_means", json_pack("{s:o, s:o, s:o, s:o}", "mean",
					json_num(c->rsum.mean), "stddev", json_num(c->rsum.stddev), "ci95_low",
					json_num(c->rsum.ci95_low), "ci95_high", json_num(c->rsum.ci95_high))) < 0;
			cmp_judge(t, r, o, &v);
			if (!bad && o != t->baseline && v.comparable) {
				bad = json_object_set_new(cell, "gap_pct", json_num(v.gap_pct)) < 0 ||
				      json_object_set_new(cell, "verdict", json_string(verdict_word(&v))) < 0 ||
				      json_object_set_new(cell, "basis", json_string(!v.w.valid ? "none: one run, no calibration"
										     : v.rc.calibrated ? "calibration"
												       : "run means")) < 0;
				if (!bad && v.w.valid)
					bad = json_object_set_new(cell, "p", json_num(v.w.p)) < 0 ||
					      json_object_set_new(cell, "df", json_num(v.rc.df)) < 0 ||
					      json_object_set_new(cell, "diff_ci95_pct", json_pack("[o, o]",
						json_num(v.rc.ci95_low_pct), json_num(v.rc.ci95_high_pct))) < 0 ||
					      json_object_set_new(cell, "diff_ci90_pct", json_pack("[o, o]",
						json_num(v.rc.ci90_low_pct), json_num(v.rc.ci90_high_pct))) < 0 ||
					      json_object_set_new(cell, "mdd_pct", json_num(v.rc.mdd_pct)) < 0;
			}
			if (bad)
				json_decref(cell);
			else
				bad = json_array_append_new(cells, cell) < 0;
		}
		if (bad) {
			json_decref(cells);
			break;
		}
		bad = json_array_append_new(rows, json_pack("{s:s, s:s, s:o, s:s, s:s, s:s, s:b, s:o}", "suite", r->suite,
			"test", r->test, "params", r->pobj ? json_incref((json_t *)r->pobj) : json_object(), "metric",
			r->metric, "unit", r->unit, "direction", r->higher_better ? "higher" : "lower", "headline",
			r->headline, "cells", cells)) < 0;
	}
	if (bad) {
		json_decref(ops);
		json_decref(rows);
		log_error("compare as JSON: out of memory, or an operand name or parameter that is not UTF-8");
		return -EINVAL;
	}
	out = json_pack("{s:o, s:f, s:o}", "operands", ops, "margin_pct", t->margin_pct, "metrics", rows);
	if (!out || json_dumpf(out, f, JSON_INDENT(2)) < 0) {
		json_decref(out);
		return -EIO;
	}
	fputc('\n', f);
	json_decref(out);
	return 0;
}

static void print_csv(FILE *f, const struct cmp_table *t, const struct cmp_filter *flt)
{
	char buf[512];

	fputs("suite,test,params,metric,unit,direction,operand,baseline,n,mean,ci95_low,ci95_high,gap_pct,verdict,p,"
	      "runs,reps_min,reps_max,precision_reached,busy_reps,mdd_pct,basis\r\n", f);
	for (size_t i = 0; i < t->nrows; i++) {
		const struct cmp_row *r = &t->rows[i];

		if (!cmp_row_selected(r, flt))
			continue;
		cmp_row_params(r, buf, sizeof(buf));
		for (size_t o = 0; o < t->nops; o++) {
			const struct cmp_cell *c = &r->cells[o];
			struct cmp_verdict v;

			if (!c->n)
				continue;
			cmp_judge(t, r, o, &v);
			cmp_csv_field(f, r->suite), fputc(',', f), cmp_csv_field(f, r->test), fputc(',', f);
			cmp_csv_field(f, buf), fputc(',', f), cmp_csv_field(f, r->metric), fputc(',', f);
			cmp_csv_field(f, r->unit), fputc(',', f);
			fprintf(f, "%s,", r->higher_better ? "higher" : "lower");
			cmp_csv_field(f, t->ops[o].name);
			fprintf(f, ",%s,%zu,", o == t->baseline ? "true" : "false", c->n);
			csv_num(f, "%.17g", c->sum.mean), fputc(',', f);
			csv_num(f, "%.17g", c->sum.ci95_low), fputc(',', f);
			csv_num(f, "%.17g", c->sum.ci95_high), fputc(',', f);
			if (o != t->baseline && v.comparable) {
				csv_num(f, "%.6g", v.gap_pct);
				fprintf(f, ",%s,", verdict_word(&v));
			} else {
				fputs(",,", f);
			}
			if (o != t->baseline && v.w.valid)
				csv_num(f, "%.6g", v.w.p);
			fprintf(f, ",%zu,%zu,%zu,%s,%zu,", c->nruns, c->reps_min, c->reps_max,
				c->imprecise ? "false" : "true", c->busy_reps);
			if (o != t->baseline && v.w.valid)
				csv_num(f, "%.6g", v.rc.mdd_pct);
			fputc(',', f);
			if (o != t->baseline && v.comparable)
				fputs(!v.w.valid ? "none" : v.rc.calibrated ? "calibration" : "runs", f);
			fputs("\r\n", f);
		}
	}
}

/* Markdown cell text: a | or a line break would end the cell. */
static void md_text(FILE *f, const char *s)
{
	for (; s && *s; s++) {
		if (*s == '|' || *s == '\\')
			fputc('\\', f);
		fputc(*s == '\n' || *s == '\r' ? ' ' : *s, f);
	}
}

static void print_markdown(FILE *f, const struct cmp_table *t, const struct cmp_filter *flt)
{
	char buf[512], cell[96], verdict[320];

	fputs("| test | params | metric |", f);
	for (size_t o = 0; o < t->nops; o++) {
		fputc(' ', f);
		md_text(f, t->ops[o].name);
		fputs(o == t->baseline ? " (baseline) |" : " | vs baseline |", f);
	}
	fputs("\n|---|---|---|", f);
	for (size_t o = 0; o < t->nops; o++)
		fputs(o == t->baseline ? "---:|" : "---:|---|", f);
	fputc('\n', f);
	for (size_t i = 0; i < t->nrows; i++) {
		const struct cmp_row *r = &t->rows[i];

		if (!cmp_row_selected(r, flt))
			continue;
		cmp_row_params(r, buf, sizeof(buf));
		fputs("| ", f), md_text(f, r->suite), fputc('.', f), md_text(f, r->test), fputs(" | ", f);
		md_text(f, buf), fputs(" | ", f), md_text(f, r->metric), fputs(" (", f), md_text(f, r->unit), fputs(") |", f);
		for (size_t o = 0; o < t->nops; o++) {
			cell_text(r, &r->cells[o], cell, sizeof(cell));
			fputc(' ', f), md_text(f, cell), fputs(" |", f);
			if (o == t->baseline)
				continue;
			verdict_text(t, r, o, verdict, sizeof(verdict));
			fputc(' ', f), md_text(f, verdict), fputs(" |", f);
		}
		fputc('\n', f);
	}
}

/* Terminal columns of UTF-8 text (every character one column wide). */
static size_t cols(const char *s)
{
	size_t n = 0;

	for (; *s; s++)
		n += ((unsigned char)*s & 0xC0) != 0x80;
	return n;
}

/* s cut to w columns at a character boundary, "~" marking the cut, into buf. */
static void fit(const char *s, size_t w, char *buf, size_t len)
{
	size_t c = 0, i = 0;

	if (cols(s) <= w) {
		snprintf(buf, len, "%s", s);
		return;
	}
	for (; s[i] && i + 2 < len; i++) {
		if (((unsigned char)s[i] & 0xC0) != 0x80 && ++c > w - 1)
			break;
		buf[i] = s[i];
	}
	buf[i++] = '~';
	buf[i] = '\0';
}

/* s in a column of w: cut to fit, padded with spaces (none after the last column). */
static void column(FILE *f, const char *s, size_t w, bool pad, const char *color)
{
	char buf[512];

	fit(s, w, buf, sizeof(buf));
	if (color)
		fprintf(f, "\033[%sm%s\033[0m", color, buf);
	else
		fputs(buf, f);
	for (size_t n = cols(buf); pad && n < w; n++)
		fputc(' ', f);
}

static size_t umax(size_t a, size_t b)
{
	return a > b ? a : b;
}

static size_t umin(size_t a, size_t b)
{
	return a < b ? a : b;
}

static const char *verdict_color(const struct cmp_table *t, const struct cmp_row *r, size_t o, bool color)
{
	struct cmp_verdict v;

	if (!color)
		return NULL;
	cmp_judge(t, r, o, &v);
	return v.better > 0 ? "32" : v.better < 0 ? "31" : NULL;
}

#define TEXT_WIDTH 120

/* An operand in a column: its name, or "#k" when some name does not fit
 * (the lines at the top say which name #k is). */
static void op_label(const struct cmp_table *t, size_t o, bool numbered, char *buf, size_t len)
{
	if (numbered)
		snprintf(buf, len, "#%zu%s", o + 1, o == t->baseline ? " (baseline)" : "");
	else
		snprintf(buf, len, "%s%s", t->ops[o].name, o == t->baseline ? " (baseline)" : "");
}

/* The caveats, each wrapped at TEXT_WIDTH columns at spaces. */
char *cmp_caveats_text(const struct cmp_table *t, const struct cmp_filter *flt)
{
	char *text = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&text, &len);

	if (!mem)
		return NULL;
	(void)cmp_caveats(mem, t, flt, "");
	if (fclose(mem) != 0) {
		free(text);
		return NULL;
	}
	return text;
}

static void caveats_wrapped(FILE *f, const struct cmp_table *t, const struct cmp_filter *flt)
{
	char *text = cmp_caveats_text(t, flt), *line, *save = NULL;

	if (!text)
		return;
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		const char *p = line;

		while (cols(p) > TEXT_WIDTH) {
			const char *cut = p + TEXT_WIDTH;

			while (cut > p && *cut != ' ')
				cut--;
			if (cut == p)
				break;
			fprintf(f, "%.*s\n", (int)(cut - p), p);
			p = cut + 1;
			fputs("    ", f);
		}
		fprintf(f, "%s\n", p);
	}
	free(text);
}

/* Text: metrics grouped under their case ("cpu.prime  threads=1 max-prime=2000").
 * With a column per operand and one per verdict when that fits in 120
 * columns, else a line per operand under each metric. A tally closes it. */
static void print_text(FILE *f, const struct cmp_table *t, const struct cmp_filter *flt, bool color)
{
	size_t wmet = 6, wval = 5, wverd = 7, wname = 4, wide = 0, prev = SIZE_MAX;
	char buf[512], cell[96], verdict[320];
	bool numbered = false;

	for (size_t i = 0; i < t->nrows; i++) {
		const struct cmp_row *r = &t->rows[i];

		if (!cmp_row_selected(r, flt))
			continue;
		wmet = umax(wmet, cols(r->metric));
		for (size_t o = 0; o < t->nops; o++) {
			cell_text(r, &r->cells[o], cell, sizeof(cell));
			wval = umax(wval, cols(cell));
			if (o == t->baseline)
				continue;
			verdict_text(t, r, o, verdict, sizeof(verdict));
			wverd = umax(wverd, cols(verdict));
		}
	}
	for (size_t o = 0; o < t->nops; o++)
		wname = umax(wname, cols(t->ops[o].name) + (o == t->baseline ? 11 : 0));
	wmet = umin(wmet, 28);
	wval = umin(wval, 34);
	wverd = umin(wverd, 56);
	/* wide: each operand's value under its name, its verdict beside it */
	if (2 + wmet + t->nops * (2 + wval) + (t->nops - 1) * (2 + wverd) <= TEXT_WIDTH) {
		wide = umax(wval, umin(wname, 24));
		while (wide > wval && 2 + wmet + t->nops * (2 + wide) + (t->nops - 1) * (2 + wverd) > TEXT_WIDTH)
			wide--;
		numbered = wname > wide;
	} else {
		size_t room = TEXT_WIDTH - (2 + wmet + 2 + 2 + wval + 2 + wverd);

		numbered = wname > room;
		wname = numbered ? 4 + 11 : wname;
	}
	for (size_t o = 0; o < t->nops; o++) {
		size_t runs = json_array_size(t->ops[o].docs);

		snprintf(buf, sizeof(buf), "#%zu %s%s, %zu run%s", o + 1, t->ops[o].name,
			 o == t->baseline ? " (baseline)" : "", runs, runs == 1 ? "" : "s");
		column(f, buf, TEXT_WIDTH, false, NULL);
		fputc('\n', f);
	}
	if (wide) {
		fputs("  ", f);
		column(f, "METRIC", wmet, true, NULL);
		for (size_t o = 0; o < t->nops; o++) {
			op_label(t, o, numbered, buf, sizeof(buf));
			fputs("  ", f);
			column(f, buf, wide, o + 1 < t->nops || o != t->baseline, NULL);
			if (o != t->baseline) {
				fputs("  ", f);
				column(f, "VS BASELINE", wverd, o + 1 < t->nops, NULL);
			}
		}
		fputc('\n', f);
	}
	for (size_t i = 0; i < t->nrows; i++) {
		const struct cmp_row *r = &t->rows[i];

		if (!cmp_row_selected(r, flt))
			continue;
		if (prev == SIZE_MAX || strcmp(t->rows[prev].suite, r->suite) || strcmp(t->rows[prev].test, r->test) ||
		    strcmp(t->rows[prev].params, r->params)) {
			char p[400];

			cmp_row_params(r, p, sizeof(p));
			snprintf(buf, sizeof(buf), "%s.%s%s%s", r->suite, r->test, *p ? "  " : "", p);
			column(f, buf, TEXT_WIDTH, false, NULL);
			fputc('\n', f);
		}
		prev = i;
		fputs("  ", f);
		column(f, r->metric, wmet, true, NULL);
		for (size_t o = 0; o < t->nops; o++) {
			bool last = o + 1 == t->nops;

			cell_text(r, &r->cells[o], cell, sizeof(cell));
			if (o != t->baseline)
				verdict_text(t, r, o, verdict, sizeof(verdict));
			if (wide) {
				fputs("  ", f);
				column(f, cell, wide, !last || o != t->baseline, NULL);
				if (o != t->baseline) {
					fputs("  ", f);
					column(f, verdict, wverd, !last, verdict_color(t, r, o, color));
				}
				continue;
			}
			if (o) {
				fputs("\n  ", f);
				column(f, "", wmet, true, NULL);
			}
			fputs("  ", f);
			op_label(t, o, numbered, buf, sizeof(buf));
			column(f, buf, wname, true, NULL);
			fputs("  ", f);
			column(f, cell, wval, o != t->baseline, NULL);
			if (o != t->baseline) {
				fputs("  ", f);
				column(f, verdict, wverd, false, verdict_color(t, r, o, color));
			}
		}
		fputc('\n', f);
	}
	caveats_wrapped(f, t, flt);
	for (size_t o = 0; o < t->nops; o++) {
		struct cmp_tally n;

		if (o == t->baseline)
			continue;
		cmp_tally(t, flt, o, &n);
		snprintf(buf, sizeof(buf), "%s vs %s: %zu better, %zu worse, %zu same, %zu inconclusive, %zu missing",
			 t->ops[o].name, t->ops[t->baseline].name, n.better, n.worse, n.same, n.untested + n.inconclusive,
			 n.missing);
		column(f, buf, TEXT_WIDTH, false, NULL);
		fputc('\n', f);
	}
}

int cmp_print(FILE *f, const struct cmp_table *t, const struct cmp_filter *flt, enum cmp_format fmt, bool color)
{
	switch (fmt) {
	case CMP_JSON:
		return print_json(f, t, flt);
	case CMP_CSV:
		print_csv(f, t, flt);
		break;
	case CMP_MARKDOWN:
		print_markdown(f, t, flt);
		break;
	case CMP_TEXT:
		print_text(f, t, flt, color);
		break;
	}
	return ferror(f) ? -EIO : 0;
}

size_t cmp_regressions(FILE *f, const struct cmp_table *t, const struct cmp_filter *flt, double pct)
{
	size_t n = 0;

	for (size_t i = 0; i < t->nrows; i++) {
		const struct cmp_row *r = &t->rows[i];

		if (!cmp_row_selected(r, flt))
			continue;
		for (size_t o = 0; o < t->nops; o++) {
			struct cmp_verdict v;
			char p[256];

			if (o == t->baseline)
				continue;
			/* only a run-level significant worsening counts: repetitions of
			 * one run never fail a gate on their own */
			cmp_judge(t, r, o, &v);
			if (v.rc.significant >= 0 || !(fabs(v.gap_pct) > pct))
				continue;
			cmp_row_params(r, p, sizeof(p));
			fprintf(f, "  %s.%s %s %s: %+.1f%% in %s (p=%.2g, %zu vs %zu runs%s)\n", r->suite, r->test, p,
				r->metric, v.gap_pct, t->ops[o].name, v.w.p, r->cells[t->baseline].nruns,
				r->cells[o].nruns, v.rc.calibrated ? ", calibrated noise" : "");
			n++;
		}
	}
	return n;
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

/* ---- caveats ---- */

/* Fingerprint parts that change what is measured, with the label key that
 * says a difference in them is intended. */
static const struct {
	const char *what, *obj, *key;
	const char *labels; /* label keys that say a difference is intended, comma-separated */
} fp_parts[] = {
	{ "hypervisor", "hypervisor", "name", "hv,accel,config,host" },
	{ "CPU model", "cpu", "model", "cpu,accel,arch,config,host" },
	{ "kernel", "kernel", "release", "kernel,accel,config,host" },
	{ "clocksource", "clocksource", "current", "clocksource,hv,accel,config,host" },
	{ "THP setting", "thp", "enabled", "thp,accel,config,host" },
};

static const char *fp_part(const json_t *doc, size_t k)
{
	return json_string_value(json_object_get(json_object_get(json_object_get(doc, "fingerprint"), fp_parts[k].obj),
						 fp_parts[k].key));
}

static const char *label_of(const json_t *doc, const char *key)
{
	return json_string_value(json_object_get(json_object_get(doc, "labels"), key));
}

static bool same_str(const char *a, const char *b)
{
	return (!a && !b) || (a && b && !strcmp(a, b));
}

/* Whether a label says the operands differ on purpose: one of the label
 * keys that explain this part has other values on the two sides. */
static bool labelled_apart(const json_t *a, const json_t *b, size_t k)
{
	for (const char *p = fp_parts[k].labels; *p;) {
		size_t n = strcspn(p, ",");
		char key[32];

		snprintf(key, sizeof(key), "%.*s", (int)n, p);
		if (!same_str(label_of(a, key), label_of(b, key)))
			return true;
		p += n + (p[n] == ',');
	}
	return false;
}

/* A label that names the hypervisor but not the one the fingerprint found. */
static bool hv_label_contradicts(const json_t *doc)
{
	const char *l = label_of(doc, "hv"), *hv = fp_part(doc, 0);

	if (!l || !hv)
		return false;
	return !strcasestr(hv, l) && !strcasestr(l, hv);
}

size_t cmp_caveats(FILE *f, const struct cmp_table *t, const struct cmp_filter *flt, const char *prefix)
{
	size_t n = 0, untested = 0, single = 0;

	for (size_t o = 0; o < t->nops; o++) {
		const json_t *docs = t->ops[o].docs, *d0 = json_array_get(docs, 0), *d;
		size_t i, busy = 0, sensed = 0;

		for (size_t k = 0; k < ARRAY_SIZE(fp_parts); k++)
			json_array_foreach(docs, i, d)
				if (i && !same_str(fp_part(d0, k), fp_part(d, k))) {
					fprintf(f, "%swarning: %s pools runs of different %s: %s and %s\n", prefix,
						t->ops[o].name, fp_parts[k].what, fp_part(d0, k) ?: "unknown",
						fp_part(d, k) ?: "unknown");
					n++;
					break;
				}
		json_array_foreach(docs, i, d)
			if (hv_label_contradicts(d)) {
				fprintf(f, "%swarning: %s is labelled hv=%s but its fingerprint says %s\n", prefix,
					t->ops[o].name, label_of(d, "hv"), fp_part(d, 0));
				n++;
				break;
			}
		if (o != t->baseline) {
			const json_t *b0 = json_array_get(t->ops[t->baseline].docs, 0);

			for (size_t k = 0; k < ARRAY_SIZE(fp_parts); k++)
				if (b0 && d0 && !same_str(fp_part(b0, k), fp_part(d0, k)) && !labelled_apart(b0, d0, k)) {
					fprintf(f, "%swarning: %s and %s differ in %s (%s vs %s) and no label says so\n",
						prefix, t->ops[t->baseline].name, t->ops[o].name, fp_parts[k].what,
						fp_part(b0, k) ?: "unknown", fp_part(d0, k) ?: "unknown");
					n++;
				}
		}
		/* busy: over the selected metrics' cases, counted once per case
		 * (a case's metrics are consecutive rows) */
		for (size_t r = 0, last = SIZE_MAX; r < t->nrows; r++) {
			const struct cmp_row *row = &t->rows[r];

			if (!cmp_row_selected(row, flt))
				continue;
			if (last != SIZE_MAX && !strcmp(t->rows[last].suite, row->suite) &&
			    !strcmp(t->rows[last].test, row->test) && !strcmp(t->rows[last].params, row->params))
				continue;
			last = r;
			busy += row->cells[o].busy_reps;
			sensed += row->cells[o].noise_reps;
		}
		if (sensed) {
			fprintf(f, "%s%s: host busy during %zu of %zu repetitions%s\n", prefix, t->ops[o].name, busy,
				sensed, busy ? " (see docs/methodology.md, noise sensors)" : "");
			n++;
		}
	}
	for (size_t r = 0; r < t->nrows; r++) {
		const struct cmp_row *row = &t->rows[r];

		if (!cmp_row_selected(row, flt))
			continue;
		for (size_t o = 0; o < t->nops; o++) {
			struct cmp_verdict v;

			if (o == t->baseline)
				continue;
			cmp_judge(t, row, o, &v);
			untested += v.comparable && !v.w.valid;
			single += v.comparable && v.rc.calibrated;
		}
	}
	if (untested) {
		fprintf(f, "%s(*) %zu comparison%s with one run on a side: run-to-run noise is unknown, so no "
			   "significance is claimed from repetitions alone; measure with 'vmbench run --runs 3' or "
			   "store this machine's noise with 'vmbench calibrate'\n", prefix, untested,
			untested == 1 ? "" : "s");
		n++;
	}
	if (single) {
		fprintf(f, "%s%zu comparison%s with one run on a side used this machine's stored calibration\n", prefix,
			single, single == 1 ? "" : "s");
		n++;
	}
	return n;
}
