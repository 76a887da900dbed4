/* The network path of a lab boot: the other end of the guest's NIC. On a
 * tap back end (src/lab/qemu.h) the guest's NIC is on a private link into
 * QEMU's own network namespace; the net suite's traffic goes over it in
 * the direction the matrix key netdir names (LAB_NETDIRS, matrix.h):
 *   guest-client  `vmbench serve` in the namespace, the guest's run of the
 *                 net suite against it;
 *   guest-server  `vmbench serve` in the guest (the agent's SERVE), the
 *                 host's run of the net suite against it, from inside the
 *                 namespace.
 * A token made per boot authenticates both ends ($VMBENCH_NET_TOKEN: the
 * agent protocol's TOKEN in the guest, the environment on the host). */
#ifndef VMB_LABNET_H
#define VMB_LABNET_H

#include <jansson.h>
#include <sys/types.h>

#include "matrix.h"
#include "proto_host.h"
#include "qemu.h"
#include "../core/opts.h"
#include "../core/suite.h"

struct lab_netdir;

/* The note of each suite the host's client measured (guest-server): who
 * ran the client, and from where. */
#define LABNET_CLIENT_NOTE "net_client"
#define LABNET_CLIENT_HOST "the host's, from QEMU's network namespace, against vmbench serve in the guest"

/* The note of each suite measured over several NICs or shaped links (the
 * nics and linkrate keys): how many, bonded how, each link's rate. */
#define LABNET_LINKS_NOTE "net_links"

struct lab_net {
	pid_t qemu;                     /* whose network namespace: QEMU's, or the lab's link's holder (lablink.h) */
	const struct lab_backend *be;   /* the NIC's back end: a link when it has addresses */
	const struct lab_netdir *dir;   /* NULL: not started (no link, or no net item) */
	char token[33];
	char server[80];                /* the HOST:PORT the net suite measures against */
	char url[96];                   /* net.http's URL of a server in the guest (httpd=nginx), or "" */
	char memcached[64];             /* net.memcached's server in the guest (its image's memcached), or "" */
	pid_t helper;                   /* the host's serve in the namespace, or 0 */
	char links[256];                /* the links' note (LABNET_LINKS_NOTE), or "": one NIC, unshaped */
};

/* Is there a link to measure over (a NIC on a back end with addresses)? */
bool lab_net_linked(const struct lab_config *c, const struct lab_paths *p);
/* The other end up, in the configuration's direction: the token handed to
 * the guest, a serve started on the host or in the guest. */
int lab_net_start(struct lab_net *n, struct proto_conn *conn, const struct lab_config *c, char *err, size_t errlen);
/* RUN options of a net item: the server the guest's run measures against,
 * the URL of the guest's HTTP server for a suite with a url option, and
 * the guest's memcached for one with a memcached-server option. */
int lab_net_item_opts(const struct lab_net *n, const struct vmb_suite *suite, json_t *opts);
/* One net item (what: "net.tcp_rr"), measured in the configuration's
 * direction, as the guest's document (proto_host_adopt with hello_fp). */
int lab_net_run(struct lab_net *n, struct proto_conn *conn, const char *what, const json_t *opts,
		const json_t *hello_fp, const struct vmb_opt *run_table, json_t **doc, char *err, size_t errlen);
/* The host's helper gone (idempotent). */
void lab_net_stop(struct lab_net *n);

/* A socket (socket(2)'s domain and type) made in the network namespace of
 * process pid (QEMU's, where the guest's link is), by this thread entering
 * it for the call and coming back: the socket stays in that namespace. The
 * descriptor, or a negative errno (-EPERM without CAP_SYS_ADMIN). */
int lab_net_socket_in(pid_t pid, int domain, int type);
/* fn(arg) run by this thread in the network namespace of process pid,
 * and back (abort() if it cannot come back): fn's return, or a negative
 * errno when the namespace cannot be entered. What fn starts (a socket, a
 * child process) stays in that namespace. */
int lab_net_in(pid_t pid, int (*fn)(void *arg), void *arg);
/* The guest's NIC answering: an ICMP echo to guest_addr (the back end's
 * "ADDR/LEN") from QEMU's network namespace, one every 200 ms until a
 * reply, within timeout_ms. The guest's kernel answers it, no process of
 * the guest's. 0, -ETIMEDOUT, or a negative errno, with why in err. */
int lab_net_ping(pid_t qemu, const char *guest_addr, int timeout_ms, char *err, size_t errlen);

#endif
