/* The QMP client against a real QEMU (started paused, no guest), and
 * against a socket that is not QEMU's. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "test.h"
#include "../../src/core/stop.h"
#include "../../src/lab/kvmguest.h"
#include "../../src/lab/qmp.h"
#include "../../src/lab/vmops.h"

static char dir[] = "/tmp/vmbench-qmp-XXXXXX";

static bool have_qemu(void)
{
	return system("command -v qemu-system-x86_64 >/dev/null 2>&1") == 0;
}

static void real_qemu(void **state)
{
	char sock[256], arg[300];
	struct qmp q;
	json_t *ret = NULL;
	int *tids = NULL, status, r;
	size_t n = 0;
	pid_t pid;

	(void)state;
	if (!have_qemu())
		skip();
	snprintf(sock, sizeof(sock), "%s/qmp.sock", dir);
	snprintf(arg, sizeof(arg), "unix:%s,server=on,wait=off", sock);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		(void)freopen("/dev/null", "w", stderr);
		execlp("qemu-system-x86_64", "qemu-system-x86_64", "-S", "-machine", "q35", "-accel", "tcg", "-smp", "2",
		       "-m", "128M", "-nodefaults", "-display", "none", "-qmp", arg, (char *)NULL);
		_exit(127);
	}
	if (qmp_connect(&q, sock, 60000) < 0) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		fail_msg("%s", q.err);
	}
	assert_int_equal(qmp_execute(&q, "query-status", NULL, 60000, &ret), 0);
	assert_string_equal(json_string_value(json_object_get(ret, "status")), "prelaunch");
	json_decref(ret);
	{
		/* the run state as the lab's boot watches it: a guest not started is not stopped for good */
		char st[32];

		assert_int_equal(qmp_run_state(&q, 60000, st, sizeof(st)), 0);
		assert_string_equal(st, "prelaunch");
		assert_false(qmp_state_final(st));
	}
	assert_int_equal(qmp_vcpu_threads(&q, 60000, &tids, &n), 0);
	assert_int_equal(n, 2);
	assert_true(tids[0] > 0 && tids[1] > 0 && tids[0] != tids[1]);
	free(tids);
	/* no balloon device: QEMU's error, and no event comes in the time given */
	{
		uint64_t actual = 0;

		assert_int_equal(qmp_balloon_actual(&q, 60000, &actual), -EIO);
		assert_non_null(strstr(q.err, "query-balloon"));
		assert_int_equal(qmp_wait_event(&q, "BALLOON_CHANGE", 50), 0);
	}
	assert_int_equal(qmp_execute(&q, "no-such-command", NULL, 60000, NULL), -EIO);
	assert_non_null(strstr(q.err, "no-such-command"));
	/* QEMU may exit before its answer to quit is flushed (more often on a
	 * loaded machine): the closed socket is then the answer; the exit status
	 * below says whether QEMU really quit */
	r = qmp_execute(&q, "quit", NULL, 60000, NULL);
	if (r != 0 && r != -EPIPE)
		fail_msg("quit: %d (%s)", r, q.err);
	qmp_close(&q);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

/* A server that greets with garbage, and one that never answers. */
static void not_qemu(void **state)
{
	static const char *const greetings[] = { "hello there\n", "{\"NotQMP\": {}}\n", "" };
	char sock[256];

	(void)state;
	for (size_t i = 0; i < sizeof(greetings) / sizeof(greetings[0]); i++) {
		struct sockaddr_un sa = { .sun_family = AF_UNIX };
		struct qmp q;
		int srv = socket(AF_UNIX, SOCK_STREAM, 0), r;
		pid_t pid;

		snprintf(sock, sizeof(sock), "%s/fake%zu.sock", dir, i);
		snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", sock);
		assert_int_equal(bind(srv, (struct sockaddr *)&sa, sizeof(sa)), 0);
		assert_int_equal(listen(srv, 1), 0);
		pid = fork();
		assert_true(pid >= 0);
		if (pid == 0) {
			int c = accept(srv, NULL, NULL);
			char buf[256];

			if (write(c, greetings[i], strlen(greetings[i])) < 0)
				_exit(1);
			while (read(c, buf, sizeof(buf)) > 0)
				;
			_exit(0);
		}
		close(srv);
		/* a greeting that comes is waited for as long as a loaded machine
		 * may need; only the silent server's case ends by the timeout */
		r = qmp_connect(&q, sock, i == 2 ? 500 : 60000);
		assert_true(r < 0);
		assert_true(strlen(q.err) > 0);
		if (i == 0)
			assert_non_null(strstr(q.err, "not a JSON object"));
		if (i == 1)
			assert_non_null(strstr(q.err, "not QEMU's"));
		if (i == 2)
			assert_non_null(strstr(q.err, "no answer in time"));
		qmp_close(&q);
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
	}
	/* nothing listening at all */
	snprintf(sock, sizeof(sock), "%s/none.sock", dir);
	{
		struct qmp q;

		assert_true(qmp_connect(&q, sock, 200) < 0);
		assert_non_null(strstr(q.err, "cannot connect"));
		qmp_close(&q);
	}
}

