/* The lab through libvirt (lab run --connect URI): the second row of the
 * hypervisor back ends (hv.h). define writes a domain from the same
 * configuration: the machine, CPU model and kernel command line as the
 * direct path's command line has them (qemu.c, one source), the scratch
 * disk's bus and controller from its device row's libvirt column
 * (matrix.h), vCPUs and memory from the keys; the serial console goes to
 * the boot's console file and the agent's virtio console to its socket,
 * as QEMU's own do, so that everything above the seam reads them alike.
 * Each domain is transient and started with VIR_DOMAIN_START_AUTODESTROY
 * on the session's one connection: if vmbench dies, even by kill -9, the
 * daemon destroys its domains when that connection drops. libvirt is
 * opened at run time (dlopen), as libpq is; built with its headers only
 * (HAVE_LIBVIRT). */
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
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "hv.h"
#include "hv_libvirt.h"
#include "qemu.h"
#include "../core/clock.h"
#include "../core/file.h"
#include "../core/log.h"
#include "../core/spawn.h"
#include "../core/stoppoint.h"
#include "../core/str.h"
#include "../core/util.h"
#include "../core/banned.h"


/* The guest's own resets as libvirt's reboot events report them (the
 * event loop's thread counts them; freed by libvirt once the callback is
 * deregistered, since an event may be under way then) */
struct lv_resets {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	unsigned n;  /* events since open */
	uint64_t t;  /* clock_ns at the last one's arrival */
};

struct lab_hv_mon {
	char name[200];
	struct lv_resets *resets; /* NULL: not registered (the driver has no such event) */
	int cb;                   /* the callback's id */
	virConnectPtr cbconn;     /* on the connection the domain ran on at open */
	unsigned long long shares_first; /* lv_mon_shares_first */
};

/* the image's kernel and initramfs, copied into the boot's work directory */
#define LV_KERNEL "lv-vmlinuz"
#define LV_INITRD "lv-initrd.img"

/* The domain's name: the work directory's own name, unique per boot */
static int lv_control(const char *dir, char *ctl, size_t len)
{
	const char *base = strrchr(dir, '/');

	return snprintf(ctl, len, "vmbench-%s", base ? base + 1 : dir) < (int)len ? 0 : -ENAMETOOLONG;
}

/* The value after opt in the direct path's command line */
static const char *arg_after(const struct strv *a, const char *opt, const char *has)
{
	for (size_t i = 0; i + 1 < a->n; i++)
		if (!strcmp(a->v[i], opt) && (!has || strstr(a->v[i + 1], has)))
			return a->v[i + 1];
	return NULL;
}

/* KEY=VALUE of QEMU's comma-separated option string s, into out ("" when
 * it has none): its ",," a comma of the path (lab_opt_get); 1 when the
 * value does not fit */
static int opt_of(const char *s, const char *key, char *out, size_t len)
{
	int r = lab_opt_get(s, key, out, len);

	if (r < 0)
		out[0] = '\0';
	return r == -ENAMETOOLONG;
}

