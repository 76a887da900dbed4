/* Fuzz target: the ELF reader of the image builder (headers, program
 * headers, PT_INTERP, the dynamic section's DT_NEEDED strings). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/lab/elf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct elf_info e;

	if (elf_parse((const char *)data, size, &e) == 0) {
		/* what it returns is text the image builder puts in paths */
		if (strlen(e.interp) >= sizeof(e.interp))
			abort();
		for (size_t i = 0; i < e.needed.n; i++)
			if (!e.needed.v[i])
				abort();
		elf_release(&e);
	}
	return 0;
}
