/* Fuzz target: the ACPI PM timer's port from the text of /proc/ioports (the
 * vmexit suite's pio test), read as bytes without a terminating NUL. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/suites/vmexit.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* an exact-size copy: a read past the end is ASan's to see */
	char *text = malloc(size ? size : 1);
	unsigned port = 0;

	if (!text)
		return 0;
	memcpy(text, data, size);
	if (vmexit_pmtimer_port(text, size, &port) == 0 && port > 0xfffc)
		abort(); /* four bytes from port must fit below 0x10000 */
	free(text);
	return 0;
}
