/* The lab's image as a disk that any hypervisor boots: a bootable ISO made
 * with GRUB (grub-mkrescue: BIOS through grub-pc-bin, UEFI through
 * grub-efi-amd64-bin, each where installed), holding the image's own kernel
 * and initramfs, and the same ISO converted by qemu-img to the formats
 * other hypervisors attach as a disk (a hybrid ISO boots as a disk too). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "image.h"
#include "iso.h"
#include "../core/file.h"
#include "../core/log.h"
#include "../core/spawn.h"
#include "../core/stop.h"
#include "../core/stoppoint.h"
#include "../core/tempfile.h"
#include "../core/util.h"
#include "../core/banned.h"

/* Changed whenever grub.cfg or the ISO's layout changes: a stamp of
 * another layout makes the ISO again. */
#define ISO_LAYOUT "vmbench-iso 1"

/* GRUB says nothing on the serial console: the console's first byte stays
 * the kernel's (the boot's firmware phase ends there, as with -kernel).
 * No vmbench.agent=: the guest's init takes the virtio console when it
 * appears (QEMU, libvirt), else the second serial port (ttyS1), which
 * VirtualBox and VMware connect to a pipe on their host. */
static const char grub_cfg[] =
	"# vmbench's lab image (vmbench lab image --format iso)\n"
	"set timeout=0\n"
	"set default=0\n"
	"menuentry 'vmbench agent' {\n"
	"  linux /boot/vmlinuz console=ttyS0 earlyprintk=serial,ttyS0,115200 panic=-1\n"
	"  initrd /boot/initrd.img\n"
	"}\n";

const struct lab_disk_format lab_disk_formats[] = {
#define DISK_FORMAT_ROW(n, q, h) { .name = n, .qemu_img = q, .hypervisors = h },
	LAB_DISK_FORMATS(DISK_FORMAT_ROW)
#undef DISK_FORMAT_ROW
};
const size_t lab_ndisk_formats = sizeof(lab_disk_formats) / sizeof(lab_disk_formats[0]);

const struct lab_disk_format *lab_disk_format_find(const char *name)
{
	for (size_t i = 0; i < lab_ndisk_formats; i++)
		if (!strcmp(lab_disk_formats[i].name, name))
			return &lab_disk_formats[i];
	return NULL;
}

/* What the ISO was made of: its inputs' identities and the layout. */
static int iso_stamp(const char *dir, char *buf, size_t len)
{
	char path[4200], k[4300], i[4300];
	int r;

	snprintf(path, sizeof(path), "%s/vmlinuz", dir);
	r = lab_file_id(path, k, sizeof(k));
	if (r == 0) {
		snprintf(path, sizeof(path), "%s/initrd.img", dir);
		r = lab_file_id(path, i, sizeof(i));
	}
	if (r == 0)
		snprintf(buf, len, "%s\n%s\n%s", ISO_LAYOUT, k, i);
	return r;
}

/* The staging tree, each directory before what it holds */
static const char *const stage_tree[] = { "", "boot", "boot/grub", "boot/grub/grub.cfg", "boot/vmlinuz",
					  "boot/initrd.img" };
#define STAGE_N (sizeof(stage_tree) / sizeof(stage_tree[0]))

/* The staging tree removed, deepest first, whether or not it was made
 * (ENOENT is fine), and forgotten by the registry of temporary files. */
static void unstage(const char *stage)
{
	char path[4300];

	for (size_t j = STAGE_N; j-- > 0;) {
		snprintf(path, sizeof(path), "%s/%s", stage, stage_tree[j]);
		(void)vmb_tempfile_unlink(path);
	}
}

/* The staging tree and the ISO's temporary file registered before they
 * are made: a second Ctrl-C (the signal's cleanup) removes them. */
