/* Histogram: bucket arithmetic, percentile error on known distributions, merge. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "test.h"
#include "../../src/core/hist.h"

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static void buckets_cover_values(void **state)
{
	(void)state;
	for (uint64_t v = 0; v < 100000; v++) {
		unsigned i = hist_index(v);

		assert_true(hist_bucket_lower(i) <= v);
		assert_true(v < hist_bucket_lower(i) + hist_bucket_width(i));
	}
	/* Large values, by powers and neighbours, up to 2^40 ns. */
	for (unsigned k = 7; k < HIST_MAX_EXP; k++)
		for (int d = -1; d <= 1; d++) {
			uint64_t v = (1ull << k) + (uint64_t)d;
			unsigned i = hist_index(v);

			assert_true(hist_bucket_lower(i) <= v);
			assert_true(v < hist_bucket_lower(i) + hist_bucket_width(i));
			/* width / lower <= 1/64: the bucket is narrow */
			assert_true(hist_bucket_width(i) * 64 <= hist_bucket_lower(i) + 64);
		}
	assert_int_equal(hist_index(UINT64_MAX), HIST_BUCKETS - 1);
}

/* Percentiles of a distribution against the exact order statistics. */
static void check_distribution(uint64_t *v, size_t n)
{
	static const double ps[] = { 1, 10, 50, 90, 99, 99.9 };
	struct hist *h = hist_new();

	assert_non_null(h);
	for (size_t i = 0; i < n; i++)
		hist_record(h, v[i]);
	qsort(v, n, sizeof(*v), cmp_u64);
	assert_int_equal(h->count, n);
	assert_int_equal(h->min, v[0]);
	assert_int_equal(h->max, v[n - 1]);
	for (size_t i = 0; i < sizeof(ps) / sizeof(ps[0]); i++) {
		size_t rank = (size_t)ceil(ps[i] / 100.0 * (double)n);
		double exact = (double)v[rank - 1], got = hist_percentile(h, ps[i]);

		if (fabs(got - exact) > 0.01 * exact + 0.5)
			fail_msg("p%g: %g, exact %g (error %.3f%%)", ps[i], got, exact, 100 * fabs(got - exact) / exact);
	}
	assert_true(hist_percentile(h, 100) == (double)v[n - 1]);
	assert_true(hist_percentile(h, 0) == (double)v[0]);
	hist_free(h);
}

static void percentile_error(void **state)
{
	size_t n = 200000;
	uint64_t *v = malloc(n * sizeof(*v));
	uint64_t x = 88172645463325252ull;

	(void)state;
	assert_non_null(v);
	/* uniform 1 us .. 1 ms */
	for (size_t i = 0; i < n; i++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		v[i] = 1000 + x % 999000;
	}
	check_distribution(v, n);
	/* log-uniform over the whole advertised range, 10 ns .. 100 s */
	for (size_t i = 0; i < n; i++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		v[i] = (uint64_t)(10.0 * pow(1e10, (double)(x >> 11) / 9007199254740992.0));
	}
	check_distribution(v, n);
	/* exponential with a long tail, mean 50 us */
	for (size_t i = 0; i < n; i++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		v[i] = (uint64_t)(-50000.0 * log(((double)(x >> 11) + 1) / 9007199254740993.0)) + 10;
	}
	check_distribution(v, n);
	free(v);
}

static void merge_equals_union(void **state)
{
	struct hist *a = hist_new(), *b = hist_new(), *all = hist_new();

	(void)state;
	for (uint64_t i = 1; i <= 5000; i++) {
		hist_record(i % 2 ? a : b, i * 37);
		hist_record(all, i * 37);
	}
	hist_merge(a, b);
	assert_int_equal(a->count, all->count);
	assert_int_equal(a->min, all->min);
	assert_int_equal(a->max, all->max);
	assert_close(a->sum, all->sum, 0);
	assert_memory_equal(a->buckets, all->buckets, sizeof(a->buckets));
	assert_close(hist_percentile(a, 99), hist_percentile(all, 99), 0);
	/* merging an empty histogram changes nothing; an empty one reads 0 */
	hist_init(b);
	hist_merge(a, b);
	assert_int_equal(a->count, all->count);
	assert_close(hist_percentile(b, 50), 0, 0);
	assert_close(hist_mean(b), 0, 0);
	hist_free(a);
	hist_free(b);
	hist_free(all);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(buckets_cover_values),
		cmocka_unit_test(percentile_error),
		cmocka_unit_test(merge_equals_union),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
