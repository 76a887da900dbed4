/* Private to src/report/html*.c: the page's pieces that more than one of
 * its files uses (escaping, the chart kinds, the helpers charts share). */
#ifndef VMB_HTML_DRAW_H
#define VMB_HTML_DRAW_H

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>

#include "compare.h"
#include "svg.h"

/* html_escape, for text that comes from a document */
void html_esc(FILE *f, const char *s);
/* Whether r's operands have a latency histogram to draw. */
bool html_has_hist(const struct cmp_table *t, const struct cmp_row *r);

/* The operands' names, in order (the caller frees the array, not the names). */
const char **html_operand_names(const struct cmp_table *t);
/* An axis of nanoseconds is labelled in s, ms or us; buf gets the axis title. */
void html_axis_title(struct svg_axis *y, const char *metric, const char *unit, char *buf, size_t len);
/* A chart with its caption; takes svg (freed here). */
void html_figure(FILE *f, char *svg, const char *caption);
/* The params whose value is not the same in every one of the rows. */
json_t *html_varying_keys(const struct cmp_table *t, const size_t *rows, size_t n);
/* The one numeric parameter that varies across these rows, if exactly one does. */
bool html_sweep_param(const struct cmp_table *t, const size_t *rows, size_t n, const json_t *vary, char *key,
		      size_t keylen);

/* The chart kinds (html_draw.c, html_phase.c). */
void html_bar_chart(FILE *f, const struct cmp_table *t, const size_t *rows, size_t n, const json_t *vary);
void html_curve_chart(FILE *f, const struct cmp_table *t, const size_t *rows, size_t n, const char *key);
void html_latency_chart(FILE *f, const struct cmp_table *t, const struct cmp_row *r);
/* Position of r's metric among the stacked phases its suite declares, or -1. */
int html_phase_index(const struct cmp_table *t, const struct cmp_row *r);
void html_phase_chart(FILE *f, const struct cmp_table *t, const size_t *rows, size_t n);

/* Every chart the page gets (html_charts.c). */
void html_charts(FILE *f, const struct cmp_table *t);
/* Line charts of the series over time, first run of each operand (html_series.c). */
void html_series_charts(FILE *f, const struct cmp_table *t);
/* lab contend's run delay against the guests' load (html_load.c):
 * a line per policy and guest, from the operands named "... load=N ...". */
void html_load_charts(FILE *f, const struct cmp_table *t);

#endif
