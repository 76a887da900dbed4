/* The sched suite's steal test: CPU-bound loops on every selected CPU;
 * /proc/stat steal, schedstat run delay (the in-guest %RDY), and gaps in a
 * loop reading the hiccup counter (sysjitter, hwlatdetect). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sched.h"
#include "../core/clock.h"
#include "../core/file.h"
#include "../core/stoppoint.h"
#include "../core/suite.h"
#include "../core/banned.h"

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

	w->err = sched_pin_self(st->cpus[w->id % st->ncpus]);
	if (w->err == 0)
		w->err = read_schedstat(&run0, &wait0);
	vmb_worker_sync(w);
	if (w->err < 0)
		return;
	w->start_ns = clock_ns();
	end = w->start_ns + (uint64_t)(sw->duration_s * NSEC_PER_SEC);
	prev = sw->t0 = sched_ticks();
	/* sysjitter: spin reading the counter; a step larger than the gap is
	 * time this thread did not run */
	for (uint64_t i = 0;; i++) {
		uint64_t t = sched_ticks(), d = t - prev;

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
	vmb_rep_value(rep, "on_cpu_pct", VMB_UNIT_PCT, VMB_HIGHER, 100.0 * (double)run / window);
	vmb_rep_value(rep, "steal_pct", VMB_UNIT_PCT, VMB_LOWER, steal_pct);
	vmb_rep_value(rep, "run_delay_pct", VMB_UNIT_PCT, VMB_LOWER, 100.0 * (double)wait / window);
	vmb_rep_value(rep, "gaps_per_s", VMB_UNIT_PER_S, VMB_LOWER, (double)gaps / (window / NSEC_PER_SEC));
	vmb_rep_value(rep, "gap_max", VMB_UNIT_NS, VMB_LOWER, gap_max);
	vmb_rep_value(rep, "gap_pct", VMB_UNIT_PCT, VMB_LOWER, 100.0 * gap_sum / window);
out:
	free(workers);
	free(sw);
	return r;
}

int sched_run_steal(struct vmb_ctx *ctx, const struct vmb_test *test, struct vmb_rep *rep)
{
	(void)test;
	return sched_end(run_steal(ctx, ctx->priv, rep));
}
