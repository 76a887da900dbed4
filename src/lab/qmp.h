/* A QMP (QEMU Machine Protocol) client over a unix socket: the greeting,
 * capabilities negotiation, commands with bounded waits, asynchronous
 * events skipped and remembered (a guest's RESET or SHUTDOWN). */
#ifndef VMB_QMP_H
#define VMB_QMP_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "proto_host.h"

struct qmp {
	int fd;
	struct proto_conn conn; /* the bounded line reader of the agent protocol */
	json_t *events;         /* events seen so far, oldest first */
	char err[512];
};

/* Connect to QEMU's -qmp unix socket (waiting up to timeout_ms for it to
 * appear), read the greeting, negotiate capabilities. */
int qmp_connect(struct qmp *q, const char *path, int timeout_ms);
/* Execute a command (args may be NULL; the reference is taken). *ret gets
 * the "return" value (new reference) unless ret is NULL. -EIO with q->err
 * holding QEMU's error description. */
int qmp_execute(struct qmp *q, const char *cmd, json_t *args, int timeout_ms, json_t **ret);
/* The host thread ids of the vCPUs, in vCPU order (query-cpus-fast). */
int qmp_vcpu_threads(struct qmp *q, int timeout_ms, int **tids, size_t *n);
void qmp_close(struct qmp *q);
/* query-balloon: the guest's memory as its balloon driver last reported it
 * (RAM less the balloon), bytes. -EIO with q->err when QEMU has no balloon. */
int qmp_balloon_actual(struct qmp *q, int timeout_ms, uint64_t *actual);
/* Wait up to timeout_ms for QEMU's event name (BALLOON_CHANGE): 1 when it
 * came (it is remembered in q->events as any event), 0 when the time ran
 * out first, a negative errno when the socket failed. A reply read
 * meanwhile, which no command awaits, is an error (-EPROTO). */
int qmp_wait_event(struct qmp *q, const char *name, int timeout_ms);

/* query-status: QEMU's run state of the guest ("running", "paused",
 * "internal-error", ...: a word of QEMU's RunState) in status. */
int qmp_run_state(struct qmp *q, int timeout_ms, char *status, size_t len);
/* Whether QEMU has stopped the guest in run state status for good: no
 * command of the lab's makes it run again ("internal-error": KVM could not
 * run it; "guest-panicked": its kernel panicked). */
bool qmp_state_final(const char *status);

/* query-migrate's return, on either side of a migration: its status (a
 * word of QEMU's MigrationStatus) and the figures it gives by then, each
 * validated; -1 for one it does not give (yet). */
struct qmp_migration {
	char status[24];
	char error[200];            /* error-desc of a failed one, quoted; "" */
	double total_ms, downtime_ms, setup_ms;
	double transferred;         /* ram.transferred, bytes */
	double dirty_rate;          /* ram.dirty-pages-rate, pages per second */
	double passes;              /* ram.dirty-sync-count */
	double postcopy_bytes;      /* ram.postcopy-bytes: sent after the switch to post-copy */
	double page_size;           /* ram.page-size, bytes */
};
int qmp_migration(struct qmp *q, int timeout_ms, struct qmp_migration *m);

/* The parsers behind the calls above, on their own for tests and fuzzing.
 * One line from QEMU: 0 with *out the reply (new reference), 1 for an event
 * (remembered in q->events, which must be an array), -EPROTO. */
int qmp_parse_line(struct qmp *q, const char *line, json_t **out);
/* A reply to cmd (msg taken): 0 with *ret its "return" (new reference,
 * unless ret is NULL), -EIO for QEMU's error, -EPROTO for neither. */
int qmp_result(struct qmp *q, const char *cmd, json_t *msg, json_t **ret);
/* query-cpus-fast's return: thread ids in vCPU order. */
int qmp_parse_vcpus(struct qmp *q, const json_t *cpus, int **tids, size_t *n);
/* query-balloon's return: its "actual", bytes from 1 to 2^50. */
int qmp_parse_balloon(struct qmp *q, const json_t *ret, uint64_t *actual);
/* query-status's return: its status, a word of lowercase letters and
 * hyphens of at most 31 characters, in status (written on success only). */
int qmp_parse_status(struct qmp *q, const json_t *ret, char *status, size_t len);
/* query-migrate's return: -EPROTO for an unknown status or a figure out of
 * its range (times up to 10^9 ms, bytes up to 2^60, counts up to 10^9). */
int qmp_parse_migrate(struct qmp *q, const json_t *ret, struct qmp_migration *m);

#endif
