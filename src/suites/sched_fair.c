/* The sched suite's fairness test: worker groups in cgroups under
 * fair-share weights, a bandwidth reservation and real time for a probe
 * thread; Jain's index against the configured shares and the probe's
 * latency. Also where the cpu controller is found (sched_fair_find_cgroups,
 * called from setup) and a private cgroup2 mount when none offers it. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <unistd.h>
#include "sched.h"
#include "sched_cg.h"
#include "../core/clock.h"
#include "../core/file.h"
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
	char dir[CG_PATH_MAX], path[CG_PATH_MAX], tid[24];
	int fd, r = 0;

	r = cg_group_path(&st->cg, getpid(), group, st->ngroups, dir, sizeof(dir));
	if (r == 0)
		r = cg_attach_path(&st->cg, dir, path, sizeof(path));
	if (r < 0)
		return r;
	snprintf(tid, sizeof(tid), "%ld", (long)sched_gettid());
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (write(fd, tid, strlen(tid)) < 0)
		r = -errno;
	if (close(fd) < 0 && r == 0)
		r = -errno;
	return r;
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

/* Does the v2 file (cgroup.controllers, cgroup.subtree_control) list cpu? */
static bool v2_has_cpu(const char *mount, const char *self, const char *file)
{
	char path[CG_PATH_MAX + 32], *text = NULL;
	bool yes = false;

	snprintf(path, sizeof(path), "%s%s/%s", mount, self, file);
	if (read_file(path, &text) == 0) {
		/* a space-separated list: "cpuset cpu io" */
		for (char *save = NULL, *t = strtok_r(text, " \n", &save); t && !yes; t = strtok_r(NULL, " \n", &save))
			yes = !strcmp(t, "cpu");
	}
	free(text);
	return yes;
}

/* No mounted hierarchy offers cpu (a minimal guest mounts none): mount
 * cgroup2 privately, where the kernel has it and cpu is not bound to a v1
 * hierarchy. On success the layout is v2 on that mount. */
static void mount_private(struct sched_state *st)
{
	char dir[] = "/tmp/vmbench-cgroup2-XXXXXX", *self = NULL, mi[CG_PATH_MAX + 64];
	struct cg_layout l;
	int r;

	if (!mkdtemp(dir))
		return; /* the reason already given stays */
	r = mount("cgroup2", dir, "cgroup2", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) < 0 ? -errno : 0;
	if (r == 0)
		r = read_file("/proc/self/cgroup", &self);
	snprintf(mi, sizeof(mi), "1 1 0:0 / %s rw - cgroup2 cgroup2 rw\n", dir);
	if (r == 0)
		r = cg_detect(mi, self, &l);
	if (r == 0 && !v2_has_cpu(l.mount, l.self, "cgroup.controllers"))
		r = -ENOTSUP;
	free(self);
	if (r < 0) {
		size_t n = strlen(st->cg_skip);

		(void)umount2(dir, MNT_DETACH);
		(void)rmdir(dir);
		snprintf(st->cg_skip + n, sizeof(st->cg_skip) - n, "; a private cgroup2 mount: %s",
			 r == -ENOTSUP ? "no cpu controller there either" : strerror(-r));
		return;
	}
	st->cg = l;
	snprintf(st->private_mount, sizeof(st->private_mount), "%s", dir);
	st->cg_skip[0] = '\0';
}

/* Create the groups once, with the watchdog that removes them whatever
 * way the process ends. 0, or a skip or failure with ctx->reason set. */
