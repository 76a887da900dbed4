/* HTML report: tables and charts from a comparison table. Every string that
 * comes from a document (names, params, units, labels, notes, fingerprint) is
 * escaped where it is printed: a result a guest sent in must not put markup
 * or script into the page. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "html.h"
#include "svg.h"
#include "text.h"
#include "../core/str.h"
#include "../core/unit.h"
#include "../core/clock.h"
#include "../core/banned.h"

/* Below 700 px the comparison tables turn into one card per metric, each
 * value labelled (data-label), so the verdict is on screen on a phone. */
static const char css[] =
	"body{font-family:system-ui,sans-serif;max-width:1200px;margin:0 auto;padding:0 12px;color:#222}"
	"h1{font-size:1.6em}h2{margin-top:1.6em;border-bottom:1px solid #ccc}"
	".scroll{overflow-x:auto}table{border-collapse:collapse;font-size:13px;margin:8px 0}"
	"th,td{border:1px solid #ccc;padding:3px 6px;text-align:right;vertical-align:top}"
	"th:first-child,td:first-child{text-align:left}thead th{background:#f2f2f2}"
	"td.what{text-align:left;min-width:12em;max-width:26em}td.v{white-space:nowrap}"
	"td.vd,th.vd{text-align:left;min-width:8em;max-width:16em}small{color:#555}"
	".better{color:#060}.worse{color:#b00}.same{color:#666}p.tally{font-size:1.05em}"
	".charts{display:flex;flex-wrap:wrap;gap:12px}.charts figure{margin:0;flex:1 1 480px;max-width:580px}"
	"figcaption{font-size:13px;color:#444}svg.chart{width:100%;height:auto}"
	"details{margin:6px 0}summary{cursor:pointer}"
	"@media (max-width:700px){body{padding:0 6px}table{font-size:12px}"
	"table.cmp,table.cmp tbody,table.cmp tr,table.cmp td{display:block}table.cmp thead{display:none}"
	"table.cmp tr{border:1px solid #ccc;margin:6px 0;padding:2px 0}"
	"table.cmp td{border:none;text-align:left;max-width:none;white-space:normal}"
	"table.cmp td[data-label]::before{content:attr(data-label) \": \";color:#444}}"
	"@media print{.charts figure{break-inside:avoid}details{break-inside:avoid}}";

void html_escape(FILE *f, const char *s)
{
	for (; s && *s; s++) {
		switch (*s) {
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '&': fputs("&amp;", f); break;
		case '"': fputs("&quot;", f); break;
		case '\'': fputs("&#39;", f); break;
		default: fputc(*s, f); break;
		}
	}
}

static void esc(FILE *f, const char *s)
{
	html_escape(f, s);
}

/* Rows by (suite, test, params): where a headline rate finds its case's latency. */
static int by_case(const void *a, const void *b)
{
	const struct cmp_row *x = *(const struct cmp_row *const *)a, *y = *(const struct cmp_row *const *)b;
	int c = strcmp(x->suite, y->suite);

	if (!c)
		c = strcmp(x->test, y->test);
	if (!c)
		c = strcmp(x->params, y->params);
	return c;
}

/* Equal cases in table order: the first latency metric of a case wins. */
static int by_case_then_order(const void *a, const void *b)
{
	const struct cmp_row *x = *(const struct cmp_row *const *)a, *y = *(const struct cmp_row *const *)b;
	int c = by_case(a, b);

	return c ? c : (x > y) - (x < y);
}

struct latency_index {
	const struct cmp_row **rows; /* rows with a histogram, sorted by case */
	size_t n;
};

static bool has_hist(const struct cmp_table *t, const struct cmp_row *r)
{
	for (size_t o = 0; o < t->nops; o++)
		if (r->cells[o].hist)
			return true;
	return false;
}

static int latency_index_build(const struct cmp_table *t, struct latency_index *li)
{
	li->n = 0;
	li->rows = calloc(t->nrows ? t->nrows : 1, sizeof(*li->rows));
	if (!li->rows)
		return -ENOMEM;
	for (size_t i = 0; i < t->nrows; i++)
		if (has_hist(t, &t->rows[i]))
			li->rows[li->n++] = &t->rows[i];
	qsort(li->rows, li->n, sizeof(*li->rows), by_case_then_order);
	return 0;
}

/* The latency row of r's case (r itself when it has a histogram), or NULL. */
static const struct cmp_row *latency_of(const struct latency_index *li, const struct cmp_table *t,
					const struct cmp_row *r)
{
	const struct cmp_row **hit;

	if (has_hist(t, r))
		return r;
	hit = bsearch(&r, li->rows, li->n, sizeof(*li->rows), by_case);
	if (!hit)
		return NULL;
	while (hit > li->rows && !by_case(hit - 1, &r))
		hit--;
	return *hit;
}

/* " p99 clat 1.2 ms" from a histogram, or "" when it has no valid p99. */
static void p99_text(const struct cmp_row *lat, const json_t *h, char *buf, size_t len)
{
	const json_t *p = json_object_get(json_object_get(h, "percentiles"), "p99");
	const char *unit = json_string_value(json_object_get(h, "unit"));
	char val[48];

	buf[0] = '\0';
	if (!json_is_number(p) || !isfinite(json_number_value(p)) || json_number_value(p) < 0)
		return;
	text_format_value(json_number_value(p), unit ? unit : lat->unit, val, sizeof(val));
	snprintf(buf, len, "p99 %s %s", lat->metric, val);
}

/* The verdict's label in the phone layout: "b vs a". */
static void label(FILE *f, const struct cmp_table *t, size_t o)
{
	esc(f, t->ops[o].name);
	fputs(" vs ", f);
	esc(f, t->ops[t->baseline].name);
}

