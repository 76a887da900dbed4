/* The cgroup planner (src/core/cgroup.h): where the cpu controller is, the
 * steps of each plan for v1 and v2, removal and the watchdog on a fixture
 * tree, and a tree made, its knobs written and undone on a directory tree
 * that imitates cgroup v2 (this machine's cpu controller may be v1's): the
 * parent's files read as before after the undo, and after a kill -9 once
 * the watchdog has run. */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "test.h"
#include "../../src/core/cgroup.h"
#include "../../src/core/file.h"

/* This machine's layout, a v2-only one, a sub-tree mount, and none. */
static const char mi_v1[] =
	"31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755\n"
	"32 31 0:29 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu\n"
	"33 31 0:30 / /sys/fs/cgroup/cpuacct rw,relatime - cgroup cgroup rw,cpuacct\n"
	"41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw\n";
static const char self_v1[] = "4:memory:/x\n3:cpuset:/\n2:cpuacct:/\n1:cpu:/\n0::/\n";
static const char mi_v2[] = "25 20 0:22 / /sys/fs/cgroup rw,nosuid shared:4 - cgroup2 cgroup2 rw,nsdelegate\n";
static const char self_v2[] = "0::/user.slice/bench.scope\n";
static const char mi_sub[] = "32 31 0:29 /lxc/c1 /sys/fs/cgroup/cpu,cpuacct rw - cgroup cgroup rw,cpu,cpuacct\n";
static const char self_sub[] = "2:cpu,cpuacct:/lxc/c1/inner\n";
static const char mi_none[] = "22 1 8:1 / / rw - ext4 /dev/sda1 rw\n";

