/* The bounds a server's RESULT must keep (see verify.h), one row each:
 * the key, the kinds of test it applies to, and the client's own figure
 * that bounds it from above or below. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>

#include "verify.h"
#include "../core/banned.h"

enum bound {
	B_SENT,     /* the client's bytes sent */
	B_RECVD,    /* the client's bytes received */
	B_DGRAMS,   /* the client's datagrams */
	B_CONNS,    /* the client's connections */
	B_WALL,     /* the test's wall time as the client timed it */
	B_PACKETS,  /* the server's own datagram count (reordered ones are among them) */
	B_SRV_SENT, /* the server's own bytes sent (a retransmitted segment carries one at least) */
	B_SRV_GOT,  /* the server's own bytes received (an echo sends no more) */
	B_INFLIGHT, /* the client's bytes received plus what streams can hold in flight */
	B_ZERO,     /* nothing: the server sends no data in this test */
};

#define KB(k) (1u << (k))
#define ALL (KB(NETK_TCP_STREAM) | KB(NETK_UDP) | KB(NETK_TCP_RR) | KB(NETK_UDP_RR) | KB(NETK_TCP_CRR))
#define ECHO (KB(NETK_TCP_RR) | KB(NETK_UDP_RR) | KB(NETK_TCP_CRR))

struct vrow {
	unsigned kinds;
	enum netproto_key key;
	bool lower; /* the bound is a minimum */
	enum bound bound;
	const char *what;
};

static const struct vrow rows[] = {
	{ ALL, NETKEY_BYTES, false, B_SENT, "the bytes the client sent" },
	{ ALL, NETKEY_CPU_NS, false, B_WALL, "the test's wall time in ns" },
	{ ALL, NETKEY_SENT, true, B_RECVD, "the bytes the client received" },
	{ KB(NETK_TCP_STREAM), NETKEY_SENT, false, B_INFLIGHT, "the bytes the client received and the streams hold" },
	{ KB(NETK_TCP_STREAM), NETKEY_RETRANS, false, B_SRV_SENT, "the server's own bytes sent" },
	{ KB(NETK_UDP), NETKEY_SENT, false, B_ZERO, "nothing (the server sends no data in a udp test)" },
	{ KB(NETK_UDP), NETKEY_PACKETS, false, B_DGRAMS, "the datagrams the client sent" },
	{ KB(NETK_UDP), NETKEY_LOST, false, B_DGRAMS, "the datagrams the client sent" },
	{ KB(NETK_UDP), NETKEY_OOO, false, B_PACKETS, "the server's own count of datagrams" },
	{ KB(NETK_UDP), NETKEY_JITTER_NS, false, B_WALL, "the test's wall time in ns" },
	{ ECHO, NETKEY_SENT, false, B_SRV_GOT, "the server's own bytes received" },
	{ KB(NETK_TCP_CRR), NETKEY_CONNS, false, B_CONNS, "the connections the client opened" },
};

static uint64_t bound_value(const struct netverify_tally *t, const struct netmsg *res, enum bound b)
{
	switch (b) {
	case B_SENT:
		return t->sent;
	case B_RECVD:
		return t->recvd;
	case B_DGRAMS:
		return t->dgrams;
	case B_CONNS:
		return t->conns;
	case B_WALL:
		return t->wall_ns;
	case B_PACKETS:
		return res->v[NETKEY_PACKETS];
	case B_SRV_SENT:
		return res->v[NETKEY_SENT];
	case B_SRV_GOT:
		return res->v[NETKEY_BYTES];
	case B_INFLIGHT: {
		uint64_t room = (uint64_t)(t->streams ? t->streams : 1) * NETVERIFY_BUFFERED;

		return t->recvd > UINT64_MAX - room ? UINT64_MAX : t->recvd + room;
	}
	case B_ZERO:
		break;
	}
	return 0;
}

static const char *const key_names[NETKEY_NKEYS] = {
	[NETKEY_BYTES] = "bytes", [NETKEY_SENT] = "sent", [NETKEY_PACKETS] = "packets",
	[NETKEY_LOST] = "lost", [NETKEY_OOO] = "ooo", [NETKEY_JITTER_NS] = "jitter_ns",
	[NETKEY_CPU_NS] = "cpu_ns", [NETKEY_RETRANS] = "retrans", [NETKEY_CONNS] = "conns",
};

int netverify_result(const struct netverify_tally *t, const struct netmsg *res, char *why, size_t whylen)
{
	if (res->verb != NETPROTO_RESULT || (unsigned)t->kind >= NETK_NKINDS) {
		snprintf(why, whylen, "not a RESULT");
		return -EPROTO;
	}
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		const struct vrow *r = &rows[i];
		uint64_t v, b;

		if (!(r->kinds & KB(t->kind)))
			continue;
		/* every figure a row bounds must be there: a missing one is not 0 */
		if (!netmsg_has(res, r->key) || (r->bound == B_PACKETS && !netmsg_has(res, NETKEY_PACKETS))) {
			snprintf(why, whylen, "no %s= in its RESULT", key_names[r->key]);
			return -EPROTO;
		}
		v = res->v[r->key];
		b = bound_value(t, res, r->bound);
		if (r->lower ? v < b : v > b) {
			snprintf(why, whylen, "%s=%llu, %s %s (%llu)", key_names[r->key], (unsigned long long)v,
				 r->lower ? "less than" : "more than", r->what, (unsigned long long)b);
			return -EPROTO;
		}
	}
	return 0;
}
