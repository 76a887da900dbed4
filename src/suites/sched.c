/* Scheduling suite: what a descheduled vCPU looks like from inside.
 *
 * wakeup     cyclictest's measurement: sleep to an absolute time, latency =
 *            the time woken minus the time asked for
 * ctxswitch  a token passed between two threads through a pipe and a futex,
 *            on one CPU and on two (stress-ng's and lmbench lat_ctx's figures)
 * steal      CPU-bound loops on every CPU: /proc/stat steal, schedstat run
 *            delay (the in-guest %RDY), and gaps in a loop reading the TSC
 * fairness   worker groups in cgroups under fair-share weights, a bandwidth
 *            reservation and real time for a probe thread: Jain's index
 *            against the configured shares, and the probe's latency
 * quota      groups under CPU quotas (docker --cpus), each doing requests
 *            at a share of its quota, as given and over-committed: context
 *            switches per second, each group's P95, its throttling
 *
 * docs/methodology.md says exactly how each follows its peer. This file
 * holds the descriptor, its tables, set-up and the helpers the tests share;
 * each test is a file of its own: sched_wakeup.c, sched_ctxswitch.c,
 * sched_steal.c, sched_fair.c, sched_quota.c. */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include "sched.h"
#include "../core/clock.h"
#include "../core/file.h"
#include "../core/stoppoint.h"
#include "../core/suite.h"
#include "../core/banned.h"

struct sched_policy_row {
	const char *name;
	int policy;
};

static const struct sched_policy_row sched_policies[] = {
	{ "other", SCHED_OTHER },
	{ "fifo", SCHED_FIFO },
	{ "rr", SCHED_RR },
};

/* ---- helpers ---------------------------------------------------------- */

pid_t sched_gettid(void)
{
	return (pid_t)syscall(SYS_gettid);
}

int sched_pin_self(unsigned cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return -pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
}

int sched_set_policy(int policy, unsigned prio)
{
	struct sched_param sp = { .sched_priority = policy == SCHED_OTHER ? 0 : (int)prio };

	return -pthread_setschedparam(pthread_self(), policy, &sp);
}

static double calibrate_ticks(void)
{
	uint64_t n0 = clock_ns(), t0 = sched_ticks(), n1, t1;

	do
		n1 = clock_ns();
	while (n1 - n0 < 20000000); /* 20 ms */
	t1 = sched_ticks();
	return (double)(t1 - t0) / (double)(n1 - n0);
}

/* The counter's name, for the notes. */
static const char *ticks_name(void)
{
#if defined(__x86_64__) || defined(__i386__)
	return "TSC (rdtsc)";
#elif defined(__aarch64__)
	return "generic timer (cntvct_el0)";
#else
	return "CLOCK_MONOTONIC";
#endif
}

/* One cyclictest thread's loop: next = now + interval; sleep until next
 * (absolute, CLOCK_MONOTONIC); latency = now - next; next += interval, and
 * past an overrun on to the first future period, as cyclictest does. */
uint64_t sched_cyclic_loop(struct sched_lat *lat, uint64_t interval_ns, double duration_s)
{
	uint64_t now = clock_ns(), end = now + (uint64_t)(duration_s * NSEC_PER_SEC), next = now + interval_ns, n = 0;

	while (!vmb_stop_requested()) {
		struct timespec ts;
		int r;

		ts = clock_ns_ts(next);
		r = clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
		if (r == EINTR)
			continue;
		now = clock_ns();
		sched_lat_record(lat, now > next ? now - next : 0);
		n++;
		next += interval_ns;
		while (now > next)
			next += interval_ns;
		if (next > end)
			break;
	}
	return n;
}

