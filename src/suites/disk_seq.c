/* The disk suite's two tests that write files of their own, one after the
 * other, outside fio's job model: iozone's write, rewrite, read, reread of a
 * new file (-i 0 -i 1, with -e unless --disk.flush untimed), and a log
 * writer's 4k write + fdatasync loop.
 * disk.c holds the descriptor, the target set-up and the fio-style tests. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "disk.h"
#include "../core/clock.h"
#include "../core/tempfile.h"
#include "../core/banned.h"

/* Where a pass's time ends: after its write pass's fsync (flushed) when the
 * flush is timed (iozone -e), else at its last transfer (written). */
uint64_t disk_iozone_end(bool wr, bool flush_timed, uint64_t written, uint64_t flushed)
{
	return wr && flush_timed ? flushed : written;
}

/* One sequential pass over a file with record-size transfers. A write pass
 * ends with an fsync: inside its time when timed (iozone -e), else after
 * the clock stops, as iozone without -e flushes before its next pass, so
 * that one pass's dirty pages are not written back in the next's time. */
static int iozone_pass(struct vmb_ctx *ctx, const char *path, int flags, bool wr, bool flush_timed, uint64_t size,
		       uint64_t rec, char *buf, double *mb_s)
{
	uint64_t t0 = clock_ns(), t1, done = 0;
	int fd = open(path, flags | O_CLOEXEC, 0600);

	if (fd < 0)
		return vmb_fail(ctx, -errno, "opening %s", path);
	while (done < size) {
		ssize_t n = wr ? pwrite(fd, buf, rec, (off_t)done) : pread(fd, buf, rec, (off_t)done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n != (ssize_t)rec) {
			int e = n < 0 ? -errno : -EIO;

			close(fd);
			return vmb_fail(ctx, e, "%s %s at offset %llu", wr ? "writing" : "reading", path,
					(unsigned long long)done);
		}
		done += rec;
		if (vmb_stop_requested())
			break;
	}
	t1 = clock_ns();
	if (wr && fsync(fd) < 0) {
		int e = -errno;

		close(fd);
		return vmb_fail(ctx, e, "fsync %s", path);
	}
	t1 = disk_iozone_end(wr, flush_timed, t1, clock_ns());
	close(fd);
	*mb_s = (double)done / ((double)(t1 - t0) / NSEC_PER_SEC) / 1e6;
	return 0;
}

static int run_iozone(struct vmb_ctx *ctx, struct vmb_rep *rep)
{
	static const char *const names[] = { "write_mb_per_s", "rewrite_mb_per_s", "read_mb_per_s", "reread_mb_per_s" };
	struct disk_state *st = ctx->priv;
	uint64_t size = optset_size(ctx->opts, "file-size"), rec = optset_size(ctx->opts, "record-size");
	int direct = st->buffered ? 0 : O_DIRECT;
	bool flush_timed = !strcmp(optset_str(ctx->opts, "flush"), "timed");
	const int flags[] = { O_WRONLY | O_CREAT | O_EXCL | direct, O_WRONLY | direct, O_RDONLY | direct,
			      O_RDONLY | direct };
	char path[PATH_MAX];
	double mb[4];
	char *buf = NULL;
	size_t mapped = 0;
	int r = 0, fd;

	if (st->is_device)
		return vmb_skip(ctx, "iozone writes a file of its own; it does not run on --disk.device");
	size -= size % rec;
	if (size == 0)
		return vmb_fail(ctx, -EINVAL, "--disk.file-size is smaller than --disk.record-size");
	buf = disk_buffers(st->iomem, rec, 0x5a, &mapped);
	if (!buf)
		return vmb_fail(ctx, -ENOMEM, "a %llu-byte record (--disk.iomem %s: %s)", (unsigned long long)rec,
				optset_str(ctx->opts, "iomem"), disk_iomem_why(st->iomem));
	/* A fresh file per repetition, as iozone writes a new file: reserve a
	 * unique name, then let the write pass create it with O_EXCL (and
	 * O_DIRECT, which mkostemp cannot pass). */
	snprintf(path, sizeof(path), "%s/" DISK_IOZONE_PREFIX "%ld-XXXXXX", st->dir, (long)getpid());
	fd = mkostemp(path, O_CLOEXEC);
	if (fd < 0) {
		r = vmb_fail(ctx, -errno, "creating a file in %s", st->dir);
		goto out;
	}
	close(fd);
	if (unlink(path) < 0 || vmb_tempfile_add(path) < 0) {
		r = vmb_fail(ctx, -EIO, "preparing %s", path);
		goto out;
	}
	/* With --disk.buffered the read passes may come from the page cache,
	 * exactly as iozone's do without -I. */
	for (int i = 0; i < 4 && r == 0 && !vmb_stop_requested(); i++)
		r = iozone_pass(ctx, path, flags[i], i < 2, flush_timed, size, rec, buf, &mb[i]);
	(void)vmb_tempfile_unlink(path);
	for (int i = 0; i < 4 && r == 0 && !vmb_stop_requested(); i++)
		vmb_rep_value(rep, names[i], VMB_UNIT_MB_PER_S, VMB_HIGHER, mb[i]);
out:
	disk_buffers_free(st->iomem, buf, mapped);
	return r;
}

