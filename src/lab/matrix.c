/* Lab matrix: parse, validate, expand; QEMU argv per configuration. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "matrix.h"
#include "../core/banned.h"

static const struct {
	const char *name;
	const char *values; /* "|"-separated; NULL: free-form, checked by `check` */
	const char *def;
} keys[LAB_NKEYS] = {
	[LAB_ACCEL] = { "accel", "auto|kvm|tcg", "auto" },
	[LAB_ARCH] = { "arch", "x86_64|aarch64", "x86_64" },
	[LAB_DISK] = { "disk", "virtio-blk|virtio-scsi|ide|ahci|lsi|nvme", "virtio-blk" },
	[LAB_NIC] = { "nic", "none|virtio-net|e1000|e1000e|rtl8139|vmxnet3", "none" },
	[LAB_SMP] = { "smp", NULL, "1" },
	[LAB_MEM] = { "mem", NULL, "512M" },
	[LAB_PIN] = { "pin", "off|on", "off" },
};

const char *lab_key_name(enum lab_key k)
{
	return (unsigned)k < LAB_NKEYS ? keys[k].name : "?";
}

static int check_value(enum lab_key k, const char *v, char *err, size_t errlen)
{
	int64_t n;
	uint64_t bytes;

	if (keys[k].values) {
		if (str_in_list(keys[k].values, '|', v))
			return 0;
		snprintf(err, errlen, "matrix: %s=%s is not known; valid values of %s: %s", keys[k].name, v, keys[k].name,
			 keys[k].values);
		return -EINVAL;
	}
	if (k == LAB_SMP && parse_i64(v, 1, 256, &n) == 0)
		return 0;
	if (k == LAB_MEM && parse_size(v, 64ull << 20, 1ull << 40, &bytes) == 0)
		return 0;
	snprintf(err, errlen, "matrix: %s=%s is not valid; %s takes %s", keys[k].name, v, keys[k].name,
		 k == LAB_SMP ? "a vCPU count from 1 to 256" : "a memory size from 64M, e.g. 512M or 2G");
	return -EINVAL;
}

int lab_matrix_parse(const char *spec, struct lab_matrix *m, char *err, size_t errlen)
{
	char vals[LAB_NKEYS][16][32];
	size_t nvals[LAB_NKEYS] = { 0 };
	char *copy = xstrdup(spec), *tok, *save = NULL;
	size_t total = 1;
	int r = 0;

	memset(m, 0, sizeof(*m));
	if (!copy)
		return -ENOMEM;
	for (tok = strtok_r(copy, " \t", &save); tok && r == 0; tok = strtok_r(NULL, " \t", &save)) {
		char *eq = strchr(tok, '='), *v, *vsave = NULL;
		int k = -1;

		if (eq)
			*eq = '\0';
		for (int i = 0; i < LAB_NKEYS; i++)
			if (!strcmp(keys[i].name, tok))
				k = i;
		if (k < 0 || !eq || !eq[1]) {
			snprintf(err, errlen, k < 0 ? "matrix: unknown key '%s'; valid keys: accel, arch, disk, nic, smp, mem, pin"
						    : "matrix: '%s' needs values, e.g. %s=%s", tok, tok, keys[k < 0 ? 0 : k].def);
			r = -EINVAL;
			break;
		}
		if (m->given & (1u << k)) {
			snprintf(err, errlen, "matrix: %s is given twice; list its values once, comma-separated", tok);
			r = -EINVAL;
			break;
		}
		m->given |= 1u << k;
		for (v = strtok_r(eq + 1, ",", &vsave); v && r == 0; v = strtok_r(NULL, ",", &vsave)) {
			if (nvals[k] == 16 || strlen(v) >= 32) {
				snprintf(err, errlen, "matrix: too many or too long values for %s", keys[k].name);
				r = -EINVAL;
				break;
			}
			r = check_value((enum lab_key)k, v, err, errlen);
			if (r == 0)
				snprintf(vals[k][nvals[k]++], 32, "%s", v);
		}
	}
	free(copy);
	if (r < 0)
		return r;
	for (int k = 0; k < LAB_NKEYS; k++) {
		if (!nvals[k])
			snprintf(vals[k][nvals[k]++], 32, "%s", keys[k].def);
		total *= nvals[k];
	}
	if (total > 4096) {
		snprintf(err, errlen, "matrix: %zu configurations; at most 4096", total);
		return -E2BIG;
	}
	m->configs = calloc(total, sizeof(*m->configs));
	if (!m->configs)
		return -ENOMEM;
	/* the first key varies slowest, as written */
	for (size_t i = 0; i < total; i++) {
		size_t rest = i;

		for (int k = LAB_NKEYS - 1; k >= 0; k--) {
			snprintf(m->configs[i].v[k], 32, "%s", vals[k][rest % nvals[k]]);
			rest /= nvals[k];
		}
	}
	m->n = total;
	return 0;
}

void lab_matrix_release(struct lab_matrix *m)
{
	free(m->configs);
	memset(m, 0, sizeof(*m));
}

const char *lab_expected_disk_driver(const struct lab_config *c)
{
	static const char *const map[][2] = {
		{ "virtio-blk", "virtio_blk" }, { "virtio-scsi", "virtio_scsi" }, { "ide", "ata_piix" },
		{ "ahci", "ahci" }, { "lsi", "sym53c8xx" }, { "nvme", "nvme" },
	};

	for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++)
		if (!strcmp(c->v[LAB_DISK], map[i][0]))
			return map[i][1];
	return NULL;
}

