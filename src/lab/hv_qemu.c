/* QEMU driven directly: the first row of the hypervisor back ends (hv.h).
 * define is the command line of qemu.c, start is qemuproc.c's lab_spawn,
 * the connection about a guest is QMP (qmp.c); the operations that move a
 * guest are in hv_qemu_move.c. Nothing above the seam speaks QMP. */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "hv.h"
#include "hv_qemu.h"
#include "kvmguest.h"
#include "procs.h"
#include "qemu.h"
#include "qemuproc.h"
#include "qmp.h"
#include "../core/clock.h"
#include "../proto/proto.h"
#include "../core/str.h"
#include "../core/util.h"
#include "../core/banned.h"

struct lab_hv_mon {
	struct qmp q;
};

static int qemu_control(const char *dir, char *ctl, size_t len)
{
	return snprintf(ctl, len, "%s/qmp.sock", dir) < (int)len ? 0 : -ENAMETOOLONG;
}

static int qemu_define(const struct lab_config *c, const struct lab_paths *p, bool incoming, bool paused,
		       struct strv *def, char *why, size_t len)
{
	int r = lab_qemu_argv(c, p, def, why, len);

	/* a second QEMU waits for the guest (-incoming defer), paused once it is in (-S) */
	if (r == 0 && incoming)
		r = strv_push(def, "-incoming");
	if (r == 0 && incoming)
		r = strv_push(def, "defer");
	if (r == 0 && paused)
		r = strv_push(def, "-S");
	return r;
}

static int qemu_channel(const char *agent, int *fd)
{
	return lab_hv_unix_channel(agent, fd);
}

/* QEMU's last words in its log (its stderr): KVM's error, not the
 * register dump after it; else (unless accel_only) its last line. */
static int qemu_words(const char *log, bool accel_only, char *buf, size_t len)
{
	char *text = NULL, *last;

	buf[0] = '\0';
	if (read_file(log, &text) < 0)
		return 0;
	if (lab_kvm_error_words(text, buf, len)) {
		free(text);
		return *buf != '\0';
	}
	buf[0] = '\0';
	if (!accel_only) {
		last = strrchr(text, '\n');
		last = last ? last + 1 : text;
		if (*last)
			proto_quote(buf, len, last, 300);
	}
	free(text);
	return *buf != '\0';
}

static int qemu_exit_why(const struct lab_hv_exit *e, char *why, size_t len)
{
	bool arm = !strcmp(e->c->v[LAB_ARCH], "aarch64");
	int st = e->status, code = WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st);
	const char *how = WIFEXITED(st) ? "status" : "signal";
	char words[320] = "";

	if (st < 0)
		return qemu_words(e->log, e->accel_only, why, len);
	if (e->at_start && WIFEXITED(st) && code == 127)
		return errf(why, len, -ENOENT, "%s is not installed: apt-get install %s",
			    arm ? "qemu-system-aarch64" : "qemu-system-x86_64", arm ? "qemu-system-arm" : "qemu-system-x86");
	if (qemu_words(e->log, false, words + 2, sizeof(words) - 2))
		memcpy(words, ": ", 2);
	if (!e->at_start)
		return errf(why, len, -ECHILD, "QEMU exited (%s %d%s) before the guest said HELLO", how, code, words);
	/* a key's part says why in QEMU's log; a back end's does not */
	if (WIFEXITED(st) && code == LAB_CHILD_FAILED && *words)
		return errf(why, len, -EPERM, "QEMU's process could not be set up%s", words);
	if (WIFEXITED(st) && code == LAB_CHILD_FAILED)
		return errf(why, len, -EPERM, "the %s back end could not be set up for QEMU (a network namespace and a "
			    "tap device)", e->p->backend[LAB_NIC] ? e->p->backend[LAB_NIC] : "NIC");
	return errf(why, len, -ECHILD, "QEMU exited at once (%s %d%s)", how, code, words);
}

/* QEMU's process is all it makes outside the work directory. */
static int qemu_destroy(pid_t pid, const char *ctl, int grace_ms, int *status)
{
	uint64_t deadline = clock_ns() + (uint64_t)(grace_ms > 0 ? grace_ms : 0) * 1000000;
	int st = 0;
	pid_t w = 0;

	(void)ctl;
	if (pid <= 0)
		return 0;
	/* the guest powers off by itself (after BYE); QEMU then exits */
	while (grace_ms > 0 && (w = waitpid(pid, &st, WNOHANG)) == 0 && clock_ns() < deadline)
		nanosleep(&(struct timespec){ .tv_nsec = 20000000 }, NULL);
	if (w == pid || w < 0) {
		lab_proc_untrack(pid);
		if (status)
			*status = st;
		return 0;
	}
	(void)lab_proc_reap(pid, 0, status);
	return 1;
}

int lab_hv_qemu_open(const char *ctl, int timeout_ms, struct lab_hv_mon **out, char *why, size_t len)
{
	struct lab_hv_mon *m = calloc(1, sizeof(*m));
	int r;

	if (!m)
		return errf(why, len, -ENOMEM, "out of memory");
	r = qmp_connect(&m->q, ctl, timeout_ms);
	if (r < 0) {
		errf(why, len, r, "%s", m->q.err);
		qmp_close(&m->q);
		free(m);
		return r;
	}
	*out = m;
	return 0;
}

void lab_hv_qemu_close(struct lab_hv_mon *m)
{
	if (!m)
		return;
	qmp_close(&m->q);
	free(m);
}

struct qmp *lab_hv_qemu_qmp(struct lab_hv_mon *m)
{
	return &m->q;
}

