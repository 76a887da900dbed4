/* The self-contained HTML report: comparison tables, inline SVG charts,
 * and each run's fingerprint. No script, stylesheet or font is fetched. */
#ifndef VMB_HTML_H
#define VMB_HTML_H

#include <stdbool.h>
#include <stdio.h>

#include "compare.h"

/* Charts drawn at most per kind, so that a large run stays readable. */
#define HTML_MAX_LATENCY_CHARTS 12
#define HTML_MAX_SERIES_CHARTS 24

/* Text for HTML: & < > " and ' as entities (content and attribute values). */
void html_escape(FILE *f, const char *s);
int html_report(FILE *f, const struct cmp_table *t, const char *title);

/* The pieces of the report another page is made of (a study's, lab_study_run.c). */
/* <!doctype html> to the page's <h1>, the report's style and extra_css (or NULL) */
void html_page_head(FILE *f, const char *title, const char *extra_css);
/* The operands' environments, as the report shows them: the facts each
 * operand's first run has (CPU, kernel, hypervisor, ...), a row each; all
 * of them (all_facts) or only those in which the operands differ, then
 * every run's, folded. h: the heading's tag ("h2", "h3"). */
void html_environments(FILE *f, const struct cmp_table *t, const char *h, bool all_facts);
/* One bar of html_bars(): a named value and its spread (lo..hi; NAN: none) */
struct html_bar {
	const char *name;
	double v, lo, hi;
};
/* A bar chart of named values in one unit, a bar each in the palette's
 * colours, from zero (or on a log axis when they span more than 20x),
 * with its caption; every text escaped. Nothing when no value is finite. */
void html_bars(FILE *f, const char *title, const char *ytitle, const struct html_bar *bars, size_t n,
	       const char *caption);

#endif
