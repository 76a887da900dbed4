/* The duty-cycled background spinner of `run --load` (see bgload.h). */
#include <errno.h>
#include <math.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bgload.h"
#include "clock.h"
#include "stop.h"
#include "banned.h"

unsigned long long bgload_busy_ns(unsigned pct)
{
	return BGLOAD_PERIOD_NS * (pct > 100 ? 100 : pct) / 100;
}

static double thread_cpu_s(void)
{
	struct timespec ts;

	return clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) == 0 ? (double)ts.tv_sec + ts.tv_nsec / 1e9 : NAN;
}

/* Busy to the period's mark, asleep to its end, until told to stop (or
 * the process is): each period is bounded, and so is their count by the
 * run that stops it. */
static void *spin(void *arg)
{
	struct bgload_thread *t = arg;
	struct bgload *b = t->owner;
	unsigned long long busy = bgload_busy_ns(b->pct);
	uint64_t next = clock_ns();
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(t->cpu, &set);
	(void)sched_setaffinity(0, sizeof(set), &set);
	while (!b->stop && !vmb_stop_requested()) {
		uint64_t mark = next + busy;
		struct timespec ts;

		while (clock_ns() < mark && !b->stop)
			;
		next += BGLOAD_PERIOD_NS;
		/* a period lost to preemption is not made up for: the next starts now */
		if (clock_ns() > next)
			next = clock_ns();
		ts.tv_sec = (time_t)(next / NSEC_PER_SEC);
		ts.tv_nsec = (long)(next % NSEC_PER_SEC);
		if (busy < BGLOAD_PERIOD_NS)
			while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR && !b->stop)
				;
	}
	t->cpu_s = thread_cpu_s();
	return NULL;
}

int bgload_start(struct bgload *b, unsigned pct)
{
	cpu_set_t allowed;
	int r = 0;

	memset(b, 0, sizeof(*b));
	atomic_init(&b->stop, 0);
	b->pct = pct;
	if (pct == 0)
		return 0;
	if (pct > 100)
		return -EINVAL;
	if (sched_getaffinity(0, sizeof(allowed), &allowed) < 0)
		return -errno;
	b->threads = calloc(BGLOAD_MAX_THREADS, sizeof(*b->threads));
	if (!b->threads)
		return -ENOMEM;
	b->t0 = (double)clock_ns() / NSEC_PER_SEC;
	for (unsigned cpu = 0; cpu < CPU_SETSIZE && b->n < BGLOAD_MAX_THREADS && r == 0; cpu++) {
		struct bgload_thread *t = &b->threads[b->n];

		if (!CPU_ISSET(cpu, &allowed))
			continue;
		t->cpu = cpu;
		t->owner = b;
		r = -pthread_create(&t->tid, NULL, spin, t);
		t->started = r == 0;
		b->n += r == 0;
	}
	if (r < 0) {
		double ignored;

		bgload_stop(b, &ignored);
	}
	return r;
}

void bgload_stop(struct bgload *b, double *done_pct)
{
	double sum = 0;

	*done_pct = NAN;
	if (!b->threads)
		return;
	b->stop = 1;
	for (unsigned i = 0; i < b->n; i++)
		if (b->threads[i].started)
			(void)pthread_join(b->threads[i].tid, NULL);
	b->t1 = (double)clock_ns() / NSEC_PER_SEC;
	for (unsigned i = 0; i < b->n; i++)
		sum += b->threads[i].cpu_s;
	if (b->n && b->t1 > b->t0 && isfinite(sum))
		*done_pct = 100 * sum / b->n / (b->t1 - b->t0);
	free(b->threads);
	b->threads = NULL;
}
