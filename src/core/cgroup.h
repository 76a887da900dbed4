/* The cgroup planner: where the cpu controller is (cgroup v1 or v2), a
 * tree of groups vmbench makes under the cgroup this process is in, the
 * knobs a policy writes in them, and their undo on every exit path: the
 * normal end, Ctrl-C, and kill -9 (a watchdog process); what a watchdog
 * killed with its process left is removed by the next run (cg_reclaim).
 * sched.fairness (threads of one process in groups) and lab contend (a
 * QEMU per group) both go through struct cg_tree: one detection, one
 * plan, one apply, one undo.
 *
 * Everything that decides a path or a value is a plan (a list of mkdir,
 * write and rmdir steps) built from plain text, so that unit tests check it
 * for both layouts. A plan is carried out on the file system of the layout
 * it was built from (struct cg_fs: the kernel's, or a test's directory tree
 * that imitates cgroupfs), below the layout's mount: the root is a
 * parameter. What changes the file system: cg_plan_run, the watchdog,
 * cg_tree_*, cg_mount_private, cg_layout_release and cg_reclaim. */
#ifndef VMB_CGROUP_H
#define VMB_CGROUP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* groups under one base: sched.fairness takes up to SCHED_MAX_GROUPS, lab contend one per guest */
#define CG_MAX_GROUPS 8
#define CG_PATH_MAX 512
/* The trees vmbench makes its groups in: NAME-PID under this process's
 * cgroup. cg_tree_names lists them all (NULL-terminated): a plan for a tree
 * of another name is refused, so that cg_reclaim knows every tree made. */
#define CG_TREE_SCHED "vmbench-sched"
#define CG_TREE_CONTEND "vmbench-contend"
extern const char *const cg_tree_names[];

enum cg_version { CG_NONE = 0, CG_V1, CG_V2 };

/* How a plan reaches the file system: each 0 or a negative errno. */
struct cg_fs {
	int (*mkdir)(const char *path);
	int (*rmdir)(const char *path);
	int (*write)(const char *path, const char *value); /* an existing file, never created */
};
extern const struct cg_fs cg_fs_kernel;

struct cg_layout {
	enum cg_version ver;
	char mount[CG_PATH_MAX]; /* where the hierarchy holding the cpu controller is mounted: the root */
	char self[CG_PATH_MAX];  /* this process's cgroup in it: "" for the root, else "/a/b" */
	bool rt_group;           /* v1 with RT group scheduling: cpu.rt_runtime_us must be granted */
	bool private_mount;      /* mount is a cgroup2 mount of this process's own (cg_mount_private) */
	/* the caller's, after cg_detect: the base directory's name before its
	 * "-PID" (NULL: CG_TREE_SCHED), and no_probe for a tree of groups
	 * only (lab contend's, one per guest), whose RT runtime goes to group
	 * 0 instead of the probe's; on v2 its groups are domains that hold
	 * whole processes (cgroup.procs), and this process stays where it is */
	const char *tree;
	bool no_probe;
	const struct cg_fs *fs; /* NULL: the kernel's */
};

enum cg_op_kind { CG_MKDIR, CG_WRITE, CG_RMDIR, CG_UMOUNT /* a private mount, detached */ };

struct cg_op {
	enum cg_op_kind kind;
	char path[CG_PATH_MAX];
	char value[48]; /* CG_WRITE only */
	bool living;    /* a step of the living process only (moving itself back): the watchdog leaves it */
};

struct cg_plan {
	struct cg_op *ops;
	size_t n, cap;
	const struct cg_fs *fs; /* the layout's it was built from; NULL: the kernel's */
};

/* The modes of sched.fairness, as knobs. */
enum cg_mode {
	CG_FAIR,        /* weights (cpu.shares, cpu.weight), no cap */
	CG_RESERVATION, /* bandwidth: each group's quota is its share of one CPU */
	CG_RT,          /* equal weights; the probe's group may run real-time */
};

/* ---- detection ---- */

/* From the text of /proc/self/mountinfo and /proc/self/cgroup: a v1
 * hierarchy with the cpu controller first, else a cgroup2 mount (whether
 * it offers cpu is cg_layout_check's). 0, or -ENOENT with ver CG_NONE. */