static int setup(void **state)
{
	(void)state;
	signal(SIGPIPE, SIG_IGN);
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[300];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

/* The reply parsers on their own: every line QEMU could send. */
static void parsers(void **state)
{
	static const struct {
		const char *cpus; /* query-cpus-fast's return */
		int r;
		int tid0, tid1;
	} vcpus[] = {
		{ "[{\"cpu-index\": 1, \"thread-id\": 22}, {\"cpu-index\": 0, \"thread-id\": 11}]", 0, 11, 22 },
		/* a repeated index left a vCPU's thread 0, and pinning 0 pinned this process */
		{ "[{\"cpu-index\": 0, \"thread-id\": 11}, {\"cpu-index\": 0, \"thread-id\": 12}]", -EPROTO, 0, 0 },
		{ "[{\"cpu-index\": 0, \"thread-id\": 0}]", -EPROTO, 0, 0 },
		{ "[{\"cpu-index\": 0, \"thread-id\": -5}]", -EPROTO, 0, 0 },
		{ "[{\"cpu-index\": 1, \"thread-id\": 5}]", -EPROTO, 0, 0 },
		{ "[{\"cpu-index\": 0}]", -EPROTO, 0, 0 },
		{ "[]", -EPROTO, 0, 0 },
		{ "{}", -EPROTO, 0, 0 },
	};
	static const struct {
		const char *line;
		int parse, result;
	} lines[] = {
		{ "{\"return\": {}}", 0, 0 },
		{ "{\"error\": {\"class\": \"GenericError\", \"desc\": \"no\"}}", 0, -EIO },
		{ "{\"id\": 1}", 0, -EPROTO },
		{ "{\"event\": \"RESET\", \"data\": {}}", 1, 0 },
		{ "[1, 2]", -EPROTO, 0 },
		{ "{\"return\": ", -EPROTO, 0 },
		{ "", -EPROTO, 0 },
	};
	static const struct {
		const char *ret; /* query-balloon's return */
		int r;
		uint64_t actual;
	} balloons[] = {
		{ "{\"actual\": 402653184}", 0, 402653184 },
		{ "{\"actual\": 1125899906842624}", 0, 1ull << 50 },
		{ "{\"actual\": 0}", -EPROTO, 0 },
		{ "{\"actual\": -4096}", -EPROTO, 0 },
		{ "{\"actual\": 1125899906842625}", -EPROTO, 0 },
		{ "{\"actual\": 4.5e8}", -EPROTO, 0 },
		{ "{\"actual\": \"512M\"}", -EPROTO, 0 },
		{ "{}", -EPROTO, 0 },
	};
	static const struct {
		const char *ret; /* query-migrate's return */
		int r;
		const char *status;
		double total_ms, downtime_ms, transferred, passes, postcopy_bytes;
	} migrations[] = {
		/* QEMU 7.2's, of a completed pre-copy of an idle 256 MiB TCG guest */
		{ "{\"status\": \"completed\", \"setup-time\": 1, \"downtime\": 44, \"total-time\": 151, \"ram\": "
		  "{\"total\": 268967936, \"dirty-sync-count\": 3, \"page-size\": 4096, \"postcopy-bytes\": 0, "
		  "\"transferred\": 96233914, \"dirty-pages-rate\": 0}}", 0, "completed", 151, 44, 96233914, 3, 0 },
		/* before any migration: {} is none; under way, no downtime yet */
		{ "{}", 0, "none", -1, -1, -1, -1, -1 },
		{ "{\"status\": \"active\", \"total-time\": 4, \"ram\": {\"transferred\": 171439, "
		  "\"dirty-sync-count\": 1}}", 0, "active", 4, -1, 171439, 1, -1 },
		{ "{\"status\": \"failed\", \"error-desc\": \"Unable to write to socket\"}", 0, "failed", -1, -1, -1, -1, -1 },
		{ "{\"status\": \"flying\"}", -EPROTO, NULL, 0, 0, 0, 0, 0 },
		{ "{\"total-time\": 5}", -EPROTO, NULL, 0, 0, 0, 0, 0 },
		{ "{\"status\": \"active\", \"total-time\": -1}", -EPROTO, NULL, 0, 0, 0, 0, 0 },
		{ "{\"status\": \"active\", \"downtime\": \"44\"}", -EPROTO, NULL, 0, 0, 0, 0, 0 },
		{ "{\"status\": \"active\", \"total-time\": 1e10}", -EPROTO, NULL, 0, 0, 0, 0, 0 },
		{ "{\"status\": \"active\", \"ram\": [1]}", -EPROTO, NULL, 0, 0, 0, 0, 0 },
		{ "{\"status\": \"active\", \"ram\": {\"transferred\": -5}}", -EPROTO, NULL, 0, 0, 0, 0, 0 },
		{ "{\"status\": \"active\", \"ram\": {\"dirty-sync-count\": 1e12}}", -EPROTO, NULL, 0, 0, 0, 0, 0 },
		{ "[\"completed\"]", -EPROTO, NULL, 0, 0, 0, 0, 0 },
	};
	struct qmp q = { .fd = -1 };

	(void)state;
	q.events = json_array();
	for (size_t i = 0; i < sizeof(migrations) / sizeof(migrations[0]); i++) {
		json_t *ret = json_loads(migrations[i].ret, 0, NULL);
		struct qmp_migration m = { .status = "x", .total_ms = 7 };

		assert_non_null(ret);
		if (qmp_parse_migrate(&q, ret, &m) != migrations[i].r)
			fail_msg("migration case %zu: not %d", i, migrations[i].r);
		if (migrations[i].r == 0) {
			assert_string_equal(m.status, migrations[i].status);
			assert_true(m.total_ms == migrations[i].total_ms && m.downtime_ms == migrations[i].downtime_ms);
			assert_true(m.transferred == migrations[i].transferred && m.passes == migrations[i].passes);
			assert_true(m.postcopy_bytes == migrations[i].postcopy_bytes);
		} else {
			/* written only on success */
			assert_string_equal(m.status, "x");
			assert_true(m.total_ms == 7);
		}
		json_decref(ret);
	}
	{
		/* a failed one's reason, quoted */
		json_t *ret = json_loads("{\"status\": \"failed\", \"error-desc\": \"no\\u001bway\"}", 0, NULL);
		struct qmp_migration m;

		assert_int_equal(qmp_parse_migrate(&q, ret, &m), 0);
		assert_string_equal(m.error, "no\\x1bway");
		json_decref(ret);
	}
	for (size_t i = 0; i < sizeof(vcpus) / sizeof(vcpus[0]); i++) {
		json_t *cpus = json_loads(vcpus[i].cpus, 0, NULL);
		int *tids = NULL;
		size_t n = 0;

		assert_non_null(cpus);
		if (qmp_parse_vcpus(&q, cpus, &tids, &n) != vcpus[i].r)
			fail_msg("vcpus case %zu: not %d", i, vcpus[i].r);
		if (vcpus[i].r == 0) {
			assert_int_equal(n, 2);
			assert_int_equal(tids[0], vcpus[i].tid0);
			assert_int_equal(tids[1], vcpus[i].tid1);
		}
		free(tids);
		json_decref(cpus);
	}
	for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++) {
		json_t *msg = NULL, *ret = NULL;
		int r = qmp_parse_line(&q, lines[i].line, &msg);

		if (r != lines[i].parse)
			fail_msg("line %zu: parse %d, not %d", i, r, lines[i].parse);
		if (r == 0 && qmp_result(&q, "x", msg, &ret) != lines[i].result)
			fail_msg("line %zu: result not %d", i, lines[i].result);
		json_decref(ret);
	}
	assert_int_equal(json_array_size(q.events), 1);
	for (size_t i = 0; i < sizeof(balloons) / sizeof(balloons[0]); i++) {
		json_t *ret = json_loads(balloons[i].ret, 0, NULL);
		uint64_t actual = 7;

		assert_non_null(ret);
		if (qmp_parse_balloon(&q, ret, &actual) != balloons[i].r)
			fail_msg("balloon case %zu: not %d", i, balloons[i].r);
		/* written only on success */
		assert_int_equal(actual, balloons[i].r == 0 ? balloons[i].actual : 7);
		json_decref(ret);
	}
	json_decref(q.events);
}

