/* The typed plan of a configuration: its values resolved once into the
 * rows they chose and the numbers they say (lab_config_resolve), kept so
 * when a value changes (lab_config_set); the accessors the rest of the lab
 * reads, and what follows from the plan alone (a profile's legend, whether
 * QEMU has a model on the architecture). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "matrix.h"
#include "../core/macro.h"
#include "../core/str.h"
#include "../core/banned.h"

int lab_topology_parse(const char *v, unsigned t[3])
{
	const char *p = v;

	for (int i = 0; i < 3; i++) {
		size_t n = strspn(p, "0123456789");
		char part[8];
		int64_t x;

		if (!n || n >= sizeof(part) || p[n] != (i < 2 ? 'x' : '\0'))
			return -EINVAL;
		snprintf(part, sizeof(part), "%.*s", (int)n, p);
		if (parse_i64(part, 1, 256, &x) < 0)
			return -EINVAL;
		t[i] = (unsigned)x;
		p += n + (i < 2);
	}
	return 0;
}

/* thp='s values other than default: the kernel's transparent_hugepage= modes */
static const char *const thp_modes[] = { "always", "madvise", "never" };
int lab_rate_parse(const char *v, uint64_t *bps)
{
	static const struct {
		const char *unit;
		uint64_t mult;
	} units[] = { { "bit", 1 }, { "kbit", 1000 }, { "mbit", 1000000 }, { "gbit", 1000000000 } };
	size_t n = strspn(v, "0123456789");
	char digits[16];
	int64_t x;

	if (!n || n >= sizeof(digits))
		return -EINVAL;
	snprintf(digits, sizeof(digits), "%.*s", (int)n, v);
	if (parse_i64(digits, 1, 100000000000, &x) < 0)
		return -EINVAL;
	for (size_t i = 0; i < ARRAY_SIZE(units); i++) {
		uint64_t r = (uint64_t)x * units[i].mult;

		if (strcmp(v + n, units[i].unit))
			continue;
		if ((uint64_t)x > 100000000000ull / units[i].mult || r < 1000000)
			return -EINVAL;
		*bps = r;
		return 0;
	}
	return -EINVAL;
}

void lab_config_resolve(struct lab_config *c)
{
	const char *arch = c->v[LAB_ARCH];
	int64_t n;
	uint64_t bytes;

	for (size_t k = 0; k < LAB_KEYS_MAX; k++)
		c->device[k] = k < lab_nkeys ? lab_device_find((enum lab_key)k, c->v[k]) : NULL;
	c->cpu = lab_cpu_find(arch, c->v[LAB_CPU]);
	c->firmware = lab_firmware_find(arch, c->v[LAB_FIRMWARE]);
	c->fs = lab_fs_find(c->v[LAB_FS]);
	c->share = lab_share_find(c->v[LAB_SHARE]);
	c->profile = lab_profile_find(c->v[LAB_PROFILE]);
	c->image = lab_image_find(c->v[LAB_IMAGE]);
	c->boot = lab_boot_find(c->v[LAB_BOOT]);
	c->httpd = lab_httpd_find(c->v[LAB_HTTPD]);
	c->db = lab_db_find(c->v[LAB_DB]);
	c->mq = lab_mq_find(c->v[LAB_NIC]);
	c->cache = lab_cache_find(c->v[LAB_CACHE]);
	/* a string of its own, not c->v's: a configuration is copied by value */
	c->thp = NULL;
	for (size_t i = 0; i < sizeof(thp_modes) / sizeof(thp_modes[0]); i++)
		if (!strcmp(c->v[LAB_THP], thp_modes[i]))
			c->thp = thp_modes[i];
	c->accel = !strcmp(c->v[LAB_ACCEL], "kvm") ? LAB_ACCEL_KVM
		   : !strcmp(c->v[LAB_ACCEL], "tcg") ? LAB_ACCEL_TCG : LAB_ACCEL_AUTO;
	c->aarch64 = !strcmp(arch, "aarch64");
	c->pin = !strcmp(c->v[LAB_PIN], "on");
	c->snapshot = !strcmp(c->v[LAB_SNAPSHOT], "on");
	c->balloon = !strcmp(c->v[LAB_BALLOON], "on");
	c->server = !strcmp(c->v[LAB_NETDIR], "guest-server");
	c->backend_file = !strcmp(c->v[LAB_BACKEND], LAB_BACKEND_FILE);
	c->smp = parse_i64(c->v[LAB_SMP], 1, 256, &n) == 0 ? (unsigned)n : 0;
	c->queues = parse_i64(c->v[LAB_QUEUES], 1, 8, &n) == 0 ? (unsigned)n : 1;
	c->nics = parse_i64(c->v[LAB_NICS], 1, LAB_NICS_MAX, &n) == 0 ? (unsigned)n : 1;
	if (lab_rate_parse(c->v[LAB_LINKRATE], &c->link_bps) < 0)
		c->link_bps = 0;
	c->nice = parse_i64(c->v[LAB_NICE], -20, 19, &n) == 0 ? (int)n : 0;
	c->mem = parse_size(c->v[LAB_MEM], 1, UINT64_MAX, &bytes) == 0 ? bytes : 0;
	if (lab_topology_parse(c->v[LAB_TOPOLOGY], c->topology) < 0)
		memset(c->topology, 0, sizeof(c->topology));
}

