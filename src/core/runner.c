/* The runner: repetitions, stop rule, sweeps, threads, progress.
 *
 * Stop rule: after an uncounted warm-up, repeat until the Student-t 95%
 * confidence interval of the headline metric is within precision_pct of its
 * mean, with at least min_reps and at most max_reps repetitions; between
 * min_reps and max_reps, stop early when the next repetition would exceed
 * the case's time budget. Whether the precision was reached is recorded. */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "log.h"
#include "parse.h"
#include "rep.h"
#include "runner.h"
#include "stoppoint.h"
#include "str.h"
#include "sys.h"
#include "banned.h"

/* Progress over the whole run: which case of how many, and the time left.
 * Before a case has finished, a case is expected to take its warm-up and
 * min_reps repetitions; after, as long as the finished ones took on
 * average (suites spend time outside --time: ramps, set-up). */
struct run_progress {
	size_t done, total; /* cases begun before this one; cases planned */
	double done_s;      /* time those took */
	double nominal_s;   /* warm-up + min_reps x time */
};

static void progress(const struct runner_settings *rs, const struct run_progress *pg, const char *suite,
		     const char *test, const struct vmb_case *c, unsigned rep, double elapsed)
{
	FILE *f = rs->progress_file ? rs->progress_file : stderr;
	char params[128] = "", left[32], step[64];
	double per_case = pg->done ? pg->done_s / (double)pg->done : pg->nominal_s;
	double rest = per_case - elapsed;
	size_t off = 0, ncase = pg->total > pg->done ? pg->total : pg->done + 1;

	if (!rs->progress && !rs->progress_lines)
		return;
	for (size_t i = 0; i < c->nparams && off < sizeof(params); i++)
		str_appendf(params, sizeof(params), &off, " %s=%s", c->params[i].key, c->params[i].value);
	rest = (rest > 0 ? rest : 0) + per_case * (double)(pg->total > pg->done + 1 ? pg->total - pg->done - 1 : 0);
	if (rep == 0)
		snprintf(step, sizeof(step), "warm-up");
	else
		snprintf(step, sizeof(step), "repetition %u (of %u at most)", rep, rs->max_reps);
	if (rs->progress_lines) {
		/* the same step for a program: the lab's agent sends it to the host */
		fprintf(rs->progress_lines, "%zu/%zu %.0f %s.%s%s %s\n", pg->done + 1, ncase, rest, suite, test, params,
			step);
		fflush(rs->progress_lines);
	}
	if (!rs->progress)
		return;
	str_time_left(rest, left, sizeof(left));
	fprintf(f, "\r\033[K[case %zu/%zu, %s] %s.%s%s  %s", pg->done + 1, ncase, left, suite, test, params, step);
	fflush(f);
}

static void progress_clear(const struct runner_settings *rs)
{
	FILE *f = rs->progress_file ? rs->progress_file : stderr;

	if (rs->progress) {
		fputs("\r\033[K", f);
		fflush(f);
	}
}

/* The error a repetition kept while the test reported (vmb_rep_*), said;
 * and a repetition whose figures are impossible, refused with them. */
static int rep_check(struct vmb_ctx *ctx, const struct vmb_rep *rep)
{
	int r = rep_error(rep);

	if (r == -E2BIG)
		return vmb_fail(ctx, r, "suite reported too many values or series, or too long a name");
	if (r == -EDOM)
		return vmb_fail(ctx, r, "suite reported a series point out of time order or not finite");
	if (r < 0)
		return vmb_fail(ctx, r, "keeping the values the test reported");
	/* figures no closed loop can produce: one of them is not what happened */
	return rep_closed_loop_check(rep, ctx->reason, sizeof(ctx->reason));
}

/* A warm-up ends when the headline is steady: the least-squares line
 * through the last WARMUP_WINDOW slices changes by at most WARMUP_SLOPE_PCT
 * of their mean over them (fio's steadystate=iops_slope judges the same
 * slope), or when --warmup-max runs out. */
