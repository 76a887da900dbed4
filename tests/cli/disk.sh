#!/bin/sh
# The storage suite on real files with small sizes: values, cleanup, and
# every refusal that protects the user's data.
. "$(dirname "$0")/lib.sh"

d="$T/d"
mkdir -p "$d"
base="--disk.size 16m --disk.file-size 8m --time 0.2 --warmup 0 --disk.ramp 0 --repeat 2"
base="$base --disk.iodepth 1,4 --no-store"
small="--disk.dir $d $base" # --disk.file and --disk.device take $base: one place to test
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

# iozone without -e (Study 2's settings): the flush after the clock, recorded as a parameter
expect 0 "iozone buffered, 4k records, the flush not timed" "$VMB" run disk.iozone $small --disk.buffered \
	--disk.record-size 4k --disk.flush untimed --json "$T/untimed.json"
check "the case records flush untimed, 4k records, buffered" python3 - "$T/untimed.json" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))["suites"][0]["tests"][0]["cases"][0]
p = c["params"]
assert p["flush"] == "untimed" and p["record-size"] == 4096 and p["buffered"] is True, p
assert {m["name"] for m in c["metrics"]} == {"write_mb_per_s", "rewrite_mb_per_s", "read_mb_per_s", "reread_mb_per_s"}
PY
expect 2 "--disk.flush sometimes: refused" "$VMB" run disk.iozone $small --disk.flush sometimes
has "$T/err" "timed|untimed" "with the choices"
check "no file left by iozone" no_files

# O_DIRECT sizes are checked against the target before anything is laid out
align=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["suites"][0]["notes"]["dio_align"].split()[0])' \
	"$T/uring.json")
check "the alignment found is a power of two from 512" python3 -c "import sys; a=int(sys.argv[1]); assert a >= 512 and a & (a - 1) == 0, a" "$align"
expect 2 "--disk.bs 513 with O_DIRECT: a usage error, up front" "$VMB" run disk.randread $small --disk.bs 513
has "$T/err" "--disk.bs 513 does not suit O_DIRECT on $d: it must be a multiple of $align" "the message says what would be right"
has "$T/err" "or measure through the page cache with --disk.buffered" "and the other way"
lacks "$T/err" "setup failed" "not reported as a failed measurement"
check "no test file left by the refusal" no_files
expect 2 "--disk.record-size 4097 (iozone, O_DIRECT)" "$VMB" run disk.iozone $small --disk.record-size 4097
has "$T/err" "--disk.record-size 4097 does not suit O_DIRECT on $d: it must be a multiple of $align" "names the option"
expect 2 "a sequential block larger than the region" "$VMB" run disk.seqread $small --disk.seq-bs 32m
has "$T/err" "--disk.seq-bs 33554432 is larger than the region tested (16777216 bytes, --disk.size)" "both sizes"
expect 2 "a record larger than the iozone file" "$VMB" run disk.iozone $small --disk.record-size 16m
has "$T/err" "--disk.record-size 16777216 is larger than --disk.file-size 8388608" "both sizes"
check "no test file left by these refusals" no_files
expect 0 "--disk.bs 513 through the page cache works" "$VMB" run disk.randread $small --disk.bs 513 --disk.buffered \
	--disk.iodepth 1 --json "$T/bs513.json"
check "and records bs 513, the iomem kind and the size" python3 - "$T/bs513.json" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))["suites"][0]["tests"][0]["cases"][0]["params"]
assert p["bs"] == 513 and p["iomem"] == "malloc" and p["size"] == 16777216, p
PY

# The I/O buffers' kind is a parameter: compare never pairs unlike buffers
expect 0 "seqread with transparent huge page buffers" "$VMB" run disk.seqread $small --disk.iomem thp --json "$T/thp.json"
expect 0 "seqread with the default buffers" "$VMB" run disk.seqread $small --json "$T/malloc.json"
check "each records its kind" python3 - "$T/thp.json" "$T/malloc.json" <<'PY'
import json, sys
for path, want in zip(sys.argv[1:], ("thp", "malloc")):
    s = json.load(open(path))["suites"][0]
    assert s["tests"][0]["cases"][0]["params"]["iomem"] == want, s["tests"][0]["cases"][0]["params"]
