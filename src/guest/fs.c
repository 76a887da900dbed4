/* The filesystem on the device under test: made and mounted in the guest,
 * described alike there and on the host (see fs.h). */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <mntent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "fs.h"
#include "../core/spawn.h"
#include "../core/str.h"
#include "../core/banned.h"

/* Besides the test file: iozone's (--disk.file-size, 512m by default) and
 * the filesystem's journal, inode tables and reserve. A raw image file is
 * sparse: what the guest does not write costs the host nothing. */
#define FS_HEADROOM (640ull << 20)

uint64_t lab_fs_disk_size(const struct lab_fs *fs, uint64_t test_size)
{
	uint64_t size;

	if (!fs)
		return test_size;
	size = test_size + test_size / 4 + FS_HEADROOM;
	return size < (uint64_t)fs->min_mib << 20 ? (uint64_t)fs->min_mib << 20 : size;
}

/* The mount table's entry of the filesystem path is on: of those with its
 * st_dev, the one whose directory is the longest prefix of path (a bind
 * mount elsewhere has the same st_dev), the last of equals (the one on
 * top); 0 when found. */
static int mount_of(const char *path, dev_t dev, char *fsname, char *dir, char *type, char *opts, size_t len)
{
	struct mntent me;
	char buf[4096];
	FILE *f = setmntent("/proc/self/mounts", "re");
	size_t best = 0;
	int r = -ENOENT;

	if (!f)
		return -errno;
	while (getmntent_r(f, &me, buf, sizeof(buf))) {
		size_t l = strlen(me.mnt_dir);
		bool prefix = !strcmp(me.mnt_dir, "/") ||
			      (!strncmp(path, me.mnt_dir, l) && (path[l] == '/' || path[l] == '\0'));
		struct stat sb;

		if (stat(me.mnt_dir, &sb) < 0 || sb.st_dev != dev || (r == 0 && (!prefix || l < best)))
			continue;
		best = prefix ? l : 0;
		snprintf(fsname, len, "%s", me.mnt_fsname);
		snprintf(dir, len, "%s", me.mnt_dir);
		snprintf(type, len, "%s", me.mnt_type);
		snprintf(opts, len, "%s", me.mnt_opts);
		r = 0;
	}
	endmntent(f);
	return r;
}

/* Where block device rdev is mounted, in where; 0 when it is not. */
static int mounted_at(dev_t rdev, char *where, size_t len)
{
	struct mntent me;
	char buf[4096];
	FILE *f = setmntent("/proc/self/mounts", "re");
	int r = 0;

	if (!f)
		return -errno;
	while (r == 0 && getmntent_r(f, &me, buf, sizeof(buf))) {
		struct stat sb;

		if (stat(me.mnt_fsname, &sb) == 0 && S_ISBLK(sb.st_mode) && sb.st_rdev == rdev) {
			snprintf(where, len, "%s", me.mnt_dir);
			r = 1;
		}
	}
	endmntent(f);
	return r;
}

int lab_fs_describe(const char *dir, json_t **out, char *err, size_t errlen)
{
	char fsname[512], mdir[512], type[64], opts[1024], real[PATH_MAX];
	struct statvfs sv;
	struct stat sb;
	json_t *o;
	int r;

	if (stat(dir, &sb) < 0 || statvfs(dir, &sv) < 0 || !realpath(dir, real))
		return errf(err, errlen, -errno, "%s: %s", dir, strerror(errno));
	r = mount_of(real, sb.st_dev, fsname, mdir, type, opts, sizeof(fsname));
	if (r < 0)
		return errf(err, errlen, r, "%s is on no filesystem of /proc/self/mounts", dir);
	o = json_pack("{s:s, s:s, s:s, s:s, s:I}", "type", type, "device", fsname, "mountpoint", mdir,
		      "mount_options", opts, "size_bytes", (json_int_t)((uint64_t)sv.f_blocks * sv.f_frsize));
	if (!o)
		return errf(err, errlen, -EINVAL, "describing %s: out of memory, or a name that is not UTF-8", dir);
	*out = o;
	return 0;
}

/* argv of "PROGRAM WORDS... [LAST]" (the words of a table row), owned by sv. */
static int words(struct strv *sv, const char *program, const char *list, const char *last)
{
	int r = strv_push(sv, program);

	for (const char *p = list + strspn(list, " "); r == 0 && *p;) {
		size_t l = strcspn(p, " ");
		char w[128];

		snprintf(w, sizeof(w), "%.*s", (int)l, p);
		r = strv_push(sv, w);
		p += l + strspn(p + l, " ");
	}
	if (r == 0 && last)
		r = strv_push(sv, last);
	return r;
}

/* The first line of what a program printed, without the trailing blanks. */
static void first_line(const char *out, char *buf, size_t len)
{
	size_t l;

	snprintf(buf, len, "%.*s", (int)strcspn(out ? out : "", "\n"), out ? out : "");
	l = strlen(buf);
	while (l && (buf[l - 1] == ' ' || buf[l - 1] == '\t' || buf[l - 1] == '\r'))
		buf[--l] = '\0';
}

