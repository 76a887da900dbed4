#!/bin/sh
# Every machine (issue 22): the cache chain on machine descriptions that are
# not this host (tests/fixtures/probe/cache-*, made by make-cache-machines.py),
# through `info --json --root` and through `run` in the test build, which
# VMBENCH_TEST_MACHINE points at a description (src/probe/machine.c). The
# memory suite's quick selection exits 0 on each, with the cache source or
# the fallback in its document; then the real binary on this host with its
# sysfs cache directories hidden in a mount namespace (root only).
. "$(dirname "$0")/lib.sh"
# what these runs check is the skip or fallback, not the figure: the
# shortest measurement that still measures
FAST="--time 0.05 --warmup 0 --min-reps 2 --max-reps 2 --threads 1"
INJ=$3
FX="$SRC/tests/fixtures/probe"

# the fingerprint: each level with its source, what was not trusted with why
for m in cache-amd-bhyve cache-intel-sysfs cache-none cache-lying-hv cache-huge-llc; do
	expect 0 "info --json on $m" "$VMB" info --json --root "$FX/$m"
	cp "$T/out" "$T/info-$m.json"
done
check "info: sources and rejections of each description" python3 - "$T" <<'PY'
import json, sys
want = {
    # issue 22's machine: no sysfs caches, leaves 4 and 0x8000001D zeros, legacy leaves present
    "cache-amd-bhyve": ([(1, 49152, "cpuid_legacy"), (2, 1048576, "cpuid_legacy"), (3, 33554432, "cpuid_legacy")], []),
    "cache-intel-sysfs": ([(1, 49152, "sysfs"), (2, 2097152, "sysfs"), (3, 37748736, "sysfs")], []),
    # issue 41's Xeon: an L3 larger than any size the quick sweep measures
    "cache-huge-llc": ([(1, 49152, "sysfs"), (2, 2097152, "sysfs"), (3, 503316480, "sysfs")], []),
    "cache-none": ([], []),
    "cache-lying-hv": ([(1, 32768, "sysfs"), (2, 1048576, "sysfs"), (3, 16777216, "cpuinfo")],
                       [("L3", "sysfs", "an L3 smaller than the L2"), ("L3", "cpuid", "not a whole number of 16 lines"),
                        ("L3", "cpuid_legacy", "larger than the machine's memory"),
                        ("L3", "cpuid_leaf2", "an L3 smaller than the L2")]),
}
for m, (caches, rejected) in want.items():
    cpu = json.load(open(f"{sys.argv[1]}/info-{m}.json"))["cpu"]
    got = [(c["level"], c["size_bytes"], c["source"]) for c in cpu["caches"]]
    assert got == caches, (m, got)
    rej = [(r["level"], r["source"], r["why"]) for r in cpu["caches_rejected"]]
    assert [(l, s) for l, s, _ in rej] == [(l, s) for l, s, _ in rejected], (m, rej)
    assert all(w.startswith(p) for (_, _, w), (_, _, p) in zip(rej, rejected)), (m, rej)
PY
expect 0 "info on the lying hypervisor, for a person" "$VMB" info --root "$FX/cache-lying-hv"
has "$T/out" "L3 16 MiB (cpuinfo)" "the level with its source"
has "$T/out" "L3 512 KiB from sysfs: an L3 smaller than the L2" "what was not trusted, and why"
expect 0 "info on a machine nothing knows the caches of" "$VMB" info --root "$FX/cache-none"
has "$T/out" "caches                 unknown" "unknown, said as such"

# the memory suite's quick selection against each description
for m in cache-amd-bhyve cache-intel-sysfs cache-none cache-lying-hv cache-huge-llc; do
	VMBENCH_TEST_MACHINE="$FX/$m" expect 0 "run mem --quick on $m" "$INJ" run mem --quick $FAST --no-store \
		--json "$T/run-$m.json"
