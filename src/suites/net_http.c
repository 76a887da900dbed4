/* The net suite's HTTP/1.1 load generator: N keep-alive connections over
 * T threads, each thread one epoll loop. Two modes, as the peers define
 * them: as fast as responses come (wrk: requests/s = completed / duration,
 * latency from each request's send), or a constant total rate (wrk2 -R:
 * each request has an intended send time on the schedule and its latency
 * is measured from that time, so a stalled server shows in the tail).
 * Non-2xx responses, socket errors and timeouts are counted, never dropped.
 * Against `vmbench serve` the server's own count of answered requests is
 * read before and after and reported beside the client's.
 *
 * The client must not be what limits the figure (its goal: at least wrk's
 * requests/s against the same server), so a response costs one send (the
 * request's bytes built once), one recv per 64 KiB into the thread's
 * buffer, the parser over the bytes where they lie, a clock read (vDSO)
 * at each end and no allocation; the next request goes out as the
 * response completes, and timeouts are looked for once a ms. */
#include <errno.h>
#include <netinet/in.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "net.h"
#include "../core/clock.h"
#include "../net/calc.h"
#include "../net/http.h"
#include "../core/banned.h"

#define HTTP_TIMEOUT_NS 2000000000ull /* a request unanswered this long is a timeout (wrk's default is 2 s) */
#define HTTP_SWEEP_NS 1000000ull      /* timeouts and reconnections are looked for once a ms, not per event */
/* A window that ends before any response came (a server in a TCG guest under
 * load, --time 0.1) goes on to the first one, at most this long from its start:
 * the figure is then the responses over the window it really took. */
#define HTTP_FIRST_NS 10000000000ull
#define HTTP_READS 64                 /* reads per connection and wake-up: the others get their turn */
#define RBUF 65536                    /* a thread's read buffer: bodies are counted there, not kept */

enum hstate { H_CONNECTING, H_IDLE, H_WAIT };

struct hc {
	int fd;
	enum hstate state;
	uint64_t sent_ns, intended_ns;
	struct nethttp_resp rp; /* the response on the way, parsed as it comes */
};

struct hthread {
	const struct sockaddr_storage *addr;
	socklen_t alen;
	const char *request;
	size_t reqlen;
	unsigned nconn;
	double rate;   /* this thread's share of --net.http-rate; 0: wrk mode */
	uint64_t start_ns, end_ns;
	struct hc *conns;
	char *rbuf;
	int ep;
	/* results */
	uint64_t done, bytes, non2xx, sockerr, timeouts;
	uint64_t answered; /* every response, also those drained after the window */
	uint64_t last_ns;  /* the latest clock reading of this loop turn's events (0: none yet) */
	bool late; /* the window ended before any response: it runs on to the first */
	struct hist hist;
	struct hist service; /* rate mode: from the actual send (wrk2's uncorrected latency) */
	/* the series (http_interval): per whole --net.interval, checked once a
	 * loop turn, never per request, the requests done in it over its
	 * length and its latencies, as the histogram's non-zero buckets that
	 * grew in it (ivs[k].first to ivs[k + 1].first of ivb) */
	uint64_t iv_ns, iv_next, iv_start, iv_done;
	struct hiv {
		double t_s, per_s;
		size_t first;
	} *ivs;
	size_t niv, maxiv;
	struct hbucket {
		unsigned idx;
		uint64_t n;
	} *ivb;
	size_t nivb, capivb;
	struct hist *iv_snap; /* the histogram at the last interval's end */
	int err;
};

/* An interval of the series ends (now >= t->iv_next): what it added to the
 * thread's count and histogram. -ENOMEM when that cannot be kept. */