static void verdict_cell(FILE *f, const struct cmp_table *t, const struct cmp_row *r, size_t o)
{
	const struct cmp_cell *c = &r->cells[o], *b = &r->cells[t->baseline];
	struct cmp_verdict v;
	char words[32];

	fputs("<td class=\"vd", f);
	cmp_judge(t, r, o, &v);
	cmp_ratio_words(r, &v, words, sizeof(words));
	if (!v.comparable) {
		fputs(" same\" data-label=\"", f);
		label(f, t, o);
		fputs("\">", f);
		fputs(!c->n && !b->n ? "in neither" : "missing in ", f);
		if (c->n || b->n)
			esc(f, !c->n ? t->ops[o].name : t->ops[t->baseline].name);
	} else if (!v.w.valid || !isfinite(v.gap_pct)) {
		fputs(" same\" data-label=\"", f);
		label(f, t, o);
		fputs("\">", f);
		if (isfinite(v.gap_pct))
			fprintf(f, "%+.1f%% ", v.gap_pct);
		fputs("<small>(one run: noise unknown)</small>", f);
	} else {
		fprintf(f, " %s\" data-label=\"", v.better > 0 ? "better" : v.better < 0 ? "worse" : "same");
		label(f, t, o);
		fprintf(f, "\">%+.1f%%%s%s %s <small>(p=%.2g)</small>", v.gap_pct, *words ? " " : "", words,
			v.better > 0 ? "better" : v.better < 0 ? "worse"
			: v.rc.verdict == STATS_SAME ? "the same within the margin" : "no significant difference", v.w.p);
	}
	fputs("</td>", f);
}

static void value_cell(FILE *f, const struct cmp_table *t, const struct cmp_row *r, const struct cmp_row *lat,
		       size_t o)
{
	const struct cmp_cell *c = &r->cells[o];
	char val[48], p99[160] = "";

	fputs("<td class=\"v\" data-label=\"", f);
	esc(f, t->ops[o].name);
	fputs("\">", f);
	if (!c->n) {
		fputs("-</td>", f);
		return;
	}
	text_format_value(c->sum.mean, r->unit, val, sizeof(val));
	esc(f, val);
	if (c->n > 1 && c->sum.mean != 0 && isfinite(c->sum.ci95_high))
		fprintf(f, " <small>±%.1f%%</small>", 100 * (c->sum.ci95_high - c->sum.mean) / fabs(c->sum.mean));
	if (lat)
		p99_text(lat, lat->cells[o].hist, p99, sizeof(p99));
	if (*p99) {
		fputs("<br><small>", f);
		esc(f, p99);
		fputs("</small>", f);
	}
	fputs("</td>", f);
}

/* A comparison table of the given rows: what was measured, the verdicts
 * against the baseline (first, so that they are on screen without
 * scrolling), then each operand's mean with its 95% CI (and p99 when the
 * case has a latency histogram). */
static void table(FILE *f, const struct cmp_table *t, const struct latency_index *li, const size_t *rows, size_t n,
		  const char *id)
{
	const char *base = t->ops[t->baseline].name;

	fputs("<div class=\"scroll\"><table class=\"cmp\"", f);
	if (id)
		fprintf(f, " id=\"%s\"", id);
	fputs("><thead><tr><th>metric</th>", f);
	for (size_t o = 0; o < t->nops; o++) {
		if (o == t->baseline)
			continue;
		fputs("<th class=\"vd\">", f);
		esc(f, t->ops[o].name);
		fputs(" vs ", f);
		esc(f, base);
		fputs("</th>", f);
	}
	for (size_t o = 0; o < t->nops; o++) {
		fputs("<th>", f);
		esc(f, t->ops[o].name);
		fputs(o == t->baseline ? " (baseline)</th>" : "</th>", f);
	}
	fputs("</tr></thead><tbody>\n", f);
	for (size_t i = 0; i < n; i++) {
		const struct cmp_row *r = &t->rows[rows[i]];
		char p[512];

		cmp_row_params(r, p, sizeof(p));
		fputs("<tr><td class=\"what\">", f);
		esc(f, r->suite);
		fputc('.', f);
		esc(f, r->test);
		fputs(" <b>", f);
		esc(f, r->metric);
		fputs("</b><br><small>", f);
		if (*p) {
			esc(f, p);
			fputs("; ", f);
		}
		esc(f, r->unit);
		fprintf(f, ", %s is better</small></td>", r->higher_better ? "higher" : "lower");
		for (size_t o = 0; o < t->nops; o++)
			if (o != t->baseline)
				verdict_cell(f, t, r, o);
		for (size_t o = 0; o < t->nops; o++)
			value_cell(f, t, r, li ? latency_of(li, t, r) : NULL, o);
		fputs("</tr>\n", f);
	}
	fputs("</tbody></table></div>\n", f);
}

/* The selected rows: those every operand has in a table, those some lack in
 * a collapsed section of their own below it. */
static void tables(FILE *f, const struct cmp_table *t, const struct latency_index *li, bool all, const char *id)
{
	size_t *rows = calloc(t->nrows ? t->nrows : 1, sizeof(*rows)), n = 0, k;

	if (!rows)
		return;
	for (size_t i = 0; i < t->nrows; i++)
		if ((all || t->rows[i].headline) && cmp_row_complete(t, &t->rows[i]))
			rows[n++] = i;
	table(f, t, li, rows, n, id);
	k = n;
	n = 0;
	for (size_t i = 0; i < t->nrows; i++)
		if ((all || t->rows[i].headline) && !cmp_row_complete(t, &t->rows[i]))
			rows[n++] = i;
	if (n) {
		fprintf(f, "<details class=\"onesided\"><summary>%zu metric%s measured in only some of the operands%s</summary>\n",
			n, n == 1 ? "" : "s", k ? "" : " (all of them)");
		table(f, t, li, rows, n, NULL);
		fputs("</details>\n", f);
	}
	free(rows);
}

