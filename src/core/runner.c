/* The runner: repetitions, stop rule, sweeps, threads, progress.
 *
 * Stop rule: after an uncounted warm-up, repeat until the Student-t 95%
 * confidence interval of the headline metric is within precision_pct of its
 * mean, with at least min_reps and at most max_reps repetitions; between
 * min_reps and max_reps, stop early when the next repetition would exceed
 * the case's time budget. Whether the precision was reached is recorded. */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "clock.h"
#include "log.h"
#include "runner.h"
#include "util.h"
#include "banned.h"

#define REP_MAX_VALUES 32

static volatile sig_atomic_t stop_flag;

bool vmb_stop_requested(void)
{
	return stop_flag != 0;
}

void vmb_request_stop(void)
{
	stop_flag = 1;
}

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
	bool overflow;
};

static void rep_free(struct vmb_rep *rep)
{
	if (!rep)
		return;
	for (size_t i = 0; i < REP_MAX_VALUES; i++)
		hist_free(rep->hists[i]);
	free(rep);
}

static int rep_add(struct vmb_rep *rep, const char *metric, enum vmb_unit unit, enum vmb_dir dir,
		   double value, const struct hist *h)
{
	if (rep->n >= REP_MAX_VALUES || strlen(metric) >= sizeof(rep->v[0].name)) {
		rep->overflow = true;
		return -E2BIG;
	}
	rep->v[rep->n].hist = NULL;
	if (h) {
		if (!rep->hists[rep->n]) {
			rep->hists[rep->n] = hist_new();
			if (!rep->hists[rep->n])
				return -ENOMEM;
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
	return 0;
}

int vmb_rep_value(struct vmb_rep *rep, const char *metric, enum vmb_unit unit, enum vmb_dir dir, double v)
{
	return rep_add(rep, metric, unit, dir, v, NULL);
}

int vmb_rep_hist(struct vmb_rep *rep, const char *metric, enum vmb_unit unit, const struct hist *h)
{
	return rep_add(rep, metric, unit, VMB_LOWER, hist_mean(h), h);
}

int vmb_fail(struct vmb_ctx *ctx, int r, const char *fmt, ...)
{
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

struct notes {
	struct vmb_param **params;
	size_t *n;
	struct vmb_param *actual; /* vmb_param_actual(): run_suite's own */
	size_t nactual;
};

int vmb_note(struct vmb_ctx *ctx, const char *key, const char *fmt, ...)
{
	struct notes *nt = ctx->notes;
	char value[512];
	va_list ap;

	if (!nt)
		return 0;
	va_start(ap, fmt);
	vsnprintf(value, sizeof(value), fmt, ap);
	va_end(ap);
	for (size_t i = 0; i < *nt->n; i++)
		if (!strcmp((*nt->params)[i].key, key)) {
			char *v = xstrdup(value);

			if (!v)
				return -ENOMEM;
			free((*nt->params)[i].value);
			(*nt->params)[i].value = v;
			return 0;
		}
	return vmb_params_add(nt->params, nt->n, key, value);
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
	struct notes *nt = ctx->notes;
	char value[64];
	va_list ap;

	if (!nt)
		return 0;
	va_start(ap, fmt);
	vsnprintf(value, sizeof(value), fmt, ap);
	va_end(ap);
	return vmb_params_add(&nt->actual, &nt->nactual, key, value);
}

static const char *param_actual(const struct notes *nt, const char *key)
{
	/* the last one recorded wins */
	for (size_t i = nt ? nt->nactual : 0; i-- > 0;)
		if (!strcmp(nt->actual[i].key, key))
			return nt->actual[i].value;
	return NULL;
}

/* ---- temporary files ---- */

#define TEMPFILES_MAX 16
static char tempfiles[TEMPFILES_MAX][4096];

int vmb_tempfile_add(const char *path)
{
	for (size_t i = 0; i < TEMPFILES_MAX; i++)
		if (!tempfiles[i][0]) {
			if (strlen(path) >= sizeof(tempfiles[i]))
				return -ENAMETOOLONG;
			snprintf(tempfiles[i], sizeof(tempfiles[i]), "%s", path);
			return 0;
		}
	return -ENOSPC;
}

int vmb_tempfile_unlink(const char *path)
{
	int r = unlink(path) < 0 && errno != ENOENT ? -errno : 0;

	for (size_t i = 0; i < TEMPFILES_MAX; i++)
		if (!strcmp(tempfiles[i], path))
			tempfiles[i][0] = '\0';
	return r;
}

void vmb_tempfiles_unlink_all(void)
{
	for (size_t i = 0; i < TEMPFILES_MAX; i++)
		if (tempfiles[i][0])
			(void)unlink(tempfiles[i]);
}

/* ---- workers ---- */

/* A start gate: workers wait until every thread exists, then start together;
 * if one could not be created, the gate opens with an error instead. */
struct parallel {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int gate; /* 0 closed, 1 go, <0 abort */
	pthread_barrier_t ready; /* vmb_worker_sync(): per-thread set-up done */
	void (*fn)(struct vmb_worker *);
};

void vmb_worker_sync(struct vmb_worker *w)
{
	(void)pthread_barrier_wait((pthread_barrier_t *)w->ready);
}

struct worker_arg {
	struct parallel *p;
	struct vmb_worker *w;
};

static void *worker_main(void *opaque)
{
	struct worker_arg *wa = opaque;
	struct vmb_worker *w = wa->w;
	const struct vmb_ctx *ctx = w->ctx;
	int gate;

	if (ctx->cpus && ctx->ncpus) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(ctx->cpus[w->id % ctx->ncpus], &set);
		if (pthread_setaffinity_np(pthread_self(), sizeof(set), &set) != 0)
			w->err = -EINVAL;
	}
	pthread_mutex_lock(&wa->p->lock);
	while ((gate = wa->p->gate) == 0)
		pthread_cond_wait(&wa->p->cond, &wa->p->lock);
	pthread_mutex_unlock(&wa->p->lock);
	if (gate > 0 && w->err == 0)
		wa->p->fn(w);
	return NULL;
}

int vmb_parallel(const struct vmb_ctx *ctx, unsigned n, void (*fn)(struct vmb_worker *),
		 struct vmb_worker *workers)
{
	struct parallel p = {
		.lock = PTHREAD_MUTEX_INITIALIZER, .cond = PTHREAD_COND_INITIALIZER, .fn = fn,
	};
	struct worker_arg *args;
	pthread_t *tids;
	unsigned started = 0;
	int r = 0;

	if (n == 0)
		return -EINVAL;
	args = calloc(n, sizeof(*args));
	tids = calloc(n, sizeof(*tids));
	if (!args || !tids) {
		r = -ENOMEM;
		goto out;
	}
	/* Every worker exists before the gate opens, so n is the right count. */
	if (pthread_barrier_init(&p.ready, NULL, n) != 0) {
		r = -ENOMEM;
		goto out;
	}
	for (unsigned i = 0; i < n; i++) {
		workers[i].id = i;
		workers[i].ctx = ctx;
		workers[i].err = 0;
		workers[i].ready = &p.ready;
		args[i].p = &p;
		args[i].w = &workers[i];
		r = -pthread_create(&tids[i], NULL, worker_main, &args[i]);
		if (r < 0)
			break;
		started++;
	}
	pthread_mutex_lock(&p.lock);
	p.gate = r < 0 ? r : 1;
	pthread_cond_broadcast(&p.cond);
	pthread_mutex_unlock(&p.lock);
	for (unsigned i = 0; i < started; i++)
		(void)pthread_join(tids[i], NULL);
	(void)pthread_barrier_destroy(&p.ready);
	for (unsigned i = 0; r == 0 && i < n; i++)
		if (workers[i].err < 0)
			r = workers[i].err;
out:
	free(args);
	free(tids);
	return r;
}

/* ---- descriptors ---- */

static const char *const unit_names[] = {
	[VMB_UNIT_NONE] = "", [VMB_UNIT_PER_S] = "1/s", [VMB_UNIT_NS] = "ns",
	[VMB_UNIT_MB_PER_S] = "MB/s", [VMB_UNIT_GFLOPS] = "GFLOP/s", [VMB_UNIT_RATIO] = "ratio",
	[VMB_UNIT_PCT] = "%", [VMB_UNIT_S] = "s", [VMB_UNIT_BYTES] = "B", [VMB_UNIT_MBIT_PER_S] = "Mbit/s",
};

const char *vmb_unit_name(enum vmb_unit u)
{
	return (unsigned)u < ARRAY_SIZE(unit_names) ? unit_names[u] : "?";
}

int vmb_unit_parse(const char *s, enum vmb_unit *out)
{
	for (size_t i = 0; i < ARRAY_SIZE(unit_names); i++)
		if (!strcmp(s, unit_names[i])) {
			*out = (enum vmb_unit)i;
			return 0;
		}
	return -EINVAL;
}

int vmb_suite_check(const struct vmb_suite *s, const char **why)
{
	size_t n = 0;

	if (s->abi != VMB_SUITE_ABI)
		*why = "interface version does not match VMB_SUITE_ABI";
	else if (!s->name || !*s->name || strchr(s->name, '.'))
		*why = "name missing or contains '.'";
	else if (!s->summary)
		*why = "summary missing";
	else if (!s->run)
		*why = "run() missing";
	else if (!s->tests || !s->tests[0].name)
		*why = "no tests";
	else
		*why = NULL;
	for (; !*why && s->tests[n].name; n++) {
		const struct vmb_test *t = &s->tests[n];

		if (!t->headline || !t->summary)
			*why = "a test lacks its headline metric or summary";
		for (const char *p = t->params; p && *p && !*why;) {
			const char *comma = strchr(p, ',');
			size_t l = comma ? (size_t)(comma - p) : strlen(p);
			bool found = false;

			for (size_t i = 0; s->opts && s->opts[i].name; i++)
				found |= strlen(s->opts[i].name) == l && !strncmp(s->opts[i].name, p, l);
			if (!found)
				*why = "a test's params name an option the suite does not have";
			p = comma ? comma + 1 : NULL;
		}
		if (t->sweep) {
			bool found = false;

			for (size_t i = 0; s->opts && s->opts[i].name; i++)
				if (!strcmp(s->opts[i].name, t->sweep) && s->opts[i].type == OPT_LIST)
					found = true;
			if (!found)
				*why = "a test's sweep does not name a list option of the suite";
		}
	}
	if (!*why && n > 64)
		*why = "more than 64 tests";
	return *why ? -EINVAL : 0;
}

const char *vmb_status_name(enum vmb_status s)
{
	static const char *const names[] = { "ok", "skipped", "failed", "interrupted" };

	return (unsigned)s < ARRAY_SIZE(names) ? names[s] : "?";
}

/* ---- results ---- */

int vmb_params_add(struct vmb_param **params, size_t *n, const char *key, const char *value)
{
	struct vmb_param *np = realloc(*params, (*n + 1) * sizeof(*np));

	if (!np)
		return -ENOMEM;
	*params = np;
	np[*n].key = xstrdup(key);
	np[*n].value = xstrdup(value);
	if (!np[*n].key || !np[*n].value) {
		free(np[*n].key);
		free(np[*n].value);
		return -ENOMEM;
	}
	(*n)++;
	return 0;
}

static void params_free(struct vmb_param *p, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(p[i].key);
		free(p[i].value);
	}
	free(p);
}

struct vmb_metric *vmb_case_add_metric(struct vmb_case *c, const char *name, enum vmb_unit unit,
				       enum vmb_dir dir)
{
	struct vmb_metric *nm;

	for (size_t i = 0; i < c->nmetrics; i++)
		if (!strcmp(c->metrics[i].name, name))
			return &c->metrics[i];
	nm = realloc(c->metrics, (c->nmetrics + 1) * sizeof(*nm));
	if (!nm)
		return NULL;
	c->metrics = nm;
	nm = &c->metrics[c->nmetrics];
	memset(nm, 0, sizeof(*nm));
	nm->name = xstrdup(name);
	if (!nm->name)
		return NULL;
	nm->unit = unit;
	nm->dir = dir;
	c->nmetrics++;
	return nm;
}

int vmb_metric_push(struct vmb_metric *m, double v)
{
	if (m->n == m->cap) {
		size_t nc = m->cap ? m->cap * 2 : 8;
		double *ns = realloc(m->samples, nc * sizeof(*ns));

		if (!ns)
			return -ENOMEM;
		m->samples = ns;
		m->cap = nc;
	}
	m->samples[m->n++] = v;
	return 0;
}

static void case_release(struct vmb_case *c)
{
	params_free(c->params, c->nparams);
	for (size_t i = 0; i < c->nmetrics; i++) {
		free(c->metrics[i].name);
		free(c->metrics[i].samples);
		hist_free(c->metrics[i].hist);
	}
	free(c->metrics);
}

void vmb_results_release(struct vmb_results *res)
{
	for (size_t s = 0; s < res->nsuites; s++) {
		struct vmb_suite_result *sr = &res->suites[s];

		for (size_t t = 0; t < sr->ntests; t++) {
			struct vmb_test_result *tr = &sr->tests[t];

			for (size_t c = 0; c < tr->ncases; c++)
				case_release(&tr->cases[c]);
			free(tr->cases);
			free(tr->name);
			free(tr->reason);
		}
		free(sr->tests);
		params_free(sr->options, sr->noptions);
		params_free(sr->notes, sr->nnotes);
		free(sr->name);
		free(sr->reason);
	}
	free(res->suites);
	res->suites = NULL;
	res->nsuites = 0;
}

/* Fold one repetition into the case. */
static int case_take_rep(struct vmb_case *c, const struct vmb_rep *rep, const char *headline)
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
	}
	return 0;
}

