/* Cache sizes from every source there is, in one chain (see cache.h). Each
 * source is a row of cache_sources: a name and a function that says what
 * the source knows. A value a hypervisor made up is recorded with why and
 * not used, and the next source is asked for that level: guests under
 * bhyve, some clouds and containers have no sysfs cache directories and
 * zeros in CPUID leaves 4 and 0x8000001D, while the legacy leaves,
 * /proc/cpuinfo and glibc still answer. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

#include "cache.h"
#include "internal.h"
#include "../core/parse.h"
#include "../core/util.h"
#include "../core/banned.h"

const char *const cache_level_names[CACHE_NLEVELS] = { "L1d", "L2", "L3" };

/* ---- CPUID, live or recorded ---- */

int cache_cpuid_recorded(const char *text, size_t len, uint32_t leaf, uint32_t sub, uint32_t regs[4])
{
	char key[40], val[128];
	const char *p = val;
	uint32_t r[4];

	memset(regs, 0, 4 * sizeof(*regs));
	if (!text)
		return -ENOENT;
	snprintf(key, sizeof(key), "cpuid.%x.%x", leaf, sub);
	if (probe_kv(text, len, key, val, sizeof(val)) < 0)
		return -ENOENT;
	for (int i = 0; i < 4; i++) {
		size_t n;

		while (*p == ' ' || *p == '\t')
			p++;
		n = strcspn(p, " \t\r");
		if (probe_parse_hex(p, n, &r[i]) < 0)
			return -EINVAL;
		p += n;
	}
	while (*p == ' ' || *p == '\t' || *p == '\r')
		p++;
	if (*p)
		return -EINVAL;
	memcpy(regs, r, sizeof(r));
	return 0;
}

/* One leaf: zeros when the CPU (or the recording) does not have it, as the
 * range checks below would also give. */
static void cpuid_get(const struct cache_input *in, uint32_t leaf, uint32_t sub, uint32_t r[4])
{
	memset(r, 0, 4 * sizeof(*r));
	if (!in->live) {
		(void)cache_cpuid_recorded(in->cpuid, in->cpuid_len, leaf, sub, r);
		return;
	}
#if defined(__x86_64__) || defined(__i386__)
	if (__get_cpuid_max(leaf & 0x80000000u, NULL) >= leaf)
		__cpuid_count(leaf, sub, r[0], r[1], r[2], r[3]);
#else
	(void)leaf;
	(void)sub;
#endif
}

/* The highest leaf of a range (0 or 0x80000000), as its first leaf says. */
static uint32_t cpuid_max(const struct cache_input *in, uint32_t base)
{
	uint32_t r[4];

	cpuid_get(in, base, 0, r);
	return r[0] >= base && r[0] - base < 0x1000 ? r[0] : 0;
}

/* ---- the parsers of each source's answer ---- */

void cache_parse_leaf4(const uint32_t r[4], struct cache_cand *c)
{
	unsigned type = r[0] & 0x1f, level = (r[0] >> 5) & 7;
	uint64_t line = (r[1] & 0xfff) + 1ull, size;

	/* type 1 data, 3 unified; 2 (instruction) is not a data cache */
	if (type != 1 && type != 3)
		return;
	size = (((r[1] >> 22) & 0x3ff) + 1ull) * (((r[1] >> 12) & 0x3ff) + 1ull) * line * (r[2] + 1ull);
	if (level >= 1 && level <= 3 && !c->size[level - 1])
		c->size[level - 1] = size;
	if (!c->line)
		c->line = line;
}

void cache_parse_legacy(const uint32_t l5[4], const uint32_t l6[4], struct cache_cand *c)
{
	/* 0x80000005 ECX: L1d KiB in 31:24, line in 7:0; 0x80000006 ECX: L2
	 * KiB in 31:16; EDX: L3 in 512 KiB units in 31:18 (AMD's manual). */
	c->size[CACHE_L1D] = (uint64_t)(l5[2] >> 24) << 10;
	c->size[CACHE_L2] = (uint64_t)(l6[2] >> 16) << 10;
	c->size[CACHE_L3] = (uint64_t)(l6[3] >> 18) << 19;
	c->line = l5[2] & 0xff ? l5[2] & 0xff : l6[2] & 0xff;
}

/* Intel's leaf 2 descriptor bytes that name a data or unified cache
 * (Intel SDM vol. 2A, CPUID leaf 2, table "Encoding of Cache and TLB
 * Descriptors"); TLB, trace and instruction descriptors are not listed. */
