/* The guest image's kernel modules: the device models' list, the walk of an
 * unpacked kernel package, the load order (dependencies first) and the
 * list the guest's init reads. Every list that grows fails the build with
 * -ENOMEM when it cannot, so that no module is lost without a word. */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <jansson.h>

#include "matrix.h"
#include "modules.h"
#include "../core/str.h"
#include "../core/banned.h"

static bool strv_has(const struct strv *sv, const char *s)
{
	for (size_t i = 0; i < sv->n; i++)
		if (!strcmp(sv->v[i], s))
			return true;
	return false;
}

void lab_module_name(const char *name, size_t n, char *out, size_t len)
{
	snprintf(out, len, "%.*s", (int)n, name);
	for (char *c = out; *c; c++)
		if (*c == '-')
			*c = '_';
}

bool lab_module_same(const char *a, const char *b)
{
	for (; *a && *b; a++, b++)
		if (*a != *b && !((*a == '-' || *a == '_') && (*b == '-' || *b == '_')))
			return false;
	return *a == *b;
}

/* the names of list ("a b"), each once, added to out as the kernel spells them */
static int push_names(struct strv *out, const char *list)
{
	int r = 0;

	for (const char *p = list + strspn(list, " "); *p && r == 0;) {
		size_t l = strcspn(p, " ");
		char name[64];

		lab_module_name(p, l, name, sizeof(name));
		if (!strv_has(out, name))
			r = strv_push(out, name);
		p += l + strspn(p + l, " ");
	}
	return r;
}

int lab_config_modules(const struct lab_config *c, struct strv *mods)
{
	const struct lab_fs *fs = lab_config_fs(c);
	struct strv out = { 0 };
	int r = push_names(&out, LAB_BASE_MODULES);

	for (int k = 0; k < (int)lab_nkeys && r == 0; k++) {
		const struct lab_device *d = lab_config_device(c, (enum lab_key)k);

		if (d)
			r = push_names(&out, d->modules);
	}
	/* several NICs: the guest bonds them */
	if (r == 0 && c->nics > 1)
		r = push_names(&out, LAB_BOND_MODULES);
	/* a share takes the file tests: no filesystem is made on the scratch disk */
	if (r == 0 && fs && !c->share)
		r = push_names(&out, fs->modules);
	if (r < 0) {
		strv_clear(&out);
		return r;
	}
	*mods = out;
	return 0;
}

/* The set of a wanted module in an image's module_sets, whichever of '-'
 * and '_' either spells it with; NULL: none. */
static const char *set_of(const json_t *sets, const char *want)
{
	const char *key;
	const json_t *v;

	json_object_foreach((json_t *)sets, key, v)
		if (lab_module_same(key, want))
			return json_string_value(v);
	return NULL;
}

int lab_modules_for(const char *manifest, const struct strv *wanted, char *out, size_t len)
{
	json_t *m = json_loads(manifest, 0, NULL);
	const json_t *order = json_object_get(m, "modules"), *sets = json_object_get(m, "module_sets"), *v;
	size_t i, off = 0;
	int r = 0;

	if (len)
		out[0] = '\0';
	if (!json_is_array(order) || !json_is_object(sets)) {
		json_decref(m);
		return m ? -ENOENT : -EINVAL;
	}
	/* a module the image has no set for (made before it was wanted): every
	 * module; one with an empty set (built in, or not in the kernel): none */
	for (i = 0; i < wanted->n && r == 0; i++)
		if (!set_of(sets, wanted->v[i]))
			r = -ENOENT;
	/* the image's order, each module that some wanted one's set names */
	json_array_foreach(order, i, v) {
		const char *name = json_string_value(v);
		size_t nl = name ? strlen(name) : 0;
		bool in = false;

		if (r < 0)
			break;
		if (!nl || strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.") != nl) {
			r = -EINVAL; /* goes on a kernel command line */
			break;
		}
		for (size_t w = 0; w < wanted->n && !in; w++) {
			const char *set = set_of(sets, wanted->v[w]);

			for (const char *p = set; p && *p && !in; p += strcspn(p, " "), p += strspn(p, " "))
				in = strcspn(p, " ") == nl && !strncmp(p, name, nl);
		}
		if (!in)
			continue;
		if (off + nl + 2 > len)
			r = -ENOSPC;
		else
			off += (size_t)snprintf(out + off, len - off, "%s%s", off ? "," : "", name);
	}
	json_decref(m);
	if (r < 0 && len)
		out[0] = '\0';
	return r;
}

/* The modules the guest loads: the base ones, then each device model's of
 * the architecture (a model it lacks, such as pvscsi on aarch64, wants no
 * driver in its image), then each filesystem's, once each, in the order of
 * the tables (virtio_pci first), then the bond's (the nics key). */
int lab_image_modules(const char *arch, struct strv *mods)
{
	struct strv out = { 0 };
	int r = 0;

	for (size_t i = 0; i <= lab_ndevices + lab_nfilesystems && r == 0; i++) {
		const char *list = !i ? LAB_BASE_MODULES
			: i <= lab_ndevices ? lab_devices[i - 1].modules : lab_filesystems[i - 1 - lab_ndevices].modules;

		if (i && i <= lab_ndevices && arch && !str_in_list(lab_devices[i - 1].arches + 1, ' ', arch))
			continue;
		r = push_names(&out, list);
	}
	if (r == 0)
		r = push_names(&out, LAB_BOND_MODULES);
	if (r < 0) {
		strv_clear(&out);
		return r;
	}
	*mods = out;
	return 0;
}

/* modules: name -> path below lib/modules/<kv>, by walking the tree */
struct modmap {
	void *(*realloc)(void *p, size_t size);
	char (*name)[64];
	char (*path)[PATH_MAX];
	size_t n, cap;
};

