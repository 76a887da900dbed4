/* What a killed vmbench left behind, removed by the next run of its kind
 * once its owner is proven gone (see reclaim.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "reclaim.h"
#include "file.h"
#include "log.h"
#include "banned.h"

/* A clock step, or the tick the start time is counted in, must not make
 * the owner of something look younger than it: this much is let pass. */
#define RECLAIM_SLACK_S 2
/* The deepest a work directory goes (share/ and what a guest wrote in it) */
#define RECLAIM_DEPTH 16

int reclaim_parse_stat(const char *text, char *state, unsigned long long *start)
{
	/* "PID (COMM) STATE ..." where COMM may hold anything: fields count
	 * from the last ')'; the start is field 22, the 20th after it */
	const char *p = text ? strrchr(text, ')') : NULL;
	unsigned long long v;
	char *end, st;

	if (!p || p[1] != ' ' || !p[2] || p[2] == ' ')
		return -EINVAL;
	st = p[2];
	p++;
	for (unsigned f = 0; f < 19; f++) {
		while (*p == ' ')
			p++;
		if (!*p)
			return -EINVAL;
		p += strcspn(p, " ");
	}
	while (*p == ' ')
		p++;
	if (*p < '0' || *p > '9')
		return -EINVAL;
	errno = 0;
	v = strtoull(p, &end, 10);
	if (errno || (*end && *end != ' ' && *end != '\n'))
		return -EINVAL;
	*state = st;
	*start = v;
	return 0;
}

/* A decimal PID, 1 to INT_MAX without leading zeros, up to one of the
 * characters in stop (or the end); *end after it. */
static int parse_pid(const char *s, const char *stop, pid_t *pid, const char **end)
{
	unsigned long long v = 0;
	size_t n = 0;

	if (*s < '1' || *s > '9')
		return -EINVAL;
	for (; s[n] >= '0' && s[n] <= '9'; n++) {
		v = v * 10 + (unsigned long long)(s[n] - '0');
		if (v > 0x7fffffff)
			return -EINVAL;
	}
	if (s[n] && !strchr(stop, s[n]))
		return -EINVAL;
	*pid = (pid_t)v;
	*end = s + n;
	return 0;
}

int reclaim_parse_marker(const char *text, struct reclaim_owner *o)
{
	struct reclaim_owner x = { 0 };
	const char *p;
	char *end;
	size_t n;

	if (!text || strncmp(text, "vmbench ", 8) || parse_pid(text + 8, " ", &x.pid, &p) < 0 || *p++ != ' ')
		return -EINVAL;
	if (*p < '0' || *p > '9')
		return -EINVAL;
	errno = 0;
	x.start = strtoull(p, &end, 10);
	if (errno || *end != ' ')
		return -EINVAL;
	p = end + 1;
	n = strcspn(p, "\n");
	if (n >= sizeof(x.boot_id) || strspn(p, "0123456789abcdef-") != n || (p[n] && p[n + 1]))
		return -EINVAL;
	memcpy(x.boot_id, p, n);
	*o = x;
	return 0;
}

int reclaim_name_pid(const char *name, const char *prefix, pid_t *pid)
{
	size_t pl = strlen(prefix);
	const char *end;

	if (strncmp(name, prefix, pl))
		return -EINVAL;
	return parse_pid(name + pl, "-", pid, &end);
}

static void boot_id(char *buf, size_t len)
{
	if (read_line_at("/", "/proc/sys/kernel/random/boot_id", buf, len) < 0)
		buf[0] = '\0';
}

/* The start of process pid: 0, -ENOENT when there is none (a zombie,
 * which holds nothing any more, is none), another negative errno when it
 * cannot be told. */
static int start_of(pid_t pid, unsigned long long *start)
{
	char path[64], *text = NULL, state = 0;
	int r;

	snprintf(path, sizeof(path), "/proc/%ld/stat", (long)pid);
	r = read_file(path, &text);
	if (r == -ESRCH)
		r = -ENOENT; /* it exited while read */
	if (r == 0)
		r = reclaim_parse_stat(text, &state, start);
	if (r == 0 && (state == 'Z' || state == 'X'))
		r = -ENOENT;
	free(text);
	return r;
}

bool reclaim_gone_since(pid_t pid, time_t made)
{
	unsigned long long start;
	struct timespec real, boot;
	long hz = sysconf(_SC_CLK_TCK);
	int r = start_of(pid, &start);

	if (r == -ENOENT)
		return true;
	if (r < 0 || hz <= 0 || clock_gettime(CLOCK_REALTIME, &real) < 0 || clock_gettime(CLOCK_BOOTTIME, &boot) < 0)
		return false;
	/* its start on the wall clock: now, less the time since it started */
	return (double)real.tv_sec - ((double)boot.tv_sec - (double)start / (double)hz) >
	       (double)made + RECLAIM_SLACK_S;
}

