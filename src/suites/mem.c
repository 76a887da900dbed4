/* Memory suite: bandwidth as STREAM defines it and as sysbench memory does,
 * load latency across the cache hierarchy (mem_lat.c), the TLB and page
 * faults on 4 KiB and 2 MiB pages (mem_page.c), and a memtester-style
 * integrity pass (mem_check.c). This file holds the options, the set-up
 * and the two bandwidth tests. Every loop's result is consumed or checked,
 * so that no compiler can delete the work it measures. */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/mman.h>

#include "../core/clock.h"
#include "mem.h"
#include "../probe/probe.h"
#include "../core/str.h"
#include "../core/banned.h"

#define STREAM_SCALAR 3.0

const char *const mem_kernel_names[MEM_NKERNELS] = { "copy", "scale", "add", "triad" };

uint64_t mem_stream_bytes(enum mem_kernel k, uint64_t n)
{
	static const unsigned arrays[MEM_NKERNELS] = { [MEM_COPY] = 2, [MEM_SCALE] = 2, [MEM_ADD] = 3, [MEM_TRIAD] = 3 };

	return (unsigned)k < MEM_NKERNELS ? arrays[k] * sizeof(double) * n : 0;
}

void mem_stream_expect(unsigned ntimes, double s, double *a, double *b, double *c)
{
	double aj = 1.0, bj = 2.0, cj = 0.0;

	for (unsigned k = 0; k < ntimes; k++) {
		cj = aj;
		bj = s * cj;
		cj = aj + bj;
		aj = bj + s * cj;
	}
	*a = aj;
	*b = bj;
	*c = cj;
}

void mem_release(struct mem_state *st)
{
	mem_unmap(st->chain, st->chain_len);
	st->chain = NULL;
	st->chain_kib = 0;
	mem_unmap(st->tlb4k, st->tlb_len);
	mem_unmap(st->tlb2m, st->tlb_len);
	st->tlb4k = st->tlb2m = NULL;
	if (st->check && st->locked)
		(void)munlock(st->check, st->check_len);
	mem_unmap(st->check, st->check_len);
	st->check = NULL;
	mem_unmap(st->stream, 3 * st->stream_n * sizeof(double));
	st->stream = NULL;
}

/* ---- STREAM ---- */

struct stream_run {
	double *a, *b, *c;
	size_t n;
	unsigned ntimes, nthreads;
	pthread_barrier_t bar;
	uint64_t *times; /* [kernel * ntimes + k], ns, written by worker 0 */
	int bad;         /* workers whose slice failed the check */
};

static void stream_kernel(enum mem_kernel k, double *restrict a, double *restrict b, double *restrict c, size_t lo,
			  size_t hi)
{
	const double s = STREAM_SCALAR;

	switch (k) {
	case MEM_COPY:
		for (size_t j = lo; j < hi; j++)
			c[j] = a[j];
		break;
	case MEM_SCALE:
		for (size_t j = lo; j < hi; j++)
			b[j] = s * c[j];
		break;
	case MEM_ADD:
		for (size_t j = lo; j < hi; j++)
			c[j] = a[j] + b[j];
		break;
	case MEM_TRIAD:
		for (size_t j = lo; j < hi; j++)
			a[j] = b[j] + s * c[j];
		break;
	default:
		break;
	}
}

/* Each worker owns a slice of the arrays (OpenMP's static schedule in
 * STREAM) and initializes it itself, so first touch puts it near it. */
