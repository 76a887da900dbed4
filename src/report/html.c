/* HTML report: tables and charts from a comparison table. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "html.h"
#include "svg.h"
#include "text.h"
#include "../core/banned.h"

static const char css[] =
	"body{font-family:system-ui,sans-serif;max-width:1100px;margin:0 auto;padding:0 12px;color:#222}"
	"h1{font-size:1.6em}h2{margin-top:1.6em;border-bottom:1px solid #ccc}"
	".scroll{overflow-x:auto}table{border-collapse:collapse;font-size:13px;margin:8px 0}"
	"th,td{border:1px solid #ccc;padding:3px 6px;text-align:right;white-space:nowrap}"
	"th:nth-child(-n+3),td:nth-child(-n+3){text-align:left}thead th{background:#f2f2f2}"
	".better{color:#060}.worse{color:#b00}.same{color:#666}"
	".charts{display:flex;flex-wrap:wrap;gap:12px}.charts figure{margin:0;flex:1 1 480px;max-width:540px}"
	"figcaption{font-size:13px;color:#444}svg.chart{width:100%;height:auto}"
	"details{margin:6px 0}summary{cursor:pointer}"
	"@media (max-width:600px){body{padding:0 6px}table{font-size:11px}}"
	"@media print{.charts figure{break-inside:avoid}details{break-inside:avoid}}";

static void esc(FILE *f, const char *s)
{
	for (; s && *s; s++) {
		switch (*s) {
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '&': fputs("&amp;", f); break;
		case '"': fputs("&quot;", f); break;
		default: fputc(*s, f); break;
		}
	}
}

static void table(FILE *f, const struct cmp_table *t, bool all, const char *id)
{
	fprintf(f, "<div class=\"scroll\"><table id=\"%s\"><thead><tr><th>test</th><th>params</th><th>metric</th>", id);
	for (size_t o = 0; o < t->nops; o++) {
		fputs("<th>", f);
		esc(f, t->ops[o].name);
		fputs(o == t->baseline ? " (baseline)</th>" : "</th><th>vs baseline</th>", f);
	}
	fputs("</tr></thead><tbody>\n", f);
	for (size_t i = 0; i < t->nrows; i++) {
		const struct cmp_row *r = &t->rows[i];
		char p[512];

		if (!all && !r->headline)
			continue;
		cmp_params_text(r->params, p, sizeof(p));
		fprintf(f, "<tr><td>%s.%s</td><td>", r->suite, r->test);
		esc(f, p);
		fputs("</td><td>", f);
		esc(f, r->metric);
		fprintf(f, " <small>(%s, %s is better)</small></td>", r->unit, r->higher_better ? "higher" : "lower");
		for (size_t o = 0; o < t->nops; o++) {
			const struct cmp_cell *c = &r->cells[o];
			struct cmp_verdict v;
			char val[48], words[32];

			if (!c->n) {
				fputs(o == t->baseline ? "<td>-</td>" : "<td>-</td><td class=\"same\">missing here</td>", f);
				continue;
			}
			text_format_value(c->sum.mean, r->unit, val, sizeof(val));
			fprintf(f, "<td>%s", val);
			if (c->n > 1 && c->sum.mean != 0)
				fprintf(f, " ±%.1f%%", 100 * (c->sum.ci95_high - c->sum.mean) / fabs(c->sum.mean));
			fputs("</td>", f);
			if (o == t->baseline)
				continue;
			cmp_judge(r, &r->cells[t->baseline], c, &v);
			cmp_ratio_words(r, &v, words, sizeof(words));
			if (!v.comparable)
				fputs("<td class=\"same\">only here</td>", f);
			else if (!v.w.valid)
				fprintf(f, "<td class=\"same\">%+.1f%% (too few samples)</td>", v.gap_pct);
			else
				fprintf(f, "<td class=\"%s\">%+.1f%%%s%s %s <small>(p=%.2g)</small></td>",
					v.better > 0 ? "better" : v.better < 0 ? "worse" : "same", v.gap_pct, *words ? " " : "",
					words, v.better > 0 ? "better" : v.better < 0 ? "worse" : "no significant difference",
					v.w.p);
		}
		fputs("</tr>\n", f);
	}
	fputs("</tbody></table></div>\n", f);
}

static const char **operand_names(const struct cmp_table *t)
{
	const char **names = calloc(t->nops, sizeof(*names));

	for (size_t o = 0; names && o < t->nops; o++)
		names[o] = t->ops[o].name;
	return names;
}

/* An axis of nanoseconds is labelled in s, ms or us; ytitle gets that unit. */
static void axis_title(struct svg_axis *y, const char *metric, const char *unit, char *buf, size_t len)
{
	static const struct {
		double div;
		const char *name;
	} scales[] = { { 1e9, "s" }, { 1e6, "ms" }, { 1e3, "us" } };

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

/* The label of case i: only the parameters that differ between the cases. */
static char *varying_label(const struct cmp_table *t, const size_t *rows, size_t n, size_t i)
{
	json_t *mine = json_loads(t->rows[rows[i]].params, 0, NULL);
	char *out = calloc(1, 40);
	const char *k;
	json_t *v;
	size_t off = 0;

	json_object_foreach(mine, k, v) {
		bool differs = false;
		char *s;
		int w;

		for (size_t j = 0; j < n && !differs; j++) {
			json_t *o = json_loads(t->rows[rows[j]].params, 0, NULL);

			differs = !json_equal(json_object_get(o, k), v);
			json_decref(o);
		}
		if (!differs || !out)
			continue;
		s = json_dumps(v, JSON_ENCODE_ANY);
		w = snprintf(out + off, 40 - off, "%s%s=%s", off ? " " : "", k, s ? s : "?");
		free(s);
		if (w > 0 && (size_t)w < 40 - off)
			off += (size_t)w;
	}
	json_decref(mine);
	if (out && !*out)
		snprintf(out, 40, "all cases");
	return out;
}

/* Bars of every case of a (suite, test, metric), one per operand, with the 95% CI. */
static void bar_chart(FILE *f, const struct cmp_table *t, size_t *rows, size_t n)
{
	const struct cmp_row *r0 = &t->rows[rows[0]];
	struct svg_axis x = { .lo = 0, .hi = 1, .p0 = 70, .p1 = 500 }, y = { .lo = INFINITY, .hi = -INFINITY, .p0 = 250, .p1 = 20 };
	const char **labels = calloc(n, sizeof(*labels)), **names = operand_names(t);
	char **owned = calloc(n, sizeof(*owned)), title[256], ytitle[96];
	double slot = (x.p1 - x.p0) / (double)n, bw = slot * 0.8 / (double)t->nops;
	struct svg s;

	if (!labels || !names || !owned)
		goto out;
	for (size_t i = 0; i < n; i++)
		for (size_t o = 0; o < t->nops; o++) {
			const struct cmp_cell *c = &t->rows[rows[i]].cells[o];

			if (!c->n)
				continue;
			y.lo = fmin(y.lo, fmin(c->sum.mean, c->sum.ci95_low));
			y.hi = fmax(y.hi, fmax(c->sum.mean, c->sum.ci95_high));
		}
	if (!isfinite(y.lo))
		goto out;
	svg_axis_nice(&y, true);
	snprintf(title, sizeof(title), "%s.%s %s", r0->suite, r0->test, r0->metric);
	axis_title(&y, r0->metric, r0->unit, ytitle, sizeof(ytitle));
	svg_begin(&s, 520, 300 + 18 * (int)t->nops, title);
	for (size_t i = 0; i < n; i++) {
		owned[i] = varying_label(t, rows, n, i);
		labels[i] = owned[i] ? owned[i] : "";
	}
	svg_axes(&s, &x, &y, NULL, ytitle, n <= 8 ? labels : NULL, n <= 8 ? (int)n : 0);
	for (size_t i = 0; i < n; i++)
		for (size_t o = 0; o < t->nops; o++) {
			const struct cmp_cell *c = &t->rows[rows[i]].cells[o];
			double bx = x.p0 + slot * (double)i + slot * 0.1 + bw * (double)o;
			char tip[160], val[48];

			if (!c->n)
				continue;
			text_format_value(c->sum.mean, r0->unit, val, sizeof(val));
			snprintf(tip, sizeof(tip), "%s, %s: %s", t->ops[o].name, labels[i], val);
			svg_bar(&s, bx, bw, svg_map(&y, y.lo), svg_map(&y, c->sum.mean), (int)o, tip);
			if (c->n > 1)
				svg_errorbar(&s, bx + bw / 2, svg_map(&y, fmax(c->sum.ci95_low, y.lo)),
					     svg_map(&y, c->sum.ci95_high));
		}
	svg_legend(&s, 80, 300, names, (int)t->nops);
	snprintf(title, sizeof(title), "%s.%s %s: mean with 95%% confidence interval, per case", r0->suite, r0->test,
		 r0->metric);
	figure(f, svg_end(&s), title);
out:
	for (size_t i = 0; owned && i < n; i++)
		free(owned[i]);
	free(owned);
	free(labels);
	free(names);
}

/* The one numeric parameter that varies across these rows, if exactly one does. */
static bool sweep_param(const struct cmp_table *t, size_t *rows, size_t n, char *key, size_t len)
{
	json_t *first = json_loads(t->rows[rows[0]].params, 0, NULL);
	const char *k;
	json_t *v;
	int varying = 0;

	json_object_foreach(first, k, v) {
		bool differs = false;

		for (size_t i = 1; i < n; i++) {
			json_t *o = json_loads(t->rows[rows[i]].params, 0, NULL);

			differs |= !json_equal(json_object_get(o, k), v);
			json_decref(o);
		}
		if (differs && json_is_number(v)) {
			varying++;
			snprintf(key, len, "%s", k);
		} else if (differs) {
			varying += 2;
		}
	}
	json_decref(first);
	return varying == 1 && n >= 2;
}

static double param_of(const char *params, const char *key)
{
	json_t *o = json_loads(params, 0, NULL);
	double v = json_number_value(json_object_get(o, key));

	json_decref(o);
	return v;
}

/* Curves: the metric against the swept parameter (IOPS vs queue depth, rate vs threads). */
static void curve_chart(FILE *f, const struct cmp_table *t, size_t *rows, size_t n, const char *key)
{
	const struct cmp_row *r0 = &t->rows[rows[0]];
	struct svg_axis x = { .lo = INFINITY, .hi = -INFINITY, .p0 = 70, .p1 = 500 },
			y = { .lo = INFINITY, .hi = -INFINITY, .p0 = 250, .p1 = 20 };
	double *xs = calloc(n, sizeof(*xs)), *ys = calloc(n, sizeof(*ys));
	const char **names = operand_names(t);
	char title[256], ytitle[96], caption[160];
	struct svg s;

	if (!xs || !ys || !names)
		goto out;
	for (size_t i = 0; i < n; i++) {
		double p = param_of(t->rows[rows[i]].params, key);

		x.lo = fmin(x.lo, p);
		x.hi = fmax(x.hi, p);
		for (size_t o = 0; o < t->nops; o++)
			if (t->rows[rows[i]].cells[o].n) {
				y.lo = fmin(y.lo, t->rows[rows[i]].cells[o].sum.mean);
				y.hi = fmax(y.hi, t->rows[rows[i]].cells[o].sum.mean);
			}
	}
	if (!isfinite(y.lo) || x.hi <= x.lo)
		goto out;
	x.log = x.lo > 0 && x.hi / x.lo >= 8;
	if (!x.log)
		svg_axis_nice(&x, false);
	svg_axis_nice(&y, true);
	snprintf(title, sizeof(title), "%s.%s %s vs %s", r0->suite, r0->test, r0->metric, key);
	axis_title(&y, r0->metric, r0->unit, ytitle, sizeof(ytitle));
	svg_begin(&s, 520, 300 + 18 * (int)t->nops, title);
	svg_axes(&s, &x, &y, key, ytitle, NULL, 0);
	for (size_t o = 0; o < t->nops; o++) {
		int k = 0;

		for (size_t i = 0; i < n; i++) {
			const struct cmp_cell *c = &t->rows[rows[i]].cells[o];

			if (!c->n)
				continue;
			xs[k] = svg_map(&x, param_of(t->rows[rows[i]].params, key));
			ys[k] = svg_map(&y, c->sum.mean);
			k++;
		}
		if (k)
			svg_line(&s, xs, ys, k, (int)o, t->ops[o].name);
	}
	svg_legend(&s, 80, 300, names, (int)t->nops);
	snprintf(caption, sizeof(caption), "mean per %s%s", key, x.log ? " (log scale)" : "");
	figure(f, svg_end(&s), caption);
out:
	free(xs);
	free(ys);
	free(names);
}

/* Latency percentiles on a log axis: p50 .. p99.99 and max, equally spaced
 * (the usual "nines" axis), one line per operand. */
static void latency_chart(FILE *f, const struct cmp_table *t, const struct cmp_row *r)
{
	static const char *const keys[] = { "p50", "p90", "p99", "p99.9", "p99.99", "max" };
	const int nk = 6;
	struct svg_axis x = { .lo = 0, .hi = 1, .p0 = 70, .p1 = 500 }, y = { .lo = INFINITY, .hi = -INFINITY, .log = true,
									      .p0 = 250, .p1 = 20 };
	const char **names = operand_names(t);
	char title[256], p[256], caption[320], ytitle[64];
	double xs[6], ys[6];
	struct svg s;

	if (!names)
		return;
	for (size_t o = 0; o < t->nops; o++)
		for (int k = 0; k < nk && r->cells[o].hist; k++) {
			const json_t *h = r->cells[o].hist;
			double v = k < 5 ? json_number_value(json_object_get(json_object_get(h, "percentiles"), keys[k]))
					 : json_number_value(json_object_get(h, "max"));

			if (v > 0) {
				y.lo = fmin(y.lo, v);
				y.hi = fmax(y.hi, v);
			}
		}
	if (!isfinite(y.lo)) {
		free(names);
		return;
	}
	svg_axis_nice(&y, false);
	cmp_params_text(r->params, p, sizeof(p));
	snprintf(title, sizeof(title), "%s.%s %s percentiles", r->suite, r->test, r->metric);
	svg_begin(&s, 520, 300 + 18 * (int)t->nops, title);
	axis_title(&y, "latency", "ns", ytitle, sizeof(ytitle));
	svg_axes(&s, &x, &y, "percentile", ytitle, keys, nk);
	for (size_t o = 0; o < t->nops; o++) {
		const json_t *h = r->cells[o].hist;
		int k = 0;

		for (int i = 0; i < nk && h; i++) {
			double v = i < 5 ? json_number_value(json_object_get(json_object_get(h, "percentiles"), keys[i]))
					 : json_number_value(json_object_get(h, "max"));

			if (v <= 0)
				continue;
			xs[k] = x.p0 + (x.p1 - x.p0) / nk * (i + 0.5);
			ys[k] = svg_map(&y, v);
			k++;
		}
		if (k)
			svg_line(&s, xs, ys, k, (int)o, t->ops[o].name);
	}
	svg_legend(&s, 80, 300, names, (int)t->nops);
	snprintf(caption, sizeof(caption), "%s.%s %s: latency percentiles (log scale; first run of each operand)",
		 r->suite, r->test, p);
	figure(f, svg_end(&s), caption);
	free(names);
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
	char title[256], ytitle[64], p[256], nums[32][8], key[2048] = "", caption[2600];
	bool numbered = false;
	double slot;
	struct svg s;

	if (!names || !phases || !ops)
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
		snprintf(nums[k < 32 ? k : 31], sizeof(nums[0]), "%zu", k + 1);
		keyoff += (size_t)snprintf(key + keyoff, keyoff < sizeof(key) ? sizeof(key) - keyoff : 0, "%s%zu = %s",
					   k ? "; " : " (", k + 1, names[k]);
		names[k] = nums[k < 32 ? k : 31];
	}
	if (numbered && keyoff < sizeof(key))
		snprintf(key + keyoff, sizeof(key) - keyoff, ")");
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
}