/* The last line of what a program printed, for its error message. */
static void last_line(const char *out, char *buf, size_t len)
{
	const char *p = out ? out : "", *end = p + strlen(p), *start;

	while (end > p && (end[-1] == '\n' || end[-1] == ' '))
		end--;
	start = end;
	while (start > p && start[-1] != '\n')
		start--;
	snprintf(buf, len, "%.*s", (int)(end - start), start);
}

int lab_fs_make(const struct lab_fs *fs, const char *device, const char *mountpoint, json_t **out, char *err,
		size_t errlen)
{
	char program[128], where[512], msg[512], version[256], cmd[1024] = "";
	struct strv argv = { 0 }, vargv = { 0 };
	char *text = NULL;
	struct stat sb;
	size_t off = 0;
	json_t *rec = NULL;
	int r;

	/* the program is the first file the image takes of the package, at its path there */
	snprintf(program, sizeof(program), "/%.*s", (int)strcspn(fs->files + 1, " "), fs->files + 1);
	if (stat(device, &sb) < 0 || !S_ISBLK(sb.st_mode))
		return errf(err, errlen, -ENODEV, "%s is no block device", device);
	r = mounted_at(sb.st_rdev, where, sizeof(where));
	if (r != 0)
		return errf(err, errlen, r < 0 ? r : -EBUSY, "%s %s: a filesystem is made only on a device nothing uses",
			    device, r < 0 ? "cannot be checked" : "is mounted");
	if (access(program, X_OK) < 0)
		return errf(err, errlen, -ENOENT, "no %s here (the image carries it from Debian's %s)", program,
			    fs->package);
	r = words(&argv, program, fs->mkfs, device);
	if (r == 0)
		r = words(&vargv, program, fs->version, NULL);
	if (r < 0) {
		r = errf(err, errlen, r, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < argv.n; i++)
		str_appendf(cmd, sizeof(cmd), &off, "%s%s", i ? " " : "", argv.v[i]);
	r = run_capture_all(program, vargv.v, &text);
	first_line(text, version, sizeof(version));
	free(text);
	text = NULL;
	if (!*version)
		snprintf(version, sizeof(version), "unknown (%s %s printed nothing)", program, fs->version);
	r = run_capture_all(program, argv.v, &text);
	if (r < 0) {
		last_line(text, msg, sizeof(msg));
		r = errf(err, errlen, -EIO, "%s failed%s%s", cmd, *msg ? ": " : "", msg);
		goto out;
	}
	/* its parent too (/mnt: a bare initramfs has none) */
	snprintf(where, sizeof(where), "%s", mountpoint);
	if (strrchr(where, '/') && strrchr(where, '/') != where) {
		*strrchr(where, '/') = '\0';
		(void)mkdir(where, 0755);
	}
	if (mkdir(mountpoint, 0755) < 0 && errno != EEXIST) {
		r = errf(err, errlen, -errno, "creating %s: %s", mountpoint, strerror(errno));
		goto out;
	}
	if (mount(device, mountpoint, fs->name, 0, NULL) < 0) {
		r = errf(err, errlen, -errno, "mounting %s (%s) at %s: %s", device, fs->name, mountpoint, strerror(errno));
		(void)rmdir(mountpoint); /* made here: nothing of this run's is left */
		goto out;
	}
	r = lab_fs_describe(mountpoint, &rec, err, errlen);
	if (r == 0 && (json_object_set_new(rec, "mkfs", json_string(cmd)) < 0 ||
		       json_object_set_new(rec, "mkfs_version", json_string(version)) < 0))
		r = errf(err, errlen, -ENOMEM, "out of memory");
	if (r < 0) {
		json_decref(rec);
		lab_fs_unmount(mountpoint);
		goto out;
	}
	*out = rec;
out:
	free(text);
	strv_clear(&argv);
	strv_clear(&vargv);
	return r;
}

int lab_fs_mount_share(const struct lab_share *share, const char *mountpoint, json_t **out, char *err, size_t errlen)
{
	char parent[512];

	snprintf(parent, sizeof(parent), "%s", mountpoint);
	if (strrchr(parent, '/') && strrchr(parent, '/') != parent) {
		*strrchr(parent, '/') = '\0';
		(void)mkdir(parent, 0755);
	}
	if (mkdir(mountpoint, 0755) < 0 && errno != EEXIST)
		return errf(err, errlen, -errno, "creating %s: %s", mountpoint, strerror(errno));
	if (mount(LAB_SHARE_TAG, mountpoint, share->type, 0, *share->options ? share->options : NULL) < 0) {
		int r = -errno;

		(void)rmdir(mountpoint);
		return errf(err, errlen, r, "mounting the share %s (%s%s%s) at %s: %s", LAB_SHARE_TAG, share->type,
			    *share->options ? ", " : "", share->options, mountpoint, strerror(-r));
	}
	if (lab_fs_describe(mountpoint, out, err, errlen) < 0) {
		lab_fs_unmount(mountpoint);
		return -EIO;
	}
	return 0;
}

void lab_fs_unmount(const char *mountpoint)
{
	(void)umount2(mountpoint, 0);
	(void)rmdir(mountpoint);
}
