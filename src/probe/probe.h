/* The environment fingerprint: what vmbench runs on (hypervisor, CPU,
 * memory, kernel knobs, devices and their drivers), stored with every result.
 * Everything is read below a root directory, so recorded /proc and /sys
 * trees of other machines can be probed in tests. */
#ifndef VMB_PROBE_H
#define VMB_PROBE_H

#include <jansson.h>
#include <stdbool.h>

struct probe_src {
	const char *root; /* "/" for this machine */
	/* CPUID: on the live system (root "/") the instruction is executed on
	 * x86; below another root, the file ".cpuid" there stands in for it
	 * ("hypervisor_bit=1", "signature=KVMKVMKVM"). */
};

/* The fingerprint as a JSON object, or NULL on out-of-memory. Missing files
 * give null fields: a probe never fails because a knob does not exist. */
json_t *probe_fingerprint(const struct probe_src *src);

/* Parsers, exposed for the unit tests. */
/* "always [madvise] never" -> "madvise"; 0 or -EINVAL */
int probe_bracketed(const char *s, char *out, size_t len);
/* CPUID leaf 0x40000000 signature -> hypervisor name, or NULL */
const char *probe_hv_from_signature(const char *sig);
/* DMI sys_vendor / product_name -> hypervisor name, or NULL */
const char *probe_hv_from_dmi(const char *vendor, const char *product);
/* "32K" -> 32768; 0 on error */
unsigned long long probe_parse_cache_size(const char *s);

#endif