static const struct vmb_metric *case_metric(const struct vmb_case *c, const char *name)
{
	for (size_t i = 0; i < c->nmetrics; i++)
		if (!strcmp(c->metrics[i].name, name))
			return &c->metrics[i];
	return NULL;
}

/* ---- progress ---- */

static void progress(const struct runner_settings *rs, const char *suite, const char *test,
		     const struct vmb_case *c, unsigned rep, double elapsed, double expected)
{
	char params[128] = "";
	size_t off = 0;

	if (!rs->progress)
		return;
	for (size_t i = 0; i < c->nparams && off < sizeof(params); i++)
		off += (size_t)snprintf(params + off, sizeof(params) - off, " %s=%s", c->params[i].key,
					c->params[i].value);
	if (rep == 0)
		fprintf(stderr, "\r\033[K%s.%s%s  warm-up", suite, test, params);
	else
		fprintf(stderr, "\r\033[K%s.%s%s  repetition %u (of %u at most)  %.1f s / ~%.0f s", suite,
			test, params, rep, rs->max_reps, elapsed, expected);
	fflush(stderr);
}

static void progress_clear(const struct runner_settings *rs)
{
	if (rs->progress) {
		fputs("\r\033[K", stderr);
		fflush(stderr);
	}
}

/* ---- the measurement loop ---- */

