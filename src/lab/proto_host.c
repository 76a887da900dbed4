/* Agent protocol, the host's half: HELLO read past console noise, a RUN
 * waited for and its result adopted, the requests and their answers
 * checked, BYE and REBOOT; every wait bounded. */
#include <arpa/inet.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "../proto/mounts.h"
#include "proto_host.h"
#include "../proto/proto_int.h"
#include "../core/run_opts.h"
#include "../core/clock.h"
#include "../core/util.h"
#include "../net/proto.h"
#include "../store/doc.h"
#include "../suites/suites.h"
#include "../core/banned.h"

/* What went wrong on the channel while the host waited, with the bound that
 * expired (timeout_ms): "the guest sent nothing for 120 s while running cpu". */
static void io_fail(struct proto_conn *c, int r, int timeout_ms, const char *waiting)
{
	char detail[sizeof(c->err)];

	if (r == -ETIMEDOUT)
		proto_fail(c, "the guest sent nothing for %g s while %s", timeout_ms / 1e3, waiting);
	else if (r == -EPIPE || r == -ECONNRESET) /* a socket's peer gone (QEMU killed) */
		proto_fail(c, "the guest closed the channel while %s", waiting);
	else if (r == -EPROTO) {
		snprintf(detail, sizeof(detail), "%s", c->err);
		proto_fail(c, "the guest sent %s while %s", detail, waiting);
	} else
		proto_fail(c, "%s while %s", strerror(-r), waiting);
}

/* Lines before HELLO are console noise (a kernel or init printing on the
 * same port); they are skipped, within the time limit. */
int proto_host_hello(struct proto_conn *c, int timeout_ms, json_t **fingerprint)
{
	uint64_t deadline = proto_deadline_after(timeout_ms);

	for (;;) {
		char *line = NULL, err[256];
		struct proto_msg m;
		json_t *fp;
		json_error_t je;
		int wait = proto_ms_left(deadline);
		int r = wait > 0 ? proto_recv_line(c, wait, &line) : -ETIMEDOUT;

		if (r < 0) {
			io_fail(c, r, timeout_ms, "waiting for HELLO");
			return r;
		}
		r = proto_parse_guest_line(line, &m, err, sizeof(err));
		if (m.kind != PROTO_HELLO) {
			free(line);
			continue;
		}
		if (r < 0) {
			proto_fail(c, "%s", err);
			free(line);
			return r;
		}
		if (m.version < PROTO_VERSION_MIN || m.version > PROTO_VERSION) {
			proto_fail(c, "the guest agent speaks protocol version %ld, this host %d to %d: rebuild the guest image",
			     m.version, PROTO_VERSION_MIN, PROTO_VERSION);
			free(line);
			return -EPROTONOSUPPORT;
		}
		fp = json_loads(m.text, JSON_REJECT_DUPLICATES, &je);
		free(line);
		if (!json_is_object(fp) || !json_is_object(json_object_get(fp, "hypervisor"))) {
			proto_fail(c, "HELLO carries no valid fingerprint (%s)", fp ? "not a fingerprint object" : je.text);
			json_decref(fp);
			return -EPROTO;
		}
		c->version = m.version;
		*fingerprint = fp;
		return 0;
	}
}

