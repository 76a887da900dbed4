/* The items of a booted guest and what the host measures around them (labitems.h). */

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/magic.h>
#include <sys/statfs.h>

#include "labitems.h"
#include "labboot.h"
#include "../guest/fs.h"
#include "hostmeasure.h"
#include "../core/clock.h"
#include "../core/log.h"
#include "../store/doc.h"
#include "../suites/suites.h"
#include "../core/str.h"
#include "../core/banned.h"

/* The scratch disk's image lives in $TMPDIR: on tmpfs the guest's disk
 * figures are the host's memory, which the guest cannot see. Said beside
 * them, in the notes of each suite that measured on the scratch disk. */
static void scratch_on_tmpfs(json_t *doc, const char *dir)
{
	struct statfs sfs;
	json_t *suites = json_object_get(doc, "suites"), *s;
	size_t i;

	if (statfs(dir, &sfs) < 0 || sfs.f_type != TMPFS_MAGIC)
		return;
	json_array_foreach(suites, i, s) {
		const struct vmb_suite *desc = suites_find(json_string_value(json_object_get(s, "name")) ?: "");
		json_t *notes = json_object_get(s, "notes");

		if (desc && desc->scratch && json_is_object(notes))
			(void)json_object_set_new(notes, "scratch_disk_host",
						  json_string("the scratch disk's image (and a share's directory) is on the host's tmpfs ($TMPDIR): "
							      "these are figures of the host's memory; give the lab a "
							      "TMPDIR on a disk"));
	}
}

/* QEMU's CPU time so far, user and system seconds (all its threads), the
 * wall clock and its nice value: { user, system, wall, nice }; NaN when
 * /proc says nothing. */
void lab_qemu_cpu(pid_t pid, double out[4])
{
	char path[64], *text = NULL, *p;
	unsigned long long ut = 0, st = 0;
	long long nice = 0;
	long tck = sysconf(_SC_CLK_TCK);

	out[0] = out[1] = out[3] = NAN;
	out[2] = (double)clock_ns() / NSEC_PER_SEC;
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if (pid <= 0 || read_file(path, &text) < 0)
		return;
	/* after the command's ")": state is field 3, utime and stime 14 and 15, nice 19 */
	p = strrchr(text, ')');
	if (p && tck > 0 && sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu %*d %*d %*d %lld", &ut,
				   &st, &nice) == 3) {
		out[0] = (double)ut / (double)tck;
		out[1] = (double)st / (double)tck;
		out[3] = nice >= -20 && nice <= 19 ? (double)nice : NAN;
	}
	free(text);
}

/* QEMU's CPU over one RUN, in the notes of each suite of its document:
 * what the host paid for what the guest measured (the NIC models' cost),
 * and the nice value QEMU ran at (the nice key's, as /proc says it). */
int lab_host_cost(json_t *doc, const double a[4], const double b[4], unsigned threads)
{
	double wall = b[2] - a[2], user = b[0] - a[0], sys = b[1] - a[1];
	json_t *s;
	size_t i;

	if (!isfinite(user) || !isfinite(sys) || wall <= 0)
		return 0; /* not measured: nothing said */
	json_array_foreach(json_object_get(doc, "suites"), i, s) {
		json_t *notes = json_object_get(s, "notes");

		if (!json_is_object(notes))
			continue;
		if (json_object_set_new(notes, "qemu_cpu_user_s", json_real(user)) < 0 ||
		    json_object_set_new(notes, "qemu_cpu_system_s", json_real(sys)) < 0 ||
		    json_object_set_new(notes, "qemu_wall_s", json_real(wall)) < 0 ||
		    (isfinite(b[3]) && json_object_set_new(notes, "qemu_nice", json_integer((json_int_t)b[3])) < 0) ||
		    (threads && json_object_set_new(notes, "qemu_vcpu_threads", json_integer(threads)) < 0))
			return -ENOMEM;
	}
	return 0;
}