/* compare's caveats (busy host, one run, fingerprints), a paragraph each. */
static void caveats(FILE *f, const struct cmp_table *t, const struct cmp_filter *flt)
{
	char *text = cmp_caveats_text(t, flt), *line, *save = NULL;

	if (!text)
		return;
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		fputs("<p class=\"caveat\">", f);
		esc(f, line);
		fputs("</p>\n", f);
	}
	free(text);
}

/* One sentence per operand: how many headline metrics are better, worse, the same. */
static void tally(FILE *f, const struct cmp_table *t)
{
	const struct cmp_filter headline = { .all = false };

	for (size_t o = 0; o < t->nops; o++) {
		struct cmp_tally n;

		if (o == t->baseline)
			continue;
		cmp_tally(t, &headline, o, &n);
		fputs("<p class=\"tally\"><b>", f);
		esc(f, t->ops[o].name);
		fputs("</b> against <b>", f);
		esc(f, t->ops[t->baseline].name);
		fprintf(f, "</b>: <span class=\"better\">%zu better</span>, <span class=\"worse\">%zu worse</span>, "
			   "<span class=\"same\">%zu the same</span> (within &plusmn;%g%%), %zu with no significant "
			   "difference",
			n.better, n.worse, n.same, t->margin_pct, n.inconclusive);
		if (n.untested)
			fprintf(f, ", %zu not tested (one run a side: run-to-run noise unknown)", n.untested);
		if (n.missing)
			fprintf(f, ", %zu measured on one side only", n.missing);
		fprintf(f, "; of %zu headline metric%s.</p>\n",
			n.better + n.worse + n.same + n.inconclusive + n.untested + n.missing,
			n.better + n.worse + n.same + n.inconclusive + n.untested + n.missing == 1 ? "" : "s");
	}
	caveats(f, t, &headline);
}

static const char **operand_names(const struct cmp_table *t)
{
	const char **names = calloc(t->nops ? t->nops : 1, sizeof(*names));

	for (size_t o = 0; names && o < t->nops; o++)
		names[o] = t->ops[o].name;
	return names;
}

/* The legend of a chart: only the operands with data in it, each in its own colour. */
struct legend {
	const char **names;
	int *colors, n;
};

static int legend_init(struct legend *l, const struct cmp_table *t)
{
	l->n = 0;
	l->names = calloc(t->nops ? t->nops : 1, sizeof(*l->names));
	l->colors = calloc(t->nops ? t->nops : 1, sizeof(*l->colors));
	return l->names && l->colors ? 0 : -ENOMEM;
}

static void legend_add(struct legend *l, const struct cmp_table *t, size_t o)
{
	l->names[l->n] = t->ops[o].name;
	l->colors[l->n++] = (int)o;
}

static void legend_release(struct legend *l)
{
	free(l->names);
	free(l->colors);
}

/* An axis of nanoseconds is labelled in s, ms or us; ytitle gets that unit. */
static void axis_title(struct svg_axis *y, const char *metric, const char *unit, char *buf, size_t len)
{
	static const struct {
		double div;
		const char *name;
	} scales[] = { { NSEC_PER_SEC, "s" }, { NSEC_PER_MSEC, "ms" }, { NSEC_PER_USEC, "us" } };

	y->div = 0;
	if (!strcmp(unit, "ns"))
		for (size_t i = 0; i < sizeof(scales) / sizeof(scales[0]); i++)
			if (y->hi >= scales[i].div) {
				y->div = scales[i].div;
				snprintf(buf, len, "%s (%s)", metric, scales[i].name);
				return;
			}
	snprintf(buf, len, "%s (%s)", metric, unit);
}

static void figure(FILE *f, char *svg, const char *caption)
{
	if (!svg)
		return;
	fputs("<figure>", f);
	fputs(svg, f);
	fputs("<figcaption>", f);
	esc(f, caption);
	fputs("</figcaption></figure>\n", f);
	free(svg);
}

/* The parameters whose value is not the same in every row of a group (a
 * parameter some rows lack varies too): an object of key -> true. One pass
 * over the group, so that labelling n cases costs O(n), not O(n^2). */
static json_t *varying_keys(const struct cmp_table *t, const size_t *rows, size_t n)
{
	json_t *first = json_object(), *count = json_object(), *vary = json_object();
	const char *k;
	json_t *v;

	if (!first || !count || !vary)
		goto fail;
	for (size_t i = 0; i < n; i++)
		json_object_foreach((json_t *)t->rows[rows[i]].pobj, k, v) {
			json_t *f0 = json_object_get(first, k);

			if (!f0) {
				if (json_object_set(first, k, v) < 0 || json_object_set_new(count, k, json_integer(1)) < 0)
					goto fail;
				continue;
			}
			if (!json_equal(f0, v) && json_object_set_new(vary, k, json_true()) < 0)
				goto fail;
			json_integer_set(json_object_get(count, k), json_integer_value(json_object_get(count, k)) + 1);
		}
	json_object_foreach(count, k, v)
		if ((size_t)json_integer_value(v) < n && json_object_set_new(vary, k, json_true()) < 0)
			goto fail;
	json_decref(first);
	json_decref(count);
	return vary;
fail:
	json_decref(first);
	json_decref(count);
	json_decref(vary);
	return NULL;
}

/* The label of a case: only the parameters that differ between the cases. */
static char *varying_label(const struct cmp_row *r, const json_t *vary)
{
	char *out = calloc(1, 40);
	const char *k;
	json_t *v;
	size_t off = 0;

	if (!out)
		return NULL;
	json_object_foreach((json_t *)r->pobj, k, v) {
		char val[40];
		int w;

		if (!json_object_get(vary, k))
			continue;
		text_json_value(v, val, sizeof(val));
		w = snprintf(out + off, 40 - off, "%s%s=%s", off ? " " : "", k, val);
		if (w > 0 && (size_t)w < 40 - off)
			off += (size_t)w;
		else
			out[off] = '\0';
	}
	if (!*out)
		snprintf(out, 40, "all cases");
	return out;
}

