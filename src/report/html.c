/* HTML report, the page: its style, the comparison tables, the tally and
 * caveats, each run's facts and fingerprint; the charts are html_charts.c
 * (which), html_draw.c (bars, curves, latency) and html_phase.c. Every string that
 * comes from a document (names, params, units, labels, notes, fingerprint) is
 * escaped where it is printed: a result a guest sent in must not put markup
 * or script into the page. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "html.h"
#include "html_draw.h"
#include "hostcost.h"
#include "svg.h"
#include "text.h"
#include "../core/macro.h"
#include "../core/str.h"
#include "../core/unit.h"
#include "../core/banned.h"

/* Below 700 px the comparison tables turn into one card per metric, each
 * value labelled (data-label), so the verdict is on screen on a phone. */
static const char css[] =
	"body{font-family:system-ui,sans-serif;max-width:1200px;margin:0 auto;padding:0 12px;color:#222}"
	"h1{font-size:1.6em}h2{margin-top:1.6em;border-bottom:1px solid #ccc}"
	".scroll{overflow-x:auto}table{border-collapse:collapse;font-size:13px;margin:8px 0}"
	"th,td{border:1px solid #ccc;padding:3px 6px;text-align:right;vertical-align:top}"
	"th:first-child,td:first-child{text-align:left}thead th{background:#f2f2f2}"
	"td.what{text-align:left;min-width:12em;max-width:26em}td.v{white-space:nowrap}"
	"td.vd,th.vd{text-align:left;min-width:8em;max-width:16em}small{color:#555}"
	"p.lead{font-size:1.15em}.better{color:#060}.worse{color:#b00}.same{color:#666}p.tally{font-size:1.05em}"
	".charts{display:flex;flex-wrap:wrap;gap:12px}.charts figure{margin:0;flex:1 1 480px;max-width:580px}"
	"figcaption{font-size:13px;color:#444}svg.chart{width:100%;height:auto}"
	"details{margin:6px 0}summary{cursor:pointer}"
	"@media (max-width:700px){body{padding:0 6px}table{font-size:12px}"
	"table.cmp,table.cmp tbody,table.cmp tr,table.cmp td{display:block}table.cmp thead{display:none}"
	"table.cmp tr{border:1px solid #ccc;margin:6px 0;padding:2px 0}"
	"table.cmp td{border:none;text-align:left;max-width:none;white-space:normal}"
	"table.cmp td[data-label]::before{content:attr(data-label) \": \";color:#444}}"
	"@media print{.charts figure{break-inside:avoid}details{break-inside:avoid}}";

void html_escape(FILE *f, const char *s)
{
	for (; s && *s; s++) {
		switch (*s) {
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '&': fputs("&amp;", f); break;
		case '"': fputs("&quot;", f); break;
		case '\'': fputs("&#39;", f); break;
		default: fputc(*s, f); break;
		}
	}
}

void html_esc(FILE *f, const char *s)
{
	html_escape(f, s);
}

/* Rows by (suite, test, params): where a headline rate finds its case's latency. */
static int by_case(const void *a, const void *b)
{
	const struct cmp_row *x = *(const struct cmp_row *const *)a, *y = *(const struct cmp_row *const *)b;
	int c = strcmp(x->suite, y->suite);

	if (!c)
		c = strcmp(x->test, y->test);
	if (!c)
		c = strcmp(x->params, y->params);
	return c;
}

/* Equal cases in table order: the first latency metric of a case wins. */
static int by_case_then_order(const void *a, const void *b)
{
	const struct cmp_row *x = *(const struct cmp_row *const *)a, *y = *(const struct cmp_row *const *)b;
	int c = by_case(a, b);

	return c ? c : (x > y) - (x < y);
}

struct latency_index {
	const struct cmp_row **rows; /* rows with a histogram, sorted by case */
	size_t n;
};

bool html_has_hist(const struct cmp_table *t, const struct cmp_row *r)
{
	for (size_t o = 0; o < t->nops; o++)
		if (r->cells[o].hist)
			return true;
	return false;
}

