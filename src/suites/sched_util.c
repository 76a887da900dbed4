/* Wake-up latency bookkeeping, Jain's fairness index, and the quota test's
 * arithmetic and readers of text (see sched.h). */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
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

int sched_quota_parse(const char *text, double *cpus, size_t max, size_t *n)
{
	double v[CG_MAX_GROUPS];
	size_t k = 0;

	for (const char *p = text;; k++) {
		size_t len = strcspn(p, ","), dots = 0;
		char word[32], *end;

		if (len == 0 || len >= sizeof(word))
			return -EINVAL;
		for (size_t i = 0; i < len; i++) {
			if (p[i] == '.')
				dots++;
			else if (p[i] < '0' || p[i] > '9')
				return -EINVAL; /* strtod would take blanks, signs, hex, inf and nan */
		}
		if (dots > 1 || (dots == 1 && len == 1))
			return -EINVAL;
		if (k >= max || k >= CG_MAX_GROUPS)
			return -ERANGE;
		memcpy(word, p, len);
		word[len] = '\0';
		v[k] = strtod(word, &end);
		if (*end || !(v[k] > 0) || v[k] > SCHED_QUOTA_MAX_CPUS)
			return -ERANGE;
		if (!p[len])
			break;
		p += len + 1;
	}
	memcpy(cpus, v, (k + 1) * sizeof(v[0]));
	*n = k + 1;
	return 0;
}

int sched_quota_knobs(const double *cpus, size_t n, unsigned period_us, struct cg_knob *k)
{
	struct cg_knob out[CG_MAX_GROUPS];

	if (n == 0 || n > CG_MAX_GROUPS || period_us == 0)
		return -EINVAL;
	for (size_t i = 0; i < n; i++) {
		double q = round(cpus[i] * period_us);

		/* the kernel's smallest quota is 1 ms of each period */
		if (!(q >= 1000) || q > 1e15)
			return -ERANGE;
		out[i].weight = 1;
		out[i].quota_us = (unsigned long long)q;
	}
	memcpy(k, out, n * sizeof(out[0]));
	return 0;
}

uint64_t sched_quota_interval_ns(double cpus, unsigned load_pct, unsigned threads, unsigned work_us)
{
	double demand = cpus * load_pct / 100.0, ns;

	if (!(demand > 0) || threads == 0 || work_us == 0)
		return 0;
	ns = (double)work_us * 1000.0 * threads / demand;
	return ns < 1 || ns > 1e15 ? 0 : (uint64_t)ns;
}

int sched_parse_ctxt(const char *text, unsigned long long *ctxt)
{
	for (const char *line = text; line && *line;) {
		const char *nl = strchr(line, '\n');

		if (!strncmp(line, "ctxt ", 5)) {
			const char *p = line + 5, *end = nl ? nl : p + strlen(p);
			unsigned long long v = 0;

			if (p == end)
				return -EINVAL;
			for (; p < end; p++) {
				unsigned d = (unsigned)(*p - '0');

				if (*p < '0' || *p > '9' || v > (ULLONG_MAX - d) / 10)
					return -EINVAL;
				v = v * 10 + d;
			}
			*ctxt = v;
			return 0;
		}
		line = nl ? nl + 1 : NULL;
	}
	return -EINVAL;
}