PY
expect 0 "compare the two" "$VMB" compare "$T/malloc.json" "$T/thp.json" --format csv
check "no metric paired across buffer kinds" python3 - "$T/out" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert len(rows) == 2 and {r["operand"] for r in rows} == {"malloc.json", "thp.json"}, rows
for r in rows:
    assert r["verdict"] not in ("better", "worse", "same"), r
PY
expect 2 "an unknown buffer kind" "$VMB" run disk.seqread $small --disk.iomem hugepage
has "$T/err" "one of malloc|mmap|mmaphuge|thp" "the valid kinds are listed"
free_huge=$(awk '/^HugePages_Free:/ { print $2 }' /proc/meminfo)
if [ "${free_huge:-0}" -ge 8 ]; then
	expect 0 "hugetlb buffers (mmaphuge)" "$VMB" run disk.seqread $small --disk.iomem mmaphuge --json "$T/huge.json"
	check "measured with hugetlb buffers" python3 -c 'import json,sys; t=json.load(open(sys.argv[1]))["suites"][0]["tests"][0]; assert t["status"] == "ok" and t["cases"][0]["params"]["iomem"] == "mmaphuge", t' "$T/huge.json"
else
	# the only test was skipped: nothing measured, exit 1 (the document still says why)
	expect 1 "hugetlb buffers (mmaphuge) without reserved pages" "$VMB" run disk.seqread $small --disk.iomem mmaphuge \
		--json "$T/huge.json"
	has "$T/huge.json" "not enough free hugetlb pages" "without reserved hugetlb pages: skipped, saying how to reserve them"
fi

head -c 65536 /dev/urandom > "$d/precious"
sum=$(cksum < "$d/precious")
expect 2 "an existing --disk.file is refused (the user's mistake)" "$VMB" run disk.randread $base --disk.file "$d/precious"
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

expect 2 "a size larger than the free space" "$VMB" run disk.randread --disk.dir "$d" --disk.size 1000t --no-store
has "$T/err" "MiB free; the test file" "both numbers in the message"

# What a hostile or careless user gives: every mistake exit 2, nothing written
echo data > "$T/plain"
sum=$(cksum < "$T/plain")
expect 2 "--disk.dir naming a file" "$VMB" run disk.randread $small --disk.dir "$T/plain"
has "$T/err" "--disk.dir $T/plain is not a directory" "says so"
check "the file is untouched" test "$(cksum < "$T/plain")" = "$sum"
expect 2 "--disk.dir that does not exist" "$VMB" run disk.randread $small --disk.dir "$T/nowhere"
has "$T/err" "--disk.dir $T/nowhere: No such file or directory; expected an existing directory" "says so"
expect 2 "--disk.file in a directory that does not exist" "$VMB" run disk.randread $base --disk.file "$T/nowhere/f"
has "$T/err" "the directory of --disk.file $T/nowhere: No such file or directory" "names the directory"
expect 2 "--disk.device naming a file" "$VMB" run disk.randread $base --disk.device "$T/plain"
has "$T/err" "--disk.device $T/plain is not a block device" "says so"
expect 2 "--disk.device that does not exist" "$VMB" run disk.randread $base --disk.device /dev/vmbench-none
has "$T/err" "--disk.device /dev/vmbench-none: No such file or directory; expected a block device" "says so"
head -c 16777216 /dev/urandom > "$T/target"
ln -s "$T/target" "$T/link"
sum=$(cksum < "$T/target")
expect 2 "--disk.file a symlink, with --destructive" "$VMB" run disk.randwrite $base --disk.file "$T/link" --destructive
has "$T/err" "--disk.file $T/link is a symbolic link; vmbench does not write through links" "says so"
check "the link's target is untouched" test "$(cksum < "$T/target")" = "$sum"
expect 2 "--disk.file a symlink, without --destructive" "$VMB" run disk.randwrite $base --disk.file "$T/link"
check "the link's target is still untouched" test "$(cksum < "$T/target")" = "$sum"
expect 2 "--disk.file a directory, with --destructive" "$VMB" run disk.randwrite $base --disk.file "$d" --destructive
has "$T/err" "--disk.file $d is not a regular file" "says so"
ln -s "$d" "$T/dirlink"
expect 0 "--disk.dir a symlink to a directory works" "$VMB" run disk.randread $small --disk.iodepth 1 \
	--disk.dir "$T/dirlink" --json "$T/dirlink.json"
