/* Fuzz target: mem_smaps_parse, the memory suite's reader of
 * /proc/self/smaps (a kernel's text, but a parser all the same): it must
 * never read past the text, and what it finds must be consistent, huge
 * pages never more than the range. The range queried comes from the input. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/suites/mem.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct {
		uintptr_t start;
		size_t len;
	} ranges[] = { { 0x7f1000000000, 64u << 20 }, { 0x7f1003000000, 32u << 20 }, { 0x1000, 4096 },
		       { 0, SIZE_MAX / 2 } };
	char *text = malloc(size + 1);

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	for (size_t i = 0; i < sizeof(ranges) / sizeof(ranges[0]); i++) {
		struct mem_smaps m;

		if (mem_smaps_parse(text, ranges[i].start, ranges[i].len, &m) == 0 &&
		    (!m.found || m.huge > m.size || m.size > ranges[i].len))
			abort();
	}
	free(text);
	return 0;
}