static int stage_register(const char *stage, const char *tmp)
{
	char path[4300];
	int r = 0;

	for (size_t j = 0; r == 0 && j < STAGE_N; j++) {
		snprintf(path, sizeof(path), "%s/%s", stage, stage_tree[j]);
		r = vmb_tempfile_add(path);
	}
	if (r == 0)
		r = vmb_tempfile_add(tmp);
	if (r < 0) {
		unstage(stage);
		(void)vmb_tempfile_unlink(tmp);
	}
	return r;
}

/* The PID that ends a name of prefix (iso-stage.PID), or 0 */
static long name_pid(const char *name, const char *prefix)
{
	size_t n = strlen(prefix);
	char *end;
	long pid;

	if (strncmp(name, prefix, n) || name[n] < '1' || name[n] > '9')
		return 0;
	errno = 0;
	pid = strtol(name + n, &end, 10);
	return *end || errno || pid > INT_MAX ? 0 : pid;
}

/* What a process killed while making the ISO or a disk left in dir: its
 * staging tree and temporary files, named by its PID, removed when that
 * PID is no longer a process (one that is, even another user's, keeps
 * its own). Called under the lock, so no vmbench is making them now. */
static void reap_stale(const char *dir)
{
	struct dirent *e;
	DIR *d = opendir(dir);

	while (d && (e = readdir(d))) {
		long pid = name_pid(e->d_name, "iso-stage.");
		bool stage = pid != 0;
		char prefix[64], path[4300];

		for (size_t i = 0; !pid && i < lab_ndisk_formats; i++) {
			snprintf(prefix, sizeof(prefix), "vmbench.%s.tmp.", lab_disk_formats[i].name);
			pid = name_pid(e->d_name, prefix);
		}
		if (!pid || pid == (long)getpid() || kill((pid_t)pid, 0) == 0 || errno != ESRCH)
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		if (stage)
			unstage(path);
		else
			(void)unlink(path);
		log_info("removed %s, left by process %ld, which is gone", path, pid);
	}
	if (d)
		closedir(d);
}

int lab_iso_lock(const char *dir, char *err, size_t errlen)
{
	char lock[4200];
	int fd, r;

	snprintf(lock, sizeof(lock), "%s/.lock", dir);
	fd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0)
		return errf(err, errlen, -errno, "creating %s: %s", lock, strerror(errno));
	if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		if (errno != EWOULDBLOCK) {
			r = -errno;
			close(fd);
			return errf(err, errlen, r, "locking %s: %s", lock, strerror(-r));
		}
		log_warn("another vmbench is making the ISO or disks of the image in %s (it holds %s): waiting for it",
			 dir, lock);
		vmb_test_stop_point("iso-lock-wait");
		while (flock(fd, LOCK_EX) < 0) {
			r = -errno;
			if (r == -EINTR && !vmb_stop_requested())
				continue;
			close(fd);
			return r == -EINTR ? errf(err, errlen, r, "interrupted while waiting for %s", lock)
					   : errf(err, errlen, r, "locking %s: %s", lock, strerror(-r));
		}
	}
	reap_stale(dir);
	return fd;
}

/* The kernel and initramfs put in the staging tree: hard links (the same
 * file system), else copies. */
static int stage_file(const char *from, const char *to)
{
	char *const cp[] = { "cp", "--", (char *)from, (char *)to, NULL };

	if (linkat(AT_FDCWD, from, AT_FDCWD, to, AT_SYMLINK_FOLLOW) == 0)
		return 0;
	return run_capture("cp", cp, NULL, NULL) < 0 ? -EIO : 0;
}

/* Which firmwares an installed GRUB can make the ISO boot with. */
static void grub_platforms(bool *bios, bool *uefi)
{
	*bios = access("/usr/lib/grub/i386-pc/cdboot.img", R_OK) == 0;
	*uefi = access("/usr/lib/grub/x86_64-efi/kernel.img", R_OK) == 0;
}

