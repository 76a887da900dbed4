/* Distribution guest images: debootstrap, the lab's files (their text: distro_files.c),
 * ext4, qcow2 (see distro.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "distro.h"
#include "elf.h"
#include "image.h"
#include "matrix.h"
#include "../core/clock.h"
#include "../core/file.h"
#include "../core/macro.h"
#include "../core/util.h"
#include "../core/banned.h"

#define DISTRO_ROW(n, s, m, p) { n, s, m, p },
static const struct lab_distro distros[] = { LAB_DISTROS(DISTRO_ROW) };

const struct lab_distro *lab_distro_find(const char *name)
{
	for (size_t i = 0; name && i < ARRAY_SIZE(distros); i++)
		if (!strcmp(distros[i].name, name))
			return &distros[i];
	return NULL;
}

void lab_distro_debs_dir(const char *cache, const struct lab_distro *d, const char *arch, char *out, size_t len)
{
	const struct lab_arch *a = lab_arch_find(arch);

	snprintf(out, len, "%s/debootstrap-%s-%s", cache, d->suite, a ? a->deb : arch);
}

/* Debian Policy 5.6.1: lowercase letters, digits, + - ., at least two, an
 * alphanumeric first. Anything else never reaches debootstrap's command. */
static bool deb_name_ok(const char *s, size_t n)
{
	if (n < 2 || n > 100 || !strchr("abcdefghijklmnopqrstuvwxyz0123456789", s[0]))
		return false;
	for (size_t i = 0; i < n; i++)
		if (!strchr("abcdefghijklmnopqrstuvwxyz0123456789+-.", s[i]))
			return false;
	return true;
}

/* Push the names of a list separated by any of seps, checked, each once. */
static int push_names(const char *list, const char *seps, const char *what, bool dup_is_error, struct strv *out,
		      char *err, size_t errlen)
{
	for (const char *p = list; p && *p; p += strcspn(p, seps), p += *p != '\0') {
		size_t n = strcspn(p, seps);
		char name[128];
		bool seen = false;
		int r;

		if (n == 0)
			return errf(err, errlen, -EINVAL, "%s: an empty package name in '%s' (give NAME,NAME,...)", what,
				    list);
		if (!deb_name_ok(p, n))
			return errf(err, errlen, -EINVAL, "%s: '%.*s' is no Debian package name (lowercase letters, "
				    "digits, + - ., two or more, a letter or digit first)", what, (int)(n > 100 ? 100 : n), p);
		snprintf(name, sizeof(name), "%.*s", (int)n, p);
		for (size_t i = 0; i < out->n; i++)
			seen |= !strcmp(out->v[i], name);
		if (seen && dup_is_error)
			return errf(err, errlen, -EINVAL, "%s: %s is in the image already (given twice, or one of the "
				    "image's own packages)", what, name);
		if (!seen && (r = strv_push(out, name)) < 0)
			return errf(err, errlen, r, "out of memory");
	}
	if (list && *list && strchr(seps, list[strlen(list) - 1]))
		return errf(err, errlen, -EINVAL, "%s: an empty package name at the end of '%s' (give NAME,NAME,...)",
			    what, list);
	return 0;
}

int lab_distro_packages(const struct lab_distro *d, const char *deb, const char *extra, struct strv *out, char *err,
			size_t errlen)
{
	struct strv v = { 0 };
	char kernel[64];
	int r;

	snprintf(kernel, sizeof(kernel), "linux-image-%s", deb);
	r = push_names(d->packages, " ", d->name, false, &v, err, errlen);
	/* the mkfs tools of the filesystem table (the fs key), as the busybox image carries them */
	for (size_t i = 0; r == 0 && i < lab_nfilesystems; i++)
		r = push_names(lab_filesystems[i].package, " ", d->name, false, &v, err, errlen);
	if (r == 0)
		r = push_names(kernel, " ", d->name, false, &v, err, errlen);
	if (r == 0)
		r = push_names(extra, ",", "--distro-packages", true, &v, err, errlen);
	if (r < 0) {
		strv_clear(&v);
		return r;
	}
	*out = v;
	return 0;
}

/* The units enabled in the tree (systemctl enable, offline). */
static const char *const enabled_units[] = { "systemd-networkd.service", "vmbench-agent.service", "ssh.service",
					     "vmbench-db.service" };

