/* The network path of a lab boot (labnet.h): the token, the other end of
 * the guest's NIC in the direction netdir names, and the host's processes
 * in QEMU's network namespace. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/wait.h>
#include <unistd.h>

#include "labnet.h"
#include "procs.h"
#include "../core/clock.h"
#include "../core/stop.h"
#include "../core/stoppoint.h"
#include "../core/suite.h"
#include "../core/str.h"
#include "../store/doc.h"
#include "../core/banned.h"

/* How long a serve may take to say where it listens; how long the host's
 * run of one net item may take in all (as a guest's RUN). */
#define LABNET_SERVE_MS 15000
#define LABNET_RUN_MS 3600000

struct lab_netdir {
	const char *name;
	int (*start)(struct lab_net *n, struct proto_conn *conn, char *err, size_t errlen);
	int (*run)(struct lab_net *n, struct proto_conn *conn, const char *what, const json_t *opts,
		   const json_t *hello_fp, const struct vmb_opt *run_table, json_t **doc, char *err, size_t errlen);
};

bool lab_net_linked(const struct lab_config *c, const struct lab_paths *p)
{
	const struct lab_backend *be = lab_config_device(c, LAB_NIC) ? lab_backend_of(p, LAB_NIC) : NULL;

	return be && be->host_addr && be->guest_addr;
}

/* A vmbench of ours (argv, "vmbench" first) in QEMU's network namespace:
 * in a process group of its own, killed when we die (even of SIGKILL), the
 * token in its environment, tracked for the signal handlers. Its stdout
 * and stderr on *out and *errp. */
static int ns_spawn(struct lab_net *n, char *const argv[], pid_t *pid, int *out, int *errp)
{
	char nspath[64];
	int po[2] = { -1, -1 }, pe[2] = { -1, -1 }, nsfd, r = 0;
	pid_t parent = getpid();

	snprintf(nspath, sizeof(nspath), "/proc/%d/ns/net", (int)n->qemu);
	nsfd = open(nspath, O_RDONLY | O_CLOEXEC);
	if (nsfd < 0)
		return -errno;
	if (pipe2(po, O_CLOEXEC) < 0 || pipe2(pe, O_CLOEXEC) < 0) {
		r = -errno;
		goto out;
	}
	*pid = fork();
	if (*pid < 0) {
		r = -errno;
		goto out;
	}
	if (*pid == 0) {
		int null = open("/dev/null", O_RDWR);

		(void)setpgid(0, 0);
		if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() != parent || setns(nsfd, CLONE_NEWNET) < 0 ||
		    null < 0 || dup2(null, STDIN_FILENO) < 0 || dup2(po[1], STDOUT_FILENO) < 0 ||
		    dup2(pe[1], STDERR_FILENO) < 0 || setenv("VMBENCH_NET_TOKEN", n->token, 1) < 0)
			_exit(127);
		execv("/proc/self/exe", argv);
		_exit(127);
	}
	(void)setpgid(*pid, *pid);
	r = lab_proc_track(*pid);
	if (r < 0) {
		*pid = 0;
		goto out;
	}
	*out = po[0];
	*errp = pe[0];
	po[0] = pe[0] = -1;
out:
	for (int i = 0; i < 2; i++) {
		if (po[i] >= 0)
			close(po[i]);
		if (pe[i] >= 0)
			close(pe[i]);
	}
	close(nsfd);
	return r;
}

int lab_net_in(pid_t pid, int (*fn)(void *arg), void *arg)
{
	char nspath[64];
	int ns, home, r;

	snprintf(nspath, sizeof(nspath), "/proc/%d/ns/net", (int)pid);
	ns = open(nspath, O_RDONLY | O_CLOEXEC);
	if (ns < 0)
		return -errno;
	/* this thread's own namespace, to come back to */
	home = open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC);
	if (home < 0) {
		r = -errno;
		close(ns);
		return r;
	}
	if (setns(ns, CLONE_NEWNET) < 0) {
		r = -errno;
		close(ns);
		close(home);
		return r;
	}
	r = fn(arg);
	/* back home; a thread left in QEMU's namespace would be worse than a failure */
	if (setns(home, CLONE_NEWNET) < 0)
		abort();
	close(ns);
	close(home);
	return r;
}

struct socket_req {
	int domain, type, protocol;
};

static int socket_here(void *arg)
{
	const struct socket_req *q = arg;
	int fd = socket(q->domain, q->type | SOCK_CLOEXEC, q->protocol);

	return fd < 0 ? -errno : fd;
}