static int latency_index_build(const struct cmp_table *t, struct latency_index *li)
{
	li->n = 0;
	li->rows = calloc(t->nrows ? t->nrows : 1, sizeof(*li->rows));
	if (!li->rows)
		return -ENOMEM;
	for (size_t i = 0; i < t->nrows; i++)
		if (html_has_hist(t, &t->rows[i]))
			li->rows[li->n++] = &t->rows[i];
	qsort(li->rows, li->n, sizeof(*li->rows), by_case_then_order);
	return 0;
}

/* The latency row of r's case (r itself when it has a histogram), or NULL. */
static const struct cmp_row *latency_of(const struct latency_index *li, const struct cmp_table *t,
					const struct cmp_row *r)
{
	const struct cmp_row **hit;

	if (html_has_hist(t, r))
		return r;
	hit = bsearch(&r, li->rows, li->n, sizeof(*li->rows), by_case);
	if (!hit)
		return NULL;
	while (hit > li->rows && !by_case(hit - 1, &r))
		hit--;
	return *hit;
}

/* " p99 clat 1.2 ms" from a histogram, or "" when it has no valid p99. */
static void p99_text(const struct cmp_row *lat, const json_t *h, char *buf, size_t len)
{
	const json_t *p = json_object_get(json_object_get(h, "percentiles"), "p99");
	const char *unit = json_string_value(json_object_get(h, "unit"));
	char val[48];

	buf[0] = '\0';
	if (!json_is_number(p) || !isfinite(json_number_value(p)) || json_number_value(p) < 0)
		return;
	text_format_value(json_number_value(p), unit ? unit : lat->unit, val, sizeof(val));
	snprintf(buf, len, "p99 %s %s", lat->metric, val);
}

/* The verdict's label in the phone layout: "b vs a". */
static void label(FILE *f, const struct cmp_table *t, size_t o)
{
	html_esc(f, t->ops[o].name);
	fputs(" vs ", f);
	html_esc(f, t->ops[t->baseline].name);
}

static void verdict_cell(FILE *f, const struct cmp_table *t, const struct cmp_row *r, size_t o)
{
	struct cmp_verdict v;
	char words[320];

	/* the terminal's words, so that the two never say different things */
	cmp_judge(t, r, o, &v);
	cmp_verdict_text(t, r, o, words, sizeof(words));
	fprintf(f, "<td class=\"vd %s\" data-label=\"", v.better > 0 ? "better" : v.better < 0 ? "worse" : "same");
	label(f, t, o);
	fputs("\" title=\"", f);
	html_esc(f, v.basis);
	fputs("\">", f);
	html_esc(f, words);
	fputs("</td>", f);
}

static void value_cell(FILE *f, const struct cmp_table *t, const struct cmp_row *r, const struct cmp_row *lat,
		       size_t o)
{
	const struct cmp_cell *c = &r->cells[o];
	char val[48], p99[160] = "";

	fputs("<td class=\"v\" data-label=\"", f);
	html_esc(f, t->ops[o].name);
	fputs("\">", f);
	if (!c->n) {
		fputs("-</td>", f);
		return;
	}
	/* the cell's one figure, as the terminal, CSV and JSON give it */
	text_format_metric(c->fig.mean, r->metric, r->unit, val, sizeof(val));
	html_esc(f, val);
	if (c->fig.n > 1 && c->fig.mean != 0 && isfinite(c->fig.ci95_high))
		fprintf(f, " <small>±%.1f%%%s</small>", 100 * (c->fig.ci95_high - c->fig.mean) / fabs(c->fig.mean),
			c->fig_runs ? "" : CMP_REPS_MARK);
	if (lat)
		p99_text(lat, lat->cells[o].hist, p99, sizeof(p99));
	if (*p99) {
		fputs("<br><small>", f);
		html_esc(f, p99);
		fputs("</small>", f);
	}
	fputs("</td>", f);
}

/* A comparison table of the given rows: what was measured, the verdicts
 * against the baseline (first, so that they are on screen without
 * scrolling), then each operand's mean with its 95% CI (and p99 when the
 * case has a latency histogram). */
