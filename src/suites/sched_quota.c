/* The sched suite's quota test: containers under CPU quotas, as Docker's
 * --cpus makes them (cpu.max on cgroup v2, cpu.cfs_quota_us over
 * cpu.cfs_period_us on v1), without a container runtime: one group per
 * quota, each running threads that do requests of fixed work at a fixed
 * rate, a share of the group's quota (--sched.quota-load). A request's
 * latency is from when it was due to when it ended (wrk2's open loop: a
 * throttled group's queue shows in its P95), and the scheduler's own
 * counts say what the quotas cost: context switches on every CPU
 * (/proc/stat ctxt, what `perf stat -e sched:sched_switch -a` counts), the
 * load's own switches (getrusage), and each group's throttled periods and
 * time (cpu.stat). Two states, each half of a repetition: the quotas as
 * given (normal) and over-committed (--sched.quota-over), each metric
 * prefixed with its state. The groups are sched.fairness's tree
 * (sched_groups): made through the cgroup planner, removed on every exit
 * path, reclaimed after a kill. */
#include <errno.h>
#include <math.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>
#include "sched.h"
#include "../core/clock.h"
#include "../core/file.h"
#include "../core/stoppoint.h"
#include "../core/suite.h"
#include "../core/banned.h"

static const char *const quota_states[] = { "normal", "over" };

struct quota_shared {
	const struct sched_state *st;
	unsigned state;
	uint64_t duration_ns; /* from the common start: no request starts after it */
	uint64_t spin;   /* iterations of one request's work */
	unsigned long long ctxt0, ctxt1; /* /proc/stat's, read by worker 0 at its start and end */
	int ctxt_err;
};

struct quota_worker {
	struct quota_shared *sh;
	unsigned group, index; /* index: the thread's place in its group */
	uint64_t interval_ns;
	uint64_t requests;
	uint64_t cpu_ns;
	long nvcsw, nivcsw; /* its own switches over the window */
	struct hist hist;
};

/* One request's work: a loop the compiler cannot drop (the result is
 * stored in a volatile), the same count of iterations every time. */
static void spin(uint64_t n)
{
	volatile uint64_t sink;
	uint64_t x = 88172645463325252ull;

	for (uint64_t i = 0; i < n; i++)
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
	sink = x;
	(void)sink;
}

/* Iterations of spin() per microsecond of this thread's CPU time: CPU
 * time, not wall time, so that a busy machine does not shorten a request. */
static double calibrate_spin(void)
{
	uint64_t n = 1u << 16, t0, t;

	for (;;) {
		t0 = clock_thread_cpu_ns();
		spin(n);
		t = clock_thread_cpu_ns() - t0;
		if (t >= 20000000 || n >= (1ull << 40))
			break;
		n *= 2;
	}
	return t ? (double)n * 1000.0 / (double)t : 0;
}

static int read_ctxt(unsigned long long *ctxt)
{
	char *text = NULL;
	int r = read_file("/proc/stat", &text);

	if (r == 0)
		r = sched_parse_ctxt(text, ctxt);
	free(text);
	return r;
}

