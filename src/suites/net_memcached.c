/* The net suite's memcached load generator, with the definitions users
 * know from memaslap and memtier_benchmark: N connections over T threads
 * on the load engine (net_load.c), each connection one request in flight; each
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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "net.h"
#include "net_load.h"
#include "../core/clock.h"
#include "../net/calc.h"
#include "../net/memcache.h"
#include "../core/spawn.h"
#include "../core/banned.h"

#define MC_RBUF 65536               /* the preload's read buffer */
#define MC_PRELOAD_BATCH 64         /* sets in flight on the preload's connection */
#define MC_START_MS 5000            /* how long a started memcached may take to answer */

/* A connection's request: a get or a set of a key drawn for it. */
struct mconn {
	enum mc_op op;
	char head[MC_MAX_KEY + 64];
	char key[MC_MAX_KEY + 1];
	struct mc_resp rp;
};

struct mthread {
	const char *value;   /* --net.memcached-value-size bytes, shared */
	size_t vlen, klen;
	uint64_t keys;
	double set_share;
	uint64_t rng;
	/* results */
	uint64_t gets, hits, misses, sets, not_stored, errors;
	char first_error[96]; /* the first error line the server sent, for the note */
	struct hist get_hist, set_hist;
};

/* xorshift64*: the thread's own draws, the same sequence each run */
static uint64_t mt_rand(struct mthread *t)
{
	t->rng ^= t->rng >> 12;
	t->rng ^= t->rng << 25;
	t->rng ^= t->rng >> 27;
	return t->rng * 0x2545F4914F6CDD1Dull;
}

/* The next request: a get or a set of a key drawn now; a set's value is
 * sent from where it lies, shared. */
static int mc_request(void *pt, void *pc, struct iovec *iov)
{
	struct mthread *t = pt;
	struct mconn *c = pc;
	uint64_t k = mt_rand(t) % t->keys;
	double u = (double)(mt_rand(t) >> 11) / 9007199254740992.0;
	int n;

	c->op = u < t->set_share ? MC_SET : MC_GET;
	(void)mc_key(c->key, sizeof(c->key), t->klen, k);
	n = c->op == MC_SET ? mc_format_set_head(c->head, sizeof(c->head), c->key, t->klen, 0, 0, t->vlen)
			    : mc_format_get(c->head, sizeof(c->head), c->key, t->klen);
	if (n < 0)
		return n; /* the run's checks keep every key and size valid */
	mc_resp_init(&c->rp, c->op, c->key, t->klen);
	iov[0] = (struct iovec){ .iov_base = c->head, .iov_len = (size_t)n };
	if (c->op != MC_SET)
		return 1;
	iov[1] = (struct iovec){ .iov_base = (char *)t->value, .iov_len = t->vlen };
	iov[2] = (struct iovec){ .iov_base = (char *)"\r\n", .iov_len = 2 };
	return 3;
}

static int mc_feed(void *pc, const char *buf, size_t len, size_t *used)
{
	return mc_resp_feed(&((struct mconn *)pc)->rp, buf, len, used);
}

static void mc_counted(void *pt, void *pc, uint64_t latency_ns)
{
	struct mthread *t = pt;
	const struct mconn *c = pc;

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
	hist_record(c->op == MC_GET ? &t->get_hist : &t->set_hist, latency_ns);
}

/* memcached's text protocol: a close mid-answer is always an error, and
 * the server keeps the connection */
static const struct net_load_proto mc_proto = {
	.conn_size = sizeof(struct mconn),
	.request = mc_request,
	.feed = mc_feed,
	.counted = mc_counted,
};

/* ---- the server: given, or memcached started on loopback ---- */

/* memcached in PATH (Debian's is /usr/bin/memcached) */
static const char *mc_find(void)
{
	static char found[PATH_MAX];

	return path_find("memcached", found, sizeof(found)) == 0 ? found : NULL;
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
	struct mthread *ts = NULL;
	struct hist *gets = hist_new(), *sets = hist_new();
	struct net_load l = { 0 };
	uint64_t ng = 0, hits = 0, misses = 0, ns = 0, nstored = 0, errors = 0;
	const char *first_error = NULL;
	char *value = NULL;
	int r;

	(void)test;
	if (!gets || !sets) {
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
	/* before the server starts: a memcached started here inherits it */
	net_load_fd_limit(conns);
	r = mc_target(ctx, st, conns + 64 > 1024 ? conns + 64 : 1024, mem_mb);
	if (r != 0)
		goto out;
	value = malloc(vlen);
	ts = calloc(nth, sizeof(*ts));
	if (!value || !ts) {
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
		ts[i].value = value;
		ts[i].vlen = vlen;
		ts[i].klen = klen;
		ts[i].keys = keys;
		ts[i].set_share = set_share;
		ts[i].rng = 0x9E3779B97F4A7C15ull * (i + 1);
		hist_init(&ts[i].get_hist);
		hist_init(&ts[i].set_hist);
	}
	l = (struct net_load){
		.proto = &mc_proto,
		.addr = &st->mc_addr,
		.alen = st->mc_alen,
		.name = st->mc_name,
		.kind = "memcached",
		.conns = conns,
		.threads = nth,
		.rate = rate,
		.window_s = st->window_s,
		.interval_s = optset_double(ctx->opts, "interval"),
		.pts = ts,
		.pt_size = sizeof(*ts),
	};
	r = net_load_run(ctx, &l);
	if (r < 0)
		goto out;
	for (unsigned i = 0; i < l.threads; i++) {
		ng += ts[i].gets;
		hits += ts[i].hits;
		misses += ts[i].misses;
		ns += ts[i].sets;
		nstored += ts[i].not_stored;
		errors += ts[i].errors;
		if (!first_error && ts[i].errors)
			first_error = ts[i].first_error;
		hist_merge(gets, &ts[i].get_hist);
		hist_merge(sets, &ts[i].set_hist);
	}
	net_load_report_rate(rep, &l);
	r = net_load_report_series(rep, &l);
	if (r < 0) {
		r = vmb_fail(ctx, r, "the series of %u client threads", l.threads);
		goto out;
	}
	vmb_rep_value(rep, "p999_latency", VMB_UNIT_NS, VMB_LOWER, hist_percentile(l.all, 99.9));
	if (ng)
		vmb_rep_hist(rep, "get_latency", VMB_UNIT_NS, gets);
	if (ns)
		vmb_rep_hist(rep, "set_latency", VMB_UNIT_NS, sets);
	net_load_report_loop(rep, &l);
	net_load_report_counts(rep, &l);
	vmb_rep_value(rep, "gets", VMB_UNIT_NONE, VMB_HIGHER, (double)ng);
	vmb_rep_value(rep, "sets", VMB_UNIT_NONE, VMB_HIGHER, (double)ns);
	vmb_rep_value(rep, "get_hits", VMB_UNIT_NONE, VMB_HIGHER, (double)hits);
	vmb_rep_value(rep, "get_misses", VMB_UNIT_NONE, VMB_LOWER, (double)misses);
	vmb_rep_value(rep, "errors_not_stored", VMB_UNIT_NONE, VMB_LOWER, (double)nstored);
	vmb_rep_value(rep, "errors_server", VMB_UNIT_NONE, VMB_LOWER, (double)errors);
	net_load_report_errors(rep, &l);
	if (first_error)
		(void)vmb_note(ctx, "memcached_first_error", "%s", first_error);
	r = 0;
out:
	net_load_release(&l);
	hist_free(gets);
	hist_free(sets);
	free(ts);
	free(value);
	return r;
}
