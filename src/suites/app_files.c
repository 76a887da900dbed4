/* app.files: small-file metadata work as fs_mark counts it (files created,
 * written and optionally fsynced per second), then stat, a listing of the
 * directory, rename and unlink of the same files, each in operations/s.
 * app.build: a fixed generated corpus of C files compiled with -jN, where a
 * compiler is installed: seconds, and the children's user and system time.
 *
 * Both work in a new directory of their own inside --app.dir and remove
 * exactly the files they made, also after an error or a Ctrl-C. */
#include <dirent.h>
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
#include "../core/banned.h"

enum files_phase { F_CREATE, F_STAT, F_READDIR, F_RENAME, F_UNLINK, F_N };

static const char *const files_metric[F_N] = {
	"create_per_s", "stat_per_s", "readdir_entries_per_s", "rename_per_s", "unlink_per_s",
};

/* Remove the files a batch left (either name) and the directory. */
static void files_clean(const char *dir, unsigned n)
{
	char p[PATH_MAX + 32];

	for (unsigned i = 0; i < n; i++) {
		snprintf(p, sizeof(p), "%s/f%u", dir, i);
		(void)unlink(p);
		snprintf(p, sizeof(p), "%s/f%u.r", dir, i);
		(void)unlink(p);
	}
	(void)rmdir(dir);
}

