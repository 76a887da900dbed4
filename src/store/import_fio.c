/* Importer of fio --output-format=json (or json+): a case per job and
 * direction with the disk suite's metric names and params, latency
 * percentiles (and json+ bins) as histograms. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "doc.h"
#include "import_int.h"
#include "../core/banned.h"

/* fio job options are strings ("4k", "32"); defaults are fio's. */
const char *import_fio_opt(const json_t *job, const json_t *global, const char *key, const char *def)
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
		return import_fail(im, "%s.\"job options\".%s: '%s' is not a size", path, key, s);
	snprintf(out, len, "%llu", (unsigned long long)v);
	return 0;
}

static int fio_count(struct imp *im, const char *path, const char *key, const char *s, char *out, size_t len)
{
	int64_t v;

	if (parse_i64(s, 1, 65536, &v) < 0)
		return import_fail(im, "%s.\"job options\".%s: '%s' is not a whole number from 1 to 65536", path, key, s);
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
		import_fail(im, "%s.bins: expected an object", lpath);
		goto fail;
	}
	counts = calloc(HIST_BUCKETS, sizeof(*counts));
	if (!counts)
		goto fail;
	json_object_foreach((json_t *)bins, k, x) {
		uint64_t v;

		if (parse_size(k, 0, UINT64_MAX, &v) < 0 || strspn(k, "0123456789") != strlen(k)) {
			import_fail(im, "%s.bins.\"%s\": expected a latency in ns as the key", lpath, k);
			goto fail;
		}
		if (!json_is_integer(x) || json_integer_value(x) < 0) {
			import_fail(im, "%s.bins.\"%s\": expected a count", lpath, k);
			goto fail;
		}
		if (v > (uint64_t)import_kinds[K_NS].max) {
			import_fail(im, "%s.bins.\"%s\": a latency beyond what is plausible (at most %s)", lpath, k,
			     import_kinds[K_NS].text);
			goto fail;
		}
		/* each count is at most total_ios, so neither sum can wrap */
		if ((uint64_t)json_integer_value(x) > ios - total) {
			import_fail(im, "%s.bins: the bins count more I/Os than total_ios (%llu)", lpath,
			     (unsigned long long)ios);
			goto fail;
		}
		total += (uint64_t)json_integer_value(x);
		counts[hist_index(v)] += (uint64_t)json_integer_value(x);
	}
	if (total != ios) {
		import_fail(im, "%s.bins: the bins count %llu I/Os, total_ios says %llu", lpath, (unsigned long long)total,
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
		if (!json_is_number(x) || json_number_value(x) < 0 || json_number_value(x) > import_kinds[K_NS].max) {
			import_fail(im, "%s.percentile.\"%s\": expected a latency in ns of at most %s", lpath, keys[i][0],
			     import_kinds[K_NS].text);
			json_decref(p);
			return NULL;
		}
		if (json_object_set_new(p, keys[i][1], json_real(json_number_value(x))) < 0) {
			json_decref(p);
			return NULL;
		}
	}
	ios = import_jget(im, side, path, "total_ios", JSON_INTEGER);
	min = import_jnum(im, lat, lpath, "min", K_NS);
	max = import_jnum(im, lat, lpath, "max", K_NS);
	mean = import_jnum(im, lat, lpath, "mean", K_NS);
	sd = import_jnum(im, lat, lpath, "stddev", K_NS);
	if (!im->bad && (json_integer_value(ios) < 0 || json_integer_value(ios) > import_kinds[K_COUNT].max))
		import_fail(im, "%s.total_ios: %lld is not a count of I/Os (0 to %s)", path, (long long)json_integer_value(ios),
		     import_kinds[K_COUNT].text);
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

/* fio's percentiles as the metrics a native run reports per repetition
 * ("latency.p99", src/core/rep.c), so that compare pairs them: one value
 * each, as fio printed it (checked by fio_histogram before). */
static int fio_percentile_metrics(struct vmb_case *c, const char *name, const json_t *pct)
{
	static const char *const keys[][2] = {
		{ "50.000000", "p50" }, { "90.000000", "p90" }, { "95.000000", "p95" }, { "99.000000", "p99" },
		{ "99.900000", "p99.9" },
	};

	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		const json_t *x = json_object_get(pct, keys[i][0]);
		char m[96];

		if (!json_is_number(x) || !(json_number_value(x) >= 0) || json_number_value(x) > import_kinds[K_NS].max)
			continue;
		snprintf(m, sizeof(m), "%s.%s", name, keys[i][1]);
		if (import_value(c, m, VMB_UNIT_NS, VMB_LOWER, false, json_number_value(x)) < 0)
			return -ENOMEM;
	}
	return 0;
}

