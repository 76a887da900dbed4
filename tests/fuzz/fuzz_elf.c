/* Fuzz target: the ELF reader of the image builder (headers, program
 * headers, PT_INTERP, the dynamic section's DT_NEEDED strings), its search
 * for a vmlinux's PVH note, and the bzImage setup header it unpacks the
 * kernel by. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/lab/elf.h"
#include "../../src/lab/kernel.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct elf_info e;
	struct lab_payload p;

	if (elf_parse((const char *)data, size, &e) == 0) {
		/* what it returns is text the image builder puts in paths */
		if (strlen(e.interp) >= sizeof(e.interp))
			abort();
		for (size_t i = 0; i < e.needed.n; i++)
			if (!e.needed.v[i])
				abort();
		elf_release(&e);
	}
	(void)elf_pvh_entry((const char *)data, size);
	/* a payload found lies inside the input, its codec's magic at its start */
	if (lab_bzimage_payload((const char *)data, size, &p) == 0 &&
	    (p.off > size || p.len > size - p.off || !p.len ||
	     (p.codec && (p.len < p.codec->magic_len || memcmp(data + p.off, p.codec->magic, p.codec->magic_len)))))
		abort();
	return 0;
}
