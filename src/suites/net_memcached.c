/* The net suite's memcached load generator, with the definitions users
 * know from memaslap and memtier_benchmark: N connections over T threads,
 * each thread one epoll loop, each connection one request in flight; each
 * request a get or a set (memtier's --ratio SET:GET; 1:9, memaslap's mix, by default) of
 * a key drawn uniformly from a key space of --net.memcached-keys keys of
 * --net.memcached-key-size bytes, a set carrying a value of
 * --net.memcached-value-size bytes. Every key is set once before the
 * window (memaslap's and memtier's prepopulation), so that a get misses
 * only when the server dropped the item. Two modes, as net.http has them:
 * as fast as responses come, or a constant total rate (--net.memcached-rate)
 * with each request's latency measured from its intended send time on the
 * schedule (wrk2's correction of coordinated omission).
 *
 * The protocol is memcached's text protocol, written and parsed here
 * (src/net/memcache.c), not libmemcached's: libmemcached's calls block on
 * one request per memcached_st, so an open-loop schedule over hundreds of
 * connections would need a thread per connection, whose wake-ups would
 * enter every latency; an event loop with a parser fed as bytes come has
 * none of that, and no library to add.
 *
 * Without --net.memcached-server, memcached (Debian's package) is started
 * for the run on 127.0.0.1 at a free port, a child in its own process
 * group that dies with vmbench (PR_SET_PDEATHSIG) and is stopped and
 * reaped by the suite's teardown on every exit path. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "net.h"
#include "../core/clock.h"
#include "../net/calc.h"
#include "../net/memcache.h"
#include "../core/banned.h"

#define MC_TIMEOUT_NS 2000000000ull /* a request unanswered this long is a timeout, as net.http's */
#define MC_SWEEP_NS 1000000ull      /* timeouts and reconnections are looked for once a ms */
#define MC_FIRST_NS 10000000000ull  /* a window with no answer yet runs on to the first, this long at most */
#define MC_READS 64
#define MC_RBUF 65536
#define MC_PRELOAD_BATCH 64         /* sets in flight on the preload's connection */
#define MC_START_MS 5000            /* how long a started memcached may take to answer */

enum mstate { M_CONNECTING, M_IDLE, M_WAIT };

struct mconn {
	int fd;
	enum mstate state;
	bool out;            /* the request is not all sent: EPOLLOUT is asked for */
	enum mc_op op;
	uint64_t sent_ns, intended_ns;
	size_t off;          /* bytes of the request sent */
	size_t headlen;
	char head[MC_MAX_KEY + 64];
	char key[MC_MAX_KEY + 1];
	struct mc_resp rp;
};

struct mthread {
	const struct sockaddr_storage *addr;
	socklen_t alen;
	const char *value;   /* --net.memcached-value-size bytes, shared */
	size_t vlen, klen;
	uint64_t keys;
	double set_share;
	unsigned nconn;
	double rate;         /* this thread's share of --net.memcached-rate; 0: as fast as answers come */
	uint64_t rng;
	uint64_t start_ns, end_ns;
	struct mconn *conns;
	char *rbuf;
	int ep;
	bool late; /* the window ended before any answer: it runs on to the first */
	/* results */
	uint64_t done, answered, gets, hits, misses, sets, not_stored, errors, sockerr, timeouts, bytes;
	char first_error[96]; /* the first error line the server sent, for the note */
	struct hist hist, get_hist, set_hist, service;
};

/* xorshift64*: the thread's own draws, the same sequence each run */
static uint64_t mt_rand(struct mthread *t)
{
	t->rng ^= t->rng >> 12;
	t->rng ^= t->rng << 25;
	t->rng ^= t->rng >> 27;
	return t->rng * 0x2545F4914F6CDD1Dull;
}

static int mc_connect(struct mthread *t, struct mconn *c)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.ptr = c };

	c->fd = netio_connect(t->addr, t->alen, 2000);
	if (c->fd < 0)
		return c->fd;
	c->state = M_IDLE;
	c->out = false;
	if (epoll_ctl(t->ep, EPOLL_CTL_ADD, c->fd, &ev) < 0) {
		int r = -errno;

		close(c->fd);
		c->fd = -1;
		return r;
	}
	return 0;
}

static void mc_drop(struct mthread *t, struct mconn *c)
{
	if (c->fd >= 0) {
		(void)epoll_ctl(t->ep, EPOLL_CTL_DEL, c->fd, NULL);
		close(c->fd);
	}
	c->fd = -1;
	c->state = M_CONNECTING;
}