static int http_interval(struct hthread *t, uint64_t now)
{
	struct hiv *iv = &t->ivs[t->niv];

	iv->t_s = (double)(now - t->start_ns) / NSEC_PER_SEC;
	iv->per_s = (double)(t->done - t->iv_done) / ((double)(now - t->iv_start) / NSEC_PER_SEC);
	iv->first = t->nivb;
	for (unsigned b = 0; b < HIST_BUCKETS; b++) {
		uint64_t grew = t->hist.buckets[b] - t->iv_snap->buckets[b];

		if (!grew)
			continue;
		if (t->nivb == t->capivb) {
			size_t nc = t->capivb ? 2 * t->capivb : 256;
			struct hbucket *nb = realloc(t->ivb, nc * sizeof(*nb));

			if (!nb)
				return -ENOMEM;
			t->ivb = nb;
			t->capivb = nc;
		}
		t->ivb[t->nivb++] = (struct hbucket){ .idx = b, .n = grew };
	}
	memcpy(t->iv_snap, &t->hist, sizeof(t->hist));
	t->niv++;
	t->iv_done = t->done;
	t->iv_start = now;
	t->iv_next = now + t->iv_ns;
	return 0;
}

static int hc_connect(struct hthread *t, struct hc *c)
{
	struct epoll_event ev;

	c->fd = netio_connect(t->addr, t->alen, 2000);
	if (c->fd < 0)
		return c->fd;
	c->state = H_IDLE;
	ev.events = EPOLLIN;
	ev.data.ptr = c;
	if (epoll_ctl(t->ep, EPOLL_CTL_ADD, c->fd, &ev) < 0) {
		int r = -errno;

		close(c->fd);
		c->fd = -1;
		return r;
	}
	return 0;
}

static void hc_drop(struct hthread *t, struct hc *c)
{
	if (c->fd >= 0) {
		(void)epoll_ctl(t->ep, EPOLL_CTL_DEL, c->fd, NULL);
		close(c->fd);
	}
	c->fd = -1;
	c->state = H_CONNECTING;
}

/* A failed connection: counted, replaced. */
static void hc_error(struct hthread *t, struct hc *c)
{
	t->sockerr++;
	hc_drop(t, c);
	if (hc_connect(t, c) < 0)
		c->state = H_CONNECTING; /* tried again on the next round */
}

static bool hc_send(struct hthread *t, struct hc *c, uint64_t intended)
{
	uint64_t now = t->last_ns = clock_ns();

	if (send(c->fd, t->request, t->reqlen, MSG_NOSIGNAL | MSG_DONTWAIT) != (ssize_t)t->reqlen) {
		hc_error(t, c);
		return false;
	}
	c->state = H_WAIT;
	c->sent_ns = now;
	c->intended_ns = intended ? intended : now;
	nethttp_resp_init(&c->rp, false);
	return true;
}

/* A response is complete at now: counted if in the window, and in wrk's
 * mode the next request goes out at once, as wrk sends it. */
static void hc_complete(struct hthread *t, struct hc *c, uint64_t now)
{
	t->answered++;
	if (now < t->end_ns) {
		t->done++;
		if (c->rp.status < 200 || c->rp.status > 299)
			t->non2xx++;
		hist_record(&t->hist, sched_latency_ns(c->intended_ns, c->sent_ns, now));
		if (t->rate > 0) /* only the constant rate reports it: wrk's mode has no schedule */
			hist_record(&t->service, now - c->sent_ns);
	}
	c->state = H_IDLE;
	if (c->rp.close_after) {
		hc_drop(t, c);
		if (hc_connect(t, c) < 0) {
			t->sockerr++;
			return;
		}
	}
	if (t->rate <= 0 && now < t->end_ns)
		(void)hc_send(t, c, 0);
}

/* What the connection has: into the thread's buffer, through the parser,
 * and gone. A short read means the socket is empty: no read more to be
 * told so (epoll is level-triggered and says when there is more). */
