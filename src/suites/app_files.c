/* app.files: small-file metadata work as fs_mark counts it (files created,
 * written and optionally fsynced per second), then stat, a listing of the
 * directory, rename and unlink of the same files, each in operations/s.
 *
 * It works in a new directory of its own inside --app.dir and removes
 * exactly the files it made, also after an error or a Ctrl-C. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
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
