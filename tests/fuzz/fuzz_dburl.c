/* Fuzz target for --app.db: the URL check (and the MariaDB URL parser
 * behind it) and the password masking that keeps secrets out of results.
 * Checks what app_oltp_url_shown promises: a NUL-terminated string that
 * contains no password it was given after "USER:" or "password=". */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/suites/app.h"
#include "../../src/suites/app_oltp.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *url = malloc(size + 1), err[256], out[1024], small[16];
	int r;

	if (!url)
		return 0;
	memcpy(url, data, size);
	url[size] = '\0';
	r = oltp_url_check(url, err, sizeof(err));
	if (r != 0 && r != -EINVAL && r != -EOPNOTSUPP)
		abort();
	if (r != 0 && (!memchr(err, '\0', sizeof(err)) || !err[0]))
		abort();
	app_oltp_url_shown(url, out, sizeof(out));
	if (!memchr(out, '\0', sizeof(out)))
		abort();
	app_oltp_url_shown(url, small, sizeof(small)); /* truncation is safe */
	if (!memchr(small, '\0', sizeof(small)))
		abort();
	/* libpq's words quoting the URL, scrubbed: still a string, cut at its size */
	snprintf(out, sizeof(out), "in URI: \"%s\" and \"%s\"", url, url + size / 2);
	app_url_scrub(url, out, sizeof(out));
	if (!memchr(out, '\0', sizeof(out)))
		abort();
	free(url);
	return 0;
}
