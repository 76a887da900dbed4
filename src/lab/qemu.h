/* The QEMU command line of a lab configuration: the machine, the guest's
 * kernel and channels, and for each device key (disk, nic) the model's
 * -device arguments (src/lab/matrix.h) on top of a back end's arguments.
 *
 * A back end is what a device model sits on, on the host side: a disk image
 * file, a qcow2 image, a tap device in a network namespace of its own,
 * QEMU's user networking. One row each of LAB_BACKENDS:
 *   X(KEY, name, file, args, guest_list, guest_what, setup, teardown, usable, child, host_addr, guest_addr)
 * KEY: the matrix key whose devices sit on it. file: IMAGE_FILE for an
 * image file of --disk-format's (its setup creates one), NOT_FILE for the
 * others (a host block device, a tap, a directory). args: its QEMU arguments,
 * with the id the device rows name (drive=d0, netdev=n0). guest_list,
 * guest_what: what the guest sees of it, the fingerprint list the device
 * shows in ("block_devices", "network") and its word in messages. setup,
 * teardown: what the host does before QEMU starts and after it is gone
 * (NULL: nothing). usable: whether this host can use it (NULL: always; a
 * key's first usable row is its default). child: what QEMU's own forked
 * child does before exec (NULL: nothing): the tap rows make the network
 * namespace and the tap there, so that both die with QEMU, even of
 * SIGKILL. host_addr, guest_addr: the two ends of the private link the
 * guest's NIC is on (NULL: the guest's NIC is not configured). Adding a
 * back end (a host block device, 9p or virtiofs for a share key) is one row
 * here and its functions in qemu.c: the command line, the checks of what
 * the guest sees and the choices of --disk-format follow from the rows. */
#ifndef VMB_QEMU_H
#define VMB_QEMU_H

#include <stdint.h>
#include <sys/types.h>

#include "matrix.h"
#include "../core/util.h"

/* The private link of a tap back end: the same two addresses in every
 * configuration, as each is in a network namespace of its own. */
#define LAB_NET_HOST "10.251.0.1"
#define LAB_NET_GUEST "10.251.0.2"
/* memcached's port in an image that has it (src/lab/distro_files.c), which
 * the host's net.memcached loads with netdir=guest-server (labnet.c) */
#define LAB_MEMCACHED_PORT 11211
#define LAB_NET_PREFIX "30"
#define LAB_TAP_FD 10 /* the tap's descriptor in QEMU: -netdev tap,fd=10 */
/* The devices of the links in QEMU's namespace: the taps (vmbtap0, and
 * vmbtap1... with several NICs), their bridge (several NICs), the ifb
 * devices that shape what the guest sends (linkrate); and the MAC address
 * of NIC i with several NICs, LAB_NIC_MAC and i in two hex digits */
#define LAB_TAP_NAME "vmbtap"
#define LAB_BRIDGE_NAME "vmbbr0"
#define LAB_IFB_NAME "vmbifb"
#define LAB_NIC_MAC "52:54:00:6e:69:"

