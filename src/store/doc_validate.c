/* Result document validation (doc_validate). Strict: every value the
 * reports and the store read is checked for its type and range, so a
 * document that passes can be shown, compared and stored back without
 * surprises. Free-form parts (the fingerprint, keys this version does not
 * know) are only bounded in depth and size. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "doc.h"
#include "../core/stats.h"
#include "../core/sys.h"
#include "../core/banned.h"

/* Bounds of the schema (docs/results-schema.md, "Limits"). */
#define DOC_MAX_DEPTH 16         /* nesting of objects and arrays below a top-level key */
#define DOC_MAX_STRING 65536     /* bytes in one string */
#define DOC_MAX_ITEMS 1000000    /* members of one array or object */
#define DOC_MAX_PERCENTILES 64
#define DOC_MAX_SERIES 256       /* series in one case: a few per repetition */
/* How far a summary may be from what its samples give, relative to the
 * samples' largest magnitude: a writer that rounds to 7 digits agrees. */
#define DOC_SUMMARY_REL 1e-6

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

/* A required (or, when !required, optional) RFC 3339 timestamp at o.key. */
static void timestamp(struct vctx *v, const json_t *o, const char *path, const char *key, bool required)
{
	const json_t *x = get(v, o, path, key, JSON_STRING, required);

	if (x && parse_utc(json_string_value(x), NULL) < 0)
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

/* rates and sizes cannot be negative; a time can (a cost measured as a
 * difference, within its noise) */
static const enum vmb_unit nonneg[] = { VMB_UNIT_PER_S, VMB_UNIT_MB_PER_S, VMB_UNIT_GFLOPS, VMB_UNIT_BYTES,
					VMB_UNIT_MBIT_PER_S };

/* A value of the unit beyond what any machine measures (vmb_unit_plausible). */
static bool implausible(enum vmb_unit unit, double x)
{
	return fabs(x) > vmb_unit_plausible(unit);
}

/* The summary is what its samples give (stats_summarize, as every writer
 * computes it): show and export print the summary, compare recomputes it
 * from the samples, and the two must not tell two stories. n is exact; a
 * figure within DOC_SUMMARY_REL of the samples' magnitude agrees; null is
 * a figure not given. A sample that is null (not finite when measured)
 * leaves the mean and the interval with none, and min, max and median
 * within the other samples. */
static void check_summary(struct vctx *v, const json_t *samples, const json_t *sum, const char *sp,
			  enum vmb_unit unit)
{
	/* kind: 'm' the mean, 'c' its interval (both none when a sample has
	 * none), 'l' located among the samples (min, max, median), 's' the
	 * spread, 'r' the ratio cv; the mean and 'l' are within the samples'
	 * range, so within the unit's bound too (an interval of two samples
	 * reaches 12.7 standard deviations beyond the mean) */
	static const struct {
		const char *key;
		size_t off;
		char kind;
	} fields[] = {
		{ "mean", offsetof(struct stats_summary, mean), 'm' },
		{ "median", offsetof(struct stats_summary, median), 'l' },
		{ "stddev", offsetof(struct stats_summary, stddev), 's' },
		{ "cv", offsetof(struct stats_summary, cv), 'r' },
		{ "min", offsetof(struct stats_summary, min), 'l' },
		{ "max", offsetof(struct stats_summary, max), 'l' },
		{ "ci95_low", offsetof(struct stats_summary, ci95_low), 'c' },
		{ "ci95_high", offsetof(struct stats_summary, ci95_high), 'c' },
	};
	size_t n = json_array_size(samples), nx = 0, i;
	double *x, scale = 0, lo = HUGE_VAL, hi = -HUGE_VAL;
	struct stats_summary st;
	const json_t *y;

	if (v->bad || !sum)
		return;
	if ((size_t)json_integer_value(json_object_get(sum, "n")) != n) {
		fail_at(v, "%s.n: %lld, but there %s %zu sample%s", sp,
			(long long)json_integer_value(json_object_get(sum, "n")), n == 1 ? "is" : "are", n,
			n == 1 ? "" : "s");
		return;
	}
	x = malloc((n ? n : 1) * sizeof(*x));
	if (!x) {
		fail_at(v, "%s: no memory to check it", sp);
		return;
	}
	json_array_foreach(samples, i, y)
		if (json_is_number(y)) {
			x[nx] = json_number_value(y);
			scale = fmax(scale, fabs(x[nx]));
			lo = fmin(lo, x[nx]);
			hi = fmax(hi, x[nx]);
			nx++;
		}
	stats_summarize(x, nx, &st);
	free(x);
	for (i = 0; i < ARRAY_SIZE(fields) && !v->bad; i++) {
		const json_t *f = json_object_get(sum, fields[i].key);
		double d, want = *(const double *)((const char *)&st + fields[i].off), tol;

		if (!json_is_number(f))
			continue; /* absent or null: not given */
		d = json_number_value(f);
		if ((fields[i].kind == 'm' || fields[i].kind == 'l') && implausible(unit, d)) {
			fail_at(v, "%s.%s: %g is beyond what is plausible (at most %g%s%s)", sp, fields[i].key, d,
				vmb_unit_plausible(unit), *vmb_unit_name(unit) ? " " : "", vmb_unit_name(unit));
			break;
		}
		if (nx < n) {
			/* a sample without a value: what the others still say */
			if (fields[i].kind == 'm' || fields[i].kind == 'c')
				fail_at(v, "%s.%s: %g, but a sample is null: the samples have no %s", sp, fields[i].key, d,
					fields[i].key);
			else if (fields[i].kind == 'l' && nx && (d < lo || d > hi))
				fail_at(v, "%s.%s: %g is outside the samples' range [%g, %g]", sp, fields[i].key, d, lo, hi);
			continue;
		}
		if (fields[i].kind == 'r') {
			/* stddev / |mean|: where the mean is all but 0 it says nothing checkable */
			if (fabs(st.mean) <= 1e-9 * scale)
				continue;
			tol = 2 * DOC_SUMMARY_REL * scale * (1 + fabs(want)) / fabs(st.mean);
		} else {
			tol = DOC_SUMMARY_REL * fmax(scale, fabs(want));
		}
		if (!(fabs(d - want) <= tol))
			fail_at(v, "%s.%s: %g is not what the samples give (%g)", sp, fields[i].key, d, want);
	}
}

static void check_metric(struct vctx *v, const json_t *m, const char *path)
{
	static const char *const dirs[] = { "higher", "lower", NULL };
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
		else if (implausible(unit, json_number_value(x)))
			fail_at(v, "%s.samples[%zu]: %g is beyond what is plausible (at most %g%s%s)", path, i,
				json_number_value(x), vmb_unit_plausible(unit), *vmb_unit_name(unit) ? " " : "",
				vmb_unit_name(unit));
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
		check_summary(v, samples, sum, sp, unit);
	}
	h = get(v, m, path, "histogram", JSON_OBJECT, false);
	if (h) {
		char hp[256];

		snprintf(hp, sizeof(hp), "%s.histogram", path);
		check_histogram(v, h, hp);
	}
}

