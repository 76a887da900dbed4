/* Lab matrix: parse, validate, expand; QEMU argv per configuration. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "matrix.h"
#include "../core/str.h"
#include "../core/banned.h"

enum key_type { LIST, COUNT, SIZE };

static const struct key {
	const char *name, *def;
	enum key_type type;
	const char *values, *range; /* values: " a b c" (LIST); range: in words (COUNT, SIZE) */
	uint64_t min, max;
} keys[LAB_NKEYS] = {
#define KEY_ROW(e, n, d, t, v, r, lo, hi) [e] = { .name = n, .def = d, .type = t, .values = v, .range = r, .min = lo, .max = hi },
	LAB_KEYS(KEY_ROW)
#undef KEY_ROW
};

const struct lab_device lab_devices[] = {
#define DEVICE_ROW(k, n, a, m, d, drv, mods) { .key = k, .name = n, .arches = a, .x86_machine = m, .devices = d, .driver = drv, .modules = mods },
	LAB_DEVICES(DEVICE_ROW)
#undef DEVICE_ROW
};
const size_t lab_ndevices = sizeof(lab_devices) / sizeof(lab_devices[0]);

const char *lab_key_name(enum lab_key k)
{
	return (unsigned)k < LAB_NKEYS ? keys[k].name : "?";
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

int lab_matrix_parse(const char *spec, struct lab_matrix *m, char *err, size_t errlen)
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
	m->configs = configs;
	m->n = total;
	m->given = given;
	return 0;
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
		snprintf(why, len, "QEMU has no %s=%s on %s (%s models on %s: %s)", keys[key].name, d->name, c->v[LAB_ARCH],
			 keys[key].name, c->v[LAB_ARCH], there);
		return true;
	}
	return false;
}

/* Every argument through one error check: a failed push fails the whole line. */
struct args {
	struct strv *a;
	int r;
};

static void push(struct args *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void push(struct args *a, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (a->r == 0 && (n < 0 || (size_t)n >= sizeof(buf)))
		a->r = -ENAMETOOLONG;
	if (a->r == 0)
		a->r = strv_push(a->a, buf);
}

/* -device for each of a model's space-separated device arguments */
static void push_devices(struct args *a, const struct lab_device *d)
{
	for (const char *p = d->devices; *p;) {
		size_t l = strcspn(p, " ");

		push(a, "-device");
		push(a, "%.*s", (int)l, p);
		p += l + strspn(p + l, " ");
	}
}

int lab_qemu_argv(const struct lab_config *c, const struct lab_paths *p, struct strv *argv, char *why, size_t len)
{
	bool arm = !strcmp(c->v[LAB_ARCH], "aarch64"), kvm = !strcmp(c->v[LAB_ACCEL], "kvm");
	const struct lab_device *disk = lab_config_device(c, LAB_DISK), *nic = lab_config_device(c, LAB_NIC);
	struct args a = { .a = argv };

	why[0] = '\0';
	if (!strcmp(c->v[LAB_ACCEL], "auto"))
		return errf(why, len, -EINVAL, "accel=auto must be resolved (kvm or tcg) before building the command line");
	if (!disk)
		return errf(why, len, -EINVAL, "disk=%s is no device model", c->v[LAB_DISK]);
	if (lab_config_unsupported(c, why, len))
		return -EOPNOTSUPP;
	push(&a, "%s", arm ? "qemu-system-aarch64" : "qemu-system-x86_64");
	/* legacy IDE lives on the i440FX (pc) machine; everything else on q35 */
	push(&a, "-machine");
	/* gic-version=max: GICv3 where it exists, beyond the 8 vCPUs of the default GICv2 */
	push(&a, "%s", arm ? "virt,gic-version=max" : disk->x86_machine ? disk->x86_machine : "q35");
	push(&a, "-accel");
	push(&a, "%s", kvm ? "kvm" : "tcg,thread=multi");
	push(&a, "-cpu");
	/* TCG: every feature QEMU emulates; on arm with the cheap pointer-authentication
	 * algorithm, as the architected QARMA costs emulated guests much of their speed */
	push(&a, "%s", kvm ? "host" : arm ? "max,pauth-impdef=on" : "max");
	push(&a, "-smp");
	push(&a, "%s", c->v[LAB_SMP]);
	push(&a, "-m");
	push(&a, "%s", c->v[LAB_MEM]);
	push(&a, "-nodefaults");
	push(&a, "-display");
	push(&a, "none");
	push(&a, "-kernel");
	push(&a, "%s", p->kernel);
	push(&a, "-initrd");
	push(&a, "%s", p->initrd);
	push(&a, "-append");
	/* early console output: the first byte marks kernel entry on both architectures */
	push(&a, "console=%s %s panic=-1 vmbench.agent=/dev/hvc0", arm ? "ttyAMA0" : "ttyS0",
	     arm ? "earlycon=pl011,0x9000000" : "earlyprintk=serial,ttyS0,115200");
	push(&a, "-serial");
	push(&a, "file:%s", p->console_log);
	push(&a, "-qmp");
	push(&a, "unix:%s,server=on,wait=off", p->qmp_socket);
	/* the agent's channel: a virtio console, /dev/hvc0 in the guest */
	push(&a, "-device");
	push(&a, "virtio-serial-pci,id=vser");
	push(&a, "-chardev");
	push(&a, "socket,id=agent,path=%s,server=on,wait=off", p->agent_socket);
	push(&a, "-device");
	push(&a, "virtconsole,chardev=agent,bus=vser.0");
	if (p->disk) {
		push(&a, "-drive");
		push(&a, "file=%s,format=%s,if=none,id=d0,cache=%s", p->disk, p->disk_format ? p->disk_format : "raw",
		     p->disk_cache ? p->disk_cache : "none");
		push_devices(&a, disk);
	}
	if (nic) {
		push(&a, "-netdev");
		push(&a, "user,id=n0,restrict=on");
		push_devices(&a, nic);
	}
	if (a.r < 0)
		return errf(why, len, a.r, "building the QEMU command line: %s", strerror(-a.r));
	return 0;
}
