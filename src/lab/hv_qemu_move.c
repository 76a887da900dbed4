/* The QEMU row's operations that move a guest or its disks (hv.h):
 * live migration and save/restore into a second QEMU started with
 * -incoming, an external snapshot of the scratch disk committed back, and
 * savevm/loadvm inside its qcow2 disks, each through QMP with every call
 * and wait bounded. The QEMU left behind is quit and reaped; the files of
 * both are in the work directory and removed with it. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "hv_qemu.h"
#include "procs.h"
#include "proto_host.h"
#include "qemu.h"
#include "qmp.h"
#include "../core/clock.h"
#include "../core/stop.h"
#include "../core/str.h"
#include "../core/util.h"
#include "../core/banned.h"

#define VMOPS_QMP_MS LAB_HV_QEMU_QMP_MS
#define VMOPS_POLL_MS 100    /* the longest wait between two looks at a migration (its events end it sooner) */
#define VMOPS_START_MS 10000 /* a new QEMU makes its QMP and agent sockets */
#define VMOPS_QUIT_MS 10000  /* the QEMU left behind exits after quit */
#define VMOPS_DRAIN_MS 2000  /* what the old agent socket still holds, read */
/* the scratch disk's drive, as the disk back ends name it (-drive id=d0) */
#define VMOPS_DRIVE "d0"
#define VMOPS_COMMIT_JOB "vmops-commit"
/* bandwidth 0, "none": QMP max-bandwidth of 1 TiB/s, as QEMU's own default is 128 MiB/s */
#define VMOPS_UNLIMITED (1ull << 40)


/* The socket at path, as soon as QEMU makes it, until deadline. */
static int connect_unix(const char *path, uint64_t deadline, int *fd)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };

	if (strlen(path) >= sizeof(sa.sun_path))
		return -ENAMETOOLONG;
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	for (;;) {
		int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0), r;

		if (s < 0)
			return -errno;
		if (connect(s, (struct sockaddr *)&sa, sizeof(sa)) == 0) {
			*fd = s;
			return 0;
		}
		r = -errno;
		close(s);
		if ((r != -ENOENT && r != -ECONNREFUSED) || clock_ns() >= deadline)
			return r;
		nanosleep(&(struct timespec){ .tv_nsec = 10000000 }, NULL);
	}
}

/* The second QEMU, waiting for the guest (-incoming defer), its QMP and
 * agent sockets connected. */
struct incoming {
	unsigned set;
	pid_t pid;
	int fd;
	struct qmp q;
	char qmp[200], agent[200], console[200], log[200];
};

static void incoming_drop(struct incoming *in)
{
	qmp_close(&in->q);
	if (in->fd >= 0)
		close(in->fd);
	in->fd = -1;
	(void)lab_proc_reap(in->pid, 0, NULL);
	in->pid = 0;
}

/* Start it: the configuration's command line with the other set's
 * sockets and logs, -incoming defer, and -S when it is to stay paused
 * once the guest is in. */
static int incoming_start(const struct lab_vm *vm, bool paused, struct incoming *in, char *why, size_t len)
{
	struct lab_paths p = *vm->paths;
	struct strv argv = { 0 };
	char *names[4] = { in->qmp, in->agent, in->console, in->log };
	uint64_t deadline;
	int r;

	memset(in, 0, sizeof(*in));
	in->fd = -1;
	in->q.fd = -1;
	in->set = !vm->set;
	for (int i = 0; i < LAB_START_NFILES; i++) {
		snprintf(names[i], 200, "%s/%s", vm->dir, lab_hv_start_files[in->set][i]);
		/* the QEMU that had these names is gone */
		(void)unlink(names[i]);
	}
	p.qmp_socket = in->qmp;
	p.agent_socket = in->agent;
	p.console_log = in->console;
	r = vm->hv->define(vm->c, &p, true, paused, &argv, why, len);
	if (r == 0)
		r = vm->hv->start(vm->c, &p, &argv, in->log, &in->pid);
	strv_clear(&argv);
	if (r < 0) {
		/* why is both the message and its part: copied first (vsnprintf's
		 * source may not overlap its destination) */
		char was[512];

		snprintf(was, sizeof(was), "%s", why[0] ? why : strerror(-r));
		return errf(why, len, r, "starting the second QEMU: %s", was);
	}
	deadline = clock_ns() + (uint64_t)VMOPS_START_MS * 1000000;
	r = qmp_connect(&in->q, in->qmp, VMOPS_START_MS);
	if (r < 0)
		errf(why, len, r, "the second QEMU: %s", in->q.err);
	else if ((r = connect_unix(in->agent, deadline, &in->fd)) < 0)
		errf(why, len, r, "the second QEMU's agent socket %s: %s", in->agent, strerror(-r));
	else
		r = qmp_execute(&in->q, "migrate-set-capabilities",
				json_pack("{s:[{s:s,s:b}]}", "capabilities", "capability", "events", "state", 1),
				VMOPS_QMP_MS, NULL);
	if (r < 0) {
		if (!why[0] || r == -EIO)
			errf(why, len, r, "the second QEMU: %s", in->q.err);
		incoming_drop(in);
	}
	return r;
}

