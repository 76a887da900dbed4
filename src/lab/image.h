/* The lab's guest image: a Linux kernel and an initramfs holding busybox,
 * the kernel modules the device models need (with their dependencies, in
 * load order), the vmbench binary with its shared libraries, and an init
 * that loads the drivers and starts `vmbench agent`. */
#ifndef VMB_IMAGE_H
#define VMB_IMAGE_H

#include <stdbool.h>
#include <stddef.h>

#include "modules.h"
#include "../core/util.h"

struct lab_image_opts {
	const char *arch;    /* "x86_64" or "aarch64" */
	const char *kernel;  /* a vmlinuz, or a linux-image .deb; NULL: Debian's, fetched into the cache */
	const char *cache;   /* where downloads are kept */
	const char *out;     /* where vmlinuz, initrd.img and manifest.json go */
	const char *busybox; /* a static busybox; NULL: /bin/busybox, or Debian's busybox-static for a foreign arch */
	const char *vmbench; /* the binary to put in the guest, built for arch */
};

/* An architecture the lab builds images for, with its Debian names. */
struct lab_arch {
	const char *name;    /* x86_64, as uname -m says */
	const char *deb;     /* amd64 */
	const char *triplet; /* x86_64-linux-gnu */
	/* the kernel QEMU is handed, made beside vmlinuz as "vmlinux" when the
	 * architecture's -kernel takes it (src/lab/kernel.h); NULL: vmlinuz as it is */
	int (*kernel_unpack)(const char *bzimage, const char *vmlinux, char *why, size_t len);
};

const struct lab_arch *lab_arch_find(const char *name);
/* uname -m of this machine */
const char *lab_host_arch(void);

/* An input file's identity in an image's manifest: "PATH:SIZE:MTIME".
 * 0, or a negative errno when it cannot be read. */
int lab_file_id(const char *path, char *buf, size_t len);

/* Build, or find the image up to date (*rebuilt false). err says what failed. */
int lab_image_build(const struct lab_image_opts *o, int *rebuilt, char *err, size_t errlen);

/* Whether the image in dir cannot make filesystem fs (its mkfs tools could
 * not be had for its architecture): true with why, from its manifest. */
bool lab_image_lacks_fs(const char *dir, const char *fs, char *why, size_t len);

/* The library packages of `apt-cache depends` output (text): the lib*
 * packages of its Depends and PreDepends lines, but libc6, once each. */
int lab_deb_lib_depends(const char *text, struct strv *out);

#endif
