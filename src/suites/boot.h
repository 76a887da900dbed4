/* The boot suite's declarations that its measurer, the lab, fills in: the
 * phases of a boot, in order, and the note that names them in a result. */
#ifndef VMB_SUITE_BOOT_H
#define VMB_SUITE_BOOT_H

#include <stdbool.h>
#include <stddef.h>

#include "../core/suite.h"

struct boot_phase {
	const char *metric; /* "phase_kernel" */
	const char *from;   /* the mark that starts it */
	const char *to;     /* the mark that ends it */
};

/* In order; each starts where the one before ends. boot_phases: the
 * busybox image's; boot_ssh_phases: a distribution's (the image key's rows
 * with an SSH server, src/lab/matrix.h), whose userspace ends at the SSH
 * server's banner, before the agent's HELLO. */
#define BOOT_NPHASES 3
#define BOOT_SSH_NPHASES 4
#define BOOT_MAXPHASES 4
extern const struct boot_phase boot_phases[BOOT_NPHASES];
extern const size_t boot_nphases;
extern const struct boot_phase boot_ssh_phases[BOOT_SSH_NPHASES];
/* A distribution's boot to its SSH banner (the phases before phase_hello):
 * the figure of a "boot to SSH" table. */
#define BOOT_TO_SSH "boot_to_ssh"
/* The headline: the phases' sum. */
#define BOOT_TOTAL "boot_total"
/* Notes key of a suite result naming its stacked phases in order,
 * comma-separated ("phase_firmware,phase_kernel,phase_agent"); the report
 * draws them as one stacked bar per operand, whatever the suite. */
#define BOOT_PHASES_NOTE "phases"

/* The reboot test's time from the host's REBOOT to QEMU's RESET event: the
 * guest's own shutdown, beside the phases (not in their sum). */
#define BOOT_SHUTDOWN "shutdown"
/* boot_suite.tests, in order: the series of boots its measurer keeps */
enum { BOOT_COLD, BOOT_WARM, BOOT_REBOOT, BOOT_START, BOOT_NTESTS };
/* its tests, by name */
#define BOOT_TEST_COLD "cold"
#define BOOT_TEST_WARM "warm"
#define BOOT_TEST_REBOOT "reboot"
#define BOOT_TEST_START "start"
/* boot.start's figures: the share of the cold boots that started (their
 * guest said HELLO, its devices as the configuration asks, its NIC up with
 * its address and answering the host), its Wilson 95% interval, and the
 * counts it is made of */
#define BOOT_START_PCT "start_pct"
#define BOOT_START_LO "start_pct_low"
#define BOOT_START_HI "start_pct_high"
#define BOOT_STARTED "boots_started"
#define BOOT_ATTEMPTED "boots_attempted"
/* its note: why each boot that did not start did not */
#define BOOT_START_FAILURES "start_failures"

extern const struct vmb_suite boot_suite;

#endif
