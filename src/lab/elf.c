/* ELF64 (little-endian) reader: machine, interpreter, DT_NEEDED. */
#include <elf.h>
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "elf.h"
#include "../core/banned.h"

/* off..off+len lies inside the file */
static bool inside(size_t size, uint64_t off, uint64_t len)
{
	return off <= size && len <= size - off;
}

/* A virtual address to its file offset, through the PT_LOAD that maps it. */
static bool vaddr_to_off(const char *data, const Elf64_Ehdr *eh, uint64_t vaddr, uint64_t *off)
{
	for (unsigned i = 0; i < eh->e_phnum; i++) {
		Elf64_Phdr ph;

		memcpy(&ph, data + eh->e_phoff + (uint64_t)i * eh->e_phentsize, sizeof(ph));
		if (ph.p_type == PT_LOAD && vaddr >= ph.p_vaddr && vaddr - ph.p_vaddr < ph.p_filesz) {
			*off = vaddr - ph.p_vaddr + ph.p_offset;
			return true;
		}
	}
	return false;
}

static int parse(const char *data, size_t size, struct elf_info *e)
{
	Elf64_Ehdr eh;
	uint64_t strtab = 0, strsz = 0, stroff, dynoff = 0, dynsz = 0;
	bool have_strtab = false;

	if (size < sizeof(eh) || memcmp(data, ELFMAG, SELFMAG))
		return -ENOEXEC;
	memcpy(&eh, data, sizeof(eh));
	if (eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_ident[EI_DATA] != ELFDATA2LSB)
		return -ENOEXEC;
	e->machine = eh.e_machine;
	e->arch = eh.e_machine == EM_X86_64 ? "x86_64" : eh.e_machine == EM_AARCH64 ? "aarch64" : NULL;
	if (eh.e_phnum && (eh.e_phentsize < sizeof(Elf64_Phdr) ||
			   !inside(size, eh.e_phoff, (uint64_t)eh.e_phnum * eh.e_phentsize)))
		return -ENOEXEC;
	for (unsigned i = 0; i < eh.e_phnum; i++) {
		Elf64_Phdr ph;

		memcpy(&ph, data + eh.e_phoff + (uint64_t)i * eh.e_phentsize, sizeof(ph));
		if (ph.p_type == PT_INTERP) {
			if (!inside(size, ph.p_offset, ph.p_filesz) || ph.p_filesz == 0 ||
			    ph.p_filesz > sizeof(e->interp) || data[ph.p_offset + ph.p_filesz - 1] != '\0')
				return -ENOEXEC;
			memcpy(e->interp, data + ph.p_offset, ph.p_filesz);
		} else if (ph.p_type == PT_DYNAMIC) {
			if (!inside(size, ph.p_offset, ph.p_filesz))
				return -ENOEXEC;
			dynoff = ph.p_offset;
			dynsz = ph.p_filesz;
		}
	}
	/* first pass: the string table; second: the names in it */
	for (uint64_t o = 0; o + sizeof(Elf64_Dyn) <= dynsz; o += sizeof(Elf64_Dyn)) {
		Elf64_Dyn d;

		memcpy(&d, data + dynoff + o, sizeof(d));
		if (d.d_tag == DT_NULL)
			break;
		if (d.d_tag == DT_STRTAB) {
			strtab = d.d_un.d_ptr;
			have_strtab = true;
		} else if (d.d_tag == DT_STRSZ) {
			strsz = d.d_un.d_val;
		}
	}
	if (!have_strtab)
		return dynsz ? -ENOEXEC : 0;
	if (!vaddr_to_off(data, &eh, strtab, &stroff) || !inside(size, stroff, strsz))
		return -ENOEXEC;
	for (uint64_t o = 0; o + sizeof(Elf64_Dyn) <= dynsz; o += sizeof(Elf64_Dyn)) {
		Elf64_Dyn d;
		const char *name;

		memcpy(&d, data + dynoff + o, sizeof(d));
		if (d.d_tag == DT_NULL)
			break;
		if (d.d_tag != DT_NEEDED)
			continue;
		if (d.d_un.d_val >= strsz)
			return -ENOEXEC;
		name = data + stroff + d.d_un.d_val;
		if (!memchr(name, '\0', strsz - d.d_un.d_val))
			return -ENOEXEC;
		if (strv_push(&e->needed, name) < 0)
			return -ENOMEM;
	}
	return 0;
}

int elf_read(const char *path, struct elf_info *e)
{
	struct stat st;
	char *data;
	FILE *f;
	int r;

	memset(e, 0, sizeof(*e));
	f = fopen(path, "rb");
	if (!f)
		return -errno;
	if (fstat(fileno(f), &st) < 0 || !S_ISREG(st.st_mode)) {
		fclose(f);
		return -ENOEXEC;
	}
	data = malloc(st.st_size ? (size_t)st.st_size : 1);
	if (!data) {
		fclose(f);
		return -ENOMEM;
	}
	r = fread(data, 1, (size_t)st.st_size, f) == (size_t)st.st_size ? elf_parse(data, (size_t)st.st_size, e) : -EIO;
	fclose(f);
	free(data);
	return r;
}

int elf_parse(const char *data, size_t size, struct elf_info *e)
{
	int r;

	memset(e, 0, sizeof(*e));
	r = parse(data, size, e);
	if (r < 0)
		elf_release(e);
	return r;
}