/* Run repetitions of one case. Returns 0, -EINTR, or the suite's error. */
static int run_case(const struct runner_settings *rs, struct vmb_ctx *ctx, const struct vmb_test *t,
		    struct vmb_case *c)
{
	double t0 = clock_s(), expected;
	struct vmb_rep *rep;
	int r = 0;

	rep = calloc(1, sizeof(*rep));
	if (!rep)
		return -ENOMEM;
	expected = rs->warmup_s + rs->time_s * rs->min_reps;

	if (rs->warmup_s > 0) {
		progress(rs, ctx->suite->name, t->name, c, 0, 0, expected);
		ctx->duration_s = rs->warmup_s;
		r = ctx->suite->run(ctx, t, rep);
		if (r < 0)
			goto out;
	}
	ctx->duration_s = rs->time_s;
	for (unsigned i = 1; i <= rs->max_reps; i++) {
		const struct vmb_metric *h;
		double elapsed, per_rep;
		size_t nhead;

		if (vmb_stop_requested()) {
			r = -EINTR;
			goto out;
		}
		progress(rs, ctx->suite->name, t->name, c, i, clock_s() - t0, expected);
		vmb_test_stop_point("repetition");
		rep->n = 0;
		r = ctx->suite->run(ctx, t, rep);
		if (r < 0)
			goto out;
		if (vmb_stop_requested()) {
			/* A repetition cut short by Ctrl-C is not a sample. */
			r = -EINTR;
			goto out;
		}
		if (rep->overflow) {
			r = vmb_fail(ctx, -E2BIG, "suite reported too many values or too long a name");
			goto out;
		}
		r = case_take_rep(c, rep, t->headline);
		if (r < 0)
			goto out;
		c->reps = i;

		/* The widest interval of all headline metrics decides. */
		c->ci_rel_pct = 0;
		nhead = 0;
		for (size_t k = 0; k < c->nmetrics; k++) {
			struct stats_summary s;
			double rel;

			h = &c->metrics[k];
			if (!h->headline)
				continue;
			nhead++;
			stats_summarize(h->samples, h->n, &s);
			rel = stats_ci_rel_pct(&s);
			if (!(rel <= c->ci_rel_pct))
				c->ci_rel_pct = rel;
		}
		if (nhead == 0) {
			snprintf(ctx->reason, sizeof(ctx->reason), "headline metric '%s' was not reported",
				 t->headline);
			r = -EPROTO;
			goto out;
		}
		c->precision_reached = c->ci_rel_pct <= rs->precision_pct;
		if (i < rs->min_reps)
			continue;
		if (c->precision_reached)
			break;
		elapsed = clock_s() - t0;
		per_rep = (elapsed - rs->warmup_s) / i;
		expected = elapsed + per_rep * (rs->max_reps - i);
		if (elapsed + per_rep > rs->budget_s)
			break;
	}
out:
	c->elapsed_s = clock_s() - t0;
	for (size_t i = 0; i < c->nmetrics; i++)
		stats_summarize(c->metrics[i].samples, c->metrics[i].n, &c->metrics[i].sum);
	rep_free(rep);
	return r;
}

