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
#include "kernel.h"
#include "modules.h"
#include "proto_host.h"
#include "../core/file.h"
#include "../core/macro.h"
#include "../core/util.h"
#include "../core/banned.h"

#ifndef VMB_VERSION
#define VMB_VERSION "0"
#endif

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
	"port= net= bond= disks= mods=/etc/vmbench-modules\n"
	"for w in $(/bin/busybox cat /proc/cmdline); do case $w in vmbench.agent=*) port=${w#vmbench.agent=};;\n"
	"  vmbench.net=*) net=${w#vmbench.net=};; vmbench.disks=*) disks=${w#vmbench.disks=};;\n"
	"  vmbench.bond=*) bond=${w#vmbench.bond=};;\n"
	"  vmbench.modules=*) echo \"${w#vmbench.modules=}\" | /bin/busybox tr , '\\n' > /tmp/vmbench-modules\n"
	"    mods=/tmp/vmbench-modules;; esac; done\n"
	"# vmbench.modules=a.ko,b.ko: the drivers of this configuration, in load order; else every one\n"
	"while read m; do /bin/busybox insmod \"/lib/modules/$m\" 2>/dev/null; done < $mods\n"
	"# vmbench.disks=N: the disks the host attached. A USB disk appears after its controller's\n"
	"# driver has enumerated the bus and usb-storage has scanned it, well after insmod returned:\n"
	"# wait (up to 30 s) for N block devices before HELLO, whose fingerprint must show them\n"
	"if [ -n \"$disks\" ]; then i=0; while :; do n=0\n"
	"    for b in /sys/block/*; do case ${b##*/} in loop*|ram*|zram*|sr*|fd*|\\*) ;; *) n=$((n+1));; esac; done\n"
	"    [ $n -ge \"$disks\" ] || [ $i -ge 300 ] && break; /bin/busybox sleep 0.1; i=$((i+1)); done\n"
	"  echo \"vmbench-init: $n of $disks disks at $(/bin/busybox cut -d' ' -f1 /proc/uptime) s\"\n"
	"fi\n"
	"# vmbench.net=ADDR/PREFIX: the guest's end of the lab's link, on its one NIC, up before HELLO\n"
	"# (the host checks the fingerprint: the NIC up, with this address; a driver that reports\n"
	"# no carrier, as pcnet32, says unknown, which is up too)\n"
	"# vmbench.bond=MODE,N: several NICs, which the agent bonds and gives the address (src/guest/bond.c)\n"
	"if [ -n \"$net\" ] && [ -z \"$bond\" ]; then\n"
	"  i=0; nic=; while [ -z \"$nic\" ] && [ $i -lt 50 ]; do\n"
	"    for d in /sys/class/net/*; do [ \"${d##*/}\" = lo ] || [ ! -e \"$d\" ] || nic=${d##*/}; done\n"
	"    [ -n \"$nic\" ] || /bin/busybox sleep 0.1; i=$((i+1)); done\n"
	"  if [ -n \"$nic\" ]; then /bin/busybox ip addr add \"$net\" dev \"$nic\"; /bin/busybox ip link set \"$nic\" up\n"
	"    i=0; while [ \"$(/bin/busybox cat /sys/class/net/$nic/operstate)\" = down ] && [ $i -lt 100 ]; do\n"
	"      /bin/busybox sleep 0.05; i=$((i+1)); done\n"
	"    echo \"vmbench-init: $nic $net $(/bin/busybox cat /sys/class/net/$nic/operstate)\"\n"
	"  else echo \"vmbench-init: no NIC for $net\"; fi\n"
	"fi\n"
	"# no vmbench.agent= (the ISO's boot, lab image --format iso): the virtio console when it appears\n"
	"# (QEMU, libvirt), else the second serial port, which VirtualBox and VMware connect to a pipe\n"
	"if [ -z \"$port\" ]; then port=/dev/hvc0\n"
	"  i=0; while [ ! -e $port ] && [ $i -lt 100 ]; do /bin/busybox sleep 0.1; i=$((i+1)); done\n"
	"  [ -e $port ] || port=/dev/ttyS1; fi\n"
	"i=0; while [ ! -e \"$port\" ] && [ $i -lt 100 ]; do /bin/busybox sleep 0.1; i=$((i+1)); done\n"
	"echo \"vmbench-init: agent on $port at $(/bin/busybox cut -d' ' -f1 /proc/uptime) s\"\n"
	"cd /tmp && /bin/vmbench agent --port \"$port\"; rc=$?\n"
	"# the host's REBOOT (the boot suite's in-guest reboot): this init runs again\n"
	"if [ $rc -eq " STRINGIFY(PROTO_EXIT_REBOOT) " ]; then echo \"vmbench-init: agent left ($rc), rebooting\"; /bin/busybox reboot -f; fi\n"
	"echo \"vmbench-init: agent left ($rc), powering off\"\n"
	"/bin/busybox poweroff -f\n";

