/* The application suite's pure parts: --app.db checked and shown without
 * its password, sysbench's "special" id distribution, and app.build's
 * up-to-date check (which units its incremental build compiles again). */
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
		/* every password: libpq's sslpassword, a second one, a name spelled with %XX */
		{ "postgresql://u@h/db?sslpassword=a&password=secret", "postgresql://u@h/db?sslpassword=***&password=***" },
		{ "postgresql://u@h/db?password=a&password=secret", "postgresql://u@h/db?password=***&password=***" },
		{ "postgresql://u@h/db?%70assword=secret&PASSWORD=x", "postgresql://u@h/db?%70assword=***&PASSWORD=***" },
		/* a malformed one, with a '/' libpq stops at, or an '@' */
		{ "postgresql://u:se/cret@h/db", "postgresql://u:***@h/db" },
		{ "postgresql://u:p@ss@h/db", "postgresql://u:***@h/db" },
		{ "postgresql://u@[::1]:5432/db?user=a@b", "postgresql://u@[::1]:5432/db?user=a@b" },
	};
	/* libpq's words about a URL it cannot read quote the password, or the URL */
	static const struct {
		const char *url, *msg, *said;
	} scrub[] = {
		{ "postgresql://u:sec%zzret@h/db", "invalid percent-encoded token: \"sec%zzret\"",
		  "invalid percent-encoded token: \"***\"" },
		{ "postgresql://u@h/db?password=sec%00ret", "forbidden value %00 in percent-encoded value: \"sec%00ret\"",
		  "forbidden value %00 in percent-encoded value: \"***\"" },
		{ "postgresql://u:secret@[::1/x", "matching \"]\" in IPv6 host address in URI: \"postgresql://u:secret@[::1/x\"",
		  "matching \"]\" in IPv6 host address in URI: \"postgresql://u:***@[::1/x\"" },
		{ "postgresql://u:se/cret@h/db", "invalid integer value \"se\" for connection option \"port\"",
		  "invalid integer value \"***\" for connection option \"port\"" },
		/* a short password is not looked for outside quotes: any word may hold it */
		{ "postgresql://u:a@127.0.0.1:1/db", "connection to server at \"127.0.0.1\", port 1 failed",
		  "connection to server at \"127.0.0.1\", port 1 failed" },
	};

	char url[1400], want[1400], out[128];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *o = malloc(APP_URL_SHOWN_LEN(cases[i].url));

		assert_non_null(o);
		app_oltp_url_shown(cases[i].url, o, APP_URL_SHOWN_LEN(cases[i].url));
		assert_string_equal(o, cases[i].shown);
		free(o);
	}
	/* a URL longer than any fixed buffer is shown whole, its rest after a
	 * short password moved up; in an out too short, cut, but never with
	 * the password */
	snprintf(url, sizeof(url), "postgresql:///db?password=x&host=/tmp/%01200d&user=u", 7);
	snprintf(want, sizeof(want), "postgresql:///db?password=***&host=/tmp/%01200d&user=u", 7);
	{
		char *o = malloc(APP_URL_SHOWN_LEN(url));

		assert_non_null(o);
		app_oltp_url_shown(url, o, APP_URL_SHOWN_LEN(url));
		assert_string_equal(o, want);
		free(o);
	}
	snprintf(url, sizeof(url), "postgresql:///%0100d?password=secretsecret&user=u", 7);
	app_oltp_url_shown(url, out, sizeof(out)); /* cut within the password: "sec" */
	assert_null(strstr(out, "sec"));
	assert_non_null(strstr(out, "password=***"));
	app_oltp_url_shown("mysql://u:a@h/db?password=b", out, sizeof(out));
	assert_string_equal(out, "mysql://u:***@h/db?password=***");
	for (size_t i = 0; i < sizeof(scrub) / sizeof(scrub[0]); i++) {
		char msg[256];

		snprintf(msg, sizeof(msg), "%s", scrub[i].msg);
		app_url_scrub(scrub[i].url, msg, sizeof(msg));
		assert_string_equal(msg, scrub[i].said);
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

/* make's rule: an object older than its source, or missing, is rebuilt;
 * one as new as its source, or newer, is not (to the nanosecond). */
static void stale(void **state)
{
	static const struct {
		struct timespec src, obj;
		bool stale;
	} cases[] = {
		{ { 100, 0 }, { 100, 0 }, false },         /* built in the same tick */
		{ { 100, 0 }, { 101, 0 }, false },         /* built after the edit */
		{ { 101, 0 }, { 100, 999999999 }, true },  /* touched after the build */
		{ { 100, 5 }, { 100, 4 }, true },          /* a nanosecond later */
		{ { 100, 4 }, { 100, 5 }, false },
		{ { 100, 0 }, { -1, 0 }, true },           /* never built */
	};
	const size_t n = sizeof(cases) / sizeof(cases[0]);
	struct timespec src[sizeof(cases) / sizeof(cases[0])], obj[sizeof(cases) / sizeof(cases[0])];
	bool got[sizeof(cases) / sizeof(cases[0])];
	size_t want = 0;

	(void)state;
	for (size_t i = 0; i < n; i++) {
		src[i] = cases[i].src;
		obj[i] = cases[i].obj;
		want += cases[i].stale;
	}
	assert_int_equal(app_build_stale(src, obj, n, got), want);
	for (size_t i = 0; i < n; i++)
		if (got[i] != cases[i].stale)
			fail_msg("case %zu: stale %d, want %d", i, got[i], cases[i].stale);
	/* the incremental build's own case: one unit of four touched */
	for (size_t i = 0; i < 4; i++)
		src[i] = (struct timespec){ 100, 0 }, obj[i] = (struct timespec){ 100, 500 };
	src[0].tv_sec = 101;
	assert_int_equal(app_build_stale(src, obj, 4, got), 1);
	assert_true(got[0] && !got[1] && !got[2] && !got[3]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(urls),
		cmocka_unit_test(shown),
		cmocka_unit_test(special),
		cmocka_unit_test(stale),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
