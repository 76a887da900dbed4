/* The hypervisor back-end seam (src/lab/hv.h): the start-up check of a
 * row's hooks, and the lab above the seam driven through a fake row that
 * records its calls (the balloon's cycle, vCPU threads and pinning, a
 * vmops test the row declares unsupported) without a VM. Before the seam,
 * balloon.c, vmops.c and labrun.c spoke QMP to a socket themselves and
 * none of this could run without a QEMU. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "test.h"
#include "../../src/lab/balloon.h"
#include "../../src/lab/hv.h"
#include "../../src/lab/matrix.h"
#include "../../src/lab/procs.h"
#include "../../src/lab/qemu.h"
#include "../../src/lab/vmops.h"
#include "../../src/core/str.h"
#include "../../src/suites/balloon.h"

/* -- the fake row: every call appended to calls -- */
static char calls[1024];
static uint64_t target, actual;

static void rec(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void rec(const char *fmt, ...)
{
	size_t n = strlen(calls);
	va_list ap;

	if (n)
		n += (size_t)snprintf(calls + n, sizeof(calls) - n, " ");
	va_start(ap, fmt);
	vsnprintf(calls + n, sizeof(calls) - n, fmt, ap);
	va_end(ap);
}

struct lab_hv_mon {
	int open;
};
static struct lab_hv_mon mon;

static int f_define(const struct lab_config *c, const struct lab_paths *p, bool incoming, bool paused,
		    struct strv *def, char *why, size_t len)
{
	(void)c, (void)p, (void)incoming, (void)paused, (void)def, (void)why, (void)len;
	rec("define");
	return 0;
}
static int f_start(const struct lab_config *c, const struct lab_paths *p, const struct strv *def, const char *log,
		   pid_t *pid)
{
	(void)c, (void)p, (void)def, (void)log;
	rec("start");
	*pid = 0;
	return 0;
}
static int f_channel(const char *agent, int *fd)
{
	(void)agent, (void)fd;
	return -ENOENT;
}
static int f_control(const char *dir, char *ctl, size_t len)
{
	snprintf(ctl, len, "%s/fake.ctl", dir);
	return 0;
}
static int f_exit_why(const struct lab_hv_exit *e, char *why, size_t len)
{
	(void)e;
	snprintf(why, len, "fake exited");
	return e->status < 0 ? 1 : -ECHILD;
}
static int f_destroy(pid_t pid, const char *ctl, int grace_ms, int *status)
{
	(void)status;
	rec("destroy(%d,%s,%d)", (int)pid, ctl, grace_ms);
	return 0;
}
static int f_open(const char *ctl, int timeout_ms, struct lab_hv_mon **out, char *why, size_t len)
{
	(void)timeout_ms, (void)why, (void)len;
	rec("open(%s)", ctl);
	mon.open++;
	*out = &mon;
	return 0;
}
static void f_close(struct lab_hv_mon *m)
{
	rec("close");
	m->open--;
}
static int f_vcpu_threads(struct lab_hv_mon *m, int **tids, size_t *n, char *why, size_t len)
{
	static const int t[4] = { 101, 102, 101, 103 }; /* a thread running two vCPUs */

	(void)m, (void)why, (void)len;
	rec("vcpu_threads");
	*tids = malloc(sizeof(t));
	assert_non_null(*tids);
	memcpy(*tids, t, sizeof(t));
	*n = 4;
	return 0;
}
static int f_pin(struct lab_hv_mon *m, const int *tids, size_t n, char *why, size_t len)
{
	(void)m, (void)why, (void)len;
	rec("pin(%zu:%d)", n, tids[n - 1]);
	return 0;
}
static int f_balloon_set(struct lab_hv_mon *m, uint64_t bytes, char *why, size_t len)
{
	(void)m, (void)why, (void)len;
	rec("balloon_set(%llu)", (unsigned long long)(bytes >> 20));
	target = bytes;
	return 0;
}
static int f_balloon_get(struct lab_hv_mon *m, uint64_t *bytes, char *why, size_t len)
{
	(void)m, (void)why, (void)len;
	rec("balloon_get");
	/* the guest reports where it was until its next report (balloon_wait) */
	*bytes = actual;
	return 0;
}
static int f_balloon_wait(struct lab_hv_mon *m, int timeout_ms, char *why, size_t len)
{
	(void)m, (void)timeout_ms, (void)why, (void)len;
	rec("balloon_wait");
	actual = target;
	return 1;
}

#define NO_MOVE "the fake back end moves no guest"
/* lab contend tunes the fake row's guests itself */
#define NO_TUNE { "tune", "x" }, { "vcpu_stat", "x" }, { "confine", "x" }
static const struct lab_hv_unsupported fake_unsupported[] = {
	{ "run_state", "no run state" }, { "reset", "no reset" }, { "await_reset", "no reset" },
	{ "migrate", NO_MOVE }, { "save_restore", NO_MOVE }, { "snapshot", "no snapshots" },
	{ "commit", "no snapshots" }, { "savevm", "no snapshots" }, NO_TUNE, { NULL, NULL },
};

static const struct lab_hv_ops fake = {
	.name = "fake", .summary = "calls recorded", .abi = LAB_HV_ABI,
	.control = f_control, .define = f_define, .start = f_start, .channel = f_channel, .exit_why = f_exit_why,
	.destroy = f_destroy, .open = f_open, .close = f_close,
	.vcpu_threads = f_vcpu_threads, .pin = f_pin,
	.balloon_set = f_balloon_set, .balloon_get = f_balloon_get, .balloon_wait = f_balloon_wait,
	.unsupported = fake_unsupported,
};

/* -- the start-up check -- */
static void check_rows(void **state)
{
	static const struct lab_hv_unsupported no_reason[] = { { "run_state", "" }, { "reset", "x" }, { "await_reset", "x" },
		{ "migrate", "x" }, { "save_restore", "x" }, { "snapshot", "x" }, { "commit", "x" }, { "savevm", "x" },
		{ NULL, NULL } };
	static const struct lab_hv_unsupported unknown[] = { { "teleport", "x" }, { NULL, NULL } };
	static const struct lab_hv_unsupported both[] = { { "open", "x" }, { NULL, NULL } };
	struct lab_hv_ops missing = fake, silent = fake, bad_abi = fake, odd = fake, twice = lab_hv_qemu,
			  no_start = fake, no_destroy = fake, no_control = fake, no_exit_why = fake, destroy_too = fake;
	static const struct lab_hv_unsupported destroy_not[] = { { "destroy", "x" }, { "run_state", "x" },
		{ "reset", "x" }, { "await_reset", "x" }, { "migrate", "x" }, { "save_restore", "x" }, { "snapshot", "x" },
		{ "commit", "x" }, { "savevm", "x" }, NO_TUNE, { NULL, NULL } };
	static const struct lab_hv_unsupported start_too[] = { { "start", "x" }, { "run_state", "x" }, { "reset", "x" },
		{ "await_reset", "x" }, { "migrate", "x" }, { "save_restore", "x" }, { "snapshot", "x" },
		{ "commit", "x" }, { "savevm", "x" }, NO_TUNE, { NULL, NULL } };
	const struct {
		const struct lab_hv_ops *row;
		int want;
		const char *says;
	} cases[] = {
		{ &lab_hv_qemu, 0, "" },
		{ &fake, 0, "" },
		{ &missing, -EINVAL, "hook pin is missing" },
		{ &silent, -EINVAL, "hook run_state is declared unsupported without a reason" },
		{ &bad_abi, -EINVAL, "ABI 99" },
		{ &odd, -EINVAL, "teleport, declared unsupported, is no hook" },
		{ &twice, -EINVAL, "hook open is present and declared unsupported" },
		{ &no_start, -EINVAL, "cannot be unsupported" },
		/* the three hooks that make a back end whole: tear-down, its control address, why it exited */
		{ &no_destroy, -EINVAL, "hook destroy is missing" },
		{ &no_control, -EINVAL, "hook control is missing" },
		{ &no_exit_why, -EINVAL, "hook exit_why is missing" },
		{ &destroy_too, -EINVAL, "cannot be unsupported" },
	};

	(void)state;
	missing.pin = NULL;
	silent.unsupported = no_reason;
	bad_abi.abi = 99;
	odd.unsupported = unknown;
	twice.unsupported = both;
	no_start.start = NULL;
	no_start.unsupported = start_too;
	no_destroy.destroy = NULL;
	no_control.control = NULL;
	no_exit_why.exit_why = NULL;
	destroy_too.destroy = NULL;
	destroy_too.unsupported = destroy_not;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char why[256] = "";

		assert_int_equal(lab_hv_check(cases[i].row, why, sizeof(why)), cases[i].want);
		if (*cases[i].says && !strstr(why, cases[i].says))
			fail_msg("case %zu: '%s' lacks '%s'", i, why, cases[i].says);
	}
	/* the session's row is the QEMU one, and it is whole */
	assert_ptr_equal(lab_hv_default(), &lab_hv_qemu);
	assert_null(lab_hv_why_not(&lab_hv_qemu, "migrate"));
	assert_string_equal(lab_hv_why_not(&fake, "migrate"), NO_MOVE);
}

