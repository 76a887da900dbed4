/* VM-exit suite: what leaving the guest costs, seen from user space inside
 * any guest (or on bare metal, the baseline), and from the host through a
 * minimal KVM virtual machine of vmbench's own (vmexit_kvm.c).
 *
 * Each in-guest test times a loop of one operation whose result is consumed,
 * with as many iterations as fill the repetition's time, and subtracts the
 * same loop without the operation; a figure below that empty loop's own
 * noise is "not measurable", never a number. Which operations trap depends
 * on the hypervisor: cpuid always does under VT-x and AMD-V and never under
 * emulation or on bare metal; rdtsc only where the TSC is intercepted; the
 * clocks only where the clocksource is not served by the vDSO.
 * docs/methodology.md says exactly how each figure is made. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#if defined(__x86_64__) || defined(__i386__)
#include <sys/io.h>
#define VMEXIT_X86 1
#endif

#include "vmexit.h"
#include "../core/clock.h"
#include "../core/file.h"
#include "../core/banned.h"

/* The loops. Each does n operations, keeps every result in its return
 * value, and is not inlined, so the empty loop's frame is the same. */
typedef uint64_t (*vx_loop)(uint64_t n, uint64_t arg);

static __attribute__((noinline)) uint64_t loop_empty(uint64_t n, uint64_t arg)
{
	uint64_t acc = arg;

	for (uint64_t i = 0; i < n; i++) {
		acc += i;
		__asm__ volatile("" : "+r"(acc));
	}
	return acc;
}

static __attribute__((noinline)) uint64_t loop_clock(uint64_t n, uint64_t clk)
{
	uint64_t acc = 0;

	for (uint64_t i = 0; i < n; i++) {
		struct timespec ts;

		(void)clock_gettime((clockid_t)clk, &ts);
		acc += (uint64_t)ts.tv_nsec;
		__asm__ volatile("" : "+r"(acc));
	}
	return acc;
}

static __attribute__((noinline)) uint64_t loop_gettimeofday(uint64_t n, uint64_t arg)
{
	uint64_t acc = arg;

	for (uint64_t i = 0; i < n; i++) {
		struct timeval tv;

		(void)gettimeofday(&tv, NULL);
		acc += (uint64_t)tv.tv_usec;
		__asm__ volatile("" : "+r"(acc));
	}
	return acc;
}

/* getppid: trivial, and never cached by the C library as getpid once was */
static __attribute__((noinline)) uint64_t loop_syscall(uint64_t n, uint64_t arg)
{
	uint64_t acc = arg;

	for (uint64_t i = 0; i < n; i++) {
		acc += (uint64_t)syscall(SYS_getppid);
		__asm__ volatile("" : "+r"(acc));
	}
	return acc;
}

#ifdef VMEXIT_X86
/* leaves 0 and 1 by turns */
static __attribute__((noinline)) uint64_t loop_cpuid(uint64_t n, uint64_t arg)
{
	uint64_t acc = arg;

	for (uint64_t i = 0; i < n; i++) {
		uint32_t a, b, c, d;

		__asm__ volatile("cpuid" : "=a"(a), "=b"(b), "=c"(c), "=d"(d) : "a"((uint32_t)(i & 1)), "c"(0));
		acc += a ^ b ^ c ^ d;
	}
	return acc;
}

static __attribute__((noinline)) uint64_t loop_rdtsc(uint64_t n, uint64_t arg)
{
	uint64_t acc = arg;

	for (uint64_t i = 0; i < n; i++) {
		uint32_t lo, hi;

		__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
		acc += (uint64_t)hi << 32 | lo;
	}
	return acc;
}

static __attribute__((noinline)) uint64_t loop_rdtscp(uint64_t n, uint64_t arg)
{
	uint64_t acc = arg;

	for (uint64_t i = 0; i < n; i++) {
		uint32_t lo, hi, aux;

		__asm__ volatile("rdtscp" : "=a"(lo), "=d"(hi), "=c"(aux));
		acc += ((uint64_t)hi << 32 | lo) ^ aux;
	}
	return acc;
}

static __attribute__((noinline)) uint64_t loop_pio(uint64_t n, uint64_t port)
{
	uint64_t acc = 0;

	for (uint64_t i = 0; i < n; i++)
		acc += inl((unsigned short)port);
	return acc;
}
#endif