static const struct leaf2_desc {
	uint8_t desc;
	uint8_t level; /* enum cache_level */
	uint16_t kib;
	uint8_t line;
} leaf2_table[] = {
	{ 0x0a, CACHE_L1D, 8, 32 },     { 0x0c, CACHE_L1D, 16, 32 },    { 0x0d, CACHE_L1D, 16, 64 },
	{ 0x0e, CACHE_L1D, 24, 64 },    { 0x1d, CACHE_L2, 128, 64 },    { 0x21, CACHE_L2, 256, 64 },
	{ 0x22, CACHE_L3, 512, 64 },    { 0x23, CACHE_L3, 1024, 64 },   { 0x24, CACHE_L2, 1024, 64 },
	{ 0x25, CACHE_L3, 2048, 64 },   { 0x29, CACHE_L3, 4096, 64 },   { 0x2c, CACHE_L1D, 32, 64 },
	{ 0x39, CACHE_L2, 128, 64 },    { 0x3a, CACHE_L2, 192, 64 },    { 0x3b, CACHE_L2, 128, 64 },
	{ 0x3c, CACHE_L2, 256, 64 },    { 0x3d, CACHE_L2, 384, 64 },    { 0x3e, CACHE_L2, 512, 64 },
	{ 0x41, CACHE_L2, 128, 32 },    { 0x42, CACHE_L2, 256, 32 },    { 0x43, CACHE_L2, 512, 32 },
	{ 0x44, CACHE_L2, 1024, 32 },   { 0x45, CACHE_L2, 2048, 32 },   { 0x46, CACHE_L3, 4096, 64 },
	{ 0x47, CACHE_L3, 8192, 64 },   { 0x48, CACHE_L2, 3072, 64 },   { 0x49, CACHE_L2, 4096, 64 },
	{ 0x4a, CACHE_L3, 6144, 64 },   { 0x4b, CACHE_L3, 8192, 64 },   { 0x4c, CACHE_L3, 12288, 64 },
	{ 0x4d, CACHE_L3, 16384, 64 },  { 0x4e, CACHE_L2, 6144, 64 },   { 0x60, CACHE_L1D, 16, 64 },
	{ 0x66, CACHE_L1D, 8, 64 },     { 0x67, CACHE_L1D, 16, 64 },    { 0x68, CACHE_L1D, 32, 64 },
	{ 0x78, CACHE_L2, 1024, 64 },   { 0x79, CACHE_L2, 128, 64 },    { 0x7a, CACHE_L2, 256, 64 },
	{ 0x7b, CACHE_L2, 512, 64 },    { 0x7c, CACHE_L2, 1024, 64 },   { 0x7d, CACHE_L2, 2048, 64 },
	{ 0x7f, CACHE_L2, 512, 64 },    { 0x80, CACHE_L2, 512, 64 },    { 0x82, CACHE_L2, 256, 32 },
	{ 0x83, CACHE_L2, 512, 32 },    { 0x84, CACHE_L2, 1024, 32 },   { 0x85, CACHE_L2, 2048, 32 },
	{ 0x86, CACHE_L2, 512, 64 },    { 0x87, CACHE_L2, 1024, 64 },   { 0xd0, CACHE_L3, 512, 64 },
	{ 0xd1, CACHE_L3, 1024, 64 },   { 0xd2, CACHE_L3, 2048, 64 },   { 0xd6, CACHE_L3, 1024, 64 },
	{ 0xd7, CACHE_L3, 2048, 64 },   { 0xd8, CACHE_L3, 4096, 64 },   { 0xdc, CACHE_L3, 1536, 64 },
	{ 0xdd, CACHE_L3, 3072, 64 },   { 0xde, CACHE_L3, 6144, 64 },   { 0xe2, CACHE_L3, 2048, 64 },
	{ 0xe3, CACHE_L3, 4096, 64 },   { 0xe4, CACHE_L3, 8192, 64 },   { 0xea, CACHE_L3, 12288, 64 },
	{ 0xeb, CACHE_L3, 18432, 64 },  { 0xec, CACHE_L3, 24576, 64 },
};

