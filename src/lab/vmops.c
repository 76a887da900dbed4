/* The vmops suite, measured by the host through QMP (vmops.h). */
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "vmops.h"
#include "balloon.h"
#include "hostsuite.h"
#include "procs.h"
#include "qemuproc.h"
#include "qmp.h"
#include "../core/clock.h"
#include "../core/result.h"
#include "../core/stop.h"
#include "../core/str.h"
#include "../suites/vmops.h"
#include "../core/banned.h"

#define VMOPS_QMP_MS 10000   /* a QMP command's bound */
#define VMOPS_POLL_MS 100    /* the longest wait between two looks at a migration (its events end it sooner) */
#define VMOPS_START_MS 10000 /* a new QEMU makes its QMP and agent sockets */
#define VMOPS_QUIT_MS 10000  /* the QEMU left behind exits after quit */
#define VMOPS_DRAIN_MS 2000  /* what the old agent socket still holds, read */
#define VMOPS_AGENT_MS 10000 /* the agent's answer in the QEMU the guest ends in */
#define VMOPS_TOKEN "vmops-check"
/* the scratch disk's drive, as the disk back ends name it (-drive id=d0) */
#define VMOPS_DRIVE "d0"
#define VMOPS_COMMIT_JOB "vmops-commit"
/* bandwidth 0, "none": QMP max-bandwidth of 1 TiB/s, as QEMU's own default is 128 MiB/s */
#define VMOPS_UNLIMITED (1ull << 40)

static const char *const set_names[2][4] = {
	{ "qmp.sock", "agent.sock", "console.log", "qemu.log" },
	{ "qmp-b.sock", "agent-b.sock", "console-b.log", "qemu-b.log" },
};

/* The loads a migration runs under: what the guest runs meanwhile (NULL:
 * nothing), the prefix of its figures beside, how long after its first
 * case began the migration starts (mem's arrays written at least once, as
 * its steady state), and what makes the run longer. */
enum { LOAD_IDLE, LOAD_MEM, LOAD_CLOCK, NLOADS };
static const struct vmops_load {
	const char *name, *run, *prefix, *longer;
	unsigned delay_ms;
} loads[NLOADS] = {
	[LOAD_IDLE] = { "idle", NULL, NULL, NULL, 0 },
	[LOAD_MEM] = { "mem", VMOPS_LOAD, VMOPS_LOAD_PREFIX, "--mem.ntimes, --mem.array-size", 1000 },
	[LOAD_CLOCK] = { "clock", VMOPS_CLOCK, VMOPS_CLOCK_PREFIX, "--time", 0 },
};

struct vmops_opts {
	bool pre, post, load[NLOADS];
	uint64_t bandwidth;
	unsigned postcopy_after; /* pre-copy passes before the switch */
	double timeout_s;
};

/* One migration's figures (-1: not measured), or a save and restore's. */
struct fig {
	double total, downtime, setup, ram, dirty, passes, postcopy, agent;
	double save, state, restore, resume;
	double create, overlay, commit;
	double savevm, loadvm;
};

static const char *opt_default(const char *name)
{
	for (const struct vmb_opt *o = vmops_suite.opts; o && o->name; o++)
		if (!strcmp(o->name, name))
			return o->def;
	return "";
}

/* The lab run's vmops options (checked by their rows already), the rows'
 * defaults where not given. */
static int read_opts(const json_t *run_opts, struct vmops_opts *o, char *why, size_t len)
{
	const json_t *bw = json_object_get(run_opts, "vmops.bandwidth"), *to = json_object_get(run_opts, "vmops.timeout");
	const json_t *pa = json_object_get(run_opts, "vmops.postcopy-after");
	const char *mode = json_string_value(json_object_get(run_opts, "vmops.mode")) ?: opt_default("mode");
	const char *load = json_string_value(json_object_get(run_opts, "vmops.load")) ?: opt_default("load");

	o->pre = !strcmp(mode, "precopy") || !strcmp(mode, "both");
	o->post = !strcmp(mode, "postcopy") || !strcmp(mode, "both");
	for (int k = 0; k < NLOADS; k++)
		o->load[k] = !strcmp(load, loads[k].name) || !strcmp(load, "all") || (k < LOAD_CLOCK && !strcmp(load, "both"));
	o->bandwidth = json_is_integer(bw) ? (uint64_t)json_integer_value(bw) : 0;
	o->postcopy_after = json_is_integer(pa) ? (unsigned)json_integer_value(pa)
						  : (unsigned)strtoul(opt_default("postcopy-after"), NULL, 10);
	o->timeout_s = json_is_number(to) ? json_number_value(to) : strtod(opt_default("timeout"), NULL);
	if ((!o->pre && !o->post) || (!o->load[LOAD_IDLE] && !o->load[LOAD_MEM] && !o->load[LOAD_CLOCK]) ||
	    !(o->timeout_s >= 1) || o->postcopy_after > 100)
		return errf(why, len, -EINVAL, "--vmops.mode is precopy, postcopy or both; --vmops.load idle, mem, clock, "
			    "both or all; --vmops.timeout at least 1 s");
	return 0;
}