/* The QEMU the guest left: quit (it holds nothing the guest needs any
 * more) and reaped. */
static void quit_old(struct lab_vm *vm)
{
	struct qmp q;

	if (qmp_connect(&q, vm->ctl, VMOPS_QMP_MS) == 0)
		(void)qmp_execute(&q, "quit", NULL, VMOPS_QMP_MS, NULL);
	qmp_close(&q);
	(void)lab_proc_reap(vm->pid, VMOPS_QUIT_MS, NULL);
	vm->pid = 0;
}

/* The guest runs in `in` now, and vm is in's: the agent's channel moves to
 * its socket with what the old one still held (a line cut by the move
 * stays whole). The old QEMU is gone (quit_old). */
static int take_new(struct lab_vm *vm, struct incoming *in, char *why, size_t len)
{
	char *names[4] = { vm->ctl, vm->agent, vm->console, vm->log };
	const char *from[4] = { in->qmp, in->agent, in->console, in->log };
	int r = proto_switch(vm->conn, in->fd, in->fd, VMOPS_DRAIN_MS);

	if (vm->fd >= 0)
		close(vm->fd);
	vm->fd = in->fd;
	in->fd = -1;
	vm->pid = in->pid;
	in->pid = 0;
	vm->set = in->set;
	for (int i = 0; i < 4; i++)
		snprintf(names[i], 200, "%s", from[i]);
	qmp_close(&in->q);
	if (r < 0)
		return errf(why, len, r, "the agent's channel: %s", vm->conn->err);
	/* pin=on: the vCPUs of the QEMU the guest runs in now, as the boot
	 * pinned the first's (else what runs after it, the later cases and the
	 * warm boots, would run unpinned under a pin=on label) */
	if (vm->c->pin)
		r = lab_hv_vcpus(vm->hv, vm->ctl, true, NULL, why, len);
	return r;
}

/* query-migrate on q until the migration is completed (*m its figures,
 * *t_done when it was seen); a pre-copy switched to post-copy after
 * postcopy_after passes (-1: never) (*switched); live: QEMU's times of it
 * are awaited. -ETIMEDOUT after timeout_s from t0,
 * -EIO when QEMU says it failed; why says so. */
