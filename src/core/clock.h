/* Monotonic time in nanoseconds: the only clock a measurement reads. */
#ifndef VMB_CLOCK_H
#define VMB_CLOCK_H

#include <stdint.h>
#include <time.h>

static inline uint64_t clock_ns(void)
{
	struct timespec ts;

	(void)clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static inline double clock_s(void)
{
	return (double)clock_ns() / 1e9;
}

#endif