#define LAB_BACKENDS(X)                                                                                           \
	X(LAB_DISK, "raw", IMAGE_FILE, drive_args, "block_devices", "disk", raw_create, NULL, NULL, NULL, NULL, NULL) \
	X(LAB_DISK, "qcow2", IMAGE_FILE, drive_args, "block_devices", "disk", qcow2_create, NULL, NULL, NULL, NULL,    \
	  NULL)                                                                                                   \
	X(LAB_DISK, "block", NOT_FILE, drive_args, "block_devices", "disk", block_setup, block_teardown, block_usable, \
	  NULL, NULL, NULL)                                                                                       \
	X(LAB_NIC, "tap+vhost", NOT_FILE, tap_vhost_args, "network", "network card", NULL, NULL, vhost_usable,        \
	  tap_child, LAB_NET_HOST, LAB_NET_GUEST "/" LAB_NET_PREFIX)                                              \
	X(LAB_NIC, "tap", NOT_FILE, tap_args, "network", "network card", NULL, NULL, tap_usable, tap_child,           \
	  LAB_NET_HOST, LAB_NET_GUEST "/" LAB_NET_PREFIX)                                                         \
	X(LAB_NIC, "user", NOT_FILE, user_net_args, "network", "network card", NULL, NULL, NULL, NULL, NULL, NULL)   \
	X(LAB_BALLOON, "guest-ram", NOT_FILE, guest_ram_args, "balloon", "memory balloon", NULL, NULL, NULL, NULL,   \
	  NULL, NULL)                                                                                             \
	X(LAB_SHARE, "9p", NOT_FILE, lab_share_9p_args, "shares", "shared folder", lab_share_9p_setup,              \
	  lab_share_teardown, NULL, NULL, NULL, NULL)                                                             \
	X(LAB_SHARE, "virtiofs", NOT_FILE, lab_share_virtiofs_args, "shares", "shared folder",                      \
	  lab_share_virtiofs_setup, lab_share_teardown, NULL, NULL, NULL, NULL)

/* "raw|qcow2": the disk key's back ends that are image files (their file
 * column IMAGE_FILE, the struct's image_file), for --disk-format's
 * choices (backend=file); the disk's other rows (block) are values of the
 * matrix key backend. */
#define LAB_BACKEND_CHOICES(key) (LAB_BACKENDS(LAB_BACKEND_IF_##key) + 1)
#define LAB_BACKEND_IF_LAB_DISK(k, n, file, ...) LAB_BACKEND_PICK_LAB_DISK_##k(LAB_BACKEND_CHOICE_##file(n))
#define LAB_BACKEND_PICK_LAB_DISK_LAB_DISK(n) n
#define LAB_BACKEND_CHOICE_IMAGE_FILE(n) "|" n
#define LAB_BACKEND_CHOICE_NOT_FILE(n)
#define LAB_BACKEND_IS_IMAGE_FILE true
#define LAB_BACKEND_IS_NOT_FILE false
#define LAB_BACKEND_PICK_LAB_DISK_LAB_NIC(n)
#define LAB_BACKEND_PICK_LAB_DISK_LAB_BALLOON(n)
#define LAB_BACKEND_PICK_LAB_DISK_LAB_SHARE(n)

/* The share back ends (a share model's host side is the back end of its
 * own name): the host directory, virtiofsd's socket and its stderr, in the
 * work directory; and the program, Debian's (QEMU 7.2 ships it). */
#define LAB_SHARE_DIR "share"
#define LAB_SHARE_SOCKET "virtiofsd.sock"
#define LAB_SHARE_LOG "virtiofsd.log"
#define LAB_VIRTIOFSD "/usr/lib/qemu/virtiofsd"
/* How long virtiofsd may take to make its socket */
#define LAB_VIRTIOFSD_START_MS 10000

/* What QEMU opens as the scratch disk, as the disk's back end set it up:
 * the file (an image, or a host block device) and its format; the loop
 * device of backend=block is held open here until QEMU is gone (fd). */
struct lab_host_disk {
	char file[200];
	const char *format;
	int fd;         /* -1: none held */
	int direct_io;  /* backend=block: the loop device reads and writes its file with O_DIRECT (1), through the
			   host's page cache (0); -1: no loop device */
};

