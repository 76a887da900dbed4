#!/bin/sh
# The CPU side of the lab's matrix (issue 30): keys that contradict each
# other are usage errors before any boot; an x86_64 TCG guest with a named
# CPU model and a topology shows both in its stored fingerprint;
# multi-threaded TCG runs the two vCPUs on two host threads, single-threaded
# TCG on one (as QMP says; no speed is judged); a UEFI guest (OVMF) reaches
# the agent and its boot's firmware phase is measured. Plain build only (tests/meson.build): it boots three TCG
# guests.
. "$(dirname "$0")/lib.sh"

cache="$SRC/build-lab-cache"
export TMPDIR="$T/tmp"
mkdir -p "$TMPDIR"
expect 2 "tcg= under accel=kvm: a usage error" "$VMB" lab run --matrix "accel=kvm tcg=single" --cache "$T/no-cache" \
	--db "$T/none.db"
has "$T/err" "tcg=single says how TCG runs the vCPUs, and accel=kvm has no TCG; give accel=tcg" "says why and what is right"
expect 2 "an unknown CPU model: a usage error" "$VMB" lab run --matrix "accel=tcg arch=aarch64 cpu=qemu64" \
	--cache "$T/no-cache" --db "$T/none.db"
has "$T/err" "cpu=qemu64 is no aarch64 CPU model the lab knows; aarch64 models: auto, max, host, cortex-a72, cortex-a57, neoverse-n1" \
	"lists the architecture's models"
expect 2 "a topology of another vCPU count: a usage error" "$VMB" lab run --matrix "accel=tcg smp=1,2 topology=1x2x1" \
	--cache "$T/no-cache" --db "$T/none.db"
has "$T/err" "topology=1x2x1 makes 2 vCPUs, smp=1" "names the configuration that disagrees"
expect 2 "queues on a NIC that takes one: a usage error" "$VMB" lab run --matrix "accel=tcg nic=e1000 queues=2" \
	--cache "$T/no-cache" --db "$T/none.db"
has "$T/err" "queues=2 needs a NIC model that takes several queues (virtio-net), not nic=e1000" "names the NIC models"
check "nothing was booted, fetched or stored for them" sh -c "test ! -e '$T/none.db' && test ! -e '$T/no-cache' &&
	test -z \"\$(ls -A '$TMPDIR')\""
if [ "$(uname -m)" != x86_64 ] || [ ! -x /bin/busybox ] || ! command -v qemu-system-x86_64 >/dev/null 2>&1; then
	skip "x86_64 TCG guests with cpu=, topology=, tcg= and firmware=" "an x86_64 host with busybox-static and qemu-system-x86 is needed"
	finish
	exit $?
fi
shared_images x86_64
expect 0 "cpu.prime in TCG guests of cpu=qemu64 topology=1x2x1, tcg=multi and single" "$VMB" lab run \
	--matrix "accel=tcg smp=2 cpu=qemu64 topology=1x2x1 tcg=multi,single" --suites cpu.prime --quick --time 0.1 \
	--repeat 2 --warmup 0 --boots 1 --baseline none --threads 2 --cpu.max-prime 2000 --cache "$cache" --image-dir "$T/imgs" --db "$T/cpu.db" \
	-o "$T/cpu.html"
check "the guests' fingerprints: QEMU's qemu64 model, one socket of two cores of one thread" python3 - "$T/cpu.db" <<'PY'
import json, sqlite3, sys
docs = {json.loads(d)["labels"]["tcg"]: json.loads(d) for (d,) in sqlite3.connect(sys.argv[1]).execute("SELECT doc FROM runs")}
assert set(docs) == {"multi", "single"}, set(docs)
for d in docs.values():
    assert d["labels"]["cpu"] == "qemu64" and d["labels"]["topology"] == "1x2x1", d["labels"]
    cpu = d["fingerprint"]["cpu"]
    assert cpu["model"] == "QEMU Virtual CPU version 2.5+", cpu["model"]
    assert (cpu["logical"], cpu["sockets"], cpu["cores"], cpu["threads_per_core"]) == (2, 1, 2, 1), cpu
    assert d["fingerprint"]["kernel"]["efi"] is False, d["fingerprint"]["kernel"]  # QEMU's own firmware
