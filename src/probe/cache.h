/* Cache sizes of CPU 0 from every source there is, in one chain, each level
 * with the source that gave it and every value that was not trusted with
 * why. One module for the probe (the fingerprint) and the memory suite
 * (STREAM's arrays, the latency sweep's levels).
 *
 * The chain, in order (cache_sources in cache.c): sysfs
 * (/sys/devices/system/cpu/cpu0/cache/index*), CPUID leaf 4 (Intel) or
 * 0x8000001D (AMD), AMD's legacy leaves 0x80000005/0x80000006, Intel's
 * leaf 2 descriptors, /proc/cpuinfo's "cache size", sysconf. Each level
 * takes the first value the trust rules accept (cache_trust). */
#ifndef VMB_PROBE_CACHE_H
#define VMB_PROBE_CACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum cache_level { CACHE_L1D, CACHE_L2, CACHE_L3, CACHE_NLEVELS };
extern const char *const cache_level_names[CACHE_NLEVELS]; /* "L1d", "L2", "L3" */

/* What one source says; 0 where it says nothing. */
struct cache_cand {
	uint64_t size[CACHE_NLEVELS]; /* bytes */
	uint64_t line;                /* coherency line size, bytes */
};

struct cache_reject {
	enum cache_level level;
	uint64_t size;
	const char *source;
	char why[128];
};

#define CACHE_MAX_REJECTED 24

struct cache_info {
	uint64_t size[CACHE_NLEVELS];       /* bytes; 0 when no source is trusted */
	const char *source[CACHE_NLEVELS];  /* the source's name, NULL when unknown */
	uint64_t line;                      /* 64 when no source says */
	const char *line_source;            /* a source's name, or "default" */
	struct cache_reject rejected[CACHE_MAX_REJECTED];
	size_t nrejected;
};

/* What the chain reads. Below "/" CPUID and sysconf are asked live; below
 * another root (a recorded machine) their answers come from text: the
 * root's .cpuid ("cpuid.LEAF.SUB=EAX EBX ECX EDX", hexadecimal, e.g.
 * "cpuid.80000006.0=00000000 42004200 02006140 00009140"; an absent leaf
 * reads as zeros) and .sysconf ("LEVEL2_CACHE_SIZE=1048576"). */
struct cache_input {
	const char *root;           /* sysfs below it; NULL: no sysfs at all */
	bool live;                  /* ask CPUID and sysconf of this process */
	const char *cpuid;          /* the recording, when not live; may be NULL */
	size_t cpuid_len;
	const char *sysconf;        /* likewise */
	size_t sysconf_len;
	const char *cpuinfo;        /* /proc/cpuinfo text; may be NULL */
	size_t cpuinfo_len;
	uint64_t memtotal;          /* MemTotal, bytes; 0 when unknown */
};

/* The chain over in. Never fails: what no source knows is 0. */
void cache_chain(const struct cache_input *in, struct cache_info *out);
/* The chain over the machine below root ("/" for this one): sysfs, .cpuid,
 * .sysconf, /proc/cpuinfo and /proc/meminfo read there. */
void cache_read(const char *root, struct cache_info *out);

/* Is the value c offers for level to be trusted, given what the chain has
 * accepted so far (ci)? true, or false with why. The rules, in order:
 * below 4 KiB; larger than memory; not a whole number of 16-line blocks
 * (a cache is sets x ways lines with a power-of-two count of sets, of
 * which no data cache has fewer than 16); an L2 smaller than the L1d or an
 * L3 smaller than the L2 (and the reverse for an earlier level found after
 * a later one). */
bool cache_trust(const struct cache_info *ci, enum cache_level level, uint64_t size, uint64_t line,
		 uint64_t memtotal, char *why, size_t whylen);

/* The last-level cache: L3, else L2, else L1d; 0 when none is known. */
uint64_t cache_llc(const struct cache_info *ci);
/* The level it is, or CACHE_NLEVELS when none is known. */
enum cache_level cache_llc_level(const struct cache_info *ci);

/* A recorded CPUID leaf: 0 and regs (EAX, EBX, ECX, EDX), -ENOENT when the
 * recording lacks it (regs are zeros then, as a leaf the CPU lacks),
 * -EINVAL when its line is not four hexadecimal words. */
int cache_cpuid_recorded(const char *text, size_t len, uint32_t leaf, uint32_t sub, uint32_t regs[4]);

/* The parsers of what each CPUID source answers (pure, for tests):
 * leaf 4 / 0x8000001D subleaf registers, the legacy leaves' ECX and EDX,
 * and leaf 2's descriptor bytes (family and model decide descriptor 0x49). */
void cache_parse_leaf4(const uint32_t regs[4], struct cache_cand *c);
void cache_parse_legacy(const uint32_t l5[4], const uint32_t l6[4], struct cache_cand *c);
void cache_parse_leaf2(const uint32_t regs[4], unsigned family, unsigned model, struct cache_cand *c);
/* "1024 KB" (cpuinfo's "cache size") in bytes; 0 when it is not that. */
uint64_t cache_parse_kb(const char *s);

#endif
