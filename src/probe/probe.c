/* Environment fingerprint from /proc, /sys and CPUID. */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>
#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

#include "probe.h"
#include "../core/util.h"
#include "../core/banned.h"

static const char *root_of(const struct probe_src *src)
{
	return src && src->root ? src->root : "/";
}

static void path_at(const char *root, const char *path, char *buf, size_t len)
{
	snprintf(buf, len, "%s%s", strcmp(root, "/") ? root : "", path);
}

static bool exists_at(const char *root, const char *path)
{
	char full[PATH_MAX];
	struct stat st;

	path_at(root, path, full, sizeof(full));
	return lstat(full, &st) == 0;
}

/* A JSON string from the first line of a file, or null. */
static json_t *jline(const char *root, const char *path)
{
	char buf[512];

	if (read_line_at(root, path, buf, sizeof(buf)) < 0)
		return json_null();
	return json_string(buf);
}

static json_t *jnum_file(const char *root, const char *path)
{
	char buf[64];
	int64_t v;

	if (read_line_at(root, path, buf, sizeof(buf)) < 0 || parse_i64(buf, INT64_MIN, INT64_MAX, &v) < 0)
		return json_null();
	return json_integer(v);
}

int probe_bracketed(const char *s, char *out, size_t len)
{
	const char *a = strchr(s, '['), *b;

	if (!a || !(b = strchr(a, ']')))
		return -EINVAL;
	snprintf(out, len, "%.*s", (int)(b - a - 1), a + 1);
	return 0;
}

static json_t *jbracketed(const char *root, const char *path)
{
	char buf[256], sel[64];

	if (read_line_at(root, path, buf, sizeof(buf)) < 0)
		return json_null();
	if (probe_bracketed(buf, sel, sizeof(sel)) < 0)
		return json_string(buf); /* e.g. a scheduler file that says "none" */
	return json_string(sel);
}

/* Basename of a symlink's target, e.g. device/driver -> "virtio_net". */
static int link_base(const char *path, char *out, size_t len)
{
	char target[PATH_MAX];
	ssize_t n = readlink(path, target, sizeof(target) - 1);
	const char *slash;

	if (n < 0)
		return -errno;
	target[n] = '\0';
	slash = strrchr(target, '/');
	snprintf(out, len, "%s", slash ? slash + 1 : target);
	return 0;
}

/* ---- hypervisor ---- */

const char *probe_hv_from_signature(const char *sig)
{
	static const struct {
		const char *sig, *name;
	} map[] = {
		{ "KVMKVMKVM", "KVM" }, { "VMwareVMware", "VMware" }, { "VBoxVBoxVBox", "VirtualBox" },
		{ "Microsoft Hv", "Microsoft Hv" }, { "XenVMMXenVMM", "Xen" }, { "TCGTCGTCGTCG", "QEMU TCG" },
		{ "bhyve bhyve ", "bhyve" }, { "ACRNACRNACRN", "ACRN" }, { " lrpepyh  vr", "Parallels" },
		{ "prl hyperv  ", "Parallels" }, { "QNXQVMBSQG", "QNX" }, { "EVMMEVMMEVMM", "Intel EVMM" },
	};

	for (size_t i = 0; sig && i < ARRAY_SIZE(map); i++)
		if (!strcmp(sig, map[i].sig))
			return map[i].name;
	return NULL;
}

const char *probe_hv_from_dmi(const char *vendor, const char *product)
{
	static const struct {
		const char *needle, *name;
	} map[] = {
		{ "VirtualBox", "VirtualBox" }, { "innotek", "VirtualBox" }, { "VMware", "VMware" },
		{ "Parallels", "Parallels" }, { "BHYVE", "bhyve" }, { "Xen", "Xen" },
		{ "Amazon EC2", "KVM" }, { "Google Compute Engine", "KVM" },
		/* QEMU's arm virt machine: its SMBIOS product says whether KVM runs it. */
		{ "KVM Virtual Machine", "KVM" }, { "QEMU Virtual Machine", "QEMU TCG" }, { "QEMU", "QEMU" },
		{ "KVM", "KVM" }, { "OpenStack", "KVM" },
	};

	for (size_t i = 0; i < ARRAY_SIZE(map); i++)
		if ((vendor && strstr(vendor, map[i].needle)) || (product && strstr(product, map[i].needle)))
			return map[i].name;
	/* Hyper-V guests: "Microsoft Corporation" / "Virtual Machine". */
	if (vendor && strstr(vendor, "Microsoft") && product && strstr(product, "Virtual Machine"))
		return "Microsoft Hv";
	return NULL;
}

