/* Comparison for the terminal: metrics under their case, columns when they
 * fit in 120, the caveats wrapped, a tally; and the regression gate's lines. */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"
#include "compare_out.h"
#include "text.h"
#include "../core/str.h"
#include "../core/util.h"
#include "../core/banned.h"

/* Terminal columns of UTF-8 text (every character one column wide). */
static size_t cols(const char *s)
{
	size_t n = 0;

	for (; *s; s++)
		n += ((unsigned char)*s & 0xC0) != 0x80;
	return n;
}

/* s cut to w columns at a character boundary, "~" marking the cut, into buf. */
static void fit(const char *s, size_t w, char *buf, size_t len)
{
	size_t c = 0, i = 0;

	if (cols(s) <= w) {
		snprintf(buf, len, "%s", s);
		return;
	}
	for (; s[i] && i + 2 < len; i++) {
		if (((unsigned char)s[i] & 0xC0) != 0x80 && ++c > w - 1)
			break;
		buf[i] = s[i];
	}
	buf[i++] = '~';
	buf[i] = '\0';
}

/* s in a column of w: cut to fit, padded with spaces (none after the last column). */
static void column(FILE *f, const char *s, size_t w, bool pad, const char *color)
{
	char buf[512];

	fit(s, w, buf, sizeof(buf));
	if (color)
		fprintf(f, "\033[%sm%s\033[0m", color, buf);
	else
		fputs(buf, f);
	for (size_t n = cols(buf); pad && n < w; n++)
		fputc(' ', f);
}

static size_t umax(size_t a, size_t b)
{
	return a > b ? a : b;
}

static size_t umin(size_t a, size_t b)
{
	return a < b ? a : b;
}

static const char *verdict_color(const struct cmp_table *t, const struct cmp_row *r, size_t o, bool color)
{
	struct cmp_verdict v;

	if (!color)
		return NULL;
	cmp_judge(t, r, o, &v);
	return v.better > 0 ? "32" : v.better < 0 ? "31" : NULL;
}

#define TEXT_WIDTH 120

/* An operand in a column: its name, or "#k" when some name does not fit
 * (the lines at the top say which name #k is). */
static void op_label(const struct cmp_table *t, size_t o, bool numbered, char *buf, size_t len)
{
	if (numbered)
		snprintf(buf, len, "#%zu%s", o + 1, o == t->baseline ? " (baseline)" : "");
	else
		snprintf(buf, len, "%s%s", t->ops[o].name, o == t->baseline ? " (baseline)" : "");
}


static void caveats_wrapped(FILE *f, const struct cmp_table *t, const struct cmp_filter *flt)
{
	char *text = cmp_caveats_text(t, flt);

	if (!text)
		return;
	if (*text)
		text_wrap(f, text, text_width(f, TEXT_WIDTH), 4);
	free(text);
}

/* A line of notes, whole (a figure cut off would be a figure lost). */
static void put_line(FILE *f, const char *s)
{
	fprintf(f, "%s\n", s);
}

/* The closing tally: a line per operand against the baseline, wrapped
 * (a count cut off would be a count lost). */
static void tally_lines(FILE *f, const struct cmp_table *t, const struct cmp_filter *flt)
{
	char buf[512];

	for (size_t o = 0; o < t->nops; o++) {
		struct cmp_tally n;

		if (o == t->baseline)
			continue;
		cmp_tally(t, flt, o, &n);
		snprintf(buf, sizeof(buf), "%s vs %s: %zu better, %zu worse, %zu same, %zu inconclusive, %zu missing",
			 t->ops[o].name, t->ops[t->baseline].name, n.better, n.worse, n.same, n.untested + n.inconclusive,
			 n.missing);
		text_wrap(f, buf, text_width(f, TEXT_WIDTH), 4);
	}
}

/* Text: metrics grouped under their case ("cpu.prime  threads=1 max-prime=2000").
 * With a column per operand and one per verdict when that fits in 120
 * columns, else a line per operand under each metric. A tally closes it. */