void sched_report_lat(struct vmb_rep *rep, const char *prefix, const struct sched_lat *l, bool with_hist)
{
	static const struct {
		const char *suffix;
		double pct;
	} pcts[] = { { "p50", 50 }, { "p99", 99 }, { "p99_9", 99.9 }, { "max", 100 } };
	char name[48];

	for (size_t i = 0; i < sizeof(pcts) / sizeof(pcts[0]); i++) {
		if (!with_hist && !strcmp(pcts[i].suffix, "p99_9"))
			continue; /* the probe's few hundred wake-ups have no 99.9th */
		snprintf(name, sizeof(name), "%s_%s", prefix, pcts[i].suffix);
		vmb_rep_value(rep, name, VMB_UNIT_NS, VMB_LOWER,
			      pcts[i].pct >= 100 ? (double)l->hist.max : hist_percentile(&l->hist, pcts[i].pct));
	}
	if (with_hist)
		vmb_rep_hist(rep, prefix, VMB_UNIT_NS, &l->hist);
}


int sched_end(int r)
{
	/* a window cut short by Ctrl-C may have nothing in it: not a failure */
	if (r < 0 && r != -EOPNOTSUPP && vmb_stop_requested())
		r = -EINTR;
	return r;
}

/* ---- the suite --------------------------------------------------------- */

static int select_cpus(struct vmb_ctx *ctx, struct sched_state *st)
{
	cpu_set_t set;

	if (ctx->cpus && ctx->ncpus) {
		for (size_t i = 0; i < ctx->ncpus && st->ncpus < SCHED_MAX_CPUS; i++)
			st->cpus[st->ncpus++] = ctx->cpus[i];
		return 0;
	}
	if (sched_getaffinity(0, sizeof(set), &set) < 0)
		return -errno;
	for (unsigned c = 0; c < CPU_SETSIZE && st->ncpus < SCHED_MAX_CPUS; c++)
		if (CPU_ISSET(c, &set))
			st->cpus[st->ncpus++] = c;
	return st->ncpus ? 0 : -ESRCH;
}


/* --sched.quota-cpus and --sched.quota-over: as many groups each, quotas
 * the kernel takes at --sched.period, and no more CPUs than the group has
 * threads to use them. */
static int quota_setup(struct vmb_ctx *ctx, struct sched_state *st)
{
	static const char *const names[] = { "quota-cpus", "quota-over" };
	size_t n[2];

	st->quota_threads = (unsigned)optset_int(ctx->opts, "quota-threads");
	st->quota_load = (unsigned)optset_int(ctx->opts, "quota-load");
	st->quota_work_us = (unsigned)optset_int(ctx->opts, "quota-work");
	st->quota_state = optset_str(ctx->opts, "quota-state");
	for (unsigned s = 0; s < 2; s++) {
		const char *text = optset_str(ctx->opts, names[s]);
		struct cg_knob k[CG_MAX_GROUPS];
		int r = sched_quota_parse(text, st->quota_cpus[s], CG_MAX_GROUPS, &n[s]);

		if (r < 0)
			return vmb_usage(ctx, "--sched.%s %s: give 1 to %d groups' CPUs, each above 0 and at most %.0f, "
					 "e.g. 1.2,0.8,1.0", names[s], text, CG_MAX_GROUPS, SCHED_QUOTA_MAX_CPUS);
		if (sched_quota_knobs(st->quota_cpus[s], n[s], st->period_us, k) < 0)
			return vmb_usage(ctx, "--sched.%s %s: a quota is below the kernel's 1 ms of a --sched.period of "
					 "%u us; give at least %.3f CPUs or a longer period", names[s], text,
					 st->period_us, 1000.0 / st->period_us);
		for (size_t g = 0; g < n[s]; g++)
			if (st->quota_cpus[s][g] > st->quota_threads)
				return vmb_usage(ctx, "--sched.%s %s: a group of %u threads (--sched.quota-threads) "
						 "cannot use %g CPUs", names[s], text, st->quota_threads,
						 st->quota_cpus[s][g]);
	}
	if (n[0] != n[1])
		return vmb_usage(ctx, "--sched.quota-cpus has %zu groups and --sched.quota-over %zu: the over-committed "
				 "state is the same groups with other quotas", n[0], n[1]);
	st->quota_groups = (unsigned)n[0];
	return 0;
}