static void stream_worker(struct vmb_worker *w)
{
	struct stream_run *sr = w->arg;
	size_t lo = sr->n * w->id / sr->nthreads, hi = sr->n * (w->id + 1) / sr->nthreads;
	double ea, eb, ec, err = 0;

	for (size_t j = lo; j < hi; j++) {
		sr->a[j] = 1.0;
		sr->b[j] = 2.0;
		sr->c[j] = 0.0;
	}
	vmb_worker_sync(w);
	w->start_ns = clock_ns();
	for (unsigned k = 0; k < sr->ntimes; k++)
		for (int kern = 0; kern < MEM_NKERNELS; kern++) {
			uint64_t t0 = 0;

			(void)pthread_barrier_wait(&sr->bar);
			if (w->id == 0)
				t0 = clock_ns();
			stream_kernel((enum mem_kernel)kern, sr->a, sr->b, sr->c, lo, hi);
			(void)pthread_barrier_wait(&sr->bar);
			if (w->id == 0)
				sr->times[kern * sr->ntimes + k] = clock_ns() - t0;
		}
	w->end_ns = clock_ns();
	/* STREAM's check: the mean relative error of each array, element by element */
	mem_stream_expect(sr->ntimes, STREAM_SCALAR, &ea, &eb, &ec);
	for (size_t j = lo; j < hi; j++)
		err += fabs(sr->a[j] - ea) / ea + fabs(sr->b[j] - eb) / eb + fabs(sr->c[j] - ec) / ec;
	if (hi > lo && !(err / (double)(hi - lo) <= 1e-13))
		__atomic_fetch_add(&sr->bad, 1, __ATOMIC_RELAXED);
}

struct mem_state *mem_begin(struct vmb_ctx *ctx, const struct vmb_test *test)
{
	struct mem_state *st = ctx->priv;

	if (st->current != test) {
		mem_release(st);
		st->current = test;
	}
	return st;
}

static int mem_run_stream(struct vmb_ctx *ctx, const struct vmb_test *test, struct vmb_rep *rep)
{
	struct mem_state *st = mem_begin(ctx, test);
	size_t n = st->stream_n;
	unsigned nt = ctx->threads, ntimes = (unsigned)optset_int(ctx->opts, "ntimes");
	struct stream_run sr = { .n = n, .ntimes = ntimes, .nthreads = nt };
	struct vmb_worker *workers = NULL;
	int r = 0;

	if (!st->stream) {
		r = vmb_fits(ctx, "array-size", "STREAM's three arrays", 3 * (uint64_t)n * sizeof(double), st->avail);
		if (r < 0)
			return r;
		st->stream = mem_map(3 * n * sizeof(double), MEM_PAGES_DEFAULT);
		if (!st->stream)
			return vmb_fail(ctx, -ENOMEM, "STREAM arrays of %zu MiB", (n * sizeof(double)) >> 20);
	}
	sr.a = st->stream;
	sr.b = sr.a + n;
	sr.c = sr.b + n;
	sr.times = calloc((size_t)MEM_NKERNELS * ntimes, sizeof(*sr.times));
	workers = calloc(nt, sizeof(*workers));
	if (!sr.times || !workers || pthread_barrier_init(&sr.bar, NULL, nt) != 0) {
		free(sr.times);
		free(workers);
		return vmb_fail(ctx, -ENOMEM, "%u STREAM workers", nt);
	}
	for (unsigned i = 0; i < nt; i++)
		workers[i].arg = &sr;
	r = vmb_parallel(ctx, nt, stream_worker, workers);
	if (r < 0) {
		if (!ctx->reason[0])
			r = vmb_fail(ctx, r, "starting %u STREAM workers", nt);
		goto out;
	}
	if (sr.bad) {
		r = vmb_fail(ctx, -EIO, "STREAM's arrays hold wrong values after %u passes (%d slices)", ntimes, sr.bad);
		goto out;
	}
	/* the best rate from the minimum time, the first pass not counted */
	for (int k = 0; k < MEM_NKERNELS && r == 0; k++) {
		uint64_t best = UINT64_MAX;
		char name[32];

		for (unsigned i = 1; i < ntimes; i++)
			if (sr.times[k * ntimes + i] < best)
				best = sr.times[k * ntimes + i];
		snprintf(name, sizeof(name), "%s_mb_per_s", mem_kernel_names[k]);
		vmb_rep_value(rep, name, VMB_UNIT_MB_PER_S, VMB_HIGHER,
			      (double)mem_stream_bytes((enum mem_kernel)k, n) / (double)(best ? best : 1) * 1e3);
	}
out:
	(void)pthread_barrier_destroy(&sr.bar);
	free(sr.times);
	free(workers);
	return r;
}

/* ---- sysbench memory ---- */