struct cpuid_info {
	bool known;  /* CPUID could be read (x86, or a fixture's .cpuid) */
	bool hv_bit; /* leaf 1 ECX bit 31 */
	char sig[13];
};

static void read_cpuid(const char *root, struct cpuid_info *ci)
{
	memset(ci, 0, sizeof(*ci));
	if (strcmp(root, "/")) {
		char *s, *line, *save = NULL;

		if (read_file_at(root, "/.cpuid", &s) < 0)
			return;
		ci->known = true;
		for (line = strtok_r(s, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
			if (str_has_prefix(line, "hypervisor_bit="))
				ci->hv_bit = line[15] == '1';
			else if (str_has_prefix(line, "signature="))
				snprintf(ci->sig, sizeof(ci->sig), "%s", line + 10);
		}
		free(s);
		return;
	}
#if defined(__x86_64__) || defined(__i386__)
	{
		unsigned a, b, c, d;

		ci->known = true;
		__cpuid(1, a, b, c, d);
		ci->hv_bit = (c >> 31) & 1;
		if (ci->hv_bit) {
			__cpuid(0x40000000, a, b, c, d);
			memcpy(ci->sig, &b, 4);
			memcpy(ci->sig + 4, &c, 4);
			memcpy(ci->sig + 8, &d, 4);
			ci->sig[12] = '\0';
		}
	}
#endif
}

static bool cpuinfo_has_flag(const char *cpuinfo, const char *flag)
{
	const char *line = strstr(cpuinfo, "\nflags");
	size_t fl = strlen(flag);

	if (!line)
		line = strstr(cpuinfo, "\nFeatures"); /* arm64 */
	if (!line)
		return false;
	line = strchr(line, ':');
	while (line && *line && *line != '\n') {
		const char *p = line + 1;

		while (*p == ' ')
			p++;
		if (!strncmp(p, flag, fl) && (p[fl] == ' ' || p[fl] == '\n' || p[fl] == '\0'))
			return true;
		line = strchr(p, ' ');
		if (line && strchr(p, '\n') && strchr(p, '\n') < line)
			break;
	}
	return false;
}

/* "CPU implementer : 0x00" and "CPU part : 0x051": QEMU's TCG 'max' arm CPU */
static bool arm_midr_is_qemu(const char *cpuinfo)
{
	const char *impl = cpuinfo ? strstr(cpuinfo, "CPU implementer") : NULL;
	const char *part = cpuinfo ? strstr(cpuinfo, "CPU part") : NULL;
	unsigned i = 1, p = 0;

	if (!impl || !part || sscanf(strchr(impl, ':') ? strchr(impl, ':') + 1 : "", "%x", &i) != 1 ||
	    sscanf(strchr(part, ':') ? strchr(part, ':') + 1 : "", "%x", &p) != 1)
		return false;
	return i == 0 && p == 0x051;
}

static json_t *probe_hypervisor(const char *root, const char *cpuinfo)
{
	struct cpuid_info ci;
	char vendor[128] = "", product[128] = "", systype[64] = "", dt[128] = "", machine[128] = "";
	const char *by_sig, *by_dmi, *name, *iface = NULL;
	json_t *sources = json_array(), *o;
	bool flag = cpuinfo && cpuinfo_has_flag(cpuinfo, "hypervisor");

	read_cpuid(root, &ci);
	(void)read_line_at(root, "/sys/class/dmi/id/sys_vendor", vendor, sizeof(vendor));
	(void)read_line_at(root, "/sys/class/dmi/id/product_name", product, sizeof(product));
	(void)read_line_at(root, "/sys/hypervisor/type", systype, sizeof(systype));
	(void)read_line_at(root, "/proc/device-tree/hypervisor/compatible", dt, sizeof(dt));
	(void)read_line_at(root, "/proc/device-tree/compatible", machine, sizeof(machine));

	by_sig = ci.hv_bit ? probe_hv_from_signature(ci.sig) : NULL;
	by_dmi = probe_hv_from_dmi(vendor, product);
	if (by_sig)
		json_array_append_new(sources, json_string("cpuid"));
	if (by_dmi)
		json_array_append_new(sources, json_string("dmi"));
	if (*systype)
		json_array_append_new(sources, json_string("sys_hypervisor"));
	if (flag)
		json_array_append_new(sources, json_string("cpuinfo_flag"));

	/* VirtualBox, VMware and Parallels can present KVM's or Hyper-V's
	 * paravirtual interface; KVM can present Hyper-V's. DMI names the real
	 * product then, CPUID the interface. */
	name = by_sig;
	if (by_sig && by_dmi && strcmp(by_sig, by_dmi)) {
		if ((!strcmp(by_sig, "KVM") || !strcmp(by_sig, "Microsoft Hv")) && strcmp(by_dmi, "QEMU")) {
			name = by_dmi;
			iface = by_sig;
		} else if (!strcmp(by_sig, "Microsoft Hv") && !strcmp(by_dmi, "QEMU")) {
			name = "KVM";
			iface = by_sig;
		}
	}
	if (!name && by_dmi)
		name = !strcmp(by_dmi, "QEMU") ? "QEMU" : by_dmi;
	if (!name && *systype)
		name = !strcmp(systype, "xen") ? "Xen" : systype;
	if (!name && *dt)
		name = strstr(dt, "xen") ? "Xen" : dt;
	if (!name && !strcmp(machine, "linux,dummy-virt")) {
		/* QEMU's arm virt machine booted without firmware: no DMI, a device
		 * tree. Its emulated 'max' CPU has implementer 0 (software) part 0x051. */
		json_array_append_new(sources, json_string("device_tree"));
		name = arm_midr_is_qemu(cpuinfo) ? "QEMU TCG" : "QEMU";
		if (arm_midr_is_qemu(cpuinfo))
			json_array_append_new(sources, json_string("midr"));
	}
	if (!name && (ci.hv_bit || flag))
		name = "unknown";
	if (!name)
		name = "none";

	o = json_pack("{s:s, s:s?, s:s?, s:b, s:s?, s:s?, s:s?, s:o, s:b}",
		      "name", name,
		      "cpuid_signature", ci.hv_bit && *ci.sig ? ci.sig : NULL,
		      "interface", iface,
		      "cpuid_hypervisor_bit", ci.hv_bit || flag,
		      "dmi_vendor", *vendor ? vendor : NULL,
		      "dmi_product", *product ? product : NULL,
		      "sys_hypervisor", *systype ? systype : NULL,
		      "sources", sources,
		      /* A guest that sees vmx/svm may run its own guests. */
		      "nested_virt_available", strcmp(name, "none") && cpuinfo &&
				(cpuinfo_has_flag(cpuinfo, "vmx") || cpuinfo_has_flag(cpuinfo, "svm")));
	return o;
}

/* systemd's convention: PID 1's environment has container=<type>. The file
 * is NUL-separated, so it is scanned by length, not as a C string. */
static int pid1_container(const char *root, char *out, size_t len)
{
	char path[PATH_MAX], buf[8192];
	ssize_t n;
	FILE *f;

	path_at(root, "/proc/1/environ", path, sizeof(path));
	f = fopen(path, "re");
	if (!f)
		return -errno;
	n = (ssize_t)fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n > 0 ? n : 0] = '\0';
	for (ssize_t i = 0; i < n; i += (ssize_t)strlen(buf + i) + 1)
		if (str_has_prefix(buf + i, "container=") && buf[i + 10]) {
			snprintf(out, len, "%s", buf + i + 10);
			return 0;
		}
	return -ENOENT;
}