/* Every item of the array at path.key an object, checked by check at its
 * path ("...cases[2]"); stops at the first failure. */
static void each_object(struct vctx *v, const json_t *o, const char *path, const char *key,
			void (*check)(struct vctx *v, const json_t *x, const char *path))
{
	const json_t *arr = need(v, o, path, key, JSON_ARRAY), *x;
	size_t i;

	json_array_foreach(arr, i, x) {
		char p[256];

		snprintf(p, sizeof(p), "%s%s%s[%zu]", path, *path ? "." : "", key, i);
		if (!json_is_object(x))
			fail_at(v, "%s: expected an object", p);
		else
			check(v, x, p);
		if (v->bad)
			return;
	}
}

/* cases[].series: refused whole when one is bad (a report draws what it
 * reads without checking again). Each a repetition's of a name given once,
 * at most VMB_SERIES_MAX points [t_s, value], t_s increasing from 0. */
static void check_series(struct vctx *v, const json_t *c, const char *cp)
{
	const json_t *arr = get(v, c, cp, "series", JSON_ARRAY, false), *se, *pts, *pt, *x;
	json_int_t reps = json_integer_value(json_object_get(c, "repetitions"));
	size_t i, j, k;

	if (arr && json_array_size(arr) > DOC_MAX_SERIES)
		fail_at(v, "%s.series: more than %d series", cp, DOC_MAX_SERIES);
	json_array_foreach(arr, i, se) {
		enum vmb_unit unit = VMB_UNIT_NONE;
		double lo = -HUGE_VAL, last = -1;
		char sp[224];

		snprintf(sp, sizeof(sp), "%s.series[%zu]", cp, i);
		if (!json_is_object(se)) {
			fail_at(v, "%s: expected an object", sp);
			return;
		}
		x = need(v, se, sp, "name", JSON_STRING);
		if (x && (json_string_length(x) == 0 || json_string_length(x) > 47))
			fail_at(v, "%s.name: expected a name of 1 to 47 characters", sp);
		x = need(v, se, sp, "unit", JSON_STRING);
		if (x && vmb_unit_parse(json_string_value(x), &unit) < 0)
			fail_at(v, "%s.unit: unknown unit '%s'", sp, json_string_value(x));
		for (k = 0; k < ARRAY_SIZE(nonneg); k++)
			if (unit == nonneg[k])
				lo = 0;
		number(v, se, sp, "rep", true, true, false, 1, (double)(reps > 0 ? reps : 1));
		number(v, se, sp, "bucket", false, true, false, 1, 1e9);
		for (k = 0; k < i && !v->bad; k++) {
			const json_t *o = json_array_get(arr, k);

			if (json_equal(json_object_get(o, "name"), json_object_get(se, "name")) &&
			    json_equal(json_object_get(o, "rep"), json_object_get(se, "rep")))
				fail_at(v, "%s: a second series '%s' of repetition %lld", sp,
					json_string_value(json_object_get(se, "name")),
					(long long)json_integer_value(json_object_get(se, "rep")));
		}
		pts = need(v, se, sp, "points", JSON_ARRAY);
		if (pts && (json_array_size(pts) == 0 || json_array_size(pts) > VMB_SERIES_MAX))
			fail_at(v, "%s.points: expected 1 to %d points", sp, VMB_SERIES_MAX);
		json_array_foreach(pts, j, pt) {
			const json_t *t = json_array_get(pt, 0), *y = json_array_get(pt, 1);

			if (v->bad)
				return;
			if (!json_is_array(pt) || json_array_size(pt) != 2 || !json_is_number(t) || !json_is_number(y) ||
			    !isfinite(json_number_value(t)) || !isfinite(json_number_value(y)))
				fail_at(v, "%s.points[%zu]: expected [t_s, value], two numbers", sp, j);
			else if (json_number_value(t) < 0 || json_number_value(t) <= last)
				fail_at(v, "%s.points[%zu]: t_s %g is %s", sp, j, json_number_value(t),
					json_number_value(t) < 0 ? "negative" : "not after the point before it");
			else if (json_number_value(y) < lo)
				fail_at(v, "%s.points[%zu]: %g is negative, and %s cannot be", sp, j,
					json_number_value(y), json_string_value(json_object_get(se, "unit")));
			else if (implausible(unit, json_number_value(y)))
				fail_at(v, "%s.points[%zu]: %g is beyond what is plausible (at most %g%s%s)", sp, j,
					json_number_value(y), vmb_unit_plausible(unit), *vmb_unit_name(unit) ? " " : "",
					vmb_unit_name(unit));
			last = json_number_value(t);
		}
		if (v->bad)
			return;
	}
}

