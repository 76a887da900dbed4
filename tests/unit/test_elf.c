/* The ELF reader the image builder uses instead of ldd: this test program's
 * own interpreter and libraries, crafted headers, and damaged files that
 * must be refused without reading outside the file. */
#include <elf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "test.h"
#include "../../src/lab/elf.h"
#include "../../src/lab/kernel.h"

#if defined(__x86_64__)
#define HOST_ARCH "x86_64"
#define HOST_TRIPLET "x86_64-linux-gnu"
#elif defined(__aarch64__)
#define HOST_ARCH "aarch64"
#define HOST_TRIPLET "aarch64-linux-gnu"
#endif

static bool has(const struct strv *v, const char *suffix)
{
	for (size_t i = 0; i < v->n; i++)
		if (strlen(v->v[i]) >= strlen(suffix) && !strcmp(v->v[i] + strlen(v->v[i]) - strlen(suffix), suffix))
			return true;
	return false;
}

static char *self_bytes(size_t *len)
{
	FILE *f = fopen("/proc/self/exe", "rb");
	char *buf = NULL;

	assert_non_null(f);
	assert_int_equal(fseek(f, 0, SEEK_END), 0);
	*len = (size_t)ftell(f);
	rewind(f);
	buf = malloc(*len);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, *len, f), *len);
	fclose(f);
	return buf;
}

static void write_file(const char *path, const void *data, size_t len)
{
	FILE *f = fopen(path, "wb");

	assert_non_null(f);
	assert_int_equal(fwrite(data, 1, len, f), len);
	assert_int_equal(fclose(f), 0);
}

static void this_program(void **state)
{
	struct elf_info e;

	(void)state;
	assert_int_equal(elf_read("/proc/self/exe", &e), 0);
#ifdef HOST_ARCH
	assert_string_equal(e.arch, HOST_ARCH);
#endif
	assert_true(e.interp[0] == '/');
	assert_true(has(&e.needed, "libc.so.6"));
	assert_true(has(&e.needed, "libcmocka.so.0")); /* the test framework's library */
	elf_release(&e);
}

static void runtime_files(void **state)
{
#ifdef HOST_TRIPLET
	struct strv files = { 0 };
	struct elf_info e;
	char err[512];

	(void)state;
	assert_int_equal(elf_read("/proc/self/exe", &e), 0);
	assert_int_equal(elf_runtime_files("/proc/self/exe", HOST_TRIPLET, &files, err, sizeof(err)), 0);
	assert_string_equal(files.v[0], e.interp); /* the loader first */
	assert_true(has(&files, "/libc.so.6"));
	assert_true(has(&files, "/libcmocka.so.0"));
	for (size_t i = 0; i < files.n; i++) {
		assert_int_equal(access(files.v[i], R_OK), 0);
		for (size_t j = 0; j < i; j++)
			assert_string_not_equal(files.v[i], files.v[j]); /* each once */
	}
	strv_clear(&files);
	elf_release(&e);

	/* libraries of a triplet that has none: the error names the first missing one */
	assert_true(elf_runtime_files("/proc/self/exe", "nowhere-linux-gnu", &files, err, sizeof(err)) < 0);
	assert_non_null(strstr(err, "found in none of /lib/nowhere-linux-gnu"));
	strv_clear(&files);
#else
	(void)state;
	skip();
#endif
}

static void crafted(void **state)
{
	char path[] = "/tmp/vmbench-elf-XXXXXX";
	Elf64_Ehdr eh = { 0 };
	struct elf_info e;
	int fd = mkstemp(path);

	(void)state;
	assert_true(fd >= 0);
	close(fd);
	/* a static aarch64 program: no program headers at all */
	memcpy(eh.e_ident, ELFMAG, SELFMAG);
	eh.e_ident[EI_CLASS] = ELFCLASS64;
	eh.e_ident[EI_DATA] = ELFDATA2LSB;
	eh.e_machine = EM_AARCH64;
	write_file(path, &eh, sizeof(eh));
	assert_int_equal(elf_read(path, &e), 0);
	assert_string_equal(e.arch, "aarch64");
	assert_string_equal(e.interp, "");
	assert_int_equal(e.needed.n, 0);
	elf_release(&e);
	/* another machine: read, but no architecture the lab knows */
	eh.e_machine = EM_RISCV;
	write_file(path, &eh, sizeof(eh));
	assert_int_equal(elf_read(path, &e), 0);
	assert_null(e.arch);
	elf_release(&e);
	/* program headers said to lie beyond the end */
	eh.e_phnum = 4;
	eh.e_phentsize = sizeof(Elf64_Phdr);
	eh.e_phoff = 1 << 20;
	write_file(path, &eh, sizeof(eh));
	assert_int_equal(elf_read(path, &e), -ENOEXEC);
	/* 32-bit, big-endian, a script, an empty file */
	eh.e_phnum = 0;
	eh.e_ident[EI_CLASS] = ELFCLASS32;
	write_file(path, &eh, sizeof(eh));
	assert_int_equal(elf_read(path, &e), -ENOEXEC);
	eh.e_ident[EI_CLASS] = ELFCLASS64;
	eh.e_ident[EI_DATA] = ELFDATA2MSB;
	write_file(path, &eh, sizeof(eh));
	assert_int_equal(elf_read(path, &e), -ENOEXEC);
	write_file(path, "#!/bin/sh\n", 10);
	assert_int_equal(elf_read(path, &e), -ENOEXEC);
	write_file(path, "", 0);
	assert_int_equal(elf_read(path, &e), -ENOEXEC);
	assert_int_equal(elf_read("/tmp", &e), -ENOEXEC); /* a directory */
	assert_int_equal(elf_read("/nonexistent/x", &e), -ENOENT);
	unlink(path);
}