static int await_migration(struct qmp *q, double timeout_s, bool live, int postcopy_after, uint64_t t0,
			   struct qmp_migration *m, uint64_t *t_done, bool *switched, char *why, size_t len)
{
	for (;;) {
		int r = qmp_migration(q, VMOPS_QMP_MS, m);
		uint64_t now = clock_ns();

		if (r < 0)
			return errf(why, len, r, "%s", q->err);
		if (!strcmp(m->status, "completed")) {
			/* QEMU 7.2 says completed a moment before it has computed the
			 * times of a live migration (total-time and downtime 0 then):
			 * asked again, for a second at most */
			for (int i = 0; live && m->total_ms <= 0 && i < 100 && r == 0; i++) {
				nanosleep(&(struct timespec){ .tv_nsec = 10000000 }, NULL);
				r = qmp_migration(q, VMOPS_QMP_MS, m);
			}
			if (r < 0)
				return errf(why, len, r, "%s", q->err);
			if (live && m->total_ms <= 0)
				return errf(why, len, -EPROTO, "QEMU's query-migrate gave the completed migration no total-time");
			*t_done = now;
			return 0;
		}
		if (!strcmp(m->status, "failed") || !strcmp(m->status, "cancelled"))
			return errf(why, len, -EIO, "the migration %s%s%s", m->status, m->error[0] ? ": " : "", m->error);
		/* pass N is done when QEMU has synced the dirty bitmap N + 1 times;
		 * 0 passes: at once, before QEMU's first look at what is left
		 * (which completes a pre-copy whose rest fits its threshold) */
		if (postcopy_after >= 0 && !*switched && (!strcmp(m->status, "active") || !strcmp(m->status, "setup")) &&
		    (!postcopy_after || m->passes >= postcopy_after + 1)) {
			r = qmp_execute(q, "migrate-start-postcopy", NULL, VMOPS_QMP_MS, NULL);
			if (r < 0)
				return errf(why, len, r, "%s", q->err);
			*switched = true;
		}
		if ((double)(now - t0) / NSEC_PER_SEC > timeout_s) {
			char rate[64] = "";

			/* QEMU's rate, once it has computed one (a second in) */
			if (m->dirty_rate > 0)
				snprintf(rate, sizeof(rate), ", the guest dirtying %.0f pages/s", m->dirty_rate);
			return errf(why, len, -ETIMEDOUT, "not done within %g s (--vmops.timeout): %s after %.0f passes, "
				    "%.0f MiB sent%s", timeout_s, m->status, m->passes, m->transferred / 1048576, rate);
		}
		if (vmb_stop_requested())
			return errf(why, len, -EINTR, "interrupted");
		/* a switch waits for the pass's end (its event comes as the bitmap is synced) */
		r = qmp_wait_event(q, postcopy_after >= 0 && !*switched ? "MIGRATION_PASS" : "MIGRATION", VMOPS_POLL_MS);
		/* the events seen are not needed: the next query says the status */
		json_array_clear(q->events);
		if (r < 0)
			return errf(why, len, r, "%s", q->err);
	}
}

/* A migration that will not complete, cancelled: the guest goes on in
 * the source (a bounded wait for QEMU to say so). */
static void cancel(struct qmp *q)
{
	struct qmp_migration m;
	uint64_t deadline = clock_ns() + (uint64_t)VMOPS_QMP_MS * 1000000;

	if (qmp_execute(q, "migrate_cancel", NULL, VMOPS_QMP_MS, NULL) < 0)
		return;
	while (clock_ns() < deadline && qmp_migration(q, VMOPS_QMP_MS, &m) == 0 && strcmp(m.status, "cancelled") &&
	       strcmp(m.status, "failed") && strcmp(m.status, "completed"))
		nanosleep(&(struct timespec){ .tv_nsec = 20000000 }, NULL);
}

static int set_caps(struct qmp *q, bool postcopy, char *why, size_t len)
{
	int r = qmp_execute(q, "migrate-set-capabilities",
			    json_pack("{s:[{s:s,s:b},{s:s,s:b}]}", "capabilities", "capability", "events", "state", 1,
				      "capability", "postcopy-ram", "state", postcopy),
			    VMOPS_QMP_MS, NULL);

	return r < 0 ? errf(why, len, r, "%s", q->err) : 0;
}

/* The active commit job: ready (BLOCK_JOB_READY: the overlay's data is
 * in the base and new writes go to both), completed (block-job-complete:
 * the base is the drive's image again), gone from query-block-jobs; its
 * BLOCK_JOB_COMPLETED event says whether it failed. Bounded by timeout_s. */
