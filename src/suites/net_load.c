/* The request/response load engine of net.http and net.memcached (see
 * net_load.h): the per-thread epoll loop, the connections' states, the
 * sweep for timeouts and reconnections, the schedule of the constant rate,
 * the window and its late first answer, the series, the tallies, the
 * threads. Non-2xx answers, server errors, socket errors and timeouts are
 * counted, never dropped.
 *
 * The client must not be what limits the figure (net.http's goal: at least
 * wrk's requests/s against the same server), so an answer costs one send
 * (the request's bytes built once, or pieces left where they lie), one
 * recv per 64 KiB into the thread's buffer, the protocol's parser over the
 * bytes where they lie, a clock read (vDSO) at each end and no allocation;
 * the next request goes out as the answer completes, and timeouts are
 * looked for once a ms. */
#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "net_load.h"
#include "../core/clock.h"
#include "../net/calc.h"
#include "../net/io.h"
#include "../core/banned.h"

#define LOAD_TIMEOUT_NS 2000000000ull /* a request unanswered this long is a timeout (wrk's default is 2 s) */
#define LOAD_SWEEP_NS 1000000ull      /* timeouts and reconnections are looked for once a ms, not per event */
/* A window that ends before any answer came (a server in a TCG guest under
 * load, --time 0.1) goes on to the first one, at most this long from its start:
 * the figure is then the answers over the window it really took. */
#define LOAD_FIRST_NS 10000000000ull
#define LOAD_READS 64                 /* reads per connection and wake-up: the others get their turn */
#define LOAD_RBUF 65536               /* a thread's read buffer: bodies are counted there, not kept */

enum load_state { L_CONNECTING, L_IDLE, L_WAIT };

struct load_conn {
	int fd;
	enum load_state state;
	bool out;     /* the request is not all sent: EPOLLOUT is asked for */
	int niov;
	uint64_t sent_ns, intended_ns;
	size_t off, len; /* bytes of the request sent, of all */
	struct iovec iov[NET_LOAD_IOV];
	void *pc;     /* the protocol's state of the connection */
};

struct net_load_thread {
	struct net_load_proto proto; /* a copy: one load fewer per call */
	void *pt;
	const struct sockaddr_storage *addr;
	socklen_t alen;
	unsigned nconn;
	double rate;   /* this thread's share of the rate; 0: as fast as answers come */
	uint64_t start_ns, end_ns;
	struct load_conn *conns;
	char *pcs;     /* the protocol's states of the connections */
	char *rbuf;
	int ep;
	/* results */
	uint64_t done, bytes, sockerr, timeouts;
	uint64_t answered; /* every answer, also those drained after the window */
	uint64_t last_ns;  /* the latest clock reading of this loop turn's events (0: none yet) */
	bool late; /* the window ended before any answer: it runs on to the first */
	struct hist hist;
	struct hist service; /* rate mode: from the actual send (wrk2's uncorrected latency) */
	/* the series (load_interval): per whole interval, checked once a
	 * loop turn, never per request, the requests done in it over its
	 * length and its latencies, as the histogram's non-zero buckets that
	 * grew in it (ivs[k].first to ivs[k + 1].first of ivb) */
	uint64_t iv_ns, iv_next, iv_start, iv_done;
	struct liv {
		double t_s, per_s;
		size_t first;
	} *ivs;
	size_t niv, maxiv;
	struct lbucket {
		unsigned idx;
		uint64_t n;
	} *ivb;
	size_t nivb, capivb;
	struct hist *iv_snap; /* the histogram at the last interval's end */
};

/* An interval of the series ends (now >= t->iv_next): what it added to the
 * thread's count and histogram. -ENOMEM when that cannot be kept. */
static int load_interval(struct net_load_thread *t, uint64_t now)
{
	struct liv *iv = &t->ivs[t->niv];

	iv->t_s = (double)(now - t->start_ns) / NSEC_PER_SEC;
	iv->per_s = (double)(t->done - t->iv_done) / ((double)(now - t->iv_start) / NSEC_PER_SEC);
	iv->first = t->nivb;
	for (unsigned b = 0; b < HIST_BUCKETS; b++) {
		uint64_t grew = t->hist.buckets[b] - t->iv_snap->buckets[b];

		if (!grew)
			continue;
		if (t->nivb == t->capivb) {
			size_t nc = t->capivb ? 2 * t->capivb : 256;
			struct lbucket *nb = realloc(t->ivb, nc * sizeof(*nb));

			if (!nb)
				return -ENOMEM;
			t->ivb = nb;
			t->capivb = nc;
		}
		t->ivb[t->nivb++] = (struct lbucket){ .idx = b, .n = grew };
	}
	memcpy(t->iv_snap, &t->hist, sizeof(t->hist));
	t->niv++;
	t->iv_done = t->done;
	t->iv_start = now;
	t->iv_next = now + t->iv_ns;
	return 0;
}

