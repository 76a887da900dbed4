/* The QEMU command line of a lab configuration, and the back ends its
 * devices sit on (LAB_BACKENDS in qemu.h): their arguments and the host's
 * setup of them. */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/if_tun.h>
#include <linux/loop.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <netinet/in.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "qemu.h"
#include "qemu_rows.h"
#include "procs.h"
#include "../core/clock.h"
#include "../core/reclaim.h"
#include "../core/spawn.h"
#include "../core/macro.h"
#include "../core/str.h"
#include "../core/banned.h"

/* -device for each of a model's space-separated device arguments; the
 * last, which the back end attaches to, with what mq says of its queues */
static void push_devices(struct lab_args *a, const struct lab_device *d, const struct lab_mq *mq, unsigned queues)
{
	for (const char *p = d->devices; *p;) {
		size_t l = strcspn(p, " ");
		const char *word = p;

		p += l + strspn(p + l, " ");
		lab_push(a, "-device");
		if (!*p && mq && queues > 1)
			lab_push(a, "%.*s,%s%u", (int)l, word, mq->arg, mq->per_queue * queues + mq->fixed);
		else
			lab_push(a, "%.*s", (int)l, word);
	}
}

/* The nics key above 1: NIC i of the model on netdev ni (its row's netdev=n0
 * renamed) with a MAC address of its own, LAB_NIC_MAC and i, so that no two
 * of the guest's NICs share one */
static void push_nic_devices(struct lab_args *a, const struct lab_device *d, unsigned nics)
{
	static const char n0[] = "netdev=n0";

	for (unsigned i = 0; i < nics; i++)
		for (const char *p = d->devices; *p;) {
			size_t l = strcspn(p, " ");
			const char *word = p, *at = strstr(word, n0);

			p += l + strspn(p + l, " ");
			lab_push(a, "-device");
			if (at && at < word + l && !*p)
				lab_push(a, "%.*snetdev=n%u%.*s,mac=" LAB_NIC_MAC "%02x", (int)(at - word), word, i,
					 (int)(word + l - at - (sizeof(n0) - 1)), at + sizeof(n0) - 1, i);
			else if (at && at < word + l)
				lab_push(a, "%.*snetdev=n%u%.*s", (int)(at - word), word, i,
					 (int)(word + l - at - (sizeof(n0) - 1)), at + sizeof(n0) - 1);
			else
				lab_push(a, "%.*s", (int)l, word);
		}
}

/* ---- back ends ---- */

/* What QEMU opens as the scratch disk, and its format: what the back end's
 * setup recorded (a loop device), else the image file in the row's format. */
static const char *disk_file(const struct lab_backend *be, const struct lab_paths *p, const char **format)
{
	const struct lab_host_disk *h = p->host_disk;

	*format = h && h->format ? h->format : be->name;
	return h && h->file[0] ? h->file : p->disk;
}

/* The scratch disk: an image file (the format is the back end's name) or a
 * host block device; with snapshot=on the overlay over it, whose header
 * names the disk as its backing file and its format, which QEMU opens
 * with the same cache mode. */
static int drive_args(struct lab_args *a, const struct lab_backend *be, const struct lab_config *c,
		      const struct lab_paths *p)
{
	const char *format, *file = disk_file(be, p, &format);
	char esc[1024];

	if (!p->disk)
		return 0;
	if (lab_config_snapshot(c)) {
		if (!p->overlay)
			return -EINVAL;
		file = p->overlay;
		format = "qcow2";
	}
	lab_push(a, "-drive");
	lab_push(a, "file=%s,format=%s,if=none,id=d0,cache=%s", lab_arg_esc(a, file, esc, sizeof(esc)), format,
		 p->disk_cache ? p->disk_cache : "none");
	return 1;
}

/* QEMU's own user-mode network, restricted: the guest reaches nothing
 * outside; one queue */
static int user_net_args(struct lab_args *a, const struct lab_backend *be, const struct lab_config *c,
			 const struct lab_paths *p)
{
	(void)be, (void)p;
	/* one NIC of one queue, unshaped: QEMU's own network has no link to shape */
	if (lab_config_queues(c) > 1 || c->nics > 1 || c->link_bps)
		return -EOPNOTSUPP;
	lab_push(a, "-netdev");
	lab_push(a, "user,id=n0,restrict=on");
	return 1;
}

/* The balloon sits on the guest's RAM, which QEMU has anyway: its device
 * alone, nothing of the host's to attach */
static int guest_ram_args(struct lab_args *a, const struct lab_backend *be, const struct lab_config *c,
			  const struct lab_paths *p)
{
	(void)a, (void)be, (void)c, (void)p;
	return 1;
}

/* A tap device in QEMU's own network namespace, handed over as a descriptor
 * (tap_child made both in QEMU's forked child); a queue each of several,
 * LAB_TAP_FD and the next ones */
