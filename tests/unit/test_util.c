/* Number, size and list parsing: good and bad inputs; a tool run by vmbench;
 * what tells a killed vmbench's leftovers and their owner (reclaim.h). */
#include <errno.h>
#include <sys/stat.h>
#include <stdio.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/wait.h>

#include "test.h"
#include "../../src/core/reclaim.h"
#include "../../src/core/spawn.h"
#include "../../src/core/stop.h"
#include "../../src/core/sys.h"
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

/* A stop asked of vmbench alone (kill PID, where the terminal's Ctrl-C
 * reaches the whole group) is passed on to the program it waits for, as
 * SIGINT. The tool sets its trap, then asks the stop itself (SIGINT to this
 * process, whose handler requests it as vmbench's does); the trap answers
 * and the tool ends at once. alarm bounds the wait were it not passed on. */
static void on_sigint(int sig)
{
	(void)sig;
	vmb_request_stop();
}

static void stop_passed_to_tool(void **state)
{
	/* the trap also ends the sleep, which would hold the pipe open */
	char *const argv[] = { "sh", "-c",
			       "trap 'echo interrupted; kill $! 2>/dev/null; exit 3' INT; kill -INT $PPID; sleep 60 & wait",
			       NULL };
	struct sigaction sa = { .sa_handler = on_sigint }, old;
	char *out = NULL;

	(void)state;
	assert_int_equal(sigaction(SIGINT, &sa, &old), 0);
	alarm(20);
	assert_int_equal(run_capture_stdout("sh", argv, &out), -ECHILD);
	alarm(0);
	assert_true(vmb_stop_requested());
	vmb_stop_clear();
	assert_int_equal(sigaction(SIGINT, &old, NULL), 0);
	assert_non_null(out);
	assert_string_equal(out, "interrupted\n");
	free(out);
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

/* Leftovers are told by name, by marker and by their owner's start: a
 * name or text that is not exactly vmbench's is none of them. */
static void leftovers(void **state)
{
	static const struct {
		const char *name;
		int r;
		pid_t pid;
	} names[] = {
		{ "vmbench-disk-4242-Ab3xYz", 0, 4242 }, { "vmbench-disk-4242", 0, 4242 },
		{ "vmbench-disk-2147483647-x", 0, 2147483647 }, { "vmbench-disk-2147483648-x", -EINVAL, 0 },
		{ "vmbench-disk-Ab3xYz", -EINVAL, 0 }, { "vmbench-disk-0-x", -EINVAL, 0 }, { "vmbench-disk-042-x", -EINVAL, 0 },
		{ "vmbench-disk-42x", -EINVAL, 0 }, { "vmbench-disk-", -EINVAL, 0 }, { "vmbench-lab-42-x", -EINVAL, 0 },
		{ "vmbench-disk--42", -EINVAL, 0 },
	};
	static const struct {
		const char *text;
		int r;
		pid_t pid;
		unsigned long long start;
		const char *boot;
	} markers[] = {
		{ "vmbench 4242 58847 d9ddf457-0164-4a85-9a2d-92ceaf73460e\n", 0, 4242, 58847,
		  "d9ddf457-0164-4a85-9a2d-92ceaf73460e" },
		{ "vmbench 4242 58847 \n", 0, 4242, 58847, "" },
		{ "vmbench 4242 58847 abc", 0, 4242, 58847, "abc" },
		{ "vmbench 4242 58847 abc\nmore", -EINVAL, 0, 0, NULL },
		{ "vmbench 4242 58847 ABC\n", -EINVAL, 0, 0, NULL },
		{ "vmbench 4242 58847\n", -EINVAL, 0, 0, NULL },
		{ "vmbench 4242 x 1\n", -EINVAL, 0, 0, NULL },
		{ "vmbench 0 1 a\n", -EINVAL, 0, 0, NULL },
		{ "fio 4242 1 a\n", -EINVAL, 0, 0, NULL },
		{ "", -EINVAL, 0, 0, NULL },
	};
	static const struct {
		const char *text;
		int r;
		char state;
		unsigned long long start;
	} stats[] = {
		{ "1234 (sh) S 1 2 3 4 5 6 7 8 9 10 11 12 13 20 0 1 0 0 987654 0 0\n", 0, 'S', 987654 },
		{ "1234 (a) b) c) Z 1 2 3 4 5 6 7 8 9 10 11 12 13 20 0 1 0 0 77 0", 0, 'Z', 77 },
		{ "1234 (sh) S 1 2 3 4 5 6 7 8 9 10 11 12 13 20 0 1 0", -EINVAL, 0, 0 },
		{ "1234 (sh) S 1 2 3 4 5 6 7 8 9 10 11 12 13 20 0 1 0 0 9x 0", -EINVAL, 0, 0 },
		{ "1234 sh S 1", -EINVAL, 0, 0 },
		{ "1234 (sh)", -EINVAL, 0, 0 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		pid_t pid = 7;

		assert_int_equal(reclaim_name_pid(names[i].name, "vmbench-disk-", &pid), names[i].r);
		assert_int_equal(pid, names[i].r == 0 ? names[i].pid : 7);
	}
	for (size_t i = 0; i < sizeof(markers) / sizeof(markers[0]); i++) {
		struct reclaim_owner o = { .pid = 7 };

		assert_int_equal(reclaim_parse_marker(markers[i].text, &o), markers[i].r);
		if (markers[i].r < 0) {
			assert_int_equal(o.pid, 7);
			continue;
		}
		assert_int_equal(o.pid, markers[i].pid);
		assert_true(o.start == markers[i].start);
		assert_string_equal(o.boot_id, markers[i].boot);
	}
	for (size_t i = 0; i < sizeof(stats) / sizeof(stats[0]); i++) {
		unsigned long long start = 7;
		char st = '?';

		assert_int_equal(reclaim_parse_stat(stats[i].text, &st, &start), stats[i].r);
		assert_true(start == (stats[i].r == 0 ? stats[i].start : 7));
		assert_int_equal(st, stats[i].r == 0 ? stats[i].state : '?');
	}
	/* this process is not gone, whenever its things were made after it started */
	assert_false(reclaim_gone_since(getpid(), time(NULL)));
	/* a process younger than the thing: not its maker, a reused PID */
	assert_true(reclaim_gone_since(getpid(), 1000000));
}

/* parse_utc: RFC 3339 as the document's validation takes it, and its
 * seconds since 1970 (the plan's pace of a stored run reads them) */
static void utc_times(void **state)
{
	static const struct {
		const char *s;
		int r;
		double t;
	} cases[] = {
		{ "1970-01-01T00:00:00Z", 0, 0 },
		{ "2026-11-30T03:14:00Z", 0, 1796008440 },
		{ "2026-11-30t03:14:00z", 0, 1796008440 },
		{ "2026-11-30T05:14:00+02:00", 0, 1796008440 },
		{ "2026-11-29T23:14:00-04:00", 0, 1796008440 },
		{ "2026-11-30T03:14:00.25Z", 0, 1796008440.25 },
		{ "2024-02-29T00:00:00Z", 0, 1709164800 },
		{ "2016-12-31T23:59:60Z", 0, 1483228800 }, /* a leap second: the next one's start */
		{ "2000-02-29T00:00:00Z", 0, 951782400 },
		{ "2023-02-29T00:00:00Z", -EINVAL, 0 },
		{ "1900-02-29T00:00:00Z", -EINVAL, 0 },
		{ "2026-04-31T00:00:00Z", -EINVAL, 0 },
		{ "2026-11-30T24:00:00Z", -EINVAL, 0 },
		{ "2026-11-30T03:14:00", -EINVAL, 0 },
		{ "2026-11-30T03:14:00.Z", -EINVAL, 0 },
		{ "2026-11-30T03:14:00+2:00", -EINVAL, 0 },
		{ "2026-11-30T03:14:00Z ", -EINVAL, 0 },
		{ "2026-11-30 03:14:00Z", -EINVAL, 0 },
		{ "+2026-11-30T03:14:00Z", -EINVAL, 0 },
		{ "", -EINVAL, 0 },
	};
	double t;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		t = -1;
		assert_int_equal(parse_utc(cases[i].s, &t), cases[i].r);
		if (cases[i].r == 0)
			assert_float_equal(t, cases[i].t, 1e-6);
	}
	assert_int_equal(parse_utc(NULL, &t), -EINVAL);
	assert_int_equal(parse_utc("2026-11-30T03:14:00Z", NULL), 0);
}

/* path_find: the first PATH entry holding an executable regular file of
 * that name, an empty entry the working directory, as execvp takes it */
static void touch(const char *dir, const char *name, mode_t mode)
{
	char path[128];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_CREAT | O_EXCL | O_WRONLY, mode);
	assert_true(fd >= 0);
	close(fd);
}

