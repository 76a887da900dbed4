/* Caveats of a comparison for its reader: fingerprints that differ where
 * labels do not say so, busy hosts, a single run. */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"
#include "compare_out.h"
#include "text.h"
#include "../core/util.h"
#include "../core/banned.h"

/* Fingerprint parts that change what is measured, with the label key that
 * says a difference in them is intended. */
static const struct {
	const char *what, *obj, *key;
	const char *labels; /* label keys that say a difference is intended, comma-separated */
} fp_parts[] = {
	{ "hypervisor", "hypervisor", "name", "hv,accel,config,host" },
	{ "CPU model", "cpu", "model", "cpu,accel,arch,config,host" },
	{ "kernel", "kernel", "release", "kernel,accel,config,host" },
	{ "clocksource", "clocksource", "current", "clocksource,hv,accel,config,host" },
	{ "THP setting", "thp", "enabled", "thp,accel,config,host" },
};

/* What the reader can do about one run a side, by where the operands came
 * from: run repeats and calibrates this machine; the lab boots every
 * configuration again, and a calibration of the host says nothing of a
 * guest's noise (least of all an emulated one's). */
static const char *const more_runs[CMP_NORIGINS] = {
	[CMP_FROM_RUN] = "measure with 'vmbench run --runs 3' or store this machine's noise with 'vmbench calibrate'",
	[CMP_FROM_LAB] = "measure with 'vmbench lab run --rounds 3', which boots every configuration (and measures the "
			 "host) once per round; a calibration of the host does not apply to a guest",
};

/* A fingerprint part, NULL when unknown (an import's fingerprint knows
 * none: its hypervisor is "unknown"). */
static const char *fp_part(const json_t *doc, size_t k)
{
	const char *s = json_string_value(json_object_get(json_object_get(json_object_get(doc, "fingerprint"),
									  fp_parts[k].obj), fp_parts[k].key));

	return s && strcmp(s, "unknown") ? s : NULL;
}

/* Whether two documents are known to differ in a part: an unknown one is
 * no difference (it would warn on every comparison with an import). */
static bool known_apart(const json_t *a, const json_t *b, size_t k)
{
	const char *x = fp_part(a, k), *y = fp_part(b, k);

	return x && y && strcmp(x, y);
}

static const char *label_of(const json_t *doc, const char *key)
{
	return json_string_value(json_object_get(json_object_get(doc, "labels"), key));
}

static bool same_str(const char *a, const char *b)
{
	return (!a && !b) || (a && b && !strcmp(a, b));
}

/* Whether a label says the operands differ on purpose: one of the label
 * keys that explain this part has other values on the two sides. */
static bool labelled_apart(const json_t *a, const json_t *b, size_t k)
{
	for (const char *p = fp_parts[k].labels; *p;) {
		size_t n = strcspn(p, ",");
		char key[32];

		snprintf(key, sizeof(key), "%.*s", (int)n, p);
		if (!same_str(label_of(a, key), label_of(b, key)))
			return true;
		p += n + (p[n] == ',');
	}
	return false;
}

/* A label that names the hypervisor but not the one the fingerprint found. */
static bool hv_label_contradicts(const json_t *doc)
{
	const char *l = label_of(doc, "hv"), *hv = fp_part(doc, 0);

	if (!l || !hv)
		return false;
	return !strcasestr(hv, l) && !strcasestr(l, hv);
}

/* The lab's rounds of operand name that failed for good (t->failures). */
static size_t failed_rounds(const struct cmp_table *t, const char *name)
{
	const json_t *x;
	size_t i, n = 0;

	json_array_foreach(t->failures, i, x)
		n += !strcmp(json_string_value(json_object_get(x, "config")) ?: "", name) &&
		     !strcmp(json_string_value(json_object_get(x, "outcome")) ?: "", "round failed");
	return n;
}

/* In the lab, every operand has a run per round: one with fewer says so. */
static size_t fewer_runs(FILE *f, const struct cmp_table *t, const char *prefix)
{
	size_t most = 0, n = 0;

	for (size_t o = 0; o < t->nops; o++)
		if (json_array_size(t->ops[o].docs) > most)
			most = json_array_size(t->ops[o].docs);
	for (size_t o = 0; t->failures && o < t->nops; o++) {
		size_t runs = json_array_size(t->ops[o].docs), failed = failed_rounds(t, t->ops[o].name);

		if (runs == most)
			continue;
		fprintf(f, "%swarning: %s has %zu run%s, fewer than the others' %zu", prefix, t->ops[o].name, runs,
			runs == 1 ? "" : "s", most);
		if (failed)
			fprintf(f, ": %zu round%s failed (listed under the failed boots)", failed, failed == 1 ? "" : "s");
		fputc('\n', f);
		n++;
	}
	return n;
}

/* Counts comparisons of one run on a side: [0] untested, [1] by calibration. */
static void one_run(const struct cmp_table *t, const struct cmp_row *r, size_t o, const struct cmp_verdict *v,
		    void *arg)
{
	size_t *n = arg;

	(void)t, (void)r, (void)o;
	n[0] += v->comparable && !v->w.valid;
	n[1] += v->comparable && v->rc.calibrated;
}

