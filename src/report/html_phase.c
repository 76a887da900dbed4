/* The HTML report's stacked phases (a boot's firmware, kernel, agent):
 * which metrics are phases and in what order, and one stacked bar per operand. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "html.h"
#include "html_draw.h"
#include "svg.h"
#include "text.h"
#include "../core/str.h"
#include "../core/suite.h"
#include "../core/unit.h"
#include "../core/banned.h"

/* Where a row's metric stands among the stacked phases its suite declares:
 * a suite result's notes.phases names them in order ("phase_firmware,
 * phase_kernel,phase_agent"), in any operand's documents. -1: not a phase.
 * Documents stored before suites declared their phases: the metrics named
 * by the suite descriptor's phase_prefix (boot's phase_*), in the order of
 * the rows. */
int html_phase_index(const struct cmp_table *t, const struct cmp_row *r)
{
	const struct vmb_suite *old;
	bool declared = false;

	for (size_t o = 0; o < t->nops; o++) {
		size_t d, s;
		json_t *doc, *suite;

		json_array_foreach(t->ops[o].docs, d, doc)
			json_array_foreach(json_object_get(doc, "suites"), s, suite) {
				const char *list = json_string_value(json_object_get(json_object_get(suite, "notes"), "phases"));
				const char *name = json_string_value(json_object_get(suite, "name"));
				size_t ml = strlen(r->metric);
				int i = 0;

				if (!list || !name || strcmp(name, r->suite))
					continue;
				declared = true;
				for (const char *p = list; *p; p += strcspn(p, ","), p += *p == ',', i++)
					if (strcspn(p, ",") == ml && !strncmp(p, r->metric, ml))
						return i;
			}
	}
	if (!declared && t->suite_of && (old = t->suite_of(r->suite)) && old->phase_prefix &&
	    !strncmp(r->metric, old->phase_prefix, strlen(old->phase_prefix)))
		return 0;
	return -1;
}

/* A phase's name in the key: the metric without its suite's phase_prefix
 * ("kernel" for boot's phase_kernel). */
static const char *phase_label(const struct cmp_table *t, const struct cmp_row *r)
{
	const struct vmb_suite *s = t->suite_of ? t->suite_of(r->suite) : NULL;
	size_t pl = s && s->phase_prefix ? strlen(s->phase_prefix) : 0;

	return pl && !strncmp(r->metric, s->phase_prefix, pl) ? r->metric + pl : r->metric;
}

/* Stacked phases (a boot's): one stacked bar per operand, a segment per
 * phase metric in the order the suite declared or reported them (rows of
 * one test and params). */
void html_phase_chart(FILE *f, const struct cmp_table *t, const size_t *rows, size_t n)
{
	const struct cmp_row *r0 = &t->rows[rows[0]];
	struct svg_axis x = { .lo = 0, .hi = 1, .p0 = 70, .p1 = 500 }, y = { .lo = 0, .hi = 0, .p0 = 250, .p1 = 20 };
	const char **names = html_operand_names(t), **phases = calloc(n, sizeof(*phases));
	size_t *ops = calloc(t->nops ? t->nops : 1, sizeof(*ops)), nops = 0, keyoff = 0;
	char title[256], ytitle[64], p[256], key[2048] = "", caption[2600];
	char (*nums)[24] = calloc(t->nops ? t->nops : 1, sizeof(*nums)); /* one number per operand, however many */
	bool numbered = false;
	double slot;
	struct svg s;

	if (!names || !phases || !ops || !nums)
		goto out;
	/* the operands that booted (the host baseline has no boot phases) */
	for (size_t o = 0; o < t->nops; o++) {
		double sum = 0;

		for (size_t i = 0; i < n; i++)
			sum += t->rows[rows[i]].cells[o].n ? t->rows[rows[i]].cells[o].fig.mean : 0;
		if (sum > 0)
			ops[nops++] = o;
		y.hi = fmax(y.hi, sum);
	}
	if (y.hi <= 0 || !nops)
		goto out;
	slot = (x.p1 - x.p0) / (double)nops;
	svg_axis_nice(&y, true);
	for (size_t i = 0; i < n; i++)
		phases[i] = phase_label(t, &t->rows[rows[i]]);
	cmp_params_text(r0->params, p, sizeof(p));
	snprintf(title, sizeof(title), "%s.%s phases", r0->suite, r0->test);
	html_axis_title(&y, "time", r0->unit, ytitle, sizeof(ytitle));
	svg_begin(&s, 520, 300 + 18 * (int)n, title);
	for (size_t k = 0; k < nops; k++) {
		names[k] = t->ops[ops[k]].name;
		/* a name that does not fit under its bar: numbers, named in the caption */
		numbered |= strlen(names[k]) * 6.5 > slot;
	}
	for (size_t k = 0; numbered && k < nops; k++) {
		snprintf(nums[k], sizeof(nums[k]), "%zu", k + 1);
		str_appendf(key, sizeof(key), &keyoff, "%s%zu = %s", k ? "; " : " (", k + 1, names[k]);
		names[k] = nums[k];
	}
	if (numbered)
		str_appendf(key, sizeof(key), &keyoff, ")");
	svg_axes(&s, &x, &y, NULL, ytitle, names, (int)nops);
	for (size_t k = 0; k < nops; k++) {
		double base = 0;

		for (size_t i = 0; i < n; i++) {
			const struct cmp_cell *c = &t->rows[rows[i]].cells[ops[k]];
			char tip[160], val[48];

			if (!c->n)
				continue;
			text_format_metric(c->fig.mean, r0->metric, r0->unit, val, sizeof(val));
			snprintf(tip, sizeof(tip), "%s, %s: %s", t->ops[ops[k]].name, phases[i], val);
			svg_printf(&s, "<g class=\"stack\">");
			svg_bar(&s, x.p0 + slot * (double)k + slot * 0.2, slot * 0.6, svg_map(&y, base),
				svg_map(&y, base + c->fig.mean), (int)i, tip);
			svg_printf(&s, "</g>");
			base += c->fig.mean;
		}
	}
	svg_legend(&s, 80, 300, phases, (int)n);
	snprintf(caption, sizeof(caption), "%s.%s%s%s: time in each phase, stacked (means)%s", r0->suite, r0->test,
		 *p ? " " : "", p, numbered ? key : "");
	html_figure(f, svg_end(&s), caption);
out:
	free(names);
	free(phases);
	free(ops);
	free(nums);
}

