/* The suite plug-in interface: one const descriptor per suite.
 *
 * A suite only measures. The runner owns repetitions, the stop rule, time
 * budget, threads, affinity, statistics and progress; the suite's run()
 * performs one repetition of one test and reports values through vmb_rep_*.
 * A suite never prints, stores, or knows whether it runs in a guest. */
#ifndef VMB_SUITE_H
#define VMB_SUITE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hist.h"
#include "opts.h"

#define VMB_SUITE_ABI 1

enum vmb_unit {
	VMB_UNIT_NONE = 0,
	VMB_UNIT_PER_S,    /* events or operations per second */
	VMB_UNIT_NS,       /* nanoseconds */
	VMB_UNIT_MB_PER_S, /* 10^6 bytes per second */
	VMB_UNIT_GFLOPS,   /* 10^9 floating-point operations per second */
	VMB_UNIT_RATIO,    /* dimensionless */
	VMB_UNIT_PCT,      /* percent */
	VMB_UNIT_S,        /* seconds */
	VMB_UNIT_BYTES,
	VMB_UNIT_MBIT_PER_S, /* 10^6 bits per second (network) */
};

enum vmb_dir {
	VMB_HIGHER = 0, /* higher is better */
	VMB_LOWER,      /* lower is better */
};

/* Test flags */
#define VMB_TEST_THREADED (1u << 0) /* one case per --threads value, plus parallel efficiency */

struct vmb_test {
	const char *name;
	const char *summary;
	const char *headline; /* metric(s) the stop rule and compact views use, comma-separated */
	unsigned flags;
	const char *sweep;    /* an OPT_LIST suite option whose values become cases, or NULL */
	const char *params;   /* suite options that change what this test measures, comma-separated:
			       * recorded in every case, so that compare never pairs unlike cases */
	const void *data;     /* suite-private */
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
};

struct vmb_rep;

struct vmb_suite {
	const char *name;
	const char *summary;
	unsigned abi;
	const struct vmb_test *tests; /* terminated by { .name = NULL } */
	const struct vmb_opt *opts;
	/* 1 if it can run here; else 0 and *why says why. NULL: always. */
	int (*supported)(const struct vmb_env *env, const char **why);
	int (*setup)(struct vmb_ctx *ctx);
	/* One repetition. 0, or a negative errno after vmb_fail()/vmb_skip(). */
	int (*run)(struct vmb_ctx *ctx, const struct vmb_test *test, struct vmb_rep *rep);
	void (*teardown)(struct vmb_ctx *ctx); /* always called, also after errors and Ctrl-C */
};

/* Report one value of this repetition. */
int vmb_rep_value(struct vmb_rep *rep, const char *metric, enum vmb_unit unit, enum vmb_dir dir, double v);
/* Report a latency histogram of this repetition (merged across repetitions). */
int vmb_rep_hist(struct vmb_rep *rep, const char *metric, enum vmb_unit unit, const struct hist *h);

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
 * Call from setup(). */
int vmb_param_actual(struct vmb_ctx *ctx, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Record a fact about how the suite measured (the engine it chose, the
 * target file, the device behind it); stored with the result as "notes". */
int vmb_note(struct vmb_ctx *ctx, const char *key, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Files the suite created: registered so that they are removed even when a
 * second Ctrl-C ends the process at once. Remove with vmb_tempfile_unlink. */
int vmb_tempfile_add(const char *path);
int vmb_tempfile_unlink(const char *path);
/* Async-signal-safe: unlink every registered file (for signal handlers). */
void vmb_tempfiles_unlink_all(void);

/* True once Ctrl-C (or SIGTERM) was received: loops end early. */
bool vmb_stop_requested(void);
void vmb_request_stop(void); /* async-signal-safe */

/* Workers: run fn on n threads (pinned round-robin to ctx->cpus when set),
 * all released together. */
struct vmb_worker {
	unsigned id;
	const struct vmb_ctx *ctx;
	void *arg;
	uint64_t start_ns, end_ns; /* the worker's own measured window */
	int err;
	void *ready; /* the runner's barrier behind vmb_worker_sync() */
};
/* Each worker calls this exactly once, after its own set-up and before it
 * reads its start time, also when its set-up failed, so that all measured
 * windows begin together. */
void vmb_worker_sync(struct vmb_worker *w);
int vmb_parallel(const struct vmb_ctx *ctx, unsigned n, void (*fn)(struct vmb_worker *),
		 struct vmb_worker *workers);

/* Check a descriptor (fio check_engine_ops): 0, or -EINVAL with *why. */
int vmb_suite_check(const struct vmb_suite *s, const char **why);
const char *vmb_unit_name(enum vmb_unit u);
int vmb_unit_parse(const char *s, enum vmb_unit *out);

#endif
