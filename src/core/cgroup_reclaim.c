/* What the cgroup planner reads back from a hierarchy (see cgroup.h): the
 * trees of vmbench processes that are gone, removed with the planner's own
 * plans on the layout's file system, and who holds the real-time runtime a
 * knob was refused. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cgroup.h"
#include "file.h"
#include "log.h"
#include "reclaim.h"
#include "banned.h"

/* A knob's value as a number: 0, or a negative errno. */
static int knob_ll(const char *dir, const char *file, long long *v)
{
	char path[CG_PATH_MAX + 32], line[64], *end;

	if (snprintf(path, sizeof(path), "%s/%s", dir, file) >= (int)sizeof(path))
		return -ENAMETOOLONG;
	if (read_line_at("/", path, line, sizeof(line)) < 0)
		return -ENOENT;
	errno = 0;
	*v = strtoll(line, &end, 10);
	return errno || end == line ? -EINVAL : 0;
}

/* Does group dir hold a task? v1 lists them in tasks; v2 in cgroup.procs,
 * and a threaded group's in cgroup.threads. Unreadable counts as yes. */
static bool holds_tasks(const char *dir)
{
	static const char *const files[] = { "tasks", "cgroup.procs", "cgroup.threads" };
	bool any = false, seen = false;

	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]) && !any; i++) {
		char path[CG_PATH_MAX + 32], *text = NULL;
		int r;

		snprintf(path, sizeof(path), "%s/%s", dir, files[i]);
		r = read_file(path, &text);
		if (r == 0) {
			seen = true;
			any = text[strspn(text, " \n")] != '\0';
		}
		free(text);
	}
	return any || !seen;
}

/* The groups under dir, children before their parents, into the plan
 * that removes them (real-time runtime zeroed first), their names into
 * names. -EBUSY when one holds a task, with its path in busy. */
static int reclaim_plan(struct cg_plan *p, const char *dir, unsigned depth, char *names, size_t nlen, char *busy,
			size_t blen)
{
	struct dirent *e;
	long long rt;
	DIR *d;
	int r = 0;

	if (holds_tasks(dir)) {
		snprintf(busy, blen, "%s", dir);
		return -EBUSY;
	}
	d = depth < 4 ? opendir(dir) : NULL;
	while (d && r == 0 && (e = readdir(d))) {
		char sub[CG_PATH_MAX];
		struct stat st;

		if (e->d_name[0] == '.' || snprintf(sub, sizeof(sub), "%s/%s", dir, e->d_name) >= (int)sizeof(sub) ||
		    lstat(sub, &st) < 0 || !S_ISDIR(st.st_mode))
			continue;
		r = reclaim_plan(p, sub, depth + 1, names, nlen, busy, blen);
		if (r == 0 && depth == 0)
			snprintf(names + strlen(names), nlen - strlen(names), "%s%s", names[0] ? ", " : "", e->d_name);
	}
	if (d)
		(void)closedir(d);
	if (r == 0 && knob_ll(dir, "cpu.rt_runtime_us", &rt) == 0 && rt > 0) {
		char knob[CG_PATH_MAX + 32];

		snprintf(knob, sizeof(knob), "%s/cpu.rt_runtime_us", dir);
		r = cg_plan_add(p, CG_WRITE, knob, "0");
	}
	if (r == 0)
		r = cg_plan_add(p, CG_RMDIR, dir, NULL);
	return r;
}

/* One leftover tree: removed and said, or left and said why. */
static void reclaim_tree(const struct cg_layout *l, const char *base, pid_t pid)
{
	char names[256] = "", busy[CG_PATH_MAX] = "", rtbuf[64] = "", what[400];
	const struct cg_op *failed = NULL;
	struct cg_plan p;
	long long rt;
	int r;

	cg_plan_init(&p);
	p.fs = l->fs;
	if (knob_ll(base, "cpu.rt_runtime_us", &rt) == 0 && rt > 0)
		snprintf(rtbuf, sizeof(rtbuf), "%lld us of real-time runtime", rt);
	r = reclaim_plan(&p, base, 0, names, sizeof(names), busy, sizeof(busy));
	if (r == -EBUSY)
		log_warn("cgroup %s, left by vmbench process %ld, which is gone, still holds a task (in %s): left as it "
			 "is", base, (long)pid, busy);
	else if (r == 0 && (r = cg_plan_run(&p, false, &failed)) < 0)
		log_warn("removing cgroup %s, left by vmbench process %ld, which is gone: %s %s: %s", base, (long)pid,
			 failed->kind == CG_RMDIR ? "removing" : "writing", failed->path, strerror(-r));
	else if (r == 0) {
		snprintf(what, sizeof(what), "%s%s%s%s", names[0] ? "groups " : "", names, names[0] && rtbuf[0] ? "; " : "",
			 rtbuf);
		log_info("removed cgroup %s%s%s%s, left by vmbench process %ld, which is gone", base, what[0] ? " (" : "",
			 what, what[0] ? ")" : "", (long)pid);
	}
	else
		log_warn("cgroup %s, left by vmbench process %ld: %s", base, (long)pid, strerror(-r));
	cg_plan_release(&p);
}