bool elf_pvh_entry(const char *data, size_t size)
{
	Elf64_Ehdr eh;

	if (size < sizeof(eh) || memcmp(data, ELFMAG, SELFMAG))
		return false;
	memcpy(&eh, data, sizeof(eh));
	if (eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_ident[EI_DATA] != ELFDATA2LSB || eh.e_machine != EM_X86_64 ||
	    (eh.e_phnum && (eh.e_phentsize < sizeof(Elf64_Phdr) ||
			    !inside(size, eh.e_phoff, (uint64_t)eh.e_phnum * eh.e_phentsize))))
		return false;
	for (unsigned i = 0; i < eh.e_phnum; i++) {
		Elf64_Phdr ph;

		memcpy(&ph, data + eh.e_phoff + (uint64_t)i * eh.e_phentsize, sizeof(ph));
		if (ph.p_type != PT_NOTE || !inside(size, ph.p_offset, ph.p_filesz))
			continue;
		/* name and descriptor each padded to 4 bytes */
		for (uint64_t o = 0; o + sizeof(Elf64_Nhdr) <= ph.p_filesz;) {
			Elf64_Nhdr nh;
			uint64_t name, desc;

			memcpy(&nh, data + ph.p_offset + o, sizeof(nh));
			name = ((uint64_t)nh.n_namesz + 3) & ~(uint64_t)3;
			desc = ((uint64_t)nh.n_descsz + 3) & ~(uint64_t)3;
			if (name + desc > ph.p_filesz - o - sizeof(nh))
				break;
			/* XEN_ELFNOTE_PHYS32_ENTRY, the 32-bit entry point */
			if (nh.n_namesz == 4 && !memcmp(data + ph.p_offset + o + sizeof(nh), "Xen", 4) && nh.n_type == 18 &&
			    nh.n_descsz >= 4)
				return true;
			o += sizeof(nh) + name + desc;
		}
	}
	return false;
}

void elf_release(struct elf_info *e)
{
	strv_clear(&e->needed);
}

static bool listed(const struct strv *v, const char *s)
{
	for (size_t i = 0; i < v->n; i++)
		if (!strcmp(v->v[i], s))
			return true;
	return false;
}

int elf_runtime_files_in(const char *bin, const struct elf_lib_search *in, struct strv *host, struct strv *guest,
			 char *err, size_t errlen)
{
	struct strv queue = { 0 };
	struct elf_info e;
	char dirs[4][64];
	size_t nroots = in->roots ? in->roots->n : 0;
	unsigned machine;
	int r = elf_read(bin, &e);

	if (r < 0)
		return errf(err, errlen, r, "%s: %s", bin, r == -ENOEXEC ? "not a 64-bit little-endian ELF file" : strerror(-r));
	machine = e.machine;
	snprintf(dirs[0], sizeof(dirs[0]), "/lib/%s", in->triplet);
	snprintf(dirs[1], sizeof(dirs[1]), "/usr/lib/%s", in->triplet);
	snprintf(dirs[2], sizeof(dirs[2]), "/lib");
	snprintf(dirs[3], sizeof(dirs[3]), "/usr/lib");
	if (*e.interp && !listed(guest, e.interp)) {
		r = strv_push(host, e.interp);
		if (r == 0)
			r = strv_push(guest, e.interp);
	}
	for (size_t i = 0; r == 0 && i < e.needed.n; i++)
		r = strv_push(&queue, e.needed.v[i]);
	elf_release(&e);
	/* breadth-first over the names; each library once, from the first
	 * root that has it (the unpacked packages, then this machine) */
	for (size_t i = 0; r == 0 && i < queue.n; i++) {
		char path[PATH_MAX];
		bool found = false;

		for (size_t k = 0; k <= nroots && !found; k++)
			for (size_t d = 0; d < 4 && !found; d++) {
				snprintf(path, sizeof(path), "%s%s/%s", k < nroots ? in->roots->v[k] : "", dirs[d],
					 queue.v[i]);
				if (elf_read(path, &e) < 0)
					continue;
				/* a library of another architecture in a shared directory is not the one */
				found = e.machine == machine;
				if (found && !listed(guest, path + (k < nroots ? strlen(in->roots->v[k]) : 0))) {
					r = strv_push(host, path);
					if (r == 0)
						r = strv_push(guest, path + (k < nroots ? strlen(in->roots->v[k]) : 0));
				}
				for (size_t n = 0; r == 0 && found && n < e.needed.n; n++)
					if (!listed(&queue, e.needed.v[n]))
						r = strv_push(&queue, e.needed.v[n]);
				elf_release(&e);
			}
		if (!found && r == 0)
			r = errf(err, errlen, -ENOENT, "%s needs %s, found in none of /lib/%s, /usr/lib/%s, /lib, /usr/lib%s",
				 bin, queue.v[i], in->triplet, in->triplet, nroots ? " (of the packages, nor of this machine)" : "");
	}
	strv_clear(&queue);
	return r;
}

int elf_runtime_files(const char *bin, const char *triplet, struct strv *files, char *err, size_t errlen)
{
	struct strv guest = { 0 };
	int r = elf_runtime_files_in(bin, &(struct elf_lib_search){ .triplet = triplet }, files, &guest, err, errlen);

	strv_clear(&guest);
	return r;
}