static const char *case_param(const struct vmb_case *c, const char *key)
{
	for (size_t i = 0; i < c->nparams; i++)
		if (!strcmp(c->params[i].key, key))
			return c->params[i].value;
	return "";
}

/* parallel efficiency = rate(N) / (N * rate(1)), one sample per repetition at N. */
static int add_efficiency(struct vmb_test_result *tr, const char *headline)
{
	const struct vmb_metric *base = NULL;

	for (size_t i = 0; i < tr->ncases; i++)
		if (!strcmp(case_param(&tr->cases[i], "threads"), "1"))
			base = case_metric(&tr->cases[i], headline);
	if (!base || base->sum.mean <= 0)
		return 0;
	for (size_t i = 0; i < tr->ncases; i++) {
		struct vmb_case *c = &tr->cases[i];
		const struct vmb_metric *h = case_metric(c, headline);
		struct vmb_metric *e;
		int64_t n;
		size_t samples;

		if (!h || parse_i64(case_param(c, "threads"), 2, 1 << 20, &n) < 0)
			continue;
		samples = h->n;
		e = vmb_case_add_metric(c, "parallel_efficiency", VMB_UNIT_RATIO, VMB_HIGHER);
		if (!e)
			return -ENOMEM;
		/* h may have moved: the array was reallocated. */
		h = case_metric(c, headline);
		for (size_t k = 0; k < samples; k++)
			if (vmb_metric_push(e, h->samples[k] / ((double)n * base->sum.mean)) < 0)
				return -ENOMEM;
		stats_summarize(e->samples, e->n, &e->sum);
	}
	return 0;
}