/* A guest QEMU stopped for good: query-status's run state, QEMU's words in
 * its log, and the verdict the lab remembers for `vmbench info`. */
static void stopped_for_good(void **state)
{
	static const struct {
		const char *ret; /* query-status's return */
		int r;
		const char *status;
		bool final;
	} states[] = {
		{ "{\"status\": \"internal-error\", \"singlestep\": false, \"running\": false}", 0, "internal-error", true },
		{ "{\"status\": \"guest-panicked\", \"running\": false}", 0, "guest-panicked", true },
		{ "{\"status\": \"running\", \"running\": true}", 0, "running", false },
		{ "{\"status\": \"paused\", \"running\": false}", 0, "paused", false },
		{ "{\"status\": \"Internal-Error\"}", -EPROTO, NULL, false },
		{ "{\"status\": \"internal error\"}", -EPROTO, NULL, false },
		{ "{\"status\": \"\"}", -EPROTO, NULL, false },
		{ "{\"status\": \"a-run-state-much-longer-than-any-of-qemu\"}", -EPROTO, NULL, false },
		{ "{\"status\": 3}", -EPROTO, NULL, false },
		{ "{}", -EPROTO, NULL, false },
	};
	static const struct {
		const char *log; /* QEMU's stdout and stderr */
		bool found;
		const char *words;
	} logs[] = {
		/* QEMU 7.2 on a nested KVM that cannot run a Linux guest (this project's development VM) */
		{ "KVM internal error. Suberror: 1\nextra data[0]: 0x0000000000000001\nextra data[1]: 0x74204dc70f48f00f\n"
		  "emulation failure\nRAX=ffff888004840040 RBX=0000000000000000\nCode=24 5b 80 <f0> 48", true,
		  "KVM internal error. Suberror: 1; emulation failure" },
		/* without KVM_CAP_INTERNAL_ERROR_DATA: no extra data */
		{ "qemu: warning: x\nKVM internal error. Suberror: 1\nemulation failure\n", true,
		  "KVM internal error. Suberror: 1; emulation failure" },
		/* another suberror: the register dump follows at once */
		{ "KVM internal error. Suberror: 3\nextra data[0]: 0x1\nRAX=0000000000000000 RBX=0\n", true,
		  "KVM internal error. Suberror: 3" },
		{ "KVM: entry failed, hardware error 0x80000021\n\nIf you're running a guest on an Intel machine", true,
		  "KVM: entry failed, hardware error 0x80000021" },
		/* a terminal's escape in QEMU's words is escaped */
		{ "KVM internal error. Suberror: 1\n\033[2Jgone\n", true, "KVM internal error. Suberror: 1; \\x1b[2Jgone" },
		{ "KVM internal error. Suberror: 1", true, "KVM internal error. Suberror: 1" },
		{ "qemu-system-x86_64: terminating on signal 15 from pid 1\n", false, NULL },
		{ "", false, NULL },
	};
	static const struct {
		const char *text; /* the verdict file */
		int r;
		bool runs;
		const char *reason;
	} verdicts[] = {
		{ "verdict=fails\nreason=KVM internal error. Suberror: 1; emulation failure\nwhen=1796529392\n"
		  "boot_id=d9ddf457-0164-4a85-9a2d-92ceaf73460e\n", 0, false, "KVM internal error. Suberror: 1; emulation failure" },
		{ "verdict=runs\nreason=\nwhen=1796529392\nboot_id=\n", 0, true, "" },
		{ "when=1796529392\nverdict=runs\n", 0, true, "" },
		{ "verdict=maybe\nwhen=1796529392\n", -EINVAL, false, NULL },
		{ "verdict=runs\n", -EINVAL, false, NULL },
		{ "verdict=runs\nwhen=-5\n", -EINVAL, false, NULL },
		{ "verdict=runs\nwhen=12x\n", -EINVAL, false, NULL },
		{ "verdict=fails\nwhen=1796529392\nreason=\033[2J\n", -EINVAL, false, NULL },
		{ "verdict=fails\nwhen=1796529392\nboot_id=../../etc\n", -EINVAL, false, NULL },
		{ "", -EINVAL, false, NULL },
	};
	struct qmp q = { .fd = -1 };
	char words[400], big[400];

	(void)state;
	for (size_t i = 0; i < sizeof(states) / sizeof(states[0]); i++) {
		json_t *ret = json_loads(states[i].ret, 0, NULL);
		char st[32] = "x";

		assert_non_null(ret);
		if (qmp_parse_status(&q, ret, st, sizeof(st)) != states[i].r)
			fail_msg("status case %zu: not %d", i, states[i].r);
		/* written only on success */
		assert_string_equal(st, states[i].r == 0 ? states[i].status : "x");
		if (states[i].r == 0 && qmp_state_final(st) != states[i].final)
			fail_msg("status case %zu: final is not %d", i, states[i].final);
		json_decref(ret);
	}
	for (size_t i = 0; i < sizeof(logs) / sizeof(logs[0]); i++) {
		if (lab_kvm_error_words(logs[i].log, words, sizeof(words)) != logs[i].found)
			fail_msg("log case %zu: found is not %d", i, logs[i].found);
		if (logs[i].found && strcmp(words, logs[i].words))
			fail_msg("log case %zu: '%s', not '%s'", i, words, logs[i].words);
	}
	/* bounded: a line of 10000 bytes is cut */
	{
		char *log = malloc(10100);

		assert_non_null(log);
		memcpy(log, "KVM internal error. ", 20);
		memset(log + 20, 'a', 10000);
		log[10020] = '\0';
		assert_true(lab_kvm_error_words(log, big, sizeof(big)));
		assert_true(strlen(big) <= 300);
		free(log);
	}
	for (size_t i = 0; i < sizeof(verdicts) / sizeof(verdicts[0]); i++) {
		struct lab_kvm_verdict v = { .when = 7 };

		if (lab_kvm_verdict_parse(verdicts[i].text, &v) != verdicts[i].r)
			fail_msg("verdict case %zu: not %d", i, verdicts[i].r);
		if (verdicts[i].r == 0) {
			assert_int_equal(v.runs, verdicts[i].runs);
			assert_string_equal(v.reason, verdicts[i].reason);
			assert_int_equal(v.when, 1796529392);
		} else {
			assert_int_equal(v.when, 7); /* written only on success */
		}
	}
}