int cmp_print_text(FILE *f, const struct cmp_table *t, const struct cmp_filter *flt, bool color)
{
	size_t wmet = 6, wval = 5, wverd = 7, wname = 4, wide = 0, prev = SIZE_MAX;
	char buf[2048], cell[96], verdict[320];
	bool numbered = false;

	for (size_t i = 0; i < t->nrows; i++) {
		const struct cmp_row *r = &t->rows[i];

		if (!cmp_row_selected(r, flt))
			continue;
		wmet = umax(wmet, cols(r->metric));
		for (size_t o = 0; o < t->nops; o++) {
			cmp_cell_text(r, &r->cells[o], cell, sizeof(cell));
			wval = umax(wval, cols(cell));
			if (o == t->baseline)
				continue;
			cmp_verdict_text(t, r, o, verdict, sizeof(verdict));
			wverd = umax(wverd, cols(verdict));
		}
	}
	for (size_t o = 0; o < t->nops; o++)
		wname = umax(wname, cols(t->ops[o].name) + (o == t->baseline ? 11 : 0));
	wmet = umin(wmet, 28);
	wval = umin(wval, 40); /* "1234567 events/s ±14.5%(r) 10x100(i)" */
	wverd = umin(wverd, 62); /* "+45.9% no significant difference (p=0.15 paired, mdd 121.6%)" */
	/* wide: each operand's value under its name, its verdict beside it */
	if (2 + wmet + t->nops * (2 + wval) + (t->nops - 1) * (2 + wverd) <= TEXT_WIDTH) {
		wide = umax(wval, umin(wname, 24));
		while (wide > wval && 2 + wmet + t->nops * (2 + wide) + (t->nops - 1) * (2 + wverd) > TEXT_WIDTH)
			wide--;
		numbered = wname > wide;
	} else {
		size_t room = TEXT_WIDTH - (2 + wmet + 2 + 2 + wval + 2 + wverd);

		numbered = wname > room;
		wname = numbered ? 4 + 11 : wname;
	}
	for (size_t o = 0; o < t->nops; o++) {
		size_t runs = json_array_size(t->ops[o].docs), off = 0;
		char sessions[1024];

		str_appendf(buf, sizeof(buf), &off, "#%zu %s%s, %zu run%s", o + 1, t->ops[o].name,
			    o == t->baseline ? " (baseline)" : "", runs, runs == 1 ? "" : "s");
		/* a selector that pooled sessions says so: a cell's NxM is what it used */
		if (cmp_sessions_text(t->ops[o].docs, sessions, sizeof(sessions)) > 1)
			str_appendf(buf, sizeof(buf), &off, " of several lab sessions pooled (%s); each cell's runs x "
				    "repetitions say how many it used", sessions);
		text_wrap(f, buf, text_width(f, TEXT_WIDTH), 4);
	}
	if (wide) {
		fputs("  ", f);
		column(f, "METRIC", wmet, true, NULL);
		for (size_t o = 0; o < t->nops; o++) {
			op_label(t, o, numbered, buf, sizeof(buf));
			fputs("  ", f);
			column(f, buf, wide, o + 1 < t->nops || o != t->baseline, NULL);
			if (o != t->baseline) {
				fputs("  ", f);
				column(f, "VS BASELINE", wverd, o + 1 < t->nops, NULL);
			}
		}
		fputc('\n', f);
	}
	for (size_t i = 0; i < t->nrows; i++) {
		const struct cmp_row *r = &t->rows[i];

		if (!cmp_row_selected(r, flt))
			continue;
		if (prev == SIZE_MAX || strcmp(t->rows[prev].suite, r->suite) || strcmp(t->rows[prev].test, r->test) ||
		    strcmp(t->rows[prev].params, r->params)) {
			char p[400];

			cmp_row_params(r, p, sizeof(p));
			snprintf(buf, sizeof(buf), "%s.%s%s%s", r->suite, r->test, *p ? "  " : "", p);
			column(f, buf, TEXT_WIDTH, false, NULL);
			fputc('\n', f);
		}
		prev = i;
		fputs("  ", f);
		column(f, r->metric, wmet, true, NULL);
		for (size_t o = 0; o < t->nops; o++) {
			bool last = o + 1 == t->nops;

			cmp_cell_text(r, &r->cells[o], cell, sizeof(cell));
			if (o != t->baseline)
				cmp_verdict_text(t, r, o, verdict, sizeof(verdict));
			if (wide) {
				fputs("  ", f);
				column(f, cell, wide, !last || o != t->baseline, NULL);
				if (o != t->baseline) {
					fputs("  ", f);
					column(f, verdict, wverd, !last, verdict_color(t, r, o, color));
				}
				continue;
			}
			if (o) {
				fputs("\n  ", f);
				column(f, "", wmet, true, NULL);
			}
			fputs("  ", f);
			op_label(t, o, numbered, buf, sizeof(buf));
			column(f, buf, wname, true, NULL);
			fputs("  ", f);
			column(f, cell, wval, o != t->baseline, NULL);
			if (o != t->baseline) {
				fputs("  ", f);
				column(f, verdict, wverd, false, verdict_color(t, r, o, color));
			}
		}
		fputc('\n', f);
	}
	cmp_bases(f, t, flt, put_line);
	cmp_stat_lines(f, t, flt, put_line);
	caveats_wrapped(f, t, flt);
	tally_lines(f, t, flt);
	cmp_print_failures(f, t);
	return 0;
}

