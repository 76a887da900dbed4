/* Terminal tables for result documents and fingerprints. */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "text.h"
#include "../core/macro.h"
#include "../core/clock.h"
#include "../core/str.h"
#include "../core/banned.h"

void text_format_value(double v, const char *unit, char *buf, size_t len)
{
	static const struct {
		double div;
		const char *name;
	} ns_scale[] = { { NSEC_PER_SEC, "s" }, { NSEC_PER_MSEC, "ms" }, { NSEC_PER_USEC, "us" }, { 1, "ns" } };

	if (!isfinite(v)) {
		snprintf(buf, len, "-");
		return;
	}
	if (!strcmp(unit, "ns")) {
		for (size_t i = 0; i < sizeof(ns_scale) / sizeof(ns_scale[0]); i++)
			if (fabs(v) >= ns_scale[i].div || i + 1 == sizeof(ns_scale) / sizeof(ns_scale[0])) {
				snprintf(buf, len, "%.3g %s", v / ns_scale[i].div, ns_scale[i].name);
				return;
			}
	}
	if (!strcmp(unit, "ratio"))
		snprintf(buf, len, "%.3f", v);
	else if (fabs(v) >= 1e4 && fabs(v) < 1e15) /* 16320, never 1.632e+04; beyond a double's digits, %g */
		snprintf(buf, len, "%.0f %s", v, unit);
	else
		snprintf(buf, len, "%.4g %s", v, unit);
}

/* Rates named after what they count; the unit alone ("1/s") does not say. */
static const struct {
	const char *metric, *label;
} rate_labels[] = {
	{ "iops", "IOPS" },
	{ "events_per_s", "events/s" },
	{ "syncs_per_s", "syncs/s" },
};

void text_unit_label(const char *metric, const char *unit, char *buf, size_t len)
{
	const char *p;

	snprintf(buf, len, "%s", unit ? unit : "");
	if (!metric || !unit || strcmp(unit, "1/s"))
		return;
	for (size_t i = 0; i < sizeof(rate_labels) / sizeof(rate_labels[0]); i++)
		if (!strcmp(metric, rate_labels[i].metric)) {
			snprintf(buf, len, "%s", rate_labels[i].label);
			return;
		}
	p = strstr(metric, "_per_s");
	if (p && p > metric && !p[strlen("_per_s")])
		snprintf(buf, len, "%.*s/s", (int)(p - metric), metric);
}

void text_format_metric(double v, const char *metric, const char *unit, char *buf, size_t len)
{
	char label[40];

	text_unit_label(metric, unit, label, sizeof(label));
	text_format_value(v, label, buf, len);
}

void text_json_value(const json_t *v, char *buf, size_t len)
{
	if (json_is_string(v))
		snprintf(buf, len, "%s", json_string_value(v));
	else if (json_is_boolean(v))
		snprintf(buf, len, "%s", json_is_true(v) ? "true" : "false");
	else if (json_is_integer(v))
		snprintf(buf, len, "%lld", (long long)json_integer_value(v));
	else if (json_is_real(v))
		snprintf(buf, len, "%g", json_real_value(v));
	else
		snprintf(buf, len, "-");
}

void text_format_size(double bytes, char *buf, size_t len)
{
	static const char *const suffix[] = { "", "k", "M", "G", "T" };
	double v = bytes;
	size_t i = 0;

	if (!isfinite(bytes) || bytes < 0) {
		snprintf(buf, len, "-");
		return;
	}
	while (v >= 1024 && i + 1 < ARRAY_SIZE(suffix)) {
		v /= 1024;
		i++;
	}
	if (v == floor(v))
		snprintf(buf, len, "%.0f%s", v, suffix[i]);
	else
		snprintf(buf, len, "%.3g%s", v, suffix[i]);
}

/* Parameters that are sizes (the suites' OPT_SIZE options): shown as the
 * options take them. */
static const char *const size_params[] = { "bs", "seq-bs", "record-size", "file-size", "size", "zlib-size" };

/* A size parameter as an option takes it: the largest suffix that divides
 * it exactly (268435456 -> "256M"), else its bytes. Never rounded: 1048577
 * is no "1M" (two cases that differ in it would read alike), and "1.5k" is
 * no size an option takes. */
static bool param_size(double bytes, char *buf, size_t len)
{
	static const char *const suffix[] = { "", "k", "M", "G", "T" };
	size_t i = 0;

	if (!(bytes >= 0) || bytes > 9007199254740992.0 || bytes != floor(bytes))
		return false;
	while (bytes >= 1024 && fmod(bytes, 1024) == 0 && i + 1 < ARRAY_SIZE(suffix)) {
		bytes /= 1024;
		i++;
	}
	snprintf(buf, len, "%.0f%s", bytes, suffix[i]);
	return true;
}

void text_param_value(const char *key, const json_t *v, char *buf, size_t len)
{
	for (size_t i = 0; i < sizeof(size_params) / sizeof(size_params[0]); i++)
		if (!strcmp(key, size_params[i]) && json_is_number(v) && param_size(json_number_value(v), buf, len))
			return;
	text_json_value(v, buf, len);
}

