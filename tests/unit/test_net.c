/* The net suite's pure parts: the control protocol's parser and formatter,
 * UDP loss/reordering/jitter as iperf3 and RFC 3550 count them, wrk2's
 * schedule arithmetic (latency from the intended send time), a NIC's
 * interrupt counts read from /proc/interrupts, and the load engine of
 * net.http and net.memcached against a toy server on loopback. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "test.h"
#include <arpa/inet.h>
#include <netinet/in.h>

#include "../../src/net/authlim.h"
#include "../../src/net/calc.h"
#include "../../src/net/http.h"
#include "../../src/net/io.h"
#include "../../src/net/proto.h"
#include "../../src/net/serve.h"
#include "../../src/suites/net_irq.h"
#include "../../src/net/verify.h"
#include "../../src/suites/net_load.h"

struct pcase {
	const char *line;
	int want; /* 0, -EINVAL or -ERANGE */
	enum netproto_verb verb;
	const char *canon; /* the formatted line, without '\n'; NULL: same as line */
};

static const struct pcase pcases[] = {
	{ "VMBNET 1", 0, NETPROTO_HELLO, NULL },
	{ "VMBNET 1 token=s3cr.et_-X", 0, NETPROTO_HELLO, NULL },
	{ "VMBNET 1\r\n", 0, NETPROTO_HELLO, "VMBNET 1" },
	{ "VMBNET", -EINVAL, 0, NULL },
	{ "VMBNET 0", -ERANGE, 0, NULL },
	{ "VMBNET x", -EINVAL, 0, NULL },
	{ "VMBNET 1 token=", -EINVAL, 0, NULL },
	{ "VMBNET 1 token=a/b", -EINVAL, 0, NULL },
	{ "VMBNET 1 token=a token=b", -EINVAL, 0, NULL }, /* which one would be checked? */
	{ "VMBNET 1 token=a token=a", -EINVAL, 0, NULL },
	{ "HTTP", 0, NETPROTO_HTTP, NULL },
	{ "OK 1", 0, NETPROTO_OK, NULL },
	{ "ERR busy: try again", 0, NETPROTO_ERR, NULL },
	{ "TEST kind=tcp_stream ms=2000 streams=4 size=131072 dir=bidir", 0, NETPROTO_TEST, NULL },
	{ "TEST  ms=5   kind=udp rate=1000000", 0, NETPROTO_TEST, "TEST kind=udp ms=5 rate=1000000" },
	{ "TEST kind=tcp_stream", -EINVAL, 0, NULL },             /* ms= missing */
	{ "TEST kind=tcp_stream ms=600001", -ERANGE, 0, NULL },   /* beyond the bound */
	{ "TEST kind=tcp_stream ms=0", -ERANGE, 0, NULL },
	{ "TEST kind=tcp_stream ms=10 streams=129", -ERANGE, 0, NULL },
	{ "TEST kind=tcp_stream ms=10 size=1048577", -ERANGE, 0, NULL },
	{ "TEST kind=tcp_stream ms=10 rate=100000000001", -ERANGE, 0, NULL },
	{ "TEST kind=sctp ms=10", -EINVAL, 0, NULL },
	{ "TEST kind=udp ms=10 ms=20", -EINVAL, 0, NULL },         /* twice */
	{ "TEST kind=udp ms=10 bytes=3", -EINVAL, 0, NULL },       /* a RESULT key */
	{ "TEST kind=udp ms=-1", -EINVAL, 0, NULL },
	{ "TEST kind=udp ms=99999999999999999999", -ERANGE, 0, NULL },
	{ "TEST kind=udp ms=10 junk", -EINVAL, 0, NULL },
	{ "PORT 5201", 0, NETPROTO_PORT, NULL },
	{ "PORT 0", -ERANGE, 0, NULL },
	{ "PORT 65536", -ERANGE, 0, NULL },
	{ "END", 0, NETPROTO_END, NULL },
	{ "RESULT bytes=12 sent=0 packets=3 lost=1 ooo=0 jitter_ns=1500 cpu_ns=7", 0, NETPROTO_RESULT, NULL },
	{ "STATS http=42", 0, NETPROTO_STATS, NULL },
	{ "BYE", 0, NETPROTO_BYE, NULL },
	{ "", -EINVAL, 0, NULL },
	{ "   ", -EINVAL, 0, NULL },
	{ "GET / HTTP/1.1", -EINVAL, 0, NULL },
	{ "END\x01", -EINVAL, 0, NULL },
	{ "END \xc3\xa9", -EINVAL, 0, NULL },
};

static void parse_table(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(pcases) / sizeof(pcases[0]); i++) {
		const struct pcase *c = &pcases[i];
		struct netmsg m, again;
		char err[200], buf[NETPROTO_MAX_LINE];
		int r = netproto_parse(c->line, strlen(c->line), &m, err, sizeof(err));
		int n;

		if (r != c->want)
			fail_msg("'%s': %d, expected %d (%s)", c->line, r, c->want, r ? err : "");
		if (r < 0) {
			assert_true(err[0] != '\0');
			continue;
		}
		assert_int_equal(m.verb, c->verb);
		n = netproto_format(&m, buf, sizeof(buf));
		assert_true(n > 0 && buf[n - 1] == '\n');
		buf[n - 1] = '\0';
		if (strcmp(buf, c->canon ? c->canon : c->line))
			fail_msg("'%s' formats as '%s'", c->line, buf);
		/* the canonical line parses to the same message */
		assert_int_equal(netproto_parse(buf, strlen(buf), &again, err, sizeof(err)), 0);
		assert_memory_equal(&m, &again, sizeof(m));
	}
}

static void parse_values(void **state)
{
	struct netmsg m;
	char err[200];
	const char *l = "TEST kind=udp_rr ms=250 size=64 dir=rev";

	(void)state;
	assert_int_equal(netproto_parse(l, strlen(l), &m, err, sizeof(err)), 0);
	assert_int_equal(m.v[NETKEY_KIND], NETK_UDP_RR);
	assert_int_equal(m.v[NETKEY_MS], 250);
	assert_int_equal(m.v[NETKEY_SIZE], 64);
	assert_int_equal(m.v[NETKEY_DIR], NETD_REV);
	assert_false(netmsg_has(&m, NETKEY_STREAMS));
	/* a line of exactly the limit is refused, one shorter is not too long */
	{
		char big[NETPROTO_MAX_LINE + 1];

		memset(big, ' ', sizeof(big));
		memcpy(big, "END", 3);
		assert_int_equal(netproto_parse(big, NETPROTO_MAX_LINE, &m, err, sizeof(err)), -EINVAL);
		assert_int_equal(netproto_parse(big, NETPROTO_MAX_LINE - 1, &m, err, sizeof(err)), 0);
	}
}

/* Hand-worked: seq, send time, arrival time (ns) -> counters and J. */
struct udpcase {
	const char *what;
	uint64_t seq[6], sent[6], recv[6];
	unsigned n;
	uint64_t lost, ooo, packets;
	double jitter, loss_pct;
};