/* One direction (read or write) of a fio job into a case; prefix "" or "read_"/"write_". */
static int fio_side(struct imp *im, struct vmb_case *c, const struct where *w, const json_t *side,
		    const char *path, const char *prefix)
{
	char name[64], key[256], lp[96];
	const json_t *lat = import_jget(im, side, path, "lat_ns", JSON_OBJECT), *clat = json_object_get(side, "clat_ns");
	const json_t *pct, *src;
	double iops = import_jnum(im, side, path, "iops", K_IOPS), mean;
	double bw = import_jnum(im, side, path, "bw_bytes", K_BYTE_S);

	snprintf(lp, sizeof(lp), "%s.lat_ns", path);
	mean = import_jnum(im, lat, lp, "mean", K_NS);
	if (im->bad)
		return -EINVAL;
	snprintf(name, sizeof(name), "%siops", prefix);
	if (import_value(c, name, VMB_UNIT_PER_S, VMB_HIGHER, !*prefix, iops) < 0)
		return -ENOMEM;
	if (!*prefix && import_value(c, "mb_per_s", VMB_UNIT_MB_PER_S, VMB_HIGHER, false, bw / 1e6) < 0)
		return -ENOMEM;
	snprintf(name, sizeof(name), "%slatency", prefix);
	if (import_value(c, name, VMB_UNIT_NS, VMB_LOWER, false, mean) < 0)
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
			return import_fail(im, "%s.percentile: expected an object", sp);
		h = fio_histogram(im, side, src, pct, path, sp);
		if (!h)
			return im->bad ? -EINVAL : -ENOMEM;
		snprintf(key, sizeof(key), "%zu/%zu/%zu/%s", w->s, w->t, w->c, name);
		if (json_object_set_new(im->pct, key, h) < 0)
			return -ENOMEM;
		if (fio_percentile_metrics(c, name, pct) < 0)
			return -ENOMEM;
	}
	return 0;
}

/* fio's CPU usage of a job (usr_cpu, sys_cpu: CPU time in % of the
 * job's runtime, summed over its threads) as the disk suite's
 * cpu_user_pct and cpu_sys_pct, which it defines the same way. Older fio
 * outputs may lack them: nothing then. */