/* 4k write + fdatasync, sequentially through the target: what a database's
 * log feels. Buffered writes, as a log writer does before its fdatasync. */
static int run_fsync(struct vmb_ctx *ctx, struct vmb_rep *rep)
{
	struct disk_state *st = ctx->priv;
	const uint64_t bs = 4096;
	struct hist *h = hist_new();
	uint64_t start, prev, deadline, n = 0, off = 0;
	char buf[4096];
	int fd, r = 0;

	if (!h)
		return vmb_fail(ctx, -ENOMEM, "histogram");
	memset(buf, 0xa5, sizeof(buf));
	/* a device is already held exclusively by st->fd: a plain open here */
	fd = open(st->path, O_WRONLY | O_CLOEXEC);
	if (fd < 0) {
		r = vmb_fail(ctx, -errno, "opening %s", st->path);
		goto out;
	}
	start = prev = clock_ns();
	deadline = start + (uint64_t)(ctx->duration_s * NSEC_PER_SEC);
	for (;;) {
		uint64_t now;

		if (pwrite(fd, buf, bs, (off_t)off) != (ssize_t)bs || fdatasync(fd) < 0) {
			r = vmb_fail(ctx, errno ? -errno : -EIO, "write + fdatasync at offset %llu of %s",
				     (unsigned long long)off, st->path);
			break;
		}
		now = clock_ns();
		hist_record(h, now - prev);
		prev = now;
		n++;
		off = off + 2 * bs <= st->size ? off + bs : 0;
		if (now >= deadline || vmb_stop_requested())
			break;
	}
	close(fd);
	if (r == 0)
		r = disk_check_target(ctx, st);
	if (r == 0) {
		vmb_rep_value(rep, "syncs_per_s", VMB_UNIT_PER_S, VMB_HIGHER, (double)n / ((double)(prev - start) / NSEC_PER_SEC));
		vmb_rep_hist(rep, "latency", VMB_UNIT_NS, h);
	}
out:
	hist_free(h);
	return r;
}

int disk_run_iozone(struct vmb_ctx *ctx, const struct vmb_test *test, struct vmb_rep *rep)
{
	int r = disk_may_write(ctx);

	(void)test;
	return r < 0 ? r : run_iozone(ctx, rep);
}

int disk_run_fsync(struct vmb_ctx *ctx, const struct vmb_test *test, struct vmb_rep *rep)
{
	int r = disk_may_write(ctx);

	(void)test;
	return r < 0 ? r : run_fsync(ctx, rep);
}
