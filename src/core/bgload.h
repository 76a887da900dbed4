/* A background load beside a run (`vmbench run --load PCT`, which lab
 * contend gives each guest): one spinner thread per online CPU, pinned to
 * it, busy PCT% of every 10 ms period and asleep the rest, as the study of
 * vCPU scheduling varies its load's intensity. It records what it asked
 * and what it got (its threads' CPU time over the wall time), so that a
 * result says how much load was really there. */
#ifndef VMB_BGLOAD_H
#define VMB_BGLOAD_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>

#define BGLOAD_PERIOD_NS 10000000ull
#define BGLOAD_MAX_THREADS 256

struct bgload_thread {
	pthread_t tid;
	unsigned cpu;
	double cpu_s; /* its CPU time at its end */
	struct bgload *owner;
	bool started;
};

struct bgload {
	unsigned pct;            /* asked: busy % of each period */
	atomic_int stop;         /* set by bgload_stop, read by the spinners (no data race) */
	double t0, t1;           /* monotonic s of its start and end */
	struct bgload_thread *threads;
	unsigned n;
};

/* The busy time of one period of BGLOAD_PERIOD_NS at pct%, in ns (pure). */
unsigned long long bgload_busy_ns(unsigned pct);
/* Start pct% (1..100) on every CPU this process may run on; 0 starts
 * nothing. 0 or a negative errno (nothing left running). */
int bgload_start(struct bgload *b, unsigned pct);
/* Stop and join; *done_pct: the spinners' mean CPU time over the wall time
 * they ran, in % of one CPU each (NaN when not known). */
void bgload_stop(struct bgload *b, double *done_pct);

#endif
