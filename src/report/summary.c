/* The one-screen summary at the end of `vmbench run`: one line per test
 * with its headline at the main sweep points, in the units people use, and
 * the commands that go on from there. The full table (text.c) stays above
 * it for whoever wants every metric. */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "summary.h"
#include "text.h"
#include "../core/macro.h"
#include "../core/str.h"
#include "../core/banned.h"

#define MAX_POINTS 6 /* sweep points shown on one line */

void summary_format_count(double v, char *buf, size_t len)
{
	static const char *const suffix[] = { "", "k", "M", "G", "T" };
	double a = fabs(v);
	size_t i = 0;

	if (!isfinite(v)) {
		snprintf(buf, len, "-");
		return;
	}
	if (a != 0 && a < 0.001) {
		snprintf(buf, len, "%s<0.001", v < 0 ? "-" : "");
		return;
	}
	while (a >= 999.5 && i + 1 < ARRAY_SIZE(suffix)) {
		a /= 1000;
		v /= 1000;
		i++;
	}
	/* three significant digits; 99.96 rounds up to "100", so the precision
	 * is chosen on the rounded value */
	if (a < 0.9995)
		snprintf(buf, len, "%.3f%s", v, suffix[i]);
	else if (a < 9.995)
		snprintf(buf, len, "%.2f%s", v, suffix[i]);
	else if (a < 99.95)
		snprintf(buf, len, "%.1f%s", v, suffix[i]);
	else
		snprintf(buf, len, "%.0f%s", v, suffix[i]);
}

void summary_format_size(double bytes, char *buf, size_t len)
{
	text_format_size(bytes, buf, len);
}

/* A unit that reads better in a larger one once values reach 1000. */
static const struct {
	const char *unit;
	const char *steps[4]; /* the unit at x1, x1000, x10^6, x10^9 */
} unit_steps[] = {
	{ "ns", { "ns", "µs", "ms", "s" } },
	{ "MB/s", { "MB/s", "GB/s", "TB/s", NULL } },
	{ "Mbit/s", { "Mbit/s", "Gbit/s", "Tbit/s", NULL } },
};

void summary_scale_for(const char *metric, const char *unit, double largest, struct summary_scale *out)
{
	out->div = 1;
	snprintf(out->label, sizeof(out->label), "%s", unit && *unit ? unit : metric);
	if (unit && !strcmp(unit, "1/s")) { /* "IOPS", "events/s", as show and compare say it */
		text_unit_label(metric, unit, out->label, sizeof(out->label));
		return;
	}
	for (size_t i = 0; unit && i < ARRAY_SIZE(unit_steps); i++) {
		size_t k = 0;

		if (strcmp(unit, unit_steps[i].unit))
			continue;
		/* 999.6 MB/s would print as "1.00k MB/s": switch where the count would */
		while (k + 1 < ARRAY_SIZE(unit_steps[i].steps) && unit_steps[i].steps[k + 1] &&
		       isfinite(largest) && largest / out->div >= 999.5) {
			out->div *= 1000;
			k++;
		}
		snprintf(out->label, sizeof(out->label), "%s", unit_steps[i].steps[k]);
		return;
	}
}

/* ---- reading the document ---- */

static double jnum(const json_t *v)
{
	return json_is_number(v) ? json_number_value(v) : NAN;
}

static const json_t *find_metric(const json_t *c, const char *name)
{
	size_t i;
	json_t *m;

	json_array_foreach(json_object_get(c, "metrics"), i, m)
		if (!strcmp(json_string_value(json_object_get(m, "name")) ?: "", name))
			return m;
	return NULL;
}

static double metric_mean(const json_t *m)
{
	return jnum(json_object_get(json_object_get(m, "summary"), "mean"));
}

/* How a varying parameter labels its sweep point. */
static const struct {
	const char *key, *fmt;
} point_labels[] = {
	{ "threads", "%s thr" },
	{ "iodepth", "qd%s" },
};

static void param_text(const char *key, const json_t *v, char *buf, size_t len)
{
	text_param_value(key, v, buf, len);
}

/* Does the parameter take more than one value over the test's cases? */
static bool param_varies(const json_t *cases, const char *key)
{
	const json_t *first = json_object_get(json_object_get(json_array_get(cases, 0), "params"), key);
	size_t i;
	json_t *c;

	json_array_foreach(cases, i, c)
		if (!json_equal(json_object_get(json_object_get(c, "params"), key), (json_t *)first))
			return true;
	return false;
}

