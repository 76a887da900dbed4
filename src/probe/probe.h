/* The environment fingerprint: what vmbench runs on (hypervisor, CPU,
 * memory, kernel knobs, devices and their drivers), stored with every result.
 * Everything is read below a root directory, so recorded /proc and /sys
 * trees of other machines can be probed in tests. */
#ifndef VMB_PROBE_H
#define VMB_PROBE_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct probe_src {
	const char *root; /* "/" for this machine */
	/* Below another root, files stand in for what only the live machine can
	 * answer: ".cpuid" for the CPUID instruction ("hypervisor_bit=1",
	 * "signature=KVMKVMKVM", "signature_0x40000100=KVMKVMKVM") and ".kvm"
	 * for /dev/kvm ("present=1", "opens=1", "api_version=12",
	 * "creates_vm=1"); without ".kvm", /dev/kvm is reported as not probed. */
};

/* The fingerprint as a JSON object, or NULL on out-of-memory. Missing files
 * give null fields: a probe never fails because a knob does not exist. */
json_t *probe_fingerprint(const struct probe_src *src);

/* The root of the machine `run` probes: "/" (machine.c; a test build may
 * point it at a recorded tree). */
const char *probe_machine_root(void);

/* /dev/kvm as the fingerprint's "kvm" object k records it, in words
 * ("absent", "present, cannot be opened: Permission denied", "present,
 * opens, creates VMs (API 12)", with " [recorded]" for a recorded tree);
 * true when KVM can run guests (it creates a VM). */
bool probe_kvm_describe(const json_t *k, char *buf, size_t len);
/* Can KVM run guests on the machine at root ("/": /dev/kvm asked now)?
 * why: probe_kvm_describe's words either way. */
bool probe_kvm_usable(const char *root, char *why, size_t len);

/* Is root something to probe: "/", or a directory with proc/ or sys/ in it
 * (a tree recorded by scripts/record-fixture.sh)? 0, or a negative errno
 * with a message for the user in err. */
int probe_check_root(const char *root, char *err, size_t errlen);

/* ---- parsers of file contents, free of I/O (unit tests, fuzz target) ----
 * Texts are (pointer, length) and need not be NUL-terminated. */

/* What vmbench takes from /proc/cpuinfo: the first value of each key. */
struct probe_cpuinfo {
	char model[128];         /* "model name"; arm64: "CPU part" */
	char vendor[64];         /* "vendor_id"; arm64: "CPU implementer" */
	char cache_size[32];     /* x86 "cache size" ("1024 KB"): the kernel's x86_cache_size */
	bool have_midr;          /* arm64 "CPU implementer" and "CPU part" both parsed */
	unsigned implementer, part;
	const char *flags;       /* the "flags" (arm64: "Features") value, inside the text */
	size_t flags_len;
	size_t nflags;           /* words in it */
};
void probe_parse_cpuinfo(const char *text, size_t len, struct probe_cpuinfo *ci);
/* Is flag one of the words of ci->flags? Linear in the line's length. */
bool probe_has_flag(const struct probe_cpuinfo *ci, const char *flag);

/* MemAvailable of /proc/meminfo under root, in bytes; 0 when unknown: the
 * one reading of what a suite's buffers may take. */
uint64_t probe_mem_available(const char *root);
/* "Key: N kB" (bytes) or "Key: N" (a count) from /proc/meminfo:
 * 0, -ENOENT (no such key), -EINVAL or -ERANGE. */
int probe_meminfo_value(const char *text, size_t len, const char *key, int64_t *out);
/* The first line of /proc/stat ("cpu  user nice system idle iowait irq
 * softirq steal ..."): steal and the sum of the eight fields, in ticks. */
int probe_parse_stat(const char *text, size_t len, uint64_t *steal, uint64_t *total);
/* "key=value" lines (.cpuid, .kvm): the value of key into out; -ENOENT. */
int probe_kv(const char *text, size_t len, const char *key, char *out, size_t outlen);
/* NUL-separated KEY=VALUE (/proc/PID/environ): the value of key; -ENOENT. */
int probe_environ_get(const char *buf, size_t len, const char *key, char *out, size_t outlen);
/* "always [madvise] never" -> "madvise"; 0 or -EINVAL */
int probe_bracketed(const char *s, char *out, size_t len);
/* "32K" -> 32768; 0 on error */
unsigned long long probe_parse_cache_size(const char *s);
/* "0x41" or "41" (hexadecimal, at most 8 digits) -> 0x41; -EINVAL otherwise */
int probe_parse_hex(const char *s, size_t n, unsigned *out);
/* A copy of s (up to NUL or len bytes) as valid UTF-8: each byte that is not
 * part of a valid sequence becomes the four characters \xNN (JSON refuses
 * invalid UTF-8, and hostnames, DMI strings and model names are bytes).
 * NULL on out-of-memory. */
char *probe_utf8_clean(const char *s, size_t len);

/* ---- hypervisor identification ---- */

/* CPUID leaf 0x40000000 signature -> product name, or NULL */
const char *probe_hv_from_signature(const char *sig);
/* DMI sys_vendor / product_name -> product name, or NULL */
const char *probe_hv_from_dmi(const char *vendor, const char *product);

/* Everything the name is decided from. */
struct probe_hv_evidence {
	bool hv_bit;             /* CPUID leaf 1 ECX bit 31, or the cpuinfo flag */
	const char *sig;         /* leaf 0x40000000 signature, "" if none */
	const char *sig2;        /* leaf 0x40000100 (KVM behind Hyper-V's interface), "" if none */
	const char *dmi_vendor, *dmi_product, *sys_hypervisor;
	const char *dt_hypervisor, *dt_machine; /* device tree: hypervisor/compatible, compatible */
	const char *cpu_model;
	bool midr_qemu;          /* arm64 MIDR of QEMU's emulated 'max' CPU */
};
struct probe_hv_verdict {
	const char *name;        /* "KVM", "Hyper-V", "QEMU TCG", ..., "unknown", "none" */
	const char *interface;   /* paravirtual interface when it is another product's, or NULL */
	const char *decided_by[6]; /* the sources that decided, NULL-terminated */
};
void probe_hv_decide(const struct probe_hv_evidence *e, struct probe_hv_verdict *v);

#endif
