/* vmbench serve: the HTTP endpoint (the static and dynamic pages wrk2's
 * load asks for), answered by the main thread's epoll loop, and the first
 * bytes of a connection on the main port, which tell a control client
 * ("VMBNET", handed to serve.c) from an HTTP one. Every response is
 * written without blocking; what is left waits for EPOLLOUT. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/uio.h>

#include "serve_int.h"
#include "http.h"
#include "../core/banned.h"

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

void netsrv_conn_event(struct netsrv *s, struct hconn *c, uint32_t ev)
{
	bool dead = false;

	/* a held greeting is not read (serve.c's token_checked); a reset ends it */
	if (c->hold_ns) {
		if (ev & (EPOLLHUP | EPOLLERR))
			netsrv_conn_close(s, c);
		return;
	}
	if (c->headlen && !http_flush(c, &dead)) {
		if (dead)
			netsrv_conn_close(s, c);
		return;
	}
	if (c->headlen) { /* a response just went out: the next request's time begins */
		c->headlen = c->bodylen = 0;
		c->phase_ns = clock_ns();
		if (c->close_after) {
			netsrv_conn_close(s, c);
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
				netsrv_conn_close(s, c);
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
				netsrv_conn_hello(s, c);
				return;
			}
			if (c->inlen < 6 && memchr(c->in, ' ', c->inlen) == NULL && memchr(c->in, '\n', c->inlen) == NULL)
				break; /* not enough to tell yet */
			if (!is_http_method(c->in, c->inlen)) {
				netsrv_conn_close(s, c); /* neither: garbage */
				return;
			}
			c->http = true;
		}
		r = nethttp_parse_request(c->in, c->inlen, NETSRV_MAX_BODY, &q);
		if (r == -EAGAIN) {
			if (c->inlen >= sizeof(c->in) - 1)
				netsrv_conn_close(s, c); /* headers larger than any real client's */
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
				netsrv_conn_close(s, c);
			else
				conn_want(s, c, true); /* EPOLLOUT will finish it */
			return;
		}
		c->headlen = c->bodylen = 0;
		c->phase_ns = clock_ns();
		if (c->close_after) {
			netsrv_conn_close(s, c);
			return;
		}
		if (!c->inlen)
			break;
	}
}

