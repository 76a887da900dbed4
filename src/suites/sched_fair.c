/* The sched suite's fairness test: worker groups in cgroups under
 * fair-share weights, a bandwidth reservation and real time for a probe
 * thread; Jain's index against the configured shares and the probe's
 * latency. The groups are a tree of the cgroup planner (src/core/cgroup.h),
 * found from setup (sched_fair_find_cgroups), on a private cgroup2 mount
 * when no mounted hierarchy offers cpu. */
#include <errno.h>
#include <inttypes.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "sched.h"
#include "../core/clock.h"
#include "../core/stoppoint.h"
#include "../core/suite.h"
#include "../core/banned.h"

struct fair_row {
	const char *name;    /* metric prefix */
	const char *mode;    /* the --sched.mode that selects it */
	enum cg_mode cg;
	bool weighted;       /* the configured weights, else all equal */
	bool rt_probe;
};

static const struct fair_row fair_rows[] = {
	{ "fair_equal", "fair", CG_FAIR, false, false },
	{ "fair", "fair", CG_FAIR, true, false },
	{ "reservation", "reservation", CG_RESERVATION, true, false },
	{ "rt", "rt", CG_RT, false, true },
};

struct fair_shared {
	const struct sched_state *st;
	const struct fair_row *row;
	double duration_s;
	atomic_bool done; /* the probe's window ended: the workers stop */
};

struct fair_worker {
	struct fair_shared *sh;
	unsigned group; /* == ngroups: the probe */
	uint64_t chunks;
	uint64_t cpu_ns; /* the thread's own CPU time over the window */
	struct sched_lat lat;
};

static int attach_self(const struct sched_state *st, unsigned group)
{
	return cg_tree_attach(&st->tree, group, sched_gettid());
}

static void fair_fn(struct vmb_worker *w)
{
	struct fair_worker *fw = w->arg;
	struct fair_shared *sh = fw->sh;
	const struct sched_state *st = sh->st;
	bool probe = fw->group == st->ngroups;

	/* all on one CPU: the groups compete for it, as vCPUs on a core */
	w->err = sched_pin_self(st->cpus[0]);
	if (w->err == 0)
		w->err = attach_self(st, fw->group);
	if (w->err == 0 && probe && sh->row->rt_probe)
		w->err = sched_set_policy(SCHED_FIFO, st->priority ? st->priority : 50);
	if (fw->group == 0)
		vmb_test_stop_point("sched-groups"); /* tests kill the process here */
	vmb_worker_sync(w);
	if (w->err < 0) {
		atomic_store(&sh->done, true);
		return;
	}
	w->start_ns = clock_ns();
	if (probe) {
		(void)sched_cyclic_loop(&fw->lat, st->interval_ns, sh->duration_s);
		atomic_store(&sh->done, true);
	} else {
		volatile uint64_t x = 88172645463325252ull + fw->group;
		uint64_t c0 = clock_thread_cpu_ns();

		while (!atomic_load(&sh->done)) {
			for (unsigned i = 0; i < 4096; i++)
				x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			fw->chunks++;
		}
		fw->cpu_ns = clock_thread_cpu_ns() - c0;
	}
	w->end_ns = clock_ns();
}

/* The real-time runtime of the probe's group, asked for once: where the
 * parent has none left, rt_skip says who holds it and rt is left out. */
static int groups_rt(struct sched_state *st)
{
	const struct cg_op *bad = &st->tree.failed;
	int r = cg_tree_rt(&st->tree, 100000);

	if (r == -EINVAL || r == -EBUSY) {
		char why[800];

		if (r != -EINVAL || cg_rt_why(bad->path, 100000, why, sizeof(why)) < 0)
			why[0] = '\0';
		if (why[0])
			snprintf(st->rt_skip, sizeof(st->rt_skip), "real-time runtime was refused (%s): %s",
				 strerror(-r), why);
		else
			snprintf(st->rt_skip, sizeof(st->rt_skip), "writing %s: %s", bad->path, strerror(-r));
		r = 0;
	}
	return r;
}

/* Create the groups, with the watchdog that removes them whatever way the
 * process ends; once for every test that asks for as many (fairness's
 * weights and quota's quotas may differ: then the tree is made again). */