int lab_distro_inputs(const struct lab_distro_opts *o, const char *vmbench_id, const char *debootstrap,
		      struct strv *out)
{
	const struct lab_arch *a = lab_arch_find(o->arch);
	struct strv v = { 0 };
	char *s;
	int r;

	s = xasprintf("distro:%s %s %s", o->d->name, o->d->suite, o->d->mirror);
	r = s ? strv_push(&v, s) : -ENOMEM;
	free(s);
	s = xasprintf("arch:%s", a ? a->deb : o->arch);
	r = r ? r : s ? strv_push(&v, s) : -ENOMEM;
	free(s);
	{
		/* the packages as debootstrap is given them (the fs table's included) */
		struct strv pkgs = { 0 };
		char why[256];
		size_t off = 0, len = 16;

		if (r == 0 && lab_distro_packages(o->d, a ? a->deb : o->arch, o->packages, &pkgs, why, sizeof(why)) < 0)
			r = -EINVAL;
		for (size_t i = 0; i < pkgs.n; i++)
			len += strlen(pkgs.v[i]) + 1;
		s = r == 0 ? malloc(len) : NULL;
		if (s) {
			str_appendf(s, len, &off, "packages:");
			for (size_t i = 0; i < pkgs.n; i++)
				str_appendf(s, len, &off, "%s%s", i ? "," : "", pkgs.v[i]);
		}
		r = r ? r : s ? strv_push(&v, s) : -ENOMEM;
		free(s);
		strv_clear(&pkgs);
	}
	s = xasprintf("vmbench:%s", vmbench_id);
	r = r ? r : s ? strv_push(&v, s) : -ENOMEM;
	free(s);
	s = xasprintf("debootstrap:%s", debootstrap);
	r = r ? r : s ? strv_push(&v, s) : -ENOMEM;
	free(s);
	/* every file the image writes, whole: a changed unit or key rebuilds */
	for (size_t i = 0; r == 0 && i < lab_distro_nfiles; i++) {
		char *text = lab_distro_files[i].text(o);

		s = text ? xasprintf("file:%s:%o:%s", lab_distro_files[i].path, lab_distro_files[i].mode, text) : NULL;
		r = s ? strv_push(&v, s) : -ENOMEM;
		free(s);
		free(text);
	}
	if (r < 0) {
		strv_clear(&v);
		return r;
	}
	*out = v;
	return 0;
}

/* Files ------------------------------------------------------------------- */

/* A new file at path with mode, holding len bytes of data, never through
 * a symbolic link (the tree is the guest's: its links are not the host's). */
static int write_new_file(const char *path, const char *data, size_t len, unsigned mode)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
	int r = 0;

	if (fd < 0)
		return -errno;
	while (len && r == 0) {
		ssize_t w = write(fd, data, len);

		if (w < 0 && errno != EINTR)
			r = -errno;
		else if (w > 0) {
			data += w;
			len -= (size_t)w;
		}
	}
	if (r == 0 && fchmod(fd, mode) < 0)
		r = -errno;
	if (close(fd) < 0 && r == 0)
		r = -errno;
	if (r < 0)
		(void)unlink(path);
	return r;
}

/* from to a new file to, with mode */
static int copy_file(const char *from, const char *to, unsigned mode)
{
	int in = open(from, O_RDONLY | O_CLOEXEC), out, r = 0;
	char buf[1 << 16];

	if (in < 0)
		return -errno;
	out = open(to, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
	if (out < 0) {
		r = -errno;
		close(in);
		return r;
	}
	for (;;) {
		ssize_t n = read(in, buf, sizeof(buf)), off = 0;

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			r = n < 0 ? -errno : 0;
			break;
		}
		while (off < n && r == 0) {
			ssize_t w = write(out, buf + off, (size_t)(n - off));

			if (w < 0 && errno != EINTR)
				r = -errno;
			else if (w > 0)
				off += w;
		}
		if (r < 0)
			break;
	}
	if (r == 0 && fchmod(out, mode) < 0)
		r = -errno;
	close(in);
	if (close(out) < 0 && r == 0)
		r = -errno;
	if (r < 0)
		(void)unlink(to);
	return r;
}

/* tree + path's directories, each a real directory of the tree (made when
 * absent; a symbolic link on the way is refused: it could lead out of it) */