int proto_host_adopt(json_t *doc, const char *what, const json_t *hello_fp, char *err, size_t errlen)
{
	/* the parts a guest measures; the rest is the host's to say */
	static const char *const guest_keys[] = { "schema", "schema_version", "tool", "command_line", "started",
						  "ended", "duration_s", "status", "settings", "suites" };
	const json_t *suites = json_object_get(doc, "suites"), *s, *t;
	const struct vmb_suite *suite;
	const char *dot = strchr(what, '.'), *sname, *k;
	size_t slen = dot ? (size_t)(dot - what) : strlen(what), i;
	json_t *fp, *labels, *v;
	void *tmp;
	char why[256];

	if (json_array_size(suites) != 1)
		return errf(err, errlen, -EPROTO, "the guest returned %zu suites, but was asked for %s",
			    json_array_size(suites), what);
	s = json_array_get(suites, 0);
	sname = json_string_value(json_object_get(s, "name"));
	if (!sname || strlen(sname) != slen || strncmp(sname, what, slen))
		return errf(err, errlen, -EPROTO, "the guest returned results of the suite %.64s, but was asked for %s",
			    sname ? sname : "?", what);
	suite = suites_find(sname);
	json_array_foreach(json_object_get(s, "tests"), i, t) {
		const char *tname = json_string_value(json_object_get(t, "name"));
		bool declared = false;

		for (size_t n = 0; suite && tname && suite->tests[n].name; n++)
			declared |= !strcmp(suite->tests[n].name, tname);
		if (!tname || (dot && strcmp(tname, dot + 1)) || !declared)
			return errf(err, errlen, -EPROTO, "the guest returned results of %s.%.64s, but was asked for %s",
				    sname, tname ? tname : "?", what);
	}
	json_object_foreach_safe(doc, tmp, k, v) {
		bool keep = false;

		for (i = 0; i < sizeof(guest_keys) / sizeof(guest_keys[0]); i++)
			keep |= !strcmp(k, guest_keys[i]);
		if (!keep)
			json_object_del(doc, k);
	}
	/* json_object_set_new() takes the value also when it fails */
	fp = json_deep_copy(hello_fp);
	labels = json_object();
	if (json_object_set_new(doc, "fingerprint", fp) < 0 || json_object_set_new(doc, "labels", labels) < 0 ||
	    doc_set_new_id(doc) < 0) {
		if (!fp)
			json_decref(labels);
		return errf(err, errlen, -ENOMEM, "out of memory taking the guest's result");
	}
	if (doc_validate(doc, why, sizeof(why)) < 0)
		return errf(err, errlen, -EPROTO, "the guest's result with its HELLO fingerprint is not valid: %s", why);
	return 0;
}

/* The result's bytes: the stall timer starts again whenever some arrive (a
 * large document over an emulated serial port under load is progress, not
 * silence), and end bounds the whole, as while the run ran. */
static int recv_result(struct proto_conn *c, size_t n, int stall_ms, uint64_t end, char **data)
{
	while (c->len < n) {
		uint64_t d = proto_deadline_after(stall_ms);
		int r = proto_fill(c, d < end ? d : end);

		if (r < 0)
			return r;
	}
	return proto_recv_bytes(c, n, stall_ms, data);
}

/* A run's wait that failed: past the run's whole time limit, or the
 * channel's own failure (silent for stall_ms, closed, a bad line). */
static void run_fail(struct proto_conn *c, int r, uint64_t end, int stall_ms, int total_ms, const char *what,
		     const char *doing)
{
	char waiting[128];

	snprintf(waiting, sizeof(waiting), "%s %s", doing, what);
	if (r == -ETIMEDOUT && proto_ms_left(end) == 0)
		proto_fail(c, "the guest's run of %s went past its time limit of %g s while %s", what, total_ms / 1e3, doing);
	else
		io_fail(c, r, stall_ms, waiting);
}

/* The rows of `vmbench run` that say how long a step takes: their
 * defaults are what the guest's run takes when RUN leaves them out (one
 * fact, src/core/run_opts.h) */
static const struct vmb_opt measure_rows[] = { RUN_MEASURE_OPTS, OPT_TABLE_END };

/* Seconds of option key (row's name) as RUN asks them: its value, else the
 * row's default (--quick's under quick); never below 0 */
static double asked_s(const json_t *options, const char *key, const struct vmb_opt *row, bool quick)
{
	const json_t *v = json_object_get(options, key);
	const char *def = quick && row->quick ? row->quick : row->def;
	double s = json_is_number(v) ? json_number_value(v) : def ? strtod(def, NULL) : 0;

	return s > 0 ? s : 0;
}

static const struct vmb_opt *measure_row(const char *name)
{
	for (size_t i = 0; measure_rows[i].name; i++)
		if (!strcmp(measure_rows[i].name, name))
			return &measure_rows[i];
	return NULL;
}

static void say_s(char *out, size_t len, size_t *off, const char *fmt, double s)
{
	str_appendf(out, len, off, fmt, s < 10 ? 2 : 0, s);
}

