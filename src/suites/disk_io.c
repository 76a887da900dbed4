/* Storage suite: the I/O pattern generator, the two engines and their table.
 *
 * The hot loops allocate nothing, log nothing, and read the clock once per
 * completion batch (io_uring) or once per I/O (psync); latency is from just
 * before submission to completion (fio's "lat" = slat + clat). */
#include <errno.h>
#include <liburing.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#include "disk.h"
#include "../core/clock.h"
#include "../core/banned.h"

/* ---- pattern ---- */

static uint64_t splitmix(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

void disk_pattern_init(struct disk_pattern *p, uint64_t size, uint64_t bs, bool random, uint64_t seed,
		       uint64_t start_block)
{
	memset(p, 0, sizeof(*p));
	p->bs = bs;
	p->nblocks = size / bs ? size / bs : 1;
	p->random = random;
	p->rng = seed;
	p->bits = 1;
	while ((1ull << p->bits) < p->nblocks && p->bits < 63)
		p->bits++;
	p->mask = (1ull << p->bits) - 1;
	p->x = splitmix(&p->rng) & p->mask;
	p->seq = start_block % p->nblocks;
}

/* A bijection on [0, 2^bits): xor-shift and odd multiply, each invertible
 * modulo 2^bits, so a full cycle of x visits every block once. */
static uint64_t scramble(uint64_t v, uint64_t bits, uint64_t mask)
{
	uint64_t h = bits / 2 ? bits / 2 : 1;

	v ^= v >> h;
	v = (v * 0x9e3779b97f4a7c15ull) & mask;
	v ^= v >> h;
	v = (v * 0xc2b2ae3d27d4eb4full) & mask;
	v ^= v >> h;
	return v;
}

uint64_t disk_pattern_next(struct disk_pattern *p)
{
	uint64_t b;

	if (!p->random) {
		b = p->seq;
		p->seq = p->seq + 1 == p->nblocks ? 0 : p->seq + 1;
		return b * p->bs;
	}
	/* x -> 5x + 1 mod 2^bits has full period (Hull-Dobell); at most half of
	 * the values are past the end, so the loop runs twice on average. */
	do {
		p->x = (p->x * 5 + 1) & p->mask;
		b = scramble(p->x, p->bits, p->mask);
	} while (b >= p->nblocks);
	return b * p->bs;
}

bool disk_pattern_read(struct disk_pattern *p, unsigned read_pct)
{
	if (read_pct >= 100)
		return true;
	if (read_pct == 0)
		return false;
	return splitmix(&p->rng) % 100 < read_pct;
}

/* ---- shared ---- */

static double tv_s(struct timeval tv)
{
	return (double)tv.tv_sec + (double)tv.tv_usec / 1e6;
}

struct cpu_mark {
	struct rusage ru;
};

static void cpu_mark(struct cpu_mark *m)
{
	(void)getrusage(RUSAGE_THREAD, &m->ru);
}

static void cpu_account(struct disk_job *j, const struct cpu_mark *from)
{
	struct rusage now;

	(void)getrusage(RUSAGE_THREAD, &now);
	j->cpu_user_s = tv_s(now.ru_utime) - tv_s(from->ru.ru_utime);
	j->cpu_sys_s = tv_s(now.ru_stime) - tv_s(from->ru.ru_stime);
}

#define HUGE_2M (2u << 20)

/* I/O buffers, fio's --iomem kinds. What backs a buffer decides how many
 * scatter-gather segments a large transfer needs: with 4 KiB pages a 1 MiB
 * request needs 256, and a disk whose queue allows fewer (a virtio disk
 * here allows 254) gets it split in two; in one 2 MiB page it is a single
 * segment. So the kind is part of what is measured (a test parameter), and
 * the default is fio's. */
static void *alloc_malloc(size_t len)
{
	void *p = NULL;
	long page = sysconf(_SC_PAGESIZE);

	/* page-aligned heap memory, as fio aligns its malloc'ed buffers */
	return posix_memalign(&p, page > 0 ? (size_t)page : 4096, len) == 0 ? p : NULL;
}

static void free_malloc(void *p, size_t len)
{
	(void)len;
	free(p);
}

static void *alloc_mmap(size_t len)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

static void free_mmap(void *p, size_t len)
{
	(void)munmap(p, len);
}

/* hugetlb pages, as fio's mmaphuge without a file: MAP_HUGETLB, which needs
 * pages reserved beforehand (vm.nr_hugepages) */
static void *alloc_mmaphuge(size_t len)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

/* 2 MiB-aligned anonymous memory with MADV_HUGEPAGE: transparent huge pages
 * where the kernel has them, no reservation needed (fio has no such kind) */
static void *alloc_thp(size_t len)
{
	char *p = mmap(NULL, len + HUGE_2M, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char *aligned;

	if (p == MAP_FAILED)
		return NULL;
	/* keep the 2 MiB-aligned part, give the rest back */
	aligned = (char *)(((uintptr_t)p + HUGE_2M - 1) & ~(uintptr_t)(HUGE_2M - 1));
	if (aligned > p)
		(void)munmap(p, (size_t)(aligned - p));
	if (aligned + len < p + len + HUGE_2M)
		(void)munmap(aligned + len, (size_t)(p + len + HUGE_2M - (aligned + len)));
	(void)madvise(aligned, len, MADV_HUGEPAGE);
	return aligned;
}

static const struct iomem_kind {
	const char *name;
	size_t round; /* lengths are rounded up to this */
	void *(*alloc)(size_t len);
	void (*release)(void *p, size_t len);
	const char *help; /* why an allocation of this kind fails */
} iomem_kinds[] = {
	[DISK_IOMEM_MALLOC] = { "malloc", 1, alloc_malloc, free_malloc, "out of memory" },
	[DISK_IOMEM_MMAP] = { "mmap", 1, alloc_mmap, free_mmap, "out of memory" },
	[DISK_IOMEM_MMAPHUGE] = { "mmaphuge", HUGE_2M, alloc_mmaphuge, free_mmap,
				  "not enough free hugetlb pages: see HugePages_Free in /proc/meminfo, reserve "
				  "more with sysctl vm.nr_hugepages=N, or use --disk.iomem thp" },
	[DISK_IOMEM_THP] = { "thp", HUGE_2M, alloc_thp, free_mmap, "out of memory" },
};

int disk_iomem_parse(const char *name, enum disk_iomem *out)
{
	for (size_t i = 0; i < sizeof(iomem_kinds) / sizeof(iomem_kinds[0]); i++)
		if (!strcmp(iomem_kinds[i].name, name)) {
			*out = (enum disk_iomem)i;
			return 0;
		}
	return -EINVAL;
}

const char *disk_iomem_why(enum disk_iomem kind)
{
	return iomem_kinds[kind].help;
}

/* Writes carry random bytes so that no layer can compress or deduplicate
 * them into a faster path; filling them also faults every page in before
 * the measured window. */
void *disk_buffers(enum disk_iomem kind, size_t n, uint64_t seed, size_t *mapped)
{
	const struct iomem_kind *k = &iomem_kinds[kind];
	size_t len = (n + k->round - 1) / k->round * k->round;
	char *p = k->alloc(len);

	if (!p)
		return NULL;
	for (size_t i = 0; i + 8 <= len; i += 8) {
		uint64_t v = splitmix(&seed);

		memcpy(p + i, &v, 8);
	}
	*mapped = len;
	return p;
}

void disk_buffers_free(enum disk_iomem kind, void *p, size_t mapped)
{
	if (p)
		iomem_kinds[kind].release(p, mapped);
}

static void job_reset(struct disk_job *j, uint64_t now)
{
	j->reads = j->writes = 0;
	hist_init(&j->rlat);
	hist_init(&j->wlat);
	j->start_ns = j->end_ns = now;
	if (j->nlog)
		memset(j->log, 0, j->nlog * sizeof(*j->log));
	j->log_at = 0;
	j->log_next = now + j->log_ns;
}

/* One measured completion into its log window: a compare per I/O, no
 * division, and nothing at all without --disk.log-interval. */
static inline void job_log(struct disk_job *j, uint64_t now, uint64_t lat_ns)
{
	if (!j->nlog)
		return;
	while (now >= j->log_next && j->log_at < j->nlog) {
		j->log_at++;
		j->log_next += j->log_ns;
	}
	if (j->log_at < j->nlog) {
		j->log[j->log_at].ios++;
		j->log[j->log_at].lat_ns += lat_ns;
	}
}

static void io_error(struct disk_job *j, bool rd, uint64_t off, int res)
{
	if (j->err)
		return;
	if (res < 0) {
		j->err = res;
		snprintf(j->errmsg, sizeof(j->errmsg), "%s of %llu bytes at offset %llu: %s", rd ? "read" : "write",
			 (unsigned long long)j->bs, (unsigned long long)off, strerror(-res));
	} else {
		j->err = -EIO;
		snprintf(j->errmsg, sizeof(j->errmsg), "short %s at offset %llu: %d of %llu bytes",
			 rd ? "read" : "write", (unsigned long long)off, res, (unsigned long long)j->bs);
	}
}

/* ---- io_uring ---- */

/* A ring that can be made but not entered is refused too: some seccomp
 * profiles let io_uring_setup through and refuse io_uring_enter, and the
 * first I/O would fail instead of the engine falling back. */
int disk_uring_probe(char *why, size_t len)
{
	struct io_uring ring;
	struct io_uring_sqe *sqe;
	struct io_uring_cqe *cqe;
	int r = io_uring_queue_init(2, &ring, 0);

	if (r < 0) {
		snprintf(why, len, "io_uring is unavailable here (%s)", strerror(-r));
		return r;
	}
	sqe = io_uring_get_sqe(&ring);
	if (!sqe) {
		r = -EBUSY;
	} else {
		io_uring_prep_nop(sqe);
		r = io_uring_submit_and_wait(&ring, 1);
		if (r >= 0 && io_uring_peek_cqe(&ring, &cqe) == 0) {
			r = cqe->res < 0 ? cqe->res : 0;
			io_uring_cqe_seen(&ring, cqe);
		} else if (r >= 0) {
			r = -EIO;
		}
	}
	if (r < 0)
		snprintf(why, len, "io_uring is unavailable here (a no-op request: %s)", strerror(-r));
	io_uring_queue_exit(&ring);
	return r < 0 ? r : 0;
}

#define REAP_BATCH 1

struct slot {
	uint64_t off, sub_ns;
	bool rd;
};

static void uring_prep(struct io_uring *ring, struct disk_job *j, struct disk_pattern *pat, char *buf,
		       struct slot *s, unsigned idx, bool fixed, uint64_t now)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(ring);

	s->off = disk_pattern_next(pat);
	s->rd = disk_pattern_read(pat, j->read_pct);
	s->sub_ns = now;
	/* The ring has iodepth entries and at most iodepth are in flight. */
	if (fixed) {
		if (s->rd)
			io_uring_prep_read_fixed(sqe, 0, buf, (unsigned)j->bs, s->off, (int)idx);
		else
			io_uring_prep_write_fixed(sqe, 0, buf, (unsigned)j->bs, s->off, (int)idx);
		sqe->flags |= IOSQE_FIXED_FILE;
	} else if (s->rd) {
		io_uring_prep_read(sqe, j->fd, buf, (unsigned)j->bs, s->off);
	} else {
		io_uring_prep_write(sqe, j->fd, buf, (unsigned)j->bs, s->off);
	}
	io_uring_sqe_set_data64(sqe, idx);
}

/* The job's ring of depth j->iodepth, with bufs (its iodepth buffers)
 * registered when the kernel allows (*fixed). 0, or a negative errno with
 * j->err and j->errmsg set. */
static int uring_open(struct disk_job *j, struct io_uring *ring, char *bufs, struct iovec *iov, bool *fixed)
{
	unsigned qd = j->iodepth;
	int r;

	/* DEFER_TASKRUN: completions are run by this thread when it waits in
	 * io_uring_enter, not by an interrupting task-work IPI; here it cut the
	 * depth-1 latency by about 10% and changed nothing at depth 32.
	 * Older kernels refuse the flags (6.1, 6.0): fall back. */
	r = io_uring_queue_init(qd, ring, IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN);
	if (r == -EINVAL)
		r = io_uring_queue_init(qd, ring, IORING_SETUP_SINGLE_ISSUER);
	if (r == -EINVAL)
		r = io_uring_queue_init(qd, ring, 0);
	if (r < 0) {
		j->err = r;
		snprintf(j->errmsg, sizeof(j->errmsg), "io_uring_queue_init(depth=%u): %s", qd, strerror(-r));
		return r;
	}
	for (unsigned i = 0; i < qd; i++) {
		iov[i].iov_base = bufs + (size_t)i * j->bs;
		iov[i].iov_len = j->bs;
	}
	/* Registered buffers and file save a page pin and an fget per I/O; a
	 * small RLIMIT_MEMLOCK can refuse them, and the plain path still works. */
	*fixed = io_uring_register_buffers(ring, iov, qd) == 0 && io_uring_register_files(ring, &j->fd, 1) == 0;
	return 0;
}

void disk_uring_job(struct vmb_worker *w)
{
	struct disk_job *j = w->arg;
	unsigned qd = j->iodepth;
	struct io_uring ring;
	struct io_uring_cqe **cqes = NULL;
	struct iovec *iov = NULL;
	struct slot *slots = NULL;
	struct disk_pattern pat;
	struct cpu_mark cpu;
	char *bufs = NULL;
	size_t mapped = 0;
	bool ring_ok = false, fixed = false, measuring;
	unsigned inflight = 0;
	uint64_t now, ramp_end, deadline;
	int r;

	/* Set-up, outside the measured window. */
	disk_pattern_init(&pat, j->size, j->bs, j->random, j->seed, j->start_block);
	bufs = disk_buffers(j->iomem, (size_t)qd * j->bs, j->seed, &mapped);
	slots = calloc(qd, sizeof(*slots));
	cqes = calloc(REAP_BATCH, sizeof(*cqes));
	iov = calloc(qd, sizeof(*iov));
	if (!bufs || !slots || !cqes || !iov) {
		j->err = -ENOMEM;
		snprintf(j->errmsg, sizeof(j->errmsg), "%u buffers of %llu bytes (--disk.iomem %s): %s", qd,
			 (unsigned long long)j->bs, iomem_kinds[j->iomem].name,
			 bufs ? "out of memory" : disk_iomem_why(j->iomem));
		goto sync;
	}
	r = uring_open(j, &ring, bufs, iov, &fixed);
	if (r < 0)
		goto sync;
	ring_ok = true;
sync:
	vmb_worker_sync(w);
	if (j->err)
		goto out;

	now = clock_ns();
	ramp_end = now + (uint64_t)(j->ramp_s * NSEC_PER_SEC);
	deadline = ramp_end + (uint64_t)(j->duration_s * NSEC_PER_SEC);
	measuring = j->ramp_s <= 0;
	job_reset(j, now);
	cpu_mark(&cpu);
	for (unsigned i = 0; i < qd; i++)
		uring_prep(&ring, j, &pat, bufs + (size_t)i * j->bs, &slots[i], i, fixed, now);
	/* A request's latency runs from its submission, after its preparation,
	 * as fio's start_time (stamped after td_io_prep, before the queue):
	 * from the completion that freed its slot, it also held the work of
	 * reaping that one and preparing this one, which fio's does not. */
	now = clock_ns();
	for (unsigned i = 0; i < qd; i++)
		slots[i].sub_ns = now;
	inflight = qd;
	while (inflight) {
		unsigned n, nprep = 0, prepped[REAP_BATCH];
		bool stop;

		r = io_uring_submit_and_wait(&ring, 1);
		if (r < 0 && r != -EINTR && r != -EAGAIN && r != -EBUSY) {
			io_error(j, true, 0, r);
			break;
		}
		now = clock_ns();
		if (!measuring && now >= ramp_end) {
			/* The window opens at ramp_end, not at this poll: after a device
			 * stall that outlasts the ramp, the completions reaped now would
			 * otherwise be divided by a window of microseconds. */
			measuring = true;
			job_reset(j, ramp_end);
			cpu_mark(&cpu);
		}
		stop = now >= deadline || vmb_stop_requested() || j->err;
		/* One completion, then its replacement is submitted by the next
		 * io_uring_enter, as fio does by default (iodepth_batch_complete_max
		 * = 1). Reaping every ready completion first and resubmitting them
		 * in one burst costs fewer syscalls but, on a virtio disk here, 15%
		 * of the IOPS at depth 32 (fio shows the same with a batch of 32). */
		n = io_uring_peek_batch_cqe(&ring, cqes, REAP_BATCH);
		for (unsigned k = 0; k < n; k++) {
			unsigned idx = (unsigned)io_uring_cqe_get_data64(cqes[k]);
			struct slot *s = &slots[idx];
			int res = cqes[k]->res;

			inflight--;
			if (res != (int)j->bs) {
				io_error(j, s->rd, s->off, res);
				stop = true;
				continue;
			}
			if (!s->rd)
				j->written_total += j->bs;
			if (measuring) {
				hist_record(s->rd ? &j->rlat : &j->wlat, now - s->sub_ns);
				job_log(j, now, now - s->sub_ns);
				if (s->rd)
					j->reads++;
				else
					j->writes++;
				j->end_ns = now;
			}
			if (!stop) {
				uring_prep(&ring, j, &pat, bufs + (size_t)idx * j->bs, s, idx, fixed, now);
				prepped[nprep++] = idx;
				inflight++;
			}
		}
		io_uring_cq_advance(&ring, n);
		/* submitted by the io_uring_enter at the loop's head */
		if (nprep) {
			now = clock_ns();
			for (unsigned k = 0; k < nprep; k++)
				slots[prepped[k]].sub_ns = now;
		}
	}
	cpu_account(j, &cpu);
	w->start_ns = j->start_ns;
	w->end_ns = j->end_ns;
out:
	/* The ring's own teardown runs in the kernel after close returns, and
	 * holds a registered file until then: a device opened O_EXCL would stay
	 * busy for the next run (a second vmbench on it failed with EBUSY).
	 * Unregistering first drops that reference before the job ends. */
	if (ring_ok && fixed)
		(void)io_uring_unregister_files(&ring);
	if (ring_ok)
		io_uring_queue_exit(&ring);
	disk_buffers_free(j->iomem, bufs, mapped);
	free(slots);
	free(cqes);
	free(iov);
}

/* ---- psync: one synchronous stream per worker ---- */

void disk_psync_job(struct vmb_worker *w)
{
	struct disk_job *j = w->arg;
	struct disk_pattern pat;
	struct cpu_mark cpu;
	char *buf;
	size_t mapped = 0;
	uint64_t prev, ramp_end, deadline;
	bool measuring;

	disk_pattern_init(&pat, j->size, j->bs, j->random, j->seed, j->start_block);
	buf = disk_buffers(j->iomem, j->bs, j->seed, &mapped);
	if (!buf) {
		j->err = -ENOMEM;
		snprintf(j->errmsg, sizeof(j->errmsg), "a buffer of %llu bytes (--disk.iomem %s): %s",
			 (unsigned long long)j->bs, iomem_kinds[j->iomem].name, disk_iomem_why(j->iomem));
	}
	vmb_worker_sync(w);
	if (j->err)
		goto out;
	prev = clock_ns();
	ramp_end = prev + (uint64_t)(j->ramp_s * NSEC_PER_SEC);
	deadline = ramp_end + (uint64_t)(j->duration_s * NSEC_PER_SEC);
	measuring = j->ramp_s <= 0;
	job_reset(j, prev);
	cpu_mark(&cpu);
	for (;;) {
		uint64_t off = disk_pattern_next(&pat), now;
		bool rd = disk_pattern_read(&pat, j->read_pct);
		ssize_t res;

		/* from the call, as the io_uring loop from the submission */
		prev = clock_ns();
		res = rd ? pread(j->fd, buf, j->bs, (off_t)off) : pwrite(j->fd, buf, j->bs, (off_t)off);
		now = clock_ns();
		if (res != (ssize_t)j->bs) {
			if (res < 0 && errno == EINTR)
				continue;
			io_error(j, rd, off, res < 0 ? -errno : (int)res);
			break;
		}
		if (!rd)
			j->written_total += j->bs;
		if (!measuring && now >= ramp_end) {
			/* from ramp_end, whenever this I/O ended (see the io_uring loop) */
			measuring = true;
			job_reset(j, ramp_end);
			cpu_mark(&cpu);
		} else if (measuring) {
			hist_record(rd ? &j->rlat : &j->wlat, now - prev);
			job_log(j, now, now - prev);
			if (rd)
				j->reads++;
			else
				j->writes++;
			j->end_ns = now;
		}
		/* the window holds one measured I/O at least: an I/O that a stall
		 * (or this thread waiting for a CPU) carried past the deadline
		 * opens the window uncounted, and the next one is its only I/O,
		 * as the io_uring loop counts what it reaps at the deadline */
		if ((now >= deadline && j->reads + j->writes > 0) || vmb_stop_requested())
			break;
	}
	cpu_account(j, &cpu);
	w->start_ns = j->start_ns;
	w->end_ns = j->end_ns;
out:
	disk_buffers_free(j->iomem, buf, mapped);
}

/* ---- the engines' table ---- */

const struct disk_engine disk_engines[] = {
	{ .name = "io_uring", .probe = disk_uring_probe, .queues = true, .run = disk_uring_job },
	{ .name = "psync", .run = disk_psync_job },
};
const size_t disk_nengines = ARRAY_SIZE(disk_engines);

const struct disk_engine *disk_engine_find(const char *name)
{
	for (size_t i = 0; i < disk_nengines; i++)
		if (!strcmp(disk_engines[i].name, name))
			return &disk_engines[i];
	return NULL;
}

int disk_engine_pick(struct vmb_ctx *ctx, const char *name, const struct disk_engine **out)
{
	const struct disk_engine *last = &disk_engines[disk_nengines - 1];
	char why[160] = "";

	if (strcmp(name, "auto")) {
		const struct disk_engine *e = disk_engine_find(name);

		if (!e)
			return vmb_fail(ctx, -EINVAL, "--disk.engine %s", name);
		if (e->probe && e->probe(why, sizeof(why)) < 0)
			return vmb_skip(ctx, "%s; --disk.engine %s works everywhere", why, last->name);
		*out = e;
		return 0;
	}
	for (size_t i = 0; i < disk_nengines; i++) {
		const struct disk_engine *e = &disk_engines[i];
		char ewhy[sizeof(why)];

		if (e->probe && e->probe(ewhy, sizeof(ewhy)) < 0) {
			if (!why[0])
				snprintf(why, sizeof(why), "%s", ewhy);
			continue;
		}
		*out = e;
		if (why[0])
			(void)vmb_note(ctx, "engine_fallback", "%s", why);
		return 0;
	}
	return vmb_fail(ctx, -ENOSYS, "no I/O engine works here: %s", why);
}
