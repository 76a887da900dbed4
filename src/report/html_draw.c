/* The HTML report's chart kinds, drawn as inline SVG: bars with their 95% CI
 * per case, curves over a swept parameter, latency percentiles on a log
 * axis; and the legend, axis and caption helpers they share. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "html.h"
#include "html_draw.h"
#include "svg.h"
#include "text.h"
#include "../core/clock.h"
#include "../core/str.h"
#include "../core/unit.h"
#include "../core/banned.h"

const char **html_operand_names(const struct cmp_table *t)
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
void html_axis_title(struct svg_axis *y, const char *metric, const char *unit, char *buf, size_t len)
{
	static const struct {
		double div;
		const char *name;
	} scales[] = { { NSEC_PER_SEC, "s" }, { NSEC_PER_MSEC, "ms" }, { NSEC_PER_USEC, "us" } };
	char label[40];

	y->div = 0;
	if (!strcmp(unit, "ns"))
		for (size_t i = 0; i < sizeof(scales) / sizeof(scales[0]); i++)
			if (y->hi >= scales[i].div) {
				y->div = scales[i].div;
				snprintf(buf, len, "%s (%s)", metric, scales[i].name);
				return;
			}
	text_unit_label(metric, unit, label, sizeof(label));
	snprintf(buf, len, "%s (%s)", metric, label);
}

void html_figure(FILE *f, char *svg, const char *caption)
{
	if (!svg)
		return;
	fputs("<figure>", f);
	fputs(svg, f);
	fputs("<figcaption>", f);
	html_esc(f, caption);
	fputs("</figcaption></figure>\n", f);
	free(svg);
}

/* The parameters whose value is not the same in every row of a group (a
 * parameter some rows lack varies too): an object of key -> true. One pass
 * over the group, so that labelling n cases costs O(n), not O(n^2). */
json_t *html_varying_keys(const struct cmp_table *t, const size_t *rows, size_t n)
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
	return c->n && isfinite(c->fig.mean) && isfinite(c->fig.ci95_low) && isfinite(c->fig.ci95_high);
}

/* The low end of the 95% CI a chart draws: clipped at zero for a rate or a
 * size, where a wide interval of few samples reaches below what the metric
 * can be (the tables keep the interval as computed). */
static double ci_low_drawn(const struct cmp_cell *c, bool nonnegative)
{
	return nonnegative ? fmax(c->fig.ci95_low, 0) : c->fig.ci95_low;
}

/* Whether operand o's values set the scale of a chart of these rows: an
 * operand aside (the lab's host) does not when another operand has data
 * there, so that a host 20 times faster does not flatten the guests' bars
 * into the axis; its values are drawn at the edge, marked (offscale_mark). */
static bool sets_scale(const struct cmp_table *t, const size_t *rows, size_t n, size_t o)
{
	if (!t->ops[o].aside)
		return true;
	for (size_t k = 0; k < t->nops; k++)
		for (size_t i = 0; !t->ops[k].aside && i < n; i++)
			if (drawable(&t->rows[rows[i]].cells[k]))
				return false;
	return true;
}

/* v on the axis, or its edge when v is beyond it; *off says which edge (+1 top, -1 bottom, 0 none). */
static double clamp_to_axis(const struct svg_axis *y, double v, int *off)
{
	*off = v > y->hi ? 1 : v < y->lo ? -1 : 0;
	return *off > 0 ? y->hi : *off < 0 ? y->lo : v;
}

/* The mark of a value beyond the axis at x: an arrow and the value, at the
 * edge it passed, with a break across what reaches that edge. */
static void offscale_mark(struct svg *s, const struct svg_axis *y, double x, double w, int off, const char *name,
			  const char *val)
{
	char label[96];
	double edge = off > 0 ? y->p1 : y->p0;

	snprintf(label, sizeof(label), "%s %s", off > 0 ? "▲" : "▼", val);
	if (w > 0)
		svg_printf(s, "<path d=\"M%.1f %.1f l%.1f -5 M%.1f %.1f l%.1f -5\" stroke=\"#fff\" stroke-width=\"2\"/>",
			   x - 1, edge + 14, w + 2, x - 1, edge + 19, w + 2);
	svg_printf(s, "<text class=\"offscale-value\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" font-size=\"10\">",
		   x + w / 2, off > 0 ? edge - 4 : edge - 6);
	svg_escape(s, label);
	svg_printf(s, "<title>");
	svg_escape(s, name);
	svg_printf(s, ": ");
	svg_escape(s, val);
	svg_printf(s, ", off this chart's scale (drawn beside the others, not over them)</title></text>\n");
}