int proto_host_step_ms(const char *what, const json_t *options, int floor_ms, char *how, size_t howlen)
{
	const struct vmb_opt *time_row = measure_row("time"), *warmup_row = measure_row("warmup");
	bool quick = json_is_true(json_object_get(options, "quick"));
	const char *dot = strchr(what, '.');
	char sname[PROTO_MAX_WHAT + 1];
	const struct vmb_suite *suite;
	double t = asked_s(options, "time", time_row, quick), w, sum, ms;
	size_t off = 0;

	/* a judged warm-up goes on up to --warmup-max, by default at most
	 * 4 x --warmup (run.c's settings_from; --quick: --warmup) */
	w = json_is_number(json_object_get(options, "warmup-max"))
		    ? asked_s(options, "warmup-max", warmup_row, quick)
		    : 4 * asked_s(options, "warmup", warmup_row, quick);
	sum = t + w;
	floor_ms = floor_ms > 0 ? floor_ms : PROTO_STEP_FLOOR_MS;
	str_appendf(how, howlen, &off, "%d x (", PROTO_STEP_FACTOR);
	say_s(how, howlen, &off, "--time %.*f s", t);
	say_s(how, howlen, &off, " + --warmup-max %.*f s", w);
	/* and what the suite's repetitions spend beyond --time (disk's ramp) */
	snprintf(sname, sizeof(sname), "%.*s", dot ? (int)(dot - what) : (int)strlen(what), what);
	suite = suites_find(sname);
	/* a test whose repetition is a unit of work has no step budget: the
	 * run's own limit bounds it (a build under TCG takes what it takes) */
	for (size_t i = 0; suite && suite->tests && suite->tests[i].name; i++)
		if ((suite->tests[i].flags & VMB_TEST_UNTIMED) && (!dot || !strcmp(dot + 1, suite->tests[i].name))) {
			snprintf(how, howlen, "none: %s.%s's repetition is a unit of work, not --time long (the run's own "
				 "limit bounds it)", sname, suite->tests[i].name);
			return 0;
		}
	for (size_t i = 0; suite && suite->opts && suite->opts[i].name; i++) {
		const struct vmb_opt *row = &suite->opts[i];
		char key[160];
		double o;

		if (!row->rep_overhead)
			continue;
		snprintf(key, sizeof(key), "%s.%s", sname, row->name);
		o = asked_s(options, key, row, quick);
		sum += o;
		str_appendf(how, howlen, &off, " + --%s", key);
		say_s(how, howlen, &off, " %.*f s", o);
	}
	say_s(how, howlen, &off, ") + %.*f s", floor_ms / 1e3);
	ms = PROTO_STEP_FACTOR * sum * 1e3 + floor_ms;
	return ms < INT_MAX ? (int)ms : INT_MAX;
}

/* The step a RUN's PROGRESS says is under way, and since when: its case,
 * of how many, and its words ("disk.seqwrite iodepth=8 repetition 1 (of
 * 5 at most)"); ncases 0: none said yet (the run's set-up) */
struct run_step {
	size_t ncase, ncases;
	char text[PROTO_MAX_WHAT + PROTO_MAX_DETAIL + 2];
	uint64_t since, deadline;
	int budget_ms;  /* 0: none (its test's repetition is a unit of work) */
	char how[256];  /* how the budget was made */
};

/* A new step: its budget from the test it names (its first word,
 * "disk.seqwrite", as PROGRESS gives it; else the RUN's what), so that a
 * RUN of a whole suite bounds each test's steps by that test's own rule */
static void step_take(struct run_step *s, const struct proto_msg *m, const char *what, const json_t *options,
		      int floor_ms)
{
	char test[PROTO_MAX_WHAT + 1];
	size_t n;

	/* the parser bounds a step's words to fit s->text */
	if (!m->ncases || (m->ncase == s->ncase && m->ncases == s->ncases && !strcmp(m->step, s->text)))
		return;
	s->ncase = m->ncase;
	s->ncases = m->ncases;
	snprintf(s->text, sizeof(s->text), "%s", m->step);
	s->since = clock_ns();
	n = strcspn(m->step, " ");
	if (n && n < sizeof(test) && memchr(m->step, '.', n))
		snprintf(test, sizeof(test), "%.*s", (int)n, m->step);
	else
		snprintf(test, sizeof(test), "%s", what);
	s->how[0] = '\0';
	s->budget_ms = proto_host_step_ms(test, options, floor_ms, s->how, sizeof(s->how));
	s->deadline = s->budget_ms > 0 ? proto_deadline_after(s->budget_ms) : UINT64_MAX;
}

