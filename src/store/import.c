/* Importers: one row per format in `importers` below (detect + parse), each
 * turning a peer tool's output into vmbench results with vmbench's metric
 * names and parameters; the common part validates the document, serializes
 * it and loads it back, so that only what the store can show is returned. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "doc.h"
#include "import.h"
#include "../core/hist.h"
#include "../core/result.h"
#include "../core/banned.h"

struct imp {
	struct vmb_results res;
	char *err;
	size_t errlen;
	int bad;
	json_t *pct; /* "suite/test/case/metric" (indices) -> histogram object, added after building */
	json_t *doc; /* set instead of res by an importer whose input is a whole document */
	double tool_started, tool_duration; /* the tool's own start (epoch s) and length; 0 when it has none */
};

struct imp_input {
	const char *text;   /* the whole input, without a byte-order mark */
	const json_t *root; /* the JSON document for JSON formats, else NULL */
};

/* Where a case is: indices stay valid when the arrays grow, pointers do not. */
struct where {
	size_t s, t, c;
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

static struct vmb_test_result *test_of(struct imp *im, const char *suite, const char *test, struct where *w)
{
	struct vmb_suite_result *s = NULL;
	size_t i;

	for (i = 0; i < im->res.nsuites; i++)
		if (!strcmp(im->res.suites[i].name, suite)) {
			s = &im->res.suites[i];
			break;
		}
	if (!s) {
		struct vmb_suite_result *ns = realloc(im->res.suites, (im->res.nsuites + 1) * sizeof(*ns));

		if (!ns)
			return NULL;
		im->res.suites = ns;
		i = im->res.nsuites;
		s = &ns[im->res.nsuites++];
		memset(s, 0, sizeof(*s));
		s->name = strdup(suite);
		if (!s->name)
			return NULL;
	}
	w->s = i;
	for (i = 0; i < s->ntests; i++)
		if (!strcmp(s->tests[i].name, test)) {
			w->t = i;
			return &s->tests[i];
		}
	{
		struct vmb_test_result *nt = realloc(s->tests, (s->ntests + 1) * sizeof(*nt));

		if (!nt)
			return NULL;
		s->tests = nt;
		memset(&nt[s->ntests], 0, sizeof(*nt));
		nt[s->ntests].name = strdup(test);
		if (!nt[s->ntests].name)
			return NULL;
		w->t = s->ntests;
		return &nt[s->ntests++];
	}
}

/* The case of suite.test with these params ("k", "v" pairs, NULL-terminated), found or made. */
static struct vmb_case *case_of(struct imp *im, const char *suite, const char *test, const char *const *kv,
				struct where *w)
{
	struct vmb_test_result *t = test_of(im, suite, test, w);
	struct vmb_case *nc, *c;

	if (!t)
		return NULL;
	for (size_t i = 0; i < t->ncases; i++) {
		size_t n = 0;
		bool same = true;

		for (; kv[2 * n]; n++)
			same &= n < t->cases[i].nparams && !strcmp(t->cases[i].params[n].key, kv[2 * n]) &&
				!strcmp(t->cases[i].params[n].value, kv[2 * n + 1]);
		if (same && n == t->cases[i].nparams) {
			w->c = i;
			return &t->cases[i];
		}
	}
	nc = realloc(t->cases, (t->ncases + 1) * sizeof(*nc));
	if (!nc)
		return NULL;
	t->cases = nc;
	w->c = t->ncases;
	c = &nc[t->ncases++];
	memset(c, 0, sizeof(*c));
	for (size_t i = 0; kv[2 * i]; i++)
		if (vmb_params_add(&c->params, &c->nparams, kv[2 * i], kv[2 * i + 1]) < 0)
			return NULL;
	return c;
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

