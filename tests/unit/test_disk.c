/* The storage suite's I/O pattern generator: aligned, in range, and random
 * offsets cover every block exactly once per cycle; and the io_uring
 * engine's measured window across a device that stalls. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "test.h"
#include "../../src/core/runner.h"
#include "../../src/suites/disk.h"
#include "../../src/suites/suites.h"

/* iozone's time of a pass: a write pass's fsync counts only with
 * --disk.flush timed (iozone -e); a read pass has none to count */
static void iozone_flush_timing(void **state)
{
	static const struct {
		bool wr, timed;
		uint64_t end;
	} cases[] = {
		{ true, true, 900 },  /* -e: the fsync in the time */
		{ true, false, 500 }, /* without -e: the last write ends it */
		{ false, true, 500 }, /* reads: no flush either way */
		{ false, false, 500 },
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++)
		assert_int_equal(disk_iozone_end(cases[i].wr, cases[i].timed, 500, 900), cases[i].end);
}

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

struct late_device {
	int fd;
	size_t bytes;
	long delay_ms;
};

/* The device's latency: its data comes late. This is what is measured, not
 * a wait for the result (the test joins the job, whose end it knows). */
static void *late_writer(void *arg)
{
	struct late_device *d = arg;
	struct timespec ts = { d->delay_ms / 1000, (d->delay_ms % 1000) * 1000000L };
	char *buf = calloc(1, d->bytes);

	(void)clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, NULL);
	if (buf && write(d->fd, buf, d->bytes) != (ssize_t)d->bytes)
		d->bytes = 0;
	free(buf);
	return NULL;
}

/*
 * Every I/O outlasts ramp + measurement (a stalled device: the emulated NVMe
 * of QEMU 7.2 under x86 TCG did this). The window must span the stall, so
 * that IOPS are completions over the time they took, never a handful of
 * completions over the microseconds between two polls.
 */
static void stalled_device_window(void **state)
{
	struct late_device dev = { .bytes = 4 * 4096, .delay_ms = 300 };
	struct disk_job j = { .size = 1 << 20, .bs = 4096, .iodepth = 4, .random = false, .read_pct = 100,
			      .ramp_s = 0.05, .duration_s = 0.05, .seed = 1 };
	pthread_barrier_t ready;
	struct vmb_worker w = { .arg = &j, .ready = &ready };
	char why[128];
	pthread_t t;
	int p[2];

	(void)state;
	if (disk_uring_probe(why, sizeof(why)) < 0)
		skip();
	assert_int_equal(pipe(p), 0);
	j.fd = p[0]; /* io_uring reads a pipe: a device whose latency the test sets */
	dev.fd = p[1];
	assert_int_equal(pthread_barrier_init(&ready, NULL, 1), 0);
	assert_int_equal(pthread_create(&t, NULL, late_writer, &dev), 0);
	disk_uring_job(&w);
	assert_int_equal(pthread_join(t, NULL), 0);
	assert_int_equal(j.err, 0);
	assert_int_equal(dev.bytes, 4 * 4096);
	assert_true(j.reads >= 1 && j.reads <= 4);
	/* the window opens at the end of the ramp and closes at the last
	 * completion, 300 ms after the writer started: more than 100 ms even if
	 * setting up the ring took 100 ms, whatever the machine's speed (the
	 * window of a poll-to-poll count would be microseconds) */
	assert_true(j.end_ns - j.start_ns >= 100000000u);
	assert_true(w.end_ns - w.start_ns == j.end_ns - j.start_ns);
	pthread_barrier_destroy(&ready);
	close(p[0]);
	close(p[1]);
}

/* fio's --iomem names, what each gives (alignment, rounding, filled with
 * random bytes: nothing a layer could compress), and a name that is none */
static void iomem_kinds(void **state)
{
	static const struct {
		const char *name;
		enum disk_iomem kind;
		size_t n, align, mapped; /* mapped 0: exactly n */
	} cases[] = {
		{ "malloc", DISK_IOMEM_MALLOC, 3 << 20, 4096, 0 },
		{ "mmap", DISK_IOMEM_MMAP, 3 << 20, 4096, 0 },
		{ "mmaphuge", DISK_IOMEM_MMAPHUGE, 1, 2 << 20, 2 << 20 },
		{ "thp", DISK_IOMEM_THP, (2 << 20) + 1, 2 << 20, 4 << 20 },
		{ "thp", DISK_IOMEM_THP, 4096, 2 << 20, 2 << 20 },
	};
	enum disk_iomem k;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		size_t mapped = 0, zero = 0;
		unsigned char *p;

		assert_int_equal(disk_iomem_parse(cases[i].name, &k), 0);
		assert_int_equal(k, cases[i].kind);
		p = disk_buffers(k, cases[i].n, i + 1, &mapped);
		if (!p && k == DISK_IOMEM_MMAPHUGE) {
			/* hugetlb pages must be reserved; the reason says so */
			assert_non_null(strstr(disk_iomem_why(k), "vm.nr_hugepages"));
			continue;
		}
		assert_non_null(p);
		if ((uintptr_t)p % cases[i].align)
			fail_msg("case %zu: %p not aligned to %zu", i, (void *)p, cases[i].align);
		assert_int_equal(mapped, cases[i].mapped ? cases[i].mapped : cases[i].n);
		for (size_t b = 0; b < cases[i].n; b += 4096)
			zero += p[b] == 0 && p[b + 1] == 0 && p[b + 2] == 0;
		assert_true(zero < 4);
		disk_buffers_free(k, p, mapped);
	}
	assert_int_equal(disk_iomem_parse("hugepage", &k), -EINVAL);
	assert_int_equal(disk_iomem_parse("", &k), -EINVAL);
}

