/* Fuzz target: calib_validate, the reader of stored calibrations; what it
 * accepts must be usable by compare's lookup without surprises. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/report/compare.h"
#include "../../src/store/calib.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	json_t *doc = json_loadb((const char *)data, size, JSON_REJECT_DUPLICATES, NULL);
	struct cmp_row r = { .suite = "cpu", .test = "prime", .params = "{}", .metric = "events_per_s" };
	char err[256];
	unsigned runs = 0;
	double cv;

	if (!doc)
		return 0;
	if (calib_validate(doc, err, sizeof(err)) == 0) {
		cv = cmp_calibration_cv(doc, NULL, &r, &runs);
		if (!isfinite(cv) || cv < 0 || (cv > 0 && runs < 2))
			abort();
	}
	json_decref(doc);
	return 0;
}