static void step_fail(struct proto_conn *c, const struct run_step *s, const char *what)
{
	char q[sizeof(s->text) * 4];
	double stayed = (double)(clock_ns() - s->since) / NSEC_PER_SEC;

	proto_quote(q, sizeof(q), s->text, sizeof(s->text));
	proto_fail(c, "the guest's run of %s stayed at case %zu/%zu (%s) for %.*f s, past its budget of %.*f s a step: %s",
		   what, s->ncase, s->ncases, q, stayed < 10 ? 2 : 0, stayed, s->budget_ms < 10000 ? 2 : 0,
		   s->budget_ms / 1e3, s->how);
}

int proto_host_run(struct proto_conn *c, const char *what, const json_t *options, const json_t *hello_fp,
		   int stall_ms, int total_ms, json_t **doc)
{
	uint64_t end = proto_deadline_after(total_ms);
	char *opts, *line = NULL, q[120];
	struct run_step step = { 0 };
	int r;

	if (!proto_what_valid(what, strlen(what))) {
		proto_quote(q, sizeof(q), what, 80);
		proto_fail(c, "'%s' is not a suite or test name", q);
		return -EINVAL;
	}
	opts = json_is_object(options) ? json_dumps(options, JSON_COMPACT) : NULL;
	if (!opts) {
		proto_fail(c, "the options for %s are not a JSON object", what);
		return -EINVAL;
	}
	r = proto_send(c, "RUN %s %s", what, opts);
	free(opts);
	if (r == -EPIPE)
		proto_fail(c, "the guest closed the channel before it got RUN %s", what);
	else if (r < 0)
		proto_fail(c, "sending RUN %s: %s", what, strerror(-r));
	if (r < 0)
		return r;
	for (;;) {
		int wait = proto_ms_left(end);
		struct proto_msg m;
		char *text, err[512];

		if (wait > stall_ms)
			wait = stall_ms;
		/* a guest whose heartbeat goes on while its run is stuck in one
		 * step (an I/O that never completes) is cut at the step's budget */
		if (step.ncases && step.budget_ms > 0 && wait > proto_ms_left(step.deadline))
			wait = proto_ms_left(step.deadline);
		free(line);
		line = NULL;
		r = wait > 0 ? proto_recv_line(c, wait, &line) : -ETIMEDOUT;
		if (r == -ETIMEDOUT && step.ncases && step.budget_ms > 0 && proto_ms_left(step.deadline) == 0) {
			step_fail(c, &step, what);
			return r;
		}
		if (r < 0) {
			run_fail(c, r, end, stall_ms, total_ms, what, "running");
			return r;
		}
		r = proto_parse_guest_line(line, &m, err, sizeof(err));
		if (r < 0) {
			proto_fail(c, "the guest sent a bad line while running %s: %s", what, err);
			free(line);
			return r;
		}
		if (m.kind == PROTO_PROGRESS) {
			size_t wl = strlen(what);

			if (strncmp(m.text, what, wl) || m.text[wl] != ' ' || (m.ncases && !proto_step_of(what, &m))) {
				proto_fail(c, "the guest reports progress of another run while running %s", what);
				free(line);
				return -EPROTO;
			}
			step_take(&step, &m, what, options, c->step_floor_ms);
			if (c->on_progress) {
				uint64_t t0 = clock_ns(), took;

				c->on_progress(c->progress_arg, &m);
				/* the host's own time in it (a migration under the run) is
				 * not the guest's: the step's clock stops meanwhile */
				took = clock_ns() - t0;
				step.since += took;
				if (step.budget_ms > 0)
					step.deadline += took;
			}
			continue;
		}
		if (m.kind == PROTO_ERROR) {
			proto_fail(c, "the guest could not run %s: %s", what, m.text);
			free(line);
			return -EIO;
		}
		if (m.kind != PROTO_RESULT) {
			proto_quote(q, sizeof(q), line, 100);
			proto_fail(c, "unexpected line from the guest while running: '%s'", q);
			free(line);
			return -EPROTO;
		}
		free(line);
		r = recv_result(c, m.length + 1, stall_ms, end, &text);
		if (r < 0) {
			size_t got = c->len < m.length ? c->len : m.length, off;

			run_fail(c, r, end, stall_ms, total_ms, what, "sending the result of");
			off = strlen(c->err);
			str_appendf(c->err, sizeof(c->err), &off, " (%zu of %zu bytes came)", got, m.length);
			return r;
		}
		if (text[m.length] != '\n' || memchr(text, '\0', m.length)) {
			proto_fail(c, "the result of %zu bytes is not followed by a newline, or holds a NUL byte: its length "
			     "is wrong", m.length);
			free(text);
			return -EPROTO;
		}
		text[m.length] = '\0';
		r = doc_load_string(text, "the guest's result", doc, err, sizeof(err));
		free(text);
		if (r < 0) {
			proto_fail(c, "%s", err);
			return -EPROTO;
		}
		r = proto_host_adopt(*doc, what, hello_fp, err, sizeof(err));
		if (r < 0) {
			proto_fail(c, "%s", err);
			json_decref(*doc);
			*doc = NULL;
			return r;
		}
		return 0;
	}
}