/* After Ctrl-C the lab lets the boot end and stores what it measured:
 * vmops begins nothing more (no second QEMU: this VM has no configuration
 * to start one from) and says its tests were interrupted, not failed. */
static void vmops_after_ctrl_c(void **state)
{
	struct proto_conn conn;
	struct lab_vm vm = { .dir = "/nonexistent", .fd = -1, .conn = &conn };
	struct lab_vmops v = { .vm = &vm, .migrate = true, .saverestore = true, .snapshot = true, .savevm = true };
	json_t *suite = NULL, *t;
	char err[512] = "";
	size_t i;
	int r;

	(void)state;
	proto_init(&conn, -1, -1);
	vmb_request_stop();
	r = lab_vmops_measure(&v, &suite, err, sizeof(err));
	vmb_stop_clear();
	if (r != 0)
		fail_msg("%d: %s", r, err);
	assert_int_equal(json_array_size(json_object_get(suite, "tests")), 4);
	json_array_foreach(json_object_get(suite, "tests"), i, t)
		if (strcmp(json_string_value(json_object_get(t, "status")) ?: "", "interrupted"))
			fail_msg("%s: %s", json_string_value(json_object_get(t, "name")),
				 json_string_value(json_object_get(t, "status")));
	json_decref(suite);
	proto_release(&conn);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(real_qemu),
		cmocka_unit_test(not_qemu),
		cmocka_unit_test(parsers),
		cmocka_unit_test(stopped_for_good),
		cmocka_unit_test(vmops_after_ctrl_c),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