struct sb_run {
	uint8_t *global; /* --mem.scope global: one block all threads share */
	size_t block;
	uint64_t quota; /* events per thread: total / block / threads, as sysbench 1.0.20 */
	bool write, rnd;
	double duration_s;
	_Atomic uint64_t *slots; /* sysbench's histogram: SB_HSLOTS x SB_HSIZE */
};

struct sb_worker {
	struct sb_run *run;
	uint64_t events;
	struct hist hist;
};

/* sysbench's accesses are Concurrency Kit's ck_pr_load_64/ck_pr_store_64:
 * one asm instruction each with a memory clobber, which the compiler can
 * neither drop nor merge, nor simplify the loop around. The same here. */
#if defined(__x86_64__)
static inline size_t sb_load(const size_t *p)
{
	size_t r;

	__asm__ __volatile__("movq %1, %0" : "=r"(r) : "m"(*p) : "memory");
	return r;
}

static inline void sb_store(size_t *p, size_t v)
{
	__asm__ __volatile__("movq %1, %0" : "=m"(*p) : "r"(v) : "memory");
}
#else
static inline size_t sb_load(const size_t *p)
{
	return *(const volatile size_t *)p;
}

static inline void sb_store(size_t *p, size_t v)
{
	*(volatile size_t *)p = v;
}
#endif

/* One sysbench 1.0.20 event: the whole block once, one size_t at a time,
 * in order (storing end - p, as sysbench) or at uniform random offsets. */
static void sb_event(const struct sb_run *run, size_t *buf, uint64_t *rng)
{
	size_t n = run->block / sizeof(size_t), *end = buf + n;

	/* sysbench is built with -O3 -funroll-loops: its loops run unrolled */
	if (!run->rnd) {
		if (run->write) {
#pragma GCC unroll 8
			for (size_t *p = buf; p < end; p++)
				sb_store(p, (size_t)(end - p));
		} else {
#pragma GCC unroll 8
			for (size_t *p = buf; p < end; p++)
				(void)sb_load(p);
		}
		return;
	}
	for (size_t i = 0; i < n; i++) {
		uint64_t x = *rng;
		size_t off;

		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		*rng = x;
		off = (size_t)(((unsigned __int128)x * n) >> 64);
		if (run->write)
			sb_store(buf + off, i * sizeof(size_t));
		else
			(void)sb_load(buf + off);
	}
}

/* sysbench 1.0.20's bookkeeping around each event, done as it does it:
 * its per-thread timer is taken and released (a spinlock) around each of
 * the two clock reads, and the latency goes into a 1024-bucket log-scale
 * histogram (log(), a random one of 128 shared slot arrays, an atomic
 * increment). At a 1 KiB block this costs as much as the event itself, so
 * a figure that is to sit beside sysbench's must pay it too. */
#define SB_HSLOTS 128
#define SB_HSIZE 1024

struct sb_timer {
	atomic_flag lock;
	uint64_t start, events, sum, min, max;
};

static void sb_lock(atomic_flag *l)
{
	while (atomic_flag_test_and_set_explicit(l, memory_order_acquire))
		;
}

static void sb_unlock(atomic_flag *l)
{
	atomic_flag_clear_explicit(l, memory_order_release);
}

static void sb_book(struct sb_run *run, uint64_t elapsed, uint64_t *rng)
{
	/* sysbench's histogram: 0.001 ms to 100 s, log scale */
	static const double deduct = -6.907755278982137 /* log(0.001) */,
			    mult = (SB_HSIZE - 1) / (11.512925464970229 /* log(1e5) */ + 6.907755278982137);
	uint64_t x = *rng;
	double ms = (double)elapsed / 1e6;
	long i;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	*rng = x;
	i = ms > 0 ? (long)floor((log(ms) - deduct) * mult + 0.5) : 0;
	i = i < 0 ? 0 : i >= SB_HSIZE ? SB_HSIZE - 1 : i;
	atomic_fetch_add_explicit(&run->slots[(x % SB_HSLOTS) * SB_HSIZE + (size_t)i], 1, memory_order_relaxed);
}

/* sysbench's thread loop: check the time limit (a clock read), take the
 * next event from the thread's quota, time the event (two more, each under
 * the timer's lock) and book it. */