	if (im->bad)
		return NULL;
	if (!ok) {
		fail(im, "%s%s%s: %s", path, *path ? "." : "", key,
		     x ? (want == JSON_REAL ? "expected a number"
			  : want == JSON_OBJECT ? "expected an object"
			  : want == JSON_ARRAY ? "expected an array"
			  : want == JSON_STRING ? "expected a string" : "has the wrong type")
		       : "missing");
		return NULL;
	}
	return x;
}

/* What an imported figure is, and the most that is plausible for it: a
 * figure above its bound is a corrupt or forged file, not a measurement.
 * The bounds are far above any machine of today, so that a real result is
 * never refused; the table is documented in docs/results-schema.md
 * ("Imported figures") and must stay the same as there. */
enum kind {
	K_BIT_S,     /* a network rate: iperf3 bits_per_second */
	K_BYTE_S,    /* a storage bandwidth: fio bw_bytes */
	K_IOPS,      /* fio iops */
	K_NS,        /* a latency in ns: fio's lat_ns, clat_ns, percentiles, bins */
	K_MS,        /* a time in ms: iperf3 jitter_ms, sysbench's latency */
	K_PCT,       /* a percentage: iperf3 lost_percent */
	K_COUNT,     /* a count of events: iperf3 retransmits, fio total_ios */
	K_EVENTS_S,  /* sysbench cpu events per second */
	K_OPS_S,     /* sysbench memory operations per second */
	K_MIB_S,     /* sysbench memory MiB/s */
};

static const struct {
	double max;
	const char *text; /* the bound as the message and the docs say it */
} kinds[] = {
	[K_BIT_S] = { 1e13, "10 Tbit/s" },
	[K_BYTE_S] = { 1e12, "1 TB/s" },
	[K_IOPS] = { 1e9, "10^9 IOPS" },
	[K_NS] = { 3.6e12, "1 hour" },
	[K_MS] = { 3.6e6, "1 hour" },
	[K_PCT] = { 100, "100%" },
	[K_COUNT] = { 1e15, "10^15" },
	[K_EVENTS_S] = { 1e10, "10^10 events/s" },
	[K_OPS_S] = { 1e11, "10^11 operations/s" },
	[K_MIB_S] = { 1e7, "10^7 MiB/s" },
};

/* A measured quantity: a finite number from 0 to its kind's bound. NAN
 * after a failure, with a message naming the field by its JSON path. */
static double jnum(struct imp *im, const json_t *o, const char *path, const char *key, enum kind kind)
{
	const json_t *x = jget(im, o, path, key, JSON_REAL);
	double v;

	if (!x)
		return NAN;
	v = json_number_value(x);
	if (!isfinite(v) || v < 0) {
		fail(im, "%s%s%s: %g is not a measured value (negative)", path, *path ? "." : "", key, v);
		return NAN;
	}
	if (v > kinds[kind].max) {
		fail(im, "%s%s%s: %g is beyond what is plausible (at most %s; see \"Imported figures\" in "
		     "docs/results-schema.md)", path, *path ? "." : "", key, v, kinds[kind].text);
		return NAN;
	}
	return v;
}

/* ---- fio ---- */

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

static int fio_count(struct imp *im, const char *path, const char *key, const char *s, char *out, size_t len)
{
	int64_t v;

	if (parse_i64(s, 1, 65536, &v) < 0)
		return fail(im, "%s.\"job options\".%s: '%s' is not a whole number from 1 to 65536", path, key, s);
	snprintf(out, len, "%lld", (long long)v);
	return 0;
}

/* fio json+ "bins" (latency in ns -> count) in vmbench's bucket layout, as
 * [lower, count] pairs; an empty array without bins. The bins count every
 * I/O once: their total must be total_ios (`ios`), which also keeps the
 * sums from wrapping (a wrapped bucket of 0 used to vanish). NULL after a
 * failure. */
static json_t *fio_buckets(struct imp *im, const json_t *lat, const char *lpath, uint64_t ios)
{
	const json_t *bins = json_object_get(lat, "bins"), *x;
	json_t *out = json_array();
	uint64_t *counts = NULL, total = 0;
	const char *k;

	if (!out || !bins)
		return out;
	if (!json_is_object(bins)) {
		fail(im, "%s.bins: expected an object", lpath);
		goto fail;
	}
	counts = calloc(HIST_BUCKETS, sizeof(*counts));
	if (!counts)
		goto fail;
	json_object_foreach((json_t *)bins, k, x) {
		uint64_t v;

		if (parse_size(k, 0, UINT64_MAX, &v) < 0 || strspn(k, "0123456789") != strlen(k)) {
			fail(im, "%s.bins.\"%s\": expected a latency in ns as the key", lpath, k);
			goto fail;
		}
		if (!json_is_integer(x) || json_integer_value(x) < 0) {
			fail(im, "%s.bins.\"%s\": expected a count", lpath, k);
			goto fail;
		}
		if (v > (uint64_t)kinds[K_NS].max) {
			fail(im, "%s.bins.\"%s\": a latency beyond what is plausible (at most %s)", lpath, k,
			     kinds[K_NS].text);
			goto fail;
		}
		/* each count is at most total_ios, so neither sum can wrap */
		if ((uint64_t)json_integer_value(x) > ios - total) {
			fail(im, "%s.bins: the bins count more I/Os than total_ios (%llu)", lpath,
			     (unsigned long long)ios);
			goto fail;
		}
		total += (uint64_t)json_integer_value(x);
		counts[hist_index(v)] += (uint64_t)json_integer_value(x);
	}
	if (total != ios) {
		fail(im, "%s.bins: the bins count %llu I/Os, total_ios says %llu", lpath, (unsigned long long)total,
		     (unsigned long long)ios);
		goto fail;
	}
	for (unsigned i = 0; i < HIST_BUCKETS; i++)
		if (counts[i] &&
		    json_array_append_new(out, json_pack("[I, I]", (json_int_t)hist_bucket_lower(i), (json_int_t)counts[i])) < 0)
			goto fail;
	free(counts);
	return out;
fail:
	free(counts);
	json_decref(out);
	return NULL;
}

/* fio's percentiles of one latency object as a histogram; buckets from
 * json+'s bins when there are some. */
static json_t *fio_histogram(struct imp *im, const json_t *side, const json_t *lat, const json_t *pct,
			     const char *path, const char *lpath)
{
	static const char *const keys[][2] = {
		{ "50.000000", "p50" }, { "90.000000", "p90" }, { "99.000000", "p99" },
		{ "99.900000", "p99.9" }, { "99.990000", "p99.99" },
	};
	const json_t *ios;
	double min, max, mean, sd;
	json_t *p = json_object(), *buckets;

	/* every value checked before it is copied: fio's own, never a string or an array */
	for (size_t i = 0; p && i < sizeof(keys) / sizeof(keys[0]); i++) {
		const json_t *x = json_object_get(pct, keys[i][0]);

		if (!x)
			continue;
		if (!json_is_number(x) || json_number_value(x) < 0 || json_number_value(x) > kinds[K_NS].max) {
			fail(im, "%s.percentile.\"%s\": expected a latency in ns of at most %s", lpath, keys[i][0],
			     kinds[K_NS].text);
			json_decref(p);
			return NULL;
		}
		if (json_object_set_new(p, keys[i][1], json_real(json_number_value(x))) < 0) {
			json_decref(p);
			return NULL;
		}
	}
	ios = jget(im, side, path, "total_ios", JSON_INTEGER);
	min = jnum(im, lat, lpath, "min", K_NS);
	max = jnum(im, lat, lpath, "max", K_NS);
	mean = jnum(im, lat, lpath, "mean", K_NS);
	sd = jnum(im, lat, lpath, "stddev", K_NS);
	if (!im->bad && (json_integer_value(ios) < 0 || json_integer_value(ios) > kinds[K_COUNT].max))
		fail(im, "%s.total_ios: %lld is not a count of I/Os (0 to %s)", path, (long long)json_integer_value(ios),
		     kinds[K_COUNT].text);
	if (im->bad || !p) {
		json_decref(p);
		return NULL;
	}
	buckets = fio_buckets(im, lat, lpath, (uint64_t)json_integer_value(ios));
	if (!buckets) {
		json_decref(p);
		return NULL;
	}
	return json_pack("{s:s, s:i, s:I, s:f, s:f, s:f, s:f, s:o, s:o, s:s}", "unit", "ns", "sub_buckets",
			 json_array_size(buckets) ? (int)HIST_SUB : 0, "count", (json_int_t)json_integer_value(ios),
			 "min", min, "max", max, "mean", mean, "stddev", sd, "percentiles", p, "buckets", buckets,
			 "source",
			 str_has_prefix(lpath + strlen(path), ".lat_ns") ? "fio lat percentiles" : "fio clat percentiles");
}

/* One direction (read or write) of a fio job into a case; prefix "" or "read_"/"write_". */
static int fio_side(struct imp *im, struct vmb_case *c, const struct where *w, const json_t *side,
		    const char *path, const char *prefix)
{
	char name[64], key[256], lp[96];
	const json_t *lat = jget(im, side, path, "lat_ns", JSON_OBJECT), *clat = json_object_get(side, "clat_ns");
	const json_t *pct, *src;
	double iops = jnum(im, side, path, "iops", K_IOPS), bw = jnum(im, side, path, "bw_bytes", K_BYTE_S), mean;

	snprintf(lp, sizeof(lp), "%s.lat_ns", path);
	mean = jnum(im, lat, lp, "mean", K_NS);
	if (im->bad)
		return -EINVAL;
	snprintf(name, sizeof(name), "%siops", prefix);
	if (value(c, name, VMB_UNIT_PER_S, VMB_HIGHER, !*prefix, iops) < 0)
		return -ENOMEM;
	if (!*prefix && value(c, "mb_per_s", VMB_UNIT_MB_PER_S, VMB_HIGHER, false, bw / 1e6) < 0)
		return -ENOMEM;
	snprintf(name, sizeof(name), "%slatency", prefix);
	if (value(c, name, VMB_UNIT_NS, VMB_LOWER, false, mean) < 0)
		return -ENOMEM;
	/* fio's percentiles: of lat with --lat_percentiles, else of clat */
	src = lat;
	pct = json_object_get(lat, "percentile");
	if (!pct && json_is_object(clat)) {
		src = clat;
		pct = json_object_get(clat, "percentile");
	}
	if (pct) {
		char sp[96];
		json_t *h;

		snprintf(sp, sizeof(sp), "%s.%s", path, src == lat ? "lat_ns" : "clat_ns");
		if (!json_is_object(pct))
			return fail(im, "%s.percentile: expected an object", sp);
		h = fio_histogram(im, side, src, pct, path, sp);
		if (!h)
			return im->bad ? -EINVAL : -ENOMEM;
		snprintf(key, sizeof(key), "%zu/%zu/%zu/%s", w->s, w->t, w->c, name);
		if (json_object_set_new(im->pct, key, h) < 0)
			return -ENOMEM;
	}
	return 0;
}

/* The I/O engines of the jobs, as the disk suite notes its own ("engine"):
 * how it was measured, not what, so a note and not a param. */
static int fio_note_engine(struct imp *im, size_t suite, const char *engine)
{
	struct vmb_suite_result *s = &im->res.suites[suite];
	char *v;

	for (size_t i = 0; i < s->nnotes; i++) {
		size_t n;

		if (strcmp(s->notes[i].key, "engine"))
			continue;
		if (str_in_list(s->notes[i].value, ',', engine))
			return 0;
		n = strlen(s->notes[i].value) + strlen(engine) + 2;
		v = malloc(n);
		if (!v)
			return -ENOMEM;
		snprintf(v, n, "%s,%s", s->notes[i].value, engine);
		free(s->notes[i].value);
		s->notes[i].value = v;
		return 0;
	}
	return vmb_params_add(&s->notes, &s->nnotes, "engine", engine) < 0 ? -ENOMEM : 0;
}

/* How many entries of jobs have this job's name and group. */
static size_t fio_same_job(const json_t *jobs, const json_t *job)
{
	const char *name = json_string_value(json_object_get(job, "jobname"));
	json_int_t group = json_integer_value(json_object_get(job, "groupid"));
	const json_t *o;
	size_t i, n = 0;

	json_array_foreach(jobs, i, o)
		n += name && json_is_string(json_object_get(o, "jobname")) &&
		     !strcmp(json_string_value(json_object_get(o, "jobname")), name) &&
		     json_integer_value(json_object_get(o, "groupid")) == group;
	return n;
}

static bool fio_detect(const struct imp_input *in)
{
	return in->root && json_object_get(in->root, "fio version");
}

static int import_fio(struct imp *im, const struct imp_input *in)
{
	static const char *const map[][2] = {
		{ "randread", "randread" }, { "randwrite", "randwrite" }, { "randrw", "randrw" },
		{ "read", "seqread" }, { "write", "seqwrite" },
	};
	const json_t *root = in->root, *jobs = jget(im, root, "", "jobs", JSON_ARRAY);
	const json_t *global = json_object_get(root, "global options"), *job;
	const json_t *ts = json_object_get(root, "timestamp");
	size_t i;

	if (!jobs)
		return -EINVAL;
	/* fio's own clock: when the jobs ran, not when they were imported */
	if (json_is_integer(ts) && json_integer_value(ts) > 0 && json_integer_value(ts) < 32503680000LL)
		im->tool_started = (double)json_integer_value(ts);
	if (!json_array_size(jobs))
		return fail(im, "jobs: no job in this fio output");
	json_array_foreach(jobs, i, job) {
		char path[64], bs[32], size[32], depth[32], nj[32];
		const char *rw, *test = NULL;
		const json_t *jerr;
		struct vmb_case *c;
		struct where w;
		bool seq, buffered;
		int r;

		snprintf(path, sizeof(path), "jobs[%zu]", i);
		if (!json_is_object(job))
			return fail(im, "%s: expected an object", path);
		/* fio writes an integer errno; anything else ("5", 5.0) is not
		 * fio's, and json_integer_value() would read it as 0, no error */
		jerr = json_object_get(job, "error");
		if (jerr && !json_is_integer(jerr))
			return fail(im, "%s.error: expected fio's error number (an integer), not %s", path,
				    json_is_string(jerr) ? "a string" : json_is_real(jerr) ? "a fraction" : "this");
		if (json_integer_value(jerr) != 0)
			return fail(im, "%s.error: fio reported error %lld for this job", path,
				    (long long)json_integer_value(jerr));
		rw = fio_opt(job, global, "rw", NULL);
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
		    fio_size(im, path, "size", fio_opt(job, global, "size", "0"), size, sizeof(size)) < 0 ||
		    fio_count(im, path, "iodepth", fio_opt(job, global, "iodepth", "1"), depth, sizeof(depth)) < 0 ||
		    fio_count(im, path, "numjobs", fio_opt(job, global, "numjobs", "1"), nj, sizeof(nj)) < 0)
			return -EINVAL;
		/* Without group_reporting fio reports each of numjobs apart (one
		 * entry per job, all with the same name and group): one job's
		 * figure is not the figure of `jobs` jobs. */
		if (strcmp(nj, "1") && fio_same_job(jobs, job) > 1)
			return fail(im, "%s: numjobs=%s without group_reporting: fio reports each job apart, and one "
					"job's figures are not those of %s jobs; rerun fio with --group_reporting",
				    path, nj, nj);
		buffered = strcmp(fio_opt(job, global, "direct", "0"), "1") != 0;
		{
			/* the same params, in the same order, as vmbench's own disk tests */
			const char *b = buffered ? "true" : "false";
			const char *kv_rand[] = { "iodepth", depth, "bs", bs, "jobs", nj, "size", size, "buffered", b, NULL };
			const char *kv_rw[] = { "iodepth", depth, "bs", bs, "jobs", nj, "size", size, "buffered", b,
						"rwmix", fio_opt(job, global, "rwmixread", "50"), NULL };
			const char *kv_seq[] = { "seq-bs", bs, "seq-iodepth", depth, "jobs", nj, "size", size,
						 "buffered", b, NULL };

			c = case_of(im, "disk", test, seq ? kv_seq : !strcmp(test, "randrw") ? kv_rw : kv_rand, &w);
		}
		if (!c)
			return -ENOMEM;
		if (!strcmp(test, "randrw")) {
			const json_t *rd = jget(im, job, path, "read", JSON_OBJECT), *wr = jget(im, job, path, "write", JSON_OBJECT);
			char rp[64], wp[64];
			double ri, wi;

			if (im->bad)
				return -EINVAL;
			snprintf(rp, sizeof(rp), "%s.read", path);
			snprintf(wp, sizeof(wp), "%s.write", path);
			ri = jnum(im, rd, rp, "iops", K_IOPS);
			wi = jnum(im, wr, wp, "iops", K_IOPS);
			if (im->bad)
				return -EINVAL;
			r = fio_side(im, c, &w, rd, rp, "read_");
			if (r == 0)
				r = fio_side(im, c, &w, wr, wp, "write_");
			if (r == 0)
				r = value(c, "iops", VMB_UNIT_PER_S, VMB_HIGHER, true, ri + wi);
		} else {
			const char *dir = strstr(rw, "write") ? "write" : "read";
			const json_t *side = jget(im, job, path, dir, JSON_OBJECT);
			char sp[64];

			if (!side)
				return -EINVAL;
			snprintf(sp, sizeof(sp), "%s.%s", path, dir);
			r = fio_side(im, c, &w, side, sp, "");
			if (r == 0 && seq) {
				/* sequential tests' headline is MB/s */
				for (size_t k = 0; k < c->nmetrics; k++)
					c->metrics[k].headline = !strcmp(c->metrics[k].name, "mb_per_s");
			}
		}
		if (r < 0)
			return r;
		r = fio_note_engine(im, w.s, fio_opt(job, global, "ioengine", "psync"));
		if (r < 0)
			return r;
	}
	return 0;
}