/* QEMU's CPU per second while the guest runs one RUN (issue 28): a sample
 * of /proc/PID/stat at the RUN's start, at each of the guest's PROGRESS
 * heartbeats (the agent sends one a second, and one at once when a new
 * case begins) and at its RESULT; each point is QEMU's CPU time (all its
 * threads, user + system) over the interval since the sample before / the
 * interval's length, in % of one host CPU. An interval belongs to the case
 * the guest's PROGRESS named at its start, by its test and place among the
 * test's cases (a document of one case takes the whole RUN); the time before the first case (the guest's start-up) to
 * none. /proc counts in clock ticks (10 ms): a point of d seconds is
 * within 2 ticks / d, so intervals are at least HOST_CPU_MIN_S, and at a
 * case's end (its last, shorter interval) HOST_CPU_END_MIN_S, else joined
 * to the point before them. */
#define HOST_CPU_SERIES "qemu_host_cpu"
#define HOST_CPU_MIN_S 0.5
#define HOST_CPU_END_MIN_S 0.1
#define HOST_CPU_MAX_POINTS 100000 /* 27 h of heartbeats; a RUN has 1 h at most */

struct host_cpu {
	const struct lab_run_opts *o; /* for guest_progress */
	pid_t pid;
	size_t ncase, first;
	char step[64];                /* the case's test, and the first of its cases named */
	double last[4];               /* the last sample kept (qemu_cpu) */
	struct lab_cpu_point *pts;
	size_t n, cap;
};

static void host_cpu_begin(struct host_cpu *h, const struct lab_run_opts *o, pid_t pid)
{
	*h = (struct host_cpu){ .o = o, .pid = pid };
	lab_qemu_cpu(pid, h->last);
}

/* A sample, closing an interval of case h->ncase; end: the case ends here
 * (a new case's PROGRESS, or the RESULT). */
static void host_cpu_sample(struct host_cpu *h, bool end)
{
	double now[4], dt;
	struct lab_cpu_point *p = h->n ? &h->pts[h->n - 1] : NULL;

	lab_qemu_cpu(h->pid, now);
	dt = now[2] - h->last[2];
	if (!isfinite(now[0]) || !isfinite(now[1]) || !isfinite(h->last[0]) || !isfinite(h->last[1])) {
		memcpy(h->last, now, sizeof(now)); /* not measured: no point across it */
		return;
	}
	if (dt < (end ? HOST_CPU_END_MIN_S : HOST_CPU_MIN_S)) {
		if (!end)
			return; /* the next sample closes a longer interval */
		if (p && p->ncase == h->ncase && p->t1 == h->last[2]) {
			p->t1 = now[2];
			p->cpu1 = now[0] + now[1];
		}
		memcpy(h->last, now, sizeof(now));
		return;
	}
	if (h->n == h->cap) {
		size_t ncap = h->cap ? 2 * h->cap : 64;

		if (h->cap >= HOST_CPU_MAX_POINTS || !(p = realloc(h->pts, ncap * sizeof(*p)))) {
			memcpy(h->last, now, sizeof(now));
			return; /* bounded: later seconds go without points */
		}
		h->pts = p;
		h->cap = ncap;
	}
	h->pts[h->n++] = (struct lab_cpu_point){ .ncase = h->ncase, .first = h->first, .t0 = h->last[2], .t1 = now[2],
						 .cpu0 = h->last[0] + h->last[1], .cpu1 = now[0] + now[1] };
	memcpy(h->pts[h->n - 1].step, h->step, sizeof(h->step));
	memcpy(h->last, now, sizeof(now));
}

/* The guest's PROGRESS: drawn, and a sample of QEMU's CPU. */
static void guest_progress(void *arg, const struct proto_msg *m);
static void host_cpu_progress(void *arg, const struct proto_msg *m)
{
	struct host_cpu *h = arg;
	bool next = m->ncases && m->ncase != h->ncase;

	guest_progress((void *)h->o, m);
	/* the interval up to now was the case named before */
	host_cpu_sample(h, next);
	if (next) {
		/* the case by its test and its place among the test's cases, not
		 * by its number in the RUN: a case that failed or was skipped
		 * before its first repetition (vmexit.cntvct on x86) has a number
		 * and no place in the document; it is the last its test began.
		 * A case the agent did not name (over within 0.1 s) still has its
		 * number: the place is the number less the test's first named */
		bool same = m->steplen == strlen(h->step) && !strncmp(m->step, h->step, m->steplen);

		if (!same)
			h->first = m->ncase;
		snprintf(h->step, sizeof(h->step), "%.*s", (int)m->steplen, m->step);
		h->ncase = m->ncase;
	}
}