void cg_reclaim(const struct cg_layout *l)
{
	char parent[CG_PATH_MAX];
	struct dirent *e;
	DIR *d;

	if (l->ver == CG_NONE || snprintf(parent, sizeof(parent), "%s%s", l->mount, l->self) >= (int)sizeof(parent))
		return;
	d = opendir(parent);
	while (d && (e = readdir(d))) {
		char base[CG_PATH_MAX], prefix[64];
		struct stat st;
		pid_t pid;
		size_t t = 0;

		for (; cg_tree_names[t]; t++) {
			snprintf(prefix, sizeof(prefix), "%s-", cg_tree_names[t]);
			if (reclaim_name_pid(e->d_name, prefix, &pid) == 0)
				break;
		}
		/* exactly NAME-PID: a directory of this user whose maker is gone */
		if (!cg_tree_names[t] || strchr(e->d_name + strlen(prefix), '-') ||
		    snprintf(base, sizeof(base), "%s/%s", parent, e->d_name) >= (int)sizeof(base) || lstat(base, &st) < 0 ||
		    !S_ISDIR(st.st_mode) || st.st_uid != geteuid() || pid == getpid() ||
		    !reclaim_gone_since(pid, st.st_mtime))
			continue;
		reclaim_tree(l, base, pid);
	}
	if (d)
		(void)closedir(d);
}

int cg_rt_why(const char *knob, unsigned long long want, char *buf, size_t len)
{
	char group[CG_PATH_MAX], parent[CG_PATH_MAX], held[256] = "";
	const char *name;
	long long have, period, sum = 0;
	unsigned more = 0;
	struct dirent *e;
	size_t n;
	DIR *d;

	buf[0] = '\0';
	/* .../PARENT/GROUP/cpu.rt_runtime_us */
	n = strrchr(knob, '/') ? (size_t)(strrchr(knob, '/') - knob) : 0;
	if (n == 0 || n >= sizeof(group))
		return -EINVAL;
	memcpy(group, knob, n);
	group[n] = '\0';
	name = strrchr(group, '/');
	if (!name || name == group)
		return -EINVAL;
	memcpy(parent, group, (size_t)(name - group));
	parent[name - group] = '\0';
	name++;
	if (knob_ll(parent, "cpu.rt_runtime_us", &have) < 0 || knob_ll(parent, "cpu.rt_period_us", &period) < 0)
		return -ENOENT;
	d = opendir(parent);
	while (d && (e = readdir(d))) {
		char sub[CG_PATH_MAX];
		long long rt;

		if (e->d_name[0] == '.' || !strcmp(e->d_name, name) ||
		    snprintf(sub, sizeof(sub), "%s/%s", parent, e->d_name) >= (int)sizeof(sub) ||
		    knob_ll(sub, "cpu.rt_runtime_us", &rt) < 0 || rt <= 0)
			continue;
		sum += rt;
		/* the first few by name in the message, the rest counted */
		if (strlen(held) + strlen(e->d_name) + 32 < sizeof(held))
			snprintf(held + strlen(held), sizeof(held) - strlen(held), "%s%s %lld us", held[0] ? ", " : "",
				 e->d_name, rt);
		else
			more++;
	}
	if (d)
		(void)closedir(d);
	if (more)
		snprintf(held + strlen(held), sizeof(held) - strlen(held), " and %u more", more);
	if (have < 0)
		snprintf(buf, len, "%s has no limit on real-time runtime (-1)", parent);
	else if (sum > 0)
		snprintf(buf, len, "%s has %lld us of real-time runtime each %lld us, and its other groups hold %lld us "
			 "(%s), leaving %lld us, less than the %llu us asked", parent, have, period, sum, held,
			 have > sum ? have - sum : 0, want);
	else
		snprintf(buf, len, "%s has %lld us of real-time runtime each %lld us, and no other group holds any",
			 parent, have, period);
	return 0;
}
