/* The libvirt row's connection (hv_libvirt.h): libvirt opened (dlopen)
 * and connected within --connect-timeout, its event loop in a thread of
 * its own with a keepalive and a close callback, and a daemon lost mid-run
 * (its connection closed, or silent past the keepalive) said once, the
 * domains it started ended where their QEMU is this machine's. */
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <libvirt/libvirt.h>
#include <libvirt/virterror.h>
#include <stdarg.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "hv.h"
#include "hv_libvirt.h"
#include "../core/clock.h"
#include "../core/log.h"
#include "../core/str.h"
#include "../core/util.h"
#include "../core/banned.h"

struct lv_api lv = { .mu = PTHREAD_MUTEX_INITIALIZER };

/* libvirt's errors are said by the lab with its own words, not printed by
 * libvirt's default handler */
static void lv_quiet(void *arg, virErrorPtr e)
{
	(void)arg;
	(void)e;
}

/* libvirt's own words on the calling thread's last error */
static const char *lv_raw_err(void)
{
	const char *m = lv.virGetLastErrorMessage ? lv.virGetLastErrorMessage() : NULL;

	return m && *m ? m : "no message";
}

bool lv_is_lost(void)
{
	bool lost;

	pthread_mutex_lock(&lv.mu);
	lost = lv.lost;
	pthread_mutex_unlock(&lv.mu);
	return lost;
}

/* The QEMU of domain d on this machine, left by a daemon that is gone (its
 * AUTODESTROY went with it): the process whose command line has both
 * -name guest=NAME and the kernel copied into the boot's work directory
 * (unique per boot, vmbench's own), killed; what else could it be, nothing
 * of anyone else's names both. Said either way. */
void lv_end_orphan(const struct lv_dom *d)
{
	char guest[220], path[64], buf[65536];
	size_t glen = (size_t)snprintf(guest, sizeof(guest), "guest=%s", d->name);
	DIR *proc = opendir("/proc");
	struct dirent *e;
	int found = 0, err = 0, pidfd = -1;

	while (proc && (e = readdir(proc))) {
		char *end;
		long pid = strtol(e->d_name, &end, 10);
		bool name = false, kernel = false;
		ssize_t n;
		int fd;

		if (*end || pid <= 1 || pid == (long)getpid())
			continue;
		/* the process held before its command line is read: a signal then
		 * goes to it, never to one that took its PID meanwhile (a kernel
		 * without pidfd_open, before 5.3: kill by PID) */
		if (pidfd >= 0)
			close(pidfd);
		pidfd = (int)syscall(SYS_pidfd_open, (pid_t)pid, 0);
		if (pidfd < 0 && errno != ENOSYS)
			continue;
		snprintf(path, sizeof(path), "/proc/%ld/cmdline", pid);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		n = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		if (n <= 0)
			continue;
		buf[n] = '\0';
		for (const char *a = buf, *prev = ""; a < buf + n; prev = a, a += strlen(a) + 1) {
			name |= !strcmp(prev, "-name") && !strncmp(a, guest, glen) && (a[glen] == ',' || !a[glen]);
			kernel |= !strcmp(a, d->kernel);
		}
		if (!name || !kernel)
			continue;
		found = (int)pid;
		if (pidfd >= 0)
			err = syscall(SYS_pidfd_send_signal, pidfd, SIGKILL, NULL, 0) < 0 ? errno : 0;
		else
			err = kill((pid_t)pid, SIGKILL) < 0 ? errno : 0;
	}
	if (pidfd >= 0)
		close(pidfd);
	if (proc)
		closedir(proc);
	if (found && !err)
		log_error("its domain %s was running here: ended (its QEMU, process %d)", d->name, found);
	else if (found)
		log_error("its domain %s is still running here: its QEMU (process %d) is not this user's to end (%s)",
			  d->name, found, strerror(err));
	else
		log_error("its domain %s may still be running on %s: 'virsh -c %s destroy %s' once the daemon is back",
			  d->name, lv.host, lv.uri, d->name);
}

/* The daemon lost: said once (how, in libvirt's terms), and the domains it
 * ran for this process ended here where their QEMU is a process of this
 * machine. Any thread (libvirt's event loop's close callback, or a call
 * that failed). */
