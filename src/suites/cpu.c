/* CPU suite: sysbench's prime event, a double-precision matrix multiply,
 * zlib compression. Each test runs on every --threads count; the runner adds
 * parallel efficiency. Every computation's result is checked against a known
 * answer, which both proves it was done right and keeps the compiler from
 * deleting it (sysbench's own prime loop is dead code to clang). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "../core/clock.h"
#include "../core/suite.h"
#include "../core/banned.h"

struct cpu_state {
	uint64_t max_prime;
	uint64_t primes_expected; /* primes in [3, max_prime), from a sieve */
	unsigned matrix_n;
	size_t zlib_size;
	int zlib_level;
};

/* One thread's buffers for its kind of event, set up outside the window. */
struct cpu_scratch {
	double *a, *b, *c, expect_trace;
	unsigned char *in, *out;
	uLong out_cap, expect_len;
	z_stream zs;
	bool zinit;
};

/* A kind of event (fio's ioengine_ops, for computations): prepare is per
 * thread and outside the measured window (0 or -ENOMEM); event does one and
 * says whether its result differs from the known answer; release frees
 * what prepare made, also after a failed prepare. */
struct cpu_kind {
	int (*prepare)(const struct cpu_state *st, struct cpu_scratch *s);
	bool (*event)(const struct cpu_state *st, struct cpu_scratch *s);
	void (*release)(struct cpu_scratch *s);
};

struct cpu_worker {
	const struct cpu_state *st;
	const struct cpu_kind *kind;
	double duration_s;
	uint64_t events;
	double work; /* flops or bytes done, for the rate */
	int bad;     /* a result that differs from the known answer */
	struct hist hist;
};

/* Exactly sysbench 1.0's cpu event (cpu_execute_event): trial division of
 * every c in [3, max_prime) by 2..sqrt(c), in 64-bit integers. */
static uint64_t prime_event(uint64_t max_prime)
{
	uint64_t n = 0;

	for (uint64_t c = 3; c < max_prime; c++) {
		double t = sqrt((double)c);
		uint64_t l;

		for (l = 2; l <= t; l++)
			if (c % l == 0)
				break;
		if (l > t)
			n++;
	}
	return n;
}

static int count_primes(uint64_t below, uint64_t *out)
{
	unsigned char *composite;
	uint64_t n = 0;

	if (below < 3) {
		*out = 0;
		return 0;
	}
	composite = calloc(below, 1);
	if (!composite)
		return -ENOMEM;
	for (uint64_t i = 2; i * i < below; i++)
		if (!composite[i])
			for (uint64_t j = i * i; j < below; j += i)
				composite[j] = 1;
	for (uint64_t i = 3; i < below; i++)
		n += !composite[i];
	free(composite);
	*out = n;
	return 0;
}

/* Deterministic text-like corpus: words from a fixed list chosen by xorshift,
 * so zlib sees a realistic ~3:1 ratio and every run compresses the same bytes. */
static void make_corpus(unsigned char *buf, size_t len)
{
	static const char *const words[] = {
		"the", "virtual", "machine", "kernel", "guest", "host", "disk", "queue",
		"latency", "throughput", "interrupt", "page", "cache", "memory", "thread",
		"of", "and", "to", "in", "is", "for", "with", "on", "scheduler", "device",
		"driver", "block", "network", "packet", "timer", "clock", "exit",
	};
	uint64_t x = 0x9e3779b97f4a7c15ull;
	size_t off = 0;

	while (off < len) {
		const char *w;
		size_t wl;

		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		w = words[x % (sizeof(words) / sizeof(words[0]))];
		wl = strlen(w);
		for (size_t i = 0; i < wl && off < len; i++)
			buf[off++] = (unsigned char)w[i];
		if (off < len)
			buf[off++] = (x >> 32) % 11 == 0 ? '\n' : ' ';
		if (off < len && (x >> 40) % 17 == 0)
			buf[off++] = (unsigned char)('0' + (x >> 48) % 10);
	}
}

static void matrix_init(double *a, double *b, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		for (unsigned j = 0; j < n; j++) {
			a[i * n + j] = (double)((i + j) % 7) * 0.5;
			b[i * n + j] = (double)((i * j) % 5) * 0.25;
		}
}

/* C = A * B, i-k-j order so the inner loop streams rows and vectorizes. */
static double matrix_event(const double *restrict a, const double *restrict b, double *restrict c, unsigned n)
{
	double trace = 0;

	memset(c, 0, (size_t)n * n * sizeof(*c));
	for (unsigned i = 0; i < n; i++)
		for (unsigned k = 0; k < n; k++) {
			double aik = a[i * n + k];
			const double *restrict brow = &b[k * n];
			double *restrict crow = &c[i * n];

			for (unsigned j = 0; j < n; j++)
				crow[j] += aik * brow[j];
		}
	for (unsigned i = 0; i < n; i++)
		trace += c[i * n + i];
	return trace;
}

static int prime_prepare(const struct cpu_state *st, struct cpu_scratch *s)
{
	(void)st;
	(void)s;
	return 0;
}