static int tree_dirs(const char *tree, const char *path, char *err, size_t errlen)
{
	char d[PATH_MAX];
	size_t base = strlen(tree);

	snprintf(d, sizeof(d), "%s%s", tree, path);
	for (char *p = strchr(d + base + 1, '/'); p; p = strchr(p + 1, '/')) {
		struct stat st;

		*p = '\0';
		if (lstat(d, &st) < 0) {
			if (errno != ENOENT || mkdir(d, 0755) < 0)
				return errf(err, errlen, -errno, "creating %s: %s", d, strerror(errno));
		} else if (!S_ISDIR(st.st_mode)) {
			return errf(err, errlen, -ENOTDIR, "%s in the tree is not a directory (a link?)", d);
		}
		*p = '/';
	}
	return 0;
}

/* The lab's files of one phase (seed: before debootstrap) into the tree. */
static int files_write(const struct lab_distro_opts *o, const char *tree, bool seed, char *err, size_t errlen)
{
	char path[PATH_MAX];
	int r = 0;

	for (size_t i = 0; r == 0 && i < lab_distro_nfiles; i++) {
		const struct lab_distro_file *f = &lab_distro_files[i];
		char *text = f->seed == seed ? f->text(o) : NULL;

		if (f->seed != seed)
			continue;

		r = text ? tree_dirs(tree, f->path, err, errlen) : errf(err, errlen, -ENOMEM, "out of memory");
		snprintf(path, sizeof(path), "%s%s", tree, f->path);
		if (r == 0) {
			(void)unlink(path); /* the distribution's own /etc/hostname, fstab */
			r = write_new_file(path, text, strlen(text), f->mode);
			if (r < 0)
				errf(err, errlen, r, "writing %s: %s", path, strerror(-r));
		}
		free(text);
	}
	return r;
}

/* The lab's files, the guest's vmbench and the libraries it needs that
 * the distribution's C library does not bring. */
static int tree_write(const struct lab_distro_opts *o, const char *tree, char *err, size_t errlen)
{
	const struct lab_arch *a = lab_arch_find(o->arch);
	struct strv libs = { 0 };
	char path[PATH_MAX];
	int r = files_write(o, tree, false, err, errlen);

	if (r == 0) {
		snprintf(path, sizeof(path), "%s/root/.ssh", tree);
		if (chmod(path, 0700) < 0)
			r = errf(err, errlen, -errno, "chmod %s: %s", path, strerror(errno));
	}
	if (r == 0)
		r = tree_dirs(tree, LAB_DISTRO_VMBENCH, err, errlen);
	snprintf(path, sizeof(path), "%s%s", tree, LAB_DISTRO_VMBENCH);
	(void)unlink(path);
	if (r == 0 && (r = copy_file(o->vmbench, path, 0755)) < 0)
		errf(err, errlen, r, "copying %s to %s: %s", o->vmbench, path, strerror(-r));
	if (r == 0)
		r = elf_runtime_files(o->vmbench, a->triplet, &libs, err, errlen);
	for (size_t i = 0; r == 0 && i < libs.n; i++) {
		const char *base = strrchr(libs.v[i], '/') ? strrchr(libs.v[i], '/') + 1 : libs.v[i];

		/* the loader, libc and libm are the distribution's own (libc6) */
		if (str_has_prefix(base, "ld-linux") || str_has_prefix(base, "libc.so") || str_has_prefix(base, "libm.so"))
			continue;
		snprintf(path, sizeof(path), "%s%s/%s", tree, LAB_DISTRO_LIBDIR, base);
		(void)unlink(path);
		r = copy_file(libs.v[i], path, 0644);
		if (r < 0)
			errf(err, errlen, r, "copying %s to %s: %s", libs.v[i], path, strerror(-r));
	}
	strv_clear(&libs);
	for (size_t i = 0; r == 0 && i < ARRAY_SIZE(enabled_units); i++) {
		char *const argv[] = { "chroot", (char *)tree, "systemctl", "enable", (char *)enabled_units[i], NULL };
		char *out = NULL;

		if (run_capture_all(argv[0], argv, &out) < 0)
			r = errf(err, errlen, -EIO, "chroot %s systemctl enable %s failed: %.300s", tree, enabled_units[i],
				 out ? out : "");
		free(out);
	}
	return r;
}