has "$T/dirlink.json" "\"target\": \"$T/dirlink/vmbench-disk-" "the file was made there"
check "and removed from the directory behind the link" no_files
rm -f "$T/link" "$T/target" "$T/dirlink"
long="$d$(python3 -c 'print("/." * 2100)')"
expect 2 "a --disk.dir longer than PATH_MAX is refused, not cut short" "$VMB" run disk.randread $small --disk.dir "$long"
has "$T/err" "--disk.dir: the path has ${#long} bytes; at most 4064" "says how long"
for o in dir file device; do
	expect 2 "an empty --disk.$o (an unset variable)" "$VMB" run disk.randread $base --disk.$o ""
	has "$T/err" "--disk.$o is empty; expected a path" "says so"
done
check "nothing written to / for an empty --disk.dir" sh -c '! ls /vmbench-disk-* 2>/dev/null'
expect 2 "--disk.dir and --disk.file together" "$VMB" run disk.randread $small --disk.file "$d/f"
has "$T/err" "--disk.file and --disk.dir name two places to test; give one" "says so"
expect 2 "--disk.device and --disk.file together" "$VMB" run disk.randread $base --disk.device /dev/null \
	--disk.file "$d/f"
has "$T/err" "--disk.device and --disk.file name two places to test; give one" "says so"
expect 2 "I/O buffers larger than the memory: refused, not left to the OOM killer" "$VMB" run disk.randread $small \
	--disk.size 64m --disk.bs 64m --disk.iodepth 4096
has "$T/err" "--disk.jobs 1 x --disk.iodepth 4096 x --disk.bs 67108864 need 262144 MiB of I/O buffers, more than half" \
	"says how much and what to lower"
check "nothing created by these" no_files

check "Ctrl-C mid-run: exit 130, test file removed" python3 "$SRC/tests/cli/interrupt.py" "$VMB" "$T/r.db" \
	sigint disk.randread $small
check "a second signal forces the exit and still removes the file" python3 "$SRC/tests/cli/interrupt.py" \
	"$VMB" "$T/r.db" sigint-sigterm disk.randread $small
check "Ctrl-C mid-layout: exit 130, nothing stored, the half-written file removed" python3 - "$VMB" "$d" $small \
	--disk.size 64m <<'PY'