static bool drawable(const struct cmp_cell *c)
{
	return c->n && isfinite(c->sum.mean) && isfinite(c->sum.ci95_low) && isfinite(c->sum.ci95_high);
}

/* The low end of the 95% CI a chart draws: clipped at zero for a rate or a
 * size, where a wide interval of few samples reaches below what the metric
 * can be (the tables keep the interval as computed). */
static double ci_low_drawn(const struct cmp_cell *c, bool nonnegative)
{
	return nonnegative ? fmax(c->sum.ci95_low, 0) : c->sum.ci95_low;
}

/* Bars of every case of a (suite, test, metric), one per operand, with the 95% CI. */
static void bar_chart(FILE *f, const struct cmp_table *t, const size_t *rows, size_t n, const json_t *vary)
{
	const struct cmp_row *r0 = &t->rows[rows[0]];
	struct svg_axis x = { .lo = 0, .hi = 1, .p0 = 70, .p1 = 500 }, y = { .lo = INFINITY, .hi = -INFINITY, .p0 = 250, .p1 = 20 };
	const char **labels = calloc(n, sizeof(*labels));
	char **owned = calloc(n, sizeof(*owned)), title[256], ytitle[96], nums[8][4], key[512] = "", caption[800];
	const char *nums_p[8] = { nums[0], nums[1], nums[2], nums[3], nums[4], nums[5], nums[6], nums[7] };
	double slot = (x.p1 - x.p0) / (double)n, bw = slot * 0.8 / (double)t->nops;
	bool numbered = false, nonneg = vmb_unit_nonnegative(r0->unit);
	size_t off = 0;
	struct legend lg;
	struct svg s;

	if (legend_init(&lg, t) < 0 || !labels || !owned)
		goto out;
	for (size_t o = 0; o < t->nops; o++) {
		bool any = false;

		for (size_t i = 0; i < n; i++) {
			const struct cmp_cell *c = &t->rows[rows[i]].cells[o];

			if (!drawable(c))
				continue;
			any = true;
			y.lo = fmin(y.lo, fmin(c->sum.mean, ci_low_drawn(c, nonneg)));
			y.hi = fmax(y.hi, fmax(c->sum.mean, c->sum.ci95_high));
		}
		if (any)
			legend_add(&lg, t, o);
	}
	if (!isfinite(y.lo))
		goto out;
	svg_axis_nice(&y, true);
	snprintf(title, sizeof(title), "%s.%s %s", r0->suite, r0->test, r0->metric);
	axis_title(&y, r0->metric, r0->unit, ytitle, sizeof(ytitle));
	svg_begin(&s, 520, 300 + 18 * lg.n, title);
	for (size_t i = 0; i < n; i++) {
		owned[i] = varying_label(&t->rows[rows[i]], vary);
		labels[i] = owned[i] ? owned[i] : "";
	}
	/* labels wider than their slot overlap: numbers under the bars, the labels in the caption */
	for (size_t i = 0; i < n && n <= 8; i++)
		numbered |= (double)strlen(labels[i]) * 6.2 > slot;
	for (size_t i = 0; numbered && i < n; i++) {
		snprintf(nums[i], sizeof(nums[i]), "%zu", i + 1);
		str_appendf(key, sizeof(key), &off, "%s%zu = %s", i ? "; " : " (", i + 1, labels[i]);
	}
	if (numbered)
		str_appendf(key, sizeof(key), &off, ")");
	svg_axes(&s, &x, &y, NULL, ytitle, n > 8 ? NULL : numbered ? nums_p : labels, n <= 8 ? (int)n : 0);
	for (size_t i = 0; i < n; i++)
		for (size_t o = 0; o < t->nops; o++) {
			const struct cmp_cell *c = &t->rows[rows[i]].cells[o];
			double bx = x.p0 + slot * (double)i + slot * 0.1 + bw * (double)o;
			char tip[160], val[48];

			if (!drawable(c))
				continue;
			text_format_value(c->sum.mean, r0->unit, val, sizeof(val));
			snprintf(tip, sizeof(tip), "%s, %s: %s", t->ops[o].name, labels[i], val);
			svg_bar(&s, bx, bw, svg_map(&y, y.lo), svg_map(&y, c->sum.mean), (int)o, tip);
			if (c->n > 1)
				svg_errorbar(&s, bx + bw / 2, svg_map(&y, fmax(ci_low_drawn(c, nonneg), y.lo)),
					     svg_map(&y, c->sum.ci95_high));
		}
	svg_legend_colored(&s, 80, 300, lg.names, lg.colors, lg.n);
	snprintf(caption, sizeof(caption), "%s.%s %s: mean with 95%% confidence interval, per case%s", r0->suite,
		 r0->test, r0->metric, numbered ? key : "");
	figure(f, svg_end(&s), caption);
out:
	for (size_t i = 0; owned && i < n; i++)
		free(owned[i]);
	free(owned);
	free(labels);
	legend_release(&lg);
}

/* The one numeric parameter that varies across these rows, if exactly one does. */
static bool sweep_param(const struct cmp_table *t, const size_t *rows, size_t n, const json_t *vary, char *key,
			size_t len)
{
	const char *k;
	json_t *v;

	if (n < 2 || json_object_size(vary) != 1)
		return false;
	json_object_foreach((json_t *)vary, k, v)
		snprintf(key, len, "%s", k);
	for (size_t i = 0; i < n; i++) {
		const json_t *p = json_object_get(t->rows[rows[i]].pobj, key);

		if (!json_is_number(p) || !isfinite(json_number_value(p)))
			return false;
	}
	return true;
}