static void push_tap(struct lab_args *a, const struct lab_config *c, const char *extra)
{
	unsigned queues = lab_config_queues(c);
	char fds[64] = "";
	size_t off = 0;

	for (unsigned i = 0; i < queues; i++)
		str_appendf(fds, sizeof(fds), &off, "%s%u", i ? ":" : "", LAB_TAP_FD + i);
	lab_push(a, "-netdev");
	lab_push(a, "tap,id=n0,%s=%s%s", queues > 1 ? "fds" : "fd", fds, extra);
	/* several NICs (one queue each, nics_check): a tap each, ni on LAB_TAP_FD + i */
	for (unsigned i = 1; i < c->nics && queues == 1; i++) {
		lab_push(a, "-netdev");
		lab_push(a, "tap,id=n%u,fd=%u%s", i, LAB_TAP_FD + i, extra);
	}
}

static int tap_args(struct lab_args *a, const struct lab_backend *be, const struct lab_config *c,
		    const struct lab_paths *p)
{
	(void)be, (void)p;
	push_tap(a, c, "");
	return 1;
}

/* the same, with the kernel's vhost-net moving the packets (QEMU opens
 * /dev/vhost-net once per queue) */
static int tap_vhost_args(struct lab_args *a, const struct lab_backend *be, const struct lab_config *c,
			  const struct lab_paths *p)
{
	(void)be, (void)p;
	push_tap(a, c, ",vhost=on");
	return 1;
}

/* Interface flags up (and an IPv4 address with its prefix, when addr). */
static int if_up(int s, const char *name, const char *addr, const char *prefix)
{
	struct ifreq ifr;
	struct sockaddr_in *sin = (struct sockaddr_in *)&ifr.ifr_addr;
	unsigned bits = (unsigned)strtoul(prefix ? prefix : "0", NULL, 10);

	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", name);
	if (addr) {
		sin->sin_family = AF_INET;
		if (inet_pton(AF_INET, addr, &sin->sin_addr) != 1)
			return -EINVAL;
		if (ioctl(s, SIOCSIFADDR, &ifr) < 0)
			return -errno;
		sin->sin_addr.s_addr = htonl(bits ? ~0u << (32 - bits) : 0);
		if (ioctl(s, SIOCSIFNETMASK, &ifr) < 0)
			return -errno;
	}
	if (ioctl(s, SIOCGIFFLAGS, &ifr) < 0)
		return -errno;
	ifr.ifr_flags |= IFF_UP;
	return ioctl(s, SIOCSIFFLAGS, &ifr) < 0 ? -errno : 0;
}

/* The shaping of link i (its tap vmbtapI) to bps both ways, as the tc and
 * ip command lines (words between single spaces) that make it: a token
 * bucket (tbf) on the tap's own queue, which holds what goes to the guest,
 * and, for what the guest sends (which comes in on the tap and has no
 * queue of the host's), the tap's ingress redirected to an ifb device
 * with a token bucket of its own. The bucket holds 10 ms of the line (at
 * least 16 KiB: tbf needs a frame's worth at the kernel's tick); frames
 * wait up to 50 ms, then are dropped as a full switch port drops them. */
int lab_link_shaping(unsigned i, uint64_t bps, struct strv *lines)
{
	static const char *const steps[] = {
		"tc qdisc add dev " LAB_TAP_NAME "%1$u root tbf rate %2$llubit burst %3$llu latency 50ms",
		"ip link add " LAB_IFB_NAME "%1$u type ifb",
		"ip link set " LAB_IFB_NAME "%1$u up",
		"tc qdisc add dev " LAB_TAP_NAME "%1$u handle ffff: ingress",
		"tc filter add dev " LAB_TAP_NAME "%1$u parent ffff: protocol all u32 match u32 0 0 action mirred egress "
		"redirect dev " LAB_IFB_NAME "%1$u",
		"tc qdisc add dev " LAB_IFB_NAME "%1$u root tbf rate %2$llubit burst %3$llu latency 50ms",
	};
	unsigned long long burst = bps / 8 / 100 > 16384 ? bps / 8 / 100 : 16384;
	int r = 0;

	for (size_t k = 0; k < ARRAY_SIZE(steps) && r == 0; k++) {
		char line[256];

		snprintf(line, sizeof(line), steps[k], i, (unsigned long long)bps, burst);
		r = strv_push(lines, line);
	}
	return r;
}

