/* The cgroup planner's core (see cgroup.h): detection from the text of
 * /proc, the paths of a tree, its plans, carrying a plan out on a layout's
 * file system, and the watchdog that carries out the removal plan after a
 * kill -9. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cgroup.h"
#include "banned.h"

const char *const cg_tree_names[] = { CG_TREE_SCHED, CG_TREE_CONTEND, NULL };

static int fs_mkdir(const char *path)
{
	return mkdir(path, 0755) < 0 ? -errno : 0;
}

static int fs_rmdir(const char *path)
{
	return rmdir(path) < 0 ? -errno : 0;
}

static int fs_write(const char *path, const char *value)
{
	size_t len = strlen(value);
	int fd = open(path, O_WRONLY | O_CLOEXEC), r = 0;
	ssize_t w;

	if (fd < 0)
		return -errno;
	w = write(fd, value, len);
	if (w < 0)
		r = -errno;
	else if ((size_t)w != len)
		r = -EIO;
	if (close(fd) < 0 && r == 0)
		r = -errno;
	return r;
}

const struct cg_fs cg_fs_kernel = { .mkdir = fs_mkdir, .rmdir = fs_rmdir, .write = fs_write };

/* Is word one of the comma-separated tokens of list (up to end)? */
static bool has_token(const char *list, size_t len, const char *word)
{
	size_t wl = strlen(word);
	const char *p = list, *end = list + len;

	while (p < end) {
		const char *c = memchr(p, ',', (size_t)(end - p));
		size_t tl = c ? (size_t)(c - p) : (size_t)(end - p);

		if (tl == wl && !memcmp(p, word, wl))
			return true;
		if (!c)
			break;
		p = c + 1;
	}
	return false;
}

/* Split one line into at most max space-separated fields (in place). */
static size_t split_fields(char *line, char **f, size_t max)
{
	size_t n = 0;
	char *save = NULL;

	for (char *t = strtok_r(line, " ", &save); t && n < max; t = strtok_r(NULL, " ", &save))
		f[n++] = t;
	return n;
}

/* This process's path in the hierarchy: v1, the line listing "cpu";
 * v2, the "0::" line. */
static int self_path(const char *self_cgroup, enum cg_version ver, char *buf, size_t len)
{
	const char *line = self_cgroup;

	while (line && *line) {
		const char *nl = strchr(line, '\n');
		size_t ll = nl ? (size_t)(nl - line) : strlen(line);
		const char *c1 = memchr(line, ':', ll), *c2;

		if (c1 && (c2 = memchr(c1 + 1, ':', ll - (size_t)(c1 + 1 - line)))) {
			size_t cl = (size_t)(c2 - c1 - 1), pl = ll - (size_t)(c2 + 1 - line);
			bool match = ver == CG_V1 ? has_token(c1 + 1, cl, "cpu")
						  : (cl == 0 && c1 - line == 1 && line[0] == '0');

			if (match) {
				if (pl >= len)
					return -ENAMETOOLONG;
				memcpy(buf, c2 + 1, pl);
				buf[pl] = '\0';
				if (!strcmp(buf, "/"))
					buf[0] = '\0';
				return 0;
			}
		}
		line = nl ? nl + 1 : NULL;
	}
	return -ENOENT;
}

/* The mount line of the hierarchy of this version holding cpu, copied into
 * buf with its fields in f; 0 or -ENOENT. */
static int find_mount(const char *mountinfo, enum cg_version ver, char **buf, char **f, size_t max, size_t *dash)
{
	const char *line = mountinfo;

	while (line && *line) {
		const char *nl = strchr(line, '\n');
		size_t ll = nl ? (size_t)(nl - line) : strlen(line), nf, d;

		free(*buf);
		*buf = strndup(line, ll);
		if (!*buf)
			return -ENOMEM;
		line = nl ? nl + 1 : NULL;
		nf = split_fields(*buf, f, max);
		for (d = 5; d < nf && strcmp(f[d], "-"); d++)
			;
		if (d + 3 >= nf) /* "-", type, source, super options */
			continue;
		if (ver == CG_V1 ? !strcmp(f[d + 1], "cgroup") && has_token(f[d + 3], strlen(f[d + 3]), "cpu")
				 : !strcmp(f[d + 1], "cgroup2")) {
			*dash = d;
			return 0;
		}
	}
	return -ENOENT;
}

