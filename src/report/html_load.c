/* Line charts of a metric against the load the guests ran under.
 * lab contend names each guest of each cell "policy=P load=N guest=G";
 * the operands whose names carry such a load=N word are drawn.
 * Each operand name without that word (a policy and a guest) is one line,
 * through its value at each load.
 * One chart is drawn for every row of a suite's load_metric (its
 * descriptor's; lab contend's run delay): how long each guest's vCPUs
 * waited as the guests' load grew, per policy. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "html.h"
#include "html_draw.h"
#include "svg.h"
#include "text.h"
#include "../core/suite.h"
#include "../core/banned.h"

#define W 520
#define H 300

/* The load of an operand's name: 80 for "policy=rt load=80 guest=1".
 * The name without that word goes in group (len).
 * False when the name has no load. */
static bool load_of(const char *name, double *load, char *group, size_t len)
{
	const char *w = strstr(name, "load=");
	char *end;
	size_t pre;

	while (w && w != name && w[-1] != ' ')
		w = strstr(w + 1, "load=");
	if (!w)
		return false;
	*load = strtod(w + 5, &end);
	if (end == w + 5 || (*end && *end != ' ') || !isfinite(*load))
		return false;
	pre = (size_t)(w - name);
	while (pre && name[pre - 1] == ' ')
		pre--;
	snprintf(group, len, "%.*s%s%s", (int)pre, name, pre && *end ? " " : "", *end ? end + 1 : "");
	return true;
}

struct load_point {
	double load, v;
};

static int point_cmp(const void *a, const void *b)
{
	const struct load_point *x = a, *y = b;

	return x->load < y->load ? -1 : x->load > y->load;
}

static void load_chart(FILE *f, const struct cmp_table *t, const struct cmp_row *r, bool *begun)
{
	struct svg_axis x = { .lo = INFINITY, .hi = -INFINITY, .p0 = 70, .p1 = W - 20 },
			y = { .lo = 0, .hi = -INFINITY, .p0 = H - 50, .p1 = 20 };
	char groups[SVG_COLORS][128], title[256], params[256], ytitle[96], caption[640], group[128];
	const char *names[SVG_COLORS];
	int colors[SVG_COLORS];
	size_t ng = 0, dropped = 0, nloads = 0;
	double loads[64];
	struct svg s;

	/* the groups, and the scales */
	for (size_t o = 0; o < t->nops; o++) {
		double load;
		size_t g;

		if (t->ops[o].aside || !r->cells[o].present || !load_of(t->ops[o].name, &load, group, sizeof(group)) ||
		    !isfinite(r->cells[o].fig.mean))
			continue;
		for (g = 0; g < ng && strcmp(groups[g], group); g++)
			;
		if (g == ng) {
			if (ng == SVG_COLORS) {
				dropped++;
				continue;
			}
			snprintf(groups[ng++], sizeof(groups[0]), "%s", group);
		}
		{
			size_t k;

			for (k = 0; k < nloads && loads[k] != load; k++)
				;
			if (k == nloads && nloads < 64)
				loads[nloads++] = load;
		}
		x.lo = fmin(x.lo, load);
		x.hi = fmax(x.hi, load);
		y.hi = fmax(y.hi, r->cells[o].fig.mean);
		y.lo = fmin(y.lo, r->cells[o].fig.mean);
	}
	if (nloads < 2 || !ng)
		return;
	if (!*begun) {
		fputs("<h2>Run delay against load</h2>\n<div class=\"charts\">\n", f);
		*begun = true;
	}
	if (!(y.hi > y.lo))
		y.hi = y.lo + (y.lo ? fabs(y.lo) * 0.1 : 1);
	svg_axis_nice(&x, false);
	svg_axis_nice(&y, y.lo >= 0);
	cmp_row_params(r, params, sizeof(params));
	snprintf(title, sizeof(title), "%s.%s %s against the load", r->suite, r->test, r->metric);
	svg_begin(&s, W, H + 18 * (int)ng, title);
	html_axis_title(&y, r->metric, r->unit, ytitle, sizeof(ytitle));
	svg_axes(&s, &x, &y, "the guests' load, % of each vCPU (--load)", ytitle, NULL, 0);
	for (size_t g = 0; g < ng; g++) {
		struct load_point pts[64];
		double xs[64], ys[64];
		size_t n = 0;

		for (size_t o = 0; o < t->nops && n < 64; o++) {
			double load;

			if (t->ops[o].aside || !r->cells[o].present || !isfinite(r->cells[o].fig.mean) ||
			    !load_of(t->ops[o].name, &load, group, sizeof(group)) || strcmp(group, groups[g]))
				continue;
			pts[n++] = (struct load_point){ load, r->cells[o].fig.mean };
		}
		qsort(pts, n, sizeof(pts[0]), point_cmp);
		for (size_t i = 0; i < n; i++) {
			xs[i] = svg_map(&x, pts[i].load);
			ys[i] = svg_map(&y, pts[i].v);
		}
		svg_line(&s, xs, ys, (int)n, (int)g, groups[g]);
		names[g] = groups[g];
		colors[g] = (int)g;
	}
	svg_legend_colored(&s, 80, H, names, colors, (int)ng);
	snprintf(caption, sizeof(caption), "%s.%s %s (%s) against the guests' load: a line per policy and guest, "
		 "each point the mean of its rounds%s", r->suite, r->test, r->metric, params,
		 dropped ? "; more groups than colours: the first are drawn" : "");
	html_figure(f, svg_end(&s), caption);
}

void html_load_charts(FILE *f, const struct cmp_table *t)
{
	bool begun = false;

	for (size_t i = 0; i < t->nrows; i++) {
		const struct cmp_row *r = &t->rows[i];
		const struct vmb_suite *s = t->suite_of ? t->suite_of(r->suite) : NULL;

		if (s && s->load_metric && !strcmp(r->metric, s->load_metric))
			load_chart(f, t, r, &begun);
	}
	if (begun)
		fputs("</div>\n", f);
}
