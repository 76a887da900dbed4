/* The suite plug-in interface: one const descriptor per suite.
 *
 * A suite only measures. The runner owns repetitions, the stop rule, time
 * budget, threads, affinity, statistics and progress; each test's run()
 * performs one repetition of that test and reports values through vmb_rep_*.
 * A suite never prints, stores, or knows whether it runs in a guest. */
#ifndef VMB_SUITE_H
#define VMB_SUITE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hist.h"
#include "opts.h"
#include "parallel.h"
#include "stop.h"
#include "tempfile.h"
#include "unit.h"

#define VMB_SUITE_ABI 1

/* Suite flags */
#define VMB_SUITE_LAB_ONLY (1u << 0) /* measured by the lab from outside a guest (boot): never selected
				      * by a run that names no suite; its supported() says why not here */
#define VMB_SUITE_NET_PEER (1u << 1) /* measures against a `vmbench serve` its option "server" names
				      * (HOST[:PORT], the token in $VMBENCH_NET_TOKEN): the lab puts
				      * one at the other end of a guest's NIC */
#define VMB_SUITE_ON_REQUEST (1u << 2) /* runs only when named: it reads what another step did (the
					* systemd suite, a boot), not a measurement of its own */
#define VMB_SUITE_FLAGS_ALL (VMB_SUITE_LAB_ONLY | VMB_SUITE_NET_PEER | VMB_SUITE_ON_REQUEST)

