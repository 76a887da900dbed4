/* The lab's matrix: parsed, checked and expanded into configurations, each
 * with its plan resolved (src/lab/plan.c); a profile's keys applied; the
 * start-up check of the lab's tables; KEY=VALUE selectors. The keys are
 * rows of src/lab/keys.c, the rows their values choose src/lab/tables.c. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "matrix.h"
#include "../core/str.h"
#include "../core/suite.h"
#include "../core/banned.h"

/* the keys a matrix gives are bits of an unsigned (lab_config.given); the
 * table's count (a test build's too) is checked at start-up */
_Static_assert(LAB_KEYS_MAX <= sizeof(unsigned) * CHAR_BIT, "more matrix keys than bits in lab_config.given");
_Static_assert(LAB_NKEYS <= LAB_KEYS_MAX, "more matrix keys than LAB_KEYS_MAX");

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
	const char *values = (size_t)d->key < lab_nkeys ? lab_key_values(d->key) : "";

	if (!d->name || !*d->name || !*values || !str_in_list(values + 1, ' ', d->name))
		return errf(why, len, -EINVAL, "device %s: not a value of its key", d->name ? d->name : "?");
	if (!d->arches || d->arches[0] != ' ' || !words_unique(d->arches))
		return errf(why, len, -EINVAL, "device %s: architectures not \" a b\", each once", d->name);
	for (const char *a = d->arches + 1; *a; a += strspn(a, " ")) {
		size_t n = strcspn(a, " ");
		char arch[32];

		snprintf(arch, sizeof(arch), "%.*s", (int)n, a);
		if (!str_in_list(lab_keys[LAB_ARCH].values + 1, ' ', arch))
			return errf(why, len, -EINVAL, "device %s: architecture '%s' is no value of arch", d->name, arch);
		a += n;
	}
	if (!d->devices || !*d->devices || !d->driver || !*d->driver)
		return errf(why, len, -EINVAL, "device %s: no QEMU device or no guest driver", d->name);
	if (!lab_module_list_ok(d->modules))
		return errf(why, len, -EINVAL, "device %s: modules '%s' are not module names, space-separated", d->name,
			    d->modules ? d->modules : "");
	if (d->libvirt) {
		char a[64], b[64];

		if (lab_device_libvirt(d, a, sizeof(a), b, sizeof(b)) < 0)
			return errf(why, len, -EINVAL, "device %s: its libvirt element '%s' is not '%s'", d->name,
				    d->libvirt, d->key == LAB_DISK ? "disk bus=BUS[ controller=MODEL]"
					       : d->key == LAB_NIC ? "nic MODEL" : "balloon MODEL");
	}
	return 0;
}

/* One word of [a-z0-9-] at *p, up to a space or the end, into out */
static int lv_word(const char **p, char *out, size_t len)
{
	size_t n = strcspn(*p, " ");

	if (n == 0 || n >= len || strspn(*p, "abcdefghijklmnopqrstuvwxyz0123456789-") != n)
		return -EINVAL;
	snprintf(out, len, "%.*s", (int)n, *p);
	*p += n;
	return 0;
}

int lab_device_libvirt(const struct lab_device *d, char *a, size_t alen, char *b, size_t blen)
{
	static const char *const kinds[LAB_KEYS_MAX] = { [LAB_DISK] = "disk ", [LAB_NIC] = "nic ",
							 [LAB_BALLOON] = "balloon " };
	const char *kind = (size_t)d->key < LAB_KEYS_MAX ? kinds[d->key] : NULL, *p;

	a[0] = b[0] = '\0';
	if (!d->libvirt)
		return -ENOENT;
	if (!kind || strncmp(d->libvirt, kind, strlen(kind)))
		return -EINVAL;
	p = d->libvirt + strlen(kind);
	if (d->key != LAB_DISK)
		return lv_word(&p, a, alen) < 0 || *p ? -EINVAL : 0;
	if (strncmp(p, "bus=", 4))
		return -EINVAL;
	p += 4;
	if (lv_word(&p, a, alen) < 0)
		return -EINVAL;
	if (!*p)
		return 0;
	if (strncmp(p, " controller=", 12))
		return -EINVAL;
	p += 12;
	return lv_word(&p, b, blen) < 0 || *p ? -EINVAL : 0;
}