static int sched_setup(struct vmb_ctx *ctx)
{
	struct sched_state *st = calloc(1, sizeof(*st));
	const struct opt_value *wv = optset_get(ctx->opts, "weights");
	const char *pol = optset_str(ctx->opts, "policy");
	int r;

	if (!st)
		return vmb_fail(ctx, -ENOMEM, "sched state");
	ctx->priv = st;
	cg_tree_init(&st->tree);
	for (size_t i = 0; i < sizeof(sched_policies) / sizeof(sched_policies[0]); i++)
		if (!strcmp(pol, sched_policies[i].name))
			st->policy = sched_policies[i].policy;
	st->priority = (unsigned)optset_int(ctx->opts, "priority");
	if (st->policy != SCHED_OTHER && st->priority == 0)
		return vmb_usage(ctx, "--sched.policy %s needs --sched.priority 1 to 99", pol);
	st->interval_ns = (uint64_t)optset_int(ctx->opts, "interval") * 1000;
	st->distance_ns = (uint64_t)optset_int(ctx->opts, "distance") * 1000;
	st->threshold_ns = (uint64_t)optset_int(ctx->opts, "threshold") * 1000;
	st->gap_ns = (uint64_t)optset_int(ctx->opts, "gap") * 1000;
	st->load = (unsigned)optset_int(ctx->opts, "load");
	st->mlock = !optset_bool(ctx->opts, "no-mlock");
	st->laptop = optset_bool(ctx->opts, "laptop");
	st->period_us = (unsigned)optset_int(ctx->opts, "period");
	st->mode = optset_str(ctx->opts, "mode");
	if (!wv || wv->nlist < 2 || wv->nlist > SCHED_MAX_GROUPS)
		return vmb_usage(ctx, "--sched.weights takes 2 to %d weights, e.g. 1,3", SCHED_MAX_GROUPS);
	st->ngroups = (unsigned)wv->nlist;
	for (size_t i = 0; i < wv->nlist; i++)
		st->weights[i] = wv->list[i];
	r = quota_setup(ctx, st);
	if (r < 0)
		return r;
	r = select_cpus(ctx, st);
	if (r < 0)
		return vmb_fail(ctx, r, "reading this process's CPUs");
	st->tsc_per_ns = calibrate_ticks();
	if (!(st->tsc_per_ns > 0))
		return vmb_fail(ctx, -EIO, "the %s does not advance", ticks_name());
	(void)vmb_note(ctx, "hiccup_counter", "%s at %.3f GHz", ticks_name(), st->tsc_per_ns);
	sched_fair_find_cgroups(st);
	return 0;
}

static void sched_teardown(struct vmb_ctx *ctx)
{
	struct sched_state *st = ctx->priv;

	if (!st)
		return;
	cg_tree_undo(&st->tree);
	cg_layout_release(&st->cg);
	free(st);
	ctx->priv = NULL;
}

static const struct vmb_test sched_tests[] = {
	{ .name = "wakeup", .summary = "cyclictest's wake-up latency, one thread per CPU, with --sched.load beside it",
	  .headline = "latency_p50", .params = "interval,distance,policy,priority,load,threshold,laptop",
	  .run = sched_run_wakeup },
	{ .name = "ctxswitch", .summary = "a token passed between two threads by pipe and futex, on one CPU and two",
	  .headline = "pipe_1cpu_ns", .run = sched_run_ctxswitch },
	{ .name = "steal", .summary = "stolen time, run delay (schedstat) and TSC gaps under a busy loop on every CPU",
	  .headline = "on_cpu_pct", .params = "gap", .run = sched_run_steal },
	{ .name = "fairness", .summary = "cgroup groups under fair share, reservation and real time: Jain's index, probe latency",
	  .headline = "fair_equal_jain,fair_jain,reservation_jain,rt_jain", .params = "weights,mode,period,priority,interval",
	  .run = sched_run_fairness },
	{ .name = "quota", .summary = "groups under CPU quotas (docker --cpus) doing requests, as given and over-committed",
	  .headline = "normal_latency_p95,over_latency_p95,normal_switches_per_s,over_switches_per_s",
	  .params = "quota-cpus,quota-over,quota-state,quota-threads,quota-load,quota-work,period",
	  .run = sched_run_quota },
	{ .name = NULL },
};

