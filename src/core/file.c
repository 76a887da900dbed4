/* Reading small files whole and writing new files atomically. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/file.h>
#include <sys/stat.h>

#include "file.h"
#include "str.h"
#include "banned.h"

int read_file(const char *path, char **out)
{
	char *buf = NULL;
	size_t len = 0, cap = 0;
	int fd, r = 0;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	for (;;) {
		ssize_t k;

		if (cap - len < 4096) {
			/* doubling: growing by a fixed step copied the buffer once per
			 * step, quadratic in the file's size (minutes for /dev/zero
			 * under ASan, whose realloc always copies) */
			size_t ncap = cap ? 2 * cap : 8192;
			char *nb;

			if (cap > (64u << 20)) {
				r = -EFBIG;
				break;
			}
			nb = realloc(buf, ncap);
			if (!nb) {
				r = -ENOMEM;
				break;
			}
			buf = nb;
			cap = ncap;
		}
		k = read(fd, buf + len, cap - len - 1);
		if (k < 0) {
			if (errno == EINTR)
				continue;
			r = -errno;
			break;
		}
		if (k == 0)
			break;
		len += (size_t)k;
	}
	close(fd);
	if (r < 0) {
		free(buf);
		return r;
	}
	if (!buf) {
		buf = malloc(1);
		if (!buf)
			return -ENOMEM;
	}
	while (len > 0 && buf[len - 1] == '\n')
		len--;
	buf[len] = '\0';
	*out = buf;
	return 0;
}

int read_file_or_stdin(const char *path, char **out)
{
	return read_file(strcmp(path, "-") ? path : "/dev/stdin", out);
}

int read_file_at(const char *root, const char *path, char **out)
{
	char full[4096];

	if ((size_t)snprintf(full, sizeof(full), "%s%s", strcmp(root, "/") ? root : "", path) >= sizeof(full))
		return -ENAMETOOLONG;
	return read_file(full, out);
}

int read_line_at(const char *root, const char *path, char *buf, size_t len)
{
	char *s, *nl;
	int r;

	r = read_file_at(root, path, &s);
	if (r < 0)
		return r;
	nl = strchr(s, '\n');
	if (nl)
		*nl = '\0';
	snprintf(buf, len, "%s", s);
	free(s);
	return 0;
}

int file_mkdirs(const char *path)
{
	char *tmp = xstrdup(path);
	int r = 0;

	if (!tmp)
		return -ENOMEM;
	for (char *p = tmp + 1; *p && r == 0; p++)
		if (*p == '/') {
			*p = '\0';
			if (mkdir(tmp, 0755) < 0 && errno != EEXIST)
				r = -errno;
			*p = '/';
		}
	if (r == 0 && mkdir(tmp, 0755) < 0 && errno != EEXIST)
		r = -errno;
	free(tmp);
	return r;
}

int file_write_new(const char *path, const char *data, size_t len)
{
	char *tmp;
	size_t done = 0;
	int fd, r = 0;

	if (access(path, F_OK) == 0)
		return -EEXIST;
	tmp = xasprintf("%s.tmp.XXXXXX", path);
	if (!tmp)
		return -ENOMEM;
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0) {
		r = -errno;
		goto out;
	}
	{
		/* mkostemp makes 0600; a result or report is for sharing: the umask decides */
		mode_t mask = umask(0);

		umask(mask);
		(void)fchmod(fd, 0666 & ~mask);
	}
	while (done < len && r == 0) {
		ssize_t n = write(fd, data + done, len - done);

		if (n < 0 && errno != EINTR)
			r = -errno;
		else if (n > 0)
			done += (size_t)n;
	}
	if (r == 0 && fsync(fd) < 0)
		r = -errno;
	if (close(fd) < 0 && r == 0)
		r = -errno;
	if (r == 0 && link(tmp, path) < 0)
		r = -errno;
	(void)unlink(tmp);
out:
	free(tmp);
	return r;
}

int file_write_stdout(const char *data, size_t len)
{
	size_t done = 0;

	/* what stdio holds goes first; then the bytes straight to the file
	 * descriptor, whose errno says why (stdio's may be lost) */
	errno = 0;
	if (fflush(stdout) != 0)
		return errno ? -errno : -EIO;
	while (done < len) {
		ssize_t n = write(STDOUT_FILENO, data + done, len - done);

		if (n < 0 && errno != EINTR)
			return -errno;
		if (n == 0)
			return -EIO;
		if (n > 0)
			done += (size_t)n;
	}
	return 0;
}

int file_lock(const char *path, const char **what)
{
	int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644), r;

	*what = "creating";
	if (fd < 0)
		return -errno;
	*what = "locking";
	while (flock(fd, LOCK_EX) < 0)
		if (errno != EINTR) {
			r = -errno;
			close(fd);
			return r;
		}
	return fd;
}
