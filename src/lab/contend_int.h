/* lab contend's parts shared by its two files: contend.c, the run (the
 * guests booted, each cell's RUNs sent at once, the host's figures, the
 * documents), and contend_tune.c, how a policy is carried out on the
 * guests and what the host sees of them: a tuner row. Private to them. */
#ifndef VMB_LAB_CONTEND_INT_H
#define VMB_LAB_CONTEND_INT_H

#include <jansson.h>
#include <pthread.h>
#include <stdbool.h>
#include <sys/types.h>

#include "contend.h"
#include "hostmeasure.h"
#include "hv.h"

#define CONTEND_MAX_TIDS 256

struct window;
struct contend;

struct guest {
	unsigned idx; /* 0-based; guest idx + 1 in labels */
	struct lab_guest *g;
	pid_t pid;                     /* the cgroup row's: its QEMU */
	int vcpu[CONTEND_MAX_TIDS];    /* the cgroup row's: its vCPU threads, each once */
	size_t nvcpu;
	struct lab_hv_mon *mon;        /* the hypervisor row's: a connection about it (NULL: none) */
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
	struct contend *x;
	struct guest *gs;
	unsigned n;
	double t0, t1;
	struct contend_sched a[CONTEND_MAX_GUESTS], b[CONTEND_MAX_GUESTS];
	bool ok;
};

struct contend {
	const struct contend_opts *o;
	const struct contend_tuner *tune; /* how the policies are carried out on the guests */
	bool ticks;                    /* a guest's CPU time was only in the kernel's ticks (the hypervisor row) */
	struct cg_layout l;
	struct cg_tree tree;           /* the groups: made when tree.made */
	unsigned rt_us;                /* RT runtime granted to guest 1's group, of each second (v1) */
	const char *why[CONTEND_NPOLICIES]; /* a policy that cannot run here, and why */
	char net_why[600];             /* why the net items are skipped (no link), or empty */
	char whybuf[CONTEND_NPOLICIES][400];
	struct guest gs[CONTEND_MAX_GUESTS];
};

/* How the policies are carried out, one row per kind of guest:
 * contend_tune_cgroup for QEMU driven on this machine (a cgroup per guest
 * from the cgroup planner, the threads' affinity, schedstat and real-time
 * priority), contend_tune_hv for a back end that tunes its guests itself
 * (its tune, vcpu_stat and confine hooks: libvirt's scheduler parameters
 * and statistics). lab_contend takes the second when the session's back
 * end has tune. */
struct contend_tuner {
	const char *name;
	/* Before the boots: what each asked policy needs, skipped with why
	 * when it cannot be had (contend_skip). */
	void (*prepare)(struct contend *x);
	/* Guest g booted: found, confined to --host-cpus, put under the
	 * policies' control. 0, or an error that ends the run. */
	int (*attach)(struct contend *x, struct guest *g, char *err, size_t errlen);
	/* Every guest's weight and cap of policy p. */
	int (*knobs)(struct contend *x, enum contend_policy p, char *err, size_t errlen);
	/* Guest 1's threads real-time at prio, or back (prio 0); NULL: rt is
	 * skipped by prepare. */
	int (*rt)(struct contend *x, unsigned prio);
	/* Guest g's vCPUs' counters now, summed. */
	int (*sample)(struct contend *x, const struct guest *g, struct contend_sched *sum);
	/* How policy p is carried out, in words (the host suites' note policy). */
	const char *(*note)(enum contend_policy p);
	/* Everything prepare and attach made, undone; after the guests stopped. */
	void (*undo)(struct contend *x);
};

extern const struct contend_tuner contend_tune_cgroup, contend_tune_hv;

/* Policy p cannot run: why, said once (the first reason stays). */
void contend_skip(struct contend *x, enum contend_policy p, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void contend_skip_all(struct contend *x, const char *why);

#endif