static const struct udpcase ucases[] = {
	/* constant transit: D = 0 every time, J stays 0 */
	{ "steady", { 1, 2, 3, 4 }, { 0, 100, 200, 300 }, { 50, 150, 250, 350 }, 4, 0, 0, 4, 0, 0 },
	/* transits 10, 26, 10: |D| = 16, 16 -> J = 1, then 1 + (16 - 1)/16 = 1.9375 */
	{ "jitter", { 1, 2, 3 }, { 0, 100, 200 }, { 10, 126, 210 }, 3, 0, 0, 3, 1.9375, 0 },
	/* 2 and 3 missing: lost 2 of the 4 expected */
	{ "gap", { 1, 4 }, { 0, 300 }, { 5, 305 }, 2, 2, 0, 2, 0, 50 },
	/* 3 comes after 4: counted lost, then out of order and taken back */
	{ "reorder", { 1, 2, 4, 3 }, { 0, 100, 300, 200 }, { 5, 105, 305, 205 }, 4, 0, 1, 4, 0, 0 },
	/* a duplicate of 1 with nothing lost: out of order, lost stays 0 */
	{ "duplicate", { 1, 1 }, { 0, 0 }, { 5, 5 }, 2, 0, 1, 2, 0, 0 },
	/* the sender's clock 1000 s ahead: only differences of transit matter */
	{ "offset", { 1, 2, 3 }, { 1000000000100ull, 1000000000200ull, 1000000000300ull }, { 110, 226, 310 }, 3, 0, 0, 3,
	  1.9375, 0 },
};

/* A line with a NUL inside, as the server and the client read it from a
 * socket: refused whole, not cut at the NUL and taken for "END". */
static void nul_in_line(void **state)
{
	static const char wire[] = "END\0junk\nOK 1\n";
	struct netio_lines lb;
	struct netmsg m;
	char err[200];
	int sv[2];

	(void)state;
	/* the parser, given the whole line */
	assert_int_equal(netproto_parse("END\0junk", 8, &m, err, sizeof(err)), -EINVAL);
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	assert_int_equal(write(sv[0], wire, sizeof(wire) - 1), (ssize_t)sizeof(wire) - 1);
	memset(&lb, 0, sizeof(lb));
	assert_int_equal(netio_recv_msg(sv[1], &lb, &m, 1000, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "0x00"));
	assert_int_equal(netio_recv_msg(sv[1], &lb, &m, 1000, err, sizeof(err)), 0);
	assert_int_equal(m.verb, NETPROTO_OK);
	close(sv[0]);
	close(sv[1]);
}

static void udp_table(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(ucases) / sizeof(ucases[0]); i++) {
		const struct udpcase *c = &ucases[i];
		struct udp_rx s;

		memset(&s, 0, sizeof(s));
		for (unsigned k = 0; k < c->n; k++)
			udp_rx_record(&s, c->seq[k], c->sent[k], c->recv[k]);
		if (s.lost != c->lost || s.ooo != c->ooo || s.packets != c->packets)
			fail_msg("%s: lost %llu ooo %llu packets %llu", c->what, (unsigned long long)s.lost,
				 (unsigned long long)s.ooo, (unsigned long long)s.packets);
		assert_close(s.jitter_ns, c->jitter, 1e-9);
		assert_close(udp_rx_loss_pct(&s), c->loss_pct, 1e-9);
	}
}

/* A forged sequence number: 2^64-1 after 1 would count 2^64-3 lost, beyond
 * the protocol's bound of 10^18 (the RESULT line could not be written). */
static void udp_forged_seq(void **state)
{
	struct udp_rx s;

	(void)state;
	memset(&s, 0, sizeof(s));
	assert_true(udp_rx_record(&s, 1, 0, 10));
	assert_false(udp_rx_record(&s, UINT64_MAX, 0, 20));
	assert_false(udp_rx_record(&s, 0, 0, 20));
	assert_false(udp_rx_record(&s, UDP_MAX_SEQ + 1, 0, 20));
	assert_int_equal(s.packets, 1);
	assert_int_equal(s.lost, 0);
	/* the largest number counted keeps lost below the bound */
	assert_true(udp_rx_record(&s, UDP_MAX_SEQ, 0, 30));
	assert_true(s.lost < UINT64_C(1000000000000000000));
	/* forged send times at both ends of the clock: a finite jitter */
	assert_true(udp_rx_record(&s, UDP_MAX_SEQ, UINT64_MAX, 0));
	assert_true(udp_rx_record(&s, UDP_MAX_SEQ, 0, UINT64_MAX));
	assert_true(s.jitter_ns >= 0 && s.jitter_ns < 1.9e19);
}

/* The client's check of RESULT: a figure beyond what the client itself
 * sent, received or timed is refused, with the figure named. */
struct vcase {
	const char *what;
	struct netverify_tally t;
	const char *result;
	const char *why; /* NULL: consistent; else a part of the reason */
};

