/* vmbench serve: the control protocol's server side and the epoll loop
 * (see serve.h); the data phase of each test kind is in serve_test.c, the
 * HTTP endpoint in serve_http.c. The main thread runs
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

#include "serve_int.h"
#include "../core/log.h"
#include "../core/stop.h"
#include "../core/banned.h"

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

/* ---- the control sessions ---- */

bool netsrv_same_host(const struct sockaddr_storage *a, const struct sockaddr_storage *b)
{
	if (a->ss_family != b->ss_family)
		return false;
	if (a->ss_family == AF_INET)
		return ((const struct sockaddr_in *)a)->sin_addr.s_addr == ((const struct sockaddr_in *)b)->sin_addr.s_addr;
	return !memcmp(&((const struct sockaddr_in6 *)a)->sin6_addr, &((const struct sockaddr_in6 *)b)->sin6_addr,
		       sizeof(struct in6_addr));
}

unsigned netsrv_port_of(const struct sockaddr_storage *ss)
{
	return ntohs(ss->ss_family == AF_INET ? ((const struct sockaddr_in *)ss)->sin_port
					      : ((const struct sockaddr_in6 *)ss)->sin6_port);
}

int netsrv_open_local(int ctl, bool udp, unsigned *port)
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
	*port = netsrv_port_of(&ss);
	return fd;
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

/* This session's HTTP port (opened on first use): PORT n, or ERR. */
static int open_http(struct session *se)
{
	struct netmsg reply;

	memset(&reply, 0, sizeof(reply));
	if (se->http.fd < 0) {
		struct epoll_event ev;
		unsigned port;
		int fd = netsrv_open_local(se->fd, false, &port);

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
			wait = (int)((se->deadline_ns - now + NSEC_PER_MSEC - 1) / NSEC_PER_MSEC);
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
			r = netsrv_run_test(se, &m);
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

void netsrv_conn_close(struct netsrv *s, struct hconn *c)
{
	if (c->hold_ns)
		s->nheld--;
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
	netsrv_conn_close(s, c);
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
		if (s->sessions[i].used && netsrv_same_host(&s->sessions[i].peer, &c->peer))
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
		netsrv_conn_close(s, c);
		return;
	}
	se->used = true;
	c->fd = -1; /* the session owns it now */
	netsrv_conn_close(s, c);
}

/* The address alone (no port), for messages. */
static void addr_text(const struct sockaddr_storage *a, char *buf, size_t len)
{
	char host[INET6_ADDRSTRLEN];
	const void *in = a->ss_family == AF_INET ? (const void *)&((const struct sockaddr_in *)a)->sin_addr
						 : (const void *)&((const struct sockaddr_in6 *)a)->sin6_addr;

	if (!inet_ntop(a->ss_family, in, host, sizeof(host)))
		snprintf(host, sizeof(host), "?");
	snprintf(buf, len, "%s", host);
}

/* Hold a greeting (until: when its address may be checked again) without
 * reading it further: the loop releases it (release_held), and closes it
 * if the peer resets meanwhile. */
static void conn_hold(struct netsrv *s, struct hconn *c, uint64_t until)
{
	struct epoll_event ev = { .events = 0, .data.ptr = c };

	if (!c->hold_ns) {
		s->nheld++;
		(void)epoll_ctl(s->ep, EPOLL_CTL_MOD, c->fd, &ev);
	}
	c->hold_ns = until;
}

static void conn_unhold(struct netsrv *s, struct hconn *c)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.ptr = c };

	if (!c->hold_ns)
		return;
	c->hold_ns = 0;
	s->nheld--;
	(void)epoll_ctl(s->ep, EPOLL_CTL_MOD, c->fd, &ev);
}

/* The token of a greeting, at the pace its address has earned: after a
 * wrong one, that address's next greeting waits (held, not refused, so a
 * client that got it right on its second try is still served) for a delay
 * that doubles with each failure (authlim.h); one that would wait past its
 * own deadline is refused now. Only that address waits: the loop goes on.
 * Each wrong token is logged with its address's count. true: the token is
 * right; false: the connection is held or refused. */
static bool token_checked(struct netsrv *s, struct hconn *c, const char *token)
{
	uint64_t now = clock_ns(), at = authlim_wait(&s->lim, &c->peer, now), next;
	char who[INET6_ADDRSTRLEN], err[160];
	unsigned fails;

	if (at) {
		if (at - c->phase_ns > ms_ns(s->conf.auth_ms)) {
			snprintf(err, sizeof(err), "too many wrong tokens from this address: try again in %.1f s",
				 (double)(at - now) / 1e9);
			conn_refuse(s, c, err);
			return false;
		}
		conn_hold(s, c, at);
		return false;
	}
	conn_unhold(s, c);
	if (token_ok(s->token, token)) {
		authlim_ok(&s->lim, &c->peer, now);
		return true;
	}
	fails = authlim_fail(&s->lim, &c->peer, now, &next);
	addr_text(&c->peer, who, sizeof(who));
	log_warn("serve: wrong or missing token from %s (%u failed attempt%s from this address; its next greeting is "
		 "checked after %.1f s)", who, fails, fails == 1 ? "" : "s", (double)(next - now) / 1e9);
	conn_refuse(s, c, "wrong or missing token");
	return false;
}

