/* QEMU's process: started and tracked (qemuproc.h). */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "qemuproc.h"
#include "procs.h"
#include "qemu.h"
#include "../core/str.h"
#include "../core/banned.h"

int lab_spawn(const struct lab_config *c, const struct lab_paths *p, const struct strv *argv, const char *log,
	      pid_t *pid)
{
	pid_t child = fork();
	int r;

	if (child < 0)
		return -errno;
	if (child == 0) {
		int out = open(log, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);

		/* its own process group, and it dies with us even on kill -9 */
		(void)setpgid(0, 0);
		(void)prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (out < 0)
			out = open("/dev/null", O_WRONLY);
		/* before the back ends: the tap's dup2 onto LAB_TAP_FD must not
		 * close the log (out may be that number), nor send QEMU's stderr
		 * into the tap */
		(void)dup2(open("/dev/null", O_RDWR | O_CLOEXEC), STDIN_FILENO);
		(void)dup2(out, STDOUT_FILENO);
		(void)dup2(out, STDERR_FILENO);
		/* what is QEMU's alone (a network namespace, its tap) goes with it;
		 * what the keys ask of its process (its priority) */
		if (lab_keys_child(c) < 0 || lab_backends_child(c, p) < 0)
			_exit(LAB_CHILD_FAILED);
		execvp(argv->v[0], argv->v);
		_exit(127);
	}
	(void)setpgid(child, child);
	r = lab_proc_track(child);
	if (r < 0)
		return r;
	*pid = child;
	return 0;
}
