/* vmbench serve: the control protocol's server side, the data phase of
 * every net test, and the HTTP endpoint (see serve.h). The main thread runs
 * one epoll loop: it accepts, tells a control connection (its first bytes
 * are "VMBNET") from an HTTP one, checks the first one's greeting and token
 * itself and only then hands it to a session thread (so that no one takes
 * a slot without the token), and answers HTTP itself. Everything is
 * bounded: sessions in all and per address, unauthenticated connections
 * per address, a total deadline for a greeting, for each HTTP request and
 * for a session, test duration, and the wait for each peer's step. Data and
 * HTTP connections are taken only from the control connection's address. */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "serve.h"
#include "io.h"
#include "proto.h"
#include "calc.h"
#include "http.h"
#include "../core/clock.h"
#include "../core/log.h"
#include "../core/stop.h"
#include "../core/banned.h"

#define MAX_SESSIONS 16
#define MAX_SESSIONS_PER_ADDR 4 /* one address cannot take every slot */
#define MAX_CONNS 4096
#define MAX_UNAUTH_PER_ADDR 64  /* connections on the main port not yet (or never) authenticated */
#define IDLE_TIMEOUT_MS 30000   /* a control session waiting for its next message */
#define HTTP_IDLE_MS 10000      /* a response that the client does not read any of */
#define STEP_TIMEOUT_MS 5000    /* connecting the data sockets, draining after END */
#define GRACE_MS 10000          /* a test may overrun its duration by this much */
#define HTTP_IN 8192
#define MAX_BAD_LINES 8

struct netsrv;

/* What an epoll event's pointer points at: the first member of each. */
enum ev_kind { EV_LISTEN = 1, EV_HTTP_LISTEN, EV_CONN };

/* A session's own HTTP port: open while the session lasts, accepting only
 * the session's address. */
struct hlisten {
	enum ev_kind kind; /* EV_HTTP_LISTEN */
	int fd;
	unsigned port;
	struct sockaddr_storage peer;
	unsigned slot, gen;
};

struct session {
	struct netsrv *srv;
	pthread_t thread;
	int fd;
	bool used;
	unsigned gen; /* counts the slot's uses: an HTTP connection knows its session's */
	atomic_bool done;
	struct sockaddr_storage peer;
	uint64_t deadline_ns; /* the session's end, whatever it does */
	struct hlisten http;
	struct netio_lines lines;
};

struct hconn {
	enum ev_kind kind; /* EV_CONN */
	int fd;
	bool http; /* known to be HTTP (else: first bytes not yet seen) */
	bool authed; /* accepted on a session's HTTP port */
	unsigned slot, gen; /* that session's */
	bool close_after;
	uint64_t last_ns;  /* the last progress of a response being written */
	uint64_t phase_ns; /* when the wait for this request (or the greeting) began */
	struct sockaddr_storage peer;
	char in[HTTP_IN];
	size_t inlen;
	char head[256];
	size_t headlen, headoff;
	const char *body;
	size_t bodylen, bodyoff;
	char dyn[64]; /* the dynamic page's body */
	struct hconn *prev, *next;
};

struct netsrv {
	enum ev_kind kind; /* EV_LISTEN: the main listener's epoll tag */
	struct netsrv_conf conf;
	struct sockaddr_storage addr;
	char token[NETPROTO_MAX_TOKEN + 1];
	int lfd, ep;
	unsigned port;
	volatile bool stop;
	bool once_done;
	atomic_uint_fast64_t http_count;
	struct session sessions[MAX_SESSIONS];
	struct hconn *conns;
	unsigned nconns;
	char *body; /* NETSRV_MAX_BODY bytes of the static page */
};

uint64_t netsrv_dynamic_work(uint64_t seed, unsigned rounds)
{
	uint64_t x = seed | 1;

	for (unsigned i = 0; i < rounds; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		x += i;
	}
	return x;
}

uint64_t netsrv_http_count(const struct netsrv *s)
{
	return atomic_load(&((struct netsrv *)s)->http_count);
}

unsigned netsrv_port(const struct netsrv *s)
{
	return s->port;
}

void netsrv_stop(struct netsrv *s)
{
	s->stop = true;
}

/* ---- the data phase of one test ---- */

struct dgram {
	uint32_t magic;
	uint32_t flags;
	uint64_t seq;
	uint64_t sent_ns;
};
#define DGRAM_MAGIC 0x564d4244u /* "VMBD" */

struct test_run {
	struct session *se;
	const struct netmsg *req;
	enum netproto_kind kind;
	enum netproto_dir dir;
	unsigned streams;
	size_t size;
	int lfd;      /* data listener (TCP) or the UDP socket */
	int data[NETPROTO_MAX_STREAMS];
	bool eof[NETPROTO_MAX_STREAMS]; /* the client closed it */
	unsigned idx[2 + NETPROTO_MAX_STREAMS]; /* poll slot -> data index */
	unsigned ndata;
	char *buf;
	uint64_t bytes, sent, conns, retrans;
	uint64_t bytes_at_end; /* received before END: what arrived in the client's window */
	struct sockaddr_storage peer; /* the control connection's client */
	bool peer_port_known;         /* UDP: the client's data port, from its first datagram */
	struct udp_rx rx;
};

static bool same_host(const struct sockaddr_storage *a, const struct sockaddr_storage *b)
{
	if (a->ss_family != b->ss_family)
		return false;
	if (a->ss_family == AF_INET)
		return ((const struct sockaddr_in *)a)->sin_addr.s_addr == ((const struct sockaddr_in *)b)->sin_addr.s_addr;
	return !memcmp(&((const struct sockaddr_in6 *)a)->sin6_addr, &((const struct sockaddr_in6 *)b)->sin6_addr,
		       sizeof(struct in6_addr));
}