static json_t *probe_container(const char *root)
{
	char type[64] = "";
	char *s = NULL;

	if (exists_at(root, "/.dockerenv"))
		snprintf(type, sizeof(type), "docker");
	else if (exists_at(root, "/run/.containerenv"))
		snprintf(type, sizeof(type), "podman");
	else if (pid1_container(root, type, sizeof(type)) == 0)
		;
	else if (read_line_at(root, "/run/systemd/container", type, sizeof(type)) == 0)
		;
	else if (read_file_at(root, "/proc/1/cgroup", &s) == 0) {
		if (strstr(s, "kubepods"))
			snprintf(type, sizeof(type), "kubernetes");
		else if (strstr(s, "docker"))
			snprintf(type, sizeof(type), "docker");
		else if (strstr(s, "/lxc"))
			snprintf(type, sizeof(type), "lxc");
	}
	free(s);
	if (!*type && exists_at(root, "/proc/vz") && !exists_at(root, "/proc/bc"))
		snprintf(type, sizeof(type), "openvz");
	return json_pack("{s:b, s:s?}", "detected", *type != '\0', "type", *type ? type : NULL);
}

/* ---- CPU ---- */

static void cpuinfo_field(const char *cpuinfo, const char *key, char *out, size_t len)
{
	const char *p = cpuinfo;
	size_t kl = strlen(key);

	out[0] = '\0';
	while (p && *p) {
		if (!strncmp(p, key, kl) && (p[kl] == ' ' || p[kl] == '\t' || p[kl] == ':')) {
			const char *colon = strchr(p, ':'), *nl = strchr(p, '\n');

			if (colon && (!nl || colon < nl)) {
				colon++;
				while (*colon == ' ')
					colon++;
				snprintf(out, len, "%.*s", (int)(nl ? nl - colon : (long)strlen(colon)), colon);
				return;
			}
		}
		p = strchr(p, '\n');
		if (p)
			p++;
	}
}

