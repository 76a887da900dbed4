/* The lab's link for a hypervisor that opens the guest's tap by name
 * (lablink.h): the tap, the holder of the lab's namespace, the veth into
 * it, the redirects between them; and their removal on every path. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/if_tun.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lablink.h"
#include "labnet.h"
#include "procs.h"
#include "../core/file.h"
#include "../core/log.h"
#include "../core/stoppoint.h"
#include "../core/util.h"
#include "../core/banned.h"

/* The devices made and not yet deleted, "" a free slot. A signal handler
 * only reads the table (a slot's first byte is written last); lab
 * contend's threads make theirs at once, so the writers take turns. */
static char held[LAB_LINKS_MAX][IFNAMSIZ];
static pthread_mutex_t held_lock = PTHREAD_MUTEX_INITIALIZER;

static int hold(const char *name)
{
	int i = 0;

	(void)pthread_mutex_lock(&held_lock);
	while (i < LAB_LINKS_MAX && held[i][0])
		i++;
	if (i < LAB_LINKS_MAX) {
		memcpy(held[i] + 1, name + 1, strlen(name));
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
		held[i][0] = name[0];
	}
	(void)pthread_mutex_unlock(&held_lock);
	return i < LAB_LINKS_MAX ? 0 : -ENOSPC;
}

static void release(const char *name)
{
	(void)pthread_mutex_lock(&held_lock);
	for (int i = 0; i < LAB_LINKS_MAX; i++)
		if (held[i][0] && !strcmp(held[i], name))
			held[i][0] = '\0';
	(void)pthread_mutex_unlock(&held_lock);
}

/* The network device name deleted (a tap, persistent or not; a veth with
 * its peer) by rtnetlink's RTM_DELLINK: 0, or a negative errno (-ENODEV:
 * none of that name). System calls only: async-signal-safe. */
static int link_del(const char *name)
{
	struct {
		struct nlmsghdr nh;
		struct ifinfomsg ifi;
		char attr[RTA_SPACE(IFNAMSIZ)];
	} req;
	struct rtattr *rta = (struct rtattr *)req.attr;
	size_t n = strlen(name) + 1;
	char ack[512];
	ssize_t got;
	int s, r;

	if (n > IFNAMSIZ)
		return -EINVAL;
	memset(&req, 0, sizeof(req));
	req.nh.nlmsg_len = (__u32)(NLMSG_LENGTH(sizeof(req.ifi)) + RTA_SPACE(n));
	req.nh.nlmsg_type = RTM_DELLINK;
	req.nh.nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
	req.ifi.ifi_family = AF_UNSPEC;
	rta->rta_type = IFLA_IFNAME;
	rta->rta_len = (unsigned short)RTA_LENGTH(n);
	memcpy(RTA_DATA(rta), name, n);
	s = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	if (s < 0)
		return -errno;
	if (send(s, &req, req.nh.nlmsg_len, 0) < 0) {
		r = -errno;
		close(s);
		return r;
	}
	got = recv(s, ack, sizeof(ack), 0);
	r = got < 0 ? -errno : -EPROTO;
	if (got >= (ssize_t)NLMSG_LENGTH(sizeof(struct nlmsgerr))) {
		const struct nlmsghdr *h = (const struct nlmsghdr *)ack;

		if (h->nlmsg_type == NLMSG_ERROR)
			r = ((const struct nlmsgerr *)NLMSG_DATA(h))->error;
	}
	close(s);
	return r;
}

/* name gone from the table and the system */
static void drop(char *name)
{
	if (!name[0])
		return;
	(void)link_del(name);
	release(name);
	name[0] = '\0';
}

/* No IPv6 address on a device of the root namespace (its link-local one
 * comes with the device up): the project's rule, no address there. A
 * kernel without IPv6 has none to take. */
static int no_ipv6(const char *dev)
{
	char path[96];
	int fd, r = 0;

	snprintf(path, sizeof(path), "/proc/sys/net/ipv6/conf/%s/disable_ipv6", dev);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? 0 : -errno;
	if (write(fd, "1", 1) != 1)
		r = -errno;
	close(fd);
	return r;
}

/* Process pid's start time (/proc/PID/stat's 22nd field, in clock ticks
 * since boot): with the PID it names one process for the system's life;
 * 0 when there is no such process */
static unsigned long long proc_start(long pid)
{
	char path[64], buf[1024], *p;
	unsigned long long t = 0;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	/* after the command's ')' (its name may hold any byte): fields 3 to 22 */
	p = strrchr(buf, ')');
	for (int field = 2; p && field < 22; field++)
		p = strchr(p + 1, ' ');
	if (p)
		t = strtoull(p + 1, NULL, 10);
	return t;
}

