/* Network suite: TCP and UDP throughput as iperf3 defines them, request/
 * response latency as netperf's TCP_RR (and UDP_RR, TCP_CRR), an HTTP
 * load generator (net_http.c) with wrk's and wrk2's definitions, and a
 * memcached one (net_memcached.c) with memaslap's. The other
 * end is `vmbench serve` (--net.server), or one started on loopback for the
 * run. Every figure the server measured (bytes received, its CPU time, UDP
 * loss and jitter) comes back over the control protocol (src/net/proto.h),
 * on the control session of net_ctl.c. */
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "net.h"
#include "net_irq.h"
#include "../core/clock.h"
#include "../core/str.h"
#include "../core/macro.h"
#include "../net/calc.h"
#include "../net/io.h"
#include "../net/proto.h"
#include "../net/serve.h"
#include "../net/verify.h"
#include "../core/banned.h"

/* The longest an RR window runs on past its end while no transaction
 * has completed in it (net.http's HTTP_FIRST_NS). */
#define RR_FIRST_NS 10000000000ull

#define DEFAULT_PORT 5280
/* msg-size's default: the one serve takes for a TEST without size= */
#define NETSUITE_DEF_SIZE STRINGIFY(NETPROTO_DEF_SIZE_KIB) "k"

/* ---- helpers ---- */

static void set_blocking_timeout(int fd, int ms)
{
	struct timeval tv = { .tv_sec = ms / 1000, .tv_usec = (ms % 1000) * 1000 };
	int fl = fcntl(fd, F_GETFL);

	(void)setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	(void)setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	if (fl >= 0)
		(void)fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
}

static int udp_socket(const struct sockaddr_storage *to)
{
	socklen_t l = to->ss_family == AF_INET ? sizeof(struct sockaddr_in) : sizeof(struct sockaddr_in6);
	int fd = socket(to->ss_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	int buf = 4 << 20;

	if (fd < 0)
		return -errno;
	if (setsockopt(fd, SOL_SOCKET, SO_SNDBUFFORCE, &buf, sizeof(buf)) < 0)
		(void)setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &buf, sizeof(buf));
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &buf, sizeof(buf)) < 0)
		(void)setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &buf, sizeof(buf));
	if (connect(fd, (const struct sockaddr *)to, l) < 0) {
		int r = -errno;

		close(fd);
		return r;
	}
	return fd;
}

static socklen_t sslen(const struct sockaddr_storage *ss)
{
	return ss->ss_family == AF_INET ? sizeof(struct sockaddr_in) : sizeof(struct sockaddr_in6);
}

/* ---- tcp_stream ---- */

/* The client's side of a tcp_stream test: the data connections in
 * p->pf, its tally and iperf3's interval figures. */
struct stream_pump {
	struct pollfd *pf;
	unsigned n;
	char *buf;
	size_t size;
	enum netproto_dir dir;
	uint64_t sent, recvd;
	uint64_t iv_ns, next_iv, iv_bytes, iv_start, t0;
	double iv_min, iv_max;
	unsigned nivs;
	struct vmb_rep *rep; /* where each interval goes as a point of the series "mbit_per_s" */
};

/* Send and receive until deadline (or Ctrl-C). 0, or a negative errno
 * after a message. */
static int stream_pump(struct vmb_ctx *ctx, struct stream_pump *p, uint64_t deadline)
{
	while (clock_ns() < deadline && !vmb_stop_requested()) {
		int k = poll(p->pf, p->n, 100);
		uint64_t now = clock_ns();

		/* iperf3's interval lines: the client's own side (what it sent, or
		 * with --net.reverse what it received) per --net.interval */
		if (now >= p->next_iv && p->next_iv <= deadline) {
			uint64_t mine = p->dir == NETD_REV ? p->recvd : p->sent;
			double mb = 8.0 * (double)(mine - p->iv_bytes) / ((double)(now - p->iv_start) / NSEC_PER_SEC) / 1e6;

			p->iv_min = p->nivs == 0 || mb < p->iv_min ? mb : p->iv_min;
			p->iv_max = p->nivs == 0 || mb > p->iv_max ? mb : p->iv_max;
			p->nivs++;
			vmb_rep_point(p->rep, "mbit_per_s", VMB_UNIT_MBIT_PER_S, (double)(now - p->t0) / NSEC_PER_SEC, mb);
			p->iv_bytes = mine;
			p->iv_start = now;
			p->next_iv = now + p->iv_ns;
		}

		if (k < 0 && errno != EINTR) {
			return vmb_fail(ctx, -errno, "poll");
		}
		for (unsigned i = 0; i < p->n && k > 0; i++) {
			ssize_t m;

			/* a few writes or reads each turn, until the socket is full or
			 * empty, so that poll is called only when one has to wait */
			if (p->pf[i].revents & POLLOUT)
				for (unsigned j = 0; j < 16; j++) {
					m = send(p->pf[i].fd, p->buf, p->size, MSG_NOSIGNAL | MSG_DONTWAIT);
					if (m > 0) {
						p->sent += (uint64_t)m;
						continue;
					}
					if (m < 0 && errno != EAGAIN) {
						return vmb_fail(ctx, -errno, "sending on stream %u", i + 1);
					}
					break;
				}
			if (p->pf[i].revents & (POLLIN | POLLHUP | POLLERR))
				for (unsigned j = 0; j < 16; j++) {
					m = recv(p->pf[i].fd, p->buf, p->size, MSG_DONTWAIT);
					if (m > 0) {
						p->recvd += (uint64_t)m;
						continue;
					}
					if (m == 0 || errno != EAGAIN) {
						return vmb_fail(ctx, m == 0 ? -ECONNRESET : -errno, "receiving on stream %u", i + 1);
					}
					break;
				}
		}
	}
	return 0;
}

