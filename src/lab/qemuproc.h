/* QEMU's process as the lab runs it: started (a process group of its own
 * that dies with this process, tracked in the lab's registry, procs.h).
 * The QEMU row of the hypervisor back ends (hv_qemu.c) starts its QEMUs
 * here; the exit status a failed child's part gives is read by the boot. */
#ifndef VMB_LAB_QEMUPROC_H
#define VMB_LAB_QEMUPROC_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "matrix.h"

/* QEMU's exit status when a key's or a back end's part in its child failed */
#define LAB_CHILD_FAILED 125

struct lab_paths;
struct strv;
/* Start QEMU (argv) as the lab starts each: a process group of its own
 * that dies with this process, what the configuration's keys and back
 * ends do in its child, its stdout and stderr into log (a new file); it is
 * tracked (lab_procs_kill_all) until it is reaped. 0 or a negative errno. */
int lab_spawn(const struct lab_config *c, const struct lab_paths *p, const struct strv *argv, const char *log,
	      pid_t *pid);
#endif
