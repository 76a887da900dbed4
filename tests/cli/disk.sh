#!/bin/sh
# The storage suite on real files with small sizes: values, cleanup, and
# every refusal that protects the user's data.
. "$(dirname "$0")/lib.sh"

d="$T/d"
mkdir -p "$d"
small="--disk.dir $d --disk.size 16m --disk.file-size 8m --time 0.2 --warmup 0 --disk.ramp 0 --repeat 2"
small="$small --disk.iodepth 1,4 --no-store"
no_files() { test -z "$(ls -A "$d")"; }

expect 0 "run disk on a 16 MiB file" "$VMB" run disk $small --json "$T/uring.json"
check "every metric present and sane, percentiles monotonic" python3 "$SRC/tests/cli/check_result.py" \
	"$T/uring.json" --suite disk
check "the test file is gone" no_files
check "all seven tests, the sweep, the metrics" python3 - "$T/uring.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))["suites"][0]
tests = {t["name"]: t for t in s["tests"]}
assert list(tests) == ["randread", "randwrite", "randrw", "seqread", "seqwrite", "iozone", "fsync"], list(tests)
assert [c["params"]["iodepth"] for c in tests["randread"]["cases"]] == [1, 4]
m = {x["name"] for x in tests["randread"]["cases"][1]["metrics"]}
need = {"iops", "mb_per_s", "latency", "cpu_user_pct", "cpu_sys_pct", "ios_per_cpu_s"}
assert need <= m, need - m
m = {x["name"] for x in tests["randrw"]["cases"][0]["metrics"]}
assert {"read_iops", "write_iops", "read_latency", "write_latency"} <= m, m
m = {x["name"] for x in tests["iozone"]["cases"][0]["metrics"]}
assert m == {"write_mb_per_s", "rewrite_mb_per_s", "read_mb_per_s", "reread_mb_per_s"}, m
lat = next(x for x in tests["randread"]["cases"][0]["metrics"] if x["name"] == "latency")["histogram"]
assert lat["stddev"] >= 0 and "p99.99" in lat["percentiles"]
assert s["notes"]["engine"] in ("io_uring", "psync") and s["notes"]["direct"] is True
PY

expect 0 "the portable engine" "$VMB" run disk $small --disk.engine psync --json "$T/psync.json"
check "psync gives the same metric set as io_uring" python3 - "$T/uring.json" "$T/psync.json" <<'PY'
import json, sys
def names(p):
    d = json.load(open(p))["suites"][0]
    return {(t["name"], json.dumps(c["params"]), m["name"]) for t in d["tests"] for c in t["cases"]
            for m in c["metrics"]}
a, b = names(sys.argv[1]), names(sys.argv[2])
assert a == b, (a ^ b)
assert json.load(open(sys.argv[2]))["suites"][0]["notes"]["engine"] == "psync"
PY
check "no file left by the portable engine" no_files

head -c 65536 /dev/urandom > "$d/precious"
sum=$(cksum < "$d/precious")
expect 1 "an existing --disk.file is refused" "$VMB" run disk.randread $small --disk.file "$d/precious"
has "$T/err" "precious exists; vmbench writes only files it creates" "the refusal says why"
check "the existing file is untouched" test "$(cksum < "$d/precious")" = "$sum"
rm -f "$d/precious"

shm=$(mktemp -d /dev/shm/vmbench-test-XXXXXX)
expect 1 "O_DIRECT on tmpfs is refused (skipped with the reason, nothing measured)" "$VMB" run disk.randread $small --disk.dir "$shm" \
	--json "$T/shm.json"
has "$T/shm.json" "would measure memory" "the reason is recorded"
has "$T/err" "skipped" "and shown"
check "nothing written to tmpfs" test -z "$(ls -A "$shm")"
expect 0 "tmpfs with --disk.buffered runs, and says so" "$VMB" run disk.randread $small --disk.dir "$shm" \
	--disk.buffered --json "$T/shm2.json"
has "$T/shm2.json" "page cache: these are not disk numbers" "the result says page cache"
rmdir "$shm"

expect 1 "a size larger than the free space" "$VMB" run disk.randread --disk.dir "$d" --disk.size 1000t --no-store
has "$T/err" "MiB free; the test file" "both numbers in the message"

check "Ctrl-C mid-run: exit 130, test file removed" python3 "$SRC/tests/cli/interrupt.py" "$VMB" "$T/r.db" \
	sigint disk.randread $small
check "a second signal forces the exit and still removes the file" python3 "$SRC/tests/cli/interrupt.py" \
	"$VMB" "$T/r.db" sigint-sigterm disk.randread $small
check "the test file deleted mid-run: a clear failure" python3 "$SRC/tests/cli/interrupt.py" "$VMB" "$T/r.db" \
	unlink disk.randread $small

# ENOSPC mid-run, on a small tmpfs the test mounts (root only).
if mkdir -p "$T/small" && mount -t tmpfs -o size=48m tmpfs "$T/small" 2>/dev/null; then
	check "ENOSPC mid-run: exit 1 naming the error, files removed" python3 "$SRC/tests/cli/interrupt.py" \
		"$VMB" "$T/r.db" fill disk.iozone --disk.dir "$T/small" --disk.buffered --disk.size 4m \
		--disk.file-size 16m --warmup 0 --repeat 2 --no-store
	umount "$T/small"
else
	ok "ENOSPC mid-run # skip: cannot mount a tmpfs here"
fi

# A block device: a loop device over a file of the test's own.
head -c 16777216 /dev/urandom > "$T/loop.img"
loop=$(losetup -f --show "$T/loop.img" 2>/dev/null || true)
if [ -n "$loop" ] && [ -b "$loop" ]; then
	sum=$(cksum < "$loop")
	expect 0 "a device without --destructive: reads run, writes are skipped" "$VMB" run disk --disk.device "$loop" \
		$small --json "$T/dev.json"
	check "not one byte of the device changed" test "$(cksum < "$loop")" = "$sum"
	check "read tests measured, write tests skipped with the reason" python3 - "$T/dev.json" <<'PY'
import json, sys
t = {x["name"]: x for x in json.load(open(sys.argv[1]))["suites"][0]["tests"]}
for n in ("randread", "seqread"):
    assert t[n]["status"] == "ok" and t[n]["cases"], n
for n in ("randwrite", "randrw", "seqwrite", "fsync"):
    assert t[n]["status"] == "skipped" and "pass --destructive" in t[n]["reason"], n
PY
	expect 0 "with --destructive the write tests run on the device" "$VMB" run disk.randwrite disk.fsync \
		--disk.device "$loop" \
		$small --destructive
	check "and did write" test "$(cksum < "$loop")" != "$sum"
	losetup -d "$loop"
else
	ok "block device tests # skip: no loop device available here"
fi
check "no file left behind by any of these" no_files
finish
