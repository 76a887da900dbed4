/* Test helper: run a program with some system calls refused, as a container's
 * seccomp profile refuses them (Docker's default refuses io_uring_setup with
 * EPERM; older kernels answer ENOSYS). Built for the tests only, never installed.
 *
 *   vmbench-deny ERRNO SYSCALL[,SYSCALL...] -- PROGRAM ARGS...
 *
 * ERRNO is EPERM or ENOSYS; SYSCALL is a name from the table below. */
#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "../../src/core/banned.h"

#if defined(__x86_64__)
#define DENY_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define DENY_ARCH AUDIT_ARCH_AARCH64
#endif

/* io_uring's three calls have one number on every architecture (425-427) */
static const struct {
	const char *name;
	int nr;
} deny_calls[] = {
	{ "io_uring_setup", 425 },
	{ "io_uring_enter", 426 },
	{ "io_uring_register", 427 },
	{ "unshare", SYS_unshare }, /* a container without the right to make namespaces */
};

static const struct {
	const char *name;
	int err;
} deny_errnos[] = {
	{ "EPERM", EPERM },
	{ "ENOSYS", ENOSYS },
};

static int deny_usage(void)
{
	fprintf(stderr, "usage: vmbench-deny EPERM|ENOSYS io_uring_setup[,io_uring_enter,...] -- PROGRAM ARGS...\n");
	return 2;
}

int main(int argc, char **argv)
{
#ifndef DENY_ARCH
	(void)argc;
	(void)argv;
	fprintf(stderr, "vmbench-deny: no seccomp filter for this architecture\n");
	return 77;
#else
	struct sock_filter prog[5 + 2 * 8];
	size_t n = 0, nr_calls = 0;
	int nrs[8], err = -1;
	char *list, *word, *save = NULL;

	if (argc < 5 || strcmp(argv[3], "--"))
		return deny_usage();
	for (size_t i = 0; i < sizeof(deny_errnos) / sizeof(deny_errnos[0]); i++)
		if (!strcmp(argv[1], deny_errnos[i].name))
			err = deny_errnos[i].err;
	list = strdup(argv[2]);
	if (err < 0 || !list)
		return deny_usage();
	for (word = strtok_r(list, ",", &save); word; word = strtok_r(NULL, ",", &save)) {
		size_t i;

		for (i = 0; i < sizeof(deny_calls) / sizeof(deny_calls[0]); i++)
			if (!strcmp(word, deny_calls[i].name))
				break;
		if (i == sizeof(deny_calls) / sizeof(deny_calls[0]) || nr_calls == 8)
			return deny_usage();
		nrs[nr_calls++] = deny_calls[i].nr;
	}
	free(list);
	/* another architecture's calls are let through: kill them instead of guessing */
	prog[n++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch));
	prog[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, DENY_ARCH, 1, 0);
	prog[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS);
	prog[n++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr));
	for (size_t i = 0; i < nr_calls; i++) {
		prog[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (unsigned)nrs[i], 0, 1);
		prog[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ((unsigned)err & 0xfff));
	}
	prog[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
	struct sock_fprog fprog = { .len = (unsigned short)n, .filter = prog };
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 || prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &fprog) < 0) {
		perror("vmbench-deny: installing the seccomp filter");
		return 77;
	}
	execvp(argv[4], argv + 4);
	perror(argv[4]);
	return 127;
#endif
}