/* Cases of a test: threads x sweep values. */
static int test_cases(const struct runner_settings *rs, const struct optset *opts, const struct vmb_test *t,
		      unsigned **threads, size_t *nthreads, const unsigned **sweep, size_t *nsweep)
{
	static const unsigned one = 1;

	*sweep = &one;
	*nsweep = 1;
	if (t->sweep) {
		const struct opt_value *v = optset_get(opts, t->sweep);

		*sweep = v->list;
		*nsweep = v->nlist;
	}
	if (!(t->flags & VMB_TEST_THREADED)) {
		*threads = malloc(sizeof(**threads));
		if (!*threads)
			return -ENOMEM;
		(*threads)[0] = 1;
		*nthreads = 1;
		return 0;
	}
	/* The rate at one thread is always measured: efficiency needs it. */
	*threads = malloc((rs->nthreads + 1) * sizeof(**threads));
	if (!*threads)
		return -ENOMEM;
	(*threads)[0] = 1;
	*nthreads = 1;
	for (size_t i = 0; i < rs->nthreads; i++)
		if (rs->threads[i] != 1)
			(*threads)[(*nthreads)++] = rs->threads[i];
	return 0;
}

/* An option's effective value as text, as recorded in documents. */
static const char *opt_value_text(const struct vmb_opt *o, const struct opt_value *v, char *buf, size_t len)
{
	switch (o->type) {
	case OPT_BOOL:
		return v->b ? "true" : "false";
	case OPT_INT:
		snprintf(buf, len, "%lld", (long long)v->i);
		return buf;
	case OPT_DOUBLE:
		snprintf(buf, len, "%.17g", v->d);
		return buf;
	case OPT_SIZE:
		snprintf(buf, len, "%llu", (unsigned long long)v->u);
		return buf;
	default:
		return v->s ? v->s : "";
	}
}

