/* Fuzz target: serve's HTTP request parser (src/net/http.c). A request it
 * accepts ends within the input, names a page it serves with a size in
 * bounds, and parses the same from its own bytes alone (nothing after the
 * blank line changed it); a request cut short is never taken as whole.
 * And the lab's package mirror's (src/lab/mirror.c): what it takes names a
 * file of its plan, and nothing else. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/lab/mirror.h"
#include "../../src/net/http.h"
#include "../../src/net/serve.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *in = (const char *)data;
	struct nethttp_req q, again;
	int r = nethttp_parse_request(in, size, NETSRV_MAX_BODY, &q);
	static struct lab_mirror_file files[] = { { "Packages", "/m/Packages" }, { "a_1%3a2_all.deb", "/d/a.deb" } };
	const struct lab_mirror_plan plan = { files, 2 };
	const struct lab_mirror_file *f = NULL;
	bool head;
	int m = lab_mirror_request(&plan, in, size, &f, &head);

	if ((m == 0 && f != &files[0] && f != &files[1]) || (m != 0 && m != -ENOENT && m != -EPROTO))
		abort();

	if (r != 0) {
		if (r != -EAGAIN && r != -EINVAL)
			abort();
		return 0;
	}
	if (q.headlen < 4 || q.headlen > size || memcmp(in + q.headlen - 4, "\r\n\r\n", 4))
		abort(); /* the request ends at its blank line, inside the input */
	if ((unsigned)q.page > NETHTTP_BAD_METHOD || (q.page == NETHTTP_STATIC && q.size > NETSRV_MAX_BODY) ||
	    (q.page != NETHTTP_STATIC && q.size != 0))
		abort();
	if (nethttp_parse_request(in, q.headlen, NETSRV_MAX_BODY, &again) != 0 || memcmp(&q, &again, sizeof(q)))
		abort(); /* the bytes after it changed what it is */
	if (nethttp_parse_request(in, q.headlen - 1, NETSRV_MAX_BODY, &again) != -EAGAIN &&
	    nethttp_parse_request(in, q.headlen - 1, NETSRV_MAX_BODY, &again) != -EINVAL)
		abort(); /* one byte short is not a request yet */
	return 0;
}
