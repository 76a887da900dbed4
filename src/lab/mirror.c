/* The lab's package mirror (mirror.h): the plan of what it serves, the
 * request parser, and the server in QEMU's network namespace. */
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "mirror.h"
#include "procs.h"
#include "qemu.h"
#include "../core/clock.h"
#include "../core/file.h"
#include "../core/spawn.h"
#include "../core/util.h"
#include "../core/banned.h"

/* How long the server lives at most (a lab run's item is bounded the same
 * way), how long one connection may take to send its request and take
 * the answer, and how long the server may take to say its port. */
#define MIRROR_LIFE_S 7200
#define MIRROR_IO_S 60
#define MIRROR_START_MS 10000

/* The index's name in the repository */
#define MIRROR_INDEX "Packages"

static bool deb_file_name(const char *s)
{
	size_t n = strlen(s);

	if (n < 5 || n > 255 || strcmp(s + n - 4, ".deb") || s[0] == '.')
		return false;
	for (size_t i = 0; i < n; i++)
		if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789+._~%-", s[i]))
			return false;
	return true;
}

void lab_mirror_plan_clear(struct lab_mirror_plan *p)
{
	for (size_t i = 0; p->v && i < p->n; i++) {
		free(p->v[i].name);
		free(p->v[i].path);
	}
	free(p->v);
	p->v = NULL;
	p->n = 0;
}

static int plan_add(struct lab_mirror_plan *p, const char *name, const char *path)
{
	struct lab_mirror_file *v = realloc(p->v, (p->n + 1) * sizeof(*v));

	if (!v)
		return -ENOMEM;
	p->v = v;
	v[p->n].name = xstrdup(name);
	v[p->n].path = xstrdup(path);
	if (!v[p->n].name || !v[p->n].path) {
		free(v[p->n].name);
		free(v[p->n].path);
		return -ENOMEM;
	}
	p->n++;
	return 0;
}

int lab_mirror_plan(const char *debs, const char *packages, struct lab_mirror_plan *out, char *err, size_t errlen)
{
	struct lab_mirror_plan p = { 0 };
	DIR *d = opendir(debs);
	struct dirent *e;
	char path[PATH_MAX];
	int r;

	if (!d)
		return errf(err, errlen, -errno, "the mirror's packages %s: %s", debs, strerror(errno));
	r = plan_add(&p, MIRROR_INDEX, packages);
	while (r == 0 && (e = readdir(d))) {
		struct stat st;

		/* a regular file only: a symbolic link (to /etc/shadow, say)
		 * would serve what it points to, from outside the directory */
		if (!deb_file_name(e->d_name) || fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
		    !S_ISREG(st.st_mode))
			continue;
		if (p.n > LAB_MIRROR_MAX_FILES) {
			r = errf(err, errlen, -E2BIG, "the mirror's packages %s: more than %u .debs", debs,
				 LAB_MIRROR_MAX_FILES);
			break;
		}
		snprintf(path, sizeof(path), "%s/%s", debs, e->d_name);
		r = plan_add(&p, e->d_name, path);
	}
	closedir(d);
	if (r == -ENOMEM)
		errf(err, errlen, r, "out of memory");
	else if (r == 0 && p.n == 1)
		r = errf(err, errlen, -ENOENT, "the mirror's packages %s: no .deb there", debs);
	if (r < 0) {
		lab_mirror_plan_clear(&p);
		return r;
	}
	*out = p;
	return 0;
}