static const struct vmb_opt sched_opts[] = {
	{ .name = "interval", .type = OPT_INT, .min = 50, .max = 1000000, .def = "1000", .metavar = "US",
	  .help = "wakeup, fairness probe: sleep period in microseconds (cyclictest -i)" },
	{ .name = "distance", .type = OPT_INT, .min = 0, .max = 100000, .def = "500", .metavar = "US",
	  .help = "wakeup: each further thread's interval is this much longer (cyclictest -d)" },
	{ .name = "policy", .type = OPT_STRING, .def = "other", .choices = "other|fifo|rr", .metavar = "POLICY",
	  .help = "wakeup: scheduling policy of the measuring threads (cyclictest -p with --policy)" },
	{ .name = "priority", .type = OPT_INT, .min = 0, .max = 99, .def = "0", .metavar = "N",
	  .help = "wakeup: real-time priority for fifo and rr; fairness: the rt probe's (0 there means 50)" },
	{ .name = "threshold", .type = OPT_INT, .min = 1, .max = 10000000, .def = "100", .metavar = "US",
	  .help = "wakeup: count the wake-ups later than this" },
	{ .name = "load", .type = OPT_INT, .min = 0, .max = 1024, .def = "0", .metavar = "N",
	  .help = "wakeup: N CPU-bound threads beside the measuring ones, on the same CPUs" },
	{ .name = "no-mlock", .type = OPT_BOOL, .help = "wakeup: do not lock memory (cyclictest without -m)" },
	{ .name = "laptop", .type = OPT_BOOL,
	  .help = "wakeup: do not hold /dev/cpu_dma_latency at 0 while measuring (cyclictest --laptop)" },
	{ .name = "gap", .type = OPT_INT, .min = 1, .max = 1000000, .def = "20", .metavar = "US",
	  .help = "steal: a step of the TSC loop longer than this is a hiccup (sysjitter, hwlatdetect)" },
	{ .name = "weights", .type = OPT_LIST, .min = 1, .max = 100, .def = "1,3", .metavar = "LIST",
	  .help = "fairness: relative CPU shares of 2 or 3 worker groups" },
	{ .name = "mode", .type = OPT_STRING, .def = "all", .choices = "all|fair|reservation|rt", .metavar = "MODE",
	  .help = "fairness: fair (weights), reservation (quota and period), rt (the probe real-time), or all" },
	{ .name = "period", .type = OPT_INT, .min = 1000, .max = 1000000, .def = "100000", .quick = "10000",
	  .metavar = "US", .help = "fairness, quota: bandwidth-control period (the reservation mode's; cpu.max's)" },
	{ .name = "quota-cpus", .type = OPT_STRING, .def = "1.2,0.8,1.0", .metavar = "LIST",
	  .help = "quota: each group's CPUs per period (docker --cpus), 1 to 8 groups" },
	{ .name = "quota-over", .type = OPT_STRING, .def = "1.8,1.2,1.5", .metavar = "LIST",
	  .help = "quota: the same groups' CPUs over-committed (the default's total 4.5, the normal's x 1.5)" },
	{ .name = "quota-state", .type = OPT_STRING, .def = "both", .choices = "both|normal|over", .metavar = "STATE",
	  .help = "quota: measure the normal quotas, the over-committed ones, or both (half the time each)" },
	{ .name = "quota-threads", .type = OPT_INT, .min = 1, .max = 16, .def = "2", .metavar = "N",
	  .help = "quota: threads of each group, each doing requests" },
	{ .name = "quota-load", .type = OPT_INT, .min = 1, .max = 200, .def = "80", .metavar = "PCT",
	  .help = "quota: the CPU each group's requests ask for, in % of its quota" },
	{ .name = "quota-work", .type = OPT_INT, .min = 10, .max = 1000000, .def = "1000", .metavar = "US",
	  .help = "quota: CPU time of one request" },
	OPT_TABLE_END,
};

const struct vmb_suite sched_suite = {
	.name = "sched",
	.summary = "scheduling: wake-up latency (cyclictest), context switches, steal, cgroup fairness, CPU quotas",
	.abi = VMB_SUITE_ABI,
	.tests = sched_tests,
	.opts = sched_opts,
	.setup = sched_setup,
	.teardown = sched_teardown,
};
