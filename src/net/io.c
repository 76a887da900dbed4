/* Deadline-bounded socket I/O for the net suite and serve (see io.h). */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "io.h"
#include "../core/clock.h"
#include "../core/sys.h"
#include "../core/banned.h"

static int ms_left(uint64_t deadline)
{
	uint64_t now = clock_ns();

	if (now >= deadline)
		return 0;
	return (int)((deadline - now + NSEC_PER_MSEC - 1) / NSEC_PER_MSEC);
}

int netio_read_line(int fd, struct netio_lines *lb, char *line, size_t len, int timeout_ms, const volatile bool *stop)
{
	uint64_t deadline = clock_ns() + (uint64_t)timeout_ms * NSEC_PER_MSEC;

	for (;;) {
		char *nl = memchr(lb->buf, '\n', lb->len);
		struct pollfd p = { .fd = fd, .events = POLLIN };
		ssize_t n;
		int left, r;

		if (nl) {
			size_t l = (size_t)(nl - lb->buf);

			if (l + 1 > len)
				return -EMSGSIZE;
			memcpy(line, lb->buf, l);
			line[l] = '\0';
			memmove(lb->buf, nl + 1, lb->len - l - 1);
			lb->len -= l + 1;
			return (int)l;
		}
		if (lb->len >= NETPROTO_MAX_LINE)
			return -EMSGSIZE;
		if (stop && *stop)
			return -EINTR;
		left = ms_left(deadline);
		if (left == 0)
			return -ETIMEDOUT;
		r = poll(&p, 1, left < 100 ? left : 100);
		if (r < 0 && errno != EINTR)
			return -errno;
		if (r <= 0)
			continue;
		n = recv(fd, lb->buf + lb->len, sizeof(lb->buf) - lb->len, 0);
		if (n == 0)
			return -ECONNRESET;
		if (n < 0) {
			if (errno == EINTR || errno == EAGAIN)
				continue;
			return -errno;
		}
		lb->len += (size_t)n;
	}
}

int netio_write_all(int fd, const void *buf, size_t len, int timeout_ms)
{
	uint64_t deadline = clock_ns() + (uint64_t)timeout_ms * NSEC_PER_MSEC;
	const char *p = buf;

	while (len > 0) {
		ssize_t n = send(fd, p, len, MSG_NOSIGNAL | MSG_DONTWAIT);

		if (n > 0) {
			p += n;
			len -= (size_t)n;
			continue;
		}
		if (n < 0 && errno != EAGAIN && errno != EINTR)
			return -errno;
		{
			struct pollfd pf = { .fd = fd, .events = POLLOUT };
			int left = ms_left(deadline);

			if (left == 0)
				return -ETIMEDOUT;
			if (poll(&pf, 1, left) < 0 && errno != EINTR)
				return -errno;
		}
	}
	return 0;
}

int netio_send_msg(int fd, const struct netmsg *m, int timeout_ms)
{
	char buf[NETPROTO_MAX_LINE];
	int n = netproto_format(m, buf, sizeof(buf));

	if (n < 0)
		return n;
	return netio_write_all(fd, buf, (size_t)n, timeout_ms);
}

int netio_recv_msg(int fd, struct netio_lines *lb, struct netmsg *m, int timeout_ms, char *err, size_t errlen)
{
	char line[NETPROTO_MAX_LINE];
	int n = netio_read_line(fd, lb, line, sizeof(line), timeout_ms, NULL);

	if (n < 0) {
		snprintf(err, errlen, "%s", n == -ECONNRESET ? "the peer closed the connection" : strerror(-n));
		return n;
	}
	/* the whole line: a NUL in it is refused, not taken for its end */
	return netproto_parse(line, (size_t)n, m, err, errlen);
}

