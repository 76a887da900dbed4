/* The lab's work directories, one per boot: $TMPDIR/vmbench-lab-XXXXXX
 * holding the scratch disk's image, the overlay, the share, the sockets
 * and the logs. Each is marked as its process's (src/core/reclaim.h), so
 * that the next lab run, contend or study removes those a killed one left.
 * A failed boot's evidence is copied out of it (evidence.h) before it is
 * removed: a work directory never holds anything kept for the user.
 * While this process holds one it is tracked, so that a second Ctrl-C's
 * cleanup removes it; it is removed as a whole, whatever the back ends
 * and vmops put in it. */
#ifndef VMB_LAB_WORKDIR_H
#define VMB_LAB_WORKDIR_H

#include <stddef.h>

/* The most work directories held at once: one per guest, lab contend's
 * most guests (8) and room. A fixed table: a signal handler reads it. */
#define LAB_WORK_DIRS_MAX 16

/* A new work directory, marked and tracked: its path into buf; 0 or a
 * negative errno (-ENOSPC, said in the log, when LAB_WORK_DIRS_MAX are
 * held: then none is made). */
int lab_work_dir_new(char *buf, size_t len);
/* A tracked work directory removed with everything in it (on its file
 * system only, never through a link: reclaim_remove_tree) and untracked.
 * One that is not tracked (removed already) or lost its marker is left. */
void lab_work_dir_remove(const char *dir);
/* Every tracked work directory removed, also(dir) called first for each
 * (what its back ends left outside it; NULL: nothing). Async-signal-safe
 * when also is. */
void lab_work_dirs_remove_all(void (*also)(const char *dir));
/* Remove the work directories of lab processes that are gone, each said. */
void lab_work_dirs_reclaim(void);

#endif
