/* app.build: a compile as a developer meets it, in three timed steps, where
 * a compiler is installed:
 *   configure    --app.probes configure-style checks, one after another, as
 *                autoconf's AC_CHECK_HEADER/AC_CHECK_FUNC (and a kernel's
 *                `make defconfig`, which compiles its kconfig tool and runs
 *                it) do: each a test program compiled and linked, its
 *                outcome a line of config.h, which every unit includes;
 *   full build   a fixed generated corpus of C files compiled with -jN;
 *   incremental  one source touched, then make's rebuild: every unit's
 *                source checked against its object, the out-of-date ones
 *                compiled again with -jN.
 * Wall seconds of each, and the compilers' user and system time of the full
 * build. It works in a new directory of its own inside --app.dir and
 * removes exactly the files it made, also after an error or a Ctrl-C. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "app.h"
#include "../core/clock.h"
#include "../core/stoppoint.h"
#include "../core/spawn.h"
#include "../core/banned.h"

#define BUILD_FUNCS 24 /* functions per translation unit */

/* The configuration step's checks: a header, and an expression that uses
 * what the check is about (0: the header alone), compiled and linked into
 * a program as autoconf's checks are. A check may fail (strlcpy before
 * glibc 2.38): that is its answer, written into config.h. */
static const struct build_probe {
	const char *define, *header, *expr;
} build_probes[APP_BUILD_PROBES] = {
	{ "HAVE_STDIO_H", "stdio.h", "0" },
	{ "HAVE_STDLIB_H", "stdlib.h", "0" },
	{ "HAVE_STRING_H", "string.h", "0" },
	{ "HAVE_STDINT_H", "stdint.h", "0" },
	{ "HAVE_UNISTD_H", "unistd.h", "0" },
	{ "HAVE_FCNTL_H", "fcntl.h", "0" },
	{ "HAVE_SYS_STAT_H", "sys/stat.h", "0" },
	{ "HAVE_PTHREAD_H", "pthread.h", "0" },
	{ "HAVE_SNPRINTF", "stdio.h", "snprintf(0, 0, \"%d\", 1) != 1" },
	{ "HAVE_STRNLEN", "string.h", "strnlen(\"ab\", 1) != 1" },
	{ "HAVE_MEMMEM", "string.h", "memmem(\"ab\", 2, \"b\", 1) == 0" },
	{ "HAVE_POSIX_MEMALIGN", "stdlib.h", "posix_memalign(0, 0, 0) == 0" },
	{ "HAVE_CLOCK_GETTIME", "time.h", "clock_gettime(CLOCK_MONOTONIC, 0) > 0" },
	{ "HAVE_STRLCPY", "string.h", "strlcpy(0, \"\", 0) != 0" },
	{ "HAVE_SYS_EPOLL_H", "sys/epoll.h", "0" },
	{ "HAVE_SYS_RANDOM_H", "sys/random.h", "0" },
};

const char *app_build_cc(const char **why)
{
	static char found[PATH_MAX];

	if (path_find("cc", found, sizeof(found)) == 0)
		return found;
	*why = "no C compiler (cc) in PATH: app.build compiles a generated corpus and needs one";
	return NULL;
}

size_t app_build_stale(const struct timespec *src, const struct timespec *obj, size_t n, bool *stale)
{
	size_t k = 0;

	/* make's rule: an object older than its source, or none, is rebuilt */
	for (size_t i = 0; i < n; i++) {
		stale[i] = obj[i].tv_sec < 0 || src[i].tv_sec > obj[i].tv_sec ||
			   (src[i].tv_sec == obj[i].tv_sec && src[i].tv_nsec > obj[i].tv_nsec);
		k += stale[i];
	}
	return k;
}

/* One translation unit of the fixed shape: config.h and headers, a struct,
 * functions with loops and branches the optimizer works on. Unit i differs
 * only in names. */
