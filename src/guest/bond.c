/* The guest's bond of several NICs (bond.h): the kernel command line's
 * words, the bonding driver's sysfs writes, the address on the bond. */
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bond.h"
#include "../core/clock.h"
#include "../core/util.h"
#include "../core/banned.h"

#define BOND_WORD "vmbench.bond="
#define NET_WORD "vmbench.net="
#define SYS_NET "/sys/class/net"

/* The value of the first word of cmdline that starts with key, into out:
 * 0, -ENOENT, -EINVAL when it does not fit */
static int cmdline_word(const char *cmdline, size_t len, const char *key, char *out, size_t outlen)
{
	size_t kl = strlen(key), i = 0, n;

	while (i < len && cmdline[i]) {
		if (strchr(" \t\n", cmdline[i])) {
			i++;
			continue;
		}
		for (n = 0; i + n < len && cmdline[i + n] && !strchr(" \t\n", cmdline[i + n]); n++)
			;
		if (n >= kl && !memcmp(cmdline + i, key, kl)) {
			if (n - kl >= outlen)
				return -EINVAL;
			snprintf(out, outlen, "%.*s", (int)(n - kl), cmdline + i + kl);
			return 0;
		}
		i += n;
	}
	return -ENOENT;
}

int lab_cmdline_bond(const char *cmdline, size_t len, struct lab_bond *b)
{
	char word[48], *comma;
	struct lab_bond out = { 0 };
	int64_t n;
	int r = cmdline_word(cmdline, len, BOND_WORD, word, sizeof(word));

	if (r < 0)
		return r;
	comma = strchr(word, ',');
	if (!comma || comma == word || (size_t)(comma - word) >= sizeof(out.mode) ||
	    strspn(word, "abcdefghijklmnopqrstuvwxyz0123456789.-") != (size_t)(comma - word) || parse_i64(comma + 1, 2, 8, &n) < 0)
		return -EINVAL;
	snprintf(out.mode, sizeof(out.mode), "%.*s", (int)(comma - word), word);
	out.n = (unsigned)n;
	if (cmdline_word(cmdline, len, NET_WORD, out.addr, sizeof(out.addr)) < 0)
		out.addr[0] = '\0';
	*b = out;
	return 0;
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int lab_bond_nics(const char *root, struct strv *nics)
{
	char dir[512];
	struct strv out = { 0 };
	struct dirent *e;
	DIR *d;
	int r = 0;

	snprintf(dir, sizeof(dir), "%s%s", strcmp(root, "/") ? root : "", SYS_NET);
	d = opendir(dir);
	if (!d)
		return -errno;
	while (r == 0 && (e = readdir(d))) {
		char dev[800];
		struct stat st;

		if (e->d_name[0] == '.')
			continue;
		/* a device behind it (a PCI NIC): lo and the bond have none */
		snprintf(dev, sizeof(dev), "%s/%s/device", dir, e->d_name);
		if (stat(dev, &st) == 0)
			r = strv_push(&out, e->d_name);
	}
	closedir(d);
	if (r < 0) {
		strv_clear(&out);
		return r;
	}
	if (out.n > 1)
		qsort(out.v, out.n, sizeof(out.v[0]), name_cmp);
	*nics = out;
	return 0;
}

int lab_bond_plan(const struct lab_bond *b, const struct strv *nics, struct strv *writes)
{
	char line[128];
	int r;

	r = strv_push(writes, "bonding_masters +" LAB_BOND_DEV);
	snprintf(line, sizeof(line), LAB_BOND_DEV "/bonding/mode %s", b->mode);
	if (r == 0)
		r = strv_push(writes, line);
	/* the link monitor: a slave whose carrier goes is taken out of the round */
	if (r == 0)
		r = strv_push(writes, LAB_BOND_DEV "/bonding/miimon 100");
	for (size_t i = 0; r == 0 && i < nics->n; i++) {
		snprintf(line, sizeof(line), LAB_BOND_DEV "/bonding/slaves +%s", nics->v[i]);
		r = strv_push(writes, line);
	}
	return r;
}

int lab_bond_apply(const char *root, const struct strv *writes, char *why, size_t len)
{
	const char *base = strcmp(root, "/") ? root : "";

	for (size_t i = 0; i < writes->n; i++) {
		const char *w = writes->v[i], *value = strchr(w, ' ');
		char path[512];
		int fd;
		ssize_t put;

		if (!value)
			return errf(why, len, -EINVAL, "bond: '%s' is no FILE VALUE", w);
		/* the driver makes bond0 as it loads (max_bonds=1): made once */
		if (!strncmp(w, "bonding_masters ", 16)) {
			snprintf(path, sizeof(path), "%s" SYS_NET "/" LAB_BOND_DEV, base);
			if (access(path, F_OK) == 0)
				continue;
		}
		snprintf(path, sizeof(path), "%s" SYS_NET "/%.*s", base, (int)(value - w), w);
		fd = open(path, O_WRONLY | O_CLOEXEC);
		if (fd < 0)
			return errf(why, len, -errno, "bond: %s: %s", path, strerror(errno));
		put = write(fd, value + 1, strlen(value + 1));
		if (put < 0 || (size_t)put != strlen(value + 1)) {
			int r = put < 0 ? -errno : -EIO;

			close(fd);
			return errf(why, len, r, "bond: writing '%s' to %s: %s", value + 1, path, strerror(-r));
		}
		close(fd);
	}
	return 0;
}

/* The bond's address (ADDR/PREFIX) and its flags up */
static int bond_up(const char *addr, char *why, size_t len)
{
	struct ifreq ifr;
	struct sockaddr_in *sin = (struct sockaddr_in *)&ifr.ifr_addr;
	char ip[32];
	const char *slash = strchr(addr, '/');
	int64_t bits = 32;
	int s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0), r = 0;

	if (s < 0)
		return errf(why, len, -errno, "bond: a socket: %s", strerror(errno));
	snprintf(ip, sizeof(ip), "%.*s", (int)(slash ? (size_t)(slash - addr) : strlen(addr)), addr);
	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", LAB_BOND_DEV);
	sin->sin_family = AF_INET;
	if ((slash && parse_i64(slash + 1, 0, 32, &bits) < 0) || inet_pton(AF_INET, ip, &sin->sin_addr) != 1)
		r = errf(why, len, -EINVAL, "bond: vmbench.net=%s is no ADDR/PREFIX", addr);
	if (r == 0 && *ip && ioctl(s, SIOCSIFADDR, &ifr) < 0)
		r = errf(why, len, -errno, "bond: the address %s on " LAB_BOND_DEV ": %s", ip, strerror(errno));
	sin->sin_addr.s_addr = htonl(bits ? ~0u << (32 - bits) : 0);
	if (r == 0 && ioctl(s, SIOCSIFNETMASK, &ifr) < 0)
		r = errf(why, len, -errno, "bond: the netmask of " LAB_BOND_DEV ": %s", strerror(errno));
	if (r == 0 && ioctl(s, SIOCGIFFLAGS, &ifr) < 0)
		r = errf(why, len, -errno, "bond: the flags of " LAB_BOND_DEV ": %s", strerror(errno));
	/* promiscuous, which the driver passes to every slave: balance-rr gives
	 * each slave the bond's MAC address, and a bond of QEMU's vmxnet3
	 * (7.2) still dropped frames sent to it (tcp_rr lost its connection in
	 * both directions; e1000 did not), as if the device filtered on its own
	 * address. The host's bridge sends a frame to one port, so promiscuous
	 * slaves receive nothing more than what is the guest's. */
	ifr.ifr_flags |= IFF_UP | IFF_PROMISC;
	if (r == 0 && ioctl(s, SIOCSIFFLAGS, &ifr) < 0)
		r = errf(why, len, -errno, "bond: " LAB_BOND_DEV " up: %s", strerror(errno));
	close(s);
	return r;
}

