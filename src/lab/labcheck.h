/* A booted guest checked against its configuration: its architecture,
 * CPUs and topology, firmware, and behind each device key's model the
 * driver the device table names (with a NIC's link and queues), from its
 * HELLO fingerprint. Pure: it reads the fingerprint and the plan. */
#ifndef VMB_LAB_LABCHECK_H
#define VMB_LAB_LABCHECK_H

#include <jansson.h>
#include <stddef.h>

#include "matrix.h"
#include "qemu.h"

/* 0, or why in err; *scratch: the block device behind the disk key. */
int lab_check_guest(const struct lab_config *c, const json_t *fp, const struct lab_paths *paths, const char **scratch,
		    char *err, size_t errlen);

#endif
