/* Start-up checks of suite descriptors (fio check_engine_ops). */
#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "suite.h"
#include "banned.h"

int vmb_suite_check(const struct vmb_suite *s, const char **why)
{
	size_t n = 0;

	if (s->abi != VMB_SUITE_ABI)
		*why = "interface version does not match VMB_SUITE_ABI";
	else if (!s->name || !*s->name || strchr(s->name, '.'))
		*why = "name missing or contains '.'";
	else if (!s->summary)
		*why = "summary missing";
	else if (!s->tests || !s->tests[0].name)
		*why = "no tests";
	else if (s->flags & ~(unsigned)VMB_SUITE_FLAGS_ALL)
		*why = "unknown suite flags";
	else if ((s->flags & VMB_SUITE_LAB_ONLY) && !s->supported)
		*why = "a lab-only suite needs supported() to say why it does not run here";
	else
		*why = NULL;
	for (; !*why && s->tests[n].name; n++) {
		const struct vmb_test *t = &s->tests[n];

		if (!t->headline || !t->summary)
			*why = "a test lacks its headline metric or summary";
		else if (!t->run && !(s->flags & VMB_SUITE_LAB_ONLY))
			*why = "a test lacks its run() function";
		else if (t->run && (s->flags & VMB_SUITE_LAB_ONLY))
			*why = "a test of a lab-only suite has a run(): the lab's table of host-measured suites measures it";
		else if (t->flags & ~(unsigned)VMB_TEST_FLAGS_ALL)
			*why = "unknown test flags";
		else if ((t->flags & VMB_TEST_ON_REQUEST) && !(s->flags & VMB_SUITE_LAB_ONLY))
			*why = "only a test of a lab-only suite runs only when named";
		else if ((t->flags & VMB_TEST_ON_FS) && !(s->scratch && s->scratch->dir_opt))
			*why = "a test on a filesystem needs the suite's scratch to name its directory option";
		for (const char *p = t->params; p && *p && !*why;) {
			const char *comma = strchr(p, ',');
			size_t l = comma ? (size_t)(comma - p) : strlen(p);
			bool found = false;

			for (size_t i = 0; s->opts && s->opts[i].name; i++)
				found |= strlen(s->opts[i].name) == l && !strncmp(s->opts[i].name, p, l);
			if (!found)
				*why = "a test's params name an option the suite does not have";
			p = comma ? comma + 1 : NULL;
		}
		if (t->sweep) {
			bool found = false;

			for (size_t i = 0; s->opts && s->opts[i].name; i++)
				if (!strcmp(s->opts[i].name, t->sweep) && s->opts[i].type == OPT_LIST)
					found = true;
			if (!found)
				*why = "a test's sweep does not name a list option of the suite";
		}
	}
	/* the report draws this metric: one that a test of the suite reports as its headline */
	if (!*why && s->load_metric) {
		bool found = false;
		size_t l = strlen(s->load_metric);

		for (size_t i = 0; i < n; i++)
			for (const char *p = s->tests[i].headline; p && *p; p += strcspn(p, ","), p += *p == ',')
				found |= strcspn(p, ",") == l && !strncmp(p, s->load_metric, l);
		if (!found)
			*why = "the load_metric is no test's headline metric";
	}
	/* the lab names these options of the suite: each must be there */
	for (size_t k = 0; !*why && s->scratch && k < 3; k++) {
		const char *o = k == 0 ? s->scratch->device_opt : k == 1 ? s->scratch->size_opt : s->scratch->dir_opt;
		bool found = !o;

		for (size_t i = 0; o && s->opts && s->opts[i].name; i++)
			found |= !strcmp(s->opts[i].name, o);
		if (!found)
			*why = "the scratch names an option the suite does not have";
	}
	/* the lab names these options of the suite too */
	if (!*why && s->db_opt) {
		bool found = false;

		for (size_t i = 0; s->opts && s->opts[i].name; i++)
			found |= !strcmp(s->opts[i].name, s->db_opt) && s->opts[i].type == OPT_STRING;
		if (!found)
			*why = "the db_opt names a string option the suite does not have";
	}
	if (!*why && s->mirror) {
		bool opt = false, test = false;

		for (size_t i = 0; s->mirror->url_opt && s->opts && s->opts[i].name; i++)
			opt |= !strcmp(s->opts[i].name, s->mirror->url_opt) && s->opts[i].type == OPT_STRING;
		for (size_t i = 0; s->mirror->test && i < n; i++)
			test |= !strcmp(s->tests[i].name, s->mirror->test);
		if (!opt || !test)
			*why = "the mirror names a test or a string option the suite does not have";
	}
	if (!*why && s->host && !(s->flags & VMB_SUITE_LAB_ONLY))
		*why = "only a lab-only suite has the needs of a host-measured one";
	if (!*why && n > 64)
		*why = "more than 64 tests";
	if (!*why && (s->flags & VMB_SUITE_NET_PEER)) {
		bool found = false;

		/* the lab names the peer through it */
		for (size_t i = 0; s->opts && s->opts[i].name; i++)
			found |= !strcmp(s->opts[i].name, "server") && s->opts[i].type == OPT_STRING;
		if (!found)
			*why = "a suite measured against a peer needs a string option 'server'";
	}
	return *why ? -EINVAL : 0;
}
