/* The self-contained HTML report: comparison tables, inline SVG charts,
 * and each run's fingerprint. No script, stylesheet or font is fetched. */
#ifndef VMB_HTML_H
#define VMB_HTML_H

#include <stdio.h>

#include "compare.h"

/* Charts drawn at most per kind, so that a large run stays readable. */
#define HTML_MAX_LATENCY_CHARTS 12
#define HTML_MAX_SERIES_CHARTS 24

/* Text for HTML: & < > " and ' as entities (content and attribute values). */
void html_escape(FILE *f, const char *s);
int html_report(FILE *f, const struct cmp_table *t, const char *title);

#endif
