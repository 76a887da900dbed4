/* Messages on stderr, prefixed with the program name. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "log.h"
#include "banned.h"

static enum log_level current = LOG_WARN;
static char tag[160];

void log_set_tag(const char *t)
{
	snprintf(tag, sizeof(tag), "%s", t ? t : "");
}

void log_set_level(enum log_level level)
{
	current = level;
}

enum log_level log_get_level(void)
{
	return current;
}

static void vlog(enum log_level level, const char *fmt, va_list ap, int err)
{
	static const char *const prefix[] = {
		[LOG_ERROR] = "error: ", [LOG_WARN] = "warning: ",
		[LOG_INFO] = "", [LOG_DEBUG] = "debug: ",
	};

	/* Errors are shown even with -q: a failure must never be silent. */
	if (level > current && level != LOG_ERROR)
		return;
	/* what went to stdout first comes first where both go to one file (a
	 * CI log): stdout is buffered there, stderr is not */
	fflush(stdout);
	if (*tag)
		fprintf(stderr, "vmbench [%s]: %s", tag, prefix[level]);
	else
		fprintf(stderr, "vmbench: %s", prefix[level]);
	vfprintf(stderr, fmt, ap);
	if (err)
		fprintf(stderr, ": %s", strerror(err));
	fputc('\n', stderr);
}

void log_msg(enum log_level level, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vlog(level, fmt, ap, 0);
	va_end(ap);
}

int log_errno(int r, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vlog(LOG_ERROR, fmt, ap, r < 0 ? -r : r);
	va_end(ap);
	return r;
}