const char *lab_vmops_unsupported(const struct lab_config *c, const struct lab_paths *p)
{
	const struct lab_backend *nic = lab_config_device(c, LAB_NIC) ? lab_backend_of(p, LAB_NIC) : NULL;

	if (lab_config_device(c, LAB_SHARE))
		return "a share's device (its host daemon or directory) does not move with the guest to a second QEMU: "
		       "give share=none to migrate or restore the guest";
	if (nic && nic->child)
		return "the NIC's tap lives in a network namespace of the first QEMU's own, which a second QEMU "
		       "cannot share: give nic=none to migrate or restore the guest";
	return NULL;
}

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
	for (int i = 0; i < 4; i++) {
		snprintf(names[i], 200, "%s/%s", vm->dir, set_names[in->set][i]);
		/* the QEMU that had these names is gone */
		(void)unlink(names[i]);
	}
	p.qmp_socket = in->qmp;
	p.agent_socket = in->agent;
	p.console_log = in->console;
	r = lab_qemu_argv(vm->c, &p, &argv, why, len);
	if (r == 0)
		r = strv_push(&argv, "-incoming");
	if (r == 0)
		r = strv_push(&argv, "defer");
	if (r == 0 && paused)
		r = strv_push(&argv, "-S");
	if (r == 0)
		r = lab_spawn(vm->c, &p, &argv, in->log, &in->pid);
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

	if (qmp_connect(&q, vm->qmp, VMOPS_QMP_MS) == 0)
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
	char *names[4] = { vm->qmp, vm->agent, vm->console, vm->log };
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
	if (!strcmp(vm->c->v[LAB_PIN], "on"))
		r = lab_vcpu_threads(vm->qmp, true, NULL, why, len);
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

/* One live migration of the guest into a second QEMU; with check, the
 * agent is asked to answer there (*f's agent). *lost when the guest can
 * no longer be reached (a post-copy that failed after its switch, an
 * agent that does not answer): that ends the boot. */
static int migrate_once(struct lab_vm *vm, const struct vmops_opts *o, bool postcopy, bool check, struct fig *f,
			bool *lost, char *why, size_t len)
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
	r = qmp_connect(&src, vm->qmp, VMOPS_QMP_MS);
	if (r < 0)
		errf(why, len, r, "%s", src.err);
	if (r == 0)
		r = set_caps(&in.q, postcopy, why, len);
	if (r == 0)
		r = set_caps(&src, postcopy, why, len);
	if (r == 0 && (r = qmp_execute(&src, "migrate-set-parameters",
				       json_pack("{s:I}", "max-bandwidth",
						 (json_int_t)(o->bandwidth ? o->bandwidth : VMOPS_UNLIMITED)),
				       VMOPS_QMP_MS, NULL)) < 0)
		errf(why, len, r, "%s", src.err);
	if (r == 0 && (r = qmp_execute(&in.q, "migrate-incoming", json_pack("{s:s}", "uri", uri), VMOPS_QMP_MS, NULL)) < 0)
		errf(why, len, r, "%s", in.q.err);
	t0 = clock_ns();
	if (r == 0 && (r = qmp_execute(&src, "migrate", json_pack("{s:s}", "uri", uri), VMOPS_QMP_MS, NULL)) < 0)
		errf(why, len, r, "%s", src.err);
	if (r == 0) {
		r = await_migration(&src, o->timeout_s, true, postcopy ? (int)o->postcopy_after : -1, t0, &m, &t_done, &switched, why, len);
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
	*f = (struct fig){ .total = m.total_ms / 1e3, .downtime = m.downtime_ms / 1e3,
			   .setup = m.setup_ms >= 0 ? m.setup_ms / 1e3 : -1, .ram = m.transferred,
			   /* QEMU computes the rate once a second: a shorter migration has none */
			   .dirty = m.total_ms >= 1000 ? m.dirty_rate : -1, .passes = m.passes,
			   .postcopy = postcopy ? (m.postcopy_bytes >= 0 ? m.postcopy_bytes : 0) : -1, .agent = -1,
			   .save = -1, .state = -1, .restore = -1, .resume = -1, .create = -1, .overlay = -1, .commit = -1,
			   .savevm = -1, .loadvm = -1 };
	quit_old(vm);
	r = take_new(vm, &in, why, len);
	if (r == 0 && check) {
		r = proto_host_token(vm->conn, VMOPS_TOKEN, VMOPS_AGENT_MS);
		if (r < 0)
			errf(why, len, r, "the guest's agent did not answer in the destination QEMU: %s", vm->conn->err);
		else
			f->agent = (double)(clock_ns() - t_done) / NSEC_PER_SEC;
	}
	*lost = r < 0;
	incoming_drop(&in);
	return r;
}

