/* The server side of the net suite (`vmbench serve`, and the loopback
 * server `run net` starts for itself): one listening TCP port carries the
 * control protocol (proto.h), each authenticated control connection on a
 * thread of its own, and an HTTP/1.1 endpoint (static and dynamic pages)
 * served by one epoll loop. With a token, HTTP is answered only on a port
 * announced to an authenticated session and only to that session's
 * address; the main port answers a short 403. Every test is bounded in
 * time, rate and connections; a client error ends that client's session,
 * never the server. */
#ifndef VMB_NET_SERVE_H
#define VMB_NET_SERVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

struct netsrv_conf {
	const struct sockaddr_storage *addr; /* address to bind (its port is ignored); 127.0.0.1 when NULL */
	unsigned port;     /* 0: any free port */
	const char *token; /* NULL: none asked of clients */
	bool once;         /* stop after the first control session */
	unsigned stall_ms; /* pause the HTTP loop this long once a second (0: never): a
			    * known stall that a constant-rate client must show in its tail */
	/* Total deadlines, not idle timers (0: the defaults below): a control
	 * connection's greeting and authentication, one HTTP request from its
	 * first byte (or from the end of the last response) to its blank line,
	 * and a whole control session. */
	unsigned auth_ms, request_ms, session_ms;
};

/* The shortest token a server on a non-loopback address takes: 16 of the
 * 65 characters a token may hold are 96 bits when drawn at random (e.g.
 * `openssl rand -hex 16`, 32 characters); a short one is guessed. */
#define NETSRV_TOKEN_MIN 16

#define NETSRV_AUTH_MS 5000u
#define NETSRV_REQUEST_MS 10000u
#define NETSRV_SESSION_MS 3600000u

/* The dynamic page's work: this many rounds of a 64-bit xorshift mix per
 * request, its result printed in the page (documented in methodology.md). */
#define NETSRV_DYNAMIC_ROUNDS 20000u
/* The largest static page, /static/N. */
#define NETSRV_MAX_BODY (1u << 20)

struct netsrv;

/* Bind and listen. 0, or a negative errno after a message. */
int netsrv_open(const struct netsrv_conf *conf, struct netsrv **out);
unsigned netsrv_port(const struct netsrv *s);
/* "ADDR:PORT" or "[V6ADDR]:PORT" of the listening socket. */
void netsrv_name(const struct netsrv *s, char *buf, size_t len);
/* Serve until netsrv_stop(), Ctrl-C or, with once, the end of the first
 * session. 0, or a negative errno after a message. */
int netsrv_run(struct netsrv *s);
/* From any thread: ask netsrv_run to return (within about 100 ms). */
void netsrv_stop(struct netsrv *s);
/* Joins every session thread and closes every socket. */
void netsrv_free(struct netsrv *s);
/* HTTP requests answered since the server started. */
uint64_t netsrv_http_count(const struct netsrv *s);

/* The dynamic page's computation (exported for its unit test). */
uint64_t netsrv_dynamic_work(uint64_t seed, unsigned rounds);

#endif
