/* Memory suite, mem.integrity: a memtester-style pass (random values,
 * address in address and its complement, walking ones, walking zeros) over
 * locked memory. A mismatch is a failed test with its addresses, never a
 * number to average.
 *
 * A test build compiles this file again with VMB_MEM_INJECT_FLIP: then
 * VMBENCH_TEST_FLIP=OFFSET flips one bit of the word at that byte offset
 * after the random-value pattern is written, so that a test can prove the
 * pass finds it. The product has no such code. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>

#include "../core/clock.h"
#include "mem.h"
#include "../core/str.h"
#include "../core/banned.h"

static uint64_t next_rand(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

#ifdef VMB_MEM_INJECT_FLIP
static void inject(uint64_t *buf, size_t n)
{
	const char *at = getenv("VMBENCH_TEST_FLIP");
	unsigned long long off;
	char *end;

	if (!at)
		return;
	off = strtoull(at, &end, 0);
	if (end != at && !*end && off / 8 < n)
		buf[off / 8] ^= 1ull << 5;
}
#endif

/* Compare every word with what was written; count and remember mismatches. */
static uint64_t verify(const uint64_t *buf, size_t n, uint64_t (*want)(size_t i, const void *arg), const void *arg,
		       struct mem_check_err *errs, size_t max, uint64_t *nerr)
{
	uint64_t sum = 0;

	for (size_t i = 0; i < n; i++) {
		uint64_t v = ((const volatile uint64_t *)buf)[i], w = want(i, arg);

		sum += v;
		if (v != w) {
			if (*nerr < max)
				errs[*nerr] = (struct mem_check_err){ .offset = (uint64_t)i * 8,
								      .addr = (uintptr_t)&buf[i],
								      .expected = w,
								      .got = v };
			(*nerr)++;
		}
	}
	return sum;
}

struct pattern {
	uint64_t seed;  /* random values: the generator's start */
	uintptr_t base; /* address in address */
	bool invert;
	unsigned bit;   /* walking: the bit word 0 holds */
};

static uint64_t want_random(size_t i, const void *arg)
{
	const struct pattern *p = arg;
	uint64_t s = p->seed + (uint64_t)i * 0x9e3779b97f4a7c15ull;

	return next_rand(&s);
}

static uint64_t want_address(size_t i, const void *arg)
{
	const struct pattern *p = arg;
	uint64_t v = (uint64_t)(p->base + i * 8);

	return p->invert ? ~v : v;
}

/* word i holds bit (bit + i) mod 64: over 64 passes every word holds every bit */
static uint64_t want_walk(size_t i, const void *arg)
{
	const struct pattern *p = arg;
	uint64_t v = 1ull << ((p->bit + i) & 63);

	return p->invert ? ~v : v;
}

static void fill(uint64_t *buf, size_t n, uint64_t (*want)(size_t i, const void *arg), const void *arg)
{
	for (size_t i = 0; i < n; i++)
		((volatile uint64_t *)buf)[i] = want(i, arg);
}

uint64_t mem_check_pass(uint64_t *buf, size_t n, uint64_t seed, struct mem_check_err *errs, size_t max,
			uint64_t *bytes)
{
	struct pattern p = { .seed = seed, .base = (uintptr_t)buf };
	uint64_t nerr = 0, sum = 0, passes = 0;

	fill(buf, n, want_random, &p);
#ifdef VMB_MEM_INJECT_FLIP
	inject(buf, n);
#endif
	sum += verify(buf, n, want_random, &p, errs, max, &nerr);
	passes++;
	for (int inv = 0; inv < 2; inv++) {
		p.invert = inv;
		fill(buf, n, want_address, &p);
		sum += verify(buf, n, want_address, &p, errs, max, &nerr);
		passes++;
	}
	for (int inv = 0; inv < 2; inv++)
		for (unsigned bit = 0; bit < 64; bit++) {
			p.invert = inv;
			p.bit = bit;
			fill(buf, n, want_walk, &p);
			sum += verify(buf, n, want_walk, &p, errs, max, &nerr);
			passes++;
		}
	mem_consume(sum);
	*bytes = passes * 2 * (uint64_t)n * 8;
	return nerr;
}

static int check_setup(struct vmb_ctx *ctx, struct mem_state *st)
{
	size_t len = st->check_len;
	struct rlimit rl;
	int r;

	r = vmb_fits(ctx, "integrity-size", "mem.integrity's buffer", len, st->avail);
	if (r < 0)
		return r;
	st->check = mem_map(len, MEM_PAGES_DEFAULT);
	if (!st->check)
		return vmb_fail(ctx, -ENOMEM, "mapping %zu MiB", len >> 20);
	st->locked = mlock(st->check, len) == 0;
	if (st->locked)
		return vmb_note(ctx, "integrity_locked", "yes: %zu MiB locked (mlock)", len >> 20);
	r = -errno;
	if (getrlimit(RLIMIT_MEMLOCK, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
		return vmb_note(ctx, "integrity_locked",
				"no: mlock of %zu MiB failed (%s); RLIMIT_MEMLOCK is %llu KiB (ulimit -l): the pass "
				"ran on unlocked memory, which the kernel may move or swap",
				len >> 20, strerror(-r), (unsigned long long)(rl.rlim_cur >> 10));
	return vmb_note(ctx, "integrity_locked", "no: mlock of %zu MiB failed (%s): the pass ran on unlocked memory",
			len >> 20, strerror(-r));
}

int mem_run_integrity(struct vmb_ctx *ctx, const struct vmb_test *test, struct vmb_rep *rep)
{
	struct mem_state *st = mem_begin(ctx, test);
	struct mem_check_err errs[4];
	uint64_t nerr, bytes, t0, t1;
	char where[200] = "";
	size_t off = 0;
	int r;

	if (!st->check) {
		r = check_setup(ctx, st);
		if (r < 0)
			return r;
	}
	t0 = clock_ns();
	nerr = mem_check_pass(st->check, st->check_len / 8, st->seed++, errs, 4, &bytes);
	t1 = clock_ns();
	if (nerr) {
		for (size_t i = 0; i < nerr && i < 4 && off < sizeof(where); i++)
			str_appendf(where, sizeof(where), &off, "%s0x%llx (+%llu): %016llx not %016llx",
				    i ? "; " : "", (unsigned long long)errs[i].addr,
				    (unsigned long long)errs[i].offset, (unsigned long long)errs[i].got,
				    (unsigned long long)errs[i].expected);
		return vmb_fail(ctx, -EIO, "%llu memory error%s at %s", (unsigned long long)nerr, nerr == 1 ? "" : "s",
				where);
	}
	vmb_rep_value(rep, "checked_mb_per_s", VMB_UNIT_MB_PER_S, VMB_HIGHER, (double)bytes / (double)(t1 - t0) * 1e3);
	return 0;
}
