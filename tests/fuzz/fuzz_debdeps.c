/* Fuzz target: the image builder's reading of `apt-cache depends` output
 * (the library packages an mkfs tool's package depends on, which it then
 * fetches by name), and the boot's reading of the image's manifest for the
 * modules a configuration loads (which go on the kernel command line). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/lab/image.h"
#include "../../src/lab/modules.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1);
	struct strv libs = { 0 };

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	if (lab_deb_lib_depends(text, &libs) == 0)
		for (size_t i = 0; i < libs.n; i++) {
			const char *p = libs.v[i];

			/* a package name: lib..., never the C library, no option or path */
			if (strncmp(p, "lib", 3) || !strcmp(p, "libc6") || strspn(p, "abcdefghijklmnopqrstuvwxyz0123456789.+-") != strlen(p))
				abort();
			for (size_t k = 0; k < i; k++)
				if (!strcmp(libs.v[k], p))
					abort(); /* once each */
		}
	strv_clear(&libs);
	{
		/* the modules: names of the manifest's order, comma-separated,
		 * nothing that ends the command line's word or starts another */
		struct strv want = { 0 };
		char out[256];

		if (strv_push(&want, "e1000") == 0 && strv_push(&want, "ext4") == 0 &&
		    lab_modules_for(text, &want, out, sizeof(out)) == 0) {
			size_t n = strlen(out);

			if (strspn(out, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.,") != n ||
			    strstr(out, ",,") || (n && (out[0] == ',' || out[n - 1] == ',')))
				abort();
		}
		strv_clear(&want);
	}
	free(text);
	return 0;
}