size_t cmp_caveats(FILE *f, const struct cmp_table *t, const struct cmp_filter *flt, const char *prefix)
{
	size_t n = fewer_runs(f, t, prefix), untested = 0, single = 0;

	/* what an operand's name stands for, as the lab says it (a profile: QEMU's emulation, not the hypervisor) */
	for (size_t o = 0; o < t->nops; o++) {
		const char *legend = json_string_value(json_object_get(json_array_get(t->ops[o].docs, 0), "lab_legend"));

		if (legend) {
			fprintf(f, "%s%s: %s\n", prefix, t->ops[o].name, legend);
			n++;
		}
	}

	for (size_t o = 0; o < t->nops; o++) {
		const json_t *docs = t->ops[o].docs, *d0 = json_array_get(docs, 0), *d;
		size_t i, busy = 0, sensed = 0;

		for (size_t k = 0; k < ARRAY_SIZE(fp_parts); k++)
			json_array_foreach(docs, i, d)
				if (i && known_apart(d0, d, k)) {
					fprintf(f, "%swarning: %s pools runs of different %s: %s and %s\n", prefix,
						t->ops[o].name, fp_parts[k].what, fp_part(d0, k), fp_part(d, k));
					n++;
					break;
				}
		json_array_foreach(docs, i, d)
			if (hv_label_contradicts(d)) {
				fprintf(f, "%swarning: %s is labelled hv=%s but its fingerprint says %s\n", prefix,
					t->ops[o].name, label_of(d, "hv"), fp_part(d, 0));
				n++;
				break;
			}
		if (o != t->baseline) {
			const json_t *b0 = json_array_get(t->ops[t->baseline].docs, 0);

			for (size_t k = 0; k < ARRAY_SIZE(fp_parts); k++)
				if (b0 && d0 && known_apart(b0, d0, k) && !labelled_apart(b0, d0, k)) {
					fprintf(f, "%swarning: %s and %s differ in %s (%s vs %s) and no label says so\n",
						prefix, t->ops[t->baseline].name, t->ops[o].name, fp_parts[k].what,
						fp_part(b0, k), fp_part(d0, k));
					n++;
				}
		}
		/* busy: over the selected metrics' cases, counted once per case
		 * (a case's metrics are consecutive rows) */
		for (size_t r = 0, last = SIZE_MAX; r < t->nrows; r++) {
			const struct cmp_row *row = &t->rows[r];

			if (!cmp_row_selected(row, flt))
				continue;
			if (last != SIZE_MAX && !strcmp(t->rows[last].suite, row->suite) &&
			    !strcmp(t->rows[last].test, row->test) && !strcmp(t->rows[last].params, row->params))
				continue;
			last = r;
			busy += row->cells[o].busy_reps;
			sensed += row->cells[o].noise_reps;
		}
		if (sensed) {
			/* a lab guest's repetitions sensed its own CPU, not the host's:
			 * its kernel's threads (an emulated IDE disk's driver work at a
			 * deep queue) count there as another process */
			const char *cfg = json_string_value(json_object_get(d0, "lab_config"));
			bool guest = cfg && strcmp(cfg, "host");

			fprintf(f, "%s%s: %s during %zu of %zu repetitions%s\n", prefix, t->ops[o].name,
				guest ? "busy inside the guest" : "host busy", busy, sensed,
				!busy ? ""
				: guest ? " (CPU in the guest beside the test: its other processes and its kernel's threads, "
					  "such as a disk driver's; the host's own noise is in the lab's host cost; see "
					  "docs/methodology.md, noise sensors)"
					: " (see docs/methodology.md, noise sensors)");
			n++;
		}
	}
	{
		size_t ones[2] = { 0, 0 };

		cmp_each_verdict(t, flt, one_run, ones);
		untested = ones[0];
		single = ones[1];
	}
	if (untested) {
		fprintf(f, "%s(*) %zu comparison%s with one run on a side: run-to-run noise is unknown, so no "
			   "significance is claimed from repetitions alone; %s\n", prefix, untested,
			untested == 1 ? "" : "s", more_runs[t->origin < CMP_NORIGINS ? t->origin : CMP_FROM_RUN]);
		n++;
	}
	if (single) {
		fprintf(f, "%s%zu comparison%s with one run on a side used this machine's stored calibration\n", prefix,
			single, single == 1 ? "" : "s");
		n++;
	}
	return n;
}


/* The caveats, each wrapped at TEXT_WIDTH columns at spaces. */
char *cmp_caveats_text(const struct cmp_table *t, const struct cmp_filter *flt)
{
	char *text = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&text, &len);

	if (!mem)
		return NULL;
	(void)cmp_caveats(mem, t, flt, "");
	if (fclose(mem) != 0) {
		free(text);
		return NULL;
	}
	return text;
}