static bool prime_one(const struct cpu_state *st, struct cpu_scratch *s)
{
	(void)s;
	return prime_event(st->max_prime) != st->primes_expected;
}

static void nothing_to_release(struct cpu_scratch *s)
{
	(void)s;
}

static int matrix_prepare(const struct cpu_state *st, struct cpu_scratch *s)
{
	size_t n2 = (size_t)st->matrix_n * st->matrix_n;

	s->a = malloc(n2 * sizeof(*s->a));
	s->b = malloc(n2 * sizeof(*s->b));
	s->c = malloc(n2 * sizeof(*s->c));
	if (!s->a || !s->b || !s->c)
		return -ENOMEM;
	matrix_init(s->a, s->b, st->matrix_n);
	s->expect_trace = matrix_event(s->a, s->b, s->c, st->matrix_n);
	return 0;
}

static bool matrix_one(const struct cpu_state *st, struct cpu_scratch *s)
{
	return matrix_event(s->a, s->b, s->c, st->matrix_n) != s->expect_trace;
}

static void matrix_release(struct cpu_scratch *s)
{
	free(s->a);
	free(s->b);
	free(s->c);
}

static int zlib_prepare(const struct cpu_state *st, struct cpu_scratch *s)
{
	s->in = malloc(st->zlib_size);
	s->out_cap = compressBound((uLong)st->zlib_size);
	s->out = malloc(s->out_cap);
	if (!s->in || !s->out || deflateInit(&s->zs, st->zlib_level) != Z_OK)
		return -ENOMEM;
	s->zinit = true;
	make_corpus(s->in, st->zlib_size);
	return 0;
}

/* every deflate of the same corpus must come out the same length */
static bool zlib_one(const struct cpu_state *st, struct cpu_scratch *s)
{
	bool bad;

	s->zs.next_in = s->in;
	s->zs.avail_in = (uInt)st->zlib_size;
	s->zs.next_out = s->out;
	s->zs.avail_out = (uInt)s->out_cap;
	bad = deflate(&s->zs, Z_FINISH) != Z_STREAM_END;
	if (s->expect_len == 0)
		s->expect_len = s->zs.total_out;
	bad |= s->zs.total_out != s->expect_len;
	(void)deflateReset(&s->zs);
	return bad;
}

static void zlib_release(struct cpu_scratch *s)
{
	if (s->zinit)
		(void)deflateEnd(&s->zs);
	free(s->in);
	free(s->out);
}

static const struct cpu_kind cpu_prime = { .prepare = prime_prepare, .event = prime_one,
					   .release = nothing_to_release };
static const struct cpu_kind cpu_matrix = { .prepare = matrix_prepare, .event = matrix_one, .release = matrix_release };
static const struct cpu_kind cpu_zlib = { .prepare = zlib_prepare, .event = zlib_one, .release = zlib_release };

static void cpu_worker_fn(struct vmb_worker *w)
{
	struct cpu_worker *cw = w->arg;
	const struct cpu_state *st = cw->st;
	struct cpu_scratch s;
	uint64_t prev, deadline;

	memset(&s, 0, sizeof(s));
	/* Per-thread set-up, outside the measured window. */
	w->err = cw->kind->prepare(st, &s);
	vmb_worker_sync(w);
	if (w->err < 0)
		goto out;

	prev = w->start_ns = clock_ns();
	deadline = prev + (uint64_t)(cw->duration_s * NSEC_PER_SEC);
	for (;;) {
		uint64_t now;

		cw->bad |= cw->kind->event(st, &s);
		now = clock_ns();
		hist_record(&cw->hist, now - prev);
		cw->events++;
		prev = now;
		if (now >= deadline || vmb_stop_requested())
			break;
	}
	w->end_ns = prev;
out:
	cw->kind->release(&s);
}

static int cpu_setup(struct vmb_ctx *ctx)
{
	struct cpu_state *st = calloc(1, sizeof(*st));
	int r;

	if (!st)
		return vmb_fail(ctx, -ENOMEM, "cpu state");
	st->max_prime = (uint64_t)optset_int(ctx->opts, "max-prime");
	st->matrix_n = (unsigned)optset_int(ctx->opts, "matrix-size");
	st->zlib_size = (size_t)optset_size(ctx->opts, "zlib-size");
	st->zlib_level = (int)optset_int(ctx->opts, "zlib-level");
	r = count_primes(st->max_prime, &st->primes_expected);
	if (r < 0) {
		unsigned long long max_prime = st->max_prime;

		free(st);
		return vmb_fail(ctx, r, "prime sieve up to %llu", max_prime);
	}
	ctx->priv = st;
	return 0;
}

static void cpu_teardown(struct vmb_ctx *ctx)
{
	free(ctx->priv);
	ctx->priv = NULL;
}

/* One repetition of one kind on every thread: the rate of work done
 * (events x work_per_event per second, divided by scale) as metric, then the
 * events' latency. */
static int cpu_measure(struct vmb_ctx *ctx, const struct vmb_test *test, struct vmb_rep *rep,
		       const struct cpu_kind *kind, double work_per_event, double scale, const char *metric,
		       enum vmb_unit unit)
{
	const struct cpu_state *st = ctx->priv;
	unsigned n = ctx->threads;
	struct vmb_worker *workers;
	struct cpu_worker *cw;
	struct hist *all;
	uint64_t start = UINT64_MAX, end = 0, events = 0;
	double window;
	int r, bad = 0;