static int socket_in(pid_t pid, int domain, int type, int protocol)
{
	return lab_net_in(pid, socket_here, &(struct socket_req){ .domain = domain, .type = type, .protocol = protocol });
}

int lab_net_socket_in(pid_t pid, int domain, int type)
{
	return socket_in(pid, domain, type, 0);
}

/* One descriptor read into a growing buffer, NUL-terminated. */
struct capture {
	int fd;
	char **buf;
	size_t *len, cap;
	bool done; /* EOF or an error: nothing more comes */
};

/* Read what is there of c: 0, or -ENOMEM. */
static int take(struct capture *c)
{
	ssize_t got;

	if (c->cap - *c->len < 65536) {
		char *nb = realloc(*c->buf, c->cap + 262144);

		if (!nb)
			return -ENOMEM;
		*c->buf = nb;
		c->cap += 262144;
	}
	got = read(c->fd, *c->buf + *c->len, c->cap - *c->len - 1);
	if (got < 0 && errno == EINTR)
		return 0;
	if (got <= 0) {
		c->done = true;
		return 0;
	}
	*c->len += (size_t)got;
	(*c->buf)[*c->len] = '\0';
	return 0;
}

/* Read the n descriptors at once until each ends (or, when line, until the
 * first holds a newline), bounded by deadline and by a stop request: a
 * child that fills one pipe while its reader waits on the other cannot
 * stall. 0, -ETIMEDOUT, -EINTR or -ENOMEM. */
static int collect_any(struct capture *c, size_t n, bool line, uint64_t deadline)
{
	for (;;) {
		struct pollfd p[2];
		size_t open = 0;

		if (line && *c[0].buf && memchr(*c[0].buf, '\n', *c[0].len))
			return 0;
		for (size_t i = 0; i < n && i < 2; i++)
			if (!c[i].done)
				p[open++] = (struct pollfd){ .fd = c[i].fd, .events = POLLIN };
		if (!open)
			return 0;
		if (vmb_stop_requested())
			return -EINTR;
		if (clock_ns() >= deadline)
			return -ETIMEDOUT;
		if (poll(p, (nfds_t)open, 200) <= 0)
			continue;
		for (size_t i = 0, k = 0; i < n && i < 2; i++) {
			int r;

			if (c[i].done)
				continue;
			r = p[k++].revents ? take(&c[i]) : 0;
			if (r < 0)
				return r;
		}
	}
}

/* Read fd until EOF (or until the first newline, when line) into buf,
 * bounded by deadline and by a stop request. 0, -ETIMEDOUT or -EINTR. */
static int collect(int fd, char **buf, size_t *len, bool line, uint64_t deadline)
{
	struct capture c = { .fd = fd, .buf = buf, .len = len, .cap = *len + 1 };

	return collect_any(&c, 1, line, deadline);
}

/* The last line of text, for a message. */
static const char *last_line(char *text)
{
	char *end = text ? text + strlen(text) : NULL, *p;

	if (!text)
		return "";
	while (end > text && end[-1] == '\n')
		*--end = '\0';
	p = strrchr(text, '\n');
	return p ? p + 1 : text;
}

/* guest-client: `vmbench serve` on the host's end of the link, in the namespace */
static int netdir_client_start(struct lab_net *n, struct proto_conn *conn, char *err, size_t errlen)
{
	char *argv[] = { "vmbench", "serve", "--bind", (char *)n->be->host_addr, NULL };
	char *out = NULL, *errtext = NULL, *nl;
	size_t ol = 0, el = 0;
	int fo, fe, r;

	(void)conn;
	r = ns_spawn(n, argv, &n->helper, &fo, &fe);
	if (r < 0)
		return errf(err, errlen, r, "starting vmbench serve in the lab's network namespace: %s", strerror(-r));
	r = collect(fo, &out, &ol, true, clock_ns() + (uint64_t)LABNET_SERVE_MS * 1000000);
	nl = out ? strchr(out, '\n') : NULL;
	if (r < 0 || !nl || strncmp(out, "listening on ", 13)) {
		(void)collect(fe, &errtext, &el, false, clock_ns() + 1000000000ull);
		r = errf(err, errlen, r < 0 ? r : -EIO, "vmbench serve in the lab's network namespace did not start%s%s",
			 errtext ? ": " : "", last_line(errtext));
	} else {
		*nl = '\0';
		snprintf(n->server, sizeof(n->server), "%s", out + 13);
	}
	free(out);
	free(errtext);
	close(fo);
	close(fe);
	if (r < 0)
		lab_net_stop(n);
	return r;
}