/* ---- iperf3 ---- */

static bool iperf3_detect(const struct imp_input *in)
{
	return in->root && json_object_get(in->root, "start") && json_object_get(in->root, "end") &&
	       json_object_get(in->root, "intervals");
}

/* What an iperf3 test was, as the params of vmbench's own case, so that
 * compare pairs an import with a native run of the same thing: TCP as
 * net.tcp_stream (streams, reverse, bidir); UDP as net.udp, whose params
 * are the target rate in Mbit/s and the datagram size, with streams,
 * reverse and bidir only when they are not what net.udp measures (one
 * stream, client to server), so that such a test pairs with nothing. */
struct iperf3_test {
	bool udp, reverse, bidir;
	char streams[24], rate[40], size[24];
	double target_bps; /* -b; 0 when unlimited or unstated */
};

static void iperf3_params(const struct iperf3_test *it, bool reverse, const char **kv)
{
	size_t n = 0;

	if (it->udp) {
		kv[n++] = "rate", kv[n++] = it->rate, kv[n++] = "udp-size", kv[n++] = it->size;
		if (strcmp(it->streams, "1"))
			kv[n++] = "streams", kv[n++] = it->streams;
		if (reverse)
			kv[n++] = "reverse", kv[n++] = "true";
		if (it->bidir)
			kv[n++] = "bidir", kv[n++] = "true";
	} else {
		kv[n++] = "streams", kv[n++] = it->streams, kv[n++] = "reverse", kv[n++] = reverse ? "true" : "false";
		kv[n++] = "bidir", kv[n++] = it->bidir ? "true" : "false";
	}
	kv[n] = NULL;
}