static void hc_readable(struct hthread *t, struct hc *c)
{
	for (unsigned k = 0; k < HTTP_READS; k++) {
		ssize_t n = recv(c->fd, t->rbuf, RBUF, MSG_DONTWAIT);
		uint64_t now;
		size_t used;
		int r;

		if (n < 0 && (errno == EAGAIN || errno == EINTR))
			return;
		if (n < 0 || c->state != H_WAIT) {
			hc_error(t, c); /* failed, or closed or bytes when nothing was asked */
			return;
		}
		now = t->last_ns = clock_ns();
		if (n == 0) {
			/* the server closed: the end of a body framed so, else an error */
			if (nethttp_resp_eof(&c->rp) == 0)
				hc_complete(t, c, now);
			else
				hc_error(t, c);
			return;
		}
		if (now < t->end_ns)
			t->bytes += (uint64_t)n;
		r = nethttp_resp_feed(&c->rp, t->rbuf, (size_t)n, &used);
		if (r < 0 || (r == 1 && used != (size_t)n)) {
			hc_error(t, c); /* malformed, or more than the response: not ours */
			return;
		}
		if (r == 1) {
			hc_complete(t, c, now);
			return;
		}
		if ((size_t)n < RBUF)
			return;
	}
}

/* epoll_wait to the next due time in ns: its ms would spin or oversleep.
 * Where epoll_pwait2 is missing (Linux before 5.11, valgrind), whole ms
 * rounded down: a send is never late for the wait, the loop spins at most
 * the last ms before it. */
static int http_wait(int ep, struct epoll_event *evs, int max, uint64_t timeout_ns)
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