/* The points of each case into its "series", as repetition 1's: the
 * series of a case spans the case (warm-up and every repetition), t_s from
 * the start of its first interval. A series of that name the guest's
 * document already carried is removed first: only the host measures it. */
int lab_host_cpu_attach(json_t *doc, const struct lab_cpu_point *cpu, size_t npts)
{
	size_t ncases = 0, si, ti, ci;
	json_t *s, *t, *c;
	double *tv, *vv;
	int r = 0;

	json_array_foreach(json_object_get(doc, "suites"), si, s)
		json_array_foreach(json_object_get(s, "tests"), ti, t)
			ncases += json_array_size(json_object_get(t, "cases"));
	tv = malloc((npts ? npts : 1) * sizeof(*tv));
	vv = malloc((npts ? npts : 1) * sizeof(*vv));
	if (!tv || !vv) {
		r = -ENOMEM;
		goto out;
	}
	json_array_foreach(json_object_get(doc, "suites"), si, s)
		json_array_foreach(json_object_get(s, "tests"), ti, t)
			json_array_foreach(json_object_get(t, "cases"), ci, c) {
				json_t *series, *pts, *o;
				unsigned bucket = 1;
				size_t n = 0;
				double origin = NAN;
				char step[160];

				snprintf(step, sizeof(step), "%s.%s", json_string_value(json_object_get(s, "name")) ?: "",
					 json_string_value(json_object_get(t, "name")) ?: "");
				/* the host's figure only: a series a guest sent under its name is dropped */
				series = json_object_get(c, "series");
				for (size_t k = json_array_size(series); k-- > 0;)
					if (!strcmp(json_string_value(json_object_get(json_array_get(series, k), "name")) ?: "",
						    HOST_CPU_SERIES))
						json_array_remove(series, k);
				if (series && !json_array_size(series))
					json_object_del(c, "series");
				/* repetition 1 must be one the case has */
				if (json_integer_value(json_object_get(c, "repetitions")) < 1)
					continue;
				for (size_t i = 0; i < npts; i++) {
					const struct lab_cpu_point *p = &cpu[i];

					/* a document of one case takes the guest's start-up too */
					if (!(ncases == 1 && !p->ncase) &&
					    (!p->ncase || p->ncase < p->first || p->ncase - p->first != ci ||
					     strcmp(p->step, step)))
						continue;
					if (isnan(origin))
						origin = p->t0;
					tv[n] = p->t1 - origin;
					/* a tick's rounding never makes CPU time run backwards into a negative rate */
					vv[n++] = p->cpu1 > p->cpu0 ? 100 * (p->cpu1 - p->cpu0) / (p->t1 - p->t0) : 0;
				}
				if (!n)
					continue;
				n = vmb_series_downsample(tv, vv, n, VMB_SERIES_MAX, &bucket);
				pts = json_array();
				for (size_t i = 0; pts && i < n; i++)
					if (json_array_append_new(pts, json_pack("[f, f]", tv[i], vv[i])) < 0) {
						json_decref(pts);
						pts = NULL;
					}
				o = pts ? json_pack("{s:s, s:s, s:i, s:i, s:o}", "name", HOST_CPU_SERIES, "unit", "%", "rep", 1,
						    "bucket", (int)bucket, "points", pts)
					: NULL;
				series = json_object_get(c, "series");
				if (!series && o) {
					series = json_array();
					if (!series || json_object_set_new(c, "series", series) < 0)
						series = NULL;
				}
				if (!o || !series || json_array_append_new(series, o) < 0) {
					r = -ENOMEM;
					goto out;
				}
			}
out:
	free(tv);
	free(vv);
	return r;
}

/* The bytes QEMU has had written to storage so far (all its threads):
 * write_bytes of /proc/PID/io, what its files and devices on the host
 * received from it; NaN when /proc does not say. */
static double qemu_write_bytes(pid_t pid)
{
	char path[64], *text = NULL, *p;
	unsigned long long v;
	double out = NAN;

	snprintf(path, sizeof(path), "/proc/%d/io", (int)pid);
	if (pid <= 0 || read_file(path, &text) < 0)
		return NAN;
	p = strstr(text, "\nwrite_bytes: ");
	if (p && sscanf(p, "\nwrite_bytes: %llu", &v) == 1)
		out = (double)v;
	free(text);
	return out;
}