void lv_lose(const char *how)
{
	struct lv_dom doms[sizeof(lv.doms) / sizeof(lv.doms[0])];

	pthread_mutex_lock(&lv.mu);
	if (lv.lost) {
		pthread_mutex_unlock(&lv.mu);
		return;
	}
	snprintf(lv.lost_why, sizeof(lv.lost_why), "the libvirt daemon at %s was lost: %s", lv.uri, how);
	lv.lost = true;
	memcpy(doms, lv.doms, sizeof(doms));
	pthread_mutex_unlock(&lv.mu);
	log_error("%s", lv.lost_why);
	for (size_t i = 0; i < sizeof(doms) / sizeof(doms[0]); i++)
		if (doms[i].name[0])
			lv_end_orphan(&doms[i]);
}

/* libvirt's words on the calling thread's last failure, kept: asking
 * whether the connection is alive resets libvirt's own */
static _Thread_local char lv_said[1024];

/* After a call that failed: true when the daemon is lost (the connection
 * is not alive any more), said once */
bool lv_gone(void)
{
	char how[1100];

	if (lv.virGetLastErrorCode() != VIR_ERR_OK)
		snprintf(lv_said, sizeof(lv_said), "%s", lv_raw_err());
	if (lv_is_lost())
		return true;
	if (!lv.conn || lv.virConnectIsAlive(lv.conn) != 0)
		return false;
	snprintf(how, sizeof(how), "the connection is closed (libvirt: %s)", *lv_said ? lv_said : "no message");
	lv_lose(how);
	return true;
}

/* What a call that failed says: libvirt's words, or that the daemon is lost */
const char *lv_err(void)
{
	return lv_gone() ? lv.lost_why : *lv_said ? lv_said : "no message";
}

void *lv_symbol(const char *name)
{
	return lv.h ? dlsym(lv.h, name) : NULL;
}

virDomainPtr lv_domain(const char *name, char *why, size_t len)
{
	virDomainPtr d = lv.conn ? lv_lookup(name) : NULL;

	if (!d)
		errf(why, len, -EIO, "the domain: %s", lv.conn ? lv_err() : "no libvirt connection");
	return d;
}

void lv_domain_free(virDomainPtr d)
{
	lv.virDomainFree(d);
}

const char *lv_error(void)
{
	return lv_err();
}

int lv_host_cpus(const char *name)
{
	virConnectPtr c = lv_conn_of(name);

	return c ? lv.virNodeGetCPUMap(c, NULL, NULL, 0) : -1;
}

/* libvirt's close callback, in its event loop's thread */
static void lv_closed(virConnectPtr c, int reason, void *opaque)
{
	char how[200];

	(void)c;
	(void)opaque;
	if (reason == VIR_CONNECT_CLOSE_REASON_CLIENT)
		return; /* ours */
	if (reason == VIR_CONNECT_CLOSE_REASON_KEEPALIVE)
		snprintf(how, sizeof(how), "it did not answer libvirt's keepalive for %d s (--connect-timeout)",
			 *(const int *)opaque);
	else
		snprintf(how, sizeof(how), "%s (libvirt's close reason %d)",
			 reason == VIR_CONNECT_CLOSE_REASON_EOF ? "it closed the connection: it ended or was restarted"
								: "the connection failed", reason);
	lv_lose(how);
}

/* libvirt's event loop, for the connection's life: it sees the daemon's
 * end at once (the close callback) and sends the keepalive that finds a
 * daemon that stopped answering, also during a call of the lab's */
static void *lv_events(void *arg)
{
	(void)arg;
	for (;;)
		if (lv.virEventRunDefaultImpl() < 0)
			nanosleep(&(struct timespec){ .tv_nsec = 100000000 }, NULL);
	return NULL;
}

/* fn in a detached thread with every signal blocked: the lab's handlers
 * (Ctrl-C, SIGTERM) stay the main thread's */
static int lv_thread(void *(*fn)(void *), void *arg)
{
	sigset_t all, old;
	pthread_t t;
	int r;

	sigfillset(&all);
	(void)pthread_sigmask(SIG_SETMASK, &all, &old);
	r = pthread_create(&t, NULL, fn, arg);
	(void)pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (r == 0)
		(void)pthread_detach(t);
	return -r;
}

/* virConnectOpen, which has no timeout (a daemon that takes the connection
 * and never answers holds it for ever), in a thread of its own, waited for
 * up to a deadline; a thread given up on closes what it gets and frees
 * this, the process goes on (and ends: the lab does not run without it) */
struct lv_opening {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	char *uri;
	virConnectPtr conn;
	char err[512];
	bool done, abandoned;
};