int sched_groups(struct vmb_ctx *ctx, struct sched_state *st, unsigned ngroups, bool rt)
{
	struct cg_tree *t = &st->tree;
	const struct cg_op *bad = &t->failed;
	int r = 0;

	if (t->made && t->ngroups != ngroups) {
		bool private = st->cg.private_mount;

		cg_tree_undo(t);
		st->rt_tried = false;
		/* a private cgroup2 mount goes with the tree (its plan unmounts
		 * it): the next tree finds the hierarchy again and mounts anew
		 * (sched.quota after sched.fairness in a guest that mounts none) */
		if (private) {
			st->cg.private_mount = false;
			sched_fair_find_cgroups(st);
		}
	}
	if (!t->made) {
		if (st->try_private) {
			st->try_private = false;
			(void)cg_mount_private(&st->cg, st->cg_skip, sizeof(st->cg_skip));
		}
		if (st->cg_skip[0])
			return vmb_skip(ctx, "%s", st->cg_skip);
		r = cg_tree_make(t, &st->cg, getpid(), ngroups);
		if (r < 0 && !bad->path[0] && !t->made)
			return vmb_fail(ctx, r, "planning cgroups under %s%s", st->cg.mount, st->cg.self);
		if (r == 0)
			(void)vmb_note(ctx, "cgroups", "cgroup %s%s, groups under %s%s/" CG_TREE_SCHED "-PID",
				       st->cg.ver == CG_V1 ? "v1" : "v2",
				       st->cg.private_mount ? " (a private mount of its own)" : "", st->cg.mount,
				       st->cg.self);
	}
	if (r == 0 && rt && st->cg.rt_group && !st->rt_tried) {
		st->rt_tried = true;
		r = groups_rt(st);
	}
	if (r == -EACCES || r == -EPERM || r == -EROFS) {
		snprintf(st->cg_skip, sizeof(st->cg_skip), "no permission to create cgroups (%s: %s)",
			 bad->path[0] ? bad->path : "?", strerror(-r));
		cg_tree_undo(t);
		return vmb_skip(ctx, "%s", st->cg_skip);
	}
	if (r < 0) {
		r = vmb_fail(ctx, r, "%s %s", bad->kind == CG_MKDIR ? "creating" : "writing",
			     bad->path[0] ? bad->path : "cgroups");
		cg_tree_undo(t);
	}
	return r;
}

static int fair_one(struct vmb_ctx *ctx, struct sched_state *st, const struct fair_row *row, double duration_s,
		    struct vmb_rep *rep)
{
	unsigned n = st->ngroups + 1, equal[CG_MAX_GROUPS];
	const unsigned *weights = row->weighted ? st->weights : equal;
	struct fair_shared sh = { .st = st, .row = row, .duration_s = duration_s };
	struct vmb_worker workers[CG_MAX_GROUPS + 1];
	struct fair_worker fw[CG_MAX_GROUPS + 1];
	double got[CG_MAX_GROUPS], promised[CG_MAX_GROUPS], total = 0, window;
	struct cg_knob k[CG_MAX_GROUPS];
	char name[48];
	int r;