int lab_write_amplification(double host_bytes, double guest_bytes, double *amp)
{
	double a = host_bytes / guest_bytes;

	if (!isfinite(host_bytes) || !isfinite(guest_bytes) || !(host_bytes > 0) || !(guest_bytes > 0) ||
	    !isfinite(a) || !(a > 0))
		return -EINVAL;
	*amp = a;
	return 0;
}

/* The host's writes over one RUN, in the notes of each suite of its
 * document that counted the bytes its device received
 * (device_write_bytes): host_write_bytes and their ratio,
 * host_write_amplification, each only when measured. */
static int host_writes(json_t *doc, double before, double after)
{
	double host = after - before;
	json_t *s;
	size_t i;

	if (!isfinite(host) || host < 0)
		return 0; /* not measured: nothing said */
	json_array_foreach(json_object_get(doc, "suites"), i, s) {
		json_t *notes = json_object_get(s, "notes");
		const json_t *dev = json_object_get(notes, "device_write_bytes");
		double amp;
		int64_t guest = -1;

		/* a note of the guest's: a number, or a decimal string (as notes are made) */
		if (json_is_integer(dev))
			guest = json_integer_value(dev);
		else if (!json_is_string(dev) || parse_i64(json_string_value(dev), 0, INT64_MAX, &guest) < 0)
			guest = -1;
		if (!json_is_object(notes) || guest < 0)
			continue;
		if (json_object_set_new(notes, "host_write_bytes", json_integer((json_int_t)host)) < 0 ||
		    (lab_write_amplification(host, (double)guest, &amp) == 0 &&
		     json_object_set_new(notes, "host_write_amplification", json_real(amp)) < 0))
			return -ENOMEM;
	}
	return 0;
}

/* The options the lab's run gives every RUN of this suite: the run-level
 * keys, and the suite's own (RUN refuses another suite's). */
static int add_run_opts(json_t *opts, const json_t *run_opts, const struct vmb_suite *suite)
{
	size_t sl = suite ? strlen(suite->name) : 0;
	const char *k;
	json_t *v;

	json_object_foreach((json_t *)run_opts, k, v)
		if ((!strchr(k, '.') || (suite && !strncmp(k, suite->name, sl) && k[sl] == '.')) &&
		    json_object_set(opts, k, v) < 0)
			return -ENOMEM;
	return 0;
}

/* Where a suite that measures storage works: with a filesystem, its
 * directory on it and a test file of --disk-size (the host's size); with
 * fs=none, the raw device (ours to overwrite) and its file tests skipped
 * with the reason, rather than measuring the guest's tmpfs. */
static int lab_fs_opts(json_t *opts, const struct lab_run_opts *o, const struct vmb_suite *suite,
		       const char *scratch, const struct lab_fs *fs, bool share)
{
	const struct vmb_scratch *sc = suite ? suite->scratch : NULL;
	char key[96], devpath[64];
	int r = 0;

	if (!sc)
		return 0;
	/* a share mounted there takes the place of the filesystem */
	if (fs || share) {
		snprintf(key, sizeof(key), "%s.%s", suite->name, sc->dir_opt);
		r = sc->dir_opt ? json_object_set_new(opts, key, json_string(PROTO_MOUNTPOINT)) : 0;
		snprintf(key, sizeof(key), "%s.%s", suite->name, sc->size_opt ? sc->size_opt : "");
		if (r == 0 && sc->size_opt)
			r = json_object_set_new(opts, key, json_string(o->disk_size));
		return r;
	}
	snprintf(key, sizeof(key), "%s.%s", suite->name, sc->device_opt ? sc->device_opt : "");
	snprintf(devpath, sizeof(devpath), "/dev/%s", scratch);
	if (sc->device_opt && (json_object_set_new(opts, key, json_string(devpath)) < 0 ||
			       json_object_set_new(opts, "destructive", json_true()) < 0))
		return -ENOMEM;
	return json_object_set_new(opts, "skip-fs-tests", json_string(LAB_FS_NONE_REASON));
}

/* The database the configuration's db key names (db=mariadb: the guest's
 * MariaDB) in the option of a suite's db_opt (app.db); the suite's own
 * default (SQLite) otherwise. */
