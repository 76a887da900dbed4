/* The memory suite's parts: the chase is one cycle over every node with no
 * two consecutive nodes on a page; smaps says how much is on huge pages
 * (fixtures: all, none, part, hugetlb); STREAM's byte counts and expected
 * values; the integrity pass on good memory; cache sizes from sysfs. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test.h"
#include "../../src/suites/mem.h"

static void chain_is_one_cycle(void **state)
{
	static const struct {
		size_t nodes, npp;
	} cases[] = {
		{ 2, 64 }, { 64, 64 }, { 128, 64 }, { 3 * 64, 64 }, { 100 * 64 + 17, 64 }, { 1000, 1 },
		{ 4096, 64 }, { 16384, 32 }, { 5 * 64 - 1, 64 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		size_t n = cases[i].nodes, npp = cases[i].npp, npages = (n + npp - 1) / npp, steps = 0;
		uint32_t *order = malloc(n * sizeof(*order));
		void **buf = calloc(n, 64);
		unsigned char *seen = calloc(n, 1);
		void **p;

		assert_non_null(order);
		assert_non_null(buf);
		assert_non_null(seen);
		assert_int_equal(mem_chain_order(order, n, npp, 7 + i), 0);
		mem_chain_link(buf, 64, order, n);
		/* from node 0, every node once, and back to node 0 after exactly n hops */
		p = (void **)buf;
		do {
			size_t node = (size_t)((char *)p - (char *)buf) / 64;

			if (node >= n || seen[node])
				fail_msg("case %zu: node %zu visited twice or out of range after %zu hops", i, node, steps);
			seen[node] = 1;
			p = (void **)*p;
			steps++;
		} while (p != (void **)buf && steps <= n);
		assert_int_equal(steps, n);
		/* no two consecutive nodes (the closing hop too) on one page, where the size allows */
		if (npages >= 3 && n % npp == 0)
			for (size_t k = 0; k < n; k++)
				if (order[k] / npp == order[(k + 1) % n] / npp)
					fail_msg("case %zu: hop %zu stays on page %zu", i, k, (size_t)(order[k] / npp));
		free(order);
		free(buf);
		free(seen);
	}
}