static unsigned port_of(const struct sockaddr_storage *ss)
{
	return ntohs(ss->ss_family == AF_INET ? ((const struct sockaddr_in *)ss)->sin_port
					      : ((const struct sockaddr_in6 *)ss)->sin6_port);
}

/* A socket on the control connection ctl's own local address, on a free
 * port: fd (its port in *port), or a negative errno. */
static int open_local(int ctl, bool udp, unsigned *port)
{
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);
	int fd, one = 1;

	if (getsockname(ctl, (struct sockaddr *)&ss, &sl) < 0)
		return -errno;
	if (ss.ss_family == AF_INET)
		((struct sockaddr_in *)&ss)->sin_port = 0;
	else
		((struct sockaddr_in6 *)&ss)->sin6_port = 0;
	fd = socket(ss.ss_family, (udp ? SOCK_DGRAM : SOCK_STREAM) | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	(void)setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (udp) {
		/* 4 MiB, above net.core.rmem_max when allowed (root): a receiver
		 * that loses the CPU for a moment must not show as network loss */
		int rcv = 4 << 20;

		if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &rcv, sizeof(rcv)) < 0)
			(void)setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcv, sizeof(rcv));
	}
	if (bind(fd, (struct sockaddr *)&ss, sl) < 0 || (!udp && listen(fd, 1024) < 0) ||
	    getsockname(fd, (struct sockaddr *)&ss, &sl) < 0) {
		int r = -errno;

		close(fd);
		return r;
	}
	*port = port_of(&ss);
	return fd;
}

/* The test's data socket: its port, or a negative errno. */
static int open_data(struct test_run *t)
{
	unsigned port;
	int fd = open_local(t->se->fd, t->kind == NETK_UDP || t->kind == NETK_UDP_RR, &port);

	if (fd < 0)
		return fd;
	t->lfd = fd;
	return (int)port;
}

static void close_data(struct test_run *t)
{
	for (unsigned i = 0; i < t->ndata; i++) {
		if (t->dir != NETD_FWD && t->kind == NETK_TCP_STREAM)
			t->retrans += netio_tcp_retrans(t->data[i]);
		close(t->data[i]);
	}
	t->ndata = 0;
}

/* crr: one connection, one request of `size` bytes, one response, close. */
static void crr_one(struct test_run *t, int fd)
{
	size_t got = 0;
	uint64_t deadline = clock_ns() + 1000000000ull;

	while (got < t->size && clock_ns() < deadline) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		ssize_t n;

		if (poll(&p, 1, 100) <= 0)
			continue;
		n = recv(fd, t->buf + got, t->size - got, 0);
		if (n <= 0 && !(n < 0 && (errno == EAGAIN || errno == EINTR)))
			break;
		if (n > 0)
			got += (size_t)n;
	}
	t->bytes += got;
	if (got == t->size && netio_write_all(fd, t->buf, t->size, 1000) == 0) {
		t->sent += t->size;
		t->conns++;
	}
}

/* One pass over the data sockets that poll found ready. */
static void serve_data(struct test_run *t, struct pollfd *pf, size_t npf, bool sending)
{
	for (size_t i = 2; i < npf; i++) {
		unsigned d = t->idx[i];

		/* read (or write) until the socket is empty (or full), a few times
		 * at most, so that poll is called only when one has to wait */
		for (unsigned k = 0; k < 16 && (pf[i].revents & (POLLIN | POLLHUP | POLLERR)); k++) {
			ssize_t n = recv(t->data[d], t->buf, t->size, MSG_DONTWAIT);

			if (n > 0) {
				t->bytes += (uint64_t)n;
				if (t->kind == NETK_TCP_RR && netio_write_all(t->data[d], t->buf, (size_t)n, 1000) == 0)
					t->sent += (uint64_t)n;
				if (t->kind == NETK_TCP_RR)
					break; /* one request, one answer */
				continue;
			}
			if (n == 0 || (errno != EAGAIN && errno != EINTR))
				t->eof[d] = true; /* the client closed this one: stop polling it */
			break;
		}
		if (t->eof[d])
			continue;
		for (unsigned k = 0; k < 16 && sending && (pf[i].revents & POLLOUT); k++) {
			ssize_t n = send(t->data[d], t->buf, t->size, MSG_NOSIGNAL | MSG_DONTWAIT);

			if (n <= 0)
				break;
			t->sent += (uint64_t)n;
		}
	}
}

static void serve_udp(struct test_run *t)
{
	for (unsigned k = 0; k < 256; k++) {
		struct sockaddr_storage from;
		socklen_t fl = sizeof(from);
		ssize_t n = recvfrom(t->lfd, t->buf, t->size, MSG_DONTWAIT, (struct sockaddr *)&from, &fl);
		struct dgram h;

		if (n < 0)
			return;
		/* only the client's own address, and once its first datagram came,
		 * its own port: a test's UDP port reflects nothing to a third party
		 * that forged its source, nor counts what another sender sent */
		if (!same_host(&from, &t->peer) || (t->peer_port_known && port_of(&from) != port_of(&t->peer)))
			continue;
		if (!t->peer_port_known) {
			t->peer = from;
			t->peer_port_known = true;
		}
		t->bytes += (uint64_t)n;
		if (t->kind == NETK_UDP_RR) {
			if (sendto(t->lfd, t->buf, (size_t)n, MSG_DONTWAIT, (struct sockaddr *)&from, fl) == n)
				t->sent += (uint64_t)n;
			/* one outstanding: no next request can be there yet, and a
			 * recvfrom that says so would cost every transaction a syscall */
			return;
		}
		if ((size_t)n < sizeof(h))
			continue;
		memcpy(&h, t->buf, sizeof(h));
		if (h.magic != DGRAM_MAGIC)
			continue;
		(void)udp_rx_record(&t->rx, h.seq, h.sent_ns, clock_ns()); /* a number out of bounds is not counted */
	}
}

