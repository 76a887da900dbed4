/* The guest's half of the agent protocol (src/proto/proto.h), as
 * `vmbench agent` reads the host's lines and writes PROGRESS. */
#ifndef VMB_GUEST_PROTO_GUEST_H
#define VMB_GUEST_PROTO_GUEST_H

#include "../proto/proto.h"

/* The PROGRESS line an agent sends: the RUN's word, the seconds since it
 * began, and the run's own progress line ("3/8 61 disk.randread ...", as
 * `vmbench run --progress-fd` writes it) when there is one (run_line may
 * be NULL), its time left less the seconds since it was written (aged).
 * When the run's line does not fit the grammar (or is of another test),
 * err says so and the line goes without it. NULL: out of memory. */
char *proto_progress_line(const char *what, double seconds, const char *run_line, double aged, char *err,
			  size_t errlen);

/* Guest side: "TOKEN <secret>" into token (NETPROTO_MAX_TOKEN + 1 bytes),
 * "SERVE <address>" (an IPv4 or IPv6 literal) into addr (PROTO_MAX_ADDR + 1
 * bytes). -EPROTO with err. */
int proto_parse_token(const char *line, char *token, size_t len, char *err, size_t errlen);
int proto_parse_serve(const char *line, char *addr, size_t len, char *err, size_t errlen);
/* Guest side: "LOAD <pct>", pct 0 to 100 (digits, no leading zero). */
int proto_parse_load(const char *line, unsigned *pct, char *err, size_t errlen);

/* Guest side: a PREPARE line, its filesystem a row of the table and its
 * device /dev/NAME (letters and digits). */
struct proto_prepare {
	char fs[16];
	char device[PROTO_MAX_DEVICE + 1];
	char share[16]; /* {"share": NAME}: a row of LAB_SHARES to mount (fs and device empty) */
};
int proto_parse_prepare(const char *line, struct proto_prepare *p, char *err, size_t errlen);


#endif
