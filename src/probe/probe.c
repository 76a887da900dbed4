/* The environment fingerprint, assembled from one function per source
 * (hv.c, kvm.c, cpu.c, devices.c; the kernel knobs, memory, clocks and
 * container here). Every file is read through read.c: bounded, regular
 * files only, strings made valid UTF-8. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "internal.h"
#include "../core/util.h"
#include "../core/banned.h"

static const char *root_of(const struct probe_src *src)
{
	return src && src->root ? src->root : "/";
}

int probe_check_root(const char *root, char *err, size_t errlen)
{
	static const char *const parts[] = { "/proc", "/sys" };
	struct stat st;

	if (!strcmp(root, "/"))
		return 0;
	if (stat(root, &st) < 0)
		return errf(err, errlen, -errno, "--root %s: %s; give a directory recorded by "
			    "scripts/record-fixture.sh", root, strerror(errno));
	if (!S_ISDIR(st.st_mode))
		return errf(err, errlen, -ENOTDIR, "--root %s: not a directory; give a directory recorded by "
			    "scripts/record-fixture.sh", root);
	for (size_t i = 0; i < ARRAY_SIZE(parts); i++) {
		char p[4096];

		probe_path(root, parts[i], p, sizeof(p));
		if (stat(p, &st) == 0 && S_ISDIR(st.st_mode))
			return 0;
	}
	return errf(err, errlen, -ENOENT, "--root %s: not a probe tree (it has neither proc/ nor sys/); give "
		    "a directory recorded by scripts/record-fixture.sh", root);
}

/* A line of /proc/sys/kernel under root; on this machine without /proc (a
 * bare root: make static's binary copied alone into a chroot or a new VM's
 * initramfs), what uname(2) says of the same. */
enum uts_field { UTS_RELEASE, UTS_VERSION, UTS_NODENAME };

static json_t *uts_line(const char *root, const char *path, enum uts_field f)
{
	struct utsname u;
	char buf[256];

	if (probe_read_line(root, path, buf, sizeof(buf)) == 0 || strcmp(root, "/") || uname(&u) < 0)
		return probe_jline(root, path);
	return probe_jstr(f == UTS_RELEASE ? u.release : f == UTS_VERSION ? u.version : u.nodename);
}

/* systemd's convention: PID 1's environment has container=<type>. */
static int pid1_container(const char *root, char *out, size_t len)
{
	char *buf;
	size_t n;
	int r = probe_read(root, "/proc/1/environ", PROBE_MAX_TEXT, &buf, &n);

	if (r < 0)
		return r;
	r = probe_environ_get(buf, n, "container", out, len);
	free(buf);
	return r;
}

static json_t *probe_container(const char *root)
{
	char type[64] = "";
	char *s = NULL;
	size_t n;

	if (probe_exists(root, "/.dockerenv"))
		snprintf(type, sizeof(type), "docker");
	else if (probe_exists(root, "/run/.containerenv"))
		snprintf(type, sizeof(type), "podman");
	else if (pid1_container(root, type, sizeof(type)) == 0)
		;
	else if (probe_read_line(root, "/run/systemd/container", type, sizeof(type)) == 0)
		;
	else if (probe_read(root, "/proc/1/cgroup", PROBE_MAX_TEXT, &s, &n) == 0) {
		if (strstr(s, "kubepods"))
			snprintf(type, sizeof(type), "kubernetes");
		else if (strstr(s, "docker"))
			snprintf(type, sizeof(type), "docker");
		else if (strstr(s, "/lxc"))
			snprintf(type, sizeof(type), "lxc");
	}
	free(s);
	if (!*type && probe_exists(root, "/proc/vz") && !probe_exists(root, "/proc/bc"))
		snprintf(type, sizeof(type), "openvz");
	return json_pack("{s:b, s:o}", "detected", *type != '\0', "type", probe_jstr(*type ? type : NULL));
}

static json_t *meminfo_json(const char *mi, size_t n, const char *key)
{
	int64_t v;

	return mi && probe_meminfo_value(mi, n, key, &v) == 0 ? json_integer((json_int_t)v) : json_null();
}