static const struct vcase vcases[] = {
	{ "stream, honest", { NETK_TCP_STREAM, 1, 1000, 0, 0, 0, 2000000000 },
	  "RESULT bytes=900 sent=0 cpu_ns=1000 retrans=0", NULL },
	{ "stream, forged bytes", { NETK_TCP_STREAM, 1, 1000, 0, 0, 0, 2000000000 },
	  "RESULT bytes=999999999999999999 sent=0 cpu_ns=1000 retrans=0", "bytes=999999999999999999, more than" },
	{ "stream, cpu beyond the wall time", { NETK_TCP_STREAM, 1, 1000, 0, 0, 0, 2000000000 },
	  "RESULT bytes=900 sent=0 cpu_ns=2000000001 retrans=0", "cpu_ns=2000000001" },
	{ "stream, no bytes=", { NETK_TCP_STREAM, 1, 1000, 0, 0, 0, 2000000000 }, "RESULT sent=0 cpu_ns=1 retrans=0",
	  "no bytes=" },
	{ "reverse, sent less than the client received", { NETK_TCP_STREAM, 1, 0, 5000, 0, 0, 2000000000 },
	  "RESULT bytes=0 sent=4000 cpu_ns=1 retrans=0", "sent=4000, less than" },
	{ "reverse, retransmits beyond the bytes sent", { NETK_TCP_STREAM, 1, 0, 5000, 0, 0, 2000000000 },
	  "RESULT bytes=0 sent=5000 cpu_ns=1 retrans=5001", "retrans=5001" },
	{ "reverse, sent far beyond what streams hold", { NETK_TCP_STREAM, 1, 0, 5000, 0, 0, 2000000000 },
	  "RESULT bytes=0 sent=999999999999 cpu_ns=1 retrans=0", "sent=999999999999, more than" },
	{ "udp, honest", { NETK_UDP, 1, 14600, 0, 10, 0, 2000000000 },
	  "RESULT bytes=14600 sent=0 packets=10 lost=0 ooo=0 jitter_ns=100 cpu_ns=1", NULL },
	{ "udp, more datagrams than sent", { NETK_UDP, 1, 14600, 0, 10, 0, 2000000000 },
	  "RESULT bytes=14600 sent=0 packets=11 lost=0 ooo=0 jitter_ns=100 cpu_ns=1", "packets=11" },
	{ "udp, more lost than sent", { NETK_UDP, 1, 14600, 0, 10, 0, 2000000000 },
	  "RESULT bytes=14600 sent=0 packets=10 lost=11 ooo=0 jitter_ns=100 cpu_ns=1", "lost=11" },
	{ "udp, more reordered than received", { NETK_UDP, 1, 14600, 0, 10, 0, 2000000000 },
	  "RESULT bytes=14600 sent=0 packets=3 lost=0 ooo=4 jitter_ns=100 cpu_ns=1", "ooo=4" },
	{ "udp, no packets=", { NETK_UDP, 1, 14600, 0, 10, 0, 2000000000 },
	  "RESULT bytes=14600 sent=0 lost=0 ooo=0 jitter_ns=100 cpu_ns=1", "no packets=" },
	{ "udp, jitter beyond the test", { NETK_UDP, 1, 14600, 0, 10, 0, 2000000000 },
	  "RESULT bytes=14600 sent=0 packets=10 lost=0 ooo=0 jitter_ns=2000000001 cpu_ns=1", "jitter_ns=" },
	{ "crr, more connections than opened", { NETK_TCP_CRR, 1, 10, 10, 0, 10, 2000000000 },
	  "RESULT bytes=10 sent=10 cpu_ns=1 conns=11", "conns=11" },
	{ "rr, an echo larger than the request", { NETK_TCP_RR, 1, 10, 10, 0, 0, 2000000000 },
	  "RESULT bytes=10 sent=11 cpu_ns=1", "sent=11" },
	{ "rr, honest", { NETK_TCP_RR, 1, 10, 10, 0, 0, 2000000000 }, "RESULT bytes=10 sent=10 cpu_ns=1", NULL },
};

static void verify_table(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(vcases) / sizeof(vcases[0]); i++) {
		const struct vcase *c = &vcases[i];
		struct netmsg m;
		char err[200], why[200] = "";
		int r;

		assert_int_equal(netproto_parse(c->result, strlen(c->result), &m, err, sizeof(err)), 0);
		r = netverify_result(&c->t, &m, why, sizeof(why));
		if (c->why ? r != -EPROTO || !strstr(why, c->why) : r != 0)
			fail_msg("%s: %d '%s'", c->what, r, why);
	}
}

/* serve's request parser: the page, the size, keep-alive, and refusals. */
struct reqcase {
	const char *in;
	int want;
	enum nethttp_page page;
	uint64_t size;
	bool close_after;
};

static const struct reqcase reqcases[] = {
	{ "GET /static/5 HTTP/1.1\r\nHost: x\r\n\r\n", 0, NETHTTP_STATIC, 5, false },
	{ "GET /static/1048576 HTTP/1.0\r\n\r\n", 0, NETHTTP_STATIC, 1048576, true },
	{ "GET /static/1048577 HTTP/1.1\r\n\r\n", 0, NETHTTP_NOT_FOUND, 0, false },
	{ "GET /static/+5 HTTP/1.1\r\n\r\n", 0, NETHTTP_NOT_FOUND, 0, false },
	{ "GET /static/-5 HTTP/1.1\r\n\r\n", 0, NETHTTP_NOT_FOUND, 0, false },
	{ "GET /static/ HTTP/1.1\r\n\r\n", 0, NETHTTP_NOT_FOUND, 0, false },
	{ "GET /static/\t5 HTTP/1.1\r\n\r\n", -EINVAL, 0, 0, false },
	{ "GET /static/ 5 HTTP/1.1\r\n\r\n", -EINVAL, 0, 0, false },
	{ "GET /static/5 HTTP/1.1\r\nConnection: close\r\n\r\n", 0, NETHTTP_STATIC, 5, true },
	{ "GET /static/5 HTTP/1.0\r\nconnection:keep-alive\r\n\r\n", 0, NETHTTP_STATIC, 5, false },
	{ "GET /dynamic HTTP/1.1\r\n\r\n", 0, NETHTTP_DYNAMIC, 0, false },
	{ "POST /static/5 HTTP/1.1\r\n\r\n", 0, NETHTTP_BAD_METHOD, 0, false },
	{ "GET /static/5 HTTP/2.0\r\n\r\n", -EINVAL, 0, 0, false },
	{ "GET /static/5 HTTP/1.1\r\nBad Header\r\n\r\n", -EINVAL, 0, 0, false },
	{ "GET /static/5 HTTP/1.1\rX\r\n\r\n", -EINVAL, 0, 0, false },
	{ "GET /static/5 HTTP/1.1\r\n", -EAGAIN, 0, 0, false },
};

static void http_request_table(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(reqcases) / sizeof(reqcases[0]); i++) {
		const struct reqcase *c = &reqcases[i];
		struct nethttp_req q;
		size_t len = strlen(c->in);
		int r = nethttp_parse_request(c->in, len, NETSRV_MAX_BODY, &q);
		if (r != c->want)
			fail_msg("'%s': %d, expected %d", c->in, r, c->want);
		if (r == 0 && (q.page != c->page || q.size != c->size || q.close_after != c->close_after ||
			       q.headlen != len))
			fail_msg("'%s': page %d size %llu close %d", c->in, q.page, (unsigned long long)q.size,
				 q.close_after);
	}
	{
		static const char nul[] = "GET /static/5 HTTP/1.1\r\nX: a\0b\r\n\r\n";
		struct nethttp_req q;

		assert_int_equal(nethttp_parse_request(nul, sizeof(nul) - 1, NETSRV_MAX_BODY, &q), -EINVAL);
	}
}

/* net.http's response parser: a length of -1 is not 2^64-1, a status of
 * "2:0" is not 300, a chunked body is read across any split of its bytes.
 * Every case is fed whole, a byte at a time, in pieces of 2, 3 and 7, and
 * cut in two at every place: the result must not depend on how it came. */
struct respcase {
	const char *in;
	int want;    /* what feeding the whole returns: 1 complete, 0 more needed, or an error */
	size_t used; /* bytes of the response when complete; 0: all of in */
	int status;
	enum nethttp_framing framing;
	uint64_t length, body;
	bool close_after;
	size_t headlen; /* 0: not checked (an error) */
	bool to_head;
};

#define H200 "HTTP/1.1 200 OK\r\n"
#define CHUNKED "Transfer-Encoding: chunked\r\n\r\n"

