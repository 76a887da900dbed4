/* The lab's children, tracked from fork to reaping (procs.h). */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <sys/wait.h>
#include <time.h>

#include "procs.h"
#include "../core/clock.h"
#include "../core/log.h"
#include "../core/banned.h"

/* 0: a free slot. A signal handler only reads the table; lab contend
 * boots its guests from threads of their own, so the writers take turns. */
static volatile pid_t procs[LAB_PROCS_MAX];
static pthread_mutex_t procs_lock = PTHREAD_MUTEX_INITIALIZER;

/* pid reaped, through a signal that interrupts the wait (a first Ctrl-C's
 * handler does not restart it): a child left a zombie would be untracked
 * and never waited for. */
static void wait_for(pid_t pid, int *status)
{
	while (waitpid(pid, status, 0) < 0 && errno == EINTR)
		;
}

/* After kill(-pid, SIGKILL) and the leader reaped: the rest of its group
 * (a serve's forked sessions, which init reaps) gone too, at most 2 s, so
 * that nothing of the lab's is left when it returns (cli-labnet saw one
 * just after the run ended). Async-signal-safe: lab_procs_kill_all runs
 * in a second Ctrl-C's cleanup. */
static void group_gone(pid_t pid)
{
	for (int i = 0; i < 2000 && kill(-pid, 0) == 0; i++)
		(void)nanosleep(&(struct timespec){ .tv_nsec = 1000000 }, NULL);
}

int lab_proc_track(pid_t pid)
{
	int i = 0;

	(void)pthread_mutex_lock(&procs_lock);
	while (i < LAB_PROCS_MAX && procs[i])
		i++;
	if (i < LAB_PROCS_MAX)
		procs[i] = pid;
	(void)pthread_mutex_unlock(&procs_lock);
	if (i < LAB_PROCS_MAX)
		return 0;
	/* a child a Ctrl-C could not reach is not left running */
	(void)kill(-pid, SIGKILL);
	wait_for(pid, NULL);
	log_error("the lab's registry of its processes is full (%d): process %ld killed, not left running untracked",
		  LAB_PROCS_MAX, (long)pid);
	return -ENOSPC;
}

void lab_proc_untrack(pid_t pid)
{
	(void)pthread_mutex_lock(&procs_lock);
	for (int i = 0; pid > 0 && i < LAB_PROCS_MAX; i++)
		if (procs[i] == pid)
			procs[i] = 0;
	(void)pthread_mutex_unlock(&procs_lock);
}

bool lab_proc_tracked(pid_t pid)
{
	for (int i = 0; pid > 0 && i < LAB_PROCS_MAX; i++)
		if (procs[i] == pid)
			return true;
	return false;
}

int lab_proc_reap(pid_t pid, int grace_ms, int *status)
{
	uint64_t deadline = clock_ns() + (uint64_t)(grace_ms > 0 ? grace_ms : 0) * 1000000;
	pid_t w = 0;

	if (!lab_proc_tracked(pid)) {
		if (status)
			*status = W_EXITCODE(0, SIGKILL);
		return -ECHILD;
	}
	while (grace_ms > 0 && (w = waitpid(pid, status, WNOHANG)) == 0 && clock_ns() < deadline)
		nanosleep(&(struct timespec){ .tv_nsec = 10000000 }, NULL);
	if (w == 0) {
		(void)kill(-pid, SIGKILL);
		wait_for(pid, status);
		group_gone(pid);
	} else if (w < 0 && status) {
		*status = W_EXITCODE(0, SIGKILL); /* not a child of ours any more */
	}
	lab_proc_untrack(pid);
	return 0;
}

void lab_procs_kill_all(void)
{
	for (int i = 0; i < LAB_PROCS_MAX; i++) {
		pid_t pid = procs[i];

		if (pid > 0) {
			(void)kill(-pid, SIGKILL);
			wait_for(pid, NULL);
			group_gone(pid);
		}
		procs[i] = 0;
	}
}