int netio_resolve(const char *hostport, unsigned default_port, struct sockaddr_storage *ss, socklen_t *sl,
		  char *err, size_t errlen)
{
	char host[256], port[16];
	const char *colon;
	struct addrinfo hints, *ai = NULL;
	int r;

	if (hostport[0] == '[') {
		const char *close = strchr(hostport, ']');

		if (!close || (size_t)(close - hostport - 1) >= sizeof(host)) {
			snprintf(err, errlen, "'%s': expected [IPV6]:PORT", hostport);
			return -EINVAL;
		}
		memcpy(host, hostport + 1, (size_t)(close - hostport - 1));
		host[close - hostport - 1] = '\0';
		colon = close[1] == ':' ? close + 1 : NULL;
		if (close[1] && !colon) {
			snprintf(err, errlen, "'%s': expected [IPV6]:PORT", hostport);
			return -EINVAL;
		}
	} else {
		colon = strrchr(hostport, ':');
		if (colon && strchr(hostport, ':') != colon)
			colon = NULL; /* a bare IPv6 address */
		if ((colon ? (size_t)(colon - hostport) : strlen(hostport)) >= sizeof(host) ||
		    (colon && colon == hostport)) {
			snprintf(err, errlen, "'%s': expected HOST or HOST:PORT", hostport);
			return -EINVAL;
		}
		snprintf(host, sizeof(host), "%.*s", (int)(colon ? (size_t)(colon - hostport) : strlen(hostport)),
			 hostport);
	}
	if (colon) {
		char *end;
		unsigned long p;

		errno = 0;
		p = strtoul(colon + 1, &end, 10);
		if (errno || end == colon + 1 || *end || p < 1 || p > 65535) {
			snprintf(err, errlen, "'%s': the port must be 1 to 65535", hostport);
			return -EINVAL;
		}
		snprintf(port, sizeof(port), "%lu", p);
	} else {
		snprintf(port, sizeof(port), "%u", default_port);
	}
	memset(&hints, 0, sizeof(hints));
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	r = getaddrinfo(host, port, &hints, &ai);
	if (r != 0 || !ai) {
		/* a static vmbench resolves a name through this system's glibc
		 * modules, which may be missing or of another version (README) */
		snprintf(err, errlen, "'%s': %s%s", host, r ? gai_strerror(r) : "no address",
			 vmb_static_build ? " (a static vmbench may not resolve names here: give an address)" : "");
		return -EINVAL;
	}
	memcpy(ss, ai->ai_addr, ai->ai_addrlen);
	*sl = ai->ai_addrlen;
	freeaddrinfo(ai);
	return 0;
}

int netio_bind_addr(const char *addr, struct sockaddr_storage *ss, char *err, size_t errlen)
{
	const char *colon = strchr(addr, ':');
	size_t n = strlen(addr);
	struct addrinfo hints, *ai = NULL;
	char host[256];
	int r;

	if (addr[0] == '[') {
		const char *close = strchr(addr, ']');

		if (close && close[1] == ':') {
			snprintf(err, errlen, "'%s': an address without a port (the port is --port's)", addr);
			return -EINVAL;
		}
		if (!close || close[1] || close - addr < 3 || (size_t)(close - addr - 1) >= sizeof(host)) {
			snprintf(err, errlen, "'%s': expected an IPv4 or IPv6 address, [IPV6] or a host name", addr);
			return -EINVAL;
		}
		snprintf(host, sizeof(host), "%.*s", (int)(close - addr - 1), addr + 1);
		if (!strchr(host, ':')) {
			snprintf(err, errlen, "'%s': only an IPv6 address goes in brackets", addr);
			return -EINVAL;
		}
	} else {
		/* one colon is HOST:PORT; an IPv6 address has two at least */
		if (colon && colon == strrchr(addr, ':')) {
			snprintf(err, errlen, "'%s': an address without a port (the port is --port's)", addr);
			return -EINVAL;
		}
		if (n == 0 || n >= sizeof(host)) {
			snprintf(err, errlen, "'%s': expected an IPv4 or IPv6 address, [IPV6] or a host name", addr);
			return -EINVAL;
		}
		snprintf(host, sizeof(host), "%s", addr);
	}
	memset(&hints, 0, sizeof(hints));
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	r = getaddrinfo(host, NULL, &hints, &ai);
	if (r != 0 || !ai) {
		snprintf(err, errlen, "'%s': %s", host, r ? gai_strerror(r) : "no address");
		return -EINVAL;
	}
	memset(ss, 0, sizeof(*ss));
	memcpy(ss, ai->ai_addr, ai->ai_addrlen);
	freeaddrinfo(ai);
	return 0;
}

int netio_connect(const struct sockaddr_storage *ss, socklen_t sl, int timeout_ms)
{
	int fd = socket(ss->ss_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	int one = 1, r, soerr = 0;
	socklen_t el = sizeof(soerr);
	struct pollfd p;

	if (fd < 0)
		return -errno;
	(void)setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	if (connect(fd, (const struct sockaddr *)ss, sl) < 0 && errno != EINPROGRESS) {
		r = -errno;
		goto fail;
	}
	p.fd = fd;
	p.events = POLLOUT;
	r = poll(&p, 1, timeout_ms);
	if (r <= 0) {
		r = r == 0 ? -ETIMEDOUT : -errno;
		goto fail;
	}
	if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &el) < 0 || soerr) {
		r = soerr ? -soerr : -errno;
		goto fail;
	}
	return fd;
fail:
	close(fd);
	return r;
}

bool netio_is_loopback(const struct sockaddr_storage *ss)
{
	if (ss->ss_family == AF_INET)
		return (ntohl(((const struct sockaddr_in *)ss)->sin_addr.s_addr) >> 24) == 127;
	if (ss->ss_family == AF_INET6)
		return IN6_IS_ADDR_LOOPBACK(&((const struct sockaddr_in6 *)ss)->sin6_addr);
	return false;
}

uint64_t netio_tcp_retrans(int fd)
{
	struct tcp_info ti;
	socklen_t l = sizeof(ti);

	memset(&ti, 0, sizeof(ti));
	if (getsockopt(fd, IPPROTO_TCP, TCP_INFO, &ti, &l) < 0)
		return 0;
	return ti.tcpi_total_retrans;
}
