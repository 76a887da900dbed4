/* Lab matrix: parse, validate, expand; the device model behind a key. */
#include <errno.h>
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

const struct lab_fs lab_filesystems[] = {
#define FS_ROW(n, pkg, f, mk, v, mods, min) { .name = n, .package = pkg, .files = f, .mkfs = mk, .version = v, .modules = mods, .min_mib = min },
	LAB_FILESYSTEMS(FS_ROW)
#undef FS_ROW
};
const size_t lab_nfilesystems = sizeof(lab_filesystems) / sizeof(lab_filesystems[0]);

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
};

const char *lab_key_suite(enum lab_key k)
{
	return (unsigned)k < LAB_NKEYS ? key_suites[k] : NULL;
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
