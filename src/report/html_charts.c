/* Which charts the HTML report draws: headline rows grouped into bars or
 * curves per (suite, test, metric), declared phases stacked per case, the
 * first latency distributions. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "html.h"
#include "html_draw.h"
#include "svg.h"
#include "text.h"
#include "../core/str.h"
#include "../core/unit.h"
#include "../core/banned.h"

/* Grouping of rows by a key without comparing every row with every other:
 * sort row numbers by (key, row), then order the groups by their first row,
 * so that charts come in the order the documents list them. */
struct group {
	size_t start, n;
};

typedef int (*row_cmp)(const struct cmp_row *a, const struct cmp_row *b);

static const struct cmp_table *sort_table;
static row_cmp sort_key;

static int by_key_then_row(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	int c = sort_key(&sort_table->rows[x], &sort_table->rows[y]);

	return c ? c : (x > y) - (x < y);
}

static const size_t *sort_rows;

static int by_first_row(const void *a, const void *b)
{
	size_t x = sort_rows[((const struct group *)a)->start], y = sort_rows[((const struct group *)b)->start];

	return (x > y) - (x < y);
}

/* rows[0..n) sorted into groups of equal key; *groups allocated, *ngroups set. */
static int group_rows(const struct cmp_table *t, size_t *rows, size_t n, row_cmp key, struct group **groups,
		      size_t *ngroups)
{
	struct group *g = calloc(n ? n : 1, sizeof(*g));
	size_t k = 0;

	if (!g)
		return -ENOMEM;
	sort_table = t, sort_key = key;
	qsort(rows, n, sizeof(*rows), by_key_then_row);
	for (size_t i = 0; i < n; i++) {
		if (!i || key(&t->rows[rows[i - 1]], &t->rows[rows[i]]))
			g[k++] = (struct group){ .start = i };
		g[k - 1].n++;
	}
	sort_rows = rows;
	qsort(g, k, sizeof(*g), by_first_row);
	*groups = g;
	*ngroups = k;
	return 0;
}

static int same_chart(const struct cmp_row *a, const struct cmp_row *b)
{
	int c = strcmp(a->suite, b->suite);

	if (!c)
		c = strcmp(a->test, b->test);
	return c ? c : strcmp(a->metric, b->metric);
}

static int same_phases(const struct cmp_row *a, const struct cmp_row *b)
{
	int c = strcmp(a->suite, b->suite);

	if (!c)
		c = strcmp(a->test, b->test);
	return c ? c : strcmp(a->params, b->params);
}

void html_charts(FILE *f, const struct cmp_table *t)
{
	size_t *rows = calloc(t->nrows ? t->nrows : 1, sizeof(*rows)), n = 0, ng = 0;
	struct group *g = NULL;
	int nlat = 0;

	if (!rows)
		goto out;
	fputs("<h2>Charts</h2>\n<div class=\"charts\">\n", f);
	/* headline rows by (suite, test, metric) */
	for (size_t i = 0; i < t->nrows; i++)
		if (t->rows[i].headline)
			rows[n++] = i;
	if (group_rows(t, rows, n, same_chart, &g, &ng) < 0)
		goto out;
	for (size_t k = 0; k < ng; k++) {
		size_t *gr = rows + g[k].start;
		json_t *vary = html_varying_keys(t, gr, g[k].n);
		char key[64];

		if (!vary)
			continue;
		/* a curve says more than bars from three points on */
		if (g[k].n >= 3 && html_sweep_param(t, gr, g[k].n, vary, key, sizeof(key)))
			html_curve_chart(f, t, gr, g[k].n, key);
		html_bar_chart(f, t, gr, g[k].n, vary);
		json_decref(vary);
	}
	free(g);
	g = NULL;
	/* declared phases, stacked, per (suite, test, params), in their declared order */
	n = 0;
	for (size_t i = 0; i < t->nrows; i++)
		if (html_phase_index(t, &t->rows[i]) >= 0)
			rows[n++] = i;
	if (group_rows(t, rows, n, same_phases, &g, &ng) < 0)
		goto out;
	for (size_t k = 0; k < ng; k++) {
		size_t *gr = rows + g[k].start;

		/* a few rows each: insertion by declared position, equal ones in row order */
		for (size_t a = 1; a < g[k].n; a++)
			for (size_t b = a; b > 0 && html_phase_index(t, &t->rows[gr[b - 1]]) > html_phase_index(t, &t->rows[gr[b]]);
			     b--) {
				size_t x = gr[b];

				gr[b] = gr[b - 1];
				gr[b - 1] = x;
			}
		html_phase_chart(f, t, gr, g[k].n);
	}
	fputs("</div>\n<h2>Latency percentiles</h2>\n<div class=\"charts\">\n", f);
	for (size_t i = 0; i < t->nrows && nlat < HTML_MAX_LATENCY_CHARTS; i++)
		if (html_has_hist(t, &t->rows[i])) {
			html_latency_chart(f, t, &t->rows[i]);
			nlat++;
		}
	fputs("</div>\n", f);
	if (nlat == HTML_MAX_LATENCY_CHARTS)
		fprintf(f, "<p>The first %d latency distributions are drawn; the tables have all of them.</p>\n", nlat);
out:
	free(g);
	free(rows);
}