int lab_run_line(const char *line, char *why, size_t len)
{
	char copy[256], *argv[32], *out = NULL;
	size_t n = 0;
	int r;

	snprintf(copy, sizeof(copy), "%s", line);
	for (char *p = copy; *p && n < ARRAY_SIZE(argv) - 1;) {
		argv[n++] = p;
		p += strcspn(p, " ");
		if (*p)
			*p++ = '\0';
	}
	argv[n] = NULL;
	r = run_capture_all(argv[0], argv, &out);
	if (r < 0) {
		size_t l = out ? strlen(out) : 0;

		while (l && out[l - 1] == '\n')
			out[--l] = '\0';
		errf(why, len, r, "'%s' failed%s%s", line, l ? ": " : "", l ? out : "");
	}
	free(out);
	return r;
}

/* The host's ends of several NICs' links joined (nics above 1): a bridge
 * with the host's address of the link, each tap a port of it, so that the
 * host's client reaches the guest's bond over any link */
static int bridge_taps(int s, unsigned nics, const char *addr, const char *prefix)
{
	char tap[IFNAMSIZ];
	struct ifreq ifr;
	int r;

	if (ioctl(s, SIOCBRADDBR, LAB_BRIDGE_NAME) < 0)
		return -errno;
	for (unsigned i = 0; i < nics; i++) {
		snprintf(tap, sizeof(tap), LAB_TAP_NAME "%u", i);
		memset(&ifr, 0, sizeof(ifr));
		snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", LAB_BRIDGE_NAME);
		ifr.ifr_ifindex = (int)if_nametoindex(tap);
		if (!ifr.ifr_ifindex || ioctl(s, SIOCBRADDIF, &ifr) < 0)
			return -errno;
		r = if_up(s, tap, NULL, NULL);
		if (r < 0)
			return r;
	}
	return if_up(s, LAB_BRIDGE_NAME, addr, prefix);
}

int lab_link_host_end(const struct lab_backend *be, const struct lab_config *c, unsigned nics, char *why, size_t len)
{
	char name[IFNAMSIZ], addr[32];
	const char *slash = strchr(be->guest_addr, '/');
	int s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0), r;

	snprintf(addr, sizeof(addr), "%s", be->host_addr);
	snprintf(name, sizeof(name), LAB_TAP_NAME "0");
	r = s < 0 ? -errno : if_up(s, "lo", NULL, NULL);
	if (r == 0 && nics > 1)
		r = bridge_taps(s, nics, addr, slash ? slash + 1 : "32");
	else if (r == 0)
		r = if_up(s, name, addr, slash ? slash + 1 : "32");
	if (s >= 0)
		close(s);
	if (r < 0)
		errf(why, len, r, "the host's address %s on %s: %s", addr, nics > 1 ? LAB_BRIDGE_NAME : name,
		     strerror(-r));
	for (unsigned i = 0; r == 0 && c && c->link_bps && i < nics; i++) {
		struct strv lines = { 0 };

		r = lab_link_shaping(i, c->link_bps, &lines);
		for (size_t k = 0; r == 0 && k < lines.n; k++)
			r = lab_run_line(lines.v[k], why, len);
		strv_clear(&lines);
	}
	return r;
}

/* A network namespace of this process's own (anonymous: it goes when the
 * last process in it does, and with it every device and queue the lab made
 * there), and a tap device there, on LAB_TAP_FD; with several queues (c's),
 * a descriptor per queue of the one device, on LAB_TAP_FD and the next;
 * with several NICs (c's nics, one queue each), a tap each, vmbtapI on
 * LAB_TAP_FD + I; then the host's end of the link (lab_link_host_end). */
static int tap_child(const struct lab_backend *be, const struct lab_config *c)
{
	unsigned queues = c ? lab_config_queues(c) : 1, nics = c && queues == 1 ? c->nics : 1;
	int fds[8], r = 0;
	struct ifreq ifr;
	unsigned n = 0;

	if (unshare(CLONE_NEWNET) < 0)
		return -errno;
	memset(&ifr, 0, sizeof(ifr));
	/* the virtio header: QEMU finds it and uses the offloads it allows */
	ifr.ifr_flags = IFF_TAP | IFF_NO_PI | IFF_VNET_HDR | (queues > 1 ? IFF_MULTI_QUEUE : 0);
	/* above the numbers they go to, so that no dup2 below closes another */
	for (; r == 0 && n < queues * nics && n < 8; n++) {
		int fd = open("/dev/net/tun", O_RDWR | O_CLOEXEC);

		snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), LAB_TAP_NAME "%u", nics > 1 ? n : 0);
		fds[n] = fd < 0 ? -1 : fcntl(fd, F_DUPFD_CLOEXEC, LAB_TAP_FD + 8);
		if (fd >= 0)
			close(fd);
		if (fds[n] < 0 || ioctl(fds[n], TUNSETIFF, &ifr) < 0)
			r = -errno;
	}
	if (r == 0) {
		char why[512] = "";

		r = lab_link_host_end(be, c, nics, why, sizeof(why));
		/* said in QEMU's log */
		if (r < 0 && *why)
			fprintf(stderr, "vmbench: the lab's link: %s\n", why);
	}
	/* dup2 clears O_CLOEXEC: QEMU inherits them */
	for (unsigned i = 0; r == 0 && i < n; i++)
		if (dup2(fds[i], LAB_TAP_FD + (int)i) < 0)
			r = -errno;
	for (unsigned i = 0; i < n; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	return r;
}

