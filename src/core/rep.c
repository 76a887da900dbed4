/* What a suite reports from one repetition (values, histograms, a failure
 * or a skip with its reason, notes on how it measured), and how a
 * repetition's values join its case. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "macro.h"
#include "rep.h"
#include "str.h"
#include "banned.h"

#define REP_MAX_VALUES 160 /* sched.quota: up to 2 states x (8 groups x 8 + 9) = 146 */
#define REP_MAX_SERIES 8  /* net.tcp_stream: 2 (bidir) */
/* Little's law's slack (docs/methodology.md, "Closed loops"): every suite's
 * window holds each latency it counts whole (sent after the window's start,
 * answered before its end), so no request at a window's edge adds to the
 * product; the 5% is for the clock reads around each latency and window. */
#define REP_LOOP_SLACK 1.05

/* One series of a repetition as reported, before down-sampling; its point
 * arrays are kept and reused by later repetitions. */
struct rep_series {
	char name[48];
	enum vmb_unit unit;
	double *t, *v;
	size_t n, cap;
};

/* One repetition's reported values, before they join the case. */
struct vmb_rep {
	struct {
		char name[48];
		enum vmb_unit unit;
		enum vmb_dir dir;
		double value;
		struct hist *hist; /* points into hists[] for latency values */
	} v[REP_MAX_VALUES];
	/* Owned copies, allocated on first use and reused by later repetitions:
	 * the suite may free its histogram as soon as it has reported it. */
	struct hist *hists[REP_MAX_VALUES];
	size_t n;
	struct rep_series series[REP_MAX_SERIES];
	size_t nseries;
	/* vmb_rep_closed_loop(): what the runner checks when run() returns */
	struct {
		char rate[48], latency[48];
		const char *each; /* "connection", "thread" */
		unsigned in_flight; /* 0: not a closed loop */
	} loop;
	int err; /* the first error of this repetition, a negative errno (as struct cpio keeps it) */
};

struct vmb_rep *rep_new(void)
{
	return calloc(1, sizeof(struct vmb_rep));
}

void rep_reset(struct vmb_rep *rep)
{
	rep->n = 0;
	rep->nseries = 0;
	rep->loop.in_flight = 0;
	rep->err = 0;
}

int rep_error(const struct vmb_rep *rep)
{
	return rep->err;
}

void rep_free(struct vmb_rep *rep)
{
	if (!rep)
		return;
	for (size_t i = 0; i < REP_MAX_VALUES; i++)
		hist_free(rep->hists[i]);
	for (size_t i = 0; i < REP_MAX_SERIES; i++) {
		free(rep->series[i].t);
		free(rep->series[i].v);
	}
	free(rep);
}

/* After the first error nothing more is kept: the runner reads that error
 * when the test's function returns, so a suite reports without checking. */
static void rep_add(struct vmb_rep *rep, const char *metric, enum vmb_unit unit, enum vmb_dir dir,
		    double value, const struct hist *h)
{
	if (rep->err < 0)
		return;
	if (rep->n >= REP_MAX_VALUES || strlen(metric) >= sizeof(rep->v[0].name)) {
		rep->err = -E2BIG;
		return;
	}
	rep->v[rep->n].hist = NULL;
	if (h) {
		if (!rep->hists[rep->n]) {
			rep->hists[rep->n] = hist_new();
			if (!rep->hists[rep->n]) {
				rep->err = -ENOMEM;
				return;
			}
		}
		hist_init(rep->hists[rep->n]);
		hist_merge(rep->hists[rep->n], h);
		rep->v[rep->n].hist = rep->hists[rep->n];
	}
	snprintf(rep->v[rep->n].name, sizeof(rep->v[0].name), "%s", metric);
	rep->v[rep->n].unit = unit;
	rep->v[rep->n].dir = dir;
	rep->v[rep->n].value = value;
	rep->n++;
}

void vmb_rep_value(struct vmb_rep *rep, const char *metric, enum vmb_unit unit, enum vmb_dir dir, double v)
{
	rep_add(rep, metric, unit, dir, v, NULL);
}

void vmb_rep_hist(struct vmb_rep *rep, const char *metric, enum vmb_unit unit, const struct hist *h)
{
	rep_add(rep, metric, unit, VMB_LOWER, hist_mean(h), h);
}

void vmb_rep_point(struct vmb_rep *rep, const char *series, enum vmb_unit unit, double t_s, double v)
{
	struct rep_series *s = NULL;

	if (rep->err < 0)
		return;
	for (size_t i = 0; i < rep->nseries && !s; i++)
		if (!strcmp(rep->series[i].name, series))
			s = &rep->series[i];
	if (!s) {
		if (rep->nseries >= REP_MAX_SERIES || strlen(series) >= sizeof(s->name)) {
			rep->err = -E2BIG;
			return;
		}
		s = &rep->series[rep->nseries++];
		snprintf(s->name, sizeof(s->name), "%s", series);
		s->unit = unit;
		s->n = 0;
	}
	/* a document's series is finite and in time order: a suite's bug otherwise */
	if (!isfinite(t_s) || !isfinite(v) || t_s < 0 || (s->n && t_s <= s->t[s->n - 1])) {
		rep->err = -EDOM;
		return;
	}
	if (s->n == s->cap) {
		size_t nc = s->cap ? s->cap * 2 : 64;
		double *nt = realloc(s->t, nc * sizeof(*nt)), *nv;

		if (nt)
			s->t = nt;
		nv = nt ? realloc(s->v, nc * sizeof(*nv)) : NULL;
		if (!nv) {
			rep->err = -ENOMEM;
			return;
		}
		s->v = nv;
		s->cap = nc;
	}
	s->t[s->n] = t_s;
	s->v[s->n] = v;
	s->n++;
}

