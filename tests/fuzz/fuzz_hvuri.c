/* Fuzz target for lab run's --connect values (hv.c): the machine a libvirt
 * URI reaches and the label hv_uri made of it. Checks what they promise:
 * 0, -EINVAL or -ENAMETOOLONG, a NUL-terminated host in lower case with no
 * '/', and a label with no ',', '=', '?' or '#', cut safely at its size. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/lab/hv.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *uri = malloc(size + 1), host[256], small[8], label[1024];
	int r;

	if (!uri)
		return 0;
	memcpy(uri, data, size);
	uri[size] = '\0';
	r = lab_hv_uri_host(uri, host, sizeof(host));
	if (r != 0 && r != -EINVAL && r != -ENAMETOOLONG)
		abort();
	if (r == 0) {
		if (!memchr(host, '\0', sizeof(host)) || strchr(host, '/'))
			abort();
		for (const char *c = host; *c; c++)
			if (*c >= 'A' && *c <= 'Z')
				abort();
	}
	(void)lab_hv_uri_host(uri, small, sizeof(small));
	lab_hv_uri_label(uri, label, sizeof(label));
	if (!memchr(label, '\0', sizeof(label)) || strpbrk(label, ",=?#"))
		abort();
	lab_hv_uri_label(uri, small, sizeof(small));
	if (!memchr(small, '\0', sizeof(small)))
		abort();
	free(uri);
	return 0;
}
