/* The filesystem on the device under test (the matrix key fs, rows of
 * LAB_FILESYSTEMS in matrix.h): the scratch disk's size that holds it, the
 * guest agent's mkfs and mount (the protocol's PREPARE), and the same
 * description of where the host baseline's files go, so that the guest's
 * and the host's documents say alike what their file tests ran on. */
#ifndef VMB_LAB_FS_H
#define VMB_LAB_FS_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "../lab/matrix.h"

/* What the guest's file tests say when there is no filesystem (fs=none). */
#define LAB_FS_NONE_REASON "fs=none: no filesystem on the device under test"
/* How long the guest may take to make and mount one (TCG, an emulated IDE). */
#define LAB_FS_PREPARE_MS 600000

/* The scratch disk behind a configuration with filesystem fs (NULL: the raw
 * device, test_size itself): room for the test file of test_size (the host
 * tests one of that size), iozone's file beside it and the filesystem's own
 * blocks, and at least the smallest filesystem its mkfs makes. */
uint64_t lab_fs_disk_size(const struct lab_fs *fs, uint64_t test_size);

/* Make fs on device (a block device nothing has mounted) and mount it at
 * mountpoint (created): *out is the PREPARED record (docs/agent-protocol.md).
 * 0, or a negative errno with err. */
int lab_fs_make(const struct lab_fs *fs, const char *device, const char *mountpoint, json_t **out, char *err,
		size_t errlen);
/* Mount share (a row of LAB_SHARES) by its tag LAB_SHARE_TAG at
 * mountpoint (created): *out is the PREPARED record, without mkfs. 0, or a
 * negative errno with err. */
int lab_fs_mount_share(const struct lab_share *share, const char *mountpoint, json_t **out, char *err, size_t errlen);
/* Unmount what lab_fs_make or lab_fs_mount_share mounted there and remove
 * the directory. */
void lab_fs_unmount(const char *mountpoint);

/* What dir is on, from the mount table: {type, device, mountpoint,
 * mount_options, size_bytes}. 0, or a negative errno with err. */
int lab_fs_describe(const char *dir, json_t **out, char *err, size_t errlen);

#endif