static int run_stream(struct vmb_ctx *ctx, struct net_state *st, struct net_ctl *c, struct vmb_rep *rep)
{
	unsigned streams = (unsigned)optset_int(ctx->opts, "streams");
	size_t size = (size_t)optset_size(ctx->opts, "msg-size");
	enum netproto_dir dir = optset_bool(ctx->opts, "bidir") ? NETD_BIDIR
			       : optset_bool(ctx->opts, "reverse") ? NETD_REV : NETD_FWD;
	bool send_side = dir != NETD_REV, recv_side = dir != NETD_FWD;
	struct sockaddr_storage data;
	struct pollfd pf[NETPROTO_MAX_STREAMS];
	struct netmsg req, res;
	uint64_t t0, t1, deadline, cpu0, cpu, recvd, sent, retrans = 0;
	double iv_min, iv_max;
	unsigned nivs;
	struct stream_pump sp = { .pf = pf, .size = size, .dir = dir,
				  .iv_ns = (uint64_t)(optset_double(ctx->opts, "interval") * NSEC_PER_SEC) };
	char *buf = NULL;
	unsigned n = 0;
	double win;
	int r;

	memset(&req, 0, sizeof(req));
	req.verb = NETPROTO_TEST;
	netmsg_set(&req, NETKEY_KIND, NETK_TCP_STREAM);
	netmsg_set(&req, NETKEY_MS, (uint64_t)(st->window_s * 1000) + 1);
	netmsg_set(&req, NETKEY_STREAMS, streams);
	netmsg_set(&req, NETKEY_SIZE, size);
	netmsg_set(&req, NETKEY_DIR, dir);
	buf = malloc(size);
	if (!buf)
		return vmb_fail(ctx, -ENOMEM, "a %zu-byte buffer", size);
	memset(buf, 'c', size);
	r = net_ctl_test(ctx, st, c, &req, &data);
	if (r < 0)
		goto out;
	for (n = 0; n < streams; n++) {
		pf[n].fd = netio_connect(&data, sslen(&data), NET_CTL_TIMEOUT_MS);
		if (pf[n].fd < 0) {
			r = vmb_fail(ctx, pf[n].fd, "data connection %u of %u", n + 1, streams);
			goto out;
		}
		pf[n].events = (short)((send_side ? POLLOUT : 0) | (recv_side ? POLLIN : 0));
	}
	cpu0 = clock_thread_cpu_ns();
	sp.iv_start = sp.t0 = t0 = clock_ns();
	sp.rep = rep;
	deadline = t0 + (uint64_t)(st->window_s * NSEC_PER_SEC);
	sp.next_iv = t0 + sp.iv_ns;
	sp.buf = buf;
	sp.n = n;
	r = stream_pump(ctx, &sp, deadline);
	if (r < 0)
		goto out;
	sent = sp.sent;
	recvd = sp.recvd;
	iv_min = sp.iv_min;
	iv_max = sp.iv_max;
	nivs = sp.nivs;
	t1 = clock_ns();
	cpu = clock_thread_cpu_ns() - cpu0;
	if (send_side)
		for (unsigned i = 0; i < n; i++)
			retrans += netio_tcp_retrans(pf[i].fd);
	{
		int fds[NETPROTO_MAX_STREAMS];
		struct netverify_tally tl = { .kind = NETK_TCP_STREAM, .streams = n, .sent = sent, .recvd = recvd };

		for (unsigned i = 0; i < n; i++)
			fds[i] = pf[i].fd;
		r = net_ctl_end(ctx, st, c, &res, fds, n, &tl);
		n = 0;
	}
	if (r < 0)
		goto out;
	win = (double)(t1 - t0) / NSEC_PER_SEC;
	{
		uint64_t fwd = res.v[NETKEY_BYTES];
		double bits = 8.0 * (double)((dir == NETD_REV ? 0 : fwd) + (recv_side ? recvd : 0));
		double cpu_s = (double)(cpu + res.v[NETKEY_CPU_NS]) / NSEC_PER_SEC;

		if (bits <= 0) {
			r = vmb_fail(ctx, -EIO, "no byte arrived in %.3f s", win);
			goto out;
		}
		vmb_rep_value(rep, "mbit_per_s", VMB_UNIT_MBIT_PER_S, VMB_HIGHER,
			      8.0 * (double)(dir == NETD_REV ? recvd : fwd) / win / 1e6);
		if (dir == NETD_BIDIR)
			vmb_rep_value(rep, "reverse_mbit_per_s", VMB_UNIT_MBIT_PER_S, VMB_HIGHER, 8.0 * (double)recvd / win / 1e6);
		vmb_rep_value(rep, "retransmits", VMB_UNIT_NONE, VMB_LOWER,
			      (double)(retrans + (recv_side ? res.v[NETKEY_RETRANS] : 0)));
		vmb_rep_value(rep, "cpu_client_pct", VMB_UNIT_PCT, VMB_LOWER, 100.0 * (double)cpu / NSEC_PER_SEC / win);
		vmb_rep_value(rep, "cpu_server_pct", VMB_UNIT_PCT, VMB_LOWER,
			      100.0 * (double)res.v[NETKEY_CPU_NS] / NSEC_PER_SEC / win);
		if (cpu_s > 0)
			vmb_rep_value(rep, "mbit_per_cpu_s", VMB_UNIT_NONE, VMB_HIGHER, bits / 1e6 / cpu_s);
		/* the slowest and fastest interval, once there are two to tell apart */
		if (nivs >= 2)
			vmb_rep_value(rep, "interval_min_mbit_per_s", VMB_UNIT_MBIT_PER_S, VMB_HIGHER, iv_min);
		if (nivs >= 2)
			vmb_rep_value(rep, "interval_max_mbit_per_s", VMB_UNIT_MBIT_PER_S, VMB_HIGHER, iv_max);
	}
out:
	for (unsigned i = 0; i < n; i++)
		close(pf[i].fd);
	free(buf);
	return r;
}

