/* Shared by the probe's files (one per source): bounded reading below a
 * root, and JSON strings that are always valid UTF-8. */
#ifndef VMB_PROBE_INTERNAL_H
#define VMB_PROBE_INTERNAL_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "probe.h"

/* Upper bounds of what is read from one file. /proc/cpuinfo is the largest
 * (about 2 KiB per CPU); only its first processor's block is used, so a
 * longer file is cut at a line boundary rather than refused. */
#define PROBE_MAX_CPUINFO (4u << 20)
#define PROBE_MAX_TEXT (64u << 10) /* meminfo, stat, environ, cgroup, .cpuid */
#define PROBE_MAX_LINE 4096u       /* one-line sysfs and procfs values */

void probe_path(const char *root, const char *path, char *buf, size_t len);
bool probe_exists(const char *root, const char *path);
/* A regular file below root, at most max bytes (cut at its last newline when
 * longer), NUL-terminated; the caller frees *out. Anything that is not a
 * regular file (a FIFO, a device, a directory) is refused with -EINVAL
 * without blocking. 0 or a negative errno. */
int probe_read(const char *root, const char *path, size_t max, char **out, size_t *len);
/* Its first line (up to a newline or NUL) into buf. */
int probe_read_line(const char *root, const char *path, char *buf, size_t len);
/* Basename of a symlink's target, e.g. device/driver -> "virtio_net". */
int probe_link_base(const char *path, char *out, size_t len);

/* A JSON string made valid UTF-8 (probe_utf8_clean); json null for NULL. */
json_t *probe_jstr(const char *s);
/* The first line of a file as a JSON string, or null. */
json_t *probe_jline(const char *root, const char *path);
/* The bracketed choice of a sysfs knob ("always [madvise] never"), or the
 * line itself when nothing is bracketed, or null. */
json_t *probe_jbracketed(const char *root, const char *path);

/* One function per source; each returns a new JSON value. */
json_t *probe_hypervisor(const char *root, const struct probe_cpuinfo *ci);
json_t *probe_kvm(const char *root);
json_t *probe_cpu(const char *root, const struct probe_cpuinfo *ci);
json_t *probe_block(const char *root);
json_t *probe_net(const char *root);
json_t *probe_shares(const char *root);
json_t *probe_balloon(const char *root);

#endif
