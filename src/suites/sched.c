/* Scheduling suite: what a descheduled vCPU looks like from inside.
 *
 * wakeup     cyclictest's measurement: sleep to an absolute time, latency =
 *            the time woken minus the time asked for
 * ctxswitch  a token passed between two threads through a pipe and a futex,
 *            on one CPU and on two (stress-ng's and lmbench lat_ctx's figures)
 * steal      CPU-bound loops on every CPU: /proc/stat steal, schedstat run
 *            delay (the in-guest %RDY), and gaps in a loop reading the TSC
 * fairness   worker groups in cgroups under fair-share weights, a bandwidth
 *            reservation and real time for a probe thread: Jain's index
 *            against the configured shares, and the probe's latency
 *
 * docs/methodology.md says exactly how each follows its peer. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/futex.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "sched.h"
#include "sched_cg.h"
#include "../core/clock.h"
#include "../core/file.h"
#include "../core/stoppoint.h"
#include "../core/suite.h"
#include "../core/banned.h"

#define SCHED_MAX_CPUS 1024

enum sched_kind { SCHED_WAKEUP, SCHED_CTXSWITCH, SCHED_STEAL, SCHED_FAIRNESS };

struct sched_policy_row {
	const char *name;
	int policy;
};

static const struct sched_policy_row sched_policies[] = {
	{ "other", SCHED_OTHER },
	{ "fifo", SCHED_FIFO },
	{ "rr", SCHED_RR },
};

struct sched_state {
	unsigned cpus[SCHED_MAX_CPUS]; /* the selected CPUs */
	unsigned ncpus;
	int policy;
	unsigned priority;
	uint64_t interval_ns, distance_ns, threshold_ns, gap_ns;
	unsigned load;
	bool mlock;
	bool laptop;       /* leave the CPUs' idle states alone (cyclictest --laptop) */
	double tsc_per_ns; /* for the hiccup detector */
	/* fairness */
	unsigned weights[CG_MAX_GROUPS], ngroups, period_us;
	const char *mode;
	struct cg_layout cg;
	struct cg_plan remove;
	struct cg_watchdog dog;
	bool cg_made;
	bool try_private;                    /* no hierarchy offers cpu: try a cgroup2 mount of our own */
	char private_mount[CG_PATH_MAX];     /* that mount, while it exists */
	char cg_skip[200]; /* why fairness cannot run here, once known */
	char rt_skip[200]; /* why its rt mode cannot */
};

/* ---- helpers ---------------------------------------------------------- */

static pid_t sched_gettid(void)
{
	return (pid_t)syscall(SYS_gettid);
}

static int pin_self(unsigned cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return -pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
}

static int set_policy(int policy, unsigned prio)
{
	struct sched_param sp = { .sched_priority = policy == SCHED_OTHER ? 0 : (int)prio };

	return -pthread_setschedparam(pthread_self(), policy, &sp);
}

/* The CPUs the hiccup detector's counter runs at, per nanosecond. */
static inline uint64_t ticks(void)
{
#if defined(__x86_64__) || defined(__i386__)
	return __builtin_ia32_rdtsc();
#elif defined(__aarch64__)
	uint64_t v;

	__asm__ __volatile__("isb; mrs %0, cntvct_el0" : "=r"(v));
	return v;
#else
	return clock_ns();
#endif
}

static double calibrate_ticks(void)
{
	uint64_t n0 = clock_ns(), t0 = ticks(), n1, t1;

	do
		n1 = clock_ns();
	while (n1 - n0 < 20000000); /* 20 ms */
	t1 = ticks();
	return (double)(t1 - t0) / (double)(n1 - n0);
}

/* The counter's name, for the notes. */
static const char *ticks_name(void)
{
#if defined(__x86_64__) || defined(__i386__)
	return "TSC (rdtsc)";
#elif defined(__aarch64__)
	return "generic timer (cntvct_el0)";
#else
	return "CLOCK_MONOTONIC";
#endif
}

/* One cyclictest thread's loop: next = now + interval; sleep until next
 * (absolute, CLOCK_MONOTONIC); latency = now - next; next += interval, and
 * past an overrun on to the first future period, as cyclictest does. */
static uint64_t cyclic_loop(struct sched_lat *lat, uint64_t interval_ns, double duration_s)
{
	uint64_t now = clock_ns(), end = now + (uint64_t)(duration_s * NSEC_PER_SEC), next = now + interval_ns, n = 0;

	while (!vmb_stop_requested()) {
		struct timespec ts;
		int r;

		ts = clock_ns_ts(next);
		r = clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
		if (r == EINTR)
			continue;
		now = clock_ns();
		sched_lat_record(lat, now > next ? now - next : 0);
		n++;
		next += interval_ns;
		while (now > next)
			next += interval_ns;
		if (next > end)
			break;
	}
	return n;
}

static int report_lat(struct vmb_rep *rep, const char *prefix, const struct sched_lat *l, bool with_hist)
{
	static const struct {
		const char *suffix;
		double pct;
	} pcts[] = { { "p50", 50 }, { "p99", 99 }, { "p99_9", 99.9 }, { "max", 100 } };
	char name[48];
	int r = 0;

	for (size_t i = 0; i < sizeof(pcts) / sizeof(pcts[0]) && r == 0; i++) {
		if (!with_hist && !strcmp(pcts[i].suffix, "p99_9"))
			continue; /* the probe's few hundred wake-ups have no 99.9th */
		snprintf(name, sizeof(name), "%s_%s", prefix, pcts[i].suffix);
		r = vmb_rep_value(rep, name, VMB_UNIT_NS, VMB_LOWER,
				  pcts[i].pct >= 100 ? (double)l->hist.max : hist_percentile(&l->hist, pcts[i].pct));
	}
	if (r == 0 && with_hist)
		r = vmb_rep_hist(rep, prefix, VMB_UNIT_NS, &l->hist);
	return r;
}

/* ---- wakeup ------------------------------------------------------------ */

struct wake_shared {
	const struct sched_state *st;
	double duration_s;
	unsigned nmeasure;
	atomic_uint finished; /* measuring threads done: the load stops */
};

struct wake_worker {
	struct wake_shared *sh;
	unsigned idx; /* < nmeasure: measures on cpus[idx]; else load */
	struct sched_lat lat;
	uint64_t wakeups;
};