static int push(struct strv *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int push(struct strv *a, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	return strv_push(a, buf);
}

const char *lab_config_unsupported(const struct lab_config *c)
{
	/* the arm virt machine has PCI but no legacy IDE controller */
	if (!strcmp(c->v[LAB_ARCH], "aarch64") && !strcmp(c->v[LAB_DISK], "ide"))
		return "the aarch64 virt machine has no IDE controller (use ahci, lsi, virtio-blk, virtio-scsi or nvme)";
	return NULL;
}

int lab_qemu_argv(const struct lab_config *c, const struct lab_paths *p, struct strv *a, const char **why)
{
	bool arm = !strcmp(c->v[LAB_ARCH], "aarch64"), kvm = !strcmp(c->v[LAB_ACCEL], "kvm");
	const char *disk = c->v[LAB_DISK], *nic = c->v[LAB_NIC];

	*why = NULL;
	if (!strcmp(c->v[LAB_ACCEL], "auto")) {
		*why = "accel=auto must be resolved (kvm or tcg) before building the command line";
		return -EINVAL;
	}
	*why = lab_config_unsupported(c);
	if (*why)
		return -EOPNOTSUPP;
	push(a, "%s", arm ? "qemu-system-aarch64" : "qemu-system-x86_64");
	/* legacy IDE lives on the i440FX (pc) machine; everything else on q35 */
	push(a, "-machine");
	/* gic-version=max: GICv3 where it exists, beyond the 8 vCPUs of the default GICv2 */
	push(a, "%s", arm ? "virt,gic-version=max" : !strcmp(disk, "ide") ? "pc" : "q35");
	push(a, "-accel");
	push(a, "%s", kvm ? "kvm" : "tcg,thread=multi");
	push(a, "-cpu");
	/* TCG: every feature QEMU emulates; on arm with the cheap pointer-authentication
	 * algorithm, as the architected QARMA costs emulated guests much of their speed */
	push(a, "%s", kvm ? "host" : arm ? "max,pauth-impdef=on" : "max");
	push(a, "-smp");
	push(a, "%s", c->v[LAB_SMP]);
	push(a, "-m");
	push(a, "%s", c->v[LAB_MEM]);
	push(a, "-nodefaults");
	push(a, "-display");
	push(a, "none");
	push(a, "-kernel");
	push(a, "%s", p->kernel);
	push(a, "-initrd");
	push(a, "%s", p->initrd);
	push(a, "-append");
	/* early console output: the first byte marks kernel entry on both architectures */
	push(a, "console=%s %s panic=-1 vmbench.agent=/dev/hvc0", arm ? "ttyAMA0" : "ttyS0",
	     arm ? "earlycon=pl011,0x9000000" : "earlyprintk=serial,ttyS0,115200");
	push(a, "-serial");
	push(a, "file:%s", p->console_log);
	push(a, "-qmp");
	push(a, "unix:%s,server=on,wait=off", p->qmp_socket);
	/* the agent's channel: a virtio console, /dev/hvc0 in the guest */
	push(a, "-device");
	push(a, "virtio-serial-pci,id=vser");
	push(a, "-chardev");
	push(a, "socket,id=agent,path=%s,server=on,wait=off", p->agent_socket);
	push(a, "-device");
	push(a, "virtconsole,chardev=agent,bus=vser.0");
	if (p->disk) {
		push(a, "-drive");
		push(a, "file=%s,format=%s,if=none,id=d0,cache=%s", p->disk, p->disk_format ? p->disk_format : "raw",
		     p->disk_cache ? p->disk_cache : "none");
		if (!strcmp(disk, "virtio-blk")) {
			push(a, "-device");
			push(a, "virtio-blk-pci,drive=d0");
		} else if (!strcmp(disk, "virtio-scsi")) {
			push(a, "-device");
			push(a, "virtio-scsi-pci,id=scsi0");
			push(a, "-device");
			push(a, "scsi-hd,drive=d0,bus=scsi0.0");
		} else if (!strcmp(disk, "ide")) {
			push(a, "-device");
			push(a, "ide-hd,drive=d0,bus=ide.0");
		} else if (!strcmp(disk, "ahci")) {
			push(a, "-device");
			push(a, "ich9-ahci,id=ahci0");
			push(a, "-device");
			push(a, "ide-hd,drive=d0,bus=ahci0.0");
		} else if (!strcmp(disk, "lsi")) {
			push(a, "-device");
			push(a, "lsi53c895a,id=scsi0");
			push(a, "-device");
			push(a, "scsi-hd,drive=d0,bus=scsi0.0");
		} else if (!strcmp(disk, "nvme")) {
			push(a, "-device");
			push(a, "nvme,drive=d0,serial=vmbench0");
		}
	}
	if (strcmp(nic, "none")) {
		push(a, "-netdev");
		push(a, "user,id=n0,restrict=on");
		push(a, "-device");
		push(a, "%s,netdev=n0", !strcmp(nic, "virtio-net") ? "virtio-net-pci" : nic);
	}
	return a->n ? 0 : -ENOMEM;
}