static int qemu_run_state(struct lab_hv_mon *m, char *state, size_t slen, bool *final, char *why, size_t len)
{
	int r = qmp_run_state(&m->q, 2000, state, slen);

	if (r < 0)
		return errf(why, len, r, "%s", m->q.err);
	*final = qmp_state_final(state);
	return 0;
}

static int qemu_reset(struct lab_hv_mon *m, char *why, size_t len)
{
	int r = qmp_execute(&m->q, "system_reset", NULL, 10000, NULL);

	return r < 0 ? errf(why, len, r, "%s", m->q.err) : 0;
}

/* When QEMU's event ev happened, on clock_ns's clock: its timestamp (the
 * wall clock's seconds and microseconds, as QEMU stamps every event) moved
 * by the wall clock's distance from now, within [lo, now]; now when it has
 * no valid timestamp. */
static uint64_t event_time(const json_t *ev, uint64_t lo)
{
	const json_t *ts = json_object_get(ev, "timestamp");
	const json_t *sec = json_object_get(ts, "seconds"), *usec = json_object_get(ts, "microseconds");
	uint64_t now = clock_ns(), wall_ns, ev_ns, ago;
	struct timespec wall;

	if (clock_gettime(CLOCK_REALTIME, &wall) < 0 || !json_is_integer(sec) || !json_is_integer(usec) ||
	    json_integer_value(sec) <= 0 || json_integer_value(sec) > (json_int_t)wall.tv_sec ||
	    json_integer_value(usec) < 0 || json_integer_value(usec) >= 1000000)
		return now;
	wall_ns = clock_ts_ns(&wall);
	ev_ns = (uint64_t)json_integer_value(sec) * NSEC_PER_SEC + (uint64_t)json_integer_value(usec) * 1000;
	if (ev_ns > wall_ns)
		return now;
	ago = wall_ns - ev_ns;
	/* a wall clock that stepped meanwhile: no time before lo */
	return ago > now - lo ? lo : now - ago;
}

static int qemu_await_reset(struct lab_hv_mon *m, int timeout_ms, uint64_t lo, uint64_t *t, char *why, size_t len)
{
	int r = qmp_wait_event(&m->q, "RESET", timeout_ms);

	if (r < 0)
		return errf(why, len, r, "waiting for QEMU's RESET event: %s", m->q.err);
	if (r == 1)
		*t = event_time(json_array_get(m->q.events, json_array_size(m->q.events) - 1), lo);
	return r;
}

static int qemu_vcpu_threads(struct lab_hv_mon *m, int **tids, size_t *n, char *why, size_t len)
{
	int r = qmp_vcpu_threads(&m->q, 10000, tids, n);

	return r < 0 ? errf(why, len, r, "%s", m->q.err[0] ? m->q.err : strerror(-r)) : 0;
}

static int qemu_pin(struct lab_hv_mon *m, const int *tids, size_t n, char *why, size_t len)
{
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);

	(void)m;
	for (size_t i = 0; i < n; i++) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET((int)(i % (size_t)(ncpu > 0 ? ncpu : 1)), &set);
		if (sched_setaffinity(tids[i], sizeof(set), &set) < 0)
			return errf(why, len, -errno, "%s", strerror(errno));
	}
	return 0;
}

static int qemu_balloon_set(struct lab_hv_mon *m, uint64_t bytes, char *why, size_t len)
{
	int r = qmp_execute(&m->q, "balloon", json_pack("{s:I}", "value", (json_int_t)bytes), LAB_HV_QEMU_QMP_MS, NULL);

	return r < 0 ? errf(why, len, r, "%s", m->q.err) : 0;
}

static int qemu_balloon_get(struct lab_hv_mon *m, uint64_t *bytes, char *why, size_t len)
{
	int r = qmp_balloon_actual(&m->q, LAB_HV_QEMU_QMP_MS, bytes);

	return r < 0 ? errf(why, len, r, "%s", m->q.err) : 0;
}

static int qemu_balloon_wait(struct lab_hv_mon *m, int timeout_ms, char *why, size_t len)
{
	/* QEMU says BALLOON_CHANGE when the guest reports (at most once a second) */
	int r = qmp_wait_event(&m->q, "BALLOON_CHANGE", timeout_ms);

	return r < 0 ? errf(why, len, r, "%s", m->q.err) : r;
}

const struct lab_hv_ops lab_hv_qemu = {
	.name = "qemu",
	.summary = "QEMU driven directly: its command line, its process, QMP",
	.abi = LAB_HV_ABI,
	.link = LAB_HV_LINK_CHILD,
	.control = qemu_control,
	.define = qemu_define,
	.start = lab_spawn,
	.channel = qemu_channel,
	.exit_why = qemu_exit_why,
	.destroy = qemu_destroy,
	.open = lab_hv_qemu_open,
	.close = lab_hv_qemu_close,
	.run_state = qemu_run_state,
	.reset = qemu_reset,
	.await_reset = qemu_await_reset,
	.vcpu_threads = qemu_vcpu_threads,
	.pin = qemu_pin,
	.balloon_set = qemu_balloon_set,
	.balloon_get = qemu_balloon_get,
	.balloon_wait = qemu_balloon_wait,
	.migrate = lab_hv_qemu_migrate,
	.save_restore = lab_hv_qemu_save_restore,
	.snapshot = lab_hv_qemu_snapshot,
	.commit = lab_hv_qemu_commit,
	.savevm = lab_hv_qemu_savevm,
	/* lab contend tunes QEMU driven here itself (contend_tune.c) */
	.unsupported = (const struct lab_hv_unsupported[]){
		{ "tune", LAB_HV_CONTEND_OWN }, { "vcpu_stat", LAB_HV_CONTEND_OWN }, { "confine", LAB_HV_CONTEND_OWN },
		{ NULL, NULL } },
};
