/* The vmops suite's declarations that its measurer, the lab, fills in:
 * its tests and the names of their metrics (src/lab/vmops.c measures
 * them through QMP; docs/methodology.md defines each). */
#ifndef VMB_SUITE_VMOPS_H
#define VMB_SUITE_VMOPS_H

#include "../core/suite.h"

/* migrate: query-migrate's figures of a completed migration */
#define VMOPS_TOTAL "total_s"               /* QEMU's total-time */
#define VMOPS_DOWNTIME "downtime_s"         /* QEMU's downtime: the guest stopped */
#define VMOPS_SETUP "setup_s"               /* QEMU's setup-time */
#define VMOPS_RAM "ram_transferred_bytes"   /* ram.transferred */
#define VMOPS_DIRTY "dirty_pages_per_s"     /* ram.dirty-pages-rate, its last figure */
#define VMOPS_PASSES "passes"               /* ram.dirty-sync-count */
#define VMOPS_POSTCOPY "postcopy_bytes"     /* ram.postcopy-bytes: 0 when a pre-copy converged before the switch */
#define VMOPS_AGENT "agent_answer_s"        /* completion to the agent's answer on the destination */
/* saverestore */
#define VMOPS_SAVE "save_s"
#define VMOPS_STATE "state_bytes"
#define VMOPS_RESTORE "restore_s"
#define VMOPS_RESUME "resume_s"
/* snapshot */
#define VMOPS_CREATE "create_s"             /* blockdev-snapshot-sync */
#define VMOPS_OVERLAY "overlay_bytes"       /* the overlay's size after the write load */
#define VMOPS_COMMIT "commit_s"             /* block-commit to its completion */
/* savevm: the whole VM's internal snapshot (qcow2), made and reverted to */
#define VMOPS_SAVEVM "savevm_s"
#define VMOPS_LOADVM "loadvm_s"
/* What the guest writes before and after the snapshot, its figures beside */
#define VMOPS_WRITE "disk.randwrite"
#define VMOPS_BEFORE_PREFIX "before_"
#define VMOPS_AFTER_PREFIX "after_"
/* What the guest runs in a migration with load mem */
#define VMOPS_LOAD "mem.bandwidth"
#define VMOPS_LOAD_PREFIX "mem_"
/* and with load clock: a loop reading the guest's clock, its largest gap */
#define VMOPS_CLOCK "sched.steal"
/* its tests, by name */
#define VMOPS_TEST_MIGRATE "migrate"
#define VMOPS_TEST_SAVERESTORE "saverestore"
#define VMOPS_TEST_SNAPSHOT "snapshot"
#define VMOPS_TEST_SAVEVM "savevm"
#define VMOPS_CLOCK_PREFIX "clock_"
#define VMOPS_CLOCK_GAP "gap_max"
#define VMOPS_PAUSE "pause_s"               /* the clock loop's largest gap, seconds */

extern const struct vmb_suite vmops_suite;

#endif