/* Can this process make the namespace and the tap? Tried once, in a child
 * that exits at once (its namespace and tap go with it). */
static int tap_usable(const struct lab_backend *be, char *why, size_t len)
{
	static int tried = 1; /* 1: not yet; else 0 or a negative errno */
	int status;
	pid_t pid;

	if (tried == 1) {
		pid = fork();
		if (pid == 0)
			_exit(-tap_child(be, NULL) & 0xff);
		tried = pid < 0 ? -errno : waitpid(pid, &status, 0) != pid ? -ECHILD
				 : WIFEXITED(status) ? -WEXITSTATUS(status) : -EINTR;
	}
	if (tried < 0)
		return errf(why, len, tried, "a tap device in a network namespace of the lab's own (unshare, "
			    "/dev/net/tun) is not permitted here: %s", strerror(-tried));
	return 0;
}

static int vhost_usable(const struct lab_backend *be, char *why, size_t len)
{
	int fd = open("/dev/vhost-net", O_RDWR | O_CLOEXEC);

	if (fd < 0)
		return errf(why, len, -errno, "/dev/vhost-net: %s", strerror(errno));
	close(fd);
	return tap_usable(be, why, len);
}

/* The scratch disk's file, new (never one that was there), size bytes long or empty. */
static int create_image(const struct lab_paths *p, uint64_t size, char *why, size_t len)
{
	int fd = p->disk ? open(p->disk, O_CREAT | O_EXCL | O_RDWR | O_CLOEXEC, 0600) : -1;

	if (fd < 0 || (size && ftruncate(fd, (off_t)size) < 0)) {
		if (fd >= 0)
			close(fd);
		return errf(why, len, -EIO, "creating the scratch disk %s", p->disk ? p->disk : "(none)");
	}
	close(fd);
	return 0;
}

static int raw_create(const struct lab_backend *be, const struct lab_paths *p, char *why, size_t len)
{
	(void)be;
	return create_image(p, p->disk_size, why, len);
}

static int qcow2_create(const struct lab_backend *be, const struct lab_paths *p, char *why, size_t len)
{
	char sz[32];
	char *const qargv[] = { "qemu-img", "create", "-q", "-f", "qcow2", (char *)p->disk, sz, NULL };
	int r = create_image(p, 0, why, len);

	(void)be;
	if (r < 0)
		return r;
	/* qemu-img writes the qcow2 header into the file we created */
	snprintf(sz, sizeof(sz), "%llu", (unsigned long long)p->disk_size);
	r = run_capture("qemu-img", qargv, NULL, NULL);
	if (r < 0)
		return errf(why, len, r == -ECHILD ? -EIO : r, "qemu-img could not create a qcow2 disk "
			    "(Debian's qemu-utils has it: apt-get install qemu-utils)");
	return 0;
}

/* backend=block: a host block device, a loop device over the lab's own
 * file. Can this process set one up? */
static int block_usable(const struct lab_backend *be, char *why, size_t len)
{
	(void)be;
	if (access("/dev/loop-control", R_OK | W_OK) < 0)
		return errf(why, len, -EOPNOTSUPP, "backend=block needs a loop device, and /dev/loop-control %s "
			    "(the loop module, and root or CAP_SYS_ADMIN)", errno == ENOENT ? "does not exist"
			    : "cannot be opened here");
	return 0;
}

/* The loop device bound to file, autoclear: the kernel unbinds it when
 * its last user closes it. LOOP_CONFIGURE does both at once (Linux 5.8);
 * before it, LOOP_SET_FD then LOOP_SET_STATUS64, with a moment between
 * them in which a SIGKILL would leave it bound. direct: the device reads
 * and writes its file with O_DIRECT (LO_FLAGS_DIRECT_IO), as a partition
 * has no page cache of the host's between it and the disk. */
