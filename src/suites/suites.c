/* The suite table. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "suites.h"
#include "../core/str.h"
#include "../core/banned.h"

#define VMB_SUITE_REF(n) &n##_suite,
const struct vmb_suite *const vmb_suites[] = { VMB_SUITES(VMB_SUITE_REF) };
#undef VMB_SUITE_REF
const size_t vmb_nsuites = sizeof(vmb_suites) / sizeof(vmb_suites[0]);

const struct vmb_suite *suites_find(const char *name)
{
	for (size_t i = 0; i < vmb_nsuites; i++)
		if (!strcmp(vmb_suites[i]->name, name))
			return vmb_suites[i];
	return NULL;
}

bool suites_runs_by_default(const struct vmb_suite *s)
{
	return !(s->flags & (VMB_SUITE_LAB_ONLY | VMB_SUITE_ON_REQUEST));
}

int suites_test_index(const struct vmb_suite *s, const char *test)
{
	for (int i = 0; s->tests[i].name; i++)
		if (!strcmp(s->tests[i].name, test))
			return i;
	return -1;
}

/* One item: a suite of the table, or SUITE.TEST of one. */
static int item_check(const char *item, char *why, size_t len)
{
	const char *dot = strchr(item, '.');
	char name[64];
	const struct vmb_suite *s;
	size_t off = 0;

	snprintf(name, sizeof(name), "%.*s", dot ? (int)(dot - item) : 63, item);
	s = suites_find(name);
	if (!s) {
		off = (size_t)snprintf(why, len, "unknown suite '%.63s'; valid suites: ", name);
		for (size_t i = 0; i < vmb_nsuites && off < len; i++)
			str_appendf(why, len, &off, "%s%s", i ? ", " : "", vmb_suites[i]->name);
		return -ENOENT;
	}
	if (dot && suites_test_index(s, dot + 1) < 0) {
		off = (size_t)snprintf(why, len, "unknown test '%.63s' in suite %s; valid tests: ", dot + 1, s->name);
		for (int i = 0; s->tests[i].name && off < len; i++)
			str_appendf(why, len, &off, "%s%s", i ? ", " : "", s->tests[i].name);
		return -ENOENT;
	}
	return 0;
}

int suites_parse_items(char *const *words, size_t n, struct strv *items, char *why, size_t len)
{
	static const char space[] = " \t\n";

	for (size_t w = 0; w < n; w++) {
		const char *p = words[w];

		for (;;) {
			/* one comma-separated part: one item or several words */
			size_t plen = strcspn(p, ","), k = strspn(p, space);
			bool any = false;

			while (k < plen) {
				size_t ilen = strcspn(p + k, ",\t\n ");
				char *item = strndup(p + k, ilen);
				int r;

				if (!item)
					return -ENOMEM;
				r = item_check(item, why, len);
				if (r == 0)
					r = strv_push(items, item);
				free(item);
				if (r < 0)
					return r;
				any = true;
				k += ilen;
				k += strspn(p + k, space);
			}
			if (!any) {
				snprintf(why, len, "'%.80s' has an empty item (a separator at an end, or two in a row); "
					 "name suites or SUITE.TEST, separated by commas or spaces, e.g. cpu,mem or 'cpu mem'",
					 words[w]);
				return -EINVAL;
			}
			if (!p[plen])
				break;
			p += plen + 1;
		}
	}
	return 0;
}
