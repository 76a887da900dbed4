/* Reading small files whole and writing new files atomically. */
#ifndef VMB_FILE_H
#define VMB_FILE_H

#include <stddef.h>

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
/* Make a directory and its parents (0755; those there already are fine):
 * 0 or a negative errno. */
int file_mkdirs(const char *path);
/* Write all of data to stdout (after what stdio holds): 0, or the write's
 * own negative errno (-ENOSPC into /dev/full), never a bare -EIO. */
int file_write_stdout(const char *data, size_t len);
/* Open (creating it, 0644) and lock path exclusively with flock, waiting
 * for another holder: the descriptor, whose close() unlocks, or a negative
 * errno; *what says which step failed ("creating", "locking"). */
int file_lock(const char *path, const char **what);

#endif
