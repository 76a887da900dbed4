/* The lab's lowest layer: its registry of child processes (procs.h) and
 * its work directories (workdir.h), on real child processes and real
 * directories. The registry once had 8 slots and dropped a process
 * silently when full, and its reap treated an untracked process as killed
 * without waiting for it: lab contend's 8 guests, each with helpers, had
 * some neither killed on Ctrl-C nor reaped. */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "test.h"
#include "../../src/core/reclaim.h"
#include "../../src/lab/contend.h"
#include "../../src/lab/procs.h"
#include "../../src/lab/workdir.h"

/* what lab contend can start at once fits, with its work directories */
_Static_assert(CONTEND_MAX_GUESTS * LAB_PROCS_PER_GUEST <= LAB_PROCS_MAX, "lab contend's processes fit the registry");
_Static_assert(CONTEND_MAX_GUESTS <= LAB_WORK_DIRS_MAX, "lab contend's work directories fit their table");

/* A child as the lab starts one: the leader of its own process group,
 * dying with this process; it runs sleep, or exits at once with code
 * (code >= 0). */
static pid_t child(int code)
{
	pid_t parent = getpid(), pid = fork();

	assert_true(pid >= 0);
	if (pid == 0) {
		(void)setpgid(0, 0);
		/* a test that failed and ended before this line leaves no sleep behind */
		if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() != parent || code >= 0)
			_exit(code >= 0 ? code : 1);
		execlp("sleep", "sleep", "1000", (char *)NULL);
		_exit(127);
	}
	(void)setpgid(pid, pid);
	return pid;
}

/* pid is no child of this process any more: it was reaped (no zombie left) */
static void assert_reaped(pid_t pid)
{
	errno = 0;
	assert_int_equal(waitpid(pid, NULL, WNOHANG), -1);
	assert_int_equal(errno, ECHILD);
}

/* lab contend's 8 guests with every helper each: all tracked (the old
 * registry held 8 and dropped the rest), each reaped by lab_proc_reap,
 * which kills its group and waits for it. */
static void every_child_tracked_and_reaped(void **state)
{
	enum { N = CONTEND_MAX_GUESTS * LAB_PROCS_PER_GUEST };
	pid_t pids[N];
	int status;

	(void)state;
	for (size_t i = 0; i < N; i++) {
		pids[i] = child(-1);
		assert_int_equal(lab_proc_track(pids[i]), 0);
	}
	for (size_t i = 0; i < N; i++)
		assert_true(lab_proc_tracked(pids[i]));
	/* one reaped by its caller and untracked: no longer the registry's */
	assert_int_equal(kill(-pids[3], SIGKILL), 0);
	assert_int_equal(waitpid(pids[3], NULL, 0), pids[3]);
	lab_proc_untrack(pids[3]);
	assert_false(lab_proc_tracked(pids[3]));
	status = 0;
	assert_int_equal(lab_proc_reap(pids[3], 0, &status), -ECHILD);
	assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
	for (size_t i = 0; i < N; i++) {
		if (i == 3)
			continue;
		status = 0;
		assert_int_equal(lab_proc_reap(pids[i], 0, &status), 0);
		assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
		assert_false(lab_proc_tracked(pids[i]));
		assert_reaped(pids[i]);
	}
}

/* Given time, a child that exits is waited for and its own status kept;
 * one that does not is killed when the time is up. */
static void reap_waits_for_the_exit(void **state)
{
	pid_t quits = child(3), stays = child(-1);
	int status = 0;

	(void)state;
	assert_int_equal(lab_proc_track(quits), 0);
	assert_int_equal(lab_proc_track(stays), 0);
	assert_int_equal(lab_proc_reap(quits, 600000, &status), 0);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 3);
	assert_reaped(quits);
	assert_int_equal(lab_proc_reap(stays, 20, &status), 0);
	assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
	assert_reaped(stays);
	/* nothing of ours: 0 and negative numbers are never killed */
	assert_int_equal(lab_proc_reap(0, 0, NULL), -ECHILD);
}

/* Full: the next child is refused, killed and reaped, never left running
 * untracked; lab_procs_kill_all (a Ctrl-C's cleanup) reaps every one. */
static void full_registry_refuses(void **state)
{
	pid_t pids[LAB_PROCS_MAX], extra;

	(void)state;
	for (size_t i = 0; i < LAB_PROCS_MAX; i++) {
		pids[i] = child(-1);
		assert_int_equal(lab_proc_track(pids[i]), 0);
	}
	extra = child(-1);
	assert_int_equal(lab_proc_track(extra), -ENOSPC);
	assert_false(lab_proc_tracked(extra));
	assert_reaped(extra);
	lab_procs_kill_all();
	for (size_t i = 0; i < LAB_PROCS_MAX; i++) {
		assert_false(lab_proc_tracked(pids[i]));
		assert_reaped(pids[i]);
	}
	/* room again */
	extra = child(-1);
	assert_int_equal(lab_proc_track(extra), 0);
	assert_int_equal(lab_proc_reap(extra, 0, NULL), 0);
}

/* what a failed test left tracked, reaped */
static int procs_teardown(void **state)
{
	(void)state;
	lab_procs_kill_all();
	return 0;
}

static char tmp[64];

static int tmp_setup(void **state)
{
	(void)state;
	snprintf(tmp, sizeof(tmp), "/tmp/vmbench-test-procs-XXXXXX");
	if (!mkdtemp(tmp))
		return -1;
	return setenv("TMPDIR", tmp, 1);
}

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *f)
{
	(void)st;
	(void)f;
	return flag == FTW_DP ? rmdir(path) : unlink(path);
}