static void quota_fn(struct vmb_worker *w)
{
	struct quota_worker *qw = w->arg;
	struct quota_shared *sh = qw->sh;
	struct rusage ru0, ru1;
	uint64_t due, now, c0, end;

	w->err = cg_tree_attach(&sh->st->tree, qw->group, sched_gettid());
	if (qw->group == 0 && qw->index == 0)
		vmb_test_stop_point("sched-quota-groups"); /* tests look at the groups, or kill, here */
	vmb_worker_sync(w);
	if (w->err < 0)
		return;
	w->start_ns = clock_ns();
	end = w->start_ns + sh->duration_ns;
	if (w->id == 0)
		sh->ctxt_err = read_ctxt(&sh->ctxt0);
	(void)getrusage(RUSAGE_THREAD, &ru0);
	c0 = clock_thread_cpu_ns();
	/* the group's threads take turns: thread i's first request is due i/threads of an interval in */
	due = w->start_ns + qw->interval_ns * qw->index / sh->st->quota_threads;
	while (due < end && !vmb_stop_requested()) {
		now = clock_ns();
		if (now < due) {
			struct timespec ts = clock_ns_ts(due);

			if (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
				continue;
		}
		spin(sh->spin);
		now = clock_ns();
		/* from when it was due, not when it started: no coordinated omission */
		hist_record(&qw->hist, now - due);
		qw->requests++;
		due += qw->interval_ns;
	}
	qw->cpu_ns = clock_thread_cpu_ns() - c0;
	(void)getrusage(RUSAGE_THREAD, &ru1);
	qw->nvcsw = ru1.ru_nvcsw - ru0.ru_nvcsw;
	qw->nivcsw = ru1.ru_nivcsw - ru0.ru_nivcsw;
	w->end_ns = clock_ns();
	if (w->id == 0 && sh->ctxt_err == 0)
		sh->ctxt_err = read_ctxt(&sh->ctxt1);
}

static void report_pcts(struct vmb_rep *rep, const char *prefix, const struct hist *h)
{
	static const struct {
		const char *suffix;
		double pct;
	} pcts[] = { { "p50", 50 }, { "p95", 95 }, { "p99", 99 } };
	char name[48];

	for (size_t i = 0; i < sizeof(pcts) / sizeof(pcts[0]); i++) {
		snprintf(name, sizeof(name), "%s_%s", prefix, pcts[i].suffix);
		vmb_rep_value(rep, name, VMB_UNIT_NS, VMB_LOWER, hist_percentile(h, pcts[i].pct));
	}
}

/* Each group's knobs for this state written and read back, and its
 * cpu.stat before the window. */
static int quota_knobs(struct vmb_ctx *ctx, struct sched_state *st, unsigned s, struct cg_cpu_stat *before,
		       double *got_cpus)
{
	struct cg_knob k[CG_MAX_GROUPS];
	int r = sched_quota_knobs(st->quota_cpus[s], st->quota_groups, st->period_us, k);

	if (r < 0)
		return vmb_usage(ctx, "--sched.quota-%s: a quota below 1 ms of a --sched.period of %u us",
				 s ? "over" : "cpus", st->period_us);
	r = cg_tree_knobs(&st->tree, k, st->period_us);
	if (r < 0)
		return vmb_fail(ctx, r, "writing %s", st->tree.failed.path[0] ? st->tree.failed.path : "cgroup knobs");
	for (unsigned g = 0; g < st->quota_groups; g++) {
		unsigned long long q, p;

		r = cg_tree_quota(&st->tree, g, &q, &p);
		if (r < 0)
			return vmb_fail(ctx, r, "reading group %u's quota back", g);
		/* what the kernel holds, which a check of the run can hold against what was asked */
		got_cpus[g] = p ? (double)q / (double)p : 0;
		r = cg_tree_cpu_stat(&st->tree, g, &before[g]);
		if (r < 0)
			return vmb_fail(ctx, r, "reading group %u's cpu.stat", g);
	}
	return 0;
}

static int quota_one(struct vmb_ctx *ctx, struct sched_state *st, unsigned s, double duration_s, struct vmb_rep *rep)
{
	unsigned ng = st->quota_groups, nt = st->quota_threads, n = ng * nt;
	struct quota_shared sh = { .st = st, .state = s };
	struct cg_cpu_stat before[CG_MAX_GROUPS], after;
	double got_cpus[CG_MAX_GROUPS], window, total_quota = 0, requests = 0;
	struct vmb_worker *workers = calloc(n, sizeof(*workers));
	struct quota_worker *qw = calloc(n, sizeof(*qw));
	struct hist *all = hist_new(), *grp = hist_new();
	const char *sn = quota_states[s];
	long nvcsw = 0, nivcsw = 0;
	char name[48];
	int r;

	if (!workers || !qw || !all || !grp) {
		r = vmb_fail(ctx, -ENOMEM, "%u threads' histograms", n);
		goto out;
	}
	r = quota_knobs(ctx, st, s, before, got_cpus);
	if (r < 0)
		goto out;
	sh.spin = (uint64_t)fmax(1.0, st->spin_per_us * st->quota_work_us);
	for (unsigned i = 0; i < n; i++) {
		qw[i].sh = &sh;
		qw[i].group = i / nt;
		qw[i].index = i % nt;
		qw[i].interval_ns = sched_quota_interval_ns(st->quota_cpus[s][i / nt], st->quota_load, nt,
							    st->quota_work_us);
		hist_init(&qw[i].hist);
		workers[i].arg = &qw[i];
	}
	sh.duration_ns = (uint64_t)(duration_s * NSEC_PER_SEC);
	r = vmb_parallel(ctx, n, quota_fn, workers);
	if (r < 0 && ctx->reason[0])
		goto out;
	for (unsigned i = 0; i < n; i++)
		if (workers[i].err < 0) {
			r = vmb_fail(ctx, workers[i].err, "%s: a thread of group %u joining it", sn, i / nt);
			goto out;
		}
	if (r < 0) {
		r = vmb_fail(ctx, r, "starting %u threads", n);
		goto out;
	}
	if (sh.ctxt_err < 0) {
		r = vmb_fail(ctx, sh.ctxt_err, "reading ctxt of /proc/stat");
		goto out;
	}
	window = (double)(workers[0].end_ns - workers[0].start_ns) / NSEC_PER_SEC;
	for (unsigned g = 0; g < ng; g++) {
		double cpu_ns = 0, throttled = 0, periods;

		hist_init(grp);
		for (unsigned t = 0; t < nt; t++) {
			const struct quota_worker *q = &qw[g * nt + t];

			hist_merge(grp, &q->hist);
			cpu_ns += (double)q->cpu_ns;
			requests += (double)q->requests;
			nvcsw += q->nvcsw;
			nivcsw += q->nivcsw;
		}
		hist_merge(all, grp);
		r = cg_tree_cpu_stat(&st->tree, g, &after);
		if (r < 0) {
			r = vmb_fail(ctx, r, "reading group %u's cpu.stat", g);
			goto out;
		}
		periods = (double)(after.nr_periods - before[g].nr_periods);
		throttled = (double)(after.nr_throttled - before[g].nr_throttled);
		total_quota += got_cpus[g];
		if (grp->count == 0 || !(window > 0)) {
			r = vmb_fail(ctx, -EIO, "%s: group %u did no request in %.3f s", sn, g, duration_s);
			goto out;
		}
		snprintf(name, sizeof(name), "%s_g%u", sn, g);
		report_pcts(rep, name, grp);
		snprintf(name, sizeof(name), "%s_g%u_quota_cpus", sn, g);
		vmb_rep_value(rep, name, VMB_UNIT_RATIO, VMB_HIGHER, got_cpus[g]);
		/* CPUs the group's threads used, and that against its quota */
		snprintf(name, sizeof(name), "%s_g%u_cpus", sn, g);
		vmb_rep_value(rep, name, VMB_UNIT_RATIO, VMB_HIGHER, cpu_ns / 1e9 / window);
		snprintf(name, sizeof(name), "%s_g%u_used_pct", sn, g);
		vmb_rep_value(rep, name, VMB_UNIT_PCT, VMB_HIGHER, got_cpus[g] > 0 ? cpu_ns / 1e7 / window / got_cpus[g] : 0);
		snprintf(name, sizeof(name), "%s_g%u_throttled_pct", sn, g);
		vmb_rep_value(rep, name, VMB_UNIT_PCT, VMB_LOWER, periods > 0 ? 100.0 * throttled / periods : 0);
		snprintf(name, sizeof(name), "%s_g%u_throttled_ms_per_s", sn, g);
		vmb_rep_value(rep, name, VMB_UNIT_RATIO, VMB_LOWER,
			      (double)(after.throttled_ns - before[g].throttled_ns) / 1e6 / window);
	}
	snprintf(name, sizeof(name), "%s_switches_per_s", sn);
	vmb_rep_value(rep, name, VMB_UNIT_PER_S, VMB_LOWER, (double)(sh.ctxt1 - sh.ctxt0) / window);
	snprintf(name, sizeof(name), "%s_load_switches_per_s", sn);
	vmb_rep_value(rep, name, VMB_UNIT_PER_S, VMB_LOWER, (double)(nvcsw + nivcsw) / window);
	snprintf(name, sizeof(name), "%s_load_preempted_per_s", sn);
	vmb_rep_value(rep, name, VMB_UNIT_PER_S, VMB_LOWER, (double)nivcsw / window);
	snprintf(name, sizeof(name), "%s_requests_per_s", sn);
	vmb_rep_value(rep, name, VMB_UNIT_PER_S, VMB_HIGHER, requests / window);
	snprintf(name, sizeof(name), "%s_quota_total_cpus", sn);
	vmb_rep_value(rep, name, VMB_UNIT_RATIO, VMB_HIGHER, total_quota);
	snprintf(name, sizeof(name), "%s_latency", sn);
	report_pcts(rep, name, all);
	vmb_rep_hist(rep, name, VMB_UNIT_NS, all);
	r = 0;
out:
	hist_free(all);
	hist_free(grp);
	free(workers);
	free(qw);
	return r;
}

static int run_quota(struct vmb_ctx *ctx, struct sched_state *st, struct vmb_rep *rep)
{
	bool both = !strcmp(st->quota_state, "both");
	int r = sched_groups(ctx, st, st->quota_groups, false);

	if (r < 0)
		return r;
	if (!(st->spin_per_us > 0)) {
		st->spin_per_us = calibrate_spin();
		if (!(st->spin_per_us > 0))
			return vmb_fail(ctx, -EIO, "the thread's CPU clock does not advance");
		(void)vmb_note(ctx, "quota_work", "a request of %u us is %.0f iterations of the loop (%.1f per us of CPU)",
			       st->quota_work_us, st->spin_per_us * st->quota_work_us, st->spin_per_us);
	}
	for (unsigned s = 0; s < 2 && r == 0; s++) {
		if (!both && strcmp(st->quota_state, quota_states[s]))
			continue;
		r = quota_one(ctx, st, s, both ? ctx->duration_s / 2 : ctx->duration_s, rep);
		if (vmb_stop_requested())
			break;
	}
	return r;
}

int sched_run_quota(struct vmb_ctx *ctx, const struct vmb_test *test, struct vmb_rep *rep)
{
	(void)test;
	return sched_end(run_quota(ctx, ctx->priv, rep));
}
