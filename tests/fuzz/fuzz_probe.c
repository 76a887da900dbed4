/* Fuzz target for the probe's parsers of file contents: /proc/cpuinfo (and
 * the flag lookups on it), meminfo, /proc/stat, the key=value stand-ins
 * .cpuid and .kvm, /proc/PID/environ, bracketed sysfs knobs, cache sizes,
 * the hypervisor tables and decision, and the UTF-8 cleaning that every
 * probed string goes through. The same bytes are given to each: the seeds
 * are real files of each kind. Checked beyond "no crash": a cleaned string
 * is always accepted by jansson, and the parsers stay inside their text. */
#include <jansson.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/probe/probe.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const mem_keys[] = { "MemTotal", "MemAvailable", "HugePages_Total", "Hugepagesize" };
	static const char *const flags[] = { "vmx", "svm", "hypervisor", "constant_tsc", "fp", "" };
	const char *text = (const char *)data;
	struct probe_cpuinfo ci;
	struct probe_hv_verdict v;
	char out[256], *s, *clean;
	uint64_t steal, total;
	int64_t val;
	json_t *j;

	probe_parse_cpuinfo(text, size, &ci);
	if (ci.nflags > size || (ci.flags && (ci.flags < text || ci.flags + ci.flags_len > text + size)))
		abort();
	for (size_t i = 0; i < sizeof(flags) / sizeof(flags[0]); i++)
		(void)probe_has_flag(&ci, flags[i]);
	for (size_t i = 0; i < sizeof(mem_keys) / sizeof(mem_keys[0]); i++)
		if (probe_meminfo_value(text, size, mem_keys[i], &val) == 0 && val < 0)
			abort();
	if (probe_parse_stat(text, size, &steal, &total) == 0 && steal > total)
		abort();
	(void)probe_kv(text, size, "signature", out, sizeof(out));
	(void)probe_kv(text, size, "api_version", out, sizeof(out));
	(void)probe_kv(text, size, "error", out, sizeof(out));
	(void)probe_environ_get(text, size, "container", out, sizeof(out));

	/* the C-string parsers get the bytes up to the first NUL */
	s = malloc(size + 1);
	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';
	(void)probe_bracketed(s, out, sizeof(out));
	(void)probe_parse_cache_size(s);
	(void)probe_hv_from_signature(s);
	(void)probe_hv_from_dmi(s, s);
	probe_hv_decide(&(struct probe_hv_evidence){ .hv_bit = size & 1, .sig = s, .sig2 = s, .dmi_vendor = s,
						     .dmi_product = ci.model, .sys_hypervisor = size & 2 ? s : NULL,
						     .dt_hypervisor = size & 4 ? s : NULL, .dt_machine = s,
						     .cpu_model = ci.model, .midr_qemu = ci.have_midr },
			&v);
	if (!v.name)
		abort();
	clean = probe_utf8_clean(text, size);
	if (clean) {
		j = json_string(clean);
		if (!j) /* the point of cleaning: jansson must take it */
			abort();
		json_decref(j);
		free(clean);
	}
	free(s);
	return 0;
}