/* Run one test: PORT, then data until END, then RESULT. 0, or a negative
 * errno when the session cannot go on (the control connection failed). */
static int run_test(struct session *se, const struct netmsg *req)
{
	struct netsrv *srv = se->srv;
	struct test_run t;
	struct netmsg reply;
	struct pollfd pf[2 + NETPROTO_MAX_STREAMS];
	char line[NETPROTO_MAX_LINE], err[160];
	uint64_t cpu0, start, deadline, end_seen = 0;
	bool udp, ended = false, stream_send;
	int port, r = 0;

	memset(&t, 0, sizeof(t));
	memset(&reply, 0, sizeof(reply));
	t.se = se;
	t.req = req;
	t.lfd = -1;
	{
		socklen_t pl = sizeof(t.peer);

		if (getpeername(se->fd, (struct sockaddr *)&t.peer, &pl) < 0)
			return -errno;
	}
	t.kind = (enum netproto_kind)req->v[NETKEY_KIND];
	t.dir = netmsg_has(req, NETKEY_DIR) ? (enum netproto_dir)req->v[NETKEY_DIR] : NETD_FWD;
	t.streams = netmsg_has(req, NETKEY_STREAMS) ? (unsigned)req->v[NETKEY_STREAMS] : 1;
	t.size = netmsg_has(req, NETKEY_SIZE) ? (size_t)req->v[NETKEY_SIZE] : 131072;
	udp = t.kind == NETK_UDP || t.kind == NETK_UDP_RR;
	if (udp && t.size > NETPROTO_MAX_DGRAM) {
		reply.verb = NETPROTO_ERR;
		snprintf(reply.text, sizeof(reply.text), "a datagram holds at most %u bytes", NETPROTO_MAX_DGRAM);
		return netio_send_msg(se->fd, &reply, STEP_TIMEOUT_MS);
	}
	if (t.kind != NETK_TCP_STREAM)
		t.dir = NETD_FWD;
	if (t.kind == NETK_TCP_RR || t.kind == NETK_TCP_CRR || udp)
		t.streams = t.kind == NETK_TCP_RR ? t.streams : 1;
	t.buf = malloc(udp ? NETPROTO_MAX_DGRAM : t.size);
	if (!t.buf)
		return -ENOMEM;
	memset(t.buf, 'v', udp ? NETPROTO_MAX_DGRAM : t.size);
	port = open_data(&t);
	if (port < 0) {
		reply.verb = NETPROTO_ERR;
		snprintf(reply.text, sizeof(reply.text), "data socket: %s", strerror(-port));
		r = netio_send_msg(se->fd, &reply, STEP_TIMEOUT_MS);
		goto out;
	}
	reply.verb = NETPROTO_PORT;
	reply.port = (unsigned)port;
	r = netio_send_msg(se->fd, &reply, STEP_TIMEOUT_MS);
	if (r < 0)
		goto out;
	cpu0 = netio_thread_cpu_ns();
	start = clock_ns();
	deadline = start + (req->v[NETKEY_MS] + GRACE_MS) * 1000000ull;
	if (deadline > se->deadline_ns)
		deadline = se->deadline_ns;
	stream_send = t.kind == NETK_TCP_STREAM && t.dir != NETD_FWD;
	for (;;) {
		size_t npf = 2;
		uint64_t now = clock_ns();
		int n;

		if (srv->stop || now >= deadline) {
			r = -ETIMEDOUT;
			goto out;
		}
		/* a client that asks for streams and never connects them does not
		 * hold a session for the test's whole duration */
		if (!udp && t.kind != NETK_TCP_CRR && t.ndata < t.streams && now >= start + STEP_TIMEOUT_MS * 1000000ull) {
			r = -ETIMEDOUT;
			goto out;
		}
		/* after END: read what the client sent before it, until every
		 * data connection is closed or the drain time is up */
		if (ended && (udp || t.kind == NETK_TCP_CRR || now >= end_seen + STEP_TIMEOUT_MS * 1000000ull))
			break;
		pf[0].fd = se->fd;
		pf[0].events = ended ? 0 : POLLIN;
		pf[1].fd = t.lfd;
		pf[1].events = (udp || t.ndata < t.streams) && !ended ? POLLIN : 0;
		if (udp && ended)
			pf[1].events = 0;
		for (unsigned i = 0; i < t.ndata; i++) {
			if (t.eof[i])
				continue;
			t.idx[npf] = i;
			pf[npf].fd = t.data[i];
			pf[npf].events = POLLIN | (stream_send && !ended ? POLLOUT : 0);
			npf++;
		}
		n = poll(pf, npf, 100);
		if (n < 0 && errno != EINTR) {
			r = -errno;
			goto out;
		}
		if (n <= 0)
			continue;
		if (pf[0].revents) {
			struct netmsg m;

			r = netio_read_line(se->fd, &se->lines, line, sizeof(line), STEP_TIMEOUT_MS, &srv->stop);
			if (r < 0)
				goto out;
			if (netproto_parse(line, (size_t)r, &m, err, sizeof(err)) < 0 || m.verb != NETPROTO_END) {
				r = -EPROTO;
				goto out;
			}
			ended = true;
			end_seen = clock_ns();
			if (udp)
				serve_udp(&t);
			t.bytes_at_end = t.bytes;
			if (stream_send)
				for (unsigned i = 0; i < t.ndata; i++)
					(void)shutdown(t.data[i], SHUT_WR);
		}
		if (pf[1].revents & POLLIN) {
			if (udp) {
				serve_udp(&t);
			} else {
				struct sockaddr_storage from;
				socklen_t fl = sizeof(from);
				int fd = accept4(t.lfd, (struct sockaddr *)&from, &fl, SOCK_NONBLOCK | SOCK_CLOEXEC);

				/* only the control connection's address: a third party
				 * neither gets data nor is counted */
				if (fd >= 0 && !same_host(&from, &t.peer)) {
					close(fd);
					fd = -1;
				}
				if (fd >= 0) {
					int one = 1;

					(void)setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
					if (t.kind == NETK_TCP_CRR) {
						crr_one(&t, fd);
						close(fd);
					} else {
						t.data[t.ndata++] = fd;
					}
				}
			}
		}
		serve_data(&t, pf, npf, stream_send && !ended);
		if (ended && !udp) {
			bool open = false;

			for (unsigned i = 0; i < t.ndata; i++)
				open |= !t.eof[i];
			if (!open)
				break;
		}
	}
	close_data(&t);
	memset(&reply, 0, sizeof(reply));
	reply.verb = NETPROTO_RESULT;
	netmsg_set(&reply, NETKEY_BYTES, t.kind == NETK_TCP_STREAM ? t.bytes_at_end : t.bytes);
	netmsg_set(&reply, NETKEY_SENT, t.sent);
	netmsg_set(&reply, NETKEY_CPU_NS, netio_thread_cpu_ns() - cpu0);
	if (t.kind == NETK_UDP) {
		netmsg_set(&reply, NETKEY_PACKETS, t.rx.packets);
		netmsg_set(&reply, NETKEY_LOST, t.rx.lost);
		netmsg_set(&reply, NETKEY_OOO, t.rx.ooo);
		/* forged send times can make it anything: within the protocol's bound */
		netmsg_set(&reply, NETKEY_JITTER_NS, t.rx.jitter_ns < 1e18 ? (uint64_t)(t.rx.jitter_ns + 0.5) : UINT64_C(1000000000000000000));
	}
	if (t.kind == NETK_TCP_STREAM)
		netmsg_set(&reply, NETKEY_RETRANS, t.retrans);
	if (t.kind == NETK_TCP_CRR)
		netmsg_set(&reply, NETKEY_CONNS, t.conns);
	r = netio_send_msg(se->fd, &reply, STEP_TIMEOUT_MS);
out:
	close_data(&t);
	if (t.lfd >= 0)
		close(t.lfd);
	free(t.buf);
	return r;
}

