#!/bin/sh
# The memory suite with --quick: every value finite and positive, the
# integrity pass finds a flipped bit (a test build only), huge-page absence
# said as such, the guards refuse with numbers, and sysbench memory's output
# pairs with vmbench's sysbench-definition figure.
. "$(dirname "$0")/lib.sh"
INJ=$3
fx="$SRC/tests/fixtures/import"

expect 0 "run mem --quick" "$VMB" run mem --quick --no-store --json "$T/q.json"
check "six tests, the latency sweep, finite positive values, units stated" python3 - "$T/q.json" <<'PY'
import json, math, sys
s = json.load(open(sys.argv[1]))["suites"][0]
tests = {t["name"]: t for t in s["tests"]}
assert list(tests) == ["bandwidth", "sysbench_memory", "latency", "tlb", "pagefault", "integrity"], list(tests)
assert all(t["status"] == "ok" for t in tests.values()), [(t["name"], t.get("reason")) for t in tests.values()]
for t in tests.values():
    for c in t["cases"]:
        for m in c["metrics"]:
            assert m["samples"] and all(math.isfinite(v) and v > 0 for v in m["samples"]), (t["name"], m["name"])
units = {m["name"]: m["unit"] for c in tests["sysbench_memory"]["cases"] for m in c["metrics"]}
assert units["mb_per_s"] == "MB/s" and units["mib_per_s"] == "MiB/s", units
bw = {m["name"]: m["unit"] for m in tests["bandwidth"]["cases"][0]["metrics"]}
assert {"copy_mb_per_s", "scale_mb_per_s", "add_mb_per_s", "triad_mb_per_s"} <= set(bw) and bw["copy_mb_per_s"] == "MB/s", bw
assert [c["params"]["sizes"] for c in tests["latency"]["cases"]] == [16, 512, 8192, 131072]
assert s["notes"]["marks_sizes"].startswith("L1d="), s["notes"]
assert "integrity_locked" in s["notes"] and "sysbench_memory_level" in s["notes"]
PY

expect 0 "the report of the quick run" "$VMB" report "$T/q.json" -o "$T/q.html"
# the marks follow from the run's own notes and sizes (an L3 larger than the
# sweep is not marked): tests/cli/check_marks.py; cli-machines runs it on shapes
check "the latency curve on a log x axis, cache sizes marked as the run recorded them" \
	python3 "$SRC/tests/cli/check_marks.py" "$T/q.html" "$T/q.json"

# the test build flips one bit: the pass must name it; the product has no such hook
VMBENCH_TEST_FLIP=4096 expect 1 "integrity finds the injected bit flip" "$INJ" run mem.integrity --quick --no-store
has "$T/err" "1 memory error at 0x" "the error is reported with its address"
has "$T/err" "(+4096)" "and its offset in the buffer"
VMBENCH_TEST_FLIP=4096 expect 0 "the product build has no injection hook" "$VMB" run mem.integrity --quick --no-store

# 2 MiB pages that cannot be had are said to be absent, and no "2M" figure appears
if [ "$(awk '/^HugePages_Free/ {print $2}' /proc/meminfo)" = 0 ]; then
	expect 0 "tlb with hugetlb pages that are not reserved" "$VMB" run mem.tlb mem.pagefault --quick --mem.huge hugetlb \
		--no-store --json "$T/nohuge.json"
	check "absence noted, 4K figures only" python3 - "$T/nohuge.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))["suites"][0]
assert s["notes"]["tlb_2m"].startswith("not measured: no 2 MiB pages"), s["notes"]
for t in s["tests"]:
    c = t["cases"][0]
    assert c["params"]["huge"] == "none", c["params"]
    names = {m["name"] for m in c["metrics"]}
    assert not any("2m" in n for n in names), names
    assert "ns_per_access_4k" in names or "fault_4k_ns" in names, names
PY
else
	skip "tlb with hugetlb pages that are not reserved" "this machine has hugetlb pages reserved"
	skip "absence noted, 4K figures only" "this machine has hugetlb pages reserved"
fi
if [ "$(sed 's/.*\[\(.*\)\].*/\1/' /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null)" = madvise ] ||
   [ "$(sed 's/.*\[\(.*\)\].*/\1/' /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null)" = always ]; then
	check "THP pages confirmed by smaps, recorded" python3 - "$T/q.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))["suites"][0]
t = next(t for t in s["tests"] if t["name"] == "tlb")
note = s["notes"].get("tlb_huge_backed", "") + s["notes"].get("tlb_2m", "")
assert "smaps" in note or "not measured" in note, s["notes"]
c = t["cases"][0]
assert c["params"]["thp"] in ("madvise", "always"), c["params"]
if "tlb_2m" not in s["notes"]:
    m = {m["name"]: m for m in c["metrics"]}
    assert m["huge_backed_pct"]["samples"][0] >= 90, m["huge_backed_pct"]
PY
else
	skip "THP pages confirmed by smaps, recorded" "transparent huge pages are off here"
fi

# the guards
# 64 KiB arrays sit in any last-level cache the run knew of; where it knew
# none (its fingerprint says so) nothing can refuse them: cli-machines runs
# that shape (cache-none)
if python3 -c 'import json, sys; sys.exit(not any(c["level"] >= 2 for c in json.load(open(sys.argv[1]))["fingerprint"]["cpu"]["caches"]))' "$T/q.json"; then
	expect 2 "STREAM arrays inside the last-level cache" "$VMB" run mem.bandwidth --mem.array-size 64k --no-store
	has "$T/err" "last-level cache, a cache figure and not DRAM" "refused as a cache figure"
else
	skip "STREAM arrays inside the last-level cache" "the quick run's fingerprint knows no last-level cache here"
	skip "refused as a cache figure" "no last-level cache known"
fi
# twice this machine's memory (KiB), whatever it has
big=$(awk '/^MemTotal:/ {print $2 * 2}' /proc/meminfo)
expect 2 "a latency size beyond free memory" "$VMB" run mem.latency --mem.sizes "$big" --quick --no-store
has "$T/err" "MiB are available" "refused with the numbers"
sys_thp=$(sed 's/.*\[\(.*\)\].*/\1/' /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null || echo absent)
other=never
[ "$sys_thp" = never ] && other=always
expect 2 "a THP setting the system does not have" "$VMB" run mem.tlb --mem.thp $other --quick --no-store
has "$T/err" "transparent huge pages are '$sys_thp' here" "refused, naming the system's"
expect 2 "a TLB size that is not whole 2 MiB pages" "$VMB" run mem.tlb --mem.tlb-size 5m --quick --no-store
has "$T/err" "multiples of 2 MiB" "refused"

# sysbench memory's own output pairs with vmbench's figure of the same definition
expect 0 "import sysbench memory read 1K" "$VMB" import "$fx/sysbench-mem-read-seq-1K.txt" --param access=seq
expect 0 "vmbench's sysbench_memory like it" "$VMB" run mem.sysbench_memory --mem.oper read --mem.block-size 1k \
	--mem.total-size 100g --threads 1 --time 0.05 --warmup 0 --repeat 2 --label host=new -q
expect 0 "compare them" "$VMB" compare source=sysbench-memory host=new --format json
check "paired: one row with both cells" python3 - "$T/out" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
row = [r for r in d["metrics"] if r["test"] == "sysbench_memory" and r["metric"] == "mb_per_s"]
assert len(row) == 1 and all(c is not None for c in row[0]["cells"]), [(r["params"], r["cells"]) for r in row]
PY
finish
