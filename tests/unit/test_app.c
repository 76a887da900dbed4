/* The application suite's pure parts: --app.db checked and shown without
 * its password, and sysbench's "special" id distribution. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "test.h"
#include "../../src/suites/app.h"
#include "../../src/suites/app_oltp.h"

static void urls(void **state)
{
	static const struct {
		const char *url;
		int r;           /* with every back end built in */
	} cases[] = {
		{ "sqlite", 0 }, { "", 0 },
		{ "postgresql://u@h:5432/db", 0 }, { "postgres://u@h/db", 0 },
		{ "mysql://root@localhost/vmb?socket=/tmp/s", 0 }, { "mysql://u:pw@h:3306/db", 0 },
		{ "mariadb://u@h", 0 },
		{ "mysql://u@h:x/db", -EINVAL }, { "mysql://u@h:0/db", -EINVAL }, { "mysql://u@h:65536", -EINVAL },
		{ "mysql://u@h/db?user=x", -EINVAL },
		{ "oracle://x", -EINVAL }, { "sqlite3", -EINVAL }, { "/tmp/x.db", -EINVAL },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char err[256] = "";
		int r = oltp_url_check(cases[i].url, err, sizeof(err)), want = cases[i].r;

#ifndef HAVE_LIBPQ
		if (!strncmp(cases[i].url, "postgres", 8))
			want = -EOPNOTSUPP;
#endif
#ifndef HAVE_MARIADB
		if (!strncmp(cases[i].url, "mysql", 5) || !strncmp(cases[i].url, "mariadb", 7))
			want = -EOPNOTSUPP;
#endif
		if (r != want)
			fail_msg("oltp_url_check(\"%s\") = %d, expected %d (%s)", cases[i].url, r, want, err);
		if (r < 0 && !err[0])
			fail_msg("oltp_url_check(\"%s\") gave no message", cases[i].url);
	}
}

static void shown(void **state)
{
	static const struct {
		const char *url, *shown;
	} cases[] = {
		{ "mysql://root:secret@h:3306/db", "mysql://root:***@h:3306/db" },
		{ "mysql://root@h/db", "mysql://root@h/db" },
		{ "postgresql://u:pw@h/db?sslmode=disable", "postgresql://u:***@h/db?sslmode=disable" },
		{ "postgresql:///db?host=/tmp&password=x&user=u", "postgresql:///db?host=/tmp&password=***&user=u" },
		{ "postgresql://h:5432/db", "postgresql://h:5432/db" }, /* a port is not a password */
		{ "sqlite", "sqlite" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char out[256];

		app_oltp_url_shown(cases[i].url, out, sizeof(out));
		assert_string_equal(out, cases[i].shown);
	}
}

/* sb_rand_special(1, 10000) with sysbench's defaults: 75% of the draws
 * (--rand-spec-res) fall on about 1% of the ids (--rand-spec-pct) around the
 * middle; the rest spread over the whole range. */
static void special(void **state)
{
	static const struct {
		uint32_t a, b;
	} ranges[] = { { 1, 10000 }, { 1, 100000 }, { 1, 1000000 } };
	const unsigned n = 200000;

	(void)state;
	for (size_t i = 0; i < sizeof(ranges) / sizeof(ranges[0]); i++) {
		uint32_t a = ranges[i].a, b = ranges[i].b, mid = a + (b - a) / 2, half = (b - a) / 200 + 1;
		uint64_t s = 42 + i;
		unsigned hot = 0;

		for (unsigned k = 0; k < n; k++) {
			uint32_t v = oltp_rand_special(&s, a, b);

			if (v < a || v > b)
				fail_msg("rand_special(%u, %u) = %u", a, b, v);
			hot += v + half >= mid && v <= mid + half;
		}
		/* 75% by construction, plus the share of the spread part that lands there */
		if (hot < n * 0.75 || hot > n * 0.78)
			fail_msg("rand_special(%u, %u): %.3f of the draws in the middle 1%%", a, b, (double)hot / n);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(urls),
		cmocka_unit_test(shown),
		cmocka_unit_test(special),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