import glob, os, signal, subprocess, sys
vmb, d, args = sys.argv[1], sys.argv[2], sys.argv[3:]
env = dict(os.environ, VMBENCH_TEST_STOP_AT="disk-layout")
p = subprocess.Popen([vmb, "run", "disk.randread", *args], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
pid, status = os.waitpid(p.pid, os.WUNTRACED)  # it stops itself after the first MiB: no sleeping
assert os.WIFSTOPPED(status), f"never reached the layout: {status:#x}"
f = glob.glob(os.path.join(d, "vmbench-disk-*"))
assert len(f) == 1 and os.path.getsize(f[0]) == 1 << 20, [(x, os.path.getsize(x)) for x in f]
os.kill(p.pid, signal.SIGINT)
os.kill(p.pid, signal.SIGCONT)
out, err = p.communicate(timeout=120)
assert p.returncode == 130, (p.returncode, err)
assert b"interrupted before any case finished; nothing was stored" in err, err
assert not glob.glob(os.path.join(d, "vmbench-*")), glob.glob(os.path.join(d, "vmbench-*"))
PY
check "the test file deleted mid-run: a clear failure" python3 "$SRC/tests/cli/interrupt.py" "$VMB" "$T/r.db" \
	unlink disk.randread $small

# ENOSPC mid-run, on a small tmpfs the test mounts (root only).
if mkdir -p "$T/small" && mount -t tmpfs -o size=48m tmpfs "$T/small" 2>/dev/null; then
	check "ENOSPC mid-run: exit 1 naming the error, files removed" python3 "$SRC/tests/cli/interrupt.py" \
		"$VMB" "$T/r.db" fill disk.iozone --disk.dir "$T/small" --disk.buffered --disk.size 4m \
		--disk.file-size 16m --warmup 0 --repeat 2 --no-store
	head -c 50331648 /dev/zero > "$T/small/full" 2>/dev/null
	expect 2 "a full filesystem: refused before writing" "$VMB" run disk.randread --disk.dir "$T/small" \
		--disk.buffered --disk.size 4m --disk.file-size 4m --no-store
	has "$T/err" "$T/small has 0 MiB free; the test file (4 MiB) and the iozone file (4 MiB) need that plus" \
		"with the numbers and what to change"
	check "nothing written to it" test "$(ls -A "$T/small")" = full
	umount "$T/small"
else
	ok "ENOSPC mid-run # SKIP cannot mount a tmpfs here"
fi

# A block device: a loop device over a file of the test's own.
head -c 16777216 /dev/urandom > "$T/loop.img"
loop=$(losetup -f --show "$T/loop.img" 2>/dev/null || true)
if [ -n "$loop" ] && [ -b "$loop" ]; then
	sum=$(cksum < "$loop")
	expect 0 "a device without --destructive: reads run, writes are skipped" "$VMB" run disk --disk.device "$loop" \
		$base --json "$T/dev.json"
	check "not one byte of the device changed" test "$(cksum < "$loop")" = "$sum"
	check "read tests measured, write tests skipped with the reason" python3 - "$T/dev.json" <<'PY'
import json, sys
t = {x["name"]: x for x in json.load(open(sys.argv[1]))["suites"][0]["tests"]}
# --disk.size 16m was given: the first 16 MiB, all of this device
assert t["randread"]["cases"][0]["params"]["size"] == 16777216
for n in ("randread", "seqread"):
    assert t[n]["status"] == "ok" and t[n]["cases"], n
for n in ("randwrite", "randrw", "seqwrite", "fsync"):
    assert t[n]["status"] == "skipped" and "pass --destructive" in t[n]["reason"], n
PY
	expect 0 "with --destructive the write tests run on the device" "$VMB" run disk.randwrite disk.fsync \
		--disk.device "$loop" \
		$base --destructive
	check "and did write" test "$(cksum < "$loop")" != "$sum"
	# io_uring tears a ring down in the kernel after the process exits, and
	# a registered file held the device open O_EXCL until then: the next
	# run found it busy (8 of 10 back-to-back runs here before the fix).
	busy=0
	for i in 1 2 3 4 5; do
		"$VMB" run disk.randread --disk.device "$loop" $base --disk.engine io_uring --destructive \
			>/dev/null 2>"$T/busy.err" || { busy=$((busy + 1)); cat "$T/busy.err" >&2; }
	done
	check "five --destructive io_uring runs back to back: the device is free for each" test "$busy" = 0
	nosize=$(echo "$base" | sed 's/--disk.size 16m//')
	expect 0 "a device without --disk.size" "$VMB" run disk.randread --disk.device "$loop" $nosize --json "$T/dev2.json"
	expect 0 "a device with a smaller --disk.size" "$VMB" run disk.randread --disk.device "$loop" $nosize \
		--disk.size 4m --json "$T/dev3.json"
	check "the size recorded is the one tested: the device's, or --disk.size when smaller" python3 - \
		"$T/dev2.json" "$T/dev3.json" <<'PY'
import json, sys
for path, want in zip(sys.argv[1:], (16777216, 4194304)):
    s = json.load(open(path))["suites"][0]
    for c in s["tests"][0]["cases"]:
        assert c["params"]["size"] == want, (path, c["params"])
    assert s["notes"]["device_size"] == 16777216, s["notes"]
    assert s["notes"]["dio_align"].startswith("512 "), s["notes"]
PY
	losetup -d "$loop"
else
	ok "block device tests # SKIP no loop device available here"
fi

# A device with 4 KiB logical blocks: 512-byte I/O cannot work on it
loop=$(losetup -f --show -b 4096 "$T/loop.img" 2>/dev/null || true)
if [ -n "$loop" ] && [ -b "$loop" ]; then
	expect 2 "--disk.bs 512 on a 4096-byte-sector device" "$VMB" run disk.randread --disk.device "$loop" $base \
		--disk.bs 512
	has "$T/err" "--disk.bs 512 does not suit O_DIRECT on $loop: it must be a multiple of 4096 (the device's logical block size), e.g. 4096;" \
		"the message names the device's block size"
	expect 2 "--disk.seq-bs 6k on it" "$VMB" run disk.seqread --disk.device "$loop" $base --disk.seq-bs 6k
	has "$T/err" "it must be a multiple of 4096 (the device's logical block size), e.g. 4096 or 8192;" \
		"the nearest sizes that work"
	losetup -d "$loop"
else
	ok "a 4096-byte-sector device # SKIP losetup -b 4096 does not work here"
fi
check "no file left behind by any of these" no_files
finish