struct regressions {
	FILE *f;
	double pct;
	size_t n;
};

/* Only a run-level significant worsening counts: repetitions of one run
 * never fail a gate on their own. */
static void regression(const struct cmp_table *t, const struct cmp_row *r, size_t o, const struct cmp_verdict *v,
		       void *arg)
{
	struct regressions *g = arg;
	char p[256];

	if (v->rc.significant >= 0 || !(fabs(v->gap_pct) > g->pct))
		return;
	cmp_row_params(r, p, sizeof(p));
	fprintf(g->f, "  %s.%s %s %s: %+.1f%% in %s (p=%.2g, %zu vs %zu runs%s)\n", r->suite, r->test, p, r->metric,
		v->gap_pct, t->ops[o].name, v->w.p, r->cells[t->baseline].nruns, r->cells[o].nruns,
		v->rc.calibrated ? ", calibrated noise" : v->rc.pairs ? ", paired by round" : "");
	g->n++;
}

/* Significant regressions larger than pct, a line each. */
size_t cmp_regressions(FILE *f, const struct cmp_table *t, const struct cmp_filter *flt, double pct)
{
	struct regressions g = { .f = f, .pct = pct };

	cmp_each_verdict(t, flt, regression, &g);
	return g.n;
}

void cmp_print_failure(FILE *f, const json_t *x)
{
	const char *console = json_string_value(json_object_get(x, "console"));
	const char *qemu = json_string_value(json_object_get(x, "qemu_log"));

	fprintf(f, "  %s, round %lld, try %lld of %lld: %s failed, %s: %s\n",
		json_string_value(json_object_get(x, "config")) ?: "?",
		(long long)json_integer_value(json_object_get(x, "round")),
		(long long)json_integer_value(json_object_get(x, "try")),
		(long long)json_integer_value(json_object_get(x, "tries")), json_string_value(json_object_get(x, "step")) ?: "?",
		json_string_value(json_object_get(x, "outcome")) ?: "?", json_string_value(json_object_get(x, "reason")) ?: "?");
	fprintf(f, "    console: %s\n    QEMU's output: %s\n", console ? console : "(none kept)", qemu ? qemu : "(none kept)");
}

void cmp_print_failures(FILE *f, const struct cmp_table *t)
{
	const json_t *x;
	size_t i;

	if (!json_array_size(t->failures))
		return;
	fputs("failed boots (the files named are kept: the lab removes none of them):\n", f);
	json_array_foreach(t->failures, i, x)
		cmp_print_failure(f, x);
}
