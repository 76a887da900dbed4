/* The boot suite's declarations that its measurer, the lab, fills in: the
 * phases of a boot, in order, and the note that names them in a result. */
#ifndef VMB_SUITE_BOOT_H
#define VMB_SUITE_BOOT_H

#include <stddef.h>

#include "../core/suite.h"

struct boot_phase {
	const char *metric; /* "phase_kernel" */
	const char *from;   /* the mark that starts it */
	const char *to;     /* the mark that ends it */
};

/* In order; each starts where the one before ends. */
#define BOOT_NPHASES 3
extern const struct boot_phase boot_phases[BOOT_NPHASES];
extern const size_t boot_nphases;
/* The headline: the phases' sum. */
#define BOOT_TOTAL "boot_total"
/* Notes key of a suite result naming its stacked phases in order,
 * comma-separated ("phase_firmware,phase_kernel,phase_agent"); the report
 * draws them as one stacked bar per operand, whatever the suite. */
#define BOOT_PHASES_NOTE "phases"

extern const struct vmb_suite boot_suite;

#endif
