/* The HTTP/1.1 that serve answers and net.http sends, as two pure parsers
 * (no I/O, no allocation, every number range-checked) so that both can be
 * fuzzed: serve's reading of a request, and the load generator's reading
 * of a response, head and body, as it arrives. Serve understands only the
 * requests it answers; the client understands what servers send (RFC 9112:
 * Content-Length, chunked, interim responses, a body to the close). Any
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

/* The largest response head (status line and header fields, with the
 * interim 1xx responses before it) and the largest trailer section: far
 * above any real server's (nginx's buffers for a whole head are 8 KiB). A
 * chunk's size line, extensions included, is bounded alike. */
#define NETHTTP_MAX_HEAD 65536
#define NETHTTP_MAX_CHUNK_LINE 4096

/* How a response's body ends (RFC 9112 6.3). */
enum nethttp_framing {
	NETHTTP_NO_BODY,  /* a response to HEAD, a 204 or a 304: at the blank line */
	NETHTTP_LENGTH,   /* after Content-Length bytes */
	NETHTTP_CHUNKED,  /* at the last chunk and the trailer section */
	NETHTTP_TO_CLOSE, /* when the server closes the connection */
};

/* net.http's response parser: one per connection, fed the bytes as they
 * arrive, in pieces of any size, never copying them (a body is skipped by
 * its count). The fields before the blank line are its results; those
 * after it, its place in the response. */
struct nethttp_resp {
	bool head_done;               /* the final head is read: the next five are set */
	int status;                   /* 200 to 599, three digits */
	enum nethttp_framing framing;
	uint64_t length;              /* NETHTTP_LENGTH: the Content-Length, at most NETHTTP_MAX_BODY */
	bool close_after;             /* the server closes after this response */
	size_t headlen;               /* bytes of the head, interim 1xx responses included */
	uint64_t body;                /* the body's bytes so far: chunk data without its framing */
	bool done;                    /* the response is complete */

	bool to_head;
	uint8_t state, field, minor;
	uint8_t idx;   /* a place in the version, the status code; a chunk size's digit seen */
	uint8_t wlen;  /* the length of word[], UINT8_MAX when longer */
	bool have_len, have_te, te_chunked, conn_close, conn_keep;
	uint64_t num;  /* the Content-Length or chunk size being read */
	uint64_t left; /* bytes left of the body or of the chunk */
	uint32_t line; /* bytes of the chunk line or trailer section so far */
	char word[20]; /* the header name, then a token of its value, lower case, as far as any we look at */
};

/* A new response to a GET (to_head false) or a HEAD request (true). */
void nethttp_resp_init(struct nethttp_resp *p, bool to_head);

/* Feed buf[0, len), the next bytes of the connection. 1 when the response
 * is complete, with *used the bytes of it (what follows is not its own);
 * 0 when every byte was taken and more are needed (*used = len); -EINVAL
 * when malformed (a status line that is not HTTP/1.x and three digits, a
 * Content-Length that is not 1 to 15 decimal digits within
 * NETHTTP_MAX_BODY or two that differ, Transfer-Encoding with
 * Content-Length or in HTTP/1.0, a chunk size that is not hex or too
 * large, a 101 nobody asked for, a control byte in a field, framing bytes
 * out of place); -EMSGSIZE when the head, a chunk line or the trailers
 * exceed their bound. After an error the parser takes nothing more. */
int nethttp_resp_feed(struct nethttp_resp *p, const char *buf, size_t len, size_t *used);

/* The server closed the connection: 0 when that completes the response
 * (NETHTTP_TO_CLOSE, or done already), -EPIPE when it was cut short. */
int nethttp_resp_eof(struct nethttp_resp *p);

#endif