static void sb_worker_fn(struct vmb_worker *w)
{
	struct sb_worker *sw = w->arg;
	struct sb_run *run = sw->run;
	size_t *buf = (size_t *)run->global;
	uint64_t rng = 0x2545f4914f6cdd1dull ^ ((uint64_t)w->id << 32), deadline;
	struct sb_timer tm = { .lock = ATOMIC_FLAG_INIT, .min = UINT64_MAX };

	if (!buf) {
		buf = aligned_alloc(4096, (run->block + 4095) & ~(size_t)4095);
		if (!buf)
			w->err = -ENOMEM;
		else
			memset(buf, 0, run->block);
	}
	vmb_worker_sync(w);
	if (w->err < 0)
		return;
	w->start_ns = clock_ns();
	deadline = w->start_ns + (uint64_t)(run->duration_s * NSEC_PER_SEC);
	w->end_ns = w->start_ns;
	while (clock_ns() < deadline && sw->events < run->quota && !vmb_stop_requested()) {
		uint64_t elapsed;

		sb_lock(&tm.lock);
		tm.start = clock_ns();
		sb_unlock(&tm.lock);
		sb_event(run, buf, &rng);
		sb_lock(&tm.lock);
		w->end_ns = clock_ns();
		elapsed = w->end_ns - tm.start;
		tm.events++;
		tm.sum += elapsed;
		tm.min = elapsed < tm.min ? elapsed : tm.min;
		tm.max = elapsed > tm.max ? elapsed : tm.max;
		sb_unlock(&tm.lock);
		sb_book(run, elapsed, &rng);
		hist_record(&sw->hist, elapsed);
		sw->events++;
	}
	mem_consume(tm.sum);
	if (!run->global)
		free(buf);
}

static int mem_run_sysbench(struct vmb_ctx *ctx, const struct vmb_test *test, struct vmb_rep *rep)
{
	(void)mem_begin(ctx, test); /* frees the previous test's buffers */
	unsigned nt = ctx->threads;
	struct sb_run run = {
		.block = optset_size(ctx->opts, "block-size"),
		.quota = optset_size(ctx->opts, "total-size") / optset_size(ctx->opts, "block-size") / nt,
		.write = !strcmp(optset_str(ctx->opts, "oper"), "write"),
		.rnd = !strcmp(optset_str(ctx->opts, "access"), "rnd"),
		.duration_s = ctx->duration_s,
	};
	struct vmb_worker *workers = calloc(nt, sizeof(*workers));
	struct sb_worker *sw = calloc(nt, sizeof(*sw));
	struct hist *all = hist_new();
	uint64_t start = UINT64_MAX, end = 0, events = 0;
	double window;
	int r;

	run.slots = calloc((size_t)SB_HSLOTS * SB_HSIZE, sizeof(*run.slots));
	if (!workers || !sw || !all || !run.slots) {
		r = vmb_fail(ctx, -ENOMEM, "%u workers", nt);
		goto out;
	}
	if (!strcmp(optset_str(ctx->opts, "scope"), "global")) {
		run.global = aligned_alloc(4096, (run.block + 4095) & ~(size_t)4095);
		if (!run.global) {
			r = vmb_fail(ctx, -ENOMEM, "a block of %zu bytes", run.block);
			goto out;
		}
		memset(run.global, 0, run.block);
	}
	for (unsigned i = 0; i < nt; i++) {
		sw[i].run = &run;
		workers[i].arg = &sw[i];
	}
	r = vmb_parallel(ctx, nt, sb_worker_fn, workers);
	if (r < 0) {
		if (!ctx->reason[0])
			r = vmb_fail(ctx, r, "starting %u worker threads", nt);
		goto out;
	}
	for (unsigned i = 0; i < nt; i++) {
		if (workers[i].err < 0) {
			r = vmb_fail(ctx, workers[i].err, "worker %u's block", i);
			goto out;
		}
		start = workers[i].start_ns < start ? workers[i].start_ns : start;
		end = workers[i].end_ns > end ? workers[i].end_ns : end;
		events += sw[i].events;
		hist_merge(all, &sw[i].hist);
	}
	window = (double)(end - start) / NSEC_PER_SEC;
	if (!events || !(window > 0)) {
		r = vmb_fail(ctx, -EIO, "no complete event in %.3f s", ctx->duration_s);
		goto out;
	}
	/* the names and units `vmbench import` gives sysbench's own output */
	vmb_rep_value(rep, "mb_per_s", VMB_UNIT_MB_PER_S, VMB_HIGHER, (double)events * (double)run.block / window / 1e6);
	vmb_rep_value(rep, "mib_per_s", VMB_UNIT_MIB_PER_S, VMB_HIGHER,
		      (double)events * (double)run.block / window / 1048576.0);
	vmb_rep_value(rep, "ops_per_s", VMB_UNIT_PER_S, VMB_HIGHER, (double)events / window);
	vmb_rep_hist(rep, "latency", VMB_UNIT_NS, all);
out:
	free(run.global);
	free((void *)run.slots);
	free(workers);
	free(sw);
	hist_free(all);
	return r;
}

