/* The agent protocol: the host side against a scripted guest that
 * misbehaves in every way it can, and against the real `vmbench agent`. */
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "test.h"
#include "../../src/lab/proto.h"

static const char *vmbench_path;

/* A guest that writes `script` and then stays silent (or closes). With
 * after_line, it first reads the host's first line (RUN ...), as a guest
 * does, so that a close cannot come before the host has sent its request. */
struct fake {
	int to_host[2], to_guest[2];
	pid_t pid;
};

static void fake_start(struct fake *f, const char *script, bool close_after, bool after_line)
{
	assert_int_equal(pipe(f->to_host), 0);
	assert_int_equal(pipe(f->to_guest), 0);
	f->pid = fork();
	assert_true(f->pid >= 0);
	if (f->pid == 0) {
		size_t len = strlen(script);
		char buf[4096];

		close(f->to_host[0]);
		close(f->to_guest[1]);
		for (char ch = 0; after_line && ch != '\n';)
			if (read(f->to_guest[0], &ch, 1) != 1)
				_exit(1);
		if (write(f->to_host[1], script, len) != (ssize_t)len)
			_exit(1);
		if (close_after)
			_exit(0);
		/* stay until the host goes away, reading what it says */
		while (read(f->to_guest[0], buf, sizeof(buf)) > 0)
			;
		_exit(0);
	}
	close(f->to_host[1]);
	close(f->to_guest[0]);
}

static void fake_stop(struct fake *f)
{
	close(f->to_host[0]);
	close(f->to_guest[1]);
	(void)kill(f->pid, SIGKILL);
	(void)waitpid(f->pid, NULL, 0);
}

static void hello_cases(void **state)
{
	static const struct {
		const char *script;
		bool close_after;
		int r;
		const char *msg;
	} cases[] = {
		{ "[    0.0] Linux version 6.1\nbooting...\nHELLO 1 {\"hypervisor\": {\"name\": \"KVM\"}}\n", false, 0, NULL },
		{ "HELLO 2 {\"hypervisor\": {}}\n", false, -EPROTONOSUPPORT, "protocol version 2, this host 1" },
		{ "HELLO x {}\n", false, -EPROTO, "malformed HELLO" },
		{ "HELLO 1 {not json\n", false, -EPROTO, "HELLO carries no valid fingerprint" },
		{ "HELLO 1 {\"no\": 1}\n", false, -EPROTO, "not a fingerprint object" },
		{ "garbage\nmore garbage\n", false, -ETIMEDOUT, "sent nothing while waiting for HELLO (timed out)" },
		{ "Kernel panic - not syncing\n", true, -EPIPE, "closed the channel while waiting for HELLO" },
		{ "HELLO 1 {\"a\": \"\0\"}\n", false, -ETIMEDOUT, "timed out" }, /* truncated at the NUL by strlen */
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct fake f;
		struct proto_conn c;
		json_t *fp = NULL;
		int r;

		fake_start(&f, cases[i].script, cases[i].close_after, false);
		proto_init(&c, f.to_host[0], f.to_guest[1]);
		r = proto_host_hello(&c, 300, &fp);
		if (r != cases[i].r)
			fail_msg("case %zu: %d, expected %d (%s)", i, r, cases[i].r, c.err);
		if (cases[i].msg && !strstr(c.err, cases[i].msg))
			fail_msg("case %zu: \"%s\" lacks \"%s\"", i, c.err, cases[i].msg);
		if (r == 0)
			assert_string_equal(json_string_value(json_object_get(json_object_get(fp, "hypervisor"), "name")), "KVM");
		json_decref(fp);
		proto_release(&c);
		fake_stop(&f);
	}
}

