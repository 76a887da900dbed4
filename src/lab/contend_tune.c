/* How lab contend carries out its policies on the guests (contend_int.h's
 * tuner rows). The cgroup row, for QEMU driven on this machine: a tree of
 * the cgroup planner (src/core/cgroup.h, as sched.fairness's), undone on
 * every exit path, kill -9 included, by its watchdog; the threads' own
 * affinity, schedstat and real-time priority (a priority goes with the
 * QEMU it was given to, and every QEMU dies with this process). The
 * hypervisor row, for a back end that tunes its guests itself (libvirt):
 * its tune, vcpu_stat and confine hooks (hv.h), on the hypervisor's host. */
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "contend_int.h"
#include "../core/log.h"
#include "../core/str.h"
#include "../core/util.h"
#include "../core/banned.h"

void contend_skip(struct contend *x, enum contend_policy p, const char *fmt, ...)
{
	va_list ap;

	if (x->why[p])
		return;
	va_start(ap, fmt);
	vsnprintf(x->whybuf[p], sizeof(x->whybuf[p]), fmt, ap);
	va_end(ap);
	x->why[p] = x->whybuf[p];
}

void contend_skip_all(struct contend *x, const char *why)
{
	for (int p = 0; p < CONTEND_NPOLICIES; p++)
		contend_skip(x, (enum contend_policy)p, "%s", why);
}

/* -- the cgroup row -- */

/* The tree: a parent under this process's cgroup, a group per guest; the
 * RT runtime for rt granted to the parent and guest 1's group (v1 with RT
 * group scheduling). What fails skips the policies that need it. */
static void groups_make(struct contend *x)
{
	struct cg_tree *t = &x->tree;
	char why[400];
	int r = cg_probe(&x->l, why, sizeof(why));

	if (r < 0) {
		contend_skip_all(x, why);
		return;
	}
	x->l.tree = CG_TREE_CONTEND;
	x->l.no_probe = true;
	r = cg_tree_make(t, &x->l, getpid(), x->o->spec.nguests);
	if (r < 0) {
		contend_skip_all(x, "");
		for (int p = 0; p < CONTEND_NPOLICIES; p++)
			snprintf(x->whybuf[p], sizeof(x->whybuf[p]), "the cgroups could not be made (%.300s: %s)%s",
				 t->failed.path[0] ? t->failed.path : "the cgroup plan", strerror(-r),
				 r == -EACCES || r == -EPERM || r == -EROFS ? ": it needs root, or a delegated cgroup" : "");
		return;
	}
	if (x->o->policy[CONTEND_RT] && !x->why[CONTEND_RT] && x->l.rt_group) {
		/* Other groups (another vmbench's) may hold part of the parent's
		 * runtime: the most of CONTEND_RT_RUNTIME_US, then 100 ms less at a
		 * time, that fits */
		char where[CG_PATH_MAX + 32] = "its path", knob[CG_PATH_MAX] = "", held[800] = "";
		unsigned last = 0;

		for (unsigned us = CONTEND_RT_RUNTIME_US; us >= 100000; us -= 100000) {
			r = cg_tree_rt(t, us);
			if (t->failed.path[0]) {
				snprintf(where, sizeof(where), "%s %u", t->failed.path, us);
				snprintf(knob, sizeof(knob), "%s", t->failed.path);
				last = us;
			}
			if (r == 0) {
				x->rt_us = us;
				break;
			}
			log_debug("RT runtime %u us: %s: %s", us, where, strerror(-r));
		}
		/* EINVAL says only "no": the tree says what holds the runtime */
		if (!x->rt_us && knob[0] && r == -EINVAL && cg_rt_why(knob, last, held + 2, sizeof(held) - 2) == 0)
			memcpy(held, "; ", 2);
		if (!x->rt_us)
			contend_skip(x, CONTEND_RT, "real-time runtime could not be granted to guest 1's group (%s: %s): "
				    "RT group scheduling needs it, out of what this process's cgroup has left%s", where,
				    strerror(r < 0 ? -r : EINVAL), held);
	}
}

static void *rt_probe_thread(void *arg)
{
	return arg;
}

/* May this process make a thread SCHED_FIFO at prio? A thread created so
 * says (EPERM without CAP_SYS_NICE or an RLIMIT_RTPRIO that allows it). */