static void lv_opening_free(struct lv_opening *o)
{
	pthread_cond_destroy(&o->cv);
	pthread_mutex_destroy(&o->mu);
	free(o->uri);
	free(o);
}

static void *lv_opener(void *arg)
{
	struct lv_opening *o = arg;
	virConnectPtr c = lv.virConnectOpen(o->uri);
	bool abandoned;

	pthread_mutex_lock(&o->mu);
	if (!c)
		snprintf(o->err, sizeof(o->err), "%s", lv_raw_err()); /* libvirt's errors are per thread */
	o->conn = c;
	o->done = true;
	abandoned = o->abandoned;
	pthread_cond_signal(&o->cv);
	pthread_mutex_unlock(&o->mu);
	if (abandoned) {
		if (c)
			(void)lv.virConnectClose(c);
		lv_opening_free(o);
	}
	return NULL;
}

/* 0 with *conn, -ETIMEDOUT, or -ECONNREFUSED with libvirt's words in err */
static int lv_open_within(const char *uri, double timeout_s, virConnectPtr *conn, char *err, size_t len)
{
	struct lv_opening *o = calloc(1, sizeof(*o));
	pthread_condattr_t ca;
	struct timespec at;
	int r = 0;

	if (!o || !(o->uri = strdup(uri))) {
		free(o);
		return errf(err, len, -ENOMEM, "out of memory");
	}
	(void)pthread_condattr_init(&ca);
	(void)pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	(void)pthread_mutex_init(&o->mu, NULL);
	(void)pthread_cond_init(&o->cv, &ca);
	(void)pthread_condattr_destroy(&ca);
	r = lv_thread(lv_opener, o);
	if (r < 0) {
		lv_opening_free(o);
		return errf(err, len, r, "a thread for the connection: %s", strerror(-r));
	}
	clock_gettime(CLOCK_MONOTONIC, &at);
	at.tv_sec += (time_t)timeout_s;
	at.tv_nsec += (long)((timeout_s - (double)(time_t)timeout_s) * 1e9);
	if (at.tv_nsec >= 1000000000) {
		at.tv_sec++;
		at.tv_nsec -= 1000000000;
	}
	pthread_mutex_lock(&o->mu);
	while (!o->done && r != ETIMEDOUT)
		r = pthread_cond_timedwait(&o->cv, &o->mu, &at);
	if (!o->done) {
		o->abandoned = true; /* the thread frees it */
		pthread_mutex_unlock(&o->mu);
		return errf(err, len, -ETIMEDOUT, "the daemon took the connection but did not answer within %g s "
			    "(--connect-timeout)", timeout_s);
	}
	pthread_mutex_unlock(&o->mu);
	r = o->conn ? 0 : errf(err, len, -ECONNREFUSED, "%s", o->err);
	if (o->conn)
		*conn = o->conn;
	lv_opening_free(o);
	return r;
}