/* Check the held greetings whose time has come (each may be held again:
 * one checked before it failed). */
static void release_held(struct netsrv *s)
{
	uint64_t now = clock_ns();

	for (struct hconn *c = s->conns, *next; c && s->nheld; c = next) {
		next = c->next;
		if (c->hold_ns && c->hold_ns <= now)
			netsrv_conn_hello(s, c);
	}
}

/* A control connection's greeting, checked here before it may take a
 * session slot: the version and the token. */
void netsrv_conn_hello(struct netsrv *s, struct hconn *c)
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
	if (s->token[0] && !token_checked(s, c, m.token))
		return;
	conn_to_session(s, c, (size_t)(nl - c->in) + 1);
}

/* Accept failed for want of descriptors or memory (err): the connection
 * stays in the backlog, so the listener would stay readable and the loop
 * spin. The listener is not polled for ACCEPT_PAUSE_MS (resume_paused). */
static void accept_pause(struct netsrv *s, struct hlisten *l, int err)
{
	struct epoll_event ev = { .events = 0, .data.ptr = l ? (void *)l : (void *)s };
	uint64_t now = clock_ns();

	(void)epoll_ctl(s->ep, EPOLL_CTL_MOD, l ? l->fd : s->lfd, &ev);
	*(l ? &l->paused_until : &s->paused_until) = now + ms_ns(ACCEPT_PAUSE_MS);
	s->starved = true;
	s->pauses++;
	/* once, and again at most once a minute (with the count) while it comes and goes */
	if (s->said_pause_ns && now - s->said_pause_ns < 60 * NSEC_PER_SEC)
		return;
	if (!s->said_pause_ns)
		log_warn("serve: cannot accept a connection: %s; not accepting for %d ms at a time until it can "
			 "(the connections open hold the descriptors: raise ulimit -n, or wait for them to end)",
			 strerror(err), ACCEPT_PAUSE_MS);
	else
		log_warn("serve: cannot accept a connection: %s (%u pauses of %d ms so far)", strerror(err), s->pauses,
			 ACCEPT_PAUSE_MS);
	s->said_pause_ns = now;
}

static void resume_one(struct netsrv *s, int fd, void *tag, uint64_t *until, uint64_t now)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.ptr = tag };

	if (!*until || now < *until)
		return;
	*until = 0;
	(void)epoll_ctl(s->ep, EPOLL_CTL_MOD, fd, &ev);
}

/* Poll again the listeners whose pause is over. */
static void resume_paused(struct netsrv *s)
{
	uint64_t now = clock_ns();

	resume_one(s, s->lfd, s, &s->paused_until, now);
	for (unsigned i = 0; i < MAX_SESSIONS; i++) {
		struct hlisten *h = &s->sessions[i].http;

		/* paused_until is set by this thread only, on an event of a port it knows open */
		if (s->sessions[i].used && h->paused_until && h->fd >= 0)
			resume_one(s, h->fd, h, &h->paused_until, now);
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

		if (fd < 0) {
			if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM)
				accept_pause(s, l, errno);
			return;
		}
		if (s->starved) {
			log_debug("serve: accepting connections again");
			s->starved = false;
		}
		/* a session's HTTP port serves that session's address only */
		if (l && !netsrv_same_host(&peer, &l->peer)) {
			close(fd);
			continue;
		}
		if (!l) {
			unsigned same = 0;

			for (struct hconn *o = s->conns; o; o = o->next)
				same += !o->authed && netsrv_same_host(&o->peer, &peer);
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
			netsrv_conn_close(s, c);
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
	s->port = netsrv_port_of(&ss);
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
	snprintf(buf, len, s->addr.ss_family == AF_INET6 ? "[%s]:%u" : "%s:%u", host, netsrv_port_of(&s->addr));
}

int netsrv_run(struct netsrv *s)
{
	struct epoll_event evs[64];
	uint64_t last_sweep = clock_ns(), next_stall = clock_ns() + NSEC_PER_SEC;

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
				netsrv_conn_event(s, p, evs[i].events);
				break;
			}
		}
		if (s->nheld)
			release_held(s);
		resume_paused(s);
		if (s->conf.stall_ms && clock_ns() >= next_stall) {
			struct timespec ts = clock_ns_ts(ms_ns(s->conf.stall_ms));

			(void)nanosleep(&ts, NULL);
			next_stall += NSEC_PER_SEC;
		}
		if (clock_ns() - last_sweep > NSEC_PER_SEC) {
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
		netsrv_conn_close(s, s->conns);
	if (s->ep >= 0)
		close(s->ep);
	if (s->lfd >= 0)
		close(s->lfd);
	free(s->body);
	free(s);
}