/* One direction of an iperf3 test: the receiver's figure is the headline
 * (iperf3's "receiver" line), the sender's is kept beside it; the metrics
 * are named as net.udp and net.tcp_stream name theirs. */
static int iperf3_direction(struct imp *im, const json_t *end, const struct iperf3_test *it, bool reverse,
			    const char *suffix)
{
	const char *kv[16];
	bool udp = it->udp;
	char sk[64], rk[64], sp[80], rp[80];
	const json_t *sent, *recv;
	double sbps, rbps, jitter = NAN, lost = NAN, retr = NAN;
	struct vmb_case *c;
	struct where w;

	snprintf(sk, sizeof(sk), "sum_sent%s", suffix);
	snprintf(rk, sizeof(rk), "sum_received%s", suffix);
	snprintf(sp, sizeof(sp), "end.%s", sk);
	recv = json_object_get(end, rk);
	if (!recv && udp) {
		/* iperf3 before 3.7 has only "sum" for UDP: the receiver's figures */
		snprintf(rk, sizeof(rk), "sum%s", *suffix ? "_bidir_reverse" : "");
		recv = jget(im, end, "end", rk, JSON_OBJECT);
	} else {
		recv = jget(im, end, "end", rk, JSON_OBJECT);
	}
	snprintf(rp, sizeof(rp), "end.%s", rk);
	/* UDP before iperf3 3.7 has no sender's sum: then there is none to keep */
	sent = udp && !json_object_get(end, sk) ? NULL : jget(im, end, "end", sk, JSON_OBJECT);
	if (im->bad)
		return -EINVAL;
	rbps = jnum(im, recv, rp, "bits_per_second", K_BIT_S);
	sbps = sent ? jnum(im, sent, sp, "bits_per_second", K_BIT_S) : NAN;
	if (udp) {
		jitter = jnum(im, recv, rp, "jitter_ms", K_MS);
		lost = jnum(im, recv, rp, "lost_percent", K_PCT);
	} else if (json_object_get(sent, "retransmits")) {
		/* not on every OS */
		retr = jnum(im, sent, sp, "retransmits", K_COUNT);
	}
	if (im->bad)
		return -EINVAL;
	iperf3_params(it, reverse, kv);
	c = case_of(im, "net", udp ? "udp" : "tcp_stream", kv, &w);
	if (!c || value(c, "mbit_per_s", VMB_UNIT_MBIT_PER_S, VMB_HIGHER, true, rbps / 1e6) < 0 ||
	    (sent && value(c, "sender_mbit_per_s", VMB_UNIT_MBIT_PER_S, VMB_HIGHER, false, sbps / 1e6) < 0))
		return -ENOMEM;
	/* net.udp's target_mbit_per_s: what was asked, beside what arrived */
	if (udp && it->target_bps > 0 &&
	    value(c, "target_mbit_per_s", VMB_UNIT_MBIT_PER_S, VMB_HIGHER, false, it->target_bps / 1e6) < 0)
		return -ENOMEM;
	if (udp && (value(c, "jitter", VMB_UNIT_NS, VMB_LOWER, false, jitter * 1e6) < 0 ||
		    value(c, "lost_pct", VMB_UNIT_PCT, VMB_LOWER, false, lost) < 0))
		return -ENOMEM;
	if (isfinite(retr) && value(c, "retransmits", VMB_UNIT_NONE, VMB_LOWER, false, retr) < 0)
		return -ENOMEM;
	return 0;
}

/* iperf3's intervals are what they are: the throughput of one run second
 * by second, kept as a metric of their own (interval_mbit_per_s) beside
 * the run's figure, never as repetitions. compare takes a document as one
 * run whatever its samples, so they cannot pass for independent ones. */
