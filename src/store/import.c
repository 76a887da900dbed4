/* Importers for fio JSON, iperf3 JSON and sysbench text output. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "doc.h"
#include "import.h"
#include "../core/runner.h"
#include "../core/banned.h"

struct imp {
	struct vmb_results res;
	char *err;
	size_t errlen;
	int bad;
	json_t *pct; /* per metric: "suite/test/case/metric" -> percentile object, added after building */
};

static int fail(struct imp *im, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(struct imp *im, const char *fmt, ...)
{
	va_list ap;

	if (!im->bad) {
		va_start(ap, fmt);
		vsnprintf(im->err, im->errlen, fmt, ap);
		va_end(ap);
	}
	im->bad = 1;
	return -EINVAL;
}

static struct vmb_test_result *test_of(struct imp *im, const char *suite, const char *test)
{
	struct vmb_suite_result *s = NULL;

	for (size_t i = 0; i < im->res.nsuites; i++)
		if (!strcmp(im->res.suites[i].name, suite))
			s = &im->res.suites[i];
	if (!s) {
		struct vmb_suite_result *ns = realloc(im->res.suites, (im->res.nsuites + 1) * sizeof(*ns));

		if (!ns)
			return NULL;
		im->res.suites = ns;
		s = &ns[im->res.nsuites++];
		memset(s, 0, sizeof(*s));
		s->name = xstrdup(suite);
	}
	for (size_t i = 0; i < s->ntests; i++)
		if (!strcmp(s->tests[i].name, test))
			return &s->tests[i];
	{
		struct vmb_test_result *nt = realloc(s->tests, (s->ntests + 1) * sizeof(*nt));

		if (!nt)
			return NULL;
		s->tests = nt;
		memset(&nt[s->ntests], 0, sizeof(*nt));
		nt[s->ntests].name = xstrdup(test);
		return &nt[s->ntests++];
	}
}

/* A case with these params ("k=v" pairs, NULL-terminated), found or made. */
static struct vmb_case *case_of(struct vmb_test_result *t, const char *const *kv)
{
	for (size_t c = 0; c < t->ncases; c++) {
		size_t n = 0;
		bool same = true;

		for (; kv[2 * n]; n++)
			same &= n < t->cases[c].nparams && !strcmp(t->cases[c].params[n].key, kv[2 * n]) &&
				!strcmp(t->cases[c].params[n].value, kv[2 * n + 1]);
		if (same && n == t->cases[c].nparams)
			return &t->cases[c];
	}
	{
		struct vmb_case *nc = realloc(t->cases, (t->ncases + 1) * sizeof(*nc)), *c;

		if (!nc)
			return NULL;
		t->cases = nc;
		c = &nc[t->ncases++];
		memset(c, 0, sizeof(*c));
		for (size_t i = 0; kv[2 * i]; i++)
			if (vmb_params_add(&c->params, &c->nparams, kv[2 * i], kv[2 * i + 1]) < 0)
				return NULL;
		return c;
	}
}

static int value(struct vmb_case *c, const char *name, enum vmb_unit unit, enum vmb_dir dir, bool headline,
		 double v)
{
	struct vmb_metric *m = vmb_case_add_metric(c, name, unit, dir);

	if (!m || vmb_metric_push(m, v) < 0)
		return -ENOMEM;
	m->headline = headline;
	c->reps = (unsigned)m->n;
	return 0;
}

/* ---- JSON helpers: a value at a path, or a message naming the path ---- */

static const json_t *jget(struct imp *im, const json_t *o, const char *path, const char *key, json_type want)
{
	const json_t *x = json_object_get(o, key);
	bool ok = x && (want == JSON_REAL ? json_is_number(x) : json_typeof(x) == want);

	if (!ok) {
		fail(im, "%s.%s: %s", path, key, x ? "has the wrong type" : "missing");
		return NULL;
	}
	return x;
}

static double jnum(struct imp *im, const json_t *o, const char *path, const char *key)
{
	const json_t *x = jget(im, o, path, key, JSON_REAL);

	return x ? json_number_value(x) : NAN;
}

/* fio job options are strings ("4k", "32"); defaults are fio's. */
static const char *fio_opt(const json_t *job, const json_t *global, const char *key, const char *def)
{
	const char *v = json_string_value(json_object_get(json_object_get(job, "job options"), key));

	if (!v)
		v = json_string_value(json_object_get(global, key));
	return v ? v : def;
}

static int fio_size(struct imp *im, const char *path, const char *key, const char *s, char *out, size_t len)
{
	uint64_t v;

	if (parse_size(s, 0, UINT64_MAX, &v) < 0)
		return fail(im, "%s.\"job options\".%s: '%s' is not a size", path, key, s);
	snprintf(out, len, "%llu", (unsigned long long)v);
	return 0;
}

/* One direction (read or write) of a fio job into a case. */
static int fio_side(struct imp *im, struct vmb_case *c, const json_t *side, const char *path, const char *prefix)
{
	char name[64], key[256];
	const json_t *lat = jget(im, side, path, "lat_ns", JSON_OBJECT), *clat = json_object_get(side, "clat_ns");
	const json_t *pct;
	double iops = jnum(im, side, path, "iops"), bw = jnum(im, side, path, "bw_bytes");

	if (im->bad)
		return -EINVAL;
	snprintf(name, sizeof(name), "%siops", *prefix ? (prefix[0] == 'r' ? "read_" : "write_") : "");
	if (value(c, name, VMB_UNIT_PER_S, VMB_HIGHER, !*prefix, iops) < 0)
		return -ENOMEM;
	if (!*prefix && value(c, "mb_per_s", VMB_UNIT_MB_PER_S, VMB_HIGHER, false, bw / 1e6) < 0)
		return -ENOMEM;
	snprintf(name, sizeof(name), "%slatency", *prefix ? (prefix[0] == 'r' ? "read_" : "write_") : "");
	if (value(c, name, VMB_UNIT_NS, VMB_LOWER, false, jnum(im, lat, path, "mean")) < 0)
		return -ENOMEM;
	/* fio's percentiles: of lat with --lat_percentiles, else of clat */
	pct = json_object_get(lat, "percentile");
	if (!pct)
		pct = json_object_get(clat, "percentile");
	if (pct) {
		json_t *h = json_pack("{s:s, s:i, s:I, s:f, s:f, s:f, s:f, s:{s:O?, s:O?, s:O?, s:O?, s:O?}, s:[], s:s}",
				      "unit", "ns", "sub_buckets", 0,
				      "count", (json_int_t)json_integer_value(json_object_get(side, "total_ios")),
				      "min", jnum(im, lat, path, "min"), "max", jnum(im, lat, path, "max"),
				      "mean", jnum(im, lat, path, "mean"), "stddev", jnum(im, lat, path, "stddev"),
				      "percentiles", "p50", json_object_get(pct, "50.000000"),
				      "p90", json_object_get(pct, "90.000000"), "p99", json_object_get(pct, "99.000000"),
				      "p99.9", json_object_get(pct, "99.900000"), "p99.99", json_object_get(pct, "99.990000"),
				      "buckets", "source", json_object_get(lat, "percentile") ? "fio lat percentiles"
									      : "fio clat percentiles");

		snprintf(key, sizeof(key), "%p/%s", (void *)c, name);
		if (!h)
			return -ENOMEM;
		json_object_set_new(im->pct, key, h);
	}
	return im->bad ? -EINVAL : 0;
}

static int import_fio(struct imp *im, const json_t *root)
{
	static const char *const map[][2] = {
		{ "randread", "randread" }, { "randwrite", "randwrite" }, { "randrw", "randrw" },
		{ "read", "seqread" }, { "write", "seqwrite" },
	};
	const json_t *jobs = jget(im, root, "", "jobs", JSON_ARRAY), *global = json_object_get(root, "global options");
	const json_t *job;
	size_t i;

	json_array_foreach(jobs, i, job) {
		char path[64], bs[32], size[32], depth[32], jobs_s[32];
		const char *rw = fio_opt(job, global, "rw", NULL), *test = NULL;
		bool seq;
		struct vmb_test_result *t;
		struct vmb_case *c;
		int64_t qd, nj;
		int r;

		snprintf(path, sizeof(path), "jobs[%zu]", i);
		if (!rw)
			return fail(im, "%s.\"job options\".rw: missing", path);
		for (size_t k = 0; k < sizeof(map) / sizeof(map[0]); k++)
			if (!strcmp(rw, map[k][0]))
				test = map[k][1];
		if (!test)
			return fail(im, "%s.\"job options\".rw: '%s' has no vmbench counterpart (randread, randwrite, "
					"randrw, read, write)", path, rw);
		seq = !strcmp(test, "seqread") || !strcmp(test, "seqwrite");
		if (fio_size(im, path, "bs", fio_opt(job, global, "bs", "4k"), bs, sizeof(bs)) < 0 ||
		    fio_size(im, path, "size", fio_opt(job, global, "size", "0"), size, sizeof(size)) < 0)
			return -EINVAL;
		if (parse_i64(fio_opt(job, global, "iodepth", "1"), 1, 65536, &qd) < 0 ||
		    parse_i64(fio_opt(job, global, "numjobs", "1"), 1, 65536, &nj) < 0)
			return fail(im, "%s.\"job options\": iodepth or numjobs is not a whole number", path);
		snprintf(depth, sizeof(depth), "%lld", (long long)qd);
		snprintf(jobs_s, sizeof(jobs_s), "%lld", (long long)nj);
		{
			/* the same params, in the same order, as vmbench's own disk tests */
			const bool buffered = strcmp(fio_opt(job, global, "direct", "0"), "1") != 0;
			const char *kv_rand[] = { "iodepth", depth, "bs", bs, "jobs", jobs_s, "size", size, "buffered",
						  buffered ? "true" : "false", NULL };
			const char *kv_rw[] = { "iodepth", depth, "bs", bs, "jobs", jobs_s, "size", size, "buffered",
						buffered ? "true" : "false", "rwmix",
						fio_opt(job, global, "rwmixread", "50"), NULL };
			const char *kv_seq[] = { "seq-bs", bs, "seq-iodepth", depth, "jobs", jobs_s, "size", size, "buffered",
						 buffered ? "true" : "false", NULL };

			t = test_of(im, "disk", test);
			c = t ? case_of(t, seq ? kv_seq : !strcmp(test, "randrw") ? kv_rw : kv_rand) : NULL;
		}
		if (!c)
			return -ENOMEM;
		snprintf(path, sizeof(path), "jobs[%zu]", i);
		if (!strcmp(test, "randrw")) {
			const json_t *rd = jget(im, job, path, "read", JSON_OBJECT), *wr = jget(im, job, path, "write", JSON_OBJECT);
			char rp[64], wp[64];

			if (im->bad)
				return -EINVAL;
			snprintf(rp, sizeof(rp), "%s.read", path);
			snprintf(wp, sizeof(wp), "%s.write", path);
			r = fio_side(im, c, rd, rp, "r_");
			if (r == 0)
				r = fio_side(im, c, wr, wp, "w_");
			if (r == 0)
				r = value(c, "iops", VMB_UNIT_PER_S, VMB_HIGHER, true,
					  json_number_value(json_object_get(rd, "iops")) + json_number_value(json_object_get(wr, "iops")));
		} else {
			const char *dir = strstr(rw, "write") ? "write" : "read";
			const json_t *side = jget(im, job, path, dir, JSON_OBJECT);
			char sp[64];

			if (im->bad)
				return -EINVAL;
			snprintf(sp, sizeof(sp), "%s.%s", path, dir);
			r = fio_side(im, c, side, sp, "");
			if (r == 0 && seq) {
				/* sequential tests' headline is MB/s */
				for (size_t k = 0; k < c->nmetrics; k++)
					c->metrics[k].headline = !strcmp(c->metrics[k].name, "mb_per_s");
			}
		}
		if (r < 0)
			return r;
	}
	if (!json_array_size(jobs))
		return fail(im, "jobs: no job in this fio output");
	return 0;
}

static int import_iperf3(struct imp *im, const json_t *root)
{
	/* a failed iperf3 run says why in "error"; say that, not what is missing */
	const json_t *failed = json_object_get(root, "error");
	const json_t *start = failed ? NULL : jget(im, root, "", "start", JSON_OBJECT);
	const json_t *ts = start ? jget(im, start, "start", "test_start", JSON_OBJECT) : NULL;
	const json_t *intervals = jget(im, root, "", "intervals", JSON_ARRAY), *end = jget(im, root, "", "end", JSON_OBJECT);
	const json_t *iv;
	const char *proto;
	char streams[16], reverse[8];
	struct vmb_test_result *t;
	struct vmb_case *c;
	bool udp;
	size_t i;

	if (failed)
		return fail(im, "error: iperf3 reported \"%s\"", json_string_value(failed));
	if (im->bad)
		return -EINVAL;
	proto = json_string_value(jget(im, ts, "start.test_start", "protocol", JSON_STRING));
	if (!proto)
		return -EINVAL;
	udp = !strcmp(proto, "UDP");
	snprintf(streams, sizeof(streams), "%lld", (long long)json_integer_value(json_object_get(ts, "num_streams")));
	snprintf(reverse, sizeof(reverse), "%s", json_integer_value(json_object_get(ts, "reverse")) ? "true" : "false");
	{
		const char *kv[] = { "streams", streams, "reverse", reverse, NULL };

		t = test_of(im, "net", udp ? "udp_stream" : "tcp_stream");
		c = t ? case_of(t, kv) : NULL;
	}
	if (!c)
		return -ENOMEM;
	/* each interval (1 s by default) is a sample, as iperf3 prints them */
	json_array_foreach(intervals, i, iv) {
		char path[48];
		const json_t *sum;

		snprintf(path, sizeof(path), "intervals[%zu]", i);
		sum = jget(im, iv, path, "sum", JSON_OBJECT);
		if (!sum)
			return -EINVAL;
		if (json_is_true(json_object_get(sum, "omitted")))
			continue;
		snprintf(path, sizeof(path), "intervals[%zu].sum", i);
		if (value(c, "mbit_per_s", VMB_UNIT_MBIT_PER_S, VMB_HIGHER, true, jnum(im, sum, path, "bits_per_second") / 1e6) < 0)
			return -ENOMEM;
	}
	if (!json_array_size(intervals))
		return fail(im, "intervals: empty: the test did not run");
	if (udp) {
		const json_t *sum = jget(im, end, "end", "sum", JSON_OBJECT);
		struct vmb_metric *m;

		if (!sum)
			return -EINVAL;
		m = vmb_case_add_metric(c, "jitter", VMB_UNIT_NS, VMB_LOWER);
		if (!m || vmb_metric_push(m, jnum(im, sum, "end.sum", "jitter_ms") * 1e6) < 0)
			return -ENOMEM;
		m = vmb_case_add_metric(c, "lost_pct", VMB_UNIT_PCT, VMB_LOWER);
		if (!m || vmb_metric_push(m, jnum(im, sum, "end.sum", "lost_percent")) < 0)
			return -ENOMEM;
	} else {
		const json_t *sent = jget(im, end, "end", "sum_sent", JSON_OBJECT);
		struct vmb_metric *m;

		if (!sent)
			return -EINVAL;
		m = vmb_case_add_metric(c, "retransmits", VMB_UNIT_NONE, VMB_LOWER);
		if (!m || vmb_metric_push(m, jnum(im, sent, "end.sum_sent", "retransmits")) < 0)
			return -ENOMEM;
	}
	return im->bad ? -EINVAL : 0;
}

/* ---- sysbench text ---- */

/* The number after `label` on the first line that contains it; its line number in *line. */
static int text_num(struct imp *im, const char *text, const char *label, double *out)
{
	const char *p = strstr(text, label);
	char *end;
	int line = 1;

	if (!p)
		return fail(im, "no line with '%s' (sysbench's summary is incomplete)", label);
	for (const char *q = text; q < p; q++)
		line += *q == '\n';
	p += strlen(label);
	while (*p == ' ' || *p == '\t' || *p == '(')
		p++;
	*out = strtod(p, &end);
	if (end == p || !isfinite(*out))
		return fail(im, "line %d: expected a number after '%s'", line, label);
	return 0;
}

static int import_sysbench(struct imp *im, const char *text, bool cpu)
{
	double threads, v, lat;
	char th[16], extra[32];
	struct vmb_test_result *t;
	struct vmb_case *c;

	if (text_num(im, text, "Number of threads:", &threads) < 0)
		return -EINVAL;
	snprintf(th, sizeof(th), "%.0f", threads);
	if (cpu) {
		double limit;

		if (text_num(im, text, "Prime numbers limit:", &limit) < 0 ||
		    text_num(im, text, "events per second:", &v) < 0 || text_num(im, text, "avg:", &lat) < 0)
			return -EINVAL;
		snprintf(extra, sizeof(extra), "%.0f", limit);
		{
			const char *kv[] = { "threads", th, "max-prime", extra, NULL };

			t = test_of(im, "cpu", "prime");
			c = t ? case_of(t, kv) : NULL;
		}
		if (!c || value(c, "events_per_s", VMB_UNIT_PER_S, VMB_HIGHER, true, v) < 0 ||
		    value(c, "latency", VMB_UNIT_NS, VMB_LOWER, false, lat * 1e6) < 0)
			return -ENOMEM;
		return 0;
	}
	{
		double ops, mib;
		const char *kv[] = { "threads", th, NULL };

		if (text_num(im, text, "Total operations:", &ops) < 0)
			return -EINVAL;
		/* "Total operations: 2048 (31085.12 per second)" */
		if (text_num(im, strstr(text, "Total operations:") + 17, " (", &ops) < 0 ||
		    text_num(im, text, "MiB transferred", &mib) < 0)
			return -EINVAL;
		t = test_of(im, "mem", "sysbench_memory");
		c = t ? case_of(t, kv) : NULL;
		/* "2048.00 MiB transferred (31085.12 MiB/sec)": the rate follows */
		if (!c || value(c, "ops_per_s", VMB_UNIT_PER_S, VMB_HIGHER, false, ops) < 0 ||
		    value(c, "mb_per_s", VMB_UNIT_MB_PER_S, VMB_HIGHER, true, mib * 1048576.0 / 1e6) < 0)
			return -ENOMEM;
		return 0;
	}
}

/* ---- entry ---- */

static void add_percentiles(json_t *doc, json_t *pct_by_key, const struct vmb_results *res)
{
	/* Walk results and document in the same order: metric keys match. */
	for (size_t s = 0; s < res->nsuites; s++)
		for (size_t t = 0; t < res->suites[s].ntests; t++)
			for (size_t c = 0; c < res->suites[s].tests[t].ncases; c++) {
				const struct vmb_case *vc = &res->suites[s].tests[t].cases[c];
				json_t *jc = json_array_get(json_object_get(json_array_get(json_object_get(
							json_array_get(json_object_get(doc, "suites"), s), "tests"), t), "cases"), c);

				for (size_t m = 0; m < vc->nmetrics; m++) {
					char key[256];
					json_t *h;

					snprintf(key, sizeof(key), "%p/%s", (const void *)vc, vc->metrics[m].name);
					h = json_object_get(pct_by_key, key);
					if (h)
						json_object_set(json_array_get(json_object_get(jc, "metrics"), m), "histogram", h);
				}
			}
}

int import_parse(const char *text, const char *name, const struct strv *labels, json_t **out, const char **tool,
		 char *err, size_t errlen)
{
	static const struct runner_settings rs = { 0 };
	struct imp im = { .err = err, .errlen = errlen, .pct = json_object() };
	struct strv all = { 0 };
	json_t *root = NULL, *doc = NULL, *fp = NULL;
	json_error_t je;
	const char *source;
	char why[256];
	int r = -EINVAL;

	*tool = NULL;
	while (*text == ' ' || *text == '\n' || *text == '\t' || *text == '\r')
		text++;
	if (*text == '{') {
		root = json_loads(text, 0, &je);
		if (!root) {
			snprintf(err, errlen, "%s: not valid JSON at line %d, column %d: %s", name, je.line, je.column, je.text);
			goto out;
		}
		if (json_object_get(root, "fio version")) {
			*tool = "fio";
			r = import_fio(&im, root);
		} else if (json_object_get(root, "start") && json_object_get(root, "end") && json_object_get(root, "intervals")) {
			*tool = "iperf3";
			r = import_iperf3(&im, root);
		} else {
			snprintf(err, errlen, "%s: JSON, but neither fio's (no \"fio version\") nor iperf3's (no "
				 "\"start\"/\"intervals\"/\"end\")", name);
			goto out;
		}
	} else if (strstr(text, "sysbench") && strstr(text, "CPU speed:")) {
		*tool = "sysbench-cpu";
		r = import_sysbench(&im, text, true);
	} else if (strstr(text, "sysbench") && strstr(text, "MiB transferred")) {
		*tool = "sysbench-memory";
		r = import_sysbench(&im, text, false);
	} else {
		snprintf(err, errlen, "%s: not a format vmbench imports (fio --output-format=json, iperf3 -J, "
			 "sysbench cpu or memory output)", name);
		goto out;
	}
	if (r < 0) {
		if (r == -EINVAL && im.bad) {
			char inner[256];

			snprintf(inner, sizeof(inner), "%s", err);
			snprintf(err, errlen, "%s: %s: %s", name, *tool, inner);
		} else if (r == -ENOMEM) {
			snprintf(err, errlen, "out of memory");
		}
		goto out;
	}
	/* every sample is in: summaries */
	for (size_t s = 0; s < im.res.nsuites; s++)
		for (size_t t = 0; t < im.res.suites[s].ntests; t++)
			for (size_t c = 0; c < im.res.suites[s].tests[t].ncases; c++) {
				struct vmb_case *vc = &im.res.suites[s].tests[t].cases[c];

				for (size_t m = 0; m < vc->nmetrics; m++)
					stats_summarize(vc->metrics[m].samples, vc->metrics[m].n, &vc->metrics[m].sum);
			}
	source = *tool;
	{
		char kv[64];

		snprintf(kv, sizeof(kv), "source=%s", source);
		strv_push(&all, kv);
		for (size_t i = 0; labels && i < labels->n; i++)
			strv_push(&all, labels->v[i]);
	}
	fp = json_pack("{s:n, s:{s:s, s:[]}, s:s}", "hostname", "hypervisor", "name", "unknown", "sources",
		       "imported_from", name);
	doc = doc_from_results(&im.res, &(struct doc_meta){ .argc = 0, .started = wall_time_s(), .ended = wall_time_s(),
							     .fingerprint = fp, .labels = &all, .rs = &rs });
	if (!doc) {
		r = -ENOMEM;
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	add_percentiles(doc, im.pct, &im.res);
	json_object_set_new(json_object_get(doc, "tool"), "imported_from", json_string(source));
	json_object_del(doc, "settings");
	if (doc_validate(doc, why, sizeof(why)) < 0) {
		snprintf(err, errlen, "%s: the imported document is not valid: %s", name, why);
		r = -EINVAL;
		goto out;
	}
	*out = doc;
	doc = NULL;
	r = 0;
out:
	json_decref(doc);
	json_decref(fp);
	json_decref(root);
	json_decref(im.pct);
	strv_clear(&all);
	vmb_results_release(&im.res);
	return r;
}
