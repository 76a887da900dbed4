/* What each configuration of a lab comparison cost the host: QEMU's
 * CPU-seconds per second of each run, from the notes the lab stores in
 * every suite it ran (qemu_cpu_user_s, qemu_cpu_system_s, qemu_wall_s).
 * One computation for the terminal table and the HTML report. */
#ifndef VMB_HOSTCOST_H
#define VMB_HOSTCOST_H

#include <stddef.h>

#include "compare.h"

struct hostcost_row {
	const char *config; /* the operand's name (borrowed from the table) */
	char item[128];     /* "net.tcp_rr": the suite, with its test when it ran one */
	double cpu, user, sys; /* CPU-seconds per second of the run, mean over runs; cpu = user + sys */
	size_t runs;        /* runs with valid notes */
	double wamp;        /* host_write_amplification, mean over the runs that have one; NaN: none */
	size_t wamp_runs;
};

/* The rows of t, per operand in order and per item in the order its
 * documents first list it. A suite's notes count only when the user and
 * system seconds are finite and >= 0 and the wall seconds finite and > 0;
 * an operand without any gets no row. A row's write amplification counts
 * the runs whose notes have a finite, positive host_write_amplification. 0 and *rows (owned; NULL when there
 * are none) and *n, or -ENOMEM. */
int hostcost_rows(const struct cmp_table *t, struct hostcost_row **rows, size_t *n);

#endif