/* Where a configuration's files are, and its back ends. */
struct lab_paths {
	const char *kernel, *initrd, *disk, *disk_cache, *qmp_socket, *agent_socket, *console_log;
	const char *modules;             /* "a.ko,b.ko" the guest loads; NULL or "": every one it has */
	const char *fw_vars;             /* the firmware's variable store of this boot (a copy) */
	uint64_t disk_size;              /* of the scratch disk a back end's setup creates */
	const char *backend[LAB_KEYS_MAX]; /* by name; NULL: the key's first row */
	const char *overlay;             /* snapshot=on: the qcow2 overlay to create over the disk */
	struct lab_host_disk *host_disk; /* written by the disk's back end (NULL: p->disk, the row's format) */
	const char *work_dir;            /* the boot's own directory: a share's files go in it */
	const char *arch;                /* the guest's: which QEMU a back end asks what it has */
	pid_t *share_helper;             /* where a share back end keeps its process (virtiofsd), 0: none */
	const char *root_disk;           /* a distribution image's root disk (never written: snapshot=on); NULL: none */
	const char *boot_file;           /* the boot row's file (the ISO) in the image's directory; NULL: none */
	const char *tap_name;            /* the tap a hypervisor opens by name (lablink.h); NULL: QEMU's child makes it */
};

/* The command line being built: every argument through one error check,
 * a failed push failing the whole line (lab_push). */
struct lab_args {
	struct strv *a;
	int r;
};
void lab_push(struct lab_args *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* How a value sits in an option list KEY=VALUE,KEY=VALUE: QEMU's own
 * (-drive, -chardev, -fsdev, -qmp unix:) reads ",," as a comma of the
 * value; virtiofsd's -o (libfuse's) reads "\," and "\\". A path's comma
 * left as it is ends the value there. (A path that is an argument of its
 * own, -kernel or -serial file:, is taken whole: never escaped.) */
enum lab_opt_syntax { LAB_OPT_QEMU, LAB_OPT_FUSE };
/* in escaped for syntax into out: 0, or -ENAMETOOLONG (never cut short). */
int lab_opt_escape(enum lab_opt_syntax syntax, const char *in, char *out, size_t len);
/* The same for a push: out, or "" with the line failed (a->r) when it does not fit. */
const char *lab_arg_esc(struct lab_args *a, const char *in, char *out, size_t len);
/* The value of key in QEMU's option list s, its ",," read as a comma, into
 * out: 0, -ENOENT (no such key), or -ENAMETOOLONG. */
int lab_opt_get(const char *s, const char *key, char *out, size_t len);
struct lab_backend {
	enum lab_key key;
	const char *name;
	bool image_file; /* the file column: an image file of --disk-format's */
	/* 1 when it pushed its arguments, 0 when there is nothing to attach (no disk image),
	 * -EOPNOTSUPP when it cannot carry the configuration (several queues) */
	int (*args)(struct lab_args *a, const struct lab_backend *be, const struct lab_config *c,
		    const struct lab_paths *p);
	const char *guest_list, *guest_what;
	int (*setup)(const struct lab_backend *be, const struct lab_paths *p, char *why, size_t len);
	void (*teardown)(const struct lab_backend *be, const struct lab_paths *p);
	/* 0 when this host can use it, else a negative errno with why */
	int (*usable)(const struct lab_backend *be, char *why, size_t len);
	/* in QEMU's forked child, before exec: 0 or a negative errno (QEMU is not started) */
	int (*child)(const struct lab_backend *be, const struct lab_config *c);
	const char *host_addr, *guest_addr;
};

extern const struct lab_backend lab_backends[];
extern const size_t lab_nbackends;

/* The back end of key that p names, or NULL when it names none of key's. */
const struct lab_backend *lab_backend_of(const struct lab_paths *p, enum lab_key key);
/* The first row of key this host can use; NULL with why (the reasons of
 * the rows passed over) when none. why is also filled when a row was
 * passed over for a later one (tap not permitted: user networking). */
const struct lab_backend *lab_backend_pick(enum lab_key key, char *why, size_t len);
/* The keys of names not yet named whose model has a back end of its own
 * name (a share's host side: 9p, virtiofs): that one. */
void lab_backends_own(const struct lab_config *c, const char *names[LAB_KEYS_MAX]);
/* The tc and ip command lines that shape link i (its tap) to bps bit/s both
 * ways, appended to lines (src/lab/qemu.c says how): 0 or -ENOMEM. */