static char *slurp(const char *name)
{
	char path[512];
	FILE *f;
	char *buf = calloc(1, 1 << 16);
	size_t n;

	snprintf(path, sizeof(path), "%s/mem/%s", FIXTURES, name);
	f = fopen(path, "r");
	assert_non_null(f);
	assert_non_null(buf);
	n = fread(buf, 1, (1 << 16) - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

static void smaps_huge_share(void **state)
{
	static const struct {
		const char *file;
		uintptr_t start;
		size_t len;
		int ret;
		uint64_t size, huge, kps;
	} cases[] = {
		/* all of it on THP, neighbours' huge pages not counted */
		{ "smaps-thp.txt", 0x7f1000000000, 64u << 20, 0, 64u << 20, 64u << 20, 4096 },
		{ "smaps-4k.txt", 0x7f1000000000, 64u << 20, 0, 64u << 20, 0, 4096 },
		{ "smaps-partial.txt", 0x7f1000000000, 64u << 20, 0, 64u << 20, 22u << 20, 4096 },
		{ "smaps-hugetlb.txt", 0x7f1000000000, 64u << 20, 0, 64u << 20, 64u << 20, 2u << 20 },
		/* a range smaps does not have */
		{ "smaps-4k.txt", 0x7e0000000000, 2u << 20, -ENOENT, 0, 0, 0 },
		/* half a mapping: its share of the range; of its huge pages only
		 * those that cannot all lie in the other part */
		{ "smaps-4k.txt", 0x7f1003000000, 32u << 20, 0, 16u << 20, 0, 4096 },
		{ "smaps-partial.txt", 0x7f1003000000, 32u << 20, 0, 16u << 20, 0, 4096 },
		/* ... and the neighbour the range reaches into, all of it */
		{ "smaps-thp.txt", 0x7f1003000000, 32u << 20, 0, 18u << 20, 18u << 20, 4096 },
		/* mappings out of order are not a kernel's smaps */
		{ "smaps-unordered.txt", 0x7f1000000000, 64u << 20, -EINVAL, 0, 0, 0 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *text = slurp(cases[i].file);
		struct mem_smaps m;

		memset(&m, 0xa5, sizeof(m));
		assert_int_equal(mem_smaps_parse(text, cases[i].start, cases[i].len, &m), cases[i].ret);
		if (cases[i].ret == 0) {
			assert_int_equal(m.size, cases[i].size);
			assert_int_equal(m.huge, cases[i].huge);
			assert_int_equal(m.kernel_ps, cases[i].kps);
		}
		free(text);
	}
	{
		struct mem_smaps m;

		assert_int_equal(mem_smaps_parse("", 0x1000, 4096, &m), -ENOENT);
		assert_int_equal(mem_smaps_parse("garbage\nSize: x kB\n", 0x1000, 4096, &m), -ENOENT);
	}
}

static void stream_bytes_per_kernel(void **state)
{
	static const struct {
		enum mem_kernel k;
		uint64_t n, bytes;
	} cases[] = {
		{ MEM_COPY, 1000, 16000 }, { MEM_SCALE, 1000, 16000 }, { MEM_ADD, 1000, 24000 },
		{ MEM_TRIAD, 1000, 24000 }, { MEM_TRIAD, 0, 0 }, { MEM_COPY, 1ull << 24, 1ull << 28 },
		{ MEM_NKERNELS, 10, 0 },
	};
	double a, b, c;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		assert_int_equal(mem_stream_bytes(cases[i].k, cases[i].n), cases[i].bytes);
	/* one pass from (1, 2, 0), s = 3: c = 1, b = 3, c = 4, a = 15 */
	mem_stream_expect(1, 3.0, &a, &b, &c);
	assert_close(a, 15, 0);
	assert_close(b, 3, 0);
	assert_close(c, 4, 0);
	mem_stream_expect(2, 3.0, &a, &b, &c);
	assert_close(a, 225, 0);
	assert_close(b, 45, 0);
	assert_close(c, 60, 0);
}

static void integrity_clean_pass(void **state)
{
	size_t n = 4096;
	uint64_t *buf = malloc(n * 8), bytes = 0;
	struct mem_check_err errs[2];

	(void)state;
	assert_non_null(buf);
	assert_int_equal(mem_check_pass(buf, n, 42, errs, 2, &bytes), 0);
	/* random, address and its complement, 64 walking ones, 64 walking zeros: written and read */
	assert_int_equal(bytes, (uint64_t)131 * 2 * n * 8);
	free(buf);
}

/* The suite sizes by the probe's chain (test_probe covers its sources);
 * here what the suite makes of it: the fixture's sizes, and "unknown"
 * when nothing is there, never a guess. */
static void caches_from_sysfs(void **state)
{
	struct cache_info c;
	char root[512];

	(void)state;
	snprintf(root, sizeof(root), "%s/probe/kvm-virtio", FIXTURES);
	cache_read(root, &c);
	assert_int_equal(c.size[CACHE_L1D], 32 << 10);
	assert_int_equal(c.size[CACHE_L2], 1024 << 10);
	assert_int_equal(c.size[CACHE_L3], 32768ull << 10);
	assert_int_equal(cache_llc(&c), 32768ull << 10);
	assert_string_equal(c.source[CACHE_L3], "sysfs");
	cache_read("/nonexistent-vmbench-root", &c);
	assert_int_equal(cache_llc(&c), 0);
	assert_null(c.source[CACHE_L3]);
	snprintf(root, sizeof(root), "%s/probe/odd-values", FIXTURES);
	assert_string_equal(mem_thp_setting(root), "madvise");
	assert_string_equal(mem_thp_setting("/nonexistent-vmbench-root"), "absent");
}

/* STREAM's arrays where no source knows the cache: min(1 GiB, avail/8),
 * a quarter under --quick, whole MiB, never 0. */
static void stream_default_without_cache(void **state)
{
	static const struct {
		uint64_t avail;
		bool quick;
		uint64_t want;
	} cases[] = {
		{ 64ull << 30, false, 1ull << 30 },  /* plenty: the 1 GiB cap */
		{ 64ull << 30, true, 256ull << 20 },
		{ 4ull << 30, false, 512ull << 20 }, /* a small guest: an eighth */
		{ 4ull << 30, true, 128ull << 20 },
		{ 0, false, 256ull << 20 },          /* MemAvailable unknown */
		{ 0, true, 64ull << 20 },
		{ (100ull << 20) + 12345, false, 12ull << 20 }, /* rounded down to MiB */
		{ 4ull << 20, true, 1ull << 20 },    /* never 0 */
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		assert_int_equal(mem_stream_default(cases[i].avail, cases[i].quick), cases[i].want);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(chain_is_one_cycle),
		cmocka_unit_test(smaps_huge_share),
		cmocka_unit_test(stream_bytes_per_kernel),
		cmocka_unit_test(integrity_clean_pass),
		cmocka_unit_test(caches_from_sysfs),
		cmocka_unit_test(stream_default_without_cache),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