static int conn_connect(struct net_load_thread *t, struct load_conn *c)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.ptr = c };

	c->fd = netio_connect(t->addr, t->alen, 2000);
	if (c->fd < 0)
		return c->fd;
	c->state = L_IDLE;
	c->out = false;
	if (epoll_ctl(t->ep, EPOLL_CTL_ADD, c->fd, &ev) < 0) {
		int r = -errno;

		close(c->fd);
		c->fd = -1;
		return r;
	}
	return 0;
}

static void conn_drop(struct net_load_thread *t, struct load_conn *c)
{
	if (c->fd >= 0) {
		(void)epoll_ctl(t->ep, EPOLL_CTL_DEL, c->fd, NULL);
		close(c->fd);
	}
	c->fd = -1;
	c->state = L_CONNECTING;
}

/* A failed connection: counted, replaced. */
static void conn_error(struct net_load_thread *t, struct load_conn *c)
{
	t->sockerr++;
	conn_drop(t, c);
	if (conn_connect(t, c) < 0)
		c->state = L_CONNECTING; /* tried again on the next round */
}

static void conn_want_out(struct net_load_thread *t, struct load_conn *c, bool on)
{
	struct epoll_event ev = { .events = EPOLLIN | (on ? EPOLLOUT : 0), .data.ptr = c };

	if (c->out != on && epoll_ctl(t->ep, EPOLL_CTL_MOD, c->fd, &ev) == 0)
		c->out = on;
}

/* The rest of a request in pieces (memcached's set), from c->off on. */
static ssize_t conn_sendmsg(struct load_conn *c)
{
	struct iovec iov[NET_LOAD_IOV];
	struct msghdr m = { .msg_iov = iov };
	size_t o = c->off;

	for (int i = 0; i < c->niov; i++) {
		if (o >= c->iov[i].iov_len) {
			o -= c->iov[i].iov_len;
			continue;
		}
		iov[m.msg_iovlen++] = (struct iovec){ .iov_base = (char *)c->iov[i].iov_base + o,
						      .iov_len = c->iov[i].iov_len - o };
		o = 0;
	}
	return sendmsg(c->fd, &m, MSG_NOSIGNAL | MSG_DONTWAIT);
}

/* The request's next bytes, as many as the socket takes (the rest when
 * EPOLLOUT says there is room). false after an error (the connection
 * replaced). */
static bool conn_push(struct net_load_thread *t, struct load_conn *c)
{
	while (c->off < c->len) {
		ssize_t k = c->niov == 1 ? send(c->fd, (char *)c->iov[0].iov_base + c->off, c->len - c->off,
						MSG_NOSIGNAL | MSG_DONTWAIT)
					 : conn_sendmsg(c);

		if (k < 0 && (errno == EAGAIN || errno == EINTR)) {
			conn_want_out(t, c, true);
			return true;
		}
		if (k <= 0) {
			conn_error(t, c);
			return false;
		}
		c->off += (size_t)k;
	}
	if (c->out)
		conn_want_out(t, c, false);
	return true;
}

/* A request on an idle connection, due at intended (0: now). */
static bool conn_send(struct net_load_thread *t, struct load_conn *c, uint64_t intended)
{
	uint64_t now = t->last_ns = clock_ns();
	int n = t->proto.request(t->pt, c->pc, c->iov);

	if (n < 0)
		return false; /* the run's checks keep every request valid */
	c->niov = n;
	c->len = c->iov[0].iov_len;
	for (int i = 1; i < n; i++)
		c->len += c->iov[i].iov_len;
	c->off = 0;
	c->state = L_WAIT;
	c->sent_ns = now;
	c->intended_ns = intended ? intended : now;
	if (n == 1) {
		/* the usual case, one piece that goes at once: nothing more to do */
		ssize_t k = send(c->fd, c->iov[0].iov_base, c->len, MSG_NOSIGNAL | MSG_DONTWAIT);

		if (k == (ssize_t)c->len && !c->out)
			return true;
		if (k > 0)
			c->off = (size_t)k;
	}
	return conn_push(t, c); /* the rest, or the error's account */
}

