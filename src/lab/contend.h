/* lab contend: N guests of one configuration booted at once, each QEMU in
 * a cgroup of its own under a parent vmbench makes, a host scheduling
 * policy applied (fair, weights, reservation, rt), the guests' suites run
 * together (every guest's RUN sent at one moment), and per guest what the
 * host saw: its vCPU threads' CPU share against the share the policy
 * promised, their run delay (schedstat, esxtop %RDY's counterpart), and
 * across guests Jain's fairness index. The pure parts (policies, shares,
 * knobs, schedstat, Jain's index) are apart from the I/O for unit tests. */
#ifndef VMB_LAB_CONTEND_H
#define VMB_LAB_CONTEND_H

#include <jansson.h>
#include <sched.h>
#include <stdbool.h>
#include <stddef.h>

#include "labrun.h"
#include "matrix.h"
#include "../core/cgroup.h"

#define CONTEND_MAX_GUESTS CG_MAX_GROUPS
#define CONTEND_MAX_LOADS 8
#define CONTEND_PERIOD_US 100000  /* CFS bandwidth period of the reservation's quotas */
#define CONTEND_RT_RUNTIME_US 900000 /* at most, of each second (cpu.rt_period_us): 10% left to others on each CPU */

enum contend_policy { CONTEND_FAIR, CONTEND_WEIGHTS, CONTEND_RESERVATION, CONTEND_RT, CONTEND_NPOLICIES };
extern const char *const contend_policy_names[CONTEND_NPOLICIES];
#define CONTEND_POLICY_CHOICES "fair|weights|reservation|rt"

/* The policy named, or -EINVAL. */
int contend_policy_parse(const char *name);

struct contend_spec {
	unsigned nguests;                      /* 2..CONTEND_MAX_GUESTS */
	unsigned shares[CONTEND_MAX_GUESTS];   /* weights: relative, 1..100 each */
	unsigned reserve_pct;                  /* reservation: guest 1's share of the host CPUs given, 1..99 */
	unsigned ncpus;                        /* host CPUs given */
	unsigned vcpus;                        /* each guest's vCPUs (0: not known, no bound) */
};

/* The share of the host CPUs given (%) the policy promises each guest:
 * fair and rt 100/N (rt promises guest 1 precedence, not a share), weights
 * in proportion to them, reservation guest 1's reserve and the others an
 * equal part of the rest. 0 or -EINVAL. */
int contend_promised(enum contend_policy p, const struct contend_spec *s, double *promised);
/* The share each guest can have under the policy (%, what promised_share
 * and Jain's index are against): the promise, but a guest whose vCPUs
 * cannot take it (100 x vcpus / ncpus) held there, and what it leaves
 * given to the others as the policy gives (weights; fair and rt equally)
 * until each has its part or its bound; the reservation's other guests
 * are capped, so what guest 1 cannot take goes to nobody of them. 0 or -EINVAL. */
int contend_expected(enum contend_policy p, const struct contend_spec *s, double *share);
/* Each guest's group's knobs: weights for weights (equal otherwise); for
 * the reservation, quotas that cap each other guest at its part of the
 * rest, so that guest 1 can have its reserve (Linux has no floor). 0,
 * -EINVAL, or -ERANGE when a cap would be under the kernel's least quota
 * (1 ms a period: the cap would then be above the promise). */
int contend_knobs(enum contend_policy p, const struct contend_spec *s, unsigned period_us, struct cg_knob *k);
/* The most reserve (%) whose reservation knobs the kernel takes for s's
 * guests and CPUs; 0 when none. */
unsigned contend_reserve_max(const struct contend_spec *s, unsigned period_us);

/* /proc/PID/task/TID/schedstat: time on CPU (ns), time runnable and
 * waiting (ns), timeslices; "N N N\n" exactly, else -EINVAL. */
struct contend_sched {
	unsigned long long cpu_ns, wait_ns, slices;
};
int contend_parse_schedstat(const char *text, struct contend_sched *out);

/* What the host saw of one guest over one RUN, from its vCPU threads'
 * schedstat at the RUN's ends (summed over the threads) and the RUN's wall
 * time: cpu share in % of wall x ncpus, run delay in % of wall (summed
 * over the threads, as esxtop's %RDY), ns per timeslice (NaN without a
 * timeslice). -EINVAL when not measured (a counter ran backwards, no time
 * passed), -ERANGE when the share is over 100% (the threads ran outside
 * the CPUs given, or the window is not the one sampled). */
struct contend_figures {
	double share_pct, delay_pct, delay_ns_per_slice;
};
int contend_figures(const struct contend_sched *a, const struct contend_sched *b, double wall_s, unsigned ncpus,
		    struct contend_figures *out);

/* Jain's fairness index across the guests is sched.fairness's, sched_jain(). */

/* Why the session's hypervisor back end cannot carry policy p, said by
 * the plans before any boot and by the run as the policy's skip; NULL
 * when it can (a policy may still be skipped at the run, e.g. without
 * permission). */
const char *contend_policy_unsupported(enum contend_policy p);
/* What of a policy list (as --policy takes it) the session's back end
 * cannot carry, as "NAME: skipped here: WHY" joined by "; " ("" when it
 * can carry them all), cut at len. */
void contend_plan_skips(const char *policies, char *buf, size_t len);

/* The run. */
struct contend_opts {
	const struct lab_config *c;
	const struct lab_run_opts *ro; /* image, suites, run options */
	/* the host CPUs every QEMU is confined to once its guest said HELLO
	 * (the boot, not measured, is faster on every CPU); NULL: any */
	const cpu_set_t *affinity;
	struct contend_spec spec;
	bool policy[CONTEND_NPOLICIES]; /* asked */
	unsigned loads[CONTEND_MAX_LOADS], nloads;
	unsigned rounds;
	unsigned rt_priority;           /* SCHED_FIFO priority of guest 1's threads */
	bool rt_all;                    /* every QEMU thread of guest 1 real-time, not only its vCPUs */
	const char *host_cpus;          /* as given ("0"), for the documents; NULL: all */
	uint64_t seed;
	/* each guest's document of one cell of one round (taken) */
	void (*keep)(void *arg, json_t *doc);
	/* a guest that failed to boot: its evidence (console, QEMU's output)
	 * and why, to keep and say; NULL: not kept */
	void (*failed)(void *arg, unsigned guest, const struct lab_failure *f, const char *err);
	void *arg;
};
/* 0 when every cell that could run ran (a policy without permission is
 * skipped with the reason said); else err. */
int lab_contend(const struct contend_opts *o, char *err, size_t errlen);

#endif
