/* SVG primitives for the report's charts. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "svg.h"
#include "../core/banned.h"

/* Okabe-Ito: distinguishable with the common colour-vision deficiencies, and in print. */
const char *const svg_palette[SVG_COLORS] = {
	"#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#F0E442", "#000000",
};

void svg_printf(struct svg *s, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (s->oom)
		return;
	for (;;) {
		va_start(ap, fmt);
		n = vsnprintf(s->buf + s->len, s->cap - s->len, fmt, ap);
		va_end(ap);
		if (n < 0) {
			s->oom = true;
			return;
		}
		if ((size_t)n < s->cap - s->len) {
			s->len += (size_t)n;
			return;
		}
		{
			size_t nc = (s->cap + (size_t)n + 1) * 2;
			char *nb = realloc(s->buf, nc);

			if (!nb) {
				s->oom = true;
				return;
			}
			s->buf = nb;
			s->cap = nc;
		}
	}
}

void svg_escape(struct svg *s, const char *t)
{
	for (; t && *t; t++) {
		switch (*t) {
		case '<': svg_printf(s, "&lt;"); break;
		case '>': svg_printf(s, "&gt;"); break;
		case '&': svg_printf(s, "&amp;"); break;
		case '"': svg_printf(s, "&quot;"); break;
		case '\'': svg_printf(s, "&#39;"); break;
		default: svg_printf(s, "%c", *t); break;
		}
	}
}

void svg_begin(struct svg *s, int width, int height, const char *title)
{
	memset(s, 0, sizeof(*s));
	s->cap = 4096;
	s->buf = malloc(s->cap);
	if (!s->buf) {
		s->oom = true;
		return;
	}
	s->buf[0] = '\0';
	/* inline in HTML: no xmlns needed, and the page names no URL at all */
	svg_printf(s, "<svg class=\"chart\" viewBox=\"0 0 %d %d\" "
		      "role=\"img\" font-family=\"sans-serif\"><title>", width, height);
	svg_escape(s, title);
	svg_printf(s, "</title>\n");
}

char *svg_end(struct svg *s)
{
	svg_printf(s, "</svg>\n");
	if (s->oom) {
		free(s->buf);
		return NULL;
	}
	return s->buf;
}

void svg_text(struct svg *s, double x, double y, const char *anchor, int size, const char *text)
{
	svg_printf(s, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\" font-size=\"%d\">", x, y, anchor, size);
	svg_escape(s, text);
	svg_printf(s, "</text>\n");
}

double svg_map(const struct svg_axis *a, double v)
{
	double f;

	if (a->log)
		f = (log10(v > 0 ? v : a->lo) - log10(a->lo)) / (log10(a->hi) - log10(a->lo));
	else
		f = a->hi > a->lo ? (v - a->lo) / (a->hi - a->lo) : 0.5;
	return a->p0 + f * (a->p1 - a->p0);
}

static double nice_step(double range, int target)
{
	double raw = range / target, mag = pow(10, floor(log10(raw))), f = raw / mag;

	return (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10) * mag;
}

void svg_axis_nice(struct svg_axis *a, bool from_zero)
{
	if (a->log) {
		if (a->lo <= 0)
			a->lo = a->hi > 0 ? a->hi / 1000 : 1;
		a->lo = pow(10, floor(log10(a->lo)));
		a->hi = pow(10, ceil(log10(a->hi)));
		if (a->hi <= a->lo)
			a->hi = a->lo * 10;
		return;
	}
	if (from_zero && a->lo > 0)
		a->lo = 0;
	if (a->hi <= a->lo)
		a->hi = a->lo + (a->lo ? fabs(a->lo) : 1);
	{
		double st = nice_step(a->hi - a->lo, 5);

		a->lo = floor(a->lo / st) * st;
		a->hi = ceil(a->hi / st) * st;
	}
}

int svg_ticks(const struct svg_axis *a, double *ticks, int max)
{
	int n = 0;

	if (a->log) {
		for (double v = a->lo; v <= a->hi * 1.0001 && n < max; v *= 10)
			ticks[n++] = v;
		return n;
	}
	{
		double st = nice_step(a->hi - a->lo, 5);

		for (double v = ceil(a->lo / st) * st; v <= a->hi + st * 1e-9 && n < max; v += st)
			ticks[n++] = fabs(v) < st * 1e-9 ? 0 : v;
	}
	return n;
}

