/* QEMU's process: started and tracked, its vCPU threads (qemuproc.h). */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "qemuproc.h"
#include "procs.h"
#include "qemu.h"
#include "qmp.h"
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

int lab_vcpu_threads(const char *qmp, bool pin, unsigned *nthreads, char *err, size_t errlen)
{
	struct qmp q;
	int *tids = NULL, r;
	size_t n = 0;
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);

	r = qmp_connect(&q, qmp, 10000);
	if (r == 0)
		r = qmp_vcpu_threads(&q, 10000, &tids, &n);
	if (r == 0 && nthreads) {
		*nthreads = 0;
		for (size_t i = 0; i < n; i++) {
			size_t j = 0;

			while (j < i && tids[j] != tids[i])
				j++;
			*nthreads += j == i;
		}
	}
	for (size_t i = 0; pin && r == 0 && i < n; i++) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET((int)(i % (size_t)(ncpu > 0 ? ncpu : 1)), &set);
		if (sched_setaffinity(tids[i], sizeof(set), &set) < 0)
			r = -errno;
	}
	if (r < 0 && pin)
		errf(err, errlen, r, "pinning vCPUs: %s", q.err[0] ? q.err : strerror(-r));
	free(tids);
	qmp_close(&q);
	return pin ? r : 0;
}