static int loop_bind(int dev, int file, const char *name, bool direct)
{
	struct loop_config cfg = { .fd = (unsigned)file,
				   .info = { .lo_flags = LO_FLAGS_AUTOCLEAR | (direct ? LO_FLAGS_DIRECT_IO : 0) } };
	int r;

	snprintf((char *)cfg.info.lo_file_name, sizeof(cfg.info.lo_file_name), "%s", name);
	if (ioctl(dev, LOOP_CONFIGURE, &cfg) == 0)
		return 0;
	if (errno != EINVAL && errno != ENOTTY)
		return -errno;
	cfg.info.lo_flags &= ~(unsigned)LO_FLAGS_DIRECT_IO; /* not a flag LOOP_SET_STATUS64 sets */
	if (ioctl(dev, LOOP_SET_FD, file) < 0)
		return -errno;
	if (ioctl(dev, LOOP_SET_STATUS64, &cfg.info) == 0)
		return 0;
	r = -errno;
	(void)ioctl(dev, LOOP_CLR_FD, 0);
	return r;
}

/* Does the bound loop device use direct I/O? Asked for it, the kernel may
 * still fall back to the page cache (a file system without O_DIRECT, a
 * block size the file's cannot align to): what it did is read back. */
static int loop_direct(int dev, bool want)
{
	struct loop_info64 info;

	if (want && ioctl(dev, LOOP_GET_STATUS64, &info) == 0 && !(info.lo_flags & LO_FLAGS_DIRECT_IO))
		(void)ioctl(dev, LOOP_SET_DIRECT_IO, 1UL); /* kernels before LOOP_CONFIGURE */
	if (ioctl(dev, LOOP_GET_STATUS64, &info) < 0)
		return -1;
	return (info.lo_flags & LO_FLAGS_DIRECT_IO) != 0;
}

/* QEMU's cache modes that open the disk with O_DIRECT: no page cache of the
 * host's, which the loop device then keeps out of its own I/O too. */
static bool cache_is_direct(const char *cache)
{
	return !cache || !strcmp(cache, "none") || !strcmp(cache, "directsync");
}

/* The scratch file, and a free loop device bound to it and held open until
 * QEMU is gone (block_teardown): the lab's open descriptor keeps the
 * autoclear device bound until QEMU has it open, and once both are closed
 * (QEMU gone, this process exited or killed) the kernel unbinds it. */
static int block_setup(const struct lab_backend *be, const struct lab_paths *p, char *why, size_t len)
{
	struct lab_host_disk *h = p->host_disk;
	int ctl = -1, file = -1, dev = -1, r;

	if (!h)
		return errf(why, len, -EINVAL, "backend=block: no record of its device");
	h->fd = -1;
	h->direct_io = -1;
	r = block_usable(be, why, len);
	if (r == 0)
		r = create_image(p, p->disk_size, why, len);
	if (r < 0)
		return r;
	file = open(p->disk, O_RDWR | O_CLOEXEC);
	ctl = open("/dev/loop-control", O_RDWR | O_CLOEXEC);
	r = file < 0 || ctl < 0 ? -errno : -EBUSY;
	/* another process may take the free device first: the next one */
	for (int tries = 0; r == -EBUSY && tries < 8; tries++) {
		int nr = ioctl(ctl, LOOP_CTL_GET_FREE);

		if (nr < 0) {
			r = -errno;
			break;
		}
		snprintf(h->file, sizeof(h->file), "/dev/loop%d", nr);
		dev = open(h->file, O_RDWR | O_CLOEXEC);
		r = dev < 0 ? -errno : loop_bind(dev, file, p->disk, cache_is_direct(p->disk_cache));
		if (r < 0 && dev >= 0)
			close(dev);
		if (r < 0)
			dev = -1;
	}
	if (file >= 0)
		close(file);
	if (ctl >= 0)
		close(ctl);
	if (r < 0) {
		h->file[0] = '\0';
		return errf(why, len, r == -EPERM || r == -EACCES || r == -ENOENT ? -EOPNOTSUPP : r,
			    "backend=block: binding a loop device to %s: %s", p->disk, strerror(-r));
	}
	h->fd = dev;
	h->format = "raw";
	h->direct_io = loop_direct(dev, cache_is_direct(p->disk_cache));
	return 0;
}

static void block_teardown(const struct lab_backend *be, const struct lab_paths *p)
{
	(void)be;
	if (p->host_disk && p->host_disk->fd >= 0)
		close(p->host_disk->fd); /* QEMU is gone: the kernel unbinds the device */
	if (p->host_disk)
		p->host_disk->fd = -1;
}


const struct lab_backend lab_backends[] = {
#define BACKEND_ROW(k, n, f, a, gl, gw, su, td, us, ch, ha, ga)                                             \
	{ .key = k, .name = n, .image_file = LAB_BACKEND_IS_##f, .args = a, .guest_list = gl, .guest_what = gw, .setup = su, .teardown = td,         \
	  .usable = us, .child = ch, .host_addr = ha, .guest_addr = ga },
	LAB_BACKENDS(BACKEND_ROW)
#undef BACKEND_ROW
};
const size_t lab_nbackends = sizeof(lab_backends) / sizeof(lab_backends[0]);