/* Truncations and flipped bytes of a real program: refused or read, never a
 * read outside the file (the ASan build checks that). */
static void damaged(void **state)
{
	char path[] = "/tmp/vmbench-elf-XXXXXX";
	size_t len, refused = 0;
	char *orig = self_bytes(&len), *copy = malloc(len);
	unsigned seed = 12345;
	int fd = mkstemp(path);

	(void)state;
	assert_true(fd >= 0 && copy);
	close(fd);
	for (size_t cut = 0; cut < 4096 && cut < len; cut += 61) {
		struct elf_info e;

		write_file(path, orig, cut);
		if (elf_read(path, &e) < 0)
			refused++;
		else
			elf_release(&e);
	}
	assert_true(refused > 0); /* a header cut short is not an ELF file */
	for (int round = 0; round < 300; round++) {
		struct elf_info e;

		memcpy(copy, orig, len);
		for (int k = 0; k < 8; k++) {
			seed = seed * 1103515245u + 12345u;
			copy[(seed >> 8) % (len < 8192 ? len : 8192)] ^= (char)(1u << (seed % 8));
		}
		write_file(path, copy, len);
		if (elf_read(path, &e) == 0) {
			for (size_t i = 0; i < e.needed.n; i++)
				assert_true(strlen(e.needed.v[i]) < len);
			elf_release(&e);
		}
	}
	unlink(path);
	free(orig);
	free(copy);
}

/* elf_parse reads bytes in memory as elf_read reads the file. */
static void in_memory(void **state)
{
	struct elf_info a, b;
	size_t len;
	char *data = self_bytes(&len);

	(void)state;
	assert_int_equal(elf_read("/proc/self/exe", &a), 0);
	assert_int_equal(elf_parse(data, len, &b), 0);
	assert_string_equal(a.arch, b.arch);
	assert_string_equal(a.interp, b.interp);
	assert_int_equal(a.needed.n, b.needed.n);
	for (size_t i = 0; i < a.needed.n; i++)
		assert_string_equal(a.needed.v[i], b.needed.v[i]);
	elf_release(&b);
	/* every prefix of it is refused or read, never read outside */
	for (size_t cut = 0; cut < 256; cut += 7) {
		assert_int_equal(elf_parse(data, cut, &b), -ENOEXEC);
		elf_release(&b);
	}
	elf_release(&a);
	free(data);
}

/* An x86_64 ELF with one PT_NOTE holding a note of this name and type (and
 * a 4-byte descriptor); cut: bytes taken off the note segment's end. */
static size_t pvh_elf(char *buf, size_t cap, const char *name, unsigned type, unsigned machine, size_t cut)
{
	Elf64_Ehdr eh = { 0 };
	Elf64_Phdr ph = { 0 };
	Elf64_Nhdr nh = { .n_namesz = (Elf64_Word)strlen(name) + 1, .n_descsz = 4, .n_type = type };
	size_t off = sizeof(eh) + sizeof(ph), nlen = (strlen(name) + 1 + 3) & ~(size_t)3;

	assert_true(off + sizeof(nh) + nlen + 4 <= cap);
	memset(buf, 0, cap);
	memcpy(eh.e_ident, ELFMAG, SELFMAG);
	eh.e_ident[EI_CLASS] = ELFCLASS64;
	eh.e_ident[EI_DATA] = ELFDATA2LSB;
	eh.e_machine = (Elf64_Half)machine;
	eh.e_phoff = sizeof(eh);
	eh.e_phentsize = sizeof(ph);
	eh.e_phnum = 1;
	ph.p_type = PT_NOTE;
	ph.p_offset = off;
	ph.p_filesz = sizeof(nh) + nlen + 4 - cut;
	memcpy(buf, &eh, sizeof(eh));
	memcpy(buf + sizeof(eh), &ph, sizeof(ph));
	memcpy(buf + off, &nh, sizeof(nh));
	memcpy(buf + off + sizeof(nh), name, strlen(name) + 1);
	return off + sizeof(nh) + nlen + 4;
}

