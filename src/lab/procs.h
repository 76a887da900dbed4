/* The lab's children: every process the lab starts (QEMU, a second QEMU
 * while vmops moves a guest, a share's virtiofsd, the package mirror, the
 * host's net client) is tracked from its fork until it is reaped, so that
 * a second Ctrl-C's cleanup (lab_procs_kill_all) kills and reaps each one.
 * Each is the leader of a process group of its own: it is killed with its
 * group. The lowest layer of the lab: it calls only core. */
#ifndef VMB_LAB_PROCS_H
#define VMB_LAB_PROCS_H

#include <stdbool.h>
#include <sys/types.h>

/* The most processes one guest has at once: its QEMU, a second QEMU (vmops),
 * its share's virtiofsd, the package mirror and the host's net client. */
#define LAB_PROCS_PER_GUEST 5
/* The registry's size: lab contend's most guests (8) with all of theirs,
 * and room. A fixed table: a signal handler reads it. */
#define LAB_PROCS_MAX 64

/* pid (just forked, the leader of its own process group) tracked: 0; or,
 * when the registry is full, -ENOSPC, said in the log, and pid's group
 * killed and reaped here: no child of the lab runs untracked. */
int lab_proc_track(pid_t pid);
/* pid, reaped by its caller, is nobody's to kill any more (its number may
 * be reused). */
void lab_proc_untrack(pid_t pid);
/* Still ours: tracked, not yet reaped (by its caller or lab_procs_kill_all). */
bool lab_proc_tracked(pid_t pid);
/* pid given up to grace_ms to exit, then its group killed (at once when
 * grace_ms is 0); waited for until it is reaped, untracked; its wait status
 * into *status (status may be NULL). -ECHILD when pid is not ours (0, or
 * already reaped by lab_procs_kill_all: its number may be another's, and
 * nothing is killed); *status then says it was killed (SIGKILL). */
int lab_proc_reap(pid_t pid, int grace_ms, int *status);
/* Every tracked process killed with its group and reaped (async-signal-safe). */
void lab_procs_kill_all(void);

#endif