/* guest-client: the guest runs the item, against the host's serve */
static int netdir_client_run(struct lab_net *n, struct proto_conn *conn, const char *what, const json_t *opts,
			     const json_t *hello_fp, const struct vmb_opt *run_table, json_t **doc, char *err,
			     size_t errlen)
{
	int r = proto_host_run(conn, what, opts, hello_fp, 120000, LABNET_RUN_MS, doc);

	(void)n, (void)run_table;
	return r < 0 ? errf(err, errlen, r, "%s", conn->err) : 0;
}

/* guest-server: the agent starts `vmbench serve` on the guest's end */
static int netdir_server_start(struct lab_net *n, struct proto_conn *conn, char *err, size_t errlen)
{
	char addr[64];
	int r;

	snprintf(addr, sizeof(addr), "%.*s", (int)strcspn(n->be->guest_addr, "/"), n->be->guest_addr);
	r = proto_host_serve(conn, addr, LABNET_SERVE_MS, n->server, sizeof(n->server));
	return r < 0 ? errf(err, errlen, r, "%s", conn->err) : 0;
}

/* Every suite of a document the host measured says so in its notes:
 * the client was the host's, the guest only served. */
static int net_client_note(json_t *doc)
{
	return doc_note_all(doc, LABNET_CLIENT_NOTE, json_string(LABNET_CLIENT_HOST));
}

/* guest-server: the host runs the item from inside the namespace, with the
 * arguments the agent would have run it with (proto_parse_run: the same
 * checks, the same conversion); its document is the configuration's, with
 * the guest's fingerprint (proto_host_adopt). */
static int netdir_server_run(struct lab_net *n, struct proto_conn *conn, const char *what, const json_t *opts,
			     const json_t *hello_fp, const struct vmb_opt *run_table, json_t **doc, char *err,
			     size_t errlen)
{
	/* the host's client runs without a background load of its own: a
	 * guest's load ("load", lab contend's) is the guest's, sent as LOAD */
	json_t *own = json_deep_copy(opts);
	char *o = own && (json_object_del(own, "load"), true) ? json_dumps(own, JSON_COMPACT) : NULL;
	char *line = o ? xasprintf("RUN %s %s", what, o) : NULL;
	char *out = NULL, *errtext = NULL, why[512];
	struct proto_run req = { 0 };
	struct strv argv = { 0 };
	size_t ol = 0, el = 0;
	int fo = -1, fe = -1, r, status = 0;
	pid_t pid = 0;
	uint64_t deadline = clock_ns() + (uint64_t)LABNET_RUN_MS * 1000000;

	(void)conn;
	*doc = NULL;
	r = line ? proto_parse_run(line, run_table, &req, err, errlen) : errf(err, errlen, -ENOMEM, "out of memory");
	if (r == 0 && proto_run_argv(&req, NULL, &argv) < 0)
		r = errf(err, errlen, -ENOMEM, "out of memory");
	if (r == 0 && (r = ns_spawn(n, argv.v, &pid, &fo, &fe)) < 0)
		errf(err, errlen, r, "starting the host's run of %s in the lab's network namespace: %s", what,
		     strerror(-r));
	/* tests interrupt or kill -9 the run here: the host's client running
	 * in the namespace (lab contend: its guest under LOAD) */
	if (r == 0)
		vmb_test_stop_point("lab-net-client");
	if (r == 0) {
		struct capture both[2] = { { .fd = fo, .buf = &out, .len = &ol, .cap = 1 },
					   { .fd = fe, .buf = &errtext, .len = &el, .cap = 1 } };

		r = collect_any(both, 2, false, deadline);
		(void)lab_proc_reap(pid, 0, &status);
		if (r < 0)
			errf(err, errlen, r, "the host's run of %s against the guest's serve: %s", what,
			     r == -EINTR ? "interrupted" : r == -ETIMEDOUT ? "over the run's time limit" : strerror(-r));
	}
	/* exit 1: a measurement failed, the document is still there */
	if (r == 0 && !(WIFEXITED(status) && WEXITSTATUS(status) <= 1 && out))
		r = errf(err, errlen, -EIO, "the host's run of %s against the guest's serve failed: %s", what,
			 *last_line(errtext) ? last_line(errtext) : "no result");
	if (r == 0 && doc_load_string(out, "the host's run", doc, why, sizeof(why)) < 0)
		r = errf(err, errlen, -EPROTO, "%s", why);
	if (r == 0 && proto_host_adopt(*doc, what, hello_fp, why, sizeof(why)) < 0)
		r = errf(err, errlen, -EPROTO, "%s", why);
	if (r == 0 && net_client_note(*doc) < 0)
		r = errf(err, errlen, -ENOMEM, "out of memory");
	if (r < 0) {
		json_decref(*doc);
		*doc = NULL;
	}
	if (fo >= 0)
		close(fo);
	if (fe >= 0)
		close(fe);
	free(out);
	free(errtext);
	free(o);
	free(line);
	json_decref(own);
	strv_clear(&argv);
	proto_run_release(&req);
	return r;
}

