/* What the halves of the agent protocol share beyond proto.h: the checks
 * of a line's words and the bounded waits, defined in wire.c. Not for code
 * outside src/proto, src/lab/proto_host.c and src/guest/proto_guest.c. */
#ifndef VMB_PROTO_INT_H
#define VMB_PROTO_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "proto.h"

/* c->err, for the caller to print */
void proto_fail(struct proto_conn *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
uint64_t proto_deadline_after(int timeout_ms);
/* Milliseconds left until deadline, rounded up; 0 when it has passed. */
int proto_ms_left(uint64_t deadline);
/* Read more bytes before deadline; 0, -ETIMEDOUT, -EPIPE (peer closed). */
int proto_fill(struct proto_conn *c, uint64_t deadline);
/* Text a protocol line may carry: UTF-8, no control characters but tab. */
int proto_check_text(const char *s, char *err, size_t errlen);
/* A decimal number as the protocol writes it (digits, no sign, no leading zero), at most max. */
int proto_parse_dec(const char *s, uint64_t max, uint64_t *out, const char **end);
/* Seconds as a word of a line, *p moved past it. */
int proto_take_seconds(const char **p, double *out);
/* A suite or suite.test word. */
bool proto_what_valid(const char *s, size_t len);
/* SERVE's address (port false) or SERVING's address:port. */
bool proto_addr_valid(const char *s, bool port);
/* Is the test a PROGRESS names one of the RUN `what` asked for. */
bool proto_step_of(const char *what, const struct proto_msg *m);
/* A /dev/NAME the protocol names: letters and digits after /dev/. */
bool proto_device_valid(const char *s);

#endif
