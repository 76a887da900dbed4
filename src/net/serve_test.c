/* vmbench serve: the data phase of one net test. Each test kind is a row
 * of operations (as iperf3's struct protocol is per transport): what its
 * data socket is, what a readable listener or data socket means, and what
 * its RESULT holds; run_test is the one loop they share: PORT, data until
 * END (and the drain after it), RESULT. */
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "serve_int.h"
#include "calc.h"
#include "../core/macro.h"
#include "../core/banned.h"

struct test_run;

/* One test kind's operations. */
struct serve_kind {
	bool udp;      /* one datagram socket: nothing to accept */
	bool streams;  /* streams= is the client's (else one) */
	bool directed; /* dir= applies (else forward only) */
	bool holds;    /* data connections stay open until the client closes them after END */
	/* the listener (TCP) or the datagram socket is readable */
	void (*listen_ready)(struct test_run *t);
	/* the data connections poll found ready (NULL: it holds none) */
	void (*data_ready)(struct test_run *t, const struct pollfd *pf, size_t npf, bool sending);
	/* the kind's own keys of RESULT */
	void (*result)(const struct test_run *t, struct netmsg *reply);
};

struct test_run {
	struct session *se;
	const struct serve_kind *ops;
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

static void close_data(struct test_run *t)
{
	for (unsigned i = 0; i < t->ndata; i++) {
		/* only a directed kind sends other than forward */
		if (t->dir != NETD_FWD)
			t->retrans += netio_tcp_retrans(t->data[i]);
		close(t->data[i]);
	}
	t->ndata = 0;
}

/* A data connection from the control connection's address, or -1: a
 * third party neither gets data nor is counted. */
static int accept_data(struct test_run *t)
{
	struct sockaddr_storage from;
	socklen_t fl = sizeof(from);
	int one = 1, fd = accept4(t->lfd, (struct sockaddr *)&from, &fl, SOCK_NONBLOCK | SOCK_CLOEXEC);

	if (fd >= 0 && !netsrv_same_host(&from, &t->peer)) {
		close(fd);
		fd = -1;
	}
	if (fd >= 0)
		(void)setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	return fd;
}

/* tcp_stream, tcp_rr: the connection is held for the test. */
static void listen_hold(struct test_run *t)
{
	int fd = accept_data(t);

	if (fd >= 0)
		t->data[t->ndata++] = fd;
}

/* crr: one connection, one request of `size` bytes, one response, close. */
static void listen_crr(struct test_run *t)
{
	int fd = accept_data(t);
	size_t got = 0;
	uint64_t deadline;

	if (fd < 0)
		return;
	deadline = clock_ns() + NSEC_PER_SEC;
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
	close(fd);
}

/* One pass over the data sockets that poll found ready; echo: answer each
 * request (rr) instead of reading all there is. */
static void serve_data(struct test_run *t, const struct pollfd *pf, size_t npf, bool sending, bool echo)
{
	for (size_t i = 2; i < npf; i++) {
		unsigned d = t->idx[i];

		/* read (or write) until the socket is empty (or full), a few times
		 * at most, so that poll is called only when one has to wait */
		for (unsigned k = 0; k < 16 && (pf[i].revents & (POLLIN | POLLHUP | POLLERR)); k++) {
			ssize_t n = recv(t->data[d], t->buf, t->size, MSG_DONTWAIT);

			if (n > 0) {
				t->bytes += (uint64_t)n;
				if (!echo)
					continue;
				if (netio_write_all(t->data[d], t->buf, (size_t)n, 1000) == 0)
					t->sent += (uint64_t)n;
				break; /* one request, one answer */
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

static void data_stream(struct test_run *t, const struct pollfd *pf, size_t npf, bool sending)
{
	serve_data(t, pf, npf, sending, false);
}

static void data_rr(struct test_run *t, const struct pollfd *pf, size_t npf, bool sending)
{
	serve_data(t, pf, npf, sending, true);
}

/* The datagrams waiting; echo: answer one (udp_rr) instead of counting
 * them all. */
static void serve_udp(struct test_run *t, bool echo)
{
	for (unsigned k = 0; k < 256; k++) {
		struct sockaddr_storage from;
		socklen_t fl = sizeof(from);
		ssize_t n = recvfrom(t->lfd, t->buf, t->size, MSG_DONTWAIT, (struct sockaddr *)&from, &fl);
		struct netproto_dgram h;

		if (n < 0)
			return;
		/* only the client's own address, and once its first datagram came,
		 * its own port: a test's UDP port reflects nothing to a third party
		 * that forged its source, nor counts what another sender sent */
		if (!netsrv_same_host(&from, &t->peer) ||
		    (t->peer_port_known && netsrv_port_of(&from) != netsrv_port_of(&t->peer)))
			continue;
		if (!t->peer_port_known) {
			t->peer = from;
			t->peer_port_known = true;
		}
		t->bytes += (uint64_t)n;
		if (echo) {
			if (sendto(t->lfd, t->buf, (size_t)n, MSG_DONTWAIT, (struct sockaddr *)&from, fl) == n)
				t->sent += (uint64_t)n;
			/* one outstanding: no next request can be there yet, and a
			 * recvfrom that says so would cost every transaction a syscall */
			return;
		}
		if ((size_t)n < sizeof(h))
			continue;
		memcpy(&h, t->buf, sizeof(h));
		if (h.magic != NETPROTO_DGRAM_MAGIC)
			continue;
		(void)udp_rx_record(&t->rx, h.seq, h.sent_ns, clock_ns()); /* a number out of bounds is not counted */
	}
}

static void listen_udp(struct test_run *t)
{
	serve_udp(t, false);
}

static void listen_udp_rr(struct test_run *t)
{
	serve_udp(t, true);
}

/* What every kind reports: bytes received and sent. */
static void result_common(const struct test_run *t, struct netmsg *reply)
{
	netmsg_set(reply, NETKEY_BYTES, t->bytes);
	netmsg_set(reply, NETKEY_SENT, t->sent);
}

static void result_stream(const struct test_run *t, struct netmsg *reply)
{
	netmsg_set(reply, NETKEY_BYTES, t->bytes_at_end); /* what arrived in the client's window */
	netmsg_set(reply, NETKEY_SENT, t->sent);
	netmsg_set(reply, NETKEY_RETRANS, t->retrans);
}

static void result_udp(const struct test_run *t, struct netmsg *reply)
{
	result_common(t, reply);
	netmsg_set(reply, NETKEY_PACKETS, t->rx.packets);
	netmsg_set(reply, NETKEY_LOST, t->rx.lost);
	netmsg_set(reply, NETKEY_OOO, t->rx.ooo);
	/* forged send times can make it anything: within the protocol's bound */
	netmsg_set(reply, NETKEY_JITTER_NS,
		   t->rx.jitter_ns < (double)NETPROTO_MAX_COUNT ? (uint64_t)(t->rx.jitter_ns + 0.5) : NETPROTO_MAX_COUNT);
}

static void result_crr(const struct test_run *t, struct netmsg *reply)
{
	result_common(t, reply);
	netmsg_set(reply, NETKEY_CONNS, t->conns);
}

static const struct serve_kind serve_kinds[NETK_NKINDS] = {
	[NETK_TCP_STREAM] = { .streams = true, .directed = true, .holds = true, .listen_ready = listen_hold,
			      .data_ready = data_stream, .result = result_stream },
	[NETK_UDP] = { .udp = true, .listen_ready = listen_udp, .result = result_udp },
	[NETK_TCP_RR] = { .streams = true, .holds = true, .listen_ready = listen_hold, .data_ready = data_rr,
			  .result = result_common },
	[NETK_UDP_RR] = { .udp = true, .listen_ready = listen_udp_rr, .result = result_common },
	[NETK_TCP_CRR] = { .listen_ready = listen_crr, .result = result_crr },
};

/* Refuse the test with an ERR: 0, or a negative errno when it cannot be said. */
static int test_refuse(int fd, const char *text)
{
	struct netmsg reply;
	int r;

	memset(&reply, 0, sizeof(reply));
	reply.verb = NETPROTO_ERR;
	snprintf(reply.text, sizeof(reply.text), "%s", text);
	r = netio_send_msg(fd, &reply, STEP_TIMEOUT_MS);
	return r < 0 ? r : 0;
}

/* The request's parameters, as the kind takes them, and its buffer and
 * data socket: 1 with the data socket's port in *port; 0 when refused
 * (the ERR went out); or a negative errno. */
static int test_open(struct test_run *t, const struct netmsg *req, unsigned *port)
{
	const struct serve_kind *k = t->ops;
	size_t buflen;
	int fd;

	t->dir = k->directed && netmsg_has(req, NETKEY_DIR) ? (enum netproto_dir)req->v[NETKEY_DIR] : NETD_FWD;
	t->streams = k->streams && netmsg_has(req, NETKEY_STREAMS) ? (unsigned)req->v[NETKEY_STREAMS] : 1;
	t->size = netmsg_has(req, NETKEY_SIZE) ? (size_t)req->v[NETKEY_SIZE] : NETPROTO_DEF_SIZE;
	if (k->udp && t->size > NETPROTO_MAX_DGRAM) {
		char text[64];

		snprintf(text, sizeof(text), "a datagram holds at most %u bytes", NETPROTO_MAX_DGRAM);
		return test_refuse(t->se->fd, text);
	}
	buflen = k->udp ? NETPROTO_MAX_DGRAM : t->size;
	t->buf = malloc(buflen);
	if (!t->buf)
		return -ENOMEM;
	memset(t->buf, 'v', buflen);
	fd = netsrv_open_local(t->se->fd, k->udp, port);
	if (fd < 0) {
		char text[NETPROTO_MAX_TEXT];

		snprintf(text, sizeof(text), "data socket: %s", strerror(-fd));
		return test_refuse(t->se->fd, text);
	}
	t->lfd = fd;
	return 1;
}

/* END came: what the client sent before it is the window's. */
static void test_end(struct test_run *t, bool stream_send)
{
	if (t->ops->udp)
		t->ops->listen_ready(t); /* the datagrams that came before END */
	t->bytes_at_end = t->bytes;
	if (stream_send)
		for (unsigned i = 0; i < t->ndata; i++)
			(void)shutdown(t->data[i], SHUT_WR);
}

/* The data phase, from PORT to the end of the drain after END. 0, or a
 * negative errno. */
static int test_loop(struct test_run *t, const struct netmsg *req)
{
	struct session *se = t->se;
	struct netsrv *srv = se->srv;
	const struct serve_kind *k = t->ops;
	struct pollfd pf[2 + NETPROTO_MAX_STREAMS];
	char line[NETPROTO_MAX_LINE], err[160];
	uint64_t start = clock_ns(), end_seen = 0;
	uint64_t deadline = start + (req->v[NETKEY_MS] + GRACE_MS) * NSEC_PER_MSEC;
	bool ended = false, stream_send = t->dir != NETD_FWD;

	if (deadline > se->deadline_ns)
		deadline = se->deadline_ns;
	for (;;) {
		size_t npf = 2;
		uint64_t now = clock_ns();
		int n, r;

		if (srv->stop || now >= deadline)
			return -ETIMEDOUT;
		/* a client that asks for streams and never connects them does not
		 * hold a session for the test's whole duration */
		if (k->holds && t->ndata < t->streams && now >= start + ms_ns(STEP_TIMEOUT_MS))
			return -ETIMEDOUT;
		/* after END: read what the client sent before it, until every
		 * data connection is closed or the drain time is up */
		if (ended && (!k->holds || now >= end_seen + ms_ns(STEP_TIMEOUT_MS)))
			return 0;
		pf[0].fd = se->fd;
		pf[0].events = ended ? 0 : POLLIN;
		pf[1].fd = t->lfd;
		pf[1].events = (k->udp || t->ndata < t->streams) && !ended ? POLLIN : 0;
		for (unsigned i = 0; i < t->ndata; i++) {
			if (t->eof[i])
				continue;
			t->idx[npf] = i;
			pf[npf].fd = t->data[i];
			pf[npf].events = POLLIN | (stream_send && !ended ? POLLOUT : 0);
			npf++;
		}
		n = poll(pf, npf, 100);
		if (n < 0 && errno != EINTR)
			return -errno;
		if (n <= 0)
			continue;
		if (pf[0].revents) {
			struct netmsg m;

			r = netio_read_line(se->fd, &se->lines, line, sizeof(line), STEP_TIMEOUT_MS, &srv->stop);
			if (r < 0)
				return r;
			if (netproto_parse(line, (size_t)r, &m, err, sizeof(err)) < 0 || m.verb != NETPROTO_END)
				return -EPROTO;
			ended = true;
			end_seen = clock_ns();
			test_end(t, stream_send);
		}
		if (pf[1].revents & POLLIN)
			k->listen_ready(t);
		if (k->data_ready)
			k->data_ready(t, pf, npf, stream_send && !ended);
		if (ended && k->holds) {
			bool open = false;

			for (unsigned i = 0; i < t->ndata; i++)
				open |= !t->eof[i];
			if (!open)
				return 0;
		}
	}
}

int netsrv_run_test(struct session *se, const struct netmsg *req)
{
	struct test_run t;
	struct netmsg reply;
	uint64_t cpu0;
	unsigned port = 0;
	int r;

	memset(&t, 0, sizeof(t));
	t.se = se;
	t.lfd = -1;
	{
		socklen_t pl = sizeof(t.peer);

		if (getpeername(se->fd, (struct sockaddr *)&t.peer, &pl) < 0)
			return -errno;
	}
	/* the parser admits only the kinds the enum has */
	t.ops = &serve_kinds[req->v[NETKEY_KIND] < ARRAY_SIZE(serve_kinds) ? req->v[NETKEY_KIND] : 0];
	r = test_open(&t, req, &port);
	if (r <= 0)
		goto out;
	memset(&reply, 0, sizeof(reply));
	reply.verb = NETPROTO_PORT;
	reply.port = port;
	r = netio_send_msg(se->fd, &reply, STEP_TIMEOUT_MS);
	if (r < 0)
		goto out;
	cpu0 = clock_thread_cpu_ns();
	r = test_loop(&t, req);
	if (r < 0)
		goto out;
	close_data(&t);
	memset(&reply, 0, sizeof(reply));
	reply.verb = NETPROTO_RESULT;
	t.ops->result(&t, &reply);
	netmsg_set(&reply, NETKEY_CPU_NS, clock_thread_cpu_ns() - cpu0);
	r = netio_send_msg(se->fd, &reply, STEP_TIMEOUT_MS);
out:
	close_data(&t);
	if (t.lfd >= 0)
		close(t.lfd);
	free(t.buf);
	return r;
}