static void mc_error(struct mthread *t, struct mconn *c)
{
	t->sockerr++;
	mc_drop(t, c);
	if (mc_connect(t, c) < 0)
		c->state = M_CONNECTING;
}

static void mc_want_out(struct mthread *t, struct mconn *c, bool on)
{
	struct epoll_event ev = { .events = EPOLLIN | (on ? EPOLLOUT : 0), .data.ptr = c };

	if (c->out != on && epoll_ctl(t->ep, EPOLL_CTL_MOD, c->fd, &ev) == 0)
		c->out = on;
}

/* The request's next bytes, as many as the socket takes: head, then for a
 * set the value and its \r\n. false after an error (the connection replaced). */
static bool mc_push(struct mthread *t, struct mconn *c)
{
	size_t total = c->headlen + (c->op == MC_SET ? t->vlen + 2 : 0);

	while (c->off < total) {
		struct iovec iov[3];
		int n = 0;
		size_t o = c->off;
		ssize_t k;

		if (o < c->headlen)
			iov[n++] = (struct iovec){ .iov_base = c->head + o, .iov_len = c->headlen - o };
		o = o > c->headlen ? o - c->headlen : 0;
		if (c->op == MC_SET) {
			if (o < t->vlen)
				iov[n++] = (struct iovec){ .iov_base = (char *)t->value + o, .iov_len = t->vlen - o };
			o = o > t->vlen ? o - t->vlen : 0;
			iov[n++] = (struct iovec){ .iov_base = (char *)"\r\n" + o, .iov_len = 2 - o };
		}
		{
			struct msghdr m = { .msg_iov = iov, .msg_iovlen = (size_t)n };

			k = sendmsg(c->fd, &m, MSG_NOSIGNAL | MSG_DONTWAIT);
		}
		if (k < 0 && (errno == EAGAIN || errno == EINTR)) {
			mc_want_out(t, c, true);
			return true;
		}
		if (k <= 0) {
			mc_error(t, c);
			return false;
		}
		c->off += (size_t)k;
	}
	mc_want_out(t, c, false);
	return true;
}

/* A request on an idle connection: a get or a set of a key drawn now. */
static bool mc_send(struct mthread *t, struct mconn *c, uint64_t intended)
{
	uint64_t now = clock_ns(), k = mt_rand(t) % t->keys;
	double u = (double)(mt_rand(t) >> 11) / 9007199254740992.0;
	int n;

	c->op = u < t->set_share ? MC_SET : MC_GET;
	(void)mc_key(c->key, sizeof(c->key), t->klen, k);
	n = c->op == MC_SET ? mc_format_set_head(c->head, sizeof(c->head), c->key, t->klen, 0, 0, t->vlen)
			    : mc_format_get(c->head, sizeof(c->head), c->key, t->klen);
	if (n < 0)
		return false; /* the run's checks keep every key and size valid */
	c->headlen = (size_t)n;
	c->off = 0;
	c->state = M_WAIT;
	c->sent_ns = now;
	c->intended_ns = intended ? intended : now;
	mc_resp_init(&c->rp, c->op, c->key, t->klen);
	return mc_push(t, c);
}

static void mc_complete(struct mthread *t, struct mconn *c, uint64_t now)
{
	t->answered++;
	if (now < t->end_ns) {
		uint64_t lat = sched_latency_ns(c->intended_ns, c->sent_ns, now);

		t->done++;
		switch (c->rp.status) {
		case MC_HIT:
			t->hits++;
			break;
		case MC_MISS:
			t->misses++;
			break;
		case MC_STORED:
			break;
		case MC_NOT_STORED:
			t->not_stored++;
			break;
		default:
			if (!t->errors)
				snprintf(t->first_error, sizeof(t->first_error), "%s", c->rp.line);
			t->errors++;
			break;
		}
		if (c->op == MC_GET)
			t->gets++;
		else
			t->sets++;
		hist_record(&t->hist, lat);
		hist_record(c->op == MC_GET ? &t->get_hist : &t->set_hist, lat);
		if (t->rate > 0)
			hist_record(&t->service, now - c->sent_ns);
	}
	c->state = M_IDLE;
	if (t->rate <= 0 && now < t->end_ns)
		(void)mc_send(t, c, 0);
}