#define WARMUP_WINDOW 3
#define WARMUP_SLOPE_PCT 5.0

static bool steady(const double *y, size_t n)
{
	double mean = 0, sxy = 0, sxx = 0;

	for (size_t i = 0; i < n; i++)
		mean += y[i] / (double)n;
	for (size_t i = 0; i < n; i++) {
		double x = (double)i - (double)(n - 1) / 2;

		sxy += x * (y[i] - mean);
		sxx += x * x;
	}
	/* the fitted line's change over the window, against the mean */
	return mean != 0 && fabs(sxy / sxx * (double)(n - 1)) <= WARMUP_SLOPE_PCT / 100 * fabs(mean);
}

/* Whether the warm-up is judged for steadiness: only when --warmup-max
 * leaves room beyond --warmup (not in --quick), since each slice costs a
 * repetition's ramp (disk.ramp) again. */
static bool warmup_judged(const struct runner_settings *rs)
{
	return rs->warmup_s > 0 && rs->warmup_max_s > rs->warmup_s;
}

/* The uncounted warm-up. Judged: slices of --warmup / 3, at least the
 * three of --warmup, then more while the headline is not steady and
 * --warmup-max allows; else one slice of --warmup. Its length and whether
 * it ended steady go into the case. */
static int warm_up(const struct runner_settings *rs, struct vmb_ctx *ctx, const struct vmb_test *t,
		   struct vmb_rep *rep, struct vmb_case *c)
{
	double t0 = clock_s(), slice = rs->warmup_s / WARMUP_WINDOW, y[WARMUP_WINDOW];
	size_t n = 0;
	bool judged = true;
	int r = 0;

	if (!warmup_judged(rs)) {
		ctx->duration_s = rs->warmup_s;
		r = t->run(ctx, t, rep);
		if (r == 0)
			r = rep_check(ctx, rep);
		c->warmup_s = clock_s() - t0;
		return r;
	}
	ctx->duration_s = slice;
	for (unsigned k = 0;; k++) {
		double v;

		rep_reset(rep);
		r = t->run(ctx, t, rep);
		if (r == 0)
			r = rep_check(ctx, rep);
		if (r < 0 || vmb_stop_requested())
			break;
		if (!rep_headline_value(rep, t->headline, &v))
			judged = false; /* a test whose headline comes at the end only */
		else {
			memmove(y, y + (n == WARMUP_WINDOW), (n - (n == WARMUP_WINDOW)) * sizeof(*y));
			n -= n == WARMUP_WINDOW;
			y[n++] = v;
		}
		if (k + 1 < WARMUP_WINDOW)
			continue;
		if (judged && n == WARMUP_WINDOW && steady(y, n)) {
			c->warmup_steady = 1;
			break;
		}
		if (!judged || clock_s() - t0 + slice > rs->warmup_max_s) {
			c->warmup_steady = judged ? 0 : -1;
			break;
		}
	}
	c->warmup_s = clock_s() - t0;
	return r;
}

