/* The cgroups behind sched.fairness: where the cpu controller is (cgroup v1
 * or v2), the groups vmbench creates under a directory of its own, the
 * knobs each mode writes, and their removal on every exit path.
 *
 * Everything that decides a path or a value is a plan (a list of mkdir,
 * write and rmdir steps) built from plain text, so that unit tests check it
 * on fixture files for both layouts; cg_plan_run() is the only part that
 * changes the file system, besides the watchdog and cg_reclaim(), which
 * run removal plans of their own. */
#ifndef VMB_SCHED_CG_H
#define VMB_SCHED_CG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* groups under one base: sched.fairness takes up to SCHED_MAX_GROUPS, lab contend one per guest */
#define CG_MAX_GROUPS 8
#define CG_PATH_MAX 512
/* The trees vmbench makes its groups in: NAME-PID under this process's cgroup */
#define CG_TREE_SCHED "vmbench-sched"
#define CG_TREE_CONTEND "vmbench-contend"

enum cg_version { CG_NONE = 0, CG_V1, CG_V2 };

struct cg_layout {
	enum cg_version ver;
	char mount[CG_PATH_MAX]; /* where the hierarchy holding the cpu controller is mounted */
	char self[CG_PATH_MAX];  /* this process's cgroup in it: "" for the root, else "/a/b" */
	bool rt_group;           /* v1 with RT group scheduling: cpu.rt_runtime_us must be granted */
	/* the caller's, after cg_detect: the base directory's name before its
	 * "-PID" (NULL: CG_TREE_SCHED), and no_probe for a tree of groups
	 * only (lab contend's, one per guest), whose RT runtime goes to group
	 * 0 instead of the probe's; on v2 its groups are domains that hold
	 * whole processes (cgroup.procs), and this process stays where it is */
	const char *tree;
	bool no_probe;
};

enum cg_op_kind { CG_MKDIR, CG_WRITE, CG_RMDIR, CG_UMOUNT /* a private mount, detached */ };

struct cg_op {
	enum cg_op_kind kind;
	char path[CG_PATH_MAX];
	char value[48]; /* CG_WRITE only */
};

struct cg_plan {
	struct cg_op *ops;
	size_t n, cap;
};

/* The modes of sched.fairness, as knobs. */
enum cg_mode {
	CG_FAIR,        /* weights (cpu.shares, cpu.weight), no cap */
	CG_RESERVATION, /* bandwidth: each group's quota is its share of one CPU */
	CG_RT,          /* equal weights; the probe's group may run real-time */
};

/* From the text of /proc/self/mountinfo and /proc/self/cgroup: a v1
 * hierarchy with the cpu controller first, else a cgroup2 mount (whether
 * it offers cpu is for the caller to read). 0, or -ENOENT with ver CG_NONE. */
int cg_detect(const char *mountinfo, const char *self_cgroup, struct cg_layout *out);

/* <mount><self>/vmbench-sched-PID */
int cg_base_path(const struct cg_layout *l, pid_t pid, char *buf, size_t len);
/* The file a thread id is written to, to move that thread into group dir. */
int cg_attach_path(const struct cg_layout *l, const char *dir, char *buf, size_t len);
/* Group i's directory ("g0".."gN-1"; i == ngroups is the probe's, "probe"). */
int cg_group_path(const struct cg_layout *l, pid_t pid, unsigned i, unsigned ngroups, char *buf, size_t len);

void cg_plan_init(struct cg_plan *p);
void cg_plan_release(struct cg_plan *p);
/* Create the base, ngroups worker groups and the probe's group; on v1 with
 * RT group scheduling grant rt_us of real-time runtime to the base and the
 * probe's group; on v2 move the process into the base and make the groups
 * threaded, so that threads of one process can sit in different groups. */
int cg_plan_create(struct cg_plan *p, const struct cg_layout *l, pid_t pid, unsigned ngroups, unsigned rt_us);
/* Knobs of one mode: weights[i] in 1..100 (relative), period_us for the
 * reservation's quota and period. */
int cg_plan_mode(struct cg_plan *p, const struct cg_layout *l, pid_t pid, enum cg_mode mode,
		 const unsigned *weights, unsigned ngroups, unsigned period_us);
/* Knobs of each group, the general form of cg_plan_mode: a relative
 * weight 1..100 (v1 cpu.shares 1024 x, v2 cpu.weight 100 x) and a quota of
 * CPU time per period (0: none), which may exceed the period on a host of
 * several CPUs. */
struct cg_knob {
	unsigned weight;
	unsigned long long quota_us;
};
int cg_plan_knobs(struct cg_plan *p, const struct cg_layout *l, pid_t pid, const struct cg_knob *k, unsigned ngroups,
		  unsigned period_us);
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
 * then removes the directories of the removal plan and detaches its mounts. cg_watchdog_stop() is
 * for the normal path, after the plan ran. */
struct cg_watchdog {
	pid_t pid;
	int fd; /* write end, close-on-exec; -1 when none */
};
int cg_watchdog_start(struct cg_watchdog *w, const struct cg_plan *remove);
void cg_watchdog_stop(struct cg_watchdog *w);

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
