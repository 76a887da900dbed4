/* The agent protocol between the host and `vmbench agent` in a guest: small,
 * versioned, line-oriented, over a serial or virtio-serial port (or any
 * pair of file descriptors). docs/agent-protocol.md is its specification.
 *
 *   guest: HELLO <version> <fingerprint JSON on one line>
 *   host:  TOKEN <secret>                                 (the net token
 *   guest: OK                                                of later runs)
 *   host:  SERVE <address>                                (a vmbench serve
 *   guest: SERVING <address:port>                            in the guest)
 *   host:  LOAD <pct>                                     (a background load
 *   guest: LOADED <pct stopped> <its CPU % or ->             in the agent)
 *   host:  PREPARE <{"fs": ..., "device": ...}>          (optional, before the RUNs)
 *   guest: PREPARED <the filesystem made and mounted, JSON>   or: ERROR <message>
 *   host:  RUN <suite[.test]> <options JSON object>
 *   guest: PROGRESS <suite[.test]> <elapsed seconds>[ <case>/<cases> <left> <suite.test>[ <detail>]]
 *                                                      (heartbeats while it runs)
 *   guest: RESULT <length>\n<length bytes: the result document>\n
 *      or: ERROR <message>
 *   host:  BYE                                           (or REBOOT: the same,
 *   guest: BYE                                              then the guest reboots)
 *
 * The host validates every line and bounds every wait: a guest that sends
 * garbage, stalls or dies is a clear error, never a hang. The parsing is
 * kept apart from the I/O (proto_frame, proto_parse_guest_line,
 * proto_parse_run) so that it can be tested and fuzzed without a channel.
 *
 * This header and src/proto/wire.c are what both sides share: the
 * connection, framing, the grammar of a guest's lines and of a RUN's
 * options. The host's requests are src/lab/proto_host.h, the guest's
 * reading of them src/guest/proto_guest.h. */
#ifndef VMB_PROTO_PROTO_H
#define VMB_PROTO_PROTO_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "../core/opts.h"
#include "../core/suite.h"
#include "../core/util.h"

#define PROTO_VERSION 3     /* what this agent speaks */
#define PROTO_VERSION_MIN 1 /* the oldest a host still reads: 2 added fields to PROGRESS, and requests (TOKEN, SERVE, PREPARE) a version 1 agent refuses with ERROR; 3 added LOAD */
#define PROTO_VERSION_LOAD 3 /* the first version whose agent takes LOAD */
#define PROTO_MAX_LINE (1u << 20)     /* a HELLO with a large fingerprint fits */
#define PROTO_MAX_RESULT (64u << 20)  /* a result document */
#define PROTO_MAX_WHAT 63             /* a suite[.test] word */
#define PROTO_MAX_CASES 1000000       /* PROGRESS: cases of one run */
#define PROTO_MAX_DETAIL 200          /* PROGRESS: bytes of the step's detail */
#define PROTO_SEND_STALL_MS 60000     /* a send that makes no progress this long fails */
#define PROTO_MAX_ADDR 63             /* SERVE's address, SERVING's address:port */
/* How long one step of a RUN (a case's warm-up or one repetition, as
 * PROGRESS names it) may last before the host gives the run up as stuck:
 * PROTO_STEP_FACTOR times what the RUN's options ask a step to take, plus
 * PROTO_STEP_FLOOR_MS for what an emulated guest spends around it
 * (docs/methodology.md, "A stuck run") */
#define PROTO_STEP_FACTOR 3
#define PROTO_STEP_FLOOR_MS 300000

struct proto_msg;

struct proto_conn {
	int in, out;           /* read from, write to */
	char *buf;             /* bytes read but not yet consumed */
	size_t len, cap;
	char last[8][160];     /* the last lines received, for error messages */
	unsigned nlast;
	long version;          /* the guest's HELLO's, once read (0: not known) */
	char err[512];         /* what went wrong, for the caller to print */
	bool skipping;         /* dropping the rest of an overlong line */
	/* proto_host_run calls it with each valid PROGRESS (NULL: none) */
	void (*on_progress)(void *arg, const struct proto_msg *m);
	void *progress_arg;
	int step_floor_ms;     /* proto_host_run's floor of a step's budget (0: PROTO_STEP_FLOOR_MS); tests set a small one */
};

void proto_init(struct proto_conn *c, int in, int out);
void proto_release(struct proto_conn *c);
/* The channel moved to another pair of descriptors (a guest that migrated
 * to a second QEMU): what the old one still holds, up to its end or
 * drain_ms, is read first, so that a line cut by the move stays whole.
 * The old descriptors are the caller's to close. */
int proto_switch(struct proto_conn *c, int in, int out, int drain_ms);

/* Send one line (a '\n' is appended). 0 or a negative errno; -ETIMEDOUT
 * when the peer takes nothing for PROTO_SEND_STALL_MS. */
