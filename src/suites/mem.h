/* Memory suite internals shared by mem.c (the suite: options, bandwidth),
 * mem_lat.c (pointer chase, TLB, page faults, huge pages and smaps) and
 * mem_check.c (the memtester-style integrity pass). Unit tests use these. */
#ifndef VMB_MEM_H
#define VMB_MEM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../core/fits.h"
#include "../core/suite.h"
#include "../probe/cache.h"

/* ---- caches: the probe's chain (src/probe/cache.h) ---- */

/* STREAM's bytes per array when no source knows the last-level cache:
 * min(1 GiB, MemAvailable / 8), under --quick a quarter of that (as 1x
 * instead of 4x the cache); 256 MiB (64 MiB) when MemAvailable is
 * unknown; whole MiB, at least 1 MiB. */
uint64_t mem_stream_default(uint64_t avail, bool quick);

/* ---- STREAM ---- */

enum mem_kernel { MEM_COPY, MEM_SCALE, MEM_ADD, MEM_TRIAD, MEM_NKERNELS };
extern const char *const mem_kernel_names[MEM_NKERNELS];
/* STREAM's byte count of one pass of a kernel over n doubles: copy and
 * scale move 2 arrays (16 bytes an element), add and triad 3 (24). */
uint64_t mem_stream_bytes(enum mem_kernel k, uint64_t n);
/* The values a[], b[], c[] hold after ntimes passes of the four kernels
 * from STREAM's start (1, 2, 0) with scalar s: the result check. */
void mem_stream_expect(unsigned ntimes, double s, double *a, double *b, double *c);

/* ---- the pointer chase ---- */

/* A random cyclic order of `nodes` nodes (one cache line each,
 * nodes_per_page to a 4 KiB page): order[k] is the k-th node visited. Each
 * round visits every page once in a fresh random order, a random unvisited
 * line of each, so that no two consecutive nodes share a page when there
 * are two pages or more. 0 or -ENOMEM. */
int mem_chain_order(uint32_t *order, size_t nodes, size_t nodes_per_page, uint64_t seed);
/* Link buf's nodes (stride bytes apart) in that order into one cycle: node
 * order[k] holds a pointer to node order[k+1]. */
void mem_chain_link(void *buf, size_t stride, const uint32_t *order, size_t nodes);

/* ---- huge pages ---- */

/* How much of [start, start+len) /proc/self/smaps says is backed by huge
 * pages: AnonHugePages (THP) and the hugetlb counts of the mappings that
 * overlap it (of a mapping that reaches outside the range, only the huge
 * pages that cannot all lie outside). Parsed from smaps text so that tests
 * can feed fixtures. 0; -ENOENT when no mapping overlaps the range;
 * -EINVAL for mappings out of order. */
struct mem_smaps {
	uint64_t size;       /* bytes of the mappings found (within the range) */
	uint64_t huge;       /* bytes on huge pages */
	uint64_t kernel_ps;  /* KernelPageSize of the first mapping, bytes */
	bool found;
};
int mem_smaps_parse(const char *text, uintptr_t start, size_t len, struct mem_smaps *out);
/* The same from /proc/self/smaps. */
int mem_smaps_read(uintptr_t start, size_t len, struct mem_smaps *out);

/* The system's THP setting ("always", "madvise", "never"), or "absent". */
const char *mem_thp_setting(const char *root);

enum mem_pages { MEM_PAGES_DEFAULT, MEM_PAGES_4K, MEM_PAGES_HUGETLB, MEM_PAGES_THP };
extern const char *const mem_pages_names[];
/* Which 2 MiB pages can back len bytes: want is "auto" (hugetlb when
 * enough are reserved, else THP), "hugetlb" or "thp". 0 and *kind, or
 * -ENOENT with why saying what is missing. */
int mem_huge_choose(const char *want, size_t len, enum mem_pages *kind, char *why, size_t whylen);

/* An anonymous mapping of len bytes (a multiple of 2 MiB for huge pages)
 * in a mapping of its own (so smaps speaks of it alone), 2 MiB aligned,
 * asking for the page kind: 4 KiB pages (MADV_NOHUGEPAGE), hugetlb
 * (MAP_HUGETLB) or THP (MADV_HUGEPAGE). Not touched. NULL on failure. */
void *mem_map(size_t len, enum mem_pages kind);
void mem_unmap(void *p, size_t len);

/* ---- integrity ---- */

struct mem_check_err {
	uint64_t offset;   /* bytes into the buffer */
	uintptr_t addr;
	uint64_t expected, got;
};
/* One memtester-style pass over n words: random values, address in
 * address and its complement, walking ones and walking zeros. The number
 * of mismatching words; the first max of them in errs. *bytes: bytes
 * written and read. */
uint64_t mem_check_pass(uint64_t *buf, size_t n, uint64_t seed, struct mem_check_err *errs, size_t max,
			uint64_t *bytes);

/* ---- the suite's state ---- */

struct mem_state {
	struct cache_info caches;
	uint64_t avail;        /* MemAvailable at set-up */
	uint64_t loads;        /* --mem.loads: per repetition, 0 = --time decides */
	uint64_t seed;
	const struct vmb_test *current; /* the test whose buffers are held */
	/* latency: the chain of the current size */
	void *chain;
	size_t chain_len;
	unsigned chain_kib;
	/* tlb: 4 KiB and 2 MiB buffers; huge_ok once smaps confirmed them */
	void *tlb4k, *tlb2m;
	size_t tlb_len;
	enum mem_pages huge_kind;
	bool huge_possible;
	char huge_why[256];
	double huge_frac;
	size_t pf_len; /* pagefault */
	/* integrity */
	uint64_t *check;
	size_t check_len;
	bool locked;
	/* STREAM */
	double *stream;
	size_t stream_n; /* doubles per array */
};

/* Free the buffers a test holds (all of them when keep is NULL). */
void mem_release(struct mem_state *st);

/* The state at the start of a test's repetition: the buffers of another
 * test are freed first, so that a small guest holds one test's at a time. */
struct mem_state *mem_begin(struct vmb_ctx *ctx, const struct vmb_test *test);

/* ---- the tests (mem_lat.c, mem_page.c, mem_check.c): each a vmb_test_fn ---- */

vmb_test_fn mem_run_latency;
vmb_test_fn mem_run_tlb;
vmb_test_fn mem_run_pagefault;
vmb_test_fn mem_run_integrity;

/* Keep a value alive: the compiler must compute it. */
static inline void mem_consume(uint64_t v)
{
	__asm__ volatile("" : : "r"(v) : "memory");
}

#endif