static int write_unit(const char *dir, unsigned u)
{
	char p[PATH_MAX + 32];
	FILE *f;

	vmb_test_stop_point("app-build-corpus"); /* tests interrupt the build here */
	int r = 0;

	snprintf(p, sizeof(p), "%s/u%u.c", dir, u);
	f = fopen(p, "wx");
	if (!f)
		return -errno;
	fprintf(f, "#include \"config.h\"\n#include <stdio.h>\n#include <stdlib.h>\n#include <string.h>\n\n"
		   "struct rec%u { int id; double w; char name[32]; struct rec%u *next; };\n\n", u, u);
	for (unsigned i = 0; i < BUILD_FUNCS; i++)
		fprintf(f,
			"double f%u_%u(struct rec%u *r, const double *v, int n)\n{\n"
			"\tdouble s = 0;\n\tfor (int i = 0; i < n; i++) {\n"
			"\t\tif (v[i] > %u.5)\n\t\t\ts += v[i] * r->w;\n\t\telse\n\t\t\ts -= v[i] / (i + 1);\n"
			"\t\tif (r->next && i %% %u == 0)\n\t\t\tr = r->next;\n\t}\n"
			"\tsnprintf(r->name, sizeof(r->name), \"%%d:%%g\", r->id, s);\n"
			"\treturn s + (double)strlen(r->name);\n}\n\n",
			u, i, u, i, i + 2);
	if (ferror(f))
		r = -EIO;
	if (fclose(f) != 0 && r == 0)
		r = -errno;
	return r;
}

static void build_clean(const char *dir, unsigned units, unsigned probes)
{
	char p[PATH_MAX + 32];

	for (unsigned u = 0; u < units; u++) {
		snprintf(p, sizeof(p), "%s/u%u.c", dir, u);
		(void)unlink(p);
		snprintf(p, sizeof(p), "%s/u%u.o", dir, u);
		(void)unlink(p);
	}
	for (unsigned i = 0; i < probes; i++) {
		snprintf(p, sizeof(p), "%s/conftest%u.c", dir, i);
		(void)unlink(p);
		snprintf(p, sizeof(p), "%s/conftest%u", dir, i);
		(void)unlink(p);
	}
	snprintf(p, sizeof(p), "%s/config.h", dir);
	(void)unlink(p);
	(void)rmdir(dir);
}

/* cc with argv's words after it, in dir, its output thrown away: the child's pid. */
static pid_t spawn_cc(const char *cc, const char *dir, char *const args[])
{
	pid_t pid = fork();

	if (pid == 0) {
		char *argv[8] = { (char *)cc };
		int null = open("/dev/null", O_WRONLY);

		for (size_t i = 0; args[i] && i + 2 < sizeof(argv) / sizeof(argv[0]); i++)
			argv[i + 1] = args[i];
		if (chdir(dir) < 0)
			_exit(126);
		if (null >= 0) {
			(void)dup2(null, 1);
			(void)dup2(null, 2);
		}
		(void)execv(cc, argv);
		_exit(127);
	}
	return pid;
}

static pid_t compile(const char *cc, const char *dir, unsigned u)
{
	char src[32], obj[32];

	snprintf(src, sizeof(src), "u%u.c", u);
	snprintf(obj, sizeof(obj), "u%u.o", u);
	return spawn_cc(cc, dir, (char *const[]){ "-O2", "-c", src, "-o", obj, NULL });
}

/* The configuration step: each probe's program written, compiled and
 * linked in turn (configure runs its checks one by one), then config.h. 0
 * with *found; a negative errno when a file could not be written or cc
 * not run (a probe that does not compile is an answer, not an error). */
