#!/bin/sh
# What a trap costs, side by side: the in-guest vmexit tests on this host,
# the same tests inside a TCG guest from the lab (where nothing traps: the
# emulator runs cpuid itself), and vmexit.kvm, vmbench's own minimal VM on
# this host's /dev/kvm. One lab run gives the first two columns (its host
# baseline and the guest); the host's run also holds vmexit.kvm.
# Usage: bench/vmexit.sh [--full]   (default: --quick runs, a few minutes)
set -eu
cd "$(dirname "$0")/.."
quick=--quick
[ "${1:-}" = --full ] && quick=
[ -x build/vmbench ] || make build >/dev/null
tmp=$(mktemp -d /tmp/vmbench-vmexit-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
db="$tmp/results.db"

# shellcheck disable=SC2086 # $quick is one word or none
build/vmbench lab run --matrix "accel=tcg disk=virtio-blk" --suites vmexit $quick --boots 1 \
	--baseline host --db "$db" --image-dir "$tmp/img" -o "$tmp/lab.html" >"$tmp/lab.out"
for id in $(build/vmbench results --db "$db" --format json | python3 -c \
	'import json,sys; print(" ".join(str(r["id"]) for r in json.load(sys.stdin)))'); do
	build/vmbench export "$id" --db "$db" >"$tmp/run-$id.json"
done

python3 - "$tmp" <<'PY'
import glob, json, sys
docs = [json.load(open(p)) for p in sorted(glob.glob(sys.argv[1] + "/run-*.json"))]
host = next(d for d in docs if "accel" not in d["labels"])
guest = next(d for d in docs if d["labels"].get("accel") == "tcg")

def figures(d):
    out, why = {}, {}
    for s in d["suites"]:
        if s["name"] != "vmexit":
            continue
        for t in s["tests"]:
            if t["status"] != "ok":
                why[t["name"]] = t["reason"] or t["status"]
                continue
            for m in t["cases"][0]["metrics"]:
                if "empty_loop" in m["name"]:
                    continue
                key = t["name"] if m["name"] == "ns" else f"{t['name']}.{m['name']}"
                out[key] = (m["summary"]["median"], m["unit"])
    return out, why

def fmt(v):
    if v is None:
        return "-"
    val, unit = v
    if unit != "ns":
        return f"{val:.2f}"
    return f"{val / 1000:.2f} us" if val >= 1000 else f"{val:.1f} ns"

h, hwhy = figures(host)
g, gwhy = figures(guest)
print(f"host: {host['fingerprint']['hypervisor']['name']}, clocksource "
      f"{host['fingerprint']['clocksource']['current']}; guest: "
      f"{guest['fingerprint']['hypervisor']['name']}, clocksource {guest['fingerprint']['clocksource']['current']}")
print("medians of the repetitions")
print(f"{'test':28} {'this host':>12} {'TCG guest':>12} {'vmexit.kvm here':>16}")
for k in [k for k in h if not k.startswith("kvm.")] + [k for k in g if k not in h]:
    print(f"{k:28} {fmt(h.get(k)):>12} {fmt(g.get(k)):>12} {'':>16}")
for k in [k for k in h if k.startswith("kvm.")]:
    print(f"{k:28} {'':>12} {'':>12} {fmt(h[k]):>16}")
for name, why in sorted(set(hwhy.items()) | {(n, "guest: " + w) for n, w in gwhy.items()}):
    print(f"  {name}: {why}")
notes = next(s for s in host["suites"] if s["name"] == "vmexit")["notes"]
for k in ("kvm_exits_counted", "kvm_not_measured"):
    if k in notes:
        print(f"  {k}: {notes[k]}")

# what the columns show, from the figures themselves
def v(d, k):
    return d[k][0] if k in d else None
c_h, c_g, s_h = v(h, "cpuid"), v(g, "cpuid"), v(h, "syscall")
print("what they show:")
if c_h and s_h:
    print(f"- cpuid on this host costs {c_h / s_h:.1f}x a system call: " +
          ("it traps to the hypervisor" if c_h > s_h else "it does not trap"))
if c_h and c_g:
    print(f"- in the TCG guest cpuid is {c_g:.1f} ns, {c_h / c_g:.0f}x cheaper than here: "
          "the emulator answers it inline, nothing leaves the guest")
if "kvm.io_ns" in h and "kvm.ioeventfd_ns" in h:
    print(f"- in vmbench's own VM a port write handled in user space costs {v(h, 'kvm.io_ns') / 1000:.1f} us, "
          f"{v(h, 'kvm.user_kernel_ratio'):.1f}x the same write kept in the kernel by an ioeventfd "
          f"({v(h, 'kvm.ioeventfd_ns') / 1000:.1f} us): why virtio notifies through ioeventfd")
if "kvm.cpuid_ns" in h and c_h:
    print(f"- cpuid in that VM, handled by this machine's KVM: {v(h, 'kvm.cpuid_ns') / 1000:.1f} us; "
          f"this machine's own cpuid, handled by the hypervisor it runs under: {c_h / 1000:.1f} us")
PY