int cg_detect(const char *mountinfo, const char *self_cgroup, struct cg_layout *out)
{
	static const enum cg_version order[] = { CG_V1, CG_V2 };
	char *buf = NULL, *f[16];
	size_t dash;
	int r = -ENOENT;

	memset(out, 0, sizeof(*out));
	for (size_t o = 0; o < sizeof(order) / sizeof(order[0]); o++) {
		r = find_mount(mountinfo, order[o], &buf, f, 16, &dash);
		if (r == -ENOENT)
			continue;
		if (r < 0)
			break;
		if (strlen(f[4]) >= sizeof(out->mount)) {
			r = -ENAMETOOLONG;
			break;
		}
		memcpy(out->mount, f[4], strlen(f[4]) + 1);
		r = self_path(self_cgroup, order[o], out->self, sizeof(out->self));
		/* a mount of a sub-tree (the "root" field): paths are relative to it */
		if (r == 0 && strcmp(f[3], "/")) {
			size_t rl = strlen(f[3]);

			if (!strncmp(out->self, f[3], rl) && (out->self[rl] == '/' || !out->self[rl]))
				memmove(out->self, out->self + rl, strlen(out->self + rl) + 1);
			else
				r = -ENOENT; /* this process is outside the mounted sub-tree */
		}
		if (r == 0)
			out->ver = order[o];
		break;
	}
	free(buf);
	if (r < 0)
		memset(out, 0, sizeof(*out));
	return r;
}