static void http_thread(struct vmb_worker *w)
{
	struct hthread *t = w->arg;
	struct epoll_event evs[64];
	uint64_t next = 0, sweep = 0; /* requests issued on the schedule (rate mode); the next sweep */

	t->ep = epoll_create1(EPOLL_CLOEXEC);
	t->conns = calloc(t->nconn, sizeof(*t->conns));
	t->rbuf = malloc(RBUF);
	if (t->ep < 0 || !t->conns || !t->rbuf) {
		w->err = -ENOMEM;
	} else {
		for (unsigned i = 0; i < t->nconn; i++) {
			int r;

			t->conns[i].fd = -1;
			r = hc_connect(t, &t->conns[i]);
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
		/* the turn's time: in wrk's mode the last reading of the previous
		 * turn's events (a response's end or the send after it, a moment
		 * before), one of its own after a wait that ended without any: a
		 * clock read per turn fewer, and with the server the bound a turn
		 * is about a response. It decides the window's end (each response
		 * is counted in it by its own time), the series and the sweep,
		 * never a latency; a schedule (rate mode) reads the clock anew. */
		uint64_t now = t->rate <= 0 && t->last_ns ? t->last_ns : clock_ns(), timeout_ns = 10 * NSEC_PER_MSEC;
		int n;

		if (vmb_stop_requested())
			break;
		if (now >= t->end_ns || (t->late && t->done)) {
			if (t->done || t->late)
				break;
			/* no response yet: the window runs on to the first (counted as
			 * any, its end then the loop's), at most HTTP_FIRST_NS */
			t->late = true;
			t->end_ns = t->start_ns + HTTP_FIRST_NS;
		}
		if (now >= t->iv_next && t->niv < t->maxiv && http_interval(t, now) < 0) {
			w->err = -ENOMEM;
			break;
		}
		/* the sweep: replaced connections, timeouts, and in wrk's mode a
		 * request on every idle connection (the first ones; a replaced one) */
		if (now >= sweep) {
			for (unsigned i = 0; i < t->nconn; i++) {
				struct hc *c = &t->conns[i];

				if (c->state == H_CONNECTING && hc_connect(t, c) < 0)
					t->sockerr++;
				if (c->state == H_WAIT && now - c->sent_ns > HTTP_TIMEOUT_NS) {
					t->timeouts++;
					hc_drop(t, c);
					(void)hc_connect(t, c);
				}
				if (t->rate <= 0 && c->state == H_IDLE)
					(void)hc_send(t, c, 0);
			}
			sweep = now + HTTP_SWEEP_NS;
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
				while (i < t->nconn && t->conns[i].state != H_IDLE)
					i++;
				if (i == t->nconn)
					break; /* every connection busy: the request waits, its clock runs */
				if (hc_send(t, &t->conns[i], due))
					next++;
			}
		}
		n = http_wait(t->ep, evs, 64, timeout_ns);
		t->last_ns = 0;
		for (int k = 0; k < n; k++)
			hc_readable(t, evs[k].data.ptr);
	}
	w->end_ns = clock_ns();
	/* The window is over. Wait (bounded) for the answers still on the way,
	 * uncounted in the figures, so that the client's count of responses
	 * can be checked against the server's own. Uncounted and unanswered
	 * because they come after end_ns: a window that ran on to a late first
	 * answer ended there, not at end_ns's 10 s bound (when it kept that
	 * bound, this wait counted 2 s of answers more, and sent their next
	 * requests, into a window of the first answer's time: issue 41's
	 * repetitions of 29,406 requests/s among 847 to 3,164, and of 5.98 in
	 * flight on one connection). */
	if (w->end_ns < t->end_ns)
		t->end_ns = w->end_ns;
	for (uint64_t until = clock_ns() + HTTP_TIMEOUT_NS; clock_ns() < until && !vmb_stop_requested();) {
		bool waiting = false;
		int n;

		for (unsigned i = 0; i < t->nconn; i++)
			waiting |= t->conns[i].state == H_WAIT;
		if (!waiting)
			break;
		n = epoll_wait(t->ep, evs, 64, 10);
		for (int k = 0; k < n; k++)
			hc_readable(t, evs[k].data.ptr);
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
	free(t->rbuf);
	t->rbuf = NULL;
}

/* http://HOST[:PORT]/PATH into host:port and path. */
static int parse_url(const char *url, char *hostport, size_t hl, char *path, size_t pl)
{
	const char *h, *slash;

	if (strncmp(url, "http://", 7))
		return -EINVAL;
	h = url + 7;
	slash = strchr(h, '/');
	if (slash == h || (size_t)(slash ? slash - h : (ptrdiff_t)strlen(h)) >= hl)
		return -EINVAL;
	snprintf(hostport, hl, "%.*s", (int)(slash ? slash - h : (ptrdiff_t)strlen(h)), h);
	snprintf(path, pl, "%s", slash ? slash : "/");
	for (const char *p = path; *p; p++)
		if ((unsigned char)*p <= 0x20 || *p == 0x7f)
			return -EINVAL;
	return 0;
}

/* Where the requests go: --net.url's host and path, or the run's own serve
 * (its session's HTTP port, and its count of answers so far in *before,
 * the control connection in *c). 0, or a negative errno after a message. */
static int http_target(struct vmb_ctx *ctx, const char *url, struct sockaddr_storage *addr, socklen_t *alen,
		       char *hostport, size_t hostlen, char *path, size_t pathlen, struct net_ctl **c, uint64_t *before)
{
	struct net_state *st = ctx->priv;
	char err[320];
	unsigned hport = 0;
	int r;

	if (url) {
		if (parse_url(url, hostport, hostlen, path, pathlen) < 0)
			return vmb_usage(ctx, "--net.url %s: expected http://HOST[:PORT]/PATH (no https)", url);
		if (netio_resolve(hostport, 80, addr, alen, err, sizeof(err)) < 0)
			return vmb_usage(ctx, "--net.url %s", err);
	} else {
		snprintf(hostport, hostlen, "%s", st->srvname);
		*addr = st->srv;
		*alen = st->srvlen;
		if (!strcmp(optset_str(ctx->opts, "page"), "dynamic"))
			snprintf(path, pathlen, "/dynamic");
		else
			snprintf(path, pathlen, "/static/%llu", (unsigned long long)optset_size(ctx->opts, "body-size"));
		/* serve answers HTTP to an authenticated session only, on a port of
		 * that session's own (src/net/serve.c) */
		*c = net_ctl_get(ctx, st);
		r = *c ? net_ctl_http_count(ctx, *c, before) : -ECONNREFUSED;
		if (r == 0)
			r = net_ctl_http_port(ctx, *c, &hport);
		if (r < 0)
			return r;
		if (addr->ss_family == AF_INET)
			((struct sockaddr_in *)addr)->sin_port = htons((uint16_t)hport);
		else
			((struct sockaddr_in6 *)addr)->sin6_port = htons((uint16_t)hport);
	}
	return 0;
}

/* The series of the repetition: per interval k that every thread reached,
 * requests_per_s (the threads' rates in it, added up) and p99_latency (of
 * the latencies of every thread in it, from the histogram's buckets: the
 * midpoint of the bucket, as any percentile here), at the interval's end
 * on the first thread's clock. */
static int http_series(struct vmb_rep *rep, const struct hthread *ts, unsigned nth)
{
	struct hist *h = hist_new();
	size_t n = SIZE_MAX;

	if (!h)
		return -ENOMEM;
	for (unsigned i = 0; i < nth; i++)
		n = ts[i].niv < n ? ts[i].niv : n;
	for (size_t k = 0; k < n; k++) {
		double per_s = 0;

		hist_init(h);
		for (unsigned i = 0; i < nth; i++) {
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

int net_http_run(struct vmb_ctx *ctx, const struct vmb_test *test, struct vmb_rep *rep)
{
	struct net_state *st = ctx->priv;
	const char *url = optset_str(ctx->opts, "url");
	unsigned conns = ctx->sweep, nth = (unsigned)optset_int(ctx->opts, "threads");
	double rate = optset_double(ctx->opts, "http-rate");
	struct sockaddr_storage addr;
	socklen_t alen;
	char hostport[300], path[1024], request[1500];
	struct vmb_worker *workers = NULL;
	struct hthread *ts = NULL;
	struct hist *all = hist_new(), *service = hist_new();
	struct net_ctl *c = NULL;
	uint64_t before = 0, after = 0, done = 0, answered = 0, bytes = 0, non2xx = 0, sockerr = 0, timeouts = 0;
	uint64_t start = UINT64_MAX, end = 0;
	double win;
	int r, n;

	(void)test;
	if (!all || !service) {
		hist_free(all);
		hist_free(service);
		return vmb_fail(ctx, -ENOMEM, "latency histogram");
	}
	if (nth > conns)
		nth = conns;
	/* a descriptor per connection: more than the usual 1024 for a large sweep */
	{
		struct rlimit rl;

		if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < (rlim_t)conns + 64 && rl.rlim_cur < rl.rlim_max) {
			rl.rlim_cur = rl.rlim_max < (rlim_t)conns + 64 ? rl.rlim_max : (rlim_t)conns + 64;
			(void)setrlimit(RLIMIT_NOFILE, &rl);
		}
	}
	r = http_target(ctx, url, &addr, &alen, hostport, sizeof(hostport), path, sizeof(path), &c, &before);
	if (r < 0)
		goto out;
	n = snprintf(request, sizeof(request), "GET %s HTTP/1.1\r\nHost: %s\r\n\r\n", path, hostport);
	workers = calloc(nth, sizeof(*workers));
	ts = calloc(nth, sizeof(*ts));
	if (!workers || !ts) {
		r = vmb_fail(ctx, -ENOMEM, "%u client threads", nth);
		goto out;
	}
	for (unsigned i = 0; i < nth; i++) {
		ts[i].addr = &addr;
		ts[i].alen = alen;
		ts[i].request = request;
		ts[i].reqlen = (size_t)n;
		ts[i].nconn = conns / nth + (i < conns % nth);
		ts[i].rate = rate / nth;
		ts[i].end_ns = (uint64_t)(st->window_s * NSEC_PER_SEC); /* a length until the thread starts */
		ts[i].ep = -1;
		hist_init(&ts[i].hist);
		hist_init(&ts[i].service);
		/* whole intervals inside the window only */
		ts[i].iv_ns = (uint64_t)(optset_double(ctx->opts, "interval") * NSEC_PER_SEC);
		ts[i].maxiv = (size_t)(st->window_s / optset_double(ctx->opts, "interval") + 1e-9);
		ts[i].ivs = calloc(ts[i].maxiv + 1, sizeof(*ts[i].ivs));
		ts[i].iv_snap = hist_new();
		if (!ts[i].ivs || !ts[i].iv_snap) {
			r = vmb_fail(ctx, -ENOMEM, "the series of %u client threads", nth);
			goto out;
		}
		workers[i].arg = &ts[i];
	}
	r = vmb_parallel(ctx, nth, http_thread, workers);
	if (r < 0) {
		if (!ctx->reason[0])
			r = vmb_fail(ctx, r, "connecting %u connections to %s", conns, hostport);
		goto out;
	}
	for (unsigned i = 0; i < nth; i++) {
		if (workers[i].start_ns < start)
			start = workers[i].start_ns;
		if (workers[i].end_ns > end)
			end = workers[i].end_ns;
		done += ts[i].done;
		answered += ts[i].answered;
		bytes += ts[i].bytes;
		non2xx += ts[i].non2xx;
		sockerr += ts[i].sockerr;
		timeouts += ts[i].timeouts;
		hist_merge(all, &ts[i].hist);
		hist_merge(service, &ts[i].service);
	}
	win = (double)(end - start) / NSEC_PER_SEC;
	if (done == 0 || win <= 0) {
		r = vmb_fail(ctx, -EIO, "no response in %.3f s from %s (%llu socket errors, %llu timeouts)", win, hostport,
			     (unsigned long long)sockerr, (unsigned long long)timeouts);
		goto out;
	}
	vmb_rep_value(rep, "requests_per_s", VMB_UNIT_PER_S, VMB_HIGHER, (double)done / win);
	vmb_rep_value(rep, "transfer_mb_s", VMB_UNIT_MB_PER_S, VMB_HIGHER, (double)bytes / win / 1e6);
	vmb_rep_hist(rep, "latency", VMB_UNIT_NS, all);
	/* the tail per repetition as a value of its own: the report's curve over
	 * the connections sweep draws it beside requests/s */
	vmb_rep_value(rep, "p99_latency", VMB_UNIT_NS, VMB_LOWER, hist_percentile(all, 99));
	/* wrk2 prints this one with --u_latency: what coordinated omission would hide */
	if (rate > 0)
		vmb_rep_hist(rep, "uncorrected_latency", VMB_UNIT_NS, service);
	/* one request in flight per connection at most, each timed from its
	 * send to its answer inside its thread's window: wrk's mode is a closed
	 * loop on "latency"; under a rate, "latency" runs from the schedule's
	 * time (open: a request waits for a free connection with its clock
	 * running), and the loop is the one of the uncorrected latency */
	vmb_rep_closed_loop(rep, "requests_per_s", rate > 0 ? "uncorrected_latency" : "latency", conns, "connection");
	r = http_series(rep, ts, nth);
	if (r < 0) {
		r = vmb_fail(ctx, r, "the series of %u client threads", nth);
		goto out;
	}
	vmb_rep_value(rep, "requests", VMB_UNIT_NONE, VMB_HIGHER, (double)done);
	vmb_rep_value(rep, "responses", VMB_UNIT_NONE, VMB_HIGHER, (double)answered);
	vmb_rep_value(rep, "errors_non2xx", VMB_UNIT_NONE, VMB_LOWER, (double)non2xx);
	vmb_rep_value(rep, "errors_socket", VMB_UNIT_NONE, VMB_LOWER, (double)sockerr);
	vmb_rep_value(rep, "errors_timeout", VMB_UNIT_NONE, VMB_LOWER, (double)timeouts);
	if (r == 0 && c) {
		r = net_ctl_http_count(ctx, c, &after);
		/* every response the server sent, counted in the window or not:
		 * equal to "responses" unless a connection failed mid-answer */
		vmb_rep_value(rep, "server_requests", VMB_UNIT_NONE, VMB_HIGHER, (double)(after - before));
	}
out:
	hist_free(all);
	hist_free(service);
	for (unsigned i = 0; ts && i < nth; i++) {
		free(ts[i].ivs);
		free(ts[i].ivb);
		hist_free(ts[i].iv_snap);
	}
	free(workers);
	free(ts);
	return r;
}
