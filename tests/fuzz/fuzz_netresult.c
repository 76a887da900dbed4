/* Fuzz target: the net client's reading of a server's RESULT line
 * (src/net/proto.c's parser, then src/net/verify.c's bounds). The input's
 * first 40 bytes are the client's own account of the test (the kind, what
 * it sent, received and timed), the rest the server's line. A RESULT the
 * client accepts keeps every bound checked again here, independently; one
 * it refuses says why. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/net/proto.h"
#include "../../src/net/verify.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static uint64_t take(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct netverify_tally t;
	struct netmsg m;
	char err[256], why[256] = "";
	const uint64_t *v = m.v;
	int r;

	if (size < 40)
		return 0;
	memset(&t, 0, sizeof(t));
	t.kind = (enum netproto_kind)(data[0] % NETK_NKINDS);
	t.streams = 1 + data[1] % NETPROTO_MAX_STREAMS;
	/* small numbers as often as large ones: the line's are decimal text */
	t.sent = take(data + 8) >> (data[2] % 64);
	t.recvd = take(data + 16) >> (data[3] % 64);
	t.dgrams = take(data + 24) >> (data[4] % 64);
	t.conns = t.dgrams >> (data[5] % 64);
	t.wall_ns = take(data + 32) >> (data[6] % 64);
	if (netproto_parse((const char *)data + 40, size - 40, &m, err, sizeof(err)) < 0 || m.verb != NETPROTO_RESULT)
		return 0;
	r = netverify_result(&t, &m, why, sizeof(why));
	if (r < 0) {
		if (r != -EPROTO || !why[0])
			abort();
		return 0;
	}
	/* accepted: the bounds of DESIGN.md's promise, checked again */
	if (!netmsg_has(&m, NETKEY_BYTES) || v[NETKEY_BYTES] > t.sent || v[NETKEY_CPU_NS] > t.wall_ns ||
	    v[NETKEY_SENT] < t.recvd)
		abort();
	if (t.kind == NETK_UDP && (v[NETKEY_PACKETS] > t.dgrams || v[NETKEY_LOST] > t.dgrams ||
				   v[NETKEY_OOO] > v[NETKEY_PACKETS] || v[NETKEY_JITTER_NS] > t.wall_ns ||
				   v[NETKEY_SENT] != 0))
		abort();
	if (t.kind == NETK_TCP_CRR && v[NETKEY_CONNS] > t.conns)
		abort();
	if (t.kind == NETK_TCP_STREAM && v[NETKEY_RETRANS] > v[NETKEY_SENT])
		abort();
	if ((t.kind == NETK_TCP_RR || t.kind == NETK_UDP_RR || t.kind == NETK_TCP_CRR) &&
	    v[NETKEY_SENT] > v[NETKEY_BYTES])
		abort();
	return 0;
}