/* -- the lab above the seam, through the fake row -- */
static void vcpus_counted_and_pinned(void **state)
{
	unsigned n = 0;
	char err[256] = "";

	(void)state;
	calls[0] = '\0';
	assert_int_equal(lab_hv_vcpus(&fake, "guest-a", true, &n, err, sizeof(err)), 0);
	assert_int_equal(n, 3); /* 4 vCPUs on 3 threads */
	assert_string_equal(calls, "open(guest-a) vcpu_threads pin(4:103) close");
	assert_int_equal(mon.open, 0);
	/* a row that cannot pin: the pinning fails with its reason, a count alone does not */
	{
		struct lab_hv_ops nopin = fake;
		static const struct lab_hv_unsupported u[] = { { "pin", "pinning is the domain's <cputune>" },
			{ "run_state", "x" }, { "reset", "x" }, { "await_reset", "x" }, { "migrate", "x" },
			{ "save_restore", "x" }, { "snapshot", "x" }, { "commit", "x" }, { "savevm", "x" }, NO_TUNE, { NULL, NULL } };

		nopin.pin = NULL;
		nopin.unsupported = u;
		assert_int_equal(lab_hv_check(&nopin, err, sizeof(err)), 0);
		assert_int_equal(lab_hv_vcpus(&nopin, "guest-a", true, NULL, err, sizeof(err)), -EOPNOTSUPP);
		assert_non_null(strstr(err, "<cputune>"));
	}
}