int lab_iso_build(const char *dir, const char *arch, struct lab_iso *out, char *err, size_t errlen)
{
	char iso[4200], tmp[4300], stamp_path[4300], stage[4300], path[4400], from[4300], stamp[9000];
	char *old = NULL, *msg = NULL, mkrescue[4096];
	bool bios, uefi;
	int r;

	memset(out, 0, sizeof(*out));
	if (strcmp(arch, "x86_64"))
		return errf(err, errlen, -EOPNOTSUPP, "an ISO of the %s image is not made here: x86_64 only (GRUB's "
			    "BIOS and x86_64 UEFI platforms)", arch);
	grub_platforms(&bios, &uefi);
	out->bios = bios;
	out->uefi = uefi;
	snprintf(iso, sizeof(iso), "%s/vmbench.iso", dir);
	snprintf(out->path, sizeof(out->path), "%s", iso);
	snprintf(stamp_path, sizeof(stamp_path), "%s.stamp", iso);
	r = iso_stamp(dir, stamp, sizeof(stamp));
	if (r < 0)
		return errf(err, errlen, r, "the image in %s has no kernel or initramfs (%s): build it first", dir,
			    strerror(-r));
	if (access(iso, R_OK) == 0 && read_file(stamp_path, &old) == 0 && !strcmp(old, stamp)) {
		free(old);
		return 0;
	}
	free(old);
	if (path_find("grub-mkrescue", mkrescue, sizeof(mkrescue)) < 0)
		return errf(err, errlen, -ENOENT, "making an ISO needs grub-mkrescue, xorriso and mtools: apt-get "
			    "install grub-common grub-pc-bin grub-efi-amd64-bin xorriso mtools");
	if (!bios && !uefi)
		return errf(err, errlen, -ENOENT, "grub-mkrescue has no platform to make a bootable ISO with: apt-get "
			    "install grub-pc-bin (BIOS) or grub-efi-amd64-bin (UEFI)");
	/* the staging tree and the ISO under names of this process's own */
	snprintf(stage, sizeof(stage), "%s/iso-stage.%ld", dir, (long)getpid());
	snprintf(tmp, sizeof(tmp), "%s.tmp.%ld", iso, (long)getpid());
	unstage(stage);
	(void)unlink(tmp);
	r = stage_register(stage, tmp);
	if (r < 0)
		return errf(err, errlen, r, "registering the ISO's temporary files: %s", strerror(-r));
	snprintf(path, sizeof(path), "%s/boot/grub", stage);
	r = file_mkdirs(path);
	if (r == 0) {
		snprintf(path, sizeof(path), "%s/boot/grub/grub.cfg", stage);
		r = file_write_new(path, grub_cfg, strlen(grub_cfg));
	}
	for (int j = 0; r == 0 && j < 2; j++) {
		const char *name = j ? "initrd.img" : "vmlinuz";

		snprintf(from, sizeof(from), "%s/%s", dir, name);
		snprintf(path, sizeof(path), "%s/boot/%s", stage, name);
		r = stage_file(from, path);
	}
	if (r < 0) {
		unstage(stage);
		(void)vmb_tempfile_unlink(tmp);
		return errf(err, errlen, r, "staging the ISO's files in %s: %s", stage, strerror(-r));
	}
	vmb_test_stop_point("iso-staged");
	if (vmb_stop_requested()) {
		unstage(stage);
		(void)vmb_tempfile_unlink(tmp);
		return errf(err, errlen, -EINTR, "interrupted before grub-mkrescue made the ISO");
	}
	{
		/* the ISO 9660 volume's name: what a hypervisor's CD-ROM list shows */
		char *const argv[] = { mkrescue, "--output", tmp, stage, "--", "-volid", "VMBENCH", NULL };

		r = run_capture_all(mkrescue, argv, &msg);
	}
	unstage(stage);
	if (r < 0 && vmb_stop_requested()) {
		/* the stop was passed on to grub-mkrescue, which ended on it */
		free(msg);
		(void)vmb_tempfile_unlink(tmp);
		return errf(err, errlen, -EINTR, "interrupted while grub-mkrescue made the ISO");
	}
	if (r < 0) {
		/* grub-mkrescue's last line says what it lacked (xorriso, mformat) */
		char *last = msg ? msg : "";
		size_t n = strlen(last);

		while (n && last[n - 1] == '\n')
			last[--n] = '\0';
		last = strrchr(last, '\n') ? strrchr(last, '\n') + 1 : last;
		errf(err, errlen, -EIO, "grub-mkrescue failed: %s (it needs xorriso, and mtools for UEFI: apt-get "
		     "install xorriso mtools)", *last ? last : "no message");
		free(msg);
		(void)vmb_tempfile_unlink(tmp);
		return -EIO;
	}
	free(msg);
	/* the stamp goes after the ISO: a crash between the two makes it again */
	(void)unlink(stamp_path);
	if (rename(tmp, iso) < 0) {
		r = -errno;
		(void)vmb_tempfile_unlink(tmp);
		return errf(err, errlen, r, "renaming %s to %s: %s", tmp, iso, strerror(-r));
	}
	(void)vmb_tempfile_unlink(tmp); /* renamed: only forgotten */
	r = file_write_new(stamp_path, stamp, strlen(stamp));
	if (r < 0)
		return errf(err, errlen, r, "writing %s: %s", stamp_path, strerror(-r));
	out->built = true;
	return 0;
}

