/* Fuzz target: a result document (as a guest or a colleague sends one)
 * through compare in every format, the HTML report, the text table and
 * the series' text and CSV.
 * Whatever the loader accepts, the reports must neither crash nor leak. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/report/compare.h"
#include "../../src/report/html.h"
#include "../../src/report/series.h"
#include "../../src/report/text.h"
#include "../../src/store/doc.h"
#include "../../src/suites/suites.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const enum cmp_format fmts[] = { CMP_TEXT, CMP_MARKDOWN, CMP_CSV, CMP_JSON };

/* The document and a copy of it one round later, on both sides: compare's
 * paired verdicts (by run group, by round, by a label) and --stat. */
static void paired(FILE *null, const json_t *doc)
{
	static const char *const by[] = { NULL, "round", "hv", "none" };
	json_t *later = json_deep_copy(doc), *g = json_object_get(later, "run_group");

	if (!later)
		return;
	if (json_is_object(g))
		(void)json_object_set_new(g, "round", json_integer(json_integer_value(json_object_get(g, "round")) + 1));
	for (size_t k = 0; k < sizeof(by) / sizeof(by[0]); k++) {
		struct cmp_table t;
		json_t *x = json_pack("[O, O]", doc, later), *y = json_pack("[O, O]", later, doc);

		cmp_table_init(&t, suites_find);
		t.pair_by = by[k];
		t.stat = (enum cmp_stat)(k % 3);
		if (!x || !y) {
			json_decref(x);
			json_decref(y);
		} else if (cmp_add_operand(&t, "x", x) < 0) {
			json_decref(y);
		} else if (cmp_add_operand(&t, "y", y) == 0 && cmp_build(&t) == 0) {
			for (size_t i = 0; i < sizeof(fmts) / sizeof(fmts[0]); i++)
				(void)cmp_print(null, &t, &(struct cmp_filter){ .all = true }, fmts[i], false);
			(void)html_report(null, &t, "fuzz");
		}
		cmp_table_release(&t);
	}
	json_decref(later);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1), err[512];
	struct cmp_table t;
	json_t *doc = NULL, *a, *b, *failures, *rec;
	FILE *null;

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	if (doc_load_string(text, "fuzz", &doc, err, sizeof(err)) < 0) {
		free(text);
		return 0;
	}
	free(text);
	null = fopen("/dev/null", "w");
	if (!null) {
		json_decref(doc);
		return 0;
	}
	cmp_table_init(&t, suites_find);
	/* a lab failure's record, as lab report lists it: in the text and the HTML */
	failures = json_array();
	if (failures && (rec = doc_lab_failure(doc)))
		(void)json_array_append_new(failures, rec);
	t.failures = failures;
	/* the document against itself, and pooled twice: every row comparable */
	a = json_pack("[O]", doc);
	b = json_pack("[O, O]", doc, doc);
	if (!a || !b) {
		json_decref(a);
		json_decref(b);
	} else if (cmp_add_operand(&t, "a", a) < 0) { /* takes a, also when it fails */
		json_decref(b);
	} else if (cmp_add_operand(&t, "b<&\"'", b) == 0 && cmp_build(&t) == 0) {
		for (size_t i = 0; i < sizeof(fmts) / sizeof(fmts[0]); i++) {
			(void)cmp_print(null, &t, &(struct cmp_filter){ .all = true }, fmts[i], true);
			(void)cmp_print(null, &t, &(struct cmp_filter){ .all = false }, fmts[i], false);
		}
		(void)cmp_regressions(null, &t, &(struct cmp_filter){ .all = true }, 1);
		(void)html_report(null, &t, "fuzz");
	}
	cmp_table_release(&t);
	paired(null, doc);
	text_print_result_all(null, doc, true);
	text_print_result_all(null, doc, false);
	series_print_text(null, doc);
	(void)series_print_csv(null, doc);
	json_decref(failures);
	json_decref(doc);
	fclose(null);
	return 0;
}
