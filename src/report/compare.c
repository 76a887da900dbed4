/* Comparison tables: pairing rule, Welch verdicts, output formats. */
#include <errno.h>
#include <fnmatch.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"
#include "text.h"
#include "../core/util.h"
#include "../core/banned.h"

void cmp_table_init(struct cmp_table *t)
{
	memset(t, 0, sizeof(*t));
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

static int cell_take(struct cmp_cell *c, const json_t *m)
{
	const json_t *samples = json_object_get(m, "samples"), *x;
	size_t i, k = json_array_size(samples);
	double *ns = realloc(c->samples, (c->n + k + 1) * sizeof(*ns));

	if (!ns)
		return -ENOMEM;
	c->samples = ns;
	json_array_foreach(samples, i, x)
		if (json_is_number(x))
			c->samples[c->n++] = json_number_value(x);
	if (!c->hist)
		c->hist = json_object_get(m, "histogram");
	c->present = true;
	return 0;
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
			char *params = json_is_object(pobj) ? json_dumps(pobj, JSON_SORT_KEYS | JSON_COMPACT) : xstrdup("{}");
			const char *sn = json_string_value(json_object_get(s, "name")) ?: "";
			const char *tn = json_string_value(json_object_get(te, "name")) ?: "";

			if (!params)
				return -ENOMEM;
			json_array_foreach(json_object_get(c, "metrics"), l, m) {
				struct cmp_row *r = row_of(t, sn, tn, params, pobj, m);

				if (!r || cell_take(&r->cells[o], m) < 0) {
					free(params);
					return -ENOMEM;
				}
			}
			free(params);
		}
	}
	for (size_t r = 0; r < t->nrows; r++)
		for (size_t o = 0; o < t->nops; o++)
			if (t->rows[r].cells[o].n)
				stats_summarize(t->rows[r].cells[o].samples, t->rows[r].cells[o].n, &t->rows[r].cells[o].sum);
	return 0;
}

void cmp_table_release(struct cmp_table *t)
{
	for (size_t r = 0; r < t->nrows; r++) {
		struct cmp_row *row = &t->rows[r];

		for (size_t o = 0; o < t->nops; o++)
			free(row->cells[o].samples);
		free(row->cells), free(row->suite), free(row->test), free(row->params), free(row->metric), free(row->unit);
	}
	for (size_t o = 0; o < t->nops; o++) {
		free(t->ops[o].name);
		json_decref(t->ops[o].docs);
	}
	free(t->rows);
	free(t->ops);
	free(t->index);
	cmp_table_init(t);
}