/* The PVH entry QEMU needs to start a vmlinux: Xen's PHYS32_ENTRY note (18)
 * in an x86_64 ELF, and nothing else passes. */
static void pvh_note(void **state)
{
	char buf[512];
	size_t n;

	(void)state;
	n = pvh_elf(buf, sizeof(buf), "Xen", 18, EM_X86_64, 0);
	assert_true(elf_pvh_entry(buf, n));
	n = pvh_elf(buf, sizeof(buf), "Xen", 17, EM_X86_64, 0); /* another Xen note */
	assert_false(elf_pvh_entry(buf, n));
	n = pvh_elf(buf, sizeof(buf), "GNU", 18, EM_X86_64, 0); /* another owner */
	assert_false(elf_pvh_entry(buf, n));
	n = pvh_elf(buf, sizeof(buf), "Xen", 18, EM_AARCH64, 0); /* not x86_64 */
	assert_false(elf_pvh_entry(buf, n));
	n = pvh_elf(buf, sizeof(buf), "Xen", 18, EM_X86_64, 2); /* the descriptor cut */
	assert_false(elf_pvh_entry(buf, n));
	n = pvh_elf(buf, sizeof(buf), "Xen", 18, EM_X86_64, 0);
	assert_false(elf_pvh_entry(buf, n - 3)); /* the file cut inside the segment */
	assert_false(elf_pvh_entry(buf, 10));
	assert_false(elf_pvh_entry("#!/bin/sh\n", 10));
}

/* A bzImage's payload, from its setup header: where, how long, which codec;
 * headers that point outside the file are refused. */
static void bzimage_header(void **state)
{
	static char img[8192];
	struct lab_payload p;

	(void)state;
	memset(img, 0, sizeof(img));
	img[0x1f1] = 3; /* setup sectors: the kernel proper at (3 + 1) * 512 */
	memcpy(img + 0x202, "HdrS", 4);
	img[0x206] = 0x0f;
	img[0x207] = 0x02; /* protocol 2.15 */
	img[0x248] = 0x40; /* payload 0x40 past the kernel proper's start */
	img[0x24c] = 0x00;
	img[0x24d] = 0x01; /* 256 bytes */
	memcpy(img + 2048 + 0x40, "\xfd" "7zXZ\0", 6);
	assert_int_equal(lab_bzimage_payload(img, sizeof(img), &p), 0);
	assert_int_equal(p.off, 2048 + 0x40);
	assert_int_equal(p.len, 256);
	assert_non_null(p.codec);
	assert_string_equal(p.codec->name, "xz");
	assert_int_equal(p.codec->trailer, 4);
	memcpy(img + 2048 + 0x40, "\x1f\x8b", 2);
	assert_int_equal(lab_bzimage_payload(img, sizeof(img), &p), 0);
	assert_string_equal(p.codec->name, "gzip");
	memcpy(img + 2048 + 0x40, "LZ4!", 4); /* a compression with no row */
	assert_int_equal(lab_bzimage_payload(img, sizeof(img), &p), 0);
	assert_null(p.codec);
	img[0x24e] = 0x01; /* 64 KiB past the end */
	assert_int_equal(lab_bzimage_payload(img, sizeof(img), &p), -ENOEXEC);
	img[0x24e] = 0;
	img[0x1f1] = (char)0xff; /* setup past the end */
	assert_int_equal(lab_bzimage_payload(img, 4096, &p), -ENOEXEC);
	img[0x1f1] = 3;
	img[0x207] = 0x01; /* protocol 1.15: no payload field */
	assert_int_equal(lab_bzimage_payload(img, sizeof(img), &p), -ENOEXEC);
	img[0x207] = 0x02;
	memcpy(img + 0x202, "HdrX", 4);
	assert_int_equal(lab_bzimage_payload(img, sizeof(img), &p), -ENOEXEC);
	assert_int_equal(lab_bzimage_payload(img, 0x100, &p), -ENOEXEC);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(this_program),
		cmocka_unit_test(runtime_files),
		cmocka_unit_test(crafted),
		cmocka_unit_test(damaged),
		cmocka_unit_test(in_memory),
		cmocka_unit_test(pvh_note),
		cmocka_unit_test(bzimage_header),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
