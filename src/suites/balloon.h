/* The balloon suite's declarations that its measurer, the lab, fills in:
 * its tests and metrics, and the suite the loaded test runs in the guest. */
#ifndef VMB_SUITE_BALLOON_H
#define VMB_SUITE_BALLOON_H

#include "../core/suite.h"

/* Seconds from QMP's balloon command until the guest's balloon is within
 * BALLOON_TOLERANCE of the target: inflated by the size, then back. */
#define BALLOON_INFLATE "inflate_s"
#define BALLOON_DEFLATE "deflate_s"
#define BALLOON_TOLERANCE (1ull << 20)
/* What the guest runs meanwhile in the loaded test, its figures beside */
#define BALLOON_LOAD "mem.bandwidth"
/* its tests, by name */
#define BALLOON_TEST_IDLE "idle"
#define BALLOON_TEST_LOADED "loaded"
#define BALLOON_LOAD_PREFIX "mem_"

extern const struct vmb_suite balloon_suite;

#endif