int cg_detect(const char *mountinfo, const char *self_cgroup, struct cg_layout *out);
/* What a found layout's own files say: v1, whether RT group scheduling
 * asks for runtime (rt_group); v2, whether cgroup.controllers of this
 * process's cgroup offers cpu (else -ENOTSUP, ver CG_NONE, why says so). */
int cg_layout_check(struct cg_layout *l, char *why, size_t len);
/* This process's: /proc/self/mountinfo and /proc/self/cgroup, then
 * cg_layout_check. 0; -ENOENT when no hierarchy with cpu is mounted (a
 * private mount may offer it); another negative errno; why says it. */
int cg_probe(struct cg_layout *l, char *why, size_t len);
/* No mounted hierarchy offers cpu (a minimal guest mounts none): cgroup2
 * mounted privately, used when it offers cpu (l then v2 on it, why "");
 * else a negative errno and why ends with "; a private cgroup2 mount: ...". */
int cg_mount_private(struct cg_layout *l, char *why, size_t len);
/* The private mount, if any, detached and its directory removed. */
void cg_layout_release(struct cg_layout *l);

/* ---- paths ---- */

/* <mount><self>/vmbench-sched-PID */
int cg_base_path(const struct cg_layout *l, pid_t pid, char *buf, size_t len);
/* The file a thread id is written to, to move that thread into group dir. */
int cg_attach_path(const struct cg_layout *l, const char *dir, char *buf, size_t len);
/* Group i's directory ("g0".."gN-1"; i == ngroups is the probe's, "probe"). */
int cg_group_path(const struct cg_layout *l, pid_t pid, unsigned i, unsigned ngroups, char *buf, size_t len);

/* ---- plans ---- */

void cg_plan_init(struct cg_plan *p);
void cg_plan_release(struct cg_plan *p);
/* Create the base, ngroups worker groups and the probe's group; on v1 with
 * RT group scheduling grant rt_us of real-time runtime to the base and the
 * probe's group; on v2 move the process into the base and make the groups
 * threaded, so that threads of one process can sit in different groups. */
int cg_plan_create(struct cg_plan *p, const struct cg_layout *l, pid_t pid, unsigned ngroups, unsigned rt_us);
/* Knobs of each group: a relative weight 1..100 (v1 cpu.shares 1024 x, v2
 * cpu.weight 100 x) and a quota of CPU time per period (0: none), which may
 * exceed the period on a host of several CPUs. */
struct cg_knob {
	unsigned weight;
	unsigned long long quota_us;
};
int cg_plan_knobs(struct cg_plan *p, const struct cg_layout *l, pid_t pid, const struct cg_knob *k, unsigned ngroups,
		  unsigned period_us);
/* The knobs of one mode of sched.fairness: weights[i] in 1..100
 * (relative), period_us for the reservation's quota and period. */
int cg_mode_knobs(enum cg_mode mode, const unsigned *weights, unsigned ngroups, unsigned period_us,
		  struct cg_knob *k);
int cg_plan_mode(struct cg_plan *p, const struct cg_layout *l, pid_t pid, enum cg_mode mode,
		 const unsigned *weights, unsigned ngroups, unsigned period_us);
/* Undo cg_plan_create: move the process back (v2), groups first, then the base. */
int cg_plan_remove(struct cg_plan *p, const struct cg_layout *l, pid_t pid, unsigned ngroups);

/* One more step: path is the whole path; value for CG_WRITE, else NULL. */
int cg_plan_add(struct cg_plan *p, enum cg_op_kind kind, const char *path, const char *value);

/* Carry out a plan. stop_on_error: the first failure ends it (creation);
 * else every step is tried and a missing directory is not an error
 * (removal). On failure *failed points at the step that failed. */
int cg_plan_run(const struct cg_plan *p, bool stop_on_error, const struct cg_op **failed);

/* A process that outlives a forced exit: it waits for this process to end
 * (the pipe's end closes with it, however it dies, kill -9 included) and
 * then carries out the removal plan, but its living steps: the groups
 * removed, the parent's controllers handed back, its mounts detached.
 * cg_watchdog_stop() is for the normal path, after the plan ran. */
struct cg_watchdog {
	pid_t pid;
	int fd; /* write end, close-on-exec; -1 when none */
};
int cg_watchdog_start(struct cg_watchdog *w, const struct cg_plan *remove);
void cg_watchdog_stop(struct cg_watchdog *w);

