/* Fuzz target for the cache chain's parsers: a CPUID recording (.cpuid),
 * /proc/cpuinfo's "cache size", a .sysconf file, and the register decoders
 * of leaf 4, the legacy leaves and leaf 2, all fed the same bytes; then the
 * whole chain over them. Checked beyond "no crash": what the chain accepts
 * obeys its own trust rules (no level below 4 KiB, none larger than the
 * memory given, each a whole number of 16 lines of at least 16 bytes,
 * levels in order), and
 * every value it did not trust carries a reason. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/probe/cache.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *text = (const char *)data;
	struct cache_input in = {
		.root = NULL, .live = false, .cpuid = text, .cpuid_len = size, .sysconf = text, .sysconf_len = size,
		.cpuinfo = text, .cpuinfo_len = size, .memtotal = size & 1 ? 0 : 1ull << 31,
	};
	struct cache_cand c = { { 0 }, 0 };
	struct cache_info ci;
	uint32_t regs[4] = { 0 }, l6[4] = { 0 };
	char *s;

	/* the first bytes as registers, for the decoders */
	memcpy(regs, data, size < sizeof(regs) ? size : sizeof(regs));
	if (size > sizeof(regs))
		memcpy(l6, data + sizeof(regs), size - sizeof(regs) < sizeof(l6) ? size - sizeof(regs) : sizeof(l6));
	cache_parse_leaf4(regs, &c);
	cache_parse_legacy(regs, l6, &c);
	cache_parse_leaf2(regs, regs[0] & 0xf, regs[1] & 0xf, &c);
	for (uint32_t leaf = 0; leaf < 8; leaf++)
		if (cache_cpuid_recorded(text, size, leaf, 0, regs) < 0 && (regs[0] | regs[1] | regs[2] | regs[3]))
			abort(); /* a leaf not read is zeros */

	cache_chain(&in, &ci);
	for (int lv = 0; lv < CACHE_NLEVELS; lv++) {
		uint64_t v = ci.size[lv];

		if (!v != !ci.source[lv])
			abort();
		if (v && (v < 4096 || (in.memtotal && v > in.memtotal) || v % (16 * 16)))
			abort();
	}
	if (ci.size[CACHE_L1D] && ci.size[CACHE_L2] && ci.size[CACHE_L2] < ci.size[CACHE_L1D])
		abort();
	if (ci.size[CACHE_L2] && ci.size[CACHE_L3] && ci.size[CACHE_L3] < ci.size[CACHE_L2])
		abort();
	if (ci.nrejected > CACHE_MAX_REJECTED)
		abort();
	for (size_t i = 0; i < ci.nrejected; i++)
		if (!ci.rejected[i].why[0] || !ci.rejected[i].source)
			abort();

	s = malloc(size + 1);
	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';
	(void)cache_parse_kb(s);
	free(s);
	return 0;
}
