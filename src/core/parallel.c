/* The worker pool behind vmb_parallel(): n threads, each pinned when asked,
 * released together through a start gate.
 *
 * The gate opens only once every thread exists and has pinned itself; if a
 * thread could not be created or pinned, it opens with an error and no
 * worker runs the function. A worker function meets the others at
 * vmb_worker_sync(), a barrier for all n: letting some run while one sat
 * out would leave them waiting there forever. */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>

#include "parallel.h"
#include "suite.h"
#include "banned.h"

struct parallel {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	unsigned arrived; /* workers done pinning, waiting at the gate */
	int gate;         /* 0 closed, 1 go, <0 abort */
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
	unsigned cpu; /* where it was to be pinned, for the message */
};

static void *worker_main(void *opaque)
{
	struct worker_arg *wa = opaque;
	struct parallel *p = wa->p;
	struct vmb_worker *w = wa->w;
	const struct vmb_ctx *ctx = w->ctx;
	int gate;

	if (ctx->cpus && ctx->ncpus) {
		cpu_set_t set;
		int r;

		wa->cpu = ctx->cpus[w->id % ctx->ncpus];
		CPU_ZERO(&set);
		CPU_SET(wa->cpu, &set); /* a CPU beyond the set leaves it empty: EINVAL */
		r = pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
		if (r != 0)
			w->err = -r;
	}
	pthread_mutex_lock(&p->lock);
	p->arrived++;
	pthread_cond_broadcast(&p->cond);
	while ((gate = p->gate) == 0)
		pthread_cond_wait(&p->cond, &p->lock);
	pthread_mutex_unlock(&p->lock);
	if (gate > 0)
		p->fn(w);
	return NULL;
}

int vmb_parallel(struct vmb_ctx *ctx, unsigned n, void (*fn)(struct vmb_worker *),
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
		if (r < 0) {
			(void)vmb_fail(ctx, r, "creating worker thread %u of %u", i + 1, n);
			break;
		}
		started++;
	}
	pthread_mutex_lock(&p.lock);
	while (r == 0 && p.arrived < started)
		pthread_cond_wait(&p.cond, &p.lock);
	for (unsigned i = 0; r == 0 && i < n; i++)
		if (workers[i].err < 0)
			r = vmb_fail(ctx, workers[i].err, "pinning worker %u to CPU %u (--cpus)", i, args[i].cpu);
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
