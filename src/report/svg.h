/* A small SVG writer with the primitives every chart shares: a data-to-pixel
 * axis (linear or log), nice ticks, axes with labels, bars, error bars,
 * lines with markers, a legend. Output is a string to inline in HTML. */
#ifndef VMB_SVG_H
#define VMB_SVG_H

#include <stdbool.h>
#include <stddef.h>

struct svg {
	char *buf;
	size_t len, cap;
	bool oom;
};

struct svg_axis {
	double lo, hi;   /* data range */
	bool log;        /* log10 scale; lo must be > 0 */
	double p0, p1;   /* pixel range (p0 for lo) */
	double div;      /* tick labels show value / div (0: 1), e.g. ns shown in s */
};

#define SVG_COLORS 8
extern const char *const svg_palette[SVG_COLORS];

void svg_begin(struct svg *s, int width, int height, const char *title);
/* Caller frees; NULL on out-of-memory. */
char *svg_end(struct svg *s);
void svg_printf(struct svg *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Text, XML-escaped. anchor: "start", "middle", "end". */
void svg_text(struct svg *s, double x, double y, const char *anchor, int size, const char *text);
void svg_escape(struct svg *s, const char *text);

double svg_map(const struct svg_axis *a, double v);
/* Nice tick values covering [lo, hi]: 1/2/5 x 10^k steps, or powers of ten
 * on a log axis. Returns how many were written (at most max). */
int svg_ticks(const struct svg_axis *a, double *ticks, int max);
/* Widen [lo, hi] to nice tick boundaries (and include 0 on a linear axis when asked). */
void svg_axis_nice(struct svg_axis *a, bool from_zero);
/* Axis lines, ticks with labels, grid and titles; x_labels: categorical
 * labels (n of them, centred in equal slots) or NULL for a numeric x axis. */
void svg_axes(struct svg *s, const struct svg_axis *x, const struct svg_axis *y, const char *xtitle,
	      const char *ytitle, const char *const *x_labels, int n);
void svg_bar(struct svg *s, double x, double w, double y0, double y1, int color, const char *tip);
void svg_errorbar(struct svg *s, double x, double ylo, double yhi);
void svg_line(struct svg *s, const double *xs, const double *ys, int n, int color, const char *tip);
void svg_legend(struct svg *s, double x, double y, const char *const *names, int n);
/* A legend whose entry i has palette colour colors[i]. */
void svg_legend_colored(struct svg *s, double x, double y, const char *const *names, const int *colors, int n);
/* A short number for tick labels: 1.5k, 20M, 0.25 */
void svg_fmt_num(double v, char *buf, size_t len);

#endif