/* The last words of a tool's output, for a message */
static const char *tail_of(const char *out, size_t n)
{
	size_t len = out ? strlen(out) : 0;

	if (!out)
		return "";
	return len > n ? out + len - n : out;
}

int lab_distro_assemble(const char *tree, const char *size, const char *qcow2, char *err, size_t errlen)
{
	char raw[PATH_MAX + 8], tmp[PATH_MAX + 8], *out = NULL;
	char *const mke2fs[] = { "mke2fs", "-q", "-F", "-t", "ext4", "-L", LAB_DISTRO_ROOT_LABEL, "-d", (char *)tree,
				 raw, (char *)size, NULL };
	char *const convert[] = { "qemu-img", "convert", "-O", "qcow2", "-f", "raw", raw, tmp, NULL };
	int r;

	snprintf(raw, sizeof(raw), "%s.raw", qcow2);
	snprintf(tmp, sizeof(tmp), "%s.tmp", qcow2);
	(void)unlink(raw);
	(void)unlink(tmp);
	if (access(qcow2, F_OK) == 0)
		return errf(err, errlen, -EEXIST, "%s exists already", qcow2);
	r = run_capture_all(mke2fs[0], mke2fs, &out);
	if (r < 0) {
		errf(err, errlen, r == -ENOENT ? r : -EIO, "mke2fs -d %s failed%s%s (e2fsprogs 1.43 or later)", tree,
		     out && *out ? ": " : "", tail_of(out, 300));
		goto out;
	}
	free(out);
	out = NULL;
	r = run_capture_all(convert[0], convert, &out);
	if (r < 0) {
		errf(err, errlen, -EIO, "qemu-img convert -O qcow2 %s failed%s%s (is qemu-utils installed?)", raw,
		     out && *out ? ": " : "", tail_of(out, 300));
		goto out;
	}
	if (rename(tmp, qcow2) < 0)
		r = errf(err, errlen, -errno, "renaming %s: %s", tmp, strerror(errno));
out:
	free(out);
	(void)unlink(raw);
	(void)unlink(tmp);
	return r;
}

int lab_distro_ssh_key(const char *cache, char **pub, char *err, size_t errlen)
{
	char dir[PATH_MAX], key[PATH_MAX + 16], keypub[PATH_MAX + 24], comment[64], *out = NULL;
	char *const keygen[] = { "ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", comment, "-f", key, NULL };
	int r;

	snprintf(dir, sizeof(dir), "%s/ssh", cache);
	snprintf(key, sizeof(key), "%s/id_ed25519", dir);
	snprintf(keypub, sizeof(keypub), "%s.pub", key);
	snprintf(comment, sizeof(comment), "vmbench-lab");
	if (access(keypub, R_OK) < 0) {
		r = file_mkdirs(dir);
		if (r == 0 && chmod(dir, 0700) < 0)
			r = -errno;
		if (r < 0)
			return errf(err, errlen, r, "creating %s: %s", dir, strerror(-r));
		(void)unlink(key);
		r = run_capture_all(keygen[0], keygen, &out);
		if (r < 0) {
			errf(err, errlen, -EIO, "ssh-keygen -f %s failed%s%s (is openssh-client installed?)", key,
			     out && *out ? ": " : "", tail_of(out, 200));
			free(out);
			return r;
		}
		free(out);
	}
	r = read_file(keypub, &out);
	if (r < 0 || !str_has_prefix(out, "ssh-")) {
		free(out);
		return errf(err, errlen, r < 0 ? r : -EINVAL, "%s: not an SSH public key (remove it to make another)",
			    keypub);
	}
	*pub = out;
	return 0;
}

