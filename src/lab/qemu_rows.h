/* The functions of LAB_BACKENDS rows (src/lab/qemu.h) defined outside
 * qemu.c, where the table is: the share back ends (qemu_share.c). Internal
 * to the QEMU back end. */
#ifndef VMB_QEMU_ROWS_H
#define VMB_QEMU_ROWS_H

#include "qemu.h"

int lab_share_9p_args(struct lab_args *a, const struct lab_backend *be, const struct lab_config *c,
		      const struct lab_paths *p);
int lab_share_9p_setup(const struct lab_backend *be, const struct lab_paths *p, char *why, size_t len);
int lab_share_virtiofs_args(struct lab_args *a, const struct lab_backend *be, const struct lab_config *c,
			    const struct lab_paths *p);
int lab_share_virtiofs_setup(const struct lab_backend *be, const struct lab_paths *p, char *why, size_t len);
void lab_share_teardown(const struct lab_backend *be, const struct lab_paths *p);

#endif