/* ---- udp ---- */

static void sleep_until(uint64_t t)
{
	struct timespec ts = clock_ns_ts(t);

	(void)clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
}

static int run_udp(struct vmb_ctx *ctx, struct net_state *st, struct net_ctl *c, struct vmb_rep *rep)
{
	size_t size = (size_t)optset_size(ctx->opts, "udp-size");
	double rate = optset_double(ctx->opts, "rate") * 1e6; /* bit/s */
	struct sockaddr_storage data;
	struct netmsg req, res;
	uint64_t t0, t1, deadline, seq = 0, send_err = 0, iv_seq = 0, iv_start, next_iv;
	uint64_t iv_ns = (uint64_t)(optset_double(ctx->opts, "interval") * NSEC_PER_SEC);
	double interval_ns = rate > 0 ? (double)size * 8.0 / rate * NSEC_PER_SEC : 0;
	char *buf;
	int fd = -1, r;

	memset(&req, 0, sizeof(req));
	req.verb = NETPROTO_TEST;
	netmsg_set(&req, NETKEY_KIND, NETK_UDP);
	netmsg_set(&req, NETKEY_MS, (uint64_t)(st->window_s * 1000) + 1);
	netmsg_set(&req, NETKEY_SIZE, size);
	netmsg_set(&req, NETKEY_RATE, (uint64_t)rate);
	buf = calloc(1, size);
	if (!buf)
		return vmb_fail(ctx, -ENOMEM, "a %zu-byte datagram", size);
	r = net_ctl_test(ctx, st, c, &req, &data);
	if (r < 0)
		goto out;
	fd = udp_socket(&data);
	if (fd < 0) {
		r = vmb_fail(ctx, fd, "UDP socket");
		goto out;
	}
	t0 = clock_ns();
	deadline = t0 + (uint64_t)(st->window_s * NSEC_PER_SEC);
	iv_start = t0;
	next_iv = t0 + iv_ns;
	for (;;) {
		uint64_t due = t0 + (uint64_t)((double)seq * interval_ns), now = clock_ns();
		struct netproto_dgram h;

		/* iperf3 -u's interval lines on the client: what it sent per --net.interval */
		if (now >= next_iv && next_iv <= deadline) {
			vmb_rep_point(rep, "sender_mbit_per_s", VMB_UNIT_MBIT_PER_S, (double)(now - t0) / NSEC_PER_SEC,
				      8.0 * (double)((seq - iv_seq) * size) / ((double)(now - iv_start) / NSEC_PER_SEC) / 1e6);
			iv_seq = seq;
			iv_start = now;
			next_iv = now + iv_ns;
		}
		if (due >= deadline || now >= deadline || vmb_stop_requested())
			break;
		if (due > now + 20000)
			sleep_until(due);
		h.magic = NETPROTO_DGRAM_MAGIC;
		h.flags = 0;
		h.seq = seq + 1;
		h.sent_ns = clock_ns();
		memcpy(buf, &h, sizeof(h));
		if (send(fd, buf, size, 0) < 0) {
			if (errno != ENOBUFS && errno != EAGAIN && errno != ECONNREFUSED) {
				r = vmb_fail(ctx, -errno, "sending datagram %llu", (unsigned long long)seq + 1);
				goto out;
			}
			send_err++;
			continue; /* the same number again: the receiver's count stays exact */
		}
		seq++;
	}
	/* the window is the schedule's, to its end (a paced sender idles at the end) */
	if (interval_ns > 0 && !vmb_stop_requested())
		sleep_until(deadline);
	t1 = clock_ns();
	/* what is still on the way (a shaper's queue) lands before END */
	usleep(20000);
	{
		struct netverify_tally tl = { .kind = NETK_UDP, .streams = 1, .sent = seq * size, .dgrams = seq };

		r = net_ctl_end(ctx, st, c, &res, NULL, 0, &tl);
	}
	if (r < 0)
		goto out;
	{
		double win = (double)(t1 - t0) / NSEC_PER_SEC;
		uint64_t got = res.v[NETKEY_PACKETS];
		/* iperf3's summary: lost = datagrams sent - datagrams received */
		double loss = seq ? 100.0 * (double)(seq > got ? seq - got : 0) / (double)seq : 0;

		if (seq == 0) {
			r = vmb_fail(ctx, -EIO, "no datagram sent in %.3f s", win);
			goto out;
		}
		vmb_rep_value(rep, "mbit_per_s", VMB_UNIT_MBIT_PER_S, VMB_HIGHER, 8.0 * (double)res.v[NETKEY_BYTES] / win / 1e6);
		vmb_rep_value(rep, "sender_mbit_per_s", VMB_UNIT_MBIT_PER_S, VMB_HIGHER,
			      8.0 * (double)seq * (double)size / win / 1e6);
		if (rate > 0)
			vmb_rep_value(rep, "target_mbit_per_s", VMB_UNIT_MBIT_PER_S, VMB_HIGHER, rate / 1e6);
		vmb_rep_value(rep, "lost_pct", VMB_UNIT_PCT, VMB_LOWER, loss);
		vmb_rep_value(rep, "out_of_order", VMB_UNIT_NONE, VMB_LOWER, (double)res.v[NETKEY_OOO]);
		vmb_rep_value(rep, "jitter", VMB_UNIT_NS, VMB_LOWER, (double)res.v[NETKEY_JITTER_NS]);
		vmb_rep_value(rep, "cpu_server_pct", VMB_UNIT_PCT, VMB_LOWER,
			      100.0 * (double)res.v[NETKEY_CPU_NS] / NSEC_PER_SEC / win);
	}
	(void)send_err;
out:
	if (fd >= 0)
		close(fd);
	free(buf);
	return r;
}

