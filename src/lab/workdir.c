/* The lab's work directories: where they are made, marked as this
 * process's, tracked while it holds them, removed as a whole, and
 * reclaimed after a kill (workdir.h). */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "workdir.h"
#include "../core/log.h"
#include "../core/reclaim.h"
#include "../core/banned.h"

#define WORK_DIR_PREFIX "vmbench-lab-"

/* The work directories held, "" a free slot. A signal handler only reads
 * the table (a slot's first byte is written last); lab contend's threads
 * make theirs at once, so the writers take turns. */
static char dirs[LAB_WORK_DIRS_MAX][160];
static pthread_mutex_t dirs_lock = PTHREAD_MUTEX_INITIALIZER;

/* $TMPDIR, as every tool; the socket paths inside must stay short (sun_path) */
static const char *work_parent(void)
{
	const char *tmp = getenv("TMPDIR");

	return tmp && *tmp && strlen(tmp) <= 80 ? tmp : "/tmp";
}

int lab_work_dir_new(char *buf, size_t len)
{
	int n = snprintf(buf, len, "%s/" WORK_DIR_PREFIX "XXXXXX", work_parent()), r = 0, i = 0;

	if (n < 0 || (size_t)n >= len || (size_t)n >= sizeof(dirs[0]))
		return -ENAMETOOLONG;
	(void)pthread_mutex_lock(&dirs_lock);
	while (i < LAB_WORK_DIRS_MAX && dirs[i][0])
		i++;
	if (i == LAB_WORK_DIRS_MAX)
		r = -ENOSPC;
	else if (!mkdtemp(buf))
		r = -errno;
	else if ((r = reclaim_mark(buf)) < 0)
		(void)rmdir(buf);
	if (r == 0) {
		memcpy(dirs[i] + 1, buf + 1, (size_t)n);
		/* a signal handler sees the whole path or none */
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
		dirs[i][0] = buf[0];
	}
	(void)pthread_mutex_unlock(&dirs_lock);
	if (r == -ENOSPC)
		log_error("the lab holds %d work directories, its most: no other is made", LAB_WORK_DIRS_MAX);
	return r;
}

/* Does dir hold its marker (a regular file of this user, not a link)? Only
 * then is it removed: a path is not trusted to be ours by its name alone. */
static bool marked(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	struct stat st;
	bool ok;

	if (fd < 0)
		return false;
	ok = fstatat(fd, RECLAIM_MARKER, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode) &&
	     st.st_uid == geteuid();
	(void)close(fd);
	return ok;
}

void lab_work_dir_remove(const char *dir)
{
	int i = 0, r;

	(void)pthread_mutex_lock(&dirs_lock);
	while (i < LAB_WORK_DIRS_MAX && strcmp(dirs[i], dir))
		i++;
	(void)pthread_mutex_unlock(&dirs_lock);
	if (i == LAB_WORK_DIRS_MAX || !dir[0])
		return;
	if (!marked(dir))
		log_warn("the lab's work directory %s has lost its marker %s: left in place", dir, RECLAIM_MARKER);
	else if ((r = reclaim_remove_tree(AT_FDCWD, dir, NULL)) < 0 && r != -ENOENT)
		log_warn("removing the lab's work directory %s: %s", dir, strerror(-r));
	(void)pthread_mutex_lock(&dirs_lock);
	dirs[i][0] = '\0';
	(void)pthread_mutex_unlock(&dirs_lock);
}

void lab_work_dirs_remove_all(void (*also)(const char *dir))
{
	for (int i = 0; i < LAB_WORK_DIRS_MAX; i++) {
		if (!dirs[i][0])
			continue;
		if (also)
			also(dirs[i]);
		if (marked(dirs[i]))
			(void)reclaim_remove_tree(AT_FDCWD, dirs[i], NULL);
		dirs[i][0] = '\0';
	}
}

void lab_work_dirs_reclaim(void)
{
	reclaim_dirs(work_parent(), WORK_DIR_PREFIX, "lab work directory");
}
