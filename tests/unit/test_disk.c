/* The storage suite's I/O pattern generator: aligned, in range, and random
 * offsets cover every block exactly once per cycle. */
#include <stdlib.h>
#include <string.h>

#include "test.h"
#include "../../src/suites/disk.h"

static void random_covers_every_block(void **state)
{
	static const struct {
		uint64_t size, bs;
	} cases[] = {
		{ 4096, 4096 }, { 7 * 4096, 4096 }, { 1000 * 512, 512 }, { 4096ull * 4096, 4096 },
		{ (1 << 20) + 1000, 4096 }, /* a tail shorter than a block is never touched */
		{ 65537ull * 4096, 4096 },  /* one past a power of two: the worst case for skipping */
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint64_t nblocks = cases[i].size / cases[i].bs;
		unsigned char *seen = calloc(nblocks, 1);
		struct disk_pattern p;

		assert_non_null(seen);
		disk_pattern_init(&p, cases[i].size, cases[i].bs, true, 42 + i, 0);
		for (uint64_t k = 0; k < nblocks; k++) {
			uint64_t off = disk_pattern_next(&p);

			if (off % cases[i].bs || off + cases[i].bs > cases[i].size)
				fail_msg("case %zu: offset %llu misaligned or out of range", i, (unsigned long long)off);
			if (seen[off / cases[i].bs]++)
				fail_msg("case %zu: block %llu twice within one cycle", i,
					 (unsigned long long)(off / cases[i].bs));
		}
		free(seen);
	}
}

static void random_is_not_sequential(void **state)
{
	struct disk_pattern p;
	uint64_t prev, ascending = 0;

	(void)state;
	disk_pattern_init(&p, 1ull << 30, 4096, true, 7, 0);
	prev = disk_pattern_next(&p);
	for (int k = 0; k < 10000; k++) {
		uint64_t off = disk_pattern_next(&p);

		ascending += off == prev + 4096;
		prev = off;
	}
	assert_true(ascending < 10); /* a shuffled order, not a scan */
}

static void sequential_wraps(void **state)
{
	struct disk_pattern p;

	(void)state;
	disk_pattern_init(&p, 4 * 4096, 4096, false, 1, 2);
	assert_int_equal(disk_pattern_next(&p), 2 * 4096);
	assert_int_equal(disk_pattern_next(&p), 3 * 4096);
	assert_int_equal(disk_pattern_next(&p), 0);
	assert_int_equal(disk_pattern_next(&p), 4096);
}

static void read_mix(void **state)
{
	struct disk_pattern p;
	unsigned reads = 0;

	(void)state;
	disk_pattern_init(&p, 1 << 20, 4096, true, 3, 0);
	for (int k = 0; k < 100000; k++)
		reads += disk_pattern_read(&p, 70);
	assert_true(reads > 69000 && reads < 71000);
	assert_true(disk_pattern_read(&p, 100));
	assert_false(disk_pattern_read(&p, 0));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(random_covers_every_block),
		cmocka_unit_test(random_is_not_sequential),
		cmocka_unit_test(sequential_wraps),
		cmocka_unit_test(read_mix),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
