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

#include "matrix.h"
#include "modules.h"
#include "../core/banned.h"

static bool strv_has(const struct strv *sv, const char *s)
{
	for (size_t i = 0; i < sv->n; i++)
		if (!strcmp(sv->v[i], s))
			return true;
	return false;
}

/* The modules the guest loads: the base ones, then each device model's, then
 * each filesystem's, once each, in the order of the tables (virtio_pci first). */
int lab_image_modules(struct strv *mods)
{
	struct strv out = { 0 };
	int r = 0;

	for (size_t i = 0; i <= lab_ndevices + lab_nfilesystems && r == 0; i++) {
		const char *list = !i ? LAB_BASE_MODULES
			: i <= lab_ndevices ? lab_devices[i - 1].modules : lab_filesystems[i - 1 - lab_ndevices].modules;

		for (const char *p = list + strspn(list, " "); *p && r == 0;) {
			size_t l = strcspn(p, " ");
			char name[64];

			snprintf(name, sizeof(name), "%.*s", (int)l, p);
			if (!strv_has(&out, name))
				r = strv_push(&out, name);
			p += l + strspn(p + l, " ");
		}
	}
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
	snprintf(m->name[m->n], 64, "%.*s", (int)(l - 3), file);
	for (char *c = m->name[m->n]; *c; c++)
		if (*c == '-')
			*c = '_';
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
static int add_module(const struct modmap *m, const char *name, struct strv *order, int depth)
{
	const char *path = mod_path(m, name);
	char deps[512], *save = NULL;
	int r;

	if (!path || depth > 32)
		return -ENOENT;
	if (strv_has(order, path))
		return 0;
	r = mod_depends(path, deps, sizeof(deps));
	if (r == -ENOMEM)
		return r;
	for (char *d = r == 0 ? strtok_r(deps, ",", &save) : NULL; d; d = strtok_r(NULL, ",", &save)) {
		/* module names use '_' and '-' alike (nvme-core is nvme_core) */
		for (char *ch = d; *ch; ch++)
			if (*ch == '-')
				*ch = '_';
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
		r = add_module(&mm, wanted->v[i], &m->order, 0);
		if (r == -ENOENT)
			r = strv_push(&m->missing, wanted->v[i]);
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
	free(m->list);
	m->list = NULL;
	m->len = 0;
}