static void mc_readable(struct mthread *t, struct mconn *c)
{
	for (unsigned k = 0; k < MC_READS; k++) {
		ssize_t n = recv(c->fd, t->rbuf, MC_RBUF, MSG_DONTWAIT);
		uint64_t now;
		size_t used;
		int r;

		if (n < 0 && (errno == EAGAIN || errno == EINTR))
			return;
		if (n <= 0 || c->state != M_WAIT) {
			mc_error(t, c); /* failed, closed, or bytes when nothing was asked */
			return;
		}
		now = clock_ns();
		if (now < t->end_ns)
			t->bytes += (uint64_t)n;
		r = mc_resp_feed(&c->rp, t->rbuf, (size_t)n, &used);
		if (r < 0 || (r == 1 && used != (size_t)n)) {
			mc_error(t, c); /* not a response to the request, or more than it */
			return;
		}
		if (r == 1) {
			mc_complete(t, c, now);
			return;
		}
		if ((size_t)n < MC_RBUF)
			return;
	}
}

static void mc_event(struct mthread *t, const struct epoll_event *ev)
{
	struct mconn *c = ev->data.ptr;

	if ((ev->events & EPOLLOUT) && c->state == M_WAIT && c->out && !mc_push(t, c))
		return;
	if (c->fd >= 0 && (ev->events & (EPOLLIN | EPOLLERR | EPOLLHUP)))
		mc_readable(t, c);
}

static void mc_thread(struct vmb_worker *w)
{
	struct mthread *t = w->arg;
	struct epoll_event evs[64];
	uint64_t next = 0, sweep = 0;

	t->ep = epoll_create1(EPOLL_CLOEXEC);
	t->conns = calloc(t->nconn, sizeof(*t->conns));
	t->rbuf = malloc(MC_RBUF);
	if (t->ep < 0 || !t->conns || !t->rbuf) {
		w->err = -ENOMEM;
	} else {
		for (unsigned i = 0; i < t->nconn; i++) {
			int r;

			t->conns[i].fd = -1;
			r = mc_connect(t, &t->conns[i]);
			if (r < 0 && !w->err)
				w->err = r;
		}
	}
	vmb_worker_sync(w);
	if (w->err < 0)
		goto out;
	w->start_ns = t->start_ns = clock_ns();
	t->end_ns = t->start_ns + t->end_ns;
	for (;;) {
		uint64_t now = clock_ns(), timeout_ns = 10 * NSEC_PER_MSEC;
		int n;

		if (vmb_stop_requested())
			break;
		if (now >= t->end_ns || (t->late && t->done)) {
			if (t->done || t->late)
				break;
			t->late = true; /* no answer yet: the window runs on to the first, MC_FIRST_NS at most */
			t->end_ns = t->start_ns + MC_FIRST_NS;
		}
		if (now >= sweep) {
			for (unsigned i = 0; i < t->nconn; i++) {
				struct mconn *c = &t->conns[i];

				if (c->state == M_CONNECTING && mc_connect(t, c) < 0)
					t->sockerr++;
				if (c->state == M_WAIT && now - c->sent_ns > MC_TIMEOUT_NS) {
					t->timeouts++;
					mc_drop(t, c);
					(void)mc_connect(t, c);
				}
				if (t->rate <= 0 && c->state == M_IDLE)
					(void)mc_send(t, c, 0);
			}
			sweep = now + MC_SWEEP_NS;
		}
		if (t->rate > 0) {
			unsigned i = 0;

			for (;;) {
				uint64_t due = sched_intended_ns(t->start_ns, next, t->rate);

				if (due > now || due >= t->end_ns) {
					if (due > now && due - now < timeout_ns)
						timeout_ns = due - now;
					break;
				}
				while (i < t->nconn && t->conns[i].state != M_IDLE)
					i++;
				if (i == t->nconn)
					break; /* every connection busy: the request waits, its clock runs */
				if (mc_send(t, &t->conns[i], due))
					next++;
			}
		}
		n = epoll_wait(t->ep, evs, 64, (int)((timeout_ns + NSEC_PER_MSEC - 1) / NSEC_PER_MSEC));
		for (int k = 0; k < n; k++)
			mc_event(t, &evs[k]);
	}
	w->end_ns = clock_ns();
	/* answers still on the way: read, uncounted, bounded */
	if (w->end_ns < t->end_ns)
		t->end_ns = w->end_ns;
	for (uint64_t until = clock_ns() + MC_TIMEOUT_NS; clock_ns() < until && !vmb_stop_requested();) {
		bool waiting = false;
		int n;

		for (unsigned i = 0; i < t->nconn; i++)
			waiting |= t->conns[i].state == M_WAIT;
		if (!waiting)
			break;
		n = epoll_wait(t->ep, evs, 64, 10);
		for (int k = 0; k < n; k++)
			mc_event(t, &evs[k]);
	}
out:
	if (t->conns)
		for (unsigned i = 0; i < t->nconn; i++)
			if (t->conns[i].fd >= 0)
				close(t->conns[i].fd);
	if (t->ep >= 0)
		close(t->ep);
	free(t->conns);
	t->conns = NULL;
	free(t->rbuf);
	t->rbuf = NULL;
}

