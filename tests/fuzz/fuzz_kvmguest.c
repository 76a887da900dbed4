/* Fuzz target: QEMU's output log, read for KVM's report of a guest it
 * stopped for good, and the lab's remembered KVM verdict file
 * (src/lab/kvmguest.h): both are text from outside this process. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/lab/kvmguest.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1), words[400];
	struct lab_kvm_verdict v;

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	/* QEMU's words: bounded and printable (escaped) */
	if (lab_kvm_error_words(text, words, sizeof(words))) {
		if (strlen(words) > 320)
			abort();
		for (const char *s = words; *s; s++)
			if ((unsigned char)*s < 0x20 || (unsigned char)*s >= 0x7f)
				abort();
	}
	/* a verdict: a time in range, a printable reason, a boot id of hex and hyphens */
	if (lab_kvm_verdict_parse(text, &v) == 0) {
		if (v.when < 1 || v.when > (int64_t)1 << 40 || strlen(v.reason) >= sizeof(v.reason) ||
		    strspn(v.boot_id, "0123456789abcdef-") != strlen(v.boot_id))
			abort();
		for (const char *s = v.reason; *s; s++)
			if ((unsigned char)*s < 0x20 || (unsigned char)*s >= 0x7f)
				abort();
	}
	free(text);
	return 0;
}
