/* The guest's NIC queues (channels.h): the kernel command line's word and
 * the ethtool ioctl that sets them. */
#include <dirent.h>
#include <errno.h>
#include <linux/ethtool.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "channels.h"
#include "../core/util.h"
#include "../core/banned.h"

#define QUEUES_WORD "vmbench.queues="

int lab_cmdline_queues(const char *cmdline, size_t len, unsigned *out)
{
	size_t wl = strlen(QUEUES_WORD), i = 0, n;

	while (i < len && cmdline[i]) {
		if (strchr(" \t\n", cmdline[i])) {
			i++;
			continue;
		}
		for (n = 0; i + n < len && cmdline[i + n] && !strchr(" \t\n", cmdline[i + n]); n++)
			;
		if (n >= wl && !memcmp(cmdline + i, QUEUES_WORD, wl)) {
			char num[8];
			int64_t v;

			if (n - wl >= sizeof(num))
				return -EINVAL;
			snprintf(num, sizeof(num), "%.*s", (int)(n - wl), cmdline + i + wl);
			if (parse_i64(num, 1, 256, &v) < 0)
				return -EINVAL;
			*out = (unsigned)v;
			return 0;
		}
		i += n;
	}
	return -ENOENT;
}

/* One NIC's channels: n combined when its driver has room for them */
static int set_one(int s, const char *name, unsigned n, char *why, size_t len)
{
	struct ethtool_channels ch = { .cmd = ETHTOOL_GCHANNELS };
	struct ifreq ifr;

	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", name);
	ifr.ifr_data = (void *)&ch;
	if (ioctl(s, SIOCETHTOOL, &ifr) < 0 || ch.max_combined < n)
		return 0; /* no channels, or not that many: not a NIC this is for */
	if (ch.combined_count == n)
		return 0;
	ch.cmd = ETHTOOL_SCHANNELS;
	ch.combined_count = n;
	if (ioctl(s, SIOCETHTOOL, &ifr) < 0)
		return errf(why, len, -errno, "%s: setting %u combined channels: %s", name, n, strerror(errno));
	return 0;
}

int lab_set_queues(unsigned n, char *why, size_t len)
{
	DIR *d = opendir("/sys/class/net");
	struct dirent *e;
	int s, r = 0;

	if (!d)
		return errf(why, len, -errno, "/sys/class/net: %s", strerror(errno));
	s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (s < 0) {
		r = errf(why, len, -errno, "a socket for the ethtool ioctl: %s", strerror(errno));
		closedir(d);
		return r;
	}
	while (r == 0 && (e = readdir(d)))
		if (e->d_name[0] != '.' && strcmp(e->d_name, "lo"))
			r = set_one(s, e->d_name, n, why, len);
	close(s);
	closedir(d);
	return r;
}
