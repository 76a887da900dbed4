/* Files the suites created (and the lab's ISO staging tree): registered so
 * that they are removed even when a second Ctrl-C ends the process at once.
 * A directory is registered before what goes in it, and removed after it
 * (rmdir: only when empty). */
#ifndef VMB_TEMPFILE_H
#define VMB_TEMPFILE_H

/* Register a file or a directory; remove it with vmb_tempfile_unlink. */
int vmb_tempfile_add(const char *path);
int vmb_tempfile_unlink(const char *path);
/* Async-signal-safe: unlink every registered file (for signal handlers). */
void vmb_tempfiles_unlink_all(void);

#endif
