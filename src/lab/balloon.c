/* The balloon suite, measured by the host through the hypervisor back
 * end's balloon hooks (hv.h) (balloon.h). */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "balloon.h"
#include "hostsuite.h"
#include "hv.h"
#include "../core/clock.h"
#include "../core/result.h"
#include "../core/str.h"
#include "../suites/balloon.h"
#include "../core/banned.h"

/* the connection's own bound, and the longest wait between two looks */
#define BALLOON_CTL_MS 10000
#define BALLOON_POLL_MS 10

/* A suite option's value: the run's, else the row's default. */
static const char *opt_default(const char *name)
{
	for (const struct vmb_opt *o = balloon_suite.opts; o && o->name; o++)
		if (!strcmp(o->name, name))
			return o->def;
	return NULL;
}

int lab_balloon_opts(const json_t *run_opts, uint64_t mem, uint64_t *size, double *timeout_s, char *why, size_t len)
{
	const json_t *s = json_object_get(run_opts, "balloon.size"), *t = json_object_get(run_opts, "balloon.timeout");
	uint64_t sz = 0;
	double to = 0;

	if (json_is_integer(s))
		sz = (uint64_t)json_integer_value(s);
	else if (parse_size(opt_default("size"), 0, UINT64_MAX, &sz) < 0)
		sz = 0;
	to = json_is_number(t) ? json_number_value(t) : strtod(opt_default("timeout"), NULL);
	if (!sz)
		sz = mem / 4;
	/* whole pages, as the balloon takes them */
	sz &= ~(uint64_t)4095;
	if (!sz || sz + (64ull << 20) > mem)
		return errf(why, len, -EINVAL, "--balloon.size %llu MiB does not fit in a guest of mem=%llu MiB: give a size "
			    "that leaves the guest 64 MiB at least", (unsigned long long)(sz >> 20),
			    (unsigned long long)(mem >> 20));
	*size = sz;
	*timeout_s = to;
	return 0;
}

/* The balloon set to want, then the guest's report until its actual is
 * within the tolerance of it: the seconds from the request, in *secs. */
static int balloon_to(const struct lab_hv_ops *hv, struct lab_hv_mon *m, uint64_t want, double timeout_s,
		      const char *what, double *secs, char *why, size_t len)
{
	uint64_t t0 = clock_ns(), actual = 0;
	int r;

	r = hv->balloon_set(m, want, why, len);
	if (r < 0)
		return r;
	for (;;) {
		uint64_t now;

		r = hv->balloon_get(m, &actual, why, len);
		now = clock_ns();
		if (r < 0)
			return r;
		if ((actual > want ? actual - want : want - actual) <= BALLOON_TOLERANCE) {
			*secs = (double)(now - t0) / NSEC_PER_SEC;
			return 0;
		}
		if ((double)(now - t0) / NSEC_PER_SEC > timeout_s)
			return errf(why, len, -ETIMEDOUT, "the guest's balloon did not %s within %g s (--balloon.timeout): the "
				    "guest had %llu MiB, the target was %llu MiB", what, timeout_s,
				    (unsigned long long)(actual >> 20), (unsigned long long)(want >> 20));
		/* the guest's next report (at most once a second): a look then, or soon */
		r = hv->balloon_wait(m, BALLOON_POLL_MS, why, len);
		if (r < 0)
			return r;
	}
}

/* An inflate by size and the deflate back: [0] and [1], seconds. */
static int cycle(const struct lab_balloon *bl, double out[2], char *why, size_t len)
{
	struct lab_hv_mon *m = NULL;
	uint64_t full = 0;
	int r = bl->hv->open(bl->ctl, BALLOON_CTL_MS, &m, why, len);

	if (r == 0)
		r = bl->hv->balloon_get(m, &full, why, len);
	if (r == 0 && full <= bl->size)
		r = errf(why, len, -EINVAL, "the guest has %llu MiB, no more than --balloon.size", (unsigned long long)(full >> 20));
	if (r == 0)
		r = balloon_to(bl->hv, m, full - bl->size, bl->timeout_s, "inflate", &out[0], why, len);
	if (r == 0)
		r = balloon_to(bl->hv, m, full, bl->timeout_s, "deflate", &out[1], why, len);
	if (m && bl->hv->close)
		bl->hv->close(m);
	return r;
}