/* An answer is complete at now: counted if in the window, and as fast as
 * answers come the next request goes out at once, as wrk sends it. */
static void conn_complete(struct net_load_thread *t, struct load_conn *c, uint64_t now, bool closes)
{
	t->answered++;
	if (now < t->end_ns) {
		uint64_t lat = sched_latency_ns(c->intended_ns, c->sent_ns, now);

		t->done++;
		t->proto.counted(t->pt, c->pc, lat);
		hist_record(&t->hist, lat);
		if (t->rate > 0) /* only the constant rate reports it: the closed loop has no schedule */
			hist_record(&t->service, now - c->sent_ns);
	}
	c->state = L_IDLE;
	if (closes) {
		conn_drop(t, c);
		if (conn_connect(t, c) < 0) {
			t->sockerr++;
			return;
		}
	}
	if (t->rate <= 0 && now < t->end_ns)
		(void)conn_send(t, c, 0);
}

/* What the connection has: into the thread's buffer, through the parser,
 * and gone. A short read means the socket is empty: no read more to be
 * told so (epoll is level-triggered and says when there is more). */
static void conn_readable(struct net_load_thread *t, struct load_conn *c)
{
	for (unsigned k = 0; k < LOAD_READS; k++) {
		ssize_t n = recv(c->fd, t->rbuf, LOAD_RBUF, MSG_DONTWAIT);
		uint64_t now;
		size_t used;
		int r;

		if (n < 0 && (errno == EAGAIN || errno == EINTR))
			return;
		if (n < 0 || c->state != L_WAIT) {
			conn_error(t, c); /* failed, or closed or bytes when nothing was asked */
			return;
		}
		now = t->last_ns = clock_ns();
		if (n == 0) {
			/* the server closed: the end of an answer framed so, else an error */
			r = t->proto.eof ? t->proto.eof(c->pc) : -EPIPE;
			if (r > 0)
				conn_complete(t, c, now, r == NET_LOAD_DONE_CLOSE);
			else
				conn_error(t, c);
			return;
		}
		if (now < t->end_ns)
			t->bytes += (uint64_t)n;
		r = t->proto.feed(c->pc, t->rbuf, (size_t)n, &used);
		if (r < 0 || (r > 0 && used != (size_t)n)) {
			conn_error(t, c); /* malformed, or more than the answer: not ours */
			return;
		}
		if (r > 0) {
			conn_complete(t, c, now, r == NET_LOAD_DONE_CLOSE);
			return;
		}
		if ((size_t)n < LOAD_RBUF)
			return;
	}
}

static void conn_event(struct net_load_thread *t, const struct epoll_event *ev)
{
	struct load_conn *c = ev->data.ptr;

	if (ev->events & EPOLLOUT) {
		if (c->state == L_WAIT && c->out && !conn_push(t, c))
			return;
		if (!(ev->events & (EPOLLIN | EPOLLERR | EPOLLHUP)))
			return;
	}
	conn_readable(t, c);
}

/* epoll_wait to the next due time in ns: its ms would spin or oversleep.
 * Where epoll_pwait2 is missing (Linux before 5.11, valgrind), whole ms
 * rounded down: a send is never late for the wait, the loop spins at most
 * the last ms before it. */
static int load_wait(int ep, struct epoll_event *evs, int max, uint64_t timeout_ns)
{
	static _Atomic bool no_pwait2;
	int n;

	if (!no_pwait2) {
		struct timespec ts = clock_ns_ts(timeout_ns);

		n = epoll_pwait2(ep, evs, max, &ts, NULL);
		if (n >= 0 || errno != ENOSYS)
			return n;
		no_pwait2 = true;
	}
	return epoll_wait(ep, evs, max, (int)(timeout_ns / NSEC_PER_MSEC));
}