#if defined(__aarch64__)
static __attribute__((noinline)) uint64_t loop_cntvct(uint64_t n, uint64_t arg)
{
	uint64_t acc = arg;

	for (uint64_t i = 0; i < n; i++) {
		uint64_t v;

		__asm__ volatile("isb\n\tmrs %0, cntvct_el0" : "=r"(v) : : "memory");
		acc += v;
	}
	return acc;
}
#endif

/* ---- the subtraction ---- */

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

int vmexit_subtract(double op_ns, const double *empty_ns, size_t n, double resolution_ns, double *net,
		    double *floor)
{
	double s[16], lo, hi, med;

	if (n == 0 || n > sizeof(s) / sizeof(s[0]) || !isfinite(op_ns) || !isfinite(resolution_ns) ||
	    resolution_ns < 0)
		return -EINVAL;
	for (size_t i = 0; i < n; i++) {
		if (!isfinite(empty_ns[i]) || empty_ns[i] < 0)
			return -EINVAL;
		s[i] = empty_ns[i];
	}
	qsort(s, n, sizeof(s[0]), cmp_double);
	lo = s[0];
	hi = s[n - 1];
	med = n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
	/* five runs or more: one disturbed run at either end does not widen it */
	if (n >= 5) {
		lo = s[1];
		hi = s[n - 2];
	}
	*net = op_ns - med;
	*floor = fmax(hi - lo, resolution_ns);
	return *net > *floor ? 1 : 0;
}

/* ---- timing a loop ---- */

static volatile uint64_t vx_sink; /* every loop's result ends here */

static double time_loop(vx_loop fn, uint64_t n, uint64_t arg)
{
	uint64_t t0 = clock_ns(), t1;

	vx_sink += fn(n, arg);
	t1 = clock_ns();
	return (double)(t1 - t0);
}

/* How many iterations fill target_s: doubling until a run lasts 1 ms
 * (or a tenth of the target, when that is shorter), then scaled. */
static uint64_t calibrate(vx_loop fn, uint64_t arg, double target_s)
{
	double probe_ns = fmin(1e6, target_s * 1e8), t;
	uint64_t n = 16;

	/* untimed: the first call faults the code in (and, under emulation,
	 * translates it), which once made a single iteration look like 1 ms */
	vx_sink += fn(n, arg);

	for (;;) {
		t = time_loop(fn, n, arg);
		if (t >= probe_ns || n >= (1ull << 40))
			break;
		n *= 2;
	}
	return (uint64_t)fmax(1, fmin((double)n * target_s * NSEC_PER_SEC / fmax(t, 1), 1e12));
}

#define VX_EMPTY_RUNS 5

/* The smallest step the clock shows between two reads. Not clock_getres():
 * a guest kernel without high-resolution timers answers its tick (4 ms)
 * there while the clock itself reads to the nanosecond. */
static double clock_granularity_ns(void)
{
	uint64_t best = UINT64_MAX;

	for (int i = 0; i < 64; i++) {
		uint64_t a = clock_ns(), b;

		do
			b = clock_ns();
		while (b == a);
		if (b - a < best)
			best = b - a;
	}
	return (double)best;
}

struct vx_figure {
	double ns, empty_ns, floor_ns;
	bool measurable;
};

/* One figure: the operation's loop for target_s, the empty loop five times
 * for a tenth of it each, the subtraction. */
static int vx_measure(vx_loop fn, uint64_t arg, double target_s, struct vx_figure *f)
{
	double empty[VX_EMPTY_RUNS], op, res_ns;
	uint64_t n, ne;
	int r;

	res_ns = clock_granularity_ns();
	n = calibrate(fn, arg, target_s);
	op = time_loop(fn, n, arg) / (double)n;
	ne = calibrate(loop_empty, 0, target_s / 10 / VX_EMPTY_RUNS);
	for (int i = 0; i < VX_EMPTY_RUNS; i++)
		empty[i] = time_loop(loop_empty, ne, 0) / (double)ne;
	/* two clock reads bound each run: their resolution, spread over it */
	r = vmexit_subtract(op, empty, VX_EMPTY_RUNS, 2 * res_ns / (double)(n < ne ? n : ne), &f->ns, &f->floor_ns);
	if (r < 0)
		return r;
	f->measurable = r;
	f->empty_ns = op - f->ns; /* the median the subtraction took */
	return 0;
}