/* A string member of a record: one line of text of 1 to max bytes. */
static const char *text_member(const json_t *o, const char *key, size_t max, char *err, size_t errlen)
{
	const json_t *v = json_object_get(o, key);
	const char *s = json_string_value(v);
	char why[160];

	if (!s || !*s || json_string_length(v) > max || strlen(s) != json_string_length(v) ||
	    proto_check_text(s, why, sizeof(why)) < 0) {
		errf(err, errlen, -EPROTO, "'%s' is not one line of text of 1 to %zu bytes", key, max);
		return NULL;
	}
	return s;
}

int proto_check_prepared(const char *json, const char *fs, const char *device, json_t **out, char *err,
			 size_t errlen)
{
	static const char *const keys[] = { "type", "device", "mountpoint", "mount_options", "size_bytes", "mkfs",
					    "mkfs_version" };
	/* a filesystem made says how; a share mounted was made by nobody */
	size_t nkeys = lab_fs_find(fs) ? ARRAY_SIZE(keys) : ARRAY_SIZE(keys) - 2;
	const char *k, *type, *dev, *mp, *opts, *mkfs = NULL, *version = NULL;
	json_error_t je;
	json_t *o = json_loads(json, JSON_REJECT_DUPLICATES, &je), *v, *rec;
	json_int_t size;
	int r = -EPROTO;

	if (!json_is_object(o)) {
		errf(err, errlen, -EPROTO, "PREPARED: %s", o ? "not a JSON object" : je.text);
		goto out;
	}
	json_object_foreach(o, k, v) {
		bool known = false;

		for (size_t i = 0; i < nkeys; i++)
			known |= !strcmp(k, keys[i]);
		if (!known) {
			char q[80];

			proto_quote(q, sizeof(q), k, 60);
			errf(err, errlen, -EPROTO, "PREPARED: unknown key '%s'", q);
			goto out;
		}
	}
	if (!(type = text_member(o, "type", 15, err, errlen)) || !(dev = text_member(o, "device", 39, err, errlen)) ||
	    !(mp = text_member(o, "mountpoint", 255, err, errlen)) ||
	    !(opts = text_member(o, "mount_options", 1024, err, errlen)) ||
	    (nkeys == ARRAY_SIZE(keys) && (!(mkfs = text_member(o, "mkfs", 1024, err, errlen)) ||
					   !(version = text_member(o, "mkfs_version", 256, err, errlen)))))
		goto out;
	if (strcmp(type, fs) || strcmp(dev, device) || strcmp(mp, PROTO_MOUNTPOINT)) {
		errf(err, errlen, -EPROTO, "PREPARED: the guest made %.15s on %.39s at %.255s, the host asked for %s on "
		     "%s at %s", type, dev, mp, fs, device, PROTO_MOUNTPOINT);
		goto out;
	}
	v = json_object_get(o, "size_bytes");
	size = json_integer_value(v);
	if (!json_is_integer(v) || size < 1 || size > (json_int_t)1 << 50) {
		errf(err, errlen, -EPROTO, "PREPARED: 'size_bytes' is not a whole number of 1 to 2^50");
		goto out;
	}
	rec = json_pack("{s:s, s:s, s:s, s:s, s:I}", "type", type, "device", dev, "mountpoint", mp, "mount_options", opts,
			"size_bytes", size);
	if (rec && mkfs &&
	    (json_object_set_new(rec, "mkfs", json_string(mkfs)) < 0 ||
	     json_object_set_new(rec, "mkfs_version", json_string(version)) < 0)) {
		json_decref(rec);
		rec = NULL;
	}
	if (!rec) {
		r = errf(err, errlen, -ENOMEM, "out of memory");
		goto out;
	}
	*out = rec;
	r = 0;
out:
	json_decref(o);
	return r;
}

