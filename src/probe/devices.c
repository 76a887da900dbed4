/* Devices and their drivers: block devices with the controller driver
 * behind each, NICs, shared folders, the memory balloon. */
#include <arpa/inet.h>
#include <dirent.h>
#include <ifaddrs.h>
#include <limits.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "internal.h"
#include "../core/util.h"
#include "../core/banned.h"

/* The driver behind a device: walk up from its sysfs node to the first
 * device with a driver that is not a generic class driver ("sd" for SCSI
 * disks, "sr" for CD-ROMs), i.e. the controller: ahci, virtio_scsi, nvme...
 * A USB disk's SCSI host is its USB interface's (usb-storage, uas) on a
 * USB device ("usb", the root hub's too): past them is the host
 * controller, xhci_hcd or ehci-pci, which is what tells USB disks apart. */
static void device_driver(const char *devdir, char *out, size_t len)
{
	static const char *const generic[] = { "sd", "sr", "st", "usb-storage", "uas", "usb" };
	char dir[PATH_MAX], p[PATH_MAX + 16];

	out[0] = '\0';
	if (!realpath(devdir, dir))
		return;
	for (int depth = 0; depth < 16; depth++) {
		char name[128];
		char *slash;
		bool skip = false;

		snprintf(p, sizeof(p), "%s/driver", dir);
		if (probe_link_base(p, name, sizeof(name)) == 0) {
			for (size_t i = 0; i < ARRAY_SIZE(generic); i++)
				skip |= !strcmp(name, generic[i]);
			if (!skip) {
				snprintf(out, len, "%s", name);
				return;
			}
		}
		slash = strrchr(dir, '/');
		if (!slash || slash == dir || str_has_prefix(slash, "/devices"))
			return;
		*slash = '\0';
	}
}

static bool skip_block(const char *name)
{
	static const char *const virtual[] = { "loop", "ram", "zram", "sr", "fd" };

	for (size_t i = 0; i < ARRAY_SIZE(virtual); i++)
		if (str_has_prefix(name, virtual[i]))
			return true;
	return false;
}

static json_t *block_device(const char *root, const char *dir, const char *name)
{
	char p[PATH_MAX + 300], rel[300], driver[64], buf[64], serial[64];
	int64_t sectors = -1;

	snprintf(rel, sizeof(rel), "/sys/block/%s/size", name);
	if (probe_read_line(root, rel, buf, sizeof(buf)) == 0)
		(void)parse_i64(buf, 0, INT64_MAX / 512, &sectors);
	snprintf(p, sizeof(p), "%s/%s", dir, name);
	device_driver(p, driver, sizeof(driver));
	snprintf(rel, sizeof(rel), "/sys/block/%s/queue/rotational", name);
	if (probe_read_line(root, rel, buf, sizeof(buf)) < 0)
		buf[0] = '\0';
	/* the serial a virtio disk was given (the lab's root disk is told from
	 * the scratch disk by it); other disks have theirs elsewhere, or none */
	snprintf(p, sizeof(p), "/sys/block/%s/serial", name);
	if (probe_read_line(root, p, serial, sizeof(serial)) < 0)
		serial[0] = '\0';
	snprintf(rel, sizeof(rel), "/sys/block/%s/queue/scheduler", name);
	return json_pack("{s:o, s:o, s:o, s:o, s:o, s:o}",
			 "name", probe_jstr(name),
			 "size_bytes", sectors >= 0 ? json_integer((json_int_t)(sectors * 512)) : json_null(),
			 "rotational", !strcmp(buf, "1") ? json_true() : !strcmp(buf, "0") ? json_false() : json_null(),
			 "scheduler", probe_jbracketed(root, rel),
			 "driver", probe_jstr(*driver ? driver : NULL),
			 "serial", probe_jstr(*serial ? serial : NULL));
}

json_t *probe_block(const char *root)
{
	char dir[PATH_MAX];
	json_t *arr = json_array();
	struct dirent **list = NULL;
	int n;

	probe_path(root, "/sys/block", dir, sizeof(dir));
	n = scandir(dir, &list, NULL, alphasort);
	for (int i = 0; i < n; i++) {
		if (list[i]->d_name[0] != '.' && !skip_block(list[i]->d_name))
			if (arr && json_array_append_new(arr, block_device(root, dir, list[i]->d_name)) < 0) {
				json_decref(arr); /* out of memory: no list rather than one missing a device */
				arr = NULL;
			}
		free(list[i]);
	}
	free(list);
	return arr;
}