static const struct respcase respcases[] = {
	{ H200 "Content-Length: 5\r\n\r\nhello", 1, 0, 200, NETHTTP_LENGTH, 5, 5, false, 38, false },
	{ H200 "Content-Length: 5\r\n\r\nhel", 0, 0, 200, NETHTTP_LENGTH, 5, 3, false, 38, false },
	/* bytes after the response are not its own: the caller sees where it ended */
	{ H200 "Content-Length: 5\r\n\r\nhello!", 1, 43, 200, NETHTTP_LENGTH, 5, 5, false, 38, false },
	{ "HTTP/1.1 200\r\nContent-Length:5\r\nConnection: close\r\n\r\nhello", 1, 0, 200, NETHTTP_LENGTH, 5, 5,
	  true, 53, false },
	{ "HTTP/1.1 200 \r\nCONNECTION: Keep-Alive, Close\r\ncontent-length: 0 \r\n\r\n", 1, 0, 200,
	  NETHTTP_LENGTH, 0, 0, true, 68, false },
	{ "HTTP/1.0 404 Not Found\r\nContent-Length: 0\r\n\r\n", 1, 0, 404, NETHTTP_LENGTH, 0, 0, true, 45, false },
	{ "HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nContent-Length: 1\r\n\r\nx", 1, 0, 200, NETHTTP_LENGTH, 1, 1,
	  false, 62, false },
	{ H200 "Content-Length: 5\r\nContent-Length: 5\r\n\r\nhello", 1, 0, 200, NETHTTP_LENGTH, 5, 5, false, 57,
	  false },
	{ H200 "Content-Length: 00007\r\n\r\n1234567", 1, 0, 200, NETHTTP_LENGTH, 7, 7, false, 42, false },
	/* no body: a 204, a 304 and a response to HEAD, whatever their length says */
	{ "HTTP/1.1 204 No Content\r\n\r\n", 1, 0, 204, NETHTTP_NO_BODY, 0, 0, false, 27, false },
	{ "HTTP/1.1 204 No Content\r\n\r\nHTTP/1.1", 1, 27, 204, NETHTTP_NO_BODY, 0, 0, false, 27, false },
	{ "HTTP/1.1 304 Not Modified\r\nContent-Length: 100\r\n\r\n", 1, 0, 304, NETHTTP_NO_BODY, 100, 0, false, 50,
	  false },
	{ H200 "Content-Length: 100\r\n\r\n", 1, 0, 200, NETHTTP_NO_BODY, 100, 0, false, 40, true },
	{ H200 CHUNKED, 1, 0, 200, NETHTTP_NO_BODY, 0, 0, false, 47, true },
	/* interim responses before the final one: skipped, their bytes in the head */
	{ "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\n" H200
	  "Content-Length: 2\r\n\r\nok",
	  1, 0, 200, NETHTTP_LENGTH, 2, 2, false, 103, false },
	{ "HTTP/1.1 101 Switching Protocols\r\nUpgrade: x\r\n\r\n", -EINVAL, 0, 0, 0, 0, 0, false, 0, false },
	/* Content-Length: decimal digits, 1 to 15 of them, within the bound, one value */
	{ H200 "Content-Length: -1\r\n\r\n", -EINVAL, 0, 0, 0, 0, 0, false, 0, false },
	{ H200 "Content-Length: +5\r\n\r\n", -EINVAL, 0, 0, 0, 0, 0, false, 0, false },
	{ H200 "Content-Length: 0x10\r\n\r\n", -EINVAL, 0, 0, 0, 0, 0, false, 0, false },
	{ H200 "Content-Length: 5 5\r\n\r\n", -EINVAL, 0, 0, 0, 0, 0, false, 0, false },
	{ H200 "Content-Length: 5, 5\r\n\r\n", -EINVAL, 0, 0, 0, 0, 0, false, 0, false },
	{ H200 "Content-Length: \r\n\r\n", -EINVAL, 0, 0, 0, 0, 0, false, 0, false },
	{ H200 "Content-Length: 5x\r\n\r\n", -EINVAL, 0, 0, 0, 0, 0, false, 0, false },
	{ H200 "Content-Length: 99999999999999999999\r\n\r\n", -EINVAL, 0, 0, 0, 0, 0, false, 0, false },
	{ H200 "Content-Length: 0000000000000001\r\n\r\n", -EINVAL, 0, 0, 0, 0, 0, false, 0, false },
	{ H200 "Content-Length: 1099511627777\r\n\r\n", -EINVAL, 0, 0, 0, 0, 0, false, 0, false },
	{ H200 "Content-Length: 1099511627776\r\n\r\n", 0, 0, 200, NETHTTP_LENGTH, 1099511627776ull, 0, false, 50,
	  false },
	{ H200 "Content-Length: 5\r\nContent-Length: 6\r\n\r\n", -EINVAL, 0, 0, 0, 0, 0, false, 0, false },
	/* the status line */
	{ "HTTP/1.1 2:0 OK\r\nContent-Length: 5\r\n\r\n", -EINVAL, 0, 0, 0, 0, 0, false, 0, false },
	{ "HTTP/1.1 099 OK\r\nContent-Length: 5\r\n\r\n", -EINVAL, 0, 0, 0, 0, 0, false, 0, false },
	{ "HTTP/1.1 2000 OK\r\nContent-Length: 5\r\n\r\n", -EINVAL, 0, 0, 0, 0, 0, false, 0, false },
	{ "HTTP/1.1 600 OK\r\nContent-Length: 5\r\n\r\n", -EINVAL, 0, 0, 0, 0, 0, false, 0, false },
	{ "HTTP/2.0 200 OK\r\nContent-Length: 5\r\n\r\n", -EINVAL, 0, 0, 0, 0, 0, false, 0, false },
	{ "HTTP/1.1  200 OK\r\nContent-Length: 5\r\n\r\n", -EINVAL, 0, 0, 0, 0, 0, false, 0, false },
	{ "HTTP/1.1 200 O\x01K\r\nContent-Length: 5\r\n\r\n", -EINVAL, 0, 0, 0, 0, 0, false, 0, false },
	{ "http/1.1 200 OK\r\nContent-Length: 5\r\n\r\n", -EINVAL, 0, 0, 0, 0, 0, false, 0, false },
	/* header lines */
	{ H200 "Bad Header\r\n\r\n", -EINVAL, 0, 0, 0, 0, 0, false, 0, false },
	{ H200 "X: a\x01" "b\r\n\r\n", -EINVAL, 0, 0, 0, 0, 0, false, 0, false },
	{ H200 "X: a\x7f\r\n\r\n", -EINVAL, 0, 0, 0, 0, 0, false, 0, false },
	{ H200 "X: a\r\n folded\r\n\r\n", -EINVAL, 0, 0, 0, 0, 0, false, 0, false },
	{ H200 ": a\r\n\r\n", -EINVAL, 0, 0, 0, 0, 0, false, 0, false },
	{ H200 "X: a\n\r\n", -EINVAL, 0, 0, 0, 0, 0, false, 0, false },
	{ H200 "Content-Length: 5\r\n", 0, 0, 0, 0, 0, 0, false, 0, false },
	/* no length: the body goes to the close (see http_response_eof) */
	{ H200 "\r\nabc", 0, 0, 200, NETHTTP_TO_CLOSE, 0, 3, true, 19, false },
	{ H200 "Transfer-Encoding: chunked, gzip\r\n\r\nabc", 0, 0, 200, NETHTTP_TO_CLOSE, 0, 3, true, 53, false },
	/* chunked: sizes in hex, extensions, trailers, the last chunk */
	{ H200 CHUNKED "5\r\nhello\r\n0\r\n\r\n", 1, 0, 200, NETHTTP_CHUNKED, 0, 5, false, 47, false },
	{ H200 "Transfer-Encoding: gzip, Chunked\r\n\r\n0005\r\nhello\r\n0000\r\n\r\n", 1, 0, 200, NETHTTP_CHUNKED, 0,
	  5, false, 53, false },
	{ H200 "Transfer-Encoding: gzip\r\nTransfer-Encoding: chunked\r\n\r\n1\r\nx\r\n0\r\n\r\n", 1, 0, 200,
	  NETHTTP_CHUNKED, 0, 1, false, 72, false },
	{ H200 CHUNKED "A;name=val;q=\"x y\"\r\n0123456789\r\n1a \t;e\r\nabcdefghijklmnopqrstuvwxyz\r\n"
		       "0;last\r\nX-Trailer: 1\r\nY:\r\n\r\n",
	  1, 0, 200, NETHTTP_CHUNKED, 0, 36, false, 47, false },
	{ H200 CHUNKED "5\r\nhello\r\n0\r\n\r\nmore", 1, 62, 200, NETHTTP_CHUNKED, 0, 5, false, 47, false },
	{ H200 CHUNKED "5\r\nhel", 0, 0, 200, NETHTTP_CHUNKED, 0, 3, false, 47, false },
	{ H200 CHUNKED "5\r\nhello\r\n0\r\nX: 1\r\n", 0, 0, 200, NETHTTP_CHUNKED, 0, 5, false, 47, false },
	{ H200 CHUNKED "g\r\n", -EINVAL, 0, 0, 0, 0, 0, false, 0, false },
	{ H200 CHUNKED "\r\n", -EINVAL, 0, 0, 0, 0, 0, false, 0, false },
	{ H200 CHUNKED ";x\r\n", -EINVAL, 0, 0, 0, 0, 0, false, 0, false },
	{ H200 CHUNKED "-5\r\n", -EINVAL, 0, 0, 0, 0, 0, false, 0, false },
	{ H200 CHUNKED "5 \r\nhello\r\n", -EINVAL, 0, 0, 0, 0, 0, false, 0, false },
	{ H200 CHUNKED "5\r\nhelloX\r\n", -EINVAL, 0, 0, 0, 0, 0, false, 0, false },
	{ H200 CHUNKED "5\nhello\r\n", -EINVAL, 0, 0, 0, 0, 0, false, 0, false },
	{ H200 CHUNKED "5;a\x01\r\n", -EINVAL, 0, 0, 0, 0, 0, false, 0, false },
	{ H200 CHUNKED "10000000001\r\n", -EINVAL, 0, 0, 0, 0, 0, false, 0, false },
	{ H200 CHUNKED "FFFFFFFFFFFFFFFFFFFF\r\n", -EINVAL, 0, 0, 0, 0, 0, false, 0, false },
	{ H200 CHUNKED "0\r\nBad Trailer\r\n\r\n", -EINVAL, 0, 0, 0, 0, 0, false, 0, false },
	{ H200 CHUNKED "0\r\n\r\r", -EINVAL, 0, 0, 0, 0, 0, false, 0, false },
	/* framing that could be read two ways: refused */
	{ H200 "Transfer-Encoding: chunked\r\nContent-Length: 5\r\n\r\n", -EINVAL, 0, 0, 0, 0, 0, false, 0, false },
	{ H200 "Content-Length: 5\r\nTransfer-Encoding:\r\n\r\n", -EINVAL, 0, 0, 0, 0, 0, false, 0, false },
	{ "HTTP/1.0 200 OK\r\n" CHUNKED "0\r\n\r\n", -EINVAL, 0, 0, 0, 0, 0, false, 0, false },
};