static void wake_fn(struct vmb_worker *w)
{
	struct wake_worker *ww = w->arg;
	struct wake_shared *sh = ww->sh;
	const struct sched_state *st = sh->st;
	bool measure = ww->idx < sh->nmeasure;

	w->err = pin_self(st->cpus[ww->idx % st->ncpus]);
	if (w->err == 0 && measure)
		w->err = set_policy(st->policy, st->priority);
	vmb_worker_sync(w);
	if (w->err < 0) {
		atomic_fetch_add(&sh->finished, 1);
		return;
	}
	w->start_ns = clock_ns();
	if (measure) {
		/* cyclictest: thread i's interval is the interval + i * distance */
		ww->wakeups = cyclic_loop(&ww->lat, st->interval_ns + ww->idx * st->distance_ns, sh->duration_s);
		atomic_fetch_add(&sh->finished, 1);
	} else {
		volatile uint64_t x = 88172645463325252ull;

		while (atomic_load(&sh->finished) < sh->nmeasure) {
			for (unsigned i = 0; i < 4096; i++)
				x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		}
	}
	w->end_ns = clock_ns();
}

/* cyclictest -m is refused (no CAP_IPC_LOCK, a small ulimit -l): measure
 * unlocked, as cyclictest without -m, and say so beside the figures. */
static void sched_mlock_refused(struct vmb_ctx *ctx, struct sched_state *st, int err)
{
	struct rlimit rl;
	char lim[32] = "?";

	if (getrlimit(RLIMIT_MEMLOCK, &rl) == 0)
		snprintf(lim, sizeof(lim), rl.rlim_cur == RLIM_INFINITY ? "unlimited" : "%llu KiB",
			 (unsigned long long)rl.rlim_cur >> 10);
	st->mlock = false;
	(void)vmb_note(ctx, "mlock", "not locked: mlockall: %s (RLIMIT_MEMLOCK %s): measured as cyclictest without "
		       "-m, page faults may add to the latencies (run as root or raise ulimit -l to lock)",
		       strerror(err), lim);
}

static int run_wakeup(struct vmb_ctx *ctx, struct sched_state *st, struct vmb_rep *rep)
{
	struct wake_shared sh = { .st = st, .duration_s = ctx->duration_s, .nmeasure = st->ncpus };
	unsigned n = st->ncpus + st->load;
	struct vmb_worker *workers = calloc(n, sizeof(*workers));
	struct wake_worker *ww = calloc(n, sizeof(*ww));
	struct sched_lat *all = malloc(sizeof(*all));
	uint64_t wakeups = 0;
	bool locked = false;
	int r, dma = -1;

	atomic_init(&sh.finished, 0);
	if (!workers || !ww || !all) {
		r = vmb_fail(ctx, -ENOMEM, "%u threads", n);
		goto out;
	}
	sched_lat_init(all, st->threshold_ns);
	for (unsigned i = 0; i < n; i++) {
		ww[i].sh = &sh;
		ww[i].idx = i;
		sched_lat_init(&ww[i].lat, st->threshold_ns);
		workers[i].arg = &ww[i];
	}
	/* cyclictest -m; only for the measured window, so that the other
	 * suites' buffers are not locked */
	if (st->mlock) {
		if (mlockall(MCL_CURRENT | MCL_FUTURE) < 0)
			sched_mlock_refused(ctx, st, errno);
		else
			locked = true;
	}
	/* cyclictest's latency trick: 0 µs in /dev/cpu_dma_latency keeps the
	 * CPUs out of deep idle states while the fd is open (unless --laptop);
	 * without it an idle machine's wake-ups include the idle exit */
	if (!st->laptop) {
		static const int32_t zero = 0;

		dma = open("/dev/cpu_dma_latency", O_RDWR | O_CLOEXEC);
		if (dma < 0 || write(dma, &zero, sizeof(zero)) != (ssize_t)sizeof(zero)) {
			(void)vmb_note(ctx, "cpu_dma_latency", "not set: %s (idle states stay as they are)",
				       strerror(errno));
			if (dma >= 0)
				close(dma);
			dma = -1;
		} else
			(void)vmb_note(ctx, "cpu_dma_latency", "0 us while measuring, as cyclictest");
	}
	r = vmb_parallel(ctx, n, wake_fn, workers);
	if (r == -EAGAIN && locked) {
		/* RLIMIT_MEMLOCK took the locked process but not its threads' stacks */
		(void)munlockall();
		locked = false;
		ctx->reason[0] = '\0';
		sched_mlock_refused(ctx, st, EAGAIN);
		atomic_store(&sh.finished, 0);
		for (unsigned i = 0; i < n; i++) {
			sched_lat_init(&ww[i].lat, st->threshold_ns);
			ww[i].wakeups = 0;
		}
		r = vmb_parallel(ctx, n, wake_fn, workers);
	}
	if (r < 0 && ctx->reason[0]) /* a thread could not be created or pinned */
		goto out;
	for (unsigned i = 0; i < n; i++) {
		if (workers[i].err == -EPERM && i < st->ncpus) {
			r = vmb_skip(ctx, "SCHED_%s priority %u refused (no CAP_SYS_NICE, RLIMIT_RTPRIO 0, or a cpu "
					  "cgroup without cpu.rt_runtime_us)", st->policy == SCHED_FIFO ? "FIFO" : "RR",
				     st->priority);
			goto out;
		}
		if (workers[i].err < 0) {
			r = vmb_fail(ctx, workers[i].err, "thread %u on CPU %u", i, st->cpus[i % st->ncpus]);
			goto out;
		}
	}
	if (r < 0) {
		r = vmb_fail(ctx, r, "starting %u threads", n);
		goto out;
	}
	for (unsigned i = 0; i < st->ncpus; i++) {
		sched_lat_merge(all, &ww[i].lat);
		wakeups += ww[i].wakeups;
	}
	if (wakeups == 0) {
		r = vmb_fail(ctx, -EIO, "no wake-up in %.3f s", ctx->duration_s);
		goto out;
	}
	r = report_lat(rep, "latency", all, true);
	if (r == 0)
		r = vmb_rep_value(rep, "wakeups", VMB_UNIT_NONE, VMB_HIGHER, (double)wakeups);
	if (r == 0)
		r = vmb_rep_value(rep, "over_threshold", VMB_UNIT_NONE, VMB_LOWER, (double)all->over);
out:
	if (locked)
		(void)munlockall();
	if (dma >= 0)
		close(dma);
	free(workers);
	free(ww);
	free(all);
	return r;
}

