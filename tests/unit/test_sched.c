/* Scheduling suite: Jain's index, wake-up latency counting, and the cgroup
 * logic (where the cpu controller is, the steps of each plan for v1 and
 * v2, removal and the watchdog on a fixture tree). */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "test.h"
#include "../../src/suites/sched.h"
#include "../../src/core/cgroup.h"

static void jain_index(void **state)
{
	static const struct {
		double got[3], promised[3];
		size_t n;
		double want; /* NAN: undefined */
	} cases[] = {
		{ { 1, 1 }, { 1, 1 }, 2, 1.0 },
		{ { 1, 3 }, { 1, 3 }, 2, 1.0 },       /* shares as promised */
		{ { 25, 75 }, { 1, 3 }, 2, 1.0 },     /* scale does not matter */
		{ { 1, 0 }, { 1, 1 }, 2, 0.5 },       /* one takes all: 1/n */
		{ { 1, 0, 0 }, { 1, 1, 1 }, 3, 1.0 / 3 },
		{ { 1, 1 }, { 1, 3 }, 2, 0.8 },       /* x = 2, 2/3: (8/3)^2 / (2 * 40/9) */
		{ { 2, 1, 1 }, { 1, 1, 1 }, 3, 16.0 / 18 },
		{ { 1, 1 }, { 0, 1 }, 2, NAN },       /* a promise of nothing */
		{ { 0, 0 }, { 1, 1 }, 2, NAN },       /* nothing done */
		{ { 1 }, { 1 }, 0, NAN },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		double j = sched_jain(cases[i].got, cases[i].promised, cases[i].n);

		if (isnan(cases[i].want)) {
			if (!isnan(j))
				fail_msg("case %zu: %g, expected NAN", i, j);
		} else
			assert_close(j, cases[i].want, 1e-12);
	}
}

static void latency_counting(void **state)
{
	static const struct {
		uint64_t lat[8];
		size_t n;
		uint64_t threshold, over, max;
	} cases[] = {
		{ { 10, 20, 30 }, 3, 100, 0, 30 },
		{ { 100, 101, 99 }, 3, 100, 1, 101 }, /* over means later than, not equal */
		{ { 0, 5000000, 1, 2, 3 }, 5, 4, 1, 5000000 },
		{ { 0 }, 0, 10, 0, 0 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct sched_lat *a = malloc(sizeof(*a)), *b = malloc(sizeof(*b));

		assert_non_null(a);
		assert_non_null(b);
		sched_lat_init(a, cases[i].threshold);
		sched_lat_init(b, cases[i].threshold);
		for (size_t k = 0; k < cases[i].n; k++)
			sched_lat_record(k % 2 ? b : a, cases[i].lat[k]);
		sched_lat_merge(a, b);
		/* every wake-up is in the histogram once */
		assert_int_equal(a->hist.count, cases[i].n);
		assert_int_equal(a->over, cases[i].over);
		assert_int_equal(a->hist.max, cases[i].max);
		free(a);
		free(b);
	}
}

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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(jain_index),
		cmocka_unit_test(latency_counting),
		cmocka_unit_test(detect_layouts),
		cmocka_unit_test(plans),
		cmocka_unit_test(bad_plans),
		cmocka_unit_test(removal_on_fixture_tree),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
