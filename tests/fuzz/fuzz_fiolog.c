/* Fuzz target: fio's per-interval logs (src/store/import_fiolog.c), read
 * with a real fio JSON of their run (tests/fixtures/fiolog): the first
 * byte picks the JSON (randrw or randread), the log's kind and its job
 * number in the file name, the rest is the log. A document import_parse
 * returns must validate and load back. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/core/file.h"
#include "../../src/store/doc.h"
#include "../../src/store/import.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const kinds[] = { "iops", "lat", "clat", "slat", "bw", "hist", "iops", "lat" };
	static const char *const jsons[] = { "fio-randrw-log.json", "fio-randread-log.json" };
	static char *json[2];
	struct import_result res = { 0 };
	char *text, err[1024], name[64], path[4096], *dumped;
	json_t *back = NULL;
	unsigned sel;

	if (size < 1)
		return 0;
	sel = data[0];
	if (!json[sel & 1]) {
		snprintf(path, sizeof(path), "%s/fiolog/%s", FIXTURES, jsons[sel & 1]);
		if (read_file(path, &json[sel & 1]) < 0)
			abort(); /* the fixture is part of the tree */
	}
	/* job 1 (the JSON's only one), 2 (none such) or no number (per_job_logs=0) */
	snprintf(name, sizeof(name), (sel >> 4) % 3 == 2 ? "x_%s.log" : "x_%s.%u.log", kinds[(sel >> 1) & 7],
		 (sel >> 4) % 3 + 1);
	text = malloc(size);
	if (!text)
		return 0;
	memcpy(text, data + 1, size - 1);
	text[size - 1] = '\0';
	if (import_parse(json[sel & 1], "fuzz.json",
			 &(struct import_opts){ .fio_logs = &(struct import_file){ .name = name, .text = text },
						.nfio_logs = 1 },
			 &res, err, sizeof(err)) == 0) {
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