static int rt_allowed(unsigned prio)
{
	pthread_attr_t a;
	struct sched_param sp = { .sched_priority = (int)prio };
	pthread_t t;
	int r = pthread_attr_init(&a);

	if (r == 0)
		r = pthread_attr_setinheritsched(&a, PTHREAD_EXPLICIT_SCHED);
	if (r == 0)
		r = pthread_attr_setschedpolicy(&a, SCHED_FIFO);
	if (r == 0)
		r = pthread_attr_setschedparam(&a, &sp);
	if (r == 0)
		r = pthread_create(&t, &a, rt_probe_thread, NULL);
	if (r == 0)
		(void)pthread_join(t, NULL);
	(void)pthread_attr_destroy(&a);
	return -r;
}

/* The thread ids of a process (/proc/PID/task), at most max. */
static size_t all_tids(pid_t pid, int *tids, size_t max)
{
	char path[64];
	DIR *d;
	struct dirent *e;
	size_t n = 0;

	snprintf(path, sizeof(path), "/proc/%ld/task", (long)pid);
	d = opendir(path);
	while (d && n < max && (e = readdir(d))) {
		int64_t t;

		if (parse_i64(e->d_name, 1, INT32_MAX, &t) == 0)
			tids[n++] = (int)t;
	}
	if (d)
		closedir(d);
	return n;
}

/* Every thread of QEMU pid confined to the host CPUs given, after its
 * boot: a thread it makes later inherits that from the thread that makes
 * it. A pass that finds a thread not yet confined (one started meanwhile)
 * is followed by another, at most 5. */
static int confine(pid_t pid, const cpu_set_t *cpus)
{
	int tids[CONTEND_MAX_TIDS];

	for (int pass = 0; pass < 5; pass++) {
		size_t n = all_tids(pid, tids, CONTEND_MAX_TIDS);
		bool changed = false;

		if (n == 0)
			return -ESRCH;
		for (size_t i = 0; i < n; i++) {
			cpu_set_t now;

			if (sched_getaffinity(tids[i], sizeof(now), &now) == 0 && CPU_EQUAL(&now, cpus))
				continue;
			if (sched_setaffinity(tids[i], sizeof(*cpus), cpus) < 0 && errno != ESRCH)
				return -errno;
			changed = true;
		}
		if (!changed)
			return 0;
	}
	return -EAGAIN;
}

/* The vCPU threads' schedstat, summed; -EINVAL when one cannot be read. */
static int cg_sample(struct contend *x, const struct guest *g, struct contend_sched *sum)
{
	(void)x;
	memset(sum, 0, sizeof(*sum));
	for (size_t i = 0; i < g->nvcpu; i++) {
		char path[96], *text = NULL;
		struct contend_sched one;
		int r;

		snprintf(path, sizeof(path), "/proc/%ld/task/%d/schedstat", (long)g->pid, g->vcpu[i]);
		r = read_file(path, &text);
		if (r == 0)
			r = contend_parse_schedstat(text, &one);
		free(text);
		if (r < 0)
			return r;
		sum->cpu_ns += one.cpu_ns;
		sum->wait_ns += one.wait_ns;
		sum->slices += one.slices;
	}
	return 0;
}

/* guest 1's threads real-time at prio, or back to SCHED_OTHER (prio 0):
 * its vCPU threads at prio, and with --rt-threads all every other thread
 * of its QEMU one above (the main loop that runs the guest's timers under
 * TCG and kicks the vCPU must preempt a vCPU that spins, or the guest's
 * timer interrupts wait for the vCPU to block: at one priority, SCHED_FIFO
 * never takes the CPU from a running thread). */
static bool is_vcpu(const struct guest *g, int tid)
{
	for (size_t i = 0; i < g->nvcpu; i++)
		if (g->vcpu[i] == tid)
			return true;
	return false;
}

static int cg_rt(struct contend *x, unsigned prio)
{
	struct guest *g = &x->gs[0];
	int all[CONTEND_MAX_TIDS];
	const int *t = g->vcpu;
	size_t n = g->nvcpu;
	int r = 0;

	if (x->o->rt_all) {
		n = all_tids(g->pid, all, CONTEND_MAX_TIDS);
		t = all;
	}
	for (size_t i = 0; i < n; i++) {
		/* prio < 99 with rt_all (lab contend refuses 99 then) */
		struct sched_param sp = { .sched_priority = (int)(prio && !is_vcpu(g, t[i]) && prio < 99 ? prio + 1 : prio) };

		if (sched_setscheduler(t[i], prio ? SCHED_FIFO : SCHED_OTHER, &sp) < 0 && r == 0 && errno != ESRCH)
			r = -errno;
	}
	return r;
}

static int cg_knobs(struct contend *x, enum contend_policy p, char *err, size_t errlen)
{
	struct cg_knob k[CONTEND_MAX_GUESTS];
	int r = contend_knobs(p, &x->o->spec, CONTEND_PERIOD_US, k);

	if (r == 0)
		r = cg_tree_knobs(&x->tree, k, CONTEND_PERIOD_US);
	if (r < 0)
		errf(err, errlen, r, "setting %s's knobs (%s): %s", contend_policy_names[p],
		     x->tree.failed.path[0] ? x->tree.failed.path : "plan", strerror(-r));
	return r;
}

