/* QEMU's process as the lab runs it: started (a process group of its own
 * that dies with this process, tracked in the lab's registry, procs.h) and
 * its vCPU threads found and pinned. The back end's layer: the lab run and
 * vmops start their QEMUs here. */
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
/* The host threads that run the vCPUs of the QEMU whose QMP socket is
 * qmp, as QMP's query-cpus-fast names them: how many distinct ones in
 * *nthreads (when not NULL; tcg=single runs every vCPU on one, tcg=multi
 * and KVM one each), and with pin, vCPU thread i pinned to host CPU i
 * (round robin). Only a failed pinning is an error: without pin, a failed
 * query leaves *nthreads as it was. */
int lab_vcpu_threads(const char *qmp, bool pin, unsigned *nthreads, char *err, size_t errlen);

#endif
