/* The interrupts a NIC raised during a request/response test, as the
 * machine the client runs on counts them (net_irq.h): the interface the
 * route to the server leaves by, its device's interrupt lines (its MSI or
 * MSI-X vectors, else its legacy line, from sysfs), and their counts over
 * every CPU in /proc/interrupts before and after. A guest cannot timestamp
 * an interrupt's delivery; it can count them, and that count per round
 * trip says how many of its replies came by an interrupt of their own. */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "net_irq.h"
#include "../core/file.h"
#include "../core/banned.h"

/* A decimal number at *p, its end in *end; false when there is none. */
static bool take_u64(const char *p, const char **end, uint64_t *v)
{
	uint64_t x = 0;
	const char *q = p;

	while (*q >= '0' && *q <= '9') {
		if (x > (UINT64_MAX - 9) / 10)
			return false;
		x = x * 10 + (uint64_t)(*q - '0');
		q++;
	}
	if (q == p)
		return false;
	*end = q;
	*v = x;
	return true;
}

int net_irq_sum(const char *text, const unsigned *irqs, size_t n, uint64_t *sum)
{
	const char *p = text, *eol;
	size_t ncpu = 0, found = 0;
	uint64_t total = 0;

	if (!text)
		return -EINVAL;
	/* the header: one column per CPU, "CPU0 CPU1 ..." */
	eol = strchr(p, '\n');
	if (!eol)
		return -EINVAL;
	for (const char *q = p; q < eol; q++)
		if (!strncmp(q, "CPU", 3) && (q == p || q[-1] == ' '))
			ncpu++;
	if (!ncpu)
		return -EINVAL;
	for (p = eol + 1; *p; p = eol ? eol + 1 : p + strlen(p)) {
		const char *q = p, *end;
		uint64_t irq, v, line = 0;
		bool want = false;
		size_t k;

		eol = strchr(p, '\n');
		while (*q == ' ')
			q++;
		/* numbered lines only ("NMI:", "LOC:" are the CPU's own) */
		if (!take_u64(q, &end, &irq) || *end != ':')
			continue;
		for (size_t i = 0; i < n; i++)
			want |= irqs[i] == irq;
		if (!want)
			continue;
		q = end + 1;
		for (k = 0; k < ncpu; k++) {
			while (*q == ' ' || *q == '\t')
				q++;
			if (!take_u64(q, &end, &v) || (eol && end > eol) || line + v < line)
				break;
			line += v;
			q = end;
		}
		/* a line with fewer counts than CPUs is not read as a count */
		if (k < ncpu || total + line < total)
			return -EINVAL;
		total += line;
		found++;
	}
	*sum = total;
	return found > INT_MAX ? INT_MAX : (int)found;
}

/* The interface whose address the route to `to` leaves from: a UDP
 * socket connected (which sends nothing), its local address matched
 * against the interfaces'. 0 with ifname, -ENOENT for loopback or none. */
static int route_iface(const struct sockaddr_storage *to, socklen_t len, char *ifname, size_t iflen)
{
	struct sockaddr_storage me;
	socklen_t ml = sizeof(me);
	struct ifaddrs *ifs = NULL;
	int fd = socket(to->ss_family, SOCK_DGRAM | SOCK_CLOEXEC, 0), r = -ENOENT;

	if (fd < 0)
		return -errno;
	if (connect(fd, (const struct sockaddr *)to, len) < 0 || getsockname(fd, (struct sockaddr *)&me, &ml) < 0) {
		r = -errno;
		close(fd);
		return r;
	}
	close(fd);
	if (getifaddrs(&ifs) < 0)
		return -errno;
	for (struct ifaddrs *i = ifs; i; i = i->ifa_next) {
		bool same = false;

		if (!i->ifa_addr || i->ifa_addr->sa_family != me.ss_family || (i->ifa_flags & IFF_LOOPBACK))
			continue;
		if (me.ss_family == AF_INET)
			same = ((const struct sockaddr_in *)(const void *)i->ifa_addr)->sin_addr.s_addr ==
			       ((const struct sockaddr_in *)(const void *)&me)->sin_addr.s_addr;
		else if (me.ss_family == AF_INET6)
			same = !memcmp(&((const struct sockaddr_in6 *)(const void *)i->ifa_addr)->sin6_addr,
				       &((const struct sockaddr_in6 *)(const void *)&me)->sin6_addr, sizeof(struct in6_addr));
		if (same) {
			snprintf(ifname, iflen, "%s", i->ifa_name);
			r = 0;
			break;
		}
	}
	freeifaddrs(ifs);
	return r;
}

/* The device's MSI/MSI-X vectors (a directory of their numbers), else its
 * legacy line (a file holding it), at dir: how many went into q. */
static size_t device_irqs(const char *dir, struct net_irqs *q)
{
	char p[PATH_MAX];
	char *text = NULL;
	DIR *d;
	struct dirent *e;
	size_t before = q->n;

	snprintf(p, sizeof(p), "%s/msi_irqs", dir);
	d = opendir(p);
	while (d && (e = readdir(d)) && q->n < NET_IRQ_MAX) {
		const char *end;
		uint64_t v;

		if (take_u64(e->d_name, &end, &v) && !*end && v < 1u << 24)
			q->irq[q->n++] = (unsigned)v;
	}
	if (d)
		closedir(d);
	if (q->n > before) {
		q->msi = true;
		return q->n - before;
	}
	snprintf(p, sizeof(p), "%s/irq", dir);
	if (read_file(p, &text) == 0) {
		const char *end;
		uint64_t v;

		/* 0: no line (a device that only has MSI, none enabled) */
		if (take_u64(text, &end, &v) && v > 0 && v < 1u << 24)
			q->irq[q->n++] = (unsigned)v;
		free(text);
	}
	return q->n - before;
}

int net_irqs_find(const struct sockaddr_storage *to, socklen_t len, struct net_irqs *q)
{
	char dev[PATH_MAX];
	int r;

	memset(q, 0, sizeof(*q));
	r = route_iface(to, len, q->ifname, sizeof(q->ifname));
	if (r < 0)
		return r;
	/* a PCI NIC's device is the PCI function; a virtio NIC's is the
	 * virtio device, whose parent is the PCI function with the vectors */
	snprintf(dev, sizeof(dev), "/sys/class/net/%s/device", q->ifname);
	if (!device_irqs(dev, q)) {
		snprintf(dev, sizeof(dev), "/sys/class/net/%s/device/..", q->ifname);
		(void)device_irqs(dev, q);
	}
	return q->n ? 0 : -ENOENT;
}

int net_irqs_read(const struct net_irqs *q, uint64_t *sum)
{
	char *text = NULL;
	int r = read_file("/proc/interrupts", &text);

	if (r < 0)
		return r;
	r = net_irq_sum(text, q->irq, q->n, sum);
	free(text);
	return r < 0 ? r : r == 0 ? -ENOENT : 0;
}
