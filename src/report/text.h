/* Terminal rendering of result documents. Reports read documents, never
 * suites or runner structures, so a stored or imported run looks the same. */
#ifndef VMB_TEXT_H
#define VMB_TEXT_H

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>

/* A value with its unit, scaled for reading: 1234567 ns -> "1.23 ms". */
void text_format_value(double v, const char *unit, char *buf, size_t len);
/* The unit a reader sees for a metric: a rate named after what it counts
 * ("IOPS" for iops, "events/s" for events_per_s, "X/s" for any X_per_s)
 * where the document's unit is "1/s", else the document's unit. Every
 * human-readable view (run's summary, show, compare, the report) uses it;
 * JSON, CSV and OpenMetrics keep the document's unit. */
void text_unit_label(const char *metric, const char *unit, char *buf, size_t len);
/* text_format_value with the metric's text_unit_label: 17907 "IOPS". */
void text_format_metric(double v, const char *metric, const char *unit, char *buf, size_t len);
/* A parameter's value as run prints it: strings bare, numbers plain. */
void text_json_value(const json_t *v, char *buf, size_t len);
/* A case parameter's value for a reader: a size with its binary suffix
 * (size=268435456 -> "256M", as the options take it), else as
 * text_json_value. The one place that says which parameters are sizes. */
void text_param_value(const char *key, const json_t *v, char *buf, size_t len);
/* Bytes with a binary suffix: 4096 -> "4k", 268435456 -> "256M",
 * 1536 -> "1.5k", 100 -> "100". */
void text_format_size(double bytes, char *buf, size_t len);

/* "threads=2 bs=4k": an object's members in its order, strings bare, sizes
 * with their suffix (as run prints a case); cut at a whole member when buf
 * is too short. */
void text_params(const json_t *params, char *buf, size_t len);
/* The same with every number as stored ("bs=4096"), for CSV. */
void text_params_exact(const json_t *params, char *buf, size_t len);
/* The results table of one document: headline metrics, and the secondary
 * ones unless their 95% CI is wider than their value (all: every metric). */
void text_print_result(FILE *f, const json_t *doc);
void text_print_result_all(FILE *f, const json_t *doc, bool all);

/* Lines for a reader are wrapped, never cut: at the terminal's width when
 * f is one (never under 40 columns), else at fallback (a log or a pipe:
 * 100 or 120, what the caller's tables fit in). */
size_t text_width(FILE *f, size_t fallback);
/* s at width columns (UTF-8, a character a column), broken at spaces,
 * every continuation indented by indent spaces, a newline after each line;
 * a word longer than a line stays whole. A newline in s starts a line. */
void text_wrap(FILE *f, const char *s, size_t width, size_t indent);

#endif