/* Is /sys/class/net/NAME/operstate "up"? */
static bool oper_up(const char *name)
{
	char path[128], buf[16] = "";
	int fd;
	ssize_t got;

	snprintf(path, sizeof(path), SYS_NET "/%s/operstate", name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	got = fd >= 0 ? read(fd, buf, sizeof(buf) - 1) : -1;
	if (fd >= 0)
		close(fd);
	return got >= 2 && !strncmp(buf, "up", 2);
}

int lab_bond_setup(const struct lab_bond *b, unsigned timeout_ms, char *why, size_t len)
{
	uint64_t deadline = clock_ns() + (uint64_t)timeout_ms * 1000000;
	struct strv nics = { 0 }, writes = { 0 };
	int r;

	/* the NICs' drivers probe them as init loads the modules: wait for all */
	for (;;) {
		r = lab_bond_nics("/", &nics);
		if (r < 0)
			return errf(why, len, r, "bond: " SYS_NET ": %s", strerror(-r));
		if (nics.n >= b->n || clock_ns() >= deadline)
			break;
		strv_clear(&nics);
		(void)usleep(50000);
	}
	if (nics.n != b->n) {
		r = errf(why, len, -ENODEV, "bond: the guest has %zu NICs, vmbench.bond asked for %u", nics.n, b->n);
		strv_clear(&nics);
		return r;
	}
	r = lab_bond_plan(b, &nics, &writes);
	if (r < 0)
		r = errf(why, len, r, "bond: out of memory");
	if (r == 0)
		r = lab_bond_apply("/", &writes, why, len);
	if (r == 0 && b->addr[0])
		r = bond_up(b->addr, why, len);
	/* the bond is up once one slave has its carrier; every slave's link,
	 * which the host checks, may come later (seen under TCG with four) */
	for (size_t i = 0; r == 0 && i <= nics.n; i++)
		while (!oper_up(i < nics.n ? nics.v[i] : LAB_BOND_DEV) && clock_ns() < deadline)
			(void)usleep(50000);
	strv_clear(&nics);
	strv_clear(&writes);
	return r;
}