static int iperf3_intervals(struct imp *im, const json_t *intervals, const struct iperf3_test *it)
{
	const char *kv[16];
	const json_t *iv;
	struct vmb_case *c = NULL;
	struct where w;
	size_t i;

	/* the case of the run's figure: net.udp for UDP, as vmbench's own */
	iperf3_params(it, it->reverse, kv);
	if (intervals && !json_is_array(intervals))
		return fail(im, "intervals: expected an array");
	json_array_foreach(intervals, i, iv) {
		char ip[48];
		double v;

		snprintf(ip, sizeof(ip), "intervals[%zu].sum", i);
		/* every interval or none: one that is not a measured value is
		 * refused by its path, never skipped */
		v = jnum(im, jget(im, iv, ip, "sum", JSON_OBJECT) ? json_object_get(iv, "sum") : NULL, ip,
			 "bits_per_second", K_BIT_S);
		if (im->bad)
			return -EINVAL;
		if (!c && !(c = case_of(im, "net", it->udp ? "udp" : "tcp_stream", kv, &w)))
			return -ENOMEM;
		if (value(c, "interval_mbit_per_s", VMB_UNIT_MBIT_PER_S, VMB_HIGHER, false, v / 1e6) < 0)
			return -ENOMEM;
	}
	return 0;
}

static int import_iperf3(struct imp *im, const struct imp_input *in)
{
	/* a failed iperf3 run says why in "error"; say that, not what is missing */
	const json_t *root = in->root, *failed = json_object_get(root, "error");
	const json_t *start, *ts, *end, *proto, *ns, *x;
	struct iperf3_test it = { .rate = IMPORT_UNSTATED, .size = IMPORT_UNSTATED };
	int r;

	if (failed)
		return fail(im, "error: iperf3 reported \"%s\"", json_is_string(failed) ? json_string_value(failed) : "?");
	start = jget(im, root, "", "start", JSON_OBJECT);
	ts = jget(im, start, "start", "test_start", JSON_OBJECT);
	proto = jget(im, ts, "start.test_start", "protocol", JSON_STRING);
	ns = jget(im, ts, "start.test_start", "num_streams", JSON_INTEGER);
	end = jget(im, root, "", "end", JSON_OBJECT);
	if (im->bad)
		return -EINVAL;
	if (strcmp(json_string_value(proto), "TCP") && strcmp(json_string_value(proto), "UDP"))
		return fail(im, "start.test_start.protocol: '%s' is neither TCP nor UDP", json_string_value(proto));
	if (json_integer_value(ns) < 1)
		return fail(im, "start.test_start.num_streams: %lld is not a number of streams",
			    (long long)json_integer_value(ns));
	it.udp = !strcmp(json_string_value(proto), "UDP");
	snprintf(it.streams, sizeof(it.streams), "%lld", (long long)json_integer_value(ns));
	it.reverse = json_integer_value(json_object_get(ts, "reverse")) != 0;
	/* --bidir: the test_start of iperf3 3.12 does not say it; the sums do */
	it.bidir = json_integer_value(json_object_get(ts, "bidir")) != 0 ||
		   json_object_get(end, "sum_sent_bidir_reverse") || json_object_get(end, "sum_received_bidir_reverse");
	/* UDP: -b (bit/s; 0 for unlimited, as net.udp's --net.rate 0) and -l,
	 * as net.udp's rate (Mbit/s) and udp-size; unstated by an iperf3
	 * that does not print them (before 3.x's target_bitrate) */
	if (it.udp && (x = json_object_get(ts, "target_bitrate"))) {
		if (!json_is_integer(x) || json_integer_value(x) < 0 || json_integer_value(x) > kinds[K_BIT_S].max)
			return fail(im, "start.test_start.target_bitrate: expected a rate in bit/s from 0 to %s",
				    kinds[K_BIT_S].text);
		snprintf(it.rate, sizeof(it.rate), "%.15g", (double)json_integer_value(x) / 1e6);
		it.target_bps = (double)json_integer_value(x);
	}
	if (it.udp && (x = json_object_get(ts, "blksize"))) {
		if (!json_is_integer(x) || json_integer_value(x) < 1 || json_integer_value(x) > 65535)
			return fail(im, "start.test_start.blksize: expected a datagram size from 1 to 65535 bytes");
		snprintf(it.size, sizeof(it.size), "%lld", (long long)json_integer_value(x));
	}
	{
		const json_t *t = json_object_get(json_object_get(start, "timestamp"), "timesecs");
		const json_t *dur = json_object_get(ts, "duration");

		if (json_is_integer(t) && json_integer_value(t) > 0 && json_integer_value(t) < 32503680000LL)
			im->tool_started = (double)json_integer_value(t);
		if (json_is_integer(dur) && json_integer_value(dur) > 0 && json_integer_value(dur) < 86400 * 365)
			im->tool_duration = (double)json_integer_value(dur);
	}
	r = iperf3_direction(im, end, &it, it.reverse, "");
	/* both directions, as two cases, never half of a bidirectional test */
	if (r == 0 && it.bidir)
		r = iperf3_direction(im, end, &it, !it.reverse, "_bidir_reverse");
	if (r == 0)
		r = iperf3_intervals(im, json_object_get(root, "intervals"), &it);
	return r;
}

/* ---- vmbench's own result documents ---- */

static bool vmbench_detect(const struct imp_input *in)
{
	return in->root && json_is_string(json_object_get(in->root, "schema")) &&
	       !strcmp(json_string_value(json_object_get(in->root, "schema")), DOC_SCHEMA);
}

static int import_vmbench(struct imp *im, const struct imp_input *in)
{
	char why[512];

	/* validated like any other import, before anything is added to it */
	if (doc_validate(in->root, why, sizeof(why)) < 0)
		return fail(im, "%s", why);
	im->doc = json_deep_copy(in->root);
	return im->doc ? 0 : -ENOMEM;
}

/* ---- sysbench text ---- */

/* The line holding `label` (from `from`), its number in *line, and where
 * the text after the label starts in *after. */
static const char *text_line(const char *text, const char *from, const char *label, int *line,
			     const char **after)
{
	const char *p = strstr(from, label);

	if (!p)
		return NULL;
	*line = 1;
	for (const char *q = text; q < p; q++)
		*line += *q == '\n';
	*after = p + strlen(label);
	while (p > text && p[-1] != '\n')
		p--;
	return p;
}

/* The number after `label` on its own line, at least `lo`; *rest points after it. */
static int text_num(struct imp *im, const char *text, const char *from, const char *label, double lo,
		    enum kind kind, double *out, const char **rest)
{
	const char *p;
	char *end;
	int line;
	double v;

	if (!text_line(text, from, label, &line, &p))
		return fail(im, "no line with '%s' (sysbench's summary is incomplete)", label);
	while (*p == ' ' || *p == '\t' || *p == '(')
		p++;
	v = strtod(p, &end);
	if (end == p || !isfinite(v))
		return fail(im, "line %d: expected a number after '%s'", line, label);
	if (v < lo)
		return fail(im, "line %d: '%s' %g is out of range (at least %g)", line, label, v, lo);
	if (v > kinds[kind].max)
		return fail(im, "line %d: '%s' %g is beyond what is plausible (at most %s; see \"Imported figures\" in "
			    "docs/results-schema.md)", line, label, v, kinds[kind].text);
	*out = v;
	if (rest)
		*rest = end;
	return 0;
}

