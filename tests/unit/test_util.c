/* Number, size and list parsing: good and bad inputs; a tool run by vmbench. */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/wait.h>

#include "test.h"
#include "../../src/core/spawn.h"
#include "../../src/core/util.h"

static void sizes(void **state)
{
	static const struct {
		const char *s;
		int r;
		uint64_t v;
	} cases[] = {
		{ "512", 0, 512 }, { "4k", 0, 4096 }, { "4K", 0, 4096 }, { "4KiB", 0, 4096 },
		{ "1m", 0, 1 << 20 }, { "2g", 0, 2ull << 30 }, { "1t", 0, 1ull << 40 },
		{ "", -EINVAL, 0 }, { "k", -EINVAL, 0 }, { "-1", -EINVAL, 0 }, { "4x", -EINVAL, 0 },
		{ "1.5g", -EINVAL, 0 }, { "0x10", -EINVAL, 0 }, { " 4k", -EINVAL, 0 }, { "4k ", -EINVAL, 0 }, { "99999999999999999999", -ERANGE, 0 }, { "16777216t", -ERANGE, 0 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint64_t v = 7;
		int r = parse_size(cases[i].s, 0, UINT64_MAX, &v);

		if (r != cases[i].r)
			fail_msg("parse_size(\"%s\") = %d, expected %d", cases[i].s, r, cases[i].r);
		assert_int_equal(v, r == 0 ? cases[i].v : 7); /* untouched on error */
	}
}

/* Decimal only: "--time 0x10" once meant 16 s (strtod reads hex), and
 * inf, nan, blanks and trailing garbage must not pass as numbers either. */
static void numbers(void **state)
{
	static const struct {
		const char *s;
		int r;
		int64_t v;
	} ints[] = {
		{ "0", 0, 0 }, { "10", 0, 10 }, { "+7", 0, 7 }, { "010", 0, 10 }, /* decimal, not octal */
		{ "-1", -ERANGE, 0 }, { "11", -ERANGE, 0 }, { "99999999999999999999", -ERANGE, 0 },
		{ "abc", -EINVAL, 0 }, { "1e3", -EINVAL, 0 }, { " 1", -EINVAL, 0 }, { "1 ", -EINVAL, 0 },
		{ "", -EINVAL, 0 }, { "0x10", -EINVAL, 0 }, { "0x", -EINVAL, 0 }, { "1.0", -EINVAL, 0 },
		{ "5s", -EINVAL, 0 }, { "-", -EINVAL, 0 }, { "+", -EINVAL, 0 }, { "--1", -EINVAL, 0 },
		{ "\t3", -EINVAL, 0 }, { "3\n", -EINVAL, 0 },
	};
	static const struct {
		const char *s;
		int r;
		double v;
	} dbls[] = {
		{ "0.5", 0, 0.5 }, { "1e1", 0, 10 }, { "2", 0, 2 }, { ".5", 0, 0.5 }, { "5.", 0, 5 },
		{ "+1.5", 0, 1.5 }, { "1E+1", 0, 10 }, { "25e-1", 0, 2.5 }, { "010", 0, 10 },
		{ "-0.1", -ERANGE, 0 }, { "10.5", -ERANGE, 0 }, { "1e999", -ERANGE, 0 },
		{ "1e-999", -ERANGE, 0 },
		{ "0x10", -EINVAL, 0 }, { "0X1p3", -EINVAL, 0 }, { "nan", -EINVAL, 0 }, { "NAN", -EINVAL, 0 },
		{ "inf", -EINVAL, 0 }, { "-infinity", -EINVAL, 0 }, { "x", -EINVAL, 0 }, { "", -EINVAL, 0 },
		{ ".", -EINVAL, 0 }, { "1e", -EINVAL, 0 }, { "1e+", -EINVAL, 0 }, { "e5", -EINVAL, 0 },
		{ " 1", -EINVAL, 0 }, { "1 ", -EINVAL, 0 }, { "2s", -EINVAL, 0 }, { "1.2.3", -EINVAL, 0 },
		{ "1,5", -EINVAL, 0 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(ints) / sizeof(ints[0]); i++) {
		int64_t v = 77;
		int r = parse_i64(ints[i].s, 0, 10, &v);

		if (r != ints[i].r)
			fail_msg("parse_i64(\"%s\") = %d, expected %d", ints[i].s, r, ints[i].r);
		assert_int_equal(v, r == 0 ? ints[i].v : 77); /* untouched on error */
	}
	for (size_t i = 0; i < sizeof(dbls) / sizeof(dbls[0]); i++) {
		double v = 77;
		int r = parse_double(dbls[i].s, 0, 10, &v);

		if (r != dbls[i].r)
			fail_msg("parse_double(\"%s\") = %d, expected %d", dbls[i].s, r, dbls[i].r);
		assert_true(v == (r == 0 ? dbls[i].v : 77));
	}
}

static void lists(void **state)
{
	static const struct {
		const char *s;
		int r;
		size_t n;
		unsigned first, last;
	} cpus[] = {
		{ "0", 0, 1, 0, 0 }, { "0-3", 0, 4, 0, 3 }, { "3,1,2,1", 0, 3, 1, 3 }, { "0-1,6", 0, 3, 0, 6 },
		{ "", -EINVAL, 0, 0, 0 }, { "a", -EINVAL, 0, 0, 0 }, { "3-1", -ERANGE, 0, 0, 0 },
		{ "1,", -EINVAL, 0, 0, 0 }, { "1-", -EINVAL, 0, 0, 0 }, { "99999", -ERANGE, 0, 0, 0 },
	}, uints[] = {
		{ "1", 0, 1, 1, 1 }, { "1,2,all", 0, 3, 1, 8 }, { "all,1", 0, 2, 1, 8 }, { "4,2,2", 0, 2, 2, 4 },
		{ "0", -ERANGE, 0, 0, 0 }, { "abc", -EINVAL, 0, 0, 0 }, { "1,,2", -EINVAL, 0, 0, 0 },
		{ ",1", -EINVAL, 0, 0, 0 }, { "1,", -EINVAL, 0, 0, 0 }, { "", -EINVAL, 0, 0, 0 },
		{ "5000", -ERANGE, 0, 0, 0 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cpus) / sizeof(cpus[0]); i++) {
		unsigned *v = NULL;
		size_t n = 0;
		int r = parse_cpu_list(cpus[i].s, &v, &n);

		if (r != cpus[i].r)
			fail_msg("parse_cpu_list(\"%s\") = %d, expected %d", cpus[i].s, r, cpus[i].r);
		if (r == 0) {
			assert_int_equal(n, cpus[i].n);
			assert_int_equal(v[0], cpus[i].first);
			assert_int_equal(v[n - 1], cpus[i].last);
		}
		free(v);
	}
	for (size_t i = 0; i < sizeof(uints) / sizeof(uints[0]); i++) {
		unsigned *v = NULL;
		size_t n = 0;
		int r = parse_uint_list(uints[i].s, 1, 4096, 8, &v, &n);

		if (r != uints[i].r)
			fail_msg("parse_uint_list(\"%s\") = %d, expected %d", uints[i].s, r, uints[i].r);
		if (r == 0) {
			assert_int_equal(n, uints[i].n);
			assert_int_equal(v[0], uints[i].first);
			assert_int_equal(v[n - 1], uints[i].last);
		}
		free(v);
	}
}

static void strings(void **state)
{
	struct strv sv = { 0 };

	(void)state;
	assert_int_equal(str_distance("thread", "threads"), 1);
	assert_int_equal(str_distance("time", "tmie"), 2);
	assert_int_equal(str_distance("", "abc"), 3);
	assert_true(str_has_prefix("cpu.prime", "cpu."));
	assert_false(str_has_prefix("cp", "cpu"));
	assert_true(str_in_list("iops,mb_per_s", ',', "mb_per_s"));
	assert_true(str_in_list("a|bb|c", '|', "bb"));
	assert_false(str_in_list("a|bb|c", '|', "b"));    /* whole items only */
	assert_false(str_in_list("iops,mb_per_s", ',', "iops,mb_per_s"));
	assert_false(str_in_list("", ',', "x"));
	assert_false(str_in_list(NULL, ',', "x"));
	assert_int_equal(strv_push(&sv, "a"), 0);
	assert_int_equal(strv_push(&sv, "b"), 0);
	assert_int_equal(sv.n, 2);
	assert_string_equal(sv.v[1], "b");
	assert_null(sv.v[2]);
	strv_clear(&sv);
	assert_int_equal(sv.n, 0);
}

/* str_appendf in a loop never writes past len, whatever the pieces add up
 * to: the pattern `off += snprintf(buf + off, len - off, ...)` it replaces
 * wrapped len - off around once the text was longer than the buffer. */
static void appends(void **state)
{
	static const struct {
		size_t len;
		const char *pieces[3];
		const char *text; /* NULL: buf untouched */
		size_t off;
	} cases[] = {
		{ 6, { "hello" }, "hello", 5 },             /* exact fit */
		{ 6, { "hel", "lo" }, "hello", 5 },         /* exact fit in two */
		{ 6, { "hello!" }, "he...", 6 },            /* one over */
		{ 6, { "hello", "!" }, "he...", 6 },        /* one over in the second piece */
		{ 6, { "a very long piece of text" }, "a ...", 6 }, /* far over */
		{ 6, { "hello!", "x", "yz" }, "he...", 6 }, /* appends after a cut do nothing */
		{ 6, { "" }, "", 0 },                       /* empty */
		{ 6, { "ab", "", "c" }, "abc", 3 },
		{ 4, { "abcd" }, "...", 4 },
		{ 3, { "abcd" }, "ab", 3 },                 /* no room for the mark */
		{ 1, { "a" }, "", 1 },
		{ 0, { "abc", "d" }, NULL, 0 },             /* len 0: nothing written */
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char buf[16];
		size_t off = 0;

		memset(buf, 'Z', sizeof(buf));
		for (size_t k = 0; k < 3 && cases[i].pieces[k]; k++)
			str_appendf(buf, cases[i].len, &off, "%s", cases[i].pieces[k]);
		if (cases[i].text)
			assert_string_equal(buf, cases[i].text);
		if (off != cases[i].off)
			fail_msg("case %zu: off %zu, expected %zu", i, off, cases[i].off);
		for (size_t b = cases[i].len; b < sizeof(buf); b++)
			if (buf[b] != 'Z')
				fail_msg("case %zu: byte %zu written past len %zu", i, b, cases[i].len);
	}
}

/* A file without end (a device given as a result file) stops at the limit
 * with -EFBIG; the buffer grows by doubling (a fixed step copied it once
 * per step: minutes under ASan, where show /dev/zero timed out). */
static void endless_file(void **state)
{
	char *text = NULL;

	(void)state;
	assert_int_equal(read_file("/dev/zero", &text), -EFBIG);
	assert_null(text);
	assert_int_equal(read_file("/dev/null", &text), 0);
	assert_string_equal(text, "");
	free(text);
}

/* A tool run by run_capture does not outlive vmbench: killed, vmbench takes
 * the tool with it (SIGTERM, which timeout(1) passes on to debootstrap).
 * This process is made the subreaper, so the orphaned tool is its child and
 * its end is waited for, not polled; alarm bounds it. */
static void tool_dies_with_vmbench(void **state)
{
	int go[2], status;
	char c;
	pid_t mid, tool;

	(void)state;
	assert_int_equal(prctl(PR_SET_CHILD_SUBREAPER, 1), 0);
	assert_int_equal(pipe(go), 0);
	mid = fork();
	assert_true(mid >= 0);
	if (mid == 0) {
		/* vmbench: the tool says it started on fd 3, then waits for 60 s */
		char *const argv[] = { "sh", "-c", "echo >&3; exec sleep 60", NULL };

		if (dup2(go[1], 3) < 0)
			_exit(2);
		_exit(run_capture("sh", argv, NULL, NULL) == 0 ? 0 : 1);
	}
	close(go[1]);
	alarm(20);
	assert_int_equal(read(go[0], &c, 1), 1);
	close(go[0]);
	assert_int_equal(kill(mid, SIGKILL), 0);
	assert_int_equal(waitpid(mid, &status, 0), mid);
	assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
	/* the tool, now this process's: ended by SIGTERM, not after its 60 s */
	tool = waitpid(-1, &status, 0);
	assert_true(tool > 0);
	assert_true(WIFSIGNALED(status));
	assert_int_equal(WTERMSIG(status), SIGTERM);
	alarm(0);
	assert_int_equal(prctl(PR_SET_CHILD_SUBREAPER, 0), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(sizes),
		cmocka_unit_test(numbers),
		cmocka_unit_test(lists),
		cmocka_unit_test(strings),
		cmocka_unit_test(appends),
		cmocka_unit_test(endless_file),
		cmocka_unit_test(tool_dies_with_vmbench),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
