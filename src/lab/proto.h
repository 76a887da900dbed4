/* The agent protocol between the host and `vmbench agent` in a guest: small,
 * versioned, line-oriented, over a serial or virtio-serial port (or any
 * pair of file descriptors).
 *
 *   guest: HELLO <version> <fingerprint JSON on one line>
 *   host:  RUN <suite[.test]> <options JSON object>
 *   guest: PROGRESS <suite[.test]> <elapsed seconds>    (heartbeats while it runs)
 *   guest: RESULT <length>\n<length bytes: the result document>\n
 *      or: ERROR <message>
 *   host:  BYE
 *   guest: BYE
 *
 * The host validates every line and bounds every wait: a guest that sends
 * garbage, stalls or dies is a clear error, never a hang. */
#ifndef VMB_PROTO_H
#define VMB_PROTO_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#define PROTO_VERSION 1
#define PROTO_MAX_LINE (1u << 20)     /* a HELLO with a large fingerprint fits */
#define PROTO_MAX_RESULT (64u << 20)  /* a result document */

struct proto_conn {
	int in, out;           /* read from, write to */
	char *buf;             /* bytes read but not yet consumed */
	size_t len, cap;
	char last[8][160];     /* the last lines received, for error messages */
	unsigned nlast;
	char err[512];         /* what went wrong, for the caller to print */
};

void proto_init(struct proto_conn *c, int in, int out);
void proto_release(struct proto_conn *c);

/* Send one line (a '\n' is appended). 0 or a negative errno. */
int proto_send(struct proto_conn *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Receive one line within timeout_ms (without its '\n'); caller frees *line.
 * -ETIMEDOUT, -EPIPE (peer closed), -EPROTO (too long, NUL byte). */
int proto_recv_line(struct proto_conn *c, int timeout_ms, char **line);
/* Receive exactly n bytes within timeout_ms. */
int proto_recv_bytes(struct proto_conn *c, size_t n, int timeout_ms, char **data);

/* Host side. Each fills c->err on failure. */
int proto_host_hello(struct proto_conn *c, int timeout_ms, json_t **fingerprint);
/* Run and wait: stall_ms bounds the silence between two lines (PROGRESS
 * resets it), total_ms the whole run. *doc is the validated result. */
int proto_host_run(struct proto_conn *c, const char *what, const json_t *options, int stall_ms, int total_ms,
		   json_t **doc);
int proto_host_bye(struct proto_conn *c, int timeout_ms);

/* "--time 0.2 --cpu.max-prime 2000 ...": the options object as run arguments.
 * Keys are option names without dashes; values strings, numbers or true. */
int proto_options_argv(const json_t *options, char ***argv, int *argc, char *err, size_t errlen);

#endif