/* Stop, save the state to a file, quit; a new QEMU restores it (paused),
 * resumed: the times, the state's size. Before the old QEMU quits, a
 * failure resumes the guest there; after, the guest is *lost. */
static int saverestore(struct lab_vm *vm, const struct vmops_opts *o, struct fig *f, bool *lost, char *why, size_t len)
{
	struct incoming in = { .fd = -1, .q = { .fd = -1 } };
	struct qmp src;
	struct qmp_migration m;
	struct stat st;
	char state[200], uri[240];
	uint64_t t0, t1, t2, t_done = 0;
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
	r = qmp_connect(&src, vm->qmp, VMOPS_QMP_MS);
	if (r < 0)
		errf(why, len, r, "%s", src.err);
	if (r == 0)
		r = set_caps(&src, false, why, len);
	if (r == 0 && (r = qmp_execute(&src, "migrate-set-parameters",
				       json_pack("{s:I}", "max-bandwidth",
						 (json_int_t)(o->bandwidth ? o->bandwidth : VMOPS_UNLIMITED)),
				       VMOPS_QMP_MS, NULL)) < 0)
		errf(why, len, r, "%s", src.err);
	t0 = clock_ns();
	if (r == 0 && (r = qmp_execute(&src, "stop", NULL, VMOPS_QMP_MS, NULL)) < 0)
		errf(why, len, r, "%s", src.err);
	if (r == 0 && (r = qmp_execute(&src, "migrate", json_pack("{s:s}", "uri", uri), VMOPS_QMP_MS, NULL)) < 0)
		errf(why, len, r, "%s", src.err);
	if (r == 0)
		r = await_migration(&src, o->timeout_s, false, -1, t0, &m, &t_done, &switched, why, len);
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
	*f = (struct fig){ .total = -1, .downtime = -1, .setup = -1, .ram = -1, .dirty = -1, .passes = -1,
			   .postcopy = -1, .agent = -1,
			   .save = (double)(t_done - t0) / NSEC_PER_SEC, .state = (double)st.st_size, .restore = -1,
			   .resume = -1, .create = -1, .overlay = -1, .commit = -1,
			   .savevm = -1, .loadvm = -1 };
	/* from here the guest is only in the file */
	quit_old(vm);
	*lost = true;
	t1 = clock_ns();
	r = incoming_start(vm, true, &in, why, len);
	snprintf(uri, sizeof(uri), "exec:cat '%s'", state);
	if (r == 0 && (r = qmp_execute(&in.q, "migrate-incoming", json_pack("{s:s}", "uri", uri), VMOPS_QMP_MS, NULL)) < 0)
		errf(why, len, r, "%s", in.q.err);
	if (r == 0)
		r = await_migration(&in.q, o->timeout_s, false, -1, t1, &m, &t_done, &switched, why, len);
	if (r == 0) {
		f->restore = (double)(t_done - t1) / NSEC_PER_SEC;
		t2 = clock_ns();
		r = qmp_execute(&in.q, "cont", NULL, VMOPS_QMP_MS, NULL);
		if (r < 0)
			errf(why, len, r, "%s", in.q.err);
	}
	if (r == 0)
		r = take_new(vm, &in, why, len);
	if (r == 0) {
		r = proto_host_token(vm->conn, VMOPS_TOKEN, VMOPS_AGENT_MS);
		if (r < 0)
			errf(why, len, r, "the guest's agent did not answer in the restored QEMU: %s", vm->conn->err);
		else
			f->resume = (double)(clock_ns() - t2) / NSEC_PER_SEC;
	}
	*lost = r < 0;
	incoming_drop(&in);
	(void)unlink(state);
	return r;
}

