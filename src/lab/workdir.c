/* The lab's work directories: where they are made, marked as this
 * process's, and reclaimed after a kill (workdir.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "workdir.h"
#include "../core/reclaim.h"
#include "../core/banned.h"

#define WORK_DIR_PREFIX "vmbench-lab-"

/* $TMPDIR, as every tool; the socket paths inside must stay short (sun_path) */
static const char *work_parent(void)
{
	const char *tmp = getenv("TMPDIR");

	return tmp && *tmp && strlen(tmp) <= 80 ? tmp : "/tmp";
}

int lab_work_dir_new(char *buf, size_t len)
{
	int n = snprintf(buf, len, "%s/" WORK_DIR_PREFIX "XXXXXX", work_parent()), r;

	if (n < 0 || (size_t)n >= len)
		return -ENAMETOOLONG;
	if (!mkdtemp(buf))
		return -errno;
	r = reclaim_mark(buf);
	if (r < 0)
		(void)rmdir(buf);
	return r;
}

void lab_work_dirs_reclaim(void)
{
	reclaim_dirs(work_parent(), WORK_DIR_PREFIX, "lab work directory");
}