/* Options that change what is measured become the case's parameters. */
static int case_params(struct vmb_case *c, const struct optset *opts, const struct notes *nt,
		       const struct vmb_test *t, unsigned threads, unsigned sweep)
{
	char buf[64];

	if (t->flags & VMB_TEST_THREADED) {
		snprintf(buf, sizeof(buf), "%u", threads);
		if (vmb_params_add(&c->params, &c->nparams, "threads", buf) < 0)
			return -ENOMEM;
	}
	if (t->sweep) {
		snprintf(buf, sizeof(buf), "%u", sweep);
		if (vmb_params_add(&c->params, &c->nparams, t->sweep, buf) < 0)
			return -ENOMEM;
	}
	/* then the options this test declares as its parameters */
	for (const char *p = t->params; p && *p;) {
		const char *comma = strchr(p, ',');
		char name[48];

		snprintf(name, sizeof(name), "%.*s", comma ? (int)(comma - p) : (int)strlen(p), p);
		for (size_t i = 0; i < opts->n; i++)
			if (!strcmp(opts->opts[i].name, name) && opts->vals[i].present &&
			    !(t->sweep && !strcmp(t->sweep, name)) && /* already there, as one value */
			    vmb_params_add(&c->params, &c->nparams, name,
					   param_actual(nt, name) ? param_actual(nt, name)
								  : opt_value_text(&opts->opts[i], &opts->vals[i],
										   buf, sizeof(buf))) < 0)
				return -ENOMEM;
		p = comma ? comma + 1 : NULL;
	}
	return 0;
}

static int run_test(const struct runner_settings *rs, struct vmb_ctx *ctx, const struct vmb_test *t,
		    struct vmb_test_result *tr)
{
	unsigned *threads = NULL;
	const unsigned *sweep;
	size_t nthreads, nsweep;
	int r;

	r = test_cases(rs, ctx->opts, t, &threads, &nthreads, &sweep, &nsweep);
	if (r < 0)
		return r;
	tr->cases = calloc(nthreads * nsweep, sizeof(*tr->cases));
	if (!tr->cases) {
		free(threads);
		return -ENOMEM;
	}
	for (size_t i = 0; i < nthreads && r == 0; i++)
		for (size_t j = 0; j < nsweep && r == 0; j++) {
			struct vmb_case *c = &tr->cases[tr->ncases++];

			r = case_params(c, ctx->opts, ctx->notes, t, threads[i], sweep[j]);
			if (r < 0)
				break;
			ctx->threads = threads[i];
			ctx->sweep = sweep[j];
			ctx->reason[0] = '\0';
			r = run_case(rs, ctx, t, c);
			progress_clear(rs);
			if (r < 0 && c->reps == 0)
				tr->ncases--, case_release(c), memset(c, 0, sizeof(*c));
		}
	free(threads);
	if (r == 0 && (t->flags & VMB_TEST_THREADED)) {
		char first[64];

		snprintf(first, sizeof(first), "%.*s", (int)strcspn(t->headline, ","), t->headline);
		r = add_efficiency(tr, first);
	}
	return r;
}

static int suite_options(struct vmb_suite_result *sr, const struct optset *opts)
{
	for (size_t i = 0; i < opts->n; i++) {
		char buf[64];

		if (opts->vals[i].present &&
		    vmb_params_add(&sr->options, &sr->noptions, opts->opts[i].name,
				   opt_value_text(&opts->opts[i], &opts->vals[i], buf, sizeof(buf))) < 0)
			return -ENOMEM;
	}
	return 0;
}

