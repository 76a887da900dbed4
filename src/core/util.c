/* Number parsing with range checks, lists, files and strings. */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "util.h"
#include "banned.h"

int parse_i64(const char *s, int64_t min, int64_t max, int64_t *out)
{
	char *end;
	long long v;

	if (!s || !*s || isspace((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	v = strtoll(s, &end, 10);
	if (*end)
		return -EINVAL;
	if (errno == ERANGE || v < min || v > max)
		return -ERANGE;
	*out = v;
	return 0;
}

int parse_double(const char *s, double min, double max, double *out)
{
	char *end;
	double v;

	if (!s || !*s || isspace((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	v = strtod(s, &end);
	if (*end || isnan(v))
		return -EINVAL;
	if (errno == ERANGE || v < min || v > max)
		return -ERANGE;
	*out = v;
	return 0;
}

int parse_size(const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
	static const struct {
		const char *suffix;
		unsigned shift;
	} units[] = {
		{ "", 0 }, { "b", 0 }, { "k", 10 }, { "kb", 10 }, { "kib", 10 },
		{ "m", 20 }, { "mb", 20 }, { "mib", 20 }, { "g", 30 }, { "gb", 30 },
		{ "gib", 30 }, { "t", 40 }, { "tb", 40 }, { "tib", 40 },
	};
	char *end;
	unsigned long long v;

	if (!s || !isdigit((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno == ERANGE)
		return -ERANGE;
	for (size_t i = 0; i < ARRAY_SIZE(units); i++) {
		if (strcasecmp(end, units[i].suffix))
			continue;
		if (units[i].shift && v > (UINT64_MAX >> units[i].shift))
			return -ERANGE;
		v <<= units[i].shift;
		if (v < min || v > max)
			return -ERANGE;
		*out = v;
		return 0;
	}
	return -EINVAL;
}

static int cmp_unsigned(const void *a, const void *b)
{
	unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;

	return x < y ? -1 : x > y;
}

/* Sort and remove duplicates in place; returns the new length. */
static size_t uniq_sorted(unsigned *v, size_t n)
{
	size_t k = 0;

	qsort(v, n, sizeof(*v), cmp_unsigned);
	for (size_t i = 0; i < n; i++)
		if (k == 0 || v[k - 1] != v[i])
			v[k++] = v[i];
	return k;
}

static int push_unsigned(unsigned **v, size_t *n, size_t *cap, unsigned x)
{
	if (*n == *cap) {
		size_t nc = *cap ? *cap * 2 : 8;
		unsigned *nv;

		if (nc > 65536)
			return -E2BIG;
		nv = realloc(*v, nc * sizeof(*nv));
		if (!nv)
			return -ENOMEM;
		*v = nv;
		*cap = nc;
	}
	(*v)[(*n)++] = x;
	return 0;
}

int parse_cpu_list(const char *s, unsigned **out, size_t *n)
{
	unsigned *v = NULL;
	size_t len = 0, cap = 0;
	const char *p = s;
	int r = -EINVAL;

	if (!s || !*s)
		return -EINVAL;
	for (;;) {
		char *end;
		unsigned long a, b;

		r = -EINVAL;
		if (!isdigit((unsigned char)*p))
			goto fail;
		a = strtoul(p, &end, 10);
		b = a;
		if (*end == '-') {
			if (!isdigit((unsigned char)end[1]))
				goto fail;
			b = strtoul(end + 1, &end, 10);
		}
		if (a > b || b >= CPU_SETSIZE) {
			r = -ERANGE;
			goto fail;
		}
		for (unsigned long c = a; c <= b; c++) {
			r = push_unsigned(&v, &len, &cap, (unsigned)c);
			if (r < 0)
				goto fail;
		}
		if (*end == '\0')
			break;
		if (*end != ',') {
			r = -EINVAL;
			goto fail;
		}
		p = end + 1;
	}
	*n = uniq_sorted(v, len);
	*out = v;
	return 0;
fail:
	free(v);
	return r;
}

int parse_uint_list(const char *s, unsigned min, unsigned max, unsigned all_value,
		    unsigned **out, size_t *n)
{
	unsigned *v = NULL;
	size_t len = 0, cap = 0;
	char *copy, *tok, *save = NULL;
	int r = 0;

	if (!s || !*s)
		return -EINVAL;
	copy = xstrdup(s);
	if (!copy)
		return -ENOMEM;
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		int64_t x;

		if (!strcmp(tok, "all")) {
			x = all_value;
		} else {
			r = parse_i64(tok, min, max, &x);
			if (r < 0)
				break;
		}
		r = push_unsigned(&v, &len, &cap, (unsigned)x);
		if (r < 0)
			break;
	}
	/* "1,,2" or a trailing comma leaves an empty element strtok_r skips. */
	if (r == 0 && (len == 0 || strstr(s, ",,") || s[0] == ',' || s[strlen(s) - 1] == ','))
		r = -EINVAL;
	free(copy);
	if (r < 0) {
		free(v);
		return r;
	}
	*n = uniq_sorted(v, len);
	*out = v;
	return 0;
}

int read_file(const char *path, char **out)
{
	char *buf = NULL;
	size_t len = 0, cap = 0;
	int fd, r = 0;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	for (;;) {
		ssize_t k;

		if (cap - len < 4096) {
			char *nb;

			if (cap > (64u << 20)) {
				r = -EFBIG;
				break;
			}
			nb = realloc(buf, cap + 8192);
			if (!nb) {
				r = -ENOMEM;
				break;
			}
			buf = nb;
			cap += 8192;
		}
		k = read(fd, buf + len, cap - len - 1);
		if (k < 0) {
			if (errno == EINTR)
				continue;
			r = -errno;
			break;
		}
		if (k == 0)
			break;
		len += (size_t)k;
	}
	close(fd);
	if (r < 0) {
		free(buf);
		return r;
	}
	if (!buf) {
		buf = malloc(1);
		if (!buf)
			return -ENOMEM;
	}
	while (len > 0 && buf[len - 1] == '\n')
		len--;
	buf[len] = '\0';
	*out = buf;
	return 0;
}

int read_file_or_stdin(const char *path, char **out)
{
	return read_file(strcmp(path, "-") ? path : "/dev/stdin", out);
}

int read_file_at(const char *root, const char *path, char **out)
{
	char full[4096];

	if ((size_t)snprintf(full, sizeof(full), "%s%s", strcmp(root, "/") ? root : "", path) >= sizeof(full))
		return -ENAMETOOLONG;
	return read_file(full, out);
}

int read_line_at(const char *root, const char *path, char *buf, size_t len)
{
	char *s, *nl;
	int r;

	r = read_file_at(root, path, &s);
	if (r < 0)
		return r;
	nl = strchr(s, '\n');
	if (nl)
		*nl = '\0';
	snprintf(buf, len, "%s", s);
	free(s);
	return 0;
}

int file_write_new(const char *path, const char *data, size_t len)
{
	char *tmp;
	size_t done = 0;
	int fd, r = 0;

	if (access(path, F_OK) == 0)
		return -EEXIST;
	tmp = xasprintf("%s.tmp.XXXXXX", path);
	if (!tmp)
		return -ENOMEM;
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0) {
		r = -errno;
		goto out;
	}
	{
		/* mkostemp makes 0600; a result or report is for sharing: the umask decides */
		mode_t mask = umask(0);

		umask(mask);
		(void)fchmod(fd, 0666 & ~mask);
	}
	while (done < len && r == 0) {
		ssize_t n = write(fd, data + done, len - done);

		if (n < 0 && errno != EINTR)
			r = -errno;
		else if (n > 0)
			done += (size_t)n;
	}
	if (r == 0 && fsync(fd) < 0)
		r = -errno;
	if (close(fd) < 0 && r == 0)
		r = -errno;
	if (r == 0 && link(tmp, path) < 0)
		r = -errno;
	(void)unlink(tmp);
out:
	free(tmp);
	return r;
}

int run_capture(const char *prog, char *const argv[], const char *cwd, char **out)
{
	char *buf = NULL;
	size_t len = 0, cap = 0;
	int p[2], status;
	pid_t pid;

	if (pipe2(p, O_CLOEXEC) < 0)
		return -errno;
	pid = fork();
	if (pid < 0) {
		close(p[0]);
		close(p[1]);
		return -errno;
	}
	if (pid == 0) {
		int null = open("/dev/null", O_RDWR);

		if ((cwd && chdir(cwd) < 0) || dup2(p[1], STDOUT_FILENO) < 0)
			_exit(126);
		(void)dup2(null, STDIN_FILENO);
		(void)dup2(null, STDERR_FILENO);
		if (strchr(prog, '/'))
			execv(prog, argv);
		else
			execvp(prog, argv);
		_exit(127);
	}
	close(p[1]);
	for (;;) {
		ssize_t n;

		if (cap - len < 65536) {
			char *nb = realloc(buf, cap + 262144);

			if (!nb)
				break;
			buf = nb;
			cap += 262144;
		}
		n = read(p[0], buf + len, cap - len - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += (size_t)n;
	}
	close(p[0]);
	if (buf)
		buf[len] = '\0';
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (out)
		*out = buf;
	else
		free(buf);
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -ECHILD;
}

int errf(char *err, size_t len, int r, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, len, fmt, ap);
	va_end(ap);
	return r;
}

char *xstrdup(const char *s)
{
	return s ? strdup(s) : NULL;
}

char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *s;
	int r;

	va_start(ap, fmt);
	r = vasprintf(&s, fmt, ap);
	va_end(ap);
	return r < 0 ? NULL : s;
}

bool str_has_prefix(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

bool str_in_list(const char *list, char sep, const char *word)
{
	size_t len = strlen(word);

	for (const char *p = list; p && *p;) {
		const char *end = strchr(p, sep);
		size_t l = end ? (size_t)(end - p) : strlen(p);

		if (l == len && !strncmp(p, word, l))
			return true;
		p = end ? end + 1 : NULL;
	}
	return false;
}

size_t str_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	size_t row[64];

	if (lb >= ARRAY_SIZE(row))
		return SIZE_MAX;
	for (size_t j = 0; j <= lb; j++)
		row[j] = j;
	for (size_t i = 1; i <= la; i++) {
		size_t diag = row[0];

		row[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t up = row[j];
			size_t best = diag + (a[i - 1] != b[j - 1]);

			if (up + 1 < best)
				best = up + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			row[j] = best;
			diag = up;
		}
	}
	return row[lb];
}

int strv_push(struct strv *sv, const char *s)
{
	char **nv = realloc(sv->v, (sv->n + 2) * sizeof(*nv));
	char *copy;

	if (!nv)
		return -ENOMEM;
	sv->v = nv;
	copy = xstrdup(s);
	if (!copy)
		return -ENOMEM;
	sv->v[sv->n++] = copy;
	sv->v[sv->n] = NULL;
	return 0;
}

void strv_clear(struct strv *sv)
{
	for (size_t i = 0; i < sv->n; i++)
		free(sv->v[i]);
	free(sv->v);
	sv->v = NULL;
	sv->n = 0;
}

unsigned cpus_available(void)
{
	cpu_set_t set;
	long n;

	if (sched_getaffinity(0, sizeof(set), &set) == 0 && CPU_COUNT(&set) > 0)
		return (unsigned)CPU_COUNT(&set);
	n = sysconf(_SC_NPROCESSORS_ONLN);
	return n > 0 ? (unsigned)n : 1;
}

void format_utc(double epoch_s, char *buf, size_t len)
{
	time_t t = (time_t)epoch_s;
	struct tm tm;

	gmtime_r(&t, &tm);
	strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

double wall_time_s(void)
{
	struct timespec ts;

	(void)clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void vmb_test_stop_point(const char *point)
{
	static bool fired; /* once: a test harness waits for one stop */
	const char *at = getenv("VMBENCH_TEST_STOP_AT");

	if (!fired && at && !strcmp(at, point)) {
		fired = true;
		(void)raise(SIGSTOP);
	}
}