int lab_ssh_banner(const char *buf, size_t len, char *version, size_t vlen)
{
	size_t off = 0;

	while (off < len) {
		const char *line = buf + off, *nl = memchr(line, '\n', len - off);
		size_t n = nl ? (size_t)(nl - line) + 1 : len - off; /* with its LF */
		size_t text = nl ? n - 1 - (n >= 2 && line[n - 2] == '\r') : n;

		if (n > 255)
			return -EPROTO;
		if (!nl)
			return off + n > 8192 ? -EPROTO : 0; /* the line goes on */
		if (n >= 4 && !memcmp(line, "SSH-", 4)) {
			if (!(text > 8 && !memcmp(line, "SSH-2.0-", 8)) && !(text > 9 && !memcmp(line, "SSH-1.99-", 9)))
				return -EPROTO;
			for (size_t i = 0; i < text; i++)
				if (line[i] < 0x20 || line[i] > 0x7e)
					return -EPROTO;
			if (vlen)
				snprintf(version, vlen, "%.*s", (int)text, line);
			return 1;
		}
		/* a line before the identification; no NUL in one */
		if (memchr(line, '\0', n))
			return -EPROTO;
		off += n;
		if (off > 8192)
			return -EPROTO;
	}
	return 0;
}

/* The build --------------------------------------------------------------- */

/* Remove a tree made here (rm does not follow its links) */
static void remove_tree(const char *tree)
{
	char *const rm[] = { "rm", "-rf", "--one-file-system", (char *)tree, NULL };

	if (access(tree, F_OK) == 0)
		(void)run_capture(rm[0], rm, NULL, NULL);
}

/* the newest file of dir whose name starts with prefix, into path */
static int newest(const char *dir, const char *prefix, char *path, size_t len)
{
	char best[NAME_MAX + 1] = "";
	struct dirent *e;
	DIR *d = opendir(dir);

	if (!d)
		return -errno;
	while ((e = readdir(d)))
		if (str_has_prefix(e->d_name, prefix) && strcmp(e->d_name, best) > 0)
			snprintf(best, sizeof(best), "%s", e->d_name);
	closedir(d);
	if (!*best)
		return -ENOENT;
	snprintf(path, len, "%s/%s", dir, best);
	return 0;
}

static bool up_to_date(const char *out, const struct strv *inputs)
{
	char path[PATH_MAX + 32], *text = NULL;
	const json_t *ids;
	json_t *m;
	bool same;

	snprintf(path, sizeof(path), "%s/root.qcow2", out);
	if (access(path, R_OK) < 0)
		return false;
	snprintf(path, sizeof(path), "%s/manifest.json", out);
	if (read_file(path, &text) < 0)
		return false;
	m = json_loads(text, 0, NULL);
	free(text);
	ids = json_object_get(m, "inputs");
	same = ids && json_array_size(ids) == inputs->n;
	for (size_t i = 0; same && i < inputs->n; i++)
		same = !strcmp(json_string_value(json_array_get(ids, i)) ?: "", inputs->v[i]);
	json_decref(m);
	return same;
}

/* debootstrap into tree, its log into log (a new file) */
static int bootstrap(const struct lab_distro_opts *o, const struct lab_arch *a, const struct strv *pkgs,
		     const char *tree, const char *debs, const char *log, char *err, size_t errlen)
{
	char include[4096], archarg[32], cachearg[PATH_MAX + 16], limit[16];
	/* bounded: a registry that stops answering fails the build, not hangs it */
	char *const argv[] = { "timeout", limit, "debootstrap", "--variant=minbase", archarg, cachearg, include,
			       "--components=main", (char *)o->d->suite, (char *)tree, (char *)o->d->mirror, NULL };
	char *out = NULL;
	size_t off = 0;
	int r;

	str_appendf(include, sizeof(include), &off, "--include=");
	for (size_t i = 0; i < pkgs->n; i++)
		str_appendf(include, sizeof(include), &off, "%s%s", i ? "," : "", pkgs->v[i]);
	if (off >= sizeof(include) - 1)
		return errf(err, errlen, -E2BIG, "--distro-packages: too many packages (%zu)", pkgs->n);
	snprintf(limit, sizeof(limit), "%d", LAB_DISTRO_BOOTSTRAP_S);
	snprintf(archarg, sizeof(archarg), "--arch=%s", a->deb);
	snprintf(cachearg, sizeof(cachearg), "--cache-dir=%s", debs);
	(void)unlink(log);
	r = run_capture_all(argv[0], argv, &out);
	if (out)
		(void)write_new_file(log, out, strlen(out), 0644);
	if (r < 0) {
		const char *t = tail_of(out, 400);

		errf(err, errlen, r == -ECHILD ? -EIO : r, "debootstrap %s %s failed or took over %d s (log %s)%s%s",
		     o->d->suite, a->deb, LAB_DISTRO_BOOTSTRAP_S, log, *t ? ": " : "", t);
	}
	free(out);
	return r < 0 ? (r == -ECHILD ? -EIO : r) : 0;
}