/* Run repetitions of one case. Returns 0, -EINTR, or the suite's error. */
static int run_case(const struct runner_settings *rs, struct run_progress *pg, struct vmb_ctx *ctx,
		    const struct vmb_test *t, struct vmb_case *c)
{
	double t0 = clock_s();
	struct vmb_rep *rep;
	int r = 0;

	if (vmb_stop_requested())
		return -EINTR; /* not even the warm-up */
	rep = rep_new();
	if (!rep)
		return -ENOMEM;
	c->warmup_steady = -1;
	if (rs->warmup_s > 0) {
		progress(rs, pg, ctx->suite->name, t->name, c, 0, 0);
		r = warm_up(rs, ctx, t, rep, c);
		if (r < 0)
			goto out;
	}
	ctx->duration_s = rs->time_s;
	for (unsigned i = 1; i <= rs->max_reps; i++) {
		const struct vmb_metric *h;
		double elapsed, per_rep, start_epoch;
		struct noise_snap ns;
		struct noise_reading nrd;
		size_t nhead;

		if (vmb_stop_requested()) {
			r = -EINTR;
			goto out;
		}
		progress(rs, pg, ctx->suite->name, t->name, c, i, clock_s() - t0);
		vmb_test_stop_point("repetition");
		rep_reset(rep);
		start_epoch = wall_time_s();
		noise_begin(&ns, rs->cpus, rs->ncpus);
		r = t->run(ctx, t, rep);
		if (r < 0)
			goto out;
		/* the sensors' window is the repetition's, not the folding after it */
		noise_end(&ns, rs->cpus, rs->ncpus, start_epoch, &nrd);
		if (vmb_stop_requested()) {
			/* A repetition cut short by Ctrl-C is not a sample. */
			r = -EINTR;
			goto out;
		}
		r = rep_check(ctx, rep);
		if (r < 0)
			goto out;
		r = rep_fold(rep, c, t->headline);
		if (r < 0)
			goto out;
		c->reps = i;
		{
			struct noise_reading *nr = realloc(c->noise, (c->nnoise + 1) * sizeof(*nr));

			if (!nr) {
				r = -ENOMEM;
				goto out;
			}
			c->noise = nr;
			c->noise[c->nnoise++] = nrd;
		}

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
		per_rep = (elapsed - c->warmup_s) / i;
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
			base = vmb_case_metric(&tr->cases[i], headline);
	if (!base || base->sum.mean <= 0)
		return 0;
	for (size_t i = 0; i < tr->ncases; i++) {
		struct vmb_case *c = &tr->cases[i];
		const struct vmb_metric *h = vmb_case_metric(c, headline);
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
		h = vmb_case_metric(c, headline);
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
static int case_params(struct vmb_case *c, const struct optset *opts, const struct vmb_notes *nt,
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
					   vmb_notes_actual(nt, name) ? vmb_notes_actual(nt, name)
								      : opt_value_text(&opts->opts[i], &opts->vals[i],
										       buf, sizeof(buf))) < 0)
				return -ENOMEM;
		p = comma ? comma + 1 : NULL;
	}
	return 0;
}

/* How many cases a test has: threads x sweep values. */
static int test_ncases(const struct runner_settings *rs, const struct optset *opts, const struct vmb_test *t,
		       size_t *n)
{
	unsigned *threads = NULL;
	const unsigned *sweep;
	size_t nthreads, nsweep;
	int r;

	if ((t->flags & VMB_TEST_ON_FS) && rs->skip_fs) {
		*n = 0; /* skipped: no case in the plan */
		return 0;
	}
	r = test_cases(rs, opts, t, &threads, &nthreads, &sweep, &nsweep);
	free(threads);
	if (r == 0)
		*n = nthreads * nsweep;
	return r;
}

/* How many cases an item has (its selected tests). */
static int item_ncases(const struct runner_settings *rs, const struct runner_item *it, size_t *n)
{
	*n = 0;
	for (size_t i = 0; it->suite->tests[i].name; i++) {
		size_t k = 0;
		int r;

		if (!(it->test_mask & (1ull << i)))
			continue;
		r = test_ncases(rs, it->opts, &it->suite->tests[i], &k);
		if (r < 0)
			return r;
		*n += k;
	}
	return 0;
}

static int run_test(const struct runner_settings *rs, struct run_progress *pg, struct vmb_ctx *ctx,
		    const struct vmb_test *t, struct vmb_test_result *tr)
{
	unsigned *threads = NULL;
	const unsigned *sweep;
	size_t nthreads, nsweep, begun = 0;
	double t0;
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
			t0 = clock_s();
			r = run_case(rs, pg, ctx, t, c);
			progress_clear(rs);
			pg->done++;
			pg->done_s += clock_s() - t0;
			begun++;
			/* A case cut short by Ctrl-C is not finished: its repetitions
			 * did not meet the stop rule. The finished ones are kept. */
			if (r < 0 && (c->reps == 0 || r == -EINTR))
				tr->ncases--, vmb_case_release(c), memset(c, 0, sizeof(*c));
			if (r == 0)
				vmb_test_stop_point("case-finished");
		}
	/* cases a failure left out will not come */
	pg->total -= nthreads * nsweep - begun;
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

