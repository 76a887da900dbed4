/* Whether this machine's KVM runs guests, beyond what /dev/kvm says: a
 * /dev/kvm may open and create VMs while every guest stops at once with
 * "KVM internal error" (a nested or restricted KVM). QEMU's own words for
 * such a stop, read from its output; and the verdict of the lab's last
 * boot under KVM, remembered in the state directory for `vmbench info`
 * (docs/methodology.md, "A KVM that cannot run a guest"). */
#ifndef VMB_KVMGUEST_H
#define VMB_KVMGUEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* QEMU's report of a guest that KVM could not run ("KVM internal error.
 * Suberror: 1" and the kind of error after its extra data, "emulation
 * failure"; or "KVM: entry failed, hardware error 0x80000021"), from its
 * output log: true with the words, escaped and at most about 300 bytes,
 * in words; false when log holds none. */
bool lab_kvm_error_words(const char *log, char *words, size_t len);

/* The remembered verdict: a guest ran under KVM (said HELLO) or did not
 * (QEMU stopped it for good, or it did not say HELLO in the time a KVM
 * guest takes), why (QEMU's words), when (epoch s), in which boot of the
 * machine (/proc/sys/kernel/random/boot_id), and where: the host's name,
 * its kernel's release and the QEMU that ran it (its binary for the host's
 * architecture, found on PATH: path, size and time), so that a verdict is
 * used only where it was made ("" : an older vmbench's, which said none). */
struct lab_kvm_verdict {
	bool runs;
	char reason[320];
	int64_t when;
	char boot_id[40];
	char host[72], kernel[72], qemu[320];
};

/* The verdict file's text (key=value lines): 0 with *v, -EINVAL when it is
 * not one (*v untouched). */
int lab_kvm_verdict_parse(const char *text, struct lab_kvm_verdict *v);
/* Remember a verdict (reason: QEMU's words, or NULL), replacing the last:
 * 0 or a negative errno (the lab goes on without it). Written at most once
 * per process and verdict: a run of many KVM boots writes once. */
int lab_kvm_verdict_save(bool runs, const char *reason);
/* The remembered verdict: 0, -ENOENT when none is (or no state directory
 * is known), -EINVAL when the file is not one; *this_boot: whether it was
 * found in the machine's current boot. */
int lab_kvm_verdict_load(struct lab_kvm_verdict *v, bool *this_boot);

/* Whether verdict v was made here: this host, kernel and QEMU. true, or
 * false with why not in words ("made with another QEMU: ..."). */
bool lab_kvm_verdict_here(const struct lab_kvm_verdict *v, char *why, size_t len);
/* How long ago epoch second when was, in words ("40 s", "3 min", "5 h",
 * "2 days"). */
void lab_kvm_age(int64_t when, char *buf, size_t len);

#endif