/* PREPARE with request o (taken), then its PREPARED checked against what
 * was asked: filesystem (or share type) fs on device (or tag) */
static int host_prepare(struct proto_conn *c, json_t *o, const char *fs, const char *device, int timeout_ms,
			json_t **record)
{
	uint64_t deadline = proto_deadline_after(timeout_ms);
	char *req, *line = NULL, err[512], q[120];
	struct proto_msg m;
	int r;

	req = o ? json_dumps(o, JSON_COMPACT | JSON_SORT_KEYS) : NULL;
	json_decref(o);
	r = req ? proto_send(c, "PREPARE %s", req) : -ENOMEM;
	free(req);
	if (r < 0) {
		proto_fail(c, "sending PREPARE: %s", strerror(-r));
		return r;
	}
	for (;;) {
		int wait = proto_ms_left(deadline);

		free(line);
		line = NULL;
		r = wait > 0 ? proto_recv_line(c, wait, &line) : -ETIMEDOUT;
		if (r < 0) {
			io_fail(c, r, timeout_ms, "making the filesystem");
			return r;
		}
		r = proto_parse_guest_line(line, &m, err, sizeof(err));
		if (r < 0) {
			proto_fail(c, "the guest sent a bad line while making the filesystem: %s", err);
			break;
		}
		if (m.kind == PROTO_PREPARED) {
			r = proto_check_prepared(m.text, fs, device, record, err, sizeof(err));
			if (r < 0)
				proto_fail(c, "%s", err);
			break;
		}
		if (m.kind == PROTO_ERROR) {
			proto_fail(c, "the guest could not make %s on %s: %s", fs, device, m.text);
			r = -EIO;
			break;
		}
		proto_quote(q, sizeof(q), line, 100);
		proto_fail(c, "unexpected line from the guest while making the filesystem: '%s'", q);
		r = -EPROTO;
		break;
	}
	free(line);
	return r;
}

int proto_host_prepare(struct proto_conn *c, const char *fs, const char *device, int timeout_ms, json_t **record)
{
	char q[120];

	if (!lab_fs_find(fs) || !proto_device_valid(device)) {
		proto_quote(q, sizeof(q), device, 60);
		proto_fail(c, "PREPARE: %s is no filesystem of the table, or %s no /dev/NAME", fs, q);
		return -EINVAL;
	}
	return host_prepare(c, json_pack("{s:s, s:s}", "fs", fs, "device", device), fs, device, timeout_ms, record);
}

int proto_host_share(struct proto_conn *c, const char *share, int timeout_ms, json_t **record)
{
	const struct lab_share *row = lab_share_find(share);

	if (!row) {
		proto_fail(c, "PREPARE: %s is no share of the table", share);
		return -EINVAL;
	}
	return host_prepare(c, json_pack("{s:s}", "share", share), row->type, LAB_SHARE_TAG, timeout_ms, record);
}

/* Send word (BYE, REBOOT) and read up to the guest's BYE; with refusable,
 * an ERROR on the way is the agent's refusal (an agent older than the
 * word), else it is skipped as any line before BYE. */
static int host_leave(struct proto_conn *c, const char *word, bool refusable, int timeout_ms)
{
	uint64_t deadline = proto_deadline_after(timeout_ms);
	char *line = NULL;
	int r = proto_send(c, "%s", word);

	if (r < 0) {
		proto_fail(c, "sending %s: %s", word, strerror(-r));
		return r;
	}
	for (;;) {
		int wait = proto_ms_left(deadline);

		/* the whole wait is bounded, not each line: a guest that keeps
		 * talking cannot hold the host */
		r = wait > 0 ? proto_recv_line(c, wait, &line) : -ETIMEDOUT;
		if (r < 0) {
			io_fail(c, r, timeout_ms, "waiting for BYE");
			return r;
		}
		if (refusable && !strncmp(line, "ERROR ", 6)) {
			char q[200];

			proto_quote(q, sizeof(q), line + 6, 150);
			proto_fail(c, "the guest refused %s: %s", word, q);
			free(line);
			return -EIO;
		}
		r = strcmp(line, "BYE") ? 1 : 0;
		free(line);
		if (r == 0)
			return 0;
	}
}