/* A case's sweep point: its varying parameters, e.g. "qd32" or "4 thr". */
static void point_label(const json_t *cases, const json_t *c, char *buf, size_t len)
{
	const char *key;
	json_t *v;
	size_t off = 0;

	buf[0] = '\0';
	json_object_foreach(json_object_get(c, "params"), key, v) {
		char val[32], one[64];
		const char *fmt = NULL;

		if (!param_varies(cases, key))
			continue;
		param_text(key, v, val, sizeof(val));
		for (size_t i = 0; i < ARRAY_SIZE(point_labels); i++)
			if (!strcmp(key, point_labels[i].key))
				fmt = point_labels[i].fmt;
		if (fmt)
			snprintf(one, sizeof(one), fmt, val);
		else
			snprintf(one, sizeof(one), "%s=%s", key, val);
		str_appendf(buf, len, &off, "%s%s", off ? " " : "", one);
	}
}

/* The parameters every case shares, e.g. "[bs=4k]". */
static void constant_params(const json_t *cases, char *buf, size_t len)
{
	const char *key;
	json_t *v;
	size_t off = 0;

	buf[0] = '\0';
	json_object_foreach(json_object_get(json_array_get(cases, 0), "params"), key, v) {
		char val[32];

		if (json_array_size(cases) > 1 && param_varies(cases, key))
			continue;
		param_text(key, v, val, sizeof(val));
		str_appendf(buf, len, &off, "%s%s=%s", off ? " " : "[", key, val);
	}
	if (off)
		str_appendf(buf, len, &off, "]");
}

/* A headline metric's short name beside others: "write_mb_per_s" -> "write". */
static void metric_short(const char *name, char *buf, size_t len)
{
	static const char *const suffixes[] = { "_mb_per_s", "_mbit_per_s", "_per_s", "_ns", "_iops" };
	size_t l = strlen(name);

	for (size_t i = 0; i < ARRAY_SIZE(suffixes); i++) {
		size_t sl = strlen(suffixes[i]);

		if (l > sl && !strcmp(name + l - sl, suffixes[i])) {
			snprintf(buf, len, "%.*s", (int)(l - sl), name);
			return;
		}
	}
	snprintf(buf, len, "%s", name);
}

struct point {
	char label[64];
	double v;
};

static void print_line(FILE *f, const char *name, const char *metric, const char *unit, const struct point *pts,
		       size_t n, const char *tail)
{
	struct summary_scale sc;
	double largest = 0;

	for (size_t i = 0; i < n; i++)
		if (isfinite(pts[i].v) && fabs(pts[i].v) > largest)
			largest = fabs(pts[i].v);
	summary_scale_for(metric, unit, largest, &sc);
	fprintf(f, "  %-16s %-9s", name, sc.label);
	for (size_t i = 0; i < n; i++) {
		char num[32];

		summary_format_count(pts[i].v / sc.div, num, sizeof(num));
		fprintf(f, "  %s%s%s", pts[i].label, *pts[i].label ? ": " : "", num);
	}
	fprintf(f, "%s%s\n", *tail ? "  " : "", tail);
}

/* At most MAX_POINTS cases, evenly spread, the first and the last always. */
static size_t pick(size_t k, size_t n)
{
	size_t shown = n < MAX_POINTS ? n : MAX_POINTS;

	return shown < 2 ? 0 : k * (n - 1) / (shown - 1);
}

