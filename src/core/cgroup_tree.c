/* The cgroup planner as its users see it (see cgroup.h): this process's
 * layout found and checked, a private cgroup2 mount where none offers cpu,
 * and a tree of groups made, its knobs written and undone, with the
 * watchdog that undoes it after a kill -9. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <unistd.h>

#include "cgroup.h"
#include "file.h"
#include "banned.h"

/* Does the file (a space-separated list, "cpuset cpu io") in this
 * process's cgroup list word? */
static bool lists(const struct cg_layout *l, const char *file, const char *word)
{
	char path[2 * CG_PATH_MAX + 32], *text = NULL;
	bool yes = false;

	snprintf(path, sizeof(path), "%s%s/%s", l->mount, l->self, file);
	if (read_file(path, &text) == 0)
		for (char *save = NULL, *t = strtok_r(text, " \n", &save); t && !yes; t = strtok_r(NULL, " \n", &save))
			yes = !strcmp(t, word);
	free(text);
	return yes;
}

int cg_layout_check(struct cg_layout *l, char *why, size_t len)
{
	char path[2 * CG_PATH_MAX + 32];

	why[0] = '\0';
	if (l->ver == CG_V1) {
		snprintf(path, sizeof(path), "%s%s/cpu.rt_runtime_us", l->mount, l->self);
		l->rt_group = access(path, F_OK) == 0;
		return 0;
	}
	l->rt_group = false;
	if (l->ver != CG_V2) {
		snprintf(why, len, "no cgroup hierarchy with the cpu controller mounted (%s)", strerror(ENOENT));
		l->ver = CG_NONE;
		return -ENOENT;
	}
	if (lists(l, "cgroup.controllers", "cpu"))
		return 0;
	snprintf(why, len, "cgroup v2 at %s offers no cpu controller to %s (bound to a v1 hierarchy, or not delegated)",
		 l->mount, l->self[0] ? l->self : "/");
	l->ver = CG_NONE;
	return -ENOTSUP;
}

int cg_probe(struct cg_layout *l, char *why, size_t len)
{
	char *mi = NULL, *self = NULL;
	int r = read_file("/proc/self/mountinfo", &mi);

	if (r == 0)
		r = read_file("/proc/self/cgroup", &self);
	if (r == 0)
		r = cg_detect(mi, self, l);
	if (r < 0)
		snprintf(why, len, "no cgroup hierarchy with the cpu controller mounted (%s)", strerror(-r));
	else
		r = cg_layout_check(l, why, len);
	free(mi);
	free(self);
	return r;
}

int cg_mount_private(struct cg_layout *l, char *why, size_t len)
{
	char dir[] = "/tmp/vmbench-cgroup2-XXXXXX", *self = NULL, mi[CG_PATH_MAX + 64];
	struct cg_layout p;
	size_t n = strlen(why);
	int r;

	if (!mkdtemp(dir))
		return -errno; /* the reason already given stays */
	r = mount("cgroup2", dir, "cgroup2", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) < 0 ? -errno : 0;
	if (r == 0)
		r = read_file("/proc/self/cgroup", &self);
	snprintf(mi, sizeof(mi), "1 1 0:0 / %s rw - cgroup2 cgroup2 rw\n", dir);
	if (r == 0)
		r = cg_detect(mi, self, &p);
	p.fs = l->fs;
	if (r == 0 && !lists(&p, "cgroup.controllers", "cpu"))
		r = -ENOTSUP;
	free(self);
	if (r < 0) {
		(void)umount2(dir, MNT_DETACH);
		(void)rmdir(dir);
		snprintf(why + n, len - n, "; a private cgroup2 mount: %s",
			 r == -ENOTSUP ? "no cpu controller there either" : strerror(-r));
		return r;
	}
	p.tree = l->tree;
	p.no_probe = l->no_probe;
	p.private_mount = true;
	*l = p;
	why[0] = '\0';
	return 0;
}