static int fio_cpu(struct imp *im, struct vmb_case *c, const json_t *job, const char *path)
{
	static const char *const keys[][2] = { { "usr_cpu", "cpu_user_pct" }, { "sys_cpu", "cpu_sys_pct" } };

	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		double x;

		if (!json_object_get(job, keys[i][0]))
			continue;
		x = import_jnum(im, job, path, keys[i][0], K_CPU_PCT);
		if (im->bad)
			return -EINVAL;
		if (import_value(c, keys[i][1], VMB_UNIT_PCT, VMB_LOWER, false, x) < 0)
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

bool import_fio_detect(const struct imp_input *in)
{
	return in->root && json_object_get(in->root, "fio version");
}

/* Job i of the JSON into its case; *wout and *rep say where it went (its
 * repetition: two jobs with the same parameters are two of one case). */
static int fio_job(struct imp *im, const json_t *jobs, const json_t *global, size_t i, const json_t *job,
		   struct where *wout, unsigned *rep)
{
	static const char *const map[][2] = {
		{ "randread", "randread" }, { "randwrite", "randwrite" }, { "randrw", "randrw" },
		{ "read", "seqread" }, { "write", "seqwrite" },
	};
	char path[64], bs[32], size[32], depth[32], nj[32];
	const char *rw, *test = NULL;
	const json_t *jerr;
	struct vmb_case *c;
	struct where w;
	bool seq, buffered;
	int r;

	snprintf(path, sizeof(path), "jobs[%zu]", i);
	if (!json_is_object(job))
		return import_fail(im, "%s: expected an object", path);
	/* fio writes an integer errno; anything else ("5", 5.0) is not
	 * fio's, and json_integer_value() would read it as 0, no error */
	jerr = json_object_get(job, "error");
	if (jerr && !json_is_integer(jerr))
		return import_fail(im, "%s.error: expected fio's error number (an integer), not %s", path,
			    json_is_string(jerr) ? "a string" : json_is_real(jerr) ? "a fraction" : "this");
	if (json_integer_value(jerr) != 0)
		return import_fail(im, "%s.error: fio reported error %lld for this job", path,
			    (long long)json_integer_value(jerr));
	rw = import_fio_opt(job, global, "rw", NULL);
	if (!rw)
		return import_fail(im, "%s.\"job options\".rw: missing", path);
	for (size_t k = 0; k < sizeof(map) / sizeof(map[0]); k++)
		if (!strcmp(rw, map[k][0]))
			test = map[k][1];
	if (!test)
		return import_fail(im, "%s.\"job options\".rw: '%s' has no vmbench counterpart (randread, randwrite, "
				"randrw, read, write)", path, rw);
	seq = !strcmp(test, "seqread") || !strcmp(test, "seqwrite");
	if (fio_size(im, path, "bs", import_fio_opt(job, global, "bs", "4k"), bs, sizeof(bs)) < 0 ||
	    fio_size(im, path, "size", import_fio_opt(job, global, "size", "0"), size, sizeof(size)) < 0 ||
	    fio_count(im, path, "iodepth", import_fio_opt(job, global, "iodepth", "1"), depth, sizeof(depth)) < 0 ||
	    fio_count(im, path, "numjobs", import_fio_opt(job, global, "numjobs", "1"), nj, sizeof(nj)) < 0)
		return -EINVAL;
	/* Without group_reporting fio reports each of numjobs apart (one
	 * entry per job, all with the same name and group): one job's
	 * figure is not the figure of `jobs` jobs. */
	if (strcmp(nj, "1") && fio_same_job(jobs, job) > 1)
		return import_fail(im, "%s: numjobs=%s without group_reporting: fio reports each job apart, and one "
				"job's figures are not those of %s jobs; rerun fio with --group_reporting",
			    path, nj, nj);
	buffered = strcmp(import_fio_opt(job, global, "direct", "0"), "1") != 0;
	{
		/* the same params, in the same order, as vmbench's own disk tests */
		const char *b = buffered ? "true" : "false";
		const char *kv_rand[] = { "iodepth", depth, "bs", bs, "jobs", nj, "size", size, "buffered", b, NULL };
		const char *kv_rw[] = { "iodepth", depth, "bs", bs, "jobs", nj, "size", size, "buffered", b,
					"rwmix", import_fio_opt(job, global, "rwmixread", "50"), NULL };
		const char *kv_seq[] = { "seq-bs", bs, "seq-iodepth", depth, "jobs", nj, "size", size,
					 "buffered", b, NULL };

		c = import_case_of(im, "disk", test, seq ? kv_seq : !strcmp(test, "randrw") ? kv_rw : kv_rand, &w);
	}
	if (!c)
		return -ENOMEM;
	if (!strcmp(test, "randrw")) {
		const json_t *rd = import_jget(im, job, path, "read", JSON_OBJECT);
		const json_t *wr = import_jget(im, job, path, "write", JSON_OBJECT);
		char rp[64], wp[64];
		double ri, wi;

		if (im->bad)
			return -EINVAL;
		snprintf(rp, sizeof(rp), "%s.read", path);
		snprintf(wp, sizeof(wp), "%s.write", path);
		ri = import_jnum(im, rd, rp, "iops", K_IOPS);
		wi = import_jnum(im, wr, wp, "iops", K_IOPS);
		if (im->bad)
			return -EINVAL;
		r = fio_side(im, c, &w, rd, rp, "read_");
		if (r == 0)
			r = fio_side(im, c, &w, wr, wp, "write_");
		if (r == 0)
			r = import_value(c, "iops", VMB_UNIT_PER_S, VMB_HIGHER, true, ri + wi);
	} else {
		const char *dir = strstr(rw, "write") ? "write" : "read";
		const json_t *side = import_jget(im, job, path, dir, JSON_OBJECT);
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
	r = fio_cpu(im, c, job, path);
	if (r == 0)
		r = fio_note_engine(im, w.s, import_fio_opt(job, global, "ioengine", "psync"));
	if (r < 0)
		return r;
	*wout = w;
	*rep = c->reps;
	return 0;
}

int import_fio(struct imp *im, const struct imp_input *in)
{
	const json_t *root = in->root, *jobs = import_jget(im, root, "", "jobs", JSON_ARRAY);
	const json_t *global = json_object_get(root, "global options"), *job;
	const json_t *ts = json_object_get(root, "timestamp");
	struct where *where;
	unsigned *rep;
	size_t i;
	int r = 0;

	if (!jobs)
		return -EINVAL;
	/* fio's own clock: when the jobs ran, not when they were imported */
	if (json_is_integer(ts) && json_integer_value(ts) > 0 && json_integer_value(ts) < 32503680000LL)
		im->tool_started = (double)json_integer_value(ts);
	if (!json_array_size(jobs))
		return import_fail(im, "jobs: no job in this fio output");
	/* where each job went, for its logs */
	where = calloc(json_array_size(jobs), sizeof(*where));
	rep = calloc(json_array_size(jobs), sizeof(*rep));
	if (!where || !rep)
		r = -ENOMEM;
	json_array_foreach(jobs, i, job) {
		if (r < 0)
			break;
		r = fio_job(im, jobs, global, i, job, &where[i], &rep[i]);
	}
	if (r == 0)
		r = import_fio_logs(im, in, jobs, global, where, rep, json_array_size(jobs));
	free(where);
	free(rep);
	return r;
}
