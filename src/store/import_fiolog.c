/* fio's per-interval logs (write_iops_log, write_lat_log, write_bw_log with
 * log_avg_msec), given with fio's JSON, as series of the cases the JSON's
 * jobs became: fio names each log PREFIX_KIND.JOB.log, which says what it
 * holds and whose it is; each line is "time (ms), value, direction, block
 * size[, offset][, priority]". Only windowed logs are taken: without
 * log_avg_msec fio logs every I/O, and an IOPS log's values are then 1. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "import_int.h"
#include "../core/parse.h"
#include "../core/banned.h"

/* The kinds of log, by the suffix fio gives the name. */
static const struct fiolog_kind {
	const char *suffix;  /* before ".JOB.log" */
	const char *series;  /* the series' name (with read_/write_ before it for randrw) */
	enum vmb_unit unit;
	enum kind bound;     /* what a value is, for its plausible bound */
	double to_bound;     /* a logged value in the bound's unit */
	double to_series;    /* a logged value in the series' unit */
	bool latency;        /* ns since fio 3.0 (µs before) */
} fiolog_kinds[] = {
	{ "_iops", "iops", VMB_UNIT_PER_S, K_IOPS, 1, 1, false },
	{ "_lat", "latency", VMB_UNIT_NS, K_NS, 1, 1, true },
	{ "_clat", "clat", VMB_UNIT_NS, K_NS, 1, 1, true },
	{ "_slat", "slat", VMB_UNIT_NS, K_NS, 1, 1, true },
	/* KiB/s, as fio's bw log has it; MB/s (10^6 bytes) as vmbench's mb_per_s */
	{ "_bw", "mb_per_s", VMB_UNIT_MB_PER_S, K_BYTE_S, 1024, 1024 / 1e6, false },
};

#define FIOLOG_MAX_MS 1000000000LL /* about 11.6 days: fio's times count from the job's start */

/* The kind and job (from 1; 0 when fio left the index out, per_job_logs=0)
 * of a log by its file name; NULL when fio would not have named it so. */
static const struct fiolog_kind *fiolog_name(const char *name, long *job)
{
	const char *base = strrchr(name, '/') ? strrchr(name, '/') + 1 : name, *dot;
	size_t len = strlen(base);

	*job = 0;
	if (len < 4 || strcmp(base + len - 4, ".log"))
		return NULL;
	len -= 4;
	/* ".JOB" */
	for (dot = base + len; dot > base && dot[-1] != '.';)
		dot--;
	dot = dot > base ? dot - 1 : NULL;
	if (dot && (size_t)(base + len - dot) > 1 && (size_t)(base + len - dot) <= 8 &&
	    strspn(dot + 1, "0123456789") == (size_t)(base + len - dot - 1)) {
		*job = strtol(dot + 1, NULL, 10);
		if (*job < 1)
			return NULL;
		len = (size_t)(dot - base);
	}
	for (size_t i = 0; i < sizeof(fiolog_kinds) / sizeof(fiolog_kinds[0]); i++) {
		size_t sl = strlen(fiolog_kinds[i].suffix);

		if (len >= sl && !strncmp(base + len - sl, fiolog_kinds[i].suffix, sl))
			return &fiolog_kinds[i];
	}
	return NULL;
}

/* One field of a line, without the blanks around it. */
static void fiolog_trim(char **s)
{
	char *e;

	while (**s == ' ' || **s == '\t')
		(*s)++;
	e = *s + strlen(*s);
	while (e > *s && (e[-1] == ' ' || e[-1] == '\t'))
		*--e = '\0';
}

struct fiolog_dir {
	double *t, *v;
	size_t n, cap;
	double last_ms;
};

static int fiolog_push(struct fiolog_dir *d, double t, double v)
{
	if (d->n == d->cap) {
		size_t ncap = d->cap ? 2 * d->cap : 256;
		double *nt = realloc(d->t, ncap * sizeof(*nt)), *nv;

		if (!nt)
			return -ENOMEM;
		d->t = nt;
		nv = realloc(d->v, ncap * sizeof(*nv));
		if (!nv)
			return -ENOMEM;
		d->v = nv;
		d->cap = ncap;
	}
	d->t[d->n] = t;
	d->v[d->n++] = v;
	return 0;
}

/* The lines of one log into d[0] (reads) and d[1] (writes); allowed[dir]
 * says which directions the job has. */