/* ---- tcp_rr, udp_rr, tcp_crr ---- */

/* One transaction; what went out and came back is added to tl. */
static int rr_exchange(int fd, char *buf, size_t size, bool udp, uint64_t seq, struct netverify_tally *tl)
{
	size_t got = 0;

	if (udp && size >= sizeof(seq))
		memcpy(buf, &seq, sizeof(seq));
	if (send(fd, buf, size, MSG_NOSIGNAL) != (ssize_t)size)
		return errno ? -errno : -EIO;
	tl->sent += size;
	while (got < size) {
		ssize_t n = recv(fd, buf + got, size - got, 0);

		if (n <= 0)
			return n == 0 ? -ECONNRESET : -errno;
		if (udp) {
			uint64_t back;

			if ((size_t)n != size)
				continue;
			if (size >= sizeof(back)) {
				memcpy(&back, buf, sizeof(back));
				if (back != seq)
					continue; /* a late answer to an earlier, timed-out request */
			}
		}
		got += (size_t)n;
		tl->recvd += (uint64_t)n;
	}
	return 0;
}

static int run_rr(struct vmb_ctx *ctx, struct net_state *st, struct net_ctl *c, struct vmb_rep *rep,
		  enum netproto_kind kind)
{
	size_t size = (size_t)optset_size(ctx->opts, "rr-size");
	bool udp = kind == NETK_UDP_RR, crr = kind == NETK_TCP_CRR;
	struct sockaddr_storage data;
	struct netmsg req, res;
	struct netverify_tally tl = { .kind = kind, .streams = 1 };
	struct hist *h = hist_new();
	uint64_t t0, t1, deadline, n = 0, timeouts = 0, irq0 = 0, irq1 = 0;
	struct net_irqs irqs;
	bool irq = false;
	char *buf = malloc(size);
	int fd = -1, r;