/* ---- the server: given, or memcached started on loopback ---- */

/* memcached in PATH (Debian's is /usr/bin/memcached) */
static const char *mc_find(void)
{
	static char found[PATH_MAX];
	const char *path = getenv("PATH");

	while (path && *path) {
		const char *colon = strchr(path, ':');
		int len = colon ? (int)(colon - path) : (int)strlen(path);

		snprintf(found, sizeof(found), "%.*s/memcached", len, len ? path : ".");
		if (access(found, X_OK) == 0)
			return found;
		path = colon ? colon + 1 : NULL;
	}
	return NULL;
}

/* A free port on 127.0.0.1 now (the kernel's choice of an ephemeral one). */
static int mc_free_port(unsigned *port)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t l = sizeof(a);
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), r = 0;

	if (fd < 0)
		return -errno;
	if (bind(fd, (struct sockaddr *)&a, sizeof(a)) < 0 || getsockname(fd, (struct sockaddr *)&a, &l) < 0)
		r = -errno;
	else
		*port = ntohs(a.sin_port);
	close(fd);
	return r;
}

void net_mc_stop(struct net_state *st)
{
	int status;

	if (st->mc_pid <= 0)
		return;
	(void)kill(-st->mc_pid, SIGTERM);
	for (int i = 0; i < 200; i++) {
		pid_t w = waitpid(st->mc_pid, &status, WNOHANG);

		if (w == st->mc_pid || (w < 0 && errno != EINTR))
			goto reaped;
		{
			struct timespec ts = { 0, 10000000 };

			(void)nanosleep(&ts, NULL);
		}
	}
	(void)kill(-st->mc_pid, SIGKILL);
	while (waitpid(st->mc_pid, &status, 0) < 0 && errno == EINTR)
		;
reaped:
	st->mc_pid = 0;
}

/* memcached started on 127.0.0.1:port, its stderr into errfd; its pid, or a negative errno. */
static pid_t mc_spawn(const char *exe, unsigned port, unsigned conns, uint64_t mem_mb, int errfd)
{
	char p[16], c[16], m[24];
	pid_t parent = getpid(), pid;

	snprintf(p, sizeof(p), "%u", port);
	snprintf(c, sizeof(c), "%u", conns);
	snprintf(m, sizeof(m), "%llu", (unsigned long long)mem_mb);
	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0) {
		/* root must name a user: itself, since a change of user would clear the death signal */
		char *const argv[] = { (char *)exe, "-l", "127.0.0.1", "-p", p, "-U", "0", "-c", c, "-m", m,
				       geteuid() == 0 ? "-u" : NULL, "root", NULL };
		int null = open("/dev/null", O_RDWR);

		(void)setpgid(0, 0); /* a terminal's Ctrl-C is vmbench's to handle, not memcached's */
		if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() != parent)
			_exit(126);
		if (null >= 0) {
			(void)dup2(null, STDIN_FILENO);
			(void)dup2(null, STDOUT_FILENO);
		}
		(void)dup2(errfd, STDERR_FILENO);
		execv(exe, argv);
		_exit(127);
	}
	(void)setpgid(pid, pid);
	return pid;
}

/* memcached for the run on loopback: started, answering, in st. 0, a skip
 * when it is not installed, or a failure with its last words. */
