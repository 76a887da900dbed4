/* Fuzz target for the suite-item parser that `run ITEM...` and `lab
 * --suites LIST` share (suites_parse_items): the input's lines are the
 * words. Checks what it promises: on success every item is a suite or
 * SUITE.TEST of the table, with no separator in it, at least one per word;
 * on failure -EINVAL or -ENOENT, with a reason. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/core/log.h"
#include "../../src/suites/suites.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1), *words[64], why[512] = "";
	struct strv items = { 0 };
	size_t n = 0;
	int r;

	log_set_level(LOG_QUIET);
	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	for (char *p = text; n < 64;) {
		char *nl = strchr(p, '\n');

		words[n++] = p;
		if (!nl)
			break;
		*nl = '\0';
		p = nl + 1;
	}
	r = suites_parse_items(words, n, &items, why, sizeof(why));
	if (r == 0) {
		if (items.n < n)
			abort();
		for (size_t i = 0; i < items.n; i++) {
			const char *it = items.v[i], *dot = strchr(it, '.');
			char name[64];
			const struct vmb_suite *s;

			if (!*it || strpbrk(it, ", \t\n"))
				abort();
			if ((size_t)(dot ? dot - it : (long)strlen(it)) >= sizeof(name))
				abort();
			memcpy(name, it, dot ? (size_t)(dot - it) : strlen(it) + 1);
			name[dot ? dot - it : (long)strlen(it)] = '\0';
			s = suites_find(name);
			if (!s || (dot && suites_test_index(s, dot + 1) < 0))
				abort();
		}
	} else if ((r != -EINVAL && r != -ENOENT) || !*why) {
		abort();
	}
	strv_clear(&items);
	free(text);
	return 0;
}