static const struct lab_arch arches[] = {
	{ "x86_64", "amd64", "x86_64-linux-gnu", lab_kernel_unpack },
	/* QEMU unpacks the arm64 Image.gz on the host itself */
	{ "aarch64", "arm64", "aarch64-linux-gnu", NULL },
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
	int r = file_mkdirs(dir);

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
static int fetch_deb_locked(const char *dir, const char *pkg, bool meta, const struct lab_arch *a, char *root,
			    size_t rootlen, char *err, size_t errlen);

static int fetch_deb(const char *cache, const char *name, const char *pkg, bool meta, const struct lab_arch *a,
		     char *root, size_t rootlen, char *err, size_t errlen)
{
	char dir[PATH_MAX], lock[PATH_MAX + 8];
	const char *what;
	int r, fd;

	snprintf(dir, sizeof(dir), "%s/%s", cache, name);
	snprintf(root, rootlen, "%s/root", dir);
	if (access(root, F_OK) == 0)
		return 0; /* the cache: no registry needed */
	r = file_mkdirs(dir);
	if (r < 0)
		return errf(err, errlen, r, "creating %s: %s", dir, strerror(-r));
	/* one fetch of a package at a time: two lab runs sharing a cache
	 * downloaded into one directory and unpacked into one temporary root,
	 * and the loser's image lacked what the winner had just made */
	snprintf(lock, sizeof(lock), "%s/.lock", dir);
	fd = file_lock(lock, &what);
	if (fd < 0)
		return errf(err, errlen, fd, "%s %s: %s", what, lock, strerror(-fd));
	/* what another run fetched while this one waited */
	r = access(root, F_OK) == 0 ? 0 : fetch_deb_locked(dir, pkg, meta, a, root, rootlen, err, errlen);
	close(fd);
	return r;
}

static int fetch_deb_locked(const char *dir, const char *pkg, bool meta, const struct lab_arch *a, char *root,
			    size_t rootlen, char *err, size_t errlen)
{
	char want[160], real[160] = "", deb[PATH_MAX] = "", *out = NULL;
	struct dirent *e;
	DIR *d;
	int r;

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

int lab_file_id(const char *path, char *buf, size_t len)
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

/* The mkfs tools of the filesystem table (LAB_FILESYSTEMS), for one
 * architecture: each row's package and its library packages, fetched and
 * unpacked in the cache as the kernel is. A row whose tools cannot be had
 * is left out, with why: its fs value is then skipped for this image. */
struct fs_tools {
	struct strv host, guest; /* the tools' files and libraries: host path, guest path */
	struct strv carried;     /* the rows in the image */
	struct strv missing;     /* "xfs: why" for the others */
};

/* What an image is made of, found and checked before anything is written. */
struct image_inputs {
	const struct lab_arch *a;
	char root[PATH_MAX];        /* the unpacked kernel package; "" for a bare kernel */
	char kernel[PATH_MAX], kv[128], busybox[PATH_MAX];
	char ids[5][PATH_MAX + 64]; /* busybox, vmbench, kernel, modules, mkfs tools: what "up to date" compares */
	struct strv wanted;         /* the modules the device and filesystem tables ask for */
	struct fs_tools tools;      /* the mkfs programs, their files and libraries */
	char entry[1024];           /* how QEMU enters the kernel, for the manifest */
};

/* The busybox: --busybox, the host's on its own architecture, else Debian's for a. */
static int find_busybox(const struct lab_image_opts *o, const struct lab_arch *a, char *busybox, size_t len,
			char *err, size_t errlen)
{
	char bbroot[PATH_MAX], name[64];
	int r;

	if (o->busybox) {
		snprintf(busybox, len, "%s", o->busybox);
		return 0;
	}
	if (!strcmp(a->name, lab_host_arch())) {
		snprintf(busybox, len, "/bin/busybox");
		return 0;
	}
	/* a foreign busybox-static cannot be installed beside the host's: unpack it */
	snprintf(name, sizeof(name), "busybox-%s", a->deb);
	r = fetch_deb(o->cache, name, "busybox-static", false, a, bbroot, sizeof(bbroot), err, errlen);
	if (r < 0)
		return r;
	snprintf(busybox, len, "%s/bin/busybox", bbroot);
	return 0;
}

/* The library packages a package depends on, from `apt-cache depends`'
 * lines "  Depends: NAME" and "  PreDepends: NAME": those named lib*, but
 * libc6 (this machine's C library goes into the image with vmbench), once
 * each; alternatives and virtual packages (<name>) are left out. */
int lab_deb_lib_depends(const char *text, struct strv *out)
{
	int r = 0;

	for (const char *p = text; r == 0 && p && *p; p += strcspn(p, "\n"), p += *p == '\n') {
		const char *l = p + strspn(p, " \t"), *name = NULL;
		char pkg[128];
		size_t n;
		bool seen = false;

		if (str_has_prefix(l, "Depends: "))
			name = l + 9;
		else if (str_has_prefix(l, "PreDepends: "))
			name = l + 12;
		if (!name)
			continue;
		n = strcspn(name, " \t\n:");
		if (n == 0 || n >= sizeof(pkg) || !str_has_prefix(name, "lib"))
			continue;
		snprintf(pkg, sizeof(pkg), "%.*s", (int)n, name);
		if (!strcmp(pkg, "libc6") || pkg[strspn(pkg, "abcdefghijklmnopqrstuvwxyz0123456789.+-")])
			continue;
		for (size_t i = 0; i < out->n; i++)
			seen |= !strcmp(out->v[i], pkg);
		if (!seen)
			r = strv_push(out, pkg);
	}
	return r;
}

static void fs_tools_release(struct fs_tools *t)
{
	strv_clear(&t->host);
	strv_clear(&t->guest);
	strv_clear(&t->carried);
	strv_clear(&t->missing);
}

/* One row's files and libraries into t; a negative errno with err. */
static int fs_tool(const struct lab_image_opts *o, const struct lab_arch *a, const struct lab_fs *fs,
		   struct fs_tools *t, char *err, size_t errlen)
{
	char root[PATH_MAX], name[160], want[160], saved[PATH_MAX + 192], *out = NULL;
	struct strv libs = { 0 }, roots = { 0 }, host = { 0 }, guest = { 0 };
	char *const depends[] = { "apt-cache", "depends", want, NULL };
	int r;

	snprintf(name, sizeof(name), "%s-%s", fs->package, a->deb);
	r = fetch_deb(o->cache, name, fs->package, false, a, root, sizeof(root), err, errlen);
	if (r < 0)
		return r;
	r = strv_push(&roots, root);
	/* its libraries: from the packages it depends on (fetched once, kept;
	 * what apt-cache said is kept beside the package: it takes seconds) */
	snprintf(want, sizeof(want), "%s:%s", fs->package, a->deb);
	snprintf(saved, sizeof(saved), "%s/%s-%s/depends.txt", o->cache, fs->package, a->deb);
	if (r == 0 && read_file(saved, &out) < 0) {
		if (run_capture(depends[0], depends, NULL, &out) < 0 || !out)
			r = errf(err, errlen, -EIO, "'apt-cache depends %s' failed", want);
		else
			(void)file_write_new(saved, out, strlen(out));
	}
	if (r == 0)
		r = lab_deb_lib_depends(out, &libs);
	for (size_t i = 0; r == 0 && i < libs.n; i++) {
		char lroot[PATH_MAX];

		snprintf(name, sizeof(name), "%s-%s", libs.v[i], a->deb);
		r = fetch_deb(o->cache, name, libs.v[i], false, a, lroot, sizeof(lroot), err, errlen);
		if (r == 0)
			r = strv_push(&roots, lroot);
	}
	/* the files the row names, the program first, at their path in the
	 * package (or below usr/, where a merged-/usr package has them) */
	for (const char *p = fs->files + 1; r == 0 && *p; p += strcspn(p, " "), p += *p == ' ') {
		char f[PATH_MAX], g[PATH_MAX];

		snprintf(g, sizeof(g), "/%.*s", (int)strcspn(p, " "), p);
		snprintf(f, sizeof(f), "%s%s", root, g);
		if (access(f, R_OK) < 0)
			snprintf(f, sizeof(f), "%s/usr%s", root, g);
		if (access(f, R_OK) < 0) {
			r = errf(err, errlen, -ENOENT, "Debian's %s for %s has no %s", fs->package, a->deb, g + 1);
			break;
		}
		r = strv_push(&host, f);
		if (r == 0)
			r = strv_push(&guest, g);
		if (r == 0 && p == fs->files + 1)
			r = check_binary(g + 1, f, a->name, false, err, errlen);
		if (r == 0 && p == fs->files + 1)
			r = elf_runtime_files_in(f, &(struct elf_lib_search){ .triplet = a->triplet, .roots = &roots },
						 &host, &guest, err, errlen);
	}
	/* all of the row or nothing of it */
	for (size_t i = 0; r == 0 && i < host.n; i++) {
		bool seen = false;

		for (size_t k = 0; k < t->guest.n; k++)
			seen |= !strcmp(t->guest.v[k], guest.v[i]);
		if (!seen && (r = strv_push(&t->host, host.v[i])) == 0)
			r = strv_push(&t->guest, guest.v[i]);
	}
	free(out);
	strv_clear(&libs);
	strv_clear(&roots);
	strv_clear(&host);
	strv_clear(&guest);
	return r;
}

static int fs_tools_find(const struct lab_image_opts *o, const struct lab_arch *a, struct fs_tools *t, char *id,
			 size_t idlen)
{
	size_t off = 0;
	int r = 0;

	id[0] = '\0';
	for (size_t i = 0; r != -ENOMEM && i < lab_nfilesystems; i++) {
		const struct lab_fs *fs = &lab_filesystems[i];
		char why[1024];

		bool ok;

		r = fs_tool(o, a, fs, t, why, sizeof(why));
		ok = r == 0;
		if (ok) {
			r = strv_push(&t->carried, fs->name);
		} else if (r != -ENOMEM) {
			char *m = xasprintf("%s: %s", fs->name, why);

			r = m ? strv_push(&t->missing, m) : -ENOMEM;
			free(m);
		}
		str_appendf(id, idlen, &off, "%s%s:%s", i ? " " : "", fs->name, ok ? fs->package : "missing");
	}
	return r == -ENOMEM ? r : 0;
}

/* Phase 1: every input found and checked, and the output directory made. */
static int image_inputs(const struct lab_image_opts *o, struct image_inputs *in, char *err, size_t errlen)
{
	int r;

	in->a = lab_arch_find(o->arch);
	if (!in->a)
		return errf(err, errlen, -EINVAL, "arch %s: images are built for x86_64 and aarch64", o->arch);
	r = find_kernel(o, in->a, in->root, sizeof(in->root), in->kernel, sizeof(in->kernel), in->kv, sizeof(in->kv),
			err, errlen);
	if (r == 0)
		r = find_busybox(o, in->a, in->busybox, sizeof(in->busybox), err, errlen);
	if (r < 0)
		return r;
	if (lab_file_id(in->busybox, in->ids[0], sizeof(in->ids[0])) < 0)
		return errf(err, errlen, -ENOENT, "no static busybox at %s: apt-get install busybox-static", in->busybox);
	if (lab_file_id(o->vmbench, in->ids[1], sizeof(in->ids[1])) < 0 ||
	    lab_file_id(in->kernel, in->ids[2], sizeof(in->ids[2])) < 0)
		return errf(err, errlen, -ENOENT, "cannot read %s or %s", o->vmbench, in->kernel);
	r = check_binary("busybox", in->busybox, in->a->name, true, err, errlen);
	if (r == 0)
		r = check_binary("the guest's vmbench", o->vmbench, in->a->name, false, err, errlen);
	if (r < 0)
		return r;
	r = file_mkdirs(o->out);
	if (r < 0)
		return errf(err, errlen, r, "creating %s: %s", o->out, strerror(-r));
	/* the modules the device table asks for are an input too: a new model rebuilds */
	r = lab_image_modules(in->a->name, &in->wanted);
	if (r < 0)
		return errf(err, errlen, r, "out of memory listing modules");
	in->ids[3][0] = '\0';
	for (size_t i = 0, off = 0; i < in->wanted.n && off < sizeof(in->ids[3]); i++)
		str_appendf(in->ids[3], sizeof(in->ids[3]), &off, "%s%s", i ? " " : "", in->wanted.v[i]);
	/* the mkfs tools: a tool that could not be had is tried again next time */
	r = fs_tools_find(o, in->a, &in->tools, in->ids[4], sizeof(in->ids[4]));
	if (r < 0)
		return errf(err, errlen, r, "out of memory listing the mkfs tools");
	return 0;
}

/* Phase 2: up to date when every input is the same file as last time. */
static bool image_up_to_date(const struct lab_image_opts *o, const struct image_inputs *in)
{
	char path[PATH_MAX + 32], *old = NULL;
	bool same;
	json_t *m;
	const json_t *ids;

	snprintf(path, sizeof(path), "%s/manifest.json", o->out);
	if (read_file(path, &old) < 0)
		return false;
	m = json_loads(old, 0, NULL);
	ids = json_object_get(m, "inputs");
	same = ids && json_array_size(ids) == ARRAY_SIZE(in->ids);
	for (size_t i = 0; same && i < ARRAY_SIZE(in->ids); i++)
		same = !strcmp(json_string_value(json_array_get(ids, i)) ?: "", in->ids[i]);
	json_decref(m);
	free(old);
	return same;
}

/* Phase 4: the initramfs, then vmlinuz beside it. */
static int write_initrd(const struct lab_image_opts *o, struct image_inputs *in, const struct strv *libs,
			const struct lab_modules *mods, char *err, size_t errlen)
{
	char path[PATH_MAX + 32];
	struct strv dirs = { 0 };
	char *abs;
	struct cpio c;
	int r;

	snprintf(path, sizeof(path), "%s/initrd.img", o->out);
	r = cpio_open(&c, path);
	if (r < 0)
		return errf(err, errlen, r, "creating %s: %s", path, strerror(-r));
	for (const char *d = "bin\0proc\0sys\0dev\0tmp\0run\0etc\0lib\0lib/modules\0"; *d; d += strlen(d) + 1) {
		cpio_dir(&c, d, 0755);
		strv_push(&dirs, d);
	}
	cpio_copy(&c, "bin/busybox", 0755, in->busybox);
	cpio_symlink(&c, "bin/sh", "busybox");
	cpio_copy(&c, "bin/vmbench", 0755, o->vmbench);
	for (size_t i = 0; i < libs->n; i++)
		add_path(&c, &dirs, libs->v[i], 0755, libs->v[i]);
	/* the mkfs tools and their libraries, where their packages have them */
	for (size_t i = 0; i < in->tools.guest.n; i++) {
		bool dup = false;

		for (size_t k = 0; k < libs->n; k++)
			dup |= !strcmp(libs->v[k], in->tools.guest.v[i]);
		if (!dup)
			add_path(&c, &dirs, in->tools.guest.v[i], 0755, in->tools.host.v[i]);
	}
	for (size_t i = 0; i < mods->order.n; i++) {
		char name[PATH_MAX];

		snprintf(name, sizeof(name), "lib/modules/%s", strrchr(mods->order.v[i], '/') + 1);
		cpio_copy(&c, name, 0644, mods->order.v[i]);
	}
	cpio_file(&c, "etc/vmbench-modules", 0644, mods->list ? mods->list : "", mods->len);
	cpio_file(&c, "init", 0755, init_script, sizeof(init_script) - 1);
	strv_clear(&dirs);
	r = cpio_close(&c);
	if (r < 0)
		return errf(err, errlen, r, "writing %s: %s", path, strerror(-r));
	snprintf(path, sizeof(path), "%s/vmlinuz", o->out);
	/* absolute: a relative --cache or --kernel would dangle from the image dir */
	abs = realpath(in->kernel, NULL);
	if (!abs)
		return errf(err, errlen, -errno, "resolving %s: %s", in->kernel, strerror(errno));
	(void)unlink(path);
	r = symlink(abs, path) < 0 ? -errno : 0;
	if (r < 0) {
		free(abs);
		return errf(err, errlen, r, "linking %s: %s", path, strerror(-r));
	}
	/* the kernel proper where the architecture can take it; where it
	 * cannot be had (no tool, no PVH note), vmlinuz, and the manifest says why */
	snprintf(path, sizeof(path), "%s/vmlinux", o->out);
	(void)unlink(path);
	snprintf(in->entry, sizeof(in->entry), "vmlinuz: QEMU's own loader");
	if (in->a->kernel_unpack) {
		char why[sizeof(in->entry) - 64];

		if (in->a->kernel_unpack(abs, path, why, sizeof(why)) == 0)
			snprintf(in->entry, sizeof(in->entry), "vmlinux: %s", why);
		else
			snprintf(in->entry, sizeof(in->entry), "vmlinuz, the guest decompressing it: %s", why);
	}
	free(abs);
	return 0;
}

/* The JSON strings of list (base names when base), or NULL: every one or none. */
static json_t *string_array(const struct strv *list, bool base)
{
	json_t *a = json_array();

	for (size_t i = 0; a && i < list->n; i++) {
		const char *s = base && strrchr(list->v[i], '/') ? strrchr(list->v[i], '/') + 1 : list->v[i];

		if (json_array_append_new(a, json_string(s)) < 0) {
			json_decref(a);
			a = NULL;
		}
	}
	return a;
}

/* Phase 5: the manifest, which says what the image holds and what it was made of. */
static int write_manifest(const struct lab_image_opts *o, const struct image_inputs *in, const struct strv *libs,
			  const struct lab_modules *mods, char *err, size_t errlen)
{
	char path[PATH_MAX + 32], *text = NULL;
	json_t *manifest, *modules = string_array(&mods->order, true), *missing = string_array(&mods->missing, false);
	json_t *libraries = string_array(libs, false);
	json_t *filesystems = string_array(&in->tools.carried, false), *fs_missing = string_array(&in->tools.missing, false);
	json_t *fs_files = string_array(&in->tools.guest, false), *sets = json_object();
	int r;

	/* per wanted module, what a guest that wants it loads (src/lab/modules.h) */
	for (size_t i = 0; sets && i < in->wanted.n && i < mods->sets.n; i++)
		if (json_object_set_new(sets, in->wanted.v[i], json_string(mods->sets.v[i])) < 0) {
			json_decref(sets);
			sets = NULL;
		}

	/* with the filesystems the guest can make (the tools there) and why not
	 * the others; json_pack takes every value given to it, also when it fails */
	manifest = json_pack("{s:s, s:s, s:s, s:o*, s:o*, s:[s, s, s, s, s], s:o, s:o, s:o}", "arch", o->arch,
			     "kernel_version", in->kv, "vmbench_version", VMB_VERSION, "modules", modules,
			     "modules_missing", missing, "inputs", in->ids[0], in->ids[1], in->ids[2], in->ids[3],
			     in->ids[4], "filesystems", filesystems, "filesystems_missing", fs_missing,
			     "filesystem_files", fs_files);
	/* every field or none: a path that is not UTF-8 (json_string refuses
	 * it) fails the manifest instead of leaving the field out */
	if (!manifest || !modules || !missing || !libraries || json_object_set_new(manifest, "libraries", libraries) < 0 ||
	    json_object_set_new(manifest, "kernel", json_string(in->kernel)) < 0 ||
	    json_object_set_new(manifest, "busybox", json_string(in->busybox)) < 0 ||
	    json_object_set_new(manifest, "kernel_entry", json_string(in->entry)) < 0 ||
	    !sets || json_object_set_new(manifest, "module_sets", json_incref(sets)) < 0 ||
	    (!*in->root && json_object_set_new(manifest, "modules_note",
					       json_string("a bare --kernel brings no modules: its drivers must be "
							   "built in")) < 0)) {
		if (!manifest)
			json_decref(libraries); /* given to nothing */
		json_decref(sets);
		json_decref(manifest);
		return errf(err, errlen, -EINVAL, "writing the image's manifest: out of memory, or a path (kernel, "
			    "busybox, a library or a module) that is not UTF-8");
	}
	json_decref(sets);
	text = json_dumps(manifest, JSON_INDENT(2));
	json_decref(manifest);
	snprintf(path, sizeof(path), "%s/manifest.json", o->out);
	(void)unlink(path);
	r = text ? file_write_new(path, text, strlen(text)) : -ENOMEM;
	free(text);
	if (r < 0)
		return errf(err, errlen, r, "writing %s: %s", path, strerror(-r));
	return 0;
}

int lab_image_build(const struct lab_image_opts *o, int *rebuilt, char *err, size_t errlen)
{
	struct image_inputs in = { 0 };
	struct lab_modules mods = { 0 };
	struct strv libs = { 0 };
	char moddir[PATH_MAX + 160];
	int r;

	*rebuilt = 0;
	r = image_inputs(o, &in, err, errlen);
	if (r < 0 || image_up_to_date(o, &in))
		goto out;
	r = elf_runtime_files(o->vmbench, in.a->triplet, &libs, err, errlen);
	if (r < 0)
		goto out;
	/* Phase 3: the modules the device table asks for, with their dependencies */
	snprintf(moddir, sizeof(moddir), "%s/lib/modules/%s/kernel", in.root, in.kv);
	r = lab_modules_gather(&mods, *in.root ? moddir : NULL, &in.wanted);
	if (r < 0) {
		errf(err, errlen, r, "out of memory listing modules");
		goto out;
	}
	r = write_initrd(o, &in, &libs, &mods, err, errlen);
	if (r == 0)
		r = write_manifest(o, &in, &libs, &mods, err, errlen);
	if (r == 0)
		*rebuilt = 1;
out:
	lab_modules_release(&mods);
	strv_clear(&libs);
	strv_clear(&in.wanted);
	fs_tools_release(&in.tools);
	return r;
}

bool lab_image_lacks_fs(const char *dir, const char *fs, char *why, size_t len)
{
	char path[PATH_MAX + 32], *text = NULL;
	const json_t *v;
	json_t *m;
	size_t i, n = strlen(fs);
	bool lacks = true;

	snprintf(path, sizeof(path), "%s/manifest.json", dir);
	snprintf(why, len, "the image in %s says nothing of fs=%s (rebuild it)", dir, fs);
	m = read_file(path, &text) == 0 ? json_loads(text, 0, NULL) : NULL;
	free(text);
	json_array_foreach(json_object_get(m, "filesystems"), i, v)
		lacks &= strcmp(json_string_value(v) ?: "", fs) != 0;
	json_array_foreach(json_object_get(m, "filesystems_missing"), i, v) {
		const char *s = json_string_value(v) ?: "";

		if (!strncmp(s, fs, n) && s[n] == ':')
			snprintf(why, len, "no mkfs for fs=%s in the %s image: %s", fs,
				 json_string_value(json_object_get(m, "arch")) ?: "", s + n + 2);
	}
	json_decref(m);
	return lacks;
}
