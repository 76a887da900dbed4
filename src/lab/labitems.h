/* The items of a booted guest: the options each RUN gets (the lab run's
 * own, the peer of its NIC, where storage is measured, the database, the
 * package mirror), the RUNs, and what the host measures around each (QEMU's
 * CPU and writes, the CPU series). Called by a configuration's run
 * (labrun.c); it calls the boot (labboot.h) and below. */
#ifndef VMB_LAB_LABITEMS_H
#define VMB_LAB_LABITEMS_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "labopts.h"
#include "matrix.h"
#include "../core/suite.h"

struct lab_boot;
struct lab_fs;
struct lab_net;

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

/* Every item but the host-measured ones run in the guest of b (a RUN
 * each), their results in one document, *doc (only the guest's
 * fingerprint when none ran). */
int lab_items_run(const struct lab_run_opts *o, struct lab_boot *b, const char *scratch, const struct lab_fs *fs,
		  json_t **doc, char *err, size_t errlen);
/* The options the guest's run of an item of suite gets (NULL: out of memory). */
json_t *lab_item_opts(const struct lab_run_opts *o, const struct vmb_suite *suite, const char *scratch,
		      const struct lab_net *net, const struct lab_fs *fs, bool share);
/* The database the configuration's db key names, in suite's db_opt (0 or -ENOMEM). */
int lab_db_item_opts(const struct lab_config *c, const struct vmb_suite *suite, json_t *opts);
/* Does an item's suite satisfy pred: one measured over a NIC, one on the scratch disk? */
bool lab_items_ask(const char *items, bool (*pred)(const struct vmb_suite *s));
bool lab_suite_net_peer(const struct vmb_suite *s);
bool lab_suite_on_scratch(const struct vmb_suite *s);
/* QEMU's CPU so far { user s, system s, wall s, nice } (NaN: not known),
 * and over one RUN into the notes of each suite of doc. */
void lab_qemu_cpu(pid_t pid, double out[4]);
int lab_host_cost(json_t *doc, const double a[4], const double b[4], unsigned threads);

#endif