/* Constant-time comparison: a token is not guessed a byte at a time. */
static bool token_ok(const char *want, const char *got)
{
	size_t lw = strlen(want), lg = strlen(got);
	unsigned char d = (unsigned char)(lw != lg);

	for (size_t i = 0; i < lw; i++)
		d |= (unsigned char)(want[i] ^ (i < lg ? got[i] : 0));
	return d == 0;
}

static int send_err(int fd, const char *text)
{
	struct netmsg m;

	memset(&m, 0, sizeof(m));
	m.verb = NETPROTO_ERR;
	snprintf(m.text, sizeof(m.text), "%s", text);
	/* a reason quoting the client's bytes holds only printable ones (the parser
	 * refused the rest), so the line stays one line */
	return netio_send_msg(fd, &m, STEP_TIMEOUT_MS);
}

static uint64_t ms_ns(unsigned ms)
{
	return (uint64_t)ms * 1000000ull;
}

/* This session's HTTP port (opened on first use): PORT n, or ERR. */
static int open_http(struct session *se)
{
	struct netmsg reply;

	memset(&reply, 0, sizeof(reply));
	if (se->http.fd < 0) {
		struct epoll_event ev;
		unsigned port;
		int fd = open_local(se->fd, false, &port);

		if (fd < 0)
			return send_err(se->fd, "cannot open an HTTP port");
		se->http.kind = EV_HTTP_LISTEN;
		se->http.port = port;
		se->http.peer = se->peer;
		se->http.fd = fd;
		ev.events = EPOLLIN;
		ev.data.ptr = &se->http;
		/* the main thread's epoll loop accepts and answers; it closes the
		 * port when it reaps this session */
		if (epoll_ctl(se->srv->ep, EPOLL_CTL_ADD, fd, &ev) < 0) {
			se->http.fd = -1;
			close(fd);
			return send_err(se->fd, "cannot open an HTTP port");
		}
	}
	reply.verb = NETPROTO_PORT;
	reply.port = se->http.port;
	return netio_send_msg(se->fd, &reply, STEP_TIMEOUT_MS);
}

/* A session thread: its client has authenticated (conn_hello), and each
 * line of its session is a request until BYE, an error, or the session's
 * deadline. */