/* This process's PID namespace (the inode of /proc/self/ns/pid), 0 if unknown */
static unsigned long long pid_ns(void)
{
	struct stat st;

	return stat("/proc/self/ns/pid", &st) == 0 ? (unsigned long long)st.st_ino : 0;
}

/* The mark a link device of the lab's carries in its ifalias: who made it
 * (lab_links_reclaim deletes it only once that process is gone) */
#define LINK_MARK "vmbench lab link pid=%ld start=%llu pidns=%llu"

static int mark(const char *dev)
{
	char path[96], alias[160];
	int fd, r = 0, n;

	n = snprintf(alias, sizeof(alias), LINK_MARK "\n", (long)getpid(), proc_start((long)getpid()), pid_ns());
	snprintf(path, sizeof(path), "/sys/class/net/%s/ifalias", dev);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (write(fd, alias, (size_t)n) != n)
		r = -errno;
	close(fd);
	return r;
}

bool lab_link_left(const char *name, const char *alias, unsigned long long ns, unsigned long long (*start_of)(long))
{
	const char *p;
	char *end;
	int used = -1;
	long pid, apid;
	unsigned long long start, ans;

	if (strncmp(name, LAB_LINK_TAP, strlen(LAB_LINK_TAP)) && strncmp(name, LAB_LINK_VETH, strlen(LAB_LINK_VETH)))
		return false;
	p = name + strlen(LAB_LINK_TAP);
	if (*p < '1' || *p > '9')
		return false;
	pid = strtol(p, &end, 10);
	if (*end != '-' || end[1] < '0' || end[1] > '9')
		return false;
	(void)strtoul(end + 1, &end, 10);
	if (*end)
		return false;
	/* the mark, whole, naming the PID of the name: a device of someone
	 * else's that only looks like ours has none */
	if (sscanf(alias, LINK_MARK "%n", &apid, &start, &ans, &used) != 3 || used < 0 ||
	    (alias[used] && strcmp(alias + used, "\n")) || apid != pid || !ns || ans != ns)
		return false; /* another PID namespace's vmbench: its PID says nothing here */
	return pid != (long)getpid() && start_of(pid) != start; /* gone, or its PID another's now */
}

/* A persistent tap of that name, no process attached (the hypervisor's
 * QEMU opens it by name), IPv6 off */
static int tap_make(const char *name)
{
	struct ifreq ifr;
	int fd = open("/dev/net/tun", O_RDWR | O_CLOEXEC), r = 0;

	if (fd < 0)
		return -errno;
	memset(&ifr, 0, sizeof(ifr));
	/* the virtio header: the opener's own flags decide, as QEMU's tap_child's */
	ifr.ifr_flags = IFF_TAP | IFF_NO_PI | IFF_VNET_HDR;
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", name);
	if (ioctl(fd, TUNSETIFF, &ifr) < 0 || ioctl(fd, TUNSETPERSIST, 1) < 0)
		r = -errno;
	close(fd);
	return r;
}

/* The holder: a process in a network namespace of its own, in a process
 * group of its own, killed when vmbench dies (even of SIGKILL). Its child
 * makes system calls only (lab contend forks from threads); one byte on
 * the pipe says it is there (0) or why not (an errno). */
static int holder_start(pid_t *pid)
{
	int p[2], r;
	unsigned char said = EIO;
	pid_t parent = getpid();

	if (pipe2(p, O_CLOEXEC) < 0)
		return -errno;
	*pid = fork();
	if (*pid == 0) {
		unsigned char e = 0;

		(void)setpgid(0, 0);
		if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() != parent)
			_exit(127);
		if (unshare(CLONE_NEWNET) < 0)
			e = (unsigned char)errno;
		if (write(p[1], &e, 1) != 1 || e)
			_exit(127);
		close(p[1]);
		for (;;)
			pause();
	}
	close(p[1]);
	if (*pid < 0) {
		r = -errno;
		close(p[0]);
		return r;
	}
	(void)setpgid(*pid, *pid);
	r = lab_proc_track(*pid);
	while (r == 0 && read(p[0], &said, 1) < 0 && errno == EINTR)
		;
	close(p[0]);
	if (r == 0 && said)
		r = -said;
	if (r < 0 && lab_proc_tracked(*pid))
		(void)lab_proc_reap(*pid, 0, NULL);
	if (r < 0)
		*pid = 0;
	return r;
}

struct host_end {
	const struct lab_backend *be;
	const struct lab_config *c;
	char *why;
	size_t len;
};

static int host_end(void *arg)
{
	const struct host_end *h = arg;

	return lab_link_host_end(h->be, h->c, 1, h->why, h->len);
}