unsigned long long probe_parse_cache_size(const char *s)
{
	uint64_t v;

	return parse_size(s, 1, UINT64_MAX, &v) == 0 ? v : 0;
}

static json_t *probe_caches(const char *root)
{
	json_t *arr = json_array();

	for (unsigned i = 0; i < 16; i++) {
		char p[128], level[16], type[32], size[32];
		int64_t lv;

		snprintf(p, sizeof(p), "/sys/devices/system/cpu/cpu0/cache/index%u/level", i);
		if (read_line_at(root, p, level, sizeof(level)) < 0)
			break;
		snprintf(p, sizeof(p), "/sys/devices/system/cpu/cpu0/cache/index%u/type", i);
		if (read_line_at(root, p, type, sizeof(type)) < 0)
			continue;
		snprintf(p, sizeof(p), "/sys/devices/system/cpu/cpu0/cache/index%u/size", i);
		if (read_line_at(root, p, size, sizeof(size)) < 0)
			continue;
		if (parse_i64(level, 0, 9, &lv) < 0)
			continue;
		json_array_append_new(arr, json_pack("{s:I, s:s, s:I}", "level", (json_int_t)lv, "type", type,
						     "size_bytes", (json_int_t)probe_parse_cache_size(size)));
	}
	return arr;
}