static double param_of(const struct cmp_row *r, const char *key)
{
	return json_number_value(json_object_get(r->pobj, key));
}

/* Marks a suite declares for a swept parameter: its notes' "marks_KEY" is
 * "NAME=VALUE,..." in the parameter's unit (the memory suite's cache sizes
 * on its latency curve). Each mark inside the x range is a dashed vertical
 * line with its name; the first operand that declares them is used. */
static void curve_marks(struct svg *s, const struct cmp_table *t, const struct cmp_row *r0, const char *key,
			const struct svg_axis *x, const struct svg_axis *y)
{
	char note[80];

	snprintf(note, sizeof(note), "marks_%s", key);
	for (size_t o = 0; o < t->nops; o++) {
		size_t d, si;
		json_t *doc, *suite;

		json_array_foreach(t->ops[o].docs, d, doc)
			json_array_foreach(json_object_get(doc, "suites"), si, suite) {
				const char *list = json_string_value(json_object_get(json_object_get(suite, "notes"), note));
				const char *name = json_string_value(json_object_get(suite, "name"));
				int drawn = 0;

				if (!list || !name || strcmp(name, r0->suite))
					continue;
				for (const char *p = list; *p && drawn < 8; p += strcspn(p, ","), p += *p == ',') {
					const char *eq = memchr(p, '=', strcspn(p, ","));
					char label[32], *end;
					double v, px;

					if (!eq)
						continue;
					v = strtod(eq + 1, &end);
					if (end == eq + 1 || !isfinite(v) || v <= 0 || v < x->lo || v > x->hi)
						continue;
					snprintf(label, sizeof(label), "%.*s", (int)(eq - p), p);
					px = svg_map(x, v);
					svg_printf(s, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#999\" "
						      "stroke-dasharray=\"4 3\"/>",
						   px, y->p0, px, y->p1);
					svg_text(s, px + 3, y->p1 + 10 + 11 * (drawn % 3), "start", 10, label);
					drawn++;
				}
				return;
			}
	}
}

/* Curves: the metric against the swept parameter (IOPS vs queue depth, rate vs threads). */
static void curve_chart(FILE *f, const struct cmp_table *t, const size_t *rows, size_t n, const char *key)
{
	const struct cmp_row *r0 = &t->rows[rows[0]];
	struct svg_axis x = { .lo = INFINITY, .hi = -INFINITY, .p0 = 70, .p1 = 500 },
			y = { .lo = INFINITY, .hi = -INFINITY, .p0 = 250, .p1 = 20 };
	double *xs = calloc(n, sizeof(*xs)), *ys = calloc(n, sizeof(*ys));
	char title[256], ytitle[96], caption[160];
	struct legend lg;
	struct svg s;

	if (legend_init(&lg, t) < 0 || !xs || !ys)
		goto out;
	for (size_t i = 0; i < n; i++) {
		double p = param_of(&t->rows[rows[i]], key);

		x.lo = fmin(x.lo, p);
		x.hi = fmax(x.hi, p);
	}
	for (size_t o = 0; o < t->nops; o++) {
		bool any = false;

		for (size_t i = 0; i < n; i++)
			if (drawable(&t->rows[rows[i]].cells[o])) {
				any = true;
				y.lo = fmin(y.lo, t->rows[rows[i]].cells[o].sum.mean);
				y.hi = fmax(y.hi, t->rows[rows[i]].cells[o].sum.mean);
			}
		if (any)
			legend_add(&lg, t, o);
	}
	if (!isfinite(y.lo) || x.hi <= x.lo)
		goto out;
	x.log = x.lo > 0 && x.hi / x.lo >= 8;
	if (!x.log)
		svg_axis_nice(&x, false);
	svg_axis_nice(&y, true);
	snprintf(title, sizeof(title), "%s.%s %s vs %s", r0->suite, r0->test, r0->metric, key);
	axis_title(&y, r0->metric, r0->unit, ytitle, sizeof(ytitle));
	svg_begin(&s, 520, 300 + 18 * lg.n, title);
	svg_axes(&s, &x, &y, key, ytitle, NULL, 0);
	curve_marks(&s, t, r0, key, &x, &y);
	for (size_t o = 0; o < t->nops; o++) {
		int k = 0;

		for (size_t i = 0; i < n; i++) {
			const struct cmp_cell *c = &t->rows[rows[i]].cells[o];

			if (!drawable(c))
				continue;
			xs[k] = svg_map(&x, param_of(&t->rows[rows[i]], key));
			ys[k] = svg_map(&y, c->sum.mean);
			k++;
		}
		if (k)
			svg_line(&s, xs, ys, k, (int)o, t->ops[o].name);
	}
	svg_legend_colored(&s, 80, 300, lg.names, lg.colors, lg.n);
	snprintf(caption, sizeof(caption), "mean per %s%s", key, x.log ? " (log scale)" : "");
	figure(f, svg_end(&s), caption);
out:
	free(xs);
	free(ys);
	legend_release(&lg);
}

/* A histogram's value at keys[k] (a percentile, or "max"), or NAN. */
static double hist_value(const json_t *h, const char *key)
{
	const json_t *v = strcmp(key, "max") ? json_object_get(json_object_get(h, "percentiles"), key)
					     : json_object_get(h, "max");

	return json_is_number(v) && isfinite(json_number_value(v)) ? json_number_value(v) : NAN;
}

/* Latency percentiles on a log axis: p50 .. p99.99 and max, equally spaced
 * (the usual "nines" axis), one line per operand. */
