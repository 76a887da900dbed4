/* The systemd suite's parsers of systemd-analyze's text (its own words:
 * `systemd-analyze` and `systemd-analyze blame`), declared for the fuzz
 * target and the unit tests. */
#ifndef VMB_SUITE_SYSTEMD_H
#define VMB_SUITE_SYSTEMD_H

#include <stddef.h>

/* "Startup finished in 1.2s (firmware) + 300ms (loader) + 1.9s (kernel) +
 * 2.3s (initrd) + 10.1s (userspace) = 15.8s": each part in seconds, NaN
 * where the line has none; total the sum after "=". */
enum sd_part { SD_FIRMWARE, SD_LOADER, SD_KERNEL, SD_INITRD, SD_USERSPACE, SD_NPARTS };
extern const char *const sd_part_names[SD_NPARTS]; /* "firmware", ... as systemd-analyze names them */
struct sd_startup {
	double part[SD_NPARTS];
	double total;
};

/* One of systemd's time spans ("1min 2.345s", "345ms", "1h 2min 3s",
 * "12us"), len bytes of s: 0 with *sec, or -EINVAL. */
int sd_parse_span(const char *s, size_t len, double *sec);
/* The "Startup finished in" line of text: 0, -ENOENT when there is none
 * (also "Bootup is not yet finished"), -EINVAL when it does not parse or
 * its parts do not add up to its total (within 1 ms per part, systemd's
 * rounding). */
int sd_parse_startup(const char *text, struct sd_startup *out);

/* One line of `systemd-analyze blame`: "  1.234s ssh.service". */
struct sd_blame {
	char unit[128];
	double sec;
};
/* The first max lines of blame's text into out (*n of them), in its order
 * (longest first). 0, or -EINVAL for a line that is not "SPAN UNIT" (a
 * unit name of printable characters, no spaces, under 128 bytes). */
int sd_parse_blame(const char *text, struct sd_blame *out, size_t max, size_t *n);

#endif
