/* lab contend: several guests at once under a host scheduling policy (see
 * contend.h). The cgroups are a tree of the cgroup planner (src/core/cgroup.h,
 * as sched.fairness's), undone on every exit path, kill -9 included, by its
 * watchdog; a real-time priority goes with the QEMU it was given to, and
 * every QEMU dies with this process (lab_spawn). */
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

#include "contend.h"
#include "hostmeasure.h"
#include "../core/clock.h"
#include "../core/log.h"
#include "../core/result.h"
#include "../core/stop.h"
#include "../core/stoppoint.h"
#include "../core/str.h"
#include "../core/util.h"
#include "../store/doc.h"
#include "../suites/sched.h"
#include "../core/banned.h"

#define CONTEND_MAX_TIDS 256

struct guest {
	unsigned idx; /* 0-based; guest idx + 1 in labels */
	struct lab_guest *g;
	pid_t pid;
	int vcpu[CONTEND_MAX_TIDS];
	size_t nvcpu;
	/* one RUN */
	const struct contend_opts *o;
	const char *item;
	bool net;      /* item is measured by the host's client over the network path, beside a LOAD */
	unsigned load; /* the cell's */
	bool want_net;      /* a net item is asked: its network path started after its boot */
	char net_why[600];  /* why not (its NIC has no link), or empty */
	json_t *opts, *doc, *cell; /* the RUN's document; the cell's merged one */
	struct window *w;
	char err[1024];
	int r;
	struct lab_failure f;
	/* the cell's host figures, per item */
	struct lab_host_contended *seen;
	size_t nseen;
};

struct contend_cell {
	enum contend_policy p;
	unsigned load;
};

/* The window every guest's RUN covers: from just before the first RUN was
 * sent to the end of the first RUN to end, when every guest's vCPU threads
 * are sampled (a guest done early would otherwise leave the others a
 * larger share in their tails, and shares of different windows would not
 * add up). */
struct window {
	pthread_mutex_t lock;
	pthread_cond_t go_cond;
	int go; /* 0 wait, 1 send the RUN, -1 do not (a thread could not be started) */
	bool ended;
	struct guest *gs;
	unsigned n;
	double t0, t1;
	struct contend_sched a[CONTEND_MAX_GUESTS], b[CONTEND_MAX_GUESTS];
	bool ok;
};

struct contend {
	const struct contend_opts *o;
	struct cg_layout l;
	struct cg_tree tree;           /* the groups: made when tree.made */
	unsigned rt_us;                /* RT runtime granted to guest 1's group, of each second (v1) */
	const char *why[CONTEND_NPOLICIES]; /* a policy that cannot run here, and why */
	char net_why[600];             /* why the net items are skipped (no link), or empty */
	char whybuf[CONTEND_NPOLICIES][400];
	struct guest gs[CONTEND_MAX_GUESTS];
};