/* ---- the suite ---- */


/* Where each working set sits: the cache level it fits in, or DRAM. */
static const char *level_of(const struct cache_info *c, uint64_t bytes)
{
	if (!cache_llc(c))
		return "unknown";
	for (int lv = 0; lv < CACHE_NLEVELS; lv++)
		if (c->size[lv] && bytes <= c->size[lv])
			return cache_level_names[lv];
	return bytes >= 4 * cache_llc(c) ? "DRAM" : "DRAM (below 4x the last-level cache: partly cached)";
}

uint64_t mem_stream_default(uint64_t avail, bool quick)
{
	uint64_t a = avail ? avail / 8 : 256ull << 20;

	if (a > (1ull << 30))
		a = 1ull << 30;
	if (quick)
		a /= 4;
	a &= ~((1ull << 20) - 1);
	return a ? a : 1ull << 20;
}

/* "L1d 48 KiB (sysfs), L2 unknown, ..." and what was not trusted */
static int note_cache_sources(struct vmb_ctx *ctx, const struct cache_info *c)
{
	char buf[480] = "";
	size_t off = 0;
	int r;

	for (int lv = 0; lv < CACHE_NLEVELS; lv++)
		if (c->size[lv])
			str_appendf(buf, sizeof(buf), &off, "%s %llu KiB (%s), ", cache_level_names[lv],
				    (unsigned long long)(c->size[lv] >> 10), c->source[lv]);
		else
			str_appendf(buf, sizeof(buf), &off, "%s unknown, ", cache_level_names[lv]);
	str_appendf(buf, sizeof(buf), &off, "line %llu B (%s)", (unsigned long long)c->line, c->line_source);
	r = vmb_note(ctx, "caches", "%s", buf);
	if (r < 0 || !c->nrejected)
		return r;
	buf[0] = '\0';
	off = 0;
	for (size_t i = 0; i < c->nrejected; i++)
		str_appendf(buf, sizeof(buf), &off, "%s%s %llu KiB from %s: %s", i ? "; " : "",
			    cache_level_names[c->rejected[i].level], (unsigned long long)(c->rejected[i].size >> 10),
			    c->rejected[i].source, c->rejected[i].why);
	return vmb_note(ctx, "caches_rejected", "%s", buf);
}

/* Record the cache sizes and where each latency size sits; the report marks
 * the cache sizes on the latency curve (notes "marks_sizes", in KiB). */