PY
# How TCG ran the vCPUs, as QEMU says (QMP's thread ids), not as a speed
check "tcg=multi ran the 2 vCPUs on 2 host threads, tcg=single on 1 (the suite's notes)" python3 - "$T/cpu.db" <<'PY'
import json, sqlite3, sys
threads = {}
for (d,) in sqlite3.connect(sys.argv[1]).execute("SELECT doc FROM runs"):
    d = json.loads(d)
    (s,) = [s for s in d["suites"] if s["name"] == "cpu"]
    threads[d["labels"]["tcg"]] = s["notes"]["qemu_vcpu_threads"]
assert threads == {"multi": 2, "single": 1}, threads
PY
# QEMU's host CPU per second over the RUN (issue 28): a series of the case,
# each point a share of host CPUs that this QEMU could have used
check "qemu_host_cpu: a series of points within [0, 100 x (vCPUs + 1)], no more than the host has" python3 - "$T/cpu.db" <<'PY'
import json, os, sqlite3, sys
lim = 100 * min(2 + 1, os.cpu_count()) + 10  # 2 vCPUs and QEMU's main loop; a tick's rounding
for (d,) in sqlite3.connect(sys.argv[1]).execute("SELECT doc FROM runs"):
    d = json.loads(d)
    (s,) = [s for s in d["suites"] if s["name"] == "cpu"]
    # the cases of threads=1 and 2: a point belongs to the case the guest's PROGRESS named
    hs = [x for t in s["tests"] for c in t["cases"] for x in c.get("series", []) if x["name"] == "qemu_host_cpu"]
    assert 1 <= len(hs) <= 2 and all(h["unit"] == "%" and h["rep"] == 1 and h["points"] for h in hs), hs
    pts = [p for h in hs for p in h["points"]]
    assert all(0 <= v <= lim for _, v in pts), (pts, lim)
    # the guest counted primes: QEMU used CPU
    assert max(v for _, v in pts) > 0, pts
    print(d["labels"]["tcg"], [[round(v) for _, v in h["points"]] for h in hs])
PY
if [ ! -r /usr/share/OVMF/OVMF_CODE.fd ] || [ ! -r /usr/share/OVMF/OVMF_VARS.fd ]; then
	skip "a UEFI guest reaching the agent" "OVMF is not installed (Debian's ovmf: apt-get install ovmf)"
else
	# aarch64 too, through QEMU_EFI, where make cross and qemu-efi-aarch64 (scripts/deps.sh cross) are
	arches=x86_64
	if [ -x "$(dirname "$VMB")/vmbench-aarch64" ] && [ -r /usr/share/qemu-efi-aarch64/QEMU_EFI.fd ] &&
		command -v qemu-system-aarch64 >/dev/null 2>&1; then
		arches=x86_64,aarch64
		shared_images aarch64
	else
		skip "an aarch64 guest booted by QEMU_EFI" "no vmbench-aarch64 beside $VMB (make cross), or no qemu-efi-aarch64"
	fi
	expect 0 "TCG guests booted by UEFI firmware (firmware=uefi), arch=$arches" "$VMB" lab run \
		--matrix "accel=tcg arch=$arches firmware=uefi" --suites boot.cold --boots 1 --baseline none \
		--cache "$cache" --image-dir "$T/imgs" --db "$T/uefi.db" -o "$T/uefi.html"
	check "each reached the agent, booted by UEFI, and its firmware phase is measured" python3 - "$T/uefi.db" \
		"$arches" <<'PY'
import json, sqlite3, sys
docs = [json.loads(d) for (d,) in sqlite3.connect(sys.argv[1]).execute("SELECT doc FROM runs")]
assert sorted(d["fingerprint"]["arch"] for d in docs) == sorted(sys.argv[2].split(",")), docs
for d in docs:
    assert d["labels"]["firmware"] == "uefi", d["labels"]
    # the guest's kernel was booted by UEFI (it has /sys/firmware/efi), as the host checked
    assert d["fingerprint"]["kernel"]["efi"] is True, d["fingerprint"]["kernel"]
    (s,) = [s for s in d["suites"] if s["name"] == "boot"]
    (t,) = [t for t in s["tests"] if t["name"] == "cold"]
    m = {m["name"]: m["samples"] for m in t["cases"][0]["metrics"]}
    assert m["phase_firmware"][0] > 0 and m["phase_kernel"][0] > 0 and m["phase_agent"][0] > 0, m
    assert abs(m["phase_firmware"][0] + m["phase_kernel"][0] + m["phase_agent"][0] - m["boot_total"][0]) < 1e6, m
PY
fi
check "no QEMU process of this test is left" sh -c "! pgrep -f '[q]emu-system-.*$TMPDIR' >/dev/null"
check "no work directory is left (nor a firmware's variable store)" test -z "$(ls -A "$TMPDIR")"
finish
