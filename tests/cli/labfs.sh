#!/bin/sh
# The filesystem on the device under test (matrix key fs): an x86_64 TCG
# guest makes ext4 on its scratch disk and runs disk.iozone and app.files
# there, and its stored document says so; fs=none keeps the raw device and
# skips the file tests with the reason instead of measuring the guest's
# tmpfs; a filesystem the lab does not know is a usage error before any
# boot. Plain build only (tests/meson.build): it boots two TCG guests.
. "$(dirname "$0")/lib.sh"

cache="$SRC/build-lab-cache"
export TMPDIR="$T/tmp"
mkdir -p "$TMPDIR"
expect 2 "fs=btrfs: a usage error" "$VMB" lab run --matrix "accel=tcg fs=btrfs" --cache "$T/no-cache" \
	--db "$T/none.db"
has "$T/err" "matrix: fs=btrfs is not known; valid values of fs: ext4, xfs, none" "lists the valid filesystems"
check "nothing was booted, fetched or stored for it" sh -c "test ! -e '$T/none.db' && test ! -e '$T/no-cache' &&
	test -z \"\$(ls -A '$TMPDIR')\""
expect 2 "run --skip-fs-tests without a reason: a usage error" "$VMB" run disk.iozone \
	--skip-fs-tests "" --no-store
has "$T/err" "--skip-fs-tests" "names the option"
if [ "$(uname -m)" != x86_64 ] || [ ! -x /bin/busybox ] || ! command -v qemu-system-x86_64 >/dev/null 2>&1; then
	skip "an x86_64 TCG guest with fs=ext4,none" "an x86_64 host with busybox-static and qemu-system-x86 is needed"
	finish
	exit $?
fi
shared_images x86_64
expect 0 "disk.iozone and app.files in TCG guests with fs=ext4 and fs=none" "$VMB" lab run \
	--matrix "accel=tcg fs=ext4,none" --suites disk.iozone,app.files --quick --boots 1 --baseline none \
	--disk-size 16m --cache "$cache" --image-dir "$T/imgs" --db "$T/fs.db" -o "$T/fs.html"
check "ext4: made by mke2fs on the device under test, mounted, and the file tests ran there" python3 - "$T/fs.db" <<'PY'
import json, sqlite3, sys
docs = {json.loads(d)["labels"]["fs"]: json.loads(d) for (d,) in sqlite3.connect(sys.argv[1]).execute("SELECT doc FROM runs")}
assert set(docs) == {"ext4", "none"}, set(docs)
d = docs["ext4"]
fs = d["filesystem"]
dev = [b["name"] for b in d["fingerprint"]["block_devices"] if b["driver"] == "virtio_blk"]
assert fs["type"] == "ext4" and fs["device"] == "/dev/" + dev[0], (fs, dev)
assert fs["mountpoint"] == "/mnt/vmbench" and "rw" in fs["mount_options"].split(","), fs
assert fs["mkfs"].startswith("/sbin/mke2fs -t ext4 ") and fs["mkfs"].endswith(fs["device"]), fs
assert fs["mkfs_version"].startswith("mke2fs 1."), fs
assert fs["size_bytes"] > 16 << 20, fs  # room for the test file and iozone's
assert fs["disk_size_bytes"] >= fs["size_bytes"], fs
suites = {s["name"]: s for s in d["suites"]}
assert suites["disk"]["options"]["dir"] == "/mnt/vmbench", suites["disk"]["options"]
assert suites["disk"]["notes"]["target"].startswith("/mnt/vmbench/"), suites["disk"]["notes"]
assert suites["disk"]["notes"]["device"] == dev[0], suites["disk"]["notes"]
assert suites["app"]["notes"]["app_dir_fs"] == "ext4", suites["app"]["notes"]
for s, t in (("disk", "iozone"), ("app", "files")):
    (test,) = [x for x in suites[s]["tests"] if x["name"] == t]
    assert test["status"] == "ok" and test["cases"], (s, t, test["status"], test["reason"])
# the guest's test file has the size the host's would have
assert all(c["params"]["size"] == 16 << 20 for t in suites["disk"]["tests"] for c in t["cases"]
           if "size" in c["params"]), suites["disk"]["tests"]
PY
check "fs=none: the raw device, and the file tests skipped with the reason" python3 - "$T/fs.db" <<'PY'
import json, sqlite3, sys
docs = {json.loads(d)["labels"]["fs"]: json.loads(d) for (d,) in sqlite3.connect(sys.argv[1]).execute("SELECT doc FROM runs")}
d = docs["none"]
assert d["filesystem"]["type"] == "none" and d["filesystem"]["device"].startswith("/dev/"), d["filesystem"]
suites = {s["name"]: s for s in d["suites"]}
assert suites["disk"]["notes"]["target"].startswith(d["filesystem"]["device"] + " (block device"), suites["disk"]["notes"]
for s, t in (("disk", "iozone"), ("app", "files")):
    (test,) = [x for x in suites[s]["tests"] if x["name"] == t]
    assert test["status"] == "skipped", (s, t, test["status"])
    assert test["reason"] == "fs=none: no filesystem on the device under test", test["reason"]
PY
check "no QEMU process of this test is left" sh -c "! pgrep -f '[q]emu-system-.*$TMPDIR' >/dev/null"
check "no work directory is left" test -z "$(ls -A "$TMPDIR")"
finish