static void table(FILE *f, const struct cmp_table *t, const struct latency_index *li, const size_t *rows, size_t n,
		  const char *id)
{
	const char *base = t->ops[t->baseline].name;

	fputs("<div class=\"scroll\"><table class=\"cmp\"", f);
	if (id)
		fprintf(f, " id=\"%s\"", id);
	fputs("><thead><tr><th>metric</th>", f);
	for (size_t o = 0; o < t->nops; o++) {
		if (o == t->baseline)
			continue;
		fputs("<th class=\"vd\">", f);
		html_esc(f, t->ops[o].name);
		fputs(" vs ", f);
		html_esc(f, base);
		fputs("</th>", f);
	}
	for (size_t o = 0; o < t->nops; o++) {
		fputs("<th>", f);
		html_esc(f, t->ops[o].name);
		fputs(o == t->baseline ? " (baseline)</th>" : "</th>", f);
	}
	fputs("</tr></thead><tbody>\n", f);
	for (size_t i = 0; i < n; i++) {
		const struct cmp_row *r = &t->rows[rows[i]];
		char p[512], unit[40];

		cmp_row_params(r, p, sizeof(p));
		fputs("<tr><td class=\"what\">", f);
		html_esc(f, r->suite);
		fputc('.', f);
		html_esc(f, r->test);
		fputs(" <b>", f);
		html_esc(f, r->metric);
		fputs("</b><br><small>", f);
		if (*p) {
			html_esc(f, p);
			fputs("; ", f);
		}
		text_unit_label(r->metric, r->unit, unit, sizeof(unit));
		html_esc(f, unit);
		fprintf(f, ", %s is better</small></td>", r->higher_better ? "higher" : "lower");
		for (size_t o = 0; o < t->nops; o++)
			if (o != t->baseline)
				verdict_cell(f, t, r, o);
		for (size_t o = 0; o < t->nops; o++)
			value_cell(f, t, r, li ? latency_of(li, t, r) : NULL, o);
		fputs("</tr>\n", f);
	}
	fputs("</tbody></table></div>\n", f);
}

/* The selected rows: those every operand has in a table, those some lack in
 * a collapsed section of their own below it. */
static void tables(FILE *f, const struct cmp_table *t, const struct latency_index *li, bool all, const char *id)
{
	size_t *rows = calloc(t->nrows ? t->nrows : 1, sizeof(*rows)), n = 0, k;

	if (!rows)
		return;
	for (size_t i = 0; i < t->nrows; i++)
		if ((all || t->rows[i].headline) && cmp_row_complete(t, &t->rows[i]))
			rows[n++] = i;
	table(f, t, li, rows, n, id);
	k = n;
	n = 0;
	for (size_t i = 0; i < t->nrows; i++)
		if ((all || t->rows[i].headline) && !cmp_row_complete(t, &t->rows[i]))
			rows[n++] = i;
	if (n) {
		fprintf(f, "<details class=\"onesided\"><summary>%zu metric%s measured in only some of the operands%s</summary>\n",
			n, n == 1 ? "" : "s", k ? "" : " (all of them)");
		table(f, t, li, rows, n, NULL);
		fputs("</details>\n", f);
	}
	free(rows);
}

/* A note, a paragraph of its own. */
static void html_line(FILE *f, const char *s)
{
	fputs("<p class=\"caveat\">", f);
	html_esc(f, s);
	fputs("</p>\n", f);
}

/* compare's caveats (busy host, one run, fingerprints), a paragraph each. */
static void caveats(FILE *f, const struct cmp_table *t, const struct cmp_filter *flt)
{
	char *text = cmp_caveats_text(t, flt), *line, *save = NULL;

	if (!text)
		return;
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		fputs("<p class=\"caveat\">", f);
		html_esc(f, line);
		fputs("</p>\n", f);
	}
	free(text);
}