static int mc_start_local(struct vmb_ctx *ctx, struct net_state *st, unsigned conns, uint64_t mem_mb)
{
	const char *exe = mc_find();
	char words[512] = "";
	int r = -EIO;

	if (!exe)
		return vmb_skip(ctx, "memcached is not installed here (Debian's package memcached), and no "
				"--net.memcached-server HOST:PORT was given to measure against");
	/* a port taken between the look and memcached's bind: once more */
	for (int attempt = 0; attempt < 3; attempt++) {
		unsigned port = 0;
		int pfd[2], status;
		uint64_t until;
		pid_t pid;

		r = mc_free_port(&port);
		if (r < 0)
			return vmb_fail(ctx, r, "a free port on 127.0.0.1 for memcached");
		if (pipe2(pfd, O_CLOEXEC) < 0)
			return vmb_fail(ctx, -errno, "a pipe for memcached's messages");
		pid = mc_spawn(exe, port, conns, mem_mb, pfd[1]);
		close(pfd[1]);
		if (pid < 0) {
			close(pfd[0]);
			return vmb_fail(ctx, pid, "starting %s", exe);
		}
		st->mc_pid = pid;
		snprintf(st->mc_name, sizeof(st->mc_name), "127.0.0.1:%u", port);
		{
			char err[320];

			(void)netio_resolve(st->mc_name, port, &st->mc_addr, &st->mc_alen, err, sizeof(err));
		}
		until = clock_ns() + (uint64_t)MC_START_MS * NSEC_PER_MSEC;
		r = -ETIMEDOUT;
		while (clock_ns() < until && !vmb_stop_requested()) {
			int fd = netio_connect(&st->mc_addr, st->mc_alen, 200);
			struct timespec ts = { 0, 5000000 };

			if (fd >= 0) {
				close(fd);
				r = 0;
				break;
			}
			if (waitpid(pid, &status, WNOHANG) == pid) {
				ssize_t n = read(pfd[0], words, sizeof(words) - 1);

				words[n > 0 ? n : 0] = '\0';
				words[strcspn(words, "\n")] = '\0';
				st->mc_pid = 0;
				r = -ECHILD;
				break;
			}
			(void)nanosleep(&ts, NULL);
		}
		close(pfd[0]);
		if (r == 0) {
			(void)vmb_note(ctx, "memcached_server", "%s started on %s for the run (-m %llu -c %u)", exe,
				       st->mc_name, (unsigned long long)mem_mb, conns);
			return 0;
		}
		net_mc_stop(st);
		if (r != -ECHILD || !strstr(words, "bind"))
			break;
	}
	return vmb_fail(ctx, r, "memcached (%s) on 127.0.0.1 %s%s%s", exe,
			r == -ECHILD ? "exited at start" : "did not answer within 5 s", words[0] ? ": " : "", words);
}

/* The key space set before the window, MC_PRELOAD_BATCH sets in flight on
 * one connection: each must be STORED. 0, or a failure saying what came. */