static int configure(const char *cc, const char *dir, unsigned probes, unsigned *found)
{
	char p[PATH_MAX + 32], src[32], exe[32];
	bool have[APP_BUILD_PROBES] = { false };
	FILE *f;
	int r = 0;

	*found = 0;
	for (unsigned i = 0; i < probes && r == 0 && !vmb_stop_requested(); i++) {
		const struct build_probe *pr = &build_probes[i];
		int status;
		pid_t pid;

		snprintf(src, sizeof(src), "conftest%u.c", i);
		snprintf(exe, sizeof(exe), "conftest%u", i);
		snprintf(p, sizeof(p), "%s/%s", dir, src);
		f = fopen(p, "wx");
		if (!f)
			return -errno;
		fprintf(f, "#define _GNU_SOURCE\n#include <%s>\n\nint main(void)\n{\n\treturn (%s) ? 1 : 0;\n}\n",
			pr->header, pr->expr);
		if (ferror(f))
			r = -EIO;
		if (fclose(f) != 0 && r == 0)
			r = -errno;
		if (r < 0)
			break;
		pid = spawn_cc(cc, dir, (char *const[]){ src, "-o", exe, NULL });
		if (pid < 0)
			return -errno;
		while (waitpid(pid, &status, 0) < 0)
			if (errno != EINTR)
				return -errno;
		if (WIFEXITED(status) && WEXITSTATUS(status) == 127)
			return -ENOEXEC;
		have[i] = WIFEXITED(status) && WEXITSTATUS(status) == 0;
		*found += have[i];
	}
	if (r < 0)
		return r;
	snprintf(p, sizeof(p), "%s/config.h", dir);
	f = fopen(p, "wx");
	if (!f)
		return -errno;
	fprintf(f, "/* written by app.build's configuration step: %u checks */\n", probes);
	for (unsigned i = 0; i < probes; i++)
		fprintf(f, have[i] ? "#define %s 1\n" : "/* #undef %s */\n", build_probes[i].define);
	if (ferror(f))
		r = -EIO;
	if (fclose(f) != 0 && r == 0)
		r = -errno;
	return r;
}

/* The units marked in which compiled, --app.jobs at once: 0, or a negative
 * errno when cc could not be started; *failed counts the units cc refused;
 * the children's CPU time added to user and sys. */