/* Feeds in[0, len) in pieces of the given sizes (the last repeated): what
 * the parser returned last, and in *total the bytes it took. */
static int resp_feed_pieces(struct nethttp_resp *p, const char *in, size_t len, bool to_head, const size_t *pieces,
			    size_t npieces, size_t *total)
{
	size_t off = 0, k = 0;
	int r = 0;

	nethttp_resp_init(p, to_head);
	*total = 0;
	while (off < len) {
		size_t n = pieces[k < npieces ? k : npieces - 1], used = 0;

		k++;
		if (n > len - off)
			n = len - off;
		r = nethttp_resp_feed(p, in + off, n, &used);
		if (r < 0)
			return r;
		*total += used;
		if (r == 1)
			return r;
		off += n;
	}
	return r;
}

static void resp_check(const struct respcase *c, const struct nethttp_resp *p, int r, size_t total, const char *how)
{
	size_t len = strlen(c->in);

	if (r != c->want)
		fail_msg("'%s' %s: %d, expected %d", c->in, how, r, c->want);
	if (r == 1 && total != (c->used ? c->used : len))
		fail_msg("'%s' %s: took %zu bytes", c->in, how, total);
	if (r >= 0 && c->headlen && (!p->head_done || p->status != c->status || p->framing != c->framing ||
				     p->length != c->length || p->body != c->body ||
				     p->close_after != c->close_after || p->headlen != c->headlen || p->done != (r == 1)))
		fail_msg("'%s' %s: head %d status %d framing %d length %llu body %llu close %d headlen %zu", c->in, how,
			 p->head_done, p->status, p->framing, (unsigned long long)p->length,
			 (unsigned long long)p->body, p->close_after, p->headlen);
	if (r >= 0 && !c->headlen && p->head_done)
		fail_msg("'%s' %s: a head read from an incomplete one", c->in, how);
}

static void http_response_table(void **state)
{
	static const size_t whole[] = { SIZE_MAX }, one[] = { 1 }, two[] = { 2 }, three[] = { 3 }, seven[] = { 7 };
	static const struct {
		const size_t *p;
		const char *how;
	} ways[] = { { whole, "whole" }, { one, "byte by byte" }, { two, "by 2" }, { three, "by 3" }, { seven, "by 7" } };

	(void)state;
	for (size_t i = 0; i < sizeof(respcases) / sizeof(respcases[0]); i++) {
		const struct respcase *c = &respcases[i];
		size_t len = strlen(c->in), total;
		struct nethttp_resp p;
		int r;

		for (size_t w = 0; w < sizeof(ways) / sizeof(ways[0]); w++) {
			r = resp_feed_pieces(&p, c->in, len, c->to_head, ways[w].p, 1, &total);
			resp_check(c, &p, r, total, ways[w].how);
		}
		for (size_t cut = 1; cut < len; cut++) {
			size_t two_parts[] = { cut, SIZE_MAX };
			char how[32];

			snprintf(how, sizeof(how), "cut at %zu", cut);
			r = resp_feed_pieces(&p, c->in, len, c->to_head, two_parts, 2, &total);
			resp_check(c, &p, r, total, how);
		}
	}
}

