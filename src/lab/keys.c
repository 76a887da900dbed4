/* The matrix keys, one row each (LAB_KEYS, src/lab/matrix.h): the table
 * lab_keys, each key's check against the configuration's other values, and
 * the lookups by key. What a row's qemu and child name is in
 * src/lab/qemu_keys.c; what its values choose, in src/lab/tables.c. A test
 * build compiles this file again with -DVMB_TEST_LAB, adding the toy key
 * (tests/toy/toylab.c). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "matrix.h"
#include "qemu.h"
#include "../core/str.h"
#ifdef VMB_TEST_LAB
#include "../../tests/toy/toylab.h"
#endif
#include "../core/banned.h"

/* The names of the rows of a table of the architecture's (cpu, firmware), "a, b, c" */
#define ARCH_NAMES(rows, nrows, want, buf, len)                                                       \
	do {                                                                                            \
		size_t off_ = 0;                                                                        \
		(buf)[0] = '\0';                                                                        \
		for (size_t i_ = 0; i_ < (nrows) && off_ < (len); i_++)                                 \
			if (!strcmp((rows)[i_].arch, (want)))                                           \
				str_appendf((buf), (len), &off_, "%s%s", off_ ? ", " : "", (rows)[i_].name); \
	} while (0)
/* A model of the architecture's, under an accelerator that runs it */
static int cpu_check(const struct lab_config *c, char *why, size_t len)
{
	const struct lab_cpu *cpu = c->cpu;
	const char *accel = c->v[LAB_ACCEL];
	char valid[256];

	if (!cpu) {
		ARCH_NAMES(lab_cpus, lab_ncpus, c->v[LAB_ARCH], valid, sizeof(valid));
		return errf(why, len, -EINVAL, "matrix: cpu=%s is no %s CPU model the lab knows; %s models: %s", c->v[LAB_CPU],
			    c->v[LAB_ARCH], c->v[LAB_ARCH], valid);
	}
	if (!cpu->tcg && c->accel != LAB_ACCEL_KVM)
		return errf(why, len, -EINVAL, "matrix: cpu=%s is the host's own CPU, which needs accel=kvm (accel=%s %s); "
			    "TCG emulates max or a named model", cpu->name, accel,
			    c->accel == LAB_ACCEL_AUTO ? "may emulate the guest" : "emulates it");
	if (!cpu->kvm && c->accel == LAB_ACCEL_KVM)
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

/* Several NICs: a model of the guest's own address each (no MAC of its
 * row's), one queue pair, the busybox image whose agent bonds them */
static int nics_check(const struct lab_config *c, char *why, size_t len)
{
	const struct lab_device *nic = lab_config_device(c, LAB_NIC);

	if (c->nics == 1)
		return 0;
	if (!nic)
		return errf(why, len, -EINVAL, "matrix: nics=%s gives the guest that many of the nic model: give a nic "
			    "(e.g. nic=e1000)", c->v[LAB_NICS]);
	if (strstr(nic->devices, "mac="))
		return errf(why, len, -EINVAL, "matrix: nics=%s gives each NIC a MAC address of its own, and nic=%s "
			    "sets one: give another nic model, or nics=1", c->v[LAB_NICS], nic->name);
	if (lab_config_queues(c) > 1)
		return errf(why, len, -EINVAL, "matrix: nics=%s with queues=%s: several NICs take one queue pair each; "
			    "give queues=1 (or nics=1 in a matrix of its own)", c->v[LAB_NICS], c->v[LAB_QUEUES]);
	return 0;
}

/* A line rate, on the links of a NIC */
static int linkrate_check(const struct lab_config *c, char *why, size_t len)
{
	uint64_t bps;

	if (!strcmp(c->v[LAB_LINKRATE], "off"))
		return 0;
	if (lab_rate_parse(c->v[LAB_LINKRATE], &bps) < 0)
		return errf(why, len, -EINVAL, "matrix: linkrate=%s is not a rate from 1mbit to 100gbit (a whole number "
			    "and bit, kbit, mbit or gbit, e.g. 20mbit or 1gbit) or off", c->v[LAB_LINKRATE]);
	if (!lab_config_device(c, LAB_NIC))
		return errf(why, len, -EINVAL, "matrix: linkrate=%s shapes the links of the guest's NICs: give a nic "
			    "(e.g. nic=e1000)", c->v[LAB_LINKRATE]);
	return 0;
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

/* Linux turns transparent huge pages off at boot on less than 512 MiB of
 * RAM (hugepage_init), whatever transparent_hugepage= said: the guest's
 * sysfs would then show never, and the boot's check fail. RAM is a little
 * below mem= (the kernel's own reservations), hence the margin. */
#define THP_MIN_MEM (640ull << 20)
static int thp_check(const struct lab_config *c, char *why, size_t len)
{
	if (!c->thp || !strcmp(c->thp, "never") || c->mem >= THP_MIN_MEM)
		return 0;
	return errf(why, len, -EINVAL, "matrix: thp=%s needs mem=640M or more (mem=%s): Linux turns transparent huge "
		    "pages off at boot on less than 512 MiB of RAM, whatever transparent_hugepage= says; give mem=1G",
		    c->thp, c->v[LAB_MEM]);
}

/* boot=cdrom boots the ISO, whose kernel command line is grub.cfg's and
 * the same for every configuration. So the words a configuration adds to
 * that line (a NIC's address, THP's mode, a distribution's root) cannot
 * reach the guest, and such configurations are refused. Only x86_64's BIOS
 * boot is timed. Under UEFI, GRUB's EFI loader enters the kernel past its
 * own EFI entry code, which is what prints the console line that marks the
 * end of the firmware phase, so that line never comes. */
static int boot_check(const struct lab_config *c, char *why, size_t len)
{
	static const struct {
		enum lab_key k;
		const char *want, *because;
	} need[] = {
		{ LAB_ARCH, "x86_64", "the ISO is made for x86_64's BIOS" },
		{ LAB_IMAGE, "busybox", "a distribution's image boots from its own root disk" },
		{ LAB_FIRMWARE, "default", "under UEFI, GRUB starts the kernel without the line that ends the firmware "
					  "phase; 'lab image --format iso' boots under OVMF, untimed" },
		{ LAB_NIC, "none", "the guest's address is a word of the kernel's command line, which is the ISO's" },
		{ LAB_THP, "default", "transparent_hugepage= is a word of the kernel's command line, which is the ISO's" },
	};

	const struct lab_device *disk = lab_config_device(c, LAB_DISK);

	if (!c->boot || c->boot->kernel)
		return 0;
	for (size_t i = 0; i < sizeof(need) / sizeof(need[0]); i++)
		if (strcmp(c->v[need[i].k], need[i].want))
			return errf(why, len, -EINVAL, "matrix: boot=%s needs %s=%s, not %s=%s: %s", c->v[LAB_BOOT],
				    lab_key_name(need[i].k), need[i].want, lab_key_name(need[i].k), c->v[need[i].k],
				    need[i].because);
	/* a USB disk appears after its bus is enumerated, well after insmod:
	 * the guest's init waits for it only when the command line says
	 * vmbench.disks= (qemu.c), and the ISO's cannot */
	if (disk && strstr(disk->modules, "usb_storage"))
		return errf(why, len, -EINVAL, "matrix: boot=%s cannot boot disk=%s: a USB disk appears after its bus is "
			    "enumerated, and the guest waits for it by a word of the kernel's command line "
			    "(vmbench.disks=), which is the ISO's; give another disk model", c->v[LAB_BOOT], c->v[LAB_DISK]);
	return 0;
}

const struct lab_key_row lab_keys[] = {
#define KEY_ROW(e, n, d, t, v, r, lo, hi, chk, su, q, ch)                                                    \
	[e] = { .name = n, .def = d, .type = LAB_KEY_##t, .values = v, .range = r, .min = lo, .max = hi,   \
		.check = chk, .suite = su, .qemu = q, .child = ch },
	LAB_KEYS(KEY_ROW)
#undef KEY_ROW
};
const size_t lab_nkeys = sizeof(lab_keys) / sizeof(lab_keys[0]);

const char *lab_key_name(enum lab_key k)
{
	return (size_t)k < lab_nkeys ? lab_keys[k].name : "?";
}

int lab_key_find(const char *name)
{
	for (size_t k = 0; k < lab_nkeys; k++)
		if (!strcmp(lab_keys[k].name, name))
			return (int)k;
	return -1;
}

const char *lab_key_suite(enum lab_key k)
{
	return (size_t)k < lab_nkeys ? lab_keys[k].suite : NULL;
}

const char *lab_key_default(enum lab_key k)
{
	return (size_t)k < lab_nkeys ? lab_keys[k].def : NULL;
}

const char *lab_key_values(enum lab_key k)
{
	return (size_t)k < lab_nkeys && lab_keys[k].type == LAB_KEY_LIST ? lab_keys[k].values : "";
}

const char *lab_key_range(enum lab_key k)
{
	return (size_t)k < lab_nkeys ? lab_keys[k].range : "";
}