/* The IPv4 addresses of interface name, "ADDR/PREFIX" each: of this
 * machine only (a recorded tree has none: null), as the lab's check that
 * a guest's NIC is configured reads them. */
static json_t *net_ipv4(const char *root, const char *name)
{
	struct ifaddrs *all, *a;
	json_t *arr;

	if (strcmp(root, "/") || getifaddrs(&all) < 0)
		return json_null();
	arr = json_array();
	for (a = all; arr && a; a = a->ifa_next) {
		char buf[INET_ADDRSTRLEN], out[INET_ADDRSTRLEN + 4];
		uint32_t mask;
		int bits = 0;

		if (!a->ifa_addr || a->ifa_addr->sa_family != AF_INET || strcmp(a->ifa_name, name))
			continue;
		mask = a->ifa_netmask ? ntohl(((struct sockaddr_in *)a->ifa_netmask)->sin_addr.s_addr) : 0;
		while (bits < 32 && (mask & (1u << (31 - bits))))
			bits++;
		if (!inet_ntop(AF_INET, &((struct sockaddr_in *)a->ifa_addr)->sin_addr, buf, sizeof(buf)))
			continue;
		snprintf(out, sizeof(out), "%s/%d", buf, bits);
		if (json_array_append_new(arr, json_string(out)) < 0) {
			json_decref(arr);
			arr = NULL;
		}
	}
	freeifaddrs(all);
	return arr ? arr : json_null();
}

/* The transmit queues the kernel uses on a NIC (/sys/class/net/NAME/queues/
 * has tx-0 ... for each): a multiqueue NIC's channels in use; null when
 * not known. */
static json_t *net_queues(const char *root, const char *name)
{
	char rel[300], p[PATH_MAX];
	json_int_t n = 0;
	struct dirent *e;
	DIR *d;

	snprintf(rel, sizeof(rel), "/sys/class/net/%s/queues", name);
	probe_path(root, rel, p, sizeof(p));
	d = opendir(p);
	if (!d)
		return json_null();
	while ((e = readdir(d)))
		n += str_has_prefix(e->d_name, "tx-");
	closedir(d);
	return n ? json_integer(n) : json_null();
}

/* A bond's mode and a bond's slave's master (the lab's nics key): set on
 * dev only where the interface is one */
static json_t *net_bonding(json_t *dev, const char *root, const char *dir, const char *name)
{
	char p[PATH_MAX + 300], rel[300], master[64] = "", mode[64];

	if (!dev)
		return NULL;
	snprintf(p, sizeof(p), "%s/%s/master", dir, name);
	if (probe_link_base(p, master, sizeof(master)) == 0 && *master &&
	    json_object_set_new(dev, "master", json_string(master)) < 0)
		goto fail;
	snprintf(rel, sizeof(rel), "/sys/class/net/%s/bonding/mode", name);
	/* "balance-rr 0": the mode's name */
	if (probe_read_line(root, rel, mode, sizeof(mode)) == 0 &&
	    json_object_set_new(dev, "bond_mode", json_stringn(mode, strcspn(mode, " "))) < 0)
		goto fail;
	return dev;
fail:
	json_decref(dev);
	return NULL;
}

static json_t *net_device(const char *root, const char *dir, const char *name)
{
	char p[PATH_MAX + 300], rel[300], mtu[300], driver[64] = "", speed[32];
	int64_t mbps = -1;

	snprintf(p, sizeof(p), "%s/%s/device/driver", dir, name);
	(void)probe_link_base(p, driver, sizeof(driver));
	snprintf(rel, sizeof(rel), "/sys/class/net/%s/speed", name);
	if (probe_read_line(root, rel, speed, sizeof(speed)) == 0)
		(void)parse_i64(speed, -1, INT32_MAX, &mbps);
	snprintf(mtu, sizeof(mtu), "/sys/class/net/%s/mtu", name);
	snprintf(rel, sizeof(rel), "/sys/class/net/%s/operstate", name);
	{
		char buf[64];
		int64_t v;
		json_t *jmtu = json_null();

		if (probe_read_line(root, mtu, buf, sizeof(buf)) == 0 && parse_i64(buf, 0, INT32_MAX, &v) == 0)
			jmtu = json_integer((json_int_t)v);
		return net_bonding(json_pack("{s:o, s:o, s:o, s:o, s:o, s:o, s:o}",
				 "name", probe_jstr(name),
				 "queues", net_queues(root, name),
				 "driver", probe_jstr(*driver ? driver : NULL),
				 "speed_mbps", mbps > 0 ? json_integer((json_int_t)mbps) : json_null(),
				 "mtu", jmtu,
				 "state", probe_jline(root, rel),
				 "ipv4", net_ipv4(root, name)), root, dir, name);
	}
}