static void latency_chart(FILE *f, const struct cmp_table *t, const struct cmp_row *r)
{
	static const char *const keys[] = { "p50", "p90", "p99", "p99.9", "p99.99", "max" };
	const int nk = 6;
	struct svg_axis x = { .lo = 0, .hi = 1, .p0 = 70, .p1 = 500 }, y = { .lo = INFINITY, .hi = -INFINITY, .log = true,
									      .p0 = 250, .p1 = 20 };
	char title[256], p[256], caption[320], ytitle[64];
	double xs[6], ys[6];
	struct legend lg;
	struct svg s;

	if (legend_init(&lg, t) < 0)
		goto out;
	for (size_t o = 0; o < t->nops; o++) {
		bool any = false;

		for (int k = 0; k < nk && r->cells[o].hist; k++) {
			double v = hist_value(r->cells[o].hist, keys[k]);

			if (v > 0) {
				any = true;
				y.lo = fmin(y.lo, v);
				y.hi = fmax(y.hi, v);
			}
		}
		if (any)
			legend_add(&lg, t, o);
	}
	if (!isfinite(y.lo))
		goto out;
	svg_axis_nice(&y, false);
	cmp_row_params(r, p, sizeof(p));
	snprintf(title, sizeof(title), "%s.%s %s percentiles", r->suite, r->test, r->metric);
	svg_begin(&s, 520, 300 + 18 * lg.n, title);
	axis_title(&y, "latency", "ns", ytitle, sizeof(ytitle));
	svg_axes(&s, &x, &y, "percentile", ytitle, keys, nk);
	for (size_t o = 0; o < t->nops; o++) {
		const json_t *h = r->cells[o].hist;
		int k = 0;

		for (int i = 0; i < nk && h; i++) {
			double v = hist_value(h, keys[i]);

			if (!(v > 0))
				continue;
			xs[k] = x.p0 + (x.p1 - x.p0) / nk * (i + 0.5);
			ys[k] = svg_map(&y, v);
			k++;
		}
		if (k)
			svg_line(&s, xs, ys, k, (int)o, t->ops[o].name);
	}
	svg_legend_colored(&s, 80, 300, lg.names, lg.colors, lg.n);
	snprintf(caption, sizeof(caption), "%s.%s %s: latency percentiles (log scale; first run of each operand)",
		 r->suite, r->test, p);
	figure(f, svg_end(&s), caption);
out:
	legend_release(&lg);
}

/* Where a row's metric stands among the stacked phases its suite declares:
 * a suite result's notes.phases names them in order ("phase_firmware,
 * phase_kernel,phase_agent"), in any operand's documents. -1: not a phase.
 * Documents stored before suites declared their phases: the boot suite's
 * phase_* metrics, in the order of the rows. */
static int phase_index(const struct cmp_table *t, const struct cmp_row *r)
{
	bool declared = false;

	for (size_t o = 0; o < t->nops; o++) {
		size_t d, s;
		json_t *doc, *suite;

		json_array_foreach(t->ops[o].docs, d, doc)
			json_array_foreach(json_object_get(doc, "suites"), s, suite) {
				const char *list = json_string_value(json_object_get(json_object_get(suite, "notes"), "phases"));
				const char *name = json_string_value(json_object_get(suite, "name"));
				size_t ml = strlen(r->metric);
				int i = 0;

				if (!list || !name || strcmp(name, r->suite))
					continue;
				declared = true;
				for (const char *p = list; *p; p += strcspn(p, ","), p += *p == ',', i++)
					if (strcspn(p, ",") == ml && !strncmp(p, r->metric, ml))
						return i;
			}
	}
	if (!declared && !strcmp(r->suite, "boot") && !strncmp(r->metric, "phase_", 6))
		return 0;
	return -1;
}

/* Boot phases: one stacked bar per operand, a segment per phase_* metric in
 * the order the suite reported them (rows of one test and params). */
static void phase_chart(FILE *f, const struct cmp_table *t, const size_t *rows, size_t n)
{
	const struct cmp_row *r0 = &t->rows[rows[0]];
	struct svg_axis x = { .lo = 0, .hi = 1, .p0 = 70, .p1 = 500 }, y = { .lo = 0, .hi = 0, .p0 = 250, .p1 = 20 };
	const char **names = operand_names(t), **phases = calloc(n, sizeof(*phases));
	size_t *ops = calloc(t->nops ? t->nops : 1, sizeof(*ops)), nops = 0, keyoff = 0;
	char title[256], ytitle[64], p[256], key[2048] = "", caption[2600];
	char (*nums)[24] = calloc(t->nops ? t->nops : 1, sizeof(*nums)); /* one number per operand, however many */
	bool numbered = false;
	double slot;
	struct svg s;

	if (!names || !phases || !ops || !nums)
		goto out;
	/* the operands that booted (the host baseline has no boot phases) */
	for (size_t o = 0; o < t->nops; o++) {
		double sum = 0;

		for (size_t i = 0; i < n; i++)
			sum += t->rows[rows[i]].cells[o].n ? t->rows[rows[i]].cells[o].sum.mean : 0;
		if (sum > 0)
			ops[nops++] = o;
		y.hi = fmax(y.hi, sum);
	}
	if (y.hi <= 0 || !nops)
		goto out;
	slot = (x.p1 - x.p0) / (double)nops;
	svg_axis_nice(&y, true);
	for (size_t i = 0; i < n; i++)
		phases[i] = t->rows[rows[i]].metric + (strncmp(t->rows[rows[i]].metric, "phase_", 6) ? 0 : 6);
	cmp_params_text(r0->params, p, sizeof(p));
	snprintf(title, sizeof(title), "%s.%s phases", r0->suite, r0->test);
	axis_title(&y, "time", r0->unit, ytitle, sizeof(ytitle));
	svg_begin(&s, 520, 300 + 18 * (int)n, title);
	for (size_t k = 0; k < nops; k++) {
		names[k] = t->ops[ops[k]].name;
		/* a name that does not fit under its bar: numbers, named in the caption */
		numbered |= strlen(names[k]) * 6.5 > slot;
	}
	for (size_t k = 0; numbered && k < nops; k++) {
		snprintf(nums[k], sizeof(nums[k]), "%zu", k + 1);
		str_appendf(key, sizeof(key), &keyoff, "%s%zu = %s", k ? "; " : " (", k + 1, names[k]);
		names[k] = nums[k];
	}
	if (numbered)
		str_appendf(key, sizeof(key), &keyoff, ")");
	svg_axes(&s, &x, &y, NULL, ytitle, names, (int)nops);
	for (size_t k = 0; k < nops; k++) {
		double base = 0;

		for (size_t i = 0; i < n; i++) {
			const struct cmp_cell *c = &t->rows[rows[i]].cells[ops[k]];
			char tip[160], val[48];

			if (!c->n)
				continue;
			text_format_value(c->sum.mean, r0->unit, val, sizeof(val));
			snprintf(tip, sizeof(tip), "%s, %s: %s", t->ops[ops[k]].name, phases[i], val);
			svg_printf(&s, "<g class=\"stack\">");
			svg_bar(&s, x.p0 + slot * (double)k + slot * 0.2, slot * 0.6, svg_map(&y, base),
				svg_map(&y, base + c->sum.mean), (int)i, tip);
			svg_printf(&s, "</g>");
			base += c->sum.mean;
		}
	}
	svg_legend(&s, 80, 300, phases, (int)n);
	snprintf(caption, sizeof(caption), "%s.%s%s%s: time in each phase, stacked (means)%s", r0->suite, r0->test,
		 *p ? " " : "", p, numbered ? key : "");
	figure(f, svg_end(&s), caption);
out:
	free(names);
	free(phases);
	free(ops);
	free(nums);
}

