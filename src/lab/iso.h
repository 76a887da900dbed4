/* The lab's image as a disk that any hypervisor boots (lab image --format,
 * and the boot=cdrom key): a bootable ISO (GRUB, BIOS and UEFI) of the
 * image's kernel and initramfs, and that ISO converted to other formats. */
#ifndef VMB_ISO_H
#define VMB_ISO_H

#include <stdbool.h>
#include <stddef.h>

/* X(name, qemu_img, hypervisors): the formats of --format, one row each.
 *   qemu_img     qemu-img's output format; NULL: the ISO itself.
 *   hypervisors  who attaches a file of it, for the help and the README. */
#define LAB_DISK_FORMATS(X)                                                                             \
	X("iso", NULL, "a CD-ROM of any hypervisor (QEMU, libvirt, VirtualBox, ESXi, Hyper-V)")           \
	X("qcow2", "qcow2", "a disk of QEMU or libvirt")                                                  \
	X("vmdk", "vmdk", "a disk of VMware (Workstation, ESXi) or VirtualBox")                            \
	X("vdi", "vdi", "a disk of VirtualBox")
#define LAB_DISK_FORMAT_NAME(n, ...) "|" n

struct lab_disk_format {
	const char *name, *qemu_img, *hypervisors;
};
extern const struct lab_disk_format lab_disk_formats[];
extern const size_t lab_ndisk_formats;
const struct lab_disk_format *lab_disk_format_find(const char *name);

struct lab_iso {
	char path[4200]; /* DIR/vmbench.iso */
	bool bios, uefi; /* the firmwares it boots with (GRUB's platforms installed) */
	bool built;      /* made now (else found up to date) */
};

/* The image directory's lock, DIR/.lock (the distribution image's build
 * takes the same), held while its ISO and disks are made, so that two
 * vmbench never write them at once: one that holds it is waited for,
 * saying so. Then what a process killed while making them left there
 * (iso-stage.PID, vmbench.FORMAT.tmp.PID of a PID no longer alive) is
 * removed. The descriptor, whose close() unlocks; or a negative errno with
 * err (-EINTR: a stop asked while waiting). */
int lab_iso_lock(const char *dir, char *err, size_t errlen);

/* Make DIR/vmbench.iso from the image in DIR (vmlinuz, initrd.img), or
 * find it up to date (its stamp names the same inputs). x86_64 only; under
 * lab_iso_lock. Its staging tree and temporary file are in the registry of
 * temporary files (core/tempfile.h) while they exist; a stop asked
 * (Ctrl-C) removes them and returns -EINTR. 0, or a negative errno with
 * err saying what is missing. */
int lab_iso_build(const char *dir, const char *arch, struct lab_iso *out, char *err, size_t errlen);

/* The ISO converted by qemu-img to f, beside it (vmbench.FORMAT), unless
 * one made after it is there; under lab_iso_lock, its temporary file in
 * the registry as the ISO's (-EINTR: stopped). path: the file; *built:
 * made now. */
int lab_iso_convert(const struct lab_iso *iso, const struct lab_disk_format *f, char *path, size_t len,
		    bool *built, char *err, size_t errlen);

#endif