json_t *probe_net(const char *root)
{
	char dir[PATH_MAX];
	json_t *arr = json_array();
	struct dirent **list = NULL;
	int n;

	probe_path(root, "/sys/class/net", dir, sizeof(dir));
	n = scandir(dir, &list, NULL, alphasort);
	for (int i = 0; i < n; i++) {
		char p[PATH_MAX + 300];
		struct stat st;

		/* an interface is a link (a directory in a recorded tree); the
		 * bonding driver's file bonding_masters is none */
		snprintf(p, sizeof(p), "%s/%s", dir, list[i]->d_name);
		if (list[i]->d_name[0] != '.' && strcmp(list[i]->d_name, "lo") && !(lstat(p, &st) == 0 && S_ISREG(st.st_mode)))
			if (arr && json_array_append_new(arr, net_device(root, dir, list[i]->d_name)) < 0) {
				json_decref(arr); /* out of memory: no list rather than one missing a device */
				arr = NULL;
			}
		free(list[i]);
	}
	free(list);
	return arr;
}

/* The shared-folder devices: virtio devices whose driver serves a host's
 * directory to this machine, with the tag it is mounted by (9p has it in
 * sysfs; virtiofs before Linux 6.9 does not: null). */
json_t *probe_shares(const char *root)
{
	static const char *const drivers[] = { "9pnet_virtio", "virtiofs" };
	char dir[PATH_MAX];
	json_t *arr = json_array();
	struct dirent **list = NULL;
	int n;

	probe_path(root, "/sys/bus/virtio/devices", dir, sizeof(dir));
	n = scandir(dir, &list, NULL, alphasort);
	for (int i = 0; i < n; i++) {
		char p[PATH_MAX + 300], rel[300], driver[64] = "", tag[128];
		bool share = false;

		snprintf(p, sizeof(p), "%s/%s/driver", dir, list[i]->d_name);
		if (list[i]->d_name[0] != '.' && probe_link_base(p, driver, sizeof(driver)) == 0)
			for (size_t j = 0; j < ARRAY_SIZE(drivers); j++)
				share |= !strcmp(driver, drivers[j]);
		snprintf(rel, sizeof(rel), "/sys/bus/virtio/devices/%s/mount_tag", list[i]->d_name);
		if (share && arr &&
		    json_array_append_new(arr, json_pack("{s:s, s:s, s:o}", "name", list[i]->d_name, "driver", driver, "tag",
							 probe_read_line(root, rel, tag, sizeof(tag)) == 0
								 ? probe_jstr(tag) : json_null())) < 0) {
			json_decref(arr); /* out of memory: no list rather than one missing a device */
			arr = NULL;
		}
		free(list[i]);
	}
	free(list);
	return arr;
}

json_t *probe_balloon(const char *root)
{
	static const struct {
		const char *path, *driver;
	} where[] = {
		{ "/sys/bus/virtio/drivers/virtio_balloon", "virtio_balloon" },
		{ "/sys/module/vmw_balloon", "vmw_balloon" },
		{ "/sys/module/vboxguest", "vboxguest" },
		{ "/sys/bus/vmbus/drivers/hv_balloon", "hv_balloon" },
		{ "/sys/module/xen_balloon", "xen_balloon" },
	};

	for (size_t i = 0; i < ARRAY_SIZE(where); i++)
		if (probe_exists(root, where[i].path))
			return json_pack("{s:b, s:s}", "present", 1, "driver", where[i].driver);
	return json_pack("{s:b, s:n}", "present", 0, "driver");
}