/* A whole number of at least 1 after `label`, as text. */
static int text_count(struct imp *im, const char *text, const char *label, char *out, size_t len)
{
	double v;
	int line = 0;
	const char *p;

	if (text_num(im, text, text, label, 1, K_COUNT, &v, NULL) < 0)
		return -EINVAL;
	if (v != floor(v) || v > 1e9) {
		text_line(text, text, label, &line, &p);
		return fail(im, "line %d: expected a whole number after '%s'", line, label);
	}
	snprintf(out, len, "%.0f", v);
	return 0;
}

/* A size as sysbench prints it ("1024KiB", "102400MiB") in bytes, as text. */
static int text_size(struct imp *im, const char *text, const char *label, char *out, size_t len)
{
	static const struct {
		const char *suffix;
		double mult;
	} units[] = { { "B", 1 }, { "KiB", 1024 }, { "MiB", 1048576 }, { "GiB", 1073741824.0 },
		      { "TiB", 1099511627776.0 } };
	const char *rest;
	double v;
	int line = 0;

	if (text_num(im, text, text, label, 1, K_COUNT, &v, &rest) < 0)
		return -EINVAL;
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (!strncmp(rest, units[i].suffix, strlen(units[i].suffix)) &&
		    (rest[strlen(units[i].suffix)] == '\n' || rest[strlen(units[i].suffix)] == '\0' ||
		     rest[strlen(units[i].suffix)] == '\r')) {
			snprintf(out, len, "%.0f", v * units[i].mult);
			return 0;
		}
	text_line(text, text, label, &line, &rest);
	return fail(im, "line %d: expected a size in B, KiB, MiB, GiB or TiB after '%s'", line, label);
}

/* The word after `label` on its line, one of `choices`. */
static int text_word(struct imp *im, const char *text, const char *label, const char *const *choices,
		     const char **out)
{
	const char *p;
	int line;

	if (!text_line(text, text, label, &line, &p))
		return fail(im, "no line with '%s' (sysbench's summary is incomplete)", label);
	while (*p == ' ' || *p == '\t')
		p++;
	for (; *choices; choices++) {
		size_t n = strlen(*choices);

		if (!strncmp(p, *choices, n) && (p[n] == '\n' || p[n] == '\0' || p[n] == '\r' || p[n] == ' ')) {
			*out = *choices;
			return 0;
		}
	}
	return fail(im, "line %d: unknown value after '%s'", line, label);
}

static bool sysbench_cpu_detect(const struct imp_input *in)
{
	return !in->root && strstr(in->text, "sysbench") && strstr(in->text, "CPU speed:");
}

static int import_sysbench_cpu(struct imp *im, const struct imp_input *in)
{
	const char *text = in->text, *latp;
	char th[24], limit[24];
	double v, lat;
	struct vmb_case *c;
	struct where w;
	int line;

	if (text_count(im, text, "Number of threads:", th, sizeof(th)) < 0 ||
	    text_count(im, text, "Prime numbers limit:", limit, sizeof(limit)) < 0 ||
	    text_num(im, text, text, "events per second:", 0, K_EVENTS_S, &v, NULL) < 0)
		return -EINVAL;
	/* "avg:" of the "Latency (ms):" block */
	if (!text_line(text, text, "Latency (ms):", &line, &latp))
		return fail(im, "no line with 'Latency (ms):' (sysbench's summary is incomplete)");
	if (text_num(im, text, latp, "avg:", 0, K_MS, &lat, NULL) < 0)
		return -EINVAL;
	{
		const char *kv[] = { "threads", th, "max-prime", limit, NULL };

		c = case_of(im, "cpu", "prime", kv, &w);
	}
	if (!c || value(c, "events_per_s", VMB_UNIT_PER_S, VMB_HIGHER, true, v) < 0 ||
	    value(c, "latency", VMB_UNIT_NS, VMB_LOWER, false, lat * 1e6) < 0)
		return -ENOMEM;
	return 0;
}

/* Is p (found by a search from `at`) on the line `at` is on? */
static bool on_line(const char *at, const char *p)
{
	const char *nl = strchr(at, '\n');

	return p && (!nl || p < nl);
}

static bool sysbench_memory_detect(const struct imp_input *in)
{
	return !in->root && strstr(in->text, "sysbench") && strstr(in->text, "Running memory speed test");
}

static int import_sysbench_memory(struct imp *im, const struct imp_input *in)
{
	static const char *const opers[] = { "read", "write", "none", NULL };
	static const char *const scopes[] = { "global", "local", NULL };
	static const char *const modes[] = { "seq", "rnd", NULL };
	const char *text = in->text, *oper, *scope, *access = IMPORT_UNSTATED, *ops_at, *p;
	char th[24], block[32], total[32];
	double ops, mib = NAN;
	struct vmb_case *c;
	struct where w;
	int line;

	if (text_count(im, text, "Number of threads:", th, sizeof(th)) < 0 ||
	    text_size(im, text, "block size:", block, sizeof(block)) < 0 ||
	    text_size(im, text, "total size:", total, sizeof(total)) < 0 ||
	    text_word(im, text, "operation:", opers, &oper) < 0 || text_word(im, text, "scope:", scopes, &scope) < 0)
		return -EINVAL;
	/* sysbench 1.0 does not print --memory-access-mode; record it when a version does */
	if (strstr(text, "access mode:") && text_word(im, text, "access mode:", modes, &access) < 0)
		return -EINVAL;
	/* "Total operations: 2048 (31085.12 per second)": the rate on this line only */
	if (!text_line(text, text, "Total operations:", &line, &ops_at))
		return fail(im, "no line with 'Total operations:' (sysbench's summary is incomplete)");
	p = strchr(ops_at, '(');
	if (!on_line(ops_at, p) || !on_line(ops_at, strstr(ops_at, "per second")))
		return fail(im, "line %d: 'Total operations:' has no '(N per second)' figure", line);
	if (text_num(im, text, ops_at, "(", 0, K_OPS_S, &ops, NULL) < 0)
		return -EINVAL;
	/* "2048.00 MiB transferred (31085.12 MiB/sec)": none of read or write moves no data */
	if (strcmp(oper, "none")) {
		const char *mp;

		if (!text_line(text, text, "MiB transferred", &line, &mp))
			return fail(im, "no line with 'MiB transferred' (sysbench's summary is incomplete)");
		if (!on_line(mp, strchr(mp, '(')) || !on_line(mp, strstr(mp, "MiB/sec")))
			return fail(im, "line %d: 'MiB transferred' has no '(N MiB/sec)' figure", line);
		if (text_num(im, text, mp, "(", 0, K_MIB_S, &mib, NULL) < 0)
			return -EINVAL;
	}
	{
		const char *kv[] = { "threads", th, "oper", oper, "block-size", block, "total-size", total,
				     "access", access, "scope", scope, NULL };

		c = case_of(im, "mem", "sysbench_memory", kv, &w);
	}
	if (!c || value(c, "ops_per_s", VMB_UNIT_PER_S, VMB_HIGHER, !isfinite(mib), ops) < 0)
		return -ENOMEM;
	if (isfinite(mib) && value(c, "mb_per_s", VMB_UNIT_MB_PER_S, VMB_HIGHER, true, mib * 1048576.0 / 1e6) < 0)
		return -ENOMEM;
	return 0;
}

