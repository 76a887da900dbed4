/* The QEMU row's functions shared by its two files (hv_qemu.c: boot,
 * channel, QMP connection, balloon; hv_qemu_move.c: migrate, save and
 * restore, snapshot, savevm). Only the row's own files include it. */
#ifndef VMB_LAB_HV_QEMU_H
#define VMB_LAB_HV_QEMU_H

#include "hv.h"

#define LAB_HV_QEMU_QMP_MS 10000 /* a QMP command's bound */

struct qmp;
int lab_hv_qemu_open(const char *ctl, int timeout_ms, struct lab_hv_mon **out, char *why, size_t len);
void lab_hv_qemu_close(struct lab_hv_mon *m);
struct qmp *lab_hv_qemu_qmp(struct lab_hv_mon *m);

int lab_hv_qemu_migrate(struct lab_vm *vm, const struct lab_hv_move *how, struct lab_hv_moved *out, bool *lost,
			char *why, size_t len);
int lab_hv_qemu_save_restore(struct lab_vm *vm, const struct lab_hv_move *how, struct lab_hv_moved *out,
			     bool *lost, char *why, size_t len);
int lab_hv_qemu_snapshot(struct lab_vm *vm, const char *overlay, double *secs, char *why, size_t len);
int lab_hv_qemu_commit(struct lab_vm *vm, double timeout_s, double *secs, char *why, size_t len);
int lab_hv_qemu_savevm(struct lab_vm *vm, const char *tag, double *save_s, double *load_s, char *why, size_t len);

#endif