static int note_caches(struct vmb_ctx *ctx, const struct mem_state *st)
{
	const struct cache_info *c = &st->caches;
	const struct opt_value *sizes = optset_get(ctx->opts, "sizes");
	char buf[480] = "";
	size_t off = 0;
	unsigned max = 0;
	int r = note_cache_sources(ctx, c);

	if (r == 0 && !cache_llc(c))
		return vmb_note(ctx, "latency_levels", "unknown: no source knows the cache sizes (sysfs, CPUID, "
						       "/proc/cpuinfo, sysconf), so the sizes sweep is measured but "
						       "cannot say which sizes are cache and which DRAM");
	if (r == 0)
		r = vmb_note(ctx, "marks_sizes", "L1d=%llu,L2=%llu,L3=%llu", (unsigned long long)(c->size[CACHE_L1D] >> 10),
			     (unsigned long long)(c->size[CACHE_L2] >> 10), (unsigned long long)(c->size[CACHE_L3] >> 10));
	for (size_t i = 0; r == 0 && i < sizes->nlist; i++) {
		const char *lv = level_of(c, (uint64_t)sizes->list[i] << 10);

		str_appendf(buf, sizeof(buf), &off, "%s%u:%.4s", i ? "," : "", sizes->list[i], lv);
		if (sizes->list[i] > max)
			max = sizes->list[i];
	}
	if (r == 0)
		r = vmb_note(ctx, "latency_levels", "%s", buf);
	if (r == 0 && ((uint64_t)max << 10) < 4 * cache_llc(c))
		r = vmb_note(ctx, "latency_dram", "none: the largest size, %u KiB, is below 4x the last-level cache "
						  "(%llu KiB): no size measures DRAM alone",
			     max, (unsigned long long)(4 * cache_llc(c) >> 10));
	return r;
}

static int mem_setup(struct vmb_ctx *ctx)
{
	struct mem_state *st = calloc(1, sizeof(*st));
	const char *thp = optset_str(ctx->opts, "thp"), *sys;
	uint64_t array = optset_size(ctx->opts, "array-size"), llc, block;
	bool llc_unknown = false;
	int r;

	if (!st)
		return vmb_fail(ctx, -ENOMEM, "memory suite state");
	ctx->priv = st;
	/* the machine's, or the recorded one a test build is pointed at */
	cache_read(probe_machine_root(), &st->caches);
	st->avail = probe_mem_available("/");
	st->loads = (uint64_t)optset_int(ctx->opts, "loads");
	st->seed = (uint64_t)optset_int(ctx->opts, "seed");
	st->tlb_len = (size_t)optset_size(ctx->opts, "tlb-size");
	st->pf_len = (size_t)optset_size(ctx->opts, "pagefault-size");
	st->check_len = (size_t)optset_size(ctx->opts, "integrity-size");
	llc = cache_llc(&st->caches);
	if (st->tlb_len % (2u << 20) || st->pf_len % (2u << 20))
		return vmb_usage(ctx, "--mem.tlb-size and --mem.pagefault-size must be multiples of 2 MiB (%zu and %zu "
				      "KiB are not both)", st->tlb_len >> 10, st->pf_len >> 10);
	if (st->check_len % 4096)
		return vmb_usage(ctx, "--mem.integrity-size must be a multiple of 4 KiB (%zu bytes is not)", st->check_len);

	/* THP is the system's: recorded, and a run that expects another setting is refused */
	sys = mem_thp_setting("/");
	if (strcmp(thp, "system") && strcmp(thp, sys))
		return vmb_usage(ctx, "--mem.thp %s: transparent huge pages are '%s' here "
				      "(/sys/kernel/mm/transparent_hugepage/enabled); set them as root or drop the option",
				 thp, sys);
	r = vmb_param_actual(ctx, "thp", "%s", sys);
	if (r < 0)
		return r;
	st->huge_possible = mem_huge_choose(optset_str(ctx->opts, "huge"), st->tlb_len, &st->huge_kind, st->huge_why,
					    sizeof(st->huge_why)) == 0;
	r = vmb_param_actual(ctx, "huge", "%s", st->huge_possible ? mem_pages_names[st->huge_kind] : "none");
	if (r < 0)
		return r;

	/* STREAM: each array at least 4x the last-level cache; 0 picks that. A
	 * machine whose cache no source knows still measures, with arrays as
	 * large as its memory comfortably allows, and says so beside the figure. */
	if (!array && !llc) {
		array = mem_stream_default(st->avail, ctx->env && ctx->env->quick);
		llc_unknown = true;
	} else if (!array) {
		/* --quick: one last-level cache each (the note says it is below the rule) */
		array = ctx->env && ctx->env->quick ? llc : 4 * llc;
	} else if (llc && 3 * array <= llc)
		return vmb_usage(ctx, "--mem.array-size %llu KiB: STREAM's three arrays fit in the %llu KiB last-level "
				      "cache, a cache figure and not DRAM; use at least %llu KiB (4x, STREAM's rule), or 0",
				 (unsigned long long)(array >> 10), (unsigned long long)(llc >> 10),
				 (unsigned long long)(4 * llc >> 10));
	st->stream_n = (size_t)(array / sizeof(double));
	r = vmb_param_actual(ctx, "array-size", "%llu", (unsigned long long)st->stream_n * sizeof(double));
	if (r == 0 && llc_unknown)
		r = vmb_note(ctx, "stream_rule", "last-level cache unknown: arrays of %llu MiB; on a CPU with more than "
						 "%llu MiB of cache this figure is a cache figure",
			     (unsigned long long)(array >> 20), (unsigned long long)(array >> 22));
	if (r == 0 && llc && array < 4 * llc)
		r = vmb_note(ctx, "stream_rule", "arrays of %llu KiB are below STREAM's rule of 4x the %llu KiB "
						 "last-level cache: partly a cache figure",
			     (unsigned long long)(array >> 10), (unsigned long long)(llc >> 10));
	if (r == 0)
		r = note_caches(ctx, st);
	/* sysbench's buffer is its block: say which cache holds it */
	block = optset_size(ctx->opts, "block-size");
	if (block & (block - 1))
		return vmb_usage(ctx, "--mem.block-size %llu: a power of two, as sysbench's --memory-block-size",
				 (unsigned long long)block);
	if (r == 0 && !llc)
		r = vmb_note(ctx, "sysbench_memory_level",
			     "the %llu-byte block per thread sits in a cache level unknown here (no source knows the "
			     "cache sizes), as sysbench's own", (unsigned long long)block);
	else if (r == 0)
		r = vmb_note(ctx, "sysbench_memory_level",
			     "the %llu-byte block per thread sits in %s: %s, as sysbench's own",
			     (unsigned long long)block, level_of(&st->caches, block),
			     !strncmp(level_of(&st->caches, block), "DRAM", 4) ? "a DRAM figure" : "a cache figure, not DRAM");
	return r;
}