int proto_send(struct proto_conn *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Receive one line within timeout_ms (without its '\n'); caller frees *line.
 * -ETIMEDOUT, -EPIPE (peer closed), -EPROTO (c->err says why: a NUL byte,
 * the line is then dropped; longer than PROTO_MAX_LINE, the line is dropped
 * up to its newline). The channel stays usable after -EPROTO. */
int proto_recv_line(struct proto_conn *c, int timeout_ms, char **line);
/* Receive exactly n bytes within timeout_ms. */
int proto_recv_bytes(struct proto_conn *c, size_t n, int timeout_ms, char **data);

/* Framing without I/O: the first line of buf[0, len). Returns 1 when a
 * line is complete (*linelen: its length without "\n" or "\r\n"; *used:
 * the bytes it takes, newline included), 0 when more bytes are needed,
 * -EPROTO when it holds a NUL byte (*used: the line, to drop), -EMSGSIZE
 * when it is longer than max bytes (*used: bytes of it to drop; unless the
 * last of them is its '\n', the line goes on up to the next newline). */
int proto_frame(const char *buf, size_t len, size_t max, size_t *linelen, size_t *used);

/* s as printable ASCII for a message (at most max bytes of it): anything
 * else as \xNN, so that a peer's bytes never reach a terminal,
 * a log or the other side raw. */
void proto_quote(char *out, size_t outlen, const char *s, size_t max);

/* A line from the guest, as the host reads it. */
enum proto_kind {
	PROTO_OTHER = 0, /* not a protocol line: console noise before HELLO */
	PROTO_HELLO,
	PROTO_PROGRESS,
	PROTO_RESULT,
	PROTO_ERROR,
	PROTO_BYE,
	PROTO_OK,      /* the answer to TOKEN */
	PROTO_SERVING, /* the answer to SERVE */
	PROTO_PREPARED,
	PROTO_LOADED,  /* the answer to LOAD */
};

struct proto_msg {
	enum proto_kind kind;
	long version;        /* HELLO */
	const char *text;    /* HELLO: the fingerprint JSON; ERROR: the message; PROGRESS: the suite word;
			      * SERVING: the address:port; PREPARED: the filesystem's JSON */
	double seconds;      /* PROGRESS */
	size_t length;       /* RESULT */
	/* PROGRESS since version 2, when the guest's run has begun a case (else ncases is 0) */
	size_t ncase, ncases; /* the case under way, 1 to ncases, of the RUN's cases */
	double left;          /* seconds the RUN is expected to take still; -1: unknown */
	const char *step;     /* the test under way, maybe then a space and what it does:
			       * "disk.randread iodepth=16 repetition 2 (of 5 at most)" */
	size_t steplen;       /* bytes of its test word */
	/* LOADED: the load (%) the LOAD stopped (0: none ran) and what its
	 * spinners got, their mean CPU time over their wall time in % of one
	 * CPU each (NaN: '-', not known or nothing ran) */
	unsigned load_asked;
	double load_got;
};

/* Classify and validate a guest's line (pointers in *m borrow from line).
 * A line that starts with a protocol word must be well-formed UTF-8 text
 * without control characters and follow its grammar: else -EPROTO and err
 * says what is wrong. */
int proto_parse_guest_line(const char *line, struct proto_msg *m, char *err, size_t errlen);

/* The agent's exit status on REBOOT (proto_host_reboot). */
#define PROTO_EXIT_REBOOT 3
/* Where PREPARE mounts the filesystem or share of the device under test. */
#define PROTO_MOUNTPOINT "/mnt/vmbench"
/* PREPARE's device: /dev/NAME in at most this many bytes. */
#define PROTO_MAX_DEVICE 39

/* A RUN's options object as `vmbench run` arguments ("--time=0.5",
 * "--cpu.max-prime=2000") appended to args, each checked by its row, as
 * proto_parse_run does: run-level keys among proto_run_options (rows of
 * run_opts), and SUITE.OPTION keys of the suite `only` (NULL: of any
 * suite). `what` names what they are for in messages. The host's own run
 * with a lab's options takes them the same way. */
int proto_run_args(const json_t *opts, const struct vmb_opt *run_opts, const struct vmb_suite *only,
		   const char *what, struct strv *args, char *err, size_t errlen);
/* The run-level options of `vmbench run` a host may set in RUN. */
extern const char *const proto_run_options[];

/* A RUN line as the guest reads it (and the host, running a test in a
 * guest's stead, the same way), validated against the suite table and the
 * options the protocol lets a host set: run_opts is `vmbench run`'s table,
 * of which only the rows proto_run_options names are accepted. */
struct proto_run {
	char what[PROTO_MAX_WHAT + 1]; /* "cpu" or "cpu.prime" */
	struct strv args;              /* "--time=0.5", "--cpu.max-prime=2000", ... */
};
int proto_parse_run(const char *line, const struct vmb_opt *run_opts, struct proto_run *run, char *err,
		    size_t errlen);
void proto_run_release(struct proto_run *run);
/* The command line a RUN is run as, into argv (empty): `vmbench run [EXTRA]
 * ARGS --no-store -q --json=- -- WHAT`, its result document on stdout;
 * extra (NULL: none) is the runner's own option (the agent's --progress-fd). */
int proto_run_argv(const struct proto_run *run, const char *extra, struct strv *argv);

#endif
