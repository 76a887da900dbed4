/* What the scheduling suite computes from its samples, apart from the
 * measuring itself: wake-up latencies with their count over a threshold,
 * and Jain's fairness index. Plain functions, for the unit tests. */
#ifndef VMB_SCHED_H
#define VMB_SCHED_H

#include <stddef.h>
#include <stdint.h>

#include "../core/hist.h"

/* One thread's wake-up latencies, as cyclictest keeps them. */
struct sched_lat {
	struct hist hist;
	uint64_t threshold_ns;
	uint64_t over; /* wake-ups later than threshold_ns, counted exactly */
};

void sched_lat_init(struct sched_lat *l, uint64_t threshold_ns);
static inline void sched_lat_record(struct sched_lat *l, uint64_t lat_ns)
{
	hist_record(&l->hist, lat_ns);
	l->over += lat_ns > l->threshold_ns;
}
/* dst += src (same threshold) */
void sched_lat_merge(struct sched_lat *dst, const struct sched_lat *src);

/* Jain's index over x_i = got[i] / promised[i], the shares normalised to
 * sum 1 each: (sum x)^2 / (n sum x^2). 1 is fair, 1/n one group taking
 * all. NAN for n == 0, a promised share <= 0, or nothing got at all. */
double sched_jain(const double *got, const double *promised, size_t n);

#endif
