/* Result document: build from a run's results, load (validated by
 * doc_validate.c), write, and the queries the commands ask of one. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
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

/* The percentiles a histogram is stored with, each its key beside its value
 * (p95: sysbench's latency figure, app.oltp). */
static const struct {
	const char *key;
	double p;
} percentiles[] = {
	{ "p50", 50 }, { "p90", 90 }, { "p95", 95 }, { "p99", 99 }, { "p99.9", 99.9 }, { "p99.99", 99.99 },
};

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
		r = json_object_set_new(pct, percentiles[i].key, json_real(hist_percentile(h, percentiles[i].p)));
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
	return json_pack("{s:s, s:f, s:{s:o, s:o, s:o, s:I, s:I, s:o}, s:b}", "start", start, "start_epoch", n->start,
			 "noise", "other_cpu_pct", jreal(n->other_cpu_pct), "steal_pct", jreal(n->steal_pct),
			 "irq_pct", jreal(n->irq_pct),
			 "nivcsw", (json_int_t)n->nivcsw, "majflt", (json_int_t)n->majflt, "mhz", jreal(n->mhz),
			 "busy", n->busy);
}

/* A series: {name, unit, rep, bucket, points: [[t_s, value], ...]}. */
static json_t *series_json(const struct vmb_series *se)
{
	json_t *points = json_array();

	for (size_t i = 0; points && i < se->n; i++)
		if (json_array_append_new(points, json_pack("[f, f]", se->t[i], se->v[i])) < 0) {
			json_decref(points);
			return NULL;
		}
	return json_pack("{s:s, s:s, s:I, s:I, s:o}", "name", se->name, "unit", vmb_unit_name(se->unit), "rep",
			 (json_int_t)se->rep, "bucket", (json_int_t)se->bucket, "points", points);
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
	/* how long the warm-up took, and whether the headline was steady by its end */
	if (o && c->warmup_s > 0 && (json_object_set_new(o, "warmup_s", json_real(c->warmup_s)) < 0 ||
				      (c->warmup_steady >= 0 &&
				       json_object_set_new(o, "warmup_steady", json_boolean(c->warmup_steady)) < 0))) {
		json_decref(o);
		json_decref(reps);
		return NULL;
	}
	if (o && c->nnoise) {
		if (json_object_set_new(o, "reps", reps) < 0) {
			json_decref(o);
			return NULL;
		}
	} else {
		json_decref(reps);
	}
	if (o && c->nseries) {
		json_t *series = json_array();

		for (size_t i = 0; series && i < c->nseries; i++)
			if (json_array_append_new(series, series_json(&c->series[i])) < 0) {
				json_decref(series);
				series = NULL;
			}
		if (json_object_set_new(o, "series", series) < 0) {
			json_decref(o);
			return NULL;
		}
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

int doc_json_parse(const char *text, bool dups_ok, json_t **out, const char **rest, char *err, size_t errlen)
{
	json_error_t je;
	json_t *v;

	/* without JSON_DISABLE_EOF_CHECK, jansson refuses what follows the value itself */
	v = json_loads(text, (dups_ok ? 0 : JSON_REJECT_DUPLICATES) | (rest ? JSON_DISABLE_EOF_CHECK : 0), &je);
	if (!v) {
		snprintf(err, errlen, "line %d, column %d: %s", je.line, je.column, je.text);
		return json_error_code(&je) == json_error_duplicate_key ? -ENOTUNIQ : -EINVAL;
	}
	if (rest)
		*rest = text + je.position;
	*out = v;
	return 0;
}

int doc_load_string(const char *text, const char *name, json_t **out, char *err, size_t errlen)
{
	json_t *doc;
	char why[256];

	if (doc_json_parse(text, false, &doc, NULL, why, sizeof(why)) < 0) {
		snprintf(err, errlen, "%s: not valid JSON at %s", name, why);
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

json_t *doc_lab_failure(const json_t *doc)
{
	const json_t *lf = json_object_get(doc, "lab_failure");
	/* the configuration's name: the document's; a label before sessions had ids */
	const char *cfg = json_string_value(json_object_get(doc, "lab_config"))
				  ?: json_string_value(json_object_get(json_object_get(doc, "labels"), "config"));
	json_t *rec;

	if (!json_is_object(lf))
		return NULL;
	rec = json_deep_copy(lf);
	if (rec && json_object_set_new(rec, "config", json_string(cfg ? cfg : "?")) < 0) {
		json_decref(rec);
		rec = NULL;
	}
	return rec;
}

bool doc_interrupted(const json_t *doc)
{
	const char *status = json_string_value(json_object_get(doc, "status"));

	return status && !strcmp(status, "interrupted");
}

void doc_noise_count(const json_t *doc, size_t *busy, size_t *sensed, size_t *cpu_sensed)
{
	size_t i, j, k, l, nb = 0, ns = 0, nc = 0;
	const json_t *s, *t, *c, *r;

	json_array_foreach(json_object_get(doc, "suites"), i, s)
		json_array_foreach(json_object_get(s, "tests"), j, t)
			json_array_foreach(json_object_get(t, "cases"), k, c)
				json_array_foreach(json_object_get(c, "reps"), l, r)
					if (json_is_object(json_object_get(r, "noise"))) {
						ns++;
						nb += json_is_true(json_object_get(r, "busy"));
						nc += json_is_number(json_object_get(json_object_get(r, "noise"),
										     "other_cpu_pct"));
					}
	*busy = nb;
	*sensed = ns;
	*cpu_sensed = nc;
}

int doc_note_all(json_t *doc, const char *key, json_t *value)
{
	size_t i;
	json_t *s;
	int r = value ? 0 : -ENOMEM;

	json_array_foreach(json_object_get(doc, "suites"), i, s) {
		json_t *notes = json_object_get(s, "notes");

		if (r < 0)
			break;
		if (!json_is_object(notes) && json_object_set_new(s, "notes", notes = json_object()) < 0)
			r = -ENOMEM;
		else if (json_object_set(notes, key, value) < 0)
			r = -ENOMEM;
	}
	json_decref(value);
	return r;
}
