/* The QEMU command line of a lab configuration: the machine, the guest's
 * kernel and channels, and for each device key (disk, nic) the model's
 * -device arguments (src/lab/matrix.h) on top of a back end's arguments.
 *
 * A back end is what a device model sits on, on the host side: a disk image
 * file, a qcow2 image, QEMU's user networking. One row each of LAB_BACKENDS:
 *   X(KEY, name, args, guest_list, guest_what, setup, teardown)
 * KEY: the matrix key whose devices sit on it. args: its QEMU arguments,
 * with the id the device rows name (drive=d0, netdev=n0). guest_list,
 * guest_what: what the guest sees of it, the fingerprint list the device
 * shows in ("block_devices", "network") and its word in messages. setup,
 * teardown: what the host does before QEMU starts and after it is gone
 * (NULL: nothing). Adding a back end (a host block device, 9p or virtiofs
 * for a share key, tap networking) is one row here and its functions in
 * qemu.c: the command line, the checks of what the guest sees and the
 * choices of --disk-format follow from the rows. */
#ifndef VMB_QEMU_H
#define VMB_QEMU_H

#include <stdint.h>

#include "matrix.h"
#include "../core/util.h"

#define LAB_BACKENDS(X)                                                                                \
	X(LAB_DISK, "raw", drive_args, "block_devices", "disk", raw_create, NULL)                      \
	X(LAB_DISK, "qcow2", drive_args, "block_devices", "disk", qcow2_create, NULL)                  \
	X(LAB_NIC, "user", user_net_args, "network", "network card", NULL, NULL)

/* "raw|qcow2": the back ends of the disk key, for --disk-format's choices */
#define LAB_BACKEND_CHOICES(key) (LAB_BACKENDS(LAB_BACKEND_IF_##key) + 1)
#define LAB_BACKEND_IF_LAB_DISK(k, n, ...) LAB_BACKEND_PICK_LAB_DISK_##k(n)
#define LAB_BACKEND_PICK_LAB_DISK_LAB_DISK(n) "|" n
#define LAB_BACKEND_PICK_LAB_DISK_LAB_NIC(n)

/* Where a configuration's files are, and its back ends. */
struct lab_paths {
	const char *kernel, *initrd, *disk, *disk_cache, *qmp_socket, *agent_socket, *console_log;
	uint64_t disk_size;              /* of the scratch disk a back end's setup creates */
	const char *backend[LAB_NKEYS]; /* by name; NULL: the key's first row */
};

struct lab_args; /* the command line being built, behind one error check */
struct lab_backend {
	enum lab_key key;
	const char *name;
	/* 1 when it pushed its arguments, 0 when there is nothing to attach (no disk image) */
	int (*args)(struct lab_args *a, const struct lab_backend *be, const struct lab_paths *p);
	const char *guest_list, *guest_what;
	int (*setup)(const struct lab_backend *be, const struct lab_paths *p, char *why, size_t len);
	void (*teardown)(const struct lab_backend *be, const struct lab_paths *p);
};

extern const struct lab_backend lab_backends[];
extern const size_t lab_nbackends;

/* The back end of key that p names, or NULL when it names none of key's. */
const struct lab_backend *lab_backend_of(const struct lab_paths *p, enum lab_key key);
/* Set up the back ends of the configuration's devices (the scratch disk);
 * on failure the ones set up are torn down and why says what failed. */
int lab_backends_setup(const struct lab_config *c, const struct lab_paths *p, char *why, size_t len);
void lab_backends_teardown(const struct lab_config *c, const struct lab_paths *p);

/* The QEMU command line; -EOPNOTSUPP with why when QEMU cannot build this
 * combination (a controller the machine type lacks), -ENOMEM. */
int lab_qemu_argv(const struct lab_config *c, const struct lab_paths *p, struct strv *argv, char *why, size_t len);

#endif