static int fair_groups(struct vmb_ctx *ctx, struct sched_state *st)
{
	struct cg_plan create;
	const struct cg_op *bad = NULL;
	pid_t pid = getpid();
	int r;

	if (st->cg_made)
		return 0;
	if (st->try_private) {
		st->try_private = false;
		mount_private(st);
	}
	if (st->cg_skip[0])
		return vmb_skip(ctx, "%s", st->cg_skip);
	/* the groups a vmbench killed with its watchdog left: they may hold the RT runtime */
	cg_reclaim(&st->cg);
	cg_plan_init(&create);
	r = cg_plan_create(&create, &st->cg, pid, st->ngroups, 100000);
	if (r == 0)
		r = cg_plan_remove(&st->remove, &st->cg, pid, st->ngroups);
	if (r == 0 && st->cg.ver == CG_V2 && !v2_has_cpu(st->cg.mount, st->cg.self, "cgroup.subtree_control")) {
		/* hand the controller back as it was: off */
		char path[CG_PATH_MAX + 32];

		snprintf(path, sizeof(path), "%s%s/cgroup.subtree_control", st->cg.mount, st->cg.self);
		r = cg_plan_add(&st->remove, CG_WRITE, path, "-cpu");
	}
	if (r == 0 && st->private_mount[0]) {
		r = cg_plan_add(&st->remove, CG_UMOUNT, st->private_mount, NULL);
		if (r == 0)
			r = cg_plan_add(&st->remove, CG_RMDIR, st->private_mount, NULL);
	}
	if (r < 0) {
		cg_plan_release(&create);
		if (st->private_mount[0]) {
			(void)umount2(st->private_mount, MNT_DETACH);
			(void)rmdir(st->private_mount);
			st->private_mount[0] = '\0';
		}
		return vmb_fail(ctx, r, "planning cgroups under %s%s", st->cg.mount, st->cg.self);
	}
	r = cg_watchdog_start(&st->dog, &st->remove);
	if (r < 0) {
		cg_plan_release(&create);
		return vmb_fail(ctx, r, "starting the cgroup watchdog");
	}
	st->cg_made = true; /* from here on teardown removes whatever exists */
	r = cg_plan_run(&create, true, &bad);
	if (r < 0) {
		if (bad && !strcmp(strrchr(bad->path, '/'), "/cpu.rt_runtime_us") && (r == -EINVAL || r == -EBUSY)) {
			/* the parent has no real-time runtime left to hand out: the tree says who holds it */
			char why[800];

			if (r != -EINVAL || cg_rt_why(bad->path, 100000, why, sizeof(why)) < 0)
				why[0] = '\0';
			if (why[0])
				snprintf(st->rt_skip, sizeof(st->rt_skip), "real-time runtime was refused (%s): %s",
					 strerror(-r), why);
			else
				snprintf(st->rt_skip, sizeof(st->rt_skip), "writing %s: %s", bad->path, strerror(-r));
			cg_plan_release(&create);
			cg_plan_init(&create);
			st->cg.rt_group = false;
			(void)cg_plan_run(&st->remove, false, NULL);
			r = cg_plan_create(&create, &st->cg, pid, st->ngroups, 0);
			if (r == 0)
				r = cg_plan_run(&create, true, &bad);
		}
	}
	/* bad points into the plan: the messages are made before it is released */
	if (r == -EACCES || r == -EPERM || r == -EROFS) {
		snprintf(st->cg_skip, sizeof(st->cg_skip), "no permission to create cgroups (%s: %s)",
			 bad ? bad->path : "?", strerror(-r));
		cg_plan_release(&create);
		return vmb_skip(ctx, "%s", st->cg_skip);
	}
	if (r < 0) {
		r = vmb_fail(ctx, r, "%s %s", bad && bad->kind == CG_MKDIR ? "creating" : "writing",
			     bad ? bad->path : "cgroups");
		cg_plan_release(&create);
		return r;
	}
	cg_plan_release(&create);
	(void)vmb_note(ctx, "cgroups", "cgroup %s%s, groups under %s%s/" CG_TREE_SCHED "-PID",
		       st->cg.ver == CG_V1 ? "v1" : "v2", st->private_mount[0] ? " (a private mount of its own)" : "",
		       st->cg.mount, st->cg.self);
	return 0;
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
	struct cg_plan knobs;
	const struct cg_op *bad = NULL;
	char name[48];
	int r;

	for (unsigned i = 0; i < st->ngroups; i++)
		equal[i] = 1;
	cg_plan_init(&knobs);
	r = cg_plan_mode(&knobs, &st->cg, getpid(), row->cg, weights, st->ngroups, st->period_us);
	if (r == 0)
		r = cg_plan_run(&knobs, true, &bad);
	cg_plan_release(&knobs);
	if (r < 0)
		return vmb_fail(ctx, r, "writing %s", bad ? bad->path : "cgroup knobs");
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

	r = fair_groups(ctx, st);
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
	char *mi = NULL, *self = NULL, path[CG_PATH_MAX + 32];
	int r = read_file("/proc/self/mountinfo", &mi);

	if (r == 0)
		r = read_file("/proc/self/cgroup", &self);
	if (r == 0)
		r = cg_detect(mi, self, &st->cg);
	if (r < 0) {
		snprintf(st->cg_skip, sizeof(st->cg_skip), "no cgroup hierarchy with the cpu controller mounted (%s)",
			 strerror(-r));
		st->try_private = r == -ENOENT;
	}
	else if (st->cg.ver == CG_V1) {
		snprintf(path, sizeof(path), "%s%s/cpu.rt_runtime_us", st->cg.mount, st->cg.self);
		st->cg.rt_group = access(path, F_OK) == 0;
	} else {
		if (!v2_has_cpu(st->cg.mount, st->cg.self, "cgroup.controllers")) {
			snprintf(st->cg_skip, sizeof(st->cg_skip),
				 "cgroup v2 at %s offers no cpu controller to %s (bound to a v1 hierarchy, or not delegated)",
				 st->cg.mount, st->cg.self[0] ? st->cg.self : "/");
			st->cg.ver = CG_NONE;
		}
	}
	free(mi);
	free(self);
}

int sched_run_fairness(struct vmb_ctx *ctx, const struct vmb_test *test, struct vmb_rep *rep)
{
	(void)test;
	return sched_end(run_fairness(ctx, ctx->priv, rep));
}