void cg_layout_release(struct cg_layout *l)
{
	if (!l->private_mount)
		return;
	(void)umount2(l->mount, MNT_DETACH);
	(void)rmdir(l->mount);
	l->private_mount = false;
}

void cg_tree_init(struct cg_tree *t)
{
	memset(t, 0, sizeof(*t));
	cg_plan_init(&t->remove);
	t->dog.pid = -1;
	t->dog.fd = -1;
}

/* The step a plan failed at, kept: the plan it points into is released. */
static void failed_at(struct cg_tree *t, const struct cg_op *op)
{
	if (op)
		t->failed = *op;
	else
		memset(&t->failed, 0, sizeof(t->failed));
}

int cg_tree_make(struct cg_tree *t, const struct cg_layout *l, pid_t pid, unsigned ngroups)
{
	char self[2 * CG_PATH_MAX + 32];
	const struct cg_op *bad = NULL;
	struct cg_plan make;
	int r;

	failed_at(t, NULL);
	if (t->made)
		return -EBUSY;
	t->l = *l;
	t->pid = pid;
	t->ngroups = ngroups;
	/* the trees a vmbench killed with its watchdog left: they may hold the RT runtime */
	cg_reclaim(l);
	cg_plan_init(&make);
	cg_plan_release(&t->remove);
	r = cg_plan_create(&make, l, pid, ngroups, 0);
	if (r == 0)
		r = cg_plan_remove(&t->remove, l, pid, ngroups);
	/* v2: the parent hands the cpu controller down to the base (the plan's
	 * "+cpu"); where it did not before, it stops again once the base is gone */
	if (r == 0 && l->ver == CG_V2 && !lists(l, "cgroup.subtree_control", "cpu")) {
		snprintf(self, sizeof(self), "%s%s/cgroup.subtree_control", l->mount, l->self);
		r = cg_plan_add(&t->remove, CG_WRITE, self, "-cpu");
	}
	if (r == 0 && l->private_mount) {
		r = cg_plan_add(&t->remove, CG_UMOUNT, l->mount, NULL);
		if (r == 0)
			r = cg_plan_add(&t->remove, CG_RMDIR, l->mount, NULL);
	}
	/* before anything is made: whatever way this process ends, it is undone */
	if (r == 0)
		r = cg_watchdog_start(&t->dog, &t->remove);
	if (r == 0) {
		t->made = true;
		r = cg_plan_run(&make, true, &bad);
		failed_at(t, bad);
	}
	cg_plan_release(&make);
	return r;
}

/* Run a plan of the tree's, the failed step kept. */
static int tree_run(struct cg_tree *t, struct cg_plan *p, int r)
{
	const struct cg_op *bad = NULL;

	failed_at(t, NULL);
	if (r == 0)
		r = cg_plan_run(p, true, &bad);
	failed_at(t, bad);
	cg_plan_release(p);
	return r;
}

int cg_tree_rt(struct cg_tree *t, unsigned us)
{
	char base[CG_PATH_MAX], dir[CG_PATH_MAX], v[24], knob[CG_PATH_MAX + 32];
	struct cg_plan p;
	int r;

	cg_plan_init(&p);
	p.fs = t->l.fs;
	if (!t->made || !t->l.rt_group)
		return -EINVAL;
	snprintf(v, sizeof(v), "%u", us);
	/* the base first: a group's runtime comes out of its parent's */
	r = cg_base_path(&t->l, t->pid, base, sizeof(base));
	if (r == 0)
		r = cg_group_path(&t->l, t->pid, t->l.no_probe ? 0 : t->ngroups, t->ngroups, dir, sizeof(dir));
	snprintf(knob, sizeof(knob), "%s/cpu.rt_runtime_us", base);
	if (r == 0)
		r = cg_plan_add(&p, CG_WRITE, knob, v);
	snprintf(knob, sizeof(knob), "%s/cpu.rt_runtime_us", dir);
	if (r == 0)
		r = cg_plan_add(&p, CG_WRITE, knob, v);
	return tree_run(t, &p, r);
}