static json_t *probe_cpu(const char *root, const char *cpuinfo)
{
	char model[256] = "", vendor[64] = "", online[256] = "", path[PATH_MAX];
	unsigned *cpus = NULL;
	size_t ncpus = 0, nodes = 0;
	long pkgs[1024], cores[1024];
	size_t npkgs = 0, ncores = 0;
	DIR *d;
	const char *c = cpuinfo ? cpuinfo : "";
	json_t *o;

	cpuinfo_field(c, "model name", model, sizeof(model));
	if (!*model)
		cpuinfo_field(c, "CPU part", model, sizeof(model)); /* arm64 */
	cpuinfo_field(c, "vendor_id", vendor, sizeof(vendor));
	if (!*vendor)
		cpuinfo_field(c, "CPU implementer", vendor, sizeof(vendor));

	if (read_line_at(root, "/sys/devices/system/cpu/online", online, sizeof(online)) == 0)
		(void)parse_cpu_list(online, &cpus, &ncpus);
	/* Unique packages and (package, core) pairs give sockets and cores. */
	for (size_t i = 0; i < ncpus && i < ARRAY_SIZE(cores); i++) {
		char b[32];
		int64_t pk = 0, co = 0;
		bool seen = false;

		snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%u/topology/physical_package_id", cpus[i]);
		if (read_line_at(root, path, b, sizeof(b)) < 0 || parse_i64(b, -1, 1 << 20, &pk) < 0)
			continue;
		snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%u/topology/core_id", cpus[i]);
		if (read_line_at(root, path, b, sizeof(b)) < 0 || parse_i64(b, -1, 1 << 20, &co) < 0)
			continue;
		for (size_t k = 0; k < npkgs; k++)
			seen |= pkgs[k] == pk;
		if (!seen)
			pkgs[npkgs++] = pk;
		seen = false;
		for (size_t k = 0; k < ncores; k++)
			seen |= cores[k] == (pk << 20 | co);
		if (!seen)
			cores[ncores++] = pk << 20 | co;
	}
	free(cpus);
	path_at(root, "/sys/devices/system/node", path, sizeof(path));
	d = opendir(path);
	if (d) {
		struct dirent *e;

		while ((e = readdir(d)))
			if (str_has_prefix(e->d_name, "node") && e->d_name[4] >= '0' && e->d_name[4] <= '9')
				nodes++;
		closedir(d);
	}

	o = json_pack("{s:s?, s:s?, s:I, s:o?, s:o?, s:o?, s:I, s:o, s:{s:b, s:b, s:b, s:b, s:b, s:b}, s:o}",
		      "model", *model ? model : NULL,
		      "vendor", *vendor ? vendor : NULL,
		      "logical", (json_int_t)ncpus,
		      "sockets", npkgs ? json_integer((json_int_t)npkgs) : NULL,
		      "cores", ncores ? json_integer((json_int_t)ncores) : NULL,
		      "threads_per_core", ncores ? json_integer((json_int_t)(ncpus / ncores)) : NULL,
		      "numa_nodes", (json_int_t)(nodes ? nodes : 1),
		      "caches", probe_caches(root),
		      "flags",
		      "vmx", cpuinfo_has_flag(c, "vmx"),
		      "svm", cpuinfo_has_flag(c, "svm"),
		      "avx2", cpuinfo_has_flag(c, "avx2"),
		      "avx512f", cpuinfo_has_flag(c, "avx512f"),
		      /* Linux sets both for an invariant TSC (CPUID 0x80000007 EDX bit 8). */
		      "invariant_tsc", cpuinfo_has_flag(c, "constant_tsc") && cpuinfo_has_flag(c, "nonstop_tsc"),
		      "hypervisor", cpuinfo_has_flag(c, "hypervisor"),
		      "governor", jline(root, "/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor"));
	return o;
}

/* ---- memory, kernel, clocks ---- */

static json_t *meminfo_bytes(const char *meminfo, const char *key)
{
	const char *p = meminfo ? strstr(meminfo, key) : NULL;
	unsigned long long kb;

	if (!p || sscanf(p + strlen(key), ": %llu kB", &kb) != 1)
		return json_null();
	return json_integer((json_int_t)(kb * 1024));
}

static json_t *probe_memory(const char *root)
{
	char *mi = NULL;
	json_t *o;
	const char *p;
	unsigned long long hp = 0;

	(void)read_file_at(root, "/proc/meminfo", &mi);
	p = mi ? strstr(mi, "HugePages_Total") : NULL;
	if (p)
		(void)sscanf(p, "HugePages_Total: %llu", &hp);
	o = json_pack("{s:o, s:o, s:I, s:o}",
		      "total_bytes", meminfo_bytes(mi, "MemTotal"),
		      "available_bytes", meminfo_bytes(mi, "MemAvailable"),
		      "hugepages_total", (json_int_t)hp,
		      "hugepage_size_bytes", meminfo_bytes(mi, "Hugepagesize"));
	free(mi);
	return o;
}

