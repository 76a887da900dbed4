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
/* An RFC 3339 date-time (its "date-time" production): 2026-11-30T03:14:00Z,
 * with optional fractional seconds, a lowercase t or z, or a numeric
 * offset; a real calendar day, a second of 60 for a leap second (read as
 * the next one's start). 0 with *epoch_s its seconds since 1970 (epoch_s
 * may be NULL), or -EINVAL. vmbench writes the first form. */
int parse_utc(const char *s, double *epoch_s);
double wall_time_s(void);

#endif
