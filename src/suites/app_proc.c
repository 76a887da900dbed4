/* app.proc: what creating a process costs, as lmbench's lat_proc counts it:
 * fork + exit + wait, fork + exec of a small static program + wait, and
 * posix_spawn of it + wait, in ns per operation; and the page faults the
 * child of a fork takes (its fresh address space).
 *
 * lat_proc's "hello" is a static binary; so that no compiler is needed (the
 * lab's busybox guests have none), vmbench writes its own: a 132-byte ELF
 * whose only instructions are exit(0), for the machine it runs on. */
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "app.h"
#include "../core/clock.h"
#include "../core/banned.h"

extern char **environ;

#if defined(__x86_64__)
#define ELF_MACHINE 62 /* EM_X86_64 */
static const unsigned char exit0[] = {
	0x31, 0xff,                   /* xor %edi,%edi */
	0xb8, 0xe7, 0x00, 0x00, 0x00, /* mov $231,%eax (exit_group) */
	0x0f, 0x05,                   /* syscall */
};
#elif defined(__aarch64__)
#define ELF_MACHINE 183 /* EM_AARCH64 */
static const unsigned char exit0[] = {
	0x00, 0x00, 0x80, 0xd2, /* mov x0, #0 */
	0xc8, 0x0b, 0x80, 0xd2, /* mov x8, #94 (exit_group) */
	0x01, 0x00, 0x00, 0xd4, /* svc #0 */
};
#endif

#ifdef ELF_MACHINE
static void put(unsigned char *p, size_t off, uint64_t v, unsigned bytes)
{
	for (unsigned i = 0; i < bytes; i++)
		p[off + i] = (unsigned char)(v >> (8 * i));
}

/* An ELF64 executable: the header, one PT_LOAD of the whole file, the code. */
static size_t make_elf(unsigned char *buf)
{
	const uint64_t base = 0x400000, code = 64 + 56, size = code + sizeof(exit0);

	memset(buf, 0, size);
	memcpy(buf, "\177ELF\2\1\1", 7); /* 64-bit, little-endian, version 1 */
	put(buf, 16, 2, 2);              /* ET_EXEC */
	put(buf, 18, ELF_MACHINE, 2);
	put(buf, 20, 1, 4);
	put(buf, 24, base + code, 8); /* e_entry */
	put(buf, 32, 64, 8);          /* e_phoff */
	put(buf, 52, 64, 2);          /* e_ehsize */
	put(buf, 54, 56, 2);          /* e_phentsize */
	put(buf, 56, 1, 2);           /* e_phnum */
	put(buf, 64, 1, 4);           /* PT_LOAD */
	put(buf, 68, 5, 4);           /* PF_R | PF_X */
	put(buf, 80, base, 8);        /* p_vaddr */
	put(buf, 88, base, 8);        /* p_paddr */
	put(buf, 96, size, 8);        /* p_filesz */
	put(buf, 104, size, 8);       /* p_memsz */
	put(buf, 112, 0x1000, 8);     /* p_align */
	memcpy(buf + code, exit0, sizeof(exit0));
	return (size_t)size;
}
#endif

/* Write the program into --app.dir, once per run. */
static int proc_exe(struct vmb_ctx *ctx, struct app_state *as)
{
#ifdef ELF_MACHINE
	unsigned char elf[256];
	size_t len = make_elf(elf);
	int fd, r;

	if (as->exe[0])
		return 0;
	snprintf(as->exe, sizeof(as->exe), "%s/vmbench-exit0-XXXXXX", as->dir);
	fd = mkstemp(as->exe);
	if (fd < 0) {
		r = -errno;
		as->exe[0] = '\0';
		return vmb_fail(ctx, r, "creating the program to execute in %s", as->dir);
	}
	r = vmb_tempfile_add(as->exe);
	if (r == 0 && (write(fd, elf, len) != (ssize_t)len || fchmod(fd, 0700) < 0))
		r = -errno;
	if (close(fd) < 0 && r == 0)
		r = -errno;
	if (r < 0) {
		(void)vmb_tempfile_unlink(as->exe);
		as->exe[0] = '\0';
		return vmb_fail(ctx, r, "writing the program to execute in %s", as->dir);
	}
	return 0;
#else
	(void)as;
	return vmb_skip(ctx, "no built-in program to execute for this architecture");
#endif
}

void app_proc_cleanup(struct vmb_ctx *ctx)
{
	struct app_state *as = ctx->priv;

	if (as && as->exe[0]) {
		(void)vmb_tempfile_unlink(as->exe);
		as->exe[0] = '\0';
	}
}

/* One operation; 0 when the child exited 0. */
static int proc_once(enum proc_kind kind, const char *exe, long *minflt)
{
	char *const argv[] = { (char *)exe, NULL };
	struct rusage ru;
	int status = 0;
	pid_t pid;

	switch (kind) {
	case PROC_FORK:
	case PROC_EXEC:
		pid = fork();
		if (pid < 0)
			return -errno;
		if (pid == 0) {
			if (kind == PROC_EXEC)
				(void)execve(exe, argv, environ);
			_exit(kind == PROC_EXEC ? 127 : 0);
		}
		break;
	case PROC_SPAWN: {
		int e = posix_spawn(&pid, exe, NULL, NULL, argv, environ);

		if (e)
			return -e;
		break;
	}
	}
	while (wait4(pid, &status, 0, &ru) < 0)
		if (errno != EINTR)
			return -errno;
	*minflt += ru.ru_minflt;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -ENOEXEC;
}

int app_proc_run(struct vmb_ctx *ctx, struct vmb_rep *rep)
{
	static const struct {
		enum proc_kind kind;
		const char *metric, *what;
	} kinds[] = {
		{ PROC_FORK, "fork_exit", "fork + exit + wait" },
		{ PROC_EXEC, "fork_exec", "fork + exec + wait" },
		{ PROC_SPAWN, "posix_spawn", "posix_spawn + wait" },
	};
	struct app_state *as = ctx->priv;
	int r = proc_exe(ctx, as);

	if (r < 0)
		return r;
	for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
		uint64_t start = clock_ns(), deadline = start + (uint64_t)(ctx->duration_s / 3 * NSEC_PER_SEC), now, prev, n = 0;
		struct hist *h = hist_new();
		long minflt = 0;

		if (!h)
			return vmb_fail(ctx, -ENOMEM, "a histogram");
		prev = start;
		do {
			r = proc_once(kinds[k].kind, as->exe, &minflt);
			if (r < 0) {
				hist_free(h);
				if (r == -ENOEXEC)
					return vmb_fail(ctx, r, "%s of %s: the child did not exit 0 (a noexec --app.dir?)",
							kinds[k].what, as->exe);
				return vmb_fail(ctx, r, "%s", kinds[k].what);
			}
			n++;
			now = clock_ns();
			hist_record(h, now - prev);
			prev = now;
		} while (now < deadline && !vmb_stop_requested());
		/* the mean of the histogram is lat_proc's figure: time / operations */
		vmb_rep_hist(rep, kinds[k].metric, VMB_UNIT_NS, h);
		hist_free(h);
		if (kinds[k].kind == PROC_FORK)
			vmb_rep_value(rep, "fork_minor_faults", VMB_UNIT_NONE, VMB_LOWER, (double)minflt / (double)n);
		if (vmb_stop_requested())
			return -EINTR;
	}
	return 0;
}