static json_t *probe_clocksource(const char *root)
{
	char buf[256];
	json_t *avail = json_array();

	if (read_line_at(root, "/sys/devices/system/clocksource/clocksource0/available_clocksource", buf,
			 sizeof(buf)) == 0) {
		char *save = NULL;

		for (char *t = strtok_r(buf, " ", &save); t; t = strtok_r(NULL, " ", &save))
			json_array_append_new(avail, json_string(t));
	}
	return json_pack("{s:o, s:o}", "current",
			 jline(root, "/sys/devices/system/clocksource/clocksource0/current_clocksource"),
			 "available", avail);
}

static json_t *probe_steal(const char *root)
{
	char line[512];
	unsigned long long v[8] = { 0 }, total = 0;
	long hz = sysconf(_SC_CLK_TCK);

	if (read_line_at(root, "/proc/stat", line, sizeof(line)) < 0 ||
	    sscanf(line, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2], &v[3], &v[4],
		   &v[5], &v[6], &v[7]) < 8)
		return json_null();
	for (int i = 0; i < 8; i++)
		total += v[i];
	return json_pack("{s:f, s:f}", "seconds", (double)v[7] / (double)(hz > 0 ? hz : 100),
			 "percent", total ? 100.0 * (double)v[7] / (double)total : 0.0);
}

/* ---- devices ---- */

/* The driver behind a device: walk up from its sysfs node to the first
 * device with a driver that is not a generic class driver ("sd" for SCSI
 * disks, "sr" for CD-ROMs), i.e. the controller: ahci, virtio_scsi, nvme... */