static int mc_preload(struct vmb_ctx *ctx, const struct net_state *st, const char *value, size_t vlen, size_t klen,
		      uint64_t keys)
{
	struct mc_resp rp;
	char head[MC_MAX_KEY + 64], key[MC_MAX_KEY + 1], *rbuf = malloc(MC_RBUF);
	/* a server that stops answering for NET_CTL_TIMEOUT_MS fails the preload */
	uint64_t sent = 0, got = 0, until = clock_ns() + (uint64_t)NET_CTL_TIMEOUT_MS * NSEC_PER_MSEC;
	size_t have = 0;
	int fd = -1, r = 0;

	if (!rbuf)
		return vmb_fail(ctx, -ENOMEM, "a read buffer");
	fd = netio_connect(&st->mc_addr, st->mc_alen, NET_CTL_TIMEOUT_MS);
	if (fd < 0) {
		r = vmb_fail(ctx, fd, "connecting to memcached at %s", st->mc_name);
		goto out;
	}
	{
		/* blocking sends, bounded: a server that reads nothing fails them */
		struct timeval tv = { .tv_sec = NET_CTL_TIMEOUT_MS / 1000 };
		int fl = fcntl(fd, F_GETFL);

		(void)setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
		if (fl >= 0)
			(void)fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
	}
	mc_resp_init(&rp, MC_SET, NULL, 0);
	while (got < keys) {
		struct pollfd pf = { .fd = fd, .events = POLLIN };
		size_t used;

		/* a batch out, whole (blocking sends: the server reads as it answers) */
		while (sent < keys && sent - got < MC_PRELOAD_BATCH) {
			int n = mc_key(key, sizeof(key), klen, sent);
			struct iovec iov[3];
			struct msghdr m = { .msg_iov = iov, .msg_iovlen = 3 };
			size_t want, done = 0;

			n = n < 0 ? n : mc_format_set_head(head, sizeof(head), key, klen, 0, 0, vlen);
			if (n < 0) {
				r = vmb_fail(ctx, n, "the set of key %llu", (unsigned long long)sent);
				goto out;
			}
			iov[0] = (struct iovec){ .iov_base = head, .iov_len = (size_t)n };
			iov[1] = (struct iovec){ .iov_base = (char *)value, .iov_len = vlen };
			iov[2] = (struct iovec){ .iov_base = (char *)"\r\n", .iov_len = 2 };
			want = (size_t)n + vlen + 2;
			while (done < want) {
				ssize_t k = sendmsg(fd, &m, MSG_NOSIGNAL);

				if (k < 0 && errno == EINTR)
					continue;
				if (k <= 0) {
					r = vmb_fail(ctx, k < 0 ? -errno : -EIO, "sending the preload's sets to %s",
						     st->mc_name);
					goto out;
				}
				done += (size_t)k;
				while (m.msg_iovlen && (size_t)k >= m.msg_iov->iov_len) {
					k -= (ssize_t)m.msg_iov->iov_len;
					m.msg_iov++;
					m.msg_iovlen--;
				}
				if (m.msg_iovlen) {
					m.msg_iov->iov_base = (char *)m.msg_iov->iov_base + k;
					m.msg_iov->iov_len -= (size_t)k;
				}
			}
			sent++;
		}
		/* the answers: the bytes left from the last read first */
		if (have == 0) {
			ssize_t n;
			int pr = poll(&pf, 1, 1000);

			if (vmb_stop_requested() || clock_ns() > until) {
				r = vmb_fail(ctx, -ETIMEDOUT, "%s answered %llu of %llu preload sets, then nothing for %d s",
					     st->mc_name, (unsigned long long)got, (unsigned long long)keys,
					     NET_CTL_TIMEOUT_MS / 1000);
				goto out;
			}
			if (pr <= 0)
				continue;
			n = recv(fd, rbuf, MC_RBUF, 0);
			if (n <= 0) {
				r = vmb_fail(ctx, n < 0 ? -errno : -ECONNRESET, "%s closed the connection after %llu "
					     "of the preload's sets", st->mc_name, (unsigned long long)got);
				goto out;
			}
			have = (size_t)n;
			until = clock_ns() + (uint64_t)NET_CTL_TIMEOUT_MS * NSEC_PER_MSEC;
		}
		{
			char *at = rbuf;

			while (have) {
				r = mc_resp_feed(&rp, at, have, &used);
				if (r < 0) {
					r = vmb_fail(ctx, -EPROTO, "what %s answered to a set is no memcached response "
						     "(%s): is it a memcached?", st->mc_name,
						     r == -EMSGSIZE ? "a line too long" : "malformed");
					goto out;
				}
				at += used;
				have -= used;
				if (r == 0)
					break;
				if (rp.status != MC_STORED) {
					r = vmb_fail(ctx, -EIO, "%s answered the set of key %llu of the preload with %s%s%s",
						     st->mc_name, (unsigned long long)got, mc_status_name(rp.status),
						     mc_status_error(rp.status) ? ": " : "",
						     mc_status_error(rp.status) ? rp.line : "");
					goto out;
				}
				got++;
				mc_resp_init(&rp, MC_SET, NULL, 0);
			}
			if (have)
				memmove(rbuf, at, have);
			if (got > sent) {
				r = vmb_fail(ctx, -EPROTO, "%s answered more sets than were sent", st->mc_name);
				goto out;
			}
			if (have && got == sent && sent == keys) {
				r = vmb_fail(ctx, -EPROTO, "%s sent more than the answers to the preload's sets", st->mc_name);
				goto out;
			}
		}
		r = 0;
	}
out:
	if (fd >= 0)
		close(fd);
	free(rbuf);
	return r;
}

/* The server the repetition loads: --net.memcached-server, or the run's own
 * memcached (started on first use). 0, or a negative errno after a message. */