static void load_thread(struct vmb_worker *w)
{
	struct net_load_thread *t = w->arg;
	struct epoll_event evs[64];
	uint64_t next = 0, sweep = 0; /* requests issued on the schedule (rate mode); the next sweep */

	t->ep = epoll_create1(EPOLL_CLOEXEC);
	t->conns = calloc(t->nconn, sizeof(*t->conns));
	t->pcs = calloc(t->nconn, t->proto.conn_size ? t->proto.conn_size : 1);
	t->rbuf = malloc(LOAD_RBUF);
	if (t->ep < 0 || !t->conns || !t->pcs || !t->rbuf) {
		w->err = -ENOMEM;
	} else {
		for (unsigned i = 0; i < t->nconn; i++) {
			int r;

			t->conns[i].fd = -1;
			t->conns[i].pc = t->pcs + i * t->proto.conn_size;
			r = conn_connect(t, &t->conns[i]);
			if (r < 0 && !w->err)
				w->err = r;
		}
	}
	vmb_worker_sync(w);
	if (w->err < 0)
		goto out;
	/* The measured window: every thread's begins when it is released. */
	w->start_ns = t->start_ns = clock_ns();
	t->end_ns = t->start_ns + (uint64_t)((double)t->end_ns);
	t->iv_start = t->start_ns;
	t->iv_next = t->start_ns + t->iv_ns;
	for (;;) {
		/* the turn's time: as fast as answers come, the last reading of
		 * the previous turn's events (an answer's end or the send after
		 * it, a moment before), one of its own after a wait that ended
		 * without any: a clock read per turn fewer, and with the server
		 * the bound a turn is about an answer. It decides the window's end
		 * (each answer is counted in it by its own time), the series and
		 * the sweep, never a latency; a schedule (rate mode) reads the
		 * clock anew. */
		uint64_t now = t->rate <= 0 && t->last_ns ? t->last_ns : clock_ns(), timeout_ns = 10 * NSEC_PER_MSEC;
		int n;

		if (vmb_stop_requested())
			break;
		if (now >= t->end_ns || (t->late && t->done)) {
			if (t->done || t->late)
				break;
			/* no answer yet: the window runs on to the first (counted as
			 * any, its end then the loop's), at most LOAD_FIRST_NS */
			t->late = true;
			t->end_ns = t->start_ns + LOAD_FIRST_NS;
		}
		if (now >= t->iv_next && t->niv < t->maxiv && load_interval(t, now) < 0) {
			w->err = -ENOMEM;
			break;
		}
		/* the sweep: replaced connections, timeouts, and as fast as answers
		 * come a request on every idle connection (the first ones; a
		 * replaced one) */
		if (now >= sweep) {
			for (unsigned i = 0; i < t->nconn; i++) {
				struct load_conn *c = &t->conns[i];

				if (c->state == L_CONNECTING && conn_connect(t, c) < 0)
					t->sockerr++;
				if (c->state == L_WAIT && now - c->sent_ns > LOAD_TIMEOUT_NS) {
					t->timeouts++;
					conn_drop(t, c);
					(void)conn_connect(t, c);
				}
				if (t->rate <= 0 && c->state == L_IDLE)
					(void)conn_send(t, c, 0);
			}
			sweep = now + LOAD_SWEEP_NS;
		}
		if (t->rate > 0) {
			unsigned i = 0;

			for (;;) {
				uint64_t due = sched_intended_ns(t->start_ns, next, t->rate);

				if (due > now || due >= t->end_ns) {
					if (due > now && due - now < timeout_ns)
						timeout_ns = due - now;
					break;
				}
				while (i < t->nconn && t->conns[i].state != L_IDLE)
					i++;
				if (i == t->nconn)
					break; /* every connection busy: the request waits, its clock runs */
				if (conn_send(t, &t->conns[i], due))
					next++;
			}
		}
		n = load_wait(t->ep, evs, 64, timeout_ns);
		t->last_ns = 0;
		for (int k = 0; k < n; k++)
			conn_event(t, &evs[k]);
	}
	w->end_ns = clock_ns();
	/* The window is over. Wait (bounded) for the answers still on the way,
	 * uncounted in the figures, so that the client's count of answers
	 * can be checked against the server's own. Uncounted and unanswered
	 * because they come after end_ns: a window that ran on to a late first
	 * answer ended there, not at end_ns's 10 s bound (when it kept that
	 * bound, this wait counted 2 s of answers more, and sent their next
	 * requests, into a window of the first answer's time: issue 41's
	 * repetitions of 29,406 requests/s among 847 to 3,164, and of 5.98 in
	 * flight on one connection). */
	if (w->end_ns < t->end_ns)
		t->end_ns = w->end_ns;
	for (uint64_t until = clock_ns() + LOAD_TIMEOUT_NS; clock_ns() < until && !vmb_stop_requested();) {
		bool waiting = false;
		int n;

		for (unsigned i = 0; i < t->nconn; i++)
			waiting |= t->conns[i].state == L_WAIT;
		if (!waiting)
			break;
		n = epoll_wait(t->ep, evs, 64, 10);
		for (int k = 0; k < n; k++)
			conn_event(t, &evs[k]);
	}
out:
	if (t->conns)
		for (unsigned i = 0; i < t->nconn; i++)
			if (t->conns[i].fd >= 0)
				close(t->conns[i].fd);
	if (t->ep >= 0)
		close(t->ep);
	free(t->conns);
	t->conns = NULL;
	free(t->pcs);
	t->pcs = NULL;
	free(t->rbuf);
	t->rbuf = NULL;
}