/* Grouping of rows by a key without comparing every row with every other:
 * sort row numbers by (key, row), then order the groups by their first row,
 * so that charts come in the order the documents list them. */
struct group {
	size_t start, n;
};

typedef int (*row_cmp)(const struct cmp_row *a, const struct cmp_row *b);

static const struct cmp_table *sort_table;
static row_cmp sort_key;

static int by_key_then_row(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	int c = sort_key(&sort_table->rows[x], &sort_table->rows[y]);

	return c ? c : (x > y) - (x < y);
}

static const size_t *sort_rows;

static int by_first_row(const void *a, const void *b)
{
	size_t x = sort_rows[((const struct group *)a)->start], y = sort_rows[((const struct group *)b)->start];

	return (x > y) - (x < y);
}

/* rows[0..n) sorted into groups of equal key; *groups allocated, *ngroups set. */
static int group_rows(const struct cmp_table *t, size_t *rows, size_t n, row_cmp key, struct group **groups,
		      size_t *ngroups)
{
	struct group *g = calloc(n ? n : 1, sizeof(*g));
	size_t k = 0;

	if (!g)
		return -ENOMEM;
	sort_table = t, sort_key = key;
	qsort(rows, n, sizeof(*rows), by_key_then_row);
	for (size_t i = 0; i < n; i++) {
		if (!i || key(&t->rows[rows[i - 1]], &t->rows[rows[i]]))
			g[k++] = (struct group){ .start = i };
		g[k - 1].n++;
	}
	sort_rows = rows;
	qsort(g, k, sizeof(*g), by_first_row);
	*groups = g;
	*ngroups = k;
	return 0;
}

static int same_chart(const struct cmp_row *a, const struct cmp_row *b)
{
	int c = strcmp(a->suite, b->suite);

	if (!c)
		c = strcmp(a->test, b->test);
	return c ? c : strcmp(a->metric, b->metric);
}

static int same_phases(const struct cmp_row *a, const struct cmp_row *b)
{
	int c = strcmp(a->suite, b->suite);

	if (!c)
		c = strcmp(a->test, b->test);
	return c ? c : strcmp(a->params, b->params);
}

static void charts(FILE *f, const struct cmp_table *t)
{
	size_t *rows = calloc(t->nrows ? t->nrows : 1, sizeof(*rows)), n = 0, ng = 0;
	struct group *g = NULL;
	int nlat = 0;

	if (!rows)
		goto out;
	fputs("<h2>Charts</h2>\n<div class=\"charts\">\n", f);
	/* headline rows by (suite, test, metric) */
	for (size_t i = 0; i < t->nrows; i++)
		if (t->rows[i].headline)
			rows[n++] = i;
	if (group_rows(t, rows, n, same_chart, &g, &ng) < 0)
		goto out;
	for (size_t k = 0; k < ng; k++) {
		size_t *gr = rows + g[k].start;
		json_t *vary = varying_keys(t, gr, g[k].n);
		char key[64];

		if (!vary)
			continue;
		/* a curve says more than bars from three points on */
		if (g[k].n >= 3 && sweep_param(t, gr, g[k].n, vary, key, sizeof(key)))
			curve_chart(f, t, gr, g[k].n, key);
		bar_chart(f, t, gr, g[k].n, vary);
		json_decref(vary);
	}
	free(g);
	g = NULL;
	/* declared phases, stacked, per (suite, test, params), in their declared order */
	n = 0;
	for (size_t i = 0; i < t->nrows; i++)
		if (phase_index(t, &t->rows[i]) >= 0)
			rows[n++] = i;
	if (group_rows(t, rows, n, same_phases, &g, &ng) < 0)
		goto out;
	for (size_t k = 0; k < ng; k++) {
		size_t *gr = rows + g[k].start;

		/* a few rows each: insertion by declared position, equal ones in row order */
		for (size_t a = 1; a < g[k].n; a++)
			for (size_t b = a; b > 0 && phase_index(t, &t->rows[gr[b - 1]]) > phase_index(t, &t->rows[gr[b]]);
			     b--) {
				size_t x = gr[b];

				gr[b] = gr[b - 1];
				gr[b - 1] = x;
			}
		phase_chart(f, t, gr, g[k].n);
	}
	fputs("</div>\n<h2>Latency percentiles</h2>\n<div class=\"charts\">\n", f);
	for (size_t i = 0; i < t->nrows && nlat < HTML_MAX_LATENCY_CHARTS; i++)
		if (has_hist(t, &t->rows[i])) {
			latency_chart(f, t, &t->rows[i]);
			nlat++;
		}
	fputs("</div>\n", f);
	if (nlat == HTML_MAX_LATENCY_CHARTS)
		fprintf(f, "<p>The first %d latency distributions are drawn; the tables have all of them.</p>\n", nlat);
out:
	free(g);
	free(rows);
}