static void mem_teardown(struct vmb_ctx *ctx)
{
	struct mem_state *st = ctx->priv;

	if (!st)
		return;
	mem_release(st);
	free(st);
	ctx->priv = NULL;
}

static const struct vmb_test mem_tests[] = {
	{ .name = "bandwidth", .summary = "STREAM copy, scale, add, triad: best MB/s (10^6 B/s) of --mem.ntimes passes",
	  .headline = "triad_mb_per_s,copy_mb_per_s", .flags = VMB_TEST_THREADED | VMB_TEST_UNTIMED,
	  .params = "array-size,ntimes,thp",
	  .run = mem_run_stream },
	{ .name = "sysbench_memory",
	  .summary = "sysbench memory's event: one block per thread, read or written whole; MB/s and MiB/s",
	  .headline = "mb_per_s", .flags = VMB_TEST_THREADED, .params = "oper,block-size,total-size,access,scope",
	  .run = mem_run_sysbench },
	{ .name = "latency", .summary = "dependent loads through a random cyclic chain, ns per load, per --mem.sizes",
	  .headline = "ns_per_load", .sweep = "sizes", .params = "thp", .run = mem_run_latency },
	{ .name = "tlb", .summary = "dependent random 8-byte reads on 4 KiB and on 2 MiB pages (smaps-checked)",
	  .headline = "ns_per_access_4k", .params = "tlb-size,thp,huge", .run = mem_run_tlb },
	{ .name = "pagefault", .summary = "first touch, MADV_DONTNEED and munmap per 4 KiB page, first touch per 2 MiB",
	  .headline = "fault_4k_ns", .params = "pagefault-size,thp,huge", .run = mem_run_pagefault },
	{ .name = "integrity", .summary = "memtester-style patterns over locked memory; any error fails the test",
	  .headline = "checked_mb_per_s", .params = "integrity-size", .run = mem_run_integrity },
	{ .name = NULL },
};