/* The kernel and initrd out of the tree's /boot, and x86_64's vmlinux */
static int take_kernel(const struct lab_distro_opts *o, const struct lab_arch *a, const char *tree, char *kv,
		       size_t kvlen, char *entry, size_t entrylen, char *err, size_t errlen)
{
	char boot[PATH_MAX], k[PATH_MAX + 300], i[PATH_MAX + 300], dst[PATH_MAX + 32];
	int r;

	snprintf(boot, sizeof(boot), "%s/boot", tree);
	r = newest(boot, "vmlinuz-", k, sizeof(k));
	if (r < 0)
		return errf(err, errlen, -ENOENT, "no kernel in %s (did linux-image-%s install?)", boot, a->deb);
	snprintf(kv, kvlen, "%s", strrchr(k, '/') + 1 + strlen("vmlinuz-"));
	snprintf(i, sizeof(i), "%s/initrd.img-%s", boot, kv);
	snprintf(dst, sizeof(dst), "%s/vmlinuz", o->out);
	(void)unlink(dst);
	r = copy_file(k, dst, 0644);
	if (r == 0) {
		snprintf(dst, sizeof(dst), "%s/initrd.img", o->out);
		(void)unlink(dst);
		r = copy_file(i, dst, 0644);
	}
	if (r < 0)
		return errf(err, errlen, r, "copying %s's kernel and initrd (%s) to %s: %s", tree, i, o->out, strerror(-r));
	snprintf(dst, sizeof(dst), "%s/vmlinux", o->out);
	(void)unlink(dst);
	snprintf(entry, entrylen, "vmlinuz: QEMU's own loader");
	if (a->kernel_unpack) {
		char why[512];

		if (a->kernel_unpack(k, dst, why, sizeof(why)) == 0)
			snprintf(entry, entrylen, "vmlinux: %s", why);
		else
			snprintf(entry, entrylen, "vmlinuz, the guest decompressing it: %s", why);
	}
	return 0;
}

/* The filesystems whose mkfs the tree has (the fs key's rows), and why
 * not the others, as the busybox image's manifest says them */
static int tree_filesystems(const char *tree, json_t *have, json_t *missing)
{
	int r = 0;

	for (size_t i = 0; r == 0 && i < lab_nfilesystems; i++) {
		const struct lab_fs *fs = &lab_filesystems[i];
		char prog[PATH_MAX], usr[PATH_MAX];
		size_t n = strcspn(fs->files + 1, " ");

		snprintf(prog, sizeof(prog), "%s/%.*s", tree, (int)n, fs->files + 1);
		snprintf(usr, sizeof(usr), "%s/usr/%.*s", tree, (int)n, fs->files + 1);
		if (access(prog, X_OK) == 0 || access(usr, X_OK) == 0) {
			r = json_array_append_new(have, json_string(fs->name));
		} else {
			char *why = xasprintf("%s: the image has no /%.*s (package %s)", fs->name, (int)n, fs->files + 1,
					      fs->package);

			r = why ? json_array_append_new(missing, json_string(why)) : -ENOMEM;
			free(why);
		}
	}
	return r;
}