	if (!h || !buf) {
		r = vmb_fail(ctx, -ENOMEM, "rr buffers");
		goto out;
	}
	memset(buf, 'r', size);
	memset(&req, 0, sizeof(req));
	req.verb = NETPROTO_TEST;
	netmsg_set(&req, NETKEY_KIND, kind);
	netmsg_set(&req, NETKEY_MS, (uint64_t)(st->window_s * 1000) + 1);
	netmsg_set(&req, NETKEY_SIZE, size);
	r = net_ctl_test(ctx, st, c, &req, &data);
	if (r < 0)
		goto out;
	if (!crr) {
		fd = udp ? udp_socket(&data) : netio_connect(&data, sslen(&data), NET_CTL_TIMEOUT_MS);
		if (fd < 0) {
			r = vmb_fail(ctx, fd, "the data connection");
			goto out;
		}
		set_blocking_timeout(fd, udp ? 200 : 2000);
	}
	/* the NIC the packets cross, where this machine has one on the route */
	irq = net_irqs_find(&data, sslen(&data), &irqs) == 0 && net_irqs_read(&irqs, &irq0) == 0;
	t0 = clock_ns();
	deadline = t0 + (uint64_t)(st->window_s * NSEC_PER_SEC);
	while (!vmb_stop_requested()) {
		uint64_t s = clock_ns(), e;

		/* a window that ended before any transaction completed (a guest
		 * starved by a real-time one; a warm-up slice shorter than a UDP
		 * request's 200 ms timeout) goes on to the first one, at most
		 * RR_FIRST_NS from its start: the rate is then over the window
		 * it really took, as net.http's is */
		if (s >= deadline && (n > 0 || s >= t0 + RR_FIRST_NS))
			break;
		if (crr) {
			tl.conns++; /* a connection that failed here may still have reached the server */
			fd = netio_connect(&data, sslen(&data), NET_CTL_TIMEOUT_MS);
			if (fd < 0) {
				r = vmb_fail(ctx, fd, "connection %llu", (unsigned long long)n + 1);
				goto end;
			}
			set_blocking_timeout(fd, 2000);
		}
		errno = 0;
		r = rr_exchange(fd, buf, size, udp, n + 1, &tl);
		if (r == 0 && crr) {
			char b;

			/* the server closes first, as a web server without keep-alive does */
			if (recv(fd, &b, 1, 0) != 0)
				r = -EPROTO;
			close(fd);
			fd = -1;
		}
		if (r == -EAGAIN && udp) {
			timeouts++;
			r = 0;
			continue;
		}
		if (r < 0) {
			r = vmb_fail(ctx, r, "transaction %llu", (unsigned long long)n + 1);
			goto end;
		}
		e = clock_ns();
		hist_record(h, e - s);
		n++;
	}
end:
	t1 = clock_ns();
	irq = irq && net_irqs_read(&irqs, &irq1) == 0 && irq1 >= irq0;
	if (r < 0) {
		(void)net_ctl_end(ctx, st, c, &res, &fd, 1, &tl);
		goto out;
	}
	r = net_ctl_end(ctx, st, c, &res, &fd, 1, &tl);
	if (r < 0)
		goto out;
	if (n == 0) {
		r = vmb_fail(ctx, -EIO, "no transaction completed in %.3f s", st->window_s);
		goto out;
	}
	if (crr && res.v[NETKEY_CONNS] < n) {
		r = vmb_fail(ctx, -EPROTO, "the server %s counted %llu connections, the client %llu", st->srvname,
			     (unsigned long long)res.v[NETKEY_CONNS], (unsigned long long)n);
		goto out;
	}
	vmb_rep_value(rep, crr ? "connections_per_s" : "transactions_per_s", VMB_UNIT_PER_S, VMB_HIGHER,
		      (double)n / ((double)(t1 - t0) / NSEC_PER_SEC));
	vmb_rep_hist(rep, "latency", VMB_UNIT_NS, h);
	/* one transaction outstanding, each timed inside [t0, t1] */
	vmb_rep_closed_loop(rep, crr ? "connections_per_s" : "transactions_per_s", "latency", 1, "connection");
	if (udp)
		vmb_rep_value(rep, "timeouts", VMB_UNIT_NONE, VMB_LOWER, (double)timeouts);
	if (irq) {
		char lines[160] = "";
		size_t off = 0;

		for (size_t i = 0; i < irqs.n && off < sizeof(lines); i++)
			str_appendf(lines, sizeof(lines), &off, "%s%u", i ? "," : "", irqs.irq[i]);
		(void)vmb_note(ctx, "nic_irqs", "%s: %s %s", irqs.ifname, irqs.msi ? "MSI/MSI-X vectors" : "legacy line",
			       lines);
		vmb_rep_value(rep, crr ? "irqs_per_connection" : "irqs_per_transaction", VMB_UNIT_RATIO, VMB_LOWER,
			      (double)(irq1 - irq0) / (double)n);
	}
out:
	if (fd >= 0)
		close(fd);
	hist_free(h);
	free(buf);
	return r;
}

/* ---- the suite ---- */

static void *local_main(void *arg)
{
	(void)netsrv_run(arg);
	return NULL;
}

/* A route to the loopback server, without sending anything: connecting a
 * UDP socket only looks the route up. A container or an initramfs may leave
 * lo down, and every test would fail with ENETUNREACH instead of saying why. */
static int net_loopback_up(const struct sockaddr_storage *srv, socklen_t len)
{
	int fd = socket(srv->ss_family, SOCK_DGRAM | SOCK_CLOEXEC, 0), r;

	if (fd < 0)
		return -errno;
	r = connect(fd, (const struct sockaddr *)srv, len) < 0 ? -errno : 0;
	close(fd);
	return r;
}

/* The loopback serve, if one was started: stopped, and none any more. */
static void net_local_stop(struct net_state *st)
{
	if (!st->local)
		return;
	netsrv_stop(st->local);
	(void)pthread_join(st->local_thread, NULL);
	netsrv_free(st->local);
	st->local = NULL;
	st->srvlen = 0;
}