void svg_fmt_num(double v, char *buf, size_t len)
{
	static const struct {
		double div;
		const char *suffix;
	} si[] = { { 1e12, "T" }, { 1e9, "G" }, { 1e6, "M" }, { 1e3, "k" } };

	for (size_t i = 0; i < sizeof(si) / sizeof(si[0]); i++)
		if (fabs(v) >= si[i].div) {
			snprintf(buf, len, "%g%s", v / si[i].div, si[i].suffix);
			return;
		}
	snprintf(buf, len, "%g", v);
}

void svg_axes(struct svg *s, const struct svg_axis *x, const struct svg_axis *y, const char *xtitle,
	      const char *ytitle, const char *const *x_labels, int n)
{
	double ticks[16], ybot = y->p0, ytop = y->p1;
	int nt;
	char buf[32];

	nt = svg_ticks(y, ticks, 16);
	for (int i = 0; i < nt; i++) {
		double py = svg_map(y, ticks[i]);

		svg_printf(s, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/>\n", x->p0, py, x->p1, py);
		svg_fmt_num(ticks[i] / (y->div > 0 ? y->div : 1), buf, sizeof(buf));
		svg_text(s, x->p0 - 6, py + 4, "end", 11, buf);
	}
	if (x_labels) {
		double slot = (x->p1 - x->p0) / (n > 0 ? n : 1);

		for (int i = 0; i < n; i++)
			svg_text(s, x->p0 + slot * (i + 0.5), ybot + 16, "middle", 11, x_labels[i]);
	} else {
		nt = svg_ticks(x, ticks, 16);
		for (int i = 0; i < nt; i++) {
			svg_fmt_num(ticks[i], buf, sizeof(buf));
			svg_text(s, svg_map(x, ticks[i]), ybot + 16, "middle", 11, buf);
		}
	}
	svg_printf(s, "<path d=\"M%.1f %.1f V%.1f H%.1f\" fill=\"none\" stroke=\"#333\"/>\n", x->p0, ytop, ybot, x->p1);
	if (xtitle)
		svg_text(s, (x->p0 + x->p1) / 2, ybot + 34, "middle", 12, xtitle);
	if (ytitle) {
		svg_printf(s, "<text transform=\"translate(14 %.1f) rotate(-90)\" text-anchor=\"middle\" font-size=\"12\">",
			   (ybot + ytop) / 2);
		svg_escape(s, ytitle);
		svg_printf(s, "</text>\n");
	}
}

void svg_bar(struct svg *s, double x, double w, double y0, double y1, int color, const char *tip)
{
	svg_printf(s, "<rect class=\"bar\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\">", x,
		   y1 < y0 ? y1 : y0, w, fabs(y0 - y1), svg_palette[color % SVG_COLORS]);
	if (tip) {
		svg_printf(s, "<title>");
		svg_escape(s, tip);
		svg_printf(s, "</title>");
	}
	svg_printf(s, "</rect>\n");
}

void svg_errorbar(struct svg *s, double x, double ylo, double yhi)
{
	svg_printf(s, "<path class=\"err\" d=\"M%.1f %.1f V%.1f M%.1f %.1f H%.1f M%.1f %.1f H%.1f\" stroke=\"#222\" "
		      "fill=\"none\"/>\n", x, ylo, yhi, x - 4, ylo, x + 4, x - 4, yhi, x + 4);
}

void svg_line(struct svg *s, const double *xs, const double *ys, int n, int color, const char *tip)
{
	const char *c = svg_palette[color % SVG_COLORS];

	svg_printf(s, "<g class=\"series\"><polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\" points=\"", c);
	for (int i = 0; i < n; i++)
		svg_printf(s, "%s%.1f,%.1f", i ? " " : "", xs[i], ys[i]);
	svg_printf(s, "\"/>");
	for (int i = 0; i < n; i++)
		svg_printf(s, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"%s\"/>", xs[i], ys[i], c);
	if (tip) {
		svg_printf(s, "<title>");
		svg_escape(s, tip);
		svg_printf(s, "</title>");
	}
	svg_printf(s, "</g>\n");
}

void svg_legend_colored(struct svg *s, double x, double y, const char *const *names, const int *colors, int n)
{
	for (int i = 0; i < n; i++) {
		svg_printf(s, "<rect x=\"%.1f\" y=\"%.1f\" width=\"12\" height=\"12\" fill=\"%s\"/>", x, y + 18 * i - 10,
			   svg_palette[(colors ? colors[i] : i) % SVG_COLORS]);
		svg_text(s, x + 18, y + 18 * i, "start", 12, names[i]);
	}
}

void svg_legend(struct svg *s, double x, double y, const char *const *names, int n)
{
	svg_legend_colored(s, x, y, names, NULL, n);
}
