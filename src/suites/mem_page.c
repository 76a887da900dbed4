/* Memory suite, the paging tests: mem.tlb (random reads over a buffer far
 * beyond the TLB's reach, on 4 KiB pages and on 2 MiB pages that smaps
 * confirms) and mem.pagefault (first touch, MADV_DONTNEED and munmap of
 * anonymous memory). A second-level page walk (EPT/NPT) makes both dearer
 * in a VM than on its host: these are the figures that show it. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "../core/clock.h"
#include "mem.h"
#include "../core/banned.h"

#define HUGE_2M (2u << 20)
/* Below this share of the buffer on 2 MiB pages, no "2M" figure is reported. */
#define HUGE_MIN_FRAC 0.9

/* n dependent random 8-byte reads: each index comes from the value the
 * previous read returned, so the reads cannot overlap and each pays its
 * full page walk on a TLB miss. */
static uint64_t tlb_walk(const uint64_t *buf, size_t nwords, uint64_t n, uint64_t h)
{
	for (uint64_t i = 0; i < n; i++) {
		uint64_t v = buf[(size_t)(((unsigned __int128)h * nwords) >> 64)];

		h = (h + v + 1) * 0x9e3779b97f4a7c15ull;
		h ^= h >> 29;
	}
	return h;
}

/* Map and fill a buffer of the kind, and say how much smaps puts on huge pages. */
static void *tlb_buffer(size_t len, enum mem_pages kind, struct mem_smaps *sm)
{
	void *p = mem_map(len, kind);

	if (!p)
		return NULL;
	memset(p, 0, len); /* written, not only read: a read would map the zero page */
	if (mem_smaps_read((uintptr_t)p, len, sm) < 0)
		memset(sm, 0, sizeof(*sm));
	return p;
}

static int tlb_setup(struct vmb_ctx *ctx, struct mem_state *st)
{
	size_t len = st->tlb_len;
	struct mem_smaps sm;
	int r;

	r = vmb_fits(ctx, "tlb-size", "mem.tlb's two buffers", 2 * (uint64_t)len, st->avail);
	if (r < 0)
		return r;
	st->tlb4k = tlb_buffer(len, MEM_PAGES_4K, &sm);
	if (!st->tlb4k)
		return vmb_fail(ctx, -ENOMEM, "a %zu MiB buffer on 4 KiB pages", len >> 20);
	if (sm.huge)
		return vmb_fail(ctx, -EIO, "the 4 KiB-page buffer has %llu MiB on huge pages despite MADV_NOHUGEPAGE",
				(unsigned long long)(sm.huge >> 20));
	st->huge_frac = 0;
	if (!st->huge_possible) {
		(void)vmb_note(ctx, "tlb_2m", "not measured: no 2 MiB pages: %s", st->huge_why);
		return 0;
	}
	st->tlb2m = tlb_buffer(len, st->huge_kind, &sm);
	if (!st->tlb2m) {
		(void)vmb_note(ctx, "tlb_2m", "not measured: mapping %zu MiB of %s pages failed", len >> 20,
			       mem_pages_names[st->huge_kind]);
		return 0;
	}
	st->huge_frac = (double)sm.huge / (double)len;
	(void)vmb_note(ctx, "tlb_huge_backed", "%llu of %zu MiB on 2 MiB pages (%s, /proc/self/smaps)",
		       (unsigned long long)(sm.huge >> 20), len >> 20, mem_pages_names[st->huge_kind]);
	if (st->huge_frac < HUGE_MIN_FRAC) {
		(void)vmb_note(ctx, "tlb_2m",
			       "not measured: only %.0f%% of the buffer is on 2 MiB pages (%s): a 2M figure would be "
			       "measured on 4 KiB pages",
			       st->huge_frac * 100, mem_pages_names[st->huge_kind]);
		mem_unmap(st->tlb2m, len);
		st->tlb2m = NULL;
	}
	return 0;
}

