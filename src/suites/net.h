/* The net suite's shared state between net.c (the stream and
 * request/response tests), net_ctl.c (the control session with the server),
 * net_http.c and net_memcached.c (the load generators on net_load.c). */
#ifndef VMB_SUITES_NET_H
#define VMB_SUITES_NET_H

#include <pthread.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/types.h>

#include "../core/suite.h"
#include "../net/io.h"

struct netsrv;
struct net_ctl;
struct netmsg;
struct netverify_tally;

/* How long the client waits for the server on the control session, and to connect a test's data socket. */
#define NET_CTL_TIMEOUT_MS 5000

struct net_state {
	struct sockaddr_storage srv;   /* the control port */
	socklen_t srvlen;
	char srvname[300];             /* HOST:PORT as given or as started */
	const char *token;             /* NULL: none */
	struct netsrv *local;          /* the loopback serve started for this run, or NULL */
	pthread_t local_thread;
	double window_s;               /* how long a repetition measures */
	struct net_ctl *ctl;           /* the run's control session, opened on first use */
	/* net.memcached's server (net_memcached.c): --net.memcached-server, or
	 * memcached started for the run (mc_pid, its process group's leader) */
	struct sockaddr_storage mc_addr;
	socklen_t mc_alen;
	char mc_name[300];             /* HOST:PORT, "" until the first repetition */
	pid_t mc_pid;                  /* 0: none started (or reaped) */
	uint64_t mc_loaded_keys;       /* the key space preloaded, and its sizes */
	size_t mc_loaded_klen, mc_loaded_vlen;
};

/* A control session: connected, greeted. */
struct net_ctl {
	int fd;
	struct netio_lines lines;
	uint64_t test_start_ns; /* when the last TEST was sent */
	unsigned http_port;     /* the session's HTTP port, once asked for (0: not yet) */
};

int net_ctl_open(struct vmb_ctx *ctx, const struct net_state *st, struct net_ctl *c);
void net_ctl_close(struct net_ctl *c);
/* The run's control session (one for the whole run, so that `serve --once`
 * serves a whole `run net`): opened on first use, NULL after a message. */
struct net_ctl *net_ctl_get(struct vmb_ctx *ctx, struct net_state *st);
/* STATS: the server's count of HTTP requests answered. */
int net_ctl_http_count(struct vmb_ctx *ctx, struct net_ctl *c, uint64_t *out);
/* HTTP: the port on which serve answers this session's HTTP requests. */
int net_ctl_http_port(struct vmb_ctx *ctx, struct net_ctl *c, unsigned *port);
/* TEST (req) -> PORT: the test's data address in *data (the server's, with its port). */
int net_ctl_test(struct vmb_ctx *ctx, const struct net_state *st, struct net_ctl *c, const struct netmsg *req,
		 struct sockaddr_storage *data);
/* END, close the data sockets, then RESULT into res, checked against the client's own account (tally). */
int net_ctl_end(struct vmb_ctx *ctx, const struct net_state *st, struct net_ctl *c, struct netmsg *res, int *data,
		unsigned ndata, struct netverify_tally *tally);

int net_http_run(struct vmb_ctx *ctx, const struct vmb_test *test, struct vmb_rep *rep);
int net_memcached_run(struct vmb_ctx *ctx, const struct vmb_test *test, struct vmb_rep *rep);
/* The run's memcached, if one was started: stopped and reaped (idempotent). */
void net_mc_stop(struct net_state *st);

#endif