/* The parser's other ends: a NUL, the close, bytes after the end, bounds. */
static void http_response_edges(void **state)
{
	static const char nul[] = H200 "X: a\0b\r\nContent-Length: 0\r\n\r\n";
	static const char to_close[] = H200 "Server: x\r\n\r\nabcdef";
	static const char cut[] = H200 CHUNKED "5\r\nhel";
	static const char len5[] = H200 "Content-Length: 5\r\n\r\nhello";
	struct nethttp_resp p;
	size_t used = 0;
	char *big;

	(void)state;
	nethttp_resp_init(&p, false);
	assert_int_equal(nethttp_resp_feed(&p, nul, sizeof(nul) - 1, &used), -EINVAL);
	/* after an error, nothing more is taken */
	assert_int_equal(nethttp_resp_feed(&p, len5, sizeof(len5) - 1, &used), -EINVAL);

	/* the close ends a body without a length, and only such a body */
	nethttp_resp_init(&p, false);
	assert_int_equal(nethttp_resp_feed(&p, to_close, sizeof(to_close) - 1, &used), 0);
	assert_int_equal(used, sizeof(to_close) - 1);
	assert_int_equal(nethttp_resp_eof(&p), 0);
	assert_true(p.done && p.framing == NETHTTP_TO_CLOSE && p.close_after);
	assert_int_equal(p.body, 6);
	nethttp_resp_init(&p, false);
	assert_int_equal(nethttp_resp_feed(&p, cut, sizeof(cut) - 1, &used), 0);
	assert_int_equal(nethttp_resp_eof(&p), -EPIPE);
	nethttp_resp_init(&p, false);
	assert_int_equal(nethttp_resp_eof(&p), -EPIPE); /* closed before a byte */

	/* a complete response takes no more bytes: they are the next one's */
	nethttp_resp_init(&p, false);
	assert_int_equal(nethttp_resp_feed(&p, len5, sizeof(len5) - 1, &used), 1);
	assert_int_equal(nethttp_resp_eof(&p), 0);
	assert_int_equal(nethttp_resp_feed(&p, "x", 1, &used), -EINVAL);

	/* a value is read eight bytes at a time: a byte that is not text is
	 * found at every place of a word, and a tab or obs-text is not one */
	for (size_t at = 0; at < 40; at++) {
		static const unsigned char bad[] = { 0x00, 0x01, '\n', 0x1f, 0x7f }, good[] = { '\t', 0x80, 0xff, ' ' };
		char in[128];
		int n;

		for (size_t k = 0; k < sizeof(bad) + sizeof(good); k++) {
			bool ok = k >= sizeof(bad);

			n = snprintf(in, sizeof(in), H200 "X: %040d\r\nContent-Length: 0\r\n\r\n", 0);
			in[20 + at] = (char)(ok ? good[k - sizeof(bad)] : bad[k]);
			nethttp_resp_init(&p, false);
			if (nethttp_resp_feed(&p, in, (size_t)n, &used) != (ok ? 1 : -EINVAL))
				fail_msg("byte 0x%02x at %zu of a value: %s expected", (unsigned char)in[20 + at], at,
					 ok ? "taken" : "refused");
		}
	}

	/* a head past NETHTTP_MAX_HEAD, and a chunk line past its bound */
	big = malloc(NETHTTP_MAX_HEAD + 100);
	assert_non_null(big);
	memcpy(big, H200 "X: ", 20);
	memset(big + 20, 'a', NETHTTP_MAX_HEAD + 80);
	nethttp_resp_init(&p, false);
	assert_int_equal(nethttp_resp_feed(&p, big, NETHTTP_MAX_HEAD + 100, &used), -EMSGSIZE);
	nethttp_resp_init(&p, false);
	assert_int_equal(nethttp_resp_feed(&p, big, NETHTTP_MAX_HEAD - 100, &used), 0);
	assert_int_equal(nethttp_resp_feed(&p, big + 20, 200, &used), -EMSGSIZE); /* over two reads */
	nethttp_resp_init(&p, false);
	assert_int_equal(nethttp_resp_feed(&p, H200 CHUNKED "5;", 49, &used), 0);
	memset(big, 'e', NETHTTP_MAX_CHUNK_LINE);
	assert_int_equal(nethttp_resp_feed(&p, big, NETHTTP_MAX_CHUNK_LINE, &used), -EMSGSIZE);
	free(big);
}

struct schedcase {
	uint64_t start, i;
	double rate;
	uint64_t intended;
	uint64_t sent, done, latency;
};

static const struct schedcase scases[] = {
	/* 1000/s: one every ms */
	{ 5000, 0, 1000, 5000, 5000, 105000, 100000 },
	{ 5000, 3, 1000, 3005000, 3005000, 3105000, 100000 },
	/* a server stalled 100 ms: the request due at 1 ms went out at 100 ms and was
	 * answered at 100.1 ms: its latency is 99.1 ms from the schedule, not 0.1 ms */
	{ 0, 1, 1000, 1000000, 100000000, 100100000, 99100000 },
	/* 3 per second: rounding to the nearest ns */
	{ 0, 1, 3, 333333333, 333333333, 333333340, 7 },
	{ 0, 2, 3, 666666667, 666666667, 666666667, 0 },
};

static void sched_table(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(scases) / sizeof(scases[0]); i++) {
		const struct schedcase *c = &scases[i];
		uint64_t due = sched_intended_ns(c->start, c->i, c->rate);

		assert_int_equal(due, c->intended);
		assert_int_equal(sched_latency_ns(due, c->sent, c->done), c->latency);
	}
	/* wrk mode: no schedule, the intended time is the send time */
	assert_int_equal(sched_latency_ns(200, 200, 150), 0); /* never negative */
}

static void dynamic_page(void **state)
{
	(void)state;
	/* the work is deterministic and depends on the seed and every round */
	assert_int_equal(netsrv_dynamic_work(1, 20000), netsrv_dynamic_work(1, 20000));
	assert_true(netsrv_dynamic_work(1, 20000) != netsrv_dynamic_work(2, 20000));
	assert_true(netsrv_dynamic_work(1, 20000) != netsrv_dynamic_work(1, 19999));
}

static struct sockaddr_storage addr_of(const char *text)
{
	struct sockaddr_storage ss;

	memset(&ss, 0, sizeof(ss));
	if (strchr(text, ':')) {
		ss.ss_family = AF_INET6;
		assert_int_equal(inet_pton(AF_INET6, text, &((struct sockaddr_in6 *)&ss)->sin6_addr), 1);
	} else {
		ss.ss_family = AF_INET;
		assert_int_equal(inet_pton(AF_INET, text, &((struct sockaddr_in *)&ss)->sin_addr), 1);
	}
	return ss;
}