/* Labels wider than their slot overlap: then the bars get numbers (nums,
 * "1" to "8") and the labels go in the caption's key, " (1 = a; 2 = b)".
 * Whether they did; key is "" when not. */
static bool numbered_labels(const char *const *labels, size_t n, double slot, char nums[8][4], char *key,
			    size_t keylen)
{
	bool numbered = false;
	size_t off = 0;

	key[0] = '\0';
	for (size_t i = 0; i < n && n <= 8; i++)
		numbered |= (double)strlen(labels[i]) * 6.2 > slot;
	for (size_t i = 0; numbered && i < n; i++) {
		snprintf(nums[i], sizeof(nums[i]), "%zu", i + 1);
		str_appendf(key, keylen, &off, "%s%zu = %s", i ? "; " : " (", i + 1, labels[i]);
	}
	if (numbered)
		str_appendf(key, keylen, &off, ")");
	return numbered;
}

/* Bars of every case of a (suite, test, metric), one per operand, with the 95% CI. */
void html_bar_chart(FILE *f, const struct cmp_table *t, const size_t *rows, size_t n, const json_t *vary)
{
	const struct cmp_row *r0 = &t->rows[rows[0]];
	struct svg_axis x = { .lo = 0, .hi = 1, .p0 = 70, .p1 = 500 };
	struct svg_axis y = { .lo = INFINITY, .hi = -INFINITY, .p0 = 250, .p1 = 20 };
	const char **labels = calloc(n, sizeof(*labels));
	char **owned = calloc(n, sizeof(*owned)), title[256], ytitle[96], nums[8][4], key[512] = "", caption[800];
	const char *nums_p[8] = { nums[0], nums[1], nums[2], nums[3], nums[4], nums[5], nums[6], nums[7] };
	double slot = (x.p1 - x.p0) / (double)n, bw = slot * 0.8 / (double)t->nops;
	bool numbered, nonneg = vmb_unit_nonnegative(r0->unit);
	size_t offscale = 0;
	struct legend lg;
	struct svg s;

	if (legend_init(&lg, t) < 0 || !labels || !owned)
		goto out;
	for (size_t o = 0; o < t->nops; o++) {
		bool any = false, scale = sets_scale(t, rows, n, o);

		for (size_t i = 0; i < n; i++) {
			const struct cmp_cell *c = &t->rows[rows[i]].cells[o];

			if (!drawable(c))
				continue;
			any = true;
			if (!scale)
				continue;
			y.lo = fmin(y.lo, fmin(c->fig.mean, ci_low_drawn(c, nonneg)));
			y.hi = fmax(y.hi, fmax(c->fig.mean, c->fig.ci95_high));
		}
		if (any)
			legend_add(&lg, t, o);
	}
	if (!isfinite(y.lo))
		goto out;
	svg_axis_nice(&y, true);
	snprintf(title, sizeof(title), "%s.%s %s", r0->suite, r0->test, r0->metric);
	html_axis_title(&y, r0->metric, r0->unit, ytitle, sizeof(ytitle));
	svg_begin(&s, 520, 300 + 18 * lg.n, title);
	for (size_t i = 0; i < n; i++) {
		owned[i] = varying_label(&t->rows[rows[i]], vary);
		labels[i] = owned[i] ? owned[i] : "";
	}
	/* labels wider than their slot overlap: numbers under the bars, the labels in the caption */
	numbered = numbered_labels(labels, n, slot, nums, key, sizeof(key));
	svg_axes(&s, &x, &y, NULL, ytitle, n > 8 ? NULL : numbered ? nums_p : labels, n <= 8 ? (int)n : 0);
	for (size_t i = 0; i < n; i++)
		for (size_t o = 0; o < t->nops; o++) {
			const struct cmp_cell *c = &t->rows[rows[i]].cells[o];
			double bx = x.p0 + slot * (double)i + slot * 0.1 + bw * (double)o, top;
			char tip[160], val[48];
			int edge;

			if (!drawable(c))
				continue;
			text_format_metric(c->fig.mean, r0->metric, r0->unit, val, sizeof(val));
			snprintf(tip, sizeof(tip), "%s, %s: %s", t->ops[o].name, labels[i], val);
			top = clamp_to_axis(&y, c->fig.mean, &edge);
			if (edge) {
				svg_printf(&s, "<g class=\"offscale\">");
				svg_bar(&s, bx, bw, svg_map(&y, y.lo), svg_map(&y, top), (int)o, tip);
				offscale_mark(&s, &y, bx, bw, edge, t->ops[o].name, val);
				svg_printf(&s, "</g>\n");
				offscale++;
				continue;
			}
			svg_bar(&s, bx, bw, svg_map(&y, y.lo), svg_map(&y, c->fig.mean), (int)o, tip);
			if (c->n > 1)
				svg_errorbar(&s, bx + bw / 2, svg_map(&y, fmax(ci_low_drawn(c, nonneg), y.lo)),
					     svg_map(&y, fmin(c->fig.ci95_high, y.hi)));
		}
	svg_legend_colored(&s, 80, 300, lg.names, lg.colors, lg.n);
	snprintf(caption, sizeof(caption), "%s.%s %s: mean with 95%% confidence interval, per case%s%s", r0->suite,
		 r0->test, r0->metric, numbered ? key : "",
		 offscale ? "; a value off the scale (of an operand drawn beside the others, which sets no scale) is "
			    "written at the edge it passes" : "");
	html_figure(f, svg_end(&s), caption);
out:
	for (size_t i = 0; owned && i < n; i++)
		free(owned[i]);
	free(owned);
	free(labels);
	legend_release(&lg);
}