static json_t *probe_memory(const char *root)
{
	char *mi = NULL;
	size_t n = 0;
	json_t *o;

	(void)probe_read(root, "/proc/meminfo", PROBE_MAX_TEXT, &mi, &n);
	o = json_pack("{s:o, s:o, s:o, s:o}",
		      "total_bytes", meminfo_json(mi, n, "MemTotal"),
		      "available_bytes", meminfo_json(mi, n, "MemAvailable"),
		      "hugepages_total", mi ? meminfo_json(mi, n, "HugePages_Total") : json_integer(0),
		      "hugepage_size_bytes", meminfo_json(mi, n, "Hugepagesize"));
	free(mi);
	return o;
}

static json_t *probe_clocksource(const char *root)
{
	char buf[PROBE_MAX_LINE];
	json_t *avail = json_array();

	if (probe_read_line(root, "/sys/devices/system/clocksource/clocksource0/available_clocksource", buf,
			    sizeof(buf)) == 0) {
		char *save = NULL;

		for (char *t = strtok_r(buf, " ", &save); avail && t; t = strtok_r(NULL, " ", &save))
			if (json_array_append_new(avail, probe_jstr(t)) < 0) {
				json_decref(avail);
				avail = NULL;
			}
	}
	return json_pack("{s:o, s:o}", "current",
			 probe_jline(root, "/sys/devices/system/clocksource/clocksource0/current_clocksource"),
			 "available", avail);
}

static json_t *probe_steal(const char *root)
{
	char *s;
	size_t n;
	uint64_t steal, total;
	long hz = sysconf(_SC_CLK_TCK);
	int r;

	if (probe_read(root, "/proc/stat", PROBE_MAX_TEXT, &s, &n) < 0)
		return json_null();
	r = probe_parse_stat(s, n, &steal, &total);
	free(s);
	if (r < 0)
		return json_null();
	return json_pack("{s:f, s:f}", "seconds", (double)steal / (double)(hz > 0 ? hz : 100),
			 "percent", total ? 100.0 * (double)steal / (double)total : 0.0);
}

static json_t *probe_arch_kernel(const char *root, json_t **arch)
{
	char buf[256];

	if (probe_read_line(root, "/proc/sys/kernel/arch", buf, sizeof(buf)) == 0) {
		*arch = probe_jstr(buf);
	} else if (!strcmp(root, "/")) {
		struct utsname u;

		*arch = uname(&u) == 0 ? probe_jstr(u.machine) : json_null();
	} else {
		*arch = json_null();
	}
	return json_pack("{s:o, s:o, s:o, s:b}", "release", uts_line(root, "/proc/sys/kernel/osrelease", UTS_RELEASE),
			 "version", uts_line(root, "/proc/sys/kernel/version", UTS_VERSION),
			 "cmdline", probe_jline(root, "/proc/cmdline"),
			 /* booted by UEFI firmware (its runtime services are the kernel's) */
			 "efi", probe_exists(root, "/sys/firmware/efi"));
}

json_t *probe_fingerprint(const struct probe_src *src)
{
	const char *root = root_of(src);
	char *cpuinfo = NULL;
	size_t n = 0;
	struct probe_cpuinfo ci;
	json_t *arch = NULL, *kernel, *o;

	(void)probe_read(root, "/proc/cpuinfo", PROBE_MAX_CPUINFO, &cpuinfo, &n);
	probe_parse_cpuinfo(cpuinfo ? cpuinfo : "", n, &ci);
	kernel = probe_arch_kernel(root, &arch);
	o = json_pack("{s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:{s:o, s:o}, s:o, s:o, s:o, s:o, s:o}",
		      "hostname", uts_line(root, "/proc/sys/kernel/hostname", UTS_NODENAME),
		      "arch", arch,
		      "kernel", kernel,
		      "hypervisor", probe_hypervisor(root, &ci),
		      "kvm", probe_kvm(root),
		      "container", probe_container(root),
		      "cpu", probe_cpu(root, &ci),
		      "memory", probe_memory(root),
		      "clocksource", probe_clocksource(root),
		      "thp",
		      "enabled", probe_jbracketed(root, "/sys/kernel/mm/transparent_hugepage/enabled"),
		      "defrag", probe_jbracketed(root, "/sys/kernel/mm/transparent_hugepage/defrag"),
		      "block_devices", probe_block(root),
		      "network", probe_net(root),
		      "shares", probe_shares(root),
		      "balloon", probe_balloon(root),
		      "steal", probe_steal(root));
	free(cpuinfo);
	return o;
}
