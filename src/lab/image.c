/* Guest image builder (x86_64, aarch64): kernel, modules, busybox, vmbench, init. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cpio.h"
#include "elf.h"
#include "image.h"
#include "matrix.h"
#include "../core/util.h"
#include "../core/banned.h"

#ifndef VMB_VERSION
#define VMB_VERSION "0"
#endif

static bool strv_has(const struct strv *sv, const char *s)
{
	for (size_t i = 0; i < sv->n; i++)
		if (!strcmp(sv->v[i], s))
			return true;
	return false;
}

/* The modules the guest loads: the base ones, then each device model's, once
 * each, in the order of the device table (virtio_pci first). */
int lab_image_modules(struct strv *mods)
{
	struct strv out = { 0 };
	int r = 0;

	for (size_t i = 0; i <= lab_ndevices && r == 0; i++) {
		const char *list = i ? lab_devices[i - 1].modules : LAB_BASE_MODULES;

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

static const char init_script[] =
	"#!/bin/busybox sh\n"
	"# vmbench guest init: drivers, then the agent on the host's channel.\n"
	"/bin/busybox mount -t proc proc /proc\n"
	"/bin/busybox mount -t sysfs sys /sys\n"
	"/bin/busybox mount -t devtmpfs dev /dev\n"
	"/bin/busybox mkdir -p /tmp /run && /bin/busybox mount -t tmpfs tmp /tmp\n"
	"# the net suite's server is on loopback, which a bare kernel leaves down\n"
	"/bin/busybox ip link set lo up 2>/dev/null || /bin/busybox ifconfig lo 127.0.0.1 up\n"
	"echo \"vmbench-init: kernel reached init at $(/bin/busybox cut -d' ' -f1 /proc/uptime) s\"\n"
	"while read m; do /bin/busybox insmod \"/lib/modules/$m\" 2>/dev/null; done < /etc/vmbench-modules\n"
	"port=/dev/hvc0\n"
	"for w in $(/bin/busybox cat /proc/cmdline); do case $w in vmbench.agent=*) port=${w#vmbench.agent=};; esac; done\n"
	"i=0; while [ ! -e \"$port\" ] && [ $i -lt 100 ]; do /bin/busybox sleep 0.1; i=$((i+1)); done\n"
	"echo \"vmbench-init: agent on $port at $(/bin/busybox cut -d' ' -f1 /proc/uptime) s\"\n"
	"cd /tmp && /bin/vmbench agent --port \"$port\"\n"
	"echo \"vmbench-init: agent left ($?), powering off\"\n"
	"/bin/busybox poweroff -f\n";

static int mkdirs(const char *path)
{
	char tmp[PATH_MAX];

	snprintf(tmp, sizeof(tmp), "%s", path);
	for (char *p = tmp + 1; *p; p++)
		if (*p == '/') {
			*p = '\0';
			if (mkdir(tmp, 0755) < 0 && errno != EEXIST)
				return -errno;
			*p = '/';
		}
	return mkdir(tmp, 0755) < 0 && errno != EEXIST ? -errno : 0;
}

static const struct lab_arch arches[] = {
	{ "x86_64", "amd64", "x86_64-linux-gnu" },
	{ "aarch64", "arm64", "aarch64-linux-gnu" },
};

const struct lab_arch *lab_arch_find(const char *name)
{
	for (size_t i = 0; i < sizeof(arches) / sizeof(arches[0]); i++)
		if (!strcmp(arches[i].name, name))
			return &arches[i];
	return NULL;
}

const char *lab_host_arch(void)
{
	static struct utsname u;

	if (!u.machine[0] && uname(&u) < 0)
		return "unknown";
	return u.machine;
}

/* Unpack a .deb into dir/root (once: an existing root is the cache). */
static int unpack_deb(const char *deb, const char *dir, char *root, size_t rootlen, char *err, size_t errlen)
{
	char tmp[PATH_MAX + 8];
	char *const extract[] = { "dpkg-deb", "-x", (char *)deb, tmp, NULL };
	int r = mkdirs(dir);

	if (r < 0)
		return errf(err, errlen, r, "creating %s: %s", dir, strerror(-r));
	snprintf(root, rootlen, "%s/root", dir);
	if (access(root, F_OK) == 0)
		return 0;
	snprintf(tmp, sizeof(tmp), "%s.tmp", root);
	if (run_capture(extract[0], extract, NULL, NULL) < 0 || rename(tmp, root) < 0)
		return errf(err, errlen, -EIO, "unpacking %s failed (is it a Debian package?)", deb);
	return 0;
}

/*
 * A Debian package for the image's architecture, downloaded once into
 * cache/NAME and unpacked there. meta: pkg is a metapackage
 * (linux-image-arm64) whose first linux-image dependency is the real one.
 */
static int fetch_deb(const char *cache, const char *name, const char *pkg, bool meta, const struct lab_arch *a,
		     char *root, size_t rootlen, char *err, size_t errlen)
{
	char dir[PATH_MAX], want[160], real[160] = "", deb[PATH_MAX] = "", *out = NULL;
	struct dirent *e;
	DIR *d;
	int r;

	snprintf(dir, sizeof(dir), "%s/%s", cache, name);
	snprintf(root, rootlen, "%s/root", dir);
	if (access(root, F_OK) == 0)
		return 0; /* the cache: no registry needed */
	r = mkdirs(dir);
	if (r < 0)
		return errf(err, errlen, r, "creating %s: %s", dir, strerror(-r));
	snprintf(want, sizeof(want), "%s:%s", pkg, a->deb);
	if (meta) {
		char *const depends[] = { "apt-cache", "depends", want, NULL };

		if (run_capture(depends[0], depends, NULL, &out) == 0 && out) {
			const char *p = strstr(out, "Depends: linux-image-");

			if (p)
				sscanf(p, "Depends: %159s", real);
		}
		free(out);
		if (!*real)
			return errf(err, errlen, -ENOENT, "no kernel package: 'apt-cache depends %s' names none (%s"
				    "run apt-get update, or give --kernel)", want,
				    strcmp(a->name, lab_host_arch()) ? "add the architecture with dpkg --add-architecture, " : "");
	} else {
		snprintf(real, sizeof(real), "%s", want);
	}
	{
		char *const download[] = { "apt-get", "download", real, NULL };

		if (run_capture(download[0], download, dir, NULL) < 0)
			return errf(err, errlen, -EIO, "'apt-get download %s' failed (is the Debian registry reachable%s?)", real,
				    strcmp(a->name, lab_host_arch()) ? ", is the foreign architecture added" : "");
	}
	if (strchr(real, ':'))
		*strchr(real, ':') = '\0'; /* the file is NAME_VERSION_ARCH.deb */
	d = opendir(dir);
	while (d && (e = readdir(d)))
		if (str_has_prefix(e->d_name, real) && e->d_name[strlen(real)] == '_' && strstr(e->d_name, ".deb"))
			snprintf(deb, sizeof(deb), "%s/%s", dir, e->d_name);
	if (d)
		closedir(d);
	if (!*deb)
		return errf(err, errlen, -ENOENT, "apt-get download left no %s .deb in %s", real, dir);
	r = unpack_deb(deb, dir, root, rootlen, err, errlen);
	(void)unlink(deb);
	return r;
}

/* modules: name -> path below lib/modules/<kv>, by walking the tree */
struct modmap {
	char (*name)[64];
	char (*path)[PATH_MAX];
	size_t n, cap;
};

static int walk(struct modmap *m, const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	if (!d)
		return -errno;
	while ((e = readdir(d))) {
		char p[PATH_MAX];
		size_t l = strlen(e->d_name);

		if (e->d_name[0] == '.')
			continue;
		snprintf(p, sizeof(p), "%s/%s", dir, e->d_name);
		if (e->d_type == DT_DIR) {
			walk(m, p);
		} else if (l > 3 && !strcmp(e->d_name + l - 3, ".ko")) {
			if (m->n == m->cap) {
				size_t nc = m->cap ? m->cap * 2 : 1024;
				void *nn = realloc(m->name, nc * sizeof(*m->name)), *np;

				if (!nn)
					break;
				m->name = nn;
				np = realloc(m->path, nc * sizeof(*m->path));
				if (!np)
					break;
				m->path = np;
				m->cap = nc;
			}
			snprintf(m->name[m->n], 64, "%.*s", (int)(l - 3), e->d_name);
			for (char *c = m->name[m->n]; *c; c++)
				if (*c == '-')
					*c = '_';
			snprintf(m->path[m->n], PATH_MAX, "%s", p);
			m->n++;
		}
	}
	closedir(d);
	return 0;
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

/* Depth-first: dependencies before the module; each once. */
static int add_module(const struct modmap *m, const char *name, struct strv *order, int depth)
{
	const char *path = mod_path(m, name);
	char deps[512], *save = NULL;

	if (!path || depth > 32)
		return -ENOENT;
	for (size_t i = 0; i < order->n; i++)
		if (!strcmp(order->v[i], path))
			return 0;
	if (mod_depends(path, deps, sizeof(deps)) == 0)
		for (char *d = strtok_r(deps, ",", &save); d; d = strtok_r(NULL, ",", &save)) {
			/* module names use '_' and '-' alike (nvme-core is nvme_core) */
			for (char *ch = d; *ch; ch++)
				if (*ch == '-')
					*ch = '_';
			(void)add_module(m, d, order, depth + 1);
		}
	return strv_push(order, path);
}

/* Every directory on the way to path, once, then the file. */
static void add_path(struct cpio *c, struct strv *dirs, const char *path, mode_t perm, const char *host)
{
	char d[PATH_MAX];

	snprintf(d, sizeof(d), "%s", path[0] == '/' ? path + 1 : path);
	for (char *p = strchr(d, '/'); p; p = strchr(p + 1, '/')) {
		bool seen = false;

		*p = '\0';
		for (size_t i = 0; i < dirs->n; i++)
			seen |= !strcmp(dirs->v[i], d);
		if (!seen) {
			cpio_dir(c, d, 0755);
			strv_push(dirs, d);
		}
		*p = '/';
	}
	cpio_copy(c, d, perm, host);
}

static int file_id(const char *path, char *buf, size_t len)
{
	struct stat st;

	if (stat(path, &st) < 0)
		return -errno;
	snprintf(buf, len, "%s:%lld:%lld", path, (long long)st.st_size, (long long)st.st_mtime);
	return 0;
}

/* The binary at path is for arch (and static when asked); else err says what it is. */
static int check_binary(const char *what, const char *path, const char *arch, bool must_be_static, char *err,
			size_t errlen)
{
	struct elf_info e;
	int r = elf_read(path, &e);

	if (r < 0)
		return errf(err, errlen, r, "%s %s: %s", what, path,
			    r == -ENOEXEC ? "not a 64-bit ELF program" : strerror(-r));
	if (!e.arch || strcmp(e.arch, arch))
		r = errf(err, errlen, -ENOEXEC, "%s %s is for %s, the image is for %s", what, path,
			 e.arch ? e.arch : "another architecture", arch);
	else if (must_be_static && *e.interp)
		r = errf(err, errlen, -ENOEXEC, "%s %s is not static (Debian's busybox-static is)", what, path);
	elf_release(&e);
	return r;
}

/* The kernel: --kernel (a vmlinuz, or a linux-image .deb) or Debian's for the arch. */
static int find_kernel(const struct lab_image_opts *o, const struct lab_arch *a, char *root, size_t rootlen,
		       char *kernel, size_t klen, char *kv, size_t kvlen, char *err, size_t errlen)
{
	char path[PATH_MAX];
	DIR *d;
	struct dirent *e;
	int r;

	*root = *kv = '\0';
	if (o->kernel && !(strlen(o->kernel) > 4 && !strcmp(o->kernel + strlen(o->kernel) - 4, ".deb"))) {
		/* a bare kernel: no modules come with it, its drivers must be built in */
		if (access(o->kernel, R_OK) < 0)
			return errf(err, errlen, -errno, "--kernel %s: %s", o->kernel, strerror(errno));
		snprintf(kernel, klen, "%s", o->kernel);
		snprintf(kv, kvlen, "%s", strrchr(o->kernel, '/') ? strrchr(o->kernel, '/') + 1 : o->kernel);
		return 0;
	}
	if (o->kernel) {
		const char *base = strrchr(o->kernel, '/') ? strrchr(o->kernel, '/') + 1 : o->kernel;
		char dir[PATH_MAX];

		if (access(o->kernel, R_OK) < 0)
			return errf(err, errlen, -errno, "--kernel %s: %s", o->kernel, strerror(errno));
		snprintf(dir, sizeof(dir), "%s/kernel-deb-%.*s", o->cache, (int)strlen(base) - 4, base);
		r = unpack_deb(o->kernel, dir, root, rootlen, err, errlen);
	} else {
		char name[64], meta[64];

		snprintf(name, sizeof(name), "kernel-%s", a->deb);
		snprintf(meta, sizeof(meta), "linux-image-%s", a->deb);
		r = fetch_deb(o->cache, name, meta, true, a, root, rootlen, err, errlen);
	}
	if (r < 0)
		return r;
	snprintf(path, sizeof(path), "%s/lib/modules", root);
	d = opendir(path);
	while (d && (e = readdir(d)))
		if (e->d_name[0] != '.')
			snprintf(kv, kvlen, "%s", e->d_name);
	if (d)
		closedir(d);
	snprintf(kernel, klen, "%s/boot/vmlinuz-%s", root, kv);
	if (!*kv || access(kernel, R_OK) < 0)
		return errf(err, errlen, -ENOENT, "no kernel in %s (remove it to unpack again)", root);
	return 0;
}

int lab_image_build(const struct lab_image_opts *o, int *rebuilt, char *err, size_t errlen)
{
	char root[PATH_MAX], kernel[PATH_MAX] = "", kv[128] = "", moddir[PATH_MAX], path[PATH_MAX + 32];
	char ids[4][PATH_MAX + 64], busybox[PATH_MAX], *old = NULL, *modlist = NULL, *text = NULL;
	struct strv order = { 0 }, libs = { 0 }, dirs = { 0 }, missing = { 0 }, wanted = { 0 };
	const struct lab_arch *a = lab_arch_find(o->arch);
	struct modmap mm = { 0 };
	json_t *manifest = NULL, *mods;
	bool bad, mods_bad = false;
	struct cpio c;
	size_t mlen = 0;
	int r;

	*rebuilt = 0;
	if (!a)
		return errf(err, errlen, -EINVAL, "arch %s: images are built for x86_64 and aarch64", o->arch);
	r = find_kernel(o, a, root, sizeof(root), kernel, sizeof(kernel), kv, sizeof(kv), err, errlen);
	if (r < 0)
		return r;
	if (o->busybox) {
		snprintf(busybox, sizeof(busybox), "%s", o->busybox);
	} else if (!strcmp(a->name, lab_host_arch())) {
		snprintf(busybox, sizeof(busybox), "/bin/busybox");
	} else {
		/* a foreign busybox-static cannot be installed beside the host's: unpack it */
		char bbroot[PATH_MAX], name[64];

		snprintf(name, sizeof(name), "busybox-%s", a->deb);
		r = fetch_deb(o->cache, name, "busybox-static", false, a, bbroot, sizeof(bbroot), err, errlen);
		if (r < 0)
			return r;
		snprintf(busybox, sizeof(busybox), "%s/bin/busybox", bbroot);
	}
	if (file_id(busybox, ids[0], sizeof(ids[0])) < 0)
		return errf(err, errlen, -ENOENT, "no static busybox at %s: apt-get install busybox-static", busybox);
	if (file_id(o->vmbench, ids[1], sizeof(ids[1])) < 0 || file_id(kernel, ids[2], sizeof(ids[2])) < 0)
		return errf(err, errlen, -ENOENT, "cannot read %s or %s", o->vmbench, kernel);
	r = check_binary("busybox", busybox, a->name, true, err, errlen);
	if (r == 0)
		r = check_binary("the guest's vmbench", o->vmbench, a->name, false, err, errlen);
	if (r < 0)
		return r;
	r = mkdirs(o->out);
	if (r < 0)
		return errf(err, errlen, r, "creating %s: %s", o->out, strerror(-r));

	/* the modules the device table asks for are an input too: a new model rebuilds */
	r = lab_image_modules(&wanted);
	if (r < 0)
		return errf(err, errlen, r, "out of memory listing modules");
	ids[3][0] = '\0';
	for (size_t i = 0, off = 0; i < wanted.n && off < sizeof(ids[3]); i++)
		str_appendf(ids[3], sizeof(ids[3]), &off, "%s%s", i ? " " : "", wanted.v[i]);

	/* Up to date when every input is the same file as last time. */
	snprintf(path, sizeof(path), "%s/manifest.json", o->out);
	if (read_file(path, &old) == 0) {
		json_t *m = json_loads(old, 0, NULL);
		const json_t *in = json_object_get(m, "inputs");
		bool same = in && json_array_size(in) == 4;

		for (size_t i = 0; same && i < 4; i++)
			same = !strcmp(json_string_value(json_array_get(in, i)) ?: "", ids[i]);
		json_decref(m);
		free(old);
		if (same) {
			strv_clear(&wanted);
			return 0;
		}
	}
	r = elf_runtime_files(o->vmbench, a->triplet, &libs, err, errlen);
	if (r < 0)
		goto out;

	snprintf(moddir, sizeof(moddir), "%s/lib/modules/%s/kernel", root, kv);
	if (*root)
		walk(&mm, moddir);
	for (size_t i = 0; i < wanted.n; i++)
		if (add_module(&mm, wanted.v[i], &order, 0) < 0 && strv_push(&missing, wanted.v[i]) < 0) {
			r = errf(err, errlen, -ENOMEM, "out of memory listing modules");
			goto out;
		}

	snprintf(path, sizeof(path), "%s/initrd.img", o->out);
	r = cpio_open(&c, path);
	if (r < 0) {
		errf(err, errlen, r, "creating %s: %s", path, strerror(-r));
		goto out;
	}
	for (const char *d = "bin\0proc\0sys\0dev\0tmp\0run\0etc\0lib\0lib/modules\0"; *d; d += strlen(d) + 1) {
		cpio_dir(&c, d, 0755);
		strv_push(&dirs, d);
	}
	cpio_copy(&c, "bin/busybox", 0755, busybox);
	cpio_symlink(&c, "bin/sh", "busybox");
	cpio_copy(&c, "bin/vmbench", 0755, o->vmbench);
	for (size_t i = 0; i < libs.n; i++)
		add_path(&c, &dirs, libs.v[i], 0755, libs.v[i]);
	mods = json_array();
	for (size_t i = 0; i < order.n; i++) {
		const char *base = strrchr(order.v[i], '/') + 1;
		char name[PATH_MAX];
		size_t l = strlen(base) + 1;
		char *nl = realloc(modlist, mlen + l + 1);

		if (!nl)
			break;
		modlist = nl;
		snprintf(modlist + mlen, l + 1, "%s\n", base);
		mlen += l;
		snprintf(name, sizeof(name), "lib/modules/%s", base);
		cpio_copy(&c, name, 0644, order.v[i]);
		if (json_array_append_new(mods, json_string(base)) < 0)
			mods_bad = true;
	}
	cpio_file(&c, "etc/vmbench-modules", 0644, modlist ? modlist : "", mlen);
	cpio_file(&c, "init", 0755, init_script, sizeof(init_script) - 1);
	r = cpio_close(&c);
	if (r < 0) {
		json_decref(mods);
		errf(err, errlen, r, "writing %s: %s", path, strerror(-r));
		goto out;
	}
	snprintf(path, sizeof(path), "%s/vmlinuz", o->out);
	(void)unlink(path);
	if (symlink(kernel, path) < 0) {
		json_decref(mods);
		r = errf(err, errlen, -errno, "linking %s: %s", path, strerror(errno));
		goto out;
	}
	manifest = json_pack("{s:s, s:s, s:s, s:o, s:o, s:[s, s, s, s]}", "arch", o->arch, "kernel_version", kv,
			     "vmbench_version", VMB_VERSION, "modules", mods, "modules_missing", json_array(), "inputs",
			     ids[0], ids[1], ids[2], ids[3]);
	/* every field or none: a path that is not UTF-8 (json_string refuses
	 * it) fails the manifest instead of leaving the field out */
	bad = !manifest || mods_bad;
	for (size_t i = 0; !bad && i < missing.n; i++)
		bad = json_array_append_new(json_object_get(manifest, "modules_missing"), json_string(missing.v[i])) < 0;
	if (!bad) {
		json_t *l = json_array();

		for (size_t i = 0; l && !bad && i < libs.n; i++)
			bad = json_array_append_new(l, json_string(libs.v[i])) < 0;
		bad = bad || json_object_set_new(manifest, "libraries", l) < 0 ||
		      json_object_set_new(manifest, "kernel", json_string(kernel)) < 0 ||
		      json_object_set_new(manifest, "busybox", json_string(busybox)) < 0 ||
		      (!*root && json_object_set_new(manifest, "modules_note",
						     json_string("a bare --kernel brings no modules: its drivers must be "
								 "built in")) < 0);
	}
	if (bad) {
		r = errf(err, errlen, -EINVAL, "writing the image's manifest: out of memory, or a path (kernel, "
			 "busybox, a library or a module) that is not UTF-8");
		goto out;
	}
	text = json_dumps(manifest, JSON_INDENT(2));
	snprintf(path, sizeof(path), "%s/manifest.json", o->out);
	(void)unlink(path);
	r = text ? file_write_new(path, text, strlen(text)) : -ENOMEM;
	if (r < 0)
		errf(err, errlen, r, "writing %s: %s", path, strerror(-r));
	else
		*rebuilt = 1;
out:
	free(text);
	free(modlist);
	json_decref(manifest);
	free(mm.name);
	free(mm.path);
	strv_clear(&order);
	strv_clear(&libs);
	strv_clear(&dirs);
	strv_clear(&missing);
	strv_clear(&wanted);
	return r;
}