int proto_host_bye(struct proto_conn *c, int timeout_ms)
{
	return host_leave(c, "BYE", false, timeout_ms);
}

int proto_host_reboot(struct proto_conn *c, int timeout_ms)
{
	return host_leave(c, "REBOOT", true, timeout_ms);
}

/* Send request, then read the guest's answer, which must be of kind want,
 * within timeout_ms. *line is the answer (m borrows from it). */
static int host_request(struct proto_conn *c, const char *request, const char *waiting, enum proto_kind want,
			int timeout_ms, struct proto_msg *m, char **line)
{
	uint64_t deadline = proto_deadline_after(timeout_ms);
	char err[512], q[120];
	int r = proto_send(c, "%s", request);

	if (r < 0) {
		proto_fail(c, "sending %.*s: %s", (int)strcspn(request, " "), request, strerror(-r));
		return r;
	}
	/* after HELLO the answer is the next line: anything else is an error */
	*line = NULL;
	r = proto_ms_left(deadline) > 0 ? proto_recv_line(c, proto_ms_left(deadline), line) : -ETIMEDOUT;
	if (r < 0) {
		io_fail(c, r, timeout_ms, waiting);
		return r;
	}
	r = proto_parse_guest_line(*line, m, err, sizeof(err));
	if (r < 0) {
		proto_fail(c, "the guest sent a bad line while %s: %s", waiting, err);
	} else if (m->kind == want) {
		return 0;
	} else if (m->kind == PROTO_ERROR) {
		proto_fail(c, "the guest refused while %s: %s", waiting, m->text);
		r = -EIO;
	} else {
		proto_quote(q, sizeof(q), *line, 100);
		proto_fail(c, "unexpected line from the guest while %s: '%s'", waiting, q);
		r = -EPROTO;
	}
	free(*line);
	*line = NULL;
	return r;
}

int proto_host_token(struct proto_conn *c, const char *token, int timeout_ms)
{
	struct proto_msg m;
	char req[NETPROTO_MAX_TOKEN + 8], *line = NULL;
	int r;

	if (!netproto_token_valid(token, strlen(token))) {
		proto_fail(c, "a token is 1 to %d letters, digits, '.', '_' or '-'", NETPROTO_MAX_TOKEN);
		return -EINVAL;
	}
	snprintf(req, sizeof(req), "TOKEN %s", token);
	r = host_request(c, req, "handing over the net token", PROTO_OK, timeout_ms, &m, &line);
	free(line);
	return r;
}

int proto_host_serve(struct proto_conn *c, const char *addr, int timeout_ms, char *where, size_t len)
{
	struct proto_msg m;
	char req[PROTO_MAX_ADDR + 8], *line = NULL;
	int r;

	if (!proto_addr_valid(addr, false)) {
		proto_fail(c, "SERVE needs an IPv4 or IPv6 address");
		return -EINVAL;
	}
	snprintf(req, sizeof(req), "SERVE %s", addr);
	r = host_request(c, req, "starting vmbench serve in the guest", PROTO_SERVING, timeout_ms, &m, &line);
	if (r == 0)
		snprintf(where, len, "%s", m.text);
	free(line);
	return r;
}

int proto_host_load(struct proto_conn *c, unsigned pct, int timeout_ms, unsigned *asked, double *got)
{
	struct proto_msg m;
	char req[16], *line = NULL;
	int r;

	if (pct > 100) {
		proto_fail(c, "LOAD takes a percent of 0 to 100, not %u", pct);
		return -EINVAL;
	}
	if (c->version && c->version < PROTO_VERSION_LOAD) {
		proto_fail(c, "the guest agent speaks protocol version %ld, and a background load (LOAD) needs %d: rebuild "
		     "the guest image", c->version, PROTO_VERSION_LOAD);
		return -EPROTONOSUPPORT;
	}
	snprintf(req, sizeof(req), "LOAD %u", pct);
	r = host_request(c, req, pct ? "starting the guest's background load" : "stopping the guest's background load",
			 PROTO_LOADED, timeout_ms, &m, &line);
	if (r == 0) {
		*asked = m.load_asked;
		*got = m.load_got;
	}
	free(line);
	return r;
}