static void *session_main(void *arg)
{
	struct session *se = arg;
	struct netsrv *srv = se->srv;
	char line[NETPROTO_MAX_LINE], err[160];
	struct netmsg m, reply;
	unsigned bad = 0;
	int r, n;

	memset(&reply, 0, sizeof(reply));
	reply.verb = NETPROTO_OK;
	reply.version = NETPROTO_VERSION;
	r = netio_send_msg(se->fd, &reply, STEP_TIMEOUT_MS);
	while (r >= 0) {
		uint64_t now = clock_ns();
		int wait = IDLE_TIMEOUT_MS;

		if (now >= se->deadline_ns) {
			(void)send_err(se->fd, "the session's time is up");
			break;
		}
		if (se->deadline_ns - now < ms_ns(IDLE_TIMEOUT_MS))
			wait = (int)((se->deadline_ns - now + 999999) / 1000000);
		n = netio_read_line(se->fd, &se->lines, line, sizeof(line), wait, &srv->stop);
		if (n == -EMSGSIZE) {
			(void)send_err(se->fd, "line too long");
			break;
		}
		if (n == -ETIMEDOUT && clock_ns() >= se->deadline_ns)
			continue; /* said above */
		if (n < 0)
			break;
		if (netproto_parse(line, (size_t)n, &m, err, sizeof(err)) < 0) {
			if (send_err(se->fd, err) < 0 || ++bad >= MAX_BAD_LINES)
				break;
			continue;
		}
		memset(&reply, 0, sizeof(reply));
		switch (m.verb) {
		case NETPROTO_TEST:
			r = run_test(se, &m);
			if (r < 0)
				log_debug("serve: test %s ended: %s", netproto_kind_name((enum netproto_kind)m.v[NETKEY_KIND]),
					  strerror(-r));
			break;
		case NETPROTO_STATS:
			reply.verb = NETPROTO_STATS;
			netmsg_set(&reply, NETKEY_HTTP, netsrv_http_count(srv));
			r = netio_send_msg(se->fd, &reply, STEP_TIMEOUT_MS);
			break;
		case NETPROTO_HTTP:
			r = open_http(se);
			break;
		case NETPROTO_BYE:
			r = -ECONNRESET;
			break;
		default:
			r = send_err(se->fd, "expected TEST, STATS, HTTP or BYE");
			if (r == 0 && ++bad >= MAX_BAD_LINES)
				r = -EPROTO;
			break;
		}
	}
	if (srv->conf.once)
		srv->once_done = true;
	close(se->fd);
	se->fd = -1;
	atomic_store(&se->done, true);
	return NULL;
}

/* Join the sessions that ended (all: every one) and close their HTTP ports;
 * their HTTP connections are closed by the sweep (close_idle), outside any
 * batch of events that may still point at them. */
static void reap_sessions(struct netsrv *s, bool all)
{
	for (unsigned i = 0; i < MAX_SESSIONS; i++) {
		struct session *se = &s->sessions[i];

		if (se->used && (all || atomic_load(&se->done))) {
			(void)pthread_join(se->thread, NULL);
			se->used = false;
			if (se->http.fd >= 0) {
				(void)epoll_ctl(s->ep, EPOLL_CTL_DEL, se->http.fd, NULL);
				close(se->http.fd);
				se->http.fd = -1;
			}
		}
	}
}

/* ---- the epoll loop: accepting, telling control from HTTP, HTTP ---- */

static void conn_close(struct netsrv *s, struct hconn *c)
{
	if (c->fd >= 0) {
		(void)epoll_ctl(s->ep, EPOLL_CTL_DEL, c->fd, NULL);
		close(c->fd);
	}
	if (c->prev)
		c->prev->next = c->next;
	else
		s->conns = c->next;
	if (c->next)
		c->next->prev = c->prev;
	s->nconns--;
	free(c);
}

/* Say one short line to a connection about to be closed (best effort: it
 * fits any socket buffer, and the loop never waits for a peer). */
static void conn_refuse(struct netsrv *s, struct hconn *c, const char *text)
{
	char buf[NETPROTO_MAX_TEXT + 8];
	int n = snprintf(buf, sizeof(buf), "ERR %s\n", text);

	if (n > 0)
		(void)send(c->fd, buf, (size_t)n < sizeof(buf) ? (size_t)n : sizeof(buf) - 1, MSG_NOSIGNAL | MSG_DONTWAIT);
	conn_close(s, c);
}

/* Hand an authenticated control connection to a session thread, with the
 * bytes it sent after its greeting (hlen: the greeting's length). */
static void conn_to_session(struct netsrv *s, struct hconn *c, size_t hlen)
{
	struct session *se = NULL;
	unsigned same = 0;
	int fd = c->fd;

	reap_sessions(s, false);
	for (unsigned i = 0; i < MAX_SESSIONS; i++) {
		if (!s->sessions[i].used && !se)
			se = &s->sessions[i];
		if (s->sessions[i].used && same_host(&s->sessions[i].peer, &c->peer))
			same++;
	}
	if (same >= MAX_SESSIONS_PER_ADDR) {
		conn_refuse(s, c, "busy: this address holds as many sessions as one may, try again");
		return;
	}
	if (!se) {
		conn_refuse(s, c, "busy: every session slot is taken, try again");
		return;
	}
	{
		unsigned gen = se->gen + 1;

		memset(se, 0, sizeof(*se));
		se->gen = gen;
	}
	se->srv = s;
	se->fd = fd;
	se->peer = c->peer;
	se->http.fd = -1;
	se->http.slot = (unsigned)(se - s->sessions);
	se->http.gen = se->gen;
	se->deadline_ns = clock_ns() + ms_ns(s->conf.session_ms);
	/* c->in holds at most what the session's buffer does (conn_event reads
	 * no more before it knows), so no pipelined line is lost */
	se->lines.len = c->inlen - hlen;
	memcpy(se->lines.buf, c->in + hlen, se->lines.len);
	atomic_store(&se->done, false);
	(void)epoll_ctl(s->ep, EPOLL_CTL_DEL, fd, NULL);
	if (pthread_create(&se->thread, NULL, session_main, se) != 0) {
		conn_close(s, c);
		return;
	}
	se->used = true;
	c->fd = -1; /* the session owns it now */
	conn_close(s, c);
}