static int await_commit(struct qmp *q, double timeout_s, uint64_t t0, char *why, size_t len)
{
	bool completing = false;

	for (;;) {
		json_t *jobs = NULL, *j, *mine = NULL, *ev;
		size_t i;
		int r = qmp_execute(q, "query-block-jobs", NULL, VMOPS_QMP_MS, &jobs);

		if (r < 0)
			return errf(why, len, r, "%s", q->err);
		json_array_foreach(jobs, i, j)
			if (!strcmp(json_string_value(json_object_get(j, "device")) ?: "", VMOPS_COMMIT_JOB))
				mine = j;
		if (!mine) {
			json_decref(jobs);
			/* gone: its end, with an error when it failed */
			json_array_foreach(q->events, i, ev)
				if (!strcmp(json_string_value(json_object_get(ev, "event")) ?: "", "BLOCK_JOB_COMPLETED") &&
				    json_is_string(json_object_get(json_object_get(ev, "data"), "error"))) {
					char e[200];

					proto_quote(e, sizeof(e), json_string_value(json_object_get(json_object_get(ev, "data"),
												 "error")), 190);
					return errf(why, len, -EIO, "block-commit failed: %s", e);
				}
			return completing ? 0 : errf(why, len, -EIO, "the block-commit job ended before it was ready");
		}
		if (!completing && json_is_true(json_object_get(mine, "ready"))) {
			json_decref(jobs);
			r = qmp_execute(q, "block-job-complete", json_pack("{s:s}", "device", VMOPS_COMMIT_JOB),
					VMOPS_QMP_MS, NULL);
			if (r < 0)
				return errf(why, len, r, "%s", q->err);
			completing = true;
			continue;
		}
		json_decref(jobs);
		if ((double)(clock_ns() - t0) / NSEC_PER_SEC > timeout_s) {
			(void)qmp_execute(q, "block-job-cancel", json_pack("{s:s}", "device", VMOPS_COMMIT_JOB), VMOPS_QMP_MS,
					  NULL);
			return errf(why, len, -ETIMEDOUT, "the block-commit was not done within %g s (--vmops.timeout)",
				    timeout_s);
		}
		if (vmb_stop_requested())
			return errf(why, len, -EINTR, "interrupted");
		r = qmp_wait_event(q, completing ? "BLOCK_JOB_COMPLETED" : "BLOCK_JOB_READY", VMOPS_POLL_MS);
		if (r < 0)
			return errf(why, len, r, "%s", q->err);
	}
}


/* An HMP command through QMP (human-monitor-command), timed: HMP says an
 * error as its output, which a savevm or loadvm that worked leaves empty.
 * 1 with why (QEMU's words) for such an error. */
static int hmp(struct qmp *q, const char *line, double *secs, char *why, size_t len)
{
	json_t *out = NULL;
	uint64_t t0 = clock_ns();
	int r = qmp_execute(q, "human-monitor-command", json_pack("{s:s}", "command-line", line), VMOPS_QMP_MS * 6,
			    &out);

	*secs = (double)(clock_ns() - t0) / NSEC_PER_SEC;
	if (r < 0) {
		json_decref(out);
		return errf(why, len, r, "%s", q->err);
	}
	if (json_is_string(out) && json_string_length(out)) {
		char words[300];

		proto_quote(words, sizeof(words), json_string_value(out), 280);
		/* one line: HMP ends its output with "\r\n" */
		words[strcspn(words, "\\")] = '\0';
		json_decref(out);
		errf(why, len, -EIO, "%s: %s", line, words);
		return 1;
	}
	json_decref(out);
	return 0;
}

static void moved_init(struct lab_hv_moved *out)
{
	*out = (struct lab_hv_moved){ .total_ms = -1, .downtime_ms = -1, .setup_ms = -1, .transferred = -1,
				      .dirty_rate = -1, .passes = -1, .postcopy_bytes = -1, .save_s = -1,
				      .state_bytes = -1, .restore_s = -1 };
}

static int set_bandwidth(struct qmp *q, uint64_t bandwidth, char *why, size_t len)
{
	int r = qmp_execute(q, "migrate-set-parameters",
			    json_pack("{s:I}", "max-bandwidth", (json_int_t)(bandwidth ? bandwidth : VMOPS_UNLIMITED)),
			    VMOPS_QMP_MS, NULL);

	return r < 0 ? errf(why, len, r, "%s", q->err) : 0;
}

/* One live migration of the guest into a second QEMU. *lost when the
 * guest can no longer be reached (a post-copy that failed after its
 * switch, a channel that did not move): that ends the boot. */
