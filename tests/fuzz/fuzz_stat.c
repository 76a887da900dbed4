/* Fuzz target: noise_parse_stat, the /proc/stat reader of the noise sensors. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/core/noise.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const unsigned cpus[] = { 0, 1, 3 };
	char *text = malloc(size + 1);
	unsigned long long busy, steal;

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	(void)noise_parse_stat(text, NULL, 0, &busy, &steal);
	(void)noise_parse_stat(text, cpus, 3, &busy, &steal);
	free(text);
	return 0;
}