int lab_db_item_opts(const struct lab_config *c, const struct vmb_suite *suite, json_t *opts)
{
	const struct lab_db *db = lab_config_db(c);
	char key[96];

	if (!db || !db->url || !suite || !suite->db_opt)
		return 0;
	snprintf(key, sizeof(key), "%s.%s", suite->name, suite->db_opt);
	return json_object_set_new(opts, key, json_string(db->url)) < 0 ? -ENOMEM : 0;
}

/* Does item (app, app.apt) run a test that needs a package mirror (its
 * suite's mirror names it)? */
static bool mirror_item(const char *item)
{
	const struct vmb_suite *s = lab_item_suite(item);
	const char *dot = strchr(item, '.');

	return s && s->mirror && (!dot || !strcmp(dot + 1, s->mirror->test));
}

/* app.apt in a distribution guest on a link: the lab's mirror of the
 * image's own packages (src/lab/mirror.h) as app.apt-mirror, and
 * --destructive, as the reinstall asks (the root disk is QEMU's snapshot:
 * nothing of it outlives the boot). Where the mirror cannot be made the
 * guest's test is skipped for want of a mirror, and the host says why. */
static int mirror_item_opts(const struct lab_run_opts *o, struct lab_boot *b, const char *item, json_t *opts, char *err,
			    size_t errlen)
{
	const struct lab_image_row *img = lab_config_image(b->c);
	const struct vmb_suite *s = lab_item_suite(item);
	char debs[PATH_MAX], why[512], key[96];
	int r;

	if (!img->distro || !o->cache || !b->net.be || !lab_net_linked(b->c, &b->paths))
		return 0;
	if (!b->mirror.pid) {
		lab_distro_debs_dir(o->cache, lab_distro_find(img->distro), b->c->v[LAB_ARCH], debs, sizeof(debs));
		r = lab_mirror_start(&b->mirror, b->pid, debs, b->dir, why, sizeof(why));
		if (r < 0) {
			log_warn("%s: %s.%s will be skipped for want of it", why, s->name, s->mirror->test);
			return 0;
		}
	}
	snprintf(key, sizeof(key), "%s.%s", s->name, s->mirror->url_opt);
	if (json_object_set_new(opts, key, json_string(b->mirror.url)) < 0 ||
	    json_object_set_new(opts, "destructive", json_true()) < 0)
		return errf(err, errlen, -ENOMEM, "out of memory");
	return 0;
}

/* The options the guest's run of item gets: the lab run's own, then what
 * the lab gives the guest (a step each: the peer at the other end of its
 * NIC, where a suite that measures storage works). NULL: out of memory. */
json_t *lab_item_opts(const struct lab_run_opts *o, const struct vmb_suite *suite, const char *scratch,
			 const struct lab_net *net, const struct lab_fs *fs, bool share)
{
	json_t *opts = json_object();

	if (!opts || add_run_opts(opts, o->run_opts, suite) < 0 || lab_net_item_opts(net, suite, opts) < 0 ||
	    lab_fs_opts(opts, o, suite, scratch, fs, share) < 0) {
		json_decref(opts);
		return NULL;
	}
	return opts;
}

/* The guest's PROGRESS: the case of how many and the time left when its
 * run says them, else the time since the RUN began. */
static void guest_progress(void *arg, const struct proto_msg *m)
{
	const struct lab_run_opts *o = arg;
	char step[PROTO_MAX_WHAT + PROTO_MAX_DETAIL + 64], left[32];

	if (!m->ncases) {
		proto_quote(step, sizeof(step), m->text, strcspn(m->text, " "));
		lab_progress_draw(o, "[%.0f s] %s", m->seconds, step);
		return;
	}
	proto_quote(step, sizeof(step), m->step, PROTO_MAX_WHAT + PROTO_MAX_DETAIL + 1);
	if (m->left < 0)
		snprintf(left, sizeof(left), "%.0f s so far", m->seconds);
	else
		str_time_left(m->left, left, sizeof(left));
	lab_progress_draw(o, "[case %zu/%zu, %s] %s", m->ncase, m->ncases, left, step);
}

/* Every item but boot is a suite or test the guest runs (cpu,
 * disk.randread...): their results in one document, *doc. */
