/* What the three parts of serve share, and nothing else uses: the server,
 * its session slots and its connections (serve.c: the control sessions and
 * the epoll loop; serve_test.c: the data phase of each test kind;
 * serve_http.c: the HTTP endpoint). Not a public interface: serve.h is. */
#ifndef VMB_NET_SERVE_INT_H
#define VMB_NET_SERVE_INT_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>

#include "authlim.h"
#include "serve.h"
#include "io.h"
#include "proto.h"
#include "../core/clock.h"

#define MAX_SESSIONS 16
#define MAX_SESSIONS_PER_ADDR 4 /* one address cannot take every slot */
#define MAX_CONNS 4096
#define MAX_UNAUTH_PER_ADDR 64  /* connections on the main port not yet (or never) authenticated */
#define IDLE_TIMEOUT_MS 30000   /* a control session waiting for its next message */
#define HTTP_IDLE_MS 10000      /* a response that the client does not read any of */
#define STEP_TIMEOUT_MS 5000    /* connecting the data sockets, draining after END */
#define GRACE_MS 10000          /* a test may overrun its duration by this much */
#define HTTP_IN 8192
#define MAX_BAD_LINES 8
/* After accept fails for want of descriptors or memory, the listener is not
 * polled for this long: the connection waiting in its backlog would make
 * every poll return at once, and the loop spin. */
#define ACCEPT_PAUSE_MS 250

struct netsrv;

/* What an epoll event's pointer points at: the first member of each. */
enum ev_kind { EV_LISTEN = 1, EV_HTTP_LISTEN, EV_CONN };

/* A session's own HTTP port: open while the session lasts, accepting only
 * the session's address. */
struct hlisten {
	enum ev_kind kind; /* EV_HTTP_LISTEN */
	int fd;
	unsigned port;
	struct sockaddr_storage peer;
	unsigned slot, gen;
	uint64_t paused_until; /* not polled until then (0: polled); see ACCEPT_PAUSE_MS */
};

struct session {
	struct netsrv *srv;
	pthread_t thread;
	int fd;
	bool used;
	unsigned gen; /* counts the slot's uses: an HTTP connection knows its session's */
	atomic_bool done;
	struct sockaddr_storage peer;
	uint64_t deadline_ns; /* the session's end, whatever it does */
	struct hlisten http;
	struct netio_lines lines;
};

struct hconn {
	enum ev_kind kind; /* EV_CONN */
	int fd;
	bool http; /* known to be HTTP (else: first bytes not yet seen) */
	bool authed; /* accepted on a session's HTTP port */
	unsigned slot, gen; /* that session's */
	bool close_after;
	uint64_t last_ns;  /* the last progress of a response being written */
	uint64_t phase_ns; /* when the wait for this request (or the greeting) began */
	uint64_t hold_ns;  /* a greeting held until then: its address's last token was wrong */
	struct sockaddr_storage peer;
	char in[HTTP_IN];
	size_t inlen;
	char head[256];
	size_t headlen, headoff;
	const char *body;
	size_t bodylen, bodyoff;
	char dyn[64]; /* the dynamic page's body */
	struct hconn *prev, *next;
};

struct netsrv {
	enum ev_kind kind; /* EV_LISTEN: the main listener's epoll tag */
	struct netsrv_conf conf;
	struct sockaddr_storage addr;
	char token[NETPROTO_MAX_TOKEN + 1];
	int lfd, ep;
	unsigned port;
	volatile bool stop;
	bool once_done;
	atomic_uint_fast64_t http_count;
	struct session sessions[MAX_SESSIONS];
	struct hconn *conns;
	unsigned nconns;
	unsigned nheld;        /* connections with hold_ns */
	struct authlim lim;    /* wrong tokens per address */
	uint64_t paused_until; /* the main listener's, as hlisten's */
	bool starved;          /* accept failed for want of descriptors, and none has succeeded since */
	unsigned pauses;       /* of a listener, for want of descriptors */
	uint64_t said_pause_ns; /* when that was last logged */
	char *body; /* NETSRV_MAX_BODY bytes of the static page */
};

static inline uint64_t ms_ns(unsigned ms)
{
	return (uint64_t)ms * NSEC_PER_MSEC;
}

/* serve.c */
bool netsrv_same_host(const struct sockaddr_storage *a, const struct sockaddr_storage *b);
unsigned netsrv_port_of(const struct sockaddr_storage *ss);
/* A socket on the control connection ctl's own local address, on a free
 * port: fd (its port in *port), or a negative errno. */
int netsrv_open_local(int ctl, bool udp, unsigned *port);
void netsrv_conn_close(struct netsrv *s, struct hconn *c);
/* A control connection's greeting: checked, then the connection goes to a
 * session thread (or is refused and closed). */
void netsrv_conn_hello(struct netsrv *s, struct hconn *c);

/* serve_test.c: run one test (TEST .. END .. RESULT). 0, or a negative
 * errno when the session cannot go on (the control connection failed). */
int netsrv_run_test(struct session *se, const struct netmsg *req);

/* serve_http.c: a connection on the main port or a session's HTTP port is
 * readable or writable: advance it. */
void netsrv_conn_event(struct netsrv *s, struct hconn *c, uint32_t ev);

#endif
