/* A distribution guest (issue 32): a bootable qcow2 disk of a real
 * distribution made from its own packages with debootstrap, with systemd,
 * an SSH server, the distribution's kernel, and the lab's vmbench agent as
 * a systemd service started after the network, which has the lab's static
 * address on the tap link (src/lab/qemu.h LAB_NET_GUEST). No loop device
 * and no mount: the tree becomes an ext4 filesystem with `mke2fs -d` and
 * then a qcow2 with `qemu-img convert`; QEMU boots it with the kernel and
 * initrd taken out of the tree's /boot (direct kernel boot).
 *
 * The distributions are rows of LAB_DISTROS; what is written into the tree
 * is a table of files (lab_distro_files), each from a function of the
 * image's parameters, so that the unit tests see the same text the guest
 * gets. */
#ifndef VMB_LAB_DISTRO_H
#define VMB_LAB_DISTRO_H

#include <stddef.h>

#include "../core/util.h"

/* The root filesystem's label: the kernel's root=LABEL=, and fstab's. */
#define LAB_DISTRO_ROOT_LABEL "vmbench-root"
/* Where the guest's vmbench and its libraries go in the tree. */
#define LAB_DISTRO_VMBENCH "/usr/local/bin/vmbench"
#define LAB_DISTRO_LIBDIR "/usr/local/lib/vmbench"
/* The database and user a distribution image's MariaDB gets at boot for
 * app.oltp_* (the matrix key db=mariadb): a server of the guest's own,
 * reached only through its unix socket, so the password guards nothing
 * and is fixed. */
#define LAB_DISTRO_DB_NAME "vmbench"
#define LAB_DISTRO_DB_USER "vmbench"
#define LAB_DISTRO_DB_PASS "vmbench"
/* The root filesystem's size (a qcow2 holds only the blocks written). */
#define LAB_DISTRO_DISK_SIZE "8G"
/* How long debootstrap may take (a cold cache downloads ~150 MB). */
#define LAB_DISTRO_BOOTSTRAP_S 3600

/* X(name, suite, mirror, packages): the distributions `lab image --distro`
 * builds. packages: what every image holds beyond debootstrap's minbase,
 * space-separated; the kernel's package is named by the architecture
 * (linux-image-ARCH, Debian's name). */
#define LAB_DISTROS(X)                                                                                   \
	X("debian", "bookworm", "http://deb.debian.org/debian",                                          \
	  "systemd systemd-sysv udev dbus openssh-server iproute2 initramfs-tools")

struct lab_distro {
	const char *name, *suite, *mirror, *packages;
};

/* The row named name, or NULL. */
const struct lab_distro *lab_distro_find(const char *name);
/* Where debootstrap's .debs of distribution d for arch (x86_64, aarch64)
 * are kept in the lab's cache: CACHE/debootstrap-SUITE-DEBARCH. */
void lab_distro_debs_dir(const char *cache, const struct lab_distro *d, const char *arch, char *out, size_t len);
/* "debian|...": the names, for --distro's choices. */
#define LAB_DISTRO_CHOICE(n, ...) "|" n
#define LAB_DISTRO_CHOICES (LAB_DISTROS(LAB_DISTRO_CHOICE) + 1)

/* What an image is built from: every input of the cache key. */
struct lab_distro_opts {
	const struct lab_distro *d;
	const char *arch;     /* x86_64 or aarch64 */
	const char *cache;    /* the lab cache: .debs, the lab's SSH key */
	const char *out;      /* where root.qcow2, vmlinuz, initrd.img, manifest.json go */
	const char *packages; /* --distro-packages: more packages, comma-separated; NULL: none */
	const char *vmbench;  /* the guest's vmbench, built for arch */
	const char *pubkeys;  /* the SSH public keys the guest's root accepts, one a line */
};

/* The packages debootstrap --include= installs: the row's, the kernel's for
 * the architecture (Debian's name deb), then extra's (comma-separated),
 * each once. -EINVAL with err for a name that is no Debian package name
 * (lowercase letters, digits, + - ., two characters or more, a letter or
 * digit first), or a package given twice. */
int lab_distro_packages(const struct lab_distro *d, const char *deb, const char *extra, struct strv *out, char *err,
			size_t errlen);

/* A file the image writes into the tree: its path there, mode, and text. */
struct lab_distro_file {
	const char *path;
	unsigned mode;
	char *(*text)(const struct lab_distro_opts *o); /* malloc'd; NULL: out of memory */
	bool seed; /* written before debootstrap: read by the packages' scripts as they install */
};
extern const struct lab_distro_file lab_distro_files[];
extern const size_t lab_distro_nfiles;

/* The cache key: one string per input, in a fixed order (the manifest's
 * "inputs"); an image whose manifest has the same strings is up to date.
 * vmbench_id: the guest vmbench's path, size and time (a rebuilt binary
 * rebuilds the image); debootstrap: its version. -ENOMEM, or -EINVAL for
 * packages lab_distro_packages refuses. */
int lab_distro_inputs(const struct lab_distro_opts *o, const char *vmbench_id, const char *debootstrap,
		      struct strv *out);

/* The filesystem tree at tree made an ext4 filesystem labelled
 * LAB_DISTRO_ROOT_LABEL of size (mke2fs -d, in a raw file beside qcow2),
 * then the qcow2 image qcow2 (a new file; the raw file is removed). 0, or
 * a negative errno with err (the tool's last words). */
int lab_distro_assemble(const char *tree, const char *size, const char *qcow2, char *err, size_t errlen);

/* The lab's SSH key pair in cache (cache/ssh/id_ed25519, made with
 * ssh-keygen when absent: the user's ~/.ssh is never written); its public
 * half into *pub (owned). 0, or a negative errno with err. */
int lab_distro_ssh_key(const char *cache, char **pub, char *err, size_t errlen);

/* An SSH server's identification (RFC 4253 4.2) at the start of what it
 * sent (buf, len bytes, not NUL-terminated): lines before it that do not
 * start with "SSH-" are skipped, as the RFC lets a server send them; the
 * line must be SSH-2.0-... or SSH-1.99-..., printable ASCII, at most 255
 * bytes with its CR LF. 1 with the line (without CR LF) in version, 0 when
 * more bytes are needed, -EPROTO for anything else (also no banner within
 * 8 KiB). */
#define LAB_SSH_PORT 22
int lab_ssh_banner(const char *buf, size_t len, char *version, size_t vlen);

/* Build the image, or find it up to date (*rebuilt 0). err says what failed. */
int lab_distro_build(const struct lab_distro_opts *o, int *rebuilt, char *err, size_t errlen);

#endif