int lab_hv_qemu_migrate(struct lab_vm *vm, const struct lab_hv_move *how, struct lab_hv_moved *out, bool *lost,
			char *why, size_t len)
{
	struct incoming in;
	struct qmp src;
	struct qmp_migration m;
	char uri[240];
	uint64_t t0, t_done = 0;
	bool switched = false;
	int r;

	*lost = false;
	why[0] = '\0';
	r = incoming_start(vm, false, &in, why, len);
	if (r < 0)
		return r;
	snprintf(uri, sizeof(uri), "%s/migrate.sock", vm->dir);
	(void)unlink(uri);
	snprintf(uri, sizeof(uri), "unix:%s/migrate.sock", vm->dir);
	r = qmp_connect(&src, vm->ctl, VMOPS_QMP_MS);
	if (r < 0)
		errf(why, len, r, "%s", src.err);
	if (r == 0)
		r = set_caps(&in.q, how->postcopy, why, len);
	if (r == 0)
		r = set_caps(&src, how->postcopy, why, len);
	if (r == 0)
		r = set_bandwidth(&src, how->bandwidth, why, len);
	if (r == 0 && (r = qmp_execute(&in.q, "migrate-incoming", json_pack("{s:s}", "uri", uri), VMOPS_QMP_MS, NULL)) < 0)
		errf(why, len, r, "%s", in.q.err);
	t0 = clock_ns();
	if (r == 0 && (r = qmp_execute(&src, "migrate", json_pack("{s:s}", "uri", uri), VMOPS_QMP_MS, NULL)) < 0)
		errf(why, len, r, "%s", src.err);
	if (r == 0) {
		r = await_migration(&src, how->timeout_s, true, how->postcopy ? (int)how->postcopy_after : -1, t0, &m,
				    &t_done, &switched, why, len);
		if (r < 0 && !switched)
			cancel(&src);
		/* after the switch the guest ran in the destination: it is gone with it */
		*lost = r < 0 && switched;
	}
	qmp_close(&src);
	if (r == 0 && (m.total_ms < 0 || m.downtime_ms < 0 || m.transferred < 0))
		r = errf(why, len, -EPROTO, "QEMU's query-migrate of the completed migration gave no total-time, "
			 "downtime or ram.transferred");
	if (r < 0) {
		incoming_drop(&in);
		return r;
	}
	moved_init(out);
	out->total_ms = m.total_ms;
	out->downtime_ms = m.downtime_ms;
	out->setup_ms = m.setup_ms;
	out->transferred = m.transferred;
	out->dirty_rate = m.dirty_rate;
	out->passes = m.passes;
	out->postcopy_bytes = m.postcopy_bytes;
	out->t_done = t_done;
	quit_old(vm);
	r = take_new(vm, &in, why, len);
	*lost = r < 0;
	incoming_drop(&in);
	return r;
}

/* Stop, save the state to a file, quit; a new QEMU restores it (paused),
 * resumed: the times, the state's size. Before the old QEMU quits, a
 * failure resumes the guest there; after, the guest is *lost. */
