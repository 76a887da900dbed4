/* The x86_64 kernel the lab hands QEMU: the vmlinux inside Debian's bzImage,
 * unpacked once when the image is built and entered through PVH. Booted as a
 * bzImage, the kernel's own decompressor (xz for Debian) runs inside the
 * guest, which under TCG costs about 8 s of every boot; QEMU already unpacks
 * aarch64's Image.gz on the host, so both architectures now start the kernel
 * proper. */
#ifndef VMB_KERNEL_H
#define VMB_KERNEL_H

#include <stddef.h>

/* A compression the bzImage's payload may use, and the Debian tool that
 * undoes it (trailer: bytes of uncompressed size the kernel's build appends). */
struct lab_codec {
	const char *name;
	unsigned char magic[6];
	size_t magic_len;
	const char *tool;
	const char *args[4]; /* argv after the tool's name */
	size_t trailer;
};

/* The compressed kernel inside a bzImage, from its boot protocol header. */
struct lab_payload {
	size_t off, len;
	const struct lab_codec *codec; /* NULL: a compression with no row */
};

/* -ENOEXEC: not a bzImage with a payload field (boot protocol 2.08 or later)
 * or the payload lies outside the file. */
int lab_bzimage_payload(const char *data, size_t size, struct lab_payload *p);

/* Unpack bzimage into vmlinux (a new file; an existing one is replaced only
 * by a complete, checked one): 0, or a negative errno with why (no tool,
 * not a bzImage, an ELF without a PVH entry), when the bzImage must be used. */
int lab_kernel_unpack(const char *bzimage, const char *vmlinux, char *why, size_t len);

#endif