/* One sentence per operand: how many headline metrics are better, worse, the same. */
static void tally(FILE *f, const struct cmp_table *t)
{
	const struct cmp_filter headline = { .all = false };

	for (size_t o = 0; o < t->nops; o++) {
		struct cmp_tally n;

		if (o == t->baseline)
			continue;
		cmp_tally(t, &headline, o, &n);
		fputs("<p class=\"tally\"><b>", f);
		html_esc(f, t->ops[o].name);
		fputs("</b> against <b>", f);
		html_esc(f, t->ops[t->baseline].name);
		fprintf(f, "</b>: <span class=\"better\">%zu better</span>, <span class=\"worse\">%zu worse</span>, "
			   "<span class=\"same\">%zu the same</span> (within &plusmn;%g%%), %zu with no significant "
			   "difference",
			n.better, n.worse, n.same, t->margin_pct, n.inconclusive);
		if (n.untested)
			fprintf(f, ", %zu not tested (one run a side: run-to-run noise unknown)", n.untested);
		if (n.missing)
			fprintf(f, ", %zu measured on one side only", n.missing);
		fprintf(f, "; of %zu headline metric%s.</p>\n",
			n.better + n.worse + n.same + n.inconclusive + n.untested + n.missing,
			n.better + n.worse + n.same + n.inconclusive + n.untested + n.missing == 1 ? "" : "s");
	}
	caveats(f, t, &headline);
}

/* A fact in words, not JSON: a string as it is, an object as "key value,
 * key value" (a nested one in parentheses; labels as key=value), an
 * array's items joined by "; ", a boolean yes or no, nothing as "-". */
static void fact_words(FILE *f, const json_t *v, int depth, bool kv)
{
	const char *k;
	json_t *x;
	size_t i;

	if (json_is_string(v)) {
		html_esc(f, json_string_value(v));
	} else if (json_is_integer(v)) {
		fprintf(f, "%lld", (long long)json_integer_value(v));
	} else if (json_is_real(v)) {
		fprintf(f, "%g", json_real_value(v));
	} else if (json_is_boolean(v)) {
		fputs(json_is_true(v) ? "yes" : "no", f);
	} else if (json_is_array(v) && depth < 8) {
		if (!json_array_size(v))
			fputs("-", f);
		json_array_foreach(v, i, x) {
			fputs(i ? "; " : "", f);
			fact_words(f, x, depth + 1, false);
		}
	} else if (json_is_object(v) && depth < 8) {
		bool first = true;

		if (depth)
			fputc('(', f);
		json_object_foreach((json_t *)v, k, x) {
			if (json_is_null(x))
				continue;
			fputs(first ? "" : ", ", f);
			html_esc(f, k);
			fputc(kv ? '=' : ' ', f);
			fact_words(f, x, depth + 1, false);
			first = false;
		}
		if (depth)
			fputc(')', f);
	} else {
		fputs("-", f);
	}
}

static void fact(FILE *f, const char *k, const json_t *v, bool kv)
{
	fputs("<tr><th>", f);
	html_esc(f, k);
	fputs("</th><td style=\"text-align:left;white-space:normal\">", f);
	fact_words(f, v, 0, kv);
	fputs("</td></tr>\n", f);
}

/* What a run says about its suites: their notes, and what did not run and why. */
static void suite_facts(FILE *f, const json_t *doc)
{
	const json_t *s, *t;
	size_t i, j;
	char key[160];

	json_array_foreach(json_object_get(doc, "suites"), i, s) {
		const char *sn = json_string_value(json_object_get(s, "name")) ?: "?";
		const char *st = json_string_value(json_object_get(s, "status")) ?: "?";

		if (json_object_size(json_object_get(s, "notes"))) {
			snprintf(key, sizeof(key), "%s notes", sn);
			fact(f, key, json_object_get(s, "notes"), true);
		}
		if (strcmp(st, "ok")) {
			snprintf(key, sizeof(key), "%s %s", sn, st);
			fact(f, key, json_object_get(s, "reason"), false);
		}
		json_array_foreach(json_object_get(s, "tests"), j, t) {
			const char *ts = json_string_value(json_object_get(t, "status")) ?: "?";

			if (!strcmp(ts, "ok"))
				continue;
			snprintf(key, sizeof(key), "%s.%s %s", sn, json_string_value(json_object_get(t, "name")) ?: "?", ts);
			fact(f, key, json_object_get(t, "reason"), false);
		}
	}
}

/* The facts of an environment, one row each: where in the document, and
 * under which name the reader sees it. */
