/* Fuzz target: net.http's HTTP response parser (src/net/http.c). A head it
 * accepts ends within the input, has a three-digit status of 100 to 599 and
 * a body length within NETHTTP_MAX_BODY, and the canonical head written
 * from what it read parses back to the same status, length and keep-alive. */
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/net/http.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct nethttp_resp p, again;
	char canon[200];
	int n, r = nethttp_parse_response((const char *)data, size, &p);

	if (r != 0) {
		if (r != -EAGAIN && r != -EINVAL && r != -ENOTSUP)
			abort();
		return 0;
	}
	if (p.headlen < 4 || p.headlen > size || memcmp(data + p.headlen - 4, "\r\n\r\n", 4))
		abort();
	if (p.status < 100 || p.status > 599 || p.body > NETHTTP_MAX_BODY)
		abort(); /* "Content-Length: -1" was 2^64-1, a status "2:0" was 300 */
	n = snprintf(canon, sizeof(canon), "HTTP/1.1 %d X\r\nContent-Length: %" PRIu64 "\r\n%s\r\n", p.status, p.body,
		     p.close_after ? "Connection: close\r\n" : "");
	if (n <= 0 || (size_t)n >= sizeof(canon))
		abort();
	if (nethttp_parse_response(canon, (size_t)n, &again) != 0 || again.status != p.status || again.body != p.body ||
	    again.close_after != p.close_after || again.headlen != (size_t)n)
		abort();
	return 0;
}