/* Named values in one unit (a study's column, a bar per row): the same
 * look as the comparison's bars, without a cmp_table. */
void html_bars(FILE *f, const char *title, const char *ytitle, const struct html_bar *bars, size_t n,
	       const char *caption)
{
	struct svg_axis x = { .lo = 0, .hi = 1, .p0 = 70, .p1 = 500 };
	struct svg_axis y = { .lo = INFINITY, .hi = -INFINITY, .p0 = 250, .p1 = 20 };
	const char **labels = calloc(n ? n : 1, sizeof(*labels));
	char nums[8][4], key[600] = "", full[1400];
	const char *nums_p[8] = { nums[0], nums[1], nums[2], nums[3], nums[4], nums[5], nums[6], nums[7] };
	double slot = (x.p1 - x.p0) / (double)(n ? n : 1), bw = slot * 0.7, lo_pos = INFINITY;
	bool numbered;
	struct svg s;

	if (!labels)
		return;
	for (size_t i = 0; i < n; i++) {
		labels[i] = bars[i].name;
		if (!isfinite(bars[i].v))
			continue;
		y.lo = fmin(y.lo, isfinite(bars[i].lo) ? fmin(bars[i].v, bars[i].lo) : bars[i].v);
		y.hi = fmax(y.hi, isfinite(bars[i].hi) ? fmax(bars[i].v, bars[i].hi) : bars[i].v);
		if (bars[i].v > 0)
			lo_pos = fmin(lo_pos, bars[i].v);
	}
	if (!isfinite(y.lo) || !isfinite(y.hi)) {
		free(labels);
		return;
	}
	/* a host 20 times a guest would flatten it into the axis: a log axis then */
	y.log = y.lo > 0 && y.hi / lo_pos > 20;
	svg_axis_nice(&y, true);
	numbered = numbered_labels(labels, n, slot, nums, key, sizeof(key));
	svg_begin(&s, 520, 290, title);
	svg_axes(&s, &x, &y, NULL, ytitle, n > 8 ? NULL : numbered ? nums_p : labels, n <= 8 ? (int)n : 0);
	for (size_t i = 0; i < n; i++) {
		double bx = x.p0 + slot * (double)i + slot * 0.15, base = y.log ? y.lo : fmax(y.lo, 0);
		char tip[300], val[32];

		if (!isfinite(bars[i].v))
			continue;
		svg_fmt_num(bars[i].v, val, sizeof(val));
		snprintf(tip, sizeof(tip), "%s: %s", bars[i].name, val);
		svg_bar(&s, bx, bw, svg_map(&y, base), svg_map(&y, fmax(bars[i].v, y.lo)), (int)(i % SVG_COLORS), tip);
		if (isfinite(bars[i].lo) && isfinite(bars[i].hi) && bars[i].hi > bars[i].lo)
			svg_errorbar(&s, bx + bw / 2, svg_map(&y, fmax(bars[i].lo, y.lo)), svg_map(&y, fmin(bars[i].hi, y.hi)));
	}
	snprintf(full, sizeof(full), "%s%s%s", caption, key, y.log ? "; a log axis: the values span more than 20x" : "");
	html_figure(f, svg_end(&s), full);
	free(labels);
}

