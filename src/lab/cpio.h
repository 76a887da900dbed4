/* A gzip-compressed cpio archive in the "newc" format, as the Linux kernel
 * unpacks an initramfs. Entries are written in order; directories must come
 * before what they contain. */
#ifndef VMB_CPIO_H
#define VMB_CPIO_H

#include <stddef.h>
#include <sys/types.h>
#include <zlib.h>

struct cpio {
	gzFile gz;
	unsigned ino;
	int err; /* first error, a negative errno */
};

int cpio_open(struct cpio *c, const char *path);
void cpio_dir(struct cpio *c, const char *name, mode_t perm);
void cpio_file(struct cpio *c, const char *name, mode_t perm, const void *data, size_t len);
/* Copy a host file (its content; perm as given). */
void cpio_copy(struct cpio *c, const char *name, mode_t perm, const char *host_path);
void cpio_symlink(struct cpio *c, const char *name, const char *target);
/* Writes the trailer and closes; 0 or the first error. */
int cpio_close(struct cpio *c);

#endif
