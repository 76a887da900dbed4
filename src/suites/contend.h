/* The contend suite: what the host sees of each guest that lab contend
 * runs beside others under a scheduling policy (src/lab/contend.c measures
 * it; the suite is declared here so that list, show, compare and the
 * report know its metrics). */
#ifndef VMB_SUITE_CONTEND_H
#define VMB_SUITE_CONTEND_H

#include "../core/suite.h"

extern const struct vmb_suite contend_suite;

#define CONTEND_SHARE "cpu_share"          /* %: the guest's vCPU threads' CPU time / (wall x host CPUs given) */
#define CONTEND_PROMISED "promised_share"  /* %: what the policy promises it */
#define CONTEND_DELAY "run_delay"          /* %: its vCPU threads' run-queue wait over the window (esxtop %RDY) */
#define CONTEND_DELAY_SLICE "run_delay_per_slice" /* ns: that wait per timeslice (%RDY's counterpart) */
#define CONTEND_JAIN "jain"                /* Jain's index of achieved / promised shares, across the guests */
#define CONTEND_ITEM_PARAM "item"           /* the guests' item the RUN measured */

#endif