static void params_words(const json_t *params, char *buf, size_t len, bool exact)
{
	const char *k;
	json_t *v;
	size_t off = 0;

	buf[0] = '\0';
	json_object_foreach((json_t *)params, k, v) {
		char val[64];
		int n;

		/* a string that would read as several k=v words is quoted, as JSON */
		if (json_is_string(v) && (!json_string_length(v) || strpbrk(json_string_value(v), " \"=\\\t\n"))) {
			char *q = json_dumps(v, JSON_ENCODE_ANY);

			snprintf(val, sizeof(val), "%s", q ? q : "?");
			free(q);
		} else if (exact)
			text_json_value(v, val, sizeof(val));
		else
			text_param_value(k, v, val, sizeof(val));
		n = snprintf(buf + off, len - off, "%s%s=%s", off ? " " : "", k, val);
		if (n < 0 || (size_t)n >= len - off) {
			buf[off] = '\0';
			break;
		}
		off += (size_t)n;
	}
}

void text_params(const json_t *params, char *buf, size_t len)
{
	params_words(params, buf, len, false);
}

void text_params_exact(const json_t *params, char *buf, size_t len)
{
	params_words(params, buf, len, true);
}

static double jnum(const json_t *o, const char *key)
{
	const json_t *x = json_object_get(o, key);

	return json_is_number(x) ? json_number_value(x) : NAN;
}

/* A secondary metric whose 95% CI is wider than its value (cpu_user_pct
 * ±318%) says nothing yet; the default view leaves it out. */
static bool too_noisy(const json_t *m)
{
	const json_t *sum = json_object_get(m, "summary");
	double mean = jnum(sum, "mean"), hi = jnum(sum, "ci95_high");

	if (json_is_true(json_object_get(m, "headline")) || !(jnum(sum, "n") > 1))
		return false;
	return isfinite(mean) && isfinite(hi) && hi - mean > fabs(mean);
}

static void print_metric(FILE *f, const json_t *m, unsigned reps, bool reached)
{
	const json_t *sum = json_object_get(m, "summary"), *h = json_object_get(m, "histogram");
	const char *unit = json_string_value(json_object_get(m, "unit"));
	double mean = jnum(sum, "mean"), hi = jnum(sum, "ci95_high");
	char val[48], ci[24] = "", extra[160] = "";

	text_format_metric(mean, json_string_value(json_object_get(m, "name")), unit ? unit : "", val, sizeof(val));
	/* an interval below its mean, or beyond a double, is no interval: a
	 * document from before doc_validate checked summaries may hold one */
	if (isfinite(hi) && isfinite(mean) && mean != 0 && jnum(sum, "n") > 1 && hi >= mean &&
	    isfinite(100 * (hi - mean) / fabs(mean)))
		snprintf(ci, sizeof(ci), "±%.1f%%", 100 * (hi - mean) / fabs(mean));
	if (h) {
		const json_t *p = json_object_get(h, "percentiles");
		char p50[24], p99[24], p999[24], mx[24];

		text_format_value(jnum(p, "p50"), "ns", p50, sizeof(p50));
		text_format_value(jnum(p, "p99"), "ns", p99, sizeof(p99));
		text_format_value(jnum(p, "p99.9"), "ns", p999, sizeof(p999));
		text_format_value(jnum(h, "max"), "ns", mx, sizeof(mx));
		snprintf(extra, sizeof(extra), "p50 %s  p99 %s  p99.9 %s  max %s", p50, p99, p999, mx);
	} else if (json_is_true(json_object_get(m, "headline"))) {
		snprintf(extra, sizeof(extra), "%u reps%s", reps, reached ? "" : ", precision not reached");
	}
	fprintf(f, "  %-22s %16s %7s  %s\n", json_string_value(json_object_get(m, "name")) ?: "?", val, ci, extra);
}

void text_print_result(FILE *f, const json_t *doc)
{
	text_print_result_all(f, doc, false);
}

/* An object's members as "k=v" words, whole (however long a note is),
 * as text_params words them; NULL when out of memory. */
static char *words_whole(const json_t *obj)
{
	char *text = NULL;
	size_t len = 0, n = 0;
	FILE *mem = open_memstream(&text, &len);
	const char *k;
	json_t *v;

	if (!mem)
		return NULL;
	json_object_foreach((json_t *)obj, k, v) {
		char val[64];
		char *q = NULL;

		if (json_is_string(v) && (!json_string_length(v) || strpbrk(json_string_value(v), " \"=\\\t\n")))
			q = json_dumps(v, JSON_ENCODE_ANY);
		else if (json_is_string(v))
			q = strdup(json_string_value(v));
		else
			text_param_value(k, v, val, sizeof(val));
		fprintf(mem, "%s%s=%s", n++ ? " " : "", k, q ? q : val);
		free(q);
	}
	if (fclose(mem) != 0) {
		free(text);
		return NULL;
	}
	return text;
}

