/* cpio "newc" writer (gzip): the format of Linux initramfs images. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cpio.h"
#include "../core/util.h"
#include "../core/banned.h"

int cpio_open(struct cpio *c, const char *path)
{
	memset(c, 0, sizeof(*c));
	c->ino = 1;
	c->gz = gzopen(path, "wb6");
	return c->gz ? 0 : -errno ? -errno : -ENOMEM;
}

static void put(struct cpio *c, const void *p, size_t len)
{
	if (c->err || len == 0)
		return;
	if (gzwrite(c->gz, p, (unsigned)len) != (int)len)
		c->err = -EIO;
}

static void pad4(struct cpio *c, size_t len)
{
	static const char zeros[4];

	put(c, zeros, (4 - len % 4) % 4);
}

/* header, name, padding; the caller writes the data and pads it */
static void header(struct cpio *c, const char *name, unsigned mode, size_t size)
{
	char h[111];
	size_t namesize = strlen(name) + 1;

	snprintf(h, sizeof(h), "070701%08X%08X%08X%08X%08X%08X%08zX%08X%08X%08X%08X%08zX%08X", c->ino++, mode, 0u, 0u,
		 (mode & S_IFMT) == S_IFDIR ? 2u : 1u, 0u, size, 0u, 0u, 0u, 0u, namesize, 0u);
	put(c, h, 110);
	put(c, name, namesize);
	pad4(c, 110 + namesize);
}

void cpio_dir(struct cpio *c, const char *name, mode_t perm)
{
	header(c, name, S_IFDIR | (perm & 07777), 0);
}

void cpio_file(struct cpio *c, const char *name, mode_t perm, const void *data, size_t len)
{
	header(c, name, S_IFREG | (perm & 07777), len);
	put(c, data, len);
	pad4(c, len);
}

void cpio_copy(struct cpio *c, const char *name, mode_t perm, const char *host_path)
{
	char *data = NULL;
	size_t len = 0, cap = 0;
	int fd = open(host_path, O_RDONLY | O_CLOEXEC);

	if (fd < 0) {
		if (!c->err)
			c->err = -errno;
		return;
	}
	for (;;) {
		ssize_t n;

		if (cap - len < 65536) {
			char *nd = realloc(data, cap + (1 << 20));

			if (!nd) {
				c->err = -ENOMEM;
				break;
			}
			data = nd;
			cap += 1 << 20;
		}
		n = read(fd, data + len, cap - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			c->err = -errno;
			break;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	close(fd);
	if (!c->err)
		cpio_file(c, name, perm, data, len);
	free(data);
}

void cpio_symlink(struct cpio *c, const char *name, const char *target)
{
	size_t len = strlen(target);

	header(c, name, S_IFLNK | 0777, len);
	put(c, target, len);
	pad4(c, len);
}

int cpio_close(struct cpio *c)
{
	int r;

	header(c, "TRAILER!!!", 0, 0);
	r = gzclose(c->gz) == Z_OK ? 0 : -EIO;
	c->gz = NULL;
	return c->err ? c->err : r;
}