/* the test's directory gone, deeper than the lab's remover goes too */
static int tmp_teardown(void **state)
{
	(void)state;
	return nftw(tmp, remove_one, 16, FTW_DEPTH | FTW_PHYS);
}

static void put(const char *dir, const char *name, const char *text)
{
	char p[512];
	FILE *f;

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	f = fopen(p, "w");
	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

static void sub(const char *dir, const char *name)
{
	char p[512];

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	assert_int_equal(mkdir(p, 0700), 0);
}

static bool exists(const char *dir, const char *name)
{
	char p[512];
	struct stat st;

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	return lstat(p, &st) == 0;
}

/* Whatever a boot, a back end or vmops put in it, the work directory goes
 * as a whole; what its links point to stays. */
static void work_dir_removed_whole(void **state)
{
	char dir[160], outside[128], link[512];

	(void)state;
	assert_int_equal(lab_work_dir_new(dir, sizeof(dir)), 0);
	assert_true(!strncmp(dir, tmp, strlen(tmp)) && exists(dir, RECLAIM_MARKER));
	snprintf(outside, sizeof(outside), "%s/outside", tmp);
	assert_int_equal(mkdir(outside, 0700), 0);
	put(outside, "kept", "the user's");
	put(dir, "disk.img", "x");
	put(dir, "a-file-no-list-names", "y");
	sub(dir, "share");
	sub(dir, "share/a");
	sub(dir, "share/a/b");
	put(dir, "share/a/b/written-by-the-guest", "z");
	snprintf(link, sizeof(link), "%s/to-outside", dir);
	assert_int_equal(symlink(outside, link), 0);
	snprintf(link, sizeof(link), "%s/share/a/to-kept", dir);
	assert_int_equal(symlink("../../../outside/kept", link), 0);
	lab_work_dir_remove(dir);
	assert_false(exists(dir, ""));
	assert_true(exists(outside, "kept"));
	/* removed and untracked: a second removal leaves a directory of that name alone */
	assert_int_equal(mkdir(dir, 0700), 0);
	put(dir, RECLAIM_MARKER, "vmbench 1 1 x\n");
	lab_work_dir_remove(dir);
	assert_true(exists(dir, RECLAIM_MARKER));
}

/* A tracked directory that lost its marker is not trusted by its name: left. */
static void unmarked_dir_left(void **state)
{
	char dir[160], marker[256];

	(void)state;
	assert_int_equal(lab_work_dir_new(dir, sizeof(dir)), 0);
	snprintf(marker, sizeof(marker), "%s/%s", dir, RECLAIM_MARKER);
	assert_int_equal(unlink(marker), 0);
	put(dir, "disk.img", "x");
	lab_work_dir_remove(dir);
	assert_true(exists(dir, "disk.img"));
}

static const char *seen[LAB_WORK_DIRS_MAX + 1];
static size_t nseen;

static void also(const char *dir)
{
	if (nseen < LAB_WORK_DIRS_MAX)
		seen[nseen++] = dir;
}

/* Every work directory held, removed by a Ctrl-C's cleanup, what is
 * outside each done first; a full table makes no other. */
static void all_work_dirs_removed(void **state)
{
	char dirs[LAB_WORK_DIRS_MAX][160], one[160];

	(void)state;
	for (size_t i = 0; i < LAB_WORK_DIRS_MAX; i++) {
		assert_int_equal(lab_work_dir_new(dirs[i], sizeof(dirs[i])), 0);
		put(dirs[i], "console.log", "booted");
	}
	assert_int_equal(lab_work_dir_new(one, sizeof(one)), -ENOSPC);
	nseen = 0;
	lab_work_dirs_remove_all(also);
	assert_int_equal(nseen, LAB_WORK_DIRS_MAX);
	for (size_t i = 0; i < LAB_WORK_DIRS_MAX; i++)
		assert_false(exists(dirs[i], ""));
	assert_int_equal(lab_work_dir_new(one, sizeof(one)), 0);
	lab_work_dir_remove(one);
	assert_false(exists(one, ""));
}

/* A tree deeper than the remover goes is left with its marker, for the
 * next run's reclaim to try again, not half-removed and unknown. */
static void cut_short_keeps_the_marker(void **state)
{
	char dir[160], p[160 + 40];
	int n;

	(void)state;
	assert_int_equal(lab_work_dir_new(dir, sizeof(dir)), 0);
	n = snprintf(p, sizeof(p), "%s", dir);
	for (int i = 0; i < 20; i++) {
		n += snprintf(p + n, sizeof(p) - (size_t)n, "/d");
		assert_int_equal(mkdir(p, 0700), 0);
	}
	put(dir, "disk.img", "x");
	assert_int_equal(reclaim_remove_tree(AT_FDCWD, dir, NULL), -ELOOP);
	assert_true(exists(dir, RECLAIM_MARKER));
	assert_false(exists(dir, "disk.img"));
	lab_work_dirs_remove_all(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(every_child_tracked_and_reaped, procs_teardown),
		cmocka_unit_test_teardown(reap_waits_for_the_exit, procs_teardown),
		cmocka_unit_test_teardown(full_registry_refuses, procs_teardown),
		cmocka_unit_test_setup_teardown(work_dir_removed_whole, tmp_setup, tmp_teardown),
		cmocka_unit_test_setup_teardown(unmarked_dir_left, tmp_setup, tmp_teardown),
		cmocka_unit_test_setup_teardown(all_work_dirs_removed, tmp_setup, tmp_teardown),
		cmocka_unit_test_setup_teardown(cut_short_keeps_the_marker, tmp_setup, tmp_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
