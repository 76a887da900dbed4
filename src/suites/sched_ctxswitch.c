/* The sched suite's ctxswitch test: a token passed between two threads
 * through a pipe and through a futex, on one CPU and on two (stress-ng's and
 * lmbench lat_ctx's figures, lat_ctx's pipe overhead subtracted). */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/futex.h>
#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "sched.h"
#include "../core/clock.h"
#include "../core/file.h"
#include "../core/stoppoint.h"
#include "../core/suite.h"
#include "../core/banned.h"

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

	w->err = sched_pin_self(t->cpu[me]);
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
		vmb_rep_value(rep, name, VMB_UNIT_NS, VMB_LOWER, ns);
		if (rows[i].kind == TOKEN_PIPE) {
			/* lmbench lat_ctx: minus one pipe write and read done alone */
			double over = pipe_overhead_ns();

			snprintf(name, sizeof(name), "%s_net_ns", rows[i].name);
			if (isfinite(over))
				vmb_rep_value(rep, name, VMB_UNIT_NS, VMB_LOWER, ns - over > 0 ? ns - over : 0);
		}
	}
	return r;
}

int sched_run_ctxswitch(struct vmb_ctx *ctx, const struct vmb_test *test, struct vmb_rep *rep)
{
	(void)test;
	return sched_end(run_ctxswitch(ctx, ctx->priv, rep));
}