/* The one numeric parameter that varies across these rows, if exactly one does. */
bool html_sweep_param(const struct cmp_table *t, const size_t *rows, size_t n, const json_t *vary, char *key,
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
void html_curve_chart(FILE *f, const struct cmp_table *t, const size_t *rows, size_t n, const char *key)
{
	const struct cmp_row *r0 = &t->rows[rows[0]];
	struct svg_axis x = { .lo = INFINITY, .hi = -INFINITY, .p0 = 70, .p1 = 500 },
			y = { .lo = INFINITY, .hi = -INFINITY, .p0 = 250, .p1 = 20 };
	double *xs = calloc(n, sizeof(*xs)), *ys = calloc(n, sizeof(*ys));
	char title[256], ytitle[96], caption[400];
	size_t offscale = 0;
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
		bool any = false, scale = sets_scale(t, rows, n, o);

		for (size_t i = 0; i < n; i++)
			if (drawable(&t->rows[rows[i]].cells[o])) {
				any = true;
				if (!scale)
					continue;
				y.lo = fmin(y.lo, t->rows[rows[i]].cells[o].fig.mean);
				y.hi = fmax(y.hi, t->rows[rows[i]].cells[o].fig.mean);
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
	html_axis_title(&y, r0->metric, r0->unit, ytitle, sizeof(ytitle));
	svg_begin(&s, 520, 300 + 18 * lg.n, title);
	svg_axes(&s, &x, &y, key, ytitle, NULL, 0);
	curve_marks(&s, t, r0, key, &x, &y);
	for (size_t o = 0; o < t->nops; o++) {
		int k = 0, off, far = 0;
		double farv = 0, farx = 0;

		for (size_t i = 0; i < n; i++) {
			const struct cmp_cell *c = &t->rows[rows[i]].cells[o];

			if (!drawable(c))
				continue;
			xs[k] = svg_map(&x, param_of(&t->rows[rows[i]], key));
			ys[k] = svg_map(&y, clamp_to_axis(&y, c->fig.mean, &off));
			/* the value furthest off the scale is written at its edge */
			if (off && (!far || fabs(c->fig.mean) > fabs(farv)))
				far = off, farv = c->fig.mean, farx = xs[k];
			k++;
		}
		if (!k)
			continue;
		if (far) {
			char val[48];

			text_format_metric(farv, r0->metric, r0->unit, val, sizeof(val));
			/* dashed: the part along the edge is not to scale */
			svg_printf(&s, "<g class=\"offscale\" stroke-dasharray=\"5 4\">");
			svg_line(&s, xs, ys, k, (int)o, t->ops[o].name);
			offscale_mark(&s, &y, farx, 0, far, t->ops[o].name, val);
			svg_printf(&s, "</g>\n");
			offscale++;
		} else {
			svg_line(&s, xs, ys, k, (int)o, t->ops[o].name);
		}
	}
	svg_legend_colored(&s, 80, 300, lg.names, lg.colors, lg.n);
	snprintf(caption, sizeof(caption), "%s.%s %s against %s%s: mean, one line per operand%s", r0->suite, r0->test,
		 r0->metric, key, x.log ? " (log scale)" : "",
		 offscale ? "; a line off the scale (of an operand drawn beside the others, which sets no scale) runs along the edge, its furthest value "
			    "written there" : "");
	html_figure(f, svg_end(&s), caption);
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
void html_latency_chart(FILE *f, const struct cmp_table *t, const struct cmp_row *r)
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
	html_axis_title(&y, "latency", "ns", ytitle, sizeof(ytitle));
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
	html_figure(f, svg_end(&s), caption);
out:
	legend_release(&lg);
}