static void check_case(struct vctx *v, const json_t *c, const char *cp)
{
	const json_t *m, *reps;
	size_t l;
	char pp[160];

	snprintf(pp, sizeof(pp), "%s.params", cp);
	check_scalars(v, need(v, c, cp, "params", JSON_OBJECT), pp, true);
	number(v, c, cp, "repetitions", true, true, false, 0, DOC_MAX_ITEMS);
	get(v, c, cp, "precision_reached", JSON_TRUE, false);
	number(v, c, cp, "ci95_rel_pct", false, false, true, 0, HUGE_VAL);
	number(v, c, cp, "elapsed_s", false, false, false, 0, HUGE_VAL);
	number(v, c, cp, "warmup_s", false, false, false, 0, HUGE_VAL);
	get(v, c, cp, "warmup_steady", JSON_TRUE, false);
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
			number(v, n, np, "irq_pct", false, false, true, 0, 100);
			number(v, n, np, "nivcsw", false, true, false, 0, HUGE_VAL);
			number(v, n, np, "majflt", false, true, false, 0, HUGE_VAL);
			number(v, n, np, "mhz", false, false, true, 0, 1e6);
		}
		if (v->bad)
			return;
	}
	each_object(v, c, cp, "metrics", check_metric);
	check_series(v, c, cp);
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
		each_object(v, t, tp, "cases", check_case);
		if (v->bad)
			return;
	}
}

int doc_validate(const json_t *doc, char *err, size_t errlen)
{
	static const char *const run_statuses[] = { "complete", "interrupted", NULL };
	struct vctx v = { .err = err, .len = errlen };
	const json_t *x, *fp, *labels, *s, *tool, *st;
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
	/* a lab run's marker of a failed boot (src/lab/evidence.h): reports print it */
	x = get(&v, doc, "", "lab_failure", JSON_OBJECT, false);
	if (x) {
		static const char *const texts[] = { "step", "reason", "outcome" }, *const paths[] = { "console", "qemu_log" };

		number(&v, x, "lab_failure", "round", true, true, false, 1, 1000000);
		number(&v, x, "lab_failure", "try", true, true, false, 1, 1000000);
		number(&v, x, "lab_failure", "tries", true, true, false, 1, 1000000);
		for (i = 0; i < ARRAY_SIZE(texts); i++)
			need(&v, x, "lab_failure", texts[i], JSON_STRING);
		for (i = 0; i < ARRAY_SIZE(paths); i++)
			if (!json_is_null(json_object_get(x, paths[i])))
				get(&v, x, "lab_failure", paths[i], JSON_STRING, false);
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
	each_object(&v, doc, "", "suites", check_suite);
	return v.bad ? -EINVAL : 0;
}