static void fact(FILE *f, const char *k, const json_t *v)
{
	char *s = NULL;

	fputs("<tr><th>", f);
	esc(f, k);
	fputs("</th><td style=\"text-align:left;white-space:normal\">", f);
	if (json_is_string(v))
		esc(f, json_string_value(v));
	else if (v && !json_is_null(v) && (s = json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT)))
		esc(f, s);
	else
		fputs("-", f);
	free(s);
	fputs("</td></tr>\n", f);
}

/* What a run says about its suites: their notes, and what did not run and why. */
static void suite_facts(FILE *f, const json_t *doc)
{
	const json_t *s, *t;
	size_t i, j;
	char key[160];

	json_array_foreach(json_object_get(doc, "suites"), i, s) {
		const char *sn = json_string_value(json_object_get(s, "name")) ?: "?";
		const char *st = json_string_value(json_object_get(s, "status")) ?: "?";

		if (json_object_size(json_object_get(s, "notes"))) {
			snprintf(key, sizeof(key), "%s notes", sn);
			fact(f, key, json_object_get(s, "notes"));
		}
		if (strcmp(st, "ok")) {
			snprintf(key, sizeof(key), "%s %s", sn, st);
			fact(f, key, json_object_get(s, "reason"));
		}
		json_array_foreach(json_object_get(s, "tests"), j, t) {
			const char *ts = json_string_value(json_object_get(t, "status")) ?: "?";

			if (!strcmp(ts, "ok"))
				continue;
			snprintf(key, sizeof(key), "%s.%s %s", sn, json_string_value(json_object_get(t, "name")) ?: "?", ts);
			fact(f, key, json_object_get(t, "reason"));
		}
	}
}

static void fingerprints(FILE *f, const struct cmp_table *t)
{
	fputs("<h2>Environments</h2>\n", f);
	for (size_t o = 0; o < t->nops; o++) {
		size_t i;
		json_t *doc;

		json_array_foreach(t->ops[o].docs, i, doc) {
			const json_t *fp = json_object_get(doc, "fingerprint"), *hv = json_object_get(fp, "hypervisor");

			fputs("<details><summary>", f);
			esc(f, t->ops[o].name);
			fputs(": ", f);
			esc(f, json_string_value(json_object_get(fp, "hostname")));
			fputs(", ", f);
			esc(f, json_string_value(json_object_get(hv, "name")));
			fputs(", ", f);
			esc(f, json_string_value(json_object_get(doc, "started")));
			fputs("</summary><div class=\"scroll\"><table>\n", f);
			fact(f, "labels", json_object_get(doc, "labels"));
			fact(f, "hypervisor", hv);
			fact(f, "container", json_object_get(fp, "container"));
			fact(f, "cpu", json_object_get(json_object_get(fp, "cpu"), "model"));
			fact(f, "cpu topology", json_object_get(fp, "cpu"));
			fact(f, "memory", json_object_get(fp, "memory"));
			fact(f, "kernel", json_object_get(json_object_get(fp, "kernel"), "release"));
			fact(f, "clocksource", json_object_get(fp, "clocksource"));
			fact(f, "thp", json_object_get(fp, "thp"));
			fact(f, "block devices", json_object_get(fp, "block_devices"));
			fact(f, "network", json_object_get(fp, "network"));
			fact(f, "balloon", json_object_get(fp, "balloon"));
			fact(f, "steal", json_object_get(fp, "steal"));
			suite_facts(f, doc);
			fputs("</table></div></details>\n", f);
		}
	}
}

int html_report(FILE *f, const struct cmp_table *t, const char *title)
{
	struct latency_index li;

	if (latency_index_build(t, &li) < 0)
		return -ENOMEM;
	fputs("<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
	      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"><title>", f);
	esc(f, title);
	fprintf(f, "</title><style>%s</style></head><body>\n<h1>", css);
	esc(f, title);
	fputs("</h1>\n", f);
	tally(f, t);
	fputs("<p>", f);
	for (size_t o = 0; o < t->nops; o++) {
		fputs(o ? ", " : "Compared: ", f);
		esc(f, t->ops[o].name);
		fprintf(f, " (%zu run%s%s)", json_array_size(t->ops[o].docs), json_array_size(t->ops[o].docs) == 1 ? "" : "s",
			o == t->baseline ? ", baseline" : "");
	}
	fputs(". Each value is the mean over repetitions with its 95% confidence interval; a difference is "
	      "significant when the 95% interval of the difference of means (Welch) excludes zero.</p>\n"
	      "<h2>Summary</h2>\n", f);
	tables(f, t, &li, false, "summary");
	charts(f, t);
	fputs("<h2>All metrics</h2>\n<details><summary>every metric of every case</summary>\n", f);
	tables(f, t, NULL, true, "all");
	fputs("</details>\n", f);
	fingerprints(f, t);
	fputs("</body></html>\n", f);
	free(li.rows);
	return ferror(f) ? -EIO : 0;
}
