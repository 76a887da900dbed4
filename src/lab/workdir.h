/* The lab's work directories, one per boot: $TMPDIR/vmbench-lab-XXXXXX
 * holding the scratch disk's image, the overlay, the share, the sockets
 * and the logs. Each is marked as its process's (src/core/reclaim.h), so
 * that the next lab run, contend or study removes those a killed one left.
 * A failed boot's evidence is copied out of it (evidence.h) before it is
 * removed: a work directory never holds anything kept for the user. */
#ifndef VMB_LAB_WORKDIR_H
#define VMB_LAB_WORKDIR_H

#include <stddef.h>

/* A new work directory, marked: its path into buf; 0 or a negative errno. */
int lab_work_dir_new(char *buf, size_t len);
/* Remove the work directories of lab processes that are gone, each said. */
void lab_work_dirs_reclaim(void);

#endif