static const struct lab_netdir netdirs[] = {
#define NETDIR_ROW(e, nm, st, rn) { .name = nm, .start = st, .run = rn },
	LAB_NETDIRS(NETDIR_ROW)
#undef NETDIR_ROW
};

/* A token of 32 hex digits from the kernel's random source. */
static int make_token(char *buf, size_t len)
{
	unsigned char raw[16];
	int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
	ssize_t got = fd >= 0 ? read(fd, raw, sizeof(raw)) : -1;

	if (fd >= 0)
		close(fd);
	if (got != (ssize_t)sizeof(raw) || len < 2 * sizeof(raw) + 1)
		return -EIO;
	for (size_t i = 0; i < sizeof(raw); i++)
		snprintf(buf + 2 * i, 3, "%02x", raw[i]);
	return 0;
}

int lab_net_start(struct lab_net *n, struct proto_conn *conn, const struct lab_config *c, char *err, size_t errlen)
{
	int r;

	n->dir = NULL;
	for (size_t i = 0; i < ARRAY_SIZE(netdirs); i++)
		if (!strcmp(netdirs[i].name, c->v[LAB_NETDIR]))
			n->dir = &netdirs[i];
	if (!n->dir)
		return errf(err, errlen, -EINVAL, "netdir=%s is no direction", c->v[LAB_NETDIR]);
	n->url[0] = '\0';
	{
		/* the guest's own HTTP server, on its address of the link */
		const struct lab_httpd *h = lab_config_httpd(c);

		if (h && h->port)
			snprintf(n->url, sizeof(n->url), "http://%.*s:%u%s", (int)strcspn(n->be->guest_addr, "/"),
				 n->be->guest_addr, h->port, h->path);
	}
	n->memcached[0] = '\0';
	/* the guest's memcached, in an image that has it, loaded from the host */
	if (c->server && lab_image_has(lab_config_image(c), "memcached"))
		snprintf(n->memcached, sizeof(n->memcached), "%.*s:%u", (int)strcspn(n->be->guest_addr, "/"),
			 n->be->guest_addr, LAB_MEMCACHED_PORT);
	n->links[0] = '\0';
	if (c->nics > 1 || c->link_bps) {
		char rate[64] = "unshaped (the emulated NIC's data path alone)";

		if (c->link_bps)
			snprintf(rate, sizeof(rate), "shaped to %.6g Mbit/s each way by tc tbf on the host",
				 (double)c->link_bps / 1e6);
		snprintf(n->links, sizeof(n->links), "%u NIC%s of nic=%s%s, each link %s", c->nics, c->nics > 1 ? "s" : "",
			 c->v[LAB_NIC], c->nics > 1 ? ", bonded " LAB_BOND_MODE " in the guest and bridged on the host" : "",
			 rate);
	}
	if (make_token(n->token, sizeof(n->token)) < 0)
		return errf(err, errlen, -EIO, "no random token for the net suite (/dev/urandom)");
	r = proto_host_token(conn, n->token, 10000);
	if (r < 0)
		return errf(err, errlen, r, "%s", conn->err);
	return n->dir->start(n, conn, err, errlen);
}

int lab_net_item_opts(const struct lab_net *n, const struct vmb_suite *suite, json_t *opts)
{
	char key[96];

	if (!n->dir || !suite || !(suite->flags & VMB_SUITE_NET_PEER))
		return 0;
	snprintf(key, sizeof(key), "%s.server", suite->name);
	if (json_object_set_new(opts, key, json_string(n->server)) < 0)
		return -ENOMEM;
	for (const struct vmb_opt *o = suite->opts; o && o->name; o++) {
		const char *v = !strcmp(o->name, "url") ? n->url : !strcmp(o->name, "memcached-server") ? n->memcached : "";

		if (!*v)
			continue;
		snprintf(key, sizeof(key), "%s.%s", suite->name, o->name);
		if (json_object_set_new(opts, key, json_string(v)) < 0)
			return -ENOMEM;
	}
	return 0;
}

