/* The libvirt row's operations that move a guest (hv.h's migrate,
 * save_restore, savevm). The live migration: the session's domain moved
 * to the host of --migrate-to, or back, by libvirt's own call (virDomainMigrate3,
 * live, pre-copy, or post-copy switched by virDomainMigrateStartPostCopy
 * after the passes asked; over loopback when that host is this machine),
 * the destination written from the same configuration with the second
 * start's file names (the agent's socket, the console), the figures from
 * the completed job's statistics, the agent's channel switched to the
 * destination. libvirt migrates no domain marked AUTODESTROY, nor marks
 * one migrated in: with --migrate-to the domains start without it, the lab
 * destroys them on the exits it runs, and a kill -9 leaves them running
 * (said in --migrate-to's help). */
#include <errno.h>
#include <libvirt/libvirt.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "hv.h"
#include "hv_libvirt.h"
#include "qemu.h"
#include "../core/clock.h"
#include "../core/log.h"
#include "../core/str.h"
#include "../core/strv.h"
#include "proto_host.h"
#include "../core/banned.h"

#define LM_FUNCS(X)                                                                                          \
	X(virDomainMigrate3) X(virDomainGetJobStats) X(virDomainAbortJob) X(virDomainGetUUIDString)        \
	X(virTypedParamsGetULLong) X(virTypedParamsClear) X(virTypedParamsFree) X(virDomainSaveFlags)      \
	X(virDomainRestoreFlags) X(virDomainSnapshotCreateXML) X(virDomainRevertToSnapshot)                  \
	X(virDomainSnapshotDelete) X(virDomainSnapshotFree) X(virDomainMigrateStartPostCopy)

static struct {
#define LM_FIELD(f) __typeof__(f) *f;
	LM_FUNCS(LM_FIELD)
#undef LM_FIELD
	const char *missing;
} lm;

static pthread_once_t lm_once = PTHREAD_ONCE_INIT;