static const struct env_fact {
	const char *what, *obj, *key; /* the fingerprint's obj[key], or obj itself (key NULL) */
	bool doc;                     /* obj is the document's, not the fingerprint's */
	bool kv;                      /* an object of key=value pairs */
} env_facts[] = {
	{ "labels", "labels", NULL, true, true },
	{ "lab note", "lab_note", NULL, true, false },
	{ "hypervisor", "hypervisor", NULL, false, false },
	{ "container", "container", NULL, false, false },
	{ "cpu", "cpu", "model", false, false },
	{ "cpu topology", "cpu", NULL, false, false },
	{ "memory", "memory", NULL, false, false },
	{ "kernel", "kernel", "release", false, false },
	{ "clocksource", "clocksource", NULL, false, false },
	{ "thp", "thp", NULL, false, false },
	{ "block devices", "block_devices", NULL, false, false },
	{ "network", "network", NULL, false, false },
	{ "balloon", "balloon", NULL, false, false },
	{ "steal", "steal", NULL, false, false },
};

static const json_t *env_value(const json_t *doc, const struct env_fact *e)
{
	const json_t *o = json_object_get(e->doc ? doc : json_object_get(doc, "fingerprint"), e->obj);

	return e->key ? json_object_get(o, e->key) : o;
}

/* Whether a fact has the same value in the first run of every operand. */
static bool env_same(const struct cmp_table *t, const struct env_fact *e)
{
	const json_t *v0 = env_value(json_array_get(t->ops[0].docs, 0), e);

	for (size_t o = 1; o < t->nops; o++) {
		const json_t *v = env_value(json_array_get(t->ops[o].docs, 0), e);

		if (!(v0 ? v && json_equal((json_t *)v0, (json_t *)v) : !v))
			return false;
	}
	return true;
}

/* Whether no operand's first run has the fact. */
static bool env_none(const struct cmp_table *t, const struct env_fact *e)
{
	for (size_t o = 0; o < t->nops; o++)
		if (env_value(json_array_get(t->ops[o].docs, 0), e))
			return false;
	return true;
}

/* The environments: first a table of the facts (each operand's first run),
 * all of them or those in which the operands differ, then every run's
 * facts, folded, unless the table has them all. */
void html_environments(FILE *f, const struct cmp_table *t, const char *h, bool all_facts)
{
	size_t shown = 0;

	fprintf(f, "<%s>Environments</%s>\n", h, h);
	for (size_t k = 0; k < ARRAY_SIZE(env_facts); k++)
		shown += all_facts ? !env_none(t, &env_facts[k]) : t->nops > 1 && !env_same(t, &env_facts[k]);
	if (shown) {
		fputs(all_facts ? "<p>Each configuration's first run:</p>" : "<p>Where the operands differ (each one's first run):</p>", f);
		fputs("<div class=\"scroll\"><table class=\"env\"><thead><tr><th>fact</th>", f);
		for (size_t o = 0; o < t->nops; o++) {
			fputs("<th>", f);
			html_esc(f, t->ops[o].name);
			fputs("</th>", f);
		}
		fputs("</tr></thead><tbody>\n", f);
		for (size_t k = 0; k < ARRAY_SIZE(env_facts); k++) {
			if (all_facts ? env_none(t, &env_facts[k]) : env_same(t, &env_facts[k]))
				continue;
			fputs("<tr><th>", f);
			html_esc(f, env_facts[k].what);
			fputs("</th>", f);
			for (size_t o = 0; o < t->nops; o++) {
				fputs("<td style=\"text-align:left;white-space:normal\">", f);
				fact_words(f, env_value(json_array_get(t->ops[o].docs, 0), &env_facts[k]), 0, env_facts[k].kv);
				fputs("</td>", f);
			}
			fputs("</tr>\n", f);
		}
		fputs("</tbody></table></div>\n", f);
	} else if (t->nops > 1 && !all_facts) {
		fputs("<p>The operands' first runs agree in every fact below.</p>\n", f);
	}
	if (all_facts)
		return;
	fputs("<details><summary>every run's environment</summary>\n", f);
	for (size_t o = 0; o < t->nops; o++) {
		size_t i;
		json_t *doc;

		json_array_foreach(t->ops[o].docs, i, doc) {
			const json_t *fp = json_object_get(doc, "fingerprint"), *hv = json_object_get(fp, "hypervisor");

			fputs("<details><summary>", f);
			html_esc(f, t->ops[o].name);
			fputs(": ", f);
			html_esc(f, json_string_value(json_object_get(fp, "hostname")));
			fputs(", ", f);
			html_esc(f, json_string_value(json_object_get(hv, "name")));
			fputs(", ", f);
			html_esc(f, json_string_value(json_object_get(doc, "started")));
			fputs("</summary><div class=\"scroll\"><table>\n", f);
			for (size_t k = 0; k < ARRAY_SIZE(env_facts); k++)
				/* the lab's note (TCG chosen, user networking the bottleneck) only where there is one */
				if (strcmp(env_facts[k].obj, "lab_note") || env_value(doc, &env_facts[k]))
					fact(f, env_facts[k].what, env_value(doc, &env_facts[k]), env_facts[k].kv);
			suite_facts(f, doc);
			fputs("</table></div></details>\n", f);
		}
	}
	fputs("</details>\n", f);
}