static void found_in_path(void **state)
{
	char dir[] = "/tmp/vmb-path-XXXXXX", a[64], b[64], buf[256], want[128], cwd[4096];
	const char *old = getenv("PATH");
	char *saved = old ? strdup(old) : NULL;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(a, sizeof(a), "%s/a", dir);
	snprintf(b, sizeof(b), "%s/b", dir);
	assert_int_equal(mkdir(a, 0700), 0);
	assert_int_equal(mkdir(b, 0700), 0);
	snprintf(buf, sizeof(buf), "%s/tool", a); /* a directory of that name: not it */
	assert_int_equal(mkdir(buf, 0700), 0);
	touch(a, "plain", 0600); /* not executable: not it */
	touch(b, "tool", 0700);
	touch(b, "plain", 0700);
	snprintf(buf, sizeof(buf), "%s:%s", a, b);
	assert_int_equal(setenv("PATH", buf, 1), 0);
	assert_int_equal(path_find("tool", buf, sizeof(buf)), 0);
	snprintf(want, sizeof(want), "%s/tool", b);
	assert_string_equal(buf, want);
	assert_int_equal(path_find("plain", buf, sizeof(buf)), 0);
	snprintf(want, sizeof(want), "%s/plain", b);
	assert_string_equal(buf, want);
	assert_int_equal(path_find("none", buf, sizeof(buf)), -ENOENT);
	assert_string_equal(buf, "");
	/* an empty entry: the working directory */
	assert_non_null(getcwd(cwd, sizeof(cwd)));
	assert_int_equal(chdir(b), 0);
	assert_int_equal(setenv("PATH", ":/nonexistent", 1), 0);
	assert_int_equal(path_find("tool", buf, sizeof(buf)), 0);
	assert_string_equal(buf, "./tool");
	assert_int_equal(chdir(cwd), 0);
	assert_int_equal(unsetenv("PATH"), 0);
	assert_int_equal(path_find("tool", buf, sizeof(buf)), -ENOENT);
	if (saved)
		assert_int_equal(setenv("PATH", saved, 1), 0);
	free(saved);
	for (const char *f = "a/plain\0a/tool\0b/tool\0b/plain\0a\0b\0"; *f; f += strlen(f) + 1) {
		snprintf(buf, sizeof(buf), "%s/%s", dir, f);
		assert_int_equal(remove(buf), 0);
	}
	assert_int_equal(rmdir(dir), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(utc_times),
		cmocka_unit_test(found_in_path),
		cmocka_unit_test(sizes),
		cmocka_unit_test(numbers),
		cmocka_unit_test(lists),
		cmocka_unit_test(strings),
		cmocka_unit_test(appends),
		cmocka_unit_test(endless_file),
		cmocka_unit_test(stop_passed_to_tool),
		cmocka_unit_test(tool_dies_with_vmbench),
		cmocka_unit_test(leftovers),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