void vmb_rep_closed_loop(struct vmb_rep *rep, const char *rate, const char *latency, unsigned in_flight,
			 const char *each)
{
	if (rep->err < 0)
		return;
	if (strlen(rate) >= sizeof(rep->loop.rate) || strlen(latency) >= sizeof(rep->loop.latency) || !in_flight) {
		rep->err = -E2BIG;
		return;
	}
	snprintf(rep->loop.rate, sizeof(rep->loop.rate), "%s", rate);
	snprintf(rep->loop.latency, sizeof(rep->loop.latency), "%s", latency);
	rep->loop.in_flight = in_flight;
	rep->loop.each = each;
}

static const double *rep_find(const struct vmb_rep *rep, const char *name, bool hist)
{
	for (size_t i = 0; i < rep->n; i++)
		if (!strcmp(rep->v[i].name, name) && (!hist || rep->v[i].hist))
			return &rep->v[i].value;
	return NULL;
}

/* A latency in ns as the views print one: "14.1 us". */
static void loop_ns_text(double ns, char *buf, size_t len)
{
	static const struct {
		double div;
		const char *unit;
	} scale[] = { { 1e9, "s" }, { 1e6, "ms" }, { 1e3, "us" }, { 1, "ns" } };
	size_t i = 0;

	while (i + 1 < ARRAY_SIZE(scale) && ns < scale[i].div)
		i++;
	snprintf(buf, len, "%.3g %s", ns / scale[i].div, scale[i].unit);
}

int rep_closed_loop_check(const struct vmb_rep *rep, char *why, size_t len)
{
	const double *rate, *lat;
	double in_flight, allowed;
	char rname[64], ltext[32];
	size_t rl;

	if (!rep->loop.in_flight)
		return 0;
	rate = rep_find(rep, rep->loop.rate, false);
	lat = rep_find(rep, rep->loop.latency, true);
	if (!rate || !lat) {
		snprintf(why, len, "a closed loop of '%s' and '%s', and the test reported %s", rep->loop.rate,
			 rep->loop.latency, rate ? "no such latency" : "no such rate");
		return -EPROTO;
	}
	/* Little's law: completions per s x their mean time in flight is the
	 * mean number in flight, which the loop bounds */
	in_flight = *rate * *lat / 1e9;
	allowed = REP_LOOP_SLACK * rep->loop.in_flight;
	if (!isfinite(in_flight) || in_flight < 0) {
		snprintf(why, len, "%s %g at mean %s %g ns: not a closed loop's figures", rep->loop.rate, *rate,
			 rep->loop.latency, *lat);
		return -ERANGE;
	}
	if (in_flight <= allowed)
		return 0;
	/* "requests_per_s" reads "requests/s"; "tps" as it is */
	rl = strlen(rep->loop.rate);
	if (rl > 6 && !strcmp(rep->loop.rate + rl - 6, "_per_s"))
		snprintf(rname, sizeof(rname), "%.*s/s", (int)(rl - 6), rep->loop.rate);
	else
		snprintf(rname, sizeof(rname), "%s", rep->loop.rate);
	loop_ns_text(*lat, ltext, sizeof(ltext));
	snprintf(why, len,
		 "%.0f %s at mean %s %s is %.2f in flight on %u %s%s: more than a closed loop allows "
		 "(%.2f at most)",
		 *rate, rname, rep->loop.latency, ltext, in_flight, rep->loop.in_flight,
		 rep->loop.each ? rep->loop.each : "request", rep->loop.in_flight == 1 ? "" : "s", allowed);
	return -ERANGE;
}

int vmb_fail(struct vmb_ctx *ctx, int r, const char *fmt, ...)
{
	/* shorter than reason: strerror must still fit behind it */
	char what[200];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	snprintf(ctx->reason, sizeof(ctx->reason), "%s: %s", what, strerror(r < 0 ? -r : r));
	return r < 0 ? r : -r;
}

int vmb_skip(struct vmb_ctx *ctx, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(ctx->reason, sizeof(ctx->reason), fmt, ap);
	va_end(ap);
	return -EOPNOTSUPP;
}

/* key = the formatted value (at most max - 1 bytes) into a list of notes:
 * in place of the key's earlier value when replace, else after it (for
 * actual values, where the last one recorded wins). */