static void device_driver(const char *devdir, char *out, size_t len)
{
	static const char *const generic[] = { "sd", "sr", "st" };
	char dir[PATH_MAX], p[PATH_MAX + 16];

	out[0] = '\0';
	if (!realpath(devdir, dir))
		return;
	for (int depth = 0; depth < 16; depth++) {
		char name[128];
		char *slash;
		bool skip = false;

		snprintf(p, sizeof(p), "%s/driver", dir);
		if (link_base(p, name, sizeof(name)) == 0) {
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
	return str_has_prefix(name, "loop") || str_has_prefix(name, "ram") || str_has_prefix(name, "zram") ||
	       str_has_prefix(name, "sr") || str_has_prefix(name, "fd");
}

static json_t *probe_block(const char *root)
{
	char dir[PATH_MAX];
	json_t *arr = json_array();
	struct dirent **list = NULL;
	int n;

	path_at(root, "/sys/block", dir, sizeof(dir));
	n = scandir(dir, &list, NULL, alphasort);
	for (int i = 0; i < n; i++) {
		const char *name = list[i]->d_name;
		char p[PATH_MAX + 300], rel[300], driver[64], buf[64];
		int64_t sectors = -1;

		if (name[0] == '.' || skip_block(name)) {
			free(list[i]);
			continue;
		}
		snprintf(rel, sizeof(rel), "/sys/block/%s/size", name);
		if (read_line_at(root, rel, buf, sizeof(buf)) == 0)
			(void)parse_i64(buf, 0, INT64_MAX / 512, &sectors);
		snprintf(p, sizeof(p), "%s/%s", dir, name);
		device_driver(p, driver, sizeof(driver));
		snprintf(rel, sizeof(rel), "/sys/block/%s/queue/rotational", name);
		read_line_at(root, rel, buf, sizeof(buf)) == 0 ? (void)0 : (void)snprintf(buf, sizeof(buf), "?");
		{
			char sched[300];

			snprintf(sched, sizeof(sched), "/sys/block/%s/queue/scheduler", name);
			json_array_append_new(arr, json_pack("{s:s, s:o?, s:o, s:o, s:s?}",
				"name", name,
				"size_bytes", sectors >= 0 ? json_integer((json_int_t)(sectors * 512)) : NULL,
				"rotational", !strcmp(buf, "1") ? json_true() : !strcmp(buf, "0") ? json_false() : json_null(),
				"scheduler", jbracketed(root, sched),
				"driver", *driver ? driver : NULL));
		}
		free(list[i]);
	}
	free(list);
	return arr;
}

static json_t *probe_net(const char *root)
{
	char dir[PATH_MAX];
	json_t *arr = json_array();
	struct dirent **list = NULL;
	int n;

	path_at(root, "/sys/class/net", dir, sizeof(dir));
	n = scandir(dir, &list, NULL, alphasort);
	for (int i = 0; i < n; i++) {
		const char *name = list[i]->d_name;
		char p[PATH_MAX + 300], rel[300], driver[64] = "", speed[32];
		int64_t mbps = -1;

		if (name[0] == '.' || !strcmp(name, "lo")) {
			free(list[i]);
			continue;
		}
		snprintf(p, sizeof(p), "%s/%s/device/driver", dir, name);
		(void)link_base(p, driver, sizeof(driver));
		snprintf(rel, sizeof(rel), "/sys/class/net/%s/speed", name);
		if (read_line_at(root, rel, speed, sizeof(speed)) == 0)
			(void)parse_i64(speed, -1, INT32_MAX, &mbps);
		{
			char mtu[300], state[300];

			snprintf(mtu, sizeof(mtu), "/sys/class/net/%s/mtu", name);
			snprintf(state, sizeof(state), "/sys/class/net/%s/operstate", name);
			json_array_append_new(arr, json_pack("{s:s, s:s?, s:o?, s:o, s:o}",
				"name", name,
				"driver", *driver ? driver : NULL,
				"speed_mbps", mbps > 0 ? json_integer((json_int_t)mbps) : NULL,
				"mtu", jnum_file(root, mtu),
				"state", jline(root, state)));
		}
		free(list[i]);
	}
	free(list);
	return arr;
}

static json_t *probe_balloon(const char *root)
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
		if (exists_at(root, where[i].path))
			return json_pack("{s:b, s:s}", "present", 1, "driver", where[i].driver);
	return json_pack("{s:b, s:n}", "present", 0, "driver");
}

static json_t *probe_arch_kernel(const char *root, json_t **arch)
{
	char buf[256];

	if (read_line_at(root, "/proc/sys/kernel/arch", buf, sizeof(buf)) == 0) {
		*arch = json_string(buf);
	} else if (!strcmp(root, "/")) {
		struct utsname u;

		*arch = uname(&u) == 0 ? json_string(u.machine) : json_null();
	} else {
		*arch = json_null();
	}
	return json_pack("{s:o, s:o, s:o}", "release", jline(root, "/proc/sys/kernel/osrelease"),
			 "version", jline(root, "/proc/sys/kernel/version"),
			 "cmdline", jline(root, "/proc/cmdline"));
}

json_t *probe_fingerprint(const struct probe_src *src)
{
	const char *root = root_of(src);
	char *cpuinfo = NULL;
	json_t *arch = NULL, *kernel, *o;

	(void)read_file_at(root, "/proc/cpuinfo", &cpuinfo);
	kernel = probe_arch_kernel(root, &arch);
	o = json_pack("{s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:{s:o, s:o}, s:o, s:o, s:o, s:o}",
		      "hostname", jline(root, "/proc/sys/kernel/hostname"),
		      "arch", arch,
		      "kernel", kernel,
		      "hypervisor", probe_hypervisor(root, cpuinfo),
		      "container", probe_container(root),
		      "cpu", probe_cpu(root, cpuinfo),
		      "memory", probe_memory(root),
		      "clocksource", probe_clocksource(root),
		      "thp",
		      "enabled", jbracketed(root, "/sys/kernel/mm/transparent_hugepage/enabled"),
		      "defrag", jbracketed(root, "/sys/kernel/mm/transparent_hugepage/defrag"),
		      "block_devices", probe_block(root),
		      "network", probe_net(root),
		      "balloon", probe_balloon(root),
		      "steal", probe_steal(root));
	free(cpuinfo);
	return o;
}
