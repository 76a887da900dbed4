/* The vmops suite as the lab measures it (src/suites/vmops.h declares it):
 * the guest is moved from the QEMU it runs in to a second QEMU of the same
 * configuration, started with -incoming: live (migrate, over a Unix socket
 * in the boot's work directory, pre-copy or post-copy, the guest idle or
 * writing its memory), or stopped, saved to a file and restored from it
 * (saverestore); or its scratch disk gets an external snapshot, a qcow2
 * overlay, committed back after the guest wrote to it (snapshot); or the
 * whole VM is saved into its qcow2 disk and reverted to (savevm). QEMU's
 * own figures come from query-migrate; the host
 * times what QEMU does not, and checks that the guest's agent answers in
 * the QEMU it ends in. Every QMP call and wait is bounded; the QEMU left
 * behind is quit and reaped, the files of both are in the work directory
 * and removed with it. */
#ifndef VMB_LAB_VMOPS_H
#define VMB_LAB_VMOPS_H

#include <jansson.h>
#include <stdbool.h>
#include <sys/types.h>

#include "matrix.h"
#include "proto_host.h"
#include "hv.h"
#include "qemu.h"

struct lab_vmops {
	struct lab_vm *vm;
	const json_t *run_opts;  /* the lab run's options (vmops.mode ...; the suite's defaults where absent) */
	const json_t *fp;        /* the guest's HELLO fingerprint */
	const json_t *load_opts;  /* the options of the guest's RUN of VMOPS_LOAD */
	const json_t *clock_opts; /* and of VMOPS_CLOCK */
	const json_t *write_opts; /* and of VMOPS_WRITE, on the scratch disk */
	bool migrate, saverestore, snapshot, savevm; /* which tests were asked */
	const char *no_move;     /* non-NULL: why the guest cannot move (migrate, saverestore skipped) */
};

/* Why this configuration's guest cannot be moved to a second QEMU (a
 * share's daemon, a tap in a namespace of the first QEMU's own), or NULL:
 * its migrate and saverestore are skipped with it. */
const char *lab_vmops_unsupported(const struct lab_config *c, const struct lab_paths *p);

/* Measure: the vmops suite's result, a suite object of a document, in
 * *suite. A failed test is in it as failed with why; err is for what ends
 * the boot (the guest lost: its agent's channel broken, a restore failed). */
int lab_vmops_measure(struct lab_vmops *v, json_t **suite, char *err, size_t errlen);

#endif