static void leaf2_byte(uint8_t b, unsigned family, unsigned model, struct cache_cand *c)
{
	for (size_t i = 0; i < ARRAY_SIZE(leaf2_table); i++) {
		const struct leaf2_desc *d = &leaf2_table[i];
		unsigned level = d->level;

		if (d->desc != b)
			continue;
		/* 0x49 is the L3 of the Xeon MP family 0Fh model 06h, the L2 elsewhere */
		if (b == 0x49 && family == 0xf && model == 6)
			level = CACHE_L3;
		if (!c->size[level])
			c->size[level] = (uint64_t)d->kib << 10;
		if (!c->line)
			c->line = d->line;
		return;
	}
}

void cache_parse_leaf2(const uint32_t r[4], unsigned family, unsigned model, struct cache_cand *c)
{
	for (int i = 0; i < 4; i++) {
		/* bit 31 set: the register holds no descriptors */
		if (r[i] >> 31)
			continue;
		/* EAX's low byte is the call count, not a descriptor */
		for (int k = i == 0 ? 1 : 0; k < 4; k++)
			leaf2_byte((uint8_t)(r[i] >> (8 * k)), family, model, c);
	}
}

uint64_t cache_parse_kb(const char *s)
{
	char num[32];
	size_t n = strspn(s, "0123456789");
	int64_t v;

	if (!n || n >= sizeof(num) || strcmp(s + n, " KB"))
		return 0;
	memcpy(num, s, n);
	num[n] = '\0';
	/* a KiB count: at most 2^40 KiB, so that the bytes fit */
	return parse_i64(num, 1, 1ll << 40, &v) == 0 ? (uint64_t)v << 10 : 0;
}

/* ---- the sources ---- */

static void src_sysfs(const struct cache_input *in, struct cache_cand *c)
{
	if (!in->root)
		return;
	for (unsigned i = 0; i < 16; i++) {
		char p[128], level[16], type[32], size[32], line[16];
		int64_t lv;
		uint64_t ln;

		snprintf(p, sizeof(p), "/sys/devices/system/cpu/cpu0/cache/index%u/level", i);
		if (probe_read_line(in->root, p, level, sizeof(level)) < 0)
			break;
		snprintf(p, sizeof(p), "/sys/devices/system/cpu/cpu0/cache/index%u/type", i);
		if (probe_read_line(in->root, p, type, sizeof(type)) < 0 || !strcmp(type, "Instruction"))
			continue;
		snprintf(p, sizeof(p), "/sys/devices/system/cpu/cpu0/cache/index%u/size", i);
		if (probe_read_line(in->root, p, size, sizeof(size)) < 0 || parse_i64(level, 1, 3, &lv) < 0)
			continue;
		if (!c->size[lv - 1])
			c->size[lv - 1] = probe_parse_cache_size(size);
		snprintf(p, sizeof(p), "/sys/devices/system/cpu/cpu0/cache/index%u/coherency_line_size", i);
		if (!c->line && probe_read_line(in->root, p, line, sizeof(line)) == 0 &&
		    parse_size(line, 1, 1u << 20, &ln) == 0)
			c->line = ln;
	}
}

/* Leaf 4 (Intel), else 0x8000001D (AMD's, the same layout): one subleaf
 * per cache until a null type. */
static void src_cpuid(const struct cache_input *in, struct cache_cand *c)
{
	static const uint32_t leaves[] = { 4, 0x8000001d };

	for (size_t k = 0; k < ARRAY_SIZE(leaves); k++) {
		if (cpuid_max(in, leaves[k] & 0x80000000u) < leaves[k])
			continue;
		for (uint32_t sub = 0; sub < 16; sub++) {
			uint32_t r[4];

			cpuid_get(in, leaves[k], sub, r);
			if (!(r[0] & 0x1f))
				break;
			cache_parse_leaf4(r, c);
		}
		if (c->size[CACHE_L1D] || c->size[CACHE_L2] || c->size[CACHE_L3])
			return;
	}
}

static void src_cpuid_legacy(const struct cache_input *in, struct cache_cand *c)
{
	uint32_t l5[4] = { 0 }, l6[4] = { 0 };
	uint32_t max = cpuid_max(in, 0x80000000u);

	if (max >= 0x80000005u)
		cpuid_get(in, 0x80000005u, 0, l5);
	if (max >= 0x80000006u)
		cpuid_get(in, 0x80000006u, 0, l6);
	cache_parse_legacy(l5, l6, c);
}

