/* The client's check of a server's RESULT: every figure the server reports
 * must be one it could have measured, given what the client itself sent,
 * received and timed (DESIGN.md: a peer's figures are checked against what
 * the client sent). Pure, so that it is fuzzed with the RESULT parser
 * (tests/fuzz/fuzz_netresult.c). */
#ifndef VMB_NET_VERIFY_H
#define VMB_NET_VERIFY_H

#include <stddef.h>
#include <stdint.h>

#include "proto.h"

/* What a server may still hold in flight per stream beyond what the client
 * received (its send buffer, the client's receive buffer, the network):
 * far above Linux's tcp_wmem and tcp_rmem maxima. */
#define NETVERIFY_BUFFERED (UINT64_C(256) << 20)

/* The client's own account of one test. */
struct netverify_tally {
	enum netproto_kind kind;
	unsigned streams; /* data connections */
	uint64_t sent;    /* payload bytes the client sent */
	uint64_t recvd;   /* payload bytes the client received */
	uint64_t dgrams;  /* datagrams the client sent (udp) */
	uint64_t conns;   /* connections the client opened (tcp_crr) */
	uint64_t wall_ns; /* from sending TEST to reading RESULT */
};

/* 0 when every figure of res (a RESULT) is within what t allows, else
 * -EPROTO with the figure and its bound in why. */
int netverify_result(const struct netverify_tally *t, const struct netmsg *res, char *why, size_t whylen);

#endif