/* ---- the formats ---- */

struct importer {
	struct import_format fmt;
	bool (*detect)(const struct imp_input *in);
	int (*parse)(struct imp *im, const struct imp_input *in);
};

/* Adding a format: one row, its parser, its test. JSON formats see the
 * parsed document, text formats the text; the first row that detects wins. */
static const struct importer importers[] = {
	{ { "fio", "fio --output-format=json (or json+)", NULL, NULL }, fio_detect, import_fio },
	{ { "iperf3", "iperf3 -J (TCP or UDP, -P, -R, --bidir)", NULL, NULL }, iperf3_detect, import_iperf3 },
	{ { "vmbench", "a vmbench result document (vmbench run --json)", NULL, NULL }, vmbench_detect,
	  import_vmbench },
	{ { "sysbench-cpu", "sysbench cpu run output", NULL, NULL }, sysbench_cpu_detect, import_sysbench_cpu },
	/* sysbench 1.0 does not print --memory-access-mode */
	{ { "sysbench-memory", "sysbench memory run output", "access", "seq|rnd" }, sysbench_memory_detect,
	  import_sysbench_memory },
};

const struct import_format *import_format_at(size_t i)
{
	return i < sizeof(importers) / sizeof(importers[0]) ? &importers[i].fmt : NULL;
}

void import_formats_string(char *buf, size_t len)
{
	size_t n = sizeof(importers) / sizeof(importers[0]), off = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < n && off < len; i++) {
		int k = snprintf(buf + off, len - off, "%s%s", i == 0 ? "" : i + 1 == n ? " or " : ", ",
				 importers[i].fmt.input);

		if (k < 0)
			break;
		off += (size_t)k;
	}
}

/* ---- entry ---- */

static int add_percentiles(json_t *doc, json_t *pct_by_key, const struct vmb_results *res)
{
	/* results and document are in the same order: indices match */
	for (size_t s = 0; s < res->nsuites; s++)
		for (size_t t = 0; t < res->suites[s].ntests; t++)
			for (size_t c = 0; c < res->suites[s].tests[t].ncases; c++) {
				const struct vmb_case *vc = &res->suites[s].tests[t].cases[c];
				json_t *jc = json_array_get(json_object_get(json_array_get(json_object_get(
							json_array_get(json_object_get(doc, "suites"), s), "tests"), t), "cases"), c);

				for (size_t m = 0; m < vc->nmetrics; m++) {
					char key[256];
					json_t *h;

					snprintf(key, sizeof(key), "%zu/%zu/%zu/%s", s, t, c, vc->metrics[m].name);
					h = json_object_get(pct_by_key, key);
					if (h && json_object_set(json_array_get(json_object_get(jc, "metrics"), m), "histogram",
								 h) < 0)
						return -ENOMEM;
				}
			}
	return 0;
}

/* Where the JSON document starts: at the first line whose first non-blank
 * character is '{'. *skipped counts the non-blank lines before it (fio's
 * job lines and warnings when stderr went to the same file), *line the
 * line it starts on. NULL when no line starts a JSON object. */
static const char *json_start(const char *text, unsigned *skipped, int *line)
{
	const char *p = text;

	*skipped = 0;
	*line = 1;
	while (*p) {
		const char *q = p, *nl;

		while (*q == ' ' || *q == '\t' || *q == '\r')
			q++;
		if (*q == '{')
			return q;
		nl = strchr(p, '\n');
		if (*q != '\n' && *q != '\0')
			(*skipped)++;
		if (!nl)
			break;
		p = nl + 1;
		(*line)++;
	}
	return NULL;
}

/* Non-blank lines after the end of the JSON document. */
static unsigned trailing_lines(const char *p)
{
	unsigned n = 0;
	bool blank = true;

	for (; *p; p++) {
		if (*p == '\n') {
			n += !blank;
			blank = true;
		} else if (*p != ' ' && *p != '\t' && *p != '\r') {
			blank = false;
		}
	}
	return n + !blank;
}

/* Every sample is in: summaries, then the document with the labels. */
static json_t *build_doc(struct imp *im, const char *tool, const char *name, const struct strv *labels)
{
	struct strv all = { 0 };
	json_t *doc = NULL, *fp;
	char kv[64], why[256];

	for (size_t s = 0; s < im->res.nsuites; s++)
		for (size_t t = 0; t < im->res.suites[s].ntests; t++)
			for (size_t c = 0; c < im->res.suites[s].tests[t].ncases; c++) {
				struct vmb_case *vc = &im->res.suites[s].tests[t].cases[c];

				for (size_t m = 0; m < vc->nmetrics; m++)
					stats_summarize(vc->metrics[m].samples, vc->metrics[m].n, &vc->metrics[m].sum);
			}
	snprintf(kv, sizeof(kv), "source=%s", tool);
	if (strv_push(&all, kv) < 0)
		goto out;
	for (size_t i = 0; labels && i < labels->n; i++)
		if (strv_push(&all, labels->v[i]) < 0)
			goto out;
	fp = json_pack("{s:n, s:{s:s, s:[]}, s:s}", "hostname", "hypervisor", "name", "unknown", "sources",
		       "imported_from", name);
	if (!fp)
		goto out;
	if (doc_from_results(&im->res, &(struct doc_meta){ .argc = 0,
							    .started = im->tool_started > 0 ? im->tool_started : wall_time_s(),
							    .ended = im->tool_started > 0 ? im->tool_started + im->tool_duration
											: wall_time_s(),
							    .fingerprint = fp, .labels = &all }, &doc, why, sizeof(why)) < 0) {
		fail(im, "%s", why);
		doc = NULL;
	}
	json_decref(fp);
	if (!doc)
		goto out;
	if (add_percentiles(doc, im->pct, &im->res) < 0 ||
	    json_object_set_new(json_object_get(doc, "tool"), "imported_from", json_string(tool)) < 0) {
		json_decref(doc);
		doc = NULL;
		goto out;
	}
	json_object_del(doc, "settings");
out:
	strv_clear(&all);
	return doc;
}

