/* Facts about this process and the clock: usable CPUs, wall time. */
#ifndef VMB_SYS_H
#define VMB_SYS_H

#include <stddef.h>

/* Number of CPUs this process may run on. */
unsigned cpus_available(void);
/* ISO 8601 UTC timestamp of a CLOCK_REALTIME time, e.g. 2026-11-30T03:14:00Z. */
void format_utc(double epoch_s, char *buf, size_t len);
double wall_time_s(void);

#endif