static int write_manifest(const struct lab_distro_opts *o, const char *tree, const struct strv *pkgs,
			  const struct strv *inputs, const char *kv, const char *entry, double seconds, char *err,
			  size_t errlen)
{
	char path[PATH_MAX + 32], *text;
	json_t *m = json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:f}", "distro", o->d->name, "suite",
			      o->d->suite, "mirror", o->d->mirror, "arch", o->arch, "kernel_version", kv,
			      "kernel_entry", entry, "root", "root.qcow2", "root_label", LAB_DISTRO_ROOT_LABEL,
			      "build_seconds", seconds);
	json_t *p = json_array(), *in = json_array(), *fs = json_array(), *fsm = json_array();
	int r = m && p && in && fs && fsm ? 0 : -ENOMEM;

	if (r == 0)
		r = tree_filesystems(tree, fs, fsm);
	if (r == 0 && (json_object_set(m, "filesystems", fs) < 0 || json_object_set(m, "filesystems_missing", fsm) < 0))
		r = -ENOMEM;
	json_decref(fs);
	json_decref(fsm);

	for (size_t i = 0; r == 0 && i < pkgs->n; i++)
		r = json_array_append_new(p, json_string(pkgs->v[i]));
	for (size_t i = 0; r == 0 && i < inputs->n; i++)
		r = json_array_append_new(in, json_string(inputs->v[i]));
	if (r == 0 && (json_object_set(m, "packages", p) < 0 || json_object_set(m, "inputs", in) < 0))
		r = -ENOMEM;
	json_decref(p);
	json_decref(in);
	text = r == 0 ? json_dumps(m, JSON_INDENT(2)) : NULL;
	json_decref(m);
	if (!text)
		return errf(err, errlen, -EINVAL, "writing the image's manifest: out of memory, or a name not UTF-8");
	snprintf(path, sizeof(path), "%s/manifest.json", o->out);
	(void)unlink(path);
	r = file_write_new(path, text, strlen(text));
	free(text);
	if (r < 0)
		return errf(err, errlen, r, "writing %s: %s", path, strerror(-r));
	return 0;
}