done
check "run: every test measured, the cache source or the fallback in each document" python3 - "$T" <<'PY'
import json, sys
want = {  # L3 source in the fingerprint, STREAM's bytes per array (quick: 1x the last level), the caches note
    "cache-amd-bhyve": ("cpuid_legacy", 33554432, "L3 32768 KiB (cpuid_legacy)"),
    "cache-intel-sysfs": ("sysfs", 37748736, "L3 36864 KiB (sysfs)"),
    "cache-huge-llc": ("sysfs", 503316480, "L3 491520 KiB (sysfs)"),
    "cache-none": (None, None, "L3 unknown"),
    "cache-lying-hv": ("cpuinfo", 16777216, "L3 16384 KiB (cpuinfo)"),
}
for m, (src, array, note) in want.items():
    d = json.load(open(f"{sys.argv[1]}/run-{m}.json"))
    assert d["fingerprint"]["hostname"] == m, d["fingerprint"]["hostname"]
    l3 = [c["source"] for c in d["fingerprint"]["cpu"]["caches"] if c["level"] == 3]
    assert l3 == ([src] if src else []), (m, l3)
    s = d["suites"][0]
    st = {t["name"]: (t["status"], t.get("reason")) for t in s["tests"]}
    assert all(v[0] == "ok" for v in st.values()), (m, st)
    assert note in s["notes"]["caches"], (m, s["notes"]["caches"])
    bw = next(t for t in s["tests"] if t["name"] == "bandwidth")["cases"][0]
    got = int(bw["params"]["array-size"])
    if array:
        assert got == array, (m, got)
        assert not s["notes"].get("stream_rule", "").startswith("last-level cache unknown"), (m, s["notes"])
    else:
        # the documented default: min(1 GiB, MemAvailable/8), a quarter under --quick, whole MiB
        mib = got >> 20
        assert got % (1 << 20) == 0 and 1 <= mib <= 256, got
        assert s["notes"]["stream_rule"] == (f"last-level cache unknown: arrays of {mib} MiB; on a CPU with more "
                                             f"than {mib // 4} MiB of cache this figure is a cache figure"), s["notes"]
        assert s["notes"]["latency_levels"].startswith("unknown"), s["notes"]
    if m == "cache-lying-hv":
        assert s["notes"]["caches_rejected"].count("from") == 4, s["notes"]["caches_rejected"]
PY

# the latency figure of each shape: cli-mem's check (marks derived from the
# run's notes and sizes) and what each description says it must mark; a
# last-level cache larger than the sweep is not marked (issue 41's Xeon)
for m in cache-amd-bhyve cache-intel-sysfs cache-none cache-lying-hv cache-huge-llc; do
	expect 0 "the report of $m's quick run" "$VMB" report "$T/run-$m.json" -o "$T/run-$m.html"
	check "$m: cache marks as the run recorded them" python3 "$SRC/tests/cli/check_marks.py" "$T/run-$m.html" \
		"$T/run-$m.json"
done
check "the marks each description implies" python3 - "$T" <<'PY'
import re, sys
want = {"cache-amd-bhyve": ["L1d", "L2", "L3"], "cache-intel-sysfs": ["L1d", "L2", "L3"], "cache-none": [],
        "cache-lying-hv": ["L1d", "L2", "L3"], "cache-huge-llc": ["L1d", "L2"]}
for m, marks in want.items():
    h = open(f"{sys.argv[1]}/run-{m}.html").read()
    fig = next(f for f in h.split("<figure>") if "mem.latency ns_per_load vs sizes" in f)
    got = re.findall(r'stroke-dasharray="4 3"/><text[^>]*>([^<]*)<', fig)
    assert got == marks, (m, got)
PY

# a test that needs no cache size is never refused for lacking one
VMBENCH_TEST_MACHINE="$FX/cache-none" expect 0 "mem.sysbench_memory on a machine without cache sizes" \
	"$INJ" run mem.sysbench_memory --quick $FAST --no-store --json "$T/sb.json"
check "measured, with its figure" python3 -c '
import json, sys
t = json.load(open(sys.argv[1]))["suites"][0]["tests"]
assert [(x["name"], x["status"]) for x in t] == [("sysbench_memory", "ok")], t
assert any(m["name"] == "mb_per_s" and m["samples"] for m in t[0]["cases"][0]["metrics"])' "$T/sb.json"
# only the user's wrong value is a usage error: arrays that fit in the described 36 MiB L3
VMBENCH_TEST_MACHINE="$FX/cache-intel-sysfs" expect 2 "--mem.array-size inside the last-level cache" \
	"$INJ" run mem.bandwidth --quick $FAST --no-store --mem.array-size 4m