static const json_t *test_named(const json_t *suite, const char *name)
{
	size_t i;
	json_t *t;

	json_array_foreach(json_object_get(suite, "tests"), i, t)
		if (!strcmp(json_string_value(json_object_get(t, "name")) ?: "", name))
			return t;
	return NULL;
}

static void balloon_through_the_row(void **state)
{
	struct lab_balloon bl = { .hv = &fake, .ctl = "guest-b", .size = 256ull << 20, .timeout_s = 5, .idle = true };
	json_t *suite = NULL;
	char err[256] = "";
	const json_t *t;

	(void)state;
	calls[0] = '\0';
	actual = target = 1024ull << 20;
	assert_int_equal(lab_balloon_measure(&bl, &suite, err, sizeof(err)), 0);
	/* the guest's size, the inflate (two reports), the deflate back */
	assert_string_equal(calls, "open(guest-b) balloon_get balloon_set(768) balloon_get balloon_wait balloon_get "
				   "balloon_set(1024) balloon_get balloon_wait balloon_get close");
	assert_int_equal(mon.open, 0);
	t = test_named(suite, BALLOON_TEST_IDLE);
	assert_non_null(t);
	{
		char *text = json_dumps(t, 0);

		if (strcmp(json_string_value(json_object_get(t, "status")) ?: "", "ok") || !strstr(text, BALLOON_INFLATE))
			fail_msg("the idle test: %s", text);
		free(text);
	}
	json_decref(suite);
}

static void vmops_unsupported_is_a_skip(void **state)
{
	struct lab_vm vm = { .hv = &fake, .dir = "/nonexistent", .fd = -1 };
	struct lab_vmops v = { .vm = &vm, .migrate = true, .saverestore = true, .snapshot = true, .savevm = true };
	json_t *suite = NULL;
	char err[256] = "";
	const char *const names[4] = { "migrate", "saverestore", "snapshot", "savevm" };
	const char *const why[4] = { NO_MOVE, NO_MOVE, "no snapshots", "no snapshots" };

	(void)state;
	calls[0] = '\0';
	assert_int_equal(lab_vmops_measure(&v, &suite, err, sizeof(err)), 0);
	/* nothing was asked of the back end: each test is skipped with its reason */
	assert_string_equal(calls, "");
	for (int i = 0; i < 4; i++) {
		const json_t *t = test_named(suite, names[i]);

		assert_non_null(t);
		assert_string_equal(json_string_value(json_object_get(t, "status")), "skipped");
		assert_string_equal(json_string_value(json_object_get(t, "reason")), why[i]);
	}
	json_decref(suite);
}

/* The QEMU row's three hooks under the lab: its control socket's name in
 * the work directory, why QEMU exited before HELLO read from its log and
 * status, and the tear-down of a process through the registry. */