void net_load_fd_limit(unsigned conns)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < (rlim_t)conns + 64 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max < (rlim_t)conns + 64 ? rl.rlim_max : (rlim_t)conns + 64;
		(void)setrlimit(RLIMIT_NOFILE, &rl);
	}
}

int net_load_run(struct vmb_ctx *ctx, struct net_load *l)
{
	unsigned nth = l->threads > l->conns ? l->conns : l->threads;
	uint64_t start = UINT64_MAX, end = 0;
	int r;

	l->threads = nth;
	l->all = hist_new();
	l->service = hist_new();
	if (!l->all || !l->service)
		return vmb_fail(ctx, -ENOMEM, "latency histogram");
	l->workers = calloc(nth, sizeof(*l->workers));
	l->ts = calloc(nth, sizeof(*l->ts));
	if (!l->workers || !l->ts)
		return vmb_fail(ctx, -ENOMEM, "%u client threads", nth);
	for (unsigned i = 0; i < nth; i++) {
		struct net_load_thread *t = &l->ts[i];

		t->proto = *l->proto;
		t->pt = (char *)l->pts + i * l->pt_size;
		t->addr = l->addr;
		t->alen = l->alen;
		t->nconn = l->conns / nth + (i < l->conns % nth);
		t->rate = l->rate / nth;
		t->end_ns = (uint64_t)(l->window_s * NSEC_PER_SEC); /* a length until the thread starts */
		t->ep = -1;
		hist_init(&t->hist);
		hist_init(&t->service);
		if (l->interval_s > 0) {
			/* whole intervals inside the window only */
			t->iv_ns = (uint64_t)(l->interval_s * NSEC_PER_SEC);
			t->maxiv = (size_t)(l->window_s / l->interval_s + 1e-9);
			t->ivs = calloc(t->maxiv + 1, sizeof(*t->ivs));
			t->iv_snap = hist_new();
			if (!t->ivs || !t->iv_snap)
				return vmb_fail(ctx, -ENOMEM, "the series of %u client threads", nth);
		}
		l->workers[i].arg = t;
	}
	r = vmb_parallel(ctx, nth, load_thread, l->workers);
	if (r < 0) {
		if (!ctx->reason[0])
			r = vmb_fail(ctx, r, "connecting %u connections to %s", l->conns, l->name);
		return r;
	}
	for (unsigned i = 0; i < nth; i++) {
		const struct net_load_thread *t = &l->ts[i];

		if (l->workers[i].start_ns < start)
			start = l->workers[i].start_ns;
		if (l->workers[i].end_ns > end)
			end = l->workers[i].end_ns;
		l->done += t->done;
		l->answered += t->answered;
		l->bytes += t->bytes;
		l->sockerr += t->sockerr;
		l->timeouts += t->timeouts;
		hist_merge(l->all, &t->hist);
		hist_merge(l->service, &t->service);
	}
	l->win = (double)(end - start) / NSEC_PER_SEC;
	if (l->done == 0 || l->win <= 0)
		return vmb_fail(ctx, -EIO, "no response in %.3f s from %s%s%s (%llu socket errors, %llu timeouts)", l->win,
				l->kind ? l->kind : "", l->kind ? " at " : "", l->name, (unsigned long long)l->sockerr,
				(unsigned long long)l->timeouts);
	return 0;
}

