/* Storage suite: fio-style random and sequential I/O with a queue-depth
 * sweep, iozone's write/rewrite/read/reread, and a write+fdatasync loop.
 *
 * Data safety: it writes only to a file it created (O_EXCL, removed on
 * exit, on error and on Ctrl-C) or, with --destructive, to a block device
 * the user named; without --destructive a device is opened read-only. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/fs.h>
#include <linux/magic.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "disk.h"
#include "../core/clock.h"
#include "../core/reclaim.h"
#include "../core/util.h"
#include "../probe/probe.h"
#include "../core/banned.h"

enum disk_kind { K_RANDREAD, K_RANDWRITE, K_RANDRW, K_SEQREAD, K_SEQWRITE, K_IOZONE, K_FSYNC };

static bool kind_writes(enum disk_kind k)
{
	return k == K_RANDWRITE || k == K_RANDRW || k == K_SEQWRITE || k == K_IOZONE || k == K_FSYNC;
}

/* Sectors written so far by the device behind the target (field 7 of
 * /sys/block/<dev>/stat); -1 when unknown. */
static int64_t device_sectors_written(const struct disk_state *st)
{
	unsigned long long v[7];
	char line[512];

	if (!st->stat_path[0] || read_line_at("/", st->stat_path, line, sizeof(line)) < 0 ||
	    sscanf(line, "%llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6]) != 7)
		return -1;
	return (int64_t)v[6];
}

static void find_device(struct vmb_ctx *ctx, struct disk_state *st, dev_t dev)
{
	char link[PATH_MAX], target[PATH_MAX];
	ssize_t n;

	snprintf(st->stat_path, sizeof(st->stat_path), "/sys/dev/block/%u:%u/stat", major(dev), minor(dev));
	if (access(st->stat_path, R_OK) < 0) {
		st->stat_path[0] = '\0';
		(void)vmb_note(ctx, "device", "none found (device %u:%u): no write amplification", major(dev),
			       minor(dev));
		return;
	}
	snprintf(link, sizeof(link), "/sys/dev/block/%u:%u", major(dev), minor(dev));
	n = readlink(link, target, sizeof(target) - 1);
	if (n > 0) {
		target[n] = '\0';
		(void)vmb_note(ctx, "device", "%s", strrchr(target, '/') ? strrchr(target, '/') + 1 : target);
	}
}

int disk_dio_probe(int fd, bool may_write, unsigned *align)
{
	const size_t max = 64 << 10;
	void *buf = NULL;
	int r = -EINVAL;

	if (posix_memalign(&buf, max, max) != 0)
		return -ENOMEM;
	memset(buf, 0x5a, max);
	for (size_t n = 512; n <= max; n *= 2) {
		ssize_t got = may_write ? pwrite(fd, buf, n, 0) : pread(fd, buf, n, 0);

		if (got == (ssize_t)n) {
			*align = (unsigned)n;
			r = 0;
			break;
		}
		if (got >= 0) { /* a short transfer: the file is too small to tell */
			r = -EIO;
			break;
		}
		if (errno != EINVAL) {
			r = -errno;
			break;
		}
	}
	free(buf);
	return r;
}

/* What O_DIRECT needs on st->fd: the device's logical block size, or for a
 * file what statx says (STATX_DIOALIGN, Linux 6.1 and later filesystems),
 * or else a probe. st_blksize is no answer: it is the preferred size (4096
 * on ext4), not the smallest allowed one. */
static int find_dio_align(struct vmb_ctx *ctx, struct disk_state *st, bool may_write)
{
	struct statx stx;
	int lbs = 0, r;

	if (st->buffered) {
		st->align = 1;
		return 0;
	}
	if (st->is_device) {
		if (ioctl(st->fd, BLKSSZGET, &lbs) < 0)
			return vmb_fail(ctx, -errno, "logical block size of %s (BLKSSZGET)", st->path);
		if (lbs <= 0)
			return vmb_fail(ctx, -EIO, "logical block size of %s (BLKSSZGET says %d)", st->path, lbs);
		st->align = (unsigned)lbs;
		st->align_source = "the device's logical block size";
		return 0;
	}
	if (statx(st->fd, "", AT_EMPTY_PATH, STATX_DIOALIGN, &stx) == 0 && (stx.stx_mask & STATX_DIOALIGN)) {
		if (stx.stx_dio_offset_align == 0)
			return vmb_fail(ctx, -EOPNOTSUPP, "O_DIRECT on %s (the filesystem does not support it here: "
							  "use --disk.buffered)", st->path);
		st->align = stx.stx_dio_offset_align;
		st->align_source = "the filesystem's O_DIRECT alignment, from statx";
		return 0;
	}
	r = disk_dio_probe(st->fd, may_write, &st->align);
	if (r < 0)
		return vmb_fail(ctx, r, "finding the O_DIRECT alignment of %s", st->path);
	st->align_source = "the smallest O_DIRECT transfer the filesystem accepted";
	return 0;
}

/* Every I/O in flight has a buffer of its own, filled before the window
 * opens: a depth and block size whose buffers do not fit in memory would
 * end in the OOM killer, not in a message. */
static int check_memory(struct vmb_ctx *ctx)
{
	const struct opt_value *qds = optset_get(ctx->opts, "iodepth");
	uint64_t jobs = (uint64_t)optset_int(ctx->opts, "jobs"), qd = 0, rnd, seq, avail = probe_mem_available("/");

	for (size_t i = 0; i < qds->nlist; i++)
		qd = qds->list[i] > qd ? qds->list[i] : qd;
	rnd = jobs * qd * optset_size(ctx->opts, "bs");
	seq = jobs * (uint64_t)optset_int(ctx->opts, "seq-iodepth") * optset_size(ctx->opts, "seq-bs");
	if (avail && rnd > avail / 2)
		return vmb_usage(ctx, "--disk.jobs %llu x --disk.iodepth %llu x --disk.bs %llu need %llu MiB of I/O "
				      "buffers, more than half of the %llu MiB of memory available: lower one of them",
				 (unsigned long long)jobs, (unsigned long long)qd,
				 (unsigned long long)optset_size(ctx->opts, "bs"), (unsigned long long)(rnd >> 20),
				 (unsigned long long)(avail >> 20));
	if (avail && seq > avail / 2)
		return vmb_usage(ctx, "--disk.jobs %llu x --disk.seq-iodepth %lld x --disk.seq-bs %llu need %llu MiB "
				      "of I/O buffers, more than half of the %llu MiB of memory available: lower one of "
				      "them", (unsigned long long)jobs, (long long)optset_int(ctx->opts, "seq-iodepth"),
				 (unsigned long long)optset_size(ctx->opts, "seq-bs"), (unsigned long long)(seq >> 20),
				 (unsigned long long)(avail >> 20));
	return 0;
}

/* Sizes that cannot work on this target are the user's mistake, found
 * before anything is laid out or measured, with the values that would work. */
static int check_sizes(struct vmb_ctx *ctx, const struct disk_state *st)
{
	static const struct {
		const char *opt;
		bool device; /* used on a block device too (iozone is not) */
	} sized[] = {
		{ "bs", true }, { "seq-bs", true }, { "record-size", false },
	};

	for (size_t i = 0; i < sizeof(sized) / sizeof(sized[0]); i++) {
		uint64_t v = optset_size(ctx->opts, sized[i].opt), lo = v / st->align * st->align;
		char eg[64];

		if (st->is_device && !sized[i].device)
			continue;
		if (v % st->align) {
			if (lo)
				snprintf(eg, sizeof(eg), "%llu or %llu", (unsigned long long)lo,
					 (unsigned long long)(lo + st->align));
			else
				snprintf(eg, sizeof(eg), "%u", st->align);
			return vmb_usage(ctx, "--disk.%s %llu does not suit O_DIRECT on %s: it must be a multiple of "
					      "%u (%s), e.g. %s; or measure through the page cache with --disk.buffered",
					 sized[i].opt, (unsigned long long)v, st->created ? st->dir : st->path, st->align,
					 st->align_source,
					 eg);
		}
		if (sized[i].device && v > st->size)
			return vmb_usage(ctx, "--disk.%s %llu is larger than the region tested (%llu bytes, %s)",
					 sized[i].opt, (unsigned long long)v, (unsigned long long)st->size,
					 st->is_device ? "the device or its first --disk.size bytes" : "--disk.size");
	}
	if (!st->is_device && optset_size(ctx->opts, "record-size") > optset_size(ctx->opts, "file-size"))
		return vmb_usage(ctx, "--disk.record-size %llu is larger than --disk.file-size %llu",
				 (unsigned long long)optset_size(ctx->opts, "record-size"),
				 (unsigned long long)optset_size(ctx->opts, "file-size"));
	return 0;
}

static int open_device(struct vmb_ctx *ctx, struct disk_state *st, const char *dev)
{
	const struct opt_value *size = optset_get(ctx->opts, "size");
	struct stat sb;
	uint64_t bytes;
	int r, flags = (ctx->env->destructive ? O_RDWR | O_EXCL : O_RDONLY) | O_CLOEXEC | (st->buffered ? 0 : O_DIRECT);

	if (stat(dev, &sb) < 0)
		return vmb_usage(ctx, "--disk.device %s: %s; expected a block device such as /dev/vdb (lsblk lists them)",
				 dev, strerror(errno));
	if (!S_ISBLK(sb.st_mode))
		return vmb_usage(ctx, "--disk.device %s is not a block device; a file to test goes to --disk.file, a "
				      "directory to --disk.dir", dev);
	st->fd = open(dev, flags);
	if (st->fd < 0)
		return vmb_fail(ctx, -errno, "opening %s%s", dev,
				errno == EBUSY ? " (in use or mounted: vmbench will not write to it)" : "");
	if (ioctl(st->fd, BLKGETSIZE64, &bytes) < 0)
		return vmb_fail(ctx, -errno, "size of %s", dev);
	/* the whole device, or its first --disk.size bytes when that is given
	 * and smaller; never the option's default (the params record this) */
	st->size = size->set && size->u < bytes ? size->u : bytes;
	st->is_device = true;
	snprintf(st->path, sizeof(st->path), "%s", dev);
	r = find_dio_align(ctx, st, false);
	if (r == 0)
		r = check_sizes(ctx, st);
	if (r < 0)
		return r;
	find_device(ctx, st, sb.st_rdev);
	(void)vmb_note(ctx, "target", "%s (block device, %s)", dev,
		       ctx->env->destructive ? "writes allowed by --destructive" : "read-only");
	(void)vmb_note(ctx, "device_size", "%llu", (unsigned long long)bytes);
	if (size->set && size->u > bytes)
		(void)vmb_note(ctx, "size", "the whole device (%llu bytes): --disk.size %llu is larger",
			       (unsigned long long)bytes, (unsigned long long)size->u);
	return 0;
}

/* Fill the new file with random bytes, so that reads hit real blocks and no
 * layer below can shortcut zeroes or holes. */
static int lay_out(struct vmb_ctx *ctx, struct disk_state *st, int fd)
{
	const size_t chunk = 1 << 20;
	uint64_t seed = 0x5eed, done = 0;
	char *buf = malloc(chunk);

	if (!buf)
		return vmb_fail(ctx, -ENOMEM, "layout buffer");
	for (size_t i = 0; i + 8 <= chunk; i += 8) {
		uint64_t v = (seed += 0x9e3779b97f4a7c15ull) * 0xbf58476d1ce4e5b9ull;

		memcpy(buf + i, &v, 8);
	}
	while (done < st->size && !vmb_stop_requested()) {
		size_t n = st->size - done < chunk ? (size_t)(st->size - done) : chunk;
		ssize_t w = pwrite(fd, buf, n, (off_t)done);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			free(buf);
			return vmb_fail(ctx, w < 0 ? -errno : -ENOSPC, "laying out %s", st->path);
		}
		buf[0]++; /* no two chunks alike */
		done += (uint64_t)w;
		vmb_test_stop_point("disk-layout"); /* tests interrupt a layout here */
	}
	free(buf);
	if (vmb_stop_requested())
		return -EINTR;
	if (fdatasync(fd) < 0)
		return vmb_fail(ctx, -errno, "fdatasync %s", st->path);
	/* Start the tests from the device, not from the page cache. */
	(void)posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
	return 0;
}

/* --disk.file naming an existing file, with --destructive: the tests read
 * and overwrite it as it is (no layout), and it is kept afterwards. This is
 * how a benchmark runs vmbench and fio on one and the same file. */
static int use_existing(struct vmb_ctx *ctx, struct disk_state *st, const char *file, const struct stat *sb)
{
	int r;

	/* lstat's answer: a link would let the tests write wherever it points */
	if (S_ISLNK(sb->st_mode))
		return vmb_usage(ctx, "--disk.file %s is a symbolic link; vmbench does not write through links: name "
				      "the file itself", file);
	if (!S_ISREG(sb->st_mode))
		return vmb_usage(ctx, "--disk.file %s is not a regular file; a device goes to --disk.device, a "
				      "directory to --disk.dir", file);
	if ((uint64_t)sb->st_size < st->size)
		return vmb_usage(ctx, "--disk.file %s has %llu bytes, less than --disk.size %llu: give a smaller "
				      "--disk.size", file, (unsigned long long)sb->st_size, (unsigned long long)st->size);
	snprintf(st->path, sizeof(st->path), "%s", file);
	st->fd = open(st->path, O_RDWR | O_CLOEXEC | (st->buffered ? 0 : O_DIRECT));
	if (st->fd < 0)
		return vmb_fail(ctx, -errno, "opening %s", st->path);
	r = find_dio_align(ctx, st, false);
	if (r == 0)
		r = check_sizes(ctx, st);
	if (r < 0)
		return r;
	find_device(ctx, st, sb->st_dev);
	(void)vmb_note(ctx, "target", "%s (existing file, written to by --destructive, kept)", st->path);
	return 0;
}

static int create_file(struct vmb_ctx *ctx, struct disk_state *st)
{
	const char *file = optset_str(ctx->opts, "file");
	uint64_t iozone = optset_size(ctx->opts, "file-size");
	struct statfs sfs;
	struct statvfs svfs;
	struct stat sb;
	uint64_t avail, margin;
	bool existing;
	int fd, r;

	if (file)
		snprintf(st->dir, sizeof(st->dir), "%.*s", strrchr(file, '/') ? (int)(strrchr(file, '/') - file) : 1,
			 strrchr(file, '/') ? file : ".");
	else
		snprintf(st->dir, sizeof(st->dir), "%s", optset_str(ctx->opts, "dir"));
	if (!st->dir[0])
		snprintf(st->dir, sizeof(st->dir), "/");
	if (stat(st->dir, &sb) < 0)
		return vmb_usage(ctx, "%s %s: %s; expected an existing directory", file ? "the directory of --disk.file"
				 : "--disk.dir", st->dir, strerror(errno));
	if (!S_ISDIR(sb.st_mode))
		return vmb_usage(ctx, "--disk.dir %s is not a directory; the test file is created in a directory "
				      "(--disk.dir), or at a new path given with --disk.file", st->dir);
	{
		/* what a killed run left here counts as free space again */
		static const char *const ours[] = { DISK_FILE_PREFIX, DISK_IOZONE_PREFIX, NULL };

		reclaim_files(st->dir, ours, "disk test file");
	}
	if (statfs(st->dir, &sfs) < 0 || statvfs(st->dir, &svfs) < 0)
		return vmb_fail(ctx, -errno, "statfs %s", st->dir);
	/* the default (.) read-only is the machine's (a read-only checkout, a
	 * container's root): a skip; a directory the user named, a usage error */
	if (!file && access(st->dir, W_OK) < 0 && (errno == EROFS || errno == EACCES || errno == EPERM)) {
		if (optset_get(ctx->opts, "dir")->set)
			return vmb_usage(ctx, "--disk.dir %s takes no new files (%s); name a directory on the disk to "
					      "measure that you can write", st->dir, strerror(errno));
		return vmb_skip(ctx, "the working directory takes no new files (%s): give --disk.dir DIR on the "
				     "disk to measure", strerror(errno));
	}
	/* O_DIRECT on a memory filesystem measures memory, not a disk. */
	if (!st->buffered && ((unsigned long)sfs.f_type == TMPFS_MAGIC || (unsigned long)sfs.f_type == RAMFS_MAGIC))
		return vmb_skip(ctx, "%s is on %s: a disk test there would measure memory; give another "
				     "--disk.dir, or --disk.buffered to measure the page cache knowingly",
				st->dir, (unsigned long)sfs.f_type == TMPFS_MAGIC ? "tmpfs" : "ramfs");
	avail = (uint64_t)svfs.f_bavail * svfs.f_frsize;
	/* 1% of the filesystem plus up to 64 MiB (a tenth of a small one) */
	margin = (uint64_t)svfs.f_blocks * svfs.f_frsize / 100;
	margin += (uint64_t)svfs.f_blocks * svfs.f_frsize / 10 < (64ull << 20)
			  ? (uint64_t)svfs.f_blocks * svfs.f_frsize / 10 : 64ull << 20;
	existing = file && ctx->env->destructive && lstat(file, &sb) == 0;
	if ((existing ? 0 : st->size) + iozone + margin > avail)
		return vmb_usage(ctx, "%s has %llu MiB free; the test file (%llu MiB) and the iozone file "
				      "(%llu MiB) need that plus a %llu MiB margin: lower --disk.size / "
				      "--disk.file-size or choose another --disk.dir",
				 st->dir, (unsigned long long)(avail >> 20), (unsigned long long)(st->size >> 20),
				 (unsigned long long)(iozone >> 20), (unsigned long long)(margin >> 20));
	if (existing)
		return use_existing(ctx, st, file, &sb);
	if (file) {
		snprintf(st->path, sizeof(st->path), "%s", file);
		fd = open(st->path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
		if (fd < 0 && errno == EEXIST)
			return vmb_usage(ctx, "%s exists; vmbench writes only files it creates: remove it, name a "
					      "new one, or pass --destructive to let the tests overwrite it", st->path);
	} else {
		/* the PID in the name: the next run tells a file a killed run left (reclaim.h) */
		snprintf(st->path, sizeof(st->path), "%s/" DISK_FILE_PREFIX "%ld-XXXXXX", st->dir, (long)getpid());
		fd = mkostemp(st->path, O_CLOEXEC);
	}
	if (fd < 0)
		return vmb_fail(ctx, -errno, "creating the test file in %s", st->dir);
	st->created = true;
	r = vmb_tempfile_add(st->path);
	if (r < 0) {
		close(fd);
		return vmb_fail(ctx, r, "registering %s for removal", st->path);
	}
	/* O_DIRECT and the sizes first: a refusal must not cost a layout */
	st->fd = open(st->path, O_RDWR | O_CLOEXEC | (st->buffered ? 0 : O_DIRECT));
	if (st->fd < 0)
		r = vmb_fail(ctx, -errno, "opening %s%s", st->path,
			     errno == EINVAL ? " with O_DIRECT (the filesystem refuses it: use --disk.buffered)" : "");
	if (r == 0)
		r = find_dio_align(ctx, st, true);
	if (r == 0)
		r = check_sizes(ctx, st);
	/* the device's count from before the layout (device_write_bytes) */
	if (r == 0 && fstat(fd, &sb) == 0) {
		find_device(ctx, st, sb.st_dev);
		st->sectors_at_setup = device_sectors_written(st);
	}
	if (r == 0)
		r = lay_out(ctx, st, fd);
	if (r == 0 && fstat(fd, &sb) < 0)
		r = vmb_fail(ctx, -errno, "fstat %s", st->path);
	close(fd);
	if (r < 0)
		return r;
	find_device(ctx, st, sb.st_dev);
	(void)vmb_note(ctx, "target", "%s (new file, %llu MiB)", st->path, (unsigned long long)(st->size >> 20));
	return 0;
}

/* Where to test is one of three options. A path that does not fit the
 * state's buffers is refused, never cut: a shortened path can name another
 * directory or file ("/a/./././b" cut after "/a/."), which the tests would
 * then write to. */
static int check_target_opts(struct vmb_ctx *ctx)
{
	static const char *const where[] = { "device", "file", "dir" };
	/* room for "/vmbench-iozone-XXXXXX" after a directory */
	const size_t max = PATH_MAX - 32;
	const char *given = NULL;

	for (size_t i = 0; i < sizeof(where) / sizeof(where[0]); i++) {
		const struct opt_value *v = optset_get(ctx->opts, where[i]);

		if (v->present && v->s && strlen(v->s) > max)
			return vmb_usage(ctx, "--disk.%s: the path has %zu bytes; at most %zu", where[i], strlen(v->s),
					 max);
		if (!v->set)
			continue;
		/* an unset shell variable ("--disk.dir $DIR") must not mean "/" */
		if (!v->s || !v->s[0])
			return vmb_usage(ctx, "--disk.%s is empty; expected a path", where[i]);
		if (given)
			return vmb_usage(ctx, "--disk.%s and --disk.%s name two places to test; give one", given,
					 where[i]);
		given = where[i];
	}
	return 0;
}

static int disk_setup(struct vmb_ctx *ctx)
{
	struct disk_state *st = calloc(1, sizeof(*st));
	const char *engine = optset_str(ctx->opts, "engine"), *dev = optset_str(ctx->opts, "device");
	int r;

	if (!st)
		return vmb_fail(ctx, -ENOMEM, "disk state");
	ctx->priv = st;
	st->fd = -1;
	st->sectors_at_setup = -1;
	r = check_target_opts(ctx);
	if (r == 0)
		r = check_memory(ctx);
	if (r < 0)
		return r;
	st->buffered = optset_bool(ctx->opts, "buffered");
	st->size = optset_size(ctx->opts, "size");
	if (disk_iomem_parse(optset_str(ctx->opts, "iomem"), &st->iomem) < 0)
		return vmb_fail(ctx, -EINVAL, "--disk.iomem %s", optset_str(ctx->opts, "iomem"));
	if (st->iomem == DISK_IOMEM_MMAPHUGE) {
		size_t mapped = 0;
		void *p = disk_buffers(st->iomem, 1, 0, &mapped);

		if (!p)
			return vmb_skip(ctx, "--disk.iomem mmaphuge: %s", disk_iomem_why(st->iomem));
		disk_buffers_free(st->iomem, p, mapped);
	}
	if (st->iomem == DISK_IOMEM_THP) {
		/* madvise asks, the system setting decides: say when the answer is no */
		char thp[128];

		if (read_line_at("/", "/sys/kernel/mm/transparent_hugepage/enabled", thp, sizeof(thp)) < 0)
			(void)vmb_note(ctx, "iomem_thp", "no transparent huge pages in this kernel: the buffers are on "
				       "base pages");
		else if (strstr(thp, "[never]"))
			(void)vmb_note(ctx, "iomem_thp", "transparent huge pages are 'never' here: the buffers are on "
				       "base pages");
	}
	r = disk_engine_pick(ctx, engine, &st->engine);
	if (r < 0)
		return r;
	(void)vmb_note(ctx, "engine", "%s", st->engine->name);
	(void)vmb_note(ctx, "direct", "%s", st->buffered ? "false (page cache: these are not disk numbers)" : "true");
	r = dev ? open_device(ctx, st, dev) : create_file(ctx, st);
	if (r == 0 && !st->buffered)
		(void)vmb_note(ctx, "dio_align", "%u (%s)", st->align, st->align_source);
	/* what was measured, which for a device is not the option's default */
	if (r == 0)
		r = vmb_param_actual(ctx, "size", "%llu", (unsigned long long)st->size);
	if (r == 0 && st->sectors_at_setup < 0)
		st->sectors_at_setup = device_sectors_written(st);
	return r;
}

static void disk_teardown(struct vmb_ctx *ctx)
{
	struct disk_state *st = ctx->priv;

	if (!st)
		return;
	/* what the device behind the target received while the suite ran (in
	 * a lab guest, the lab divides the host's writes by it) */
	if (st->sectors_at_setup >= 0 && device_sectors_written(st) >= st->sectors_at_setup)
		(void)vmb_note(ctx, "device_write_bytes", "%lld",
			       (long long)(device_sectors_written(st) - st->sectors_at_setup) * 512);
	if (st->fd >= 0)
		close(st->fd);
	if (st->created)
		(void)vmb_tempfile_unlink(st->path);
	free(st);
	ctx->priv = NULL;
}

int disk_check_target(struct vmb_ctx *ctx, const struct disk_state *st)
{
	struct stat sb;

	if (!st->is_device && fstat(st->fd, &sb) == 0 && sb.st_nlink == 0)
		return vmb_fail(ctx, -ENOENT, "the test file %s was removed while the test ran", st->path);
	return 0;
}

static void report_cpu(struct vmb_rep *rep, double user, double sys, double window, uint64_t ios)
{
	vmb_rep_value(rep, "cpu_user_pct", VMB_UNIT_PCT, VMB_LOWER, 100 * user / window);
	vmb_rep_value(rep, "cpu_sys_pct", VMB_UNIT_PCT, VMB_LOWER, 100 * sys / window);
	if (user + sys > 0)
		vmb_rep_value(rep, "ios_per_cpu_s", VMB_UNIT_PER_S, VMB_HIGHER, (double)ios / (user + sys));
}

static int report_wa(struct vmb_ctx *ctx, struct vmb_rep *rep, const struct disk_state *st, int64_t before,
		     uint64_t app_bytes)
{
	int64_t after;

	if (before < 0 || app_bytes == 0)
		return 0;
	/* Whatever the device still has to write for this repetition. */
	if (fdatasync(st->fd) < 0)
		return vmb_fail(ctx, -errno, "fdatasync %s", st->path);
	after = device_sectors_written(st);
	if (after < before)
		return 0;
	vmb_rep_value(rep, "write_amplification", VMB_UNIT_RATIO, VMB_LOWER,
		      (double)(after - before) * 512.0 / (double)app_bytes);
	return 0;
}

/* --disk.log-interval: per window, as fio's IOPS and latency logs with
 * log_avg_msec, summed over the jobs: the I/Os completed in it / its
 * length, and their mean completion latency (none for a window without
 * one), at the window's end. */
static void report_log(struct vmb_rep *rep, const struct disk_job *dj, unsigned n, size_t nlog, double log_s)
{
	for (size_t w = 0; w < nlog; w++) {
		uint64_t ios = 0, lat = 0;

		for (unsigned i = 0; i < n; i++) {
			ios += dj[i].log[w].ios;
			lat += dj[i].log[w].lat_ns;
		}
		vmb_rep_point(rep, "iops", VMB_UNIT_PER_S, (double)(w + 1) * log_s, (double)ios / log_s);
		if (ios)
			vmb_rep_point(rep, "latency", VMB_UNIT_NS, (double)(w + 1) * log_s, (double)lat / (double)ios);
	}
}

/* randread, randwrite, randrw, seqread, seqwrite */
static int run_jobs(struct vmb_ctx *ctx, enum disk_kind kind, struct vmb_rep *rep)
{
	struct disk_state *st = ctx->priv;
	bool seq = kind == K_SEQREAD || kind == K_SEQWRITE;
	unsigned qd = seq ? (unsigned)optset_int(ctx->opts, "seq-iodepth") : ctx->sweep;
	unsigned jobs = (unsigned)optset_int(ctx->opts, "jobs");
	uint64_t bs = optset_size(ctx->opts, seq ? "seq-bs" : "bs");
	unsigned per_job = st->engine->queues ? 1 : qd, n = jobs * per_job;
	unsigned read_pct = kind == K_RANDREAD || kind == K_SEQREAD ? 100
			    : kind == K_RANDRW ? (unsigned)optset_int(ctx->opts, "rwmix") : 0;
	struct vmb_worker *workers = calloc(n, sizeof(*workers));
	struct disk_job *dj = calloc(n, sizeof(*dj));
	struct hist *rlat = hist_new(), *wlat = hist_new();
	double log_ms = optset_double(ctx->opts, "log-interval"), log_s = log_ms / 1000;
	/* whole windows only: a last, shorter one would not be comparable */
	double nwin = log_s > 0 ? ctx->duration_s / log_s + 1e-9 : 0;
	size_t nlog = 0;
	struct disk_logwin *logs = NULL;
	uint64_t start = UINT64_MAX, end = 0, reads = 0, writes = 0, written = 0;
	double user = 0, sys = 0, window;
	int64_t sectors_before = kind_writes(kind) ? device_sectors_written(st) : -1;
	int r;

	/* every job keeps its windows, and the series its points, until the
	 * repetition ends: a bound the user's options must fit */
	if (log_s > 0 && log_ms < 1) {
		r = vmb_usage(ctx, "--disk.log-interval %g: windows of 1 ms or more (fio's log_avg_msec counts whole "
			      "milliseconds), or 0 for none", log_ms);
		goto out;
	}
	if (nwin >= DISK_LOG_MAX_WINDOWS + 1.0) {
		r = vmb_usage(ctx, "--disk.log-interval %g: %.0f windows of %g ms in a repetition of %g s; at most %d "
			      "(each is kept until the repetition ends): a longer interval or a shorter --time", log_ms,
			      floor(nwin), log_ms, ctx->duration_s, DISK_LOG_MAX_WINDOWS);
		goto out;
	}
	nlog = (size_t)nwin;
	logs = nlog ? calloc((size_t)n * nlog, sizeof(*logs)) : NULL;
	if (!workers || !dj || !rlat || !wlat || (nlog && !logs)) {
		r = vmb_fail(ctx, -ENOMEM, "%u jobs", n);
		goto out;
	}
	if (bs > st->size) {
		r = vmb_fail(ctx, -EINVAL, "block size %llu is larger than the target (%llu bytes)",
			     (unsigned long long)bs, (unsigned long long)st->size);
		goto out;
	}
	st->reps++;
	for (unsigned i = 0; i < n; i++) {
		dj[i] = (struct disk_job){
			.fd = st->fd, .size = st->size, .bs = bs, .iomem = st->iomem, .random = !seq,
			.read_pct = read_pct,
			.iodepth = st->engine->queues ? qd : 1,
			.ramp_s = optset_double(ctx->opts, "ramp"), .duration_s = ctx->duration_s,
			.seed = 0x243f6a8885a308d3ull * (st->reps * 1024 + i + 1),
			/* sequential streams start spread over the target */
			.start_block = (uint64_t)i * (st->size / bs) / n,
			.log_ns = (uint64_t)(log_s * NSEC_PER_SEC), .log = logs ? logs + (size_t)i * nlog : NULL,
			.nlog = nlog,
		};
		workers[i].arg = &dj[i];
	}
	r = vmb_parallel(ctx, n, st->engine->run, workers);
	if (r < 0) {
		if (!ctx->reason[0]) /* vmb_parallel says which worker and CPU */
			r = vmb_fail(ctx, r, "starting %u I/O workers", n);
		goto out;
	}
	for (unsigned i = 0; i < n; i++)
		if (dj[i].err) {
			/* the job's message already carries the errno text */
			snprintf(ctx->reason, sizeof(ctx->reason), "%s", dj[i].errmsg);
			r = dj[i].err;
			goto out;
		}
	r = disk_check_target(ctx, st);
	if (r < 0)
		goto out;
	for (unsigned i = 0; i < n; i++) {
		if (dj[i].start_ns < start)
			start = dj[i].start_ns;
		if (dj[i].end_ns > end)
			end = dj[i].end_ns;
		reads += dj[i].reads;
		writes += dj[i].writes;
		written += dj[i].written_total;
		user += dj[i].cpu_user_s;
		sys += dj[i].cpu_sys_s;
		hist_merge(rlat, &dj[i].rlat);
		hist_merge(wlat, &dj[i].wlat);
	}
	window = (double)(end - start) / NSEC_PER_SEC;
	if (reads + writes == 0 || window <= 0) {
		r = vmb_fail(ctx, -EIO, "no I/O completed in %.2f s", ctx->duration_s);
		goto out;
	}
	vmb_rep_value(rep, "iops", VMB_UNIT_PER_S, VMB_HIGHER, (double)(reads + writes) / window);
	vmb_rep_value(rep, "mb_per_s", VMB_UNIT_MB_PER_S, VMB_HIGHER, (double)(reads + writes) * (double)bs / window / 1e6);
	if (kind == K_RANDRW) {
		vmb_rep_value(rep, "read_iops", VMB_UNIT_PER_S, VMB_HIGHER, (double)reads / window);
		vmb_rep_value(rep, "write_iops", VMB_UNIT_PER_S, VMB_HIGHER, (double)writes / window);
		if (rlat->count)
			vmb_rep_hist(rep, "read_latency", VMB_UNIT_NS, rlat);
		if (wlat->count)
			vmb_rep_hist(rep, "write_latency", VMB_UNIT_NS, wlat);
	} else {
		vmb_rep_hist(rep, "latency", VMB_UNIT_NS, read_pct ? rlat : wlat);
	}
	report_cpu(rep, user, sys, window, reads + writes);
	report_log(rep, dj, n, nlog, log_s);
	r = report_wa(ctx, rep, st, sectors_before, written);
out:
	free(logs);
	free(workers);
	free(dj);
	hist_free(rlat);
	hist_free(wlat);
	return r;
}

int disk_may_write(struct vmb_ctx *ctx)
{
	const struct disk_state *st = ctx->priv;

	if (st->is_device && !ctx->env->destructive)
		return vmb_skip(ctx, "writing to %s would destroy its data; pass --destructive to allow it", st->path);
	return 0;
}

static int disk_run_randread(struct vmb_ctx *ctx, const struct vmb_test *test, struct vmb_rep *rep)
{
	(void)test;
	return run_jobs(ctx, K_RANDREAD, rep);
}

static int disk_run_randwrite(struct vmb_ctx *ctx, const struct vmb_test *test, struct vmb_rep *rep)
{
	int r = disk_may_write(ctx);

	(void)test;
	return r < 0 ? r : run_jobs(ctx, K_RANDWRITE, rep);
}

static int disk_run_randrw(struct vmb_ctx *ctx, const struct vmb_test *test, struct vmb_rep *rep)
{
	int r = disk_may_write(ctx);

	(void)test;
	return r < 0 ? r : run_jobs(ctx, K_RANDRW, rep);
}

static int disk_run_seqread(struct vmb_ctx *ctx, const struct vmb_test *test, struct vmb_rep *rep)
{
	(void)test;
	return run_jobs(ctx, K_SEQREAD, rep);
}

static int disk_run_seqwrite(struct vmb_ctx *ctx, const struct vmb_test *test, struct vmb_rep *rep)
{
	int r = disk_may_write(ctx);

	(void)test;
	return r < 0 ? r : run_jobs(ctx, K_SEQWRITE, rep);
}

static const struct vmb_test disk_tests[] = {
	{ .name = "randread", .summary = "random reads of --disk.bs at each --disk.iodepth (fio randread)",
	  .headline = "iops", .sweep = "iodepth", .params = "bs,jobs,size,buffered,iomem",
	  .run = disk_run_randread },
	{ .name = "randwrite", .summary = "random writes (fio randwrite)",
	  .headline = "iops", .sweep = "iodepth", .params = "bs,jobs,size,buffered,iomem",
	  .run = disk_run_randwrite },
	{ .name = "randrw", .summary = "random reads and writes, --disk.rwmix % reads (fio randrw)",
	  .headline = "iops", .sweep = "iodepth", .params = "bs,jobs,size,buffered,rwmix,iomem",
	  .run = disk_run_randrw },
	{ .name = "seqread", .summary = "sequential reads of --disk.seq-bs (fio read)",
	  .headline = "mb_per_s", .params = "seq-bs,seq-iodepth,jobs,size,buffered,iomem",
	  .run = disk_run_seqread },
	{ .name = "seqwrite", .summary = "sequential writes (fio write)",
	  .headline = "mb_per_s", .params = "seq-bs,seq-iodepth,jobs,size,buffered,iomem",
	  .run = disk_run_seqwrite },
	{ .name = "iozone", .summary = "write, rewrite, read, reread of a new file (iozone -i 0 -i 1 -e)",
	  .headline = "write_mb_per_s,rewrite_mb_per_s,read_mb_per_s,reread_mb_per_s",
	  .params = "file-size,record-size,flush,buffered,iomem", .flags = VMB_TEST_ON_FS | VMB_TEST_UNTIMED,
	  .run = disk_run_iozone },
	{ .name = "fsync", .summary = "4k write + fdatasync loop: syncs/s and their latency",
	  .headline = "syncs_per_s", .run = disk_run_fsync },
	{ .name = NULL },
};

static const struct vmb_opt disk_opts[] = {
	{ .name = "dir", .type = OPT_STRING, .def = ".", .metavar = "DIR",
	  .help = "where the test file is created (a new, uniquely named file, removed afterwards)" },
	{ .name = "file", .type = OPT_STRING, .metavar = "PATH",
	  .help = "create the test file at PATH instead; refused if PATH exists" },
	{ .name = "device", .type = OPT_STRING, .metavar = "/dev/X",
	  .help = "test a block device: read tests only, unless --destructive" },
	{ .name = "size", .type = OPT_SIZE, .min = 1 << 20, .max = 1ull << 50, .def = "1g", .quick = "256m",
	  .metavar = "SIZE", .help = "size of the test file (the default below); with --disk.device, how much of the "
				     "device is tested, all of it unless given" },
	{ .name = "bs", .type = OPT_SIZE, .min = 512, .max = 64 << 20, .def = "4k", .metavar = "SIZE",
	  .help = "block size of the random tests" },
	{ .name = "seq-bs", .type = OPT_SIZE, .min = 512, .max = 64 << 20, .def = "1m", .metavar = "SIZE",
	  .help = "block size of the sequential tests" },
	{ .name = "iodepth", .type = OPT_LIST, .min = 1, .max = 4096, .def = "1,4,8,16,32", .quick = "1,32",
	  .metavar = "LIST", .help = "queue depths swept by the random tests (per job)" },
	{ .name = "seq-iodepth", .type = OPT_INT, .min = 1, .max = 4096, .def = "8", .metavar = "N",
	  .help = "queue depth of the sequential tests (per job)" },
	{ .name = "jobs", .type = OPT_INT, .min = 1, .max = 256, .def = "1", .metavar = "N",
	  .help = "parallel jobs, each with its own queue (fio numjobs)" },
	{ .name = "rwmix", .type = OPT_INT, .min = 0, .max = 100, .def = "50", .metavar = "PCT",
	  .help = "randrw: percentage of reads (fio rwmixread)" },
	{ .name = "ramp", .type = OPT_DOUBLE, .min = 0, .max = 3600, .def = "0.5", .quick = "0.1",
	  .rep_overhead = true, .metavar = "SECONDS", .help = "I/O before each repetition's measured window, not counted (fio ramp_time)" },
	{ .name = "log-interval", .type = OPT_DOUBLE, .min = 0, .max = 3600000, .def = "0", .metavar = "MS",
	  .help = "randread, randwrite, randrw, seqread, seqwrite: keep IOPS and mean latency per window of MS "
		  "milliseconds as series (fio's log_avg_msec with write_iops_log and write_lat_log); 0: none, as "
		  "fio logs only when asked; else at least 1, and at most a million windows a repetition" },
	{ .name = "buffered", .type = OPT_BOOL, .neutral = true,
	  .help = "go through the page cache instead of O_DIRECT (the result then says so)" },
	{ .name = "iomem", .type = OPT_STRING, .def = "malloc", .neutral = true, .choices = "malloc|mmap|mmaphuge|thp",
	  .metavar = "KIND", .help = "what backs the I/O buffers, as fio --iomem: malloc (fio's default), mmap, "
				     "mmaphuge (reserved hugetlb pages), thp (transparent huge pages: a large "
				     "request is not split)" },
	{ .name = "engine", .type = OPT_STRING, .def = "auto", .choices = "auto|io_uring|psync", .metavar = "NAME",
	  .help = "io_uring, or psync (pread/pwrite threads, queue depth = threads); auto: io_uring when it works" },
	{ .name = "file-size", .type = OPT_SIZE, .min = 4096, .max = 1ull << 50, .def = "512m", .quick = "64m",
	  .metavar = "SIZE", .help = "iozone: size of the file written and read (iozone -s)" },
	{ .name = "record-size", .type = OPT_SIZE, .min = 4096, .max = 64 << 20, .def = "1m", .metavar = "SIZE",
	  .help = "iozone: transfer size (iozone -r)" },
	{ .name = "flush", .type = OPT_STRING, .def = "timed", .neutral = true, .choices = "timed|untimed",
	  .metavar = "WHEN", .help = "iozone: the write passes' fsync inside their time (iozone -e), or after the clock "
				     "stops (iozone without -e: what the file system buffered is not timed)" },
	OPT_TABLE_END,
};

const struct vmb_suite disk_suite = {
	.name = "disk",
	.summary = "storage: fio-style random/sequential I/O, iozone write/read, fsync latency",
	.abi = VMB_SUITE_ABI,
	.tests = disk_tests,
	.opts = disk_opts,
	.setup = disk_setup,
	.teardown = disk_teardown,
	.scratch = &(const struct vmb_scratch){ .device_opt = "device", .size_opt = "size", .dir_opt = "dir" },
};
