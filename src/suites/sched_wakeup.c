/* The sched suite's wakeup test: cyclictest's measurement. One thread per
 * selected CPU sleeps to an absolute time and records how late it woke
 * (sched_cyclic_loop), with --sched.load CPU-bound threads beside it, the
 * memory locked and /dev/cpu_dma_latency held at 0 unless told otherwise. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>
#include "sched.h"
#include "../core/clock.h"
#include "../core/file.h"
#include "../core/stoppoint.h"
#include "../core/suite.h"
#include "../core/banned.h"

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

	w->err = sched_pin_self(st->cpus[ww->idx % st->ncpus]);
	if (w->err == 0 && measure)
		w->err = sched_set_policy(st->policy, st->priority);
	vmb_worker_sync(w);
	if (w->err < 0) {
		atomic_fetch_add(&sh->finished, 1);
		return;
	}
	w->start_ns = clock_ns();
	if (measure) {
		/* cyclictest: thread i's interval is the interval + i * distance */
		ww->wakeups = sched_cyclic_loop(&ww->lat, st->interval_ns + ww->idx * st->distance_ns, sh->duration_s);
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
	sched_report_lat(rep, "latency", all, true);
	vmb_rep_value(rep, "wakeups", VMB_UNIT_NONE, VMB_HIGHER, (double)wakeups);
	vmb_rep_value(rep, "over_threshold", VMB_UNIT_NONE, VMB_LOWER, (double)all->over);
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

int sched_run_wakeup(struct vmb_ctx *ctx, const struct vmb_test *test, struct vmb_rep *rep)
{
	(void)test;
	return sched_end(run_wakeup(ctx, ctx->priv, rep));
}