const struct lab_backend *lab_backend_of(const struct lab_paths *p, enum lab_key key)
{
	for (size_t i = 0; i < lab_nbackends; i++)
		if (lab_backends[i].key == key && (!p->backend[key] || !strcmp(p->backend[key], lab_backends[i].name)))
			return &lab_backends[i];
	return NULL;
}

const struct lab_backend *lab_backend_pick(enum lab_key key, char *why, size_t len)
{
	size_t off = 0;

	why[0] = '\0';
	for (size_t i = 0; i < lab_nbackends; i++) {
		const struct lab_backend *be = &lab_backends[i];
		char one[256];

		if (be->key != key)
			continue;
		if (!be->usable || be->usable(be, one, sizeof(one)) == 0)
			return be;
		str_appendf(why, len, &off, "%s%s: %s", off ? "; " : "", be->name, one);
	}
	return NULL;
}

const char *lab_disk_backend_name(const struct lab_config *c, const char *format)
{
	return c->backend_file ? format : c->v[LAB_BACKEND];
}

void lab_backends_own(const struct lab_config *c, const char *names[LAB_KEYS_MAX])
{
	for (int k = 0; k < (int)lab_nkeys; k++)
		for (size_t i = 0; !names[k] && i < lab_nbackends; i++)
			if ((int)lab_backends[i].key == k && !strcmp(lab_backends[i].name, c->v[k]))
				names[k] = lab_backends[i].name;
}

/* The back end under the configuration's device of key, or NULL (nic=none). */
static const struct lab_backend *config_backend(const struct lab_config *c, const struct lab_paths *p, enum lab_key key)
{
	return lab_config_device(c, key) ? lab_backend_of(p, key) : NULL;
}

int lab_backends_child(const struct lab_config *c, const struct lab_paths *p)
{
	for (int k = 0; k < (int)lab_nkeys; k++) {
		const struct lab_backend *be = config_backend(c, p, (enum lab_key)k);
		int r = be && be->child ? be->child(be, c) : 0;

		if (r < 0)
			return r;
	}
	return 0;
}

void lab_backends_teardown(const struct lab_config *c, const struct lab_paths *p)
{
	for (int k = (int)lab_nkeys - 1; k >= 0; k--) {
		const struct lab_backend *be = config_backend(c, p, (enum lab_key)k);

		if (be && be->teardown)
			be->teardown(be, p);
	}
}

/* snapshot=on: a new qcow2 overlay over the disk, as a VM's external
 * snapshot is made (qemu-img create -b), before QEMU starts: the guest
 * writes to it from its first boot */
static int snapshot_setup(const struct lab_config *c, const struct lab_paths *p, char *why, size_t len)
{
	const struct lab_backend *be = config_backend(c, p, LAB_DISK);
	const char *format = NULL, *base = be ? disk_file(be, p, &format) : NULL;
	char sz[32], abs[PATH_MAX];
	char *qargv[] = { "qemu-img", "create", "-q", "-f", "qcow2", "-b", (char *)base, "-F", (char *)format,
			  (char *)p->overlay, sz, NULL };
	int fd, r;

	if (!lab_config_snapshot(c) || !base)
		return 0;
	/* qemu-img and QEMU read a relative backing file name from the
	 * overlay's directory, not ours (a relative $TMPDIR): name it whole */
	if (base[0] != '/') {
		if (!realpath(base, abs))
			return errf(why, len, -errno, "snapshot=on: the scratch disk %s: %s", base, strerror(errno));
		qargv[6] = abs;
	}
	fd = p->overlay ? open(p->overlay, O_CREAT | O_EXCL | O_RDWR | O_CLOEXEC, 0600) : -1;
	if (fd < 0)
		return errf(why, len, -EIO, "snapshot=on: creating the overlay %s", p->overlay ? p->overlay : "(none)");
	close(fd);
	snprintf(sz, sizeof(sz), "%llu", (unsigned long long)p->disk_size);
	r = run_capture("qemu-img", qargv, NULL, NULL);
	if (r < 0)
		return errf(why, len, r == -ECHILD ? -EIO : r, "snapshot=on: qemu-img could not create the qcow2 overlay "
			    "over %s (Debian's qemu-utils has it: apt-get install qemu-utils)", base);
	return 0;
}

/* cache=none and directsync: QEMU opens the disk (and an overlay) with
 * O_DIRECT; a file system that does not take it is said before QEMU
 * starts, and the configuration skipped, never run in another mode */
