/* The control protocol between `vmbench run net` and `vmbench serve`,
 * version 1: one TCP connection, one ASCII line per message (at most
 * NETPROTO_MAX_LINE bytes with its '\n'), a verb and KEY=VALUE words.
 *
 *   client: VMBNET 1 [token=SECRET]       server: OK 1 | ERR text
 *   client: TEST kind=K ms=N [streams= size= rate= dir= ...]
 *                                          server: PORT n | ERR text
 *   client: END                            server: RESULT bytes=.. cpu_ns=.. ...
 *   client: STATS                          server: STATS http=N
 *   client: HTTP                           server: PORT n | ERR text
 *   client: BYE
 *
 * Data flows on connections of their own, to the port PORT names. The
 * parser is pure (no I/O, no allocation) so that it can be fuzzed, and it
 * checks every number against the bounds a server enforces. */
#ifndef VMB_NET_PROTO_H
#define VMB_NET_PROTO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define NETPROTO_VERSION 1
#define NETPROTO_MAX_LINE 512
#define NETPROTO_MAX_TOKEN 64
#define NETPROTO_MAX_TEXT 200

enum netproto_verb {
	NETPROTO_HELLO = 0, /* VMBNET */
	NETPROTO_OK,
	NETPROTO_ERR,
	NETPROTO_TEST,
	NETPROTO_PORT,
	NETPROTO_END,
	NETPROTO_RESULT,
	NETPROTO_STATS,
	NETPROTO_BYE,
	NETPROTO_HTTP, /* serve this session's HTTP: answered PORT n */
	NETPROTO_NVERBS,
};

/* The kinds of test a server runs. */
enum netproto_kind {
	NETK_TCP_STREAM = 0,
	NETK_UDP,
	NETK_TCP_RR,
	NETK_UDP_RR,
	NETK_TCP_CRR,
	NETK_NKINDS,
};

/* Direction of a stream: client to server, server to client, both. */
enum netproto_dir { NETD_FWD = 0, NETD_REV, NETD_BIDIR };

/* Keys of KEY=VALUE words: every one is a bounded whole number, or a word
 * from a fixed list stored as its index (kind, dir). */
enum netproto_key {
	NETKEY_KIND = 0,
	NETKEY_MS,      /* test duration, ms */
	NETKEY_STREAMS, /* parallel connections */
	NETKEY_SIZE,    /* write size, datagram size or request/response size */
	NETKEY_RATE,    /* UDP target rate, bit/s; 0 = unpaced */
	NETKEY_DIR,
	NETKEY_BYTES,   /* RESULT: bytes the server received */
	NETKEY_SENT,    /* RESULT: bytes the server sent */
	NETKEY_PACKETS, /* RESULT: datagrams received */
	NETKEY_LOST,
	NETKEY_OOO,
	NETKEY_JITTER_NS,
	NETKEY_CPU_NS,  /* RESULT: CPU time of the server's test thread */
	NETKEY_RETRANS, /* RESULT: TCP retransmissions of the server's senders */
	NETKEY_CONNS,   /* RESULT: connections served (crr) */
	NETKEY_HTTP,    /* STATS: HTTP requests answered since start */
	NETKEY_NKEYS,
};

/* Server bounds: a request beyond them is refused, never clamped. */
#define NETPROTO_MAX_MS 600000u
#define NETPROTO_MAX_STREAMS 128u
#define NETPROTO_MAX_SIZE (1u << 20)
#define NETPROTO_MAX_DGRAM 65000u
#define NETPROTO_MAX_RATE 100000000000ull /* 100 Gbit/s */
#define NETPROTO_MAX_COUNT UINT64_C(1000000000000000000) /* RESULT's counters: 10^18, far above any real test */

/* A TEST without size=: 128 KiB per write, iperf3's default for TCP (the
 * suite's msg-size default is the same number, spelt in KiB for --help). */
#define NETPROTO_DEF_SIZE_KIB 128
#define NETPROTO_DEF_SIZE ((size_t)NETPROTO_DEF_SIZE_KIB * 1024)

/* The head of every udp test datagram, in the sender's byte order (both
 * ends are this program on one link): the receiver counts loss, order and
 * jitter from seq and sent_ns, and ignores a datagram without the magic. */
struct netproto_dgram {
	uint32_t magic;
	uint32_t flags;
	uint64_t seq;
	uint64_t sent_ns;
};
#define NETPROTO_DGRAM_MAGIC 0x564d4244u /* "VMBD" */

struct netmsg {
	enum netproto_verb verb;
	unsigned version; /* HELLO, OK */
	unsigned port;    /* PORT */
	uint64_t have;    /* bit k: key k was given */
	uint64_t v[NETKEY_NKEYS];
	char token[NETPROTO_MAX_TOKEN + 1]; /* HELLO: "" when none */
	char text[NETPROTO_MAX_TEXT + 1];   /* ERR */
};

/* Parse one line (without or with its trailing '\n'; len bytes, no NUL
 * needed). 0, or -EINVAL (malformed) / -ERANGE (a number out of bounds)
 * with a reason in err. Writes *m only on success. */
int netproto_parse(const char *line, size_t len, struct netmsg *m, char *err, size_t errlen);
/* The canonical line for m, with its '\n': its length, or -ENOSPC. */
int netproto_format(const struct netmsg *m, char *buf, size_t len);
/* Set key k of m. */
void netmsg_set(struct netmsg *m, enum netproto_key k, uint64_t v);
bool netmsg_has(const struct netmsg *m, enum netproto_key k);
const char *netproto_kind_name(enum netproto_kind k);
const char *netproto_verb_name(enum netproto_verb v);

/* A token as the protocol carries it: 1 to NETPROTO_MAX_TOKEN letters,
 * digits, '.', '_' or '-' (n bytes of t). */
bool netproto_token_valid(const char *t, size_t n);

#endif