static void detect_layouts(void **state)
{
	static const struct {
		const char *mi, *self;
		int r;
		enum cg_version ver;
		const char *mount, *path;
	} cases[] = {
		{ mi_v1, self_v1, 0, CG_V1, "/sys/fs/cgroup/cpu", "" }, /* v1 preferred over the empty v2 */
		{ mi_v2, self_v2, 0, CG_V2, "/sys/fs/cgroup", "/user.slice/bench.scope" },
		{ mi_sub, self_sub, 0, CG_V1, "/sys/fs/cgroup/cpu,cpuacct", "/inner" },
		{ mi_sub, "2:cpu,cpuacct:/elsewhere\n", -ENOENT, CG_NONE, "", "" },
		{ mi_none, self_v1, -ENOENT, CG_NONE, "", "" },
		{ "", "", -ENOENT, CG_NONE, "", "" },
		/* "cpuacct" alone is not "cpu" */
		{ "33 31 0:30 / /c rw - cgroup cgroup rw,cpuacct\n", "2:cpuacct:/\n", -ENOENT, CG_NONE, "", "" },
		{ "truncated line\n", self_v1, -ENOENT, CG_NONE, "", "" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct cg_layout l;
		int r = cg_detect(cases[i].mi, cases[i].self, &l);

		if (r != cases[i].r || l.ver != cases[i].ver)
			fail_msg("case %zu: r %d ver %d, expected %d %d", i, r, l.ver, cases[i].r, cases[i].ver);
		assert_string_equal(l.mount, cases[i].mount);
		assert_string_equal(l.self, cases[i].path);
	}
}

/* A plan as text, one step a line: "mkdir P", "write P V", "rmdir P". */
static char *plan_text(const struct cg_plan *p)
{
	static const char *const kinds[] = { [CG_MKDIR] = "mkdir", [CG_WRITE] = "write", [CG_RMDIR] = "rmdir" };
	size_t cap = 64 * 1024, off = 0;
	char *s = calloc(1, cap);

	assert_non_null(s);
	for (size_t i = 0; i < p->n; i++)
		off += (size_t)snprintf(s + off, cap - off, "%s %s%s%s\n", kinds[p->ops[i].kind], p->ops[i].path,
					p->ops[i].kind == CG_WRITE ? " " : "", p->ops[i].value);
	return s;
}

static void plans(void **state)
{
	static const unsigned w13[] = { 1, 3 };
	static const struct {
		enum cg_version ver;
		bool rt;
		const char *self;
		int what; /* 0 create, 1 fair, 2 reservation, 3 remove */
		const char *want;
	} cases[] = {
		{ CG_V1, true, "", 0,
		  "mkdir /m/vmbench-sched-42\n"
		  "write /m/vmbench-sched-42/cpu.rt_runtime_us 100000\n"
		  "mkdir /m/vmbench-sched-42/g0\n"
		  "mkdir /m/vmbench-sched-42/g1\n"
		  "mkdir /m/vmbench-sched-42/probe\n"
		  "write /m/vmbench-sched-42/probe/cpu.rt_runtime_us 100000\n" },
		{ CG_V1, false, "/a", 0,
		  "mkdir /m/a/vmbench-sched-42\n"
		  "mkdir /m/a/vmbench-sched-42/g0\n"
		  "mkdir /m/a/vmbench-sched-42/g1\n"
		  "mkdir /m/a/vmbench-sched-42/probe\n" },
		{ CG_V1, true, "", 1,
		  "write /m/vmbench-sched-42/g0/cpu.shares 1024\n"
		  "write /m/vmbench-sched-42/g0/cpu.cfs_period_us 10000\n"
		  "write /m/vmbench-sched-42/g0/cpu.cfs_quota_us -1\n"
		  "write /m/vmbench-sched-42/g1/cpu.shares 3072\n"
		  "write /m/vmbench-sched-42/g1/cpu.cfs_period_us 10000\n"
		  "write /m/vmbench-sched-42/g1/cpu.cfs_quota_us -1\n" },
		{ CG_V1, true, "", 2,
		  "write /m/vmbench-sched-42/g0/cpu.shares 1024\n"
		  "write /m/vmbench-sched-42/g0/cpu.cfs_period_us 10000\n"
		  "write /m/vmbench-sched-42/g0/cpu.cfs_quota_us 2500\n"
		  "write /m/vmbench-sched-42/g1/cpu.shares 1024\n"
		  "write /m/vmbench-sched-42/g1/cpu.cfs_period_us 10000\n"
		  "write /m/vmbench-sched-42/g1/cpu.cfs_quota_us 7500\n" },
		{ CG_V1, true, "", 3,
		  "rmdir /m/vmbench-sched-42/g0\n"
		  "rmdir /m/vmbench-sched-42/g1\n"
		  "rmdir /m/vmbench-sched-42/probe\n"
		  "rmdir /m/vmbench-sched-42\n" },
		{ CG_V2, false, "/s", 0,
		  "write /m/s/cgroup.subtree_control +cpu\n"
		  "mkdir /m/s/vmbench-sched-42\n"
		  "write /m/s/vmbench-sched-42/cgroup.procs 42\n"
		  "mkdir /m/s/vmbench-sched-42/g0\n"
		  "write /m/s/vmbench-sched-42/g0/cgroup.type threaded\n"
		  "mkdir /m/s/vmbench-sched-42/g1\n"
		  "write /m/s/vmbench-sched-42/g1/cgroup.type threaded\n"
		  "mkdir /m/s/vmbench-sched-42/probe\n"
		  "write /m/s/vmbench-sched-42/probe/cgroup.type threaded\n"
		  "write /m/s/vmbench-sched-42/cgroup.subtree_control +cpu\n" },
		{ CG_V2, false, "/s", 1,
		  "write /m/s/vmbench-sched-42/g0/cpu.weight 100\n"
		  "write /m/s/vmbench-sched-42/g0/cpu.max max 10000\n"
		  "write /m/s/vmbench-sched-42/g1/cpu.weight 300\n"
		  "write /m/s/vmbench-sched-42/g1/cpu.max max 10000\n" },
		{ CG_V2, false, "/s", 2,
		  "write /m/s/vmbench-sched-42/g0/cpu.weight 100\n"
		  "write /m/s/vmbench-sched-42/g0/cpu.max 2500 10000\n"
		  "write /m/s/vmbench-sched-42/g1/cpu.weight 100\n"
		  "write /m/s/vmbench-sched-42/g1/cpu.max 7500 10000\n" },
		{ CG_V2, false, "/s", 3,
		  "write /m/s/cgroup.procs 42\n" /* the process back where it was */
		  "rmdir /m/s/vmbench-sched-42/g0\n"
		  "rmdir /m/s/vmbench-sched-42/g1\n"
		  "rmdir /m/s/vmbench-sched-42/probe\n"
		  "rmdir /m/s/vmbench-sched-42\n" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct cg_layout l = { .ver = cases[i].ver, .mount = "/m", .rt_group = cases[i].rt };
		struct cg_plan p;
		char *text;
		int r = -1;

		snprintf(l.self, sizeof(l.self), "%s", cases[i].self);
		cg_plan_init(&p);
		switch (cases[i].what) {
		case 0:
			r = cg_plan_create(&p, &l, 42, 2, 100000);
			break;
		case 1:
			r = cg_plan_mode(&p, &l, 42, CG_FAIR, w13, 2, 10000);
			break;
		case 2:
			r = cg_plan_mode(&p, &l, 42, CG_RESERVATION, w13, 2, 10000);
			break;
		case 3:
			r = cg_plan_remove(&p, &l, 42, 2);
			break;
		}
		assert_int_equal(r, 0);
		text = plan_text(&p);
		if (strcmp(text, cases[i].want))
			fail_msg("case %zu:\n%s\nexpected:\n%s", i, text, cases[i].want);
		free(text);
		cg_plan_release(&p);
	}
}

static void bad_plans(void **state)
{
	static const unsigned w0[] = { 0, 1 }, w1[CG_MAX_GROUPS + 1] = { 1, 1, 1, 1, 1, 1, 1, 1, 1 };
	struct cg_layout l = { .ver = CG_V1, .mount = "/m" }, none = { .ver = CG_NONE };
	struct cg_plan p;

	(void)state;
	cg_plan_init(&p);
	assert_int_equal(cg_plan_create(&p, &l, 1, 0, 0), -EINVAL);
	assert_int_equal(cg_plan_create(&p, &l, 1, CG_MAX_GROUPS + 1, 0), -EINVAL);
	assert_int_equal(cg_plan_create(&p, &none, 1, 2, 0), -EINVAL);
	assert_int_equal(cg_plan_mode(&p, &l, 1, CG_FAIR, w0, 2, 10000), -EINVAL);   /* weight 0 */
	assert_int_equal(cg_plan_mode(&p, &l, 1, CG_FAIR, w1, CG_MAX_GROUPS + 1, 10000), -EINVAL); /* too many groups */
	assert_int_equal(cg_plan_mode(&p, &l, 1, CG_FAIR, w1, 2, 999), -EINVAL);     /* period below 1 ms */
	memset(l.mount, 'x', sizeof(l.mount) - 1);                                   /* a path too long */
	assert_int_equal(cg_plan_create(&p, &l, 1, 2, 0), -ENAMETOOLONG);
	cg_plan_release(&p);
}

/* A fixture tree standing in for the hierarchy: mkdir and rmdir steps run
 * for real, the removal tolerates what is already gone, and the watchdog
 * removes the groups once its pipe closes (as when the process dies). */
static void removal_on_fixture_tree(void **state)
{
	char root[] = "/tmp/vmbench-test-sched-XXXXXX";
	struct cg_layout l = { .ver = CG_V1 };
	struct cg_plan make, rm;
	struct cg_watchdog dog;
	char base[CG_PATH_MAX];
	struct stat sb;

	(void)state;
	assert_non_null(mkdtemp(root));
	snprintf(l.mount, sizeof(l.mount), "%s", root);
	cg_plan_init(&make);
	cg_plan_init(&rm);
	assert_int_equal(cg_plan_create(&make, &l, 77, 3, 0), 0);
	assert_int_equal(cg_plan_remove(&rm, &l, 77, 3), 0);
	assert_int_equal(cg_base_path(&l, 77, base, sizeof(base)), 0);
	for (int round = 0; round < 2; round++) {
		assert_int_equal(cg_plan_run(&make, true, NULL), 0);
		assert_int_equal(stat(base, &sb), 0);
		if (round == 0) {
			assert_int_equal(cg_plan_run(&rm, false, NULL), 0);
			assert_int_equal(cg_plan_run(&rm, false, NULL), 0); /* twice: nothing left to remove is fine */
		} else {
			assert_int_equal(cg_watchdog_start(&dog, &rm), 0);
			cg_watchdog_stop(&dog); /* closes the pipe and waits for the watchdog */
		}
		assert_int_equal(stat(base, &sb), -1);
		assert_int_equal(errno, ENOENT);
	}
	/* creation stops at the first failure: the base exists already */
	assert_int_equal(mkdir(base, 0755), 0);
	{
		const struct cg_op *bad = NULL;

		assert_int_equal(cg_plan_run(&make, true, &bad), -EEXIST);
		assert_non_null(bad);
		assert_string_equal(bad->path, base);
	}
	assert_int_equal(rmdir(base), 0);
	assert_int_equal(rmdir(root), 0);
	cg_plan_release(&make);
	cg_plan_release(&rm);
}

/* ---- cgroup v2 imitated on a directory tree ----
 * What the kernel does behind the files the planner touches: a new group
 * gets its interface files, cgroup.controllers from its parent's
 * cgroup.subtree_control, and cpu.max and cpu.weight when cpu is handed
 * down; "+c" and "-c" in cgroup.subtree_control add and remove c (refused
 * when the group is not offered c, or a child still hands it down); a pid
 * written to cgroup.procs leaves the group it was in; rmdir refuses a group
 * with children. Whether a pid is a live process is not imitated. */

static char fake_root[64];

static const char *const fake_iface[] = { "cgroup.controllers", "cgroup.subtree_control", "cgroup.procs",
					  "cgroup.threads", "cgroup.type", "cpu.max", "cpu.weight" };

static void put(const char *dir, const char *file, const char *text)
{
	char path[CG_PATH_MAX + 64];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

/* The file's text (owned), or NULL when there is none. */
static char *get(const char *dir, const char *file)
{
	char path[CG_PATH_MAX + 64], *text = NULL;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	return read_file(path, &text) == 0 ? text : NULL;
}

static bool has_word(const char *list, const char *w)
{
	size_t n = strlen(w);

	for (const char *p = list; p && *p; p += strcspn(p, " \n"), p += strspn(p, " \n"))
		if (strcspn(p, " \n") == n && !strncmp(p, w, n))
			return true;
	return false;
}

/* list with word added (add) or taken out, as the kernel prints it */
static void edit_list(char *list, size_t len, const char *w, bool add)
{
	char out[256] = "";

	for (const char *p = list + strspn(list, " \n"); *p; p += strcspn(p, " \n"), p += strspn(p, " \n")) {
		size_t n = strcspn(p, " \n");

		if (n != strlen(w) || strncmp(p, w, n))
			snprintf(out + strlen(out), sizeof(out) - strlen(out), "%s%.*s", out[0] ? " " : "", (int)n, p);
	}
	if (add)
		snprintf(out + strlen(out), sizeof(out) - strlen(out), "%s%s", out[0] ? " " : "", w);
	snprintf(list, len, "%s\n", out);
}

/* Calls fn(child dir) for each child group of dir; stops at a non-zero return. */
static int each_child(const char *dir, int (*fn)(const char *child, void *arg), void *arg)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int r = 0;

	while (d && r == 0 && (e = readdir(d))) {
		char sub[CG_PATH_MAX];
		struct stat st;

		if (e->d_name[0] == '.' || snprintf(sub, sizeof(sub), "%s/%s", dir, e->d_name) >= (int)sizeof(sub) ||
		    stat(sub, &st) < 0 || !S_ISDIR(st.st_mode))
			continue;
		r = fn(sub, arg);
	}
	if (d)
		closedir(d);
	return r;
}

static int any(const char *child, void *arg)
{
	(void)child;
	(void)arg;
	return 1;
}

static int hands_down(const char *child, void *arg)
{
	char *text = get(child, "cgroup.subtree_control");
	int r = has_word(text, arg);

	free(text);
	return r;
}

/* a controller offered to child, or no longer */
static int offer(const char *child, void *arg)
{
	const char *tok = arg;
	char *text = get(child, "cgroup.controllers"), list[256];

	snprintf(list, sizeof(list), "%s", text ? text : "");
	free(text);
	edit_list(list, sizeof(list), tok + 1, tok[0] == '+');
	put(child, "cgroup.controllers", list);
	if (!strcmp(tok + 1, "cpu") && tok[0] == '+') {
		put(child, "cpu.max", "max 100000\n");
		put(child, "cpu.weight", "100\n");
	} else if (!strcmp(tok + 1, "cpu")) {
		char path[CG_PATH_MAX + 16];

		snprintf(path, sizeof(path), "%s/cpu.max", child);
		(void)unlink(path);
		snprintf(path, sizeof(path), "%s/cpu.weight", child);
		(void)unlink(path);
	}
	return 0;
}

/* pid out of every group's cgroup.procs */
static int take_out(const char *dir, void *arg)
{
	char *text = get(dir, "cgroup.procs"), out[256] = "";

	for (const char *p = text; p && *p; p += strcspn(p, "\n"), p += *p == '\n') {
		size_t n = strcspn(p, "\n");

		if (n != strlen(arg) || strncmp(p, arg, n))
			snprintf(out + strlen(out), sizeof(out) - strlen(out), "%.*s\n", (int)n, p);
	}
	if (text)
		put(dir, "cgroup.procs", out);
	free(text);
	return each_child(dir, take_out, arg);
}

static int fake_mkdir(const char *path)
{
	char parent[CG_PATH_MAX], *ctl;

	if (mkdir(path, 0755) < 0)
		return -errno;
	snprintf(parent, sizeof(parent), "%.*s", (int)(strrchr(path, '/') - path), path);
	ctl = get(parent, "cgroup.subtree_control");
	put(path, "cgroup.controllers", ctl ? ctl : "\n");
	put(path, "cgroup.subtree_control", "\n");
	put(path, "cgroup.procs", "");
	put(path, "cgroup.threads", "");
	put(path, "cgroup.type", "domain\n");
	if (has_word(ctl, "cpu")) {
		put(path, "cpu.max", "max 100000\n");
		put(path, "cpu.weight", "100\n");
	}
	free(ctl);
	return 0;
}

static int fake_rmdir(const char *path)
{
	struct stat st;

	if (stat(path, &st) < 0)
		return -errno;
	if (each_child(path, any, NULL))
		return -EBUSY;
	for (size_t i = 0; i < sizeof(fake_iface) / sizeof(fake_iface[0]); i++) {
		char f[CG_PATH_MAX + 32];

		snprintf(f, sizeof(f), "%s/%s", path, fake_iface[i]);
		(void)unlink(f);
	}
	return rmdir(path) < 0 ? -errno : 0;
}

static int fake_write(const char *path, const char *value)
{
	char dir[CG_PATH_MAX], list[256], *text;
	const char *file = strrchr(path, '/') + 1;
	struct stat st;

	if (stat(path, &st) < 0)
		return -errno;
	snprintf(dir, sizeof(dir), "%.*s", (int)(file - 1 - path), path);
	if (!strcmp(file, "cgroup.subtree_control")) {
		char *offered = get(dir, "cgroup.controllers");
		char tok[32];
		int r = 0;

		text = get(dir, file);
		snprintf(list, sizeof(list), "%s", text ? text : "");
		free(text);
		snprintf(tok, sizeof(tok), "%s", value);
		if ((tok[0] != '+' && tok[0] != '-') || (tok[0] == '+' && !has_word(offered, tok + 1)))
			r = -ENOENT;
		else if (tok[0] == '-' && each_child(dir, hands_down, tok + 1))
			r = -EBUSY;
		free(offered);
		if (r < 0)
			return r;
		/* an add or a removal of what is (or is not) there changes nothing */
		if (has_word(list, tok + 1) != (tok[0] == '+')) {
			edit_list(list, sizeof(list), tok + 1, tok[0] == '+');
			put(dir, file, list);
			(void)each_child(dir, offer, tok);
		}
		return 0;
	}
	if (!strcmp(file, "cgroup.procs")) {
		(void)take_out(fake_root, (void *)value);
		text = get(dir, file);
		snprintf(list, sizeof(list), "%s%s%s\n", text ? text : "", text && *text ? "\n" : "", value);
		free(text);
		put(dir, file, list);
		return 0;
	}
	snprintf(list, sizeof(list), "%s\n", value);
	put(dir, file, list);
	return 0;
}

static const struct cg_fs fake_fs = { .mkdir = fake_mkdir, .rmdir = fake_rmdir, .write = fake_write };

/* Every directory and file under dir, with the files' text, sorted. */
static void snapshot(const char *dir, char *out, size_t len)
{
	struct dirent **e;
	int n = scandir(dir, &e, NULL, alphasort);

	assert_true(n >= 0);
	for (int i = 0; i < n; i++) {
		char sub[CG_PATH_MAX];
		struct stat st;

		if (e[i]->d_name[0] != '.' && snprintf(sub, sizeof(sub), "%s/%s", dir, e[i]->d_name) < (int)sizeof(sub) &&
		    stat(sub, &st) == 0) {
			if (S_ISDIR(st.st_mode)) {
				snprintf(out + strlen(out), len - strlen(out), "%s/\n", sub);
				snapshot(sub, out, len);
			} else {
				char *text = get(dir, e[i]->d_name);

				snprintf(out + strlen(out), len - strlen(out), "%s = %s|\n", sub, text ? text : "?");
				free(text);
			}
		}
		free(e[i]);
	}
	free(e);
}

/* A root offering cpu io memory and handing them down, and this process's
 * cgroup /s under it, its cgroup.subtree_control as given ("io": cpu not
 * handed down; "io cpu": already, by someone else), pid 42 in it. */
static void fake_host(const char *subtree, const char *offered)
{
	char s[CG_PATH_MAX], ctl[CG_PATH_MAX + 32], procs[CG_PATH_MAX + 32];

	snprintf(fake_root, sizeof(fake_root), "/tmp/vmbench-test-cgroup-XXXXXX");
	assert_non_null(mkdtemp(fake_root));
	put(fake_root, "cgroup.controllers", offered);
	put(fake_root, "cgroup.subtree_control", offered);
	put(fake_root, "cgroup.procs", "1\n");
	snprintf(s, sizeof(s), "%s/s", fake_root);
	snprintf(ctl, sizeof(ctl), "%s/cgroup.subtree_control", s);
	snprintf(procs, sizeof(procs), "%s/cgroup.procs", s);
	assert_int_equal(fake_mkdir(s), 0);
	for (const char *p = subtree; *p; p += strcspn(p, " "), p += *p == ' ') {
		char tok[32];

		snprintf(tok, sizeof(tok), "+%.*s", (int)strcspn(p, " "), p);
		assert_int_equal(fake_write(ctl, tok), 0);
	}
	assert_int_equal(fake_write(procs, "42"), 0);
}

static void fake_host_remove(void)
{
	char s[CG_PATH_MAX];

	snprintf(s, sizeof(s), "%s/s", fake_root);
	assert_int_equal(fake_rmdir(s), 0);
	for (size_t i = 0; i < sizeof(fake_iface) / sizeof(fake_iface[0]); i++) {
		char f[CG_PATH_MAX];

		snprintf(f, sizeof(f), "%s/%s", fake_root, fake_iface[i]);
		(void)unlink(f);
	}
	assert_int_equal(rmdir(fake_root), 0);
}

static struct cg_layout fake_layout(bool contend)
{
	struct cg_layout l = { .ver = CG_V2, .fs = &fake_fs };

	snprintf(l.mount, sizeof(l.mount), "%s", fake_root);
	snprintf(l.self, sizeof(l.self), "/s");
	if (contend) {
		l.tree = CG_TREE_CONTEND;
		l.no_probe = true;
	}
	return l;
}

static const struct {
	const char *name;
	bool contend;        /* lab contend's tree (a group per QEMU), else sched.fairness's */
	const char *subtree; /* the parent's cgroup.subtree_control before */
} v2_cases[] = {
	{ "lab contend, cpu not handed down before", true, "io" },
	{ "lab contend, cpu handed down before", true, "io cpu" },
	{ "sched.fairness, cpu not handed down before", false, "io" },
	{ "sched.fairness, cpu handed down before", false, "cpu" },
};

/* Made, knobs written, undone: every file reads as before. */
static void v2_undo_leaves_the_host_as_it_was(void **state)
{
	static char before[64 * 1024], after[64 * 1024];

	(void)state;
	for (size_t i = 0; i < sizeof(v2_cases) / sizeof(v2_cases[0]); i++) {
		struct cg_knob k[2] = { { 1, 0 }, { 1, 50000 } };
		struct cg_layout l;
		struct cg_tree t;
		char why[256], g1[CG_PATH_MAX], *max;

		fake_host(v2_cases[i].subtree, "cpu io memory\n");
		l = fake_layout(v2_cases[i].contend);
		before[0] = after[0] = '\0';
		snapshot(fake_root, before, sizeof(before));
		assert_int_equal(cg_layout_check(&l, why, sizeof(why)), 0);
		cg_tree_init(&t);
		assert_int_equal(cg_tree_make(&t, &l, 42, 2), 0);
		assert_int_equal(cg_tree_knobs(&t, k, 100000), 0);
		assert_int_equal(cg_group_path(&l, 42, 1, 2, g1, sizeof(g1)), 0);
		max = get(g1, "cpu.max");
		if (!max || strcmp(max, "50000 100000"))
			fail_msg("%s: g1's cpu.max is %s", v2_cases[i].name, max ? max : "missing (cpu not handed down)");
		free(max);
		cg_tree_undo(&t);
		snapshot(fake_root, after, sizeof(after));
		if (strcmp(before, after))
			fail_msg("%s: the files after the undo:\n%s\nbefore:\n%s", v2_cases[i].name, after, before);
		fake_host_remove();
	}
}

/* Killed with its groups made and its knobs written: once the watchdog
 * has run, every file reads as before. The test process is the subreaper
 * that the watchdog falls to, so that waiting for it needs no sleep. */
static void v2_watchdog_leaves_the_host_as_it_was(void **state)
{
	static char before[64 * 1024], after[64 * 1024];

	(void)state;
	assert_int_equal(prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0), 0);
	for (size_t i = 0; i < sizeof(v2_cases) / sizeof(v2_cases[0]); i++) {
		struct cg_layout l;
		int status, fds[2];
		pid_t pid, dog = 0;

		fake_host(v2_cases[i].subtree, "cpu io memory\n");
		l = fake_layout(v2_cases[i].contend);
		before[0] = after[0] = '\0';
		snapshot(fake_root, before, sizeof(before));
		assert_int_equal(pipe(fds), 0);
		pid = fork();
		assert_true(pid >= 0);
		if (pid == 0) {
			struct cg_knob k[2] = { { 1, 0 }, { 1, 50000 } };
			struct cg_tree t;

			/* its own pid: sched.fairness's tree moves it into the base, and
			 * a dead process leaves its group as the kernel has it */
			cg_tree_init(&t);
			if (cg_tree_make(&t, &l, getpid(), 2) < 0 || cg_tree_knobs(&t, k, 100000) < 0 ||
			    write(fds[1], &t.dog.pid, sizeof(t.dog.pid)) != (ssize_t)sizeof(t.dog.pid))
				_exit(1);
			(void)raise(SIGKILL);
			_exit(2);
		}
		(void)close(fds[1]);
		assert_int_equal(read(fds[0], &dog, sizeof(dog)), (ssize_t)sizeof(dog));
		(void)close(fds[0]);
		assert_int_equal(waitpid(pid, &status, 0), pid);
		if (!WIFSIGNALED(status) || WTERMSIG(status) != SIGKILL)
			fail_msg("%s: the tree was not made (status %#x)", v2_cases[i].name, status);
		/* the watchdog: ours now, and done once it exits */
		assert_int_equal(waitpid(dog, &status, 0), dog);
		snapshot(fake_root, after, sizeof(after));
		if (strcmp(before, after))
			fail_msg("%s: the files after the watchdog:\n%s\nbefore:\n%s", v2_cases[i].name, after, before);
		fake_host_remove();
	}
	assert_int_equal(prctl(PR_SET_CHILD_SUBREAPER, 0, 0, 0, 0), 0);
}

/* A v2 cgroup not offered cpu: refused before anything is written, and said. */
static void v2_without_cpu_is_refused(void **state)
{
	static char before[64 * 1024], after[64 * 1024];
	struct cg_layout l;
	char why[256];

	(void)state;
	fake_host("io", "io memory\n");
	l = fake_layout(true);
	before[0] = after[0] = '\0';
	snapshot(fake_root, before, sizeof(before));
	assert_int_equal(cg_layout_check(&l, why, sizeof(why)), -ENOTSUP);
	assert_int_equal(l.ver, CG_NONE);
	assert_non_null(strstr(why, "offers no cpu controller to /s"));
	snapshot(fake_root, after, sizeof(after));
	assert_string_equal(before, after);
	fake_host_remove();
}

/* ---- what a group's bandwidth control says ---- */

static void cpu_stat_parsing(void **state)
{
	static const struct {
		const char *text;
		int r;
		unsigned long long periods, throttled, throttled_ns, usage_ns;
		bool has_usage;
	} cases[] = {
		/* v1, as this kernel's cpu hierarchy has it (throttled_time in ns) */
		{ "nr_periods 10\nnr_throttled 3\nthrottled_time 4500000\nnr_bursts 0\nburst_time 0\n", 0, 10, 3,
		  4500000, 0, false },
		/* v2: times in us, usage beside them */
		{ "usage_usec 2500\nuser_usec 2000\nsystem_usec 500\nnr_periods 7\nnr_throttled 2\nthrottled_usec 1200\n"
		  "nr_bursts 0\nburst_usec 0\n", 0, 7, 2, 1200000, 2500000, true },
		{ "nr_periods 0\nnr_throttled 0\nthrottled_time 0", 0, 0, 0, 0, 0, false }, /* no final newline */
		{ "nr_periods 1\nnr_throttled 1\n", -EINVAL, 0, 0, 0, 0, false },          /* no throttled time */
		{ "nr_periods 1\nnr_throttled -1\nthrottled_time 0\n", -EINVAL, 0, 0, 0, 0, false },
		{ "nr_periods 1\nnr_periods 2\nnr_throttled 0\nthrottled_time 0\n", -EINVAL, 0, 0, 0, 0, false },
		{ "nr_periods  1\nnr_throttled 0\nthrottled_time 0\n", -EINVAL, 0, 0, 0, 0, false },
		{ "nr_periods 1\nnr_throttled 0\nthrottled_usec 18446744073709552\n", -EINVAL, 0, 0, 0, 0, false },
		{ "nr_periods 99999999999999999999\nnr_throttled 0\nthrottled_time 0\n", -EINVAL, 0, 0, 0, 0, false },
		{ "nr_periodsX 1\nnr_throttled 0\nthrottled_time 0\n", -EINVAL, 0, 0, 0, 0, false },
		{ "", -EINVAL, 0, 0, 0, 0, false },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct cg_cpu_stat st = { .nr_periods = 4242 };
		int r = cg_parse_cpu_stat(cases[i].text, &st);

		if (r != cases[i].r)
			fail_msg("case %zu: %d, expected %d", i, r, cases[i].r);
		if (r < 0) {
			assert_int_equal(st.nr_periods, 4242); /* untouched */
			continue;
		}
		assert_int_equal(st.nr_periods, cases[i].periods);
		assert_int_equal(st.nr_throttled, cases[i].throttled);
		assert_int_equal(st.throttled_ns, cases[i].throttled_ns);
		assert_int_equal(st.usage_ns, cases[i].usage_ns);
		assert_int_equal(st.has_usage, cases[i].has_usage);
	}
}

static void cpu_max_parsing(void **state)
{
	static const struct {
		const char *text;
		int r;
		unsigned long long quota, period;
	} cases[] = {
		{ "120000 100000\n", 0, 120000, 100000 },
		{ "max 100000\n", 0, 0, 100000 },
		{ "1000 10000", 0, 1000, 10000 },
		{ "max\n", -EINVAL, 0, 0 },
		{ "120000 0\n", -EINVAL, 0, 0 },
		{ "-1 100000\n", -EINVAL, 0, 0 },
		{ "120000  100000\n", -EINVAL, 0, 0 },
		{ " 100000\n", -EINVAL, 0, 0 },
		{ "120000 \n", -EINVAL, 0, 0 },
		{ "maxx 100000", -EINVAL, 0, 0 },
		{ "", -EINVAL, 0, 0 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		unsigned long long q = 7, p = 7;
		int r = cg_parse_cpu_max(cases[i].text, &q, &p);

		if (r != cases[i].r)
			fail_msg("case %zu (%s): %d, expected %d", i, cases[i].text, r, cases[i].r);
		assert_int_equal(q, r ? 7 : cases[i].quota);
		assert_int_equal(p, r ? 7 : cases[i].period);
	}
}

/* The readers, on a directory tree laid out as each version's groups are */
static void quota_read_back(void **state)
{
	static const struct {
		enum cg_version ver;
		const char *files[3][2];
		int r;
		unsigned long long quota, period, throttled_ns;
	} cases[] = {
		{ CG_V1, { { "cpu.cfs_quota_us", "120000\n" }, { "cpu.cfs_period_us", "100000\n" },
			   { "cpu.stat", "nr_periods 5\nnr_throttled 2\nthrottled_time 300\n" } }, 0, 120000, 100000, 300 },
		{ CG_V1, { { "cpu.cfs_quota_us", "-1\n" }, { "cpu.cfs_period_us", "100000\n" },
			   { "cpu.stat", "nr_periods 0\nnr_throttled 0\nthrottled_time 0\n" } }, 0, 0, 100000, 0 },
		{ CG_V2, { { "cpu.max", "80000 100000\n" }, { "cpu.stat", "usage_usec 9\nnr_periods 5\nnr_throttled 1\n"
								       "throttled_usec 3\n" } }, 0, 80000, 100000, 3000 },
		{ CG_V2, { { "cpu.max", "garbage\n" }, { "cpu.stat", "nr_periods 5\n" } }, -EINVAL, 0, 0, 0 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char root[] = "/tmp/vmbench-cgq-XXXXXX", dir[CG_PATH_MAX];
		unsigned long long q = 0, p = 0;
		struct cg_cpu_stat st;
		struct cg_tree t;

		assert_non_null(mkdtemp(root));
		cg_tree_init(&t);
		t.l.ver = cases[i].ver;
		snprintf(t.l.mount, sizeof(t.l.mount), "%s", root);
		t.pid = 4242;
		t.ngroups = 1;
		/* not made: nothing is read */
		assert_int_equal(cg_tree_quota(&t, 0, &q, &p), -EINVAL);
		t.made = true;
		assert_int_equal(cg_tree_quota(&t, 1, &q, &p), -EINVAL); /* the probe's is no quota's group */
		assert_int_equal(cg_base_path(&t.l, 4242, dir, sizeof(dir)), 0);
		assert_int_equal(mkdir(dir, 0755), 0);
		assert_int_equal(cg_group_path(&t.l, 4242, 0, 1, dir, sizeof(dir)), 0);
		assert_int_equal(mkdir(dir, 0755), 0);
		for (size_t f = 0; f < 3 && cases[i].files[f][0]; f++)
			put(dir, cases[i].files[f][0], cases[i].files[f][1]);
		assert_int_equal(cg_tree_quota(&t, 0, &q, &p), cases[i].r);
		if (cases[i].r == 0) {
			assert_int_equal(q, cases[i].quota);
			assert_int_equal(p, cases[i].period);
			assert_int_equal(cg_tree_cpu_stat(&t, 0, &st), 0);
			assert_int_equal(st.throttled_ns, cases[i].throttled_ns);
		} else
			assert_int_equal(cg_tree_cpu_stat(&t, 0, &st), -EINVAL);
		snprintf(dir, sizeof(dir), "rm -rf '%s'", root);
		assert_int_equal(system(dir), 0);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(detect_layouts),
		cmocka_unit_test(plans),
		cmocka_unit_test(bad_plans),
		cmocka_unit_test(removal_on_fixture_tree),
		cmocka_unit_test(v2_undo_leaves_the_host_as_it_was),
		cmocka_unit_test(v2_watchdog_leaves_the_host_as_it_was),
		cmocka_unit_test(v2_without_cpu_is_refused),
		cmocka_unit_test(cpu_stat_parsing),
		cmocka_unit_test(cpu_max_parsing),
		cmocka_unit_test(quota_read_back),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
