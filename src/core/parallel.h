/* The worker pool: run a function on n threads (pinned round-robin to the
 * context's CPUs when set), all released together. */
#ifndef VMB_PARALLEL_H
#define VMB_PARALLEL_H

#include <stdint.h>

struct vmb_ctx;

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
/* 0 when every worker ran fn; else a negative errno, with ctx->reason set
 * when a thread could not be created or pinned (then no worker ran fn). */
int vmb_parallel(struct vmb_ctx *ctx, unsigned n, void (*fn)(struct vmb_worker *),
		 struct vmb_worker *workers);

#endif
