/* The registry of files the suites created, so that they are removed even
 * when a second Ctrl-C ends the process at once. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "tempfile.h"
#include "banned.h"

#define TEMPFILES_MAX 16

static char tempfiles[TEMPFILES_MAX][4096];

int vmb_tempfile_add(const char *path)
{
	for (size_t i = 0; i < TEMPFILES_MAX; i++)
		if (!tempfiles[i][0]) {
			if (strlen(path) >= sizeof(tempfiles[i]))
				return -ENAMETOOLONG;
			snprintf(tempfiles[i], sizeof(tempfiles[i]), "%s", path);
			return 0;
		}
	return -ENOSPC;
}

int vmb_tempfile_unlink(const char *path)
{
	int r = unlink(path) < 0 && errno != ENOENT ? -errno : 0;

	for (size_t i = 0; i < TEMPFILES_MAX; i++)
		if (!strcmp(tempfiles[i], path))
			tempfiles[i][0] = '\0';
	return r;
}

void vmb_tempfiles_unlink_all(void)
{
	for (size_t i = 0; i < TEMPFILES_MAX; i++)
		if (tempfiles[i][0])
			(void)unlink(tempfiles[i]);
}