/* A migration under load: its delay after the first PROGRESS of the
 * guest's RUN of the load that has begun a case, in the protocol's
 * callback (the run
 * goes on meanwhile, and its later lines come from the destination). */
struct load {
	struct lab_vm *vm;
	const struct vmops_opts *o;
	unsigned delay_ms;
	bool postcopy, started, lost;
	int r;
	uint64_t t_run;
	double window[2]; /* the migration, seconds after the RUN */
	struct fig f;
	char why[512];
};

static void load_progress(void *arg, const struct proto_msg *m)
{
	struct load *l = arg;

	if (l->started || !m->ncases)
		return;
	l->started = true;
	/* the case's arrays written at least once, as its steady state: its
	 * lines meanwhile wait in the channel */
	nanosleep(&(struct timespec){ .tv_sec = l->delay_ms / 1000, .tv_nsec = (l->delay_ms % 1000) * 1000000L }, NULL);
	l->window[0] = (double)(clock_ns() - l->t_run) / NSEC_PER_SEC;
	l->r = migrate_once(l->vm, l->o, l->postcopy, false, &l->f, &l->lost, l->why, sizeof(l->why));
	l->window[1] = (double)(clock_ns() - l->t_run) / NSEC_PER_SEC;
}

static int note(struct vmb_suite_result *s, const char *key, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int note(struct vmb_suite_result *s, const char *key, const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	return vmb_params_add(&s->notes, &s->nnotes, key, buf);
}

/* A metric of one sample, when measured (v >= 0). */
static int add(struct vmb_case *c, const char *name, enum vmb_unit unit, bool headline, double v)
{
	struct vmb_metric *m;

	if (!(v >= 0))
		return 0;
	m = vmb_case_add_metric(c, name, unit, VMB_LOWER);
	if (!m || vmb_metric_push(m, v) < 0)
		return -ENOMEM;
	m->headline = headline;
	stats_summarize(m->samples, m->n, &m->sum);
	return 0;
}

static int add_fig(struct vmb_case *c, const struct fig *f)
{
	int r = 0;

	c->reps = 1;
	r = r ? r : add(c, VMOPS_TOTAL, VMB_UNIT_S, true, f->total);
	r = r ? r : add(c, VMOPS_DOWNTIME, VMB_UNIT_S, true, f->downtime);
	r = r ? r : add(c, VMOPS_SETUP, VMB_UNIT_S, false, f->setup);
	r = r ? r : add(c, VMOPS_RAM, VMB_UNIT_BYTES, false, f->ram);
	r = r ? r : add(c, VMOPS_DIRTY, VMB_UNIT_PER_S, false, f->dirty);
	r = r ? r : add(c, VMOPS_PASSES, VMB_UNIT_NONE, false, f->passes);
	r = r ? r : add(c, VMOPS_POSTCOPY, VMB_UNIT_BYTES, false, f->postcopy);
	r = r ? r : add(c, VMOPS_AGENT, VMB_UNIT_S, false, f->agent);
	r = r ? r : add(c, VMOPS_SAVE, VMB_UNIT_S, true, f->save);
	r = r ? r : add(c, VMOPS_STATE, VMB_UNIT_BYTES, false, f->state);
	r = r ? r : add(c, VMOPS_RESTORE, VMB_UNIT_S, true, f->restore);
	r = r ? r : add(c, VMOPS_RESUME, VMB_UNIT_S, false, f->resume);
	r = r ? r : add(c, VMOPS_CREATE, VMB_UNIT_S, true, f->create);
	r = r ? r : add(c, VMOPS_OVERLAY, VMB_UNIT_BYTES, false, f->overlay);
	r = r ? r : add(c, VMOPS_COMMIT, VMB_UNIT_S, true, f->commit);
	r = r ? r : add(c, VMOPS_SAVEVM, VMB_UNIT_S, true, f->savevm);
	r = r ? r : add(c, VMOPS_LOADVM, VMB_UNIT_S, true, f->loadvm);
	return r;
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

/* The guest's RUN of VMOPS_WRITE: *doc, or why (1: a failed test, the
 * guest's ERROR) or a negative errno in err (its channel broken). */
static int write_run(struct lab_vmops *v, json_t **doc, char *why, size_t len, char *err, size_t errlen)
{
	int r = proto_host_run(v->vm->conn, VMOPS_WRITE, v->write_opts, v->fp, 120000, 3600000, doc);

	if (r == -EIO) {
		errf(why, len, r, "the guest's %s: %s", VMOPS_WRITE, v->vm->conn->err);
		return 1;
	}
	return r < 0 ? errf(err, errlen, r, "vmops.snapshot, the guest's %s: %s", VMOPS_WRITE, v->vm->conn->err) : 0;
}

/* The snapshot test into c: VMOPS_WRITE, blockdev-snapshot-sync of the
 * scratch disk's drive to a new qcow2 overlay, VMOPS_WRITE again (its
 * first write to each cluster copies it up), block-commit back into the
 * image. 1 with why for a failed test; a negative errno in err ends the
 * boot. */
static int snapshot(struct lab_vmops *v, const struct vmops_opts *o, struct vmb_case *c, char *why, size_t len,
		    char *err, size_t errlen)
{
	struct fig f = { -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1 };
	json_t *before = NULL, *after = NULL;
	char overlay[200];
	struct qmp q;
	struct stat st;
	uint64_t t0;
	int r;

	snprintf(overlay, sizeof(overlay), "%s/snap.qcow2", v->vm->dir);
	(void)unlink(overlay);
	r = write_run(v, &before, why, len, err, errlen);
	if (r != 0)
		return r;
	r = qmp_connect(&q, v->vm->qmp, VMOPS_QMP_MS);
	t0 = clock_ns();
	if (r == 0)
		r = qmp_execute(&q, "blockdev-snapshot-sync",
				json_pack("{s:s, s:s, s:s}", "device", VMOPS_DRIVE, "snapshot-file", overlay, "format",
					  "qcow2"),
				VMOPS_QMP_MS, NULL);
	if (r < 0) {
		errf(why, len, r, "%s", q.err);
		qmp_close(&q);
		json_decref(before);
		return 1;
	}
	f.create = (double)(clock_ns() - t0) / NSEC_PER_SEC;
	qmp_close(&q);
	r = write_run(v, &after, why, len, err, errlen);
	if (r == 0 && stat(overlay, &st) == 0)
		f.overlay = (double)st.st_size;
	if (r == 0 && (r = qmp_connect(&q, v->vm->qmp, VMOPS_QMP_MS)) == 0) {
		t0 = clock_ns();
		r = qmp_execute(&q, "block-commit", json_pack("{s:s, s:s}", "device", VMOPS_DRIVE, "job-id",
							       VMOPS_COMMIT_JOB), VMOPS_QMP_MS, NULL);
		if (r < 0)
			errf(why, len, r, "%s", q.err);
		else
			r = await_commit(&q, o->timeout_s, t0, why, len);
		if (r == 0)
			f.commit = (double)(clock_ns() - t0) / NSEC_PER_SEC;
		r = r < 0 ? 1 : 0;
	} else if (r < 0) {
		errf(why, len, r, "%s", q.err);
		r = 1;
	}
	qmp_close(&q);
	/* committed, the overlay is no longer QEMU's; a failed one's stays until the work directory goes */
	if (r == 0)
		(void)unlink(overlay);
	c->reps = 1;
	if (r == 0 && (add_fig(c, &f) < 0 || lab_load_metrics(c, before, VMOPS_BEFORE_PREFIX) < 0 ||
		       lab_load_metrics(c, after, VMOPS_AFTER_PREFIX) < 0))
		r = errf(err, errlen, -ENOMEM, "out of memory");
	json_decref(before);
	json_decref(after);
	return r;
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

/* The savevm test into c: HMP savevm, loadvm of it, delvm, the agent's
 * answer after. 1 with why for a failed test, 2 for one QEMU cannot do
 * here (a disk or firmware store that is not qcow2: QEMU's words); a
 * negative errno in err ends the boot (the guest reverted and silent). */
static int savevm(struct lab_vmops *v, struct vmb_case *c, char *why, size_t len, char *err, size_t errlen)
{
	struct fig f = { -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1 };
	struct qmp q;
	double del;
	int r = qmp_connect(&q, v->vm->qmp, VMOPS_QMP_MS);

	if (r < 0) {
		errf(why, len, r, "%s", q.err);
		qmp_close(&q);
		return 1;
	}
	r = hmp(&q, "savevm " VMOPS_TOKEN, &f.savevm, why, len);
	if (r == 1 && strstr(why, "does not support snapshots")) {
		qmp_close(&q);
		return 2;
	}
	if (r == 0)
		r = hmp(&q, "loadvm " VMOPS_TOKEN, &f.loadvm, why, len);
	if (r == 0)
		(void)hmp(&q, "delvm " VMOPS_TOKEN, &del, why, len);
	qmp_close(&q);
	if (r < 0 || r == 1)
		return 1;
	why[0] = '\0';
	r = proto_host_token(v->vm->conn, VMOPS_TOKEN, VMOPS_AGENT_MS);
	if (r < 0)
		return errf(err, errlen, r, "vmops.savevm: the guest's agent did not answer after loadvm: %s",
			    v->vm->conn->err);
	c->reps = 1;
	return add_fig(c, &f) < 0 ? errf(err, errlen, -ENOMEM, "out of memory") : 0;
}

/* The largest of the clock loop's gaps (ns, a sample per repetition, one
 * of which spans the migration), seconds; -1 when the run has none. */
static double clock_pause(const json_t *doc)
{
	const json_t *cs = json_array_get(json_object_get(json_array_get(json_object_get(json_array_get(
					 json_object_get(doc, "suites"), 0), "tests"), 0), "cases"), 0), *mt, *v;
	double max = -1;
	size_t i, j;

	json_array_foreach(json_object_get(cs, "metrics"), i, mt)
		if (!strcmp(json_string_value(json_object_get(mt, "name")) ?: "", VMOPS_CLOCK_GAP) &&
		    !strcmp(json_string_value(json_object_get(mt, "unit")) ?: "", "ns"))
			json_array_foreach(json_object_get(mt, "samples"), j, v)
				if (json_is_number(v) && json_number_value(v) >= 0 && json_number_value(v) < 1e13 &&
				    json_number_value(v) / 1e9 > max)
					max = json_number_value(v) / 1e9;
	return max;
}

/* One case of the migrate test into c: the migration, idle or under a
 * load. 1 with why for a failed case; a negative errno in err ends the boot. */
static int migrate_case(struct lab_vmops *v, const struct vmops_opts *o, bool postcopy, int load,
			struct vmb_suite_result *s, struct vmb_case *c, char *why, size_t len, char *err, size_t errlen)
{
	const struct vmops_load *ld = &loads[load];
	struct lab_vm *vm = v->vm;
	char bw[32], after[16];
	struct fig f;
	bool lost = false;
	int r;

	snprintf(bw, sizeof(bw), "%llu", (unsigned long long)o->bandwidth);
	snprintf(after, sizeof(after), "%u", o->postcopy_after);
	if (vmb_params_add(&c->params, &c->nparams, "mode", postcopy ? "postcopy" : "precopy") < 0 ||
	    (postcopy && vmb_params_add(&c->params, &c->nparams, "postcopy-after", after) < 0) ||
	    vmb_params_add(&c->params, &c->nparams, "load", ld->name) < 0 ||
	    vmb_params_add(&c->params, &c->nparams, "bandwidth", bw) < 0)
		return errf(err, errlen, -ENOMEM, "out of memory");
	if (!ld->run) {
		r = migrate_once(vm, o, postcopy, true, &f, &lost, why, len);
		if (r < 0)
			return lost ? errf(err, errlen, r, "vmops.migrate: %s", why) : 1;
	} else {
		struct load l = { .vm = vm, .o = o, .delay_ms = ld->delay_ms, .postcopy = postcopy, .r = -EINPROGRESS };
		void (*was)(void *, const struct proto_msg *) = vm->conn->on_progress;
		void *was_arg = vm->conn->progress_arg;
		json_t *d = NULL;
		double ran;
		bool spanned;
		char key[64];

		vm->conn->on_progress = load_progress;
		vm->conn->progress_arg = &l;
		l.t_run = clock_ns();
		r = proto_host_run(vm->conn, ld->run, load == LOAD_MEM ? v->load_opts : v->clock_opts, v->fp, 120000,
				   3600000, &d);
		vm->conn->on_progress = was;
		vm->conn->progress_arg = was_arg;
		if (l.lost) {
			r = errf(err, errlen, l.r, "vmops.migrate: %s", l.why);
		} else if (r < 0 && r != -EIO) {
			r = errf(err, errlen, r, "vmops.migrate, the guest's %s: %s", ld->run, vm->conn->err);
		} else {
			/* a failed case: why says it, the boot goes on */
			if (r < 0)
				errf(why, len, r, "the guest's %s: %s", ld->run, vm->conn->err);
			else if (!l.started)
				errf(why, len, -EINVAL, "the guest's %s ended before its first case was under way: give it "
				     "longer (%s)", ld->run, ld->longer);
			else if (l.r < 0)
				errf(why, len, l.r, "%s", l.why);
			r = r < 0 || !l.started || l.r < 0 ? 1 : 0;
		}
		ran = json_number_value(json_object_get(d, "duration_s"));
		/* the agent answers after its run in the destination too */
		if (r == 0 && l.started && (r = proto_host_token(vm->conn, VMOPS_TOKEN, VMOPS_AGENT_MS)) < 0)
			r = errf(err, errlen, r, "vmops.migrate: the guest's agent did not answer in the destination QEMU: %s",
				 vm->conn->err);
		f = l.f;
		if (r == 0)
			r = lab_load_metrics(c, d, ld->prefix) < 0 ? errf(err, errlen, -ENOMEM, "out of memory") : 0;
		snprintf(key, sizeof(key), "loaded_overlap_%s_%s", postcopy ? "postcopy" : "precopy", ld->name);
		/* the guest's run (its clock, which may lose up to the migration's
		 * length) against the migration's end (the host's, from the RUN) */
		spanned = ran + (f.total > 0 ? f.total : 0) >= l.window[1];
		if (r == 0 && !spanned &&
		    note(s, key, "the guest's %s ended about %.1f s before the migration did: give it longer (%s)%s",
			 ld->run, l.window[1] - ran, ld->longer,
			 load == LOAD_CLOCK ? "; no pause_s: its loop may not have spanned the switch" : "") < 0)
			r = errf(err, errlen, -ENOMEM, "out of memory");
		if (r == 0 && load == LOAD_CLOCK && spanned &&
		    add(c, VMOPS_PAUSE, VMB_UNIT_S, false, clock_pause(d)) < 0)
			r = errf(err, errlen, -ENOMEM, "out of memory");
		json_decref(d);
		if (r != 0)
			return r;
	}
	return add_fig(c, &f) < 0 ? errf(err, errlen, -ENOMEM, "out of memory") : 0;
}

/* The migrate test into t: a case for each mode and load asked, in that
 * order. The first failed case fails the test (the cases after it are not
 * run). */
static int migrate_test(struct lab_vmops *v, const struct vmops_opts *o, struct vmb_suite_result *s,
			struct vmb_test_result *t, char *err, size_t errlen)
{
	char why[600];

	t->cases = calloc(2 * NLOADS, sizeof(*t->cases));
	if (!t->cases)
		return errf(err, errlen, -ENOMEM, "out of memory");
	for (int k = 0; k < 2 * NLOADS; k++) {
		bool postcopy = k >= NLOADS;
		int load = k % NLOADS, r;

		if (!(postcopy ? o->post : o->pre) || !o->load[load])
			continue;
		why[0] = '\0';
		r = migrate_case(v, o, postcopy, load, s, &t->cases[t->ncases], why, sizeof(why), err, errlen);
		if (r == 0) {
			t->ncases++;
			continue;
		}
		/* a case without its figures is not stored */
		vmb_case_release(&t->cases[t->ncases]);
		if (r == 1) {
			/* Ctrl-C cut it short (its wait says "interrupted"): no failure */
			t->status = vmb_stop_requested() ? VMB_INTERRUPTED : VMB_FAILED;
			t->reason = xasprintf("%s, %s%s: %s", postcopy ? "post-copy" : "pre-copy", loads[load].run ? "under " : "",
					       loads[load].run ? loads[load].run : "idle", why);
			return t->reason ? 0 : errf(err, errlen, -ENOMEM, "out of memory");
		}
		if (r < 0)
			return r;
	}
	return 0;
}

int lab_vmops_measure(struct lab_vmops *v, json_t **suite, char *err, size_t errlen)
{
	struct vmb_results res;
	struct vmb_suite_result *s;
	struct vmops_opts o;
	char why[600];
	int r = lab_host_suite_begin(&res, &vmops_suite, 4, &s);

	if (r < 0)
		return errf(err, errlen, r, "out of memory");
	if (read_opts(v->run_opts, &o, why, sizeof(why)) < 0) {
		vmb_results_release(&res);
		return errf(err, errlen, -EINVAL, "%s", why);
	}
	r = o.bandwidth ? note(s, "bandwidth_limit", "%llu B/s (--vmops.bandwidth)", (unsigned long long)o.bandwidth)
			: note(s, "bandwidth_limit", "none (QMP max-bandwidth 1 TiB/s)");
	for (size_t i = 0; r == 0 && i < 4; i++) {
		struct vmb_test_result *t = &s->tests[s->ntests];
		const bool asked[4] = { v->migrate, v->saverestore, v->snapshot, v->savevm };

		if (!asked[i])
			continue;
		s->ntests++;
		t->name = xstrdup(vmops_suite.tests[i].name);
		if (!t->name) {
			r = -ENOMEM;
		} else if (vmb_stop_requested()) {
			/* after Ctrl-C what is left is not begun (the lab stores what
			 * the boot measured, as interrupted, not failed) */
			t->status = VMB_INTERRUPTED;
			t->reason = xstrdup("interrupted");
			r = t->reason ? 0 : -ENOMEM;
		} else if (i < 2 && v->no_move) {
			/* migrate and saverestore move the guest to another QEMU */
			t->status = VMB_SKIPPED;
			t->reason = xstrdup(v->no_move);
			r = t->reason ? 0 : -ENOMEM;
		} else if (!i) {
			r = migrate_test(v, &o, s, t, err, errlen);
			if (r < 0) {
				vmb_results_release(&res);
				return r;
			}
		} else if (i >= 2) {
			t->cases = calloc(1, sizeof(*t->cases));
			if (!t->cases) {
				r = -ENOMEM;
				break;
			}
			why[0] = '\0';
			r = i == 2 ? snapshot(v, &o, t->cases, why, sizeof(why), err, errlen)
				   : savevm(v, t->cases, why, sizeof(why), err, errlen);
			if (r < 0) {
				vmb_case_release(t->cases);
				vmb_results_release(&res);
				return r;
			}
			if (r == 1 || r == 2) {
				vmb_case_release(t->cases);
				t->status = r == 2 ? VMB_SKIPPED : vmb_stop_requested() ? VMB_INTERRUPTED : VMB_FAILED;
				t->reason = r == 2 ? xasprintf("QEMU cannot save this VM inside its disks (%s): give --disk-format "
							       "qcow2, and no firmware=uefi (its raw variable store)", why)
						   : xstrdup(why);
				r = t->reason ? 0 : -ENOMEM;
			} else {
				t->ncases = 1;
			}
		} else {
			struct fig f;
			bool lost = false;

			t->cases = calloc(1, sizeof(*t->cases));
			if (!t->cases) {
				r = -ENOMEM;
				break;
			}
			r = saverestore(v->vm, &o, &f, &lost, why, sizeof(why));
			if (r < 0 && lost) {
				vmb_results_release(&res);
				return errf(err, errlen, r, "vmops.saverestore: %s", why);
			}
			if (r < 0) {
				t->status = vmb_stop_requested() ? VMB_INTERRUPTED : VMB_FAILED;
				t->reason = xstrdup(why);
				r = t->reason ? 0 : -ENOMEM;
			} else {
				char bw[32];

				snprintf(bw, sizeof(bw), "%llu", (unsigned long long)o.bandwidth);
				t->ncases = 1;
				r = vmb_params_add(&t->cases->params, &t->cases->nparams, "bandwidth", bw);
				if (r == 0)
					r = add_fig(t->cases, &f);
			}
		}
	}
	if (r < 0) {
		vmb_results_release(&res);
		return errf(err, errlen, r, "out of memory measuring vmops");
	}
	*suite = lab_host_suite_end(&res);
	return *suite ? 0 : errf(err, errlen, -ENOMEM, "out of memory measuring vmops");
}