has "$T/err" "36864 KiB last-level" "the message gives the cache it fits in"
# the product has no hook: the variable changes nothing there
VMBENCH_TEST_MACHINE="$FX/cache-none" expect 0 "the product build ignores VMBENCH_TEST_MACHINE" \
	"$VMB" info --json
check "this host's fingerprint, not the description's" python3 -c '
import json, sys
assert json.load(open(sys.argv[1]))["hostname"] != "cache-none"' "$T/out"

# one CPU (issue 41): the quick selection of every suite on this host with
# its affinity cut to one CPU, which is what a 1-vCPU guest or a container's
# cpuset gives a run; every test measures or says why not, and what defaults
# to all CPUs ran on the one the run had
cpu0=$(python3 -c 'import os; print(min(os.sched_getaffinity(0)))')
expect 0 "run --quick on one CPU (taskset -c $cpu0)" taskset -c "$cpu0" "$VMB" run --quick \
	--time 0.05 --warmup 0 --min-reps 2 --max-reps 2 --no-store --json "$T/one.json"
check "one CPU: every test measured or skipped with its reason, values finite, threads=all is 1" \
	python3 - "$T/one.json" <<'PY'
import json, math, sys
d = json.load(open(sys.argv[1]))
bad, ran = [], 0
for s in d["suites"]:
    for t in s["tests"]:
        name = f'{s["name"]}.{t["name"]}'
        if t["status"] == "skipped":
            assert t.get("reason"), (name, "skipped without a reason")
            continue
        assert t["status"] == "ok", (name, t["status"], t.get("reason"))
        ran += 1
        for c in t["cases"]:
            for m in c["metrics"]:
                assert m["samples"] and all(math.isfinite(v) for v in m["samples"]), (name, m["name"])
            if s["name"] in ("cpu", "mem") and "threads" in c["params"]:
                assert c["params"]["threads"] == 1, (name, c["params"])
assert ran >= 20, ran
print(ran, "tests measured on one CPU")
PY

# this host with its cache directories hidden: an empty tmpfs over each
if [ "$(id -u)" != 0 ]; then
	skip "run mem --quick with sysfs cache directories hidden" "not root: a mount namespace needs CAP_SYS_ADMIN"
	skip "the document names the fallback" "not root"
elif ! ls -d /sys/devices/system/cpu/cpu*/cache >/dev/null 2>&1; then
	skip "run mem --quick with sysfs cache directories hidden" "this host has no sysfs cache directories (the cache-none description covers it)"
	skip "the document names the fallback" "no sysfs cache directories"
elif ! unshare -m true 2>/dev/null; then
	skip "run mem --quick with sysfs cache directories hidden" "unshare -m refused here (a container without CAP_SYS_ADMIN)"
	skip "the document names the fallback" "unshare -m refused"
else
	cat >"$T/hide.sh" <<'SH'
set -e
for d in /sys/devices/system/cpu/cpu*/cache; do mount -t tmpfs -o size=4k vmbench-hide "$d"; done
[ -z "$(ls /sys/devices/system/cpu/cpu0/cache)" ]
exec "$@"
SH
	expect 0 "run mem --quick with sysfs cache directories hidden" unshare -m sh "$T/hide.sh" \
		"$VMB" run mem --quick $FAST --no-store --json "$T/hidden.json"
	vendor=$(awk -F': ' '/^vendor_id/ {print $2; exit}' /proc/cpuinfo)
	check "the document names the fallback ($vendor)" python3 - "$T/hidden.json" "$vendor" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
caches, s = d["fingerprint"]["cpu"]["caches"], d["suites"][0]
assert all(t["status"] == "ok" for t in s["tests"]), [(t["name"], t["status"], t.get("reason")) for t in s["tests"]]
assert all(c["source"] != "sysfs" for c in caches), caches
if sys.argv[2] == "GenuineIntel":
    # Intel's leaf 4 answers wherever sysfs does not
    assert caches and all(c["source"] == "cpuid" for c in caches), caches
    assert "(cpuid)" in s["notes"]["caches"], s["notes"]
elif not caches:
    assert s["notes"]["stream_rule"].startswith("last-level cache unknown: arrays of"), s["notes"]
PY
fi
finish