int lab_link_shaping(unsigned i, uint64_t bps, struct strv *lines);
/* The host's end of a tap back end's link, in this thread's network
 * namespace, where link i's device is vmbtapI (QEMU's tap, or the veth's
 * end a libvirt domain's tap is joined to, lablink.h): loopback up, the
 * host's address (be's host_addr) on vmbtap0, or with several NICs on
 * their bridge; each link shaped to c's linkrate (c NULL: none). 0, or a negative errno with why. */
int lab_link_host_end(const struct lab_backend *be, const struct lab_config *c, unsigned nics, char *why, size_t len);
/* One command line (words between single spaces: lab_link_shaping's, a
 * link's), run: 0, or -ECHILD with the line and what it said in why. */
int lab_run_line(const char *line, char *why, size_t len);
/* In QEMU's forked child: the children of the configuration's back ends. */
int lab_backends_child(const struct lab_config *c, const struct lab_paths *p);
/* In QEMU's forked child: what the configuration's keys do to QEMU's own
 * process (nice: its priority); 0, or a negative errno with why written
 * to stderr (QEMU's log). */
int lab_keys_child(const struct lab_config *c);
/* Every key row's QEMU arguments (its qemu column), in the order of the
 * rows: 0, or a negative errno with why. */
int lab_keys_qemu(struct lab_args *a, const struct lab_config *c, const struct lab_paths *p, char *why, size_t len);
/* The rows' qemu functions (src/lab/qemu_keys.c) */
int lab_qemu_arg_accel(struct lab_args *a, const struct lab_config *c, const struct lab_paths *p, char *why, size_t len);
int lab_qemu_arg_smp(struct lab_args *a, const struct lab_config *c, const struct lab_paths *p, char *why, size_t len);
int lab_qemu_arg_mem(struct lab_args *a, const struct lab_config *c, const struct lab_paths *p, char *why, size_t len);
int lab_qemu_arg_cpu(struct lab_args *a, const struct lab_config *c, const struct lab_paths *p, char *why, size_t len);
/* boot=: a row without QEMU's kernel boots the image's file (p->boot_file)
 * from a CD-ROM, first in the firmware's boot order */
int lab_qemu_arg_boot(struct lab_args *a, const struct lab_config *c, const struct lab_paths *p, char *why,
		      size_t len);
int lab_qemu_arg_firmware(struct lab_args *a, const struct lab_config *c, const struct lab_paths *p, char *why,
		      size_t len);
/* The rows' child functions */
int lab_child_nice(const struct lab_config *c);
/* The firmware's files of a boot: its variable store copied from the
 * row's template to p->fw_vars (new; the caller removes it with the work
 * directory). -EOPNOTSUPP with why when the firmware is not installed. */
int lab_firmware_setup(const struct lab_config *c, const struct lab_paths *p, char *why, size_t len);
/* Set up the back ends of the configuration's devices (the scratch disk);
 * on failure the ones set up are torn down and why says what failed. */
int lab_backends_setup(const struct lab_config *c, const struct lab_paths *p, char *why, size_t len);
void lab_backends_teardown(const struct lab_config *c, const struct lab_paths *p);

/* The disk's row that backend= names: backend=file the row of format
 * (--disk-format), another value the row of its name. */
const char *lab_disk_backend_name(const struct lab_config *c, const char *format);
/* The files a share back end made in work directory dir, removed: the
 * shared directory's tree (not following links), virtiofsd's socket and
 * the pid file it keeps in /run/virtiofsd. Async-signal-safe (a second
 * Ctrl-C's cleanup calls it); its process must be gone. */
void lab_share_remove(const char *dir);

/* The QEMU command line; -EOPNOTSUPP with why when QEMU cannot build this
 * combination (a controller the machine type lacks), -ENOMEM. */
int lab_qemu_argv(const struct lab_config *c, const struct lab_paths *p, struct strv *argv, char *why, size_t len);

#endif
