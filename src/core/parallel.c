/* The worker pool behind vmb_parallel(): n threads, each pinned when asked,
 * released together through a start gate. */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>

#include "parallel.h"
#include "suite.h"
#include "banned.h"

/* A start gate: workers wait until every thread exists, then start together;
 * if one could not be created, the gate opens with an error instead. */
struct parallel {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int gate; /* 0 closed, 1 go, <0 abort */
	pthread_barrier_t ready; /* vmb_worker_sync(): per-thread set-up done */
	void (*fn)(struct vmb_worker *);
};

void vmb_worker_sync(struct vmb_worker *w)
{
	(void)pthread_barrier_wait((pthread_barrier_t *)w->ready);
}

struct worker_arg {
	struct parallel *p;
	struct vmb_worker *w;
};

static void *worker_main(void *opaque)
{
	struct worker_arg *wa = opaque;
	struct vmb_worker *w = wa->w;
	const struct vmb_ctx *ctx = w->ctx;
	int gate;

	if (ctx->cpus && ctx->ncpus) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(ctx->cpus[w->id % ctx->ncpus], &set);
		if (pthread_setaffinity_np(pthread_self(), sizeof(set), &set) != 0)
			w->err = -EINVAL;
	}
	pthread_mutex_lock(&wa->p->lock);
	while ((gate = wa->p->gate) == 0)
		pthread_cond_wait(&wa->p->cond, &wa->p->lock);
	pthread_mutex_unlock(&wa->p->lock);
	if (gate > 0 && w->err == 0)
		wa->p->fn(w);
	return NULL;
}

int vmb_parallel(const struct vmb_ctx *ctx, unsigned n, void (*fn)(struct vmb_worker *),
		 struct vmb_worker *workers)
{
	struct parallel p = {
		.lock = PTHREAD_MUTEX_INITIALIZER, .cond = PTHREAD_COND_INITIALIZER, .fn = fn,
	};
	struct worker_arg *args;
	pthread_t *tids;
	unsigned started = 0;
	int r = 0;

	if (n == 0)
		return -EINVAL;
	args = calloc(n, sizeof(*args));
	tids = calloc(n, sizeof(*tids));
	if (!args || !tids) {
		r = -ENOMEM;
		goto out;
	}
	/* Every worker exists before the gate opens, so n is the right count. */
	if (pthread_barrier_init(&p.ready, NULL, n) != 0) {
		r = -ENOMEM;
		goto out;
	}
	for (unsigned i = 0; i < n; i++) {
		workers[i].id = i;
		workers[i].ctx = ctx;
		workers[i].err = 0;
		workers[i].ready = &p.ready;
		args[i].p = &p;
		args[i].w = &workers[i];
		r = -pthread_create(&tids[i], NULL, worker_main, &args[i]);
		if (r < 0)
			break;
		started++;
	}
	pthread_mutex_lock(&p.lock);
	p.gate = r < 0 ? r : 1;
	pthread_cond_broadcast(&p.cond);
	pthread_mutex_unlock(&p.lock);
	for (unsigned i = 0; i < started; i++)
		(void)pthread_join(tids[i], NULL);
	(void)pthread_barrier_destroy(&p.ready);
	for (unsigned i = 0; r == 0 && i < n; i++)
		if (workers[i].err < 0)
			r = workers[i].err;
out:
	free(args);
	free(tids);
	return r;
}
