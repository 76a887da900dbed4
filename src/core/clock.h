/* Monotonic time in nanoseconds: the only clock a measurement reads; the
 * named time units, ns<->timespec, and a thread's own CPU time. */
#ifndef VMB_CLOCK_H
#define VMB_CLOCK_H

#include <stdint.h>
#include <time.h>

#define NSEC_PER_SEC 1000000000ull
#define NSEC_PER_MSEC 1000000ull
#define NSEC_PER_USEC 1000ull
#define USEC_PER_SEC 1000000ull
#define MSEC_PER_SEC 1000ull

static inline uint64_t clock_ts_ns(const struct timespec *ts)
{
	return (uint64_t)ts->tv_sec * NSEC_PER_SEC + (uint64_t)ts->tv_nsec;
}

static inline struct timespec clock_ns_ts(uint64_t ns)
{
	struct timespec ts = { .tv_sec = (time_t)(ns / NSEC_PER_SEC), .tv_nsec = (long)(ns % NSEC_PER_SEC) };

	return ts;
}

static inline uint64_t clock_ns(void)
{
	struct timespec ts;

	(void)clock_gettime(CLOCK_MONOTONIC, &ts);
	return clock_ts_ns(&ts);
}

/* CPU time of the calling thread, ns: each side's cost of a test, a
 * worker's share of a CPU. */
static inline uint64_t clock_thread_cpu_ns(void)
{
	struct timespec ts;

	(void)clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return clock_ts_ns(&ts);
}

static inline double clock_s(void)
{
	return (double)clock_ns() / NSEC_PER_SEC;
}

#endif