static int hex(char c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

int lab_mirror_request(const struct lab_mirror_plan *p, const char *req, size_t len, const struct lab_mirror_file **f,
		       bool *head)
{
	const char *sp, *end = memchr(req, '\n', len), *target, *tend, *ver;
	char name[256];
	size_t n = 0;
	bool is_head;

	if (!end || memchr(req, '\0', len))
		return -EPROTO;
	if (end > req && end[-1] == '\r')
		end--;
	/* METHOD SP TARGET SP HTTP/1.x */
	sp = memchr(req, ' ', (size_t)(end - req));
	if (!sp)
		return -EPROTO;
	if (sp - req == 3 && !memcmp(req, "GET", 3))
		is_head = false;
	else if (sp - req == 4 && !memcmp(req, "HEAD", 4))
		is_head = true;
	else
		return -EPROTO;
	target = sp + 1;
	tend = memchr(target, ' ', (size_t)(end - target));
	if (!tend || tend == target || *target != '/')
		return -EPROTO;
	ver = tend + 1;
	if (end - ver != 8 || memcmp(ver, "HTTP/1.", 7) || (ver[7] != '0' && ver[7] != '1'))
		return -EPROTO;
	/* the path, percent-decoded; a query is no file's */
	for (const char *c = target + 1; c < tend; c++) {
		int ch = (unsigned char)*c;

		if (ch == '?' || ch == '#')
			break;
		if (ch == '%') {
			int hi = c + 2 < tend ? hex(c[1]) : -1, lo = c + 2 < tend ? hex(c[2]) : -1;

			if (hi < 0 || lo < 0)
				return -EPROTO;
			ch = hi * 16 + lo;
			c += 2;
		}
		if (ch == '\0' || n + 1 >= sizeof(name))
			return ch == '\0' ? -EPROTO : -ENOENT;
		name[n++] = (char)ch;
	}
	name[n] = '\0';
	/* apt asks for ./NAME of a flat repository's "deb URL ./" */
	{
		const char *base = name;

		while (!strncmp(base, "./", 2))
			base += 2;
		for (size_t i = 0; i < p->n; i++)
			if (!strcmp(p->v[i].name, base)) {
				*f = &p->v[i];
				*head = is_head;
				return 0;
			}
	}
	return -ENOENT;
}

/* The server ------------------------------------------------------------- */

static void send_all(int fd, const char *s, size_t n)
{
	while (n) {
		ssize_t w = send(fd, s, n, MSG_NOSIGNAL);

		if (w <= 0)
			return;
		s += w;
		n -= (size_t)w;
	}
}

static void answer(int fd, const struct lab_mirror_plan *p)
{
	char req[LAB_MIRROR_MAX_REQUEST], head[256];
	const struct lab_mirror_file *f = NULL;
	size_t len = 0;
	bool is_head = false;
	int r = -EPROTO, file;
	struct stat st;

	/* the head, up to its blank line, within MIRROR_IO_S in all: a client
	 * that sends a byte now and then holds the one server no longer */
	uint64_t deadline = clock_ns() + (uint64_t)MIRROR_IO_S * NSEC_PER_SEC;

	while (len < sizeof(req) - 1) {
		uint64_t now = clock_ns();
		struct pollfd pf = { .fd = fd, .events = POLLIN };
		ssize_t got;

		if (now >= deadline || poll(&pf, 1, (int)((deadline - now) / 1000000 + 1)) != 1)
			return;
		got = recv(fd, req + len, sizeof(req) - 1 - len, MSG_DONTWAIT);
		if (got <= 0)
			return;
		len += (size_t)got;
		req[len] = '\0';
		if (strstr(req, "\r\n\r\n") || strstr(req, "\n\n"))
			break;
	}
	r = lab_mirror_request(p, req, len, &f, &is_head);
	/* a link in the directory is not followed out of it (the plan has
	 * none; one put there since is refused) */
	file = r == 0 ? open(f->path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK) : -1;
	if (file < 0 || fstat(file, &st) < 0 || !S_ISREG(st.st_mode)) {
		const char *status = r == -EPROTO ? "400 Bad Request" : "404 Not Found";

		snprintf(head, sizeof(head), "HTTP/1.1 %s\r\nContent-Length: 0\r\nConnection: close\r\n\r\n", status);
		send_all(fd, head, strlen(head));
		if (file >= 0)
			close(file);
		return;
	}
	snprintf(head, sizeof(head), "HTTP/1.1 200 OK\r\nContent-Length: %lld\r\nContent-Type: application/octet-stream"
		 "\r\nConnection: close\r\n\r\n", (long long)st.st_size);
	send_all(fd, head, strlen(head));
	for (off_t off = 0; !is_head && off < st.st_size;)
		if (sendfile(fd, file, &off, (size_t)(st.st_size - off)) <= 0)
			break;
	close(file);
}

/* The child: in QEMU's namespace, bound to the host's end of the link,
 * its port on report; then one request per connection until killed or
 * its life is over. */
static void serve(int nsfd, int report, const struct lab_mirror_plan *p)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	socklen_t sl = sizeof(sa);
	struct timeval io = { .tv_sec = MIRROR_IO_S };
	uint64_t deadline = clock_ns() + (uint64_t)MIRROR_LIFE_S * NSEC_PER_SEC;
	unsigned short port;
	int ls;

	if (setns(nsfd, CLONE_NEWNET) < 0)
		_exit(1);
	ls = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	(void)inet_pton(AF_INET, LAB_NET_HOST, &sa.sin_addr);
	if (ls < 0 || bind(ls, (struct sockaddr *)&sa, sizeof(sa)) < 0 || listen(ls, 64) < 0 ||
	    getsockname(ls, (struct sockaddr *)&sa, &sl) < 0)
		_exit(1);
	port = ntohs(sa.sin_port);
	if (write(report, &port, sizeof(port)) != (ssize_t)sizeof(port))
		_exit(1);
	close(report);
	while (clock_ns() < deadline) {
		struct pollfd pf = { .fd = ls, .events = POLLIN };
		int c;

		if (poll(&pf, 1, 1000) <= 0)
			continue;
		c = accept4(ls, NULL, NULL, SOCK_CLOEXEC);
		if (c < 0)
			continue;
		(void)setsockopt(c, SOL_SOCKET, SO_RCVTIMEO, &io, sizeof(io));
		(void)setsockopt(c, SOL_SOCKET, SO_SNDTIMEO, &io, sizeof(io));
		answer(c, p);
		close(c);
	}
	_exit(0);
}