static int fiolog_lines(struct imp *im, const char *name, const char *text, const struct fiolog_kind *k,
			const bool allowed[2], const char *rw, struct fiolog_dir d[2])
{
	static const char *const dirs[] = { "read", "write", "trim" };
	const char *p = text;
	size_t line = 0;

	while (*p) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);
		char buf[256], *f[7], *s;
		size_t nf = 0;
		int64_t ms, dir, bs;
		double v;
		size_t raw = len;

		line++;
		if (line > IMPORT_FIO_LOG_MAX_LINES)
			return import_fail(im, "%s:%zu: more than %d lines (a longer log_avg_msec logs fewer)", name, line,
					   IMPORT_FIO_LOG_MAX_LINES);
		if (len && p[len - 1] == '\r')
			len--;
		if (len >= sizeof(buf))
			return import_fail(im, "%s:%zu: a line of %zu characters; fio's are \"time, value, direction, "
					   "block size[, offset][, priority]\"", name, line, len);
		memcpy(buf, p, len);
		buf[len] = '\0';
		p = nl ? nl + 1 : p + raw;
		for (s = buf; nf < 7; nf++) {
			char *comma = strchr(s, ',');

			f[nf] = s;
			if (!comma) {
				nf++;
				break;
			}
			*comma = '\0';
			s = comma + 1;
		}
		for (size_t i = 0; i < nf; i++)
			fiolog_trim(&f[i]);
		if (nf < 4 || nf > 6)
			return import_fail(im, "%s:%zu: %zu fields; fio's lines have 4 to 6: \"time (ms), value, direction, "
					   "block size[, offset][, priority]\"", name, line, nf);
		if (!*f[0] || strspn(f[0], "0123456789") != strlen(f[0]) || parse_i64(f[0], 0, FIOLOG_MAX_MS, &ms) < 0)
			return import_fail(im, "%s:%zu: time '%s': expected whole milliseconds from the job's start, at "
					   "most %lld (fio's log_unix_epoch times are not imported)", name, line, f[0],
					   FIOLOG_MAX_MS);
		if (!*f[1] || strspn(f[1], "0123456789.") != strlen(f[1]) || *f[1] == '.' ||
		    parse_double(f[1], 0, import_kinds[k->bound].max / k->to_bound, &v) < 0)
			return import_fail(im, "%s:%zu: value '%s': expected a number from 0 to %g (%s)", name, line, f[1],
					   import_kinds[k->bound].max / k->to_bound, import_kinds[k->bound].text);
		if (strlen(f[2]) != 1 || parse_i64(f[2], 0, 2, &dir) < 0)
			return import_fail(im, "%s:%zu: direction '%s': expected 0 (read), 1 (write) or 2 (trim)", name,
					   line, f[2]);
		if (!*f[3] || strspn(f[3], "0123456789") != strlen(f[3]) || parse_i64(f[3], 0, INT64_MAX, &bs) < 0)
			return import_fail(im, "%s:%zu: block size '%s': expected a whole number of bytes", name, line, f[3]);
		for (size_t i = 4; i < nf; i++)
			if (!*f[i] || strspn(f[i], "0123456789abcdefABCDEFx") != strlen(f[i]))
				return import_fail(im, "%s:%zu: field %zu '%s': expected a whole number (an offset or "
						   "priority)", name, line, i + 1, f[i]);
		if (dir == 2 || !allowed[dir])
			return import_fail(im, "%s:%zu: a %s in the log of a job with rw=%s", name, line, dirs[dir], rw);
		if (d[dir].n && (double)ms <= d[dir].last_ms)
			return import_fail(im, "%s:%zu: time %lld ms is not after the %s line before (%.0f ms); fio's "
					   "windowed logs (log_avg_msec) have one line per window and direction", name,
					   line, (long long)ms, dirs[dir], d[dir].last_ms);
		d[dir].last_ms = (double)ms;
		if (fiolog_push(&d[dir], (double)ms / 1000, v * k->to_series) < 0)
			return -ENOMEM;
	}
	return 0;
}