int lab_tables_check(const struct vmb_suite *(*suite_of)(const char *name), char *why, size_t len)
{
	int r;

	if (lab_nkeys > LAB_KEYS_MAX)
		return errf(why, len, -EINVAL, "%zu matrix keys; a configuration holds at most %d (LAB_KEYS_MAX)", lab_nkeys,
			    LAB_KEYS_MAX);
	for (int k = 0; k < (int)lab_nkeys; k++) {
		const struct lab_key_row *key = &lab_keys[k];
		int64_t n;
		uint64_t bytes;

		if (!key->name || !*key->name || key->name[strcspn(key->name, "=, |")] || lab_key_find(key->name) != k)
			return errf(why, len, -EINVAL, "key %d: no name, a name with '=', ',', ' ' or '|', or one twice", k);
		if (key->type == LAB_KEY_LIST && (key->values[0] != ' ' || !words_unique(key->values) ||
					  !str_in_list(key->values + 1, ' ', key->def)))
			return errf(why, len, -EINVAL, "key %s: values not \" a b\" each once, or its default not among them",
				    key->name);
		if ((key->type == LAB_KEY_COUNT && parse_i64(key->def, (int64_t)key->min, (int64_t)key->max, &n) < 0) ||
		    (key->type == LAB_KEY_SIZE && parse_size(key->def, key->min, key->max, &bytes) < 0))
			return errf(why, len, -EINVAL, "key %s: default %s out of its range", key->name, key->def);
		if (key->suite && (!suite_of || !suite_of(key->suite)))
			return errf(why, len, -EINVAL, "key %s: its row names the suite '%s', no suite", key->name, key->suite);
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
	for (int k = 0; k < (int)lab_nkeys && off < len; k++)
		str_appendf(buf, len, &off, "%s%s", k ? ", " : "", lab_keys[k].name);
}

static int check_value(enum lab_key k, const char *v, char *err, size_t errlen)
{
	const struct lab_key_row *key = &lab_keys[k];
	char valid[512];
	int64_t n;
	uint64_t bytes;

	switch (key->type) {
	case LAB_KEY_LIST:
		/* " a b": a word of the list, after one of its spaces */
		if (*v && !strchr(v, ' ') && str_in_list(key->values + 1, ' ', v))
			return 0;
		lab_values_text(key->values, valid, sizeof(valid));
		return errf(err, errlen, -EINVAL, "matrix: %s=%s is not known; valid values of %s: %s", key->name, v,
			    key->name, valid);
	case LAB_KEY_COUNT:
		if (parse_i64(v, (int64_t)key->min, (int64_t)key->max, &n) == 0)
			return 0;
		break;
	case LAB_KEY_SIZE:
		if (parse_size(v, key->min, key->max, &bytes) == 0)
			return 0;
		break;
	case LAB_KEY_WORD:
		/* the key's check judges it, with the configuration's other values */
		if (!strchr(v, ' '))
			return 0;
		break;
	}
	return errf(err, errlen, -EINVAL, "matrix: %s=%s is not valid; %s takes%s", key->name, v, key->name, key->range);
}

/* One KEY=V1,V2 word into vals[k]; every value non-empty, valid and once. */
static int parse_word(char *tok, char vals[LAB_KEYS_MAX][16][32], size_t *nvals, unsigned *given, char *err,
		      size_t errlen)
{
	char *eq = strchr(tok, '='), *v, valid[128];
	int k = -1, r;

	if (eq)
		*eq = '\0';
	for (int i = 0; i < (int)lab_nkeys; i++)
		if (!strcmp(lab_keys[i].name, tok))
			k = i;
	if (k < 0) {
		valid_keys(valid, sizeof(valid));
		return errf(err, errlen, -EINVAL, "matrix: unknown key '%s'; valid keys: %s", tok, valid);
	}
	if (!eq || !eq[1])
		return errf(err, errlen, -EINVAL, "matrix: '%s' needs values, e.g. %s=%s", tok, tok, lab_keys[k].def);
	if (*given & (1u << k))
		return errf(err, errlen, -EINVAL, "matrix: %s is given twice; list its values once, comma-separated", tok);
	*given |= 1u << k;
	/* not strtok: "smp=1,,2" and "accel=," have empty values, which are mistakes */
	for (v = eq + 1;; v++) {
		char *comma = strchr(v, ',');

		if (comma)
			*comma = '\0';
		if (!*v) {
			lab_values_text(lab_keys[k].values, valid, sizeof(valid));
			return errf(err, errlen, -EINVAL, "matrix: %s has an empty value; give %s=V1,V2 with values %s%s",
				    lab_keys[k].name, lab_keys[k].name, *valid ? "among " : "that are", *valid ? valid : lab_keys[k].range);
		}
		if (nvals[k] == 16 || strlen(v) >= 32)
			return errf(err, errlen, -EINVAL, "matrix: too many or too long values for %s (at most 16)",
				    lab_keys[k].name);
		r = check_value((enum lab_key)k, v, err, errlen);
		if (r < 0)
			return r;
		for (size_t j = 0; j < nvals[k]; j++)
			if (!strcmp(vals[k][j], v))
				return errf(err, errlen, -EINVAL, "matrix: %s=%s is given twice", lab_keys[k].name, v);
		snprintf(vals[k][nvals[k]++], 32, "%s", v);
		if (!comma)
			return 0;
		v = comma;
	}
}

/* One product of values, "accel=tcg disk=ide,virtio-blk": every combination. */
static int parse_product(const char *spec, struct lab_matrix *m, char *err, size_t errlen)
{
	char vals[LAB_KEYS_MAX][16][32], valid[128];
	size_t nvals[LAB_KEYS_MAX] = { 0 };
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
	for (int k = 0; k < (int)lab_nkeys; k++) {
		if (!nvals[k])
			snprintf(vals[k][nvals[k]++], 32, "%s", lab_keys[k].def);
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

		for (int k = (int)lab_nkeys - 1; k >= 0; k--) {
			snprintf(configs[i].v[k], 32, "%s", vals[k][rest % nvals[k]]);
			rest /= nvals[k];
		}
	}
	/* a profile sets its keys, before the keys' checks judge them; then
	 * the plan of each */
	for (size_t i = 0; i < total; i++) {
		lab_config_resolve(&configs[i]);
		if ((r = profile_apply(&configs[i], given, err, errlen)) < 0) {
			free(configs);
			return r;
		}
		lab_config_resolve(&configs[i]);
	}
	/* each key the matrix gives agrees with the other keys, in every configuration */
	for (size_t i = 0; i < total; i++)
		for (int k = 0; k < (int)lab_nkeys; k++)
			if ((given & (1u << k)) && lab_keys[k].check && (r = lab_keys[k].check(&configs[i], err, errlen)) < 0) {
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

					for (int k = 0; k < (int)lab_nkeys; k++)
						if ((pm.given | all.given) & (1u << k))
							str_appendf(name, sizeof(name), &off, "%s%s=%s", off ? " " : "",
								    lab_keys[k].name, pm.configs[i].v[k]);
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

