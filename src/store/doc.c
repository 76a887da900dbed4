/* Result document: build, validate, load, write. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include "doc.h"
#include "../core/runner.h"
#include "../core/log.h"
#include "../core/clock.h"
#include "../core/banned.h"

#ifndef VMB_VERSION
#define VMB_VERSION "0"
#endif

/* p95: sysbench's latency figure (app.oltp) */
static const double percentiles[] = { 50, 90, 95, 99, 99.9, 99.99 };
static const char *const percentile_keys[] = { "p50", "p90", "p95", "p99", "p99.9", "p99.99" };

static void make_uuid(char *buf, size_t len)
{
	unsigned char b[16];

	if (getrandom(b, sizeof(b), 0) != (ssize_t)sizeof(b)) {
		/* No entropy source: time and pid are unique enough for a run id. */
		uint64_t t = (uint64_t)(wall_time_s() * NSEC_PER_SEC), p = (uint64_t)getpid();

		memcpy(b, &t, 8);
		memcpy(b + 8, &p, 8);
	}
	b[6] = (unsigned char)((b[6] & 0x0f) | 0x40);
	b[8] = (unsigned char)((b[8] & 0x3f) | 0x80);
	snprintf(buf, len, "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
		 b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13],
		 b[14], b[15]);
}

int doc_set_new_id(json_t *doc)
{
	char id[40];

	make_uuid(id, sizeof(id));
	return json_object_set_new(doc, "id", json_string(id)) < 0 ? -ENOMEM : 0;
}

/* A parameter value as JSON: a number when it reads as one. */
static json_t *param_value(const char *v)
{
	int64_t i;
	double d;

	if (parse_i64(v, INT64_MIN, INT64_MAX, &i) == 0)
		return json_integer(i);
	if (parse_double(v, -HUGE_VAL, HUGE_VAL, &d) == 0 && isfinite(d))
		return json_real(d);
	if (!strcmp(v, "true") || !strcmp(v, "false"))
		return json_boolean(!strcmp(v, "true"));
	return json_string(v);
}

/* Every builder below returns NULL when any part could not be made (out of
 * memory, or a string jansson refuses: not UTF-8), never an object with a
 * member silently missing: json_object_set_new() and json_array_append_new()
 * fail on a NULL value, and json_pack() on a NULL "o" or a bad "s". */
static json_t *params_json(const struct vmb_param *p, size_t n)
{
	json_t *o = json_object();

	for (size_t i = 0; o && i < n; i++)
		if (json_object_set_new(o, p[i].key, param_value(p[i].value)) < 0) {
			json_decref(o);
			return NULL;
		}
	return o;
}

