/* Facts about this process and the clock: usable CPUs, wall time. */
#ifndef VMB_SYS_H
#define VMB_SYS_H

#include <stdbool.h>
#include <stddef.h>

/* True in the binary linked with no shared library (make static,
 * vmbench-static): it cannot load a database client at run time. */
extern const bool vmb_static_build;

/* Number of CPUs this process may run on. */
unsigned cpus_available(void);
/* ISO 8601 UTC timestamp of a CLOCK_REALTIME time, e.g. 2026-11-30T03:14:00Z. */
void format_utc(double epoch_s, char *buf, size_t len);
double wall_time_s(void);

#endif