/* --param KEY=VALUE: the format's unstated parameter, in every case where
 * the output left it unstated; never over a value the output printed. */
static int apply_params(struct imp *im, const struct import_format *f, const struct strv *params)
{
	for (size_t i = 0; params && i < params->n; i++) {
		const char *kv = params->v[i], *eq = strchr(kv, '='), *val;
		size_t klen = eq ? (size_t)(eq - kv) : strlen(kv);
		bool found = false;

		if (!f->param)
			return fail(im, "--param %s: %s output states every parameter; --param is for a parameter "
					"an output does not print", kv, f->tool);
		if (!eq || klen != strlen(f->param) || strncmp(kv, f->param, klen))
			return fail(im, "--param %s: the parameter %s output does not print is %s (%s=%s)", kv, f->tool,
				    f->param, f->param, f->choices);
		val = eq + 1;
		if (!str_in_list(f->choices, '|', val))
			return fail(im, "--param %s: expected %s=%s", kv, f->param, f->choices);
		for (size_t s = 0; s < im->res.nsuites; s++)
			for (size_t t = 0; t < im->res.suites[s].ntests; t++)
				for (size_t c = 0; c < im->res.suites[s].tests[t].ncases; c++) {
					struct vmb_case *vc = &im->res.suites[s].tests[t].cases[c];

					for (size_t p = 0; p < vc->nparams; p++) {
						char *nv;

						if (strcmp(vc->params[p].key, f->param))
							continue;
						if (strcmp(vc->params[p].value, IMPORT_UNSTATED))
							return fail(im, "--param %s: the output says %s=%s", kv, f->param,
								    vc->params[p].value);
						nv = strdup(val);
						if (!nv)
							return -ENOMEM;
						free(vc->params[p].value);
						vc->params[p].value = nv;
						found = true;
					}
				}
		if (!found)
			return fail(im, "--param %s: no imported case has %s", kv, f->param);
	}
	return 0;
}

/* The user's --label KEY=VALUE on a document imported whole. */
static int add_labels(json_t *doc, const struct strv *labels)
{
	json_t *l = json_object_get(doc, "labels");

	for (size_t i = 0; labels && i < labels->n; i++) {
		const char *eq = strchr(labels->v[i], '=');
		char key[128];

		if (!eq)
			continue;
		snprintf(key, sizeof(key), "%.*s", (int)(eq - labels->v[i]), labels->v[i]);
		if (json_object_set_new(l, key, json_string(eq + 1)) < 0)
			return -ENOMEM;
	}
	return 0;
}

int import_parse(const char *text, const char *name, const struct import_opts *opts, struct import_result *out,
		 char *err, size_t errlen)
{
	const struct strv *labels = opts ? opts->labels : NULL, *params = opts ? opts->params : NULL;
	struct imp im = { .err = err, .errlen = errlen, .pct = json_object() };
	struct imp_input in = { 0 };
	const struct importer *imp = NULL;
	json_t *root = NULL, *doc = NULL, *back = NULL;
	unsigned skipped = 0;
	const char *start;
	char *dumped = NULL, formats[512], why[768];
	int r = -EINVAL, line;

	if (!im.pct) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	import_formats_string(formats, sizeof(formats));
	/* a UTF-8 byte-order mark, as some editors save files */
	if (!strncmp(text, "\xEF\xBB\xBF", 3))
		text += 3;
	in.text = text;
	start = json_start(text, &skipped, &line);
	/* a text format, unless the input begins as JSON */
	if (!start || skipped) {
		for (size_t i = 0; i < sizeof(importers) / sizeof(importers[0]) && !imp; i++)
			if (importers[i].detect(&in))
				imp = &importers[i];
		if (imp)
			skipped = 0; /* a text format reads every line */
	}
	if (!imp && start) {
		json_error_t je;

		root = json_loads(start, JSON_DISABLE_EOF_CHECK, &je);
		if (!root) {
			snprintf(err, errlen, "%s: not valid JSON at line %d, column %d: %s", name, je.line + line - 1,
				 je.column, je.text);
			goto out;
		}
		if (!json_is_object(root)) {
			snprintf(err, errlen, "%s: the JSON is not an object", name);
			goto out;
		}
		skipped += trailing_lines(start + je.position);
		in.root = root;
		for (size_t i = 0; i < sizeof(importers) / sizeof(importers[0]) && !imp; i++)
			if (importers[i].detect(&in))
				imp = &importers[i];
		if (!imp) {
			snprintf(err, errlen, "%s: JSON, but none that vmbench imports (%s)", name, formats);
			goto out;
		}
	}
	if (!imp) {
		snprintf(err, errlen, "%s: not a format vmbench imports (%s)", name, formats);
		goto out;
	}
	r = imp->parse(&im, &in);
	if (r == 0)
		r = apply_params(&im, &imp->fmt, params);
	if (r < 0) {
		if (im.bad) {
			snprintf(why, sizeof(why), "%s", err);
			snprintf(err, errlen, "%s: %s: %s", name, imp->fmt.tool, why);
			r = -EINVAL;
		} else {
			snprintf(err, errlen, "%s: out of memory", name);
		}
		goto out;
	}
	if (im.doc) {
		doc = im.doc;
		im.doc = NULL;
		r = add_labels(doc, labels);
	} else {
		doc = build_doc(&im, imp->fmt.tool, name, labels);
		r = doc ? 0 : -ENOMEM;
		if (!doc && im.bad) {
			snprintf(why, sizeof(why), "%s", err);
			snprintf(err, errlen, "%s: %s: %s", name, imp->fmt.tool, why);
			r = -EINVAL;
			goto out;
		}
	}
	if (r < 0) {
		snprintf(err, errlen, "%s: out of memory", name);
		goto out;
	}
	/* Only what loads back is returned: the store keeps the text, and
	 * every reader loads it with doc_load_string. */
	r = -EINVAL;
	if (doc_validate(doc, why, sizeof(why)) < 0) {
		snprintf(err, errlen, "%s: %s: the imported document would not be valid: %s", name, imp->fmt.tool, why);
		goto out;
	}
	dumped = json_dumps(doc, JSON_COMPACT | JSON_REAL_PRECISION(17));
	if (!dumped) {
		r = -ENOMEM;
		snprintf(err, errlen, "%s: out of memory", name);
		goto out;
	}
	if (doc_load_string(dumped, name, &back, why, sizeof(why)) < 0) {
		snprintf(err, errlen, "%s: %s: the imported document would not load back: %s", name, imp->fmt.tool, why);
		goto out;
	}
	out->doc = back;
	out->tool = imp->fmt.tool;
	out->skipped = skipped;
	r = 0;
out:
	free(dumped);
	json_decref(doc);
	json_decref(im.doc);
	json_decref(root);
	json_decref(im.pct);
	vmb_results_release(&im.res);
	return r;
}
