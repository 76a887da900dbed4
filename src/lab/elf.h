/* Just enough ELF reading for the guest image: which architecture a binary
 * is for, its program interpreter and the shared libraries it names, so the
 * image can carry them for a foreign architecture where ldd cannot run. */
#ifndef VMB_ELF_H
#define VMB_ELF_H

#include <stdbool.h>
#include <stddef.h>

#include "../core/util.h"

struct elf_info {
	const char *arch;    /* "x86_64", "aarch64", or NULL for any other machine */
	unsigned machine;    /* e_machine */
	char interp[256];    /* PT_INTERP, "" for a static binary */
	struct strv needed;  /* DT_NEEDED names, in order */
};

/* Read a 64-bit little-endian ELF file. -ENOEXEC: not one, or damaged
 * (every offset is checked against the file's size). */
int elf_read(const char *path, struct elf_info *e);
/* The same on bytes in memory (size of them). */
int elf_parse(const char *data, size_t size, struct elf_info *e);
void elf_release(struct elf_info *e);

/* An x86_64 kernel's PVH entry: a PT_NOTE holding Xen's PHYS32_ENTRY note,
 * through which QEMU starts an uncompressed vmlinux (-kernel) without the
 * bzImage's decompressor. false for anything else, also a damaged file. */
bool elf_pvh_entry(const char *data, size_t size);

/* The files a binary needs at run time, for the architecture whose Debian
 * multiarch triplet is given: the interpreter first, then every library
 * (and what those need), as host paths that are also their guest paths.
 * A library found nowhere is an error naming it and the directories searched. */
int elf_runtime_files(const char *bin, const char *triplet, struct strv *files, char *err, size_t errlen);

/* The same searching roots first (unpacked Debian packages: ROOT/lib/...,
 * in order), then this machine: the host paths into host, the guest's
 * into guest (the path inside its root), each guest path once, also
 * across calls with the same lists. */
struct elf_lib_search {
	const char *triplet;
	const struct strv *roots; /* NULL: none */
};
int elf_runtime_files_in(const char *bin, const struct elf_lib_search *in, struct strv *host, struct strv *guest,
			 char *err, size_t errlen);

#endif