static int files_batch(const char *dir, unsigned n, const char *buf, size_t size, bool sync, uint64_t *ns,
		       uint64_t *ops, const char **what)
{
	char a[PATH_MAX + 32], b[PATH_MAX + 32];
	struct stat sb;
	uint64_t t0;
	DIR *d;

	t0 = clock_ns();
	for (unsigned i = 0; i < n; i++) {
		int fd;

		snprintf(a, sizeof(a), "%s/f%u", dir, i);
		fd = open(a, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
		*what = "create";
		if (fd < 0)
			return -errno;
		*what = "write";
		if (write(fd, buf, size) != (ssize_t)size || (sync && fsync(fd) < 0)) {
			int r = -errno ? -errno : -EIO;

			(void)close(fd);
			return r;
		}
		if (close(fd) < 0)
			return -errno;
	}
	ns[F_CREATE] += clock_ns() - t0;
	ops[F_CREATE] += n;
	vmb_test_stop_point("app-files-created"); /* tests interrupt a batch here */
	*what = "stat";
	t0 = clock_ns();
	for (unsigned i = 0; i < n; i++) {
		snprintf(a, sizeof(a), "%s/f%u", dir, i);
		if (stat(a, &sb) < 0)
			return -errno;
	}
	ns[F_STAT] += clock_ns() - t0;
	ops[F_STAT] += n;
	*what = "readdir";
	t0 = clock_ns();
	d = opendir(dir);
	if (!d)
		return -errno;
	while (readdir(d))
		ops[F_READDIR]++;
	(void)closedir(d);
	ns[F_READDIR] += clock_ns() - t0;
	*what = "rename";
	t0 = clock_ns();
	for (unsigned i = 0; i < n; i++) {
		snprintf(a, sizeof(a), "%s/f%u", dir, i);
		snprintf(b, sizeof(b), "%s/f%u.r", dir, i);
		if (rename(a, b) < 0)
			return -errno;
	}
	ns[F_RENAME] += clock_ns() - t0;
	ops[F_RENAME] += n;
	*what = "unlink";
	t0 = clock_ns();
	for (unsigned i = 0; i < n; i++) {
		snprintf(b, sizeof(b), "%s/f%u.r", dir, i);
		if (unlink(b) < 0)
			return -errno;
	}
	ns[F_UNLINK] += clock_ns() - t0;
	ops[F_UNLINK] += n;
	return 0;
}

int app_files_run(struct vmb_ctx *ctx, struct vmb_rep *rep)
{
	struct app_state *as = ctx->priv;
	unsigned n = (unsigned)optset_int(ctx->opts, "files");
	size_t size = (size_t)optset_size(ctx->opts, "file-size");
	bool sync = optset_bool(ctx->opts, "fsync");
	uint64_t ns[F_N] = { 0 }, ops[F_N] = { 0 }, deadline;
	char dir[PATH_MAX];
	const char *what = "";
	char *buf;
	int r = 0;

	buf = malloc(size);
	if (!buf)
		return vmb_fail(ctx, -ENOMEM, "a %zu-byte buffer", size);
	memset(buf, 0x5a, size);
	snprintf(dir, sizeof(dir), "%s/vmbench-files-XXXXXX", as->dir);
	if (!mkdtemp(dir)) {
		r = vmb_fail(ctx, -errno, "creating a directory in %s", as->dir);
		free(buf);
		return r;
	}
	deadline = clock_ns() + (uint64_t)(ctx->duration_s * NSEC_PER_SEC);
	do {
		r = files_batch(dir, n, buf, size, sync, ns, ops, &what);
		if (r < 0) {
			r = vmb_fail(ctx, r, "%s of a file in %s", what, dir);
			break;
		}
	} while (clock_ns() < deadline && !vmb_stop_requested());
	files_clean(dir, n);
	free(buf);
	for (size_t i = 0; r == 0 && i < F_N; i++)
		vmb_rep_value(rep, files_metric[i], VMB_UNIT_PER_S, VMB_HIGHER,
			      ns[i] ? (double)ops[i] / ((double)ns[i] / NSEC_PER_SEC) : 0);
	return r;
}

/* --- app.build --- */

#define BUILD_FUNCS 24 /* functions per translation unit */

const char *app_build_cc(const char **why)
{
	static char found[PATH_MAX];
	const char *path = getenv("PATH");

	while (path && *path) {
		const char *colon = strchr(path, ':');
		int len = colon ? (int)(colon - path) : (int)strlen(path);

		snprintf(found, sizeof(found), "%.*s/cc", len, len ? path : ".");
		if (access(found, X_OK) == 0)
			return found;
		path = colon ? colon + 1 : NULL;
	}
	*why = "no C compiler (cc) in PATH: app.build compiles a generated corpus and needs one";
	return NULL;
}

/* One translation unit of the fixed shape: headers, a struct, functions with
 * loops and branches the optimizer works on. Unit i differs only in names. */
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
	fprintf(f, "#include <stdio.h>\n#include <stdlib.h>\n#include <string.h>\n\n"
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

static void build_clean(const char *dir, unsigned units)
{
	char p[PATH_MAX + 32];

	for (unsigned u = 0; u < units; u++) {
		snprintf(p, sizeof(p), "%s/u%u.c", dir, u);
		(void)unlink(p);
		snprintf(p, sizeof(p), "%s/u%u.o", dir, u);
		(void)unlink(p);
	}
	(void)rmdir(dir);
}

static pid_t compile(const char *cc, const char *dir, unsigned u)
{
	char src[32], obj[32];
	pid_t pid;

	snprintf(src, sizeof(src), "u%u.c", u);
	snprintf(obj, sizeof(obj), "u%u.o", u);
	pid = fork();
	if (pid == 0) {
		char *const argv[] = { (char *)cc, "-O2", "-c", src, "-o", obj, NULL };
		int null = open("/dev/null", O_WRONLY);

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

int app_build_run(struct vmb_ctx *ctx, struct vmb_rep *rep)
{
	struct app_state *as = ctx->priv;
	unsigned units = (unsigned)optset_int(ctx->opts, "units");
	unsigned jobs = (unsigned)optset_int(ctx->opts, "jobs"), running = 0, next = 0, failed = 0;
	double user = 0, sys = 0;
	const char *why = NULL, *cc = app_build_cc(&why);
	char dir[PATH_MAX];
	uint64_t t0, t1;
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
		build_clean(dir, units);
		return vmb_fail(ctx, r, "writing the corpus in %s", dir);
	}
	t0 = clock_ns();
	while (next < units || running) {
		struct rusage ru;
		int status;
		pid_t pid;

		if (next < units && running < jobs && !failed && !vmb_stop_requested()) {
			if (compile(cc, dir, next) < 0) {
				r = -errno;
				failed++;
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
		user += (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6;
		sys += (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
		if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
			failed++;
	}
	t1 = clock_ns();
	build_clean(dir, units);
	if (r < 0)
		return vmb_fail(ctx, r, "running %s", cc);
	if (failed)
		return vmb_fail(ctx, -EIO, "%s failed on %u of %u units of the generated corpus", cc, failed, units);
	if (vmb_stop_requested())
		return -EINTR;
	(void)vmb_note(ctx, "build", "%u units of %u functions, %s -O2 -c, -j%u", units, BUILD_FUNCS, cc, jobs);
	vmb_rep_value(rep, "build_s", VMB_UNIT_S, VMB_LOWER, (double)(t1 - t0) / NSEC_PER_SEC);
	vmb_rep_value(rep, "user_s", VMB_UNIT_S, VMB_LOWER, user);
	vmb_rep_value(rep, "sys_s", VMB_UNIT_S, VMB_LOWER, sys);
	return r;
}
