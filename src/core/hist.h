/* Log-linear latency histogram (HdrHistogram/fio style).
 *
 * Values are nanoseconds. Below 128 every value has its own bucket; above,
 * each power of two [2^k, 2^(k+1)) is split into 64 equal sub-buckets, so a
 * percentile read at a bucket's midpoint is within 1/128 (0.8%) of the true
 * value, from 10 ns to beyond 100 s. Histograms of several threads or
 * repetitions merge by adding counts. Recording is a few instructions and
 * never allocates: it is meant for the hot loop. */
#ifndef VMB_HIST_H
#define VMB_HIST_H

#include <stdint.h>

#define HIST_SUB_BITS 6
#define HIST_SUB (1u << HIST_SUB_BITS)
#define HIST_MAX_EXP 40 /* values up to 2^40 ns (18 min); larger ones land in the last bucket */
#define HIST_BUCKETS (HIST_SUB + (HIST_MAX_EXP - HIST_SUB_BITS) * HIST_SUB)

struct hist {
	uint64_t count;
	uint64_t min, max;
	double sum, sumsq; /* exact mean and standard deviation */
	uint64_t buckets[HIST_BUCKETS];
};

static inline unsigned hist_index(uint64_t v)
{
	unsigned k, idx;

	if (v < 2 * HIST_SUB)
		return (unsigned)v;
	k = 63u - (unsigned)__builtin_clzll(v);
	idx = HIST_SUB + (k - HIST_SUB_BITS) * HIST_SUB + (unsigned)((v >> (k - HIST_SUB_BITS)) - HIST_SUB);
	return idx < HIST_BUCKETS ? idx : HIST_BUCKETS - 1;
}

static inline void hist_record(struct hist *h, uint64_t v)
{
	h->buckets[hist_index(v)]++;
	if (h->count == 0 || v < h->min)
		h->min = v;
	if (v > h->max)
		h->max = v;
	h->count++;
	h->sum += (double)v;
	h->sumsq += (double)v * (double)v;
}

void hist_init(struct hist *h);
struct hist *hist_new(void);
void hist_free(struct hist *h);
/* dst += src */
void hist_merge(struct hist *dst, const struct hist *src);
/* Value at percentile p (0..100): midpoint of the bucket holding that rank,
 * clamped to [min, max]. 0 for an empty histogram. */
double hist_percentile(const struct hist *h, double p);
double hist_mean(const struct hist *h);
/* Population standard deviation of the recorded values (fio's clat stdev). */
double hist_stddev(const struct hist *h);
/* Bucket bounds: [lower, lower + width). */
uint64_t hist_bucket_lower(unsigned idx);
uint64_t hist_bucket_width(unsigned idx);

#endif