void cmp_judge(const struct cmp_row *r, const struct cmp_cell *base, const struct cmp_cell *op, struct cmp_verdict *v)
{
	memset(v, 0, sizeof(*v));
	if (!base->n || !op->n)
		return;
	v->comparable = true;
	v->gap_pct = base->sum.mean != 0 ? (op->sum.mean - base->sum.mean) / fabs(base->sum.mean) * 100 : NAN;
	v->ratio = base->sum.mean != 0 ? op->sum.mean / base->sum.mean : NAN;
	stats_welch(&base->sum, &op->sum, &v->w);
	/* Significant when the 95% CI of the difference excludes zero. */
	if (v->w.valid && (v->w.ci_low > 0 || v->w.ci_high < 0))
		v->better = (v->w.diff > 0) == r->higher_better ? 1 : -1;
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
		cmp_judge(r, &r->cells[t->baseline], &r->cells[op], &v);
		if (!v.comparable)
			out->missing += r->cells[t->baseline].n || r->cells[op].n;
		else if (!v.w.valid)
			out->untested++;
		else if (v.better > 0)
			out->better++;
		else if (v.better < 0)
			out->worse++;
		else
			out->same++;
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

static void cell_text(const struct cmp_row *r, const struct cmp_cell *c, char *buf, size_t len)
{
	char val[48];

	if (!c->n) {
		snprintf(buf, len, "-");
		return;
	}
	text_format_value(c->sum.mean, r->unit, val, sizeof(val));
	if (c->n > 1 && c->sum.mean != 0)
		snprintf(buf, len, "%s ±%.1f%%", val, 100 * (c->sum.ci95_high - c->sum.mean) / fabs(c->sum.mean));
	else
		snprintf(buf, len, "%s (n=%zu)", val, c->n);
}

static void verdict_text(const struct cmp_row *r, const struct cmp_verdict *v, const struct cmp_cell *base,
			 const struct cmp_cell *op, char *buf, size_t len)
{
	char words[32];

	if (!v->comparable) {
		snprintf(buf, len, "%s", !op->n ? "missing here" : !base->n ? "only here" : "");
		return;
	}
	cmp_ratio_words(r, v, words, sizeof(words));
	if (!v->w.valid)
		snprintf(buf, len, "%+.1f%%%s%s (too few samples to test)", v->gap_pct, *words ? ", " : "", words);
	else if (v->better == 0)
		snprintf(buf, len, "%+.1f%% no significant difference (p=%.2g)", v->gap_pct, v->w.p);
	else
		snprintf(buf, len, "%+.1f%%%s%s %s (p=%.2g)", v->gap_pct, *words ? " " : "", words,
			 v->better > 0 ? "better" : "worse", v->w.p);
}

static void csv_field(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

static int print_json(FILE *f, const struct cmp_table *t, const struct cmp_filter *flt)
{
	json_t *ops = json_array(), *rows = json_array(), *out;

	for (size_t o = 0; o < t->nops; o++)
		json_array_append_new(ops, json_pack("{s:s, s:I, s:b}", "name", t->ops[o].name, "runs",
						     (json_int_t)json_array_size(t->ops[o].docs), "baseline", o == t->baseline));
	for (size_t i = 0; i < t->nrows; i++) {
		const struct cmp_row *r = &t->rows[i];
		json_t *cells;

		if (!cmp_row_selected(r, flt))
			continue;
		cells = json_array();
		for (size_t o = 0; o < t->nops; o++) {
			const struct cmp_cell *c = &r->cells[o];
			struct cmp_verdict v;
			json_t *cell;

			if (!c->n) {
				json_array_append_new(cells, json_null());
				continue;
			}
			cell = json_pack("{s:I, s:f, s:f, s:f}", "n", (json_int_t)c->n, "mean", c->sum.mean,
					 "ci95_low", c->sum.ci95_low, "ci95_high", c->sum.ci95_high);
			cmp_judge(r, &r->cells[t->baseline], c, &v);
			if (o != t->baseline && v.comparable) {
				json_object_set_new(cell, "gap_pct", isfinite(v.gap_pct) ? json_real(v.gap_pct) : json_null());
				json_object_set_new(cell, "verdict", json_string(v.better > 0 ? "better" : v.better < 0 ? "worse"
										      : "no significant difference"));
				if (v.w.valid) {
					json_object_set_new(cell, "p", json_real(v.w.p));
					json_object_set_new(cell, "diff_ci95", json_pack("[f, f]", v.w.ci_low, v.w.ci_high));
				}
			}
			json_array_append_new(cells, cell);
		}
		json_array_append_new(rows, json_pack("{s:s, s:s, s:o, s:s, s:s, s:s, s:b, s:o}", "suite", r->suite,
			"test", r->test, "params", r->pobj ? json_incref((json_t *)r->pobj) : json_object(), "metric", r->metric, "unit", r->unit,
			"direction", r->higher_better ? "higher" : "lower", "headline", r->headline, "cells", cells));
	}
	out = json_pack("{s:o, s:o}", "operands", ops, "metrics", rows);
	if (json_dumpf(out, f, JSON_INDENT(2)) < 0) {
		json_decref(out);
		return -EIO;
	}
	fputc('\n', f);
	json_decref(out);
	return 0;
}

int cmp_print(FILE *f, const struct cmp_table *t, const struct cmp_filter *flt, enum cmp_format fmt, bool color)
{
	size_t wtest = 4, wpar = 6, wmet = 6, wcell = 10;
	char buf[512];

	if (fmt == CMP_JSON)
		return print_json(f, t, flt);
	if (fmt == CMP_CSV) {
		fputs("suite,test,params,metric,unit,direction,operand,baseline,n,mean,ci95_low,ci95_high,gap_pct,verdict,p\n", f);
		for (size_t i = 0; i < t->nrows; i++) {
			const struct cmp_row *r = &t->rows[i];

			if (!cmp_row_selected(r, flt))
				continue;
			for (size_t o = 0; o < t->nops; o++) {
				const struct cmp_cell *c = &r->cells[o];
				struct cmp_verdict v;

				if (!c->n)
					continue;
				cmp_judge(r, &r->cells[t->baseline], c, &v);
				cmp_row_params(r, buf, sizeof(buf));
				csv_field(f, r->suite), fputc(',', f), csv_field(f, r->test), fputc(',', f);
				csv_field(f, buf), fputc(',', f), csv_field(f, r->metric), fputc(',', f);
				csv_field(f, r->unit), fputc(',', f);
				fprintf(f, "%s,", r->higher_better ? "higher" : "lower");
				csv_field(f, t->ops[o].name);
				fprintf(f, ",%s,%zu,%.17g,%.17g,%.17g,", o == t->baseline ? "true" : "false", c->n, c->sum.mean,
					c->sum.ci95_low, c->sum.ci95_high);
				if (o != t->baseline && v.comparable && isfinite(v.gap_pct))
					fprintf(f, "%.6g,%s,", v.gap_pct, v.better > 0 ? "better" : v.better < 0 ? "worse" : "same");
				else
					fputs(",,", f);
				if (o != t->baseline && v.w.valid)
					fprintf(f, "%.6g", v.w.p);
				fputc('\n', f);
			}
		}
		return 0;
	}
	/* Text and Markdown: one row per metric, a column per operand. */
	for (size_t i = 0; i < t->nrows; i++) {
		const struct cmp_row *r = &t->rows[i];

		if (!cmp_row_selected(r, flt))
			continue;
		cmp_row_params(r, buf, sizeof(buf));
		wtest = strlen(r->suite) + strlen(r->test) + 1 > wtest ? strlen(r->suite) + strlen(r->test) + 1 : wtest;
		wpar = strlen(buf) > wpar ? strlen(buf) : wpar;
		wmet = strlen(r->metric) > wmet ? strlen(r->metric) : wmet;
	}
	for (size_t o = 0; o < t->nops; o++)
		wcell = strlen(t->ops[o].name) + 11 > wcell ? strlen(t->ops[o].name) + 11 : wcell;
	if (wcell < 18)
		wcell = 18;
	if (fmt == CMP_MARKDOWN) {
		fputs("| test | params | metric |", f);
		for (size_t o = 0; o < t->nops; o++)
			fprintf(f, " %s%s |%s", t->ops[o].name, o == t->baseline ? " (baseline)" : "",
				o == t->baseline ? "" : " vs baseline |");
		fputs("\n|---|---|---|", f);
		for (size_t o = 0; o < t->nops; o++)
			fputs(o == t->baseline ? "---:|" : "---:|---|", f);
		fputc('\n', f);
	} else {
		fprintf(f, "%-*s  %-*s  %-*s", (int)wtest, "TEST", (int)wpar, "PARAMS", (int)wmet, "METRIC");
		for (size_t o = 0; o < t->nops; o++) {
			char head[160];

			snprintf(head, sizeof(head), "%s%s", t->ops[o].name, o == t->baseline ? " (baseline)" : "");
			fprintf(f, "  %-*s", (int)wcell, head);
			if (o != t->baseline)
				fprintf(f, "  %-36s", "VS BASELINE");
		}
		fputc('\n', f);
	}
	for (size_t i = 0; i < t->nrows; i++) {
		const struct cmp_row *r = &t->rows[i];
		char test[160];

		if (!cmp_row_selected(r, flt))
			continue;
		cmp_row_params(r, buf, sizeof(buf));
		snprintf(test, sizeof(test), "%s.%s", r->suite, r->test);
		if (fmt == CMP_MARKDOWN)
			fprintf(f, "| %s | %s | %s (%s) |", test, buf, r->metric, r->unit);
		else
			fprintf(f, "%-*s  %-*s  %-*s", (int)wtest, test, (int)wpar, buf, (int)wmet, r->metric);
		for (size_t o = 0; o < t->nops; o++) {
			const struct cmp_cell *c = &r->cells[o];
			char cell[96], verdict[160];
			struct cmp_verdict v;

			cell_text(r, c, cell, sizeof(cell));
			cmp_judge(r, &r->cells[t->baseline], c, &v);
			verdict_text(r, &v, &r->cells[t->baseline], c, verdict, sizeof(verdict));
			if (fmt == CMP_MARKDOWN) {
				fprintf(f, " %s |", cell);
				if (o != t->baseline)
					fprintf(f, " %s |", verdict);
				continue;
			}
			fprintf(f, "  %-*s", (int)wcell, cell);
			if (o == t->baseline)
				continue;
			if (color && v.better)
				fprintf(f, "  \033[%sm%-36s\033[0m", v.better > 0 ? "32" : "31", verdict);
			else
				fprintf(f, "  %-36s", verdict);
		}
		fputc('\n', f);
	}
	return 0;
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
			cmp_judge(r, &r->cells[t->baseline], &r->cells[o], &v);
			if (v.better >= 0 || !(fabs(v.gap_pct) > pct))
				continue;
			cmp_row_params(r, p, sizeof(p));
			fprintf(f, "  %s.%s %s %s: %+.1f%% in %s (p=%.2g)\n", r->suite, r->test, p, r->metric, v.gap_pct,
				t->ops[o].name, v.w.p);
			n++;
		}
	}
	return n;
}