static void src_cpuid_leaf2(const struct cache_input *in, struct cache_cand *c)
{
	uint32_t r[4], one[4];
	unsigned family, model;

	if (cpuid_max(in, 0) < 2)
		return;
	cpuid_get(in, 1, 0, one);
	family = (one[0] >> 8) & 0xf;
	model = (one[0] >> 4) & 0xf;
	cpuid_get(in, 2, 0, r);
	/* descriptor 0xff says "see leaf 4", which came before: not in the table */
	cache_parse_leaf2(r, family, model, c);
}

/* The kernel's x86_cache_size: AMD's (and Hygon's) L2 from 0x80000006, on
 * other vendors the last level the kernel found. */
static void src_cpuinfo(const struct cache_input *in, struct cache_cand *c)
{
	struct probe_cpuinfo ci;
	uint64_t v;

	if (!in->cpuinfo)
		return;
	probe_parse_cpuinfo(in->cpuinfo, in->cpuinfo_len, &ci);
	v = cache_parse_kb(ci.cache_size);
	if (!strcmp(ci.vendor, "AuthenticAMD") || !strcmp(ci.vendor, "HygonGenuine"))
		c->size[CACHE_L2] = v;
	else
		c->size[CACHE_L3] = v;
}

/* glibc's names; a C library without them has no such source */
#ifndef _SC_LEVEL1_DCACHE_SIZE
#define _SC_LEVEL1_DCACHE_SIZE (-1)
#define _SC_LEVEL2_CACHE_SIZE (-1)
#define _SC_LEVEL3_CACHE_SIZE (-1)
#define _SC_LEVEL1_DCACHE_LINESIZE (-1)
#endif

static const struct {
	const char *key;
	int name;
	int level; /* CACHE_NLEVELS: the line size */
} sysconf_keys[] = {
	{ "LEVEL1_DCACHE_SIZE", _SC_LEVEL1_DCACHE_SIZE, CACHE_L1D },
	{ "LEVEL2_CACHE_SIZE", _SC_LEVEL2_CACHE_SIZE, CACHE_L2 },
	{ "LEVEL3_CACHE_SIZE", _SC_LEVEL3_CACHE_SIZE, CACHE_L3 },
	{ "LEVEL1_DCACHE_LINESIZE", _SC_LEVEL1_DCACHE_LINESIZE, CACHE_NLEVELS },
};

static void src_sysconf(const struct cache_input *in, struct cache_cand *c)
{
	for (size_t i = 0; i < ARRAY_SIZE(sysconf_keys); i++) {
		int64_t v = 0;

		if (in->live) {
			long l = sysconf_keys[i].name >= 0 ? sysconf(sysconf_keys[i].name) : -1;

			v = l > 0 ? l : 0;
		} else {
			char buf[32];

			if (!in->sysconf || probe_kv(in->sysconf, in->sysconf_len, sysconf_keys[i].key, buf, sizeof(buf)) < 0 ||
			    parse_i64(buf, 0, INT64_MAX, &v) < 0)
				continue;
		}
		if (sysconf_keys[i].level == CACHE_NLEVELS)
			c->line = (uint64_t)v;
		else
			c->size[sysconf_keys[i].level] = (uint64_t)v;
	}
}

static const struct cache_source {
	const char *name;
	void (*read)(const struct cache_input *in, struct cache_cand *c);
} cache_sources[] = {
	{ "sysfs", src_sysfs },
	{ "cpuid", src_cpuid },
	{ "cpuid_legacy", src_cpuid_legacy },
	{ "cpuid_leaf2", src_cpuid_leaf2 },
	{ "cpuinfo", src_cpuinfo },
	{ "sysconf", src_sysconf },
};

/* ---- trust ---- */

static bool line_ok(uint64_t line)
{
	return line >= 16 && line <= 1024 && !(line & (line - 1));
}

