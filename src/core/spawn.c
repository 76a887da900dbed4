/* Running another program and capturing what it prints. */
#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <unistd.h>
#include <poll.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/prctl.h>
#include <sys/wait.h>

#include "spawn.h"
#include "stop.h"
#include "banned.h"

/* In the child: a tool never outlives vmbench. When vmbench dies (a kill, a
 * crash), the tool is sent SIGTERM, which timeout(1) passes on to what it
 * runs (debootstrap, say), so nothing goes on building in the cache. */
static void die_with_parent(pid_t parent)
{
	if (prctl(PR_SET_PDEATHSIG, SIGTERM) < 0 || getppid() != parent)
		_exit(126);
}

/* stderr: 0 /dev/null, 1 into *out with stdout, 2 this process's own */
static int capture(const char *prog, char *const argv[], const char *cwd, char **out, int err_to)
{
	char *buf = NULL;
	size_t len = 0, cap = 0;
	int p[2], status;
	pid_t parent = getpid(), pid;

	if (pipe2(p, O_CLOEXEC) < 0)
		return -errno;
	pid = fork();
	if (pid < 0) {
		close(p[0]);
		close(p[1]);
		return -errno;
	}
	if (pid == 0) {
		int null = open("/dev/null", O_RDWR);

		die_with_parent(parent);
		if ((cwd && chdir(cwd) < 0) || dup2(p[1], STDOUT_FILENO) < 0)
			_exit(126);
		(void)dup2(null, STDIN_FILENO);
		if (err_to != 2)
			(void)dup2(err_to ? p[1] : null, STDERR_FILENO);
		if (strchr(prog, '/'))
			execv(prog, argv);
		else
			execvp(prog, argv);
		_exit(127);
	}
	close(p[1]);
	for (bool passed = false;;) {
		struct pollfd pf = { .fd = p[0], .events = POLLIN };
		ssize_t n;
		int pr;

		/* a stop asked of vmbench alone (kill PID, not the terminal's
		 * Ctrl-C to the whole group) is passed on to the program once,
		 * which then ends as it ends on Ctrl-C: a lab's host baseline
		 * went on for its whole run */
		if (!passed && vmb_stop_requested()) {
			(void)kill(pid, SIGINT);
			passed = true;
		}
		pr = poll(&pf, 1, passed ? -1 : 100);
		if (pr == 0 || (pr < 0 && errno == EINTR))
			continue;
		if (cap - len < 65536) {
			char *nb = realloc(buf, cap + 262144);

			if (!nb)
				break;
			buf = nb;
			cap += 262144;
		}
		n = read(p[0], buf + len, cap - len - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += (size_t)n;
	}
	close(p[0]);
	if (buf)
		buf[len] = '\0';
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (out)
		*out = buf;
	else
		free(buf);
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -ECHILD;
}

int run_capture(const char *prog, char *const argv[], const char *cwd, char **out)
{
	return capture(prog, argv, cwd, out, 0);
}

int run_capture_all(const char *prog, char *const argv[], char **out)
{
	return capture(prog, argv, NULL, out, 1);
}

int run_capture_stdout(const char *prog, char *const argv[], char **out)
{
	return capture(prog, argv, NULL, out, 2);
}

int path_find(const char *name, char *buf, size_t len)
{
	const char *path = getenv("PATH");

	for (const char *d = path ? path : ""; *d; d += strcspn(d, ":"), d += *d == ':') {
		int n = (int)strcspn(d, ":");
		struct stat st;

		snprintf(buf, len, "%.*s/%s", n ? n : 1, n ? d : ".", name);
		if (stat(buf, &st) == 0 && S_ISREG(st.st_mode) && access(buf, X_OK) == 0)
			return 0;
	}
	if (len)
		buf[0] = '\0';
	return -ENOENT;
}

int run_filter(const char *prog, char *const argv[], int in_fd, int out_fd)
{
	int status;
	pid_t parent = getpid(), pid = fork();

	if (pid < 0)
		return -errno;
	if (pid == 0) {
		int null = open("/dev/null", O_RDWR);

		die_with_parent(parent);
		if (dup2(in_fd, STDIN_FILENO) < 0 || dup2(out_fd, STDOUT_FILENO) < 0)
			_exit(126);
		(void)dup2(null, STDERR_FILENO);
		if (strchr(prog, '/'))
			execv(prog, argv);
		else
			execvp(prog, argv);
		_exit(127);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -errno;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -ECHILD;
}