static int build_locked(const struct lab_distro_opts *o, const struct lab_arch *a, int *rebuilt, char *err,
			size_t errlen)
{
	char vid[PATH_MAX + 64], ver[64] = "", *vout = NULL, tree[PATH_MAX + 16], debs[PATH_MAX + 32];
	char log[PATH_MAX + 32], qcow2[PATH_MAX + 32], kv[256] = "", entry[1024] = "", *abscache = NULL;
	char keyfile[PATH_MAX + 32], *basekey = NULL, *oldkey = NULL;
	char *const dpkgq[] = { "dpkg-query", "-W", "-f=${Version}", "debootstrap", NULL };
	struct strv pkgs = { 0 }, inputs = { 0 };
	uint64_t t0 = clock_ns();
	int r;

	r = lab_distro_packages(o->d, a->deb, o->packages, &pkgs, err, errlen);
	if (r < 0)
		goto out;
	if (lab_file_id(o->vmbench, vid, sizeof(vid)) < 0) {
		r = errf(err, errlen, -ENOENT, "cannot read the guest's vmbench %s", o->vmbench);
		goto out;
	}
	/* debootstrap's version is an input: another one makes another tree */
	if (run_capture(dpkgq[0], dpkgq, NULL, &vout) == 0 && vout)
		snprintf(ver, sizeof(ver), "%s", vout);
	free(vout);
	if (!*ver) {
		r = errf(err, errlen, -ENOENT, "debootstrap is not installed: apt-get install debootstrap");
		goto out;
	}
	r = lab_distro_inputs(o, vid, ver, &inputs);
	if (r < 0) {
		errf(err, errlen, r, "out of memory");
		goto out;
	}
	if (up_to_date(o->out, &inputs))
		goto out;
	/* debootstrap chroots into the tree and installs as root: no way around it */
	if (geteuid() != 0) {
		r = errf(err, errlen, -EPERM, "building a %s image needs root (debootstrap installs the packages in a "
			 "chroot): run 'vmbench lab image --distro %s' as root once; later runs use the cached image",
			 o->d->name, o->d->name);
		goto out;
	}
	/* another architecture's programs run in the chroot through binfmt_misc */
	if (strcmp(a->name, lab_host_arch())) {
		char bf[128];

		snprintf(bf, sizeof(bf), "/proc/sys/fs/binfmt_misc/qemu-%s", a->name);
		if (access(bf, F_OK) < 0) {
			r = errf(err, errlen, -EOPNOTSUPP, "a %s %s image on this %s machine needs %s's programs run in "
				 "debootstrap's chroot: binfmt_misc with qemu-user-static's %s handler (%s absent); "
				 "install qemu-user-static and binfmt-support with binfmt_misc mounted", o->d->name,
				 a->name, lab_host_arch(), a->name, a->name, bf);
			goto out;
		}
	}
	abscache = realpath(o->cache, NULL);
	if (!abscache) {
		r = errf(err, errlen, -errno, "resolving %s: %s", o->cache, strerror(errno));
		goto out;
	}
	/* debootstrap's .debs are kept between builds: a rebuild downloads nothing */
	lab_distro_debs_dir(abscache, o->d, o->arch, debs, sizeof(debs));
	snprintf(tree, sizeof(tree), "%s/tree", o->out);
	snprintf(log, sizeof(log), "%s/debootstrap.log", o->out);
	snprintf(qcow2, sizeof(qcow2), "%s/root.qcow2", o->out);
	snprintf(keyfile, sizeof(keyfile), "%s/tree.inputs", o->out);
	r = file_mkdirs(debs);
	if (r < 0) {
		errf(err, errlen, r, "creating %s: %s", debs, strerror(-r));
		goto out;
	}
	(void)unlink(qcow2);
	/* the bootstrapped tree is kept with the inputs it was made of: a new
	 * vmbench or unit file is written into it again, without debootstrap */
	basekey = xasprintf("%s\n%s\n%s\n%s", inputs.v[0], inputs.v[1], inputs.v[2], inputs.v[4]);
	/* and the files debootstrap's packages read as they install (the
	 * inputs hold the table's files after the five strings above) */
	for (size_t i = 0; basekey && i < lab_distro_nfiles && 5 + i < inputs.n; i++) {
		char *k = lab_distro_files[i].seed ? xasprintf("%s\n%s", basekey, inputs.v[5 + i]) : NULL;

		if (lab_distro_files[i].seed) {
			free(basekey);
			basekey = k;
		}
	}
	if (!basekey) {
		r = errf(err, errlen, -ENOMEM, "out of memory");
		goto out;
	}
	/* read_file gives a file without its trailing newlines: the key is
	 * kept without them, or a key that ends in one (a file's text) never
	 * matches and every rebuild runs debootstrap again */
	for (size_t n = strlen(basekey); n && basekey[n - 1] == '\n';)
		basekey[--n] = '\0';
	if (read_file(keyfile, &oldkey) < 0 || strcmp(oldkey, basekey) || access(tree, F_OK) < 0) {
		(void)unlink(keyfile);
		remove_tree(tree);
		r = file_mkdirs(tree);
		if (r < 0)
			errf(err, errlen, r, "creating %s: %s", tree, strerror(-r));
		else
			r = files_write(o, tree, true, err, errlen);
		if (r == 0)
			r = bootstrap(o, a, &pkgs, tree, debs, log, err, errlen);
		if (r == 0 && (r = file_write_new(keyfile, basekey, strlen(basekey))) < 0)
			errf(err, errlen, r, "writing %s: %s", keyfile, strerror(-r));
	}
	if (r == 0)
		r = tree_write(o, tree, err, errlen);
	if (r == 0)
		r = take_kernel(o, a, tree, kv, sizeof(kv), entry, sizeof(entry), err, errlen);
	if (r == 0)
		r = lab_distro_assemble(tree, LAB_DISTRO_DISK_SIZE, qcow2, err, errlen);
	if (r == 0)
		r = write_manifest(o, tree, &pkgs, &inputs, kv, entry, (double)(clock_ns() - t0) / 1e9, err, errlen);
	if (r < 0) {
		/* a tree a failure left half-written is made again next time */
		(void)unlink(keyfile);
		remove_tree(tree);
	}
	if (r == 0)
		*rebuilt = 1;
out:
	free(basekey);
	free(oldkey);
	free(abscache);
	strv_clear(&pkgs);
	strv_clear(&inputs);
	return r;
}

int lab_distro_build(const struct lab_distro_opts *o, int *rebuilt, char *err, size_t errlen)
{
	const struct lab_arch *a = lab_arch_find(o->arch);
	char lock[PATH_MAX + 16];
	const char *what;
	int r, fd;

	*rebuilt = 0;
	if (!a)
		return errf(err, errlen, -EINVAL, "arch %s: images are built for x86_64 and aarch64", o->arch);
	r = file_mkdirs(o->out);
	if (r < 0)
		return errf(err, errlen, r, "creating %s: %s", o->out, strerror(-r));
	/* one build of an image at a time: two would share its tree */
	snprintf(lock, sizeof(lock), "%s/.lock", o->out);
	fd = file_lock(lock, &what);
	if (fd < 0)
		return errf(err, errlen, fd, "%s %s: %s", what, lock, strerror(-fd));
	r = build_locked(o, a, rebuilt, err, errlen);
	close(fd);
	return r;
}