static const char *cg_note(enum contend_policy p)
{
	switch (p) {
	case CONTEND_FAIR:
		return "equal weights (cgroup v1 cpu.shares 1024, v2 cpu.weight 100), no cap";
	case CONTEND_WEIGHTS:
		return "weights from --shares (v1 cpu.shares 1024 x weight, v2 cpu.weight 100 x weight), no cap";
	case CONTEND_RESERVATION:
		return "Linux has no hard CPU reservation (no floor): guest 1's reserve is approximated by capping each "
		       "other guest at its part of the rest (CFS bandwidth, cpu.cfs_quota_us / cpu.max per 100 ms), so "
		       "that together they cannot take more; guest 1 is not capped";
	case CONTEND_RT:
		return "guest 1's QEMU threads at SCHED_FIFO (--rt-threads, --rt-priority), the others fair; with RT "
		       "group scheduling (cgroup v1) guest 1's group is granted a runtime of each second (note "
		       "rt_runtime_us; at most 900 ms), so it cannot take a CPU whole";
	default:
		return "";
	}
}

/* The guest's vCPU threads, each once. */
static void vcpus_of(struct guest *g)
{
	const int *tids;
	size_t n = lab_guest_vcpus(g->g, &tids);

	g->nvcpu = 0;
	for (size_t i = 0; i < n && g->nvcpu < CONTEND_MAX_TIDS; i++) {
		size_t j = 0;

		while (j < g->nvcpu && g->vcpu[j] != tids[i])
			j++;
		if (j == g->nvcpu)
			g->vcpu[g->nvcpu++] = tids[i];
	}
}

static void cg_prepare(struct contend *x)
{
	int r;

	/* the permission first: without it no runtime is granted, and the
	 * reason said is the permission, whatever other groups hold */
	if (x->o->policy[CONTEND_RT] && (r = rt_allowed(x->o->rt_priority)) < 0)
		contend_skip(x, CONTEND_RT, "this process may not run threads SCHED_FIFO (%s): it needs root or "
			     "CAP_SYS_NICE", strerror(-r));
	groups_make(x);
}

static int cg_attach(struct contend *x, struct guest *g, char *err, size_t errlen)
{
	const struct contend_opts *o = x->o;

	g->pid = lab_guest_pid(g->g);
	vcpus_of(g);
	if (o->affinity && confine(g->pid, o->affinity) < 0)
		return errf(err, errlen, -EIO, "guest %u: its QEMU's threads could not be confined to --host-cpus %s",
			    g->idx + 1, o->host_cpus ? o->host_cpus : "");
	if (x->tree.made && cg_tree_attach(&x->tree, g->idx, g->pid) < 0) {
		contend_skip_all(x, "a QEMU could not be moved into its guest's cgroup");
		log_info("every policy skipped: a QEMU could not be moved into its guest's cgroup");
	}
	return 0;
}

static void cg_undo(struct contend *x)
{
	cg_tree_undo(&x->tree);
}

const struct contend_tuner contend_tune_cgroup = {
	.name = "cgroup",
	.prepare = cg_prepare,
	.attach = cg_attach,
	.knobs = cg_knobs,
	.rt = cg_rt,
	.sample = cg_sample,
	.note = cg_note,
	.undo = cg_undo,
};

/* -- the hypervisor row -- */

const char *contend_policy_unsupported(enum contend_policy p)
{
	/* libvirt sets a vCPU's real-time scheduler in the domain's definition
	 * (<vcpusched>), for its whole life; a cell changes it */
	if (p == CONTEND_RT && lab_hv_default()->tune)
		return "through libvirt, a real-time scheduler is the domain's definition (<cputune> <vcpusched>), set "
		       "for its whole life, and lab contend changes it cell by cell; run rt without --connect";
	return NULL;
}

void contend_plan_skips(const char *policies, char *buf, size_t len)
{
	size_t at = 0;

	if (len)
		buf[0] = '\0';
	for (const char *it = policies; it && *it && at < len; it += strcspn(it, ","), it += *it == ',') {
		char name[32];
		int p;
		const char *why;

		snprintf(name, sizeof(name), "%.*s", (int)strcspn(it, ","), it);
		p = contend_policy_parse(name);
		why = p >= 0 ? contend_policy_unsupported((enum contend_policy)p) : NULL;
		if (why) {
			int n = snprintf(buf + at, len - at, "%s%s: skipped here: %s", at ? "; " : "", name, why);

			at = n < 0 ? len : at + (size_t)n;
		}
	}
}