static void qemu_control_exit_and_destroy(void **state)
{
	char ctl[64], why[512], log[] = "/tmp/vmb-hv-log-XXXXXX";
	struct lab_config c;
	struct lab_paths p = { 0 };
	int fd, st = -1;
	pid_t pid;

	(void)state;
	assert_int_equal(lab_hv_qemu.control("/w/d", ctl, sizeof(ctl)), 0);
	assert_string_equal(ctl, "/w/d/qmp.sock");
	assert_int_equal(lab_hv_qemu.control("/a/rather/long/work/directory", ctl, 8), -ENAMETOOLONG);

	memset(&c, 0, sizeof(c));
	snprintf(c.v[LAB_ARCH], sizeof(c.v[LAB_ARCH]), "x86_64");
	fd = mkstemp(log);
	assert_true(fd >= 0);
	assert_true(write(fd, "starting\nqemu: could not open disk\n", 35) == 35);
	close(fd);
	{
		const struct {
			int status;
			bool at_start;
			int want;
			const char *says;
		} cases[] = {
			{ W_EXITCODE(127, 0), true, -ENOENT, "qemu-system-x86_64 is not installed: apt-get install qemu-system-x86" },
			{ W_EXITCODE(1, 0), true, -ECHILD, "QEMU exited at once (status 1: qemu: could not open disk)" },
			{ W_EXITCODE(1, 0), false, -ECHILD,
			  "QEMU exited (status 1: qemu: could not open disk) before the guest said HELLO" },
			{ W_EXITCODE(0, SIGKILL), false, -ECHILD, "QEMU exited (signal 9: qemu: could not open disk) before" },
			{ -1, false, 1, "qemu: could not open disk" },
		};

		for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
			struct lab_hv_exit e = { .c = &c, .p = &p, .log = log, .status = cases[i].status,
						 .at_start = cases[i].at_start };

			why[0] = '\0';
			assert_int_equal(lab_hv_qemu.exit_why(&e, why, sizeof(why)), cases[i].want);
			if (!strstr(why, cases[i].says))
				fail_msg("case %zu: '%s' lacks '%s'", i, why, cases[i].says);
		}
		/* only the accelerator's error counts: a last line is not one */
		assert_int_equal(lab_hv_qemu.exit_why(&(struct lab_hv_exit){ .c = &c, .p = &p, .log = log, .status = -1,
									  .accel_only = true }, why, sizeof(why)), 0);
		assert_string_equal(why, "");
	}
	unlink(log);

	/* a guest that does not exit by itself: stopped, reaped, untracked */
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		setpgid(0, 0);
		pause();
		_exit(0);
	}
	setpgid(pid, pid);
	assert_int_equal(lab_proc_track(pid), 0);
	assert_int_equal(lab_hv_qemu.destroy(pid, "/w/d/qmp.sock", 50, &st), 1);
	assert_false(lab_proc_tracked(pid));
	assert_true(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
	/* one that exits within its grace: reaped as it is */
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		setpgid(0, 0);
		_exit(3);
	}
	setpgid(pid, pid);
	assert_int_equal(lab_proc_track(pid), 0);
	assert_int_equal(lab_hv_qemu.destroy(pid, "/w/d/qmp.sock", 5000, &st), 0);
	assert_false(lab_proc_tracked(pid));
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 3);
}

/* --connect values over several hosts: the machine each reaches (which
 * decides what runs at once) and the label hv_uri each result gets */