int lab_hv_qemu_save_restore(struct lab_vm *vm, const struct lab_hv_move *how, struct lab_hv_moved *out,
			     bool *lost, char *why, size_t len)
{
	struct incoming in = { .fd = -1, .q = { .fd = -1 } };
	struct qmp src;
	struct qmp_migration m;
	struct stat st;
	char state[200], uri[240];
	uint64_t t0, t1, t_done = 0;
	bool switched = false;
	int r;

	*lost = false;
	why[0] = '\0';
	snprintf(state, sizeof(state), "%s/state.bin", vm->dir);
	/* exec: runs through /bin/sh: a path it reads as it is written */
	if (strspn(state, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/._-+") != strlen(state))
		return errf(why, len, -EINVAL, "the work directory %s has characters a shell would read (QEMU saves "
			    "through exec:): give a TMPDIR of letters, digits and /._-+", vm->dir);
	(void)unlink(state);
	snprintf(uri, sizeof(uri), "exec:cat > '%s'", state);
	r = qmp_connect(&src, vm->ctl, VMOPS_QMP_MS);
	if (r < 0)
		errf(why, len, r, "%s", src.err);
	if (r == 0)
		r = set_caps(&src, false, why, len);
	if (r == 0)
		r = set_bandwidth(&src, how->bandwidth, why, len);
	t0 = clock_ns();
	if (r == 0 && (r = qmp_execute(&src, "stop", NULL, VMOPS_QMP_MS, NULL)) < 0)
		errf(why, len, r, "%s", src.err);
	if (r == 0 && (r = qmp_execute(&src, "migrate", json_pack("{s:s}", "uri", uri), VMOPS_QMP_MS, NULL)) < 0)
		errf(why, len, r, "%s", src.err);
	if (r == 0)
		r = await_migration(&src, how->timeout_s, false, -1, t0, &m, &t_done, &switched, why, len);
	if (r == 0 && (stat(state, &st) < 0 || st.st_size <= 0))
		r = errf(why, len, -EIO, "QEMU saved no state into %s", state);
	if (r < 0) {
		/* the guest goes on where it was */
		cancel(&src);
		(void)qmp_execute(&src, "cont", NULL, VMOPS_QMP_MS, NULL);
		qmp_close(&src);
		(void)unlink(state);
		return r;
	}
	qmp_close(&src);
	moved_init(out);
	out->save_s = (double)(t_done - t0) / NSEC_PER_SEC;
	out->state_bytes = (double)st.st_size;
	/* from here the guest is only in the file */
	quit_old(vm);
	*lost = true;
	t1 = clock_ns();
	r = incoming_start(vm, true, &in, why, len);
	snprintf(uri, sizeof(uri), "exec:cat '%s'", state);
	if (r == 0 && (r = qmp_execute(&in.q, "migrate-incoming", json_pack("{s:s}", "uri", uri), VMOPS_QMP_MS, NULL)) < 0)
		errf(why, len, r, "%s", in.q.err);
	if (r == 0)
		r = await_migration(&in.q, how->timeout_s, false, -1, t1, &m, &t_done, &switched, why, len);
	if (r == 0) {
		out->restore_s = (double)(t_done - t1) / NSEC_PER_SEC;
		out->t_resume = clock_ns();
		r = qmp_execute(&in.q, "cont", NULL, VMOPS_QMP_MS, NULL);
		if (r < 0)
			errf(why, len, r, "%s", in.q.err);
	}
	if (r == 0)
		r = take_new(vm, &in, why, len);
	*lost = r < 0;
	incoming_drop(&in);
	(void)unlink(state);
	return r;
}

int lab_hv_qemu_snapshot(struct lab_vm *vm, const char *overlay, double *secs, char *why, size_t len)
{
	struct qmp q;
	uint64_t t0;
	int r = qmp_connect(&q, vm->ctl, VMOPS_QMP_MS);

	t0 = clock_ns();
	if (r == 0)
		r = qmp_execute(&q, "blockdev-snapshot-sync",
				json_pack("{s:s, s:s, s:s}", "device", VMOPS_DRIVE, "snapshot-file", overlay, "format",
					  "qcow2"),
				VMOPS_QMP_MS, NULL);
	if (r < 0)
		errf(why, len, r, "%s", q.err);
	else
		*secs = (double)(clock_ns() - t0) / NSEC_PER_SEC;
	qmp_close(&q);
	return r;
}

int lab_hv_qemu_commit(struct lab_vm *vm, double timeout_s, double *secs, char *why, size_t len)
{
	struct qmp q;
	uint64_t t0;
	int r = qmp_connect(&q, vm->ctl, VMOPS_QMP_MS);

	if (r < 0) {
		errf(why, len, r, "%s", q.err);
		qmp_close(&q);
		return r;
	}
	t0 = clock_ns();
	r = qmp_execute(&q, "block-commit", json_pack("{s:s, s:s}", "device", VMOPS_DRIVE, "job-id", VMOPS_COMMIT_JOB),
			VMOPS_QMP_MS, NULL);
	if (r < 0)
		errf(why, len, r, "%s", q.err);
	else
		r = await_commit(&q, timeout_s, t0, why, len);
	if (r == 0)
		*secs = (double)(clock_ns() - t0) / NSEC_PER_SEC;
	qmp_close(&q);
	return r;
}

int lab_hv_qemu_savevm(struct lab_vm *vm, const char *tag, double *save_s, double *load_s, char *why, size_t len)
{
	struct qmp q;
	char line[128];
	double del;
	int r = qmp_connect(&q, vm->ctl, VMOPS_QMP_MS);

	if (r < 0) {
		errf(why, len, r, "%s", q.err);
		qmp_close(&q);
		return r;
	}
	snprintf(line, sizeof(line), "savevm %s", tag);
	r = hmp(&q, line, save_s, why, len);
	if (r == 1 && strstr(why, "does not support snapshots")) {
		qmp_close(&q);
		return -EOPNOTSUPP;
	}
	if (r == 0) {
		snprintf(line, sizeof(line), "loadvm %s", tag);
		r = hmp(&q, line, load_s, why, len);
	}
	if (r == 0) {
		snprintf(line, sizeof(line), "delvm %s", tag);
		(void)hmp(&q, line, &del, why, len);
	}
	qmp_close(&q);
	return r == 1 ? -EIO : r;
}