/* The lab's failed boots: what failed where, and where its evidence is. */
static void failures(FILE *f, const struct cmp_table *t)
{
	static const char *const cols[][2] = {
		{ "config", "configuration" }, { "round", "round" }, { "try", "try" }, { "step", "step" },
		{ "reason", "reason" }, { "outcome", "outcome" }, { "console", "console" },
		{ "qemu_log", "QEMU's output" },
	};
	const json_t *x;
	size_t i;

	if (!json_array_size(t->failures))
		return;
	fprintf(f, "<h2>Failed boots</h2>\n<p>%zu boot%s failed. The console and QEMU's output of each are kept "
		   "in the files named; the lab removes none of them.</p>\n<div class=\"scroll\"><table class=\"failures\">"
		   "<thead><tr>", json_array_size(t->failures), json_array_size(t->failures) == 1 ? "" : "s");
	for (size_t c = 0; c < ARRAY_SIZE(cols); c++)
		fprintf(f, "<th>%s</th>", cols[c][1]);
	fputs("</tr></thead><tbody>\n", f);
	json_array_foreach(t->failures, i, x) {
		fputs("<tr>", f);
		for (size_t c = 0; c < ARRAY_SIZE(cols); c++) {
			const json_t *v = json_object_get(x, cols[c][0]);

			fputs("<td style=\"text-align:left\">", f);
			if (!strcmp(cols[c][0], "try"))
				fprintf(f, "%lld of %lld", (long long)json_integer_value(v),
					(long long)json_integer_value(json_object_get(x, "tries")));
			else if (json_is_integer(v))
				fprintf(f, "%lld", (long long)json_integer_value(v));
			else
				html_esc(f, json_string_value(v) ?: "-");
			fputs("</td>", f);
		}
		fputs("</tr>\n", f);
	}
	fputs("</tbody></table></div>\n", f);
}

/* What each configuration cost the host (hostcost.h): only when some
 * operand's suites carry the lab's notes. */
static void host_cost(FILE *f, const struct cmp_table *t)
{
	struct hostcost_row *rows;
	size_t n;
	bool wamp = false;

	if (hostcost_rows(t, &rows, &n) < 0 || !n)
		return;
	for (size_t i = 0; i < n; i++)
		wamp = wamp || rows[i].wamp_runs;
	fputs("<h2>Host cost</h2>\n<p>QEMU's CPU time (every thread: vCPUs, I/O, the NIC's back end) per second "
	      "of each run the guest was asked for, user + system, the mean over the configuration's runs. It "
	      "includes the guest's own work (under TCG, the emulation of every instruction), so it compares "
	      "configurations under one accelerator, not absolute costs.</p>\n<div class=\"scroll\">"
	      "<table class=\"hostcost\"><thead><tr><th>configuration</th><th>item</th><th>CPU-s/s</th>"
	      "<th>user CPU-s/s</th><th>system CPU-s/s</th><th>runs</th>", f);
	/* the disk's host write amplification, when a configuration measured it */
	if (wamp)
		fputs("<th title=\"bytes QEMU had written on the host per byte the guest's disk received "
		      "(host_write_amplification)\">host write amplification</th>", f);
	fputs("</tr></thead><tbody>\n", f);
	for (size_t i = 0; i < n; i++) {
		const double v[] = { rows[i].cpu, rows[i].user, rows[i].sys };

		fputs("<tr><td>", f);
		html_esc(f, rows[i].config);
		fputs("</td><td style=\"text-align:left\">", f);
		html_esc(f, rows[i].item);
		fputs("</td>", f);
		for (size_t k = 0; k < ARRAY_SIZE(v); k++)
			if (isfinite(v[k]) && v[k] >= 0)
				fprintf(f, "<td>%.2f</td>", v[k]);
			else
				fputs("<td>-</td>", f);
		fprintf(f, "<td>%zu</td>", rows[i].runs);
		if (wamp && rows[i].wamp_runs && isfinite(rows[i].wamp) && rows[i].wamp > 0)
			fprintf(f, "<td>%.2f</td>", rows[i].wamp);
		else if (wamp)
			fputs("<td>-</td>", f);
		fputs("</tr>\n", f);
	}
	fputs("</tbody></table></div>\n", f);
	free(rows);
}