static int net_setup(struct vmb_ctx *ctx)
{
	struct net_state *st = calloc(1, sizeof(*st));
	const char *server = optset_str(ctx->opts, "server");
	char err[320];
	double t = optset_double(ctx->opts, "time");

	if (!st)
		return vmb_fail(ctx, -ENOMEM, "net state");
	ctx->priv = st;
	/* from the environment, not an option: options and the command line
	 * are stored in result documents, a secret must not be */
	st->token = getenv("VMBENCH_NET_TOKEN");
	if (st->token && !*st->token)
		st->token = NULL;
	st->window_s = t > 0 ? t : 0; /* 0: the runner's --time, set per repetition */
	if (!server) {
		/* a serve on loopback, started by the first test that needs one
		 * (net_local); where there is no loopback, none can */
		struct sockaddr_storage lo = { .ss_family = AF_INET };
		int r;

		((struct sockaddr_in *)&lo)->sin_port = htons(DEFAULT_PORT);
		((struct sockaddr_in *)&lo)->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		r = net_loopback_up(&lo, sizeof(struct sockaddr_in));

		if (r == -ENETUNREACH || r == -EADDRNOTAVAIL)
			return vmb_skip(ctx, "the loopback interface is down here (a route to 127.0.0.1: %s): the "
					"tests run against a vmbench serve on loopback; bring lo up (ip link set lo up) "
					"or give --net.server HOST", strerror(-r));
		return 0;
	}
	if (netio_resolve(server, DEFAULT_PORT, &st->srv, &st->srvlen, err, sizeof(err)) < 0)
		return vmb_usage(ctx, "--net.server %s", err);
	/* HOST:PORT, also when the port is the default: messages name it */
	if (strchr(server, ']') || (strchr(server, ':') && strchr(server, ':') == strrchr(server, ':')))
		snprintf(st->srvname, sizeof(st->srvname), "%s", server);
	else
		snprintf(st->srvname, sizeof(st->srvname), strchr(server, ':') ? "[%s]:%u" : "%s:%u", server,
			 DEFAULT_PORT);
	(void)vmb_note(ctx, "server", "%s", server);
	return 0;
}

/* Without --net.server, the serve on loopback the tests measure against,
 * started by the first one that needs it: net.http against --net.url needs
 * none, and its start (a thread, a 1 MiB page written) would be CPU of
 * the client's process that bench/net-vs-peers.sh counts per request
 * against wrk's. 0, or a negative errno after a message. */
static int net_local(struct vmb_ctx *ctx, struct net_state *st)
{
	struct netsrv_conf conf = { .addr = NULL, .port = 0 }; /* 127.0.0.1 */
	char err[320];
	int r;

	if (st->srvlen)
		return 0; /* --net.server's, or started already */
	r = netsrv_open(&conf, &st->local);
	if (r < 0)
		return vmb_fail(ctx, r, "starting a serve on loopback");
	r = pthread_create(&st->local_thread, NULL, local_main, st->local);
	if (r != 0) {
		netsrv_free(st->local);
		st->local = NULL;
		return vmb_fail(ctx, -r, "starting the loopback server's thread");
	}
	snprintf(st->srvname, sizeof(st->srvname), "127.0.0.1:%u", netsrv_port(st->local));
	r = netio_resolve(st->srvname, DEFAULT_PORT, &st->srv, &st->srvlen, err, sizeof(err));
	if (r < 0) {
		net_local_stop(st);
		return vmb_fail(ctx, r, "%s", err);
	}
	(void)vmb_note(ctx, "server", "a vmbench serve on loopback, in this process (127.0.0.1)");
	return 0;
}

static void net_teardown(struct vmb_ctx *ctx)
{
	struct net_state *st = ctx->priv;

	if (!st)
		return;
	if (st->ctl) {
		net_ctl_close(st->ctl);
		free(st->ctl);
	}
	net_mc_stop(st);
	net_local_stop(st);
	free(st);
	ctx->priv = NULL;
}

/* The start of every repetition: --net.time, else the runner's window (the
 * warm-up's is shorter). */
static struct net_state *net_begin(struct vmb_ctx *ctx)
{
	struct net_state *st = ctx->priv;
	double t = optset_double(ctx->opts, "time");

	st->window_s = t > 0 && t < ctx->duration_s ? t : ctx->duration_s;
	return st;
}

/* After a failure the session's state is unknown: the next test opens another.
 * Without a session (c NULL) net_ctl_open has said why. */
static int net_end(struct net_state *st, int r)
{
	if (r < 0 && st->ctl)
		net_ctl_close(st->ctl);
	return r;
}

/* The start of a test that talks to the server: its repetition begun, the
 * server started if it is ours, and the run's control session in *c. 0, or
 * a negative errno after a message. */
static int net_session(struct vmb_ctx *ctx, struct net_state **st, struct net_ctl **c)
{
	int r;

	*st = net_begin(ctx);
	r = net_local(ctx, *st);
	if (r < 0)
		return r;
	*c = net_ctl_get(ctx, *st);
	return *c ? 0 : -ECONNREFUSED;
}