int lab_link_up(struct lab_link *l, const struct lab_backend *be, const struct lab_config *c, char *why, size_t len)
{
	static unsigned count;
	unsigned n = __atomic_fetch_add(&count, 1, __ATOMIC_RELAXED) % 1000;
	char line[256];
	int r;

	memset(l, 0, sizeof(*l));
	snprintf(l->tap, sizeof(l->tap), LAB_LINK_TAP "%d-%u", (int)getpid(), n);
	snprintf(l->veth, sizeof(l->veth), LAB_LINK_VETH "%d-%u", (int)getpid(), n);
	r = hold(l->tap);
	if (r == 0 && (r = hold(l->veth)) < 0)
		release(l->tap);
	if (r < 0) {
		l->tap[0] = l->veth[0] = '\0';
		return errf(why, len, r, "the lab holds %d link devices, its most", LAB_LINKS_MAX);
	}
	r = tap_make(l->tap);
	if (r == 0)
		r = mark(l->tap);
	if (r == 0)
		r = no_ipv6(l->tap);
	if (r < 0) {
		errf(why, len, r == -EPERM || r == -EACCES ? -EOPNOTSUPP : r, "a tap device %s in the root network "
		     "namespace for the hypervisor to open (/dev/net/tun, CAP_NET_ADMIN): %s", l->tap, strerror(-r));
		goto fail;
	}
	r = holder_start(&l->holder);
	if (r < 0) {
		errf(why, len, r == -EPERM ? -EOPNOTSUPP : r, "a network namespace of the lab's own (unshare): %s",
		     strerror(-r));
		goto fail;
	}
	/* the veth, its other end made vmbtap0 in the lab's namespace */
	snprintf(line, sizeof(line), "ip link add %s type veth peer name " LAB_TAP_NAME "0 netns %d", l->veth,
		 (int)l->holder);
	r = lab_run_line(line, why, len);
	if (r == 0 && (r = mark(l->veth)) < 0)
		errf(why, len, r, "marking %s as the lab's (its ifalias): %s", l->veth, strerror(-r));
	if (r == 0 && (r = no_ipv6(l->veth)) < 0)
		errf(why, len, r, "turning IPv6 off on %s: %s", l->veth, strerror(-r));
	if (r == 0)
		r = lab_net_in(l->holder, host_end, &(struct host_end){ .be = be, .c = c, .why = why, .len = len });
	/* each one's ingress out of the other, then both up */
	for (int k = 0; r == 0 && k < 2; k++) {
		const char *from = k ? l->veth : l->tap, *to = k ? l->tap : l->veth;

		snprintf(line, sizeof(line), "tc qdisc add dev %s handle ffff: ingress", from);
		r = lab_run_line(line, why, len);
		snprintf(line, sizeof(line), "tc filter add dev %s parent ffff: protocol all u32 match u32 0 0 action "
			 "mirred egress redirect dev %s", from, to);
		if (r == 0)
			r = lab_run_line(line, why, len);
	}
	for (int k = 0; r == 0 && k < 2; k++) {
		snprintf(line, sizeof(line), "ip link set dev %s up", k ? l->veth : l->tap);
		r = lab_run_line(line, why, len);
	}
	if (r == 0)
		return 0;
fail:
	lab_link_down(l);
	return r;
}

void lab_link_down(struct lab_link *l)
{
	/* the veth first, its peer with it: nothing of it waits for the namespace's end */
	drop(l->veth);
	if (l->holder > 0)
		(void)lab_proc_reap(l->holder, 0, NULL);
	l->holder = 0;
	drop(l->tap);
}

void lab_links_remove_all(void)
{
	for (int i = 0; i < LAB_LINKS_MAX; i++) {
		if (!held[i][0])
			continue;
		(void)link_del(held[i]);
		held[i][0] = '\0';
	}
}

void lab_links_reclaim(void)
{
	DIR *d = opendir("/sys/class/net");
	unsigned long long ns = pid_ns();
	struct dirent *e;

	while (d && (e = readdir(d))) {
		char path[300], *alias = NULL;
		bool left;

		if (strncmp(e->d_name, LAB_LINK_TAP, strlen(LAB_LINK_TAP)) &&
		    strncmp(e->d_name, LAB_LINK_VETH, strlen(LAB_LINK_VETH)))
			continue;
		snprintf(path, sizeof(path), "/sys/class/net/%s/ifalias", e->d_name);
		left = read_file(path, &alias) == 0 && lab_link_left(e->d_name, alias, ns, proc_start);
		free(alias);
		if (left && link_del(e->d_name) == 0)
			log_info("removed %s, a link device of the lab's that vmbench %ld left when it was killed", e->d_name,
				 strtol(e->d_name + strlen(LAB_LINK_TAP), NULL, 10));
	}
	if (d)
		closedir(d);
	vmb_test_stop_point("lab-links-reclaimed");
}
