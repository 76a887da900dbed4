/* One configuration's run: its boots (labboot.h) timed, the guest checked
 * (labcheck.h), its items run in the first boot (labitems.h), the
 * host-measured suites of its rows (hostmeasure.h), one result document;
 * and a guest kept booted for lab contend. The layer under the verbs and
 * lab contend; it calls only downward. */
#ifndef VMB_LABRUN_H
#define VMB_LABRUN_H

#include <jansson.h>
#include <stdbool.h>
#include <sys/types.h>

#include "hostmeasure.h" /* lab_item_suite, lab_host_measured */
#include "labitems.h"     /* lab_host_cpu_attach, lab_write_amplification */
#include "labopts.h"      /* struct lab_run_opts */
#include "matrix.h"
#include "../core/suite.h"


/* What a failed configuration leaves beside err's reason: the step that
 * failed ("prepare", "boot", "pin vCPUs", "check the guest", "run ITEM",
 * "warm boot N", "shut down") and the evidence of the failed boot, the
 * guest's console and QEMU's stdout and stderr (owned; NULL: none), for the
 * caller to keep. The work directory they were in is removed. */
struct lab_failure {
	char step[96];
	char *console, *qemu_log;
	bool final; /* QEMU stopped the guest for good (KVM could not run it): booting again cannot help */
};
void lab_failure_release(struct lab_failure *f);

/* Run one configuration. On success *doc is its result; on failure err says
 * why with the last console lines, and *f the step and the evidence (release
 * it either way). -EOPNOTSUPP: QEMU cannot build it (skip). */
int lab_run_config(const struct lab_config *c, const struct lab_run_opts *o, json_t **doc, struct lab_failure *f,
		   char *err, size_t errlen);

/* One guest booted and kept for a caller that drives it (lab contend
 * runs several at once). lab_guest_spawn starts its QEMU, from the thread
 * that outlives it (QEMU dies with the thread that forked it:
 * PR_SET_PDEATHSIG); lab_guest_ready, which may run in a thread of its
 * own, waits for its HELLO, finds its vCPU threads and checks it (f: the
 * evidence of a failure). No suite is run. lab_guest_stop ends it either way. */
struct lab_guest;
int lab_guest_spawn(const struct lab_config *c, const struct lab_run_opts *o, struct lab_guest **out, char *err,
		    size_t errlen);
int lab_guest_ready(struct lab_guest *g, struct lab_failure *f, char *err, size_t errlen);
pid_t lab_guest_pid(const struct lab_guest *g);
/* Its control address on the session's back end (what the row's open takes). */
const char *lab_guest_ctl(const struct lab_guest *g);
/* Its vCPU threads as QMP named them at its start (repeats possible: tcg=single), borrowed. */
size_t lab_guest_vcpus(const struct lab_guest *g, const int **tids);
/* The options the guest's RUN of item gets (the lab run's own and what
 * the lab adds), a new object; NULL: out of memory. */
json_t *lab_guest_opts(const struct lab_guest *g, const struct lab_run_opts *o, const char *item);
/* The guest's network path started, in its configuration's direction
 * (labnet.h), for the net items later runs measure over it; -EOPNOTSUPP
 * with err's reason when its NIC has no link to the host. */
int lab_guest_net_start(struct lab_guest *g, char *err, size_t errlen);
/* LOAD pct in the guest's agent (0 stops it): *asked and *got, what the
 * load it stopped was asked and got (NaN: not known), as proto_host_load. */
int lab_guest_load(struct lab_guest *g, unsigned pct, unsigned *asked, double *got, char *err, size_t errlen);
/* RUN item with opts and wait for its result (bounded as lab run's), with
 * QEMU's CPU over it in its notes: *doc, or err. A net item with the
 * network path started is measured over it (lab_net_run). */
int lab_guest_run(struct lab_guest *g, const char *item, const json_t *opts, json_t **doc, char *err, size_t errlen);
/* BYE when clean (else QEMU is killed), QEMU reaped, its files removed, g freed. */
int lab_guest_stop(struct lab_guest *g, bool clean, char *err, size_t errlen);

/* Kill every process the lab started (procs.h), remove every work
 * directory it holds (workdir.h) and the registered temporary files
 * (core/tempfile.h: an ISO's staging tree): async-signal-safe. */
void lab_kill_all(void);

#endif