static int direct_check(const struct lab_config *c, const char *path, char *why, size_t len)
{
	int fd;

	if (!path || !lab_config_direct(c))
		return 0;
	fd = open(path, O_RDONLY | O_DIRECT | O_CLOEXEC);
	if (fd >= 0) {
		close(fd);
		return 0;
	}
	if (errno == EINVAL)
		return errf(why, len, -EOPNOTSUPP, "cache=%s opens the scratch disk %s with O_DIRECT, which its file "
			    "system does not take (ramfs, tmpfs before Linux 6.6): give the lab a TMPDIR on a disk, or "
			    "cache=writeback", c->v[LAB_CACHE], path);
	return errf(why, len, -errno, "opening the scratch disk %s: %s", path, strerror(errno));
}

/* What the disk keys do on the host once the back ends are set up. */
static int disk_keys_setup(const struct lab_config *c, const struct lab_paths *p, char *why, size_t len)
{
	const struct lab_backend *be = config_backend(c, p, LAB_DISK);
	const char *format = NULL, *file = be ? disk_file(be, p, &format) : NULL;
	int r = direct_check(c, file, why, len);

	if (r == 0)
		r = snapshot_setup(c, p, why, len);
	if (r == 0 && file && lab_config_snapshot(c))
		r = direct_check(c, p->overlay, why, len);
	return r;
}

int lab_backends_setup(const struct lab_config *c, const struct lab_paths *p, char *why, size_t len)
{
	for (int k = 0; k < (int)lab_nkeys; k++) {
		const struct lab_backend *be = config_backend(c, p, (enum lab_key)k);
		int r;

		if (lab_config_device(c, (enum lab_key)k) && !be)
			return errf(why, len, -EINVAL, "%s=%s: no back end %s", lab_key_name((enum lab_key)k), c->v[k],
				    p->backend[k] ? p->backend[k] : "");
		r = be && be->setup ? be->setup(be, p, why, len) : 0;
		if (r < 0) {
			/* the ones before this key, in reverse */
			for (int j = k - 1; j >= 0; j--) {
				const struct lab_backend *done = config_backend(c, p, (enum lab_key)j);

				if (done && done->teardown)
					done->teardown(done, p);
			}
			return r;
		}
	}
	{
		/* then what the disk keys do (an overlay), all torn down when it fails */
		int r = disk_keys_setup(c, p, why, len);

		if (r < 0)
			lab_backends_teardown(c, p);
		return r;
	}
}

/* ---- the command line ---- */

/* The machine, each key row's own arguments (accelerator, size, CPU,
 * firmware: src/lab/qemu_keys.c) and the guest's kernel. */
static int push_machine(struct lab_args *a, const struct lab_config *c, const struct lab_device *disk,
			const struct lab_paths *p, const char *net, char *why, size_t len)
{
	bool arm = c->aarch64;
	unsigned queues = c->mq ? c->queues : 1;
	char nq[48] = "", nd[32] = "", esc[1024];
	int r;

	lab_push(a, "%s", arm ? "qemu-system-aarch64" : "qemu-system-x86_64");
	/* legacy IDE lives on the i440FX (pc) machine; everything else on q35 */
	lab_push(a, "-machine");
	/* gic-version=max: GICv3 where it exists, beyond the 8 vCPUs of the default GICv2 */
	/* a profile's machine, nearest its hypervisor's chipset, where the disk needs none of its own */
	lab_push(a, "%s", arm ? "virt,gic-version=max" : disk->x86_machine ? disk->x86_machine
				 : c->profile ? c->profile->x86_machine : "q35");
	r = lab_keys_qemu(a, c, p, why, len);
	if (r < 0)
		return r;
	lab_push(a, "-nodefaults");
	lab_push(a, "-display");
	lab_push(a, "none");
	/* a boot row of the firmware's own (boot=cdrom) has the kernel's
	 * command line in its file: the keys' own arguments pushed it */
	if (c->boot && !c->boot->kernel)
		return 0;
	lab_push(a, "-kernel");
	lab_push(a, "%s", p->kernel);
	lab_push(a, "-initrd");
	lab_push(a, "%s", p->initrd);
	lab_push(a, "-append");
	/* the queues the guest's agent gives its NIC before HELLO; the NICs it bonds */
	if (queues > 1)
		snprintf(nq, sizeof(nq), " vmbench.queues=%u", queues);
	else if (c->nics > 1 && net)
		snprintf(nq, sizeof(nq), " vmbench.bond=%s,%u", LAB_BOND_MODE, c->nics);
	/* early console output: the first byte marks kernel entry on both architectures */
	/* the disks the guest's init waits for before HELLO: a USB disk appears
	 * only after its bus is enumerated, after its modules were loaded */
	if (p->disk || (lab_config_image(c) && lab_config_image(c)->root))
		snprintf(nd, sizeof(nd), " vmbench.disks=%d", !!p->disk + !!(lab_config_image(c) && lab_config_image(c)->root));
	/* thp=: the mode the kernel starts with (the guest's sysfs is checked after HELLO) */
	lab_push(a, "console=%s %s panic=-1 vmbench.agent=/dev/hvc0%s%s%s%s%s%s%s%s%s", arm ? "ttyAMA0" : "ttyS0",
	     arm ? "earlycon=pl011,0x9000000" : "earlyprintk=serial,ttyS0,115200", net ? " vmbench.net=" : "",
	     net ? net : "", nd, p->modules && *p->modules ? " vmbench.modules=" : "",
	     p->modules && *p->modules ? p->modules : "", nq, c->thp ? " transparent_hugepage=" : "",
	     c->thp ? c->thp : "", lab_config_image(c) ? lab_config_image(c)->append : "");
	/* a distribution's root disk: every boot reads the cached image and
	 * writes into QEMU's own temporary overlay (snapshot=on), so no boot
	 * changes the next one's disk */
	if (lab_config_image(c) && lab_config_image(c)->root) {
		if (!p->root_disk)
			return errf(why, len, -EINVAL, "image=%s: no root disk given", c->v[LAB_IMAGE]);
		lab_push(a, "-drive");
		lab_push(a, "if=none,id=root,file=%s,format=qcow2,snapshot=on",
			 lab_arg_esc(a, p->root_disk, esc, sizeof(esc)));
		lab_push(a, "-device");
		lab_push(a, "virtio-blk-pci,drive=root,serial=%s", LAB_ROOT_SERIAL);
	}
	return 0;
}