static int net_run_tcp_stream(struct vmb_ctx *ctx, const struct vmb_test *test, struct vmb_rep *rep)
{
	struct net_state *st;
	struct net_ctl *c;
	int r = net_session(ctx, &st, &c);

	(void)test;
	return r < 0 ? r : net_end(st, run_stream(ctx, st, c, rep));
}

static int net_run_udp(struct vmb_ctx *ctx, const struct vmb_test *test, struct vmb_rep *rep)
{
	struct net_state *st;
	struct net_ctl *c;
	int r = net_session(ctx, &st, &c);

	(void)test;
	return r < 0 ? r : net_end(st, run_udp(ctx, st, c, rep));
}

static int net_run_tcp_rr(struct vmb_ctx *ctx, const struct vmb_test *test, struct vmb_rep *rep)
{
	struct net_state *st;
	struct net_ctl *c;
	int r = net_session(ctx, &st, &c);

	(void)test;
	return r < 0 ? r : net_end(st, run_rr(ctx, st, c, rep, NETK_TCP_RR));
}

static int net_run_udp_rr(struct vmb_ctx *ctx, const struct vmb_test *test, struct vmb_rep *rep)
{
	struct net_state *st;
	struct net_ctl *c;
	int r = net_session(ctx, &st, &c);

	(void)test;
	return r < 0 ? r : net_end(st, run_rr(ctx, st, c, rep, NETK_UDP_RR));
}

static int net_run_tcp_crr(struct vmb_ctx *ctx, const struct vmb_test *test, struct vmb_rep *rep)
{
	struct net_state *st;
	struct net_ctl *c;
	int r = net_session(ctx, &st, &c);

	(void)test;
	return r < 0 ? r : net_end(st, run_rr(ctx, st, c, rep, NETK_TCP_CRR));
}

static int net_run_http(struct vmb_ctx *ctx, const struct vmb_test *test, struct vmb_rep *rep)
{
	struct net_state *st = net_begin(ctx);
	int r = optset_str(ctx->opts, "url") ? 0 : net_local(ctx, st); /* --net.url: a server not ours */

	return r < 0 ? r : net_end(st, net_http_run(ctx, test, rep));
}

static int net_run_memcached(struct vmb_ctx *ctx, const struct vmb_test *test, struct vmb_rep *rep)
{
	(void)net_begin(ctx);
	return net_memcached_run(ctx, test, rep);
}

static const struct vmb_test net_tests[] = {
	{ .name = "tcp_stream", .summary = "bulk TCP throughput, Mbit/s (10^6 bits/s, as iperf3), retransmits, CPU per side",
	  .headline = "mbit_per_s", .params = "streams,msg-size,reverse,bidir,interval", .run = net_run_tcp_stream },
	{ .name = "udp", .summary = "UDP at a target rate: received Mbit/s, loss %, out-of-order, jitter (RFC 3550)",
	  .headline = "mbit_per_s", .params = "rate,udp-size", .run = net_run_udp },
	{ .name = "tcp_rr", .summary = "netperf TCP_RR: one request, one response, one outstanding; transactions/s, latency",
	  .headline = "transactions_per_s", .params = "rr-size", .run = net_run_tcp_rr },
	{ .name = "udp_rr", .summary = "UDP_RR: one datagram each way, one outstanding; transactions/s, latency",
	  .headline = "transactions_per_s", .params = "rr-size", .run = net_run_udp_rr },
	{ .name = "tcp_crr", .summary = "netperf TCP_CRR: connect, request, response, close; connections/s, latency",
	  .headline = "connections_per_s", .params = "rr-size", .run = net_run_tcp_crr },
	{ .name = "http", .summary = "HTTP/1.1 keep-alive load over a client sweep: wrk's requests/s, or wrk2's constant rate",
	  .headline = "requests_per_s,p99_latency", .sweep = "connections", .params = "threads,page,body-size,http-rate,url",
	  .run = net_run_http },
	{ .name = "memcached", .summary = "memcached's text protocol over a client sweep: memaslap's get/set mix, "
					  "requests/s, p50/p99/p99.9, or a constant rate (wrk2's correction)",
	  .headline = "requests_per_s,p99_latency", .sweep = "connections",
	  .params = "threads,memcached-ratio,memcached-key-size,memcached-value-size,memcached-keys,memcached-rate",
	  .run = net_run_memcached },
	{ .name = NULL },
};

