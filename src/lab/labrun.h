/* The lab run: boot each configuration of a matrix under QEMU, time the boot
 * phases, run the suites in the guest through the agent, and return one
 * result document per configuration. */
#ifndef VMB_LABRUN_H
#define VMB_LABRUN_H

#include <jansson.h>
#include <stdbool.h>
#include <sys/types.h>

#include "hostmeasure.h" /* lab_item_suite, lab_host_measured */
#include "matrix.h"
#include "../core/suite.h"

struct lab_run_opts {
	const char *image_dir;   /* vmlinuz, initrd.img */
	const char *cache;       /* the lab's cache: a distribution's .debs, which app.apt's mirror serves; NULL: none */
	const char *suites;      /* "cpu,disk,boot" */
	unsigned boots;          /* cold boots measured (the first also runs the suites) */
	/* the options of the guests' runs, as the agent protocol's RUN takes
	 * them (docs/agent-protocol.md): run-level keys ("quick", "time",
	 * "threads"...) and SUITE.OPTION keys ("cpu.max-prime"); each RUN gets
	 * the run-level keys and its own suite's. Borrowed; NULL: none */
	json_t *run_opts;
	bool progress;           /* draw the boot's and the guest's progress on stderr (a terminal, not -q) */
	const char *disk_size;   /* scratch disk attached through the configuration's controller */
	const char *disk_format; /* raw|qcow2 */
	const char *disk_cache;  /* QEMU cache mode */
	int hello_timeout_ms;
	const struct vmb_opt *run_table; /* `vmbench run`'s options: what the host's net client is checked against */
	const char *nic_backend;         /* the NIC's back end (a LAB_BACKENDS row); NULL: the first usable */
};

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
/* Host write amplification of one RUN: the bytes QEMU had written on the
 * host (its /proc/PID/io write_bytes) per byte the guest's device received
 * (the disk suite's note device_write_bytes). 0 with *amp when both counts
 * are finite and positive and so is the ratio; -EINVAL when it is not
 * measured (*amp untouched: no value is made up). */
int lab_write_amplification(double host_bytes, double guest_bytes, double *amp);

/* One interval of QEMU's CPU while a guest ran a RUN: the case the
 * guest's PROGRESS named at its start (ncase from 1, 0: none yet), its
 * test ("suite.test") and the number of the first case of that test the
 * guest named (a test's cases are numbered in a row); wall (monotonic s)
 * and CPU s at the interval's ends. */
struct lab_cpu_point {
	size_t ncase, first;
	char step[64];
	double t0, t1, cpu0, cpu1;
};
/* The points into the series qemu_host_cpu (%, repetition 1's) of each
 * case of doc, the RUN's document: a case's points by its test and its
 * place among the test's cases, ncase - first (a document of one case
 * takes them all). 0 or -ENOMEM. */
int lab_host_cpu_attach(json_t *doc, const struct lab_cpu_point *cpu, size_t npts);
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

/* Kill every process the lab started (procs.h) and remove every work
 * directory it holds (workdir.h): async-signal-safe. */
void lab_kill_all(void);

#endif