void net_load_release(struct net_load *l)
{
	hist_free(l->all);
	hist_free(l->service);
	for (unsigned i = 0; l->ts && i < l->threads; i++) {
		free(l->ts[i].ivs);
		free(l->ts[i].ivb);
		hist_free(l->ts[i].iv_snap);
	}
	free(l->workers);
	free(l->ts);
	l->all = l->service = NULL;
	l->workers = NULL;
	l->ts = NULL;
}

void net_load_report_rate(struct vmb_rep *rep, const struct net_load *l)
{
	vmb_rep_value(rep, "requests_per_s", VMB_UNIT_PER_S, VMB_HIGHER, (double)l->done / l->win);
	vmb_rep_value(rep, "transfer_mb_s", VMB_UNIT_MB_PER_S, VMB_HIGHER, (double)l->bytes / l->win / 1e6);
	vmb_rep_hist(rep, "latency", VMB_UNIT_NS, l->all);
	/* the tail per repetition as a value of its own: the report's curve over
	 * the connections sweep draws it beside requests/s */
	vmb_rep_value(rep, "p99_latency", VMB_UNIT_NS, VMB_LOWER, hist_percentile(l->all, 99));
}

void net_load_report_loop(struct vmb_rep *rep, const struct net_load *l)
{
	/* wrk2 prints this one with --u_latency: what coordinated omission would hide */
	if (l->rate > 0)
		vmb_rep_hist(rep, "uncorrected_latency", VMB_UNIT_NS, l->service);
	/* one request in flight per connection at most, each timed from its
	 * send to its answer inside its thread's window: as fast as answers
	 * come is a closed loop on "latency"; under a rate, "latency" runs from
	 * the schedule's time (open: a request waits for a free connection with
	 * its clock running), and the loop is the one of the uncorrected
	 * latency */
	vmb_rep_closed_loop(rep, "requests_per_s", l->rate > 0 ? "uncorrected_latency" : "latency", l->conns,
			    "connection");
}

/* The series of the repetition: per interval k that every thread reached,
 * requests_per_s (the threads' rates in it, added up) and p99_latency (of
 * the latencies of every thread in it, from the histogram's buckets: the
 * midpoint of the bucket, as any percentile here), at the interval's end
 * on the first thread's clock. */
int net_load_report_series(struct vmb_rep *rep, const struct net_load *l)
{
	const struct net_load_thread *ts = l->ts;
	struct hist *h;
	size_t n = SIZE_MAX;

	if (l->interval_s <= 0)
		return 0;
	h = hist_new();
	if (!h)
		return -ENOMEM;
	for (unsigned i = 0; i < l->threads; i++)
		n = ts[i].niv < n ? ts[i].niv : n;
	for (size_t k = 0; k < n; k++) {
		double per_s = 0;

		hist_init(h);
		for (unsigned i = 0; i < l->threads; i++) {
			size_t to = k + 1 < ts[i].niv ? ts[i].ivs[k + 1].first : ts[i].nivb;

			per_s += ts[i].ivs[k].per_s;
			for (size_t b = ts[i].ivs[k].first; b < to; b++) {
				h->buckets[ts[i].ivb[b].idx] += ts[i].ivb[b].n;
				h->count += ts[i].ivb[b].n;
			}
		}
		vmb_rep_point(rep, "requests_per_s", VMB_UNIT_PER_S, ts[0].ivs[k].t_s, per_s);
		if (h->count) {
			h->min = 0;
			h->max = UINT64_MAX;
			vmb_rep_point(rep, "p99_latency", VMB_UNIT_NS, ts[0].ivs[k].t_s, hist_percentile(h, 99));
		}
	}
	hist_free(h);
	return 0;
}

void net_load_report_counts(struct vmb_rep *rep, const struct net_load *l)
{
	vmb_rep_value(rep, "requests", VMB_UNIT_NONE, VMB_HIGHER, (double)l->done);
	vmb_rep_value(rep, "responses", VMB_UNIT_NONE, VMB_HIGHER, (double)l->answered);
}

void net_load_report_errors(struct vmb_rep *rep, const struct net_load *l)
{
	vmb_rep_value(rep, "errors_socket", VMB_UNIT_NONE, VMB_LOWER, (double)l->sockerr);
	vmb_rep_value(rep, "errors_timeout", VMB_UNIT_NONE, VMB_LOWER, (double)l->timeouts);
}
