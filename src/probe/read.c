/* Reading below the probe's root: bounded, regular files only, never
 * blocking (a FIFO or a device where a /proc or /sys file should be is
 * refused, not read), and strings that are valid UTF-8 for JSON. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"
#include "../core/banned.h"

void probe_path(const char *root, const char *path, char *buf, size_t len)
{
	snprintf(buf, len, "%s%s", strcmp(root, "/") ? root : "", path);
}

bool probe_exists(const char *root, const char *path)
{
	char full[PATH_MAX];
	struct stat st;

	probe_path(root, path, full, sizeof(full));
	return lstat(full, &st) == 0;
}

int probe_read(const char *root, const char *path, size_t max, char **out, size_t *len)
{
	char full[PATH_MAX];
	struct stat st;
	char *buf = NULL;
	size_t n = 0, cap = 0;
	int fd, r = 0;

	if ((size_t)snprintf(full, sizeof(full), "%s%s", strcmp(root, "/") ? root : "", path) >= sizeof(full))
		return -ENAMETOOLONG;
	/* stat first, so that a device is not even opened (opening some has
	 * effects); fstat after the open closes the race with a swap. */
	if (stat(full, &st) < 0)
		return -errno;
	if (!S_ISREG(st.st_mode))
		return -EINVAL;
	fd = open(full, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		r = -EINVAL;
		goto out;
	}
	/* procfs and sysfs report sizes of 0 or 4096, whatever they hold: read
	 * until the end or the bound, growing the buffer. */
	while (n < max) {
		ssize_t k;

		if (cap - n < 2) {
			size_t ncap = cap ? cap * 2 : 4096;
			char *nb;

			if (ncap > max + 1)
				ncap = max + 1;
			nb = realloc(buf, ncap);
			if (!nb) {
				r = -ENOMEM;
				goto out;
			}
			buf = nb;
			cap = ncap;
		}
		k = read(fd, buf + n, (cap - 1 - n < max - n ? cap - 1 - n : max - n));
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0) {
			r = -errno;
			goto out;
		}
		if (k == 0)
			break;
		n += (size_t)k;
	}
	if (!buf && !(buf = malloc(1))) {
		r = -ENOMEM;
		goto out;
	}
	if (n == max) {
		/* more than the bound may follow: keep whole lines only */
		char *nl = memrchr(buf, '\n', n);

		if (nl)
			n = (size_t)(nl - buf) + 1;
	}
	buf[n] = '\0';
	*out = buf;
	*len = n;
	buf = NULL;
out:
	free(buf);
	close(fd);
	return r;
}

int probe_read_line(const char *root, const char *path, char *buf, size_t len)
{
	char *s;
	size_t n;
	int r = probe_read(root, path, PROBE_MAX_LINE, &s, &n);

	if (r < 0)
		return r;
	s[strcspn(s, "\n")] = '\0';
	snprintf(buf, len, "%s", s);
	free(s);
	return 0;
}

int probe_link_base(const char *path, char *out, size_t len)
{
	char target[PATH_MAX];
	ssize_t n = readlink(path, target, sizeof(target) - 1);
	const char *slash;

	if (n < 0)
		return -errno;
	target[n] = '\0';
	slash = strrchr(target, '/');
	snprintf(out, len, "%s", slash ? slash + 1 : target);
	return 0;
}

json_t *probe_jstr(const char *s)
{
	char *clean;
	json_t *j;

	if (!s)
		return json_null();
	clean = probe_utf8_clean(s, strlen(s));
	if (!clean)
		return NULL;
	j = json_string(clean);
	free(clean);
	return j;
}

json_t *probe_jline(const char *root, const char *path)
{
	char buf[512];

	if (probe_read_line(root, path, buf, sizeof(buf)) < 0)
		return json_null();
	return probe_jstr(buf);
}

json_t *probe_jbracketed(const char *root, const char *path)
{
	char buf[256], sel[64];

	if (probe_read_line(root, path, buf, sizeof(buf)) < 0)
		return json_null();
	if (probe_bracketed(buf, sel, sizeof(sel)) < 0)
		return probe_jstr(buf); /* e.g. a scheduler file that says "none" */
	return probe_jstr(sel);
}

uint64_t probe_mem_available(const char *root)
{
	char *mi = NULL;
	size_t n = 0;
	int64_t v = 0;

	if (probe_read(root, "/proc/meminfo", PROBE_MAX_TEXT, &mi, &n) < 0)
		return 0;
	if (probe_meminfo_value(mi, n, "MemAvailable", &v) < 0 || v < 0)
		v = 0;
	free(mi);
	return (uint64_t)v;
}