/* The value is kept whole, however long (app.db's URL): a value cut
 * short would be stored, and compared, as another value. */
static int params_vput(struct vmb_param **params, size_t *n, bool replace, const char *key, const char *fmt,
		       va_list ap)
{
	char *value;
	int r;

	if (vasprintf(&value, fmt, ap) < 0)
		return -ENOMEM;
	for (size_t i = 0; replace && i < *n; i++)
		if (!strcmp((*params)[i].key, key)) {
			free((*params)[i].value);
			(*params)[i].value = value;
			return 0;
		}
	r = vmb_params_add(params, n, key, value);
	free(value);
	return r;
}

int vmb_note(struct vmb_ctx *ctx, const char *key, const char *fmt, ...)
{
	struct vmb_notes *nt = ctx->notes;
	va_list ap;
	int r;

	if (!nt)
		return 0;
	va_start(ap, fmt);
	r = params_vput(nt->params, nt->n, true, key, fmt, ap);
	va_end(ap);
	return r;
}

int vmb_usage(struct vmb_ctx *ctx, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(ctx->reason, sizeof(ctx->reason), fmt, ap);
	va_end(ap);
	ctx->usage = true;
	return -EINVAL;
}

int vmb_param_actual(struct vmb_ctx *ctx, const char *key, const char *fmt, ...)
{
	struct vmb_notes *nt = ctx->notes;
	va_list ap;
	int r;

	if (!nt)
		return 0;
	va_start(ap, fmt);
	r = params_vput(&nt->actual, &nt->nactual, false, key, fmt, ap);
	va_end(ap);
	return r;
}

const char *vmb_notes_actual(const struct vmb_notes *nt, const char *key)
{
	/* the last one recorded wins */
	for (size_t i = nt ? nt->nactual : 0; i-- > 0;)
		if (!strcmp(nt->actual[i].key, key))
			return nt->actual[i].value;
	return NULL;
}

bool rep_headline_value(const struct vmb_rep *rep, const char *headline, double *out)
{
	for (size_t i = 0; i < rep->n; i++)
		if (str_in_list(headline, ',', rep->v[i].name) && isfinite(rep->v[i].value)) {
			*out = rep->v[i].value;
			return true;
		}
	return false;
}

/* Percentiles of every latency metric, per repetition, as comparable
 * metrics of their own: "latency.p99" (sysbench reports p95); and the
 * spread of the repetition's latencies, "latency.stddev" (fio's stddev,
 * what Study 0 tabulated as a controller's "latency SD"). */
static const struct {
	const char *suffix;
	double p;
} rep_percentiles[] = {
	{ "p50", 50 }, { "p90", 90 }, { "p95", 95 }, { "p99", 99 }, { "p99.9", 99.9 },
};

static int fold_percentiles(struct vmb_case *c, const char *name, enum vmb_unit unit, const struct hist *h)
{
	if (!h->count)
		return 0;
	for (size_t k = 0; k < sizeof(rep_percentiles) / sizeof(rep_percentiles[0]); k++) {
		char pname[64];
		struct vmb_metric *m;

		snprintf(pname, sizeof(pname), "%s.%s", name, rep_percentiles[k].suffix);
		m = vmb_case_add_metric(c, pname, unit, VMB_LOWER);
		if (!m || vmb_metric_push(m, hist_percentile(h, rep_percentiles[k].p)) < 0)
			return -ENOMEM;
	}
	{
		char pname[64];
		struct vmb_metric *m;

		snprintf(pname, sizeof(pname), "%s.%s", name, REP_STDDEV);
		m = vmb_case_add_metric(c, pname, unit, VMB_LOWER);
		if (!m || vmb_metric_push(m, hist_stddev(h)) < 0)
			return -ENOMEM;
	}
	return 0;
}

/* Fold one repetition into the case. */
int rep_fold(const struct vmb_rep *rep, struct vmb_case *c, const char *headline)
{
	for (size_t i = 0; i < rep->n; i++) {
		struct vmb_metric *m = vmb_case_add_metric(c, rep->v[i].name, rep->v[i].unit, rep->v[i].dir);

		if (!m)
			return -ENOMEM;
		m->headline = str_in_list(headline, ',', m->name);
		if (rep->v[i].hist) {
			if (!m->hist) {
				m->hist = hist_new();
				if (!m->hist)
					return -ENOMEM;
			}
			hist_merge(m->hist, rep->v[i].hist);
		}
		if (vmb_metric_push(m, rep->v[i].value) < 0)
			return -ENOMEM;
		if (rep->v[i].hist && fold_percentiles(c, rep->v[i].name, rep->v[i].unit, rep->v[i].hist) < 0)
			return -ENOMEM;
	}
	/* the repetition being folded is the case's next one */
	for (size_t i = 0; i < rep->nseries; i++) {
		const struct rep_series *s = &rep->series[i];

		if (s->n && vmb_case_add_series(c, s->name, s->unit, c->reps + 1, s->t, s->v, s->n,
						VMB_SERIES_MAX) < 0)
			return -ENOMEM;
	}
	return 0;
}
