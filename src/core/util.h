/* Small helpers shared by every module: number parsing with range checks,
 * lists, files, strings. */
#ifndef VMB_UTIL_H
#define VMB_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* All parsers return 0 or -EINVAL (not a number of that kind) or -ERANGE
 * (outside [min, max]); *out is written only on success. */
int parse_i64(const char *s, int64_t min, int64_t max, int64_t *out);
int parse_double(const char *s, double min, double max, double *out);
/* Bytes with an optional binary suffix: 512, 4k, 1m, 2g, 1t (case-insensitive, "KiB" too). */
int parse_size(const char *s, uint64_t min, uint64_t max, uint64_t *out);
/* "0-3,6,8-9" -> sorted unique CPU numbers; caller frees *out. */
int parse_cpu_list(const char *s, unsigned **out, size_t *n);
/* "1,2,all" -> values; "all" stands for all_value. Caller frees *out. */
int parse_uint_list(const char *s, unsigned min, unsigned max, unsigned all_value,
		    unsigned **out, size_t *n);

/* Read a whole (small) file; trailing newlines are removed. Caller frees. */
int read_file(const char *path, char **out);
/* A whole file, or all of stdin for "-". Caller frees. */
int read_file_or_stdin(const char *path, char **out);
/* Same, relative to a root directory ("/" for the live system). */
int read_file_at(const char *root, const char *path, char **out);
/* First line of a file at root, into buf; 0 or a negative errno. */
int read_line_at(const char *root, const char *path, char *buf, size_t len);

/* Write a new file atomically: a temporary file beside it, fsync, then
 * link() into place, which never overwrites. -EEXIST if path exists. */
int file_write_new(const char *path, const char *data, size_t len);

/* Run a program (a path, or a name looked up in PATH) in cwd (NULL: here),
 * stdin and stderr on /dev/null, its stdout into *out (NULL: discarded).
 * 0 when it exits 0, -ECHILD otherwise, a negative errno if it cannot start. */
int run_capture(const char *prog, char *const argv[], const char *cwd, char **out);
/* Format a message into err and return r: `return errf(err, len, -EIO, "...")`. */
int errf(char *err, size_t len, int r, const char *fmt, ...) __attribute__((format(printf, 4, 5)));

char *xstrdup(const char *s);
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
bool str_has_prefix(const char *s, const char *prefix);
/* Is word one of the sep-separated items of list ("a,b,c" or "a|b|c")? */
bool str_in_list(const char *list, char sep, const char *word);
/* Levenshtein distance, for "did you mean" hints. */
size_t str_distance(const char *a, const char *b);

/* A growable array of owned strings. */
struct strv {
	char **v;
	size_t n;
};
int strv_push(struct strv *sv, const char *s);
void strv_clear(struct strv *sv);

/* Number of CPUs this process may run on. */
unsigned cpus_available(void);
/* ISO 8601 UTC timestamp of a CLOCK_REALTIME time, e.g. 2026-11-30T03:14:00Z. */
void format_utc(double epoch_s, char *buf, size_t len);
double wall_time_s(void);

/* Test hook: when VMBENCH_TEST_STOP_AT names this point, the process stops
 * itself (SIGSTOP) there, so that a test can interrupt or kill -9 it at an
 * exact moment without sleeping (the test sees the stop with waitpid). */
void vmb_test_stop_point(const char *point);

#endif
