/* The request/response load engine of net.http and net.memcached: N
 * connections over T threads, each thread one epoll loop, each connection
 * one request in flight. Two modes, as wrk and wrk2 define them: as fast as
 * answers come (a closed loop per connection), or a constant total rate
 * with each request's latency measured from its intended send time on the
 * schedule (no coordinated omission). The protocol is a table of callbacks
 * (struct net_load_proto): what the next request is, when the bytes that
 * came complete its answer, and what an answer counts as. */
#ifndef VMB_SUITES_NET_LOAD_H
#define VMB_SUITES_NET_LOAD_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/uio.h>

#include "../core/hist.h"
#include "../core/suite.h"

#define NET_LOAD_IOV 3 /* pieces of one request (memcached's set: head, value, \r\n) */
#define NET_LOAD_DONE 1
#define NET_LOAD_DONE_CLOSE 2

struct net_load_proto {
	size_t conn_size; /* the protocol's state per connection, zeroed at the start */
	/* The next request on a connection (pt: the thread's state, pc: the
	 * connection's): its bytes in iov, which stay where they are until
	 * sent, and its parser made ready. The count of pieces (1 to
	 * NET_LOAD_IOV), or a negative errno: no request then. */
	int (*request)(void *pt, void *pc, struct iovec *iov);
	/* Bytes that came for the request: 0 every byte taken and more wanted,
	 * NET_LOAD_DONE its answer is complete and took *used of them,
	 * NET_LOAD_DONE_CLOSE the same and the server closes the connection
	 * now (a new one replaces it), < 0 malformed. */
	int (*feed)(void *pc, const char *buf, size_t len, size_t *used);
	/* The server closed before the answer was complete: NET_LOAD_DONE or
	 * NET_LOAD_DONE_CLOSE, as feed's, when that completes it (a body framed
	 * by the close), else < 0. NULL: always an error. */
	int (*eof)(void *pc);
	/* An answer complete inside the window, its latency on the schedule. */
	void (*counted)(void *pt, void *pc, uint64_t latency_ns);
};

struct net_load_thread;

/* One repetition's load: the caller fills the first part, net_load_run()
 * the results; net_load_release() frees it. */
struct net_load {
	const struct net_load_proto *proto;
	const struct sockaddr_storage *addr;
	socklen_t alen;
	const char *name;     /* the server's HOST:PORT, for messages */
	const char *kind;     /* what the server is, for messages ("memcached"), or NULL */
	unsigned conns;       /* connections, over ... */
	unsigned threads;     /* ... at most this many threads (no more than conns: set to what ran) */
	double rate;          /* requests/s in all; 0: as fast as answers come */
	double window_s;      /* each thread's window */
	double interval_s;    /* the series' interval (requests_per_s, p99_latency); 0: no series */
	void *pts;            /* the protocol's state of each thread, pt_size apart (threads of them) */
	size_t pt_size;
	/* results, all threads added up */
	uint64_t done;        /* answers inside the windows */
	uint64_t answered;    /* every answer, also those drained after the windows */
	uint64_t bytes, sockerr, timeouts;
	double win;           /* from the first thread's start to the last one's end, s */
	struct hist *all;     /* latency from the schedule (from the send in the closed loop) */
	struct hist *service; /* rate mode: from the actual send (wrk2's uncorrected latency) */
	struct net_load_thread *ts;
	struct vmb_worker *workers;
};

/* A descriptor per connection: the soft limit raised for a large sweep
 * (also for a server the run starts after this). */
void net_load_fd_limit(unsigned conns);
/* Connects, runs every thread's window, adds up. 0; or a negative errno
 * after a message (no answer at all is a failed measurement). */
int net_load_run(struct vmb_ctx *ctx, struct net_load *l);
void net_load_release(struct net_load *l);

/* The figures every protocol has, in the order of the document: the rate,
 * transfer, latency and its p99 ... */
void net_load_report_rate(struct vmb_rep *rep, const struct net_load *l);
/* ... the uncorrected latency under a rate and the closed-loop bound ... */
void net_load_report_loop(struct vmb_rep *rep, const struct net_load *l);
/* ... the series when asked for (0 or -ENOMEM) ... */
int net_load_report_series(struct vmb_rep *rep, const struct net_load *l);
/* ... requests and responses ... */
void net_load_report_counts(struct vmb_rep *rep, const struct net_load *l);
/* ... and the socket errors and timeouts. */
void net_load_report_errors(struct vmb_rep *rep, const struct net_load *l);

#endif