int mem_run_tlb(struct vmb_ctx *ctx, const struct vmb_test *test, struct vmb_rep *rep)
{
	struct mem_state *st = mem_begin(ctx, test);
	size_t nwords = st->tlb_len / 8;
	uint64_t n = st->loads, h = st->seed, t0, t1;
	double ns4k, ns2m;
	int r;

	if (!st->tlb4k) {
		r = tlb_setup(ctx, st);
		if (r < 0)
			return r;
	}
	if (!n) {
		/* --time decides: calibrate on a short walk, then share the time between the two */
		t0 = clock_ns();
		h = tlb_walk(st->tlb4k, nwords, 1 << 16, h);
		t1 = clock_ns();
		n = (uint64_t)(ctx->duration_s / (st->tlb2m ? 2 : 1) * NSEC_PER_SEC / ((double)(t1 - t0 + 1) / 65536.0));
		if (n < 1 << 16)
			n = 1 << 16;
	}
	t0 = clock_ns();
	h = tlb_walk(st->tlb4k, nwords, n, h);
	t1 = clock_ns();
	ns4k = (double)(t1 - t0) / (double)n;
	vmb_rep_value(rep, "ns_per_access_4k", VMB_UNIT_NS, VMB_LOWER, ns4k);
	if (st->tlb2m) {
		t0 = clock_ns();
		h = tlb_walk(st->tlb2m, nwords, n, h);
		t1 = clock_ns();
		ns2m = (double)(t1 - t0) / (double)n;
		vmb_rep_value(rep, "ns_per_access_2m", VMB_UNIT_NS, VMB_LOWER, ns2m);
		vmb_rep_value(rep, "ratio_4k_to_2m", VMB_UNIT_RATIO, VMB_LOWER, ns4k / ns2m);
		vmb_rep_value(rep, "huge_backed_pct", VMB_UNIT_PCT, VMB_HIGHER, st->huge_frac * 100);
	}
	mem_consume(h);
	return 0;
}

/* Touch one byte of every page of `step` bytes; ns it took. */
static uint64_t touch(uint8_t *p, size_t len, size_t step)
{
	uint64_t t0 = clock_ns();

	for (size_t off = 0; off < len; off += step)
		((volatile uint8_t *)p)[off] = 1;
	return clock_ns() - t0;
}

int mem_run_pagefault(struct vmb_ctx *ctx, const struct vmb_test *test, struct vmb_rep *rep)
{
	struct mem_state *st = mem_begin(ctx, test);
	size_t len = st->pf_len, pages = len / 4096, huge = len / HUGE_2M;
	struct mem_smaps sm;
	uint64_t dt, t0;
	uint8_t *p;
	int r;

	r = vmb_fits(ctx, "pagefault-size", "mem.pagefault's buffer", len, st->avail);
	if (r < 0)
		return r;
	p = mem_map(len, MEM_PAGES_4K);
	if (!p)
		return vmb_fail(ctx, -ENOMEM, "mapping %zu MiB", len >> 20);
	dt = touch(p, len, 4096);
	vmb_rep_value(rep, "fault_4k_ns", VMB_UNIT_NS, VMB_LOWER, (double)dt / (double)pages);
	vmb_rep_value(rep, "zero_4k_mb_per_s", VMB_UNIT_MB_PER_S, VMB_HIGHER, (double)len / (double)dt * 1e3);
	t0 = clock_ns();
	(void)madvise(p, len, MADV_DONTNEED);
	dt = clock_ns() - t0;
	vmb_rep_value(rep, "dontneed_4k_ns", VMB_UNIT_NS, VMB_LOWER, (double)dt / (double)pages);
	(void)touch(p, len, 4096); /* populated again, for munmap to give back */
	t0 = clock_ns();
	mem_unmap(p, len);
	dt = clock_ns() - t0;
	vmb_rep_value(rep, "munmap_4k_ns", VMB_UNIT_NS, VMB_LOWER, (double)dt / (double)pages);
	if (!st->huge_possible)
		return 0;

	p = mem_map(len, st->huge_kind);
	if (!p) {
		(void)vmb_note(ctx, "pagefault_2m", "not measured: mapping %zu MiB of %s pages failed", len >> 20,
			       mem_pages_names[st->huge_kind]);
		return 0;
	}
	dt = touch(p, len, HUGE_2M);
	if (mem_smaps_read((uintptr_t)p, len, &sm) < 0 || (double)sm.huge < HUGE_MIN_FRAC * (double)len) {
		(void)vmb_note(ctx, "pagefault_2m", "not measured: %llu of %zu MiB came on 2 MiB pages (%s)",
			       (unsigned long long)(sm.huge >> 20), len >> 20, mem_pages_names[st->huge_kind]);
		mem_unmap(p, len);
		return 0;
	}
	vmb_rep_value(rep, "fault_2m_ns", VMB_UNIT_NS, VMB_LOWER, (double)dt / (double)huge);
	vmb_rep_value(rep, "zero_2m_mb_per_s", VMB_UNIT_MB_PER_S, VMB_HIGHER, (double)len / (double)dt * 1e3);
	mem_unmap(p, len);
	return 0;
}
