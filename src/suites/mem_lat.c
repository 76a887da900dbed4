/* Memory suite, the machine's side: free memory, THP and huge pages as
 * /proc/self/smaps confirms them, and the dependent pointer chase behind
 * mem.latency (lmbench lat_mem_rd). Cache sizes come from the probe's
 * chain (src/probe/cache.c). */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "../core/clock.h"
#include "../core/file.h"
#include "../core/parse.h"
#include "mem.h"
#include "../core/banned.h"

#define HUGE_2M (2u << 20)

const char *const mem_pages_names[] = {
	[MEM_PAGES_DEFAULT] = "default", [MEM_PAGES_4K] = "4k", [MEM_PAGES_HUGETLB] = "hugetlb",
	[MEM_PAGES_THP] = "thp",
};

/* A small file under root as text (NUL-terminated, trailing newline cut). */
static int read_small(const char *root, const char *path, char *buf, size_t len)
{
	char p[512];
	FILE *f;
	size_t n;

	snprintf(p, sizeof(p), "%s%s", strcmp(root, "/") ? root : "", path);
	f = fopen(p, "re");
	if (!f)
		return -errno;
	n = fread(buf, 1, len - 1, f);
	fclose(f);
	buf[n] = '\0';
	while (n && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		buf[--n] = '\0';
	return 0;
}

/* A "Key:   123 kB" line's value in bytes. */
static bool kb_field(const char *line, const char *key, uint64_t *out)
{
	size_t k = strlen(key);
	unsigned long long v;
	char *end;

	if (strncmp(line, key, k) || line[k] != ':')
		return false;
	v = strtoull(line + k + 1, &end, 10);
	if (end == line + k + 1)
		return false;
	while (*end == ' ' || *end == '\t')
		end++;
	/* the unit on this line only; a count beyond 2^53 kB is not a kernel's */
	if (v > (1ull << 53))
		return false;
	*out = (uint64_t)v * (!strncmp(end, "kB", 2) ? 1024 : 1);
	return true;
}

/* HugePages_Free (a count, not kB) in /proc/meminfo. */
static uint64_t hugetlb_free(void)
{
	char buf[8192];
	uint64_t v = 0;

	if (read_small("/", "/proc/meminfo", buf, sizeof(buf)) < 0)
		return 0;
	for (const char *p = buf; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (kb_field(p, "HugePages_Free", &v))
			return v;
	return 0;
}

const char *mem_thp_setting(const char *root)
{
	static const char *const settings[] = { "always", "madvise", "never" };
	char buf[128];

	if (read_small(root, "/sys/kernel/mm/transparent_hugepage/enabled", buf, sizeof(buf)) < 0)
		return "absent";
	/* "always [madvise] never": the bracketed one is in force */
	for (size_t i = 0; i < sizeof(settings) / sizeof(settings[0]); i++) {
		char want[32];

		snprintf(want, sizeof(want), "[%s]", settings[i]);
		if (strstr(buf, want))
			return settings[i];
	}
	return "absent";
}

int mem_huge_choose(const char *want, size_t len, enum mem_pages *kind, char *why, size_t whylen)
{
	const char *thp = mem_thp_setting("/");
	uint64_t free2m = hugetlb_free();
	bool hugetlb_ok = free2m * HUGE_2M >= len, thp_ok = !strcmp(thp, "always") || !strcmp(thp, "madvise");

	if (strcmp(want, "thp") && hugetlb_ok) {
		*kind = MEM_PAGES_HUGETLB;
		return 0;
	}
	if (strcmp(want, "hugetlb") && thp_ok) {
		*kind = MEM_PAGES_THP;
		return 0;
	}
	if (!strcmp(want, "thp"))
		snprintf(why, whylen, "transparent huge pages are '%s' (/sys/kernel/mm/transparent_hugepage/enabled)",
			 thp);
	else
		snprintf(why, whylen,
			 "%llu hugetlb pages of 2 MiB are free (HugePages_Free), %zu MiB need %zu (vm.nr_hugepages)%s%s%s",
			 (unsigned long long)free2m, len >> 20, len / HUGE_2M,
			 strcmp(want, "hugetlb") ? "; transparent huge pages are '" : "",
			 strcmp(want, "hugetlb") ? thp : "", strcmp(want, "hugetlb") ? "'" : "");
	return -ENOENT;
}

/* ---- smaps ---- */

/* "7f12a0000000-7f12a4000000 rw-p ..." */
static bool vma_header(const char *line, uintptr_t *lo, uintptr_t *hi)
{
	unsigned long long a, b;
	char *end;

	/* strtoull would skip blank lines and spaces to the next line's number */
	if (!isxdigit((unsigned char)*line))
		return false;
	a = strtoull(line, &end, 16);
	if (end == line || *end != '-')
		return false;
	line = end + 1;
	b = strtoull(line, &end, 16);
	if (end == line || *end != ' ' || b <= a)
		return false;
	*lo = (uintptr_t)a;
	*hi = (uintptr_t)b;
	return true;
}

/* A mapping's huge pages may lie anywhere in it: of a mapping that extends
 * past the range, only what cannot fit in the part outside is counted as
 * inside (a lower bound, so a "2M" figure is never claimed on a guess). */
static uint64_t huge_inside(uint64_t huge, uint64_t total, uint64_t overlap)
{
	uint64_t outside = total - overlap;

	huge = huge > total ? total : huge;
	return huge > outside ? huge - outside : 0;
}

int mem_smaps_parse(const char *text, uintptr_t start, size_t len, struct mem_smaps *out)
{
	struct mem_smaps m = { 0 };
	uintptr_t end = len > UINTPTR_MAX - start ? UINTPTR_MAX : start + len, lo = 0, hi = 0, prev_hi = 0;
	uint64_t huge = 0, total = 0, overlap = 0;
	bool in = false;

	for (const char *p = text;; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		uint64_t v;

		if (!p || !*p || vma_header(p, &lo, &hi)) {
			/* the previous mapping is complete */
			if (in)
				m.huge += huge_inside(huge, total, overlap);
			if (!p || !*p)
				break;
			/* the kernel lists mappings in address order, never overlapping */
			if (lo < prev_hi)
				return -EINVAL;
			prev_hi = hi;
			in = lo < end && hi > start;
			huge = 0;
			if (in) {
				uintptr_t a = lo > start ? lo : start, b = hi < end ? hi : end;

				total = hi - lo;
				overlap = b - a;
				m.size += overlap;
				m.found = true;
			}
			continue;
		}
		if (!in)
			continue;
		/* THP's share of this mapping, and hugetlb's (whose pages are
		 * counted in *_Hugetlb, not in Rss) */
		if (kb_field(p, "AnonHugePages", &v) || kb_field(p, "Private_Hugetlb", &v) ||
		    kb_field(p, "Shared_Hugetlb", &v))
			huge += v;
		else if (kb_field(p, "KernelPageSize", &v) && !m.kernel_ps)
			m.kernel_ps = v;
	}
	if (m.huge > m.size)
		m.huge = m.size;
	*out = m;
	return m.found ? 0 : -ENOENT;
}

int mem_smaps_read(uintptr_t start, size_t len, struct mem_smaps *out)
{
	size_t cap = 1 << 20, n = 0;
	char *buf = malloc(cap);
	FILE *f = fopen("/proc/self/smaps", "re");
	int r;

	if (!buf || !f) {
		r = buf ? -errno : -ENOMEM;
		goto out;
	}
	for (;;) {
		size_t k = fread(buf + n, 1, cap - 1 - n, f);

		n += k;
		if (n < cap - 1)
			break;
		{
			char *nb = realloc(buf, cap * 2);

			if (!nb) {
				r = -ENOMEM;
				goto out;
			}
			buf = nb;
			cap *= 2;
		}
	}
	buf[n] = '\0';
	r = mem_smaps_parse(buf, start, len, out);
out:
	if (f)
		fclose(f);
	free(buf);
	return r;
}

/* ---- mappings ---- */

/* A PROT_NONE reservation with 2 MiB of slack; the aligned middle is made
 * readable and writable, so it is a mapping of its own that neither merges
 * with a neighbour nor shares its smaps counts. */
void *mem_map(size_t len, enum mem_pages kind)
{
	size_t resv = len + 2 * HUGE_2M;
	uint8_t *base, *p;

	base = mmap(NULL, resv, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (base == MAP_FAILED)
		return NULL;
	p = (uint8_t *)(((uintptr_t)base + HUGE_2M + HUGE_2M - 1) & ~(uintptr_t)(HUGE_2M - 1));
	/* hugetlb pages replace the middle of the reservation, which keeps the guards */
	if (kind == MEM_PAGES_HUGETLB ? mmap(p, len, PROT_READ | PROT_WRITE,
					     MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB | MAP_FIXED, -1, 0) == MAP_FAILED
				      : mprotect(p, len, PROT_READ | PROT_WRITE) < 0) {
		(void)munmap(base, resv);
		return NULL;
	}
	/* the slack around the mapping goes back; one guard page stays on each side */
	if (p - 4096 > base)
		(void)munmap(base, (size_t)(p - 4096 - base));
	if (p + len + 4096 < base + resv)
		(void)munmap(p + len + 4096, (size_t)(base + resv - (p + len + 4096)));
	if (kind == MEM_PAGES_4K)
		(void)madvise(p, len, MADV_NOHUGEPAGE);
	else if (kind == MEM_PAGES_THP && madvise(p, len, MADV_HUGEPAGE) < 0) {
		mem_unmap(p, len);
		return NULL;
	}
	return p;
}

void mem_unmap(void *p, size_t len)
{
	if (!p)
		return;
	/* with its guard pages */
	(void)munmap((uint8_t *)p - 4096, len + 8192);
}

/* ---- the chain ---- */

static uint64_t splitmix(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* uniform in [0, n) */
static size_t below(uint64_t *s, size_t n)
{
	return (size_t)(((unsigned __int128)splitmix(s) * n) >> 64);
}

static void shuffle32(uint32_t *v, size_t n, uint64_t *s)
{
	for (size_t i = n; i > 1; i--) {
		size_t j = below(s, i);
		uint32_t t = v[i - 1];

		v[i - 1] = v[j];
		v[j] = t;
	}
}

int mem_chain_order(uint32_t *order, size_t nodes, size_t npp, uint64_t seed)
{
	size_t npages = (nodes + npp - 1) / npp, k = 0;
	uint32_t *lines = malloc(nodes * sizeof(*lines)), *pages = malloc(npages * sizeof(*pages));
	uint64_t s = seed;

	if (!lines || !pages) {
		free(lines);
		free(pages);
		return -ENOMEM;
	}
	/* each page's lines in a random order of their own */
	for (size_t i = 0; i < nodes; i++)
		lines[i] = (uint32_t)i;
	for (size_t p = 0; p < npages; p++)
		shuffle32(lines + p * npp, p + 1 < npages ? npp : nodes - p * npp, &s);
	for (size_t r = 0; r < npp && k < nodes; r++) {
		size_t np = 0;

		for (size_t p = 0; p < npages; p++)
			if (r < (p + 1 < npages ? npp : nodes - p * npp))
				pages[np++] = (uint32_t)p;
		shuffle32(pages, np, &s);
		/* the round must not begin on the page the last one ended on */
		if (k && np > 1 && pages[0] == order[k - 1] / npp) {
			size_t j = 1 + below(&s, np - 1);
			uint32_t t = pages[0];

			pages[0] = pages[j];
			pages[j] = t;
		}
		for (size_t i = 0; i < np; i++)
			order[k++] = lines[pages[i] * npp + r];
	}
	/* closing the cycle: the last node's page is not the first node's */
	if (npages > 2 && order[k - 1] / npp == order[0] / npp) {
		uint32_t t = order[0];

		order[0] = order[1];
		order[1] = t;
	}
	free(lines);
	free(pages);
	return 0;
}

void mem_chain_link(void *buf, size_t stride, const uint32_t *order, size_t nodes)
{
	uint8_t *b = buf;

	for (size_t k = 0; k < nodes; k++)
		*(void **)(b + (size_t)order[k] * stride) = b + (size_t)order[(k + 1) % nodes] * stride;
}

/* ---- mem.latency ---- */

/* Build the chain for size bytes, one node per cache line, on the system's
 * default pages (as lat_mem_rd's malloc gets them). */
static int chain_build(struct vmb_ctx *ctx, struct mem_state *st, unsigned kib)
{
	size_t len = (size_t)kib << 10, line = (size_t)st->caches.line, nodes = len / line;
	size_t npp = 4096 / line ? 4096 / line : 1;
	uint32_t *order;
	int r;

	mem_release(st);
	r = vmb_fits(ctx, "sizes", "the pointer chase", len, st->avail);
	if (r < 0)
		return r;
	if (nodes < 2 || nodes > UINT32_MAX)
		return vmb_usage(ctx, "--mem.sizes %u KiB: between 2 cache lines and 2^32 of them, please", kib);
	order = malloc(nodes * sizeof(*order));
	st->chain = mem_map(len, MEM_PAGES_DEFAULT);
	if (!order || !st->chain) {
		free(order);
		return vmb_fail(ctx, -ENOMEM, "a %u KiB chain", kib);
	}
	st->chain_len = len;
	r = mem_chain_order(order, nodes, npp, st->seed ^ kib);
	if (r < 0) {
		free(order);
		return vmb_fail(ctx, r, "ordering a %u KiB chain", kib);
	}
	mem_chain_link(st->chain, line, order, nodes);
	free(order);
	st->chain_kib = kib;
	return 0;
}

int mem_run_latency(struct vmb_ctx *ctx, const struct vmb_test *test, struct vmb_rep *rep)
{
	struct mem_state *st = mem_begin(ctx, test);
	unsigned kib = ctx->sweep;
	uint64_t done = 0, t0, t1, deadline, chunk = 1 << 14;
	void *const *p;
	int r;

	if (!st->chain || st->chain_kib != kib) {
		r = chain_build(ctx, st, kib);
		if (r < 0)
			return r;
	}
	p = st->chain;
	if (st->loads && st->loads < chunk)
		chunk = st->loads;
	chunk &= ~(uint64_t)15;
	if (!chunk)
		chunk = 16;
	t0 = clock_ns();
	deadline = t0 + (uint64_t)(ctx->duration_s * NSEC_PER_SEC);
	for (;;) {
		/* sixteen dependent loads an iteration: the loop's own cost is noise */
		for (uint64_t i = 0; i < chunk; i += 16) {
#define HOP p = (void *const *)*p;
			HOP HOP HOP HOP HOP HOP HOP HOP HOP HOP HOP HOP HOP HOP HOP HOP
#undef HOP
		}
		done += chunk;
		t1 = clock_ns();
		if (st->loads ? done >= st->loads : t1 >= deadline)
			break;
		if (vmb_stop_requested())
			break;
	}
	/* the end of the chase is consumed, and must be a node of the chain */
	mem_consume((uintptr_t)p);
	if ((uintptr_t)p < (uintptr_t)st->chain || (uintptr_t)p >= (uintptr_t)st->chain + st->chain_len)
		return vmb_fail(ctx, -EIO, "the chase left its buffer: a broken chain");
	vmb_rep_value(rep, "ns_per_load", VMB_UNIT_NS, VMB_LOWER, (double)(t1 - t0) / (double)done);
	return 0;
}