/* One log into the case of its job. */
static int fiolog_one(struct imp *im, const struct import_file *f, const json_t *jobs, const json_t *global,
		      const struct where *where, const unsigned *rep, size_t njobs, long major)
{
	struct fiolog_dir d[2] = { 0 };
	const struct fiolog_kind *k;
	const json_t *job;
	const char *rw, *nj, *avg, *maxv;
	struct vmb_case *c;
	bool allowed[2], both;
	int64_t avg_ms, threads = 1, first;
	size_t ji;
	long idx;
	int r = 0;

	k = fiolog_name(f->name, &idx);
	if (!k)
		return import_fail(im, "%s: not a name fio gives its logs (PREFIX_KIND.JOB.log, KIND one of iops, lat, "
				   "clat, slat, bw): the name says what the log holds and whose it is", f->name);
	if (!idx) {
		if (njobs != 1)
			return import_fail(im, "%s: no job number in the name (per_job_logs=0), and the fio output has %zu "
					   "jobs whose lines that log mixes; rerun fio with per_job_logs=1 (its default)",
					   f->name, njobs);
		idx = 1;
	}
	/* fio numbers a log by its thread, and a job of numjobs=N is N threads
	 * numbered one after another: the log of thread idx is the job whose
	 * threads include it (jobs before it with numjobs=2 shift the rest) */
	for (ji = 0, first = 1; ji < njobs; ji++, first += threads) {
		job = json_array_get(jobs, ji);
		nj = import_fio_opt(job, global, "numjobs", "1");
		if (parse_i64(nj, 1, 65536, &threads) < 0)
			return import_fail(im, "%s: jobs[%zu] ran numjobs=%s: not a whole number from 1 to 65536", f->name,
					   ji, nj);
		if (idx < first + threads)
			break;
	}
	if (ji == njobs)
		return import_fail(im, "%s: the log of fio's thread %ld, and the jobs of the fio output ran %lld "
				   "thread%s", f->name, idx, (long long)(first - 1), first == 2 ? "" : "s");
	if (threads != 1)
		return import_fail(im, "%s: jobs[%zu] ran numjobs=%s, and fio numbers the logs of each of its threads "
				   "apart (one thread's series is not the job's); import logs of jobs with numjobs=1",
				   f->name, ji, nj);
	avg = import_fio_opt(job, global, "log_avg_msec", "0");
	if (parse_i64(avg, 1, 3600000, &avg_ms) < 0)
		return import_fail(im, "%s: jobs[%zu] has log_avg_msec=%s: fio then logs every I/O (an IOPS log's values "
				   "are 1, not IOPS); rerun fio with --log_avg_msec=MS", f->name, ji, avg);
	maxv = import_fio_opt(job, global, "log_max_value", "0");
	if (strcmp(maxv, "0") && strcmp(maxv, "false"))
		return import_fail(im, "%s: jobs[%zu] has log_max_value=%s: the log holds each window's maximum, and "
				   "vmbench's series are means; rerun fio without it", f->name, ji, maxv);
	if (k->latency && major > 0 && major < 3)
		return import_fail(im, "%s: fio %ld logged latencies in microseconds; only fio 3's logs (in ns) are "
				   "imported", f->name, major);
	rw = import_fio_opt(job, global, "rw", "read");
	both = !strcmp(rw, "randrw");
	allowed[0] = both || !strstr(rw, "write");
	allowed[1] = both || strstr(rw, "write");
	c = &im->res.suites[where[ji].s].tests[where[ji].t].cases[where[ji].c];
	r = fiolog_lines(im, f->name, f->text, k, allowed, rw, d);
	for (int dir = 0; r == 0 && dir < 2; dir++) {
		char name[48];

		if (!d[dir].n)
			continue;
		snprintf(name, sizeof(name), "%s%s", both ? (dir ? "write_" : "read_") : "", k->series);
		for (size_t i = 0; i < c->nseries; i++)
			if (c->series[i].rep == rep[ji] && !strcmp(c->series[i].name, name)) {
				r = import_fail(im, "%s: a second %s log of jobs[%zu] (%s once per job)", f->name,
						k->suffix + 1, ji, name);
				break;
			}
		if (r == 0)
			r = vmb_case_add_series(c, name, k->unit, rep[ji], d[dir].t, d[dir].v, d[dir].n,
						VMB_SERIES_MAX);
	}
	for (int dir = 0; dir < 2; dir++) {
		free(d[dir].t);
		free(d[dir].v);
	}
	return r;
}

int import_fio_logs(struct imp *im, const struct imp_input *in, const json_t *jobs, const json_t *global,
		    const struct where *where, const unsigned *rep, size_t njobs)
{
	const char *ver = json_string_value(json_object_get(in->root, "fio version"));
	long major = 0;

	/* "fio-3.33" */
	if (ver && str_has_prefix(ver, "fio-"))
		major = strtol(ver + 4, NULL, 10);
	for (size_t i = 0; i < in->nfio_logs; i++) {
		int r = fiolog_one(im, &in->fio_logs[i], jobs, global, where, rep, njobs, major);

		if (r < 0)
			return r;
	}
	return 0;
}