int cg_base_path(const struct cg_layout *l, pid_t pid, char *buf, size_t len)
{
	int n = snprintf(buf, len, "%s%s/%s-%ld", l->mount, l->self, l->tree ? l->tree : CG_TREE_SCHED, (long)pid);

	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

int cg_group_path(const struct cg_layout *l, pid_t pid, unsigned i, unsigned ngroups, char *buf, size_t len)
{
	char base[CG_PATH_MAX];
	int n, r = cg_base_path(l, pid, base, sizeof(base));

	if (r < 0)
		return r;
	n = i < ngroups ? snprintf(buf, len, "%s/g%u", base, i) : snprintf(buf, len, "%s/probe", base);
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

int cg_attach_path(const struct cg_layout *l, const char *dir, char *buf, size_t len)
{
	int n = snprintf(buf, len, "%s/%s", dir, l->ver == CG_V2 ? "cgroup.threads" : "tasks");

	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

void cg_plan_init(struct cg_plan *p)
{
	memset(p, 0, sizeof(*p));
}

void cg_plan_release(struct cg_plan *p)
{
	free(p->ops);
	cg_plan_init(p);
}

static int plan_add(struct cg_plan *p, enum cg_op_kind kind, const char *dir, const char *file, const char *fmt,
		    ...) __attribute__((format(printf, 5, 6)));

static int plan_add(struct cg_plan *p, enum cg_op_kind kind, const char *dir, const char *file, const char *fmt, ...)
{
	struct cg_op *op;
	int n;

	if (p->n == p->cap) {
		size_t cap = p->cap ? 2 * p->cap : 16;
		struct cg_op *ops = realloc(p->ops, cap * sizeof(*ops));

		if (!ops)
			return -ENOMEM;
		p->ops = ops;
		p->cap = cap;
	}
	op = &p->ops[p->n];
	memset(op, 0, sizeof(*op));
	op->kind = kind;
	n = file ? snprintf(op->path, sizeof(op->path), "%s/%s", dir, file)
		 : snprintf(op->path, sizeof(op->path), "%s", dir);
	if (n < 0 || (size_t)n >= sizeof(op->path))
		return -ENAMETOOLONG;
	if (fmt) {
		va_list ap;

		va_start(ap, fmt);
		n = vsnprintf(op->value, sizeof(op->value), fmt, ap);
		va_end(ap);
		if (n < 0 || (size_t)n >= sizeof(op->value))
			return -E2BIG;
	}
	p->n++;
	return 0;
}

/* What creating and removing the groups both start from: our base
 * directory and the cgroup this process is in (CG_PATH_MAX each). */
static int plan_paths(const struct cg_layout *l, pid_t pid, unsigned ngroups, char *base, char *self)
{
	size_t t = 0;
	int r, n;

	while (l->tree && cg_tree_names[t] && strcmp(l->tree, cg_tree_names[t]))
		t++;
	if (ngroups == 0 || ngroups > CG_MAX_GROUPS || l->ver == CG_NONE || (l->tree && !cg_tree_names[t]))
		return -EINVAL;
	r = cg_base_path(l, pid, base, CG_PATH_MAX);
	n = snprintf(self, CG_PATH_MAX, "%s%s", l->mount, l->self);
	if (r == 0 && (n < 0 || n >= CG_PATH_MAX))
		r = -ENAMETOOLONG;
	return r;
}

int cg_plan_create(struct cg_plan *p, const struct cg_layout *l, pid_t pid, unsigned ngroups, unsigned rt_us)
{
	char base[CG_PATH_MAX], dir[CG_PATH_MAX], self[CG_PATH_MAX];
	int r;

	p->fs = l->fs;
	r = plan_paths(l, pid, ngroups, base, self);
	if (r == 0 && l->ver == CG_V2)
		/* the base's parent hands the cpu controller down */
		r = plan_add(p, CG_WRITE, self, "cgroup.subtree_control", "+cpu");
	if (r == 0)
		r = plan_add(p, CG_MKDIR, base, NULL, NULL);
	/* RT group scheduling: a group's runtime comes out of its parent's */
	if (r == 0 && l->rt_group)
		r = plan_add(p, CG_WRITE, base, "cpu.rt_runtime_us", "%u", rt_us);
	/* sched.fairness's threads of one process in several groups: a threaded
	 * subtree with the process in its root; lab contend's groups hold whole
	 * processes (QEMUs): domains, and this process stays where it is */
	if (r == 0 && l->ver == CG_V2 && !l->no_probe)
		r = plan_add(p, CG_WRITE, base, "cgroup.procs", "%ld", (long)pid);
	for (unsigned i = 0; i < ngroups + !l->no_probe && r == 0; i++) {
		r = cg_group_path(l, pid, i, ngroups, dir, sizeof(dir));
		if (r == 0)
			r = plan_add(p, CG_MKDIR, dir, NULL, NULL);
		if (r == 0 && l->ver == CG_V2 && !l->no_probe)
			r = plan_add(p, CG_WRITE, dir, "cgroup.type", "threaded");
		if (r == 0 && l->rt_group && i == (l->no_probe ? 0 : ngroups))
			r = plan_add(p, CG_WRITE, dir, "cpu.rt_runtime_us", "%u", rt_us);
	}
	if (r == 0 && l->ver == CG_V2)
		r = plan_add(p, CG_WRITE, base, "cgroup.subtree_control", "+cpu");
	return r;
}

int cg_plan_knobs(struct cg_plan *p, const struct cg_layout *l, pid_t pid, const struct cg_knob *k, unsigned ngroups,
		  unsigned period_us)
{
	int r = 0;

	if (ngroups == 0 || ngroups > CG_MAX_GROUPS || period_us < 1000 || period_us > 1000000 || l->ver == CG_NONE)
		return -EINVAL;
	for (unsigned i = 0; i < ngroups; i++)
		/* the kernel's smallest quota is 1 ms */
		if (k[i].weight < 1 || k[i].weight > 100 || (k[i].quota_us && k[i].quota_us < 1000))
			return -EINVAL;
	p->fs = l->fs;
	for (unsigned i = 0; i < ngroups && r == 0; i++) {
		char dir[CG_PATH_MAX];

		r = cg_group_path(l, pid, i, ngroups, dir, sizeof(dir));
		if (r < 0)
			break;
		if (l->ver == CG_V1) {
			r = plan_add(p, CG_WRITE, dir, "cpu.shares", "%u", k[i].weight * 1024);
			if (r == 0)
				r = plan_add(p, CG_WRITE, dir, "cpu.cfs_period_us", "%u", period_us);
			if (r == 0)
				r = k[i].quota_us ? plan_add(p, CG_WRITE, dir, "cpu.cfs_quota_us", "%llu", k[i].quota_us)
						  : plan_add(p, CG_WRITE, dir, "cpu.cfs_quota_us", "-1");
		} else {
			r = plan_add(p, CG_WRITE, dir, "cpu.weight", "%u", k[i].weight * 100);
			if (r == 0)
				r = k[i].quota_us ? plan_add(p, CG_WRITE, dir, "cpu.max", "%llu %u", k[i].quota_us, period_us)
						  : plan_add(p, CG_WRITE, dir, "cpu.max", "max %u", period_us);
		}
	}
	return r;
}

int cg_mode_knobs(enum cg_mode mode, const unsigned *weights, unsigned ngroups, unsigned period_us,
		  struct cg_knob *k)
{
	unsigned sum = 0;

	if (ngroups == 0 || ngroups > CG_MAX_GROUPS || period_us < 1000)
		return -EINVAL;
	for (unsigned i = 0; i < ngroups; i++) {
		if (weights[i] < 1 || weights[i] > 100)
			return -EINVAL;
		sum += weights[i];
	}
	for (unsigned i = 0; i < ngroups; i++) {
		/* the reservation: this group's share of one CPU, each period */
		unsigned long long q = (unsigned long long)period_us * weights[i] / sum;

		k[i].weight = mode == CG_FAIR ? weights[i] : 1;
		k[i].quota_us = mode == CG_RESERVATION ? (q < 1000 ? 1000 : q) : 0;
	}
	return 0;
}

int cg_plan_mode(struct cg_plan *p, const struct cg_layout *l, pid_t pid, enum cg_mode mode,
		 const unsigned *weights, unsigned ngroups, unsigned period_us)
{
	struct cg_knob k[CG_MAX_GROUPS];
	int r = l->ver == CG_NONE ? -EINVAL : cg_mode_knobs(mode, weights, ngroups, period_us, k);

	return r < 0 ? r : cg_plan_knobs(p, l, pid, k, ngroups, period_us);
}

int cg_plan_remove(struct cg_plan *p, const struct cg_layout *l, pid_t pid, unsigned ngroups)
{
	char base[CG_PATH_MAX], dir[CG_PATH_MAX], self[CG_PATH_MAX];
	int r;

	p->fs = l->fs;
	r = plan_paths(l, pid, ngroups, base, self);
	if (r == 0 && l->ver == CG_V2 && !l->no_probe) {
		r = plan_add(p, CG_WRITE, self, "cgroup.procs", "%ld", (long)pid);
		/* after a kill, pid may be another process's */
		if (r == 0)
			p->ops[p->n - 1].living = true;
	}
	for (unsigned i = 0; i < ngroups + !l->no_probe && r == 0; i++) {
		r = cg_group_path(l, pid, i, ngroups, dir, sizeof(dir));
		if (r == 0)
			r = plan_add(p, CG_RMDIR, dir, NULL, NULL);
	}
	if (r == 0)
		r = plan_add(p, CG_RMDIR, base, NULL, NULL);
	return r;
}

int cg_plan_add(struct cg_plan *p, enum cg_op_kind kind, const char *path, const char *value)
{
	return value ? plan_add(p, kind, path, NULL, "%s", value) : plan_add(p, kind, path, NULL, NULL);
}

/* One step, on the plan's file system. */
static int op_run(const struct cg_plan *p, const struct cg_op *op)
{
	const struct cg_fs *fs = p->fs ? p->fs : &cg_fs_kernel;

	switch (op->kind) {
	case CG_MKDIR:
		return fs->mkdir(op->path);
	case CG_WRITE:
		return fs->write(op->path, op->value);
	case CG_RMDIR:
		return fs->rmdir(op->path);
	case CG_UMOUNT:
		return umount2(op->path, MNT_DETACH) < 0 ? -errno : 0;
	}
	return -EINVAL;
}

int cg_plan_run(const struct cg_plan *p, bool stop_on_error, const struct cg_op **failed)
{
	int first = 0;

	for (size_t i = 0; i < p->n; i++) {
		const struct cg_op *op = &p->ops[i];
		int r = op_run(p, op);

		if (!stop_on_error && (r == -ENOENT || r == -ESRCH || (op->kind == CG_UMOUNT && r == -EINVAL)))
			r = 0; /* already gone, or the process the write moves back */
		if (r < 0 && first == 0) {
			first = r;
			if (failed)
				*failed = op;
			if (stop_on_error)
				break;
		}
	}
	return first;
}

/* The watchdog's whole life, after fork: only system calls (and the
 * plan's file system's, the kernel's but in tests). */
static void __attribute__((noreturn)) watchdog_main(int fd, const struct cg_plan *remove)
{
	char c;

	/* Ctrl-C reaches the whole process group: this one must outlive it */
	(void)signal(SIGINT, SIG_IGN);
	(void)signal(SIGTERM, SIG_IGN);
	(void)signal(SIGHUP, SIG_IGN);
	while (read(fd, &c, 1) < 0 && errno == EINTR)
		;
	/* The process is gone (or done, and the plan ran: then each step finds
	 * its work done). A group still holding exiting threads answers EBUSY
	 * for a moment: try for up to 2 s. The parent's cgroup.subtree_control
	 * is written after its groups are gone, as the plan says. */
	for (size_t i = 0; i < remove->n; i++) {
		const struct cg_op *op = &remove->ops[i];

		if (op->living)
			continue;
		for (unsigned t = 0; t < 2000; t++) {
			struct timespec ms = { 0, 1000000 };

			if (op_run(remove, op) != -EBUSY || op->kind != CG_RMDIR)
				break;
			(void)nanosleep(&ms, NULL);
		}
	}
	_exit(0);
}

int cg_watchdog_start(struct cg_watchdog *w, const struct cg_plan *remove)
{
	int fds[2];
	pid_t pid;

	w->pid = -1;
	w->fd = -1;
	if (pipe2(fds, O_CLOEXEC) < 0)
		return -errno;
	pid = fork();
	if (pid < 0) {
		int r = -errno;

		(void)close(fds[0]);
		(void)close(fds[1]);
		return r;
	}
	if (pid == 0) {
		(void)close(fds[1]);
		watchdog_main(fds[0], remove);
	}
	(void)close(fds[0]);
	w->pid = pid;
	w->fd = fds[1];
	return 0;
}

void cg_watchdog_stop(struct cg_watchdog *w)
{
	if (w->fd >= 0)
		(void)close(w->fd);
	if (w->pid > 0)
		while (waitpid(w->pid, NULL, 0) < 0 && errno == EINTR)
			;
	w->fd = -1;
	w->pid = -1;
}


/* A whole number of len characters, digits only (strtoull would take a
 * sign and blanks); 0 or -EINVAL, also on overflow. */
static int parse_ull(const char *s, size_t len, unsigned long long *v)
{
	unsigned long long x = 0;

	if (len == 0)
		return -EINVAL;
	for (size_t i = 0; i < len; i++) {
		unsigned d = (unsigned)(s[i] - '0');

		if (s[i] < '0' || s[i] > '9' || x > (ULLONG_MAX - d) / 10)
			return -EINVAL;
		x = x * 10 + d;
	}
	*v = x;
	return 0;
}

int cg_parse_cpu_stat(const char *text, struct cg_cpu_stat *out)
{
	static const struct {
		const char *key;
		unsigned bit;
		unsigned long long scale; /* to ns, for the times */
	} keys[] = {
		{ "nr_periods", 1, 0 }, { "nr_throttled", 2, 0 },
		{ "throttled_time", 4, 1 }, { "throttled_usec", 4, 1000 },
		{ "usage_usec", 8, 1000 },
	};
	struct cg_cpu_stat st = { 0 };
	unsigned seen = 0;

	for (const char *line = text; line && *line;) {
		const char *nl = strchr(line, '\n');
		size_t ll = nl ? (size_t)(nl - line) : strlen(line);
		const char *sp = memchr(line, ' ', ll);

		for (size_t k = 0; sp && k < sizeof(keys) / sizeof(keys[0]); k++) {
			unsigned long long v;

			if (strlen(keys[k].key) != (size_t)(sp - line) || memcmp(line, keys[k].key, (size_t)(sp - line)))
				continue;
			/* a key twice, or a value that is no whole number: not cpu.stat */
			if ((seen & keys[k].bit) || parse_ull(sp + 1, ll - (size_t)(sp + 1 - line), &v) < 0)
				return -EINVAL;
			if (keys[k].scale && v > ULLONG_MAX / keys[k].scale)
				return -EINVAL;
			seen |= keys[k].bit;
			if (keys[k].bit == 1)
				st.nr_periods = v;
			else if (keys[k].bit == 2)
				st.nr_throttled = v;
			else if (keys[k].bit == 4)
				st.throttled_ns = v * keys[k].scale;
			else
				st.usage_ns = v * keys[k].scale;
		}
		line = nl ? nl + 1 : NULL;
	}
	if ((seen & 7) != 7)
		return -EINVAL;
	st.has_usage = seen & 8;
	*out = st;
	return 0;
}

int cg_parse_cpu_max(const char *text, unsigned long long *quota_us, unsigned long long *period_us)
{
	const char *sp = strchr(text, ' ');
	size_t len = strlen(text), ql;
	unsigned long long q = 0, p;

	if (len && text[len - 1] == '\n')
		len--;
	if (!sp || (size_t)(sp - text) >= len)
		return -EINVAL;
	ql = (size_t)(sp - text);
	if (!(ql == 3 && !memcmp(text, "max", 3)) && parse_ull(text, ql, &q) < 0)
		return -EINVAL;
	if (parse_ull(sp + 1, len - ql - 1, &p) < 0 || p == 0)
		return -EINVAL;
	*quota_us = q;
	*period_us = p;
	return 0;
}