static const struct vmb_opt net_opts[] = {
	{ .name = "server", .type = OPT_STRING, .metavar = "HOST[:PORT]",
	  .help = "a `vmbench serve` to measure against (port 5280 by default; its token, if it asks for one, in "
		  "$VMBENCH_NET_TOKEN); without it a serve is started on loopback, by the first test that needs one "
		  "(net.http with --net.url needs none)" },
	{ .name = "time", .type = OPT_DOUBLE, .min = 0, .max = 600, .def = "0", .quick = "0.1", .metavar = "SECONDS",
	  .help = "how long each repetition measures, at most the run's --time (0: --time); short under --quick, "
		  "so that the suite's quick run takes a few seconds" },
	{ .name = "streams", .type = OPT_INT, .min = 1, .max = 128, .def = "1", .metavar = "N",
	  .help = "tcp_stream: parallel connections, as iperf3 -P" },
	{ .name = "interval", .type = OPT_DOUBLE, .min = 0.01, .max = 60, .def = "1", .quick = "0.02",
	  .metavar = "SECONDS", .help = "tcp_stream, udp: the client's throughput per interval, as iperf3 -i, kept as a "
					 "series (tcp_stream also reports the slowest and fastest once a repetition holds "
					 "two); http, memcached: requests/s and p99 latency per whole interval, as a series" },
	{ .name = "reverse", .type = OPT_BOOL, .help = "tcp_stream: the server sends, as iperf3 -R" },
	{ .name = "bidir", .type = OPT_BOOL, .help = "tcp_stream: both ways at once, as iperf3 --bidir" },
	{ .name = "msg-size", .type = OPT_SIZE, .min = 1, .max = 1 << 20, .def = NETSUITE_DEF_SIZE, .metavar = "SIZE",
	  .help = "tcp_stream: bytes per write, as iperf3 -l" },
	{ .name = "rate", .type = OPT_DOUBLE, .min = 0, .max = 100000, .def = "1", .metavar = "MBIT",
	  .help = "udp: target rate in Mbit/s (10^6 bit/s; iperf3's default is 1); 0 for as fast as possible" },
	{ .name = "udp-size", .type = OPT_SIZE, .min = 32, .max = 65000, .def = "1460", .metavar = "SIZE",
	  .help = "udp: payload bytes per datagram" },
	{ .name = "rr-size", .type = OPT_SIZE, .min = 1, .max = 65000, .def = "1", .metavar = "SIZE",
	  .help = "tcp_rr, udp_rr, tcp_crr: request and response size, as netperf -r (1 byte each by default)" },
	{ .name = "connections", .type = OPT_LIST, .min = 1, .max = 4000, .def = "1,4,16,64,256", .quick = "8",
	  .metavar = "LIST", .help = "http, memcached: keep-alive connections, one case per value (the client sweep)" },
	{ .name = "threads", .type = OPT_INT, .min = 1, .max = 64, .def = "2", .metavar = "N",
	  .help = "http, memcached: client threads, as wrk -t and memaslap -T (never more than the connections)" },
	{ .name = "http-rate", .type = OPT_DOUBLE, .min = 0, .max = 10000000, .def = "0", .metavar = "REQ/S",
	  .help = "http: a constant total request rate with latency from each request's intended send time "
		  "(wrk2 -R); 0 for as fast as possible (wrk)" },
	{ .name = "page", .type = OPT_STRING, .def = "static", .choices = "static|dynamic", .metavar = "KIND",
	  .help = "http: serve's static page of --net.body-size bytes, or its dynamic page (fixed work per request)" },
	{ .name = "body-size", .type = OPT_SIZE, .min = 0, .max = 1 << 20, .def = "1k", .metavar = "SIZE",
	  .help = "http: bytes of serve's static page" },
	{ .name = "url", .type = OPT_STRING, .metavar = "URL",
	  .help = "http: load http://HOST[:PORT]/PATH (nginx, say) instead of serve's page" },
	{ .name = "memcached-server", .type = OPT_STRING, .metavar = "HOST[:PORT]",
	  .help = "memcached: the memcached to load (port 11211 by default); without it memcached (Debian's package) is "
		  "started on 127.0.0.1 for the run, or the test is skipped when it is not installed" },
	{ .name = "memcached-ratio", .type = OPT_STRING, .def = "1:9", .metavar = "SET:GET",
	  .help = "memcached: sets to gets, as memtier_benchmark --ratio (1:9: memaslap's default mix, one set to nine gets)" },
	{ .name = "memcached-key-size", .type = OPT_SIZE, .min = 4, .max = 250, .def = "64", .metavar = "SIZE",
	  .help = "memcached: bytes of a key (memaslap's default 64; at most memcached's 250)" },
	{ .name = "memcached-value-size", .type = OPT_SIZE, .min = 1, .max = 1 << 20, .def = "1k", .metavar = "SIZE",
	  .help = "memcached: bytes of a set's value (memaslap's default 1024)" },
	{ .name = "memcached-keys", .type = OPT_INT, .min = 1, .max = 100000000, .def = "10000", .quick = "1000",
	  .metavar = "N", .help = "memcached: the key space, each key set once before the window and then drawn "
				  "uniformly per request" },
	{ .name = "memcached-rate", .type = OPT_DOUBLE, .min = 0, .max = 10000000, .def = "0", .metavar = "REQ/S",
	  .help = "memcached: a constant total request rate with latency from each request's intended send time "
		  "(wrk2 -R's correction of coordinated omission); 0 for as fast as answers come (memaslap)" },
	OPT_TABLE_END,
};

const struct vmb_suite net_suite = {
	.name = "net",
	.summary = "network: TCP/UDP throughput (iperf3), request/response latency (netperf), HTTP load (wrk, wrk2), "
		   "memcached load (memaslap)",
	.abi = VMB_SUITE_ABI,
	.flags = VMB_SUITE_NET_PEER,
	.tests = net_tests,
	.opts = net_opts,
	.setup = net_setup,
	.teardown = net_teardown,
};