static int build_units(const char *cc, const char *dir, const bool *which, unsigned units, unsigned jobs,
		       unsigned *failed, double *user, double *sys)
{
	unsigned running = 0, next = 0;
	int r = 0;

	while (next < units || running) {
		struct rusage ru;
		int status;
		pid_t pid;

		if (next < units && which && !which[next]) {
			next++;
			continue;
		}
		if (next < units && running < jobs && !*failed && !vmb_stop_requested()) {
			if (compile(cc, dir, next) < 0) {
				r = -errno;
				(*failed)++;
			} else {
				running++;
			}
			next++;
			continue;
		}
		if (!running)
			break;
		pid = wait4(-1, &status, 0, &ru);
		if (pid < 0) {
			if (errno == EINTR)
				continue;
			r = -errno;
			break;
		}
		running--;
		*user += (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6;
		*sys += (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
		if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
			(*failed)++;
	}
	return r;
}

/* The incremental build: unit 0's source touched (its time set past its
 * object's, so that a coarse filesystem clock cannot hide it), then every
 * unit's source and object compared as make does and the stale ones
 * compiled. *stale says how many were. */
static int rebuild(const char *cc, const char *dir, unsigned units, unsigned jobs, unsigned *stale_n, unsigned *failed,
		   uint64_t *ns)
{
	struct timespec *src = calloc(units, sizeof(*src)), *obj = calloc(units, sizeof(*obj)), t[2];
	bool *stale = calloc(units, sizeof(*stale));
	char p[PATH_MAX + 32];
	double user = 0, sys = 0;
	struct stat sb;
	uint64_t t0;
	int r = 0;

	if (!src || !obj || !stale) {
		r = -ENOMEM;
		goto out;
	}
	snprintf(p, sizeof(p), "%s/u0.o", dir);
	if (stat(p, &sb) < 0) {
		r = -errno;
		goto out;
	}
	t[0] = t[1] = (struct timespec){ .tv_sec = sb.st_mtim.tv_sec + 1, .tv_nsec = sb.st_mtim.tv_nsec };
	snprintf(p, sizeof(p), "%s/u0.c", dir);
	if (utimensat(AT_FDCWD, p, t, 0) < 0) {
		r = -errno;
		goto out;
	}
	t0 = clock_ns();
	for (unsigned u = 0; u < units; u++) {
		snprintf(p, sizeof(p), "%s/u%u.c", dir, u);
		if (stat(p, &sb) < 0) {
			r = -errno;
			goto out;
		}
		src[u] = sb.st_mtim;
		snprintf(p, sizeof(p), "%s/u%u.o", dir, u);
		obj[u] = stat(p, &sb) == 0 ? sb.st_mtim : (struct timespec){ .tv_sec = -1 };
	}
	*stale_n = (unsigned)app_build_stale(src, obj, units, stale);
	r = build_units(cc, dir, stale, units, jobs, failed, &user, &sys);
	*ns = clock_ns() - t0;
out:
	free(src);
	free(obj);
	free(stale);
	return r;
}

int app_build_run(struct vmb_ctx *ctx, struct vmb_rep *rep)
{
	struct app_state *as = ctx->priv;
	unsigned units = (unsigned)optset_int(ctx->opts, "units"), probes = (unsigned)optset_int(ctx->opts, "probes");
	unsigned jobs = (unsigned)optset_int(ctx->opts, "jobs"), failed = 0, found = 0, stale = 0;
	double user = 0, sys = 0;
	const char *why = NULL, *cc = app_build_cc(&why);
	char dir[PATH_MAX];
	uint64_t t0, t1, t2, inc_ns = 0;
	int r = 0;

	if (!cc)
		return vmb_skip(ctx, "%s", why);
	if (jobs == 0)
		jobs = ctx->env->ncpus ? ctx->env->ncpus : 1;
	snprintf(dir, sizeof(dir), "%s/vmbench-build-XXXXXX", as->dir);
	if (!mkdtemp(dir))
		return vmb_fail(ctx, -errno, "creating a directory in %s", as->dir);
	for (unsigned u = 0; u < units && r == 0; u++)
		r = write_unit(dir, u);
	if (r < 0) {
		build_clean(dir, units, probes);
		return vmb_fail(ctx, r, "writing the corpus in %s", dir);
	}
	t0 = clock_ns();
	r = configure(cc, dir, probes, &found);
	if (r < 0) {
		build_clean(dir, units, probes);
		return vmb_fail(ctx, r, "the configuration step in %s (%s)", dir, cc);
	}
	t1 = clock_ns();
	r = build_units(cc, dir, NULL, units, jobs, &failed, &user, &sys);
	t2 = clock_ns();
	if (r == 0 && !failed && !vmb_stop_requested())
		r = rebuild(cc, dir, units, jobs, &stale, &failed, &inc_ns);
	build_clean(dir, units, probes);
	if (r < 0)
		return vmb_fail(ctx, r, "running %s", cc);
	if (failed)
		return vmb_fail(ctx, -EIO, "%s failed on %u of %u units of the generated corpus", cc, failed, units);
	if (vmb_stop_requested())
		return -EINTR;
	(void)vmb_note(ctx, "build", "%u units of %u functions, %s -O2 -c, -j%u", units, BUILD_FUNCS, cc, jobs);
	(void)vmb_note(ctx, "build_configure", "%u checks compiled and linked one by one, %u found", probes, found);
	(void)vmb_note(ctx, "build_incremental", "u0.c touched: %u of %u units out of date, compiled again", stale,
		       units);
	vmb_rep_value(rep, "build_s", VMB_UNIT_S, VMB_LOWER, (double)(t2 - t1) / NSEC_PER_SEC);
	vmb_rep_value(rep, "user_s", VMB_UNIT_S, VMB_LOWER, user);
	vmb_rep_value(rep, "sys_s", VMB_UNIT_S, VMB_LOWER, sys);
	if (probes)
		vmb_rep_value(rep, "configure_s", VMB_UNIT_S, VMB_LOWER, (double)(t1 - t0) / NSEC_PER_SEC);
	vmb_rep_value(rep, "incremental_s", VMB_UNIT_S, VMB_LOWER, (double)inc_ns / NSEC_PER_SEC);
	return 0;
}
