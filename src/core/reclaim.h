/* What a vmbench killed by kill -9 left behind (its files, its lab work
 * directories, its cgroups), found and removed by the next run of the same
 * kind. Only what vmbench made is removed: the name's pattern and a proof
 * that its owner is gone. The proof is the owner's PID in the name or in a
 * marker file inside, and that PID either dead or a process started after
 * the thing was made (a reused PID). Each removal is said on stderr
 * through the log (-q silences it). Symbolic links are never followed. */
#ifndef VMB_RECLAIM_H
#define VMB_RECLAIM_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include <time.h>

/* The marker in a directory vmbench made: "vmbench PID START BOOT_ID". */
#define RECLAIM_MARKER ".vmbench-owner"

/* A process: its PID, its start (clock ticks after boot, /proc/PID/stat
 * field 22) and the boot it ran in (/proc/sys/kernel/random/boot_id). */
struct reclaim_owner {
	pid_t pid;
	unsigned long long start;
	char boot_id[40];
};

/* Parsers of what the checks read, each 0 or -EINVAL: the state letter
 * and the start time in the text of /proc/PID/stat; a marker's text; the PID in a name that is
 * prefix, then PID, then nothing or '-' and more ("vmbench-disk-123-Ab3xYz"). */
int reclaim_parse_stat(const char *text, char *state, unsigned long long *start);
int reclaim_parse_marker(const char *text, struct reclaim_owner *o);
int reclaim_name_pid(const char *name, const char *prefix, pid_t *pid);

/* Is the process that made something, last changed at `made` (its mtime),
 * gone? True when pid is dead, or when it started after `made` (a reused
 * PID). A process that may be the owner counts as alive. */
bool reclaim_gone_since(pid_t pid, time_t made);
/* The same, exact, for a marker's owner: dead, another boot, or another
 * start time. */
bool reclaim_gone(const struct reclaim_owner *o);

/* Mark dir (just made, empty) as this process's: 0 or a negative errno. */
int reclaim_mark(const char *dir);

/* Remove directory name in dirfd (AT_FDCWD: a path) and everything below
 * it, on its own file system only (a mount below is left, -EXDEV) and
 * never through a symbolic link, at most 16 levels deep; its marker last,
 * so that a removal cut short is still known as vmbench's. The files'
 * sizes into bytes[0], what they took on disk into bytes[1] (bytes may be
 * NULL). 0 or the first negative errno: what could be removed is.
 * Async-signal-safe (getdents64 and the *at calls, nothing allocated): a
 * second Ctrl-C's cleanup calls it. */
int reclaim_remove_tree(int dirfd, const char *name, unsigned long long *bytes);

/* Remove the directories in parent named prefix... that hold a marker of
 * an owner that is gone. what says what they are ("lab work directory"). */
void reclaim_dirs(const char *parent, const char *prefix, const char *what);
/* Remove the regular files of this user in dir named prefix PID-... whose
 * PID is gone (prefixes: NULL-terminated). */
void reclaim_files(const char *dir, const char *const *prefixes, const char *what);

/* "1.2 GiB", "512 KiB", "0 B": a size for a message. */
void reclaim_size_str(unsigned long long bytes, char *buf, size_t len);

#endif