	for (unsigned i = 0; i < st->ngroups; i++)
		equal[i] = 1;
	r = cg_mode_knobs(row->cg, weights, st->ngroups, st->period_us, k);
	if (r == 0)
		r = cg_tree_knobs(&st->tree, k, st->period_us);
	if (r < 0)
		return vmb_fail(ctx, r, "writing %s", st->tree.failed.path[0] ? st->tree.failed.path : "cgroup knobs");
	atomic_init(&sh.done, false);
	memset(workers, 0, sizeof(workers));
	memset(fw, 0, sizeof(fw));
	for (unsigned i = 0; i < n; i++) {
		fw[i].sh = &sh;
		fw[i].group = i;
		sched_lat_init(&fw[i].lat, st->threshold_ns);
		workers[i].arg = &fw[i];
	}
	r = vmb_parallel(ctx, n, fair_fn, workers);
	if (r < 0 && ctx->reason[0])
		return r;
	for (unsigned i = 0; i < n; i++)
		if (workers[i].err < 0) {
			if (workers[i].err == -EPERM && i == st->ngroups) {
				/* the other modes' figures of this repetition stand; rt is left out from here on */
				snprintf(st->rt_skip, sizeof(st->rt_skip), "the probe's SCHED_FIFO was refused (no "
					 "CAP_SYS_NICE and RLIMIT_RTPRIO 0, or a cpu cgroup without real-time runtime)");
				if (!strcmp(st->mode, "rt"))
					return vmb_skip(ctx, "rt mode: %s", st->rt_skip);
				(void)vmb_note(ctx, "fairness_rt", "not measured: %s", st->rt_skip);
				return 0;
			}
			return vmb_fail(ctx, workers[i].err, "%s: %s thread", row->name,
					i == st->ngroups ? "probe" : "worker");
		}
	if (r < 0)
		return vmb_fail(ctx, r, "starting %u threads", n);
	window = (double)(workers[st->ngroups].end_ns - workers[st->ngroups].start_ns) / NSEC_PER_SEC;
	for (unsigned i = 0; i < st->ngroups; i++) {
		got[i] = (double)fw[i].chunks;
		promised[i] = weights[i];
		total += got[i];
	}
	if (!(total > 0) || !(window > 0) || fw[st->ngroups].lat.hist.count == 0)
		return vmb_fail(ctx, -EIO, "%s: no work done in %.3f s", row->name, duration_s);
	snprintf(name, sizeof(name), "%s_jain", row->name);
	vmb_rep_value(rep, name, VMB_UNIT_RATIO, VMB_HIGHER, sched_jain(got, promised, st->ngroups));
	for (unsigned i = 0; i < st->ngroups; i++) {
		snprintf(name, sizeof(name), "%s_g%u_share", row->name, i);
		vmb_rep_value(rep, name, VMB_UNIT_RATIO, VMB_HIGHER, got[i] / total);
		/* the CPU time it got, in % of one CPU: a reservation's cap shows here */
		snprintf(name, sizeof(name), "%s_g%u_cpu_pct", row->name, i);
		vmb_rep_value(rep, name, VMB_UNIT_PCT, VMB_HIGHER, (double)fw[i].cpu_ns / 1e7 / window);
	}
	snprintf(name, sizeof(name), "%s_chunks_per_s", row->name);
	vmb_rep_value(rep, name, VMB_UNIT_PER_S, VMB_HIGHER, total / window);
	snprintf(name, sizeof(name), "%s_probe", row->name);
	sched_report_lat(rep, name, &fw[st->ngroups].lat, false);
	return 0;
}

static int run_fairness(struct vmb_ctx *ctx, struct sched_state *st, struct vmb_rep *rep)
{
	size_t nrows = 0;
	int r;

	r = sched_groups(ctx, st, st->ngroups, true);
	if (r < 0)
		return r;
	for (size_t i = 0; i < sizeof(fair_rows) / sizeof(fair_rows[0]); i++)
		nrows += !strcmp(st->mode, "all") || !strcmp(st->mode, fair_rows[i].mode);
	for (size_t i = 0; i < sizeof(fair_rows) / sizeof(fair_rows[0]) && r == 0; i++) {
		const struct fair_row *row = &fair_rows[i];

		if (strcmp(st->mode, "all") && strcmp(st->mode, row->mode))
			continue;
		if (row->rt_probe && st->rt_skip[0]) {
			if (!strcmp(st->mode, "rt"))
				return vmb_skip(ctx, "rt mode: %s", st->rt_skip);
			(void)vmb_note(ctx, "fairness_rt", "not measured: %s", st->rt_skip);
			continue;
		}
		r = fair_one(ctx, st, row, ctx->duration_s / (double)nrows, rep);
		if (vmb_stop_requested())
			break;
	}
	return r;
}

/* Where the cpu controller is; why fairness cannot run when nowhere. */
void sched_fair_find_cgroups(struct sched_state *st)
{
	int r = cg_probe(&st->cg, st->cg_skip, sizeof(st->cg_skip));

	st->try_private = r == -ENOENT;
}

int sched_run_fairness(struct vmb_ctx *ctx, const struct vmb_test *test, struct vmb_rep *rep)
{
	(void)test;
	return sched_end(run_fairness(ctx, ctx->priv, rep));
}