static void lm_load(void)
{
#define X(f)                                                                                                 \
	if (!lm.missing && !(lm.f = (__typeof__(f) *)lv_symbol(#f)))                                        \
		lm.missing = #f;
	LM_FUNCS(X)
#undef X
}

#define LM_CHANNEL_MS 10000 /* the destination's agent socket, after the move */
#define LM_DRAIN_MS 2000    /* what the old channel still holds, read */

/* A call of libvirt's that blocks until its job ends (virDomainMigrate3,
 * virDomainSaveFlags) in a thread of its own, so that it is bounded: at
 * the bound the job is aborted (virDomainAbortJob) and the call waited for */
struct lm_call {
	int (*fn)(struct lm_call *c); /* 0, or -1 with libvirt's error */
	virDomainPtr d, dd;
	virConnectPtr dconn;
	virTypedParameter params[4];
	int nparams;
	unsigned flags;
	const char *file;
	/* called every 20 ms while the job runs (NULL: none): a post-copy's switch */
	void (*tick)(struct lm_call *c);
	unsigned postcopy_after;
	bool switched;          /* the post-copy switch was made */
	double at_switch;       /* memory_processed then (bytes) */
	bool done;
	int r;
	char err[512];
	pthread_mutex_t mu;
	pthread_cond_t cv;
};

static int lm_do_migrate(struct lm_call *c)
{
	c->dd = lm.virDomainMigrate3(c->d, c->dconn, c->params, (unsigned)c->nparams, c->flags);
	return c->dd ? 0 : -1;
}

static int lm_do_save(struct lm_call *c)
{
	return lm.virDomainSaveFlags(c->d, c->file, NULL, 0);
}

static void *lm_thread(void *arg)
{
	struct lm_call *c = arg;
	int r = c->fn(c);

	pthread_mutex_lock(&c->mu);
	c->r = r;
	if (r < 0)
		snprintf(c->err, sizeof(c->err), "%s", lv_err());
	c->done = true;
	pthread_cond_broadcast(&c->cv);
	pthread_mutex_unlock(&c->mu);
	return NULL;
}

/* c->fn run within timeout_s: 0, -ETIMEDOUT (aborted, and it did not end
 * as it was), or -EIO with libvirt's words in why */
static int lm_bounded(struct lm_call *c, double timeout_s, const char *what, char *why, size_t len)
{
	struct timespec at;
	pthread_t th;

	if (pthread_create(&th, NULL, lm_thread, c) != 0)
		return errf(why, len, -EAGAIN, "no thread for the %s", what);
	clock_gettime(CLOCK_REALTIME, &at);
	at.tv_sec += (time_t)timeout_s;
	pthread_mutex_lock(&c->mu);
	for (;;) {
		struct timespec now, step;

		if (c->done)
			break;
		clock_gettime(CLOCK_REALTIME, &now);
		if (now.tv_sec > at.tv_sec || (now.tv_sec == at.tv_sec && now.tv_nsec >= at.tv_nsec))
			break;
		step = now;
		step.tv_nsec += 20000000;
		if (step.tv_nsec >= 1000000000)
			step.tv_sec++, step.tv_nsec -= 1000000000;
		(void)pthread_cond_timedwait(&c->cv, &c->mu, &step);
		if (!c->done && c->tick) {
			pthread_mutex_unlock(&c->mu);
			c->tick(c);
			pthread_mutex_lock(&c->mu);
		}
	}
	if (!c->done) {
		pthread_mutex_unlock(&c->mu);
		(void)lm.virDomainAbortJob(c->d);
		(void)pthread_join(th, NULL);
		/* unless it ended as it was aborted */
		return c->r < 0 ? errf(why, len, -ETIMEDOUT, "the %s was not done within %g s (--vmops.timeout)", what,
				      timeout_s) : 0;
	}
	pthread_mutex_unlock(&c->mu);
	(void)pthread_join(th, NULL);
	return c->r < 0 ? errf(why, len, -EIO, "%s", c->err) : 0;
}

static void lm_param(virTypedParameterPtr p, const char *field, int type, const char *s, unsigned long long ul)
{
	memset(p, 0, sizeof(*p));
	snprintf(p->field, sizeof(p->field), "%s", field);
	p->type = type;
	if (type == VIR_TYPED_PARAM_STRING)
		p->value.s = (char *)s; /* read only by libvirt */
	else
		p->value.ul = ul;
}

/* The destination's definition: the domain's own, with the other start's
 * files and the source's UUID (libvirt refuses another) */
static int lm_dest_xml(const struct lab_vm *vm, virDomainPtr d, unsigned set, char **xml, char *why, size_t len)
{
	struct lab_paths p = *vm->paths;
	char agent[4300], console[4300], uuid[VIR_UUID_STRING_BUFLEN], *at;
	struct strv def = { 0 };
	int r;

	snprintf(agent, sizeof(agent), "%s/%s", vm->dir, lab_hv_start_files[set][LAB_START_AGENT]);
	snprintf(console, sizeof(console), "%s/%s", vm->dir, lab_hv_start_files[set][LAB_START_CONSOLE]);
	p.agent_socket = agent;
	p.console_log = console;
	(void)unlink(agent);
	if (lm.virDomainGetUUIDString(d, uuid) < 0)
		return errf(why, len, -EIO, "the domain's UUID: %s", lv_err());
	r = vm->hv->define(vm->c, &p, false, false, &def, why, len); /* libvirt adds -incoming */
	if (r < 0)
		return r;
	at = def.n == 1 ? strstr(def.v[0], "</name>") : NULL;
	if (!at) {
		strv_clear(&def);
		return errf(why, len, -EPROTO, "the destination's definition has no <name>");
	}
	at += strlen("</name>");
	if (asprintf(xml, "%.*s\n  <uuid>%s</uuid>%s", (int)(at - def.v[0]), def.v[0], uuid, at) < 0)
		r = errf(why, len, -ENOMEM, "out of memory");
	strv_clear(&def);
	return r;
}

/* The completed job's figures, as the destination keeps them */
static void lm_figures(virDomainPtr dd, struct lab_hv_moved *out)
{
	virTypedParameterPtr p = NULL;
	int n = 0, type = 0;
	unsigned long long v;

	if (lm.virDomainGetJobStats(dd, &type, &p, &n, VIR_DOMAIN_JOB_STATS_COMPLETED) < 0)
		return;
#define GET(field, to)                                                                                       \
	if (lm.virTypedParamsGetULLong(p, n, field, &v) == 1)                                             \
		to = (double)v;
	GET(VIR_DOMAIN_JOB_TIME_ELAPSED, out->total_ms)
	GET(VIR_DOMAIN_JOB_DOWNTIME, out->downtime_ms)
	GET(VIR_DOMAIN_JOB_SETUP_TIME, out->setup_ms)
	GET(VIR_DOMAIN_JOB_MEMORY_PROCESSED, out->transferred)
	GET(VIR_DOMAIN_JOB_MEMORY_DIRTY_RATE, out->dirty_rate)
	GET(VIR_DOMAIN_JOB_MEMORY_ITERATION, out->passes)
#undef GET
	lm.virTypedParamsFree(p, n);
}

/* The guest runs on the destination now: the agent's channel moves to its
 * socket with what the old one still held, the files are the other
 * start's; pin=on pins the destination's vCPUs as the boot did */
static int lm_take(struct lab_vm *vm, unsigned set, char *why, size_t len)
{
	uint64_t deadline = clock_ns() + (uint64_t)LM_CHANNEL_MS * NSEC_PER_MSEC;
	char agent[200];
	int fd = -1, r;

	snprintf(agent, sizeof(agent), "%s/%s", vm->dir, lab_hv_start_files[set][LAB_START_AGENT]);
	while ((r = lab_hv_unix_channel(agent, &fd)) == -ENOENT || r == -ECONNREFUSED) {
		if (clock_ns() > deadline)
			break;
		nanosleep(&(struct timespec){ .tv_nsec = 10000000 }, NULL);
	}
	if (r < 0)
		return errf(why, len, r, "the destination's agent channel %s: %s", agent, strerror(-r));
	r = proto_switch(vm->conn, fd, fd, LM_DRAIN_MS);
	if (vm->fd >= 0)
		close(vm->fd);
	vm->fd = fd;
	vm->set = set;
	snprintf(vm->agent, sizeof(vm->agent), "%s", agent);
	snprintf(vm->console, sizeof(vm->console), "%s/%s", vm->dir, lab_hv_start_files[set][LAB_START_CONSOLE]);
	snprintf(vm->log, sizeof(vm->log), "%s/%s", vm->dir, lab_hv_start_files[set][LAB_START_LOG]);
	if (r < 0)
		return errf(why, len, r, "the agent's channel: %s", vm->conn->err);
	if (vm->c->pin)
		r = lab_hv_vcpus(vm->hv, vm->ctl, true, NULL, why, len);
	return r;
}

/* A post-copy's switch: once the running job's pre-copy passes reach
 * postcopy_after (0: at once), virDomainMigrateStartPostCopy; what was
 * sent by then is kept, so that the bytes after it are the post-copy's */
static void lm_postcopy_tick(struct lm_call *c)
{
	virTypedParameterPtr p = NULL;
	unsigned long long passes = 0, sent = 0;
	int n = 0, type = 0;

	if (c->switched || lm.virDomainGetJobStats(c->d, &type, &p, &n, 0) < 0)
		return;
	(void)lm.virTypedParamsGetULLong(p, n, VIR_DOMAIN_JOB_MEMORY_ITERATION, &passes);
	(void)lm.virTypedParamsGetULLong(p, n, VIR_DOMAIN_JOB_MEMORY_PROCESSED, &sent);
	lm.virTypedParamsFree(p, n);
	if (type != VIR_DOMAIN_JOB_UNBOUNDED || passes < c->postcopy_after)
		return;
	if (lm.virDomainMigrateStartPostCopy(c->d, 0) == 0) {
		c->switched = true;
		c->at_switch = (double)sent;
	}
}

int lv_migrate(struct lab_vm *vm, const struct lab_hv_move *how, struct lab_hv_moved *out, bool *lost, char *why,
	       size_t len)
{
	struct lm_call c = { .mu = PTHREAD_MUTEX_INITIALIZER, .cv = PTHREAD_COND_INITIALIZER, .r = -1 };
	unsigned set = vm->set ? 0 : 1;
	char *xml = NULL, host[256];
	const char *to;
	bool back, here;
	uint64_t t0;
	int r = 0;

	*lost = false;
	(void)pthread_once(&lm_once, lm_load);
	if (lm.missing)
		return errf(why, len, -EOPNOTSUPP, "the libvirt here has no %s", lm.missing);
	if (!lv.dest)
		return errf(why, len, -EOPNOTSUPP, "libvirt migrates a domain to another host only: give that host's "
			    "URI with --migrate-to");
	/* to --migrate-to's host, or back from it */
	back = lv_conn_of(vm->ctl) == lv.dest;
	to = back ? lv.uri : lv.dest_uri;
	here = back ? lab_hv_uri_host(lv.uri, host, sizeof(host)) == 0 && !host[0] : lv.dest_here;
	c.d = lv_domain(vm->ctl, why, len);
	if (!c.d)
		return -EIO;
	r = lm_dest_xml(vm, c.d, set, &xml, why, len);
	c.dconn = back ? lv.conn : lv.dest;
	c.flags = VIR_MIGRATE_LIVE;
	if (how->postcopy) {
		c.flags |= VIR_MIGRATE_POSTCOPY;
		c.tick = lm_postcopy_tick;
		c.postcopy_after = how->postcopy_after;
	}
	lm_param(&c.params[c.nparams++], VIR_MIGRATE_PARAM_DEST_XML, VIR_TYPED_PARAM_STRING, xml, 0);
	/* this machine: over loopback, not the address its host name has; its
	 * disks are the same files there, which libvirt's check of shared
	 * storage (a network filesystem) does not know (VIR_MIGRATE_UNSAFE) */
	if (here) {
		c.flags |= VIR_MIGRATE_UNSAFE;
		lm_param(&c.params[c.nparams++], VIR_MIGRATE_PARAM_URI, VIR_TYPED_PARAM_STRING, "tcp://127.0.0.1", 0);
		lm_param(&c.params[c.nparams++], VIR_MIGRATE_PARAM_LISTEN_ADDRESS, VIR_TYPED_PARAM_STRING, "127.0.0.1",
			 0);
	}
	if (how->bandwidth)
		lm_param(&c.params[c.nparams++], VIR_MIGRATE_PARAM_BANDWIDTH, VIR_TYPED_PARAM_ULLONG, NULL,
			 how->bandwidth >> 20 ? how->bandwidth >> 20 : 1);
	t0 = clock_ns();
	c.fn = lm_do_migrate;
	if (r == 0 && (r = lm_bounded(&c, how->timeout_s, "migration", why, len)) == -EIO) {
		char said[512];

		snprintf(said, sizeof(said), "%s", why);
		/* QEMU's post-copy needs userfaultfd, which the daemon's QEMU user may not have */
		errf(why, len, r, "virDomainMigrate3 to %s: %s%s", to, said,
		     how->postcopy && strstr(said, "Postcopy is not supported")
			     ? " (QEMU's post-copy needs userfaultfd, which a daemon's QEMU running as a user of its own "
			       "has only with sysctl vm.unprivileged_userfaultfd=1)"
			     : "");
	}
	/* after the switch the guest ran on the destination: a failure loses it */
	*lost = r < 0 && c.switched;
	free(xml);
	lv_domain_free(c.d);
	if (r < 0)
		return r;
	out->t_done = clock_ns();
	out->total_ms = out->downtime_ms = out->setup_ms = out->transferred = out->dirty_rate = out->passes = -1;
	out->postcopy_bytes = -1;
	out->save_s = out->state_bytes = out->restore_s = -1;
	out->t_resume = 0;
	lm_figures(c.dd, out);
	lv_domain_free(c.dd);
	/* a post-copy that converged before its switch is a pre-copy: 0 bytes after it */
	if (how->postcopy)
		out->postcopy_bytes = c.switched && out->transferred >= c.at_switch ? out->transferred - c.at_switch : 0;
	if (out->total_ms < 0)
		out->total_ms = (double)(out->t_done - t0) / NSEC_PER_MSEC;
	/* from here the domain is the destination's: every call goes there */
	r = lv_set_moved(vm->ctl, !back);
	if (r < 0)
		r = errf(why, len, r, "more domains moved at once than the lab follows");
	/* the guest moved, and its figures are not there: none is made up */
	else if (out->downtime_ms < 0 || out->transferred < 0)
		r = errf(why, len, -EPROTO, "libvirt's completed migration job gave no downtime or memory_processed");
	if (r == 0)
		r = lm_take(vm, set, why, len);
	*lost = r < 0;
	return r;
}

/* Stopped and saved into a file of the work directory by libvirt
 * (virDomainSaveFlags: the transient domain is gone then), restored from
 * it running (virDomainRestoreFlags) with the second start's files, its
 * agent's channel switched. A restored domain is not AUTODESTROY (libvirt
 * has no such flag for a restore): the lab destroys it on its exits, and a
 * kill -9 of vmbench after the save leaves it running (said in the
 * suite's notes by lab run's help). Before the save is done a failure
 * leaves the guest where it was; after, the guest is *lost. */
int lv_save_restore(struct lab_vm *vm, const struct lab_hv_move *how, struct lab_hv_moved *out, bool *lost,
		    char *why, size_t len)
{
	struct lm_call c = { .mu = PTHREAD_MUTEX_INITIALIZER, .cv = PTHREAD_COND_INITIALIZER, .r = -1 };
	unsigned set = vm->set ? 0 : 1;
	char state[4300], *xml = NULL;
	struct stat st;
	uint64_t t0, t1;
	virConnectPtr conn = lv_conn_of(vm->ctl);
	int r;

	*lost = false;
	(void)pthread_once(&lm_once, lm_load);
	if (lm.missing)
		return errf(why, len, -EOPNOTSUPP, "the libvirt here has no %s", lm.missing);
	c.d = lv_domain(vm->ctl, why, len);
	if (!c.d)
		return -EIO;
	snprintf(state, sizeof(state), "%s/state.bin", vm->dir);
	(void)unlink(state);
	r = lm_dest_xml(vm, c.d, set, &xml, why, len);
	c.fn = lm_do_save;
	c.file = state;
	t0 = clock_ns();
	if (r == 0)
		r = lm_bounded(&c, how->timeout_s, "save", why, len);
	t1 = clock_ns();
	lv_domain_free(c.d);
	if (r == 0 && (stat(state, &st) < 0 || st.st_size <= 0))
		r = errf(why, len, -EIO, "libvirt saved no state into %s", state);
	if (r < 0) {
		free(xml);
		(void)unlink(state);
		return r;
	}
	out->total_ms = out->downtime_ms = out->setup_ms = out->transferred = out->dirty_rate = out->passes = -1;
	out->postcopy_bytes = -1;
	out->save_s = (double)(t1 - t0) / NSEC_PER_SEC;
	out->state_bytes = (double)st.st_size;
	/* from here the guest is only in the file */
	*lost = true;
	t1 = clock_ns();
	r = lm.virDomainRestoreFlags(conn, state, xml, VIR_DOMAIN_SAVE_RUNNING);
	free(xml);
	if (r < 0)
		r = errf(why, len, -EIO, "virDomainRestoreFlags: %s", lv_err());
	if (r == 0) {
		out->t_resume = clock_ns();
		out->restore_s = (double)(out->t_resume - t1) / NSEC_PER_SEC;
		out->t_done = out->t_resume;
		r = lm_take(vm, set, why, len);
	}
	*lost = r < 0;
	(void)unlink(state);
	return r;
}

/* The whole VM saved inside its disks (libvirt's internal snapshot of a
 * running domain, kept as the domain's snapshot so that it can be reverted
 * to), reverted to running, deleted: each call timed. -EOPNOTSUPP with
 * libvirt's words when a disk cannot hold it (not qcow2). */
int lv_savevm(struct lab_vm *vm, const char *tag, double *save_s, double *load_s, char *why, size_t len)
{
	virDomainPtr d;
	virDomainSnapshotPtr snap;
	char xml[200];
	uint64_t t0;
	int r = 0;

	(void)pthread_once(&lm_once, lm_load);
	if (lm.missing)
		return errf(why, len, -EOPNOTSUPP, "the libvirt here has no %s", lm.missing);
	d = lv_domain(vm->ctl, why, len);
	if (!d)
		return -EIO;
	snprintf(xml, sizeof(xml), "<domainsnapshot><name>%s</name></domainsnapshot>", tag);
	t0 = clock_ns();
	snap = lm.virDomainSnapshotCreateXML(d, xml, 0);
	*save_s = (double)(clock_ns() - t0) / NSEC_PER_SEC;
	if (!snap) {
		const char *said = lv_err();

		/* a disk that is not qcow2: libvirt says it cannot be snapshotted so */
		r = strstr(said, "unsupported") || strstr(said, "qcow2") ? -EOPNOTSUPP : -EIO;
		errf(why, len, r, "the internal snapshot: %s", said);
		lv_domain_free(d);
		return r;
	}
	t0 = clock_ns();
	if (lm.virDomainRevertToSnapshot(snap, VIR_DOMAIN_SNAPSHOT_REVERT_RUNNING) < 0)
		r = errf(why, len, -EIO, "reverting to the snapshot: %s", lv_err());
	*load_s = (double)(clock_ns() - t0) / NSEC_PER_SEC;
	/* libvirt may revert a running domain in a new QEMU of the same
	 * definition: the agent's channel is its socket's again */
	if (r == 0)
		r = lm_take(vm, vm->set, why, len);
	(void)lm.virDomainSnapshotDelete(snap, 0);
	lm.virDomainSnapshotFree(snap);
	lv_domain_free(d);
	return r;
}
