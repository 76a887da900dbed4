/* The registry of files the suites created, so that they are removed even
 * when a second Ctrl-C ends the process at once. */
#include <errno.h>
#include <stdbool.h>
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

/* unlink, or rmdir for a directory (Linux's unlink says EISDIR) */
static int remove_one(const char *path)
{
	if (unlink(path) == 0 || errno == ENOENT)
		return 0;
	if (errno == EISDIR && (rmdir(path) == 0 || errno == ENOENT))
		return 0;
	return -errno;
}

int vmb_tempfile_unlink(const char *path)
{
	int r = remove_one(path);

	for (size_t i = 0; i < TEMPFILES_MAX; i++)
		if (!strcmp(tempfiles[i], path))
			tempfiles[i][0] = '\0';
	return r;
}

/* The files first, then the directories, the last registered first (a
 * directory's contents were registered after it), again while one goes:
 * a slot taken again may hold a parent after its child. */
void vmb_tempfiles_unlink_all(void)
{
	bool gone = true;

	for (size_t i = TEMPFILES_MAX; i-- > 0;)
		if (tempfiles[i][0])
			(void)unlink(tempfiles[i]);
	for (size_t pass = 0; gone && pass < TEMPFILES_MAX; pass++) {
		gone = false;
		for (size_t i = TEMPFILES_MAX; i-- > 0;)
			if (tempfiles[i][0] && rmdir(tempfiles[i]) == 0)
				gone = true;
	}
}