static const struct vmb_opt mem_opts[] = {
	{ .name = "array-size", .type = OPT_SIZE, .min = 0, .max = 1ull << 40, .def = "0",
	  .metavar = "SIZE",
	  .help = "bandwidth: bytes of each STREAM array; 0 = 4x the last-level cache (STREAM's rule), under --quick 1x; "
		  "where no source knows the cache, min(1 GiB, MemAvailable/8), under --quick a quarter" },
	{ .name = "ntimes", .type = OPT_INT, .min = 2, .max = 1000, .def = "10", .quick = "3", .metavar = "N",
	  .help = "bandwidth: passes of the four kernels per repetition, the first not counted (STREAM's NTIMES)" },
	{ .name = "block-size", .type = OPT_SIZE, .min = 8, .max = 1ull << 32, .def = "1k", .metavar = "SIZE",
	  .help = "sysbench_memory: the block each thread processes per event (--memory-block-size)" },
	{ .name = "total-size", .type = OPT_SIZE, .min = 8, .max = 1ull << 62, .def = "100g", .quick = "256m",
	  .metavar = "SIZE",
	  .help = "sysbench_memory: stop after this many bytes, or when --time runs out (--memory-total-size)" },
	{ .name = "oper", .type = OPT_STRING, .def = "write", .choices = "read|write", .metavar = "OPER",
	  .help = "sysbench_memory: read or write the block (--memory-oper)" },
	{ .name = "access", .type = OPT_STRING, .def = "seq", .choices = "seq|rnd", .metavar = "MODE",
	  .help = "sysbench_memory: sequential or random order in the block (--memory-access-mode)" },
	{ .name = "scope", .type = OPT_STRING, .def = "global", .choices = "global|local", .metavar = "SCOPE",
	  .help = "sysbench_memory: one block shared by all threads, or one each (--memory-scope)" },
	{ .name = "sizes", .type = OPT_LIST, .min = 4, .max = 1u << 30,
	  .def = "4,8,16,32,64,128,256,512,1024,2048,4096,8192,16384,32768,65536,131072,262144",
	  .quick = "16,512,8192,131072", .metavar = "KIB",
	  .help = "latency: working-set sizes in KiB, from the L1 cache to beyond 4x the last-level cache" },
	{ .name = "loads", .type = OPT_INT, .min = 0, .max = 1ll << 40, .def = "0", .quick = "100000", .metavar = "N",
	  .help = "latency, tlb: loads per repetition; 0 = as many as --time allows" },
	{ .name = "seed", .type = OPT_INT, .min = 0, .max = 1ll << 62, .def = "1", .metavar = "N",
	  .help = "latency: the chain's random order (a second seed checks the first)" },
	{ .name = "tlb-size", .type = OPT_SIZE, .min = 4 << 20, .max = 1ull << 40, .def = "1g", .quick = "64m",
	  .metavar = "SIZE", .help = "tlb: bytes read at random, far beyond the TLB's reach; a multiple of 2 MiB" },
	{ .name = "huge", .type = OPT_STRING, .def = "auto", .choices = "auto|hugetlb|thp", .metavar = "KIND",
	  .help = "tlb, pagefault: 2 MiB pages from hugetlb (reserved, vm.nr_hugepages) or THP; auto = hugetlb when "
		  "enough are free" },
	{ .name = "thp", .type = OPT_STRING, .def = "system", .choices = "system|always|madvise|never",
	  .metavar = "SETTING",
	  .help = "the THP setting the run expects (refused when the system's differs); recorded either way" },
	{ .name = "pagefault-size", .type = OPT_SIZE, .min = 4 << 20, .max = 1ull << 40, .def = "256m", .quick = "32m",
	  .metavar = "SIZE", .help = "pagefault: bytes touched per repetition; a multiple of 2 MiB" },
	{ .name = "integrity-size", .type = OPT_SIZE, .min = 4096, .max = 1ull << 40, .def = "32m", .quick = "1m",
	  .metavar = "SIZE", .help = "integrity: bytes of locked memory tested (mlock; RLIMIT_MEMLOCK may refuse)" },
	OPT_TABLE_END,
};

const struct vmb_suite mem_suite = {
	.name = "mem",
	.summary = "memory: STREAM and sysbench bandwidth, latency curve, TLB 4K vs 2M, page faults, integrity",
	.abi = VMB_SUITE_ABI,
	.tests = mem_tests,
	.opts = mem_opts,
	.setup = mem_setup,
	.teardown = mem_teardown,
};