bool cache_trust(const struct cache_info *ci, enum cache_level level, uint64_t size, uint64_t line,
		 uint64_t memtotal, char *why, size_t whylen)
{
	const uint64_t *s = ci->size;

	/* a source that names no line is judged by the chain's (64 by default) */
	if (!line_ok(line))
		line = ci->line;
	if (size < 4096)
		snprintf(why, whylen, "below 4 KiB: no data cache is that small");
	else if (memtotal && size > memtotal)
		snprintf(why, whylen, "larger than the machine's memory (MemTotal %llu KiB)",
			 (unsigned long long)(memtotal >> 10));
	else if (size % (16 * line))
		snprintf(why, whylen, "not a whole number of 16 lines of %llu bytes: a cache is sets x ways lines, "
			 "with a power-of-two count of sets, at least 16", (unsigned long long)line);
	else if (level == CACHE_L2 && s[CACHE_L1D] && size < s[CACHE_L1D])
		snprintf(why, whylen, "an L2 smaller than the L1d (%llu KiB)", (unsigned long long)(s[CACHE_L1D] >> 10));
	else if (level == CACHE_L3 && s[CACHE_L2] && size < s[CACHE_L2])
		snprintf(why, whylen, "an L3 smaller than the L2 (%llu KiB)", (unsigned long long)(s[CACHE_L2] >> 10));
	else if (level == CACHE_L1D && s[CACHE_L2] && size > s[CACHE_L2])
		snprintf(why, whylen, "an L1d larger than the L2 (%llu KiB)", (unsigned long long)(s[CACHE_L2] >> 10));
	else if (level == CACHE_L2 && s[CACHE_L3] && size > s[CACHE_L3])
		snprintf(why, whylen, "an L2 larger than the L3 (%llu KiB)", (unsigned long long)(s[CACHE_L3] >> 10));
	else
		return true;
	return false;
}

void cache_chain(const struct cache_input *in, struct cache_info *out)
{
	struct cache_info ci = { .line = 64, .line_source = "default" };

	for (size_t i = 0; i < ARRAY_SIZE(cache_sources); i++) {
		struct cache_cand c = { { 0 }, 0 };

		/* every level known: the rest of the chain has nothing to add */
		if (ci.size[CACHE_L1D] && ci.size[CACHE_L2] && ci.size[CACHE_L3] && strcmp(ci.line_source, "default"))
			break;
		cache_sources[i].read(in, &c);
		if (line_ok(c.line) && !strcmp(ci.line_source, "default")) {
			ci.line = c.line;
			ci.line_source = cache_sources[i].name;
		}
		for (int lv = 0; lv < CACHE_NLEVELS; lv++) {
			char why[sizeof(ci.rejected[0].why)];

			if (!c.size[lv] || ci.size[lv])
				continue;
			if (cache_trust(&ci, (enum cache_level)lv, c.size[lv], c.line, in->memtotal, why, sizeof(why))) {
				ci.size[lv] = c.size[lv];
				ci.source[lv] = cache_sources[i].name;
			} else if (ci.nrejected < CACHE_MAX_REJECTED) {
				struct cache_reject *rj = &ci.rejected[ci.nrejected++];

				rj->level = (enum cache_level)lv;
				rj->size = c.size[lv];
				rj->source = cache_sources[i].name;
				snprintf(rj->why, sizeof(rj->why), "%s", why);
			}
		}
	}
	*out = ci;
}

void cache_read(const char *root, struct cache_info *out)
{
	struct cache_input in = { .root = root, .live = !strcmp(root, "/") };
	char *cpuid = NULL, *sc = NULL, *cpuinfo = NULL, *mi = NULL;
	size_t n = 0;
	int64_t total;

	if (!in.live) {
		if (probe_read(root, "/.cpuid", PROBE_MAX_TEXT, &cpuid, &in.cpuid_len) == 0)
			in.cpuid = cpuid;
		if (probe_read(root, "/.sysconf", PROBE_MAX_TEXT, &sc, &in.sysconf_len) == 0)
			in.sysconf = sc;
	}
	if (probe_read(root, "/proc/cpuinfo", PROBE_MAX_CPUINFO, &cpuinfo, &in.cpuinfo_len) == 0)
		in.cpuinfo = cpuinfo;
	if (probe_read(root, "/proc/meminfo", PROBE_MAX_TEXT, &mi, &n) == 0 &&
	    probe_meminfo_value(mi, n, "MemTotal", &total) == 0 && total > 0)
		in.memtotal = (uint64_t)total;
	cache_chain(&in, out);
	free(cpuid);
	free(sc);
	free(cpuinfo);
	free(mi);
}

enum cache_level cache_llc_level(const struct cache_info *ci)
{
	for (int lv = CACHE_NLEVELS; lv-- > 0;)
		if (ci->size[lv])
			return (enum cache_level)lv;
	return CACHE_NLEVELS;
}

uint64_t cache_llc(const struct cache_info *ci)
{
	enum cache_level lv = cache_llc_level(ci);

	return lv < CACHE_NLEVELS ? ci->size[lv] : 0;
}