/* A control connection's greeting, checked here before it may take a
 * session slot: the version and the token. */
static void conn_hello(struct netsrv *s, struct hconn *c)
{
	const char *nl = memchr(c->in, '\n', c->inlen);
	struct netmsg m;
	char err[160];

	if (!nl) {
		if (c->inlen >= NETPROTO_MAX_LINE)
			conn_refuse(s, c, "line too long");
		return; /* not all there yet: the greeting's deadline runs (close_idle) */
	}
	if (netproto_parse(c->in, (size_t)(nl - c->in) + 1, &m, err, sizeof(err)) < 0) {
		conn_refuse(s, c, err);
		return;
	}
	if (m.verb != NETPROTO_HELLO) {
		conn_refuse(s, c, "expected VMBNET 1 first");
		return;
	}
	if (m.version != NETPROTO_VERSION) {
		snprintf(err, sizeof(err), "protocol version %u is not served; this server speaks %d", m.version,
			 NETPROTO_VERSION);
		conn_refuse(s, c, err);
		return;
	}
	if (s->token[0] && !token_ok(s->token, m.token)) {
		conn_refuse(s, c, "wrong or missing token");
		return;
	}
	conn_to_session(s, c, (size_t)(nl - c->in) + 1);
}

static void http_respond(struct netsrv *s, struct hconn *c, int code, const char *reason, const char *body,
			 size_t bodylen)
{
	int n = snprintf(c->head, sizeof(c->head),
			 "HTTP/1.1 %d %s\r\nServer: vmbench\r\nContent-Type: text/plain\r\nContent-Length: %zu\r\n%s\r\n",
			 code, reason, bodylen, c->close_after ? "Connection: close\r\n" : "");

	c->headlen = n > 0 && (size_t)n < sizeof(c->head) ? (size_t)n : 0;
	c->headoff = 0;
	c->body = body;
	c->bodylen = bodylen;
	c->bodyoff = 0;
	c->last_ns = clock_ns();
	if (code != 403)
		atomic_fetch_add(&s->http_count, 1);
}

/* Answer one parsed request. With a token, only a connection to an
 * authenticated session's HTTP port gets a page: anyone else a 403 of a
 * fixed, small size and the connection closed, so that no request obtains
 * more than a bounded response per byte it sent. */
static void http_answer(struct netsrv *s, struct hconn *c, const struct nethttp_req *q)
{
	static const char forbidden[] = "authenticate first: a page is served on the HTTP port of a control session\n";

	c->close_after = q->close_after;
	if (s->token[0] && !c->authed) {
		c->close_after = true;
		http_respond(s, c, 403, "Forbidden", forbidden, sizeof(forbidden) - 1);
		return;
	}
	switch (q->page) {
	case NETHTTP_STATIC:
		http_respond(s, c, 200, "OK", s->body, (size_t)q->size);
		break;
	case NETHTTP_DYNAMIC: {
		int n = snprintf(c->dyn, sizeof(c->dyn), "%016" PRIx64 "\n",
				 netsrv_dynamic_work(atomic_load(&s->http_count), NETSRV_DYNAMIC_ROUNDS));

		http_respond(s, c, 200, "OK", c->dyn, (size_t)n);
		break;
	}
	case NETHTTP_BAD_METHOD:
		http_respond(s, c, 405, "Method Not Allowed", "only GET\n", 9);
		break;
	case NETHTTP_NOT_FOUND:
		http_respond(s, c, 404, "Not Found", "not found\n", 10);
		break;
	}
}

/* Write what is pending; true when the response is out. */
static bool http_flush(struct hconn *c, bool *dead)
{
	while (c->headoff < c->headlen || c->bodyoff < c->bodylen) {
		struct iovec iov[2];
		struct msghdr mh;
		ssize_t n;

		memset(&mh, 0, sizeof(mh));
		iov[0].iov_base = c->head + c->headoff;
		iov[0].iov_len = c->headlen - c->headoff;
		iov[1].iov_base = (void *)(c->body + c->bodyoff);
		iov[1].iov_len = c->bodylen - c->bodyoff;
		mh.msg_iov = iov;
		mh.msg_iovlen = 2;
		n = sendmsg(c->fd, &mh, MSG_NOSIGNAL | MSG_DONTWAIT);
		if (n < 0) {
			if (errno != EAGAIN && errno != EINTR)
				*dead = true;
			return false;
		}
		c->last_ns = clock_ns(); /* progress */
		if ((size_t)n <= iov[0].iov_len) {
			c->headoff += (size_t)n;
		} else {
			c->bodyoff += (size_t)n - iov[0].iov_len;
			c->headoff = c->headlen;
		}
	}
	return true;
}

static bool is_http_method(const char *p, size_t n)
{
	size_t i;

	for (i = 0; i < n && i < 8 && p[i] >= 'A' && p[i] <= 'Z'; i++)
		;
	return i > 0 && i < n && p[i] == ' ';
}

/* Wait for c to be writable (a response is pending) or readable. */
static void conn_want(struct netsrv *s, struct hconn *c, bool out)
{
	struct epoll_event ev;

	ev.events = out ? EPOLLOUT : EPOLLIN;
	ev.data.ptr = c;
	(void)epoll_ctl(s->ep, EPOLL_CTL_MOD, c->fd, &ev);
}