/* Test flags */
#define VMB_TEST_THREADED (1u << 0) /* one case per --threads value, plus parallel efficiency */
#define VMB_TEST_ON_FS (1u << 1)    /* measures a filesystem through files it makes in the suite's directory
				     * (the scratch's dir_opt): skipped with the run's reason where the
				     * device under test has none (`run --skip-fs-tests`, the lab's fs=none) */
#define VMB_TEST_ON_REQUEST (1u << 2) /* of a lab-only suite: measured only when named (SUITE.TEST), not with
				       * its suite (boot.reboot: the reboots add boots its earlier runs did not pay for) */
#define VMB_TEST_UNTIMED (1u << 3) /* a repetition is a unit of work (a build, an apt run, a file of a given
				    * size, STREAM's passes), not --time long: the lab bounds a guest's run of it
				    * by the run's own limit, not by a step's budget (src/lab/proto_host.c) */
#define VMB_TEST_FLAGS_ALL (VMB_TEST_THREADED | VMB_TEST_ON_FS | VMB_TEST_ON_REQUEST | VMB_TEST_UNTIMED)

struct vmb_ctx;
struct vmb_rep;
struct vmb_test;

/* One repetition of one test (perf bench's { "pipe", ..., bench_sched_pipe }).
 * 0, or a negative errno after vmb_fail()/vmb_skip()/vmb_usage(). */
typedef int vmb_test_fn(struct vmb_ctx *ctx, const struct vmb_test *test, struct vmb_rep *rep);

struct vmb_test {
	const char *name;
	const char *summary;
	const char *headline; /* metric(s) the stop rule and compact views use, comma-separated */
	unsigned flags;
	const char *sweep;    /* an OPT_LIST suite option whose values become cases, or NULL */
	const char *params;   /* suite options that change what this test measures, comma-separated:
			       * recorded in every case, so that compare never pairs unlike cases */
	vmb_test_fn *run;     /* the function that measures it */
};

/* What the runner knows about the machine when it asks supported(). */
struct vmb_env {
	unsigned ncpus;
	bool quick;
	bool destructive; /* --destructive: the user allows writing to devices */
};

struct vmb_ctx {
	const struct vmb_suite *suite;
	const struct optset *opts; /* the suite's options, validated */
	const struct vmb_env *env;
	unsigned threads;          /* for VMB_TEST_THREADED tests, else 1 */
	unsigned sweep;            /* current value of the test's sweep option */
	double duration_s;         /* how long this repetition measures */
	const unsigned *cpus;      /* CPUs to run workers on (--cpus), or NULL */
	size_t ncpus;
	void *priv;                /* the suite's own state, from setup() */
	void *notes;               /* the runner's, behind vmb_note() */
	char reason[256];          /* why a test failed or was skipped */
	bool usage;                /* set by vmb_usage(): the user's options cannot work here */
	bool named;                /* the running test was named by SUITE.TEST, not only its suite */
};

struct vmb_suite {
	const char *name;
	const char *summary;
	unsigned abi;
	unsigned flags;               /* VMB_SUITE_* */
	const struct vmb_test *tests; /* terminated by { .name = NULL } */
	const struct vmb_opt *opts;
	/* 1 if it can run here; else 0 and *why says why. NULL: always. */
	int (*supported)(const struct vmb_env *env, const char **why);
	int (*setup)(struct vmb_ctx *ctx);
	void (*teardown)(struct vmb_ctx *ctx); /* always called, also after errors and Ctrl-C */

	/* What the report learns from the descriptor instead of naming a suite (issue 24) */
	const char *phase_prefix; /* metrics so named are phases of one whole, stacked in the order
				   * reported, in documents stored before notes.phases named them */
	const char *load_metric;  /* a headline metric of the host's view of guests run at several loads
				   * (operands named "... load=N ...", as lab contend names them): the
				   * report draws it against the load, a line per policy and guest; NULL: none */

	/* ---- what the suite needs when the lab runs it in a guest ---- */
	/* A scratch disk: the lab attaches one behind the configuration's disk
	 * controller and names it to the suite (its block device with fs=none,
	 * else a directory on the filesystem the guest made on it), and gives
	 * the host baseline a target of the same size on a disk of its own, so
	 * that guest and host pair in compare. NULL: the suite measures no
	 * storage. */
	const struct vmb_scratch {
		const char *device_opt; /* the suite option that takes the guest's block device, "device"; or NULL */
		const char *size_opt;   /* the suite option that sizes the test file, "size"; or NULL */
		const char *dir_opt;    /* the suite option that takes the directory its files go to, "dir" */
	} *scratch;
	/* The suite option that takes a database's URL: the lab gives it the
	 * database the configuration's db key names (db=mariadb). NULL: none. */
	const char *db_opt;
	/* A test that installs packages: the lab serves it a mirror of the
	 * guest image's own packages, in the suite option url_opt, and allows
	 * it --destructive (the root disk is QEMU's snapshot). NULL: none. */
	const struct vmb_mirror {
		const char *test;    /* the test that needs it, "apt" */
		const char *url_opt; /* the suite option that takes the mirror's URL, "apt-mirror" */
	} *mirror;

	/* ---- a suite the lab measures from the host (VMB_SUITE_LAB_ONLY) ---- */
	/* Its tests have no run(): a row of the lab's table of host-measured
	 * suites (src/lab/hostmeasure.c) measures them. What it needs of the
	 * lab: the items the guest runs while the host measures (a load, a
	 * clock, writes on the scratch disk), whose options the lab makes as
	 * for any item of the run, in this order. NULL: none. */
	const struct vmb_host_needs {
		const char *loads[4]; /* items ("mem.bandwidth"), NULL-ended */
	} *host;
};

/* Report one value of this repetition. The repetition keeps its first
 * error (too many values, too long a name, no memory) and ignores what
 * follows it; the runner fails the test with it when run() returns, so a
 * suite reports without checking. */
void vmb_rep_value(struct vmb_rep *rep, const char *metric, enum vmb_unit unit, enum vmb_dir dir, double v);
/* Report a latency histogram of this repetition (merged across repetitions). */
void vmb_rep_hist(struct vmb_rep *rep, const char *metric, enum vmb_unit unit, const struct hist *h);

/* This repetition was a closed loop: never more than in_flight requests
 * outstanding (each of them on one of in_flight `each`es: "connection",
 * "thread"), the value `rate` (per s) counting those answered in its window
 * and the histogram `latency` (ns) timing each of them, sent and answered
 * inside that same window. By Little's law rate x mean latency is the mean
 * number in flight, so when run() returns the runner refuses a repetition
 * whose figures come to more than in_flight (with 5% slack), with the
 * figures: one of them is wrong (docs/methodology.md, "Closed loops"). */
void vmb_rep_closed_loop(struct vmb_rep *rep, const char *rate, const char *latency, unsigned in_flight,
			 const char *each);

/* Report one point of a series over this repetition (docs/results-schema.md,
 * "Series"): at t_s seconds from the start of its measured window (the end
 * of the interval the value covers), in increasing order. A series longer
 * than VMB_SERIES_MAX points is down-sampled when the repetition is kept.
 * Errors are kept as vmb_rep_value's are; a point out of order or not
 * finite is -EDOM. */
void vmb_rep_point(struct vmb_rep *rep, const char *series, enum vmb_unit unit, double t_s, double v);

/* Set ctx->reason to "<what>: strerror(r)" and return r. */
int vmb_fail(struct vmb_ctx *ctx, int r, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Set ctx->reason and return -EOPNOTSUPP: the test is reported as skipped. */
int vmb_skip(struct vmb_ctx *ctx, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The user's options cannot work on this target (a block size the device
 * refuses): set ctx->reason and return -EINVAL; the run stops, nothing is
 * stored, and the command exits 2 (a usage error), not 1. */
int vmb_usage(struct vmb_ctx *ctx, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The value a test parameter really had when the target decided it (a
 * device smaller than the --disk.size default): recorded in every case's
 * params instead of the option's value, so compare pairs what was measured.
 * Call from setup(). The value is kept whole, however long, as is a note's. */
int vmb_param_actual(struct vmb_ctx *ctx, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Record a fact about how the suite measured (the engine it chose, the
 * target file, the device behind it); stored with the result as "notes". */
int vmb_note(struct vmb_ctx *ctx, const char *key, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Check a descriptor (fio check_engine_ops): 0, or -EINVAL with *why. */
int vmb_suite_check(const struct vmb_suite *s, const char **why);

#endif