int lab_items_run(const struct lab_run_opts *o, struct lab_boot *b, const char *scratch, const struct lab_fs *fs,
		     json_t **doc, char *err, size_t errlen)
{
	double cpu0[4], cpu1[4], wb0, wb1;
	struct host_cpu hc = { 0 };
	int r = 0;

	for (const char *p = o->suites; r == 0 && p && *p;) {
		const char *comma = strchr(p, ',');
		const struct vmb_suite *suite;
		char what[64];
		json_t *opts, *d = NULL;

		snprintf(what, sizeof(what), "%.*s", comma ? (int)(comma - p) : (int)strlen(p), p);
		p = comma ? comma + 1 : NULL;
		if (lab_host_measured(what))
			continue;
		suite = lab_item_suite(what);
		snprintf(b->step, sizeof(b->step), "run %s", what);
		opts = lab_item_opts(o, suite, scratch, &b->net, fs, b->c->share != NULL);
		if (opts && lab_db_item_opts(b->c, suite, opts) < 0) {
			json_decref(opts);
			opts = NULL;
		}
		if (!opts) {
			r = errf(err, errlen, -ENOMEM, "out of memory");
			break;
		}
		if (mirror_item(what) && (r = mirror_item_opts(o, b, what, opts, err, errlen)) < 0) {
			json_decref(opts);
			break;
		}
		lab_qemu_cpu(b->pid, cpu0);
		wb0 = qemu_write_bytes(b->pid);
		free(hc.pts);
		host_cpu_begin(&hc, o, b->pid);
		/* the host adopts the guest's result: only what it asked for,
		 * the id, labels and fingerprint (the HELLO's, checked above) its own */
		b->conn.on_progress = host_cpu_progress;
		b->conn.progress_arg = &hc;
		if (b->net.dir && suite && (suite->flags & VMB_SUITE_NET_PEER)) {
			r = lab_net_run(&b->net, &b->conn, what, opts, b->fp, o->run_table, &d, err, errlen);
		} else {
			r = proto_host_run(&b->conn, what, opts, b->fp, 120000, 3600000, &d);
			if (r < 0)
				errf(err, errlen, r, "%s", b->conn.err);
		}
		lab_progress_draw(o, "%s", "");
		b->conn.on_progress = NULL;
		json_decref(opts);
		if (r < 0)
			break;
		host_cpu_sample(&hc, true);
		lab_qemu_cpu(b->pid, cpu1);
		wb1 = qemu_write_bytes(b->pid);
		if (lab_host_cost(d, cpu0, cpu1, b->vcpu_threads) < 0 || host_writes(d, wb0, wb1) < 0 ||
		    lab_host_cpu_attach(d, hc.pts, hc.n) < 0) {
			json_decref(d);
			r = errf(err, errlen, -ENOMEM, "out of memory");
			break;
		}
		if (suite && suite->scratch)
			scratch_on_tmpfs(d, b->dir);
		if (!*doc) {
			*doc = d;
			continue;
		}
		r = json_array_extend(json_object_get(*doc, "suites"), json_object_get(d, "suites"));
		json_decref(d);
		if (r < 0)
			r = errf(err, errlen, -ENOMEM, "out of memory");
	}
	free(hc.pts);
	if (r < 0)
		return r;
	if (!*doc) {
		/* only boot was asked: the guest's fingerprint still belongs to the result */
		struct vmb_results empty = { 0 };

		r = doc_from_results(&empty, &(struct doc_meta){ .fingerprint = b->fp, .started = wall_time_s(),
								 .ended = wall_time_s() }, doc, err, errlen);
	}
	return r;
}

/* Is an item's suite one that pred says yes of? */
bool lab_items_ask(const char *items, bool (*pred)(const struct vmb_suite *s))
{
	char what[64];

	for (const char *p = items; p && *p; p += strcspn(p, ","), p += *p == ',') {
		const struct vmb_suite *s;

		snprintf(what, sizeof(what), "%.*s", (int)strcspn(p, ","), p);
		s = lab_item_suite(what);
		if (s && pred(s))
			return true;
	}
	return false;
}

/* a suite that measures over a NIC (net) */
bool lab_suite_net_peer(const struct vmb_suite *s)
{
	return s->flags & VMB_SUITE_NET_PEER;
}

/* a suite that measures the disk under test (disk, app) */
bool lab_suite_on_scratch(const struct vmb_suite *s)
{
	return s->scratch != NULL;
}
