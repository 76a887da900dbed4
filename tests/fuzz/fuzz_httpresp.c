/* Fuzz target: net.http's response parser (src/net/http.c), fed as a
 * socket would feed it. The result never depends on how the bytes were
 * cut (whole, a byte at a time, in pieces the input's first byte picks,
 * cut in two); a response it takes as complete ends within the input, has
 * a final status of 200 to 599, a head within its bound, a body within
 * NETHTTP_MAX_BODY that is as long as its Content-Length said, and takes
 * no byte more; the same status, body length and keep-alive written out
 * again, chunked or with a length, parse back to the same. */
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pieces.h"
#include "../../src/net/http.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void init(void *p, const void *arg)
{
	(void)arg;
	nethttp_resp_init(p, false);
}

static int feed(void *p, const char *buf, size_t len, size_t *used)
{
	return nethttp_resp_feed(p, buf, len, used);
}

static bool same(const void *pa, const void *pb)
{
	const struct nethttp_resp *a = pa, *b = pb;

	return a->head_done == b->head_done && a->done == b->done && a->body == b->body &&
	       (!a->head_done || (a->status == b->status && a->framing == b->framing && a->length == b->length &&
				  a->close_after == b->close_after && a->headlen == b->headlen));
}

static const struct fuzz_stream stream = { .init = init, .feed = feed, .same = same };

/* The response written out again from what was read: it parses the same. */
static void canonical(const struct nethttp_resp *p)
{
	size_t cap = (size_t)p->body + 200, n, total;
	char *out = malloc(cap);
	struct nethttp_resp again;
	int h;

	if (!out)
		abort();
	if (p->framing == NETHTTP_CHUNKED)
		h = snprintf(out, cap, "HTTP/1.1 %d X\r\nTransfer-Encoding: chunked\r\n%s\r\n%" PRIx64 "\r\n", p->status,
			     p->close_after ? "Connection: close\r\n" : "", p->body);
	else
		h = snprintf(out, cap, "HTTP/1.1 %d X\r\nContent-Length: %" PRIu64 "\r\n%s\r\n", p->status, p->body,
			     p->close_after ? "Connection: close\r\n" : "");
	if (h <= 0 || (size_t)h >= cap - 10)
		abort();
	n = (size_t)h;
	memset(out + n, 'b', (size_t)p->body);
	n += (size_t)p->body;
	if (p->framing == NETHTTP_CHUNKED) {
		if (p->body == 0) {
			n -= 3; /* "0\r\n" is the last chunk already */
		} else {
			memcpy(out + n, "\r\n", 2);
			n += 2;
		}
		memcpy(out + n, "0\r\n\r\n", 5);
		n += 5;
	}
	if (fuzz_stream_feed(&stream, &again, out, n, n, 0, &total) != 1 || total != n || again.status != p->status ||
	    again.body != p->body || again.close_after != p->close_after)
		abort();
	free(out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *in = (const char *)data;
	struct nethttp_resp p, q;
	size_t total, t2, piece = size ? (size_t)(data[0] % 13) + 1 : 1;
	int r = fuzz_stream_check(&stream, &p, &q, in, size, piece, &total);

	if (r != 1 && r != 0 && r != -EINVAL && r != -EMSGSIZE)
		abort();
	if (r < 0)
		return 0;
	if (p.headlen > NETHTTP_MAX_HEAD || p.body > NETHTTP_MAX_BODY || p.length > NETHTTP_MAX_BODY)
		abort();
	if (p.head_done && (p.status < 200 || p.status > 599 || p.headlen > total))
		abort(); /* a status "2:0" was 300, an interim 1xx is never the answer */
	if (r == 0) {
		if (total != size)
			abort();
		/* the close completes a body framed by it, and nothing else */
		if ((nethttp_resp_eof(&p) == 0) != (p.head_done && p.framing == NETHTTP_TO_CLOSE))
			abort();
		if (p.done && p.framing == NETHTTP_TO_CLOSE && p.body != total - p.headlen)
			abort();
		return 0;
	}
	if (!p.head_done || !p.done || total > size)
		abort();
	if (p.framing == NETHTTP_TO_CLOSE || (p.framing == NETHTTP_NO_BODY && p.body) ||
	    (p.framing == NETHTTP_LENGTH && (p.body != p.length || total != p.headlen + p.length)))
		abort(); /* "Content-Length: -1" was 2^64-1 */
	/* a complete response takes no more bytes */
	if (total < size && nethttp_resp_feed(&p, in + total, size - total, &t2) != -EINVAL)
		abort();
	if (p.framing != NETHTTP_NO_BODY && p.body <= (1u << 20))
		canonical(&p);
	return 0;
}