static void hv_prepare(struct contend *x)
{
	const struct lab_hv_ops *hv = lab_hv_default();

	for (int p = 0; p < CONTEND_NPOLICIES; p++)
		if (!hv->tune || !hv->vcpu_stat)
			contend_skip(x, (enum contend_policy)p, "%s", lab_hv_why_not(hv, hv->tune ? "vcpu_stat" : "tune"));
	for (int p = 0; p < CONTEND_NPOLICIES; p++)
		if (contend_policy_unsupported((enum contend_policy)p))
			contend_skip(x, (enum contend_policy)p, "%s", contend_policy_unsupported((enum contend_policy)p));
}

static int hv_attach(struct contend *x, struct guest *g, char *err, size_t errlen)
{
	const struct lab_hv_ops *hv = lab_hv_default();
	const char *ctl = lab_guest_ctl(g->g);
	char why[512] = "";
	int r = hv->open(ctl, 10000, &g->mon, why, sizeof(why));

	if (r == 0 && x->o->affinity)
		r = hv->confine ? hv->confine(g->mon, x->o->affinity, why, sizeof(why))
				: errf(why, sizeof(why), -EOPNOTSUPP, "%s", lab_hv_why_not(hv, "confine"));
	return r < 0 ? errf(err, errlen, r, "guest %u: %s%s%s", g->idx + 1,
			    x->o->affinity ? "confining it to --host-cpus " : "",
			    x->o->affinity && x->o->host_cpus ? x->o->host_cpus : "", why) : 0;
}

static int hv_knobs(struct contend *x, enum contend_policy p, char *err, size_t errlen)
{
	const struct lab_hv_ops *hv = lab_hv_default();
	struct cg_knob k[CONTEND_MAX_GUESTS];
	char why[512] = "";
	int r = contend_knobs(p, &x->o->spec, CONTEND_PERIOD_US, k);

	for (unsigned i = 0; r == 0 && i < x->o->spec.nguests; i++) {
		r = hv->tune(x->gs[i].mon, k[i].weight, k[i].quota_us, CONTEND_PERIOD_US, why, sizeof(why));
		if (r < 0)
			errf(err, errlen, r, "setting %s's knobs (guest %u): %s", contend_policy_names[p], i + 1, why);
	}
	if (r < 0 && !why[0])
		errf(err, errlen, r, "setting %s's knobs (plan): %s", contend_policy_names[p], strerror(-r));
	return r;
}

static int hv_sample(struct contend *x, const struct guest *g, struct contend_sched *sum)
{
	const struct lab_hv_ops *hv = lab_hv_default();
	char why[512];
	bool exact = true;
	int r;

	memset(sum, 0, sizeof(*sum));
	r = hv->vcpu_stat(g->mon, &sum->cpu_ns, &sum->wait_ns, &exact, why, sizeof(why));
	if (r < 0)
		log_debug("guest %u: its vCPUs' statistics: %s", g->idx + 1, why);
	else if (!exact)
		x->ticks = true;
	return r;
}

static const char *hv_note(enum contend_policy p)
{
	switch (p) {
	case CONTEND_FAIR:
		return "through the hypervisor: every domain's cpu_shares at its hierarchy's default (cgroup v1 1024, "
		       "v2's cpu.weight 100), no cap (libvirt's scheduler parameters, on its cgroup)";
	case CONTEND_WEIGHTS:
		return "through the hypervisor: each domain's cpu_shares its hierarchy's default (cgroup v1 1024, v2's "
		       "cpu.weight 100) x its weight from --shares, no cap "
		       "(libvirt's scheduler parameters, on its cgroup)";
	case CONTEND_RESERVATION:
		return "through the hypervisor: Linux has no hard CPU reservation (no floor): guest 1's reserve is "
		       "approximated by capping each other domain at its part of the rest (libvirt's global_quota per "
		       "global_period of 100 ms, the whole domain's); guest 1 is not capped";
	default:
		return "";
	}
}

static void hv_undo(struct contend *x)
{
	const struct lab_hv_ops *hv = lab_hv_default();

	for (unsigned i = 0; i < CONTEND_MAX_GUESTS; i++) {
		if (x->gs[i].mon && hv->close)
			hv->close(x->gs[i].mon);
		x->gs[i].mon = NULL;
	}
}

const struct contend_tuner contend_tune_hv = {
	.name = "hypervisor",
	.prepare = hv_prepare,
	.attach = hv_attach,
	.knobs = hv_knobs,
	.sample = hv_sample,
	.note = hv_note,
	.undo = hv_undo,
};
