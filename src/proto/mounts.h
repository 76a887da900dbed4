/* What the guest makes and mounts for its file tests, a fact both sides of
 * the agent protocol check (PREPARE names them): the filesystems of the
 * scratch disk (the matrix key fs) and the shared folders (the key share).
 * The lab's plan (src/lab/matrix.h) and the guest's agent read the same
 * rows. */
#ifndef VMB_PROTO_MOUNTS_H
#define VMB_PROTO_MOUNTS_H

#include <stddef.h>

/* X(name, package, files, mkfs, version, modules, min size)
 * The filesystems the guest makes on the scratch disk behind the disk key
 * (fs=none: none, the raw device). name: the value of the fs key and the
 * type mount(2) takes. package: the Debian package that has the mkfs
 * program, fetched for the image's architecture as the kernel is. files:
 * what the image takes of it (paths inside the package, each after a space;
 * the first is the program). mkfs: the program's arguments before the device.
 * version: the argument that makes it print its version. modules: what the
 * guest image loads for it (ext4's checksums need the crc32c cipher, which
 * is no module dependency). min size: the smallest filesystem the program
 * makes (xfsprogs 5.19 and later refuse one under 300 MB), in MiB. */
#define LAB_FILESYSTEMS(X)                                                                                       \
	X("ext4", "e2fsprogs", " sbin/mke2fs etc/mke2fs.conf",                                                   \
	  "-t ext4 -F -q -E lazy_itable_init=0,lazy_journal_init=0", "-V", "ext4 crc32c_generic", 0)              \
	X("xfs", "xfsprogs", " sbin/mkfs.xfs", "-f -q", "-V", "xfs crc32c_generic", 300)

#define LAB_FS_NAME(n, ...) " " n
#define LAB_FS_NAMES LAB_FILESYSTEMS(LAB_FS_NAME)

/* The shared folders (the share key): a host directory of the lab's, in
 * the guest at the mount tag LAB_SHARE_TAG. Their QEMU devices are rows of
 * LAB_DEVICES (key LAB_SHARE), their host sides rows of LAB_BACKENDS of
 * the same names (src/lab/qemu.h), and how the guest mounts each is a row
 * here: X(name, type, options), type and data as mount(2) takes them.
 * 9p: the 9P2000.L dialect (Linux's own: the file modes and links a test
 * file needs), no guest cache (each read and write goes to the host, as
 * the file tests mean to measure), 512 KiB messages (the kernel's default
 * 8 KiB would split every test block into many requests). virtiofs: the
 * tag alone; the caching is virtiofsd's (cache=auto). With a share, the
 * storage suites' file tests run on it and no filesystem is made on the
 * scratch disk (the fs key stays at its default). */
#define LAB_SHARE_TAG "vmbench"
#define LAB_SHARES(X)                                                      \
	X("9p", "9p", "trans=virtio,version=9p2000.L,cache=none,msize=524288") \
	X("virtiofs", "virtiofs", "")

struct lab_fs {
	const char *name, *package, *files, *mkfs, *version, *modules;
	unsigned min_mib;
};

extern const struct lab_fs lab_filesystems[];
extern const size_t lab_nfilesystems;

struct lab_share {
	const char *name, *type, *options;
};

extern const struct lab_share lab_shares[];
extern const size_t lab_nshares;

/* The row of a share model (how the guest mounts it); NULL for none. */
const struct lab_share *lab_share_find(const char *name);
/* The row of a filesystem name; NULL for none or an unknown one. */
const struct lab_fs *lab_fs_find(const char *name);

#endif