int lab_hv_libvirt_connect(const char *uri, double timeout_s, char *why, size_t len)
{
	/* the keepalive's interval and count: a daemon silent for about
	 * timeout_s is lost (virsh's 5 s x 6 for the default 30) */
	static int silent_s;
	int interval = timeout_s / 3 >= 1 ? (int)(timeout_s / 3 + 0.5) : 1, r;
	char *host;

	if (lv.conn)
		return 0;
	lv.h = dlopen("libvirt.so.0", RTLD_NOW | RTLD_LOCAL);
	if (!lv.h)
		return errf(why, len, -EOPNOTSUPP, "--connect needs libvirt.so.0, which is not installed here (Debian: "
			    "libvirt0)");
#define X(f)                                                                                                 \
	if (!(lv.f = (__typeof__(f) *)dlsym(lv.h, #f))) {                                                   \
		(void)dlclose(lv.h);                                                                         \
		lv.h = NULL;                                                                                 \
		return errf(why, len, -EOPNOTSUPP, "libvirt.so.0 has no " #f);                              \
	}
	LV_FUNCS(X)
#undef X
	lv.virSetErrorFunc(NULL, lv_quiet);
	lab_hv_uri_label(uri, lv.uri, sizeof(lv.uri)); /* as said: no query, no password */
	/* the event loop before the connection, which registers with it */
	if (lv.virEventRegisterDefaultImpl() < 0 || (r = lv_thread(lv_events, NULL)) < 0)
		return errf(why, len, -EIO, "libvirt's event loop: %s", lv_raw_err());
	r = lv_open_within(uri, timeout_s, &lv.conn, why, len);
	if (r < 0) {
		char said[600];

		snprintf(said, sizeof(said), "%s", why);
		errf(why, len, r == -ETIMEDOUT ? r : -ECONNREFUSED, "connecting to %s: %s", lv.uri, said);
		/* libvirt stays loaded: a thread given up on may be in it */
		return r == -ETIMEDOUT ? r : -ECONNREFUSED;
	}
	/* a daemon that stops answering found by libvirt's keepalive (not
	 * every driver has one: the in-process test:///default), its end by
	 * the close callback */
	silent_s = interval * 3;
	(void)lv.virConnectSetKeepAlive(lv.conn, interval, 2);
	(void)lv.virConnectRegisterCloseCallback(lv.conn, lv_closed, &silent_s, NULL);
	host = lv.virConnectGetHostname(lv.conn);
	snprintf(lv.host, sizeof(lv.host), "%s", host ? host : "unknown");
	free(host);
	lab_hv_set_default(&lab_hv_libvirt);
	/* a local daemon whose QEMU user cannot open /dev/kvm (no udev ran:
	 * root's alone) takes its cached QEMU capabilities for outdated, and
	 * probes QEMU again at every start: a minute a domain on this machine */
	{
		struct stat st;

		if (strstr(uri, ":///") && stat("/dev/kvm", &st) == 0 && S_ISCHR(st.st_mode) && !(st.st_mode & 0060))
			log_warn("/dev/kvm is root's alone (mode %03o): libvirt's QEMU cannot open it, and the daemon "
				 "probes QEMU again at every domain it starts (about a minute each on a machine like this); "
				 "Debian's udev gives it group kvm, mode 0660 (chgrp kvm /dev/kvm; chmod 660 /dev/kvm)",
				 (unsigned)(st.st_mode & 0777));
	}
	return 0;
}

int lab_hv_libvirt_migrate_to(const char *uri, double timeout_s, char *why, size_t len)
{
	char said[600];
	int r;

	if (!lv.conn)
		return errf(why, len, -EINVAL, "--migrate-to needs the guests through libvirt (--connect URI)");
	lab_hv_uri_label(uri, lv.dest_uri, sizeof(lv.dest_uri));
	r = lv_open_within(uri, timeout_s, &lv.dest, why, len);
	if (r < 0) {
		snprintf(said, sizeof(said), "%s", why);
		return errf(why, len, r == -ETIMEDOUT ? r : -ECONNREFUSED, "connecting to %s: %s", lv.dest_uri, said);
	}
	(void)lv.virConnectSetKeepAlive(lv.dest, timeout_s / 3 >= 1 ? (int)(timeout_s / 3 + 0.5) : 1, 2);
	/* a destination on this machine takes the guest over loopback */
	lv.dest_here = lab_hv_uri_host(uri, said, sizeof(said)) == 0 && !said[0];
	return 0;
}

virConnectPtr lv_conn_of(const char *name)
{
	virConnectPtr c = lv.conn;

	pthread_mutex_lock(&lv.mu);
	for (size_t i = 0; i < sizeof(lv.moved) / sizeof(lv.moved[0]); i++)
		if (lv.moved[i][0] && !strcmp(lv.moved[i], name))
			c = lv.dest;
	pthread_mutex_unlock(&lv.mu);
	return c;
}

int lv_set_moved(const char *name, bool moved)
{
	size_t n = sizeof(lv.moved) / sizeof(lv.moved[0]), i, free_at = n;
	int r = 0;

	pthread_mutex_lock(&lv.mu);
	for (i = 0; i < n && strcmp(lv.moved[i], name); i++)
		if (!lv.moved[i][0] && free_at == n)
			free_at = i;
	if (i < n && !moved)
		lv.moved[i][0] = '\0';
	else if (i == n && moved && free_at < n)
		snprintf(lv.moved[free_at], sizeof(lv.moved[free_at]), "%s", name);
	else if (i == n && moved)
		r = -ENOSPC;
	pthread_mutex_unlock(&lv.mu);
	return r;
}

virDomainPtr lv_lookup(const char *name)
{
	virConnectPtr c = lv_conn_of(name);

	return c ? lv.virDomainLookupByName(c, name) : NULL;
}

bool lab_hv_libvirt_lost(void)
{
	return lv.conn && lv_is_lost();
}

const char *lab_hv_libvirt_host(void)
{
	return lv.conn ? lv.host : NULL;
}