/* ---- the tests ---- */

struct vx_state {
	double rep_time;   /* --vmexit.time, 0 = --time */
	unsigned pio_port; /* 0: none */
	char pio_why[160]; /* why pio cannot run */
	struct vmx_memo kvm;
};

/* The ACPI PM timer's port from /proc/ioports ("  0608-060b : ACPI PM_TMR"):
 * 0, or -ENOENT when the machine has none. */
int vmexit_pmtimer_port(const char *text, size_t len, unsigned *port)
{
	static const char tag[] = "ACPI PM_TMR";
	const char *p = text, *end = text + len;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end;
		size_t ll = (size_t)(le - p);

		if (ll >= sizeof(tag) - 1 && !memcmp(le - (sizeof(tag) - 1), tag, sizeof(tag) - 1)) {
			unsigned v = 0;
			int digits = 0;
			const char *q = p;

			while (q < le && *q == ' ')
				q++;
			for (; q < le && digits < 8; q++, digits++) {
				int d = *q >= '0' && *q <= '9' ? *q - '0'
				      : *q >= 'a' && *q <= 'f' ? *q - 'a' + 10
				      : *q >= 'A' && *q <= 'F' ? *q - 'A' + 10 : -1;

				if (d < 0)
					break;
				v = v * 16 + (unsigned)d;
			}
			if (digits > 0 && q < le && *q == '-' && v <= 0xfffc) {
				*port = v;
				return 0;
			}
		}
		p = le + 1;
	}
	return -ENOENT;
}

static void pio_find(struct vx_state *st)
{
#ifdef VMEXIT_X86
	char *text = NULL;
	int r = read_file("/proc/ioports", &text);

	if (r < 0) {
		(void)snprintf(st->pio_why, sizeof(st->pio_why), "cannot read /proc/ioports: %s", strerror(-r));
		return;
	}
	/* unprivileged readers see every range as 0000-0000 */
	if (vmexit_pmtimer_port(text, strlen(text), &st->pio_port) < 0 || st->pio_port == 0) {
		st->pio_port = 0;
		(void)snprintf(st->pio_why, sizeof(st->pio_why), "%s",
			       geteuid() != 0 ? "reading an I/O port needs root (ioperm)"
					      : "no ACPI PM timer port on this machine (none in /proc/ioports)");
	}
	free(text);
#else
	(void)snprintf(st->pio_why, sizeof(st->pio_why), "not applicable on this architecture: no I/O ports");
#endif
}

static int vx_setup(struct vmb_ctx *ctx)
{
	struct vx_state *st = calloc(1, sizeof(*st));
	const struct opt_value *t = optset_get(ctx->opts, "time");
	char cs[64];

	if (!st)
		return vmb_fail(ctx, -ENOMEM, "vmexit state");
	st->rep_time = t->present ? t->d : 0;
	pio_find(st);
	if (read_line_at("/", "/sys/devices/system/clocksource/clocksource0/current_clocksource", cs,
			 sizeof(cs)) < 0)
		(void)snprintf(cs, sizeof(cs), "unknown (no /sys/devices/system/clocksource)");
	(void)vmb_note(ctx, "clocksource", "%s", cs);
	ctx->priv = st;
	return 0;
}

static void vx_teardown(struct vmb_ctx *ctx)
{
	free(ctx->priv);
	ctx->priv = NULL;
}

static int report(struct vmb_ctx *ctx, struct vmb_rep *rep, const char *what, const char *metric,
		  const struct vx_figure *f)
{
	char empty[48];

	if (!f->measurable)
		return vmb_skip(ctx, "not measurable (below %.2f ns): %s costs %.2f ns over the empty loop, "
				"whose own noise is %.2f ns", f->floor_ns, what, f->ns, f->floor_ns);
	if (!isfinite(f->ns) || !isfinite(f->empty_ns))
		return vmb_fail(ctx, -EIO, "%s: a figure that is not finite", what);
	(void)snprintf(empty, sizeof(empty), "%s_empty_loop_ns", metric);
	vmb_rep_value(rep, metric, VMB_UNIT_NS, VMB_LOWER, f->ns);
	vmb_rep_value(rep, !strcmp(metric, "ns") ? "empty_loop_ns" : empty, VMB_UNIT_NS, VMB_LOWER, f->empty_ns);
	return 0;
}