	workers = calloc(n, sizeof(*workers));
	cw = calloc(n, sizeof(*cw));
	all = hist_new();
	if (!workers || !cw || !all) {
		r = vmb_fail(ctx, -ENOMEM, "%u workers", n);
		goto out;
	}
	for (unsigned i = 0; i < n; i++) {
		cw[i].st = st;
		cw[i].kind = kind;
		cw[i].duration_s = ctx->duration_s;
		workers[i].arg = &cw[i];
	}
	r = vmb_parallel(ctx, n, cpu_worker_fn, workers);
	if (r < 0) {
		if (!ctx->reason[0]) /* vmb_parallel says which thread and CPU */
			r = vmb_fail(ctx, r, "starting %u worker threads", n);
		goto out;
	}
	for (unsigned i = 0; i < n; i++) {
		if (workers[i].start_ns < start)
			start = workers[i].start_ns;
		if (workers[i].end_ns > end)
			end = workers[i].end_ns;
		events += cw[i].events;
		bad |= cw[i].bad;
		hist_merge(all, &cw[i].hist);
	}
	if (bad) {
		r = vmb_fail(ctx, -EIO, "a %s computation gave a wrong result", test->name);
		goto out;
	}
	window = (double)(end - start) / NSEC_PER_SEC;
	if (events == 0 || window <= 0) {
		r = vmb_fail(ctx, -EIO, "no complete event in %.3f s", ctx->duration_s);
		goto out;
	}
	vmb_rep_value(rep, metric, unit, VMB_HIGHER, (double)events * work_per_event / window / scale);
	vmb_rep_hist(rep, "latency", VMB_UNIT_NS, all);
out:
	free(workers);
	free(cw);
	hist_free(all);
	return r;
}

static int cpu_run_prime(struct vmb_ctx *ctx, const struct vmb_test *test, struct vmb_rep *rep)
{
	return cpu_measure(ctx, test, rep, &cpu_prime, 1, 1, "events_per_s", VMB_UNIT_PER_S);
}

/* 2 n^3 floating-point operations per event */
static int cpu_run_matrix(struct vmb_ctx *ctx, const struct vmb_test *test, struct vmb_rep *rep)
{
	const struct cpu_state *st = ctx->priv;

	return cpu_measure(ctx, test, rep, &cpu_matrix, 2.0 * st->matrix_n * st->matrix_n * st->matrix_n, 1e9,
			   "gflops", VMB_UNIT_GFLOPS);
}

/* zlib-size bytes of input per event */
static int cpu_run_zlib(struct vmb_ctx *ctx, const struct vmb_test *test, struct vmb_rep *rep)
{
	const struct cpu_state *st = ctx->priv;

	return cpu_measure(ctx, test, rep, &cpu_zlib, (double)st->zlib_size, 1e6, "mb_per_s", VMB_UNIT_MB_PER_S);
}

static const struct vmb_test cpu_tests[] = {
	{ .name = "prime", .summary = "sysbench-compatible prime events: trial division up to max-prime",
	  .headline = "events_per_s", .flags = VMB_TEST_THREADED, .params = "max-prime", .run = cpu_run_prime },
	{ .name = "matrix", .summary = "double-precision matrix multiply, GFLOP/s",
	  .headline = "gflops", .flags = VMB_TEST_THREADED, .params = "matrix-size", .run = cpu_run_matrix },
	{ .name = "zlib", .summary = "zlib deflate of a deterministic text corpus, input MB/s",
	  .headline = "mb_per_s", .flags = VMB_TEST_THREADED, .params = "zlib-size,zlib-level", .run = cpu_run_zlib },
	{ .name = NULL },
};

static const struct vmb_opt cpu_opts[] = {
	{ .name = "max-prime", .type = OPT_INT, .min = 3, .max = 10000000, .def = "10000", .metavar = "N",
	  .help = "prime: upper limit of the trial division, as sysbench --cpu-max-prime" },
	{ .name = "matrix-size", .type = OPT_INT, .min = 16, .max = 4096, .def = "256", .metavar = "N",
	  .help = "matrix: multiply two N x N matrices per event" },
	{ .name = "zlib-size", .type = OPT_SIZE, .min = 4096, .max = 256 << 20, .def = "1m", .metavar = "SIZE",
	  .help = "zlib: bytes of corpus compressed per event" },
	{ .name = "zlib-level", .type = OPT_INT, .min = 1, .max = 9, .def = "6", .metavar = "N",
	  .help = "zlib: compression level" },
	OPT_TABLE_END,
};

const struct vmb_suite cpu_suite = {
	.name = "cpu",
	.summary = "CPU throughput: prime (sysbench cpu), matrix multiply, zlib",
	.abi = VMB_SUITE_ABI,
	.tests = cpu_tests,
	.opts = cpu_opts,
	.setup = cpu_setup,
	.teardown = cpu_teardown,
};
