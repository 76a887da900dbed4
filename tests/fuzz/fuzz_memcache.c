/* Fuzz target: net.memcached's response parser (src/net/memcache.c), fed
 * as a socket would feed it. The input's first byte picks the request (a
 * get of the key "k1" or a set) and a piece size; the rest is the
 * response. The result never depends on how the bytes were cut (whole, a
 * byte at a time, in pieces, cut in two); a response taken as complete
 * ends within the input, has a status its request can have, a value
 * within MC_MAX_VALUE, and takes no byte more; a hit written out again
 * parses back to the same. */
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pieces.h"
#include "../../src/net/memcache.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void init(void *p, const void *arg)
{
	mc_resp_init(p, *(const enum mc_op *)arg, "k1", 2);
}

static int feed(void *p, const char *buf, size_t len, size_t *used)
{
	return mc_resp_feed(p, buf, len, used);
}

static bool same(const void *pa, const void *pb)
{
	const struct mc_resp *a = pa, *b = pb;

	return a->done == b->done && (!a->done || (a->status == b->status && a->value_len == b->value_len &&
						   a->flags == b->flags && a->total == b->total));
}

/* A hit written out again, with its value's bytes: the same. */
static void canonical(const struct mc_resp *p)
{
	size_t cap = (size_t)p->value_len + 80, n, total;
	char *out = malloc(cap);
	struct mc_resp again;
	const enum mc_op get = MC_GET;
	const struct fuzz_stream stream = { .init = init, .feed = feed, .same = same, .arg = &get };
	int h;

	if (!out)
		abort();
	h = snprintf(out, cap, "VALUE k1 %" PRIu32 " %" PRIu64 "\r\n", p->flags, p->value_len);
	if (h <= 0)
		abort();
	n = (size_t)h;
	memset(out + n, 'v', (size_t)p->value_len);
	n += (size_t)p->value_len;
	memcpy(out + n, "\r\nEND\r\n", 7);
	n += 7;
	if (fuzz_stream_feed(&stream, &again, out, n, n, 0, &total) != 1 || total != n || again.status != MC_HIT ||
	    again.flags != p->flags || again.value_len != p->value_len)
		abort();
	free(out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	enum mc_op op = size && (data[0] & 1) ? MC_SET : MC_GET;
	size_t piece = size ? (size_t)(data[0] >> 1) % 13 + 1 : 1, total, t2;
	const char *in = size ? (const char *)data + 1 : "";
	size_t len = size ? size - 1 : 0;
	struct mc_resp p, q;
	const struct fuzz_stream stream = { .init = init, .feed = feed, .same = same, .arg = &op };
	int r = fuzz_stream_check(&stream, &p, &q, in, len, piece, &total);

	if (r != 1 && r != 0 && r != -EINVAL && r != -EMSGSIZE)
		abort();
	if (r <= 0) {
		if (r == 0 && total != len)
			abort();
		return 0;
	}
	if (!p.done || total > len || p.total != total || p.value_len > MC_MAX_VALUE)
		abort();
	if (op == MC_GET ? (p.status == MC_STORED || p.status == MC_NOT_STORED)
			 : (p.status == MC_HIT || p.status == MC_MISS))
		abort(); /* a set's answer taken for a get's, or the other way round */
	if (p.status != MC_HIT && p.value_len)
		abort();
	if (mc_status_error(p.status) && strncmp(p.line, "ERROR", 5) && strncmp(p.line, "CLIENT_ERROR", 12) &&
	    strncmp(p.line, "SERVER_ERROR", 12))
		abort();
	/* a complete response takes no more bytes */
	if (total < len && mc_resp_feed(&p, in + total, len - total, &t2) != -EINVAL)
		abort();
	if (p.status == MC_HIT && p.value_len <= (1u << 20))
		canonical(&p);
	return 0;
}
