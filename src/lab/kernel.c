/* Unpacking an x86 bzImage's vmlinux for a PVH boot (see kernel.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include "elf.h"
#include "kernel.h"
#include "../core/macro.h"
#include "../core/spawn.h"
#include "../core/str.h"
#include "../core/banned.h"

/* the kernel's build: vmlinux.bin.gz bare, the others with their size appended */
static const struct lab_codec codecs[] = {
	{ "xz", { 0xfd, '7', 'z', 'X', 'Z', 0 }, 6, "xz", { "-dc", "--single-stream", NULL }, 4 },
	{ "gzip", { 0x1f, 0x8b }, 2, "gzip", { "-dc", NULL }, 0 },
	{ "zstd", { 0x28, 0xb5, 0x2f, 0xfd }, 4, "zstd", { "-dcq", NULL }, 4 },
};

static uint32_t le32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

int lab_bzimage_payload(const char *data, size_t size, struct lab_payload *p)
{
	const unsigned char *d = (const unsigned char *)data;
	size_t setup, off, len;

	/* the setup header: "HdrS" at 0x202, its version at 0x206 */
	if (size < 0x250 || memcmp(d + 0x202, "HdrS", 4) || (d[0x206] | d[0x207] << 8) < 0x208)
		return -ENOEXEC;
	setup = ((size_t)(d[0x1f1] ? d[0x1f1] : 4) + 1) * 512;
	off = le32(d + 0x248);
	len = le32(d + 0x24c);
	if (setup > size || off > size - setup || len > size - setup - off || len == 0)
		return -ENOEXEC;
	p->off = setup + off;
	p->len = len;
	p->codec = NULL;
	for (size_t i = 0; i < ARRAY_SIZE(codecs); i++)
		if (len >= codecs[i].magic_len + codecs[i].trailer && !memcmp(d + p->off, codecs[i].magic, codecs[i].magic_len))
			p->codec = &codecs[i];
	return 0;
}

/* path mapped read-only: 0, or a negative errno */
static int map(const char *path, const char **data, size_t *size)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC), r = 0;
	void *m;

	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0) {
		r = -errno;
	} else if (st.st_size <= 0) {
		r = -ENOEXEC;
	} else {
		m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
		if (m == MAP_FAILED) {
			r = -errno;
		} else {
			*data = m;
			*size = (size_t)st.st_size;
		}
	}
	close(fd);
	return r;
}

/* the payload into a file of its own, for the tool's stdin */
static int write_all(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);

		if (w < 0 && errno != EINTR)
			return -errno;
		if (w > 0) {
			p += w;
			n -= (size_t)w;
		}
	}
	return 0;
}

int lab_kernel_unpack(const char *bzimage, const char *vmlinux, char *why, size_t len)
{
	char zpath[4200], tmp[4200];
	const char *data = NULL, *elf = NULL;
	size_t size = 0, esize = 0;
	struct lab_payload p;
	int zfd = -1, ofd = -1, r;

	snprintf(zpath, sizeof(zpath), "%s.payload.tmp", vmlinux);
	snprintf(tmp, sizeof(tmp), "%s.tmp", vmlinux);
	r = map(bzimage, &data, &size);
	if (r < 0)
		return errf(why, len, r, "reading %s: %s", bzimage, strerror(-r));
	r = lab_bzimage_payload(data, size, &p);
	if (r < 0) {
		errf(why, len, r, "%s is not a bzImage whose header gives its payload (boot protocol 2.08+)", bzimage);
		goto out;
	}
	if (!p.codec) {
		r = errf(why, len, -ENOTSUP, "%s: its payload's compression has no unpacker here (xz, gzip, zstd)",
			 bzimage);
		goto out;
	}
	(void)unlink(zpath);
	(void)unlink(tmp);
	zfd = open(zpath, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	ofd = zfd >= 0 ? open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644) : -1;
	if (ofd < 0) {
		r = errf(why, len, -errno, "creating %s: %s", zfd < 0 ? zpath : tmp, strerror(errno));
		goto out;
	}
	r = write_all(zfd, data + p.off, p.len - p.codec->trailer);
	if (r == 0 && lseek(zfd, 0, SEEK_SET) < 0)
		r = -errno;
	if (r < 0) {
		errf(why, len, r, "writing %s: %s", zpath, strerror(-r));
		goto out;
	}
	{
		char *argv[6] = { (char *)p.codec->tool };

		for (size_t i = 0; i < 4 && p.codec->args[i]; i++)
			argv[i + 1] = (char *)p.codec->args[i];
		r = run_filter(p.codec->tool, argv, zfd, ofd);
	}
	if (r < 0) {
		errf(why, len, r, "%s -d failed on %s's %s payload (is %s installed?)", p.codec->tool, bzimage,
		     p.codec->name, p.codec->tool);
		goto out;
	}
	r = map(tmp, &elf, &esize);
	if (r == 0 && !elf_pvh_entry(elf, esize))
		r = errf(why, len, -ENOEXEC, "%s's vmlinux has no PVH entry note (CONFIG_PVH)", bzimage);
	else if (r < 0)
		errf(why, len, r, "reading %s: %s", tmp, strerror(-r));
	if (r == 0 && rename(tmp, vmlinux) < 0)
		r = errf(why, len, -errno, "renaming %s: %s", tmp, strerror(errno));
	if (r == 0)
		snprintf(why, len, "%s payload unpacked, entered through PVH", p.codec->name);
out:
	if (elf)
		munmap((void *)elf, esize);
	if (data)
		munmap((void *)data, size);
	if (zfd >= 0)
		close(zfd);
	if (ofd >= 0)
		close(ofd);
	(void)unlink(zpath);
	(void)unlink(tmp);
	return r;
}
