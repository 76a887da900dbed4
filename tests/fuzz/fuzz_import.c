/* Fuzz target: every importer's detect and parse (the input goes through
 * the importers' table as a file would), and the validation of what they
 * make: a document import_parse returns must validate and load back. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/store/doc.h"
#include "../../src/store/import.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct import_result res = { 0 };
	struct strv labels = { .v = (char *[]){ "fuzz=1", NULL }, .n = 1 };
	struct strv params = { .v = (char *[]){ "access=rnd", NULL }, .n = 1 };
	char *text = malloc(size + 1), err[1024], *dumped;
	json_t *back = NULL;

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	if (import_parse(text, "fuzz", &(struct import_opts){ .labels = &labels, .params = size % 2 ? &params : NULL },
			 &res, err, sizeof(err)) == 0) {
		/* what would be stored must be what every reader can load */
		if (doc_validate(res.doc, err, sizeof(err)) < 0)
			abort();
		dumped = json_dumps(res.doc, JSON_COMPACT | JSON_REAL_PRECISION(17));
		if (!dumped || doc_load_string(dumped, "fuzz", &back, err, sizeof(err)) < 0)
			abort();
		free(dumped);
		json_decref(back);
		json_decref(res.doc);
	}
	free(text);
	return 0;
}