/* text escaped for an XML attribute or element */
static void xml_put(char **buf, size_t *cap, size_t *off, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static void xml_put(char **buf, size_t *cap, size_t *off, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (!*buf)
		return;
	for (;;) {
		va_start(ap, fmt);
		n = vsnprintf(*buf + *off, *cap - *off, fmt, ap);
		va_end(ap);
		if (n < 0) {
			free(*buf);
			*buf = NULL;
			return;
		}
		if ((size_t)n < *cap - *off) {
			*off += (size_t)n;
			return;
		}
		char *b = realloc(*buf, *cap * 2 + (size_t)n);

		if (!b) {
			free(*buf);
			*buf = NULL;
			return;
		}
		*buf = b;
		*cap = *cap * 2 + (size_t)n;
	}
}

/* in escaped into out: 0, or -ENAMETOOLONG when it does not fit (never a
 * path cut short in the domain) */
/* The scratch disk's target in the domain, by its bus: what libvirt's
 * calls about the disk (snapshot, block commit) name it by */
static const char *lv_target(const char *bus)
{
	return !strcmp(bus, "virtio") ? "vda" : !strcmp(bus, "ide") ? "hda" : "sda";
}

static int xml_esc(const char *in, char *out, size_t len)
{
	size_t o = 0;

	for (; *in && o + 7 < len; in++) {
		const char *e = *in == '&' ? "&amp;" : *in == '<' ? "&lt;" : *in == '>' ? "&gt;" : *in == '\'' ? "&apos;"
			      : *in == '"' ? "&quot;" : NULL;

		if (e) {
			memcpy(out + o, e, strlen(e));
			o += strlen(e);
		} else {
			out[o++] = *in;
		}
	}
	out[o] = '\0';
	return *in ? -ENAMETOOLONG : 0;
}

/* Does the connection's QEMU run on another machine than this one? A URI
 * with no host (qemu:///system) is this machine's; one with a host is
 * when the daemon's host name is this machine's */
static bool lv_elsewhere(void)
{
	char host[256], here[256] = "";

	if (!lv.conn || lab_hv_uri_host(lv.uri, host, sizeof(host)) < 0 || !*host)
		return false;
	(void)gethostname(here, sizeof(here) - 1);
	return strcmp(lv.host, here) != 0;
}

/* What this back end cannot carry yet, with why; NULL when it can */
static const char *lv_refuse(const struct lab_config *c)
{
	const struct lab_device *disk = lab_config_device(c, LAB_DISK), *nic = lab_config_device(c, LAB_NIC);
	char a[64], b[64];

	if (nic && lv_elsewhere())
		return "a NIC on another host: the lab makes the guest's link (a tap, a network namespace of its own) on "
		       "this machine, where that host's QEMU cannot open it (nic=none)";
	if (nic && (c->nics > 1 || lab_config_queues(c) > 1))
		return "several NICs or queues on one: a tap and a veth per NIC, and a multi-queue tap, are not written "
		       "for a domain's link yet (nics=1 queues=1)";
	if (nic && lab_device_libvirt(nic, a, sizeof(a), b, sizeof(b)) < 0)
		return "this NIC model has no interface model in a libvirt domain";
	if (lab_config_image(c) && lab_config_image(c)->root)
		return "a distribution's image boots to its SSH server over a NIC (image=busybox)";
	if (c->share)
		return "a shared folder has no libvirt element here yet (share=none)";
	if (strcmp(c->v[LAB_FIRMWARE], "default"))
		return "a firmware of its own: only QEMU's default firmware is written yet (firmware=default)";
	if (c->boot && !c->boot->kernel)
		return "boot=cdrom: the domain starts the image's kernel (boot=kernel)";
	if (c->snapshot || !c->backend_file)
		return "a scratch disk of another back end than an image file (backend=file snapshot=off)";
	if (disk && lab_device_libvirt(disk, a, sizeof(a), b, sizeof(b)) < 0)
		return "this disk model has no element in a libvirt domain (libvirt 9.0 has no NVMe disk; EHCI's UHCI "
		       "companions are not written yet)";
	if (c->balloon && lab_device_libvirt(lab_device_find(LAB_BALLOON, "on"), a, sizeof(a), b, sizeof(b)) < 0)
		return "the balloon has no libvirt element";
	return NULL;
}

/* The tap back ends (qemu.h) a domain's interface sits on, by name, with
 * their <driver> element: the packets moved by QEMU itself, or by
 * vhost-net (libvirt's default for a virtio model where it can open
 * /dev/vhost-net, as QEMU's vhost=on; other models have no vhost). The
 * tap is the one the lab made for the boot (lablink.h), opened by name. */
static const struct {
	const char *backend, *driver;
} lv_nets[] = {
	{ "tap+vhost", "" },
	{ "tap", "      <driver name='qemu'/>\n" },
};

/* The interface's <driver> for the NIC's back end, or NULL with why */
static const char *lv_net_driver(const struct lab_paths *p, char *why, size_t len)
{
	const struct lab_backend *be = lab_backend_of(p, LAB_NIC);

	for (size_t i = 0; be && p->tap_name && i < ARRAY_SIZE(lv_nets); i++)
		if (!strcmp(lv_nets[i].backend, be->name))
			return lv_nets[i].driver;
	errf(why, len, -EOPNOTSUPP, "through libvirt, the NIC's back end %s has no link here: a tap by name, joined "
	     "to a network namespace of the lab's own, needs CAP_NET_ADMIN and /dev/net/tun", be ? be->name : "(none)");
	return NULL;
}

static int lv_define(const struct lab_config *c, const struct lab_paths *p, bool incoming, bool paused,
		     struct strv *def, char *why, size_t len)
{
	const struct lab_device *disk = lab_config_device(c, LAB_DISK);
	struct strv a = { 0 };
	const char *machine, *cpu, *append, *drive, *no = lv_refuse(c), *nic_driver = NULL;
	const struct lab_device *nic = lab_config_device(c, LAB_NIC);
	char name[200], bus[64], ctrl[64], file[1024], fmt[32], cache[32], e1[2048], e2[2048], e3[2048];
	size_t cap = 4096, off = 0;
	char *x;
	int r, cut = 0;

	if (incoming || paused)
		return errf(why, len, -EOPNOTSUPP, "a start that waits for a guest moved in is not written for libvirt");
	if (no)
		return errf(why, len, -EOPNOTSUPP, "through libvirt, %s", no);
	if (nic && !(nic_driver = lv_net_driver(p, why, len)))
		return -EOPNOTSUPP;
	r = lab_qemu_argv(c, p, &a, why, len);
	if (r < 0)
		return r;
	machine = arg_after(&a, "-machine", NULL);
	cpu = arg_after(&a, "-cpu", NULL);
	append = arg_after(&a, "-append", NULL);
	drive = arg_after(&a, "-drive", "id=d0");
	if (!machine || !append || lv_control(p->work_dir, name, sizeof(name)) < 0) {
		strv_clear(&a);
		return errf(why, len, -EINVAL, "the direct command line lacks -machine or -append");
	}
	x = malloc(cap);
	xml_put(&x, &cap, &off, "<domain type='%s'>\n  <name>%s</name>\n", c->accel == LAB_ACCEL_KVM ? "kvm" : "qemu",
		name);
	xml_put(&x, &cap, &off, "  <memory unit='b'>%llu</memory>\n  <vcpu>%u</vcpu>\n",
		(unsigned long long)c->mem, c->smp);
	/* the copies lv_start puts in the work directory, where the daemon's
	 * QEMU (another user, libvirt-qemu on Debian) can read them */
	snprintf(file, sizeof(file), "%s/" LV_KERNEL, p->work_dir);
	cut |= xml_esc(file, e1, sizeof(e1));
	snprintf(file, sizeof(file), "%s/" LV_INITRD, p->work_dir);
	cut |= xml_esc(file, e2, sizeof(e2));
	cut |= xml_esc(append, e3, sizeof(e3));
	xml_put(&x, &cap, &off,
		"  <os>\n    <type arch='%s' machine='%s'>hvm</type>\n    <kernel>%s</kernel>\n    <initrd>%s</initrd>\n"
		"    <cmdline>%s</cmdline>\n  </os>\n",
		c->v[LAB_ARCH], machine, e1, e2, e3);
	/* the direct path's -cpu: max (TCG's), host, or a named model; the topology in it */
	if (cpu || c->topology[0]) {
		xml_put(&x, &cap, &off, "  <cpu mode='%s'%s>",
			!cpu ? "custom" : !strcmp(cpu, "max") ? "maximum" : !strcmp(cpu, "host") ? "host-passthrough"
												  : "custom",
			cpu && !strcmp(cpu, "max") ? " migratable='off'" : cpu && strcmp(cpu, "host") ? " match='exact'" : "");
		if (cpu && strcmp(cpu, "max") && strcmp(cpu, "host"))
			xml_put(&x, &cap, &off, "<model fallback='forbid'>%s</model>", cpu);
		if (c->topology[0])
			xml_put(&x, &cap, &off, "<topology sockets='%u' cores='%u' threads='%u'/>", c->topology[0],
				c->topology[1], c->topology[2]);
		xml_put(&x, &cap, &off, "</cpu>\n");
	}
	xml_put(&x, &cap, &off, "  <on_poweroff>destroy</on_poweroff>\n  <on_reboot>restart</on_reboot>\n"
				"  <on_crash>destroy</on_crash>\n  <devices>\n");
	if (disk && drive) {
		cut |= opt_of(drive, "file", file, sizeof(file));
		cut |= opt_of(drive, "format", fmt, sizeof(fmt));
		cut |= opt_of(drive, "cache", cache, sizeof(cache));
		(void)lab_device_libvirt(disk, bus, sizeof(bus), ctrl, sizeof(ctrl));
		cut |= xml_esc(file, e1, sizeof(e1));
		if (*ctrl)
			xml_put(&x, &cap, &off, "    <controller type='%s' model='%s'/>\n", bus, ctrl);
		xml_put(&x, &cap, &off,
			"    <disk type='file' device='disk'>\n      <driver name='qemu' type='%s'%s%s%s/>\n"
			"      <source file='%s'/>\n      <target dev='%s' bus='%s'/>\n    </disk>\n",
			*fmt ? fmt : "raw", *cache ? " cache='" : "", cache, *cache ? "'" : "", e1,
			lv_target(bus), bus);
	}
	if (!disk || !strstr(disk->libvirt ? disk->libvirt : "", "bus=usb"))
		xml_put(&x, &cap, &off, "    <controller type='usb' model='none'/>\n");
	if (nic) {
		/* the model from its row's libvirt column, on the lab's tap, opened as it is */
		(void)lab_device_libvirt(nic, bus, sizeof(bus), ctrl, sizeof(ctrl));
		cut |= xml_esc(p->tap_name, e1, sizeof(e1));
		xml_put(&x, &cap, &off,
			"    <interface type='ethernet'>\n      <target dev='%s' managed='no'/>\n      <model type='%s'/>\n"
			"%s    </interface>\n",
			e1, bus, nic_driver);
	}
	cut |= xml_esc(p->console_log, e1, sizeof(e1));
	cut |= xml_esc(p->agent_socket, e2, sizeof(e2));
	xml_put(&x, &cap, &off,
		"    <serial type='file'>\n      <source path='%s'/>\n      <target port='0'/>\n    </serial>\n"
		"    <console type='unix'>\n      <source mode='bind' path='%s'/>\n      <target type='virtio' port='0'/>\n"
		"    </console>\n",
		e1, e2);
	if (c->balloon) {
		(void)lab_device_libvirt(lab_device_find(LAB_BALLOON, "on"), bus, sizeof(bus), ctrl, sizeof(ctrl));
		xml_put(&x, &cap, &off, "    <memballoon model='%s'/>\n", bus);
	} else {
		xml_put(&x, &cap, &off, "    <memballoon model='none'/>\n");
	}
	xml_put(&x, &cap, &off, "  </devices>\n</domain>\n");
	strv_clear(&a);
	if (x && cut) {
		free(x);
		return errf(why, len, -ENAMETOOLONG, "a path or the kernel's command line is too long for the domain's "
			    "definition (a shorter TMPDIR)");
	}
	if (!x)
		return errf(why, len, -ENOMEM, "out of memory");
	r = strv_push(def, x);
	free(x);
	return r < 0 ? errf(why, len, r, "out of memory") : 0;
}

/* src copied to the work directory's dst, readable by all */
static int lv_copy(const char *src, const char *dir, const char *dst)
{
	char to[4300];
	char *const argv[] = { "cp", "--", (char *)src, to, NULL };

	snprintf(to, sizeof(to), "%s/%s", dir, dst);
	if (run_capture("cp", argv, NULL, NULL) < 0)
		return -EIO;
	return chmod(to, 0644) < 0 ? -errno : 0;
}

/* The domain of work directory dir, started: remembered until destroyed,
 * for the daemon's loss (lv_lose); ended at once when it is lost already */
static void lv_remember(const char *dir)
{
	struct lv_dom d = { 0 };
	bool lost;

	if (lv_control(dir, d.name, sizeof(d.name)) < 0)
		return;
	snprintf(d.kernel, sizeof(d.kernel), "%s/" LV_KERNEL, dir);
	pthread_mutex_lock(&lv.mu);
	for (size_t i = 0; i < sizeof(lv.doms) / sizeof(lv.doms[0]); i++)
		if (!lv.doms[i].name[0]) {
			lv.doms[i] = d;
			break;
		}
	lost = lv.lost;
	pthread_mutex_unlock(&lv.mu);
	if (lost)
		lv_end_orphan(&d);
}

static void lv_forget(const char *name)
{
	pthread_mutex_lock(&lv.mu);
	for (size_t i = 0; i < sizeof(lv.doms) / sizeof(lv.doms[0]); i++)
		if (!strcmp(lv.doms[i].name, name))
			lv.doms[i].name[0] = '\0';
	pthread_mutex_unlock(&lv.mu);
}

/* Start the domain; the log gets the daemon's words on failure. No process
 * of the lab's: *pid 0 (the daemon's QEMU is its own, destroyed by name). */
static int lv_start(const struct lab_config *c, const struct lab_paths *p, const struct strv *def, const char *log,
		    pid_t *pid)
{
	virDomainPtr d;
	char line[1400];

	(void)c;
	(void)p;
	char bz[4300], dir[4200];
	const char *slash = strrchr(p->initrd, '/'), *said = "";
	int r;

	*pid = 0;
	if (!lv.conn || def->n != 1 || !slash)
		return -EINVAL;
	/* the image's bzImage (vmlinux, QEMU's PVH entry, is 8 times its size) */
	snprintf(dir, sizeof(dir), "%.*s", (int)(slash - p->initrd), p->initrd);
	snprintf(bz, sizeof(bz), "%s/vmlinuz", dir);
	r = lv_copy(bz, p->work_dir, LV_KERNEL);
	if (r == 0)
		r = lv_copy(p->initrd, p->work_dir, LV_INITRD);
	/* the directory crossed by the daemon's QEMU to its files (not listed) */
	if (r == 0 && chmod(p->work_dir, 0711) < 0)
		r = -errno;
	/* AUTODESTROY, but with --migrate-to: libvirt refuses to migrate a
	 * domain so marked (the lab destroys it on its own exits then) */
	d = r < 0 || lv_is_lost() ? NULL
				  : lv.virDomainCreateXML(lv.conn, def->v[0], lv.dest ? 0 : VIR_DOMAIN_START_AUTODESTROY);
	if (!d && r == 0 && (said = lv_err()) == lv.lost_why)
		snprintf(line, sizeof(line), "%s\n", said); /* the daemon lost: said so, not errno's words */
	else
		snprintf(line, sizeof(line), "libvirt %s: %s\n", lv.uri, d ? "domain started" : r < 0 ? "copying the "
			 "image's kernel and initramfs into the work directory failed" : said);
	(void)file_write_new(log, line, strlen(line));
	if (!d)
		return lv_is_lost() ? -ENOTCONN : -EIO;
	lv.virDomainFree(d);
	lv_remember(p->work_dir);
	vmb_test_stop_point("lab-libvirt-started"); /* tests lose the daemon here, its domain booting */
	return 0;
}

static int lv_channel(const char *agent, int *fd)
{
	return lv_is_lost() ? -ENOTCONN : lab_hv_unix_channel(agent, fd);
}

/* The domain's state as a word; "gone" when the daemon has it no more (a
 * transient domain that stopped); -ENOTCONN when the daemon is lost */
static int lv_state(const char *name, char *state, size_t slen, bool *final)
{
	static const char *const words[] = { "nostate", "running", "blocked", "paused", "shutdown", "shutoff",
					     "crashed", "pmsuspended" };
	virDomainPtr d = lv.conn && !lv_is_lost() ? lv_lookup(name) : NULL;
	int st = 0, reason = 0, r;

	if (!d && lv.conn && lv_gone())
		return -ENOTCONN;
	if (!d) {
		snprintf(state, slen, "gone");
		*final = true;
		return 0;
	}
	r = lv.virDomainGetState(d, &st, &reason, 0);
	lv.virDomainFree(d);
	if (r < 0)
		return lv_gone() ? -ENOTCONN : -EIO;
	snprintf(state, slen, "%s", st >= 0 && st < (int)(sizeof(words) / sizeof(words[0])) ? words[st] : "unknown");
	*final = st == VIR_DOMAIN_SHUTOFF || st == VIR_DOMAIN_CRASHED;
	return 0;
}

static int lv_exit_why(const struct lab_hv_exit *e, char *why, size_t len)
{
	char *text = NULL, *last;

	why[0] = '\0';
	/* the daemon lost (not a verdict on the accelerator) */
	if (lv_is_lost() && !e->accel_only) {
		snprintf(why, len, "%s", lv.lost_why);
		return e->status >= 0 ? -ECHILD : 1;
	}
	/* the daemon's words at the start, else the domain's state */
	if (read_file(e->log, &text) == 0 && strstr(text, "libvirt ") && !strstr(text, "domain started")) {
		/* its last line, without the newline that ends it */
		while (*text && text[strlen(text) - 1] == '\n')
			text[strlen(text) - 1] = '\0';
		last = strrchr(text, '\n');
		snprintf(why, len, "%s", last ? last + 1 : text);
		free(text);
		return e->status >= 0 ? -ECHILD : 1;
	}
	free(text);
	return e->status >= 0 ? errf(why, len, -ECHILD, "the domain stopped before the guest said HELLO") : 0;
}

static int lv_destroy(pid_t pid, const char *ctl, int grace_ms, int *status)
{
	uint64_t deadline = clock_ns() + (uint64_t)(grace_ms > 0 ? grace_ms : 0) * 1000000;
	char state[32];
	bool final = false;
	virDomainPtr d;

	(void)pid;
	if (status)
		*status = 0;
	if (!lv.conn)
		return 0;
	/* the guest powers off by itself (after BYE); the transient domain goes */
	while (lv_state(ctl, state, sizeof(state), &final) == 0 && !final && clock_ns() < deadline)
		nanosleep(&(struct timespec){ .tv_nsec = 20000000 }, NULL);
	/* the daemon lost: its domain ended here, or said to be left (lv_lose) */
	d = lv_is_lost() ? NULL : lv_lookup(ctl);
	if (!d) {
		(void)lv_gone();
		lv_forget(ctl);
		(void)lv_set_moved(ctl, false);
		return 0;
	}
	(void)lv.virDomainDestroy(d);
	lv.virDomainFree(d);
	lv_forget(ctl);
	(void)lv_set_moved(ctl, false);
	return final ? 0 : 1;
}

static int lv_reset_seen(virConnectPtr c, virDomainPtr d, void *opaque)
{
	struct lv_resets *rs = opaque;
	uint64_t now = clock_ns();

	(void)c;
	(void)d;
	(void)pthread_mutex_lock(&rs->mu);
	rs->n++;
	rs->t = now;
	(void)pthread_cond_broadcast(&rs->cv);
	(void)pthread_mutex_unlock(&rs->mu);
	return 0;
}

static void lv_resets_free(void *opaque)
{
	struct lv_resets *rs = opaque;

	(void)pthread_mutex_destroy(&rs->mu);
	(void)pthread_cond_destroy(&rs->cv);
	free(rs);
}

/* A connection about the domain ctl: its reboot events counted from now
 * on (registered before anything that may reset the guest is asked), so
 * that await_reset cannot miss one that comes before it waits */
static int lv_open(const char *ctl, int timeout_ms, struct lab_hv_mon **out, char *why, size_t len)
{
	struct lab_hv_mon *m;
	virDomainPtr d;

	(void)timeout_ms;
	if (!lv.conn)
		return errf(why, len, -ENOTCONN, "no libvirt connection");
	m = calloc(1, sizeof(*m));
	if (!m)
		return errf(why, len, -ENOMEM, "out of memory");
	snprintf(m->name, sizeof(m->name), "%s", ctl);
	m->cb = -1;
	d = lv_lookup(ctl);
	m->resets = d ? calloc(1, sizeof(*m->resets)) : NULL;
	if (m->resets) {
		(void)pthread_mutex_init(&m->resets->mu, NULL);
		(void)pthread_cond_init(&m->resets->cv, NULL);
		m->cbconn = lv_conn_of(ctl);
		m->cb = lv.virConnectDomainEventRegisterAny(m->cbconn, d, VIR_DOMAIN_EVENT_ID_REBOOT,
							  VIR_DOMAIN_EVENT_CALLBACK(lv_reset_seen), m->resets,
							  lv_resets_free);
		if (m->cb < 0) {
			lv_resets_free(m->resets);
			m->resets = NULL;
		}
	}
	if (d)
		lv.virDomainFree(d);
	*out = m;
	return 0;
}

/* The guest's own reset: a reboot event after open, waited for up to
 * timeout_ms; its time is the event's arrival here (libvirt's event carries
 * no timestamp: later than QEMU's reset by the daemon's relay) */
static int lv_await_reset(struct lab_hv_mon *m, int timeout_ms, uint64_t lo, uint64_t *t, char *why, size_t len)
{
	uint64_t deadline = clock_ns() + (uint64_t)(timeout_ms > 0 ? timeout_ms : 0) * NSEC_PER_MSEC;
	struct lv_resets *rs = m->resets;
	int r = 0;

	if (!rs)
		return errf(why, len, -EOPNOTSUPP, "libvirt at %s reports no reboot event for the domain", lv.uri);
	(void)pthread_mutex_lock(&rs->mu);
	/* a lost daemon sends nothing more: looked at every 50 ms */
	while (rs->n == 0 && clock_ns() < deadline && !lv_is_lost()) {
		struct timespec ts;

		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_nsec += 50000000;
		if (ts.tv_nsec >= 1000000000)
			ts.tv_sec++, ts.tv_nsec -= 1000000000;
		(void)pthread_cond_timedwait(&rs->cv, &rs->mu, &ts);
	}
	if (rs->n > 0) {
		*t = rs->t > lo ? rs->t : lo;
		rs->n = 0;
		r = 1;
	}
	(void)pthread_mutex_unlock(&rs->mu);
	if (r == 0 && lv_is_lost())
		r = errf(why, len, -ENOTCONN, "%s", lv_err());
	return r;
}

const char *lv_mon_name(const struct lab_hv_mon *m)
{
	return m->name;
}

unsigned long long *lv_mon_shares_first(struct lab_hv_mon *m)
{
	return &m->shares_first;
}

static void lv_close(struct lab_hv_mon *m)
{
	/* libvirt frees the counts (lv_resets_free) once no event can reach them */
	if (m->cb >= 0 && m->cbconn)
		(void)lv.virConnectDomainEventDeregisterAny(m->cbconn, m->cb);
	free(m);
}

static int lv_run_state(struct lab_hv_mon *m, char *state, size_t slen, bool *final, char *why, size_t len)
{
	int r = lv_state(m->name, state, slen, final);

	return r < 0 ? errf(why, len, r, "%s", r == -ENOTCONN ? lv.lost_why : lv_err()) : 0;
}

static int lv_reset(struct lab_hv_mon *m, char *why, size_t len)
{
	virDomainPtr d = lv_lookup(m->name);
	int r = d ? lv.virDomainReset(d, 0) : -1;

	if (d)
		lv.virDomainFree(d);
	return r < 0 ? errf(why, len, -EIO, "resetting the domain: %s", lv_err()) : 0;
}

/* The balloon through libvirt's own calls: the target
 * (virDomainSetMemoryFlags, live), and the guest's last report (the
 * actual-balloon figure of virDomainMemoryStats, which libvirt asks QEMU
 * for at each call) */
static int lv_balloon_set(struct lab_hv_mon *m, uint64_t bytes, char *why, size_t len)
{
	virDomainPtr d = lv_lookup(m->name);
	int r = d ? lv.virDomainSetMemoryFlags(d, (unsigned long)(bytes >> 10), VIR_DOMAIN_AFFECT_LIVE) : -1;

	if (d)
		lv.virDomainFree(d);
	return r < 0 ? errf(why, len, -EIO, "setting the balloon's target: %s", lv_err()) : 0;
}

static int lv_balloon_get(struct lab_hv_mon *m, uint64_t *bytes, char *why, size_t len)
{
	virDomainMemoryStatStruct st[VIR_DOMAIN_MEMORY_STAT_NR];
	virDomainPtr d = lv_lookup(m->name);
	int n = d ? lv.virDomainMemoryStats(d, st, VIR_DOMAIN_MEMORY_STAT_NR, 0) : -1;

	if (d)
		lv.virDomainFree(d);
	if (n < 0)
		return errf(why, len, -EIO, "reading the balloon: %s", lv_err());
	for (int i = 0; i < n; i++)
		if (st[i].tag == VIR_DOMAIN_MEMORY_STAT_ACTUAL_BALLOON) {
			*bytes = (uint64_t)st[i].val << 10; /* KiB */
			return 0;
		}
	return errf(why, len, -ENODATA, "libvirt reports no actual balloon size for the domain");
}

/* The guest's next report: without libvirt's event loop, its figure looked
 * at every 20 ms until it changes (1) or timeout_ms passes (0) */
static int lv_balloon_wait(struct lab_hv_mon *m, int timeout_ms, char *why, size_t len)
{
	uint64_t was = 0, now = 0, deadline = clock_ns() + (uint64_t)timeout_ms * NSEC_PER_MSEC;
	int r = lv_balloon_get(m, &was, why, len);

	while (r == 0 && clock_ns() < deadline) {
		nanosleep(&(struct timespec){ .tv_nsec = 20000000 }, NULL);
		r = lv_balloon_get(m, &now, why, len);
		if (r == 0 && now != was)
			return 1;
	}
	return r < 0 ? r : 0;
}

/* pin=on through libvirt's own call: vCPU i on the host's CPU i, round
 * robin over the CPUs the daemon's host has (virDomainPinVcpuFlags, live),
 * then read back (virDomainGetVcpuPinInfo): each vCPU on that one CPU, or
 * an error. libvirt names vCPUs, not QEMU's threads: tids is NULL. */
static int lv_pin(struct lab_hv_mon *m, const int *tids, size_t n, char *why, size_t len)
{
	virDomainPtr d = lv_lookup(m->name);
	unsigned char map[64], got[64 * 64];
	int nv, ncpu, r = 0;
	size_t maplen;

	(void)tids;
	(void)n;
	if (!d)
		return errf(why, len, -EIO, "the domain: %s", lv_err());
	nv = lv.virDomainGetVcpusFlags(d, VIR_DOMAIN_AFFECT_LIVE);
	ncpu = lv_host_cpus(m->name);
	if (nv < 1 || ncpu < 1)
		r = errf(why, len, -EIO, "counting the vCPUs and the host's CPUs: %s", lv_err());
	else if ((size_t)ncpu > sizeof(map) * 8 || nv > 64)
		r = errf(why, len, -E2BIG, "%d host CPUs and %d vCPUs: more than pinning here is written for", ncpu, nv);
	maplen = r == 0 ? (size_t)VIR_CPU_MAPLEN(ncpu) : 0;
	for (int i = 0; r == 0 && i < nv; i++) {
		memset(map, 0, sizeof(map));
		VIR_USE_CPU(map, i % ncpu);
		if (lv.virDomainPinVcpuFlags(d, (unsigned)i, map, (int)maplen, VIR_DOMAIN_AFFECT_LIVE) < 0)
			r = errf(why, len, -EIO, "pinning vCPU %d: %s", i, lv_err());
	}
	if (r == 0 && lv.virDomainGetVcpuPinInfo(d, nv, got, (int)maplen, VIR_DOMAIN_AFFECT_LIVE) < 0)
		r = errf(why, len, -EIO, "reading the pinning back: %s", lv_err());
	for (int i = 0; r == 0 && i < nv; i++)
		for (int cpu = 0; r == 0 && cpu < ncpu; cpu++)
			if ((VIR_CPU_USABLE(got, maplen, i, cpu) != 0) != (cpu == i % ncpu))
				r = errf(why, len, -EIO, "vCPU %d is %s host CPU %d after pinning it to CPU %d", i,
					 VIR_CPU_USABLE(got, maplen, i, cpu) ? "allowed on" : "not allowed on", cpu,
					 i % ncpu);
	lv.virDomainFree(d);
	return r;
}

/* The scratch disk's target of vm's configuration */
static const char *lv_vm_target(const struct lab_vm *vm)
{
	const struct lab_device *disk = lab_config_device(vm->c, LAB_DISK);
	char bus[64] = "", ctrl[64];

	if (disk)
		(void)lab_device_libvirt(disk, bus, sizeof(bus), ctrl, sizeof(ctrl));
	return lv_target(bus);
}

/* vmops' snapshot through libvirt's own call: an external, disk-only
 * snapshot of the scratch disk into overlay (qcow2, made by libvirt), no
 * metadata kept (the domain is transient) */
static int lv_snapshot(struct lab_vm *vm, const char *overlay, double *secs, char *why, size_t len)
{
	virDomainPtr d = lv_lookup(vm->ctl);
	virDomainSnapshotPtr snap;
	char xml[1400], eo[1100];
	uint64_t t0;

	if (!d)
		return errf(why, len, -EIO, "the domain: %s", lv_err());
	if (xml_esc(overlay, eo, sizeof(eo))) {
		lv.virDomainFree(d);
		return errf(why, len, -ENAMETOOLONG, "the overlay's path is too long for the snapshot's definition");
	}
	snprintf(xml, sizeof(xml),
		 "<domainsnapshot><disks><disk name='%s' snapshot='external'><driver type='qcow2'/>"
		 "<source file='%s'/></disk></disks></domainsnapshot>",
		 lv_vm_target(vm), eo);
	t0 = clock_ns();
	snap = lv.virDomainSnapshotCreateXML(d, xml,
					     VIR_DOMAIN_SNAPSHOT_CREATE_DISK_ONLY | VIR_DOMAIN_SNAPSHOT_CREATE_NO_METADATA |
						     VIR_DOMAIN_SNAPSHOT_CREATE_ATOMIC);
	*secs = (double)(clock_ns() - t0) / NSEC_PER_SEC;
	lv.virDomainFree(d);
	if (!snap)
		return errf(why, len, -EIO, "the disk-only snapshot: %s", lv_err());
	lv.virDomainSnapshotFree(snap);
	return 0;
}

/* vmops' commit: libvirt's active block commit of the overlay into its
 * base, waited for until it is ready (the job's cursor at its end), then
 * pivoted onto the base and waited for until the job is gone, all within
 * timeout_s */
static int lv_commit(struct lab_vm *vm, double timeout_s, double *secs, char *why, size_t len)
{
	virDomainPtr d = lv_lookup(vm->ctl);
	const char *disk = lv_vm_target(vm);
	uint64_t t0 = clock_ns(), deadline = t0 + (uint64_t)(timeout_s * NSEC_PER_SEC);
	virDomainBlockJobInfo info;
	bool pivoted = false;
	int r = 0, n;

	if (!d)
		return errf(why, len, -EIO, "the domain: %s", lv_err());
	if (lv.virDomainBlockCommit(d, disk, NULL, NULL, 0, VIR_DOMAIN_BLOCK_COMMIT_ACTIVE) < 0)
		r = errf(why, len, -EIO, "the block commit: %s", lv_err());
	while (r == 0) {
		n = lv.virDomainGetBlockJobInfo(d, disk, &info, 0);
		if (n < 0) {
			r = errf(why, len, -EIO, "the block commit's job: %s", lv_err());
			break;
		}
		if (n == 0) {
			/* no job: done once pivoted, else it ended before it was ready */
			if (!pivoted)
				r = errf(why, len, -EIO, "the block commit's job ended before it was ready");
			break;
		}
		if (!pivoted && info.end > 0 && info.cur == info.end) {
			if (lv.virDomainBlockJobAbort(d, disk, VIR_DOMAIN_BLOCK_JOB_ABORT_PIVOT) < 0) {
				r = errf(why, len, -EIO, "pivoting onto the base: %s", lv_err());
				break;
			}
			pivoted = true;
			continue;
		}
		if (clock_ns() > deadline) {
			(void)lv.virDomainBlockJobAbort(d, disk, 0);
			r = errf(why, len, -ETIMEDOUT, "the block commit was not done within %g s (--vmops.timeout)",
				 timeout_s);
			break;
		}
		nanosleep(&(struct timespec){ .tv_nsec = 10000000 }, NULL);
	}
	if (r == 0)
		*secs = (double)(clock_ns() - t0) / NSEC_PER_SEC;
	lv.virDomainFree(d);
	return r;
}

const struct lab_hv_ops lab_hv_libvirt = {
	.name = "libvirt",
	.summary = "a transient libvirt domain per boot, on the connection of --connect",
	.abi = LAB_HV_ABI,
	.link = LAB_HV_LINK_NAMED,
	.control = lv_control,
	.define = lv_define,
	.start = lv_start,
	.channel = lv_channel,
	.exit_why = lv_exit_why,
	.destroy = lv_destroy,
	.open = lv_open,
	.close = lv_close,
	.run_state = lv_run_state,
	.reset = lv_reset,
	.await_reset = lv_await_reset,
	.pin = lv_pin,
	.balloon_set = lv_balloon_set,
	.balloon_get = lv_balloon_get,
	.balloon_wait = lv_balloon_wait,
	.snapshot = lv_snapshot,
	.commit = lv_commit,
	.migrate = lv_migrate,
	.save_restore = lv_save_restore,
	.savevm = lv_savevm,
	.tune = lv_tune,
	.vcpu_stat = lv_vcpu_stat,
	.confine = lv_confine,
	.cannot = lv_refuse,
	.unsupported = (const struct lab_hv_unsupported[]){
		{ "vcpu_threads", "the vCPU threads are named by QEMU's monitor, and this back end speaks libvirt's API "
				  "(lab contend reads the vCPUs' figures through it)" },
		{ NULL, NULL } },
};
