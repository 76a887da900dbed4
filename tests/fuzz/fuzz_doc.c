/* Fuzz target: doc_load_string, the reader of every stored and loaded
 * result document; what it accepts must validate again and load back. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/store/doc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1), err[1024], *dumped;
	json_t *doc = NULL, *back = NULL;

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	if (doc_load_string(text, "fuzz", &doc, err, sizeof(err)) == 0) {
		if (doc_validate(doc, err, sizeof(err)) < 0)
			abort();
		dumped = json_dumps(doc, JSON_COMPACT | JSON_REAL_PRECISION(17));
		if (!dumped || doc_load_string(dumped, "fuzz", &back, err, sizeof(err)) < 0)
			abort();
		free(dumped);
		json_decref(back);
		json_decref(doc);
	}
	free(text);
	return 0;
}
