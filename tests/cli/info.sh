#!/bin/sh
# vmbench info: --root checked, the human view readable (no raw JSON, plurals),
# hypervisors named as products, /dev/kvm beside the CPU-flag view, and trees
# that try to hang or break the probe.
. "$(dirname "$0")/lib.sh"
FX="$SRC/tests/fixtures/probe"

# --root must be a probe tree: a user's mistake otherwise (exit 2, not 0 with "-" everywhere)
expect 2 "info --root on a missing directory" "$VMB" info --root /nonexistent
has "$T/err" "--root /nonexistent" "the message names the root"
has "$T/err" "record-fixture.sh" "the message says what would be right"
mkdir "$T/empty"
expect 2 "info --root on an empty directory" "$VMB" info --root "$T/empty"
has "$T/err" "not a probe tree" "an empty directory is not a probe tree"
expect 2 "info --root on a file" "$VMB" info --root "$FX/make-synthetic.py"

# the human view: no JSON, singular and plural counts
expect 0 "info on a one-socket machine" "$VMB" info --root "$FX/vmware"
lacks "$T/out" "{" "no raw JSON object in the human view"
lacks "$T/out" "[\"" "no raw JSON array in the human view"
has "$T/out" "1 socket," "one socket, singular"
has "$T/out" "2 logical CPUs" "two CPUs, plural"
has "$T/out" "12.34 s since boot" "steal in seconds, readable"
has "$T/out" "has invariant TSC, hypervisor" "named CPU flags"
expect 0 "info on a two-socket machine" "$VMB" info --root "$FX/baremetal"
has "$T/out" "8 logical CPUs, 2 sockets, 8 cores, 2 NUMA nodes" "two sockets, plural"

expect 0 "info on an arm guest" "$VMB" info --root "$FX/aarch64-tcg-virt"
has "$T/out" "cpu flags              9 flags" "arm flags counted"
lacks "$T/out" "lacks avx2" "x86 flags are not said to be missing on arm"
has "$T/out" "vmx/svm flag           - (not an x86 CPU)" "nor vmx/svm"
has "$T/out" "device_tree, midr (decided by device_tree, midr)" "the sources include what decided"

# names: products, not raw CPUID signatures
expect 0 "info on a Hyper-V guest" "$VMB" info --root "$FX/hyperv"
has "$T/out" "hypervisor             Hyper-V" "Hyper-V by name"
lacks "$T/out" "hypervisor             Microsoft Hv" "not by its raw signature"
has "$T/out" "\"Microsoft Hv\"" "the raw signature on a line of its own"
expect 0 "info on KVM presenting Hyper-V" "$VMB" info --root "$FX/kvm-hyperv-enlightened"
has "$T/out" "KVM (presenting Hyper-V's paravirtual interface)" "KVM behind Hyper-V's interface"
expect 0 "info --json on an old QEMU TCG guest" "$VMB" info --json --root "$FX/qemu-tcg-nosig"
check "signature-less QEMU is QEMU TCG, decided by DMI, the bit and the CPU model" python3 -c '
import json, sys
hv = json.load(open(sys.argv[1]))["hypervisor"]
assert hv["name"] == "QEMU TCG", hv
assert hv["decided_by"] == ["dmi", "cpuid_hypervisor_bit", "cpu_model"], hv' "$T/out"

# /dev/kvm beside the CPU flags
expect 0 "info on a KVM guest with /dev/kvm but no vmx flag" "$VMB" info --root "$FX/kvm-devkvm-no-vmx"
has "$T/out" "vmx/svm flag           none" "the CPU-flag view"
has "$T/out" "present, opens, creates VMs (API 12) [recorded]" "the recorded /dev/kvm"
expect 0 "info on a recorded tree without .kvm" "$VMB" info --root "$FX/hyperv"
has "$T/out" "/dev/kvm               not probed" "/dev/kvm is not probed below another root"
expect 0 "info --json on this machine" "$VMB" info --json
check "the live /dev/kvm is probed" python3 -c '
import json, os, sys
k = json.load(open(sys.argv[1]))["kvm"]
assert k["probed"] == "live", k
assert k["device"] == os.path.exists("/dev/kvm"), k
assert not k["creates_vm"] or (k["opens"] and k["api_version"] == 12), k' "$T/out"

# whether a guest runs under this KVM: the lab's last verdict (kvmguest.h),
# whatever this host's /dev/kvm is; a recorded tree has none
mkdir -p "$T/.local/state/vmbench"
printf 'verdict=runs\nreason=\nwhen=1796529392\nboot_id=0000\n' >"$T/.local/state/vmbench/kvm-guests"
expect 0 "info with the lab's verdict from an earlier boot" "$VMB" info
has "$T/out" "KVM guests             run: a lab guest said HELLO under KVM at 2026-12-06T03:56:32Z, in an earlier boot of this machine" \
	"the verdict, when, and that it is from an earlier boot"
expect 0 "info --root: another machine" "$VMB" info --root "$FX/vmware"
lacks "$T/out" "KVM guests" "no verdict for a recorded tree"
printf 'verdict=fails\nreason=KVM internal error. Suberror: 1\\x1b[2J\nwhen=1796529392\nboot_id=%s\n' \
	"$(cat /proc/sys/kernel/random/boot_id)" >"$T/.local/state/vmbench/kvm-guests"
expect 0 "info with a failed verdict of this boot" "$VMB" info
has "$T/out" "KVM guests             fail: a lab guest did not boot under KVM at 2026-12-06T03:56:32Z: KVM internal error. Suberror: 1\x1b[2J; accel=tcg emulates guests" \
	"QEMU's words as kept, escaped"
has "$T/out" "ago, an older vmbench's, which did not say where it was made: not used]" \
	"a verdict that does not say where it was made is not used"
rm -r "$T/.local/state/vmbench"

# hostile trees: non-UTF-8 strings, FIFOs where files should be
expect 0 "info on non-UTF-8 strings" "$VMB" info --json --root "$FX/odd-values"
has "$T/out" '"hostname": "caf\\xe9-\\xff\\xfe"' "invalid bytes escaped"
expect 0 "info (human view) on non-UTF-8 strings" "$VMB" info --root "$FX/odd-values"
has "$T/out" "sockets unknown" "a package id of -1 gives no socket count"
mkdir -p "$T/fifo/proc/sys/kernel" "$T/fifo/sys"
mkfifo "$T/fifo/proc/cpuinfo" "$T/fifo/proc/sys/kernel/hostname" "$T/fifo/proc/meminfo"
# timeout turns a regression (blocking on the FIFO) into a failure, not a hang
expect 0 "info on a tree of FIFOs returns" timeout 60 "$VMB" info --root "$T/fifo"
has "$T/out" "host                   -" "a FIFO is not read"

finish