static void skip_policy(struct contend *x, enum contend_policy p, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void skip_policy(struct contend *x, enum contend_policy p, const char *fmt, ...)
{
	va_list ap;

	if (x->why[p])
		return;
	va_start(ap, fmt);
	vsnprintf(x->whybuf[p], sizeof(x->whybuf[p]), fmt, ap);
	va_end(ap);
	x->why[p] = x->whybuf[p];
}

static void skip_all(struct contend *x, const char *why)
{
	for (int p = 0; p < CONTEND_NPOLICIES; p++)
		skip_policy(x, (enum contend_policy)p, "%s", why);
}

/* The tree: a parent under this process's cgroup, a group per guest; the
 * RT runtime for rt granted to the parent and guest 1's group (v1 with RT
 * group scheduling). What fails skips the policies that need it. */
static void groups_make(struct contend *x)
{
	struct cg_tree *t = &x->tree;
	char why[400];
	int r = cg_probe(&x->l, why, sizeof(why));

	if (r < 0) {
		skip_all(x, why);
		return;
	}
	x->l.tree = CG_TREE_CONTEND;
	x->l.no_probe = true;
	r = cg_tree_make(t, &x->l, getpid(), x->o->spec.nguests);
	if (r < 0) {
		skip_all(x, "");
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
			skip_policy(x, CONTEND_RT, "real-time runtime could not be granted to guest 1's group (%s: %s): "
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
static int sample(const struct guest *g, struct contend_sched *sum)
{
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

/* A guest booted, checked, and when a net item is asked its network path
 * started (the guest's serve), each guest's in a thread of its own. */
static void *boot_thread(void *arg)
{
	struct guest *g = arg;
	int r;

	g->r = lab_guest_ready(g->g, &g->f, g->err, sizeof(g->err));
	if (g->r < 0 || !g->want_net)
		return NULL;
	r = lab_guest_net_start(g->g, g->net_why, sizeof(g->net_why));
	if (r == -EOPNOTSUPP)
		return NULL;
	if (r < 0) {
		/* the failure's message, before net_why (only a skip's) is emptied */
		snprintf(g->f.step, sizeof(g->f.step), "start its network path");
		g->r = errf(g->err, sizeof(g->err), r, "%s", g->net_why);
	}
	g->net_why[0] = '\0';
	return NULL;
}

/* What a net item's guest was loaded with, in each suite's notes of its
 * document as `run --load` writes them: the load asked and what the
 * agent's spinners got (left out when not known). */
static int load_notes(json_t *doc, unsigned asked, double got)
{
	int r = doc_note_all(doc, "load_asked_pct", json_integer(asked));

	if (r == 0 && isfinite(got))
		r = doc_note_all(doc, "load_done_pct", json_real(round(got * 10) / 10));
	return r;
}

/* A net item's run: the guest's background load started (LOAD), the
 * host's client run against the guest's serve, then the window sampled
 * and the load stopped (LOAD 0), whatever the run did; its document says
 * what the load was asked and got. */
static int net_run(struct guest *g, void (*ended)(struct guest *))
{
	unsigned asked;
	double got;
	char e2[512];
	int r = lab_guest_load(g->g, g->load, &asked, &got, g->err, sizeof(g->err)), r2;

	if (r == 0)
		r = lab_guest_run(g->g, g->item, g->opts, &g->doc, g->err, sizeof(g->err));
	ended(g);
	r2 = lab_guest_load(g->g, 0, &asked, &got, e2, sizeof(e2));
	if (r == 0 && r2 < 0)
		r = errf(g->err, sizeof(g->err), r2, "%s", e2);
	if (r == 0 && asked != g->load)
		r = errf(g->err, sizeof(g->err), -EPROTO, "the guest's agent stopped a load of %u%%, and %u%% was "
			 "asked", asked, g->load);
	if (r == 0 && load_notes(g->doc, asked, got) < 0)
		r = errf(g->err, sizeof(g->err), -ENOMEM, "out of memory");
	if (r < 0) {
		json_decref(g->doc);
		g->doc = NULL;
	}
	return r;
}

/* The first RUN to end ends the window: every guest's vCPU threads sampled. */
static void window_end(struct guest *g)
{
	struct window *w = g->w;

	(void)pthread_mutex_lock(&w->lock);
	if (!w->ended) {
		w->ended = true;
		for (unsigned i = 0; i < w->n; i++)
			w->ok = w->ok && sample(&w->gs[i], &w->b[i]) == 0;
		w->t1 = clock_s();
	}
	(void)pthread_mutex_unlock(&w->lock);
}

/* One guest's RUN: started with the others (the barrier), its vCPU
 * threads sampled at its ends. */
static void *run_thread(void *arg)
{
	struct guest *g = arg;
	struct window *w = g->w;
	int go;

	(void)pthread_mutex_lock(&w->lock);
	while (!w->go)
		(void)pthread_cond_wait(&w->go_cond, &w->lock);
	go = w->go;
	(void)pthread_mutex_unlock(&w->lock);
	if (go < 0) {
		g->r = -ECANCELED;
		return NULL;
	}
	if (g->net) {
		g->r = net_run(g, window_end);
		return NULL;
	}
	g->r = lab_guest_run(g->g, g->item, g->opts, &g->doc, g->err, sizeof(g->err));
	window_end(g);
	return NULL;
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

static int set_rt(struct contend *x, unsigned prio)
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

static int apply_knobs(struct contend *x, enum contend_policy p, char *err, size_t errlen)
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

static const char *policy_note(enum contend_policy p)
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

/* What the host saw of guest g over the RUN of item, kept for the cell's
 * host-measured suites (their rows' step LAB_HOST_CONTEND). */
static int seen_add(struct guest *g, const char *item, const struct contend_figures *f, double promised, double jain)
{
	struct lab_host_contended *e = realloc(g->seen, (g->nseen + 1) * sizeof(*e));

	if (!e)
		return -ENOMEM;
	g->seen = e;
	e = &e[g->nseen++];
	*e = (struct lab_host_contended){ .share_pct = f->share_pct, .promised_pct = promised, .delay_pct = f->delay_pct,
					  .delay_ns_per_slice = f->delay_ns_per_slice, .jain = jain };
	snprintf(e->item, sizeof(e->item), "%s", item);
	return 0;
}

static int set_labels(json_t *doc, enum contend_policy p, unsigned guest, unsigned load)
{
	json_t *labels = json_object_get(doc, "labels");
	char v[16];

	if (!json_is_object(labels)) {
		labels = json_object();
		if (!labels || json_object_set_new(doc, "labels", labels) < 0)
			return -ENOMEM;
	}
	snprintf(v, sizeof(v), "%u", guest);
	if (json_object_set_new(labels, "policy", json_string(contend_policy_names[p])) < 0 ||
	    json_object_set_new(labels, "guest", json_string(v)) < 0)
		return -ENOMEM;
	snprintf(v, sizeof(v), "%u", load);
	return json_object_set_new(labels, "load", json_string(v)) < 0 ? -ENOMEM : 0;
}

/* The facts of a cell that a guest's host-measured suites note. */
struct cell_notes {
	const char *notes[8][2];
	size_t n;
	char given[16], guests[16], rt[64], rt_us[16];
};

static void cell_notes(const struct contend *x, enum contend_policy p, unsigned i, struct cell_notes *cn)
{
	const struct contend_opts *o = x->o;

#define NOTE(name, value) (cn->notes[cn->n][0] = (name), cn->notes[cn->n][1] = (value), cn->n++)
	cn->n = 0;
	NOTE("policy", policy_note(p));
	NOTE("host_cpus", o->host_cpus ? o->host_cpus : "all");
	snprintf(cn->given, sizeof(cn->given), "%u", o->spec.ncpus);
	NOTE("host_cpus_given", cn->given);
	snprintf(cn->guests, sizeof(cn->guests), "%u", o->spec.nguests);
	NOTE("guests", cn->guests);
	if (p == CONTEND_RT) {
		if (o->rt_all)
			snprintf(cn->rt, sizeof(cn->rt), "SCHED_FIFO: vCPU threads %u, QEMU's other threads %u", o->rt_priority,
				 o->rt_priority < 99 ? o->rt_priority + 1 : 99);
		else
			snprintf(cn->rt, sizeof(cn->rt), "SCHED_FIFO %u: vCPU threads only", o->rt_priority);
		NOTE("rt", i == 0 ? cn->rt : "SCHED_OTHER");
	}
	if (x->l.ver)
		NOTE("cgroup", x->l.ver == CG_V1 ? "v1" : "v2");
	snprintf(cn->rt_us, sizeof(cn->rt_us), "%u", x->rt_us);
	if (p == CONTEND_RT && i == 0 && x->rt_us)
		NOTE("rt_runtime_us", cn->rt_us);
#undef NOTE
}

/* A --suites item measured over a network path (net.udp_rr): from the
 * host to the guest, beside the guest's LOAD. */
static bool net_item(const char *item)
{
	const struct vmb_suite *s = lab_item_suite(item);

	return s && (s->flags & VMB_SUITE_NET_PEER);
}

/* One cell (policy p, load) of round k: the policy applied, each item run
 * on every guest at once, the documents kept. */
static int cell(struct contend *x, enum contend_policy p, unsigned load, unsigned k, const json_t *order, char *err,
		size_t errlen)
{
	const struct contend_opts *o = x->o;
	unsigned n = o->spec.nguests;
	double promised[CONTEND_MAX_GUESTS];
	bool rt = false;
	int r;

	log_info("round %u: %s, load %u%%", k, contend_policy_names[p], load);
	r = apply_knobs(x, p, err, errlen);
	if (r == 0 && p == CONTEND_RT) {
		r = set_rt(x, o->rt_priority);
		rt = true;
		if (r < 0) {
			skip_policy(x, CONTEND_RT, "guest 1's threads could not be made SCHED_FIFO: %s%s", strerror(-r),
				    r == -EPERM ? " (it needs root or CAP_SYS_NICE, and with RT group scheduling a "
						  "granted runtime)" : "");
			log_info("%s: skipped: %s", contend_policy_names[p], x->why[p]);
			(void)set_rt(x, 0);
			return 0;
		}
	}
	if (r < 0) {
		skip_policy(x, p, "%s", err);
		log_info("%s: skipped: %s", contend_policy_names[p], err);
		return 0;
	}
	/* tests interrupt or kill -9 the run here: the groups made, the knobs
	 * and any real-time priority set, the guests idle */
	vmb_test_stop_point("contend-cell");
	(void)contend_expected(p, &o->spec, promised);
	for (unsigned i = 0; i < n; i++) {
		x->gs[i].cell = NULL;
		x->gs[i].nseen = 0;
	}
	/* Ctrl-C: after the RUN under way (a second one kills every QEMU at once) */
	for (const char *it = o->ro->suites; r == 0 && it && *it && !vmb_stop_requested();
	     it += strcspn(it, ","), it += *it == ',') {
		char item[64];
		pthread_t th[CONTEND_MAX_GUESTS];
		struct contend_figures f[CONTEND_MAX_GUESTS];
		double got[CONTEND_MAX_GUESTS], jain;
		struct window w = { .lock = PTHREAD_MUTEX_INITIALIZER, .go_cond = PTHREAD_COND_INITIALIZER, .gs = x->gs,
				    .n = n, .ok = true };
		unsigned started = 0;
		bool measured = true, net;

		snprintf(item, sizeof(item), "%.*s", (int)strcspn(it, ","), it);
		if (lab_host_measured(item))
			continue;
		net = net_item(item);
		if (net && *x->net_why)
			continue; /* skipped, as was said after the boot */
		for (unsigned i = 0; i < n && r == 0; i++) {
			struct guest *g = &x->gs[i];

			g->item = item;
			g->net = net;
			g->load = load;
			g->doc = NULL;
			g->w = &w;
			g->opts = lab_guest_opts(g->g, o->ro, item);
			/* a net item's load is the guest's LOAD, not its client's (the host's) */
			if (!g->opts || (!net && json_object_set_new(g->opts, "load", json_integer(load)) < 0))
				r = errf(err, errlen, -ENOMEM, "out of memory");
		}
		/* the wall clock read before the first counter and after the last
		 * (run_thread): the window holds every CPU second counted in it */
		w.t0 = clock_s();
		for (unsigned i = 0; i < n && r == 0; i++)
			w.ok = w.ok && sample(&x->gs[i], &w.a[i]) == 0;
		/* every thread waits for go: the RUNs leave together, or none does */
		for (; started < n && r == 0; started++)
			if (pthread_create(&th[started], NULL, run_thread, &x->gs[started]) != 0)
				r = errf(err, errlen, -EAGAIN, "starting a thread per guest");
		(void)pthread_mutex_lock(&w.lock);
		w.go = r == 0 ? 1 : -1;
		(void)pthread_cond_broadcast(&w.go_cond);
		(void)pthread_mutex_unlock(&w.lock);
		for (unsigned i = 0; i < started; i++)
			(void)pthread_join(th[i], NULL);
		for (unsigned i = 0; i < n; i++) {
			struct guest *g = &x->gs[i];

			json_decref(g->opts);
			g->opts = NULL;
			if (r == 0 && g->r < 0)
				r = errf(err, errlen, g->r, "guest %u: %s", i + 1, g->err);
			if (r == 0 && (!w.ok || contend_figures(&w.a[i], &w.b[i], w.t1 - w.t0, o->spec.ncpus, &f[i]) < 0))
				measured = false;
			got[i] = r == 0 && measured ? f[i].share_pct : NAN;
		}
		jain = measured ? sched_jain(got, promised, n) : NAN;
		for (unsigned i = 0; i < n && r == 0; i++) {
			struct guest *g = &x->gs[i];
			struct contend_figures none = { NAN, NAN, NAN };

			if (!measured)
				log_warn("guest %u: %s: no host figures (a vCPU thread's schedstat could not be read, or a "
					 "guest's share of the window was over 100%%)", i + 1, item);
			if (seen_add(g, item, measured ? &f[i] : &none, promised[i], jain) < 0)
				r = errf(err, errlen, -ENOMEM, "out of memory");
			else if (!g->cell)
				g->cell = g->doc;
			else if (json_array_extend(json_object_get(g->cell, "suites"), json_object_get(g->doc, "suites")) < 0)
				r = errf(err, errlen, -ENOMEM, "out of memory");
			if (g->cell != g->doc)
				json_decref(g->doc);
			g->doc = NULL;
		}
		for (unsigned i = 0; i < n && r < 0; i++) {
			if (x->gs[i].cell != x->gs[i].doc)
				json_decref(x->gs[i].doc);
			x->gs[i].doc = NULL;
		}
	}
	if (rt)
		(void)set_rt(x, 0);
	/* a cell cut short by Ctrl-C is not stored as if it were whole */
	if (r == 0 && vmb_stop_requested())
		r = errf(err, errlen, -EINTR, "interrupted");
	for (unsigned i = 0; i < n; i++) {
		struct guest *g = &x->gs[i];
		struct cell_notes cn;

		/* the host-measured suites of a cell (rows of step LAB_HOST_CONTEND), from what was seen */
		cell_notes(x, p, i, &cn);
		for (size_t h = 0; r == 0 && g->cell && h < lab_host_nrows; h++) {
			const struct lab_host_row *row = &lab_host_rows[h];
			struct lab_host_req rq = { .suite = row->suite, .c = o->c, .o = o->ro, .seen = g->seen, .nseen = g->nseen,
						   .notes = (const char *const (*)[2])cn.notes, .nnotes = cn.n };
			json_t *suite = NULL;
			char why[512];

			if (row->when != LAB_HOST_CONTEND)
				continue;
			r = row->measure(&rq, &suite, why, sizeof(why));
			if (r < 0)
				r = errf(err, errlen, r, "guest %u: %s", i + 1, why);
			else if (json_array_append_new(json_object_get(g->cell, "suites"), suite) < 0)
				r = errf(err, errlen, -ENOMEM, "out of memory");
		}
		if (r == 0 && g->cell) {
			if (set_labels(g->cell, p, i + 1, load) < 0 ||
			    json_object_set_new(g->cell, "run_group", json_pack("{s:s, s:I, s:I, s:I, s:O}", "id", "contend",
					"round", (json_int_t)k, "rounds", (json_int_t)o->rounds, "seed", (json_int_t)o->seed,
					"order", order)) < 0)
				r = errf(err, errlen, -ENOMEM, "out of memory");
			else
				o->keep(o->arg, json_incref(g->cell));
		} /* else every item was skipped: nothing to store */
		json_decref(g->cell);
		g->cell = NULL;
		g->nseen = 0;
	}
	return r;
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

int lab_contend(const struct contend_opts *o, char *err, size_t errlen)
{
	struct contend *x = calloc(1, sizeof(*x));
	unsigned n = o->spec.nguests, ncells = 0;
	struct contend_cell cells[CONTEND_NPOLICIES * CONTEND_MAX_LOADS];
	uint64_t rng = o->seed;
	pthread_t th[CONTEND_MAX_GUESTS];
	bool ran = false;
	int r = 0;

	if (!x)
		return errf(err, errlen, -ENOMEM, "out of memory");
	x->o = o;
	cg_tree_init(&x->tree);
	for (int p = 0; p < CONTEND_NPOLICIES; p++)
		for (unsigned l = 0; o->policy[p] && l < o->nloads; l++)
			cells[ncells].p = (enum contend_policy)p, cells[ncells++].load = o->loads[l];
	/* the permission first: without it no runtime is granted, and the
	 * reason said is the permission, whatever other groups hold */
	if (o->policy[CONTEND_RT] && (r = rt_allowed(o->rt_priority)) < 0)
		skip_policy(x, CONTEND_RT, "this process may not run threads SCHED_FIFO (%s): it needs root or "
			    "CAP_SYS_NICE", strerror(-r));
	groups_make(x);
	vmb_test_stop_point("contend-groups"); /* tests kill the process here, its groups made */
	r = 0;
	for (int p = 0; p < CONTEND_NPOLICIES; p++)
		if (o->policy[p] && x->why[p])
			log_info("%s: skipped: %s", contend_policy_names[p], x->why[p]);
	{
		/* nothing to measure: no guest is booted for it */
		int p = 0;

		while (p < CONTEND_NPOLICIES && (!o->policy[p] || x->why[p]))
			p++;
		if (p == CONTEND_NPOLICIES) {
			cg_tree_undo(&x->tree);
			free(x);
			return errf(err, errlen, -EOPNOTSUPP, "no policy asked can run here (each was skipped, see why above)");
		}
	}
	/* boot every guest at once, each from a thread of its own; when a net
	 * item is asked, each guest's network path is started there too: the
	 * host's client in each QEMU's namespace against the guest's serve */
	for (const char *it = o->ro->suites; it && *it && !x->gs[0].want_net; it += strcspn(it, ","), it += *it == ',') {
		char item[64];

		snprintf(item, sizeof(item), "%.*s", (int)strcspn(it, ","), it);
		x->gs[0].want_net = net_item(item);
	}
	for (unsigned i = 0; i < n; i++) {
		x->gs[i].idx = i;
		x->gs[i].o = o;
		x->gs[i].r = -EAGAIN;
		x->gs[i].want_net = x->gs[0].want_net;
	}
	log_info("booting %u guests (%s)", n, o->c->v[LAB_ACCEL]);
	/* QEMU is started here, by the thread that lives as long as it does */
	for (unsigned i = 0; i < n && r == 0; i++)
		r = lab_guest_spawn(o->c, o->ro, &x->gs[i].g, err, errlen);
	for (unsigned i = 0; i < n; i++)
		if (r < 0 || !x->gs[i].g)
			th[i] = 0;
		else if (pthread_create(&th[i], NULL, boot_thread, &x->gs[i]) != 0)
			th[i] = 0, x->gs[i].r = errf(x->gs[i].err, sizeof(x->gs[i].err), -EAGAIN, "no thread to boot it");
	for (unsigned i = 0; i < n; i++)
		if (th[i])
			(void)pthread_join(th[i], NULL);
	for (unsigned i = 0; i < n; i++)
		if (x->gs[i].g && x->gs[i].r < 0 && x->gs[i].r != -EINTR && o->failed)
			o->failed(o->arg, i + 1, &x->gs[i].f, x->gs[i].err); /* before its files go */
	for (unsigned i = 0; i < n && r == 0; i++)
		if (x->gs[i].r < 0)
			r = errf(err, errlen, x->gs[i].r, "guest %u: %s failed: %s", i + 1, x->gs[i].f.step, x->gs[i].err);
	for (unsigned i = 0; i < n && r == 0; i++) {
		x->gs[i].pid = lab_guest_pid(x->gs[i].g);
		vcpus_of(&x->gs[i]);
		if (o->affinity && confine(x->gs[i].pid, o->affinity) < 0)
			r = errf(err, errlen, -EIO, "guest %u: its QEMU's threads could not be confined to --host-cpus %s",
				 i + 1, o->host_cpus ? o->host_cpus : "");
		if (r == 0 && x->tree.made && cg_tree_attach(&x->tree, i, x->gs[i].pid) < 0) {
			skip_all(x, "a QEMU could not be moved into its guest's cgroup");
			log_info("every policy skipped: a QEMU could not be moved into its guest's cgroup");
		}
	}
	/* a guest's NIC without a link skips the net items (every guest's is alike) */
	for (unsigned i = 0; i < n && r == 0 && !*x->net_why; i++)
		snprintf(x->net_why, sizeof(x->net_why), "%s", x->gs[i].net_why);
	if (r == 0 && *x->net_why) {
		bool other = false;

		for (const char *it = o->ro->suites; it && *it; it += strcspn(it, ","), it += *it == ',') {
			char item[64];

			snprintf(item, sizeof(item), "%.*s", (int)strcspn(it, ","), it);
			other = other || !net_item(item);
		}
		log_info("the net items: skipped: %s", x->net_why);
		if (!other)
			r = errf(err, errlen, -EOPNOTSUPP, "nothing to measure: the net items were skipped (%s)", x->net_why);
	}
	for (unsigned k = 1; r == 0 && k <= o->rounds && !vmb_stop_requested(); k++) {
		json_t *order = json_array();

		for (size_t i = ncells; i > 1; i--) {
			size_t j;

			rng = rng * 6364136223846793005ull + 1442695040888963407ull;
			j = (size_t)((rng >> 33) % i);
			{
				struct contend_cell t = cells[i - 1];

				cells[i - 1] = cells[j];
				cells[j] = t;
			}
		}
		for (size_t c = 0; order && c < ncells; c++) {
			char w[48];

			snprintf(w, sizeof(w), "policy=%s load=%u", contend_policy_names[cells[c].p], cells[c].load);
			if (json_array_append_new(order, json_string(w)) < 0) {
				json_decref(order);
				order = NULL;
			}
		}
		if (!order)
			r = errf(err, errlen, -ENOMEM, "out of memory");
		for (size_t c = 0; r == 0 && c < ncells && !vmb_stop_requested(); c++) {
			if (x->why[cells[c].p])
				continue;
			r = cell(x, cells[c].p, cells[c].load, k, order, err, errlen);
			ran = ran || (r == 0 && !x->why[cells[c].p]);
		}
		json_decref(order);
	}
	if (r == 0 && vmb_stop_requested())
		r = errf(err, errlen, -EINTR, "interrupted");
	if (r == 0 && !ran)
		r = errf(err, errlen, -EOPNOTSUPP, "no policy could run here (each was skipped, see why above)");
	for (unsigned i = 0; i < n; i++) {
		char e2[512];

		lab_failure_release(&x->gs[i].f);
		free(x->gs[i].seen);
		if (x->gs[i].g && lab_guest_stop(x->gs[i].g, r == 0, e2, sizeof(e2)) < 0 && r == 0)
			r = errf(err, errlen, -EIO, "guest %u: %s", i + 1, e2);
	}
	cg_tree_undo(&x->tree);
	free(x);
	return r;
}