static void run_cases(void **state)
{
	static const struct {
		const char *script;
		bool close_after;
		int r;
		const char *msg;
	} cases[] = {
		{ "ERROR unknown suite 'x'\n", false, -EIO, "could not run cpu: unknown suite 'x'" },
		{ "what is this\n", false, -EPROTO, "unexpected line from the guest while running: 'what is this'" },
		{ "RESULT 99999999999\n", false, -EPROTO, "unexpected line" },
		{ "RESULT 6\n{\"a\": 1}\n", false, -EPROTO, "not followed by a newline" },
		{ "RESULT 10\n{\"a\": 1}\n", false, -ETIMEDOUT, "while receiving the result (timed out)" },
		{ "RESULT 8\n{\"a\": 1}\n", false, -EPROTO, "not a valid vmbench result" },
		{ "RESULT 8\n{\"a\":", true, -EPIPE, "closed the channel while receiving the result" },
		{ "PROGRESS cpu 1\nPROGRESS cpu 2\n", false, -ETIMEDOUT, "timed out" },
		{ "", true, -EPIPE, "closed the channel while running" },
	};
	json_t *opts = json_pack("{s:f}", "time", 0.1);

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct fake f;
		struct proto_conn c;
		json_t *doc = NULL;
		int r;

		fake_start(&f, cases[i].script, cases[i].close_after, true);
		proto_init(&c, f.to_host[0], f.to_guest[1]);
		r = proto_host_run(&c, "cpu", opts, 300, 2000, &doc);
		if (r != cases[i].r)
			fail_msg("case %zu: %d, expected %d (%s)", i, r, cases[i].r, c.err);
		if (!strstr(c.err, cases[i].msg))
			fail_msg("case %zu: \"%s\" lacks \"%s\"", i, c.err, cases[i].msg);
		json_decref(doc);
		proto_release(&c);
		fake_stop(&f);
	}
	json_decref(opts);
}

static void options(void **state)
{
	json_t *o = json_pack("{s:f, s:i, s:s, s:b}", "time", 0.5, "cpu.max-prime", 2000, "threads", "1,2", "quick", 1);
	char **argv, err[128];
	int argc;

	(void)state;
	assert_int_equal(proto_options_argv(o, &argv, &argc, err, sizeof(err)), 0);
	assert_int_equal(argc, 7);
	assert_string_equal(argv[0], "--time");
	assert_string_equal(argv[1], "0.5");
	assert_string_equal(argv[3], "2000");
	assert_string_equal(argv[6], "--quick");
	for (int i = 0; i < argc; i++)
		free(argv[i]);
	free(argv);
	json_decref(o);
	o = json_pack("{s:[]}", "threads");
	assert_int_equal(proto_options_argv(o, &argv, &argc, err, sizeof(err)), -EINVAL);
	json_decref(o);
	o = json_pack("{s:i}", "--evil", 1);
	assert_int_equal(proto_options_argv(o, &argv, &argc, err, sizeof(err)), -EINVAL);
	json_decref(o);
}

/* The real agent, over pipes: hello, a run, a failing run, bye. */
static void real_agent(void **state)
{
	int to_host[2], to_guest[2], status;
	struct proto_conn c;
	json_t *fp = NULL, *doc = NULL, *opts;
	pid_t pid;

	(void)state;
	assert_int_equal(pipe(to_host), 0);
	assert_int_equal(pipe(to_guest), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		dup2(to_guest[0], STDIN_FILENO);
		dup2(to_host[1], STDOUT_FILENO);
		close(to_host[0]), close(to_guest[1]);
		execl(vmbench_path, "vmbench", "agent", (char *)NULL);
		_exit(127);
	}
	close(to_host[1]);
	close(to_guest[0]);
	proto_init(&c, to_host[0], to_guest[1]);
	if (proto_host_hello(&c, 10000, &fp) < 0)
		fail_msg("hello: %s", c.err);
	assert_true(json_is_string(json_object_get(json_object_get(fp, "hypervisor"), "name")));
	opts = json_pack("{s:f, s:i, s:i, s:s, s:i}", "time", 0.05, "warmup", 0, "repeat", 2, "threads", "1",
			 "cpu.max-prime", 1000);
	if (proto_host_run(&c, "cpu.prime", opts, 30000, 60000, &doc) < 0)
		fail_msg("run: %s", c.err);
	assert_string_equal(json_string_value(json_object_get(json_array_get(json_object_get(doc, "suites"), 0), "name")), "cpu");
	json_decref(doc);
	doc = NULL;
	assert_int_equal(proto_host_run(&c, "nosuch", opts, 30000, 60000, &doc), -EIO);
	assert_non_null(strstr(c.err, "unknown suite 'nosuch'"));
	assert_int_equal(proto_host_bye(&c, 10000), 0);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	json_decref(opts);
	json_decref(fp);
	proto_release(&c);
	close(to_host[0]);
	close(to_guest[1]);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(hello_cases),
		cmocka_unit_test(run_cases),
		cmocka_unit_test(options),
		cmocka_unit_test(real_agent),
	};

	(void)signal(SIGPIPE, SIG_IGN);
	vmbench_path = argc > 1 ? argv[1] : "build/vmbench";
	return cmocka_run_group_tests(tests, NULL, NULL);
}