/* ---- a tree: what sched.fairness and lab contend use ---- */

/* The groups of one run: made, their knobs written, and undone; the undo
 * (groups removed, the parent's cgroup.subtree_control as it was before on
 * v2, a private mount detached) runs on cg_tree_undo, and in the watchdog
 * when this process dies without it. */
struct cg_tree {
	struct cg_layout l;
	pid_t pid;
	unsigned ngroups;
	struct cg_plan remove;
	struct cg_watchdog dog;
	bool made;           /* something may exist: cg_tree_undo removes it */
	struct cg_op failed; /* the step the last call failed at; path "" when none (planning, fork) */
};
void cg_tree_init(struct cg_tree *t);
/* The trees of vmbench processes that are gone reclaimed first (they may
 * hold the real-time runtime), then the watchdog started, then the base
 * and ngroups groups (and the probe's, unless l->no_probe) made. 0 or a
 * negative errno; what was made is undone by cg_tree_undo either way. */
int cg_tree_make(struct cg_tree *t, const struct cg_layout *l, pid_t pid, unsigned ngroups);
/* v1 with RT group scheduling: us of real-time runtime of each period
 * granted to the base and to the group that runs real-time (the probe's,
 * or group 0 without a probe). */
int cg_tree_rt(struct cg_tree *t, unsigned us);
/* Each group's knobs (cg_plan_knobs). */
int cg_tree_knobs(struct cg_tree *t, const struct cg_knob *k, unsigned period_us);
/* Thread (or, without a probe, whole process) id into group i; the tree
 * is only read (the threads of sched.fairness attach themselves at once). */
int cg_tree_attach(const struct cg_tree *t, unsigned i, pid_t id);
/* Everything cg_tree_make did undone, the watchdog stopped; the tree can be made again. */
void cg_tree_undo(struct cg_tree *t);

/* ---- what a group's bandwidth control says ---- */

/* A group's cpu.stat, v1 or v2 alike: periods with a quota, how many of
 * them ended throttled and for how long; v2 also counts the CPU time its
 * tasks used (v1's is cpuacct's, often another hierarchy). */
struct cg_cpu_stat {
	unsigned long long nr_periods, nr_throttled;
	unsigned long long throttled_ns;
	unsigned long long usage_ns; /* v2's usage_usec; 0 with has_usage false on v1 */
	bool has_usage;
};
/* The text of cpu.stat: "KEY VALUE" lines (v1: throttled_time in ns; v2:
 * throttled_usec, usage_usec); unknown keys are skipped. 0; -EINVAL when
 * nr_periods, nr_throttled or the throttled time is missing or not a
 * whole number. out is written only on success. */
int cg_parse_cpu_stat(const char *text, struct cg_cpu_stat *out);
/* The text of v2's cpu.max: "QUOTA PERIOD", QUOTA "max" for none (0).
 * 0 or -EINVAL; the outputs only on success. */
int cg_parse_cpu_max(const char *text, unsigned long long *quota_us, unsigned long long *period_us);
/* Group i's cpu.stat, and its quota and period as the kernel holds them
 * (v1: cpu.cfs_quota_us, -1 read as 0, and cpu.cfs_period_us; v2:
 * cpu.max), read from the tree's file system. 0 or a negative errno. */
int cg_tree_cpu_stat(const struct cg_tree *t, unsigned i, struct cg_cpu_stat *out);
int cg_tree_quota(const struct cg_tree *t, unsigned i, unsigned long long *quota_us, unsigned long long *period_us);

/* ---- what a kill left ---- */

/* What the watchdog cannot remove, because a kill of the whole process
 * group ended it too: the trees of vmbench processes that are gone, found
 * beside where this process makes its own (the cgroup it is in). Removed
 * children first, their real-time runtime handed back first; a tree that
 * still holds a task is left as it is. One line per tree removed, through
 * the log. */
void cg_reclaim(const struct cg_layout *l);

/* Why writing want us to the knob .../GROUP/cpu.rt_runtime_us failed with
 * EINVAL, read from the tree: what GROUP's parent has, and what its other
 * groups hold of it, into buf (one clause, no period). 0, or a negative
 * errno when the tree does not say (buf ""). */
int cg_rt_why(const char *knob, unsigned long long want, char *buf, size_t len);

#endif
