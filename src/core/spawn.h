/* Running another program and capturing what it prints. */
#ifndef VMB_SPAWN_H
#define VMB_SPAWN_H

#include <stddef.h>

/* Run a program (a path, or a name looked up in PATH) in cwd (NULL: here),
 * stdin and stderr on /dev/null, its stdout into *out (NULL: discarded).
 * 0 when it exits 0, -ECHILD otherwise, a negative errno if it cannot start. */
int run_capture(const char *prog, char *const argv[], const char *cwd, char **out);
/* The same with stderr into *out too (a tool's message is on stderr). */
int run_capture_all(const char *prog, char *const argv[], char **out);
/* The same with stderr left on this process's (its messages reach the user). */
int run_capture_stdout(const char *prog, char *const argv[], char **out);

/* The file execvp would run for name: the first PATH entry (an empty one
 * is the working directory, as execvp takes it) holding a regular file
 * name that this process may execute, into buf. 0, or -ENOENT. */
int path_find(const char *name, char *buf, size_t len);

/* Run a program with stdin from in_fd and stdout into out_fd (stderr on
 * /dev/null): a filter over files. 0 when it exits 0, -ECHILD otherwise, a
 * negative errno if it cannot start. */
int run_filter(const char *prog, char *const argv[], int in_fd, int out_fd);

#endif