/* The loaded test: a cycle from the first PROGRESS of the guest's run that
 * has begun a case, in the protocol's callback (the run goes on in the
 * guest meanwhile; its lines wait in the channel). */
struct load {
	const struct lab_balloon *bl;
	uint64_t t_run;     /* when the RUN was sent */
	bool started;
	int r;
	double out[2];
	double window[2];   /* the cycle, seconds after the RUN */
	char why[512];
};

static void load_progress(void *arg, const struct proto_msg *m)
{
	struct load *l = arg;

	if (l->started || !m->ncases)
		return;
	l->started = true;
	l->window[0] = (double)(clock_ns() - l->t_run) / NSEC_PER_SEC;
	l->r = cycle(l->bl, l->out, l->why, sizeof(l->why));
	l->window[1] = (double)(clock_ns() - l->t_run) / NSEC_PER_SEC;
}

/* A test's case: the size, the two times, one sample each */
static int add_times(struct vmb_case *c, uint64_t size, const double t[2])
{
	static const char *const names[2] = { BALLOON_INFLATE, BALLOON_DEFLATE };
	char sz[32];

	snprintf(sz, sizeof(sz), "%llu", (unsigned long long)size);
	if (vmb_params_add(&c->params, &c->nparams, "size", sz) < 0)
		return -ENOMEM;
	c->reps = 1;
	for (int i = 0; i < 2; i++) {
		struct vmb_metric *m = vmb_case_add_metric(c, names[i], VMB_UNIT_S, VMB_LOWER);

		if (!m || vmb_metric_push(m, t[i]) < 0)
			return -ENOMEM;
		m->headline = true;
		stats_summarize(m->samples, m->n, &m->sum);
	}
	return 0;
}

int lab_load_metrics(struct vmb_case *c, const json_t *doc, const char *prefix)
{
	const json_t *cs = json_array_get(json_object_get(json_array_get(json_object_get(json_array_get(
					 json_object_get(doc, "suites"), 0), "tests"), 0), "cases"), 0), *mt, *v;
	size_t i, j;

	json_array_foreach(json_object_get(cs, "metrics"), i, mt) {
		enum vmb_unit unit;
		char name[96];
		struct vmb_metric *m;

		if (vmb_unit_parse(json_string_value(json_object_get(mt, "unit")) ?: "", &unit) < 0)
			continue;
		snprintf(name, sizeof(name), "%s%s", prefix, json_string_value(json_object_get(mt, "name")) ?: "?");
		m = vmb_case_add_metric(c, name, unit,
					!strcmp(json_string_value(json_object_get(mt, "direction")) ?: "", "lower") ? VMB_LOWER : VMB_HIGHER);
		if (!m)
			return -ENOMEM;
		json_array_foreach(json_object_get(mt, "samples"), j, v)
			if (json_is_number(v) && vmb_metric_push(m, json_number_value(v)) < 0)
				return -ENOMEM;
		stats_summarize(m->samples, m->n, &m->sum);
	}
	return 0;
}