void text_print_result_all(FILE *f, const json_t *doc, bool all)
{
	const json_t *fp = json_object_get(doc, "fingerprint");
	char *labels = words_whole(json_object_get(doc, "labels")), *head;
	json_t *s;
	size_t i, hidden = 0, width = text_width(f, 100);

	head = xasprintf("vmbench %s  %s  host %s  hypervisor %s%s%s",
			 json_string_value(json_object_get(json_object_get(doc, "tool"), "version")) ?: "(version unknown)",
			 json_string_value(json_object_get(doc, "started")) ?: "?",
			 json_string_value(json_object_get(fp, "hostname")) ?: "?",
			 json_string_value(json_object_get(json_object_get(fp, "hypervisor"), "name")) ?: "?",
			 labels && *labels ? "  labels " : "", labels ? labels : "");
	/* wrapped, never cut: a label or a note cut off is one lost */
	text_wrap(f, head ? head : "vmbench", width, 4);
	free(head);
	free(labels);
	fprintf(f, "  %-22s %16s %7s\n", "METRIC", "MEAN", "95% CI");
	json_array_foreach(json_object_get(doc, "suites"), i, s) {
		const char *sname = json_string_value(json_object_get(s, "name"));
		const char *status = json_string_value(json_object_get(s, "status")) ?: "?";
		json_t *t;
		size_t j;

		/* an interrupted suite still lists the tests and cases it finished */
		if (strcmp(status, "ok") && strcmp(status, "interrupted")) {
			fprintf(f, "%-16s %s: %s\n", sname, status,
				json_string_value(json_object_get(s, "reason")) ?: "");
			continue;
		}
		if (json_object_size(json_object_get(s, "notes"))) {
			char *notes = words_whole(json_object_get(s, "notes")), *line = NULL;

			if (notes && (line = xasprintf("%-16s %s", sname, notes)))
				text_wrap(f, line, width, 17);
			free(line);
			free(notes);
		}
		json_array_foreach(json_object_get(s, "tests"), j, t) {
			char test[64];
			const char *tstatus = json_string_value(json_object_get(t, "status")) ?: "?";
			json_t *c;
			size_t kk;

			snprintf(test, sizeof(test), "%s.%s", sname, json_string_value(json_object_get(t, "name")));
			json_array_foreach(json_object_get(t, "cases"), kk, c) {
				char params[512];
				unsigned reps = (unsigned)json_integer_value(json_object_get(c, "repetitions"));
				bool reached = json_is_true(json_object_get(c, "precision_reached"));
				json_t *m;
				size_t l;

				text_params(json_object_get(c, "params"), params, sizeof(params));
				fprintf(f, "%s  %s\n", test, params);
				json_array_foreach(json_object_get(c, "metrics"), l, m) {
					if (!all && too_noisy(m))
						hidden++;
					else
						print_metric(f, m, reps, reached);
				}
			}
			if (strcmp(tstatus, "ok"))
				fprintf(f, "%-16s %s%s%s\n", test, tstatus,
					json_string_value(json_object_get(t, "reason")) ? ": " : "",
					json_string_value(json_object_get(t, "reason")) ?: "");
		}
		if (!strcmp(status, "interrupted"))
			fprintf(f, "%-16s %s%s%s\n", sname, status,
				json_string_value(json_object_get(s, "reason")) ? ": " : "",
				json_string_value(json_object_get(s, "reason")) ?: "");
	}
	if (hidden)
		fprintf(f, "(%zu secondary metric%s with a 95%% CI wider than the value not shown; show --all lists %s)\n", hidden,
			hidden == 1 ? "" : "s", hidden == 1 ? "it" : "them");
}

size_t text_width(FILE *f, size_t fallback)
{
	struct winsize ws;

	if (isatty(fileno(f)) && ioctl(fileno(f), TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
		return ws.ws_col < 40 ? 40 : ws.ws_col;
	return fallback;
}

/* One line of s (up to its end or a newline), wrapped. */
static const char *wrap_line(FILE *f, const char *p, size_t width, size_t indent)
{
	size_t end = strcspn(p, "\n");
	bool first = true;

	while (end) {
		size_t room = first ? width : width >= indent + 8 ? width - indent : 8, c = 0, i, cut = SIZE_MAX;

		/* the last space with at most room columns before it */
		for (i = 0; i < end && c <= room; i++) {
			if (p[i] == ' ')
				cut = i;
			c += ((unsigned char)p[i] & 0xC0) != 0x80;
		}
		if (i == end && c <= room)
			cut = end;
		else if (cut == SIZE_MAX || cut == 0) /* a word longer than the line: whole */
			cut = i + strcspn(p + i, " \n") < end ? i + strcspn(p + i, " \n") : end;
		fprintf(f, "%*s%.*s\n", first ? 0 : (int)indent, "", (int)cut, p);
		first = false;
		while (cut < end && p[cut] == ' ')
			cut++;
		p += cut;
		end -= cut;
	}
	if (first)
		fputc('\n', f);
	return p;
}

void text_wrap(FILE *f, const char *s, size_t width, size_t indent)
{
	const char *p = s;

	do {
		p = wrap_line(f, p, width, indent);
	} while (*p == '\n' && *++p);
}