int lab_net_run(struct lab_net *n, struct proto_conn *conn, const char *what, const json_t *opts,
		const json_t *hello_fp, const struct vmb_opt *run_table, json_t **doc, char *err, size_t errlen)
{
	int r = n->dir->run(n, conn, what, opts, hello_fp, run_table, doc, err, errlen);

	if (r == 0 && *doc && n->links[0] && doc_note_all(*doc, LABNET_LINKS_NOTE, json_string(n->links)) < 0) {
		json_decref(*doc);
		*doc = NULL;
		r = errf(err, errlen, -ENOMEM, "out of memory");
	}
	return r;
}

/* The Internet checksum (RFC 1071) of an ICMP message. */
static uint16_t icmp_sum(const unsigned char *p, size_t n)
{
	uint32_t s = 0;

	for (size_t i = 0; i + 1 < n; i += 2)
		s += (uint32_t)(p[i] << 8 | p[i + 1]);
	if (n & 1)
		s += (uint32_t)p[n - 1] << 8;
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return (uint16_t)~s;
}

int lab_net_ping(pid_t qemu, const char *guest_addr, int timeout_ms, char *err, size_t errlen)
{
	char addr[64];
	struct sockaddr_in to = { .sin_family = AF_INET };
	uint16_t id = (uint16_t)getpid();
	uint64_t deadline = clock_ns() + (uint64_t)timeout_ms * 1000000, next = 0;
	bool raw = true;
	int fd, r = -ETIMEDOUT;

	snprintf(addr, sizeof(addr), "%.*s", (int)strcspn(guest_addr, "/"), guest_addr);
	if (inet_pton(AF_INET, addr, &to.sin_addr) != 1)
		return errf(err, errlen, -EINVAL, "the guest's address %s is no IPv4 address", addr);
	/* a raw socket as root; else the kernel's ping socket, where allowed */
	fd = socket_in(qemu, AF_INET, SOCK_RAW | SOCK_NONBLOCK, IPPROTO_ICMP);
	if (fd < 0) {
		raw = false;
		fd = socket_in(qemu, AF_INET, SOCK_DGRAM | SOCK_NONBLOCK, IPPROTO_ICMP);
	}
	if (fd < 0)
		return errf(err, errlen, fd, "an ICMP socket in QEMU's network namespace: %s", strerror(-fd));
	for (uint16_t seq = 1; clock_ns() < deadline && !vmb_stop_requested();) {
		unsigned char pkt[16] = { 8, 0 }, in[256];
		struct pollfd pf = { .fd = fd, .events = POLLIN };
		ssize_t got;

		/* an echo request every 200 ms until one is answered */
		if (clock_ns() >= next) {
			uint16_t sum;

			pkt[4] = (unsigned char)(id >> 8), pkt[5] = (unsigned char)id;
			pkt[6] = (unsigned char)(seq >> 8), pkt[7] = (unsigned char)seq;
			sum = icmp_sum(pkt, sizeof(pkt));
			pkt[2] = (unsigned char)(sum >> 8), pkt[3] = (unsigned char)sum;
			if (sendto(fd, pkt, sizeof(pkt), 0, (const struct sockaddr *)&to, sizeof(to)) < 0 &&
			    errno != EAGAIN && errno != EHOSTUNREACH && errno != ENETUNREACH) {
				r = errf(err, errlen, -errno, "sending an ICMP echo request to %s: %s", addr, strerror(errno));
				break;
			}
			seq++;
			next = clock_ns() + 200000000ull;
		}
		if (poll(&pf, 1, 50) <= 0)
			continue;
		got = recv(fd, in, sizeof(in), 0);
		if (got > 0) {
			/* a raw socket gives the IP header first; the ping socket the ICMP message */
			size_t off = raw ? (size_t)(in[0] & 0x0f) * 4 : 0;

			if ((size_t)got >= off + 8 && in[off] == 0 && (!raw || ((in[off + 4] << 8 | in[off + 5]) == id &&
									      !memcmp(in + 12, &to.sin_addr, 4)))) {
				r = 0;
				break;
			}
		}
	}
	close(fd);
	if (r == -ETIMEDOUT)
		errf(err, errlen, r, "the guest did not answer an ICMP echo to %s within %d ms", addr, timeout_ms);
	return r;
}

void lab_net_stop(struct lab_net *n)
{
	if (n->helper > 0)
		(void)lab_proc_reap(n->helper, 0, NULL);
	n->helper = 0;
}
