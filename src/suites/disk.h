/* Storage suite internals shared by disk.c (the suite) and disk_io.c (the
 * I/O pattern generator and the io_uring and pread/pwrite engines). */
#ifndef VMB_DISK_H
#define VMB_DISK_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>

#include "../core/hist.h"
#include "../core/suite.h"

/* Offsets: sequential, or random over every block exactly once per cycle
 * (like fio's default random map, but without memory: a full-period LCG
 * over the next power of two, scrambled by a bijection, skipping values
 * past the end). Always aligned to bs, always inside [0, size - bs]. */
struct disk_pattern {
	uint64_t nblocks, bs;
	bool random;
	uint64_t mask, bits, x, seq;
	uint64_t rng; /* for the read/write mix */
};

void disk_pattern_init(struct disk_pattern *p, uint64_t size, uint64_t bs, bool random, uint64_t seed,
		       uint64_t start_block);
uint64_t disk_pattern_next(struct disk_pattern *p);
/* true with probability read_pct / 100 */
bool disk_pattern_read(struct disk_pattern *p, unsigned read_pct);


/* What backs the I/O buffers (fio --iomem): malloc (fio's default, page
 * aligned), mmap, mmaphuge (hugetlb pages, MAP_HUGETLB), thp (MADV_HUGEPAGE) */
enum disk_iomem { DISK_IOMEM_MALLOC, DISK_IOMEM_MMAP, DISK_IOMEM_MMAPHUGE, DISK_IOMEM_THP };

/* 0 and *out, or -EINVAL for a name that is not a kind */
int disk_iomem_parse(const char *name, enum disk_iomem *out);
/* why an allocation of this kind failed, for the message */
const char *disk_iomem_why(enum disk_iomem kind);
/* n bytes (rounded up to the kind's page; *mapped says to what) filled with
 * random bytes; NULL when the kind cannot give them */
void *disk_buffers(enum disk_iomem kind, size_t n, uint64_t seed, size_t *mapped);
void disk_buffers_free(enum disk_iomem kind, void *p, size_t mapped);

/* One job: a worker with its own queue (io_uring) or one synchronous
 * stream (psync, where a job of depth D is D such workers). */
/* --disk.log-interval: at most this many windows in a repetition (each job
 * keeps them in memory until it ends) */
#define DISK_LOG_MAX_WINDOWS 1000000

/* The files the suite makes in --disk.dir: PREFIX PID-XXXXXX, so that the
 * next run removes those a killed one left (src/core/reclaim.h) */
#define DISK_FILE_PREFIX "vmbench-disk-"
#define DISK_IOZONE_PREFIX "vmbench-iozone-"

struct disk_job {
	/* in */
	int fd;
	uint64_t size, bs;
	enum disk_iomem iomem;
	unsigned iodepth;
	bool random;
	unsigned read_pct; /* 100 read, 0 write, else the mix */
	double ramp_s, duration_s;
	uint64_t seed, start_block;
	/* out: the measured window only */
	uint64_t reads, writes;
	uint64_t written_total; /* bytes, ramp included: for write amplification */
	uint64_t start_ns, end_ns;
	double cpu_user_s, cpu_sys_s;
	struct hist rlat, wlat;
	/* --disk.log-interval (fio's log_avg_msec): completions and their
	 * latency per window of log_ns from the measured window's start; nlog
	 * windows (the caller's array), the I/O after the last one not logged */
	uint64_t log_ns;
	struct disk_logwin {
		uint64_t ios, lat_ns;
	} *log;
	size_t nlog, log_at;
	uint64_t log_next;
	int err;
	char errmsg[160];
};

/* The smallest power of two from 512 to 64 KiB that an O_DIRECT transfer at
 * offset 0 of fd is accepted with: a read, or with may_write a write (on a
 * new file of our own, which it extends). For filesystems that statx cannot
 * ask (STATX_DIOALIGN). 0, or a negative errno. */
int disk_dio_probe(int fd, bool may_write, unsigned *align);

/* 0 when io_uring can be used here; else a negative errno and why. */
int disk_uring_probe(char *why, size_t len);
void disk_uring_job(struct vmb_worker *w);
void disk_psync_job(struct vmb_worker *w);

/* An I/O engine, as fio's ioengine_ops: a row per engine, in the order
 * --disk.engine auto tries them; the last one works everywhere. Each job
 * runs the engine's own submit-and-reap loop (run): io_uring keeps a queue
 * of the whole depth per job, a synchronous engine is one I/O at a time, so
 * that a depth of D is D jobs (queues false). */
struct disk_engine {
	const char *name;
	/* 0 when it works here; else a negative errno and why (NULL: always) */
	int (*probe)(char *why, size_t len);
	bool queues;
	void (*run)(struct vmb_worker *w);
};
extern const struct disk_engine disk_engines[];
extern const size_t disk_nengines;
/* The row named name, or NULL. */
const struct disk_engine *disk_engine_find(const char *name);
/* --disk.engine name: its row, or (auto) the first that works here, with
 * a note of why the ones before it did not; a named engine that does not
 * work here skips the suite. 0 with *out set, or a negative errno. */
int disk_engine_pick(struct vmb_ctx *ctx, const char *name, const struct disk_engine **out);

/* ---- shared by disk.c (set-up, fio-style tests) and disk_seq.c ---- */

/* What disk_setup() made: the target every test uses. */
struct disk_state {
	char path[PATH_MAX]; /* the test file we created, or the device */
	bool created, is_device, buffered;
	int fd;              /* O_DIRECT unless --disk.buffered */
	uint64_t size;       /* the region the tests use */
	const struct disk_engine *engine;
	enum disk_iomem iomem;
	char stat_path[PATH_MAX]; /* /sys/dev/block/M:m/stat behind the target, or "" */
	int64_t sectors_at_setup; /* its sectors written before the suite wrote, -1: unknown */
	char dir[PATH_MAX];
	unsigned reps;
	unsigned align;           /* what O_DIRECT needs of offsets and lengths; 1 when buffered */
	const char *align_source; /* where align came from, for the message */
};

/* A test file that disappeared under us would make every later number a
 * lie: 0, or a failure with the reason. */
int disk_check_target(struct vmb_ctx *ctx, const struct disk_state *st);
/* A test that writes may not run on a device the user did not give up:
 * 0, or a skip with the reason. */
int disk_may_write(struct vmb_ctx *ctx);
vmb_test_fn disk_run_iozone;
/* the end of an iozone pass's time: flushed when a write pass's fsync is
 * timed (--disk.flush timed, iozone -e), else written */
uint64_t disk_iozone_end(bool wr, bool flush_timed, uint64_t written, uint64_t flushed);
vmb_test_fn disk_run_fsync;

#endif