int cg_tree_knobs(struct cg_tree *t, const struct cg_knob *k, unsigned period_us)
{
	struct cg_plan p;

	cg_plan_init(&p);
	return tree_run(t, &p, t->made ? cg_plan_knobs(&p, &t->l, t->pid, k, t->ngroups, period_us) : -EINVAL);
}

int cg_tree_attach(const struct cg_tree *t, unsigned i, pid_t id)
{
	const struct cg_fs *fs = t->l.fs ? t->l.fs : &cg_fs_kernel;
	char dir[CG_PATH_MAX], path[CG_PATH_MAX], v[24];
	int r;

	/* called from several threads at once: the tree is only read */
	if (!t->made || i > t->ngroups || (t->l.no_probe && i == t->ngroups))
		return -EINVAL;
	r = cg_group_path(&t->l, t->pid, i, t->ngroups, dir, sizeof(dir));
	/* a tree without a probe holds whole processes (QEMUs); else threads */
	if (r == 0 && t->l.no_probe)
		r = snprintf(path, sizeof(path), "%s/cgroup.procs", dir) >= (int)sizeof(path) ? -ENAMETOOLONG : 0;
	else if (r == 0)
		r = cg_attach_path(&t->l, dir, path, sizeof(path));
	snprintf(v, sizeof(v), "%ld", (long)id);
	return r < 0 ? r : fs->write(path, v);
}

void cg_tree_undo(struct cg_tree *t)
{
	if (t->made)
		(void)cg_plan_run(&t->remove, false, NULL);
	t->made = false;
	cg_watchdog_stop(&t->dog);
	cg_plan_release(&t->remove);
}

/* The text of group i's file name, read (owned by the caller). */
static int group_read(const struct cg_tree *t, unsigned i, const char *name, char **text)
{
	char dir[CG_PATH_MAX], path[CG_PATH_MAX + 32];
	int r;

	if (!t->made || i >= t->ngroups)
		return -EINVAL;
	r = cg_group_path(&t->l, t->pid, i, t->ngroups, dir, sizeof(dir));
	if (r < 0)
		return r;
	if (snprintf(path, sizeof(path), "%s/%s", dir, name) >= (int)sizeof(path))
		return -ENAMETOOLONG;
	return read_file(path, text);
}

int cg_tree_cpu_stat(const struct cg_tree *t, unsigned i, struct cg_cpu_stat *out)
{
	char *text = NULL;
	int r = group_read(t, i, "cpu.stat", &text);

	if (r == 0)
		r = cg_parse_cpu_stat(text, out);
	free(text);
	return r;
}

int cg_tree_quota(const struct cg_tree *t, unsigned i, unsigned long long *quota_us, unsigned long long *period_us)
{
	char *q = NULL, *p = NULL, both[64];
	int r;

	if (t->l.ver == CG_V2) {
		r = group_read(t, i, "cpu.max", &q);
		if (r == 0)
			r = cg_parse_cpu_max(q, quota_us, period_us);
		free(q);
		return r;
	}
	r = group_read(t, i, "cpu.cfs_quota_us", &q);
	if (r == 0)
		r = group_read(t, i, "cpu.cfs_period_us", &p);
	if (r == 0) {
		/* v1's two files as v2's one line: -1 is no quota */
		q[strcspn(q, "\n")] = '\0';
		p[strcspn(p, "\n")] = '\0';
		r = snprintf(both, sizeof(both), "%s %s", strcmp(q, "-1") ? q : "max", p) >= (int)sizeof(both) ? -EINVAL : 0;
	}
	if (r == 0)
		r = cg_parse_cpu_max(both, quota_us, period_us);
	free(q);
	free(p);
	return r;
}
