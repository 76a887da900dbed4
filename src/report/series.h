/* Series over time (cases[].series of a result document) as text for
 * `show --series` and as CSV rows for `export --format csv --series`. */
#ifndef VMB_SERIES_H
#define VMB_SERIES_H

#include <jansson.h>
#include <stdio.h>

/* The CSV header, then one row per point: run, suite, test, params,
 * repetition, t_s, metric, value, unit. */
int series_print_csv(FILE *f, const json_t *doc);
/* Per case with series, a line per series: its points, time span,
 * min/mean/max and a sparkline; "no series" when the run has none. */
void series_print_text(FILE *f, const json_t *doc);
/* How many series the document holds. */
size_t series_count(const json_t *doc);

#endif
