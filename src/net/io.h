/* Socket helpers of the net suite and serve: every wait has a deadline, so
 * that no peer can hold either side forever. */
#ifndef VMB_NET_IO_H
#define VMB_NET_IO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "proto.h"

/* Bytes read from a control connection and not yet consumed. */
struct netio_lines {
	char buf[NETPROTO_MAX_LINE * 2];
	size_t len;
};

/* Read one line (without '\n', NUL-terminated) into line within timeout_ms
 * (a total deadline, not restarted by each byte), stopping early when *stop
 * becomes true (may be NULL). The line's length (a NUL inside it is part of
 * the line, for the parser to refuse), -ETIMEDOUT,
 * -ECONNRESET (the peer closed), -EINTR (stopped), -EMSGSIZE (a line too
 * long), or another negative errno. */
int netio_read_line(int fd, struct netio_lines *lb, char *line, size_t len, int timeout_ms, const volatile bool *stop);
/* Write all of buf within timeout_ms (MSG_NOSIGNAL). 0 or a negative errno. */
int netio_write_all(int fd, const void *buf, size_t len, int timeout_ms);
/* Format m and write it. */
int netio_send_msg(int fd, const struct netmsg *m, int timeout_ms);
/* Read one line and parse it; err gets the reason of a bad line. */
int netio_recv_msg(int fd, struct netio_lines *lb, struct netmsg *m, int timeout_ms, char *err, size_t errlen);

/* "HOST", "HOST:PORT", "[V6]:PORT" into a socket address (numeric or a
 * name, resolved). 0, or -EINVAL with a reason in err. */
int netio_resolve(const char *hostport, unsigned default_port, struct sockaddr_storage *ss, socklen_t *sl,
		  char *err, size_t errlen);
/* An address to listen on, without a port: "A.B.C.D", "V6", "[V6]" or a
 * name (resolved), into ss (port 0). 0, or -EINVAL with a reason in err;
 * "HOST:PORT" and "[V6]:PORT" are refused (a port has an option of its own). */
int netio_bind_addr(const char *addr, struct sockaddr_storage *ss, char *err, size_t errlen);
/* A blocking TCP connection within timeout_ms, TCP_NODELAY on. fd or a
 * negative errno. */
int netio_connect(const struct sockaddr_storage *ss, socklen_t sl, int timeout_ms);
bool netio_is_loopback(const struct sockaddr_storage *ss);
/* TCP_INFO's retransmissions of a connection so far (0 when unknown). */
uint64_t netio_tcp_retrans(int fd);

#endif