static int note(struct vmb_suite_result *s, const char *key, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int note(struct vmb_suite_result *s, const char *key, const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	return vmb_params_add(&s->notes, &s->nnotes, key, buf);
}

/* The loaded test into t: the guest's RUN, the cycle under it. */
static int loaded(const struct lab_balloon *bl, struct vmb_suite_result *s, struct vmb_test_result *t, char *err,
		  size_t errlen)
{
	struct load l = { .bl = bl, .r = -EINPROGRESS };
	void (*was)(void *, const struct proto_msg *) = bl->conn->on_progress;
	void *was_arg = bl->conn->progress_arg;
	json_t *d = NULL;
	double ran;
	int r;

	bl->conn->on_progress = load_progress;
	bl->conn->progress_arg = &l;
	l.t_run = clock_ns();
	r = proto_host_run(bl->conn, BALLOON_LOAD, bl->load_opts, bl->fp, 120000, 3600000, &d);
	bl->conn->on_progress = was;
	bl->conn->progress_arg = was_arg;
	/* the guest's ERROR (its run refused the options, or failed) fails this test;
	 * a broken channel ends the boot */
	if (r < 0 && r != -EIO)
		return errf(err, errlen, r, "%s", bl->conn->err);
	ran = json_number_value(json_object_get(d, "duration_s"));
	if (r < 0) {
		t->status = VMB_FAILED;
		t->reason = xstrdup(bl->conn->err);
	} else if (!l.started) {
		t->status = VMB_FAILED;
		t->reason = xasprintf("the guest's %s ended (%.1f s) before its first case was under way: give it longer "
				       "(--mem.ntimes, --mem.array-size) so that the balloon moves while it runs",
				       BALLOON_LOAD, ran);
	} else if (l.r < 0) {
		t->status = VMB_FAILED;
		t->reason = xasprintf("%s", l.why);
	}
	r = t->reason || t->status == VMB_FAILED ? (t->reason ? 0 : -ENOMEM) : 0;
	if (r == 0 && t->status == VMB_OK) {
		t->cases = calloc(1, sizeof(*t->cases));
		t->ncases = t->cases ? 1 : 0;
		r = t->cases ? add_times(t->cases, bl->size, l.out) : -ENOMEM;
		if (r == 0)
			r = lab_load_metrics(t->cases, d, BALLOON_LOAD_PREFIX);
		/* what overlapped: the guest's run (its own clock) against the cycle (the host's, from the RUN) */
		if (r == 0)
			r = note(s, "loaded_window_s", "%.3f-%.3f", l.window[0], l.window[1]);
		if (r == 0)
			r = note(s, "loaded_run_s", "%.3f", ran);
		if (r == 0 && ran < l.window[1])
			r = note(s, "loaded_overlap", "the guest's %s ended about %.1f s before the deflate was done: its "
				 "bandwidth is partly of a still balloon", BALLOON_LOAD, l.window[1] - ran);
	}
	json_decref(d);
	return r < 0 ? errf(err, errlen, r, "out of memory") : 0;
}

int lab_balloon_measure(const struct lab_balloon *bl, json_t **suite, char *err, size_t errlen)
{
	struct vmb_results res;
	struct vmb_suite_result *s;
	char why[512];
	int r = lab_host_suite_begin(&res, &balloon_suite, 2, &s);

	if (r == 0 && bl->skip) {
		s->status = VMB_SKIPPED;
		s->reason = xstrdup(bl->skip);
		r = s->reason ? 0 : -ENOMEM;
	}
	if (r == 0 && !bl->skip)
		r = note(s, "tolerance_bytes", "%llu", (unsigned long long)BALLOON_TOLERANCE);
	for (size_t i = 0; r == 0 && !bl->skip && i < 2; i++) {
		struct vmb_test_result *t = &s->tests[s->ntests];
		double times[2];

		if (!(i ? bl->loaded : bl->idle))
			continue;
		s->ntests++;
		t->name = xstrdup(balloon_suite.tests[i].name);
		if (!t->name) {
			r = -ENOMEM;
		} else if (i) {
			r = loaded(bl, s, t, err, errlen);
			if (r < 0) {
				vmb_results_release(&res);
				return r;
			}
		} else if (cycle(bl, times, why, sizeof(why)) < 0) {
			t->status = VMB_FAILED;
			t->reason = xstrdup(why);
			r = t->reason ? 0 : -ENOMEM;
		} else {
			t->cases = calloc(1, sizeof(*t->cases));
			t->ncases = t->cases ? 1 : 0;
			r = t->cases ? add_times(t->cases, bl->size, times) : -ENOMEM;
		}
	}
	if (r < 0 && res.suites)
		vmb_results_release(&res);
	*suite = r == 0 ? lab_host_suite_end(&res) : NULL;
	return *suite ? 0 : errf(err, errlen, -ENOMEM, "out of memory measuring the balloon");
}