/* The O_DIRECT alignment probe agrees with what statx says, written to a
 * new file and read back from it. */
static void dio_probe_matches_statx(void **state)
{
	char path[] = "test-disk-dio-XXXXXX";
	unsigned wr = 0, rd = 0;
	struct statx stx;
	int fd, dfd;

	(void)state;
	fd = mkstemp(path);
	assert_true(fd >= 0);
	dfd = open(path, O_RDWR | O_DIRECT);
	if (dfd < 0) { /* tmpfs and the like: nothing to probe */
		close(fd);
		unlink(path);
		skip();
	}
	assert_int_equal(disk_dio_probe(dfd, true, &wr), 0);
	assert_int_equal(disk_dio_probe(dfd, false, &rd), 0); /* the file has the write's bytes now */
	assert_int_equal(rd, wr);
	assert_true(wr >= 512 && (wr & (wr - 1)) == 0);
	if (statx(dfd, "", AT_EMPTY_PATH, STATX_DIOALIGN, &stx) == 0 && (stx.stx_mask & STATX_DIOALIGN))
		assert_int_equal(wr, stx.stx_dio_offset_align);
	/* an empty file cannot be read-probed: a short read says so */
	assert_int_equal(ftruncate(fd, 0), 0);
	assert_int_equal(disk_dio_probe(dfd, false, &rd), -EIO);
	close(dfd);
	close(fd);
	unlink(path);
}

/* A worker that cannot be pinned (its CPU went away after the up-front
 * check): the test fails with vmb_parallel's reason, which names the worker
 * and the CPU, not "starting 1 I/O workers: Invalid argument". */
static void pinning_failure_reason(void **state)
{
	static const unsigned cpus[] = { CPU_SETSIZE - 1 };
	const struct vmb_suite *disk = suites_find("disk");
	char dir[] = "/tmp/vmbench-disk-pin-XXXXXX";
	struct runner_settings rs = { .time_s = 0.01, .min_reps = 2, .max_reps = 2, .precision_pct = 50,
				      .budget_s = 1, .cpus = cpus, .ncpus = 1 };
	struct vmb_results res = { 0 };
	struct optset opts;
	struct runner_item item;

	(void)state;
	assert_non_null(disk);
	assert_non_null(mkdtemp(dir));
	assert_int_equal(optset_init(&opts, disk->opts, "disk."), 0);
	assert_int_equal(optset_default(&opts, "dir", dir), 0);
	assert_int_equal(optset_default(&opts, "size", "1m"), 0);
	assert_int_equal(optset_default(&opts, "iodepth", "1"), 0);
	assert_int_equal(optset_default(&opts, "ramp", "0"), 0);
	item = (struct runner_item){ .suite = disk, .opts = &opts, .test_mask = 1 }; /* randread */
	assert_int_equal(runner_run(&rs, &item, 1, &res), 0);
	assert_int_equal(res.nsuites, 1);
	if (res.suites[0].status == VMB_SKIPPED) { /* no O_DIRECT here */
		vmb_results_release(&res);
		optset_release(&opts);
		rmdir(dir);
		skip();
	}
	assert_int_equal(res.suites[0].ntests, 1);
	assert_int_equal(res.suites[0].tests[0].status, VMB_FAILED);
	if (!strstr(res.suites[0].tests[0].reason, "pinning worker 0 to CPU 1023"))
		fail_msg("reason: %s", res.suites[0].tests[0].reason);
	vmb_results_release(&res);
	optset_release(&opts);
	assert_int_equal(rmdir(dir), 0); /* no test file left behind */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(iozone_flush_timing),
		cmocka_unit_test(random_covers_every_block),
		cmocka_unit_test(random_is_not_sequential),
		cmocka_unit_test(sequential_wraps),
		cmocka_unit_test(read_mix),
		cmocka_unit_test(stalled_device_window),
		cmocka_unit_test(iomem_kinds),
		cmocka_unit_test(dio_probe_matches_statx),
		cmocka_unit_test(pinning_failure_reason),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
