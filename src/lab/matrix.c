/* Lab matrix: parse, validate, expand; the device model behind a key. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "matrix.h"
#include "../core/str.h"
#include "../core/suite.h"
#include "../core/banned.h"

enum key_type { LIST, COUNT, SIZE, WORD };

/* the keys a matrix gives are bits of an unsigned (lab_config.given) */
_Static_assert(LAB_NKEYS <= sizeof(unsigned) * CHAR_BIT, "more matrix keys than bits in lab_config.given");

const struct lab_cpu lab_cpus[] = {
#define CPU_ROW(a, n, k, t, m) { .arch = #a, .name = n, .kvm = k, .tcg = t, .model = m },
	LAB_CPUS(CPU_ROW)
#undef CPU_ROW
};
const size_t lab_ncpus = sizeof(lab_cpus) / sizeof(lab_cpus[0]);

const struct lab_firmware lab_firmwares[] = {
#define FIRMWARE_ROW(a, n, c, v, k, m, e, p) \
	{ .arch = #a, .name = n, .code = c, .vars = v, .kernel = k, .mark = m, .efi = e, .package = p },
	LAB_FIRMWARES(FIRMWARE_ROW)
#undef FIRMWARE_ROW
};
const size_t lab_nfirmwares = sizeof(lab_firmwares) / sizeof(lab_firmwares[0]);

static const struct lab_mq lab_mqs[] = {
#define MQ_ROW(n, a, q, f) { .model = n, .arg = a, .per_queue = q, .fixed = f },
	LAB_MULTIQUEUE(MQ_ROW)
#undef MQ_ROW
};

/* The names of the rows of a table of the architecture's (cpu, firmware), "a, b, c" */
#define ARCH_NAMES(rows, nrows, want, buf, len)                                                       \
	do {                                                                                            \
		size_t off_ = 0;                                                                        \
		(buf)[0] = '\0';                                                                        \
		for (size_t i_ = 0; i_ < (nrows) && off_ < (len); i_++)                                 \
			if (!strcmp((rows)[i_].arch, (want)))                                           \
				str_appendf((buf), (len), &off_, "%s%s", off_ ? ", " : "", (rows)[i_].name); \
	} while (0)

const struct lab_cpu *lab_config_cpu(const struct lab_config *c)
{
	for (size_t i = 0; i < lab_ncpus; i++)
		if (!strcmp(lab_cpus[i].arch, c->v[LAB_ARCH]) && !strcmp(lab_cpus[i].name, c->v[LAB_CPU]))
			return &lab_cpus[i];
	return NULL;
}

const struct lab_firmware *lab_config_firmware(const struct lab_config *c)
{
	for (size_t i = 0; i < lab_nfirmwares; i++)
		if (!strcmp(lab_firmwares[i].arch, c->v[LAB_ARCH]) && !strcmp(lab_firmwares[i].name, c->v[LAB_FIRMWARE]))
			return &lab_firmwares[i];
	return NULL;
}

const struct lab_mq *lab_config_mq(const struct lab_config *c)
{
	for (size_t i = 0; i < sizeof(lab_mqs) / sizeof(lab_mqs[0]); i++)
		if (!strcmp(lab_mqs[i].model, c->v[LAB_NIC]))
			return &lab_mqs[i];
	return NULL;
}

unsigned lab_config_queues(const struct lab_config *c)
{
	int64_t n;

	return parse_i64(c->v[LAB_QUEUES], 1, 8, &n) == 0 ? (unsigned)n : 1;
}

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

/* ---- the checks of the keys' values against the other keys' ---- */

/* A model of the architecture's, under an accelerator that runs it */
static int cpu_check(const struct lab_config *c, char *why, size_t len)
{
	const struct lab_cpu *cpu = lab_config_cpu(c);
	const char *accel = c->v[LAB_ACCEL];
	char valid[256];

	if (!cpu) {
		ARCH_NAMES(lab_cpus, lab_ncpus, c->v[LAB_ARCH], valid, sizeof(valid));
		return errf(why, len, -EINVAL, "matrix: cpu=%s is no %s CPU model the lab knows; %s models: %s", c->v[LAB_CPU],
			    c->v[LAB_ARCH], c->v[LAB_ARCH], valid);
	}
	if (!cpu->tcg && strcmp(accel, "kvm"))
		return errf(why, len, -EINVAL, "matrix: cpu=%s is the host's own CPU, which needs accel=kvm (accel=%s %s); "
			    "TCG emulates max or a named model", cpu->name, accel,
			    !strcmp(accel, "auto") ? "may emulate the guest" : "emulates it");
	if (!cpu->kvm && !strcmp(accel, "kvm"))
		return errf(why, len, -EINVAL, "matrix: cpu=%s runs under accel=tcg only; KVM on %s gives the guest "
			    "the host's CPU (cpu=host or max)", cpu->name, c->v[LAB_ARCH]);
	return 0;
}

/* SOCKETSxCORESxTHREADS, as many vCPUs as smp */
static int topology_check(const struct lab_config *c, char *why, size_t len)
{
	unsigned t[3];
	int64_t smp;

	if (!strcmp(c->v[LAB_TOPOLOGY], "default"))
		return 0;
	if (lab_topology_parse(c->v[LAB_TOPOLOGY], t) < 0)
		return errf(why, len, -EINVAL, "matrix: topology=%s is not SOCKETSxCORESxTHREADS (each 1 to 256, e.g. "
			    "2x2x1) or default", c->v[LAB_TOPOLOGY]);
	if (parse_i64(c->v[LAB_SMP], 1, 256, &smp) < 0 || (uint64_t)t[0] * t[1] * t[2] != (uint64_t)smp)
		return errf(why, len, -EINVAL, "matrix: topology=%s makes %llu vCPUs, smp=%s; give a topology whose "
			    "product is smp (one matrix per smp value)", c->v[LAB_TOPOLOGY],
			    (unsigned long long)t[0] * t[1] * t[2], c->v[LAB_SMP]);
	return 0;
}

/* TCG's threading: under accel=tcg only */
static int tcg_check(const struct lab_config *c, char *why, size_t len)
{
	const char *accel = c->v[LAB_ACCEL];

	if (strcmp(accel, "tcg"))
		return errf(why, len, -EINVAL, "matrix: tcg=%s says how TCG runs the vCPUs, and accel=%s %s; give "
			    "accel=tcg (KVM in a matrix of its own)", c->v[LAB_TCG], accel,
			    !strcmp(accel, "kvm") ? "has no TCG" : "may pick KVM");
	return 0;
}

/* several queues: a NIC model that takes them */
static int queues_check(const struct lab_config *c, char *why, size_t len)
{
	char valid[128];

	if (lab_config_queues(c) == 1 || lab_config_mq(c))
		return 0;
	lab_values_text(LAB_MQ_NAMES, valid, sizeof(valid));
	return errf(why, len, -EINVAL, "matrix: queues=%s needs a NIC model that takes several queues (%s), not "
		    "nic=%s", c->v[LAB_QUEUES], valid, c->v[LAB_NIC]);
}

static int firmware_check(const struct lab_config *c, char *why, size_t len)
{
	char valid[128];

	if (lab_config_firmware(c))
		return 0;
	ARCH_NAMES(lab_firmwares, lab_nfirmwares, c->v[LAB_ARCH], valid, sizeof(valid));
	return errf(why, len, -EINVAL, "matrix: firmware=%s is not known on %s; valid values of firmware there: %s",
		    c->v[LAB_FIRMWARE], c->v[LAB_ARCH], valid);
}

/* A share takes the file tests: the scratch disk gets no filesystem, and
 * raw-device tests have no device on a share */
static int share_check(const struct lab_config *c, char *why, size_t len)
{
	if (!lab_share_find(c->v[LAB_SHARE]) || !strcmp(c->v[LAB_FS], "ext4"))
		return 0;
	return errf(why, len, -EINVAL, "matrix: share=%s runs the file tests on the shared folder, with no filesystem "
		    "of the scratch disk, so fs=%s means nothing there%s; leave fs at its default (ext4), or give fs in a "
		    "matrix of its own with share=none", c->v[LAB_SHARE], c->v[LAB_FS],
		    !strcmp(c->v[LAB_FS], "none") ? " (raw-device tests need a block device, which a share is not)" : "");
}

/* A distribution's boot is timed to its SSH banner, read over the lab's
 * link to the guest's NIC: it needs a NIC */
static int image_check(const struct lab_config *c, char *why, size_t len)
{
	const struct lab_image_row *img = lab_config_image(c);

	if (!img || !img->ssh || strcmp(c->v[LAB_NIC], "none"))
		return 0;
	return errf(why, len, -EINVAL, "matrix: image=%s boots to its SSH server, whose banner the host reads over "
		    "the guest's NIC: give a nic (e.g. nic=virtio-net) with image=%s", c->v[LAB_IMAGE], c->v[LAB_IMAGE]);
}

const struct lab_image_row lab_images[] = {
#define IMAGE_ROW(n, d, p, r, a, i, s, b) { n, d, p, r, a, i, s, b },
	LAB_IMAGES(IMAGE_ROW)
#undef IMAGE_ROW
};
const size_t lab_nimages = sizeof(lab_images) / sizeof(lab_images[0]);

const struct lab_image_row *lab_config_image(const struct lab_config *c)
{
	for (size_t i = 0; i < lab_nimages; i++)
		if (!strcmp(lab_images[i].name, c->v[LAB_IMAGE]))
			return &lab_images[i];
	return NULL;
}

bool lab_image_has(const struct lab_image_row *img, const char *pkg)
{
	size_t n = strlen(pkg);

	for (const char *p = img && img->packages ? img->packages : ""; *p; p += strcspn(p, ","), p += *p == ',')
		if (strcspn(p, ",") == n && !strncmp(p, pkg, n))
			return true;
	return false;
}

const struct lab_httpd lab_httpds[] = {
#define HTTPD_ROW(n, port, path, pkg) { n, port, path, pkg },
	LAB_HTTPDS(HTTPD_ROW)
#undef HTTPD_ROW
};
const size_t lab_nhttpds = sizeof(lab_httpds) / sizeof(lab_httpds[0]);

const struct lab_httpd *lab_config_httpd(const struct lab_config *c)
{
	for (size_t i = 0; i < lab_nhttpds; i++)
		if (!strcmp(lab_httpds[i].name, c->v[LAB_HTTPD]))
			return &lab_httpds[i];
	return NULL;
}

const struct lab_db lab_dbs[] = {
#define DB_ROW(n, u, pkg) { n, u, pkg },
	LAB_DBS(DB_ROW)
#undef DB_ROW
};
const size_t lab_ndbs = sizeof(lab_dbs) / sizeof(lab_dbs[0]);

const struct lab_db *lab_config_db(const struct lab_config *c)
{
	for (size_t i = 0; i < lab_ndbs; i++)
		if (!strcmp(lab_dbs[i].name, c->v[LAB_DB]))
			return &lab_dbs[i];
	return NULL;
}

/* The images whose packages include pkg, "image=a or image=b", in with */
static void images_with(const char *pkg, char *with, size_t len)
{
	size_t off = 0;

	with[0] = '\0';
	for (size_t i = 0; i < lab_nimages; i++)
		if (lab_image_has(&lab_images[i], pkg))
			str_appendf(with, len, &off, "%simage=%s", off ? " or " : "", lab_images[i].name);
	if (!off)
		snprintf(with, len, "an image that has it");
}

/* A database server of the guest's must be in the image */
static int db_check(const struct lab_config *c, char *why, size_t len)
{
	const struct lab_db *db = lab_config_db(c);
	char with[128];

	if (!db || !db->package || lab_image_has(lab_config_image(c), db->package))
		return 0;
	images_with(db->package, with, sizeof(with));
	return errf(why, len, -EINVAL, "matrix: db=%s needs %s in the guest, which image=%s does not have: give %s",
		    db->name, db->package, c->v[LAB_IMAGE], with);
}

/* A server of the guest's is loaded by the host's run (netdir=guest-server),
 * and it must be in the image */
static int httpd_check(const struct lab_config *c, char *why, size_t len)
{
	const struct lab_httpd *h = lab_config_httpd(c);

	if (!h || !h->package)
		return 0;
	if (strcmp(c->v[LAB_NETDIR], "guest-server"))
		return errf(why, len, -EINVAL, "matrix: httpd=%s is a server in the guest that the host's net.http "
			    "loads: give netdir=guest-server with it (netdir=%s runs the client in the guest)", h->name,
			    c->v[LAB_NETDIR]);
	if (!lab_image_has(lab_config_image(c), h->package)) {
		char with[128];

		images_with(h->package, with, sizeof(with));
		return errf(why, len, -EINVAL, "matrix: httpd=%s needs %s in the guest, which image=%s does not have: "
			    "give %s", h->name, h->package, c->v[LAB_IMAGE], with);
	}
	return 0;
}

static const struct key {
	const char *name, *def;
	enum key_type type;
	const char *values, *range; /* values: " a b c" (LIST); range: in words (COUNT, SIZE, WORD) */
	uint64_t min, max;
	int (*check)(const struct lab_config *c, char *why, size_t len);
} keys[LAB_NKEYS] = {
#define KEY_ROW(e, n, d, t, v, r, lo, hi, chk) \
	[e] = { .name = n, .def = d, .type = t, .values = v, .range = r, .min = lo, .max = hi, .check = chk },
	LAB_KEYS(KEY_ROW)
#undef KEY_ROW
};

const struct lab_device lab_devices[] = {
#define DEVICE_ROW(k, n, a, m, d, drv, mods) { .key = k, .name = n, .arches = a, .x86_machine = m, .devices = d, .driver = drv, .modules = mods },
	LAB_DEVICES(DEVICE_ROW)
#undef DEVICE_ROW
};
const size_t lab_ndevices = sizeof(lab_devices) / sizeof(lab_devices[0]);

const struct lab_profile lab_profiles[] = {
#define PROFILE_ROW(n, hv, k, mach) { .name = n, .hypervisor = hv, .keys = k, .x86_machine = mach },
	LAB_PROFILES(PROFILE_ROW)
#undef PROFILE_ROW
};
const size_t lab_nprofiles = sizeof(lab_profiles) / sizeof(lab_profiles[0]);

const struct lab_profile *lab_config_profile(const struct lab_config *c)
{
	for (size_t i = 0; i < lab_nprofiles; i++)
		if (!strcmp(lab_profiles[i].name, c->v[LAB_PROFILE]))
			return &lab_profiles[i];
	return NULL;
}

bool lab_config_legend(const struct lab_config *c, char *buf, size_t len)
{
	const struct lab_profile *pr = lab_config_profile(c);
	const struct lab_device *disk = lab_config_device(c, LAB_DISK);
	const char *arm = !strcmp(c->v[LAB_ARCH], "aarch64") ? "virt" : NULL;

	buf[0] = '\0';
	if (!pr)
		return false;
	snprintf(buf, len, "profile=%s is QEMU's emulation of the devices %s gives a Linux guest by default (disk=%s "
		 "nic=%s, machine %s), not %s itself", pr->name, pr->hypervisor, c->v[LAB_DISK], c->v[LAB_NIC],
		 arm ? arm : disk && disk->x86_machine ? disk->x86_machine : pr->x86_machine, pr->hypervisor);
	return true;
}

/* profile=: the keys its row names set in c; a key the matrix gave (bit k
 * of given) must already have the row's value */
static int profile_apply(struct lab_config *c, unsigned given, char *err, size_t errlen)
{
	const struct lab_profile *pr = lab_config_profile(c);

	for (const char *p = pr ? pr->keys + strspn(pr->keys, " ") : ""; *p;) {
		size_t n = strcspn(p, " ");
		char key[32], *eq;
		int k;

		snprintf(key, sizeof(key), "%.*s", (int)n, p);
		p += n + strspn(p + n, " ");
		eq = strchr(key, '=');
		if (eq)
			*eq = '\0';
		k = lab_key_find(key);
		if (!eq || k < 0)
			return errf(err, errlen, -EINVAL, "matrix: profile=%s sets '%s', no KEY=VALUE of a matrix key", pr->name,
				    key);
		if ((given & (1u << k)) && strcmp(c->v[k], eq + 1))
			return errf(err, errlen, -EINVAL, "matrix: profile=%s sets %s=%s, and the matrix gives %s=%s; give "
				    "the profile alone (it sets %s), or %s= without the profile", pr->name, key, eq + 1, key,
				    c->v[k], key, key);
		snprintf(c->v[k], sizeof(c->v[k]), "%s", eq + 1);
	}
	return 0;
}

const struct lab_fs lab_filesystems[] = {
#define FS_ROW(n, pkg, f, mk, v, mods, min) { .name = n, .package = pkg, .files = f, .mkfs = mk, .version = v, .modules = mods, .min_mib = min },
	LAB_FILESYSTEMS(FS_ROW)
#undef FS_ROW
};
const size_t lab_nfilesystems = sizeof(lab_filesystems) / sizeof(lab_filesystems[0]);

const struct lab_share lab_shares[] = {
#define SHARE_ROW(n, t, o) { .name = n, .type = t, .options = o },
	LAB_SHARES(SHARE_ROW)
#undef SHARE_ROW
};
const size_t lab_nshares = sizeof(lab_shares) / sizeof(lab_shares[0]);

const struct lab_share *lab_share_find(const char *name)
{
	for (size_t i = 0; name && i < lab_nshares; i++)
		if (!strcmp(lab_shares[i].name, name))
			return &lab_shares[i];
	return NULL;
}

const struct lab_fs *lab_fs_find(const char *name)
{
	for (size_t i = 0; name && i < lab_nfilesystems; i++)
		if (!strcmp(lab_filesystems[i].name, name))
			return &lab_filesystems[i];
	return NULL;
}

const struct lab_fs *lab_config_fs(const struct lab_config *c)
{
	return lab_fs_find(c->v[LAB_FS]);
}

const char *lab_key_name(enum lab_key k)
{
	return (unsigned)k < LAB_NKEYS ? keys[k].name : "?";
}

int lab_key_find(const char *name)
{
	for (int k = 0; k < LAB_NKEYS; k++)
		if (!strcmp(keys[k].name, name))
			return k;
	return -1;
}

/* What measures the choice of a key: the device models' suites. */
static const char *const key_suites[LAB_NKEYS] = {
	[LAB_DISK] = "disk",
	[LAB_NIC] = "net",
	[LAB_CPU] = "cpu",
	[LAB_TOPOLOGY] = "cpu",
	[LAB_TCG] = "cpu",
	[LAB_QUEUES] = "net",
	[LAB_NICE] = "cpu",
	[LAB_FIRMWARE] = "boot",
	[LAB_PROFILE] = "disk",
	[LAB_BALLOON] = "balloon",
	[LAB_SHARE] = "disk",
	[LAB_IMAGE] = "boot",
};

const char *lab_key_suite(enum lab_key k)
{
	return (unsigned)k < LAB_NKEYS ? key_suites[k] : NULL;
}

const char *lab_key_default(enum lab_key k)
{
	return (unsigned)k < LAB_NKEYS ? keys[k].def : NULL;
}

const char *lab_key_values(enum lab_key k)
{
	return (unsigned)k < LAB_NKEYS && keys[k].type == LIST ? keys[k].values : "";
}

const char *lab_key_range(enum lab_key k)
{
	return (unsigned)k < LAB_NKEYS ? keys[k].range : "";
}

/* ---- the start-up check of the tables ---- */

static int check_value(enum lab_key k, const char *v, char *err, size_t errlen);

bool lab_module_list_ok(const char *list)
{
	size_t words = 0;

	for (const char *p = list ? list + strspn(list, " ") : ""; *p; p += strspn(p, " "), words++) {
		size_t n = strcspn(p, " ");

		/* the kernel's MODULE_NAME_LEN is 56 with its NUL; '-' and '_' are one (src/lab/modules.h) */
		if (n >= 56 || strspn(p, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-") != n)
			return false;
		p += n;
	}
	return words > 0;
}

/* each word of " a b" once (a list of a row's names) */
static bool words_unique(const char *spaced)
{
	for (const char *p = spaced + strspn(spaced, " "); *p; p += strspn(p, " ")) {
		size_t n = strcspn(p, " ");

		for (const char *q = p + n + strspn(p + n, " "); *q; q += strspn(q, " ")) {
			size_t m = strcspn(q, " ");

			if (m == n && !strncmp(p, q, n))
				return false;
			q += m;
		}
		p += n;
	}
	return true;
}

int lab_device_check(const struct lab_device *d, char *why, size_t len)
{
	const char *values = (unsigned)d->key < LAB_NKEYS ? lab_key_values(d->key) : "";

	if (!d->name || !*d->name || !*values || !str_in_list(values + 1, ' ', d->name))
		return errf(why, len, -EINVAL, "device %s: not a value of its key", d->name ? d->name : "?");
	if (!d->arches || d->arches[0] != ' ' || !words_unique(d->arches))
		return errf(why, len, -EINVAL, "device %s: architectures not \" a b\", each once", d->name);
	for (const char *a = d->arches + 1; *a; a += strspn(a, " ")) {
		size_t n = strcspn(a, " ");
		char arch[32];

		snprintf(arch, sizeof(arch), "%.*s", (int)n, a);
		if (!str_in_list(keys[LAB_ARCH].values + 1, ' ', arch))
			return errf(why, len, -EINVAL, "device %s: architecture '%s' is no value of arch", d->name, arch);
		a += n;
	}
	if (!d->devices || !*d->devices || !d->driver || !*d->driver)
		return errf(why, len, -EINVAL, "device %s: no QEMU device or no guest driver", d->name);
	if (!lab_module_list_ok(d->modules))
		return errf(why, len, -EINVAL, "device %s: modules '%s' are not module names, space-separated", d->name,
			    d->modules ? d->modules : "");
	return 0;
}

int lab_tables_check(const struct vmb_suite *(*suite_of)(const char *name), char *why, size_t len)
{
	int r;

	for (int k = 0; k < LAB_NKEYS; k++) {
		const struct key *key = &keys[k];
		int64_t n;
		uint64_t bytes;

		if (!key->name || !*key->name || key->name[strcspn(key->name, "=, |")] || lab_key_find(key->name) != k)
			return errf(why, len, -EINVAL, "key %d: no name, a name with '=', ',', ' ' or '|', or one twice", k);
		if (key->type == LIST && (key->values[0] != ' ' || !words_unique(key->values) ||
					  !str_in_list(key->values + 1, ' ', key->def)))
			return errf(why, len, -EINVAL, "key %s: values not \" a b\" each once, or its default not among them",
				    key->name);
		if ((key->type == COUNT && parse_i64(key->def, (int64_t)key->min, (int64_t)key->max, &n) < 0) ||
		    (key->type == SIZE && parse_size(key->def, key->min, key->max, &bytes) < 0))
			return errf(why, len, -EINVAL, "key %s: default %s out of its range", key->name, key->def);
		if (key_suites[k] && (!suite_of || !suite_of(key_suites[k])))
			return errf(why, len, -EINVAL, "key %s: key_suites names '%s', no suite", key->name, key_suites[k]);
	}
	for (size_t i = 0; i < lab_ndevices; i++) {
		if ((r = lab_device_check(&lab_devices[i], why, len)) < 0)
			return r;
		for (size_t j = 0; j < i; j++)
			if (lab_devices[j].key == lab_devices[i].key && !strcmp(lab_devices[j].name, lab_devices[i].name))
				return errf(why, len, -EINVAL, "device %s: a second row of %s", lab_devices[i].name,
					    lab_key_name(lab_devices[i].key));
	}
	if (!lab_module_list_ok(LAB_BASE_MODULES))
		return errf(why, len, -EINVAL, "LAB_BASE_MODULES: not module names");
	for (size_t i = 0; i < lab_nfilesystems; i++)
		if (!lab_module_list_ok(lab_filesystems[i].modules))
			return errf(why, len, -EINVAL, "filesystem %s: modules are not module names", lab_filesystems[i].name);
	/* a profile sets keys to values: each a key's valid value */
	for (size_t i = 0; i < lab_nprofiles; i++) {
		const char *p = lab_profiles[i].keys;

		for (p += strspn(p, " "); *p; p += strspn(p, " ")) {
			size_t n = strcspn(p, " ");
			char pair[64], *eq, err[256];
			int k;

			snprintf(pair, sizeof(pair), "%.*s", (int)n, p);
			p += n;
			eq = strchr(pair, '=');
			if (eq)
				*eq = '\0';
			k = eq ? lab_key_find(pair) : -1;
			if (k < 0 || check_value((enum lab_key)k, eq + 1, err, sizeof(err)) < 0)
				return errf(why, len, -EINVAL, "profile %s: '%.*s' is no KEY=VALUE of a matrix key",
					    lab_profiles[i].name, (int)n, p - n);
		}
	}
	return 0;
}

void lab_values_text(const char *spaced, char *buf, size_t len)
{
	size_t off = 0;

	buf[0] = '\0';
	for (const char *p = spaced; *p && off < len; p++)
		if (*p != ' ')
			str_appendf(buf, len, &off, "%c", *p);
		else if (p != spaced)
			str_appendf(buf, len, &off, ", ");
}

static void valid_keys(char *buf, size_t len)
{
	size_t off = 0;

	buf[0] = '\0';
	for (int k = 0; k < LAB_NKEYS && off < len; k++)
		str_appendf(buf, len, &off, "%s%s", k ? ", " : "", keys[k].name);
}

static int check_value(enum lab_key k, const char *v, char *err, size_t errlen)
{
	const struct key *key = &keys[k];
	char valid[512];
	int64_t n;
	uint64_t bytes;

	switch (key->type) {
	case LIST:
		/* " a b": a word of the list, after one of its spaces */
		if (*v && !strchr(v, ' ') && str_in_list(key->values + 1, ' ', v))
			return 0;
		lab_values_text(key->values, valid, sizeof(valid));
		return errf(err, errlen, -EINVAL, "matrix: %s=%s is not known; valid values of %s: %s", key->name, v,
			    key->name, valid);
	case COUNT:
		if (parse_i64(v, (int64_t)key->min, (int64_t)key->max, &n) == 0)
			return 0;
		break;
	case SIZE:
		if (parse_size(v, key->min, key->max, &bytes) == 0)
			return 0;
		break;
	case WORD:
		/* the key's check judges it, with the configuration's other values */
		if (!strchr(v, ' '))
			return 0;
		break;
	}
	return errf(err, errlen, -EINVAL, "matrix: %s=%s is not valid; %s takes%s", key->name, v, key->name, key->range);
}

/* One KEY=V1,V2 word into vals[k]; every value non-empty, valid and once. */
static int parse_word(char *tok, char vals[LAB_NKEYS][16][32], size_t *nvals, unsigned *given, char *err,
		      size_t errlen)
{
	char *eq = strchr(tok, '='), *v, valid[128];
	int k = -1, r;

	if (eq)
		*eq = '\0';
	for (int i = 0; i < LAB_NKEYS; i++)
		if (!strcmp(keys[i].name, tok))
			k = i;
	if (k < 0) {
		valid_keys(valid, sizeof(valid));
		return errf(err, errlen, -EINVAL, "matrix: unknown key '%s'; valid keys: %s", tok, valid);
	}
	if (!eq || !eq[1])
		return errf(err, errlen, -EINVAL, "matrix: '%s' needs values, e.g. %s=%s", tok, tok, keys[k].def);
	if (*given & (1u << k))
		return errf(err, errlen, -EINVAL, "matrix: %s is given twice; list its values once, comma-separated", tok);
	*given |= 1u << k;
	/* not strtok: "smp=1,,2" and "accel=," have empty values, which are mistakes */
	for (v = eq + 1;; v++) {
		char *comma = strchr(v, ',');

		if (comma)
			*comma = '\0';
		if (!*v) {
			lab_values_text(keys[k].values, valid, sizeof(valid));
			return errf(err, errlen, -EINVAL, "matrix: %s has an empty value; give %s=V1,V2 with values %s%s",
				    keys[k].name, keys[k].name, *valid ? "among " : "that are", *valid ? valid : keys[k].range);
		}
		if (nvals[k] == 16 || strlen(v) >= 32)
			return errf(err, errlen, -EINVAL, "matrix: too many or too long values for %s (at most 16)",
				    keys[k].name);
		r = check_value((enum lab_key)k, v, err, errlen);
		if (r < 0)
			return r;
		for (size_t j = 0; j < nvals[k]; j++)
			if (!strcmp(vals[k][j], v))
				return errf(err, errlen, -EINVAL, "matrix: %s=%s is given twice", keys[k].name, v);
		snprintf(vals[k][nvals[k]++], 32, "%s", v);
		if (!comma)
			return 0;
		v = comma;
	}
}

/* One product of values, "accel=tcg disk=ide,virtio-blk": every combination. */
static int parse_product(const char *spec, struct lab_matrix *m, char *err, size_t errlen)
{
	char vals[LAB_NKEYS][16][32], valid[128];
	size_t nvals[LAB_NKEYS] = { 0 };
	char *copy, *tok, *save = NULL;
	unsigned given = 0;
	size_t total = 1;
	struct lab_config *configs;
	int r = 0;

	memset(m, 0, sizeof(*m));
	if (!spec || !spec[strspn(spec, " \t")]) {
		valid_keys(valid, sizeof(valid));
		return errf(err, errlen, -EINVAL, "matrix: empty; give KEY=VALUE,... words, e.g. \"accel=tcg "
			    "disk=ide,virtio-blk\" (valid keys: %s)", valid);
	}
	copy = xstrdup(spec);
	if (!copy)
		return errf(err, errlen, -ENOMEM, "matrix: out of memory");
	for (tok = strtok_r(copy, " \t", &save); tok && r == 0; tok = strtok_r(NULL, " \t", &save))
		r = parse_word(tok, vals, nvals, &given, err, errlen);
	free(copy);
	if (r < 0)
		return r;
	for (int k = 0; k < LAB_NKEYS; k++) {
		if (!nvals[k])
			snprintf(vals[k][nvals[k]++], 32, "%s", keys[k].def);
		total *= nvals[k];
	}
	if (total > 4096)
		return errf(err, errlen, -E2BIG, "matrix: %zu configurations; at most 4096", total);
	configs = calloc(total, sizeof(*configs));
	if (!configs)
		return errf(err, errlen, -ENOMEM, "matrix: out of memory for %zu configurations", total);
	/* the first key varies slowest, as written */
	for (size_t i = 0; i < total; i++) {
		size_t rest = i;

		for (int k = LAB_NKEYS - 1; k >= 0; k--) {
			snprintf(configs[i].v[k], 32, "%s", vals[k][rest % nvals[k]]);
			rest /= nvals[k];
		}
	}
	/* a profile sets its keys, before the keys' checks judge them */
	for (size_t i = 0; i < total; i++)
		if ((r = profile_apply(&configs[i], given, err, errlen)) < 0) {
			free(configs);
			return r;
		}
	/* each key the matrix gives agrees with the other keys, in every configuration */
	for (size_t i = 0; i < total; i++)
		for (int k = 0; k < LAB_NKEYS; k++)
			if ((given & (1u << k)) && keys[k].check && (r = keys[k].check(&configs[i], err, errlen)) < 0) {
				free(configs);
				return r;
			}
	m->configs = configs;
	m->n = total;
	for (size_t i = 0; i < total; i++)
		configs[i].given = given;
	m->given = given;
	return 0;
}

/* Products joined by '|': their configurations one after the other, as
 * written; the keys any of them gives label them all. */
int lab_matrix_parse(const char *spec, struct lab_matrix *m, char *err, size_t errlen)
{
	struct lab_matrix all = { 0 };
	const char *p = spec ? spec : "";
	unsigned part = 0;
	int r = 0;

	memset(m, 0, sizeof(*m));
	do {
		size_t n = strcspn(p, "|");
		char *one = strndup(p, n);
		struct lab_matrix pm;
		struct lab_config *grown;

		part++;
		if (!one)
			r = errf(err, errlen, -ENOMEM, "matrix: out of memory");
		else if (spec && strchr(spec, '|') && !one[strspn(one, " \t")])
			r = errf(err, errlen, -EINVAL, "matrix: part %u of those joined by '|' is empty", part);
		else
			r = parse_product(one, &pm, err, errlen);
		free(one);
		if (r < 0)
			break;
		if (all.n + pm.n > 4096) {
			lab_matrix_release(&pm);
			r = errf(err, errlen, -E2BIG, "matrix: %zu configurations; at most 4096", all.n + pm.n);
			break;
		}
		/* a configuration twice would be measured twice, under one name */
		for (size_t i = 0; i < pm.n && r == 0; i++)
			for (size_t j = 0; j < all.n && r == 0; j++)
				if (!memcmp(pm.configs[i].v, all.configs[j].v, sizeof(all.configs[j].v))) {
					char name[512] = "";
					size_t off = 0;

					for (int k = 0; k < LAB_NKEYS; k++)
						if ((pm.given | all.given) & (1u << k))
							str_appendf(name, sizeof(name), &off, "%s%s=%s", off ? " " : "",
								    keys[k].name, pm.configs[i].v[k]);
					r = errf(err, errlen, -EINVAL, "matrix: part %u repeats %s of an earlier part; a "
						 "configuration is measured once per round", part, name);
				}
		grown = r == 0 ? realloc(all.configs, (all.n + pm.n) * sizeof(*grown)) : NULL;
		if (r == 0 && !grown)
			r = errf(err, errlen, -ENOMEM, "matrix: out of memory");
		if (r == 0) {
			memcpy(grown + all.n, pm.configs, pm.n * sizeof(*grown));
			all.configs = grown;
			all.n += pm.n;
			all.given |= pm.given;
		}
		lab_matrix_release(&pm);
		p += n;
	} while (r == 0 && *p++ == '|');
	if (r < 0) {
		lab_matrix_release(&all);
		return r;
	}
	*m = all;
	return 0;
}

int lab_pairs_parse(const char *spec, struct strv *pairs, char *err, size_t errlen)
{
	char names[256];
	size_t nparts = 0;

	valid_keys(names, sizeof(names));
	for (const char *p = spec; *p;) {
		size_t n = strcspn(p, ", ");
		char part[128], *eq;

		if (!n) {
			p++;
			continue;
		}
		snprintf(part, sizeof(part), "%.*s", (int)n, p);
		eq = strchr(part, '=');
		if (n >= sizeof(part) || !eq || eq == part || !eq[1] || strchr(eq + 1, '='))
			return errf(err, errlen, -EINVAL, "'%.*s' is not KEY=VALUE of a matrix key, e.g. disk=ide", (int)n, p);
		*eq = '\0';
		if (lab_key_find(part) < 0)
			return errf(err, errlen, -EINVAL, "%s is no matrix key; keys: %s", part, names);
		*eq = '=';
		if (strv_push(pairs, part) < 0)
			return errf(err, errlen, -ENOMEM, "out of memory");
		nparts++;
		p += n;
	}
	if (!nparts)
		return errf(err, errlen, -EINVAL, "no KEY=VALUE; give one of a matrix key, e.g. disk=ide");
	return 0;
}

bool lab_config_matches(const struct lab_config *c, const struct strv *pairs)
{
	for (size_t i = 0; i < pairs->n; i++) {
		const char *eq = strchr(pairs->v[i], '=');
		char key[64];
		int k;

		if (!eq)
			return false;
		snprintf(key, sizeof(key), "%.*s", (int)(eq - pairs->v[i]), pairs->v[i]);
		k = lab_key_find(key);
		if (k < 0 || strcmp(c->v[k], eq + 1))
			return false;
	}
	return true;
}

char *lab_selector(const char *sel)
{
	/* config=KEY=VALUE...: the old label's form, a second '=' after config's */
	const char *p = !strncmp(sel, "config=", 7) && strchr(sel, '=') != strrchr(sel, '=') ? sel + 7 : sel;
	char *out = calloc(1, strlen(p) + 1);
	size_t off = 0;

	if (!out)
		return NULL;
	while (*p) {
		size_t n = strcspn(p, ", ");

		if (n) {
			if (off)
				out[off++] = ',';
			memcpy(out + off, p, n);
			off += n;
		}
		p += n + (p[n] != '\0');
	}
	out[off] = '\0';
	return out;
}

void lab_matrix_release(struct lab_matrix *m)
{
	free(m->configs);
	memset(m, 0, sizeof(*m));
}

const struct lab_device *lab_config_device(const struct lab_config *c, enum lab_key key)
{
	for (size_t i = 0; i < lab_ndevices; i++)
		if (lab_devices[i].key == key && !strcmp(c->v[key], lab_devices[i].name))
			return &lab_devices[i];
	return NULL;
}

static const struct lab_cache {
	const char *name;
	bool direct;
} lab_caches[] = {
#define CACHE_ROW(n, d) { .name = n, .direct = d },
	LAB_CACHES(CACHE_ROW)
#undef CACHE_ROW
};

bool lab_config_direct(const struct lab_config *c)
{
	for (size_t i = 0; i < sizeof(lab_caches) / sizeof(lab_caches[0]); i++)
		if (!strcmp(lab_caches[i].name, c->v[LAB_CACHE]))
			return lab_caches[i].direct;
	return false;
}

bool lab_config_snapshot(const struct lab_config *c)
{
	return !strcmp(c->v[LAB_SNAPSHOT], "on");
}

const char *lab_expected_disk_driver(const struct lab_config *c)
{
	const struct lab_device *d = lab_config_device(c, LAB_DISK);

	return d ? d->driver : NULL;
}

bool lab_config_unsupported(const struct lab_config *c, char *why, size_t len)
{
	for (int key = 0; key < LAB_NKEYS; key++) {
		const struct lab_device *d = lab_config_device(c, (enum lab_key)key);
		char there[256] = "";
		size_t off = 0;

		if (!d || str_in_list(d->arches + 1, ' ', c->v[LAB_ARCH]))
			continue;
		for (size_t i = 0; i < lab_ndevices && off < sizeof(there); i++)
			if ((int)lab_devices[i].key == key && str_in_list(lab_devices[i].arches + 1, ' ', c->v[LAB_ARCH]))
				str_appendf(there, sizeof(there), &off, "%s%s", off ? ", " : "", lab_devices[i].name);
		snprintf(why, len, "the lab has no %s=%s on %s: QEMU lacks the model there, or Debian's kernel its "
			 "driver (%s models on %s: %s)", keys[key].name, d->name, c->v[LAB_ARCH],
			 keys[key].name, c->v[LAB_ARCH], there);
		return true;
	}
	return false;
}