static void print_test(FILE *f, const char *suite, const json_t *t)
{
	const char *tname = json_string_value(json_object_get(t, "name")) ?: "?";
	const char *status = json_string_value(json_object_get(t, "status")) ?: "?";
	const json_t *cases = json_object_get(t, "cases"), *first = json_array_get(cases, 0), *m;
	size_t ncases = json_array_size(cases), nhead = 0, i;
	const char *heads[8], *unit = NULL;
	bool same_unit = true;
	char name[64], tail[160];

	snprintf(name, sizeof(name), "%s.%s", suite, tname);
	if (ncases == 0) {
		const char *reason = json_string_value(json_object_get(t, "reason"));

		fprintf(f, "  %-16s %s%s%s\n", name, status, reason ? ": " : "", reason ? reason : "");
		return;
	}
	json_array_foreach(json_object_get(first, "metrics"), i, m)
		if (json_is_true(json_object_get(m, "headline")) && nhead < ARRAY_SIZE(heads)) {
			const char *u = json_string_value(json_object_get(m, "unit")) ?: "";

			heads[nhead++] = json_string_value(json_object_get(m, "name")) ?: "?";
			same_unit &= !unit || !strcmp(unit, u);
			unit = u;
		}
	constant_params(cases, tail, sizeof(tail));
	if (strcmp(status, "ok"))
		snprintf(tail + strlen(tail), sizeof(tail) - strlen(tail), "%s(%s)", *tail ? " " : "", status);
	if (nhead > 1 && ncases == 1 && same_unit) {
		/* iozone: write, rewrite, read, reread side by side */
		struct point pts[ARRAY_SIZE(heads)];

		for (size_t k = 0; k < nhead; k++) {
			metric_short(heads[k], pts[k].label, sizeof(pts[k].label));
			pts[k].v = metric_mean(find_metric(first, heads[k]));
		}
		print_line(f, name, heads[0], unit, pts, nhead, tail);
		return;
	}
	for (size_t h = 0; h < nhead; h++) {
		struct point pts[MAX_POINTS];
		size_t n = ncases < MAX_POINTS ? ncases : MAX_POINTS;
		char line_name[96];
		const char *u = "";

		for (size_t k = 0; k < n; k++) {
			const json_t *c = json_array_get(cases, pick(k, ncases));
			const json_t *hm = find_metric(c, heads[h]);

			point_label(cases, c, pts[k].label, sizeof(pts[k].label));
			pts[k].v = metric_mean(hm);
			if (hm)
				u = json_string_value(json_object_get(hm, "unit")) ?: "";
		}
		/* a percentage or a bare ratio says nothing without its name
		 * (sched.steal's 99.6 % is the time on CPU, not the time stolen) */
		if (nhead > 1 || !strcmp(u, "%") || !*u || !strcmp(u, "ratio"))
			snprintf(line_name, sizeof(line_name), "%s %s", name, heads[h]);
		else
			snprintf(line_name, sizeof(line_name), "%s", name);
		print_line(f, line_name, heads[h], u, pts, n, tail);
	}
}

void summary_print(FILE *f, const json_t *doc, long long run_id, const char *json_path)
{
	const json_t *s, *t;
	size_t i, j, ncases = 0;
	double dur = jnum(json_object_get(doc, "duration_s"));
	char ref[4200];

	json_array_foreach(json_object_get(doc, "suites"), i, s)
		json_array_foreach(json_object_get(s, "tests"), j, t)
			ncases += json_array_size(json_object_get(t, "cases"));
	fprintf(f, "\nsummary: %zu case%s", ncases, ncases == 1 ? "" : "s");
	if (isfinite(dur) && dur < 9.95)
		fprintf(f, " in %.1f s", dur);
	else if (isfinite(dur) && dur < 119.5)
		fprintf(f, " in %.0f s", dur);
	else if (isfinite(dur))
		fprintf(f, " in %.0f min %02.0f s", floor((dur + 0.5) / 60), fmod(floor(dur + 0.5), 60));
	if (!strcmp(json_string_value(json_object_get(doc, "status")) ?: "", "interrupted"))
		fprintf(f, ", interrupted: only the cases finished before the stop");
	fputc('\n', f);
	json_array_foreach(json_object_get(doc, "suites"), i, s) {
		const char *sname = json_string_value(json_object_get(s, "name")) ?: "?";
		const char *status = json_string_value(json_object_get(s, "status")) ?: "?";

		if (json_array_size(json_object_get(s, "tests")) == 0) {
			const char *reason = json_string_value(json_object_get(s, "reason"));

			fprintf(f, "  %-16s %s%s%s\n", sname, status, reason ? ": " : "", reason ? reason : "");
			continue;
		}
		json_array_foreach(json_object_get(s, "tests"), j, t)
			print_test(f, sname, t);
	}
	if (run_id > 0)
		snprintf(ref, sizeof(ref), "%lld", run_id);
	else if (json_path && strcmp(json_path, "-"))
		snprintf(ref, sizeof(ref), "%s", json_path);
	else
		return; /* nothing to refer to: the run is neither stored nor in a file */
	{
		char cmds[3][4300];
		static const char *const why[3] = {
			"every metric, with its percentiles",
			"against another run, a result file or a label selector (hv=kvm)",
			"an HTML page with charts",
		};
		int w = 0;

		snprintf(cmds[0], sizeof(cmds[0]), "vmbench show %s", ref);
		snprintf(cmds[1], sizeof(cmds[1]), "vmbench compare %s OTHER", ref);
		snprintf(cmds[2], sizeof(cmds[2]), "vmbench report %s -o report.html", ref);
		for (size_t k = 0; k < 3; k++)
			if ((int)strlen(cmds[k]) > w)
				w = (int)strlen(cmds[k]);
		for (size_t k = 0; k < 3; k++)
			fprintf(f, "%s%-*s  %s\n", k ? "      " : "next: ", w, cmds[k], why[k]);
	}
}