#define MS 1000000ull
#define SEC 1000000000ull

/* serve's wrong tokens per address: each row a wrong token (fail) or the
 * right one (ok) from an address at a time, or a question (wait) of when
 * that address's next greeting may be checked; the answer expected. */
static void authlim_table(void **state)
{
	enum { FAIL, OK, WAIT };
	static const struct {
		int op;
		const char *addr;
		uint64_t at, want; /* FAIL: the count; WAIT: the time (0: now) */
	} rows[] = {
		{ WAIT, "10.0.0.1", 0, 0 },
		{ FAIL, "10.0.0.1", 1 * SEC, 1 },
		{ WAIT, "10.0.0.1", 1 * SEC, 1 * SEC + 100 * MS },  /* 0.1 s after the first */
		{ WAIT, "10.0.0.2", 1 * SEC, 0 },                   /* another address: no wait */
		{ WAIT, "10.0.0.1", 1 * SEC + 100 * MS, 0 },        /* its time has come */
		{ FAIL, "10.0.0.1", 2 * SEC, 2 },
		{ WAIT, "10.0.0.1", 2 * SEC, 2 * SEC + 200 * MS },  /* doubled */
		{ FAIL, "10.0.0.1", 3 * SEC, 3 },
		{ FAIL, "10.0.0.1", 4 * SEC, 4 },
		{ FAIL, "10.0.0.1", 5 * SEC, 5 },
		{ FAIL, "10.0.0.1", 6 * SEC, 6 },
		{ FAIL, "10.0.0.1", 7 * SEC, 7 },
		{ WAIT, "10.0.0.1", 7 * SEC, 12 * SEC },             /* 6.4 s, at most 5 */
		{ OK, "10.0.0.1", 13 * SEC, 0 },                     /* the right token forgets */
		{ WAIT, "10.0.0.1", 13 * SEC, 0 },
		{ FAIL, "10.0.0.1", 14 * SEC, 1 },
		/* an IPv6 address counts by its /64 */
		{ FAIL, "2001:db8::1", 20 * SEC, 1 },
		{ FAIL, "2001:db8::ffff:2", 20 * SEC, 2 },
		{ WAIT, "2001:db8:0:1::1", 20 * SEC, 0 },
		/* 10 minutes without a failure: a new count */
		{ FAIL, "10.0.0.1", 14 * SEC + 600 * SEC, 1 },
		/* an IPv4 client of a dual-stack socket is its IPv4 address, not ::/64 */
		{ WAIT, "::ffff:10.0.0.1", 14 * SEC + 600 * SEC, 14 * SEC + 600 * SEC + 100 * MS },
		{ WAIT, "::ffff:10.0.0.2", 14 * SEC + 600 * SEC, 0 },
	};
	struct authlim *t = calloc(1, sizeof(*t));

	(void)state;
	assert_non_null(t);
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct sockaddr_storage a = addr_of(rows[i].addr);
		uint64_t next = 0, got = 0;

		switch (rows[i].op) {
		case FAIL:
			got = authlim_fail(t, &a, rows[i].at, &next);
			if (next != rows[i].at + authlim_delay_ns((unsigned)got))
				fail_msg("row %zu: next %llu", i, (unsigned long long)next);
			break;
		case OK:
			authlim_ok(t, &a, rows[i].at);
			break;
		case WAIT:
			got = authlim_wait(t, &a, rows[i].at);
			break;
		}
		if (got != rows[i].want)
			fail_msg("row %zu (%s at %llu ms): %llu, expected %llu", i, rows[i].addr,
				 (unsigned long long)(rows[i].at / MS), (unsigned long long)got,
				 (unsigned long long)rows[i].want);
	}
	free(t);
}

/* The table is bounded: more addresses than slots take the slots of those
 * that failed longest ago, and the newest are still counted. */
static void authlim_full(void **state)
{
	struct authlim *t = calloc(1, sizeof(*t));
	struct sockaddr_storage a;

	(void)state;
	assert_non_null(t);
	for (unsigned i = 0; i < AUTHLIM_SLOTS + 10; i++) {
		char text[32];

		snprintf(text, sizeof(text), "10.%u.%u.1", i / 256, i % 256);
		a = addr_of(text);
		assert_int_equal(authlim_fail(t, &a, (uint64_t)(i + 1) * MS, NULL), 1);
	}
	a = addr_of("10.0.0.1"); /* the first, its slot taken */
	assert_int_equal(authlim_wait(t, &a, (AUTHLIM_SLOTS + 10) * MS), 0);
	a = addr_of("10.4.9.1"); /* the last */
	assert_int_equal(authlim_fail(t, &a, (AUTHLIM_SLOTS + 11) * MS, NULL), 2);
	free(t);
}

/* /proc/interrupts as a guest with an e1000 (a legacy line) and a
 * virtio-net (MSI-X vectors) shows it: the counts of the lines asked,
 * summed over the CPU columns; the CPU's own lines (NMI, LOC) are never a
 * NIC's; a text that is not the file is refused, not read as zero. */