/* Readable or writable: advance c. */
static void conn_event(struct netsrv *s, struct hconn *c, uint32_t ev)
{
	bool dead = false;

	if (c->headlen && !http_flush(c, &dead)) {
		if (dead)
			conn_close(s, c);
		return;
	}
	if (c->headlen) { /* a response just went out: the next request's time begins */
		c->headlen = c->bodylen = 0;
		c->phase_ns = clock_ns();
		if (c->close_after) {
			conn_close(s, c);
			return;
		}
		conn_want(s, c, false);
	}
	if (ev & (EPOLLIN | EPOLLHUP | EPOLLERR)) {
		/* until it is known to be HTTP, read no more than a session's line
		 * buffer holds: a control client's pipelined lines stay whole */
		size_t cap = c->http ? sizeof(c->in) - 1 : sizeof(((struct session *)0)->lines.buf);
		ssize_t n = 0;

		if (c->inlen < cap) {
			n = recv(c->fd, c->in + c->inlen, cap - c->inlen, MSG_DONTWAIT);
			if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) {
				conn_close(s, c);
				return;
			}
		}
		if (n > 0)
			c->inlen += (size_t)n;
	}
	for (;;) {
		struct nethttp_req q;
		size_t used;
		int r;

		if (!c->http) {
			if (c->inlen >= 6 && !memcmp(c->in, "VMBNET", 6)) {
				conn_hello(s, c);
				return;
			}
			if (c->inlen < 6 && memchr(c->in, ' ', c->inlen) == NULL && memchr(c->in, '\n', c->inlen) == NULL)
				break; /* not enough to tell yet */
			if (!is_http_method(c->in, c->inlen)) {
				conn_close(s, c); /* neither: garbage */
				return;
			}
			c->http = true;
		}
		r = nethttp_parse_request(c->in, c->inlen, NETSRV_MAX_BODY, &q);
		if (r == -EAGAIN) {
			if (c->inlen >= sizeof(c->in) - 1)
				conn_close(s, c); /* headers larger than any real client's */
			return;
		}
		if (r < 0) {
			c->close_after = true;
			http_respond(s, c, 400, "Bad Request", "bad request\n", 12);
			used = c->inlen;
		} else {
			http_answer(s, c, &q);
			used = q.headlen;
		}
		memmove(c->in, c->in + used, c->inlen - used);
		c->inlen -= used;
		if (!http_flush(c, &dead)) {
			if (dead)
				conn_close(s, c);
			else
				conn_want(s, c, true); /* EPOLLOUT will finish it */
			return;
		}
		c->headlen = c->bodylen = 0;
		c->phase_ns = clock_ns();
		if (c->close_after) {
			conn_close(s, c);
			return;
		}
		if (!c->inlen)
			break;
	}
}

/* Accept on the main port (l NULL) or on a session's HTTP port. */
static void accept_all(struct netsrv *s, struct hlisten *l)
{
	for (;;) {
		struct sockaddr_storage peer;
		socklen_t pl = sizeof(peer);
		int fd = accept4(l ? l->fd : s->lfd, (struct sockaddr *)&peer, &pl, SOCK_NONBLOCK | SOCK_CLOEXEC);
		struct epoll_event ev;
		struct hconn *c;
		int one = 1;

		if (fd < 0)
			return;
		/* a session's HTTP port serves that session's address only */
		if (l && !same_host(&peer, &l->peer)) {
			close(fd);
			continue;
		}
		if (!l) {
			unsigned same = 0;

			for (struct hconn *o = s->conns; o; o = o->next)
				same += !o->authed && same_host(&o->peer, &peer);
			if (same >= MAX_UNAUTH_PER_ADDR) {
				static const char busy[] = "ERR busy: too many connections from this address\n";

				(void)send(fd, busy, sizeof(busy) - 1, MSG_NOSIGNAL | MSG_DONTWAIT);
				close(fd);
				continue;
			}
		}
		if (s->nconns >= MAX_CONNS || !(c = calloc(1, sizeof(*c)))) {
			close(fd);
			continue;
		}
		(void)setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		c->kind = EV_CONN;
		c->fd = fd;
		c->peer = peer;
		c->last_ns = c->phase_ns = clock_ns();
		if (l) {
			c->http = c->authed = true;
			c->slot = l->slot;
			c->gen = l->gen;
		}
		ev.events = EPOLLIN;
		ev.data.ptr = c;
		if (epoll_ctl(s->ep, EPOLL_CTL_ADD, fd, &ev) < 0) {
			close(fd);
			free(c);
			continue;
		}
		c->next = s->conns;
		if (s->conns)
			s->conns->prev = c;
		s->conns = c;
		s->nconns++;
	}
}

/* The sweep, once a second: every deadline is a total one from when the
 * wait began (a greeting, a request), not an idle timer that each byte
 * restarts; a response in flight needs progress; and an HTTP connection
 * of a session that ended is closed with it. */
static void close_idle(struct netsrv *s)
{
	uint64_t now = clock_ns();

	for (struct hconn *c = s->conns, *next; c; c = next) {
		const struct session *se = c->authed ? &s->sessions[c->slot] : NULL;
		bool late;

		next = c->next;
		if (c->headlen)
			late = now - c->last_ns > ms_ns(HTTP_IDLE_MS);
		else if (!c->http)
			late = now - c->phase_ns > ms_ns(s->conf.auth_ms);
		else
			late = now - c->phase_ns > ms_ns(s->conf.request_ms);
		if (se && (!se->used || se->gen != c->gen || atomic_load(&((struct session *)se)->done)))
			late = true;
		if (late)
			conn_close(s, c);
	}
}