void html_page_head(FILE *f, const char *title, const char *extra_css)
{
	fputs("<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
	      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"><title>", f);
	html_esc(f, title);
	fprintf(f, "</title><style>%s%s</style></head><body>\n<h1>", css, extra_css ? extra_css : "");
	html_esc(f, title);
	fputs("</h1>\n", f);
}

int html_report(FILE *f, const struct cmp_table *t, const char *title)
{
	struct latency_index li;
	char lead[1024];

	if (latency_index_build(t, &li) < 0)
		return -ENOMEM;
	html_page_head(f, title, NULL);
	if (t->html_preface)
		fputs(t->html_preface, f);
	/* the page's one baseline, said once before anything is measured against it */
	if (t->nops > 1 && t->baseline < t->nops) {
		fputs("<p class=\"baseline\">Baseline: <b>", f);
		html_esc(f, t->ops[t->baseline].name);
		fputs("</b>. Every verdict on this page (the sentence below, the tally, the tables) is against it.</p>\n", f);
	}
	/* the answer first: the largest significant differences (compare_lead.c) */
	if (cmp_lead_sentence(t, lead, sizeof(lead))) {
		fputs("<p class=\"lead\">", f);
		html_esc(f, lead);
		fputs("</p>\n", f);
	}
	tally(f, t);
	failures(f, t);
	fputs("<p>", f);
	for (size_t o = 0; o < t->nops; o++) {
		char sessions[1024];

		fputs(o ? ", " : "Compared: ", f);
		html_esc(f, t->ops[o].name);
		fprintf(f, " (%zu run%s%s%s", json_array_size(t->ops[o].docs), json_array_size(t->ops[o].docs) == 1 ? "" : "s",
			o == t->baseline ? ", baseline" : "", t->ops[o].aside ? ", shown beside the others" : "");
		/* a selector that pooled sessions says so */
		if (cmp_sessions_text(t->ops[o].docs, sessions, sizeof(sessions)) > 1) {
			fputs(" of several lab sessions pooled: ", f);
			html_esc(f, sessions);
		}
		fputc(')', f);
	}
	fputs(". Each value is the mean of the run means with its 95% confidence interval over the runs (with one "
	      "run, the spread of its repetitions, marked " CMP_REPS_MARK "); a difference is significant when the 95% interval "
	      "of the difference excludes zero: round by round (paired) when the runs were measured in the same "
	      "rounds, else of the run means (Welch).</p>\n", f);
	cmp_bases(f, t, &(struct cmp_filter){ .all = false }, html_line);
	fputs("<h2>Summary</h2>\n", f);
	tables(f, t, &li, false, "summary");
	html_charts(f, t);
	html_series_charts(f, t);
	html_load_charts(f, t);
	host_cost(f, t);
	fputs("<h2>All metrics</h2>\n<details><summary>every metric of every case</summary>\n", f);
	tables(f, t, NULL, true, "all");
	fputs("</details>\n", f);
	html_environments(f, t, "h2", false);
	fputs("</body></html>\n", f);
	free(li.rows);
	return ferror(f) ? -EIO : 0;
}

