/* Log-linear histogram: bucket arithmetic, merge, percentiles. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "hist.h"
#include "banned.h"

void hist_init(struct hist *h)
{
	memset(h, 0, sizeof(*h));
}

struct hist *hist_new(void)
{
	return calloc(1, sizeof(struct hist));
}

void hist_free(struct hist *h)
{
	free(h);
}

uint64_t hist_bucket_lower(unsigned idx)
{
	unsigned k, sub;

	if (idx < 2 * HIST_SUB)
		return idx;
	k = HIST_SUB_BITS + (idx - HIST_SUB) / HIST_SUB;
	sub = (idx - HIST_SUB) % HIST_SUB;
	return (uint64_t)(HIST_SUB + sub) << (k - HIST_SUB_BITS);
}

uint64_t hist_bucket_width(unsigned idx)
{
	if (idx < 2 * HIST_SUB)
		return 1;
	return 1ull << ((idx - HIST_SUB) / HIST_SUB);
}

void hist_merge(struct hist *dst, const struct hist *src)
{
	if (src->count == 0)
		return;
	for (unsigned i = 0; i < HIST_BUCKETS; i++)
		dst->buckets[i] += src->buckets[i];
	if (dst->count == 0 || src->min < dst->min)
		dst->min = src->min;
	if (src->max > dst->max)
		dst->max = src->max;
	dst->count += src->count;
	dst->sum += src->sum;
	dst->sumsq += src->sumsq;
}

double hist_percentile(const struct hist *h, double p)
{
	uint64_t rank, seen = 0;
	double v;

	if (h->count == 0)
		return 0;
	if (p <= 0)
		return (double)h->min;
	if (p >= 100)
		return (double)h->max;
	/* The smallest value with at least p% of the samples at or below it. */
	rank = (uint64_t)ceil(p / 100.0 * (double)h->count);
	if (rank == 0)
		rank = 1;
	for (unsigned i = 0; i < HIST_BUCKETS; i++) {
		seen += h->buckets[i];
		if (seen < rank)
			continue;
		v = (double)hist_bucket_lower(i) + (double)(hist_bucket_width(i) - 1) / 2.0;
		if (v < (double)h->min)
			v = (double)h->min;
		if (v > (double)h->max)
			v = (double)h->max;
		return v;
	}
	return (double)h->max;
}

double hist_mean(const struct hist *h)
{
	return h->count ? h->sum / (double)h->count : 0;
}

double hist_stddev(const struct hist *h)
{
	double mean, var;

	if (h->count < 2)
		return 0;
	mean = h->sum / (double)h->count;
	var = h->sumsq / (double)h->count - mean * mean;
	return var > 0 ? sqrt(var) : 0;
}