/* ---- ctxswitch --------------------------------------------------------- */

enum token_kind { TOKEN_PIPE, TOKEN_FUTEX };

struct token {
	enum token_kind kind;
	int p[2][2];       /* pipe: [0] ping, [1] pong */
	atomic_int turn;   /* futex: whose turn, 0 or 1 */
	atomic_bool stop;
	double duration_s;
	unsigned cpu[2];
	uint64_t rounds;
};

static void futex_wait(atomic_int *addr, int val)
{
	(void)syscall(SYS_futex, addr, FUTEX_WAIT_PRIVATE, val, NULL, NULL, 0);
}

static void futex_wake(atomic_int *addr)
{
	(void)syscall(SYS_futex, addr, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

/* Wait for the token; pass it on. 0, or -EIO on a broken pipe. */
static int token_take(struct token *t, int me)
{
	if (t->kind == TOKEN_PIPE) {
		char c;

		return read(t->p[me][0], &c, 1) == 1 ? 0 : -EIO;
	}
	while (atomic_load(&t->turn) != me)
		futex_wait(&t->turn, 1 - me);
	return 0;
}

static int token_give(struct token *t, int me)
{
	if (t->kind == TOKEN_PIPE)
		return write(t->p[1 - me][1], "x", 1) == 1 ? 0 : -EIO;
	atomic_store(&t->turn, 1 - me);
	futex_wake(&t->turn);
	return 0;
}

static void token_fn(struct vmb_worker *w)
{
	struct token *t = w->arg;
	int me = (int)w->id;

	w->err = pin_self(t->cpu[me]);
	vmb_worker_sync(w);
	if (w->err < 0)
		return;
	w->start_ns = clock_ns();
	if (me == 0) {
		uint64_t end = w->start_ns + (uint64_t)(t->duration_s * NSEC_PER_SEC);

		for (;;) {
			/* one round: two hand-offs, two switches on one CPU */
			if (token_give(t, 0) < 0 || token_take(t, 0) < 0) {
				w->err = -EIO;
				break;
			}
			t->rounds++;
			if ((t->rounds & 63) == 0 && (clock_ns() >= end || vmb_stop_requested()))
				break;
		}
		w->end_ns = clock_ns();
		atomic_store(&t->stop, true);
		(void)token_give(t, 0); /* the last one, to let the other see stop */
		return;
	}
	for (;;) {
		if (token_take(t, 1) < 0) {
			w->err = -EIO;
			break;
		}
		if (atomic_load(&t->stop))
			break;
		if (token_give(t, 1) < 0) {
			w->err = -EIO;
			break;
		}
	}
	w->end_ns = clock_ns();
}

/* lmbench's overhead: the same pipe write and read in one thread, no switch. */
static double pipe_overhead_ns(void)
{
	int p[2];
	uint64_t t0, t1;
	const unsigned n = 20000;
	char c;

	if (pipe2(p, O_CLOEXEC) < 0)
		return NAN;
	t0 = clock_ns();
	for (unsigned i = 0; i < n; i++)
		if (write(p[1], "x", 1) != 1 || read(p[0], &c, 1) != 1)
			break;
	t1 = clock_ns();
	(void)close(p[0]);
	(void)close(p[1]);
	return (double)(t1 - t0) / n;
}

static int token_run(struct vmb_ctx *ctx, struct token *t, double *ns_per_switch)
{
	struct vmb_worker workers[2];
	int r;

	memset(workers, 0, sizeof(workers));
	workers[0].arg = workers[1].arg = t;
	t->rounds = 0;
	atomic_init(&t->turn, 1);
	atomic_init(&t->stop, false);
	if (t->kind == TOKEN_PIPE && (pipe2(t->p[0], O_CLOEXEC) < 0 || pipe2(t->p[1], O_CLOEXEC) < 0))
		return vmb_fail(ctx, -errno, "pipe");
	r = vmb_parallel(ctx, 2, token_fn, workers);
	if (t->kind == TOKEN_PIPE)
		for (int i = 0; i < 2; i++) {
			(void)close(t->p[i][0]);
			(void)close(t->p[i][1]);
		}
	if (r < 0 && ctx->reason[0])
		return r;
	for (int i = 0; i < 2; i++)
		if (workers[i].err < 0)
			return vmb_fail(ctx, workers[i].err, "token thread %d on CPU %u", i, t->cpu[i]);
	if (r < 0)
		return vmb_fail(ctx, r, "starting 2 threads");
	if (t->rounds == 0)
		return vmb_fail(ctx, -EIO, "no token round in %.3f s", t->duration_s);
	*ns_per_switch = (double)(workers[0].end_ns - workers[0].start_ns) / (2.0 * (double)t->rounds);
	return 0;
}

static int run_ctxswitch(struct vmb_ctx *ctx, struct sched_state *st, struct vmb_rep *rep)
{
	static const struct {
		const char *name;
		enum token_kind kind;
		unsigned ncpu;
	} rows[] = {
		{ "pipe_1cpu", TOKEN_PIPE, 1 },
		{ "futex_1cpu", TOKEN_FUTEX, 1 },
		{ "pipe_2cpu", TOKEN_PIPE, 2 },
		{ "futex_2cpu", TOKEN_FUTEX, 2 },
	};
	size_t nrows = st->ncpus >= 2 ? 4 : 2;
	int r = 0;

	for (size_t i = 0; i < nrows && r == 0; i++) {
		struct token *t = calloc(1, sizeof(*t));
		char name[48];
		double ns = NAN;

		if (!t)
			return vmb_fail(ctx, -ENOMEM, "token");
		t->kind = rows[i].kind;
		t->duration_s = ctx->duration_s / (double)nrows;
		t->cpu[0] = st->cpus[0];
		t->cpu[1] = st->cpus[rows[i].ncpu == 2 ? 1 : 0];
		r = token_run(ctx, t, &ns);
		free(t);
		if (r < 0)
			break;
		snprintf(name, sizeof(name), "%s_ns", rows[i].name);
		r = vmb_rep_value(rep, name, VMB_UNIT_NS, VMB_LOWER, ns);
		if (r == 0 && rows[i].kind == TOKEN_PIPE) {
			/* lmbench lat_ctx: minus one pipe write and read done alone */
			double over = pipe_overhead_ns();

			snprintf(name, sizeof(name), "%s_net_ns", rows[i].name);
			if (isfinite(over))
				r = vmb_rep_value(rep, name, VMB_UNIT_NS, VMB_LOWER, ns - over > 0 ? ns - over : 0);
		}
	}
	return r;
}

/* ---- steal ------------------------------------------------------------- */

struct cpu_times {
	uint64_t total, steal; /* USER_HZ ticks, summed over the selected CPUs */
};

static int read_proc_stat(const struct sched_state *st, struct cpu_times *out)
{
	char *text = NULL, *line;
	int r = read_file("/proc/stat", &text);

	memset(out, 0, sizeof(*out));
	if (r < 0)
		return r;
	for (line = text; line && *line;) {
		char *nl = strchr(line, '\n');
		unsigned cpu;
		unsigned long long v[8] = { 0 };

		if (nl)
			*nl = '\0';
		if (sscanf(line, "cpu%u %llu %llu %llu %llu %llu %llu %llu %llu", &cpu, &v[0], &v[1], &v[2], &v[3],
			   &v[4], &v[5], &v[6], &v[7]) == 9) {
			for (unsigned i = 0; i < st->ncpus; i++)
				if (st->cpus[i] == cpu) {
					for (int k = 0; k < 8; k++)
						out->total += v[k];
					out->steal += v[7];
				}
		}
		line = nl ? nl + 1 : NULL;
	}
	free(text);
	return 0;
}

/* /proc/thread-self/schedstat: ns on CPU, ns runnable but waiting. */
static int read_schedstat(uint64_t *run, uint64_t *wait)
{
	char buf[128];
	unsigned long long a, b;
	int r = read_line_at("/", "/proc/thread-self/schedstat", buf, sizeof(buf));

	if (r < 0)
		return r;
	if (sscanf(buf, "%llu %llu", &a, &b) != 2)
		return -EPROTO;
	*run = a;
	*wait = b;
	return 0;
}

struct steal_worker {
	const struct sched_state *st;
	double duration_s;
	uint64_t run_ns, wait_ns;
	uint64_t gaps, gap_max, gap_sum; /* ticks */
	uint64_t t0, t1;                  /* ticks over the window */
};

static void steal_fn(struct vmb_worker *w)
{
	struct steal_worker *sw = w->arg;
	const struct sched_state *st = sw->st;
	uint64_t run0 = 0, wait0 = 0, run1, wait1, gap = (uint64_t)((double)st->gap_ns * st->tsc_per_ns);
	uint64_t prev, end;

	w->err = pin_self(st->cpus[w->id % st->ncpus]);
	if (w->err == 0)
		w->err = read_schedstat(&run0, &wait0);
	vmb_worker_sync(w);
	if (w->err < 0)
		return;
	w->start_ns = clock_ns();
	end = w->start_ns + (uint64_t)(sw->duration_s * NSEC_PER_SEC);
	prev = sw->t0 = ticks();
	/* sysjitter: spin reading the counter; a step larger than the gap is
	 * time this thread did not run */
	for (uint64_t i = 0;; i++) {
		uint64_t t = ticks(), d = t - prev;

		if (d > gap) {
			sw->gaps++;
			sw->gap_sum += d;
			if (d > sw->gap_max)
				sw->gap_max = d;
		}
		prev = t;
		if ((i & 1023) == 0 && (clock_ns() >= end || vmb_stop_requested()))
			break;
	}
	sw->t1 = prev;
	w->end_ns = clock_ns();
	w->err = read_schedstat(&run1, &wait1);
	if (w->err == 0) {
		sw->run_ns = run1 - run0;
		sw->wait_ns = wait1 - wait0;
	}
}

static int run_steal(struct vmb_ctx *ctx, struct sched_state *st, struct vmb_rep *rep)
{
	unsigned n = st->ncpus;
	struct vmb_worker *workers = calloc(n, sizeof(*workers));
	struct steal_worker *sw = calloc(n, sizeof(*sw));
	struct cpu_times c0, c1;
	uint64_t gaps = 0, run = 0, wait = 0;
	double window = 0, gap_max = 0, gap_sum = 0, steal_pct;
	int r;

	if (!workers || !sw) {
		r = vmb_fail(ctx, -ENOMEM, "%u threads", n);
		goto out;
	}
	for (unsigned i = 0; i < n; i++) {
		sw[i].st = st;
		sw[i].duration_s = ctx->duration_s;
		workers[i].arg = &sw[i];
	}
	r = read_proc_stat(st, &c0);
	if (r < 0) {
		r = vmb_fail(ctx, r, "reading /proc/stat");
		goto out;
	}
	r = vmb_parallel(ctx, n, steal_fn, workers);
	if (r < 0 && ctx->reason[0])
		goto out;
	for (unsigned i = 0; i < n; i++)
		if (workers[i].err < 0) {
			r = workers[i].err == -ENOENT
				    ? vmb_skip(ctx, "no /proc/thread-self/schedstat (a kernel without CONFIG_SCHED_INFO)")
				    : vmb_fail(ctx, workers[i].err, "thread %u on CPU %u", i, st->cpus[i]);
			goto out;
		}
	if (r < 0) {
		r = vmb_fail(ctx, r, "starting %u threads", n);
		goto out;
	}
	r = read_proc_stat(st, &c1);
	if (r < 0) {
		r = vmb_fail(ctx, r, "reading /proc/stat");
		goto out;
	}
	for (unsigned i = 0; i < n; i++) {
		double w = (double)(workers[i].end_ns - workers[i].start_ns);

		window += w;
		run += sw[i].run_ns;
		wait += sw[i].wait_ns;
		gaps += sw[i].gaps;
		gap_sum += (double)sw[i].gap_sum / st->tsc_per_ns;
		if ((double)sw[i].gap_max / st->tsc_per_ns > gap_max)
			gap_max = (double)sw[i].gap_max / st->tsc_per_ns;
	}
	if (!(window > 0)) {
		r = vmb_fail(ctx, -EIO, "empty window");
		goto out;
	}
	/* /proc/stat moves in ticks of 10 ms: a short window may see none */
	steal_pct = c1.total > c0.total ? 100.0 * (double)(c1.steal - c0.steal) / (double)(c1.total - c0.total) : 0;
	r = vmb_rep_value(rep, "on_cpu_pct", VMB_UNIT_PCT, VMB_HIGHER, 100.0 * (double)run / window);
	if (r == 0)
		r = vmb_rep_value(rep, "steal_pct", VMB_UNIT_PCT, VMB_LOWER, steal_pct);
	if (r == 0)
		r = vmb_rep_value(rep, "run_delay_pct", VMB_UNIT_PCT, VMB_LOWER, 100.0 * (double)wait / window);
	if (r == 0)
		r = vmb_rep_value(rep, "gaps_per_s", VMB_UNIT_PER_S, VMB_LOWER, (double)gaps / (window / NSEC_PER_SEC));
	if (r == 0)
		r = vmb_rep_value(rep, "gap_max", VMB_UNIT_NS, VMB_LOWER, gap_max);
	if (r == 0)
		r = vmb_rep_value(rep, "gap_pct", VMB_UNIT_PCT, VMB_LOWER, 100.0 * gap_sum / window);
out:
	free(workers);
	free(sw);
	return r;
}

/* ---- fairness ---------------------------------------------------------- */

struct fair_row {
	const char *name;    /* metric prefix */
	const char *mode;    /* the --sched.mode that selects it */
	enum cg_mode cg;
	bool weighted;       /* the configured weights, else all equal */
	bool rt_probe;
};

static const struct fair_row fair_rows[] = {
	{ "fair_equal", "fair", CG_FAIR, false, false },
	{ "fair", "fair", CG_FAIR, true, false },
	{ "reservation", "reservation", CG_RESERVATION, true, false },
	{ "rt", "rt", CG_RT, false, true },
};

struct fair_shared {
	const struct sched_state *st;
	const struct fair_row *row;
	double duration_s;
	atomic_bool done; /* the probe's window ended: the workers stop */
};

struct fair_worker {
	struct fair_shared *sh;
	unsigned group; /* == ngroups: the probe */
	uint64_t chunks;
	uint64_t cpu_ns; /* the thread's own CPU time over the window */
	struct sched_lat lat;
};

static int attach_self(const struct sched_state *st, unsigned group)
{
	char dir[CG_PATH_MAX], path[CG_PATH_MAX], tid[24];
	int fd, r = 0;

	r = cg_group_path(&st->cg, getpid(), group, st->ngroups, dir, sizeof(dir));
	if (r == 0)
		r = cg_attach_path(&st->cg, dir, path, sizeof(path));
	if (r < 0)
		return r;
	snprintf(tid, sizeof(tid), "%ld", (long)sched_gettid());
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (write(fd, tid, strlen(tid)) < 0)
		r = -errno;
	if (close(fd) < 0 && r == 0)
		r = -errno;
	return r;
}

static void fair_fn(struct vmb_worker *w)
{
	struct fair_worker *fw = w->arg;
	struct fair_shared *sh = fw->sh;
	const struct sched_state *st = sh->st;
	bool probe = fw->group == st->ngroups;

	/* all on one CPU: the groups compete for it, as vCPUs on a core */
	w->err = pin_self(st->cpus[0]);
	if (w->err == 0)
		w->err = attach_self(st, fw->group);
	if (w->err == 0 && probe && sh->row->rt_probe)
		w->err = set_policy(SCHED_FIFO, st->priority ? st->priority : 50);
	if (fw->group == 0)
		vmb_test_stop_point("sched-groups"); /* tests kill the process here */
	vmb_worker_sync(w);
	if (w->err < 0) {
		atomic_store(&sh->done, true);
		return;
	}
	w->start_ns = clock_ns();
	if (probe) {
		(void)cyclic_loop(&fw->lat, st->interval_ns, sh->duration_s);
		atomic_store(&sh->done, true);
	} else {
		volatile uint64_t x = 88172645463325252ull + fw->group;
		uint64_t c0 = clock_thread_cpu_ns();

		while (!atomic_load(&sh->done)) {
			for (unsigned i = 0; i < 4096; i++)
				x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			fw->chunks++;
		}
		fw->cpu_ns = clock_thread_cpu_ns() - c0;
	}
	w->end_ns = clock_ns();
}

/* Does the v2 file (cgroup.controllers, cgroup.subtree_control) list cpu? */
static bool v2_has_cpu(const char *mount, const char *self, const char *file)
{
	char path[CG_PATH_MAX + 32], *text = NULL;
	bool yes = false;

	snprintf(path, sizeof(path), "%s%s/%s", mount, self, file);
	if (read_file(path, &text) == 0) {
		/* a space-separated list: "cpuset cpu io" */
		for (char *save = NULL, *t = strtok_r(text, " \n", &save); t && !yes; t = strtok_r(NULL, " \n", &save))
			yes = !strcmp(t, "cpu");
	}
	free(text);
	return yes;
}

/* No mounted hierarchy offers cpu (a minimal guest mounts none): mount
 * cgroup2 privately, where the kernel has it and cpu is not bound to a v1
 * hierarchy. On success the layout is v2 on that mount. */
static void mount_private(struct sched_state *st)
{
	char dir[] = "/tmp/vmbench-cgroup2-XXXXXX", *self = NULL, mi[CG_PATH_MAX + 64];
	struct cg_layout l;
	int r;

	if (!mkdtemp(dir))
		return; /* the reason already given stays */
	r = mount("cgroup2", dir, "cgroup2", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) < 0 ? -errno : 0;
	if (r == 0)
		r = read_file("/proc/self/cgroup", &self);
	snprintf(mi, sizeof(mi), "1 1 0:0 / %s rw - cgroup2 cgroup2 rw\n", dir);
	if (r == 0)
		r = cg_detect(mi, self, &l);
	if (r == 0 && !v2_has_cpu(l.mount, l.self, "cgroup.controllers"))
		r = -ENOTSUP;
	free(self);
	if (r < 0) {
		size_t n = strlen(st->cg_skip);

		(void)umount2(dir, MNT_DETACH);
		(void)rmdir(dir);
		snprintf(st->cg_skip + n, sizeof(st->cg_skip) - n, "; a private cgroup2 mount: %s",
			 r == -ENOTSUP ? "no cpu controller there either" : strerror(-r));
		return;
	}
	st->cg = l;
	snprintf(st->private_mount, sizeof(st->private_mount), "%s", dir);
	st->cg_skip[0] = '\0';
}

/* Create the groups once, with the watchdog that removes them whatever
 * way the process ends. 0, or a skip or failure with ctx->reason set. */
static int fair_groups(struct vmb_ctx *ctx, struct sched_state *st)
{
	struct cg_plan create;
	const struct cg_op *bad = NULL;
	pid_t pid = getpid();
	int r;

	if (st->cg_made)
		return 0;
	if (st->try_private) {
		st->try_private = false;
		mount_private(st);
	}
	if (st->cg_skip[0])
		return vmb_skip(ctx, "%s", st->cg_skip);
	cg_plan_init(&create);
	r = cg_plan_create(&create, &st->cg, pid, st->ngroups, 100000);
	if (r == 0)
		r = cg_plan_remove(&st->remove, &st->cg, pid, st->ngroups);
	if (r == 0 && st->cg.ver == CG_V2 && !v2_has_cpu(st->cg.mount, st->cg.self, "cgroup.subtree_control")) {
		/* hand the controller back as it was: off */
		char path[CG_PATH_MAX + 32];

		snprintf(path, sizeof(path), "%s%s/cgroup.subtree_control", st->cg.mount, st->cg.self);
		r = cg_plan_add(&st->remove, CG_WRITE, path, "-cpu");
	}
	if (r == 0 && st->private_mount[0]) {
		r = cg_plan_add(&st->remove, CG_UMOUNT, st->private_mount, NULL);
		if (r == 0)
			r = cg_plan_add(&st->remove, CG_RMDIR, st->private_mount, NULL);
	}
	if (r < 0) {
		cg_plan_release(&create);
		if (st->private_mount[0]) {
			(void)umount2(st->private_mount, MNT_DETACH);
			(void)rmdir(st->private_mount);
			st->private_mount[0] = '\0';
		}
		return vmb_fail(ctx, r, "planning cgroups under %s%s", st->cg.mount, st->cg.self);
	}
	r = cg_watchdog_start(&st->dog, &st->remove);
	if (r < 0) {
		cg_plan_release(&create);
		return vmb_fail(ctx, r, "starting the cgroup watchdog");
	}
	st->cg_made = true; /* from here on teardown removes whatever exists */
	r = cg_plan_run(&create, true, &bad);
	if (r < 0) {
		if (bad && !strcmp(strrchr(bad->path, '/'), "/cpu.rt_runtime_us") && (r == -EINVAL || r == -EBUSY)) {
			/* the parent has no real-time runtime left to hand out */
			snprintf(st->rt_skip, sizeof(st->rt_skip), "writing %s: %s", bad->path, strerror(-r));
			cg_plan_release(&create);
			cg_plan_init(&create);
			st->cg.rt_group = false;
			(void)cg_plan_run(&st->remove, false, NULL);
			r = cg_plan_create(&create, &st->cg, pid, st->ngroups, 0);
			if (r == 0)
				r = cg_plan_run(&create, true, &bad);
		}
	}
	/* bad points into the plan: the messages are made before it is released */
	if (r == -EACCES || r == -EPERM || r == -EROFS) {
		snprintf(st->cg_skip, sizeof(st->cg_skip), "no permission to create cgroups (%s: %s)",
			 bad ? bad->path : "?", strerror(-r));
		cg_plan_release(&create);
		return vmb_skip(ctx, "%s", st->cg_skip);
	}
	if (r < 0) {
		r = vmb_fail(ctx, r, "%s %s", bad && bad->kind == CG_MKDIR ? "creating" : "writing",
			     bad ? bad->path : "cgroups");
		cg_plan_release(&create);
		return r;
	}
	cg_plan_release(&create);
	(void)vmb_note(ctx, "cgroups", "cgroup %s%s, groups under %s%s/vmbench-sched-PID",
		       st->cg.ver == CG_V1 ? "v1" : "v2", st->private_mount[0] ? " (a private mount of its own)" : "",
		       st->cg.mount, st->cg.self);
	return 0;
}

static int fair_one(struct vmb_ctx *ctx, struct sched_state *st, const struct fair_row *row, double duration_s,
		    struct vmb_rep *rep)
{
	unsigned n = st->ngroups + 1, equal[CG_MAX_GROUPS];
	const unsigned *weights = row->weighted ? st->weights : equal;
	struct fair_shared sh = { .st = st, .row = row, .duration_s = duration_s };
	struct vmb_worker workers[CG_MAX_GROUPS + 1];
	struct fair_worker fw[CG_MAX_GROUPS + 1];
	double got[CG_MAX_GROUPS], promised[CG_MAX_GROUPS], total = 0, window;
	struct cg_plan knobs;
	const struct cg_op *bad = NULL;
	char name[48];
	int r;

	for (unsigned i = 0; i < st->ngroups; i++)
		equal[i] = 1;
	cg_plan_init(&knobs);
	r = cg_plan_mode(&knobs, &st->cg, getpid(), row->cg, weights, st->ngroups, st->period_us);
	if (r == 0)
		r = cg_plan_run(&knobs, true, &bad);
	cg_plan_release(&knobs);
	if (r < 0)
		return vmb_fail(ctx, r, "writing %s", bad ? bad->path : "cgroup knobs");
	atomic_init(&sh.done, false);
	memset(workers, 0, sizeof(workers));
	memset(fw, 0, sizeof(fw));
	for (unsigned i = 0; i < n; i++) {
		fw[i].sh = &sh;
		fw[i].group = i;
		sched_lat_init(&fw[i].lat, st->threshold_ns);
		workers[i].arg = &fw[i];
	}
	r = vmb_parallel(ctx, n, fair_fn, workers);
	if (r < 0 && ctx->reason[0])
		return r;
	for (unsigned i = 0; i < n; i++)
		if (workers[i].err < 0) {
			if (workers[i].err == -EPERM && i == st->ngroups) {
				/* the other modes' figures of this repetition stand; rt is left out from here on */
				snprintf(st->rt_skip, sizeof(st->rt_skip), "the probe's SCHED_FIFO was refused (no "
					 "CAP_SYS_NICE and RLIMIT_RTPRIO 0, or a cpu cgroup without real-time runtime)");
				if (!strcmp(st->mode, "rt"))
					return vmb_skip(ctx, "rt mode: %s", st->rt_skip);
				(void)vmb_note(ctx, "fairness_rt", "not measured: %s", st->rt_skip);
				return 0;
			}
			return vmb_fail(ctx, workers[i].err, "%s: %s thread", row->name,
					i == st->ngroups ? "probe" : "worker");
		}
	if (r < 0)
		return vmb_fail(ctx, r, "starting %u threads", n);
	window = (double)(workers[st->ngroups].end_ns - workers[st->ngroups].start_ns) / NSEC_PER_SEC;
	for (unsigned i = 0; i < st->ngroups; i++) {
		got[i] = (double)fw[i].chunks;
		promised[i] = weights[i];
		total += got[i];
	}
	if (!(total > 0) || !(window > 0) || fw[st->ngroups].lat.hist.count == 0)
		return vmb_fail(ctx, -EIO, "%s: no work done in %.3f s", row->name, duration_s);
	snprintf(name, sizeof(name), "%s_jain", row->name);
	r = vmb_rep_value(rep, name, VMB_UNIT_RATIO, VMB_HIGHER, sched_jain(got, promised, st->ngroups));
	for (unsigned i = 0; i < st->ngroups && r == 0; i++) {
		snprintf(name, sizeof(name), "%s_g%u_share", row->name, i);
		r = vmb_rep_value(rep, name, VMB_UNIT_RATIO, VMB_HIGHER, got[i] / total);
		/* the CPU time it got, in % of one CPU: a reservation's cap shows here */
		snprintf(name, sizeof(name), "%s_g%u_cpu_pct", row->name, i);
		if (r == 0)
			r = vmb_rep_value(rep, name, VMB_UNIT_PCT, VMB_HIGHER, (double)fw[i].cpu_ns / 1e7 / window);
	}
	snprintf(name, sizeof(name), "%s_chunks_per_s", row->name);
	if (r == 0)
		r = vmb_rep_value(rep, name, VMB_UNIT_PER_S, VMB_HIGHER, total / window);
	snprintf(name, sizeof(name), "%s_probe", row->name);
	if (r == 0)
		r = report_lat(rep, name, &fw[st->ngroups].lat, false);
	return r;
}

static int run_fairness(struct vmb_ctx *ctx, struct sched_state *st, struct vmb_rep *rep)
{
	size_t nrows = 0;
	int r;

	r = fair_groups(ctx, st);
	if (r < 0)
		return r;
	for (size_t i = 0; i < sizeof(fair_rows) / sizeof(fair_rows[0]); i++)
		nrows += !strcmp(st->mode, "all") || !strcmp(st->mode, fair_rows[i].mode);
	for (size_t i = 0; i < sizeof(fair_rows) / sizeof(fair_rows[0]) && r == 0; i++) {
		const struct fair_row *row = &fair_rows[i];

		if (strcmp(st->mode, "all") && strcmp(st->mode, row->mode))
			continue;
		if (row->rt_probe && st->rt_skip[0]) {
			if (!strcmp(st->mode, "rt"))
				return vmb_skip(ctx, "rt mode: %s", st->rt_skip);
			(void)vmb_note(ctx, "fairness_rt", "not measured: %s", st->rt_skip);
			continue;
		}
		r = fair_one(ctx, st, row, ctx->duration_s / (double)nrows, rep);
		if (vmb_stop_requested())
			break;
	}
	return r;
}

/* ---- the suite --------------------------------------------------------- */

static int select_cpus(struct vmb_ctx *ctx, struct sched_state *st)
{
	cpu_set_t set;

	if (ctx->cpus && ctx->ncpus) {
		for (size_t i = 0; i < ctx->ncpus && st->ncpus < SCHED_MAX_CPUS; i++)
			st->cpus[st->ncpus++] = ctx->cpus[i];
		return 0;
	}
	if (sched_getaffinity(0, sizeof(set), &set) < 0)
		return -errno;
	for (unsigned c = 0; c < CPU_SETSIZE && st->ncpus < SCHED_MAX_CPUS; c++)
		if (CPU_ISSET(c, &set))
			st->cpus[st->ncpus++] = c;
	return st->ncpus ? 0 : -ESRCH;
}

/* Where the cpu controller is; why fairness cannot run when nowhere. */
static void find_cgroups(struct sched_state *st)
{
	char *mi = NULL, *self = NULL, path[CG_PATH_MAX + 32];
	int r = read_file("/proc/self/mountinfo", &mi);

	if (r == 0)
		r = read_file("/proc/self/cgroup", &self);
	if (r == 0)
		r = cg_detect(mi, self, &st->cg);
	if (r < 0) {
		snprintf(st->cg_skip, sizeof(st->cg_skip), "no cgroup hierarchy with the cpu controller mounted (%s)",
			 strerror(-r));
		st->try_private = r == -ENOENT;
	}
	else if (st->cg.ver == CG_V1) {
		snprintf(path, sizeof(path), "%s%s/cpu.rt_runtime_us", st->cg.mount, st->cg.self);
		st->cg.rt_group = access(path, F_OK) == 0;
	} else {
		if (!v2_has_cpu(st->cg.mount, st->cg.self, "cgroup.controllers")) {
			snprintf(st->cg_skip, sizeof(st->cg_skip),
				 "cgroup v2 at %s offers no cpu controller to %s (bound to a v1 hierarchy, or not delegated)",
				 st->cg.mount, st->cg.self[0] ? st->cg.self : "/");
			st->cg.ver = CG_NONE;
		}
	}
	free(mi);
	free(self);
}

static int sched_setup(struct vmb_ctx *ctx)
{
	struct sched_state *st = calloc(1, sizeof(*st));
	const struct opt_value *wv = optset_get(ctx->opts, "weights");
	const char *pol = optset_str(ctx->opts, "policy");
	int r;

	if (!st)
		return vmb_fail(ctx, -ENOMEM, "sched state");
	ctx->priv = st;
	cg_plan_init(&st->remove);
	st->dog.pid = -1;
	st->dog.fd = -1;
	for (size_t i = 0; i < sizeof(sched_policies) / sizeof(sched_policies[0]); i++)
		if (!strcmp(pol, sched_policies[i].name))
			st->policy = sched_policies[i].policy;
	st->priority = (unsigned)optset_int(ctx->opts, "priority");
	if (st->policy != SCHED_OTHER && st->priority == 0)
		return vmb_usage(ctx, "--sched.policy %s needs --sched.priority 1 to 99", pol);
	st->interval_ns = (uint64_t)optset_int(ctx->opts, "interval") * 1000;
	st->distance_ns = (uint64_t)optset_int(ctx->opts, "distance") * 1000;
	st->threshold_ns = (uint64_t)optset_int(ctx->opts, "threshold") * 1000;
	st->gap_ns = (uint64_t)optset_int(ctx->opts, "gap") * 1000;
	st->load = (unsigned)optset_int(ctx->opts, "load");
	st->mlock = !optset_bool(ctx->opts, "no-mlock");
	st->laptop = optset_bool(ctx->opts, "laptop");
	st->period_us = (unsigned)optset_int(ctx->opts, "period");
	st->mode = optset_str(ctx->opts, "mode");
	if (!wv || wv->nlist < 2 || wv->nlist > CG_MAX_GROUPS)
		return vmb_usage(ctx, "--sched.weights takes 2 to %d weights, e.g. 1,3", CG_MAX_GROUPS);
	st->ngroups = (unsigned)wv->nlist;
	for (size_t i = 0; i < wv->nlist; i++)
		st->weights[i] = wv->list[i];
	r = select_cpus(ctx, st);
	if (r < 0)
		return vmb_fail(ctx, r, "reading this process's CPUs");
	st->tsc_per_ns = calibrate_ticks();
	if (!(st->tsc_per_ns > 0))
		return vmb_fail(ctx, -EIO, "the %s does not advance", ticks_name());
	(void)vmb_note(ctx, "hiccup_counter", "%s at %.3f GHz", ticks_name(), st->tsc_per_ns);
	find_cgroups(st);
	return 0;
}

static void sched_teardown(struct vmb_ctx *ctx)
{
	struct sched_state *st = ctx->priv;

	if (!st)
		return;
	if (st->cg_made)
		(void)cg_plan_run(&st->remove, false, NULL);
	cg_watchdog_stop(&st->dog);
	cg_plan_release(&st->remove);
	free(st);
	ctx->priv = NULL;
}

static int sched_run(struct vmb_ctx *ctx, const struct vmb_test *test, struct vmb_rep *rep)
{
	struct sched_state *st = ctx->priv;
	int r = -EINVAL;

	switch ((enum sched_kind)(uintptr_t)test->data) {
	case SCHED_WAKEUP:
		r = run_wakeup(ctx, st, rep);
		break;
	case SCHED_CTXSWITCH:
		r = run_ctxswitch(ctx, st, rep);
		break;
	case SCHED_STEAL:
		r = run_steal(ctx, st, rep);
		break;
	case SCHED_FAIRNESS:
		r = run_fairness(ctx, st, rep);
		break;
	}
	/* a window cut short by Ctrl-C may have nothing in it: not a failure */
	if (r < 0 && r != -EOPNOTSUPP && vmb_stop_requested())
		r = -EINTR;
	return r;
}

static const struct vmb_test sched_tests[] = {
	{ .name = "wakeup", .summary = "cyclictest's wake-up latency, one thread per CPU, with --sched.load beside it",
	  .headline = "latency_p50", .params = "interval,distance,policy,priority,load,threshold,laptop",
	  .data = (void *)(uintptr_t)SCHED_WAKEUP },
	{ .name = "ctxswitch", .summary = "a token passed between two threads by pipe and futex, on one CPU and two",
	  .headline = "pipe_1cpu_ns", .data = (void *)(uintptr_t)SCHED_CTXSWITCH },
	{ .name = "steal", .summary = "stolen time, run delay (schedstat) and TSC gaps under a busy loop on every CPU",
	  .headline = "on_cpu_pct", .params = "gap", .data = (void *)(uintptr_t)SCHED_STEAL },
	{ .name = "fairness", .summary = "cgroup groups under fair share, reservation and real time: Jain's index, probe latency",
	  .headline = "fair_equal_jain,fair_jain,reservation_jain,rt_jain", .params = "weights,mode,period,priority,interval",
	  .data = (void *)(uintptr_t)SCHED_FAIRNESS },
	{ .name = NULL },
};

static const struct vmb_opt sched_opts[] = {
	{ .name = "interval", .type = OPT_INT, .min = 50, .max = 1000000, .def = "1000", .metavar = "US",
	  .help = "wakeup, fairness probe: sleep period in microseconds (cyclictest -i)" },
	{ .name = "distance", .type = OPT_INT, .min = 0, .max = 100000, .def = "500", .metavar = "US",
	  .help = "wakeup: each further thread's interval is this much longer (cyclictest -d)" },
	{ .name = "policy", .type = OPT_STRING, .def = "other", .choices = "other|fifo|rr", .metavar = "POLICY",
	  .help = "wakeup: scheduling policy of the measuring threads (cyclictest -p with --policy)" },
	{ .name = "priority", .type = OPT_INT, .min = 0, .max = 99, .def = "0", .metavar = "N",
	  .help = "wakeup: real-time priority for fifo and rr; fairness: the rt probe's (0 there means 50)" },
	{ .name = "threshold", .type = OPT_INT, .min = 1, .max = 10000000, .def = "100", .metavar = "US",
	  .help = "wakeup: count the wake-ups later than this" },
	{ .name = "load", .type = OPT_INT, .min = 0, .max = 1024, .def = "0", .metavar = "N",
	  .help = "wakeup: N CPU-bound threads beside the measuring ones, on the same CPUs" },
	{ .name = "no-mlock", .type = OPT_BOOL, .help = "wakeup: do not lock memory (cyclictest without -m)" },
	{ .name = "laptop", .type = OPT_BOOL,
	  .help = "wakeup: do not hold /dev/cpu_dma_latency at 0 while measuring (cyclictest --laptop)" },
	{ .name = "gap", .type = OPT_INT, .min = 1, .max = 1000000, .def = "20", .metavar = "US",
	  .help = "steal: a step of the TSC loop longer than this is a hiccup (sysjitter, hwlatdetect)" },
	{ .name = "weights", .type = OPT_LIST, .min = 1, .max = 100, .def = "1,3", .metavar = "LIST",
	  .help = "fairness: relative CPU shares of 2 or 3 worker groups" },
	{ .name = "mode", .type = OPT_STRING, .def = "all", .choices = "all|fair|reservation|rt", .metavar = "MODE",
	  .help = "fairness: fair (weights), reservation (quota and period), rt (the probe real-time), or all" },
	{ .name = "period", .type = OPT_INT, .min = 1000, .max = 1000000, .def = "100000", .quick = "10000",
	  .metavar = "US", .help = "fairness: bandwidth-control period of the reservation mode" },
	OPT_TABLE_END,
};

const struct vmb_suite sched_suite = {
	.name = "sched",
	.summary = "scheduling: wake-up latency (cyclictest), context switches, steal, cgroup fairness",
	.abi = VMB_SUITE_ABI,
	.tests = sched_tests,
	.opts = sched_opts,
	.setup = sched_setup,
	.run = sched_run,
	.teardown = sched_teardown,
};