/* JSON has no NaN or infinity: such a value becomes null. */
static json_t *jreal(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

static json_t *summary_json(const struct stats_summary *s)
{
	return json_pack("{s:I, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o}",
			 "n", (json_int_t)s->n, "mean", jreal(s->mean), "median", jreal(s->median),
			 "stddev", jreal(s->stddev), "cv", jreal(s->cv), "min", jreal(s->min),
			 "max", jreal(s->max), "ci95_low", jreal(s->ci95_low), "ci95_high", jreal(s->ci95_high));
}

static json_t *hist_json(const struct hist *h)
{
	json_t *pct = json_object(), *buckets = json_array();
	int r = pct && buckets ? 0 : -1;

	for (size_t i = 0; r == 0 && i < ARRAY_SIZE(percentiles); i++)
		r = json_object_set_new(pct, percentile_keys[i], json_real(hist_percentile(h, percentiles[i])));
	for (unsigned i = 0; r == 0 && i < HIST_BUCKETS; i++)
		if (h->buckets[i])
			r = json_array_append_new(buckets, json_pack("[I, I]", (json_int_t)hist_bucket_lower(i),
								     (json_int_t)h->buckets[i]));
	if (r < 0) {
		json_decref(pct);
		json_decref(buckets);
		return NULL;
	}
	return json_pack("{s:s, s:i, s:I, s:I, s:I, s:f, s:f, s:o, s:o}",
			 "unit", "ns", "sub_buckets", HIST_SUB, "count", (json_int_t)h->count,
			 "min", (json_int_t)h->min, "max", (json_int_t)h->max, "mean", hist_mean(h),
			 "stddev", hist_stddev(h), "percentiles", pct, "buckets", buckets);
}

static json_t *metric_json(const struct vmb_metric *m)
{
	json_t *samples = json_array(), *o;

	for (size_t i = 0; samples && i < m->n; i++)
		if (json_array_append_new(samples, jreal(m->samples[i])) < 0) {
			json_decref(samples);
			return NULL;
		}
	o = json_pack("{s:s, s:s, s:s, s:b, s:o, s:o}", "name", m->name, "unit", vmb_unit_name(m->unit),
		      "direction", m->dir == VMB_HIGHER ? "higher" : "lower", "headline", m->headline,
		      "samples", samples, "summary", summary_json(&m->sum));
	if (o && m->hist && json_object_set_new(o, "histogram", hist_json(m->hist)) < 0) {
		json_decref(o);
		return NULL;
	}
	return o;
}

/* A repetition: when it started and what else ran meanwhile (noise.h). */
static json_t *rep_json(const struct noise_reading *n)
{
	char start[40];

	format_utc(n->start, start, sizeof(start));
	return json_pack("{s:s, s:f, s:{s:o, s:o, s:I, s:I, s:o}, s:b}", "start", start, "start_epoch", n->start,
			 "noise", "other_cpu_pct", jreal(n->other_cpu_pct), "steal_pct", jreal(n->steal_pct),
			 "nivcsw", (json_int_t)n->nivcsw, "majflt", (json_int_t)n->majflt, "mhz", jreal(n->mhz),
			 "busy", n->busy);
}

static json_t *case_json(const struct vmb_case *c)
{
	json_t *metrics = json_array(), *reps = json_array(), *o;
	int r = metrics && reps ? 0 : -1;

	for (size_t i = 0; r == 0 && i < c->nmetrics; i++)
		r = json_array_append_new(metrics, metric_json(&c->metrics[i]));
	for (size_t i = 0; r == 0 && i < c->nnoise; i++)
		r = json_array_append_new(reps, rep_json(&c->noise[i]));
	if (r < 0) {
		json_decref(metrics);
		json_decref(reps);
		return NULL;
	}
	o = json_pack("{s:o, s:I, s:b, s:o, s:f, s:o}", "params", params_json(c->params, c->nparams),
		      "repetitions", (json_int_t)c->reps, "precision_reached", c->precision_reached,
		      "ci95_rel_pct", jreal(c->ci_rel_pct), "elapsed_s", c->elapsed_s, "metrics", metrics);
	if (o && c->nnoise) {
		if (json_object_set_new(o, "reps", reps) < 0) {
			json_decref(o);
			return NULL;
		}
	} else {
		json_decref(reps);
	}
	return o;
}

static json_t *suite_json(const struct vmb_suite_result *sr)
{
	json_t *tests = json_array();

	for (size_t t = 0; tests && t < sr->ntests; t++) {
		const struct vmb_test_result *tr = &sr->tests[t];
		json_t *cases = json_array();
		int r = cases ? 0 : -1;

		for (size_t c = 0; r == 0 && c < tr->ncases; c++)
			r = json_array_append_new(cases, case_json(&tr->cases[c]));
		if (r < 0) {
			json_decref(cases);
			json_decref(tests);
			return NULL;
		}
		/* json_pack takes `cases` also when it fails */
		if (json_array_append_new(tests, json_pack("{s:s, s:s, s:s?, s:o}", "name", tr->name, "status",
						       vmb_status_name(tr->status), "reason", tr->reason,
						       "cases", cases)) < 0) {
			json_decref(tests);
			return NULL;
		}
	}
	return json_pack("{s:s, s:s, s:s?, s:o, s:o, s:o}", "name", sr->name, "status", vmb_status_name(sr->status),
			 "reason", sr->reason, "options", params_json(sr->options, sr->noptions),
			 "notes", params_json(sr->notes, sr->nnotes), "tests", tests);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

int doc_from_results(const struct vmb_results *res, const struct doc_meta *m, json_t **out, char *err,
		     size_t errlen)
{
	char id[40], started[32], ended[32];
	json_t *argv = json_array(), *labels = json_object(), *suites = json_array(), *sorted = NULL, *doc;
	static const struct runner_settings none = { 0 };
	const struct runner_settings *rs = m->rs ? m->rs : &none;
	const char **keys = NULL;
	int r = -ENOMEM;

	snprintf(err, errlen, "out of memory");
	if (!argv || !labels || !suites)
		goto fail;
	make_uuid(id, sizeof(id));
	format_utc(m->started, started, sizeof(started));
	format_utc(m->ended, ended, sizeof(ended));
	/* the command line and the labels are the user's text: say which one
	 * cannot be stored (the CLI refuses it earlier, see cmd_parse) */
	r = -EINVAL;
	for (int i = 0; i < m->argc; i++)
		if (str_find_bad_utf8(m->argv[i], strlen(m->argv[i])) >= 0) {
			snprintf(err, errlen, "command_line[%d]: not UTF-8 text", i);
			goto fail;
		}
	for (size_t i = 0; m->labels && i < m->labels->n; i++)
		if (!strchr(m->labels->v[i], '=') || str_find_bad_utf8(m->labels->v[i], strlen(m->labels->v[i])) >= 0) {
			snprintf(err, errlen, "label number %zu: not KEY=VALUE in UTF-8 text", i + 1);
			goto fail;
		}
	snprintf(err, errlen, "out of memory");
	r = -ENOMEM;
	for (int i = 0; i < m->argc; i++)
		if (json_array_append_new(argv, json_string(m->argv[i])) < 0)
			goto fail;
	for (size_t i = 0; m->labels && i < m->labels->n; i++) {
		const char *kv = m->labels->v[i], *eq = strchr(kv, '=');
		char key[128];

		/* A repeated key: the last one given wins, as on any command line. */
		snprintf(key, sizeof(key), "%.*s", (int)(eq - kv), kv);
		if (json_object_set_new(labels, key, json_string(eq + 1)) < 0)
			goto fail;
	}
	/* Keys in order, as the store lists them. */
	{
		size_t nk = 0;
		const char *k;
		json_t *v;

		sorted = json_object();
		keys = calloc(json_object_size(labels) + 1, sizeof(*keys));
		if (!sorted || !keys)
			goto fail;
		json_object_foreach(labels, k, v)
			keys[nk++] = k;
		qsort(keys, nk, sizeof(*keys), cmp_str);
		for (size_t i = 0; i < nk; i++)
			if (json_object_set(sorted, keys[i], json_object_get(labels, keys[i])) < 0)
				goto fail;
		free(keys);
		keys = NULL;
		json_decref(labels);
		labels = sorted;
		sorted = NULL;
	}
	for (size_t s = 0; s < res->nsuites; s++)
		if (json_array_append_new(suites, suite_json(&res->suites[s])) < 0) {
			snprintf(err, errlen, "suites[%zu] (%s): out of memory, or a name or parameter that is not UTF-8",
				 s, res->suites[s].name);
			goto fail;
		}

	/* json_pack takes argv, labels and suites ("o") whether it succeeds or not */
	doc = json_pack("{s:s, s:i, s:s, s:{s:s, s:s}, s:o, s:s, s:s, s:f, s:s, s:o, s:O, "
			"s:{s:f, s:f, s:f, s:f, s:I, s:I, s:b}, s:o}",
			"schema", DOC_SCHEMA, "schema_version", DOC_SCHEMA_VERSION, "id", id,
			"tool", "name", "vmbench", "version", VMB_VERSION,
			"command_line", argv, "started", started, "ended", ended,
			"duration_s", m->ended - m->started, "status", m->interrupted ? "interrupted" : "complete",
			"labels", labels, "fingerprint", m->fingerprint,
			"settings", "time_s", rs->time_s, "warmup_s", rs->warmup_s, "budget_s", rs->budget_s,
			"precision_pct", rs->precision_pct, "min_reps", (json_int_t)rs->min_reps,
			"max_reps", (json_int_t)rs->max_reps, "quick", rs->quick,
			"suites", suites);
	if (!doc) {
		snprintf(err, errlen, "out of memory, or a fingerprint that is not a JSON object");
		return -ENOMEM;
	}
	if (m->run_group && json_object_set_new(doc, "run_group", json_deep_copy(m->run_group)) < 0) {
		json_decref(doc);
		return -ENOMEM;
	}
	*out = doc;
	return 0;
fail:
	free(keys);
	json_decref(sorted);
	json_decref(argv);
	json_decref(labels);
	json_decref(suites);
	return r;
}

/* ---- validation ----
 * Strict: every value the reports and the store read is checked for its type
 * and range, so a document that passes can be shown, compared and stored
 * back without surprises. Free-form parts (the fingerprint, keys this version
 * does not know) are only bounded in depth and size. */

/* Bounds of the schema (docs/results-schema.md, "Limits"). */
#define DOC_MAX_DEPTH 16         /* nesting of objects and arrays below a top-level key */
#define DOC_MAX_STRING 65536     /* bytes in one string */
#define DOC_MAX_ITEMS 1000000    /* members of one array or object */
#define DOC_MAX_PERCENTILES 64

struct vctx {
	char *err;
	size_t len;
	int bad;
};

static const char *const type_names[] = {
	[JSON_OBJECT] = "an object", [JSON_ARRAY] = "an array", [JSON_STRING] = "a string",
	[JSON_INTEGER] = "an integer", [JSON_REAL] = "a number", [JSON_TRUE] = "a boolean",
	[JSON_FALSE] = "a boolean", [JSON_NULL] = "null",
};

static void fail_at(struct vctx *v, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void fail_at(struct vctx *v, const char *fmt, ...)
{
	va_list ap;

	if (v->bad)
		return;
	va_start(ap, fmt);
	vsnprintf(v->err, v->len, fmt, ap);
	va_end(ap);
	v->bad = 1;
}

static bool type_ok(const json_t *x, json_type type)
{
	switch (type) {
	case JSON_REAL:
		return json_is_number(x);
	case JSON_TRUE:
		return json_is_boolean(x);
	default:
		return json_typeof(x) == type;
	}
}

/* Free-form JSON: bounded depth, size and string length. */
static void check_free(struct vctx *v, const json_t *x, const char *path, unsigned depth)
{
	const char *k;
	json_t *y;
	size_t i;
	long at;

	if (v->bad)
		return;
	if (depth > DOC_MAX_DEPTH) {
		fail_at(v, "%s: nested deeper than %d levels", path, DOC_MAX_DEPTH);
		return;
	}
	switch (json_typeof(x)) {
	case JSON_STRING:
		if (json_string_length(x) > DOC_MAX_STRING)
			fail_at(v, "%s: a string longer than %d bytes", path, DOC_MAX_STRING);
		else if ((at = str_find_control(json_string_value(x), json_string_length(x))) >= 0)
			fail_at(v, "%s: a string with a control character (byte %ld is 0x%02x)", path, at,
				(unsigned char)json_string_value(x)[at]);
		break;
	case JSON_REAL:
		if (!isfinite(json_real_value(x)))
			fail_at(v, "%s: not a finite number", path);
		break;
	case JSON_OBJECT:
		if (json_object_size(x) > DOC_MAX_ITEMS)
			fail_at(v, "%s: more than %d members", path, DOC_MAX_ITEMS);
		json_object_foreach((json_t *)x, k, y) {
			if (strlen(k) > DOC_MAX_STRING)
				fail_at(v, "%s: a key longer than %d bytes", path, DOC_MAX_STRING);
			else if (str_find_control(k, strlen(k)) >= 0)
				fail_at(v, "%s: a key with a control character", path);
			check_free(v, y, path, depth + 1);
		}
		break;
	case JSON_ARRAY:
		if (json_array_size(x) > DOC_MAX_ITEMS)
			fail_at(v, "%s: more than %d items", path, DOC_MAX_ITEMS);
		json_array_foreach(x, i, y)
			check_free(v, y, path, depth + 1);
		break;
	default:
		break;
	}
}

/* o.key of the given type; absent is an error when `required`, else NULL. */
static const json_t *get(struct vctx *v, const json_t *o, const char *path, const char *key, json_type type,
			 bool required)
{
	const json_t *x;

	if (v->bad)
		return NULL;
	x = json_object_get(o, key);
	if (!x) {
		if (required)
			fail_at(v, "%s%s%s: missing", path, *path ? "." : "", key);
		return NULL;
	}
	if (!type_ok(x, type)) {
		fail_at(v, "%s%s%s: expected %s", path, *path ? "." : "", key, type_names[type]);
		return NULL;
	}
	if (type == JSON_STRING)
		check_free(v, x, path, 0);
	return v->bad ? NULL : x;
}

static const json_t *need(struct vctx *v, const json_t *o, const char *path, const char *key, json_type type)
{
	return get(v, o, path, key, type, true);
}

/* A number in [lo, hi]; integer-only when `integer`; null allowed when `nullable`. */
static void number(struct vctx *v, const json_t *o, const char *path, const char *key, bool required,
		   bool integer, bool nullable, double lo, double hi)
{
	const json_t *x = json_object_get(o, key);
	double d;

	if (v->bad)
		return;
	if (!x) {
		if (required)
			fail_at(v, "%s%s%s: missing", path, *path ? "." : "", key);
		return;
	}
	if (nullable && json_is_null(x))
		return;
	if (integer ? !json_is_integer(x) : !json_is_number(x)) {
		fail_at(v, "%s%s%s: expected %s", path, *path ? "." : "", key,
			integer ? "an integer" : nullable ? "a number or null" : "a number");
		return;
	}
	d = json_number_value(x);
	if (!isfinite(d) || d < lo || d > hi)
		fail_at(v, "%s%s%s: %g is out of range [%g, %g]", path, *path ? "." : "", key, d, lo, hi);
}

/* n decimal digits at s, as a number in [lo, hi]; advances s. */
static bool digits(const char **s, int n, int lo, int hi, int *out)
{
	int v = 0;

	for (int i = 0; i < n; i++) {
		if ((*s)[i] < '0' || (*s)[i] > '9')
			return false;
		v = v * 10 + ((*s)[i] - '0');
	}
	*s += n;
	if (out)
		*out = v;
	return v >= lo && v <= hi;
}

/* An RFC 3339 date-time (its "date-time" production): 2026-11-30T03:14:00Z,
 * with optional fractional seconds and a numeric offset; a real calendar
 * day, a second of 60 for a leap second. vmbench writes the first form. */
static bool rfc3339(const char *s)
{
	static const int mdays[] = { 31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
	int y, mo, d;

	if (!digits(&s, 4, 0, 9999, &y) || *s++ != '-' || !digits(&s, 2, 1, 12, &mo) || *s++ != '-' ||
	    !digits(&s, 2, 1, mdays[mo - 1], &d) || (mo == 2 && d == 29 && (y % 4 || (y % 100 == 0 && y % 400))))
		return false;
	if ((*s != 'T' && *s != 't') || !++s || !digits(&s, 2, 0, 23, NULL) || *s++ != ':' ||
	    !digits(&s, 2, 0, 59, NULL) || *s++ != ':' || !digits(&s, 2, 0, 60, NULL))
		return false;
	if (*s == '.') {
		if (!(s[1] >= '0' && s[1] <= '9'))
			return false;
		for (s++; *s >= '0' && *s <= '9'; s++)
			;
	}
	if (*s == 'Z' || *s == 'z')
		return s[1] == '\0';
	if (*s != '+' && *s != '-')
		return false;
	s++;
	return digits(&s, 2, 0, 23, NULL) && *s++ == ':' && digits(&s, 2, 0, 59, NULL) && *s == '\0';
}

/* A required (or, when !required, optional) RFC 3339 timestamp at o.key. */
static void timestamp(struct vctx *v, const json_t *o, const char *path, const char *key, bool required)
{
	const json_t *x = get(v, o, path, key, JSON_STRING, required);

	if (x && !rfc3339(json_string_value(x)))
		fail_at(v, "%s%s%s: expected an RFC 3339 timestamp such as \"2026-11-30T03:14:00Z\"", path,
			*path ? "." : "", key);
}

/* "reason": a string, or null when there is none */
static void reason(struct vctx *v, const json_t *o, const char *path)
{
	if (!json_is_null(json_object_get(o, "reason")))
		get(v, o, path, "reason", JSON_STRING, false);
}

static bool one_of(const char *s, const char *const *set)
{
	for (; *set; set++)
		if (!strcmp(s, *set))
			return true;
	return false;
}

/* params, options, notes: an object of scalars (string, finite number, boolean). */
static void check_scalars(struct vctx *v, const json_t *o, const char *path, bool counts)
{
	/* parameters that count something: a positive whole number when numeric */
	static const char *const count_keys[] = { "threads", "jobs", "iodepth", "seq-iodepth", "streams", "bs",
						  "seq-bs", "clients", NULL };
	const char *k;
	json_t *x;

	if (!o || v->bad)
		return;
	json_object_foreach((json_t *)o, k, x) {
		if (json_is_string(x) || json_is_boolean(x)) {
			check_free(v, x, path, 0);
			continue;
		}
		if (!json_is_number(x) || !isfinite(json_number_value(x))) {
			fail_at(v, "%s.%s: expected a string, a number or a boolean", path, k);
			return;
		}
		if (counts && one_of(k, count_keys) && (!json_is_integer(x) || json_integer_value(x) < 1))
			fail_at(v, "%s.%s: expected a whole number of at least 1", path, k);
	}
}

static void check_histogram(struct vctx *v, const json_t *h, const char *hp)
{
	const json_t *b, *pct, *x;
	const char *k;
	size_t i;

	get(v, h, hp, "unit", JSON_STRING, false);
	get(v, h, hp, "source", JSON_STRING, false);
	number(v, h, hp, "sub_buckets", false, true, false, 0, 1024);
	number(v, h, hp, "count", true, true, false, 0, 9.2e18);
	number(v, h, hp, "min", false, false, false, 0, HUGE_VAL);
	number(v, h, hp, "max", false, false, false, 0, HUGE_VAL);
	number(v, h, hp, "mean", false, false, true, 0, HUGE_VAL);
	number(v, h, hp, "stddev", false, false, true, 0, HUGE_VAL);
	pct = need(v, h, hp, "percentiles", JSON_OBJECT);
	if (pct && json_object_size(pct) > DOC_MAX_PERCENTILES)
		fail_at(v, "%s.percentiles: more than %d percentiles", hp, DOC_MAX_PERCENTILES);
	if (pct && !v->bad) {
		char pp[256];

		snprintf(pp, sizeof(pp), "%s.percentiles", hp);
		json_object_foreach((json_t *)pct, k, x)
			number(v, pct, pp, k, true, false, false, 0, HUGE_VAL);
	}
	b = need(v, h, hp, "buckets", JSON_ARRAY);
	json_array_foreach(b, i, x)
		if (!json_is_array(x) || json_array_size(x) != 2 || !json_is_integer(json_array_get(x, 0)) ||
		    !json_is_integer(json_array_get(x, 1)) || json_integer_value(json_array_get(x, 0)) < 0 ||
		    json_integer_value(json_array_get(x, 1)) < 0)
			fail_at(v, "%s.buckets[%zu]: expected [lower_ns, count]", hp, i);
}

static void check_metric(struct vctx *v, const json_t *m, const char *path)
{
	static const char *const dirs[] = { "higher", "lower", NULL };
	/* rates and sizes cannot be negative; a time can (a cost measured as a
	 * difference, within its noise) */
	static const enum vmb_unit nonneg[] = { VMB_UNIT_PER_S, VMB_UNIT_MB_PER_S, VMB_UNIT_GFLOPS, VMB_UNIT_BYTES,
						VMB_UNIT_MBIT_PER_S };
	static const char *const summary_keys[] = { "mean", "median", "stddev", "cv", "min", "max", "ci95_low",
						    "ci95_high" };
	const json_t *samples, *sum, *h, *x;
	enum vmb_unit unit = VMB_UNIT_NONE;
	double lo = -HUGE_VAL;
	size_t i;

	need(v, m, path, "name", JSON_STRING);
	x = need(v, m, path, "unit", JSON_STRING);
	if (x && vmb_unit_parse(json_string_value(x), &unit) < 0)
		fail_at(v, "%s.unit: unknown unit '%s'", path, json_string_value(x));
	for (i = 0; i < ARRAY_SIZE(nonneg); i++)
		if (unit == nonneg[i])
			lo = 0;
	x = need(v, m, path, "direction", JSON_STRING);
	if (x && !one_of(json_string_value(x), dirs))
		fail_at(v, "%s.direction: expected \"higher\" or \"lower\"", path);
	get(v, m, path, "headline", JSON_TRUE, false);
	samples = need(v, m, path, "samples", JSON_ARRAY);
	if (samples && json_array_size(samples) > DOC_MAX_ITEMS)
		fail_at(v, "%s.samples: more than %d samples", path, DOC_MAX_ITEMS);
	json_array_foreach(samples, i, x) {
		if (json_is_null(x))
			continue;
		if (!json_is_number(x) || !isfinite(json_number_value(x)))
			fail_at(v, "%s.samples[%zu]: expected a number", path, i);
		else if (json_number_value(x) < lo)
			fail_at(v, "%s.samples[%zu]: %g is negative, and %s cannot be", path, i, json_number_value(x),
				json_string_value(json_object_get(m, "unit")));
		if (v->bad)
			return;
	}
	sum = need(v, m, path, "summary", JSON_OBJECT);
	if (sum) {
		char sp[256];

		snprintf(sp, sizeof(sp), "%s.summary", path);
		number(v, sum, sp, "n", true, true, false, 0, DOC_MAX_ITEMS);
		for (i = 0; i < ARRAY_SIZE(summary_keys); i++)
			number(v, sum, sp, summary_keys[i], false, false, true, -HUGE_VAL, HUGE_VAL);
	}
	h = get(v, m, path, "histogram", JSON_OBJECT, false);
	if (h) {
		char hp[256];

		snprintf(hp, sizeof(hp), "%s.histogram", path);
		check_histogram(v, h, hp);
	}
}

static void check_case(struct vctx *v, const json_t *c, const char *cp)
{
	const json_t *metrics, *m, *reps;
	size_t l;
	char pp[160];

	snprintf(pp, sizeof(pp), "%s.params", cp);
	check_scalars(v, need(v, c, cp, "params", JSON_OBJECT), pp, true);
	number(v, c, cp, "repetitions", true, true, false, 0, DOC_MAX_ITEMS);
	get(v, c, cp, "precision_reached", JSON_TRUE, false);
	number(v, c, cp, "ci95_rel_pct", false, false, true, 0, HUGE_VAL);
	number(v, c, cp, "elapsed_s", false, false, false, 0, HUGE_VAL);
	reps = get(v, c, cp, "reps", JSON_ARRAY, false);
	if (reps && json_array_size(reps) > DOC_MAX_ITEMS)
		fail_at(v, "%s.reps: more than %d repetitions", cp, DOC_MAX_ITEMS);
	json_array_foreach(reps, l, m) {
		char rp[192], np[200];
		const json_t *n;

		snprintf(rp, sizeof(rp), "%s.reps[%zu]", cp, l);
		snprintf(np, sizeof(np), "%s.noise", rp);
		if (!json_is_object(m)) {
			fail_at(v, "%s: expected an object", rp);
			return;
		}
		timestamp(v, m, rp, "start", false);
		number(v, m, rp, "start_epoch", false, false, false, 0, HUGE_VAL);
		get(v, m, rp, "busy", JSON_TRUE, false);
		n = get(v, m, rp, "noise", JSON_OBJECT, false);
		if (n) {
			number(v, n, np, "other_cpu_pct", false, false, true, 0, 100);
			number(v, n, np, "steal_pct", false, false, true, 0, 100);
			number(v, n, np, "nivcsw", false, true, false, 0, HUGE_VAL);
			number(v, n, np, "majflt", false, true, false, 0, HUGE_VAL);
			number(v, n, np, "mhz", false, false, true, 0, 1e6);
		}
		if (v->bad)
			return;
	}
	metrics = need(v, c, cp, "metrics", JSON_ARRAY);
	json_array_foreach(metrics, l, m) {
		char mp[192];

		snprintf(mp, sizeof(mp), "%s.metrics[%zu]", cp, l);
		if (!json_is_object(m))
			fail_at(v, "%s: expected an object", mp);
		else
			check_metric(v, m, mp);
		if (v->bad)
			return;
	}
}

static void check_suite(struct vctx *v, const json_t *s, const char *sp)
{
	static const char *const statuses[] = { "ok", "skipped", "failed", "interrupted", NULL };
	const json_t *x, *tests, *t;
	char op[96];
	size_t j;

	need(v, s, sp, "name", JSON_STRING);
	x = need(v, s, sp, "status", JSON_STRING);
	if (x && !one_of(json_string_value(x), statuses))
		fail_at(v, "%s.status: unknown status '%s'", sp, json_string_value(x));
	reason(v, s, sp);
	snprintf(op, sizeof(op), "%s.options", sp);
	check_scalars(v, get(v, s, sp, "options", JSON_OBJECT, false), op, false);
	snprintf(op, sizeof(op), "%s.notes", sp);
	check_scalars(v, get(v, s, sp, "notes", JSON_OBJECT, false), op, false);
	tests = need(v, s, sp, "tests", JSON_ARRAY);
	json_array_foreach(tests, j, t) {
		char tp[96];
		const json_t *cases, *c;
		size_t k;

		snprintf(tp, sizeof(tp), "%s.tests[%zu]", sp, j);
		if (!json_is_object(t)) {
			fail_at(v, "%s: expected an object", tp);
			return;
		}
		need(v, t, tp, "name", JSON_STRING);
		x = need(v, t, tp, "status", JSON_STRING);
		if (x && !one_of(json_string_value(x), statuses))
			fail_at(v, "%s.status: unknown status '%s'", tp, json_string_value(x));
		reason(v, t, tp);
		cases = need(v, t, tp, "cases", JSON_ARRAY);
		json_array_foreach(cases, k, c) {
			char cp[128];

			snprintf(cp, sizeof(cp), "%s.cases[%zu]", tp, k);
			if (!json_is_object(c))
				fail_at(v, "%s: expected an object", cp);
			else
				check_case(v, c, cp);
			if (v->bad)
				return;
		}
	}
}

int doc_validate(const json_t *doc, char *err, size_t errlen)
{
	static const char *const run_statuses[] = { "complete", "interrupted", NULL };
	struct vctx v = { .err = err, .len = errlen };
	const json_t *x, *suites, *fp, *labels, *s, *tool, *st;
	const char *k;
	size_t i;

	if (!json_is_object(doc)) {
		snprintf(err, errlen, "the document is not a JSON object");
		return -EINVAL;
	}
	x = need(&v, doc, "", "schema", JSON_STRING);
	if (x && strcmp(json_string_value(x), DOC_SCHEMA))
		fail_at(&v, "schema: \"%s\" is not a vmbench result (expected \"%s\")", json_string_value(x),
			DOC_SCHEMA);
	x = need(&v, doc, "", "schema_version", JSON_INTEGER);
	if (x && (json_integer_value(x) > DOC_SCHEMA_VERSION || json_integer_value(x) < DOC_SCHEMA_VERSION_MIN))
		fail_at(&v, "schema_version: %lld is not supported (this vmbench reads versions %d to %d%s)",
			(long long)json_integer_value(x), DOC_SCHEMA_VERSION_MIN, DOC_SCHEMA_VERSION,
			json_integer_value(x) > DOC_SCHEMA_VERSION ? "; it was written by a newer vmbench" : "");
	x = need(&v, doc, "", "id", JSON_STRING);
	if (x && (json_string_length(x) == 0 || json_string_length(x) > 64))
		fail_at(&v, "id: expected a run id of 1 to 64 characters");
	x = json_object_get(doc, "status");
	if (x && !(json_is_string(x) && one_of(json_string_value(x), run_statuses)))
		fail_at(&v, "status: expected \"complete\" or \"interrupted\"");
	timestamp(&v, doc, "", "started", true);
	timestamp(&v, doc, "", "ended", true);
	tool = need(&v, doc, "", "tool", JSON_OBJECT);
	if (tool) {
		get(&v, tool, "tool", "name", JSON_STRING, false);
		get(&v, tool, "tool", "version", JSON_STRING, false);
		get(&v, tool, "tool", "imported_from", JSON_STRING, false);
		check_free(&v, tool, "tool", 1);
	}
	x = get(&v, doc, "", "command_line", JSON_ARRAY, false);
	json_array_foreach(x, i, s)
		if (!json_is_string(s))
			fail_at(&v, "command_line[%zu]: expected a string", i);
	check_free(&v, x ? x : json_null(), "command_line", 1);
	number(&v, doc, "", "duration_s", false, false, false, 0, HUGE_VAL);
	labels = need(&v, doc, "", "labels", JSON_OBJECT);
	if (labels) {
		json_object_foreach((json_t *)labels, k, x)
			if (!json_is_string(x))
				fail_at(&v, "labels.%s: expected a string", k);
		check_free(&v, labels, "labels", 1);
	}
	fp = need(&v, doc, "", "fingerprint", JSON_OBJECT);
	if (fp && (x = need(&v, fp, "fingerprint", "hypervisor", JSON_OBJECT)))
		need(&v, x, "fingerprint.hypervisor", "name", JSON_STRING);
	if (fp)
		check_free(&v, fp, "fingerprint", 1);
	x = get(&v, doc, "", "run_group", JSON_OBJECT, false);
	if (x) {
		const json_t *o = get(&v, x, "run_group", "order", JSON_ARRAY, false), *e;

		get(&v, x, "run_group", "id", JSON_STRING, false);
		number(&v, x, "run_group", "round", true, true, false, 1, 1000000);
		number(&v, x, "run_group", "rounds", true, true, false, 1, 1000000);
		number(&v, x, "run_group", "seed", false, true, false, 0, 9.2e18);
		json_array_foreach(o, i, e)
			if (!json_is_string(e))
				fail_at(&v, "run_group.order[%zu]: expected a string", i);
	}
	st = get(&v, doc, "", "settings", JSON_OBJECT, false);
	if (st) {
		json_object_foreach((json_t *)st, k, x)
			if (json_is_object(x) || json_is_array(x))
				fail_at(&v, "settings.%s: expected a number, a string or a boolean", k);
		check_free(&v, st, "settings", 1);
	}
	/* every part, also keys this version does not know inside suites,
	 * tests, cases and metrics: bounded in depth and size */
	json_object_foreach((json_t *)doc, k, x)
		check_free(&v, x, k, 1);
	suites = need(&v, doc, "", "suites", JSON_ARRAY);
	json_array_foreach(suites, i, s) {
		char sp[64];

		snprintf(sp, sizeof(sp), "suites[%zu]", i);
		if (!json_is_object(s))
			fail_at(&v, "%s: expected an object", sp);
		else
			check_suite(&v, s, sp);
		if (v.bad)
			break;
	}
	return v.bad ? -EINVAL : 0;
}

int doc_load_string(const char *text, const char *name, json_t **out, char *err, size_t errlen)
{
	json_error_t je;
	json_t *doc;
	char why[256];

	doc = json_loads(text, JSON_REJECT_DUPLICATES, &je);
	if (!doc) {
		snprintf(err, errlen, "%s: not valid JSON at line %d, column %d: %s", name, je.line, je.column,
			 je.text);
		return -EINVAL;
	}
	if (doc_validate(doc, why, sizeof(why)) < 0) {
		snprintf(err, errlen, "%s: not a valid vmbench result: %s", name, why);
		json_decref(doc);
		return -EINVAL;
	}
	*out = doc;
	return 0;
}

int doc_load_file(const char *path, json_t **out, char *err, size_t errlen)
{
	char *text;
	int r;

	r = read_file(path, &text);
	if (r < 0) {
		snprintf(err, errlen, "%s: %s", path, strerror(-r));
		return r;
	}
	r = doc_load_string(text, path, out, err, errlen);
	free(text);
	return r;
}

int doc_write_file(const json_t *doc, const char *path)
{
	char *text;
	int r;

	text = json_dumps(doc, JSON_INDENT(2) | JSON_REAL_PRECISION(17));
	if (!text)
		return -ENOMEM;
	if (!strcmp(path, "-")) {
		size_t len = strlen(text);

		text[len] = '\n'; /* json_dumps' NUL: the newline instead, written by length */
		r = file_write_stdout(text, len + 1);
		free(text);
		return r < 0 ? log_errno(r, "writing the result to stdout") : 0;
	}
	r = file_write_new(path, text, strlen(text));
	free(text);
	if (r < 0 && r != -EEXIST)
		log_errno(r, "writing '%s'", path);
	return r;
}

void doc_suites_string(const json_t *doc, char *buf, size_t len)
{
	size_t i, off = 0;
	json_t *s;

	buf[0] = '\0';
	json_array_foreach(json_object_get(doc, "suites"), i, s) {
		int n = snprintf(buf + off, len - off, "%s%s", off ? "," : "",
				 json_string_value(json_object_get(s, "name")));

		if (n < 0 || (size_t)n >= len - off)
			break;
		off += (size_t)n;
	}
}

size_t doc_failures(const json_t *doc, struct strv *out)
{
	size_t i, k, n = 0;
	json_t *s, *t;

	json_array_foreach(json_object_get(doc, "suites"), i, s) {
		const char *sname = json_string_value(json_object_get(s, "name"));
		char line[600];

		if (!strcmp(json_string_value(json_object_get(s, "status")) ?: "", "failed")) {
			snprintf(line, sizeof(line), "%s: %s", sname ? sname : "?",
				 json_string_value(json_object_get(s, "reason")) ?: "failed");
			n += strv_push(out, line) == 0;
		}
		json_array_foreach(json_object_get(s, "tests"), k, t) {
			if (strcmp(json_string_value(json_object_get(t, "status")) ?: "", "failed"))
				continue;
			snprintf(line, sizeof(line), "%s.%s: %s", sname ? sname : "?",
				 json_string_value(json_object_get(t, "name")) ?: "?",
				 json_string_value(json_object_get(t, "reason")) ?: "failed");
			n += strv_push(out, line) == 0;
		}
	}
	return n;
}

bool doc_interrupted(const json_t *doc)
{
	const char *status = json_string_value(json_object_get(doc, "status"));

	return status && !strcmp(status, "interrupted");
}

void doc_noise_count(const json_t *doc, size_t *busy, size_t *sensed)
{
	size_t i, j, k, l, nb = 0, ns = 0;
	const json_t *s, *t, *c, *r;

	json_array_foreach(json_object_get(doc, "suites"), i, s)
		json_array_foreach(json_object_get(s, "tests"), j, t)
			json_array_foreach(json_object_get(t, "cases"), k, c)
				json_array_foreach(json_object_get(c, "reps"), l, r)
					if (json_is_object(json_object_get(r, "noise"))) {
						ns++;
						nb += json_is_true(json_object_get(r, "busy"));
					}
	*busy = nb;
	*sensed = ns;
}