static void irq_table(void **state)
{
	static const char two[] = "           CPU0       CPU1       \n"
				   "  0:         40          0   IO-APIC   2-edge      timer\n"
				   " 11:       1000        234   IO-APIC  11-fasteoi   eth0\n"
				   " 24:          5          7   PCI-MSI 49152-edge      virtio0-config\n"
				   " 25:        300        200   PCI-MSI 49153-edge      virtio0-input.0\n"
				   " 26:         11          0   PCI-MSI 49154-edge      virtio0-output.0\n"
				   "NMI:          0          0   Non-maskable interrupts\n"
				   "LOC:      12345      23456   Local timer interrupts\n"
				   "ERR:          0\n";
	static const struct {
		const char *text;
		unsigned irqs[4];
		size_t n;
		int found;      /* or a negative errno */
		uint64_t sum;
	} cases[] = {
		{ two, { 11 }, 1, 1, 1234 },                   /* e1000's line, both CPUs */
		{ two, { 24, 25, 26 }, 3, 3, 523 },            /* virtio-net's vectors */
		{ two, { 25, 99 }, 2, 1, 500 },                /* a vector gone: the others */
		{ two, { 99 }, 1, 0, 0 },
		{ "  CPU0\n 10:  7  x\n", { 10 }, 1, 1, 7 },  /* one CPU, no trailing newline after the name */
		{ "  CPU0\n 10:  18446744073709551615  x\n 11: 1 y\n", { 10, 11 }, 2, -EINVAL, 0 }, /* past 2^64 */
		{ "CPU0 CPU1\n 11: 5\n", { 11 }, 1, -EINVAL, 0 }, /* fewer counts than CPUs */
		{ "CPU0 CPU1\n 12: 5\n", { 11 }, 1, 0, 0 },        /* ...on a line not asked: ignored */
		{ "  0: 1 2\n", { 0 }, 1, -EINVAL, 0 },             /* no header */
		{ "CPU0", { 0 }, 1, -EINVAL, 0 },                    /* a header and nothing */
		{ "", { 0 }, 1, -EINVAL, 0 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint64_t sum = 77;
		int r = net_irq_sum(cases[i].text, cases[i].irqs, cases[i].n, &sum);

		if (r != cases[i].found || (r >= 0 && sum != cases[i].sum))
			fail_msg("case %zu: %d, sum %llu; want %d, %llu", i, r, (unsigned long long)sum, cases[i].found,
				 (unsigned long long)cases[i].sum);
	}
}

/* The load engine with a toy protocol: a request is "REQ ", a body of
 * `body` bytes shared by every request, "\n" (as memcached's set: three
 * pieces); the toy server answers "OK\n" to each whole request. */
struct toy_thread {
	const char *body;
	size_t blen;
	uint64_t counted;
};

struct toy_conn {
	size_t got;
};

static int toy_request(void *pt, void *pc, struct iovec *iov)
{
	const struct toy_thread *t = pt;

	((struct toy_conn *)pc)->got = 0;
	iov[0] = (struct iovec){ .iov_base = (char *)"REQ ", .iov_len = 4 };
	iov[1] = (struct iovec){ .iov_base = (char *)t->body, .iov_len = t->blen };
	iov[2] = (struct iovec){ .iov_base = (char *)"\n", .iov_len = 1 };
	return 3;
}

static int toy_feed(void *pc, const char *buf, size_t len, size_t *used)
{
	struct toy_conn *c = pc;
	size_t take = len < 3 - c->got ? len : 3 - c->got;

	if (memcmp(buf, "OK\n" + c->got, take))
		return -EPROTO;
	c->got += take;
	*used = take;
	return c->got == 3 ? NET_LOAD_DONE : 0;
}

static void toy_counted(void *pt, void *pc, uint64_t latency_ns)
{
	(void)pc;
	(void)latency_ns;
	((struct toy_thread *)pt)->counted++;
}

static const struct net_load_proto toy_proto = {
	.conn_size = sizeof(struct toy_conn),
	.request = toy_request,
	.feed = toy_feed,
	.counted = toy_counted,
};

struct toy_server {
	int lfd;
	size_t reqlen;
	uint64_t answers, bytes;
	bool torn; /* a request's bytes other than the client's */
};

/* One connection: each whole request answered, until the client closes. */
static void *toy_serve(void *arg)
{
	struct toy_server *s = arg;
	int fd = accept(s->lfd, NULL, NULL);
	size_t have = 0;
	char *buf = malloc(65536);

	while (fd >= 0 && buf) {
		ssize_t n = recv(fd, buf, 65536, 0);

		if (n <= 0)
			break;
		if (have == 0 && memcmp(buf, "REQ ", n < 4 ? (size_t)n : 4))
			s->torn = true;
		s->bytes += (uint64_t)n;
		have += (size_t)n;
		if (have > s->reqlen)
			s->torn = true; /* one request in flight at a time */
		if (have == s->reqlen) {
			if (buf[n - 1] != '\n' || send(fd, "OK\n", 3, MSG_NOSIGNAL) != 3)
				s->torn = true;
			s->answers++;
			have = 0;
		}
	}
	free(buf);
	if (fd >= 0)
		close(fd);
	return NULL;
}

struct loadcase {
	const char *what;
	size_t body;
	double rate;
};

static const struct loadcase loadcases[] = {
	{ "a small request", 10, 0 },
	/* more than a loopback socket's buffers take at once: partial sends, the
	 * rest on EPOLLOUT, in the window and in the drain after it */
	{ "a request larger than the socket takes", 16u << 20, 0 },
	{ "at a constant rate", 10, 200 },
	{ "a large request at a constant rate", 16u << 20, 50 },
};

static void load_engine_table(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(loadcases) / sizeof(loadcases[0]); i++) {
		const struct loadcase *c = &loadcases[i];
		struct sockaddr_storage addr = { 0 };
		struct sockaddr_in *in = (struct sockaddr_in *)&addr;
		socklen_t alen = sizeof(*in);
		struct toy_server srv = { .reqlen = 4 + c->body + 1 };
		struct toy_thread tt = { .body = calloc(1, c->body), .blen = c->body };
		struct vmb_ctx ctx = { 0 };
		struct net_load l;
		pthread_t th;
		int r;

		assert_non_null(tt.body);
		in->sin_family = AF_INET;
		in->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		srv.lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
		assert_true(srv.lfd >= 0);
		assert_int_equal(bind(srv.lfd, (struct sockaddr *)in, alen), 0);
		assert_int_equal(getsockname(srv.lfd, (struct sockaddr *)in, &alen), 0);
		assert_int_equal(listen(srv.lfd, 4), 0);
		assert_int_equal(pthread_create(&th, NULL, toy_serve, &srv), 0);
		l = (struct net_load){ .proto = &toy_proto, .addr = &addr, .alen = alen, .name = "toy", .conns = 1,
				       .threads = 1, .rate = c->rate, .window_s = 0.2, .pts = &tt, .pt_size = sizeof(tt) };
		r = net_load_run(&ctx, &l);
		assert_int_equal(pthread_join(th, NULL), 0);
		close(srv.lfd);
		if (r < 0)
			fail_msg("%s: %s", c->what, ctx.reason);
		/* every answer the server sent was read, every request it read was whole */
		if (l.done < 1 || l.sockerr || l.timeouts || srv.torn || l.answered != srv.answers ||
		    srv.bytes != srv.answers * srv.reqlen || tt.counted != l.done || l.done > l.answered)
			fail_msg("%s: done %llu answered %llu (server %llu, %llu bytes of %zu each%s), socket errors %llu, "
				 "timeouts %llu, counted %llu", c->what, (unsigned long long)l.done,
				 (unsigned long long)l.answered, (unsigned long long)srv.answers,
				 (unsigned long long)srv.bytes, srv.reqlen, srv.torn ? ", torn" : "",
				 (unsigned long long)l.sockerr, (unsigned long long)l.timeouts,
				 (unsigned long long)tt.counted);
		net_load_release(&l);
		free((char *)tt.body);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(parse_table), cmocka_unit_test(authlim_table), cmocka_unit_test(authlim_full),
		cmocka_unit_test(parse_values), cmocka_unit_test(udp_table),
		cmocka_unit_test(sched_table), cmocka_unit_test(dynamic_page), cmocka_unit_test(nul_in_line),
		cmocka_unit_test(udp_forged_seq), cmocka_unit_test(verify_table), cmocka_unit_test(http_request_table),
		cmocka_unit_test(http_response_table), cmocka_unit_test(http_response_edges),
		cmocka_unit_test(irq_table),
		cmocka_unit_test(load_engine_table),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