/* A suite that does not run here takes its cases out of the plan. */
static void progress_drop_item(const struct runner_settings *rs, struct run_progress *pg,
			       const struct runner_item *it)
{
	size_t n;

	if (item_ncases(rs, it, &n) == 0)
		pg->total = pg->total > n ? pg->total - n : pg->done;
}

static int run_suite(const struct runner_settings *rs, struct run_progress *pg, const struct runner_item *it,
		     struct vmb_suite_result *sr)
{
	const struct vmb_suite *s = it->suite;
	struct vmb_env env = { .ncpus = cpus_available(), .quick = rs->quick, .destructive = rs->destructive };
	struct vmb_notes notes = { .params = &sr->notes, .n = &sr->nnotes };
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
		progress_drop_item(rs, pg, it);
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
		progress_drop_item(rs, pg, it);
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
		if ((t->flags & VMB_TEST_ON_FS) && rs->skip_fs) {
			/* a test of a filesystem where there is none would measure another one */
			tr->status = VMB_SKIPPED;
			tr->reason = xstrdup(rs->skip_fs);
			log_info("%s.%s: skipped: %s", s->name, t->name, rs->skip_fs);
			continue;
		}
		ctx.named = (it->named_mask >> i) & 1;
		r = run_test(rs, pg, &ctx, t, tr);
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
	vmb_params_free(notes.actual, notes.nactual);
	/* a usage error ends the run: -EINVAL, exit 2 */
	return r == -EINTR || r == -ENOMEM || (r < 0 && ctx.usage) ? r : 0;
}

int runner_run(const struct runner_settings *rs, const struct runner_item *items, size_t nitems,
	       struct vmb_results *out)
{
	struct run_progress pg = { .nominal_s = rs->warmup_s + rs->time_s * rs->min_reps };
	int r = 0;

	memset(out, 0, sizeof(*out));
	for (size_t i = 0; i < nitems; i++) {
		size_t n;

		if (item_ncases(rs, &items[i], &n) == 0)
			pg.total += n;
	}
	out->suites = calloc(nitems ? nitems : 1, sizeof(*out->suites));
	if (!out->suites)
		return -ENOMEM;
	for (size_t i = 0; i < nitems && r == 0; i++) {
		r = run_suite(rs, &pg, &items[i], &out->suites[out->nsuites++]);
		if (r == 0 && vmb_stop_requested())
			r = -EINTR;
	}
	return r;
}

int runner_estimate(const struct runner_settings *rs, const struct runner_item *items, size_t nitems,
		    const double *extra_rep_s, struct runner_estimate *out)
{
	struct runner_estimate e = { 0 };

	for (size_t i = 0; i < nitems; i++) {
		double p = rs->time_s + (extra_rep_s ? extra_rep_s[i] : 0);
		/* judged: three slices or more, each with the repetition's ramp, up to --warmup-max */
		double ramps = warmup_judged(rs) ? WARMUP_WINDOW : 1;
		double w = rs->warmup_s > 0 ? rs->warmup_s + ramps * (extra_rep_s ? extra_rep_s[i] : 0) : 0;
		double wmax = warmup_judged(rs) ? rs->warmup_max_s - rs->warmup_s : 0;
		double most = p > 0 ? floor((rs->budget_s - w) / p) : rs->max_reps;
		size_t n;
		int r = item_ncases(rs, &items[i], &n);

		if (r < 0)
			return r;
		/* the stop rule: min_reps at least; more only while within the budget */
		if (most > rs->max_reps)
			most = rs->max_reps;
		if (most < rs->min_reps)
			most = rs->min_reps;
		e.ncases += n;
		e.min_s += (double)n * (w + rs->min_reps * p);
		e.max_s += (double)n * (w + wmax + most * p);
	}
	*out = e;
	return 0;
}