static void connect_values(void **state)
{
	static const struct {
		const char *uri, *host, *label;
		int r;
	} rows[] = {
		{ "direct", "", "direct", 0 },
		{ "qemu:///system", "", "qemu:///system", 0 },
		{ "test:///default", "", "test:///default", 0 },
		{ "qemu+unix:///system?socket=/run/a.sock", "", "qemu+unix:///system", 0 },
		{ "qemu+ssh://root@Lab1.example:2222/system", "lab1.example", "qemu+ssh://root@Lab1.example:2222/system", 0 },
		{ "qemu+tcp://alice:s3cret@lab2/system", "lab2", "qemu+tcp://alice@lab2/system", 0 },
		{ "esx://esx1/?no_verify=1", "esx1", "esx://esx1/", 0 },
		{ "qemu+ssh://[fe80::1]:22/system", "[fe80::1]", "qemu+ssh://[fe80::1]:22/system", 0 },
		{ "qemu+ssh://localhost/system", "", "qemu+ssh://localhost/system", 0 },
		{ "qemu+ssh://127.0.0.1/system", "", "qemu+ssh://127.0.0.1/system", 0 },
		{ "vbox:///session#x", "", "vbox:///session", 0 },
		{ "qemu:///a,b=c", "", "qemu:///a_b_c", 0 },
		{ "qemu+ssh://[fe80::1/system", NULL, NULL, -EINVAL },
		{ "system", NULL, NULL, -EINVAL },
		{ "://host/x", NULL, NULL, -EINVAL },
		{ "1qemu:///system", NULL, NULL, -EINVAL },
		{ "qe mu:///system", NULL, NULL, -EINVAL },
		{ "", NULL, NULL, -EINVAL },
	};
	char host[64], label[128], tiny[4];

	(void)state;
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		int r = lab_hv_uri_host(rows[i].uri, host, sizeof(host));

		if (r != rows[i].r)
			fail_msg("%s: %d, expected %d", rows[i].uri, r, rows[i].r);
		if (!r && strcmp(host, rows[i].host))
			fail_msg("%s: host '%s', expected '%s'", rows[i].uri, host, rows[i].host);
		if (!rows[i].label)
			continue;
		lab_hv_uri_label(rows[i].uri, label, sizeof(label));
		if (strcmp(label, rows[i].label))
			fail_msg("%s: label '%s', expected '%s'", rows[i].uri, label, rows[i].label);
	}
	assert_int_equal(lab_hv_uri_host("qemu+ssh://a-long-host/system", tiny, sizeof(tiny)), -ENAMETOOLONG);
	lab_hv_uri_label("qemu:///system", tiny, sizeof(tiny));
	assert_string_equal(tiny, "qem");
	/* the session's label: none until named */
	assert_null(lab_hv_uri());
	lab_hv_set_uri("direct");
	assert_string_equal(lab_hv_uri(), "direct");
	lab_hv_set_uri(NULL);
	assert_null(lab_hv_uri());
}

/* The libvirt row's domain (where libvirt's headers were there to build
 * it): every path in it XML-escaped (& < > ' ", a TMPDIR may hold them),
 * and the disk's path whole, its comma a comma: the row reads the path from
 * the direct path's -drive, where QEMU's escape doubles it. */
static void libvirt_domain_paths(void **state)
{
#ifdef HAVE_LIBVIRT
	/* the work directory's own name is vmbench's (mkdtemp): the domain's name */
	static const char dir[] = "/t,1&<'\">/lab-ab12cd";
	static const char *const want[] = {
		"<kernel>/t,1&amp;&lt;&apos;&quot;&gt;/lab-ab12cd/lv-vmlinuz</kernel>",
		"<initrd>/t,1&amp;&lt;&apos;&quot;&gt;/lab-ab12cd/lv-initrd.img</initrd>",
		"<source file='/t,1&amp;&lt;&apos;&quot;&gt;/lab-ab12cd/d,2.img'/>",
		"<source path='/t,1&amp;&lt;&apos;&quot;&gt;/lab-ab12cd/console.log'/>",
		"<source mode='bind' path='/t,1&amp;&lt;&apos;&quot;&gt;/lab-ab12cd/a.sock'/>",
		"<name>vmbench-lab-ab12cd</name>",
	};
	struct lab_paths p = { .kernel = "/k", .initrd = "/i", .disk = "/t,1&<'\">/lab-ab12cd/d,2.img",
			       .qmp_socket = "/t,1&<'\">/lab-ab12cd/q.sock", .agent_socket = "/t,1&<'\">/lab-ab12cd/a.sock",
			       .console_log = "/t,1&<'\">/lab-ab12cd/console.log", .work_dir = dir };
	struct lab_matrix m;
	struct strv def = { 0 };
	char why[512];

	(void)state;
	assert_int_equal(lab_matrix_parse("accel=tcg nic=none disk=virtio-blk", &m, why, sizeof(why)), 0);
	lab_backends_own(&m.configs[0], p.backend);
	if (lab_hv_libvirt.define(&m.configs[0], &p, false, false, &def, why, sizeof(why)) < 0)
		fail_msg("define: %s", why);
	assert_int_equal(def.n, 1);
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		if (!strstr(def.v[0], want[i]))
			fail_msg("the domain lacks %s:\n%s", want[i], def.v[0]);
	/* no path's bytes unescaped anywhere */
	assert_null(strstr(def.v[0], "&<"));
	assert_null(strstr(def.v[0], ",,"));
	strv_clear(&def);
	lab_matrix_release(&m);
#else
	(void)state;
	skip();
#endif
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(check_rows),
		cmocka_unit_test(vcpus_counted_and_pinned),
		cmocka_unit_test(balloon_through_the_row),
		cmocka_unit_test(vmops_unsupported_is_a_skip),
		cmocka_unit_test(qemu_control_exit_and_destroy),
		cmocka_unit_test(connect_values),
		cmocka_unit_test(libvirt_domain_paths),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