int lab_iso_convert(const struct lab_iso *iso, const struct lab_disk_format *f, char *path, size_t len,
		    bool *built, char *err, size_t errlen)
{
	char tmp[4400], img[4096];
	struct stat si, so;
	int r;

	*built = false;
	snprintf(path, len, "%.*s.%s", (int)(strlen(iso->path) - 4), iso->path, f->name);
	if (!f->qemu_img)
		return errf(err, errlen, -EINVAL, "%s is the ISO itself", f->name);
	/* up to date: made after the ISO it was converted from */
	if (stat(iso->path, &si) == 0 && stat(path, &so) == 0 && so.st_mtime >= si.st_mtime && !iso->built)
		return 0;
	if (path_find("qemu-img", img, sizeof(img)) < 0)
		return errf(err, errlen, -ENOENT, "--format %s needs qemu-img: apt-get install qemu-utils", f->name);
	if (vmb_stop_requested())
		return errf(err, errlen, -EINTR, "interrupted before qemu-img made %s", path);
	snprintf(tmp, sizeof(tmp), "%s.tmp.%ld", path, (long)getpid());
	(void)unlink(tmp);
	r = vmb_tempfile_add(tmp);
	if (r < 0)
		return errf(err, errlen, r, "registering %s: %s", tmp, strerror(-r));
	{
		char *const argv[] = { img, "convert", "-f", "raw", "-O", (char *)f->qemu_img, (char *)iso->path, tmp,
				       NULL };
		char *msg = NULL;

		r = run_capture_all(img, argv, &msg);
		if (r < 0) {
			if (vmb_stop_requested())
				errf(err, errlen, -EINTR, "interrupted while qemu-img made %s", path);
			else
				errf(err, errlen, -EIO, "qemu-img convert -O %s failed: %s", f->qemu_img, msg ? msg : "");
			free(msg);
			(void)vmb_tempfile_unlink(tmp);
			return vmb_stop_requested() ? -EINTR : -EIO;
		}
		free(msg);
	}
	if (rename(tmp, path) < 0) {
		r = -errno;
		(void)vmb_tempfile_unlink(tmp);
		return errf(err, errlen, r, "renaming %s to %s: %s", tmp, path, strerror(-r));
	}
	(void)vmb_tempfile_unlink(tmp); /* renamed: only forgotten */
	*built = true;
	return 0;
}
