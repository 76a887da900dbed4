/* The HTTP/1.1 that serve answers and net.http sends, as two pure parsers
 * (no I/O, no allocation, every number range-checked) so that both can be
 * fuzzed: serve's reading of a request, and the load generator's reading
 * of a response's head. Only what the two ends need is understood; any
 * other form is refused, never guessed at. */
#ifndef VMB_NET_HTTP_H
#define VMB_NET_HTTP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The largest body a response may announce: far above any page a test
 * loads (serve's largest is 1 MiB), far below what a size_t holds. */
#define NETHTTP_MAX_BODY (UINT64_C(1) << 40)

enum nethttp_page {
	NETHTTP_STATIC = 0, /* GET /static/N */
	NETHTTP_DYNAMIC,    /* GET /dynamic */
	NETHTTP_NOT_FOUND,  /* GET of anything else */
	NETHTTP_BAD_METHOD, /* a method other than GET */
};

struct nethttp_req {
	size_t headlen; /* bytes of the request through its blank line */
	enum nethttp_page page;
	uint64_t size; /* NETHTTP_STATIC: N, at most max_static */
	bool close_after;
};

/* One request at the start of buf[0, len): 0 with *out; -EAGAIN when its
 * head is not complete yet; -EINVAL when it is malformed (a 400). A
 * /static/N with N of 1 to 7 decimal digits (no sign, no space) and at
 * most max_static is NETHTTP_STATIC, any other path NETHTTP_NOT_FOUND. */
int nethttp_parse_request(const char *buf, size_t len, uint64_t max_static, struct nethttp_req *out);

struct nethttp_resp {
	size_t headlen; /* bytes of the head through its blank line */
	int status;     /* 100 to 599, three digits */
	uint64_t body;  /* Content-Length, at most NETHTTP_MAX_BODY */
	bool close_after;
};

/* A response's head at the start of buf[0, len): 0 with *out; -EAGAIN when
 * not complete yet; -EINVAL when malformed (a status that is not three
 * digits, a Content-Length that is not a decimal number or two that
 * differ, no length where a body follows); -ENOTSUP for a chunked body. */
int nethttp_parse_response(const char *buf, size_t len, struct nethttp_resp *out);

#endif