static void charts(FILE *f, const struct cmp_table *t)
{
	size_t *rows = calloc(t->nrows ? t->nrows : 1, sizeof(*rows));
	bool *done = calloc(t->nrows ? t->nrows : 1, sizeof(*done));
	int nlat = 0;

	if (!rows || !done)
		goto out;
	fputs("<h2>Charts</h2>\n<div class=\"charts\">\n", f);
	/* group headline rows by (suite, test, metric) */
	for (size_t i = 0; i < t->nrows; i++) {
		const struct cmp_row *a = &t->rows[i];
		size_t n = 0;
		char key[64];

		if (done[i] || !a->headline)
			continue;
		for (size_t j = i; j < t->nrows; j++) {
			const struct cmp_row *b = &t->rows[j];

			if (!strcmp(a->suite, b->suite) && !strcmp(a->test, b->test) && !strcmp(a->metric, b->metric)) {
				rows[n++] = j;
				done[j] = true;
			}
		}
		/* a curve says more than bars from three points on */
		if (n >= 3 && sweep_param(t, rows, n, key, sizeof(key)))
			curve_chart(f, t, rows, n, key);
		bar_chart(f, t, rows, n);
	}
	/* declared phases, stacked, per (suite, test, params), in their declared order */
	memset(done, 0, t->nrows * sizeof(*done));
	for (size_t i = 0; i < t->nrows; i++) {
		size_t n = 0;

		if (done[i] || phase_index(t, &t->rows[i]) < 0)
			continue;
		for (size_t j = i; j < t->nrows; j++) {
			const struct cmp_row *a = &t->rows[i], *b = &t->rows[j];
			size_t at = n;
			int pj;

			if (strcmp(a->suite, b->suite) || strcmp(a->test, b->test) || strcmp(a->params, b->params))
				continue;
			pj = phase_index(t, b);
			if (pj < 0)
				continue;
			/* insertion by declared position; equal ones keep the rows' order */
			while (at > 0 && phase_index(t, &t->rows[rows[at - 1]]) > pj) {
				rows[at] = rows[at - 1];
				at--;
			}
			rows[at] = j;
			n++;
			done[j] = true;
		}
		phase_chart(f, t, rows, n);
	}
	fputs("</div>\n<h2>Latency percentiles</h2>\n<div class=\"charts\">\n", f);
	for (size_t i = 0; i < t->nrows && nlat < HTML_MAX_LATENCY_CHARTS; i++) {
		bool any = false;

		for (size_t o = 0; o < t->nops; o++)
			any |= t->rows[i].cells[o].hist != NULL;
		if (any) {
			latency_chart(f, t, &t->rows[i]);
			nlat++;
		}
	}
	fputs("</div>\n", f);
	if (nlat == HTML_MAX_LATENCY_CHARTS)
		fprintf(f, "<p>The first %d latency distributions are drawn; the tables have all of them.</p>\n", nlat);
out:
	free(rows);
	free(done);
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
			fputs("</table></div></details>\n", f);
		}
	}
}

int html_report(FILE *f, const struct cmp_table *t, const char *title)
{
	fputs("<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
	      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"><title>", f);
	esc(f, title);
	fprintf(f, "</title><style>%s</style></head><body>\n<h1>", css);
	esc(f, title);
	fputs("</h1>\n<p>", f);
	for (size_t o = 0; o < t->nops; o++) {
		fputs(o ? ", " : "Compared: ", f);
		esc(f, t->ops[o].name);
		fprintf(f, " (%zu run%s%s)", json_array_size(t->ops[o].docs), json_array_size(t->ops[o].docs) == 1 ? "" : "s",
			o == t->baseline ? ", baseline" : "");
	}
	fputs(". Each value is the mean over repetitions with its 95% confidence interval; a difference is "
	      "significant when the 95% interval of the difference of means (Welch) excludes zero.</p>\n"
	      "<h2>Summary</h2>\n", f);
	table(f, t, false, "summary");
	charts(f, t);
	fputs("<h2>All metrics</h2>\n<details><summary>every metric of every case</summary>\n", f);
	table(f, t, true, "all");
	fputs("</details>\n", f);
	fingerprints(f, t);
	fputs("</body></html>\n", f);
	return ferror(f) ? -EIO : 0;
}