static enum vmb_status status_of(int r)
{
	if (r == -EOPNOTSUPP)
		return VMB_SKIPPED;
	if (r == -EINTR)
		return VMB_INTERRUPTED;
	return r < 0 ? VMB_FAILED : VMB_OK;
}

static int run_suite(const struct runner_settings *rs, const struct runner_item *it,
		     struct vmb_suite_result *sr)
{
	const struct vmb_suite *s = it->suite;
	struct vmb_env env = { .ncpus = cpus_available(), .quick = rs->quick, .destructive = rs->destructive };
	struct notes notes = { .params = &sr->notes, .n = &sr->nnotes };
	struct vmb_ctx ctx = {
		.suite = s, .opts = it->opts, .env = &env, .threads = 1,
		.cpus = rs->cpus, .ncpus = rs->ncpus, .notes = &notes,
	};
	const char *why = NULL;
	size_t ntests = 0;
	int r;

	sr->name = xstrdup(s->name);
	if (!sr->name || suite_options(sr, it->opts) < 0)
		return -ENOMEM;
	if (s->supported && !s->supported(&env, &why)) {
		sr->status = VMB_SKIPPED;
		sr->reason = xstrdup(why ? why : "not supported here");
		log_info("%s: skipped: %s", s->name, sr->reason);
		return 0;
	}
	while (s->tests[ntests].name)
		ntests++;
	sr->tests = calloc(ntests, sizeof(*sr->tests));
	if (!sr->tests)
		return -ENOMEM;

	r = s->setup ? s->setup(&ctx) : 0;
	if (r < 0) {
		sr->status = status_of(r);
		sr->reason = xstrdup(ctx.reason[0] ? ctx.reason : strerror(-r));
		if (ctx.usage)
			log_error("%s: %s", s->name, sr->reason);
		else if (sr->status == VMB_FAILED)
			log_error("%s: setup failed: %s", s->name, sr->reason);
		else if (sr->status == VMB_SKIPPED)
			log_info("%s: skipped: %s", s->name, sr->reason);
		goto teardown;
	}
	for (size_t i = 0; i < ntests; i++) {
		const struct vmb_test *t = &s->tests[i];
		struct vmb_test_result *tr;

		if (!(it->test_mask & (1ull << i)))
			continue;
		tr = &sr->tests[sr->ntests++];
		tr->name = xstrdup(t->name);
		if (!tr->name) {
			r = -ENOMEM;
			break;
		}
		r = run_test(rs, &ctx, t, tr);
		tr->status = status_of(r);
		if (r < 0 && r != -EINTR && r != -ENOMEM) {
			tr->reason = xstrdup(ctx.reason[0] ? ctx.reason : strerror(-r));
			if (tr->status == VMB_FAILED)
				log_error("%s.%s: %s", s->name, t->name, tr->reason);
			else
				log_info("%s.%s: skipped: %s", s->name, t->name, tr->reason);
			if (!ctx.usage)
				r = 0; /* one test failing does not stop the others */
		}
		if (r < 0)
			break;
	}
	sr->status = r == -EINTR ? VMB_INTERRUPTED : VMB_OK;
teardown:
	if (s->teardown)
		s->teardown(&ctx);
	params_free(notes.actual, notes.nactual);
	/* a usage error ends the run: -EINVAL, exit 2 */
	return r == -EINTR || r == -ENOMEM || (r < 0 && ctx.usage) ? r : 0;
}

int runner_run(const struct runner_settings *rs, const struct runner_item *items, size_t nitems,
	       struct vmb_results *out)
{
	int r = 0;

	memset(out, 0, sizeof(*out));
	out->suites = calloc(nitems ? nitems : 1, sizeof(*out->suites));
	if (!out->suites)
		return -ENOMEM;
	for (size_t i = 0; i < nitems && r == 0; i++) {
		r = run_suite(rs, &items[i], &out->suites[out->nsuites++]);
		if (r == 0 && vmb_stop_requested())
			r = -EINTR;
	}
	return r;
}
