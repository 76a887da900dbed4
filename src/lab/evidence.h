/* The evidence of a lab run's failed boots: the guest's console and QEMU's
 * output of each, kept in files of a directory the run makes at its first
 * failure ($XDG_STATE_HOME/vmbench/lab-failures/lab-DATE-TIME/); a record of
 * each failure for the comparison's reader (struct cmp_table's failures);
 * and the marker document that keeps the record in the store, so that
 * `lab report` lists the failure too. The lab removes none of these files:
 * they are the user's to read and delete. */
#ifndef VMB_EVIDENCE_H
#define VMB_EVIDENCE_H

#include <jansson.h>
#include <stdbool.h>

#include "labrun.h"

/* Where one lab run keeps its evidence. */
struct lab_evidence {
	char base[4096]; /* .../vmbench/lab-failures; "" when no place is known (no XDG_STATE_HOME, no HOME) */
	char dir[4200];  /* this run's directory, once made; "" before the first failure */
};

void lab_evidence_init(struct lab_evidence *e);
/* vmbench's state directory, where the lab keeps what it found out
 * ($XDG_STATE_HOME/vmbench, else $HOME/.local/state/vmbench): 0, or
 * -ENOENT when neither variable gives an absolute path. */
int lab_state_dir(char *buf, size_t len);

/* Keep f's console and QEMU output of a failed try of configuration name
 * in new files of e's directory (made at the first failure), and return the
 * failure's record: {config, round, try, tries, step, reason, outcome,
 * console, qemu_log}, the paths null where nothing was kept, outcome "round
 * failed" until the caller says "retried". NULL: out of memory. What could
 * not be kept is said in note ("" when everything was). */
json_t *lab_evidence_keep(struct lab_evidence *e, const char *name, unsigned round, unsigned try, unsigned tries,
			  const struct lab_failure *f, const char *reason, char *note, size_t notelen);

/* A result document that marks a failure in the store: no suites, an
 * unknown fingerprint (no guest was measured), and the record but its
 * config (the labels say that) as the top-level "lab_failure" (read back by
 * doc_lab_failure). NULL: out of memory (err says so). */
json_t *lab_failure_marker(const json_t *record, char *err, size_t errlen);

#endif