/* The host's channels: the console log, QMP, the agent's virtio console. */
static void push_channels(struct lab_args *a, const struct lab_paths *p)
{
	char esc[1024];

	/* -serial file: takes the rest of its word as the path: not escaped */
	lab_push(a, "-serial");
	lab_push(a, "file:%s", p->console_log);
	lab_push(a, "-qmp");
	lab_push(a, "unix:%s,server=on,wait=off", lab_arg_esc(a, p->qmp_socket, esc, sizeof(esc)));
	/* the agent's channel: a virtio console, /dev/hvc0 in the guest */
	lab_push(a, "-device");
	lab_push(a, "virtio-serial-pci,id=vser");
	lab_push(a, "-chardev");
	lab_push(a, "socket,id=agent,path=%s,server=on,wait=off", lab_arg_esc(a, p->agent_socket, esc, sizeof(esc)));
	lab_push(a, "-device");
	lab_push(a, "virtconsole,chardev=agent,bus=vser.0");
}

int lab_qemu_argv(const struct lab_config *c, const struct lab_paths *p, struct strv *argv, char *why, size_t len)
{
	const struct lab_device *disk = lab_config_device(c, LAB_DISK);
	struct lab_args a = { .a = argv };
	int r;

	why[0] = '\0';
	if (c->accel == LAB_ACCEL_AUTO)
		return errf(why, len, -EINVAL, "accel=auto must be resolved (kvm or tcg) before building the command line");
	if (!disk)
		return errf(why, len, -EINVAL, "disk=%s is no device model", c->v[LAB_DISK]);
	if (lab_config_unsupported(c, why, len))
		return -EOPNOTSUPP;
	{
		/* the guest's end of a back end's link: its init configures the NIC with it */
		const char *net = NULL;

		for (int k = 0; k < (int)lab_nkeys; k++) {
			const struct lab_backend *be = config_backend(c, p, (enum lab_key)k);

			if (be && be->guest_addr)
				net = be->guest_addr;
		}
		r = push_machine(&a, c, disk, p, net, why, len);
		if (r < 0)
			return r;
	}
	push_channels(&a, p);
	/* each device key's model on its back end, in the order of the keys */
	for (int k = 0; k < (int)lab_nkeys; k++) {
		const struct lab_device *d = lab_config_device(c, (enum lab_key)k);
		const struct lab_backend *be = d ? lab_backend_of(p, (enum lab_key)k) : NULL;

		if (d && !be)
			return errf(why, len, -EINVAL, "%s=%s: no back end %s", lab_key_name((enum lab_key)k), c->v[k],
				    p->backend[k] ? p->backend[k] : "");
		r = be ? be->args(&a, be, c, p) : 0;
		if (r < 0)
			return errf(why, len, r, "%s=%s: the %s back end cannot carry it with queues=%s nics=%s linkrate=%s",
				    lab_key_name((enum lab_key)k), c->v[k], be->name, c->v[LAB_QUEUES], c->v[LAB_NICS],
				    c->v[LAB_LINKRATE]);
		if (r > 0 && k == LAB_NIC && c->nics > 1)
			push_nic_devices(&a, d, c->nics);
		else if (r > 0)
			push_devices(&a, d, k == LAB_NIC ? lab_config_mq(c) : NULL, lab_config_queues(c));
	}
	if (a.r < 0)
		return errf(why, len, a.r, "building the QEMU command line: %s", strerror(-a.r));
	return 0;
}