void lab_config_set(struct lab_config *c, enum lab_key k, const char *v)
{
	snprintf(c->v[k], sizeof(c->v[k]), "%s", v);
	lab_config_resolve(c);
}

/* ---- the accessors: the plan's fields ---- */

const struct lab_device *lab_config_device(const struct lab_config *c, enum lab_key key)
{
	return (size_t)key < LAB_KEYS_MAX ? c->device[key] : NULL;
}

const struct lab_cpu *lab_config_cpu(const struct lab_config *c)
{
	return c->cpu;
}

const struct lab_firmware *lab_config_firmware(const struct lab_config *c)
{
	return c->firmware;
}

const struct lab_mq *lab_config_mq(const struct lab_config *c)
{
	return c->mq;
}

unsigned lab_config_queues(const struct lab_config *c)
{
	return c->queues;
}

const struct lab_fs *lab_config_fs(const struct lab_config *c)
{
	return c->fs;
}

const struct lab_image_row *lab_config_image(const struct lab_config *c)
{
	return c->image;
}

const struct lab_httpd *lab_config_httpd(const struct lab_config *c)
{
	return c->httpd;
}

const struct lab_db *lab_config_db(const struct lab_config *c)
{
	return c->db;
}

const struct lab_profile *lab_config_profile(const struct lab_config *c)
{
	return c->profile;
}

bool lab_config_direct(const struct lab_config *c)
{
	return c->cache && c->cache->direct;
}

bool lab_config_snapshot(const struct lab_config *c)
{
	return c->snapshot;
}

const char *lab_expected_disk_driver(const struct lab_config *c)
{
	const struct lab_device *d = c->device[LAB_DISK];

	return d ? d->driver : NULL;
}

/* ---- what follows from the plan ---- */

bool lab_config_legend(const struct lab_config *c, char *buf, size_t len)
{
	const struct lab_profile *pr = lab_config_profile(c);
	const struct lab_device *disk = lab_config_device(c, LAB_DISK);
	const char *arm = c->aarch64 ? "virt" : NULL;

	buf[0] = '\0';
	if (!pr)
		return false;
	snprintf(buf, len, "profile=%s is QEMU's emulation of the devices %s gives a Linux guest by default (disk=%s "
		 "nic=%s, machine %s), not %s itself", pr->name, pr->hypervisor, c->v[LAB_DISK], c->v[LAB_NIC],
		 arm ? arm : disk && disk->x86_machine ? disk->x86_machine : pr->x86_machine, pr->hypervisor);
	return true;
}

bool lab_config_unsupported(const struct lab_config *c, char *why, size_t len)
{
	for (int key = 0; key < (int)lab_nkeys; key++) {
		const struct lab_device *d = lab_config_device(c, (enum lab_key)key);
		char there[256] = "";
		size_t off = 0;

		if (!d || str_in_list(d->arches + 1, ' ', c->v[LAB_ARCH]))
			continue;
		for (size_t i = 0; i < lab_ndevices && off < sizeof(there); i++)
			if ((int)lab_devices[i].key == key && str_in_list(lab_devices[i].arches + 1, ' ', c->v[LAB_ARCH]))
				str_appendf(there, sizeof(there), &off, "%s%s", off ? ", " : "", lab_devices[i].name);
		snprintf(why, len, "the lab has no %s=%s on %s: QEMU lacks the model there, or Debian's kernel its "
			 "driver (%s models on %s: %s)", lab_keys[key].name, d->name, c->v[LAB_ARCH],
			 lab_keys[key].name, c->v[LAB_ARCH], there);
		return true;
	}
	return false;
}