static int mc_target(struct vmb_ctx *ctx, struct net_state *st, unsigned conns, uint64_t mem_mb)
{
	const char *server = optset_str(ctx->opts, "memcached-server");
	char err[320];

	if (server) {
		if (st->mc_name[0])
			return 0;
		if (netio_resolve(server, 11211, &st->mc_addr, &st->mc_alen, err, sizeof(err)) < 0)
			return vmb_usage(ctx, "--net.memcached-server %s", err);
		snprintf(st->mc_name, sizeof(st->mc_name), "%s", server);
		(void)vmb_note(ctx, "memcached_server", "%s", server);
		return 0;
	}
	if (st->mc_pid > 0) {
		int status;

		if (waitpid(st->mc_pid, &status, WNOHANG) == 0)
			return 0;
		st->mc_pid = 0;
		return vmb_fail(ctx, -ECHILD, "the run's memcached on %s exited during the run (status %d)", st->mc_name,
				WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
	}
	if (st->mc_name[0])
		return vmb_fail(ctx, -ECHILD, "the run's memcached on %s is gone", st->mc_name);
	return mc_start_local(ctx, st, conns, mem_mb);
}

int net_memcached_run(struct vmb_ctx *ctx, const struct vmb_test *test, struct vmb_rep *rep)
{
	struct net_state *st = ctx->priv;
	unsigned conns = ctx->sweep, nth = (unsigned)optset_int(ctx->opts, "threads");
	double rate = optset_double(ctx->opts, "memcached-rate"), set_share;
	const char *ratio = optset_str(ctx->opts, "memcached-ratio");
	size_t klen = (size_t)optset_size(ctx->opts, "memcached-key-size");
	size_t vlen = (size_t)optset_size(ctx->opts, "memcached-value-size");
	uint64_t keys = (uint64_t)optset_int(ctx->opts, "memcached-keys");
	/* room for every item with memcached's overhead per item, twice over */
	uint64_t mem_mb = (keys * (klen + vlen + 96) * 2 >> 20) + 64;
	struct vmb_worker *workers = NULL;
	struct mthread *ts = NULL;
	struct hist *all = hist_new(), *gets = hist_new(), *sets = hist_new(), *service = hist_new();
	uint64_t done = 0, answered = 0, ng = 0, hits = 0, misses = 0, ns = 0, nstored = 0, errors = 0;
	uint64_t sockerr = 0, timeouts = 0, bytes = 0, start = UINT64_MAX, end = 0;
	const char *first_error = NULL;
	char *value = NULL;
	double win;
	int r;

	(void)test;
	if (!all || !gets || !sets || !service) {
		r = vmb_fail(ctx, -ENOMEM, "latency histograms");
		goto out;
	}
	if (mc_ratio_parse(ratio, &set_share) < 0) {
		r = vmb_usage(ctx, "--net.memcached-ratio %s: expected SET:GET, two whole numbers not both 0 "
			      "(memtier_benchmark's --ratio; 1:9 is a set to nine gets)", ratio);
		goto out;
	}
	{
		char probe[MC_MAX_KEY + 1];

		if (mc_key(probe, sizeof(probe), klen, keys - 1) < 0) {
			r = vmb_usage(ctx, "--net.memcached-key-size %zu cannot name %llu keys: a key is \"vmb\" and "
				      "its number, so give at least %d bytes", klen, (unsigned long long)keys,
				      snprintf(NULL, 0, "%llu", (unsigned long long)(keys - 1)) + 3);
			goto out;
		}
	}
	if (nth > conns)
		nth = conns;
	{
		struct rlimit rl;

		if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < (rlim_t)conns + 64 && rl.rlim_cur < rl.rlim_max) {
			rl.rlim_cur = rl.rlim_max < (rlim_t)conns + 64 ? rl.rlim_max : (rlim_t)conns + 64;
			(void)setrlimit(RLIMIT_NOFILE, &rl);
		}
	}
	r = mc_target(ctx, st, conns + 64 > 1024 ? conns + 64 : 1024, mem_mb);
	if (r != 0)
		goto out;
	value = malloc(vlen);
	workers = calloc(nth, sizeof(*workers));
	ts = calloc(nth, sizeof(*ts));
	if (!value || !workers || !ts) {
		r = vmb_fail(ctx, -ENOMEM, "%u client threads", nth);
		goto out;
	}
	for (size_t i = 0; i < vlen; i++)
		value[i] = (char)('a' + i % 26);
	/* once per run and shape of the key space: the sets of the repetitions
	 * keep every key there (at the same size) */
	if (st->mc_loaded_keys != keys || st->mc_loaded_klen != klen || st->mc_loaded_vlen != vlen) {
		r = mc_preload(ctx, st, value, vlen, klen, keys);
		if (r < 0)
			goto out;
		st->mc_loaded_keys = keys;
		st->mc_loaded_klen = klen;
		st->mc_loaded_vlen = vlen;
	}
	for (unsigned i = 0; i < nth; i++) {
		ts[i].addr = &st->mc_addr;
		ts[i].alen = st->mc_alen;
		ts[i].value = value;
		ts[i].vlen = vlen;
		ts[i].klen = klen;
		ts[i].keys = keys;
		ts[i].set_share = set_share;
		ts[i].nconn = conns / nth + (i < conns % nth);
		ts[i].rate = rate / nth;
		ts[i].rng = 0x9E3779B97F4A7C15ull * (i + 1);
		ts[i].end_ns = (uint64_t)(st->window_s * NSEC_PER_SEC); /* a length until the thread starts */
		ts[i].ep = -1;
		hist_init(&ts[i].hist);
		hist_init(&ts[i].get_hist);
		hist_init(&ts[i].set_hist);
		hist_init(&ts[i].service);
		workers[i].arg = &ts[i];
	}
	r = vmb_parallel(ctx, nth, mc_thread, workers);
	if (r < 0) {
		if (!ctx->reason[0])
			r = vmb_fail(ctx, r, "connecting %u connections to %s", conns, st->mc_name);
		goto out;
	}
	for (unsigned i = 0; i < nth; i++) {
		start = workers[i].start_ns < start ? workers[i].start_ns : start;
		end = workers[i].end_ns > end ? workers[i].end_ns : end;
		done += ts[i].done;
		answered += ts[i].answered;
		ng += ts[i].gets;
		hits += ts[i].hits;
		misses += ts[i].misses;
		ns += ts[i].sets;
		nstored += ts[i].not_stored;
		errors += ts[i].errors;
		sockerr += ts[i].sockerr;
		timeouts += ts[i].timeouts;
		bytes += ts[i].bytes;
		if (!first_error && ts[i].errors)
			first_error = ts[i].first_error;
		hist_merge(all, &ts[i].hist);
		hist_merge(gets, &ts[i].get_hist);
		hist_merge(sets, &ts[i].set_hist);
		hist_merge(service, &ts[i].service);
	}
	win = (double)(end - start) / NSEC_PER_SEC;
	if (done == 0 || win <= 0) {
		r = vmb_fail(ctx, -EIO, "no response in %.3f s from memcached at %s (%llu socket errors, %llu timeouts)",
			     win, st->mc_name, (unsigned long long)sockerr, (unsigned long long)timeouts);
		goto out;
	}
	vmb_rep_value(rep, "requests_per_s", VMB_UNIT_PER_S, VMB_HIGHER, (double)done / win);
	vmb_rep_value(rep, "transfer_mb_s", VMB_UNIT_MB_PER_S, VMB_HIGHER, (double)bytes / win / 1e6);
	vmb_rep_hist(rep, "latency", VMB_UNIT_NS, all);
	vmb_rep_value(rep, "p99_latency", VMB_UNIT_NS, VMB_LOWER, hist_percentile(all, 99));
	vmb_rep_value(rep, "p999_latency", VMB_UNIT_NS, VMB_LOWER, hist_percentile(all, 99.9));
	if (ng)
		vmb_rep_hist(rep, "get_latency", VMB_UNIT_NS, gets);
	if (ns)
		vmb_rep_hist(rep, "set_latency", VMB_UNIT_NS, sets);
	if (rate > 0)
		vmb_rep_hist(rep, "uncorrected_latency", VMB_UNIT_NS, service);
	/* as net.http's: one request in flight per connection */
	vmb_rep_closed_loop(rep, "requests_per_s", rate > 0 ? "uncorrected_latency" : "latency", conns, "connection");
	vmb_rep_value(rep, "requests", VMB_UNIT_NONE, VMB_HIGHER, (double)done);
	vmb_rep_value(rep, "responses", VMB_UNIT_NONE, VMB_HIGHER, (double)answered);
	vmb_rep_value(rep, "gets", VMB_UNIT_NONE, VMB_HIGHER, (double)ng);
	vmb_rep_value(rep, "sets", VMB_UNIT_NONE, VMB_HIGHER, (double)ns);
	vmb_rep_value(rep, "get_hits", VMB_UNIT_NONE, VMB_HIGHER, (double)hits);
	vmb_rep_value(rep, "get_misses", VMB_UNIT_NONE, VMB_LOWER, (double)misses);
	vmb_rep_value(rep, "errors_not_stored", VMB_UNIT_NONE, VMB_LOWER, (double)nstored);
	vmb_rep_value(rep, "errors_server", VMB_UNIT_NONE, VMB_LOWER, (double)errors);
	vmb_rep_value(rep, "errors_socket", VMB_UNIT_NONE, VMB_LOWER, (double)sockerr);
	vmb_rep_value(rep, "errors_timeout", VMB_UNIT_NONE, VMB_LOWER, (double)timeouts);
	if (first_error)
		(void)vmb_note(ctx, "memcached_first_error", "%s", first_error);
	r = 0;
out:
	hist_free(all);
	hist_free(gets);
	hist_free(sets);
	hist_free(service);
	free(workers);
	free(ts);
	free(value);
	return r;
}