/* The index: dpkg-scanpackages over the directory, its Filename fields
 * ./NAME.deb, relative to the repository's root */
static int write_index(const char *debs, const char *path, char *err, size_t errlen)
{
	char *const argv[] = { "dpkg-scanpackages", "-m", ".", "/dev/null", NULL };
	char *out = NULL;
	int r = run_capture(argv[0], argv, debs, &out);

	if (r == -ENOENT)
		r = errf(err, errlen, r, "dpkg-scanpackages is not installed on the host (apt-get install dpkg-dev): no "
			 "package mirror for app.apt");
	else if (r < 0 || !out || !*out)
		r = errf(err, errlen, r < 0 ? r : -EIO, "dpkg-scanpackages in %s failed: no package mirror for app.apt",
			 debs);
	else if ((r = file_write_new(path, out, strlen(out))) < 0)
		errf(err, errlen, r, "writing the mirror's index %s: %s", path, strerror(-r));
	free(out);
	return r;
}

int lab_mirror_start(struct lab_mirror *m, pid_t qemu, const char *debs, const char *work_dir, char *err,
		     size_t errlen)
{
	struct lab_mirror_plan plan = { 0 };
	char nspath[64];
	int pipefd[2] = { -1, -1 }, nsfd = -1, r;
	unsigned short port = 0;
	pid_t parent = getpid();

	memset(m, 0, sizeof(*m));
	snprintf(m->packages, sizeof(m->packages), "%s/" MIRROR_INDEX, work_dir);
	r = write_index(debs, m->packages, err, errlen);
	if (r < 0) {
		m->packages[0] = '\0';
		return r;
	}
	r = lab_mirror_plan(debs, m->packages, &plan, err, errlen);
	if (r < 0)
		goto out;
	snprintf(nspath, sizeof(nspath), "/proc/%d/ns/net", (int)qemu);
	nsfd = open(nspath, O_RDONLY | O_CLOEXEC);
	if (nsfd < 0 || pipe2(pipefd, O_CLOEXEC) < 0) {
		r = errf(err, errlen, -errno, "the mirror: %s: %s", nsfd < 0 ? nspath : "pipe", strerror(errno));
		goto out;
	}
	m->pid = fork();
	if (m->pid < 0) {
		r = errf(err, errlen, -errno, "the mirror: fork: %s", strerror(errno));
		m->pid = 0;
		goto out;
	}
	if (m->pid == 0) {
		int lo = nsfd < pipefd[1] ? nsfd : pipefd[1], hi = nsfd < pipefd[1] ? pipefd[1] : nsfd;

		(void)setpgid(0, 0);
		if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() != parent)
			_exit(1);
		/* none of the lab's descriptors (the agent's channel, another
		 * helper's pipe, the store) stays open in the server: it
		 * forked without an exec to close them */
		(void)close_range(3, (unsigned)lo - 1, 0);
		(void)close_range((unsigned)lo + 1, (unsigned)hi - 1, 0);
		(void)close_range((unsigned)hi + 1, ~0u, 0);
		serve(nsfd, pipefd[1], &plan);
	}
	(void)setpgid(m->pid, m->pid);
	r = lab_proc_track(m->pid);
	if (r < 0) {
		m->pid = 0;
		errf(err, errlen, r, "the mirror: %s", strerror(-r));
		goto out;
	}
	close(pipefd[1]);
	pipefd[1] = -1;
	{
		struct pollfd pf = { .fd = pipefd[0], .events = POLLIN };

		if (poll(&pf, 1, MIRROR_START_MS) != 1 || read(pipefd[0], &port, sizeof(port)) != (ssize_t)sizeof(port) ||
		    port == 0)
			r = errf(err, errlen, -EIO, "the mirror did not start on %s in the lab's network namespace",
				 LAB_NET_HOST);
	}
	if (r == 0)
		snprintf(m->url, sizeof(m->url), "http://%s:%u/", LAB_NET_HOST, (unsigned)port);
out:
	if (pipefd[0] >= 0)
		close(pipefd[0]);
	if (pipefd[1] >= 0)
		close(pipefd[1]);
	if (nsfd >= 0)
		close(nsfd);
	lab_mirror_plan_clear(&plan);
	if (r < 0)
		lab_mirror_stop(m);
	return r;
}

void lab_mirror_stop(struct lab_mirror *m)
{
	(void)lab_proc_reap(m->pid, 0, NULL);
	m->pid = 0;
	if (m->packages[0])
		(void)unlink(m->packages);
	m->packages[0] = '\0';
	m->url[0] = '\0';
}
