/* The scheduling suite's parts. First what it computes from its samples,
 * apart from the measuring itself: wake-up latencies with their count over
 * a threshold, and Jain's fairness index (sched_util.c, plain functions for
 * the unit tests), and the quota test's arithmetic and readers of text.
 * Then what its files share: the state set up in sched.c, the helpers
 * there, and one function per test (sched_wakeup.c, sched_ctxswitch.c,
 * sched_steal.c, sched_fair.c, sched_quota.c). */
#ifndef VMB_SCHED_H
#define VMB_SCHED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "../core/cgroup.h"
#include "../core/clock.h"
#include "../core/hist.h"
#include "../core/suite.h"

/* One thread's wake-up latencies, as cyclictest keeps them. */
struct sched_lat {
	struct hist hist;
	uint64_t threshold_ns;
	uint64_t over; /* wake-ups later than threshold_ns, counted exactly */
};

void sched_lat_init(struct sched_lat *l, uint64_t threshold_ns);
static inline void sched_lat_record(struct sched_lat *l, uint64_t lat_ns)
{
	hist_record(&l->hist, lat_ns);
	l->over += lat_ns > l->threshold_ns;
}
/* dst += src (same threshold) */
void sched_lat_merge(struct sched_lat *dst, const struct sched_lat *src);

/* Jain's index over x_i = got[i] / promised[i], the shares normalised to
 * sum 1 each: (sum x)^2 / (n sum x^2). 1 is fair, 1/n one group taking
 * all. NAN for n == 0, a promised share <= 0, or nothing got at all. */
double sched_jain(const double *got, const double *promised, size_t n);

/* ---- sched.quota: groups under cpu.max quotas, each running requests ---- */

#define SCHED_QUOTA_MAX_CPUS 1024.0
/* "1.2,0.8,1.0": CPUs per period of each group (docker --cpus), at most
 * max of them, each above 0 and at most SCHED_QUOTA_MAX_CPUS, digits and
 * one '.' only. 0; -EINVAL (not such a list), -ERANGE (a value out of
 * range, or more than max). cpus and n are written only on success. */
int sched_quota_parse(const char *text, double *cpus, size_t max, size_t *n);
/* Each group's knob: its CPUs times the period in us (rounded), equal
 * weights. 0; -ERANGE when a quota falls below the kernel's 1 ms. */
int sched_quota_knobs(const double *cpus, size_t n, unsigned period_us, struct cg_knob *k);
/* The time between one thread's requests, so that threads of a group,
 * each request work_us of CPU, ask for load_pct % of the group's cpus:
 * work x threads / (cpus x load / 100). 0 for a value out of range. */
uint64_t sched_quota_interval_ns(double cpus, unsigned load_pct, unsigned threads, unsigned work_us);
/* The "ctxt" line of /proc/stat: context switches on every CPU since
 * boot (what perf's sched:sched_switch counts with -a). 0 or -EINVAL. */
int sched_parse_ctxt(const char *text, unsigned long long *ctxt);

/* ---- shared by the suite's files ---- */

#define SCHED_MAX_CPUS 1024
#define SCHED_MAX_GROUPS 3 /* sched.fairness's worker groups (of CG_MAX_GROUPS) */

/* What sched_setup() found and the options it read, for every test. */
struct sched_state {
	unsigned cpus[SCHED_MAX_CPUS]; /* the selected CPUs */
	unsigned ncpus;
	int policy;
	unsigned priority;
	uint64_t interval_ns, distance_ns, threshold_ns, gap_ns;
	unsigned load;
	bool mlock;
	bool laptop;       /* leave the CPUs' idle states alone (cyclictest --laptop) */
	double tsc_per_ns; /* for the hiccup detector */
	/* fairness */
	unsigned weights[SCHED_MAX_GROUPS], ngroups, period_us;
	const char *mode;
	struct cg_layout cg;                 /* where the cpu controller is */
	struct cg_tree tree;                 /* the groups, once made */
	bool try_private;                    /* no hierarchy offers cpu: try a cgroup2 mount of our own */
	char cg_skip[200]; /* why fairness cannot run here, once known */
	char rt_skip[1024]; /* why its rt mode cannot */
	bool rt_tried;      /* the tree's real-time runtime asked for (v1 with RT group scheduling) */
	/* quota: [0] normal, [1] over-committed */
	double quota_cpus[2][CG_MAX_GROUPS];
	unsigned quota_groups, quota_threads, quota_load, quota_work_us;
	const char *quota_state;
	double spin_per_us; /* iterations of the request's loop per us of CPU, 0 until calibrated */
};

pid_t sched_gettid(void);
/* 0 or a negative errno */
int sched_pin_self(unsigned cpu);
int sched_set_policy(int policy, unsigned prio);
/* The CPUs the hiccup detector's counter runs at, per nanosecond. */
static inline uint64_t sched_ticks(void)
{
#if defined(__x86_64__) || defined(__i386__)
	return __builtin_ia32_rdtsc();
#elif defined(__aarch64__)
	uint64_t v;

	__asm__ __volatile__("isb; mrs %0, cntvct_el0" : "=r"(v));
	return v;
#else
	return clock_ns();
#endif
}


/* One cyclictest thread's loop for duration_s; the wake-ups it recorded. */
uint64_t sched_cyclic_loop(struct sched_lat *lat, uint64_t interval_ns, double duration_s);
/* prefix_p50, _p99, _p99_9 (with_hist only), _max and the histogram itself. */
void sched_report_lat(struct vmb_rep *rep, const char *prefix, const struct sched_lat *l, bool with_hist);
/* A test's return value: a failure in a window cut short by Ctrl-C is -EINTR. */
int sched_end(int r);

/* Where the cpu controller is; st->cg_skip says why fairness cannot run when nowhere. */
void sched_fair_find_cgroups(struct sched_state *st);
/* The tree of ngroups groups (and the probe's), made once for the tests
 * that ask for that many, else made again; with rt, the probe's real-time
 * runtime asked for once (st->rt_skip says why not). 0, or a skip or a
 * failure with ctx->reason set. */
int sched_groups(struct vmb_ctx *ctx, struct sched_state *st, unsigned ngroups, bool rt);

/* The tests, each a vmb_test_fn. */
vmb_test_fn sched_run_wakeup;
vmb_test_fn sched_run_ctxswitch;
vmb_test_fn sched_run_steal;
vmb_test_fn sched_run_fairness;
vmb_test_fn sched_run_quota;

#endif
