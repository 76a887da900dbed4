/* Fuzz target: the net control protocol (src/net/proto.c) and its line
 * framing (src/net/io.c). The input is a transcript: framed into lines by
 * netio_read_line from a socketpair (as serve reads a client), each line
 * parsed; a line that parses must format to a line that parses to the same
 * message, within the protocol's length, with every number in bounds. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "../../src/net/io.h"
#include "../../src/net/proto.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_line(const char *line, size_t len)
{
	struct netmsg m, again;
	char err[256], buf[NETPROTO_MAX_LINE];
	int n;

	if (netproto_parse(line, len, &m, err, sizeof(err)) < 0) {
		if (!err[0])
			abort(); /* a refusal without a reason */
		return;
	}
	if (m.verb == NETPROTO_TEST && (m.v[NETKEY_MS] < 1 || m.v[NETKEY_MS] > NETPROTO_MAX_MS ||
					(netmsg_has(&m, NETKEY_STREAMS) && m.v[NETKEY_STREAMS] > NETPROTO_MAX_STREAMS) ||
					m.v[NETKEY_KIND] >= NETK_NKINDS))
		abort(); /* a bound the server relies on got through */
	if (m.verb == NETPROTO_PORT && (m.port < 1 || m.port > 65535))
		abort();
	n = netproto_format(&m, buf, sizeof(buf));
	if (n < 0) {
		/* only an ERR's text or many long counters can exceed a line */
		if (m.verb != NETPROTO_RESULT && m.verb != NETPROTO_ERR)
			abort();
		return;
	}
	if ((size_t)n >= NETPROTO_MAX_LINE || buf[n - 1] != '\n' || memchr(buf, '\n', (size_t)n - 1))
		abort();
	if (netproto_parse(buf, (size_t)n, &again, err, sizeof(err)) < 0)
		abort(); /* the formatter wrote a line the parser refuses */
	if (again.verb != m.verb || again.have != m.have || memcmp(again.v, m.v, sizeof(m.v)) ||
	    strcmp(again.token, m.token) || again.port != m.port || again.version != m.version)
		abort(); /* the round trip changed the message */
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct netio_lines lb;
	char line[NETPROTO_MAX_LINE];
	int sv[2];
	size_t off = 0;

	/* each line alone, as the parser sees it */
	while (off < size) {
		const uint8_t *nl = memchr(data + off, '\n', size - off);
		size_t l = nl ? (size_t)(nl - (data + off)) + 1 : size - off;

		check_line((const char *)data + off, l);
		off += l;
	}
	/* framed from a socket, as serve reads a client */
	if (size > 65536 || socketpair(AF_UNIX, SOCK_STREAM, 0, sv) < 0)
		return 0;
	if (size && write(sv[0], data, size) != (ssize_t)size) {
		close(sv[0]);
		close(sv[1]);
		return 0;
	}
	close(sv[0]);
	memset(&lb, 0, sizeof(lb));
	for (;;) {
		int r = netio_read_line(sv[1], &lb, line, sizeof(line), 1000, NULL);

		if (r < 0) {
			if (r != -ECONNRESET && r != -EMSGSIZE)
				abort(); /* the peer is gone: nothing else may be said */
			break;
		}
		/* the line's length, NULs and all, and the terminator after it */
		if ((size_t)r >= NETPROTO_MAX_LINE || line[r] != '\0')
			abort();
		check_line(line, (size_t)r);
	}
	close(sv[1]);
	return 0;
}