static int one(struct vmb_ctx *ctx, struct vmb_rep *rep, const char *what, vx_loop fn, uint64_t arg, double t)
{
	struct vx_figure f;
	int r = vx_measure(fn, arg, t, &f);

	if (r < 0)
		return vmb_fail(ctx, r, "%s: the empty-loop subtraction", what);
	return report(ctx, rep, what, "ns", &f);
}

/* How long one figure measures: --vmexit.time, at most the repetition's. */
static double vx_time(const struct vmb_ctx *ctx)
{
	const struct vx_state *st = ctx->priv;

	return st->rep_time > 0 && st->rep_time < ctx->duration_s ? st->rep_time : ctx->duration_s;
}

#ifndef VMEXIT_X86
/* An x86 test on another architecture. */
static int vx_not_here(struct vmb_ctx *ctx, const struct vmb_test *test)
{
#if defined(__aarch64__)
	return vmb_skip(ctx, "not applicable on aarch64: %s is x86, without a counterpart there", test->name);
#else
	(void)test;
	return vmb_skip(ctx, "not applicable on this architecture");
#endif
}

/* rdtsc and rdtscp elsewhere than on x86: aarch64 has a counterpart. */
static int vx_not_here_tsc(struct vmb_ctx *ctx, const struct vmb_test *test)
{
#if defined(__aarch64__)
	return vmb_skip(ctx, "not applicable on aarch64: %s is x86 (vmexit.cntvct is its counterpart)", test->name);
#else
	return vx_not_here(ctx, test);
#endif
}
#endif

static int vx_run_cpuid(struct vmb_ctx *ctx, const struct vmb_test *test, struct vmb_rep *rep)
{
#ifdef VMEXIT_X86
	(void)test;
	return one(ctx, rep, "cpuid", loop_cpuid, 0, vx_time(ctx));
#else
	(void)rep;
	return vx_not_here(ctx, test);
#endif
}

static int vx_run_rdtsc(struct vmb_ctx *ctx, const struct vmb_test *test, struct vmb_rep *rep)
{
#ifdef VMEXIT_X86
	(void)test;
	return one(ctx, rep, "rdtsc", loop_rdtsc, 0, vx_time(ctx));
#else
	(void)rep;
	return vx_not_here_tsc(ctx, test);
#endif
}

static int vx_run_rdtscp(struct vmb_ctx *ctx, const struct vmb_test *test, struct vmb_rep *rep)
{
#ifdef VMEXIT_X86
	(void)test;
	return one(ctx, rep, "rdtscp", loop_rdtscp, 0, vx_time(ctx));
#else
	(void)rep;
	return vx_not_here_tsc(ctx, test);
#endif
}

static int vx_run_cntvct(struct vmb_ctx *ctx, const struct vmb_test *test, struct vmb_rep *rep)
{
#if defined(__aarch64__)
	(void)test;
	return one(ctx, rep, "a cntvct_el0 read", loop_cntvct, 0, vx_time(ctx));
#elif defined(VMEXIT_X86)
	(void)test;
	(void)rep;
	return vmb_skip(ctx, "not applicable on x86: cntvct_el0 is the aarch64 generic timer's counter "
			"(vmexit.rdtsc is its counterpart)");
#else
	(void)rep;
	return vx_not_here(ctx, test);
#endif
}

static int vx_run_clock(struct vmb_ctx *ctx, const struct vmb_test *test, struct vmb_rep *rep)
{
	static const struct { const char *metric, *what; clockid_t id; } clocks[] = {
		{ "monotonic_ns", "clock_gettime(CLOCK_MONOTONIC)", CLOCK_MONOTONIC },
		{ "realtime_ns", "clock_gettime(CLOCK_REALTIME)", CLOCK_REALTIME },
	};
	double t = vx_time(ctx);
	struct vx_figure f;
	int r;

	(void)test;
	for (size_t i = 0; i < sizeof(clocks) / sizeof(clocks[0]); i++) {
		r = vx_measure(loop_clock, (uint64_t)clocks[i].id, t / 3, &f);
		if (r < 0)
			return vmb_fail(ctx, r, "%s: the empty-loop subtraction", clocks[i].what);
		r = report(ctx, rep, clocks[i].what, clocks[i].metric, &f);
		if (r < 0)
			return r;
	}
	r = vx_measure(loop_gettimeofday, 0, t / 3, &f);
	if (r < 0)
		return vmb_fail(ctx, r, "gettimeofday: the empty-loop subtraction");
	return report(ctx, rep, "gettimeofday", "gettimeofday_ns", &f);
}