static int modmap_add(struct modmap *m, const char *file, size_t l, const char *path)
{
	if (m->n == m->cap) {
		size_t nc = m->cap ? m->cap * 2 : 1024;
		void *nn = m->realloc(m->name, nc * sizeof(*m->name)), *np;

		if (!nn)
			return -ENOMEM;
		m->name = nn;
		np = m->realloc(m->path, nc * sizeof(*m->path));
		if (!np)
			return -ENOMEM;
		m->path = np;
		m->cap = nc;
	}
	lab_module_name(file, l - 3, m->name[m->n], 64);
	snprintf(m->path[m->n], PATH_MAX, "%s", path);
	m->n++;
	return 0;
}

/* Every .ko below dir; a directory that cannot be read holds none we could copy. */
static int walk(struct modmap *m, const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int r = 0;

	if (!d)
		return 0;
	while (r == 0 && (e = readdir(d))) {
		char p[PATH_MAX];
		size_t l = strlen(e->d_name);

		if (e->d_name[0] == '.')
			continue;
		snprintf(p, sizeof(p), "%s/%s", dir, e->d_name);
		if (e->d_type == DT_DIR)
			r = walk(m, p);
		else if (l > 3 && !strcmp(e->d_name + l - 3, ".ko"))
			r = modmap_add(m, e->d_name, l, p);
	}
	closedir(d);
	return r;
}

static const char *mod_path(const struct modmap *m, const char *name)
{
	for (size_t i = 0; i < m->n; i++)
		if (!strcmp(m->name[i], name))
			return m->path[i];
	return NULL;
}

/* "depends=a,b" from the module's .modinfo strings */
static int mod_depends(const char *path, char *out, size_t len)
{
	char *data;
	size_t size;
	int r = read_file(path, &data);
	const char *p;

	out[0] = '\0';
	if (r < 0)
		return r;
	/* read_file stops at nothing: find the key in the raw bytes */
	{
		struct stat st;

		size = stat(path, &st) == 0 ? (size_t)st.st_size : 0;
	}
	p = memmem(data, size, "\0depends=", 9);
	if (p)
		snprintf(out, len, "%s", p + 9);
	free(data);
	return 0;
}

/* Depth-first: dependencies before the module; each once. -ENOENT: no such
 * module (a missing dependency is left to the guest's insmod, as before). */
static int add_module(const struct modmap *m, const char *wanted, struct strv *order, int depth)
{
	char name[64], deps[512], *save = NULL;
	const char *path;
	int r;

	/* the map's names are spelled with '_': so is the one looked for */
	lab_module_name(wanted, strlen(wanted), name, sizeof(name));
	path = mod_path(m, name);

	if (!path || depth > 32)
		return -ENOENT;
	if (strv_has(order, path))
		return 0;
	r = mod_depends(path, deps, sizeof(deps));
	if (r == -ENOMEM)
		return r;
	for (char *d = r == 0 ? strtok_r(deps, ",", &save) : NULL; d; d = strtok_r(NULL, ",", &save)) {
		r = add_module(m, d, order, depth + 1);
		if (r < 0 && r != -ENOENT)
			return r;
	}
	return strv_push(order, path);
}

/* "a.ko\nb.ko\n": what the guest's init loads, in order */
static int load_list(struct lab_modules *m)
{
	for (size_t i = 0; i < m->order.n; i++) {
		const char *base = strrchr(m->order.v[i], '/') ? strrchr(m->order.v[i], '/') + 1 : m->order.v[i];
		size_t l = strlen(base) + 1;
		char *nl = m->realloc(m->list, m->len + l + 1);

		if (!nl)
			return -ENOMEM;
		m->list = nl;
		snprintf(m->list + m->len, l + 1, "%s\n", base);
		m->len += l;
	}
	return 0;
}

int lab_modules_gather(struct lab_modules *m, const char *moddir, const struct strv *wanted)
{
	struct modmap mm = { .realloc = m->realloc ? m->realloc : realloc };
	int r = 0;

	if (!m->realloc)
		m->realloc = realloc;
	if (moddir)
		r = walk(&mm, moddir);
	for (size_t i = 0; r == 0 && i < wanted->n; i++) {
		struct strv one = { 0 };

		r = add_module(&mm, wanted->v[i], &m->order, 0);
		if (r == -ENOENT)
			r = strv_push(&m->missing, wanted->v[i]);
		/* its own set: what a guest that wants only it loads */
		if (r == 0)
			r = add_module(&mm, wanted->v[i], &one, 0);
		if (r == 0 || r == -ENOENT) {
			size_t n = 1;
			char *set;

			for (size_t k = 0; k < one.n; k++)
				n += strlen(strrchr(one.v[k], '/') ? strrchr(one.v[k], '/') + 1 : one.v[k]) + 1;
			set = m->realloc(NULL, n);
			r = set ? 0 : -ENOMEM;
			if (set) {
				size_t off = 0;

				set[0] = '\0';
				for (size_t k = 0; k < one.n; k++) {
					const char *b = strrchr(one.v[k], '/') ? strrchr(one.v[k], '/') + 1 : one.v[k];

					off += (size_t)snprintf(set + off, n - off, "%s%s", k ? " " : "", b);
				}
				r = strv_push(&m->sets, set);
				free(set);
			}
		}
		strv_clear(&one);
	}
	if (r == 0)
		r = load_list(m);
	free(mm.name);
	free(mm.path);
	if (r < 0)
		lab_modules_release(m);
	return r;
}

void lab_modules_release(struct lab_modules *m)
{
	strv_clear(&m->order);
	strv_clear(&m->missing);
	strv_clear(&m->sets);
	free(m->list);
	m->list = NULL;
	m->len = 0;
}
