/* Wake-up latency bookkeeping and Jain's fairness index (see sched.h). */
#include <math.h>
#include <string.h>

#include "sched.h"
#include "../core/banned.h"

void sched_lat_init(struct sched_lat *l, uint64_t threshold_ns)
{
	memset(l, 0, sizeof(*l));
	hist_init(&l->hist);
	l->threshold_ns = threshold_ns;
}

void sched_lat_merge(struct sched_lat *dst, const struct sched_lat *src)
{
	hist_merge(&dst->hist, &src->hist);
	dst->over += src->over;
}

double sched_jain(const double *got, const double *promised, size_t n)
{
	double gsum = 0, psum = 0, s = 0, s2 = 0;

	if (n == 0)
		return NAN;
	for (size_t i = 0; i < n; i++) {
		if (!(promised[i] > 0) || !(got[i] >= 0))
			return NAN;
		gsum += got[i];
		psum += promised[i];
	}
	if (!(gsum > 0))
		return NAN;
	for (size_t i = 0; i < n; i++) {
		/* the share got over the share promised: 1 each when fair */
		double x = (got[i] / gsum) / (promised[i] / psum);

		s += x;
		s2 += x * x;
	}
	return s * s / ((double)n * s2);
}