int netsrv_open(const struct netsrv_conf *conf, struct netsrv **out)
{
	struct netsrv *s = calloc(1, sizeof(*s));
	struct sockaddr_storage ss;
	socklen_t sl;
	struct epoll_event ev;
	struct rlimit rl;
	char name[80];
	int one = 1, r;

	if (!s)
		return log_errno(-ENOMEM, "serve");
	s->kind = EV_LISTEN;
	s->lfd = s->ep = -1;
	s->conf = *conf;
	s->conf.addr = NULL;
	s->conf.token = NULL;
	s->conf.auth_ms = conf->auth_ms ? conf->auth_ms : NETSRV_AUTH_MS;
	s->conf.request_ms = conf->request_ms ? conf->request_ms : NETSRV_REQUEST_MS;
	s->conf.session_ms = conf->session_ms ? conf->session_ms : NETSRV_SESSION_MS;
	for (unsigned i = 0; i < MAX_SESSIONS; i++)
		s->sessions[i].http.fd = -1;
	if (conf->token)
		snprintf(s->token, sizeof(s->token), "%s", conf->token);
	s->body = malloc(NETSRV_MAX_BODY);
	if (!s->body) {
		r = log_errno(-ENOMEM, "serve: static page");
		goto fail;
	}
	for (size_t i = 0; i < NETSRV_MAX_BODY; i++)
		s->body[i] = (char)('a' + i % 26);
	/* thousands of HTTP connections need more than the usual 1024 descriptors */
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max && rl.rlim_cur < 8192) {
		rl.rlim_cur = rl.rlim_max < 8192 ? rl.rlim_max : 8192;
		(void)setrlimit(RLIMIT_NOFILE, &rl);
	}
	memset(&ss, 0, sizeof(ss));
	if (conf->addr) {
		ss = *conf->addr;
	} else {
		ss.ss_family = AF_INET;
		((struct sockaddr_in *)&ss)->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	}
	sl = ss.ss_family == AF_INET ? sizeof(struct sockaddr_in) : sizeof(struct sockaddr_in6);
	if (ss.ss_family == AF_INET)
		((struct sockaddr_in *)&ss)->sin_port = htons((uint16_t)conf->port);
	else
		((struct sockaddr_in6 *)&ss)->sin6_port = htons((uint16_t)conf->port);
	s->addr = ss;
	netsrv_name(s, name, sizeof(name));
	s->lfd = socket(ss.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (s->lfd < 0) {
		r = log_errno(-errno, "serve: socket");
		goto fail;
	}
	(void)setsockopt(s->lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(s->lfd, (struct sockaddr *)&ss, sl) < 0) {
		r = log_errno(-errno, "serve: bind %s", name);
		goto fail;
	}
	if (listen(s->lfd, 1024) < 0 || getsockname(s->lfd, (struct sockaddr *)&ss, &sl) < 0) {
		r = log_errno(-errno, "serve: listen");
		goto fail;
	}
	s->addr = ss;
	s->port = port_of(&ss);
	s->ep = epoll_create1(EPOLL_CLOEXEC);
	if (s->ep < 0) {
		r = log_errno(-errno, "serve: epoll_create1");
		goto fail;
	}
	ev.events = EPOLLIN;
	ev.data.ptr = s;
	if (epoll_ctl(s->ep, EPOLL_CTL_ADD, s->lfd, &ev) < 0) {
		r = log_errno(-errno, "serve: epoll_ctl");
		goto fail;
	}
	*out = s;
	return 0;
fail:
	netsrv_free(s);
	return r;
}

void netsrv_name(const struct netsrv *s, char *buf, size_t len)
{
	char host[INET6_ADDRSTRLEN];
	const void *a = s->addr.ss_family == AF_INET ? (const void *)&((const struct sockaddr_in *)&s->addr)->sin_addr
						     : (const void *)&((const struct sockaddr_in6 *)&s->addr)->sin6_addr;

	if (!inet_ntop(s->addr.ss_family, a, host, sizeof(host)))
		snprintf(host, sizeof(host), "?");
	snprintf(buf, len, s->addr.ss_family == AF_INET6 ? "[%s]:%u" : "%s:%u", host, port_of(&s->addr));
}

int netsrv_run(struct netsrv *s)
{
	struct epoll_event evs[64];
	uint64_t last_sweep = clock_ns(), next_stall = clock_ns() + 1000000000ull;

	while (!s->stop && !vmb_stop_requested() && !s->once_done) {
		int n = epoll_wait(s->ep, evs, 64, 100);

		if (n < 0 && errno != EINTR)
			return log_errno(-errno, "serve: epoll_wait");
		for (int i = 0; i < n; i++) {
			void *p = evs[i].data.ptr;

			switch (*(enum ev_kind *)p) {
			case EV_LISTEN:
				accept_all(s, NULL);
				break;
			case EV_HTTP_LISTEN:
				/* closed by reap_sessions earlier in this batch: nothing to accept */
				if (((struct hlisten *)p)->fd >= 0)
					accept_all(s, p);
				break;
			case EV_CONN:
				conn_event(s, p, evs[i].events);
				break;
			}
		}
		if (s->conf.stall_ms && clock_ns() >= next_stall) {
			struct timespec ts = { .tv_sec = s->conf.stall_ms / 1000,
					       .tv_nsec = (long)(s->conf.stall_ms % 1000) * 1000000L };

			(void)nanosleep(&ts, NULL);
			next_stall += 1000000000ull;
		}
		if (clock_ns() - last_sweep > 1000000000ull) {
			reap_sessions(s, false);
			close_idle(s);
			last_sweep = clock_ns();
		}
	}
	return 0;
}

void netsrv_free(struct netsrv *s)
{
	if (!s)
		return;
	s->stop = true;
	reap_sessions(s, true);
	while (s->conns)
		conn_close(s, s->conns);
	if (s->ep >= 0)
		close(s->ep);
	if (s->lfd >= 0)
		close(s->lfd);
	free(s->body);
	free(s);
}
