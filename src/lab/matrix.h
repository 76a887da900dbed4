/* The lab's configuration matrix and the QEMU command line of each
 * configuration. "accel=tcg arch=x86_64,aarch64 disk=ide,virtio-blk smp=1,2
 * mem=512M pin=off" expands to every combination, in the order given. */
#ifndef VMB_MATRIX_H
#define VMB_MATRIX_H

#include <stddef.h>

#include "../core/util.h"

enum lab_key { LAB_ACCEL, LAB_ARCH, LAB_DISK, LAB_NIC, LAB_SMP, LAB_MEM, LAB_PIN, LAB_NKEYS };

/* One configuration: a value for every key (defaults for keys not given). */
struct lab_config {
	char v[LAB_NKEYS][32];
};

struct lab_matrix {
	struct lab_config *configs;
	size_t n;
	unsigned given; /* bit k: key k appeared in the matrix (it labels the results) */
};

const char *lab_key_name(enum lab_key k);
/* Parse and expand. On a bad key or value, err lists the valid ones. */
int lab_matrix_parse(const char *spec, struct lab_matrix *m, char *err, size_t errlen);
void lab_matrix_release(struct lab_matrix *m);

/* Where a configuration's files are. */
struct lab_paths {
	const char *kernel, *initrd, *disk, *disk_format, *disk_cache, *qmp_socket, *agent_socket, *console_log;
};

/* NULL when QEMU can build this configuration, else why it cannot. */
const char *lab_config_unsupported(const struct lab_config *c);
/* The QEMU command line; -EOPNOTSUPP with *why when QEMU cannot build this
 * combination (a controller the machine type lacks). */
int lab_qemu_argv(const struct lab_config *c, const struct lab_paths *p, struct strv *argv, const char **why);
/* The guest driver that must appear behind the disk of this configuration. */
const char *lab_expected_disk_driver(const struct lab_config *c);

#endif
