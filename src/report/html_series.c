/* Line charts of series over time (cases[].series): per case and series
 * name, one polyline per repetition, all repetitions overlaid, for the
 * first run of each operand. Every text from a document is escaped on its
 * way into the SVG (svg_text, svg_escape) or the caption (html_figure). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "html.h"
#include "html_draw.h"
#include "svg.h"
#include "text.h"
#include "../core/banned.h"

#define W 520
#define H 300

static double pt(const json_t *points, size_t i, size_t k)
{
	return json_number_value(json_array_get(json_array_get(points, i), k));
}

/* One chart: the series named name in case c, every repetition a polyline
 * (points as measured, at most VMB_SERIES_MAX each: the document's bound). */
static void series_chart(FILE *f, const char *opname, const char *test, const json_t *c, const char *name)
{
	struct svg_axis x = { .lo = 0, .hi = -INFINITY, .p0 = 70, .p1 = W - 20 },
			y = { .lo = INFINITY, .hi = -INFINITY, .p0 = H - 50, .p1 = 20 };
	const json_t *se, *series = json_object_get(c, "series");
	const char *unit = NULL;
	char title[256], params[256], ytitle[96], caption[640], rep[32];
	const char *names[SVG_COLORS];
	char namebuf[SVG_COLORS][24];
	int colors[SVG_COLORS], nleg = 0;
	size_t i, p, nreps = 0;
	struct svg s;

	json_array_foreach(series, i, se) {
		const json_t *pts = json_object_get(se, "points");

		if (strcmp(json_string_value(json_object_get(se, "name")), name))
			continue;
		unit = json_string_value(json_object_get(se, "unit"));
		nreps++;
		for (p = 0; p < json_array_size(pts); p++) {
			x.hi = fmax(x.hi, pt(pts, p, 0));
			y.lo = fmin(y.lo, pt(pts, p, 1));
			y.hi = fmax(y.hi, pt(pts, p, 1));
		}
	}
	if (!nreps || !isfinite(y.lo))
		return;
	if (!(x.hi > 0))
		x.hi = 1;
	if (!(y.hi > y.lo))
		y.hi = y.lo + (y.lo ? fabs(y.lo) * 0.1 : 1);
	svg_axis_nice(&x, true);
	svg_axis_nice(&y, y.lo >= 0);
	text_params(json_object_get(c, "params"), params, sizeof(params));
	snprintf(title, sizeof(title), "%s %s over time", test, name);
	svg_begin(&s, W, H + 18 * (int)(nreps < SVG_COLORS ? nreps : SVG_COLORS), title);
	html_axis_title(&y, name, unit, ytitle, sizeof(ytitle));
	svg_axes(&s, &x, &y, "seconds from the repetition's start", ytitle, NULL, 0);
	json_array_foreach(series, i, se) {
		const json_t *pts = json_object_get(se, "points");
		long long r = (long long)json_integer_value(json_object_get(se, "rep"));
		int color = (int)((r - 1) % SVG_COLORS);

		if (strcmp(json_string_value(json_object_get(se, "name")), name))
			continue;
		svg_printf(&s, "<g class=\"series\"><polyline fill=\"none\" stroke=\"%s\" stroke-width=\"1.5\" "
			       "data-rep=\"%lld\" points=\"", svg_palette[color], r);
		for (p = 0; p < json_array_size(pts); p++)
			svg_printf(&s, "%s%.1f,%.1f", p ? " " : "", svg_map(&x, pt(pts, p, 0)), svg_map(&y, pt(pts, p, 1)));
		snprintf(rep, sizeof(rep), "repetition %lld", r);
		svg_printf(&s, "\"/><title>");
		svg_escape(&s, rep);
		svg_printf(&s, "</title></g>\n");
		if (nleg < SVG_COLORS) {
			snprintf(namebuf[nleg], sizeof(namebuf[nleg]), "rep %lld", r);
			names[nleg] = namebuf[nleg];
			colors[nleg++] = color;
		}
	}
	svg_legend_colored(&s, 80, H, names, colors, nleg);
	snprintf(caption, sizeof(caption), "%s %s (%s): %s per interval over each repetition, %zu repetition%s overlaid",
		 test, params, opname, name, nreps, nreps == 1 ? "" : "s");
	html_figure(f, svg_end(&s), caption);
}

void html_series_charts(FILE *f, const struct cmp_table *t)
{
	int drawn = 0, more = 0;

	for (size_t o = 0; o < t->nops; o++) {
		const json_t *doc = json_array_get(t->ops[o].docs, 0), *s, *tt, *c, *se;
		size_t i, j, k, l;

		json_array_foreach(json_object_get(doc, "suites"), i, s)
			json_array_foreach(json_object_get(s, "tests"), j, tt)
				json_array_foreach(json_object_get(tt, "cases"), k, c) {
					const json_t *series = json_object_get(c, "series");
					char test[128];

					snprintf(test, sizeof(test), "%s.%s", json_string_value(json_object_get(s, "name")),
						 json_string_value(json_object_get(tt, "name")));
					/* one chart per name, where it first appears */
					json_array_foreach(series, l, se) {
						const char *name = json_string_value(json_object_get(se, "name"));
						bool first = true;

						for (size_t e = 0; e < l && first; e++)
							first = strcmp(name, json_string_value(json_object_get(
										     json_array_get(series, e), "name")));
						if (!first)
							continue;
						if (drawn == 0)
							fputs("<h2>Series over time</h2>\n<div class=\"charts\">\n", f);
						if (drawn < HTML_MAX_SERIES_CHARTS) {
							series_chart(f, t->ops[o].name, test, c, name);
							drawn++;
						} else {
							more++;
						}
					}
				}
	}
	if (drawn)
		fputs("</div>\n", f);
	if (more)
		fprintf(f, "<p>The first %d series charts are drawn; %d more are in the documents "
			   "(vmbench show --series, export --format csv --series).</p>\n", drawn, more);
}