bool reclaim_gone(const struct reclaim_owner *o)
{
	char now[40];
	unsigned long long start;
	int r;

	boot_id(now, sizeof(now));
	if (now[0] && o->boot_id[0] && strcmp(now, o->boot_id))
		return true; /* made before this boot */
	r = start_of(o->pid, &start);
	return r == -ENOENT || (r == 0 && start != o->start);
}

int reclaim_mark(const char *dir)
{
	char path[4200], text[128], id[40];
	unsigned long long start;
	int fd, n, r = start_of(getpid(), &start);
	ssize_t w;

	if (r < 0)
		return r;
	boot_id(id, sizeof(id));
	n = snprintf(path, sizeof(path), "%s/%s", dir, RECLAIM_MARKER);
	if (n < 0 || (size_t)n >= sizeof(path))
		return -ENAMETOOLONG;
	n = snprintf(text, sizeof(text), "vmbench %ld %llu %s\n", (long)getpid(), start, id);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	w = write(fd, text, (size_t)n);
	r = w < 0 ? -errno : w != n ? -EIO : 0;
	if (close(fd) < 0 && r == 0)
		r = -errno;
	return r;
}

void reclaim_size_str(unsigned long long bytes, char *buf, size_t len)
{
	static const char *const units[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	double v = (double)bytes;
	size_t u = 0;

	while (v >= 1024 && u + 1 < sizeof(units) / sizeof(units[0])) {
		v /= 1024;
		u++;
	}
	if (u == 0)
		snprintf(buf, len, "%llu B", bytes);
	else
		snprintf(buf, len, v < 10 ? "%.1f %s" : "%.0f %s", v, units[u]);
}

/* "2.0 GiB, 4.0 KiB on disk" for a sparse file, else "1.0 MiB" */
static void sizes_str(const unsigned long long *bytes, char *buf, size_t len)
{
	char a[32], b[32];

	reclaim_size_str(bytes[0], a, sizeof(a));
	reclaim_size_str(bytes[1], b, sizeof(b));
	if (strcmp(a, b))
		snprintf(buf, len, "%s, %s on disk", a, b);
	else
		snprintf(buf, len, "%s", a);
}

/* One getdents64 record (the kernel's struct linux_dirent64) */
struct dirent64_raw {
	uint64_t ino;
	int64_t off;
	unsigned short reclen;
	unsigned char type;
	char name[];
};

static int remove_below(int fd, dev_t dev, unsigned depth, unsigned long long *bytes);

/* Entry name of directory fd removed (a directory with what is below it,
 * on file system dev only): 0, or a negative errno; its sizes into bytes. */
static int remove_entry(int fd, const char *name, dev_t dev, unsigned depth, unsigned long long *bytes)
{
	struct stat st;
	int sub, r;

	if (fstatat(fd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return -errno;
	if (!S_ISDIR(st.st_mode)) {
		if (unlinkat(fd, name, 0) < 0)
			return -errno;
		bytes[0] += (unsigned long long)st.st_size;
		bytes[1] += (unsigned long long)st.st_blocks * 512;
		return 0;
	}
	/* a mount point below is somebody's mount: left, and so is its parent */
	if (st.st_dev != dev)
		return -EXDEV;
	if (depth >= RECLAIM_DEPTH)
		return -ELOOP;
	sub = openat(fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (sub < 0)
		return -errno;
	r = remove_below(sub, dev, depth + 1, bytes);
	(void)close(sub);
	if (unlinkat(fd, name, AT_REMOVEDIR) < 0 && r == 0)
		r = -errno;
	return r;
}

/* Everything in directory fd removed but, at the top (depth 0), the
 * marker: 0 or the first negative errno. The directory is read again from
 * its start while a pass removed something (it changed under the reading);
 * a pass that removes nothing ends it. */
static int remove_below(int fd, dev_t dev, unsigned depth, unsigned long long *bytes)
{
	char buf[2048] __attribute__((aligned(8)));
	bool removed = true;
	int r = 0;
	long n;

	while (removed && lseek(fd, 0, SEEK_SET) == 0) {
		removed = false;
		while ((n = syscall(SYS_getdents64, fd, buf, sizeof(buf))) > 0)
			for (long off = 0; off < n;) {
				const struct dirent64_raw *d = (const void *)(buf + off);
				int q;

				off += d->reclen;
				if (!strcmp(d->name, ".") || !strcmp(d->name, "..") ||
				    (depth == 0 && !strcmp(d->name, RECLAIM_MARKER)))
					continue;
				q = remove_entry(fd, d->name, dev, depth, bytes);
				removed |= q == 0;
				if (q < 0 && q != -ENOENT && r == 0)
					r = q;
			}
		if (n < 0 && r == 0)
			r = -errno;
	}
	return r;
}

int reclaim_remove_tree(int dirfd, const char *name, unsigned long long *bytes)
{
	unsigned long long none[2];
	int fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC), r;
	struct stat st;

	if (!bytes)
		bytes = none;
	bytes[0] = bytes[1] = 0;
	if (fd < 0)
		return -errno;
	r = fstat(fd, &st) < 0 ? -errno : remove_below(fd, st.st_dev, 0, bytes);
	/* the marker last: a removal cut short is still known as vmbench's */
	if (r == 0 && unlinkat(fd, RECLAIM_MARKER, 0) < 0 && errno != ENOENT)
		r = -errno;
	(void)close(fd);
	if (r == 0 && unlinkat(dirfd, name, AT_REMOVEDIR) < 0)
		r = -errno;
	return r;
}

/* The owner in dir's marker: 0, or negative when there is no marker that
 * this user wrote (then the directory is not vmbench's to remove). */
static int read_marker(int dirfd, struct reclaim_owner *o)
{
	int fd = openat(dirfd, RECLAIM_MARKER, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC), r = 0;
	char text[256];
	struct stat st;
	ssize_t n = 0;

	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0)
		r = -errno;
	else if (!S_ISREG(st.st_mode) || st.st_uid != geteuid() || st.st_size >= (off_t)sizeof(text))
		r = -EPERM;
	else if ((n = read(fd, text, sizeof(text) - 1)) < 0)
		r = -errno;
	(void)close(fd);
	if (r < 0)
		return r;
	text[n] = '\0';
	return reclaim_parse_marker(text, o);
}

void reclaim_dirs(const char *parent, const char *prefix, const char *what)
{
	int pfd = open(parent, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	struct dirent *e;
	DIR *d;

	if (pfd < 0)
		return;
	d = fdopendir(pfd);
	if (!d) {
		(void)close(pfd);
		return;
	}
	while ((e = readdir(d))) {
		struct reclaim_owner o;
		unsigned long long bytes[2] = { 0, 0 };
		char size[64];
		struct stat st;
		int fd, r;

		if (strncmp(e->d_name, prefix, strlen(prefix)) ||
		    fstatat(pfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISDIR(st.st_mode) ||
		    st.st_uid != geteuid())
			continue;
		fd = openat(pfd, e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0)
			continue;
		r = read_marker(fd, &o);
		(void)close(fd);
		if (r < 0 || !reclaim_gone(&o))
			continue;
		r = reclaim_remove_tree(pfd, e->d_name, bytes);
		sizes_str(bytes, size, sizeof(size));
		if (r == -ENOENT && !bytes[0] && !bytes[1])
			continue; /* another run removed it first */
		if (r < 0)
			log_warn("removing %s/%s, the %s of vmbench process %ld, which is gone: %s (%s removed)", parent,
				 e->d_name, what, (long)o.pid, strerror(-r), size);
		else
			log_info("removed %s/%s (%s), the %s of vmbench process %ld, which is gone", parent, e->d_name,
				 size, what, (long)o.pid);
	}
	(void)closedir(d);
}

void reclaim_files(const char *dir, const char *const *prefixes, const char *what)
{
	int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	struct dirent *e;
	DIR *d;

	if (dfd < 0)
		return;
	d = fdopendir(dfd);
	if (!d) {
		(void)close(dfd);
		return;
	}
	while ((e = readdir(d))) {
		unsigned long long bytes[2];
		char size[64];
		struct stat st;
		size_t i = 0;
		pid_t pid;

		while (prefixes[i] && reclaim_name_pid(e->d_name, prefixes[i], &pid) < 0)
			i++;
		/* a file of this user, not a link, whose maker is gone */
		if (!prefixes[i] || fstatat(dfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISREG(st.st_mode) ||
		    st.st_uid != geteuid() || pid == getpid() || !reclaim_gone_since(pid, st.st_mtime))
			continue;
		bytes[0] = (unsigned long long)st.st_size;
		bytes[1] = (unsigned long long)st.st_blocks * 512;
		sizes_str(bytes, size, sizeof(size));
		if (unlinkat(dfd, e->d_name, 0) < 0) {
			if (errno != ENOENT)
				log_warn("removing %s/%s, the %s of vmbench process %ld, which is gone: %s", dir, e->d_name,
					 what, (long)pid, strerror(errno));
			continue;
		}
		log_info("removed %s/%s (%s), the %s of vmbench process %ld, which is gone", dir, e->d_name, size, what,
			 (long)pid);
	}
	(void)closedir(d);
}