static int vx_run_syscall(struct vmb_ctx *ctx, const struct vmb_test *test, struct vmb_rep *rep)
{
	(void)test;
	return one(ctx, rep, "a getppid system call", loop_syscall, 0, vx_time(ctx));
}

static int vx_run_pio(struct vmb_ctx *ctx, const struct vmb_test *test, struct vmb_rep *rep)
{
	struct vx_state *st = ctx->priv;

	(void)test;
#ifdef VMEXIT_X86
	if (!st->pio_port)
		return vmb_skip(ctx, "%s", st->pio_why);
	if (ioperm(st->pio_port, 4, 1) < 0)
		return errno == EPERM ? vmb_skip(ctx, "ioperm(0x%x) refused: reading an I/O port needs root "
						 "(CAP_SYS_RAWIO)", st->pio_port)
				      : vmb_fail(ctx, -errno, "ioperm(0x%x)", st->pio_port);
	(void)vmb_note(ctx, "pio_port", "0x%x (ACPI PM timer)", st->pio_port);
	{
		int r = one(ctx, rep, "an ACPI PM timer read", loop_pio, st->pio_port, vx_time(ctx));

		(void)ioperm(st->pio_port, 4, 0);
		return r;
	}
#elif defined(__aarch64__)
	(void)rep;
	return vmb_skip(ctx, "%s", st->pio_why);
#else
	(void)st;
	(void)rep;
	return vmb_skip(ctx, "not applicable on this architecture");
#endif
}

static int vx_run_kvm(struct vmb_ctx *ctx, const struct vmb_test *test, struct vmb_rep *rep)
{
	struct vx_state *st = ctx->priv;

	(void)test;
	return vmexit_kvm_run(ctx, vx_time(ctx), rep, &st->kvm);
}

static const struct vmb_test vx_tests[] = {
	{ .name = "cpuid", .summary = "cpuid leaves 0 and 1: a trap under VT-x and AMD-V, none under emulation (x86)",
	  .headline = "ns", .run = vx_run_cpuid },
	{ .name = "rdtsc", .summary = "rdtsc: a trap only where the hypervisor intercepts the TSC (x86)",
	  .headline = "ns", .run = vx_run_rdtsc },
	{ .name = "rdtscp", .summary = "rdtscp: a trap only where the hypervisor intercepts the TSC (x86)",
	  .headline = "ns", .run = vx_run_rdtscp },
	{ .name = "cntvct", .summary = "cntvct_el0, the generic timer's counter (aarch64)",
	  .headline = "ns", .run = vx_run_cntvct },
	{ .name = "clock", .summary = "clock_gettime MONOTONIC and REALTIME, gettimeofday: vDSO or trap, "
				      "by clocksource",
	  .headline = "monotonic_ns", .run = vx_run_clock },
	{ .name = "syscall", .summary = "a trivial system call (getppid): the baseline that is not an exit",
	  .headline = "ns", .run = vx_run_syscall },
	{ .name = "pio", .summary = "an ACPI PM timer port read after ioperm, as root: an exit to the device model (x86)",
	  .headline = "ns", .run = vx_run_pio },
	{ .name = "kvm", .summary = "a minimal VM on /dev/kvm: ns per exit handled in user space and in the kernel",
	  .headline = "io_ns,cpuid_ns", .run = vx_run_kvm },
	{ .name = NULL },
};

static const struct vmb_opt vx_opts[] = {
	{ .name = "time", .type = OPT_DOUBLE, .min = 0.01, .max = 86400, .quick = "0.05", .metavar = "SECONDS",
	  .help = "how long each repetition measures, at most --time (default: --time)" },
	OPT_TABLE_END,
};

const struct vmb_suite vmexit_suite = {
	.name = "vmexit",
	.summary = "what a trap to the hypervisor costs: cpuid, rdtsc, clocks, port I/O; a minimal KVM VM's exits",
	.abi = VMB_SUITE_ABI,
	.tests = vx_tests,
	.opts = vx_opts,
	.setup = vx_setup,
	.teardown = vx_teardown,
};
